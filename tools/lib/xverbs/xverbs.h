/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xverbs: a drop-in libibverbs.so.1 for xrdma devices (xnic).
 *
 * The control path is the uverbs ioctls of /dev/infiniband/xrdma_uverbsN
 * (uapi/xrdma/xrdma-abi.h); the data path writes WQEs into the mapped
 * rings and reads CQEs from the mapped CQ (uapi/xrdma/xnic-abi.h,
 * Documentation/xnic/userspace.rst) with no system call, except the KICK
 * ioctl when the device's engine sleeps.
 *
 * How the files are split (one rule, as rdma-core splits libibverbs from
 * its providers):
 *
 * - The API layer, one file per verbs object as rdma-core's libibverbs:
 *   device.c (device list, sysfs), context.c (contexts, the ioctl helper,
 *   fork, the ops a context gets), query.c (device, port, GID, P_Key),
 *   share.c (PDs of every kind, thread and parent domains, imports),
 *   mr.c (MRs), mw.c (memory windows), dm.c (device memory), cq.c, qp.c,
 *   srq.c, xrc.c (XRC domains, SRQs and receive QPs), ah.c (AHs and the
 *   kernel structure marshalling), mcast.c, events.c (channels and
 *   events), enum_strs.c (enum names, rates), private.c (rdma-core's
 *   IBVERBS_PRIVATE_34 entry points), unsupported.c.  It issues the
 *   uverbs ioctls and implements every ibv_* entry point; it builds no
 *   WQE and touches no ring, doorbell or CQE.
 * - The xnic provider, the files named xnic_*.c (what rdma-core keeps
 *   under providers/): xnic_post.c (posting, WQE building, doorbells),
 *   xnic_cq.c (CQ polling, the ibv_cq_ex ops), xnic_qp_ex.c (the
 *   ibv_qp_ex ops), xnic_queues.c (the mapped rings and doorbell page;
 *   the ops table).  Its private header is xnic.h.  It implements no
 *   ibv_* entry point: the API layer reaches it only through struct
 *   xv_provider_ops below (as rdma-core's verbs_context_ops), and it
 *   uses only the API layer's helpers declared here (xv_ioctl,
 *   xv_destroy_obj, xv_qp_lookup, xv_wrid_alloc/free, xv_lock).
 */
#ifndef XVERBS_H
#define XVERBS_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>
/*
 * rdma-core 44's declarations of the exported functions no public header
 * declares (the Makefile also force-includes it into every object)
 */
#include "ref/libibverbs-private.h"
#include <xrdma/xrdma-abi.h>
#include <xrdma/xnic-abi.h>

/*
 * IBTA 1.5 FLUSH: rdma-core 45's values (verbs.h of v45 .. v56), which
 * rdma-core 44's header lacks.  ATOMIC WRITE is in 44's already.
 */
#define XV_ACCESS_FLUSH_GLOBAL		(1U << 8)	/* IBV_ACCESS_ */
#define XV_ACCESS_FLUSH_PERSISTENT	(1U << 9)
#define XV_WR_FLUSH			14		/* IBV_WR_FLUSH */
#define XV_WC_FLUSH			8		/* IBV_WC_FLUSH */
#define XV_QP_EX_WITH_FLUSH		(1ULL << 11)	/* IBV_QP_EX_WITH_ */
/* device_cap_flags_ex bits (IB_UVERBS_DEVICE_*, all of them in v56) */
#define XV_DEVICE_FLUSH_GLOBAL		(1ULL << 38)
#define XV_DEVICE_FLUSH_PERSISTENT	(1ULL << 39)
#define XV_DEVICE_ATOMIC_WRITE		(1ULL << 40)

#define XV_SYSFS_CLASS	"/sys/class/xrdma"
#define XV_QP_HASH	1024

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define fallthrough	__attribute__((__fallthrough__))

#define xv_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/*
 * One per xrdma device as a device list found it (device.c; names in
 * Documentation/userspace.rst, "Device names"): a device whose name, node
 * GUID, ib_core index or ibdev_path changed is a new one, so that callers
 * comparing ibv_device pointers (librdmacm) see the change.
 */
struct xv_device {
	struct ibv_device ibdev;	/* first: the public pointer */
	char devnode[64];		/* /dev/infiniband/xrdma_uverbsN */
	uint64_t node_guid;		/* network byte order */
	int devnum;			/* N of uverbsN */
	int ib_index;			/* ib_core's index of it, or -1 */
	struct xv_device *next;		/* the process-wide list */
};

struct xv_provider_ops;

struct xv_context {
	struct verbs_context vctx;	/* ends with struct ibv_context */
	struct xv_device *dev;
	const struct xv_provider_ops *ops;	/* the data path's */
	/* the provider's (xnic_queues.c) */
	struct xnic_ucontext_resp uresp;
	struct xnic_db_page *db;
	pthread_rwlock_t qp_lock;	/* the QPN table */
	struct xv_qp *qp_hash[XV_QP_HASH];
	pid_t pid;			/* the process that joined the context */
};

/* a ring written by software: SQ, RQ or SRQ */
struct xv_wq {
	uint8_t *buf;
	uint32_t log;			/* 2^log entries */
	uint32_t shift;			/* of 2^shift bytes */
	uint32_t pi;			/* free running */
	uint32_t ci;			/* first entry not known done */
	uint64_t *wrid;			/* user wr_id per entry */
	bool wrid_custom;		/* wrid from a parent domain's alloc */
	uint32_t max_wr;		/* usable entries */
	uint32_t max_sge;
};

/* share.c: thread domains and PDs of every kind */
struct xv_td {
	struct ibv_td ibtd;
	int refcount;			/* 1 + parent domains (atomic) */
};

struct xv_pd {
	struct ibv_pd ibpd;		/* first: the public pointer */
	int refcount;			/* 1 + users (atomic): see share.c */
	/* a parent domain: its protection domain (else NULL), TD, allocator */
	struct xv_pd *protection;
	struct xv_td *td;
	void *(*alloc)(struct ibv_pd *pd, void *pd_context, size_t size,
		       size_t alignment, uint64_t resource_type);
	void (*free)(struct ibv_pd *pd, void *pd_context, void *ptr,
		     uint64_t resource_type);
	void *pd_context;
};

/*
 * resource_type values the parent domain allocator is called with
 * (Documentation/userspace.rst, "Parent and thread domains")
 */
#define XV_RES_TYPE_SQ_WRID	(((uint64_t)0x78 << 32) + 1)
#define XV_RES_TYPE_RQ_WRID	(((uint64_t)0x78 << 32) + 2)
#define XV_RES_TYPE_SRQ_WRID	(((uint64_t)0x78 << 32) + 3)

struct xv_cq {
	struct ibv_cq_ex ex;		/* starts with struct ibv_cq */
	pthread_spinlock_t lock;
	void *map;
	size_t map_size;
	struct xnic_cqe *ring;
	struct xnic_cq_dbrec *dbrec;
	uint32_t log;
	uint32_t ci;
	uint32_t arm_sn;
	uint64_t wc_flags;		/* IBV_WC_EX_WITH_* asked for */
	struct xv_qp *last_qp;
	/*
	 * XRC SRQs completing here (atomic): their receive CQEs name XRC_RECV
	 * QPs this process may not have (xrc.c)
	 */
	int xrc_srqs;
	struct xnic_cqe cur;		/* the extended poll's current CQE */
	struct ibv_pd *parent_domain;	/* IBV_CQ_INIT_ATTR_MASK_PD, or NULL */
};

/* an XRC domain: one handle of it (xrc.c) */
struct xv_xrcd {
	struct ibv_xrcd ibxrcd;
	uint32_t handle;
};

/*
 * An SRQ's entries are free again once the device took them: it counts
 * them into the doorbell record's sq_pi (uapi/xrdma/xnic-abi.h), so no
 * completion has to be matched to its SRQ -- an XRC SRQ's name QPs of
 * other processes.  Each entry carries the application's wr_id.
 */
struct xv_srq {
	struct ibv_srq ibsrq;
	pthread_spinlock_t lock;
	void *map;
	size_t map_size;
	struct xnic_qp_dbrec *dbrec;
	struct xv_wq rq;
	uint32_t srqn;
	bool td;			/* on a thread domain: no lock */
	/* XRC: its domain, and the CQ its receives complete to */
	struct xv_xrcd *xrcd;
	struct ibv_cq *cq;
};

/*
 * The op rdma-core 56 appended to struct ibv_qp_ex (v56.1 verbs.h:1349),
 * which the 44 headers we build with lack: its ibv_wr_flush() reads
 * qp->wr_flush right behind our struct ibv_qp_ex, so struct xv_qp holds
 * the slot there (Documentation/userspace.rst, "Programs built against
 * newer rdma-core").
 */
typedef void (*xv_wr_flush_fn)(struct ibv_qp_ex *qp, uint32_t rkey,
			       uint64_t remote_addr, size_t len,
			       uint8_t type, uint8_t level);

struct xv_qp {
	struct ibv_qp_ex ex;		/* starts with struct ibv_qp */
	xv_wr_flush_fn wr_flush;	/* rdma-core 56's ibv_qp_ex.wr_flush */
	bool is_ex;
	bool sig_all;
	bool td;			/* on a thread domain: no sq/rq lock */
	pthread_spinlock_t sq_lock;
	pthread_spinlock_t rq_lock;
	void *map;
	size_t map_size;
	struct xnic_qp_dbrec *dbrec;
	struct xv_wq sq;
	struct xv_wq rq;
	uint32_t db_slot;
	uint32_t max_inline;
	struct xv_qp *hnext;		/* the context's QPN table */
	/* the ibv_wr_* builder between wr_start and wr_complete */
	uint8_t *cur;			/* the WQE being built */
	uint32_t start_pi;
	int wr_err;
};

struct xv_ah {
	struct ibv_ah ibah;
	uint8_t dgid[16];
	uint8_t port_num;
	uint8_t sgid_index;	/* written into every UD WQE */
	uint8_t hop_limit;
	uint8_t traffic_class;
};

static inline struct xv_context *to_xctx(struct ibv_context *c)
{
	return xv_container_of(c, struct xv_context, vctx.context);
}

static inline struct xv_cq *to_xcq(struct ibv_cq *cq)
{
	return (struct xv_cq *)cq;
}

static inline struct xv_qp *to_xqp(struct ibv_qp *qp)
{
	return (struct xv_qp *)qp;
}

static inline struct xv_srq *to_xsrq(struct ibv_srq *srq)
{
	return (struct xv_srq *)srq;
}

static inline struct xv_xrcd *to_xxrcd(struct ibv_xrcd *xrcd)
{
	return xv_container_of(xrcd, struct xv_xrcd, ibxrcd);
}

/* ioctl: 0 or a positive errno (errno is set as well) */
int xv_ioctl(struct ibv_context *ctx, unsigned long req, void *arg);
/*
 * DESTROY: 0 or a positive errno; 0 as well when the device is gone
 * (the kernel answered EIO: the file is disassociated, or the device
 * failed or is being unregistered, and the object is destroyed), except
 * that with @out (the event counts to wait for) that is XV_DESTROY_GONE:
 * destroyed, no count to wait for, and no mapping to touch.
 */
#define XV_DESTROY_GONE (-1)
int xv_destroy_obj(struct ibv_context *ctx, uint32_t type, uint32_t handle,
		   struct xrdma_cmd_destroy *out);
void xv_wait_events(pthread_mutex_t *mutex, pthread_cond_t *cond,
		    uint32_t *completed, uint32_t want);

/* context.c, query.c, cq.c, qp.c: the ops each sets into a new context */
void xv_set_ops(struct xv_context *xctx);
void xv_query_set_ops(struct verbs_context *v);
void xv_cq_set_ops(struct verbs_context *v);
void xv_qp_set_ops(struct verbs_context *v);

/* query.c */
int xv_query_gid(struct ibv_context *ctx, uint8_t port, int index,
		 union ibv_gid *gid);
enum ibv_gid_type xv_gid_type(struct ibv_context *ctx, uint8_t port,
			      int index);
int xv_gid_type_sysfs(struct ibv_context *ctx, uint8_t port, int index);
int xv_query_port_full(struct ibv_context *ctx, uint8_t port_num,
		       struct ibv_port_attr *attr);

/* ah.c: struct ibv_ah_attr to and from the uverbs one */
void xv_ah_to_uverbs(const struct ibv_ah_attr *a,
		     struct xrdma_uverbs_ah_attr *u);
void xv_ah_from_uverbs(const struct xrdma_uverbs_ah_attr *u,
		       struct ibv_ah_attr *a);

/* qp.c: the context's QPN table */
struct xv_qp *xv_qp_lookup(struct xv_context *xctx, uint32_t qpn);

/* share.c */
static inline struct xv_pd *to_xpd(struct ibv_pd *pd)
{
	return (struct xv_pd *)pd;
}

struct ibv_context *xv_open_fd(struct xv_device *dev, int fd, bool import);
bool xv_pd_single_threaded(struct ibv_pd *pd);

/*
 * A work queue's lock on the data path: none for a queue created on a
 * parent domain with a thread domain (the application serializes its use),
 * as mlx5; CQs keep theirs.
 */
static inline void xv_lock(pthread_spinlock_t *lock, bool td)
{
	if (!td)
		pthread_spin_lock(lock);
}

static inline void xv_unlock(pthread_spinlock_t *lock, bool td)
{
	if (!td)
		pthread_spin_unlock(lock);
}

void xv_share_set_ops(struct verbs_context *v);
struct xv_pd *xv_parent_domain(struct ibv_pd *pd);
void xv_pd_get(struct ibv_pd *pd);
void xv_pd_put(struct ibv_pd *pd);
int xv_wrid_alloc(struct ibv_pd *pd, struct xv_wq *wq, uint64_t type);
void xv_wrid_free(struct ibv_pd *pd, struct xv_wq *wq, uint64_t type);

/* srq.c */
struct ibv_srq *xv_create_srq(struct ibv_pd *pd,
			      struct ibv_srq_init_attr *attr,
			      struct xv_xrcd *xrcd, struct ibv_cq *cq);

/* mr.c: the MR helpers every way of making an MR uses */
void xv_mr_set(struct ibv_mr *mr, struct ibv_pd *pd, void *addr,
	       size_t length, uint32_t handle, uint32_t lkey, uint32_t rkey);
unsigned int xv_mr_access(unsigned int access);
bool xv_mr_access_ok(unsigned int access);
struct ibv_mr *xv_mr_create(struct ibv_pd *pd, unsigned long req, void *cmd,
			    const uint32_t *out, void *addr, size_t length);

/*
 * The provider interface (struct xv_provider_ops): what the API layer asks
 * of the device's data path, as rdma-core's verbs_context_ops.  The
 * create ops issue the ioctl the API layer prepared (@c) with the
 * provider's response and map what it names; they return 0 or an errno
 * and leave nothing behind on failure (no mapping, no kernel object).
 */
struct xv_provider_ops {
	/*
	 * A context: GET_CONTEXT or IMPORT_CONTEXT (@req) with the
	 * provider's response, and what it maps; a forked child's
	 * IMPORT_CONTEXT (no retry).  0, or -1 with errno set.
	 */
	int (*init_context)(struct xv_context *xctx, unsigned long req,
			    struct xrdma_cmd_get_context *gc);
	void (*uninit_context)(struct xv_context *xctx);
	int (*rejoin_context)(struct ibv_context *ctx);
	/* set into struct ibv_context_ops */
	int (*poll_cq)(struct ibv_cq *cq, int n, struct ibv_wc *wc);
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad);
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			     struct ibv_recv_wr **bad);
	/* ibv_bind_mw's WQE (mw.c chose the new @rkey) */
	int (*post_bind)(struct ibv_qp *qp, struct ibv_mw *mw, uint32_t rkey,
			 const struct ibv_mw_bind_info *info, uint64_t wr_id,
			 unsigned int send_flags);
	/* the extended ops of ibv_create_cq_ex / ibv_create_qp_ex */
	void (*cq_ex_init)(struct xv_cq *cq);
	void (*qp_ex_init)(struct xv_qp *qp, uint64_t ops);
	/* CQ: its ring; resize sets ibv_cq.cqe under the CQ's lock */
	int (*create_cq)(struct ibv_context *ctx, struct xv_cq *cq,
			 struct xrdma_cmd_create_cq *c);
	int (*resize_cq)(struct xv_cq *cq, struct xrdma_cmd_resize_cq *c);
	void (*destroy_cq)(struct xv_cq *cq);
	/* QP: its rings (@has_rq: a receive queue of its own) */
	int (*create_qp)(struct ibv_context *ctx, struct xv_qp *qp,
			 struct xrdma_cmd_create_qp *c, struct ibv_pd *pd,
			 bool has_rq);
	/* a QP with no queues (XRC_RECV): CREATE_QP, nothing mapped */
	int (*create_qp_nomem)(struct ibv_context *ctx,
			       struct xrdma_cmd_create_qp *c);
	/* the QP went to RESET: its rings and CQEs start over */
	void (*reset_qp)(struct xv_qp *qp);
	/* the QP left the QPN table: its CQs forget it and its CQEs */
	void (*detach_qp)(struct xv_qp *qp, bool gone);
	void (*destroy_qp)(struct xv_qp *qp);
	/* SRQ: its ring; grow_srq issues MODIFY_SRQ with IBV_SRQ_MAX_WR */
	int (*create_srq)(struct ibv_context *ctx, struct xv_srq *srq,
			  struct xrdma_cmd_create_srq *c, struct ibv_pd *pd);
	int (*grow_srq)(struct xv_srq *srq, struct xrdma_cmd_modify_srq *c);
	void (*destroy_srq)(struct xv_srq *srq);
};

/* xnic_queues.c: the xnic provider (every context's, for now) */
extern const struct xv_provider_ops xnic_provider_ops;

/* mw.c: memory windows */
void xv_set_mw_ops(struct ibv_context_ops *ops);

/* dm.c: device memory */
void xv_dm_set_ops(struct verbs_context *v);

/* xrc.c: XRC domains, SRQs and receive QPs */
void xv_xrc_set_ops(struct verbs_context *v);
struct ibv_qp *xv_create_xrc_recv_qp(struct ibv_context *ctx,
				     struct ibv_qp_init_attr_ex *attr);

#endif /* XVERBS_H */
