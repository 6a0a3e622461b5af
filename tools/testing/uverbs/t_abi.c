// SPDX-License-Identifier: GPL-2.0
/*
 * uverbs_test "abi": the extension convention of Documentation/uverbs.rst
 * and the numbers the ABI keeps reserved.
 *
 * Every input field that exists for later extension -- flags, comp_mask,
 * access and attribute masks, reserved fields -- must be refused with
 * -EINVAL when it holds what this kernel does not know, on every command.
 * Each row first makes the command valid and checks that it succeeds (so
 * the -EINVAL that follows can only come from the field under test), then
 * sets the field to a value this kernel does not know and expects -EINVAL.
 * Also: 0x08, which was RESIZE_CQ, is an unknown command (-ENOTTY), as is
 * the number past the last.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "ut.h"

struct abi_row {
	const char *cmd_name;
	const char *field;
	unsigned long cmd;
	enum ut_fd fd;
	struct {
		size_t off;	/* in the command structure */
		size_t width;	/* bytes: 1, 2 or 4 */
	} f;
	uint32_t bad;		/* a value this kernel does not know */
};

/* a __u32 field (flags, comp_mask, masks and reserved words all are) */
#define F(type, member)	{ offsetof(type, member), 4 }
#define BIT31		0x80000000U

static const struct abi_row rows[] = {
	{ "GET_CONTEXT", "flags", XRDMA_IOC_GET_CONTEXT, UT_FD_NOCTX,
	  F(struct xrdma_cmd_get_context, flags), BIT31 },
	{ "GET_CONTEXT", "reserved", XRDMA_IOC_GET_CONTEXT, UT_FD_NOCTX,
	  F(struct xrdma_cmd_get_context, reserved), 1 },
	{ "QUERY_DEVICE", "comp_mask bit 0", XRDMA_IOC_QUERY_DEVICE, UT_FD_CTX,
	  F(struct xrdma_cmd_query_device, comp_mask), 1 },
	{ "QUERY_DEVICE", "comp_mask bit 31", XRDMA_IOC_QUERY_DEVICE, UT_FD_CTX,
	  F(struct xrdma_cmd_query_device, comp_mask), BIT31 },
	{ "QUERY_DEVICE", "reserved", XRDMA_IOC_QUERY_DEVICE, UT_FD_CTX,
	  F(struct xrdma_cmd_query_device, reserved), 1 },
	{ "ALLOC_PD", "flags", XRDMA_IOC_ALLOC_PD, UT_FD_CTX,
	  F(struct xrdma_cmd_alloc_pd, flags), BIT31 },
	{ "REG_MR", "access bit 31", XRDMA_IOC_REG_MR, UT_FD_CTX,
	  F(struct xrdma_cmd_reg_mr, access), BIT31 | ACC_LW },
	{ "REG_MR", "reserved", XRDMA_IOC_REG_MR, UT_FD_CTX,
	  F(struct xrdma_cmd_reg_mr, reserved), 1 },
	{ "CREATE_CQ", "flags", XRDMA_IOC_CREATE_CQ, UT_FD_CTX,
	  F(struct xrdma_cmd_create_cq, flags), BIT31 },
	{ "CREATE_CQ", "reserved", XRDMA_IOC_CREATE_CQ, UT_FD_CTX,
	  F(struct xrdma_cmd_create_cq, reserved), 1 },
	{ "CREATE_QP", "flags", XRDMA_IOC_CREATE_QP, UT_FD_CTX,
	  F(struct xrdma_cmd_create_qp, flags), BIT31 },
	{ "CREATE_QP", "cap.reserved", XRDMA_IOC_CREATE_QP, UT_FD_CTX,
	  F(struct xrdma_cmd_create_qp, cap.reserved), 1 },
	{ "MODIFY_QP", "attr_mask bit 21", XRDMA_IOC_MODIFY_QP, UT_FD_CTX,
	  F(struct xrdma_cmd_modify_qp, attr_mask),
	  XRDMA_UVERBS_QP_STATE | 1U << 21 },
	{ "MODIFY_QP", "reserved", XRDMA_IOC_MODIFY_QP, UT_FD_CTX,
	  F(struct xrdma_cmd_modify_qp, reserved), 1 },
	{ "MODIFY_QP", "attr.cap.reserved", XRDMA_IOC_MODIFY_QP, UT_FD_CTX,
	  F(struct xrdma_cmd_modify_qp, attr.cap.reserved), 1 },
	{ "MODIFY_QP", "attr.ah_attr.reserved[1]", XRDMA_IOC_MODIFY_QP, UT_FD_CTX,
	  { offsetof(struct xrdma_cmd_modify_qp, attr.ah_attr.reserved) + 1, 1 },
	  1 },
	{ "MODIFY_QP", "attr.reserved[3]", XRDMA_IOC_MODIFY_QP, UT_FD_CTX,
	  { offsetof(struct xrdma_cmd_modify_qp, attr.reserved) + 3, 1 }, 1 },
	{ "QUERY_QP", "attr_mask bit 31", XRDMA_IOC_QUERY_QP, UT_FD_CTX,
	  F(struct xrdma_cmd_query_qp, attr_mask), BIT31 },
	{ "CREATE_SRQ", "reserved", XRDMA_IOC_CREATE_SRQ, UT_FD_CTX,
	  F(struct xrdma_cmd_create_srq, reserved), 1 },
	{ "MODIFY_SRQ", "attr_mask bit 31", XRDMA_IOC_MODIFY_SRQ, UT_FD_CTX,
	  F(struct xrdma_cmd_modify_srq, attr_mask),
	  XRDMA_UVERBS_SRQ_LIMIT | BIT31 },
	{ "CREATE_AH", "reserved", XRDMA_IOC_CREATE_AH, UT_FD_CTX,
	  F(struct xrdma_cmd_create_ah, reserved), 1 },
	{ "CREATE_AH", "attr.reserved[0]", XRDMA_IOC_CREATE_AH, UT_FD_CTX,
	  { offsetof(struct xrdma_cmd_create_ah, attr.reserved), 1 }, 1 },
	{ "CREATE_COMP_CHANNEL", "flags", XRDMA_IOC_CREATE_COMP_CHANNEL,
	  UT_FD_CTX, F(struct xrdma_cmd_fd, flags), BIT31 },
	{ "GET_ASYNC_FD", "flags", XRDMA_IOC_GET_ASYNC_FD, UT_FD_NEWCTX,
	  F(struct xrdma_cmd_fd, flags), BIT31 },
	{ "KICK", "flags", XRDMA_IOC_KICK, UT_FD_CTX,
	  F(struct xrdma_cmd_kick, flags), BIT31 },
};

static void set_field(union xt_cmd *u, const struct abi_row *r, uint32_t v)
{
	char *p = (char *)u + r->f.off;
	uint16_t v16 = (uint16_t)v;
	uint8_t v8 = (uint8_t)v;

	if (r->f.width == 4)
		memcpy(p, &v, 4);
	else if (r->f.width == 2)
		memcpy(p, &v16, 2);
	else
		memcpy(p, &v8, 1);
}

/* one call of row r's command, as prepared or with r->bad: 0 or -errno */
static int abi_call(struct ut_fix *e, const struct abi_row *r, bool bad)
{
	union xt_cmd u;
	int fd = ut_row_fd(e->c.fd, r->fd), ret;

	if (fd < 0)
		return -1000;
	memset(&u, 0, sizeof(u));
	ut_cmd_prep(e, fd, _IOC_NR(r->cmd), &u);
	if (bad)
		set_field(&u, r, r->bad);
	ret = xio(fd, r->cmd, &u);
	if (!ret)
		ut_cmd_undo(fd, _IOC_NR(r->cmd), &u);
	if (fd != e->c.fd)
		close(fd);
	return ret;
}

static void abi_convention(struct ut_fix *e)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		const struct abi_row *r = &rows[i];

		CHECK_RC(abi_call(e, r, false), 0, "%s, valid (control for %s)",
			 r->cmd_name, r->field);
		CHECK_RC(abi_call(e, r, true), -EINVAL, "%s with %s 0x%x",
			 r->cmd_name, r->field, r->bad);
	}
}

/* 0x08 was RESIZE_CQ (struct of 32 bytes): now an unknown command */
static void abi_reserved_numbers(struct ut_fix *e)
{
	char buf[64] = { 0 };
	unsigned int nr;
	int fd;

	CHECK_RC(xio(e->c.fd, IOC_SZ(0x08, 32), buf), -ENOTTY,
		 "0x08 (was RESIZE_CQ), its old size 32");
	CHECK_RC(xio(e->c.fd, IOC_SZ(0x08, 16), buf), -ENOTTY,
		 "0x08 (was RESIZE_CQ), size 16");
	fd = dev_open();
	if (CHECK(fd >= 0, "open without a context (%s)", errname(fd))) {
		CHECK_RC(xio(fd, IOC_SZ(0x08, 32), buf), -ENOTTY,
			 "0x08 before GET_CONTEXT");
		close(fd);
	}
	/* 0x1e and 0x1f became OPEN_XRCD and OPEN_QP: 0x20 is the first free */
	nr = 0x20;
	CHECK_RC(xio(e->c.fd, IOC_SZ(nr, 8), buf), -ENOTTY,
		 "a number no command has yet (0x%x)", nr);
}

void t_abi(void)
{
	struct ut_fix e;

	if (!ut_fix_open(&e))
		return;
	abi_convention(&e);
	abi_reserved_numbers(&e);
	ut_fix_close(&e);
}
