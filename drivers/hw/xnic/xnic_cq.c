// SPDX-License-Identifier: GPL-2.0
/*
 * xnic: the CQ verbs: CREATE_CQ, RESIZE_CQ and DESTROY_CQ, with the
 * memory of their rings.  Polling and arming are xnic_dp.c's.
 */
#include <linux/slab.h>
#include "xnic.h"

/* ------------------------------------------------------------------ */
/* CQ                                                                  */

int xnic_create_cq(struct xrdma_cq *cq,
		   const struct xrdma_cq_init_attr *attr,
		   struct xrdma_udata *udata)
{
	struct xnic_dev *xdev = to_xdev(cq->device);
	struct xnic_cq *xcq = to_xcq(cq);
	struct xnic_create_cq_resp resp = {};
	struct xnic_cmd_create_cq c = {};
	u32 cqn = cq->res.id, log, ring_bytes, total;
	dma_addr_t dma;
	void *cpu;
	int ret;

	log = max_t(u32, xnic_log_entries(attr->cqe), XNIC_MIN_LOG_CQE);
	ring_bytes = sizeof(struct xnic_cqe) << log;
	total = ring_bytes + sizeof(struct xnic_cq_dbrec);
	spin_lock_init(&xcq->lock);
	mutex_init(&xcq->resize_mutex);
	INIT_LIST_HEAD(&xcq->sq_list);
	INIT_LIST_HEAD(&xcq->rq_list);
	INIT_LIST_HEAD(&xcq->kcq_node);
	ret = xnic_queue_alloc(xdev, udata, total, &xcq->buf, &xcq->ubuf,
			       &cpu, &dma);
	if (ret)
		return ret;
	xcq->ring = cpu;
	xcq->dbrec = cpu + ring_bytes;
	xcq->log_cqe = log;
	if (udata) {
		ret = xnic_queue_publish(udata, &xcq->ubuf, &xcq->entry);
		if (ret)
			return ret;
	}

	c.cqn = cpu_to_le32(cqn);
	c.log_cqe = cpu_to_le32(log);
	c.ring_addr = cpu_to_le64(dma);
	c.dbrec_addr = cpu_to_le64(dma + ring_bytes);
	c.flags = cpu_to_le32(XNIC_CQ_F_EVENTS);
	ret = xnic_cmd_exec(xdev, XNIC_CMD_CREATE_CQ, &c, sizeof(c), NULL, 0);
	if (ret)
		goto err_free;

	if (udata) {
		resp.mmap_offset = xrdma_mmap_entry_offset(xcq->entry);
		resp.mmap_size = xcq->ubuf->buf.size;
		resp.log_cqe = log;
		resp.dbrec_offset = ring_bytes;
		resp.cqn = cqn;
		ret = xrdma_copy_to_udata(udata, &resp, sizeof(resp));
		if (ret) {
			ret = xnic_destroy_obj(xdev, XNIC_CMD_DESTROY_CQ, cqn);
			xnic_queue_free(xdev, &xcq->buf, &xcq->ubuf,
					&xcq->entry,
					xnic_cmd_let_go(xdev, ret));
			return -EFAULT;
		}
	}
	cq->cqe = min(1U << log, xdev->caps.max_cqe);
	if (!udata) {
		mutex_lock(&xdev->kcq_mutex);
		list_add_tail(&xcq->kcq_node, &xdev->kcqs);
		mutex_unlock(&xdev->kcq_mutex);
	}
	return 0;

err_free:
	xnic_queue_free(xdev, &xcq->buf, &xcq->ubuf, &xcq->entry,
			xnic_cmd_let_go(xdev, ret));
	return ret;
}

/*
 * Resize: a new ring and record (a new mapping for a user CQ), RESIZE_CQ
 * moves the CQEs and the record into them (commands.rst), then the old
 * memory goes.  A user CQ's library holds its CQ lock throughout, so its
 * ci is in the record; a kernel CQ takes no CQE while the command runs
 * (next_dbrec set), and an arm goes to both records.
 */
int xnic_resize_cq(struct xrdma_cq *cq, u32 cqe,
		   struct xrdma_udata *udata)
{
	struct xnic_dev *xdev = to_xdev(cq->device);
	struct xnic_cq *xcq = to_xcq(cq);
	struct xnic_resize_cq_resp resp = {};
	struct xnic_cmd_resize_cq c = {};
	struct xnic_dmabuf kbuf = {};
	struct xnic_ubuf *ubuf = NULL;
	struct xrdma_mmap_entry *entry = NULL;
	bool user = xcq->ubuf || xcq->entry;
	u32 log, ring_bytes;
	unsigned long flags;
	dma_addr_t dma;
	void *cpu;
	int ret;

	if (user != !!udata || (udata && udata->outlen < sizeof(resp)))
		return -EINVAL;
	log = max_t(u32, xnic_log_entries(cqe), XNIC_MIN_LOG_CQE);
	ring_bytes = sizeof(struct xnic_cqe) << log;
	mutex_lock(&xcq->resize_mutex);
	if (log == xcq->log_cqe) {
		resp.log_cqe = log;
		ret = udata ? xrdma_copy_to_udata(udata, &resp, sizeof(resp)) :
			      0;
		goto out;
	}
	ret = xnic_queue_alloc(xdev, udata,
			       ring_bytes + sizeof(struct xnic_cq_dbrec),
			       &kbuf, &ubuf, &cpu, &dma);
	if (ret)
		goto out;
	if (udata) {
		ret = xnic_queue_publish(udata, &ubuf, &entry);
		if (ret)
			goto out;
		resp.mmap_offset = xrdma_mmap_entry_offset(entry);
		resp.mmap_size = ubuf->buf.size;
		resp.log_cqe = log;
		resp.dbrec_offset = ring_bytes;
		/* before the switch: afterwards there is no way back */
		ret = xrdma_copy_to_udata(udata, &resp, sizeof(resp));
		if (ret) {
			xnic_queue_free(xdev, &kbuf, &ubuf, &entry, true);
			goto out;
		}
	} else {
		spin_lock_irqsave(&xcq->lock, flags);
		xcq->next_dbrec = cpu + ring_bytes;
		xcq->next_dbrec->arm = xcq->dbrec->arm;
		spin_unlock_irqrestore(&xcq->lock, flags);
	}

	c.cqn = cpu_to_le32(cq->res.id);
	c.log_cqe = cpu_to_le32(log);
	c.ring_addr = cpu_to_le64(dma);
	c.dbrec_addr = cpu_to_le64(dma + ring_bytes);
	ret = xnic_cmd_exec(xdev, XNIC_CMD_RESIZE_CQ, &c, sizeof(c), NULL, 0);

	spin_lock_irqsave(&xcq->lock, flags);
	xcq->next_dbrec = NULL;
	if (!ret) {
		swap(xcq->buf, kbuf);
		swap(xcq->ubuf, ubuf);
		swap(xcq->entry, entry);
		xcq->ring = cpu;
		xcq->dbrec = cpu + ring_bytes;
		xcq->log_cqe = log;
		xcq->last_qp = NULL;
	}
	spin_unlock_irqrestore(&xcq->lock, flags);
	/* the old memory on success, the new one on failure */
	xnic_queue_free(xdev, &kbuf, &ubuf, &entry, xnic_cmd_let_go(xdev, ret));
out:
	if (!ret)
		WRITE_ONCE(cq->cqe, min(1U << xcq->log_cqe, xdev->caps.max_cqe));
	mutex_unlock(&xcq->resize_mutex);
	return ret;
}

void xnic_destroy_cq(struct xrdma_cq *cq)
{
	struct xnic_dev *xdev = to_xdev(cq->device);
	struct xnic_cq *xcq = to_xcq(cq);
	int ret;

	mutex_lock(&xdev->kcq_mutex);
	list_del_init(&xcq->kcq_node);
	mutex_unlock(&xdev->kcq_mutex);
	ret = xnic_destroy_obj(xdev, XNIC_CMD_DESTROY_CQ, cq->res.id);
	xnic_queue_free(xdev, &xcq->buf, &xcq->ubuf, &xcq->entry,
			xnic_cmd_let_go(xdev, ret));
}

