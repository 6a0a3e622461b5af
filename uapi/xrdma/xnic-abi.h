/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * xnic: the queue formats userspace writes and reads directly (work queue
 * entries, completion queue entries, doorbell records and the doorbell
 * page), and the xnic driver data of the uverbs commands.
 *
 * All multi-byte fields are little-endian.  This file and
 * Documentation/xnic/ are the contract between the device (or its model,
 * xnic_sim) and every driver, kernel or user.
 */
#ifndef _UAPI_XRDMA_XNIC_ABI_H
#define _UAPI_XRDMA_XNIC_ABI_H

#include <linux/types.h>

#define XNIC_ABI_VERSION	1

/* ------------------------------------------------------------------ */
/* Send queue                                                          */

/* ctrl.opcode */
#define XNIC_OP_RDMA_WRITE		0x00
#define XNIC_OP_RDMA_WRITE_WITH_IMM	0x01
#define XNIC_OP_SEND			0x02
#define XNIC_OP_SEND_WITH_IMM		0x03
#define XNIC_OP_RDMA_READ		0x04
#define XNIC_OP_ATOMIC_CMP_AND_SWP	0x05
#define XNIC_OP_ATOMIC_FETCH_AND_ADD	0x06
#define XNIC_OP_LOCAL_INV		0x07
#define XNIC_OP_SEND_WITH_INV		0x08
#define XNIC_OP_REG_MR			0x09	/* kernel QPs only */
#define XNIC_OP_BIND_MW			0x0a
#define XNIC_OP_ATOMIC_WRITE		0x0b	/* XNIC_FEAT_ATOMIC_WRITE */
#define XNIC_OP_FLUSH			0x0c	/* XNIC_FEAT_FLUSH_* */
#define XNIC_OP_NOP			0x0f

/* ctrl.flags */
#define XNIC_WQE_SIGNALED	0x1	/* write a CQE on success */
#define XNIC_WQE_SOLICITED	0x2
#define XNIC_WQE_FENCE		0x4	/* wait for prior READ/atomic */
#define XNIC_WQE_INLINE		0x8	/* data follows in place of SGEs */

/*
 * ctrl.owner: bit 0 is the phase of the lap the entry was written in:
 * entry i of a queue of 2^n entries is valid for the device when
 * owner == (i >> n) & 1 (the first lap writes 0).  The device never trusts
 * an index alone.
 */
struct xnic_wqe_ctrl {
	__u8 opcode;
	__u8 flags;
	__u8 num_sge;		/* SGEs in data, or 0 with XNIC_WQE_INLINE */
	__u8 owner;
	__le32 inline_len;	/* bytes of inline data */
	__le64 wr_id;		/* echoed in the CQE */
	__le32 imm_data;	/* immediate (big-endian payload) or inv. rkey */
	__le32 reserved;
	__le64 reserved2;
};

struct xnic_wqe_remote {	/* RDMA and atomic */
	__le64 remote_addr;
	__le32 rkey;
	__le32 reserved;
};

struct xnic_wqe_atomic {
	__le64 compare_add;
	__le64 swap;
};

/*
 * FLUSH (IBTA 1.5 A19): at XNIC_WQE_FLUSH_OFF, after the remote segment
 * (remote_addr, rkey).  type: XNIC_FLUSH_GLOBAL and/or
 * XNIC_FLUSH_PERSISTENT (the placement type); level: XNIC_FLUSH_RANGE
 * ([remote_addr, remote_addr + length) of the MR) or XNIC_FLUSH_MR (the
 * whole MR; remote_addr and length are not looked at).
 */
struct xnic_wqe_flush {
	__le32 length;
	__u8 type;
	__u8 level;
	__u8 reserved[10];
};

#define XNIC_FLUSH_GLOBAL	0x1	/* global visibility */
#define XNIC_FLUSH_PERSISTENT	0x2	/* persistence */
#define XNIC_FLUSH_RANGE	0
#define XNIC_FLUSH_MR		1

struct xnic_wqe_ud {
	__le32 dest_qpn;
	__le32 qkey;
	__u8 dgid[16];		/* the destination port's GID */
	__u8 port_num;
	__u8 sgid_index;	/* source GID: entry of the port's table */
	__u8 hop_limit;		/* GRH hop limit / IPv4 TTL */
	__u8 traffic_class;	/* GRH traffic class / IPv4 TOS */
	__u8 reserved[4];
};

struct xnic_wqe_fr {		/* REG_MR: fast registration */
	__le64 mtt_addr;	/* DMA address of the page list (u64 each) */
	__le64 iova;
	__le64 length;
	__le32 key;		/* new lkey/rkey (index and tag) */
	__le32 access;		/* XNIC_ACCESS_* */
	__le32 npages;
	__u8 page_shift;
	__u8 reserved[3];
};

struct xnic_wqe_bind {		/* BIND_MW */
	__le64 addr;		/* first byte, an address of the MR */
	__le64 length;		/* bytes; 0 unbinds a type 1 window */
	__le32 mr_key;		/* lkey of the MR */
	__le32 mw_key;		/* the window's new key: its index, new tag */
	__le32 access;		/* XNIC_ACCESS_REMOTE_* */
	__u8 flags;		/* XNIC_BIND_F_* */
	__u8 reserved[3];
};

#define XNIC_BIND_F_ZERO_BASED	0x1	/* the window's addresses start at 0 */

struct xnic_wqe_xrc {		/* XRC_INI QPs: in place of ud */
	__le32 remote_srqn;	/* the target's XRC SRQ */
	__le32 reserved;
};

struct xnic_sge {
	__le64 addr;
	__le32 length;
	__le32 lkey;
};

/*
 * A send WQE is 2^sq_wqe_shift bytes (>= 128): ctrl at 0, remote at 32,
 * atomic (flush for FLUSH) at 48, ud at 64 (xrc at 64 on XRC_INI QPs; fr
 * at 32 for REG_MR, bind at 32 for BIND_MW), then at 96 either
 * num_sge SGEs or inline_len bytes of data.
 */
#define XNIC_WQE_CTRL_OFF	0
#define XNIC_WQE_REMOTE_OFF	32
#define XNIC_WQE_ATOMIC_OFF	48
#define XNIC_WQE_FLUSH_OFF	48
#define XNIC_WQE_UD_OFF		64
#define XNIC_WQE_XRC_OFF	64
#define XNIC_WQE_FR_OFF		32
#define XNIC_WQE_BIND_OFF	32
#define XNIC_WQE_DATA_OFF	96
#define XNIC_SQ_WQE_MIN_SHIFT	7

/*
 * A receive WQE (RQ and SRQ) is 2^rq_wqe_shift bytes (>= 32): this header,
 * then num_sge SGEs.
 */
struct xnic_rwqe {
	__le64 wr_id;
	__u8 num_sge;
	__u8 owner;		/* phase, as in xnic_wqe_ctrl */
	__u8 reserved[6];
};

#define XNIC_RQ_WQE_MIN_SHIFT	5

/* ------------------------------------------------------------------ */
/* Completion queue                                                    */

/* cqe.status: the verbs completion status (IBV_WC_*) */
#define XNIC_CQE_SUCCESS		0
#define XNIC_CQE_LOC_LEN_ERR		1
#define XNIC_CQE_LOC_QP_OP_ERR		2
#define XNIC_CQE_LOC_PROT_ERR		4
#define XNIC_CQE_WR_FLUSH_ERR		5
#define XNIC_CQE_MW_BIND_ERR		6
#define XNIC_CQE_BAD_RESP_ERR		7
#define XNIC_CQE_LOC_ACCESS_ERR		8
#define XNIC_CQE_REM_INV_REQ_ERR	9
#define XNIC_CQE_REM_ACCESS_ERR		10
#define XNIC_CQE_REM_OP_ERR		11
#define XNIC_CQE_RETRY_EXC_ERR		12
#define XNIC_CQE_RNR_RETRY_EXC_ERR	13
#define XNIC_CQE_GENERAL_ERR		21

/* cqe.opcode: as IBV_WC_* */
#define XNIC_CQE_OP_SEND		0
#define XNIC_CQE_OP_RDMA_WRITE		1
#define XNIC_CQE_OP_RDMA_READ		2
#define XNIC_CQE_OP_COMP_SWAP		3
#define XNIC_CQE_OP_FETCH_ADD		4
#define XNIC_CQE_OP_BIND_MW		5
#define XNIC_CQE_OP_LOCAL_INV		6
#define XNIC_CQE_OP_REG_MR		7
#define XNIC_CQE_OP_FLUSH		8
#define XNIC_CQE_OP_ATOMIC_WRITE	9
#define XNIC_CQE_OP_RECV		128
#define XNIC_CQE_OP_RECV_RDMA_WITH_IMM	129

/* cqe.flags */
#define XNIC_CQE_GRH		0x1
#define XNIC_CQE_WITH_IMM	0x2
#define XNIC_CQE_WITH_INV	0x4
/* with XNIC_CQE_GRH: the network header the receive buffer starts with */
#define XNIC_CQE_NET_MASK	0x18
#define XNIC_CQE_NET_ROCE_V1	0x00	/* a GRH */
#define XNIC_CQE_NET_IPV4	0x08	/* 20 zero bytes, an IPv4 header */
#define XNIC_CQE_NET_IPV6	0x10	/* a GRH (IPv6 header) */

/* 32 bytes; valid when owner == phase of its lap (first lap: 1) */
struct xnic_cqe {
	__le64 wr_id;
	__le32 byte_len;
	__le32 imm_data;	/* immediate (big-endian payload) or inv. rkey */
	__le32 qpn;
	__le32 src_qp;		/* UD receives */
	__u8 status;
	__u8 opcode;
	__u8 flags;
	__u8 owner;
	__le32 timestamp;	/* device clock, microseconds, wraps */
};

/*
 * CQ doorbell record (8 bytes, written by the consumer): ci = number of
 * CQEs consumed (free running); arm = (arm_sn << 2) | XNIC_CQ_ARM_*.  The
 * device raises one completion event for an armed CQ when it writes a
 * matching CQE and then clears the arm bits; a new arm_sn re-arms.
 */
#define XNIC_CQ_ARM_NEXT	1
#define XNIC_CQ_ARM_SOLICITED	2

struct xnic_cq_dbrec {
	__le32 ci;
	__le32 arm;
};

/*
 * QP doorbell record (8 bytes, written by the producer): free-running
 * producer indexes of the send and receive queues.  SRQs have their own:
 * rq_pi is the producer's, and the device writes sq_pi: the number of
 * WQEs it has taken (free running), before the CQE of each, so an SRQ's
 * producer knows which entries are free without matching completions to
 * SRQs (an XRC SRQ's completions name QPs of other processes).
 */
struct xnic_qp_dbrec {
	__le32 sq_pi;
	__le32 rq_pi;
};

/* ------------------------------------------------------------------ */
/* Doorbell page: one per context (and one for the kernel driver)      */

/*
 * 8 KiB.  After writing a WQE and the doorbell record, the producer sets
 * the QP's slot bit in group[slot / 64] and then bit (slot / 64) % 64 in
 * summary[slot / 4096] (atomic OR, release ordering); then it reads
 * flags and, when XNIC_DB_NEED_WAKEUP is set, kicks the device (KICK
 * ioctl, or the KICK register from the kernel).  The device takes summary
 * and group words with atomic exchange, so work is found in O(active QPs).
 */
#define XNIC_DB_NEED_WAKEUP	0x1U
#define XNIC_DB_PAGE_SIZE	8192
#define XNIC_DB_SUMMARY_WORDS	8
#define XNIC_DB_GROUP_WORDS	512
#define XNIC_DB_SLOTS		(XNIC_DB_GROUP_WORDS * 64)

struct xnic_db_page {
	__le32 flags;			/* written by the device */
	__le32 reserved;
	__le64 summary[XNIC_DB_SUMMARY_WORDS];
	__u8 pad[4096 - 8 - 8 * XNIC_DB_SUMMARY_WORDS];
	__le64 group[XNIC_DB_GROUP_WORDS];
};

/* ------------------------------------------------------------------ */
/* Driver data of uverbs commands (struct xrdma_udata_desc targets)    */

/* GET_CONTEXT out */
struct xnic_ucontext_resp {
	__aligned_u64 db_page_offset;	/* mmap, XNIC_DB_PAGE_SIZE bytes */
	__u32 abi_version;		/* XNIC_ABI_VERSION */
	__u32 max_sge;
	__u32 max_inline;
	__u32 reserved;
};

/* CREATE_CQ out: ring of 2^log_cqe xnic_cqe, then the xnic_cq_dbrec */
struct xnic_create_cq_resp {
	__aligned_u64 mmap_offset;
	__u32 mmap_size;
	__u32 log_cqe;
	__u32 dbrec_offset;		/* within the mapping */
	__u32 cqn;
};

/*
 * RESIZE_CQ out: the CQ's new mapping, as CREATE_CQ's (the ring, then the
 * doorbell record, which moved with it: the consumer index and arm word
 * are carried over); mmap_size 0 when the ring kept its size and
 * nothing moved.  The old mapping is no longer written by the device.
 */
struct xnic_resize_cq_resp {
	__aligned_u64 mmap_offset;
	__u32 mmap_size;
	__u32 log_cqe;
	__u32 dbrec_offset;		/* within the mapping */
	__u32 reserved;
};

/*
 * CREATE_QP out: one mapping holding the SQ (2^sq_log_wqe entries of
 * 2^sq_wqe_shift bytes), the RQ, and the xnic_qp_dbrec.  A QP with an
 * SRQ and an XRC_SEND QP have no RQ: rq_log_wqe and rq_wqe_shift are 0.
 * An XRC_RECV QP has nothing to map: every field is 0 (mmap_size 0).
 */
struct xnic_create_qp_resp {
	__aligned_u64 mmap_offset;
	__u32 mmap_size;
	__u32 sq_offset;
	__u32 sq_log_wqe;
	__u32 sq_wqe_shift;
	__u32 rq_offset;
	__u32 rq_log_wqe;
	__u32 rq_wqe_shift;
	__u32 dbrec_offset;
	__u32 db_slot;			/* doorbell page slot of this QP */
	__u32 reserved;
};

/* CREATE_SRQ out: ring of receive WQEs and an xnic_qp_dbrec (rq_pi) */
struct xnic_create_srq_resp {
	__aligned_u64 mmap_offset;
	__u32 mmap_size;
	__u32 log_wqe;
	__u32 wqe_shift;
	__u32 dbrec_offset;
	__u32 srqn;
	__u32 reserved;
};

/*
 * MODIFY_SRQ out (optional, out_len 0 for none): with
 * XRDMA_UVERBS_SRQ_MAX_WR, the SRQ's new max_wr and, when its ring grew,
 * the new mapping as CREATE_SRQ's (the posted WQEs and rq_pi carried
 * over; the WQE size is unchanged); mmap_size 0 when nothing moved.
 */
struct xnic_modify_srq_resp {
	__aligned_u64 mmap_offset;
	__u32 mmap_size;
	__u32 log_wqe;
	__u32 dbrec_offset;
	__u32 max_wr;
};

/* MR access flags in WQEs and commands: as IBV_ACCESS_* */
#define XNIC_ACCESS_LOCAL_WRITE		0x1
#define XNIC_ACCESS_REMOTE_WRITE	0x2
#define XNIC_ACCESS_REMOTE_READ		0x4
#define XNIC_ACCESS_REMOTE_ATOMIC	0x8
#define XNIC_ACCESS_MW_BIND		0x10	/* MRs: windows may be bound */
/* MRs and QPs: the FLUSH placement types a responder serves */
#define XNIC_ACCESS_FLUSH_GLOBAL	0x100
#define XNIC_ACCESS_FLUSH_PERSISTENT	0x200	/* MR: persistent memory */

#endif /* _UAPI_XRDMA_XNIC_ABI_H */
