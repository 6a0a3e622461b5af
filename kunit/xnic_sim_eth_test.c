// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites of the device model on two cabled devices with their
 * engines (kunit/xnic_sim_dev_fixture.h):
 *   xnic_sim_eth     the Ethernet function (xnic_sim_eth.c)
 *   xnic_sim_events  QUERY_COUNTERS, and the event queue under a flood of
 *                    re-armed CQs
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/io.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include "xnic_sim_dev_fixture.h"

/* The Ethernet function of two cabled devices                         */

#define TE_LOG		2	/* 4 descriptors */
#define TE_BUF		256	/* bytes per buffer, one page per ring */

struct te_ring {
	struct xnic_eth_desc *desc;
	u8 *buf;		/* 1 << TE_LOG buffers of TE_BUF bytes */
	u64 buf_dma;
	u32 pi;
};

struct te_port {
	struct td_dev *d;
	struct te_ring tx;
	struct te_ring rx;
};

static void te_ring_init(struct kunit *test, struct te_port *p,
			 struct te_ring *r, u32 base_lo)
{
	u64 dma;

	r->desc = kt_dma(test, sizeof(*r->desc) << TE_LOG, &dma);
	r->buf = kt_dma(test, TE_BUF << TE_LOG, &r->buf_dma);
	r->pi = 0;
	td_wr(p->d, base_lo, lower_32_bits(dma));
	td_wr(p->d, base_lo + 4, upper_32_bits(dma));
	td_wr(p->d, base_lo + 8, TE_LOG);
}

/* Post descriptor pi of @r: buffer (pi % size) with @len bytes. */
static void te_post(struct te_port *p, struct te_ring *r, u32 len, u32 reg)
{
	u32 i = r->pi & ((1U << TE_LOG) - 1);

	r->desc[i].addr = cpu_to_le64(r->buf_dma + i * TE_BUF);
	r->desc[i].len = cpu_to_le32(len);
	r->desc[i].status = 0;
	r->pi++;
	wmb();	/* the descriptor before the doorbell */
	td_wr(p->d, reg, r->pi);
}

/* Wait for descriptor @idx of @r to be done; return its status. */
static u8 te_wait(struct kunit *test, struct te_ring *r, u32 idx)
{
	struct xnic_eth_desc *e = &r->desc[idx & ((1U << TE_LOG) - 1)];
	unsigned long end = jiffies + msecs_to_jiffies(TD_TIMEOUT_MS);
	u8 st;

	while (!((st = READ_ONCE(e->status)) & XNIC_ETH_DESC_DONE)) {
		KUNIT_ASSERT_TRUE_MSG(test, time_before(jiffies, end),
				      "descriptor %u not done", idx);
		usleep_range(20, 100);
	}
	dma_rmb();
	return st;
}

/* Wait for a counter of @eth to reach @n (the engine runs apart). */
static void te_wait_ctr(struct kunit *test, const u64 *ctr, u64 n,
			const char *what)
{
	unsigned long end = jiffies + msecs_to_jiffies(TD_TIMEOUT_MS);

	while (READ_ONCE(*ctr) < n) {
		KUNIT_ASSERT_TRUE_MSG(test, time_before(jiffies, end),
				      "%s: %llu, want %llu", what,
				      READ_ONCE(*ctr), n);
		usleep_range(20, 100);
	}
}

/*
 * Frames from device 0 land in device 1's RX ring, never in device 0's;
 * the events come once per arm; lengths, producer indexes and ring
 * registers are checked; no buffer, a small buffer or a disabled ring
 * drops the frame (counted); reset forgets the rings.
 */
static void dev_eth(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct te_port p[2] = { { .d = &c->dev[0] }, { .d = &c->dev[1] } };
	struct kt_sim_eth_view e0, e1;
	u32 on = XNIC_ETH_ST_TX_ON | XNIC_ETH_ST_RX_ON, i, ev_tx, ev_rx;
	struct td_dev *d0 = p[0].d, *d1 = p[1].d;
	u8 st;

	kt_sim_eth_view(c->dev[0].sim, &e0);
	kt_sim_eth_view(c->dev[1].sim, &e1);
	/* identity: the MAC of GUID ...:01, cabled, 9216-byte frames */
	KUNIT_EXPECT_EQ(test, td_rd(d0, XNIC_REG_ETH_MAC_HI), 0x0058U);
	KUNIT_EXPECT_EQ(test, td_rd(d0, XNIC_REG_ETH_MAC_LO), 0x52000001U);
	KUNIT_EXPECT_EQ(test, td_rd(d1, XNIC_REG_ETH_MAC_LO), 0x52000002U);
	KUNIT_EXPECT_EQ(test, td_rd(d0, XNIC_REG_ETH_STATUS),
			(u32)XNIC_ETH_ST_LINK);
	KUNIT_EXPECT_EQ(test, td_rd(d0, XNIC_REG_ETH_MAX_FRAME),
			(u32)XNIC_SIM_ETH_MAX_FRAME);
	/* jumbo: a 9198-byte MTU with a VLAN tag (rdma_cm's path MTU 4096) */
	KUNIT_EXPECT_EQ(test, td_rd(d0, XNIC_REG_ETH_MAX_FRAME), 9216U);
	/* a port other than 1 has no registers */
	KUNIT_EXPECT_EQ(test, td_rd(d0, XNIC_REG_ETH(2, XNIC_REG_ETH_MAC_LO)),
			0U);

	/* no ring: enabling is ignored; a misaligned one too */
	td_wr(d0, XNIC_REG_ETH_CTRL, XNIC_ETH_CTRL_TX | XNIC_ETH_CTRL_RX);
	KUNIT_EXPECT_EQ(test, td_rd(d0, XNIC_REG_ETH_STATUS) & on, 0U);
	for (i = 0; i < 2; i++) {
		te_ring_init(test, &p[i], &p[i].tx, XNIC_REG_ETH_TX_BASE_LO);
		te_ring_init(test, &p[i], &p[i].rx, XNIC_REG_ETH_RX_BASE_LO);
	}
	td_wr(d0, XNIC_REG_ETH_TX_BASE_LO,
	      td_rd(d0, XNIC_REG_ETH_TX_BASE_LO) + 8);
	td_wr(d0, XNIC_REG_ETH_CTRL, XNIC_ETH_CTRL_TX);
	KUNIT_EXPECT_EQ(test, td_rd(d0, XNIC_REG_ETH_STATUS) & on, 0U);
	td_wr(d0, XNIC_REG_ETH_TX_BASE_LO, lower_32_bits(td_pa(p[0].tx.desc)));
	for (i = 0; i < 2; i++) {
		td_wr(p[i].d, XNIC_REG_ETH_CTRL,
		      XNIC_ETH_CTRL_TX | XNIC_ETH_CTRL_RX);
		KUNIT_ASSERT_EQ(test, td_rd(p[i].d, XNIC_REG_ETH_STATUS) & on,
				on);
	}
	/* the ring registers are fixed while the ring is on */
	td_wr(d0, XNIC_REG_ETH_TX_LOG_SIZE, 5);
	KUNIT_EXPECT_EQ(test, td_rd(d0, XNIC_REG_ETH_TX_LOG_SIZE), (u32)TE_LOG);

	/* one frame 0 -> 1, buffers posted on both sides */
	te_post(&p[0], &p[0].rx, TE_BUF, XNIC_REG_ETH_RX_PI);
	te_post(&p[1], &p[1].rx, TE_BUF, XNIC_REG_ETH_RX_PI);
	te_post(&p[1], &p[1].rx, TE_BUF, XNIC_REG_ETH_RX_PI);
	ev_tx = td_ev(d0, XNIC_EQE_ETH_TX);
	ev_rx = td_ev(d1, XNIC_EQE_ETH_RX);
	td_wr(d0, XNIC_REG_ETH_ARM, XNIC_ETH_ARM_TX);
	td_wr(d1, XNIC_REG_ETH_ARM, XNIC_ETH_ARM_RX);
	for (i = 0; i < 100; i++)
		p[0].tx.buf[i] = i ^ 0x5a;
	te_post(&p[0], &p[0].tx, 100, XNIC_REG_ETH_TX_PI);
	KUNIT_EXPECT_EQ(test, te_wait(test, &p[0].tx, 0), XNIC_ETH_DESC_DONE);
	KUNIT_EXPECT_EQ(test, te_wait(test, &p[1].rx, 0), XNIC_ETH_DESC_DONE);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(p[1].rx.desc[0].len), 100U);
	KUNIT_EXPECT_EQ(test, memcmp(p[1].rx.buf, p[0].tx.buf, 100), 0);
	KUNIT_EXPECT_TRUE(test, td_wait_ev(d0, XNIC_EQE_ETH_TX, ev_tx));
	KUNIT_EXPECT_TRUE(test, td_wait_ev(d1, XNIC_EQE_ETH_RX, ev_rx));
	KUNIT_EXPECT_EQ(test, c->dev[1].ev_data[XNIC_EQE_ETH_RX], 1U);
	/* a port never receives its own frame */
	KUNIT_EXPECT_EQ(test, READ_ONCE(p[0].rx.desc[0].status), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(*e0.rx_frames), 0ULL);

	/* disarmed: the next frame posts no event */
	te_post(&p[0], &p[0].tx, 60, XNIC_REG_ETH_TX_PI);
	te_wait(test, &p[0].tx, 1);
	te_wait(test, &p[1].rx, 1);
	KUNIT_EXPECT_EQ(test, td_ev(d0, XNIC_EQE_ETH_TX), ev_tx + 1);
	KUNIT_EXPECT_EQ(test, td_ev(d1, XNIC_EQE_ETH_RX), ev_rx + 1);

	/* bad lengths: refused, not sent */
	te_post(&p[0], &p[0].tx, XNIC_ETH_MIN_FRAME - 1, XNIC_REG_ETH_TX_PI);
	st = te_wait(test, &p[0].tx, 2);
	KUNIT_EXPECT_EQ(test, st, XNIC_ETH_DESC_DONE | XNIC_ETH_DESC_ERR);
	te_post(&p[0], &p[0].tx, XNIC_SIM_ETH_MAX_FRAME + 1,
		XNIC_REG_ETH_TX_PI);
	st = te_wait(test, &p[0].tx, 3);
	KUNIT_EXPECT_EQ(test, st, XNIC_ETH_DESC_DONE | XNIC_ETH_DESC_ERR);
	KUNIT_EXPECT_EQ(test, READ_ONCE(*e0.tx_errors), 2ULL);

	/* a producer index more than a ring ahead is ignored */
	td_wr(d0, XNIC_REG_ETH_TX_PI, p[0].tx.pi + (1U << TE_LOG) + 1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(*e0.tx_bad_pi), 1ULL);
	KUNIT_EXPECT_EQ(test, READ_ONCE(*e0.tx_pi), p[0].tx.pi);

	/* no buffer left on device 1: dropped, counted on both sides */
	te_post(&p[0], &p[0].tx, 80, XNIC_REG_ETH_TX_PI);
	te_wait(test, &p[0].tx, 4);
	te_wait_ctr(test, e1.rx_drop_nobuf, 1, "rx_drop_nobuf");
	te_wait_ctr(test, e0.tx_drop_peer, 1, "tx_drop_peer");
	/* a buffer too small: dropped, the buffer stays posted */
	te_post(&p[1], &p[1].rx, 50, XNIC_REG_ETH_RX_PI);
	te_post(&p[0], &p[0].tx, 80, XNIC_REG_ETH_TX_PI);
	te_wait(test, &p[0].tx, 5);
	te_wait_ctr(test, e1.rx_drop_len, 1, "rx_drop_len");
	KUNIT_EXPECT_EQ(test, READ_ONCE(p[1].rx.desc[2].status), 0);
	te_post(&p[0], &p[0].tx, 50, XNIC_REG_ETH_TX_PI);
	KUNIT_EXPECT_EQ(test, te_wait(test, &p[1].rx, 2), XNIC_ETH_DESC_DONE);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(p[1].rx.desc[2].len), 50U);
	KUNIT_EXPECT_EQ(test, READ_ONCE(*e1.rx_frames), 3ULL);

	/* RX off: the write returns with the ring off; frames dropped */
	td_wr(d1, XNIC_REG_ETH_CTRL, XNIC_ETH_CTRL_TX);
	KUNIT_EXPECT_EQ(test, td_rd(d1, XNIC_REG_ETH_STATUS) & on,
			(u32)XNIC_ETH_ST_TX_ON);
	te_post(&p[0], &p[0].tx, 70, XNIC_REG_ETH_TX_PI);
	te_wait(test, &p[0].tx, 7);
	te_wait_ctr(test, e1.rx_drop_off, 1, "rx_drop_off");

	/* reset forgets both rings and their registers */
	td_reset(d1);
	KUNIT_EXPECT_EQ(test, td_rd(d1, XNIC_REG_ETH_STATUS),
			(u32)XNIC_ETH_ST_LINK);
	KUNIT_EXPECT_EQ(test, td_rd(d1, XNIC_REG_ETH_RX_LOG_SIZE), 0U);
	KUNIT_EXPECT_EQ(test, td_rd(d1, XNIC_REG_ETH_TX_BASE_LO), 0U);
	td_wr(d0, XNIC_REG_ETH_CTRL, 0);
	KUNIT_EXPECT_EQ(test, td_rd(d0, XNIC_REG_ETH_STATUS) & on, 0U);
}

static struct kunit_case eth_cases[] = {
	KUNIT_CASE(dev_eth),
	{}
};

static struct kunit_suite eth_suite = {
	.name = "xnic_sim_eth",
	.init = td_init,
	.exit = td_exit,
	.test_cases = eth_cases,
};

/*
 * QUERY_COUNTERS: min(num, XNIC_CTR_NUM) counters in the PRM's order,
 * the model's own values, nothing past them written; bad input refused.
 */
static void dev_counters(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct td_dev *d = &c->dev[0];
	struct xnic_cmd_query_counters q = {}, out;
	__le64 *buf;
	u64 dma, cqes, cmds;
	u32 i;

	buf = kt_dma(test, (XNIC_CTR_NUM + 1) * sizeof(*buf), &dma);
	memset(buf, 0xa5, (XNIC_CTR_NUM + 1) * sizeof(*buf));

	/* the whole set, with room to spare: the extra slot untouched */
	q.buf_addr = cpu_to_le64(td_pa(buf));
	q.num = cpu_to_le32(XNIC_CTR_NUM + 1);
	cmds = td_ctr(d, XNIC_SIM_CTR_commands);
	cqes = td_ctr(d, XNIC_SIM_CTR_cqes);
	KUNIT_ASSERT_EQ(test, td_cmd_out(d, XNIC_CMD_QUERY_COUNTERS, &q,
					 sizeof(q), &out, sizeof(out)),
			(u32)XNIC_CMD_OK);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out.written), (u32)XNIC_CTR_NUM);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(buf[XNIC_CTR_NUM]),
			0xa5a5a5a5a5a5a5a5ULL);
	/* taken before the command counted itself */
	KUNIT_EXPECT_EQ(test, le64_to_cpu(buf[XNIC_CTR_COMMANDS]), cmds);
	KUNIT_EXPECT_EQ(test, td_ctr(d, XNIC_SIM_CTR_commands), cmds + 1);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(buf[XNIC_CTR_CQES]), cqes);
	/* the model's counters are at the PRM's indexes */
	KUNIT_EXPECT_EQ(test, (int)XNIC_SIM_CTR_NUM, (int)XNIC_CTR_NUM);
	for (i = 0; i < XNIC_CTR_NUM; i++) {
		if (i == XNIC_CTR_COMMANDS || i == XNIC_CTR_EQES ||
		    i == XNIC_CTR_IRQS || i == XNIC_CTR_SLEEPS ||
		    i == XNIC_CTR_WAKEUPS || i == XNIC_CTR_YIELDS ||
		    i == XNIC_CTR_WRITER_RUNS || i == XNIC_CTR_SERVE_WAITS)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, le64_to_cpu(buf[i]), td_ctr(d, i),
				    "counter %u", i);
	}

	/* fewer: only those written */
	memset(buf, 0xa5, (XNIC_CTR_NUM + 1) * sizeof(*buf));
	q.num = cpu_to_le32(3);
	KUNIT_ASSERT_EQ(test, td_cmd_out(d, XNIC_CMD_QUERY_COUNTERS, &q,
					 sizeof(q), &out, sizeof(out)),
			(u32)XNIC_CMD_OK);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out.written), 3U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(buf[3]), 0xa5a5a5a5a5a5a5a5ULL);

	/* bad input */
	q.num = 0;
	td_want(d, XNIC_CMD_QUERY_COUNTERS, &q, sizeof(q), XNIC_CMD_BAD_PARAM);
	q.num = cpu_to_le32(1);
	q.buf_addr = 0;
	td_want(d, XNIC_CMD_QUERY_COUNTERS, &q, sizeof(q), XNIC_CMD_BAD_PARAM);
	q.buf_addr = cpu_to_le64(td_pa(buf) + 4);
	td_want(d, XNIC_CMD_QUERY_COUNTERS, &q, sizeof(q), XNIC_CMD_BAD_PARAM);
	q.buf_addr = cpu_to_le64(td_pa(buf));
	q.written = cpu_to_le32(1);
	td_want(d, XNIC_CMD_QUERY_COUNTERS, &q, sizeof(q), XNIC_CMD_BAD_PARAM);
}

/*
 * A CQ re-armed after every CQE, its events never consumed (the driver's
 * CPU stalled, here INTR_MASK set): the device writes at most one
 * COMPLETION event of the CQ until the driver consumes it, so the event
 * queue cannot overrun (it used to: one event per arm, then FATAL).  Once
 * consumed, the next arm fires again.
 */
static void dev_eq_flood(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct td_dev *d = &c->dev[0];
	struct td_cq *cq = td_cq(d, 5, 6, true);
	struct td_qp *a = td_qp(d, 6, XNIC_QPT_RC, TD_PD, cq, cq, 0, 6,
				XNIC_NO_SRQ);
	struct td_qp *b = td_qp(d, 7, XNIC_QPT_RC, TD_PD, cq, cq, 0, 7,
				XNIC_NO_SRQ);
	u64 iova = 0x7000000000000000ULL;
	struct td_mr *m = td_mr(d, 9 << 8 | 0x33, TD_PD, TD_ACCESS, 1, iova,
				true);
	u8 *src = kunit_kzalloc(test, 64, GFP_KERNEL);
	u32 n = 4U << TD_EQ_LOG, i, ev, pi;
	u64 overruns = td_ctr(d, XNIC_SIM_CTR_eq_overruns);
	struct td_wr w = {};

	KUNIT_ASSERT_NOT_NULL(test, src);
	td_connect(a, b, 3);
	td_connect(b, a, 3);
	w.op = XNIC_OP_RDMA_WRITE;
	w.flags = XNIC_WQE_SIGNALED;
	w.raddr = iova;
	w.rkey = m->key;
	w.nsge = 1;
	w.sge[0] = td_sge(td_pa(src), 8, TD_ALL_KEY);

	ev = td_ev(d, XNIC_EQE_COMPLETION);
	td_wr(d, XNIC_REG_INTR_MASK, 1);
	pi = READ_ONCE(d->sim->eq_pi);
	for (i = 0; i < n; i++) {
		td_arm(cq, XNIC_CQ_ARM_NEXT);
		w.wr_id = i;
		td_post(a, &w);
		td_expect(cq, i, 0, XNIC_CQE_OP_RDMA_WRITE, NULL);
	}
	KUNIT_EXPECT_FALSE(test, td_rd(d, XNIC_REG_STATUS) & XNIC_STATUS_FATAL);
	KUNIT_EXPECT_EQ(test, td_ctr(d, XNIC_SIM_CTR_eq_overruns), overruns);
	/* one event for n arms and CQEs */
	KUNIT_EXPECT_EQ(test, READ_ONCE(d->sim->eq_pi) - pi, 1U);
	td_wr(d, XNIC_REG_INTR_MASK, 0);
	KUNIT_EXPECT_TRUE(test, td_wait_ev(d, XNIC_EQE_COMPLETION, ev));
	KUNIT_EXPECT_EQ(test, td_ev(d, XNIC_EQE_COMPLETION), ev + 1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(d->ev_data[XNIC_EQE_COMPLETION]),
			cq->cqn);

	/* consumed: the next arm fires its own event */
	td_arm(cq, XNIC_CQ_ARM_NEXT);
	w.wr_id = n;
	td_post(a, &w);
	td_expect(cq, n, 0, XNIC_CQE_OP_RDMA_WRITE, NULL);
	KUNIT_EXPECT_TRUE(test, td_wait_ev(d, XNIC_EQE_COMPLETION, ev + 1));
	KUNIT_EXPECT_EQ(test, td_ev(d, XNIC_EQE_COMPLETION), ev + 2);
}

static struct kunit_case events_cases[] = {
	KUNIT_CASE(dev_counters),
	KUNIT_CASE(dev_eq_flood),
	{}
};

static struct kunit_suite events_suite = {
	.name = "xnic_sim_events",
	.init = td_init,
	.exit = td_exit,
	.test_cases = events_cases,
};

kunit_test_suites(&eth_suite, &events_suite);
