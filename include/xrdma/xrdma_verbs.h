/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xrdma core: devices, resources and the in-kernel verbs API.
 *
 * Drivers fill a struct xrdma_device_ops and register a struct xrdma_device;
 * kernel consumers (ULPs) attach as a struct xrdma_client and use the
 * xrdma_* verbs below.  See Documentation/core.rst.
 */
#ifndef _XRDMA_VERBS_H
#define _XRDMA_VERBS_H

#include <linux/types.h>
#include <linux/device.h>
#include <linux/kref.h>
#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/rwsem.h>
#include <linux/refcount.h>
#include <linux/xarray.h>
#include <linux/scatterlist.h>
#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/uaccess.h>
#include <linux/list.h>
#include <linux/cgroup_rdma.h>
#include <uapi/xrdma/xrdma-abi.h>

struct xrdma_device;
struct xrdma_pd;
struct xrdma_cq;
struct xrdma_qp;
struct xrdma_srq;
struct xrdma_xrcd;
struct xrdma_mr;
struct xrdma_dm;
struct xrdma_ah;
struct xrdma_umem;
struct xrdma_ucontext;
struct net_device;
struct xrdma_mmap_entry;
struct vm_area_struct;

/**
 * struct xrdma_udata - driver-specific data of a user command
 * @inbuf: user pointer to the driver's declared input structure
 * @outbuf: user pointer to the driver's declared output structure
 * @inlen: bytes at @inbuf
 * @outlen: bytes at @outbuf
 * @uctx: the calling process's context
 *
 * NULL udata means a kernel caller.
 */
struct xrdma_udata {
	const void __user *inbuf;
	void __user *outbuf;
	size_t inlen;
	size_t outlen;
	struct xrdma_ucontext *uctx;
};

/**
 * xrdma_copy_from_udata - read the driver's input structure
 * @dst: kernel structure
 * @len: its size
 * @udata: from the command
 *
 * Older (shorter) userspace structures are zero-extended; newer (longer)
 * ones must have zeroes beyond @len.  Return: 0, -EFAULT or -E2BIG.
 */
static inline int xrdma_copy_from_udata(void *dst, size_t len,
					struct xrdma_udata *udata)
{
	return copy_struct_from_user(dst, len, udata->inbuf, udata->inlen);
}

/**
 * xrdma_copy_to_udata - write the driver's output structure
 * @udata: from the command
 * @src: kernel structure
 * @len: its size; at most udata->outlen bytes are written
 */
static inline int xrdma_copy_to_udata(struct xrdma_udata *udata,
				      const void *src, size_t len)
{
	if (copy_to_user(udata->outbuf, src, min(len, udata->outlen)))
		return -EFAULT;
	return 0;
}

#define XRDMA_NAME_LEN		32
#define XRDMA_FW_VER_LEN	32
#define XRDMA_MAX_PORTS		4
#define XRDMA_GID_TABLE_LEN	16

/* ---------------------------------------------------------------- */
/* Resource tracking                                                */

enum xrdma_res_type {
	XRDMA_RES_PD,
	XRDMA_RES_CQ,
	XRDMA_RES_QP,
	XRDMA_RES_SRQ,
	XRDMA_RES_MR,
	XRDMA_RES_AH,
	XRDMA_RES_MW,
	XRDMA_RES_XRCD,
	XRDMA_RES_MAX,
};

/**
 * struct xrdma_res - header of every tracked object
 * @dev: owning device
 * @type: object type
 * @id: per-device, per-type number (QPN, CQN, MR index, ...)
 * @ref: lookups hold a reference; destroy waits for the last one
 * @done: completed when @ref drops to zero
 * @kern_name: owner when created by a kernel consumer (module name)
 * @pid: owner when created for a process (tgid), else NULL
 * @charge: a process's object: its per-user and rdma cgroup charge
 */
struct xrdma_res {
	struct xrdma_device *dev;
	enum xrdma_res_type type;
	u32 id;
	struct kref ref;
	struct completion done;
	const char *kern_name;
	struct pid *pid;
	struct xrdma_ucharge {
		struct xrdma_uacct *uacct;	/* core private */
		struct rdma_cgroup *cg;
	} charge;
};

/* ---------------------------------------------------------------- */
/* Attributes                                                       */

/*
 * Values userspace sees through uverbs are defined from the uapi ones
 * (<uapi/xrdma/xrdma-abi.h>), as ib_verbs.h does with ib_user_verbs.h:
 * uverbs passes them through without translation.
 */

enum xrdma_atomic_cap {
	XRDMA_ATOMIC_NONE	= XRDMA_UVERBS_ATOMIC_NONE,
	XRDMA_ATOMIC_HCA	= XRDMA_UVERBS_ATOMIC_HCA,
	XRDMA_ATOMIC_GLOB	= XRDMA_UVERBS_ATOMIC_GLOB,
};

enum xrdma_device_cap_flags {
	/* fast-reg, LOCAL_INV */
	XRDMA_DEVICE_MEM_MGT_EXTENSIONS	= XRDMA_DEVICE_CAP_MEM_MGT_EXTENSIONS,
	XRDMA_DEVICE_SRQ_RESIZE		= XRDMA_DEVICE_CAP_SRQ_RESIZE,
	XRDMA_DEVICE_RC_RNR_NAK_GEN	= XRDMA_DEVICE_CAP_RC_RNR_NAK_GEN,
	/* set by uverbs for every device, not by drivers */
	XRDMA_DEVICE_PORT_ACTIVE_EVENT	= XRDMA_DEVICE_CAP_PORT_ACTIVE_EVENT,
	XRDMA_DEVICE_CHANGE_PHY_PORT	= XRDMA_DEVICE_CAP_CHANGE_PHY_PORT,
	/* memory windows: alloc_mw, dealloc_mw and the BIND_MW WQE */
	XRDMA_DEVICE_MEM_WINDOW		= XRDMA_DEVICE_CAP_MEM_WINDOW,
	XRDMA_DEVICE_MEM_WINDOW_TYPE_2B	= XRDMA_DEVICE_CAP_MEM_WINDOW_TYPE_2B,
	/* XRC: alloc_xrcd, XRC SRQs, XRC_INI and XRC_TGT QPs */
	XRDMA_DEVICE_XRC		= XRDMA_DEVICE_CAP_XRC,
	/* IBTA 1.5: the ATOMIC_WRITE and FLUSH work requests */
	XRDMA_DEVICE_ATOMIC_WRITE	= XRDMA_DEVICE_CAP_ATOMIC_WRITE,
	XRDMA_DEVICE_FLUSH_GLOBAL	= XRDMA_DEVICE_CAP_FLUSH_GLOBAL,
	XRDMA_DEVICE_FLUSH_PERSISTENT	= XRDMA_DEVICE_CAP_FLUSH_PERSISTENT,
	/* kernel only (not reported to userspace): supports SQ drain */
	XRDMA_DEVICE_SQD		= 1 << 16,
};

/* the device_cap_flags QUERY_DEVICE reports */
#define XRDMA_DEVICE_CAP_UAPI	(XRDMA_DEVICE_MEM_MGT_EXTENSIONS |	\
				 XRDMA_DEVICE_SRQ_RESIZE |		\
				 XRDMA_DEVICE_RC_RNR_NAK_GEN |		\
				 XRDMA_DEVICE_MEM_WINDOW |		\
				 XRDMA_DEVICE_MEM_WINDOW_TYPE_2B |	\
				 XRDMA_DEVICE_XRC |			\
				 XRDMA_DEVICE_ATOMIC_WRITE |		\
				 XRDMA_DEVICE_FLUSH_GLOBAL |		\
				 XRDMA_DEVICE_FLUSH_PERSISTENT)

struct xrdma_device_attr {
	char fw_ver[XRDMA_FW_VER_LEN];
	__be64 node_guid;
	u64 max_mr_size;
	u64 page_size_cap;
	u32 vendor_id;
	u32 vendor_part_id;
	u32 hw_ver;
	u32 device_cap_flags;
	u32 max_qp;
	u32 max_qp_wr;
	u32 max_sge;
	u32 max_sge_rd;
	u32 max_inline_data;
	u32 max_cq;
	u32 max_cqe;
	u32 max_mr;
	u32 max_mw;		/* memory windows, with XRDMA_DEVICE_MEM_WINDOW */
	u32 max_pd;
	u32 max_qp_rd_atom;
	u32 max_qp_init_rd_atom;
	u32 max_srq;
	u32 max_srq_wr;
	u32 max_srq_sge;
	u32 max_ah;
	u32 max_fast_reg_page_list_len;
	enum xrdma_atomic_cap atomic_cap;
	u32 max_ucontext;	/* user contexts the device can hold; 0: any */
	/* UD multicast (0: none): groups, QPs per group, attachments */
	u32 max_mcast_grp;
	u32 max_mcast_qp_attach;
	u32 max_total_mcast_qp_attach;
	u64 max_dm_size;	/* device memory, bytes; 0: none */
	u32 max_xrcd;		/* XRC domains, with XRDMA_DEVICE_XRC */
};

enum xrdma_port_state {
	XRDMA_PORT_NOP		= XRDMA_UVERBS_PORT_NOP,
	XRDMA_PORT_DOWN		= XRDMA_UVERBS_PORT_DOWN,
	XRDMA_PORT_INIT		= XRDMA_UVERBS_PORT_INIT,
	XRDMA_PORT_ARMED	= XRDMA_UVERBS_PORT_ARMED,
	XRDMA_PORT_ACTIVE	= XRDMA_UVERBS_PORT_ACTIVE,
};

enum xrdma_mtu {
	XRDMA_MTU_256	= XRDMA_UVERBS_MTU_256,
	XRDMA_MTU_512	= XRDMA_UVERBS_MTU_512,
	XRDMA_MTU_1024	= XRDMA_UVERBS_MTU_1024,
	XRDMA_MTU_2048	= XRDMA_UVERBS_MTU_2048,
	XRDMA_MTU_4096	= XRDMA_UVERBS_MTU_4096,
};

static inline int xrdma_mtu_to_int(enum xrdma_mtu mtu)
{
	return mtu >= XRDMA_MTU_256 && mtu <= XRDMA_MTU_4096 ? 128 << mtu : -1;
}

enum xrdma_link_layer {
	XRDMA_LINK_LAYER_UNSPECIFIED	= XRDMA_UVERBS_LINK_LAYER_UNSPECIFIED,
	XRDMA_LINK_LAYER_INFINIBAND	= XRDMA_UVERBS_LINK_LAYER_INFINIBAND,
	XRDMA_LINK_LAYER_ETHERNET	= XRDMA_UVERBS_LINK_LAYER_ETHERNET,
};

union xrdma_gid {
	u8 raw[16];
	struct {
		__be64 subnet_prefix;
		__be64 interface_id;
	} global;
};

/*
 * RoCE GID types (a GID table entry's type): v1 carries the GRH right
 * after the Ethernet header, v2 an IPv4 or IPv6 header and UDP.  A v2 GID
 * that is an IPv4-mapped IPv6 address (::ffff:a.b.c.d) means IPv4.
 */
enum xrdma_gid_type {
	XRDMA_GID_TYPE_ROCE_V1,
	XRDMA_GID_TYPE_ROCE_V2,
};

/* The network header of a received RoCE packet (struct xrdma_wc). */
enum xrdma_network_type {
	XRDMA_NETWORK_ROCE_V1,
	XRDMA_NETWORK_IPV4,
	XRDMA_NETWORK_IPV6,
};

struct xrdma_port_attr {
	enum xrdma_port_state state;
	enum xrdma_mtu max_mtu;
	enum xrdma_mtu active_mtu;
	enum xrdma_link_layer link_layer;
	u32 gid_tbl_len;
	u32 max_msg_sz;
	u16 pkey_tbl_len;
	u16 lid;
	u8 active_speed;
	u8 active_width;
};

/* ---------------------------------------------------------------- */
/* Events                                                           */

enum xrdma_event_type {
	XRDMA_EVENT_CQ_ERR,
	XRDMA_EVENT_QP_FATAL,
	XRDMA_EVENT_QP_REQ_ERR,
	XRDMA_EVENT_QP_ACCESS_ERR,
	XRDMA_EVENT_COMM_EST,
	XRDMA_EVENT_SQ_DRAINED,
	XRDMA_EVENT_QP_LAST_WQE_REACHED,
	XRDMA_EVENT_SRQ_ERR,
	XRDMA_EVENT_SRQ_LIMIT_REACHED,
	XRDMA_EVENT_PORT_ACTIVE,
	XRDMA_EVENT_PORT_ERR,
	XRDMA_EVENT_DEVICE_FATAL,
};

struct xrdma_event {
	struct xrdma_device *device;
	union {
		struct xrdma_cq *cq;
		struct xrdma_qp *qp;
		struct xrdma_srq *srq;
		u32 port_num;
	} element;
	enum xrdma_event_type event;
};

/**
 * struct xrdma_event_handler - device-wide async event subscriber
 * @device: device to listen on
 * @handler: called in process or atomic context; must not sleep
 * @list: core internal
 */
struct xrdma_event_handler {
	struct xrdma_device *device;
	void (*handler)(struct xrdma_event_handler *h, struct xrdma_event *e);
	struct list_head list;
};

/* ---------------------------------------------------------------- */
/* Objects                                                          */

struct xrdma_pd {
	struct xrdma_res res;		/* must be first */
	struct xrdma_device *device;
	atomic_t usecnt;		/* 1 + MRs, QPs, SRQs, AHs on this PD */
	u32 local_dma_lkey;
	u32 flags;
	struct xrdma_mr *internal_mr;
};

typedef void (*xrdma_comp_handler)(struct xrdma_cq *cq, void *cq_context);

struct xrdma_cq_init_attr {
	u32 cqe;
	u32 comp_vector;
	u32 flags;
};

struct xrdma_cq {
	struct xrdma_res res;		/* must be first */
	struct xrdma_device *device;
	xrdma_comp_handler comp_handler;
	void (*event_handler)(struct xrdma_event *e, void *ctx);
	void *cq_context;
	u32 cqe;
	atomic_t usecnt;		/* 1 + QPs using this CQ */
	void *uobject;			/* uverbs */
};

enum xrdma_srq_attr_mask {
	XRDMA_SRQ_MAX_WR	= XRDMA_UVERBS_SRQ_MAX_WR,
	XRDMA_SRQ_LIMIT		= XRDMA_UVERBS_SRQ_LIMIT,
};

struct xrdma_srq_attr {
	u32 max_wr;
	u32 max_sge;
	u32 srq_limit;
};

enum xrdma_srq_type {
	XRDMA_SRQT_BASIC	= XRDMA_UVERBS_SRQT_BASIC,
	XRDMA_SRQT_XRC		= XRDMA_UVERBS_SRQT_XRC,
};

struct xrdma_srq_init_attr {
	void (*event_handler)(struct xrdma_event *e, void *ctx);
	void *srq_context;
	struct xrdma_srq_attr attr;
	enum xrdma_srq_type srq_type;
	/* XRC SRQs: the domain, and the CQ their receives complete to */
	struct xrdma_xrcd *xrcd;
	struct xrdma_cq *cq;
};

/*
 * An XRC SRQ holds a use of its xrcd and cq.  srq_num is set by the
 * driver's create_srq (every SRQ type): XRC_INI senders name it.
 */
struct xrdma_srq {
	struct xrdma_res res;		/* must be first */
	struct xrdma_device *device;
	struct xrdma_pd *pd;
	void (*event_handler)(struct xrdma_event *e, void *ctx);
	void *srq_context;
	atomic_t usecnt;		/* 1 + QPs attached */
	void *uobject;
	enum xrdma_srq_type srq_type;
	struct xrdma_xrcd *xrcd;
	struct xrdma_cq *cq;
	u32 srq_num;
};

/**
 * struct xrdma_xrcd - an XRC domain (drivers/core/xrcd.c)
 * @usecnt: 1 + XRC SRQs and XRC_TGT QPs in it
 * @inode: the file it was opened by (uverbs, shared between contexts;
 *	   NULL for a private or kernel domain)
 * @xrcdn: its number, set by the driver's alloc_xrcd
 * @tgt_qps: XRC_TGT QPs of the domain by QPN (core; OPEN_QP finds them)
 * @tgt_lock: serialises @tgt_qps with the open counts of its QPs
 */
struct xrdma_xrcd {
	struct xrdma_res res;		/* must be first */
	struct xrdma_device *device;
	atomic_t usecnt;
	struct inode *inode;
	u32 xrcdn;
	struct xarray tgt_qps;
	void *uobject;
	struct mutex tgt_lock;		/* see above */
};

enum xrdma_qp_type {
	/* kernel only: the port's general services QP (QPN 1), UD-like */
	XRDMA_QPT_GSI = 1,
	XRDMA_QPT_RC = XRDMA_UVERBS_QPT_RC,
	XRDMA_QPT_UC = XRDMA_UVERBS_QPT_UC,
	XRDMA_QPT_UD = XRDMA_UVERBS_QPT_UD,
	/* XRC initiator: a send queue, each WR names the target's SRQ */
	XRDMA_QPT_XRC_INI = XRDMA_UVERBS_QPT_XRC_SEND,
	/* XRC target: no queues; receives land on XRC SRQs of its xrcd */
	XRDMA_QPT_XRC_TGT = XRDMA_UVERBS_QPT_XRC_RECV,
};

/* The GSI QP's number and Q_Key (IBA 13.4.6, 15.1) */
#define XRDMA_GSI_QPN		1
#define XRDMA_GSI_QKEY		0x80010000U

/*
 * Every port's GSI QP has qp_num XRDMA_GSI_QPN; the core tracks port p's
 * under this number (port 1's is XRDMA_GSI_QPN itself, so a one-port
 * device finds it with xrdma_qp_get_by_num(dev, XRDMA_GSI_QPN)).
 */
static inline u32 xrdma_gsi_res_id(u32 port)
{
	return XRDMA_GSI_QPN | (port - 1) << 24;
}

enum xrdma_qp_state {
	XRDMA_QPS_RESET	= XRDMA_UVERBS_QPS_RESET,
	XRDMA_QPS_INIT	= XRDMA_UVERBS_QPS_INIT,
	XRDMA_QPS_RTR	= XRDMA_UVERBS_QPS_RTR,
	XRDMA_QPS_RTS	= XRDMA_UVERBS_QPS_RTS,
	XRDMA_QPS_SQD	= XRDMA_UVERBS_QPS_SQD,
	XRDMA_QPS_SQE	= XRDMA_UVERBS_QPS_SQE,
	XRDMA_QPS_ERR	= XRDMA_UVERBS_QPS_ERR,
	XRDMA_QPS_NUM,
};

/*
 * A Q_Key with this bit set is controlled: set only with CAP_NET_RAW.  In
 * a UD work request's remote_qkey it means "send with the QP's Q_Key".
 */
#define XRDMA_QKEY_CONTROLLED	0x80000000U

/* The InfiniBand verbs attribute mask, as uverbs passes it. */
enum xrdma_qp_attr_mask {
	XRDMA_QP_STATE			= XRDMA_UVERBS_QP_STATE,
	XRDMA_QP_CUR_STATE		= XRDMA_UVERBS_QP_CUR_STATE,
	XRDMA_QP_EN_SQD_ASYNC_NOTIFY	= XRDMA_UVERBS_QP_EN_SQD_ASYNC_NOTIFY,
	XRDMA_QP_ACCESS_FLAGS		= XRDMA_UVERBS_QP_ACCESS_FLAGS,
	XRDMA_QP_PKEY_INDEX		= XRDMA_UVERBS_QP_PKEY_INDEX,
	XRDMA_QP_PORT			= XRDMA_UVERBS_QP_PORT,
	XRDMA_QP_QKEY			= XRDMA_UVERBS_QP_QKEY,
	XRDMA_QP_AV			= XRDMA_UVERBS_QP_AV,
	XRDMA_QP_PATH_MTU		= XRDMA_UVERBS_QP_PATH_MTU,
	XRDMA_QP_TIMEOUT		= XRDMA_UVERBS_QP_TIMEOUT,
	XRDMA_QP_RETRY_CNT		= XRDMA_UVERBS_QP_RETRY_CNT,
	XRDMA_QP_RNR_RETRY		= XRDMA_UVERBS_QP_RNR_RETRY,
	XRDMA_QP_RQ_PSN			= XRDMA_UVERBS_QP_RQ_PSN,
	XRDMA_QP_MAX_QP_RD_ATOMIC	= XRDMA_UVERBS_QP_MAX_QP_RD_ATOMIC,
	XRDMA_QP_ALT_PATH		= XRDMA_UVERBS_QP_ALT_PATH,
	XRDMA_QP_MIN_RNR_TIMER		= XRDMA_UVERBS_QP_MIN_RNR_TIMER,
	XRDMA_QP_SQ_PSN			= XRDMA_UVERBS_QP_SQ_PSN,
	XRDMA_QP_MAX_DEST_RD_ATOMIC	= XRDMA_UVERBS_QP_MAX_DEST_RD_ATOMIC,
	XRDMA_QP_PATH_MIG_STATE		= XRDMA_UVERBS_QP_PATH_MIG_STATE,
	XRDMA_QP_CAP			= XRDMA_UVERBS_QP_CAP,
	XRDMA_QP_DEST_QPN		= XRDMA_UVERBS_QP_DEST_QPN,
	XRDMA_QP_ATTR_MASK_ALL		= (1 << 21) - 1,
};

enum xrdma_access_flags {
	XRDMA_ACCESS_LOCAL_WRITE	= XRDMA_UVERBS_ACCESS_LOCAL_WRITE,
	XRDMA_ACCESS_REMOTE_WRITE	= XRDMA_UVERBS_ACCESS_REMOTE_WRITE,
	XRDMA_ACCESS_REMOTE_READ	= XRDMA_UVERBS_ACCESS_REMOTE_READ,
	XRDMA_ACCESS_REMOTE_ATOMIC	= XRDMA_UVERBS_ACCESS_REMOTE_ATOMIC,
	XRDMA_ACCESS_MW_BIND		= XRDMA_UVERBS_ACCESS_MW_BIND,
	XRDMA_ACCESS_FLUSH_GLOBAL	= XRDMA_UVERBS_ACCESS_FLUSH_GLOBAL,
	XRDMA_ACCESS_FLUSH_PERSISTENT	= XRDMA_UVERBS_ACCESS_FLUSH_PERSISTENT,
	XRDMA_ACCESS_FLUSH		= XRDMA_ACCESS_FLUSH_GLOBAL |
					  XRDMA_ACCESS_FLUSH_PERSISTENT,
	XRDMA_ACCESS_ALL		= ((1 << 5) - 1) | XRDMA_ACCESS_FLUSH,
};

/**
 * xrdma_check_mr_access - validate MR access flags
 * @access: XRDMA_ACCESS_* flags
 *
 * Remote write and remote atomic need local write (IBA 10.6.3.1).
 * Return: 0 or -EINVAL.
 */
static inline int xrdma_check_mr_access(u32 access)
{
	if (access & ~XRDMA_ACCESS_ALL)
		return -EINVAL;
	if (access & (XRDMA_ACCESS_REMOTE_WRITE | XRDMA_ACCESS_REMOTE_ATOMIC) &&
	    !(access & XRDMA_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	return 0;
}

struct xrdma_ah_attr {
	union xrdma_gid dgid;
	u32 flow_label;
	u8 sgid_index;
	u8 hop_limit;
	u8 traffic_class;
	u8 sl;
	u8 port_num;
	u8 is_global;
	u16 dlid;
	u8 dmac[6];
};

struct xrdma_qp_cap {
	u32 max_send_wr;
	u32 max_recv_wr;
	u32 max_send_sge;
	u32 max_recv_sge;
	u32 max_inline_data;
};

struct xrdma_qp_attr {
	enum xrdma_qp_state qp_state;
	enum xrdma_qp_state cur_qp_state;
	enum xrdma_mtu path_mtu;
	u32 qkey;
	u32 rq_psn;
	u32 sq_psn;
	u32 dest_qp_num;
	u32 qp_access_flags;
	struct xrdma_qp_cap cap;
	struct xrdma_ah_attr ah_attr;
	u16 pkey_index;
	u8 en_sqd_async_notify;
	u8 sq_draining;
	u8 max_rd_atomic;
	u8 max_dest_rd_atomic;
	u8 min_rnr_timer;
	u8 port_num;
	u8 timeout;
	u8 retry_cnt;
	u8 rnr_retry;
	u8 path_mig_state;
};

struct xrdma_qp_init_attr {
	void (*event_handler)(struct xrdma_event *e, void *ctx);
	void *qp_context;
	struct xrdma_cq *send_cq;
	struct xrdma_cq *recv_cq;
	struct xrdma_srq *srq;
	struct xrdma_qp_cap cap;
	enum xrdma_qp_type qp_type;
	u32 sq_sig_all;
	u8 port_num;
	struct xrdma_xrcd *xrcd;	/* XRC_TGT (pd, CQs and srq NULL) */
};

struct xrdma_qp {
	struct xrdma_res res;		/* must be first */
	struct xrdma_device *device;
	struct xrdma_pd *pd;
	struct xrdma_cq *send_cq;
	struct xrdma_cq *recv_cq;
	struct xrdma_srq *srq;
	void (*event_handler)(struct xrdma_event *e, void *ctx);
	void *qp_context;
	enum xrdma_qp_type qp_type;
	u32 qp_num;
	u8 port_num;
	/* core state, serialised by state_lock; drivers read it lock-free */
	struct mutex state_lock;
	enum xrdma_qp_state state;
	/* multicast groups attached (struct xrdma_mcast), under state_lock */
	struct list_head mcast_list;
	void *uobject;
	/* XRC_TGT: its domain (holds a use), and 1 + handles opened on it */
	struct xrdma_xrcd *xrcd;
	atomic_t open_cnt;
	/*
	 * XRC_TGT: the handles opened on it (struct xrdma_qp_open), which
	 * get its async events, as the creator does; under open_lock
	 */
	spinlock_t open_lock;
	struct list_head open_list;
};

/**
 * struct xrdma_qp_open_attr - what xrdma_open_qp() opens
 * @event_handler: gets the QP's async events (any context, must not sleep)
 * @qp_context: passed to @event_handler
 * @qp_num: the QP's number
 * @qp_type: XRDMA_QPT_XRC_TGT (the only type that can be shared)
 */
struct xrdma_qp_open_attr {
	void (*event_handler)(struct xrdma_event *e, void *ctx);
	void *qp_context;
	u32 qp_num;
	enum xrdma_qp_type qp_type;
};

/**
 * struct xrdma_qp_open - a handle on an XRC_TGT QP from xrdma_open_qp()
 * @qp: the QP, valid until xrdma_close_qp(): modify and query it
 * @event_handler: from the open
 * @qp_context: from the open
 * @node: core: in qp->open_list
 * @charge: core: a process's handle counts as a QP of the process
 */
struct xrdma_qp_open {
	struct xrdma_qp *qp;
	void (*event_handler)(struct xrdma_event *e, void *ctx);
	void *qp_context;
	struct list_head node;
	struct xrdma_ucharge charge;
};

enum xrdma_mr_type {
	XRDMA_MR_TYPE_DMA,		/* all of kernel memory, local only */
	XRDMA_MR_TYPE_MEM_REG,		/* fast registration */
	XRDMA_MR_TYPE_USER,		/* pinned user pages */
};

struct xrdma_mr {
	struct xrdma_res res;		/* must be first */
	struct xrdma_device *device;
	struct xrdma_pd *pd;
	enum xrdma_mr_type type;
	u32 lkey;
	u32 rkey;
	u64 iova;
	u64 length;
	u32 access;
	u32 page_size;
	u32 max_num_sg;
	struct xrdma_umem *umem;
	void *uobject;
	struct xrdma_dm *dm;		/* device memory MR: holds a use */
};

/**
 * struct xrdma_dm - device memory (drivers/core/dm.c)
 * @device: its device
 * @length: bytes asked for
 * @usecnt: 1 + MRs on it
 * @mmap_offset: where its owner's process maps it (set by the driver)
 * @mmap_length: bytes to map there, page multiple (set by the driver)
 * @uobject: uverbs
 */
/*
 * What a process's device memory is charged to its uid's share (pages);
 * see xrdma_dm_uncharge().
 */
struct xrdma_dm_charge {
	struct xrdma_ucharge uc;
	unsigned int npages;
};

struct xrdma_dm {
	struct xrdma_device *device;
	u64 length;
	atomic_t usecnt;
	u64 mmap_offset;
	u64 mmap_length;
	void *uobject;
	struct xrdma_dm_charge charge;
};

/* what xrdma_rereg_user_mr() changes, as IB_MR_REREG_* */
enum xrdma_mr_rereg_flags {
	XRDMA_MR_REREG_TRANS	= XRDMA_UVERBS_REREG_TRANS,
	XRDMA_MR_REREG_PD	= XRDMA_UVERBS_REREG_PD,
	XRDMA_MR_REREG_ACCESS	= XRDMA_UVERBS_REREG_ACCESS,
	XRDMA_MR_REREG_ALL	= (1 << 3) - 1,
};

/**
 * struct xrdma_mr_rereg - the state a re-registered user MR moves to
 * @flags: XRDMA_MR_REREG_* that change
 * @key: the new lkey and rkey: same index, a new tag after a new
 *	 translation; the current key for a change of rights or PD alone
 * @pd: the MR's PD after the call (the old one if it does not change)
 * @access: XRDMA_ACCESS_* after the call
 * @iova: address on the wire after the call
 * @length: bytes after the call
 * @umem: new pages, or NULL if the MR keeps its pages; a driver that
 *	  fails and must keep them for its device takes them over (sets it
 *	  to NULL, as dereg_mr does with mr->umem)
 */
struct xrdma_mr_rereg {
	u32 flags;
	u32 key;
	struct xrdma_pd *pd;
	u32 access;
	u64 iova;
	u64 length;
	struct xrdma_umem *umem;
};

/*
 * A memory window.  Its rkey is an index of the key space MRs use (the
 * core gives windows the upper half of the 24-bit index space, MRs the
 * lower half) and a tag; a bind gives it a new tag, and the window's
 * current rkey is known to whoever posted the bind, not to the core.
 */
enum xrdma_mw_type {
	XRDMA_MW_TYPE_1		= XRDMA_UVERBS_MW_TYPE_1,
	XRDMA_MW_TYPE_2		= XRDMA_UVERBS_MW_TYPE_2,
};

#define XRDMA_MW_INDEX_BASE	0x800000U

struct xrdma_mw {
	struct xrdma_res res;		/* must be first */
	struct xrdma_device *device;
	struct xrdma_pd *pd;
	enum xrdma_mw_type type;
	u32 rkey;			/* at allocation */
	void *uobject;
};

struct xrdma_ah {
	struct xrdma_res res;		/* must be first */
	struct xrdma_device *device;
	struct xrdma_pd *pd;
	struct xrdma_ah_attr attr;
	void *uobject;
};

/**
 * struct xrdma_ucontext - a process's context on a device (one per fd)
 * @device: the device
 * @res: unused for tracking; owner of the context
 * @mmap_lock: protects @mmap_entries, @vmas and @disassociated
 * @mmap_xa: mmap offset (page index) -> entry
 * @mmap_entries: every entry not yet released
 * @vmas: every live mapping, for zapping on disassociation
 * @mmap_next: cyclic allocation hint for @mmap_xa
 * @mmap_rwsem: mmap calls hold it for read; disassociation takes it for
 *		write once to stop new mappings (never with an mm lock held)
 * @dying: no new mappings (under @mmap_rwsem)
 * @disassociated: the device is gone; driver state already released
 * @charge: the context's per-user and rdma cgroup (hca_handle) charge
 * @owner_mm: the creator's mm: queue memory is accounted in its pinned_vm
 * @mem_pages: pages of driver memory charged (xrdma_ucontext_charge(),
 *	       xrdma_ucontext_charge_kmem())
 *
 * Drivers embed it at offset 0 of their context (ops->size_ucontext).
 * The core frees the memory only when the file is released, after every
 * mapping of it is gone.
 */
struct xrdma_ucontext {
	struct xrdma_device *device;
	struct mutex mmap_lock;		/* see above */
	struct xarray mmap_xa;
	struct list_head mmap_entries;
	struct list_head vmas;
	u32 mmap_next;
	struct rw_semaphore mmap_rwsem;
	bool dying;
	bool disassociated;
	struct xrdma_ucharge charge;
	struct mm_struct *owner_mm;
	atomic_long_t mem_pages;
};

/**
 * struct xrdma_mmap_entry - memory a driver lets a process map
 * @ref: the offset table holds one, every VMA one
 * @ucontext: owner
 * @pgoff: mmap offset in pages (the offset is pgoff << PAGE_SHIFT)
 * @npages: longest mapping allowed
 * @list: in ucontext->mmap_entries
 * @freed: the driver's mmap_free ran
 * @priv: the driver's
 */
struct xrdma_mmap_entry {
	struct kref ref;
	struct xrdma_ucontext *ucontext;
	unsigned long pgoff;
	size_t npages;
	struct list_head list;
	bool freed;
	void *priv;
};

static inline u64 xrdma_mmap_entry_offset(const struct xrdma_mmap_entry *e)
{
	return (u64)e->pgoff << PAGE_SHIFT;
}

struct xrdma_mmap_entry *xrdma_mmap_entry_insert(struct xrdma_ucontext *uctx,
						 size_t length, void *priv);
void xrdma_mmap_entry_remove(struct xrdma_mmap_entry *entry);
struct xrdma_mmap_entry *xrdma_mmap_entry_get(struct xrdma_ucontext *uctx,
					      struct vm_area_struct *vma);
void xrdma_mmap_entry_put(struct xrdma_mmap_entry *entry);
int xrdma_user_mmap_pfn(struct xrdma_ucontext *uctx,
			struct vm_area_struct *vma, unsigned long pfn,
			pgprot_t prot, struct xrdma_mmap_entry *entry);
int xrdma_ucontext_charge(struct xrdma_ucontext *uctx, unsigned long npages);
void xrdma_ucontext_uncharge(struct xrdma_ucontext *uctx,
			     unsigned long npages);
int xrdma_ucontext_charge_kmem(struct xrdma_ucontext *uctx,
			       unsigned long npages);
void xrdma_ucontext_uncharge_kmem(struct xrdma_ucontext *uctx,
				  unsigned long npages);

/* For uverbs */
struct xrdma_ucontext *xrdma_alloc_ucontext(struct xrdma_device *dev,
					    struct xrdma_udata *udata);
void xrdma_ucontext_disassociate(struct xrdma_ucontext *uctx);
void xrdma_free_ucontext(struct xrdma_ucontext *uctx);
int xrdma_ucontext_mmap(struct xrdma_ucontext *uctx,
			struct vm_area_struct *vma);

/* ---------------------------------------------------------------- */
/* Work requests and completions                                    */

enum xrdma_wr_opcode {
	XRDMA_WR_RDMA_WRITE,
	XRDMA_WR_RDMA_WRITE_WITH_IMM,
	XRDMA_WR_SEND,
	XRDMA_WR_SEND_WITH_IMM,
	XRDMA_WR_RDMA_READ,
	XRDMA_WR_ATOMIC_CMP_AND_SWP,
	XRDMA_WR_ATOMIC_FETCH_AND_ADD,
	XRDMA_WR_LOCAL_INV,
	XRDMA_WR_SEND_WITH_INV,
	XRDMA_WR_REG_MR,
	/*
	 * IBTA 1.5, with XRDMA_DEVICE_ATOMIC_WRITE: wr.rdma, and 8 bytes of
	 * payload in sg_list (or inline)
	 */
	XRDMA_WR_ATOMIC_WRITE,
	/* with XRDMA_DEVICE_FLUSH_*: wr.flush, no sg_list */
	XRDMA_WR_FLUSH,
};

/* FLUSH placement types and selectivity levels (IBTA 1.5 A19) */
enum {
	XRDMA_FLUSH_GLOBAL	= 1 << 0,
	XRDMA_FLUSH_PERSISTENT	= 1 << 1,
};

enum {
	XRDMA_FLUSH_RANGE	= 0,
	XRDMA_FLUSH_MR		= 1,
};

enum xrdma_send_flags {
	XRDMA_SEND_FENCE	= 1 << 0,
	XRDMA_SEND_SIGNALED	= 1 << 1,
	XRDMA_SEND_SOLICITED	= 1 << 2,
	XRDMA_SEND_INLINE	= 1 << 3,
};

struct xrdma_sge {
	u64 addr;
	u32 length;
	u32 lkey;
};

struct xrdma_send_wr {
	struct xrdma_send_wr *next;
	u64 wr_id;
	struct xrdma_sge *sg_list;
	int num_sge;
	enum xrdma_wr_opcode opcode;
	u32 send_flags;
	union {
		__be32 imm_data;
		u32 invalidate_rkey;
	} ex;
	union {
		struct {
			u64 remote_addr;
			u32 rkey;
		} rdma;
		struct {
			u64 remote_addr;
			u64 compare_add;
			u64 swap;
			u32 rkey;
		} atomic;
		struct {
			struct xrdma_ah *ah;
			u32 remote_qpn;
			u32 remote_qkey;
		} ud;
		struct {
			struct xrdma_mr *mr;
			u32 key;
			u32 access;
		} reg;
		struct {
			u64 remote_addr;
			u32 rkey;
			u32 length;	/* XRDMA_FLUSH_RANGE: bytes */
			u8 type;	/* XRDMA_FLUSH_GLOBAL, _PERSISTENT */
			u8 level;	/* XRDMA_FLUSH_RANGE or _MR */
		} flush;
	} wr;
	u32 xrc_remote_srqn;	/* XRC_INI QPs: the target's XRC SRQ */
};

struct xrdma_recv_wr {
	struct xrdma_recv_wr *next;
	u64 wr_id;
	struct xrdma_sge *sg_list;
	int num_sge;
};

enum xrdma_wc_status {
	XRDMA_WC_SUCCESS,
	XRDMA_WC_LOC_LEN_ERR,
	XRDMA_WC_LOC_QP_OP_ERR,
	XRDMA_WC_LOC_EEC_OP_ERR,
	XRDMA_WC_LOC_PROT_ERR,
	XRDMA_WC_WR_FLUSH_ERR,
	XRDMA_WC_MW_BIND_ERR,
	XRDMA_WC_BAD_RESP_ERR,
	XRDMA_WC_LOC_ACCESS_ERR,
	XRDMA_WC_REM_INV_REQ_ERR,
	XRDMA_WC_REM_ACCESS_ERR,
	XRDMA_WC_REM_OP_ERR,
	XRDMA_WC_RETRY_EXC_ERR,
	XRDMA_WC_RNR_RETRY_EXC_ERR,
	XRDMA_WC_LOC_RDD_VIOL_ERR,
	XRDMA_WC_REM_INV_RD_REQ_ERR,
	XRDMA_WC_REM_ABORT_ERR,
	XRDMA_WC_INV_EECN_ERR,
	XRDMA_WC_INV_EEC_STATE_ERR,
	XRDMA_WC_FATAL_ERR,
	XRDMA_WC_RESP_TIMEOUT_ERR,
	XRDMA_WC_GENERAL_ERR,
};

enum xrdma_wc_opcode {
	XRDMA_WC_SEND,
	XRDMA_WC_RDMA_WRITE,
	XRDMA_WC_RDMA_READ,
	XRDMA_WC_COMP_SWAP,
	XRDMA_WC_FETCH_ADD,
	XRDMA_WC_LOCAL_INV = 6,
	XRDMA_WC_REG_MR,
	XRDMA_WC_FLUSH,
	XRDMA_WC_ATOMIC_WRITE,
	XRDMA_WC_RECV = 1 << 7,
	XRDMA_WC_RECV_RDMA_WITH_IMM,
};

enum xrdma_wc_flags {
	XRDMA_WC_GRH		= 1 << 0,
	XRDMA_WC_WITH_IMM	= 1 << 1,
	XRDMA_WC_WITH_INVALIDATE = 1 << 2,
	/* network_hdr_type is valid (UD and GSI receives on RoCE) */
	XRDMA_WC_WITH_NETWORK_HDR_TYPE = 1 << 3,
};

struct xrdma_wc {
	u64 wr_id;
	enum xrdma_wc_status status;
	enum xrdma_wc_opcode opcode;
	u32 vendor_err;
	u32 byte_len;
	struct xrdma_qp *qp;
	union {
		__be32 imm_data;
		u32 invalidate_rkey;
	} ex;
	u32 src_qp;
	u32 wc_flags;
	u16 pkey_index;
	u8 port_num;
	u8 network_hdr_type;	/* enum xrdma_network_type */
};

enum xrdma_cq_notify_flags {
	XRDMA_CQ_SOLICITED		= 1 << 0,
	XRDMA_CQ_NEXT_COMP		= 1 << 1,
	XRDMA_CQ_SOLICITED_MASK		= XRDMA_CQ_SOLICITED | XRDMA_CQ_NEXT_COMP,
	XRDMA_CQ_REPORT_MISSED_EVENTS	= 1 << 2,
};

/* ---------------------------------------------------------------- */
/* Driver interface                                                 */

struct xrdma_hw_counters_sysfs;

/**
 * struct xrdma_device_ops - what a driver implements
 *
 * Object sizes: the core allocates each object with the driver's size, the
 * core struct being the first member (see XRDMA_OBJ_SIZE), zeroes it and
 * fills the core fields before calling create.  On create failure the core
 * frees it; destroy undoes create and must not free the memory.
 *
 * Destroy callbacks may not fail: the core checks every dependency first.
 * Data-path callbacks (post_*, poll_cq, req_notify_cq) are called straight
 * from the verbs without any core lock.
 */
/*
 * A hardware counter that answers a guess (was this Q_Key, QPN or PSN
 * right?) one drop at a time: readable by root only.
 */
#define XRDMA_HW_COUNTER_PRIVATE	BIT(0)

struct xrdma_device_ops {
	struct module *owner;
	const char *driver_name;

	size_t size_pd, size_cq, size_qp, size_srq, size_mr, size_ah;
	size_t size_mw;
	size_t size_ucontext;

	/*
	 * User contexts (optional: without them the device is kernel-only).
	 * dealloc_ucontext releases the driver's state and its mmap entries;
	 * mmap maps an entry found with xrdma_mmap_entry_get() through
	 * xrdma_user_mmap_pfn(); mmap_free frees an entry's memory once the
	 * entry is removed and unmapped (or the device goes away).
	 */
	int (*alloc_ucontext)(struct xrdma_ucontext *uctx,
			      struct xrdma_udata *udata);
	void (*dealloc_ucontext)(struct xrdma_ucontext *uctx);
	/*
	 * write alloc_ucontext's response again, for a process importing
	 * the context (optional: without it imports are EOPNOTSUPP)
	 */
	int (*query_ucontext)(struct xrdma_ucontext *uctx,
			      struct xrdma_udata *udata);
	int (*mmap)(struct xrdma_ucontext *uctx, struct vm_area_struct *vma);
	void (*mmap_free)(struct xrdma_mmap_entry *entry);
	/* wake the engine for a context (qp NULL) or one QP (optional) */
	int (*kick)(struct xrdma_ucontext *uctx, struct xrdma_qp *qp);
	/*
	 * the device clock its completion timestamps count, in the same
	 * units and width (optional; user ibv_query_rt_values_ex)
	 */
	int (*read_clock)(struct xrdma_device *dev, u64 *clock);
	/*
	 * hardware counters (optional): num_hw_counters names in
	 * hw_counter_names (static; sysfs file names), device-wide.
	 * get_hw_counters fills values[0..num) in that order (@num is at
	 * most num_hw_counters); may sleep.  Shown in sysfs as
	 * hw_counters/<name> of the xrdma device.  hw_counter_flags
	 * (optional, num_hw_counters entries): XRDMA_HW_COUNTER_PRIVATE
	 * makes a counter root-only (0400) and keeps it out of ib_core's
	 * world-readable hw_counters and rdma statistic.
	 */
	const char * const *hw_counter_names;
	const u8 *hw_counter_flags;
	u32 num_hw_counters;
	int (*get_hw_counters)(struct xrdma_device *dev, u64 *values, u32 num);

	int (*query_port)(struct xrdma_device *dev, u32 port,
			  struct xrdma_port_attr *attr);
	int (*query_gid)(struct xrdma_device *dev, u32 port, int index,
			 union xrdma_gid *gid);
	/*
	 * RoCE (optional): program GID table entry @index of @port (@gid
	 * NULL clears it; the core checked @port and @index); may sleep.
	 * get_netdev returns the port's Ethernet netdev, which lives at
	 * least as long as the device is registered (no reference taken).
	 */
	int (*set_gid)(struct xrdma_device *dev, u32 port, u32 index,
		       const union xrdma_gid *gid, enum xrdma_gid_type type);
	struct net_device *(*get_netdev)(struct xrdma_device *dev, u32 port);

	int (*alloc_pd)(struct xrdma_pd *pd, struct xrdma_udata *udata);
	void (*dealloc_pd)(struct xrdma_pd *pd);

	int (*create_cq)(struct xrdma_cq *cq,
			 const struct xrdma_cq_init_attr *attr,
			 struct xrdma_udata *udata);
	void (*destroy_cq)(struct xrdma_cq *cq);
	int (*poll_cq)(struct xrdma_cq *cq, int num_entries,
		       struct xrdma_wc *wc);
	int (*req_notify_cq)(struct xrdma_cq *cq, u32 flags);
	/*
	 * optional: move the CQ to a ring of at least @cqe entries (the core
	 * checked 1..max_cqe) with no completion lost, duplicated or
	 * reordered; sets cq->cqe.  -EINVAL when the new size cannot hold
	 * the completions the CQ holds.  May sleep.
	 */
	int (*resize_cq)(struct xrdma_cq *cq, u32 cqe,
			 struct xrdma_udata *udata);

	int (*create_qp)(struct xrdma_qp *qp,
			 struct xrdma_qp_init_attr *attr,
			 struct xrdma_udata *udata);
	int (*modify_qp)(struct xrdma_qp *qp, struct xrdma_qp_attr *attr,
			 int mask, struct xrdma_udata *udata);
	int (*query_qp)(struct xrdma_qp *qp, struct xrdma_qp_attr *attr,
			int mask, struct xrdma_qp_init_attr *init_attr);
	void (*destroy_qp)(struct xrdma_qp *qp);
	int (*post_send)(struct xrdma_qp *qp, const struct xrdma_send_wr *wr,
			 const struct xrdma_send_wr **bad_wr);
	int (*post_recv)(struct xrdma_qp *qp, const struct xrdma_recv_wr *wr,
			 const struct xrdma_recv_wr **bad_wr);

	int (*create_srq)(struct xrdma_srq *srq,
			  struct xrdma_srq_init_attr *attr,
			  struct xrdma_udata *udata);
	int (*modify_srq)(struct xrdma_srq *srq, struct xrdma_srq_attr *attr,
			  u32 mask, struct xrdma_udata *udata);
	int (*query_srq)(struct xrdma_srq *srq, struct xrdma_srq_attr *attr);
	void (*destroy_srq)(struct xrdma_srq *srq);
	int (*post_srq_recv)(struct xrdma_srq *srq,
			     const struct xrdma_recv_wr *wr,
			     const struct xrdma_recv_wr **bad_wr);

	/* mr->type, pd, access, iova, length, keys are set by the core */
	int (*get_dma_mr)(struct xrdma_mr *mr);
	int (*alloc_mr)(struct xrdma_mr *mr, u32 max_num_sg);
	int (*map_mr_sg)(struct xrdma_mr *mr, struct scatterlist *sg,
			 int sg_nents, unsigned int *sg_offset);
	int (*reg_user_mr)(struct xrdma_mr *mr, struct xrdma_udata *udata);
	/*
	 * dereg_mr returns 0 once the device let go of the MR: the core then
	 * unpins mr->umem.  If the device may still reach the MR's memory (its
	 * command failed or timed out), the driver takes over mr->umem (sets
	 * it to NULL, releases it with xrdma_umem_release() after the device
	 * is reset) and returns -EBUSY; the MR is freed either way.  A
	 * reg_user_mr that fails may take over mr->umem the same way.
	 */
	int (*dereg_mr)(struct xrdma_mr *mr);
	/*
	 * rereg_user_mr (optional) moves a user MR to what @rr says; see
	 * struct xrdma_mr_rereg.  rr->key may be the MR's current key (a
	 * change of rights or PD alone): no operation that found the MR
	 * before may run under the old rights or PD once this returns 0
	 * (order the change with the device as a deregistration).
	 * 0: the device has the MR under rr->key;
	 * the core then updates @mr and releases the umem @rr replaced.  An
	 * error leaves @mr's fields alone; the MR may then reach no memory
	 * (the old registration is gone), and a later rereg or dereg works.
	 */
	int (*rereg_user_mr)(struct xrdma_mr *mr, struct xrdma_mr_rereg *rr);
	/*
	 * reg_user_mr_dmabuf (optional): as reg_user_mr for mr->umem of a
	 * dmabuf (xrdma_umem_dmabuf_get(): DMA-mapped by the core already)
	 */
	int (*reg_user_mr_dmabuf)(struct xrdma_mr *mr,
				  struct xrdma_udata *udata);
	/*
	 * Memory windows (optional, with XRDMA_DEVICE_MEM_WINDOW).  mw->rkey
	 * is set by the core.  dereg_mr returns -EAGAIN, changing nothing,
	 * when the device refuses because windows are bound to the MR.
	 */
	int (*alloc_mw)(struct xrdma_mw *mw, struct xrdma_udata *udata);
	int (*dealloc_mw)(struct xrdma_mw *mw);

	/*
	 * XRC (optional, with XRDMA_DEVICE_XRC): alloc_xrcd sets
	 * xrcd->xrcdn (the core allocates struct xrdma_xrcd itself).
	 * create_srq sees srq_type XRDMA_SRQT_XRC with xrcd and cq set;
	 * create_qp sees XRDMA_QPT_XRC_INI (pd and send_cq, no receive side)
	 * and XRDMA_QPT_XRC_TGT (xrcd only, no pd, CQs, SRQ or queues).
	 */
	int (*alloc_xrcd)(struct xrdma_xrcd *xrcd);
	void (*dealloc_xrcd)(struct xrdma_xrcd *xrcd);

	/* never sleep: kernel callers create and destroy AHs atomically */
	int (*create_ah)(struct xrdma_ah *ah, struct xrdma_udata *udata);
	void (*destroy_ah)(struct xrdma_ah *ah);

	/*
	 * UD multicast (optional): the core checked the QP type and the GID
	 * and calls attach once per QP and group, detach only for a group
	 * attached (also when the QP is destroyed, before destroy_qp).
	 */
	int (*attach_mcast)(struct xrdma_qp *qp, const union xrdma_gid *gid);
	int (*detach_mcast)(struct xrdma_qp *qp, const union xrdma_gid *gid);
	/*
	 * Device memory (attr.max_dm_size bytes in all): alloc_dm gets
	 * dm->length (1..max_dm_size) and an alignment (log2 bytes), hands
	 * out zeroed memory and, for a process (@udata), sets dm->mmap_*;
	 * free_dm releases it (once no mapping is left); reg_dm_mr registers
	 * [offset, offset + mr->length) of @dm, known as [0, mr->length).
	 */
	size_t size_dm;
	int (*alloc_dm)(struct xrdma_dm *dm, u32 log_align,
			struct xrdma_udata *udata);
	void (*free_dm)(struct xrdma_dm *dm);
	int (*reg_dm_mr)(struct xrdma_mr *mr, struct xrdma_dm *dm, u64 offset);
};

#define XRDMA_OBJ_SIZE(drv_struct, member)				\
	(sizeof(drv_struct) +						\
	 BUILD_BUG_ON_ZERO(offsetof(drv_struct, member)))

enum xrdma_device_state {
	XRDMA_DEV_ALLOCATED,
	XRDMA_DEV_REGISTERED,
	XRDMA_DEV_UNREGISTERING,
	XRDMA_DEV_UNREGISTERED,
};

struct xrdma_device {
	struct device dev;		/* lifetime of the memory */
	struct xrdma_hw_counters_sysfs *hw_ctr;	/* core: sysfs hw_counters */
	char name[XRDMA_NAME_LEN];
	const struct xrdma_device_ops *ops;
	struct xrdma_device_attr attr;
	u32 num_ports;
	u32 index;
	/* the device that does DMA, for dmabuf attachments (NULL: no dmabuf MRs) */
	struct device *dma_device;
	/* port p's link layer at [p - 1], read from the driver at registration */
	enum xrdma_link_layer port_link_layer[XRDMA_MAX_PORTS];

	/* registration: users hold a reference while they use the device */
	enum xrdma_device_state state;
	refcount_t users;
	struct completion users_done;
	/* DEVICE_FATAL was dispatched: the device executes nothing any more */
	bool fatal;

	struct xarray client_data;

	spinlock_t event_lock;		/* protects event_handlers */
	struct list_head event_handlers;

	/* resource tracking, one table per type */
	struct xarray res[XRDMA_RES_MAX];
	u32 res_next[XRDMA_RES_MAX];
	struct dentry *debugfs;

	/* per-user shares (core private): uid -> struct xrdma_uacct */
	struct mutex uacct_lock;
	struct xarray uaccts;
#ifdef CONFIG_CGROUP_RDMA
	struct rdmacg_device cg_device;
#endif
};

/**
 * struct xrdma_client - a consumer that wants to know about devices
 * @name: for debugging
 * @add: called for every registered device (also those present at
 *	 registration time); may return an error to ignore the device
 * @remove: called before a device goes away or when the client unregisters;
 *	    must release every object it created on that device
 */
struct xrdma_client {
	const char *name;
	int (*add)(struct xrdma_device *dev);
	void (*remove)(struct xrdma_device *dev, void *client_data);
	/* core internal */
	u32 client_id;
	struct list_head list;
};

/*
 * Allocation of the driver structure that embeds struct xrdma_device at
 * offset 0 (checked at build time); returns a pointer to the driver
 * structure, or NULL.
 */
void *_xrdma_alloc_device(size_t size, const struct xrdma_device_ops *ops);
#define xrdma_alloc_device(drv_struct, member, ops)			\
	_xrdma_alloc_device(XRDMA_OBJ_SIZE(drv_struct, member), ops)
void xrdma_dealloc_device(struct xrdma_device *dev);
int xrdma_register_device(struct xrdma_device *dev, const char *name_fmt,
			  struct device *parent);
void xrdma_unregister_device(struct xrdma_device *dev);

bool xrdma_device_try_get(struct xrdma_device *dev);
bool xrdma_device_gone(struct xrdma_device *dev);
void xrdma_device_put(struct xrdma_device *dev);
struct xrdma_device *xrdma_device_get_by_name(const char *name);

int xrdma_register_client(struct xrdma_client *client);
void xrdma_unregister_client(struct xrdma_client *client);
void xrdma_set_client_data(struct xrdma_device *dev,
			   struct xrdma_client *client, void *data);
void *xrdma_get_client_data(struct xrdma_device *dev,
			    struct xrdma_client *client);

void xrdma_register_event_handler(struct xrdma_event_handler *h);
void xrdma_unregister_event_handler(struct xrdma_event_handler *h);
void xrdma_dispatch_event(struct xrdma_event *e);

/* Driver helpers: lookups used on receive paths (take a reference). */
struct xrdma_qp *xrdma_qp_get_by_num(struct xrdma_device *dev, u32 qpn);
void xrdma_qp_put(struct xrdma_qp *qp);
struct xrdma_cq *xrdma_cq_get_by_num(struct xrdma_device *dev, u32 cqn);
void xrdma_cq_put(struct xrdma_cq *cq);
struct xrdma_mr *xrdma_mr_get_by_key(struct xrdma_device *dev, u32 key);
void xrdma_mr_put(struct xrdma_mr *mr);
void xrdma_qp_set_error(struct xrdma_qp *qp);

/* ---------------------------------------------------------------- */
/* Verbs for consumers                                              */

int xrdma_query_device(struct xrdma_device *dev,
		       struct xrdma_device_attr *attr);
int xrdma_query_hw_counters(struct xrdma_device *dev, u64 *values, u32 num);

/* counter @i of @dev is XRDMA_HW_COUNTER_PRIVATE */
static inline bool xrdma_hw_counter_private(const struct xrdma_device *dev,
					    u32 i)
{
	const u8 *f = dev->ops->hw_counter_flags;

	return f && i < dev->ops->num_hw_counters &&
	       (f[i] & XRDMA_HW_COUNTER_PRIVATE);
}

int xrdma_query_port(struct xrdma_device *dev, u32 port,
		     struct xrdma_port_attr *attr);
int xrdma_query_gid(struct xrdma_device *dev, u32 port, int index,
		    union xrdma_gid *gid);
int xrdma_set_gid(struct xrdma_device *dev, u32 port, u32 index,
		  const union xrdma_gid *gid, enum xrdma_gid_type type);
struct net_device *xrdma_get_netdev(struct xrdma_device *dev, u32 port);

/*
 * The __xrdma_* creation functions take the owner: @caller, a kernel
 * module's name (the macros pass KBUILD_MODNAME), or NULL with @udata for
 * the current process (uverbs).
 */
struct xrdma_pd *__xrdma_alloc_pd(struct xrdma_device *dev, u32 flags,
				  const char *caller,
				  struct xrdma_udata *udata);
#define xrdma_alloc_pd(dev, flags)					\
	__xrdma_alloc_pd(dev, flags, KBUILD_MODNAME, NULL)
int xrdma_dealloc_pd(struct xrdma_pd *pd);

struct xrdma_cq *__xrdma_create_cq(struct xrdma_device *dev,
				   xrdma_comp_handler comp_handler,
				   void (*event_handler)(struct xrdma_event *,
							 void *),
				   void *cq_context,
				   const struct xrdma_cq_init_attr *attr,
				   const char *caller,
				   struct xrdma_udata *udata);
#define xrdma_create_cq(dev, ch, eh, ctx, attr)				\
	__xrdma_create_cq(dev, ch, eh, ctx, attr, KBUILD_MODNAME, NULL)
int xrdma_destroy_cq(struct xrdma_cq *cq);
int __xrdma_resize_cq(struct xrdma_cq *cq, u32 cqe,
		      struct xrdma_udata *udata);
#define xrdma_resize_cq(cq, cqe)	__xrdma_resize_cq(cq, cqe, NULL)

static inline int xrdma_poll_cq(struct xrdma_cq *cq, int num_entries,
				struct xrdma_wc *wc)
{
	return cq->device->ops->poll_cq(cq, num_entries, wc);
}

/**
 * xrdma_req_notify_cq - arm a CQ
 * @cq: the CQ
 * @flags: exactly one of XRDMA_CQ_NEXT_COMP and XRDMA_CQ_SOLICITED,
 *	   optionally with XRDMA_CQ_REPORT_MISSED_EVENTS
 *
 * Return: 0 on success; with REPORT_MISSED_EVENTS a positive value means
 * completions may be in the CQ already, so poll again; -EINVAL, without
 * calling the driver, for unknown bits in @flags or not exactly one
 * solicitation mode; or the driver's negative errno.
 */
static inline int xrdma_req_notify_cq(struct xrdma_cq *cq, u32 flags)
{
	u32 mode = flags & XRDMA_CQ_SOLICITED_MASK;

	if (flags & ~(XRDMA_CQ_SOLICITED_MASK |
		      XRDMA_CQ_REPORT_MISSED_EVENTS) ||
	    (mode != XRDMA_CQ_NEXT_COMP && mode != XRDMA_CQ_SOLICITED))
		return -EINVAL;
	return cq->device->ops->req_notify_cq(cq, flags);
}

struct xrdma_qp *__xrdma_create_qp(struct xrdma_pd *pd,
				   struct xrdma_qp_init_attr *attr,
				   const char *caller,
				   struct xrdma_udata *udata);
#define xrdma_create_qp(pd, attr)					\
	__xrdma_create_qp(pd, attr, KBUILD_MODNAME, NULL)
int __xrdma_modify_qp(struct xrdma_qp *qp, struct xrdma_qp_attr *attr,
		      int mask, struct xrdma_udata *udata);
#define xrdma_modify_qp(qp, attr, mask) __xrdma_modify_qp(qp, attr, mask, NULL)
int xrdma_query_qp(struct xrdma_qp *qp, struct xrdma_qp_attr *attr, int mask,
		   struct xrdma_qp_init_attr *init_attr);
int xrdma_destroy_qp(struct xrdma_qp *qp);

/* UD multicast: a send to dest QPN XRDMA_MCAST_QPN and a group's GID */
#define XRDMA_MCAST_QPN		0xffffff
bool xrdma_gid_is_mcast(const union xrdma_gid *gid);
int xrdma_attach_mcast(struct xrdma_qp *qp, const union xrdma_gid *gid,
		       u16 lid);
int xrdma_detach_mcast(struct xrdma_qp *qp, const union xrdma_gid *gid,
		       u16 lid);

static inline int xrdma_post_send(struct xrdma_qp *qp,
				  const struct xrdma_send_wr *wr,
				  const struct xrdma_send_wr **bad_wr)
{
	const struct xrdma_send_wr *dummy;

	return qp->device->ops->post_send(qp, wr, bad_wr ? : &dummy);
}

/* XRC QPs have no receive queue: post_recv is -EINVAL, @wr the bad one */
static inline int xrdma_post_recv(struct xrdma_qp *qp,
				  const struct xrdma_recv_wr *wr,
				  const struct xrdma_recv_wr **bad_wr)
{
	const struct xrdma_recv_wr *dummy;

	if (unlikely(qp->qp_type == XRDMA_QPT_XRC_INI ||
		     qp->qp_type == XRDMA_QPT_XRC_TGT)) {
		*(bad_wr ? : &dummy) = wr;
		return -EINVAL;
	}
	return qp->device->ops->post_recv(qp, wr, bad_wr ? : &dummy);
}

/*
 * XRC (devices with XRDMA_DEVICE_XRC): domains, and the XRC_TGT QPs of a
 * domain shared by handles (xrdma_open_qp()).  See Documentation/core.rst.
 */
struct xrdma_xrcd *__xrdma_alloc_xrcd(struct xrdma_device *dev,
				      const char *caller);
#define xrdma_alloc_xrcd(dev)	__xrdma_alloc_xrcd(dev, KBUILD_MODNAME)
int xrdma_dealloc_xrcd(struct xrdma_xrcd *xrcd);
int xrdma_xrcd_charge_handle(struct xrdma_xrcd *xrcd,
			     struct xrdma_ucharge *c, bool creator);
void xrdma_xrcd_uncharge_handle(struct xrdma_device *dev,
				struct xrdma_ucharge *c);
struct xrdma_qp_open *__xrdma_open_qp(struct xrdma_xrcd *xrcd,
				      const struct xrdma_qp_open_attr *attr,
				      const char *caller);
#define xrdma_open_qp(xrcd, attr)					\
	__xrdma_open_qp(xrcd, attr, KBUILD_MODNAME)
int xrdma_close_qp(struct xrdma_qp_open *open);

struct xrdma_srq *__xrdma_create_srq(struct xrdma_pd *pd,
				     struct xrdma_srq_init_attr *attr,
				     const char *caller,
				     struct xrdma_udata *udata);
#define xrdma_create_srq(pd, attr)					\
	__xrdma_create_srq(pd, attr, KBUILD_MODNAME, NULL)
int __xrdma_modify_srq(struct xrdma_srq *srq, struct xrdma_srq_attr *attr,
		       u32 mask, struct xrdma_udata *udata);
#define xrdma_modify_srq(srq, attr, mask)				\
	__xrdma_modify_srq(srq, attr, mask, NULL)
int xrdma_query_srq(struct xrdma_srq *srq, struct xrdma_srq_attr *attr);
int xrdma_destroy_srq(struct xrdma_srq *srq);

static inline int xrdma_post_srq_recv(struct xrdma_srq *srq,
				      const struct xrdma_recv_wr *wr,
				      const struct xrdma_recv_wr **bad_wr)
{
	const struct xrdma_recv_wr *dummy;

	return srq->device->ops->post_srq_recv(srq, wr, bad_wr ? : &dummy);
}

/**
 * xrdma_check_flush_access - FLUSH access flags the device can serve
 * @dev: the device
 * @access: XRDMA_ACCESS_* flags of an MR or a QP
 *
 * As ib_check_mr_access() on Linux 6.12: each FLUSH placement type
 * needs the device's capability.  Return: 0 or -EOPNOTSUPP.
 */
static inline int xrdma_check_flush_access(const struct xrdma_device *dev,
					   u32 access)
{
	u32 cap = dev->attr.device_cap_flags;

	if ((access & XRDMA_ACCESS_FLUSH_GLOBAL &&
	     !(cap & XRDMA_DEVICE_FLUSH_GLOBAL)) ||
	    (access & XRDMA_ACCESS_FLUSH_PERSISTENT &&
	     !(cap & XRDMA_DEVICE_FLUSH_PERSISTENT)))
		return -EOPNOTSUPP;
	return 0;
}

struct xrdma_mr *__xrdma_get_dma_mr(struct xrdma_pd *pd, u32 access,
				    const char *caller);
#define xrdma_get_dma_mr(pd, acc) __xrdma_get_dma_mr(pd, acc, KBUILD_MODNAME)
struct xrdma_mr *__xrdma_alloc_mr(struct xrdma_pd *pd, u32 max_num_sg,
				  const char *caller);
#define xrdma_alloc_mr(pd, n) __xrdma_alloc_mr(pd, n, KBUILD_MODNAME)
int xrdma_map_mr_sg(struct xrdma_mr *mr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset, unsigned int page_size);
int xrdma_sg_to_pages(struct xrdma_mr *mr, struct scatterlist *sgl,
		      int sg_nents, unsigned int *sg_offset,
		      int (*set_page)(struct xrdma_mr *mr, u64 addr));
int xrdma_dereg_mr(struct xrdma_mr *mr);
struct xrdma_dm *xrdma_alloc_dm(struct xrdma_device *dev, u64 length,
				u32 log_align, struct xrdma_udata *udata);
int xrdma_free_dm(struct xrdma_dm *dm);
void xrdma_dm_uncharge(struct xrdma_device *dev, struct xrdma_dm_charge *c);
struct xrdma_mr *xrdma_reg_dm_mr(struct xrdma_pd *pd, struct xrdma_dm *dm,
				 u64 offset, u64 length, u32 access);
u32 xrdma_mr_next_key(u32 key);
struct xrdma_mw *__xrdma_alloc_mw(struct xrdma_pd *pd, enum xrdma_mw_type type,
				  struct xrdma_udata *udata,
				  const char *caller);
#define xrdma_alloc_mw(pd, type) \
	__xrdma_alloc_mw(pd, type, NULL, KBUILD_MODNAME)
int xrdma_dealloc_mw(struct xrdma_mw *mw);

/**
 * xrdma_update_fast_reg_key - set the variant byte of a fast-reg MR's keys
 * @mr: a XRDMA_MR_TYPE_MEM_REG MR
 * @newkey: new low byte, used by the next REG_MR work request
 */
static inline void xrdma_update_fast_reg_key(struct xrdma_mr *mr, u8 newkey)
{
	mr->lkey = (mr->lkey & 0xffffff00) | newkey;
	mr->rkey = (mr->rkey & 0xffffff00) | newkey;
}

/*
 * XRDMA_AH_NOSLEEP: create (and later destroy) the AH without sleeping,
 * for callers in atomic context (ib_cm creates AHs under a spinlock).
 */
#define XRDMA_AH_NOSLEEP	BIT(0)

struct xrdma_ah *__xrdma_create_ah(struct xrdma_pd *pd,
				   const struct xrdma_ah_attr *attr,
				   u32 flags, const char *caller,
				   struct xrdma_udata *udata);
#define xrdma_create_ah(pd, attr)					\
	__xrdma_create_ah(pd, attr, 0, KBUILD_MODNAME, NULL)
#define xrdma_create_ah_flags(pd, attr, flags)				\
	__xrdma_create_ah(pd, attr, flags, KBUILD_MODNAME, NULL)
int xrdma_destroy_ah(struct xrdma_ah *ah);

/* QP state machine (exposed for drivers and uverbs) */
bool xrdma_modify_qp_is_ok(enum xrdma_qp_state cur, enum xrdma_qp_state next,
			   enum xrdma_qp_type type, int mask);

/* Resource tracking */
unsigned int xrdma_res_count(struct xrdma_device *dev,
			     enum xrdma_res_type type);

/* For uverbs: objects owned by the current process (no module name) */
struct xrdma_mr *xrdma_reg_user_mr(struct xrdma_pd *pd, u64 start, u64 length,
				   u64 iova, u32 access,
				   struct xrdma_udata *udata);
struct xrdma_mr *xrdma_reg_user_mr_dmabuf(struct xrdma_pd *pd, u64 offset,
					  u64 length, u64 iova, int fd,
					  u32 access,
					  struct xrdma_udata *udata);
int xrdma_rereg_user_mr(struct xrdma_mr *mr, u32 flags, u64 start,
			u64 length, u64 iova, u32 access,
			struct xrdma_pd *pd);

#endif /* _XRDMA_VERBS_H */
