// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite xnic_sim_engine: the device model's engine and doorbells
 * (xnic_sim_engine.c, xnic_sim_dev.c): kicks served by the ringing
 * thread, their bounds and stalls, a kick waiting for another's serve,
 * the engine's pass budget and recheck, hostile doorbells, the CPU the
 * interrupt runs on.  Two cabled devices with their engines
 * (kunit/xnic_sim_dev_fixture.h); the engine's static functions through
 * the wrappers kunit/xnic_sim_test.c defines.
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

/* Wait (up to 2 s) until the engine announced that it sleeps. */
static bool td_wait_asleep(struct td_dev *d, u32 dbi)
{
	unsigned long end = jiffies + 2 * HZ;

	while (!(le32_to_cpu(READ_ONCE(d->db[dbi]->flags)) &
		 XNIC_DB_NEED_WAKEUP)) {
		if (time_after(jiffies, end))
			return false;
		usleep_range(100, 200);
	}
	return true;
}

/*
 * A KICK written from process context while the engine sleeps is served
 * in the writer's context: the completion is in the CQ when the register
 * write returns.  (The engine may be inside a pass when the writer comes,
 * then the kick wakes it as before; of five tries at least one must be
 * served in place.)  With kick_run off, the kick wakes the engine, which
 * serves it.
 */
static void dev_kick_serve(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct td_dev *d = &c->dev[0];
	struct td_cq *cq = td_cq(d, 1, 4, false);
	struct td_qp *a = td_qp(d, 2, XNIC_QPT_RC, TD_PD, cq, cq, 0, 0,
				XNIC_NO_SRQ);
	struct td_wr w = { .op = XNIC_OP_NOP, .flags = XNIC_WQE_SIGNALED };
	u64 runs;
	struct xnic_cqe e;
	int i, served = 0;

	td_connect(a, a, 1);
	for (i = 0; i < 5; i++) {
		KUNIT_ASSERT_TRUE(test, td_wait_asleep(d, 0));
		runs = td_ctr(d, XNIC_SIM_CTR_writer_runs);
		w.wr_id = 0x100 + i;
		td_post(a, &w);		/* sees NEED_WAKEUP: kicks */
		if (td_ctr(d, XNIC_SIM_CTR_writer_runs) != runs) {
			KUNIT_EXPECT_TRUE_MSG(test, td_peek(cq, &e),
					      "kick serve without its completion");
			served++;
		} else {
			KUNIT_EXPECT_TRUE(test, td_poll(cq, &e, 1000));
		}
		KUNIT_EXPECT_EQ(test, le64_to_cpu(e.wr_id), 0x100ULL + i);
		KUNIT_EXPECT_EQ(test, e.status, XNIC_CQE_SUCCESS);
	}
	KUNIT_EXPECT_GT(test, served, 0);

	WRITE_ONCE(xnic_sim_kick_serve_on, false);
	KUNIT_ASSERT_TRUE(test, td_wait_asleep(d, 0));
	runs = td_ctr(d, XNIC_SIM_CTR_writer_runs);
	w.wr_id = 0x200;
	td_post(a, &w);
	KUNIT_EXPECT_TRUE(test, td_poll(cq, &e, 1000));
	KUNIT_EXPECT_EQ(test, le64_to_cpu(e.wr_id), 0x200ULL);
	/*
	 * The engine thread served it.  (Not necessarily after a counted
	 * wakeup: NEED_WAKEUP is set before the engine sleeps, and a kick
	 * before it does keeps it awake, or ends a yield.)
	 */
	KUNIT_EXPECT_EQ(test, td_ctr(d, XNIC_SIM_CTR_writer_runs), runs);
	/* td_exit() restores xnic_sim_kick_serve_on */
}

/* CQEs the device wrote from ci on, not consumed (any context). */
static u32 td_cq_count(struct td_cq *cq)
{
	u32 n, size = 1U << cq->log;

	for (n = 0; n < size; n++) {
		u32 i = cq->ci + n;
		struct xnic_cqe *e = &cq->ring[i & (size - 1)];

		if ((READ_ONCE(e->owner) & 1) != (((i >> cq->log) & 1) ^ 1))
			break;
	}
	return n;
}

/* Post a send WQE and announce it in the doorbell page, without a kick. */
static void td_post_quiet(struct td_qp *q, const struct td_wr *w)
{
	td_write_wqe(q, w);
	dma_wmb();	/* the entries before the producer index */
	WRITE_ONCE(q->rec->sq_pi, cpu_to_le32(q->sq_pi));
	td_ring_bits(q->d, q->dbi, q->slot);
}

/* Take @n CQEs with status 0 (any wr_id), within the test timeout. */
static void td_drain(struct td_cq *cq, u32 n)
{
	struct kunit *test = cq->d->test;
	struct xnic_cqe e;
	u32 i;

	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_TRUE_MSG(test, td_poll(cq, &e, TD_TIMEOUT_MS),
				      "CQE %u of %u missing", i, n);
		KUNIT_EXPECT_EQ(test, e.status, XNIC_CQE_SUCCESS);
	}
}

/* What the model's test hook saw (kick serves of th.dev only). */
static struct {
	struct xnic_sim_dev *dev;
	struct td_cq *cq[2];
	u32 start[2];		/* td_cq_count() when a kick serve began */
	u32 slice[2];		/* ... and when it ended */
	u32 serves;		/* kick serves seen */
	u32 bad_ctx;		/* serves holding exec_lock while preemptible */
	struct task_struct *stall;	/* parked at XNIC_SIM_HOOK_SERVE_AFTER */
	bool parked;
	struct completion release;
} th;

static void td_hook(struct xnic_sim_dev *dev, enum xnic_sim_hook where)
{
	int i;

	if (dev != th.dev)
		return;
	switch (where) {
	case XNIC_SIM_HOOK_SERVE_START:
		for (i = 0; i < 2; i++)
			th.start[i] = th.cq[i] ? td_cq_count(th.cq[i]) : 0;
		break;
	case XNIC_SIM_HOOK_SERVE_END:
		for (i = 0; i < 2; i++)
			th.slice[i] = th.cq[i] ? td_cq_count(th.cq[i]) : 0;
		if (!mutex_is_locked(&dev->exec_lock) ||
		    (IS_ENABLED(CONFIG_PREEMPT_COUNT) && preemptible()))
			th.bad_ctx++;
		th.serves++;
		break;
	case XNIC_SIM_HOOK_SERVE_AFTER:
		if (current == th.stall && !READ_ONCE(th.parked)) {
			WRITE_ONCE(th.parked, true);
			wait_for_completion(&th.release);
		}
		break;
	case XNIC_SIM_HOOK_SERVE_WAIT:
		break;
	}
}

static void td_hook_on(struct td_dev *d, struct td_cq *c0, struct td_cq *c1)
{
	memset(&th, 0, sizeof(th));
	init_completion(&th.release);
	th.dev = d->sim;
	th.cq[0] = c0;
	th.cq[1] = c1;
	WRITE_ONCE(xnic_sim_test_hook, td_hook);
}

/*
 * Two contexts of device 0 (doorbell pages 1 and 2), each with a CQ (*ca,
 * *cb) and an RC QP connected to itself (*a, *b).
 */
static struct td_dev *td_two_up(struct kunit *test, struct td_cq **ca,
				struct td_cq **cb, struct td_qp **a,
				struct td_qp **b)
{
	struct td_dev *d = &td_ctx_up(test)->dev[0];

	*ca = td_cq(d, 1, 4, false);
	*cb = td_cq(d, 2, 4, false);
	*a = td_qp(d, 3, XNIC_QPT_RC, TD_PD, *ca, *ca, 1, 5, XNIC_NO_SRQ);
	*b = td_qp(d, 4, XNIC_QPT_RC, TD_PD, *cb, *cb, 2, 5, XNIC_NO_SRQ);
	td_connect(*a, *a, 1);
	td_connect(*b, *b, 1);
	return d;
}

/*
 * A kick serves the work of the writer's own doorbell page, nobody else's:
 * context B's WQE, announced in its page but not kicked, is not executed
 * by context A's kick serve (the hook looks while the run holds exec_lock,
 * so the engine thread cannot have run it meanwhile).  Every kick serve
 * holds exec_lock with preemption disabled.  Both WQEs complete in the
 * end, by whoever runs them.
 */
static void dev_kick_own(struct kunit *test)
{
	struct td_cq *ca, *cb;
	struct td_qp *a, *b;
	struct td_dev *d = td_two_up(test, &ca, &cb, &a, &b);
	struct td_wr w = { .op = XNIC_OP_NOP, .flags = XNIC_WQE_SIGNALED };
	u8 nop = xnic_sim_cqe_opcode(XNIC_OP_NOP);
	int i, seen = 0;

	td_hook_on(d, ca, cb);
	for (i = 0; i < 20 && seen < 3; i++) {
		u32 serves = th.serves;

		KUNIT_ASSERT_TRUE(test, td_wait_asleep(d, 1));
		w.wr_id = 0x100 + i;
		td_post_quiet(b, &w);	/* context B: announced, no kick */
		td_post_quiet(a, &w);
		td_kick(d, 1);		/* context A's kick */
		/* a run that began with both WQEs pending tells */
		if (th.serves != serves && !th.start[0] && !th.start[1]) {
			seen++;
			KUNIT_EXPECT_EQ_MSG(test, th.slice[1], 0U,
					    "A's kick ran B's WQE");
			KUNIT_EXPECT_EQ_MSG(test, th.slice[0], 1U,
					    "A's kick did not run A's WQE");
		}
		td_kick(d, 2);		/* B's own kick */
		td_expect(ca, 0x100 + i, 0, nop, NULL);
		td_expect(cb, 0x100 + i, 0, nop, NULL);
	}
	WRITE_ONCE(xnic_sim_test_hook, NULL);
	KUNIT_EXPECT_GT(test, seen, 0);
	KUNIT_EXPECT_GT(test, th.serves, 0U);
	KUNIT_EXPECT_EQ_MSG(test, th.bad_ctx, 0U,
			    "a kick serve held exec_lock preemptible");
}

/*
 * A kick serve is bounded: with 4 QPs of 30 WQEs each announced, it runs
 * at most XNIC_SIM_KICK_WQES of them; a SEND larger than a kick's byte
 * budget is not run by the kick at all.  The engine thread runs the rest:
 * every WQE completes.
 */
static void dev_kick_bounded(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct td_dev *d = &c->dev[0];
	struct td_cq *cq = td_cq(d, 1, 8, false);
	struct td_wr w = { .op = XNIC_OP_NOP, .flags = XNIC_WQE_SIGNALED };
	const u32 big = kt_sim_kick_bytes + 1;
	struct td_qp *q[4];
	u64 sdma, rdma;
	int i, j, tries, seen = 0;

	for (i = 0; i < 4; i++) {
		q[i] = td_qp(d, 10 + i, XNIC_QPT_RC, TD_PD, cq, cq, 1, i,
			     XNIC_NO_SRQ);
		td_connect(q[i], q[i], 1);
	}
	td_hook_on(d, cq, NULL);
	for (tries = 0; tries < 5 && !seen; tries++) {
		u32 serves = th.serves;

		KUNIT_ASSERT_TRUE(test, td_wait_asleep(d, 1));
		for (i = 0; i < 4; i++)
			for (j = 0; j < 30; j++)
				td_post_quiet(q[i], &w);
		td_kick(d, 1);
		if (th.serves != serves && !th.start[0]) {
			seen++;
			KUNIT_EXPECT_GT(test, th.slice[0], 0U);
			KUNIT_EXPECT_LE(test, th.slice[0],
					(u32)kt_sim_kick_wqes);
		}
		td_drain(cq, 4 * 30);
	}
	KUNIT_EXPECT_GT(test, seen, 0);

	/* one SEND over the kick's byte budget: for the engine thread */
	kt_dma(test, 2 * big, &sdma);
	kt_dma(test, 2 * big, &rdma);
	for (seen = 0, tries = 0; tries < 5 && !seen; tries++) {
		struct xnic_sge sge = td_sge(rdma, 2 * big, TD_ALL_KEY);
		u32 serves = th.serves;

		td_post_recv(q[0], 0x200 + tries, &sge, 1);
		KUNIT_ASSERT_TRUE(test, td_wait_asleep(d, 1));
		w = (struct td_wr) { .op = XNIC_OP_SEND, .nsge = 1,
				     .flags = XNIC_WQE_SIGNALED,
				     .wr_id = 0x300 + tries };
		w.sge[0] = td_sge(sdma, big, TD_ALL_KEY);
		td_post_quiet(q[0], &w);
		td_kick(d, 1);
		if (th.serves != serves && !th.start[0]) {
			seen++;
			KUNIT_EXPECT_EQ_MSG(test, th.slice[0], 0U,
					    "a kick ran a %u-byte SEND", big);
		}
		td_drain(cq, 2);	/* the SEND and its receive */
	}
	WRITE_ONCE(xnic_sim_test_hook, NULL);
	KUNIT_EXPECT_GT(test, seen, 0);
	KUNIT_EXPECT_EQ(test, th.bad_ctx, 0U);
}

static int td_stall_fn(void *arg)
{
	struct td_dev *d = arg;

	/* kick until a kick serve parks in the hook, then wait to be stopped */
	while (!kthread_should_stop()) {
		if (!READ_ONCE(th.parked))
			td_kick(d, 1);
		usleep_range(100, 200);
	}
	return 0;
}

/*
 * A writer parked in a kick serve -- where a preempted, SCHED_IDLE or
 * throttled process can be parked for as long as the scheduler likes --
 * does not hold up commands: one written meanwhile is executed by the
 * engine thread.
 */
static void dev_kick_stall(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct td_dev *d = &c->dev[0];
	struct xnic_cmd *cmd = &d->cmdq[d->cmd_pi & ((1U << TD_CMDQ_LOG) - 1)];
	unsigned long end = jiffies + msecs_to_jiffies(TD_TIMEOUT_MS);
	struct task_struct *t;
	bool parked, done;

	td_hook_on(d, NULL, NULL);
	t = kthread_create(td_stall_fn, d, "td_stall");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	get_task_struct(t);
	th.stall = t;
	wake_up_process(t);
	while (!(parked = READ_ONCE(th.parked)) && time_before(jiffies, end))
		usleep_range(100, 200);

	/* a command while the writer is parked */
	memset(cmd, 0, sizeof(*cmd));
	cmd->hdr.opcode = XNIC_CMD_QUERY_CAPS;
	cmd->hdr.token = cpu_to_le32(++d->token);
	d->cmd_pi++;
	wmb();	/* the entry before the producer index */
	td_wr(d, XNIC_REG_CMDQ_PI, d->cmd_pi);
	end = jiffies + msecs_to_jiffies(TD_TIMEOUT_MS);
	while (!(done = READ_ONCE(cmd->hdr.done)) && time_before(jiffies, end))
		usleep_range(100, 200);

	/* let the writer go, whatever happened */
	complete(&th.release);
	kthread_stop(t);
	put_task_struct(t);
	WRITE_ONCE(xnic_sim_test_hook, NULL);
	KUNIT_EXPECT_TRUE_MSG(test, parked, "no kick serve was parked");
	KUNIT_EXPECT_TRUE_MSG(test, done,
			      "a command waited for a parked kick writer");
	end = jiffies + msecs_to_jiffies(TD_TIMEOUT_MS);
	while (!READ_ONCE(cmd->hdr.done) && time_before(jiffies, end))
		usleep_range(100, 200);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cmd->hdr.status), (u32)XNIC_CMD_OK);
}

/* dev_kick_wait: a serve of page 1 held open until page 2's kick waits */
static struct {
	struct task_struct *holder;
	bool holding;		/* the holder's serve is in SERVE_END */
	bool waiting;		/* a kick waits for it (SERVE_WAIT) */
} tw;

static void td_wait_hook(struct xnic_sim_dev *dev, enum xnic_sim_hook where)
{
	u64 end;

	if (dev != th.dev)
		return;
	if (where == XNIC_SIM_HOOK_SERVE_WAIT) {
		WRITE_ONCE(tw.waiting, true);
		return;
	}
	if (where != XNIC_SIM_HOOK_SERVE_END ||
	    current != READ_ONCE(tw.holder))
		return;
	/*
	 * Non-preemptible here: hold the serve until another writer's kick
	 * waits for it (bounded: that writer may never come), then end it.
	 */
	WRITE_ONCE(tw.holding, true);
	end = local_clock() + 20 * NSEC_PER_MSEC;
	while (!READ_ONCE(tw.waiting) && local_clock() < end)
		cpu_relax();
	WRITE_ONCE(tw.holder, NULL);
}

static int td_holder_fn(void *arg)
{
	struct td_dev *d = arg;

	td_kick(d, 1);
	while (!kthread_should_stop())
		usleep_range(100, 200);
	return 0;
}

/*
 * A kick that finds another writer's serve in progress waits for it (a
 * serve is short and non-preemptible) and serves its own page, instead of
 * handing its work to the engine thread: context B's WQE is complete when
 * B's KICK write returns, and the device counts the wait (serve_waits).
 * A's serve, on another CPU, is held open until B's kick waits for it;
 * the engine thread may still take the lock between them (then B does not
 * wait): each try accounts for both outcomes, and one of five must wait.
 */
static void dev_kick_wait(struct kunit *test)
{
	struct td_cq *ca, *cb;
	struct td_qp *a, *b;
	struct td_dev *d = td_two_up(test, &ca, &cb, &a, &b);
	struct td_wr w = { .op = XNIC_OP_NOP, .flags = XNIC_WQE_SIGNALED };
	u8 nop = xnic_sim_cqe_opcode(XNIC_OP_NOP);
	unsigned long end;
	int i, waited = 0;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs: the held serve spins");
	td_hook_on(d, NULL, NULL);
	for (i = 0; i < 5 && !waited; i++) {
		struct task_struct *t;
		u64 waits, runs;
		bool held;

		KUNIT_ASSERT_TRUE(test, td_wait_asleep(d, 1));
		w.wr_id = 0x100 + i;
		td_post_quiet(a, &w);
		td_post_quiet(b, &w);
		memset(&tw, 0, sizeof(tw));
		t = kthread_create(td_holder_fn, d, "td_holder");
		KUNIT_ASSERT_FALSE(test, IS_ERR(t));
		/* not this CPU: the held serve does not let it go */
		kthread_bind(t, cpumask_any_but(cpu_online_mask,
						raw_smp_processor_id()));
		get_task_struct(t);
		WRITE_ONCE(tw.holder, t);
		WRITE_ONCE(xnic_sim_test_hook, td_wait_hook);
		wake_up_process(t);
		end = jiffies + msecs_to_jiffies(100);
		while (!(held = READ_ONCE(tw.holding)) &&
		       time_before(jiffies, end))
			cond_resched();
		waits = td_ctr(d, XNIC_SIM_CTR_serve_waits);
		runs = td_ctr(d, XNIC_SIM_CTR_writer_runs);
		td_kick(d, 2);		/* context B */
		if (td_ctr(d, XNIC_SIM_CTR_serve_waits) != waits) {
			/* it waited, then served B's page itself */
			waited++;
			KUNIT_EXPECT_TRUE_MSG(test, held,
					      "a serve waited for no serve");
			KUNIT_EXPECT_EQ(test,
					td_ctr(d, XNIC_SIM_CTR_writer_runs),
					runs + 1);
			KUNIT_EXPECT_EQ_MSG(test, td_cq_count(cb), 1U,
					    "B's kick waited but did not serve");
		}
		kthread_stop(t);
		put_task_struct(t);
		WRITE_ONCE(xnic_sim_test_hook, NULL);
		/* either way, both complete */
		td_expect(ca, 0x100 + i, 0, nop, NULL);
		td_expect(cb, 0x100 + i, 0, nop, NULL);
	}
	KUNIT_EXPECT_GT(test, waited, 0);
}

/*
 * An engine pass is bounded: run under exec_lock (the test holds it, so
 * the engine thread waits), a data pass with a budget of 20 WQEs runs 20
 * of the 4 x 30 announced, and the next pass starts with the QPs this one
 * did not reach (round robin).  The byte budget: of six 1 MiB SENDs, one
 * pass runs XNIC_SIM_PASS_BYTES worth.  The engine thread runs the rest.
 */
static void dev_pass_budget(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct td_dev *d = &c->dev[0];
	struct xnic_sim_dev *sim = d->sim;
	struct td_wr w = { .op = XNIC_OP_NOP, .flags = XNIC_WQE_SIGNALED };
	struct xnic_sim_budget b = { .wqes = 20, .bytes = U64_MAX };
	struct td_cq *cq[4], *rcq;
	struct td_qp *q[4];
	u32 n[4], m[4], sends, i, j;
	u64 next = U64_MAX, sdma, rdma;
	bool work;

	for (i = 0; i < 4; i++) {
		cq[i] = td_cq(d, 1 + i, 6, false);
		q[i] = td_qp(d, 10 + i, XNIC_QPT_RC, TD_PD, cq[i], cq[i],
			     1, i, XNIC_NO_SRQ);
		td_connect(q[i], q[i], 1);
	}
	mutex_lock(&sim->exec_lock);
	for (i = 0; i < 4; i++)
		for (j = 0; j < 30; j++)
			td_post_quiet(q[i], &w);
	work = kt_sim_pass_data(sim, &next, &b);
	for (i = 0; i < 4; i++)
		n[i] = td_cq_count(cq[i]);
	b = (struct xnic_sim_budget) { .wqes = 20, .bytes = U64_MAX };
	kt_sim_pass_data(sim, &next, &b);
	for (i = 0; i < 4; i++)
		m[i] = td_cq_count(cq[i]) - n[i];
	mutex_unlock(&sim->exec_lock);
	td_wr(d, XNIC_REG_KICK, XNIC_KICK_WAKE);
	KUNIT_EXPECT_TRUE(test, work);
	KUNIT_EXPECT_EQ(test, n[0] + n[1] + n[2] + n[3], 20U);
	KUNIT_EXPECT_EQ(test, n[0], (u32)kt_sim_qp_budget);
	KUNIT_EXPECT_EQ(test, m[0] + m[1] + m[2] + m[3], 20U);
	KUNIT_EXPECT_EQ_MSG(test, m[2], (u32)kt_sim_qp_budget,
			    "the second pass did not start where the first stopped");
	for (i = 0; i < 4; i++)
		td_drain(cq[i], 30);

	/* bytes */
	rcq = td_cq(d, 9, 6, false);
	q[0] = td_qp(d, 20, XNIC_QPT_RC, TD_PD, cq[0], rcq, 1, 20,
		     XNIC_NO_SRQ);
	td_connect(q[0], q[0], 1);
	kt_dma(test, SZ_1M, &sdma);
	kt_dma(test, SZ_1M, &rdma);
	w = (struct td_wr) { .op = XNIC_OP_SEND, .nsge = 1,
			     .flags = XNIC_WQE_SIGNALED };
	w.sge[0] = td_sge(sdma, SZ_1M, TD_ALL_KEY);
	mutex_lock(&sim->exec_lock);
	for (i = 0; i < 6; i++) {
		struct xnic_sge sge = td_sge(rdma, SZ_1M, TD_ALL_KEY);

		td_post_recv(q[0], i, &sge, 1);
		td_post_quiet(q[0], &w);
	}
	kt_sim_pass_budget(&b);
	work = kt_sim_pass_data(sim, &next, &b);
	sends = td_cq_count(cq[0]);
	mutex_unlock(&sim->exec_lock);
	td_wr(d, XNIC_REG_KICK, XNIC_KICK_WAKE);
	KUNIT_EXPECT_TRUE(test, work);
	KUNIT_EXPECT_EQ(test, sends, (u32)(kt_sim_pass_bytes / SZ_1M));
	td_drain(cq[0], 6);
	td_drain(rcq, 6);
}

/*
 * Doorbell bits with nothing valid behind them -- a slot without a QP, a
 * QP with nothing posted, a QP in ERR with nothing to flush -- are taken
 * and counted, but are no work: the pass says so, and so does the look
 * before sleeping, so the engine may sleep however often they ring.
 */
static void dev_db_hostile(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct td_dev *d = &c->dev[0];
	struct xnic_sim_dev *sim = d->sim;
	struct td_cq *cq = td_cq(d, 1, 4, false);
	struct td_qp *a = td_qp(d, 3, XNIC_QPT_RC, TD_PD, cq, cq, 1, 3,
				XNIC_NO_SRQ);
	struct td_qp *e = td_qp(d, 4, XNIC_QPT_RC, TD_PD, cq, cq, 1, 4,
				XNIC_NO_SRQ);
	struct xnic_cmd_modify_qp m = {};
	struct xnic_sim_budget b;
	struct xnic_sim_qp *sa, *se;
	struct xnic_wqe_ctrl *ctrl;
	struct td_wr nop = { .op = XNIC_OP_NOP, .flags = XNIC_WQE_SIGNALED };
	u64 next = U64_MAX, bad, dbs;
	bool work;
	int round, s;

	td_connect(a, a, 1);
	KUNIT_ASSERT_EQ(test, td_modify(e, &m, XNIC_QPS_ERR, 0),
			(u32)XNIC_CMD_OK);
	sa = xnic_sim_tbl_get(&sim->qps, 3);
	se = xnic_sim_tbl_get(&sim->qps, 4);
	KUNIT_ASSERT_NOT_NULL(test, sa);
	KUNIT_ASSERT_NOT_NULL(test, se);
	mutex_lock(&sim->exec_lock);
	/* whatever was pending (the ERR QP's first flush) */
	kt_sim_pass_budget(&b);
	kt_sim_pass_data(sim, &next, &b);
	for (round = 0; round < 3; round++) {
		bad = td_ctr(d, XNIC_SIM_CTR_bad_doorbells);
		dbs = td_ctr(d, XNIC_SIM_CTR_doorbells);
		td_ring_bits(d, 1, 77);		/* no QP */
		td_ring_bits(d, 1, 4096 + 5);	/* no QP, summary word 1 */
		td_ring_bits(d, 1, 3);		/* nothing posted */
		td_ring_bits(d, 1, 4);		/* ERR, nothing to flush */
		kt_sim_pass_budget(&b);
		work = kt_sim_pass_data(sim, &next, &b);
		KUNIT_EXPECT_FALSE_MSG(test, work, "round %d", round);
		KUNIT_EXPECT_EQ(test, td_ctr(d, XNIC_SIM_CTR_bad_doorbells) - bad,
				2ULL);
		KUNIT_EXPECT_EQ(test, td_ctr(d, XNIC_SIM_CTR_doorbells) - dbs, 2ULL);
		for (s = 0; s < XNIC_DB_SUMMARY_WORDS; s++)
			KUNIT_EXPECT_EQ(test,
					le64_to_cpu(READ_ONCE(d->db[1]->summary[s])),
					0ULL);
		KUNIT_EXPECT_FALSE(test, sa->on_active);
		KUNIT_EXPECT_FALSE(test, se->on_active);
	}

	/*
	 * The look before sleeping (exec_lock held as the engine holds it
	 * there) takes such bits and finds no reason to stay awake; a WQE
	 * announced but not owned by the device is none either; a real WQE
	 * is one.
	 */
	for (round = 0; round < 3; round++) {
		bad = td_ctr(d, XNIC_SIM_CTR_bad_doorbells);
		td_ring_bits(d, 1, 77);
		td_ring_bits(d, 1, 3);
		td_ring_bits(d, 1, 4);
		preempt_disable();
		work = kt_sim_recheck_locked(sim);
		preempt_enable();
		KUNIT_EXPECT_FALSE_MSG(test, work, "look %d", round);
		KUNIT_EXPECT_EQ(test, td_ctr(d, XNIC_SIM_CTR_bad_doorbells) - bad,
				1ULL);
		for (s = 0; s < XNIC_DB_SUMMARY_WORDS; s++)
			KUNIT_EXPECT_EQ(test,
					le64_to_cpu(READ_ONCE(d->db[1]->summary[s])),
					0ULL);
	}
	/* sq_pi ahead, the entry's owner not the device's */
	ctrl = (void *)(a->sq + ((a->sq_pi & ((1U << TD_Q_LOG) - 1)) <<
				 TD_WQE_SHIFT));
	WRITE_ONCE(ctrl->owner, ((a->sq_pi >> TD_Q_LOG) & 1) ^ 1);
	WRITE_ONCE(a->rec->sq_pi, cpu_to_le32(a->sq_pi + 1));
	td_ring_bits(d, 1, 3);
	preempt_disable();
	work = kt_sim_recheck_locked(sim);
	preempt_enable();
	KUNIT_EXPECT_FALSE(test, work);
	WRITE_ONCE(a->rec->sq_pi, cpu_to_le32(a->sq_pi));
	td_post_quiet(a, &nop);
	preempt_disable();
	work = kt_sim_recheck_locked(sim);
	preempt_enable();
	KUNIT_EXPECT_TRUE_MSG(test, work, "a posted WQE did not count");
	kt_sim_pass_budget(&b);
	KUNIT_EXPECT_TRUE(test, kt_sim_pass_data(sim, &next, &b));
	mutex_unlock(&sim->exec_lock);
	td_drain(cq, 1);
}

/*
 * Complete a NOP on @cq (armed, events on) by the engine thread bound to
 * @cpu (kicks only wake it: kick_run off); return the CPU the interrupt
 * handler ran on, or -1 if it did not run.
 */
static int td_irq_from(struct kunit *test, struct td_dev *d, struct td_qp *q,
		       struct td_cq *cq, unsigned int cpu, u64 wr_id)
{
	struct td_wr w = { .op = XNIC_OP_NOP, .flags = XNIC_WQE_SIGNALED,
			   .wr_id = wr_id };
	u32 ev = td_ev(d, XNIC_EQE_COMPLETION);

	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(d->sim->engine,
						   cpumask_of(cpu)), 0);
	td_arm(cq, XNIC_CQ_ARM_NEXT);
	WRITE_ONCE(d->irq_cpu, -1);
	td_post(q, &w);
	td_expect(cq, wr_id, 0, xnic_sim_cqe_opcode(XNIC_OP_NOP), NULL);
	/* the handler records its CPU before it counts the event */
	if (!td_wait_ev(d, XNIC_EQE_COMPLETION, ev))
		return -1;
	return READ_ONCE(d->irq_cpu);
}

/*
 * The interrupt the engine thread raises runs on an online CPU other than
 * the engine's, so that the handler and the work it queues there leave
 * the engine's CPU alone; with irq_remote off, on the engine's own.  The
 * engine bound to each of two CPUs in turn.  The cabled device's
 * interrupt for a receive completion this engine writes there too.
 */
static void dev_irq_cpu(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct td_dev *d = &c->dev[0], *d1 = &c->dev[1];
	struct td_cq *cq = td_cq(d, 1, 4, true);
	struct td_qp *a = td_qp(d, 2, XNIC_QPT_RC, TD_PD, cq, cq, 0, 0,
				XNIC_NO_SRQ);
	struct td_cq *scq = td_cq(d, 3, 4, false);
	struct td_cq *rcq = td_cq(d1, 1, 4, true);
	struct td_qp *s = td_qp(d, 4, XNIC_QPT_RC, TD_PD, scq, scq, 0, 1,
				XNIC_NO_SRQ);
	struct td_qp *r = td_qp(d1, 2, XNIC_QPT_RC, TD_PD, rcq, rcq, 0, 0,
				XNIC_NO_SRQ);
	u8 *buf = kunit_kzalloc(test, 64, GFP_KERNEL);
	struct td_wr w = { .op = XNIC_OP_SEND, .wr_id = 0x300, .nsge = 1 };
	struct xnic_sge rs;
	unsigned int cpu, n = 0;
	u32 ev;
	int ran;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	td_connect(a, a, 1);
	WRITE_ONCE(xnic_sim_kick_serve_on, false);
	for_each_online_cpu(cpu) {
		if (n == 2)
			break;
		ran = td_irq_from(test, d, a, cq, cpu, 0x100 + n);
		KUNIT_EXPECT_GE_MSG(test, ran, 0, "no interrupt");
		KUNIT_EXPECT_NE_MSG(test, ran, (int)cpu,
				    "the interrupt ran on the engine's CPU");
		WRITE_ONCE(xnic_sim_irq_remote_on, false);
		ran = td_irq_from(test, d, a, cq, cpu, 0x200 + n);
		WRITE_ONCE(xnic_sim_irq_remote_on, true);
		KUNIT_EXPECT_EQ_MSG(test, ran, (int)cpu,
				    "irq_remote off: not on the engine's CPU");
		n++;
	}

	/* an unsignaled SEND to the cabled device, this engine on @cpu */
	KUNIT_ASSERT_NOT_NULL(test, buf);
	td_connect(s, r, 1);
	td_connect(r, s, 1);
	w.sge[0] = td_sge(td_pa(buf), 16, TD_ALL_KEY);
	rs = td_sge(td_pa(buf + 32), 32, TD_ALL_KEY);
	td_post_recv(r, 0x400, &rs, 1);
	cpu = cpumask_first(cpu_online_mask);
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(d->sim->engine,
						   cpumask_of(cpu)), 0);
	td_arm(rcq, XNIC_CQ_ARM_NEXT);
	ev = td_ev(d1, XNIC_EQE_COMPLETION);
	WRITE_ONCE(d1->irq_cpu, -1);
	td_post(s, &w);
	td_expect(rcq, 0x400, 0, XNIC_CQE_OP_RECV, NULL);
	KUNIT_EXPECT_TRUE(test, td_wait_ev(d1, XNIC_EQE_COMPLETION, ev));
	ran = READ_ONCE(d1->irq_cpu);
	KUNIT_EXPECT_NE_MSG(test, ran, (int)cpu,
			    "the peer's interrupt ran on this engine's CPU");
	/* td_exit() restores both parameters */
}

static struct kunit_case engine_cases[] = {
	KUNIT_CASE(dev_kick_serve),
	KUNIT_CASE(dev_kick_own),
	KUNIT_CASE(dev_kick_bounded),
	KUNIT_CASE(dev_kick_stall),
	KUNIT_CASE(dev_kick_wait),
	KUNIT_CASE(dev_pass_budget),
	KUNIT_CASE(dev_db_hostile),
	KUNIT_CASE(dev_irq_cpu),
	{}
};

static struct kunit_suite engine_suite = {
	.name = "xnic_sim_engine",
	.init = td_init,
	.exit = td_exit,
	.test_cases = engine_cases,
};

kunit_test_suite(engine_suite);
