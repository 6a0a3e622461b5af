// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite xnic_sim_wreq: the requester and completer of wire QPs
 * (drivers/hw/xnic/sim/xnic_sim_wreq.c), against a scripted responder.
 * Device 0's RC QP talks to device 1 over the fake wire of
 * xnic_sim_wire_fixture.h, but the link 0 -> 1 is cut: device 0's
 * requests are only captured, and the responses the test builds
 * (xnic_sim_pkt_write_hdr(), xnic_sim_pkt_seal()) are injected into
 * device 0 as if from device 1.  Each case says what the completer must
 * make of them: completions, retransmissions, counters, QP state.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/delay.h>
#include "xnic_sim_wire_fixture.h"

#define WQ_DQPN		0x33		/* the scripted responder's QP */
#define WQ_QPN		2
#define WQ_CQN		1
#define WQ_LONG_TO	20		/* ~4 s: no retransmission in a case */
#define WQ_MID_TO	16		/* ~270 ms */
#define WQ_SHORT_TO	10		/* ~4 ms */

struct wq {
	struct kunit *test;
	struct tw_ctx *c;
	struct td_dev *a;
	struct td_cq *cq;
	struct td_qp *q;
	u8 *buf;			/* local memory, 4 pages */
};

/*
 * The seam (xnic_sim_wreq_test_skip): the next WQE of more than @n
 * packets taken with nothing in flight starts @n PSNs in, those taken as
 * sent and acknowledged (0: off; every case starts with it off).
 */
static void wq_skip(u32 n)
{
	WRITE_ONCE(xnic_sim_wreq_test_skip, n);
}

/*
 * Device 0's RC QP towards WQ_DQPN on device 1: PSN @psn, path MTU @mtu,
 * @timeout, @retry, @rnr.  The link 0 -> 1 is cut and captured.
 */
static void wq_up_mtu(struct wq *t, struct kunit *test, u8 type, u32 psn,
		      u8 timeout, u8 retry, u8 rnr, u8 mtu)
{
	struct xnic_cmd_modify_qp m = {};

	t->test = test;
	wq_skip(0);
	t->c = tw_ctx_up(test);
	t->a = &t->c->td->dev[0];
	t->cq = td_cq(t->a, WQ_CQN, 6, false);
	t->q = td_qp(t->a, WQ_QPN, type, TD_PD, t->cq, t->cq, 0, 0,
		     XNIC_NO_SRQ);
	t->buf = kunit_kzalloc(test, 4 * PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->buf);
	tw_cut(t->c, 0, true);
	tw_capture(t->c, 0, true);

	m.access = cpu_to_le32(TD_ACCESS);
	m.port_num = 1;
	m.qkey = cpu_to_le32(0x11111111);
	KUNIT_ASSERT_EQ(test, td_modify(t->q, &m, XNIC_QPS_INIT,
					XNIC_QP_MOD_ACCESS | XNIC_QP_MOD_PORT |
					XNIC_QP_MOD_QKEY), (u32)XNIC_CMD_OK);
	if (type == XNIC_QPT_UD) {
		KUNIT_ASSERT_EQ(test, td_modify(t->q, &m, XNIC_QPS_RTR, 0),
				(u32)XNIC_CMD_OK);
		m.sq_psn = cpu_to_le32(psn);
		KUNIT_ASSERT_EQ(test, td_modify(t->q, &m, XNIC_QPS_RTS,
						XNIC_QP_MOD_SQ_PSN),
				(u32)XNIC_CMD_OK);
		return;
	}
	memset(&m, 0, sizeof(m));
	m.path_mtu = mtu;
	m.min_rnr_timer = 1;
	m.max_dest_rd_atomic = 16;
	memcpy(m.dgid, tw_sim(t->c, 1)->gid, 16);
	m.dest_qpn = cpu_to_le32(WQ_DQPN);
	KUNIT_ASSERT_EQ(test, td_modify(t->q, &m, XNIC_QPS_RTR,
					XNIC_QP_MOD_AV | XNIC_QP_MOD_PATH_MTU |
					XNIC_QP_MOD_DEST_QPN | XNIC_QP_MOD_RQ_PSN |
					XNIC_QP_MOD_MIN_RNR_TIMER |
					XNIC_QP_MOD_MAX_DEST_RD_ATOMIC),
			(u32)XNIC_CMD_OK);
	memset(&m, 0, sizeof(m));
	m.timeout = timeout;
	m.retry_cnt = retry;
	m.rnr_retry = rnr;
	m.max_rd_atomic = 16;
	m.sq_psn = cpu_to_le32(psn);
	KUNIT_ASSERT_EQ(test, td_modify(t->q, &m, XNIC_QPS_RTS,
					XNIC_QP_MOD_TIMEOUT | XNIC_QP_MOD_RETRY_CNT |
					XNIC_QP_MOD_RNR_RETRY | XNIC_QP_MOD_SQ_PSN |
					XNIC_QP_MOD_MAX_RD_ATOMIC),
			(u32)XNIC_CMD_OK);
}

/* ... path MTU 1024 */
static void wq_up(struct wq *t, struct kunit *test, u8 type, u32 psn,
		  u8 timeout, u8 retry, u8 rnr)
{
	wq_up_mtu(t, test, type, psn, timeout, retry, rnr, XNIC_MTU_1024);
}

/* The next RoCEv2 frame device 0 sent, parsed into @p (a copy kept). */
static void wq_frame(struct wq *t, struct xnic_sim_pkt *p)
{
	unsigned long end = jiffies + msecs_to_jiffies(TD_TIMEOUT_MS);
	struct sk_buff *skb;

	for (;;) {
		skb = tw_captured(t->c, 0);
		if (skb && xnic_sim_pkt_parse(skb->data, skb->len, p) ==
			   XNIC_SIM_DROP_NONE)
			return;
		if (!skb) {
			KUNIT_ASSERT_FALSE_MSG(t->test,
					       time_after(jiffies, end),
					       "no frame from device 0");
			usleep_range(200, 400);
		}
	}
}

/* A response from the scripted responder to device 0. */
struct wq_resp {
	u8 op;				/* XNIC_SIM_BTH_* (RC) */
	u32 psn;
	u8 syndrome;
	u64 orig;
	const void *data;
	u32 len;
};

static void wq_inject(struct wq *t, const struct wq_resp *r)
{
	struct xnic_sim_pkt p = {};
	u32 flen;
	u8 *f;

	tw_mac(t->c, 1, p.smac);
	tw_mac(t->c, 0, p.dmac);
	memcpy(p.sgid, tw_sim(t->c, 1)->gid, 16);
	memcpy(p.dgid, tw_sim(t->c, 0)->gid, 16);
	p.hop_limit = 64;
	p.sport = 0xc000;
	p.opcode = XNIC_SIM_BTH_RC | r->op;
	p.pkey = 0xffff;
	p.dqpn = WQ_QPN;
	p.psn = r->psn & 0xffffff;
	p.syndrome = r->syndrome;
	p.orig = r->orig;
	p.paylen = r->len;
	flen = xnic_sim_pkt_frame_len(&p);
	f = kunit_kzalloc(t->test, flen, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(t->test, f);
	xnic_sim_pkt_write_hdr(f, &p);
	if (r->len)
		memcpy(f + xnic_sim_pkt_hdr_len(&p), r->data, r->len);
	xnic_sim_pkt_seal(f, &p);
	tw_inject(t->c, 0, f, flen);
}

static void wq_ack(struct wq *t, u32 psn)
{
	struct wq_resp r = { .op = XNIC_SIM_BTH_ACK, .psn = psn,
			     .syndrome = 0x1f };

	wq_inject(t, &r);
}

static void wq_nak(struct wq *t, u32 psn, u8 syndrome)
{
	struct wq_resp r = { .op = XNIC_SIM_BTH_ACK, .psn = psn,
			     .syndrome = syndrome };

	wq_inject(t, &r);
}

static u64 wq_ctr(struct wq *t, enum xnic_sim_ctr c)
{
	return td_ctr(t->a, c);
}

/* Wait until device @d's counter @c reaches @n (false: not in time). */
static bool wq_wait_ctr_dev(struct td_dev *d, enum xnic_sim_ctr c, u64 n)
{
	unsigned long end = jiffies + msecs_to_jiffies(TD_TIMEOUT_MS);

	while (td_ctr(d, c) < n) {
		if (time_after(jiffies, end))
			return false;
		usleep_range(200, 400);
	}
	return true;
}

/* Wait until counter @c reaches @n (false: it did not in time). */
static bool wq_wait_ctr(struct wq *t, enum xnic_sim_ctr c, u64 n)
{
	return wq_wait_ctr_dev(t->a, c, n);
}

/* A signaled SEND of @len bytes of t->buf. */
static void wq_send(struct wq *t, u64 wr_id, u32 len)
{
	struct td_wr w = { .op = XNIC_OP_SEND, .flags = XNIC_WQE_SIGNALED,
			   .wr_id = wr_id, .nsge = 1 };

	w.sge[0] = td_sge(td_pa(t->buf), len, TD_ALL_KEY);
	td_post(t->q, &w);
}

/* Frames of a SEND: opcode, PSN, AckReq; the next WQE's PSN. */
static void wq_expect_send(struct wq *t, u8 op, u32 psn, bool ackreq,
			   u32 paylen)
{
	struct xnic_sim_pkt p;

	wq_frame(t, &p);
	KUNIT_EXPECT_EQ(t->test, p.opcode, (u8)(XNIC_SIM_BTH_RC | op));
	KUNIT_EXPECT_EQ(t->test, p.psn, psn);
	KUNIT_EXPECT_EQ(t->test, p.ackreq, ackreq);
	KUNIT_EXPECT_EQ(t->test, p.dqpn, (u32)WQ_DQPN);
	KUNIT_EXPECT_EQ(t->test, p.paylen, paylen);
	KUNIT_EXPECT_FALSE(t->test, p.ipv4);
}

/*
 * Three SENDs, the first of three packets: FIRST/MIDDLE/LAST, AckReq on
 * the last only; an ACK of the second message completes the first two
 * (coalesced), in order, the third only with its own ACK.
 */
static void wreq_inorder_coalesced(struct kunit *test)
{
	struct wq t;
	struct xnic_cqe e;
	u32 i;

	wq_up(&t, test, XNIC_QPT_RC, 100, WQ_LONG_TO, 7, 7);
	for (i = 0; i < 2500; i++)
		t.buf[i] = i * 7;
	wq_send(&t, 1, 2500);
	wq_send(&t, 2, 10);
	wq_send(&t, 3, 0);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_FIRST, 100, false, 1024);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_MIDDLE, 101, false, 1024);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_LAST, 102, true, 452);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, 103, true, 10);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, 104, true, 0);
	KUNIT_EXPECT_FALSE(test, td_peek(t.cq, &e));
	wq_ack(&t, 103);
	td_expect(t.cq, 1, 0, XNIC_CQE_OP_SEND, &e);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e.byte_len), 2500U);
	td_expect(t.cq, 2, 0, XNIC_CQE_OP_SEND, NULL);
	/* nothing completes the third but its ACK (no timer within ~1 s) */
	KUNIT_EXPECT_FALSE(test, td_peek(t.cq, &e));
	wq_ack(&t, 104);
	td_expect(t.cq, 3, 0, XNIC_CQE_OP_SEND, NULL);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_tx_send), 3ULL);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_wire_retransmits), 0ULL);
	KUNIT_EXPECT_EQ(test, td_state(t.q), (u8)XNIC_QPS_RTS);
}

/*
 * Requests lost (the responder never answers): the timer expires and
 * everything from the oldest unacknowledged PSN is sent again.
 */
static void wreq_loss_timer(struct kunit *test)
{
	struct wq t;

	wq_up(&t, test, XNIC_QPT_RC, 0, WQ_MID_TO, 7, 7);
	wq_send(&t, 1, 8);
	wq_send(&t, 2, 8);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, 0, true, 8);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, 1, true, 8);
	/* go-back-N: both again */
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, 0, true, 8);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, 1, true, 8);
	/* counted once the frame is out: wait for them */
	KUNIT_EXPECT_TRUE(test,
			  wq_wait_ctr(&t, XNIC_SIM_CTR_wire_timeouts, 1));
	KUNIT_EXPECT_TRUE(test,
			  wq_wait_ctr(&t, XNIC_SIM_CTR_wire_retransmits, 2));
	wq_ack(&t, 1);
	td_expect(t.cq, 1, 0, XNIC_CQE_OP_SEND, NULL);
	td_expect(t.cq, 2, 0, XNIC_CQE_OP_SEND, NULL);
}

/* retry_cnt timeouts without progress: RETRY_EXC_ERR, ERR, flush. */
static void wreq_retry_exceeded(struct kunit *test)
{
	struct wq t;

	wq_up(&t, test, XNIC_QPT_RC, 0, WQ_SHORT_TO, 2, 7);
	wq_send(&t, 1, 8);
	wq_send(&t, 2, 8);
	td_expect(t.cq, 1, XNIC_CQE_RETRY_EXC_ERR, 0, NULL);
	td_expect(t.cq, 2, XNIC_CQE_WR_FLUSH_ERR, 0, NULL);
	KUNIT_EXPECT_EQ(test, td_state(t.q), (u8)XNIC_QPS_ERR);
	/* the first sending and two retries, of both packets */
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_wire_timeouts), 3ULL);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_wire_retransmits), 4ULL);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_err_retry_exc), 1ULL);
	KUNIT_EXPECT_EQ(test, tw_captured_count(t.c, 0), 6U);
}

/*
 * A PSN sequence NAK: what is before it completes, the rest is resent,
 * once however many copies of the NAK arrive.
 */
static void wreq_seq_nak(struct kunit *test)
{
	struct wq t;

	wq_up(&t, test, XNIC_QPT_RC, 7, WQ_LONG_TO, 7, 7);
	wq_send(&t, 1, 8);
	wq_send(&t, 2, 8);
	wq_send(&t, 3, 8);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, 7, true, 8);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, 8, true, 8);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, 9, true, 8);
	wq_nak(&t, 8, XNIC_SIM_AETH_NAK | XNIC_SIM_NAK_PSN_SEQ);
	td_expect(t.cq, 1, 0, XNIC_CQE_OP_SEND, NULL);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, 8, true, 8);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, 9, true, 8);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_wire_seq_naks_rcvd), 1ULL);
	KUNIT_EXPECT_TRUE(test,
			  wq_wait_ctr(&t, XNIC_SIM_CTR_wire_retransmits, 2));
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_wire_retransmits), 2ULL);
	/* a copy of the NAK (the wire duplicated it): no second go-back-N */
	wq_nak(&t, 8, XNIC_SIM_AETH_NAK | XNIC_SIM_NAK_PSN_SEQ);
	KUNIT_EXPECT_TRUE(test,
			  wq_wait_ctr(&t, XNIC_SIM_CTR_wire_seq_naks_rcvd, 2));
	wq_ack(&t, 9);
	td_expect(t.cq, 2, 0, XNIC_CQE_OP_SEND, NULL);
	td_expect(t.cq, 3, 0, XNIC_CQE_OP_SEND, NULL);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_wire_retransmits), 2ULL);
	KUNIT_EXPECT_EQ(test, tw_captured_count(t.c, 0), 0U);
}

/* An RNR NAK: a wait, the same PSN again, then success. */
static void wreq_rnr_then_ok(struct kunit *test)
{
	struct wq t;

	wq_up(&t, test, XNIC_QPT_RC, 0, WQ_LONG_TO, 7, 3);
	wq_send(&t, 1, 8);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, 0, true, 8);
	wq_nak(&t, 0, XNIC_SIM_AETH_RNR | 1);	/* 10 us */
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, 0, true, 8);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_wire_rnr_naks_rcvd), 1ULL);
	wq_ack(&t, 0);
	td_expect(t.cq, 1, 0, XNIC_CQE_OP_SEND, NULL);
}

/* rnr_retry RNR NAKs, then RNR_RETRY_EXC_ERR and ERR. */
static void wreq_rnr_exceeded(struct kunit *test)
{
	struct wq t;

	wq_up(&t, test, XNIC_QPT_RC, 0, WQ_LONG_TO, 7, 1);
	wq_send(&t, 1, 8);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, 0, true, 8);
	wq_nak(&t, 0, XNIC_SIM_AETH_RNR | 1);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, 0, true, 8);
	wq_nak(&t, 0, XNIC_SIM_AETH_RNR | 1);
	td_expect(t.cq, 1, XNIC_CQE_RNR_RETRY_EXC_ERR, 0, NULL);
	KUNIT_EXPECT_EQ(test, td_state(t.q), (u8)XNIC_QPS_ERR);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_wire_rnr_naks_rcvd), 2ULL);
}

/* A remote access NAK of the second WQE: the first completes, then it. */
static void wreq_rem_access(struct kunit *test)
{
	struct td_wr w = { .op = XNIC_OP_RDMA_WRITE, .wr_id = 1, .nsge = 1,
			   .raddr = 0x1000, .rkey = 0x4242 };
	struct xnic_sim_pkt p;
	struct wq t;

	wq_up(&t, test, XNIC_QPT_RC, 0, WQ_LONG_TO, 7, 7);
	w.sge[0] = td_sge(td_pa(t.buf), 16, TD_ALL_KEY);
	td_post(t.q, &w);	/* unsignaled */
	wq_send(&t, 2, 8);
	wq_frame(&t, &p);
	KUNIT_EXPECT_EQ(test, p.opcode,
			(u8)(XNIC_SIM_BTH_RC | XNIC_SIM_BTH_WRITE_ONLY));
	KUNIT_EXPECT_EQ(test, p.va, 0x1000ULL);
	KUNIT_EXPECT_EQ(test, p.rkey, 0x4242U);
	KUNIT_EXPECT_EQ(test, p.dma_len, 16U);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, 1, true, 8);
	wq_nak(&t, 1, XNIC_SIM_AETH_NAK | XNIC_SIM_NAK_REM_ACCESS);
	td_expect(t.cq, 2, XNIC_CQE_REM_ACCESS_ERR, 0, NULL);
	KUNIT_EXPECT_EQ(test, td_state(t.q), (u8)XNIC_QPS_ERR);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_wire_err_naks_rcvd), 1ULL);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_tx_rdma_write), 1ULL);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_err_rem_access), 1ULL);
}

/*
 * A READ of three responses whose middle one is lost: the last is
 * dropped and asks again at once for the rest, which completes it.
 */
static void wreq_read_lost_middle(struct kunit *test)
{
	struct td_wr w = { .op = XNIC_OP_RDMA_READ, .flags = XNIC_WQE_SIGNALED,
			   .wr_id = 1, .nsge = 2, .raddr = 0x10000,
			   .rkey = 0x777 };
	struct wq_resp r = { .syndrome = 0x1f };
	struct xnic_sim_pkt p;
	struct xnic_cqe e;
	struct wq t;
	u8 *src;
	u32 i;

	wq_up(&t, test, XNIC_QPT_RC, 0x10, WQ_MID_TO, 7, 7);
	src = kunit_kmalloc(test, 3000, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, src);
	for (i = 0; i < 3000; i++)
		src[i] = i * 13 + 1;
	/* two SGEs, split inside the second response */
	w.sge[0] = td_sge(td_pa(t.buf), 1500, TD_ALL_KEY);
	w.sge[1] = td_sge(td_pa(t.buf + 2 * PAGE_SIZE), 1500, TD_ALL_KEY);
	td_post(t.q, &w);
	wq_frame(&t, &p);
	KUNIT_EXPECT_EQ(test, p.opcode,
			(u8)(XNIC_SIM_BTH_RC | XNIC_SIM_BTH_READ_REQUEST));
	KUNIT_EXPECT_EQ(test, p.psn, 0x10U);
	KUNIT_EXPECT_EQ(test, p.va, 0x10000ULL);
	KUNIT_EXPECT_EQ(test, p.rkey, 0x777U);
	KUNIT_EXPECT_EQ(test, p.dma_len, 3000U);
	r.op = XNIC_SIM_BTH_READ_RESP_FIRST;
	r.psn = 0x10;
	r.data = src;
	r.len = 1024;
	wq_inject(&t, &r);
	r.op = XNIC_SIM_BTH_READ_RESP_LAST;
	r.psn = 0x12;
	r.data = src + 2048;
	r.len = 952;
	wq_inject(&t, &r);
	KUNIT_ASSERT_TRUE(test, wq_wait_ctr(&t, XNIC_SIM_CTR_wire_oos_drops, 1));
	/* asked again from the missing response on */
	wq_frame(&t, &p);
	KUNIT_EXPECT_EQ(test, p.opcode,
			(u8)(XNIC_SIM_BTH_RC | XNIC_SIM_BTH_READ_REQUEST));
	KUNIT_EXPECT_EQ(test, p.psn, 0x11U);
	KUNIT_EXPECT_EQ(test, p.va, 0x10000ULL + 1024);
	KUNIT_EXPECT_EQ(test, p.dma_len, 3000U - 1024);
	r.op = XNIC_SIM_BTH_READ_RESP_FIRST;
	r.psn = 0x11;
	r.data = src + 1024;
	r.len = 1024;
	wq_inject(&t, &r);
	r.op = XNIC_SIM_BTH_READ_RESP_LAST;
	r.psn = 0x12;
	r.data = src + 2048;
	r.len = 952;
	wq_inject(&t, &r);
	td_expect(t.cq, 1, 0, XNIC_CQE_OP_RDMA_READ, &e);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e.byte_len), 3000U);
	KUNIT_EXPECT_EQ(test, memcmp(t.buf, src, 1500), 0);
	KUNIT_EXPECT_EQ(test, memcmp(t.buf + 2 * PAGE_SIZE, src + 1500, 1500),
			0);
	/* the stale last response, again: a duplicate */
	wq_inject(&t, &r);
	KUNIT_EXPECT_TRUE(test,
			  wq_wait_ctr(&t, XNIC_SIM_CTR_wire_duplicates, 1));
}

/*
 * A READ of @len bytes into t->buf from remote 0x10000 at PSN @psn (path
 * MTU 1024), its request seen; @src filled with what the remote holds.
 */
static u8 *wq_read_start(struct wq *t, u32 psn, u32 len)
{
	struct td_wr w = { .op = XNIC_OP_RDMA_READ, .flags = XNIC_WQE_SIGNALED,
			   .wr_id = 7, .nsge = 1, .raddr = 0x10000,
			   .rkey = 0x777 };
	struct xnic_sim_pkt p;
	u8 *src;
	u32 i;

	src = kunit_kmalloc(t->test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(t->test, src);
	for (i = 0; i < len; i++)
		src[i] = i * 11 + 5;
	w.sge[0] = td_sge(td_pa(t->buf), len, TD_ALL_KEY);
	td_post(t->q, &w);
	wq_frame(t, &p);
	KUNIT_EXPECT_EQ(t->test, p.opcode,
			(u8)(XNIC_SIM_BTH_RC | XNIC_SIM_BTH_READ_REQUEST));
	KUNIT_EXPECT_EQ(t->test, p.psn, psn);
	return src;
}

/* Response @k (PSN @psn0 + @k) of a READ of @len bytes from @src. */
static void wq_read_resp(struct wq *t, const u8 *src, u32 len, u32 psn0,
			 u32 k)
{
	struct wq_resp r = { .syndrome = 0x1f, .psn = psn0 + k,
			     .data = src + k * 1024 };

	r.len = min_t(u32, len - k * 1024, 1024);
	r.op = k * 1024 + r.len == len ? XNIC_SIM_BTH_READ_RESP_LAST :
	       !k ? XNIC_SIM_BTH_READ_RESP_FIRST :
	       XNIC_SIM_BTH_READ_RESP_MIDDLE;
	wq_inject(t, &r);
}

/* The READ asked again from response @k: PSN, address, length. */
static void wq_expect_reread(struct wq *t, u32 psn0, u32 len, u32 k)
{
	struct xnic_sim_pkt p;

	wq_frame(t, &p);
	KUNIT_EXPECT_EQ(t->test, p.opcode,
			(u8)(XNIC_SIM_BTH_RC | XNIC_SIM_BTH_READ_REQUEST));
	KUNIT_EXPECT_EQ(t->test, p.psn, psn0 + k);
	KUNIT_EXPECT_EQ(t->test, p.va, 0x10000ULL + k * 1024);
	KUNIT_EXPECT_EQ(t->test, p.dma_len, len - k * 1024);
}

/*
 * A READ of four responses whose second is lost, without a timer
 * (timeout 0): the third asks again from the second PSN at once (a
 * timer could not), the new stream completes it with the data.
 */
static void wreq_read_gap_at_once(struct kunit *test)
{
	const u32 psn = 0x40, len = 4000;
	struct xnic_cqe e;
	struct wq t;
	u8 *src;

	wq_up(&t, test, XNIC_QPT_RC, psn, 0, 7, 7);
	src = wq_read_start(&t, psn, len);
	wq_read_resp(&t, src, len, psn, 0);
	wq_read_resp(&t, src, len, psn, 2);
	wq_expect_reread(&t, psn, len, 1);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_wire_timeouts), 0ULL);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_retries), 1ULL);
	wq_read_resp(&t, src, len, psn, 1);
	wq_read_resp(&t, src, len, psn, 2);
	wq_read_resp(&t, src, len, psn, 3);
	td_expect(t.cq, 7, 0, XNIC_CQE_OP_RDMA_READ, &e);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e.byte_len), len);
	KUNIT_EXPECT_EQ(test, memcmp(t.buf, src, len), 0);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_wire_retransmits), 1ULL);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_wire_oos_drops), 1ULL);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_wire_timeouts), 0ULL);
	KUNIT_EXPECT_EQ(test, tw_captured_count(t.c, 0), 0U);
	KUNIT_EXPECT_EQ(test, td_state(t.q), (u8)XNIC_QPS_RTS);
}

/*
 * Once per gap: three responses of the stale stream beyond a lost one
 * ask again once; after progress (the missing one came) a new gap asks
 * again, once; then the READ completes.
 */
static void wreq_read_gap_once(struct kunit *test)
{
	const u32 psn = 0x80, len = 5000;
	struct xnic_cqe e;
	struct wq t;
	u8 *src;

	wq_up(&t, test, XNIC_QPT_RC, psn, 0, 7, 7);
	src = wq_read_start(&t, psn, len);
	wq_read_resp(&t, src, len, psn, 0);
	wq_read_resp(&t, src, len, psn, 2);
	wq_read_resp(&t, src, len, psn, 3);
	wq_read_resp(&t, src, len, psn, 4);
	KUNIT_ASSERT_TRUE(test,
			  wq_wait_ctr(&t, XNIC_SIM_CTR_wire_oos_drops, 3));
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_retries), 1ULL);
	wq_expect_reread(&t, psn, len, 1);
	/* progress, then the next response lost: a new gap */
	wq_read_resp(&t, src, len, psn, 1);
	wq_read_resp(&t, src, len, psn, 3);
	wq_read_resp(&t, src, len, psn, 4);
	KUNIT_ASSERT_TRUE(test,
			  wq_wait_ctr(&t, XNIC_SIM_CTR_wire_oos_drops, 5));
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_retries), 2ULL);
	wq_expect_reread(&t, psn, len, 2);
	wq_read_resp(&t, src, len, psn, 2);
	wq_read_resp(&t, src, len, psn, 3);
	wq_read_resp(&t, src, len, psn, 4);
	td_expect(t.cq, 7, 0, XNIC_CQE_OP_RDMA_READ, &e);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e.byte_len), len);
	KUNIT_EXPECT_EQ(test, memcmp(t.buf, src, len), 0);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_retries), 2ULL);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_wire_retransmits), 2ULL);
	KUNIT_EXPECT_EQ(test, tw_captured_count(t.c, 0), 0U);
}

/*
 * A gap's request takes one of retry_cnt, as a sequence NAK: with
 * retry_cnt 1 the gap and a timeout end the READ in RETRY_EXC_ERR after
 * one request again (whichever comes first), not two.
 */
static void wreq_read_gap_retry_cnt(struct kunit *test)
{
	const u32 psn = 0x90, len = 3000;
	struct wq t;
	u8 *src;

	wq_up(&t, test, XNIC_QPT_RC, psn, WQ_MID_TO, 1, 7);
	src = wq_read_start(&t, psn, len);
	wq_read_resp(&t, src, len, psn, 2);
	td_expect(t.cq, 7, XNIC_CQE_RETRY_EXC_ERR, 0, NULL);
	KUNIT_EXPECT_EQ(test, td_state(t.q), (u8)XNIC_QPS_ERR);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_retries), 1ULL);
	KUNIT_EXPECT_EQ(test, tw_captured_count(t.c, 0), 1U);
}

/* An atomic: its AtomicETH out, the original value of its ACK in. */
static void wreq_atomic_ack(struct kunit *test)
{
	struct td_wr w = { .op = XNIC_OP_ATOMIC_FETCH_AND_ADD,
			   .flags = XNIC_WQE_SIGNALED, .wr_id = 5, .nsge = 1,
			   .raddr = 0x2008, .rkey = 0x999, .cmp = 3 };
	struct wq_resp r = { .op = XNIC_SIM_BTH_ATOMIC_ACK, .syndrome = 0x1f,
			     .orig = 0x1122334455667788ULL };
	struct xnic_sim_pkt p;
	struct xnic_cqe e;
	struct wq t;
	u64 v;

	wq_up(&t, test, XNIC_QPT_RC, 0xfffffe, WQ_LONG_TO, 7, 7);
	w.sge[0] = td_sge(td_pa(t.buf + 8), 8, TD_ALL_KEY);
	td_post(t.q, &w);
	wq_frame(&t, &p);
	KUNIT_EXPECT_EQ(test, p.opcode,
			(u8)(XNIC_SIM_BTH_RC | XNIC_SIM_BTH_FETCH_ADD));
	KUNIT_EXPECT_EQ(test, p.va, 0x2008ULL);
	KUNIT_EXPECT_EQ(test, p.rkey, 0x999U);
	KUNIT_EXPECT_EQ(test, p.swap_add, 3ULL);
	KUNIT_EXPECT_TRUE(test, p.ackreq);
	r.psn = p.psn;
	wq_inject(&t, &r);
	td_expect(t.cq, 5, 0, XNIC_CQE_OP_FETCH_ADD, &e);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e.byte_len), 8U);
	memcpy(&v, t.buf + 8, 8);
	KUNIT_EXPECT_EQ(test, v, 0x1122334455667788ULL);
}

/* A signaled FETCH_ADD of remote @raddr into 8 bytes at t->buf + @off. */
static void wq_fadd(struct wq *t, u64 wr_id, u64 raddr, u32 off)
{
	struct td_wr w = { .op = XNIC_OP_ATOMIC_FETCH_AND_ADD,
			   .flags = XNIC_WQE_SIGNALED, .wr_id = wr_id,
			   .nsge = 1, .raddr = raddr, .rkey = 0x999,
			   .cmp = 1 };

	w.sge[0] = td_sge(td_pa(t->buf + off), 8, TD_ALL_KEY);
	td_post(t->q, &w);
}

/* The next frame is a FETCH_ADD at @psn of remote @raddr. */
static void wq_expect_fadd(struct wq *t, u32 psn, u64 raddr)
{
	struct xnic_sim_pkt p;

	wq_frame(t, &p);
	KUNIT_EXPECT_EQ(t->test, p.opcode,
			(u8)(XNIC_SIM_BTH_RC | XNIC_SIM_BTH_FETCH_ADD));
	KUNIT_EXPECT_EQ(t->test, p.psn, psn);
	KUNIT_EXPECT_EQ(t->test, p.va, raddr);
}

/* The scripted responder's atomic ACK at @psn, original value @orig. */
static void wq_atomic_ack(struct wq *t, u32 psn, u64 orig)
{
	struct wq_resp r = { .op = XNIC_SIM_BTH_ATOMIC_ACK, .psn = psn,
			     .syndrome = 0x1f, .orig = orig };

	wq_inject(t, &r);
}

static u64 wq_u64(struct wq *t, u32 off)
{
	u64 v;

	memcpy(&v, t->buf + off, 8);
	return v;
}

/* The READ response ONLY at @psn of a READ of @len (<= 1024) bytes. */
static void wq_read_only(struct wq *t, const u8 *src, u32 len, u32 psn)
{
	struct wq_resp r = { .op = XNIC_SIM_BTH_READ_RESP_ONLY, .psn = psn,
			     .syndrome = 0x1f, .data = src, .len = len };

	wq_inject(t, &r);
}

/*
 * The atomic ACK of a FETCH_ADD behind a READ whose response was lost,
 * without a timer (timeout 0): go-back-N at once (rxe's check_psn(): a
 * response beyond a pending READ, COMPST_ERROR_RETRY), the READ and the
 * FETCH_ADD asked again; their answers complete both, data and original
 * value in place, one retry counted.
 */
static void wreq_atomic_gap_read(struct kunit *test)
{
	const u32 psn = 0x200, len = 1000;
	struct xnic_cqe e;
	struct wq t;
	u8 *src;

	wq_up(&t, test, XNIC_QPT_RC, psn, 0, 7, 7);
	src = wq_read_start(&t, psn, len);
	wq_fadd(&t, 8, 0x3000, 2048);
	wq_expect_fadd(&t, psn + 1, 0x3000);
	/* the READ's response lost: the FETCH_ADD's ACK comes first */
	wq_atomic_ack(&t, psn + 1, 0x4455);
	wq_expect_reread(&t, psn, len, 0);
	wq_expect_fadd(&t, psn + 1, 0x3000);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_retries), 1ULL);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_wire_oos_drops), 1ULL);
	KUNIT_EXPECT_FALSE(test, td_peek(t.cq, &e));
	wq_read_only(&t, src, len, psn);
	td_expect(t.cq, 7, 0, XNIC_CQE_OP_RDMA_READ, &e);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e.byte_len), len);
	KUNIT_EXPECT_EQ(test, memcmp(t.buf, src, len), 0);
	wq_atomic_ack(&t, psn + 1, 0x4455);
	td_expect(t.cq, 8, 0, XNIC_CQE_OP_FETCH_ADD, &e);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e.byte_len), 8U);
	KUNIT_EXPECT_EQ(test, wq_u64(&t, 2048), 0x4455ULL);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_retries), 1ULL);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_wire_retransmits), 2ULL);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_wire_timeouts), 0ULL);
	td_state(t.q);
	KUNIT_EXPECT_EQ(test, tw_captured_count(t.c, 0), 0U);
	KUNIT_EXPECT_EQ(test, td_state(t.q), (u8)XNIC_QPS_RTS);
}

/*
 * Three FETCH_ADDs, no timer: the second's ACK with the first's lost asks
 * again from the first at once; the third's ACK of the same stale stream
 * asks nothing more (once per gap).  The first's ACK is progress; the
 * third's ACK then, with the second's lost, is a new gap: asked again
 * from the second, a second retry.  All complete with their values.
 */
static void wreq_atomic_gap_atomic(struct kunit *test)
{
	const u32 psn = 0x300;
	struct wq t;
	u32 i;

	wq_up(&t, test, XNIC_QPT_RC, psn, 0, 7, 7);
	for (i = 0; i < 3; i++)
		wq_fadd(&t, 1 + i, 0x3000 + 8 * i, 64 * i);
	for (i = 0; i < 3; i++)
		wq_expect_fadd(&t, psn + i, 0x3000 + 8 * i);
	wq_atomic_ack(&t, psn + 1, 0x22);
	for (i = 0; i < 3; i++)
		wq_expect_fadd(&t, psn + i, 0x3000 + 8 * i);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_retries), 1ULL);
	/* the rest of the stale stream: dropped, nothing asked */
	wq_atomic_ack(&t, psn + 2, 0x33);
	KUNIT_ASSERT_TRUE(test,
			  wq_wait_ctr(&t, XNIC_SIM_CTR_wire_oos_drops, 2));
	td_state(t.q);
	KUNIT_EXPECT_EQ(test, tw_captured_count(t.c, 0), 0U);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_retries), 1ULL);
	/* progress, then the second's ACK lost: a new gap */
	wq_atomic_ack(&t, psn, 0x11);
	td_expect(t.cq, 1, 0, XNIC_CQE_OP_FETCH_ADD, NULL);
	wq_atomic_ack(&t, psn + 2, 0x33);
	wq_expect_fadd(&t, psn + 1, 0x3000 + 8);
	wq_expect_fadd(&t, psn + 2, 0x3000 + 16);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_retries), 2ULL);
	wq_atomic_ack(&t, psn + 1, 0x22);
	wq_atomic_ack(&t, psn + 2, 0x33);
	td_expect(t.cq, 2, 0, XNIC_CQE_OP_FETCH_ADD, NULL);
	td_expect(t.cq, 3, 0, XNIC_CQE_OP_FETCH_ADD, NULL);
	KUNIT_EXPECT_EQ(test, wq_u64(&t, 0), 0x11ULL);
	KUNIT_EXPECT_EQ(test, wq_u64(&t, 64), 0x22ULL);
	KUNIT_EXPECT_EQ(test, wq_u64(&t, 128), 0x33ULL);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_retries), 2ULL);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_wire_retransmits), 5ULL);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_wire_oos_drops), 3ULL);
	td_state(t.q);
	KUNIT_EXPECT_EQ(test, tw_captured_count(t.c, 0), 0U);
	KUNIT_EXPECT_EQ(test, td_state(t.q), (u8)XNIC_QPS_RTS);
}

/*
 * The gap an atomic ACK shows is a transport retry: with retry_cnt 0 and
 * no timer it ends the READ before it in RETRY_EXC_ERR at once (nothing
 * else could: no timer), nothing asked again, the FETCH_ADD flushed.
 */
static void wreq_atomic_gap_retry_none(struct kunit *test)
{
	const u32 psn = 0x400;
	struct wq t;

	wq_up(&t, test, XNIC_QPT_RC, psn, 0, 0, 7);
	wq_read_start(&t, psn, 100);
	wq_fadd(&t, 8, 0x3000, 2048);
	wq_expect_fadd(&t, psn + 1, 0x3000);
	wq_atomic_ack(&t, psn + 1, 0x4455);
	td_expect(t.cq, 7, XNIC_CQE_RETRY_EXC_ERR, 0, NULL);
	td_expect(t.cq, 8, XNIC_CQE_WR_FLUSH_ERR, 0, NULL);
	KUNIT_EXPECT_EQ(test, td_state(t.q), (u8)XNIC_QPS_ERR);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_retries), 0ULL);
	KUNIT_EXPECT_EQ(test, tw_captured_count(t.c, 0), 0U);
	KUNIT_EXPECT_EQ(test, wq_u64(&t, 2048), 0ULL);
}

/*
 * As a READ response's gap (wreq_read_gap_retry_cnt): with retry_cnt 1
 * the atomic ACK's gap and a timeout end the READ in RETRY_EXC_ERR after
 * one request again of both WQEs (whichever comes first), not two.
 */
static void wreq_atomic_gap_retry_cnt(struct kunit *test)
{
	const u32 psn = 0x500;
	struct wq t;

	wq_up(&t, test, XNIC_QPT_RC, psn, WQ_MID_TO, 1, 7);
	wq_read_start(&t, psn, 3000);		/* 3 PSNs */
	wq_fadd(&t, 8, 0x3000, 2048);
	wq_expect_fadd(&t, psn + 3, 0x3000);
	wq_atomic_ack(&t, psn + 3, 0x4455);
	td_expect(t.cq, 7, XNIC_CQE_RETRY_EXC_ERR, 0, NULL);
	td_expect(t.cq, 8, XNIC_CQE_WR_FLUSH_ERR, 0, NULL);
	KUNIT_EXPECT_EQ(test, td_state(t.q), (u8)XNIC_QPS_ERR);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_retries), 1ULL);
	KUNIT_EXPECT_EQ(test, tw_captured_count(t.c, 0), 2U);
}

/* Three signaled SENDs of 8 bytes, @id..@id + 2, seen at @psn.. */
static void wq_sends3(struct wq *t, u64 id, u32 psn)
{
	u32 i;

	for (i = 0; i < 3; i++)
		wq_send(t, id + i, 8);
	for (i = 0; i < 3; i++)
		wq_expect_send(t, XNIC_SIM_BTH_SEND_ONLY, psn + i, true, 8);
}

/*
 * Behind a READ at @psn whose response was lost, the ACKs of the three
 * SENDs after it, in order, then the first again (counted a duplicate:
 * all of them handled); the READ and the SENDs asked again once.
 */
static void wq_ack_gap(struct wq *t, u32 psn, u32 len, u64 dups)
{
	u32 i;

	for (i = 1; i <= 3; i++)
		wq_ack(t, psn + i);
	wq_ack(t, psn + 1);
	KUNIT_ASSERT_TRUE_MSG(t->test,
			      wq_wait_ctr(t, XNIC_SIM_CTR_wire_duplicates,
					  dups),
			      "ACKs not all taken as beyond the gap: QP state %u",
			      td_state(t->q));
	wq_expect_reread(t, psn, len, 0);
	for (i = 1; i <= 3; i++)
		wq_expect_send(t, XNIC_SIM_BTH_SEND_ONLY, psn + i, true, 8);
}

/*
 * A plain ACK beyond a READ whose response was lost asks again at once
 * (rxe's check_psn(): COMPST_ERROR_RETRY), once per gap as a READ
 * response beyond a gap (rxe's comp.started_retry): of three ACKs of
 * later SENDs, no timer, only the first asks again -- one retry, one of
 * retry_cnt 1, not three (the second would end the READ in
 * RETRY_EXC_ERR).  The READ's response is progress: it completes the
 * READ and the SENDs, and resets the count; a second READ lost, with
 * ACKs beyond it, is a new gap: one more retry, again of retry_cnt 1.
 */
static void wreq_ack_gap_once(struct kunit *test)
{
	const u32 psn = 0x600, len = 100;
	struct xnic_cqe e;
	struct wq t;
	u8 *src;

	wq_up(&t, test, XNIC_QPT_RC, psn, 0, 1, 7);
	src = wq_read_start(&t, psn, len);
	wq_sends3(&t, 1, psn + 1);
	wq_ack_gap(&t, psn, len, 1);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_retries), 1ULL);
	KUNIT_EXPECT_TRUE(test,
			  wq_wait_ctr(&t, XNIC_SIM_CTR_wire_retransmits, 4));
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_wire_retransmits), 4ULL);
	KUNIT_EXPECT_FALSE(test, td_peek(t.cq, &e));
	wq_read_only(&t, src, len, psn);
	td_expect(t.cq, 7, 0, XNIC_CQE_OP_RDMA_READ, &e);
	KUNIT_EXPECT_EQ(test, memcmp(t.buf, src, len), 0);
	td_expect(t.cq, 1, 0, XNIC_CQE_OP_SEND, NULL);
	td_expect(t.cq, 2, 0, XNIC_CQE_OP_SEND, NULL);
	td_expect(t.cq, 3, 0, XNIC_CQE_OP_SEND, NULL);

	/* a second gap, after progress */
	src = wq_read_start(&t, psn + 4, len);
	wq_sends3(&t, 4, psn + 5);
	wq_ack_gap(&t, psn + 4, len, 2);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_retries), 2ULL);
	wq_read_only(&t, src, len, psn + 4);
	td_expect(t.cq, 7, 0, XNIC_CQE_OP_RDMA_READ, NULL);
	td_expect(t.cq, 4, 0, XNIC_CQE_OP_SEND, NULL);
	td_expect(t.cq, 5, 0, XNIC_CQE_OP_SEND, NULL);
	td_expect(t.cq, 6, 0, XNIC_CQE_OP_SEND, NULL);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_retries), 2ULL);
	KUNIT_EXPECT_TRUE(test,
			  wq_wait_ctr(&t, XNIC_SIM_CTR_wire_retransmits, 8));
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_wire_retransmits), 8ULL);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_wire_timeouts), 0ULL);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_err_retry_exc), 0ULL);
	td_state(t.q);
	KUNIT_EXPECT_EQ(test, tw_captured_count(t.c, 0), 0U);
	KUNIT_EXPECT_EQ(test, td_state(t.q), (u8)XNIC_QPS_RTS);
}

/*
 * The gap's one retry still takes one of retry_cnt: with retry_cnt 1,
 * the ACKs beyond a READ whose response never comes and the timer end it
 * in RETRY_EXC_ERR after one request again (whichever comes first), the
 * SENDs behind it flushed.
 */
static void wreq_ack_gap_retry_exc(struct kunit *test)
{
	const u32 psn = 0x700;
	struct wq t;
	u32 i;

	wq_up(&t, test, XNIC_QPT_RC, psn, WQ_MID_TO, 1, 7);
	wq_read_start(&t, psn, 100);
	wq_sends3(&t, 1, psn + 1);
	for (i = 1; i <= 3; i++)
		wq_ack(&t, psn + i);
	td_expect(t.cq, 7, XNIC_CQE_RETRY_EXC_ERR, 0, NULL);
	td_expect(t.cq, 1, XNIC_CQE_WR_FLUSH_ERR, 0, NULL);
	td_expect(t.cq, 2, XNIC_CQE_WR_FLUSH_ERR, 0, NULL);
	td_expect(t.cq, 3, XNIC_CQE_WR_FLUSH_ERR, 0, NULL);
	KUNIT_EXPECT_EQ(test, td_state(t.q), (u8)XNIC_QPS_ERR);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_retries), 1ULL);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_err_retry_exc), 1ULL);
}

/*
 * Duplicates and stale responses change nothing: an ACK again, an ACK
 * of a PSN never sent, a READ response for no READ.
 */
static void wreq_dup_stale(struct kunit *test)
{
	struct wq_resp r = { .op = XNIC_SIM_BTH_READ_RESP_ONLY, .psn = 1,
			     .syndrome = 0x1f };
	struct xnic_cqe e;
	struct wq t;

	wq_up(&t, test, XNIC_QPT_RC, 0, WQ_LONG_TO, 7, 7);
	wq_send(&t, 1, 8);
	wq_send(&t, 2, 8);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, 0, true, 8);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, 1, true, 8);
	wq_ack(&t, 0);
	td_expect(t.cq, 1, 0, XNIC_CQE_OP_SEND, NULL);
	wq_ack(&t, 0);
	KUNIT_ASSERT_TRUE(test,
			  wq_wait_ctr(&t, XNIC_SIM_CTR_wire_duplicates, 1));
	wq_ack(&t, 5);
	KUNIT_ASSERT_TRUE(test,
			  wq_wait_ctr(&t, XNIC_SIM_CTR_wire_oos_drops, 1));
	wq_inject(&t, &r);
	KUNIT_ASSERT_TRUE(test,
			  wq_wait_ctr(&t, XNIC_SIM_CTR_wire_oos_drops, 2));
	KUNIT_EXPECT_FALSE(test, td_peek(t.cq, &e));
	wq_ack(&t, 1);
	td_expect(t.cq, 2, 0, XNIC_CQE_OP_SEND, NULL);
	KUNIT_EXPECT_EQ(test, td_state(t.q), (u8)XNIC_QPS_RTS);
}

/* PSNs wrap at 2^24; one ACK past the wrap acknowledges all. */
static void wreq_psn_wrap(struct kunit *test)
{
	struct wq t;

	wq_up(&t, test, XNIC_QPT_RC, 0xfffffe, WQ_LONG_TO, 7, 7);
	wq_send(&t, 1, 8);
	wq_send(&t, 2, 2048);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, 0xfffffe, true, 8);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_FIRST, 0xffffff, false, 1024);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_LAST, 0, true, 1024);
	/* an ACK "before" the start, across the wrap: stale */
	wq_ack(&t, 0xfffff0);
	KUNIT_ASSERT_TRUE(test,
			  wq_wait_ctr(&t, XNIC_SIM_CTR_wire_duplicates, 1));
	wq_ack(&t, 0);
	td_expect(t.cq, 1, 0, XNIC_CQE_OP_SEND, NULL);
	td_expect(t.cq, 2, 0, XNIC_CQE_OP_SEND, NULL);
}

/* UD to the wire: one SEND_ONLY_IMM packet with its DETH. */
static void wreq_ud_frame(struct kunit *test)
{
	struct td_wr w = { .op = XNIC_OP_SEND_WITH_IMM,
			   .flags = XNIC_WQE_SIGNALED, .wr_id = 9,
			   .imm = cpu_to_le32(0xa1b2c3d4), .nsge = 1,
			   .dqpn = 0x77, .qkey = 0x1234, .hop_limit = 5,
			   .tclass = 0x20 };
	struct xnic_sim_pkt p;
	struct wq t;
	u32 i;

	wq_up(&t, test, XNIC_QPT_UD, 0x42, WQ_LONG_TO, 7, 7);
	for (i = 0; i < 300; i++)
		t.buf[i] = i ^ 0x5a;
	w.sge[0] = td_sge(td_pa(t.buf), 300, TD_ALL_KEY);
	w.dgid = tw_sim(t.c, 1)->gid;
	td_post(t.q, &w);
	td_expect(t.cq, 9, 0, XNIC_CQE_OP_SEND, NULL);
	wq_frame(&t, &p);
	KUNIT_EXPECT_EQ(test, p.opcode,
			(u8)(XNIC_SIM_BTH_UD | XNIC_SIM_BTH_SEND_ONLY_IMM));
	KUNIT_EXPECT_EQ(test, p.dqpn, 0x77U);
	KUNIT_EXPECT_EQ(test, p.sqpn, (u32)WQ_QPN);
	KUNIT_EXPECT_EQ(test, p.qkey, 0x1234U);
	KUNIT_EXPECT_EQ(test, p.psn, 0x42U);
	KUNIT_EXPECT_EQ(test, p.hop_limit, 5);
	KUNIT_EXPECT_EQ(test, p.tclass, 0x20);
	KUNIT_EXPECT_EQ(test, (__force u32)p.imm,
			(__force u32)cpu_to_le32(0xa1b2c3d4));
	KUNIT_EXPECT_EQ(test, memcmp(p.sgid, tw_sim(t.c, 0)->gid, 16), 0);
	KUNIT_EXPECT_EQ(test, memcmp(p.dgid, tw_sim(t.c, 1)->gid, 16), 0);
	KUNIT_ASSERT_EQ(test, p.paylen, 300U);
	KUNIT_EXPECT_EQ(test, memcmp(p.payload, t.buf, 300), 0);
}

/*
 * End to end: one READ of ten responses from an unaligned address of an
 * MTT MR into two SGEs, with td_connect()'s retries (timeout 1: the
 * timer's floor, retry_cnt 2).
 */
static void wreq_e2e_read(struct kunit *test)
{
	struct tw_ctx *c = tw_ctx_up(test);
	struct td_dev *da = &c->td->dev[0], *db = &c->td->dev[1];
	struct td_cq *acq = td_cq(da, 1, 6, false);
	struct td_cq *bcq = td_cq(db, 2, 6, false);
	struct td_qp *a = td_qp(da, 3, XNIC_QPT_RC, TD_PD, acq, acq, 0, 0,
				XNIC_NO_SRQ);
	struct td_qp *b = td_qp(db, 4, XNIC_QPT_RC, TD_PD, bcq, bcq, 0, 0,
				XNIC_NO_SRQ);
	u64 iova = 0x7000000000000800ULL;
	struct td_mr *m = td_mr(db, 9 << 8 | 0x5a, TD_PD, TD_ACCESS, 4, iova,
				true);
	u32 len = 3 * PAGE_SIZE - 0x800, i;
	u8 *dst = kunit_kzalloc(test, len, GFP_KERNEL);
	struct td_wr w = { .op = XNIC_OP_RDMA_READ,
			   .flags = XNIC_WQE_SIGNALED, .wr_id = 0xa1,
			   .raddr = iova + 1, .rkey = m->key, .nsge = 2 };
	struct xnic_cqe e = {};

	KUNIT_ASSERT_NOT_NULL(test, dst);
	for (i = 0; i < len; i++)
		*td_mr_byte(m, iova + i) = i * 5 + 3;
	td_connect(a, b, 3);
	td_connect(b, a, 3);
	w.sge[0] = td_sge(td_pa(dst), 4097, TD_ALL_KEY);
	w.sge[1] = td_sge(td_pa(dst + 4097), len - 4098, TD_ALL_KEY);
	td_post(a, &w);
	KUNIT_EXPECT_TRUE(test, td_poll(acq, &e, TD_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, e.status, 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e.byte_len), len - 1);
	for (i = 0; i < len - 1; i++)
		if (dst[i] != *td_mr_byte(m, iova + 1 + i))
			break;
	KUNIT_EXPECT_EQ(test, i, len - 1);
}

/*
 * End to end, xnic to xnic (the responder: xnic_sim_wresp.c): every
 * opcode of td_rc_ops(), data checked, over a wire without faults.
 */
static void wreq_e2e_ops(struct kunit *test)
{
	struct tw_ctx *c = tw_ctx_up(test);

	td_rc_ops(test, &c->td->dev[0], &c->td->dev[1], 8);
	KUNIT_EXPECT_GT(test, td_ctr(&c->td->dev[0],
				     XNIC_SIM_CTR_wire_tx_packets), 0ULL);
}

/* RESET -> RTS of @a towards @b over the wire, retries as given. */
static void wq_pair_connect(struct td_qp *a, struct td_qp *b, u8 timeout,
			    u8 retry)
{
	struct kunit *test = a->d->test;
	struct xnic_cmd_modify_qp m = {};

	m.access = cpu_to_le32(TD_ACCESS);
	m.port_num = 1;
	KUNIT_ASSERT_EQ(test, td_modify(a, &m, XNIC_QPS_INIT,
					XNIC_QP_MOD_ACCESS | XNIC_QP_MOD_PORT),
			(u32)XNIC_CMD_OK);
	memset(&m, 0, sizeof(m));
	m.path_mtu = XNIC_MTU_1024;
	m.min_rnr_timer = 1;
	m.max_dest_rd_atomic = 16;
	memcpy(m.dgid, b->d->sim->gid, 16);
	m.dest_qpn = cpu_to_le32(b->qpn);
	KUNIT_ASSERT_EQ(test, td_modify(a, &m, XNIC_QPS_RTR,
					XNIC_QP_MOD_AV | XNIC_QP_MOD_PATH_MTU |
					XNIC_QP_MOD_DEST_QPN | XNIC_QP_MOD_RQ_PSN |
					XNIC_QP_MOD_MIN_RNR_TIMER |
					XNIC_QP_MOD_MAX_DEST_RD_ATOMIC),
			(u32)XNIC_CMD_OK);
	memset(&m, 0, sizeof(m));
	m.timeout = timeout;
	m.retry_cnt = retry;
	m.rnr_retry = 7;
	m.max_rd_atomic = 16;
	KUNIT_ASSERT_EQ(test, td_modify(a, &m, XNIC_QPS_RTS,
					XNIC_QP_MOD_TIMEOUT | XNIC_QP_MOD_RETRY_CNT |
					XNIC_QP_MOD_RNR_RETRY | XNIC_QP_MOD_SQ_PSN |
					XNIC_QP_MOD_MAX_RD_ATOMIC),
			(u32)XNIC_CMD_OK);
}

/*
 * End to end on a lossy wire: 10% of the RoCE frames each way dropped,
 * 5% duplicated, 5% reordered.  WRITEs of 3 packets and READs back:
 * every one completes, in order, with the data; frames were resent.
 */
static void wreq_e2e_lossy(struct kunit *test)
{
	struct tw_ctx *c = tw_ctx_up(test);
	struct td_dev *da = &c->td->dev[0], *db = &c->td->dev[1];
	struct td_cq *acq = td_cq(da, 1, 8, false);
	struct td_cq *bcq = td_cq(db, 2, 8, false);
	struct td_qp *a = td_qp(da, 3, XNIC_QPT_RC, TD_PD, acq, acq, 0, 0,
				XNIC_NO_SRQ);
	struct td_qp *b = td_qp(db, 4, XNIC_QPT_RC, TD_PD, bcq, bcq, 0, 0,
				XNIC_NO_SRQ);
	u64 iova = 0x7000000000000000ULL;
	struct td_mr *m = td_mr(db, 9 << 8 | 0x11, TD_PD, TD_ACCESS, 8, iova,
				true);
	u32 len = 2500, n = 12, i, k;
	u8 *src = kunit_kmalloc(test, len * n, GFP_KERNEL);
	u8 *back = kunit_kzalloc(test, len * n, GFP_KERNEL);
	struct td_wr w = {};
	struct xnic_cqe e;

	KUNIT_ASSERT_NOT_NULL(test, src);
	KUNIT_ASSERT_NOT_NULL(test, back);
	for (i = 0; i < len * n; i++)
		src[i] = i * 31 + 7;
	wq_pair_connect(a, b, WQ_SHORT_TO, 7);
	wq_pair_connect(b, a, WQ_SHORT_TO, 7);
	for (k = 0; k < 2; k++) {
		tw_filter(c, k, tw_is_roce);
		tw_rates(c, k, 100, 0, 50, 50, 1234 + k);
	}
	for (i = 0; i < n; i++) {
		w = (struct td_wr) { .op = XNIC_OP_RDMA_WRITE,
				     .flags = XNIC_WQE_SIGNALED, .wr_id = i,
				     .nsge = 1, .raddr = iova + i * len,
				     .rkey = m->key };
		w.sge[0] = td_sge(td_pa(src + i * len), len, TD_ALL_KEY);
		td_post(a, &w);
		td_expect(acq, i, 0, XNIC_CQE_OP_RDMA_WRITE, NULL);
		w.op = XNIC_OP_RDMA_READ;
		w.wr_id = 1000 + i;
		w.sge[0] = td_sge(td_pa(back + i * len), len, TD_ALL_KEY);
		td_post(a, &w);
		td_expect(acq, 1000 + i, 0, XNIC_CQE_OP_RDMA_READ, &e);
		KUNIT_EXPECT_EQ(test, le32_to_cpu(e.byte_len), len);
	}
	for (i = 0; i < len * n; i++)
		if (*td_mr_byte(m, iova + i) != src[i])
			break;
	KUNIT_EXPECT_EQ(test, i, len * n);
	KUNIT_EXPECT_EQ(test, memcmp(back, src, len * n), 0);
	KUNIT_EXPECT_GT(test, td_ctr(da, XNIC_SIM_CTR_wire_retransmits), 0ULL);
	KUNIT_EXPECT_EQ(test, td_state(a), (u8)XNIC_QPS_RTS);
}

/*
 * MODIFY_QP of device 0's QP, staying in (or going to) @state: the
 * command's status.
 */
static u32 wq_modify(struct wq *t, struct xnic_cmd_modify_qp *m, u8 state,
		     u32 mask)
{
	return td_modify(t->q, m, state, mask);
}

/*
 * Every frame device 0 sent until now, once the engine pass that sent
 * them ended (a command waits for it): each must be a SEND_ONLY at @psn
 * (a retransmission); Return: how many there were.
 */
static u32 wq_only_resends(struct wq *t, u32 psn)
{
	struct xnic_sim_pkt p;
	struct sk_buff *skb;
	u32 n = 0;

	td_state(t->q);
	while ((skb = tw_captured(t->c, 0))) {
		if (xnic_sim_pkt_parse(skb->data, skb->len, &p) !=
		    XNIC_SIM_DROP_NONE)
			continue;
		KUNIT_EXPECT_EQ(t->test, p.psn, psn);
		KUNIT_EXPECT_EQ(t->test, p.opcode,
				(u8)(XNIC_SIM_BTH_RC | XNIC_SIM_BTH_SEND_ONLY));
		n++;
	}
	return n;
}

/* A signaled SEND of @len bytes of t->buf, written, its doorbell not rung */
static void wq_write_send(struct wq *t, u64 wr_id, u32 len)
{
	struct td_wr w = { .op = XNIC_OP_SEND, .flags = XNIC_WQE_SIGNALED,
			   .wr_id = wr_id, .nsge = 1 };

	w.sge[0] = td_sge(td_pa(t->buf), len, TD_ALL_KEY);
	td_write_wqe(t->q, &w);
}

/*
 * A 2 GiB MR (iova 0, local write) of one 64 KiB chunk: its 2^15 MTT
 * entries all name the same chunk, so that a WQE of 2^31 bytes (the
 * largest message) has local memory at every offset.  Return: the chunk.
 */
#define WQ_BIG_LEN	BIT(31)
#define WQ_BIG_SHIFT	16
#define WQ_BIG_KEY	(7 << 8 | 0x42)
#define WQ_BIG_PKTS	BIT(23)		/* its packets at path MTU 256 */

static u8 *wq_big_mr_on(struct kunit *test, struct td_dev *d, u32 access)
{
	u32 n = WQ_BIG_LEN >> WQ_BIG_SHIFT, i;
	struct xnic_cmd_reg_mr in = {};
	u64 mtt_dma, chunk_dma;
	__le64 *mtt = kt_dma(test, n * sizeof(u64), &mtt_dma);
	u8 *chunk = kt_dma(test, BIT(WQ_BIG_SHIFT), &chunk_dma);

	for (i = 0; i < n; i++)
		mtt[i] = cpu_to_le64(chunk_dma);
	in.key = cpu_to_le32(WQ_BIG_KEY);
	in.pdn = cpu_to_le32(TD_PD);
	in.access = cpu_to_le32(access);
	in.length = cpu_to_le64(WQ_BIG_LEN);
	in.mtt_addr = cpu_to_le64(mtt_dma);
	in.npages = cpu_to_le32(n);
	in.page_shift = WQ_BIG_SHIFT;
	td_cmd_ok(d, XNIC_CMD_REG_MR, &in, sizeof(in));
	return chunk;
}

static u8 *wq_big_mr(struct wq *t)
{
	return wq_big_mr_on(t->test, t->a, XNIC_ACCESS_LOCAL_WRITE);
}

/*
 * PSN window at its edge: a WRITE of 2^31 bytes at path MTU 256 is 2^23
 * packets, as many PSNs as a requester may have outstanding, first and
 * end 2^23 apart (where a 24-bit serial compare is ambiguous).  The seam
 * takes all but its last two as sent and acknowledged.  Its last ACK
 * completes it; a SEND behind it, which would make 2^23 + 1, is not sent
 * until then, and goes out at the next PSN.
 */
static void wreq_psn_span_write(struct kunit *test)
{
	struct td_wr w = { .op = XNIC_OP_RDMA_WRITE,
			   .flags = XNIC_WQE_SIGNALED, .wr_id = 1, .nsge = 1,
			   .raddr = 0x10000, .rkey = 0x55 };
	u32 first = 0xfffff0, last = (first + WQ_BIG_PKTS - 1) & 0xffffff;
	struct xnic_sim_pkt p;
	struct xnic_cqe e;
	struct wq t;
	u8 *chunk;

	wq_up_mtu(&t, test, XNIC_QPT_RC, first, WQ_LONG_TO, 7, 7,
		  XNIC_MTU_256);
	chunk = wq_big_mr(&t);
	memset(chunk + BIT(WQ_BIG_SHIFT) - 512, 0xab, 256);
	memset(chunk + BIT(WQ_BIG_SHIFT) - 256, 0xcd, 256);
	wq_skip(WQ_BIG_PKTS - 2);
	w.sge[0] = td_sge(0, WQ_BIG_LEN, WQ_BIG_KEY);
	td_write_wqe(t.q, &w);
	wq_write_send(&t, 2, 8);
	td_doorbell(t.q);
	wq_frame(&t, &p);
	wq_skip(0);
	KUNIT_EXPECT_EQ(test, p.opcode,
			(u8)(XNIC_SIM_BTH_RC | XNIC_SIM_BTH_WRITE_MIDDLE));
	KUNIT_EXPECT_EQ(test, p.psn, (last - 1) & 0xffffff);
	KUNIT_ASSERT_EQ(test, p.paylen, 256U);
	KUNIT_EXPECT_EQ(test, p.payload[0], 0xab);
	wq_frame(&t, &p);
	KUNIT_EXPECT_EQ(test, p.opcode,
			(u8)(XNIC_SIM_BTH_RC | XNIC_SIM_BTH_WRITE_LAST));
	KUNIT_EXPECT_EQ(test, p.psn, last);
	KUNIT_EXPECT_TRUE(test, p.ackreq);
	KUNIT_ASSERT_EQ(test, p.paylen, 256U);
	KUNIT_EXPECT_EQ(test, p.payload[255], 0xcd);
	/* the SEND waits for the span: the pass that sent the WRITE is over */
	td_state(t.q);
	KUNIT_EXPECT_EQ(test, tw_captured_count(t.c, 0), 0U);
	wq_ack(&t, last);
	td_expect(t.cq, 1, 0, XNIC_CQE_OP_RDMA_WRITE, &e);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e.byte_len), (u32)WQ_BIG_LEN);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, (last + 1) & 0xffffff, true,
		       8);
	wq_ack(&t, last + 1);
	td_expect(t.cq, 2, 0, XNIC_CQE_OP_SEND, NULL);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_wire_duplicates), 0ULL);
	KUNIT_EXPECT_EQ(test, td_state(t.q), (u8)XNIC_QPS_RTS);
}

/*
 * A READ of 2^31 bytes (2^23 responses) behind a SEND not yet
 * acknowledged would make 2^23 + 1 PSNs outstanding: it is held back
 * until the SEND's ACK, then asked for; its last response, 2^23 PSNs
 * past its first, lands at the end of the 2 GiB and completes it.
 */
static void wreq_psn_span_read(struct kunit *test)
{
	struct td_wr w = { .op = XNIC_OP_RDMA_READ,
			   .flags = XNIC_WQE_SIGNALED, .wr_id = 2, .nsge = 1,
			   .raddr = 0x100000000ULL, .rkey = 0x66 };
	struct wq_resp r = { .op = XNIC_SIM_BTH_READ_RESP_ONLY,
			     .syndrome = 0x1f, .len = 256 };
	u32 first = 0x7ffff0, rfirst = first + 1;
	u32 last = (rfirst + WQ_BIG_PKTS - 1) & 0xffffff;
	struct xnic_sim_pkt p;
	struct xnic_cqe e;
	struct wq t;
	u8 *chunk, *src;

	wq_up_mtu(&t, test, XNIC_QPT_RC, first, WQ_LONG_TO, 7, 7,
		  XNIC_MTU_256);
	chunk = wq_big_mr(&t);
	src = kunit_kmalloc(test, 256, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, src);
	memset(src, 0x5e, 256);
	wq_skip(WQ_BIG_PKTS - 1);
	wq_write_send(&t, 1, 8);
	w.sge[0] = td_sge(0, WQ_BIG_LEN, WQ_BIG_KEY);
	td_write_wqe(t.q, &w);
	td_doorbell(t.q);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, first, true, 8);
	td_state(t.q);
	KUNIT_EXPECT_EQ(test, tw_captured_count(t.c, 0), 0U);
	wq_ack(&t, first);
	td_expect(t.cq, 1, 0, XNIC_CQE_OP_SEND, NULL);
	/* asked for the last response only (the seam took the rest) */
	wq_frame(&t, &p);
	wq_skip(0);
	KUNIT_EXPECT_EQ(test, p.opcode,
			(u8)(XNIC_SIM_BTH_RC | XNIC_SIM_BTH_READ_REQUEST));
	KUNIT_EXPECT_EQ(test, p.psn, last);
	KUNIT_EXPECT_EQ(test, p.va, 0x100000000ULL + WQ_BIG_LEN - 256);
	KUNIT_EXPECT_EQ(test, p.dma_len, 256U);
	r.psn = last;
	r.data = src;
	wq_inject(&t, &r);
	td_expect(t.cq, 2, 0, XNIC_CQE_OP_RDMA_READ, &e);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e.byte_len), (u32)WQ_BIG_LEN);
	KUNIT_EXPECT_EQ(test, memcmp(chunk + BIT(WQ_BIG_SHIFT) - 256, src,
				     256), 0);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_wire_oos_drops), 0ULL);
	KUNIT_EXPECT_EQ(test, td_state(t.q), (u8)XNIC_QPS_RTS);
}

/*
 * SQD on the wire: a SEND in flight when the QP entered SQD is still
 * resent by its timer and completes with its ACK; a SEND posted in SQD
 * is not started.  Not drained, the path MTU may not change; drained,
 * it and sq_psn may, and back in RTS the held SEND goes out with them.
 */
static void wreq_sqd_drain(struct kunit *test)
{
	struct xnic_cmd_modify_qp m = {};
	struct wq t;
	u32 i;

	wq_up(&t, test, XNIC_QPT_RC, 0x20, WQ_MID_TO, 7, 7);
	wq_send(&t, 1, 8);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, 0x20, true, 8);
	KUNIT_ASSERT_EQ(test, wq_modify(&t, &m, XNIC_QPS_SQD, 0),
			(u32)XNIC_CMD_OK);
	wq_send(&t, 2, 300);
	/* two timeouts: at least one of them in SQD */
	for (i = 0; i < 2; i++)
		wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, 0x20, true, 8);
	m.path_mtu = XNIC_MTU_256;
	KUNIT_EXPECT_EQ(test, wq_modify(&t, &m, XNIC_QPS_SQD,
					XNIC_QP_MOD_PATH_MTU),
			(u32)XNIC_CMD_BAD_STATE);
	wq_ack(&t, 0x20);
	td_expect(t.cq, 1, 0, XNIC_CQE_OP_SEND, NULL);
	KUNIT_EXPECT_EQ(test, td_state(t.q), (u8)XNIC_QPS_SQD);
	/* resends before the ACK only; the second SEND did not start */
	wq_only_resends(&t, 0x20);
	m.sq_psn = cpu_to_le32(0x300);
	KUNIT_EXPECT_EQ(test, wq_modify(&t, &m, XNIC_QPS_SQD,
					XNIC_QP_MOD_PATH_MTU |
					XNIC_QP_MOD_SQ_PSN),
			(u32)XNIC_CMD_OK);
	KUNIT_EXPECT_EQ(test, tw_captured_count(t.c, 0), 0U);
	memset(&m, 0, sizeof(m));
	KUNIT_ASSERT_EQ(test, wq_modify(&t, &m, XNIC_QPS_RTS, 0),
			(u32)XNIC_CMD_OK);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_FIRST, 0x300, false, 256);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_LAST, 0x301, true, 44);
	wq_ack(&t, 0x301);
	td_expect(t.cq, 2, 0, XNIC_CQE_OP_SEND, NULL);
}

/* In SQD a flight that is never answered still times out: ERR. */
static void wreq_sqd_retry_exceeded(struct kunit *test)
{
	struct xnic_cmd_modify_qp m = {};
	struct wq t;

	wq_up(&t, test, XNIC_QPT_RC, 0, WQ_MID_TO, 2, 7);
	wq_send(&t, 1, 8);
	wq_send(&t, 2, 8);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, 0, true, 8);
	KUNIT_ASSERT_EQ(test, wq_modify(&t, &m, XNIC_QPS_SQD, 0),
			(u32)XNIC_CMD_OK);
	td_expect(t.cq, 1, XNIC_CQE_RETRY_EXC_ERR, 0, NULL);
	td_expect(t.cq, 2, XNIC_CQE_WR_FLUSH_ERR, 0, NULL);
	KUNIT_EXPECT_EQ(test, td_state(t.q), (u8)XNIC_QPS_ERR);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_wire_timeouts), 3ULL);
}

/*
 * MODIFY_QP with a SEND in flight: a new path MTU, sq_psn, AV or
 * destination QP is refused (BAD_STATE) and changes nothing -- the next
 * SEND goes out at the next PSN in 1024-byte packets; the same values
 * again are no change.  Once drained they may change.
 */
static void wreq_modify_in_flight(struct kunit *test)
{
	static const u8 other[16] = { 0xfe, 0x80, [15] = 0x99 };
	struct xnic_cmd_modify_qp m = {};
	struct wq t;

	wq_up(&t, test, XNIC_QPT_RC, 0x40, WQ_LONG_TO, 7, 7);
	wq_send(&t, 1, 8);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, 0x40, true, 8);
	m.path_mtu = XNIC_MTU_256;
	KUNIT_EXPECT_EQ(test, wq_modify(&t, &m, XNIC_QPS_RTS,
					XNIC_QP_MOD_PATH_MTU),
			(u32)XNIC_CMD_BAD_STATE);
	m.sq_psn = cpu_to_le32(0x999);
	KUNIT_EXPECT_EQ(test, wq_modify(&t, &m, XNIC_QPS_RTS,
					XNIC_QP_MOD_SQ_PSN),
			(u32)XNIC_CMD_BAD_STATE);
	memcpy(m.dgid, other, 16);
	KUNIT_EXPECT_EQ(test, wq_modify(&t, &m, XNIC_QPS_RTS,
					XNIC_QP_MOD_AV),
			(u32)XNIC_CMD_BAD_STATE);
	m.dest_qpn = cpu_to_le32(WQ_DQPN + 1);
	KUNIT_EXPECT_EQ(test, wq_modify(&t, &m, XNIC_QPS_RTS,
					XNIC_QP_MOD_DEST_QPN),
			(u32)XNIC_CMD_BAD_STATE);
	/* the same values: no change */
	m.path_mtu = XNIC_MTU_1024;
	m.sq_psn = cpu_to_le32(0x41);
	memcpy(m.dgid, tw_sim(t.c, 1)->gid, 16);
	m.dest_qpn = cpu_to_le32(WQ_DQPN);
	KUNIT_EXPECT_EQ(test, wq_modify(&t, &m, XNIC_QPS_RTS,
					XNIC_QP_MOD_PATH_MTU |
					XNIC_QP_MOD_SQ_PSN | XNIC_QP_MOD_AV |
					XNIC_QP_MOD_DEST_QPN),
			(u32)XNIC_CMD_OK);
	wq_send(&t, 2, 1500);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_FIRST, 0x41, false, 1024);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_LAST, 0x42, true, 476);
	wq_ack(&t, 0x42);
	td_expect(t.cq, 1, 0, XNIC_CQE_OP_SEND, NULL);
	td_expect(t.cq, 2, 0, XNIC_CQE_OP_SEND, NULL);
	/* drained */
	m.path_mtu = XNIC_MTU_256;
	m.sq_psn = cpu_to_le32(0x999);
	KUNIT_EXPECT_EQ(test, wq_modify(&t, &m, XNIC_QPS_RTS,
					XNIC_QP_MOD_PATH_MTU |
					XNIC_QP_MOD_SQ_PSN),
			(u32)XNIC_CMD_OK);
	wq_send(&t, 3, 300);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_FIRST, 0x999, false, 256);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_LAST, 0x99a, true, 44);
	KUNIT_EXPECT_EQ(test, td_state(t.q), (u8)XNIC_QPS_RTS);
}

/*
 * A new timeout with a SEND in flight applies to the running timer: from
 * ~17 s to ~270 ms, the SEND is resent well before the first would have
 * expired; a retry_cnt lowered below the retries made fails the next.
 */
static void wreq_modify_timeout(struct kunit *test)
{
	struct xnic_cmd_modify_qp m = {};
	struct wq t;

	wq_up(&t, test, XNIC_QPT_RC, 0, 22, 7, 7);
	wq_send(&t, 1, 8);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, 0, true, 8);
	m.timeout = WQ_MID_TO;
	KUNIT_ASSERT_EQ(test, wq_modify(&t, &m, XNIC_QPS_RTS,
					XNIC_QP_MOD_TIMEOUT),
			(u32)XNIC_CMD_OK);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, 0, true, 8);
	m.retry_cnt = 0;
	KUNIT_ASSERT_EQ(test, wq_modify(&t, &m, XNIC_QPS_RTS,
					XNIC_QP_MOD_RETRY_CNT),
			(u32)XNIC_CMD_OK);
	td_expect(t.cq, 1, XNIC_CQE_RETRY_EXC_ERR, 0, NULL);
	KUNIT_EXPECT_EQ(test, td_state(t.q), (u8)XNIC_QPS_ERR);
}

/*
 * Local operations behind WQEs in flight.  A fast-registration MR
 * (key WQ_FR_KEY, one page) to register with REG_MR.
 */
#define WQ_FR_KEY	(9 << 8 | 0x11)

static void wq_fr_mr(struct wq *t)
{
	struct xnic_cmd_reg_mr in = {};

	in.key = cpu_to_le32(WQ_FR_KEY);
	in.pdn = cpu_to_le32(TD_PD);
	in.flags = cpu_to_le32(XNIC_MR_F_FREG);
	in.npages = cpu_to_le32(1);
	in.page_shift = 12;
	td_cmd_ok(t->a, XNIC_CMD_REG_MR, &in, sizeof(in));
}

/* A signaled REG_MR of t->buf's first page under @key, not rung. */
static void wq_write_reg_mr(struct wq *t, u64 wr_id, u32 key)
{
	struct td_wr w = { .op = XNIC_OP_REG_MR, .flags = XNIC_WQE_SIGNALED,
			   .wr_id = wr_id };
	u64 mtt_dma;
	__le64 *mtt = kt_dma(t->test, sizeof(u64), &mtt_dma);
	struct td_qp *q = t->q;
	struct xnic_wqe_fr *fr;

	*mtt = cpu_to_le64(td_pa(t->buf));
	td_write_wqe(q, &w);
	fr = (void *)(q->sq + (((q->sq_pi - 1) & ((1U << TD_Q_LOG) - 1)) <<
			       TD_WQE_SHIFT) + XNIC_WQE_FR_OFF);
	fr->mtt_addr = cpu_to_le64(mtt_dma);
	fr->iova = cpu_to_le64(0x10000);
	fr->length = cpu_to_le64(PAGE_SIZE);
	fr->key = cpu_to_le32(key);
	fr->access = cpu_to_le32(XNIC_ACCESS_LOCAL_WRITE);
	fr->npages = cpu_to_le32(1);
	fr->page_shift = 12;
}

/*
 * SEND, REG_MR, SEND: the REG_MR executes with the first SEND in flight,
 * so the second SEND goes out before any ACK; the completions come in
 * posting order, the REG_MR's with the first SEND's ACK.
 */
static void wreq_local_early(struct kunit *test)
{
	struct wq t;
	struct xnic_cqe e;

	wq_up(&t, test, XNIC_QPT_RC, 0, WQ_LONG_TO, 7, 7);
	wq_fr_mr(&t);
	wq_write_send(&t, 1, 8);
	wq_write_reg_mr(&t, 2, WQ_FR_KEY);
	wq_write_send(&t, 3, 4);
	td_doorbell(t.q);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, 0, true, 8);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, 1, true, 4);
	KUNIT_EXPECT_FALSE(test, td_peek(t.cq, &e));
	wq_ack(&t, 0);
	td_expect(t.cq, 1, 0, XNIC_CQE_OP_SEND, NULL);
	td_expect(t.cq, 2, 0, XNIC_CQE_OP_REG_MR, NULL);
	KUNIT_EXPECT_FALSE(test, td_peek(t.cq, &e));
	wq_ack(&t, 1);
	td_expect(t.cq, 3, 0, XNIC_CQE_OP_SEND, NULL);
	KUNIT_EXPECT_EQ(test, td_state(t.q), (u8)XNIC_QPS_RTS);
}

/*
 * A REG_MR that fails (no such MR) behind a SEND in flight: nothing
 * after it goes out; the SEND completes with its ACK, then the REG_MR
 * with its error, the QP in ERR, the SEND behind it flushed.
 */
static void wreq_local_early_err(struct kunit *test)
{
	struct wq t;

	wq_up(&t, test, XNIC_QPT_RC, 0, WQ_LONG_TO, 7, 7);
	wq_write_send(&t, 1, 8);
	wq_write_reg_mr(&t, 2, WQ_FR_KEY);	/* no MR at that key */
	wq_write_send(&t, 3, 4);
	td_doorbell(t.q);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, 0, true, 8);
	KUNIT_EXPECT_EQ(test, td_state(t.q), (u8)XNIC_QPS_RTS);
	wq_ack(&t, 0);
	td_expect(t.cq, 1, 0, XNIC_CQE_OP_SEND, NULL);
	td_expect(t.cq, 2, XNIC_CQE_LOC_PROT_ERR, 0, NULL);
	td_expect(t.cq, 3, XNIC_CQE_WR_FLUSH_ERR, 0, NULL);
	KUNIT_EXPECT_EQ(test, td_state(t.q), (u8)XNIC_QPS_ERR);
	KUNIT_EXPECT_EQ(test, wq_ctr(&t, XNIC_SIM_CTR_tx_send), 1ULL);
	KUNIT_EXPECT_NULL(test, tw_captured(t.c, 0));
}

/*
 * LOCAL_INV waits for everything before it to complete (the Local
 * Invalidate Fence, as rxe): with a SEND in flight before it, the SEND
 * behind it goes out only after the first SEND's ACK completed the
 * SEND, the REG_MR and the LOCAL_INV.
 */
static void wreq_local_inv_waits(struct kunit *test)
{
	struct td_wr inv = { .op = XNIC_OP_LOCAL_INV,
			     .flags = XNIC_WQE_SIGNALED, .wr_id = 3,
			     .imm = cpu_to_le32(WQ_FR_KEY) };
	struct wq t;

	wq_up(&t, test, XNIC_QPT_RC, 0, WQ_LONG_TO, 7, 7);
	wq_fr_mr(&t);
	wq_write_send(&t, 1, 8);
	wq_write_reg_mr(&t, 2, WQ_FR_KEY);
	td_write_wqe(t.q, &inv);
	wq_write_send(&t, 4, 4);
	td_doorbell(t.q);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, 0, true, 8);
	/* give the turn time to (wrongly) send more */
	msleep(20);
	KUNIT_EXPECT_NULL(test, tw_captured(t.c, 0));
	wq_ack(&t, 0);
	td_expect(t.cq, 1, 0, XNIC_CQE_OP_SEND, NULL);
	td_expect(t.cq, 2, 0, XNIC_CQE_OP_REG_MR, NULL);
	td_expect(t.cq, 3, 0, XNIC_CQE_OP_LOCAL_INV, NULL);
	wq_expect_send(&t, XNIC_SIM_BTH_SEND_ONLY, 1, true, 4);
	wq_ack(&t, 1);
	td_expect(t.cq, 4, 0, XNIC_CQE_OP_SEND, NULL);
	KUNIT_EXPECT_EQ(test, td_state(t.q), (u8)XNIC_QPS_RTS);
}

/* ------------------------------------------------------------------ */
/* Device reset in the middle of a READ                                */

/* packets of a READ of WQ_BIG_LEN bytes at path MTU 1024 */
#define WQ_MID_PKTS	(WQ_BIG_LEN / 1024)
/* responses seen before the reset: well into the READ, far from its end */
#define WQ_MID_SEEN	64

/* Device 0's QP 3 reading WQ_BIG_LEN bytes from device 1's QP 4. */
struct wq_mid {
	struct tw_ctx *c;
	struct td_dev *da, *db;
	struct td_cq *acq;
	struct td_qp *a, *b;
	u8 *local;		/* device 0's 64 KiB chunk, the READ's target */
	u8 *remote;		/* device 1's, its source */
};

static void wq_mid_read(struct kunit *test, struct wq_mid *m, u8 timeout,
			u8 retry)
{
	struct td_wr w = { .op = XNIC_OP_RDMA_READ,
			   .flags = XNIC_WQE_SIGNALED, .wr_id = 0x77,
			   .nsge = 1, .raddr = 0, .rkey = WQ_BIG_KEY };
	struct td_cq *bcq;

	m->c = tw_ctx_up(test);
	m->da = &m->c->td->dev[0];
	m->db = &m->c->td->dev[1];
	m->acq = td_cq(m->da, 1, 6, false);
	bcq = td_cq(m->db, 2, 6, false);
	m->a = td_qp(m->da, 3, XNIC_QPT_RC, TD_PD, m->acq, m->acq, 0, 0,
		     XNIC_NO_SRQ);
	m->b = td_qp(m->db, 4, XNIC_QPT_RC, TD_PD, bcq, bcq, 0, 0,
		     XNIC_NO_SRQ);
	m->local = wq_big_mr_on(test, m->da, XNIC_ACCESS_LOCAL_WRITE);
	m->remote = wq_big_mr_on(test, m->db, XNIC_ACCESS_LOCAL_WRITE |
				 XNIC_ACCESS_REMOTE_READ);
	kt_fill_pattern(m->remote, BIT(WQ_BIG_SHIFT), 3);
	wq_pair_connect(m->a, m->b, timeout, retry);
	wq_pair_connect(m->b, m->a, timeout, retry);
	w.sge[0] = td_sge(0, WQ_BIG_LEN, WQ_BIG_KEY);
	td_post(m->a, &w);
	/* the responder is well into it */
	KUNIT_ASSERT_TRUE(test, tw_wait_frames(m->c, 1, WQ_MID_SEEN,
					       TD_TIMEOUT_MS));
	/* 2^21 responses are not sent while a test waits for 64 */
	if (READ_ONCE(m->c->link[1].frames) >= WQ_MID_PKTS)
		kunit_skip(test, "the READ ended before the reset");
}

/*
 * The responder's device is reset while it serves a READ of 2^21
 * responses from its per-resource cursor: the QP, its answer list entry
 * and the MR go (KASAN would see a freed one touched), not one response
 * more is sent; the requester, answered by nobody, ends the READ in
 * RETRY_EXC_ERR -- never a success.
 */
static void wreq_reset_responder_mid_read(struct kunit *test)
{
	struct xnic_sim_pkt p;
	struct sk_buff *skb;
	struct wq_mid m;
	u32 resp = 0;

	wq_mid_read(test, &m, WQ_SHORT_TO, 1);
	td_reset(m.db);
	/* from here on device 1 has nothing to answer */
	tw_capture(m.c, 1, true);
	td_expect(m.acq, 0x77, XNIC_CQE_RETRY_EXC_ERR, 0, NULL);
	KUNIT_EXPECT_EQ(test, td_state(m.a), (u8)XNIC_QPS_ERR);
	/* device 1 up again: a pass of its engine, still nothing owed */
	td_up(m.db);
	while ((skb = tw_captured(m.c, 1)))
		if (xnic_sim_pkt_parse(skb->data, skb->len, &p) ==
		    XNIC_SIM_DROP_NONE &&
		    (xnic_sim_opcodes[p.opcode].mask & XNIC_SIM_PH_RESP))
			resp++;
	KUNIT_EXPECT_EQ(test, resp, 0U);
	KUNIT_EXPECT_TRUE(test, list_empty(&tw_sim(m.c, 1)->wresp_acks));
}

/*
 * The responder's QP is destroyed while it serves the READ (the
 * command's reset of its wire state, xnic_sim_wresp_reset(), then its
 * memory freed): as the device's reset, not one response more, the
 * requester's READ ends in RETRY_EXC_ERR.
 */
static void wreq_destroy_responder_mid_read(struct kunit *test)
{
	struct xnic_cmd_query_caps_out caps;
	struct xnic_cmd_obj obj = {};
	struct xnic_sim_pkt p;
	struct sk_buff *skb;
	struct wq_mid m;
	u32 resp = 0;

	wq_mid_read(test, &m, WQ_SHORT_TO, 1);
	obj.index = cpu_to_le32(m.b->qpn);
	td_want(m.db, XNIC_CMD_DESTROY_QP, &obj, sizeof(obj), XNIC_CMD_OK);
	tw_capture(m.c, 1, true);
	td_expect(m.acq, 0x77, XNIC_CQE_RETRY_EXC_ERR, 0, NULL);
	KUNIT_EXPECT_EQ(test, td_state(m.a), (u8)XNIC_QPS_ERR);
	/* a pass of device 1's engine after the requester gave up */
	KUNIT_ASSERT_EQ(test, td_cmd_out(m.db, XNIC_CMD_QUERY_CAPS, NULL, 0,
					 &caps, sizeof(caps)),
			(u32)XNIC_CMD_OK);
	while ((skb = tw_captured(m.c, 1)))
		if (xnic_sim_pkt_parse(skb->data, skb->len, &p) ==
		    XNIC_SIM_DROP_NONE &&
		    (xnic_sim_opcodes[p.opcode].mask & XNIC_SIM_PH_RESP))
			resp++;
	KUNIT_EXPECT_EQ(test, resp, 0U);
	KUNIT_EXPECT_TRUE(test, list_empty(&tw_sim(m.c, 1)->wresp_acks));
}

/*
 * The requester's device is reset in the middle of its READ: the
 * responses still coming are dropped (no QP), nothing lands in the
 * READ's memory and no CQE is written into the old CQ.
 */
static void wreq_reset_requester_mid_read(struct kunit *test)
{
	struct xnic_cmd_query_caps_out caps;
	struct xnic_cqe e;
	struct wq_mid m;
	u64 before;

	wq_mid_read(test, &m, WQ_LONG_TO, 7);
	td_reset(m.da);
	memset(m.local, 0, BIT(WQ_BIG_SHIFT));
	/* up again (no QP): it takes the responses off the wire */
	td_up(m.da);
	before = td_ctr(m.da, XNIC_SIM_CTR_wire_drop_noqp);
	KUNIT_EXPECT_TRUE(test, wq_wait_ctr_dev(m.da,
						XNIC_SIM_CTR_wire_drop_noqp,
						before + WQ_MID_SEEN));
	/* the engine pass that dropped them is over */
	KUNIT_ASSERT_EQ(test, td_cmd_out(m.da, XNIC_CMD_QUERY_CAPS, NULL, 0,
					 &caps, sizeof(caps)),
			(u32)XNIC_CMD_OK);
	KUNIT_EXPECT_FALSE(test, td_peek(m.acq, &e));
	KUNIT_EXPECT_NULL(test, memchr_inv(m.local, 0, BIT(WQ_BIG_SHIFT)));
}

static struct kunit_case wreq_cases[] = {
	KUNIT_CASE(wreq_inorder_coalesced),
	KUNIT_CASE(wreq_loss_timer),
	KUNIT_CASE(wreq_retry_exceeded),
	KUNIT_CASE(wreq_seq_nak),
	KUNIT_CASE(wreq_rnr_then_ok),
	KUNIT_CASE(wreq_rnr_exceeded),
	KUNIT_CASE(wreq_rem_access),
	KUNIT_CASE(wreq_read_lost_middle),
	KUNIT_CASE(wreq_read_gap_at_once),
	KUNIT_CASE(wreq_read_gap_once),
	KUNIT_CASE(wreq_read_gap_retry_cnt),
	KUNIT_CASE(wreq_atomic_ack),
	KUNIT_CASE(wreq_atomic_gap_read),
	KUNIT_CASE(wreq_atomic_gap_atomic),
	KUNIT_CASE(wreq_atomic_gap_retry_none),
	KUNIT_CASE(wreq_atomic_gap_retry_cnt),
	KUNIT_CASE(wreq_ack_gap_once),
	KUNIT_CASE(wreq_ack_gap_retry_exc),
	KUNIT_CASE(wreq_dup_stale),
	KUNIT_CASE(wreq_psn_wrap),
	KUNIT_CASE(wreq_ud_frame),
	KUNIT_CASE(wreq_e2e_read),
	KUNIT_CASE(wreq_e2e_ops),
	KUNIT_CASE(wreq_e2e_lossy),
	KUNIT_CASE(wreq_psn_span_write),
	KUNIT_CASE(wreq_psn_span_read),
	KUNIT_CASE(wreq_sqd_drain),
	KUNIT_CASE(wreq_sqd_retry_exceeded),
	KUNIT_CASE(wreq_modify_in_flight),
	KUNIT_CASE(wreq_modify_timeout),
	KUNIT_CASE(wreq_local_early),
	KUNIT_CASE(wreq_local_early_err),
	KUNIT_CASE(wreq_local_inv_waits),
	KUNIT_CASE(wreq_reset_responder_mid_read),
	KUNIT_CASE(wreq_destroy_responder_mid_read),
	KUNIT_CASE(wreq_reset_requester_mid_read),
	{}
};

static struct kunit_suite wreq_suite = {
	.name = "xnic_sim_wreq",
	.init = tw_init,
	.exit = tw_exit,
	.test_cases = wreq_cases,
};

kunit_test_suite(wreq_suite);
