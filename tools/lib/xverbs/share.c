// SPDX-License-Identifier: GPL-2.0
/*
 * xverbs: sharing a context between processes, and PDs of every kind.
 *
 * Import (rdma-core's ibv_import_device/_pd/_mr): a process given the
 * command fd of another's context (SCM_RIGHTS, or inherited) joins it with
 * the IMPORT_CONTEXT ioctl, which answers what GET_CONTEXT did, and gets
 * an async event fd of its own.  The fd then belongs to the new context
 * (ibv_close_device closes it, as rdma-core).  ibv_import_pd/_mr look the
 * object up by handle (QUERY_OBJECT); ibv_unimport_* only free the
 * library's structure: the object stays the context's.
 *
 * Parent domains (ibv_alloc_parent_domain, as rdma-core's mlx5): an ibv_pd
 * naming a protection domain (its handle is the PD's, so every call that
 * takes a PD takes it), optionally a thread domain and an allocator.  The
 * allocator is asked for the memory this library allocates per queue --
 * the wr_id arrays of a QP's send and receive queues and of an SRQ; the
 * rings themselves are kernel memory mapped from the device and cannot
 * come from it.  IBV_ALLOCATOR_USE_DEFAULT from alloc means "allocate it
 * yourself".  Reference counts as mlx5: a PD counts its parent domains
 * (dealloc EBUSY), a thread domain its parent domains (EBUSY), a parent
 * domain the QPs, SRQs and CQs created on it (EBUSY).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "xverbs.h"

/* the reference counts: int, atomic (mlx5's are atomic_int) */
static int xv_ref_read(int *r)
{
	return __atomic_load_n(r, __ATOMIC_SEQ_CST);
}

static void xv_ref_add(int *r, int v)
{
	__atomic_add_fetch(r, v, __ATOMIC_SEQ_CST);
}

/* ------------------------------------------------------------ import */

/* the device of a character device number, from a fresh list */
static struct xv_device *xv_device_by_rdev(dev_t rdev)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct xv_device *found = NULL;
	unsigned int maj, min;
	char buf[32];
	int i;

	if (!list)
		return NULL;
	for (i = 0; list[i] && !found; i++) {
		if (ibv_read_sysfs_file(list[i]->dev_path, "dev", buf,
					sizeof(buf)) <= 0 ||
		    sscanf(buf, "%u:%u", &maj, &min) != 2)
			continue;
		if (makedev(maj, min) == rdev)
			found = (struct xv_device *)list[i];
	}
	ibv_free_device_list(list);	/* the devices themselves stay */
	return found;
}

struct ibv_context *ibv_import_device(int cmd_fd)
{
	struct xv_device *dev;
	struct stat st;

	if (fstat(cmd_fd, &st) || !S_ISCHR(st.st_mode)) {
		errno = EINVAL;
		return NULL;
	}
	dev = xv_device_by_rdev(st.st_rdev);
	if (!dev) {
		errno = ENODEV;
		return NULL;
	}
	/* on failure the fd stays the caller's */
	return xv_open_fd(dev, cmd_fd, true);
}

static int xv_query_object(struct ibv_context *ctx, uint32_t type,
			   uint32_t handle, struct xrdma_cmd_query_object *q)
{
	memset(q, 0, sizeof(*q));
	q->type = type;
	q->handle = handle;
	return xv_ioctl(ctx, XRDMA_IOC_QUERY_OBJECT, q);
}

static struct xv_pd *xv_pd_new(struct ibv_context *ctx, uint32_t handle)
{
	struct xv_pd *pd = calloc(1, sizeof(*pd));

	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	pd->ibpd.context = ctx;
	pd->ibpd.handle = handle;
	pd->refcount = 1;
	return pd;
}

struct ibv_pd *ibv_import_pd(struct ibv_context *ctx, uint32_t pd_handle)
{
	struct xrdma_cmd_query_object q;
	struct xv_pd *pd;

	errno = xv_query_object(ctx, XRDMA_OBJ_PD, pd_handle, &q);
	if (errno)
		return NULL;
	pd = xv_pd_new(ctx, pd_handle);
	return pd ? &pd->ibpd : NULL;
}

/* as mlx5: a parent domain, or a PD parent domains use, stays */
void ibv_unimport_pd(struct ibv_pd *ibpd)
{
	struct xv_pd *pd = to_xpd(ibpd);

	if (pd->protection || xv_ref_read(&pd->refcount) > 1)
		return;
	free(pd);
}

/*
 * The MR's keys, iova and length from the kernel.  rdma-core leaves addr
 * NULL (the MR's address is the exporter's); ours is the MR's iova, the
 * address a peer names in RDMA to it.  An MR of another PD than @pd is
 * EINVAL (rdma-core does not check).
 */
struct ibv_mr *ibv_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	struct xrdma_cmd_query_object q;
	struct ibv_mr *mr;

	errno = xv_query_object(pd->context, XRDMA_OBJ_MR, mr_handle, &q);
	if (errno)
		return NULL;
	if (q.pd_handle != pd->handle) {
		errno = EINVAL;
		return NULL;
	}
	mr = calloc(1, sizeof(*mr));
	if (!mr) {
		errno = ENOMEM;
		return NULL;
	}
	xv_mr_set(mr, pd, (void *)(uintptr_t)q.iova, q.length, mr_handle,
		  q.lkey, q.rkey);
	return mr;
}

void ibv_unimport_mr(struct ibv_mr *mr)
{
	free(mr);
}

/* ------------------------------------------------------------ PDs */

struct ibv_pd *ibv_alloc_pd(struct ibv_context *ctx)
{
	struct xrdma_cmd_alloc_pd c = { 0 };
	struct xv_pd *pd;

	errno = xv_ioctl(ctx, XRDMA_IOC_ALLOC_PD, &c);
	if (errno)
		return NULL;
	pd = xv_pd_new(ctx, c.pd_handle);
	if (!pd) {
		xv_destroy_obj(ctx, XRDMA_OBJ_PD, c.pd_handle, NULL);
		errno = ENOMEM;
		return NULL;
	}
	return &pd->ibpd;
}

/* the parent domain @pd is, or NULL for a protection domain */
struct xv_pd *xv_parent_domain(struct ibv_pd *pd)
{
	return pd && to_xpd(pd)->protection ? to_xpd(pd) : NULL;
}

/* a QP, SRQ or CQ uses the parent domain @pd (no-op for a PD) */
void xv_pd_get(struct ibv_pd *pd)
{
	if (xv_parent_domain(pd))
		xv_ref_add(&to_xpd(pd)->refcount, 1);
}

void xv_pd_put(struct ibv_pd *pd)
{
	if (xv_parent_domain(pd))
		xv_ref_add(&to_xpd(pd)->refcount, -1);
}

/* a parent domain with a thread domain: its queues need no locks */
bool xv_pd_single_threaded(struct ibv_pd *pd)
{
	struct xv_pd *par = xv_parent_domain(pd);

	return par && par->td;
}

int ibv_dealloc_pd(struct ibv_pd *ibpd)
{
	struct xv_pd *pd = to_xpd(ibpd);
	int ret;

	if (xv_ref_read(&pd->refcount) > 1)
		return EBUSY;
	if (pd->protection) {
		xv_ref_add(&pd->protection->refcount, -1);
		if (pd->td)
			xv_ref_add(&pd->td->refcount, -1);
		free(pd);
		return 0;
	}
	ret = xv_destroy_obj(ibpd->context, XRDMA_OBJ_PD, ibpd->handle, NULL);
	if (!ret)
		free(pd);
	return ret;
}

/* ------------------------------------------------------------ domains */

static struct ibv_td *xv_alloc_td(struct ibv_context *ctx,
				  struct ibv_td_init_attr *init_attr)
{
	struct xv_td *td;

	if (!init_attr || init_attr->comp_mask) {
		errno = EINVAL;
		return NULL;
	}
	td = calloc(1, sizeof(*td));
	if (!td) {
		errno = ENOMEM;
		return NULL;
	}
	td->ibtd.context = ctx;
	td->refcount = 1;
	return &td->ibtd;
}

static int xv_dealloc_td(struct ibv_td *ibtd)
{
	struct xv_td *td = xv_container_of(ibtd, struct xv_td, ibtd);

	if (xv_ref_read(&td->refcount) > 1)
		return EBUSY;
	free(td);
	return 0;
}

#define XV_PD_INIT_MASK (IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS | \
			 IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)

/*
 * As mlx5: a PD is needed, comp_mask bits beyond ALLOCATORS and PD_CONTEXT
 * are EINVAL, a parent domain given as the PD stands for its PD.  Ours
 * also refuses a PD or TD of another context, and ALLOCATORS without both
 * functions (EINVAL): mlx5 would call a NULL pointer.
 */
static struct ibv_pd *
xv_alloc_parent_domain(struct ibv_context *ctx,
		       struct ibv_parent_domain_init_attr *attr)
{
	struct xv_pd *pd, *prot;

	if (!attr || !attr->pd || attr->comp_mask & ~(uint32_t)XV_PD_INIT_MASK ||
	    attr->pd->context != ctx ||
	    (attr->td && attr->td->context != ctx) ||
	    ((attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) &&
	     (!attr->alloc || !attr->free))) {
		errno = EINVAL;
		return NULL;
	}
	prot = to_xpd(attr->pd);
	if (prot->protection)
		prot = prot->protection;
	pd = xv_pd_new(ctx, prot->ibpd.handle);
	if (!pd)
		return NULL;
	pd->protection = prot;
	xv_ref_add(&prot->refcount, 1);
	if (attr->td) {
		pd->td = xv_container_of(attr->td, struct xv_td, ibtd);
		xv_ref_add(&pd->td->refcount, 1);
	}
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) {
		pd->alloc = attr->alloc;
		pd->free = attr->free;
	}
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)
		pd->pd_context = attr->pd_context;
	return &pd->ibpd;
}

/*
 * A queue's wr_id array: from the parent domain's allocator when it has
 * one and does not answer IBV_ALLOCATOR_USE_DEFAULT (NULL: ENOMEM), else
 * calloc.  Zeroed either way.
 */
int xv_wrid_alloc(struct ibv_pd *ibpd, struct xv_wq *wq, uint64_t type)
{
	struct xv_pd *pd = xv_parent_domain(ibpd);
	size_t size = ((size_t)1 << wq->log) * sizeof(*wq->wrid);
	void *p;

	wq->wrid_custom = false;
	if (pd && pd->alloc) {
		p = pd->alloc(ibpd, pd->pd_context, size, sizeof(uint64_t),
			      type);
		if (!p)
			return ENOMEM;
		if (p != IBV_ALLOCATOR_USE_DEFAULT) {
			memset(p, 0, size);
			wq->wrid = p;
			wq->wrid_custom = true;
			return 0;
		}
	}
	wq->wrid = calloc(1, size);
	return wq->wrid ? 0 : ENOMEM;
}

void xv_wrid_free(struct ibv_pd *ibpd, struct xv_wq *wq, uint64_t type)
{
	struct xv_pd *pd = to_xpd(ibpd);

	if (!wq->wrid)
		return;
	if (wq->wrid_custom)
		pd->free(ibpd, pd->pd_context, wq->wrid, type);
	else
		free(wq->wrid);
	wq->wrid = NULL;
}

void xv_share_set_ops(struct verbs_context *v)
{
	v->alloc_td = xv_alloc_td;
	v->dealloc_td = xv_dealloc_td;
	v->alloc_parent_domain = xv_alloc_parent_domain;
}
