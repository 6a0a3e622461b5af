// SPDX-License-Identifier: GPL-2.0
/*
 * Resource tracking: one xarray per device and object type.
 *
 * Creation is two-phase.  xrdma_res_reserve() allocates the object's number
 * (QPN, CQN, MR index, ...) and stores a reserved entry that lookups do not
 * see; the driver's create callback runs with the number known; then
 * xrdma_res_commit() publishes the object or xrdma_res_abort() releases the
 * number.  xrdma_res_remove() unpublishes the object and waits until every
 * reference taken by a lookup is gone, so the caller may then tear it down;
 * objects nobody looks up by number (AHs) use xrdma_res_remove_nowait().
 *
 * The table lock is taken with interrupts saved, never just disabled and
 * re-enabled, so that AHs can be created and destroyed under a caller's
 * spinlock (XRDMA_AH_NOSLEEP).
 */
#include <linux/sched.h>
#include <linux/pid.h>
#include "core_priv.h"
#include "trace.h"

/* Numbers are 24 bits wide (QPN and MR index); QPN 0 and 1 are special. */
static const struct xa_limit res_limits[XRDMA_RES_MAX] = {
	[XRDMA_RES_PD]	= XA_LIMIT(1, 0xffffff),
	[XRDMA_RES_CQ]	= XA_LIMIT(1, 0xffffff),
	[XRDMA_RES_QP]	= XA_LIMIT(2, 0xffffff),
	[XRDMA_RES_SRQ]	= XA_LIMIT(1, 0xffffff),
	/* MRs and windows share the key space: half of it each */
	[XRDMA_RES_MR]	= XA_LIMIT(1, XRDMA_MW_INDEX_BASE - 1),
	[XRDMA_RES_MW]	= XA_LIMIT(1, XRDMA_MW_INDEX_BASE - 1),
	[XRDMA_RES_AH]	= XA_LIMIT(1, 0xffffff),
	[XRDMA_RES_XRCD] = XA_LIMIT(1, 0xffffff),
};

void xrdma_res_init_tables(struct xrdma_device *dev)
{
	int i;

	for (i = 0; i < XRDMA_RES_MAX; i++)
		xa_init_flags(&dev->res[i], XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
}

void xrdma_res_destroy_tables(struct xrdma_device *dev)
{
	int i;

	for (i = 0; i < XRDMA_RES_MAX; i++) {
		WARN_ON(!xa_empty(&dev->res[i]));
		xa_destroy(&dev->res[i]);
	}
}

static void xrdma_res_release(struct kref *ref)
{
	struct xrdma_res *res = container_of(ref, struct xrdma_res, ref);

	complete(&res->done);
}

static void xrdma_res_init(struct xrdma_device *dev, struct xrdma_res *res,
			   enum xrdma_res_type type)
{
	res->dev = dev;
	res->type = type;
	kref_init(&res->ref);
	init_completion(&res->done);
}

static void xrdma_res_set_owner(struct xrdma_res *res, const char *caller)
{
	if (caller)
		res->kern_name = caller;
	else
		res->pid = get_task_pid(current, PIDTYPE_TGID);
}

/**
 * xrdma_res_reserve - allocate an object number, invisible to lookups
 * @dev: device
 * @res: the object's tracking header
 * @type: object type
 * @caller: module name of a kernel owner, or NULL for the current process
 * @gfp: GFP_KERNEL, or GFP_ATOMIC from atomic context
 *
 * Numbers are handed out cyclically, so a number is not reused until the
 * space wraps.  Return: 0 or -ENOSPC/-ENOMEM.
 */
int xrdma_res_reserve(struct xrdma_device *dev, struct xrdma_res *res,
		      enum xrdma_res_type type, const char *caller, gfp_t gfp)
{
	struct xarray *xa = &dev->res[type];
	unsigned long flags;
	int ret;

	xrdma_res_init(dev, res, type);
	if (gfpflags_allow_blocking(gfp)) {
		ret = xa_alloc_cyclic_irq(xa, &res->id, XA_ZERO_ENTRY,
					  res_limits[type], &dev->res_next[type],
					  gfp);
	} else {
		xa_lock_irqsave(xa, flags);
		ret = __xa_alloc_cyclic(xa, &res->id, XA_ZERO_ENTRY,
					res_limits[type], &dev->res_next[type],
					gfp);
		xa_unlock_irqrestore(xa, flags);
	}
	if (ret < 0)
		return ret;
	xrdma_res_set_owner(res, caller);
	return 0;
}

/**
 * xrdma_res_reserve_id - reserve a given number, invisible to lookups
 * @dev: device
 * @res: the object's tracking header
 * @type: object type
 * @id: the number (outside the range xrdma_res_reserve() hands out)
 * @caller: module name of a kernel owner, or NULL for the current process
 *
 * For the special QPs, whose numbers are fixed.  May sleep.
 * Return: 0, -EBUSY if @id is taken, or -ENOMEM.
 */
int xrdma_res_reserve_id(struct xrdma_device *dev, struct xrdma_res *res,
			 enum xrdma_res_type type, u32 id, const char *caller)
{
	int ret;

	xrdma_res_init(dev, res, type);
	res->id = id;
	/* a NULL entry inserted into an allocating xarray is a reservation */
	ret = xa_insert_irq(&dev->res[type], id, NULL, GFP_KERNEL);
	if (ret)
		return ret;
	xrdma_res_set_owner(res, caller);
	return 0;
}

/**
 * xrdma_res_commit - make a reserved object visible to lookups
 * @res: a reserved object whose creation succeeded
 *
 * Callable from any context.
 */
void xrdma_res_commit(struct xrdma_res *res)
{
	struct xarray *xa = &res->dev->res[res->type];
	unsigned long flags;
	void *old;

	xa_lock_irqsave(xa, flags);
	/* the slot exists already: storing into it allocates nothing */
	old = __xa_store(xa, res->id, res, GFP_ATOMIC);
	xa_unlock_irqrestore(xa, flags);
	WARN_ON(old);
	trace_xrdma_res_add(res);
}

static void xrdma_res_release_owner(struct xrdma_res *res)
{
	put_pid(res->pid);
	res->pid = NULL;
	res->kern_name = NULL;
}

static void xrdma_res_erase(struct xrdma_res *res)
{
	struct xarray *xa = &res->dev->res[res->type];
	unsigned long flags;

	xa_lock_irqsave(xa, flags);
	__xa_erase(xa, res->id);
	xa_unlock_irqrestore(xa, flags);
}

/**
 * xrdma_res_abort - release the number of an object whose creation failed
 * @res: a reserved, never committed object
 *
 * Callable from any context for a kernel owner's object.
 */
void xrdma_res_abort(struct xrdma_res *res)
{
	xrdma_res_erase(res);
	xrdma_res_release_owner(res);
}

/**
 * xrdma_res_remove - unpublish an object and wait for its lookups to end
 * @res: a committed object
 *
 * May sleep.  After it returns no lookup can find or still use @res.
 */
void xrdma_res_remove(struct xrdma_res *res)
{
	trace_xrdma_res_del(res);
	xrdma_res_erase(res);
	kref_put(&res->ref, xrdma_res_release);
	wait_for_completion(&res->done);
	xrdma_res_release_owner(res);
}

/**
 * xrdma_res_remove_nowait - unpublish an object nobody looks up by number
 * @res: a committed object of a type no lookup function exists for (AH)
 *
 * Callable from any context for a kernel owner's object: there is no
 * lookup reference to wait for.
 */
void xrdma_res_remove_nowait(struct xrdma_res *res)
{
	trace_xrdma_res_del(res);
	xrdma_res_erase(res);
	WARN_ON(!kref_put(&res->ref, xrdma_res_release));
	xrdma_res_release_owner(res);
}

/**
 * xrdma_res_get - find a live object by number and take a reference
 * @dev: device
 * @type: object type
 * @id: object number
 *
 * Callable from any context, hard interrupts included.  Return: the object or NULL.
 */
struct xrdma_res *xrdma_res_get(struct xrdma_device *dev,
				enum xrdma_res_type type, u32 id)
{
	struct xrdma_res *res;
	unsigned long flags;

	xa_lock_irqsave(&dev->res[type], flags);
	res = xa_load(&dev->res[type], id);
	if (res && !kref_get_unless_zero(&res->ref))
		res = NULL;
	xa_unlock_irqrestore(&dev->res[type], flags);
	return res;
}

void xrdma_res_put(struct xrdma_res *res)
{
	kref_put(&res->ref, xrdma_res_release);
}

/**
 * xrdma_res_count - number of live (committed) objects of a type
 * @dev: device
 * @type: object type
 *
 * Return: the number of committed objects of @type on @dev.
 */
unsigned int xrdma_res_count(struct xrdma_device *dev,
			     enum xrdma_res_type type)
{
	struct xrdma_res *res;
	unsigned long index;
	unsigned int n = 0;

	xa_lock_irq(&dev->res[type]);
	xa_for_each(&dev->res[type], index, res)
		n++;
	xa_unlock_irq(&dev->res[type]);
	return n;
}
EXPORT_SYMBOL_GPL(xrdma_res_count);

/**
 * xrdma_qp_get_by_num - find a live QP by number and take a reference
 * @dev: device
 * @qpn: QP number
 *
 * Callable from any context, hard interrupts included.  Drop the reference
 * with xrdma_qp_put(); xrdma_destroy_qp() waits for that.
 *
 * Return: the QP, or NULL if no committed QP @qpn exists on @dev.
 */
struct xrdma_qp *xrdma_qp_get_by_num(struct xrdma_device *dev, u32 qpn)
{
	struct xrdma_res *res = xrdma_res_get(dev, XRDMA_RES_QP, qpn);

	return res ? container_of(res, struct xrdma_qp, res) : NULL;
}
EXPORT_SYMBOL_GPL(xrdma_qp_get_by_num);

/**
 * xrdma_cq_get_by_num - find a live CQ by number and take a reference
 * @dev: device
 * @cqn: CQ number
 *
 * Callable from any context, hard interrupts included.  Drop the reference
 * with xrdma_cq_put(); xrdma_destroy_cq() waits for that.
 *
 * Return: the CQ, or NULL if no committed CQ @cqn exists on @dev.
 */
struct xrdma_cq *xrdma_cq_get_by_num(struct xrdma_device *dev, u32 cqn)
{
	struct xrdma_res *res = xrdma_res_get(dev, XRDMA_RES_CQ, cqn);

	return res ? container_of(res, struct xrdma_cq, res) : NULL;
}
EXPORT_SYMBOL_GPL(xrdma_cq_get_by_num);

/**
 * xrdma_cq_put - drop a reference taken by xrdma_cq_get_by_num()
 * @cq: the CQ
 *
 * Callable from any context.
 */
void xrdma_cq_put(struct xrdma_cq *cq)
{
	xrdma_res_put(&cq->res);
}
EXPORT_SYMBOL_GPL(xrdma_cq_put);

/**
 * xrdma_qp_put - drop a reference taken by xrdma_qp_get_by_num()
 * @qp: the QP
 *
 * Callable from any context.
 */
void xrdma_qp_put(struct xrdma_qp *qp)
{
	xrdma_res_put(&qp->res);
}
EXPORT_SYMBOL_GPL(xrdma_qp_put);

/**
 * xrdma_mr_get_by_key - find a live MR by lkey or rkey
 * @dev: device
 * @key: the key; its index selects the MR and the whole key must match
 *
 * A stale key (an older tag for the same index) finds nothing.
 * Return: the MR with a reference held, or NULL.
 */
struct xrdma_mr *xrdma_mr_get_by_key(struct xrdma_device *dev, u32 key)
{
	struct xrdma_res *res = xrdma_res_get(dev, XRDMA_RES_MR, key >> 8);
	struct xrdma_mr *mr;

	if (!res)
		return NULL;
	mr = container_of(res, struct xrdma_mr, res);
	if (READ_ONCE(mr->lkey) != key && READ_ONCE(mr->rkey) != key) {
		xrdma_res_put(res);
		return NULL;
	}
	return mr;
}
EXPORT_SYMBOL_GPL(xrdma_mr_get_by_key);

/**
 * xrdma_mr_put - drop a reference taken by xrdma_mr_get_by_key()
 * @mr: the MR
 *
 * Callable from any context.
 */
void xrdma_mr_put(struct xrdma_mr *mr)
{
	xrdma_res_put(&mr->res);
}
EXPORT_SYMBOL_GPL(xrdma_mr_put);
