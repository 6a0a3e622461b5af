// SPDX-License-Identifier: GPL-2.0
/*
 * xverbs: memory windows -- ibv_alloc_mw, ibv_dealloc_mw and ibv_bind_mw
 * (the context's alloc_mw, dealloc_mw and bind_mw operations, which
 * rdma-core's inline functions call).  A type 1 window is bound by
 * ibv_bind_mw, which posts a BIND_MW work request on the given QP with a
 * new tag and updates mw->rkey once posted, as mlx5 and rxe do; a type 2
 * window is bound by IBV_WR_BIND_MW or ibv_wr_bind_mw (xnic_post.c), the caller
 * choosing its new rkey.  The device checks the bind and reports a bad one
 * as IBV_WC_MW_BIND_ERR (Documentation/xnic).
 *
 * The new tag of a type 1 bind is random, never the current one: mlx5 and
 * rxe take ibv_inc_rkey(), so a peer that saw one rkey of a window knew
 * the next.  The device takes whatever tag the WQE carries, and nothing in
 * the ABI asks for old + 1 (ibv_inc_rkey() is a convention for callers
 * that choose their own key, as type 2 binds do), so the library draws it
 * from getrandom(): a small per-thread pool, refilled every
 * XV_TAG_POOL binds and emptied in a fork's child (which must not reuse
 * its parent's tags).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/random.h>
#include "xverbs.h"

#define XV_TAG_POOL	64

static __thread uint8_t xv_tag_pool[XV_TAG_POOL];
static __thread unsigned int xv_tag_left;
static pthread_once_t xv_tag_once = PTHREAD_ONCE_INIT;

/* the child is the forking thread alone: only its pool was copied */
static void xv_tag_atfork_child(void)
{
	xv_tag_left = 0;
}

static void xv_tag_init(void)
{
	pthread_atfork(NULL, NULL, xv_tag_atfork_child);
}

/*
 * @old's index with a random tag other than @old's, or -1 if the kernel
 * gives no random bytes (the bind is then refused: a predictable tag is
 * not handed out silently).
 */
static int64_t xv_mw_next_rkey(uint32_t old)
{
	uint8_t tag;
	ssize_t n;

	pthread_once(&xv_tag_once, xv_tag_init);
	do {
		if (!xv_tag_left) {
			do
				n = getrandom(xv_tag_pool, sizeof(xv_tag_pool),
					      0);
			while (n < 0 && errno == EINTR);
			if (n != (ssize_t)sizeof(xv_tag_pool))
				return -1;
			xv_tag_left = sizeof(xv_tag_pool);
		}
		tag = xv_tag_pool[--xv_tag_left];
	} while (tag == (uint8_t)old);
	return (old & ~0xffU) | tag;
}

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
	int64_t rkey;
	int ret;

	if (mw->type != IBV_MW_TYPE_1)
		return EINVAL;
	/* zero based windows are type 2 only (IBA o10-36.2.2) */
	if (bind->bind_info.mw_access_flags & IBV_ACCESS_ZERO_BASED)
		return EINVAL;
	rkey = xv_mw_next_rkey(mw->rkey);
	if (rkey < 0)
		return EAGAIN;
	ret = to_xctx(qp->context)->ops->post_bind(qp, mw, (uint32_t)rkey,
						   &bind->bind_info,
						   bind->wr_id,
						   bind->send_flags);
	if (ret)
		return ret;
	mw->rkey = (uint32_t)rkey;
	return 0;
}

void xv_set_mw_ops(struct ibv_context_ops *ops)
{
	ops->alloc_mw = xv_alloc_mw;
	ops->dealloc_mw = xv_dealloc_mw;
	ops->bind_mw = xv_bind_mw;
}
