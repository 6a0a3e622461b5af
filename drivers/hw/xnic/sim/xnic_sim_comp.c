// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_sim: the transport, completer side (the requester's own engine):
 * retiring a send WQE with its completion and counters, and the
 * requester's reaction when the responder did not take a request --
 * transport retries after a timeout, RNR waits, and their limits.
 */
#include <linux/kernel.h>
#include "xnic_sim.h"

static const u8 xnic_sim_tx_ctr[][2] = {
	[XNIC_OP_RDMA_WRITE] = { XNIC_SIM_CTR_tx_rdma_write,
				 XNIC_SIM_CTR_tx_rdma_write_bytes },
	[XNIC_OP_RDMA_WRITE_WITH_IMM] = { XNIC_SIM_CTR_tx_rdma_write_imm,
					  XNIC_SIM_CTR_tx_rdma_write_imm_bytes },
	[XNIC_OP_SEND] = { XNIC_SIM_CTR_tx_send, XNIC_SIM_CTR_tx_send_bytes },
	[XNIC_OP_SEND_WITH_IMM] = { XNIC_SIM_CTR_tx_send_imm,
				    XNIC_SIM_CTR_tx_send_imm_bytes },
	[XNIC_OP_RDMA_READ] = { XNIC_SIM_CTR_tx_rdma_read,
				XNIC_SIM_CTR_tx_rdma_read_bytes },
	[XNIC_OP_ATOMIC_CMP_AND_SWP] = { XNIC_SIM_CTR_tx_cmp_swap, 0 },
	[XNIC_OP_ATOMIC_FETCH_AND_ADD] = { XNIC_SIM_CTR_tx_fetch_add, 0 },
	[XNIC_OP_LOCAL_INV] = { XNIC_SIM_CTR_tx_local_inv, 0 },
	[XNIC_OP_SEND_WITH_INV] = { XNIC_SIM_CTR_tx_send_inv,
				    XNIC_SIM_CTR_tx_send_inv_bytes },
	[XNIC_OP_REG_MR] = { XNIC_SIM_CTR_tx_reg_mr, 0 },
	[XNIC_OP_BIND_MW] = { XNIC_SIM_CTR_tx_bind_mw, 0 },
	[XNIC_OP_NOP] = { XNIC_SIM_CTR_tx_nop, 0 },
};

/* Retire the WQE at sq_ci: completion if signaled or failed. */
void xnic_sim_sq_complete(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
			  u8 status, u32 len)
{
	const struct xnic_sim_swqe *w = &dev->scr->w;
	struct xnic_sim_cqe_info info;

	qp->sq_ci++;
	qp->rnr_count = 0;
	qp->retry_count = 0;
	qp->fault_delayed = false;
	if (!status && xnic_sim_faults_on())
		status = xnic_sim_fault_cqe(dev, qp, w->opcode);
	if (!status) {
		qp->tx_ops++;
		qp->tx_bytes += len;
		if (w->opcode < ARRAY_SIZE(xnic_sim_tx_ctr) &&
		    xnic_sim_tx_ctr[w->opcode][0]) {
			xnic_sim_count(dev, xnic_sim_tx_ctr[w->opcode][0], 1);
			if (xnic_sim_tx_ctr[w->opcode][1])
				xnic_sim_count(dev,
					       xnic_sim_tx_ctr[w->opcode][1],
					       len);
		}
	}
	if (status || (w->flags & XNIC_WQE_SIGNALED) || qp->sig_all) {
		info = (struct xnic_sim_cqe_info) {
			.wr_id = w->wr_id,
			.byte_len = len,
			.qpn = qp->qpn,
			.status = status,
			.opcode = xnic_sim_cqe_opcode(w->opcode),
		};
		if (xnic_sim_cq_post(qp->scq, &info, false))
			xnic_sim_qp_set_err(qp, XNIC_EQE_QP_FATAL);
	}
	if (status) {
		qp->errors++;
		xnic_sim_count_status(dev, status);
		xnic_sim_qp_set_err(qp, 0);
	}
}

/* Nobody answered: RC retries after its timeout, UC loses the message. */
int xnic_sim_no_answer(struct xnic_sim_qp *qp, u8 *status)
{
	if (!xnic_sim_qpt_rc(qp->type)) {
		xnic_sim_count(qp->dev, XNIC_SIM_CTR_uc_drops, 1);
		return XNIC_SIM_DONE;
	}
	if (xnic_sim_retry_left(qp->retry_count, qp->retry_cnt, false)) {
		qp->retry_count++;
		qp->retries++;
		xnic_sim_count(qp->dev, XNIC_SIM_CTR_retries, 1);
		qp->wait_until = xnic_sim_now() +
				 xnic_sim_retry_delay_ns(qp->timeout);
		return XNIC_SIM_WAIT;
	}
	*status = XNIC_CQE_RETRY_EXC_ERR;
	return XNIC_SIM_DONE;
}

/* No receive WQE: RC gets an RNR NAK and waits, UC loses the message. */
int xnic_sim_rnr(struct xnic_sim_qp *qp, struct xnic_sim_qp *rqp, u8 *status)
{
	if (!xnic_sim_qpt_rc(qp->type)) {
		xnic_sim_count(qp->dev, XNIC_SIM_CTR_uc_drops, 1);
		return XNIC_SIM_DONE;
	}
	qp->rnr_naks++;
	xnic_sim_count(qp->dev, XNIC_SIM_CTR_rnr_naks, 1);
	if (xnic_sim_retry_left(qp->rnr_count, qp->rnr_retry, true)) {
		qp->wait_until = xnic_sim_now() +
			xnic_sim_rnr_delay_ns(READ_ONCE(rqp->min_rnr_timer),
					      qp->rnr_count);
		qp->rnr_count++;
		return XNIC_SIM_WAIT;
	}
	*status = XNIC_CQE_RNR_RETRY_EXC_ERR;
	return XNIC_SIM_DONE;
}

/**
 * xnic_sim_rnr_delay_ns - wait before resending after an RNR NAK
 * @min_rnr_timer: the responder's QP attribute (0..31)
 * @naks: RNR NAKs this message already had
 *
 * 10 us per unit; 0 (655 ms in InfiniBand, the longest) counts as 32.
 * The timer is a minimum: a message still refused after 32 NAKs waits
 * twice as long every 32 NAKs more, up to 10 ms (an infinite rnr_retry
 * against a consumer that does not post receives costs little CPU).
 */
u64 xnic_sim_rnr_delay_ns(u8 min_rnr_timer, u32 naks)
{
	u32 t = min_rnr_timer & 31;
	u64 ns = (u64)(t ? t : 32) * 10 * NSEC_PER_USEC;

	if (naks >= 32)
		ns <<= min(naks / 32, 10U);
	return min_t(u64, ns, 10 * NSEC_PER_MSEC);
}

/**
 * xnic_sim_retry_delay_ns - wait before a transport retry
 * @timeout: the requester's QP attribute (4.096 us << timeout)
 *
 * Clamped to 10 us .. 2 ms; 0 (no timeout in InfiniBand) counts as 2 ms.
 */
u64 xnic_sim_retry_delay_ns(u8 timeout)
{
	u64 ns;

	if (!timeout || timeout > 20)
		return 2 * NSEC_PER_MSEC;
	ns = 4096ULL << timeout;
	return clamp_t(u64, ns, 10 * NSEC_PER_USEC, 2 * NSEC_PER_MSEC);
}
