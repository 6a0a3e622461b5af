// SPDX-License-Identifier: GPL-2.0
/*
 * Commands on shared receive queues and XRC: CREATE_SRQ, MODIFY_SRQ,
 * QUERY_SRQ, OPEN_XRCD (and the close of an XRCD handle, for DESTROY and
 * teardown) and OPEN_QP.  Their handles and new objects are looked up,
 * reserved and published by the dispatcher (ioctl.c); destroying is
 * DESTROY (cmd_device.c).
 */
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/path.h>
#include <linux/slab.h>
#include <xrdma/compat.h>
#include "cmd.h"

/*
 * CREATE_SRQ: a basic SRQ (VER0 callers: srq_type 0, no XRCD or CQ), or
 * since VER1 an XRC SRQ in an XRCD of this context, completing to a CQ.
 */
static int xrdma_check_create_srq(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_create_srq *cmd = &c->buf->create_srq;

	if (cmd->reserved)
		return -EINVAL;
	switch (cmd->srq_type) {
	case XRDMA_UVERBS_SRQT_BASIC:
		if (cmd->xrcd_handle || cmd->cq_handle)
			return -EINVAL;
		break;
	case XRDMA_UVERBS_SRQT_XRC:
		break;
	default:
		return -EINVAL;
	}
	return xrdma_udata_init(c, &cmd->udata);
}

/* CREATE_SRQ's handles, in the order they are looked up */
enum { XRDMA_SRQ_PD, XRDMA_SRQ_XRCD, XRDMA_SRQ_CQ };

static bool xrdma_srq_is_xrc(const union xrdma_cmd_buf *buf)
{
	return buf->create_srq.srq_type == XRDMA_UVERBS_SRQT_XRC;
}

static int xrdma_cmd_create_srq(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_create_srq *cmd = &c->buf->create_srq;
	struct xrdma_srq_init_attr attr = {};
	struct xrdma_uobj *uobj = c->uobj;
	struct xrdma_srq *srq;

	uobj->user_cookie = cmd->user_cookie;
	attr.event_handler = xrdma_obj_event_handler;
	attr.srq_context = uobj;
	attr.attr.max_wr = cmd->max_wr;
	attr.attr.max_sge = cmd->max_sge;
	attr.attr.srq_limit = cmd->srq_limit;
	attr.srq_type = cmd->srq_type;
	attr.xrcd = xrdma_cmd_obj(c, XRDMA_SRQ_XRCD);
	attr.cq = xrdma_cmd_obj(c, XRDMA_SRQ_CQ);
	srq = __xrdma_create_srq(xrdma_cmd_obj(c, XRDMA_SRQ_PD), &attr, NULL,
				 &c->udata);
	if (IS_ERR(srq))
		return PTR_ERR(srq);
	cmd->max_wr = attr.attr.max_wr;
	cmd->max_sge = attr.attr.max_sge;
	cmd->srq_num = srq->srq_num;
	/* the SRQ keeps its use of the XRCD handle until it is destroyed */
	uobj->xrcd_uobj = xrdma_cmd_keep(c, XRDMA_SRQ_XRCD);
	uobj->object = srq;
	return 0;
}

static int xrdma_check_modify_srq(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_modify_srq *cmd = &c->buf->modify_srq;

	if (cmd->attr_mask & ~(XRDMA_UVERBS_SRQ_MAX_WR |
			       XRDMA_UVERBS_SRQ_LIMIT))
		return -EINVAL;
	return xrdma_udata_init(c, &cmd->udata);
}

static int xrdma_cmd_modify_srq(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_modify_srq *cmd = &c->buf->modify_srq;
	struct xrdma_srq_attr attr = {};

	attr.max_wr = cmd->max_wr;
	attr.srq_limit = cmd->srq_limit;
	return __xrdma_modify_srq(xrdma_cmd_obj(c, 0), &attr, cmd->attr_mask,
				  &c->udata);
}

static int xrdma_cmd_query_srq(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_query_srq *cmd = &c->buf->query_srq;
	struct xrdma_srq_attr attr;
	int ret;

	ret = xrdma_query_srq(xrdma_cmd_obj(c, 0), &attr);
	if (ret)
		return ret;
	cmd->max_wr = attr.max_wr;
	cmd->max_sge = attr.max_sge;
	cmd->srq_limit = attr.srq_limit;
	return 0;
}

/* The domain a file names on this device; with xrcd_lock held. */
static struct xrdma_uxrcd *xrdma_uxrcd_find(struct xrdma_uverbs_dev *udev,
					    struct inode *inode)
{
	struct xrdma_uxrcd *ux;

	list_for_each_entry(ux, &udev->xrcds, list)
		if (ux->inode == inode)
			return ux;
	return NULL;
}

/*
 * OPEN_XRCD, after Linux's ib_uverbs_open_xrcd(): fd -1 makes a domain of
 * this handle only (oflags are not looked at, as in Linux); otherwise the
 * file's inode names a domain shared by every context of the device that
 * opens it; it must be a regular file (-EINVAL, unlike Linux).  Each open
 * is a handle; the domain goes with the last one.  Each handle is charged
 * as one XRCD to the process that opened it (the creator's carries the
 * domain's own charge), until that handle is closed.
 */
static int xrdma_check_open_xrcd(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_open_xrcd *cmd = &c->buf->open_xrcd;

	if (cmd->oflags & ~(O_CREAT | O_EXCL) || cmd->reserved)
		return -EINVAL;
	if (!(c->ibdev->attr.device_cap_flags & XRDMA_DEVICE_XRC))
		return -EOPNOTSUPP;
	return 0;
}

static int xrdma_cmd_open_xrcd(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_open_xrcd *cmd = &c->buf->open_xrcd;
	struct xrdma_uverbs_dev *udev = c->ufile->udev;
	struct xrdma_uobj *uobj = c->uobj;
	struct xrdma_uxrcd *ux = NULL;
	struct xrdma_xrcd *xrcd;
	struct fd f = {};
	int ret = 0;

	mutex_lock(&udev->xrcd_lock);
	if (cmd->fd != -1) {
		f = fdget(cmd->fd);
		if (!fd_file(f)) {
			ret = -EBADF;
			goto out;
		}
		/*
		 * a regular file only: its permissions say who may share
		 * the domain; every anonymous-inode fd (eventfd, epoll,
		 * ...) and every pipe or socket of a kind names one
		 * inode that anybody can open
		 */
		if (!S_ISREG(file_inode(fd_file(f))->i_mode)) {
			ret = -EINVAL;
			goto out;
		}
		ux = xrdma_uxrcd_find(udev, file_inode(fd_file(f)));
		if (!ux && !(cmd->oflags & O_CREAT))
			ret = -ENOENT;
		else if (ux && cmd->oflags & O_EXCL)
			ret = -EEXIST;
		if (ret)
			goto out;
		if (ux) {
			/* a member pays for its own handle */
			ret = xrdma_xrcd_charge_handle(ux->xrcd,
						       &uobj->xrcd_charge,
						       false);
			if (ret)
				goto out;
			ux->handles++;
			xrcd = ux->xrcd;
			goto done;
		}
		ux = kzalloc(sizeof(*ux), GFP_KERNEL_ACCOUNT);
		if (!ux) {
			ret = -ENOMEM;
			goto out;
		}
	}
	xrcd = __xrdma_alloc_xrcd(c->ibdev, NULL);
	if (IS_ERR(xrcd)) {
		ret = PTR_ERR(xrcd);
		kfree(ux);
		goto out;
	}
	/*
	 * The domain's charge is its creator's handle's: it goes with that
	 * handle, not with the domain, which other members may keep alive.
	 */
	xrdma_xrcd_charge_handle(xrcd, &uobj->xrcd_charge, true);
	if (ux) {
		/*
		 * the path, not only the inode: an inode alone does not keep
		 * its superblock from being shut down by an unmount
		 */
		ux->path = fd_file(f)->f_path;
		path_get(&ux->path);
		ux->inode = file_inode(fd_file(f));
		ux->xrcd = xrcd;
		ux->handles = 1;
		xrcd->inode = ux->inode;
		list_add_tail(&ux->list, &udev->xrcds);
	}
done:
	/* a failed copy closes this handle again (xrdma_uverbs_close_xrcd) */
	uobj->object = xrcd;
out:
	mutex_unlock(&udev->xrcd_lock);
	fdput(f);
	return ret;
}

/**
 * xrdma_uverbs_close_xrcd - drop an XRCD handle (DESTROY, teardown)
 * @uobj: the handle; no SRQ or QP of its context uses it
 *
 * The domain is freed with its last handle in any context; the handle's
 * charge goes now, whoever keeps the domain.
 *
 * Return: 0, or the core's error (the handle stays).
 */
int xrdma_uverbs_close_xrcd(struct xrdma_uobj *uobj)
{
	struct xrdma_uverbs_dev *udev = uobj->ufile->udev;
	struct xrdma_xrcd *xrcd = uobj->object;
	struct xrdma_device *dev = xrcd->device;
	struct xrdma_uxrcd *ux = NULL;
	int ret = 0;

	mutex_lock(&udev->xrcd_lock);
	if (xrcd->inode) {
		ux = xrdma_uxrcd_find(udev, xrcd->inode);
		if (WARN_ON(!ux || ux->xrcd != xrcd)) {
			ret = -EINVAL;
			goto out;
		}
		if (--ux->handles)
			goto out;
	}
	ret = xrdma_dealloc_xrcd(xrcd);
	if (ret) {
		if (ux)
			ux->handles++;
		goto out;
	}
	if (ux) {
		list_del(&ux->list);
		path_put(&ux->path);
		kfree(ux);
	}
out:
	mutex_unlock(&udev->xrcd_lock);
	if (!ret)
		xrdma_xrcd_uncharge_handle(dev, &uobj->xrcd_charge);
	return ret;
}

/*
 * OPEN_QP: a handle in this context on an XRC_RECV QP of an XRCD this
 * context has open.  The QP lives until its last handle is destroyed; its
 * async events reach every handle, each with its own cookie.
 */

/*
 * OPEN_QP: a handle in this context on an XRC_RECV QP of an XRCD this
 * context has open.  The QP lives until its last handle is destroyed; its
 * async events reach every handle, each with its own cookie.
 */
static int xrdma_check_open_qp(struct xrdma_cmd_ctx *c)
{
	if (c->buf->open_qp.qp_type != XRDMA_UVERBS_QPT_XRC_RECV)
		return -EINVAL;
	return 0;
}

static int xrdma_cmd_open_qp(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_open_qp *cmd = &c->buf->open_qp;
	struct xrdma_qp_open_attr attr = {};
	struct xrdma_uobj *uobj = c->uobj;
	struct xrdma_qp_open *open;

	uobj->user_cookie = cmd->user_cookie;
	attr.event_handler = xrdma_obj_event_handler;
	attr.qp_context = uobj;
	attr.qp_num = cmd->qpn;
	attr.qp_type = XRDMA_QPT_XRC_TGT;
	open = __xrdma_open_qp(xrdma_cmd_obj(c, 0), &attr, NULL);
	if (IS_ERR(open))
		return PTR_ERR(open);
	/* the handle keeps its use of the XRCD handle until destroyed */
	uobj->xrcd_uobj = xrdma_cmd_keep(c, 0);
	uobj->qp_open = open;
	uobj->object = open->qp;
	return 0;
}

static const struct xrdma_cmd_def xrdma_srq_rows[] = {
	{ XRDMA_CMD(XRDMA_IOC_CREATE_SRQ, struct xrdma_cmd_create_srq,
		    XRDMA_CMD_CREATE_SRQ_SIZE_VER0),
	  XRDMA_CMD_NEW(struct xrdma_cmd_create_srq, XRDMA_OBJ_SRQ,
			srq_handle),
	  .check = xrdma_check_create_srq, .fn = xrdma_cmd_create_srq,
	  .attrs = {
		[XRDMA_SRQ_PD] = XRDMA_ATTR(struct xrdma_cmd_create_srq,
					    pd_handle, XRDMA_OBJ_PD, READ),
		[XRDMA_SRQ_XRCD] = XRDMA_ATTR_IF(struct xrdma_cmd_create_srq,
						 xrcd_handle, XRDMA_OBJ_XRCD,
						 READ, xrdma_srq_is_xrc),
		[XRDMA_SRQ_CQ] = XRDMA_ATTR_IF(struct xrdma_cmd_create_srq,
					       cq_handle, XRDMA_OBJ_CQ, READ,
					       xrdma_srq_is_xrc) } },
	{ XRDMA_CMD(XRDMA_IOC_MODIFY_SRQ, struct xrdma_cmd_modify_srq,
		    XRDMA_CMD_MODIFY_SRQ_SIZE_VER0),
	  .check = xrdma_check_modify_srq, .fn = xrdma_cmd_modify_srq,
	  .attrs = { XRDMA_ATTR(struct xrdma_cmd_modify_srq, srq_handle,
				XRDMA_OBJ_SRQ, READ) } },
	{ XRDMA_CMD(XRDMA_IOC_QUERY_SRQ, struct xrdma_cmd_query_srq,
		    XRDMA_CMD_QUERY_SRQ_SIZE_VER0),
	  .fn = xrdma_cmd_query_srq,
	  .attrs = { XRDMA_ATTR(struct xrdma_cmd_query_srq, srq_handle,
				XRDMA_OBJ_SRQ, READ) } },
	{ XRDMA_CMD(XRDMA_IOC_OPEN_XRCD, struct xrdma_cmd_open_xrcd,
		    XRDMA_CMD_OPEN_XRCD_SIZE_VER0),
	  XRDMA_CMD_NEW(struct xrdma_cmd_open_xrcd, XRDMA_OBJ_XRCD,
			xrcd_handle),
	  .check = xrdma_check_open_xrcd, .fn = xrdma_cmd_open_xrcd },
	{ XRDMA_CMD(XRDMA_IOC_OPEN_QP, struct xrdma_cmd_open_qp,
		    XRDMA_CMD_OPEN_QP_SIZE_VER0),
	  XRDMA_CMD_NEW(struct xrdma_cmd_open_qp, XRDMA_OBJ_QP, qp_handle),
	  .check = xrdma_check_open_qp, .fn = xrdma_cmd_open_qp,
	  .attrs = { XRDMA_ATTR(struct xrdma_cmd_open_qp, xrcd_handle,
				XRDMA_OBJ_XRCD, READ) } },
};

const struct xrdma_cmd_table xrdma_srq_cmds = {
	.defs = xrdma_srq_rows, .n = ARRAY_SIZE(xrdma_srq_rows)
};
