// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite xnic_sim_errors: the device model's error completions, QP
 * errors, events and flushing; fuzzing with garbage in every ring and
 * doorbell; reset and deregistration racing with remote operations (memory
 * is freed right after, so KASAN sees any late access).  Two cabled
 * devices with their engines (kunit/xnic_sim_dev_fixture.h).
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

/* Error completions, QP errors, events, flushing. */
static void dev_errors(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct td_dev *d0 = &c->dev[0], *d1 = &c->dev[1];
	struct td_cq *acq = td_cq(d0, 1, 6, false);
	struct td_cq *bcq = td_cq(d1, 1, 6, false);
	struct td_qp *a = td_qp(d0, 2, XNIC_QPT_RC, TD_PD, acq, acq, 0, 0,
				XNIC_NO_SRQ);
	struct td_qp *b = td_qp(d1, 3, XNIC_QPT_RC, TD_PD, bcq, bcq, 0, 0,
				XNIC_NO_SRQ);
	struct td_mr *m = td_mr(d1, 0x1000 << 8, TD_PD,
				XNIC_ACCESS_REMOTE_READ, 1, 0x10000, true);
	u8 *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct xnic_cmd_modify_qp mq = {};
	u32 ev = td_ev(d1, XNIC_EQE_QP_ACCESS_ERR);
	struct td_wr w = {};
	struct xnic_sge rs;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	td_connect(a, b, 1);
	td_connect(b, a, 1);
	rs = td_sge(td_pa(buf), 64, TD_ALL_KEY);
	td_post_recv(b, 0xb0, &rs, 1);
	td_post_recv(a, 0xa9, &rs, 1);

	/* a write without the right: remote access error */
	w.op = XNIC_OP_RDMA_WRITE;
	w.wr_id = 0xa0;
	w.raddr = 0x10000;
	w.rkey = m->key;
	w.nsge = 1;
	w.sge[0] = td_sge(td_pa(buf), 8, TD_ALL_KEY);
	td_write_wqe(a, &w);
	w.wr_id = 0xa1;
	w.flags = 0;
	td_write_wqe(a, &w);
	td_doorbell(a);
	td_expect(acq, 0xa0, XNIC_CQE_REM_ACCESS_ERR, 0, NULL);
	/* unsignaled and behind the error: flushed, then the receive */
	td_expect(acq, 0xa1, XNIC_CQE_WR_FLUSH_ERR, 0, NULL);
	td_expect(acq, 0xa9, XNIC_CQE_WR_FLUSH_ERR, 0, NULL);
	KUNIT_EXPECT_EQ(test, td_state(a), XNIC_QPS_ERR);
	KUNIT_EXPECT_TRUE(test, td_wait_ev(d1, XNIC_EQE_QP_ACCESS_ERR, ev));
	KUNIT_EXPECT_EQ(test, td_state(b), XNIC_QPS_ERR);
	td_expect(bcq, 0xb0, XNIC_CQE_WR_FLUSH_ERR, 0, NULL);
	/* posted in ERR: flushed too (send by doorbell, receive by sweep) */
	td_post(a, &w);
	td_expect(acq, 0xa1, XNIC_CQE_WR_FLUSH_ERR, 0, NULL);
	td_post_recv(b, 0xb1, &rs, 1);
	td_expect(bcq, 0xb1, XNIC_CQE_WR_FLUSH_ERR, 0, NULL);

	/* back to work: RESET, reconnect; RNR with rnr_retry 1 */
	KUNIT_EXPECT_EQ(test, td_modify(a, &mq, XNIC_QPS_RESET, 0),
			(u32)XNIC_CMD_OK);
	KUNIT_EXPECT_EQ(test, td_modify(b, &mq, XNIC_QPS_RESET, 0),
			(u32)XNIC_CMD_OK);
	memset(a->rec, 0, sizeof(*a->rec));
	memset(b->rec, 0, sizeof(*b->rec));
	a->sq_pi = 0;
	a->rq_pi = 0;
	b->sq_pi = 0;
	b->rq_pi = 0;
	memset(a->sq, 0, 1U << (TD_Q_LOG + TD_WQE_SHIFT));
	memset(b->rq, 0, 1U << (TD_Q_LOG + TD_WQE_SHIFT));
	td_connect(a, b, 1);
	td_connect(b, a, 1);
	w.op = XNIC_OP_SEND;
	w.wr_id = 0xa2;
	td_post(a, &w);
	td_expect(acq, 0xa2, XNIC_CQE_RNR_RETRY_EXC_ERR, 0, NULL);
	KUNIT_EXPECT_EQ(test, td_state(b), XNIC_QPS_RTS);

	/* nobody there: transport retries, then RETRY_EXC_ERR */
	KUNIT_EXPECT_EQ(test, td_modify(a, &mq, XNIC_QPS_RESET, 0),
			(u32)XNIC_CMD_OK);
	memset(a->rec, 0, sizeof(*a->rec));
	a->sq_pi = 0;
	memset(a->sq, 0, 1U << (TD_Q_LOG + TD_WQE_SHIFT));
	td_connect(a, b, 1);
	KUNIT_EXPECT_EQ(test, td_modify(b, &mq, XNIC_QPS_ERR, 0),
			(u32)XNIC_CMD_OK);
	w.wr_id = 0xa3;
	td_post(a, &w);
	td_expect(acq, 0xa3, XNIC_CQE_RETRY_EXC_ERR, 0, NULL);
}

/* Turn a garbage send WQE into one that can pass every check. */
static void td_plausible(struct td_dev *d, u8 *e, struct td_mr *m,
			 struct rnd_state *rs)
{
	static const u8 ops[] = {
		XNIC_OP_SEND, XNIC_OP_SEND_WITH_IMM, XNIC_OP_RDMA_WRITE,
		XNIC_OP_RDMA_WRITE_WITH_IMM, XNIC_OP_RDMA_READ,
		XNIC_OP_ATOMIC_CMP_AND_SWP, XNIC_OP_ATOMIC_FETCH_AND_ADD,
		XNIC_OP_SEND_WITH_INV, XNIC_OP_NOP,
	};
	struct xnic_wqe_ctrl *ctrl = (void *)e;
	struct xnic_wqe_remote *r = (void *)(e + XNIC_WQE_REMOTE_OFF);
	struct xnic_wqe_ud *ud = (void *)(e + XNIC_WQE_UD_OFF);
	struct xnic_sge *sge = (void *)(e + XNIC_WQE_DATA_OFF);
	u64 mlen = (u64)m->npages * PAGE_SIZE - (m->iova & ~PAGE_MASK);
	u32 j;

	ctrl->opcode = ops[prandom_u32_state(rs) % ARRAY_SIZE(ops)];
	ctrl->flags &= XNIC_WQE_SIGNALED | XNIC_WQE_SOLICITED |
		       XNIC_WQE_FENCE;
	ctrl->num_sge = prandom_u32_state(rs) % 4;
	for (j = 0; j < ctrl->num_sge; j++) {
		u32 l = prandom_u32_state(rs) % 2000;

		sge[j].lkey = cpu_to_le32(m->key);
		sge[j].addr = cpu_to_le64(m->iova + prandom_u32_state(rs) %
					  (mlen - l));
		sge[j].length = cpu_to_le32(l);
	}
	r->rkey = cpu_to_le32(m->key);
	r->remote_addr = cpu_to_le64(m->iova + 8 * (prandom_u32_state(rs) %
						    (mlen / 8 - 300)));
	memcpy(ud->dgid, d->sim->peer->gid, 16);
	ud->dest_qpn = cpu_to_le32(13);
	ud->qkey = cpu_to_le32(0x11111111);
}

/* A user QP's garbage: anything in rings, records and doorbells. */
static void td_garbage(struct td_dev *d, struct td_qp *q, struct td_mr *m,
		       struct rnd_state *rs)
{
	u32 n = prandom_u32_state(rs) % 8 + 1, i, j;

	for (i = 0; i < n; i++) {
		u8 *e = q->sq + ((q->sq_pi & ((1U << TD_Q_LOG) - 1)) <<
				 TD_WQE_SHIFT);
		struct xnic_wqe_ctrl *ctrl = (void *)e;
		struct xnic_sge *sge = (void *)(e + XNIC_WQE_DATA_OFF);

		prandom_bytes_state(rs, e, 1U << TD_WQE_SHIFT);
		ctrl->opcode = prandom_u32_state(rs) % 17;
		if (prandom_u32_state(rs) % 4)
			ctrl->flags &= ~XNIC_WQE_INLINE;
		if (prandom_u32_state(rs) % 4)
			ctrl->num_sge %= 10;
		if (prandom_u32_state(rs) % 2) {
			u32 il = le32_to_cpu(ctrl->inline_len) % 300;

			ctrl->inline_len = cpu_to_le32(il);
		}
		/* SGEs and remote keys that are real, near the MR */
		for (j = 0; j < XNIC_SIM_MAX_SGE; j++) {
			if (prandom_u32_state(rs) % 3 == 0)
				continue;
			sge[j].lkey = cpu_to_le32(m->key);
			sge[j].addr = cpu_to_le64(m->iova - 64 +
						  prandom_u32_state(rs) %
						  (3 * PAGE_SIZE));
			sge[j].length = cpu_to_le32(prandom_u32_state(rs) %
						    (2 * PAGE_SIZE));
		}
		if (prandom_u32_state(rs) % 2) {
			struct xnic_wqe_remote *r = (void *)(e +
						XNIC_WQE_REMOTE_OFF);

			r->rkey = cpu_to_le32(m->key);
			r->remote_addr = sge[0].addr;
		}
		if (prandom_u32_state(rs) % 2) {
			struct xnic_wqe_ud *ud = (void *)(e + XNIC_WQE_UD_OFF);

			memcpy(ud->dgid, d->sim->peer->gid, 16);
			ud->dest_qpn = cpu_to_le32(10 +
						   prandom_u32_state(rs) % 4);
		}
		if (prandom_u32_state(rs) % 2)
			td_plausible(d, e, m, rs);
		dma_wmb();	/* the entry before its owner */
		ctrl->owner = prandom_u32_state(rs) % 8 ? (q->sq_pi >> TD_Q_LOG)
							  & 1 : 0xff;
		q->sq_pi++;
	}
	/* receive side */
	for (i = 0; i < 4; i++) {
		u8 *e = q->rq + ((q->rq_pi & ((1U << TD_Q_LOG) - 1)) <<
				 TD_WQE_SHIFT);
		struct xnic_rwqe *h = (void *)e;
		struct xnic_sge *sge = (void *)(h + 1);

		prandom_bytes_state(rs, e, 1U << TD_WQE_SHIFT);
		h->num_sge %= 12;
		for (j = 0; j < XNIC_SIM_MAX_SGE; j++) {
			sge[j].lkey = cpu_to_le32(m->key);
			sge[j].addr = cpu_to_le64(m->iova - 64 +
						  prandom_u32_state(rs) %
						  (3 * PAGE_SIZE));
			sge[j].length = cpu_to_le32(prandom_u32_state(rs) %
						    PAGE_SIZE);
		}
		if (prandom_u32_state(rs) % 2) {
			/* a receive that fits in the MR */
			h->num_sge = prandom_u32_state(rs) % 3;
			for (j = 0; j < h->num_sge; j++) {
				u32 l = prandom_u32_state(rs) % 3000;

				sge[j].addr = cpu_to_le64(m->iova +
						prandom_u32_state(rs) %
						(PAGE_SIZE - 256));
				sge[j].length = cpu_to_le32(l);
			}
		}
		dma_wmb();	/* the entry before its owner */
		h->owner = (q->rq_pi >> TD_Q_LOG) & 1;
		q->rq_pi++;
	}
	switch (prandom_u32_state(rs) % 8) {
	case 0:
		q->rec->sq_pi = cpu_to_le32(prandom_u32_state(rs));
		break;
	case 1:
		q->rec->rq_pi = cpu_to_le32(prandom_u32_state(rs));
		break;
	default:
		WRITE_ONCE(q->rec->sq_pi, cpu_to_le32(q->sq_pi));
		WRITE_ONCE(q->rec->rq_pi, cpu_to_le32(q->rq_pi));
		break;
	}
	/* doorbell bits of slots with and without a QP */
	for (i = 0; i < 3; i++) {
		u32 slot = prandom_u32_state(rs) % XNIC_DB_SLOTS;

		td_ring(d, 1, prandom_u32_state(rs) % 2 ? q->slot : slot);
	}
	if (prandom_u32_state(rs) % 4 == 0)
		prandom_bytes_state(rs, d->db[1]->summary,
				    sizeof(d->db[1]->summary));
	td_wr(d, XNIC_REG_KICK, 1);
}

static void dev_fuzz(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct td_cq *cq[2];
	struct td_qp *q[2][4];
	struct td_mr *m[2];
	struct rnd_state rs;
	struct xnic_cqe e;
	int i, j, round;

	prandom_seed_state(&rs, 42);
	for (i = 0; i < 2; i++) {
		struct td_dev *d = &c->dev[i];

		cq[i] = td_cq(d, 1, 6, true);
		m[i] = td_mr(d, 0x77 << 8 | 1, 7, TD_ACCESS, 2, 0x40000100,
			     true);
		for (j = 0; j < 4; j++)
			q[i][j] = td_qp(d, 10 + j,
					j == 3 ? XNIC_QPT_UD :
					j == 2 ? XNIC_QPT_UC :
					XNIC_QPT_RC,
					7, cq[i], cq[i], 1, 100 + j,
					XNIC_NO_SRQ);
	}
	for (round = 0; round < 300; round++) {
		i = prandom_u32_state(&rs) % 2;
		j = prandom_u32_state(&rs) % 4;
		if (round % 5 == 0) {
			struct xnic_cmd_modify_qp mq = {};
			int a, b;

			for (a = 0; a < 2; a++) {
				for (b = 0; b < 4; b++) {
					td_modify(q[a][b], &mq,
						  XNIC_QPS_RESET, 0);
					q[a][b]->sq_pi = 0;
					q[a][b]->rq_pi = 0;
				}
			}
			for (a = 0; a < 2; a++)
				for (b = 0; b < 4; b++)
					td_connect(q[a][b],
						   b == 3 ? NULL : q[!a][b],
						   prandom_u32_state(&rs) % 8);
		}
		td_garbage(&c->dev[i], q[i][j], m[i], &rs);
		/* garbage in the CQ records too, now and then */
		if (prandom_u32_state(&rs) % 16 == 0)
			td_arm(cq[i], prandom_u32_state(&rs) % 4);
		while (td_poll(cq[i], &e, 0))
			;
		if (round % 10 == 0)
			usleep_range(100, 1000);
	}
	msleep(100);
	for (i = 0; i < 2; i++) {
		struct td_dev *d = &c->dev[i];

		kunit_info(test, "dev %d: doorbells %llu bad %llu, sends %llu writes %llu reads %llu atomics %llu, errors: loc_qp_op %llu loc_prot %llu loc_len %llu rem_access %llu rem_inv_req %llu flush %llu, rnr %llu retries %llu cq_overruns %llu\n",
			   i, td_ctr(d, XNIC_SIM_CTR_doorbells),
			   td_ctr(d, XNIC_SIM_CTR_bad_doorbells),
			   td_ctr(d, XNIC_SIM_CTR_tx_send) +
			   td_ctr(d, XNIC_SIM_CTR_tx_send_imm) +
			   td_ctr(d, XNIC_SIM_CTR_tx_send_inv),
			   td_ctr(d, XNIC_SIM_CTR_tx_rdma_write) +
			   td_ctr(d, XNIC_SIM_CTR_tx_rdma_write_imm),
			   td_ctr(d, XNIC_SIM_CTR_tx_rdma_read),
			   td_ctr(d, XNIC_SIM_CTR_tx_cmp_swap) +
			   td_ctr(d, XNIC_SIM_CTR_tx_fetch_add),
			   td_ctr(d, XNIC_SIM_CTR_err_loc_qp_op),
			   td_ctr(d, XNIC_SIM_CTR_err_loc_prot),
			   td_ctr(d, XNIC_SIM_CTR_err_loc_len),
			   td_ctr(d, XNIC_SIM_CTR_err_rem_access),
			   td_ctr(d, XNIC_SIM_CTR_err_rem_inv_req),
			   td_ctr(d, XNIC_SIM_CTR_err_flush),
			   td_ctr(d, XNIC_SIM_CTR_rnr_naks),
			   td_ctr(d, XNIC_SIM_CTR_retries),
			   td_ctr(d, XNIC_SIM_CTR_cq_overruns));
	}
	/* the devices still work after a reset */
	for (i = 0; i < 2; i++)
		td_up(&c->dev[i]);
	KUNIT_EXPECT_EQ(test, c->dev[0].sim->qps.count, 0U);
	td_rc_ops(test, &c->dev[0], &c->dev[1], 16);
}

/*
 * Reset and deregistration racing with the peer's operations on the
 * objects they drop: the memory is freed as soon as the command (or the
 * reset write) returns, so any later access is a KASAN report.
 */
static void dev_teardown_race(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct td_dev *d0 = &c->dev[0], *d1 = &c->dev[1];
	struct td_cq *acq = td_cq(d0, 1, 8, false);
	struct td_qp *a = td_qp(d0, 2, XNIC_QPT_RC, TD_PD, acq, acq, 0, 0,
				XNIC_NO_SRQ);
	const u32 posted = (1U << TD_Q_LOG) - 1;
	u32 len = 4 * PAGE_SIZE, round, i, failed = 0, cut = 0;
	u8 *src = kunit_kzalloc(test, len, GFP_KERNEL);
	u64 writes = td_ctr(d0, XNIC_SIM_CTR_tx_rdma_write);
	struct xnic_cqe e;

	KUNIT_ASSERT_NOT_NULL(test, src);
	for (round = 0; round < 12; round++) {
		struct td_cq *bcq = td_cq(d1, 1, 8, false);
		struct td_qp *b = td_qp(d1, 3, XNIC_QPT_RC, TD_PD, bcq,
					bcq, 0, 0, XNIC_NO_SRQ);
		struct td_mr *m = td_mr(d1, 0x50 << 8, TD_PD, TD_ACCESS, 4,
					0x20000000, false);
		struct xnic_cmd_modify_qp mq = {};
		struct xnic_cmd_dereg_mr dm = { .key = cpu_to_le32(m->key) };
		struct td_wr w = {};
		u64 done0 = td_ctr(d0, XNIC_SIM_CTR_tx_rdma_write);
		unsigned long end;
		u32 acct, errs = 0;

		td_modify(a, &mq, XNIC_QPS_RESET, 0);
		memset(a->rec, 0, sizeof(*a->rec));
		memset(a->sq, 0, 1U << (TD_Q_LOG + TD_WQE_SHIFT));
		a->sq_pi = 0;
		td_connect(a, b, 1);
		td_connect(b, a, 1);
		w.op = XNIC_OP_RDMA_WRITE;
		w.raddr = m->iova;
		w.rkey = m->key;
		w.nsge = 1;
		w.sge[0] = td_sge(td_pa(src), len, TD_ALL_KEY);
		for (i = 0; i < posted; i++) {
			w.wr_id = i;
			w.flags = i == 0 ? XNIC_WQE_SIGNALED : 0;
			td_post(a, &w);
		}
		/* the first write is through: the rest is in flight */
		td_expect(acq, 0, 0, XNIC_CQE_OP_RDMA_WRITE, NULL);
		if (round % 2) {
			td_want(d1, XNIC_CMD_DEREG_MR, &dm, sizeof(dm),
				XNIC_CMD_OK);
		} else {
			td_reset(d1);
		}
		for (i = 0; i < m->npages; i++)
			__free_page(m->pg[i]);
		/*
		 * Each of the rest either made it before the teardown (an
		 * unsignaled success, counted by the device) or completes
		 * in error (the failing one, then flushes); none is lost.
		 * Where the teardown fell is timing and is only reported.
		 */
		end = jiffies + msecs_to_jiffies(5000);
		for (;;) {
			acct = td_ctr(d0, XNIC_SIM_CTR_tx_rdma_write) - done0 + errs;
			if (acct >= posted || time_after(jiffies, end))
				break;
			if (td_poll(acq, &e, 10)) {
				KUNIT_EXPECT_NE(test, e.status,
						XNIC_CQE_SUCCESS);
				errs++;
			}
		}
		KUNIT_EXPECT_EQ_MSG(test, acct, posted, "round %u", round);
		KUNIT_EXPECT_FALSE(test, td_poll(acq, &e, 10));
		failed += errs;
		cut += errs > 0;
		td_up(d1);
	}
	kunit_info(test, "%llu of %u writes done, %u completions in error, teardown cut %u of 12 rounds short\n",
		   td_ctr(d0, XNIC_SIM_CTR_tx_rdma_write) - writes, 12 * posted,
		   failed, cut);
}

static struct kunit_case errors_cases[] = {
	KUNIT_CASE(dev_errors),
	KUNIT_CASE(dev_fuzz),
	KUNIT_CASE(dev_teardown_race),
	{}
};

static struct kunit_suite errors_suite = {
	.name = "xnic_sim_errors",
	.init = td_init,
	.exit = td_exit,
	.test_cases = errors_cases,
};

kunit_test_suite(errors_suite);
