// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_sim: QP state.  The legal transitions, the engine's active list
 * (a QP with send work, a wait or something to flush is on it), moving a
 * QP to ERR because of an error (any engine), and flushing a QP in ERR
 * (its own engine): its posted WQEs complete with WR_FLUSH_ERR.
 */
#include <linux/kernel.h>
#include <linux/bitops.h>
#include "xnic_sim.h"

/**
 * xnic_sim_qp_trans_ok - is a QP state transition legal?
 * @cur: current state
 * @next: requested state
 *
 * Every state may go to RESET and ERR; otherwise RESET->INIT, INIT->INIT,
 * INIT->RTR, RTR->RTS, RTS->RTS, RTS->SQD, SQD->SQD, SQD->RTS, SQE->RTS.
 */
bool xnic_sim_qp_trans_ok(u8 cur, u8 next)
{
	if (cur >= XNIC_QPS_NUM || next >= XNIC_QPS_NUM)
		return false;
	if (next == XNIC_QPS_RESET || next == XNIC_QPS_ERR)
		return true;
	switch (cur) {
	case XNIC_QPS_RESET:
		return next == XNIC_QPS_INIT;
	case XNIC_QPS_INIT:
		return next == XNIC_QPS_INIT || next == XNIC_QPS_RTR;
	case XNIC_QPS_RTR:
		return next == XNIC_QPS_RTS;
	case XNIC_QPS_RTS:
	case XNIC_QPS_SQD:
		return next == XNIC_QPS_RTS || next == XNIC_QPS_SQD;
	case XNIC_QPS_SQE:
		return next == XNIC_QPS_RTS;
	default:
		return false;
	}
}

/* Whether a QP in @state accepts incoming messages. */
bool xnic_sim_qp_can_recv(u8 state)
{
	return state == XNIC_QPS_RTR || state == XNIC_QPS_RTS ||
	       state == XNIC_QPS_SQD || state == XNIC_QPS_SQE;
}

/**
 * xnic_sim_qp_activate - put a QP on its engine's active list
 * @qp: the QP (its own engine only)
 */
void xnic_sim_qp_activate(struct xnic_sim_qp *qp)
{
	if (!qp->on_active) {
		list_add_tail(&qp->active_node, &qp->dev->active);
		qp->on_active = true;
	}
}

/**
 * xnic_sim_qp_deactivate - take a QP off the active list
 * @qp: the QP (its own engine only)
 */
void xnic_sim_qp_deactivate(struct xnic_sim_qp *qp)
{
	if (qp->on_active) {
		list_del(&qp->active_node);
		qp->on_active = false;
	}
}

/**
 * xnic_sim_qp_ring - ring a QP's doorbell from inside the device
 * @qp: the QP, possibly of the other device
 *
 * Any engine (inside a section for a peer's QP).  The owner's engine
 * finds the QP at its next scan, as after a producer's doorbell.
 */
void xnic_sim_qp_ring(struct xnic_sim_qp *qp)
{
	u32 group = qp->slot / 64;
	unsigned long *p;

	p = xnic_sim_map(xnic_sim_db_group_addr(qp->db->addr, group));
	if (p) {
		set_bit(qp->slot % 64, p);
		xnic_sim_unmap(p);
	}
	p = xnic_sim_map(xnic_sim_db_summary_addr(qp->db->addr, group / 64));
	if (p) {
		set_bit(group % 64, p);
		xnic_sim_unmap(p);
	}
	xnic_sim_kick(qp->dev);
}

/**
 * xnic_sim_qp_set_err - move a QP to ERR because of an error
 * @qp: the QP, possibly of the other device
 * @event: XNIC_EQE_* to raise on its device, or 0
 *
 * Any engine.  The owner's engine flushes the QP.
 */
void xnic_sim_qp_set_err(struct xnic_sim_qp *qp, u8 event)
{
	bool changed;

	spin_lock(&qp->lock);
	changed = qp->state != XNIC_QPS_ERR &&
		  qp->state != XNIC_QPS_RESET;
	if (changed)
		WRITE_ONCE(qp->state, XNIC_QPS_ERR);
	spin_unlock(&qp->lock);
	if (!changed)
		return;
	if (event)
		xnic_sim_eq_post(qp->dev, event, qp->qpn, 0);
	/* an XRC_TGT QP has no doorbell and nothing to flush */
	if (qp->db)
		xnic_sim_qp_ring(qp);
}

/*
 * Complete the posted WQEs of a QP in ERR with WR_FLUSH_ERR, at most
 * @*quota of them (decremented; @*more set when it stopped there).
 * Return: whether there was anything to do (a QP with nothing to flush is
 * no work, however often its doorbell rings).
 */
bool xnic_sim_qp_flush(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
		       u32 *quota, bool *more)
{
	struct xnic_sim_cqe_info info = {
		.qpn = qp->qpn,
		.status = XNIC_CQE_WR_FLUSH_ERR,
	};
	struct xnic_wqe_ctrl ctrl;
	u32 mask, ci, pi, n, i;
	bool did = false;
	u64 addr;
	int avail;

	/* send queue: bounded by two laps, the producer may keep posting */
	mask = (1U << qp->sq_log) - 1;
	for (i = 0; i < 2 * (mask + 1); i++) {
		if (!*quota) {
			*more = true;
			return did;
		}
		if (qp->sq_ci == qp->sq_pi) {
			pi = xnic_sim_rd32(qp->dbrec +
					   offsetof(struct xnic_qp_dbrec, sq_pi));
			if (xnic_sim_ring_avail(qp->sq_ci, pi, qp->sq_log) <= 0)
				break;
			qp->sq_pi = pi;
		}
		addr = qp->sq_addr + ((u64)(qp->sq_ci & mask) << qp->sq_shift);
		if (!xnic_sim_wqe_owner_ok(xnic_sim_rd8(addr +
				offsetof(struct xnic_wqe_ctrl, owner)),
				qp->sq_ci, qp->sq_log))
			break;
		dma_rmb();
		if (!xnic_sim_dma_read(addr, &ctrl, sizeof(ctrl)))
			break;
		info.wr_id = le64_to_cpu(ctrl.wr_id);
		info.opcode = xnic_sim_cqe_opcode(ctrl.opcode);
		qp->sq_ci++;
		qp->flushed++;
		xnic_sim_count(dev, XS_CTR_err_flush, 1);
		xnic_sim_cq_post(qp->scq, &info, false);
		(*quota)--;
		did = true;
	}

	if (qp->srq) {
		if (!qp->last_wqe_sent) {
			qp->last_wqe_sent = true;
			xnic_sim_eq_post(dev, XNIC_EQE_LAST_WQE, qp->qpn, 0);
			did = true;
		}
		return did;
	}
	if (!qp->rcq)	/* XRC_INI: no receive side */
		return did;

	/* receive queue: claim what is posted, then complete it */
	spin_lock(&qp->lock);
	ci = qp->rq_ci;
	pi = xnic_sim_rd32(qp->dbrec + offsetof(struct xnic_qp_dbrec, rq_pi));
	avail = xnic_sim_ring_avail(ci, pi, qp->rq_log);
	n = avail > 0 ? avail : 0;
	if (n > *quota) {
		n = *quota;
		*more = true;
	}
	if (qp->state == XNIC_QPS_ERR)
		qp->rq_ci = ci + n;
	else
		n = 0;
	spin_unlock(&qp->lock);
	mask = (1U << qp->rq_log) - 1;
	info.opcode = XNIC_CQE_OP_RECV;
	for (i = 0; i < n; i++, ci++) {
		struct xnic_rwqe hdr;

		addr = qp->rq_addr + ((u64)(ci & mask) << qp->rq_shift);
		if (!xnic_sim_wqe_owner_ok(xnic_sim_rd8(addr +
				offsetof(struct xnic_rwqe, owner)),
				ci, qp->rq_log))
			break;
		dma_rmb();
		if (!xnic_sim_dma_read(addr, &hdr, sizeof(hdr)))
			break;
		info.wr_id = le64_to_cpu(hdr.wr_id);
		qp->flushed++;
		xnic_sim_count(dev, XS_CTR_err_flush, 1);
		xnic_sim_cq_post(qp->rcq, &info, false);
		did = true;
	}
	*quota -= min(n, *quota);
	if (!qp->on_err) {
		list_add_tail(&qp->err_node, &dev->errq);
		qp->on_err = true;
		did = true;
	}
	return did;
}

/* Receives posted to a QP in ERR ring no doorbell: look now and then. */
void xnic_sim_err_sweep(struct xnic_sim_dev *dev)
{
	struct xnic_sim_qp *qp;
	u32 pi;

	list_for_each_entry(qp, &dev->errq, err_node) {
		pi = xnic_sim_rd32(qp->dbrec +
				   offsetof(struct xnic_qp_dbrec, rq_pi));
		if (pi != READ_ONCE(qp->rq_ci))
			xnic_sim_qp_activate(qp);
	}
}
