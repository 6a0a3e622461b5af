// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_sim: work queue entries, the device's side.  The driver encodes
 * send and receive WQEs (drivers/hw/xnic/xnic_wqe.c); this file decodes
 * the same formats -- Documentation/xnic/queues.rst, "Send WQE" and
 * "Receive WQE" (include/xrdma/xnic_hw.h's struct xnic_wqe_*, struct
 * xnic_rwqe) -- and fetches send WQEs from a QP's ring: their length and
 * validity, the decoded fields (struct xnic_sim_swqe), the payload they
 * move, which opcodes a QP type may run.  Changing a format means
 * changing both files and the chapter.  The requester (xnic_sim_req.c)
 * executes what is decoded here, the responder (xnic_sim_resp.c) takes
 * receive WQEs with xnic_sim_rwqe_len().
 */
#include <linux/string.h>
#include "xnic_sim.h"

/**
 * xnic_sim_swqe_len - bytes of a send WQE that hold information
 * @ctrl: its control segment (a private copy)
 * @wqe_size: the queue's WQE size
 *
 * Return: the length to copy (header and SGEs or inline data), or
 * -EINVAL if the entry cannot be valid: too many SGEs, too much inline
 * data, SGEs with inline data, or more than @wqe_size bytes.
 */
int xnic_sim_swqe_len(const struct xnic_wqe_ctrl *ctrl, u32 wqe_size)
{
	u32 data;

	if (ctrl->flags & XNIC_WQE_INLINE) {
		if (ctrl->num_sge)
			return -EINVAL;
		data = le32_to_cpu(ctrl->inline_len);
		if (data > XNIC_SIM_MAX_INLINE)
			return -EINVAL;
	} else {
		if (ctrl->num_sge > XNIC_SIM_MAX_SGE)
			return -EINVAL;
		data = ctrl->num_sge * sizeof(struct xnic_sge);
	}
	if (XNIC_WQE_DATA_OFF + data > wqe_size)
		return -EINVAL;
	return XNIC_WQE_DATA_OFF + data;
}

/**
 * xnic_sim_swqe_decode - decode a send WQE
 * @buf: private copy of xnic_sim_swqe_len() bytes (or more)
 * @w: result; its pointers point into @buf
 */
void xnic_sim_swqe_decode(const void *buf, struct xnic_sim_swqe *w)
{
	const struct xnic_wqe_ctrl *c = buf + XNIC_WQE_CTRL_OFF;
	const struct xnic_wqe_remote *r = buf + XNIC_WQE_REMOTE_OFF;
	const struct xnic_wqe_atomic *a = buf + XNIC_WQE_ATOMIC_OFF;
	const struct xnic_wqe_flush *fl = buf + XNIC_WQE_FLUSH_OFF;
	const struct xnic_wqe_ud *ud = buf + XNIC_WQE_UD_OFF;
	const struct xnic_wqe_xrc *xrc = buf + XNIC_WQE_XRC_OFF;
	const struct xnic_wqe_fr *fr = buf + XNIC_WQE_FR_OFF;
	const struct xnic_wqe_bind *bd = buf + XNIC_WQE_BIND_OFF;

	w->opcode = c->opcode;
	w->flags = c->flags;
	w->num_sge = (c->flags & XNIC_WQE_INLINE) ? 0 : c->num_sge;
	w->inline_len = (c->flags & XNIC_WQE_INLINE) ?
			le32_to_cpu(c->inline_len) : 0;
	w->wr_id = le64_to_cpu(c->wr_id);
	w->imm = c->imm_data;
	if (c->opcode == XNIC_OP_REG_MR) {
		w->fr.mtt_addr = le64_to_cpu(fr->mtt_addr);
		w->fr.iova = le64_to_cpu(fr->iova);
		w->fr.length = le64_to_cpu(fr->length);
		w->fr.key = le32_to_cpu(fr->key);
		w->fr.access = le32_to_cpu(fr->access);
		w->fr.npages = le32_to_cpu(fr->npages);
		w->fr.page_shift = fr->page_shift;
	} else if (c->opcode == XNIC_OP_BIND_MW) {
		w->bind.addr = le64_to_cpu(bd->addr);
		w->bind.length = le64_to_cpu(bd->length);
		w->bind.mr_key = le32_to_cpu(bd->mr_key);
		w->bind.mw_key = le32_to_cpu(bd->mw_key);
		w->bind.access = le32_to_cpu(bd->access);
		w->bind.flags = bd->flags;
	} else {
		w->remote_addr = le64_to_cpu(r->remote_addr);
		w->rkey = le32_to_cpu(r->rkey);
		w->compare_add = le64_to_cpu(a->compare_add);
		w->swap = le64_to_cpu(a->swap);
		w->flush_len = le32_to_cpu(fl->length);
		w->flush_type = fl->type;
		w->flush_level = fl->level;
		w->dest_qpn = le32_to_cpu(ud->dest_qpn);
		w->remote_srqn = le32_to_cpu(xrc->remote_srqn);
		w->qkey = le32_to_cpu(ud->qkey);
		memcpy(w->dgid, ud->dgid, sizeof(w->dgid));
		w->sgid_index = ud->sgid_index;
		w->hop_limit = ud->hop_limit;
		w->tclass = ud->traffic_class;
	}
	w->sge = buf + XNIC_WQE_DATA_OFF;
	w->inline_data = buf + XNIC_WQE_DATA_OFF;
}

/**
 * xnic_sim_swqe_bytes - payload bytes a decoded send WQE moves at most
 * @w: the WQE
 *
 * The inline length or the sum of the SGE lengths (the responder side
 * copies as much, plus a GRH for UD); an atomic's 8 bytes are within its
 * SGE.  Return: the bytes, up to 8 x 4 GiB.
 */
u64 xnic_sim_swqe_bytes(const struct xnic_sim_swqe *w)
{
	u64 n = w->inline_len;
	u32 i;

	for (i = 0; i < w->num_sge; i++)
		n += le32_to_cpu(w->sge[i].length);
	return n;
}

/**
 * xnic_sim_op_check - may this opcode run on this QP?
 * @qp_type: XNIC_QPT_*
 * @opcode: XNIC_OP_*
 * @kernel: the QP belongs to the kernel (REG_MR allowed)
 *
 * Return: 0 or XNIC_CQE_LOC_QP_OP_ERR.
 */
int xnic_sim_op_check(u8 qp_type, u8 opcode, bool kernel)
{
	switch (opcode) {
	case XNIC_OP_SEND:
	case XNIC_OP_SEND_WITH_IMM:
	case XNIC_OP_LOCAL_INV:
	case XNIC_OP_NOP:
		return 0;
	case XNIC_OP_REG_MR:
		return kernel ? 0 : XNIC_CQE_LOC_QP_OP_ERR;
	case XNIC_OP_RDMA_WRITE:
	case XNIC_OP_RDMA_WRITE_WITH_IMM:
		return xnic_sim_qpt_ud(qp_type) ? XNIC_CQE_LOC_QP_OP_ERR : 0;
	case XNIC_OP_BIND_MW:
		return xnic_sim_qpt_ud(qp_type) ? XNIC_CQE_LOC_QP_OP_ERR : 0;
	case XNIC_OP_RDMA_READ:
	case XNIC_OP_ATOMIC_CMP_AND_SWP:
	case XNIC_OP_ATOMIC_FETCH_AND_ADD:
	case XNIC_OP_SEND_WITH_INV:
	case XNIC_OP_ATOMIC_WRITE:
	case XNIC_OP_FLUSH:
		return xnic_sim_qpt_rc(qp_type) ? 0 : XNIC_CQE_LOC_QP_OP_ERR;
	default:
		return XNIC_CQE_LOC_QP_OP_ERR;
	}
}

/*
 * Whether the WQE at sq_ci is announced and owned by the device (a look,
 * without side effects: xnic_sim_sq_fetch() decides).
 */
bool xnic_sim_sq_ready(struct xnic_sim_qp *qp)
{
	u32 mask = (1U << qp->sq_log) - 1;
	u64 addr;

	if (qp->sq_ci == qp->sq_pi) {
		u32 pi = xnic_sim_rd32(qp->dbrec +
				       offsetof(struct xnic_qp_dbrec, sq_pi));

		if (xnic_sim_ring_avail(qp->sq_ci, pi, qp->sq_log) <= 0)
			return false;
	}
	addr = qp->sq_addr + ((u64)(qp->sq_ci & mask) << qp->sq_shift);
	return xnic_sim_wqe_owner_ok(xnic_sim_rd8(addr +
			offsetof(struct xnic_wqe_ctrl, owner)),
			qp->sq_ci, qp->sq_log);
}

/*
 * Fetch the WQE at SQ index @idx (sq_ci, or for a wire QP one past those
 * in flight: sq_ci <= @idx <= sq_pi) into the scratch buffer and decode
 * it.  Return: 1 fetched, 2 malformed (wr_id and opcode decoded), 0 the
 * queue holds nothing at @idx, -EINVAL the doorbell record or the entry
 * is not valid.
 */
int xnic_sim_sq_fetch_at(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
			 u32 idx)
{
	struct xnic_sim_scratch *scr = dev->scr;
	struct xnic_wqe_ctrl *ctrl = (void *)scr->wqe;
	u32 mask = (1U << qp->sq_log) - 1;
	u64 addr;
	int len;

	if (idx == qp->sq_pi) {
		u32 pi = xnic_sim_rd32(qp->dbrec +
				       offsetof(struct xnic_qp_dbrec, sq_pi));
		int n = xnic_sim_ring_avail(qp->sq_ci, pi, qp->sq_log);

		/* a producer index behind what was taken is not valid */
		if (n < 0 || (u32)n < idx - qp->sq_ci)
			return -EINVAL;
		qp->sq_pi = pi;
		if (pi == idx)
			return 0;
	}
	addr = qp->sq_addr + ((u64)(idx & mask) << qp->sq_shift);
	if (!xnic_sim_wqe_owner_ok(xnic_sim_rd8(addr +
			offsetof(struct xnic_wqe_ctrl, owner)),
			idx, qp->sq_log))
		return -EINVAL;
	dma_rmb();	/* the entry after its owner */
	if (!xnic_sim_dma_read(addr, scr->wqe, XNIC_WQE_DATA_OFF))
		return -EINVAL;
	len = xnic_sim_swqe_len(ctrl, 1U << qp->sq_shift);
	if (len < 0) {
		ctrl->flags &= ~XNIC_WQE_INLINE;
		ctrl->num_sge = 0;
		xnic_sim_swqe_decode(scr->wqe, &scr->w);
		return 2;
	}
	if (len > XNIC_WQE_DATA_OFF &&
	    !xnic_sim_dma_read(addr + XNIC_WQE_DATA_OFF,
			       scr->wqe + XNIC_WQE_DATA_OFF,
			       len - XNIC_WQE_DATA_OFF))
		return -EINVAL;
	xnic_sim_swqe_decode(scr->wqe, &scr->w);
	return 1;
}

/* Fetch the WQE at sq_ci (xnic_sim_sq_fetch_at()). */
int xnic_sim_sq_fetch(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp)
{
	return xnic_sim_sq_fetch_at(dev, qp, qp->sq_ci);
}

/**
 * xnic_sim_rwqe_len - bytes of a receive WQE that hold information
 * @hdr: its header (a private copy)
 * @wqe_size: the queue's WQE size
 *
 * Return: header and SGEs, or -EINVAL if they cannot fit.
 */
int xnic_sim_rwqe_len(const struct xnic_rwqe *hdr, u32 wqe_size)
{
	u32 len = sizeof(*hdr) + hdr->num_sge * sizeof(struct xnic_sge);

	if (hdr->num_sge > XNIC_SIM_MAX_SGE || len > wqe_size)
		return -EINVAL;
	return len;
}

/* Whether the opcode consumes a receive WQE (with its data). */
bool xnic_sim_op_is_send(u8 opcode)
{
	return opcode == XNIC_OP_SEND || opcode == XNIC_OP_SEND_WITH_IMM ||
	       opcode == XNIC_OP_SEND_WITH_INV;
}
