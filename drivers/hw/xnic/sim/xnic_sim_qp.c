// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_sim: QPs.  The legal transitions, the engine's active list
 * (a QP with send work, a wait or something to flush is on it), moving a
 * QP to ERR because of an error (any engine), flushing a QP in ERR
 * (its own engine): its posted WQEs complete with WR_FLUSH_ERR; and the
 * QP commands (CREATE_QP, MODIFY_QP, QUERY_QP, DESTROY_QP; dispatched by
 * xnic_sim_obj_cmd()).
 */
#include <linux/kernel.h>
#include <linux/bitops.h>
#include <linux/slab.h>
#include <linux/string.h>
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
		xnic_sim_count(dev, XNIC_SIM_CTR_err_flush, 1);
		xnic_sim_cq_post(qp->scq, &info, false);
		(*quota)--;
		did = true;
	}

	/* first the receive WQE a message on the wire holds */
	if (*quota && xnic_sim_wresp_flush_held(dev, qp)) {
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
		xnic_sim_count(dev, XNIC_SIM_CTR_err_flush, 1);
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

/* ------------------------------------------------------------------ */
/* Queue pairs                                                         */

/* What CREATE_QP found for the QP: its CQs, SRQ and doorbell page. */
struct xnic_sim_qp_args {
	const struct xnic_cmd_create_qp *in;
	struct xnic_sim_cq *scq;
	struct xnic_sim_cq *rcq;
	struct xnic_sim_srq *srq;
	struct xnic_sim_db *db;
};

/* What every QP starts with, an XRC_TGT QP's all. */
static void xnic_sim_qp_init_common(struct xnic_sim_dev *dev,
				    struct xnic_sim_qp *qp,
				    const struct xnic_cmd_create_qp *in)
{
	qp->dev = dev;
	qp->qpn = le32_to_cpu(in->qpn);
	qp->type = in->qp_type;
	qp->state = XNIC_QPS_RESET;
	qp->mtu = XNIC_MTU_4096;
	qp->port = 1;
	INIT_LIST_HEAD(&qp->active_node);
	INIT_LIST_HEAD(&qp->err_node);
	spin_lock_init(&qp->lock);
	atomic64_set(&qp->rx_ops, 0);
	atomic64_set(&qp->rx_bytes, 0);
}

static u32 xnic_sim_xrc_tgt_init(struct xnic_sim_dev *dev, void *obj,
				 const void *arg)
{
	const struct xnic_cmd_create_qp *in = arg;
	struct xnic_sim_qp *qp = obj;

	xnic_sim_qp_init_common(dev, qp, in);
	qp->xrcdn = le32_to_cpu(in->xrcdn);
	return XNIC_CMD_OK;
}

static const struct xnic_sim_obj_type xnic_sim_xrc_tgt_type = {
	.size = sizeof(struct xnic_sim_qp),
	.init = xnic_sim_xrc_tgt_init,
};

static u32 xnic_sim_qp_init(struct xnic_sim_dev *dev, void *obj,
			    const void *arg)
{
	const struct xnic_sim_qp_args *a = arg;
	const struct xnic_cmd_create_qp *in = a->in;
	struct xnic_sim_qp *qp = obj;

	xnic_sim_qp_init_common(dev, qp, in);
	qp->pdn = le32_to_cpu(in->pdn);
	qp->kernel = le32_to_cpu(in->db_index) == 0;
	qp->sig_all = !!in->sq_sig_all;
	qp->scq = a->scq;
	qp->rcq = a->rcq;
	qp->srq = a->srq;
	qp->db = a->db;
	qp->slot = le32_to_cpu(in->db_slot);
	qp->dbrec = le64_to_cpu(in->dbrec_addr);
	qp->sq_addr = le64_to_cpu(in->sq_addr);
	qp->sq_log = in->sq_log_wqe;
	qp->sq_shift = in->sq_wqe_shift;
	if (!a->srq && in->qp_type != XNIC_QPT_XRC_INI) {
		qp->rq_addr = le64_to_cpu(in->rq_addr);
		qp->rq_log = in->rq_log_wqe;
		qp->rq_shift = in->rq_wqe_shift;
	}
	return XNIC_CMD_OK;
}

static const struct xnic_sim_obj_type xnic_sim_qp_type = {
	.size = sizeof(struct xnic_sim_qp),
	.init = xnic_sim_qp_init,
};

/*
 * CREATE_QP of an XRC_TGT QP: a number, a domain, nothing else (no
 * queues, CQs, doorbell slot or PD; those fields are ignored).
 */
static u32 xnic_sim_cmd_create_xrc_tgt(struct xnic_sim_dev *dev,
				       const struct xnic_cmd_create_qp *in)
{
	u32 qpn = le32_to_cpu(in->qpn), xrcdn = le32_to_cpu(in->xrcdn);

	if (qpn == XNIC_GSI_QPN || in->reserved2 || !xrcdn ||
	    xrcdn >= (1U << XNIC_SIM_IDX_BITS))
		return XNIC_CMD_BAD_PARAM;
	return xnic_sim_obj_create(dev, &dev->qps, qpn, &xnic_sim_xrc_tgt_type,
				   in, NULL);
}

u32 xnic_sim_cmd_create_qp(struct xnic_sim_dev *dev,
			   const struct xnic_cmd_create_qp *in)
{
	u32 qpn = le32_to_cpu(in->qpn), srqn = le32_to_cpu(in->srqn);
	u32 dbi = le32_to_cpu(in->db_index), slot = le32_to_cpu(in->db_slot);
	u64 sq = le64_to_cpu(in->sq_addr), rq = le64_to_cpu(in->rq_addr);
	u64 dbrec = le64_to_cpu(in->dbrec_addr);
	bool ini = in->qp_type == XNIC_QPT_XRC_INI;
	struct xnic_sim_qp ***chunkp;
	struct xnic_sim_srq *srq = NULL;
	struct xnic_sim_cq *scq, *rcq = NULL;
	struct xnic_sim_qp_args args;
	struct xnic_sim_db *db;
	void *obj;
	u32 st;

	if (in->qp_type == XNIC_QPT_XRC_TGT)
		return xnic_sim_cmd_create_xrc_tgt(dev, in);
	if ((in->qp_type != XNIC_QPT_RC && in->qp_type != XNIC_QPT_UC &&
	     in->qp_type != XNIC_QPT_UD && in->qp_type != XNIC_QPT_GSI &&
	     !ini) ||
	    /* QPN 1 is the GSI QP's, and only its */
	    (in->qp_type == XNIC_QPT_GSI ? qpn != XNIC_GSI_QPN :
	     qpn == XNIC_GSI_QPN) ||
	    in->xrcdn || in->reserved2 ||
	    /* an XRC_INI QP has no receive side: its RQ fields are ignored */
	    (ini && srqn != XNIC_NO_SRQ) ||
	    in->sq_log_wqe > XNIC_SIM_MAX_LOG_WQE ||
	    in->sq_wqe_shift < XNIC_SQ_WQE_MIN_SHIFT ||
	    in->sq_wqe_shift > XNIC_SIM_MAX_WQE_SHIFT ||
	    !xnic_sim_addr_ok(sq, 1ULL << (in->sq_log_wqe + in->sq_wqe_shift),
			      8) ||
	    !xnic_sim_addr_ok(dbrec, sizeof(struct xnic_qp_dbrec), 8) ||
	    dbi >= XNIC_SIM_MAX_DB || slot >= XNIC_DB_SLOTS)
		return XNIC_CMD_BAD_PARAM;
	if (srqn == XNIC_NO_SRQ && !ini &&
	    (in->rq_log_wqe > XNIC_SIM_MAX_LOG_WQE ||
	     in->rq_wqe_shift < XNIC_RQ_WQE_MIN_SHIFT ||
	     in->rq_wqe_shift > XNIC_SIM_MAX_WQE_SHIFT ||
	     !xnic_sim_addr_ok(rq, 1ULL << (in->rq_log_wqe + in->rq_wqe_shift),
			       8)))
		return XNIC_CMD_BAD_PARAM;
	scq = xnic_sim_tbl_get(&dev->cqs, le32_to_cpu(in->send_cqn));
	if (!ini)
		rcq = xnic_sim_tbl_get(&dev->cqs, le32_to_cpu(in->recv_cqn));
	db = dev->db[dbi];
	if (srqn != XNIC_NO_SRQ) {
		srq = xnic_sim_tbl_get(&dev->srqs, srqn);
		/* an XRC SRQ takes no QP: requests name it */
		if (srq && srq->type != XNIC_SRQT_BASIC)
			return XNIC_CMD_BAD_PARAM;
	}
	if (!scq || (!rcq && !ini) || !db || (srqn != XNIC_NO_SRQ && !srq) ||
	    xnic_sim_tbl_get(&dev->qps, qpn))
		return XNIC_CMD_BAD_INDEX;
	chunkp = &db->slot[slot / XNIC_SIM_DB_CHUNK];
	if (*chunkp && (*chunkp)[slot % XNIC_SIM_DB_CHUNK])
		return XNIC_CMD_BAD_INDEX;
	if (!*chunkp) {
		*chunkp = kcalloc(XNIC_SIM_DB_CHUNK, sizeof(**chunkp),
				  GFP_KERNEL);
		if (!*chunkp)
			return XNIC_CMD_NO_RESOURCES;
	}
	args = (struct xnic_sim_qp_args) {
		.in = in, .scq = scq, .rcq = rcq, .srq = srq, .db = db,
	};
	st = xnic_sim_obj_create(dev, &dev->qps, qpn, &xnic_sim_qp_type, &args,
				 &obj);
	if (st != XNIC_CMD_OK)
		return st;
	(*chunkp)[slot % XNIC_SIM_DB_CHUNK] = obj;
	db->nqps++;
	scq->users++;
	if (rcq)
		rcq->users++;
	if (srq)
		srq->users++;
	return XNIC_CMD_OK;
}

/* Unlink a QP from everything its engine and its doorbell page know. */
static void xnic_sim_qp_unlink(struct xnic_sim_dev *dev,
			       struct xnic_sim_qp *qp)
{
	struct xnic_sim_qp **chunk;

	if (!qp->db)	/* XRC_TGT */
		return;
	chunk = qp->db->slot[qp->slot / XNIC_SIM_DB_CHUNK];
	chunk[qp->slot % XNIC_SIM_DB_CHUNK] = NULL;
	qp->db->nqps--;
	xnic_sim_qp_deactivate(qp);
	if (qp->on_err) {
		list_del(&qp->err_node);
		qp->on_err = false;
	}
}

u32 xnic_sim_cmd_destroy_qp(struct xnic_sim_dev *dev, u32 qpn)
{
	struct xnic_sim_tbl_chunk *empty = NULL;
	struct xnic_sim_qp *qp = xnic_sim_tbl_get(&dev->qps, qpn);

	if (!qp)
		return XNIC_CMD_BAD_INDEX;
	spin_lock(&qp->lock);
	WRITE_ONCE(qp->state, XNIC_QPS_RESET);
	spin_unlock(&qp->lock);
	xnic_sim_tbl_erase(&dev->qps, qpn, &empty);
	xnic_sim_qp_unlink(dev, qp);
	xnic_sim_mcg_detach_qp(dev, qpn);
	xnic_sim_sect_sync(dev);
	xnic_sim_tbl_free_chunk(empty);
	if (qp->scq)
		qp->scq->users--;
	if (qp->rcq)
		qp->rcq->users--;
	if (qp->srq)
		qp->srq->users--;
	kfree(qp->wreq);
	if (qp->wresp)
		xnic_sim_wresp_reset(qp);	/* off the answer list */
	kfree(qp->wresp);
	kfree_rcu(qp, rcu);
	return XNIC_CMD_OK;
}

/*
 * Whether an RC or UC QP's remote port is on the wire (*@on): the AV's
 * GID is neither this port's nor its cabled peer's (@rdev NULL) and the
 * port is attached.  Such a QP gets its transport state (kept until it is
 * destroyed; a later AV may take it back to the cable).  XRC is not
 * carried on the wire (no XRCETH yet): an XRC QP's AV must reach a port
 * of the cable.  Return: 0, -EOPNOTSUPP (XRC) or -ENOMEM.
 */
static int xnic_sim_qp_wire_set(struct xnic_sim_dev *dev,
				struct xnic_sim_qp *qp,
				struct xnic_sim_dev *rdev, bool *on)
{
	bool wire = !rdev && xnic_sim_wire_on(dev) &&
		    !xnic_sim_qpt_ud(qp->type);

	if (wire && (qp->type == XNIC_QPT_XRC_INI ||
		     qp->type == XNIC_QPT_XRC_TGT))
		return -EOPNOTSUPP;
	if (wire && !qp->wreq) {
		qp->wreq = kzalloc(sizeof(*qp->wreq), GFP_KERNEL);
		if (!qp->wreq)
			return -ENOMEM;
	}
	if (wire && !qp->wresp) {
		qp->wresp = kzalloc(sizeof(*qp->wresp), GFP_KERNEL);
		if (!qp->wresp)
			return -ENOMEM;
	}
	*on = wire;
	return 0;
}

u32 xnic_sim_cmd_modify_qp(struct xnic_sim_dev *dev,
			   const struct xnic_cmd_modify_qp *in)
{
	struct xnic_sim_qp *qp = xnic_sim_tbl_get(&dev->qps,
						  le32_to_cpu(in->qpn));
	u32 mask = le32_to_cpu(in->mask);
	struct xnic_sim_dev *rdev = NULL;
	bool wire = false;
	u8 cur, next;
	int err;

	if (!qp)
		return XNIC_CMD_BAD_INDEX;
	cur = READ_ONCE(qp->state);
	next = mask & XNIC_QP_MOD_STATE ? in->state : cur;
	if ((mask & XNIC_QP_MOD_STATE) && !xnic_sim_qp_trans_ok(cur, next))
		return XNIC_CMD_BAD_STATE;
	if (((mask & XNIC_QP_MOD_PATH_MTU) &&
	     (in->path_mtu < XNIC_MTU_256 || in->path_mtu > XNIC_MTU_4096)) ||
	    ((mask & XNIC_QP_MOD_MAX_RD_ATOMIC) &&
	     in->max_rd_atomic > XNIC_SIM_MAX_RD_ATOM) ||
	    ((mask & XNIC_QP_MOD_MAX_DEST_RD_ATOMIC) &&
	     in->max_dest_rd_atomic > XNIC_SIM_MAX_RD_ATOM) ||
	    ((mask & XNIC_QP_MOD_RETRY_CNT) && in->retry_cnt > 7) ||
	    ((mask & XNIC_QP_MOD_RNR_RETRY) && in->rnr_retry > 7) ||
	    ((mask & XNIC_QP_MOD_MIN_RNR_TIMER) && in->min_rnr_timer > 31) ||
	    ((mask & XNIC_QP_MOD_TIMEOUT) && in->timeout > 31) ||
	    ((mask & XNIC_QP_MOD_PORT) && in->port_num != 1) ||
	    ((mask & XNIC_QP_MOD_ACCESS) &&
	     le32_to_cpu(in->access) & ~XNIC_SIM_ACCESS_ALL) ||
	    ((mask & XNIC_QP_MOD_DEST_QPN) &&
	     le32_to_cpu(in->dest_qpn) >= (1U << XNIC_SIM_IDX_BITS)))
		return XNIC_CMD_BAD_PARAM;
	/* a wire QP's packets in flight keep what they depend on */
	if (next != XNIC_QPS_RESET && next != XNIC_QPS_ERR &&
	    !xnic_sim_wreq_modify_ok(qp, in, mask))
		return XNIC_CMD_BAD_STATE;
	/* the AV's source GID must be a valid entry of the port's table */
	if (mask & XNIC_QP_MOD_AV) {
		u8 sgid[16], type;

		if (!xnic_sim_sgid(dev, in->sgid_index, sgid, &type))
			return XNIC_CMD_BAD_PARAM;
		rdev = xnic_sim_gid_dev(dev, in->dgid);
		err = xnic_sim_qp_wire_set(dev, qp, rdev, &wire);
		if (err)
			return err == -ENOMEM ? XNIC_CMD_NO_RESOURCES :
						XNIC_CMD_BAD_PARAM;
	}

	if (mask & XNIC_QP_MOD_PATH_MTU)
		qp->mtu = in->path_mtu;
	if (mask & XNIC_QP_MOD_TIMEOUT)
		qp->timeout = in->timeout;
	if (mask & XNIC_QP_MOD_RETRY_CNT)
		qp->retry_cnt = in->retry_cnt;
	if (mask & XNIC_QP_MOD_RNR_RETRY)
		qp->rnr_retry = in->rnr_retry;
	if (mask & XNIC_QP_MOD_MIN_RNR_TIMER)
		WRITE_ONCE(qp->min_rnr_timer, in->min_rnr_timer);
	if (mask & XNIC_QP_MOD_MAX_RD_ATOMIC)
		qp->max_rd_atomic = in->max_rd_atomic;
	if (mask & XNIC_QP_MOD_MAX_DEST_RD_ATOMIC)
		WRITE_ONCE(qp->max_dest_rd_atomic, in->max_dest_rd_atomic);
	if (mask & XNIC_QP_MOD_QKEY)
		WRITE_ONCE(qp->qkey, le32_to_cpu(in->qkey));
	if (mask & XNIC_QP_MOD_RQ_PSN)
		WRITE_ONCE(qp->rq_psn, le32_to_cpu(in->rq_psn) & 0xffffff);
	if (mask & XNIC_QP_MOD_SQ_PSN)
		qp->sq_psn = le32_to_cpu(in->sq_psn) & 0xffffff;
	if (mask & XNIC_QP_MOD_DEST_QPN)
		WRITE_ONCE(qp->dest_qpn, le32_to_cpu(in->dest_qpn));
	if (mask & XNIC_QP_MOD_ACCESS)
		WRITE_ONCE(qp->access, le32_to_cpu(in->access));
	if (mask & XNIC_QP_MOD_PORT)
		qp->port = in->port_num;
	if (mask & XNIC_QP_MOD_AV) {
		memcpy(qp->dgid, in->dgid, sizeof(qp->dgid));
		qp->sgid_index = in->sgid_index;
		WRITE_ONCE(qp->rdev, rdev);
		WRITE_ONCE(qp->wire, wire);
	}
	xnic_sim_wreq_modify(qp, mask);
	if (!(mask & XNIC_QP_MOD_STATE) || next == cur)
		return XNIC_CMD_OK;

	spin_lock(&qp->lock);
	WRITE_ONCE(qp->state, next);
	if (next == XNIC_QPS_RESET)
		qp->rq_ci = 0;
	spin_unlock(&qp->lock);
	switch (next) {
	case XNIC_QPS_RESET:
		xnic_sim_qp_deactivate(qp);
		if (qp->on_err) {
			list_del(&qp->err_node);
			qp->on_err = false;
		}
		qp->sq_ci = 0;
		qp->sq_pi = 0;
		qp->wait_until = 0;
		qp->rnr_count = 0;
		qp->retry_count = 0;
		qp->fault_delayed = false;
		qp->last_wqe_sent = false;
		if (qp->wreq)
			xnic_sim_wreq_reset(qp);
		if (qp->wresp)
			xnic_sim_wresp_reset(qp);
		/* no operation of the peer still uses the old queues */
		xnic_sim_sect_sync(dev);
		break;
	case XNIC_QPS_ERR:
	case XNIC_QPS_RTS:
		/* an XRC_TGT QP has nothing to send or flush */
		if (qp->type != XNIC_QPT_XRC_TGT)
			xnic_sim_qp_activate(qp);
		break;
	case XNIC_QPS_SQD:
		/* a wire QP drains: its flights' timers keep running */
		if (READ_ONCE(qp->wire))
			xnic_sim_qp_activate(qp);
		break;
	default:
		break;
	}
	return XNIC_CMD_OK;
}

u32 xnic_sim_cmd_query_qp(struct xnic_sim_dev *dev, struct xnic_cmd *c)
{
	u32 qpn = le32_to_cpu(c->obj.index);
	struct xnic_sim_qp *qp = xnic_sim_tbl_get(&dev->qps, qpn);
	struct xnic_cmd_query_qp_out *o = &c->query_qp;

	if (!qp)
		return XNIC_CMD_BAD_INDEX;
	memset(c->raw, 0, sizeof(c->raw));
	o->index = cpu_to_le32(qpn);
	o->state = READ_ONCE(qp->state);
	o->sq_psn = cpu_to_le32(qp->sq_psn);
	o->rq_psn = cpu_to_le32(READ_ONCE(qp->rq_psn));
	return XNIC_CMD_OK;
}
