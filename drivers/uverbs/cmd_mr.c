// SPDX-License-Identifier: GPL-2.0
/*
 * Commands on protection domains and memory: ALLOC_PD, REG_MR,
 * REG_DMABUF_MR, REREG_MR, ALLOC_MW, ALLOC_DM, REG_DM_MR.  Their handles
 * and new objects are looked up, reserved and published by the dispatcher
 * (ioctl.c); destroying is DESTROY (cmd_device.c).
 */
#include "cmd.h"

#define XRDMA_UVERBS_ACCESS_ALL (XRDMA_UVERBS_ACCESS_LOCAL_WRITE |	\
				 XRDMA_UVERBS_ACCESS_REMOTE_WRITE |	\
				 XRDMA_UVERBS_ACCESS_REMOTE_READ |	\
				 XRDMA_UVERBS_ACCESS_REMOTE_ATOMIC |	\
				 XRDMA_UVERBS_ACCESS_MW_BIND |		\
				 XRDMA_UVERBS_ACCESS_FLUSH_GLOBAL |	\
				 XRDMA_UVERBS_ACCESS_FLUSH_PERSISTENT)

static int xrdma_check_alloc_pd(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_alloc_pd *cmd = &c->buf->alloc_pd;

	if (cmd->flags)
		return -EINVAL;
	return xrdma_udata_init(c, &cmd->udata);
}

static int xrdma_cmd_alloc_pd(struct xrdma_cmd_ctx *c)
{
	struct xrdma_pd *pd;

	pd = __xrdma_alloc_pd(c->ibdev, 0, NULL, &c->udata);
	if (IS_ERR(pd))
		return PTR_ERR(pd);
	c->uobj->object = pd;
	return 0;
}

static int xrdma_check_reg_mr(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_reg_mr *cmd = &c->buf->reg_mr;

	if (cmd->access & ~XRDMA_UVERBS_ACCESS_ALL || cmd->reserved)
		return -EINVAL;
	return xrdma_udata_init(c, &cmd->udata);
}

/* REG_MR, REG_DMABUF_MR, REG_DM_MR: the new MR's answer */
static void xrdma_mr_created(struct xrdma_cmd_ctx *c, struct xrdma_mr *mr,
			     __u32 *lkey, __u32 *rkey)
{
	*lkey = mr->lkey;
	*rkey = mr->rkey;
	c->uobj->object = mr;
}

static int xrdma_cmd_reg_mr(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_reg_mr *cmd = &c->buf->reg_mr;
	struct xrdma_mr *mr;

	mr = xrdma_reg_user_mr(xrdma_cmd_obj(c, 0), cmd->addr, cmd->length,
			       cmd->iova, cmd->access, &c->udata);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	xrdma_mr_created(c, mr, &cmd->lkey, &cmd->rkey);
	return 0;
}

static int xrdma_check_reg_dmabuf_mr(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_reg_dmabuf_mr *cmd = &c->buf->reg_dmabuf_mr;

	if (cmd->access & ~XRDMA_UVERBS_ACCESS_ALL || cmd->reserved)
		return -EINVAL;
	return xrdma_udata_init(c, &cmd->udata);
}

static int xrdma_cmd_reg_dmabuf_mr(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_reg_dmabuf_mr *cmd = &c->buf->reg_dmabuf_mr;
	struct xrdma_mr *mr;

	mr = xrdma_reg_user_mr_dmabuf(xrdma_cmd_obj(c, 0), cmd->offset,
				      cmd->length, cmd->iova, cmd->fd,
				      cmd->access, &c->udata);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	xrdma_mr_created(c, mr, &cmd->lkey, &cmd->rkey);
	return 0;
}

#define XRDMA_UVERBS_REREG_ALL (XRDMA_UVERBS_REREG_TRANS |		\
				XRDMA_UVERBS_REREG_PD |		\
				XRDMA_UVERBS_REREG_ACCESS)

static int xrdma_check_rereg_mr(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_rereg_mr *cmd = &c->buf->rereg_mr;

	if (cmd->reserved)
		return -EINVAL;
	if (!cmd->flags)
		return -EINVAL;
	if (cmd->flags & ~XRDMA_UVERBS_REREG_ALL)
		return -EOPNOTSUPP;
	if ((cmd->flags & XRDMA_UVERBS_REREG_ACCESS) &&
	    cmd->access & ~XRDMA_UVERBS_ACCESS_ALL)
		return -EINVAL;
	return 0;
}

static bool xrdma_rereg_has_pd(const union xrdma_cmd_buf *buf)
{
	return buf->rereg_mr.flags & XRDMA_UVERBS_REREG_PD;
}

/* The MR is held exclusively: no other command uses it meanwhile. */
static int xrdma_cmd_rereg_mr(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_rereg_mr *cmd = &c->buf->rereg_mr;
	struct xrdma_mr *mr = xrdma_cmd_obj(c, 0);
	int ret;

	ret = xrdma_rereg_user_mr(mr, cmd->flags, cmd->addr, cmd->length,
				  cmd->iova, cmd->access, xrdma_cmd_obj(c, 1));
	if (!ret) {
		cmd->lkey = mr->lkey;
		cmd->rkey = mr->rkey;
	}
	return ret;
}

static int xrdma_check_alloc_mw(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_alloc_mw *cmd = &c->buf->alloc_mw;

	if (cmd->reserved[0] || cmd->reserved[1] ||
	    (cmd->type != XRDMA_UVERBS_MW_TYPE_1 &&
	     cmd->type != XRDMA_UVERBS_MW_TYPE_2))
		return -EINVAL;
	return xrdma_udata_init(c, &cmd->udata);
}

static int xrdma_cmd_alloc_mw(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_alloc_mw *cmd = &c->buf->alloc_mw;
	struct xrdma_mw *mw;

	mw = __xrdma_alloc_mw(xrdma_cmd_obj(c, 0), cmd->type, &c->udata, NULL);
	if (IS_ERR(mw))
		return PTR_ERR(mw);
	cmd->rkey = mw->rkey;
	c->uobj->object = mw;
	return 0;
}

static int xrdma_check_alloc_dm(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_alloc_dm *cmd = &c->buf->alloc_dm;

	if (cmd->comp_mask || cmd->reserved)
		return -EINVAL;
	return 0;
}

static int xrdma_cmd_alloc_dm(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_alloc_dm *cmd = &c->buf->alloc_dm;
	struct xrdma_udata udata = { .uctx = c->ufile->ucontext };
	struct xrdma_dm *dm;

	dm = xrdma_alloc_dm(c->ibdev, cmd->length, cmd->log_align_req, &udata);
	if (IS_ERR(dm))
		return PTR_ERR(dm);
	dm->uobject = c->uobj;
	cmd->mmap_offset = dm->mmap_offset;
	cmd->mmap_length = dm->mmap_length;
	c->uobj->object = dm;
	return 0;
}

static int xrdma_check_reg_dm_mr(struct xrdma_cmd_ctx *c)
{
	if (c->buf->reg_dm_mr.access & ~XRDMA_UVERBS_ACCESS_ALL)
		return -EINVAL;
	return 0;
}

static int xrdma_cmd_reg_dm_mr(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_reg_dm_mr *cmd = &c->buf->reg_dm_mr;
	struct xrdma_mr *mr;

	mr = xrdma_reg_dm_mr(xrdma_cmd_obj(c, 0), xrdma_cmd_obj(c, 1),
			     cmd->offset, cmd->length, cmd->access);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	xrdma_mr_created(c, mr, &cmd->lkey, &cmd->rkey);
	return 0;
}

static const struct xrdma_cmd_def xrdma_mr_rows[] = {
	{ XRDMA_CMD(XRDMA_IOC_ALLOC_PD, struct xrdma_cmd_alloc_pd,
		    XRDMA_CMD_ALLOC_PD_SIZE_VER0),
	  XRDMA_CMD_NEW(struct xrdma_cmd_alloc_pd, XRDMA_OBJ_PD, pd_handle),
	  .check = xrdma_check_alloc_pd, .fn = xrdma_cmd_alloc_pd },
	{ XRDMA_CMD(XRDMA_IOC_REG_MR, struct xrdma_cmd_reg_mr,
		    XRDMA_CMD_REG_MR_SIZE_VER0),
	  XRDMA_CMD_NEW(struct xrdma_cmd_reg_mr, XRDMA_OBJ_MR, mr_handle),
	  .check = xrdma_check_reg_mr, .fn = xrdma_cmd_reg_mr,
	  .attrs = { XRDMA_ATTR(struct xrdma_cmd_reg_mr, pd_handle,
				XRDMA_OBJ_PD, READ) } },
	{ XRDMA_CMD(XRDMA_IOC_REG_DMABUF_MR, struct xrdma_cmd_reg_dmabuf_mr,
		    XRDMA_CMD_REG_DMABUF_MR_SIZE_VER0),
	  XRDMA_CMD_NEW(struct xrdma_cmd_reg_dmabuf_mr, XRDMA_OBJ_MR,
			mr_handle),
	  .check = xrdma_check_reg_dmabuf_mr, .fn = xrdma_cmd_reg_dmabuf_mr,
	  .attrs = { XRDMA_ATTR(struct xrdma_cmd_reg_dmabuf_mr, pd_handle,
				XRDMA_OBJ_PD, READ) } },
	{ XRDMA_CMD(XRDMA_IOC_REREG_MR, struct xrdma_cmd_rereg_mr,
		    XRDMA_CMD_REREG_MR_SIZE_VER0),
	  .check = xrdma_check_rereg_mr, .fn = xrdma_cmd_rereg_mr,
	  .attrs = { XRDMA_ATTR(struct xrdma_cmd_rereg_mr, mr_handle,
				XRDMA_OBJ_MR, WRITE),
		     XRDMA_ATTR_IF(struct xrdma_cmd_rereg_mr, pd_handle,
				   XRDMA_OBJ_PD, READ, xrdma_rereg_has_pd) } },
	{ XRDMA_CMD(XRDMA_IOC_ALLOC_MW, struct xrdma_cmd_alloc_mw,
		    XRDMA_CMD_ALLOC_MW_SIZE_VER0),
	  XRDMA_CMD_NEW(struct xrdma_cmd_alloc_mw, XRDMA_OBJ_MW, mw_handle),
	  .check = xrdma_check_alloc_mw, .fn = xrdma_cmd_alloc_mw,
	  .attrs = { XRDMA_ATTR(struct xrdma_cmd_alloc_mw, pd_handle,
				XRDMA_OBJ_PD, READ) } },
	{ XRDMA_CMD(XRDMA_IOC_ALLOC_DM, struct xrdma_cmd_alloc_dm,
		    XRDMA_CMD_ALLOC_DM_SIZE_VER0),
	  XRDMA_CMD_NEW(struct xrdma_cmd_alloc_dm, XRDMA_OBJ_DM, dm_handle),
	  .check = xrdma_check_alloc_dm, .fn = xrdma_cmd_alloc_dm },
	{ XRDMA_CMD(XRDMA_IOC_REG_DM_MR, struct xrdma_cmd_reg_dm_mr,
		    XRDMA_CMD_REG_DM_MR_SIZE_VER0),
	  XRDMA_CMD_NEW(struct xrdma_cmd_reg_dm_mr, XRDMA_OBJ_MR, mr_handle),
	  .check = xrdma_check_reg_dm_mr, .fn = xrdma_cmd_reg_dm_mr,
	  .attrs = { XRDMA_ATTR(struct xrdma_cmd_reg_dm_mr, pd_handle,
				XRDMA_OBJ_PD, READ),
		     XRDMA_ATTR(struct xrdma_cmd_reg_dm_mr, dm_handle,
				XRDMA_OBJ_DM, READ) } },
};

const struct xrdma_cmd_table xrdma_mr_cmds = {
	.defs = xrdma_mr_rows, .n = ARRAY_SIZE(xrdma_mr_rows)
};
