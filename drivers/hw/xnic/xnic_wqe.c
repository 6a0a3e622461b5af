// SPDX-License-Identifier: GPL-2.0
/*
 * xnic: the pure part of the driver.  Work requests to WQEs, CQEs to work
 * completions, command status and attribute translation, queue geometry,
 * the doorbell page protocol.  Nothing here touches the device or sleeps,
 * so kunit/xnic_drv_test.c includes this file and tests it directly.
 */
#include <linux/atomic.h>
#include <linux/bitops.h>
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
};

/**
 * xnic_wr_to_hw_opcode - the WQE opcode of a work request on a QP type
 * @op: work request opcode
 * @type: RC, UC or UD
 *
 * UD sends only; UC has no RDMA read and no atomics.
 * Return: XNIC_OP_* or -EINVAL.
 */
int xnic_wr_to_hw_opcode(enum xrdma_wr_opcode op, enum xrdma_qp_type type)
{
	if ((unsigned int)op >= ARRAY_SIZE(xnic_wr_opcodes))
		return -EINVAL;
	switch (type) {
	case XRDMA_QPT_RC:
		break;
	case XRDMA_QPT_UC:
		if (op == XRDMA_WR_RDMA_READ ||
		    op == XRDMA_WR_ATOMIC_CMP_AND_SWP ||
		    op == XRDMA_WR_ATOMIC_FETCH_AND_ADD)
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
 * address handle, page list too long).
 */
int xnic_build_send_wqe(void *wqe, const struct xnic_sq_cfg *cfg,
			const struct xrdma_send_wr *wr, u64 wqe_wr_id)
{
	struct xnic_wqe_ctrl *ctrl = wqe;
	struct xnic_wqe_remote *rem = wqe + XNIC_WQE_REMOTE_OFF;
	struct xnic_wqe_atomic *atom = wqe + XNIC_WQE_ATOMIC_OFF;
	struct xnic_wqe_ud *ud = wqe + XNIC_WQE_UD_OFF;
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
	if (op == XNIC_OP_REG_MR || op == XNIC_OP_LOCAL_INV) {
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
	}
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

/* ------------------------------------------------------------------ */
/* Completions                                                         */

static enum xrdma_wc_status xnic_wc_status(u8 status)
{
	switch (status) {
	case XNIC_CQE_SUCCESS:
		return XRDMA_WC_SUCCESS;
	case XNIC_CQE_LOC_LEN_ERR:
		return XRDMA_WC_LOC_LEN_ERR;
	case XNIC_CQE_LOC_QP_OP_ERR:
		return XRDMA_WC_LOC_QP_OP_ERR;
	case XNIC_CQE_LOC_PROT_ERR:
		return XRDMA_WC_LOC_PROT_ERR;
	case XNIC_CQE_WR_FLUSH_ERR:
		return XRDMA_WC_WR_FLUSH_ERR;
	case XNIC_CQE_BAD_RESP_ERR:
		return XRDMA_WC_BAD_RESP_ERR;
	case XNIC_CQE_LOC_ACCESS_ERR:
		return XRDMA_WC_LOC_ACCESS_ERR;
	case XNIC_CQE_REM_INV_REQ_ERR:
		return XRDMA_WC_REM_INV_REQ_ERR;
	case XNIC_CQE_REM_ACCESS_ERR:
		return XRDMA_WC_REM_ACCESS_ERR;
	case XNIC_CQE_REM_OP_ERR:
		return XRDMA_WC_REM_OP_ERR;
	case XNIC_CQE_RETRY_EXC_ERR:
		return XRDMA_WC_RETRY_EXC_ERR;
	case XNIC_CQE_RNR_RETRY_EXC_ERR:
		return XRDMA_WC_RNR_RETRY_EXC_ERR;
	default:
		return XRDMA_WC_GENERAL_ERR;
	}
}

static enum xrdma_wc_opcode xnic_wc_opcode(u8 op)
{
	switch (op) {
	case XNIC_CQE_OP_RDMA_WRITE:
		return XRDMA_WC_RDMA_WRITE;
	case XNIC_CQE_OP_RDMA_READ:
		return XRDMA_WC_RDMA_READ;
	case XNIC_CQE_OP_COMP_SWAP:
		return XRDMA_WC_COMP_SWAP;
	case XNIC_CQE_OP_FETCH_ADD:
		return XRDMA_WC_FETCH_ADD;
	case XNIC_CQE_OP_LOCAL_INV:
		return XRDMA_WC_LOCAL_INV;
	case XNIC_CQE_OP_REG_MR:
		return XRDMA_WC_REG_MR;
	case XNIC_CQE_OP_RECV:
		return XRDMA_WC_RECV;
	case XNIC_CQE_OP_RECV_RDMA_WITH_IMM:
		return XRDMA_WC_RECV_RDMA_WITH_IMM;
	case XNIC_CQE_OP_SEND:
	default:
		return op & XNIC_CQE_OP_RECV ? XRDMA_WC_RECV : XRDMA_WC_SEND;
	}
}

/**
 * xnic_cqe_to_wc - decode a CQE
 * @cqe: a valid CQE
 * @wc: filled in, except wr_id and qp (the caller's: they depend on the
 *	queue the CQE belongs to)
 *
 * An unknown status becomes XRDMA_WC_GENERAL_ERR with the device's value
 * in vendor_err.
 */
void xnic_cqe_to_wc(const struct xnic_cqe *cqe, struct xrdma_wc *wc)
{
	u8 flags = cqe->flags;

	wc->status = xnic_wc_status(cqe->status);
	wc->vendor_err = wc->status == XRDMA_WC_GENERAL_ERR ? cqe->status : 0;
	wc->opcode = xnic_wc_opcode(cqe->opcode);
	wc->byte_len = le32_to_cpu(cqe->byte_len);
	wc->src_qp = le32_to_cpu(cqe->src_qp) & 0xffffff;
	wc->wc_flags = 0;
	wc->ex.imm_data = 0;
	if (flags & XNIC_CQE_GRH)
		wc->wc_flags |= XRDMA_WC_GRH;
	if (flags & XNIC_CQE_WITH_IMM) {
		wc->wc_flags |= XRDMA_WC_WITH_IMM;
		wc->ex.imm_data = (__force __be32)cqe->imm_data;
	} else if (flags & XNIC_CQE_WITH_INV) {
		wc->wc_flags |= XRDMA_WC_WITH_INVALIDATE;
		wc->ex.invalidate_rkey = le32_to_cpu(cqe->imm_data);
	}
	wc->pkey_index = 0;
	wc->port_num = 1;
}

/* ------------------------------------------------------------------ */
/* Commands                                                            */

/**
 * xnic_fill_modify_qp - a MODIFY_QP command from verbs attributes
 * @cmd: zeroed command body
 * @qpn: the QP
 * @attr: values (only those in @mask are meaningful)
 * @mask: XRDMA_QP_* mask, passed through
 */
void xnic_fill_modify_qp(struct xnic_cmd_modify_qp *cmd, u32 qpn,
			 const struct xrdma_qp_attr *attr, int mask)
{
	cmd->qpn = cpu_to_le32(qpn);
	cmd->mask = cpu_to_le32(mask);
	if (mask & XRDMA_QP_STATE)
		cmd->state = attr->qp_state;
	if (mask & XRDMA_QP_PATH_MTU)
		cmd->path_mtu = attr->path_mtu;
	if (mask & XRDMA_QP_TIMEOUT)
		cmd->timeout = attr->timeout;
	if (mask & XRDMA_QP_RETRY_CNT)
		cmd->retry_cnt = attr->retry_cnt;
	if (mask & XRDMA_QP_RNR_RETRY)
		cmd->rnr_retry = attr->rnr_retry;
	if (mask & XRDMA_QP_MIN_RNR_TIMER)
		cmd->min_rnr_timer = attr->min_rnr_timer;
	if (mask & XRDMA_QP_MAX_QP_RD_ATOMIC)
		cmd->max_rd_atomic = attr->max_rd_atomic;
	if (mask & XRDMA_QP_MAX_DEST_RD_ATOMIC)
		cmd->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & XRDMA_QP_QKEY)
		cmd->qkey = cpu_to_le32(attr->qkey);
	if (mask & XRDMA_QP_RQ_PSN)
		cmd->rq_psn = cpu_to_le32(attr->rq_psn & 0xffffff);
	if (mask & XRDMA_QP_SQ_PSN)
		cmd->sq_psn = cpu_to_le32(attr->sq_psn & 0xffffff);
	if (mask & XRDMA_QP_DEST_QPN)
		cmd->dest_qpn = cpu_to_le32(attr->dest_qp_num & 0xffffff);
	if (mask & XRDMA_QP_ACCESS_FLAGS)
		cmd->access = cpu_to_le32(xnic_access_to_hw(attr->qp_access_flags));
	if (mask & XRDMA_QP_PORT)
		cmd->port_num = attr->port_num;
	else if (mask & XRDMA_QP_AV)
		cmd->port_num = attr->ah_attr.port_num;
	if (mask & XRDMA_QP_AV)
		memcpy(cmd->dgid, attr->ah_attr.dgid.raw, sizeof(cmd->dgid));
}

/**
 * xnic_caps_from_hw - QUERY_CAPS output in CPU byte order
 * @caps: filled in
 * @out: the command's output
 */
void xnic_caps_from_hw(struct xnic_caps *caps,
		       const struct xnic_cmd_query_caps_out *out)
{
	caps->max_mr_size = le64_to_cpu(out->max_mr_size);
	caps->page_size_cap = le64_to_cpu(out->page_size_cap);
	caps->vendor_id = le32_to_cpu(out->vendor_id);
	caps->vendor_part_id = le32_to_cpu(out->vendor_part_id);
	caps->hw_ver = le32_to_cpu(out->hw_ver);
	caps->max_qp = le32_to_cpu(out->max_qp);
	caps->max_qp_wr = le32_to_cpu(out->max_qp_wr);
	caps->max_sge = le32_to_cpu(out->max_sge);
	caps->max_inline = le32_to_cpu(out->max_inline);
	caps->max_cq = le32_to_cpu(out->max_cq);
	caps->max_cqe = le32_to_cpu(out->max_cqe);
	caps->max_mr = le32_to_cpu(out->max_mr);
	caps->max_srq = le32_to_cpu(out->max_srq);
	caps->max_srq_wr = le32_to_cpu(out->max_srq_wr);
	caps->max_rd_atom = le32_to_cpu(out->max_rd_atom);
	caps->max_fast_reg_pages = le32_to_cpu(out->max_fast_reg_pages);
	caps->num_ports = le32_to_cpu(out->num_ports);
	caps->port_state = le32_to_cpu(out->port_state);
	caps->port_mtu = le32_to_cpu(out->port_mtu);

	/* what this driver can express, whatever the device says */
	caps->max_sge = min(caps->max_sge,
			    xnic_sq_wqe_max_sge(XNIC_MAX_WQE_SHIFT));
	caps->max_inline = min(caps->max_inline,
			       xnic_sq_wqe_max_inline(XNIC_MAX_WQE_SHIFT));
	caps->max_qp_wr = min(caps->max_qp_wr, 1U << 16);
	caps->max_srq_wr = min(caps->max_srq_wr, 1U << 16);
	caps->max_cqe = min(caps->max_cqe, 1U << 22);
	caps->max_qp = min(caps->max_qp, 1U << 24);
	caps->max_cq = min(caps->max_cq, 1U << 24);
	caps->max_srq = min(caps->max_srq, 1U << 24);
	caps->max_mr = min(caps->max_mr, 1U << 24);
	caps->max_fast_reg_pages = min(caps->max_fast_reg_pages, 1U << 16);
	if (caps->port_mtu < XRDMA_MTU_256 || caps->port_mtu > XRDMA_MTU_4096)
		caps->port_mtu = XRDMA_MTU_4096;
}

/**
 * xnic_fill_device_attr - the verbs device attributes
 * @attr: filled in
 * @caps: the device's limits (xnic_caps_from_hw())
 * @out: QUERY_CAPS output, for the GUID and firmware version bytes
 */
void xnic_fill_device_attr(struct xrdma_device_attr *attr,
			   const struct xnic_caps *caps,
			   const struct xnic_cmd_query_caps_out *out)
{
	size_t n;

	memset(attr, 0, sizeof(*attr));
	n = strnlen((const char *)out->fw_ver, sizeof(out->fw_ver));
	memcpy(attr->fw_ver, out->fw_ver, n);
	attr->fw_ver[n] = '\0';
	/* the GUID's bytes are stored big-endian */
	memcpy(&attr->node_guid, &out->node_guid, sizeof(attr->node_guid));
	attr->max_mr_size = caps->max_mr_size;
	attr->page_size_cap = caps->page_size_cap;
	attr->vendor_id = caps->vendor_id;
	attr->vendor_part_id = caps->vendor_part_id;
	attr->hw_ver = caps->hw_ver;
	attr->device_cap_flags = XRDMA_DEVICE_MEM_MGT_EXTENSIONS |
				 XRDMA_DEVICE_SRQ_RESIZE |
				 XRDMA_DEVICE_RC_RNR_NAK_GEN;
	attr->max_qp = caps->max_qp;
	attr->max_qp_wr = caps->max_qp_wr;
	attr->max_sge = caps->max_sge;
	attr->max_sge_rd = caps->max_sge;
	attr->max_inline_data = caps->max_inline;
	attr->max_cq = caps->max_cq;
	attr->max_cqe = caps->max_cqe;
	attr->max_mr = caps->max_mr;
	attr->max_pd = 1U << 24;
	attr->max_qp_rd_atom = caps->max_rd_atom;
	attr->max_qp_init_rd_atom = caps->max_rd_atom;
	attr->max_srq = caps->max_srq;
	attr->max_srq_wr = caps->max_srq_wr;
	attr->max_srq_sge = caps->max_sge;
	attr->max_ah = 1U << 24;
	attr->max_fast_reg_page_list_len = caps->max_fast_reg_pages;
	attr->atomic_cap = XRDMA_ATOMIC_HCA;
	/* a context holds a doorbell page; index 0 is the kernel's */
	attr->max_ucontext = XNIC_MAX_DB_INDEX - 1;
}

/* ------------------------------------------------------------------ */
/* Doorbell page                                                       */

static void xnic_db_or(__le64 *word, unsigned int bit)
{
	/* release: what was written before is visible with the bit */
	smp_mb__before_atomic();
	atomic64_or((__force s64)cpu_to_le64(BIT_ULL(bit)),
		    (atomic64_t *)word);
}

/**
 * xnic_db_ring - announce work of doorbell slot @slot
 * @page: the doorbell page
 * @slot: the QP's slot, < XNIC_DB_SLOTS
 *
 * Sets the slot's bit in its group word, then the group's bit in its
 * summary word, then reads the flags after a full barrier.  The caller
 * has written the WQEs and the doorbell record already.
 *
 * Return: true if the device asked to be kicked (XNIC_DB_NEED_WAKEUP).
 */
bool xnic_db_ring(struct xnic_db_page *page, u32 slot)
{
	u32 group = slot / 64;

	xnic_db_or(&page->group[group], slot % 64);
	xnic_db_or(&page->summary[group / 64], group % 64);
	/* full barrier: the bits are set before the flags are read */
	smp_mb__after_atomic();
	return le32_to_cpu(READ_ONCE(page->flags)) & XNIC_DB_NEED_WAKEUP;
}
