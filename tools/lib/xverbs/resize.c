// SPDX-License-Identifier: GPL-2.0
/*
 * xverbs: resizing CQs (ibv_resize_cq) and SRQs (ibv_modify_srq with
 * IBV_SRQ_MAX_WR).  A queue's ring is kernel memory mapped into the
 * process; a resize gets a new mapping from the kernel, whose device
 * command moves what the old ring holds into it (completions from ci on,
 * or posted receives) at the same free-running indexes, with the
 * doorbell record (Documentation/xnic/commands.rst, RESIZE_CQ and
 * RESIZE_SRQ).  The queue's lock is held throughout, so no poll, arm or
 * post touches the old ring once the device may have left it.
 */
#include <sys/mman.h>
#include "xverbs.h"

int ibv_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct xv_cq *cq = to_xcq(ibcq);
	struct xrdma_cmd_resize_cq c = { 0 };
	struct xnic_resize_cq_resp r = { 0 };
	void *map;
	int ret;

	if (cqe <= 0) {
		errno = EINVAL;
		return EINVAL;
	}
	c.cq_handle = ibcq->handle;
	c.cqe = (uint32_t)cqe;
	c.udata.out = (uintptr_t)&r;
	c.udata.out_len = sizeof(r);
	pthread_spin_lock(&cq->lock);
	/* the device carries the record's ci over: it must be ours */
	__atomic_store_n(&cq->dbrec->ci, htole32(cq->ci), __ATOMIC_RELEASE);
	ret = xv_ioctl(ibcq->context, XRDMA_IOC_RESIZE_CQ, &c);
	if (ret || !r.mmap_size)
		goto out;
	if (r.log_cqe > 24 ||
	    (sizeof(struct xnic_cqe) << r.log_cqe) > r.mmap_size ||
	    (uint64_t)r.dbrec_offset + sizeof(struct xnic_cq_dbrec) >
	    r.mmap_size) {
		ret = EPROTO;
		goto out;
	}
	/*
	 * The device has moved to the new ring: without it mapped the CQ
	 * cannot be polled any more (the error says so; ENOMEM is all
	 * mmap can fail with here).
	 */
	map = xv_map(ibcq->context, r.mmap_offset, r.mmap_size);
	if (!map) {
		ret = errno;
		goto out;
	}
	munmap(cq->map, cq->map_size);
	cq->map = map;
	cq->map_size = r.mmap_size;
	cq->ring = map;
	cq->dbrec = (void *)((char *)map + r.dbrec_offset);
	cq->log = r.log_cqe;
out:
	if (!ret)
		ibcq->cqe = (int)c.cqe;
	pthread_spin_unlock(&cq->lock);
	if (ret)
		errno = ret;
	return ret;
}

/* IBV_SRQ_MAX_WR: grow the SRQ, its posted receives kept. */
static int xv_srq_grow(struct xv_srq *srq, struct xrdma_cmd_modify_srq *c)
{
	struct xnic_modify_srq_resp r = { 0 };
	void *map;
	int ret;

	c->udata.out = (uintptr_t)&r;
	c->udata.out_len = sizeof(r);
	pthread_spin_lock(&srq->lock);
	ret = xv_ioctl(srq->ibsrq.context, XRDMA_IOC_MODIFY_SRQ, c);
	if (ret)
		goto out;
	if (r.mmap_size) {
		if (r.log_wqe > 20 ||
		    (uint64_t)1 << (r.log_wqe + srq->rq.shift) >
		    r.dbrec_offset ||
		    (uint64_t)r.dbrec_offset + sizeof(struct xnic_qp_dbrec) >
		    r.mmap_size) {
			ret = EPROTO;
			goto out;
		}
		map = xv_map(srq->ibsrq.context, r.mmap_offset, r.mmap_size);
		if (!map) {
			ret = errno;
			goto out;
		}
		munmap(srq->map, srq->map_size);
		srq->map = map;
		srq->map_size = r.mmap_size;
		srq->dbrec = (void *)((char *)map + r.dbrec_offset);
		/* the SRQ's wr_ids travel in its WQEs: rq.wrid is unused */
		srq->rq.buf = map;
		srq->rq.log = r.log_wqe;
	}
	if (r.max_wr)
		srq->rq.max_wr = r.max_wr;
out:
	pthread_spin_unlock(&srq->lock);
	return ret;
}

int ibv_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		   int attr_mask)
{
	struct xrdma_cmd_modify_srq c = { 0 };

	if ((unsigned int)attr_mask & ~(unsigned int)(IBV_SRQ_MAX_WR |
						      IBV_SRQ_LIMIT))
		return EINVAL;
	c.srq_handle = ibsrq->handle;
	c.attr_mask = (uint32_t)attr_mask;
	c.max_wr = attr->max_wr;
	c.srq_limit = attr->srq_limit;
	if (attr_mask & IBV_SRQ_MAX_WR)
		return xv_srq_grow(to_xsrq(ibsrq), &c);
	return xv_ioctl(ibsrq->context, XRDMA_IOC_MODIFY_SRQ, &c);
}
