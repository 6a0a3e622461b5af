// SPDX-License-Identifier: GPL-2.0
/*
 * xverbs: XRC, as rdma-core 44 offers it with mlx5 (Documentation/
 * userspace.rst, "XRC").
 *
 * An XRC domain is opened per context (OPEN_XRCD), privately (fd -1) or
 * as the domain of a file, which every context opening that file on the
 * device shares.  XRC SRQs belong to a domain and complete to a CQ of
 * their own; XRC_RECV QPs belong to a domain and have no queues, no PD
 * and no CQ: the receives of the messages they accept land on the XRC SRQ
 * each message names, in whatever process that SRQ is.  ibv_open_qp gives
 * another context (with the domain open) a handle of an XRC_RECV QP; the
 * QP lives while any handle does.  XRC_SEND QPs are in qp.c and the
 * provider (xnic_post.c): an RC send queue whose WQEs carry the remote SRQ number.
 *
 * Completions: an XRC SRQ's receive CQE names the XRC_RECV QP it came
 * through, which this process may not have; poll reports it (wr_id from
 * the WQE, qp_num that QP) on a CQ that serves XRC SRQs (xnic_cq.c), and the
 * SRQ's free slots come from the device's count of the WQEs it took, not
 * from the completions (struct xv_srq).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include "xverbs.h"

/* ------------------------------------------------------------ domains */

/*
 * As rdma-core's ibv_cmd_open_xrcd: comp_mask bits it does not know are
 * EOPNOTSUPP, FD and OFLAGS are required (EINVAL).  Linux reads only
 * O_CREAT and O_EXCL of oflags, and none for fd -1 (a domain of this
 * context alone): so do we, as our kernel refuses the rest.
 */
static struct ibv_xrcd *xv_open_xrcd(struct ibv_context *ctx,
				     struct ibv_xrcd_init_attr *attr)
{
	struct xrdma_cmd_open_xrcd c = { 0 };
	struct xv_xrcd *xrcd;

	if (attr->comp_mask >= IBV_XRCD_INIT_ATTR_RESERVED) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_XRCD_INIT_ATTR_FD) ||
	    !(attr->comp_mask & IBV_XRCD_INIT_ATTR_OFLAGS)) {
		errno = EINVAL;
		return NULL;
	}
	xrcd = calloc(1, sizeof(*xrcd));
	if (!xrcd) {
		errno = ENOMEM;
		return NULL;
	}
	c.fd = attr->fd;
	if (attr->fd != -1)
		c.oflags = (uint32_t)attr->oflags & (O_CREAT | O_EXCL);
	errno = xv_ioctl(ctx, XRDMA_IOC_OPEN_XRCD, &c);
	if (errno) {
		free(xrcd);
		return NULL;
	}
	xrcd->ibxrcd.context = ctx;
	xrcd->handle = c.xrcd_handle;
	return &xrcd->ibxrcd;
}

/* EBUSY while an SRQ or XRC_RECV QP of this context uses the domain */
static int xv_close_xrcd(struct ibv_xrcd *ibxrcd)
{
	struct xv_xrcd *xrcd = to_xxrcd(ibxrcd);
	int ret;

	ret = xv_destroy_obj(ibxrcd->context, XRDMA_OBJ_XRCD, xrcd->handle,
			     NULL);
	if (!ret)
		free(xrcd);
	return ret;
}

/* ------------------------------------------------------------ SRQs */

#define XV_SRQ_INIT_MASK (IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD | \
			  IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ)

/*
 * ibv_create_srq_ex (its inline part creates basic SRQs through
 * ibv_create_srq itself).  As mlx5: without TYPE, or BASIC, a basic SRQ;
 * XRC needs the XRCD and CQ bits (else EINVAL, as rdma-core); another
 * type is EINVAL.  Ours also refuses what mlx5 would dereference: no PD,
 * an object of another context (EINVAL); tag matching, which xnic does
 * not have, and unknown comp_mask bits are EOPNOTSUPP.
 */
static struct ibv_srq *xv_create_srq_ex(struct ibv_context *ctx,
					struct ibv_srq_init_attr_ex *attr)
{
	uint32_t mask = attr->comp_mask;
	enum ibv_srq_type type = mask & IBV_SRQ_INIT_ATTR_TYPE ?
				 attr->srq_type : IBV_SRQT_BASIC;
	/* the same layout up to attr: rdma-core casts it so too */
	struct ibv_srq_init_attr *basic = (struct ibv_srq_init_attr *)attr;

	if (mask & ~(uint32_t)XV_SRQ_INIT_MASK || type == IBV_SRQT_TM) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd ||
	    attr->pd->context != ctx) {
		errno = EINVAL;
		return NULL;
	}
	switch (type) {
	case IBV_SRQT_BASIC:
		return xv_create_srq(attr->pd, basic, NULL, NULL);
	case IBV_SRQT_XRC:
		if (!(mask & IBV_SRQ_INIT_ATTR_XRCD) ||
		    !(mask & IBV_SRQ_INIT_ATTR_CQ) || !attr->xrcd || !attr->cq ||
		    attr->xrcd->context != ctx || attr->cq->context != ctx)
			break;
		return xv_create_srq(attr->pd, basic, to_xxrcd(attr->xrcd),
				     attr->cq);
	default:
		break;
	}
	errno = EINVAL;
	return NULL;
}

/* as mlx5: every SRQ has a number (an XRC SRQ's is what senders name) */
static int xv_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num)
{
	*srq_num = to_xsrq(srq)->srqn;
	return 0;
}

/* ------------------------------------------------------------ QPs */

/*
 * The library's side of an XRC_RECV QP handle, created or opened: no
 * queue, no mapping, no PD or CQ; not in the QPN table (qp.c)
 */
static void xv_xrc_qp_init(struct xv_qp *qp, struct ibv_context *ctx,
			   uint32_t handle, uint32_t qpn, void *qp_context,
			   enum ibv_qp_state state)
{
	struct ibv_qp *ibqp = &qp->ex.qp_base;

	pthread_spin_init(&qp->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq_lock, PTHREAD_PROCESS_PRIVATE);
	ibqp->context = ctx;
	ibqp->qp_context = qp_context;
	ibqp->handle = handle;
	ibqp->qp_num = qpn;
	ibqp->state = state;
	ibqp->qp_type = IBV_QPT_XRC_RECV;
	pthread_mutex_init(&ibqp->mutex, NULL);
	pthread_cond_init(&ibqp->cond, NULL);
}

/*
 * ibv_create_qp(_ex) of an XRC_RECV QP: comp_mask XRCD and a domain of
 * this context (else EINVAL, as rdma-core).  Its PD, CQs and capabilities
 * are ignored as rdma-core and mlx5 ignore them (the capabilities read
 * back 0); an SRQ, which it cannot have, is EINVAL.
 */
struct ibv_qp *xv_create_xrc_recv_qp(struct ibv_context *ctx,
				     struct ibv_qp_init_attr_ex *attr)
{
	struct xrdma_cmd_create_qp c = { 0 };
	struct xv_qp *qp;
	int err;

	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) || !attr->xrcd ||
	    attr->xrcd->context != ctx || attr->srq) {
		errno = EINVAL;
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	c.user_cookie = (uintptr_t)qp;
	c.qp_type = IBV_QPT_XRC_RECV;
	c.xrcd_handle = to_xxrcd(attr->xrcd)->handle;
	/* the driver maps nothing for it (mmap_size 0) */
	err = to_xctx(ctx)->ops->create_qp_nomem(ctx, &c);
	if (err) {
		free(qp);
		errno = err;
		return NULL;
	}
	xv_xrc_qp_init(qp, ctx, c.qp_handle, c.qpn, attr->qp_context,
		       IBV_QPS_RESET);
	memset(&attr->cap, 0, sizeof(attr->cap));
	return &qp->ex.qp_base;
}

/*
 * ibv_open_qp: as rdma-core, comp_mask bits it does not know are
 * EOPNOTSUPP, and NUM, XRCD and TYPE are required (EINVAL); the domain
 * must be of this context (EINVAL).  The kernel refuses another type than
 * XRC_RECV (EINVAL) and a QP not in the domain (ENOENT).  The state is
 * unknown until the caller modifies or queries it, as rdma-core has it.
 */
static struct ibv_qp *xv_open_qp(struct ibv_context *ctx,
				 struct ibv_qp_open_attr *attr)
{
	const uint32_t need = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			      IBV_QP_OPEN_ATTR_TYPE;
	struct xrdma_cmd_open_qp c = { 0 };
	struct xv_qp *qp;
	int err;

	if (attr->comp_mask >= IBV_QP_OPEN_ATTR_RESERVED) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if ((attr->comp_mask & need) != need || !attr->xrcd ||
	    attr->xrcd->context != ctx) {
		errno = EINVAL;
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	c.user_cookie = (uintptr_t)qp;
	c.xrcd_handle = to_xxrcd(attr->xrcd)->handle;
	c.qpn = attr->qp_num;
	c.qp_type = attr->qp_type;
	err = xv_ioctl(ctx, XRDMA_IOC_OPEN_QP, &c);
	if (err) {
		free(qp);
		errno = err;
		return NULL;
	}
	xv_xrc_qp_init(qp, ctx, c.qp_handle, attr->qp_num, attr->qp_context,
		       IBV_QPS_UNKNOWN);
	return &qp->ex.qp_base;
}

void xv_xrc_set_ops(struct verbs_context *v)
{
	v->open_xrcd = xv_open_xrcd;
	v->close_xrcd = xv_close_xrcd;
	v->create_srq_ex = xv_create_srq_ex;
	v->get_srq_num = xv_get_srq_num;
	v->open_qp = xv_open_qp;
}
