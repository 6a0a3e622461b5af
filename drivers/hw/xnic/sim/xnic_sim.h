/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xnic_sim: a software model of the xnic RDMA NIC ("silicon" for the xnic
 * driver).  It implements include/xrdma/xnic_hw.h and
 * uapi/xrdma/xnic-abi.h and knows nothing of xrdma_core.
 *
 * Files, one per area, each calling only into the ones below it (but
 * for the device's kick and interrupt, which the QPs and the event queue
 * signal):
 *   xnic_sim_main.c    the module: parameters, platform devices
 *   xnic_sim_dev.c     a device: registers, kick, interrupt, engine start
 *                      and stop, debugfs
 *   xnic_sim_engine.c  the engine: thread, pass, sleep, doorbell scan,
 *                      a QP's turn on the active list, budgets, kick serve
 *   xnic_sim_cmd.c     command queue, the device's own commands, reset
 *   xnic_sim_eth.c     the port's Ethernet function: its registers, TX
 *                      and RX rings, frames over the cable
 *   xnic_sim_req.c     transport, requester: execute send WQEs (RC, UC,
 *                      UD); drives resp and comp
 *   xnic_sim_resp.c    transport, responder: which QP takes a request,
 *                      receive queues and SRQs, receive buffers, rkeys,
 *                      receive completions, NAKs
 *   xnic_sim_comp.c    transport, completer: retiring a send WQE, retries
 *                      and RNR waits
 *   xnic_sim_obj.c     object commands (CQ, SRQ, MR, MW, doorbell pages;
 *                      QPs': xnic_sim_qp.c), SRQ resize, window
 *                      invalidation, dropping every object
 *   xnic_sim_wqe.c     work queue entries: fetch and decode send WQEs,
 *                      receive WQE lengths; the formats the driver's
 *                      xnic_wqe.c encodes (xnic_sim_wqe.h)
 *   xnic_sim_qp.c      QP state: transitions, active list, ERR, flushing;
 *                      the QP commands
 *   xnic_sim_cq.c      completion and event queue writers
 *   xnic_sim_port.c    ports and cables: GIDs, GID routing, multicast
 *                      groups, the cable parameter, the peer's sections
 *   xnic_sim_tbl.c     object tables (number -> object), and creating an
 *                      object into one (xnic_sim_tbl.h)
 *   xnic_sim_mem.c     memory: DMA access, MRs, key checks, copies
 *                      (xnic_sim_mem.h)
 *   xnic_sim_configfs.c  faults on demand, the users' interface
 *   xnic_sim_fault.c   faults on demand: rules, the link, frames held
 *                      back (xnic_sim_fault.h; asked by the transport)
 * KUnit (kunit/xnic_sim_test.c) includes all of them but main.
 *
 * Concurrency.  Each device has one engine thread, which executes its
 * commands and its QPs' send queues; everything a device's commands
 * change is therefore only ever changed by its own engine.  "The engine"
 * below is whoever holds the device's exec_lock: the engine thread in a
 * pass, or a process whose KICK is served in its context (a kick serve,
 * xnic_sim_kick_serve()).  Commands need exec_lock, so whoever holds it
 * must let go soon, whatever its scheduling: an engine pass does a
 * bounded amount of data-path work (XNIC_SIM_PASS_*: WQEs and bytes, a
 * WQE charged whole) after the commands it found; a kick serve runs
 * with preemption disabled, executes only the WQEs of the writer's own
 * doorbell page within a small budget (XNIC_SIM_KICK_*), none that may
 * sleep, and leaves the rest to the engine thread.  So a command waits
 * for at most one bounded slice of data-path work, never for a user (a
 * preempted, SCHED_IDLE or throttled writer holds nothing).  An operation
 * of a QP executes against the responder's objects (its QP, receive
 * queue, SRQ, MRs, CQ, EQ), which live on the same device (loopback) or
 * on the cabled peer, whose engine runs concurrently.  Such accesses are
 * made inside a "section" of the executing engine (xnic_sim_sect_enter()
 * and _exit(): an odd sequence count); a device unpublishes an object
 * from its tables, calls xnic_sim_sect_sync() to wait until the peer's
 * engine is outside the section it may have found the object in, then
 * frees it.  Sections never wait for anything but spinlocks, so this is
 * deadlock free, and a long copy inside one may reschedule (not in a kick
 * serve: xnic_sim_may_sleep()).
 *
 * Locks: qp->lock (responder state: state, receive queue), srq->lock,
 * cq->lock, dev->eq_lock, in that order; never two of a kind.  A device's
 * mcg_lock (its multicast groups) is a leaf: nothing is taken under it.  The
 * Ethernet function (xnic_sim_eth.c): a device's eth tx_lock, then its
 * peer's eth rx_lock, then that device's eq_lock.  Register
 * writes take dev->reg_lock (irqsave); the interrupt handler runs under
 * dev->irq_lock.
 */
#ifndef _XNIC_SIM_H
#define _XNIC_SIM_H

#include <linux/sizes.h>
#include <linux/types.h>
#include <linux/bits.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/irq_work.h>
#include <linux/smp.h>
#include <linux/wait.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/platform_device.h>
#include <xrdma/xnic_hw.h>
#include "xnic_sim_mem.h"
#include "xnic_sim_tbl.h"
#include "xnic_sim_wqe.h"

#define XNIC_SIM_MAX_SGE	8	/* SGEs per WQE, both queues */
#define XNIC_SIM_MAX_INLINE	256
#define XNIC_SIM_MAX_WQE_SHIFT	12	/* 4 KiB WQEs at most */
#define XNIC_SIM_MAX_LOG_WQE	12	/* 4096 WQEs per queue */
#define XNIC_SIM_MAX_LOG_CQE	16	/* 65536 CQEs */
#define XNIC_SIM_MAX_RD_ATOM	128	/* as rxe: peers may ask for its count */
#define XNIC_SIM_MAX_FR_PAGES	512
#define XNIC_SIM_MAX_MSG	BIT(31)
#define XNIC_SIM_UD_MTU		4096
#define XNIC_SIM_GRH_LEN	40
#define XNIC_SIM_MAX_DB		1024

#define XNIC_SIM_MAX_DEV	8
/*
 * Ethernet: largest frame (no FCS), a jumbo one: an MTU of 9198 with a
 * VLAN tag, the most the driver takes (its XNIC_ETH_FRAME_MAX); enough
 * for rdma_cm's path MTU 4096 (a netdev MTU of at least 4192)
 */
#define XNIC_SIM_ETH_MAX_FRAME	9216

#include "xnic_sim_wire.h"
#include "xnic_sim_fault.h"

/* QUERY_CAPS limits */
#define XNIC_SIM_MAX_QP		16384
#define XNIC_SIM_MAX_CQ		16384
#define XNIC_SIM_MAX_MR		65536
#define XNIC_SIM_MAX_MW		65536	/* windows: the same key table */
#define XNIC_SIM_MAX_SRQ	1024
#define XNIC_SIM_MAX_MR_SIZE	BIT_ULL(40)
#define XNIC_SIM_DM_SIZE	SZ_128K		/* the device memory window */
#define XNIC_SIM_VENDOR_ID	0x5852		/* "XR" */
#define XNIC_SIM_PART_ID	0x1
#define XNIC_SIM_GUID_BASE	0x025852fffe000000ULL

/* every access right an MR or a QP may have (but MW_BIND) */
#define XNIC_SIM_ACCESS_ALL	(XNIC_ACCESS_LOCAL_WRITE |		\
				 XNIC_ACCESS_REMOTE_WRITE |		\
				 XNIC_ACCESS_REMOTE_READ |		\
				 XNIC_ACCESS_REMOTE_ATOMIC |		\
				 XNIC_ACCESS_FLUSH_GLOBAL |		\
				 XNIC_ACCESS_FLUSH_PERSISTENT)

/* ------------------------------------------------------------------ */
/* Rings                                                               */

/**
 * xnic_sim_ring_avail - entries a producer announced
 * @ci: consumer index, free running
 * @pi: producer index from a doorbell record, free running
 * @log: log2 of the ring size
 *
 * Return: pi - ci, or -1 if that is more than the ring holds.
 */
static inline int xnic_sim_ring_avail(u32 ci, u32 pi, u32 log)
{
	u32 n = pi - ci;

	return n > (1U << log) ? -1 : (int)n;
}

/* Work queue entries: the first lap is written with owner 0. */
static inline bool xnic_sim_wqe_owner_ok(u8 owner, u32 idx, u32 log)
{
	return (owner & 1) == ((idx >> log) & 1);
}

/* Owner the device writes into CQ and EQ entries: the first lap has 1. */
static inline u8 xnic_sim_hw_owner(u32 idx, u32 log)
{
	return ((idx >> log) & 1) ^ 1;
}

/* Whether a CQ or EQ is full: any producer index too far ahead is. */
static inline bool xnic_sim_ring_full(u32 pi, u32 ci, u32 log)
{
	return pi - ci >= (1U << log);
}

/* ------------------------------------------------------------------ */
/* Doorbell pages                                                      */

/* DMA address of summary word @s of the doorbell page at @page. */
static inline u64 xnic_sim_db_summary_addr(u64 page, u32 s)
{
	return page + offsetof(struct xnic_db_page, summary) +
	       (u64)s * sizeof(__le64);
}

/* DMA address of group word @g of the doorbell page at @page. */
static inline u64 xnic_sim_db_group_addr(u64 page, u32 g)
{
	return page + offsetof(struct xnic_db_page, group) +
	       (u64)g * sizeof(__le64);
}

/**
 * struct xnic_sim_budget - what a pass or a kick serve may still execute
 * @wqes: send WQEs
 * @bytes: bytes of their payloads (xnic_sim_swqe_bytes())
 * @atomic: a serve with preemption disabled (a kick served in the
 *	    writer's context): no WQE larger than @bytes and none that may
 *	    sleep is taken, they are left to the engine thread
 * @left: set when it left work for the engine thread
 */
struct xnic_sim_budget {
	u32 wqes;
	u64 bytes;
	bool atomic;
	bool left;
};

/* Counters: per device, in debugfs "counters" (xnic_sim_ctr_names[]) */
enum xnic_sim_ctr {
	XNIC_SIM_CTR_doorbells = XNIC_CTR_DOORBELLS,
	XNIC_SIM_CTR_bad_doorbells = XNIC_CTR_BAD_DOORBELLS,
	XNIC_SIM_CTR_kicks = XNIC_CTR_KICKS,
	XNIC_SIM_CTR_sleeps = XNIC_CTR_SLEEPS,
	XNIC_SIM_CTR_wakeups = XNIC_CTR_WAKEUPS,
	XNIC_SIM_CTR_writer_runs = XNIC_CTR_WRITER_RUNS,
	XNIC_SIM_CTR_yields = XNIC_CTR_YIELDS,
	XNIC_SIM_CTR_commands = XNIC_CTR_COMMANDS,
	XNIC_SIM_CTR_cmd_errors = XNIC_CTR_CMD_ERRORS,
	XNIC_SIM_CTR_eqes = XNIC_CTR_EQES,
	XNIC_SIM_CTR_eq_overruns = XNIC_CTR_EQ_OVERRUNS,
	XNIC_SIM_CTR_irqs = XNIC_CTR_IRQS,
	XNIC_SIM_CTR_cqes = XNIC_CTR_CQES,
	XNIC_SIM_CTR_cq_overruns = XNIC_CTR_CQ_OVERRUNS,
	XNIC_SIM_CTR_tx_rdma_write = XNIC_CTR_TX_RDMA_WRITE,
	XNIC_SIM_CTR_tx_rdma_write_bytes = XNIC_CTR_TX_RDMA_WRITE_BYTES,
	XNIC_SIM_CTR_tx_rdma_write_imm = XNIC_CTR_TX_RDMA_WRITE_IMM,
	XNIC_SIM_CTR_tx_rdma_write_imm_bytes = XNIC_CTR_TX_RDMA_WRITE_IMM_BYTES,
	XNIC_SIM_CTR_tx_send = XNIC_CTR_TX_SEND,
	XNIC_SIM_CTR_tx_send_bytes = XNIC_CTR_TX_SEND_BYTES,
	XNIC_SIM_CTR_tx_send_imm = XNIC_CTR_TX_SEND_IMM,
	XNIC_SIM_CTR_tx_send_imm_bytes = XNIC_CTR_TX_SEND_IMM_BYTES,
	XNIC_SIM_CTR_tx_rdma_read = XNIC_CTR_TX_RDMA_READ,
	XNIC_SIM_CTR_tx_rdma_read_bytes = XNIC_CTR_TX_RDMA_READ_BYTES,
	XNIC_SIM_CTR_tx_cmp_swap = XNIC_CTR_TX_CMP_SWAP,
	XNIC_SIM_CTR_tx_fetch_add = XNIC_CTR_TX_FETCH_ADD,
	XNIC_SIM_CTR_tx_local_inv = XNIC_CTR_TX_LOCAL_INV,
	XNIC_SIM_CTR_tx_send_inv = XNIC_CTR_TX_SEND_INV,
	XNIC_SIM_CTR_tx_send_inv_bytes = XNIC_CTR_TX_SEND_INV_BYTES,
	XNIC_SIM_CTR_tx_reg_mr = XNIC_CTR_TX_REG_MR,
	XNIC_SIM_CTR_tx_bind_mw = XNIC_CTR_TX_BIND_MW,
	XNIC_SIM_CTR_tx_nop = XNIC_CTR_TX_NOP,
	XNIC_SIM_CTR_tx_mcast = XNIC_CTR_TX_MCAST,
	XNIC_SIM_CTR_rx_send = XNIC_CTR_RX_SEND,
	XNIC_SIM_CTR_rx_send_bytes = XNIC_CTR_RX_SEND_BYTES,
	XNIC_SIM_CTR_rx_write = XNIC_CTR_RX_WRITE,
	XNIC_SIM_CTR_rx_write_bytes = XNIC_CTR_RX_WRITE_BYTES,
	XNIC_SIM_CTR_rx_read = XNIC_CTR_RX_READ,
	XNIC_SIM_CTR_rx_read_bytes = XNIC_CTR_RX_READ_BYTES,
	XNIC_SIM_CTR_rx_atomic = XNIC_CTR_RX_ATOMIC,
	XNIC_SIM_CTR_rx_mcast = XNIC_CTR_RX_MCAST,
	XNIC_SIM_CTR_err_loc_len = XNIC_CTR_ERR_LOC_LEN,
	XNIC_SIM_CTR_err_loc_qp_op = XNIC_CTR_ERR_LOC_QP_OP,
	XNIC_SIM_CTR_err_loc_prot = XNIC_CTR_ERR_LOC_PROT,
	XNIC_SIM_CTR_err_mw_bind = XNIC_CTR_ERR_MW_BIND,
	XNIC_SIM_CTR_err_flush = XNIC_CTR_ERR_FLUSH,
	XNIC_SIM_CTR_err_rem_inv_req = XNIC_CTR_ERR_REM_INV_REQ,
	XNIC_SIM_CTR_err_rem_access = XNIC_CTR_ERR_REM_ACCESS,
	XNIC_SIM_CTR_err_rem_op = XNIC_CTR_ERR_REM_OP,
	XNIC_SIM_CTR_err_retry_exc = XNIC_CTR_ERR_RETRY_EXC,
	XNIC_SIM_CTR_err_rnr_retry_exc = XNIC_CTR_ERR_RNR_RETRY_EXC,
	XNIC_SIM_CTR_err_other = XNIC_CTR_ERR_OTHER,
	XNIC_SIM_CTR_rnr_naks = XNIC_CTR_RNR_NAKS,
	XNIC_SIM_CTR_retries = XNIC_CTR_RETRIES,
	XNIC_SIM_CTR_ud_drop_qkey = XNIC_CTR_UD_DROP_QKEY,
	XNIC_SIM_CTR_ud_drop_noqp = XNIC_CTR_UD_DROP_NOQP,
	XNIC_SIM_CTR_ud_drop_norecv = XNIC_CTR_UD_DROP_NORECV,
	XNIC_SIM_CTR_ud_drop_nomcg = XNIC_CTR_UD_DROP_NOMCG,
	XNIC_SIM_CTR_uc_drops = XNIC_CTR_UC_DROPS,
	XNIC_SIM_CTR_psn_mismatch = XNIC_CTR_PSN_MISMATCH,
	XNIC_SIM_CTR_rx_drop_bad_src = XNIC_CTR_RX_DROP_BAD_SRC,
	XNIC_SIM_CTR_rx_drop_psn = XNIC_CTR_RX_DROP_PSN,
	XNIC_SIM_CTR_wire_tx_packets = XNIC_CTR_WIRE_TX_PKTS,
	XNIC_SIM_CTR_wire_tx_bytes = XNIC_CTR_WIRE_TX_BYTES,
	XNIC_SIM_CTR_wire_rx_packets = XNIC_CTR_WIRE_RX_PKTS,
	XNIC_SIM_CTR_wire_rx_bytes = XNIC_CTR_WIRE_RX_BYTES,
	XNIC_SIM_CTR_wire_retransmits = XNIC_CTR_WIRE_RETRANSMITS,
	XNIC_SIM_CTR_wire_timeouts = XNIC_CTR_WIRE_TIMEOUTS,
	XNIC_SIM_CTR_wire_seq_naks_sent = XNIC_CTR_WIRE_SEQ_NAKS_SENT,
	XNIC_SIM_CTR_wire_seq_naks_rcvd = XNIC_CTR_WIRE_SEQ_NAKS_RCVD,
	XNIC_SIM_CTR_wire_rnr_naks_sent = XNIC_CTR_WIRE_RNR_NAKS_SENT,
	XNIC_SIM_CTR_wire_rnr_naks_rcvd = XNIC_CTR_WIRE_RNR_NAKS_RCVD,
	XNIC_SIM_CTR_wire_err_naks_sent = XNIC_CTR_WIRE_ERR_NAKS_SENT,
	XNIC_SIM_CTR_wire_err_naks_rcvd = XNIC_CTR_WIRE_ERR_NAKS_RCVD,
	XNIC_SIM_CTR_wire_duplicates = XNIC_CTR_WIRE_DUPLICATES,
	XNIC_SIM_CTR_wire_oos_drops = XNIC_CTR_WIRE_OOS_DROPS,
	XNIC_SIM_CTR_wire_icrc_errors = XNIC_CTR_WIRE_ICRC_ERRORS,
	XNIC_SIM_CTR_wire_malformed = XNIC_CTR_WIRE_MALFORMED,
	XNIC_SIM_CTR_wire_drop_noqp = XNIC_CTR_WIRE_NO_QP,
	XNIC_SIM_CTR_wire_no_neigh = XNIC_CTR_WIRE_NO_NEIGH,
	XNIC_SIM_CTR_wire_ecn_marked = XNIC_CTR_WIRE_ECN_MARKED,
	XNIC_SIM_CTR_wire_eth_tx = XNIC_CTR_WIRE_ETH_TX,
	XNIC_SIM_CTR_wire_eth_rx = XNIC_CTR_WIRE_ETH_RX,
	XNIC_SIM_CTR_serve_waits = XNIC_CTR_SERVE_WAITS,
	XNIC_SIM_CTR_NUM = XNIC_CTR_NUM
};

struct xnic_sim_ctrs {
	u64 v[XNIC_SIM_CTR_NUM];
};

struct xnic_sim_dev;
struct xnic_sim_eth;

/**
 * struct xnic_sim_cq - a completion queue
 * @dev: owner
 * @cqn: number
 * @log: log2 of the ring size, under @lock
 * @ring: DMA address of the ring, under @lock (RESIZE_CQ moves it)
 * @dbrec: DMA address of the xnic_cq_dbrec, under @lock
 * @flags: XNIC_CQ_F_*
 * @users: QPs using it (owner's engine)
 * @lock: serialises writers (any engine)
 * @pi: producer index, under @lock
 * @served: last arm_sn served, under @lock
 * @overrun: no more writes, under @lock
 */
struct xnic_sim_cq {
	struct xnic_sim_dev *dev;
	u32 cqn;
	u32 log;
	u64 ring;
	u64 dbrec;
	u32 flags;
	u32 users;
	spinlock_t lock;		/* CQE writers */
	u32 pi;
	u32 served;
	bool overrun;
	u32 ev_idx;		/* EQ index of its last COMPLETION, eq_lock */
	bool ev_out;		/* ev_idx is valid, eq_lock */
};

/**
 * struct xnic_sim_srq - a shared receive queue
 * @dev: owner
 * @srqn: number
 * @pdn: its protection domain (receive buffers are checked against it,
 *	 and for an XRC SRQ remote access too)
 * @type: enum xnic_srq_type
 * @xrcdn: an XRC SRQ's domain
 * @cq: an XRC SRQ's CQ, where its receives complete (holds a use)
 * @log: log2 of the ring size, under @lock (RESIZE_SRQ changes it)
 * @shift: log2 of the WQE size
 * @ring: DMA address of the ring, under @lock
 * @dbrec: DMA address of its xnic_qp_dbrec (rq_pi), under @lock
 * @users: QPs attached (owner's engine)
 * @lock: serialises consumers (any engine)
 * @ci: consumer index, under @lock
 * @limit: LIMIT event threshold, 0 when disarmed, under @lock
 */
struct xnic_sim_srq {
	struct xnic_sim_dev *dev;
	u32 srqn;
	u32 pdn;
	u8 type;
	u32 xrcdn;
	struct xnic_sim_cq *cq;
	u8 log;
	u8 shift;
	u64 ring;
	u64 dbrec;
	u32 users;
	spinlock_t lock;		/* consumers */
	u32 ci;
	u32 limit;
	/* XRC: a remote access through it was refused; refuses everything */
	bool err;
};

#define XNIC_SIM_DB_CHUNK	64	/* slots per chunk = bits per group */

/**
 * struct xnic_sim_db - a doorbell page the engine polls
 * @index: db_index
 * @addr: DMA address (page aligned, XNIC_DB_PAGE_SIZE)
 * @nqps: QPs using it
 * @slot: slot -> QP, in chunks of one group word (allocated when needed)
 */
struct xnic_sim_db {
	u32 index;
	u64 addr;
	u32 nqps;
	struct xnic_sim_qp **slot[XNIC_DB_GROUP_WORDS];
};

/**
 * struct xnic_sim_qp - a queue pair
 *
 * Fields marked (E) belong to the owner's engine; (L) are under @lock and
 * read lock-free with READ_ONCE by other engines; the rest are set at
 * creation, or by MODIFY_QP (the owner's engine) and read with READ_ONCE.
 *
 * An XRC_INI QP has a send queue only (@rcq NULL, no receive queue); an
 * XRC_TGT QP has no queues, CQs, doorbell slot or PD (@db and @scq NULL
 * too), only @xrcdn: it receives into the XRC SRQ each request names.
 */
struct xnic_sim_qp {
	struct xnic_sim_dev *dev;
	u32 qpn;
	u32 pdn;
	u8 type;
	u8 state;			/* (L) */
	bool kernel;			/* doorbell page 0: REG_MR allowed */
	bool sig_all;
	struct xnic_sim_cq *scq;
	struct xnic_sim_cq *rcq;
	struct xnic_sim_srq *srq;
	struct xnic_sim_db *db;
	u32 slot;
	u64 dbrec;
	u32 xrcdn;			/* XRC_TGT */

	/* send queue (E) */
	u64 sq_addr;
	u8 sq_log;
	u8 sq_shift;
	u32 sq_ci;
	u32 sq_pi;			/* last producer index read */
	u32 sq_psn;

	/* receive queue */
	u64 rq_addr;
	u8 rq_log;
	u8 rq_shift;
	u32 rq_ci;			/* (L) */
	u32 rq_psn;

	/* attributes */
	u8 mtu;
	u8 timeout;
	u8 retry_cnt;
	u8 rnr_retry;
	u8 min_rnr_timer;
	u8 max_rd_atomic;
	u8 max_dest_rd_atomic;
	u8 port;
	u32 qkey;
	u32 dest_qpn;
	u32 access;
	u8 dgid[16];
	u8 sgid_index;			/* AV */
	struct xnic_sim_dev *rdev;	/* RC/UC: the remote port's device */
	/*
	 * RC/UC/XRC whose remote port is on the wire (xnic_sim_wire.h):
	 * set by MODIFY_QP with the AV, with its transport state (E)
	 */
	bool wire;
	struct xnic_sim_wreq *wreq;
	struct xnic_sim_wresp *wresp;

	/* engine (E) */
	struct list_head active_node;
	bool on_active;
	struct list_head err_node;
	bool on_err;
	bool last_wqe_sent;
	u64 wait_until;			/* ns: RNR or retry wait */
	u32 rnr_count;
	u32 retry_count;
	bool fault_delayed;		/* a DELAY rule held this WQE back */

	spinlock_t lock;		/* responder state: state, rq_ci */

	/* counters (E, except rx_*) */
	u64 tx_ops;
	u64 tx_bytes;
	u64 errors;
	u64 rnr_naks;
	u64 retries;
	u64 flushed;
	u64 doorbells;
	u64 bad_doorbells;
	atomic64_t rx_ops;
	atomic64_t rx_bytes;

	struct rcu_head rcu;
};

/*
 * Engine scratch: one WQE in flight per engine.  @xsrq is the XRC SRQ
 * the request in flight names, once xnic_sim_xrc_srq() found it valid
 * (the responder's receive queue and PD when the responder is XRC_TGT).
 */
struct xnic_sim_scratch {
	u8 wqe[XNIC_WQE_DATA_OFF + XNIC_SIM_MAX_INLINE] __aligned(8);
	u8 rwqe[sizeof(struct xnic_rwqe) +
		XNIC_SIM_MAX_SGE * sizeof(struct xnic_sge)] __aligned(8);
	u8 grh[XNIC_SIM_GRH_LEN];
	u64 atomic_orig;
	struct xnic_sim_seg lseg[XNIC_SIM_MAX_SGE + 1];
	struct xnic_sim_seg rseg[XNIC_SIM_MAX_SGE + 1];
	struct xnic_sim_swqe w;
	struct xnic_sim_srq *xsrq;
};

/* Platform data: the driver sees @bus only. */
struct xnic_sim_pdata {
	struct xnic_bus bus;
	struct xnic_sim_dev *dev;
};

/**
 * struct xnic_sim_mcg - a multicast group of the port (xnic_sim_port.c)
 * @gid: its GID
 * @nqp: QPs attached
 * @qpn: their numbers, @nqp of them
 */
struct xnic_sim_mcg {
	u8 gid[16];
	u32 nqp;
	u32 qpn[XNIC_MCG_MAX_QP];
};

/**
 * struct xnic_sim_dev - one device
 *
 * Registers are under @reg_lock (written from any context); the engine
 * reads them with READ_ONCE.
 */
struct xnic_sim_gid_entry {
	u8 gid[16];
	u8 type;			/* enum xnic_gid_type */
	bool valid;
};

struct xnic_sim_dev {
	int index;
	struct platform_device *pdev;
	struct xnic_sim_dev *peer;	/* cabled device, or NULL */
	u64 guid;
	u8 gid[16];			/* the default GID (entries 0, 1) */
	/* port 1's GID table (xnic_sim_port.c); any engine reads it */
	spinlock_t gid_lock;
	struct xnic_sim_gid_entry gids[XNIC_GID_TABLE_LEN];
	/*
	 * port 1's multicast groups: changed by the owner's commands, read
	 * by any engine (a UD send to a group), all under mcg_lock;
	 * mcg[0 .. n_mcg) are in use, n_mcg_att attachments in all
	 */
	spinlock_t mcg_lock;
	u32 n_mcg;
	u32 n_mcg_att;
	struct xnic_sim_mcg mcg[XNIC_MCG_MAX];

	/* registers */
	spinlock_t reg_lock;
	u32 status;
	u64 cmdq_base;
	u32 cmdq_log;
	u32 cmdq_pi;
	u64 eq_base;
	u32 eq_log;
	u32 eq_ci;
	u32 intr_mask;
	u32 enable;

	/* reset: requested by a register write, done by the engine */
	u32 reset_req;
	u32 reset_done;
	wait_queue_head_t reset_wq;

	/* interrupt */
	spinlock_t irq_lock;
	irq_handler_t handler;
	void *irq_data;
	struct irq_work irq_work;	/* on the raiser's CPU */
	call_single_data_t irq_csd;	/* on another CPU */
	unsigned long irq_flags;	/* XNIC_SIM_IRQ_* bits */

	/* engine */
	struct task_struct *engine;
	struct mutex exec_lock;		/* held by an engine pass or a kick serve */
	bool serving;			/* in a serve: may not sleep; read unlocked */
	u64 kick_probe;			/* last wakeup by a kick serve */
	bool kicked;
	unsigned long sect;		/* odd inside a section */
	u32 cmd_ci;
	struct list_head active;	/* QPs with send work or waits */
	struct list_head errq;		/* QPs in ERR with their own RQ */
	struct xnic_sim_scratch *scr;

	/* event queue writer */
	spinlock_t eq_lock;
	bool eq_on;			/* enabled, under eq_lock */
	u32 eq_pi;

	/* objects */
	struct xnic_sim_tbl qps;
	struct xnic_sim_tbl cqs;
	struct xnic_sim_tbl srqs;
	struct xnic_sim_tbl mrs;
	struct xnic_sim_db *db[XNIC_SIM_MAX_DB];
	struct xnic_sim_db *db_list[XNIC_SIM_MAX_DB];
	u32 n_db;

	struct xnic_sim_eth *eth;	/* the port's Ethernet function */
	struct xnic_sim_wire *wire;	/* the port's wire (xnic_sim_wire.c) */
	/* wire QPs owing a coalesced ACK, engine (xnic_sim_wresp.c) */
	struct list_head wresp_acks;

	struct xnic_sim_ctrs __percpu *ctr;
	struct dentry *dbg;
	struct xnic_sim_pdata pdata;
	/* the latest CLOCK value handed out, in ns (xnic_sim_clock_us()) */
	atomic64_t clock_ns;

	/* faults on demand (xnic_sim_fault.h) */
	struct xnic_sim_faults fault;

	/* device memory: XNIC_SIM_DM_SIZE bytes at bus address dm_base */
	struct page *dm_pages;
	u64 dm_base;
};

/*
 * The device clock in ns: the scheduler clock (close to CLOCK_MONOTONIC,
 * and cheap to read also where the clocksource is not, e.g. HPET under
 * emulation).  Engine deadlines and CQE timestamps use it.
 */
static inline u64 xnic_sim_now(void)
{
	return local_clock();
}

/*
 * The device's CLOCK register and CQE timestamps, in microseconds (32 bits
 * of it).  One clock for the device: local_clock() is per CPU and may run
 * behind on another CPU, so the latest value handed out is kept and never
 * undercut -- a CQE written after a CLOCK read is stamped no earlier.
 */
static inline u32 xnic_sim_clock_us(struct xnic_sim_dev *dev)
{
	s64 now = (s64)xnic_sim_now();
	s64 last = atomic64_read(&dev->clock_ns);

	while (now > last) {
		s64 old = atomic64_cmpxchg(&dev->clock_ns, last, now);

		if (old == last) {
			last = now;
			break;
		}
		last = old;
	}
	return (u32)div_u64((u64)last, NSEC_PER_USEC);
}

u64 xnic_sim_ctr_sum(struct xnic_sim_dev *dev, enum xnic_sim_ctr c);

static inline void xnic_sim_count(struct xnic_sim_dev *dev,
				  enum xnic_sim_ctr c, u64 n)
{
	this_cpu_add(dev->ctr->v[c], n);
}

/* Whether the data path may reschedule (not in a kick serve). */
static inline bool xnic_sim_may_sleep(const struct xnic_sim_dev *dev)
{
	return !dev->serving;
}

/*
 * Test hooks: kunit/xnic_sim_test.c defines XNIC_SIM_TEST_HOOKS before it
 * includes the sources; the module has none.
 */
enum xnic_sim_hook {
	XNIC_SIM_HOOK_SERVE_START,	/* a kick serve's start, exec_lock held */
	XNIC_SIM_HOOK_SERVE_END,	/* a kick serve's end, exec_lock still held */
	XNIC_SIM_HOOK_SERVE_AFTER,	/* after a kick serve, exec_lock released */
	XNIC_SIM_HOOK_SERVE_WAIT,	/* a kick waits for another's serve */
};

#ifdef XNIC_SIM_TEST_HOOKS
extern void (*xnic_sim_test_hook)(struct xnic_sim_dev *dev,
				  enum xnic_sim_hook where);
#define xnic_sim_hook(dev, where)					\
	do {								\
		typeof(xnic_sim_test_hook) __fn =			\
			READ_ONCE(xnic_sim_test_hook);			\
		if (__fn)						\
			__fn(dev, where);				\
	} while (0)
#else
#define xnic_sim_hook(dev, where)	do { } while (0)
#endif

/* Sections: see the top of this file. */
static inline void xnic_sim_sect_enter(struct xnic_sim_dev *dev)
{
	WRITE_ONCE(dev->sect, dev->sect + 1);
	smp_mb();	/* the count before any object pointer is loaded */
}

static inline void xnic_sim_sect_exit(struct xnic_sim_dev *dev)
{
	/* the section's accesses before the count (xnic_sim_sect_sync()) */
	smp_store_release(&dev->sect, dev->sect + 1);
}

/*
 * Prototypes by file, from the top of the call graph down: a file calls
 * only into files listed after it, except the device's kick and
 * interrupt (xnic_sim_kick() from xnic_sim_qp.c, xnic_sim_raise_irq()
 * from xnic_sim_cq.c).
 */

/* xnic_sim_dev.c: a device, its registers and interrupt */
extern bool xnic_sim_kick_serve_on;
extern bool xnic_sim_irq_remote_on;
void xnic_sim_raise_irq(struct xnic_sim_dev *dev);
void xnic_sim_kick(struct xnic_sim_dev *dev);
struct xnic_sim_dev *xnic_sim_dev_alloc(int index);
int xnic_sim_dev_start(struct xnic_sim_dev *dev, struct dentry *dbg_root);
void xnic_sim_dev_stop(struct xnic_sim_dev *dev);
void xnic_sim_dev_free(struct xnic_sim_dev *dev);
int xnic_sim_dev_set_mac(struct xnic_sim_dev *dev, const u8 mac[6]);

/* xnic_sim_engine.c: the engine thread, doorbell scans, scheduling */
extern unsigned int xnic_sim_idle_us;
int xnic_sim_engine(void *arg);
bool xnic_sim_kick_serve(struct xnic_sim_dev *dev, u32 val);
bool xnic_sim_budget_take(struct xnic_sim_budget *b,
			  const struct xnic_sim_swqe *w);

/* xnic_sim_cmd.c: the command queue, objects, reset */
bool xnic_sim_cmd_poll(struct xnic_sim_dev *dev);
void xnic_sim_do_reset(struct xnic_sim_dev *dev);

/* A command's status for an errno of the model's own functions. */
static inline u32 xnic_sim_errno_status(int err)
{
	switch (err) {
	case 0:
		return XNIC_CMD_OK;
	case -EEXIST:
		return XNIC_CMD_BAD_INDEX;
	case -ENOSPC:
	case -ENOMEM:
		return XNIC_CMD_NO_RESOURCES;
	default:
		return XNIC_CMD_BAD_PARAM;
	}
}

/* xnic_sim_obj.c: the objects' commands, window invalidation, reset */
u32 xnic_sim_obj_cmd(struct xnic_sim_dev *dev, struct xnic_cmd *c);
void xnic_sim_clear(struct xnic_sim_dev *dev);
int xnic_sim_srq_resize(struct xnic_sim_srq *srq, u8 log, u64 ring,
			u64 dbrec);
bool xnic_sim_mw_remote_inv_ok(const struct xnic_sim_mr *mw,
			       const struct xnic_sim_qp *rqp);
bool xnic_sim_mw_invalidate(struct xnic_sim_dev *dev, struct xnic_sim_mr *mw,
			    bool sync);

/* xnic_sim_eth.c: the Ethernet function */
void xnic_sim_eth_mac(u64 guid, u8 mac[6]);
void xnic_sim_eth_set_guid(struct xnic_sim_dev *dev);
bool xnic_sim_eth_ring_ok(u64 base, u32 log);
bool xnic_sim_eth_pi_ok(u32 ci, u32 pi, u32 log);
bool xnic_sim_eth_tx(struct xnic_sim_dev *dev);
bool xnic_sim_eth_rx(struct xnic_sim_dev *dev, const u8 *frame, u32 len);
bool xnic_sim_eth_read32(struct xnic_sim_dev *dev, u32 reg, u32 *val);
bool xnic_sim_eth_write32(struct xnic_sim_dev *dev, u32 reg, u32 val);
void xnic_sim_eth_reset(struct xnic_sim_dev *dev);
void xnic_sim_eth_debugfs(struct xnic_sim_dev *dev, struct dentry *dir);
int xnic_sim_eth_alloc(struct xnic_sim_dev *dev);
void xnic_sim_eth_free(struct xnic_sim_dev *dev);

/* xnic_sim_req.c: the transport, requester */
enum xnic_sim_res {
	XNIC_SIM_DONE,	/* completed, with a status */
	XNIC_SIM_WAIT,	/* RNR or transport retry: try again later */
};

int xnic_sim_sq_exec(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
		     u8 *status, u32 *byte_len);
/* shared with the wire's requester (xnic_sim_wreq.c) */
u8 xnic_sim_local_segs(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
		       u32 need, u32 first, u32 *nseg, u64 *len);
u32 xnic_sim_ud_qkey(const struct xnic_sim_qp *qp, u32 wr_qkey);
bool xnic_sim_rd_atomic_init(struct xnic_sim_qp *qp, u8 *status);

/* xnic_sim_resp.c: the transport, responder */
struct xnic_sim_qp *xnic_sim_rc_peer(struct xnic_sim_qp *qp);
int xnic_sim_rq_take(struct xnic_sim_dev *dev, struct xnic_sim_qp *rqp);
u8 xnic_sim_recv_segs(struct xnic_sim_dev *dev, struct xnic_sim_qp *rqp,
		      u32 *nseg, u64 *len);
void xnic_sim_recv_cqe(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
		       struct xnic_sim_qp *rqp, u8 status, u8 opcode, u8 flags,
		       u32 len);
void xnic_sim_rcqe(struct xnic_sim_dev *dev, struct xnic_sim_qp *rqp,
		   u32 src_qp, u8 status, u8 opcode, u8 flags, u32 len,
		   __le32 imm, bool se);
const struct xnic_sim_mr *xnic_sim_rkey(struct xnic_sim_qp *rqp, u32 pdn,
					u32 rkey, u64 addr, u64 len,
					u32 right, u64 *maddr);
bool xnic_sim_rd_atomic_resp(struct xnic_sim_qp *rqp, u8 *status);
u8 xnic_sim_pmem_rkey(struct xnic_sim_qp *rqp, u32 pdn, u8 opcode, u32 rkey,
		      u64 addr, u64 len, u8 type, u8 level,
		      const struct xnic_sim_mr **mr, u64 *maddr);
int xnic_sim_rem_access(struct xnic_sim_qp *qp, struct xnic_sim_qp *rqp,
			u8 *status);
int xnic_sim_bad_rwqe(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
		      struct xnic_sim_qp *rqp, u8 *status);
bool xnic_sim_xrc_srq(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
		      struct xnic_sim_qp *rqp, u8 *status);
u32 xnic_sim_resp_pdn(struct xnic_sim_dev *dev, const struct xnic_sim_qp *rqp);

/* xnic_sim_comp.c: the transport, completer */
void xnic_sim_sq_complete(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
			  u8 status, u32 len);
int xnic_sim_no_answer(struct xnic_sim_qp *qp, u8 *status);
int xnic_sim_rnr(struct xnic_sim_qp *qp, struct xnic_sim_qp *rqp, u8 *status);
u64 xnic_sim_rnr_delay_ns(u8 min_rnr_timer, u32 naks);
u64 xnic_sim_retry_delay_ns(u8 timeout);

/**
 * xnic_sim_retry_left - whether one more retry is allowed
 * @count: retries already made
 * @limit: rnr_retry or retry_cnt (7 means infinite for RNR)
 * @infinite7: whether 7 means infinite
 */
static inline bool xnic_sim_retry_left(u32 count, u8 limit, bool infinite7)
{
	return (infinite7 && limit == 7) || count < limit;
}

/* xnic_sim_qp.c: QP state, QP commands */
bool xnic_sim_qp_trans_ok(u8 cur, u8 next);
bool xnic_sim_qp_can_recv(u8 state);
void xnic_sim_qp_activate(struct xnic_sim_qp *qp);
void xnic_sim_qp_deactivate(struct xnic_sim_qp *qp);
void xnic_sim_qp_ring(struct xnic_sim_qp *qp);
void xnic_sim_qp_set_err(struct xnic_sim_qp *qp, u8 event);
bool xnic_sim_qp_flush(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
		       u32 *quota, bool *more);
void xnic_sim_err_sweep(struct xnic_sim_dev *dev);
u32 xnic_sim_cmd_create_qp(struct xnic_sim_dev *dev,
			   const struct xnic_cmd_create_qp *in);
u32 xnic_sim_cmd_destroy_qp(struct xnic_sim_dev *dev, u32 qpn);
u32 xnic_sim_cmd_modify_qp(struct xnic_sim_dev *dev,
			   const struct xnic_cmd_modify_qp *in);
u32 xnic_sim_cmd_query_qp(struct xnic_sim_dev *dev, struct xnic_cmd *c);

/* xnic_sim_cq.c: completion and event queue writers */
/**
 * struct xnic_sim_cqe_info - what a CQE says
 * @wr_id: work request
 * @byte_len: bytes
 * @imm: immediate data or invalidated key, as stored
 * @qpn: QP
 * @src_qp: UD sender
 * @status: XNIC_CQE_*
 * @opcode: XNIC_CQE_OP_*
 * @flags: XNIC_CQE_*
 */
struct xnic_sim_cqe_info {
	u64 wr_id;
	u32 byte_len;
	__le32 imm;
	u32 qpn;
	u32 src_qp;
	u8 status;
	u8 opcode;
	u8 flags;
};

int xnic_sim_cq_post(struct xnic_sim_cq *cq,
		     const struct xnic_sim_cqe_info *info, bool solicited);
bool xnic_sim_eq_post(struct xnic_sim_dev *dev, u8 type, u32 data, u32 aux);
void xnic_sim_count_status(struct xnic_sim_dev *dev, u8 status);
u8 xnic_sim_cqe_opcode(u8 wqe_opcode);
int xnic_sim_cq_resize(struct xnic_sim_cq *cq, u32 log, u64 ring, u64 dbrec);
const char *xnic_sim_status_name(u8 status);

#define XNIC_SIM_ARM_NONE	U32_MAX	/* served sn before the first arm */

bool xnic_sim_arm_fire(u32 arm, u32 *served, bool solicited, bool error);

/* UD semantics: UD QPs and the GSI QP */
static inline bool xnic_sim_qpt_ud(u8 type)
{
	return type == XNIC_QPT_UD || type == XNIC_QPT_GSI;
}

/* Reliable connected requesters (ACKs, NAKs, retries): RC and XRC_INI */
static inline bool xnic_sim_qpt_rc(u8 type)
{
	return type == XNIC_QPT_RC || type == XNIC_QPT_XRC_INI;
}

/* xnic_sim_port.c: ports, cables, GID routing */
void xnic_sim_gid(u64 guid, u8 gid[16]);
void xnic_sim_grh(u8 *grh, const u8 *sgid, const u8 *dgid, u32 paylen);
u8 xnic_sim_net_hdr(u8 *hdr, const u8 *sgid, u8 sgid_type, const u8 *dgid,
		    u32 paylen, u8 hop_limit, u8 tclass);
void xnic_sim_gid_reset(struct xnic_sim_dev *dev);
int xnic_sim_set_gid(struct xnic_sim_dev *dev, u32 port, u32 index,
		     const u8 *gid, u8 type, bool valid);
bool xnic_sim_sgid(struct xnic_sim_dev *dev, u8 index, u8 gid[16], u8 *type);
int xnic_sim_parse_cable(const char *s, int ndev, int *peer);
struct xnic_sim_dev *xnic_sim_gid_dev(struct xnic_sim_dev *dev,
				      const u8 *gid);
u32 xnic_sim_mtu_bytes(u8 mtu);
void xnic_sim_sect_sync(struct xnic_sim_dev *dev);
bool xnic_sim_gid_mcast(const u8 *gid);
int xnic_sim_mcg_attach(struct xnic_sim_dev *dev, u32 qpn, const u8 *gid);
int xnic_sim_mcg_detach(struct xnic_sim_dev *dev, u32 qpn, const u8 *gid);
void xnic_sim_mcg_detach_qp(struct xnic_sim_dev *dev, u32 qpn);
u32 xnic_sim_mcg_members(struct xnic_sim_dev *dev, const u8 *gid,
			 u32 qpn[XNIC_MCG_MAX_QP]);
void xnic_sim_mcg_reset(struct xnic_sim_dev *dev);

/* xnic_sim_tbl.c (above), xnic_sim_mem.c (xnic_sim_mem.h) */

#endif /* _XNIC_SIM_H */
