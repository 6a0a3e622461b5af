// SPDX-License-Identifier: GPL-2.0
/*
 * xnic provider: completions.  Polling reads the CQEs of the mapped ring
 * by their owner bit and retires the WQEs they name (xnic_post.c): the
 * ibv_poll_cq and ibv_req_notify_cq ops, the ibv_cq_ex ops, and the
 * cleaning of a QP's CQEs when it is reset or destroyed.
 */
#include <string.h>
#include "xnic.h"

/* ------------------------------------------------------------ poll */

/* the valid CQE at ci, or NULL */
static inline struct xnic_cqe *xv_cqe_peek(struct xv_cq *cq)
{
	struct xnic_cqe *e = &cq->ring[cq->ci & ((1U << cq->log) - 1)];

	if (XV_LOAD(&e->owner) != (((cq->ci >> cq->log) & 1) ^ 1))
		return NULL;
	return e;
}

/*
 * A CQE of a QP not in the QPN table: a receive of an XRC SRQ, through an
 * XRC_RECV QP (never in the table: no queue of it completes here), when
 * XRC SRQs complete to this CQ; its wr_id is the SRQ WQE's.  Anything
 * else is the CQE of a QP this process no longer has (xv_cq_clean() sets
 * their qpn 0, which no QP has), dropped.
 */
static bool xv_cqe_xrc(struct xv_cq *cq, const struct xnic_cqe *e,
		       uint64_t *wr_id)
{
	if (!e->qpn || !(e->opcode & XNIC_CQE_OP_RECV) ||
	    !__atomic_load_n(&cq->xrc_srqs, __ATOMIC_SEQ_CST))
		return false;
	*wr_id = le64toh(e->wr_id);
	return true;
}

/*
 * Take the CQE at ci: copy it, retire its WQE(s), find its wr_id.
 * Returns false for a CQE of a QP this process no longer has.
 */
static bool xv_cqe_take(struct xv_cq *cq, const struct xnic_cqe *e,
			struct xnic_cqe *out, uint64_t *wr_id)
{
	struct ibv_context *ctx = cq->ex.context;
	uint32_t qpn, idx;
	struct xv_qp *qp;

	*out = *e;
	cq->ci++;
	qpn = le32toh(out->qpn);
	qp = cq->last_qp;
	if (!qp || qp->ex.qp_base.qp_num != qpn) {
		qp = xv_qp_lookup(to_xctx(ctx), qpn);
		if (!qp)
			return xv_cqe_xrc(cq, out, wr_id);
		cq->last_qp = qp;
	}
	idx = (uint32_t)le64toh(out->wr_id);
	if (out->opcode & XNIC_CQE_OP_RECV) {
		if (qp->ex.qp_base.srq) {
			*wr_id = le64toh(out->wr_id);
			return true;
		}
		*wr_id = qp->rq.wrid[idx & ((1U << qp->rq.log) - 1)];
		XV_STORE(&qp->rq.ci, idx + 1);
	} else {
		*wr_id = qp->sq.wrid[idx & ((1U << qp->sq.log) - 1)];
		XV_STORE(&qp->sq.ci, idx + 1);
	}
	return true;
}

static enum ibv_wc_status xv_status(uint8_t s)
{
	switch (s) {
	case XNIC_CQE_SUCCESS:
	case XNIC_CQE_LOC_LEN_ERR:
	case XNIC_CQE_LOC_QP_OP_ERR:
	case XNIC_CQE_LOC_PROT_ERR:
	case XNIC_CQE_WR_FLUSH_ERR:
	case XNIC_CQE_MW_BIND_ERR:
	case XNIC_CQE_BAD_RESP_ERR:
	case XNIC_CQE_LOC_ACCESS_ERR:
	case XNIC_CQE_REM_INV_REQ_ERR:
	case XNIC_CQE_REM_ACCESS_ERR:
	case XNIC_CQE_REM_OP_ERR:
	case XNIC_CQE_RETRY_EXC_ERR:
	case XNIC_CQE_RNR_RETRY_EXC_ERR:
	case XNIC_CQE_GENERAL_ERR:
		return (enum ibv_wc_status)s;	/* the same numbers */
	default:
		return IBV_WC_GENERAL_ERR;
	}
}

static enum ibv_wc_opcode xv_wc_opcode(uint8_t op)
{
	switch (op) {
	case XNIC_CQE_OP_SEND:
	case XNIC_CQE_OP_RDMA_WRITE:
	case XNIC_CQE_OP_RDMA_READ:
	case XNIC_CQE_OP_COMP_SWAP:
	case XNIC_CQE_OP_FETCH_ADD:
	case XNIC_CQE_OP_BIND_MW:
	case XNIC_CQE_OP_LOCAL_INV:
	case XNIC_CQE_OP_RECV:
	case XNIC_CQE_OP_RECV_RDMA_WITH_IMM:
	case XNIC_CQE_OP_ATOMIC_WRITE:
	case XNIC_CQE_OP_FLUSH:		/* XV_WC_FLUSH */
		return (enum ibv_wc_opcode)op;	/* the same numbers */
	default:
		return op & XNIC_CQE_OP_RECV ? IBV_WC_RECV : IBV_WC_SEND;
	}
}

static unsigned int xv_wc_flags(uint8_t f)
{
	unsigned int w = 0;

	if (f & XNIC_CQE_GRH)
		w |= IBV_WC_GRH;
	if (f & XNIC_CQE_WITH_IMM)
		w |= IBV_WC_WITH_IMM;
	else if (f & XNIC_CQE_WITH_INV)
		w |= IBV_WC_WITH_INV;
	return w;
}

/*
 * wc.sl: xnic's ports are RoCE, where no SL travels with a message.  A
 * UD receive says in it, as mlx5 does (bits 2:0 of its CQE's packet
 * type), which network header the 40 bytes before the payload hold:
 * 0 a GRH (RoCE v1), 1 an IPv6 header, 2 20 bytes and an IPv4 header
 * (RoCE v2).  Verbs have no other field for it, and UCX's ud_verbs looks
 * there for the destination address it checks; a 0 for IPv4 made it
 * drop every message (rxe reports 0: UCX_UD_ETH_DGID_CHECK=n there).
 */
static uint8_t xv_wc_sl(uint8_t f)
{
	if (!(f & XNIC_CQE_GRH))
		return 0;
	switch (f & XNIC_CQE_NET_MASK) {
	case XNIC_CQE_NET_IPV4:
		return 2;
	case XNIC_CQE_NET_IPV6:
		return 1;
	default:
		return 0;
	}
}

static void xv_cqe_to_wc(const struct xnic_cqe *e, uint64_t wr_id,
			 struct ibv_wc *wc)
{
	wc->wr_id = wr_id;
	wc->status = xv_status(e->status);
	wc->opcode = xv_wc_opcode(e->opcode);
	wc->vendor_err = wc->status == IBV_WC_GENERAL_ERR ? e->status : 0;
	wc->byte_len = le32toh(e->byte_len);
	wc->wc_flags = xv_wc_flags(e->flags);
	if (e->flags & XNIC_CQE_WITH_INV)
		wc->invalidated_rkey = le32toh(e->imm_data);
	else
		wc->imm_data = e->flags & XNIC_CQE_WITH_IMM ?
			       (__be32)e->imm_data : 0;
	wc->qp_num = le32toh(e->qpn);
	wc->src_qp = le32toh(e->src_qp) & 0xffffff;
	wc->pkey_index = 0;
	wc->slid = 0;
	wc->sl = xv_wc_sl(e->flags);
	wc->dlid_path_bits = 0;
}

int xv_poll_cq(struct ibv_cq *ibcq, int n, struct ibv_wc *wc)
{
	struct xv_cq *cq = to_xcq(ibcq);
	struct xnic_cqe *e, c;
	uint32_t start;
	uint64_t wr_id;
	int got = 0;

	pthread_spin_lock(&cq->lock);
	start = cq->ci;
	while (got < n && (e = xv_cqe_peek(cq))) {
		if (xv_cqe_take(cq, e, &c, &wr_id))
			xv_cqe_to_wc(&c, wr_id, &wc[got++]);
	}
	if (cq->ci != start)
		XV_STORE(&cq->dbrec->ci, htole32(cq->ci));
	pthread_spin_unlock(&cq->lock);
	return got;
}

/*
 * Drop the completions of a QP the device no longer serves (reset or
 * destroyed) from a CQ, as rdma-core's providers clean their CQs: a stale
 * CQE must neither retire a WQE of the QP's new life nor name a freed QP.
 * (An SRQ had its entries back when the device took them.)
 */
void xv_cq_clean(struct ibv_cq *ibcq, uint32_t qpn)
{
	struct xv_cq *cq = to_xcq(ibcq);
	uint32_t i, size = 1U << cq->log;

	pthread_spin_lock(&cq->lock);
	for (i = cq->ci; i - cq->ci < size; i++) {
		struct xnic_cqe *e = &cq->ring[i & (size - 1)];

		if (XV_LOAD(&e->owner) != (((i >> cq->log) & 1) ^ 1))
			break;
		if (le32toh(e->qpn) != qpn)
			continue;
		/* no QPN of the core is 0: xv_cqe_take() drops the CQE */
		e->qpn = htole32(0);
	}
	cq->last_qp = NULL;
	pthread_spin_unlock(&cq->lock);
}

int xv_req_notify_cq(struct ibv_cq *ibcq, int solicited)
{
	struct xv_cq *cq = to_xcq(ibcq);
	uint32_t arm;

	pthread_spin_lock(&cq->lock);
	cq->arm_sn = (cq->arm_sn + 1) & ((1U << 30) - 1);
	arm = cq->arm_sn << 2 |
	      (solicited ? XNIC_CQ_ARM_SOLICITED : XNIC_CQ_ARM_NEXT);
	XV_STORE(&cq->dbrec->arm, htole32(arm));
	/*
	 * The arm word before the caller's next look at the ring: the
	 * device writes a CQE, then (smp_mb) reads the arm word; without a
	 * full fence here the store could wait in the store buffer while
	 * the caller's poll reads an empty ring, the device reads the old
	 * arm word -- no completion seen, no event raised.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	pthread_spin_unlock(&cq->lock);
	return 0;
}

/* ------------------------------------------------------------ CQ ex */

static inline struct xv_cq *ex_cq(struct ibv_cq_ex *ex)
{
	return (struct xv_cq *)ex;
}

/* the next CQE of a live QP into cur, or ENOENT */
static int xv_cq_ex_next(struct xv_cq *cq)
{
	struct xnic_cqe *e;
	uint64_t wr_id;

	while ((e = xv_cqe_peek(cq))) {
		if (xv_cqe_take(cq, e, &cq->cur, &wr_id)) {
			cq->ex.wr_id = wr_id;
			cq->ex.status = xv_status(cq->cur.status);
			return 0;
		}
	}
	return ENOENT;
}

static int xv_start_poll(struct ibv_cq_ex *ex, struct ibv_poll_cq_attr *attr)
{
	struct xv_cq *cq = ex_cq(ex);
	int ret;

	if (attr->comp_mask)
		return EINVAL;
	pthread_spin_lock(&cq->lock);
	ret = xv_cq_ex_next(cq);
	if (ret) {
		XV_STORE(&cq->dbrec->ci, htole32(cq->ci));
		pthread_spin_unlock(&cq->lock);
	}
	return ret;
}

static int xv_next_poll(struct ibv_cq_ex *ex)
{
	return xv_cq_ex_next(ex_cq(ex));
}

static void xv_end_poll(struct ibv_cq_ex *ex)
{
	struct xv_cq *cq = ex_cq(ex);

	XV_STORE(&cq->dbrec->ci, htole32(cq->ci));
	pthread_spin_unlock(&cq->lock);
}

static enum ibv_wc_opcode xv_read_opcode(struct ibv_cq_ex *ex)
{
	return xv_wc_opcode(ex_cq(ex)->cur.opcode);
}

static uint32_t xv_read_vendor_err(struct ibv_cq_ex *ex)
{
	struct xv_cq *cq = ex_cq(ex);

	return xv_status(cq->cur.status) == IBV_WC_GENERAL_ERR ?
	       cq->cur.status : 0;
}

static uint32_t xv_read_byte_len(struct ibv_cq_ex *ex)
{
	return le32toh(ex_cq(ex)->cur.byte_len);
}

static __be32 xv_read_imm_data(struct ibv_cq_ex *ex)
{
	struct xv_cq *cq = ex_cq(ex);

	if (cq->cur.flags & XNIC_CQE_WITH_INV)
		return (__be32)le32toh(cq->cur.imm_data);
	return (__be32)cq->cur.imm_data;
}

static uint32_t xv_read_qp_num(struct ibv_cq_ex *ex)
{
	return le32toh(ex_cq(ex)->cur.qpn);
}

static uint32_t xv_read_src_qp(struct ibv_cq_ex *ex)
{
	return le32toh(ex_cq(ex)->cur.src_qp) & 0xffffff;
}

static unsigned int xv_read_wc_flags(struct ibv_cq_ex *ex)
{
	return xv_wc_flags(ex_cq(ex)->cur.flags);
}

static uint32_t xv_read_zero32(struct ibv_cq_ex *ex)
{
	(void)ex;
	return 0;
}

static uint8_t xv_read_zero8(struct ibv_cq_ex *ex)
{
	(void)ex;
	return 0;
}

static uint8_t xv_read_sl(struct ibv_cq_ex *ex)
{
	return xv_wc_sl(ex_cq(ex)->cur.flags);
}

static uint64_t xv_read_completion_ts(struct ibv_cq_ex *ex)
{
	return le32toh(ex_cq(ex)->cur.timestamp);
}

void xv_cq_ex_init(struct xv_cq *cq)
{
	struct ibv_cq_ex *ex = &cq->ex;

	ex->start_poll = xv_start_poll;
	ex->next_poll = xv_next_poll;
	ex->end_poll = xv_end_poll;
	ex->read_opcode = xv_read_opcode;
	ex->read_vendor_err = xv_read_vendor_err;
	ex->read_byte_len = xv_read_byte_len;
	ex->read_imm_data = xv_read_imm_data;
	ex->read_qp_num = xv_read_qp_num;
	ex->read_src_qp = xv_read_src_qp;
	ex->read_wc_flags = xv_read_wc_flags;
	ex->read_slid = xv_read_zero32;
	ex->read_sl = xv_read_sl;
	ex->read_dlid_path_bits = xv_read_zero8;
	ex->read_completion_ts = xv_read_completion_ts;
}
