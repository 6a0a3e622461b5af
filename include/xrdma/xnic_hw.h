/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xnic hardware interface: the register file, the command queue and the
 * event queue (the queue formats userspace also sees are in
 * uapi/xrdma/xnic-abi.h).  Documented in Documentation/xnic/.  The driver
 * (xnic.ko) and the device model (xnic_sim.ko) share nothing else.
 */
#ifndef _XRDMA_XNIC_HW_H
#define _XRDMA_XNIC_HW_H

#include <linux/bits.h>
#include <linux/types.h>
#include <linux/interrupt.h>
#include <uapi/xrdma/xnic-abi.h>

/* ------------------------------------------------------------------ */
/* Bus binding                                                         */

/*
 * The device is a platform device named "xnic".  Its platform data is a
 * struct xnic_bus: the register window (reads and writes of 32-bit
 * registers, standing in for MMIO) and its interrupt line.  DMA addresses
 * are those of the platform device's DMA API (dma_alloc_coherent,
 * dma_map_sgtable); the device reaches memory only through them.
 */
#define XNIC_PLATFORM_NAME	"xnic"

struct xnic_bus {
	u32 (*read32)(struct xnic_bus *bus, u32 reg);
	void (*write32)(struct xnic_bus *bus, u32 reg, u32 val);
	/* the interrupt: @handler runs in hard interrupt context */
	int (*request_irq)(struct xnic_bus *bus, irq_handler_t handler,
			   void *data);
	void (*free_irq)(struct xnic_bus *bus);
};

/* ------------------------------------------------------------------ */
/* Registers (32 bit)                                                  */

#define XNIC_REG_ID		0x000	/* RO: XNIC_ID */
#define XNIC_REG_VERSION	0x004	/* RO: XNIC_HW_VERSION */
#define XNIC_REG_STATUS		0x008	/* RO: XNIC_STATUS_* */
#define XNIC_REG_RESET		0x00c	/* WO: 1 = reset the device */
#define XNIC_REG_CMDQ_BASE_LO	0x010	/* RW: command queue DMA address */
#define XNIC_REG_CMDQ_BASE_HI	0x014
#define XNIC_REG_CMDQ_LOG_SIZE	0x018	/* RW: log2 entries (1..12) */
#define XNIC_REG_CMDQ_PI	0x01c	/* WO: producer index doorbell */
#define XNIC_REG_EQ_BASE_LO	0x020	/* RW: event queue DMA address */
#define XNIC_REG_EQ_BASE_HI	0x024
#define XNIC_REG_EQ_LOG_SIZE	0x028	/* RW: log2 entries (1..16) */
#define XNIC_REG_EQ_CI		0x02c	/* WO: consumer index (free running) */
#define XNIC_REG_INTR_MASK	0x030	/* RW: 1 = interrupt masked */
#define XNIC_REG_KICK		0x034	/* WO: wake the engine */
#define XNIC_REG_ENABLE		0x038	/* RW: 1 = queues set up, go */
#define XNIC_REG_CLOCK		0x03c	/* RO: device clock, us (CQE timestamps) */
/* device memory window (Documentation/xnic/registers.rst "DM_*") */
#define XNIC_REG_DM_BASE_LO	0x040	/* RO: bus address, page aligned */
#define XNIC_REG_DM_BASE_HI	0x044
#define XNIC_REG_DM_SIZE	0x048	/* RO: bytes, a page multiple; 0: none */
#define XNIC_REG_FEATURES	0x04c	/* RO: XNIC_FEAT_* */

#define XNIC_FEAT_XRC		BIT(0)	/* XRC SRQs, XRC_INI/XRC_TGT QPs */
#define XNIC_FEAT_ATOMIC_WRITE	BIT(1)	/* XNIC_OP_ATOMIC_WRITE */
#define XNIC_FEAT_FLUSH_GLOBAL	BIT(2)	/* XNIC_OP_FLUSH, type GLOBAL */
#define XNIC_FEAT_FLUSH_PERSISTENT BIT(3) /* XNIC_OP_FLUSH, type PERSISTENT */

/* KICK value bits */
#define XNIC_KICK_WAKE		BIT(0)	/* wake the engine */
#define XNIC_KICK_RUN_HERE	BIT(1)	/* the writer may run the work */
#define XNIC_KICK_DB_VALID	BIT(2)	/* bits 31:16 name a doorbell page */
#define XNIC_KICK_DB_SHIFT	16
/* the doorbell page (db_index) whose work a RUN_HERE writer may run */
#define XNIC_KICK_DB(idx)	(XNIC_KICK_DB_VALID | \
				 ((u32)(idx) << XNIC_KICK_DB_SHIFT))

#define XNIC_ID			0x58494e43	/* "XNIC" */
#define XNIC_HW_VERSION		1

#define XNIC_STATUS_READY	BIT(0)	/* reset done, may be enabled */
#define XNIC_STATUS_ENABLED	BIT(1)
#define XNIC_STATUS_FATAL	BIT(2)

/*
 * The Ethernet function (Documentation/xnic/ethernet.rst): one register
 * block per port, port p's at XNIC_REG_ETH(p, reg); the rings hold
 * struct xnic_eth_desc.
 */
#define XNIC_ETH_PORT_STRIDE	0x40
#define XNIC_REG_ETH(port, reg)	((reg) + ((port) - 1) * XNIC_ETH_PORT_STRIDE)
#define XNIC_REG_ETH_MAC_HI	0x100	/* RO: MAC bytes 0-1 (bits 15:0) */
#define XNIC_REG_ETH_MAC_LO	0x104	/* RO: MAC bytes 2-5 */
#define XNIC_REG_ETH_STATUS	0x108	/* RO: XNIC_ETH_ST_* */
#define XNIC_REG_ETH_CTRL	0x10c	/* RW: XNIC_ETH_CTRL_* */
#define XNIC_REG_ETH_TX_BASE_LO	0x110	/* RW: TX ring DMA address */
#define XNIC_REG_ETH_TX_BASE_HI	0x114
#define XNIC_REG_ETH_TX_LOG_SIZE 0x118	/* RW: log2 descriptors (1..12) */
#define XNIC_REG_ETH_TX_PI	0x11c	/* WO: TX producer index doorbell */
#define XNIC_REG_ETH_RX_BASE_LO	0x120	/* RW: RX ring DMA address */
#define XNIC_REG_ETH_RX_BASE_HI	0x124
#define XNIC_REG_ETH_RX_LOG_SIZE 0x128	/* RW: log2 descriptors (1..12) */
#define XNIC_REG_ETH_RX_PI	0x12c	/* WO: RX producer index doorbell */
#define XNIC_REG_ETH_ARM	0x130	/* WO: XNIC_ETH_ARM_* */
#define XNIC_REG_ETH_MAX_FRAME	0x134	/* RO: largest frame, bytes */
/* RO: the RDMA port's active MTU (enum xnic_mtu); 0: QUERY_CAPS port_mtu */
#define XNIC_REG_ETH_PORT_MTU	0x138

#define XNIC_ETH_ST_LINK	BIT(0)	/* the port is cabled */
#define XNIC_ETH_ST_TX_ON	BIT(1)	/* the TX ring is in use */
#define XNIC_ETH_ST_RX_ON	BIT(2)	/* the RX ring is in use */

#define XNIC_ETH_CTRL_TX	BIT(0)	/* transmit from the TX ring */
#define XNIC_ETH_CTRL_RX	BIT(1)	/* receive into the RX ring */

#define XNIC_ETH_ARM_TX		BIT(0)	/* one ETH_TX event at the next TX */
#define XNIC_ETH_ARM_RX		BIT(1)	/* one ETH_RX event at the next RX */

#define XNIC_ETH_MIN_LOG	1
#define XNIC_ETH_MAX_LOG	12
#define XNIC_ETH_MIN_FRAME	14	/* an Ethernet header */

/* ------------------------------------------------------------------ */
/* Command queue                                                       */

/*
 * 2^log_size entries of 128 bytes.  The driver fills an entry, then writes
 * the new free-running producer index to CMDQ_PI.  The device executes
 * entries in order, writes status (and any output fields) back into the
 * entry, then sets done = 1 and posts an XNIC_EQE_CMD_DONE event with the
 * entry's token.
 */
enum xnic_cmd_opcode {
	XNIC_CMD_QUERY_CAPS	= 0x01,
	XNIC_CMD_CREATE_CQ	= 0x02,
	XNIC_CMD_DESTROY_CQ	= 0x03,
	XNIC_CMD_CREATE_QP	= 0x04,
	XNIC_CMD_MODIFY_QP	= 0x05,
	XNIC_CMD_QUERY_QP	= 0x06,
	XNIC_CMD_DESTROY_QP	= 0x07,
	XNIC_CMD_CREATE_SRQ	= 0x08,
	XNIC_CMD_MODIFY_SRQ	= 0x09,
	XNIC_CMD_DESTROY_SRQ	= 0x0a,
	XNIC_CMD_REG_MR		= 0x0b,
	XNIC_CMD_DEREG_MR	= 0x0c,
	XNIC_CMD_ALLOC_DB	= 0x0d,
	XNIC_CMD_FREE_DB	= 0x0e,
	XNIC_CMD_SET_GID	= 0x0f,
	XNIC_CMD_ALLOC_MW	= 0x10,
	XNIC_CMD_DEALLOC_MW	= 0x11,
	XNIC_CMD_RESIZE_CQ	= 0x12,
	XNIC_CMD_RESIZE_SRQ	= 0x13,
	XNIC_CMD_ATTACH_MCAST	= 0x14,
	XNIC_CMD_DETACH_MCAST	= 0x15,
	XNIC_CMD_QUERY_COUNTERS	= 0x16,
};

/*
 * The commands that release an object (destroy, deregister, free,
 * deallocate, detach).  Software cannot keep an object it frees, so the
 * device never refuses one for want of resources (it may still answer
 * BAD_INDEX or BUSY), and on a device that was reset what one asks is
 * already true.
 */
static inline bool xnic_cmd_releases(u8 opcode)
{
	switch (opcode) {
	case XNIC_CMD_DESTROY_CQ:
	case XNIC_CMD_DESTROY_QP:
	case XNIC_CMD_DESTROY_SRQ:
	case XNIC_CMD_DEREG_MR:
	case XNIC_CMD_FREE_DB:
	case XNIC_CMD_DEALLOC_MW:
	case XNIC_CMD_DETACH_MCAST:
		return true;
	default:
		return false;
	}
}

enum xnic_cmd_status {
	XNIC_CMD_OK		= 0,
	XNIC_CMD_BAD_OPCODE	= 1,
	XNIC_CMD_BAD_PARAM	= 2,	/* a field out of range */
	XNIC_CMD_BAD_STATE	= 3,	/* e.g. illegal QP transition */
	XNIC_CMD_NO_RESOURCES	= 4,
	XNIC_CMD_BAD_INDEX	= 5,	/* no such object, or in use */
	XNIC_CMD_BUSY		= 6,	/* object still referenced */
};

/*
 * The device's own codes for QP types, QP states, port states, path MTUs
 * and MODIFY_QP attributes.  Their values happen to equal the verbs'
 * (the layer above), but they are the hardware's: the driver translates,
 * and the device knows nothing of verbs.
 */
enum xnic_qp_type {
	XNIC_QPT_GSI		= 1,	/* QPN 1 only; UD semantics */
	XNIC_QPT_RC		= 2,
	XNIC_QPT_UC		= 3,
	XNIC_QPT_UD		= 4,
	XNIC_QPT_XRC_INI	= 9,	/* XRC initiator: SQ only */
	XNIC_QPT_XRC_TGT	= 10,	/* XRC target: no queues, an XRCD */
};

#define XNIC_GSI_QPN		1	/* the GSI QP's number, on every port */

enum xnic_qp_state {
	XNIC_QPS_RESET		= 0,
	XNIC_QPS_INIT		= 1,
	XNIC_QPS_RTR		= 2,
	XNIC_QPS_RTS		= 3,
	XNIC_QPS_SQD		= 4,
	XNIC_QPS_SQE		= 5,
	XNIC_QPS_ERR		= 6,
	XNIC_QPS_NUM
};

enum xnic_port_state {
	XNIC_PORT_DOWN		= 1,
	XNIC_PORT_ACTIVE	= 4,
};

enum xnic_mtu {
	XNIC_MTU_256		= 1,
	XNIC_MTU_512		= 2,
	XNIC_MTU_1024		= 3,
	XNIC_MTU_2048		= 4,
	XNIC_MTU_4096		= 5,
};

/* xnic_cmd_modify_qp.mask: which fields the command sets */
#define XNIC_QP_MOD_STATE		BIT(0)
#define XNIC_QP_MOD_ACCESS		BIT(3)
#define XNIC_QP_MOD_PORT		BIT(5)
#define XNIC_QP_MOD_QKEY		BIT(6)
#define XNIC_QP_MOD_AV			BIT(7)
#define XNIC_QP_MOD_PATH_MTU		BIT(8)
#define XNIC_QP_MOD_TIMEOUT		BIT(9)
#define XNIC_QP_MOD_RETRY_CNT		BIT(10)
#define XNIC_QP_MOD_RNR_RETRY		BIT(11)
#define XNIC_QP_MOD_RQ_PSN		BIT(12)
#define XNIC_QP_MOD_MAX_RD_ATOMIC	BIT(13)
#define XNIC_QP_MOD_MIN_RNR_TIMER	BIT(15)
#define XNIC_QP_MOD_SQ_PSN		BIT(16)
#define XNIC_QP_MOD_MAX_DEST_RD_ATOMIC	BIT(17)
#define XNIC_QP_MOD_DEST_QPN		BIT(20)

struct xnic_cmd_hdr {
	u8 opcode;
	u8 reserved[3];
	__le32 token;		/* echoed in the CMD_DONE event */
	__le32 status;		/* written by the device */
	__le32 done;		/* written by the device last: 1 */
};

struct xnic_cmd_query_caps_out {
	__le64 node_guid;	/* big-endian GUID bytes, as stored */
	__le64 max_mr_size;
	__le64 page_size_cap;
	__le32 vendor_id;
	__le32 vendor_part_id;
	__le32 hw_ver;
	__le32 max_qp;
	__le32 max_qp_wr;
	__le32 max_sge;
	__le32 max_inline;
	__le32 max_cq;
	__le32 max_cqe;
	__le32 max_mr;
	__le32 max_srq;
	__le32 max_srq_wr;
	__le32 max_rd_atom;
	__le32 max_fast_reg_pages;
	__le32 num_ports;
	__le32 port_state;	/* enum xnic_port_state, port 1 */
	__le32 port_mtu;	/* enum xnic_mtu */
	u8 fw_ver[16];
	__le32 max_mw;		/* memory windows (0: none) */
};

struct xnic_cmd_create_cq {
	__le32 cqn;		/* chosen by the driver, < max_cq */
	__le32 log_cqe;		/* ring of 2^log_cqe xnic_cqe */
	__le64 ring_addr;	/* DMA, physically contiguous */
	__le64 dbrec_addr;	/* DMA of the xnic_cq_dbrec */
	__le32 flags;		/* XNIC_CQ_F_* */
	__le32 reserved;
};

#define XNIC_CQ_F_EVENTS	BIT(0)	/* raise completion events */

/*
 * RESIZE_CQ: the CQ moves to a new ring and doorbell record.  Atomically
 * with respect to its CQE writes, the device copies the CQEs from the old
 * record's ci to its producer index into the new ring at the same
 * free-running indexes (owners of the new size), writes the owner of the
 * new ring's other entries so they read as invalid, copies the old record
 * into the new one and uses only the new ring and record from then on.
 * BAD_STATE when 2^log_cqe cannot hold the CQEs between ci and the
 * producer index, or the CQ overran.
 */
struct xnic_cmd_resize_cq {
	__le32 cqn;
	__le32 log_cqe;		/* new ring of 2^log_cqe xnic_cqe */
	__le64 ring_addr;	/* DMA, physically contiguous */
	__le64 dbrec_addr;	/* DMA of the new xnic_cq_dbrec */
	__le32 reserved;
	__le32 reserved2;
};

struct xnic_cmd_obj {	/* DESTROY_CQ, DESTROY_QP, DESTROY_SRQ, QUERY_QP */
	__le32 index;
	__le32 reserved;
};

struct xnic_cmd_create_qp {
	__le32 qpn;		/* chosen by the driver */
	u8 qp_type;		/* enum xnic_qp_type */
	u8 sq_log_wqe;
	u8 sq_wqe_shift;
	u8 rq_log_wqe;		/* 0 with an SRQ */
	u8 rq_wqe_shift;
	u8 sq_sig_all;
	u8 reserved[2];
	__le32 pdn;
	__le32 send_cqn;
	__le32 recv_cqn;
	__le32 srqn;		/* XNIC_NO_SRQ if none */
	__le32 db_index;	/* doorbell page (ALLOC_DB) */
	__le32 db_slot;		/* slot in that page */
	__le64 sq_addr;		/* DMA, contiguous */
	__le64 rq_addr;
	__le64 dbrec_addr;	/* DMA of the xnic_qp_dbrec */
	__le32 xrcdn;		/* XRC_TGT: its XRC domain; else 0 */
	__le32 reserved2;
};

#define XNIC_NO_SRQ		0xffffffff

/* MODIFY_QP: @mask is XNIC_QP_MOD_* */
struct xnic_cmd_modify_qp {
	__le32 qpn;
	__le32 mask;
	u8 state;		/* enum xnic_qp_state */
	u8 path_mtu;		/* enum xnic_mtu */
	u8 timeout;
	u8 retry_cnt;
	u8 rnr_retry;
	u8 min_rnr_timer;
	u8 max_rd_atomic;
	u8 max_dest_rd_atomic;
	__le32 qkey;
	__le32 rq_psn;
	__le32 sq_psn;
	__le32 dest_qpn;
	__le32 access;		/* XNIC_ACCESS_* */
	u8 port_num;
	u8 sgid_index;		/* AV: source GID table entry */
	u8 reserved[2];
	u8 dgid[16];		/* remote port's GID (AV) */
};

struct xnic_cmd_query_qp_out {	/* QUERY_QP writes it after the index */
	__le32 index;
	u8 state;		/* enum xnic_qp_state */
	u8 reserved[3];
	__le32 sq_psn;
	__le32 rq_psn;
};

struct xnic_cmd_create_srq {
	__le32 srqn;
	__le32 pdn;
	u8 log_wqe;
	u8 wqe_shift;
	u8 type;		/* enum xnic_srq_type */
	u8 reserved;
	__le32 limit;		/* LIMIT event below this many WQEs; 0 off */
	__le64 ring_addr;
	__le64 dbrec_addr;
	__le32 xrcdn;		/* XRC: its XRC domain; else 0 */
	__le32 cqn;		/* XRC: receives complete here; else 0 */
};

/*
 * An XRC SRQ receives for the XRC_TGT QPs of its domain: each request
 * packet of an XRC_INI QP names the SRQ (the WQE's xnic_wqe_xrc), which
 * must be an XRC SRQ of the target QP's domain; receives complete to the
 * SRQ's CQ, and remote access is checked against the SRQ's PD.
 */
enum xnic_srq_type {
	XNIC_SRQT_BASIC		= 0,
	XNIC_SRQT_XRC		= 1,
};

struct xnic_cmd_modify_srq {
	__le32 srqn;
	__le32 limit;
};

/*
 * RESIZE_SRQ: the SRQ moves to a larger ring (same WQE size) and a new
 * doorbell record.  Atomically with respect to its consumers, the device
 * copies the WQEs between its consumer index and the old record's rq_pi
 * into the new ring at the same free-running indexes (owners of the new
 * size), copies the old record into the new one and uses only the new
 * ring and record from then on.  BAD_PARAM unless log_wqe grows.
 */
struct xnic_cmd_resize_srq {
	__le32 srqn;
	u8 log_wqe;		/* new ring of 2^log_wqe WQEs */
	u8 reserved[3];
	__le64 ring_addr;
	__le64 dbrec_addr;
};

/*
 * REG_MR: index = key >> 8.  XNIC_MR_F_ALL covers every DMA address (DMA
 * MR, no MTT); XNIC_MR_F_FREG reserves an MTT of npages for fast
 * registration, invalid until a REG_MR WQE.
 */
struct xnic_cmd_reg_mr {
	__le32 key;
	__le32 pdn;
	__le32 access;		/* XNIC_ACCESS_*; local read is implied */
	__le32 flags;		/* XNIC_MR_F_* */
	__le64 iova;
	__le64 length;
	__le64 mtt_addr;	/* DMA of npages u64 DMA page addresses */
	__le32 npages;
	u8 page_shift;
	u8 reserved[3];
};

#define XNIC_MR_F_ALL		BIT(0)
#define XNIC_MR_F_FREG		BIT(1)
/* device memory: mtt_addr is the offset in the DM window of byte iova */
#define XNIC_MR_F_DM		BIT(2)

struct xnic_cmd_dereg_mr {
	__le32 key;
	__le32 reserved;
};

/*
 * ALLOC_MW: a memory window at index key >> 8 of the key table (the MRs'
 * table: one key space), unbound.  DEALLOC_MW: @key names it (its current
 * tag is not checked); a bound window is unbound first.
 */
enum xnic_mw_type {
	XNIC_MW_TYPE_1		= 1,
	XNIC_MW_TYPE_2		= 2,	/* type 2B */
};

struct xnic_cmd_alloc_mw {
	__le32 key;
	__le32 pdn;
	u8 type;		/* enum xnic_mw_type */
	u8 reserved[7];
};

/* ALLOC_DB: a doorbell page (struct xnic_db_page) the device polls. */
struct xnic_cmd_alloc_db {
	__le32 db_index;	/* chosen by the driver, < 1024 */
	__le32 reserved;
	__le64 page_addr;	/* DMA, XNIC_DB_PAGE_SIZE, contiguous */
};

/*
 * SET_GID: write entry @index of @port's GID table (valid = 0 clears it).
 * After reset entry 0 holds fe80::<node GUID> type ROCE_V1 and entry 1 the
 * same GID type ROCE_V2; the others are empty.
 */
#define XNIC_GID_TABLE_LEN	16

enum xnic_gid_type {
	XNIC_GID_TYPE_ROCE_V1	= 0,
	XNIC_GID_TYPE_ROCE_V2	= 1,
};

struct xnic_cmd_set_gid {
	__le32 port;		/* 1-based */
	__le32 index;		/* < XNIC_GID_TABLE_LEN */
	u8 gid[16];
	u8 type;		/* enum xnic_gid_type */
	u8 valid;		/* 1: set the entry, 0: clear it */
	u8 reserved[2];
};

/*
 * ATTACH_MCAST, DETACH_MCAST: a UD QP joins or leaves the multicast group
 * @gid of its port (Documentation/xnic/commands.rst).  The device holds
 * XNIC_MCG_MAX groups per port, XNIC_MCG_MAX_QP QPs per group and
 * XNIC_MCG_MAX_ATTACH attachments in all; a UD send to dest_qpn
 * XNIC_MCAST_QPN with a group's GID reaches every QP attached to it.
 */
#define XNIC_MCG_MAX		64
#define XNIC_MCG_MAX_QP		8
#define XNIC_MCG_MAX_ATTACH	256
#define XNIC_MCAST_QPN		0xffffff

struct xnic_cmd_mcast {
	__le32 qpn;
	__le32 reserved;
	u8 gid[16];		/* ff00::/8, or ::ffff:224.0.0.0/100 */
};

/*
 * QUERY_COUNTERS: the device's counters, an __le64 each, in this order
 * (Documentation/xnic/commands.rst).  Device-wide, free-running from
 * device creation, never reset; new counters are only ever appended.
 */
enum xnic_counter {
	XNIC_CTR_DOORBELLS,
	XNIC_CTR_BAD_DOORBELLS,
	XNIC_CTR_KICKS,
	XNIC_CTR_SLEEPS,
	XNIC_CTR_WAKEUPS,
	XNIC_CTR_WRITER_RUNS,
	XNIC_CTR_YIELDS,
	XNIC_CTR_COMMANDS,
	XNIC_CTR_CMD_ERRORS,
	XNIC_CTR_EQES,
	XNIC_CTR_EQ_OVERRUNS,
	XNIC_CTR_IRQS,
	XNIC_CTR_CQES,
	XNIC_CTR_CQ_OVERRUNS,
	XNIC_CTR_TX_RDMA_WRITE,
	XNIC_CTR_TX_RDMA_WRITE_BYTES,
	XNIC_CTR_TX_RDMA_WRITE_IMM,
	XNIC_CTR_TX_RDMA_WRITE_IMM_BYTES,
	XNIC_CTR_TX_SEND,
	XNIC_CTR_TX_SEND_BYTES,
	XNIC_CTR_TX_SEND_IMM,
	XNIC_CTR_TX_SEND_IMM_BYTES,
	XNIC_CTR_TX_RDMA_READ,
	XNIC_CTR_TX_RDMA_READ_BYTES,
	XNIC_CTR_TX_CMP_SWAP,
	XNIC_CTR_TX_FETCH_ADD,
	XNIC_CTR_TX_LOCAL_INV,
	XNIC_CTR_TX_SEND_INV,
	XNIC_CTR_TX_SEND_INV_BYTES,
	XNIC_CTR_TX_REG_MR,
	XNIC_CTR_TX_BIND_MW,
	XNIC_CTR_TX_NOP,
	XNIC_CTR_TX_MCAST,
	XNIC_CTR_RX_SEND,
	XNIC_CTR_RX_SEND_BYTES,
	XNIC_CTR_RX_WRITE,
	XNIC_CTR_RX_WRITE_BYTES,
	XNIC_CTR_RX_READ,
	XNIC_CTR_RX_READ_BYTES,
	XNIC_CTR_RX_ATOMIC,
	XNIC_CTR_RX_MCAST,
	XNIC_CTR_ERR_LOC_LEN,
	XNIC_CTR_ERR_LOC_QP_OP,
	XNIC_CTR_ERR_LOC_PROT,
	XNIC_CTR_ERR_MW_BIND,
	XNIC_CTR_ERR_FLUSH,
	XNIC_CTR_ERR_REM_INV_REQ,
	XNIC_CTR_ERR_REM_ACCESS,
	XNIC_CTR_ERR_REM_OP,
	XNIC_CTR_ERR_RETRY_EXC,
	XNIC_CTR_ERR_RNR_RETRY_EXC,
	XNIC_CTR_ERR_OTHER,
	XNIC_CTR_RNR_NAKS,
	XNIC_CTR_RETRIES,
	XNIC_CTR_UD_DROP_QKEY,
	XNIC_CTR_UD_DROP_NOQP,
	XNIC_CTR_UD_DROP_NORECV,
	XNIC_CTR_UD_DROP_NOMCG,
	XNIC_CTR_UC_DROPS,
	XNIC_CTR_PSN_MISMATCH,
	XNIC_CTR_RX_DROP_BAD_SRC,
	XNIC_CTR_RX_DROP_PSN,
	/* the port on an Ethernet (Documentation/xnic/wire.rst) */
	XNIC_CTR_WIRE_TX_PKTS,
	XNIC_CTR_WIRE_TX_BYTES,
	XNIC_CTR_WIRE_RX_PKTS,
	XNIC_CTR_WIRE_RX_BYTES,
	XNIC_CTR_WIRE_RETRANSMITS,
	XNIC_CTR_WIRE_TIMEOUTS,
	XNIC_CTR_WIRE_SEQ_NAKS_SENT,
	XNIC_CTR_WIRE_SEQ_NAKS_RCVD,
	XNIC_CTR_WIRE_RNR_NAKS_SENT,
	XNIC_CTR_WIRE_RNR_NAKS_RCVD,
	XNIC_CTR_WIRE_ERR_NAKS_SENT,
	XNIC_CTR_WIRE_ERR_NAKS_RCVD,
	XNIC_CTR_WIRE_DUPLICATES,
	XNIC_CTR_WIRE_OOS_DROPS,
	XNIC_CTR_WIRE_ICRC_ERRORS,
	XNIC_CTR_WIRE_MALFORMED,
	XNIC_CTR_WIRE_NO_QP,
	XNIC_CTR_WIRE_NO_NEIGH,
	XNIC_CTR_WIRE_ECN_MARKED,
	XNIC_CTR_WIRE_ETH_TX,
	XNIC_CTR_WIRE_ETH_RX,
	/* the model's engine (Documentation/xnic/model.rst) */
	XNIC_CTR_SERVE_WAITS,
	XNIC_CTR_NUM
};

/*
 * QUERY_COUNTERS: the device writes min(num, XNIC_CTR_NUM on this
 * device) counters (enum xnic_counter order) as __le64 to buf_addr, then
 * returns that number in written.  num 0 or buf_addr 0: BAD_PARAM.
 */
struct xnic_cmd_query_counters {
	__le64 buf_addr;	/* 8-byte aligned */
	__le32 num;		/* room, in counters */
	__le32 written;		/* out: counters written */
};

struct xnic_cmd {
	struct xnic_cmd_hdr hdr;
	union {
		struct xnic_cmd_query_caps_out caps;
		struct xnic_cmd_create_cq create_cq;
		struct xnic_cmd_obj obj;
		struct xnic_cmd_create_qp create_qp;
		struct xnic_cmd_modify_qp modify_qp;
		struct xnic_cmd_query_qp_out query_qp;
		struct xnic_cmd_create_srq create_srq;
		struct xnic_cmd_modify_srq modify_srq;
		struct xnic_cmd_resize_cq resize_cq;
		struct xnic_cmd_resize_srq resize_srq;
		struct xnic_cmd_reg_mr reg_mr;
		struct xnic_cmd_dereg_mr dereg_mr;
		struct xnic_cmd_alloc_mw alloc_mw;
		struct xnic_cmd_alloc_db alloc_db;
		struct xnic_cmd_set_gid set_gid;
		struct xnic_cmd_mcast mcast;
		struct xnic_cmd_query_counters query_counters;
		u8 raw[112];
	};
};

/* ------------------------------------------------------------------ */
/* Event queue                                                         */

/*
 * 2^log_size entries of 16 bytes written by the device; valid when owner
 * == phase of its lap (first lap: 1).  The driver consumes entries, writes
 * the free-running consumer index to EQ_CI, and the device raises the
 * interrupt (unless masked) when it writes an entry.  An EQ overrun makes
 * the device fatal (STATUS.FATAL, a DEVICE_FATAL event is lost).
 */
enum xnic_eqe_type {
	XNIC_EQE_COMPLETION	= 0x01,	/* data: cqn */
	XNIC_EQE_CMD_DONE	= 0x02,	/* data: token */
	XNIC_EQE_QP_FATAL	= 0x03,	/* data: qpn */
	XNIC_EQE_QP_REQ_ERR	= 0x04,	/* data: qpn */
	XNIC_EQE_QP_ACCESS_ERR	= 0x05,	/* data: qpn */
	XNIC_EQE_CQ_ERR		= 0x06,	/* data: cqn (overrun) */
	XNIC_EQE_SRQ_LIMIT	= 0x07,	/* data: srqn */
	XNIC_EQE_PORT_CHANGE	= 0x08,	/* data: port, aux: enum xnic_port_state */
	XNIC_EQE_DEVICE_FATAL	= 0x09,
	XNIC_EQE_LAST_WQE	= 0x0a,	/* data: qpn */
	XNIC_EQE_ETH_TX		= 0x0b,	/* data: port (armed TX done) */
	XNIC_EQE_ETH_RX		= 0x0c,	/* data: port (armed RX done) */
	/* an XRC SRQ refused a remote access: now in error; data: srqn */
	XNIC_EQE_SRQ_ERR	= 0x0d,
};

struct xnic_eqe {
	u8 type;
	u8 owner;
	u8 reserved[2];
	__le32 data;
	__le32 aux;
	__le32 reserved2;
};

/* ------------------------------------------------------------------ */
/* Ethernet descriptors                                                */

/*
 * A TX or RX ring is 2^log_size descriptors of 16 bytes, 16-byte aligned.
 * The driver writes @addr and @len (TX: the frame; RX: the buffer) with
 * @status 0, then the producer index register.  The device consumes
 * descriptors in order; it writes @len (RX: the frame's length) and then
 * @status (XNIC_ETH_DESC_DONE, and ERR for a TX descriptor it refused)
 * with release ordering.
 */
struct xnic_eth_desc {
	__le64 addr;		/* DMA address of the frame or buffer */
	__le32 len;
	u8 status;		/* XNIC_ETH_DESC_*, written by the device */
	u8 reserved[3];
};

#define XNIC_ETH_DESC_DONE	BIT(0)
#define XNIC_ETH_DESC_ERR	BIT(1)	/* TX: bad length or address */

#endif /* _XRDMA_XNIC_HW_H */
