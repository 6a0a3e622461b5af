// SPDX-License-Identifier: GPL-2.0
/*
 * xverbs: contexts -- opening and closing them, the uverbs ioctl every
 * verb issues, and the ops a context is given (the provider's data path,
 * struct xv_provider_ops, and the API layer's extended verbs).
 */
#include <assert.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "xverbs.h"

/* ------------------------------------------------------------ contexts */

/*
 * A child of the process that joined the context (fork) uses it as
 * rdma-core lets it: the kernel answers EPERM to a process that has not
 * joined the file's context, so the child joins it (IMPORT_CONTEXT, which
 * any holder of the fd may issue) on its first command.  The child gets
 * no async event fd of its own here (ibv_import_device gives one).
 */
static bool xv_join_child(struct ibv_context *ctx)
{
	struct xv_context *xctx = to_xctx(ctx);
	pid_t me = getpid();

	if (!xctx->pid || xctx->pid == me)
		return false;
	if (xctx->ops->rejoin_context(ctx))
		return false;
	xctx->pid = me;
	return true;
}

int xv_ioctl(struct ibv_context *ctx, unsigned long req, void *arg)
{
	if (!ioctl(ctx->cmd_fd, req, arg))
		return 0;
	if (errno != EPERM || !xv_join_child(ctx))
		return errno;
	if (ioctl(ctx->cmd_fd, req, arg))
		return errno;
	return 0;
}

int xv_destroy_obj(struct ibv_context *ctx, uint32_t type, uint32_t handle,
		   struct xrdma_cmd_destroy *out)
{
	struct xrdma_cmd_destroy c = { .type = type, .handle = handle };
	int ret = xv_ioctl(ctx, XRDMA_IOC_DESTROY, &c);

	/*
	 * A disassociated device has already destroyed everything, and one
	 * that failed or is going away destroys but answers EIO too: no
	 * event counts, so whoever asked for them must not wait for them
	 * (rdma-core's verbs_is_destroy_err() returns before its wait), and
	 * the mappings may go at any moment: nothing may touch them.
	 */
	if (ret == EIO)
		return out ? XV_DESTROY_GONE : 0;
	if (out)
		*out = c;
	return ret;
}

/* wait until the application acknowledged every event reported */
void xv_wait_events(pthread_mutex_t *mutex, pthread_cond_t *cond,
		    uint32_t *completed, uint32_t want)
{
	pthread_mutex_lock(mutex);
	while (*completed != want)
		pthread_cond_wait(cond, mutex);
	pthread_mutex_unlock(mutex);
}

/*
 * A context on the command fd @fd of @dev: a new one (GET_CONTEXT), or the
 * fd's existing one joined by this process (@import: IMPORT_CONTEXT, whose
 * structure is GET_CONTEXT's).  The fd is the context's on success only.
 */
struct ibv_context *xv_open_fd(struct xv_device *dev, int fd, bool import)
{
	struct xrdma_cmd_get_context gc = { 0 };
	struct xrdma_cmd_fd afd = { 0 };
	struct xv_context *xctx;
	struct ibv_context *ctx;

	xctx = calloc(1, sizeof(*xctx));
	if (!xctx) {
		errno = ENOMEM;
		return NULL;
	}
	ctx = &xctx->vctx.context;
	ctx->cmd_fd = fd;
	ctx->async_fd = -1;
	ctx->device = &dev->ibdev;
	xctx->dev = dev;
	xctx->ops = &xnic_provider_ops;
	static_assert(sizeof(struct xrdma_cmd_get_context) ==
		       sizeof(struct xrdma_cmd_import_context),
		       "IMPORT_CONTEXT has GET_CONTEXT's layout");
	/* the ioctl with the provider's response, which maps its part */
	if (xctx->ops->init_context(xctx, import ? XRDMA_IOC_IMPORT_CONTEXT :
				    XRDMA_IOC_GET_CONTEXT, &gc))
		goto err_free;
	ctx->num_comp_vectors = (int)gc.num_comp_vectors;
	errno = xv_ioctl(ctx, XRDMA_IOC_GET_ASYNC_FD, &afd);
	if (errno)
		goto err_unmap;
	ctx->async_fd = afd.fd;
	pthread_mutex_init(&ctx->mutex, NULL);
	pthread_rwlock_init(&xctx->qp_lock, NULL);
	xctx->vctx.sz = sizeof(xctx->vctx);
	ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
	xv_set_ops(xctx);
	xctx->pid = getpid();
	return ctx;

err_unmap:
	xctx->ops->uninit_context(xctx);
err_free:
	free(xctx);
	return NULL;
}

struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	struct xv_device *dev = (struct xv_device *)device;
	struct ibv_context *ctx;
	int fd, err;

	fd = open(dev->devnode, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	ctx = xv_open_fd(dev, fd, false);
	if (!ctx) {
		err = errno;
		close(fd);
		errno = err;
	}
	return ctx;
}

int ibv_close_device(struct ibv_context *ctx)
{
	struct xv_context *xctx = to_xctx(ctx);

	xctx->ops->uninit_context(xctx);
	if (ctx->async_fd >= 0)
		close(ctx->async_fd);
	/* closing the fd destroys what the application left behind */
	close(ctx->cmd_fd);
	pthread_rwlock_destroy(&xctx->qp_lock);
	pthread_mutex_destroy(&ctx->mutex);
	free(xctx);
	return 0;
}

/* ------------------------------------------------------------ fork */

/* nothing to set up: see unsupported.c */
int ibv_fork_init(void)
{
	return 0;
}

enum ibv_fork_status ibv_is_fork_initialized(void)
{
	return IBV_FORK_UNNEEDED;
}

/* ------------------------------------------------------------ ops */

/*
 * A new context's ops: the data path is the provider's (ibv_context_ops'
 * post and poll entries), the rest the API layer's, each object's file
 * setting its own.
 */
void xv_set_ops(struct xv_context *xctx)
{
	const struct xv_provider_ops *p = xctx->ops;
	struct verbs_context *v = &xctx->vctx;
	struct ibv_context_ops *ops = &v->context.ops;

	ops->poll_cq = p->poll_cq;
	ops->req_notify_cq = p->req_notify_cq;
	ops->post_send = p->post_send;
	ops->post_recv = p->post_recv;
	ops->post_srq_recv = p->post_srq_recv;
	xv_query_set_ops(v);
	xv_cq_set_ops(v);
	xv_qp_set_ops(v);
	xv_share_set_ops(v);
	/* a device without windows answers ALLOC_MW with EOPNOTSUPP */
	xv_set_mw_ops(ops);
	xv_dm_set_ops(v);
	/* a device without XRC answers its ioctls with EOPNOTSUPP */
	xv_xrc_set_ops(v);
}
