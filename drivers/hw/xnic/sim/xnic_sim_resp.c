// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_sim: the transport, responder side.  Run by the requester's engine
 * against the responder's objects (inside a section): which QP takes a
 * request (an RC/UC responder only its connected peer's, RC only in
 * sequence), its receive queue or SRQ, the receive buffers and remote
 * keys, receive completions, and the responder's answers to a bad
 * request (ERR and a NAK status for the requester).
 */
#include <linux/kernel.h>
#include "xnic_sim.h"

/*
 * The responder QP of an RC/UC QP, if it takes the request: it exists,
 * has the same type (XRC_TGT for an XRC_INI requester: a packet of
 * another transport service is dropped), receives (RTR, RTS, SQD, SQE),
 * and is connected to
 * the requester: its remote port (the address vector set at RTR) is the
 * requester's port and its destination QPN the requester's QPN.  A real
 * responder drops a packet whose source QP is not its connection's; so
 * does this one, silently, touching nothing of the responder (state,
 * receive queue, MRs, CQ).  An RC responder also drops a request whose
 * PSN is not the next one it expects (the model executes each request
 * once, whole and in order, so it never sees a duplicate: a PSN behind
 * is as wrong as one ahead).  Either drop is counted on the responder's
 * device; the requester, answered by nobody, retries (xnic_sim_no_answer()).
 */
struct xnic_sim_qp *xnic_sim_rc_peer(struct xnic_sim_qp *qp)
{
	struct xnic_sim_dev *rdev = READ_ONCE(qp->rdev);
	struct xnic_sim_qp *rqp;

	if (!rdev)
		return NULL;
	/* a port without a link: nothing arrives either way */
	if (xnic_sim_faults_on() &&
	    (!xnic_sim_port_up(qp->dev) || !xnic_sim_port_up(rdev)))
		return NULL;
	rqp = xnic_sim_tbl_get(&rdev->qps, READ_ONCE(qp->dest_qpn));
	if (!rqp ||
	    rqp->type != (qp->type == XNIC_QPT_XRC_INI ? XNIC_QPT_XRC_TGT :
			  qp->type) ||
	    !xnic_sim_qp_can_recv(READ_ONCE(rqp->state)))
		return NULL;
	if (READ_ONCE(rqp->rdev) != qp->dev ||
	    READ_ONCE(rqp->dest_qpn) != qp->qpn) {
		xnic_sim_count(rdev, XNIC_SIM_CTR_rx_drop_bad_src, 1);
		return NULL;
	}
	if (xnic_sim_qpt_rc(qp->type) &&
	    READ_ONCE(rqp->rq_psn) != qp->sq_psn) {
		xnic_sim_count(rdev, XNIC_SIM_CTR_rx_drop_psn, 1);
		return NULL;
	}
	return rqp;
}

/* Where a receive queue (a QP's RQ or an SRQ) is, and its consumer index. */
struct xnic_sim_rq {
	u64 ring;
	u64 dbrec;
	u8 log;
	u8 shift;
	u32 *ci;
};

/*
 * Take the next receive WQE of @q into the scratch buffer, under the
 * queue's lock.  Return: 1 taken, 0 none posted (an impossible producer
 * index or owner counts as a bad doorbell: none), -EINVAL a malformed
 * entry (consumed).  @pi is the producer index read.
 */
static int xnic_sim_rq_take_locked(struct xnic_sim_dev *dev,
				   struct xnic_sim_dev *rdev,
				   const struct xnic_sim_rq *q, u32 *pi)
{
	struct xnic_rwqe *hdr = (void *)dev->scr->rwqe;
	u64 addr;
	int n, len;
	void *p;

	p = xnic_sim_map(q->dbrec + offsetof(struct xnic_qp_dbrec, rq_pi));
	if (!p)
		return 0;
	*pi = le32_to_cpu(READ_ONCE(*(__le32 *)p));
	xnic_sim_unmap(p);
	n = xnic_sim_ring_avail(*q->ci, *pi, q->log);
	if (!n)
		return 0;
	if (n < 0)
		goto bad;
	addr = q->ring + ((u64)(*q->ci & ((1U << q->log) - 1)) << q->shift);
	p = xnic_sim_map(addr + offsetof(struct xnic_rwqe, owner));
	if (!p)
		goto bad;
	n = xnic_sim_wqe_owner_ok(READ_ONCE(*(u8 *)p), *q->ci, q->log);
	xnic_sim_unmap(p);
	if (!n)
		goto bad;
	dma_rmb();	/* the entry after its owner */
	if (!xnic_sim_dma_read(addr, hdr, sizeof(*hdr)))
		goto bad;
	(*q->ci)++;
	len = xnic_sim_rwqe_len(hdr, 1U << q->shift);
	if (len < 0 ||
	    !xnic_sim_dma_read(addr + sizeof(*hdr), hdr + 1,
			       len - sizeof(*hdr)))
		return -EINVAL;
	return 1;
bad:
	xnic_sim_count(rdev, XNIC_SIM_CTR_bad_doorbells, 1);
	return 0;
}

/*
 * The SRQ's consumer count into its doorbell record's sq_pi, before the
 * CQE of the WQE taken (the record's owner sees the entry free).
 */
static void xnic_sim_srq_ci_write(struct xnic_sim_srq *srq)
{
	__le32 ci = cpu_to_le32(srq->ci);

	xnic_sim_dma_write(srq->dbrec + offsetof(struct xnic_qp_dbrec, sq_pi),
			   &ci, sizeof(ci));
}

/*
 * Take the responder's next receive WQE (its RQ or SRQ; an XRC_TGT's:
 * the XRC SRQ the request named) into the scratch buffer.  Called with
 * rqp->lock held.  See xnic_sim_rq_take_locked().
 */
int xnic_sim_rq_take(struct xnic_sim_dev *dev, struct xnic_sim_qp *rqp)
{
	struct xnic_sim_srq *srq = rqp->type == XNIC_QPT_XRC_TGT ?
				   dev->scr->xsrq : rqp->srq;
	struct xnic_sim_rq q;
	u32 pi;
	int ret;

	if (!srq) {
		q = (struct xnic_sim_rq) {
			.ring = rqp->rq_addr, .dbrec = rqp->dbrec,
			.log = rqp->rq_log, .shift = rqp->rq_shift,
			.ci = &rqp->rq_ci,
		};
		return xnic_sim_rq_take_locked(dev, rqp->dev, &q, &pi);
	}
	spin_lock(&srq->lock);
	/* RESIZE_SRQ moves the ring and record under the lock */
	q = (struct xnic_sim_rq) {
		.ring = srq->ring, .dbrec = srq->dbrec,
		.log = srq->log, .shift = srq->shift, .ci = &srq->ci,
	};
	ret = xnic_sim_rq_take_locked(dev, rqp->dev, &q, &pi);
	if (ret)
		xnic_sim_srq_ci_write(srq);
	if (ret > 0 && srq->limit && pi - srq->ci < srq->limit) {
		srq->limit = 0;
		xnic_sim_eq_post(srq->dev, XNIC_EQE_SRQ_LIMIT, srq->srqn, 0);
	}
	spin_unlock(&srq->lock);
	return ret;
}

/*
 * The receive WQE's SGEs as segments, checked against the responder's
 * MRs (local write).  Return: 0 or a CQE status.
 */
u8 xnic_sim_recv_segs(struct xnic_sim_dev *dev, struct xnic_sim_qp *rqp,
		      u32 *nseg, u64 *len)
{
	struct xnic_sim_scratch *s = dev->scr;
	const struct xnic_rwqe *hdr = (const void *)s->rwqe;
	const struct xnic_sge *sge = (const void *)(hdr + 1);
	struct xnic_sim_dev *rdev = rqp->dev;
	u32 pdn = rqp->srq ? rqp->srq->pdn : xnic_sim_resp_pdn(dev, rqp);
	u32 i, n = 0;
	u64 total = 0;

	for (i = 0; i < hdr->num_sge; i++) {
		u64 addr = le64_to_cpu(sge[i].addr);
		u32 l = le32_to_cpu(sge[i].length);
		u32 key = le32_to_cpu(sge[i].lkey);
		const struct xnic_sim_mr *mr;

		if (!l)
			continue;
		mr = xnic_sim_tbl_get(&rdev->mrs, key >> 8);
		if (xnic_sim_mr_check(mr, key, pdn, addr, l,
				      XNIC_ACCESS_LOCAL_WRITE, false))
			return XNIC_CQE_LOC_PROT_ERR;
		s->rseg[n].mr = mr;
		s->rseg[n].addr = addr;
		s->rseg[n].len = l;
		n++;
		total += l;
	}
	*nseg = n;
	*len = total;
	return 0;
}

static u64 xnic_sim_rwqe_id(struct xnic_sim_dev *dev)
{
	return le64_to_cpu(((struct xnic_rwqe *)dev->scr->rwqe)->wr_id);
}

/**
 * xnic_sim_rcqe - a receive completion of the receive WQE in the scratch
 * @dev: the device whose engine took the WQE (dev->scr->rwqe, and for an
 *	 XRC_TGT QP the XRC SRQ in dev->scr->xsrq)
 * @rqp: the receiving QP
 * @src_qp: the sender's QPN (the requester QP on the cable; the remote
 *	    QP, or a UD packet's DETH source QP, on the wire)
 * @status: XNIC_CQE_*, 0 success (counted otherwise)
 * @opcode: XNIC_CQE_OP_*
 * @flags: XNIC_CQE_* flags (none on an error)
 * @len: bytes received
 * @imm: immediate data or invalidated key, with XNIC_CQE_WITH_IMM/_INV
 * @se: solicited event
 *
 * The one receive-CQE builder of both transports (cable and wire); a CQ
 * overrun of a successful completion takes @rqp to ERR (QP_FATAL).
 */
void xnic_sim_rcqe(struct xnic_sim_dev *dev, struct xnic_sim_qp *rqp,
		   u32 src_qp, u8 status, u8 opcode, u8 flags, u32 len,
		   __le32 imm, bool se)
{
	struct xnic_sim_cqe_info info = {
		.wr_id = xnic_sim_rwqe_id(dev),
		.byte_len = len,
		.imm = flags & (XNIC_CQE_WITH_IMM | XNIC_CQE_WITH_INV) ?
		       imm : 0,
		.qpn = rqp->qpn,
		.src_qp = src_qp,
		.status = status,
		.opcode = opcode,
		.flags = status ? 0 : flags,
	};
	struct xnic_sim_cq *cq = rqp->type == XNIC_QPT_XRC_TGT ?
				 dev->scr->xsrq->cq : rqp->rcq;

	if (status)
		xnic_sim_count_status(rqp->dev, status);
	if (xnic_sim_cq_post(cq, &info, se) && !status)
		xnic_sim_qp_set_err(rqp, XNIC_EQE_QP_FATAL);
}

/* A receive completion on the cable's responder (@qp: the requester). */
void xnic_sim_recv_cqe(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
		       struct xnic_sim_qp *rqp, u8 status, u8 opcode, u8 flags,
		       u32 len)
{
	const struct xnic_sim_swqe *w = &dev->scr->w;

	xnic_sim_rcqe(dev, rqp, qp->qpn, status, opcode, flags, len, w->imm,
		      !!(w->flags & XNIC_WQE_SOLICITED));
}

/**
 * xnic_sim_resp_pdn - the PD a request's remote access is checked against
 * @dev: the requester's device (its engine's scratch)
 * @rqp: the responder QP
 *
 * The responder QP's, or for an XRC_TGT QP (which has none) the PD of the
 * XRC SRQ the request named (xnic_sim_xrc_srq() found it).
 */
u32 xnic_sim_resp_pdn(struct xnic_sim_dev *dev, const struct xnic_sim_qp *rqp)
{
	return rqp->type == XNIC_QPT_XRC_TGT ? dev->scr->xsrq->pdn : rqp->pdn;
}

/**
 * xnic_sim_xrc_srq - the XRC SRQ a request of an XRC_INI QP names
 * @dev: the requester's device (its engine)
 * @qp: the requester
 * @rqp: the responder (xnic_sim_rc_peer(): XRC_TGT for an XRC_INI @qp)
 * @status: the requester's completion status when the SRQ is refused
 *
 * Every request of an XRC_INI QP names an SRQ of the responder's device
 * (the WQE's xnic_wqe_xrc): it must exist, be an XRC SRQ, and be in the
 * target QP's domain, and not in error (xnic_sim_rem_access()).  Anything
 * else is an invalid request: the target
 * goes to ERR (QP_REQ_ERR) and the requester gets REM_INV_REQ_ERR.  Found,
 * it is the engine's scratch xsrq for the rest of the request.  Requests
 * of other QP types name none.  Return: whether the request goes on.
 */
bool xnic_sim_xrc_srq(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
		      struct xnic_sim_qp *rqp, u8 *status)
{
	struct xnic_sim_srq *srq;

	dev->scr->xsrq = NULL;
	if (qp->type != XNIC_QPT_XRC_INI)
		return true;
	srq = xnic_sim_tbl_get(&rqp->dev->srqs, dev->scr->w.remote_srqn);
	if (srq && srq->type == XNIC_SRQT_XRC && srq->xrcdn == rqp->xrcdn &&
	    !READ_ONCE(srq->err)) {
		dev->scr->xsrq = srq;
		return true;
	}
	xnic_sim_qp_set_err(rqp, XNIC_EQE_QP_REQ_ERR);
	*status = XNIC_CQE_REM_INV_REQ_ERR;
	return false;
}

/*
 * Check a remote key for [addr, + len) with QP and MR (or window) rights,
 * in PD @pdn (xnic_sim_resp_pdn()).
 * Return: the MR to access, @maddr set to the address in it (a window's
 * addresses translated to its MR's), or NULL.
 */
const struct xnic_sim_mr *xnic_sim_rkey(struct xnic_sim_qp *rqp, u32 pdn,
					u32 rkey, u64 addr, u64 len,
					u32 right, u64 *maddr)
{
	const struct xnic_sim_mr *mr, *bound;

	if ((READ_ONCE(rqp->access) & right) != right)
		return NULL;
	mr = xnic_sim_tbl_get(&rqp->dev->mrs, rkey >> 8);
	if (mr && mr->mw_type) {
		if (xnic_sim_mw_check(mr, rkey, pdn, rqp->qpn, addr, len,
				      right, &bound, maddr))
			return NULL;
		return bound;
	}
	if (xnic_sim_mr_check(mr, rkey, pdn, addr, len, right, true))
		return NULL;
	*maddr = addr;
	return mr;
}

/*
 * A responder with no resources for RDMA READ and atomics
 * (max_dest_rd_atomic 0) finds such a request invalid: it goes to ERR
 * with QP_REQ_ERR and the requester gets REM_INV_REQ_ERR.  Execution is
 * serial, so at most one READ or atomic per QP is ever outstanding and
 * any limit of at least 1 holds.  Return: whether the responder accepts.
 */
bool xnic_sim_rd_atomic_resp(struct xnic_sim_qp *rqp, u8 *status)
{
	if (READ_ONCE(rqp->max_dest_rd_atomic))
		return true;
	xnic_sim_qp_set_err(rqp, XNIC_EQE_QP_REQ_ERR);
	*status = XNIC_CQE_REM_INV_REQ_ERR;
	return false;
}

/**
 * xnic_sim_pmem_rkey - the responder's checks of an ATOMIC WRITE or FLUSH
 * @rqp: the responder QP
 * @pdn: its PD (an XRC_TGT's: the SRQ's)
 * @opcode: XNIC_OP_ATOMIC_WRITE or XNIC_OP_FLUSH
 * @rkey: the request's key
 * @addr: its address
 * @len: the ATOMIC WRITE's payload bytes, the FLUSH's range
 * @type: FLUSH: the placement type (XNIC_FLUSH_GLOBAL, _PERSISTENT)
 * @level: FLUSH: XNIC_FLUSH_RANGE or XNIC_FLUSH_MR
 * @mr: the MR found
 * @maddr: @addr in @mr (a window's address translated)
 *
 * In rxe's order (drivers/infiniband/sw/rxe/rxe_resp.c, Linux 6.12):
 *
 * #. the QP's access flags grant the operation -- ATOMIC WRITE:
 *    REMOTE_WRITE; FLUSH: FLUSH_GLOBAL and/or FLUSH_PERSISTENT as the
 *    type asks -- else the QP does not support it: invalid request;
 * #. ATOMIC WRITE: responder resources (max_dest_rd_atomic), else
 *    invalid request;
 * #. FLUSH: a range of at most 2^31 bytes (IBA C9-94), else invalid
 *    request;
 * #. the key: an MR or window of the PD granting the same rights, and
 *    for an ATOMIC WRITE or a FLUSH of a range, [addr, addr + len)
 *    inside it (a FLUSH of the whole MR is not range checked), else a
 *    remote access error;
 * #. ATOMIC WRITE: exactly 8 bytes of payload (IBA oA19-28), at an
 *    8-byte aligned address (A19.4.2), else invalid request.
 *
 * Return: 0, XNIC_CQE_REM_INV_REQ_ERR or XNIC_CQE_REM_ACCESS_ERR; nothing
 * of the responder is changed.
 */
u8 xnic_sim_pmem_rkey(struct xnic_sim_qp *rqp, u32 pdn, u8 opcode, u32 rkey,
		      u64 addr, u64 len, u8 type, u8 level,
		      const struct xnic_sim_mr **mr, u64 *maddr)
{
	const struct xnic_sim_mr *m;
	u32 right = 0;

	if (opcode == XNIC_OP_ATOMIC_WRITE) {
		right = XNIC_ACCESS_REMOTE_WRITE;
	} else {
		if (type & XNIC_FLUSH_GLOBAL)
			right |= XNIC_ACCESS_FLUSH_GLOBAL;
		if (type & XNIC_FLUSH_PERSISTENT)
			right |= XNIC_ACCESS_FLUSH_PERSISTENT;
	}
	if (!right || (READ_ONCE(rqp->access) & right) != right)
		return XNIC_CQE_REM_INV_REQ_ERR;
	if (opcode == XNIC_OP_ATOMIC_WRITE &&
	    !READ_ONCE(rqp->max_dest_rd_atomic))
		return XNIC_CQE_REM_INV_REQ_ERR;
	if (opcode == XNIC_OP_FLUSH && len > (1ULL << 31))
		return XNIC_CQE_REM_INV_REQ_ERR;
	if (opcode == XNIC_OP_FLUSH && level == XNIC_FLUSH_MR) {
		/* the whole MR: its own range passes the bounds check */
		m = xnic_sim_tbl_get(&rqp->dev->mrs, rkey >> 8);
		addr = m && !m->mw_type ? READ_ONCE(m->iova) : 0;
		len = m && !m->mw_type ? READ_ONCE(m->length) : 0;
	}
	*mr = xnic_sim_rkey(rqp, pdn, rkey, addr, len, right, maddr);
	if (!*mr)
		return XNIC_CQE_REM_ACCESS_ERR;
	if (opcode == XNIC_OP_ATOMIC_WRITE && (len != 8 || *maddr & 7))
		return XNIC_CQE_REM_INV_REQ_ERR;
	return 0;
}

/*
 * An XRC SRQ whose PD refused a remote access goes to error for good and
 * its owner hears of it (SRQ_ERR): the XRC_TGT QP that took the request
 * may be any domain member's, reset and reused by it for the next guess,
 * so the SRQ's side must bear the miss as an RC responder QP does.
 */
static void xnic_sim_xrc_srq_err(struct xnic_sim_srq *srq)
{
	bool was;

	spin_lock(&srq->lock);
	was = srq->err;
	WRITE_ONCE(srq->err, true);
	spin_unlock(&srq->lock);
	if (!was)
		xnic_sim_eq_post(srq->dev, XNIC_EQE_SRQ_ERR, srq->srqn, 0);
}

/*
 * A remote access violation: an RC responder goes to ERR with
 * QP_ACCESS_ERR and the requester gets REM_ACCESS_ERR; UC drops.  For an
 * XRC_TGT responder the XRC SRQ whose PD was checked goes to error too.
 */
int xnic_sim_rem_access(struct xnic_sim_qp *qp, struct xnic_sim_qp *rqp,
			u8 *status)
{
	if (!xnic_sim_qpt_rc(qp->type)) {
		xnic_sim_count(qp->dev, XNIC_SIM_CTR_uc_drops, 1);
		return XNIC_SIM_DONE;
	}
	if (rqp->type == XNIC_QPT_XRC_TGT && qp->dev->scr->xsrq)
		xnic_sim_xrc_srq_err(qp->dev->scr->xsrq);
	xnic_sim_qp_set_err(rqp, XNIC_EQE_QP_ACCESS_ERR);
	*status = XNIC_CQE_REM_ACCESS_ERR;
	return XNIC_SIM_DONE;
}

/* A malformed receive WQE: the responder fails, so does an RC message. */
int xnic_sim_bad_rwqe(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
		      struct xnic_sim_qp *rqp, u8 *status)
{
	struct xnic_rwqe *hdr = (void *)dev->scr->rwqe;

	hdr->num_sge = 0;
	xnic_sim_recv_cqe(dev, qp, rqp, XNIC_CQE_LOC_QP_OP_ERR,
			  XNIC_CQE_OP_RECV, 0, 0);
	xnic_sim_qp_set_err(rqp, XNIC_EQE_QP_FATAL);
	if (xnic_sim_qpt_rc(qp->type))
		*status = XNIC_CQE_REM_OP_ERR;
	return XNIC_SIM_DONE;
}
