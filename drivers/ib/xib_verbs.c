// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma_ib: object and data-path verbs.  Every ib object wraps the xrdma
 * object it was created as (xib.h); ib_core allocates PD, CQ, QP, SRQ and
 * AH wrappers (INIT_RDMA_OBJ_SIZE), MRs are ours.  Kernel callers only:
 * ib_core never passes udata here (no alloc_ucontext), refused if it did.
 */
#include <linux/slab.h>
#include <rdma/ib_mad.h>
#include <xrdma/compat.h>
#include "xib.h"

/* the owner xrdma's debugfs shows: the ib consumer's module when known */
static const char *xib_owner(const struct rdma_restrack_entry *res)
{
	return res->kern_name ?: KBUILD_MODNAME;
}

/* ------------------------------------------------------------ PD */

static int xib_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct xrdma_pd *xpd;

	if (udata)
		return -EOPNOTSUPP;
	xpd = __xrdma_alloc_pd(to_xdev(ibpd->device), 0,
			       xib_owner(&ibpd->res), NULL);
	if (IS_ERR(xpd))
		return PTR_ERR(xpd);
	to_xib_pd(ibpd)->xpd = xpd;
	return 0;
}

static int xib_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	return xrdma_dealloc_pd(to_xib_pd(ibpd)->xpd);
}

/* ------------------------------------------------------------ CQ */

static void xib_cq_comp(struct xrdma_cq *xcq, void *ctx)
{
	struct ib_cq *ibcq = ctx;
	void (*handler)(struct ib_cq *cq, void *ctx);

	handler = READ_ONCE(ibcq->comp_handler);
	if (handler)
		handler(ibcq, ibcq->cq_context);
}

static void xib_cq_event(struct xrdma_event *e, void *ctx)
{
	struct ib_cq *ibcq = ctx;
	struct ib_event ev = {
		.device = ibcq->device,
		.element.cq = ibcq,
		.event = IB_EVENT_CQ_ERR,
	};

	if (ibcq->event_handler)
		ibcq->event_handler(&ev, ibcq->cq_context);
}

static int xib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *ia,
			 XRDMA_IB_CREATE_CQ_UARG *udata)
{
	struct xrdma_cq_init_attr xa = {
		.cqe = ia->cqe,
		.comp_vector = ia->comp_vector,
	};
	struct xrdma_cq *xcq;

	if (udata)
		return -EOPNOTSUPP;
	if (ia->flags)
		return -EOPNOTSUPP;
	xcq = __xrdma_create_cq(to_xdev(ibcq->device), xib_cq_comp,
				xib_cq_event, ibcq, &xa,
				xib_owner(&ibcq->res), NULL);
	if (IS_ERR(xcq))
		return PTR_ERR(xcq);
	to_xib_cq(ibcq)->xcq = xcq;
	ibcq->cqe = xcq->cqe;
	return 0;
}

/* ib_resize_cq(): kernel CQs only (xrdma_ib has no user contexts) */
static int xib_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct xrdma_cq *xcq = to_xib_cq(ibcq)->xcq;
	int ret;

	if (cqe <= 0 || udata)
		return -EINVAL;
	ret = xrdma_resize_cq(xcq, cqe);
	if (!ret)
		ibcq->cqe = READ_ONCE(xcq->cqe);
	return ret;
}

static int xib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	return xrdma_destroy_cq(to_xib_cq(ibcq)->xcq);
}

static void xib_wc_to_ib(const struct xrdma_wc *x, struct ib_wc *wc)
{
	struct xib_qp *qp = x->qp->qp_context;
	int status = xib_wc_status_to_ib(x->status);
	int opcode = xib_wc_opcode_to_ib(x->opcode);
	int flags = xib_wc_flags_to_ib(x->wc_flags);
	int net;

	wc->wr_id = x->wr_id;
	wc->status = status < 0 ? IB_WC_GENERAL_ERR : status;
	/* an error completion's opcode is undefined (IBA 11.4.2.1) */
	wc->opcode = opcode < 0 ? IB_WC_SEND : opcode;
	wc->vendor_err = x->vendor_err;
	wc->byte_len = x->byte_len;
	wc->qp = &qp->ibqp;
	wc->ex.imm_data = x->ex.imm_data;
	if (x->wc_flags & XRDMA_WC_WITH_INVALIDATE)
		wc->ex.invalidate_rkey = x->ex.invalidate_rkey;
	wc->src_qp = x->src_qp;
	wc->wc_flags = flags < 0 ? 0 : flags;
	wc->slid = 0;
	wc->pkey_index = x->pkey_index;
	wc->sl = 0;
	wc->dlid_path_bits = 0;
	wc->port_num = x->port_num;
	wc->vlan_id = 0;
	wc->network_hdr_type = 0;
	if (wc->wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE) {
		net = xib_network_type_to_ib(x->network_hdr_type);
		if (net < 0)
			wc->wc_flags &= ~IB_WC_WITH_NETWORK_HDR_TYPE;
		else
			wc->network_hdr_type = net;
	}
}

/*
 * Any context: ib_core polls from softirq (IB_POLL_SOFTIRQ), work items and
 * process context; xrdma's poll_cq is callable from all of them.
 */
#define XIB_POLL_BATCH	8

static int xib_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct xrdma_cq *xcq = to_xib_cq(ibcq)->xcq;
	struct xrdma_wc xwc[XIB_POLL_BATCH];
	int done = 0, want, got, i;

	while (done < num_entries) {
		want = min(num_entries - done, XIB_POLL_BATCH);
		got = xrdma_poll_cq(xcq, want, xwc);
		if (got < 0)
			return done ? done : got;
		for (i = 0; i < got; i++)
			xib_wc_to_ib(&xwc[i], &wc[done + i]);
		done += got;
		if (got < want)
			break;
	}
	return done;
}

static int xib_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	int xflags = xib_cq_notify_to_xrdma(flags);

	if (xflags < 0)
		return xflags;
	return xrdma_req_notify_cq(to_xib_cq(ibcq)->xcq, xflags);
}

/* ------------------------------------------------------------ AH attr */

static int xib_ah_attr_to_xrdma(const struct rdma_ah_attr *a,
				struct xrdma_ah_attr *x)
{
	const struct ib_global_route *grh;
	u32 sgid_index;

	if (a->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(a) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(a);
	sgid_index = grh->sgid_attr ? grh->sgid_attr->index : grh->sgid_index;
	if (sgid_index > U8_MAX)
		return -EINVAL;

	memset(x, 0, sizeof(*x));
	BUILD_BUG_ON(sizeof(x->dgid.raw) != sizeof(grh->dgid.raw));
	memcpy(x->dgid.raw, grh->dgid.raw, sizeof(x->dgid.raw));
	x->flow_label = grh->flow_label;
	x->sgid_index = sgid_index;
	x->hop_limit = grh->hop_limit;
	x->traffic_class = grh->traffic_class;
	x->sl = rdma_ah_get_sl(a);
	x->port_num = rdma_ah_get_port_num(a);
	x->is_global = 1;
	memcpy(x->dmac, a->roce.dmac, sizeof(x->dmac));
	return 0;
}

static void xib_ah_attr_to_ib(const struct xrdma_ah_attr *x,
			      struct rdma_ah_attr *a)
{
	union ib_gid dgid;

	memset(a, 0, sizeof(*a));
	a->type = RDMA_AH_ATTR_TYPE_ROCE;
	memcpy(dgid.raw, x->dgid.raw, sizeof(dgid.raw));
	rdma_ah_set_grh(a, &dgid, x->flow_label, x->sgid_index, x->hop_limit,
			x->traffic_class);
	rdma_ah_set_sl(a, x->sl);
	rdma_ah_set_port_num(a, x->port_num);
	memcpy(a->roce.dmac, x->dmac, sizeof(a->roce.dmac));
}

/* ------------------------------------------------------------ QP */

static void xib_qp_event(struct xrdma_event *e, void *ctx)
{
	struct xib_qp *qp = ctx;
	struct ib_qp *ibqp = &qp->ibqp;
	struct ib_event ev = {
		.device = ibqp->device,
		.element.qp = ibqp,
	};
	int type = xib_event_to_ib(e->event);

	if (type < 0 || !ibqp->event_handler)
		return;
	ev.event = type;
	ibqp->event_handler(&ev, ibqp->qp_context);
}

static void xib_cap_to_xrdma(const struct ib_qp_cap *c, struct xrdma_qp_cap *x)
{
	x->max_send_wr = c->max_send_wr;
	x->max_recv_wr = c->max_recv_wr;
	x->max_send_sge = c->max_send_sge;
	x->max_recv_sge = c->max_recv_sge;
	x->max_inline_data = c->max_inline_data;
}

static void xib_cap_to_ib(const struct xrdma_qp_cap *x, struct ib_qp_cap *c)
{
	c->max_send_wr = x->max_send_wr;
	c->max_recv_wr = x->max_recv_wr;
	c->max_send_sge = x->max_send_sge;
	c->max_recv_sge = x->max_recv_sge;
	c->max_inline_data = x->max_inline_data;
}

static int xib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *ia,
			 struct ib_udata *udata)
{
	struct xib_qp *qp = to_xib_qp(ibqp);
	struct xrdma_qp_init_attr xa = {
		.event_handler = xib_qp_event,
		.qp_context = qp,
		.sq_sig_all = ia->sq_sig_type == IB_SIGNAL_ALL_WR,
		.port_num = ia->port_num,
	};
	struct xrdma_qp *xqp;
	int type;

	if (udata)
		return -EOPNOTSUPP;
	if (ia->create_flags || ia->rwq_ind_tbl || ia->xrcd ||
	    ia->source_qpn)
		return -EOPNOTSUPP;
	type = xib_qp_type_to_xrdma(ia->qp_type);
	if (type < 0)
		return type;
	if (!ia->send_cq || !ia->recv_cq)
		return -EINVAL;
	xa.qp_type = type;
	xa.send_cq = to_xib_cq(ia->send_cq)->xcq;
	xa.recv_cq = to_xib_cq(ia->recv_cq)->xcq;
	xa.srq = ia->srq ? to_xib_srq(ia->srq)->xsrq : NULL;
	xib_cap_to_xrdma(&ia->cap, &xa.cap);

	xqp = __xrdma_create_qp(to_xib_pd(ibqp->pd)->xpd, &xa,
				xib_owner(&ibqp->res), NULL);
	if (IS_ERR(xqp))
		return PTR_ERR(xqp);
	qp->xqp = xqp;
	ibqp->qp_num = xqp->qp_num;
	xib_cap_to_ib(&xa.cap, &ia->cap);
	return 0;
}

static int xib_qp_attr_to_xrdma(const struct ib_qp_attr *a, int ib_mask,
				struct xrdma_qp_attr *x, int *xmask)
{
	int mask = xib_qp_mask_to_xrdma(ib_mask);
	int v;

	if (mask < 0)
		return mask;
	/* xrdma keeps one path: no alternate path to migrate to */
	if (ib_mask & (IB_QP_ALT_PATH | IB_QP_PATH_MIG_STATE))
		return -EOPNOTSUPP;
	memset(x, 0, sizeof(*x));
	if (ib_mask & IB_QP_STATE) {
		v = xib_qp_state_to_xrdma(a->qp_state);
		if (v < 0)
			return v;
		x->qp_state = v;
	}
	if (ib_mask & IB_QP_CUR_STATE) {
		v = xib_qp_state_to_xrdma(a->cur_qp_state);
		if (v < 0)
			return v;
		x->cur_qp_state = v;
	}
	if (ib_mask & IB_QP_PATH_MTU) {
		v = xib_mtu_to_xrdma(a->path_mtu);
		if (v < 0)
			return v;
		x->path_mtu = v;
	}
	if (ib_mask & IB_QP_ACCESS_FLAGS) {
		v = xib_access_to_xrdma(a->qp_access_flags);
		if (v < 0)
			return -EINVAL;
		x->qp_access_flags = v;
	}
	if (ib_mask & IB_QP_AV) {
		v = xib_ah_attr_to_xrdma(&a->ah_attr, &x->ah_attr);
		if (v < 0)
			return v;
	}
	if (ib_mask & IB_QP_CAP)
		xib_cap_to_xrdma(&a->cap, &x->cap);
	x->qkey = a->qkey;
	x->rq_psn = a->rq_psn;
	x->sq_psn = a->sq_psn;
	x->dest_qp_num = a->dest_qp_num;
	x->pkey_index = a->pkey_index;
	x->en_sqd_async_notify = a->en_sqd_async_notify;
	x->max_rd_atomic = a->max_rd_atomic;
	x->max_dest_rd_atomic = a->max_dest_rd_atomic;
	x->min_rnr_timer = a->min_rnr_timer;
	x->port_num = a->port_num;
	x->timeout = a->timeout;
	x->retry_cnt = a->retry_cnt;
	x->rnr_retry = a->rnr_retry;
	*xmask = mask;
	return 0;
}

static int xib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			 int mask, struct ib_udata *udata)
{
	struct xrdma_qp_attr xa;
	int xmask, ret;

	if (udata)
		return -EOPNOTSUPP;
	ret = xib_qp_attr_to_xrdma(attr, mask, &xa, &xmask);
	if (ret)
		return ret;
	return xrdma_modify_qp(to_xib_qp(ibqp)->xqp, &xa, xmask);
}

static int xib_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *a, int mask,
			struct ib_qp_init_attr *init)
{
	struct xrdma_qp *xqp = to_xib_qp(ibqp)->xqp;
	struct xrdma_qp_init_attr xinit;
	struct xrdma_qp_attr x;
	int xmask = xib_qp_mask_to_xrdma(mask);
	int ret, state, cur, mtu, access;

	if (xmask < 0)
		return xmask;
	ret = xrdma_query_qp(xqp, &x, xmask, &xinit);
	if (ret)
		return ret;
	state = xib_qp_state_to_ib(x.qp_state);
	cur = xib_qp_state_to_ib(x.cur_qp_state);
	mtu = xib_mtu_to_ib(x.path_mtu);
	access = xib_access_to_ib(x.qp_access_flags);
	if (state < 0 || access < 0)
		return -EINVAL;

	memset(a, 0, sizeof(*a));
	a->qp_state = state;
	a->cur_qp_state = cur < 0 ? state : cur;
	/* before RTR there is no path MTU yet */
	a->path_mtu = mtu < 0 ? IB_MTU_256 : mtu;
	a->path_mig_state = IB_MIG_MIGRATED;
	a->qkey = x.qkey;
	a->rq_psn = x.rq_psn;
	a->sq_psn = x.sq_psn;
	a->dest_qp_num = x.dest_qp_num;
	a->qp_access_flags = access;
	xib_cap_to_ib(&x.cap, &a->cap);
	if (ibqp->qp_type == IB_QPT_RC || ibqp->qp_type == IB_QPT_UC)
		xib_ah_attr_to_ib(&x.ah_attr, &a->ah_attr);
	a->pkey_index = x.pkey_index;
	a->en_sqd_async_notify = x.en_sqd_async_notify;
	a->sq_draining = x.sq_draining;
	a->max_rd_atomic = x.max_rd_atomic;
	a->max_dest_rd_atomic = x.max_dest_rd_atomic;
	a->min_rnr_timer = x.min_rnr_timer;
	a->port_num = x.port_num;
	a->timeout = x.timeout;
	a->retry_cnt = x.retry_cnt;
	a->rnr_retry = x.rnr_retry;

	memset(init, 0, sizeof(*init));
	init->event_handler = ibqp->event_handler;
	init->qp_context = ibqp->qp_context;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	xib_cap_to_ib(&xinit.cap, &init->cap);
	init->sq_sig_type = xinit.sq_sig_all ? IB_SIGNAL_ALL_WR :
					       IB_SIGNAL_REQ_WR;
	init->qp_type = ibqp->qp_type;
	init->port_num = ibqp->port;
	return 0;
}

static int xib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	return xrdma_destroy_qp(to_xib_qp(ibqp)->xqp);
}

/* ------------------------------------------------------------ post */

/*
 * The SGE and receive WR layouts are the same on both sides (checked at
 * build time), so SGE lists and receive chains are passed as they are;
 * send WRs are translated in batches on the stack: no allocation.
 */
static void xib_layout_checks(void)
{
	BUILD_BUG_ON(sizeof(struct ib_sge) != sizeof(struct xrdma_sge));
	BUILD_BUG_ON(offsetof(struct ib_sge, addr) !=
		     offsetof(struct xrdma_sge, addr));
	BUILD_BUG_ON(offsetof(struct ib_sge, length) !=
		     offsetof(struct xrdma_sge, length));
	BUILD_BUG_ON(offsetof(struct ib_sge, lkey) !=
		     offsetof(struct xrdma_sge, lkey));
	BUILD_BUG_ON(sizeof(struct ib_recv_wr) != sizeof(struct xrdma_recv_wr));
	BUILD_BUG_ON(offsetof(struct ib_recv_wr, next) !=
		     offsetof(struct xrdma_recv_wr, next));
	BUILD_BUG_ON(offsetof(struct ib_recv_wr, wr_id) !=
		     offsetof(struct xrdma_recv_wr, wr_id));
	BUILD_BUG_ON(offsetof(struct ib_recv_wr, sg_list) !=
		     offsetof(struct xrdma_recv_wr, sg_list));
	BUILD_BUG_ON(offsetof(struct ib_recv_wr, num_sge) !=
		     offsetof(struct xrdma_recv_wr, num_sge));
}

static int xib_reg_wr_to_xrdma(const struct ib_reg_wr *rw,
			       struct xrdma_send_wr *x)
{
	struct ib_mr *ibmr = rw->mr;
	struct xrdma_mr *xmr = to_xib_mr(ibmr)->xmr;
	int access = xib_access_to_xrdma(rw->access);

	if (access < 0 || ((rw->key ^ xmr->lkey) & ~0xffU))
		return -EINVAL;
	/*
	 * The ULP may have changed the key (ib_update_fast_reg_key()) and the
	 * iova (xprtrdma puts its XID into the upper bits) since map_mr_sg:
	 * the xrdma MR follows the ib_mr.
	 */
	xrdma_update_fast_reg_key(xmr, rw->key & 0xff);
	xmr->iova = ibmr->iova;
	xmr->length = ibmr->length;
	x->wr.reg.mr = xmr;
	x->wr.reg.key = rw->key;
	x->wr.reg.access = access;
	return 0;
}

static int xib_send_wr_to_xrdma(const struct ib_qp *ibqp,
				const struct ib_send_wr *wr,
				struct xrdma_send_wr *x)
{
	int op = xib_wr_opcode_to_xrdma(wr->opcode);
	int flags = xib_send_flags_to_xrdma(wr->send_flags);

	if (op < 0 || flags < 0)
		return -EINVAL;
	memset(x, 0, sizeof(*x));
	x->wr_id = wr->wr_id;
	x->sg_list = (struct xrdma_sge *)wr->sg_list;
	x->num_sge = wr->num_sge;
	x->opcode = op;
	x->send_flags = flags;

	switch (wr->opcode) {
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		x->ex.imm_data = wr->ex.imm_data;
		break;
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
		x->ex.invalidate_rkey = wr->ex.invalidate_rkey;
		break;
	default:
		break;
	}

	if (ibqp->qp_type == IB_QPT_UD || ibqp->qp_type == IB_QPT_GSI) {
		const struct ib_ud_wr *uw = ud_wr(wr);

		/* only sends are ib_ud_wrs: no other opcode on a datagram QP */
		if ((wr->opcode != IB_WR_SEND &&
		     wr->opcode != IB_WR_SEND_WITH_IMM) || !uw->ah)
			return -EINVAL;
		x->wr.ud.ah = to_xib_ah(uw->ah)->xah;
		x->wr.ud.remote_qpn = uw->remote_qpn;
		/* IB_QP_SET_QKEY is xrdma's "use the QP's Q_Key" bit */
		BUILD_BUG_ON(IB_QP_SET_QKEY != XRDMA_QKEY_CONTROLLED);
		x->wr.ud.remote_qkey = uw->remote_qkey;
		return 0;
	}

	/* Linux 6.2+: an ib_rdma_wr, 8 bytes of payload in sg_list */
	if (op == XRDMA_WR_ATOMIC_WRITE) {
		x->wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		x->wr.rdma.rkey = rdma_wr(wr)->rkey;
		return 0;
	}
	switch (wr->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		x->wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		x->wr.rdma.rkey = rdma_wr(wr)->rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		x->wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		x->wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		x->wr.atomic.swap = atomic_wr(wr)->swap;
		x->wr.atomic.rkey = atomic_wr(wr)->rkey;
		break;
	case IB_WR_REG_MR:
		return xib_reg_wr_to_xrdma(reg_wr(wr), x);
	default:
		break;
	}
	return 0;
}

#define XIB_POST_BATCH	8

static int xib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			 const struct ib_send_wr **bad_wr)
{
	struct xrdma_qp *xqp = to_xib_qp(ibqp)->xqp;
	struct xrdma_send_wr xw[XIB_POST_BATCH];
	const struct ib_send_wr *iw[XIB_POST_BATCH];
	const struct xrdma_send_wr *xbad;
	int n, ret, pret;

	while (wr) {
		ret = 0;
		for (n = 0; wr && n < XIB_POST_BATCH; n++, wr = wr->next) {
			ret = xib_send_wr_to_xrdma(ibqp, wr, &xw[n]);
			if (ret)
				break;
			iw[n] = wr;
			if (n)
				xw[n - 1].next = &xw[n];
		}
		if (n) {
			xbad = NULL;
			pret = xrdma_post_send(xqp, xw, &xbad);
			if (pret) {
				if (xbad >= xw && xbad < xw + n)
					*bad_wr = iw[xbad - xw];
				else
					*bad_wr = iw[0];
				return pret;
			}
		}
		if (ret) {
			*bad_wr = wr;
			return ret;
		}
	}
	return 0;
}

static int xib_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad_wr)
{
	xib_layout_checks();
	return xrdma_post_recv(to_xib_qp(ibqp)->xqp,
			       (const struct xrdma_recv_wr *)wr,
			       (const struct xrdma_recv_wr **)bad_wr);
}

/* ------------------------------------------------------------ SRQ */

static void xib_srq_event(struct xrdma_event *e, void *ctx)
{
	struct ib_srq *ibsrq = ctx;
	struct ib_event ev = {
		.device = ibsrq->device,
		.element.srq = ibsrq,
	};
	int type = xib_event_to_ib(e->event);

	if (type < 0 || !ibsrq->event_handler)
		return;
	ev.event = type;
	ibsrq->event_handler(&ev, ibsrq->srq_context);
}

static int xib_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *ia,
			  struct ib_udata *udata)
{
	struct xrdma_srq_init_attr xa = {
		.event_handler = xib_srq_event,
		.srq_context = ibsrq,
		.attr = {
			.max_wr = ia->attr.max_wr,
			.max_sge = ia->attr.max_sge,
			.srq_limit = ia->attr.srq_limit,
		},
	};
	struct xrdma_srq *xsrq;

	if (udata)
		return -EOPNOTSUPP;
	if (ia->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	xsrq = __xrdma_create_srq(to_xib_pd(ibsrq->pd)->xpd, &xa,
				  xib_owner(&ibsrq->pd->res), NULL);
	if (IS_ERR(xsrq))
		return PTR_ERR(xsrq);
	to_xib_srq(ibsrq)->xsrq = xsrq;
	ia->attr.max_wr = xa.attr.max_wr;
	ia->attr.max_sge = xa.attr.max_sge;
	return 0;
}

static int xib_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
			  enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct xrdma_srq_attr xa = {
		.max_wr = attr->max_wr,
		.max_sge = attr->max_sge,
		.srq_limit = attr->srq_limit,
	};
	int xmask = xib_srq_mask_to_xrdma(mask);

	if (udata)
		return -EOPNOTSUPP;
	if (xmask < 0)
		return xmask;
	return xrdma_modify_srq(to_xib_srq(ibsrq)->xsrq, &xa, xmask);
}

static int xib_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct xrdma_srq_attr xa;
	int ret;

	ret = xrdma_query_srq(to_xib_srq(ibsrq)->xsrq, &xa);
	if (ret)
		return ret;
	attr->max_wr = xa.max_wr;
	attr->max_sge = xa.max_sge;
	attr->srq_limit = xa.srq_limit;
	return 0;
}

static int xib_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	return xrdma_destroy_srq(to_xib_srq(ibsrq)->xsrq);
}

static int xib_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			     const struct ib_recv_wr **bad_wr)
{
	return xrdma_post_srq_recv(to_xib_srq(ibsrq)->xsrq,
				   (const struct xrdma_recv_wr *)wr,
				   (const struct xrdma_recv_wr **)bad_wr);
}

/* ------------------------------------------------------------ MR */

static struct ib_mr *xib_wrap_mr(struct xrdma_mr *xmr)
{
	struct xib_mr *mr;

	if (IS_ERR(xmr))
		return ERR_CAST(xmr);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		xrdma_dereg_mr(xmr);
		return ERR_PTR(-ENOMEM);
	}
	mr->xmr = xmr;
	mr->ibmr.lkey = xmr->lkey;
	mr->ibmr.rkey = xmr->rkey;
	mr->ibmr.iova = xmr->iova;
	mr->ibmr.length = xmr->length;
	return &mr->ibmr;
}

/*
 * ib_core's per-PD DMA MR (pd->local_dma_lkey): local access only.
 * IB_PD_UNSAFE_GLOBAL_RKEY asks for remote rights here: refused.
 */
static struct ib_mr *xib_get_dma_mr(struct ib_pd *ibpd, int acc)
{
	int access = xib_access_to_xrdma(acc);

	if (access < 0)
		return ERR_PTR(access);
	if (access & ~XRDMA_ACCESS_LOCAL_WRITE)
		return ERR_PTR(-EOPNOTSUPP);
	return xib_wrap_mr(__xrdma_get_dma_mr(to_xib_pd(ibpd)->xpd, access,
					      xib_owner(&ibpd->res)));
}

static struct ib_mr *xib_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
				  u32 max_num_sg)
{
	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	return xib_wrap_mr(__xrdma_alloc_mr(to_xib_pd(ibpd)->xpd, max_num_sg,
					    xib_owner(&ibpd->res)));
}

static int xib_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg,
			 int sg_nents, unsigned int *sg_offset)
{
	struct xrdma_mr *xmr = to_xib_mr(ibmr)->xmr;
	int n;

	n = xrdma_map_mr_sg(xmr, sg, sg_nents, sg_offset, ibmr->page_size);
	ibmr->iova = xmr->iova;
	ibmr->length = xmr->length;
	return n;
}

static int xib_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct xib_mr *mr = to_xib_mr(ibmr);

	xrdma_dereg_mr(mr->xmr);
	kfree(mr);
	return 0;
}

/* user memory is xrdma_uverbs' business: no ucontext here */
static struct ib_mr *xib_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 len,
				     u64 iova, int access,
				     struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

/* ------------------------------------------------------------ AH */

/* ib_cm creates and destroys AHs under a spinlock: NOSLEEP unless told */
static int xib_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *ia,
			 struct ib_udata *udata)
{
	struct xrdma_ah_attr xa;
	struct xrdma_ah *xah;
	u32 flags = ia->flags & RDMA_CREATE_AH_SLEEPABLE ? 0 : XRDMA_AH_NOSLEEP;
	int ret;

	if (udata)
		return -EOPNOTSUPP;
	ret = xib_ah_attr_to_xrdma(ia->ah_attr, &xa);
	if (ret)
		return ret;
	xah = __xrdma_create_ah(to_xib_pd(ibah->pd)->xpd, &xa, flags,
				xib_owner(&ibah->pd->res), NULL);
	if (IS_ERR(xah))
		return PTR_ERR(xah);
	to_xib_ah(ibah)->xah = xah;
	return 0;
}

static int xib_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	xib_ah_attr_to_ib(&to_xib_ah(ibah)->xah->attr, attr);
	return 0;
}

static int xib_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	return xrdma_destroy_ah(to_xib_ah(ibah)->xah);
}

/* ------------------------------------------------------------ multicast */

/* ib_core checked the QP type, the GID and the LID; so does xrdma_core. */
static int xib_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	union xrdma_gid xg;

	memcpy(xg.raw, gid->raw, sizeof(xg.raw));
	return xrdma_attach_mcast(to_xib_qp(ibqp)->xqp, &xg, lid);
}

static int xib_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	union xrdma_gid xg;

	memcpy(xg.raw, gid->raw, sizeof(xg.raw));
	return xrdma_detach_mcast(to_xib_qp(ibqp)->xqp, &xg, lid);
}

const struct ib_device_ops xib_verbs_ops = {
	.alloc_pd = xib_alloc_pd,
	.dealloc_pd = xib_dealloc_pd,
	.create_cq = xib_create_cq,
	.destroy_cq = xib_destroy_cq,
	.poll_cq = xib_poll_cq,
	.req_notify_cq = xib_req_notify_cq,
	.resize_cq = xib_resize_cq,
	.create_qp = xib_create_qp,
	.modify_qp = xib_modify_qp,
	.query_qp = xib_query_qp,
	.destroy_qp = xib_destroy_qp,
	.post_send = xib_post_send,
	.post_recv = xib_post_recv,
	.create_srq = xib_create_srq,
	.modify_srq = xib_modify_srq,
	.query_srq = xib_query_srq,
	.destroy_srq = xib_destroy_srq,
	.post_srq_recv = xib_post_srq_recv,
	.get_dma_mr = xib_get_dma_mr,
	.alloc_mr = xib_alloc_mr,
	.map_mr_sg = xib_map_mr_sg,
	.dereg_mr = xib_dereg_mr,
	.reg_user_mr = xib_reg_user_mr,
	.create_ah = xib_create_ah,
	.query_ah = xib_query_ah,
	.destroy_ah = xib_destroy_ah,
	.attach_mcast = xib_attach_mcast,
	.detach_mcast = xib_detach_mcast,

	INIT_RDMA_OBJ_SIZE(ib_pd, xib_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_cq, xib_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_qp, xib_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, xib_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ah, xib_ah, ibah),
};
