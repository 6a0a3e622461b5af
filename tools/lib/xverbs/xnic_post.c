// SPDX-License-Identifier: GPL-2.0
/*
 * xnic provider: posting.  Posting writes the WQE into the mapped ring
 * (owner byte last), the producer index into the doorbell record and the
 * QP's bit into the context's doorbell page.  No system call, except the
 * KICK ioctl when the device's engine went to sleep (XNIC_DB_NEED_WAKEUP).
 *
 * Each WQE carries its own ring index as wr_id; the application's wr_id
 * is kept beside the ring, and a send CQE retires every earlier WQE of
 * its queue (unsignaled ones included), as the xnic reference says.
 * SRQ entries carry the application's wr_id: they complete on many QPs
 * (an XRC SRQ's on QPs of other processes), and are free again once the
 * device took them (struct xv_srq).  The WQE builders here are shared
 * with the ibv_qp_ex ops (xnic_qp_ex.c).
 */
#include <string.h>
#include <sys/ioctl.h>
#include "xnic.h"

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
void xv_ring_sq(struct xv_qp *qp)
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

int xv_fill_sges(struct xv_qp *qp, uint8_t *wqe,
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

int xv_fill_inline(struct xv_qp *qp, uint8_t *wqe, size_t n,
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

void xv_fill_ud(uint8_t *wqe, struct ibv_ah *ibah, uint32_t qpn,
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
bool xv_op_ok(enum ibv_qp_type type, uint8_t op)
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
void xv_fill_xrc(uint8_t *wqe, uint32_t remote_srqn)
{
	struct xnic_wqe_xrc *x = (void *)(wqe + XNIC_WQE_XRC_OFF);

	x->remote_srqn = htole32(remote_srqn);
}

/* the next WQE of the SQ, zeroed, its control segment begun */
uint8_t *xv_sq_begin(struct xv_qp *qp, uint8_t op,
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
int xv_fill_bind(uint8_t *wqe, struct ibv_mw *mw, uint32_t rkey,
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
void xv_sq_commit(struct xv_qp *qp, uint32_t idx)
{
	struct xnic_wqe_ctrl *ctrl = (void *)(xv_wqe_at(&qp->sq, idx) +
					      XNIC_WQE_CTRL_OFF);

	XV_STORE(&ctrl->owner, (uint8_t)((idx >> qp->sq.log) & 1));
}

int xv_qp_can_send(struct xv_qp *qp)
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
