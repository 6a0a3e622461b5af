// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_sim: faults on demand -- rules and the link (xnic_sim_fault.h,
 * Documentation/faults.rst).  The data path's questions ("does this
 * message meet a fault?") are answered here; the transport files act on
 * the answers.
 */
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "xnic_sim.h"

#define CREATE_TRACE_POINTS
#include "xnic_sim_trace.h"
/* once: kunit/xnic_sim_test.c includes the model's .c files together */
#undef CREATE_TRACE_POINTS

DEFINE_STATIC_KEY_FALSE(xnic_sim_faults_key);

/* The peer's link changes with ours (one cable): one lock for all links. */
static DEFINE_MUTEX(xnic_sim_link_lock);

const char *const xnic_sim_fault_type_names[XNIC_SIM_FAULT_NTYPES] = {
	[XNIC_SIM_FAULT_DROP] = "drop",
	[XNIC_SIM_FAULT_DELAY] = "delay",
	[XNIC_SIM_FAULT_DUP] = "dup",
	[XNIC_SIM_FAULT_REORDER] = "reorder",
	[XNIC_SIM_FAULT_CORRUPT] = "corrupt",
	[XNIC_SIM_FAULT_RNR] = "rnr",
	[XNIC_SIM_FAULT_NAK_ACCESS] = "nak_access",
	[XNIC_SIM_FAULT_NAK_OP] = "nak_op",
	[XNIC_SIM_FAULT_NAK_INV] = "nak_inv",
	[XNIC_SIM_FAULT_CQE_ERR] = "cqe_err",
};

const char *const xnic_sim_fault_op_names[XNIC_SIM_FOP_NUM] = {
	[XNIC_SIM_FOP_ANY] = "any",
	[XNIC_SIM_FOP_SEND] = "send",
	[XNIC_SIM_FOP_WRITE] = "write",
	[XNIC_SIM_FOP_READ] = "read",
	[XNIC_SIM_FOP_ATOMIC] = "atomic",
	[XNIC_SIM_FOP_OTHER] = "other",
};

/* ------------------------------------------------------------------ */
/* Rules                                                               */

/**
 * xnic_sim_fault_rule_alloc - a new rule, disabled, not on the list
 * @dev: its device
 * @name: its name (truncated to XNIC_SIM_FAULT_NAME_LEN - 1)
 *
 * Defaults: drop, any QP, any operation, every match, no limit.
 * Return: the rule, or NULL.
 */
struct xnic_sim_fault_rule *xnic_sim_fault_rule_alloc(struct xnic_sim_dev *dev,
						      const char *name)
{
	struct xnic_sim_fault_rule *r;

	r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r)
		return NULL;
	INIT_LIST_HEAD(&r->node);
	r->dev = dev;
	strscpy(r->name, name, sizeof(r->name));
	r->type = XNIC_SIM_FAULT_DROP;
	r->qpn = XNIC_SIM_FAULT_ANY_QP;
	r->op = XNIC_SIM_FOP_ANY;
	r->status = XNIC_CQE_GENERAL_ERR;
	r->delay_us = 1000;
	r->rate = XNIC_SIM_FAULT_PPM;
	spin_lock_init(&r->lock);
	return r;
}

/* Put @r on its device's list (disabled).  Sleeps. */
void xnic_sim_fault_rule_add(struct xnic_sim_fault_rule *r)
{
	struct xnic_sim_faults *f = &r->dev->fault;

	mutex_lock(&f->lock);
	list_add_tail_rcu(&r->node, &f->rules);
	mutex_unlock(&f->lock);
}

/* Disable @r, take it off the list and free it after readers.  Sleeps. */
void xnic_sim_fault_rule_del(struct xnic_sim_fault_rule *r)
{
	struct xnic_sim_faults *f = &r->dev->fault;

	xnic_sim_fault_rule_enable(r, false);
	mutex_lock(&f->lock);
	list_del_rcu(&r->node);
	mutex_unlock(&f->lock);
	kfree_rcu(r, rcu);
}

/**
 * xnic_sim_fault_rule_enable - start or stop a rule
 * @r: the rule
 * @on: start (its counters reset, the PRNG seeded, the window begins) or
 *	stop
 *
 * Sleeps (the static key).  Return: 0.
 */
int xnic_sim_fault_rule_enable(struct xnic_sim_fault_rule *r, bool on)
{
	struct xnic_sim_faults *f = &r->dev->fault;
	u64 now, seed;

	mutex_lock(&f->lock);
	if (on == r->enabled) {
		mutex_unlock(&f->lock);
		return 0;
	}
	if (on) {
		seed = READ_ONCE(r->seed);
		if (!seed)
			seed = get_random_u64();
		now = xnic_sim_now();
		spin_lock(&r->lock);
		prandom_seed_state(&r->rnd, seed);
		r->matched = 0;
		r->injected = 0;
		r->start_ns = now + (u64)READ_ONCE(r->after_ms) * NSEC_PER_MSEC;
		r->end_ns = READ_ONCE(r->for_ms) ?
			    r->start_ns +
			    (u64)READ_ONCE(r->for_ms) * NSEC_PER_MSEC : 0;
		spin_unlock(&r->lock);
		static_branch_inc(&xnic_sim_faults_key);
	}
	WRITE_ONCE(r->enabled, on);
	if (!on)
		static_branch_dec(&xnic_sim_faults_key);
	mutex_unlock(&f->lock);
	return 0;
}

/* @r's counters since it was last enabled. */
void xnic_sim_fault_rule_counts(struct xnic_sim_fault_rule *r, u64 *matched,
				u64 *injected)
{
	spin_lock(&r->lock);
	*matched = r->matched;
	*injected = r->injected;
	spin_unlock(&r->lock);
}

/**
 * xnic_sim_fault_fire - whether a rule that matched fires
 * @r: the rule (enabled, its QP and operation matched)
 * @now: xnic_sim_now()
 *
 * Inside the rule's window and under its count, a match counts; every
 * @every-th match is a candidate, and a candidate fires with probability
 * @rate ppm, drawn from the rule's PRNG (a seeded rule decides the same
 * way for the same sequence of matches).
 *
 * Return: whether to inject the fault (counted).
 */
bool xnic_sim_fault_fire(struct xnic_sim_fault_rule *r, u64 now)
{
	u32 every = READ_ONCE(r->every), rate = READ_ONCE(r->rate);
	u32 count = READ_ONCE(r->count);
	bool fire = false;

	spin_lock(&r->lock);
	if (!READ_ONCE(r->enabled) || now < r->start_ns ||
	    (r->end_ns && now >= r->end_ns) ||
	    (count && r->injected >= count))
		goto out;
	r->matched++;
	if (every > 1 && r->matched % every)
		goto out;
	if (rate < XNIC_SIM_FAULT_PPM &&
	    prandom_u32_state(&r->rnd) % XNIC_SIM_FAULT_PPM >= rate)
		goto out;
	r->injected++;
	fire = true;
out:
	spin_unlock(&r->lock);
	return fire;
}

/* Whether @r matches a QP and an operation, regardless of its window. */
static bool xnic_sim_fault_matches(const struct xnic_sim_fault_rule *r,
				   u32 types, u32 qpn, u32 qpn2, u8 op)
{
	u32 rq = READ_ONCE(r->qpn);
	u8 rop = READ_ONCE(r->op);

	return READ_ONCE(r->enabled) && (types & BIT(r->type)) &&
	       (rq == XNIC_SIM_FAULT_ANY_QP || rq == qpn || rq == qpn2) &&
	       (rop == XNIC_SIM_FOP_ANY || rop == op);
}

/**
 * xnic_sim_fault_find - the first rule of a device that fires
 * @dev: the device whose rules are asked
 * @types: BIT(enum xnic_sim_fault_type) of the types that may act here
 * @qpn: the device's QP concerned
 * @qpn2: another of its QPs concerned (loopback: the requester and the
 *	  responder), or XNIC_SIM_FAULT_ANY_QP
 * @op: enum xnic_sim_fault_op
 *
 * Rules are asked in the order they were made; the first that fires
 * wins, and later ones are not asked (their counters do not move).
 * The rule stays valid until the caller's RCU read section ends.
 *
 * Return: the rule, or NULL.
 */
struct xnic_sim_fault_rule *xnic_sim_fault_find(struct xnic_sim_dev *dev,
						u32 types, u32 qpn, u32 qpn2,
						u8 op)
{
	struct xnic_sim_fault_rule *r;
	u64 now = 0;

	list_for_each_entry_rcu(r, &dev->fault.rules, node) {
		if (!xnic_sim_fault_matches(r, types, qpn, qpn2, op))
			continue;
		if (!now)
			now = xnic_sim_now();
		if (xnic_sim_fault_fire(r, now)) {
			atomic64_inc(&dev->fault.injected);
			trace_xnic_sim_fault(dev->index, r->name,
					     xnic_sim_fault_type_names[r->type],
					     qpn, xnic_sim_fault_op_names[op]);
			return r;
		}
	}
	return NULL;
}

/* The class of a send WQE's operation (XNIC_OP_*). */
u8 xnic_sim_fault_wqe_op(u8 wqe_opcode)
{
	switch (wqe_opcode) {
	case XNIC_OP_SEND:
	case XNIC_OP_SEND_WITH_IMM:
	case XNIC_OP_SEND_WITH_INV:
		return XNIC_SIM_FOP_SEND;
	case XNIC_OP_RDMA_WRITE:
	case XNIC_OP_RDMA_WRITE_WITH_IMM:
		return XNIC_SIM_FOP_WRITE;
	case XNIC_OP_RDMA_READ:
		return XNIC_SIM_FOP_READ;
	case XNIC_OP_ATOMIC_CMP_AND_SWP:
	case XNIC_OP_ATOMIC_FETCH_AND_ADD:
	case XNIC_OP_ATOMIC_WRITE:
		return XNIC_SIM_FOP_ATOMIC;
	default:
		return XNIC_SIM_FOP_OTHER;
	}
}

/*
 * The class of a RoCEv2 packet (its XNIC_SIM_PH_* mask): a READ response
 * is a READ's, an atomic ACK an atomic's; a plain ACK or NAK none.
 */
u8 xnic_sim_fault_pkt_op(u32 mask)
{
	if (mask & XNIC_SIM_PH_SEND)
		return XNIC_SIM_FOP_SEND;
	if (mask & XNIC_SIM_PH_WRITE)
		return XNIC_SIM_FOP_WRITE;
	if (mask & XNIC_SIM_PH_READ)
		return XNIC_SIM_FOP_READ;
	if (mask & (XNIC_SIM_PH_ATOMIC | XNIC_SIM_PH_ATMACK))
		return XNIC_SIM_FOP_ATOMIC;
	return XNIC_SIM_FOP_OTHER;
}

/* ------------------------------------------------------------------ */
/* The data path's questions                                           */

/*
 * A rule of @dev or of @rdev (the responder's device, if another) that
 * fires for a message between @qpn (@dev's) and @rqpn (@rdev's).
 */
static struct xnic_sim_fault_rule *
xnic_sim_fault_pair(struct xnic_sim_dev *dev, u32 qpn,
		    struct xnic_sim_dev *rdev, u32 rqpn, u32 types, u8 op)
{
	struct xnic_sim_fault_rule *r;

	if (dev == rdev)
		return xnic_sim_fault_find(dev, types, qpn, rqpn, op);
	r = xnic_sim_fault_find(dev, types, qpn, XNIC_SIM_FAULT_ANY_QP, op);
	if (!r)
		r = xnic_sim_fault_find(rdev, types, rqpn,
					XNIC_SIM_FAULT_ANY_QP, op);
	return r;
}

/**
 * xnic_sim_fault_req - faults of an RC, UC or XRC request on the cable
 * @dev: the requester's device (its engine)
 * @qp: the requester, executing the WQE in the engine's scratch
 * @rqp: the responder it found
 * @status: set when the request is done in error
 * @r: the request's result when one fired (XNIC_SIM_DONE or _WAIT)
 *
 * Only with xnic_sim_faults_on().  A dropped request is not answered (the
 * requester retries), a delayed one waits (once per WQE), an RNR or error
 * NAK is what an RC requester hears instead of the responder (which is
 * not touched).  NAKs do not exist for UC: an RNR loses its message.
 *
 * Return: whether a fault took the request (then *@r is its result).
 */
int xnic_sim_fault_req(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
		       struct xnic_sim_qp *rqp, u8 *status, int *r)
{
	u8 opcode = dev->scr->w.opcode, op = xnic_sim_fault_wqe_op(opcode);
	struct xnic_sim_fault_rule *rule;
	u32 types = XNIC_SIM_FAULT_CABLE;
	bool rc = xnic_sim_qpt_rc(qp->type);
	u32 delay;
	u8 type;

	if (qp->fault_delayed)
		types &= ~XNIC_SIM_FAULT_BIT(DELAY);
	/* RNR: only a request that takes a receive WQE */
	if (op != XNIC_SIM_FOP_SEND && opcode != XNIC_OP_RDMA_WRITE_WITH_IMM)
		types &= ~XNIC_SIM_FAULT_BIT(RNR);
	if (!rc)
		types &= ~(XNIC_SIM_FAULT_BIT(NAK_ACCESS) |
			   XNIC_SIM_FAULT_BIT(NAK_OP) |
			   XNIC_SIM_FAULT_BIT(NAK_INV));
	rcu_read_lock();
	rule = xnic_sim_fault_pair(dev, qp->qpn, rqp->dev, rqp->qpn, types, op);
	if (!rule) {
		rcu_read_unlock();
		return false;
	}
	type = rule->type;
	delay = READ_ONCE(rule->delay_us);
	rcu_read_unlock();

	switch (type) {
	case XNIC_SIM_FAULT_DROP:
		*r = xnic_sim_no_answer(qp, status);
		break;
	case XNIC_SIM_FAULT_DELAY:
		qp->fault_delayed = true;
		qp->wait_until = xnic_sim_now() + (u64)delay * NSEC_PER_USEC;
		*r = XNIC_SIM_WAIT;
		break;
	case XNIC_SIM_FAULT_RNR:
		*r = xnic_sim_rnr(qp, rqp, status);
		break;
	case XNIC_SIM_FAULT_NAK_ACCESS:
		*status = XNIC_CQE_REM_ACCESS_ERR;
		*r = XNIC_SIM_DONE;
		break;
	case XNIC_SIM_FAULT_NAK_OP:
		*status = XNIC_CQE_REM_OP_ERR;
		*r = XNIC_SIM_DONE;
		break;
	default:
		*status = XNIC_CQE_REM_INV_REQ_ERR;
		*r = XNIC_SIM_DONE;
		break;
	}
	return true;
}

/**
 * xnic_sim_fault_ud - whether a UD datagram on the cable is lost
 * @dev: the sender's device
 * @qp: the sender
 * @rdev: the receiver's device
 * @rqp: the receiver
 *
 * Lost: either port is down, or a drop rule fired.
 */
bool xnic_sim_fault_ud(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
		       struct xnic_sim_dev *rdev, struct xnic_sim_qp *rqp)
{
	bool drop;

	if (!xnic_sim_port_up(dev) || !xnic_sim_port_up(rdev))
		return true;
	rcu_read_lock();
	drop = xnic_sim_fault_pair(dev, qp->qpn, rdev, rqp->qpn,
				   XNIC_SIM_FAULT_BIT(DROP),
				   XNIC_SIM_FOP_SEND) != NULL;
	rcu_read_unlock();
	return drop;
}

/**
 * xnic_sim_fault_cqe - the status a send WQE completes with
 * @dev: the QP's device
 * @qp: the QP
 * @wqe_opcode: the WQE's XNIC_OP_*
 *
 * Return: a CQE_ERR rule's status, or XNIC_CQE_SUCCESS.
 */
u8 xnic_sim_fault_cqe(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
		      u8 wqe_opcode)
{
	struct xnic_sim_fault_rule *rule;
	u8 st = XNIC_CQE_SUCCESS;

	rcu_read_lock();
	rule = xnic_sim_fault_find(dev, XNIC_SIM_FAULT_BIT(CQE_ERR), qp->qpn,
				   XNIC_SIM_FAULT_ANY_QP,
				   xnic_sim_fault_wqe_op(wqe_opcode));
	if (rule)
		st = READ_ONCE(rule->status);
	rcu_read_unlock();
	return st;
}

/**
 * xnic_sim_fault_answer - the answer a wire RC responder is made to give
 * @dev: the responder's device (its engine)
 * @qp: the responder
 * @mask: the request's XNIC_SIM_PH_* (the first or only packet of a
 *	  message, or a READ or atomic request)
 *
 * An RNR NAK answers only a SEND (the first packet takes the receive WQE).
 *
 * Return: the fault's type (XNIC_SIM_FAULT_RNR, _NAK_*), or -1.
 */
int xnic_sim_fault_answer(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
			  u32 mask)
{
	u32 types = XNIC_SIM_FAULT_ANSWER;
	struct xnic_sim_fault_rule *rule;
	int type = -1;

	if (!(mask & XNIC_SIM_PH_SEND))
		types &= ~XNIC_SIM_FAULT_BIT(RNR);
	rcu_read_lock();
	rule = xnic_sim_fault_find(dev, types, qp->qpn,
				   XNIC_SIM_FAULT_ANY_QP,
				   xnic_sim_fault_pkt_op(mask));
	if (rule)
		type = rule->type;
	rcu_read_unlock();
	return type;
}

/**
 * xnic_sim_fault_frame - a frame fault for a RoCEv2 packet that arrived
 * @dev: the device (its engine)
 * @dqpn: the packet's destination QP (the device's)
 * @mask: its XNIC_SIM_PH_*
 *
 * Return: the rule that fired (valid under the caller's rcu_read_lock()),
 * or NULL.
 */
struct xnic_sim_fault_rule *xnic_sim_fault_frame(struct xnic_sim_dev *dev,
						 u32 dqpn, u32 mask)
{
	return xnic_sim_fault_find(dev, XNIC_SIM_FAULT_FRAME, dqpn,
				   XNIC_SIM_FAULT_ANY_QP,
				   xnic_sim_fault_pkt_op(mask));
}

/* ------------------------------------------------------------------ */
/* Frames held back (wire)                                             */

/**
 * xnic_sim_fault_hold - hold a received frame back
 * @dev: the device (its engine)
 * @skb: the frame, consumed
 * @at: release it then (xnic_sim_now())
 * @after: or once this many frames were taken from the wire (0: no)
 *
 * Return: false if no room (not held, not consumed).
 */
bool xnic_sim_fault_hold(struct xnic_sim_dev *dev, struct sk_buff *skb,
			 u64 at, u64 after)
{
	struct xnic_sim_faults *f = &dev->fault;

	if (f->nheld >= XNIC_SIM_FAULT_HELD)
		return false;
	f->held[f->nheld++] = (struct xnic_sim_fault_held) {
		.skb = skb, .at = at, .after = after,
	};
	return true;
}

/**
 * xnic_sim_fault_release - a held frame due now
 * @dev: the device (its engine)
 * @now: xnic_sim_now()
 * @next: lowered to the next release time of those still held, if any
 *
 * Frames leave in the order they are due, not the order they came.
 *
 * Return: the frame, taken off the list, or NULL.
 */
struct sk_buff *xnic_sim_fault_release(struct xnic_sim_dev *dev, u64 now,
				       u64 *next)
{
	struct xnic_sim_faults *f = &dev->fault;
	struct sk_buff *skb;
	u32 i;

	for (i = 0; i < f->nheld; i++) {
		if (now >= f->held[i].at ||
		    (f->held[i].after && f->taken >= f->held[i].after)) {
			skb = f->held[i].skb;
			f->held[i] = f->held[--f->nheld];
			return skb;
		}
	}
	for (i = 0; i < f->nheld; i++)
		*next = min(*next, f->held[i].at);
	return NULL;
}

/* Free the frames held back (a reset, the device going away). */
void xnic_sim_fault_drop_held(struct xnic_sim_dev *dev)
{
	struct xnic_sim_faults *f = &dev->fault;

	while (f->nheld)
		kfree_skb(f->held[--f->nheld].skb);
}

/* ------------------------------------------------------------------ */
/* The link                                                            */

/* Whether @dev's own port was not taken down (its peer's may be). */
bool xnic_sim_fault_link_up(const struct xnic_sim_dev *dev)
{
	return !READ_ONCE(dev->fault.link_down);
}

/**
 * xnic_sim_port_up - whether a device's port has a link
 * @dev: the device
 *
 * Down when it or its cabled peer was taken down (one cable).
 */
bool xnic_sim_port_up(const struct xnic_sim_dev *dev)
{
	const struct xnic_sim_dev *peer;

	if (!xnic_sim_faults_on())
		return true;
	peer = dev->peer;
	return xnic_sim_fault_link_up(dev) &&
	       (!peer || xnic_sim_fault_link_up(peer));
}

/* Tell the driver what its port is now (PORT_CHANGE). */
static void xnic_sim_fault_port_event(struct xnic_sim_dev *dev, bool up)
{
	xnic_sim_eq_post(dev, XNIC_EQE_PORT_CHANGE, 1,
			 up ? XNIC_PORT_ACTIVE : XNIC_PORT_DOWN);
}

static void xnic_sim_fault_set_link_locked(struct xnic_sim_dev *dev, bool up)
{
	struct xnic_sim_dev *peer = dev->peer;
	bool was, pwas = false;

	lockdep_assert_held(&xnic_sim_link_lock);
	if (up == !dev->fault.link_down)
		return;
	/* the key before the flag: a reader seeing the flag sees the key */
	if (!up)
		static_branch_inc(&xnic_sim_faults_key);
	was = xnic_sim_port_up(dev);
	if (peer)
		pwas = xnic_sim_port_up(peer);
	WRITE_ONCE(dev->fault.link_down, !up);
	if (xnic_sim_port_up(dev) != was)
		xnic_sim_fault_port_event(dev, !was);
	if (peer && xnic_sim_port_up(peer) != pwas)
		xnic_sim_fault_port_event(peer, !pwas);
	if (up)
		static_branch_dec(&xnic_sim_faults_key);
}

/* Stop a flap, leaving the link as it is.  Sleeps. */
static void xnic_sim_fault_stop_flap(struct xnic_sim_dev *dev)
{
	struct xnic_sim_faults *f = &dev->fault;

	mutex_lock(&xnic_sim_link_lock);
	WRITE_ONCE(f->flap_ms, 0);
	mutex_unlock(&xnic_sim_link_lock);
	/* the work sees flap_ms 0 if it runs again: no re-arm */
	cancel_delayed_work_sync(&f->flap);
}

static void xnic_sim_fault_flap_work(struct work_struct *work)
{
	struct xnic_sim_faults *f = container_of(to_delayed_work(work),
						 struct xnic_sim_faults, flap);
	struct xnic_sim_dev *dev = container_of(f, struct xnic_sim_dev, fault);
	u32 ms;

	mutex_lock(&xnic_sim_link_lock);
	ms = READ_ONCE(f->flap_ms);
	if (ms) {
		xnic_sim_fault_set_link_locked(dev, f->link_down);
		schedule_delayed_work(&f->flap, msecs_to_jiffies(ms));
	}
	mutex_unlock(&xnic_sim_link_lock);
}

/**
 * xnic_sim_fault_set_flap - make a device's link flap
 * @dev: the device
 * @ms: the link goes down, then up, every @ms (XNIC_SIM_FLAP_MIN_MS ..
 *	XNIC_SIM_FLAP_MAX_MS); 0 stops the flap and leaves the link up
 *
 * Sleeps.  Return: 0 or -EINVAL.
 */
int xnic_sim_fault_set_flap(struct xnic_sim_dev *dev, u32 ms)
{
	struct xnic_sim_faults *f = &dev->fault;

	if (ms && (ms < XNIC_SIM_FLAP_MIN_MS || ms > XNIC_SIM_FLAP_MAX_MS))
		return -EINVAL;
	if (!ms) {
		xnic_sim_fault_stop_flap(dev);
		mutex_lock(&xnic_sim_link_lock);
		xnic_sim_fault_set_link_locked(dev, true);
		mutex_unlock(&xnic_sim_link_lock);
		return 0;
	}
	mutex_lock(&xnic_sim_link_lock);
	WRITE_ONCE(f->flap_ms, ms);
	mutex_unlock(&xnic_sim_link_lock);
	mod_delayed_work(system_wq, &f->flap, 0);
	return 0;
}

/**
 * xnic_sim_fault_set_link - take a device's port down or bring it up
 * @dev: the device
 * @up: the link's new state
 *
 * A cabled peer's port follows (one cable).  Each port whose state changed
 * tells its driver (PORT_CHANGE).  Stops a flap.  Sleeps.
 *
 * Return: 0.
 */
int xnic_sim_fault_set_link(struct xnic_sim_dev *dev, bool up)
{
	xnic_sim_fault_stop_flap(dev);
	mutex_lock(&xnic_sim_link_lock);
	xnic_sim_fault_set_link_locked(dev, up);
	mutex_unlock(&xnic_sim_link_lock);
	return 0;
}

/* ------------------------------------------------------------------ */
/* A device's faults                                                   */

void xnic_sim_fault_init(struct xnic_sim_dev *dev)
{
	struct xnic_sim_faults *f = &dev->fault;

	mutex_init(&f->lock);
	INIT_LIST_HEAD(&f->rules);
	INIT_DELAYED_WORK(&f->flap, xnic_sim_fault_flap_work);
	atomic64_set(&f->injected, 0);
}

/*
 * The device goes away (its engine stopped, no configfs writer any
 * more): the flap stops, the link counts as up again, rules left (none
 * through configfs, which holds the module while it has rules) are freed.
 */
void xnic_sim_fault_fini(struct xnic_sim_dev *dev)
{
	struct xnic_sim_faults *f = &dev->fault;
	struct xnic_sim_fault_rule *r, *tmp;

	xnic_sim_fault_stop_flap(dev);
	mutex_lock(&xnic_sim_link_lock);
	if (f->link_down) {
		WRITE_ONCE(f->link_down, false);
		static_branch_dec(&xnic_sim_faults_key);
	}
	mutex_unlock(&xnic_sim_link_lock);
	list_for_each_entry_safe(r, tmp, &f->rules, node)
		xnic_sim_fault_rule_del(r);
	xnic_sim_fault_drop_held(dev);
	mutex_destroy(&f->lock);
}
