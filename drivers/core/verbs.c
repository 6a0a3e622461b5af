// SPDX-License-Identifier: GPL-2.0
/*
 * The verbs: object creation and destruction with their dependency rules.
 *
 * Every object holds a user reference on its device and a use count on
 * each object it depends on.  Use counts start at one while the object
 * lives; destroy succeeds only by moving the count from one to zero
 * (xrdma_use_kill), and a dependent takes a use only while the count is
 * not zero (xrdma_use_get), so "destroy while in use" gives -EBUSY and
 * "create on a dying object" gives -EINVAL, without a lock.
 */
#include <linux/slab.h>
#include "core_priv.h"
#include "trace.h"

bool xrdma_use_get(atomic_t *usecnt)
{
	return atomic_inc_not_zero(usecnt);
}

void xrdma_use_put(atomic_t *usecnt)
{
	WARN_ON(atomic_dec_return(usecnt) < 1);
}

bool xrdma_use_kill(atomic_t *usecnt)
{
	return atomic_cmpxchg(usecnt, 1, 0) == 1;
}

/*
 * Allocate a driver-sized object and reserve its number: @id, or the next
 * free one if @id is 0.  The device user reference is taken here and
 * dropped by xrdma_obj_free().  A process's object (no @caller) is charged
 * to its rdma cgroup and its uid's share here too: -EAGAIN when either is
 * used up.  With a @gfp that does not block (kernel objects only, @id 0)
 * nothing here sleeps.
 */
void *xrdma_obj_alloc_id(struct xrdma_device *dev, size_t size,
			 enum xrdma_res_type type, const char *caller,
			 gfp_t gfp, u32 id)
{
	struct xrdma_res *res;
	int ret;

	if (!xrdma_device_try_get(dev))
		return ERR_PTR(-ENODEV);
	/* a process's object is charged to its memory cgroup */
	res = kzalloc(size, caller ? gfp : gfp | __GFP_ACCOUNT);
	if (!res) {
		ret = -ENOMEM;
		goto err_put;
	}
	if (!caller) {
		ret = xrdma_user_charge(dev, (enum xrdma_ulim)type,
					&res->charge);
		if (ret)
			goto err_free;
	}
	if (id)
		ret = xrdma_res_reserve_id(dev, res, type, id, caller);
	else
		ret = xrdma_res_reserve(dev, res, type, caller, gfp);
	if (ret)
		goto err_uncharge;
	return res;

err_uncharge:
	xrdma_user_uncharge(dev, (enum xrdma_ulim)type, &res->charge);
err_free:
	kfree(res);
err_put:
	xrdma_device_put(dev);
	return ERR_PTR(ret);
}

void *xrdma_obj_alloc(struct xrdma_device *dev, size_t size,
		      enum xrdma_res_type type, const char *caller)
{
	return xrdma_obj_alloc_id(dev, size, type, caller, GFP_KERNEL, 0);
}

/* Undo xrdma_obj_alloc() for an object that was never committed. */
void xrdma_obj_abort(struct xrdma_res *res)
{
	struct xrdma_device *dev = res->dev;

	xrdma_res_abort(res);
	xrdma_user_uncharge(dev, (enum xrdma_ulim)res->type, &res->charge);
	kfree(res);
	xrdma_device_put(dev);
}

void xrdma_obj_free(struct xrdma_res *res)
{
	struct xrdma_device *dev = res->dev;

	xrdma_user_uncharge(dev, (enum xrdma_ulim)res->type, &res->charge);
	kfree(res);
	xrdma_device_put(dev);
}

/**
 * xrdma_query_device - read a device's attributes
 * @dev: device
 * @attr: filled in
 *
 * Return: 0.
 */
int xrdma_query_device(struct xrdma_device *dev,
		       struct xrdma_device_attr *attr)
{
	*attr = dev->attr;
	return 0;
}
EXPORT_SYMBOL_GPL(xrdma_query_device);

/**
 * xrdma_query_port - read a port's attributes
 * @dev: device
 * @port: port number, 1-based
 * @attr: filled in
 *
 * Return: 0, -EINVAL for a bad port, or the driver's error.
 */
int xrdma_query_port(struct xrdma_device *dev, u32 port,
		     struct xrdma_port_attr *attr)
{
	if (port < 1 || port > dev->num_ports)
		return -EINVAL;
	memset(attr, 0, sizeof(*attr));
	return dev->ops->query_port(dev, port, attr);
}
EXPORT_SYMBOL_GPL(xrdma_query_port);

/**
 * xrdma_query_gid - read one entry of a port's GID table
 * @dev: device
 * @port: port number, 1-based
 * @index: GID index
 * @gid: filled in
 *
 * Return: 0, -EINVAL for a bad @port or @index, or the driver's error.
 */
int xrdma_query_gid(struct xrdma_device *dev, u32 port, int index,
		    union xrdma_gid *gid)
{
	if (port < 1 || port > dev->num_ports || index < 0 ||
	    index >= XRDMA_GID_TABLE_LEN)
		return -EINVAL;
	return dev->ops->query_gid(dev, port, index, gid);
}
EXPORT_SYMBOL_GPL(xrdma_query_gid);

/**
 * xrdma_set_gid - program one entry of a port's GID table (RoCE)
 * @dev: device
 * @port: port number, 1-based
 * @index: GID index, below the port's gid_tbl_len
 * @gid: the GID, or NULL to clear the entry
 * @type: the entry's RoCE type
 *
 * May sleep.  Return: 0, -EOPNOTSUPP if the device's table is fixed,
 * -EINVAL for a bad @port, @index or @type, or the driver's error.
 */
int xrdma_set_gid(struct xrdma_device *dev, u32 port, u32 index,
		  const union xrdma_gid *gid, enum xrdma_gid_type type)
{
	if (!dev->ops->set_gid)
		return -EOPNOTSUPP;
	if (port < 1 || port > dev->num_ports ||
	    index >= XRDMA_GID_TABLE_LEN ||
	    (type != XRDMA_GID_TYPE_ROCE_V1 && type != XRDMA_GID_TYPE_ROCE_V2))
		return -EINVAL;
	return dev->ops->set_gid(dev, port, index, gid, type);
}
EXPORT_SYMBOL_GPL(xrdma_set_gid);

/**
 * xrdma_get_netdev - the Ethernet netdev of a port
 * @dev: device
 * @port: port number, 1-based
 *
 * Return: the netdev (no reference taken: it lives as long as @dev is
 * registered), or NULL if the port has none.
 */
struct net_device *xrdma_get_netdev(struct xrdma_device *dev, u32 port)
{
	if (!dev->ops->get_netdev || port < 1 || port > dev->num_ports)
		return NULL;
	return dev->ops->get_netdev(dev, port);
}
EXPORT_SYMBOL_GPL(xrdma_get_netdev);

/* ------------------------------------------------------------------ PD */

/**
 * __xrdma_alloc_pd - allocate a protection domain
 * @dev: device
 * @flags: must be 0
 * @caller: owner's module name (the xrdma_alloc_pd() macro passes it)
 * @udata: driver data of a user command, NULL for kernel callers
 *
 * Return: the PD or an ERR_PTR: -ENODEV if @dev is going away, -EINVAL,
 * -ENOMEM, -ENOSPC or the driver's error.
 */
struct xrdma_pd *__xrdma_alloc_pd(struct xrdma_device *dev, u32 flags,
				  const char *caller, struct xrdma_udata *udata)
{
	struct xrdma_pd *pd;
	int ret;

	if (flags)
		return ERR_PTR(-EINVAL);
	pd = xrdma_obj_alloc(dev, dev->ops->size_pd, XRDMA_RES_PD, caller);
	if (IS_ERR(pd))
		return pd;
	pd->device = dev;
	atomic_set(&pd->usecnt, 1);
	ret = dev->ops->alloc_pd(pd, udata);
	if (ret) {
		xrdma_obj_abort(&pd->res);
		return ERR_PTR(ret);
	}
	xrdma_res_commit(&pd->res);
	return pd;
}
EXPORT_SYMBOL_GPL(__xrdma_alloc_pd);

/**
 * xrdma_dealloc_pd - free a protection domain
 * @pd: the PD
 *
 * Return: 0, or -EBUSY while an MR, QP, SRQ or AH still uses @pd.
 */
int xrdma_dealloc_pd(struct xrdma_pd *pd)
{
	if (!xrdma_use_kill(&pd->usecnt))
		return -EBUSY;
	xrdma_res_remove(&pd->res);
	pd->device->ops->dealloc_pd(pd);
	xrdma_obj_free(&pd->res);
	return 0;
}
EXPORT_SYMBOL_GPL(xrdma_dealloc_pd);

/* ------------------------------------------------------------------ CQ */

/**
 * __xrdma_create_cq - create a completion queue
 * @dev: device
 * @comp_handler: called (any context) when the armed CQ gets a completion
 * @event_handler: called for CQ async events, may be NULL
 * @cq_context: passed to both handlers
 * @attr: cqe (1..max_cqe), comp_vector, flags (0)
 * @caller: owner's module name
 * @udata: driver data of a user command, NULL for kernel callers
 *
 * Return: the CQ, or an ERR_PTR: -EINVAL for bad @attr, or another
 * negative errno (allocation, driver).
 */
struct xrdma_cq *__xrdma_create_cq(struct xrdma_device *dev,
				   xrdma_comp_handler comp_handler,
				   void (*event_handler)(struct xrdma_event *,
							 void *),
				   void *cq_context,
				   const struct xrdma_cq_init_attr *attr,
				   const char *caller, struct xrdma_udata *udata)
{
	struct xrdma_cq *cq;
	int ret;

	if (!attr->cqe || attr->cqe > dev->attr.max_cqe || attr->flags)
		return ERR_PTR(-EINVAL);
	cq = xrdma_obj_alloc(dev, dev->ops->size_cq, XRDMA_RES_CQ, caller);
	if (IS_ERR(cq))
		return cq;
	cq->device = dev;
	cq->comp_handler = comp_handler;
	cq->event_handler = event_handler;
	cq->cq_context = cq_context;
	cq->cqe = attr->cqe;
	atomic_set(&cq->usecnt, 1);
	ret = dev->ops->create_cq(cq, attr, udata);
	if (ret) {
		xrdma_obj_abort(&cq->res);
		return ERR_PTR(ret);
	}
	xrdma_res_commit(&cq->res);
	return cq;
}
EXPORT_SYMBOL_GPL(__xrdma_create_cq);

/**
 * xrdma_destroy_cq - destroy a completion queue
 * @cq: the CQ
 *
 * Return: 0, or -EBUSY while a QP or an XRC SRQ still uses @cq.
 */
int xrdma_destroy_cq(struct xrdma_cq *cq)
{
	if (!xrdma_use_kill(&cq->usecnt))
		return -EBUSY;
	xrdma_res_remove(&cq->res);
	cq->device->ops->destroy_cq(cq);
	xrdma_obj_free(&cq->res);
	return 0;
}
EXPORT_SYMBOL_GPL(xrdma_destroy_cq);

/**
 * __xrdma_resize_cq - resize a completion queue
 * @cq: the CQ
 * @cqe: entries it must hold at least (1..max_cqe)
 * @udata: the user's driver data, NULL for a kernel CQ
 *
 * The completions in the CQ stay, in order; cq->cqe becomes the real
 * size.  Not concurrent with the CQ's destruction.  May sleep.
 *
 * Return: 0, -EINVAL for a bad @cqe or one below the completions the CQ
 * holds, -EOPNOTSUPP if the driver cannot resize CQs, or its error.
 */
int __xrdma_resize_cq(struct xrdma_cq *cq, u32 cqe, struct xrdma_udata *udata)
{
	struct xrdma_device *dev = cq->device;

	if (!cqe || cqe > dev->attr.max_cqe)
		return -EINVAL;
	if (!dev->ops->resize_cq)
		return -EOPNOTSUPP;
	return dev->ops->resize_cq(cq, cqe, udata);
}
EXPORT_SYMBOL_GPL(__xrdma_resize_cq);

/* ----------------------------------------------------------------- SRQ */

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

/* ------------------------------------------------------------------ QP */

/* The receive side of an RC, UC, UD or GSI QP: its CQ and SRQ or sizes. */
static int xrdma_check_qp_recv(struct xrdma_device *dev,
			       const struct xrdma_qp_init_attr *attr)
{
	const struct xrdma_device_attr *da = &dev->attr;
	const struct xrdma_qp_cap *cap = &attr->cap;

	if (!attr->recv_cq || attr->recv_cq->device != dev || attr->xrcd)
		return -EINVAL;
	if (attr->srq) {
		/* an XRC SRQ receives for the XRC_TGT QPs of its domain only */
		if (attr->srq->device != dev ||
		    attr->srq->srq_type != XRDMA_SRQT_BASIC)
			return -EINVAL;
		return 0;
	}
	/*
	 * Within these limits any size is valid, 0 included (a QP with no
	 * work requests to post is useless but legal, as ib_core and rxe
	 * have it): the driver provides at least what was asked for.
	 */
	if (cap->max_recv_wr > da->max_qp_wr || cap->max_recv_sge > da->max_sge)
		return -EINVAL;
	return 0;
}

static int xrdma_check_qp_init_attr(struct xrdma_device *dev,
				    struct xrdma_pd *pd,
				    const struct xrdma_qp_init_attr *attr,
				    struct xrdma_udata *udata)
{
	const struct xrdma_device_attr *da = &dev->attr;
	const struct xrdma_qp_cap *cap = &attr->cap;
	bool xrc = da->device_cap_flags & XRDMA_DEVICE_XRC;
	int ret;

	switch (attr->qp_type) {
	case XRDMA_QPT_RC:
	case XRDMA_QPT_UC:
	case XRDMA_QPT_UD:
		break;
	case XRDMA_QPT_GSI:
		/* kernel only, bound to its port for life */
		if (udata || attr->port_num < 1 ||
		    attr->port_num > dev->num_ports)
			return -EINVAL;
		break;
	case XRDMA_QPT_XRC_INI:
		if (!xrc)
			return -EOPNOTSUPP;
		break;
	case XRDMA_QPT_XRC_TGT:
		if (!xrc)
			return -EOPNOTSUPP;
		/* the domain only: no PD, queues or CQs */
		if (pd || !attr->xrcd || attr->xrcd->device != dev ||
		    attr->send_cq || attr->recv_cq || attr->srq ||
		    memchr_inv(cap, 0, sizeof(*cap)))
			return -EINVAL;
		return 0;
	default:
		return -EOPNOTSUPP;
	}
	if (!pd || !attr->send_cq || attr->send_cq->device != dev)
		return -EINVAL;
	if (cap->max_send_wr > da->max_qp_wr ||
	    cap->max_send_sge > da->max_sge ||
	    cap->max_inline_data > da->max_inline_data)
		return -EINVAL;
	if (attr->qp_type != XRDMA_QPT_XRC_INI) {
		ret = xrdma_check_qp_recv(dev, attr);
		if (ret)
			return ret;
		return 0;
	}
	/* an XRC initiator sends only: no receive queue, CQ or SRQ */
	if (attr->recv_cq || attr->srq || attr->xrcd || cap->max_recv_wr ||
	    cap->max_recv_sge)
		return -EINVAL;
	return 0;
}

/*
 * Take a use on each object the QP depends on (those it has: an XRC_INI
 * QP has no receive CQ, an XRC_TGT QP a domain and nothing else); undone
 * by the put below.
 */
static int xrdma_qp_get_deps(struct xrdma_pd *pd,
			     struct xrdma_qp_init_attr *attr)
{
	if (pd && !xrdma_use_get(&pd->usecnt))
		return -EINVAL;
	if (attr->xrcd && !xrdma_use_get(&attr->xrcd->usecnt))
		goto err_pd;
	if (attr->send_cq && !xrdma_use_get(&attr->send_cq->usecnt))
		goto err_xrcd;
	if (attr->recv_cq && !xrdma_use_get(&attr->recv_cq->usecnt))
		goto err_send;
	if (attr->srq && !xrdma_use_get(&attr->srq->usecnt))
		goto err_recv;
	return 0;

err_recv:
	if (attr->recv_cq)
		xrdma_use_put(&attr->recv_cq->usecnt);
err_send:
	if (attr->send_cq)
		xrdma_use_put(&attr->send_cq->usecnt);
err_xrcd:
	if (attr->xrcd)
		xrdma_use_put(&attr->xrcd->usecnt);
err_pd:
	if (pd)
		xrdma_use_put(&pd->usecnt);
	return -EINVAL;
}

static void xrdma_qp_put_deps(struct xrdma_pd *pd, struct xrdma_xrcd *xrcd,
			      struct xrdma_cq *send_cq,
			      struct xrdma_cq *recv_cq, struct xrdma_srq *srq)
{
	if (srq)
		xrdma_use_put(&srq->usecnt);
	if (recv_cq)
		xrdma_use_put(&recv_cq->usecnt);
	if (send_cq)
		xrdma_use_put(&send_cq->usecnt);
	if (xrcd)
		xrdma_use_put(&xrcd->usecnt);
	if (pd)
		xrdma_use_put(&pd->usecnt);
}

/**
 * __xrdma_create_qp - create a queue pair in the RESET state
 * @pd: protection domain; NULL for an XRC_TGT QP
 * @attr: type, CQs, optional SRQ, capabilities; the driver may raise the
 *	  capabilities it actually provides
 * @caller: owner's module name
 * @udata: driver data of a user command, NULL for kernel callers
 *
 * A GSI QP (kernel callers only, @attr->port_num its port for life) has
 * qp_num XRDMA_GSI_QPN and is tracked under xrdma_gsi_res_id(port), so
 * xrdma_qp_get_by_num(dev, XRDMA_GSI_QPN) finds port 1's; one per port.
 *
 * XRC (a device with XRDMA_DEVICE_XRC): an XRC_INI QP has @pd and a send
 * CQ, and no receive side (no receive CQ or SRQ, max_recv_wr and
 * max_recv_sge 0); an XRC_TGT QP has @attr->xrcd and nothing else (no
 * @pd, CQs, SRQ, capabilities).  An XRC_TGT QP belongs to its domain, not
 * to a process: the driver sees no @udata for it (as in ib_core), and it
 * lives until its last handle (this one, xrdma_open_qp()'s) is closed.
 *
 * Return: the QP (qp_num is its QPN) or an ERR_PTR: -EOPNOTSUPP for an
 * unknown type (or an XRC type on a device without XRC), -EINVAL for bad
 * attributes (a GSI QP from userspace or on a bad port), -EBUSY if the
 * port has a GSI QP already.
 */
struct xrdma_qp *__xrdma_create_qp(struct xrdma_pd *pd,
				   struct xrdma_qp_init_attr *attr,
				   const char *caller,
				   struct xrdma_udata *udata)
{
	bool tgt = attr->qp_type == XRDMA_QPT_XRC_TGT;
	struct xrdma_device *dev;
	struct xrdma_qp *qp;
	int ret;

	if (pd)
		dev = pd->device;
	else if (tgt && attr->xrcd)
		dev = attr->xrcd->device;
	else
		return ERR_PTR(-EINVAL);
	ret = xrdma_check_qp_init_attr(dev, pd, attr, udata);
	if (ret)
		return ERR_PTR(ret);
	ret = xrdma_qp_get_deps(pd, attr);
	if (ret)
		return ERR_PTR(ret);
	qp = xrdma_obj_alloc_id(dev, dev->ops->size_qp, XRDMA_RES_QP, caller,
				GFP_KERNEL,
				attr->qp_type == XRDMA_QPT_GSI ?
				xrdma_gsi_res_id(attr->port_num) : 0);
	if (IS_ERR(qp)) {
		ret = PTR_ERR(qp);
		goto err_deps;
	}
	qp->device = dev;
	qp->pd = pd;
	qp->send_cq = attr->send_cq;
	qp->recv_cq = attr->recv_cq;
	qp->srq = attr->srq;
	qp->xrcd = tgt ? attr->xrcd : NULL;
	qp->event_handler = attr->event_handler;
	qp->qp_context = attr->qp_context;
	qp->qp_type = attr->qp_type;
	qp->qp_num = attr->qp_type == XRDMA_QPT_GSI ? XRDMA_GSI_QPN :
		     qp->res.id;
	qp->port_num = attr->port_num;
	qp->state = XRDMA_QPS_RESET;
	mutex_init(&qp->state_lock);
	INIT_LIST_HEAD(&qp->mcast_list);
	atomic_set(&qp->open_cnt, 1);
	spin_lock_init(&qp->open_lock);
	INIT_LIST_HEAD(&qp->open_list);
	ret = dev->ops->create_qp(qp, attr, tgt ? NULL : udata);
	if (ret) {
		mutex_destroy(&qp->state_lock);
		xrdma_obj_abort(&qp->res);
		goto err_deps;
	}
	xrdma_res_commit(&qp->res);
	if (tgt) {
		ret = xrdma_tgt_qp_publish(qp);
		if (ret) {
			xrdma_qp_teardown(qp);
			return ERR_PTR(ret);
		}
	}
	return qp;

err_deps:
	xrdma_qp_put_deps(pd, attr->xrcd, attr->send_cq, attr->recv_cq,
			  attr->srq);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(__xrdma_create_qp);

/**
 * __xrdma_modify_qp - change a QP's state and attributes
 * @qp: the QP
 * @attr: new values for the attributes named in @mask
 * @mask: XRDMA_QP_* attribute mask
 * @udata: driver data of a user command, NULL for kernel callers
 *
 * The transition and the mask are checked against the InfiniBand QP state
 * table for @qp's type, and the values against the device's limits, before
 * the driver sees them (an address vector as xrdma_check_ah_attr(): a GRH
 * on a RoCE port); entering SQD also needs XRDMA_DEVICE_SQD.
 * Return: 0, or -EINVAL with no change made, or the driver's error.
 */
int __xrdma_modify_qp(struct xrdma_qp *qp, struct xrdma_qp_attr *attr,
		      int mask, struct xrdma_udata *udata)
{
	enum xrdma_qp_state cur, next;
	int ret;

	mutex_lock(&qp->state_lock);
	cur = READ_ONCE(qp->state);
	if (mask & XRDMA_QP_CUR_STATE && attr->cur_qp_state != cur) {
		ret = -EINVAL;
		goto out;
	}
	next = mask & XRDMA_QP_STATE ? attr->qp_state : cur;
	if (!xrdma_modify_qp_is_ok(cur, next, qp->qp_type, mask)) {
		ret = -EINVAL;
		goto out;
	}
	/* SQ drain (RTS->SQD, SQD->SQD) only where the device supports it */
	if (next == XRDMA_QPS_SQD &&
	    !(qp->device->attr.device_cap_flags & XRDMA_DEVICE_SQD)) {
		ret = -EINVAL;
		goto out;
	}
	ret = xrdma_check_qp_attr(qp->device, qp->qp_type, attr, mask);
	if (ret)
		goto out;
	/* an XRC_TGT QP belongs to no process: the driver sees no udata */
	ret = qp->device->ops->modify_qp(qp, attr, mask,
					 qp->qp_type == XRDMA_QPT_XRC_TGT ?
					 NULL : udata);
	if (!ret)
		WRITE_ONCE(qp->state, next);
out:
	trace_xrdma_modify_qp(qp, cur, mask & XRDMA_QP_STATE ?
			      attr->qp_state : cur, mask, ret);
	mutex_unlock(&qp->state_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(__xrdma_modify_qp);

/**
 * xrdma_query_qp - read a QP's attributes
 * @qp: the QP
 * @attr: filled in (qp_state always)
 * @mask: attributes wanted
 * @init_attr: filled in with the creation attributes, may be NULL
 *
 * Return: 0 or the driver's error; qp_state is filled in either way.
 */
int xrdma_query_qp(struct xrdma_qp *qp, struct xrdma_qp_attr *attr, int mask,
		   struct xrdma_qp_init_attr *init_attr)
{
	struct xrdma_qp_init_attr dummy;
	int ret = 0;

	memset(attr, 0, sizeof(*attr));
	if (!init_attr)
		init_attr = &dummy;
	memset(init_attr, 0, sizeof(*init_attr));
	init_attr->send_cq = qp->send_cq;
	init_attr->recv_cq = qp->recv_cq;
	init_attr->srq = qp->srq;
	init_attr->xrcd = qp->xrcd;
	init_attr->qp_type = qp->qp_type;
	init_attr->event_handler = qp->event_handler;
	init_attr->qp_context = qp->qp_context;
	if (qp->device->ops->query_qp)
		ret = qp->device->ops->query_qp(qp, attr, mask, init_attr);
	attr->qp_state = READ_ONCE(qp->state);
	attr->cur_qp_state = attr->qp_state;
	return ret;
}
EXPORT_SYMBOL_GPL(xrdma_query_qp);

/**
 * xrdma_qp_set_error - record that the hardware moved a QP to ERR
 * @qp: the QP
 *
 * For drivers, from any context: the next modify_qp starts from ERR.
 */
void xrdma_qp_set_error(struct xrdma_qp *qp)
{
	WRITE_ONCE(qp->state, XRDMA_QPS_ERR);
}
EXPORT_SYMBOL_GPL(xrdma_qp_set_error);

/* ----------------------------------------------------------- multicast */

/* A multicast group a QP is attached to (qp->mcast_list). */
struct xrdma_mcast {
	struct list_head node;
	union xrdma_gid gid;
	struct xrdma_ucharge charge;	/* a process's: its uid's share */
};

/* Free an attachment the driver no longer has, and its uid's charge. */
static void xrdma_mcast_free(struct xrdma_qp *qp, struct xrdma_mcast *m)
{
	xrdma_user_uncharge(qp->device, XRDMA_ULIM_MCAST, &m->charge);
	kfree(m);
}

/**
 * xrdma_gid_is_mcast - whether a GID names a multicast group
 * @gid: the GID
 *
 * An IPv6 multicast address (ff00::/8), or an IPv4-mapped IPv4 multicast
 * address (::ffff:224.0.0.0/100), as ib_core's rdma_is_multicast_addr().
 */
bool xrdma_gid_is_mcast(const union xrdma_gid *gid)
{
	static const u8 v4mapped[12] = { [10] = 0xff, [11] = 0xff };

	return gid->raw[0] == 0xff ||
	       (!memcmp(gid->raw, v4mapped, sizeof(v4mapped)) &&
		(gid->raw[12] & 0xf0) == 0xe0);
}
EXPORT_SYMBOL_GPL(xrdma_gid_is_mcast);

/*
 * The multicast LID rule of ib_core's is_valid_mcast_lid(): on a device
 * with an Ethernet (RoCE) port the LID is ignored; on InfiniBand it must
 * be a multicast LID (0xc000..0xfffe).
 */
static bool xrdma_mcast_lid_ok(struct xrdma_device *dev, u16 lid)
{
	u32 p;

	for (p = 0; p < dev->num_ports; p++)
		if (dev->port_link_layer[p] == XRDMA_LINK_LAYER_ETHERNET)
			return true;
	return lid >= 0xc000 && lid != 0xffff;
}

static struct xrdma_mcast *xrdma_mcast_find(struct xrdma_qp *qp,
					    const union xrdma_gid *gid)
{
	struct xrdma_mcast *m;

	list_for_each_entry(m, &qp->mcast_list, node)
		if (!memcmp(m->gid.raw, gid->raw, sizeof(gid->raw)))
			return m;
	return NULL;
}

static int xrdma_mcast_check(struct xrdma_qp *qp, const union xrdma_gid *gid,
			     u16 lid)
{
	if (!qp->device->ops->attach_mcast || !qp->device->ops->detach_mcast)
		return -EOPNOTSUPP;
	if (qp->qp_type != XRDMA_QPT_UD || !xrdma_gid_is_mcast(gid) ||
	    !xrdma_mcast_lid_ok(qp->device, lid))
		return -EINVAL;
	return 0;
}

/**
 * xrdma_attach_mcast - attach a UD QP to a multicast group
 * @qp: a UD QP
 * @gid: the group (xrdma_gid_is_mcast())
 * @lid: its LID (ignored on RoCE)
 *
 * A UD send to the group (dest QPN XRDMA_MCAST_QPN, the group's GID)
 * then reaches @qp, one copy however often it was attached.
 *
 * Return: 0 (also when attached already), -EOPNOTSUPP for a device
 * without multicast, -EINVAL for another QP type, a GID that is not
 * multicast or a bad LID, -EAGAIN when a process's uid holds its share
 * of attachments (user_share percent of the smaller of max_mcast_grp and
 * max_total_mcast_qp_attach: each attachment may create a group),
 * -ENOMEM (or the driver's error) beyond the device's limits
 * (max_mcast_grp, max_mcast_qp_attach, max_total_mcast_qp_attach).
 */
int xrdma_attach_mcast(struct xrdma_qp *qp, const union xrdma_gid *gid,
		       u16 lid)
{
	struct xrdma_mcast *m;
	int ret;

	ret = xrdma_mcast_check(qp, gid, lid);
	if (ret)
		return ret;
	mutex_lock(&qp->state_lock);
	if (xrdma_mcast_find(qp, gid))
		goto out;
	m = kzalloc(sizeof(*m), qp->res.kern_name ? GFP_KERNEL :
						       GFP_KERNEL_ACCOUNT);
	if (!m) {
		ret = -ENOMEM;
		goto out;
	}
	m->gid = *gid;
	if (!qp->res.kern_name) {
		ret = xrdma_user_charge(qp->device, XRDMA_ULIM_MCAST,
					&m->charge);
		if (ret) {
			kfree(m);
			goto out;
		}
	}
	ret = qp->device->ops->attach_mcast(qp, gid);
	if (ret)
		xrdma_mcast_free(qp, m);
	else
		list_add_tail(&m->node, &qp->mcast_list);
out:
	mutex_unlock(&qp->state_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(xrdma_attach_mcast);

/**
 * xrdma_detach_mcast - detach a UD QP from a multicast group
 * @qp: the QP
 * @gid: the group
 * @lid: its LID (ignored on RoCE)
 *
 * Return: 0, -EINVAL if @qp is not attached to @gid (or as
 * xrdma_attach_mcast()), or the driver's error (the QP stays attached).
 */
int xrdma_detach_mcast(struct xrdma_qp *qp, const union xrdma_gid *gid,
		       u16 lid)
{
	struct xrdma_mcast *m;
	int ret;

	ret = xrdma_mcast_check(qp, gid, lid);
	if (ret)
		return ret;
	mutex_lock(&qp->state_lock);
	m = xrdma_mcast_find(qp, gid);
	if (!m) {
		ret = -EINVAL;
		goto out;
	}
	ret = qp->device->ops->detach_mcast(qp, gid);
	if (!ret) {
		list_del(&m->node);
		xrdma_mcast_free(qp, m);
	}
out:
	mutex_unlock(&qp->state_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(xrdma_detach_mcast);

/* A QP being destroyed leaves its groups (as uverbs does in ib_core). */
static void xrdma_qp_detach_all(struct xrdma_qp *qp)
{
	struct xrdma_mcast *m, *tmp;

	list_for_each_entry_safe(m, tmp, &qp->mcast_list, node) {
		qp->device->ops->detach_mcast(qp, &m->gid);
		list_del(&m->node);
		xrdma_mcast_free(qp, m);
	}
}

void xrdma_qp_teardown(struct xrdma_qp *qp)
{
	struct xrdma_cq *send_cq = qp->send_cq, *recv_cq = qp->recv_cq;
	struct xrdma_xrcd *xrcd = qp->xrcd;
	struct xrdma_srq *srq = qp->srq;
	struct xrdma_pd *pd = qp->pd;

	xrdma_res_remove(&qp->res);
	xrdma_qp_detach_all(qp);
	qp->device->ops->destroy_qp(qp);
	mutex_destroy(&qp->state_lock);
	xrdma_obj_free(&qp->res);
	xrdma_qp_put_deps(pd, xrcd, send_cq, recv_cq, srq);
}

/**
 * xrdma_destroy_qp - destroy a queue pair
 * @qp: the QP
 *
 * Waits until no driver lookup (xrdma_qp_get_by_num()) still uses @qp.
 * Detaches it from every multicast group first.  For an XRC_TGT QP this
 * closes the creator's handle: its event handler gets nothing more, and
 * the QP is destroyed once no handle from xrdma_open_qp() is left either.
 *
 * Return: 0.
 */
int xrdma_destroy_qp(struct xrdma_qp *qp)
{
	if (qp->qp_type == XRDMA_QPT_XRC_TGT)
		return xrdma_tgt_qp_close(qp, NULL);
	xrdma_qp_teardown(qp);
	return 0;
}
EXPORT_SYMBOL_GPL(xrdma_destroy_qp);

/* ------------------------------------------------------------------ AH */

/**
 * xrdma_check_ah_attr - check an address vector (AH or a QP's path)
 * @dev: device
 * @attr: the address vector
 *
 * The port must exist and the source GID index lie in the GID table.  On a
 * port whose link layer is Ethernet (RoCE) packets are routed by GID, so
 * the address vector must carry a GRH (is_global): without one it names
 * no destination.  As ib_core's rdma_check_ah_attr(), the port is the
 * address vector's own.
 *
 * Return: 0 or -EINVAL.
 */
int xrdma_check_ah_attr(struct xrdma_device *dev,
			const struct xrdma_ah_attr *attr)
{
	if (attr->port_num < 1 || attr->port_num > dev->num_ports ||
	    attr->sgid_index >= XRDMA_GID_TABLE_LEN)
		return -EINVAL;
	if (!attr->is_global && dev->port_link_layer[attr->port_num - 1] ==
	    XRDMA_LINK_LAYER_ETHERNET)
		return -EINVAL;
	return 0;
}

/**
 * __xrdma_create_ah - create an address handle for UD sends
 * @pd: protection domain
 * @attr: destination; port_num must be a valid port, sgid_index < GID
 *	  table length, is_global set on a RoCE (Ethernet) port
 * @flags: 0 or XRDMA_AH_NOSLEEP (kernel callers only: nothing here sleeps,
 *	   allocations are GFP_ATOMIC)
 * @caller: owner's module name
 * @udata: driver data of a user command, NULL for kernel callers
 *
 * Return: the AH, or an ERR_PTR: -EOPNOTSUPP if the device has no AHs,
 * -EINVAL for a bad @attr (xrdma_check_ah_attr()) or @flags, or another
 * negative errno (allocation, driver).
 */
struct xrdma_ah *__xrdma_create_ah(struct xrdma_pd *pd,
				   const struct xrdma_ah_attr *attr,
				   u32 flags, const char *caller,
				   struct xrdma_udata *udata)
{
	struct xrdma_device *dev = pd->device;
	struct xrdma_ah *ah;
	int ret;

	if (!dev->ops->create_ah)
		return ERR_PTR(-EOPNOTSUPP);
	if (flags & ~XRDMA_AH_NOSLEEP || (flags && udata))
		return ERR_PTR(-EINVAL);
	if (!(flags & XRDMA_AH_NOSLEEP))
		might_sleep();
	ret = xrdma_check_ah_attr(dev, attr);
	if (ret)
		return ERR_PTR(ret);
	if (!xrdma_use_get(&pd->usecnt))
		return ERR_PTR(-EINVAL);
	ah = xrdma_obj_alloc_id(dev, dev->ops->size_ah, XRDMA_RES_AH, caller,
				flags & XRDMA_AH_NOSLEEP ? GFP_ATOMIC :
				GFP_KERNEL, 0);
	if (IS_ERR(ah)) {
		xrdma_use_put(&pd->usecnt);
		return ah;
	}
	ah->device = dev;
	ah->pd = pd;
	ah->attr = *attr;
	ret = dev->ops->create_ah(ah, udata);
	if (ret) {
		xrdma_obj_abort(&ah->res);
		xrdma_use_put(&pd->usecnt);
		return ERR_PTR(ret);
	}
	xrdma_res_commit(&ah->res);
	return ah;
}
EXPORT_SYMBOL_GPL(__xrdma_create_ah);

/**
 * xrdma_destroy_ah - destroy an address handle
 * @ah: the AH
 *
 * Never sleeps for a kernel caller's AH: one created with
 * XRDMA_AH_NOSLEEP may be destroyed in atomic context (AHs are never
 * looked up by number, so there is nothing to wait for).
 *
 * Return: 0.
 */
int xrdma_destroy_ah(struct xrdma_ah *ah)
{
	struct xrdma_pd *pd = ah->pd;

	xrdma_res_remove_nowait(&ah->res);
	ah->device->ops->destroy_ah(ah);
	xrdma_obj_free(&ah->res);
	xrdma_use_put(&pd->usecnt);
	return 0;
}
EXPORT_SYMBOL_GPL(xrdma_destroy_ah);
