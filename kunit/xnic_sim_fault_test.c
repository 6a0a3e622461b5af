// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites of the device model's faults on demand
 * (drivers/hw/xnic/sim/xnic_sim_fault.[ch], Documentation/faults.rst):
 *   xnic_sim_fault_rules  the rules alone, on a device that is only a
 *                         struct with its faults initialised: a rule's
 *                         defaults and enabling (the fault count), every,
 *                         count, rate, a seed's repeatable decisions, the
 *                         time window (the time is passed in, nothing
 *                         sleeps), xnic_sim_fault_find() (types, QPs,
 *                         classes of operation, disabled rules, the first
 *                         rule that fires wins, the copy of it handed
 *                         back), the classes of WQE opcodes and packets,
 *                         and the frames a wire holds back (room, release
 *                         by time and by frames taken, the next release
 *                         time, freeing)
 *   xnic_sim_fault_dev    two cabled devices with their engines
 *                         (kunit/xnic_sim_dev_fixture.h), RC a (device 0)
 *                         to b (device 1): drop (retries, then
 *                         RETRY_EXC_ERR), the NAKs (b untouched, its
 *                         receive WQE kept), RNR NAKs, cqe_err, delay, the
 *                         link taken down and up (PORT_CHANGE on both
 *                         ends, ETH_STATUS, QUERY_CAPS), a flapping
 *                         link, and the events on demand: a QP put in
 *                         ERR (its event, its WQEs flushed), a CQ overrun
 *                         (CQ_ERR, then QP_FATAL for a QP completing into
 *                         it), an SRQ's limit reached (armed or not) and
 *                         the device fatal (no command done; a RESET
 *                         brings it back)
 *
 * The model's sources are compiled into this module by
 * kunit/xnic_sim_test.c; this file calls its non-static functions.  Every
 * case leaves no rule and every link up: the fault count behind
 * xnic_sim_faults_on() is back to 0 at its end (and the devices' exit,
 * xnic_sim_fault_fini(), cleans up after a case that failed half-way).
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/preempt.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include "xnic_sim_dev_fixture.h"

/* A rule's counters since it was enabled. */
static void kt_fault_counts(struct kunit *test, struct xnic_sim_fault_rule *r,
			    u64 matched, u64 injected)
{
	u64 m, i;

	xnic_sim_fault_rule_counts(r, &m, &i);
	KUNIT_EXPECT_EQ_MSG(test, m, matched, "rule %s: matched", r->name);
	KUNIT_EXPECT_EQ_MSG(test, i, injected, "rule %s: injected", r->name);
}

/* A rule of @dev of @type on its list, disabled (the defaults otherwise). */
static struct xnic_sim_fault_rule *kt_fault_rule(struct kunit *test,
						 struct xnic_sim_dev *dev,
						 const char *name, u8 type)
{
	struct xnic_sim_fault_rule *r = xnic_sim_fault_rule_alloc(dev, name);

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->type = type;
	/* on the list at once: xnic_sim_fault_fini() frees what is left */
	xnic_sim_fault_rule_add(r);
	return r;
}

static void kt_fault_on(struct kunit *test, struct xnic_sim_fault_rule *r)
{
	KUNIT_ASSERT_EQ(test, xnic_sim_fault_rule_enable(r, true), 0);
	KUNIT_EXPECT_TRUE(test, xnic_sim_faults_on());
}

/* Remove every rule of @dev. */
static void kt_fault_rm(struct kunit *test, struct xnic_sim_dev *dev)
{
	struct xnic_sim_fault_rule *r, *tmp;

	list_for_each_entry_safe(r, tmp, &dev->fault.rules, node)
		xnic_sim_fault_rule_del(r);
	KUNIT_EXPECT_TRUE(test, list_empty(&dev->fault.rules));
}

/* Remove every rule of @dev, the only one with rules: the count is 0. */
static void kt_fault_clear(struct kunit *test, struct xnic_sim_dev *dev)
{
	kt_fault_rm(test, dev);
	KUNIT_EXPECT_FALSE(test, xnic_sim_faults_on());
}

/* ------------------------------------------------------------------ */
/* xnic_sim_fault_rules: the rules alone                               */

static int kt_fr_init(struct kunit *test)
{
	struct xnic_sim_dev *dev = kunit_kzalloc(test, sizeof(*dev),
						 GFP_KERNEL);

	if (!dev)
		return -ENOMEM;
	xnic_sim_fault_init(dev);
	test->priv = dev;
	return 0;
}

static void kt_fr_exit(struct kunit *test)
{
	if (test->priv)
		xnic_sim_fault_fini(test->priv);
}

/* Whether a rule fires when the data path asks xnic_sim_fault_find(). */
static bool kt_find(struct xnic_sim_dev *dev, u32 types, u32 qpn, u32 qpn2,
		    u8 op)
{
	struct xnic_sim_fault_hit hit;

	return xnic_sim_fault_find(dev, types, qpn, qpn2, op, &hit);
}

/*
 * Ask xnic_sim_fault_find() as kt_find() does, expecting @r to fire: @r's
 * injections and the device's rise by one (so no other rule fired), and
 * the hit is a copy of what @r asks for.  Expects only (no assertion: a
 * caller may have migration disabled).
 */
static void kt_find_fires(struct kunit *test, struct xnic_sim_dev *dev,
			  u32 types, u32 qpn, u32 qpn2, u8 op,
			  struct xnic_sim_fault_rule *r)
{
	s64 total = atomic64_read(&dev->fault.injected);
	struct xnic_sim_fault_hit hit;
	u64 m, before, after;

	memset(&hit, 0xff, sizeof(hit));
	xnic_sim_fault_rule_counts(r, &m, &before);
	KUNIT_EXPECT_TRUE_MSG(test, xnic_sim_fault_find(dev, types, qpn, qpn2,
							op, &hit),
			      "rule %s", r->name);
	xnic_sim_fault_rule_counts(r, &m, &after);
	KUNIT_EXPECT_EQ_MSG(test, after, before + 1, "rule %s fired", r->name);
	KUNIT_EXPECT_EQ(test, atomic64_read(&dev->fault.injected), total + 1);
	KUNIT_EXPECT_EQ(test, hit.type, r->type);
	KUNIT_EXPECT_EQ(test, hit.status, r->status);
	KUNIT_EXPECT_EQ(test, hit.cmd_status, r->cmd_status);
	KUNIT_EXPECT_EQ(test, hit.delay_us, r->delay_us);
}

/* Defaults, the name, enabling twice, the fault count. */
static void fault_rule_defaults(struct kunit *test)
{
	struct xnic_sim_dev *dev = test->priv;
	struct xnic_sim_fault_rule *r;

	r = kt_fault_rule(test, dev,
			  "a-name.that_is-longer.than_thirty-one.chars", 0);
	KUNIT_EXPECT_EQ(test, strlen(r->name),
			(size_t)XNIC_SIM_FAULT_NAME_LEN - 1);
	KUNIT_EXPECT_PTR_EQ(test, r->dev, dev);
	KUNIT_EXPECT_EQ(test, r->type, (u8)XNIC_SIM_FAULT_DROP);
	KUNIT_EXPECT_EQ(test, r->qpn, (u32)XNIC_SIM_FAULT_ANY_QP);
	KUNIT_EXPECT_EQ(test, r->op, (u8)XNIC_SIM_FOP_ANY);
	KUNIT_EXPECT_EQ(test, r->status, (u8)XNIC_CQE_GENERAL_ERR);
	KUNIT_EXPECT_EQ(test, r->delay_us, 1000U);
	KUNIT_EXPECT_EQ(test, r->rate, XNIC_SIM_FAULT_PPM);
	KUNIT_EXPECT_EQ(test, r->every, 0U);
	KUNIT_EXPECT_EQ(test, r->count, 0U);
	KUNIT_EXPECT_EQ(test, r->seed, 0ULL);
	KUNIT_EXPECT_FALSE(test, r->enabled);
	KUNIT_EXPECT_FALSE(test, xnic_sim_faults_on());
	/* a disabled rule does not fire and counts nothing */
	KUNIT_EXPECT_FALSE(test, xnic_sim_fault_fire(r, U64_MAX - 1));
	kt_fault_counts(test, r, 0, 0);

	/* enabling twice counts once: one disable releases it */
	kt_fault_on(test, r);
	KUNIT_EXPECT_EQ(test, xnic_sim_fault_rule_enable(r, true), 0);
	KUNIT_EXPECT_TRUE(test, r->enabled);
	KUNIT_EXPECT_EQ(test, r->end_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, xnic_sim_fault_rule_enable(r, false), 0);
	KUNIT_EXPECT_FALSE(test, xnic_sim_faults_on());
	KUNIT_EXPECT_EQ(test, xnic_sim_fault_rule_enable(r, false), 0);
	KUNIT_EXPECT_FALSE(test, xnic_sim_faults_on());
	KUNIT_EXPECT_FALSE(test, xnic_sim_fault_fire(r, r->start_ns));

	/* deleted while enabled: the count goes back too */
	kt_fault_on(test, r);
	xnic_sim_fault_rule_del(r);
	KUNIT_EXPECT_FALSE(test, xnic_sim_faults_on());
	kt_fault_clear(test, dev);
}

/* every=3: matches 3, 6, 9 are the ones that fire. */
static void fault_rule_every(struct kunit *test)
{
	struct xnic_sim_dev *dev = test->priv;
	struct xnic_sim_fault_rule *r = kt_fault_rule(test, dev, "every", 0);
	struct xnic_sim_fault_rule *r1 = kt_fault_rule(test, dev, "every1", 0);
	u32 i;

	r->every = 3;
	r1->every = 1;
	kt_fault_on(test, r);
	kt_fault_on(test, r1);
	for (i = 1; i <= 10; i++) {
		KUNIT_EXPECT_EQ_MSG(test, xnic_sim_fault_fire(r, r->start_ns),
				    i % 3 == 0, "match %u", i);
		/* 1 (and 0) is every match */
		KUNIT_EXPECT_TRUE(test, xnic_sim_fault_fire(r1, r1->start_ns));
	}
	kt_fault_counts(test, r, 10, 3);
	kt_fault_counts(test, r1, 10, 10);

	/* enabling again starts over */
	xnic_sim_fault_rule_enable(r, false);
	kt_fault_on(test, r);
	kt_fault_counts(test, r, 0, 0);
	KUNIT_EXPECT_FALSE(test, xnic_sim_fault_fire(r, r->start_ns));
	KUNIT_EXPECT_FALSE(test, xnic_sim_fault_fire(r, r->start_ns));
	KUNIT_EXPECT_TRUE(test, xnic_sim_fault_fire(r, r->start_ns));
	kt_fault_clear(test, dev);
}

/*
 * count=2: two injections, then nothing; a match past the count is not
 * counted either (xnic_sim_fault_fire(): "inside the rule's window and
 * under its count, a match counts").  Raising the count takes effect at
 * once.
 */
static void fault_rule_count(struct kunit *test)
{
	struct xnic_sim_dev *dev = test->priv;
	struct xnic_sim_fault_rule *r = kt_fault_rule(test, dev, "count", 0);
	struct xnic_sim_fault_rule *r2 = kt_fault_rule(test, dev, "count2", 0);
	u32 i;

	r->count = 2;
	kt_fault_on(test, r);
	for (i = 1; i <= 5; i++)
		KUNIT_EXPECT_EQ_MSG(test, xnic_sim_fault_fire(r, r->start_ns),
				    i <= 2, "match %u", i);
	kt_fault_counts(test, r, 2, 2);
	WRITE_ONCE(r->count, 3);
	KUNIT_EXPECT_TRUE(test, xnic_sim_fault_fire(r, r->start_ns));
	KUNIT_EXPECT_FALSE(test, xnic_sim_fault_fire(r, r->start_ns));
	kt_fault_counts(test, r, 3, 3);
	WRITE_ONCE(r->count, 0);	/* no limit */
	KUNIT_EXPECT_TRUE(test, xnic_sim_fault_fire(r, r->start_ns));
	kt_fault_counts(test, r, 4, 4);

	/* with every=2 and count=1: match 2 fires, 3 is past the count */
	r2->every = 2;
	r2->count = 1;
	kt_fault_on(test, r2);
	KUNIT_EXPECT_FALSE(test, xnic_sim_fault_fire(r2, r2->start_ns));
	KUNIT_EXPECT_TRUE(test, xnic_sim_fault_fire(r2, r2->start_ns));
	KUNIT_EXPECT_FALSE(test, xnic_sim_fault_fire(r2, r2->start_ns));
	KUNIT_EXPECT_FALSE(test, xnic_sim_fault_fire(r2, r2->start_ns));
	kt_fault_counts(test, r2, 2, 1);
	kt_fault_clear(test, dev);
}

/* rate 0 never fires, rate XNIC_SIM_FAULT_PPM always. */
static void fault_rule_rate(struct kunit *test)
{
	struct xnic_sim_dev *dev = test->priv;
	struct xnic_sim_fault_rule *never = kt_fault_rule(test, dev, "r0", 0);
	struct xnic_sim_fault_rule *always = kt_fault_rule(test, dev, "r1", 0);
	u32 i, n0 = 0, n1 = 0;

	never->rate = 0;
	always->rate = XNIC_SIM_FAULT_PPM;
	kt_fault_on(test, never);
	kt_fault_on(test, always);
	for (i = 0; i < 1000; i++) {
		n0 += xnic_sim_fault_fire(never, never->start_ns);
		n1 += xnic_sim_fault_fire(always, always->start_ns);
	}
	KUNIT_EXPECT_EQ(test, n0, 0U);
	KUNIT_EXPECT_EQ(test, n1, 1000U);
	kt_fault_counts(test, never, 1000, 0);
	kt_fault_counts(test, always, 1000, 1000);
	kt_fault_clear(test, dev);
}

#define KT_DECISIONS	256

/* @n decisions of an enabled rule, as bits. */
static void kt_decide(struct xnic_sim_fault_rule *r, unsigned long *bits,
		      u32 n)
{
	u32 i;

	bitmap_zero(bits, n);
	for (i = 0; i < n; i++)
		if (xnic_sim_fault_fire(r, r->start_ns))
			__set_bit(i, bits);
}

/* A seed makes the decisions repeatable; a different one, different. */
static void fault_rule_seed(struct kunit *test)
{
	struct xnic_sim_dev *dev = test->priv;
	struct xnic_sim_fault_rule *r[5];
	DECLARE_BITMAP(b0, KT_DECISIONS);
	DECLARE_BITMAP(b1, KT_DECISIONS);
	static const u64 seeds[5] = { 42, 42, 43, 0, 0 };
	static const char *const names[5] = { "s42", "s42b", "s43", "rnd",
					       "rnd2" };
	u32 i, w;

	for (i = 0; i < 5; i++) {
		r[i] = kt_fault_rule(test, dev, names[i], 0);
		r[i]->rate = XNIC_SIM_FAULT_PPM / 2;
		r[i]->seed = seeds[i];
		kt_fault_on(test, r[i]);
	}
	kt_decide(r[0], b0, KT_DECISIONS);
	w = bitmap_weight(b0, KT_DECISIONS);
	KUNIT_EXPECT_GE(test, w, (u32)KT_DECISIONS * 40 / 100);
	KUNIT_EXPECT_LE(test, w, (u32)KT_DECISIONS * 60 / 100);
	kt_fault_counts(test, r[0], KT_DECISIONS, w);

	/* the same seed: the same decisions */
	kt_decide(r[1], b1, KT_DECISIONS);
	KUNIT_EXPECT_TRUE(test, bitmap_equal(b0, b1, KT_DECISIONS));
	/* another seed: others */
	kt_decide(r[2], b1, KT_DECISIONS);
	KUNIT_EXPECT_FALSE(test, bitmap_equal(b0, b1, KT_DECISIONS));
	/* enabling again re-seeds: the same decisions again */
	xnic_sim_fault_rule_enable(r[0], false);
	kt_fault_on(test, r[0]);
	kt_decide(r[0], b1, KT_DECISIONS);
	KUNIT_EXPECT_TRUE(test, bitmap_equal(b0, b1, KT_DECISIONS));
	kt_fault_counts(test, r[0], KT_DECISIONS, w);
	/* seed 0: a random seed each (equal only by a 2^-64 accident) */
	kt_decide(r[3], b0, KT_DECISIONS);
	kt_decide(r[4], b1, KT_DECISIONS);
	KUNIT_EXPECT_FALSE(test, bitmap_equal(b0, b1, KT_DECISIONS));
	kt_fault_clear(test, dev);
}

/* The window: after_ms, for_ms (the time is the caller's, as given). */
static void fault_rule_window(struct kunit *test)
{
	struct xnic_sim_dev *dev = test->priv;
	struct xnic_sim_fault_rule *r = kt_fault_rule(test, dev, "win", 0);
	struct xnic_sim_fault_rule *late = kt_fault_rule(test, dev, "late", 0);
	struct xnic_sim_fault_rule *open = kt_fault_rule(test, dev, "open", 0);
	u64 start, end;

	r->after_ms = 100;
	r->for_ms = 10;
	kt_fault_on(test, r);
	start = r->start_ns;
	end = r->end_ns;
	KUNIT_EXPECT_EQ(test, end - start, 10 * NSEC_PER_MSEC);
	KUNIT_EXPECT_FALSE(test, xnic_sim_fault_fire(r, start - 50 *
							NSEC_PER_MSEC));
	KUNIT_EXPECT_FALSE(test, xnic_sim_fault_fire(r, start - 1));
	kt_fault_counts(test, r, 0, 0);
	KUNIT_EXPECT_TRUE(test, xnic_sim_fault_fire(r, start));
	KUNIT_EXPECT_TRUE(test, xnic_sim_fault_fire(r, end - 1));
	KUNIT_EXPECT_FALSE(test, xnic_sim_fault_fire(r, end));
	KUNIT_EXPECT_FALSE(test, xnic_sim_fault_fire(r, end + NSEC_PER_SEC));
	kt_fault_counts(test, r, 2, 2);
	xnic_sim_fault_rule_enable(r, false);

	/* a window that starts in 10 s: the data path's own clock is before */
	late->after_ms = 10000;
	kt_fault_on(test, late);
	KUNIT_EXPECT_FALSE(test, kt_find(dev, BIT(XNIC_SIM_FAULT_DROP), 1,
					 XNIC_SIM_FAULT_ANY_QP,
					 XNIC_SIM_FOP_SEND));
	kt_fault_counts(test, late, 0, 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&dev->fault.injected), 0LL);

	/* for_ms 0: no end */
	kt_fault_on(test, open);
	KUNIT_EXPECT_EQ(test, open->end_ns, 0ULL);
	KUNIT_EXPECT_TRUE(test, xnic_sim_fault_fire(open, U64_MAX - 1));
	kt_fault_clear(test, dev);
}

/* xnic_sim_fault_find(): what matches, which rule wins, the totals. */
static void fault_rule_find(struct kunit *test)
{
	struct xnic_sim_dev *dev = test->priv;
	struct xnic_sim_fault_rule *r1, *r2, *r3, *r4;
	const u32 any = XNIC_SIM_FAULT_ANY_QP;
	const u32 cable = XNIC_SIM_FAULT_CABLE, drop = BIT(XNIC_SIM_FAULT_DROP);
	u64 found = 0;

	/*
	 * In the order made: r1 (QP 5, WRITE), r2 (another type, any QP and
	 * operation), r3 (every 2nd match), r4 (always); all disabled.  Each
	 * has its own delay (r2, r3 their own statuses too): a hit shows
	 * whose copy it is.
	 */
	r1 = kt_fault_rule(test, dev, "qp5write", XNIC_SIM_FAULT_DROP);
	r1->qpn = 5;
	r1->op = XNIC_SIM_FOP_WRITE;
	r1->delay_us = 1;
	r2 = kt_fault_rule(test, dev, "nak_op", XNIC_SIM_FAULT_NAK_OP);
	r2->delay_us = 2;
	r2->status = XNIC_CQE_REM_OP_ERR;
	r3 = kt_fault_rule(test, dev, "every2", XNIC_SIM_FAULT_DROP);
	r3->every = 2;
	r3->delay_us = 3;
	r3->cmd_status = XNIC_CMD_BUSY;
	r4 = kt_fault_rule(test, dev, "always", XNIC_SIM_FAULT_DROP);
	r4->delay_us = 4;
	KUNIT_EXPECT_FALSE(test, kt_find(dev, ~0U, 5, any,
					 XNIC_SIM_FOP_WRITE));

	/*
	 * A rule's window starts at xnic_sim_now() when it is enabled, and
	 * xnic_sim_fault_find() reads the clock itself: local_clock() is per
	 * CPU, so enable and ask on one CPU (nothing below asserts: a case
	 * must not end with migration disabled).
	 */
	migrate_disable();
	xnic_sim_fault_rule_enable(r1, true);
	/* the type, the QP, the class of operation must all match */
	KUNIT_EXPECT_FALSE(test, kt_find(dev, BIT(XNIC_SIM_FAULT_DELAY), 5,
					 any, XNIC_SIM_FOP_WRITE));
	KUNIT_EXPECT_FALSE(test, kt_find(dev, cable, 6, any,
					 XNIC_SIM_FOP_WRITE));
	KUNIT_EXPECT_FALSE(test, kt_find(dev, cable, 5, any,
					 XNIC_SIM_FOP_SEND));
	KUNIT_EXPECT_FALSE(test, kt_find(dev, cable, 5, any,
					 XNIC_SIM_FOP_OTHER));
	kt_fault_counts(test, r1, 0, 0);
	/* qpn or qpn2 */
	kt_find_fires(test, dev, cable, 5, any, XNIC_SIM_FOP_WRITE, r1);
	kt_find_fires(test, dev, cable, 6, 5, XNIC_SIM_FOP_WRITE, r1);
	kt_find_fires(test, dev, XNIC_SIM_FAULT_FRAME, 5, any,
		      XNIC_SIM_FOP_WRITE, r1);
	found += 3;
	kt_fault_counts(test, r1, 3, 3);
	/* disabled: skipped */
	xnic_sim_fault_rule_enable(r1, false);
	KUNIT_EXPECT_FALSE(test, kt_find(dev, cable, 5, any,
					 XNIC_SIM_FOP_WRITE));

	/* any QP, any operation; only where its type may act */
	xnic_sim_fault_rule_enable(r2, true);
	kt_find_fires(test, dev, cable, 77, any, XNIC_SIM_FOP_ATOMIC, r2);
	kt_find_fires(test, dev, XNIC_SIM_FAULT_ANSWER, 0, any,
		      XNIC_SIM_FOP_OTHER, r2);
	found += 2;
	KUNIT_EXPECT_FALSE(test, kt_find(dev, XNIC_SIM_FAULT_FRAME, 77, any,
					 XNIC_SIM_FOP_ATOMIC));
	KUNIT_EXPECT_FALSE(test, kt_find(dev, BIT(XNIC_SIM_FAULT_CQE_ERR), 77,
					 any, XNIC_SIM_FOP_SEND));
	kt_fault_counts(test, r2, 2, 2);

	/* the first that fires wins; the rules after it are not asked */
	xnic_sim_fault_rule_enable(r3, true);
	xnic_sim_fault_rule_enable(r4, true);
	kt_find_fires(test, dev, drop, 9, any, XNIC_SIM_FOP_SEND, r4);
	kt_find_fires(test, dev, drop, 9, any, XNIC_SIM_FOP_SEND, r3);
	kt_fault_counts(test, r4, 1, 1);
	kt_find_fires(test, dev, drop, 9, any, XNIC_SIM_FOP_SEND, r4);
	migrate_enable();
	found += 3;
	kt_fault_counts(test, r1, 3, 3);
	kt_fault_counts(test, r2, 2, 2);
	kt_fault_counts(test, r3, 3, 1);
	kt_fault_counts(test, r4, 2, 2);
	/* the device's total: every rule's injections */
	KUNIT_EXPECT_EQ(test, (u64)atomic64_read(&dev->fault.injected), found);
	kt_fault_clear(test, dev);
}

/* The class of a send WQE's opcode and of a packet. */
static void fault_rule_op_class(struct kunit *test)
{
	static const u8 wqe[][2] = {
		{ XNIC_OP_RDMA_WRITE, XNIC_SIM_FOP_WRITE },
		{ XNIC_OP_RDMA_WRITE_WITH_IMM, XNIC_SIM_FOP_WRITE },
		{ XNIC_OP_SEND, XNIC_SIM_FOP_SEND },
		{ XNIC_OP_SEND_WITH_IMM, XNIC_SIM_FOP_SEND },
		{ XNIC_OP_SEND_WITH_INV, XNIC_SIM_FOP_SEND },
		{ XNIC_OP_RDMA_READ, XNIC_SIM_FOP_READ },
		{ XNIC_OP_ATOMIC_CMP_AND_SWP, XNIC_SIM_FOP_ATOMIC },
		{ XNIC_OP_ATOMIC_FETCH_AND_ADD, XNIC_SIM_FOP_ATOMIC },
		{ XNIC_OP_ATOMIC_WRITE, XNIC_SIM_FOP_ATOMIC },
		{ XNIC_OP_LOCAL_INV, XNIC_SIM_FOP_OTHER },
		{ XNIC_OP_REG_MR, XNIC_SIM_FOP_OTHER },
		{ XNIC_OP_BIND_MW, XNIC_SIM_FOP_OTHER },
		{ XNIC_OP_FLUSH, XNIC_SIM_FOP_OTHER },
		{ XNIC_OP_NOP, XNIC_SIM_FOP_OTHER },
		{ 0xff, XNIC_SIM_FOP_OTHER },
	};
	static const struct {
		u32 mask;
		u8 op;
	} pkt[] = {
		{ XNIC_SIM_PH_SEND | XNIC_SIM_PH_ONLY | XNIC_SIM_PH_REQ,
		  XNIC_SIM_FOP_SEND },
		{ XNIC_SIM_PH_SEND | XNIC_SIM_PH_MIDDLE | XNIC_SIM_PH_REQ,
		  XNIC_SIM_FOP_SEND },
		{ XNIC_SIM_PH_WRITE | XNIC_SIM_PH_FIRST | XNIC_SIM_PH_RETH,
		  XNIC_SIM_FOP_WRITE },
		{ XNIC_SIM_PH_READ | XNIC_SIM_PH_REQ | XNIC_SIM_PH_RETH,
		  XNIC_SIM_FOP_READ },
		/* a READ response is the READ's */
		{ XNIC_SIM_PH_READ | XNIC_SIM_PH_RESP | XNIC_SIM_PH_AETH,
		  XNIC_SIM_FOP_READ },
		{ XNIC_SIM_PH_ATOMIC | XNIC_SIM_PH_ATMETH,
		  XNIC_SIM_FOP_ATOMIC },
		/* an atomic ACK the atomic's */
		{ XNIC_SIM_PH_ACK | XNIC_SIM_PH_AETH | XNIC_SIM_PH_ATMACK,
		  XNIC_SIM_FOP_ATOMIC },
		/* a plain ACK or NAK nobody's */
		{ XNIC_SIM_PH_ACK | XNIC_SIM_PH_AETH | XNIC_SIM_PH_RESP,
		  XNIC_SIM_FOP_OTHER },
		{ 0, XNIC_SIM_FOP_OTHER },
	};
	u32 i;

	for (i = 0; i < ARRAY_SIZE(wqe); i++)
		KUNIT_EXPECT_EQ_MSG(test, xnic_sim_fault_wqe_op(wqe[i][0]),
				    wqe[i][1], "opcode 0x%x", wqe[i][0]);
	for (i = 0; i < ARRAY_SIZE(pkt); i++)
		KUNIT_EXPECT_EQ_MSG(test, xnic_sim_fault_pkt_op(pkt[i].mask),
				    pkt[i].op, "mask 0x%x", pkt[i].mask);
	/* every type and class has a name (configfs, the tracepoint) */
	for (i = 0; i < XNIC_SIM_FAULT_NTYPES; i++)
		KUNIT_EXPECT_NOT_NULL(test, xnic_sim_fault_type_names[i]);
	for (i = 0; i < XNIC_SIM_FOP_NUM; i++)
		KUNIT_EXPECT_NOT_NULL(test, xnic_sim_fault_op_names[i]);
}

/* The index in @skb[0 .. n) of @s, or -1. */
static int kt_skb_idx(struct sk_buff *const *skb, u32 n,
		      const struct sk_buff *s)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (skb[i] == s)
			return i;
	return -1;
}

/*
 * Frames held back: room for XNIC_SIM_FAULT_HELD, release by time and by
 * the frames taken, the next release time, freeing (real skbs: KASAN
 * sees a frame freed twice, kmemleak one never freed).
 */
static void fault_rule_held(struct kunit *test)
{
	struct xnic_sim_dev *dev = test->priv;
	struct xnic_sim_faults *f = &dev->fault;
	const u32 n = XNIC_SIM_FAULT_HELD;
	struct sk_buff *skb[XNIC_SIM_FAULT_HELD + 1], *s;
	/* frame i is due at (i + 1) us; the last only by frames taken */
	u64 at[XNIC_SIM_FAULT_HELD];
	u64 next, now;
	u32 i, out;
	int k;

	for (i = 0; i <= n; i++) {
		skb[i] = alloc_skb(64, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, skb[i]);
	}
	f->taken = 0;
	for (i = 0; i < n; i++) {
		bool last = i == n - 1;

		at[i] = last ? U64_MAX : (i + 1) * NSEC_PER_USEC;
		KUNIT_EXPECT_TRUE(test, xnic_sim_fault_hold(dev, skb[i], at[i],
							    last ? 10 : 0));
	}
	KUNIT_EXPECT_EQ(test, f->nheld, n);
	/* no room: not held, not consumed */
	KUNIT_EXPECT_FALSE(test, xnic_sim_fault_hold(dev, skb[n], 0, 0));
	KUNIT_EXPECT_EQ(test, f->nheld, n);
	kfree_skb(skb[n]);

	/* none due: *next is the earliest */
	next = U64_MAX;
	KUNIT_EXPECT_NULL(test, xnic_sim_fault_release(dev, 0, &next));
	KUNIT_EXPECT_EQ(test, next, (u64)NSEC_PER_USEC);
	/* already earlier: left alone */
	next = 1;
	KUNIT_EXPECT_NULL(test, xnic_sim_fault_release(dev, 0, &next));
	KUNIT_EXPECT_EQ(test, next, 1ULL);
	/* the first one due */
	next = U64_MAX;
	s = xnic_sim_fault_release(dev, NSEC_PER_USEC, &next);
	KUNIT_EXPECT_PTR_EQ(test, s, skb[0]);
	kfree_skb(s);
	skb[0] = NULL;
	KUNIT_EXPECT_NULL(test, xnic_sim_fault_release(dev, NSEC_PER_USEC,
						       &next));
	KUNIT_EXPECT_EQ(test, next, 2 * NSEC_PER_USEC);

	/* by time: the rest but the last, each one due when it leaves */
	now = (n - 1) * NSEC_PER_USEC;
	out = 1;
	while ((s = xnic_sim_fault_release(dev, now, &next))) {
		k = kt_skb_idx(skb, n, s);
		KUNIT_ASSERT_GE(test, k, 1);
		KUNIT_EXPECT_LE(test, at[k], now);
		skb[k] = NULL;		/* each leaves once */
		kfree_skb(s);
		out++;
	}
	KUNIT_EXPECT_EQ(test, out, n - 1);
	KUNIT_EXPECT_EQ(test, f->nheld, 1U);
	/* one held only by a count of frames: no time to wake up for */
	next = U64_MAX;
	KUNIT_EXPECT_NULL(test, xnic_sim_fault_release(dev, U64_MAX - 1,
						       &next));
	KUNIT_EXPECT_EQ(test, next, U64_MAX);
	f->taken = 9;
	KUNIT_EXPECT_NULL(test, xnic_sim_fault_release(dev, 0, &next));
	f->taken = 10;
	s = xnic_sim_fault_release(dev, 0, &next);
	KUNIT_EXPECT_PTR_EQ(test, s, skb[n - 1]);
	kfree_skb(s);
	KUNIT_EXPECT_EQ(test, f->nheld, 0U);
	KUNIT_EXPECT_NULL(test, xnic_sim_fault_release(dev, U64_MAX, &next));

	/* "after" 0 is no count: only its time releases it */
	s = alloc_skb(64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_TRUE(test, xnic_sim_fault_hold(dev, s, 5000, 0));
	KUNIT_EXPECT_NULL(test, xnic_sim_fault_release(dev, 4999, &next));
	KUNIT_EXPECT_PTR_EQ(test, xnic_sim_fault_release(dev, 5000, &next), s);
	kfree_skb(s);

	/* dropping what is held frees it */
	for (i = 0; i < 3; i++) {
		s = alloc_skb(64, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, s);
		KUNIT_EXPECT_TRUE(test, xnic_sim_fault_hold(dev, s, U64_MAX,
							    0));
	}
	KUNIT_EXPECT_EQ(test, f->nheld, 3U);
	xnic_sim_fault_drop_held(dev);
	KUNIT_EXPECT_EQ(test, f->nheld, 0U);
	next = U64_MAX;
	KUNIT_EXPECT_NULL(test, xnic_sim_fault_release(dev, U64_MAX, &next));
	KUNIT_EXPECT_EQ(test, next, U64_MAX);
}

static struct kunit_case fault_rules_cases[] = {
	KUNIT_CASE(fault_rule_defaults),
	KUNIT_CASE(fault_rule_every),
	KUNIT_CASE(fault_rule_count),
	KUNIT_CASE(fault_rule_rate),
	KUNIT_CASE(fault_rule_seed),
	KUNIT_CASE(fault_rule_window),
	KUNIT_CASE(fault_rule_find),
	KUNIT_CASE(fault_rule_op_class),
	KUNIT_CASE(fault_rule_held),
	{}
};

static struct kunit_suite fault_rules_suite = {
	.name = "xnic_sim_fault_rules",
	.init = kt_fr_init,
	.exit = kt_fr_exit,
	.test_cases = fault_rules_cases,
};

/* ------------------------------------------------------------------ */
/* xnic_sim_fault_dev: two cabled devices with their engines           */

#define KT_A_QPN	2
#define KT_B_QPN	3
#define KT_MR_KEY	(0x20 << 8 | 0x5a)
#define KT_MR_IOVA	0x20000ULL
#define KT_LEN		64

/* RC a (device 0) <-> b (device 1), each with a CQ, and buffers. */
struct kt_rc {
	struct kunit *test;
	struct td_dev *d0, *d1;
	struct td_cq *acq, *bcq;
	struct td_qp *a, *b;
	u8 rnr_retry;
	u8 *src;	/* what a sends */
	u8 *dst;	/* where b receives */
};

/* The pair on the devices of @c, both up. */
static void kt_rc_pair(struct kunit *test, struct kt_rc *p, struct td_ctx *c,
		       u8 rnr_retry)
{
	p->test = test;
	p->d0 = &c->dev[0];
	p->d1 = &c->dev[1];
	p->rnr_retry = rnr_retry;
	p->acq = td_cq(p->d0, 1, 6, false);
	p->bcq = td_cq(p->d1, 1, 6, false);
	p->a = td_qp(p->d0, KT_A_QPN, XNIC_QPT_RC, TD_PD, p->acq, p->acq, 0, 0,
		     XNIC_NO_SRQ);
	p->b = td_qp(p->d1, KT_B_QPN, XNIC_QPT_RC, TD_PD, p->bcq, p->bcq, 0, 0,
		     XNIC_NO_SRQ);
	p->src = kunit_kmalloc(test, KT_LEN, GFP_KERNEL);
	p->dst = kunit_kzalloc(test, KT_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p->src);
	KUNIT_ASSERT_NOT_NULL(test, p->dst);
	kt_fill_pattern(p->src, KT_LEN, 0x3c);
	td_connect(p->a, p->b, rnr_retry);
	td_connect(p->b, p->a, rnr_retry);
}

static void kt_rc_up(struct kunit *test, struct kt_rc *p, u8 rnr_retry)
{
	kt_rc_pair(test, p, td_ctx_up(test), rnr_retry);
}

/* a in ERR: RESET, its queues emptied, connected to b again. */
static void kt_rc_reconnect(struct kt_rc *p)
{
	struct xnic_cmd_modify_qp mq = {};
	struct td_qp *a = p->a;

	KUNIT_EXPECT_EQ(p->test, td_modify(a, &mq, XNIC_QPS_RESET, 0),
			(u32)XNIC_CMD_OK);
	memset(a->rec, 0, sizeof(*a->rec));
	memset(a->sq, 0, 1U << (TD_Q_LOG + TD_WQE_SHIFT));
	memset(a->rq, 0, 1U << (TD_Q_LOG + TD_WQE_SHIFT));
	a->sq_pi = 0;
	a->rq_pi = 0;
	td_connect(a, p->b, p->rnr_retry);
}

/* A receive of KT_LEN bytes into p->dst on b. */
static void kt_rc_recv(struct kt_rc *p, u64 wr_id)
{
	struct xnic_sge s = td_sge(td_pa(p->dst), KT_LEN, TD_ALL_KEY);

	td_post_recv(p->b, wr_id, &s, 1);
}

/* A signaled SEND of KT_LEN bytes from p->src on a. */
static void kt_rc_send(struct kt_rc *p, u64 wr_id)
{
	struct td_wr w = {
		.op = XNIC_OP_SEND, .flags = XNIC_WQE_SIGNALED,
		.wr_id = wr_id, .nsge = 1,
	};

	w.sge[0] = td_sge(td_pa(p->src), KT_LEN, TD_ALL_KEY);
	td_post(p->a, &w);
}

/* b got nothing and is still RTS. */
static void kt_rc_b_untouched(struct kt_rc *p)
{
	struct xnic_cqe e;

	KUNIT_EXPECT_FALSE(p->test, td_poll(p->bcq, &e, 20));
	KUNIT_EXPECT_EQ(p->test, td_state(p->b), XNIC_QPS_RTS);
}

/* A SEND a -> b that works: b's receive @rwr_id takes it. */
static void kt_rc_send_ok(struct kt_rc *p, u64 wr_id, u64 rwr_id)
{
	struct xnic_cqe e;

	memset(p->dst, 0, KT_LEN);
	kt_rc_send(p, wr_id);
	td_expect(p->acq, wr_id, XNIC_CQE_SUCCESS, XNIC_CQE_OP_SEND, NULL);
	td_expect(p->bcq, rwr_id, XNIC_CQE_SUCCESS, XNIC_CQE_OP_RECV, &e);
	KUNIT_EXPECT_EQ(p->test, le32_to_cpu(e.byte_len), (u32)KT_LEN);
	KUNIT_EXPECT_EQ(p->test, memcmp(p->dst, p->src, KT_LEN), 0);
}

/* A rule of device @d for the QP @qpn and the class @op, disabled. */
static struct xnic_sim_fault_rule *kt_dev_rule(struct kunit *test,
					       struct td_dev *d,
					       const char *name, u8 type,
					       u32 qpn, u8 op)
{
	struct xnic_sim_fault_rule *r = xnic_sim_fault_rule_alloc(d->sim,
								   name);

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->type = type;
	r->qpn = qpn;
	r->op = op;
	xnic_sim_fault_rule_add(r);
	return r;
}

/* Every rule gone, every link up: the fault count is 0 again. */
static void kt_dev_clean(struct kunit *test, struct kt_rc *p)
{
	kt_fault_rm(test, p->d0->sim);
	kt_fault_rm(test, p->d1->sim);
	KUNIT_EXPECT_FALSE(test, xnic_sim_faults_on());
	KUNIT_EXPECT_TRUE(test, xnic_sim_fault_link_up(p->d0->sim));
	KUNIT_EXPECT_TRUE(test, xnic_sim_fault_link_up(p->d1->sim));
}

/*
 * A drop rule at 100% on device 0 for a: every attempt of a SEND is lost,
 * a retries retry_cnt (2) times, then RETRY_EXC_ERR; b sees nothing.
 */
static void fault_dev_drop(struct kunit *test)
{
	struct xnic_sim_fault_rule *r;
	struct kt_rc p;
	u64 retries;

	kt_rc_up(test, &p, 1);
	r = kt_dev_rule(test, p.d0, "drop", XNIC_SIM_FAULT_DROP, KT_A_QPN,
			XNIC_SIM_FOP_ANY);
	kt_fault_on(test, r);
	retries = td_ctr(p.d0, XNIC_SIM_CTR_retries);
	kt_rc_recv(&p, 0xb0);
	kt_rc_send(&p, 0xa0);
	td_expect(p.acq, 0xa0, XNIC_CQE_RETRY_EXC_ERR, 0, NULL);
	KUNIT_EXPECT_EQ(test, td_ctr(p.d0, XNIC_SIM_CTR_retries) - retries,
			2ULL);
	/* the first attempt and the two retries */
	kt_fault_counts(test, r, 3, 3);
	KUNIT_EXPECT_EQ(test, atomic64_read(&p.d0->sim->fault.injected), 3LL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&p.d1->sim->fault.injected), 0LL);
	KUNIT_EXPECT_EQ(test, td_state(p.a), XNIC_QPS_ERR);
	kt_rc_b_untouched(&p);

	/* the rule gone: the receive b kept takes the next SEND */
	xnic_sim_fault_rule_del(r);
	kt_rc_reconnect(&p);
	kt_rc_send_ok(&p, 0xa1, 0xb0);
	kt_dev_clean(test, &p);
}

/*
 * NAKs a rule of device 1 makes b's device answer a SEND with: a's WR
 * completes in error (a in ERR), b is not touched and keeps its receive.
 */
static void fault_dev_nak(struct kunit *test)
{
	static const struct {
		const char *name;
		u8 type;
		u8 status;
	} nak[] = {
		{ "nak_access", XNIC_SIM_FAULT_NAK_ACCESS,
		  XNIC_CQE_REM_ACCESS_ERR },
		{ "nak_op", XNIC_SIM_FAULT_NAK_OP, XNIC_CQE_REM_OP_ERR },
		{ "nak_inv", XNIC_SIM_FAULT_NAK_INV, XNIC_CQE_REM_INV_REQ_ERR },
	};
	struct xnic_sim_fault_rule *r;
	struct kt_rc p;
	u32 i;

	kt_rc_up(test, &p, 1);
	kt_rc_recv(&p, 0xb0);
	for (i = 0; i < ARRAY_SIZE(nak); i++) {
		r = kt_dev_rule(test, p.d1, nak[i].name, nak[i].type,
				KT_B_QPN, XNIC_SIM_FOP_SEND);
		r->count = 1;
		kt_fault_on(test, r);
		kt_rc_send(&p, 0xa0 + i);
		td_expect(p.acq, 0xa0 + i, nak[i].status, 0, NULL);
		KUNIT_EXPECT_EQ(test, td_state(p.a), XNIC_QPS_ERR);
		kt_rc_b_untouched(&p);
		kt_fault_counts(test, r, 1, 1);
		xnic_sim_fault_rule_del(r);
		kt_rc_reconnect(&p);
	}
	KUNIT_EXPECT_EQ(test, atomic64_read(&p.d1->sim->fault.injected),
			(s64)ARRAY_SIZE(nak));
	/* b's receive WQE is still the first one */
	kt_rc_send_ok(&p, 0xa8, 0xb0);
	kt_dev_clean(test, &p);
}

/* RNR NAKs twice (count=2), rnr_retry 7: the SEND gets through after. */
static void fault_dev_rnr(struct kunit *test)
{
	struct xnic_sim_fault_rule *r;
	struct kt_rc p;
	u64 naks;

	kt_rc_up(test, &p, 7);
	r = kt_dev_rule(test, p.d1, "rnr", XNIC_SIM_FAULT_RNR, KT_B_QPN,
			XNIC_SIM_FOP_ANY);
	r->count = 2;
	kt_fault_on(test, r);
	naks = td_ctr(p.d0, XNIC_SIM_CTR_rnr_naks);
	kt_rc_recv(&p, 0xb0);
	kt_rc_send_ok(&p, 0xa0, 0xb0);
	KUNIT_EXPECT_EQ(test, td_ctr(p.d0, XNIC_SIM_CTR_rnr_naks) - naks,
			2ULL);
	/* the third attempt is past the count: not counted as a match */
	kt_fault_counts(test, r, 2, 2);
	KUNIT_EXPECT_EQ(test, td_state(p.a), XNIC_QPS_RTS);
	KUNIT_EXPECT_EQ(test, td_state(p.b), XNIC_QPS_RTS);
	kt_dev_clean(test, &p);
}

/*
 * cqe_err REM_OP_ERR for RDMA WRITEs of a: a SEND is not matched, a WRITE
 * completes REM_OP_ERR (its data landed: the status is the completion's),
 * a in ERR flushes the SEND after it.
 */
static void fault_dev_cqe_err(struct kunit *test)
{
	struct xnic_sim_fault_rule *r;
	struct td_wr w = {};
	struct td_mr *m;
	struct kt_rc p;
	u64 errs;
	u32 i;

	kt_rc_up(test, &p, 1);
	m = td_mr(p.d1, KT_MR_KEY, TD_PD, TD_ACCESS, 1, KT_MR_IOVA, true);
	r = kt_dev_rule(test, p.d0, "cqe_err", XNIC_SIM_FAULT_CQE_ERR,
			XNIC_SIM_FAULT_ANY_QP, XNIC_SIM_FOP_WRITE);
	r->status = XNIC_CQE_REM_OP_ERR;
	kt_fault_on(test, r);
	errs = td_ctr(p.d0, XNIC_SIM_CTR_err_rem_op);

	kt_rc_recv(&p, 0xb0);
	kt_rc_send_ok(&p, 0xa0, 0xb0);
	kt_fault_counts(test, r, 0, 0);

	w.op = XNIC_OP_RDMA_WRITE;
	w.flags = XNIC_WQE_SIGNALED;
	w.wr_id = 0xa1;
	w.raddr = KT_MR_IOVA;
	w.rkey = m->key;
	w.nsge = 1;
	w.sge[0] = td_sge(td_pa(p.src), KT_LEN, TD_ALL_KEY);
	td_post(p.a, &w);
	td_expect(p.acq, 0xa1, XNIC_CQE_REM_OP_ERR, 0, NULL);
	for (i = 0; i < KT_LEN; i++)
		if (*td_mr_byte(m, KT_MR_IOVA + i) != p.src[i])
			break;
	KUNIT_EXPECT_EQ(test, i, (u32)KT_LEN);
	KUNIT_EXPECT_EQ(test, td_ctr(p.d0, XNIC_SIM_CTR_err_rem_op) - errs,
			1ULL);
	KUNIT_EXPECT_EQ(test, td_state(p.a), XNIC_QPS_ERR);
	kt_fault_counts(test, r, 1, 1);

	/* a in ERR: the next SEND is flushed, not faulted */
	kt_rc_send(&p, 0xa2);
	td_expect(p.acq, 0xa2, XNIC_CQE_WR_FLUSH_ERR, 0, NULL);
	kt_fault_counts(test, r, 1, 1);
	kt_rc_b_untouched(&p);
	kt_dev_clean(test, &p);
}

/* delay 2000 us: the SEND still completes (no timing is asserted). */
static void fault_dev_delay(struct kunit *test)
{
	struct xnic_sim_fault_rule *r;
	struct kt_rc p;

	kt_rc_up(test, &p, 1);
	r = kt_dev_rule(test, p.d0, "delay", XNIC_SIM_FAULT_DELAY, KT_A_QPN,
			XNIC_SIM_FOP_SEND);
	r->delay_us = 2000;
	kt_fault_on(test, r);
	kt_rc_recv(&p, 0xb0);
	kt_rc_send_ok(&p, 0xa0, 0xb0);
	/* once per WQE: its second attempt does not meet the rule again */
	kt_fault_counts(test, r, 1, 1);
	/* the next WQE is delayed again */
	kt_rc_recv(&p, 0xb1);
	kt_rc_send_ok(&p, 0xa1, 0xb1);
	kt_fault_counts(test, r, 2, 2);
	KUNIT_EXPECT_EQ(test, td_state(p.a), XNIC_QPS_RTS);
	kt_dev_clean(test, &p);
}

/* The port state of the latest PORT_CHANGE event @d took (its aux). */
static u32 kt_port_ev(struct td_dev *d)
{
	u32 mask = (1U << TD_EQ_LOG) - 1, i, st = 0;

	spin_lock_irq(&d->ev_lock);
	for (i = 1; i <= mask + 1 && i <= d->eq_ci; i++) {
		const struct xnic_eqe *e = &d->eq[(d->eq_ci - i) & mask];

		if (e->type == XNIC_EQE_PORT_CHANGE) {
			st = le32_to_cpu(e->aux);
			break;
		}
	}
	spin_unlock_irq(&d->ev_lock);
	return st;
}

/* Wait until @d's driver took every event its device wrote. */
static bool kt_ev_settle(struct td_dev *d)
{
	unsigned long end = jiffies + msecs_to_jiffies(TD_TIMEOUT_MS);
	u32 ci;

	for (;;) {
		spin_lock_irq(&d->ev_lock);
		ci = d->eq_ci;
		spin_unlock_irq(&d->ev_lock);
		if (ci == READ_ONCE(d->sim->eq_pi))
			return true;
		if (time_after(jiffies, end))
			return false;
		usleep_range(50, 200);
	}
}

/* What device @d tells of its port 1: QUERY_CAPS, ETH_STATUS, the model. */
static void kt_port_is(struct kunit *test, struct td_dev *d, bool up)
{
	struct xnic_cmd_query_caps_out caps;
	u32 st;

	KUNIT_ASSERT_EQ(test, td_cmd_out(d, XNIC_CMD_QUERY_CAPS, NULL, 0,
					 &caps, sizeof(caps)),
			(u32)XNIC_CMD_OK);
	KUNIT_EXPECT_EQ_MSG(test, le32_to_cpu(caps.port_state),
			    (u32)(up ? XNIC_PORT_ACTIVE : XNIC_PORT_DOWN),
			    "device %d", d->sim->index);
	st = td_rd(d, XNIC_REG_ETH(1, XNIC_REG_ETH_STATUS));
	KUNIT_EXPECT_EQ_MSG(test, st & XNIC_ETH_ST_LINK,
			    up ? (u32)XNIC_ETH_ST_LINK : 0U, "device %d",
			    d->sim->index);
	KUNIT_EXPECT_EQ_MSG(test, xnic_sim_port_up(d->sim), up, "device %d",
			    d->sim->index);
}

/*
 * The link of device 0 taken down and brought up: the cable's other end
 * follows, each port that changed tells its driver, RC gets no answer.
 */
static void fault_dev_link(struct kunit *test)
{
	struct xnic_sim_dev *s0, *s1;
	u32 ev0, ev1;
	u64 eq0, eq1, retries;
	struct kt_rc p;

	kt_rc_up(test, &p, 1);
	s0 = p.d0->sim;
	s1 = p.d1->sim;
	kt_port_is(test, p.d0, true);
	kt_port_is(test, p.d1, true);
	KUNIT_EXPECT_FALSE(test, xnic_sim_faults_on());
	ev0 = td_ev(p.d0, XNIC_EQE_PORT_CHANGE);
	ev1 = td_ev(p.d1, XNIC_EQE_PORT_CHANGE);

	KUNIT_EXPECT_EQ(test, xnic_sim_fault_set_link(s0, false), 0);
	KUNIT_EXPECT_TRUE(test, xnic_sim_faults_on());
	KUNIT_EXPECT_FALSE(test, xnic_sim_fault_link_up(s0));
	KUNIT_EXPECT_TRUE(test, xnic_sim_fault_link_up(s1));
	KUNIT_EXPECT_TRUE(test, td_wait_ev(p.d0, XNIC_EQE_PORT_CHANGE, ev0));
	KUNIT_EXPECT_TRUE(test, td_wait_ev(p.d1, XNIC_EQE_PORT_CHANGE, ev1));
	KUNIT_EXPECT_EQ(test, kt_port_ev(p.d0), (u32)XNIC_PORT_DOWN);
	KUNIT_EXPECT_EQ(test, kt_port_ev(p.d1), (u32)XNIC_PORT_DOWN);
	kt_port_is(test, p.d0, false);
	kt_port_is(test, p.d1, false);

	/* RC: nobody answers, retries, RETRY_EXC_ERR; b keeps its receive */
	retries = td_ctr(p.d0, XNIC_SIM_CTR_retries);
	kt_rc_recv(&p, 0xb0);
	kt_rc_send(&p, 0xa0);
	td_expect(p.acq, 0xa0, XNIC_CQE_RETRY_EXC_ERR, 0, NULL);
	KUNIT_EXPECT_EQ(test, td_ctr(p.d0, XNIC_SIM_CTR_retries) - retries,
			2ULL);
	kt_rc_b_untouched(&p);

	/*
	 * No event where no port changed: down again; device 1 down too,
	 * then device 0 up (device 1's end still down).  Events are counted
	 * where they are written.
	 */
	KUNIT_ASSERT_TRUE(test, kt_ev_settle(p.d0));
	KUNIT_ASSERT_TRUE(test, kt_ev_settle(p.d1));
	eq0 = td_ev(p.d0, XNIC_EQE_PORT_CHANGE);
	eq1 = td_ev(p.d1, XNIC_EQE_PORT_CHANGE);
	xnic_sim_fault_set_link(s0, false);
	xnic_sim_fault_set_link(s1, false);
	xnic_sim_fault_set_link(s0, true);
	/* an event would be in the ring when set_link() returned */
	KUNIT_ASSERT_TRUE(test, kt_ev_settle(p.d0));
	KUNIT_ASSERT_TRUE(test, kt_ev_settle(p.d1));
	KUNIT_EXPECT_EQ(test, td_ev(p.d0, XNIC_EQE_PORT_CHANGE), (u32)eq0);
	KUNIT_EXPECT_EQ(test, td_ev(p.d1, XNIC_EQE_PORT_CHANGE), (u32)eq1);
	KUNIT_EXPECT_FALSE(test, xnic_sim_port_up(s0));
	KUNIT_EXPECT_FALSE(test, xnic_sim_port_up(s1));

	/* device 1 up: both ports up, both told */
	KUNIT_ASSERT_TRUE(test, kt_ev_settle(p.d0));
	KUNIT_ASSERT_TRUE(test, kt_ev_settle(p.d1));
	ev0 = td_ev(p.d0, XNIC_EQE_PORT_CHANGE);
	ev1 = td_ev(p.d1, XNIC_EQE_PORT_CHANGE);
	KUNIT_EXPECT_EQ(test, xnic_sim_fault_set_link(s1, true), 0);
	KUNIT_EXPECT_TRUE(test, td_wait_ev(p.d0, XNIC_EQE_PORT_CHANGE, ev0));
	KUNIT_EXPECT_TRUE(test, td_wait_ev(p.d1, XNIC_EQE_PORT_CHANGE, ev1));
	KUNIT_ASSERT_TRUE(test, kt_ev_settle(p.d0));
	KUNIT_ASSERT_TRUE(test, kt_ev_settle(p.d1));
	KUNIT_EXPECT_EQ(test, td_ev(p.d0, XNIC_EQE_PORT_CHANGE), ev0 + 1);
	KUNIT_EXPECT_EQ(test, td_ev(p.d1, XNIC_EQE_PORT_CHANGE), ev1 + 1);
	KUNIT_EXPECT_EQ(test, kt_port_ev(p.d0), (u32)XNIC_PORT_ACTIVE);
	KUNIT_EXPECT_EQ(test, kt_port_ev(p.d1), (u32)XNIC_PORT_ACTIVE);
	kt_port_is(test, p.d0, true);
	kt_port_is(test, p.d1, true);
	KUNIT_EXPECT_FALSE(test, xnic_sim_faults_on());

	/* traffic again: the receive b kept takes it */
	kt_rc_reconnect(&p);
	kt_rc_send_ok(&p, 0xa1, 0xb0);
	kt_dev_clean(test, &p);
}

#define KT_FLAPS	4

/*
 * A flapping link: PORT_CHANGE keeps coming until the flap is stopped,
 * which leaves the link up; nothing comes after.  Bad periods are refused.
 */
static void fault_dev_flap(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct td_dev *d0 = &c->dev[0], *d1 = &c->dev[1];
	struct xnic_sim_dev *s0 = d0->sim, *s1 = d1->sim;
	unsigned long end;
	u32 ev0, ev1, n0, n1;

	KUNIT_EXPECT_EQ(test, xnic_sim_fault_set_flap(s0, 5), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_fault_set_flap(s0, XNIC_SIM_FLAP_MAX_MS +
						      1), -EINVAL);
	KUNIT_EXPECT_EQ(test, READ_ONCE(s0->fault.flap_ms), 0U);
	KUNIT_EXPECT_FALSE(test, xnic_sim_faults_on());

	ev0 = td_ev(d0, XNIC_EQE_PORT_CHANGE);
	ev1 = td_ev(d1, XNIC_EQE_PORT_CHANGE);
	KUNIT_ASSERT_EQ(test, xnic_sim_fault_set_flap(s0, XNIC_SIM_FLAP_MIN_MS),
			0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(s0->fault.flap_ms),
			XNIC_SIM_FLAP_MIN_MS);
	end = jiffies + msecs_to_jiffies(TD_TIMEOUT_MS);
	while (td_ev(d0, XNIC_EQE_PORT_CHANGE) - ev0 < KT_FLAPS &&
	       time_before(jiffies, end))
		usleep_range(2000, 5000);
	KUNIT_EXPECT_GE(test, td_ev(d0, XNIC_EQE_PORT_CHANGE) - ev0,
			(u32)KT_FLAPS);

	KUNIT_EXPECT_EQ(test, xnic_sim_fault_set_flap(s0, 0), 0);
	/* the flap's work is cancelled and the link up: nothing more */
	KUNIT_EXPECT_EQ(test, READ_ONCE(s0->fault.flap_ms), 0U);
	KUNIT_EXPECT_FALSE(test, delayed_work_pending(&s0->fault.flap));
	KUNIT_EXPECT_TRUE(test, xnic_sim_fault_link_up(s0));
	KUNIT_EXPECT_TRUE(test, xnic_sim_port_up(s0));
	KUNIT_EXPECT_TRUE(test, xnic_sim_port_up(s1));
	KUNIT_EXPECT_FALSE(test, xnic_sim_faults_on());
	KUNIT_ASSERT_TRUE(test, kt_ev_settle(d0));
	KUNIT_ASSERT_TRUE(test, kt_ev_settle(d1));
	n0 = td_ev(d0, XNIC_EQE_PORT_CHANGE);
	n1 = td_ev(d1, XNIC_EQE_PORT_CHANGE);
	msleep(50);
	KUNIT_ASSERT_TRUE(test, kt_ev_settle(d0));
	KUNIT_ASSERT_TRUE(test, kt_ev_settle(d1));
	KUNIT_EXPECT_EQ(test, td_ev(d0, XNIC_EQE_PORT_CHANGE), n0);
	KUNIT_EXPECT_EQ(test, td_ev(d1, XNIC_EQE_PORT_CHANGE), n1);
	/* up at the start and at the end: as many downs as ups, on each end */
	KUNIT_EXPECT_EQ(test, (n0 - ev0) % 2, 0U);
	KUNIT_EXPECT_EQ(test, n1 - ev1, n0 - ev0);
	KUNIT_EXPECT_EQ(test, kt_port_ev(d0), (u32)XNIC_PORT_ACTIVE);
	KUNIT_EXPECT_EQ(test, kt_port_ev(d1), (u32)XNIC_PORT_ACTIVE);
	kt_port_is(test, d0, true);
	kt_port_is(test, d1, true);

	/* taking the link up or down stops a flap too */
	ev0 = n0;
	KUNIT_ASSERT_EQ(test, xnic_sim_fault_set_flap(s0, XNIC_SIM_FLAP_MAX_MS),
			0);
	/* its first turn is at once: the link goes down */
	KUNIT_EXPECT_TRUE(test, td_wait_ev(d0, XNIC_EQE_PORT_CHANGE, ev0));
	KUNIT_EXPECT_EQ(test, xnic_sim_fault_set_link(s0, true), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(s0->fault.flap_ms), 0U);
	KUNIT_EXPECT_FALSE(test, delayed_work_pending(&s0->fault.flap));
	KUNIT_EXPECT_TRUE(test, xnic_sim_port_up(s0));
	KUNIT_EXPECT_FALSE(test, xnic_sim_faults_on());
	kt_fault_clear(test, s0);
	kt_fault_clear(test, s1);
}

/* ------------------------------------------------------------------ */
/* Events on demand                                                    */

/*
 * One more event @type than @n reached @d's driver, and only one (once
 * the driver took every event its device wrote), with @data.
 */
static void kt_ev_one(struct kunit *test, struct td_dev *d, u8 type, u32 n,
		      u32 data)
{
	KUNIT_EXPECT_TRUE_MSG(test, td_wait_ev(d, type, n), "event 0x%x",
			      type);
	KUNIT_ASSERT_TRUE(test, kt_ev_settle(d));
	KUNIT_EXPECT_EQ_MSG(test, td_ev(d, type), n + 1, "event 0x%x", type);
	KUNIT_EXPECT_EQ_MSG(test, READ_ONCE(d->ev_data[type]), data,
			    "event 0x%x", type);
}

/* the events xnic_sim_fault_qp_error() may raise */
static const u8 kt_qp_evs[] = {
	XNIC_EQE_QP_FATAL, XNIC_EQE_QP_REQ_ERR, XNIC_EQE_QP_ACCESS_ERR,
};

/* How many QP events of each kind @d's driver took, all taken. */
static void kt_qp_evs_now(struct kunit *test, struct td_dev *d, u32 *n)
{
	u32 i;

	KUNIT_ASSERT_TRUE(test, kt_ev_settle(d));
	for (i = 0; i < ARRAY_SIZE(kt_qp_evs); i++)
		n[i] = td_ev(d, kt_qp_evs[i]);
}

/*
 * xnic_sim_fault_qp_error() on QP @qpn of @d with @event: 0, the QP in
 * ERR, its driver gets @event for it and no other QP event.
 */
static void kt_qp_error(struct kunit *test, struct td_dev *d, u32 qpn,
			u8 event)
{
	u32 n[ARRAY_SIZE(kt_qp_evs)], i;

	kt_qp_evs_now(test, d, n);
	KUNIT_ASSERT_EQ(test, xnic_sim_fault_qp_error(d->sim, qpn, event), 0);
	for (i = 0; i < ARRAY_SIZE(kt_qp_evs); i++) {
		if (kt_qp_evs[i] == event) {
			kt_ev_one(test, d, event, n[i], qpn);
			continue;
		}
		KUNIT_EXPECT_EQ_MSG(test, td_ev(d, kt_qp_evs[i]), n[i],
				    "event 0x%x", kt_qp_evs[i]);
	}
}

/*
 * xnic_sim_fault_qp_error(): a's driver gets QP_REQ_ERR for a, a is in
 * ERR, a receive posted before and a SEND posted after are flushed; b
 * is not touched.  Refused: a QP already in ERR or in RESET (-EINVAL), an
 * unknown QP (-ENOENT), an event that is no QP error (-EINVAL), with no
 * event.  QP_FATAL and QP_ACCESS_ERR are delivered as asked, each on a
 * fresh QP.
 */
static void fault_dev_qp_error(struct kunit *test)
{
	static const u8 more[] = { XNIC_EQE_QP_FATAL, XNIC_EQE_QP_ACCESS_ERR };
	struct xnic_sge s;
	struct xnic_cqe e;
	struct td_qp *q;
	u32 n0[ARRAY_SIZE(kt_qp_evs)], n1[ARRAY_SIZE(kt_qp_evs)], i;
	struct kt_rc p;

	kt_rc_up(test, &p, 1);
	s = td_sge(td_pa(p.dst), KT_LEN, TD_ALL_KEY);
	td_post_recv(p.a, 0xa8, &s, 1);
	kt_qp_error(test, p.d0, KT_A_QPN, XNIC_EQE_QP_REQ_ERR);
	KUNIT_EXPECT_EQ(test, td_state(p.a), XNIC_QPS_ERR);
	td_expect(p.acq, 0xa8, XNIC_CQE_WR_FLUSH_ERR, 0, &e);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e.qpn), (u32)KT_A_QPN);
	kt_rc_send(&p, 0xa0);
	td_expect(p.acq, 0xa0, XNIC_CQE_WR_FLUSH_ERR, 0, &e);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e.qpn), (u32)KT_A_QPN);
	KUNIT_EXPECT_FALSE(test, td_poll(p.acq, &e, 20));

	/* refused, no event on either device: b (RTS) stays so */
	kt_qp_evs_now(test, p.d0, n0);
	kt_qp_evs_now(test, p.d1, n1);
	KUNIT_EXPECT_EQ(test, xnic_sim_fault_qp_error(p.d0->sim, KT_A_QPN,
						      XNIC_EQE_QP_REQ_ERR),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_fault_qp_error(p.d0->sim, 99,
						      XNIC_EQE_QP_FATAL),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, xnic_sim_fault_qp_error(p.d1->sim, KT_B_QPN,
						      XNIC_EQE_CQ_ERR),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_fault_qp_error(p.d1->sim, KT_B_QPN, 0),
			-EINVAL);
	KUNIT_ASSERT_TRUE(test, kt_ev_settle(p.d0));
	KUNIT_ASSERT_TRUE(test, kt_ev_settle(p.d1));
	for (i = 0; i < ARRAY_SIZE(kt_qp_evs); i++) {
		KUNIT_EXPECT_EQ(test, td_ev(p.d0, kt_qp_evs[i]), n0[i]);
		KUNIT_EXPECT_EQ(test, td_ev(p.d1, kt_qp_evs[i]), n1[i]);
	}
	kt_rc_b_untouched(&p);

	/* fresh QPs of device 0: refused in RESET, each event as asked */
	for (i = 0; i < ARRAY_SIZE(more); i++) {
		q = td_qp(p.d0, 4 + i, XNIC_QPT_RC, TD_PD, p.acq, p.acq, 0,
			  4 + i, XNIC_NO_SRQ);
		KUNIT_EXPECT_EQ(test, xnic_sim_fault_qp_error(p.d0->sim,
							      q->qpn, more[i]),
				-EINVAL);
		KUNIT_EXPECT_EQ(test, td_state(q), XNIC_QPS_RESET);
		td_connect(q, p.b, 1);
		kt_qp_error(test, p.d0, q->qpn, more[i]);
		KUNIT_EXPECT_EQ(test, td_state(q), XNIC_QPS_ERR);
	}
	/* their queues were empty: nothing flushed */
	KUNIT_EXPECT_FALSE(test, td_poll(p.acq, &e, 20));
	kt_dev_clean(test, &p);
}

/*
 * xnic_sim_fault_cq_error() on a's CQ (its send and receive CQ): one
 * CQ_ERR for it, cq_overruns + 1; refused when overrun already (-EINVAL)
 * or unknown (-ENOENT).  A signaled SEND of a then reaches b, but its
 * completion cannot be written (xnic_sim_sq_complete(): the CQE post
 * fails): a goes to ERR with QP_FATAL, as a real overrun makes it, and
 * nothing more appears in the CQ (its flushes are not written either).
 */
static void fault_dev_cq_error(struct kunit *test)
{
	u32 ev, fatal;
	u64 ovr, ovr1;
	struct xnic_cqe e;
	struct kt_rc p;

	kt_rc_up(test, &p, 1);
	KUNIT_ASSERT_TRUE(test, kt_ev_settle(p.d0));
	ev = td_ev(p.d0, XNIC_EQE_CQ_ERR);
	fatal = td_ev(p.d0, XNIC_EQE_QP_FATAL);
	ovr = td_ctr(p.d0, XNIC_SIM_CTR_cq_overruns);
	ovr1 = td_ctr(p.d1, XNIC_SIM_CTR_cq_overruns);
	KUNIT_ASSERT_EQ(test, xnic_sim_fault_cq_error(p.d0->sim, p.acq->cqn),
			0);
	kt_ev_one(test, p.d0, XNIC_EQE_CQ_ERR, ev, p.acq->cqn);
	KUNIT_EXPECT_EQ(test, td_ctr(p.d0, XNIC_SIM_CTR_cq_overruns) - ovr,
			1ULL);

	KUNIT_EXPECT_EQ(test, xnic_sim_fault_cq_error(p.d0->sim, p.acq->cqn),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_fault_cq_error(p.d0->sim, 99), -ENOENT);
	KUNIT_ASSERT_TRUE(test, kt_ev_settle(p.d0));
	KUNIT_EXPECT_EQ(test, td_ev(p.d0, XNIC_EQE_CQ_ERR), ev + 1);
	KUNIT_EXPECT_EQ(test, td_ctr(p.d0, XNIC_SIM_CTR_cq_overruns) - ovr,
			1ULL);
	KUNIT_EXPECT_EQ(test, td_state(p.a), XNIC_QPS_RTS);

	/* the SEND lands at b; a's completion does not: QP_FATAL */
	kt_rc_recv(&p, 0xb0);
	kt_rc_send(&p, 0xa0);
	td_expect(p.bcq, 0xb0, XNIC_CQE_SUCCESS, XNIC_CQE_OP_RECV, &e);
	KUNIT_EXPECT_EQ(test, memcmp(p.dst, p.src, KT_LEN), 0);
	kt_ev_one(test, p.d0, XNIC_EQE_QP_FATAL, fatal, KT_A_QPN);
	KUNIT_EXPECT_EQ(test, td_state(p.a), XNIC_QPS_ERR);
	KUNIT_EXPECT_EQ(test, td_state(p.b), XNIC_QPS_RTS);
	KUNIT_EXPECT_FALSE(test, td_poll(p.acq, &e, 20));
	/* one overrun, the one injected; none on device 1 */
	KUNIT_EXPECT_EQ(test, td_ev(p.d0, XNIC_EQE_CQ_ERR), ev + 1);
	KUNIT_EXPECT_EQ(test, td_ctr(p.d0, XNIC_SIM_CTR_cq_overruns) - ovr,
			1ULL);
	KUNIT_EXPECT_EQ(test, td_ctr(p.d1, XNIC_SIM_CTR_cq_overruns), ovr1);
	kt_dev_clean(test, &p);
}

/* CREATE_SRQ @srqn on @d, its limit @limit (0: not armed). */
static void kt_srq(struct kunit *test, struct td_dev *d, u32 srqn,
		   u32 limit)
{
	struct xnic_cmd_create_srq in = {
		.srqn = cpu_to_le32(srqn), .pdn = cpu_to_le32(TD_PD),
		.log_wqe = TD_Q_LOG, .wqe_shift = TD_WQE_SHIFT,
		.type = XNIC_SRQT_BASIC, .limit = cpu_to_le32(limit),
	};
	u64 ring, rec;

	kt_dma(test, 1U << (TD_Q_LOG + TD_WQE_SHIFT), &ring);
	kt_dma(test, sizeof(struct xnic_qp_dbrec), &rec);
	in.ring_addr = cpu_to_le64(ring);
	in.dbrec_addr = cpu_to_le64(rec);
	td_cmd_ok(d, XNIC_CMD_CREATE_SRQ, &in, sizeof(in));
}

/* MODIFY_SRQ: @srqn's limit becomes @limit. */
static void kt_srq_limit(struct td_dev *d, u32 srqn, u32 limit)
{
	struct xnic_cmd_modify_srq in = {
		.srqn = cpu_to_le32(srqn), .limit = cpu_to_le32(limit),
	};

	td_cmd_ok(d, XNIC_CMD_MODIFY_SRQ, &in, sizeof(in));
}

/*
 * xnic_sim_fault_srq_limit(): an SRQ whose limit is not armed refuses
 * (-EAGAIN) with no event; armed (by MODIFY_SRQ, or at CREATE_SRQ), one
 * SRQ_LIMIT for it and the limit disarmed: the next call refuses.  An
 * unknown SRQ: -ENOENT.
 */
static void fault_dev_srq_limit(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct td_dev *d0 = &c->dev[0];
	struct xnic_sim_dev *s0 = d0->sim;
	u32 ev;

	kt_srq(test, d0, 1, 0);
	KUNIT_ASSERT_TRUE(test, kt_ev_settle(d0));
	ev = td_ev(d0, XNIC_EQE_SRQ_LIMIT);
	KUNIT_EXPECT_EQ(test, xnic_sim_fault_srq_limit(s0, 1), -EAGAIN);
	KUNIT_EXPECT_EQ(test, xnic_sim_fault_srq_limit(s0, 99), -ENOENT);
	KUNIT_ASSERT_TRUE(test, kt_ev_settle(d0));
	KUNIT_EXPECT_EQ(test, td_ev(d0, XNIC_EQE_SRQ_LIMIT), ev);

	/* armed: the event, then disarmed */
	kt_srq_limit(d0, 1, 4);
	KUNIT_EXPECT_EQ(test, xnic_sim_fault_srq_limit(s0, 1), 0);
	kt_ev_one(test, d0, XNIC_EQE_SRQ_LIMIT, ev, 1);
	KUNIT_EXPECT_EQ(test, xnic_sim_fault_srq_limit(s0, 1), -EAGAIN);
	KUNIT_ASSERT_TRUE(test, kt_ev_settle(d0));
	KUNIT_EXPECT_EQ(test, td_ev(d0, XNIC_EQE_SRQ_LIMIT), ev + 1);

	/* armed again, and one armed at its creation */
	kt_srq_limit(d0, 1, 1);
	KUNIT_EXPECT_EQ(test, xnic_sim_fault_srq_limit(s0, 1), 0);
	kt_ev_one(test, d0, XNIC_EQE_SRQ_LIMIT, ev + 1, 1);
	kt_srq(test, d0, 2, 3);
	KUNIT_EXPECT_EQ(test, xnic_sim_fault_srq_limit(s0, 2), 0);
	kt_ev_one(test, d0, XNIC_EQE_SRQ_LIMIT, ev + 2, 2);
	KUNIT_EXPECT_EQ(test, xnic_sim_fault_srq_limit(s0, 2), -EAGAIN);
	KUNIT_EXPECT_EQ(test, xnic_sim_fault_srq_limit(s0, 1), -EAGAIN);
	KUNIT_ASSERT_TRUE(test, kt_ev_settle(d0));
	KUNIT_EXPECT_EQ(test, td_ev(d0, XNIC_EQE_SRQ_LIMIT), ev + 3);
	/* device 1 has no SRQ 1 */
	KUNIT_EXPECT_EQ(test, xnic_sim_fault_srq_limit(c->dev[1].sim, 1),
			-ENOENT);
}

/*
 * xnic_sim_fault_fatal(): device 0 writes one DEVICE_FATAL, STATUS has
 * FATAL, a command is not executed (written without td_cmd(), which
 * would wait TD_TIMEOUT_MS: not done 50 ms later), a second call is
 * refused (-EINVAL); device 1 is not touched.  A RESET brings device 0
 * back (STATUS READY, not FATAL; not enabled: refused), td_up() enables
 * it, and an RC pair on the two devices passes a SEND.
 */
static void fault_dev_fatal(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct td_dev *d0 = &c->dev[0], *d1 = &c->dev[1];
	const u32 up = XNIC_STATUS_READY | XNIC_STATUS_ENABLED;
	struct xnic_cmd *cmd;
	u32 ev, ev1;
	struct kt_rc p;

	KUNIT_ASSERT_TRUE(test, kt_ev_settle(d0));
	KUNIT_ASSERT_TRUE(test, kt_ev_settle(d1));
	ev = td_ev(d0, XNIC_EQE_DEVICE_FATAL);
	ev1 = td_ev(d1, XNIC_EQE_DEVICE_FATAL);
	KUNIT_ASSERT_EQ(test, xnic_sim_fault_fatal(d0->sim), 0);
	kt_ev_one(test, d0, XNIC_EQE_DEVICE_FATAL, ev, 0);
	KUNIT_EXPECT_EQ(test, td_rd(d0, XNIC_REG_STATUS),
			up | XNIC_STATUS_FATAL);

	/* a QUERY_CAPS, as td_cmd_out() writes it, is not done */
	cmd = &d0->cmdq[d0->cmd_pi & ((1U << TD_CMDQ_LOG) - 1)];
	memset(cmd, 0, sizeof(*cmd));
	cmd->hdr.opcode = XNIC_CMD_QUERY_CAPS;
	cmd->hdr.token = cpu_to_le32(++d0->token);
	d0->cmd_pi++;
	wmb();	/* the entry before the producer index */
	td_wr(d0, XNIC_REG_CMDQ_PI, d0->cmd_pi);
	msleep(50);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(READ_ONCE(cmd->hdr.done)), 0U);

	KUNIT_EXPECT_EQ(test, xnic_sim_fault_fatal(d0->sim), -EINVAL);
	KUNIT_ASSERT_TRUE(test, kt_ev_settle(d0));
	KUNIT_EXPECT_EQ(test, td_ev(d0, XNIC_EQE_DEVICE_FATAL), ev + 1);
	/* the other device goes on */
	KUNIT_EXPECT_EQ(test, td_rd(d1, XNIC_REG_STATUS), up);
	KUNIT_EXPECT_EQ(test, td_cmd(d1, XNIC_CMD_QUERY_CAPS, NULL, 0),
			(u32)XNIC_CMD_OK);
	KUNIT_ASSERT_TRUE(test, kt_ev_settle(d1));
	KUNIT_EXPECT_EQ(test, td_ev(d1, XNIC_EQE_DEVICE_FATAL), ev1);

	/* RESET (td_reset() asserts STATUS READY alone): not enabled */
	td_reset(d0);
	KUNIT_EXPECT_EQ(test, xnic_sim_fault_fatal(d0->sim), -EINVAL);
	KUNIT_EXPECT_EQ(test, td_rd(d0, XNIC_REG_STATUS),
			(u32)XNIC_STATUS_READY);
	td_up(d0);
	KUNIT_EXPECT_EQ(test, td_rd(d0, XNIC_REG_STATUS), up);
	KUNIT_EXPECT_EQ(test, td_ev(d0, XNIC_EQE_DEVICE_FATAL), ev + 1);

	/* traffic again, device 0 to device 1 */
	kt_rc_pair(test, &p, c, 1);
	kt_rc_recv(&p, 0xb0);
	kt_rc_send_ok(&p, 0xa0, 0xb0);
	KUNIT_EXPECT_EQ(test, td_state(p.a), XNIC_QPS_RTS);
	kt_dev_clean(test, &p);
}

/*
 * Command faults: a cmd_fail rule for QUERY_QP answers its status and
 * executes nothing (the QP is still there: a second QUERY_QP succeeds
 * once the count is used up); a command that releases an object never
 * fails (DESTROY_QP with a cmd_fail rule for any command succeeds);
 * a cmd_timeout rule leaves a command unanswered (not done, no event)
 * while the device goes on with the next.
 */
static void fault_dev_cmd(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct td_dev *d0 = &c->dev[0];
	struct xnic_sim_fault_rule *r;
	struct xnic_cmd *cmd;
	struct td_cq *cq = td_cq(d0, 1, 6, false);
	struct td_qp *q = td_qp(d0, 2, XNIC_QPT_RC, TD_PD, cq, cq, 0, 0,
				XNIC_NO_SRQ);
	__le32 qpn = cpu_to_le32(q->qpn);
	u32 done;

	r = kt_dev_rule(test, d0, "cmd", XNIC_SIM_FAULT_CMD_FAIL,
			XNIC_SIM_FAULT_ANY_QP, XNIC_SIM_FOP_ANY);
	r->cmd = XNIC_CMD_QUERY_QP;
	r->cmd_status = XNIC_CMD_BUSY;
	r->count = 1;
	kt_fault_on(test, r);
	/* another command is not matched */
	KUNIT_EXPECT_EQ(test, td_cmd(d0, XNIC_CMD_QUERY_CAPS, NULL, 0),
			(u32)XNIC_CMD_OK);
	KUNIT_EXPECT_EQ(test, td_cmd(d0, XNIC_CMD_QUERY_QP, &qpn,
				     sizeof(qpn)), (u32)XNIC_CMD_BUSY);
	KUNIT_EXPECT_EQ(test, td_cmd(d0, XNIC_CMD_QUERY_QP, &qpn,
				     sizeof(qpn)), (u32)XNIC_CMD_OK);
	kt_fault_counts(test, r, 1, 1);
	xnic_sim_fault_rule_del(r);

	/* any command: but not one that releases an object */
	r = kt_dev_rule(test, d0, "any", XNIC_SIM_FAULT_CMD_FAIL,
			XNIC_SIM_FAULT_ANY_QP, XNIC_SIM_FOP_ANY);
	kt_fault_on(test, r);
	KUNIT_EXPECT_EQ(test, td_cmd(d0, XNIC_CMD_QUERY_QP, &qpn,
				     sizeof(qpn)), (u32)XNIC_CMD_NO_RESOURCES);
	KUNIT_EXPECT_EQ(test, td_cmd(d0, XNIC_CMD_DESTROY_QP, &qpn,
				     sizeof(qpn)), (u32)XNIC_CMD_OK);
	KUNIT_EXPECT_EQ(test, td_cmd(d0, XNIC_CMD_QUERY_QP, &qpn,
				     sizeof(qpn)), (u32)XNIC_CMD_NO_RESOURCES);
	xnic_sim_fault_rule_del(r);
	KUNIT_EXPECT_EQ(test, td_cmd(d0, XNIC_CMD_QUERY_QP, &qpn,
				     sizeof(qpn)), (u32)XNIC_CMD_BAD_INDEX);

	/* a command never answered; the next one is */
	r = kt_dev_rule(test, d0, "lost", XNIC_SIM_FAULT_CMD_TIMEOUT,
			XNIC_SIM_FAULT_ANY_QP, XNIC_SIM_FOP_ANY);
	r->cmd = XNIC_CMD_QUERY_CAPS;
	r->count = 1;
	kt_fault_on(test, r);
	KUNIT_ASSERT_TRUE(test, kt_ev_settle(d0));
	done = td_ev(d0, XNIC_EQE_CMD_DONE);
	cmd = &d0->cmdq[d0->cmd_pi & ((1U << TD_CMDQ_LOG) - 1)];
	memset(cmd, 0, sizeof(*cmd));
	cmd->hdr.opcode = XNIC_CMD_QUERY_CAPS;
	cmd->hdr.token = cpu_to_le32(++d0->token);
	d0->cmd_pi++;
	wmb();	/* the entry before the producer index */
	td_wr(d0, XNIC_REG_CMDQ_PI, d0->cmd_pi);
	KUNIT_EXPECT_EQ(test, td_cmd(d0, XNIC_CMD_QUERY_CAPS, NULL, 0),
			(u32)XNIC_CMD_OK);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(READ_ONCE(cmd->hdr.done)), 0U);
	KUNIT_ASSERT_TRUE(test, kt_ev_settle(d0));
	KUNIT_EXPECT_EQ(test, td_ev(d0, XNIC_EQE_CMD_DONE), done + 1);
	kt_fault_counts(test, r, 1, 1);
	kt_fault_clear(test, d0->sim);
}

static struct kunit_case fault_dev_cases[] = {
	KUNIT_CASE(fault_dev_drop),
	KUNIT_CASE(fault_dev_nak),
	KUNIT_CASE(fault_dev_rnr),
	KUNIT_CASE(fault_dev_cqe_err),
	KUNIT_CASE(fault_dev_delay),
	KUNIT_CASE(fault_dev_link),
	KUNIT_CASE(fault_dev_flap),
	KUNIT_CASE(fault_dev_qp_error),
	KUNIT_CASE(fault_dev_cq_error),
	KUNIT_CASE(fault_dev_srq_limit),
	KUNIT_CASE(fault_dev_fatal),
	KUNIT_CASE(fault_dev_cmd),
	{}
};

static struct kunit_suite fault_dev_suite = {
	.name = "xnic_sim_fault_dev",
	.init = td_init,
	.exit = td_exit,
	.test_cases = fault_dev_cases,
};

kunit_test_suites(&fault_rules_suite, &fault_dev_suite);
