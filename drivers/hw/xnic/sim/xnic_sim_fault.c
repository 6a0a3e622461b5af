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

atomic_t xnic_sim_faults_nr __read_mostly = ATOMIC_INIT(0);

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
	[XNIC_SIM_FAULT_CMD_FAIL] = "cmd_fail",
	[XNIC_SIM_FAULT_CMD_TIMEOUT] = "cmd_timeout",
};

const char *const xnic_sim_fault_op_names[XNIC_SIM_FOP_NUM] = {
	[XNIC_SIM_FOP_ANY] = "any",
	[XNIC_SIM_FOP_SEND] = "send",
	[XNIC_SIM_FOP_WRITE] = "write",
	[XNIC_SIM_FOP_READ] = "read",
	[XNIC_SIM_FOP_ATOMIC] = "atomic",
	[XNIC_SIM_FOP_OTHER] = "other",
};

const char *const xnic_sim_fault_cmd_names[XNIC_SIM_FAULT_NCMDS] = {
	[0] = "any",
	[XNIC_CMD_QUERY_CAPS] = "query_caps",
	[XNIC_CMD_CREATE_CQ] = "create_cq",
	[XNIC_CMD_DESTROY_CQ] = "destroy_cq",
	[XNIC_CMD_CREATE_QP] = "create_qp",
	[XNIC_CMD_MODIFY_QP] = "modify_qp",
	[XNIC_CMD_QUERY_QP] = "query_qp",
	[XNIC_CMD_DESTROY_QP] = "destroy_qp",
	[XNIC_CMD_CREATE_SRQ] = "create_srq",
	[XNIC_CMD_MODIFY_SRQ] = "modify_srq",
	[XNIC_CMD_DESTROY_SRQ] = "destroy_srq",
	[XNIC_CMD_REG_MR] = "reg_mr",
	[XNIC_CMD_DEREG_MR] = "dereg_mr",
	[XNIC_CMD_ALLOC_DB] = "alloc_db",
	[XNIC_CMD_FREE_DB] = "free_db",
	[XNIC_CMD_SET_GID] = "set_gid",
	[XNIC_CMD_ALLOC_MW] = "alloc_mw",
	[XNIC_CMD_DEALLOC_MW] = "dealloc_mw",
	[XNIC_CMD_RESIZE_CQ] = "resize_cq",
	[XNIC_CMD_RESIZE_SRQ] = "resize_srq",
	[XNIC_CMD_ATTACH_MCAST] = "attach_mcast",
	[XNIC_CMD_DETACH_MCAST] = "detach_mcast",
	[XNIC_CMD_QUERY_COUNTERS] = "query_counters",
};

const char *const xnic_sim_fault_cmd_st_names[XNIC_SIM_FAULT_NCMD_ST] = {
	[XNIC_CMD_BAD_OPCODE] = "bad_opcode",
	[XNIC_CMD_BAD_PARAM] = "bad_param",
	[XNIC_CMD_BAD_STATE] = "bad_state",
	[XNIC_CMD_NO_RESOURCES] = "no_resources",
	[XNIC_CMD_BAD_INDEX] = "bad_index",
	[XNIC_CMD_BUSY] = "busy",
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
	r->cmd_status = XNIC_CMD_NO_RESOURCES;
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
 * Sleeps (the fault mutex).  Return: 0.
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
		now = xnic_sim_fault_now();
		spin_lock(&r->lock);
		prandom_seed_state(&r->rnd, seed);
		r->matched = 0;
		r->injected = 0;
		r->start_ns = now + (u64)READ_ONCE(r->after_ms) * NSEC_PER_MSEC;
		r->end_ns = READ_ONCE(r->for_ms) ?
			    r->start_ns +
			    (u64)READ_ONCE(r->for_ms) * NSEC_PER_MSEC : 0;
		spin_unlock(&r->lock);
		atomic_inc(&xnic_sim_faults_nr);
	}
	WRITE_ONCE(r->enabled, on);
	if (!on)
		atomic_dec(&xnic_sim_faults_nr);
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
 * @now: xnic_sim_fault_now()
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

/*
 * The clock of rule windows: one for all CPUs (a rule enabled on one CPU
 * and asked on another must see its window start at once), unlike the
 * engine's local_clock() deadlines.
 */
u64 xnic_sim_fault_now(void)
{
	return ktime_get_ns();
}

/*
 * Whether @r matches a QP and an operation (a command: @op is its
 * XNIC_CMD_*), regardless of its window.
 */
static bool xnic_sim_fault_matches(const struct xnic_sim_fault_rule *r,
				   u32 types, u32 qpn, u32 qpn2, u8 op)
{
	u32 rq = READ_ONCE(r->qpn);
	u8 rop = READ_ONCE(r->op), cmd = READ_ONCE(r->cmd);

	if (!READ_ONCE(r->enabled) || !(types & BIT(r->type)))
		return false;
	if (BIT(r->type) & XNIC_SIM_FAULT_CMD)
		return (!cmd || cmd == op) && rq == XNIC_SIM_FAULT_ANY_QP &&
		       rop == XNIC_SIM_FOP_ANY;
	return (rq == XNIC_SIM_FAULT_ANY_QP || rq == qpn || rq == qpn2) &&
	       (rop == XNIC_SIM_FOP_ANY || rop == op);
}

/* The name of what @r matched: a class of operation, or a command. */
static const char *xnic_sim_fault_what(const struct xnic_sim_fault_rule *r,
				       u8 op)
{
	if (BIT(r->type) & XNIC_SIM_FAULT_CMD)
		return op < XNIC_SIM_FAULT_NCMDS && xnic_sim_fault_cmd_names[op] ?
		       xnic_sim_fault_cmd_names[op] : "command";
	return op < XNIC_SIM_FOP_NUM ? xnic_sim_fault_op_names[op] : "other";
}

/**
 * xnic_sim_fault_find - the first rule of a device that fires
 * @dev: the device whose rules are asked
 * @types: BIT(enum xnic_sim_fault_type) of the types that may act here
 * @qpn: the device's QP concerned
 * @qpn2: another of its QPs concerned (loopback: the requester and the
 *	  responder), or XNIC_SIM_FAULT_ANY_QP
 * @op: enum xnic_sim_fault_op (a command's rules: its XNIC_CMD_*)
 * @hit: set to what the rule that fired asks for
 *
 * Rules are asked in the order they were made; the first that fires
 * wins, and later ones are not asked (their counters do not move).
 * Takes rcu_read_lock() itself; does not sleep.
 *
 * Return: whether a rule fired (then *@hit is a copy of it).
 */
bool xnic_sim_fault_find(struct xnic_sim_dev *dev, u32 types, u32 qpn,
			 u32 qpn2, u8 op, struct xnic_sim_fault_hit *hit)
{
	struct xnic_sim_fault_rule *r;
	bool fired = false;
	u64 now = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(r, &dev->fault.rules, node) {
		if (!xnic_sim_fault_matches(r, types, qpn, qpn2, op))
			continue;
		if (!now)
			now = xnic_sim_fault_now();
		if (xnic_sim_fault_fire(r, now)) {
			atomic64_inc(&dev->fault.injected);
			trace_xnic_sim_fault(dev->index, r->name,
					     xnic_sim_fault_type_names[r->type],
					     qpn, xnic_sim_fault_what(r, op));
			*hit = (struct xnic_sim_fault_hit) {
				.type = r->type,
				.status = READ_ONCE(r->status),
				.cmd_status = READ_ONCE(r->cmd_status),
				.delay_us = READ_ONCE(r->delay_us),
			};
			fired = true;
			break;
		}
	}
	rcu_read_unlock();
	return fired;
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
 * Whether a rule of @dev or of @rdev (the responder's device, if another)
 * fires for a message between @qpn (@dev's) and @rqpn (@rdev's); *@hit
 * is what it asks for.
 */
static bool xnic_sim_fault_pair(struct xnic_sim_dev *dev, u32 qpn,
				struct xnic_sim_dev *rdev, u32 rqpn, u32 types,
				u8 op, struct xnic_sim_fault_hit *hit)
{
	if (dev == rdev)
		return xnic_sim_fault_find(dev, types, qpn, rqpn, op, hit);
	return xnic_sim_fault_find(dev, types, qpn, XNIC_SIM_FAULT_ANY_QP, op,
				   hit) ||
	       xnic_sim_fault_find(rdev, types, rqpn, XNIC_SIM_FAULT_ANY_QP,
				   op, hit);
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
	u32 types = XNIC_SIM_FAULT_CABLE;
	bool rc = xnic_sim_qpt_rc(qp->type);
	struct xnic_sim_fault_hit hit;

	if (qp->fault_delayed)
		types &= ~XNIC_SIM_FAULT_BIT(DELAY);
	/* RNR: only a request that takes a receive WQE */
	if (op != XNIC_SIM_FOP_SEND && opcode != XNIC_OP_RDMA_WRITE_WITH_IMM)
		types &= ~XNIC_SIM_FAULT_BIT(RNR);
	if (!rc)
		types &= ~(XNIC_SIM_FAULT_BIT(NAK_ACCESS) |
			   XNIC_SIM_FAULT_BIT(NAK_OP) |
			   XNIC_SIM_FAULT_BIT(NAK_INV));
	if (!xnic_sim_fault_pair(dev, qp->qpn, rqp->dev, rqp->qpn, types, op,
				 &hit))
		return false;

	switch (hit.type) {
	case XNIC_SIM_FAULT_DROP:
		*r = xnic_sim_no_answer(qp, status);
		break;
	case XNIC_SIM_FAULT_DELAY:
		qp->fault_delayed = true;
		qp->wait_until = xnic_sim_now() +
				 (u64)hit.delay_us * NSEC_PER_USEC;
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
	struct xnic_sim_fault_hit hit;

	if (!xnic_sim_port_up(dev) || !xnic_sim_port_up(rdev))
		return true;
	return xnic_sim_fault_pair(dev, qp->qpn, rdev, rqp->qpn,
				   XNIC_SIM_FAULT_BIT(DROP), XNIC_SIM_FOP_SEND,
				   &hit);
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
	struct xnic_sim_fault_hit hit;

	if (!xnic_sim_fault_find(dev, XNIC_SIM_FAULT_BIT(CQE_ERR), qp->qpn,
				 XNIC_SIM_FAULT_ANY_QP,
				 xnic_sim_fault_wqe_op(wqe_opcode), &hit))
		return XNIC_CQE_SUCCESS;
	return hit.status;
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
	struct xnic_sim_fault_hit hit;

	if (!(mask & XNIC_SIM_PH_SEND))
		types &= ~XNIC_SIM_FAULT_BIT(RNR);
	if (!xnic_sim_fault_find(dev, types, qp->qpn, XNIC_SIM_FAULT_ANY_QP,
				 xnic_sim_fault_pkt_op(mask), &hit))
		return -1;
	return hit.type;
}

/**
 * xnic_sim_fault_frame - a frame fault for a RoCEv2 packet that arrived
 * @dev: the device (its engine)
 * @dqpn: the packet's destination QP (the device's)
 * @mask: its XNIC_SIM_PH_*
 * @hit: set to what the rule that fired asks for
 *
 * The faults that hold a frame back (delay, reorder, dup) are not asked
 * while no frame can be held: a fault counted is a fault injected.
 *
 * Return: whether a rule fired.
 */
bool xnic_sim_fault_frame(struct xnic_sim_dev *dev, u32 dqpn, u32 mask,
			  struct xnic_sim_fault_hit *hit)
{
	u32 types = XNIC_SIM_FAULT_FRAME;

	if (dev->fault.nheld >= XNIC_SIM_FAULT_HELD)
		types &= ~(XNIC_SIM_FAULT_BIT(DELAY) |
			   XNIC_SIM_FAULT_BIT(REORDER) |
			   XNIC_SIM_FAULT_BIT(DUP));
	return xnic_sim_fault_find(dev, types, dqpn, XNIC_SIM_FAULT_ANY_QP,
				   xnic_sim_fault_pkt_op(mask), hit);
}

/**
 * xnic_sim_fault_cmd_may_fail - whether a command may be made to fail
 * @cmd: XNIC_CMD_*
 *
 * Not those that release an object (destroy, deregister, free,
 * deallocate, detach): software cannot leave an object it frees with the
 * device, so a real device does not refuse them (they may time out).
 */
bool xnic_sim_fault_cmd_may_fail(u8 cmd)
{
	return !xnic_cmd_releases(cmd);
}

/**
 * xnic_sim_fault_cmd - a fault for a command the device is to execute
 * @dev: the device (its engine)
 * @cmd: the command's XNIC_CMD_*
 * @status: a CMD_FAIL rule's XNIC_CMD_* status
 *
 * Return: XNIC_SIM_FAULT_CMD_FAIL (not executed, answered @status),
 * XNIC_SIM_FAULT_CMD_TIMEOUT (not executed, never answered), or -1.
 */
int xnic_sim_fault_cmd(struct xnic_sim_dev *dev, u8 cmd, u32 *status)
{
	u32 types = XNIC_SIM_FAULT_CMD;
	struct xnic_sim_fault_hit hit;

	if (!xnic_sim_fault_cmd_may_fail(cmd))
		types &= ~XNIC_SIM_FAULT_BIT(CMD_FAIL);
	if (!xnic_sim_fault_find(dev, types, XNIC_SIM_FAULT_ANY_QP,
				 XNIC_SIM_FAULT_ANY_QP, cmd, &hit))
		return -1;
	*status = hit.cmd_status;
	return hit.type;
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
 * Frames that are due leave in the order they were held: a delay rule
 * on many frames delays them, it does not reorder them.
 *
 * Return: the first held frame that is due, taken off the list, or NULL.
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
			/* the rest keep their order: due frames go first-in */
			f->nheld--;
			memmove(&f->held[i], &f->held[i + 1],
				(f->nheld - i) * sizeof(f->held[0]));
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
	/*
	 * Counted while the flag is set; a reader racing the change sees
	 * the port as it was or as it is now, both right at that moment.
	 */
	if (!up)
		atomic_inc(&xnic_sim_faults_nr);
	was = xnic_sim_port_up(dev);
	if (peer)
		pwas = xnic_sim_port_up(peer);
	WRITE_ONCE(dev->fault.link_down, !up);
	if (xnic_sim_port_up(dev) != was)
		xnic_sim_fault_port_event(dev, !was);
	if (peer && xnic_sim_port_up(peer) != pwas)
		xnic_sim_fault_port_event(peer, !pwas);
	if (up)
		atomic_dec(&xnic_sim_faults_nr);
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
	mutex_lock(&f->lock);
	if (!ms) {
		xnic_sim_fault_stop_flap(dev);
		mutex_lock(&xnic_sim_link_lock);
		xnic_sim_fault_set_link_locked(dev, true);
		mutex_unlock(&xnic_sim_link_lock);
	} else {
		mutex_lock(&xnic_sim_link_lock);
		WRITE_ONCE(f->flap_ms, ms);
		mutex_unlock(&xnic_sim_link_lock);
		mod_delayed_work(system_wq, &f->flap, 0);
	}
	mutex_unlock(&f->lock);
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
	mutex_lock(&dev->fault.lock);
	xnic_sim_fault_stop_flap(dev);
	mutex_lock(&xnic_sim_link_lock);
	xnic_sim_fault_set_link_locked(dev, up);
	mutex_unlock(&xnic_sim_link_lock);
	mutex_unlock(&dev->fault.lock);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Events on demand                                                    */

/**
 * xnic_sim_fault_qp_error - put a QP in the error state, with an event
 * @dev: the device
 * @qpn: the QP
 * @event: XNIC_EQE_QP_FATAL, _QP_REQ_ERR or _QP_ACCESS_ERR
 *
 * As the engine does when it finds such an error: the QP goes to ERR,
 * its driver gets @event, its work requests are flushed.  Sleeps (it
 * waits for a bounded engine pass: exec_lock, as a command).
 *
 * Return: 0, -ENOENT (no such QP), -EINVAL (a bad @event, or the QP in
 * RESET or already in ERR).
 */
int xnic_sim_fault_qp_error(struct xnic_sim_dev *dev, u32 qpn, u8 event)
{
	struct xnic_sim_qp *qp;
	int ret = 0;
	u8 state;

	if (event != XNIC_EQE_QP_FATAL && event != XNIC_EQE_QP_REQ_ERR &&
	    event != XNIC_EQE_QP_ACCESS_ERR)
		return -EINVAL;
	mutex_lock(&dev->exec_lock);
	qp = xnic_sim_tbl_get(&dev->qps, qpn);
	if (!qp) {
		ret = -ENOENT;
		goto out;
	}
	state = READ_ONCE(qp->state);
	if (state == XNIC_QPS_RESET || state == XNIC_QPS_ERR) {
		ret = -EINVAL;
		goto out;
	}
	xnic_sim_qp_set_err(qp, event);
out:
	mutex_unlock(&dev->exec_lock);
	if (!ret)
		xnic_sim_kick(dev);
	return ret;
}

/**
 * xnic_sim_fault_cq_error - overrun a CQ
 * @dev: the device
 * @cqn: the CQ
 *
 * As a full ring does: CQ_ERR to the driver, no more entries written
 * (a QP that completes into it then goes to ERR, QP_FATAL).  Sleeps.
 *
 * Return: 0, -ENOENT (no such CQ), -EINVAL (already overrun).
 */
int xnic_sim_fault_cq_error(struct xnic_sim_dev *dev, u32 cqn)
{
	struct xnic_sim_cq *cq;
	int ret = 0;

	mutex_lock(&dev->exec_lock);
	cq = xnic_sim_tbl_get(&dev->cqs, cqn);
	if (!cq) {
		ret = -ENOENT;
		goto out;
	}
	spin_lock(&cq->lock);
	if (cq->overrun) {
		ret = -EINVAL;
	} else {
		cq->overrun = true;
		xnic_sim_count(dev, XNIC_SIM_CTR_cq_overruns, 1);
		xnic_sim_eq_post(dev, XNIC_EQE_CQ_ERR, cq->cqn, 0);
	}
	spin_unlock(&cq->lock);
out:
	mutex_unlock(&dev->exec_lock);
	return ret;
}

/**
 * xnic_sim_fault_srq_limit - an armed SRQ reports its limit reached
 * @dev: the device
 * @srqn: the SRQ
 *
 * As when its receive WQEs fall below the limit: SRQ_LIMIT to the driver,
 * the limit disarmed.  Sleeps.
 *
 * Return: 0, -ENOENT (no such SRQ), -EAGAIN (its limit is not armed).
 */
int xnic_sim_fault_srq_limit(struct xnic_sim_dev *dev, u32 srqn)
{
	struct xnic_sim_srq *srq;
	bool armed = false;
	int ret = 0;

	mutex_lock(&dev->exec_lock);
	srq = xnic_sim_tbl_get(&dev->srqs, srqn);
	if (!srq) {
		ret = -ENOENT;
		goto out;
	}
	spin_lock(&srq->lock);
	if (srq->limit) {
		srq->limit = 0;
		armed = true;
	}
	spin_unlock(&srq->lock);
	if (armed)
		xnic_sim_eq_post(dev, XNIC_EQE_SRQ_LIMIT, srqn, 0);
	else
		ret = -EAGAIN;
out:
	mutex_unlock(&dev->exec_lock);
	return ret;
}

/**
 * xnic_sim_fault_fatal - the device fails
 * @dev: the device
 *
 * It reports DEVICE_FATAL, then stops: STATUS.FATAL, no command and no
 * work request is executed any more, until the driver resets it
 * (registers.rst, RESET).  Sleeps.
 *
 * Return: 0, or -EINVAL if it is fatal already or not enabled.
 */
int xnic_sim_fault_fatal(struct xnic_sim_dev *dev)
{
	unsigned long flags;
	int ret = 0;

	mutex_lock(&dev->exec_lock);
	if (!READ_ONCE(dev->enable) ||
	    (READ_ONCE(dev->status) & XNIC_STATUS_FATAL)) {
		ret = -EINVAL;
		goto out;
	}
	xnic_sim_eq_post(dev, XNIC_EQE_DEVICE_FATAL, 0, 0);
	spin_lock_irqsave(&dev->reg_lock, flags);
	WRITE_ONCE(dev->status, dev->status | XNIC_STATUS_FATAL);
	spin_unlock_irqrestore(&dev->reg_lock, flags);
	pr_err("xnic_sim %d: device fatal (injected)\n", dev->index);
out:
	mutex_unlock(&dev->exec_lock);
	return ret;
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

/**
 * xnic_sim_fault_quiesce - stop a device's flap for good
 * @dev: the device (no configfs writer any more)
 *
 * Every device that shares a cable must be quiesced before either is
 * freed: a flap reads its peer's link.  Sleeps.
 */
void xnic_sim_fault_quiesce(struct xnic_sim_dev *dev)
{
	mutex_lock(&dev->fault.lock);
	xnic_sim_fault_stop_flap(dev);
	mutex_unlock(&dev->fault.lock);
}

/*
 * The device goes away (its engine stopped, no configfs writer any
 * more, xnic_sim_fault_quiesce() done on it and its peer): the flap
 * stops, the link counts as up again, rules left (none through configfs,
 * which holds the module while it has rules) are freed.
 */
void xnic_sim_fault_fini(struct xnic_sim_dev *dev)
{
	struct xnic_sim_faults *f = &dev->fault;
	struct xnic_sim_fault_rule *r, *tmp;

	xnic_sim_fault_stop_flap(dev);
	mutex_lock(&xnic_sim_link_lock);
	if (f->link_down) {
		WRITE_ONCE(f->link_down, false);
		atomic_dec(&xnic_sim_faults_nr);
	}
	mutex_unlock(&xnic_sim_link_lock);
	list_for_each_entry_safe(r, tmp, &f->rules, node)
		xnic_sim_fault_rule_del(r);
	xnic_sim_fault_drop_held(dev);
	mutex_destroy(&f->lock);
}
