// SPDX-License-Identifier: GPL-2.0
/*
 * xnic provider: the queues' memory.  The create, resize and modify
 * ioctls the API layer prepares are issued here with xnic's response
 * (udata, uapi/xrdma/xnic-abi.h), which says where the kernel's rings and
 * doorbell records are; they are checked and mapped, and unmapped when
 * the object goes.  Also the context's doorbell page, a QP's rings
 * starting over at RESET, and the provider's ops table.
 *
 * A queue's ring is kernel memory mapped into the process; a resize gets
 * a new mapping from the kernel, whose device command moves what the old
 * ring holds into it (completions from ci on, or posted receives) at the
 * same free-running indexes, with the doorbell record
 * (Documentation/xnic/commands.rst, RESIZE_CQ and RESIZE_SRQ).  The
 * queue's lock is held throughout, so no poll, arm or post touches the
 * old ring once the device may have left it.
 */
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include "xnic.h"

static void *xv_map(struct ibv_context *ctx, uint64_t offset, size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       ctx->cmd_fd, (off_t)offset);

	return p == MAP_FAILED ? NULL : p;
}

/* ------------------------------------------------------------ context */

/*
 * GET_CONTEXT or IMPORT_CONTEXT (@req) with xnic's response, both ABI
 * versions checked (EPROTONOSUPPORT), then the doorbell page mapped.
 * Return: 0, or -1 with errno set.
 */
static int xv_init_context(struct xv_context *xctx, unsigned long req,
			   struct xrdma_cmd_get_context *gc)
{
	struct ibv_context *ctx = &xctx->vctx.context;
	void *db;

	gc->udata.out = (uintptr_t)&xctx->uresp;
	gc->udata.out_len = sizeof(xctx->uresp);
	errno = xv_ioctl(ctx, req, gc);
	if (errno)
		return -1;
	if (gc->abi_version != XRDMA_ABI_VERSION ||
	    xctx->uresp.abi_version != XNIC_ABI_VERSION) {
		errno = EPROTONOSUPPORT;
		return -1;
	}
	db = mmap(NULL, XNIC_DB_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		  ctx->cmd_fd, (off_t)xctx->uresp.db_page_offset);
	if (db == MAP_FAILED)
		return -1;
	xctx->db = db;
	return 0;
}

/*
 * A forked child joins the context (IMPORT_CONTEXT, issued directly: this
 * is xv_ioctl's retry); the response is the parent's, already known.
 * Return: 0, or -1 with errno set.
 */
static int xv_rejoin_context(struct ibv_context *ctx)
{
	struct xrdma_cmd_import_context ic = { 0 };
	struct xnic_ucontext_resp uresp;

	ic.udata.out = (uintptr_t)&uresp;
	ic.udata.out_len = sizeof(uresp);
	return ioctl(ctx->cmd_fd, XRDMA_IOC_IMPORT_CONTEXT, &ic);
}

static void xv_uninit_context(struct xv_context *xctx)
{
	munmap(xctx->db, XNIC_DB_PAGE_SIZE);
}

/* ------------------------------------------------------------ CQ */

/* the kernel's CQ ring (create or resize) fits its mapping: else EPROTO */
static bool xv_cq_resp_ok(uint32_t mmap_size, uint32_t log_cqe,
			  uint32_t dbrec_offset)
{
	return log_cqe <= 24 &&
	       (sizeof(struct xnic_cqe) << log_cqe) <= mmap_size &&
	       (uint64_t)dbrec_offset + sizeof(struct xnic_cq_dbrec) <=
	       mmap_size;
}

static int xv_create_cq_rings(struct ibv_context *ctx, struct xv_cq *cq,
			      struct xrdma_cmd_create_cq *c)
{
	struct xnic_create_cq_resp r = { 0 };
	int err;

	c->udata.out = (uintptr_t)&r;
	c->udata.out_len = sizeof(r);
	err = xv_ioctl(ctx, XRDMA_IOC_CREATE_CQ, c);
	if (err)
		return err;
	if (!xv_cq_resp_ok(r.mmap_size, r.log_cqe, r.dbrec_offset)) {
		err = EPROTO;
		goto err_destroy;
	}
	cq->map = xv_map(ctx, r.mmap_offset, r.mmap_size);
	if (!cq->map) {
		err = errno;
		goto err_destroy;
	}
	cq->map_size = r.mmap_size;
	cq->ring = cq->map;
	cq->dbrec = (void *)((char *)cq->map + r.dbrec_offset);
	cq->log = r.log_cqe;
	return 0;

err_destroy:
	xv_destroy_obj(ctx, XRDMA_OBJ_CQ, c->cq_handle, NULL);
	return err;
}

static int xv_resize_cq_rings(struct xv_cq *cq, struct xrdma_cmd_resize_cq *c)
{
	struct ibv_cq *ibcq = ibv_cq_ex_to_cq(&cq->ex);
	struct xnic_resize_cq_resp r = { 0 };
	void *map;
	int ret;

	c->udata.out = (uintptr_t)&r;
	c->udata.out_len = sizeof(r);
	pthread_spin_lock(&cq->lock);
	/* the device carries the record's ci over: it must be ours */
	__atomic_store_n(&cq->dbrec->ci, htole32(cq->ci), __ATOMIC_RELEASE);
	ret = xv_ioctl(ibcq->context, XRDMA_IOC_RESIZE_CQ, c);
	if (ret || !r.mmap_size)
		goto out;
	if (!xv_cq_resp_ok(r.mmap_size, r.log_cqe, r.dbrec_offset)) {
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
		ibcq->cqe = (int)c->cqe;
	pthread_spin_unlock(&cq->lock);
	return ret;
}

static void xv_destroy_cq_rings(struct xv_cq *cq)
{
	munmap(cq->map, cq->map_size);
}

/* ------------------------------------------------------------ QP */

static int xv_wq_init(struct xv_wq *wq, void *map, uint32_t size,
		      uint32_t off, uint32_t log, uint32_t shift,
		      uint32_t max_wr, uint32_t max_sge, struct ibv_pd *pd,
		      uint64_t wrid_type)
{
	if (log > 20 || shift > 16 ||
	    (uint64_t)off + ((uint64_t)1 << (log + shift)) > size)
		return EPROTO;
	wq->buf = (uint8_t *)map + off;
	wq->log = log;
	wq->shift = shift;
	wq->max_wr = max_wr;
	wq->max_sge = max_sge;
	/* a parent domain's allocator, or calloc */
	return xv_wrid_alloc(pd, wq, wrid_type);
}

static int xv_create_qp_rings(struct ibv_context *ctx, struct xv_qp *qp,
			      struct xrdma_cmd_create_qp *c,
			      struct ibv_pd *pd, bool has_rq)
{
	struct xnic_create_qp_resp r = { 0 };
	int err;

	c->udata.out = (uintptr_t)&r;
	c->udata.out_len = sizeof(r);
	err = xv_ioctl(ctx, XRDMA_IOC_CREATE_QP, c);
	if (err)
		return err;
	if (r.sq_wqe_shift < XNIC_SQ_WQE_MIN_SHIFT ||
	    (has_rq && r.rq_wqe_shift < XNIC_RQ_WQE_MIN_SHIFT) ||
	    r.db_slot >= XNIC_DB_SLOTS ||
	    (uint64_t)r.dbrec_offset + sizeof(struct xnic_qp_dbrec) >
	    r.mmap_size) {
		err = EPROTO;
		goto err_destroy;
	}
	qp->map = xv_map(ctx, r.mmap_offset, r.mmap_size);
	if (!qp->map) {
		err = errno;
		goto err_destroy;
	}
	qp->map_size = r.mmap_size;
	qp->dbrec = (void *)((char *)qp->map + r.dbrec_offset);
	err = xv_wq_init(&qp->sq, qp->map, r.mmap_size, r.sq_offset,
			 r.sq_log_wqe, r.sq_wqe_shift, c->cap.max_send_wr,
			 c->cap.max_send_sge, pd, XV_RES_TYPE_SQ_WRID);
	if (!err && has_rq)
		err = xv_wq_init(&qp->rq, qp->map, r.mmap_size, r.rq_offset,
				 r.rq_log_wqe, r.rq_wqe_shift,
				 c->cap.max_recv_wr, c->cap.max_recv_sge,
				 pd, XV_RES_TYPE_RQ_WRID);
	if (err)
		goto err_unmap;
	qp->db_slot = r.db_slot;
	qp->max_inline = c->cap.max_inline_data;
	return 0;

err_unmap:
	xv_wrid_free(pd, &qp->sq, XV_RES_TYPE_SQ_WRID);
	xv_wrid_free(pd, &qp->rq, XV_RES_TYPE_RQ_WRID);
	munmap(qp->map, qp->map_size);
err_destroy:
	xv_destroy_obj(ctx, XRDMA_OBJ_QP, c->qp_handle, NULL);
	return err;
}

/* a QP without queues (XRC_RECV): the driver maps nothing for it */
static int xv_create_qp_nomem(struct ibv_context *ctx,
			      struct xrdma_cmd_create_qp *c)
{
	struct xnic_create_qp_resp r = { 0 };

	c->udata.out = (uintptr_t)&r;
	c->udata.out_len = sizeof(r);
	return xv_ioctl(ctx, XRDMA_IOC_CREATE_QP, c);
}

/* after RESET or destroy: no CQE of the QP's past is polled any more */
static void xv_qp_clean_cqs(struct ibv_qp *qp)
{
	if (qp->send_cq)
		xv_cq_clean(qp->send_cq, qp->qp_num);
	if (qp->recv_cq && qp->recv_cq != qp->send_cq)
		xv_cq_clean(qp->recv_cq, qp->qp_num);
}

/* the QP went to RESET: the device starts the rings over, so do we */
static void xv_reset_qp_rings(struct xv_qp *xqp)
{
	struct ibv_qp *qp = &xqp->ex.qp_base;

	/* an XRC_RECV QP has no queues */
	if (!xqp->map)
		return;
	xv_qp_clean_cqs(qp);
	pthread_spin_lock(&xqp->sq_lock);
	xqp->sq.pi = 0;
	xqp->sq.ci = 0;
	memset(xqp->sq.buf, 0, (size_t)1 << (xqp->sq.log + xqp->sq.shift));
	pthread_spin_unlock(&xqp->sq_lock);
	pthread_spin_lock(&xqp->rq_lock);
	if (xqp->rq.buf) {
		xqp->rq.pi = 0;
		xqp->rq.ci = 0;
		memset(xqp->rq.buf, 0, (size_t)1 <<
		       (xqp->rq.log + xqp->rq.shift));
	}
	memset(xqp->dbrec, 0, sizeof(*xqp->dbrec));
	pthread_spin_unlock(&xqp->rq_lock);
}

static void xv_cq_forget(struct ibv_cq *ibcq, struct xv_qp *qp)
{
	struct xv_cq *cq = to_xcq(ibcq);

	pthread_spin_lock(&cq->lock);
	if (cq->last_qp == qp)
		cq->last_qp = NULL;
	pthread_spin_unlock(&cq->lock);
}

/*
 * The QP is out of the QPN table: its CQs forget it and its CQEs -- not
 * when the device is @gone (DESTROY answered EIO: the device failed or is
 * going away, and the rings are unmapped or about to be: SIGBUS).
 */
static void xv_detach_qp(struct xv_qp *qp, bool gone)
{
	if (qp->ex.qp_base.send_cq)
		xv_cq_forget(qp->ex.qp_base.send_cq, qp);
	if (qp->ex.qp_base.recv_cq)
		xv_cq_forget(qp->ex.qp_base.recv_cq, qp);
	if (!gone)
		xv_qp_clean_cqs(&qp->ex.qp_base);
}

static void xv_destroy_qp_rings(struct xv_qp *qp)
{
	struct ibv_pd *pd = qp->ex.qp_base.pd;

	if (qp->map)
		munmap(qp->map, qp->map_size);
	xv_wrid_free(pd, &qp->sq, XV_RES_TYPE_SQ_WRID);
	xv_wrid_free(pd, &qp->rq, XV_RES_TYPE_RQ_WRID);
}

/* ------------------------------------------------------------ SRQ */

static int xv_create_srq_rings(struct ibv_context *ctx, struct xv_srq *srq,
			       struct xrdma_cmd_create_srq *c,
			       struct ibv_pd *pd)
{
	struct xnic_create_srq_resp r = { 0 };
	int err;

	c->udata.out = (uintptr_t)&r;
	c->udata.out_len = sizeof(r);
	err = xv_ioctl(ctx, XRDMA_IOC_CREATE_SRQ, c);
	if (err)
		return err;
	if (r.wqe_shift < XNIC_RQ_WQE_MIN_SHIFT ||
	    (uint64_t)r.dbrec_offset + sizeof(struct xnic_qp_dbrec) >
	    r.mmap_size) {
		err = EPROTO;
		goto err_destroy;
	}
	srq->map = xv_map(ctx, r.mmap_offset, r.mmap_size);
	if (!srq->map) {
		err = errno;
		goto err_destroy;
	}
	srq->map_size = r.mmap_size;
	srq->dbrec = (void *)((char *)srq->map + r.dbrec_offset);
	err = xv_wq_init(&srq->rq, srq->map, r.mmap_size, 0, r.log_wqe,
			 r.wqe_shift, c->max_wr, c->max_sge, pd,
			 XV_RES_TYPE_SRQ_WRID);
	if (err) {
		munmap(srq->map, srq->map_size);
		goto err_destroy;
	}
	/* the number XRC senders name (ibv_get_srq_num) */
	srq->srqn = c->srq_type == XRDMA_UVERBS_SRQT_XRC ? c->srq_num :
							   r.srqn;
	return 0;

err_destroy:
	xv_destroy_obj(ctx, XRDMA_OBJ_SRQ, c->srq_handle, NULL);
	return err;
}

/* IBV_SRQ_MAX_WR: grow the SRQ, its posted receives kept. */
static int xv_grow_srq_rings(struct xv_srq *srq,
			     struct xrdma_cmd_modify_srq *c)
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

static void xv_destroy_srq_rings(struct xv_srq *srq)
{
	munmap(srq->map, srq->map_size);
	xv_wrid_free(srq->ibsrq.pd, &srq->rq, XV_RES_TYPE_SRQ_WRID);
}

/* ------------------------------------------------------------ ops */

const struct xv_provider_ops xnic_provider_ops = {
	.init_context = xv_init_context,
	.uninit_context = xv_uninit_context,
	.rejoin_context = xv_rejoin_context,
	.poll_cq = xv_poll_cq,
	.req_notify_cq = xv_req_notify_cq,
	.post_send = xv_post_send,
	.post_recv = xv_post_recv,
	.post_srq_recv = xv_post_srq_recv,
	.post_bind = xv_post_bind,
	.cq_ex_init = xv_cq_ex_init,
	.qp_ex_init = xv_qp_ex_init,
	.create_cq = xv_create_cq_rings,
	.resize_cq = xv_resize_cq_rings,
	.destroy_cq = xv_destroy_cq_rings,
	.create_qp = xv_create_qp_rings,
	.create_qp_nomem = xv_create_qp_nomem,
	.reset_qp = xv_reset_qp_rings,
	.detach_qp = xv_detach_qp,
	.destroy_qp = xv_destroy_qp_rings,
	.create_srq = xv_create_srq_rings,
	.grow_srq = xv_grow_srq_rings,
	.destroy_srq = xv_destroy_srq_rings,
};
