// SPDX-License-Identifier: GPL-2.0
/*
 * The SRQ verbs: create (with an XRC SRQ's domain and CQ), modify, query
 * and destroy.  Use counts and object allocation are verbs.c's.
 */
#include <linux/slab.h>
#include "core_priv.h"

static int xrdma_check_srq_attr(struct xrdma_device *dev,
				const struct xrdma_srq_attr *attr)
{
	if (!attr->max_wr || attr->max_wr > dev->attr.max_srq_wr ||
	    !attr->max_sge || attr->max_sge > dev->attr.max_srq_sge ||
	    attr->srq_limit > attr->max_wr)
		return -EINVAL;
	return 0;
}

/* The type and, for an XRC SRQ, its domain and CQ (as ib_core's). */
static int xrdma_check_srq_type(struct xrdma_device *dev,
				const struct xrdma_srq_init_attr *attr)
{
	switch (attr->srq_type) {
	case XRDMA_SRQT_BASIC:
		return attr->xrcd || attr->cq ? -EINVAL : 0;
	case XRDMA_SRQT_XRC:
		if (!(dev->attr.device_cap_flags & XRDMA_DEVICE_XRC))
			return -EOPNOTSUPP;
		if (!attr->xrcd || !attr->cq || attr->xrcd->device != dev ||
		    attr->cq->device != dev)
			return -EINVAL;
		return 0;
	default:
		return -EINVAL;
	}
}

/* The uses an SRQ holds besides its PD's: an XRC SRQ's domain and CQ. */
static int xrdma_srq_get_deps(struct xrdma_srq_init_attr *attr)
{
	if (attr->srq_type != XRDMA_SRQT_XRC)
		return 0;
	if (!xrdma_use_get(&attr->xrcd->usecnt))
		return -EINVAL;
	if (!xrdma_use_get(&attr->cq->usecnt)) {
		xrdma_use_put(&attr->xrcd->usecnt);
		return -EINVAL;
	}
	return 0;
}

static void xrdma_srq_put_deps(struct xrdma_xrcd *xrcd, struct xrdma_cq *cq)
{
	if (cq)
		xrdma_use_put(&cq->usecnt);
	if (xrcd)
		xrdma_use_put(&xrcd->usecnt);
}

/**
 * __xrdma_create_srq - create a shared receive queue
 * @pd: protection domain
 * @attr: handler, context and sizes (max_wr, max_sge within the device's
 *	  limits; srq_limit <= max_wr); the type, and for an XRC SRQ its
 *	  domain and the CQ its receives complete to (both of the device)
 * @caller: owner's module name
 * @udata: driver data of a user command, NULL for kernel callers
 *
 * srq->srq_num is the SRQ's number (the driver's), which XRC senders name.
 * An XRC SRQ holds a use of its domain and of its CQ.
 *
 * Return: the SRQ, or an ERR_PTR: -EOPNOTSUPP if the device has no SRQs
 * (or no XRC for an XRC SRQ), -EINVAL for bad sizes, an unknown type, an
 * XRC SRQ without domain or CQ (or a basic one with either), or another
 * negative errno (allocation, driver).
 */
struct xrdma_srq *__xrdma_create_srq(struct xrdma_pd *pd,
				     struct xrdma_srq_init_attr *attr,
				     const char *caller,
				     struct xrdma_udata *udata)
{
	struct xrdma_device *dev = pd->device;
	struct xrdma_srq *srq;
	int ret;

	if (!dev->ops->create_srq)
		return ERR_PTR(-EOPNOTSUPP);
	ret = xrdma_check_srq_type(dev, attr);
	if (ret)
		return ERR_PTR(ret);
	ret = xrdma_check_srq_attr(dev, &attr->attr);
	if (ret)
		return ERR_PTR(ret);
	if (!xrdma_use_get(&pd->usecnt))
		return ERR_PTR(-EINVAL);
	ret = xrdma_srq_get_deps(attr);
	if (ret)
		goto err_pd;
	srq = xrdma_obj_alloc(dev, dev->ops->size_srq, XRDMA_RES_SRQ, caller);
	if (IS_ERR(srq)) {
		ret = PTR_ERR(srq);
		goto err_deps;
	}
	srq->device = dev;
	srq->pd = pd;
	srq->event_handler = attr->event_handler;
	srq->srq_context = attr->srq_context;
	srq->srq_type = attr->srq_type;
	if (attr->srq_type == XRDMA_SRQT_XRC) {
		srq->xrcd = attr->xrcd;
		srq->cq = attr->cq;
	}
	atomic_set(&srq->usecnt, 1);
	ret = dev->ops->create_srq(srq, attr, udata);
	if (ret) {
		xrdma_obj_abort(&srq->res);
		goto err_deps;
	}
	xrdma_res_commit(&srq->res);
	return srq;

err_deps:
	if (attr->srq_type == XRDMA_SRQT_XRC)
		xrdma_srq_put_deps(attr->xrcd, attr->cq);
err_pd:
	xrdma_use_put(&pd->usecnt);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(__xrdma_create_srq);

/**
 * __xrdma_modify_srq - resize an SRQ or arm its limit event
 * @srq: the SRQ
 * @attr: new values
 * @mask: XRDMA_SRQ_MAX_WR and/or XRDMA_SRQ_LIMIT
 * @udata: driver data of a user command, NULL for kernel callers
 *
 * Return: 0; -EINVAL for a bad @mask or size, or a resize the device does
 * not support; -EOPNOTSUPP; or the driver's error.
 */
int __xrdma_modify_srq(struct xrdma_srq *srq, struct xrdma_srq_attr *attr,
		       u32 mask, struct xrdma_udata *udata)
{
	struct xrdma_device *dev = srq->device;

	if (!mask || mask & ~(XRDMA_SRQ_MAX_WR | XRDMA_SRQ_LIMIT))
		return -EINVAL;
	if (mask & XRDMA_SRQ_MAX_WR &&
	    (!(dev->attr.device_cap_flags & XRDMA_DEVICE_SRQ_RESIZE) ||
	     !attr->max_wr || attr->max_wr > dev->attr.max_srq_wr))
		return -EINVAL;
	if (!dev->ops->modify_srq)
		return -EOPNOTSUPP;
	return dev->ops->modify_srq(srq, attr, mask, udata);
}
EXPORT_SYMBOL_GPL(__xrdma_modify_srq);

/**
 * xrdma_query_srq - read an SRQ's attributes
 * @srq: the SRQ
 * @attr: filled in by the driver
 *
 * Return: 0, -EOPNOTSUPP if the driver cannot query SRQs, or the driver's
 * error.
 */
int xrdma_query_srq(struct xrdma_srq *srq, struct xrdma_srq_attr *attr)
{
	if (!srq->device->ops->query_srq)
		return -EOPNOTSUPP;
	return srq->device->ops->query_srq(srq, attr);
}
EXPORT_SYMBOL_GPL(xrdma_query_srq);

/**
 * xrdma_destroy_srq - destroy a shared receive queue
 * @srq: the SRQ
 *
 * Return: 0, or -EBUSY while a QP is attached to @srq.
 */
int xrdma_destroy_srq(struct xrdma_srq *srq)
{
	struct xrdma_xrcd *xrcd = srq->xrcd;
	struct xrdma_pd *pd = srq->pd;
	struct xrdma_cq *cq = srq->cq;

	if (!xrdma_use_kill(&srq->usecnt))
		return -EBUSY;
	xrdma_res_remove(&srq->res);
	srq->device->ops->destroy_srq(srq);
	xrdma_obj_free(&srq->res);
	xrdma_srq_put_deps(xrcd, cq);
	xrdma_use_put(&pd->usecnt);
	return 0;
}
EXPORT_SYMBOL_GPL(xrdma_destroy_srq);

