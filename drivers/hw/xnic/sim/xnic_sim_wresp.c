// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_sim: the responder of wire QPs (xnic_sim_wire.h), IBTA vol. 1
 * ch. 9 as Linux's rxe implements it (rxe_recv.c, rxe_resp.c).  The
 * engine of the QP's device runs it (exec_lock held) for each RoCEv2
 * packet the wire received: xnic_sim_roce_recv() finds the QP and hands
 * a request on to xnic_sim_wresp_recv().  Every object it touches is its
 * own device's, which only this engine's commands change or free, so no
 * section is needed.
 *
 * The responder's objects and semantics are the cable's
 * (xnic_sim_resp.c): receive WQEs from the RQ or SRQ, receive buffers
 * checked per packet, remote keys and rights (xnic_sim_rkey()), receive
 * completions, and the state a failed request leaves: a remote access
 * error takes an RC QP to ERR (QP_ACCESS_ERR), an invalid request to ERR
 * (QP_REQ_ERR), a bad receive WQE or buffer to ERR (a remote operational
 * error); UC drops instead of answering.  What the wire adds: PSNs,
 * messages across packets, duplicates, ACKs and NAKs.
 *
 * RC.  qp->rq_psn is the PSN expected.  A packet ahead of it (a gap)
 * is dropped and answered by one PSN sequence NAK until the expected PSN
 * comes; one behind it is a duplicate: a SEND or WRITE is acknowledged
 * again (the last PSN executed) and not executed, a READ restarts its
 * responder resource from the duplicate's PSN (memory re-read, as rxe),
 * an atomic has its saved ACK (original value, MSN) sent again.
 *
 * Answers go out in PSN order.  A READ's responses are sent from its
 * resource's cursor (cur_psn, as rxe's read_reply()) at the end of each
 * engine pass (xnic_sim_wresp_flush_acks()), a bounded number per pass
 * and per QP (XNIC_SIM_WIRE_RD_*), so a 2 GiB READ neither holds the
 * engine nor allocates more than one frame at a time.  What must not
 * overtake them waits behind them: an atomic's ACK (queued on its
 * resource), the coalesced ACK and a PSN sequence or RNR NAK.  ACKs are
 * coalesced: a packet with AckReq makes its QP owe one, for the latest
 * PSN, sent before the engine takes the next frame from the wire
 * (xnic_sim_wresp_send_acks(), as rxe answers each AckReq at once) or,
 * behind READ responses, when they are out (at the end of a pass); error
 * NAKs go out at once (the QP goes to ERR, which drops what it still
 * owed).
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include "xnic_sim.h"

/* AETH credit field of an ACK: no end-to-end credits (as rxe) */
#define XNIC_SIM_AETH_CREDITS	0x1f
/* What a request's handling ends in, for the RC answer */
#define XNIC_SIM_WR_OK		0	/* executed */
#define XNIC_SIM_WR_DROP	1	/* dropped, counted, no answer */
#define XNIC_SIM_WR_RNR		2	/* RNR NAK */
#define XNIC_SIM_WR_INV		3	/* NAK invalid request, QP in ERR */
#define XNIC_SIM_WR_ACCESS	4	/* NAK remote access, QP in ERR */
#define XNIC_SIM_WR_OP		5	/* NAK remote operational, QP in ERR */

/* a - b as a signed 24-bit PSN distance */
static inline s32 xnic_sim_psn_diff(u32 a, u32 b)
{
	return (s32)((a - b) << 8) >> 8;
}

static u32 xnic_sim_wresp_npkts(const struct xnic_sim_qp *qp, u32 len)
{
	u32 mtu = xnic_sim_mtu_bytes(qp->mtu);

	return len ? DIV_ROUND_UP(len, mtu) : 1;
}

/*
 * A frame from @qp to its remote end: BTH @opcode and @psn, @paylen bytes
 * of payload at *@payload (the caller sets the extension fields of @r
 * before xnic_sim_wire_xmit()).  NULL: no source GID entry, or no memory.
 */
static struct sk_buff *xnic_sim_wresp_alloc(struct xnic_sim_dev *dev,
					    struct xnic_sim_qp *qp,
					    struct xnic_sim_pkt *r, u8 opcode,
					    u32 psn, u32 paylen, u8 **payload)
{
	u8 type;

	memset(r, 0, sizeof(*r));
	if (!xnic_sim_sgid(dev, qp->sgid_index, r->sgid, &type))
		return NULL;
	memcpy(r->dgid, qp->dgid, sizeof(r->dgid));
	r->ipv4 = qp->wresp->ipv4;
	r->hop_limit = XNIC_SIM_DEFAULT_TTL;
	r->sport = xnic_sim_roce_sport(qp->qpn, READ_ONCE(qp->dest_qpn));
	r->opcode = opcode;
	r->pkey = XNIC_SIM_DEFAULT_PKEY;
	r->dqpn = READ_ONCE(qp->dest_qpn);
	r->psn = psn & 0xffffff;
	r->paylen = paylen;
	return xnic_sim_wire_alloc(dev, r, payload);
}

/* An answer with PSN @psn went out: it acknowledges the ACK owed, if older. */
static void xnic_sim_wresp_covered(struct xnic_sim_wresp *w, u32 psn,
				   bool nak)
{
	s32 d = xnic_sim_psn_diff(psn, w->ack_psn);

	if (w->ack_due && (d > 0 || (!nak && !d)))
		w->ack_due = false;
}

/* An ACK, a NAK (@syndrome) or an atomic ACK (@atomic, @orig) now. */
static void xnic_sim_wresp_ack(struct xnic_sim_dev *dev,
			       struct xnic_sim_qp *qp, u32 psn, u8 syndrome,
			       u32 msn, bool atomic, u64 orig)
{
	struct xnic_sim_pkt r;
	struct sk_buff *skb;
	u8 *pay;

	skb = xnic_sim_wresp_alloc(dev, qp, &r,
				   atomic ? XNIC_SIM_BTH_ATOMIC_ACK :
					    XNIC_SIM_BTH_ACK,
				   psn, 0, &pay);
	if (!skb)
		return;
	r.syndrome = syndrome;
	r.msn = msn & 0xffffff;
	r.orig = orig;
	xnic_sim_wire_xmit(dev, skb, &r);
	xnic_sim_wresp_covered(qp->wresp, psn,
			       XNIC_SIM_AETH_TYPE(syndrome) != XNIC_SIM_AETH_ACK);
}

/* A NAK for the packet at @psn now, counted. */
static void xnic_sim_wresp_nak_now(struct xnic_sim_dev *dev,
				   struct xnic_sim_qp *qp, u32 psn,
				   u8 syndrome)
{
	enum xnic_sim_ctr c = XNIC_SIM_CTR_wire_err_naks_sent;

	if (syndrome == (XNIC_SIM_AETH_NAK | XNIC_SIM_NAK_PSN_SEQ))
		c = XNIC_SIM_CTR_wire_seq_naks_sent;
	else if (XNIC_SIM_AETH_TYPE(syndrome) == XNIC_SIM_AETH_RNR)
		c = XNIC_SIM_CTR_wire_rnr_naks_sent;
	xnic_sim_count(dev, c, 1);
	xnic_sim_wresp_ack(dev, qp, psn, syndrome, qp->wresp->msn, false, 0);
}

/* Put @qp on the device's list of QPs owing answers (wresp_acks). */
static void xnic_sim_wresp_queue(struct xnic_sim_dev *dev,
				 struct xnic_sim_qp *qp)
{
	struct xnic_sim_wresp *w = qp->wresp;

	if (w->on_ack)
		return;
	w->on_ack = true;
	w->qp = qp;
	list_add_tail(&w->ack_node, &dev->wresp_acks);
}

/*
 * A NAK for the packet at @psn.  A PSN sequence or RNR NAK acknowledges
 * everything before @psn, so while READ responses before it are still to
 * be sent it waits for them (the last one wins); an error NAK goes now
 * (its QP is going to ERR, which drops them).
 */
static void xnic_sim_wresp_nak(struct xnic_sim_dev *dev,
			       struct xnic_sim_qp *qp, u32 psn, u8 syndrome)
{
	struct xnic_sim_wresp *w = qp->wresp;

	if (w->npending &&
	    (syndrome == (XNIC_SIM_AETH_NAK | XNIC_SIM_NAK_PSN_SEQ) ||
	     XNIC_SIM_AETH_TYPE(syndrome) == XNIC_SIM_AETH_RNR)) {
		w->nak_due = true;
		w->nak_psn = psn & 0xffffff;
		w->nak_syndrome = syndrome;
		return;
	}
	xnic_sim_wresp_nak_now(dev, qp, psn, syndrome);
}

/* Owe a coalesced ACK for @psn (sent by xnic_sim_wresp_flush_acks()). */
static void xnic_sim_wresp_owe(struct xnic_sim_dev *dev,
			       struct xnic_sim_qp *qp, u32 psn)
{
	struct xnic_sim_wresp *w = qp->wresp;

	if (w->ack_due && xnic_sim_psn_diff(psn, w->ack_psn) < 0)
		return;
	w->ack_psn = psn & 0xffffff;
	w->ack_due = true;
	xnic_sim_wresp_queue(dev, qp);
}

/* Answers of a resource are to be sent, from @psn on (queued in order). */
static void xnic_sim_wres_pend(struct xnic_sim_dev *dev,
			       struct xnic_sim_qp *qp,
			       struct xnic_sim_wres *res, u32 psn)
{
	res->cur_psn = psn & 0xffffff;
	if (!res->pending) {
		res->pending = true;
		qp->wresp->npending++;
	}
	xnic_sim_wresp_queue(dev, qp);
}

/* A resource's answers are all sent, or given up. */
static void xnic_sim_wres_done(struct xnic_sim_wresp *w,
			       struct xnic_sim_wres *res)
{
	if (!res->pending)
		return;
	res->pending = false;
	w->npending--;
}

/* The QP left the receiving states: nothing more is answered. */
static void xnic_sim_wresp_drop_pending(struct xnic_sim_wresp *w)
{
	u32 i;

	for (i = 0; i < XNIC_SIM_WIRE_RD_RES; i++)
		w->res[i].pending = false;
	w->npending = 0;
	w->nak_due = false;
	w->ack_due = false;
}

/* The pending resource whose next answer has the oldest PSN. */
static struct xnic_sim_wres *xnic_sim_wres_oldest(struct xnic_sim_qp *qp)
{
	struct xnic_sim_wresp *w = qp->wresp;
	u32 ref = READ_ONCE(qp->rq_psn), i;
	struct xnic_sim_wres *best = NULL;
	s32 bd = 0, d;

	for (i = 0; i < XNIC_SIM_WIRE_RD_RES; i++) {
		if (!w->res[i].pending)
			continue;
		d = xnic_sim_psn_diff(w->res[i].cur_psn, ref);
		if (!best || d < bd) {
			best = &w->res[i];
			bd = d;
		}
	}
	return best;
}

static int xnic_sim_wresp_access(struct xnic_sim_dev *dev,
				 struct xnic_sim_qp *qp);

/* What the responder may still send in this pass (all QPs). */
struct xnic_sim_wbudget {
	u32 pkts;
	u32 bytes;
};

/*
 * The READ response of @res at its cur_psn: of the path MTU, FIRST,
 * MIDDLE, LAST or ONLY by its place in the READ (a duplicate from the
 * middle goes on with MIDDLE/LAST, as rxe's replay), AETH (ACK, the
 * READ's MSN) on the first and last; memory read now, the key checked
 * again for it (as rxe_recheck_mr()).  *@pl: its payload bytes.
 * Return: 0 sent, -EACCES the key or memory no longer grants it, -EIO not
 * sent (no frame, no neighbour, no wire: xnic_sim_wire_alloc() and
 * xnic_sim_wire_xmit() count what they drop).
 */
static int xnic_sim_wresp_read_pkt(struct xnic_sim_dev *dev,
				   struct xnic_sim_qp *qp,
				   const struct xnic_sim_wres *res, u32 *pl)
{
	u32 mtu = xnic_sim_mtu_bytes(qp->mtu);
	u32 k = xnic_sim_psn_diff(res->cur_psn, res->psn);
	bool last = res->cur_psn == res->last_psn;
	u64 off = (u64)k * mtu, maddr = 0;
	const struct xnic_sim_mr *mr = NULL;
	struct xnic_sim_seg d, s;
	struct xnic_sim_pkt r;
	struct sk_buff *skb;
	u8 *pay, op;

	*pl = off < res->len ? min_t(u64, res->len - off, mtu) : 0;
	if (k)
		op = last ? XNIC_SIM_BTH_READ_RESP_LAST :
			    XNIC_SIM_BTH_READ_RESP_MIDDLE;
	else
		op = last ? XNIC_SIM_BTH_READ_RESP_ONLY :
			    XNIC_SIM_BTH_READ_RESP_FIRST;
	if (*pl) {
		mr = xnic_sim_rkey(qp, qp->pdn, res->rkey, res->va + off, *pl,
				   XNIC_ACCESS_REMOTE_READ, &maddr);
		if (!mr)
			return -EACCES;
	}
	skb = xnic_sim_wresp_alloc(dev, qp, &r, op, res->cur_psn, *pl, &pay);
	if (!skb)
		return -EIO;
	r.syndrome = XNIC_SIM_AETH_ACK | XNIC_SIM_AETH_CREDITS;
	r.msn = res->msn;
	if (*pl) {
		d = (struct xnic_sim_seg){ .kaddr = pay, .len = *pl };
		s = (struct xnic_sim_seg){ .mr = mr, .addr = maddr,
					   .len = *pl };
		if (xnic_sim_copy(&d, 1, &s, 1, *pl, false)) {
			kfree_skb(skb);
			return -EACCES;
		}
	}
	if (xnic_sim_wire_xmit(dev, skb, &r))
		return -EIO;
	xnic_sim_wresp_covered(qp->wresp, res->cur_psn, false);
	return 0;
}

/*
 * @qp's turn: its pending answers in PSN order, within @b and at most
 * XNIC_SIM_WIRE_RD_TURN packets; a READ goes on from its cursor in the
 * next pass.  A key that no longer grants a READ's memory ends it with a
 * remote access NAK, the QP in ERR (rxe's RKEY_VIOLATION of a reply).  A
 * response that could not be sent ends that READ's answers: nothing after
 * it is sent as if it had been, the requester asks again from the first
 * PSN it misses (its timer, or the sequence error of a later answer).
 * Return: whether anything was sent.
 */
static bool xnic_sim_wresp_serve(struct xnic_sim_dev *dev,
				 struct xnic_sim_qp *qp,
				 struct xnic_sim_wbudget *b)
{
	struct xnic_sim_wresp *w = qp->wresp;
	u32 turn = XNIC_SIM_WIRE_RD_TURN, pl;
	struct xnic_sim_wres *res;
	bool sent = false;
	int r;

	while (w->npending && turn && b->pkts && b->bytes) {
		res = xnic_sim_wres_oldest(qp);
		if (!res) {
			w->npending = 0;
			break;
		}
		turn--;
		b->pkts--;
		if (xnic_sim_opcodes[res->opcode].mask & XNIC_SIM_PH_ATOMIC) {
			xnic_sim_wres_done(w, res);
			xnic_sim_wresp_ack(dev, qp, res->psn,
					   XNIC_SIM_AETH_ACK |
					   XNIC_SIM_AETH_CREDITS,
					   res->msn, true, res->orig);
			sent = true;
			continue;
		}
		r = xnic_sim_wresp_read_pkt(dev, qp, res, &pl);
		if (r == -EACCES) {
			xnic_sim_wresp_access(dev, qp);
			xnic_sim_wresp_nak_now(dev, qp, res->cur_psn,
					       XNIC_SIM_AETH_NAK |
					       XNIC_SIM_NAK_REM_ACCESS);
			xnic_sim_wresp_drop_pending(w);
			return true;
		}
		if (r) {
			xnic_sim_wres_done(w, res);
			return sent;
		}
		sent = true;
		b->bytes -= min(pl, b->bytes);
		if (res->cur_psn == res->last_psn)
			xnic_sim_wres_done(w, res);
		else
			res->cur_psn = (res->cur_psn + 1) & 0xffffff;
	}
	return sent;
}

/*
 * A QP that left the answer list with no READ responses pending: the NAK,
 * then the ACK it owes (one ACK, for the latest PSN); none when it
 * stopped receiving (ERR).
 */
static void xnic_sim_wresp_answer(struct xnic_sim_dev *dev,
				  struct xnic_sim_wresp *w)
{
	struct xnic_sim_qp *qp = w->qp;

	if (!xnic_sim_qp_can_recv(READ_ONCE(qp->state))) {
		xnic_sim_wresp_drop_pending(w);
		return;
	}
	if (w->nak_due) {
		w->nak_due = false;
		xnic_sim_wresp_nak_now(dev, qp, w->nak_psn, w->nak_syndrome);
	}
	if (!w->ack_due)
		return;
	w->ack_due = false;
	xnic_sim_wresp_ack(dev, qp, w->ack_psn,
			   XNIC_SIM_AETH_ACK | XNIC_SIM_AETH_CREDITS,
			   w->msn, false, 0);
}

/**
 * xnic_sim_wresp_flush_acks - the responder's answers at the end of a pass
 * @dev: the device (its engine, at the end of a pass)
 *
 * The QPs on the list owe answers.  Those with READ responses (and the
 * atomic ACKs queued behind them) pending get a turn each while the
 * pass's budget lasts (XNIC_SIM_WIRE_RD_*): served ones that still owe
 * go to the tail, ones the budget did not reach stay first for the next
 * pass.  A QP with nothing pending leaves the list with the NAK and then
 * the ACK it owes (one ACK, for the latest PSN).  A QP that stopped
 * receiving (ERR) answers nothing more.  A QP stays on the list across
 * passes; xnic_sim_wresp_reset() (RESET, destroy) takes it off.
 * Return: whether answers were sent or are left (the engine stays awake).
 */
bool xnic_sim_wresp_flush_acks(struct xnic_sim_dev *dev)
{
	struct xnic_sim_wbudget b = {
		.pkts = XNIC_SIM_WIRE_RD_PKTS,
		.bytes = XNIC_SIM_WIRE_RD_BYTES,
	};
	struct xnic_sim_wresp *w, *tmp;
	LIST_HEAD(served);
	bool work = false;

	list_for_each_entry_safe(w, tmp, &dev->wresp_acks, ack_node) {
		struct xnic_sim_qp *qp = w->qp;

		if (!xnic_sim_qp_can_recv(READ_ONCE(qp->state)))
			xnic_sim_wresp_drop_pending(w);
		if (w->npending) {
			if (!b.pkts || !b.bytes)
				continue;	/* first in the next pass */
			work |= xnic_sim_wresp_serve(dev, qp, &b);
			if (w->npending) {
				list_move_tail(&w->ack_node, &served);
				continue;
			}
		}
		list_del(&w->ack_node);
		w->on_ack = false;
		xnic_sim_wresp_answer(dev, w);
	}
	list_splice_tail(&served, &dev->wresp_acks);
	return work || !list_empty(&dev->wresp_acks);
}

/**
 * xnic_sim_wresp_send_acks - the ACKs and NAKs owed, now
 * @dev: the device (its engine, between two frames from the wire)
 *
 * What a frame made a QP owe goes out before the engine takes the next
 * frame from the wire, as rxe answers each AckReq at once: a requester
 * whose PSN window waits for the ACK does not wait for the rest of the
 * pass as well (up to XNIC_SIM_WIRE_RX_BUDGET frames more, and the
 * pass's send queues).  A QP with READ responses still to send keeps
 * its answers behind them (xnic_sim_wresp_flush_acks()).
 */
void xnic_sim_wresp_send_acks(struct xnic_sim_dev *dev)
{
	struct xnic_sim_wresp *w, *tmp;

	list_for_each_entry_safe(w, tmp, &dev->wresp_acks, ack_node) {
		if (w->npending)
			continue;
		list_del(&w->ack_node);
		w->on_ack = false;
		xnic_sim_wresp_answer(dev, w);
	}
}

/**
 * xnic_sim_wresp_reset - forget a wire QP's responder state
 * @qp: the QP (RESET or destroy; its engine)
 *
 * Takes it off the device's answer list: a READ half sent is dropped
 * (the state is all in struct xnic_sim_wresp, nothing else to free).
 */
void xnic_sim_wresp_reset(struct xnic_sim_qp *qp)
{
	struct xnic_sim_wresp *w = qp->wresp;

	if (w->on_ack)
		list_del(&w->ack_node);
	memset(w, 0, sizeof(*w));
}

/* ------------------------------------------------------------------ */
/* Receive WQEs and completions                                        */

/* The receive WQE a message holds back into the scratch. */
static void xnic_sim_wresp_rwqe_load(struct xnic_sim_dev *dev,
				     struct xnic_sim_wresp *w)
{
	BUILD_BUG_ON(sizeof(w->rwqe) != sizeof(dev->scr->rwqe));
	memcpy(dev->scr->rwqe, w->rwqe, sizeof(w->rwqe));
}

/*
 * Take a receive WQE for @qp (its RQ or SRQ, xnic_sim_rq_take()) into the
 * scratch.  Return: 1, 0 none posted, -EINVAL a malformed one (consumed).
 */
static int xnic_sim_wresp_take(struct xnic_sim_dev *dev,
			       struct xnic_sim_qp *qp)
{
	int r = 0;

	dev->scr->xsrq = NULL;
	spin_lock(&qp->lock);
	if (xnic_sim_qp_can_recv(qp->state))
		r = xnic_sim_rq_take(dev, qp);
	spin_unlock(&qp->lock);
	return r;
}

/* A malformed receive WQE (xnic_sim_bad_rwqe()): completed, QP in ERR. */
static void xnic_sim_wresp_bad_rwqe(struct xnic_sim_dev *dev,
				    struct xnic_sim_qp *qp, u32 src_qp)
{
	struct xnic_rwqe *hdr = (void *)dev->scr->rwqe;

	hdr->num_sge = 0;
	xnic_sim_rcqe(dev, qp, src_qp, XNIC_CQE_LOC_QP_OP_ERR, XNIC_CQE_OP_RECV,
		      0, 0, 0, false);
	xnic_sim_qp_set_err(qp, XNIC_EQE_QP_FATAL);
}

/*
 * Copy @len bytes of @src (@ns segments) to offset @off of the receive
 * WQE in the scratch: its buffers (xnic_sim_recv_segs(), checked again
 * for every packet), long enough for @need bytes in all.  A failure
 * completes the receive WQE in error and takes the QP to ERR, as the
 * cable's receive copy.  Return: XNIC_SIM_WR_OK, _INV (too long) or _OP.
 */
static int xnic_sim_wresp_place(struct xnic_sim_dev *dev,
				struct xnic_sim_qp *qp, u32 src_qp, u64 off,
				const struct xnic_sim_seg *src, u32 ns,
				u64 len, u64 need)
{
	struct xnic_sim_scratch *s = dev->scr;
	u32 nr, i, j = 0;
	u64 rlen;
	u8 st;

	st = xnic_sim_recv_segs(dev, qp, &nr, &rlen);
	if (st) {
		xnic_sim_rcqe(dev, qp, src_qp, st, XNIC_CQE_OP_RECV, 0, 0, 0,
			      false);
		xnic_sim_qp_set_err(qp, 0);
		return XNIC_SIM_WR_OP;
	}
	if (rlen < need) {
		xnic_sim_rcqe(dev, qp, src_qp, XNIC_CQE_LOC_LEN_ERR,
			      XNIC_CQE_OP_RECV, 0, 0, 0, false);
		xnic_sim_qp_set_err(qp, XNIC_EQE_QP_REQ_ERR);
		return XNIC_SIM_WR_INV;
	}
	if (!len)
		return XNIC_SIM_WR_OK;
	/* skip the buffers before @off; the first one taken from there on */
	for (i = 0; i < nr; i++) {
		if (off < s->rseg[i].len) {
			s->rseg[j] = s->rseg[i];
			s->rseg[j].addr += off;
			s->rseg[j].len -= off;
			off = 0;
			j++;
		} else if (off) {
			off -= s->rseg[i].len;
		} else {
			s->rseg[j++] = s->rseg[i];
		}
	}
	if (xnic_sim_copy(s->rseg, j, src, ns, len, xnic_sim_may_sleep(dev))) {
		xnic_sim_rcqe(dev, qp, src_qp, XNIC_CQE_LOC_PROT_ERR,
			      XNIC_CQE_OP_RECV, 0, 0, 0, false);
		xnic_sim_qp_set_err(qp, 0);
		return XNIC_SIM_WR_OP;
	}
	return XNIC_SIM_WR_OK;
}

/*
 * The message in progress ends in error (the QP is going to ERR): a
 * receive WQE it holds completes with @status (flushed if 0).
 */
static void xnic_sim_wresp_abort(struct xnic_sim_dev *dev,
				 struct xnic_sim_qp *qp, u8 status)
{
	struct xnic_sim_wresp *w = qp->wresp;

	if (w->have_rwqe) {
		xnic_sim_wresp_rwqe_load(dev, w);
		xnic_sim_rcqe(dev, qp, READ_ONCE(qp->dest_qpn),
			      status ? status : XNIC_CQE_WR_FLUSH_ERR,
			      XNIC_CQE_OP_RECV, 0, 0, 0, false);
	}
	w->have_rwqe = false;
	w->msg = 0;
}

/**
 * xnic_sim_wresp_flush_held - flush the receive WQE a message holds
 * @dev: the QP's device (its engine)
 * @qp: a QP in ERR
 *
 * A SEND (or a UC message a gap lost) holds the receive WQE it took
 * across its packets; when the QP goes to ERR another way than by the
 * responder's own error (a local MODIFY_QP, its requester's error, a CQ
 * overrun) that WQE is no longer in the queue xnic_sim_qp_flush()
 * flushes, so it is completed here first, with WR_FLUSH_ERR (counted).
 * Return: whether there was one.
 */
bool xnic_sim_wresp_flush_held(struct xnic_sim_dev *dev,
			       struct xnic_sim_qp *qp)
{
	if (!qp->wresp || !qp->wresp->have_rwqe)
		return false;
	xnic_sim_wresp_abort(dev, qp, 0);
	qp->flushed++;
	return true;
}

/* An invalid request: the QP goes to ERR (QP_REQ_ERR). */
static int xnic_sim_wresp_inv(struct xnic_sim_dev *dev,
			      struct xnic_sim_qp *qp, u8 status)
{
	xnic_sim_wresp_abort(dev, qp, status);
	xnic_sim_qp_set_err(qp, XNIC_EQE_QP_REQ_ERR);
	return XNIC_SIM_WR_INV;
}

/*
 * A remote access violation (xnic_sim_rem_access()): RC goes to ERR
 * (QP_ACCESS_ERR), UC drops the message (counted).
 */
static int xnic_sim_wresp_access(struct xnic_sim_dev *dev,
				 struct xnic_sim_qp *qp)
{
	if (qp->type != XNIC_QPT_RC) {
		xnic_sim_count(dev, XNIC_SIM_CTR_uc_drops, 1);
		qp->wresp->msg = 0;
		return XNIC_SIM_WR_DROP;
	}
	xnic_sim_wresp_abort(dev, qp, 0);
	xnic_sim_qp_set_err(qp, XNIC_EQE_QP_ACCESS_ERR);
	return XNIC_SIM_WR_ACCESS;
}

/* UC: the message in progress, or this packet, is lost (counted). */
static int xnic_sim_wresp_uc_drop(struct xnic_sim_dev *dev,
				  struct xnic_sim_qp *qp)
{
	xnic_sim_count(dev, XNIC_SIM_CTR_uc_drops, 1);
	qp->wresp->msg = 0;
	return XNIC_SIM_WR_DROP;
}

/*
 * The payload length a packet of a SEND or WRITE must have (rxe's
 * check_length): an only packet up to the MTU, a first or middle one
 * exactly the MTU, a last one 1 to the MTU.
 */
static bool xnic_sim_wresp_len_ok(const struct xnic_sim_qp *qp, u32 mask,
				  u32 paylen)
{
	u32 mtu = xnic_sim_mtu_bytes(qp->mtu);

	if (mask & XNIC_SIM_PH_ONLY)
		return paylen <= mtu;
	if (mask & (XNIC_SIM_PH_FIRST | XNIC_SIM_PH_MIDDLE))
		return paylen == mtu;
	return paylen && paylen <= mtu;
}

/*
 * SEND_WITH_INV: the key to invalidate, as the cable checks it (an MR
 * registered by fast registration, or a window the QP may invalidate, of
 * the QP's PD).  Return: whether it was invalidated.
 */
static bool xnic_sim_wresp_invalidate(struct xnic_sim_dev *dev,
				      struct xnic_sim_qp *qp, u32 ikey)
{
	struct xnic_sim_mr *imr = xnic_sim_tbl_get(&dev->mrs, ikey >> 8);

	if (!imr || READ_ONCE(imr->key) != ikey || imr->pdn != qp->pdn ||
	    (imr->mw_type ? !xnic_sim_mw_remote_inv_ok(imr, qp) :
	     !(imr->flags & XNIC_MR_F_FREG)))
		return false;
	if (imr->mw_type)
		xnic_sim_mw_invalidate(dev, imr, false);
	else
		WRITE_ONCE(imr->valid, false);
	return true;
}

/* A SEND or WRITE message completed: its receive completion, counts. */
static void xnic_sim_wresp_msg_done(struct xnic_sim_dev *dev,
				    struct xnic_sim_qp *qp,
				    const struct xnic_sim_pkt *p, u32 mask,
				    bool inv)
{
	struct xnic_sim_wresp *w = qp->wresp;
	u32 len = w->msg_off;
	u8 flags = 0;
	__le32 imm = (__force __le32)p->imm;

	if (mask & XNIC_SIM_PH_IMM)
		flags |= XNIC_CQE_WITH_IMM;
	if (inv) {
		flags |= XNIC_CQE_WITH_INV;
		imm = cpu_to_le32(p->ieth);
	}
	atomic64_inc(&qp->rx_ops);
	atomic64_add(len, &qp->rx_bytes);
	if (w->msg == XNIC_SIM_PH_SEND) {
		xnic_sim_rcqe(dev, qp, READ_ONCE(qp->dest_qpn), 0,
			      XNIC_CQE_OP_RECV, flags, len, imm, p->se);
		xnic_sim_count(dev, XNIC_SIM_CTR_rx_send, 1);
		xnic_sim_count(dev, XNIC_SIM_CTR_rx_send_bytes, len);
	} else {
		if (flags)
			xnic_sim_rcqe(dev, qp, READ_ONCE(qp->dest_qpn), 0,
				      XNIC_CQE_OP_RECV_RDMA_WITH_IMM, flags,
				      len, imm, p->se);
		xnic_sim_count(dev, XNIC_SIM_CTR_rx_write, 1);
		xnic_sim_count(dev, XNIC_SIM_CTR_rx_write_bytes, len);
	}
	/*
	 * the receive WQE is used up by a SEND or a WRITE with immediate;
	 * one kept from a message a UC gap lost waits for the next SEND
	 */
	if (w->msg == XNIC_SIM_PH_SEND || flags)
		w->have_rwqe = false;
	w->msg = 0;
	w->msn = (w->msn + 1) & 0xffffff;
}

/*
 * One packet of a SEND or WRITE (RC or UC) at the expected PSN.  Nothing
 * of the message's state changes unless the packet is taken (an RNR NAK
 * leaves everything for the retry).  Return: XNIC_SIM_WR_*.
 */
static int xnic_sim_wresp_data(struct xnic_sim_dev *dev,
			       struct xnic_sim_qp *qp,
			       const struct xnic_sim_pkt *p, u32 mask)
{
	struct xnic_sim_wresp *w = qp->wresp;
	bool rc = qp->type == XNIC_QPT_RC;
	u32 kind = mask & (XNIC_SIM_PH_SEND | XNIC_SIM_PH_WRITE);
	u32 src_qp = READ_ONCE(qp->dest_qpn);
	bool start = mask & XNIC_SIM_PH_START;
	bool end = mask & XNIC_SIM_PH_END;
	bool take = false, inv = false;
	struct xnic_sim_seg src = {
		.kaddr = (void *)p->payload, .len = p->paylen,
	};
	u64 off, va = w->wr_va, maddr;
	u32 rkey = w->wr_rkey, wlen = w->wr_len;
	const struct xnic_sim_mr *mr;
	int r;

	/* the opcode sequence: a message starts, or continues its kind */
	if (start && w->msg) {
		if (rc)
			return xnic_sim_wresp_inv(dev, qp,
						  XNIC_CQE_LOC_QP_OP_ERR);
		xnic_sim_count(dev, XNIC_SIM_CTR_uc_drops, 1);
		w->msg = 0;
	} else if (!start && w->msg != kind) {
		if (rc)
			return xnic_sim_wresp_inv(dev, qp,
						  XNIC_CQE_LOC_QP_OP_ERR);
		return xnic_sim_wresp_uc_drop(dev, qp);
	}
	if (!xnic_sim_wresp_len_ok(qp, mask, p->paylen)) {
		if (rc)
			return xnic_sim_wresp_inv(dev, qp,
						  XNIC_CQE_LOC_LEN_ERR);
		return xnic_sim_wresp_uc_drop(dev, qp);
	}
	off = start ? 0 : w->msg_off;
	/* a message is at most XNIC_SIM_MAX_MSG bytes (msg_off is a u32) */
	if ((u64)off + p->paylen > XNIC_SIM_MAX_MSG) {
		if (rc)
			return xnic_sim_wresp_inv(dev, qp, 0);
		return xnic_sim_wresp_uc_drop(dev, qp);
	}

	if (kind == XNIC_SIM_PH_WRITE) {
		if (start) {
			va = p->va;
			rkey = p->rkey;
			wlen = p->dma_len;
			if (wlen > XNIC_SIM_MAX_MSG) {
				if (rc)
					return xnic_sim_wresp_inv(dev, qp, 0);
				return xnic_sim_wresp_uc_drop(dev, qp);
			}
			/* rights for the whole message, as the cable */
			if (wlen && !xnic_sim_rkey(qp, qp->pdn, rkey, va, wlen,
						   XNIC_ACCESS_REMOTE_WRITE,
						   &maddr))
				return xnic_sim_wresp_access(dev, qp);
		}
		if (off + p->paylen > wlen ||
		    (end && off + p->paylen != wlen)) {
			if (rc)
				return xnic_sim_wresp_inv(dev, qp, 0);
			return xnic_sim_wresp_uc_drop(dev, qp);
		}
		/* WRITE_WITH_IMM consumes a receive WQE: before any data */
		take = (mask & XNIC_SIM_PH_IMM) && !w->have_rwqe;
	} else {
		take = start && !w->have_rwqe;
	}

	if (take) {
		r = xnic_sim_wresp_take(dev, qp);
		if (!r) {
			if (rc)
				return XNIC_SIM_WR_RNR;
			return xnic_sim_wresp_uc_drop(dev, qp);
		}
		if (r < 0) {
			xnic_sim_wresp_bad_rwqe(dev, qp, src_qp);
			w->msg = 0;
			return rc ? XNIC_SIM_WR_OP : XNIC_SIM_WR_DROP;
		}
		memcpy(w->rwqe, dev->scr->rwqe, sizeof(w->rwqe));
		w->have_rwqe = true;
	}

	/* from here on the packet is taken */
	w->msg = kind;
	if (kind == XNIC_SIM_PH_WRITE) {
		w->wr_va = va;
		w->wr_rkey = rkey;
		w->wr_len = wlen;
		if (p->paylen) {
			struct xnic_sim_seg dst;

			mr = xnic_sim_rkey(qp, qp->pdn, rkey, va + off,
					   p->paylen, XNIC_ACCESS_REMOTE_WRITE,
					   &maddr);
			dst = (struct xnic_sim_seg){
				.mr = mr, .addr = maddr, .len = p->paylen,
			};
			if (!mr || xnic_sim_copy(&dst, 1, &src, 1, p->paylen,
						 xnic_sim_may_sleep(dev)))
				return xnic_sim_wresp_access(dev, qp);
		}
	} else {
		xnic_sim_wresp_rwqe_load(dev, w);
		r = xnic_sim_wresp_place(dev, qp, src_qp, off, &src,
					 p->paylen ? 1 : 0, p->paylen,
					 off + p->paylen);
		if (r) {
			/* the receive WQE completed in error */
			w->have_rwqe = false;
			w->msg = 0;
			if (!rc && r == XNIC_SIM_WR_INV)
				xnic_sim_count(dev, XNIC_SIM_CTR_uc_drops, 1);
			return rc ? r : XNIC_SIM_WR_DROP;
		}
	}
	w->msg_off = off + p->paylen;
	if (!end)
		return XNIC_SIM_WR_OK;

	if (mask & XNIC_SIM_PH_IETH) {
		if (!xnic_sim_wresp_invalidate(dev, qp, p->ieth))
			return xnic_sim_wresp_access(dev, qp);
		inv = true;
	}
	if (w->have_rwqe)
		xnic_sim_wresp_rwqe_load(dev, w);
	xnic_sim_wresp_msg_done(dev, qp, p, mask, inv);
	return XNIC_SIM_WR_OK;
}

/* ------------------------------------------------------------------ */
/* RDMA READ and atomics                                               */

/*
 * A new responder resource: the oldest of max_dest_rd_atomic reused (as
 * rxe's: the requester must not have more outstanding).
 */
static struct xnic_sim_wres *xnic_sim_wres_new(struct xnic_sim_wresp *w,
					       u8 max)
{
	struct xnic_sim_wres *res;

	max = clamp_t(u8, max, 1, XNIC_SIM_WIRE_RD_RES);
	if (w->res_head >= max)
		w->res_head = 0;
	res = &w->res[w->res_head];
	w->res_head = (w->res_head + 1) % max;
	/* a requester over its limit: the oldest is recycled, answered or not */
	xnic_sim_wres_done(w, res);
	memset(res, 0, sizeof(*res));
	return res;
}

/*
 * The responder's checks of a READ or atomic common to both: resources
 * (max_dest_rd_atomic; none: invalid request, as the cable's
 * xnic_sim_rd_atomic_resp()).  Return: XNIC_SIM_WR_OK or _INV.
 */
static int xnic_sim_wresp_rd_atomic_ok(struct xnic_sim_dev *dev,
				       struct xnic_sim_qp *qp)
{
	if (READ_ONCE(qp->max_dest_rd_atomic))
		return XNIC_SIM_WR_OK;
	return xnic_sim_wresp_inv(dev, qp, 0);
}

/* An RDMA READ request at the expected PSN. */
static int xnic_sim_wresp_read(struct xnic_sim_dev *dev,
			       struct xnic_sim_qp *qp,
			       const struct xnic_sim_pkt *p)
{
	struct xnic_sim_wresp *w = qp->wresp;
	struct xnic_sim_wres *res;
	u64 maddr;
	u32 n;
	int r;

	if (w->msg || p->paylen)
		return xnic_sim_wresp_inv(dev, qp, XNIC_CQE_LOC_QP_OP_ERR);
	r = xnic_sim_wresp_rd_atomic_ok(dev, qp);
	if (r)
		return r;
	if (p->dma_len > XNIC_SIM_MAX_MSG)
		return xnic_sim_wresp_inv(dev, qp, 0);
	if (p->dma_len &&
	    !xnic_sim_rkey(qp, qp->pdn, p->rkey, p->va, p->dma_len,
			   XNIC_ACCESS_REMOTE_READ, &maddr))
		return xnic_sim_wresp_access(dev, qp);
	n = xnic_sim_wresp_npkts(qp, p->dma_len);
	res = xnic_sim_wres_new(w, READ_ONCE(qp->max_dest_rd_atomic));
	res->opcode = p->opcode;
	res->psn = p->psn;
	res->last_psn = (p->psn + n - 1) & 0xffffff;
	res->va = p->va;
	res->rkey = p->rkey;
	res->len = p->dma_len;
	/* the MSN counts a READ when it is executed (C9-148, as rxe) */
	w->msn = (w->msn + 1) & 0xffffff;
	res->msn = w->msn;
	WRITE_ONCE(qp->rq_psn, (p->psn + n) & 0xffffff);
	/* its responses go out from the end of the pass on, in turns */
	xnic_sim_wres_pend(dev, qp, res, p->psn);
	atomic64_inc(&qp->rx_ops);
	atomic64_add(p->dma_len, &qp->rx_bytes);
	xnic_sim_count(dev, XNIC_SIM_CTR_rx_read, 1);
	xnic_sim_count(dev, XNIC_SIM_CTR_rx_read_bytes, p->dma_len);
	return XNIC_SIM_WR_OK;
}

/* CMP_SWAP or FETCH_ADD at the expected PSN. */
static int xnic_sim_wresp_atomic(struct xnic_sim_dev *dev,
				 struct xnic_sim_qp *qp,
				 const struct xnic_sim_pkt *p)
{
	struct xnic_sim_wresp *w = qp->wresp;
	bool cs = p->opcode == XNIC_SIM_BTH_CMP_SWAP;
	const struct xnic_sim_mr *mr;
	struct xnic_sim_wres *res;
	u64 maddr, orig;
	int r;

	if (w->msg || p->paylen)
		return xnic_sim_wresp_inv(dev, qp, XNIC_CQE_LOC_QP_OP_ERR);
	r = xnic_sim_wresp_rd_atomic_ok(dev, qp);
	if (r)
		return r;
	/*
	 * The key first (a remote access error), then the alignment: an
	 * address not 8-byte aligned, or one a window translates to such,
	 * is an invalid request (IBTA 9.7.5.2.8 class C; rxe's check_rkey(), then
	 * atomic_reply()'s RESPST_ERR_MISALIGNED_ATOMIC, class C).
	 */
	mr = xnic_sim_rkey(qp, qp->pdn, p->rkey, p->va, 8,
			   XNIC_ACCESS_REMOTE_ATOMIC, &maddr);
	if (!mr)
		return xnic_sim_wresp_access(dev, qp);
	if ((p->va | maddr) & 7)
		return xnic_sim_wresp_inv(dev, qp, 0);
	r = xnic_sim_atomic(mr, maddr, cs, cs ? p->cmp : p->swap_add,
			    p->swap_add, &orig);
	if (r == -EINVAL)
		return xnic_sim_wresp_inv(dev, qp, 0);
	if (r)
		return xnic_sim_wresp_access(dev, qp);
	w->msn = (w->msn + 1) & 0xffffff;
	res = xnic_sim_wres_new(w, READ_ONCE(qp->max_dest_rd_atomic));
	res->opcode = p->opcode;
	res->psn = p->psn;
	res->last_psn = p->psn;
	res->va = p->va;
	res->rkey = p->rkey;
	res->orig = orig;
	res->msn = w->msn;
	WRITE_ONCE(qp->rq_psn, (p->psn + 1) & 0xffffff);
	/* its ACK must not overtake READ responses still to be sent */
	if (w->npending)
		xnic_sim_wres_pend(dev, qp, res, p->psn);
	else
		xnic_sim_wresp_ack(dev, qp, p->psn,
				   XNIC_SIM_AETH_ACK | XNIC_SIM_AETH_CREDITS,
				   w->msn, true, orig);
	atomic64_inc(&qp->rx_ops);
	xnic_sim_count(dev, XNIC_SIM_CTR_rx_atomic, 1);
	return XNIC_SIM_WR_OK;
}

/*
 * A duplicate request (behind the expected PSN): a SEND or WRITE is
 * acknowledged again, a READ executed again from its resource (from the
 * duplicate's PSN on, the bytes from there), an atomic's ACK sent again;
 * one that matches no resource is dropped.  All counted as duplicates.
 */
static void xnic_sim_wresp_dup(struct xnic_sim_dev *dev,
			       struct xnic_sim_qp *qp,
			       const struct xnic_sim_pkt *p, u32 mask)
{
	struct xnic_sim_wresp *w = qp->wresp;
	u32 mtu = xnic_sim_mtu_bytes(qp->mtu), i;
	struct xnic_sim_wres *res;
	u64 off, maddr;

	xnic_sim_count(dev, XNIC_SIM_CTR_wire_duplicates, 1);
	if (!(mask & (XNIC_SIM_PH_READ | XNIC_SIM_PH_ATOMIC))) {
		xnic_sim_wresp_owe(dev, qp, READ_ONCE(qp->rq_psn) - 1);
		return;
	}
	for (i = 0; i < XNIC_SIM_WIRE_RD_RES; i++) {
		res = &w->res[i];
		if (res->opcode != p->opcode ||
		    xnic_sim_psn_diff(p->psn, res->psn) < 0 ||
		    xnic_sim_psn_diff(p->psn, res->last_psn) > 0)
			continue;
		if (mask & XNIC_SIM_PH_ATOMIC) {
			if (p->psn != res->psn)
				return;
			if (w->npending)
				xnic_sim_wres_pend(dev, qp, res, res->psn);
			else
				xnic_sim_wresp_ack(dev, qp, res->psn,
						   XNIC_SIM_AETH_ACK |
						   XNIC_SIM_AETH_CREDITS,
						   res->msn, true, res->orig);
			return;
		}
		off = (u64)xnic_sim_psn_diff(p->psn, res->psn) * mtu;
		if (off && off >= res->len)
			return;
		if (off < res->len &&
		    !xnic_sim_rkey(qp, qp->pdn, res->rkey, res->va + off,
				   res->len - off, XNIC_ACCESS_REMOTE_READ,
				   &maddr))
			return;
		/* the resource starts over from the duplicate's PSN */
		xnic_sim_wres_pend(dev, qp, res, p->psn);
		return;
	}
}

/*
 * The answer a fault makes the responder give to the request @p starting
 * a message (XNIC_SIM_WR_*), or XNIC_SIM_WR_OK for none: the responder
 * itself is not touched.
 */
static int xnic_sim_wresp_fault(struct xnic_sim_dev *dev,
				struct xnic_sim_qp *qp, u32 mask)
{
	switch (xnic_sim_fault_answer(dev, qp, mask)) {
	case XNIC_SIM_FAULT_RNR:
		return XNIC_SIM_WR_RNR;
	case XNIC_SIM_FAULT_NAK_ACCESS:
		return XNIC_SIM_WR_ACCESS;
	case XNIC_SIM_FAULT_NAK_OP:
		return XNIC_SIM_WR_OP;
	case XNIC_SIM_FAULT_NAK_INV:
		return XNIC_SIM_WR_INV;
	default:
		return XNIC_SIM_WR_OK;
	}
}

/* Execute an RC request at the expected PSN.  Return: XNIC_SIM_WR_*. */
static int xnic_sim_wresp_exec(struct xnic_sim_dev *dev,
			       struct xnic_sim_qp *qp,
			       const struct xnic_sim_pkt *p, u32 mask)
{
	if (mask & (XNIC_SIM_PH_SEND | XNIC_SIM_PH_WRITE))
		return xnic_sim_wresp_data(dev, qp, p, mask);
	if (mask & XNIC_SIM_PH_READ)
		return xnic_sim_wresp_read(dev, qp, p);
	if (mask & XNIC_SIM_PH_ATOMIC)
		return xnic_sim_wresp_atomic(dev, qp, p);
	/* FLUSH, ATOMIC WRITE: not on the wire */
	return xnic_sim_wresp_inv(dev, qp, 0);
}

/* An RC request. */
static void xnic_sim_wresp_rc(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
			      const struct xnic_sim_pkt *p, u32 mask)
{
	struct xnic_sim_wresp *w = qp->wresp;
	u32 expected = READ_ONCE(qp->rq_psn);
	s32 d = xnic_sim_psn_diff(p->psn, expected);
	int r;

	if (d > 0) {
		xnic_sim_count(dev, XNIC_SIM_CTR_wire_oos_drops, 1);
		if (!w->nak_sent) {
			w->nak_sent = true;
			xnic_sim_wresp_nak(dev, qp, expected,
					   XNIC_SIM_AETH_NAK |
					   XNIC_SIM_NAK_PSN_SEQ);
		}
		return;
	}
	if (d < 0) {
		xnic_sim_wresp_dup(dev, qp, p, mask);
		return;
	}
	w->nak_sent = false;
	w->nak_due = false;	/* the PSN a waiting NAK named came */
	r = XNIC_SIM_WR_OK;
	if (xnic_sim_faults_on() &&
	    (mask & (XNIC_SIM_PH_START | XNIC_SIM_PH_READ | XNIC_SIM_PH_ATOMIC)))
		r = xnic_sim_wresp_fault(dev, qp, mask);
	if (r == XNIC_SIM_WR_OK)
		r = xnic_sim_wresp_exec(dev, qp, p, mask);

	switch (r) {
	case XNIC_SIM_WR_OK:
		if (mask & (XNIC_SIM_PH_SEND | XNIC_SIM_PH_WRITE)) {
			WRITE_ONCE(qp->rq_psn, (p->psn + 1) & 0xffffff);
			if (p->ackreq)
				xnic_sim_wresp_owe(dev, qp, p->psn);
		}
		return;
	case XNIC_SIM_WR_DROP:
		return;
	case XNIC_SIM_WR_RNR:
		xnic_sim_wresp_nak(dev, qp, p->psn,
				   XNIC_SIM_AETH_RNR |
				   (READ_ONCE(qp->min_rnr_timer) & 0x1f));
		return;
	case XNIC_SIM_WR_ACCESS:
		xnic_sim_wresp_nak(dev, qp, p->psn,
				   XNIC_SIM_AETH_NAK | XNIC_SIM_NAK_REM_ACCESS);
		return;
	case XNIC_SIM_WR_OP:
		xnic_sim_wresp_nak(dev, qp, p->psn,
				   XNIC_SIM_AETH_NAK | XNIC_SIM_NAK_REM_OP);
		return;
	default:
		xnic_sim_wresp_nak(dev, qp, p->psn,
				   XNIC_SIM_AETH_NAK | XNIC_SIM_NAK_INV_REQ);
		return;
	}
}

/*
 * A UC request: no ACKs or NAKs.  A PSN other than the expected one
 * loses the message in progress; a first or only packet starts a new
 * message whatever its PSN, a middle or last one is dropped.
 */
static void xnic_sim_wresp_uc(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
			      const struct xnic_sim_pkt *p, u32 mask)
{
	struct xnic_sim_wresp *w = qp->wresp;

	if (!(mask & (XNIC_SIM_PH_SEND | XNIC_SIM_PH_WRITE))) {
		xnic_sim_count(dev, XNIC_SIM_CTR_wire_malformed, 1);
		return;
	}
	if (p->psn != READ_ONCE(qp->rq_psn)) {
		if (w->msg) {
			xnic_sim_count(dev, XNIC_SIM_CTR_uc_drops, 1);
			w->msg = 0;
		}
		if (!(mask & XNIC_SIM_PH_START)) {
			xnic_sim_count(dev, XNIC_SIM_CTR_uc_drops, 1);
			return;
		}
	}
	/* taken or lost, the packet's PSN is behind us */
	WRITE_ONCE(qp->rq_psn, (p->psn + 1) & 0xffffff);
	xnic_sim_wresp_data(dev, qp, p, mask);
}

/*
 * A UD SEND: the Q_Key, a receive WQE (none: dropped), the network header
 * the buffer starts with (built from the packet's addresses, as the
 * cable's xnic_sim_net_hdr()), then the payload; the CQE names the DETH's
 * source QP.  Drops are counted, as the cable's xnic_sim_ud_copy().
 */
static void xnic_sim_wresp_ud(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
			      const struct xnic_sim_pkt *p, u32 mask)
{
	struct xnic_sim_scratch *s = dev->scr;
	struct xnic_sim_seg src[2];
	u64 need = (u64)p->paylen + XNIC_SIM_GRH_LEN;
	u8 flags;
	int r;

	if ((mask & (XNIC_SIM_PH_SEND | XNIC_SIM_PH_ONLY)) !=
	    (XNIC_SIM_PH_SEND | XNIC_SIM_PH_ONLY) ||
	    p->paylen > XNIC_SIM_UD_MTU) {
		xnic_sim_count(dev, XNIC_SIM_CTR_wire_malformed, 1);
		return;
	}
	if (READ_ONCE(qp->qkey) != p->qkey) {
		xnic_sim_count(dev, XNIC_SIM_CTR_ud_drop_qkey, 1);
		return;
	}
	r = xnic_sim_wresp_take(dev, qp);
	if (!r) {
		xnic_sim_count(dev, XNIC_SIM_CTR_ud_drop_norecv, 1);
		return;
	}
	if (r < 0) {
		xnic_sim_wresp_bad_rwqe(dev, qp, p->sqpn);
		return;
	}
	flags = XNIC_CQE_GRH |
		xnic_sim_net_hdr(s->grh, p->sgid, XNIC_GID_TYPE_ROCE_V2,
				 p->dgid, p->paylen, p->hop_limit, p->tclass);
	if (mask & XNIC_SIM_PH_IMM)
		flags |= XNIC_CQE_WITH_IMM;
	src[0] = (struct xnic_sim_seg){ .kaddr = s->grh,
					.len = XNIC_SIM_GRH_LEN };
	src[1] = (struct xnic_sim_seg){ .kaddr = (void *)p->payload,
					.len = p->paylen };
	if (xnic_sim_wresp_place(dev, qp, p->sqpn, 0, src, p->paylen ? 2 : 1,
				 need, need))
		return;
	xnic_sim_rcqe(dev, qp, p->sqpn, 0, XNIC_CQE_OP_RECV, flags, need,
		      (__force __le32)p->imm, p->se);
	atomic64_inc(&qp->rx_ops);
	atomic64_add(need, &qp->rx_bytes);
	xnic_sim_count(dev, XNIC_SIM_CTR_rx_send, 1);
	xnic_sim_count(dev, XNIC_SIM_CTR_rx_send_bytes, need);
}

/**
 * xnic_sim_wresp_recv - a request for @qp
 * @dev: its device (the engine, exec_lock held)
 * @qp: an RC or UC wire QP, or a UD QP, receiving
 *	(xnic_sim_roce_recv() checked its type and state)
 * @p: the packet, parsed and checked
 */
void xnic_sim_wresp_recv(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
			 const struct xnic_sim_pkt *p)
{
	u32 mask = xnic_sim_opcodes[p->opcode].mask;

	if (xnic_sim_qpt_ud(qp->type)) {
		xnic_sim_wresp_ud(dev, qp, p, mask);
		return;
	}
	qp->wresp->ipv4 = p->ipv4;
	if (qp->type == XNIC_QPT_RC)
		xnic_sim_wresp_rc(dev, qp, p, mask);
	else
		xnic_sim_wresp_uc(dev, qp, p, mask);
}

/*
 * Whether a connected QP's packet comes from its remote end and to its
 * own address (rxe's check_addr): the source address is the AV's
 * destination GID, the destination one the AV's source GID entry.
 */
static bool xnic_sim_wresp_addr_ok(struct xnic_sim_dev *dev,
				   struct xnic_sim_qp *qp,
				   const struct xnic_sim_pkt *p)
{
	u8 gid[16], type;

	return !memcmp(p->sgid, qp->dgid, 16) &&
	       xnic_sim_sgid(dev, qp->sgid_index, gid, &type) &&
	       !memcmp(p->dgid, gid, 16);
}

/**
 * xnic_sim_roce_recv - a RoCEv2 packet received
 * @dev: the device (its engine, exec_lock held)
 * @p: the packet, parsed and ICRC checked (xnic_sim_pkt_parse())
 *
 * The destination QP must exist, be of the opcode's transport (RC, UC,
 * UD/GSI), receive (RTR, RTS, SQD, SQE) and be on the wire: an RC or UC
 * QP whose remote end is (qp->wire), or a UD QP of an attached port; an
 * RC or UC packet must come from the QP's remote address to its own.
 * Requests go to the responder, responses to the requester
 * (xnic_sim_wreq_recv()).  Anything else is dropped and counted.
 */
void xnic_sim_roce_recv(struct xnic_sim_dev *dev,
			const struct xnic_sim_pkt *p)
{
	u32 mask = xnic_sim_opcodes[p->opcode].mask;
	u8 t = p->opcode & 0xe0;
	struct xnic_sim_qp *qp;
	bool ok;

	if (!(mask & (XNIC_SIM_PH_REQ | XNIC_SIM_PH_RESP)) ||
	    (t != XNIC_SIM_BTH_RC && t != XNIC_SIM_BTH_UC &&
	     t != XNIC_SIM_BTH_UD) ||
	    (t == XNIC_SIM_BTH_UD && !(mask & XNIC_SIM_PH_REQ))) {
		xnic_sim_count(dev, XNIC_SIM_CTR_wire_malformed, 1);
		return;
	}
	/* multicast (XNIC_MCAST_QPN) is not taken from the wire yet */
	qp = p->dqpn == XNIC_MCAST_QPN ? NULL :
	     xnic_sim_tbl_get(&dev->qps, p->dqpn);
	if (!qp) {
		xnic_sim_count(dev, XNIC_SIM_CTR_wire_drop_noqp, 1);
		return;
	}
	if (t == XNIC_SIM_BTH_RC)
		ok = qp->type == XNIC_QPT_RC;
	else if (t == XNIC_SIM_BTH_UC)
		ok = qp->type == XNIC_QPT_UC;
	else
		ok = xnic_sim_qpt_ud(qp->type) && xnic_sim_wire_on(dev);
	if (ok && t != XNIC_SIM_BTH_UD)
		ok = READ_ONCE(qp->wire) && qp->wresp && qp->wreq;
	if (!ok || !xnic_sim_qp_can_recv(READ_ONCE(qp->state))) {
		xnic_sim_count(dev, XNIC_SIM_CTR_wire_drop_noqp, 1);
		return;
	}
	if (t != XNIC_SIM_BTH_UD && !xnic_sim_wresp_addr_ok(dev, qp, p)) {
		xnic_sim_count(dev, XNIC_SIM_CTR_rx_drop_bad_src, 1);
		return;
	}
	if (mask & XNIC_SIM_PH_REQ)
		xnic_sim_wresp_recv(dev, qp, p);
	else
		xnic_sim_wreq_recv(dev, qp, p);
}
