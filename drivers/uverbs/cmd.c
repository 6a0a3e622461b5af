// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl commands.  See Documentation/uverbs.rst.
 */
#include <linux/capability.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/path.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <xrdma/compat.h>
#include "uverbs.h"

union xrdma_cmd_buf {
	struct xrdma_cmd_get_context get_context;
	struct xrdma_cmd_query_device query_device;
	struct xrdma_cmd_query_port query_port;
	struct xrdma_cmd_query_gid query_gid;
	struct xrdma_cmd_alloc_pd alloc_pd;
	struct xrdma_cmd_destroy destroy;
	struct xrdma_cmd_reg_mr reg_mr;
	struct xrdma_cmd_rereg_mr rereg_mr;
	struct xrdma_cmd_reg_dmabuf_mr reg_dmabuf_mr;
	struct xrdma_cmd_create_cq create_cq;
	struct xrdma_cmd_resize_cq resize_cq;
	struct xrdma_cmd_create_qp create_qp;
	struct xrdma_cmd_modify_qp modify_qp;
	struct xrdma_cmd_query_qp query_qp;
	struct xrdma_cmd_create_srq create_srq;
	struct xrdma_cmd_modify_srq modify_srq;
	struct xrdma_cmd_query_srq query_srq;
	struct xrdma_cmd_create_ah create_ah;
	struct xrdma_cmd_fd fd;
	struct xrdma_cmd_kick kick;
	struct xrdma_cmd_query_clock query_clock;
	struct xrdma_cmd_import_context import_context;
	struct xrdma_cmd_query_object query_object;
	struct xrdma_cmd_mcast mcast;
	struct xrdma_cmd_alloc_mw alloc_mw;
	struct xrdma_cmd_alloc_dm alloc_dm;
	struct xrdma_cmd_reg_dm_mr reg_dm_mr;
	struct xrdma_cmd_open_xrcd open_xrcd;
	struct xrdma_cmd_open_qp open_qp;
};

struct xrdma_cmd_ctx {
	struct xrdma_ufile *ufile;
	struct xrdma_device *ibdev;
	void __user *uptr;
	size_t usize;		/* size userspace passed */
	size_t ksize;		/* size the kernel knows */
	union xrdma_cmd_buf *buf;
	bool responded;		/* the handler copied the response itself */
};

/* Copy the response now (before committing a new object). */
static int xrdma_respond(struct xrdma_cmd_ctx *c)
{
	c->responded = true;
	if (copy_to_user(c->uptr, c->buf, min(c->usize, c->ksize)))
		return -EFAULT;
	return 0;
}

#define XRDMA_UDATA_MAX	PAGE_SIZE

static int xrdma_udata_init(struct xrdma_cmd_ctx *c,
			    const struct xrdma_udata_desc *d,
			    struct xrdma_udata *udata)
{
	if (d->in_len > XRDMA_UDATA_MAX || d->out_len > XRDMA_UDATA_MAX)
		return -EINVAL;
	udata->inbuf = u64_to_user_ptr(d->in);
	udata->outbuf = u64_to_user_ptr(d->out);
	udata->inlen = d->in_len;
	udata->outlen = d->out_len;
	udata->uctx = c->ufile->ucontext;
	return 0;
}

/* ---------------------------------------------------------- context */

static int xrdma_cmd_get_context(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_get_context *cmd = &c->buf->get_context;
	struct xrdma_ufile *ufile = c->ufile;
	struct xrdma_ucontext *uctx;
	struct xrdma_udata udata;
	struct xrdma_ev_file *async;
	int ret;

	if (cmd->flags || cmd->reserved)
		return -EINVAL;
	ret = xrdma_udata_init(c, &cmd->udata, &udata);
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
	uctx = xrdma_alloc_ucontext(c->ibdev, &udata);
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

/* ---------------------------------------------------------- objects */

/*
 * Finish a create: copy the response, then publish the handle; if the copy
 * fails, destroy the object again and release the handle.
 */
static int xrdma_create_done(struct xrdma_cmd_ctx *c, struct xrdma_uobj *uobj,
			     void *object)
{
	int ret;

	uobj->object = object;
	ret = xrdma_respond(c);
	if (!ret) {
		xrdma_uobj_commit(uobj);
		return 0;
	}
	/* nothing else can hold a fresh, unpublished object */
	WARN_ON(xrdma_uobj_hw_destroy(uobj));
	xrdma_uobj_finish(uobj, NULL);
	return ret;
}

static int xrdma_cmd_alloc_pd(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_alloc_pd *cmd = &c->buf->alloc_pd;
	struct xrdma_udata udata;
	struct xrdma_uobj *uobj;
	struct xrdma_pd *pd;
	int ret;

	if (cmd->flags)
		return -EINVAL;
	ret = xrdma_udata_init(c, &cmd->udata, &udata);
	if (ret)
		return ret;
	uobj = xrdma_uobj_alloc(c->ufile, XRDMA_OBJ_PD, 0);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	pd = __xrdma_alloc_pd(c->ibdev, 0, NULL, &udata);
	if (IS_ERR(pd)) {
		xrdma_uobj_abort(uobj);
		return PTR_ERR(pd);
	}
	cmd->pd_handle = uobj->handle;
	return xrdma_create_done(c, uobj, pd);
}

static int xrdma_cmd_destroy(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_destroy *cmd = &c->buf->destroy;

	if (cmd->type < XRDMA_OBJ_PD || cmd->type > XRDMA_OBJ_XRCD)
		return -EINVAL;
	return xrdma_uobj_destroy(c->ufile, cmd->type, cmd->handle, cmd);
}

#define XRDMA_UVERBS_ACCESS_ALL (XRDMA_UVERBS_ACCESS_LOCAL_WRITE |	\
				 XRDMA_UVERBS_ACCESS_REMOTE_WRITE |	\
				 XRDMA_UVERBS_ACCESS_REMOTE_READ |	\
				 XRDMA_UVERBS_ACCESS_REMOTE_ATOMIC |	\
				 XRDMA_UVERBS_ACCESS_MW_BIND |		\
				 XRDMA_UVERBS_ACCESS_FLUSH_GLOBAL |	\
				 XRDMA_UVERBS_ACCESS_FLUSH_PERSISTENT)

static int xrdma_cmd_reg_mr(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_reg_mr *cmd = &c->buf->reg_mr;
	struct xrdma_udata udata;
	struct xrdma_uobj *uobj, *pd_uobj;
	struct xrdma_mr *mr;
	int ret;

	if (cmd->access & ~XRDMA_UVERBS_ACCESS_ALL || cmd->reserved)
		return -EINVAL;
	ret = xrdma_udata_init(c, &cmd->udata, &udata);
	if (ret)
		return ret;
	pd_uobj = xrdma_uobj_get(c->ufile, XRDMA_OBJ_PD, cmd->pd_handle);
	if (IS_ERR(pd_uobj))
		return PTR_ERR(pd_uobj);
	uobj = xrdma_uobj_alloc(c->ufile, XRDMA_OBJ_MR, 0);
	if (IS_ERR(uobj)) {
		ret = PTR_ERR(uobj);
		goto out;
	}
	mr = xrdma_reg_user_mr(pd_uobj->object, cmd->addr, cmd->length,
			       cmd->iova, cmd->access, &udata);
	if (IS_ERR(mr)) {
		xrdma_uobj_abort(uobj);
		ret = PTR_ERR(mr);
		goto out;
	}
	cmd->mr_handle = uobj->handle;
	cmd->lkey = mr->lkey;
	cmd->rkey = mr->rkey;
	ret = xrdma_create_done(c, uobj, mr);
out:
	xrdma_uobj_put(pd_uobj);
	return ret;
}

static int xrdma_cmd_reg_dmabuf_mr(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_reg_dmabuf_mr *cmd = &c->buf->reg_dmabuf_mr;
	struct xrdma_udata udata;
	struct xrdma_uobj *uobj, *pd_uobj;
	struct xrdma_mr *mr;
	int ret;

	if (cmd->access & ~XRDMA_UVERBS_ACCESS_ALL || cmd->reserved)
		return -EINVAL;
	ret = xrdma_udata_init(c, &cmd->udata, &udata);
	if (ret)
		return ret;
	pd_uobj = xrdma_uobj_get(c->ufile, XRDMA_OBJ_PD, cmd->pd_handle);
	if (IS_ERR(pd_uobj))
		return PTR_ERR(pd_uobj);
	uobj = xrdma_uobj_alloc(c->ufile, XRDMA_OBJ_MR, 0);
	if (IS_ERR(uobj)) {
		ret = PTR_ERR(uobj);
		goto out;
	}
	mr = xrdma_reg_user_mr_dmabuf(pd_uobj->object, cmd->offset,
				      cmd->length, cmd->iova, cmd->fd,
				      cmd->access, &udata);
	if (IS_ERR(mr)) {
		xrdma_uobj_abort(uobj);
		ret = PTR_ERR(mr);
		goto out;
	}
	cmd->mr_handle = uobj->handle;
	cmd->lkey = mr->lkey;
	cmd->rkey = mr->rkey;
	ret = xrdma_create_done(c, uobj, mr);
out:
	xrdma_uobj_put(pd_uobj);
	return ret;
}

#define XRDMA_UVERBS_REREG_ALL (XRDMA_UVERBS_REREG_TRANS |		\
				XRDMA_UVERBS_REREG_PD |		\
				XRDMA_UVERBS_REREG_ACCESS)

static int xrdma_cmd_rereg_mr(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_rereg_mr *cmd = &c->buf->rereg_mr;
	struct xrdma_uobj *uobj, *pd_uobj = NULL;
	struct xrdma_mr *mr;
	int ret;

	if (cmd->reserved)
		return -EINVAL;
	if (!cmd->flags)
		return -EINVAL;
	if (cmd->flags & ~XRDMA_UVERBS_REREG_ALL)
		return -EOPNOTSUPP;
	if ((cmd->flags & XRDMA_UVERBS_REREG_ACCESS) &&
	    cmd->access & ~XRDMA_UVERBS_ACCESS_ALL)
		return -EINVAL;
	uobj = xrdma_uobj_get_write(c->ufile, XRDMA_OBJ_MR, cmd->mr_handle);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	if (cmd->flags & XRDMA_UVERBS_REREG_PD) {
		pd_uobj = xrdma_uobj_get(c->ufile, XRDMA_OBJ_PD,
					 cmd->pd_handle);
		if (IS_ERR(pd_uobj)) {
			ret = PTR_ERR(pd_uobj);
			goto out;
		}
	}
	mr = uobj->object;
	ret = xrdma_rereg_user_mr(mr, cmd->flags, cmd->addr, cmd->length,
				  cmd->iova, cmd->access,
				  pd_uobj ? pd_uobj->object : NULL);
	if (!ret) {
		cmd->lkey = mr->lkey;
		cmd->rkey = mr->rkey;
	}
	if (pd_uobj)
		xrdma_uobj_put(pd_uobj);
out:
	xrdma_uobj_put_write(uobj);
	return ret;
}

static int xrdma_cmd_alloc_mw(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_alloc_mw *cmd = &c->buf->alloc_mw;
	struct xrdma_udata udata;
	struct xrdma_uobj *uobj, *pd_uobj;
	struct xrdma_mw *mw;
	int ret;

	if (cmd->reserved[0] || cmd->reserved[1] ||
	    (cmd->type != XRDMA_UVERBS_MW_TYPE_1 &&
	     cmd->type != XRDMA_UVERBS_MW_TYPE_2))
		return -EINVAL;
	ret = xrdma_udata_init(c, &cmd->udata, &udata);
	if (ret)
		return ret;
	pd_uobj = xrdma_uobj_get(c->ufile, XRDMA_OBJ_PD, cmd->pd_handle);
	if (IS_ERR(pd_uobj))
		return PTR_ERR(pd_uobj);
	uobj = xrdma_uobj_alloc(c->ufile, XRDMA_OBJ_MW, 0);
	if (IS_ERR(uobj)) {
		ret = PTR_ERR(uobj);
		goto out;
	}
	mw = __xrdma_alloc_mw(pd_uobj->object, cmd->type, &udata, NULL);
	if (IS_ERR(mw)) {
		xrdma_uobj_abort(uobj);
		ret = PTR_ERR(mw);
		goto out;
	}
	cmd->mw_handle = uobj->handle;
	cmd->rkey = mw->rkey;
	ret = xrdma_create_done(c, uobj, mw);
out:
	xrdma_uobj_put(pd_uobj);
	return ret;
}

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

static int xrdma_cmd_create_cq(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_create_cq *cmd = &c->buf->create_cq;
	struct xrdma_cq_init_attr attr = {};
	struct xrdma_ev_file *channel = NULL;
	struct xrdma_udata udata;
	struct xrdma_uobj *uobj;
	struct xrdma_cq *cq;
	int ret;

	if (cmd->flags || cmd->reserved)
		return -EINVAL;
	if (cmd->comp_vector >= 1)
		return -EINVAL;
	ret = xrdma_udata_init(c, &cmd->udata, &udata);
	if (ret)
		return ret;
	if (cmd->channel_fd != -1) {
		channel = xrdma_get_channel(c->ufile, cmd->channel_fd);
		if (IS_ERR(channel))
			return PTR_ERR(channel);
	}
	uobj = xrdma_uobj_alloc(c->ufile, XRDMA_OBJ_CQ, cmd->user_cookie);
	if (IS_ERR(uobj)) {
		if (channel)
			xrdma_ev_file_put(channel);
		return PTR_ERR(uobj);
	}
	uobj->channel = channel;
	attr.cqe = cmd->cqe;
	attr.comp_vector = cmd->comp_vector;
	cq = __xrdma_create_cq(c->ibdev, xrdma_uverbs_comp_handler,
			       xrdma_obj_event_handler, uobj, &attr, NULL,
			       &udata);
	if (IS_ERR(cq)) {
		if (channel)
			xrdma_ev_file_put(channel);
		xrdma_uobj_abort(uobj);
		return PTR_ERR(cq);
	}
	cmd->cq_handle = uobj->handle;
	cmd->cqe = cq->cqe;
	return xrdma_create_done(c, uobj, cq);
}

static int xrdma_cmd_resize_cq(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_resize_cq *cmd = &c->buf->resize_cq;
	struct xrdma_udata udata;
	struct xrdma_uobj *uobj;
	struct xrdma_cq *cq;
	int ret;

	if (cmd->flags || cmd->reserved)
		return -EINVAL;
	ret = xrdma_udata_init(c, &cmd->udata, &udata);
	if (ret)
		return ret;
	uobj = xrdma_uobj_get(c->ufile, XRDMA_OBJ_CQ, cmd->cq_handle);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	cq = uobj->object;
	ret = __xrdma_resize_cq(cq, cmd->cqe, &udata);
	if (!ret)
		cmd->cqe = READ_ONCE(cq->cqe);
	xrdma_uobj_put(uobj);
	return ret;
}

static void xrdma_cap_from_user(struct xrdma_qp_cap *k,
				const struct xrdma_uverbs_qp_cap *u)
{
	k->max_send_wr = u->max_send_wr;
	k->max_recv_wr = u->max_recv_wr;
	k->max_send_sge = u->max_send_sge;
	k->max_recv_sge = u->max_recv_sge;
	k->max_inline_data = u->max_inline_data;
}

static void xrdma_cap_to_user(struct xrdma_uverbs_qp_cap *u,
			      const struct xrdma_qp_cap *k)
{
	u->max_send_wr = k->max_send_wr;
	u->max_recv_wr = k->max_recv_wr;
	u->max_send_sge = k->max_send_sge;
	u->max_recv_sge = k->max_recv_sge;
	u->max_inline_data = k->max_inline_data;
	u->reserved = 0;
}

/*
 * The handles CREATE_QP takes by QP type: an XRC_SEND QP has a PD and a
 * send CQ only (its receive sizes are ignored and reported 0, as Linux
 * does); an XRC_RECV QP has an XRCD only (its sizes are ignored and
 * reported 0); the others have a PD, two CQs and maybe an SRQ, no XRCD.
 * Unused handles must be 0.
 */
static int xrdma_create_qp_check(struct xrdma_cmd_create_qp *cmd)
{
	bool srq = cmd->flags & XRDMA_UVERBS_CREATE_QP_SRQ;

	if (cmd->flags & ~(XRDMA_UVERBS_CREATE_QP_SRQ |
			   XRDMA_UVERBS_CREATE_QP_SQ_SIG_ALL) ||
	    cmd->cap.reserved || cmd->reserved2)
		return -EINVAL;
	if (!srq && cmd->srq_handle)
		return -EINVAL;
	switch (cmd->qp_type) {
	case XRDMA_QPT_GSI:
		/* the GSI QP belongs to the kernel (ib_mad) */
		return -EINVAL;
	case XRDMA_UVERBS_QPT_XRC_SEND:
		if (srq || cmd->recv_cq_handle || cmd->xrcd_handle)
			return -EINVAL;
		cmd->cap.max_recv_wr = 0;
		cmd->cap.max_recv_sge = 0;
		return 0;
	case XRDMA_UVERBS_QPT_XRC_RECV:
		if (srq || cmd->pd_handle || cmd->send_cq_handle ||
		    cmd->recv_cq_handle)
			return -EINVAL;
		memset(&cmd->cap, 0, sizeof(cmd->cap));
		return 0;
	default:
		return cmd->xrcd_handle ? -EINVAL : 0;
	}
}

static int xrdma_cmd_create_qp(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_create_qp *cmd = &c->buf->create_qp;
	struct xrdma_uobj *pd_u = NULL, *scq_u = NULL, *rcq_u = NULL;
	struct xrdma_uobj *srq_u = NULL, *xrcd_u = NULL, *uobj;
	bool recv = cmd->qp_type == XRDMA_UVERBS_QPT_XRC_RECV;
	bool send = cmd->qp_type == XRDMA_UVERBS_QPT_XRC_SEND;
	struct xrdma_qp_init_attr attr = {};
	struct xrdma_udata udata;
	struct xrdma_qp *qp;
	int ret;

	ret = xrdma_create_qp_check(cmd);
	if (ret)
		return ret;
	ret = xrdma_udata_init(c, &cmd->udata, &udata);
	if (ret)
		return ret;

	if (recv) {
		xrcd_u = xrdma_uobj_get(c->ufile, XRDMA_OBJ_XRCD,
					cmd->xrcd_handle);
		if (IS_ERR(xrcd_u))
			return PTR_ERR(xrcd_u);
		goto alloc;
	}
	pd_u = xrdma_uobj_get(c->ufile, XRDMA_OBJ_PD, cmd->pd_handle);
	if (IS_ERR(pd_u))
		return PTR_ERR(pd_u);
	scq_u = xrdma_uobj_get(c->ufile, XRDMA_OBJ_CQ, cmd->send_cq_handle);
	if (IS_ERR(scq_u)) {
		ret = PTR_ERR(scq_u);
		scq_u = NULL;
		goto put;
	}
	if (send)
		goto alloc;
	rcq_u = xrdma_uobj_get(c->ufile, XRDMA_OBJ_CQ, cmd->recv_cq_handle);
	if (IS_ERR(rcq_u)) {
		ret = PTR_ERR(rcq_u);
		rcq_u = NULL;
		goto put;
	}
	if (cmd->flags & XRDMA_UVERBS_CREATE_QP_SRQ) {
		srq_u = xrdma_uobj_get(c->ufile, XRDMA_OBJ_SRQ,
				       cmd->srq_handle);
		if (IS_ERR(srq_u)) {
			ret = PTR_ERR(srq_u);
			srq_u = NULL;
			goto put;
		}
	}
alloc:
	uobj = xrdma_uobj_alloc(c->ufile, XRDMA_OBJ_QP, cmd->user_cookie);
	if (IS_ERR(uobj)) {
		ret = PTR_ERR(uobj);
		goto put;
	}
	attr.event_handler = xrdma_obj_event_handler;
	attr.qp_context = uobj;
	attr.send_cq = scq_u ? scq_u->object : NULL;
	attr.recv_cq = rcq_u ? rcq_u->object : NULL;
	attr.srq = srq_u ? srq_u->object : NULL;
	attr.xrcd = xrcd_u ? xrcd_u->object : NULL;
	attr.qp_type = cmd->qp_type;
	attr.sq_sig_all = !!(cmd->flags & XRDMA_UVERBS_CREATE_QP_SQ_SIG_ALL);
	xrdma_cap_from_user(&attr.cap, &cmd->cap);
	qp = __xrdma_create_qp(pd_u ? pd_u->object : NULL, &attr, NULL,
			       &udata);
	if (IS_ERR(qp)) {
		xrdma_uobj_abort(uobj);
		ret = PTR_ERR(qp);
		goto put;
	}
	cmd->qp_handle = uobj->handle;
	cmd->qpn = qp->qp_num;
	xrdma_cap_to_user(&cmd->cap, &attr.cap);
	/* the QP keeps its use of the XRCD handle until it is destroyed */
	uobj->xrcd_uobj = xrcd_u;
	xrcd_u = NULL;
	ret = xrdma_create_done(c, uobj, qp);
put:
	if (xrcd_u)
		xrdma_uobj_put(xrcd_u);
	if (srq_u)
		xrdma_uobj_put(srq_u);
	if (rcq_u)
		xrdma_uobj_put(rcq_u);
	if (scq_u)
		xrdma_uobj_put(scq_u);
	if (pd_u)
		xrdma_uobj_put(pd_u);
	return ret;
}

static void xrdma_ah_from_user(struct xrdma_ah_attr *k,
			       const struct xrdma_uverbs_ah_attr *u)
{
	memcpy(k->dgid.raw, u->dgid, sizeof(k->dgid.raw));
	k->flow_label = u->flow_label;
	k->dlid = u->dlid;
	k->sgid_index = u->sgid_index;
	k->hop_limit = u->hop_limit;
	k->traffic_class = u->traffic_class;
	k->sl = u->sl;
	k->port_num = u->port_num;
	k->is_global = u->is_global;
	memcpy(k->dmac, u->dmac, sizeof(k->dmac));
}

static void xrdma_ah_to_user(struct xrdma_uverbs_ah_attr *u,
			     const struct xrdma_ah_attr *k)
{
	memset(u, 0, sizeof(*u));
	memcpy(u->dgid, k->dgid.raw, sizeof(u->dgid));
	u->flow_label = k->flow_label;
	u->dlid = k->dlid;
	u->sgid_index = k->sgid_index;
	u->hop_limit = k->hop_limit;
	u->traffic_class = k->traffic_class;
	u->sl = k->sl;
	u->port_num = k->port_num;
	u->is_global = k->is_global;
	memcpy(u->dmac, k->dmac, sizeof(u->dmac));
}

static int xrdma_cmd_modify_qp(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_modify_qp *cmd = &c->buf->modify_qp;
	const struct xrdma_uverbs_qp_attr *u = &cmd->attr;
	struct xrdma_qp_attr a = {};
	struct xrdma_udata udata;
	struct xrdma_uobj *uobj;
	int ret;

	if (cmd->attr_mask & ~XRDMA_QP_ATTR_MASK_ALL || cmd->reserved ||
	    u->cap.reserved ||
	    memchr_inv(u->reserved, 0, sizeof(u->reserved)) ||
	    memchr_inv(u->ah_attr.reserved, 0, sizeof(u->ah_attr.reserved)))
		return -EINVAL;
	/*
	 * A controlled Q_Key (bit 31) is for privileged users, as upstream
	 * uverbs has it: otherwise any process could reach the UD QPs of
	 * kernel ULPs that rely on one.
	 */
	if (cmd->attr_mask & XRDMA_QP_QKEY && u->qkey & XRDMA_QKEY_CONTROLLED &&
	    !capable(CAP_NET_RAW))
		return -EPERM;
	ret = xrdma_udata_init(c, &cmd->udata, &udata);
	if (ret)
		return ret;
	a.qp_state = u->qp_state;
	a.cur_qp_state = u->cur_qp_state;
	a.path_mtu = u->path_mtu;
	a.qkey = u->qkey;
	a.rq_psn = u->rq_psn;
	a.sq_psn = u->sq_psn;
	a.dest_qp_num = u->dest_qp_num;
	a.qp_access_flags = u->qp_access_flags;
	xrdma_cap_from_user(&a.cap, &u->cap);
	xrdma_ah_from_user(&a.ah_attr, &u->ah_attr);
	a.pkey_index = u->pkey_index;
	a.en_sqd_async_notify = u->en_sqd_async_notify;
	a.max_rd_atomic = u->max_rd_atomic;
	a.max_dest_rd_atomic = u->max_dest_rd_atomic;
	a.min_rnr_timer = u->min_rnr_timer;
	a.port_num = u->port_num;
	a.timeout = u->timeout;
	a.retry_cnt = u->retry_cnt;
	a.rnr_retry = u->rnr_retry;
	a.path_mig_state = u->path_mig_state;

	uobj = xrdma_uobj_get(c->ufile, XRDMA_OBJ_QP, cmd->qp_handle);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	/*
	 * Only the creator's handle of an XRC_RECV QP modifies it (unlike
	 * ib_core): a domain member that opened another's QP by number
	 * could otherwise move it to ERR or RESET behind the owner's back.
	 * Query and events stay shared (Documentation/security.rst, "XRC
	 * domains").
	 */
	if (uobj->qp_open) {
		xrdma_uobj_put(uobj);
		return -EPERM;
	}
	ret = __xrdma_modify_qp(uobj->object, &a, cmd->attr_mask, &udata);
	xrdma_uobj_put(uobj);
	return ret;
}

static int xrdma_cmd_query_qp(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_query_qp *cmd = &c->buf->query_qp;
	struct xrdma_uverbs_qp_attr *u = &cmd->attr;
	struct xrdma_qp_init_attr init;
	struct xrdma_qp_attr a;
	struct xrdma_uobj *uobj;
	u32 handle = cmd->qp_handle, mask = cmd->attr_mask;
	int ret;

	if (mask & ~XRDMA_QP_ATTR_MASK_ALL)
		return -EINVAL;
	uobj = xrdma_uobj_get(c->ufile, XRDMA_OBJ_QP, handle);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	ret = xrdma_query_qp(uobj->object, &a, mask, &init);
	xrdma_uobj_put(uobj);
	if (ret)
		return ret;
	memset(cmd, 0, sizeof(*cmd));
	cmd->qp_handle = handle;
	cmd->attr_mask = mask;
	u->qp_state = a.qp_state;
	u->cur_qp_state = a.cur_qp_state;
	u->path_mtu = a.path_mtu;
	u->qkey = a.qkey;
	u->rq_psn = a.rq_psn;
	u->sq_psn = a.sq_psn;
	u->dest_qp_num = a.dest_qp_num;
	u->qp_access_flags = a.qp_access_flags;
	xrdma_cap_to_user(&u->cap, &a.cap);
	xrdma_ah_to_user(&u->ah_attr, &a.ah_attr);
	u->pkey_index = a.pkey_index;
	u->en_sqd_async_notify = a.en_sqd_async_notify;
	u->sq_draining = a.sq_draining;
	u->max_rd_atomic = a.max_rd_atomic;
	u->max_dest_rd_atomic = a.max_dest_rd_atomic;
	u->min_rnr_timer = a.min_rnr_timer;
	u->port_num = a.port_num;
	u->timeout = a.timeout;
	u->retry_cnt = a.retry_cnt;
	u->rnr_retry = a.rnr_retry;
	u->path_mig_state = a.path_mig_state;
	cmd->qp_type = init.qp_type;
	cmd->sq_sig_all = init.sq_sig_all;
	xrdma_cap_to_user(&cmd->init_cap, &init.cap);
	return 0;
}

/*
 * CREATE_SRQ: a basic SRQ (VER0 callers: srq_type 0, no XRCD or CQ), or
 * since VER1 an XRC SRQ in an XRCD of this context, completing to a CQ.
 */
static int xrdma_cmd_create_srq(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_create_srq *cmd = &c->buf->create_srq;
	struct xrdma_uobj *pd_u, *xrcd_u = NULL, *cq_u = NULL, *uobj;
	struct xrdma_srq_init_attr attr = {};
	struct xrdma_udata udata;
	struct xrdma_srq *srq;
	int ret;

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
	ret = xrdma_udata_init(c, &cmd->udata, &udata);
	if (ret)
		return ret;
	pd_u = xrdma_uobj_get(c->ufile, XRDMA_OBJ_PD, cmd->pd_handle);
	if (IS_ERR(pd_u))
		return PTR_ERR(pd_u);
	if (cmd->srq_type == XRDMA_UVERBS_SRQT_XRC) {
		xrcd_u = xrdma_uobj_get(c->ufile, XRDMA_OBJ_XRCD,
					cmd->xrcd_handle);
		if (IS_ERR(xrcd_u)) {
			ret = PTR_ERR(xrcd_u);
			xrcd_u = NULL;
			goto out;
		}
		cq_u = xrdma_uobj_get(c->ufile, XRDMA_OBJ_CQ, cmd->cq_handle);
		if (IS_ERR(cq_u)) {
			ret = PTR_ERR(cq_u);
			cq_u = NULL;
			goto out;
		}
	}
	uobj = xrdma_uobj_alloc(c->ufile, XRDMA_OBJ_SRQ, cmd->user_cookie);
	if (IS_ERR(uobj)) {
		ret = PTR_ERR(uobj);
		goto out;
	}
	attr.event_handler = xrdma_obj_event_handler;
	attr.srq_context = uobj;
	attr.attr.max_wr = cmd->max_wr;
	attr.attr.max_sge = cmd->max_sge;
	attr.attr.srq_limit = cmd->srq_limit;
	attr.srq_type = cmd->srq_type;
	attr.xrcd = xrcd_u ? xrcd_u->object : NULL;
	attr.cq = cq_u ? cq_u->object : NULL;
	srq = __xrdma_create_srq(pd_u->object, &attr, NULL, &udata);
	if (IS_ERR(srq)) {
		xrdma_uobj_abort(uobj);
		ret = PTR_ERR(srq);
		goto out;
	}
	cmd->srq_handle = uobj->handle;
	cmd->max_wr = attr.attr.max_wr;
	cmd->max_sge = attr.attr.max_sge;
	cmd->srq_num = srq->srq_num;
	/* the SRQ keeps its use of the XRCD handle until it is destroyed */
	uobj->xrcd_uobj = xrcd_u;
	xrcd_u = NULL;
	ret = xrdma_create_done(c, uobj, srq);
out:
	if (cq_u)
		xrdma_uobj_put(cq_u);
	if (xrcd_u)
		xrdma_uobj_put(xrcd_u);
	xrdma_uobj_put(pd_u);
	return ret;
}

static int xrdma_cmd_modify_srq(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_modify_srq *cmd = &c->buf->modify_srq;
	struct xrdma_srq_attr attr = {};
	struct xrdma_udata udata;
	struct xrdma_uobj *uobj;
	int ret;

	if (cmd->attr_mask & ~(XRDMA_UVERBS_SRQ_MAX_WR |
			       XRDMA_UVERBS_SRQ_LIMIT))
		return -EINVAL;
	ret = xrdma_udata_init(c, &cmd->udata, &udata);
	if (ret)
		return ret;
	uobj = xrdma_uobj_get(c->ufile, XRDMA_OBJ_SRQ, cmd->srq_handle);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	attr.max_wr = cmd->max_wr;
	attr.srq_limit = cmd->srq_limit;
	ret = __xrdma_modify_srq(uobj->object, &attr, cmd->attr_mask, &udata);
	xrdma_uobj_put(uobj);
	return ret;
}

static int xrdma_cmd_query_srq(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_query_srq *cmd = &c->buf->query_srq;
	struct xrdma_srq_attr attr;
	struct xrdma_uobj *uobj;
	int ret;

	uobj = xrdma_uobj_get(c->ufile, XRDMA_OBJ_SRQ, cmd->srq_handle);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	ret = xrdma_query_srq(uobj->object, &attr);
	xrdma_uobj_put(uobj);
	if (ret)
		return ret;
	cmd->max_wr = attr.max_wr;
	cmd->max_sge = attr.max_sge;
	cmd->srq_limit = attr.srq_limit;
	return 0;
}

static int xrdma_cmd_create_ah(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_create_ah *cmd = &c->buf->create_ah;
	struct xrdma_ah_attr attr = {};
	struct xrdma_uobj *pd_u, *uobj;
	struct xrdma_udata udata;
	struct xrdma_ah *ah;
	int ret;

	if (cmd->reserved ||
	    memchr_inv(cmd->attr.reserved, 0, sizeof(cmd->attr.reserved)))
		return -EINVAL;
	ret = xrdma_udata_init(c, &cmd->udata, &udata);
	if (ret)
		return ret;
	xrdma_ah_from_user(&attr, &cmd->attr);
	pd_u = xrdma_uobj_get(c->ufile, XRDMA_OBJ_PD, cmd->pd_handle);
	if (IS_ERR(pd_u))
		return PTR_ERR(pd_u);
	uobj = xrdma_uobj_alloc(c->ufile, XRDMA_OBJ_AH, cmd->user_cookie);
	if (IS_ERR(uobj)) {
		ret = PTR_ERR(uobj);
		goto out;
	}
	ah = __xrdma_create_ah(pd_u->object, &attr, 0, NULL, &udata);
	if (IS_ERR(ah)) {
		xrdma_uobj_abort(uobj);
		ret = PTR_ERR(ah);
		goto out;
	}
	cmd->ah_handle = uobj->handle;
	ret = xrdma_create_done(c, uobj, ah);
out:
	xrdma_uobj_put(pd_u);
	return ret;
}

/* -------------------------------------------------------------- fds */

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

static int xrdma_cmd_kick(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_kick *cmd = &c->buf->kick;
	struct xrdma_uobj *uobj = NULL;
	int ret;

	if (cmd->flags)
		return -EINVAL;
	if (!c->ibdev->ops->kick)
		return -EOPNOTSUPP;
	if (cmd->qp_handle) {
		uobj = xrdma_uobj_get(c->ufile, XRDMA_OBJ_QP, cmd->qp_handle);
		if (IS_ERR(uobj))
			return PTR_ERR(uobj);
		/* an XRC_RECV QP has no queue to work on */
		if (((struct xrdma_qp *)uobj->object)->qp_type ==
		    XRDMA_QPT_XRC_TGT) {
			xrdma_uobj_put(uobj);
			return -EINVAL;
		}
	}
	ret = c->ibdev->ops->kick(c->ufile->ucontext,
				  uobj ? uobj->object : NULL);
	if (uobj)
		xrdma_uobj_put(uobj);
	return ret;
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
	struct xrdma_udata udata;
	unsigned long flags;
	int ret;

	if (cmd->flags || cmd->reserved || !current->mm)
		return -EINVAL;
	if (!c->ibdev->ops->query_ucontext)
		return -EOPNOTSUPP;
	ret = xrdma_udata_init(c, &cmd->udata, &udata);
	if (ret)
		return ret;
	mutex_lock(&ufile->ctx_mutex);
	ret = c->ibdev->ops->query_ucontext(ufile->ucontext, &udata);
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
static int xrdma_cmd_query_object(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_query_object *cmd = &c->buf->query_object;
	struct xrdma_uobj *uobj;
	struct xrdma_mr *mr;
	u32 type = cmd->type, handle = cmd->handle;

	if (cmd->flags || cmd->pd_handle || cmd->iova || cmd->length ||
	    cmd->lkey || cmd->rkey || cmd->access || cmd->reserved)
		return -EINVAL;
	if (type != XRDMA_OBJ_PD && type != XRDMA_OBJ_MR)
		return -EINVAL;
	uobj = xrdma_uobj_get(c->ufile, type, handle);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	memset(cmd, 0, sizeof(*cmd));
	cmd->type = type;
	cmd->handle = handle;
	if (type == XRDMA_OBJ_MR) {
		mr = uobj->object;
		cmd->pd_handle = xrdma_pd_handle(c->ufile, mr->pd);
		cmd->iova = mr->iova;
		cmd->length = mr->length;
		cmd->lkey = mr->lkey;
		cmd->rkey = mr->rkey;
		cmd->access = mr->access;
	}
	xrdma_uobj_put(uobj);
	return 0;
}

/* ATTACH_MCAST, DETACH_MCAST: the core keeps the QP's groups. */
static int xrdma_cmd_mcast(struct xrdma_cmd_ctx *c, bool attach)
{
	struct xrdma_cmd_mcast *cmd = &c->buf->mcast;
	union xrdma_gid gid;
	struct xrdma_uobj *uobj;
	int ret;

	if (cmd->reserved)
		return -EINVAL;
	memcpy(gid.raw, cmd->gid, sizeof(gid.raw));
	uobj = xrdma_uobj_get(c->ufile, XRDMA_OBJ_QP, cmd->qp_handle);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	if (attach)
		ret = xrdma_attach_mcast(uobj->object, &gid, cmd->lid);
	else
		ret = xrdma_detach_mcast(uobj->object, &gid, cmd->lid);
	xrdma_uobj_put(uobj);
	return ret;
}

static int xrdma_cmd_attach_mcast(struct xrdma_cmd_ctx *c)
{
	return xrdma_cmd_mcast(c, true);
}

static int xrdma_cmd_detach_mcast(struct xrdma_cmd_ctx *c)
{
	return xrdma_cmd_mcast(c, false);
}

/* --------------------------------------------------- device memory */

static int xrdma_cmd_alloc_dm(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_alloc_dm *cmd = &c->buf->alloc_dm;
	struct xrdma_udata udata = { .uctx = c->ufile->ucontext };
	struct xrdma_uobj *uobj;
	struct xrdma_dm *dm;

	if (cmd->comp_mask || cmd->reserved)
		return -EINVAL;
	uobj = xrdma_uobj_alloc(c->ufile, XRDMA_OBJ_DM, 0);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	dm = xrdma_alloc_dm(c->ibdev, cmd->length, cmd->log_align_req, &udata);
	if (IS_ERR(dm)) {
		xrdma_uobj_abort(uobj);
		return PTR_ERR(dm);
	}
	dm->uobject = uobj;
	cmd->dm_handle = uobj->handle;
	cmd->mmap_offset = dm->mmap_offset;
	cmd->mmap_length = dm->mmap_length;
	return xrdma_create_done(c, uobj, dm);
}

static int xrdma_cmd_reg_dm_mr(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_reg_dm_mr *cmd = &c->buf->reg_dm_mr;
	struct xrdma_uobj *uobj, *pd_uobj, *dm_uobj;
	struct xrdma_mr *mr;
	int ret;

	if (cmd->access & ~XRDMA_UVERBS_ACCESS_ALL)
		return -EINVAL;
	pd_uobj = xrdma_uobj_get(c->ufile, XRDMA_OBJ_PD, cmd->pd_handle);
	if (IS_ERR(pd_uobj))
		return PTR_ERR(pd_uobj);
	dm_uobj = xrdma_uobj_get(c->ufile, XRDMA_OBJ_DM, cmd->dm_handle);
	if (IS_ERR(dm_uobj)) {
		ret = PTR_ERR(dm_uobj);
		goto out_pd;
	}
	uobj = xrdma_uobj_alloc(c->ufile, XRDMA_OBJ_MR, 0);
	if (IS_ERR(uobj)) {
		ret = PTR_ERR(uobj);
		goto out;
	}
	mr = xrdma_reg_dm_mr(pd_uobj->object, dm_uobj->object, cmd->offset,
			     cmd->length, cmd->access);
	if (IS_ERR(mr)) {
		xrdma_uobj_abort(uobj);
		ret = PTR_ERR(mr);
		goto out;
	}
	cmd->mr_handle = uobj->handle;
	cmd->lkey = mr->lkey;
	cmd->rkey = mr->rkey;
	ret = xrdma_create_done(c, uobj, mr);
out:
	xrdma_uobj_put(dm_uobj);
out_pd:
	xrdma_uobj_put(pd_uobj);
	return ret;
}

/* -------------------------------------------------------------- XRC */

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
static int xrdma_cmd_open_xrcd(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_open_xrcd *cmd = &c->buf->open_xrcd;
	struct xrdma_uverbs_dev *udev = c->ufile->udev;
	struct xrdma_uxrcd *ux = NULL;
	struct xrdma_xrcd *xrcd;
	struct xrdma_uobj *uobj;
	struct fd f = {};
	int ret = 0;

	if (cmd->oflags & ~(O_CREAT | O_EXCL) || cmd->reserved)
		return -EINVAL;
	if (!(c->ibdev->attr.device_cap_flags & XRDMA_DEVICE_XRC))
		return -EOPNOTSUPP;
	uobj = xrdma_uobj_alloc(c->ufile, XRDMA_OBJ_XRCD, 0);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	mutex_lock(&udev->xrcd_lock);
	if (cmd->fd != -1) {
		f = fdget(cmd->fd);
		if (!fd_file(f)) {
			ret = -EBADF;
			goto err;
		}
		/*
		 * a regular file only: its permissions say who may share
		 * the domain; every anonymous-inode fd (eventfd, epoll,
		 * ...) and every pipe or socket of a kind names one
		 * inode that anybody can open
		 */
		if (!S_ISREG(file_inode(fd_file(f))->i_mode)) {
			ret = -EINVAL;
			goto err;
		}
		ux = xrdma_uxrcd_find(udev, file_inode(fd_file(f)));
		if (!ux && !(cmd->oflags & O_CREAT))
			ret = -ENOENT;
		else if (ux && cmd->oflags & O_EXCL)
			ret = -EEXIST;
		if (ret)
			goto err;
		if (ux) {
			/* a member pays for its own handle */
			ret = xrdma_xrcd_charge_handle(ux->xrcd,
						       &uobj->xrcd_charge,
						       false);
			if (ret)
				goto err;
			ux->handles++;
			xrcd = ux->xrcd;
			goto done;
		}
		ux = kzalloc(sizeof(*ux), GFP_KERNEL_ACCOUNT);
		if (!ux) {
			ret = -ENOMEM;
			goto err;
		}
	}
	xrcd = __xrdma_alloc_xrcd(c->ibdev, NULL);
	if (IS_ERR(xrcd)) {
		ret = PTR_ERR(xrcd);
		kfree(ux);
		goto err;
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
	mutex_unlock(&udev->xrcd_lock);
	fdput(f);
	cmd->xrcd_handle = uobj->handle;
	/* a failed copy closes this handle again (xrdma_uverbs_close_xrcd) */
	return xrdma_create_done(c, uobj, xrcd);

err:
	mutex_unlock(&udev->xrcd_lock);
	fdput(f);
	xrdma_uobj_abort(uobj);
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
static int xrdma_cmd_open_qp(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_open_qp *cmd = &c->buf->open_qp;
	struct xrdma_qp_open_attr attr = {};
	struct xrdma_uobj *xrcd_u, *uobj;
	struct xrdma_qp_open *open;

	if (cmd->qp_type != XRDMA_UVERBS_QPT_XRC_RECV)
		return -EINVAL;
	xrcd_u = xrdma_uobj_get(c->ufile, XRDMA_OBJ_XRCD, cmd->xrcd_handle);
	if (IS_ERR(xrcd_u))
		return PTR_ERR(xrcd_u);
	uobj = xrdma_uobj_alloc(c->ufile, XRDMA_OBJ_QP, cmd->user_cookie);
	if (IS_ERR(uobj)) {
		xrdma_uobj_put(xrcd_u);
		return PTR_ERR(uobj);
	}
	attr.event_handler = xrdma_obj_event_handler;
	attr.qp_context = uobj;
	attr.qp_num = cmd->qpn;
	attr.qp_type = XRDMA_QPT_XRC_TGT;
	open = __xrdma_open_qp(xrcd_u->object, &attr, NULL);
	if (IS_ERR(open)) {
		xrdma_uobj_abort(uobj);
		xrdma_uobj_put(xrcd_u);
		return PTR_ERR(open);
	}
	/* the handle keeps its use of the XRCD handle until destroyed */
	uobj->xrcd_uobj = xrcd_u;
	uobj->qp_open = open;
	cmd->qp_handle = uobj->handle;
	return xrdma_create_done(c, uobj, open->qp);
}

/* ---------------------------------------------------------- dispatch */

struct xrdma_cmd_def {
	int (*fn)(struct xrdma_cmd_ctx *c);
	size_t size;		/* current structure */
	size_t min_size;	/* first published structure */
};

/*
 * type is struct xrdma_cmd_NAME and its first published size is
 * XRDMA_CMD_NAME_SIZE_VER0 (tools/testing/uverbs/header-test.sh checks it
 * is not larger): a newer structure only grows at its end.
 */
#define CMD(nr, func, type, ver0)					\
	[_IOC_NR(nr)] = { .fn = func, .size = sizeof(type), .min_size = ver0 }

static const struct xrdma_cmd_def xrdma_cmds[] = {
	CMD(XRDMA_IOC_GET_CONTEXT, xrdma_cmd_get_context,
	    struct xrdma_cmd_get_context,
	    XRDMA_CMD_GET_CONTEXT_SIZE_VER0),
	CMD(XRDMA_IOC_QUERY_DEVICE, xrdma_cmd_query_device,
	    struct xrdma_cmd_query_device,
	    XRDMA_CMD_QUERY_DEVICE_SIZE_VER0),
	CMD(XRDMA_IOC_QUERY_PORT, xrdma_cmd_query_port,
	    struct xrdma_cmd_query_port,
	    XRDMA_CMD_QUERY_PORT_SIZE_VER0),
	CMD(XRDMA_IOC_QUERY_GID, xrdma_cmd_query_gid,
	    struct xrdma_cmd_query_gid,
	    XRDMA_CMD_QUERY_GID_SIZE_VER0),
	CMD(XRDMA_IOC_ALLOC_PD, xrdma_cmd_alloc_pd,
	    struct xrdma_cmd_alloc_pd,
	    XRDMA_CMD_ALLOC_PD_SIZE_VER0),
	CMD(XRDMA_IOC_DESTROY, xrdma_cmd_destroy, struct xrdma_cmd_destroy,
	    XRDMA_CMD_DESTROY_SIZE_VER0),
	CMD(XRDMA_IOC_REG_MR, xrdma_cmd_reg_mr, struct xrdma_cmd_reg_mr,
	    XRDMA_CMD_REG_MR_SIZE_VER0),
	CMD(XRDMA_IOC_CREATE_CQ, xrdma_cmd_create_cq,
	    struct xrdma_cmd_create_cq,
	    XRDMA_CMD_CREATE_CQ_SIZE_VER0),
	CMD(XRDMA_IOC_CREATE_QP, xrdma_cmd_create_qp,
	    struct xrdma_cmd_create_qp,
	    XRDMA_CMD_CREATE_QP_SIZE_VER0),
	CMD(XRDMA_IOC_MODIFY_QP, xrdma_cmd_modify_qp,
	    struct xrdma_cmd_modify_qp,
	    XRDMA_CMD_MODIFY_QP_SIZE_VER0),
	CMD(XRDMA_IOC_QUERY_QP, xrdma_cmd_query_qp,
	    struct xrdma_cmd_query_qp,
	    XRDMA_CMD_QUERY_QP_SIZE_VER0),
	CMD(XRDMA_IOC_CREATE_SRQ, xrdma_cmd_create_srq,
	    struct xrdma_cmd_create_srq,
	    XRDMA_CMD_CREATE_SRQ_SIZE_VER0),
	CMD(XRDMA_IOC_MODIFY_SRQ, xrdma_cmd_modify_srq,
	    struct xrdma_cmd_modify_srq,
	    XRDMA_CMD_MODIFY_SRQ_SIZE_VER0),
	CMD(XRDMA_IOC_QUERY_SRQ, xrdma_cmd_query_srq,
	    struct xrdma_cmd_query_srq,
	    XRDMA_CMD_QUERY_SRQ_SIZE_VER0),
	CMD(XRDMA_IOC_CREATE_AH, xrdma_cmd_create_ah,
	    struct xrdma_cmd_create_ah,
	    XRDMA_CMD_CREATE_AH_SIZE_VER0),
	CMD(XRDMA_IOC_CREATE_COMP_CHANNEL, xrdma_cmd_create_comp_channel,
	    struct xrdma_cmd_fd,
	    XRDMA_CMD_FD_SIZE_VER0),
	CMD(XRDMA_IOC_GET_ASYNC_FD, xrdma_cmd_get_async_fd,
	    struct xrdma_cmd_fd,
	    XRDMA_CMD_FD_SIZE_VER0),
	CMD(XRDMA_IOC_KICK, xrdma_cmd_kick, struct xrdma_cmd_kick,
	    XRDMA_CMD_KICK_SIZE_VER0),
	CMD(XRDMA_IOC_QUERY_CLOCK, xrdma_cmd_query_clock,
	    struct xrdma_cmd_query_clock,
	    XRDMA_CMD_QUERY_CLOCK_SIZE_VER0),
	CMD(XRDMA_IOC_ALLOC_MW, xrdma_cmd_alloc_mw,
	    struct xrdma_cmd_alloc_mw,
	    XRDMA_CMD_ALLOC_MW_SIZE_VER0),
	CMD(XRDMA_IOC_IMPORT_CONTEXT, xrdma_cmd_import_context,
	    struct xrdma_cmd_import_context,
	    XRDMA_CMD_IMPORT_CONTEXT_SIZE_VER0),
	CMD(XRDMA_IOC_QUERY_OBJECT, xrdma_cmd_query_object,
	    struct xrdma_cmd_query_object,
	    XRDMA_CMD_QUERY_OBJECT_SIZE_VER0),
	CMD(XRDMA_IOC_REREG_MR, xrdma_cmd_rereg_mr,
	    struct xrdma_cmd_rereg_mr,
	    XRDMA_CMD_REREG_MR_SIZE_VER0),
	CMD(XRDMA_IOC_REG_DMABUF_MR, xrdma_cmd_reg_dmabuf_mr,
	    struct xrdma_cmd_reg_dmabuf_mr,
	    XRDMA_CMD_REG_DMABUF_MR_SIZE_VER0),
	CMD(XRDMA_IOC_RESIZE_CQ, xrdma_cmd_resize_cq,
	    struct xrdma_cmd_resize_cq,
	    XRDMA_CMD_RESIZE_CQ_SIZE_VER0),
	CMD(XRDMA_IOC_ATTACH_MCAST, xrdma_cmd_attach_mcast,
	    struct xrdma_cmd_mcast, XRDMA_CMD_MCAST_SIZE_VER0),
	CMD(XRDMA_IOC_DETACH_MCAST, xrdma_cmd_detach_mcast,
	    struct xrdma_cmd_mcast, XRDMA_CMD_MCAST_SIZE_VER0),
	CMD(XRDMA_IOC_ALLOC_DM, xrdma_cmd_alloc_dm, struct xrdma_cmd_alloc_dm,
	    XRDMA_CMD_ALLOC_DM_SIZE_VER0),
	CMD(XRDMA_IOC_REG_DM_MR, xrdma_cmd_reg_dm_mr,
	    struct xrdma_cmd_reg_dm_mr, XRDMA_CMD_REG_DM_MR_SIZE_VER0),
	CMD(XRDMA_IOC_OPEN_XRCD, xrdma_cmd_open_xrcd,
	    struct xrdma_cmd_open_xrcd, XRDMA_CMD_OPEN_XRCD_SIZE_VER0),
	CMD(XRDMA_IOC_OPEN_QP, xrdma_cmd_open_qp, struct xrdma_cmd_open_qp,
	    XRDMA_CMD_OPEN_QP_SIZE_VER0),
};

long xrdma_uverbs_ioctl(struct file *filp, unsigned int cmd,
			unsigned long arg)
{
	struct xrdma_ufile *ufile = filp->private_data;
	const struct xrdma_cmd_def *def;
	union xrdma_cmd_buf buf;
	struct xrdma_cmd_ctx c = {
		.ufile = ufile,
		.uptr = (void __user *)arg,
		.usize = _IOC_SIZE(cmd),
		.buf = &buf,
	};
	unsigned int nr = _IOC_NR(cmd);
	int ret;

	if (_IOC_TYPE(cmd) != XRDMA_IOC_MAGIC ||
	    _IOC_DIR(cmd) != (_IOC_READ | _IOC_WRITE) ||
	    nr >= ARRAY_SIZE(xrdma_cmds) || !xrdma_cmds[nr].fn)
		return -ENOTTY;
	def = &xrdma_cmds[nr];
	if (c.usize < def->min_size)
		return -EINVAL;
	if (c.usize > PAGE_SIZE)
		return -E2BIG;
	/* the opener, an importer, or one about to import */
	if (nr != _IOC_NR(XRDMA_IOC_IMPORT_CONTEXT) && !xrdma_ufile_user(ufile))
		return -EPERM;
	c.ksize = def->size;

	down_read(&ufile->hw_rwsem);
	if (ufile->dead) {
		ret = -EIO;
		goto out;
	}
	c.ibdev = ufile->udev->ibdev;
	/* pairs with the release in xrdma_cmd_get_context() */
	if (!smp_load_acquire(&ufile->ucontext) &&
	    nr != _IOC_NR(XRDMA_IOC_GET_CONTEXT)) {
		ret = -EINVAL;
		goto out;
	}
	ret = copy_struct_from_user(&buf, def->size, c.uptr, c.usize);
	if (ret)
		goto out;
	ret = def->fn(&c);
	if (!ret && !c.responded)
		ret = xrdma_respond(&c);
out:
	up_read(&ufile->hw_rwsem);
	return ret;
}
