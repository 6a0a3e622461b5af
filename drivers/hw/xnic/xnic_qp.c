// SPDX-License-Identifier: GPL-2.0
/*
 * xnic: the QP and SRQ verbs: create (with XRC_TGT QPs), modify, query and
 * destroy, their queue geometry, doorbell slots and work request ID arrays.
 * Posting to them is xnic_dp.c's; the WQE format xnic_wqe.c's.
 */
#include <linux/slab.h>
#include "xnic.h"

/* ------------------------------------------------------------------ */
/* QP                                                                  */

struct xnic_qp_geom {
	u32 sq_log, sq_shift, rq_log, rq_shift;
	u32 sq_bytes, rq_bytes, dbrec_off, total;
};

static int xnic_qp_geometry(struct xnic_dev *xdev,
			    const struct xrdma_qp_init_attr *attr,
			    struct xnic_qp_geom *g)
{
	const struct xrdma_qp_cap *cap = &attr->cap;
	/* an XRC_INI QP sends only: its receives are the target's SRQ's */
	bool rq = !attr->srq && attr->qp_type != XRDMA_QPT_XRC_INI;

	memset(g, 0, sizeof(*g));
	g->sq_log = xnic_log_entries(cap->max_send_wr);
	g->sq_shift = xnic_sq_wqe_shift(cap->max_send_sge,
					cap->max_inline_data);
	if (g->sq_shift > XNIC_MAX_WQE_SHIFT || g->sq_log > 16)
		return -EINVAL;
	g->sq_bytes = 1U << (g->sq_log + g->sq_shift);
	if (rq) {
		g->rq_log = xnic_log_entries(cap->max_recv_wr);
		g->rq_shift = xnic_rq_wqe_shift(cap->max_recv_sge);
		if (g->rq_shift > XNIC_MAX_WQE_SHIFT || g->rq_log > 16)
			return -EINVAL;
		g->rq_bytes = 1U << (g->rq_log + g->rq_shift);
	}
	g->dbrec_off = ALIGN(g->sq_bytes + g->rq_bytes, XNIC_DBREC_ALIGN);
	g->total = g->dbrec_off + sizeof(struct xnic_qp_dbrec);
	return 0;
}

static int xnic_alloc_slot(struct xnic_dev *xdev, struct xnic_qp *xqp)
{
	struct ida *ida = xqp->uctx ? &xqp->uctx->slot_ida : &xdev->kslot_ida;
	int slot = ida_alloc_max(ida, XNIC_DB_SLOTS - 1, GFP_KERNEL);

	if (slot < 0)
		return slot == -ENOSPC ? -ENOMEM : slot;
	xqp->db_slot = slot;
	return 0;
}

static void xnic_free_slot(struct xnic_dev *xdev, struct xnic_qp *xqp)
{
	ida_free(xqp->uctx ? &xqp->uctx->slot_ida : &xdev->kslot_ida,
		 xqp->db_slot);
}

static void xnic_qp_free_wrid(struct xnic_qp *xqp)
{
	kvfree(xqp->sq.wrid);
	kvfree(xqp->rq.wrid);
	xqp->sq.wrid = NULL;
	xqp->rq.wrid = NULL;
}

static int xnic_qp_respond(struct xnic_qp *xqp, const struct xnic_qp_geom *g,
			   struct xrdma_udata *udata)
{
	struct xnic_create_qp_resp resp = {};

	resp.mmap_offset = xrdma_mmap_entry_offset(xqp->entry);
	resp.mmap_size = xqp->ubuf->buf.size;
	resp.sq_offset = 0;
	resp.sq_log_wqe = g->sq_log;
	resp.sq_wqe_shift = g->sq_shift;
	resp.rq_offset = g->sq_bytes;
	resp.rq_log_wqe = g->rq_log;
	resp.rq_wqe_shift = g->rq_shift;
	resp.dbrec_offset = g->dbrec_off;
	resp.db_slot = xqp->db_slot;
	return xrdma_copy_to_udata(udata, &resp, sizeof(resp));
}

/*
 * An XRC_TGT QP: a number in a domain, no queues, no doorbell slot, no
 * PD or CQs; requests name the XRC SRQ they land in.  It belongs to the
 * domain, not to a context (the core creates and modifies it without
 * udata, and it outlives its creator's context), so nothing of it is tied
 * to one; there is nothing to map (a response, if asked for, is zero).
 */
static int xnic_create_xrc_tgt(struct xrdma_qp *qp,
			       struct xrdma_qp_init_attr *attr,
			       struct xrdma_udata *udata)
{
	struct xnic_dev *xdev = to_xdev(qp->device);
	struct xnic_qp *xqp = to_xqp(qp);
	struct xnic_create_qp_resp resp = {};
	struct xnic_cmd_create_qp c = {};
	int ret;

	if (!attr->xrcd)
		return -EINVAL;
	spin_lock_init(&xqp->sq.lock);
	spin_lock_init(&xqp->rq.lock);
	memset(&attr->cap, 0, sizeof(attr->cap));
	xqp->cap = attr->cap;
	xqp->sq_cfg.qp_type = XRDMA_QPT_XRC_TGT;
	xqp->attr.port_num = attr->port_num;

	c.qpn = cpu_to_le32(qp->qp_num);
	c.qp_type = XNIC_QPT_XRC_TGT;
	c.srqn = cpu_to_le32(XNIC_NO_SRQ);
	c.xrcdn = cpu_to_le32(attr->xrcd->xrcdn);
	ret = xnic_cmd_exec(xdev, XNIC_CMD_CREATE_QP, &c, sizeof(c), NULL, 0);
	if (ret || !udata)
		return ret;
	ret = xrdma_copy_to_udata(udata, &resp, sizeof(resp));
	if (ret) {
		xnic_destroy_obj(xdev, XNIC_CMD_DESTROY_QP, qp->qp_num);
		return -EFAULT;
	}
	return 0;
}

int xnic_create_qp(struct xrdma_qp *qp,
		   struct xrdma_qp_init_attr *attr,
		   struct xrdma_udata *udata)
{
	struct xnic_dev *xdev = to_xdev(qp->device);
	const struct xnic_caps *caps = &xdev->caps;
	struct xnic_qp *xqp = to_xqp(qp);
	struct xrdma_qp_cap *cap = &attr->cap;
	struct xnic_cmd_create_qp c = {};
	struct xnic_qp_geom g;
	dma_addr_t dma;
	void *cpu;
	int qp_type, ret;

	qp_type = xnic_qp_type_to_hw(qp->qp_type);
	if (qp_type < 0)
		return qp_type;
	if ((qp_type == XNIC_QPT_XRC_INI || qp_type == XNIC_QPT_XRC_TGT) &&
	    !(xdev->features & XNIC_FEAT_XRC))
		return -EOPNOTSUPP;
	if (qp_type == XNIC_QPT_XRC_TGT)
		return xnic_create_xrc_tgt(qp, attr, udata);
	ret = xnic_qp_geometry(xdev, attr, &g);
	if (ret)
		return ret;
	xqp->kernel = !udata;
	xqp->uctx = udata ? to_xuctx(udata->uctx) : NULL;
	xqp->sq_sig_all = !!attr->sq_sig_all;
	spin_lock_init(&xqp->sq.lock);
	spin_lock_init(&xqp->rq.lock);

	ret = xnic_alloc_slot(xdev, xqp);
	if (ret)
		return ret;
	ret = xnic_queue_alloc(xdev, udata, g.total, &xqp->buf, &xqp->ubuf,
			       &cpu, &dma);
	if (ret)
		goto err_slot;
	xqp->sq.ring = cpu;
	xqp->sq.log_size = g.sq_log;
	xqp->sq.wqe_shift = g.sq_shift;
	xqp->rq.ring = g.rq_bytes ? cpu + g.sq_bytes : NULL;
	xqp->rq.log_size = g.rq_log;
	xqp->rq.wqe_shift = g.rq_shift;
	xqp->dbrec = cpu + g.dbrec_off;

	/* what the QP provides: at least what was asked for */
	cap->max_send_wr = min(1U << g.sq_log, caps->max_qp_wr);
	cap->max_send_sge = min(xnic_sq_wqe_max_sge(g.sq_shift), caps->max_sge);
	cap->max_inline_data = min(xnic_sq_wqe_max_inline(g.sq_shift),
				   caps->max_inline);
	if (!g.rq_bytes) {
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
	} else {
		cap->max_recv_wr = min(1U << g.rq_log, caps->max_qp_wr);
		cap->max_recv_sge = min(xnic_rq_wqe_max_sge(g.rq_shift),
					caps->max_sge);
	}
	xqp->cap = *cap;
	/* the GSI QP posts and completes as UD */
	xqp->sq_cfg.qp_type = qp->qp_type == XRDMA_QPT_GSI ? XRDMA_QPT_UD :
			      qp->qp_type;
	xqp->sq_cfg.max_sge = cap->max_send_sge;
	xqp->sq_cfg.max_inline = cap->max_inline_data;
	xqp->sq_cfg.sig_all = xqp->sq_sig_all;
	xqp->rq_max_sge = cap->max_recv_sge;
	xqp->attr.port_num = attr->port_num;

	if (udata) {
		ret = xnic_queue_publish(udata, &xqp->ubuf, &xqp->entry);
		if (ret)
			goto err_slot;
	} else {
		ret = -ENOMEM;
		xqp->sq.wrid = kvcalloc(1U << g.sq_log, sizeof(u64),
					GFP_KERNEL);
		if (!xqp->sq.wrid)
			goto err_free;
		if (g.rq_bytes) {
			xqp->rq.wrid = kvcalloc(1U << g.rq_log, sizeof(u64),
						GFP_KERNEL);
			if (!xqp->rq.wrid)
				goto err_free;
		}
		/* poll_cq finds kernel QPs here */
		ret = xa_insert(&xdev->qp_xa, qp->qp_num, xqp, GFP_KERNEL);
		if (ret)
			goto err_free;
	}

	c.qpn = cpu_to_le32(qp->qp_num);
	c.qp_type = qp_type;
	c.sq_log_wqe = g.sq_log;
	c.sq_wqe_shift = g.sq_shift;
	c.rq_log_wqe = g.rq_log;
	c.rq_wqe_shift = g.rq_shift;
	c.sq_sig_all = xqp->sq_sig_all;
	c.pdn = cpu_to_le32(qp->pd->res.id);
	c.send_cqn = cpu_to_le32(qp->send_cq->res.id);
	c.recv_cqn = cpu_to_le32(qp->recv_cq ? qp->recv_cq->res.id : 0);
	c.srqn = cpu_to_le32(qp->srq ? qp->srq->res.id : XNIC_NO_SRQ);
	c.db_index = cpu_to_le32(xqp->uctx ? xqp->uctx->db_index :
				 XNIC_KERNEL_DB_INDEX);
	c.db_slot = cpu_to_le32(xqp->db_slot);
	c.sq_addr = cpu_to_le64(dma);
	c.rq_addr = cpu_to_le64(g.rq_bytes ? dma + g.sq_bytes : 0);
	c.dbrec_addr = cpu_to_le64(dma + g.dbrec_off);
	ret = xnic_cmd_exec(xdev, XNIC_CMD_CREATE_QP, &c, sizeof(c), NULL, 0);
	if (ret)
		goto err_xa;

	if (udata) {
		ret = xnic_qp_respond(xqp, &g, udata);
		if (ret) {
			ret = xnic_destroy_obj(xdev, XNIC_CMD_DESTROY_QP,
					       qp->qp_num);
			xnic_queue_free(xdev, &xqp->buf, &xqp->ubuf,
					&xqp->entry,
					xnic_cmd_let_go(xdev, ret));
			if (xnic_cmd_let_go(xdev, ret))
				xnic_free_slot(xdev, xqp);
			return -EFAULT;
		}
	} else {
		/* flushed by poll_cq once the device is dead */
		xnic_cq_add_qp(xqp);
	}
	return 0;

err_xa:
	if (!udata)
		xa_erase(&xdev->qp_xa, qp->qp_num);
err_free:
	xnic_qp_free_wrid(xqp);
	xnic_queue_free(xdev, &xqp->buf, &xqp->ubuf, &xqp->entry,
			xnic_cmd_let_go(xdev, ret));
	/* a doorbell slot the device may still watch is not reused */
	if (!xnic_cmd_let_go(xdev, ret))
		return ret;
err_slot:
	xnic_free_slot(xdev, xqp);
	return ret;
}

/**
 * xnic_fill_modify_qp - a MODIFY_QP command from verbs attributes
 * @cmd: zeroed command body
 * @qpn: the QP
 * @attr: values (only those in @mask are meaningful)
 * @mask: XRDMA_QP_* mask
 *
 * Return: 0, or -EINVAL for a mask bit, state or MTU the device cannot
 * be told.
 */
static int xnic_fill_modify_qp(struct xnic_cmd_modify_qp *cmd, u32 qpn,
			       const struct xrdma_qp_attr *attr, int mask)
{
	u32 hw_mask;
	int ret;

	ret = xnic_qp_mask_to_hw(mask, &hw_mask);
	if (ret)
		return ret;
	cmd->qpn = cpu_to_le32(qpn);
	cmd->mask = cpu_to_le32(hw_mask);
	if (mask & XRDMA_QP_STATE) {
		ret = xnic_qp_state_to_hw(attr->qp_state);
		if (ret < 0)
			return ret;
		cmd->state = ret;
	}
	if (mask & XRDMA_QP_PATH_MTU) {
		ret = xnic_mtu_to_hw(attr->path_mtu);
		if (ret < 0)
			return ret;
		cmd->path_mtu = ret;
	}
	if (mask & XRDMA_QP_TIMEOUT)
		cmd->timeout = attr->timeout;
	if (mask & XRDMA_QP_RETRY_CNT)
		cmd->retry_cnt = attr->retry_cnt;
	if (mask & XRDMA_QP_RNR_RETRY)
		cmd->rnr_retry = attr->rnr_retry;
	if (mask & XRDMA_QP_MIN_RNR_TIMER)
		cmd->min_rnr_timer = attr->min_rnr_timer;
	if (mask & XRDMA_QP_MAX_QP_RD_ATOMIC)
		cmd->max_rd_atomic = attr->max_rd_atomic;
	if (mask & XRDMA_QP_MAX_DEST_RD_ATOMIC)
		cmd->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & XRDMA_QP_QKEY)
		cmd->qkey = cpu_to_le32(attr->qkey);
	if (mask & XRDMA_QP_RQ_PSN)
		cmd->rq_psn = cpu_to_le32(attr->rq_psn & 0xffffff);
	if (mask & XRDMA_QP_SQ_PSN)
		cmd->sq_psn = cpu_to_le32(attr->sq_psn & 0xffffff);
	if (mask & XRDMA_QP_DEST_QPN)
		cmd->dest_qpn = cpu_to_le32(attr->dest_qp_num & 0xffffff);
	if (mask & XRDMA_QP_ACCESS_FLAGS)
		cmd->access = cpu_to_le32(xnic_access_to_hw(attr->qp_access_flags));
	if (mask & XRDMA_QP_PORT)
		cmd->port_num = attr->port_num;
	else if (mask & XRDMA_QP_AV)
		cmd->port_num = attr->ah_attr.port_num;
	if (mask & XRDMA_QP_AV) {
		memcpy(cmd->dgid, attr->ah_attr.dgid.raw, sizeof(cmd->dgid));
		cmd->sgid_index = attr->ah_attr.sgid_index;
	}
	return 0;
}

static void xnic_save_qp_attr(struct xnic_qp *xqp,
			      const struct xrdma_qp_attr *attr, int mask)
{
	struct xrdma_qp_attr *a = &xqp->attr;

	if (mask & XRDMA_QP_QKEY)
		a->qkey = attr->qkey;
	if (mask & XRDMA_QP_PORT)
		a->port_num = attr->port_num;
	if (mask & XRDMA_QP_ACCESS_FLAGS)
		a->qp_access_flags = attr->qp_access_flags;
	if (mask & XRDMA_QP_PKEY_INDEX)
		a->pkey_index = attr->pkey_index;
	if (mask & XRDMA_QP_PATH_MTU)
		a->path_mtu = attr->path_mtu;
	if (mask & XRDMA_QP_DEST_QPN)
		a->dest_qp_num = attr->dest_qp_num;
	if (mask & XRDMA_QP_RQ_PSN)
		a->rq_psn = attr->rq_psn;
	if (mask & XRDMA_QP_SQ_PSN)
		a->sq_psn = attr->sq_psn;
	if (mask & XRDMA_QP_AV)
		a->ah_attr = attr->ah_attr;
	if (mask & XRDMA_QP_TIMEOUT)
		a->timeout = attr->timeout;
	if (mask & XRDMA_QP_RETRY_CNT)
		a->retry_cnt = attr->retry_cnt;
	if (mask & XRDMA_QP_RNR_RETRY)
		a->rnr_retry = attr->rnr_retry;
	if (mask & XRDMA_QP_MIN_RNR_TIMER)
		a->min_rnr_timer = attr->min_rnr_timer;
	if (mask & XRDMA_QP_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = attr->max_rd_atomic;
	if (mask & XRDMA_QP_MAX_DEST_RD_ATOMIC)
		a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & XRDMA_QP_EN_SQD_ASYNC_NOTIFY)
		a->en_sqd_async_notify = attr->en_sqd_async_notify;
	if (mask & XRDMA_QP_PATH_MIG_STATE)
		a->path_mig_state = attr->path_mig_state;
}

int xnic_modify_qp(struct xrdma_qp *qp, struct xrdma_qp_attr *attr,
		   int mask, struct xrdma_udata *udata)
{
	struct xnic_dev *xdev = to_xdev(qp->device);
	struct xnic_qp *xqp = to_xqp(qp);
	enum xrdma_qp_state cur = READ_ONCE(qp->state);
	struct xnic_cmd_modify_qp c = {};
	int ret;

	ret = xnic_fill_modify_qp(&c, qp->qp_num, attr, mask);
	if (ret)
		return ret;
	ret = xnic_cmd_exec(xdev, XNIC_CMD_MODIFY_QP, &c, sizeof(c), NULL, 0);
	if (ret)
		return ret;
	xnic_save_qp_attr(xqp, attr, mask);
	if (mask & XRDMA_QP_STATE && attr->qp_state == XRDMA_QPS_RESET &&
	    cur != XRDMA_QPS_RESET && xqp->kernel)
		xnic_qp_reset_queues(xqp);
	return 0;
}

int xnic_query_qp(struct xrdma_qp *qp, struct xrdma_qp_attr *attr,
		  int mask, struct xrdma_qp_init_attr *init_attr)
{
	struct xnic_dev *xdev = to_xdev(qp->device);
	struct xnic_qp *xqp = to_xqp(qp);
	struct xnic_cmd_obj c = { .index = cpu_to_le32(qp->qp_num) };
	struct xnic_cmd_query_qp_out out;
	int ret, state;

	ret = xnic_cmd_exec(xdev, XNIC_CMD_QUERY_QP, &c, sizeof(c), &out,
			    sizeof(out));
	if (ret)
		return ret;
	state = xnic_qp_state_from_hw(out.state);
	if (state < 0) {
		dev_warn_ratelimited(&xdev->pdev->dev,
				     "QUERY_QP %u: unknown state %u\n",
				     qp->qp_num, out.state);
		return -EIO;
	}
	*attr = xqp->attr;
	attr->sq_psn = le32_to_cpu(out.sq_psn) & 0xffffff;
	attr->rq_psn = le32_to_cpu(out.rq_psn) & 0xffffff;
	attr->cap = xqp->cap;
	/* the device moved it to ERR and the event is still on its way */
	if (state == XRDMA_QPS_ERR)
		xrdma_qp_set_error(qp);
	init_attr->cap = xqp->cap;
	init_attr->sq_sig_all = xqp->sq_sig_all;
	init_attr->port_num = qp->port_num;
	return 0;
}

void xnic_destroy_qp(struct xrdma_qp *qp)
{
	struct xnic_dev *xdev = to_xdev(qp->device);
	struct xnic_qp *xqp = to_xqp(qp);
	struct xnic_srq *srq = qp->srq ? to_xsrq(qp->srq) : NULL;
	bool let_go;
	int ret;

	ret = xnic_destroy_obj(xdev, XNIC_CMD_DESTROY_QP, qp->qp_num);
	let_go = xnic_cmd_let_go(xdev, ret);
	/* an XRC_TGT QP has no queues, slot or CQs */
	if (qp->qp_type == XRDMA_QPT_XRC_TGT)
		return;
	if (xqp->kernel) {
		xa_erase(&xdev->qp_xa, qp->qp_num);
		xnic_cq_del_qp(xqp);
		/* forget its completions; waits for pollers using it */
		xnic_cq_clean(to_xcq(qp->send_cq), qp->qp_num, srq);
		if (qp->recv_cq && qp->recv_cq != qp->send_cq)
			xnic_cq_clean(to_xcq(qp->recv_cq), qp->qp_num, srq);
		xnic_qp_free_wrid(xqp);
	}
	xnic_queue_free(xdev, &xqp->buf, &xqp->ubuf, &xqp->entry, let_go);
	if (let_go)
		xnic_free_slot(xdev, xqp);
}

/* ------------------------------------------------------------------ */
/* SRQ                                                                 */

int xnic_create_srq(struct xrdma_srq *srq,
		    struct xrdma_srq_init_attr *attr,
		    struct xrdma_udata *udata)
{
	struct xnic_dev *xdev = to_xdev(srq->device);
	const struct xnic_caps *caps = &xdev->caps;
	struct xnic_srq *xsrq = to_xsrq(srq);
	struct xnic_create_srq_resp resp = {};
	struct xnic_cmd_create_srq c = {};
	u32 srqn = srq->res.id, log, shift, ring_bytes, total;
	bool xrc = attr->srq_type == XRDMA_SRQT_XRC;
	dma_addr_t dma;
	void *cpu;
	int ret;

	/*
	 * An XRC SRQ is a user one: its completions name XRC_TGT QPs on its
	 * CQ, and the kernel's poll_cq finds QPs, not SRQs, by number
	 * (xnic_cqe_process()); a process's library recycles its entries
	 * from the consumer count in the doorbell record.
	 */
	if (xrc && (!udata || !(xdev->features & XNIC_FEAT_XRC)))
		return -EOPNOTSUPP;
	if (attr->srq_type != XRDMA_SRQT_BASIC && !xrc)
		return -EOPNOTSUPP;
	if (xrc && (!attr->xrcd || !attr->cq))
		return -EINVAL;
	srq->srq_num = srqn;
	log = xnic_log_entries(attr->attr.max_wr);
	shift = xnic_rq_wqe_shift(attr->attr.max_sge);
	if (shift > XNIC_MAX_WQE_SHIFT || log > 16)
		return -EINVAL;
	ring_bytes = 1U << (log + shift);
	total = ring_bytes + sizeof(struct xnic_qp_dbrec);
	spin_lock_init(&xsrq->lock);
	mutex_init(&xsrq->modify_mutex);
	atomic_set(&xsrq->done, 0);
	xsrq->kernel = !udata;
	ret = xnic_queue_alloc(xdev, udata, total, &xsrq->buf, &xsrq->ubuf,
			       &cpu, &dma);
	if (ret)
		return ret;
	xsrq->ring = cpu;
	xsrq->dbrec = cpu + ring_bytes;
	xsrq->log_size = log;
	xsrq->wqe_shift = shift;
	attr->attr.max_wr = min(1U << log, caps->max_srq_wr);
	attr->attr.max_sge = min(xnic_rq_wqe_max_sge(shift), caps->max_sge);
	xsrq->max_wr = attr->attr.max_wr;
	xsrq->max_sge = attr->attr.max_sge;
	xsrq->limit = attr->attr.srq_limit;
	if (udata) {
		ret = xnic_queue_publish(udata, &xsrq->ubuf, &xsrq->entry);
		if (ret)
			return ret;
	}
	ret = xa_insert(&xdev->srq_xa, srqn, xsrq, GFP_KERNEL);
	if (ret)
		goto err_free;

	c.srqn = cpu_to_le32(srqn);
	c.pdn = cpu_to_le32(srq->pd->res.id);
	c.log_wqe = log;
	c.wqe_shift = shift;
	c.limit = cpu_to_le32(xsrq->limit);
	c.ring_addr = cpu_to_le64(dma);
	c.dbrec_addr = cpu_to_le64(dma + ring_bytes);
	if (xrc) {
		c.type = XNIC_SRQT_XRC;
		c.xrcdn = cpu_to_le32(attr->xrcd->xrcdn);
		c.cqn = cpu_to_le32(attr->cq->res.id);
	}
	ret = xnic_cmd_exec(xdev, XNIC_CMD_CREATE_SRQ, &c, sizeof(c), NULL, 0);
	if (ret)
		goto err_xa;

	if (udata) {
		resp.mmap_offset = xrdma_mmap_entry_offset(xsrq->entry);
		resp.mmap_size = xsrq->ubuf->buf.size;
		resp.log_wqe = log;
		resp.wqe_shift = shift;
		resp.dbrec_offset = ring_bytes;
		resp.srqn = srqn;
		ret = xrdma_copy_to_udata(udata, &resp, sizeof(resp));
		if (ret) {
			ret = xnic_destroy_obj(xdev, XNIC_CMD_DESTROY_SRQ, srqn);
			xa_erase(&xdev->srq_xa, srqn);
			xnic_eq_sync(xdev);
			xnic_queue_free(xdev, &xsrq->buf, &xsrq->ubuf,
					&xsrq->entry,
					xnic_cmd_let_go(xdev, ret));
			return -EFAULT;
		}
	}
	return 0;

err_xa:
	xa_erase(&xdev->srq_xa, srqn);
	xnic_eq_sync(xdev);
err_free:
	xnic_queue_free(xdev, &xsrq->buf, &xsrq->ubuf, &xsrq->entry,
			xnic_cmd_let_go(xdev, ret));
	return ret;
}

/*
 * Grow a user SRQ's ring to 2^@log WQEs: a new mapping, RESIZE_SRQ moves
 * the posted WQEs and the record (commands.rst), the old memory goes.
 * The library holds its SRQ lock, so nothing is posted meanwhile.
 * Kernel SRQs grow within their ring only: their posts cannot wait.
 */
static int xnic_srq_move(struct xnic_srq *xsrq, u32 log,
			 struct xrdma_udata *udata,
			 struct xnic_modify_srq_resp *resp)
{
	struct xnic_dev *xdev = to_xdev(xsrq->ibsrq.device);
	u32 ring_bytes = 1U << (log + xsrq->wqe_shift);
	struct xnic_cmd_resize_srq c = {};
	struct xrdma_mmap_entry *entry = NULL;
	struct xnic_ubuf *ubuf = NULL;
	struct xnic_dmabuf kbuf = {};
	unsigned long flags;
	dma_addr_t dma;
	void *cpu;
	int ret;

	if (xsrq->kernel || !udata || udata->outlen < sizeof(*resp))
		return -EINVAL;
	ret = xnic_queue_alloc(xdev, udata,
			       ring_bytes + sizeof(struct xnic_qp_dbrec),
			       &kbuf, &ubuf, &cpu, &dma);
	if (ret)
		return ret;
	ret = xnic_queue_publish(udata, &ubuf, &entry);
	if (ret)
		return ret;
	resp->mmap_offset = xrdma_mmap_entry_offset(entry);
	resp->mmap_size = ubuf->buf.size;
	resp->log_wqe = log;
	resp->dbrec_offset = ring_bytes;
	/* before the switch: afterwards there is no way back */
	ret = xrdma_copy_to_udata(udata, resp, sizeof(*resp));
	if (ret) {
		xnic_queue_free(xdev, &kbuf, &ubuf, &entry, true);
		return ret;
	}
	c.srqn = cpu_to_le32(xsrq->ibsrq.res.id);
	c.log_wqe = log;
	c.ring_addr = cpu_to_le64(dma);
	c.dbrec_addr = cpu_to_le64(dma + ring_bytes);
	ret = xnic_cmd_exec(xdev, XNIC_CMD_RESIZE_SRQ, &c, sizeof(c), NULL, 0);
	if (!ret) {
		spin_lock_irqsave(&xsrq->lock, flags);
		swap(xsrq->ubuf, ubuf);
		swap(xsrq->entry, entry);
		xsrq->ring = cpu;
		xsrq->dbrec = cpu + ring_bytes;
		xsrq->log_size = log;
		spin_unlock_irqrestore(&xsrq->lock, flags);
	}
	/* the old memory on success, the new one on failure */
	xnic_queue_free(xdev, &kbuf, &ubuf, &entry, xnic_cmd_let_go(xdev, ret));
	return ret;
}

int xnic_modify_srq(struct xrdma_srq *srq, struct xrdma_srq_attr *attr,
		    u32 mask, struct xrdma_udata *udata)
{
	struct xnic_dev *xdev = to_xdev(srq->device);
	struct xnic_srq *xsrq = to_xsrq(srq);
	struct xnic_modify_srq_resp resp = {};
	struct xnic_cmd_modify_srq c = {};
	u32 max_wr, log;
	int ret = 0;

	mutex_lock(&xsrq->modify_mutex);
	max_wr = xsrq->max_wr;
	if (mask & XRDMA_SRQ_MAX_WR) {
		/* grow only: the verbs do not shrink an SRQ */
		if (attr->max_wr < max_wr) {
			ret = -EINVAL;
			goto out;
		}
		max_wr = attr->max_wr;
	}
	if (mask & XRDMA_SRQ_LIMIT && attr->srq_limit > max_wr) {
		ret = -EINVAL;
		goto out;
	}
	if (mask & XRDMA_SRQ_MAX_WR) {
		log = xnic_log_entries(max_wr);
		if (log > xsrq->log_size) {
			ret = xnic_srq_move(xsrq, log, udata, &resp);
			if (ret)
				goto out;
		} else if (udata && udata->outlen) {
			resp.log_wqe = xsrq->log_size;
		}
		/* the ring's capacity, as create reports it */
		max_wr = min(1U << xsrq->log_size, xdev->caps.max_srq_wr);
		WRITE_ONCE(xsrq->max_wr, max_wr);
		resp.max_wr = max_wr;
		if (udata && udata->outlen) {
			ret = xrdma_copy_to_udata(udata, &resp, sizeof(resp));
			if (ret)
				goto out;
		}
	}
	if (mask & XRDMA_SRQ_LIMIT) {
		c.srqn = cpu_to_le32(srq->res.id);
		c.limit = cpu_to_le32(attr->srq_limit);
		ret = xnic_cmd_exec(xdev, XNIC_CMD_MODIFY_SRQ, &c, sizeof(c),
				    NULL, 0);
		if (ret)
			goto out;
		WRITE_ONCE(xsrq->limit, attr->srq_limit);
	}
out:
	mutex_unlock(&xsrq->modify_mutex);
	return ret;
}

int xnic_query_srq(struct xrdma_srq *srq, struct xrdma_srq_attr *attr)
{
	struct xnic_srq *xsrq = to_xsrq(srq);

	attr->max_wr = READ_ONCE(xsrq->max_wr);
	attr->max_sge = xsrq->max_sge;
	attr->srq_limit = READ_ONCE(xsrq->limit);
	return 0;
}

void xnic_destroy_srq(struct xrdma_srq *srq)
{
	struct xnic_dev *xdev = to_xdev(srq->device);
	struct xnic_srq *xsrq = to_xsrq(srq);
	int ret;

	ret = xnic_destroy_obj(xdev, XNIC_CMD_DESTROY_SRQ, srq->res.id);
	xa_erase(&xdev->srq_xa, srq->res.id);
	xnic_eq_sync(xdev);
	xnic_queue_free(xdev, &xsrq->buf, &xsrq->ubuf, &xsrq->entry,
			xnic_cmd_let_go(xdev, ret));
}

