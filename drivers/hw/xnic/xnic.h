/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xnic: driver for the xnic RDMA NIC (include/xrdma/xnic_hw.h,
 * uapi/xrdma/xnic-abi.h).  Driver structures and the interfaces between
 * its files:
 *   xnic_main.c   platform driver, module: device bring-up and teardown
 *   xnic_cmdq.c   command queue: posting, waiting, timeout and reset
 *   xnic_eq.c     event queue: interrupt handler, event dispatch
 *   xnic_mem.c    memory given to the device: DMA buffers, queues, what
 *                 is kept after a failed command until a reset
 *   xnic_verbs.c  control path: the verbs table (xnic_dev_ops), user
 *                 contexts, mmap, counters, clock, PD, AH, multicast, XRCD
 *   xnic_codes.c  verbs values to and from the device's codes; port
 *                 attributes and the GID table
 *   xnic_cq.c     CQ verbs (create, resize, destroy)
 *   xnic_qp.c     QP and SRQ verbs (create, modify, query, destroy)
 *   xnic_mr.c     MR and MW verbs: registration, translation tables
 *   xnic_dp.c     kernel data path: doorbells, post, CQE decoding, poll,
 *                 arm
 *   xnic_wqe.c    WQE encoding and sizes (no device access)
 *   xnic_eth.c    the Ethernet function: a netdev per port
 */
#ifndef _XNIC_H
#define _XNIC_H

#include <linux/platform_device.h>
#include <linux/dma-mapping.h>
#include <linux/idr.h>
#include <linux/wait.h>
#include <xrdma/xrdma_verbs.h>
#include <xrdma/xnic_hw.h>

struct xrdma_umem;
struct xnic_eth;

#define XNIC_DRV_NAME		"xnic"
#define XNIC_CMDQ_LOG		5	/* 32 command entries */
/*
 * 65536 event entries: room for one COMPLETION and one CQ_ERR of every
 * CQ (max_cq is clamped to a quarter of it) and the events of the QPs,
 * SRQs and commands, which each need a command to recur (events.rst)
 */
#define XNIC_EQ_LOG		16
#define XNIC_KERNEL_DB_INDEX	0
#define XNIC_MAX_DB_INDEX	1024	/* ALLOC_DB db_index limit */
#define XNIC_MIN_LOG_CQE	2
#define XNIC_MAX_WQE_SHIFT	12	/* 4 KiB send or receive WQEs at most */
#define XNIC_DBREC_ALIGN	64
#define XNIC_NO_QPN		0	/* never a QPN of the core (starts at 2) */
#define XNIC_MAX_XRCD		16384	/* XRC domains: xrcdn 1 .. this */

/* Device limits from QUERY_CAPS, in CPU byte order. */
struct xnic_caps {
	u64 max_mr_size;
	u64 page_size_cap;
	u32 vendor_id;
	u32 vendor_part_id;
	u32 hw_ver;
	u32 max_qp;
	u32 max_qp_wr;
	u32 max_sge;
	u32 max_inline;
	u32 max_cq;
	u32 max_cqe;
	u32 max_mr;
	u32 max_srq;
	u32 max_srq_wr;
	u32 max_rd_atom;
	u32 max_fast_reg_pages;
	u32 max_mw;
	u32 num_ports;
	u32 port_state;			/* enum xnic_port_state */
	u32 port_mtu;			/* enum xnic_mtu */
};

/* A physically contiguous, zeroed DMA buffer (dma_alloc_coherent). */
struct xnic_dmabuf {
	void *cpu;
	dma_addr_t dma;
	size_t size;
	struct list_head zombie;	/* in xnic_dev.zombies */
};

struct xnic_dev {
	struct xrdma_device ibdev;	/* must be first */
	struct platform_device *pdev;
	struct device *dma_dev;
	struct xnic_bus *bus;
	struct xnic_caps caps;

	/* command queue: one command in flight, serialised by cmd_lock */
	struct mutex cmd_lock;
	struct xnic_dmabuf cmdq;
	u32 cmdq_pi;
	u32 cmd_token;
	wait_queue_head_t cmd_wq;
	bool cmd_dead;			/* a command timed out: no more */
	bool fatal;			/* DEVICE_FATAL seen */
	/* the probe this is (xnic_recover()), and a recovery asked for */
	u64 gen;
	unsigned long recovering;
	/*
	 * Set (under zombie_lock) once the device was reset after its
	 * command path died: it holds nothing any more and is never enabled
	 * again, so whatever it was given may be freed.
	 */
	bool stopped;

	/* event queue, consumed by the interrupt handler */
	spinlock_t eq_lock;
	unsigned long eq_pending;	/* bit 0: entries may be waiting */
	struct xnic_dmabuf eq;
	u32 eq_ci;
	bool irq_requested;

	/* doorbells */
	struct xnic_dmabuf kdb;		/* kernel doorbell page (index 0) */
	bool kdb_allocated;
	struct ida db_ida;		/* user doorbell page indexes */
	struct ida kslot_ida;		/* slots of kernel QPs in kdb */
	struct ida xrcd_ida;		/* XRC domain numbers */
	u32 features;			/* XNIC_FEAT_* (FEATURES register) */

	/* kernel CQs (xnic_cq.kcq_node), for xnic_dp_dead() */
	struct mutex kcq_mutex;
	struct list_head kcqs;

	/* lookups of the data path and of events */
	struct xarray qp_xa;		/* QPN -> kernel struct xnic_qp */
	struct xarray srq_xa;		/* SRQN -> struct xnic_srq */

	u32 port_state;			/* enum xrdma_port_state */
	struct xnic_eth *eth[XRDMA_MAX_PORTS];	/* netdev of each port */

	/* port 1's GID table as programmed (SET_GID), xnic_codes.c */
	struct mutex gid_mutex;		/* serialises set_gid */
	spinlock_t gid_lock;		/* the entries, for query_gid */
	struct xnic_gid_entry {
		union xrdma_gid gid;
		u8 type;		/* enum xrdma_gid_type */
		bool valid;
	} gids[XRDMA_GID_TABLE_LEN];

	/*
	 * Memory the device may still touch after a failed command, kept
	 * until the device is reset: queue memory (struct xnic_dmabuf) and
	 * the pinned, DMA-mapped pages of user MRs (struct xnic_umem_zombie).
	 */
	spinlock_t zombie_lock;
	struct list_head zombies;
	struct list_head umem_zombies;

	/* the device memory window (DM_* registers), xnic_mem.c */
	phys_addr_t dm_base;
	u32 dm_pages;			/* 0: the device has none */
	void *dm_cpu;			/* memremap()ed window */
	spinlock_t dm_lock;		/* dm_map */
	unsigned long *dm_map;		/* pages handed out */
};

static inline struct xnic_dev *to_xdev(struct xrdma_device *ibdev)
{
	return container_of(ibdev, struct xnic_dev, ibdev);
}

/* Memory a process maps: entry->priv of its mmap entry. */
struct xnic_ubuf {
	struct xnic_dev *xdev;
	struct xnic_dmabuf buf;
	bool zombie;			/* the device may still use it */
	struct xrdma_ucontext *uctx;	/* charged to it ... */
	unsigned long charged;		/* ... this many pages */
	bool dm;			/* device memory: buf is in the window */
	struct xrdma_dm_charge dm_charge; /* its pages, from free_dm on */
};

struct xnic_dm {
	struct xrdma_dm ibdm;		/* must be first */
	u32 first;			/* first page in the window */
	u32 npages;
	struct xnic_ubuf *ubuf;		/* a process's: its mapping */
	struct xrdma_mmap_entry *entry;
};

struct xnic_ucontext {
	struct xrdma_ucontext uctx;	/* must be first */
	struct xnic_ubuf *db;
	struct xrdma_mmap_entry *db_entry;
	u32 db_index;
	struct ida slot_ida;
};

struct xnic_pd {
	struct xrdma_pd ibpd;		/* must be first */
};

struct xnic_qp;

struct xnic_cq {
	struct xrdma_cq ibcq;		/* must be first */
	spinlock_t lock;		/* poll and arm of a kernel CQ */
	struct mutex resize_mutex;	/* resize, and cleaning while one runs */
	struct xnic_cqe *ring;
	struct xnic_cq_dbrec *dbrec;
	/* a kernel CQ's record during RESIZE_CQ (under lock): no polling */
	struct xnic_cq_dbrec *next_dbrec;
	u32 log_cqe;
	u32 ci;
	u32 arm_sn;
	struct xnic_qp *last_qp;	/* lookup cache, under lock */
	/*
	 * A kernel CQ's kernel QPs, under lock: those whose send queue
	 * (xnic_qp.scq_node) and receive queue (rcq_node) report here,
	 * flushed in software once the device is dead (xnic_dp.c)
	 */
	struct list_head sq_list;
	struct list_head rq_list;
	struct list_head kcq_node;	/* in xnic_dev.kcqs */
	struct xnic_dmabuf buf;		/* kernel CQ */
	struct xnic_ubuf *ubuf;		/* user CQ */
	struct xrdma_mmap_entry *entry;
};

/* What a send WQE may hold on one QP. */
struct xnic_sq_cfg {
	enum xrdma_qp_type qp_type;
	u32 max_sge;
	u32 max_inline;
	bool sig_all;
};

/* A kernel work queue (SQ or RQ). */
struct xnic_wq {
	spinlock_t lock;		/* posting */
	void *ring;
	u32 log_size;
	u32 wqe_shift;
	u32 pi;				/* free running, under lock */
	u32 ci;				/* free running, advanced by poll_cq */
	u64 *wrid;			/* wr_id by index */
};

struct xnic_qp {
	struct xrdma_qp ibqp;		/* must be first */
	struct xnic_wq sq;
	struct xnic_wq rq;
	struct list_head scq_node;	/* in the send CQ's sq_list */
	struct list_head rcq_node;	/* in the receive CQ's rq_list */
	struct xnic_qp_dbrec *dbrec;
	struct xnic_sq_cfg sq_cfg;
	u32 rq_max_sge;
	u32 db_slot;
	bool sq_sig_all;
	bool kernel;
	struct xnic_ucontext *uctx;	/* user QP */
	struct xnic_dmabuf buf;		/* kernel QP */
	struct xnic_ubuf *ubuf;		/* user QP */
	struct xrdma_mmap_entry *entry;
	struct xrdma_qp_cap cap;	/* what the QP really provides */
	struct xrdma_qp_attr attr;	/* last modified values, for query */
};

struct xnic_srq {
	struct xrdma_srq ibsrq;		/* must be first */
	spinlock_t lock;		/* posting */
	struct mutex modify_mutex;	/* MODIFY_SRQ and RESIZE_SRQ */
	void *ring;
	u32 log_size;
	u32 wqe_shift;
	u32 pi;				/* free running, under lock */
	atomic_t done;			/* receive CQEs polled (kernel) */
	u32 max_wr;
	u32 max_sge;
	u32 limit;
	struct xnic_qp_dbrec *dbrec;
	bool kernel;
	struct xnic_dmabuf buf;
	struct xnic_ubuf *ubuf;
	struct xrdma_mmap_entry *entry;
};

struct xnic_mr {
	struct xrdma_mr ibmr;		/* must be first */
	struct xnic_dmabuf mtt;		/* fast-reg and user MRs */
	u32 mtt_max;			/* entries in mtt */
	u32 npages;			/* entries in use */
	u8 page_shift;
	bool sgt_mapped;
	bool in_device;			/* the device has it under lkey */
	/* a dmabuf MR's tables, charged to its context until dereg */
	struct xrdma_ucontext *kmem_uctx;
	unsigned long kmem_pages;
};

struct xnic_ah {
	struct xrdma_ah ibah;		/* must be first */
};

struct xnic_mw {
	struct xrdma_mw ibmw;		/* must be first */
};

static inline struct xnic_cq *to_xcq(struct xrdma_cq *cq)
{
	return container_of(cq, struct xnic_cq, ibcq);
}

static inline struct xnic_qp *to_xqp(struct xrdma_qp *qp)
{
	return container_of(qp, struct xnic_qp, ibqp);
}

static inline struct xnic_srq *to_xsrq(struct xrdma_srq *srq)
{
	return container_of(srq, struct xnic_srq, ibsrq);
}

static inline struct xnic_mr *to_xmr(struct xrdma_mr *mr)
{
	return container_of(mr, struct xnic_mr, ibmr);
}

static inline struct xnic_ucontext *to_xuctx(struct xrdma_ucontext *uctx)
{
	return container_of(uctx, struct xnic_ucontext, uctx);
}

/* ------------------------------------------------------------------ */
/* Registers and rings                                                 */

static inline u32 xnic_rd(struct xnic_dev *xdev, u32 reg)
{
	return xdev->bus->read32(xdev->bus, reg);
}

static inline void xnic_wr(struct xnic_dev *xdev, u32 reg, u32 val)
{
	xdev->bus->write32(xdev->bus, reg, val);
}

/* A DMA address in a pair of registers. */
static inline void xnic_put_addr(struct xnic_dev *xdev, u32 lo, u32 hi,
				 dma_addr_t addr)
{
	xnic_wr(xdev, lo, lower_32_bits(addr));
	xnic_wr(xdev, hi, upper_32_bits(addr));
}

/* Lap phase of entry @idx in a ring of 2^@log entries. */
static inline u8 xnic_phase(u32 idx, u32 log)
{
	return (idx >> log) & 1;
}

/* CQ and EQ entries: the first lap is written with owner 1. */
static inline bool xnic_hw_owned_valid(u8 owner, u32 idx, u32 log)
{
	return (owner & 1) == (xnic_phase(idx, log) ^ 1);
}

/* ------------------------------------------------------------------ */
/* xnic_main.c: bring-up and teardown                                  */

int xnic_hw_reset(struct xnic_dev *xdev);
void xnic_recover(struct xnic_dev *xdev);

/* xnic_codes.c: the GID table the device holds after reset */
void xnic_gid_init(struct xnic_dev *xdev);

/* ------------------------------------------------------------------ */
/* xnic_cmdq.c: the command queue                                      */

int xnic_cmdq_init(struct xnic_dev *xdev);
void xnic_cmdq_complete(struct xnic_dev *xdev);
int xnic_cmd_exec(struct xnic_dev *xdev, u8 opcode, const void *in,
		  size_t inlen, void *out, size_t outlen);
void xnic_cmd_kill(struct xnic_dev *xdev);

/**
 * xnic_cmd_let_go - after a destroy command, may its memory be freed?
 * @xdev: device
 * @ret: what xnic_cmd_exec() returned
 *
 * A command that timed out or found the device dead returns only after
 * the device was reset (xdev->stopped), unless the reset did not complete.
 * A BUSY object is still in use by a device that runs.
 *
 * Return: true if the device no longer uses the object's memory.
 */
static inline bool xnic_cmd_let_go(struct xnic_dev *xdev, int ret)
{
	return (ret != -ETIMEDOUT && ret != -EIO && ret != -EBUSY) ||
	       READ_ONCE(xdev->stopped);
}

/* ------------------------------------------------------------------ */
/* xnic_eq.c: the event queue                                          */

int xnic_eq_init(struct xnic_dev *xdev);
void xnic_eq_free_irq(struct xnic_dev *xdev);
void xnic_eq_sync(struct xnic_dev *xdev);

/* ------------------------------------------------------------------ */
/* xnic_mem.c: memory given to the device                              */

int xnic_dma_alloc(struct xnic_dev *xdev, struct xnic_dmabuf *buf,
		   size_t size);
int xnic_dma_alloc_gfp(struct xnic_dev *xdev, struct xnic_dmabuf *buf,
		       size_t size, gfp_t gfp);
void xnic_dma_free(struct xnic_dev *xdev, struct xnic_dmabuf *buf,
		   bool device_done);
/*
 * User memory of an MR: the device reaches it at any time, with no sync
 * point per transfer (the verbs have none), and the same pages may be in
 * several MRs -- overlapping mappings, which DMA-API debugging accepts
 * only without CPU syncs.  xnic is a cache-coherent device.
 */
#define XNIC_UMEM_DMA_ATTRS	DMA_ATTR_SKIP_CPU_SYNC

void xnic_umem_keep(struct xnic_dev *xdev, struct xrdma_umem *umem,
		    bool mapped);
void xnic_free_zombies(struct xnic_dev *xdev, bool release);
struct xnic_ubuf *xnic_ubuf_alloc(struct xnic_dev *xdev,
				  struct xrdma_ucontext *uctx, size_t size);
void xnic_ubuf_free(struct xnic_ubuf *ubuf);
int xnic_queue_alloc(struct xnic_dev *xdev, struct xrdma_udata *udata,
		     size_t size, struct xnic_dmabuf *kbuf,
		     struct xnic_ubuf **ubufp, void **cpu, dma_addr_t *dma);
int xnic_queue_publish(struct xrdma_udata *udata, struct xnic_ubuf **ubufp,
		       struct xrdma_mmap_entry **entryp);
void xnic_queue_free(struct xnic_dev *xdev, struct xnic_dmabuf *kbuf,
		     struct xnic_ubuf **ubufp, struct xrdma_mmap_entry **entryp,
		     bool let_go);
int xnic_dm_init(struct xnic_dev *xdev);
void xnic_dm_fini(struct xnic_dev *xdev);
int xnic_dm_alloc(struct xrdma_dm *dm, u32 log_align,
		  struct xrdma_udata *udata);
void xnic_dm_free(struct xrdma_dm *dm);
void xnic_dm_release(struct xnic_ubuf *ubuf);

/* ------------------------------------------------------------------ */
/* xnic_verbs.c: the verbs table; the objects' destroy command         */

extern const struct xrdma_device_ops xnic_dev_ops;
int xnic_destroy_obj(struct xnic_dev *xdev, u8 opcode, u32 index);

/* ------------------------------------------------------------------ */
/* xnic_codes.c: the device's codes, port 1 and its GID table          */

int xnic_port_state_from_hw(u32 state);
int xnic_qp_type_to_hw(enum xrdma_qp_type type);
int xnic_qp_state_to_hw(enum xrdma_qp_state state);
int xnic_qp_state_from_hw(u32 state);
int xnic_mtu_to_hw(enum xrdma_mtu mtu);
int xnic_qp_mask_to_hw(u32 mask, u32 *hw_mask);
int xnic_query_port(struct xrdma_device *dev, u32 port,
		    struct xrdma_port_attr *attr);
int xnic_query_gid(struct xrdma_device *dev, u32 port, int index,
		   union xrdma_gid *gid);
int xnic_set_gid(struct xrdma_device *dev, u32 port, u32 index,
		 const union xrdma_gid *gid, enum xrdma_gid_type type);

/* ------------------------------------------------------------------ */
/* xnic_cq.c                                                           */

int xnic_create_cq(struct xrdma_cq *cq,
		   const struct xrdma_cq_init_attr *attr,
		   struct xrdma_udata *udata);
int xnic_resize_cq(struct xrdma_cq *cq, u32 cqe,
		   struct xrdma_udata *udata);
void xnic_destroy_cq(struct xrdma_cq *cq);

/* ------------------------------------------------------------------ */
/* xnic_qp.c: QPs and SRQs                                             */

int xnic_create_qp(struct xrdma_qp *qp,
		   struct xrdma_qp_init_attr *attr,
		   struct xrdma_udata *udata);
int xnic_modify_qp(struct xrdma_qp *qp, struct xrdma_qp_attr *attr,
		   int mask, struct xrdma_udata *udata);
int xnic_query_qp(struct xrdma_qp *qp, struct xrdma_qp_attr *attr,
		  int mask, struct xrdma_qp_init_attr *init_attr);
void xnic_destroy_qp(struct xrdma_qp *qp);
int xnic_create_srq(struct xrdma_srq *srq,
		    struct xrdma_srq_init_attr *attr,
		    struct xrdma_udata *udata);
int xnic_modify_srq(struct xrdma_srq *srq, struct xrdma_srq_attr *attr,
		    u32 mask, struct xrdma_udata *udata);
int xnic_query_srq(struct xrdma_srq *srq, struct xrdma_srq_attr *attr);
void xnic_destroy_srq(struct xrdma_srq *srq);

/* ------------------------------------------------------------------ */
/* xnic_mr.c: MRs and MWs                                              */

int xnic_get_dma_mr(struct xrdma_mr *mr);
int xnic_alloc_mr(struct xrdma_mr *mr, u32 max_num_sg);
int xnic_map_mr_sg(struct xrdma_mr *mr, struct scatterlist *sg,
		   int sg_nents, unsigned int *sg_offset);
int xnic_reg_user_mr(struct xrdma_mr *mr, struct xrdma_udata *udata);
int xnic_rereg_user_mr(struct xrdma_mr *mr, struct xrdma_mr_rereg *rr);
int xnic_dereg_mr(struct xrdma_mr *mr);
int xnic_alloc_mw(struct xrdma_mw *mw, struct xrdma_udata *udata);
int xnic_dealloc_mw(struct xrdma_mw *mw);
int xnic_reg_dm_mr(struct xrdma_mr *mr, struct xrdma_dm *dm,
		   u64 offset);

/* ------------------------------------------------------------------ */
/* xnic_dp.c                                                           */

int xnic_post_send(struct xrdma_qp *qp, const struct xrdma_send_wr *wr,
		   const struct xrdma_send_wr **bad_wr);
int xnic_post_recv(struct xrdma_qp *qp, const struct xrdma_recv_wr *wr,
		   const struct xrdma_recv_wr **bad_wr);
int xnic_post_srq_recv(struct xrdma_srq *srq, const struct xrdma_recv_wr *wr,
		       const struct xrdma_recv_wr **bad_wr);
int xnic_poll_cq(struct xrdma_cq *cq, int num_entries, struct xrdma_wc *wc);
int xnic_req_notify_cq(struct xrdma_cq *cq, u32 flags);
void xnic_cq_clean(struct xnic_cq *xcq, u32 qpn, struct xnic_srq *srq);
void xnic_qp_reset_queues(struct xnic_qp *xqp);
void xnic_cq_add_qp(struct xnic_qp *xqp);
void xnic_cq_del_qp(struct xnic_qp *xqp);
void xnic_dp_dead(struct xnic_dev *xdev);
void xnic_kick_user(struct xnic_dev *xdev, u32 db_index);

/* ------------------------------------------------------------------ */
/* xnic_wqe.c: work requests to WQEs                                   */

u32 xnic_access_to_hw(u32 access);
u32 xnic_sq_wqe_shift(u32 max_sge, u32 max_inline);
u32 xnic_rq_wqe_shift(u32 max_sge);
u32 xnic_sq_wqe_max_sge(u32 wqe_shift);
u32 xnic_sq_wqe_max_inline(u32 wqe_shift);
u32 xnic_rq_wqe_max_sge(u32 wqe_shift);
u32 xnic_log_entries(u32 n);
int xnic_wr_to_hw_opcode(enum xrdma_wr_opcode op, enum xrdma_qp_type type);
int xnic_build_send_wqe(void *wqe, const struct xnic_sq_cfg *cfg,
			const struct xrdma_send_wr *wr, u64 wqe_wr_id);
void xnic_build_recv_wqe(void *wqe, const struct xrdma_recv_wr *wr,
			 u64 wqe_wr_id);

/* ------------------------------------------------------------------ */
/* xnic_eth.c: the Ethernet function                                   */

int xnic_eth_init(struct xnic_dev *xdev);
void xnic_eth_fini(struct xnic_dev *xdev);
void xnic_eth_event(struct xnic_dev *xdev, u32 port);
void xnic_eth_link(struct xnic_dev *xdev, u32 port);
struct net_device *xnic_eth_get_netdev(struct xrdma_device *dev, u32 port);

#endif /* _XNIC_H */
