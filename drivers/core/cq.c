// SPDX-License-Identifier: GPL-2.0
/*
 * The CQ verbs: create, destroy (only once no QP or SRQ uses the CQ) and
 * resize.  Use counts and object allocation are verbs.c's.
 */
#include <linux/slab.h>
#include "core_priv.h"

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

