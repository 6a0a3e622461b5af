/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xnic_sim: faults on demand (Documentation/faults.rst).
 *
 * A device's port can be taken down and up (its "link"), or made to flap;
 * rules make the device fail chosen messages, packets and completions:
 * each names a fault type, what it matches (a QP, a class of operation)
 * and how often it fires (a probability, every Nth, a count, a time
 * window, a seed for a repeatable run).  Users drive both through
 * configfs (xnic_sim_configfs.c); the data path asks here
 * (xnic_sim_fault.c).
 *
 * With no rule enabled and every link up, the data path pays one read
 * of a global counter per check (xnic_sim_faults_on()).  Not a static
 * key: flipping one patches kernel text at run time, and under QEMU's
 * TCG a vCPU can still run the patch's int3 after the patching is over
 * (an "Oops: int3" seen while a test took a link down).
 *
 * Rules are on a device's list under RCU; the data path (any engine,
 * kick serves included) asks xnic_sim_fault_find(), which reads them
 * under rcu_read_lock(), takes a rule's spinlock to decide (its counters
 * and PRNG) and hands back a copy of what the rule that fired asks for
 * (struct xnic_sim_fault_hit): no caller holds on to a rule.  Users
 * change the list, enable rules, take the link down and start a flap
 * under the device's fault mutex; the links themselves (a device's and
 * its cabled peer's) change under one global link mutex, taken inside it
 * and by the flap's work.
 */
#ifndef _XNIC_SIM_FAULT_H
#define _XNIC_SIM_FAULT_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/prandom.h>
#include <linux/atomic.h>
#include <linux/skbuff.h>

struct xnic_sim_dev;
struct xnic_sim_qp;

enum xnic_sim_fault_type {
	XNIC_SIM_FAULT_DROP,		/* the message or packet is lost */
	XNIC_SIM_FAULT_DELAY,		/* it arrives delay_us later */
	XNIC_SIM_FAULT_DUP,		/* a packet arrives twice (wire) */
	XNIC_SIM_FAULT_REORDER,		/* a packet arrives after the next */
	XNIC_SIM_FAULT_CORRUPT,		/* a packet's byte flipped (wire) */
	XNIC_SIM_FAULT_RNR,		/* an RC request answered RNR NAK */
	XNIC_SIM_FAULT_NAK_ACCESS,	/* ... NAK remote access error */
	XNIC_SIM_FAULT_NAK_OP,		/* ... NAK remote operational error */
	XNIC_SIM_FAULT_NAK_INV,		/* ... NAK invalid request */
	XNIC_SIM_FAULT_CQE_ERR,		/* a send WR completes with @status */
	XNIC_SIM_FAULT_CMD_FAIL,	/* a command fails with @cmd_status */
	XNIC_SIM_FAULT_CMD_TIMEOUT,	/* a command is never answered */
	XNIC_SIM_FAULT_NTYPES
};

#define XNIC_SIM_FAULT_BIT(t)	BIT(XNIC_SIM_FAULT_##t)
/* the types a message on the cable may meet (it is whole: no packets) */
#define XNIC_SIM_FAULT_CABLE	(XNIC_SIM_FAULT_BIT(DROP) |		\
				 XNIC_SIM_FAULT_BIT(DELAY) |		\
				 XNIC_SIM_FAULT_BIT(RNR) |		\
				 XNIC_SIM_FAULT_BIT(NAK_ACCESS) |	\
				 XNIC_SIM_FAULT_BIT(NAK_OP) |		\
				 XNIC_SIM_FAULT_BIT(NAK_INV))
/* the types a RoCEv2 frame arriving from the wire may meet */
#define XNIC_SIM_FAULT_FRAME	(XNIC_SIM_FAULT_BIT(DROP) |		\
				 XNIC_SIM_FAULT_BIT(DELAY) |		\
				 XNIC_SIM_FAULT_BIT(DUP) |		\
				 XNIC_SIM_FAULT_BIT(REORDER) |		\
				 XNIC_SIM_FAULT_BIT(CORRUPT))
/* the answers the wire's RC responder may be made to give */
#define XNIC_SIM_FAULT_ANSWER	(XNIC_SIM_FAULT_BIT(RNR) |		\
				 XNIC_SIM_FAULT_BIT(NAK_ACCESS) |	\
				 XNIC_SIM_FAULT_BIT(NAK_OP) |		\
				 XNIC_SIM_FAULT_BIT(NAK_INV))

/* the types a command may meet */
#define XNIC_SIM_FAULT_CMD	(XNIC_SIM_FAULT_BIT(CMD_FAIL) |		\
				 XNIC_SIM_FAULT_BIT(CMD_TIMEOUT))

/* Classes of operation a rule may match (XNIC_SIM_FOP_ANY: all) */
enum xnic_sim_fault_op {
	XNIC_SIM_FOP_ANY,
	XNIC_SIM_FOP_SEND,
	XNIC_SIM_FOP_WRITE,
	XNIC_SIM_FOP_READ,
	XNIC_SIM_FOP_ATOMIC,
	XNIC_SIM_FOP_OTHER,	/* of a packet or WQE: none of the above */
	XNIC_SIM_FOP_NUM
};

#define XNIC_SIM_FAULT_ANY_QP	U32_MAX
#define XNIC_SIM_FAULT_PPM	1000000U	/* rate: parts per million */
#define XNIC_SIM_FAULT_MAX_DELAY_US	1000000U
#define XNIC_SIM_FAULT_NAME_LEN	32
/* the link's flap period, ms */
#define XNIC_SIM_FLAP_MIN_MS	10U
#define XNIC_SIM_FLAP_MAX_MS	3600000U
/* RoCEv2 frames held back by delay and reorder rules, per device */
#define XNIC_SIM_FAULT_HELD	16

/**
 * struct xnic_sim_fault_rule - one rule of a device
 * @node: on the device's list (RCU)
 * @dev: the device
 * @name: its name (the configfs directory's)
 * @type: enum xnic_sim_fault_type; fixed while enabled
 * @enabled: whether it fires
 * @qpn: the QP it matches, or XNIC_SIM_FAULT_ANY_QP
 * @op: enum xnic_sim_fault_op it matches
 * @status: XNIC_CQE_* of a CQE_ERR rule
 * @cmd: the command (XNIC_CMD_*) a CMD_* rule matches, 0 any
 * @cmd_status: XNIC_CMD_* a CMD_FAIL rule answers
 * @delay_us: a DELAY rule's delay
 * @rate: probability of firing at a candidate match, in parts per million
 * @every: only every Nth match is a candidate (0, 1: every one)
 * @count: at most this many injections (0: no limit)
 * @after_ms: the window starts this long after enabling
 * @for_ms: and lasts this long (0: no end)
 * @seed: the PRNG's seed at enabling; 0: a random one
 * @lock: the state below (any engine)
 * @rnd: PRNG state
 * @start_ns: window start (xnic_sim_fault_now())
 * @end_ns: window end, 0 none
 * @matched: matches inside the window since enabling
 * @injected: faults injected since enabling
 * @rcu: freeing
 *
 * The configuration fields are written with WRITE_ONCE under the
 * device's fault mutex and read with READ_ONCE.
 */
struct xnic_sim_fault_rule {
	struct list_head node;
	struct xnic_sim_dev *dev;
	char name[XNIC_SIM_FAULT_NAME_LEN];
	u8 type;
	bool enabled;
	u32 qpn;
	u8 op;
	u8 status;
	u8 cmd;
	u8 cmd_status;
	u32 delay_us;
	u32 rate;
	u32 every;
	u32 count;
	u32 after_ms;
	u32 for_ms;
	u64 seed;

	spinlock_t lock;	/* decisions: @rnd, the window, the counters */
	struct rnd_state rnd;
	u64 start_ns;
	u64 end_ns;
	u64 matched;
	u64 injected;

	struct rcu_head rcu;
};

/**
 * struct xnic_sim_fault_hit - what a rule that fired asks for
 * @type: enum xnic_sim_fault_type
 * @status: a CQE_ERR rule's XNIC_CQE_* status
 * @cmd_status: a CMD_FAIL rule's XNIC_CMD_* status
 * @delay_us: a DELAY or REORDER rule's delay
 *
 * Copied from the rule as it fired (xnic_sim_fault_find()): the rule may
 * be gone by the time the data path acts on it.
 */
struct xnic_sim_fault_hit {
	u8 type;
	u8 status;
	u8 cmd_status;
	u32 delay_us;
};

/* A frame held back by a DELAY, REORDER or DUP rule (the engine's). */
struct xnic_sim_fault_held {
	struct sk_buff *skb;
	u64 at;			/* release then (xnic_sim_now()) */
	u64 after;		/* or once @taken reaches this, 0: no */
};

/**
 * struct xnic_sim_faults - a device's faults
 * @lock: serialises users: the rule list, enabling, the link, the flap
 * @rules: its rules (RCU readers)
 * @link_down: the port was taken down (not counting a cabled peer's)
 * @flap_ms: flap period, 0 off (under @lock)
 * @flap: the flap's work
 * @injected: faults injected on the device, all rules
 * @held: frames held back (the engine's)
 * @nheld: in use
 * @taken: RoCEv2 frames the engine took from the wire (the engine's)
 */
struct xnic_sim_faults {
	struct mutex lock;	/* users: list, enable, link */
	struct list_head rules;
	bool link_down;
	u32 flap_ms;
	struct delayed_work flap;
	atomic64_t injected;
	struct xnic_sim_fault_held held[XNIC_SIM_FAULT_HELD];
	u32 nheld;
	u64 taken;
};

/* rules enabled plus links taken down, on every device */
extern atomic_t xnic_sim_faults_nr;

/* Whether any device has a rule enabled or a port taken down. */
static inline bool xnic_sim_faults_on(void)
{
	return unlikely(atomic_read(&xnic_sim_faults_nr));
}

/* xnic_sim_fault.c */
extern const char *const xnic_sim_fault_type_names[XNIC_SIM_FAULT_NTYPES];
extern const char *const xnic_sim_fault_op_names[XNIC_SIM_FOP_NUM];
/* by XNIC_CMD_* (index 0: "any"), and by XNIC_CMD_ status (0: none) */
#define XNIC_SIM_FAULT_NCMDS	(XNIC_CMD_QUERY_COUNTERS + 1)
extern const char *const xnic_sim_fault_cmd_names[XNIC_SIM_FAULT_NCMDS];
#define XNIC_SIM_FAULT_NCMD_ST	(XNIC_CMD_BUSY + 1)
extern const char *const xnic_sim_fault_cmd_st_names[XNIC_SIM_FAULT_NCMD_ST];
void xnic_sim_fault_init(struct xnic_sim_dev *dev);
void xnic_sim_fault_quiesce(struct xnic_sim_dev *dev);
void xnic_sim_fault_fini(struct xnic_sim_dev *dev);
struct xnic_sim_fault_rule *xnic_sim_fault_rule_alloc(struct xnic_sim_dev *dev,
						      const char *name);
void xnic_sim_fault_rule_add(struct xnic_sim_fault_rule *r);
void xnic_sim_fault_rule_del(struct xnic_sim_fault_rule *r);
int xnic_sim_fault_rule_enable(struct xnic_sim_fault_rule *r, bool on);
void xnic_sim_fault_rule_counts(struct xnic_sim_fault_rule *r, u64 *matched,
				u64 *injected);
u64 xnic_sim_fault_now(void);
bool xnic_sim_fault_fire(struct xnic_sim_fault_rule *r, u64 now);
bool xnic_sim_fault_find(struct xnic_sim_dev *dev, u32 types, u32 qpn,
			 u32 qpn2, u8 op, struct xnic_sim_fault_hit *hit);
bool xnic_sim_fault_cmd_may_fail(u8 cmd);
int xnic_sim_fault_cmd(struct xnic_sim_dev *dev, u8 cmd, u32 *status);
u8 xnic_sim_fault_wqe_op(u8 wqe_opcode);
u8 xnic_sim_fault_pkt_op(u32 mask);
int xnic_sim_fault_set_link(struct xnic_sim_dev *dev, bool up);
int xnic_sim_fault_set_flap(struct xnic_sim_dev *dev, u32 ms);
bool xnic_sim_port_up(const struct xnic_sim_dev *dev);
bool xnic_sim_fault_link_up(const struct xnic_sim_dev *dev);
int xnic_sim_fault_req(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
		       struct xnic_sim_qp *rqp, u8 *status, int *r);
bool xnic_sim_fault_ud(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
		       struct xnic_sim_dev *rdev, struct xnic_sim_qp *rqp);
u8 xnic_sim_fault_cqe(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
		      u8 wqe_opcode);
int xnic_sim_fault_answer(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
			  u32 mask);
bool xnic_sim_fault_frame(struct xnic_sim_dev *dev, u32 dqpn, u32 mask,
			  struct xnic_sim_fault_hit *hit);
bool xnic_sim_fault_hold(struct xnic_sim_dev *dev, struct sk_buff *skb,
			 u64 at, u64 after);
struct sk_buff *xnic_sim_fault_release(struct xnic_sim_dev *dev, u64 now,
				       u64 *next);
void xnic_sim_fault_drop_held(struct xnic_sim_dev *dev);
int xnic_sim_fault_qp_error(struct xnic_sim_dev *dev, u32 qpn, u8 event);
int xnic_sim_fault_cq_error(struct xnic_sim_dev *dev, u32 cqn);
int xnic_sim_fault_srq_limit(struct xnic_sim_dev *dev, u32 srqn);
int xnic_sim_fault_fatal(struct xnic_sim_dev *dev);

/* xnic_sim_configfs.c (none without CONFIG_CONFIGFS_FS) */
#if IS_ENABLED(CONFIG_CONFIGFS_FS)
int xnic_sim_configfs_init(void);
void xnic_sim_configfs_exit(void);
int xnic_sim_configfs_add(struct xnic_sim_dev *dev);
void xnic_sim_configfs_del(struct xnic_sim_dev *dev);
#else
static inline int xnic_sim_configfs_init(void) { return 0; }
static inline void xnic_sim_configfs_exit(void) { }
static inline int xnic_sim_configfs_add(struct xnic_sim_dev *dev) { return 0; }
static inline void xnic_sim_configfs_del(struct xnic_sim_dev *dev) { }
#endif

#endif /* _XNIC_SIM_FAULT_H */
