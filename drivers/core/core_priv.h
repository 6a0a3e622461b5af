/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _XRDMA_CORE_PRIV_H
#define _XRDMA_CORE_PRIV_H

#include <xrdma/xrdma_verbs.h>

/* restrack.c */
void xrdma_res_init_tables(struct xrdma_device *dev);
void xrdma_res_destroy_tables(struct xrdma_device *dev);
int xrdma_res_reserve(struct xrdma_device *dev, struct xrdma_res *res,
		      enum xrdma_res_type type, const char *caller, gfp_t gfp);
int xrdma_res_reserve_id(struct xrdma_device *dev, struct xrdma_res *res,
			 enum xrdma_res_type type, u32 id, const char *caller);
void xrdma_res_commit(struct xrdma_res *res);
void xrdma_res_abort(struct xrdma_res *res);
void xrdma_res_remove(struct xrdma_res *res);
void xrdma_res_remove_nowait(struct xrdma_res *res);
struct xrdma_res *xrdma_res_get(struct xrdma_device *dev,
				enum xrdma_res_type type, u32 id);
void xrdma_res_put(struct xrdma_res *res);

/* debugfs.c */
void xrdma_debugfs_init(void);
void xrdma_debugfs_cleanup(void);
void xrdma_debugfs_add_device(struct xrdma_device *dev);
void xrdma_debugfs_remove_device(struct xrdma_device *dev);
extern const char *const xrdma_res_type_names[XRDMA_RES_MAX];

/* qp_state.c */
int xrdma_check_qp_attr(struct xrdma_device *dev, enum xrdma_qp_type type,
			const struct xrdma_qp_attr *attr, int mask);

/* verbs.c: address vectors (AHs and QP paths) */
int xrdma_check_ah_attr(struct xrdma_device *dev,
			const struct xrdma_ah_attr *attr);

/* verbs.c: use counts and object allocation, shared by the object files */
bool xrdma_use_get(atomic_t *usecnt);
void xrdma_use_put(atomic_t *usecnt);
bool xrdma_use_kill(atomic_t *usecnt);
void *xrdma_obj_alloc(struct xrdma_device *dev, size_t size,
		      enum xrdma_res_type type, const char *caller);
void *xrdma_obj_alloc_id(struct xrdma_device *dev, size_t size,
			 enum xrdma_res_type type, const char *caller,
			 gfp_t gfp, u32 id);
void xrdma_obj_abort(struct xrdma_res *res);
void xrdma_obj_free(struct xrdma_res *res);

/* qp.c: destroy a QP for good (for XRC_TGT: its last handle closed) */
void xrdma_qp_teardown(struct xrdma_qp *qp);

/* xrcd.c: the handles of XRC_TGT QPs */
int xrdma_tgt_qp_publish(struct xrdma_qp *qp);
int xrdma_tgt_qp_close(struct xrdma_qp *qp, struct xrdma_qp_open *open);
void xrdma_tgt_qp_event(struct xrdma_event *e);

/* mr.c */
u32 xrdma_mr_make_key(struct xrdma_device *dev, u32 index);

/* umem.c: pinned_vm accounting, shared with queue memory (ucontext.c) */
int xrdma_pinned_charge(struct mm_struct *mm, unsigned long npages);

static inline void xrdma_pinned_uncharge(struct mm_struct *mm,
					 unsigned long npages)
{
	atomic64_sub(npages, &mm->pinned_vm);
}

/* device.c */
extern struct class xrdma_device_class;

/* What the per-user shares count: each object type, and user contexts. */
enum xrdma_ulim {
	XRDMA_ULIM_PD = XRDMA_RES_PD,
	XRDMA_ULIM_CQ = XRDMA_RES_CQ,
	XRDMA_ULIM_QP = XRDMA_RES_QP,
	XRDMA_ULIM_SRQ = XRDMA_RES_SRQ,
	XRDMA_ULIM_MR = XRDMA_RES_MR,
	XRDMA_ULIM_AH = XRDMA_RES_AH,
	XRDMA_ULIM_MW = XRDMA_RES_MW,
	XRDMA_ULIM_XRCD = XRDMA_RES_XRCD,
	XRDMA_ULIM_UCONTEXT = XRDMA_RES_MAX,
	/* counted in units, not rdma cgroup objects: */
	XRDMA_ULIM_DM,		/* pages of device memory */
	XRDMA_ULIM_MCAST,	/* multicast attachments */
	XRDMA_ULIM_MAX
};

extern unsigned int xrdma_user_share;		/* percent */
extern unsigned int xrdma_max_ucontext_mem;	/* MiB, ucontext.c */

unsigned int xrdma_ulim_limit(struct xrdma_device *dev, enum xrdma_ulim type);
int xrdma_user_charge(struct xrdma_device *dev, enum xrdma_ulim type,
		      struct xrdma_ucharge *c);
void xrdma_user_uncharge(struct xrdma_device *dev, enum xrdma_ulim type,
			 struct xrdma_ucharge *c);
int xrdma_user_charge_n(struct xrdma_device *dev, enum xrdma_ulim type,
			unsigned int n, struct xrdma_ucharge *c);
void xrdma_user_uncharge_n(struct xrdma_device *dev, enum xrdma_ulim type,
			   unsigned int n, struct xrdma_ucharge *c);
unsigned int xrdma_user_count(struct xrdma_device *dev, kuid_t uid,
			      enum xrdma_ulim type);

int xrdma_hw_counters_init(struct xrdma_device *dev);	/* sysfs.c */
void xrdma_hw_counters_free(struct xrdma_device *dev);

#endif /* _XRDMA_CORE_PRIV_H */
