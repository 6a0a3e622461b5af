// SPDX-License-Identifier: GPL-2.0
/*
 * XRC domains and the sharing of XRC_TGT QPs (Documentation/core.rst,
 * "XRC"), after ib_core's ib_alloc_xrcd_user(), ib_open_qp(),
 * __ib_destroy_shared_qp() and __ib_shared_qp_event_handler().
 *
 * A domain holds XRC SRQs and XRC_TGT QPs; each holds a use of it, so it
 * cannot be freed while one exists (-EBUSY).  An XRC_TGT QP is found in
 * its domain by number (xrcd->tgt_qps) and shared by handles: its creator
 * and every xrdma_open_qp() count in qp->open_cnt, each gets the QP's
 * async events with its own context, and the QP is destroyed when the
 * last of them closes (xrdma_destroy_qp() for the creator,
 * xrdma_close_qp() for the others).  xrcd->tgt_lock serialises the table
 * with the counts, so an open never finds a QP whose last handle is going.
 */
#include <linux/slab.h>
#include "core_priv.h"

/**
 * __xrdma_alloc_xrcd - allocate an XRC domain
 * @dev: device
 * @caller: owner's module name (the xrdma_alloc_xrcd() macro passes it),
 *	    or NULL for the current process (uverbs: charged to it)
 *
 * Return: the domain or an ERR_PTR: -EOPNOTSUPP for a device without
 * XRDMA_DEVICE_XRC, -ENODEV if @dev is going away, -EAGAIN (the process's
 * share), -ENOMEM, -ENOSPC or the driver's error.
 */
struct xrdma_xrcd *__xrdma_alloc_xrcd(struct xrdma_device *dev,
				      const char *caller)
{
	struct xrdma_xrcd *xrcd;
	int ret;

	if (!(dev->attr.device_cap_flags & XRDMA_DEVICE_XRC) ||
	    !dev->ops->alloc_xrcd || !dev->ops->dealloc_xrcd)
		return ERR_PTR(-EOPNOTSUPP);
	xrcd = xrdma_obj_alloc(dev, sizeof(*xrcd), XRDMA_RES_XRCD, caller);
	if (IS_ERR(xrcd))
		return xrcd;
	xrcd->device = dev;
	atomic_set(&xrcd->usecnt, 1);
	xa_init(&xrcd->tgt_qps);
	mutex_init(&xrcd->tgt_lock);
	ret = dev->ops->alloc_xrcd(xrcd);
	if (ret) {
		mutex_destroy(&xrcd->tgt_lock);
		xrdma_obj_abort(&xrcd->res);
		return ERR_PTR(ret);
	}
	xrdma_res_commit(&xrcd->res);
	return xrcd;
}
EXPORT_SYMBOL_GPL(__xrdma_alloc_xrcd);

/**
 * xrdma_dealloc_xrcd - free an XRC domain
 * @xrcd: the domain
 *
 * Return: 0, or -EBUSY (nothing changes) while an XRC SRQ or an XRC_TGT
 * QP is in it.
 */
int xrdma_dealloc_xrcd(struct xrdma_xrcd *xrcd)
{
	if (!xrdma_use_kill(&xrcd->usecnt))
		return -EBUSY;
	/* every XRC_TGT QP holds a use: none is left */
	WARN_ON(!xa_empty(&xrcd->tgt_qps));
	xrdma_res_remove(&xrcd->res);
	xrcd->device->ops->dealloc_xrcd(xrcd);
	xa_destroy(&xrcd->tgt_qps);
	mutex_destroy(&xrcd->tgt_lock);
	xrdma_obj_free(&xrcd->res);
	return 0;
}
EXPORT_SYMBOL_GPL(xrdma_dealloc_xrcd);

/**
 * xrdma_xrcd_charge_handle - charge a process's handle on a domain
 * @xrcd: a domain of a process (__xrdma_alloc_xrcd() with no caller)
 * @c: the handle's charge, empty; xrdma_xrcd_uncharge_handle() undoes it
 * @creator: the handle of the process that allocated @xrcd: the domain's
 *	     own charge moves to @c (nothing new is charged); otherwise the
 *	     calling process is charged one XRCD for its handle
 *
 * So a domain that several processes hold is charged to each of them for
 * its handle, and to nobody once nobody holds it: a member that keeps the
 * domain alive does not keep it on its creator's share.
 *
 * Return: 0, or for a member's handle -EAGAIN (its rdma cgroup or uid
 * share) or -ENOMEM.
 */
int xrdma_xrcd_charge_handle(struct xrdma_xrcd *xrcd,
			     struct xrdma_ucharge *c, bool creator)
{
	if (!creator)
		return xrdma_user_charge(xrcd->device, XRDMA_ULIM_XRCD, c);
	*c = xrcd->res.charge;
	memset(&xrcd->res.charge, 0, sizeof(xrcd->res.charge));
	return 0;
}
EXPORT_SYMBOL_GPL(xrdma_xrcd_charge_handle);

/**
 * xrdma_xrcd_uncharge_handle - undo xrdma_xrcd_charge_handle()
 * @dev: the domain's device (the domain may be gone)
 * @c: the handle's charge; cleared
 */
void xrdma_xrcd_uncharge_handle(struct xrdma_device *dev,
				struct xrdma_ucharge *c)
{
	xrdma_user_uncharge(dev, XRDMA_ULIM_XRCD, c);
}
EXPORT_SYMBOL_GPL(xrdma_xrcd_uncharge_handle);

/* A new XRC_TGT QP, created and committed: OPEN_QP may find it now. */
int xrdma_tgt_qp_publish(struct xrdma_qp *qp)
{
	struct xrdma_xrcd *xrcd = qp->xrcd;
	int ret;

	mutex_lock(&xrcd->tgt_lock);
	ret = xa_err(xa_store(&xrcd->tgt_qps, qp->qp_num, qp, GFP_KERNEL));
	mutex_unlock(&xrcd->tgt_lock);
	return ret;
}

/*
 * Close one handle of an XRC_TGT QP: @open, or the creator's (NULL).  Its
 * event handler is not running and gets no further events once this
 * returns.  The last handle destroys the QP.
 */
int xrdma_tgt_qp_close(struct xrdma_qp *qp, struct xrdma_qp_open *open)
{
	struct xrdma_xrcd *xrcd = qp->xrcd;
	unsigned long flags;
	bool last;

	/*
	 * The QP's own charge is its creator's handle's: it goes with that
	 * handle, not with the QP, which opened handles may keep alive
	 * (each of those is charged to its holder, __xrdma_open_qp()).
	 */
	if (!open)
		xrdma_user_uncharge(qp->device, XRDMA_ULIM_QP, &qp->res.charge);
	mutex_lock(&xrcd->tgt_lock);
	spin_lock_irqsave(&qp->open_lock, flags);
	if (open) {
		list_del(&open->node);
	} else {
		qp->event_handler = NULL;
		qp->qp_context = NULL;
	}
	spin_unlock_irqrestore(&qp->open_lock, flags);
	last = atomic_dec_and_test(&qp->open_cnt);
	if (last)
		xa_erase(&xrcd->tgt_qps, qp->qp_num);
	mutex_unlock(&xrcd->tgt_lock);
	if (open) {
		xrdma_user_uncharge(qp->device, XRDMA_ULIM_QP, &open->charge);
		kfree(open);
	}
	if (last)
		xrdma_qp_teardown(qp);
	return 0;
}

/**
 * __xrdma_open_qp - another handle on an XRC_TGT QP of a domain
 * @xrcd: the domain (the caller holds it)
 * @attr: the QP's number and type, the handle's event handler and context
 * @caller: owner's module name (the xrdma_open_qp() macro passes it), or
 *	    NULL for the current process: the handle is charged to it as a
 *	    QP (rdma cgroup, uid share), as Linux charges every handle
 *
 * The handle gets every async event of the QP, as the creator and every
 * other handle do; open->qp may be modified and queried.  The QP lives
 * until its last handle is closed (xrdma_close_qp(), xrdma_destroy_qp()
 * for the creator's).
 *
 * Return: the handle or an ERR_PTR: -EINVAL for a type other than
 * XRDMA_QPT_XRC_TGT, -ENOENT if @xrcd has no such QP, -EAGAIN (the
 * process's share), -ENOMEM.
 */
struct xrdma_qp_open *__xrdma_open_qp(struct xrdma_xrcd *xrcd,
				      const struct xrdma_qp_open_attr *attr,
				      const char *caller)
{
	struct xrdma_qp_open *open;
	struct xrdma_qp *qp;
	unsigned long flags;
	int ret;

	if (attr->qp_type != XRDMA_QPT_XRC_TGT)
		return ERR_PTR(-EINVAL);
	open = kzalloc(sizeof(*open), caller ? GFP_KERNEL : GFP_KERNEL_ACCOUNT);
	if (!open)
		return ERR_PTR(-ENOMEM);
	open->event_handler = attr->event_handler;
	open->qp_context = attr->qp_context;
	if (!caller) {
		ret = xrdma_user_charge(xrcd->device, XRDMA_ULIM_QP,
					&open->charge);
		if (ret) {
			kfree(open);
			return ERR_PTR(ret);
		}
	}
	mutex_lock(&xrcd->tgt_lock);
	qp = xa_load(&xrcd->tgt_qps, attr->qp_num);
	if (!qp) {
		mutex_unlock(&xrcd->tgt_lock);
		xrdma_user_uncharge(xrcd->device, XRDMA_ULIM_QP, &open->charge);
		kfree(open);
		return ERR_PTR(-ENOENT);
	}
	atomic_inc(&qp->open_cnt);
	open->qp = qp;
	spin_lock_irqsave(&qp->open_lock, flags);
	list_add_tail(&open->node, &qp->open_list);
	spin_unlock_irqrestore(&qp->open_lock, flags);
	mutex_unlock(&xrcd->tgt_lock);
	return open;
}
EXPORT_SYMBOL_GPL(__xrdma_open_qp);

/**
 * xrdma_close_qp - close a handle from xrdma_open_qp()
 * @open: the handle; freed
 *
 * The handle's event handler is not running and gets no further events
 * once this returns.  The QP is destroyed if this was its last handle.
 *
 * Return: 0.
 */
int xrdma_close_qp(struct xrdma_qp_open *open)
{
	return xrdma_tgt_qp_close(open->qp, open);
}
EXPORT_SYMBOL_GPL(xrdma_close_qp);

/*
 * An async event of an XRC_TGT QP goes to every handle: the creator's (if
 * it has not closed) and each opened one, with its own context.  Any
 * context: the handlers must not sleep.
 */
void xrdma_tgt_qp_event(struct xrdma_event *e)
{
	struct xrdma_qp *qp = e->element.qp;
	struct xrdma_qp_open *open;
	unsigned long flags;

	spin_lock_irqsave(&qp->open_lock, flags);
	if (qp->event_handler)
		qp->event_handler(e, qp->qp_context);
	list_for_each_entry(open, &qp->open_list, node)
		if (open->event_handler)
			open->event_handler(e, open->qp_context);
	spin_unlock_irqrestore(&qp->open_lock, flags);
}
