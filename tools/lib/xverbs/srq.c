// SPDX-License-Identifier: GPL-2.0
/*
 * xverbs: shared receive queues -- ibv_create_srq, ibv_modify_srq,
 * ibv_query_srq, ibv_destroy_srq (XRC SRQs: xrc.c).  Their rings are the
 * provider's (xnic_queues.c).
 */
#include <stdlib.h>
#include "xverbs.h"

/* ------------------------------------------------------------ SRQ */

/*
 * An SRQ: basic, or with @xrcd an XRC SRQ whose receives complete to @cq
 * (xrc.c checks the arguments).
 */
struct ibv_srq *xv_create_srq(struct ibv_pd *pd,
			      struct ibv_srq_init_attr *attr,
			      struct xv_xrcd *xrcd, struct ibv_cq *cq)
{
	struct ibv_context *ctx = pd->context;
	struct xrdma_cmd_create_srq c = { 0 };
	struct xv_srq *srq;
	int err;

	srq = calloc(1, sizeof(*srq));
	if (!srq) {
		errno = ENOMEM;
		return NULL;
	}
	c.user_cookie = (uintptr_t)srq;
	c.pd_handle = pd->handle;
	c.max_wr = attr->attr.max_wr;
	c.max_sge = attr->attr.max_sge;
	c.srq_limit = attr->attr.srq_limit;
	if (xrcd) {
		c.srq_type = XRDMA_UVERBS_SRQT_XRC;
		c.xrcd_handle = xrcd->handle;
		c.cq_handle = cq->handle;
	}
	err = to_xctx(ctx)->ops->create_srq(ctx, srq, &c, pd);
	if (err)
		goto err_free;
	srq->xrcd = xrcd;
	srq->cq = cq;
	if (cq)
		__atomic_add_fetch(&to_xcq(cq)->xrc_srqs, 1, __ATOMIC_SEQ_CST);
	srq->td = xv_pd_single_threaded(pd);
	pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE);
	srq->ibsrq.context = ctx;
	srq->ibsrq.srq_context = attr->srq_context;
	srq->ibsrq.pd = pd;
	srq->ibsrq.handle = c.srq_handle;
	pthread_mutex_init(&srq->ibsrq.mutex, NULL);
	pthread_cond_init(&srq->ibsrq.cond, NULL);
	attr->attr.max_wr = c.max_wr;
	attr->attr.max_sge = c.max_sge;
	xv_pd_get(pd);
	return &srq->ibsrq;

err_free:
	free(srq);
	errno = err;
	return NULL;
}

struct ibv_srq *ibv_create_srq(struct ibv_pd *pd,
			       struct ibv_srq_init_attr *attr)
{
	return xv_create_srq(pd, attr, NULL, NULL);
}

int ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct xrdma_cmd_query_srq c = { .srq_handle = srq->handle };
	int ret = xv_ioctl(srq->context, XRDMA_IOC_QUERY_SRQ, &c);

	if (ret)
		return ret;
	attr->max_wr = c.max_wr;
	attr->max_sge = c.max_sge;
	attr->srq_limit = c.srq_limit;
	return 0;
}

int ibv_destroy_srq(struct ibv_srq *ibsrq)
{
	struct xv_srq *srq = to_xsrq(ibsrq);
	struct xrdma_cmd_destroy d;
	int ret;

	ret = xv_destroy_obj(ibsrq->context, XRDMA_OBJ_SRQ, ibsrq->handle, &d);
	if (ret > 0)
		return ret;
	if (ret != XV_DESTROY_GONE)
		xv_wait_events(&ibsrq->mutex, &ibsrq->cond,
			       &ibsrq->events_completed, d.async_events_reported);
	if (srq->cq)
		__atomic_sub_fetch(&to_xcq(srq->cq)->xrc_srqs, 1,
				   __ATOMIC_SEQ_CST);
	to_xctx(ibsrq->context)->ops->destroy_srq(srq);
	xv_pd_put(ibsrq->pd);
	pthread_spin_destroy(&srq->lock);
	free(srq);
	return 0;
}

int ibv_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		   int attr_mask)
{
	struct xrdma_cmd_modify_srq c = { 0 };

	if ((unsigned int)attr_mask & ~(unsigned int)(IBV_SRQ_MAX_WR |
						      IBV_SRQ_LIMIT))
		return EINVAL;
	c.srq_handle = ibsrq->handle;
	c.attr_mask = (uint32_t)attr_mask;
	c.max_wr = attr->max_wr;
	c.srq_limit = attr->srq_limit;
	/* IBV_SRQ_MAX_WR: grow the SRQ, its posted receives kept */
	if (attr_mask & IBV_SRQ_MAX_WR)
		return to_xctx(ibsrq->context)->ops->grow_srq(to_xsrq(ibsrq),
							     &c);
	return xv_ioctl(ibsrq->context, XRDMA_IOC_MODIFY_SRQ, &c);
}
