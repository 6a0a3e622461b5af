// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_sim: the command queue and the objects it manages, and reset.
 * Commands run in the device's engine thread, in order, between send
 * WQEs; object numbers are the driver's (24 bits), limits (max_qp, ...)
 * bound how many objects live at a time.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <xrdma/compat.h>
#include "xnic_sim.h"

#define XNIC_SIM_CMD_BATCH	8	/* commands per engine turn */

#define XNIC_SIM_ACCESS_ALL	(XNIC_ACCESS_LOCAL_WRITE |		\
				 XNIC_ACCESS_REMOTE_WRITE |		\
				 XNIC_ACCESS_REMOTE_READ |		\
				 XNIC_ACCESS_REMOTE_ATOMIC |		\
				 XNIC_ACCESS_FLUSH_GLOBAL |		\
				 XNIC_ACCESS_FLUSH_PERSISTENT)

/* Whether [addr, addr + len) can be DMA memory: aligned, backed. */
static bool xnic_sim_addr_ok(u64 addr, u64 len, u64 align)
{
	if (!addr || !len || addr & (align - 1) || addr + len < addr)
		return false;
	return pfn_valid(PHYS_PFN(addr)) && pfn_valid(PHYS_PFN(addr + len - 1));
}

static u32 xnic_sim_errno_status(int err)
{
	switch (err) {
	case 0:
		return XNIC_CMD_OK;
	case -EEXIST:
		return XNIC_CMD_BAD_INDEX;
	case -ENOSPC:
	case -ENOMEM:
		return XNIC_CMD_NO_RESOURCES;
	default:
		return XNIC_CMD_BAD_PARAM;
	}
}

/* ------------------------------------------------------------------ */
/* Device                                                              */

static u32 xnic_sim_cmd_query_caps(struct xnic_sim_dev *dev, struct xnic_cmd *c)
{
	struct xnic_cmd_query_caps_out *o = &c->caps;

	memset(c->raw, 0, sizeof(c->raw));
	put_unaligned_be64(dev->guid, &o->node_guid);
	o->max_mr_size = cpu_to_le64(XNIC_SIM_MAX_MR_SIZE);
	o->page_size_cap = cpu_to_le64(SZ_4K | SZ_2M | SZ_1G);
	o->vendor_id = cpu_to_le32(XNIC_SIM_VENDOR_ID);
	o->vendor_part_id = cpu_to_le32(XNIC_SIM_PART_ID);
	o->hw_ver = cpu_to_le32(XNIC_HW_VERSION);
	o->max_qp = cpu_to_le32(XNIC_SIM_MAX_QP);
	o->max_qp_wr = cpu_to_le32(1U << XNIC_SIM_MAX_LOG_WQE);
	o->max_sge = cpu_to_le32(XNIC_SIM_MAX_SGE);
	o->max_inline = cpu_to_le32(XNIC_SIM_MAX_INLINE);
	o->max_cq = cpu_to_le32(XNIC_SIM_MAX_CQ);
	o->max_cqe = cpu_to_le32(1U << XNIC_SIM_MAX_LOG_CQE);
	o->max_mr = cpu_to_le32(XNIC_SIM_MAX_MR);
	o->max_srq = cpu_to_le32(XNIC_SIM_MAX_SRQ);
	o->max_srq_wr = cpu_to_le32(1U << XNIC_SIM_MAX_LOG_WQE);
	o->max_rd_atom = cpu_to_le32(XNIC_SIM_MAX_RD_ATOM);
	o->max_fast_reg_pages = cpu_to_le32(XNIC_SIM_MAX_FR_PAGES);
	o->num_ports = cpu_to_le32(1);
	o->port_state = cpu_to_le32(XNIC_PORT_ACTIVE);
	o->port_mtu = cpu_to_le32(XNIC_MTU_4096);
	strscpy(o->fw_ver, "xnic_sim 1.0", sizeof(o->fw_ver));
	o->max_mw = cpu_to_le32(XNIC_SIM_MAX_MW);
	return XNIC_CMD_OK;
}

/* ------------------------------------------------------------------ */
/* Completion queues                                                   */

static u32 xnic_sim_cmd_create_cq(struct xnic_sim_dev *dev,
				  const struct xnic_cmd_create_cq *in)
{
	u32 cqn = le32_to_cpu(in->cqn), log = le32_to_cpu(in->log_cqe);
	u64 ring = le64_to_cpu(in->ring_addr);
	u64 dbrec = le64_to_cpu(in->dbrec_addr);
	u32 flags = le32_to_cpu(in->flags);
	struct xnic_sim_cq *cq;
	int err;

	if (log > XNIC_SIM_MAX_LOG_CQE || flags & ~XNIC_CQ_F_EVENTS ||
	    !xnic_sim_addr_ok(ring, sizeof(struct xnic_cqe) << log,
			      sizeof(struct xnic_cqe)) ||
	    !xnic_sim_addr_ok(dbrec, sizeof(struct xnic_cq_dbrec), 8))
		return XNIC_CMD_BAD_PARAM;
	if (xnic_sim_tbl_get(&dev->cqs, cqn))
		return XNIC_CMD_BAD_INDEX;
	cq = kzalloc(sizeof(*cq), GFP_KERNEL);
	if (!cq)
		return XNIC_CMD_NO_RESOURCES;
	cq->dev = dev;
	cq->cqn = cqn;
	cq->log = log;
	cq->ring = ring;
	cq->dbrec = dbrec;
	cq->flags = flags;
	cq->served = XNIC_SIM_ARM_NONE;
	spin_lock_init(&cq->lock);
	err = xnic_sim_tbl_insert(&dev->cqs, cqn, cq);
	if (err)
		kfree(cq);
	return xnic_sim_errno_status(err);
}

static u32 xnic_sim_cmd_destroy_cq(struct xnic_sim_dev *dev, u32 cqn)
{
	struct xnic_sim_tbl_chunk *empty = NULL;
	struct xnic_sim_cq *cq = xnic_sim_tbl_get(&dev->cqs, cqn);

	if (!cq)
		return XNIC_CMD_BAD_INDEX;
	if (cq->users)
		return XNIC_CMD_BUSY;
	xnic_sim_tbl_erase(&dev->cqs, cqn, &empty);
	xnic_sim_sect_sync(dev);
	xnic_sim_tbl_free_chunk(empty);
	kfree(cq);
	return XNIC_CMD_OK;
}

static u32 xnic_sim_cmd_resize_cq(struct xnic_sim_dev *dev,
				  const struct xnic_cmd_resize_cq *in)
{
	struct xnic_sim_cq *cq = xnic_sim_tbl_get(&dev->cqs,
						  le32_to_cpu(in->cqn));
	u32 log = le32_to_cpu(in->log_cqe);
	u64 ring = le64_to_cpu(in->ring_addr);
	u64 dbrec = le64_to_cpu(in->dbrec_addr);

	if (in->reserved || in->reserved2 || log > XNIC_SIM_MAX_LOG_CQE ||
	    !xnic_sim_addr_ok(ring, sizeof(struct xnic_cqe) << log,
			      sizeof(struct xnic_cqe)) ||
	    !xnic_sim_addr_ok(dbrec, sizeof(struct xnic_cq_dbrec), 8))
		return XNIC_CMD_BAD_PARAM;
	if (!cq)
		return XNIC_CMD_BAD_INDEX;
	return xnic_sim_cq_resize(cq, log, ring, dbrec) ? XNIC_CMD_BAD_STATE :
							   XNIC_CMD_OK;
}

/* ------------------------------------------------------------------ */
/* Queue pairs                                                         */

/*
 * CREATE_QP of an XRC_TGT QP: a number, a domain, nothing else (no
 * queues, CQs, doorbell slot or PD; those fields are ignored).
 */
static u32 xnic_sim_cmd_create_xrc_tgt(struct xnic_sim_dev *dev,
				       const struct xnic_cmd_create_qp *in)
{
	u32 qpn = le32_to_cpu(in->qpn), xrcdn = le32_to_cpu(in->xrcdn);
	struct xnic_sim_qp *qp;
	int err;

	if (qpn == XNIC_GSI_QPN || in->reserved2 || !xrcdn ||
	    xrcdn >= (1U << XNIC_SIM_IDX_BITS))
		return XNIC_CMD_BAD_PARAM;
	if (xnic_sim_tbl_get(&dev->qps, qpn))
		return XNIC_CMD_BAD_INDEX;
	qp = kzalloc(sizeof(*qp), GFP_KERNEL);
	if (!qp)
		return XNIC_CMD_NO_RESOURCES;
	qp->dev = dev;
	qp->qpn = qpn;
	qp->type = XNIC_QPT_XRC_TGT;
	qp->state = XNIC_QPS_RESET;
	qp->xrcdn = xrcdn;
	qp->mtu = XNIC_MTU_4096;
	qp->port = 1;
	INIT_LIST_HEAD(&qp->active_node);
	INIT_LIST_HEAD(&qp->err_node);
	spin_lock_init(&qp->lock);
	atomic64_set(&qp->rx_ops, 0);
	atomic64_set(&qp->rx_bytes, 0);
	err = xnic_sim_tbl_insert(&dev->qps, qpn, qp);
	if (err)
		kfree(qp);
	return xnic_sim_errno_status(err);
}

static u32 xnic_sim_cmd_create_qp(struct xnic_sim_dev *dev,
				  const struct xnic_cmd_create_qp *in)
{
	u32 qpn = le32_to_cpu(in->qpn), srqn = le32_to_cpu(in->srqn);
	u32 dbi = le32_to_cpu(in->db_index), slot = le32_to_cpu(in->db_slot);
	u64 sq = le64_to_cpu(in->sq_addr), rq = le64_to_cpu(in->rq_addr);
	u64 dbrec = le64_to_cpu(in->dbrec_addr);
	bool ini = in->qp_type == XNIC_QPT_XRC_INI;
	struct xnic_sim_qp ***chunkp, *qp;
	struct xnic_sim_srq *srq = NULL;
	struct xnic_sim_cq *scq, *rcq = NULL;
	struct xnic_sim_db *db;
	int err;

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

	qp = kzalloc(sizeof(*qp), GFP_KERNEL);
	if (!qp)
		return XNIC_CMD_NO_RESOURCES;
	qp->dev = dev;
	qp->qpn = qpn;
	qp->pdn = le32_to_cpu(in->pdn);
	qp->type = in->qp_type;
	qp->state = XNIC_QPS_RESET;
	qp->kernel = dbi == 0;
	qp->sig_all = !!in->sq_sig_all;
	qp->scq = scq;
	qp->rcq = rcq;
	qp->srq = srq;
	qp->db = db;
	qp->slot = slot;
	qp->dbrec = dbrec;
	qp->sq_addr = sq;
	qp->sq_log = in->sq_log_wqe;
	qp->sq_shift = in->sq_wqe_shift;
	if (!srq && !ini) {
		qp->rq_addr = rq;
		qp->rq_log = in->rq_log_wqe;
		qp->rq_shift = in->rq_wqe_shift;
	}
	qp->mtu = XNIC_MTU_4096;
	qp->port = 1;
	INIT_LIST_HEAD(&qp->active_node);
	INIT_LIST_HEAD(&qp->err_node);
	spin_lock_init(&qp->lock);
	atomic64_set(&qp->rx_ops, 0);
	atomic64_set(&qp->rx_bytes, 0);
	err = xnic_sim_tbl_insert(&dev->qps, qpn, qp);
	if (err) {
		kfree(qp);
		return xnic_sim_errno_status(err);
	}
	(*chunkp)[slot % XNIC_SIM_DB_CHUNK] = qp;
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

static u32 xnic_sim_cmd_destroy_qp(struct xnic_sim_dev *dev, u32 qpn)
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
	kfree_rcu(qp, rcu);
	return XNIC_CMD_OK;
}

static u32 xnic_sim_cmd_modify_qp(struct xnic_sim_dev *dev,
				  const struct xnic_cmd_modify_qp *in)
{
	struct xnic_sim_qp *qp = xnic_sim_tbl_get(&dev->qps,
						  le32_to_cpu(in->qpn));
	u32 mask = le32_to_cpu(in->mask);
	u8 cur, next;

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
	/* the AV's source GID must be a valid entry of the port's table */
	if (mask & XNIC_QP_MOD_AV) {
		u8 sgid[16], type;

		if (!xnic_sim_sgid(dev, in->sgid_index, sgid, &type))
			return XNIC_CMD_BAD_PARAM;
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
		WRITE_ONCE(qp->rdev, xnic_sim_gid_dev(dev, qp->dgid));
	}
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
		qp->last_wqe_sent = false;
		/* no operation of the peer still uses the old queues */
		xnic_sim_sect_sync(dev);
		break;
	case XNIC_QPS_ERR:
	case XNIC_QPS_RTS:
		/* an XRC_TGT QP has nothing to send or flush */
		if (qp->type != XNIC_QPT_XRC_TGT)
			xnic_sim_qp_activate(qp);
		break;
	default:
		break;
	}
	return XNIC_CMD_OK;
}

static u32 xnic_sim_cmd_query_qp(struct xnic_sim_dev *dev, struct xnic_cmd *c)
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

/* ------------------------------------------------------------------ */
/* Shared receive queues                                               */

static u32 xnic_sim_cmd_create_srq(struct xnic_sim_dev *dev,
				   const struct xnic_cmd_create_srq *in)
{
	u32 srqn = le32_to_cpu(in->srqn), xrcdn = le32_to_cpu(in->xrcdn);
	u32 cqn = le32_to_cpu(in->cqn);
	u64 ring = le64_to_cpu(in->ring_addr);
	u64 dbrec = le64_to_cpu(in->dbrec_addr);
	struct xnic_sim_cq *cq = NULL;
	struct xnic_sim_srq *srq;
	int err;

	if (in->reserved ||
	    (in->type == XNIC_SRQT_BASIC ? xrcdn || cqn :
	     in->type != XNIC_SRQT_XRC || !xrcdn ||
	     xrcdn >= (1U << XNIC_SIM_IDX_BITS)) ||
	    in->log_wqe > XNIC_SIM_MAX_LOG_WQE ||
	    in->wqe_shift < XNIC_RQ_WQE_MIN_SHIFT ||
	    in->wqe_shift > XNIC_SIM_MAX_WQE_SHIFT ||
	    !xnic_sim_addr_ok(ring, 1ULL << (in->log_wqe + in->wqe_shift), 8) ||
	    !xnic_sim_addr_ok(dbrec, sizeof(struct xnic_qp_dbrec), 8))
		return XNIC_CMD_BAD_PARAM;
	if (in->type == XNIC_SRQT_XRC) {
		cq = xnic_sim_tbl_get(&dev->cqs, cqn);
		if (!cq)
			return XNIC_CMD_BAD_INDEX;
	}
	if (xnic_sim_tbl_get(&dev->srqs, srqn))
		return XNIC_CMD_BAD_INDEX;
	srq = kzalloc(sizeof(*srq), GFP_KERNEL);
	if (!srq)
		return XNIC_CMD_NO_RESOURCES;
	srq->dev = dev;
	srq->srqn = srqn;
	srq->pdn = le32_to_cpu(in->pdn);
	srq->type = in->type;
	srq->xrcdn = xrcdn;
	srq->cq = cq;
	srq->log = in->log_wqe;
	srq->shift = in->wqe_shift;
	srq->ring = ring;
	srq->dbrec = dbrec;
	srq->limit = le32_to_cpu(in->limit);
	spin_lock_init(&srq->lock);
	err = xnic_sim_tbl_insert(&dev->srqs, srqn, srq);
	if (err)
		kfree(srq);
	else if (cq)
		cq->users++;
	return xnic_sim_errno_status(err);
}

static u32 xnic_sim_cmd_modify_srq(struct xnic_sim_dev *dev,
				   const struct xnic_cmd_modify_srq *in)
{
	struct xnic_sim_srq *srq = xnic_sim_tbl_get(&dev->srqs,
						    le32_to_cpu(in->srqn));

	if (!srq)
		return XNIC_CMD_BAD_INDEX;
	spin_lock(&srq->lock);
	srq->limit = le32_to_cpu(in->limit);
	spin_unlock(&srq->lock);
	return XNIC_CMD_OK;
}

static u32 xnic_sim_cmd_resize_srq(struct xnic_sim_dev *dev,
				   const struct xnic_cmd_resize_srq *in)
{
	struct xnic_sim_srq *srq = xnic_sim_tbl_get(&dev->srqs,
						    le32_to_cpu(in->srqn));
	u64 ring = le64_to_cpu(in->ring_addr);
	u64 dbrec = le64_to_cpu(in->dbrec_addr);
	int ret;

	if (in->reserved[0] || in->reserved[1] || in->reserved[2] ||
	    in->log_wqe > XNIC_SIM_MAX_LOG_WQE ||
	    !xnic_sim_addr_ok(dbrec, sizeof(struct xnic_qp_dbrec), 8))
		return XNIC_CMD_BAD_PARAM;
	if (!srq)
		return XNIC_CMD_BAD_INDEX;
	/* the size is the owner's: only its engine changes it */
	if (in->log_wqe <= srq->log ||
	    !xnic_sim_addr_ok(ring, 1ULL << (in->log_wqe + srq->shift), 8))
		return XNIC_CMD_BAD_PARAM;
	ret = xnic_sim_srq_resize(srq, in->log_wqe, ring, dbrec);
	if (ret == -ENOMEM)
		return XNIC_CMD_NO_RESOURCES;
	return ret ? XNIC_CMD_BAD_STATE : XNIC_CMD_OK;
}

static u32 xnic_sim_cmd_destroy_srq(struct xnic_sim_dev *dev, u32 srqn)
{
	struct xnic_sim_tbl_chunk *empty = NULL;
	struct xnic_sim_srq *srq = xnic_sim_tbl_get(&dev->srqs, srqn);

	if (!srq)
		return XNIC_CMD_BAD_INDEX;
	if (srq->users)
		return XNIC_CMD_BUSY;
	xnic_sim_tbl_erase(&dev->srqs, srqn, &empty);
	/* requests that named it (XRC) are over after this */
	xnic_sim_sect_sync(dev);
	xnic_sim_tbl_free_chunk(empty);
	if (srq->cq)
		srq->cq->users--;
	kfree(srq);
	return XNIC_CMD_OK;
}

/* ------------------------------------------------------------------ */
/* Memory regions                                                      */

static void xnic_sim_mr_free(struct xnic_sim_mr *mr)
{
	kvfree(mr->mtt);
	kfree(mr);
}

/*
 * REG_MR with XNIC_MR_F_DM: [mtt_addr, mtt_addr + length) of the device
 * memory window, known as [iova, iova + length).
 */
static u32 xnic_sim_cmd_reg_dm_mr(struct xnic_sim_dev *dev,
				  const struct xnic_cmd_reg_mr *in)
{
	u64 off = le64_to_cpu(in->mtt_addr), length = le64_to_cpu(in->length);
	u64 iova = le64_to_cpu(in->iova);
	u32 key = le32_to_cpu(in->key);
	struct xnic_sim_mr *mr;
	int err;

	if (!dev->dm_pages || off > XNIC_SIM_DM_SIZE ||
	    length > XNIC_SIM_DM_SIZE - off || iova + length < iova ||
	    in->npages || in->page_shift)
		return XNIC_CMD_BAD_PARAM;
	if (xnic_sim_tbl_get(&dev->mrs, key >> 8))
		return XNIC_CMD_BAD_INDEX;
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return XNIC_CMD_NO_RESOURCES;
	mr->key = key;
	mr->pdn = le32_to_cpu(in->pdn);
	mr->access = le32_to_cpu(in->access);
	mr->flags = XNIC_MR_F_DM;
	mr->iova = iova;
	mr->length = length;
	mr->dm_dma = dev->dm_base + off;
	mr->valid = true;
	err = xnic_sim_tbl_insert(&dev->mrs, key >> 8, mr);
	if (err)
		xnic_sim_mr_free(mr);
	return xnic_sim_errno_status(err);
}

static u32 xnic_sim_cmd_reg_mr(struct xnic_sim_dev *dev,
			       const struct xnic_cmd_reg_mr *in)
{
	u32 key = le32_to_cpu(in->key), flags = le32_to_cpu(in->flags);
	u32 access = le32_to_cpu(in->access), n = le32_to_cpu(in->npages);
	u64 iova = le64_to_cpu(in->iova), length = le64_to_cpu(in->length);
	struct xnic_sim_mr *mr;
	u32 i;
	int err;

	if (flags & ~(XNIC_MR_F_ALL | XNIC_MR_F_FREG | XNIC_MR_F_DM) ||
	    hweight32(flags) > 1 ||
	    access & ~(XNIC_SIM_ACCESS_ALL | XNIC_ACCESS_MW_BIND))
		return XNIC_CMD_BAD_PARAM;
	/* persistence: only a registered MR of persistent memory (below) */
	if (flags && access & XNIC_ACCESS_FLUSH_PERSISTENT)
		return XNIC_CMD_BAD_PARAM;
	if (flags & XNIC_MR_F_DM)
		return xnic_sim_cmd_reg_dm_mr(dev, in);
	if ((flags & XNIC_MR_F_ALL) && access & ~XNIC_ACCESS_LOCAL_WRITE)
		return XNIC_CMD_BAD_PARAM;
	if ((flags & XNIC_MR_F_FREG) && (!n || n > XNIC_SIM_MAX_FR_PAGES))
		return XNIC_CMD_BAD_PARAM;

	if (!flags && xnic_sim_mr_params_ok(iova, length, n, in->page_shift,
					    XNIC_SIM_MAX_MR_SIZE))
		return XNIC_CMD_BAD_PARAM;
	if (xnic_sim_tbl_get(&dev->mrs, key >> 8))
		return XNIC_CMD_BAD_INDEX;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return XNIC_CMD_NO_RESOURCES;
	mr->key = key;
	mr->pdn = le32_to_cpu(in->pdn);
	mr->access = access;
	mr->flags = flags;
	if (flags & XNIC_MR_F_ALL) {
		mr->valid = true;
	} else {
		mr->max_pages = n;
		mr->page_shift = in->page_shift;
		if (n) {
			mr->mtt = kvcalloc(n, sizeof(u64),
					   GFP_KERNEL | __GFP_NOWARN);
			if (!mr->mtt) {
				kfree(mr);
				return XNIC_CMD_NO_RESOURCES;
			}
		}
	}
	if (!flags) {
		if (n && !xnic_sim_dma_read(le64_to_cpu(in->mtt_addr), mr->mtt,
					    (size_t)n * sizeof(u64)))
			goto bad;
		for (i = 0; i < n; i++)
			mr->mtt[i] = le64_to_cpu((__force __le64)mr->mtt[i]);
		if (xnic_sim_mtt_check(mr->mtt, n, in->page_shift))
			goto bad;
		if ((access & XNIC_ACCESS_FLUSH_PERSISTENT) &&
		    !xnic_sim_mtt_pmem(mr->mtt, n, in->page_shift))
			goto bad;
		mr->iova = iova;
		mr->length = length;
		mr->npages = n;
		mr->valid = true;
	}
	err = xnic_sim_tbl_insert(&dev->mrs, key >> 8, mr);
	if (err)
		xnic_sim_mr_free(mr);
	return xnic_sim_errno_status(err);
bad:
	xnic_sim_mr_free(mr);
	return XNIC_CMD_BAD_PARAM;
}

static u32 xnic_sim_cmd_dereg_mr(struct xnic_sim_dev *dev, u32 key)
{
	struct xnic_sim_tbl_chunk *empty = NULL;
	struct xnic_sim_mr *mr = xnic_sim_tbl_get(&dev->mrs, key >> 8);

	if (!mr || mr->mw_type)
		return XNIC_CMD_BAD_INDEX;
	/* windows are bound only by this engine: no new one can appear */
	if (atomic_read(&mr->binds))
		return XNIC_CMD_BUSY;
	xnic_sim_tbl_erase(&dev->mrs, key >> 8, &empty);
	/* operations of the peer that found it are over after this */
	xnic_sim_sect_sync(dev);
	xnic_sim_tbl_free_chunk(empty);
	xnic_sim_mr_free(mr);
	return XNIC_CMD_OK;
}

/* ------------------------------------------------------------------ */
/* Memory windows                                                      */

static u32 xnic_sim_cmd_alloc_mw(struct xnic_sim_dev *dev,
				 const struct xnic_cmd_alloc_mw *in)
{
	u32 key = le32_to_cpu(in->key);
	struct xnic_sim_mr *mw;
	int err;

	if ((in->type != XNIC_MW_TYPE_1 && in->type != XNIC_MW_TYPE_2) ||
	    memchr_inv(in->reserved, 0, sizeof(in->reserved)))
		return XNIC_CMD_BAD_PARAM;
	if (xnic_sim_tbl_get(&dev->mrs, key >> 8))
		return XNIC_CMD_BAD_INDEX;
	mw = kzalloc(sizeof(*mw), GFP_KERNEL);
	if (!mw)
		return XNIC_CMD_NO_RESOURCES;
	mw->key = key;
	mw->pdn = le32_to_cpu(in->pdn);
	mw->mw_type = in->type;
	mw->state = XNIC_SIM_MW_FREE;
	err = xnic_sim_tbl_insert(&dev->mrs, key >> 8, mw);
	if (err)
		kfree(mw);
	return xnic_sim_errno_status(err);
}

static u32 xnic_sim_cmd_dealloc_mw(struct xnic_sim_dev *dev, u32 key)
{
	struct xnic_sim_tbl_chunk *empty = NULL;
	struct xnic_sim_mr *mw = xnic_sim_tbl_get(&dev->mrs, key >> 8);

	if (!mw || !mw->mw_type)
		return XNIC_CMD_BAD_INDEX;
	xnic_sim_tbl_erase(&dev->mrs, key >> 8, &empty);
	/* no engine uses it or invalidates it any more after this */
	xnic_sim_sect_sync(dev);
	xnic_sim_tbl_free_chunk(empty);
	if (mw->state == XNIC_SIM_MW_VALID)
		atomic_dec(&mw->parent->binds);
	kfree(mw);
	return XNIC_CMD_OK;
}

/* ------------------------------------------------------------------ */
/* Doorbell pages                                                      */

static u32 xnic_sim_cmd_alloc_db(struct xnic_sim_dev *dev,
				 const struct xnic_cmd_alloc_db *in)
{
	u32 idx = le32_to_cpu(in->db_index);
	u64 addr = le64_to_cpu(in->page_addr);
	struct xnic_sim_db *db;

	if (idx >= XNIC_SIM_MAX_DB ||
	    !xnic_sim_addr_ok(addr, XNIC_DB_PAGE_SIZE, PAGE_SIZE))
		return XNIC_CMD_BAD_PARAM;
	if (dev->db[idx])
		return XNIC_CMD_BAD_INDEX;
	db = kzalloc(sizeof(*db), GFP_KERNEL);
	if (!db)
		return XNIC_CMD_NO_RESOURCES;
	db->index = idx;
	db->addr = addr;
	dev->db[idx] = db;
	dev->db_list[dev->n_db++] = db;
	return XNIC_CMD_OK;
}

static void xnic_sim_db_free(struct xnic_sim_db *db)
{
	u32 i;

	for (i = 0; i < XNIC_DB_GROUP_WORDS; i++)
		kfree(db->slot[i]);
	kfree(db);
}

static u32 xnic_sim_cmd_free_db(struct xnic_sim_dev *dev, u32 idx)
{
	struct xnic_sim_db *db;
	u32 i;

	if (idx >= XNIC_SIM_MAX_DB || !dev->db[idx])
		return XNIC_CMD_BAD_INDEX;
	db = dev->db[idx];
	if (db->nqps)
		return XNIC_CMD_BUSY;
	for (i = 0; i < dev->n_db; i++) {
		if (dev->db_list[i] == db) {
			dev->db_list[i] = dev->db_list[--dev->n_db];
			break;
		}
	}
	dev->db[idx] = NULL;
	xnic_sim_db_free(db);
	return XNIC_CMD_OK;
}

static u32 xnic_sim_cmd_set_gid(struct xnic_sim_dev *dev,
				const struct xnic_cmd_set_gid *in)
{
	if (in->valid > 1)
		return XNIC_CMD_BAD_PARAM;
	return xnic_sim_errno_status(xnic_sim_set_gid(dev,
						      le32_to_cpu(in->port),
						      le32_to_cpu(in->index),
						      in->gid, in->type,
						      in->valid));
}

/* ATTACH_MCAST, DETACH_MCAST: a UD QP of this device and a group GID. */
static u32 xnic_sim_cmd_mcast(struct xnic_sim_dev *dev,
			      const struct xnic_cmd_mcast *in, bool attach)
{
	u32 qpn = le32_to_cpu(in->qpn);
	struct xnic_sim_qp *qp = xnic_sim_tbl_get(&dev->qps, qpn);

	if (in->reserved)
		return XNIC_CMD_BAD_PARAM;
	if (!qp)
		return XNIC_CMD_BAD_INDEX;
	if (qp->type != XNIC_QPT_UD || !xnic_sim_gid_mcast(in->gid))
		return XNIC_CMD_BAD_PARAM;
	if (attach)
		return xnic_sim_errno_status(xnic_sim_mcg_attach(dev, qpn,
								 in->gid));
	return xnic_sim_errno_status(xnic_sim_mcg_detach(dev, qpn, in->gid));
}

/* QUERY_COUNTERS: DMA min(num, XNIC_CTR_NUM) counters to the driver. */
static u32 xnic_sim_cmd_query_counters(struct xnic_sim_dev *dev,
				       struct xnic_cmd_query_counters *io)
{
	u64 addr = le64_to_cpu(io->buf_addr);
	u32 n = min_t(u32, le32_to_cpu(io->num), XNIC_CTR_NUM);
	__le64 vals[XNIC_CTR_NUM];
	u32 i;

	if (!n || !addr || !IS_ALIGNED(addr, sizeof(__le64)) || io->written)
		return XNIC_CMD_BAD_PARAM;
	for (i = 0; i < n; i++)
		vals[i] = cpu_to_le64(xnic_sim_ctr_sum(dev, i));
	if (!xnic_sim_dma_write(addr, vals, n * sizeof(vals[0])))
		return XNIC_CMD_BAD_PARAM;
	io->written = cpu_to_le32(n);
	return XNIC_CMD_OK;
}

/* ------------------------------------------------------------------ */
/* The queue                                                           */

static u32 xnic_sim_cmd_exec(struct xnic_sim_dev *dev, struct xnic_cmd *c)
{
	switch (c->hdr.opcode) {
	case XNIC_CMD_QUERY_CAPS:
		return xnic_sim_cmd_query_caps(dev, c);
	case XNIC_CMD_CREATE_CQ:
		return xnic_sim_cmd_create_cq(dev, &c->create_cq);
	case XNIC_CMD_DESTROY_CQ:
		return xnic_sim_cmd_destroy_cq(dev, le32_to_cpu(c->obj.index));
	case XNIC_CMD_CREATE_QP:
		return xnic_sim_cmd_create_qp(dev, &c->create_qp);
	case XNIC_CMD_MODIFY_QP:
		return xnic_sim_cmd_modify_qp(dev, &c->modify_qp);
	case XNIC_CMD_QUERY_QP:
		return xnic_sim_cmd_query_qp(dev, c);
	case XNIC_CMD_DESTROY_QP:
		return xnic_sim_cmd_destroy_qp(dev, le32_to_cpu(c->obj.index));
	case XNIC_CMD_CREATE_SRQ:
		return xnic_sim_cmd_create_srq(dev, &c->create_srq);
	case XNIC_CMD_MODIFY_SRQ:
		return xnic_sim_cmd_modify_srq(dev, &c->modify_srq);
	case XNIC_CMD_DESTROY_SRQ:
		return xnic_sim_cmd_destroy_srq(dev, le32_to_cpu(c->obj.index));
	case XNIC_CMD_RESIZE_CQ:
		return xnic_sim_cmd_resize_cq(dev, &c->resize_cq);
	case XNIC_CMD_RESIZE_SRQ:
		return xnic_sim_cmd_resize_srq(dev, &c->resize_srq);
	case XNIC_CMD_REG_MR:
		return xnic_sim_cmd_reg_mr(dev, &c->reg_mr);
	case XNIC_CMD_DEREG_MR:
		return xnic_sim_cmd_dereg_mr(dev, le32_to_cpu(c->dereg_mr.key));
	case XNIC_CMD_ALLOC_MW:
		return xnic_sim_cmd_alloc_mw(dev, &c->alloc_mw);
	case XNIC_CMD_DEALLOC_MW:
		return xnic_sim_cmd_dealloc_mw(dev, le32_to_cpu(c->dereg_mr.key));
	case XNIC_CMD_ALLOC_DB:
		return xnic_sim_cmd_alloc_db(dev, &c->alloc_db);
	case XNIC_CMD_FREE_DB:
		return xnic_sim_cmd_free_db(dev, le32_to_cpu(c->alloc_db.db_index));
	case XNIC_CMD_SET_GID:
		return xnic_sim_cmd_set_gid(dev, &c->set_gid);
	case XNIC_CMD_ATTACH_MCAST:
		return xnic_sim_cmd_mcast(dev, &c->mcast, true);
	case XNIC_CMD_DETACH_MCAST:
		return xnic_sim_cmd_mcast(dev, &c->mcast, false);
	case XNIC_CMD_QUERY_COUNTERS:
		return xnic_sim_cmd_query_counters(dev, &c->query_counters);
	default:
		return XNIC_CMD_BAD_OPCODE;
	}
}

/* Execute one entry, write its results, set done, post CMD_DONE. */
static void xnic_sim_cmd_one(struct xnic_sim_dev *dev, u64 addr)
{
	struct xnic_cmd c;
	__le32 *done;
	u32 status;

	if (!xnic_sim_dma_read(addr, &c, sizeof(c))) {
		xnic_sim_count(dev, XS_CTR_cmd_errors, 1);
		return;
	}
	status = xnic_sim_cmd_exec(dev, &c);
	xnic_sim_count(dev, XS_CTR_commands, 1);
	if (status)
		xnic_sim_count(dev, XS_CTR_cmd_errors, 1);
	c.hdr.status = cpu_to_le32(status);
	xnic_sim_dma_write(addr + offsetof(struct xnic_cmd, raw), c.raw,
			   sizeof(c.raw));
	xnic_sim_dma_write(addr + offsetof(struct xnic_cmd, hdr.status),
			   &c.hdr.status, sizeof(c.hdr.status));
	done = xnic_sim_map(addr + offsetof(struct xnic_cmd, hdr.done));
	if (done) {
		dma_wmb();	/* status and outputs before done */
		WRITE_ONCE(*done, cpu_to_le32(1));
		xnic_sim_unmap(done);
	}
	xnic_sim_eq_post(dev, XNIC_EQE_CMD_DONE, le32_to_cpu(c.hdr.token), 0);
}

/**
 * xnic_sim_cmd_poll - execute commands the driver announced
 * @dev: device (its engine)
 *
 * A few per call, so the data path keeps moving.  Return: whether there
 * was anything to do.
 */
bool xnic_sim_cmd_poll(struct xnic_sim_dev *dev)
{
	u32 pi = READ_ONCE(dev->cmdq_pi), log = READ_ONCE(dev->cmdq_log);
	u64 base = READ_ONCE(dev->cmdq_base);
	int n = 0;

	if (pi == dev->cmd_ci)
		return false;
	if (xnic_sim_ring_avail(dev->cmd_ci, pi, log) < 0) {
		/* an impossible producer index: ignored */
		xnic_sim_count(dev, XS_CTR_cmd_errors, 1);
		dev->cmd_ci = pi;
		return true;
	}
	while (dev->cmd_ci != pi && n++ < XNIC_SIM_CMD_BATCH) {
		xnic_sim_cmd_one(dev, base + (u64)(dev->cmd_ci &
				 ((1U << log) - 1)) * sizeof(struct xnic_cmd));
		dev->cmd_ci++;
	}
	return true;
}

/* ------------------------------------------------------------------ */
/* Reset                                                               */

static void xnic_sim_qp_drop(void *p)
{
	struct xnic_sim_qp *qp = p;

	kfree_rcu(qp, rcu);
}

static void xnic_sim_plain_drop(void *p)
{
	kfree(p);
}

static void xnic_sim_mr_drop(void *p)
{
	xnic_sim_mr_free(p);
}

/* One object at a time, when no memory for xnic_sim_tbl_take() is left. */
static void xnic_sim_tbl_clear_slow(struct xnic_sim_dev *dev,
				    struct xnic_sim_tbl *t,
				    void (*fn)(void *p))
{
	u32 idx = 0;
	void *p;

	while ((p = xnic_sim_tbl_next(t, &idx))) {
		struct xnic_sim_tbl_chunk *empty = NULL;

		xnic_sim_tbl_erase(t, idx, &empty);
		xnic_sim_sect_sync(dev);
		xnic_sim_tbl_free_chunk(empty);
		fn(p);
	}
}

/**
 * xnic_sim_clear - drop every object of a device
 * @dev: device; called by its engine, or with no engine running
 */
void xnic_sim_clear(struct xnic_sim_dev *dev)
{
	struct xnic_sim_tbl *tbl[] = { &dev->qps, &dev->srqs, &dev->cqs,
				       &dev->mrs };
	void (*fn[])(void *p) = { xnic_sim_qp_drop, xnic_sim_plain_drop,
				  xnic_sim_plain_drop, xnic_sim_mr_drop };
	struct xnic_sim_tbl_chunk **old[ARRAY_SIZE(tbl)];
	struct xnic_sim_qp *qp;
	u32 idx = 0, i;

	/* QPs stop answering first */
	while ((qp = xnic_sim_tbl_next(&dev->qps, &idx))) {
		spin_lock(&qp->lock);
		WRITE_ONCE(qp->state, XNIC_QPS_RESET);
		spin_unlock(&qp->lock);
		idx++;
	}
	INIT_LIST_HEAD(&dev->active);
	INIT_LIST_HEAD(&dev->errq);
	xnic_sim_mcg_reset(dev);
	for (i = 0; i < ARRAY_SIZE(tbl); i++)
		old[i] = xnic_sim_tbl_take(tbl[i]);
	xnic_sim_sect_sync(dev);
	for (i = 0; i < ARRAY_SIZE(tbl); i++) {
		if (old[i])
			xnic_sim_tbl_drop(old[i], fn[i]);
		else
			xnic_sim_tbl_clear_slow(dev, tbl[i], fn[i]);
	}
	for (i = 0; i < dev->n_db; i++) {
		dev->db[dev->db_list[i]->index] = NULL;
		xnic_sim_db_free(dev->db_list[i]);
		dev->db_list[i] = NULL;
	}
	dev->n_db = 0;
}

/**
 * xnic_sim_do_reset - execute a RESET register write
 * @dev: device (its engine)
 *
 * Drops every object, forgets the queues, and reports READY again.
 */
void xnic_sim_do_reset(struct xnic_sim_dev *dev)
{
	u32 req = READ_ONCE(dev->reset_req);
	unsigned long flags;

	spin_lock_irqsave(&dev->eq_lock, flags);
	dev->eq_on = false;
	dev->eq_pi = 0;
	spin_unlock_irqrestore(&dev->eq_lock, flags);
	xnic_sim_clear(dev);
	xnic_sim_eth_reset(dev);
	xnic_sim_gid_reset(dev);
	spin_lock_irqsave(&dev->reg_lock, flags);
	dev->cmdq_base = 0;
	dev->cmdq_log = 0;
	dev->cmdq_pi = 0;
	dev->eq_base = 0;
	dev->eq_log = 0;
	dev->eq_ci = 0;
	dev->intr_mask = 1;
	dev->enable = 0;
	dev->cmd_ci = 0;
	if (READ_ONCE(dev->reset_req) == req)
		dev->status = XNIC_STATUS_READY;
	spin_unlock_irqrestore(&dev->reg_lock, flags);
	WRITE_ONCE(dev->reset_done, req);
	wake_up_all(&dev->reset_wq);
}
