// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite xnic_sim_fault_wire: faults on demand on the frames a wire
 * port receives (drivers/hw/xnic/sim/xnic_sim_wire.c, the frame faults of
 * xnic_sim_wire_rx_fault(), and the frames it holds back,
 * xnic_sim_fault_hold()) and in what the wire's RC responder answers
 * (xnic_sim_wresp.c, xnic_sim_wresp_fault()); Documentation/faults.rst.
 *
 * A scripted requester (xnic_sim_wresp_fixture.h): each case
 * builds request frames for an RC responder QP of an engine-less model
 * device, injects them as its wire's rx_handler would receive them
 * (xnic_sim_wire_inject()), runs the engine's RX poll
 * (xnic_sim_wire_rx_poll()) and reads back what the responder sent (the
 * frames of a fake wire, parsed), its memory, its receive queue and its
 * counters, and the rule's own counters.  Covered: drop, corrupt (an ICRC
 * error), dup (answered as a duplicate), reorder (a PSN sequence NAK,
 * then the frame), delay (held, the engine's next wake-up, then taken),
 * the answers rnr (SEND only) and nak_access / nak_op / nak_inv (the
 * responder untouched), and a full held list (no rule that would hold a
 * frame fires).
 *
 * Each case makes its rules with xnic_sim_fault_rule_alloc() and
 * xnic_sim_fault_rule_add(), enables them and removes them at its end:
 * xnic_sim_faults_on() is off again (a case that fails half-way leaves its
 * rules and held frames to the device's exit, xnic_sim_fault_fini()).
 *
 * The model's sources are compiled into this module by
 * kunit/xnic_sim_test.c.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include "xnic_sim_wresp_fixture.h"

#define KT_DELAY_US	1000		/* delay_us's default */
#define KT_LONG_US	(100 * USEC_PER_MSEC)	/* longer than a poll takes */

/* ------------------------------------------------------------------ */
/* Rules                                                               */

/*
 * A rule of the responder's device for QP KT_QPN and operations of class
 * @op: @type, @count injections at most, on the device's list and
 * enabled.
 */
static struct xnic_sim_fault_rule *kt_rule(struct kt_env *e, const char *name,
					   u8 type, u8 op, u32 count)
{
	struct kunit *test = e->test;
	struct xnic_sim_fault_rule *r = xnic_sim_fault_rule_alloc(e->d, name);

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->type = type;
	r->qpn = KT_QPN;
	r->op = op;
	r->count = count;
	/* on the list at once: xnic_sim_fault_fini() frees what is left */
	xnic_sim_fault_rule_add(r);
	KUNIT_ASSERT_EQ(test, xnic_sim_fault_rule_enable(r, true), 0);
	KUNIT_EXPECT_TRUE(test, xnic_sim_faults_on());
	return r;
}

/* A rule's counters since it was enabled. */
static void kt_counts(struct kt_env *e, struct xnic_sim_fault_rule *r,
		      u64 matched, u64 injected)
{
	u64 m, i;

	xnic_sim_fault_rule_counts(r, &m, &i);
	KUNIT_EXPECT_EQ_MSG(e->test, m, matched, "rule %s: matched", r->name);
	KUNIT_EXPECT_EQ_MSG(e->test, i, injected, "rule %s: injected",
			    r->name);
}

/* The frames the wire took, in all. */
static u64 kt_rx_pkts(struct kt_env *e)
{
	return kt_ctr(e, XNIC_SIM_CTR_wire_rx_packets);
}

/* Whether the MR's bytes of kt_write64(@i) are its data. */
static bool kt_written(struct kt_env *e, int i)
{
	return !memcmp(e->p.mr_buf + 64 * i, e->data + 64 * i, 64);
}

/* ------------------------------------------------------------------ */

/*
 * drop: a WRITE ONLY with AckReq is lost -- not executed (the MR as it
 * was), not answered, not counted as received; the rule and the device
 * count one injection.  The same frame again (the rule's count reached):
 * executed and acknowledged.
 */
static void fault_wire_drop(struct kunit *test)
{
	struct kt_env *e = kt_env(test);
	struct kt_qp *x = kt_qp(e, KT_QPN, XNIC_QPT_RC);
	struct xnic_sim_fault_rule *r;
	struct xnic_sim_pkt p;

	r = kt_rule(e, "drop", XNIC_SIM_FAULT_DROP, XNIC_SIM_FOP_WRITE, 1);
	p = kt_write64(e, x, 0, true);
	kt_wire_rx(e, &p);
	KUNIT_EXPECT_TRUE(test, kt_rx_poll(e));
	KUNIT_EXPECT_EQ(test, kt_out(e), 0U);
	KUNIT_EXPECT_NULL(test, memchr_inv(e->p.mr_buf, 0, PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, kt_rx_pkts(e), 0ULL);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_rx_write), 0ULL);
	KUNIT_EXPECT_EQ(test, x->q.rq_psn, (u32)KT_PSN);
	KUNIT_EXPECT_TRUE(test, list_empty(&e->d->wresp_acks));
	kt_counts(e, r, 1, 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&e->d->fault.injected), 1LL);

	kt_wire_rx(e, &p);
	KUNIT_EXPECT_TRUE(test, kt_rx_poll(e));
	KUNIT_EXPECT_TRUE(test, kt_written(e, 0));
	KUNIT_ASSERT_EQ(test, kt_out(e), 1U);
	kt_expect_ack(e, 0, KT_PSN, KT_ACK, 1);
	KUNIT_EXPECT_EQ(test, kt_rx_pkts(e), 1ULL);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_rx_write), 1ULL);
	KUNIT_EXPECT_EQ(test, x->q.rq_psn, (KT_PSN + 1) & 0xffffff);
	kt_counts(e, r, 1, 1);

	xnic_sim_fault_rule_del(r);
	KUNIT_EXPECT_FALSE(test, xnic_sim_faults_on());
}

/*
 * corrupt: the byte before the ICRC flipped, the receiver's check fails:
 * the frame is dropped and counted (wire_icrc_errors), nothing executed
 * or answered.  Again: executed and acknowledged.
 */
static void fault_wire_corrupt(struct kunit *test)
{
	struct kt_env *e = kt_env(test);
	struct kt_qp *x = kt_qp(e, KT_QPN, XNIC_QPT_RC);
	struct xnic_sim_fault_rule *r;
	struct xnic_sim_pkt p;

	r = kt_rule(e, "corrupt", XNIC_SIM_FAULT_CORRUPT, XNIC_SIM_FOP_ANY, 1);
	p = kt_write64(e, x, 0, true);
	kt_wire_rx(e, &p);
	KUNIT_EXPECT_TRUE(test, kt_rx_poll(e));
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_wire_icrc_errors), 1ULL);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_wire_malformed), 0ULL);
	KUNIT_EXPECT_EQ(test, kt_out(e), 0U);
	KUNIT_EXPECT_NULL(test, memchr_inv(e->p.mr_buf, 0, PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, kt_rx_pkts(e), 0ULL);
	KUNIT_EXPECT_EQ(test, x->q.rq_psn, (u32)KT_PSN);
	kt_counts(e, r, 1, 1);

	kt_wire_rx(e, &p);
	KUNIT_EXPECT_TRUE(test, kt_rx_poll(e));
	KUNIT_EXPECT_TRUE(test, kt_written(e, 0));
	KUNIT_ASSERT_EQ(test, kt_out(e), 1U);
	kt_expect_ack(e, 0, KT_PSN, KT_ACK, 1);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_wire_icrc_errors), 1ULL);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_rx_write), 1ULL);
	kt_counts(e, r, 1, 1);

	xnic_sim_fault_rule_del(r);
	KUNIT_EXPECT_FALSE(test, xnic_sim_faults_on());
}

/*
 * dup: the frame is taken twice in one poll.  The first is executed (the
 * data written once, acknowledged); the copy, held to follow it, is a
 * duplicate (xnic_sim_wresp_dup(): counted, acknowledged again for the
 * last PSN executed, not executed again).
 */
static void fault_wire_dup(struct kunit *test)
{
	struct kt_env *e = kt_env(test);
	struct kt_qp *x = kt_qp(e, KT_QPN, XNIC_QPT_RC);
	struct xnic_sim_fault_rule *r;
	struct xnic_sim_pkt p;

	r = kt_rule(e, "dup", XNIC_SIM_FAULT_DUP, XNIC_SIM_FOP_ANY, 1);
	p = kt_write64(e, x, 0, true);
	kt_wire_rx(e, &p);
	KUNIT_EXPECT_TRUE(test, kt_rx_poll(e));
	KUNIT_EXPECT_EQ(test, e->d->fault.nheld, 0U);
	KUNIT_EXPECT_TRUE(test, kt_written(e, 0));
	KUNIT_EXPECT_NULL(test, memchr_inv(e->p.mr_buf + 64, 0,
					   PAGE_SIZE - 64));
	KUNIT_EXPECT_EQ(test, kt_rx_pkts(e), 2ULL);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_rx_write), 1ULL);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_wire_duplicates), 1ULL);
	KUNIT_EXPECT_EQ(test, x->q.rq_psn, (KT_PSN + 1) & 0xffffff);
	KUNIT_ASSERT_EQ(test, kt_out(e), 2U);
	kt_expect_ack(e, 0, KT_PSN, KT_ACK, 1);
	kt_expect_ack(e, 1, KT_PSN, KT_ACK, 1);
	KUNIT_EXPECT_TRUE(test, list_empty(&e->d->wresp_acks));
	kt_counts(e, r, 1, 1);

	xnic_sim_fault_rule_del(r);
	KUNIT_EXPECT_FALSE(test, xnic_sim_faults_on());
}

/*
 * reorder: WRITE n (held) and WRITE n + 1, one poll.  n + 1 is taken
 * first: ahead of the expected PSN, dropped (wire_oos_drops) and answered
 * by a PSN sequence NAK for n (MSN 0) at once; then n (released once
 * the next frame was taken): executed, ACK n (MSN 1).  n + 1 sent again
 * is executed, ACK n + 1 (MSN 2).
 */
static void fault_wire_reorder(struct kunit *test)
{
	struct kt_env *e = kt_env(test);
	struct kt_qp *x = kt_qp(e, KT_QPN, XNIC_QPT_RC);
	struct xnic_sim_fault_rule *r;
	struct xnic_sim_pkt p[2];

	r = kt_rule(e, "reorder", XNIC_SIM_FAULT_REORDER, XNIC_SIM_FOP_ANY, 1);
	/* no time limit that a slow machine could reach first */
	WRITE_ONCE(r->delay_us, KT_LONG_US);
	p[0] = kt_write64(e, x, 0, true);
	p[1] = kt_write64(e, x, 1, true);
	kt_wire_rx(e, &p[0]);
	kt_wire_rx(e, &p[1]);
	KUNIT_EXPECT_TRUE(test, kt_rx_poll(e));
	KUNIT_EXPECT_EQ(test, e->d->fault.nheld, 0U);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_wire_oos_drops), 1ULL);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_wire_seq_naks_sent),
			1ULL);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_wire_duplicates), 0ULL);
	KUNIT_EXPECT_EQ(test, kt_rx_pkts(e), 2ULL);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_rx_write), 1ULL);
	KUNIT_EXPECT_TRUE(test, kt_written(e, 0));
	KUNIT_EXPECT_NULL(test, memchr_inv(e->p.mr_buf + 64, 0,
					   PAGE_SIZE - 64));
	KUNIT_ASSERT_EQ(test, kt_out(e), 2U);
	kt_expect_ack(e, 0, KT_PSN, KT_NAK(XNIC_SIM_NAK_PSN_SEQ), 0);
	kt_expect_ack(e, 1, KT_PSN, KT_ACK, 1);
	KUNIT_EXPECT_EQ(test, x->q.rq_psn, (KT_PSN + 1) & 0xffffff);
	/* n came: a later gap would get its own NAK */
	KUNIT_EXPECT_FALSE(test, x->q.wresp->nak_sent);
	KUNIT_EXPECT_TRUE(test, list_empty(&e->d->wresp_acks));
	kt_counts(e, r, 1, 1);

	kt_wire_rx(e, &p[1]);
	KUNIT_EXPECT_TRUE(test, kt_rx_poll(e));
	KUNIT_EXPECT_TRUE(test, kt_written(e, 1));
	KUNIT_ASSERT_EQ(test, kt_out(e), 1U);
	kt_expect_ack(e, 0, KT_PSN + 1, KT_ACK, 2);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_rx_write), 2ULL);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_wire_oos_drops), 1ULL);
	KUNIT_EXPECT_EQ(test, x->q.rq_psn, (KT_PSN + 2) & 0xffffff);
	kt_counts(e, r, 1, 1);

	xnic_sim_fault_rule_del(r);
	KUNIT_EXPECT_FALSE(test, xnic_sim_faults_on());
}

/*
 * delay (KT_DELAY_US by default; KT_LONG_US here): right after the poll
 * the frame is held, nothing executed or answered, and the poll's next
 * wake-up is its release time (the poll's time + the delay); once that
 * has passed the next poll takes it: executed, acknowledged.
 */
static void fault_wire_delay(struct kunit *test)
{
	struct kt_env *e = kt_env(test);
	struct kt_qp *x = kt_qp(e, KT_QPN, XNIC_QPT_RC);
	struct xnic_sim_fault_rule *r;
	struct xnic_sim_pkt p;
	u64 before, after, next;

	r = kt_rule(e, "delay", XNIC_SIM_FAULT_DELAY, XNIC_SIM_FOP_ANY, 1);
	KUNIT_EXPECT_EQ(test, r->delay_us, (u32)KT_DELAY_US);	/* default */
	WRITE_ONCE(r->delay_us, KT_LONG_US);
	p = kt_write64(e, x, 0, true);
	kt_wire_rx(e, &p);
	before = xnic_sim_now();
	KUNIT_EXPECT_TRUE(test, kt_rx_poll_next(e, &next));
	after = xnic_sim_now();
	KUNIT_EXPECT_EQ(test, e->d->fault.nheld, 1U);
	KUNIT_EXPECT_EQ(test, kt_out(e), 0U);
	KUNIT_EXPECT_NULL(test, memchr_inv(e->p.mr_buf, 0, PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, kt_rx_pkts(e), 0ULL);
	/* held at a time between before and after */
	KUNIT_EXPECT_GE(test, next, before + KT_LONG_US * NSEC_PER_USEC);
	KUNIT_EXPECT_LE(test, next, after + KT_LONG_US * NSEC_PER_USEC);
	kt_counts(e, r, 1, 1);

	while (xnic_sim_now() < next)
		msleep(20);
	KUNIT_EXPECT_TRUE(test, kt_rx_poll_next(e, &next));
	KUNIT_EXPECT_EQ(test, next, U64_MAX);
	KUNIT_EXPECT_EQ(test, e->d->fault.nheld, 0U);
	KUNIT_EXPECT_TRUE(test, kt_written(e, 0));
	KUNIT_ASSERT_EQ(test, kt_out(e), 1U);
	kt_expect_ack(e, 0, KT_PSN, KT_ACK, 1);
	KUNIT_EXPECT_EQ(test, kt_rx_pkts(e), 1ULL);
	kt_counts(e, r, 1, 1);

	xnic_sim_fault_rule_del(r);
	KUNIT_EXPECT_FALSE(test, xnic_sim_faults_on());
}

/*
 * rnr answers only a SEND: a WRITE under the rule is not a match (its
 * counters stay 0) and is executed; the SEND ONLY after it, a receive
 * WQE posted, is answered with an RNR NAK (the QP's RNR timer) and
 * consumes nothing; sent again (the count reached) it is executed.
 */
static void fault_wire_rnr(struct kunit *test)
{
	struct kt_env *e = kt_env(test);
	struct kt_qp *x = kt_qp(e, KT_QPN, XNIC_QPT_RC);
	struct xnic_sim_fault_rule *r;
	struct xnic_sim_pkt p;

	r = kt_rule(e, "rnr", XNIC_SIM_FAULT_RNR, XNIC_SIM_FOP_ANY, 1);
	p = kt_write64(e, x, 0, true);
	kt_wire_rx(e, &p);
	KUNIT_EXPECT_TRUE(test, kt_rx_poll(e));
	KUNIT_EXPECT_TRUE(test, kt_written(e, 0));
	KUNIT_ASSERT_EQ(test, kt_out(e), 1U);
	kt_expect_ack(e, 0, KT_PSN, KT_ACK, 1);
	kt_counts(e, r, 0, 0);

	kt_post_recv(e, x, 0xa1, 0, 256);
	p = kt_req(e, x, XNIC_SIM_BTH_SEND_ONLY, KT_PSN + 1);
	p.ackreq = true;
	kt_pay(e, &p, 0, 64);
	kt_wire_rx(e, &p);
	KUNIT_EXPECT_TRUE(test, kt_rx_poll(e));
	KUNIT_ASSERT_EQ(test, kt_out(e), 1U);
	kt_expect_ack(e, 0, KT_PSN + 1, XNIC_SIM_AETH_RNR | KT_RNR_TIMER, 1);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_wire_rnr_naks_sent), 1ULL);
	KUNIT_EXPECT_EQ(test, x->q.rq_ci, 0U);
	KUNIT_EXPECT_FALSE(test, x->q.wresp->have_rwqe);
	KUNIT_EXPECT_EQ(test, kt_cqes(e), 0U);
	KUNIT_EXPECT_NULL(test, memchr_inv(e->rbuf, 0, 4 * PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, x->q.rq_psn, (KT_PSN + 1) & 0xffffff);
	KUNIT_EXPECT_EQ(test, x->q.state, XNIC_QPS_RTS);
	kt_counts(e, r, 1, 1);

	kt_wire_rx(e, &p);
	KUNIT_EXPECT_TRUE(test, kt_rx_poll(e));
	KUNIT_ASSERT_EQ(test, kt_cqes(e), 1U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(kt_cqe(e, 0)->wr_id), 0xa1ULL);
	KUNIT_EXPECT_EQ(test, kt_cqe(e, 0)->status, XNIC_CQE_SUCCESS);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(kt_cqe(e, 0)->byte_len), 64U);
	KUNIT_EXPECT_EQ(test, memcmp(e->rbuf, e->data, 64), 0);
	KUNIT_EXPECT_EQ(test, x->q.rq_ci, 1U);
	KUNIT_ASSERT_EQ(test, kt_out(e), 1U);
	kt_expect_ack(e, 0, KT_PSN + 1, KT_ACK, 2);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_wire_rnr_naks_sent), 1ULL);
	kt_counts(e, r, 1, 1);

	xnic_sim_fault_rule_del(r);
	KUNIT_EXPECT_FALSE(test, xnic_sim_faults_on());
}

/*
 * nak_access, nak_op, nak_inv on a WRITE: the NAK of the rule's syndrome
 * for its PSN (with the MSN so far), counted as an error NAK; the
 * responder is not touched -- its QP still in RTS, the PSN expected the
 * same, the MR as it was -- so the WRITE sent again is executed.
 */
static void fault_wire_naks(struct kunit *test)
{
	static const struct {
		const char *name;
		u8 type;
		u8 nak;
	} t[] = {
		{ "nak_access", XNIC_SIM_FAULT_NAK_ACCESS,
		  XNIC_SIM_NAK_REM_ACCESS },
		{ "nak_op", XNIC_SIM_FAULT_NAK_OP, XNIC_SIM_NAK_REM_OP },
		{ "nak_inv", XNIC_SIM_FAULT_NAK_INV, XNIC_SIM_NAK_INV_REQ },
	};
	struct kt_env *e = kt_env(test);
	struct kt_qp *x = kt_qp(e, KT_QPN, XNIC_QPT_RC);
	struct xnic_sim_fault_rule *r;
	struct xnic_sim_pkt p;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		r = kt_rule(e, t[i].name, t[i].type, XNIC_SIM_FOP_WRITE, 1);
		p = kt_write64(e, x, i, true);
		kt_wire_rx(e, &p);
		KUNIT_EXPECT_TRUE(test, kt_rx_poll(e));
		KUNIT_ASSERT_EQ_MSG(test, kt_out(e), 1U, "%s", t[i].name);
		kt_expect_ack(e, 0, KT_PSN + i, KT_NAK(t[i].nak), i);
		KUNIT_EXPECT_EQ(test,
				kt_ctr(e, XNIC_SIM_CTR_wire_err_naks_sent),
				(u64)i + 1);
		KUNIT_EXPECT_EQ_MSG(test, x->q.state, XNIC_QPS_RTS, "%s",
				    t[i].name);
		KUNIT_EXPECT_EQ(test, x->q.rq_psn, (KT_PSN + i) & 0xffffff);
		KUNIT_EXPECT_NULL_MSG(test,
				      memchr_inv(e->p.mr_buf + 64 * i, 0,
						 PAGE_SIZE - 64 * i),
				      "%s", t[i].name);
		KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_rx_write), (u64)i);
		kt_counts(e, r, 1, 1);

		kt_wire_rx(e, &p);
		KUNIT_EXPECT_TRUE(test, kt_rx_poll(e));
		KUNIT_EXPECT_TRUE(test, kt_written(e, i));
		KUNIT_ASSERT_EQ(test, kt_out(e), 1U);
		kt_expect_ack(e, 0, KT_PSN + i, KT_ACK, i + 1);
		KUNIT_EXPECT_EQ(test, x->q.rq_psn,
				(KT_PSN + i + 1) & 0xffffff);
		kt_counts(e, r, 1, 1);
		xnic_sim_fault_rule_del(r);
	}
	KUNIT_EXPECT_EQ(test, kt_cqes(e), 0U);
	KUNIT_EXPECT_FALSE(test, xnic_sim_faults_on());
}

/*
 * The held list full (XNIC_SIM_FAULT_HELD frames that are never due):
 * the rules that would hold a frame (delay, reorder, dup) are not asked
 * -- their counters stay 0 -- and the frame goes through.  With room
 * again the delay rule fires on the next frame.
 */
static void fault_wire_held_full(struct kunit *test)
{
	static const u8 types[] = {
		XNIC_SIM_FAULT_DELAY, XNIC_SIM_FAULT_REORDER,
		XNIC_SIM_FAULT_DUP,
	};
	struct xnic_sim_fault_rule *r[ARRAY_SIZE(types)];
	struct kt_env *e = kt_env(test);
	struct kt_qp *x = kt_qp(e, KT_QPN, XNIC_QPT_RC);
	struct xnic_sim_pkt p;
	struct sk_buff *skb;
	int i;

	/* never due: neither a time nor a count of frames releases them */
	mutex_lock(&e->d->exec_lock);
	for (i = 0; i < XNIC_SIM_FAULT_HELD; i++) {
		skb = alloc_skb(64, GFP_KERNEL);
		if (!skb || !xnic_sim_fault_hold(e->d, skb, U64_MAX, 0)) {
			kfree_skb(skb);
			break;
		}
	}
	mutex_unlock(&e->d->exec_lock);
	KUNIT_ASSERT_EQ(test, e->d->fault.nheld, (u32)XNIC_SIM_FAULT_HELD);

	for (i = 0; i < ARRAY_SIZE(types); i++)
		r[i] = kt_rule(e, xnic_sim_fault_type_names[types[i]],
			       types[i], XNIC_SIM_FOP_ANY, 1);
	p = kt_write64(e, x, 0, true);
	kt_wire_rx(e, &p);
	KUNIT_EXPECT_TRUE(test, kt_rx_poll(e));
	KUNIT_EXPECT_EQ(test, e->d->fault.nheld, (u32)XNIC_SIM_FAULT_HELD);
	KUNIT_EXPECT_TRUE(test, kt_written(e, 0));
	KUNIT_ASSERT_EQ(test, kt_out(e), 1U);
	kt_expect_ack(e, 0, KT_PSN, KT_ACK, 1);
	KUNIT_EXPECT_EQ(test, kt_rx_pkts(e), 1ULL);
	for (i = 0; i < ARRAY_SIZE(types); i++)
		kt_counts(e, r[i], 0, 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&e->d->fault.injected), 0LL);

	/* room again: the first rule (delay) holds the next frame */
	mutex_lock(&e->d->exec_lock);
	xnic_sim_fault_drop_held(e->d);
	mutex_unlock(&e->d->exec_lock);
	KUNIT_EXPECT_EQ(test, e->d->fault.nheld, 0U);
	p = kt_write64(e, x, 1, true);
	kt_wire_rx(e, &p);
	KUNIT_EXPECT_TRUE(test, kt_rx_poll(e));
	KUNIT_EXPECT_EQ(test, e->d->fault.nheld, 1U);
	KUNIT_EXPECT_EQ(test, kt_out(e), 0U);
	kt_counts(e, r[0], 1, 1);
	kt_counts(e, r[1], 0, 0);
	kt_counts(e, r[2], 0, 0);

	mutex_lock(&e->d->exec_lock);
	xnic_sim_fault_drop_held(e->d);
	mutex_unlock(&e->d->exec_lock);
	KUNIT_EXPECT_EQ(test, e->d->fault.nheld, 0U);
	for (i = 0; i < ARRAY_SIZE(types); i++)
		xnic_sim_fault_rule_del(r[i]);
	KUNIT_EXPECT_FALSE(test, xnic_sim_faults_on());
}

static struct kunit_case xnic_sim_fault_wire_cases[] = {
	KUNIT_CASE(fault_wire_drop),
	KUNIT_CASE(fault_wire_corrupt),
	KUNIT_CASE(fault_wire_dup),
	KUNIT_CASE(fault_wire_reorder),
	KUNIT_CASE(fault_wire_delay),
	KUNIT_CASE(fault_wire_rnr),
	KUNIT_CASE(fault_wire_naks),
	KUNIT_CASE(fault_wire_held_full),
	{}
};

static struct kunit_suite xnic_sim_fault_wire_suite = {
	.name = "xnic_sim_fault_wire",
	.test_cases = xnic_sim_fault_wire_cases,
};

kunit_test_suite(xnic_sim_fault_wire_suite);
