/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xnic_sim: the port on an Ethernet (Documentation/xnic/wire.rst).
 *
 * A port may be attached to a host netdev (the netdev module parameter,
 * or the device's "netdev" sysfs attribute at run time): the netdev is
 * then the port's wire.  What the port's Ethernet function transmits
 * leaves on it, what arrives on it is the port's (an rx_handler, as a
 * bridge port), and RDMA traffic to a GID that is neither the port's own
 * nor its cabled peer's goes over it as RoCEv2.
 *
 *   xnic_sim_wire.c   attach/detach, identity, the rx_handler, frames in
 *                     and out, the neighbour cache (MACs of peers),
 *                     dispatching received RoCEv2 packets (engine)
 *   xnic_sim_roce.c   packet formats and ICRC (xnic_sim_roce.h)
 *   xnic_sim_wreq.c   requester and completer of wire QPs: packets out
 *                     of send WQEs, PSNs, the retransmission timer,
 *                     go-back-N, ACK/NAK/READ response/atomic ACK
 *                     handling, completions (struct xnic_sim_wreq)
 *   xnic_sim_wresp.c  responder of wire QPs: PSN checks, duplicates,
 *                     receive WQEs across packets, RDMA WRITE, READ
 *                     responses within max_dest_rd_atomic, atomics and
 *                     their replay cache, ACK coalescing, NAKs, RNR,
 *                     UD and UC receives (struct xnic_sim_wresp)
 *
 * Where it runs.  The rx_handler (softirq) only queues RoCEv2 frames for
 * the device's engine and kicks it; every transport state change is the
 * engine's (exec_lock held, the engine thread, never a kick serve), so
 * the requester and responder state of a QP needs no lock of its own.
 * Frames are sent with dev_queue_xmit() from the engine; a UD send
 * (xnic_sim_wreq_ud_send(), no transport state) may also go out from a
 * kick serve, preemption disabled: it allocates with GFP_ATOMIC.
 */
#ifndef _XNIC_SIM_WIRE_H
#define _XNIC_SIM_WIRE_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/skbuff.h>
#include "xnic_sim_roce.h"

struct xnic_sim_dev;
struct xnic_sim_qp;
struct xnic_sim_budget;
struct xnic_cmd_modify_qp;

/* RoCEv2 frames an engine pass takes from the wire */
#define XNIC_SIM_WIRE_RX_BUDGET	64
/* Send WQEs a wire QP may have in flight (sent, not yet acknowledged). */
#define XNIC_SIM_WIRE_WINDOW	64
/* RDMA READ / atomic responder resources kept for duplicates */
#define XNIC_SIM_WIRE_RD_RES	XNIC_SIM_MAX_RD_ATOM
/*
 * What the responder sends of READ responses (and the atomic ACKs queued
 * behind them) in an engine pass, all QPs together: packets, and payload
 * bytes (a packet starts while some are left); a QP's turn at most
 * XNIC_SIM_WIRE_RD_TURN packets.  The rest waits for the next pass.
 */
#define XNIC_SIM_WIRE_RD_PKTS	64
#define XNIC_SIM_WIRE_RD_BYTES	(128U << 10)
#define XNIC_SIM_WIRE_RD_TURN	16

/* PSNs a wire RC QP may have sent and not had acknowledged (as rxe) */
#define XNIC_SIM_WIRE_PSN_WINDOW	128
/*
 * PSNs from the first of the oldest WQE in flight to the next new one, at
 * most (IBTA's bound of outstanding PSNs; a WQE of 2^31 bytes at path
 * MTU 256 takes all of them)
 */
#define XNIC_SIM_WIRE_PSN_SPAN		BIT(23)

/**
 * struct xnic_sim_wflight - one send WQE on the wire, sent or being sent
 * (requester)
 * @idx: its SQ index (free running, as sq_ci)
 * @opcode: XNIC_OP_*
 * @flags: XNIC_WQE_*
 * @status: set when it is to complete in error (when it is the oldest)
 * @wr_id: for its CQE
 * @len: bytes its local segments hold (an atomic: 8 or more)
 * @first_psn: PSN of its first packet (a READ: of its first response)
 * @npkts: PSNs it takes: its packets (a READ: its responses)
 */
struct xnic_sim_wflight {
	u32 idx;
	u8 opcode;
	u8 flags;
	u8 status;
	u64 wr_id;
	u32 len;
	u32 first_psn;
	u32 npkts;
};

/**
 * struct xnic_sim_wreq - requester and completer state of a wire QP
 * (xnic_sim_wreq.c; all of it the owner's engine's).  Reset when the QP
 * goes to RESET (xnic_sim_wreq_reset()).  The PSN of the next new packet
 * is the QP's sq_psn; fl[fl_head] is the WQE at sq_ci.
 */
struct xnic_sim_wreq {
	struct xnic_sim_wflight fl[XNIC_SIM_WIRE_WINDOW];
	u32 fl_head;		/* oldest in flight (index into fl, free running) */
	u32 fl_tail;		/* next free */
	u32 una_psn;		/* oldest PSN not acknowledged (or received) */
	u32 ack_psn;		/* one past the highest PSN an ACK named */
	u32 snd_psn;		/* PSN of the next packet to send */
	u32 max_psn;		/* one past the highest PSN sent */
	u32 rd_out;		/* READs/atomics outstanding (<= max_rd_atomic) */
	u32 neigh_waits;	/* waits for a neighbour, in a row */
	bool gap_retried;	/* response gap asked again; progress clears */
	u64 timer;		/* retransmission deadline (ns), 0 off */
	u64 wait_until;		/* RNR or neighbour wait until (ns), 0 off */
};

/**
 * struct xnic_sim_wres - a READ or atomic the responder executed, kept to
 * answer it and its duplicates (xnic_sim_wresp.c).  max_dest_rd_atomic
 * of them, the oldest reused (as rxe).
 * @opcode: BTH opcode of the request; 0: unused
 * @pending: answers are still to be sent, from @cur_psn on (READ
 *	     responses, or an atomic's ACK queued behind them)
 * @psn: its PSN (the first response's)
 * @last_psn: PSN of the last response
 * @cur_psn: the next response to send while @pending (rxe's cur_psn)
 * @va: RETH / AtomicETH address
 * @rkey: its key
 * @len: READ: bytes
 * @orig: atomic: the original value returned
 * @msn: the MSN its responses / ACK carry (counting itself)
 */
struct xnic_sim_wres {
	u8 opcode;
	bool pending;
	u32 psn;
	u32 last_psn;
	u32 cur_psn;
	u64 va;
	u32 rkey;
	u32 len;
	u64 orig;
	u32 msn;
};

/**
 * struct xnic_sim_wresp - responder state of a wire QP (xnic_sim_wresp.c;
 * the owner's engine's).  rq_psn of struct xnic_sim_qp is the next PSN
 * expected.  Reset with the QP (xnic_sim_wresp_reset()).
 * @qp: the QP (set when it first goes on the device's list)
 * @ack_node: on the device's list of QPs owing answers (wresp_acks: an
 *	      ACK, or READ responses) ...
 * @on_ack: ... while set
 * @ack_due: an ACK is owed (coalesced: sent before the next frame from
 *	     the wire is taken, or after the READ responses before it) ...
 * @ack_psn: ... for this PSN
 * @npending: resources with answers still to send (@res[].pending)
 * @nak_due: a PSN sequence or RNR NAK waits for them ...
 * @nak_psn: ... for this PSN ...
 * @nak_syndrome: ... with this syndrome
 * @ipv4: the last request came over IPv4 (answers go the same way)
 * @msn: message sequence number (24 bits)
 * @msg: a SEND or WRITE in progress: XNIC_SIM_PH_SEND or _WRITE, else 0
 * @msg_off: bytes of it received
 * @wr_va: WRITE in progress: its RETH address
 * @wr_rkey: ... key
 * @wr_len: ... DMA length
 * @have_rwqe: a receive WQE taken (by a SEND in progress, or kept by UC
 *	       for the next message after one was dropped): @rwqe
 * @rwqe: a copy of it (header and SGEs)
 * @nak_sent: a PSN sequence NAK is out (send only one)
 * @res: READ and atomic responder resources
 * @res_head: the next one to (re)use
 */
struct xnic_sim_wresp {
	struct xnic_sim_qp *qp;
	struct list_head ack_node;
	bool on_ack;
	bool ack_due;
	u32 ack_psn;
	u32 npending;
	bool nak_due;
	u32 nak_psn;
	u8 nak_syndrome;
	bool ipv4;
	u32 msn;
	u32 msg;
	u32 msg_off;
	u64 wr_va;
	u32 wr_rkey;
	u32 wr_len;
	bool have_rwqe;
	u8 rwqe[sizeof(struct xnic_rwqe) +
		XNIC_SIM_MAX_SGE * sizeof(struct xnic_sge)] __aligned(8);
	bool nak_sent;
	struct xnic_sim_wres res[XNIC_SIM_WIRE_RD_RES];
	u32 res_head;
};

/* xnic_sim_wire.c */
/* Bound of the RoCEv2 frames queued for the engine (more: dropped) */
#define XNIC_SIM_WIRE_RXQ_MAX	1024
/* Entries of the neighbour cache (GID -> MAC) */
#define XNIC_SIM_WIRE_NEIGH_MAX	64

int xnic_sim_wire_init(struct xnic_sim_dev *dev);
void xnic_sim_wire_free(struct xnic_sim_dev *dev);
int xnic_sim_wire_module_init(void);
void xnic_sim_wire_module_exit(void);
/* The attached netdev's name into @buf (IFNAMSIZ), "" if none. */
void xnic_sim_wire_ifname(struct xnic_sim_dev *dev, char *buf);
void xnic_sim_wire_debugfs(struct xnic_sim_dev *dev, struct dentry *dir);
/* Learn (or overwrite) the MAC of @gid; false for a GID not cached. */
bool xnic_sim_wire_neigh_learn(struct xnic_sim_dev *dev, const u8 *gid,
			       const u8 *mac);
/* The MAC for @gid (multicast, link-local EUI-64, cache); false if none */
bool xnic_sim_wire_resolve(struct xnic_sim_dev *dev, const u8 *gid,
			   u8 mac[6]);
int xnic_sim_wire_attach(struct xnic_sim_dev *dev, const char *ifname);
void xnic_sim_wire_detach(struct xnic_sim_dev *dev);
bool xnic_sim_wire_on(const struct xnic_sim_dev *dev);
/* Header bytes an IB MTU leaves room for in a netdev MTU (rxe's 80) */
#define XNIC_SIM_WIRE_MTU_HDR	80
/* The largest IB MTU (XNIC_MTU_*) a netdev MTU carries, as rxe's. */
u8 xnic_sim_wire_mtu_code(u32 ndev_mtu);
/* The port's active MTU: the attached netdev's, else 4096 (XNIC_MTU_*). */
u8 xnic_sim_wire_active_mtu(const struct xnic_sim_dev *dev);
/* Engine: received RoCEv2 frames, at most @max; whether any was. */
bool xnic_sim_wire_rx_poll(struct xnic_sim_dev *dev, u32 max, u64 *next);
/*
 * A frame for @p with room for @p->paylen bytes of payload at *@payload
 * (the caller fills it, then calls xnic_sim_wire_xmit()).  @p->sgid and
 * dgid are the caller's, the MACs the wire's.  NULL: no memory (counted).
 */
struct sk_buff *xnic_sim_wire_alloc(struct xnic_sim_dev *dev,
				    const struct xnic_sim_pkt *p,
				    u8 **payload);
/*
 * Resolve @p->dgid's MAC, write the headers and ICRC, send.  Consumes
 * @skb.  Return: 0, or -EHOSTUNREACH with no MAC for it yet (a request
 * for it is on its way; the frame is dropped and counted).
 */
int xnic_sim_wire_xmit(struct xnic_sim_dev *dev, struct sk_buff *skb,
		       struct xnic_sim_pkt *p);
/* The Ethernet function's TX when attached: Return: whether it was sent. */
bool xnic_sim_wire_eth_xmit(struct xnic_sim_dev *dev, const u8 *frame,
			    u32 len);

#ifdef XNIC_SIM_TEST_HOOKS
/*
 * KUnit seam: a wire without a netdev.  Every frame the port transmits
 * (RoCEv2 and its Ethernet function's) is handed to @tx(@ctx, @dev, skb),
 * which owns the skb (skb->data: the Ethernet header); it runs in the
 * engine's context under rcu_read_lock() and must not sleep.
 * xnic_sim_wire_detach() undoes it.  Return: 0 or -EISCONN.
 */
typedef void (*xnic_sim_wire_tx_fn)(void *ctx, struct xnic_sim_dev *dev,
				    struct sk_buff *skb);
int xnic_sim_wire_attach_fake(struct xnic_sim_dev *dev,
			      xnic_sim_wire_tx_fn tx, void *ctx);
/*
 * A frame received as the rx_handler would take it (skb->data: the
 * Ethernet header; any context but hard IRQ); consumes @skb.
 */
void xnic_sim_wire_inject(struct xnic_sim_dev *dev, struct sk_buff *skb);
/* Where the rx_handler would put a frame (enum xnic_sim_wire_class). */
int xnic_sim_wire_classify(struct xnic_sim_dev *dev, const u8 *frame,
			   u32 len);
/* The attached netdev's MTU changed to @mtu (0: none), as on the notifier. */
void xnic_sim_wire_set_mtu(struct xnic_sim_dev *dev, u32 mtu);
/* RoCEv2 frames dropped for their VLAN tag. */
u64 xnic_sim_wire_rx_vlan_drops(struct xnic_sim_dev *dev);
/* Frames dropped because the engine's queue was full. */
u64 xnic_sim_wire_rxq_drops(struct xnic_sim_dev *dev);
u32 xnic_sim_wire_rxq_len(struct xnic_sim_dev *dev);
#endif

/* What the rx_handler does with a frame */
enum xnic_sim_wire_class {
	XNIC_SIM_WIRE_DROP,	/* not the port's (another MAC, its own) */
	XNIC_SIM_WIRE_ETH,	/* the Ethernet function's RX ring */
	XNIC_SIM_WIRE_ROCE,	/* RoCEv2 to the port: the engine */
	XNIC_SIM_WIRE_VLAN,	/* RoCEv2 in a VLAN (VID 1..4095): dropped */
};

/* xnic_sim_wreq.c */
/*
 * A UD SEND whose destination is on the wire (xnic_sim_ud_send(): the
 * local segments from 1 on, @nl of them, @len bytes; source GID @sgid of
 * type @stype).  Return: XNIC_SIM_DONE (UD is unreliable).
 */
int xnic_sim_wreq_ud_send(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
			  u32 nl, u64 len, const u8 *sgid, u8 stype);
/* A wire QP's turn (engine thread; never in a kick serve). */
bool xnic_sim_wreq_turn(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
			u64 now, u64 *next, struct xnic_sim_budget *b);
/* A response (ACK, NAK, READ response, atomic ACK) for @qp. */
void xnic_sim_wreq_recv(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
			const struct xnic_sim_pkt *p);
void xnic_sim_wreq_reset(struct xnic_sim_qp *qp);
/* MODIFY_QP of a wire QP: whether it may (packets in flight), then done */
bool xnic_sim_wreq_modify_ok(struct xnic_sim_qp *qp,
			     const struct xnic_cmd_modify_qp *in, u32 mask);
void xnic_sim_wreq_modify(struct xnic_sim_qp *qp, u32 mask);
#ifdef XNIC_SIM_TEST_HOOKS
/* KUnit seam: xnic_sim_wreq.c, xnic_sim_wreq_test_skip_psns() */
extern u32 xnic_sim_wreq_test_skip;
#endif

/* xnic_sim_wresp.c */
/* A received packet: find its QP, hand requests and responses on. */
void xnic_sim_roce_recv(struct xnic_sim_dev *dev,
			const struct xnic_sim_pkt *p);
/* A request for @qp (RC, UC, UD). */
void xnic_sim_wresp_recv(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
			 const struct xnic_sim_pkt *p);
/*
 * End of an engine pass: READ responses within the pass's budget, then
 * the coalesced ACKs owed.  Return: whether answers are left or were sent.
 */
bool xnic_sim_wresp_flush_acks(struct xnic_sim_dev *dev);
/*
 * Between two frames from the wire: the ACKs and NAKs owed by QPs with
 * no READ responses pending, now (the others wait for the pass's end).
 */
void xnic_sim_wresp_send_acks(struct xnic_sim_dev *dev);
void xnic_sim_wresp_reset(struct xnic_sim_qp *qp);
/* The receive WQE a message holds, flushed when the QP is in ERR. */
bool xnic_sim_wresp_flush_held(struct xnic_sim_dev *dev,
			       struct xnic_sim_qp *qp);

#endif /* _XNIC_SIM_WIRE_H */
