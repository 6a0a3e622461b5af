// SPDX-License-Identifier: GPL-2.0
/*
 * Commands on queue pairs: CREATE_QP, MODIFY_QP, QUERY_QP and KICK.  Their
 * handles and new objects are looked up, reserved and published by the
 * dispatcher (ioctl.c); destroying is DESTROY (cmd_device.c), opening an
 * XRC_RECV QP by number is OPEN_QP (cmd_srq.c), multicast is cmd_ah.c.
 */
#include <linux/capability.h>
#include "cmd.h"

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

static int xrdma_check_create_qp(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_create_qp *cmd = &c->buf->create_qp;
	int ret;

	ret = xrdma_create_qp_check(cmd);
	if (ret)
		return ret;
	return xrdma_udata_init(c, &cmd->udata);
}

/* CREATE_QP's handles, in the order they are looked up */
enum { XRDMA_QP_PD, XRDMA_QP_SCQ, XRDMA_QP_RCQ, XRDMA_QP_SRQ, XRDMA_QP_XRCD };

static bool xrdma_qp_has_pd(const union xrdma_cmd_buf *buf)
{
	return buf->create_qp.qp_type != XRDMA_UVERBS_QPT_XRC_RECV;
}

static bool xrdma_qp_has_rcq(const union xrdma_cmd_buf *buf)
{
	return buf->create_qp.qp_type != XRDMA_UVERBS_QPT_XRC_RECV &&
	       buf->create_qp.qp_type != XRDMA_UVERBS_QPT_XRC_SEND;
}

static bool xrdma_qp_has_srq(const union xrdma_cmd_buf *buf)
{
	return xrdma_qp_has_rcq(buf) &&
	       buf->create_qp.flags & XRDMA_UVERBS_CREATE_QP_SRQ;
}

static bool xrdma_qp_has_xrcd(const union xrdma_cmd_buf *buf)
{
	return buf->create_qp.qp_type == XRDMA_UVERBS_QPT_XRC_RECV;
}

static int xrdma_cmd_create_qp(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_create_qp *cmd = &c->buf->create_qp;
	struct xrdma_qp_init_attr attr = {};
	struct xrdma_uobj *uobj = c->uobj;
	struct xrdma_qp *qp;

	uobj->user_cookie = cmd->user_cookie;
	attr.event_handler = xrdma_obj_event_handler;
	attr.qp_context = uobj;
	attr.send_cq = xrdma_cmd_obj(c, XRDMA_QP_SCQ);
	attr.recv_cq = xrdma_cmd_obj(c, XRDMA_QP_RCQ);
	attr.srq = xrdma_cmd_obj(c, XRDMA_QP_SRQ);
	attr.xrcd = xrdma_cmd_obj(c, XRDMA_QP_XRCD);
	attr.qp_type = cmd->qp_type;
	attr.sq_sig_all = !!(cmd->flags & XRDMA_UVERBS_CREATE_QP_SQ_SIG_ALL);
	xrdma_cap_from_user(&attr.cap, &cmd->cap);
	qp = __xrdma_create_qp(xrdma_cmd_obj(c, XRDMA_QP_PD), &attr, NULL,
			       &c->udata);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	cmd->qpn = qp->qp_num;
	xrdma_cap_to_user(&cmd->cap, &attr.cap);
	/* the QP keeps its use of the XRCD handle until it is destroyed */
	uobj->xrcd_uobj = xrdma_cmd_keep(c, XRDMA_QP_XRCD);
	uobj->object = qp;
	return 0;
}

static int xrdma_check_modify_qp(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_modify_qp *cmd = &c->buf->modify_qp;
	const struct xrdma_uverbs_qp_attr *u = &cmd->attr;

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
	return xrdma_udata_init(c, &cmd->udata);
}

static int xrdma_cmd_modify_qp(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_modify_qp *cmd = &c->buf->modify_qp;
	const struct xrdma_uverbs_qp_attr *u = &cmd->attr;
	struct xrdma_qp_attr a = {};

	/*
	 * Only the creator's handle of an XRC_RECV QP modifies it (unlike
	 * ib_core): a domain member that opened another's QP by number
	 * could otherwise move it to ERR or RESET behind the owner's back.
	 * Query and events stay shared (Documentation/security.rst, "XRC
	 * domains").
	 */
	if (c->attrs[0]->qp_open)
		return -EPERM;
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
	return __xrdma_modify_qp(xrdma_cmd_obj(c, 0), &a, cmd->attr_mask,
				 &c->udata);
}

static int xrdma_check_query_qp(struct xrdma_cmd_ctx *c)
{
	if (c->buf->query_qp.attr_mask & ~XRDMA_QP_ATTR_MASK_ALL)
		return -EINVAL;
	return 0;
}

static int xrdma_cmd_query_qp(struct xrdma_cmd_ctx *c)
{
	struct xrdma_cmd_query_qp *cmd = &c->buf->query_qp;
	struct xrdma_uverbs_qp_attr *u = &cmd->attr;
	struct xrdma_qp_init_attr init;
	struct xrdma_qp_attr a;
	u32 handle = cmd->qp_handle, mask = cmd->attr_mask;
	int ret;

	ret = xrdma_query_qp(xrdma_cmd_obj(c, 0), &a, mask, &init);
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

static int xrdma_check_kick(struct xrdma_cmd_ctx *c)
{
	if (c->buf->kick.flags)
		return -EINVAL;
	if (!c->ibdev->ops->kick)
		return -EOPNOTSUPP;
	return 0;
}

/* KICK's qp_handle 0 kicks the whole context */
static bool xrdma_kick_has_qp(const union xrdma_cmd_buf *buf)
{
	return buf->kick.qp_handle;
}

static int xrdma_cmd_kick(struct xrdma_cmd_ctx *c)
{
	struct xrdma_qp *qp = xrdma_cmd_obj(c, 0);

	/* an XRC_RECV QP has no queue to work on */
	if (qp && qp->qp_type == XRDMA_QPT_XRC_TGT)
		return -EINVAL;
	return c->ibdev->ops->kick(c->ufile->ucontext, qp);
}

static const struct xrdma_cmd_def xrdma_qp_rows[] = {
	{ XRDMA_CMD(XRDMA_IOC_CREATE_QP, struct xrdma_cmd_create_qp,
		    XRDMA_CMD_CREATE_QP_SIZE_VER0),
	  XRDMA_CMD_NEW(struct xrdma_cmd_create_qp, XRDMA_OBJ_QP, qp_handle),
	  .check = xrdma_check_create_qp, .fn = xrdma_cmd_create_qp,
	  .attrs = {
		[XRDMA_QP_PD] = XRDMA_ATTR_IF(struct xrdma_cmd_create_qp,
					      pd_handle, XRDMA_OBJ_PD, READ,
					      xrdma_qp_has_pd),
		[XRDMA_QP_SCQ] = XRDMA_ATTR_IF(struct xrdma_cmd_create_qp,
					       send_cq_handle, XRDMA_OBJ_CQ,
					       READ, xrdma_qp_has_pd),
		[XRDMA_QP_RCQ] = XRDMA_ATTR_IF(struct xrdma_cmd_create_qp,
					       recv_cq_handle, XRDMA_OBJ_CQ,
					       READ, xrdma_qp_has_rcq),
		[XRDMA_QP_SRQ] = XRDMA_ATTR_IF(struct xrdma_cmd_create_qp,
					       srq_handle, XRDMA_OBJ_SRQ,
					       READ, xrdma_qp_has_srq),
		[XRDMA_QP_XRCD] = XRDMA_ATTR_IF(struct xrdma_cmd_create_qp,
						xrcd_handle, XRDMA_OBJ_XRCD,
						READ, xrdma_qp_has_xrcd) } },
	{ XRDMA_CMD(XRDMA_IOC_MODIFY_QP, struct xrdma_cmd_modify_qp,
		    XRDMA_CMD_MODIFY_QP_SIZE_VER0),
	  .check = xrdma_check_modify_qp, .fn = xrdma_cmd_modify_qp,
	  .attrs = { XRDMA_ATTR(struct xrdma_cmd_modify_qp, qp_handle,
				XRDMA_OBJ_QP, READ) } },
	{ XRDMA_CMD(XRDMA_IOC_QUERY_QP, struct xrdma_cmd_query_qp,
		    XRDMA_CMD_QUERY_QP_SIZE_VER0),
	  .check = xrdma_check_query_qp, .fn = xrdma_cmd_query_qp,
	  .attrs = { XRDMA_ATTR(struct xrdma_cmd_query_qp, qp_handle,
				XRDMA_OBJ_QP, READ) } },
	{ XRDMA_CMD(XRDMA_IOC_KICK, struct xrdma_cmd_kick,
		    XRDMA_CMD_KICK_SIZE_VER0),
	  .check = xrdma_check_kick, .fn = xrdma_cmd_kick,
	  .attrs = { XRDMA_ATTR_IF(struct xrdma_cmd_kick, qp_handle,
				   XRDMA_OBJ_QP, READ, xrdma_kick_has_qp) } },
};

const struct xrdma_cmd_table xrdma_qp_cmds = {
	.defs = xrdma_qp_rows, .n = ARRAY_SIZE(xrdma_qp_rows)
};
