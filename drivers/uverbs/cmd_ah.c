// SPDX-License-Identifier: GPL-2.0
/*
 * Commands on address handles and multicast: CREATE_AH, ATTACH_MCAST,
 * DETACH_MCAST, and the address vector's conversion (also MODIFY_QP's and
 * QUERY_QP's, cmd_qp.c).  Their handles and new objects are looked up,
 * reserved and published by the dispatcher (ioctl.c); destroying is
 * DESTROY (cmd_device.c).
 */
#include "cmd.h"

void xrdma_ah_from_user(struct xrdma_ah_attr *k,
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

void xrdma_ah_to_user(struct xrdma_uverbs_ah_attr *u,
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

static int xrdma_check_create_ah(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_create_ah *cmd = &c->buf->create_ah;

	if (cmd->reserved ||
	    memchr_inv(cmd->attr.reserved, 0, sizeof(cmd->attr.reserved)))
		return -EINVAL;
	return xrdma_udata_init(c, &cmd->udata);
}

static int xrdma_cmd_create_ah(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_create_ah *cmd = &c->buf->create_ah;
	struct xrdma_ah_attr attr = {};
	struct xrdma_ah *ah;

	c->uobj->user_cookie = cmd->user_cookie;
	xrdma_ah_from_user(&attr, &cmd->attr);
	ah = __xrdma_create_ah(xrdma_cmd_obj(c, 0), &attr, 0, NULL, &c->udata);
	if (IS_ERR(ah))
		return PTR_ERR(ah);
	c->uobj->object = ah;
	return 0;
}

/* ATTACH_MCAST, DETACH_MCAST: the core keeps the QP's groups. */
static int xrdma_check_mcast(struct xrdma_cmd_ctx *c)
{
	if (c->buf->mcast.reserved)
		return -EINVAL;
	return 0;
}

static int xrdma_cmd_mcast(struct xrdma_cmd_ctx *c, bool attach)
{
	struct xrdma_cmd_mcast *cmd = &c->buf->mcast;
	union xrdma_gid gid;

	memcpy(gid.raw, cmd->gid, sizeof(gid.raw));
	if (attach)
		return xrdma_attach_mcast(xrdma_cmd_obj(c, 0), &gid, cmd->lid);
	return xrdma_detach_mcast(xrdma_cmd_obj(c, 0), &gid, cmd->lid);
}

static int xrdma_cmd_attach_mcast(struct xrdma_cmd_ctx *c)
{
	return xrdma_cmd_mcast(c, true);
}

static int xrdma_cmd_detach_mcast(struct xrdma_cmd_ctx *c)
{
	return xrdma_cmd_mcast(c, false);
}

static const struct xrdma_cmd_def xrdma_ah_rows[] = {
	{ XRDMA_CMD(XRDMA_IOC_CREATE_AH, struct xrdma_cmd_create_ah,
		    XRDMA_CMD_CREATE_AH_SIZE_VER0),
	  XRDMA_CMD_NEW(struct xrdma_cmd_create_ah, XRDMA_OBJ_AH, ah_handle),
	  .check = xrdma_check_create_ah, .fn = xrdma_cmd_create_ah,
	  .attrs = { XRDMA_ATTR(struct xrdma_cmd_create_ah, pd_handle,
				XRDMA_OBJ_PD, READ) } },
	{ XRDMA_CMD(XRDMA_IOC_ATTACH_MCAST, struct xrdma_cmd_mcast,
		    XRDMA_CMD_MCAST_SIZE_VER0),
	  .check = xrdma_check_mcast, .fn = xrdma_cmd_attach_mcast,
	  .attrs = { XRDMA_ATTR(struct xrdma_cmd_mcast, qp_handle,
				XRDMA_OBJ_QP, READ) } },
	{ XRDMA_CMD(XRDMA_IOC_DETACH_MCAST, struct xrdma_cmd_mcast,
		    XRDMA_CMD_MCAST_SIZE_VER0),
	  .check = xrdma_check_mcast, .fn = xrdma_cmd_detach_mcast,
	  .attrs = { XRDMA_ATTR(struct xrdma_cmd_mcast, qp_handle,
				XRDMA_OBJ_QP, READ) } },
};

const struct xrdma_cmd_table xrdma_ah_cmds = {
	.defs = xrdma_ah_rows, .n = ARRAY_SIZE(xrdma_ah_rows)
};
