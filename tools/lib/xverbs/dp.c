// SPDX-License-Identifier: GPL-2.0
/*
 * xverbs: the data path.  Posting writes the WQE into the mapped ring
 * (owner byte last), the producer index into the doorbell record and the
 * QP's bit into the context's doorbell page; polling reads CQEs by their
 * owner bit.  No system call, except the KICK ioctl when the device's
 * engine went to sleep (XNIC_DB_NEED_WAKEUP).
 *
 * Each WQE carries its own ring index as wr_id; the application's wr_id
 * is kept beside the ring, and a send CQE retires every earlier WQE of
 * its queue (unsignaled ones included), as the xnic reference says.
 * SRQ entries carry the application's wr_id: they complete on many QPs
 * (an XRC SRQ's on QPs of other processes), and are free again once the
 * device took them (struct xv_srq).
 */
#include <assert.h>
#include <string.h>
#include <sys/ioctl.h>
#include "xverbs.h"

#define XV_LOAD(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define XV_STORE(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)

static const uint8_t xv_opcode[] = {
	[IBV_WR_RDMA_WRITE] = XNIC_OP_RDMA_WRITE,
	[IBV_WR_RDMA_WRITE_WITH_IMM] = XNIC_OP_RDMA_WRITE_WITH_IMM,
	[IBV_WR_SEND] = XNIC_OP_SEND,
	[IBV_WR_SEND_WITH_IMM] = XNIC_OP_SEND_WITH_IMM,
	[IBV_WR_RDMA_READ] = XNIC_OP_RDMA_READ,
	[IBV_WR_ATOMIC_CMP_AND_SWP] = XNIC_OP_ATOMIC_CMP_AND_SWP,
	[IBV_WR_ATOMIC_FETCH_AND_ADD] = XNIC_OP_ATOMIC_FETCH_AND_ADD,
	[IBV_WR_LOCAL_INV] = XNIC_OP_LOCAL_INV,
	[IBV_WR_BIND_MW] = XNIC_OP_BIND_MW,
	[IBV_WR_SEND_WITH_INV] = XNIC_OP_SEND_WITH_INV,
	/* IBV_WR_FLUSH: no ibv_send_wr member carries it, ibv_wr_flush does */
	[IBV_WR_ATOMIC_WRITE] = XNIC_OP_ATOMIC_WRITE,
};

static inline uint8_t *xv_wqe_at(struct xv_wq *wq, uint32_t idx)
{
	return wq->buf + ((size_t)(idx & ((1U << wq->log) - 1)) << wq->shift);
}

static inline uint32_t xv_wq_used(struct xv_wq *wq)
{
	return wq->pi - XV_LOAD(&wq->ci);
}

/* zero a WQE but its owner byte, which still says "not yours" */
static void xv_wqe_zero(uint8_t *wqe, size_t size, size_t owner)
{
	memset(wqe, 0, owner);
	memset(wqe + owner + 1, 0, size - owner - 1);
}

static void xv_kick(struct ibv_context *ctx, uint32_t qp_handle)
{
	struct xrdma_cmd_kick k = { .qp_handle = qp_handle };

	/* a failed kick leaves the work queued for the next one */
	(void)ioctl(ctx->cmd_fd, XRDMA_IOC_KICK, &k);
}

/* publish sq.pi: doorbell record, then the doorbell page bits */
static void xv_ring_sq(struct xv_qp *qp)
{
	struct xv_context *xctx = to_xctx(qp->ex.qp_base.context);
	struct xnic_db_page *db = xctx->db;
	uint32_t slot = qp->db_slot;

	XV_STORE(&qp->dbrec->sq_pi, htole32(qp->sq.pi));
	__atomic_fetch_or(&db->group[slot / 64],
			  htole64(1ULL << (slot % 64)), __ATOMIC_RELEASE);
	__atomic_fetch_or(&db->summary[slot / 4096],
			  htole64(1ULL << ((slot / 64) % 64)),
			  __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (le32toh(XV_LOAD(&db->flags)) & XNIC_DB_NEED_WAKEUP)
		xv_kick(&xctx->vctx.context, qp->ex.qp_base.handle);
}

/* ------------------------------------------------------------ send */

static int xv_fill_sges(struct xv_qp *qp, uint8_t *wqe,
			const struct ibv_sge *sg, int n)
{
	struct xnic_wqe_ctrl *ctrl = (void *)(wqe + XNIC_WQE_CTRL_OFF);
	struct xnic_sge *s = (void *)(wqe + XNIC_WQE_DATA_OFF);
	int i;

	if (n < 0 || (uint32_t)n > qp->sq.max_sge)
		return EINVAL;
	for (i = 0; i < n; i++) {
		s[i].addr = htole64(sg[i].addr);
		s[i].length = htole32(sg[i].length);
		s[i].lkey = htole32(sg[i].lkey);
	}
	ctrl->num_sge = (uint8_t)n;
	return 0;
}

static int xv_fill_inline(struct xv_qp *qp, uint8_t *wqe, size_t n,
			  const void *const *addr, const size_t *len)
{
	struct xnic_wqe_ctrl *ctrl = (void *)(wqe + XNIC_WQE_CTRL_OFF);
	uint8_t *dst = wqe + XNIC_WQE_DATA_OFF;
	size_t i, total = 0;

	for (i = 0; i < n; i++) {
		if (len[i] > qp->max_inline - total)
			return EINVAL;
		memcpy(dst + total, addr[i], len[i]);
		total += len[i];
	}
	ctrl->flags |= XNIC_WQE_INLINE;
	ctrl->num_sge = 0;
	ctrl->inline_len = htole32((uint32_t)total);
	return 0;
}

static int xv_fill_inline_sg(struct xv_qp *qp, uint8_t *wqe,
			     const struct ibv_sge *sg, int n)
{
	const void *addr[32];
	size_t len[32];
	int i;

	if (n < 0 || n > 32)
		return EINVAL;
	for (i = 0; i < n; i++) {
		addr[i] = (const void *)(uintptr_t)sg[i].addr;
		len[i] = sg[i].length;
	}
	return xv_fill_inline(qp, wqe, (size_t)n, addr, len);
}

static void xv_fill_ud(uint8_t *wqe, struct ibv_ah *ibah, uint32_t qpn,
		       uint32_t qkey)
{
	struct xnic_wqe_ud *ud = (void *)(wqe + XNIC_WQE_UD_OFF);
	struct xv_ah *ah = xv_container_of(ibah, struct xv_ah, ibah);

	ud->dest_qpn = htole32(qpn);
	ud->qkey = htole32(qkey);
	memcpy(ud->dgid, ah->dgid, 16);
	ud->port_num = ah->port_num;
	ud->sgid_index = ah->sgid_index;
	ud->hop_limit = ah->hop_limit;
	ud->traffic_class = ah->traffic_class;
}

/*
 * The opcodes a QP type's WQEs may carry, beyond what the device checks:
 * UD sends only; XRC_SEND what reaches an XRC SRQ's PD -- no window, no
 * invalidation (Documentation/userspace.rst, "XRC")
 */
static bool xv_op_ok(enum ibv_qp_type type, uint8_t op)
{
	switch (type) {
	case IBV_QPT_UD:
		return op == XNIC_OP_SEND || op == XNIC_OP_SEND_WITH_IMM;
	case IBV_QPT_XRC_SEND:
		switch (op) {
		case XNIC_OP_SEND:
		case XNIC_OP_SEND_WITH_IMM:
		case XNIC_OP_RDMA_WRITE:
		case XNIC_OP_RDMA_WRITE_WITH_IMM:
		case XNIC_OP_RDMA_READ:
		case XNIC_OP_ATOMIC_CMP_AND_SWP:
		case XNIC_OP_ATOMIC_FETCH_AND_ADD:
		case XNIC_OP_ATOMIC_WRITE:
		case XNIC_OP_FLUSH:
			return true;
		default:
			return false;
		}
	default:
		return true;
	}
}

/* an XRC_SEND WQE's target: the XRC SRQ of the peer's domain */
static void xv_fill_xrc(uint8_t *wqe, uint32_t remote_srqn)
{
	struct xnic_wqe_xrc *x = (void *)(wqe + XNIC_WQE_XRC_OFF);

	x->remote_srqn = htole32(remote_srqn);
}

/* the next WQE of the SQ, zeroed, its control segment begun */
static uint8_t *xv_sq_begin(struct xv_qp *qp, uint8_t op,
			    unsigned int send_flags, uint64_t wr_id)
{
	uint8_t *wqe = xv_wqe_at(&qp->sq, qp->sq.pi);
	struct xnic_wqe_ctrl *ctrl = (void *)(wqe + XNIC_WQE_CTRL_OFF);

	xv_wqe_zero(wqe, (size_t)1 << qp->sq.shift,
		    offsetof(struct xnic_wqe_ctrl, owner));
	ctrl->opcode = op;
	if (send_flags & IBV_SEND_SIGNALED)
		ctrl->flags |= XNIC_WQE_SIGNALED;
	if (send_flags & IBV_SEND_SOLICITED)
		ctrl->flags |= XNIC_WQE_SOLICITED;
	if (send_flags & IBV_SEND_FENCE)
		ctrl->flags |= XNIC_WQE_FENCE;
	ctrl->wr_id = htole64(qp->sq.pi);
	qp->sq.wrid[qp->sq.pi & ((1U << qp->sq.log) - 1)] = wr_id;
	return wqe;
}

/*
 * The bind segment of a BIND_MW WQE.  What the library cannot express is
 * EINVAL (no MR with a length, rights other than remote ones and zero
 * based); everything else -- the window's and the MR's PD, the MR's
 * MW_BIND access and range, a type 2 window already bound -- the device
 * checks (IBV_WC_MW_BIND_ERR), as on mlx5.
 */
static int xv_fill_bind(uint8_t *wqe, struct ibv_mw *mw, uint32_t rkey,
			const struct ibv_mw_bind_info *info)
{
	const unsigned int rights = IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC;
	/*
	 * A window is reached only through its rkey, remotely: LOCAL_WRITE
	 * means nothing for it and is accepted and ignored, as rxe (which
	 * keeps it unused) and mlx5 (whose hardware has no local use of a
	 * window's key) do; rdma-core's MW tests bind with it.
	 */
	const unsigned int ignored = IBV_ACCESS_LOCAL_WRITE;
	struct xnic_wqe_bind *b = (void *)(wqe + XNIC_WQE_BIND_OFF);

	if (!mw || !info || (!info->mr && info->length) ||
	    (info->mw_access_flags &
	     ~(rights | ignored | IBV_ACCESS_ZERO_BASED)) ||
	    (rkey >> 8) != (mw->rkey >> 8))
		return EINVAL;
	b->addr = htole64(info->addr);
	b->length = htole64(info->length);
	b->mr_key = htole32(info->mr && info->length ? info->mr->lkey : 0);
	b->mw_key = htole32(rkey);
	b->access = htole32(info->mw_access_flags & rights);
	if (info->mw_access_flags & IBV_ACCESS_ZERO_BASED)
		b->flags = XNIC_BIND_F_ZERO_BASED;
	return 0;
}

/* hand the WQE at @idx to the device: its owner byte, last */
static void xv_sq_commit(struct xv_qp *qp, uint32_t idx)
{
	struct xnic_wqe_ctrl *ctrl = (void *)(xv_wqe_at(&qp->sq, idx) +
					      XNIC_WQE_CTRL_OFF);

	XV_STORE(&ctrl->owner, (uint8_t)((idx >> qp->sq.log) & 1));
}

static int xv_qp_can_send(struct xv_qp *qp)
{
	if (!qp->sq.buf)		/* XRC_RECV: no send queue */
		return EINVAL;
	switch (qp->ex.qp_base.state) {
	case IBV_QPS_RESET:
	case IBV_QPS_INIT:
	case IBV_QPS_RTR:
		return EINVAL;
	default:
		break;
	}
	if (xv_wq_used(&qp->sq) >= qp->sq.max_wr)
		return ENOMEM;
	return 0;
}

static int xv_build_send(struct xv_qp *qp, struct ibv_send_wr *wr)
{
	enum ibv_qp_type type = qp->ex.qp_base.qp_type;
	struct xnic_wqe_remote *rem;
	struct xnic_wqe_atomic *at;
	struct xnic_wqe_ctrl *ctrl;
	uint8_t *wqe, op;
	int ret;

	if ((unsigned int)wr->opcode >= sizeof(xv_opcode) ||
	    (wr->opcode != IBV_WR_RDMA_WRITE && !xv_opcode[wr->opcode]) ||
	    xv_opcode[wr->opcode] == 0xff)
		return EINVAL;
	op = xv_opcode[wr->opcode];
	if (!xv_op_ok(type, op))
		return EINVAL;
	/* type 1 windows are bound by ibv_bind_mw only */
	if (op == XNIC_OP_BIND_MW &&
	    (!wr->bind_mw.mw || wr->bind_mw.mw->type != IBV_MW_TYPE_2))
		return EINVAL;
	if (type == IBV_QPT_UD && !wr->wr.ud.ah)
		return EINVAL;
	wqe = xv_sq_begin(qp, op, wr->send_flags |
			  (qp->sig_all ? IBV_SEND_SIGNALED : 0), wr->wr_id);
	ctrl = (void *)(wqe + XNIC_WQE_CTRL_OFF);
	rem = (void *)(wqe + XNIC_WQE_REMOTE_OFF);
	at = (void *)(wqe + XNIC_WQE_ATOMIC_OFF);
	switch (op) {
	case XNIC_OP_RDMA_WRITE_WITH_IMM:
		ctrl->imm_data = (uint32_t)wr->imm_data;	/* as is */
		fallthrough;
	case XNIC_OP_RDMA_WRITE:
	case XNIC_OP_RDMA_READ:
	case XNIC_OP_ATOMIC_WRITE:	/* 8 bytes of payload: SGEs, inline */
		rem->remote_addr = htole64(wr->wr.rdma.remote_addr);
		rem->rkey = htole32(wr->wr.rdma.rkey);
		break;
	case XNIC_OP_ATOMIC_CMP_AND_SWP:
	case XNIC_OP_ATOMIC_FETCH_AND_ADD:
		rem->remote_addr = htole64(wr->wr.atomic.remote_addr);
		rem->rkey = htole32(wr->wr.atomic.rkey);
		at->compare_add = htole64(wr->wr.atomic.compare_add);
		at->swap = htole64(wr->wr.atomic.swap);
		break;
	case XNIC_OP_SEND_WITH_IMM:
		ctrl->imm_data = (uint32_t)wr->imm_data;
		break;
	case XNIC_OP_LOCAL_INV:
	case XNIC_OP_SEND_WITH_INV:
		ctrl->imm_data = htole32(wr->invalidate_rkey);
		break;
	default:
		break;
	}
	if (type == IBV_QPT_UD)
		xv_fill_ud(wqe, wr->wr.ud.ah, wr->wr.ud.remote_qpn,
			   wr->wr.ud.remote_qkey);
	else if (type == IBV_QPT_XRC_SEND)
		xv_fill_xrc(wqe, wr->qp_type.xrc.remote_srqn);
	if (op == XNIC_OP_LOCAL_INV)
		ret = 0;
	else if (op == XNIC_OP_BIND_MW)
		ret = xv_fill_bind(wqe, wr->bind_mw.mw, wr->bind_mw.rkey,
				   &wr->bind_mw.bind_info);
	else if ((wr->send_flags & IBV_SEND_INLINE) &&
		 op != XNIC_OP_RDMA_READ && op != XNIC_OP_ATOMIC_CMP_AND_SWP &&
		 op != XNIC_OP_ATOMIC_FETCH_AND_ADD)
		ret = xv_fill_inline_sg(qp, wqe, wr->sg_list, wr->num_sge);
	else
		ret = xv_fill_sges(qp, wqe, wr->sg_list, wr->num_sge);
	return ret;
}

int xv_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		 struct ibv_send_wr **bad)
{
	struct xv_qp *qp = to_xqp(ibqp);
	uint32_t start;
	int ret = 0;

	xv_lock(&qp->sq_lock, qp->td);
	start = qp->sq.pi;
	for (; wr; wr = wr->next) {
		ret = xv_qp_can_send(qp);
		if (!ret)
			ret = xv_build_send(qp, wr);
		if (ret) {
			*bad = wr;
			break;
		}
		xv_sq_commit(qp, qp->sq.pi);
		qp->sq.pi++;
	}
	if (qp->sq.pi != start)
		xv_ring_sq(qp);
	xv_unlock(&qp->sq_lock, qp->td);
	return ret;
}

/* ibv_bind_mw (mw.c): a type 1 window's BIND_MW on @ibqp */
int xv_post_bind(struct ibv_qp *ibqp, struct ibv_mw *mw, uint32_t rkey,
		 const struct ibv_mw_bind_info *info, uint64_t wr_id,
		 unsigned int send_flags)
{
	struct xv_qp *qp = to_xqp(ibqp);
	uint8_t *wqe;
	int ret;

	if (ibqp->qp_type != IBV_QPT_RC && ibqp->qp_type != IBV_QPT_UC)
		return EINVAL;
	pthread_spin_lock(&qp->sq_lock);
	ret = xv_qp_can_send(qp);
	if (!ret) {
		wqe = xv_sq_begin(qp, XNIC_OP_BIND_MW, send_flags |
				  (qp->sig_all ? IBV_SEND_SIGNALED : 0), wr_id);
		ret = xv_fill_bind(wqe, mw, rkey, info);
	}
	if (!ret) {
		xv_sq_commit(qp, qp->sq.pi);
		qp->sq.pi++;
		xv_ring_sq(qp);
	}
	pthread_spin_unlock(&qp->sq_lock);
	return ret;
}

/* ------------------------------------------------------------ receive */

static int xv_post_rwqe(struct xv_wq *wq, struct ibv_recv_wr *wr,
			uint64_t tag)
{
	uint8_t *wqe = xv_wqe_at(wq, wq->pi);
	struct xnic_rwqe *h = (void *)wqe;
	struct xnic_sge *s = (void *)(wqe + sizeof(*h));
	int i;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > wq->max_sge)
		return EINVAL;
	xv_wqe_zero(wqe, (size_t)1 << wq->shift,
		    offsetof(struct xnic_rwqe, owner));
	h->wr_id = htole64(tag);
	h->num_sge = (uint8_t)wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		s[i].addr = htole64(wr->sg_list[i].addr);
		s[i].length = htole32(wr->sg_list[i].length);
		s[i].lkey = htole32(wr->sg_list[i].lkey);
	}
	XV_STORE(&h->owner, (uint8_t)((wq->pi >> wq->log) & 1));
	wq->pi++;
	return 0;
}

int xv_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		 struct ibv_recv_wr **bad)
{
	struct xv_qp *qp = to_xqp(ibqp);
	uint32_t start;
	int ret = 0;

	/* an SRQ's QP, and XRC QPs, have no receive queue */
	if (!qp->rq.buf) {
		*bad = wr;
		return EINVAL;
	}
	xv_lock(&qp->rq_lock, qp->td);
	start = qp->rq.pi;
	for (; wr; wr = wr->next) {
		if (ibqp->state == IBV_QPS_RESET)
			ret = EINVAL;
		else if (xv_wq_used(&qp->rq) >= qp->rq.max_wr)
			ret = ENOMEM;
		else
			ret = xv_post_rwqe(&qp->rq, wr, qp->rq.pi);
		if (ret) {
			*bad = wr;
			break;
		}
		qp->rq.wrid[(qp->rq.pi - 1) & ((1U << qp->rq.log) - 1)] =
			wr->wr_id;
	}
	if (qp->rq.pi != start)
		XV_STORE(&qp->dbrec->rq_pi, htole32(qp->rq.pi));
	xv_unlock(&qp->rq_lock, qp->td);
	return ret;
}

/* the SRQ's entries the device has taken (struct xv_srq) */
static uint32_t xv_srq_taken(struct xv_srq *srq)
{
	return le32toh(XV_LOAD(&srq->dbrec->sq_pi));
}

int xv_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad)
{
	struct xv_srq *srq = to_xsrq(ibsrq);
	uint32_t start;
	int ret = 0;

	xv_lock(&srq->lock, srq->td);
	start = srq->rq.pi;
	for (; wr; wr = wr->next) {
		if (srq->rq.pi - xv_srq_taken(srq) >= srq->rq.max_wr)
			ret = ENOMEM;
		else
			ret = xv_post_rwqe(&srq->rq, wr, wr->wr_id);
		if (ret) {
			*bad = wr;
			break;
		}
	}
	if (srq->rq.pi != start)
		XV_STORE(&srq->dbrec->rq_pi, htole32(srq->rq.pi));
	xv_unlock(&srq->lock, srq->td);
	return ret;
}

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
