// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_sim: the engine thread of a device.  It executes commands, finds
 * QPs with work through the doorbell pages (atomic exchange of summary,
 * then group words: O(active QPs)), runs the send queues of the QPs on
 * its active list in turn (a budget each and one per pass, so commands
 * never wait long; RNR and retry waits keep a QP on the list with a
 * deadline), flushes QPs in ERR, and sleeps after an idle period with
 * XNIC_DB_NEED_WAKEUP set in every doorbell page until KICK, a command, a
 * reset or the next deadline.  A KICK from a process may be served in
 * its context: a bounded, non-preemptible slice of that process's own
 * work (xnic_sim_kick_serve()).  What a QP's turn executes is the
 * transport's (xnic_sim_req.c, xnic_sim_comp.c); flushing is the QP's
 * (xnic_sim_qp.c).
 */
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/sched/stat.h>
#include <linux/bitops.h>
#include "xnic_sim.h"

#ifdef XNIC_SIM_TEST_HOOKS
void (*xnic_sim_test_hook)(struct xnic_sim_dev *dev, enum xnic_sim_hook where);
#endif

/* engine polling time without work before it sleeps (module parameter) */
unsigned int xnic_sim_idle_us = 100;

#define XNIC_SIM_QP_BUDGET	16	/* WQEs per QP per turn */
/*
 * An engine pass: WQEs and payload bytes, then commands again.  A WQE is
 * started while both are left and charged whole, so a command waits for
 * at most this much data-path work plus one WQE.
 */
#define XNIC_SIM_PASS_WQES	256
#define XNIC_SIM_PASS_BYTES	(4ULL << 20)
/*
 * A kick served in the writer's context runs with preemption disabled:
 * at most this many WQEs and bytes of the writer's own doorbell page
 * (larger WQEs are left to the engine thread), its QPs found in at most
 * this many group words.
 */
#define XNIC_SIM_KICK_WQES	32
#define XNIC_SIM_KICK_BYTES	(256ULL << 10)
#define XNIC_SIM_KICK_QPS	16
#define XNIC_SIM_KICK_GROUPS	8
/* group words the look before sleeping takes, preemption disabled */
#define XNIC_SIM_RECHECK_GROUPS	128
#define XNIC_SIM_SWEEP_NS	(1 * NSEC_PER_MSEC)
#define XNIC_SIM_ERR_SLEEP_MS	20	/* sleep bound with QPs in ERR */
/* a busy CPU's engine steps aside this long, NEED_WAKEUP set */
#define XNIC_SIM_YIELD_NS	NSEC_PER_MSEC
/* a kick serve in the kicker's context wakes the engine this often */
#define XNIC_SIM_KICK_PROBE_NS	NSEC_PER_MSEC
/* a kick finding another writer's serve in progress waits this long */
#define XNIC_SIM_SERVE_WAIT_NS	(50 * NSEC_PER_USEC)

/* ------------------------------------------------------------------ */
/* Budgets                                                             */

/* Opcodes whose execution may sleep (waits for the peer's engine). */
static bool xnic_sim_op_may_sleep(u8 opcode)
{
	return opcode == XNIC_OP_LOCAL_INV || opcode == XNIC_OP_REG_MR ||
	       opcode == XNIC_OP_BIND_MW || opcode == XNIC_OP_FLUSH;
}

/**
 * xnic_sim_budget_take - charge one WQE to a budget
 * @b: the budget of a pass or a kick serve
 * @w: the decoded WQE about to be executed
 *
 * A pass or a serve may start a WQE while WQEs and bytes are left; its
 * bytes are then charged whole (a large WQE ends the pass: the engine
 * thread's unit of preemption by commands is one WQE).  An atomic serve
 * (@b->atomic) takes only WQEs that fit in the bytes left and cannot
 * sleep, so its length is bounded by its budget; it marks the budget
 * @left otherwise.
 *
 * Return: whether the WQE may be executed now.
 */
bool xnic_sim_budget_take(struct xnic_sim_budget *b,
			  const struct xnic_sim_swqe *w)
{
	u64 bytes = xnic_sim_swqe_bytes(w);

	if (!b->wqes || !b->bytes ||
	    (b->atomic && (bytes > b->bytes ||
			   xnic_sim_op_may_sleep(w->opcode)))) {
		b->left = true;
		return false;
	}
	b->wqes--;
	b->bytes -= min(bytes, b->bytes);
	return true;
}

/* ------------------------------------------------------------------ */
/* Turns on the active list                                            */

/*
 * One turn of a QP on the active list, within the budget @b of a pass or
 * a kick serve (a QP it stops stays on the list).  Return: whether
 * anything was done.
 * @next is lowered to the QP's deadline if it waits.
 */
static bool xnic_sim_qp_turn(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
			     u64 now, u64 *next, struct xnic_sim_budget *b)
{
	u8 state = READ_ONCE(qp->state);
	bool work = false;
	int budget, r;

	if (state == XNIC_QPS_ERR) {
		bool more = false;

		if (b->atomic) {
			/* up to two laps of CQEs: for the engine thread */
			b->left = true;
			return false;
		}
		/* a flushed WQE counts as one of the pass's */
		work = xnic_sim_qp_flush(dev, qp, &b->wqes, &more);
		if (more)
			b->left = true;	/* the rest next turn */
		else
			xnic_sim_qp_deactivate(qp);
		return work;
	}
	/* a wire QP in SQD: what it started completes (wire.rst) */
	if (state == XNIC_QPS_SQD && READ_ONCE(qp->wire))
		return xnic_sim_wreq_turn(dev, qp, now, next, b);
	if (state != XNIC_QPS_RTS) {
		/* posted WQEs wait for RTS (MODIFY_QP activates the QP) */
		xnic_sim_qp_deactivate(qp);
		return false;
	}
	if (READ_ONCE(qp->wire))
		return xnic_sim_wreq_turn(dev, qp, now, next, b);
	if (qp->wait_until) {
		if (now < qp->wait_until) {
			*next = min(*next, qp->wait_until);
			return false;
		}
		qp->wait_until = 0;
	}
	for (budget = XNIC_SIM_QP_BUDGET; budget; budget--) {
		u32 len;
		u8 status;

		r = xnic_sim_sq_fetch(dev, qp);
		if (r <= 0) {
			if (r < 0) {
				qp->bad_doorbells++;
				xnic_sim_count(dev, XNIC_SIM_CTR_bad_doorbells, 1);
			}
			xnic_sim_qp_deactivate(qp);
			return work;
		}
		/* fetched, not consumed: a WQE over budget waits its turn */
		if (!xnic_sim_budget_take(b, &dev->scr->w))
			return work;
		if (r == 2) {
			status = XNIC_CQE_LOC_QP_OP_ERR;
			len = 0;
		} else if (xnic_sim_sq_exec(dev, qp, &status, &len) ==
			   XNIC_SIM_WAIT) {
			*next = min(*next, qp->wait_until);
			return work;
		}
		xnic_sim_sq_complete(dev, qp, status, len);
		work = true;
		if (READ_ONCE(qp->state) != XNIC_QPS_RTS)
			return true;	/* flushed or stopped on the next turn */
	}
	return true;
}

/*
 * A turn for each active QP while the budget lasts; the next pass starts
 * with the first QP this one did not reach (round robin across passes).
 */
static bool xnic_sim_active_turns(struct xnic_sim_dev *dev, u64 now,
				  u64 *next, struct xnic_sim_budget *b)
{
	struct xnic_sim_qp *qp, *tmp;
	bool work = false;

	list_for_each_entry_safe(qp, tmp, &dev->active, active_node) {
		if (!b->wqes || !b->bytes) {
			list_rotate_to_front(&qp->active_node, &dev->active);
			b->left = true;
			break;
		}
		work |= xnic_sim_qp_turn(dev, qp, now, next, b);
	}
	return work;
}

/* ------------------------------------------------------------------ */
/* Doorbells                                                           */

/*
 * What a doorbell scan found: the QPs (all are put on the active list;
 * the first @max are also listed here) and how many group words it may
 * still take.
 */
struct xnic_sim_hits {
	u32 groups;		/* group words it may still take */
	u32 max;		/* room in @qp */
	u32 n;
	bool more;		/* more QPs, or group words left unread */
	bool check;		/* count the QPs with work in @valid */
	u32 valid;
	struct xnic_sim_qp *qp[XNIC_SIM_KICK_QPS];
};

/*
 * Whether a QP whose doorbell rang has something valid to do now: a
 * WQE to execute (RTS, not waiting) or something to flush (ERR).
 */
static bool xnic_sim_qp_has_work(struct xnic_sim_qp *qp)
{
	u8 state = READ_ONCE(qp->state);
	u32 pi;

	if (state == XNIC_QPS_ERR) {
		if (!qp->on_err || (qp->srq && !qp->last_wqe_sent) ||
		    xnic_sim_sq_ready(qp))
			return true;
		if (qp->srq || !qp->rcq)
			return false;
		pi = xnic_sim_rd32(qp->dbrec +
				   offsetof(struct xnic_qp_dbrec, rq_pi));
		return xnic_sim_ring_avail(READ_ONCE(qp->rq_ci), pi,
					   qp->rq_log) > 0;
	}
	if (state != XNIC_QPS_RTS ||
	    (qp->wait_until && xnic_sim_now() < qp->wait_until))
		return false;
	return xnic_sim_sq_ready(qp);
}

static void xnic_sim_db_slot_hit(struct xnic_sim_dev *dev,
				 struct xnic_sim_db *db, u32 slot,
				 struct xnic_sim_hits *h)
{
	struct xnic_sim_qp **chunk = db->slot[slot / XNIC_SIM_DB_CHUNK];
	struct xnic_sim_qp *qp = chunk ? chunk[slot % XNIC_SIM_DB_CHUNK] : NULL;

	if (!qp) {
		/* no QP behind the bit: no work, nothing to wake up for */
		xnic_sim_count(dev, XNIC_SIM_CTR_bad_doorbells, 1);
		return;
	}
	qp->doorbells++;
	xnic_sim_count(dev, XNIC_SIM_CTR_doorbells, 1);
	xnic_sim_qp_activate(qp);
	if (h->check && xnic_sim_qp_has_work(qp))
		h->valid++;
	if (h->n < h->max)
		h->qp[h->n++] = qp;
	else if (h->max)
		h->more = true;
}

/*
 * Take the announced slots of one doorbell page: the QPs behind them go
 * on the active list.  Finding bits is no work by itself (only executing
 * WQEs is), so hostile bits do not keep the engine awake.  At most
 * @h->groups group words are taken; the summary bits of the others are
 * put back for the next scan.
 */
static void xnic_sim_db_scan_one(struct xnic_sim_dev *dev,
				 struct xnic_sim_db *db, struct xnic_sim_hits *h)
{
	struct xnic_db_page *page;
	u64 *groups = NULL;
	u32 s;

	page = xnic_sim_map(db->addr);
	if (!page)
		return;
	for (s = 0; s < XNIC_DB_SUMMARY_WORDS; s++) {
		u64 *sw = (u64 *)&page->summary[s];
		unsigned long sum, bits;
		u32 b, t;

		if (!READ_ONCE(*sw))
			continue;
		if (!h->groups) {
			h->more = true;
			break;
		}
		sum = xchg(sw, 0);
		if (!groups) {
			groups = xnic_sim_map(xnic_sim_db_group_addr(db->addr,
								     0));
			if (!groups)
				break;
		}
		for_each_set_bit(b, &sum, 64) {
			u32 g = s * 64 + b;

			if (!h->groups) {
				/* for the next scan: the group word is kept */
				set_bit(b, (unsigned long *)sw);
				h->more = true;
				continue;
			}
			h->groups--;
			bits = xchg(&groups[g], 0);
			for_each_set_bit(t, &bits, 64)
				xnic_sim_db_slot_hit(dev, db, g * 64 + t, h);
		}
	}
	if (groups)
		xnic_sim_unmap(groups);
	xnic_sim_unmap(page);
}

/* Every doorbell page, without limit (the engine thread). */
static void xnic_sim_db_scan(struct xnic_sim_dev *dev)
{
	struct xnic_sim_hits h = { .groups = U32_MAX };
	u32 i;

	for (i = 0; i < dev->n_db; i++)
		xnic_sim_db_scan_one(dev, dev->db_list[i], &h);
}

/* Whether a summary word of any doorbell page is set (a look). */
static bool xnic_sim_db_pending(struct xnic_sim_dev *dev)
{
	bool pending = false;
	u32 i, s;

	for (i = 0; i < dev->n_db && !pending; i++) {
		struct xnic_db_page *page = xnic_sim_map(dev->db_list[i]->addr);

		if (!page)
			continue;
		for (s = 0; s < XNIC_DB_SUMMARY_WORDS; s++)
			if (READ_ONCE(page->summary[s]))
				pending = true;
		xnic_sim_unmap(page);
	}
	return pending;
}

/**
 * xnic_sim_db_set_flags - write the flags word of every doorbell page
 * @dev: device (its engine)
 * @flags: XNIC_DB_*
 */
static void xnic_sim_db_set_flags(struct xnic_sim_dev *dev, u32 flags)
{
	u32 i;

	for (i = 0; i < dev->n_db; i++) {
		struct xnic_db_page *page = xnic_sim_map(dev->db_list[i]->addr);

		if (!page)
			continue;
		WRITE_ONCE(page->flags, cpu_to_le32(flags));
		xnic_sim_unmap(page);
	}
}

/* ------------------------------------------------------------------ */
/* The thread                                                          */

static bool xnic_sim_live(struct xnic_sim_dev *dev)
{
	return READ_ONCE(dev->enable) &&
	       !(READ_ONCE(dev->status) & XNIC_STATUS_FATAL);
}

/*
 * What wakes the engine besides doorbells: a kick, a command, a reset.
 * Doorbell bits are not looked at here: xnic_sim_sleep() has just taken
 * them with NEED_WAKEUP set, and a producer that rang since then kicks.
 */
static bool xnic_sim_pending(struct xnic_sim_dev *dev)
{
	if (kthread_should_stop() || READ_ONCE(dev->kicked) ||
	    READ_ONCE(dev->reset_req) != dev->reset_done)
		return true;
	if (!xnic_sim_live(dev))
		return false;
	return READ_ONCE(dev->cmdq_pi) != dev->cmd_ci;
}

/* A pass's data-path budget. */
static void xnic_sim_pass_budget(struct xnic_sim_budget *b)
{
	*b = (struct xnic_sim_budget) {
		.wqes = XNIC_SIM_PASS_WQES,
		.bytes = XNIC_SIM_PASS_BYTES,
	};
}

/*
 * The data path of a pass: announced doorbells, then the active QPs
 * within @b.  Return: whether a WQE was executed or a QP flushed (the
 * doorbell bits alone are no work).
 */
static bool xnic_sim_pass_data(struct xnic_sim_dev *dev, u64 *next,
			       struct xnic_sim_budget *b)
{
	xnic_sim_db_scan(dev);
	return xnic_sim_active_turns(dev, xnic_sim_now(), next, b);
}

/*
 * The look before sleeping, NEED_WAKEUP set: a producer that rang before
 * it saw the flag is found here.  Announced slots are taken (their QPs go
 * on the active list for the next pass), and only QPs with something
 * valid to do keep the engine awake: hostile bits do not.  Taking them
 * needs exec_lock; the engine steps aside exactly when other tasks want
 * its CPU, so it holds the lock here only with preemption disabled and
 * for a bounded scan -- kick serves must not find it held by a preempted
 * engine.  Return: whether to stay awake.  (_locked: the scan, exec_lock
 * held, preemption disabled.)
 */
static bool xnic_sim_recheck_locked(struct xnic_sim_dev *dev)
{
	struct xnic_sim_hits h = {
		.groups = XNIC_SIM_RECHECK_GROUPS,
		.check = true,
	};
	u32 i;

	for (i = 0; i < dev->n_db; i++) {
		if (!h.groups) {
			h.more = true;
			break;
		}
		xnic_sim_db_scan_one(dev, dev->db_list[i], &h);
	}
	return h.valid || h.more;
}

static bool xnic_sim_recheck(struct xnic_sim_dev *dev)
{
	bool awake;

	if (!xnic_sim_db_pending(dev))
		return false;
	preempt_disable();
	if (!mutex_trylock(&dev->exec_lock)) {
		/* a kick serve has it; look again after it */
		preempt_enable();
		return true;
	}
	awake = xnic_sim_recheck_locked(dev);
	mutex_unlock(&dev->exec_lock);
	preempt_enable();
	return awake;
}

/*
 * Sleep until kicked: announce it in every doorbell page, then look once
 * more (a producer that rang before seeing the flag is found here).
 * @deadline: wake up then at the latest (xnic_sim_now()), 0 for none.
 * @yield: a short step aside for another task (counted as a yield), not
 *	   the sleep of an idle device
 */
static void xnic_sim_sleep(struct xnic_sim_dev *dev, u64 deadline,
			   bool yield)
{
	bool enabled = READ_ONCE(dev->enable);

	if (enabled) {
		xnic_sim_db_set_flags(dev, XNIC_DB_NEED_WAKEUP);
		smp_mb();	/* the flags before the doorbells are read */
		if (xnic_sim_recheck(dev))
			goto out;
	}
	set_current_state(TASK_INTERRUPTIBLE);	/* full barrier */
	if (!xnic_sim_pending(dev)) {
		xnic_sim_count(dev, yield ? XNIC_SIM_CTR_yields : XNIC_SIM_CTR_sleeps, 1);
		if (deadline) {
			u64 now = xnic_sim_now();
			ktime_t t = ns_to_ktime(deadline > now ?
						deadline - now : 0);

			schedule_hrtimeout_range(&t, 5 * NSEC_PER_USEC,
						 HRTIMER_MODE_REL);
		} else if (!list_empty(&dev->errq)) {
			schedule_timeout(msecs_to_jiffies(XNIC_SIM_ERR_SLEEP_MS));
		} else {
			schedule();
		}
		if (!yield)
			xnic_sim_count(dev, XNIC_SIM_CTR_wakeups, 1);
	}
	__set_current_state(TASK_RUNNING);
out:
	WRITE_ONCE(dev->kicked, false);
	if (enabled && READ_ONCE(dev->enable))
		xnic_sim_db_set_flags(dev, 0);
}

/*
 * exec_lock, for a kick serve (preemption disabled).  When another
 * writer's serve holds it -- bounded and non-preemptible, so it ends
 * soon -- wait for it, up to XNIC_SIM_SERVE_WAIT_NS, rather than hand
 * this writer's work to the engine thread: in a ping-pong the peer's
 * serve is still finishing (its own CQE, the interrupt) when this writer,
 * woken by that interrupt, posts its answer, and a woken engine thread
 * costs a thread switch on a CPU someone is spinning on.  The engine's
 * pass holds it preemptibly and for longer: no wait for that.
 * Return: whether the lock is held (@waited: after a wait).
 */
static bool xnic_sim_serve_lock(struct xnic_sim_dev *dev, bool *waited)
{
	unsigned int other = 0;
	u64 end;

	*waited = false;
	if (mutex_trylock(&dev->exec_lock))
		return true;
	if (!READ_ONCE(dev->serving))
		return false;
	end = local_clock() + XNIC_SIM_SERVE_WAIT_NS;
	for (;;) {
		xnic_sim_hook(dev, XNIC_SIM_HOOK_SERVE_WAIT);
		cpu_relax();
		if (!mutex_is_locked(&dev->exec_lock) &&
		    mutex_trylock(&dev->exec_lock)) {
			*waited = true;
			return true;
		}
		/* not a serve (a few looks: one may be just ending): stop */
		if (READ_ONCE(dev->serving))
			other = 0;
		else if (++other > 16)
			return false;
		if (need_resched() || local_clock() > end)
			return false;
	}
}

/**
 * xnic_sim_kick_serve - serve a KICK in the writer's context
 * @dev: device; the caller is a process holding no lock
 * @val: the KICK value; XNIC_KICK_DB() names the writer's doorbell page
 *
 * Runs the work announced in the writer's doorbell page -- its own QPs,
 * nobody else's -- at once, unless the engine thread is inside a pass.
 * With every CPU busy -- two processes spinning on each other's data,
 * the usual latency test -- waking the engine thread can take until the
 * next tick; the writer has the CPU now.  The engine thread keeps
 * sleeping (NEED_WAKEUP stays set) unless something is left for it.
 *
 * The serve holds exec_lock, which the engine thread needs for commands, so
 * the writer must not be parked while holding it (a SCHED_IDLE,
 * throttled or preempted writer could sit on it for as long as it
 * pleases, and the driver's commands would time out): the serve is
 * non-preemptible and bounded -- at most XNIC_SIM_KICK_WQES WQEs and
 * XNIC_SIM_KICK_BYTES bytes, none that may sleep, QPs from at most
 * XNIC_SIM_KICK_GROUPS group words -- and leaves the rest (larger WQEs,
 * flushes, waits) to the engine thread, which it wakes.
 *
 * Return: true when nothing is left for the engine thread.
 */
bool xnic_sim_kick_serve(struct xnic_sim_dev *dev, u32 val)
{
	struct xnic_sim_budget b = {
		.wqes = XNIC_SIM_KICK_WQES,
		.bytes = XNIC_SIM_KICK_BYTES,
		.atomic = true,
	};
	struct xnic_sim_hits h = {
		.groups = XNIC_SIM_KICK_GROUPS,
		.max = XNIC_SIM_KICK_QPS,
	};
	u32 idx = val >> XNIC_KICK_DB_SHIFT, i;
	u64 now, next = U64_MAX;
	struct xnic_sim_db *db;
	bool work = false, done, waited;

	/* PREEMPT_RT: spinlocks sleep, no serve with preemption disabled */
	if (IS_ENABLED(CONFIG_PREEMPT_RT) || !(val & XNIC_KICK_DB_VALID) ||
	    idx >= XNIC_SIM_MAX_DB)
		return false;
	preempt_disable();
	if (!xnic_sim_serve_lock(dev, &waited)) {
		preempt_enable();
		return false;
	}
	WRITE_ONCE(dev->serving, true);
	db = dev->db[idx];
	if (!db || !xnic_sim_live(dev) ||
	    READ_ONCE(dev->reset_req) != dev->reset_done) {
		WRITE_ONCE(dev->serving, false);
		mutex_unlock(&dev->exec_lock);
		preempt_enable();
		return false;
	}
	xnic_sim_count(dev, XNIC_SIM_CTR_writer_runs, 1);
	if (waited)
		xnic_sim_count(dev, XNIC_SIM_CTR_serve_waits, 1);
	xnic_sim_hook(dev, XNIC_SIM_HOOK_SERVE_START);
	xnic_sim_db_scan_one(dev, db, &h);
	now = xnic_sim_now();
	for (i = 0; i < h.n; i++)
		work |= xnic_sim_qp_turn(dev, h.qp[i], now, &next, &b);
	/* a QP still active has work left: over budget, in ERR, waiting */
	for (i = 0; i < h.n; i++)
		b.left |= h.qp[i]->on_active;
	xnic_sim_hook(dev, XNIC_SIM_HOOK_SERVE_END);
	WRITE_ONCE(dev->serving, false);
	done = !b.left && !h.more && READ_ONCE(dev->cmdq_pi) == dev->cmd_ci;
	/*
	 * Now and then let the engine thread look for itself: where a CPU
	 * is free it stays awake and polls, and producers stop kicking.
	 */
	if (work && now - dev->kick_probe >= XNIC_SIM_KICK_PROBE_NS) {
		dev->kick_probe = now;
		done = false;
	}
	mutex_unlock(&dev->exec_lock);
	preempt_enable();
	/* where a preempted writer may be parked: holding nothing */
	xnic_sim_hook(dev, XNIC_SIM_HOOK_SERVE_AFTER);
	return done;
}

/* One pass of the engine thread.  Return: whether it found work. */
static bool xnic_sim_pass(struct xnic_sim_dev *dev, u64 *next,
			  u64 *last_sweep)
{
	struct xnic_sim_budget b;
	bool work = false;
	u64 now;

	xnic_sim_pass_budget(&b);
	mutex_lock(&dev->exec_lock);
	if (READ_ONCE(dev->reset_req) != dev->reset_done) {
		xnic_sim_do_reset(dev);
		work = true;
	}
	if (xnic_sim_live(dev)) {
		/* commands first: they wait for one bounded pass at most */
		work |= xnic_sim_cmd_poll(dev);
		work |= xnic_sim_wire_rx_poll(dev, XNIC_SIM_WIRE_RX_BUDGET,
					      next);
		work |= xnic_sim_pass_data(dev, next, &b);
		work |= xnic_sim_wresp_flush_acks(dev);
		work |= xnic_sim_eth_tx(dev);
	}
	now = xnic_sim_now();
	if (!list_empty(&dev->errq) && now - *last_sweep > XNIC_SIM_SWEEP_NS) {
		*last_sweep = now;
		xnic_sim_err_sweep(dev);
	}
	mutex_unlock(&dev->exec_lock);
	return work;
}

/**
 * xnic_sim_engine - a device's engine thread
 * @arg: the device
 */
int xnic_sim_engine(void *arg)
{
	struct xnic_sim_dev *dev = arg;
	u64 last_work = xnic_sim_now(), last_sweep = 0;

	while (!kthread_should_stop()) {
		u64 now, next = U64_MAX;
		bool work;

		work = xnic_sim_pass(dev, &next, &last_sweep);
		now = xnic_sim_now();
		if (work) {
			last_work = now;
			cond_resched();
			continue;
		}
		/*
		 * Poll a while for more work, as long as the CPU is ours
		 * alone.  When another task wants it (the producer the
		 * engine waits for may be that task), step aside for a
		 * while instead, announcing NEED_WAKEUP: producers then
		 * kick, and a kick from a process does the work in its own
		 * context (xnic_sim_kick_serve()), with no wait for a CPU.
		 */
		if (now - last_work < (u64)READ_ONCE(xnic_sim_idle_us) *
				      NSEC_PER_USEC) {
			if (single_task_running()) {
				cond_resched();
				cpu_relax();
			} else {
				u64 until = min(next, now + XNIC_SIM_YIELD_NS);

				xnic_sim_sleep(dev, until, true);
			}
			continue;
		}
		xnic_sim_sleep(dev, next == U64_MAX ? 0 : next, false);
		last_work = xnic_sim_now();
	}
	return 0;
}
