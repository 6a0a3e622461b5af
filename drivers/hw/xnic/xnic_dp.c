// SPDX-License-Identifier: GPL-2.0
/*
 * xnic: the kernel data path: doorbells and kicks, posting, CQE decoding,
 * polling, arming.  No allocation, no command, no core lock: a spinlock
 * per send queue, per receive queue, per SRQ and per CQ.
 *
 * Send and receive WQEs of kernel QPs carry their free-running ring index
 * as wr_id; the device echoes it in the CQE, which tells poll_cq both the
 * caller's wr_id (kept in wq->wrid) and how far the queue has been
 * consumed (a QP's WQEs complete in order, so a CQE for index i frees
 * every entry up to i).  SRQ WQEs carry the caller's wr_id itself: an SRQ
 * is consumed in ring order, so the number of its completions polled
 * bounds what the device has consumed.
 *
 * Once the device is dead and was reset (xdev->stopped: it writes no CQE
 * any more), a kernel CQ returns, after the CQEs left in its ring, a
 * completion with XRDMA_WC_WR_FLUSH_ERR for each WQE still outstanding on
 * the send and receive queues reporting to it (its sq_list and rq_list),
 * as mlx5's poll_cq after an internal error; xnic_dp_dead() calls the
 * handler of every armed kernel CQ that has such a WQE, and a post to a
 * dead device is accepted and calls its CQ's: a WR posted to a QP in the
 * Error state completes with a flush error (IBTA), which ib_drain_qp()
 * relies on.  SRQ receives are not flushed: the device takes them in ring
 * order for any QP, so no CQ owns them; they go with the SRQ (a CQ that
 * only SRQ receives report to gets no call).
 */
#include <linux/atomic.h>
#include <linux/bitops.h>
#include "xnic.h"
#include "xnic_trace.h"

/* ------------------------------------------------------------------ */
/* Doorbells                                                           */

/**
 * xnic_kick - wake the device's engine (KICK register)
 * @xdev: device
 * @run_here: the caller is a process holding no lock (a system call on
 *	      behalf of user space): the device may do the work in the write
 */
static void xnic_kick(struct xnic_dev *xdev, bool run_here)
{
	xnic_wr(xdev, XNIC_REG_KICK,
		XNIC_KICK_WAKE | (run_here ? XNIC_KICK_RUN_HERE : 0));
}

/**
 * xnic_kick_user - kick for a process context (the uverbs KICK ioctl)
 * @xdev: device
 * @db_index: the context's doorbell page
 *
 * The caller is a process holding no lock: the device may run the work
 * announced in that doorbell page -- and only there -- in the write.
 */
void xnic_kick_user(struct xnic_dev *xdev, u32 db_index)
{
	xnic_wr(xdev, XNIC_REG_KICK, XNIC_KICK_WAKE | XNIC_KICK_RUN_HERE |
		XNIC_KICK_DB(db_index));
}

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
static bool xnic_db_ring(struct xnic_db_page *page, u32 slot)
{
	u32 group = slot / 64;

	xnic_db_or(&page->group[group], slot % 64);
	xnic_db_or(&page->summary[group / 64], group % 64);
	/* full barrier: the bits are set before the flags are read */
	smp_mb__after_atomic();
	return le32_to_cpu(READ_ONCE(page->flags)) & XNIC_DB_NEED_WAKEUP;
}

/**
 * xnic_cq_kick - call a kernel CQ's completion handler in software
 * @xcq: the CQ
 *
 * Only for a CQ that was ever armed: one that never was is polled by its
 * owner (ib_core's IB_POLL_DIRECT, whose handler warns of an unsolicited
 * completion), and a spurious call to an armed one's handler is harmless.
 * Any context.
 */
static void xnic_cq_kick(struct xnic_cq *xcq)
{
	struct xrdma_cq *cq = &xcq->ibcq;

	if (READ_ONCE(xcq->arm_sn) && cq->comp_handler)
		cq->comp_handler(cq, cq->cq_context);
}

/* ------------------------------------------------------------------ */
/* Posting                                                             */

static inline void *xnic_wq_entry(const struct xnic_wq *wq, u32 idx)
{
	return wq->ring + ((idx & ((1U << wq->log_size) - 1)) << wq->wqe_shift);
}

/**
 * xnic_post_send - post send work requests on a kernel QP
 * @qp: the QP
 * @wr: the first work request of a list
 * @bad_wr: set to the first one not posted
 *
 * Return: 0; -ENOMEM when the send queue is full; -EINVAL for a request
 * the QP cannot carry (see xnic_build_send_wqe()) or a QP in RESET.
 */
int xnic_post_send(struct xrdma_qp *qp, const struct xrdma_send_wr *wr,
		   const struct xrdma_send_wr **bad_wr)
{
	struct xnic_qp *xqp = to_xqp(qp);
	struct xnic_dev *xdev = to_xdev(qp->device);
	struct xnic_wq *sq = &xqp->sq;
	u32 size = 1U << sq->log_size, pi, start;
	unsigned long flags;
	bool dead;
	int ret = 0;

	if (unlikely(!xqp->kernel || !sq->ring ||
		     READ_ONCE(qp->state) == XRDMA_QPS_RESET)) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&sq->lock, flags);
	pi = sq->pi;
	start = pi;
	for (; wr; wr = wr->next) {
		struct xnic_wqe_ctrl *ctrl;

		/* acquire: poll_cq read the entry's wr_id before freeing it */
		if (unlikely(pi - smp_load_acquire(&sq->ci) >= size)) {
			ret = -ENOMEM;
			break;
		}
		ctrl = xnic_wq_entry(sq, pi);
		ret = xnic_build_send_wqe(ctrl, &xqp->sq_cfg, wr, pi);
		if (unlikely(ret))
			break;
		sq->wrid[pi & (size - 1)] = wr->wr_id;
		/* the entry before its owner bit */
		dma_wmb();
		WRITE_ONCE(ctrl->owner, xnic_phase(pi, sq->log_size));
		pi++;
	}
	if (unlikely(ret))
		*bad_wr = wr;
	if (pi != start) {
		WRITE_ONCE(sq->pi, pi);
		/* the entries before the producer index */
		dma_wmb();
		WRITE_ONCE(xqp->dbrec->sq_pi, cpu_to_le32(pi));
	}
	/* under the lock: see xnic_dp_dead() */
	dead = READ_ONCE(xdev->stopped);
	spin_unlock_irqrestore(&sq->lock, flags);

	if (unlikely(dead)) {
		if (pi != start)
			xnic_cq_kick(to_xcq(qp->send_cq));
	} else if (pi != start && xnic_db_ring(xdev->kdb.cpu, xqp->db_slot)) {
		xnic_kick(xdev, false);	/* any context */
	}
	return ret;
}

static int xnic_post_rwqe(struct xnic_qp *xqp,
			  const struct xrdma_recv_wr *wr,
			  const struct xrdma_recv_wr **bad_wr)
{
	struct xnic_dev *xdev = to_xdev(xqp->ibqp.device);
	struct xnic_wq *wq = &xqp->rq;
	u32 max_sge = xqp->rq_max_sge;
	struct xnic_qp_dbrec *dbrec = xqp->dbrec;
	bool dead;
	u32 size = 1U << wq->log_size, pi, start;
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&wq->lock, flags);
	pi = wq->pi;
	start = pi;
	for (; wr; wr = wr->next) {
		struct xnic_rwqe *wqe;

		if (unlikely(wr->num_sge < 0 || wr->num_sge > max_sge)) {
			ret = -EINVAL;
			break;
		}
		/* acquire: poll_cq read the entry's wr_id before freeing it */
		if (unlikely(pi - smp_load_acquire(&wq->ci) >= size)) {
			ret = -ENOMEM;
			break;
		}
		wqe = xnic_wq_entry(wq, pi);
		xnic_build_recv_wqe(wqe, wr, pi);
		wq->wrid[pi & (size - 1)] = wr->wr_id;
		dma_wmb();
		WRITE_ONCE(wqe->owner, xnic_phase(pi, wq->log_size));
		pi++;
	}
	if (unlikely(ret))
		*bad_wr = wr;
	if (pi != start) {
		WRITE_ONCE(wq->pi, pi);
		dma_wmb();
		/* receives need no doorbell: the device reads rq_pi */
		WRITE_ONCE(dbrec->rq_pi, cpu_to_le32(pi));
	}
	/* under the lock: see xnic_dp_dead() */
	dead = READ_ONCE(xdev->stopped);
	spin_unlock_irqrestore(&wq->lock, flags);
	if (unlikely(dead) && pi != start)
		xnic_cq_kick(to_xcq(xqp->ibqp.recv_cq));
	return ret;
}

/**
 * xnic_post_recv - post receive work requests on a kernel QP
 * @qp: the QP (without SRQ)
 * @wr: the first work request of a list
 * @bad_wr: set to the first one not posted
 *
 * Return: 0, -ENOMEM (queue full), -EINVAL (too many SGEs, QP in RESET,
 * QP with an SRQ, XRC QP: no receive queue).
 */
int xnic_post_recv(struct xrdma_qp *qp, const struct xrdma_recv_wr *wr,
		   const struct xrdma_recv_wr **bad_wr)
{
	struct xnic_qp *xqp = to_xqp(qp);

	if (unlikely(!xqp->kernel || qp->srq || !xqp->rq.ring ||
		     READ_ONCE(qp->state) == XRDMA_QPS_RESET)) {
		*bad_wr = wr;
		return -EINVAL;
	}
	return xnic_post_rwqe(xqp, wr, bad_wr);
}

/**
 * xnic_post_srq_recv - post receive work requests on a kernel SRQ
 * @srq: the SRQ
 * @wr: the first work request of a list
 * @bad_wr: set to the first one not posted
 *
 * Return: 0, -ENOMEM (max_wr outstanding), -EINVAL (too many SGEs).
 */
int xnic_post_srq_recv(struct xrdma_srq *srq, const struct xrdma_recv_wr *wr,
		       const struct xrdma_recv_wr **bad_wr)
{
	struct xnic_srq *xsrq = to_xsrq(srq);
	u32 mask = (1U << xsrq->log_size) - 1, max_wr, pi, start;
	unsigned long flags;
	int ret = 0;

	if (unlikely(!xsrq->kernel)) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&xsrq->lock, flags);
	max_wr = min(READ_ONCE(xsrq->max_wr), mask + 1);
	pi = xsrq->pi;
	start = pi;
	for (; wr; wr = wr->next) {
		struct xnic_rwqe *wqe;

		if (unlikely(wr->num_sge < 0 || wr->num_sge > xsrq->max_sge)) {
			ret = -EINVAL;
			break;
		}
		/* consumed in order: polled completions free the oldest */
		if (unlikely(pi - (u32)atomic_read_acquire(&xsrq->done) >=
			     max_wr)) {
			ret = -ENOMEM;
			break;
		}
		wqe = xsrq->ring + ((pi & mask) << xsrq->wqe_shift);
		xnic_build_recv_wqe(wqe, wr, wr->wr_id);
		dma_wmb();
		WRITE_ONCE(wqe->owner, xnic_phase(pi, xsrq->log_size));
		pi++;
	}
	if (unlikely(ret))
		*bad_wr = wr;
	if (pi != start) {
		xsrq->pi = pi;
		dma_wmb();
		WRITE_ONCE(xsrq->dbrec->rq_pi, cpu_to_le32(pi));
	}
	spin_unlock_irqrestore(&xsrq->lock, flags);
	return ret;
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
	case XNIC_CQE_OP_FLUSH:
		return XRDMA_WC_FLUSH;
	case XNIC_CQE_OP_ATOMIC_WRITE:
		return XRDMA_WC_ATOMIC_WRITE;
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
static void xnic_cqe_to_wc(const struct xnic_cqe *cqe, struct xrdma_wc *wc)
{
	u8 flags = cqe->flags;

	wc->status = xnic_wc_status(cqe->status);
	wc->vendor_err = wc->status == XRDMA_WC_GENERAL_ERR ? cqe->status : 0;
	wc->opcode = xnic_wc_opcode(cqe->opcode);
	wc->byte_len = le32_to_cpu(cqe->byte_len);
	wc->src_qp = le32_to_cpu(cqe->src_qp) & 0xffffff;
	wc->wc_flags = 0;
	wc->ex.imm_data = 0;
	wc->network_hdr_type = 0;
	if (flags & XNIC_CQE_GRH) {
		/* UD/GSI receives on RoCE: which header the buffer starts with */
		wc->wc_flags |= XRDMA_WC_GRH | XRDMA_WC_WITH_NETWORK_HDR_TYPE;
		switch (flags & XNIC_CQE_NET_MASK) {
		case XNIC_CQE_NET_IPV4:
			wc->network_hdr_type = XRDMA_NETWORK_IPV4;
			break;
		case XNIC_CQE_NET_IPV6:
			wc->network_hdr_type = XRDMA_NETWORK_IPV6;
			break;
		default:
			wc->network_hdr_type = XRDMA_NETWORK_ROCE_V1;
			break;
		}
	}
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

/* A CQE for index @idx of @wq: the caller's wr_id; frees up to @idx. */
static bool xnic_wq_complete(struct xnic_wq *wq, u32 idx, u64 *wr_id)
{
	u32 ci = wq->ci, pi = READ_ONCE(wq->pi);

	if (unlikely(!wq->wrid || idx - ci >= pi - ci))
		return false;	/* not outstanding: stale or corrupt */
	*wr_id = wq->wrid[idx & ((1U << wq->log_size) - 1)];
	/* the wr_id is read before post may reuse the entry */
	smp_store_release(&wq->ci, idx + 1);
	return true;
}

/* Decode one CQE; false if it is not reported (its QP is gone). */
static bool xnic_cqe_process(struct xnic_dev *xdev, struct xnic_cq *xcq,
			     const struct xnic_cqe *cqe, struct xrdma_wc *wc)
{
	u32 qpn = le32_to_cpu(cqe->qpn);
	struct xnic_qp *xqp = xcq->last_qp;
	u64 wr_id = le64_to_cpu(cqe->wr_id);
	bool ok;

	if (!xqp || xqp->ibqp.qp_num != qpn) {
		/* valid while the QP lives: destroy cleans this CQ first */
		xqp = xa_load(&xdev->qp_xa, qpn);
		if (unlikely(!xqp))
			return false;
		xcq->last_qp = xqp;
	}
	xnic_cqe_to_wc(cqe, wc);
	wc->qp = &xqp->ibqp;
	if (cqe->opcode & XNIC_CQE_OP_RECV) {
		if (xqp->ibqp.srq) {
			wc->wr_id = wr_id;
			/* release: the CQE is read before the entry is reused */
			smp_mb__before_atomic();
			atomic_inc(&to_xsrq(xqp->ibqp.srq)->done);
			ok = true;
		} else {
			ok = xnic_wq_complete(&xqp->rq, (u32)wr_id, &wc->wr_id);
		}
	} else {
		ok = xnic_wq_complete(&xqp->sq, (u32)wr_id, &wc->wr_id);
	}
	/*
	 * An error completion means the device moved the QP to ERR; it
	 * raises an event only for errors no completion reports.
	 */
	if (ok && unlikely(wc->status != XRDMA_WC_SUCCESS)) {
		trace_xnic_cqe_error(xdev, &xcq->ibcq, qpn, wc->wr_id,
				     cqe->status, wc->status, cqe->opcode);
		xrdma_qp_set_error(&xqp->ibqp);
	}
	return ok;
}

/*
 * Flush completions for @wq's outstanding WQEs, oldest first, at most
 * @num.  Called with the CQ's lock held, on a dead device.
 */
static int xnic_wq_flush(struct xnic_qp *xqp, struct xnic_wq *wq, bool send,
			 struct xrdma_wc *wc, int num)
{
	u32 mask = (1U << wq->log_size) - 1, ci, pi;
	int n = 0;

	if (!wq->wrid)
		return 0;
	/* the wr_ids of the last post, and no post while ci moves */
	spin_lock(&wq->lock);
	ci = wq->ci;
	pi = wq->pi;
	for (; n < num && ci != pi; n++, ci++) {
		memset(&wc[n], 0, sizeof(wc[n]));
		wc[n].wr_id = wq->wrid[ci & mask];
		wc[n].status = XRDMA_WC_WR_FLUSH_ERR;
		wc[n].opcode = send ? XRDMA_WC_SEND : XRDMA_WC_RECV;
		wc[n].qp = &xqp->ibqp;
		wc[n].port_num = 1;
	}
	if (n) {
		/* the wr_ids are read before post may reuse the entries */
		smp_store_release(&wq->ci, ci);
	}
	spin_unlock(&wq->lock);
	return n;
}

/* A dead device's flush completions for @xcq's queues, at most @num. */
static int xnic_cq_flush(struct xnic_cq *xcq, struct xrdma_wc *wc, int num)
{
	struct xnic_qp *xqp;
	int n = 0;

	list_for_each_entry(xqp, &xcq->sq_list, scq_node) {
		n += xnic_wq_flush(xqp, &xqp->sq, true, wc + n, num - n);
		if (n == num)
			return n;
	}
	list_for_each_entry(xqp, &xcq->rq_list, rcq_node) {
		n += xnic_wq_flush(xqp, &xqp->rq, false, wc + n, num - n);
		if (n == num)
			return n;
	}
	return n;
}

static bool xnic_wq_pending(struct xnic_wq *wq)
{
	bool ret;

	if (!wq->wrid)
		return false;
	spin_lock(&wq->lock);
	ret = wq->ci != wq->pi;
	spin_unlock(&wq->lock);
	return ret;
}

/*
 * Has @xcq flush completions to return?  With the CQ's lock held, on a
 * dead device: a post kicks the handler, but one that came while the
 * owner was polling may have found it still running (irq_poll).
 */
static bool xnic_cq_flush_pending(struct xnic_cq *xcq)
{
	struct xnic_qp *xqp;

	list_for_each_entry(xqp, &xcq->sq_list, scq_node)
		if (xnic_wq_pending(&xqp->sq))
			return true;
	list_for_each_entry(xqp, &xcq->rq_list, rcq_node)
		if (xnic_wq_pending(&xqp->rq))
			return true;
	return false;
}

static inline struct xnic_cqe *xnic_cqe_at(struct xnic_cq *xcq, u32 idx)
{
	return &xcq->ring[idx & ((1U << xcq->log_cqe) - 1)];
}

/**
 * xnic_poll_cq - poll a kernel CQ
 * @cq: the CQ
 * @num_entries: room in @wc
 * @wc: completions
 *
 * Any context.  On a dead device, flush completions follow the CQEs left
 * in the ring (see the file comment).
 *
 * Return: completions returned, or -EINVAL for a user CQ.
 */
int xnic_poll_cq(struct xrdma_cq *cq, int num_entries, struct xrdma_wc *wc)
{
	struct xnic_cq *xcq = to_xcq(cq);
	struct xnic_dev *xdev = to_xdev(cq->device);
	unsigned long flags;
	bool dead;
	int n = 0;
	u32 ci;

	if (unlikely(xcq->ubuf || xcq->entry))
		return -EINVAL;
	spin_lock_irqsave(&xcq->lock, flags);
	/*
	 * Before the ring: stopped is set once the reset completed, so the
	 * ring read after it holds every CQE the device wrote, and a CQE
	 * written just before the reset is returned, not flushed.
	 */
	dead = smp_load_acquire(&xdev->stopped);
	/* the device moves the CQEs: none is taken until the driver follows */
	if (unlikely(xcq->next_dbrec))
		num_entries = 0;
	ci = xcq->ci;
	while (n < num_entries) {
		struct xnic_cqe *cqe = xnic_cqe_at(xcq, ci);

		if (!xnic_hw_owned_valid(READ_ONCE(cqe->owner), ci,
					 xcq->log_cqe))
			break;
		/* the entry's body after its owner */
		dma_rmb();
		ci++;
		if (xnic_cqe_process(xdev, xcq, cqe, &wc[n]))
			n++;
	}
	if (ci != xcq->ci) {
		xcq->ci = ci;
		/* the entries are read before the device may overwrite them */
		mb();
		WRITE_ONCE(xcq->dbrec->ci, cpu_to_le32(ci));
	}
	/* the ring is empty and a device stopped before writes no more */
	if (unlikely(dead) && n < num_entries)
		n += xnic_cq_flush(xcq, wc + n, num_entries - n);
	spin_unlock_irqrestore(&xcq->lock, flags);
	return n;
}

/**
 * xnic_req_notify_cq - arm a kernel CQ
 * @cq: the CQ
 * @flags: XRDMA_CQ_NEXT_COMP or XRDMA_CQ_SOLICITED, maybe with
 *	   XRDMA_CQ_REPORT_MISSED_EVENTS
 *
 * Writes a new arm sequence number with the condition to the CQ's
 * doorbell record.
 *
 * Return: 0, or 1 with REPORT_MISSED_EVENTS if a
 * completion is waiting already, or -EINVAL for a user CQ.
 */
int xnic_req_notify_cq(struct xrdma_cq *cq, u32 flags)
{
	struct xnic_cq *xcq = to_xcq(cq);
	unsigned long irqflags;
	u32 sn, cond;
	int ret = 0;

	if (unlikely(xcq->ubuf || xcq->entry))
		return -EINVAL;
	cond = (flags & XRDMA_CQ_SOLICITED_MASK) == XRDMA_CQ_SOLICITED ?
	       XNIC_CQ_ARM_SOLICITED : XNIC_CQ_ARM_NEXT;
	spin_lock_irqsave(&xcq->lock, irqflags);
	sn = (xcq->arm_sn + 1) & 0x3fffffff;
	if (!sn)
		sn = 1;
	WRITE_ONCE(xcq->arm_sn, sn);	/* xnic_cq_kick() reads it */
	WRITE_ONCE(xcq->dbrec->arm, cpu_to_le32(sn << 2 | cond));
	/* either record may be the device's during a resize: arm both */
	if (unlikely(xcq->next_dbrec))
		WRITE_ONCE(xcq->next_dbrec->arm, cpu_to_le32(sn << 2 | cond));
	if (flags & XRDMA_CQ_REPORT_MISSED_EVENTS) {
		bool dead;

		/* the arm word is visible before we look at the ring */
		mb();
		/* before the ring, as in xnic_poll_cq() */
		dead = smp_load_acquire(&to_xdev(cq->device)->stopped);
		if (xnic_hw_owned_valid(READ_ONCE(xnic_cqe_at(xcq, xcq->ci)->owner),
					xcq->ci, xcq->log_cqe))
			ret = 1;
		else if (unlikely(dead))
			ret = xnic_cq_flush_pending(xcq);
	}
	spin_unlock_irqrestore(&xcq->lock, irqflags);
	return ret;
}

/**
 * xnic_cq_clean - drop the completions of a QP from a kernel CQ
 * @xcq: the CQ
 * @qpn: the QP, which the device no longer serves (destroyed or reset)
 * @srq: the QP's SRQ, credited for the receive completions dropped
 *
 * Also a barrier: a poll_cq that found the QP has finished with it.
 * Sleeps (waits for a resize of the CQ, whose copy would miss it).
 */
void xnic_cq_clean(struct xnic_cq *xcq, u32 qpn, struct xnic_srq *srq)
{
	unsigned long flags;
	u32 n, i, size;

	if (xcq->ubuf || xcq->entry)
		return;
	mutex_lock(&xcq->resize_mutex);
	spin_lock_irqsave(&xcq->lock, flags);
	size = 1U << xcq->log_cqe;
	for (n = 0, i = xcq->ci; n < size; n++, i++) {
		struct xnic_cqe *cqe = xnic_cqe_at(xcq, i);

		if (!xnic_hw_owned_valid(READ_ONCE(cqe->owner), i,
					 xcq->log_cqe))
			break;
		dma_rmb();
		if (le32_to_cpu(cqe->qpn) != qpn)
			continue;
		if (srq && cqe->opcode & XNIC_CQE_OP_RECV) {
			/* release, as in xnic_cqe_process() */
			smp_mb__before_atomic();
			atomic_inc(&srq->done);
		}
		WRITE_ONCE(cqe->qpn, cpu_to_le32(XNIC_NO_QPN));
	}
	xcq->last_qp = NULL;
	spin_unlock_irqrestore(&xcq->lock, flags);
	mutex_unlock(&xcq->resize_mutex);
}

/**
 * xnic_qp_reset_queues - empty a kernel QP's queues after RESET
 * @xqp: a kernel QP the device has just reset
 *
 * Its completions are dropped and both queues start again at index 0.
 */
void xnic_qp_reset_queues(struct xnic_qp *xqp)
{
	struct xrdma_qp *qp = &xqp->ibqp;
	struct xnic_srq *srq = qp->srq ? to_xsrq(qp->srq) : NULL;
	unsigned long flags;

	xnic_cq_clean(to_xcq(qp->send_cq), qp->qp_num, srq);
	/* an XRC_INI QP has no receive side */
	if (qp->recv_cq && qp->recv_cq != qp->send_cq)
		xnic_cq_clean(to_xcq(qp->recv_cq), qp->qp_num, srq);

	/*
	 * No CQE of this QP is left, so poll_cq no longer touches ci but to
	 * flush the queues of a dead device, under the CQ's lock.
	 */
	spin_lock_irqsave(&to_xcq(qp->send_cq)->lock, flags);
	spin_lock(&xqp->sq.lock);
	memset(xqp->sq.ring, 0, 1U << (xqp->sq.log_size + xqp->sq.wqe_shift));
	WRITE_ONCE(xqp->sq.pi, 0);
	WRITE_ONCE(xqp->sq.ci, 0);
	WRITE_ONCE(xqp->dbrec->sq_pi, 0);
	spin_unlock(&xqp->sq.lock);
	spin_unlock_irqrestore(&to_xcq(qp->send_cq)->lock, flags);
	if (xqp->rq.ring) {
		spin_lock_irqsave(&to_xcq(qp->recv_cq)->lock, flags);
		spin_lock(&xqp->rq.lock);
		memset(xqp->rq.ring, 0,
		       1U << (xqp->rq.log_size + xqp->rq.wqe_shift));
		WRITE_ONCE(xqp->rq.pi, 0);
		WRITE_ONCE(xqp->rq.ci, 0);
		WRITE_ONCE(xqp->dbrec->rq_pi, 0);
		spin_unlock(&xqp->rq.lock);
		spin_unlock_irqrestore(&to_xcq(qp->recv_cq)->lock, flags);
	}
}

/**
 * xnic_cq_add_qp - a new kernel QP's queues report to their CQs
 * @xqp: the QP, created (not XRC_TGT)
 *
 * From now on, poll_cq of a dead device flushes its queues.
 */
void xnic_cq_add_qp(struct xnic_qp *xqp)
{
	struct xrdma_qp *qp = &xqp->ibqp;
	struct xnic_cq *xcq = to_xcq(qp->send_cq);
	unsigned long flags;

	spin_lock_irqsave(&xcq->lock, flags);
	list_add_tail(&xqp->scq_node, &xcq->sq_list);
	spin_unlock_irqrestore(&xcq->lock, flags);
	/* not with an SRQ, nor an XRC_INI QP: no receive queue */
	if (!xqp->rq.ring)
		return;
	xcq = to_xcq(qp->recv_cq);
	spin_lock_irqsave(&xcq->lock, flags);
	list_add_tail(&xqp->rcq_node, &xcq->rq_list);
	spin_unlock_irqrestore(&xcq->lock, flags);
}

/**
 * xnic_cq_del_qp - undo xnic_cq_add_qp() before a kernel QP goes
 * @xqp: the QP
 *
 * Also a barrier: a poll_cq flushing its queues has finished with it, and
 * so has xnic_dp_dead() (under kcq_mutex), which calls the handler only of
 * a CQ with such a QP: the QP's consumer destroys it before its CQs, so
 * the CQ's owner is not in the middle of freeing it (ib_free_cq() cancels
 * the handler's work, then destroys) while xnic_dp_dead() holds the mutex.
 * Sleeps.
 */
void xnic_cq_del_qp(struct xnic_qp *xqp)
{
	struct xrdma_qp *qp = &xqp->ibqp;
	struct xnic_dev *xdev = to_xdev(qp->device);
	struct xnic_cq *xcq = to_xcq(qp->send_cq);
	unsigned long flags;

	mutex_lock(&xdev->kcq_mutex);
	spin_lock_irqsave(&xcq->lock, flags);
	list_del(&xqp->scq_node);
	spin_unlock_irqrestore(&xcq->lock, flags);
	if (xqp->rq.ring) {
		xcq = to_xcq(qp->recv_cq);
		spin_lock_irqsave(&xcq->lock, flags);
		list_del(&xqp->rcq_node);
		spin_unlock_irqrestore(&xcq->lock, flags);
	}
	mutex_unlock(&xdev->kcq_mutex);
}

/**
 * xnic_dp_dead - the device was stopped: flush the kernel's work requests
 * @xdev: device, xdev->stopped just set
 *
 * Calls the handler of every armed kernel CQ that has flush completions
 * to return (as mlx5_ib_handle_internal_error()), whose owner polls them
 * then (xnic_poll_cq()).  A post that read stopped false did so under its
 * queue's lock, taken here after stopped was set: its WQEs are in pi
 * before this CQ is looked at.  A later post sees stopped and calls the
 * handler itself.
 *
 * Only a CQ with a kernel QP on its lists, which xnic_cq_del_qp() cannot
 * take off while kcq_mutex is held, is called: any other may be in its
 * owner's ib_free_cq(), past cancelling the work a call would queue.  The
 * handler runs with IRQs off, as from the EQ's interrupt, and BHs off, so
 * that a softirq it raises (irq_poll, NAPI) runs at local_bh_enable()
 * rather than waiting for the next interrupt.  Sleeps.
 */
void xnic_dp_dead(struct xnic_dev *xdev)
{
	struct xnic_cq *xcq;
	struct xnic_qp *xqp;
	unsigned long flags;
	bool pending;

	mutex_lock(&xdev->kcq_mutex);
	list_for_each_entry(xcq, &xdev->kcqs, kcq_node) {
		pending = false;
		spin_lock_irqsave(&xcq->lock, flags);
		/* every queue's lock: a post holding it has finished */
		list_for_each_entry(xqp, &xcq->sq_list, scq_node)
			pending |= xnic_wq_pending(&xqp->sq);
		list_for_each_entry(xqp, &xcq->rq_list, rcq_node)
			pending |= xnic_wq_pending(&xqp->rq);
		spin_unlock_irqrestore(&xcq->lock, flags);
		if (!pending)
			continue;
		local_bh_disable();
		local_irq_save(flags);
		xnic_cq_kick(xcq);
		local_irq_restore(flags);
		local_bh_enable();
	}
	mutex_unlock(&xdev->kcq_mutex);
}
