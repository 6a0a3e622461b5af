/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * xrdma user ABI: ioctls on /dev/infiniband/xrdma_uverbsN.
 *
 * Every command is _IOWR(XRDMA_IOC_MAGIC, nr, struct xrdma_cmd_*): the
 * structure size encoded in the command number is the size userspace was
 * built with.  The kernel reads the structure with copy_struct_from_user()
 * semantics: a shorter (older) structure is zero-extended, a longer (newer)
 * one is accepted only if the bytes the kernel does not know are zero
 * (-E2BIG otherwise); one shorter than the first published structure,
 * XRDMA_CMD_<NAME>_SIZE_VER0, gives -EINVAL.  A structure grows only at
 * its end, and each growth adds a _SIZE_VER<n>; fields never move (the
 * header test pins every offset, tools/testing/uverbs/abi-layout.txt).
 * The kernel writes back at most the size userspace gave.  All fields are
 * fixed size, pointers are __aligned_u64, padding is explicit.
 *
 * Extension: unknown bits in flags, comp_mask or a mask of attributes,
 * and non-zero reserved fields (padding included) give -EINVAL, so a bit
 * or field that gains a meaning later fails cleanly on older kernels.
 *
 * Handles are per file descriptor and never 0.  Driver-specific data goes
 * through struct xrdma_udata_desc, pointing at structures declared in
 * <xrdma/xnic-abi.h>.
 */
#ifndef _UAPI_XRDMA_ABI_H
#define _UAPI_XRDMA_ABI_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define XRDMA_ABI_VERSION	1
#define XRDMA_IOC_MAGIC		0xe7

/* Driver data: pointers to the driver's declared in/out structures. */
struct xrdma_udata_desc {
	__aligned_u64 in;	/* user pointer, may be 0 when in_len is 0 */
	__aligned_u64 out;	/* user pointer, may be 0 when out_len is 0 */
	__u32 in_len;
	__u32 out_len;
};

/* XRDMA_IOC_GET_CONTEXT: must be the first command on a new fd. */
struct xrdma_cmd_get_context {
	__u32 flags;			/* in: 0 */
	__u32 abi_version;		/* out: XRDMA_ABI_VERSION */
	__u32 num_comp_vectors;		/* out */
	__u32 reserved;
	struct xrdma_udata_desc udata;
};

#define XRDMA_CMD_GET_CONTEXT_SIZE_VER0	40

struct xrdma_cmd_query_device {
	__u32 comp_mask;		/* in: 0 */
	__u32 reserved;
	/* out */
	__aligned_u64 node_guid;	/* network byte order */
	__aligned_u64 max_mr_size;
	__aligned_u64 page_size_cap;
	__u32 vendor_id;
	__u32 vendor_part_id;
	__u32 hw_ver;
	__u32 device_cap_flags;		/* XRDMA_DEVICE_CAP_* */
	__u32 max_qp;
	__u32 max_qp_wr;
	__u32 max_sge;
	__u32 max_sge_rd;
	__u32 max_inline_data;
	__u32 max_cq;
	__u32 max_cqe;
	__u32 max_mr;
	__u32 max_pd;
	__u32 max_qp_rd_atom;
	__u32 max_qp_init_rd_atom;
	__u32 max_srq;
	__u32 max_srq_wr;
	__u32 max_srq_sge;
	__u32 max_ah;
	__u32 max_fast_reg_page_list_len;
	__u32 atomic_cap;		/* XRDMA_UVERBS_ATOMIC_* */
	__u32 num_ports;
	char fw_ver[32];
	/* since VER1: UD multicast limits (0: no multicast) */
	__u32 max_mcast_grp;		/* groups per port */
	__u32 max_mcast_qp_attach;	/* QPs per group */
	__u32 max_total_mcast_qp_attach;	/* attachments in all */
	__u32 reserved2;
	/* since VER2 */
	__aligned_u64 max_dm_size;	/* device memory, bytes; 0: none */
	/* since VER3 */
	__u32 max_xrcd;			/* XRC domains; 0 without CAP_XRC */
	__u32 reserved3;
};

#define XRDMA_CMD_QUERY_DEVICE_SIZE_VER0	152
#define XRDMA_CMD_QUERY_DEVICE_SIZE_VER1	168	/* multicast limits */
#define XRDMA_CMD_QUERY_DEVICE_SIZE_VER2	176	/* max_dm_size */
#define XRDMA_CMD_QUERY_DEVICE_SIZE_VER3	184	/* max_xrcd */

/* device_cap_flags: what the device (kernel driver) can do */
#define XRDMA_DEVICE_CAP_MEM_MGT_EXTENSIONS	0x1U	/* kernel QPs' fast-reg */
#define XRDMA_DEVICE_CAP_SRQ_RESIZE		0x2U
/* 0x4U is reserved: it was SQD, which no device reported */
#define XRDMA_DEVICE_CAP_RC_RNR_NAK_GEN		0x8U	/* RC receiver NAKs */
/* port state changes reach the async event fd (every xrdma device) */
#define XRDMA_DEVICE_CAP_PORT_ACTIVE_EVENT	0x10U
/* MODIFY_QP may set a QP's port (every xrdma device) */
#define XRDMA_DEVICE_CAP_CHANGE_PHY_PORT	0x20U
/* memory windows: type 1 (ALLOC_MW); with TYPE_2B type 2B too */
#define XRDMA_DEVICE_CAP_MEM_WINDOW		0x40U
#define XRDMA_DEVICE_CAP_MEM_WINDOW_TYPE_2B	0x80U
/* XRC domains, XRC SRQs, XRC send and receive QPs (OPEN_XRCD, OPEN_QP) */
#define XRDMA_DEVICE_CAP_XRC			0x100U
/*
 * IBTA 1.5 persistent-memory operations (as IB_UVERBS_DEVICE_* bits 40,
 * 38, 39 of device_cap_flags_ex): ATOMIC WRITE; FLUSH of placement type
 * global visibility, persistence (MRs and QPs with the matching
 * XRDMA_UVERBS_ACCESS_FLUSH_*)
 */
#define XRDMA_DEVICE_CAP_ATOMIC_WRITE		0x200U
#define XRDMA_DEVICE_CAP_FLUSH_GLOBAL		0x400U
#define XRDMA_DEVICE_CAP_FLUSH_PERSISTENT	0x800U

/* atomic_cap, as IBV_ATOMIC_* */
#define XRDMA_UVERBS_ATOMIC_NONE	0
#define XRDMA_UVERBS_ATOMIC_HCA		1	/* among this device's own */
#define XRDMA_UVERBS_ATOMIC_GLOB	2	/* against the CPU too */

struct xrdma_cmd_query_port {
	__u32 port_num;			/* in: 1-based */
	/* out */
	__u32 state;			/* XRDMA_UVERBS_PORT_* */
	__u32 max_mtu;			/* XRDMA_UVERBS_MTU_* */
	__u32 active_mtu;
	__u32 link_layer;		/* XRDMA_UVERBS_LINK_LAYER_* */
	__u32 gid_tbl_len;
	__u32 max_msg_sz;
	__u16 pkey_tbl_len;
	__u16 lid;
	__u8 active_speed;
	__u8 active_width;
	__u8 reserved[6];
};

#define XRDMA_CMD_QUERY_PORT_SIZE_VER0	40

/* port states, as IBV_PORT_* */
#define XRDMA_UVERBS_PORT_NOP		0
#define XRDMA_UVERBS_PORT_DOWN		1
#define XRDMA_UVERBS_PORT_INIT		2
#define XRDMA_UVERBS_PORT_ARMED		3
#define XRDMA_UVERBS_PORT_ACTIVE	4

/* MTUs, as IBV_MTU_* */
#define XRDMA_UVERBS_MTU_256		1
#define XRDMA_UVERBS_MTU_512		2
#define XRDMA_UVERBS_MTU_1024		3
#define XRDMA_UVERBS_MTU_2048		4
#define XRDMA_UVERBS_MTU_4096		5

/* link layers, as IBV_LINK_LAYER_* */
#define XRDMA_UVERBS_LINK_LAYER_UNSPECIFIED	0
#define XRDMA_UVERBS_LINK_LAYER_INFINIBAND	1
#define XRDMA_UVERBS_LINK_LAYER_ETHERNET	2

struct xrdma_cmd_query_gid {
	__u32 port_num;			/* in */
	__u32 index;			/* in */
	__u8 gid[16];			/* out */
};

#define XRDMA_CMD_QUERY_GID_SIZE_VER0	24

struct xrdma_cmd_alloc_pd {
	__u32 flags;			/* in: 0 */
	__u32 pd_handle;		/* out */
	struct xrdma_udata_desc udata;
};

#define XRDMA_CMD_ALLOC_PD_SIZE_VER0	32

/* XRDMA_IOC_DESTROY: one command destroys any object by handle */
#define XRDMA_OBJ_PD	1
#define XRDMA_OBJ_CQ	2
#define XRDMA_OBJ_QP	3
#define XRDMA_OBJ_SRQ	4
#define XRDMA_OBJ_MR	5
#define XRDMA_OBJ_AH	6
#define XRDMA_OBJ_MW	7
#define XRDMA_OBJ_DM	8
#define XRDMA_OBJ_XRCD	9

struct xrdma_cmd_destroy {
	__u32 type;			/* in: XRDMA_OBJ_* */
	__u32 handle;			/* in */
	/* out, for CQ/QP/SRQ: events delivered for the object so far */
	__u32 comp_events_reported;
	__u32 async_events_reported;
};

#define XRDMA_CMD_DESTROY_SIZE_VER0	16

/* access flags, as IBV_ACCESS_* */
#define XRDMA_UVERBS_ACCESS_LOCAL_WRITE	0x1U
#define XRDMA_UVERBS_ACCESS_REMOTE_WRITE	0x2U
#define XRDMA_UVERBS_ACCESS_REMOTE_READ	0x4U
#define XRDMA_UVERBS_ACCESS_REMOTE_ATOMIC	0x8U
#define XRDMA_UVERBS_ACCESS_MW_BIND		0x10U	/* MRs only */
/* FLUSH targets (MRs and QPs), with XRDMA_DEVICE_CAP_FLUSH_* */
#define XRDMA_UVERBS_ACCESS_FLUSH_GLOBAL	0x100U
#define XRDMA_UVERBS_ACCESS_FLUSH_PERSISTENT	0x200U

struct xrdma_cmd_reg_mr {
	__u32 pd_handle;		/* in */
	__u32 access;			/* in: XRDMA_UVERBS_ACCESS_* */
	__aligned_u64 addr;		/* in: user virtual address */
	__aligned_u64 length;		/* in */
	__aligned_u64 iova;		/* in: same offset in the page as addr */
	__u32 mr_handle;		/* out */
	__u32 lkey;			/* out */
	__u32 rkey;			/* out */
	__u32 reserved;
	struct xrdma_udata_desc udata;
};

#define XRDMA_CMD_REG_MR_SIZE_VER0	72

/* XRDMA_IOC_REREG_MR: what changes, as IB_MR_REREG_* */
#define XRDMA_UVERBS_REREG_TRANS	0x1U
#define XRDMA_UVERBS_REREG_PD		0x2U
#define XRDMA_UVERBS_REREG_ACCESS	0x4U

/*
 * Re-registers the MR in place: its handle stays, its keys change (same
 * index, new tag) on every success.  The fields of what does not change
 * are ignored (addr, length, iova without REREG_TRANS; pd_handle without
 * REREG_PD; access without REREG_ACCESS).  See Documentation/uverbs.rst.
 */
struct xrdma_cmd_rereg_mr {
	__u32 mr_handle;		/* in */
	__u32 flags;			/* in: XRDMA_UVERBS_REREG_* */
	__aligned_u64 addr;		/* in, REREG_TRANS */
	__aligned_u64 length;		/* in, REREG_TRANS */
	__aligned_u64 iova;		/* in, REREG_TRANS */
	__u32 pd_handle;		/* in, REREG_PD */
	__u32 access;			/* in, REREG_ACCESS */
	__u32 lkey;			/* out */
	__u32 rkey;			/* out */
	__aligned_u64 reserved;		/* in: 0 */
};

#define XRDMA_CMD_REREG_MR_SIZE_VER0	56

/*
 * XRDMA_IOC_REG_DMABUF_MR: an MR over [offset, offset + length) of the
 * dmabuf fd (the MR keeps the dmabuf attached; closing fd does not end
 * it).  iova has offset's offset in the page.
 */
struct xrdma_cmd_reg_dmabuf_mr {
	__u32 pd_handle;		/* in */
	__u32 access;			/* in: XRDMA_UVERBS_ACCESS_* */
	__aligned_u64 offset;		/* in: in the dmabuf */
	__aligned_u64 length;		/* in */
	__aligned_u64 iova;		/* in */
	__s32 fd;			/* in: the dmabuf */
	__u32 mr_handle;		/* out */
	__u32 lkey;			/* out */
	__u32 rkey;			/* out */
	__aligned_u64 reserved;		/* in: 0 */
	struct xrdma_udata_desc udata;
};

#define XRDMA_CMD_REG_DMABUF_MR_SIZE_VER0	80
/*
 * XRDMA_IOC_ALLOC_MW: a memory window of a PD, unbound.  Its rkey's index
 * stays; binds change its tag.  Windows are destroyed with XRDMA_OBJ_MW.
 */
#define XRDMA_UVERBS_MW_TYPE_1	1
#define XRDMA_UVERBS_MW_TYPE_2	2	/* type 2B */

struct xrdma_cmd_alloc_mw {
	__u32 pd_handle;		/* in */
	__u32 type;			/* in: XRDMA_UVERBS_MW_TYPE_* */
	__u32 mw_handle;		/* out */
	__u32 rkey;			/* out */
	__u32 reserved[2];		/* in: 0 */
	struct xrdma_udata_desc udata;
};

#define XRDMA_CMD_ALLOC_MW_SIZE_VER0	48

struct xrdma_cmd_create_cq {
	__aligned_u64 user_cookie;	/* in: returned in events */
	__u32 cqe;			/* in; out: actual */
	__u32 comp_vector;		/* in */
	__s32 channel_fd;		/* in: completion channel, or -1 */
	__u32 flags;			/* in: 0 */
	__u32 cq_handle;		/* out */
	__u32 reserved;
	struct xrdma_udata_desc udata;
};

#define XRDMA_CMD_CREATE_CQ_SIZE_VER0	56

/*
 * XRDMA_IOC_RESIZE_CQ: the CQ holds at least cqe entries afterwards
 * (1..max_cqe; -EINVAL below the completions it holds now).
 */
struct xrdma_cmd_resize_cq {
	__u32 cq_handle;		/* in */
	__u32 cqe;			/* in; out: actual */
	__u32 flags;			/* in: 0 */
	__u32 reserved;
	struct xrdma_udata_desc udata;
};

#define XRDMA_CMD_RESIZE_CQ_SIZE_VER0	40

/* QP types, as IBV_QPT_* */
#define XRDMA_UVERBS_QPT_RC	2
#define XRDMA_UVERBS_QPT_UC	3
#define XRDMA_UVERBS_QPT_UD	4
#define XRDMA_UVERBS_QPT_XRC_SEND	9	/* XRC initiator: SQ only */
#define XRDMA_UVERBS_QPT_XRC_RECV	10	/* XRC target: no queues */

#define XRDMA_UVERBS_CREATE_QP_SRQ		0x1U	/* srq_handle valid */
#define XRDMA_UVERBS_CREATE_QP_SQ_SIG_ALL	0x2U

struct xrdma_uverbs_qp_cap {
	__u32 max_send_wr;
	__u32 max_recv_wr;
	__u32 max_send_sge;
	__u32 max_recv_sge;
	__u32 max_inline_data;
	__u32 reserved;
};

struct xrdma_cmd_create_qp {
	__aligned_u64 user_cookie;	/* in */
	__u32 pd_handle;		/* in */
	__u32 send_cq_handle;		/* in */
	__u32 recv_cq_handle;		/* in */
	__u32 srq_handle;		/* in, with XRDMA_UVERBS_CREATE_QP_SRQ */
	__u32 qp_type;			/* in: XRDMA_UVERBS_QPT_* */
	__u32 flags;			/* in: XRDMA_UVERBS_CREATE_QP_* */
	struct xrdma_uverbs_qp_cap cap;	/* in; out: actual */
	__u32 qp_handle;		/* out */
	__u32 qpn;			/* out */
	struct xrdma_udata_desc udata;
	/* VER1 */
	__u32 xrcd_handle;		/* in: XRC_RECV only (pd_handle 0) */
	__u32 reserved2;
};

/*
 * An XRC_SEND QP has a PD and a send CQ, no receive queue, CQ or SRQ
 * (recv_cq_handle, srq_handle and xrcd_handle 0; max_recv_wr and
 * max_recv_sge are ignored and answered 0, as Linux does).  An XRC_RECV
 * QP has an XRCD and nothing else (pd, CQ and SRQ handles 0; cap is
 * ignored and answered all 0): it belongs to the XRCD, and its handle is
 * one of possibly many (OPEN_QP): the QP is destroyed when the last
 * handle is.  Other types: xrcd_handle 0.  reserved2: 0.
 */
#define XRDMA_CMD_CREATE_QP_SIZE_VER0	88
#define XRDMA_CMD_CREATE_QP_SIZE_VER1	96	/* xrcd_handle */

struct xrdma_uverbs_ah_attr {
	__u8 dgid[16];
	__u32 flow_label;
	__u16 dlid;
	__u8 sgid_index;
	__u8 hop_limit;
	__u8 traffic_class;
	__u8 sl;
	__u8 port_num;
	__u8 is_global;
	__u8 dmac[6];
	__u8 reserved[2];
};

/* QP states, as IBV_QPS_* */
#define XRDMA_UVERBS_QPS_RESET		0
#define XRDMA_UVERBS_QPS_INIT		1
#define XRDMA_UVERBS_QPS_RTR		2
#define XRDMA_UVERBS_QPS_RTS		3
#define XRDMA_UVERBS_QPS_SQD		4
#define XRDMA_UVERBS_QPS_SQE		5
#define XRDMA_UVERBS_QPS_ERR		6

/* MODIFY_QP / QUERY_QP attr_mask, as IBV_QP_* */
#define XRDMA_UVERBS_QP_STATE			(1U << 0)
#define XRDMA_UVERBS_QP_CUR_STATE		(1U << 1)
#define XRDMA_UVERBS_QP_EN_SQD_ASYNC_NOTIFY	(1U << 2)
#define XRDMA_UVERBS_QP_ACCESS_FLAGS		(1U << 3)
#define XRDMA_UVERBS_QP_PKEY_INDEX		(1U << 4)
#define XRDMA_UVERBS_QP_PORT			(1U << 5)
#define XRDMA_UVERBS_QP_QKEY			(1U << 6)
#define XRDMA_UVERBS_QP_AV			(1U << 7)
#define XRDMA_UVERBS_QP_PATH_MTU		(1U << 8)
#define XRDMA_UVERBS_QP_TIMEOUT			(1U << 9)
#define XRDMA_UVERBS_QP_RETRY_CNT		(1U << 10)
#define XRDMA_UVERBS_QP_RNR_RETRY		(1U << 11)
#define XRDMA_UVERBS_QP_RQ_PSN			(1U << 12)
#define XRDMA_UVERBS_QP_MAX_QP_RD_ATOMIC	(1U << 13)
#define XRDMA_UVERBS_QP_ALT_PATH		(1U << 14)
#define XRDMA_UVERBS_QP_MIN_RNR_TIMER		(1U << 15)
#define XRDMA_UVERBS_QP_SQ_PSN			(1U << 16)
#define XRDMA_UVERBS_QP_MAX_DEST_RD_ATOMIC	(1U << 17)
#define XRDMA_UVERBS_QP_PATH_MIG_STATE		(1U << 18)
#define XRDMA_UVERBS_QP_CAP			(1U << 19)
#define XRDMA_UVERBS_QP_DEST_QPN		(1U << 20)

struct xrdma_uverbs_qp_attr {
	__u32 qp_state;			/* XRDMA_UVERBS_QPS_* */
	__u32 cur_qp_state;
	__u32 path_mtu;			/* XRDMA_UVERBS_MTU_* */
	__u32 qkey;
	__u32 rq_psn;
	__u32 sq_psn;
	__u32 dest_qp_num;
	__u32 qp_access_flags;
	struct xrdma_uverbs_qp_cap cap;
	struct xrdma_uverbs_ah_attr ah_attr;
	__u16 pkey_index;
	__u8 en_sqd_async_notify;
	__u8 sq_draining;
	__u8 max_rd_atomic;
	__u8 max_dest_rd_atomic;
	__u8 min_rnr_timer;
	__u8 port_num;
	__u8 timeout;
	__u8 retry_cnt;
	__u8 rnr_retry;
	__u8 path_mig_state;
	__u8 reserved[4];
};

struct xrdma_cmd_modify_qp {
	__u32 qp_handle;		/* in */
	__u32 attr_mask;		/* in */
	struct xrdma_uverbs_qp_attr attr;	/* in */
	__u32 reserved;
	struct xrdma_udata_desc udata;
};

#define XRDMA_CMD_MODIFY_QP_SIZE_VER0	144

struct xrdma_cmd_query_qp {
	__u32 qp_handle;		/* in */
	__u32 attr_mask;		/* in */
	struct xrdma_uverbs_qp_attr attr;	/* out */
	/* out: creation attributes */
	__u32 qp_type;
	__u32 sq_sig_all;
	struct xrdma_uverbs_qp_cap init_cap;
	__u32 reserved;
};

#define XRDMA_CMD_QUERY_QP_SIZE_VER0	152

struct xrdma_cmd_create_srq {
	__aligned_u64 user_cookie;	/* in */
	__u32 pd_handle;		/* in */
	__u32 max_wr;			/* in; out: actual */
	__u32 max_sge;			/* in; out: actual */
	__u32 srq_limit;		/* in */
	__u32 srq_handle;		/* out */
	__u32 reserved;
	struct xrdma_udata_desc udata;
	/* VER1 */
	__u32 srq_type;			/* in: XRDMA_UVERBS_SRQT_* */
	__u32 xrcd_handle;		/* in: XRC SRQs */
	__u32 cq_handle;		/* in: XRC SRQs, where receives complete */
	__u32 srq_num;			/* out: the SRQ's number (ibv_get_srq_num) */
};

/*
 * SRQ types, as IBV_SRQT_*.  A basic SRQ has xrcd_handle and cq_handle 0;
 * an XRC SRQ (XRDMA_DEVICE_CAP_XRC) is in an XRCD of this context and its
 * receives, through any XRC_RECV QP of the XRCD, complete to the CQ.
 * srq_num (every type) is what XRC senders name.
 */
#define XRDMA_UVERBS_SRQT_BASIC	0
#define XRDMA_UVERBS_SRQT_XRC	1

#define XRDMA_CMD_CREATE_SRQ_SIZE_VER0	56
#define XRDMA_CMD_CREATE_SRQ_SIZE_VER1	72	/* XRC */

#define XRDMA_UVERBS_SRQ_MAX_WR	0x1U
#define XRDMA_UVERBS_SRQ_LIMIT		0x2U

struct xrdma_cmd_modify_srq {
	__u32 srq_handle;		/* in */
	__u32 attr_mask;		/* in: XRDMA_UVERBS_SRQ_* */
	__u32 max_wr;			/* in */
	__u32 srq_limit;		/* in */
	struct xrdma_udata_desc udata;
};

#define XRDMA_CMD_MODIFY_SRQ_SIZE_VER0	40

struct xrdma_cmd_query_srq {
	__u32 srq_handle;		/* in */
	__u32 max_wr;			/* out */
	__u32 max_sge;			/* out */
	__u32 srq_limit;		/* out */
};

#define XRDMA_CMD_QUERY_SRQ_SIZE_VER0	16

struct xrdma_cmd_create_ah {
	__aligned_u64 user_cookie;	/* in */
	__u32 pd_handle;		/* in */
	__u32 ah_handle;		/* out */
	struct xrdma_uverbs_ah_attr attr;	/* in */
	__u32 reserved;
	struct xrdma_udata_desc udata;
};

#define XRDMA_CMD_CREATE_AH_SIZE_VER0	80

/* XRDMA_IOC_CREATE_COMP_CHANNEL, XRDMA_IOC_GET_ASYNC_FD */
struct xrdma_cmd_fd {
	__u32 flags;			/* in: 0 (the fd is O_CLOEXEC) */
	__s32 fd;			/* out */
};

#define XRDMA_CMD_FD_SIZE_VER0	8

/*
 * Reading a completion channel returns whole struct xrdma_comp_event
 * records; reading the async event fd returns struct xrdma_async_event
 * records.  Both fds support poll() and O_NONBLOCK.
 */
struct xrdma_comp_event {
	__aligned_u64 cq_cookie;
	__u32 cq_handle;
	__u32 reserved;
};

/* event types, as IBV_EVENT_* */
#define XRDMA_UVERBS_EVENT_CQ_ERR		0
#define XRDMA_UVERBS_EVENT_QP_FATAL		1
#define XRDMA_UVERBS_EVENT_QP_REQ_ERR		2
#define XRDMA_UVERBS_EVENT_QP_ACCESS_ERR	3
#define XRDMA_UVERBS_EVENT_COMM_EST		4
#define XRDMA_UVERBS_EVENT_SQ_DRAINED		5
#define XRDMA_UVERBS_EVENT_PATH_MIG		6
#define XRDMA_UVERBS_EVENT_PATH_MIG_ERR	7
#define XRDMA_UVERBS_EVENT_DEVICE_FATAL	8
#define XRDMA_UVERBS_EVENT_PORT_ACTIVE		9
#define XRDMA_UVERBS_EVENT_PORT_ERR		10
#define XRDMA_UVERBS_EVENT_LID_CHANGE		11
#define XRDMA_UVERBS_EVENT_PKEY_CHANGE		12
#define XRDMA_UVERBS_EVENT_SM_CHANGE		13
#define XRDMA_UVERBS_EVENT_SRQ_ERR		14
#define XRDMA_UVERBS_EVENT_SRQ_LIMIT_REACHED	15
#define XRDMA_UVERBS_EVENT_QP_LAST_WQE_REACHED	16
#define XRDMA_UVERBS_EVENT_CLIENT_REREGISTER	17
#define XRDMA_UVERBS_EVENT_GID_CHANGE		18
/* not in IB: the queue overflowed and events were dropped before this */
#define XRDMA_UVERBS_EVENT_OVERFLOW		0x100

struct xrdma_async_event {
	__aligned_u64 element;		/* user cookie, or port number */
	__u32 event_type;		/* XRDMA_UVERBS_EVENT_* */
	__u32 handle;			/* object handle, 0 for port/device */
};

struct xrdma_cmd_kick {
	__u32 qp_handle;		/* in: 0 kicks the whole context */
	__u32 flags;			/* in: 0 */
};

#define XRDMA_CMD_KICK_SIZE_VER0	8

/*
 * The device clock its completion timestamps count (struct xnic_cqe's
 * timestamp: microseconds, 32 bits, wrapping); EOPNOTSUPP for a device
 * without one.
 */
struct xrdma_cmd_query_clock {
	__u32 comp_mask;		/* in: 0 */
	__u32 reserved;			/* in: 0 */
	__aligned_u64 clock;		/* out */
};

#define XRDMA_CMD_QUERY_CLOCK_SIZE_VER0	16

/*
 * XRDMA_IOC_IMPORT_CONTEXT: a process other than the opener (one the fd
 * was passed to, or a child) joins the file's context, as
 * ibv_import_device() does; from then on it may issue every command and
 * mmap on the fd.  Same layout as GET_CONTEXT; udata.out receives the
 * driver's context response (what GET_CONTEXT's gave).  Each process has
 * its own async event queue: one more GET_ASYNC_FD is allowed per import.
 */
struct xrdma_cmd_import_context {
	__u32 flags;			/* in: 0 */
	__u32 abi_version;		/* out: XRDMA_ABI_VERSION */
	__u32 num_comp_vectors;		/* out */
	__u32 reserved;
	struct xrdma_udata_desc udata;
};

#define XRDMA_CMD_IMPORT_CONTEXT_SIZE_VER0	40

/*
 * XRDMA_IOC_QUERY_OBJECT: what a process needs to import an object of the
 * context by handle (ibv_import_pd, ibv_import_mr).  PD: nothing beyond
 * its existence; MR: its keys, iova, length, access and its PD's handle.
 */
struct xrdma_cmd_query_object {
	__u32 type;			/* in: XRDMA_OBJ_PD or XRDMA_OBJ_MR */
	__u32 handle;			/* in */
	__u32 flags;			/* in: 0 */
	__u32 pd_handle;		/* out, MR: its PD */
	__aligned_u64 iova;		/* out, MR */
	__aligned_u64 length;		/* out, MR */
	__u32 lkey;			/* out, MR */
	__u32 rkey;			/* out, MR */
	__u32 access;			/* out, MR: XRDMA_UVERBS_ACCESS_* */
	__u32 reserved;
};

#define XRDMA_CMD_QUERY_OBJECT_SIZE_VER0	48

/*
 * XRDMA_IOC_ATTACH_MCAST, XRDMA_IOC_DETACH_MCAST: a UD QP joins or leaves
 * a multicast group (gid: ff00::/8 or IPv4-mapped 224.0.0.0/4; lid is
 * ignored on RoCE).  Attaching again is 0; detaching a group the QP is
 * not attached to is EINVAL; destroying a QP detaches it.
 */
struct xrdma_cmd_mcast {
	__u8 gid[16];			/* in */
	__u32 qp_handle;		/* in */
	__u16 lid;			/* in */
	__u16 reserved;			/* in: 0 */
};

#define XRDMA_CMD_MCAST_SIZE_VER0	24

/*
 * Device memory: ALLOC_DM hands out @length bytes (1..max_dm_size) of the
 * device's memory, zeroed, aligned to 2^log_align_req bytes in it; the
 * process maps mmap_length bytes at mmap_offset of the command fd (the
 * DM's bytes from its start).  Destroyed by DESTROY with XRDMA_OBJ_DM:
 * -EBUSY while an MR is registered on it.
 */
struct xrdma_cmd_alloc_dm {
	__aligned_u64 length;		/* in */
	__u32 log_align_req;		/* in */
	__u32 comp_mask;		/* in: 0 */
	__u32 dm_handle;		/* out */
	__u32 reserved;			/* in: 0 */
	__aligned_u64 mmap_offset;	/* out */
	__aligned_u64 mmap_length;	/* out */
};

#define XRDMA_CMD_ALLOC_DM_SIZE_VER0	40

/*
 * REG_DM_MR: [offset, offset + length) of a DM as a zero-based MR (its
 * addresses are 0..length - 1); destroyed as any MR.
 */
struct xrdma_cmd_reg_dm_mr {
	__u32 pd_handle;		/* in */
	__u32 dm_handle;		/* in */
	__aligned_u64 offset;		/* in */
	__aligned_u64 length;		/* in */
	__u32 access;			/* in: XRDMA_UVERBS_ACCESS_* */
	__u32 mr_handle;		/* out */
	__u32 lkey;			/* out */
	__u32 rkey;			/* out */
};

#define XRDMA_CMD_REG_DM_MR_SIZE_VER0	40

/*
 * XRDMA_IOC_OPEN_XRCD: an XRC domain.  fd -1: a new domain of this
 * handle only (O_CREAT and O_EXCL are not looked at, as in Linux).
 * Otherwise the domain of the file @fd refers to (its inode), on this
 * device, shared by every context that opens it: with O_CREAT a new one
 * is made when there is none, with O_EXCL too an existing one is -EEXIST,
 * and without O_CREAT a missing one is -ENOENT (Linux: -EINVAL and
 * -EAGAIN); a bad @fd is -EBADF.  oflags takes O_CREAT and O_EXCL of
 * <fcntl.h> (as rdma-core passes them); other bits are -EINVAL.
 * -EOPNOTSUPP without XRDMA_DEVICE_CAP_XRC.  DESTROY with XRDMA_OBJ_XRCD
 * drops this context's handle: -EBUSY while this context's SRQs or QPs
 * use the handle; the domain goes when the last handle does.
 */
struct xrdma_cmd_open_xrcd {
	__s32 fd;			/* in: -1, or a file's descriptor */
	__u32 oflags;			/* in: O_CREAT, O_EXCL */
	__u32 xrcd_handle;		/* out */
	__u32 reserved;
};

#define XRDMA_CMD_OPEN_XRCD_SIZE_VER0	16

/*
 * XRDMA_IOC_OPEN_QP: a new handle, in this context, to the XRC_RECV QP
 * @qpn of an XRCD this context has open (-EINVAL for another QP type,
 * -ENOENT for a QP that is not in the domain).  The handle is a QP
 * handle: MODIFY_QP, QUERY_QP, DESTROY (XRDMA_OBJ_QP); the QP's async
 * events reach every context holding a handle, each with its cookie.
 */
struct xrdma_cmd_open_qp {
	__aligned_u64 user_cookie;	/* in */
	__u32 xrcd_handle;		/* in */
	__u32 qpn;			/* in */
	__u32 qp_type;			/* in: XRDMA_UVERBS_QPT_XRC_RECV */
	__u32 qp_handle;		/* out */
};

#define XRDMA_CMD_OPEN_QP_SIZE_VER0	24

#define XRDMA_IOC_GET_CONTEXT	_IOWR(XRDMA_IOC_MAGIC, 0x00, struct xrdma_cmd_get_context)
#define XRDMA_IOC_QUERY_DEVICE	_IOWR(XRDMA_IOC_MAGIC, 0x01, struct xrdma_cmd_query_device)
#define XRDMA_IOC_QUERY_PORT	_IOWR(XRDMA_IOC_MAGIC, 0x02, struct xrdma_cmd_query_port)
#define XRDMA_IOC_QUERY_GID	_IOWR(XRDMA_IOC_MAGIC, 0x03, struct xrdma_cmd_query_gid)
#define XRDMA_IOC_ALLOC_PD	_IOWR(XRDMA_IOC_MAGIC, 0x04, struct xrdma_cmd_alloc_pd)
#define XRDMA_IOC_DESTROY	_IOWR(XRDMA_IOC_MAGIC, 0x05, struct xrdma_cmd_destroy)
#define XRDMA_IOC_REG_MR	_IOWR(XRDMA_IOC_MAGIC, 0x06, struct xrdma_cmd_reg_mr)
#define XRDMA_IOC_CREATE_CQ	_IOWR(XRDMA_IOC_MAGIC, 0x07, struct xrdma_cmd_create_cq)
/* 0x08 is reserved: it was an early RESIZE_CQ; today's is 0x15 */
#define XRDMA_IOC_CREATE_QP	_IOWR(XRDMA_IOC_MAGIC, 0x09, struct xrdma_cmd_create_qp)
#define XRDMA_IOC_MODIFY_QP	_IOWR(XRDMA_IOC_MAGIC, 0x0a, struct xrdma_cmd_modify_qp)
#define XRDMA_IOC_QUERY_QP	_IOWR(XRDMA_IOC_MAGIC, 0x0b, struct xrdma_cmd_query_qp)
#define XRDMA_IOC_CREATE_SRQ	_IOWR(XRDMA_IOC_MAGIC, 0x0c, struct xrdma_cmd_create_srq)
#define XRDMA_IOC_MODIFY_SRQ	_IOWR(XRDMA_IOC_MAGIC, 0x0d, struct xrdma_cmd_modify_srq)
#define XRDMA_IOC_QUERY_SRQ	_IOWR(XRDMA_IOC_MAGIC, 0x0e, struct xrdma_cmd_query_srq)
#define XRDMA_IOC_CREATE_AH	_IOWR(XRDMA_IOC_MAGIC, 0x0f, struct xrdma_cmd_create_ah)
#define XRDMA_IOC_CREATE_COMP_CHANNEL _IOWR(XRDMA_IOC_MAGIC, 0x10, struct xrdma_cmd_fd)
#define XRDMA_IOC_GET_ASYNC_FD	_IOWR(XRDMA_IOC_MAGIC, 0x11, struct xrdma_cmd_fd)
#define XRDMA_IOC_KICK		_IOWR(XRDMA_IOC_MAGIC, 0x12, struct xrdma_cmd_kick)
#define XRDMA_IOC_QUERY_CLOCK	_IOWR(XRDMA_IOC_MAGIC, 0x13, struct xrdma_cmd_query_clock)
#define XRDMA_IOC_ALLOC_MW	_IOWR(XRDMA_IOC_MAGIC, 0x14, struct xrdma_cmd_alloc_mw)
#define XRDMA_IOC_RESIZE_CQ	_IOWR(XRDMA_IOC_MAGIC, 0x15, struct xrdma_cmd_resize_cq)
#define XRDMA_IOC_REREG_MR	_IOWR(XRDMA_IOC_MAGIC, 0x16, struct xrdma_cmd_rereg_mr)
#define XRDMA_IOC_REG_DMABUF_MR	_IOWR(XRDMA_IOC_MAGIC, 0x17, struct xrdma_cmd_reg_dmabuf_mr)
#define XRDMA_IOC_ATTACH_MCAST	_IOWR(XRDMA_IOC_MAGIC, 0x18, struct xrdma_cmd_mcast)
#define XRDMA_IOC_DETACH_MCAST	_IOWR(XRDMA_IOC_MAGIC, 0x19, struct xrdma_cmd_mcast)
#define XRDMA_IOC_IMPORT_CONTEXT _IOWR(XRDMA_IOC_MAGIC, 0x1a, struct xrdma_cmd_import_context)
#define XRDMA_IOC_QUERY_OBJECT	_IOWR(XRDMA_IOC_MAGIC, 0x1b, struct xrdma_cmd_query_object)
#define XRDMA_IOC_ALLOC_DM	_IOWR(XRDMA_IOC_MAGIC, 0x1c, struct xrdma_cmd_alloc_dm)
#define XRDMA_IOC_REG_DM_MR	_IOWR(XRDMA_IOC_MAGIC, 0x1d, struct xrdma_cmd_reg_dm_mr)
#define XRDMA_IOC_OPEN_XRCD	_IOWR(XRDMA_IOC_MAGIC, 0x1e, struct xrdma_cmd_open_xrcd)
#define XRDMA_IOC_OPEN_QP	_IOWR(XRDMA_IOC_MAGIC, 0x1f, struct xrdma_cmd_open_qp)

#endif /* _UAPI_XRDMA_ABI_H */
