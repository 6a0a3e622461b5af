// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_sim: the transport, requester side.  The requester's engine
 * executes each send WQE (fetched and decoded by xnic_sim_wqe.c)
 * directly against the responder's queues and memory (the "wire" is
 * shared kernel memory and lossless): RC, UC, UD and XRC_INI, every
 * opcode.  The responder's side of an operation is in xnic_sim_resp.c,
 * the requester's completion, retries and RNR waits in xnic_sim_comp.c;
 * this file drives both.
 *
 * Order of checks of a remote operation: the requester's own SGEs (local
 * errors complete the WQE before anything reaches the wire), the
 * responder QP (missing or not receiving: retries, then RETRY_EXC_ERR),
 * for RC and UC the connection (a responder drops a request from any QP
 * but its connected peer, and RC one out of sequence, as if the packets
 * never came: the requester retries, then RETRY_EXC_ERR),
 * for XRC_INI the XRC SRQ the request names (xnic_sim_xrc_srq()),
 * for READ and atomics the responder's resources and the alignment, the
 * remote key and rights, a receive WQE (none: RNR), the receive
 * buffers (ATOMIC WRITE and FLUSH: xnic_sim_pmem_rkey()'s order, rxe's);
 * data moves only once everything passed, so a failed operation writes
 * nothing (except a receive buffer with a bad key after its
 * predecessors, as on real hardware the responder then is in ERR).
 */
#include <linux/string.h>
#include "xnic_sim.h"

/*
 * Advance the PSNs of both ends by the packets of a message.  An RC
 * request got here only with the expected PSN (xnic_sim_rc_peer()); a UC
 * responder takes the first packet of a message with any PSN and
 * continues from it (a UC gap loses only the message in progress, and
 * the model's messages are whole), so a UC gap is counted and
 * resynchronised.  UD has no sequence.
 */
static void xnic_sim_psn(struct xnic_sim_qp *qp, struct xnic_sim_qp *rqp,
			 u64 len)
{
	u32 mtu = xnic_sim_mtu_bytes(qp->mtu);
	u32 n = len ? (u32)div_u64(len + mtu - 1, mtu) : 1;
	u32 rq_psn = READ_ONCE(rqp->rq_psn);

	if (xnic_sim_qpt_ud(qp->type)) {
		/* no sequence: both just count packets */
		WRITE_ONCE(rqp->rq_psn, (rq_psn + n) & 0xffffff);
		qp->sq_psn = (qp->sq_psn + n) & 0xffffff;
		return;
	}
	if (rq_psn != qp->sq_psn)
		xnic_sim_count(qp->dev, XNIC_SIM_CTR_psn_mismatch, 1);
	qp->sq_psn = (qp->sq_psn + n) & 0xffffff;
	WRITE_ONCE(rqp->rq_psn, qp->sq_psn);
}

/*
 * The responder of an RC, UC or XRC request, once the requester's side
 * passed: the connected peer (xnic_sim_rc_peer(); none answers, the
 * requester retries) and, for an XRC_INI requester, the XRC SRQ the
 * request names (xnic_sim_xrc_srq()).  Return: the responder QP, or NULL
 * with *@r the request's result (and @status set).
 */
static struct xnic_sim_qp *xnic_sim_responder(struct xnic_sim_dev *dev,
					      struct xnic_sim_qp *qp,
					      u8 *status, int *r)
{
	struct xnic_sim_qp *rqp = xnic_sim_rc_peer(qp);

	if (!rqp) {
		*r = xnic_sim_no_answer(qp, status);
		return NULL;
	}
	if (xnic_sim_faults_on() && xnic_sim_fault_req(dev, qp, rqp, status, r))
		return NULL;
	if (!xnic_sim_xrc_srq(dev, qp, rqp, status)) {
		*r = XNIC_SIM_DONE;
		return NULL;
	}
	return rqp;
}

/*
 * The responder's checks of an ATOMIC WRITE or FLUSH of @len bytes
 * (xnic_sim_pmem_rkey(); @type and @level: a FLUSH's).  A refused
 * request is answered: a bad key as any remote access error
 * (xnic_sim_rem_access()), anything else as an invalid request (the
 * responder goes to ERR).  Return: whether the access goes on, with @mr
 * and @maddr set; otherwise the request is done, with @status.
 */
static bool xnic_sim_pmem_resp(struct xnic_sim_dev *dev,
			       struct xnic_sim_qp *qp, struct xnic_sim_qp *rqp,
			       u64 len, u8 type, u8 level,
			       const struct xnic_sim_mr **mr, u64 *maddr,
			       u8 *status)
{
	const struct xnic_sim_swqe *w = &dev->scr->w;
	u8 st;

	st = xnic_sim_pmem_rkey(rqp, xnic_sim_resp_pdn(dev, rqp), w->opcode,
				w->rkey, w->remote_addr, len, type, level, mr,
				maddr);
	if (st == XNIC_CQE_REM_ACCESS_ERR) {
		xnic_sim_rem_access(qp, rqp, status);
		return false;
	}
	if (st) {
		xnic_sim_qp_set_err(rqp, XNIC_EQE_QP_REQ_ERR);
		*status = st;
		return false;
	}
	return true;
}

/*
 * The requester's SGEs (or inline data) as segments from @first on,
 * checked for @need rights.  Return: 0 or a CQE status.
 */
u8 xnic_sim_local_segs(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
		       u32 need, u32 first, u32 *nseg, u64 *len)
{
	struct xnic_sim_scratch *s = dev->scr;
	const struct xnic_sim_swqe *w = &s->w;
	u32 i, n = first;
	u64 total = 0;

	if (w->flags & XNIC_WQE_INLINE) {
		if (need & XNIC_ACCESS_LOCAL_WRITE)
			return XNIC_CQE_LOC_QP_OP_ERR;
		if (w->inline_len) {
			s->lseg[n].mr = NULL;
			s->lseg[n].kaddr = (void *)w->inline_data;
			s->lseg[n].len = w->inline_len;
			n++;
		}
		total = w->inline_len;
	} else {
		for (i = 0; i < w->num_sge; i++) {
			u64 addr = le64_to_cpu(w->sge[i].addr);
			u32 l = le32_to_cpu(w->sge[i].length);
			u32 key = le32_to_cpu(w->sge[i].lkey);
			const struct xnic_sim_mr *mr;

			if (!l)
				continue;
			mr = xnic_sim_tbl_get(&dev->mrs, key >> 8);
			if (xnic_sim_mr_check(mr, key, qp->pdn, addr, l, need,
					      false))
				return XNIC_CQE_LOC_PROT_ERR;
			s->lseg[n].mr = mr;
			s->lseg[n].addr = addr;
			s->lseg[n].len = l;
			n++;
			total += l;
		}
	}
	if (total > XNIC_SIM_MAX_MSG)
		return XNIC_CQE_LOC_LEN_ERR;
	*nseg = n;
	*len = total;
	return 0;
}

/*
 * The Q_Key a UD request carries: the work request's, or the sending
 * QP's own when the work request's has its high-order bit set (verbs: a
 * Q_Key with that bit set is a controlled one, which a work request
 * cannot name; the QP's, set by MODIFY_QP, is used instead).  UD is
 * connectionless: the responder checks the Q_Key only.
 */
u32 xnic_sim_ud_qkey(const struct xnic_sim_qp *qp, u32 wr_qkey)
{
	return wr_qkey & BIT(31) ? READ_ONCE(qp->qkey) : wr_qkey;
}

/*
 * A SEND's @len bytes (@nl local segments) into the receive WQE taken:
 * its buffers (xnic_sim_recv_segs()), long enough, the copy.  A failure
 * completes the receive WQE in error and the responder goes to ERR.
 * Return: 0, or the NAK an RC requester gets for it.
 */
static u8 xnic_sim_recv_copy(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
			     struct xnic_sim_qp *rqp, u32 nl, u64 len)
{
	struct xnic_sim_scratch *s = dev->scr;
	u64 rlen;
	u32 nr;
	u8 st;

	st = xnic_sim_recv_segs(dev, rqp, &nr, &rlen);
	if (st) {
		xnic_sim_recv_cqe(dev, qp, rqp, st, XNIC_CQE_OP_RECV, 0, 0);
		xnic_sim_qp_set_err(rqp, 0);
		return XNIC_CQE_REM_OP_ERR;
	}
	if (rlen < len) {
		xnic_sim_recv_cqe(dev, qp, rqp, XNIC_CQE_LOC_LEN_ERR,
				  XNIC_CQE_OP_RECV, 0, 0);
		xnic_sim_qp_set_err(rqp, XNIC_EQE_QP_REQ_ERR);
		return XNIC_CQE_REM_INV_REQ_ERR;
	}
	if (xnic_sim_copy(s->rseg, nr, s->lseg, nl, len,
			  xnic_sim_may_sleep(dev))) {
		xnic_sim_recv_cqe(dev, qp, rqp, XNIC_CQE_LOC_PROT_ERR,
				  XNIC_CQE_OP_RECV, 0, 0);
		xnic_sim_qp_set_err(rqp, 0);
		return XNIC_CQE_REM_OP_ERR;
	}
	return 0;
}

/* A SEND of @len bytes received: its completion and the counts. */
static void xnic_sim_recv_done(struct xnic_sim_dev *dev,
			       struct xnic_sim_qp *qp, struct xnic_sim_qp *rqp,
			       u8 flags, u64 len)
{
	xnic_sim_recv_cqe(dev, qp, rqp, 0, XNIC_CQE_OP_RECV, flags, len);
	atomic64_inc(&rqp->rx_ops);
	atomic64_add(len, &rqp->rx_bytes);
	xnic_sim_count(rqp->dev, XNIC_SIM_CTR_rx_send, 1);
	xnic_sim_count(rqp->dev, XNIC_SIM_CTR_rx_send_bytes, len);
}

/*
 * One copy of a UD message to @rqp, a QP of @rdev: @nl local segments
 * of @len bytes from segment 1 on (segment 0 is the network header in
 * scratch).  UD is unreliable: a QP that cannot take it (not UD, not
 * receiving, another Q_Key, no receive posted) drops it, counted; a bad
 * receive WQE or buffer fails the receiving QP only.  Return: whether
 * the copy was delivered.
 */
static bool xnic_sim_ud_copy(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
			     struct xnic_sim_dev *rdev, struct xnic_sim_qp *rqp,
			     u32 nl, u64 len, u8 flags)
{
	struct xnic_sim_scratch *s = dev->scr;
	u64 need = len + XNIC_SIM_GRH_LEN;
	u8 unused;
	int r;

	if (!xnic_sim_qpt_ud(rqp->type)) {
		xnic_sim_count(dev, XNIC_SIM_CTR_ud_drop_noqp, 1);
		return false;
	}
	/* lost: a port without a link, or a drop rule */
	if (xnic_sim_faults_on() && xnic_sim_fault_ud(dev, qp, rdev, rqp))
		return false;
	spin_lock(&rqp->lock);
	if (!xnic_sim_qp_can_recv(rqp->state)) {
		spin_unlock(&rqp->lock);
		xnic_sim_count(dev, XNIC_SIM_CTR_ud_drop_noqp, 1);
		return false;
	}
	if (READ_ONCE(rqp->qkey) != xnic_sim_ud_qkey(qp, s->w.qkey)) {
		spin_unlock(&rqp->lock);
		xnic_sim_count(dev, XNIC_SIM_CTR_ud_drop_qkey, 1);
		return false;
	}
	r = xnic_sim_rq_take(dev, rqp);
	spin_unlock(&rqp->lock);
	if (!r) {
		xnic_sim_count(dev, XNIC_SIM_CTR_ud_drop_norecv, 1);
		return false;
	}
	xnic_sim_psn(qp, rqp, len);
	if (r < 0) {
		xnic_sim_bad_rwqe(dev, qp, rqp, &unused);
		return false;
	}
	if (xnic_sim_recv_copy(dev, qp, rqp, nl, need))
		return false;
	xnic_sim_recv_done(dev, qp, rqp, flags, need);
	return true;
}

/*
 * A UD SEND or SEND_WITH_IMM of @len bytes in @nl local segments (from
 * segment 1 on), from source GID @sgid of type @stype: to one QP, or to
 * a multicast group (dest_qpn XNIC_MCAST_QPN and a multicast GID): one
 * copy to every QP attached to the group on every port the sender
 * reaches, its own and the cabled one (the sender's QP too, if
 * attached).  The sender's work request succeeds either way.
 */
static int xnic_sim_ud_send(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
			    u32 nl, u64 len, const u8 *sgid, u8 stype)
{
	struct xnic_sim_scratch *s = dev->scr;
	const struct xnic_sim_swqe *w = &s->w;
	struct xnic_sim_dev *rdev[2] = { dev, dev->peer };
	u32 qpn[XNIC_MCG_MAX_QP], sq_psn, mtu, n, i, j, found = 0;
	struct xnic_sim_qp *rqp;
	u8 flags;

	flags = XNIC_CQE_GRH |
		xnic_sim_net_hdr(s->grh, sgid, stype, w->dgid, len,
				 w->hop_limit, w->tclass);
	if (w->opcode == XNIC_OP_SEND_WITH_IMM)
		flags |= XNIC_CQE_WITH_IMM;
	s->lseg[0].mr = NULL;
	s->lseg[0].kaddr = s->grh;
	s->lseg[0].len = XNIC_SIM_GRH_LEN;

	if (w->dest_qpn != XNIC_MCAST_QPN) {
		rdev[0] = xnic_sim_gid_dev(dev, w->dgid);
		if (!rdev[0] && xnic_sim_wire_on(dev))
			return xnic_sim_wreq_ud_send(dev, qp, nl, len, sgid,
						     stype);
		rqp = rdev[0] ? xnic_sim_tbl_get(&rdev[0]->qps, w->dest_qpn) :
				NULL;
		if (!rqp) {
			xnic_sim_count(dev, XNIC_SIM_CTR_ud_drop_noqp, 1);
			return XNIC_SIM_DONE;
		}
		xnic_sim_ud_copy(dev, qp, rdev[0], rqp, nl, len, flags);
		return XNIC_SIM_DONE;
	}

	xnic_sim_count(dev, XNIC_SIM_CTR_tx_mcast, 1);
	if (!xnic_sim_gid_mcast(w->dgid)) {
		xnic_sim_count(dev, XNIC_SIM_CTR_ud_drop_nomcg, 1);
		return XNIC_SIM_DONE;
	}
	/* the message's packets once, whatever the number of copies */
	sq_psn = qp->sq_psn;
	for (i = 0; i < ARRAY_SIZE(rdev) && rdev[i]; i++) {
		n = xnic_sim_mcg_members(rdev[i], w->dgid, qpn);
		found += n;
		for (j = 0; j < n; j++) {
			rqp = xnic_sim_tbl_get(&rdev[i]->qps, qpn[j]);
			if (!rqp)
				continue;
			qp->sq_psn = sq_psn;
			if (xnic_sim_ud_copy(dev, qp, rdev[i], rqp, nl, len,
					     flags))
				xnic_sim_count(rdev[i], XNIC_SIM_CTR_rx_mcast, 1);
		}
	}
	if (!found)
		xnic_sim_count(dev, XNIC_SIM_CTR_ud_drop_nomcg, 1);
	mtu = xnic_sim_mtu_bytes(qp->mtu);
	n = len ? (u32)div_u64(len + mtu - 1, mtu) : 1;
	qp->sq_psn = (sq_psn + n) & 0xffffff;
	return XNIC_SIM_DONE;
}

/* SEND, SEND_WITH_IMM, SEND_WITH_INV (RC, UC, UD). */
static int xnic_sim_do_send(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
			    u8 *status, u32 *byte_len)
{
	struct xnic_sim_scratch *s = dev->scr;
	const struct xnic_sim_swqe *w = &s->w;
	bool ud = xnic_sim_qpt_ud(qp->type);
	bool inv = w->opcode == XNIC_OP_SEND_WITH_INV;
	struct xnic_sim_mr *imr = NULL;
	struct xnic_sim_dev *rdev;
	struct xnic_sim_qp *rqp;
	u32 nl, ikey = 0;
	u64 len;
	u8 st, flags = 0, stype = 0;
	u8 sgid[16];
	int r;

	/* UD: the source GID must be a valid entry of the port's table */
	if (ud && !xnic_sim_sgid(dev, w->sgid_index, sgid, &stype)) {
		*status = XNIC_CQE_LOC_QP_OP_ERR;
		return XNIC_SIM_DONE;
	}
	st = xnic_sim_local_segs(dev, qp, 0, ud, &nl, &len);
	if (st || (ud && len > XNIC_SIM_UD_MTU)) {
		*status = st ? st : XNIC_CQE_LOC_LEN_ERR;
		return XNIC_SIM_DONE;
	}
	*byte_len = len;
	if (ud)
		return xnic_sim_ud_send(dev, qp, nl, len, sgid, stype);
	rqp = xnic_sim_responder(dev, qp, status, &r);
	if (!rqp)
		return r;
	rdev = rqp->dev;

	spin_lock(&rqp->lock);
	if (!xnic_sim_qp_can_recv(rqp->state)) {
		spin_unlock(&rqp->lock);
		return xnic_sim_no_answer(qp, status);
	}
	if (inv) {
		ikey = le32_to_cpu(w->imm);
		imr = xnic_sim_tbl_get(&rdev->mrs, ikey >> 8);
		if (!imr || READ_ONCE(imr->key) != ikey ||
		    imr->pdn != xnic_sim_resp_pdn(dev, rqp) ||
		    (imr->mw_type ? !xnic_sim_mw_remote_inv_ok(imr, rqp) :
		     !(imr->flags & XNIC_MR_F_FREG))) {
			spin_unlock(&rqp->lock);
			return xnic_sim_rem_access(qp, rqp, status);
		}
	}
	r = xnic_sim_rq_take(dev, rqp);
	spin_unlock(&rqp->lock);
	if (!r)
		return xnic_sim_rnr(qp, rqp, status);
	xnic_sim_psn(qp, rqp, len);
	if (r < 0)
		return xnic_sim_bad_rwqe(dev, qp, rqp, status);

	st = xnic_sim_recv_copy(dev, qp, rqp, nl, len);
	if (st) {
		if (xnic_sim_qpt_rc(qp->type))
			*status = st;
		return XNIC_SIM_DONE;
	}
	if (inv) {
		/* a window: another invalidation may have come first */
		if (imr->mw_type)
			xnic_sim_mw_invalidate(rdev, imr, false);
		else
			WRITE_ONCE(imr->valid, false);
		flags |= XNIC_CQE_WITH_INV;
	}
	if (w->opcode == XNIC_OP_SEND_WITH_IMM)
		flags |= XNIC_CQE_WITH_IMM;
	xnic_sim_recv_done(dev, qp, rqp, flags, len);
	return XNIC_SIM_DONE;
}

/* RDMA_WRITE, RDMA_WRITE_WITH_IMM (RC, UC). */
static int xnic_sim_do_write(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
			     u8 *status, u32 *byte_len)
{
	struct xnic_sim_scratch *s = dev->scr;
	const struct xnic_sim_swqe *w = &s->w;
	bool imm = w->opcode == XNIC_OP_RDMA_WRITE_WITH_IMM;
	const struct xnic_sim_mr *mr = NULL;
	struct xnic_sim_qp *rqp;
	u64 len, maddr = 0;
	u32 nl;
	u8 st;
	int r;

	st = xnic_sim_local_segs(dev, qp, 0, 0, &nl, &len);
	if (st) {
		*status = st;
		return XNIC_SIM_DONE;
	}
	*byte_len = len;
	rqp = xnic_sim_responder(dev, qp, status, &r);
	if (!rqp)
		return r;
	if (len) {
		mr = xnic_sim_rkey(rqp, xnic_sim_resp_pdn(dev, rqp), w->rkey,
				   w->remote_addr, len, XNIC_ACCESS_REMOTE_WRITE,
				   &maddr);
		if (!mr)
			return xnic_sim_rem_access(qp, rqp, status);
	}
	if (imm) {
		spin_lock(&rqp->lock);
		if (!xnic_sim_qp_can_recv(rqp->state)) {
			spin_unlock(&rqp->lock);
			return xnic_sim_no_answer(qp, status);
		}
		r = xnic_sim_rq_take(dev, rqp);
		spin_unlock(&rqp->lock);
		if (!r)
			return xnic_sim_rnr(qp, rqp, status);
		if (r < 0) {
			xnic_sim_psn(qp, rqp, len);
			return xnic_sim_bad_rwqe(dev, qp, rqp, status);
		}
	}
	xnic_sim_psn(qp, rqp, len);
	if (len) {
		s->rseg[0].mr = mr;
		s->rseg[0].addr = maddr;
		s->rseg[0].len = len;
		if (xnic_sim_copy(s->rseg, 1, s->lseg, nl, len,
				  xnic_sim_may_sleep(dev))) {
			*status = XNIC_CQE_LOC_PROT_ERR;
			return XNIC_SIM_DONE;
		}
	}
	if (imm)
		xnic_sim_recv_cqe(dev, qp, rqp, 0,
				  XNIC_CQE_OP_RECV_RDMA_WITH_IMM,
				  XNIC_CQE_WITH_IMM, len);
	atomic64_inc(&rqp->rx_ops);
	atomic64_add(len, &rqp->rx_bytes);
	xnic_sim_count(rqp->dev, XNIC_SIM_CTR_rx_write, 1);
	xnic_sim_count(rqp->dev, XNIC_SIM_CTR_rx_write_bytes, len);
	return XNIC_SIM_DONE;
}

/*
 * RDMA READ and atomics need resources on both ends.  A requester
 * allowed none (max_rd_atomic 0) may not initiate them: the WQE fails
 * locally with LOC_QP_OP_ERR and nothing reaches the wire.  Return:
 * whether the requester may send the request.
 */
bool xnic_sim_rd_atomic_init(struct xnic_sim_qp *qp, u8 *status)
{
	if (qp->max_rd_atomic)
		return true;
	*status = XNIC_CQE_LOC_QP_OP_ERR;
	return false;
}

/* RDMA_READ (RC). */
static int xnic_sim_do_read(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
			    u8 *status, u32 *byte_len)
{
	struct xnic_sim_scratch *s = dev->scr;
	const struct xnic_sim_swqe *w = &s->w;
	const struct xnic_sim_mr *mr;
	struct xnic_sim_qp *rqp;
	u64 len, maddr;
	u32 nl;
	u8 st;
	int r;

	if (!xnic_sim_rd_atomic_init(qp, status))
		return XNIC_SIM_DONE;
	st = xnic_sim_local_segs(dev, qp, XNIC_ACCESS_LOCAL_WRITE, 0, &nl,
				 &len);
	if (st) {
		*status = st;
		return XNIC_SIM_DONE;
	}
	*byte_len = len;
	rqp = xnic_sim_responder(dev, qp, status, &r);
	if (!rqp)
		return r;
	xnic_sim_psn(qp, rqp, len);
	if (!xnic_sim_rd_atomic_resp(rqp, status) || !len)
		return XNIC_SIM_DONE;
	mr = xnic_sim_rkey(rqp, xnic_sim_resp_pdn(dev, rqp), w->rkey,
			   w->remote_addr, len, XNIC_ACCESS_REMOTE_READ, &maddr);
	if (!mr)
		return xnic_sim_rem_access(qp, rqp, status);
	s->rseg[0].mr = mr;
	s->rseg[0].addr = maddr;
	s->rseg[0].len = len;
	if (xnic_sim_copy(s->lseg, nl, s->rseg, 1, len,
			  xnic_sim_may_sleep(dev))) {
		*status = XNIC_CQE_LOC_PROT_ERR;
		return XNIC_SIM_DONE;
	}
	atomic64_inc(&rqp->rx_ops);
	atomic64_add(len, &rqp->rx_bytes);
	xnic_sim_count(rqp->dev, XNIC_SIM_CTR_rx_read, 1);
	xnic_sim_count(rqp->dev, XNIC_SIM_CTR_rx_read_bytes, len);
	return XNIC_SIM_DONE;
}

/* ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD (RC). */
static int xnic_sim_do_atomic(struct xnic_sim_dev *dev,
			      struct xnic_sim_qp *qp, u8 *status,
			      u32 *byte_len)
{
	struct xnic_sim_scratch *s = dev->scr;
	const struct xnic_sim_swqe *w = &s->w;
	struct xnic_sim_seg src = { .kaddr = &s->atomic_orig, .len = 8 };
	const struct xnic_sim_mr *mr;
	struct xnic_sim_qp *rqp;
	u64 len, orig, maddr;
	u32 nl;
	u8 st;
	int r;

	if (!xnic_sim_rd_atomic_init(qp, status))
		return XNIC_SIM_DONE;
	st = xnic_sim_local_segs(dev, qp, XNIC_ACCESS_LOCAL_WRITE, 0, &nl,
				 &len);
	if (!st && len < 8)
		st = XNIC_CQE_LOC_LEN_ERR;
	if (st) {
		*status = st;
		return XNIC_SIM_DONE;
	}
	*byte_len = 8;
	rqp = xnic_sim_responder(dev, qp, status, &r);
	if (!rqp)
		return r;
	xnic_sim_psn(qp, rqp, 8);
	if (!xnic_sim_rd_atomic_resp(rqp, status))
		return XNIC_SIM_DONE;
	/*
	 * The key first (a remote access error), then the alignment: an
	 * address not 8-byte aligned, or one a window translates to such,
	 * is an invalid request -- as the wire responder and rxe
	 * (check_rkey(), then atomic_reply()'s RESPST_ERR_MISALIGNED_ATOMIC).
	 */
	mr = xnic_sim_rkey(rqp, xnic_sim_resp_pdn(dev, rqp), w->rkey,
			   w->remote_addr, 8, XNIC_ACCESS_REMOTE_ATOMIC, &maddr);
	if (!mr)
		return xnic_sim_rem_access(qp, rqp, status);
	if ((w->remote_addr | maddr) & 7)
		r = -EINVAL;
	else
		r = xnic_sim_atomic(mr, maddr,
				    w->opcode == XNIC_OP_ATOMIC_CMP_AND_SWP,
				    w->compare_add, w->swap, &orig);
	if (r == -EINVAL) {
		xnic_sim_qp_set_err(rqp, XNIC_EQE_QP_REQ_ERR);
		*status = XNIC_CQE_REM_INV_REQ_ERR;
		return XNIC_SIM_DONE;
	}
	if (r)
		return xnic_sim_rem_access(qp, rqp, status);
	s->atomic_orig = orig;
	if (xnic_sim_copy(s->lseg, nl, &src, 1, 8, false)) {
		*status = XNIC_CQE_LOC_PROT_ERR;
		return XNIC_SIM_DONE;
	}
	atomic64_inc(&rqp->rx_ops);
	xnic_sim_count(rqp->dev, XNIC_SIM_CTR_rx_atomic, 1);
	return XNIC_SIM_DONE;
}

/*
 * ATOMIC_WRITE (RC, IBTA 1.5 A19.4.2): the payload, 8 bytes from the
 * SGEs or inline data, stored at once at the 8-byte aligned
 * remote_addr.  Resources as an atomic's; the responder checks in
 * xnic_sim_pmem_rkey()'s order.
 */
static int xnic_sim_do_atomic_write(struct xnic_sim_dev *dev,
				    struct xnic_sim_qp *qp, u8 *status,
				    u32 *byte_len)
{
	struct xnic_sim_scratch *s = dev->scr;
	struct xnic_sim_seg dst = { .kaddr = &s->atomic_orig, .len = 8 };
	const struct xnic_sim_mr *mr;
	struct xnic_sim_qp *rqp;
	u64 len, maddr;
	u32 nl;
	u8 st;
	int r;

	if (!xnic_sim_rd_atomic_init(qp, status))
		return XNIC_SIM_DONE;
	st = xnic_sim_local_segs(dev, qp, 0, 0, &nl, &len);
	if (!st && len == 8 &&
	    xnic_sim_copy(&dst, 1, s->lseg, nl, 8, false))
		st = XNIC_CQE_LOC_PROT_ERR;
	if (st) {
		*status = st;
		return XNIC_SIM_DONE;
	}
	*byte_len = len;
	rqp = xnic_sim_responder(dev, qp, status, &r);
	if (!rqp)
		return r;
	xnic_sim_psn(qp, rqp, len);
	if (!xnic_sim_pmem_resp(dev, qp, rqp, len, 0, 0, &mr, &maddr, status))
		return XNIC_SIM_DONE;
	if (xnic_sim_atomic_write(mr, maddr, s->atomic_orig))
		return xnic_sim_rem_access(qp, rqp, status);
	atomic64_inc(&rqp->rx_ops);
	atomic64_add(8, &rqp->rx_bytes);
	xnic_sim_count(rqp->dev, XNIC_SIM_CTR_rx_write, 1);
	xnic_sim_count(rqp->dev, XNIC_SIM_CTR_rx_write_bytes, 8);
	return XNIC_SIM_DONE;
}

/*
 * FLUSH (RC, IBTA 1.5 A19.4.1): make the responder's earlier writes to a
 * range of an MR (or the whole MR) globally visible and/or persistent.
 * No payload, no responder resources.  An unknown type or level, or data
 * in the WQE, is a malformed WQE.
 */
static int xnic_sim_do_flush(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
			     u8 *status, u32 *byte_len)
{
	const struct xnic_sim_swqe *w = &dev->scr->w;
	const struct xnic_sim_mr *mr;
	struct xnic_sim_qp *rqp;
	u64 addr, len;
	u64 maddr;
	int r;

	if (!w->flush_type ||
	    w->flush_type & ~(XNIC_FLUSH_GLOBAL | XNIC_FLUSH_PERSISTENT) ||
	    w->flush_level > XNIC_FLUSH_MR || w->num_sge || w->inline_len) {
		*status = XNIC_CQE_LOC_QP_OP_ERR;
		return XNIC_SIM_DONE;
	}
	*byte_len = w->flush_len;
	rqp = xnic_sim_responder(dev, qp, status, &r);
	if (!rqp)
		return r;
	xnic_sim_psn(qp, rqp, 0);
	if (!xnic_sim_pmem_resp(dev, qp, rqp, w->flush_len, w->flush_type,
				w->flush_level, &mr, &maddr, status))
		return XNIC_SIM_DONE;
	if (w->flush_level == XNIC_FLUSH_MR) {
		addr = READ_ONCE(mr->iova);
		len = READ_ONCE(mr->length);
	} else {
		addr = maddr;
		len = w->flush_len;
	}
	if (xnic_sim_flush(mr, addr, len, w->flush_type))
		return xnic_sim_rem_access(qp, rqp, status);
	atomic64_inc(&rqp->rx_ops);
	return XNIC_SIM_DONE;
}

/* LOCAL_INV: invalidate a fast-reg MR of the QP's PD. */
static int xnic_sim_do_local_inv(struct xnic_sim_dev *dev,
				 struct xnic_sim_qp *qp, u8 *status)
{
	u32 key = le32_to_cpu(dev->scr->w.imm);
	struct xnic_sim_mr *mr = xnic_sim_tbl_get(&dev->mrs, key >> 8);

	if (mr && mr->mw_type) {
		/* a type 2 window of the QP's PD, bound */
		if (mr->mw_type != XNIC_MW_TYPE_2 ||
		    READ_ONCE(mr->key) != key || mr->pdn != qp->pdn ||
		    !xnic_sim_mw_invalidate(dev, mr, true))
			*status = XNIC_CQE_LOC_PROT_ERR;
		return XNIC_SIM_DONE;
	}
	if (!mr || READ_ONCE(mr->key) != key || mr->pdn != qp->pdn ||
	    !(mr->flags & XNIC_MR_F_FREG)) {
		*status = XNIC_CQE_LOC_PROT_ERR;
		return XNIC_SIM_DONE;
	}
	WRITE_ONCE(mr->valid, false);
	/* an operation of the peer that passed the check is over */
	xnic_sim_sect_sync(dev);
	return XNIC_SIM_DONE;
}

/*
 * BIND_MW: bind a window of the QP's PD to a range of an MR
 * (xnic_sim_bind_check()), or unbind a type 1 window (length 0).  A type
 * 2 window serves only this QP afterwards.  Rebinding a bound type 1
 * window waits until the peer's operations through it are over.
 */
static int xnic_sim_do_bind_mw(struct xnic_sim_dev *dev,
			       struct xnic_sim_qp *qp, u8 *status)
{
	const struct xnic_sim_bind *b = &dev->scr->w.bind;
	struct xnic_sim_mr *mw = xnic_sim_tbl_get(&dev->mrs, b->mw_key >> 8);
	struct xnic_sim_mr *mr = NULL;
	u32 prev;

	if (b->length)
		mr = xnic_sim_tbl_get(&dev->mrs, b->mr_key >> 8);
	*status = xnic_sim_bind_check(mw, mr, qp->pdn, b);
	if (*status)
		return XNIC_SIM_DONE;
	/* only this engine binds; a peer only takes VALID to INVALIDATING */
	prev = xchg(&mw->state, XNIC_SIM_MW_BINDING);
	if (prev == XNIC_SIM_MW_VALID) {
		xnic_sim_sect_sync(dev);
		atomic_dec(&mw->parent->binds);
	}
	WRITE_ONCE(mw->key, b->mw_key);
	if (!b->length) {
		/* the new key before FREE: pairs with readers' acquire */
		smp_store_release(&mw->state, XNIC_SIM_MW_FREE);
		return XNIC_SIM_DONE;
	}
	atomic_inc(&mr->binds);
	WRITE_ONCE(mw->parent, mr);
	WRITE_ONCE(mw->access, b->access);
	WRITE_ONCE(mw->base, b->addr);
	WRITE_ONCE(mw->iova,
		   (b->flags & XNIC_BIND_F_ZERO_BASED) ? 0 : b->addr);
	WRITE_ONCE(mw->length, b->length);
	WRITE_ONCE(mw->qpn, qp->qpn);
	/* every field before VALID: pairs with xnic_sim_mw_check()'s acquire */
	smp_store_release(&mw->state, XNIC_SIM_MW_VALID);
	return XNIC_SIM_DONE;
}

/* REG_MR (kernel QPs): fast registration of a page list. */
static int xnic_sim_do_reg_mr(struct xnic_sim_dev *dev,
			      struct xnic_sim_qp *qp, u8 *status)
{
	const struct xnic_sim_swqe *w = &dev->scr->w;
	struct xnic_sim_mr *mr = xnic_sim_tbl_get(&dev->mrs, w->fr.key >> 8);
	u32 i, n = w->fr.npages;

	if (!mr || !(mr->flags & XNIC_MR_F_FREG) || mr->pdn != qp->pdn ||
	    n > mr->max_pages ||
	    (w->fr.access & ~(u32)(XNIC_ACCESS_LOCAL_WRITE |
				   XNIC_ACCESS_REMOTE_WRITE |
				   XNIC_ACCESS_REMOTE_READ |
				   XNIC_ACCESS_REMOTE_ATOMIC |
				   XNIC_ACCESS_FLUSH_GLOBAL |
				   XNIC_ACCESS_FLUSH_PERSISTENT)) ||
	    xnic_sim_mr_params_ok(w->fr.iova, w->fr.length, n,
				  w->fr.page_shift, XNIC_SIM_MAX_MR_SIZE))
		goto bad;
	WRITE_ONCE(mr->valid, false);
	smp_wmb();	/* invalid before the page list changes */
	WRITE_ONCE(mr->npages, 0);
	if (!xnic_sim_dma_read(w->fr.mtt_addr, mr->mtt, (size_t)n * 8))
		goto bad;
	for (i = 0; i < n; i++)
		mr->mtt[i] = le64_to_cpu((__force __le64)mr->mtt[i]);
	if (xnic_sim_mtt_check(mr->mtt, n, w->fr.page_shift) ||
	    ((w->fr.access & XNIC_ACCESS_FLUSH_PERSISTENT) &&
	     !xnic_sim_mtt_pmem(mr->mtt, n, w->fr.page_shift)))
		goto bad;
	WRITE_ONCE(mr->page_shift, w->fr.page_shift);
	WRITE_ONCE(mr->iova, w->fr.iova);
	WRITE_ONCE(mr->length, w->fr.length);
	WRITE_ONCE(mr->access, w->fr.access);
	WRITE_ONCE(mr->npages, n);
	WRITE_ONCE(mr->key, w->fr.key);
	smp_wmb();	/* the registration before it becomes valid */
	WRITE_ONCE(mr->valid, true);
	return XNIC_SIM_DONE;
bad:
	*status = XNIC_CQE_LOC_PROT_ERR;
	return XNIC_SIM_DONE;
}

/**
 * xnic_sim_sq_exec - execute the decoded send WQE in the engine's scratch
 * @dev: the QP's device (its engine)
 * @qp: the requester
 * @status: XNIC_CQE_* result (when XNIC_SIM_DONE)
 * @byte_len: bytes of the operation
 *
 * Return: XNIC_SIM_DONE, or XNIC_SIM_WAIT with qp->wait_until set (RNR, retry).
 */
int xnic_sim_sq_exec(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
		     u8 *status, u32 *byte_len)
{
	u8 op = dev->scr->w.opcode;
	int r;

	*status = xnic_sim_op_check(qp->type, op, qp->kernel);
	*byte_len = 0;
	if (*status)
		return XNIC_SIM_DONE;
	switch (op) {
	case XNIC_OP_NOP:
		return XNIC_SIM_DONE;
	case XNIC_OP_LOCAL_INV:
		return xnic_sim_do_local_inv(dev, qp, status);
	case XNIC_OP_REG_MR:
		return xnic_sim_do_reg_mr(dev, qp, status);
	case XNIC_OP_BIND_MW:
		return xnic_sim_do_bind_mw(dev, qp, status);
	}

	/* remote: the responder's objects are used inside a section */
	xnic_sim_sect_enter(dev);
	switch (op) {
	case XNIC_OP_SEND:
	case XNIC_OP_SEND_WITH_IMM:
	case XNIC_OP_SEND_WITH_INV:
		r = xnic_sim_do_send(dev, qp, status, byte_len);
		break;
	case XNIC_OP_RDMA_WRITE:
	case XNIC_OP_RDMA_WRITE_WITH_IMM:
		r = xnic_sim_do_write(dev, qp, status, byte_len);
		break;
	case XNIC_OP_RDMA_READ:
		r = xnic_sim_do_read(dev, qp, status, byte_len);
		break;
	case XNIC_OP_ATOMIC_WRITE:
		r = xnic_sim_do_atomic_write(dev, qp, status, byte_len);
		break;
	case XNIC_OP_FLUSH:
		r = xnic_sim_do_flush(dev, qp, status, byte_len);
		break;
	default:
		r = xnic_sim_do_atomic(dev, qp, status, byte_len);
		break;
	}
	xnic_sim_sect_exit(dev);
	return r;
}
