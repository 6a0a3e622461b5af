// SPDX-License-Identifier: GPL-2.0
/*
 * Commands that hand out event fds: CREATE_COMP_CHANNEL and GET_ASYNC_FD.
 * The event queues behind the fds are event.c's.
 */
#include <linux/file.h>
#include <linux/sched/mm.h>
#include "cmd.h"

static int xrdma_give_fd(struct xrdma_cmd_ctx *c, struct xrdma_ev_file *ev)
{
	struct file *filp;
	int fd, ret;

	ret = xrdma_ev_file_install(ev, &fd, &filp);
	if (ret)
		return ret;
	c->buf->fd.fd = fd;
	ret = xrdma_respond(c);
	if (ret) {
		fput(filp);
		put_unused_fd(fd);
		return ret;
	}
	fd_install(fd, filp);
	return 0;
}

static int xrdma_cmd_create_comp_channel(struct xrdma_cmd_ctx *c)
{
	struct xrdma_ev_file *ev;
	int ret;

	if (c->buf->fd.flags)
		return -EINVAL;
	ev = xrdma_ev_file_alloc(c->ufile, false);
	if (!ev)
		return -ENOMEM;
	ret = xrdma_give_fd(c, ev);
	xrdma_ev_file_put(ev);
	return ret;
}

/*
 * The async event fd of the calling process's queue: the opener's, or an
 * importer's; once per GET_CONTEXT or IMPORT_CONTEXT of the process.
 */
static int xrdma_cmd_get_async_fd(struct xrdma_cmd_ctx *c)
{
	struct xrdma_ufile *ufile = c->ufile;
	unsigned int *given, allowed;
	struct xrdma_ev_file *ev;
	struct xrdma_uimport *imp;
	int ret;

	if (c->buf->fd.flags)
		return -EINVAL;
	mutex_lock(&ufile->ctx_mutex);
	if (current->mm == ufile->mm) {
		ev = ufile->async;
		given = &ufile->async_fds;
		allowed = ufile->async_fds_allowed;
	} else {
		/* the dispatcher let us in: we are an importer */
		imp = xrdma_ufile_import_find(ufile, current->mm);
		if (!imp) {
			mutex_unlock(&ufile->ctx_mutex);
			return -EPERM;
		}
		ev = imp->async;
		given = &imp->async_fds;
		allowed = imp->async_fds_allowed;
	}
	if (*given >= allowed) {
		ret = -EINVAL;
	} else {
		ret = xrdma_give_fd(c, ev);
		if (!ret)
			++*given;
	}
	mutex_unlock(&ufile->ctx_mutex);
	return ret;
}

static const struct xrdma_cmd_def xrdma_event_rows[] = {
	{ XRDMA_CMD(XRDMA_IOC_CREATE_COMP_CHANNEL, struct xrdma_cmd_fd,
		    XRDMA_CMD_FD_SIZE_VER0),
	  .fn = xrdma_cmd_create_comp_channel },
	{ XRDMA_CMD(XRDMA_IOC_GET_ASYNC_FD, struct xrdma_cmd_fd,
		    XRDMA_CMD_FD_SIZE_VER0),
	  .fn = xrdma_cmd_get_async_fd },
};

const struct xrdma_cmd_table xrdma_event_cmds = {
	.defs = xrdma_event_rows, .n = ARRAY_SIZE(xrdma_event_rows)
};
