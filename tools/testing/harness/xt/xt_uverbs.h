/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xt_uverbs: raw uverbs ioctls (uapi/xrdma/xrdma-abi.h) shared by the
 * test programs that use no verbs library (uverbs_test, xnic_utest,
 * xnic_raw, uverbs_fuzz), and xnic's queue formats (uapi/xrdma/xnic-abi.h).
 * Build with -I uapi.
 */
#ifndef XT_UVERBS_H
#define XT_UVERBS_H

#include <endian.h>
#include <string.h>
#include <sys/ioctl.h>
#include <xrdma/xrdma-abi.h>
#include <xrdma/xnic-abi.h>
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

/* driver data: its response into @resp, @len bytes */
static inline void xt_udata_out(struct xrdma_udata_desc *u, void *resp,
				size_t len)
{
	u->out = uptr(resp);
	u->out_len = len;
}

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

/* ------------------------------------------------------------ xnic queues */

/* an RDMA WRITE of @len bytes from @src (@lkey) to @dst (@rkey) */
struct xt_write {
	uint64_t wr_id, src, dst;
	uint32_t lkey, rkey, len;
};

/*
 * a signaled RDMA WRITE in the xnic send WQE @wqe of @size bytes: every
 * byte but the owner, which still says "not valid" (the caller stores it
 * last); its control segment
 */
static inline struct xnic_wqe_ctrl *xt_wqe_write(uint8_t *wqe, size_t size,
						 const struct xt_write *wr)
{
	struct xnic_wqe_ctrl *ctrl = (void *)(wqe + XNIC_WQE_CTRL_OFF);
	struct xnic_wqe_remote *rem = (void *)(wqe + XNIC_WQE_REMOTE_OFF);
	struct xnic_sge *sge = (void *)(wqe + XNIC_WQE_DATA_OFF);
	size_t own = XNIC_WQE_CTRL_OFF + offsetof(struct xnic_wqe_ctrl, owner);

	memset(wqe, 0, own);
	memset(wqe + own + 1, 0, size - own - 1);
	ctrl->opcode = XNIC_OP_RDMA_WRITE;
	ctrl->flags = XNIC_WQE_SIGNALED;
	ctrl->num_sge = 1;
	ctrl->wr_id = htole64(wr->wr_id);
	rem->remote_addr = htole64(wr->dst);
	rem->rkey = htole32(wr->rkey);
	sge->addr = htole64(wr->src);
	sge->length = htole32(wr->len);
	sge->lkey = htole32(wr->lkey);
	return ctrl;
}

/* the NEED_WAKEUP flag of the doorbell page @db, after a full fence */
static inline int xt_need_wakeup(struct xnic_db_page *db)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return !!(le32toh(__atomic_load_n(&db->flags, __ATOMIC_ACQUIRE)) &
		  XNIC_DB_NEED_WAKEUP);
}

/*
 * ring the doorbell of slot @slot in the page @db: the slot's group bit,
 * then the group's summary bit; NEED_WAKEUP, read afterwards
 */
static inline int xt_db_ring(struct xnic_db_page *db, uint32_t slot)
{
	__atomic_fetch_or(&db->group[(slot / 64) % XNIC_DB_GROUP_WORDS],
			  htole64(1ull << (slot % 64)), __ATOMIC_RELEASE);
	__atomic_fetch_or(&db->summary[(slot / 4096) % XNIC_DB_SUMMARY_WORDS],
			  htole64(1ull << ((slot / 64) % 64)), __ATOMIC_RELEASE);
	return xt_need_wakeup(db);
}

#endif
