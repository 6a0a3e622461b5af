// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_sim: requester and completer of wire QPs (xnic_sim_wire.h), IBTA
 * vol. 1 ch. 9 as Linux's rxe implements it (rxe_req.c, rxe_comp.c).
 *
 * A wire RC or UC QP's turn (xnic_sim_wreq_turn(), the engine thread)
 * sends the packets of its send WQEs: up to XNIC_SIM_WIRE_WINDOW WQEs
 * and XNIC_SIM_WIRE_PSN_WINDOW PSNs unacknowledged, max_rd_atomic READs
 * and atomics outstanding, a FENCE waiting for them, all within
 * XNIC_SIM_WIRE_PSN_SPAN PSNs from the oldest in flight.  In SQD only
 * what was started goes on (resends, timers, completions).  A WQE whose
 * packets are sent stays in flight (struct xnic_sim_wflight, sq_ci at
 * the oldest) until its ACK, READ responses or atomic ACK came
 * (xnic_sim_wreq_recv()); WQEs complete in SQ order.  REG_MR, BIND_MW
 * and NOP execute when the requester reaches them and stay in flight
 * with no PSNs, done (or failed) once everything before them is.  A WQE
 * that does not go on the wire otherwise -- LOCAL_INV, one refused on
 * the wire, one that fails the requester's local checks, a malformed
 * one -- waits until nothing is in flight before it, then executes or
 * completes as on the cable (xnic_sim_sq_exec(), xnic_sim_sq_complete()).
 *
 * Loss: go-back-N from the oldest unacknowledged PSN (una_psn), on the
 * retransmission timer, a PSN sequence NAK, an ACK or NAK beyond a
 * READ or atomic whose responses did not come or a READ response or
 * atomic ACK beyond a gap (both once per gap), after an RNR wait.  A
 * WQE is re-read from the SQ ring for every packet sent (the driver
 * reuses a slot only after its CQE) and checked again, as untrusted as
 * the first time.  UC: no responses, a message completes once its packets are
 * sent.  UD: one packet per message (xnic_sim_wreq_ud_send()).
 * MODIFY_QP may not change what packets in flight depend on
 * (xnic_sim_wreq_modify_ok()).
 */
#include <linux/kernel.h>
#include <linux/skbuff.h>
#include "xnic_sim.h"

#define XNIC_SIM_WREQ_PSN_MASK	0xffffff
/* packets of one QP per turn */
#define XNIC_SIM_WREQ_TURN_PKTS	64
/* AckReq also on every this many packets of a long message */
#define XNIC_SIM_WREQ_ACK_EVERY	16
/* no MAC for the peer yet: wait this long, this often, then it is lost */
#define XNIC_SIM_WREQ_NEIGH_NS	NSEC_PER_MSEC
#define XNIC_SIM_WREQ_NEIGH_MAX	1000
/*
 * Shortest retransmission timeout.  rxe's is a jiffy; the model's
 * packets wait for two engine threads to be scheduled, which in an
 * emulated guest under load takes milliseconds: below this a timeout
 * fires without a loss (a 10 KB READ with timeout 1 measured > 4 ms).
 */
#define XNIC_SIM_WREQ_MIN_TO_NS	(10 * NSEC_PER_MSEC)

/* The RNR NAK timer field, in us (IBTA vol. 1 Table 45; rxe's table). */
static const u32 xnic_sim_wreq_rnr_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

static inline u32 xnic_sim_wreq_psn_add(u32 psn, u32 n)
{
	return (psn + n) & XNIC_SIM_WREQ_PSN_MASK;
}

static inline u32 xnic_sim_wreq_psn_diff(u32 a, u32 b)
{
	return (a - b) & XNIC_SIM_WREQ_PSN_MASK;
}

static bool xnic_sim_wreq_op_rd(u8 opcode)
{
	return opcode == XNIC_OP_RDMA_READ ||
	       opcode == XNIC_OP_ATOMIC_CMP_AND_SWP ||
	       opcode == XNIC_OP_ATOMIC_FETCH_AND_ADD;
}

static bool xnic_sim_wreq_op_atomic(u8 opcode)
{
	return opcode == XNIC_OP_ATOMIC_CMP_AND_SWP ||
	       opcode == XNIC_OP_ATOMIC_FETCH_AND_ADD;
}

/* Operations that go on the wire (the others execute locally). */
static bool xnic_sim_wreq_op_wire(u8 opcode)
{
	switch (opcode) {
	case XNIC_OP_SEND:
	case XNIC_OP_SEND_WITH_IMM:
	case XNIC_OP_SEND_WITH_INV:
	case XNIC_OP_RDMA_WRITE:
	case XNIC_OP_RDMA_WRITE_WITH_IMM:
		return true;
	default:
		return xnic_sim_wreq_op_rd(opcode);
	}
}

/*
 * Bytes a WQE of @len bytes in its local segments moves (its CQE's
 * byte_len): an atomic 8.
 */
static u32 xnic_sim_wfl_bytes(const struct xnic_sim_wflight *e)
{
	return xnic_sim_wreq_op_atomic(e->opcode) ? 8 : e->len;
}

static struct xnic_sim_wflight *xnic_sim_wfl(struct xnic_sim_wreq *wr, u32 i)
{
	return &wr->fl[i % XNIC_SIM_WIRE_WINDOW];
}

static u32 xnic_sim_wfl_end(const struct xnic_sim_wflight *e)
{
	return xnic_sim_wreq_psn_add(e->first_psn, e->npkts);
}

/*
 * The PSN window.  Every PSN the requester keeps lies in the window from
 * its base -- the first PSN of the oldest WQE in flight, una_psn when
 * none is -- to sq_psn, which spans at most XNIC_SIM_WIRE_PSN_SPAN PSNs
 * (IBTA: a requester has at most 2^23 PSNs outstanding;
 * xnic_sim_wreq_take() holds a WQE back until it fits).  PSNs are
 * compared by their offsets from the base: exact at every span up to
 * 2^24 - 1, where the 24-bit serial number compare ((a - b) << 8) is
 * wrong at a distance of exactly 2^23 -- the PSNs of one WQE of 2^31
 * bytes at path MTU 256.  A received PSN more than the span past the
 * base is behind the window.
 */
static u32 xnic_sim_wreq_base(struct xnic_sim_wreq *wr)
{
	if (wr->fl_head != wr->fl_tail)
		return xnic_sim_wfl(wr, wr->fl_head)->first_psn;
	return wr->una_psn;
}

static u32 xnic_sim_wreq_off(struct xnic_sim_wreq *wr, u32 psn)
{
	return xnic_sim_wreq_psn_diff(psn, xnic_sim_wreq_base(wr));
}

/* <0, 0, >0 as @a is before, at, after @b in the window. */
static s32 xnic_sim_wreq_cmp(struct xnic_sim_wreq *wr, u32 a, u32 b)
{
	return (s32)xnic_sim_wreq_off(wr, a) - (s32)xnic_sim_wreq_off(wr, b);
}

/* A received PSN already acknowledged: before una_psn, or behind. */
static bool xnic_sim_wreq_old(struct xnic_sim_wreq *wr, u32 psn)
{
	u32 off = xnic_sim_wreq_off(wr, psn);

	return off > XNIC_SIM_WIRE_PSN_SPAN ||
	       off < xnic_sim_wreq_off(wr, wr->una_psn);
}

#ifdef XNIC_SIM_TEST_HOOKS
u32 xnic_sim_wreq_test_skip;

/*
 * KUnit seam: a WQE of more than xnic_sim_wreq_test_skip packets taken
 * with nothing in flight has that many of its first PSNs taken as sent
 * and acknowledged (once), so that a case reaches the end of a WQE of
 * 2^23 packets without moving 2 GiB.
 */
static void xnic_sim_wreq_test_skip_psns(struct xnic_sim_wreq *wr,
					 const struct xnic_sim_wflight *e)
{
	u32 n = READ_ONCE(xnic_sim_wreq_test_skip);

	if (!n || n >= e->npkts || wr->fl_tail - wr->fl_head != 1)
		return;
	WRITE_ONCE(xnic_sim_wreq_test_skip, 0);
	wr->una_psn = xnic_sim_wreq_psn_add(e->first_psn, n);
	wr->ack_psn = wr->una_psn;
	wr->snd_psn = wr->una_psn;
	wr->max_psn = wr->una_psn;
}
#else
static void xnic_sim_wreq_test_skip_psns(struct xnic_sim_wreq *wr,
					 const struct xnic_sim_wflight *e)
{
}
#endif

/* The WQE in flight whose PSNs hold @psn, or NULL. */
static struct xnic_sim_wflight *xnic_sim_wfl_find(struct xnic_sim_wreq *wr,
						  u32 psn, u32 *pos)
{
	u32 off = xnic_sim_wreq_off(wr, psn);
	u32 i;

	for (i = wr->fl_head; i != wr->fl_tail; i++) {
		struct xnic_sim_wflight *e = xnic_sim_wfl(wr, i);

		if (off < xnic_sim_wreq_off(wr, e->first_psn))
			return NULL;
		if (off < xnic_sim_wreq_off(wr, xnic_sim_wfl_end(e))) {
			if (pos)
				*pos = i;
			return e;
		}
	}
	return NULL;
}

/* Retransmission timeout: 4.096 us << timeout, 0 none (as rxe). */
static u64 xnic_sim_wreq_to_ns(u8 timeout)
{
	if (!timeout)
		return 0;
	return max_t(u64, 4096ULL << min_t(u8, timeout, 31),
		     XNIC_SIM_WREQ_MIN_TO_NS);
}

static void xnic_sim_wreq_timer_start(struct xnic_sim_qp *qp, u64 now)
{
	u64 to = xnic_sim_wreq_to_ns(qp->timeout);

	qp->wreq->timer = to ? now + to : 0;
}

/* Nothing in flight: PSNs from the QP's (MODIFY_QP may have set it). */
static void xnic_sim_wreq_idle(struct xnic_sim_wreq *wr, u32 sq_psn)
{
	wr->una_psn = sq_psn;
	wr->ack_psn = sq_psn;
	wr->snd_psn = sq_psn;
	wr->max_psn = sq_psn;
	wr->rd_out = 0;
	wr->gap_retried = false;
	wr->timer = 0;
	wr->wait_until = 0;
}

/* ------------------------------------------------------------------ */
/* Completion                                                          */

/*
 * Complete the WQEs at the head that are done: all their PSNs
 * acknowledged (UC: sent), or a status.  A status completes in error
 * and takes the QP to ERR: what is still in flight is flushed from
 * sq_ci on (xnic_sim_qp_flush()).  Return: whether any completed.
 */
static bool xnic_sim_wreq_retire(struct xnic_sim_dev *dev,
				 struct xnic_sim_qp *qp)
{
	struct xnic_sim_wreq *wr = qp->wreq;
	struct xnic_sim_swqe *w = &dev->scr->w;
	bool did = false;

	while (wr->fl_head != wr->fl_tail) {
		struct xnic_sim_wflight *e = xnic_sim_wfl(wr, wr->fl_head);
		u8 status = e->status;

		if (!status &&
		    xnic_sim_wreq_cmp(wr, wr->una_psn, xnic_sim_wfl_end(e)) < 0)
			break;
		wr->fl_head++;
		if (xnic_sim_wreq_op_rd(e->opcode) && wr->rd_out)
			wr->rd_out--;
		/* what xnic_sim_sq_complete() reads of the WQE */
		w->opcode = e->opcode;
		w->flags = e->flags;
		w->wr_id = e->wr_id;
		xnic_sim_sq_complete(dev, qp, status, xnic_sim_wfl_bytes(e));
		did = true;
		if (status) {
			wr->fl_head = wr->fl_tail;
			xnic_sim_wreq_idle(wr, qp->sq_psn);
			break;
		}
	}
	if (wr->fl_head == wr->fl_tail)
		wr->timer = 0;
	return did;
}

/* The WQE in flight at @psn completes with @status once it is oldest. */
static void xnic_sim_wreq_fail(struct xnic_sim_dev *dev,
			       struct xnic_sim_qp *qp, u32 psn, u8 status)
{
	struct xnic_sim_wflight *e = xnic_sim_wfl_find(qp->wreq, psn, NULL);

	if (e && !e->status)
		e->status = status;
	xnic_sim_wreq_retire(dev, qp);
}

/* una_psn moves on to @psn (if later): progress. */
static void xnic_sim_wreq_una(struct xnic_sim_qp *qp, u32 psn, u64 now)
{
	struct xnic_sim_wreq *wr = qp->wreq;

	if (xnic_sim_wreq_cmp(wr, psn, wr->una_psn) <= 0)
		return;
	wr->una_psn = psn;
	if (xnic_sim_wreq_cmp(wr, wr->ack_psn, psn) < 0)
		wr->ack_psn = psn;
	if (xnic_sim_wreq_cmp(wr, wr->snd_psn, psn) < 0)
		wr->snd_psn = psn;
	qp->retry_count = 0;
	qp->rnr_count = 0;
	wr->gap_retried = false;
	if (xnic_sim_wreq_cmp(wr, psn, wr->max_psn) < 0)
		xnic_sim_wreq_timer_start(qp, now);
	else
		wr->timer = 0;
}

/*
 * Acknowledge every PSN before @end (an ACK's PSN + 1, a NAK's PSN).  A
 * READ or atomic whose responses did not all come stops it there: they
 * were lost.  Return: whether one did (the caller goes back to it).
 */
static bool xnic_sim_wreq_ack(struct xnic_sim_qp *qp, u32 end, u64 now)
{
	struct xnic_sim_wreq *wr = qp->wreq;
	u32 i;

	for (i = wr->fl_head; i != wr->fl_tail; i++) {
		struct xnic_sim_wflight *e = xnic_sim_wfl(wr, i);
		u32 e_end = xnic_sim_wfl_end(e);

		if (xnic_sim_wreq_cmp(wr, end, e->first_psn) <= 0)
			break;
		if (xnic_sim_wreq_op_rd(e->opcode) &&
		    xnic_sim_wreq_cmp(wr, wr->una_psn, e_end) < 0) {
			xnic_sim_wreq_una(qp, e->first_psn, now);
			return true;
		}
		if (xnic_sim_wreq_cmp(wr, end, e_end) < 0) {
			xnic_sim_wreq_una(qp, end, now);
			break;
		}
		xnic_sim_wreq_una(qp, e_end, now);
	}
	return false;
}

/*
 * A transport retry (the timer, a PSN sequence NAK, lost responses):
 * resend from una_psn, or, with retry_cnt retries made, complete the
 * oldest WQE with RETRY_EXC_ERR.
 */
static void xnic_sim_wreq_retry(struct xnic_sim_dev *dev,
				struct xnic_sim_qp *qp)
{
	struct xnic_sim_wreq *wr = qp->wreq;

	if (!xnic_sim_retry_left(qp->retry_count, qp->retry_cnt, false)) {
		xnic_sim_wreq_fail(dev, qp, wr->una_psn,
				   XNIC_CQE_RETRY_EXC_ERR);
		return;
	}
	qp->retry_count++;
	qp->retries++;
	xnic_sim_count(dev, XNIC_SIM_CTR_retries, 1);
	wr->snd_psn = wr->una_psn;
	wr->timer = 0;
	wr->wait_until = 0;
}

/* ------------------------------------------------------------------ */
/* Packets out                                                         */

/* The network fields of a packet from source GID entry @sgid_index. */
static bool xnic_sim_wreq_net(struct xnic_sim_dev *dev, u8 sgid_index,
			      const u8 *dgid, struct xnic_sim_pkt *p)
{
	u8 type;

	if (!xnic_sim_sgid(dev, sgid_index, p->sgid, &type))
		return false;
	memcpy(p->dgid, dgid, sizeof(p->dgid));
	/*
	 * The wire speaks RoCEv2 only: an IPv4-mapped GID is IPv4 also
	 * from a RoCE v1 entry (as rxe, whose GIDs are all v2)
	 */
	p->ipv4 = xnic_sim_gid_is_v4(p->sgid);
	p->hop_limit = XNIC_SIM_DEFAULT_TTL;
	p->pkey = XNIC_SIM_DEFAULT_PKEY;
	return true;
}

/*
 * Segments @out covering @s (@n of them) from byte @off on.  Return: how
 * many.
 */
static u32 xnic_sim_wreq_segs_at(const struct xnic_sim_seg *s, u32 n,
				 u64 off, struct xnic_sim_seg *out)
{
	u32 i, k = 0;

	for (i = 0; i < n; i++) {
		if (off >= s[i].len) {
			off -= s[i].len;
			continue;
		}
		out[k] = s[i];
		if (s[i].mr)
			out[k].addr += off;
		else
			out[k].kaddr = (u8 *)s[i].kaddr + off;
		out[k].len -= off;
		off = 0;
		k++;
	}
	return k;
}

/*
 * Send packet @p with @p->paylen bytes from byte @off of the local
 * segments @seg (@nseg of them).  Return: 0 (sent, or lost: the wire
 * counted it), -EHOSTUNREACH (no MAC for the peer yet), or a CQE status
 * (the local memory could not be read).
 */
static int xnic_sim_wreq_out(struct xnic_sim_dev *dev,
			     struct xnic_sim_pkt *p,
			     const struct xnic_sim_seg *seg, u32 nseg, u64 off)
{
	struct xnic_sim_seg src[XNIC_SIM_MAX_SGE + 1];
	struct sk_buff *skb;
	u8 *payload = NULL;

	skb = xnic_sim_wire_alloc(dev, p, &payload);
	if (!skb)
		return 0;
	if (p->paylen) {
		struct xnic_sim_seg dst = { .kaddr = payload,
					    .len = p->paylen };
		u32 n = xnic_sim_wreq_segs_at(seg, nseg, off, src);

		if (xnic_sim_copy(&dst, 1, src, n, p->paylen,
				  xnic_sim_may_sleep(dev))) {
			kfree_skb(skb);
			return XNIC_CQE_LOC_PROT_ERR;
		}
	}
	return xnic_sim_wire_xmit(dev, skb, p) == -EHOSTUNREACH ?
	       -EHOSTUNREACH : 0;
}

/* BTH opcode of packet @k of @n of a SEND or WRITE (its operation). */
static u8 xnic_sim_wreq_bth_op(u8 opcode, u32 k, u32 n)
{
	bool first = k == 0, last = k == n - 1;

	switch (opcode) {
	case XNIC_OP_SEND:
		return first && last ? XNIC_SIM_BTH_SEND_ONLY :
		       first ? XNIC_SIM_BTH_SEND_FIRST :
		       last ? XNIC_SIM_BTH_SEND_LAST : XNIC_SIM_BTH_SEND_MIDDLE;
	case XNIC_OP_SEND_WITH_IMM:
		return first && last ? XNIC_SIM_BTH_SEND_ONLY_IMM :
		       first ? XNIC_SIM_BTH_SEND_FIRST :
		       last ? XNIC_SIM_BTH_SEND_LAST_IMM :
		       XNIC_SIM_BTH_SEND_MIDDLE;
	case XNIC_OP_SEND_WITH_INV:
		return first && last ? XNIC_SIM_BTH_SEND_ONLY_INV :
		       first ? XNIC_SIM_BTH_SEND_FIRST :
		       last ? XNIC_SIM_BTH_SEND_LAST_INV :
		       XNIC_SIM_BTH_SEND_MIDDLE;
	case XNIC_OP_RDMA_WRITE:
		return first && last ? XNIC_SIM_BTH_WRITE_ONLY :
		       first ? XNIC_SIM_BTH_WRITE_FIRST :
		       last ? XNIC_SIM_BTH_WRITE_LAST :
		       XNIC_SIM_BTH_WRITE_MIDDLE;
	case XNIC_OP_RDMA_WRITE_WITH_IMM:
		return first && last ? XNIC_SIM_BTH_WRITE_ONLY_IMM :
		       first ? XNIC_SIM_BTH_WRITE_FIRST :
		       last ? XNIC_SIM_BTH_WRITE_LAST_IMM :
		       XNIC_SIM_BTH_WRITE_MIDDLE;
	case XNIC_OP_RDMA_READ:
		return XNIC_SIM_BTH_READ_REQUEST;
	case XNIC_OP_ATOMIC_CMP_AND_SWP:
		return XNIC_SIM_BTH_CMP_SWAP;
	default:
		return XNIC_SIM_BTH_FETCH_ADD;
	}
}

/*
 * The packet of @e at PSN @psn (packet @k, payload from byte @off) from
 * the decoded WQE in scratch.
 */
static void xnic_sim_wreq_fill(struct xnic_sim_qp *qp,
			       const struct xnic_sim_wflight *e,
			       const struct xnic_sim_swqe *w, u32 k, u32 mtu,
			       struct xnic_sim_pkt *p)
{
	bool rc = xnic_sim_qpt_rc(qp->type);
	u8 op = xnic_sim_wreq_bth_op(e->opcode, k, e->npkts);
	u32 mask, off = k * mtu;

	p->opcode = (rc ? XNIC_SIM_BTH_RC : XNIC_SIM_BTH_UC) | op;
	mask = xnic_sim_opcodes[p->opcode].mask;
	p->dqpn = qp->dest_qpn;
	p->psn = xnic_sim_wreq_psn_add(e->first_psn, k);
	p->sport = xnic_sim_roce_sport(qp->qpn, qp->dest_qpn);
	p->paylen = 0;
	if (e->opcode == XNIC_OP_RDMA_READ) {
		/* a resent READ asks for what did not come yet */
		p->va = w->remote_addr + off;
		p->rkey = w->rkey;
		p->dma_len = e->len - off;
		p->ackreq = true;
		return;
	}
	if (xnic_sim_wreq_op_atomic(e->opcode)) {
		p->va = w->remote_addr;
		p->rkey = w->rkey;
		p->swap_add = e->opcode == XNIC_OP_ATOMIC_CMP_AND_SWP ?
			      w->swap : w->compare_add;
		p->cmp = w->compare_add;
		p->ackreq = true;
		return;
	}
	p->paylen = min(mtu, e->len - off);
	if (mask & XNIC_SIM_PH_RETH) {
		p->va = w->remote_addr;
		p->rkey = w->rkey;
		p->dma_len = e->len;
	}
	if (mask & XNIC_SIM_PH_IMM)
		p->imm = (__force __be32)w->imm;
	if (mask & XNIC_SIM_PH_IETH)
		p->ieth = le32_to_cpu(w->imm);
	p->ackreq = rc && (k == e->npkts - 1 ||
			   (k + 1) % XNIC_SIM_WREQ_ACK_EVERY == 0);
	p->se = k == e->npkts - 1 && (w->flags & XNIC_WQE_SOLICITED) &&
		(e->opcode == XNIC_OP_SEND || e->opcode == XNIC_OP_SEND_WITH_IMM ||
		 e->opcode == XNIC_OP_SEND_WITH_INV ||
		 e->opcode == XNIC_OP_RDMA_WRITE_WITH_IMM);
}

/*
 * The requester's local checks of the decoded WQE in scratch, in the
 * cable's order (xnic_sim_sq_exec()), its local segments in scratch.
 * Return: 0 or the CQE status it completes with.
 */
static u8 xnic_sim_wreq_check(struct xnic_sim_dev *dev,
			      struct xnic_sim_qp *qp, u32 *nl, u64 *len)
{
	const struct xnic_sim_swqe *w = &dev->scr->w;
	bool rd = xnic_sim_wreq_op_rd(w->opcode);
	u8 st;

	st = xnic_sim_op_check(qp->type, w->opcode, qp->kernel);
	if (st)
		return st;
	if (rd && !xnic_sim_rd_atomic_init(qp, &st))
		return st;
	st = xnic_sim_local_segs(dev, qp, rd ? XNIC_ACCESS_LOCAL_WRITE : 0, 0,
				 nl, len);
	if (!st && xnic_sim_wreq_op_atomic(w->opcode) && *len < 8)
		st = XNIC_CQE_LOC_LEN_ERR;
	return st;
}

/*
 * Send the packets of @e from snd_psn on.  @nl: its local segments, in
 * scratch with its decoded WQE; -1: read it again.  Return: whether the
 * turn may go on to the next WQE.
 */
static bool xnic_sim_wreq_send_fl(struct xnic_sim_dev *dev,
				  struct xnic_sim_qp *qp,
				  struct xnic_sim_wflight *e, int nl,
				  u64 now, u32 *pkts,
				  struct xnic_sim_budget *b)
{
	struct xnic_sim_scratch *s = dev->scr;
	struct xnic_sim_wreq *wr = qp->wreq;
	bool rc = xnic_sim_qpt_rc(qp->type);
	u32 mtu = xnic_sim_mtu_bytes(qp->mtu);
	struct xnic_sim_pkt p = { };
	u32 k, n;
	u64 len;
	u8 st;
	int r;

	if (e->status)
		return false;
	if (nl < 0) {
		r = xnic_sim_sq_fetch_at(dev, qp, e->idx);
		if (r != 1 || s->w.opcode != e->opcode) {
			e->status = XNIC_CQE_LOC_QP_OP_ERR;
			return false;
		}
		st = xnic_sim_wreq_check(dev, qp, &n, &len);
		if (!st && len != e->len)
			st = XNIC_CQE_LOC_QP_OP_ERR;
		if (st) {
			e->status = st;
			return false;
		}
		nl = n;
	}
	if (!xnic_sim_wreq_net(dev, qp->sgid_index, qp->dgid, &p)) {
		/* the AV's source GID entry is gone */
		e->status = XNIC_CQE_LOC_QP_OP_ERR;
		return false;
	}
	k = xnic_sim_wreq_psn_diff(wr->snd_psn, e->first_psn);
	while (k < e->npkts) {
		u32 off = k * mtu;

		if (!*pkts)
			return false;
		if (!b->bytes) {
			b->left = true;
			return false;
		}
		if (rc && xnic_sim_wreq_psn_diff(wr->snd_psn, wr->una_psn) >=
			  XNIC_SIM_WIRE_PSN_WINDOW)
			return false;
		xnic_sim_wreq_fill(qp, e, &s->w, k, mtu, &p);
		r = xnic_sim_wreq_out(dev, &p, s->lseg, nl, off);
		if (r > 0) {
			e->status = r;
			return false;
		}
		if (r == -EHOSTUNREACH &&
		    wr->neigh_waits < XNIC_SIM_WREQ_NEIGH_MAX) {
			/* the wire is resolving the peer's MAC: wait */
			wr->neigh_waits++;
			wr->wait_until = now + XNIC_SIM_WREQ_NEIGH_NS;
			return false;
		}
		if (!r)
			wr->neigh_waits = 0;
		(*pkts)--;
		b->bytes -= min_t(u64, b->bytes, p.paylen);
		if (xnic_sim_wreq_cmp(wr, wr->snd_psn, wr->max_psn) < 0)
			xnic_sim_count(dev, XNIC_SIM_CTR_wire_retransmits, 1);
		/* a READ request stands for all its responses */
		if (xnic_sim_wreq_op_rd(e->opcode))
			k = e->npkts;
		else
			k++;
		wr->snd_psn = xnic_sim_wreq_psn_add(e->first_psn, k);
		if (xnic_sim_wreq_cmp(wr, wr->snd_psn, wr->max_psn) > 0)
			wr->max_psn = wr->snd_psn;
		if (rc && !wr->timer)
			xnic_sim_wreq_timer_start(qp, now);
	}
	if (!rc)
		wr->una_psn = wr->snd_psn;
	return true;
}

/*
 * A local operation the requester executes as soon as it reaches it,
 * with WQEs still in flight before it (rxe_do_local_ops()): REG_MR,
 * BIND_MW, NOP.  LOCAL_INV waits until everything before it completed
 * (the Local Invalidate Fence, IBTA 10.6.5.1, as rxe_wqe_is_fenced()):
 * a retransmission of an earlier WQE may still read the MR it
 * invalidates.
 */
static bool xnic_sim_wreq_op_early(u8 opcode)
{
	return opcode == XNIC_OP_REG_MR || opcode == XNIC_OP_BIND_MW ||
	       opcode == XNIC_OP_NOP;
}

/*
 * The WQE that does not go on the wire: execute a local operation, or
 * the status it completes with (@r: what the fetch returned, @status:
 * the requester's checks).  Return: its CQE status; @len its byte_len.
 */
static u8 xnic_sim_wreq_local(struct xnic_sim_dev *dev,
			      struct xnic_sim_qp *qp, int r, u8 status,
			      u32 *len)
{
	u8 op = dev->scr->w.opcode;

	*len = 0;
	if (r == 2) {
		status = XNIC_CQE_LOC_QP_OP_ERR;
	} else if (!status && (op == XNIC_OP_LOCAL_INV ||
			       xnic_sim_wreq_op_early(op))) {
		xnic_sim_sq_exec(dev, qp, &status, len);
	} else if (!status) {
		/* ATOMIC_WRITE, FLUSH: not on the wire (wire.rst) */
		status = XNIC_CQE_LOC_QP_OP_ERR;
	}
	return status;
}

/*
 * Take the next WQE of the SQ, past those in flight.  Return: 1 taken
 * (and its first packets sent), 0 stop here for now, -1 nothing more
 * to take.
 */
static int xnic_sim_wreq_take(struct xnic_sim_dev *dev,
			      struct xnic_sim_qp *qp, u64 now, u32 *pkts,
			      struct xnic_sim_budget *b)
{
	struct xnic_sim_wreq *wr = qp->wreq;
	const struct xnic_sim_swqe *w = &dev->scr->w;
	u32 n = wr->fl_tail - wr->fl_head, nl = 0;
	bool idle = !n, rd;
	struct xnic_sim_wflight *e;
	u32 npkts = 1;
	u64 len = 0;
	u8 st = 0;
	int r;

	if (n >= XNIC_SIM_WIRE_WINDOW)
		return 0;
	/* a local operation that failed: nothing after it starts */
	if (n && xnic_sim_wfl(wr, wr->fl_tail - 1)->status)
		return 0;
	r = xnic_sim_sq_fetch_at(dev, qp, qp->sq_ci + n);
	if (r <= 0) {
		if (r < 0) {
			qp->bad_doorbells++;
			xnic_sim_count(dev, XNIC_SIM_CTR_bad_doorbells, 1);
		}
		return -1;
	}
	if (!b->wqes || !b->bytes) {
		b->left = true;
		return 0;
	}
	if (r == 1 && xnic_sim_wreq_op_wire(w->opcode))
		st = xnic_sim_wreq_check(dev, qp, &nl, &len);
	if (r == 1 && !st && xnic_sim_wreq_op_early(w->opcode) && !idle) {
		/*
		 * Executed now, completed in order: a WQE in flight with
		 * no PSNs, done once everything before it is (FENCE: once
		 * the READs and atomics before it completed).
		 */
		if ((w->flags & XNIC_WQE_FENCE) && wr->rd_out)
			return 0;
		if (!xnic_sim_budget_take(b, w))
			return 0;
		e = xnic_sim_wfl(wr, wr->fl_tail++);
		*e = (struct xnic_sim_wflight) {
			.idx = qp->sq_ci + n,
			.opcode = w->opcode,
			.flags = w->flags,
			.wr_id = w->wr_id,
			.first_psn = qp->sq_psn,
		};
		e->status = xnic_sim_wreq_local(dev, qp, r, 0, &e->len);
		return 1;
	}
	if (r != 1 || !xnic_sim_wreq_op_wire(w->opcode) || st) {
		u32 l;

		/* in order: once everything before it completed */
		if (!idle)
			return 0;
		if (!xnic_sim_budget_take(b, w))
			return 0;
		st = xnic_sim_wreq_local(dev, qp, r, st, &l);
		xnic_sim_sq_complete(dev, qp, st, l);
		return 1;
	}
	rd = xnic_sim_wreq_op_rd(w->opcode);
	if ((rd && wr->rd_out >= qp->max_rd_atomic) ||
	    ((w->flags & XNIC_WQE_FENCE) && wr->rd_out))
		return 0;
	if (xnic_sim_qpt_rc(qp->type) &&
	    xnic_sim_wreq_psn_diff(wr->snd_psn, wr->una_psn) >=
	    XNIC_SIM_WIRE_PSN_WINDOW)
		return 0;
	/* len <= XNIC_SIM_MAX_MSG: at most 2^23 packets, the whole span */
	if (!xnic_sim_wreq_op_atomic(w->opcode) && len)
		npkts = DIV_ROUND_UP_ULL(len, xnic_sim_mtu_bytes(qp->mtu));
	/* its PSNs within the span from the oldest in flight */
	if (xnic_sim_wreq_off(wr, qp->sq_psn) + npkts > XNIC_SIM_WIRE_PSN_SPAN)
		return 0;
	b->wqes--;
	e = xnic_sim_wfl(wr, wr->fl_tail++);
	*e = (struct xnic_sim_wflight) {
		.idx = qp->sq_ci + n,
		.opcode = w->opcode,
		.flags = w->flags,
		.wr_id = w->wr_id,
		.len = len,
		.first_psn = qp->sq_psn,
		.npkts = npkts,
	};
	if (rd)
		wr->rd_out++;
	qp->sq_psn = xnic_sim_wreq_psn_add(qp->sq_psn, e->npkts);
	xnic_sim_wreq_test_skip_psns(wr, e);
	xnic_sim_wreq_send_fl(dev, qp, e, nl, now, pkts, b);
	return 1;
}

/* RTS, or SQD: draining, what was started completes (timers run). */
static bool xnic_sim_wreq_live(const struct xnic_sim_qp *qp)
{
	u8 state = READ_ONCE(qp->state);

	return state == XNIC_QPS_RTS || state == XNIC_QPS_SQD;
}

/**
 * xnic_sim_wreq_turn - a wire RC/UC QP's turn in RTS or SQD
 * @dev: its device (the engine thread)
 * @qp: the QP
 * @now: xnic_sim_now()
 * @next: lowered to the QP's next deadline (retransmission, RNR wait)
 * @b: the pass's budget
 *
 * Expired timers first, then the packets not sent yet (after a go-back,
 * or the rest of a long message), then new WQEs -- not in SQD: the WQEs
 * already taken complete or time out, none is started.  The QP stays on
 * the active list while anything is in flight.  Return: whether anything
 * was sent or completed.
 */
bool xnic_sim_wreq_turn(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
			u64 now, u64 *next, struct xnic_sim_budget *b)
{
	struct xnic_sim_wreq *wr = qp->wreq;
	u32 pkts = XNIC_SIM_WREQ_TURN_PKTS;
	bool work = false;
	int r = 0;

	if (b->atomic) {
		/* packets and their waits: the engine thread's */
		b->left = true;
		return false;
	}
	if (!wr) {
		xnic_sim_qp_deactivate(qp);
		return false;
	}
	if (wr->fl_head == wr->fl_tail)
		xnic_sim_wreq_idle(wr, qp->sq_psn);
	if (wr->timer && now >= wr->timer) {
		xnic_sim_count(dev, XNIC_SIM_CTR_wire_timeouts, 1);
		wr->gap_retried = false;
		xnic_sim_wreq_retry(dev, qp);
		work = true;
		if (!xnic_sim_wreq_live(qp))
			return true;
	}
	if (wr->wait_until) {
		if (now < wr->wait_until) {
			*next = min(*next, wr->wait_until);
			goto out;
		}
		wr->wait_until = 0;
	}
	while (xnic_sim_wreq_live(qp) && pkts) {
		if (wr->snd_psn != qp->sq_psn) {
			struct xnic_sim_wflight *e;
			u32 before = pkts;

			e = xnic_sim_wfl_find(wr, wr->snd_psn, NULL);
			if (!e)
				break;
			if (!xnic_sim_wreq_send_fl(dev, qp, e, -1, now, &pkts,
						   b)) {
				work |= pkts != before;
				/* a WQE that failed its checks again */
				work |= xnic_sim_wreq_retire(dev, qp);
				break;
			}
			work = true;
			continue;
		}
		/* SQ drain: nothing new starts */
		if (READ_ONCE(qp->state) != XNIC_QPS_RTS)
			break;
		r = xnic_sim_wreq_take(dev, qp, now, &pkts, b);
		if (r <= 0)
			break;
		work = true;
		/* a UC message is done once sent; a local WQE completed */
		xnic_sim_wreq_retire(dev, qp);
		if (wr->wait_until)
			break;
	}
out:
	if (!xnic_sim_wreq_live(qp))
		return work;
	if (wr->fl_head == wr->fl_tail &&
	    (r < 0 || READ_ONCE(qp->state) == XNIC_QPS_SQD)) {
		/* nothing to take, or drained */
		xnic_sim_qp_deactivate(qp);
		return work;
	}
	if (wr->timer)
		*next = min(*next, wr->timer);
	if (wr->wait_until)
		*next = min(*next, wr->wait_until);
	return work;
}

/* ------------------------------------------------------------------ */
/* Responses in                                                        */

/*
 * A READ response or atomic ACK acknowledged up to @psn: an ACK that came
 * before, beyond a READ whose responses were missing, now counts too.
 */
static void xnic_sim_wreq_progress(struct xnic_sim_dev *dev,
				   struct xnic_sim_qp *qp, u32 psn, u64 now)
{
	struct xnic_sim_wreq *wr = qp->wreq;

	xnic_sim_wreq_una(qp, psn, now);
	if (xnic_sim_wreq_cmp(wr, wr->ack_psn, wr->una_psn) > 0)
		xnic_sim_wreq_ack(qp, wr->ack_psn, now);
	xnic_sim_wreq_retire(dev, qp);
}

/*
 * Whether a READ response or atomic ACK at @psn is the next one
 * expected: of the READ/atomic @e, with nothing but SENDs and WRITEs
 * before it in flight (which it acknowledges).
 */
static bool xnic_sim_wreq_expected(struct xnic_sim_wreq *wr,
				   const struct xnic_sim_wflight *e, u32 pos,
				   u32 psn)
{
	u32 i;

	for (i = wr->fl_head; i != pos; i++)
		if (xnic_sim_wreq_op_rd(xnic_sim_wfl(wr, i)->opcode))
			return false;
	if (xnic_sim_wreq_cmp(wr, wr->una_psn, e->first_psn) <= 0)
		return psn == e->first_psn;
	return psn == wr->una_psn;
}

/*
 * Data of a READ response or an atomic ACK into the local segments of
 * @e, from byte @off: the WQE is read again and checked.  Return: 0 or
 * the CQE status @e completes with.
 */
static u8 xnic_sim_wreq_land(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
			     const struct xnic_sim_wflight *e, u64 off,
			     void *data, u32 len)
{
	struct xnic_sim_scratch *s = dev->scr;
	struct xnic_sim_seg dst[XNIC_SIM_MAX_SGE + 1];
	struct xnic_sim_seg src = { .kaddr = data, .len = len };
	u64 total;
	u32 nl, n;
	u8 st;

	if (!len)
		return 0;
	if (xnic_sim_sq_fetch_at(dev, qp, e->idx) != 1 ||
	    s->w.opcode != e->opcode)
		return XNIC_CQE_LOC_QP_OP_ERR;
	st = xnic_sim_wreq_check(dev, qp, &nl, &total);
	if (st)
		return st;
	if (total != e->len)
		return XNIC_CQE_LOC_QP_OP_ERR;
	n = xnic_sim_wreq_segs_at(s->lseg, nl, off, dst);
	if (xnic_sim_copy(dst, n, &src, 1, len, xnic_sim_may_sleep(dev)))
		return XNIC_CQE_LOC_PROT_ERR;
	return 0;
}

/*
 * Responses of a READ or atomic in flight were lost, and something later
 * shows it: a READ response or atomic ACK beyond them
 * (xnic_sim_wreq_resp_gap()), or an ACK or NAK of a later PSN
 * (xnic_sim_wreq_ack() stopped at the READ or atomic).  Ask again from
 * una_psn at once, go-back-N as after a PSN sequence NAK (rxe's
 * completer: check_psn(), a response beyond the last PSN of a pending
 * READ or atomic WQE, or beyond comp.psn, COMPST_ERROR_RETRY), rather
 * than a timer period later -- but once per gap, as rxe's
 * comp.started_retry: the rest of the stale stream, every later response
 * and every coalesced ACK beyond the gap, asks nothing more until
 * progress (xnic_sim_wreq_una()) or the timer clears gap_retried.  It is
 * a transport retry: it takes one of retry_cnt (as rxe, but for 7), so a
 * peer that never fills the gap ends in RETRY_EXC_ERR.
 */
static void xnic_sim_wreq_gap_retry(struct xnic_sim_dev *dev,
				    struct xnic_sim_qp *qp)
{
	struct xnic_sim_wreq *wr = qp->wreq;

	if (wr->gap_retried)
		return;
	wr->gap_retried = true;
	xnic_sim_wreq_retry(dev, qp);
}

/* A READ response or atomic ACK at @psn, not the next expected. */
static void xnic_sim_wreq_resp_gap(struct xnic_sim_dev *dev,
				   struct xnic_sim_qp *qp, u32 psn)
{
	struct xnic_sim_wreq *wr = qp->wreq;

	if (xnic_sim_wreq_cmp(wr, psn, wr->una_psn) <= 0 ||
	    xnic_sim_wreq_cmp(wr, psn, wr->max_psn) >= 0)
		return;
	xnic_sim_wreq_gap_retry(dev, qp);
}

/* A READ response (@mask: its opcode's XNIC_SIM_PH_*). */
static void xnic_sim_wreq_read_resp(struct xnic_sim_dev *dev,
				    struct xnic_sim_qp *qp,
				    const struct xnic_sim_pkt *p, u32 mask,
				    u64 now)
{
	struct xnic_sim_wreq *wr = qp->wreq;
	u32 mtu = xnic_sim_mtu_bytes(qp->mtu), pos, k, left;
	struct xnic_sim_wflight *e;
	u8 st;

	e = xnic_sim_wfl_find(wr, p->psn, &pos);
	if (!e || e->opcode != XNIC_OP_RDMA_READ) {
		xnic_sim_count(dev, XNIC_SIM_CTR_wire_oos_drops, 1);
		return;
	}
	if (!xnic_sim_wreq_expected(wr, e, pos, p->psn)) {
		xnic_sim_wreq_resp_gap(dev, qp, p->psn);
		xnic_sim_count(dev, XNIC_SIM_CTR_wire_oos_drops, 1);
		return;
	}
	k = xnic_sim_wreq_psn_diff(p->psn, e->first_psn);
	left = e->len - k * mtu;
	/* every response but the last carries exactly one MTU */
	if ((mask & XNIC_SIM_PH_END) ? p->paylen != left :
	    (p->paylen != mtu || left <= mtu)) {
		xnic_sim_count(dev, XNIC_SIM_CTR_wire_malformed, 1);
		return;
	}
	/* earlier SENDs and WRITEs: done */
	xnic_sim_wreq_una(qp, e->first_psn, now);
	st = xnic_sim_wreq_land(dev, qp, e, (u64)k * mtu,
				(void *)p->payload, p->paylen);
	if (st) {
		e->status = st;
		xnic_sim_wreq_retire(dev, qp);
		return;
	}
	xnic_sim_wreq_progress(dev, qp, xnic_sim_wreq_psn_add(p->psn, 1), now);
}

/*
 * An atomic ACK: the original value into the local segment.  One of an
 * atomic behind a READ or atomic whose responses did not all come asks
 * again at once, as a READ response beyond a gap does.
 */
static void xnic_sim_wreq_atomic_ack(struct xnic_sim_dev *dev,
				     struct xnic_sim_qp *qp,
				     const struct xnic_sim_pkt *p, u64 now)
{
	struct xnic_sim_wreq *wr = qp->wreq;
	struct xnic_sim_wflight *e;
	u64 orig = p->orig;
	u32 pos;
	u8 st;

	e = xnic_sim_wfl_find(wr, p->psn, &pos);
	if (!e || !xnic_sim_wreq_op_atomic(e->opcode)) {
		xnic_sim_count(dev, XNIC_SIM_CTR_wire_oos_drops, 1);
		return;
	}
	if (!xnic_sim_wreq_expected(wr, e, pos, p->psn)) {
		xnic_sim_wreq_resp_gap(dev, qp, p->psn);
		xnic_sim_count(dev, XNIC_SIM_CTR_wire_oos_drops, 1);
		return;
	}
	xnic_sim_wreq_una(qp, e->first_psn, now);
	st = xnic_sim_wreq_land(dev, qp, e, 0, &orig, 8);
	if (st) {
		e->status = st;
		xnic_sim_wreq_retire(dev, qp);
		return;
	}
	xnic_sim_wreq_progress(dev, qp, xnic_sim_wreq_psn_add(p->psn, 1), now);
}

/* The CQE status of a NAK's code (IBTA 9.7.5.2.8, as rxe). */
static u8 xnic_sim_wreq_nak_status(u8 code)
{
	switch (code) {
	case XNIC_SIM_NAK_INV_REQ:
	case XNIC_SIM_NAK_INV_RD_REQ:
		return XNIC_CQE_REM_INV_REQ_ERR;
	case XNIC_SIM_NAK_REM_ACCESS:
		return XNIC_CQE_REM_ACCESS_ERR;
	default:
		return XNIC_CQE_REM_OP_ERR;
	}
}

/* An ACK packet: ACK, RNR NAK or NAK (its AETH). */
static void xnic_sim_wreq_aeth(struct xnic_sim_dev *dev,
			       struct xnic_sim_qp *qp,
			       const struct xnic_sim_pkt *p, u64 now)
{
	struct xnic_sim_wreq *wr = qp->wreq;
	u8 type = XNIC_SIM_AETH_TYPE(p->syndrome);
	u32 psn = p->psn;

	if (type == XNIC_SIM_AETH_ACK) {
		u32 end = xnic_sim_wreq_psn_add(psn, 1);

		if (xnic_sim_wreq_cmp(wr, end, wr->ack_psn) <= 0 ||
		    xnic_sim_wreq_off(wr, end) > XNIC_SIM_WIRE_PSN_SPAN) {
			xnic_sim_count(dev, XNIC_SIM_CTR_wire_duplicates, 1);
			return;
		}
		if (xnic_sim_wreq_cmp(wr, end, wr->max_psn) > 0) {
			xnic_sim_count(dev, XNIC_SIM_CTR_wire_oos_drops, 1);
			return;
		}
		wr->ack_psn = end;
		if (xnic_sim_wreq_ack(qp, end, now))
			xnic_sim_wreq_gap_retry(dev, qp); /* responses lost */
		xnic_sim_wreq_retire(dev, qp);
		return;
	}
	/* a NAK names the PSN it refuses: every one before it arrived */
	if (xnic_sim_wreq_old(wr, psn)) {
		xnic_sim_count(dev, XNIC_SIM_CTR_wire_duplicates, 1);
		return;
	}
	if (xnic_sim_wreq_cmp(wr, psn, wr->max_psn) >= 0 ||
	    type == 0x40) {
		xnic_sim_count(dev, XNIC_SIM_CTR_wire_oos_drops, 1);
		return;
	}
	if (xnic_sim_wreq_ack(qp, psn, now)) {
		xnic_sim_wreq_gap_retry(dev, qp);
		xnic_sim_wreq_retire(dev, qp);
		return;
	}
	xnic_sim_wreq_retire(dev, qp);
	if (READ_ONCE(qp->state) != XNIC_QPS_RTS &&
	    READ_ONCE(qp->state) != XNIC_QPS_SQD)
		return;
	if (type == XNIC_SIM_AETH_RNR) {
		xnic_sim_count(dev, XNIC_SIM_CTR_wire_rnr_naks_rcvd, 1);
		qp->rnr_naks++;
		xnic_sim_count(dev, XNIC_SIM_CTR_rnr_naks, 1);
		if (!xnic_sim_retry_left(qp->rnr_count, qp->rnr_retry, true)) {
			xnic_sim_wreq_fail(dev, qp, psn,
					   XNIC_CQE_RNR_RETRY_EXC_ERR);
			return;
		}
		qp->rnr_count++;
		wr->snd_psn = psn;
		wr->timer = 0;
		wr->wait_until = now + (u64)xnic_sim_wreq_rnr_us[p->syndrome & 31] *
				       NSEC_PER_USEC;
		return;
	}
	if ((p->syndrome & 0x1f) == XNIC_SIM_NAK_PSN_SEQ) {
		xnic_sim_count(dev, XNIC_SIM_CTR_wire_seq_naks_rcvd, 1);
		/* a copy of it (no progress since) asks nothing more */
		xnic_sim_wreq_gap_retry(dev, qp);
		return;
	}
	xnic_sim_count(dev, XNIC_SIM_CTR_wire_err_naks_rcvd, 1);
	xnic_sim_wreq_fail(dev, qp, psn, xnic_sim_wreq_nak_status(p->syndrome & 0x1f));
}

/**
 * xnic_sim_wreq_recv - a response for a wire QP's requester
 * @dev: its device (the engine)
 * @qp: the QP the response names
 * @p: the parsed packet (ACK, NAK, READ response, atomic ACK)
 *
 * Anything that does not belong to what is in flight is dropped and
 * counted: a PSN already acknowledged (wire_duplicates), one not sent or
 * not the next expected (wire_oos_drops; the timer recovers, or, for a
 * READ response or atomic ACK beyond a gap, go-back-N at once).
 */
void xnic_sim_wreq_recv(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
			const struct xnic_sim_pkt *p)
{
	u32 mask = xnic_sim_opcodes[p->opcode].mask;
	struct xnic_sim_wreq *wr = qp->wreq;
	u8 state = READ_ONCE(qp->state);
	u64 now = xnic_sim_now();

	if (!wr || !READ_ONCE(qp->wire) || !xnic_sim_qpt_rc(qp->type) ||
	    (p->opcode & 0xe0) != XNIC_SIM_BTH_RC ||
	    !(mask & XNIC_SIM_PH_RESP) ||
	    (state != XNIC_QPS_RTS && state != XNIC_QPS_SQD)) {
		xnic_sim_count(dev, XNIC_SIM_CTR_wire_oos_drops, 1);
		return;
	}
	if (memcmp(p->sgid, qp->dgid, sizeof(qp->dgid))) {
		xnic_sim_count(dev, XNIC_SIM_CTR_rx_drop_bad_src, 1);
		return;
	}
	if (wr->fl_head == wr->fl_tail) {
		/* nothing in flight: whatever it answers is answered */
		xnic_sim_count(dev, XNIC_SIM_CTR_wire_duplicates, 1);
		return;
	}
	if (mask & XNIC_SIM_PH_READ) {
		if (xnic_sim_wreq_old(wr, p->psn))
			xnic_sim_count(dev, XNIC_SIM_CTR_wire_duplicates, 1);
		else
			xnic_sim_wreq_read_resp(dev, qp, p, mask, now);
	} else if (p->opcode == (XNIC_SIM_BTH_RC | XNIC_SIM_BTH_ATOMIC_ACK)) {
		if (xnic_sim_wreq_old(wr, p->psn))
			xnic_sim_count(dev, XNIC_SIM_CTR_wire_duplicates, 1);
		else
			xnic_sim_wreq_atomic_ack(dev, qp, p, now);
	} else {
		xnic_sim_wreq_aeth(dev, qp, p, now);
	}
	/* the window may have opened: the turn sends more (SQD: resends) */
	if (xnic_sim_wreq_live(qp))
		xnic_sim_qp_activate(qp);
}

/* ------------------------------------------------------------------ */
/* UD                                                                  */

/**
 * xnic_sim_wreq_ud_send - a UD SEND to a destination on the wire
 * @dev: the sender's device (its engine; possibly a kick serve)
 * @qp: the UD QP
 * @nl: local segments from 1 on (segment 0 is the GRH scratch)
 * @len: bytes of the message
 * @sgid: source GID
 * @stype: its type (enum xnic_gid_type)
 *
 * One packet, SEND_ONLY[_IMM] with a DETH (the Q_Key as on the cable,
 * the source QPN).  A message longer than the path MTU (the QP's, or
 * 4096) or the port's active MTU is not sent (counted as wire_malformed).  Return: XNIC_SIM_DONE.
 */
int xnic_sim_wreq_ud_send(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
			  u32 nl, u64 len, const u8 *sgid, u8 stype)
{
	struct xnic_sim_scratch *s = dev->scr;
	const struct xnic_sim_swqe *w = &s->w;
	struct xnic_sim_pkt p = { };

	/* C10-93.1.1: longer than the port's MTU: not sent (as rxe) */
	if (len > xnic_sim_mtu_bytes(min(qp->mtu,
					 xnic_sim_wire_active_mtu(dev)))) {
		xnic_sim_count(dev, XNIC_SIM_CTR_wire_malformed, 1);
		return XNIC_SIM_DONE;
	}
	memcpy(p.sgid, sgid, sizeof(p.sgid));
	memcpy(p.dgid, w->dgid, sizeof(p.dgid));
	p.ipv4 = xnic_sim_gid_is_v4(sgid);
	p.tclass = w->tclass;
	p.hop_limit = w->hop_limit ? w->hop_limit : XNIC_SIM_DEFAULT_TTL;
	p.sport = xnic_sim_roce_sport(qp->qpn, w->dest_qpn);
	p.opcode = XNIC_SIM_BTH_UD | (w->opcode == XNIC_OP_SEND_WITH_IMM ?
				      XNIC_SIM_BTH_SEND_ONLY_IMM :
				      XNIC_SIM_BTH_SEND_ONLY);
	p.se = !!(w->flags & XNIC_WQE_SOLICITED);
	p.pkey = XNIC_SIM_DEFAULT_PKEY;
	p.dqpn = w->dest_qpn & XNIC_SIM_WREQ_PSN_MASK;
	p.psn = qp->sq_psn;
	p.imm = (__force __be32)w->imm;
	p.qkey = xnic_sim_ud_qkey(qp, w->qkey);
	p.sqpn = qp->qpn;
	p.paylen = len;
	qp->sq_psn = xnic_sim_wreq_psn_add(qp->sq_psn, 1);
	/* a failed copy or no neighbour: lost, as UD may be */
	xnic_sim_wreq_out(dev, &p, &s->lseg[1], nl - 1, 0);
	return XNIC_SIM_DONE;
}

/* ------------------------------------------------------------------ */
/* MODIFY_QP                                                           */

/**
 * xnic_sim_wreq_modify_ok - may MODIFY_QP change this wire QP so?
 * @qp: the QP (its engine, exec_lock held: no turn runs meanwhile)
 * @in: the command
 * @mask: its XNIC_QP_MOD_* mask
 *
 * Packets in flight depend on the AV and the destination QP (where they
 * are resent), the path MTU (how a WQE is cut, where a READ response
 * lands) and sq_psn (the PSNs they hold): with anything in flight none
 * of these may change (IBTA: they change at INIT->RTR, RTR->RTS, and in
 * SQD once drained; the AV there or by APM, which the device lacks).  A
 * value equal to the current one is no change.  The QP's move to RESET
 * or ERR, which ends the flights, is not asked about.  Return: whether
 * it may (else the command answers BAD_STATE, changing nothing).
 */
bool xnic_sim_wreq_modify_ok(struct xnic_sim_qp *qp,
			     const struct xnic_cmd_modify_qp *in, u32 mask)
{
	struct xnic_sim_wreq *wr = qp->wreq;

	if (!wr || wr->fl_head == wr->fl_tail)
		return true;
	if ((mask & XNIC_QP_MOD_PATH_MTU) && in->path_mtu != qp->mtu)
		return false;
	if ((mask & XNIC_QP_MOD_SQ_PSN) &&
	    (le32_to_cpu(in->sq_psn) & XNIC_SIM_WREQ_PSN_MASK) != qp->sq_psn)
		return false;
	if ((mask & XNIC_QP_MOD_DEST_QPN) &&
	    le32_to_cpu(in->dest_qpn) != READ_ONCE(qp->dest_qpn))
		return false;
	if ((mask & XNIC_QP_MOD_AV) &&
	    (memcmp(in->dgid, qp->dgid, sizeof(qp->dgid)) ||
	     in->sgid_index != qp->sgid_index))
		return false;
	return true;
}

/**
 * xnic_sim_wreq_modify - MODIFY_QP changed a wire QP's attributes
 * @qp: the QP (its engine)
 * @mask: what changed (XNIC_QP_MOD_*)
 *
 * A new timeout applies to the running timer too, from now (0: none);
 * new retry_cnt, rnr_retry and max_rd_atomic hold from the next retry,
 * RNR NAK or READ on (a count past a lowered limit: the next one fails,
 * no READ starts until enough completed).
 */
void xnic_sim_wreq_modify(struct xnic_sim_qp *qp, u32 mask)
{
	struct xnic_sim_wreq *wr = qp->wreq;

	if (wr && (mask & XNIC_QP_MOD_TIMEOUT) && wr->timer)
		xnic_sim_wreq_timer_start(qp, xnic_sim_now());
}

void xnic_sim_wreq_reset(struct xnic_sim_qp *qp)
{
	memset(qp->wreq, 0, sizeof(*qp->wreq));
}
