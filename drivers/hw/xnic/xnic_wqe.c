// SPDX-License-Identifier: GPL-2.0
/*
 * xnic: work requests to WQEs.  Send and receive WQE encoding, the sizes
 * of WQEs for a queue's capabilities, access flags.  Nothing here touches
 * the device or sleeps (kunit/xnic_drv_test.c tests it directly).
 */
#include <linux/errno.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include "xnic.h"

/**
 * xnic_access_to_hw - XRDMA_ACCESS_* to XNIC_ACCESS_*
 * @access: verbs access flags
 *
 * Memory window binding has no device meaning and is dropped.
 *
 * Return: the device's flags.
 */
u32 xnic_access_to_hw(u32 access)
{
	u32 hw = 0;

	if (access & XRDMA_ACCESS_LOCAL_WRITE)
		hw |= XNIC_ACCESS_LOCAL_WRITE;
	if (access & XRDMA_ACCESS_REMOTE_WRITE)
		hw |= XNIC_ACCESS_REMOTE_WRITE;
	if (access & XRDMA_ACCESS_REMOTE_READ)
		hw |= XNIC_ACCESS_REMOTE_READ;
	if (access & XRDMA_ACCESS_REMOTE_ATOMIC)
		hw |= XNIC_ACCESS_REMOTE_ATOMIC;
	if (access & XRDMA_ACCESS_FLUSH_GLOBAL)
		hw |= XNIC_ACCESS_FLUSH_GLOBAL;
	if (access & XRDMA_ACCESS_FLUSH_PERSISTENT)
		hw |= XNIC_ACCESS_FLUSH_PERSISTENT;
	return hw;
}

/* ------------------------------------------------------------------ */
/* Queue geometry                                                      */

/**
 * xnic_log_entries - log2 of the ring size holding @n entries
 * @n: entries wanted (0 counts as 1)
 *
 * Return: the smallest l with 2^l >= @n.
 */
u32 xnic_log_entries(u32 n)
{
	return n <= 1 ? 0 : order_base_2(n);
}

/**
 * xnic_sq_wqe_shift - send WQE size for a QP's capabilities
 * @max_sge: gather entries a WQE must hold
 * @max_inline: inline bytes a WQE must hold
 *
 * Return: log2 of the WQE size: the 96-byte header plus the larger of the
 * SGE array and the inline data, at least XNIC_SQ_WQE_MIN_SHIFT.
 */
u32 xnic_sq_wqe_shift(u32 max_sge, u32 max_inline)
{
	u64 data = max_t(u64, (u64)max_sge * sizeof(struct xnic_sge),
			 max_inline);

	data = min_t(u64, data, 1U << 20);
	return max_t(u32, order_base_2(XNIC_WQE_DATA_OFF + (u32)data),
		     XNIC_SQ_WQE_MIN_SHIFT);
}

/**
 * xnic_rq_wqe_shift - receive WQE size for @max_sge scatter entries
 * @max_sge: scatter entries a WQE must hold
 *
 * Return: log2 of the WQE size, at least XNIC_RQ_WQE_MIN_SHIFT.
 */
u32 xnic_rq_wqe_shift(u32 max_sge)
{
	u64 sz = sizeof(struct xnic_rwqe) +
		 (u64)min(max_sge, 1U << 16) * sizeof(struct xnic_sge);

	return max_t(u32, order_base_2((u32)sz), XNIC_RQ_WQE_MIN_SHIFT);
}

/* How many SGEs a send WQE of 2^@wqe_shift bytes holds. */
u32 xnic_sq_wqe_max_sge(u32 wqe_shift)
{
	return ((1U << wqe_shift) - XNIC_WQE_DATA_OFF) /
	       sizeof(struct xnic_sge);
}

/* How many inline bytes a send WQE of 2^@wqe_shift bytes holds. */
u32 xnic_sq_wqe_max_inline(u32 wqe_shift)
{
	return (1U << wqe_shift) - XNIC_WQE_DATA_OFF;
}

/* How many SGEs a receive WQE of 2^@wqe_shift bytes holds. */
u32 xnic_rq_wqe_max_sge(u32 wqe_shift)
{
	return ((1U << wqe_shift) - sizeof(struct xnic_rwqe)) /
	       sizeof(struct xnic_sge);
}

/* ------------------------------------------------------------------ */
/* Send WQEs                                                           */

static const s8 xnic_wr_opcodes[] = {
	[XRDMA_WR_RDMA_WRITE]		= XNIC_OP_RDMA_WRITE,
	[XRDMA_WR_RDMA_WRITE_WITH_IMM]	= XNIC_OP_RDMA_WRITE_WITH_IMM,
	[XRDMA_WR_SEND]			= XNIC_OP_SEND,
	[XRDMA_WR_SEND_WITH_IMM]	= XNIC_OP_SEND_WITH_IMM,
	[XRDMA_WR_RDMA_READ]		= XNIC_OP_RDMA_READ,
	[XRDMA_WR_ATOMIC_CMP_AND_SWP]	= XNIC_OP_ATOMIC_CMP_AND_SWP,
	[XRDMA_WR_ATOMIC_FETCH_AND_ADD]	= XNIC_OP_ATOMIC_FETCH_AND_ADD,
	[XRDMA_WR_LOCAL_INV]		= XNIC_OP_LOCAL_INV,
	[XRDMA_WR_SEND_WITH_INV]	= XNIC_OP_SEND_WITH_INV,
	[XRDMA_WR_REG_MR]		= XNIC_OP_REG_MR,
	[XRDMA_WR_ATOMIC_WRITE]		= XNIC_OP_ATOMIC_WRITE,
	[XRDMA_WR_FLUSH]		= XNIC_OP_FLUSH,
};

/**
 * xnic_wr_to_hw_opcode - the WQE opcode of a work request on a QP type
 * @op: work request opcode
 * @type: RC, UC, UD or XRC_INI
 *
 * UD sends only; UC has no RDMA read, no atomics, no ATOMIC WRITE and no
 * FLUSH; XRC_INI has what RC has.
 * Return: XNIC_OP_* or -EINVAL.
 */
int xnic_wr_to_hw_opcode(enum xrdma_wr_opcode op, enum xrdma_qp_type type)
{
	if ((unsigned int)op >= ARRAY_SIZE(xnic_wr_opcodes))
		return -EINVAL;
	switch (type) {
	case XRDMA_QPT_RC:
	case XRDMA_QPT_XRC_INI:
		break;
	case XRDMA_QPT_UC:
		if (op == XRDMA_WR_RDMA_READ ||
		    op == XRDMA_WR_ATOMIC_CMP_AND_SWP ||
		    op == XRDMA_WR_ATOMIC_FETCH_AND_ADD ||
		    op == XRDMA_WR_ATOMIC_WRITE || op == XRDMA_WR_FLUSH)
			return -EINVAL;
		break;
	case XRDMA_QPT_UD:
		if (op != XRDMA_WR_SEND && op != XRDMA_WR_SEND_WITH_IMM)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	return xnic_wr_opcodes[op];
}

static bool xnic_op_has_payload(u8 op)
{
	switch (op) {
	case XNIC_OP_RDMA_WRITE:
	case XNIC_OP_RDMA_WRITE_WITH_IMM:
	case XNIC_OP_SEND:
	case XNIC_OP_SEND_WITH_IMM:
	case XNIC_OP_SEND_WITH_INV:
	case XNIC_OP_ATOMIC_WRITE:
		return true;
	default:
		return false;
	}
}

static int xnic_build_inline(void *data, u32 room,
			     const struct xrdma_send_wr *wr, u32 *len)
{
	u32 total = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		u32 l = wr->sg_list[i].length;

		if (l > room - total)
			return -EINVAL;
		total += l;
	}
	for (i = 0, total = 0; i < wr->num_sge; i++) {
		memcpy(data + total,
		       (const void *)(uintptr_t)wr->sg_list[i].addr,
		       wr->sg_list[i].length);
		total += wr->sg_list[i].length;
	}
	*len = total;
	return 0;
}

/**
 * xnic_build_send_wqe - encode a send work request
 * @wqe: the WQE in the ring (2^wqe_shift bytes for @cfg)
 * @cfg: the QP's type and capabilities
 * @wr: the work request (only this one, not its successors)
 * @wqe_wr_id: the value the device echoes in the CQE
 *
 * Writes every byte of the header and the data it uses except the owner
 * byte, which the caller sets after a write barrier.  A REG_MR request
 * points the device at the MR's page list (xnic_mr.mtt).
 *
 * Return: 0, or -EINVAL for a request the QP cannot carry (opcode not
 * valid for the QP type, too many SGEs, inline data too long, missing
 * address handle, page list too long, a FLUSH with SGEs).
 */
int xnic_build_send_wqe(void *wqe, const struct xnic_sq_cfg *cfg,
			const struct xrdma_send_wr *wr, u64 wqe_wr_id)
{
	struct xnic_wqe_ctrl *ctrl = wqe;
	struct xnic_wqe_remote *rem = wqe + XNIC_WQE_REMOTE_OFF;
	struct xnic_wqe_atomic *atom = wqe + XNIC_WQE_ATOMIC_OFF;
	struct xnic_wqe_flush *flush = wqe + XNIC_WQE_FLUSH_OFF;
	struct xnic_wqe_ud *ud = wqe + XNIC_WQE_UD_OFF;
	struct xnic_wqe_xrc *xrc = wqe + XNIC_WQE_XRC_OFF;
	struct xnic_wqe_fr *fr = wqe + XNIC_WQE_FR_OFF;
	struct xnic_sge *sge = wqe + XNIC_WQE_DATA_OFF;
	bool inl = false;
	u32 inline_len = 0;
	u8 flags = 0;
	int op, i, ret;

	op = xnic_wr_to_hw_opcode(wr->opcode, cfg->qp_type);
	if (op < 0)
		return op;
	if (wr->num_sge < 0)
		return -EINVAL;
	if (wr->send_flags & XRDMA_SEND_INLINE && xnic_op_has_payload(op))
		inl = true;
	else if (wr->num_sge > cfg->max_sge)
		return -EINVAL;
	if (op == XNIC_OP_REG_MR || op == XNIC_OP_LOCAL_INV ||
	    op == XNIC_OP_FLUSH) {
		if (wr->num_sge)
			return -EINVAL;
	}
	if (cfg->qp_type == XRDMA_QPT_UD && !wr->wr.ud.ah)
		return -EINVAL;
	if (op == XNIC_OP_REG_MR) {
		struct xrdma_mr *mr = wr->wr.reg.mr;

		if (!mr || mr->type != XRDMA_MR_TYPE_MEM_REG ||
		    to_xmr(mr)->npages > to_xmr(mr)->mtt_max)
			return -EINVAL;
	}

	/* everything but the owner byte (offset 3) */
	memset(wqe, 0, 3);
	memset(wqe + 4, 0, XNIC_WQE_DATA_OFF - 4);

	if (inl) {
		ret = xnic_build_inline(wqe + XNIC_WQE_DATA_OFF,
					cfg->max_inline, wr, &inline_len);
		if (ret)
			return ret;
		flags |= XNIC_WQE_INLINE;
	} else {
		for (i = 0; i < wr->num_sge; i++) {
			sge[i].addr = cpu_to_le64(wr->sg_list[i].addr);
			sge[i].length = cpu_to_le32(wr->sg_list[i].length);
			sge[i].lkey = cpu_to_le32(wr->sg_list[i].lkey);
		}
	}

	if (wr->send_flags & XRDMA_SEND_SIGNALED || cfg->sig_all)
		flags |= XNIC_WQE_SIGNALED;
	if (wr->send_flags & XRDMA_SEND_SOLICITED)
		flags |= XNIC_WQE_SOLICITED;
	if (wr->send_flags & XRDMA_SEND_FENCE)
		flags |= XNIC_WQE_FENCE;

	ctrl->opcode = op;
	ctrl->flags = flags;
	ctrl->num_sge = inl ? 0 : wr->num_sge;
	ctrl->inline_len = cpu_to_le32(inline_len);
	ctrl->wr_id = cpu_to_le64(wqe_wr_id);

	switch (op) {
	case XNIC_OP_SEND_WITH_IMM:
	case XNIC_OP_RDMA_WRITE_WITH_IMM:
		/* the immediate's bytes travel as they are */
		ctrl->imm_data = (__force __le32)wr->ex.imm_data;
		break;
	case XNIC_OP_SEND_WITH_INV:
	case XNIC_OP_LOCAL_INV:
		ctrl->imm_data = cpu_to_le32(wr->ex.invalidate_rkey);
		break;
	default:
		break;
	}

	switch (op) {
	case XNIC_OP_RDMA_WRITE:
	case XNIC_OP_RDMA_WRITE_WITH_IMM:
	case XNIC_OP_RDMA_READ:
	case XNIC_OP_ATOMIC_WRITE:
		rem->remote_addr = cpu_to_le64(wr->wr.rdma.remote_addr);
		rem->rkey = cpu_to_le32(wr->wr.rdma.rkey);
		break;
	case XNIC_OP_ATOMIC_CMP_AND_SWP:
	case XNIC_OP_ATOMIC_FETCH_AND_ADD:
		rem->remote_addr = cpu_to_le64(wr->wr.atomic.remote_addr);
		rem->rkey = cpu_to_le32(wr->wr.atomic.rkey);
		atom->compare_add = cpu_to_le64(wr->wr.atomic.compare_add);
		atom->swap = cpu_to_le64(wr->wr.atomic.swap);
		break;
	case XNIC_OP_FLUSH:
		rem->remote_addr = cpu_to_le64(wr->wr.flush.remote_addr);
		rem->rkey = cpu_to_le32(wr->wr.flush.rkey);
		flush->length = cpu_to_le32(wr->wr.flush.length);
		flush->type = wr->wr.flush.type;
		flush->level = wr->wr.flush.level;
		break;
	case XNIC_OP_REG_MR: {
		struct xnic_mr *xmr = to_xmr(wr->wr.reg.mr);

		fr->mtt_addr = cpu_to_le64(xmr->mtt.dma);
		fr->iova = cpu_to_le64(xmr->ibmr.iova);
		fr->length = cpu_to_le64(xmr->ibmr.length);
		fr->key = cpu_to_le32(wr->wr.reg.key);
		fr->access = cpu_to_le32(xnic_access_to_hw(wr->wr.reg.access));
		fr->npages = cpu_to_le32(xmr->npages);
		fr->page_shift = xmr->page_shift;
		break;
	}
	default:
		break;
	}

	if (cfg->qp_type == XRDMA_QPT_UD) {
		const struct xrdma_ah *ah = wr->wr.ud.ah;

		ud->dest_qpn = cpu_to_le32(wr->wr.ud.remote_qpn);
		ud->qkey = cpu_to_le32(wr->wr.ud.remote_qkey);
		memcpy(ud->dgid, ah->attr.dgid.raw, sizeof(ud->dgid));
		ud->port_num = ah->attr.port_num;
		ud->sgid_index = ah->attr.sgid_index;
		ud->hop_limit = ah->attr.hop_limit;
		ud->traffic_class = ah->attr.traffic_class;
	}
	/* every request of an XRC_INI QP names the target's SRQ */
	if (cfg->qp_type == XRDMA_QPT_XRC_INI)
		xrc->remote_srqn = cpu_to_le32(wr->xrc_remote_srqn);
	return 0;
}

/**
 * xnic_build_recv_wqe - encode a receive work request (RQ or SRQ)
 * @wqe: the WQE in the ring; room for wr->num_sge SGEs is the caller's
 *	 check
 * @wr: the work request
 * @wqe_wr_id: the value the device echoes in the CQE
 *
 * Leaves the owner byte alone.
 */
void xnic_build_recv_wqe(void *wqe, const struct xrdma_recv_wr *wr,
			 u64 wqe_wr_id)
{
	struct xnic_rwqe *hdr = wqe;
	struct xnic_sge *sge = wqe + sizeof(*hdr);
	int i;

	hdr->wr_id = cpu_to_le64(wqe_wr_id);
	hdr->num_sge = wr->num_sge;
	memset(hdr->reserved, 0, sizeof(hdr->reserved));
	for (i = 0; i < wr->num_sge; i++) {
		sge[i].addr = cpu_to_le64(wr->sg_list[i].addr);
		sge[i].length = cpu_to_le32(wr->sg_list[i].length);
		sge[i].lkey = cpu_to_le32(wr->sg_list[i].lkey);
	}
}
