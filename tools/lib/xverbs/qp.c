// SPDX-License-Identifier: GPL-2.0
/*
 * xverbs: queue pairs -- the context's QPN table, ibv_create_qp(_ex),
 * ibv_modify_qp, ibv_query_qp, ibv_destroy_qp.  Their rings are the
 * provider's (xnic_queues.c); XRC receive QPs are xrc.c's.
 */
#include <stdlib.h>
#include <string.h>
#include "xverbs.h"

/* ------------------------------------------------------------ QPN table */

static uint32_t xv_qp_hash(uint32_t qpn)
{
	return (qpn * 2654435761u) >> 22;	/* 10 bits: XV_QP_HASH */
}

struct xv_qp *xv_qp_lookup(struct xv_context *xctx, uint32_t qpn)
{
	struct xv_qp *qp;

	pthread_rwlock_rdlock(&xctx->qp_lock);
	for (qp = xctx->qp_hash[xv_qp_hash(qpn)]; qp; qp = qp->hnext)
		if (qp->ex.qp_base.qp_num == qpn)
			break;
	pthread_rwlock_unlock(&xctx->qp_lock);
	return qp;
}

static void xv_qp_insert(struct xv_context *xctx, struct xv_qp *qp)
{
	uint32_t h = xv_qp_hash(qp->ex.qp_base.qp_num);

	pthread_rwlock_wrlock(&xctx->qp_lock);
	qp->hnext = xctx->qp_hash[h];
	xctx->qp_hash[h] = qp;
	pthread_rwlock_unlock(&xctx->qp_lock);
}

static void xv_qp_remove(struct xv_context *xctx, struct xv_qp *qp)
{
	struct xv_qp **p;

	pthread_rwlock_wrlock(&xctx->qp_lock);
	for (p = &xctx->qp_hash[xv_qp_hash(qp->ex.qp_base.qp_num)]; *p;
	     p = &(*p)->hnext) {
		if (*p == qp) {
			*p = qp->hnext;
			break;
		}
	}
	pthread_rwlock_unlock(&xctx->qp_lock);
}

/* ------------------------------------------------------------ QP */

static struct ibv_qp *xv_create_qp_common(struct ibv_context *ctx,
					  struct ibv_qp_init_attr_ex *attr)
{
	struct xv_context *xctx = to_xctx(ctx);
	struct xrdma_cmd_create_qp c = { 0 };
	struct ibv_qp *ibqp;
	struct xv_qp *qp;
	bool has_rq;
	int err;

	if (attr->qp_type == IBV_QPT_XRC_RECV)
		return xv_create_xrc_recv_qp(ctx, attr);
	if (!attr->pd || !attr->send_cq ||
	    (!attr->recv_cq && attr->qp_type != IBV_QPT_XRC_SEND)) {
		errno = EINVAL;
		return NULL;
	}
	switch (attr->qp_type) {
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_UD:
		has_rq = !attr->srq;
		break;
	case IBV_QPT_XRC_SEND:
		/*
		 * No receive side: its CQ is ignored and its capabilities
		 * read 0, as rdma-core has it; an SRQ is the kernel's EINVAL.
		 */
		if (attr->srq) {
			errno = EINVAL;
			return NULL;
		}
		attr->cap.max_recv_wr = 0;
		attr->cap.max_recv_sge = 0;
		has_rq = false;
		break;
	default:
		errno = EOPNOTSUPP;
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	ibqp = &qp->ex.qp_base;
	c.user_cookie = (uintptr_t)qp;
	c.pd_handle = attr->pd->handle;
	c.send_cq_handle = attr->send_cq->handle;
	if (attr->qp_type != IBV_QPT_XRC_SEND)
		c.recv_cq_handle = attr->recv_cq->handle;
	c.qp_type = attr->qp_type;
	if (attr->srq) {
		c.flags |= XRDMA_UVERBS_CREATE_QP_SRQ;
		c.srq_handle = attr->srq->handle;
	}
	if (attr->sq_sig_all)
		c.flags |= XRDMA_UVERBS_CREATE_QP_SQ_SIG_ALL;
	c.cap.max_send_wr = attr->cap.max_send_wr;
	c.cap.max_recv_wr = has_rq ? attr->cap.max_recv_wr : 0;
	c.cap.max_send_sge = attr->cap.max_send_sge;
	c.cap.max_recv_sge = has_rq ? attr->cap.max_recv_sge : 0;
	c.cap.max_inline_data = attr->cap.max_inline_data;
	err = xctx->ops->create_qp(ctx, qp, &c, attr->pd, has_rq);
	if (err)
		goto err_free;
	qp->sig_all = attr->sq_sig_all;
	qp->td = xv_pd_single_threaded(attr->pd);
	pthread_spin_init(&qp->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq_lock, PTHREAD_PROCESS_PRIVATE);
	ibqp->context = ctx;
	ibqp->qp_context = attr->qp_context;
	ibqp->pd = attr->pd;
	ibqp->send_cq = attr->send_cq;
	ibqp->recv_cq = attr->qp_type == IBV_QPT_XRC_SEND ? NULL :
			attr->recv_cq;
	ibqp->srq = attr->srq;
	ibqp->handle = c.qp_handle;
	ibqp->qp_num = c.qpn;
	ibqp->state = IBV_QPS_RESET;
	ibqp->qp_type = attr->qp_type;
	pthread_mutex_init(&ibqp->mutex, NULL);
	pthread_cond_init(&ibqp->cond, NULL);
	attr->cap.max_send_wr = c.cap.max_send_wr;
	attr->cap.max_send_sge = c.cap.max_send_sge;
	attr->cap.max_inline_data = c.cap.max_inline_data;
	if (has_rq) {
		attr->cap.max_recv_wr = c.cap.max_recv_wr;
		attr->cap.max_recv_sge = c.cap.max_recv_sge;
	}
	xv_pd_get(attr->pd);
	xv_qp_insert(xctx, qp);
	return ibqp;

err_free:
	free(qp);
	errno = err;
	return NULL;
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd,
			     struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ax;
	struct ibv_qp *qp;

	memset(&ax, 0, sizeof(ax));
	memcpy(&ax, attr, sizeof(*attr));
	ax.comp_mask = IBV_QP_INIT_ATTR_PD;
	ax.pd = pd;
	qp = xv_create_qp_common(pd->context, &ax);
	if (qp)
		attr->cap = ax.cap;
	return qp;
}

/*
 * What ibv_create_qp_ex honours, as rdma-core's providers answer it:
 * comp_mask PD, XRCD (an XRC_RECV QP's domain, which no other type uses),
 * CREATE_FLAGS (no flag makes sense on xnic: no raw packet QPs, no
 * multicast, no underlay QPN) and SEND_OPS_FLAGS with the opcodes the
 * device runs on the QP's type (mlx5's lists; SEND_WITH_INV on RC only, as
 * the device checks it; BIND_MW on RC and UC, as rxe; on XRC_SEND what
 * reaches an XRC SRQ's PD and no window).  Anything else -- IND_TABLE,
 * RX_HASH, MAX_TSO_HEADER, a create flag, an opcode the type cannot use
 * -- is EOPNOTSUPP; no PD (an XRC_RECV QP: no XRCD), or one of another
 * context, is EINVAL.
 */
#define XV_QP_COMP_MASK (IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD | \
			 IBV_QP_INIT_ATTR_CREATE_FLAGS | \
			 IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
#define XV_UD_SEND_OPS (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)
#define XV_UC_SEND_OPS (XV_UD_SEND_OPS | IBV_QP_EX_WITH_RDMA_WRITE | \
			IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
			IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW)
#define XV_XRC_SEND_OPS (XV_UD_SEND_OPS | IBV_QP_EX_WITH_RDMA_WRITE | \
			 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
			 IBV_QP_EX_WITH_RDMA_READ | \
			 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
			 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | \
			 IBV_QP_EX_WITH_ATOMIC_WRITE | XV_QP_EX_WITH_FLUSH)
#define XV_RC_SEND_OPS (XV_UC_SEND_OPS | IBV_QP_EX_WITH_RDMA_READ | \
			IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
			IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | \
			IBV_QP_EX_WITH_SEND_WITH_INV | \
			IBV_QP_EX_WITH_ATOMIC_WRITE | XV_QP_EX_WITH_FLUSH)

static uint64_t xv_send_ops(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
		return XV_RC_SEND_OPS;
	case IBV_QPT_UC:
		return XV_UC_SEND_OPS;
	case IBV_QPT_UD:
		return XV_UD_SEND_OPS;
	case IBV_QPT_XRC_SEND:
		return XV_XRC_SEND_OPS;
	default:
		return 0;
	}
}

static int xv_check_qp_init_attr_ex(struct ibv_context *ctx,
				    const struct ibv_qp_init_attr_ex *attr)
{
	if (attr->comp_mask & ~(uint32_t)XV_QP_COMP_MASK)
		return EOPNOTSUPP;
	if (attr->qp_type == IBV_QPT_XRC_RECV) {
		if (!(attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) ||
		    !attr->xrcd || attr->xrcd->context != ctx)
			return EINVAL;
	} else if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd ||
		   attr->pd->context != ctx) {
		return EINVAL;
	}
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	    attr->create_flags)
		return EOPNOTSUPP;
	/* as mlx5: no send queue, no send operations, not even none */
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    (attr->send_ops_flags & ~xv_send_ops(attr->qp_type) ||
	     attr->qp_type == IBV_QPT_XRC_RECV))
		return EOPNOTSUPP;
	return 0;
}

static struct ibv_qp *xv_create_qp_ex(struct ibv_context *ctx,
				      struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_qp *ibqp;
	int err = xv_check_qp_init_attr_ex(ctx, attr);

	if (err) {
		errno = err;
		return NULL;
	}
	ibqp = xv_create_qp_common(ctx, attr);
	if (ibqp && (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		to_xctx(ctx)->ops->qp_ex_init(to_xqp(ibqp),
					      attr->send_ops_flags);
	return ibqp;
}

struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *ibqp)
{
	struct xv_qp *qp = to_xqp(ibqp);

	return qp->is_ex ? &qp->ex : NULL;
}

static void xv_cap_to_ibv(const struct xrdma_uverbs_qp_cap *u,
			  struct ibv_qp_cap *c)
{
	c->max_send_wr = u->max_send_wr;
	c->max_recv_wr = u->max_recv_wr;
	c->max_send_sge = u->max_send_sge;
	c->max_recv_sge = u->max_recv_sge;
	c->max_inline_data = u->max_inline_data;
}

#define XV_QP_ATTR_MASK ((1U << 21) - 1)

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		  int attr_mask)
{
	struct xrdma_cmd_modify_qp c = { 0 };
	struct xrdma_uverbs_qp_attr *u = &c.attr;
	int ret;

	if ((unsigned int)attr_mask & ~XV_QP_ATTR_MASK)
		return EINVAL;
	c.qp_handle = qp->handle;
	c.attr_mask = (uint32_t)attr_mask;
	u->qp_state = attr->qp_state;
	u->cur_qp_state = attr->cur_qp_state;
	u->path_mtu = attr->path_mtu;
	u->qkey = attr->qkey;
	u->rq_psn = attr->rq_psn;
	u->sq_psn = attr->sq_psn;
	u->dest_qp_num = attr->dest_qp_num;
	u->qp_access_flags = (uint32_t)attr->qp_access_flags;
	u->cap.max_send_wr = attr->cap.max_send_wr;
	u->cap.max_recv_wr = attr->cap.max_recv_wr;
	u->cap.max_send_sge = attr->cap.max_send_sge;
	u->cap.max_recv_sge = attr->cap.max_recv_sge;
	u->cap.max_inline_data = attr->cap.max_inline_data;
	xv_ah_to_uverbs(&attr->ah_attr, &u->ah_attr);
	u->pkey_index = attr->pkey_index;
	u->en_sqd_async_notify = attr->en_sqd_async_notify;
	u->sq_draining = attr->sq_draining;
	u->max_rd_atomic = attr->max_rd_atomic;
	u->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	u->min_rnr_timer = attr->min_rnr_timer;
	u->port_num = attr->port_num;
	u->timeout = attr->timeout;
	u->retry_cnt = attr->retry_cnt;
	u->rnr_retry = attr->rnr_retry;
	u->path_mig_state = (uint8_t)attr->path_mig_state;
	ret = xv_ioctl(qp->context, XRDMA_IOC_MODIFY_QP, &c);
	if (ret)
		return ret;
	if (attr_mask & IBV_QP_STATE) {
		qp->state = attr->qp_state;
		/* the device starts the rings over: so does the provider */
		if (attr->qp_state == IBV_QPS_RESET)
			to_xctx(qp->context)->ops->reset_qp(to_xqp(qp));
	}
	return 0;
}

int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		 int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct xrdma_cmd_query_qp c = { 0 };
	struct xrdma_uverbs_qp_attr *u = &c.attr;
	int ret;

	c.qp_handle = qp->handle;
	c.attr_mask = (uint32_t)attr_mask & XV_QP_ATTR_MASK;
	ret = xv_ioctl(qp->context, XRDMA_IOC_QUERY_QP, &c);
	if (ret)
		return ret;
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = (enum ibv_qp_state)u->qp_state;
	attr->cur_qp_state = (enum ibv_qp_state)u->cur_qp_state;
	attr->path_mtu = (enum ibv_mtu)u->path_mtu;
	attr->qkey = u->qkey;
	attr->rq_psn = u->rq_psn;
	attr->sq_psn = u->sq_psn;
	attr->dest_qp_num = u->dest_qp_num;
	attr->qp_access_flags = (unsigned int)u->qp_access_flags;
	xv_cap_to_ibv(&u->cap, &attr->cap);
	xv_ah_from_uverbs(&u->ah_attr, &attr->ah_attr);
	attr->pkey_index = u->pkey_index;
	attr->en_sqd_async_notify = u->en_sqd_async_notify;
	attr->sq_draining = u->sq_draining;
	attr->max_rd_atomic = u->max_rd_atomic;
	attr->max_dest_rd_atomic = u->max_dest_rd_atomic;
	attr->min_rnr_timer = u->min_rnr_timer;
	attr->port_num = u->port_num;
	attr->timeout = u->timeout;
	attr->retry_cnt = u->retry_cnt;
	attr->rnr_retry = u->rnr_retry;
	attr->path_mig_state = (enum ibv_mig_state)u->path_mig_state;
	if (init_attr) {
		memset(init_attr, 0, sizeof(*init_attr));
		init_attr->qp_context = qp->qp_context;
		init_attr->send_cq = qp->send_cq;
		init_attr->recv_cq = qp->recv_cq;
		init_attr->srq = qp->srq;
		init_attr->qp_type = (enum ibv_qp_type)c.qp_type;
		init_attr->sq_sig_all = (int)c.sq_sig_all;
		xv_cap_to_ibv(&c.init_cap, &init_attr->cap);
	}
	/* as rdma-core: only a state the caller asked for is the QP's */
	if (attr_mask & IBV_QP_STATE)
		qp->state = attr->qp_state;
	return 0;
}

int ibv_destroy_qp(struct ibv_qp *ibqp)
{
	struct xv_context *xctx = to_xctx(ibqp->context);
	struct xv_qp *qp = to_xqp(ibqp);
	struct xrdma_cmd_destroy d;
	int ret;

	ret = xv_destroy_obj(ibqp->context, XRDMA_OBJ_QP, ibqp->handle, &d);
	if (ret > 0)
		return ret;
	xv_qp_remove(xctx, qp);
	xctx->ops->detach_qp(qp, ret == XV_DESTROY_GONE);
	if (ret != XV_DESTROY_GONE)
		xv_wait_events(&ibqp->mutex, &ibqp->cond,
			       &ibqp->events_completed, d.async_events_reported);
	xctx->ops->destroy_qp(qp);
	xv_pd_put(ibqp->pd);
	pthread_spin_destroy(&qp->sq_lock);
	pthread_spin_destroy(&qp->rq_lock);
	free(qp);
	return 0;
}

/*
 * rdma-core 56's answer (v56.1 libibverbs/verbs.c:695), which rdma-core
 * 44's callers get too (they pass @flags 0): flags 0, 1 if a whole
 * message's data is placed in order; flags RETURN_CAPS (rdma-core 56's
 * verbs.h), the capability bits WHOLE_MSG and, implied by it,
 * ALIGNED_128_BYTES; another flag bit, 0.  The device places an RC
 * message's data in order.
 */
#define XV_DATA_IN_ORDER_RETURN_CAPS	(1u << 0)
#define XV_DATA_IN_ORDER_WHOLE_MSG	(1 << 0)
#define XV_DATA_IN_ORDER_ALIGNED_128	(1 << 1)

int ibv_query_qp_data_in_order(struct ibv_qp *qp,
			       enum ibv_wr_opcode op,
			       uint32_t flags)
{
	(void)op;
	if (flags & ~XV_DATA_IN_ORDER_RETURN_CAPS)
		return 0;
	if (qp->qp_type != IBV_QPT_RC)
		return 0;
	return flags ? XV_DATA_IN_ORDER_WHOLE_MSG |
		       XV_DATA_IN_ORDER_ALIGNED_128 : 1;
}

void xv_qp_set_ops(struct verbs_context *v)
{
	v->create_qp_ex = xv_create_qp_ex;
}
