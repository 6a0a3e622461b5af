// SPDX-License-Identifier: GPL-2.0
/*
 * xverbs: completion queues -- ibv_create_cq(_ex), ibv_resize_cq,
 * ibv_destroy_cq.  Their rings are the provider's (xnic_queues.c).
 */
#include <stdlib.h>
#include "xverbs.h"

/* ------------------------------------------------------------ CQ */

static struct xv_cq *xv_create_cq(struct ibv_context *ctx, int cqe,
				  struct ibv_comp_channel *channel,
				  int comp_vector, uint64_t wc_flags)
{
	struct xrdma_cmd_create_cq c = { 0 };
	struct xv_cq *cq;
	int err;

	if (cqe <= 0 || comp_vector < 0) {
		errno = EINVAL;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}
	c.user_cookie = (uintptr_t)cq;
	c.cqe = (uint32_t)cqe;
	c.comp_vector = (uint32_t)comp_vector;
	c.channel_fd = channel ? channel->fd : -1;
	err = to_xctx(ctx)->ops->create_cq(ctx, cq, &c);
	if (err)
		goto err_free;
	cq->wc_flags = wc_flags;
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	cq->ex.context = ctx;
	cq->ex.channel = channel;
	cq->ex.handle = c.cq_handle;
	cq->ex.cqe = (int)c.cqe;
	pthread_mutex_init(&cq->ex.mutex, NULL);
	pthread_cond_init(&cq->ex.cond, NULL);
	if (channel) {
		pthread_mutex_lock(&ctx->mutex);
		channel->refcnt++;
		pthread_mutex_unlock(&ctx->mutex);
	}
	return cq;

err_free:
	free(cq);
	errno = err;
	return NULL;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *ctx, int cqe,
			     void *cq_context,
			     struct ibv_comp_channel *channel,
			     int comp_vector)
{
	struct xv_cq *cq = xv_create_cq(ctx, cqe, channel, comp_vector, 0);

	if (!cq)
		return NULL;
	cq->ex.cq_context = cq_context;
	return ibv_cq_ex_to_cq(&cq->ex);
}

#define XV_WC_EX_FLAGS (IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | \
			IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP | \
			IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL | \
			IBV_WC_EX_WITH_DLID_PATH_BITS | \
			IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)

static struct ibv_cq_ex *xv_create_cq_ex(struct ibv_context *ctx,
					 struct ibv_cq_init_attr_ex *attr)
{
	struct xv_cq *cq;

	if (attr->comp_mask & ~(uint32_t)(IBV_CQ_INIT_ATTR_MASK_FLAGS |
					  IBV_CQ_INIT_ATTR_MASK_PD) ||
	    ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	     attr->flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED) ||
	    attr->wc_flags & ~(uint64_t)XV_WC_EX_FLAGS) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* as mlx5: MASK_PD needs a parent domain (of this context) */
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) &&
	    (!xv_parent_domain(attr->parent_domain) ||
	     attr->parent_domain->context != ctx)) {
		errno = EINVAL;
		return NULL;
	}
	cq = xv_create_cq(ctx, (int)attr->cqe, attr->channel,
			  (int)attr->comp_vector, attr->wc_flags);
	if (!cq)
		return NULL;
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) {
		cq->parent_domain = attr->parent_domain;
		xv_pd_get(cq->parent_domain);
	}
	cq->ex.cq_context = attr->cq_context;
	to_xctx(ctx)->ops->cq_ex_init(cq);
	return &cq->ex;
}

int ibv_destroy_cq(struct ibv_cq *ibcq)
{
	struct xv_cq *cq = to_xcq(ibcq);
	struct ibv_context *ctx = ibcq->context;
	struct ibv_comp_channel *channel = ibcq->channel;
	struct xrdma_cmd_destroy d;
	int ret;

	ret = xv_destroy_obj(ctx, XRDMA_OBJ_CQ, ibcq->handle, &d);
	if (ret > 0)
		return ret;
	if (channel) {
		pthread_mutex_lock(&ctx->mutex);
		channel->refcnt--;
		pthread_mutex_unlock(&ctx->mutex);
	}
	if (ret != XV_DESTROY_GONE) {
		xv_wait_events(&ibcq->mutex, &ibcq->cond,
			       &ibcq->comp_events_completed,
			       d.comp_events_reported);
		xv_wait_events(&ibcq->mutex, &ibcq->cond,
			       &ibcq->async_events_completed,
			       d.async_events_reported);
	}
	to_xctx(ctx)->ops->destroy_cq(cq);
	xv_pd_put(cq->parent_domain);
	pthread_spin_destroy(&cq->lock);
	free(cq);
	return 0;
}

int ibv_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct xrdma_cmd_resize_cq c = { 0 };
	int ret;

	if (cqe <= 0) {
		errno = EINVAL;
		return EINVAL;
	}
	c.cq_handle = ibcq->handle;
	c.cqe = (uint32_t)cqe;
	ret = to_xctx(ibcq->context)->ops->resize_cq(to_xcq(ibcq), &c);
	if (ret)
		errno = ret;
	return ret;
}

void xv_cq_set_ops(struct verbs_context *v)
{
	v->create_cq_ex = xv_create_cq_ex;
}
