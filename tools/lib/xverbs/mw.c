// SPDX-License-Identifier: GPL-2.0
/*
 * xverbs: memory windows -- ibv_alloc_mw, ibv_dealloc_mw and ibv_bind_mw
 * (the context's alloc_mw, dealloc_mw and bind_mw operations, which
 * rdma-core's inline functions call).  A type 1 window is bound by
 * ibv_bind_mw, which posts a BIND_MW work request on the given QP with the
 * next tag (ibv_inc_rkey()) and updates mw->rkey once posted, as mlx5 and
 * rxe do; a type 2 window is bound by IBV_WR_BIND_MW or ibv_wr_bind_mw
 * (dp.c), the caller choosing its new rkey.  The device checks the bind
 * and reports a bad one as IBV_WC_MW_BIND_ERR (Documentation/xnic).
 */
#include <errno.h>
#include <stdlib.h>
#include "xverbs.h"

static struct ibv_mw *xv_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct xrdma_cmd_alloc_mw c = { 0 };
	struct ibv_mw *mw;

	if (type != IBV_MW_TYPE_1 && type != IBV_MW_TYPE_2) {
		errno = EINVAL;
		return NULL;
	}
	mw = calloc(1, sizeof(*mw));
	if (!mw) {
		errno = ENOMEM;
		return NULL;
	}
	c.pd_handle = pd->handle;
	c.type = type == IBV_MW_TYPE_1 ? XRDMA_UVERBS_MW_TYPE_1 :
					 XRDMA_UVERBS_MW_TYPE_2;
	errno = xv_ioctl(pd->context, XRDMA_IOC_ALLOC_MW, &c);
	if (errno) {
		free(mw);
		return NULL;
	}
	mw->context = pd->context;
	mw->pd = pd;
	mw->rkey = c.rkey;
	mw->handle = c.mw_handle;
	mw->type = type;
	return mw;
}

static int xv_dealloc_mw(struct ibv_mw *mw)
{
	int ret = xv_destroy_obj(mw->context, XRDMA_OBJ_MW, mw->handle, NULL);

	if (!ret)
		free(mw);
	return ret;
}

/* ibv_bind_mw: rdma-core's inline checked the type and the MR's PD */
static int xv_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		      struct ibv_mw_bind *bind)
{
	uint32_t rkey = ibv_inc_rkey(mw->rkey);
	int ret;

	if (mw->type != IBV_MW_TYPE_1)
		return EINVAL;
	/* zero based windows are type 2 only (IBA o10-36.2.2) */
	if (bind->bind_info.mw_access_flags & IBV_ACCESS_ZERO_BASED)
		return EINVAL;
	ret = xv_post_bind(qp, mw, rkey, &bind->bind_info, bind->wr_id,
			   bind->send_flags);
	if (ret)
		return ret;
	mw->rkey = rkey;
	return 0;
}

void xv_set_mw_ops(struct ibv_context_ops *ops)
{
	ops->alloc_mw = xv_alloc_mw;
	ops->dealloc_mw = xv_dealloc_mw;
	ops->bind_mw = xv_bind_mw;
}
