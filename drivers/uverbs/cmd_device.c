// SPDX-License-Identifier: GPL-2.0
/*
 * Commands on the context and the device: GET_CONTEXT, IMPORT_CONTEXT,
 * QUERY_DEVICE, QUERY_PORT, QUERY_GID, QUERY_CLOCK, and the commands on a
 * handle of any type: DESTROY and QUERY_OBJECT.  The dispatcher (ioctl.c)
 * looks the handles up; see Documentation/uverbs.rst.
 */
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include "cmd.h"

static int xrdma_cmd_get_context(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_get_context *cmd = &c->buf->get_context;
	struct xrdma_ufile *ufile = c->ufile;
	struct xrdma_ucontext *uctx;
	struct xrdma_ev_file *async;
	int ret;

	if (cmd->flags || cmd->reserved)
		return -EINVAL;
	ret = xrdma_udata_init(c, &cmd->udata);
	if (ret)
		return ret;

	mutex_lock(&ufile->ctx_mutex);
	if (ufile->ucontext) {
		ret = -EINVAL;
		goto out;
	}
	async = xrdma_ev_file_alloc(ufile, true);
	if (!async) {
		ret = -ENOMEM;
		goto out;
	}
	uctx = xrdma_alloc_ucontext(c->ibdev, &c->udata);
	if (IS_ERR(uctx)) {
		ret = PTR_ERR(uctx);
		xrdma_ev_file_put(async);
		goto out;
	}
	cmd->abi_version = XRDMA_ABI_VERSION;
	cmd->num_comp_vectors = 1;
	ret = xrdma_respond(c);
	if (ret) {
		xrdma_ucontext_disassociate(uctx);
		xrdma_free_ucontext(uctx);
		xrdma_ev_file_put(async);
		goto out;
	}
	ufile->async = async;
	ufile->async_fds_allowed = 1;
	ufile->event_handler.device = c->ibdev;
	ufile->event_handler.handler = xrdma_dev_event_handler;
	xrdma_register_event_handler(&ufile->event_handler);
	/* publish the fully set up context to lock-free readers */
	smp_store_release(&ufile->ucontext, uctx);
out:
	mutex_unlock(&ufile->ctx_mutex);
	return ret;
}

static int xrdma_cmd_query_device(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_query_device *cmd = &c->buf->query_device;
	const struct xrdma_device_attr *a = &c->ibdev->attr;

	if (cmd->comp_mask || cmd->reserved)
		return -EINVAL;
	memset(cmd, 0, sizeof(*cmd));
	cmd->node_guid = (__force u64)a->node_guid;
	cmd->max_mr_size = a->max_mr_size;
	cmd->page_size_cap = a->page_size_cap;
	cmd->vendor_id = a->vendor_id;
	cmd->vendor_part_id = a->vendor_part_id;
	cmd->hw_ver = a->hw_ver;
	/*
	 * Port events (the async event fd) and a QP's port in MODIFY_QP come
	 * with every device, through the core and uverbs.
	 */
	cmd->device_cap_flags = (a->device_cap_flags & XRDMA_DEVICE_CAP_UAPI) |
				XRDMA_DEVICE_PORT_ACTIVE_EVENT |
				XRDMA_DEVICE_CHANGE_PHY_PORT;
	cmd->max_qp = a->max_qp;
	cmd->max_qp_wr = a->max_qp_wr;
	cmd->max_sge = a->max_sge;
	cmd->max_sge_rd = a->max_sge_rd;
	cmd->max_inline_data = a->max_inline_data;
	cmd->max_cq = a->max_cq;
	cmd->max_cqe = a->max_cqe;
	cmd->max_mr = a->max_mr;
	cmd->max_pd = a->max_pd;
	cmd->max_qp_rd_atom = a->max_qp_rd_atom;
	cmd->max_qp_init_rd_atom = a->max_qp_init_rd_atom;
	cmd->max_srq = a->max_srq;
	cmd->max_srq_wr = a->max_srq_wr;
	cmd->max_srq_sge = a->max_srq_sge;
	cmd->max_ah = a->max_ah;
	cmd->max_fast_reg_page_list_len = a->max_fast_reg_page_list_len;
	cmd->atomic_cap = a->atomic_cap;
	cmd->num_ports = c->ibdev->num_ports;
	memcpy(cmd->fw_ver, a->fw_ver, sizeof(cmd->fw_ver));
	cmd->max_mcast_grp = a->max_mcast_grp;
	cmd->max_mcast_qp_attach = a->max_mcast_qp_attach;
	cmd->max_total_mcast_qp_attach = a->max_total_mcast_qp_attach;
	cmd->max_dm_size = a->max_dm_size;
	if (a->device_cap_flags & XRDMA_DEVICE_XRC)
		cmd->max_xrcd = a->max_xrcd;
	return 0;
}

static int xrdma_cmd_query_port(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_query_port *cmd = &c->buf->query_port;
	struct xrdma_port_attr pa;
	u32 port = cmd->port_num;
	int ret;

	ret = xrdma_query_port(c->ibdev, port, &pa);
	if (ret)
		return ret;
	memset(cmd, 0, sizeof(*cmd));
	cmd->port_num = port;
	cmd->state = pa.state;
	cmd->max_mtu = pa.max_mtu;
	cmd->active_mtu = pa.active_mtu;
	cmd->link_layer = pa.link_layer;
	cmd->gid_tbl_len = pa.gid_tbl_len;
	cmd->max_msg_sz = pa.max_msg_sz;
	cmd->pkey_tbl_len = pa.pkey_tbl_len;
	cmd->lid = pa.lid;
	cmd->active_speed = pa.active_speed;
	cmd->active_width = pa.active_width;
	return 0;
}

static int xrdma_cmd_query_gid(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_query_gid *cmd = &c->buf->query_gid;
	union xrdma_gid gid;
	int ret;

	if (cmd->index > INT_MAX)
		return -EINVAL;
	ret = xrdma_query_gid(c->ibdev, cmd->port_num, cmd->index, &gid);
	if (ret)
		return ret;
	memcpy(cmd->gid, gid.raw, sizeof(cmd->gid));
	return 0;
}

static int xrdma_cmd_query_clock(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_query_clock *cmd = &c->buf->query_clock;
	u64 clock;
	int ret;

	if (cmd->comp_mask || cmd->reserved)
		return -EINVAL;
	if (!c->ibdev->ops->read_clock)
		return -EOPNOTSUPP;
	ret = c->ibdev->ops->read_clock(c->ibdev, &clock);
	if (ret)
		return ret;
	cmd->clock = clock;
	return 0;
}

/* ---------------------------------------------------------- sharing */

/*
 * IMPORT_CONTEXT: the calling process joins the file's context (the
 * dispatcher lets any process holding the fd issue it).  The opener's own
 * process gets one more GET_ASYNC_FD of its queue; another process gets an
 * import entry with its own async queue, and one GET_ASYNC_FD per import.
 */
static int xrdma_cmd_import_context(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_import_context *cmd = &c->buf->import_context;
	struct xrdma_ufile *ufile = c->ufile;
	struct xrdma_uimport *imp;
	unsigned long flags;
	int ret;

	if (cmd->flags || cmd->reserved || !current->mm)
		return -EINVAL;
	if (!c->ibdev->ops->query_ucontext)
		return -EOPNOTSUPP;
	ret = xrdma_udata_init(c, &cmd->udata);
	if (ret)
		return ret;
	mutex_lock(&ufile->ctx_mutex);
	ret = c->ibdev->ops->query_ucontext(ufile->ucontext, &c->udata);
	if (ret)
		goto out;
	cmd->abi_version = XRDMA_ABI_VERSION;
	cmd->num_comp_vectors = 1;
	if (current->mm == ufile->mm) {
		ufile->async_fds_allowed++;
		goto out;
	}
	imp = xrdma_ufile_import_find(ufile, current->mm);
	if (imp) {
		imp->async_fds_allowed++;
		goto out;
	}
	if (ufile->nr_imports >= XRDMA_UVERBS_MAX_IMPORTS) {
		ret = -ENOSPC;
		goto out;
	}
	imp = kzalloc(sizeof(*imp), GFP_KERNEL_ACCOUNT);
	if (!imp) {
		ret = -ENOMEM;
		goto out;
	}
	imp->async = xrdma_ev_file_alloc(ufile, true);
	if (!imp->async) {
		kfree(imp);
		ret = -ENOMEM;
		goto out;
	}
	imp->mm = current->mm;
	mmgrab(imp->mm);
	imp->async_fds_allowed = 1;
	spin_lock_irqsave(&ufile->imports_lock, flags);
	list_add_tail(&imp->list, &ufile->imports);
	spin_unlock_irqrestore(&ufile->imports_lock, flags);
	ufile->nr_imports++;
out:
	mutex_unlock(&ufile->ctx_mutex);
	return ret;
}

/* handles QUERY_OBJECT looks at per hold of the handles' lock */
#define XRDMA_HANDLE_WALK_BATCH	256

/*
 * The handle of @pd in the file (0 if it has none: a kernel object).  A
 * context may hold any number of handles: the walk drops the lock after
 * every batch, so it neither keeps preemption off nor holds off the
 * file's other ioctls for long.  @pd is held by the caller's MR, so its
 * handle cannot go away during the walk.
 */
static u32 xrdma_pd_handle(struct xrdma_ufile *ufile, struct xrdma_pd *pd)
{
	XA_STATE(xas, &ufile->handles, 0);
	struct xrdma_uobj *uobj;
	unsigned int n = 0;
	u32 handle = 0;

	xas_lock(&xas);
	xas_for_each(&xas, uobj, ULONG_MAX) {
		if (xas_retry(&xas, uobj))
			continue;
		if (uobj->type == XRDMA_OBJ_PD && uobj->object == pd) {
			handle = uobj->handle;
			break;
		}
		if (++n % XRDMA_HANDLE_WALK_BATCH)
			continue;
		xas_pause(&xas);
		xas_unlock(&xas);
		cond_resched();
		xas_lock(&xas);
	}
	xas_unlock(&xas);
	return handle;
}

/* QUERY_OBJECT: a PD or an MR of the context by handle, for an import. */
static int xrdma_check_query_object(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_query_object *cmd = &c->buf->query_object;

	if (cmd->flags || cmd->pd_handle || cmd->iova || cmd->length ||
	    cmd->lkey || cmd->rkey || cmd->access || cmd->reserved)
		return -EINVAL;
	if (cmd->type != XRDMA_OBJ_PD && cmd->type != XRDMA_OBJ_MR)
		return -EINVAL;
	return 0;
}

static int xrdma_cmd_query_object(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_query_object *cmd = &c->buf->query_object;
	u32 type = cmd->type, handle = cmd->handle;
	struct xrdma_mr *mr;

	memset(cmd, 0, sizeof(*cmd));
	cmd->type = type;
	cmd->handle = handle;
	if (type == XRDMA_OBJ_MR) {
		mr = xrdma_cmd_obj(c, 0);
		cmd->pd_handle = xrdma_pd_handle(c->ufile, mr->pd);
		cmd->iova = mr->iova;
		cmd->length = mr->length;
		cmd->lkey = mr->lkey;
		cmd->rkey = mr->rkey;
		cmd->access = mr->access;
	}
	return 0;
}

/* DESTROY: any handle, by type. */
static int xrdma_check_destroy(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_destroy *cmd = &c->buf->destroy;

	if (cmd->type < XRDMA_OBJ_PD || cmd->type > XRDMA_OBJ_XRCD)
		return -EINVAL;
	return 0;
}

/*
 * The dispatcher holds the handle exclusively: -EBUSY if another command
 * or a dependent object uses it.  If the core fails, the handle stays.
 *
 * On a device that failed or is being unregistered the object is
 * destroyed as always, but the answer is -EIO (this handler's only
 * error after the handle is gone), as once the file is
 * disassociated: the process's mappings may be zapped at any moment (a
 * failed device is usually recovered, which disassociates), so its
 * library must not touch them (xverbs cleans a CQ ring of the QP's
 * completions after a destroy that succeeded), and it must not wait for
 * event acknowledgments either.  rdma_cm applications destroy their
 * QPs right when RDMA_CM_EVENT_DEVICE_REMOVAL comes, which is before
 * the disassociation.
 */
static int xrdma_cmd_destroy(struct xrdma_cmd_ctx *c)
{
	struct xrdma_uobj *uobj = c->attrs[0];
	int ret;

	ret = xrdma_uobj_hw_destroy(uobj);
	if (ret)
		return ret;
	xrdma_cmd_keep(c, 0);
	xrdma_uobj_finish(uobj, &c->buf->destroy);
	return xrdma_device_gone(c->ibdev) ? -EIO : 0;
}

static const struct xrdma_cmd_def xrdma_device_rows[] = {
	{ XRDMA_CMD(XRDMA_IOC_GET_CONTEXT, struct xrdma_cmd_get_context,
		    XRDMA_CMD_GET_CONTEXT_SIZE_VER0),
	  .fn = xrdma_cmd_get_context },
	{ XRDMA_CMD(XRDMA_IOC_IMPORT_CONTEXT, struct xrdma_cmd_import_context,
		    XRDMA_CMD_IMPORT_CONTEXT_SIZE_VER0),
	  .fn = xrdma_cmd_import_context },
	{ XRDMA_CMD(XRDMA_IOC_QUERY_DEVICE, struct xrdma_cmd_query_device,
		    XRDMA_CMD_QUERY_DEVICE_SIZE_VER0),
	  .fn = xrdma_cmd_query_device },
	{ XRDMA_CMD(XRDMA_IOC_QUERY_PORT, struct xrdma_cmd_query_port,
		    XRDMA_CMD_QUERY_PORT_SIZE_VER0),
	  .fn = xrdma_cmd_query_port },
	{ XRDMA_CMD(XRDMA_IOC_QUERY_GID, struct xrdma_cmd_query_gid,
		    XRDMA_CMD_QUERY_GID_SIZE_VER0),
	  .fn = xrdma_cmd_query_gid },
	{ XRDMA_CMD(XRDMA_IOC_QUERY_CLOCK, struct xrdma_cmd_query_clock,
		    XRDMA_CMD_QUERY_CLOCK_SIZE_VER0),
	  .fn = xrdma_cmd_query_clock },
	{ XRDMA_CMD(XRDMA_IOC_QUERY_OBJECT, struct xrdma_cmd_query_object,
		    XRDMA_CMD_QUERY_OBJECT_SIZE_VER0),
	  .check = xrdma_check_query_object, .fn = xrdma_cmd_query_object,
	  .attrs = { XRDMA_ATTR_ANY(struct xrdma_cmd_query_object, handle,
				    type, READ) } },
	{ XRDMA_CMD(XRDMA_IOC_DESTROY, struct xrdma_cmd_destroy,
		    XRDMA_CMD_DESTROY_SIZE_VER0),
	  .check = xrdma_check_destroy, .fn = xrdma_cmd_destroy,
	  .attrs = { XRDMA_ATTR_ANY(struct xrdma_cmd_destroy, handle, type,
				    DESTROY) } },
};

const struct xrdma_cmd_table xrdma_device_cmds = {
	.defs = xrdma_device_rows, .n = ARRAY_SIZE(xrdma_device_rows)
};
