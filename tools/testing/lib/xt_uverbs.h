/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xt_uverbs: raw uverbs ioctls (uapi/xrdma/xrdma-abi.h) shared by the
 * test programs that use no verbs library (uverbs_test, xnic_utest,
 * raw_write, uverbs_fuzz).  Build with -I uapi.
 */
#ifndef XT_UVERBS_H
#define XT_UVERBS_H

#include <sys/ioctl.h>
#include <xrdma/xrdma-abi.h>
#include "xt.h"

/* ioctl: 0 or -errno */
static inline int xio(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) ? -errno : 0;
}

static inline uint64_t uptr(const void *p)
{
	return (uint64_t)(unsigned long)p;
}

/* the argument of any uverbs command */
union xt_cmd {
	struct xrdma_cmd_get_context gc;
	struct xrdma_cmd_query_device qd;
	struct xrdma_cmd_query_port qpo;
	struct xrdma_cmd_query_gid qg;
	struct xrdma_cmd_alloc_pd pd;
	struct xrdma_cmd_destroy d;
	struct xrdma_cmd_reg_mr mr;
	struct xrdma_cmd_create_cq cq;
	struct xrdma_cmd_create_qp qp;
	struct xrdma_cmd_modify_qp mqp;
	struct xrdma_cmd_query_qp qqp;
	struct xrdma_cmd_create_srq srq;
	struct xrdma_cmd_modify_srq msrq;
	struct xrdma_cmd_query_srq qsrq;
	struct xrdma_cmd_create_ah ah;
	struct xrdma_cmd_fd fd;
	struct xrdma_cmd_kick kick;
	char raw[8192];		/* room for a larger argument than any */
};

/* MODIFY_QP: 0 or -errno */
int xt_modify_qp(int fd, uint32_t qp, uint32_t mask,
		 const struct xrdma_uverbs_qp_attr *a);

/* an MR over anonymous memory of its own */
struct xt_umr {
	uint32_t h, lkey, rkey;
	uint8_t *buf;
};

/*
 * @len bytes of anonymous memory set to @fill, registered in @pd with
 * iova == addr: 0, or -errno with *step what failed ("mmap", "REG_MR")
 */
int xt_umr_new(int fd, uint32_t pd, size_t len, uint8_t fill,
	       uint32_t access, struct xt_umr *m, const char **step);

/* what xt_rc_connect() sets beyond the QP numbers */
struct xt_rc_path {
	const uint8_t *dgid;		/* 16 bytes */
	uint8_t mtu;
	uint32_t psn;			/* both directions */
	uint32_t access;		/* XRDMA_UVERBS_ACCESS_* */
	uint8_t max_rd_atomic, max_dest_rd_atomic;
};

/*
 * an RC (or UC) QP RESET -> INIT -> RTR -> RTS towards @dqpn: 0, or
 * -errno with *step the transition that failed ("RESET->INIT", ...)
 */
int xt_rc_connect(int fd, uint32_t qp, uint32_t dqpn,
		  const struct xt_rc_path *p, const char **step);

#endif
