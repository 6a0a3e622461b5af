// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_sim: the completion and event queue writers, used by every engine
 * (a responder's queues are written by the requester's engine): CQEs with
 * their arming and overruns, EQEs with the interrupt, and the tables of
 * completion opcodes and statuses.
 */
#include <linux/kernel.h>
#include <linux/math64.h>
#include "xnic_sim.h"

/*
 * Is the COMPLETION event @cq wrote last still in the queue (EQ_CI not
 * past it)?  Under eq_lock.
 */
static bool xnic_sim_cq_ev_queued(struct xnic_sim_dev *dev,
				  const struct xnic_sim_cq *cq)
{
	u32 ci = READ_ONCE(dev->eq_ci);

	return cq->ev_out && cq->ev_idx - ci < dev->eq_pi - ci;
}

/*
 * Write an event; for @cq's COMPLETION (@cq not NULL), none if its last
 * one is still queued: that one tells the driver about this CQE too, so a
 * CQ has at most one COMPLETION event in the queue however often it is
 * armed.  Return: whether the event was written or merged.
 */
static bool xnic_sim_eq_write(struct xnic_sim_dev *dev, u8 type, u32 data,
			      u32 aux, struct xnic_sim_cq *cq)
{
	struct xnic_eqe *e;
	unsigned long flags;
	u32 log;

	spin_lock_irqsave(&dev->eq_lock, flags);
	if (!dev->eq_on) {
		spin_unlock_irqrestore(&dev->eq_lock, flags);
		return false;
	}
	if (cq && xnic_sim_cq_ev_queued(dev, cq)) {
		spin_unlock_irqrestore(&dev->eq_lock, flags);
		return true;
	}
	log = dev->eq_log;
	if (xnic_sim_ring_full(dev->eq_pi, READ_ONCE(dev->eq_ci), log))
		goto fatal;
	e = xnic_sim_map(dev->eq_base +
			 (u64)(dev->eq_pi & ((1U << log) - 1)) * sizeof(*e));
	if (!e)
		goto fatal;
	e->type = type;
	e->data = cpu_to_le32(data);
	e->aux = cpu_to_le32(aux);
	e->reserved2 = 0;
	dma_wmb();	/* the body before the owner */
	WRITE_ONCE(e->owner, xnic_sim_hw_owner(dev->eq_pi, log));
	xnic_sim_unmap(e);
	if (cq) {
		cq->ev_idx = dev->eq_pi;
		cq->ev_out = true;
	}
	dev->eq_pi++;
	spin_unlock_irqrestore(&dev->eq_lock, flags);
	xnic_sim_count(dev, XNIC_SIM_CTR_eqes, 1);
	xnic_sim_raise_irq(dev);
	return true;

fatal:
	dev->eq_on = false;
	spin_unlock_irqrestore(&dev->eq_lock, flags);
	spin_lock_irqsave(&dev->reg_lock, flags);
	WRITE_ONCE(dev->status, dev->status | XNIC_STATUS_FATAL);
	spin_unlock_irqrestore(&dev->reg_lock, flags);
	xnic_sim_count(dev, XNIC_SIM_CTR_eq_overruns, 1);
	pr_err_ratelimited("xnic_sim %d: event queue overrun: device fatal\n",
			   dev->index);
	return false;
}

/**
 * xnic_sim_eq_post - write an event and raise the interrupt
 * @dev: device
 * @type: XNIC_EQE_*
 * @data: its data
 * @aux: its aux
 *
 * Any engine, any lock but eq_lock held.  An overrun makes the device
 * fatal.  Return: whether the event was written.
 */
bool xnic_sim_eq_post(struct xnic_sim_dev *dev, u8 type, u32 data, u32 aux)
{
	return xnic_sim_eq_write(dev, type, data, aux, NULL);
}

/**
 * xnic_sim_count_status - count an error completion by kind
 * @dev: device
 * @status: XNIC_CQE_*
 */
void xnic_sim_count_status(struct xnic_sim_dev *dev, u8 status)
{
	static const u8 map[] = {
		[XNIC_CQE_LOC_LEN_ERR] = XNIC_SIM_CTR_err_loc_len,
		[XNIC_CQE_LOC_QP_OP_ERR] = XNIC_SIM_CTR_err_loc_qp_op,
		[XNIC_CQE_LOC_PROT_ERR] = XNIC_SIM_CTR_err_loc_prot,
		[XNIC_CQE_MW_BIND_ERR] = XNIC_SIM_CTR_err_mw_bind,
		[XNIC_CQE_WR_FLUSH_ERR] = XNIC_SIM_CTR_err_flush,
		[XNIC_CQE_REM_INV_REQ_ERR] = XNIC_SIM_CTR_err_rem_inv_req,
		[XNIC_CQE_REM_ACCESS_ERR] = XNIC_SIM_CTR_err_rem_access,
		[XNIC_CQE_REM_OP_ERR] = XNIC_SIM_CTR_err_rem_op,
		[XNIC_CQE_RETRY_EXC_ERR] = XNIC_SIM_CTR_err_retry_exc,
		[XNIC_CQE_RNR_RETRY_EXC_ERR] = XNIC_SIM_CTR_err_rnr_retry_exc,
	};

	if (!status)
		return;
	if (status < ARRAY_SIZE(map) && map[status])
		xnic_sim_count(dev, map[status], 1);
	else
		xnic_sim_count(dev, XNIC_SIM_CTR_err_other, 1);
}

/**
 * xnic_sim_cq_post - write a CQE
 * @cq: the CQ
 * @info: its contents
 * @solicited: a receive of a solicited message (for SOLICITED arming)
 *
 * Any engine.  A full ring is an overrun: CQ_ERR is raised and the CQ
 * takes no more entries.  An armed CQ's COMPLETION event is not written
 * while its previous one is still in the event queue: the CQ's arms
 * (stores to user memory) cannot fill the queue.  Return: 0, or -ENOSPC
 * (overrun).
 */
int xnic_sim_cq_post(struct xnic_sim_cq *cq,
		     const struct xnic_sim_cqe_info *info, bool solicited)
{
	struct xnic_sim_dev *dev = cq->dev;
	struct xnic_cq_dbrec *rec;
	struct xnic_cqe *c;
	bool fire = false;
	u32 ci, arm = 0;

	spin_lock(&cq->lock);
	if (cq->overrun)
		goto overrun;
	rec = xnic_sim_map(cq->dbrec);
	if (!rec)
		goto overrun;
	ci = le32_to_cpu(READ_ONCE(rec->ci));
	if (xnic_sim_ring_full(cq->pi, ci, cq->log)) {
		xnic_sim_unmap(rec);
		cq->overrun = true;
		xnic_sim_count(dev, XNIC_SIM_CTR_cq_overruns, 1);
		xnic_sim_eq_post(dev, XNIC_EQE_CQ_ERR, cq->cqn, 0);
		goto overrun;
	}
	c = xnic_sim_map(cq->ring +
			 (u64)(cq->pi & ((1U << cq->log) - 1)) * sizeof(*c));
	if (!c) {
		xnic_sim_unmap(rec);
		goto overrun;
	}
	c->wr_id = cpu_to_le64(info->wr_id);
	c->byte_len = cpu_to_le32(info->byte_len);
	c->imm_data = info->imm;
	c->qpn = cpu_to_le32(info->qpn);
	c->src_qp = cpu_to_le32(info->src_qp);
	c->status = info->status;
	c->opcode = info->opcode;
	c->flags = info->flags;
	c->timestamp = cpu_to_le32(xnic_sim_clock_us(dev));
	dma_wmb();	/* the body before the owner */
	WRITE_ONCE(c->owner, xnic_sim_hw_owner(cq->pi, cq->log));
	xnic_sim_unmap(c);
	cq->pi++;
	if (cq->flags & XNIC_CQ_F_EVENTS) {
		/* the CQE before the arm word (pairs with the consumer) */
		smp_mb();
		arm = le32_to_cpu(READ_ONCE(rec->arm));
		fire = xnic_sim_arm_fire(arm, &cq->served, solicited,
					 info->status != XNIC_CQE_SUCCESS);
	}
	xnic_sim_unmap(rec);
	if (fire)
		xnic_sim_eq_write(dev, XNIC_EQE_COMPLETION, cq->cqn, 0, cq);
	spin_unlock(&cq->lock);
	xnic_sim_count(dev, XNIC_SIM_CTR_cqes, 1);
	return 0;

overrun:
	spin_unlock(&cq->lock);
	return -ENOSPC;
}

/**
 * xnic_sim_cq_resize - move a CQ to a new ring and record (RESIZE_CQ)
 * @cq: the CQ
 * @log: log2 of the new ring's size
 * @ring: DMA address of the new ring (checked by the caller)
 * @dbrec: DMA address of the new doorbell record
 *
 * Under the CQ's writer lock, so no CQE is written between the copy and
 * the switch.  Entry k of the new ring, for the free-running index i =
 * ci + k: a copy of CQE i with the owner of the new size when i is before
 * the producer index, else an owner that reads as invalid for i.  The
 * record (ci, arm) is copied; pi and the served arm_sn stay.
 *
 * Return: 0, -ENOSPC if the new ring cannot hold the CQEs from ci on (or
 * ci is impossible), -EIO for an overrun CQ or an unreadable record.
 */
int xnic_sim_cq_resize(struct xnic_sim_cq *cq, u32 log, u64 ring, u64 dbrec)
{
	struct xnic_cq_dbrec rec;
	struct xnic_cqe e;
	u32 k, n, ci;
	int ret = 0;

	spin_lock(&cq->lock);
	if (cq->overrun || !xnic_sim_dma_read(cq->dbrec, &rec, sizeof(rec))) {
		ret = -EIO;
		goto out;
	}
	ci = le32_to_cpu(rec.ci);
	n = cq->pi - ci;
	if (n > (1U << log) || n > (1U << cq->log)) {
		ret = -ENOSPC;
		goto out;
	}
	for (k = 0; k < (1U << log); k++) {
		u32 i = ci + k;
		u64 to = ring + (u64)(i & ((1U << log) - 1)) * sizeof(e);
		u8 owner = xnic_sim_hw_owner(i, log);

		if (k < n) {
			if (!xnic_sim_dma_read(cq->ring + (u64)(i &
					       ((1U << cq->log) - 1)) *
					       sizeof(e), &e, sizeof(e)))
				memset(&e, 0, sizeof(e));
			e.owner = owner;
			xnic_sim_dma_write(to, &e, sizeof(e));
		} else {
			owner ^= 1;
			xnic_sim_dma_write(to + offsetof(struct xnic_cqe, owner),
					   &owner, 1);
		}
	}
	xnic_sim_dma_write(dbrec, &rec, sizeof(rec));
	cq->ring = ring;
	cq->dbrec = dbrec;
	cq->log = log;
out:
	spin_unlock(&cq->lock);
	return ret;
}

/**
 * xnic_sim_arm_fire - does a new CQE raise the completion event?
 * @arm: the CQ doorbell record's arm word (CPU order)
 * @served: the last arm_sn served; updated when the event fires
 * @solicited: the CQE is a receive of a solicited message
 * @error: the CQE has an error status
 *
 * An arm word with a new arm_sn fires once: NEXT on any CQE, SOLICITED on
 * a solicited receive or an error.
 */
bool xnic_sim_arm_fire(u32 arm, u32 *served, bool solicited, bool error)
{
	u32 cond = arm & (XNIC_CQ_ARM_NEXT | XNIC_CQ_ARM_SOLICITED);
	u32 sn = arm >> 2;

	if (!cond || sn == *served)
		return false;
	if (!(cond & XNIC_CQ_ARM_NEXT) && !solicited && !error)
		return false;
	*served = sn;
	return true;
}

/**
 * xnic_sim_cqe_opcode - completion opcode of a send WQE's opcode
 * @wqe_opcode: XNIC_OP_*
 */
u8 xnic_sim_cqe_opcode(u8 wqe_opcode)
{
	switch (wqe_opcode) {
	case XNIC_OP_RDMA_WRITE:
	case XNIC_OP_RDMA_WRITE_WITH_IMM:
		return XNIC_CQE_OP_RDMA_WRITE;
	case XNIC_OP_RDMA_READ:
		return XNIC_CQE_OP_RDMA_READ;
	case XNIC_OP_ATOMIC_CMP_AND_SWP:
		return XNIC_CQE_OP_COMP_SWAP;
	case XNIC_OP_ATOMIC_FETCH_AND_ADD:
		return XNIC_CQE_OP_FETCH_ADD;
	case XNIC_OP_LOCAL_INV:
		return XNIC_CQE_OP_LOCAL_INV;
	case XNIC_OP_REG_MR:
		return XNIC_CQE_OP_REG_MR;
	case XNIC_OP_BIND_MW:
		return XNIC_CQE_OP_BIND_MW;
	case XNIC_OP_ATOMIC_WRITE:
		return XNIC_CQE_OP_ATOMIC_WRITE;
	case XNIC_OP_FLUSH:
		return XNIC_CQE_OP_FLUSH;
	default:
		return XNIC_CQE_OP_SEND;
	}
}

/**
 * xnic_sim_status_name - short name of a CQE status, for counters
 * @status: XNIC_CQE_*
 */
const char *xnic_sim_status_name(u8 status)
{
	switch (status) {
	case XNIC_CQE_SUCCESS:		return "success";
	case XNIC_CQE_LOC_LEN_ERR:	return "loc_len_err";
	case XNIC_CQE_LOC_QP_OP_ERR:	return "loc_qp_op_err";
	case XNIC_CQE_LOC_PROT_ERR:	return "loc_prot_err";
	case XNIC_CQE_WR_FLUSH_ERR:	return "wr_flush_err";
	case XNIC_CQE_MW_BIND_ERR:	return "mw_bind_err";
	case XNIC_CQE_BAD_RESP_ERR:	return "bad_resp_err";
	case XNIC_CQE_LOC_ACCESS_ERR:	return "loc_access_err";
	case XNIC_CQE_REM_INV_REQ_ERR:	return "rem_inv_req_err";
	case XNIC_CQE_REM_ACCESS_ERR:	return "rem_access_err";
	case XNIC_CQE_REM_OP_ERR:	return "rem_op_err";
	case XNIC_CQE_RETRY_EXC_ERR:	return "retry_exc_err";
	case XNIC_CQE_RNR_RETRY_EXC_ERR: return "rnr_retry_exc_err";
	case XNIC_CQE_GENERAL_ERR:	return "general_err";
	default:			return NULL;
	}
}
