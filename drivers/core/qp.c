// SPDX-License-Identifier: GPL-2.0
/*
 * The QP verbs: create (with the uses a QP holds on its PD, CQs, SRQ and
 * XRC domain), modify, query, move to the error state and destroy, and
 * the multicast groups a QP attaches to.  Which attributes a state
 * transition takes is qp_state.c's; XRC_TGT QP handles are xrcd.c's.
 */
#include <linux/slab.h>
#include "core_priv.h"
#include "trace.h"

/* The receive side of an RC, UC, UD or GSI QP: its CQ and SRQ or sizes. */
static int xrdma_check_qp_recv(struct xrdma_device *dev,
			       const struct xrdma_qp_init_attr *attr)
{
	const struct xrdma_device_attr *da = &dev->attr;
	const struct xrdma_qp_cap *cap = &attr->cap;

	if (!attr->recv_cq || attr->recv_cq->device != dev || attr->xrcd)
		return -EINVAL;
	if (attr->srq) {
		/* an XRC SRQ receives for the XRC_TGT QPs of its domain only */
		if (attr->srq->device != dev ||
		    attr->srq->srq_type != XRDMA_SRQT_BASIC)
			return -EINVAL;
		return 0;
	}
	/*
	 * Within these limits any size is valid, 0 included (a QP with no
	 * work requests to post is useless but legal, as ib_core and rxe
	 * have it): the driver provides at least what was asked for.
	 */
	if (cap->max_recv_wr > da->max_qp_wr || cap->max_recv_sge > da->max_sge)
		return -EINVAL;
	return 0;
}

static int xrdma_check_qp_init_attr(struct xrdma_device *dev,
				    struct xrdma_pd *pd,
				    const struct xrdma_qp_init_attr *attr,
				    struct xrdma_udata *udata)
{
	const struct xrdma_device_attr *da = &dev->attr;
	const struct xrdma_qp_cap *cap = &attr->cap;
	bool xrc = da->device_cap_flags & XRDMA_DEVICE_XRC;
	int ret;

	switch (attr->qp_type) {
	case XRDMA_QPT_RC:
	case XRDMA_QPT_UC:
	case XRDMA_QPT_UD:
		break;
	case XRDMA_QPT_GSI:
		/* kernel only, bound to its port for life */
		if (udata || attr->port_num < 1 ||
		    attr->port_num > dev->num_ports)
			return -EINVAL;
		break;
	case XRDMA_QPT_XRC_INI:
		if (!xrc)
			return -EOPNOTSUPP;
		break;
	case XRDMA_QPT_XRC_TGT:
		if (!xrc)
			return -EOPNOTSUPP;
		/* the domain only: no PD, queues or CQs */
		if (pd || !attr->xrcd || attr->xrcd->device != dev ||
		    attr->send_cq || attr->recv_cq || attr->srq ||
		    memchr_inv(cap, 0, sizeof(*cap)))
			return -EINVAL;
		return 0;
	default:
		return -EOPNOTSUPP;
	}
	if (!pd || !attr->send_cq || attr->send_cq->device != dev)
		return -EINVAL;
	if (cap->max_send_wr > da->max_qp_wr ||
	    cap->max_send_sge > da->max_sge ||
	    cap->max_inline_data > da->max_inline_data)
		return -EINVAL;
	if (attr->qp_type != XRDMA_QPT_XRC_INI) {
		ret = xrdma_check_qp_recv(dev, attr);
		if (ret)
			return ret;
		return 0;
	}
	/* an XRC initiator sends only: no receive queue, CQ or SRQ */
	if (attr->recv_cq || attr->srq || attr->xrcd || cap->max_recv_wr ||
	    cap->max_recv_sge)
		return -EINVAL;
	return 0;
}

/*
 * Take a use on each object the QP depends on (those it has: an XRC_INI
 * QP has no receive CQ, an XRC_TGT QP a domain and nothing else); undone
 * by the put below.
 */
static int xrdma_qp_get_deps(struct xrdma_pd *pd,
			     struct xrdma_qp_init_attr *attr)
{
	if (pd && !xrdma_use_get(&pd->usecnt))
		return -EINVAL;
	if (attr->xrcd && !xrdma_use_get(&attr->xrcd->usecnt))
		goto err_pd;
	if (attr->send_cq && !xrdma_use_get(&attr->send_cq->usecnt))
		goto err_xrcd;
	if (attr->recv_cq && !xrdma_use_get(&attr->recv_cq->usecnt))
		goto err_send;
	if (attr->srq && !xrdma_use_get(&attr->srq->usecnt))
		goto err_recv;
	return 0;

err_recv:
	if (attr->recv_cq)
		xrdma_use_put(&attr->recv_cq->usecnt);
err_send:
	if (attr->send_cq)
		xrdma_use_put(&attr->send_cq->usecnt);
err_xrcd:
	if (attr->xrcd)
		xrdma_use_put(&attr->xrcd->usecnt);
err_pd:
	if (pd)
		xrdma_use_put(&pd->usecnt);
	return -EINVAL;
}

static void xrdma_qp_put_deps(struct xrdma_pd *pd, struct xrdma_xrcd *xrcd,
			      struct xrdma_cq *send_cq,
			      struct xrdma_cq *recv_cq, struct xrdma_srq *srq)
{
	if (srq)
		xrdma_use_put(&srq->usecnt);
	if (recv_cq)
		xrdma_use_put(&recv_cq->usecnt);
	if (send_cq)
		xrdma_use_put(&send_cq->usecnt);
	if (xrcd)
		xrdma_use_put(&xrcd->usecnt);
	if (pd)
		xrdma_use_put(&pd->usecnt);
}

/**
 * __xrdma_create_qp - create a queue pair in the RESET state
 * @pd: protection domain; NULL for an XRC_TGT QP
 * @attr: type, CQs, optional SRQ, capabilities; the driver may raise the
 *	  capabilities it actually provides
 * @caller: owner's module name
 * @udata: driver data of a user command, NULL for kernel callers
 *
 * A GSI QP (kernel callers only, @attr->port_num its port for life) has
 * qp_num XRDMA_GSI_QPN and is tracked under xrdma_gsi_res_id(port), so
 * xrdma_qp_get_by_num(dev, XRDMA_GSI_QPN) finds port 1's; one per port.
 *
 * XRC (a device with XRDMA_DEVICE_XRC): an XRC_INI QP has @pd and a send
 * CQ, and no receive side (no receive CQ or SRQ, max_recv_wr and
 * max_recv_sge 0); an XRC_TGT QP has @attr->xrcd and nothing else (no
 * @pd, CQs, SRQ, capabilities).  An XRC_TGT QP belongs to its domain, not
 * to a process: the driver sees no @udata for it (as in ib_core), and it
 * lives until its last handle (this one, xrdma_open_qp()'s) is closed.
 *
 * Return: the QP (qp_num is its QPN) or an ERR_PTR: -EOPNOTSUPP for an
 * unknown type (or an XRC type on a device without XRC), -EINVAL for bad
 * attributes (a GSI QP from userspace or on a bad port), -EBUSY if the
 * port has a GSI QP already.
 */
struct xrdma_qp *__xrdma_create_qp(struct xrdma_pd *pd,
				   struct xrdma_qp_init_attr *attr,
				   const char *caller,
				   struct xrdma_udata *udata)
{
	bool tgt = attr->qp_type == XRDMA_QPT_XRC_TGT;
	struct xrdma_device *dev;
	struct xrdma_qp *qp;
	int ret;

	if (pd)
		dev = pd->device;
	else if (tgt && attr->xrcd)
		dev = attr->xrcd->device;
	else
		return ERR_PTR(-EINVAL);
	ret = xrdma_check_qp_init_attr(dev, pd, attr, udata);
	if (ret)
		return ERR_PTR(ret);
	ret = xrdma_qp_get_deps(pd, attr);
	if (ret)
		return ERR_PTR(ret);
	qp = xrdma_obj_alloc_id(dev, dev->ops->size_qp, XRDMA_RES_QP, caller,
				GFP_KERNEL,
				attr->qp_type == XRDMA_QPT_GSI ?
				xrdma_gsi_res_id(attr->port_num) : 0);
	if (IS_ERR(qp)) {
		ret = PTR_ERR(qp);
		goto err_deps;
	}
	qp->device = dev;
	qp->pd = pd;
	qp->send_cq = attr->send_cq;
	qp->recv_cq = attr->recv_cq;
	qp->srq = attr->srq;
	qp->xrcd = tgt ? attr->xrcd : NULL;
	qp->event_handler = attr->event_handler;
	qp->qp_context = attr->qp_context;
	qp->qp_type = attr->qp_type;
	qp->qp_num = attr->qp_type == XRDMA_QPT_GSI ? XRDMA_GSI_QPN :
		     qp->res.id;
	qp->port_num = attr->port_num;
	qp->state = XRDMA_QPS_RESET;
	mutex_init(&qp->state_lock);
	INIT_LIST_HEAD(&qp->mcast_list);
	atomic_set(&qp->open_cnt, 1);
	spin_lock_init(&qp->open_lock);
	INIT_LIST_HEAD(&qp->open_list);
	ret = dev->ops->create_qp(qp, attr, tgt ? NULL : udata);
	if (ret) {
		mutex_destroy(&qp->state_lock);
		xrdma_obj_abort(&qp->res);
		goto err_deps;
	}
	xrdma_res_commit(&qp->res);
	if (tgt) {
		ret = xrdma_tgt_qp_publish(qp);
		if (ret) {
			xrdma_qp_teardown(qp);
			return ERR_PTR(ret);
		}
	}
	return qp;

err_deps:
	xrdma_qp_put_deps(pd, attr->xrcd, attr->send_cq, attr->recv_cq,
			  attr->srq);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(__xrdma_create_qp);

/**
 * __xrdma_modify_qp - change a QP's state and attributes
 * @qp: the QP
 * @attr: new values for the attributes named in @mask
 * @mask: XRDMA_QP_* attribute mask
 * @udata: driver data of a user command, NULL for kernel callers
 *
 * The transition and the mask are checked against the InfiniBand QP state
 * table for @qp's type, and the values against the device's limits, before
 * the driver sees them (an address vector as xrdma_check_ah_attr(): a GRH
 * on a RoCE port); entering SQD also needs XRDMA_DEVICE_SQD.
 * Return: 0, or -EINVAL with no change made, or the driver's error.
 */
int __xrdma_modify_qp(struct xrdma_qp *qp, struct xrdma_qp_attr *attr,
		      int mask, struct xrdma_udata *udata)
{
	enum xrdma_qp_state cur, next;
	int ret;

	mutex_lock(&qp->state_lock);
	cur = READ_ONCE(qp->state);
	if (mask & XRDMA_QP_CUR_STATE && attr->cur_qp_state != cur) {
		ret = -EINVAL;
		goto out;
	}
	next = mask & XRDMA_QP_STATE ? attr->qp_state : cur;
	if (!xrdma_modify_qp_is_ok(cur, next, qp->qp_type, mask)) {
		ret = -EINVAL;
		goto out;
	}
	/* SQ drain (RTS->SQD, SQD->SQD) only where the device supports it */
	if (next == XRDMA_QPS_SQD &&
	    !(qp->device->attr.device_cap_flags & XRDMA_DEVICE_SQD)) {
		ret = -EINVAL;
		goto out;
	}
	ret = xrdma_check_qp_attr(qp->device, qp->qp_type, attr, mask);
	if (ret)
		goto out;
	/* an XRC_TGT QP belongs to no process: the driver sees no udata */
	ret = qp->device->ops->modify_qp(qp, attr, mask,
					 qp->qp_type == XRDMA_QPT_XRC_TGT ?
					 NULL : udata);
	if (!ret)
		WRITE_ONCE(qp->state, next);
out:
	trace_xrdma_modify_qp(qp, cur, mask & XRDMA_QP_STATE ?
			      attr->qp_state : cur, mask, ret);
	mutex_unlock(&qp->state_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(__xrdma_modify_qp);

/**
 * xrdma_query_qp - read a QP's attributes
 * @qp: the QP
 * @attr: filled in (qp_state always)
 * @mask: attributes wanted
 * @init_attr: filled in with the creation attributes, may be NULL
 *
 * Return: 0 or the driver's error; qp_state is filled in either way.
 */
int xrdma_query_qp(struct xrdma_qp *qp, struct xrdma_qp_attr *attr, int mask,
		   struct xrdma_qp_init_attr *init_attr)
{
	struct xrdma_qp_init_attr dummy;
	int ret = 0;

	memset(attr, 0, sizeof(*attr));
	if (!init_attr)
		init_attr = &dummy;
	memset(init_attr, 0, sizeof(*init_attr));
	init_attr->send_cq = qp->send_cq;
	init_attr->recv_cq = qp->recv_cq;
	init_attr->srq = qp->srq;
	init_attr->xrcd = qp->xrcd;
	init_attr->qp_type = qp->qp_type;
	init_attr->event_handler = qp->event_handler;
	init_attr->qp_context = qp->qp_context;
	if (qp->device->ops->query_qp)
		ret = qp->device->ops->query_qp(qp, attr, mask, init_attr);
	attr->qp_state = READ_ONCE(qp->state);
	attr->cur_qp_state = attr->qp_state;
	return ret;
}
EXPORT_SYMBOL_GPL(xrdma_query_qp);

/**
 * xrdma_qp_set_error - record that the hardware moved a QP to ERR
 * @qp: the QP
 *
 * For drivers, from any context: the next modify_qp starts from ERR.
 */
void xrdma_qp_set_error(struct xrdma_qp *qp)
{
	WRITE_ONCE(qp->state, XRDMA_QPS_ERR);
}
EXPORT_SYMBOL_GPL(xrdma_qp_set_error);

/* ----------------------------------------------------------- multicast */

/* A multicast group a QP is attached to (qp->mcast_list). */
struct xrdma_mcast {
	struct list_head node;
	union xrdma_gid gid;
	struct xrdma_ucharge charge;	/* a process's: its uid's share */
};

/* Free an attachment the driver no longer has, and its uid's charge. */
static void xrdma_mcast_free(struct xrdma_qp *qp, struct xrdma_mcast *m)
{
	xrdma_user_uncharge(qp->device, XRDMA_ULIM_MCAST, &m->charge);
	kfree(m);
}

/**
 * xrdma_gid_is_mcast - whether a GID names a multicast group
 * @gid: the GID
 *
 * An IPv6 multicast address (ff00::/8), or an IPv4-mapped IPv4 multicast
 * address (::ffff:224.0.0.0/100), as ib_core's rdma_is_multicast_addr().
 */
bool xrdma_gid_is_mcast(const union xrdma_gid *gid)
{
	static const u8 v4mapped[12] = { [10] = 0xff, [11] = 0xff };

	return gid->raw[0] == 0xff ||
	       (!memcmp(gid->raw, v4mapped, sizeof(v4mapped)) &&
		(gid->raw[12] & 0xf0) == 0xe0);
}
EXPORT_SYMBOL_GPL(xrdma_gid_is_mcast);

/*
 * The multicast LID rule of ib_core's is_valid_mcast_lid(): on a device
 * with an Ethernet (RoCE) port the LID is ignored; on InfiniBand it must
 * be a multicast LID (0xc000..0xfffe).
 */
static bool xrdma_mcast_lid_ok(struct xrdma_device *dev, u16 lid)
{
	u32 p;

	for (p = 0; p < dev->num_ports; p++)
		if (dev->port_link_layer[p] == XRDMA_LINK_LAYER_ETHERNET)
			return true;
	return lid >= 0xc000 && lid != 0xffff;
}

static struct xrdma_mcast *xrdma_mcast_find(struct xrdma_qp *qp,
					    const union xrdma_gid *gid)
{
	struct xrdma_mcast *m;

	list_for_each_entry(m, &qp->mcast_list, node)
		if (!memcmp(m->gid.raw, gid->raw, sizeof(gid->raw)))
			return m;
	return NULL;
}

static int xrdma_mcast_check(struct xrdma_qp *qp, const union xrdma_gid *gid,
			     u16 lid)
{
	if (!qp->device->ops->attach_mcast || !qp->device->ops->detach_mcast)
		return -EOPNOTSUPP;
	if (qp->qp_type != XRDMA_QPT_UD || !xrdma_gid_is_mcast(gid) ||
	    !xrdma_mcast_lid_ok(qp->device, lid))
		return -EINVAL;
	return 0;
}

/**
 * xrdma_attach_mcast - attach a UD QP to a multicast group
 * @qp: a UD QP
 * @gid: the group (xrdma_gid_is_mcast())
 * @lid: its LID (ignored on RoCE)
 *
 * A UD send to the group (dest QPN XRDMA_MCAST_QPN, the group's GID)
 * then reaches @qp, one copy however often it was attached.
 *
 * Return: 0 (also when attached already), -EOPNOTSUPP for a device
 * without multicast, -EINVAL for another QP type, a GID that is not
 * multicast or a bad LID, -EAGAIN when a process's uid holds its share
 * of attachments (user_share percent of the smaller of max_mcast_grp and
 * max_total_mcast_qp_attach: each attachment may create a group),
 * -ENOMEM (or the driver's error) beyond the device's limits
 * (max_mcast_grp, max_mcast_qp_attach, max_total_mcast_qp_attach).
 */
int xrdma_attach_mcast(struct xrdma_qp *qp, const union xrdma_gid *gid,
		       u16 lid)
{
	struct xrdma_mcast *m;
	int ret;

	ret = xrdma_mcast_check(qp, gid, lid);
	if (ret)
		return ret;
	mutex_lock(&qp->state_lock);
	if (xrdma_mcast_find(qp, gid))
		goto out;
	m = kzalloc(sizeof(*m), qp->res.kern_name ? GFP_KERNEL :
						       GFP_KERNEL_ACCOUNT);
	if (!m) {
		ret = -ENOMEM;
		goto out;
	}
	m->gid = *gid;
	if (!qp->res.kern_name) {
		ret = xrdma_user_charge(qp->device, XRDMA_ULIM_MCAST,
					&m->charge);
		if (ret) {
			kfree(m);
			goto out;
		}
	}
	ret = qp->device->ops->attach_mcast(qp, gid);
	if (ret)
		xrdma_mcast_free(qp, m);
	else
		list_add_tail(&m->node, &qp->mcast_list);
out:
	mutex_unlock(&qp->state_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(xrdma_attach_mcast);

/**
 * xrdma_detach_mcast - detach a UD QP from a multicast group
 * @qp: the QP
 * @gid: the group
 * @lid: its LID (ignored on RoCE)
 *
 * Return: 0, -EINVAL if @qp is not attached to @gid (or as
 * xrdma_attach_mcast()), or the driver's error (the QP stays attached).
 */
int xrdma_detach_mcast(struct xrdma_qp *qp, const union xrdma_gid *gid,
		       u16 lid)
{
	struct xrdma_mcast *m;
	int ret;

	ret = xrdma_mcast_check(qp, gid, lid);
	if (ret)
		return ret;
	mutex_lock(&qp->state_lock);
	m = xrdma_mcast_find(qp, gid);
	if (!m) {
		ret = -EINVAL;
		goto out;
	}
	ret = qp->device->ops->detach_mcast(qp, gid);
	if (!ret) {
		list_del(&m->node);
		xrdma_mcast_free(qp, m);
	}
out:
	mutex_unlock(&qp->state_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(xrdma_detach_mcast);

/* A QP being destroyed leaves its groups (as uverbs does in ib_core). */
static void xrdma_qp_detach_all(struct xrdma_qp *qp)
{
	struct xrdma_mcast *m, *tmp;

	list_for_each_entry_safe(m, tmp, &qp->mcast_list, node) {
		qp->device->ops->detach_mcast(qp, &m->gid);
		list_del(&m->node);
		xrdma_mcast_free(qp, m);
	}
}

void xrdma_qp_teardown(struct xrdma_qp *qp)
{
	struct xrdma_cq *send_cq = qp->send_cq, *recv_cq = qp->recv_cq;
	struct xrdma_xrcd *xrcd = qp->xrcd;
	struct xrdma_srq *srq = qp->srq;
	struct xrdma_pd *pd = qp->pd;

	xrdma_res_remove(&qp->res);
	xrdma_qp_detach_all(qp);
	qp->device->ops->destroy_qp(qp);
	mutex_destroy(&qp->state_lock);
	xrdma_obj_free(&qp->res);
	xrdma_qp_put_deps(pd, xrcd, send_cq, recv_cq, srq);
}

/**
 * xrdma_destroy_qp - destroy a queue pair
 * @qp: the QP
 *
 * Waits until no driver lookup (xrdma_qp_get_by_num()) still uses @qp.
 * Detaches it from every multicast group first.  For an XRC_TGT QP this
 * closes the creator's handle: its event handler gets nothing more, and
 * the QP is destroyed once no handle from xrdma_open_qp() is left either.
 *
 * Return: 0.
 */
int xrdma_destroy_qp(struct xrdma_qp *qp)
{
	if (qp->qp_type == XRDMA_QPT_XRC_TGT)
		return xrdma_tgt_qp_close(qp, NULL);
	xrdma_qp_teardown(qp);
	return 0;
}
EXPORT_SYMBOL_GPL(xrdma_destroy_qp);

