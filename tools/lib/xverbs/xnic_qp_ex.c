// SPDX-License-Identifier: GPL-2.0
/*
 * xnic provider: the ibv_qp_ex ops (ibv_wr_start .. ibv_wr_complete), with
 * the WQE builders of xnic_post.c.
 */
#include <assert.h>
#include <string.h>
#include "xnic.h"

/* ------------------------------------------------------------ QP ex */

static inline struct xv_qp *ex_qp(struct ibv_qp_ex *ex)
{
	return (struct xv_qp *)ex;
}

static void xv_wr_start(struct ibv_qp_ex *ex)
{
	struct xv_qp *qp = ex_qp(ex);

	xv_lock(&qp->sq_lock, qp->td);
	qp->start_pi = qp->sq.pi;
	qp->cur = NULL;
	qp->wr_err = 0;
}

/* a new WQE for a builder; NULL (and wr_err) when it cannot be had */
static uint8_t *xv_wr_new(struct xv_qp *qp, uint8_t op)
{
	uint8_t *wqe;
	int ret;

	qp->cur = NULL;
	if (qp->wr_err)
		return NULL;
	ret = xv_qp_can_send(qp);
	if (ret) {
		qp->wr_err = ret;
		return NULL;
	}
	if (!xv_op_ok(qp->ex.qp_base.qp_type, op)) {
		qp->wr_err = EINVAL;
		return NULL;
	}
	wqe = xv_sq_begin(qp, op, qp->ex.wr_flags |
			  (qp->sig_all ? IBV_SEND_SIGNALED : 0),
			  qp->ex.wr_id);
	qp->sq.pi++;
	qp->cur = wqe;
	return wqe;
}

static void xv_wr_remote(struct xv_qp *qp, uint8_t op, uint32_t rkey,
			 uint64_t addr, uint32_t imm)
{
	uint8_t *wqe = xv_wr_new(qp, op);
	struct xnic_wqe_remote *rem;

	if (!wqe)
		return;
	rem = (void *)(wqe + XNIC_WQE_REMOTE_OFF);
	rem->remote_addr = htole64(addr);
	rem->rkey = htole32(rkey);
	((struct xnic_wqe_ctrl *)wqe)->imm_data = imm;
}

static void xv_wr_rdma_write(struct ibv_qp_ex *ex, uint32_t rkey,
			     uint64_t addr)
{
	xv_wr_remote(ex_qp(ex), XNIC_OP_RDMA_WRITE, rkey, addr, 0);
}

static void xv_wr_rdma_write_imm(struct ibv_qp_ex *ex, uint32_t rkey,
				 uint64_t addr, __be32 imm)
{
	xv_wr_remote(ex_qp(ex), XNIC_OP_RDMA_WRITE_WITH_IMM, rkey, addr,
		     (uint32_t)imm);
}

static void xv_wr_rdma_read(struct ibv_qp_ex *ex, uint32_t rkey,
			    uint64_t addr)
{
	xv_wr_remote(ex_qp(ex), XNIC_OP_RDMA_READ, rkey, addr, 0);
}

static void xv_wr_atomic(struct xv_qp *qp, uint8_t op, uint32_t rkey,
			 uint64_t addr, uint64_t cmp_add, uint64_t swap)
{
	struct xnic_wqe_atomic *at;

	xv_wr_remote(qp, op, rkey, addr, 0);
	if (!qp->cur)
		return;
	at = (void *)(qp->cur + XNIC_WQE_ATOMIC_OFF);
	at->compare_add = htole64(cmp_add);
	at->swap = htole64(swap);
}

static void xv_wr_atomic_cmp_swp(struct ibv_qp_ex *ex, uint32_t rkey,
				 uint64_t addr, uint64_t compare,
				 uint64_t swap)
{
	xv_wr_atomic(ex_qp(ex), XNIC_OP_ATOMIC_CMP_AND_SWP, rkey, addr,
		     compare, swap);
}

static void xv_wr_atomic_fetch_add(struct ibv_qp_ex *ex, uint32_t rkey,
				   uint64_t addr, uint64_t add)
{
	xv_wr_atomic(ex_qp(ex), XNIC_OP_ATOMIC_FETCH_AND_ADD, rkey, addr,
		     add, 0);
}

/* ibv_wr_atomic_write: the 8 bytes at @data, as inline payload */
static void xv_wr_atomic_write(struct ibv_qp_ex *ex, uint32_t rkey,
			       uint64_t addr, const void *data)
{
	struct xv_qp *qp = ex_qp(ex);
	const void *a[1] = { data };
	size_t l[1] = { 8 };
	int ret;

	xv_wr_remote(qp, XNIC_OP_ATOMIC_WRITE, rkey, addr, 0);
	if (!qp->cur)
		return;
	ret = data ? xv_fill_inline(qp, qp->cur, 1, a, l) : EINVAL;
	if (ret)
		qp->wr_err = ret;
}

/*
 * ibv_wr_flush (rdma-core 45+): a range of at most 4 GiB - 1 (the
 * device's 32 bits; the responder refuses more than 2 GiB), type
 * IBV_FLUSH_GLOBAL and/or IBV_FLUSH_PERSISTENT, level IBV_FLUSH_RANGE or
 * IBV_FLUSH_MR; anything else is EINVAL at wr_complete.
 */
static void xv_wr_flush(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t addr,
			size_t len, uint8_t type, uint8_t level)
{
	struct xv_qp *qp = ex_qp(ex);
	struct xnic_wqe_flush *f;

	xv_wr_remote(qp, XNIC_OP_FLUSH, rkey, addr, 0);
	if (!qp->cur)
		return;
	if (len > UINT32_MAX || !type ||
	    (type & ~(XNIC_FLUSH_GLOBAL | XNIC_FLUSH_PERSISTENT)) ||
	    level > XNIC_FLUSH_MR) {
		qp->wr_err = EINVAL;
		return;
	}
	f = (void *)(qp->cur + XNIC_WQE_FLUSH_OFF);
	f->length = htole32((uint32_t)len);
	f->type = type;
	f->level = level;
}

static void xv_wr_send(struct ibv_qp_ex *ex)
{
	xv_wr_new(ex_qp(ex), XNIC_OP_SEND);
}

static void xv_wr_send_imm(struct ibv_qp_ex *ex, __be32 imm)
{
	uint8_t *wqe = xv_wr_new(ex_qp(ex), XNIC_OP_SEND_WITH_IMM);

	if (wqe)
		((struct xnic_wqe_ctrl *)wqe)->imm_data = (uint32_t)imm;
}

static void xv_wr_send_inv(struct ibv_qp_ex *ex, uint32_t rkey)
{
	uint8_t *wqe = xv_wr_new(ex_qp(ex), XNIC_OP_SEND_WITH_INV);

	if (wqe)
		((struct xnic_wqe_ctrl *)wqe)->imm_data = htole32(rkey);
}

static void xv_wr_local_inv(struct ibv_qp_ex *ex, uint32_t rkey)
{
	uint8_t *wqe = xv_wr_new(ex_qp(ex), XNIC_OP_LOCAL_INV);

	if (wqe)
		((struct xnic_wqe_ctrl *)wqe)->imm_data = htole32(rkey);
}

static void xv_wr_bind_mw(struct ibv_qp_ex *ex, struct ibv_mw *mw,
			  uint32_t rkey, const struct ibv_mw_bind_info *info)
{
	struct xv_qp *qp = ex_qp(ex);
	uint8_t *wqe;
	int ret;

	if (!mw || mw->type != IBV_MW_TYPE_2) {
		if (!qp->wr_err)
			qp->wr_err = EINVAL;
		qp->cur = NULL;
		return;
	}
	wqe = xv_wr_new(qp, XNIC_OP_BIND_MW);
	if (!wqe)
		return;
	ret = xv_fill_bind(wqe, mw, rkey, info);
	if (ret)
		qp->wr_err = ret;
}

static void xv_wr_set_ud_addr(struct ibv_qp_ex *ex, struct ibv_ah *ah,
			      uint32_t qpn, uint32_t qkey)
{
	struct xv_qp *qp = ex_qp(ex);

	if (!qp->cur)
		return;
	/* where an XRC_SEND WQE has its SRQ number */
	if (!ah || qp->ex.qp_base.qp_type == IBV_QPT_XRC_SEND) {
		qp->wr_err = EINVAL;
		return;
	}
	xv_fill_ud(qp->cur, ah, qpn, qkey);
}

/* ibv_wr_set_xrc_srqn: EINVAL (at wr_complete) on another QP type */
static void xv_wr_set_xrc_srqn(struct ibv_qp_ex *ex, uint32_t remote_srqn)
{
	struct xv_qp *qp = ex_qp(ex);

	if (!qp->cur)
		return;
	if (qp->ex.qp_base.qp_type != IBV_QPT_XRC_SEND) {
		qp->wr_err = EINVAL;
		return;
	}
	xv_fill_xrc(qp->cur, remote_srqn);
}

static void xv_wr_set_sge_list(struct ibv_qp_ex *ex, size_t n,
			       const struct ibv_sge *sg)
{
	struct xv_qp *qp = ex_qp(ex);
	int ret;

	if (!qp->cur)
		return;
	ret = n > 255 ? EINVAL : xv_fill_sges(qp, qp->cur, sg, (int)n);
	if (ret)
		qp->wr_err = ret;
}

static void xv_wr_set_sge(struct ibv_qp_ex *ex, uint32_t lkey, uint64_t addr,
			  uint32_t length)
{
	struct ibv_sge sg = { .addr = addr, .length = length, .lkey = lkey };

	xv_wr_set_sge_list(ex, 1, &sg);
}

static void xv_wr_set_inline_data_list(struct ibv_qp_ex *ex, size_t n,
				       const struct ibv_data_buf *buf)
{
	struct xv_qp *qp = ex_qp(ex);
	const void *addr[32];
	size_t len[32], i;
	int ret;

	if (!qp->cur)
		return;
	if (n > 32) {
		qp->wr_err = EINVAL;
		return;
	}
	for (i = 0; i < n; i++) {
		addr[i] = buf[i].addr;
		len[i] = buf[i].length;
	}
	ret = xv_fill_inline(qp, qp->cur, n, addr, len);
	if (ret)
		qp->wr_err = ret;
}

static void xv_wr_set_inline_data(struct ibv_qp_ex *ex, void *addr,
				  size_t length)
{
	struct ibv_data_buf b = { .addr = addr, .length = length };

	xv_wr_set_inline_data_list(ex, 1, &b);
}

static void xv_wr_abort(struct ibv_qp_ex *ex)
{
	struct xv_qp *qp = ex_qp(ex);

	qp->sq.pi = qp->start_pi;
	qp->cur = NULL;
	xv_unlock(&qp->sq_lock, qp->td);
}

static int xv_wr_complete(struct ibv_qp_ex *ex)
{
	struct xv_qp *qp = ex_qp(ex);
	int ret = qp->wr_err;
	uint32_t i;

	if (ret) {
		xv_wr_abort(ex);
		return ret;
	}
	for (i = qp->start_pi; i != qp->sq.pi; i++)
		xv_sq_commit(qp, i);
	if (qp->sq.pi != qp->start_pi)
		xv_ring_sq(qp);
	qp->cur = NULL;
	xv_unlock(&qp->sq_lock, qp->td);
	return 0;
}

/*
 * The builders of what xnic cannot do: as mlx5's builders do for an
 * operation the QP cannot run (mqp->err = EOPNOTSUPP), the WR is not
 * built and ibv_wr_complete() returns EOPNOTSUPP, discarding the batch
 * (the rest of the batch is not posted either).  rdma-core's providers
 * leave such a slot NULL, which a program that calls it anyway jumps to;
 * ours is never NULL.
 */
static void xv_wr_unsupported(struct xv_qp *qp)
{
	qp->cur = NULL;
	if (!qp->wr_err)
		qp->wr_err = EOPNOTSUPP;
}

static void xv_wr_send_tso_unsupported(struct ibv_qp_ex *ex, void *hdr,
				       uint16_t hdr_sz, uint16_t mss)
{
	(void)hdr;
	(void)hdr_sz;
	(void)mss;
	xv_wr_unsupported(ex_qp(ex));
}

/* where rdma-core 56's struct ibv_qp_ex has its wr_flush */
static_assert(offsetof(struct xv_qp, ex) == 0 &&
	      offsetof(struct xv_qp, wr_flush) == sizeof(struct ibv_qp_ex),
	      "struct xv_qp: wr_flush right behind rdma-core 44's ibv_qp_ex");

void xv_qp_ex_init(struct xv_qp *qp, uint64_t ops)
{
	struct ibv_qp_ex *ex = &qp->ex;

	(void)ops;	/* every builder is set, see xv_wr_unsupported() */
	qp->is_ex = true;
	/* first what the device cannot do: an op set below replaces it */
	ex->wr_send_tso = xv_wr_send_tso_unsupported;
	ex->wr_atomic_cmp_swp = xv_wr_atomic_cmp_swp;
	ex->wr_atomic_fetch_add = xv_wr_atomic_fetch_add;
	ex->wr_atomic_write = xv_wr_atomic_write;
	qp->wr_flush = xv_wr_flush;
	ex->wr_bind_mw = xv_wr_bind_mw;
	ex->wr_local_inv = xv_wr_local_inv;
	ex->wr_rdma_read = xv_wr_rdma_read;
	ex->wr_rdma_write = xv_wr_rdma_write;
	ex->wr_rdma_write_imm = xv_wr_rdma_write_imm;
	ex->wr_send = xv_wr_send;
	ex->wr_send_imm = xv_wr_send_imm;
	ex->wr_send_inv = xv_wr_send_inv;
	ex->wr_set_ud_addr = xv_wr_set_ud_addr;
	ex->wr_set_xrc_srqn = xv_wr_set_xrc_srqn;
	ex->wr_set_inline_data = xv_wr_set_inline_data;
	ex->wr_set_inline_data_list = xv_wr_set_inline_data_list;
	ex->wr_set_sge = xv_wr_set_sge;
	ex->wr_set_sge_list = xv_wr_set_sge_list;
	ex->wr_start = xv_wr_start;
	ex->wr_complete = xv_wr_complete;
	ex->wr_abort = xv_wr_abort;
}
