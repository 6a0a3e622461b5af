// SPDX-License-Identifier: GPL-2.0
/*
 * Commands on completion queues: CREATE_CQ (with its completion channel)
 * and RESIZE_CQ.  Their handles and new objects are looked up, reserved
 * and published by the dispatcher (ioctl.c); destroying is DESTROY
 * (cmd_device.c).
 */
#include <linux/file.h>
#include <xrdma/compat.h>
#include "cmd.h"

static struct xrdma_ev_file *xrdma_get_channel(struct xrdma_ufile *ufile,
					       int fd)
{
	struct xrdma_ev_file *ev;
	struct fd f = fdget(fd);

	if (!fd_file(f))
		return ERR_PTR(-EBADF);
	ev = fd_file(f)->private_data;
	/* the caller's own: another process's CQ cookies are not ours */
	if (fd_file(f)->f_op != &xrdma_comp_fops || ev->is_async ||
	    ev->ufile != ufile || ev->mm != current->mm)
		ev = ERR_PTR(-EINVAL);
	else
		kref_get(&ev->ref);
	fdput(f);
	return ev;
}

/*
 * Before the new handle is reserved, as it always was: a bad channel fd
 * uses up no handle.  The dispatcher puts the channel unless the handler
 * hands it to the CQ.
 */
static int xrdma_check_create_cq(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_create_cq *cmd = &c->buf->create_cq;
	struct xrdma_ev_file *channel;
	int ret;

	if (cmd->flags || cmd->reserved)
		return -EINVAL;
	if (cmd->comp_vector >= 1)
		return -EINVAL;
	ret = xrdma_udata_init(c, &cmd->udata);
	if (ret)
		return ret;
	if (cmd->channel_fd != -1) {
		channel = xrdma_get_channel(c->ufile, cmd->channel_fd);
		if (IS_ERR(channel))
			return PTR_ERR(channel);
		c->channel = channel;
	}
	return 0;
}

static int xrdma_cmd_create_cq(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_create_cq *cmd = &c->buf->create_cq;
	struct xrdma_cq_init_attr attr = {};
	struct xrdma_uobj *uobj = c->uobj;
	struct xrdma_cq *cq;

	uobj->user_cookie = cmd->user_cookie;
	/* the CQ's now: xrdma_uobj_abort() or the CQ's end puts it */
	uobj->channel = c->channel;
	c->channel = NULL;
	attr.cqe = cmd->cqe;
	attr.comp_vector = cmd->comp_vector;
	cq = __xrdma_create_cq(c->ibdev, xrdma_uverbs_comp_handler,
			       xrdma_obj_event_handler, uobj, &attr, NULL,
			       &c->udata);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	cmd->cqe = cq->cqe;
	uobj->object = cq;
	return 0;
}

static int xrdma_check_resize_cq(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_resize_cq *cmd = &c->buf->resize_cq;

	if (cmd->flags || cmd->reserved)
		return -EINVAL;
	return xrdma_udata_init(c, &cmd->udata);
}

static int xrdma_cmd_resize_cq(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_resize_cq *cmd = &c->buf->resize_cq;
	struct xrdma_cq *cq = xrdma_cmd_obj(c, 0);
	int ret;

	ret = __xrdma_resize_cq(cq, cmd->cqe, &c->udata);
	if (!ret)
		cmd->cqe = READ_ONCE(cq->cqe);
	return ret;
}

static const struct xrdma_cmd_def xrdma_cq_rows[] = {
	{ XRDMA_CMD(XRDMA_IOC_CREATE_CQ, struct xrdma_cmd_create_cq,
		    XRDMA_CMD_CREATE_CQ_SIZE_VER0),
	  XRDMA_CMD_NEW(struct xrdma_cmd_create_cq, XRDMA_OBJ_CQ, cq_handle),
	  .check = xrdma_check_create_cq, .fn = xrdma_cmd_create_cq },
	{ XRDMA_CMD(XRDMA_IOC_RESIZE_CQ, struct xrdma_cmd_resize_cq,
		    XRDMA_CMD_RESIZE_CQ_SIZE_VER0),
	  .check = xrdma_check_resize_cq, .fn = xrdma_cmd_resize_cq,
	  .attrs = { XRDMA_ATTR(struct xrdma_cmd_resize_cq, cq_handle,
				XRDMA_OBJ_CQ, READ) } },
};

const struct xrdma_cmd_table xrdma_cq_cmds = {
	.defs = xrdma_cq_rows, .n = ARRAY_SIZE(xrdma_cq_rows)
};
