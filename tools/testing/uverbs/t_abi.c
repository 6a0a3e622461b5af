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

struct abi_env {
	struct ctx c;
	uint32_t pd, srq;
	struct cq cq;
	struct qp qp;
	void *mrbuf;
	struct xrdma_testdev_ucontext_resp ctx_resp;
};

union abi_cmd {
	struct xrdma_cmd_get_context gc;
	struct xrdma_cmd_query_device qd;
	struct xrdma_cmd_alloc_pd pd;
	struct xrdma_cmd_reg_mr mr;
	struct xrdma_cmd_create_cq cq;
	struct xrdma_cmd_create_qp qp;
	struct xrdma_cmd_modify_qp mqp;
	struct xrdma_cmd_query_qp qqp;
	struct xrdma_cmd_create_srq srq;
	struct xrdma_cmd_modify_srq msrq;
	struct xrdma_cmd_create_ah ah;
	struct xrdma_cmd_fd fd;
	struct xrdma_cmd_kick kick;
};

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
	void (*prep)(struct abi_env *e, union abi_cmd *u);
	void (*undo)(int fd, union abi_cmd *u);
};

static void p_gc(struct abi_env *e, union abi_cmd *u)
{
	u->gc.udata.out = (uintptr_t)&e->ctx_resp;
	u->gc.udata.out_len = sizeof(e->ctx_resp);
}

static void p_none(struct abi_env *e, union abi_cmd *u)
{
	(void)e;
	(void)u;
}

static void p_mr(struct abi_env *e, union abi_cmd *u)
{
	u->mr.pd_handle = e->pd;
	u->mr.access = ACC_LW;
	u->mr.addr = (uintptr_t)e->mrbuf;
	u->mr.iova = (uintptr_t)e->mrbuf;
	u->mr.length = ut_pagesz;
}

static void p_cq(struct abi_env *e, union abi_cmd *u)
{
	(void)e;
	u->cq.cqe = 4;
	u->cq.channel_fd = -1;
}

static void p_qp(struct abi_env *e, union abi_cmd *u)
{
	u->qp.pd_handle = e->pd;
	u->qp.send_cq_handle = e->cq.h;
	u->qp.recv_cq_handle = e->cq.h;
	u->qp.qp_type = XRDMA_UVERBS_QPT_RC;
	u->qp.cap.max_send_wr = 1;
	u->qp.cap.max_recv_wr = 1;
	u->qp.cap.max_send_sge = 1;
	u->qp.cap.max_recv_sge = 1;
}

/* to RESET: valid from RESET */
static void p_mqp(struct abi_env *e, union abi_cmd *u)
{
	u->mqp.qp_handle = e->qp.h;
	u->mqp.attr_mask = XRDMA_UVERBS_QP_STATE;
	u->mqp.attr.qp_state = XRDMA_UVERBS_QPS_RESET;
}

static void p_qqp(struct abi_env *e, union abi_cmd *u)
{
	u->qqp.qp_handle = e->qp.h;
}

static void p_srq(struct abi_env *e, union abi_cmd *u)
{
	u->srq.pd_handle = e->pd;
	u->srq.max_wr = 4;
	u->srq.max_sge = 1;
}

static void p_msrq(struct abi_env *e, union abi_cmd *u)
{
	u->msrq.srq_handle = e->srq;
	u->msrq.attr_mask = XRDMA_UVERBS_SRQ_LIMIT;
	u->msrq.srq_limit = 1;
}

static void p_ah(struct abi_env *e, union abi_cmd *u)
{
	u->ah.pd_handle = e->pd;
	ah_attr_default(&u->ah.attr);
}

static void p_kick(struct abi_env *e, union abi_cmd *u)
{
	u->kick.qp_handle = e->qp.h;
}

static void u_pd(int fd, union abi_cmd *u)
{
	destroy(fd, XRDMA_OBJ_PD, u->pd.pd_handle);
}

static void u_mr(int fd, union abi_cmd *u)
{
	destroy(fd, XRDMA_OBJ_MR, u->mr.mr_handle);
}

static void u_cq(int fd, union abi_cmd *u)
{
	destroy(fd, XRDMA_OBJ_CQ, u->cq.cq_handle);
}

static void u_qp(int fd, union abi_cmd *u)
{
	destroy(fd, XRDMA_OBJ_QP, u->qp.qp_handle);
}

static void u_srq(int fd, union abi_cmd *u)
{
	destroy(fd, XRDMA_OBJ_SRQ, u->srq.srq_handle);
}

static void u_ah(int fd, union abi_cmd *u)
{
	destroy(fd, XRDMA_OBJ_AH, u->ah.ah_handle);
}

static void u_fd(int fd, union abi_cmd *u)
{
	(void)fd;
	close(u->fd.fd);
}

/* a __u32 field (flags, comp_mask, masks and reserved words all are) */
#define F(type, member)	{ offsetof(type, member), 4 }
#define BIT31		0x80000000U

static const struct abi_row rows[] = {
	{ "GET_CONTEXT", "flags", XRDMA_IOC_GET_CONTEXT, UT_FD_NOCTX,
	  F(struct xrdma_cmd_get_context, flags), BIT31, p_gc, NULL },
	{ "GET_CONTEXT", "reserved", XRDMA_IOC_GET_CONTEXT, UT_FD_NOCTX,
	  F(struct xrdma_cmd_get_context, reserved), 1, p_gc, NULL },
	{ "QUERY_DEVICE", "comp_mask bit 0", XRDMA_IOC_QUERY_DEVICE, UT_FD_CTX,
	  F(struct xrdma_cmd_query_device, comp_mask), 1, p_none, NULL },
	{ "QUERY_DEVICE", "comp_mask bit 31", XRDMA_IOC_QUERY_DEVICE, UT_FD_CTX,
	  F(struct xrdma_cmd_query_device, comp_mask), BIT31, p_none, NULL },
	{ "QUERY_DEVICE", "reserved", XRDMA_IOC_QUERY_DEVICE, UT_FD_CTX,
	  F(struct xrdma_cmd_query_device, reserved), 1, p_none, NULL },
	{ "ALLOC_PD", "flags", XRDMA_IOC_ALLOC_PD, UT_FD_CTX,
	  F(struct xrdma_cmd_alloc_pd, flags), BIT31, p_none, u_pd },
	{ "REG_MR", "access bit 31", XRDMA_IOC_REG_MR, UT_FD_CTX,
	  F(struct xrdma_cmd_reg_mr, access), BIT31 | ACC_LW, p_mr, u_mr },
	{ "REG_MR", "reserved", XRDMA_IOC_REG_MR, UT_FD_CTX,
	  F(struct xrdma_cmd_reg_mr, reserved), 1, p_mr, u_mr },
	{ "CREATE_CQ", "flags", XRDMA_IOC_CREATE_CQ, UT_FD_CTX,
	  F(struct xrdma_cmd_create_cq, flags), BIT31, p_cq, u_cq },
	{ "CREATE_CQ", "reserved", XRDMA_IOC_CREATE_CQ, UT_FD_CTX,
	  F(struct xrdma_cmd_create_cq, reserved), 1, p_cq, u_cq },
	{ "CREATE_QP", "flags", XRDMA_IOC_CREATE_QP, UT_FD_CTX,
	  F(struct xrdma_cmd_create_qp, flags), BIT31, p_qp, u_qp },
	{ "CREATE_QP", "cap.reserved", XRDMA_IOC_CREATE_QP, UT_FD_CTX,
	  F(struct xrdma_cmd_create_qp, cap.reserved), 1, p_qp, u_qp },
	{ "MODIFY_QP", "attr_mask bit 21", XRDMA_IOC_MODIFY_QP, UT_FD_CTX,
	  F(struct xrdma_cmd_modify_qp, attr_mask),
	  XRDMA_UVERBS_QP_STATE | 1U << 21, p_mqp, NULL },
	{ "MODIFY_QP", "reserved", XRDMA_IOC_MODIFY_QP, UT_FD_CTX,
	  F(struct xrdma_cmd_modify_qp, reserved), 1, p_mqp, NULL },
	{ "MODIFY_QP", "attr.cap.reserved", XRDMA_IOC_MODIFY_QP, UT_FD_CTX,
	  F(struct xrdma_cmd_modify_qp, attr.cap.reserved), 1, p_mqp, NULL },
	{ "MODIFY_QP", "attr.ah_attr.reserved[1]", XRDMA_IOC_MODIFY_QP, UT_FD_CTX,
	  { offsetof(struct xrdma_cmd_modify_qp, attr.ah_attr.reserved) + 1, 1 },
	  1, p_mqp, NULL },
	{ "MODIFY_QP", "attr.reserved[3]", XRDMA_IOC_MODIFY_QP, UT_FD_CTX,
	  { offsetof(struct xrdma_cmd_modify_qp, attr.reserved) + 3, 1 }, 1,
	  p_mqp, NULL },
	{ "QUERY_QP", "attr_mask bit 31", XRDMA_IOC_QUERY_QP, UT_FD_CTX,
	  F(struct xrdma_cmd_query_qp, attr_mask), BIT31, p_qqp, NULL },
	{ "CREATE_SRQ", "reserved", XRDMA_IOC_CREATE_SRQ, UT_FD_CTX,
	  F(struct xrdma_cmd_create_srq, reserved), 1, p_srq, u_srq },
	{ "MODIFY_SRQ", "attr_mask bit 31", XRDMA_IOC_MODIFY_SRQ, UT_FD_CTX,
	  F(struct xrdma_cmd_modify_srq, attr_mask),
	  XRDMA_UVERBS_SRQ_LIMIT | BIT31, p_msrq, NULL },
	{ "CREATE_AH", "reserved", XRDMA_IOC_CREATE_AH, UT_FD_CTX,
	  F(struct xrdma_cmd_create_ah, reserved), 1, p_ah, u_ah },
	{ "CREATE_AH", "attr.reserved[0]", XRDMA_IOC_CREATE_AH, UT_FD_CTX,
	  { offsetof(struct xrdma_cmd_create_ah, attr.reserved), 1 }, 1,
	  p_ah, u_ah },
	{ "CREATE_COMP_CHANNEL", "flags", XRDMA_IOC_CREATE_COMP_CHANNEL,
	  UT_FD_CTX, F(struct xrdma_cmd_fd, flags), BIT31, p_none, u_fd },
	{ "GET_ASYNC_FD", "flags", XRDMA_IOC_GET_ASYNC_FD, UT_FD_NEWCTX,
	  F(struct xrdma_cmd_fd, flags), BIT31, p_none, u_fd },
	{ "KICK", "flags", XRDMA_IOC_KICK, UT_FD_CTX,
	  F(struct xrdma_cmd_kick, flags), BIT31, p_kick, NULL },
};

static void set_field(union abi_cmd *u, const struct abi_row *r, uint32_t v)
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
static int abi_call(struct abi_env *e, const struct abi_row *r, bool bad)
{
	union abi_cmd u;
	int fd = ut_row_fd(e->c.fd, r->fd), ret;

	if (fd < 0)
		return -1000;
	memset(&u, 0, sizeof(u));
	r->prep(e, &u);
	if (bad)
		set_field(&u, r, r->bad);
	ret = xio(fd, r->cmd, &u);
	if (!ret && r->undo)
		r->undo(fd, &u);
	if (fd != e->c.fd)
		close(fd);
	return ret;
}

static void abi_convention(struct abi_env *e)
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
static void abi_reserved_numbers(struct abi_env *e)
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
	nr = _IOC_NR(XRDMA_IOC_KICK) + 1;
	CHECK_RC(xio(e->c.fd, IOC_SZ(nr, 8), buf), -ENOTTY,
		 "the number after the last command (0x%x)", nr);
}

void t_abi(void)
{
	struct abi_env e;

	memset(&e, 0, sizeof(e));
	if (!CHECK_RC(ctx_open(&e.c), 0, "context"))
		return;
	e.mrbuf = map_pages(1, PROT_READ | PROT_WRITE);
	if (!e.mrbuf || alloc_pd(e.c.fd, &e.pd) ||
	    create_cq(e.c.fd, 4, -1, 0, &e.cq) ||
	    create_srq(e.c.fd, e.pd, 4, 1, 0, 0, &e.srq) ||
	    create_qp(e.c.fd, e.pd, e.cq.h, e.cq.h, 0, XRDMA_UVERBS_QPT_RC, 0,
		      &e.qp)) {
		ut_fail("setup", "PD, CQ, SRQ, QP");
		ctx_close(&e.c);
		return;
	}
	abi_convention(&e);
	abi_reserved_numbers(&e);
	CHECK_EQ(res_total(), 4, "only the fixture's 4 objects remain");
	destroy(e.c.fd, XRDMA_OBJ_QP, e.qp.h);
	destroy(e.c.fd, XRDMA_OBJ_SRQ, e.srq);
	destroy(e.c.fd, XRDMA_OBJ_CQ, e.cq.h);
	destroy(e.c.fd, XRDMA_OBJ_PD, e.pd);
	ctx_close(&e.c);
}
