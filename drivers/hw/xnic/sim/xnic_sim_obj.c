// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_sim: the objects the commands manage -- completion queues, SRQs,
 * MRs, memory windows, doorbell pages, and QPs (whose commands are in
 * xnic_sim_qp.c) -- their commands (create, modify, query, resize,
 * destroy: xnic_sim_obj_cmd(), called by xnic_sim_cmd.c), the changes
 * the transport makes to them whatever its role (an SRQ's resize, a
 * window's invalidation), and dropping them all at reset.
 *
 * Every object-creating command has one shape: its input is checked
 * (BAD_PARAM, and BAD_INDEX for a missing object it names), then
 * xnic_sim_obj_create() takes the number (BAD_INDEX if in use), a zeroed
 * object (NO_RESOURCES), the object's init (its own status) and the
 * table insert (the table's limit: NO_RESOURCES), undoing all of it on
 * any failure.  What an object links to (users of a CQ, an SRQ, a
 * doorbell slot) is counted only once it is in its table.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/string.h>
#include "xnic_sim.h"

static void xnic_sim_mr_free(struct xnic_sim_mr *mr)
{
	kvfree(mr->mtt);
	kfree(mr);
}

/* Freeing an object no engine can see any more (table drops, undo). */
static void xnic_sim_qp_drop(void *p)
{
	struct xnic_sim_qp *qp = p;

	/* the wire state is the owner's engine's alone: no reader to wait for */
	kfree(qp->wreq);
	kfree(qp->wresp);
	kfree_rcu(qp, rcu);
}

static void xnic_sim_plain_drop(void *p)
{
	kfree(p);
}

static void xnic_sim_mr_drop(void *p)
{
	xnic_sim_mr_free(p);
}

/* ------------------------------------------------------------------ */
/* Completion queues                                                   */

static u32 xnic_sim_cq_init(struct xnic_sim_dev *dev, void *obj,
			    const void *arg)
{
	const struct xnic_cmd_create_cq *in = arg;
	struct xnic_sim_cq *cq = obj;

	cq->dev = dev;
	cq->cqn = le32_to_cpu(in->cqn);
	cq->log = le32_to_cpu(in->log_cqe);
	cq->ring = le64_to_cpu(in->ring_addr);
	cq->dbrec = le64_to_cpu(in->dbrec_addr);
	cq->flags = le32_to_cpu(in->flags);
	cq->served = XNIC_SIM_ARM_NONE;
	spin_lock_init(&cq->lock);
	return XNIC_CMD_OK;
}

static const struct xnic_sim_obj_type xnic_sim_cq_type = {
	.size = sizeof(struct xnic_sim_cq),
	.init = xnic_sim_cq_init,
};

/* A CQ ring and record, for CREATE_CQ and RESIZE_CQ. */
static bool xnic_sim_cq_mem_ok(u32 log, u64 ring, u64 dbrec)
{
	return log <= XNIC_SIM_MAX_LOG_CQE &&
	       xnic_sim_addr_ok(ring, sizeof(struct xnic_cqe) << log,
				sizeof(struct xnic_cqe)) &&
	       xnic_sim_addr_ok(dbrec, sizeof(struct xnic_cq_dbrec), 8);
}

static u32 xnic_sim_cmd_create_cq(struct xnic_sim_dev *dev,
				  const struct xnic_cmd_create_cq *in)
{
	if (le32_to_cpu(in->flags) & ~XNIC_CQ_F_EVENTS ||
	    !xnic_sim_cq_mem_ok(le32_to_cpu(in->log_cqe),
				le64_to_cpu(in->ring_addr),
				le64_to_cpu(in->dbrec_addr)))
		return XNIC_CMD_BAD_PARAM;
	return xnic_sim_obj_create(dev, &dev->cqs, le32_to_cpu(in->cqn),
				   &xnic_sim_cq_type, in, NULL);
}

static u32 xnic_sim_cmd_destroy_cq(struct xnic_sim_dev *dev, u32 cqn)
{
	struct xnic_sim_tbl_chunk *empty = NULL;
	struct xnic_sim_cq *cq = xnic_sim_tbl_get(&dev->cqs, cqn);

	if (!cq)
		return XNIC_CMD_BAD_INDEX;
	if (cq->users)
		return XNIC_CMD_BUSY;
	xnic_sim_tbl_erase(&dev->cqs, cqn, &empty);
	xnic_sim_sect_sync(dev);
	xnic_sim_tbl_free_chunk(empty);
	kfree(cq);
	return XNIC_CMD_OK;
}

static u32 xnic_sim_cmd_resize_cq(struct xnic_sim_dev *dev,
				  const struct xnic_cmd_resize_cq *in)
{
	struct xnic_sim_cq *cq = xnic_sim_tbl_get(&dev->cqs,
						  le32_to_cpu(in->cqn));
	u32 log = le32_to_cpu(in->log_cqe);
	u64 ring = le64_to_cpu(in->ring_addr);
	u64 dbrec = le64_to_cpu(in->dbrec_addr);

	if (in->reserved || in->reserved2 ||
	    !xnic_sim_cq_mem_ok(log, ring, dbrec))
		return XNIC_CMD_BAD_PARAM;
	if (!cq)
		return XNIC_CMD_BAD_INDEX;
	return xnic_sim_cq_resize(cq, log, ring, dbrec) ? XNIC_CMD_BAD_STATE :
							   XNIC_CMD_OK;
}

/* ------------------------------------------------------------------ */
/* Shared receive queues                                               */

/* What CREATE_SRQ found for the SRQ: an XRC SRQ's CQ. */
struct xnic_sim_srq_args {
	const struct xnic_cmd_create_srq *in;
	struct xnic_sim_cq *cq;
};

static u32 xnic_sim_srq_init(struct xnic_sim_dev *dev, void *obj,
			     const void *arg)
{
	const struct xnic_sim_srq_args *a = arg;
	const struct xnic_cmd_create_srq *in = a->in;
	struct xnic_sim_srq *srq = obj;

	srq->dev = dev;
	srq->srqn = le32_to_cpu(in->srqn);
	srq->pdn = le32_to_cpu(in->pdn);
	srq->type = in->type;
	srq->xrcdn = le32_to_cpu(in->xrcdn);
	srq->cq = a->cq;
	srq->log = in->log_wqe;
	srq->shift = in->wqe_shift;
	srq->ring = le64_to_cpu(in->ring_addr);
	srq->dbrec = le64_to_cpu(in->dbrec_addr);
	srq->limit = le32_to_cpu(in->limit);
	spin_lock_init(&srq->lock);
	return XNIC_CMD_OK;
}

static const struct xnic_sim_obj_type xnic_sim_srq_type = {
	.size = sizeof(struct xnic_sim_srq),
	.init = xnic_sim_srq_init,
};

static u32 xnic_sim_cmd_create_srq(struct xnic_sim_dev *dev,
				   const struct xnic_cmd_create_srq *in)
{
	u32 srqn = le32_to_cpu(in->srqn), xrcdn = le32_to_cpu(in->xrcdn);
	u32 cqn = le32_to_cpu(in->cqn);
	u64 ring = le64_to_cpu(in->ring_addr);
	u64 dbrec = le64_to_cpu(in->dbrec_addr);
	struct xnic_sim_srq_args args = { .in = in };
	u32 st;

	if (in->reserved ||
	    (in->type == XNIC_SRQT_BASIC ? xrcdn || cqn :
	     in->type != XNIC_SRQT_XRC || !xrcdn ||
	     xrcdn >= (1U << XNIC_SIM_IDX_BITS)) ||
	    in->log_wqe > XNIC_SIM_MAX_LOG_WQE ||
	    in->wqe_shift < XNIC_RQ_WQE_MIN_SHIFT ||
	    in->wqe_shift > XNIC_SIM_MAX_WQE_SHIFT ||
	    !xnic_sim_addr_ok(ring, 1ULL << (in->log_wqe + in->wqe_shift), 8) ||
	    !xnic_sim_addr_ok(dbrec, sizeof(struct xnic_qp_dbrec), 8))
		return XNIC_CMD_BAD_PARAM;
	if (in->type == XNIC_SRQT_XRC) {
		args.cq = xnic_sim_tbl_get(&dev->cqs, cqn);
		if (!args.cq)
			return XNIC_CMD_BAD_INDEX;
	}
	st = xnic_sim_obj_create(dev, &dev->srqs, srqn, &xnic_sim_srq_type,
				 &args, NULL);
	if (st == XNIC_CMD_OK && args.cq)
		args.cq->users++;
	return st;
}

static u32 xnic_sim_cmd_modify_srq(struct xnic_sim_dev *dev,
				   const struct xnic_cmd_modify_srq *in)
{
	struct xnic_sim_srq *srq = xnic_sim_tbl_get(&dev->srqs,
						    le32_to_cpu(in->srqn));

	if (!srq)
		return XNIC_CMD_BAD_INDEX;
	spin_lock(&srq->lock);
	srq->limit = le32_to_cpu(in->limit);
	spin_unlock(&srq->lock);
	return XNIC_CMD_OK;
}

/**
 * xnic_sim_srq_resize - move an SRQ to a larger ring and record (RESIZE_SRQ)
 * @srq: the SRQ
 * @log: log2 of the new ring's size, larger than the current one
 * @ring: DMA address of the new ring (checked by the caller)
 * @dbrec: DMA address of the new doorbell record
 *
 * Under the SRQ's consumer lock: the WQEs from the consumer index to the
 * old record's rq_pi move to the same free-running indexes of the new
 * ring, with the owner of the new size; the record is copied.  Sleeps
 * (a WQE-sized bounce buffer).
 *
 * Return: 0, -ENOMEM, or -EIO for an impossible rq_pi or an unreadable
 * record.
 */
int xnic_sim_srq_resize(struct xnic_sim_srq *srq, u8 log, u64 ring,
			u64 dbrec)
{
	u32 size = 1U << srq->shift, i, pi;
	struct xnic_qp_dbrec rec;
	int ret = 0;
	u8 *wqe;

	wqe = kmalloc(size, GFP_KERNEL);
	if (!wqe)
		return -ENOMEM;
	spin_lock(&srq->lock);
	if (!xnic_sim_dma_read(srq->dbrec, &rec, sizeof(rec))) {
		ret = -EIO;
		goto out;
	}
	pi = le32_to_cpu(rec.rq_pi);
	if (pi - srq->ci > (1U << srq->log)) {
		ret = -EIO;
		goto out;
	}
	for (i = srq->ci; i != pi; i++) {
		u64 from = srq->ring + ((u64)(i & ((1U << srq->log) - 1)) <<
					srq->shift);
		u64 to = ring + ((u64)(i & ((1U << log) - 1)) << srq->shift);

		if (!xnic_sim_dma_read(from, wqe, size))
			memset(wqe, 0, size);
		((struct xnic_rwqe *)wqe)->owner = (i >> log) & 1;
		xnic_sim_dma_write(to, wqe, size);
	}
	xnic_sim_dma_write(dbrec, &rec, sizeof(rec));
	srq->ring = ring;
	srq->dbrec = dbrec;
	srq->log = log;
out:
	spin_unlock(&srq->lock);
	kfree(wqe);
	return ret;
}

static u32 xnic_sim_cmd_resize_srq(struct xnic_sim_dev *dev,
				   const struct xnic_cmd_resize_srq *in)
{
	struct xnic_sim_srq *srq = xnic_sim_tbl_get(&dev->srqs,
						    le32_to_cpu(in->srqn));
	u64 ring = le64_to_cpu(in->ring_addr);
	u64 dbrec = le64_to_cpu(in->dbrec_addr);
	int ret;

	if (in->reserved[0] || in->reserved[1] || in->reserved[2] ||
	    in->log_wqe > XNIC_SIM_MAX_LOG_WQE ||
	    !xnic_sim_addr_ok(dbrec, sizeof(struct xnic_qp_dbrec), 8))
		return XNIC_CMD_BAD_PARAM;
	if (!srq)
		return XNIC_CMD_BAD_INDEX;
	/* the size is the owner's: only its engine changes it */
	if (in->log_wqe <= srq->log ||
	    !xnic_sim_addr_ok(ring, 1ULL << (in->log_wqe + srq->shift), 8))
		return XNIC_CMD_BAD_PARAM;
	ret = xnic_sim_srq_resize(srq, in->log_wqe, ring, dbrec);
	if (ret == -ENOMEM)
		return XNIC_CMD_NO_RESOURCES;
	return ret ? XNIC_CMD_BAD_STATE : XNIC_CMD_OK;
}

static u32 xnic_sim_cmd_destroy_srq(struct xnic_sim_dev *dev, u32 srqn)
{
	struct xnic_sim_tbl_chunk *empty = NULL;
	struct xnic_sim_srq *srq = xnic_sim_tbl_get(&dev->srqs, srqn);

	if (!srq)
		return XNIC_CMD_BAD_INDEX;
	if (srq->users)
		return XNIC_CMD_BUSY;
	xnic_sim_tbl_erase(&dev->srqs, srqn, &empty);
	/* requests that named it (XRC) are over after this */
	xnic_sim_sect_sync(dev);
	xnic_sim_tbl_free_chunk(empty);
	if (srq->cq)
		srq->cq->users--;
	kfree(srq);
	return XNIC_CMD_OK;
}

/* ------------------------------------------------------------------ */
/* Memory regions                                                      */

static u32 xnic_sim_dm_mr_init(struct xnic_sim_dev *dev, void *obj,
			       const void *arg)
{
	const struct xnic_cmd_reg_mr *in = arg;
	struct xnic_sim_mr *mr = obj;

	mr->key = le32_to_cpu(in->key);
	mr->pdn = le32_to_cpu(in->pdn);
	mr->access = le32_to_cpu(in->access);
	mr->flags = XNIC_MR_F_DM;
	mr->iova = le64_to_cpu(in->iova);
	mr->length = le64_to_cpu(in->length);
	mr->dm_dma = dev->dm_base + le64_to_cpu(in->mtt_addr);
	mr->valid = true;
	return XNIC_CMD_OK;
}

static const struct xnic_sim_obj_type xnic_sim_dm_mr_type = {
	.size = sizeof(struct xnic_sim_mr),
	.init = xnic_sim_dm_mr_init,
	.free = xnic_sim_mr_drop,
};

/*
 * REG_MR with XNIC_MR_F_DM: [mtt_addr, mtt_addr + length) of the device
 * memory window, known as [iova, iova + length).
 */
static u32 xnic_sim_cmd_reg_dm_mr(struct xnic_sim_dev *dev,
				  const struct xnic_cmd_reg_mr *in)
{
	u64 off = le64_to_cpu(in->mtt_addr), length = le64_to_cpu(in->length);
	u64 iova = le64_to_cpu(in->iova);

	if (!dev->dm_pages || off > XNIC_SIM_DM_SIZE ||
	    length > XNIC_SIM_DM_SIZE - off || iova + length < iova ||
	    in->npages || in->page_shift)
		return XNIC_CMD_BAD_PARAM;
	return xnic_sim_obj_create(dev, &dev->mrs, le32_to_cpu(in->key) >> 8,
				   &xnic_sim_dm_mr_type, in, NULL);
}

/*
 * An MR of REG_MR (not device memory): an ALL MR is valid at once, a
 * fast-registration one gets room for its page list, a registered one
 * its page list read and checked (persistent memory for FLUSH_PERSISTENT).
 */
static u32 xnic_sim_mr_init(struct xnic_sim_dev *dev, void *obj,
			    const void *arg)
{
	const struct xnic_cmd_reg_mr *in = arg;
	u32 flags = le32_to_cpu(in->flags), n = le32_to_cpu(in->npages);
	struct xnic_sim_mr *mr = obj;
	u32 i;

	mr->key = le32_to_cpu(in->key);
	mr->pdn = le32_to_cpu(in->pdn);
	mr->access = le32_to_cpu(in->access);
	mr->flags = flags;
	if (flags & XNIC_MR_F_ALL) {
		mr->valid = true;
		return XNIC_CMD_OK;
	}
	mr->max_pages = n;
	mr->page_shift = in->page_shift;
	if (n) {
		mr->mtt = kvcalloc(n, sizeof(u64), GFP_KERNEL | __GFP_NOWARN);
		if (!mr->mtt)
			return XNIC_CMD_NO_RESOURCES;
	}
	if (flags)	/* fast registration: REG_MR WQEs fill it in */
		return XNIC_CMD_OK;
	if (n && !xnic_sim_dma_read(le64_to_cpu(in->mtt_addr), mr->mtt,
				    (size_t)n * sizeof(u64)))
		return XNIC_CMD_BAD_PARAM;
	for (i = 0; i < n; i++)
		mr->mtt[i] = le64_to_cpu((__force __le64)mr->mtt[i]);
	if (xnic_sim_mtt_check(mr->mtt, n, in->page_shift) ||
	    ((mr->access & XNIC_ACCESS_FLUSH_PERSISTENT) &&
	     !xnic_sim_mtt_pmem(mr->mtt, n, in->page_shift)))
		return XNIC_CMD_BAD_PARAM;
	mr->iova = le64_to_cpu(in->iova);
	mr->length = le64_to_cpu(in->length);
	mr->npages = n;
	mr->valid = true;
	return XNIC_CMD_OK;
}

static const struct xnic_sim_obj_type xnic_sim_mr_type = {
	.size = sizeof(struct xnic_sim_mr),
	.init = xnic_sim_mr_init,
	.free = xnic_sim_mr_drop,
};

static u32 xnic_sim_cmd_reg_mr(struct xnic_sim_dev *dev,
			       const struct xnic_cmd_reg_mr *in)
{
	u32 flags = le32_to_cpu(in->flags), access = le32_to_cpu(in->access);
	u32 n = le32_to_cpu(in->npages);

	if (flags & ~(XNIC_MR_F_ALL | XNIC_MR_F_FREG | XNIC_MR_F_DM) ||
	    hweight32(flags) > 1 ||
	    access & ~(XNIC_SIM_ACCESS_ALL | XNIC_ACCESS_MW_BIND))
		return XNIC_CMD_BAD_PARAM;
	/* persistence: only a registered MR of persistent memory (init) */
	if (flags && access & XNIC_ACCESS_FLUSH_PERSISTENT)
		return XNIC_CMD_BAD_PARAM;
	if (flags & XNIC_MR_F_DM)
		return xnic_sim_cmd_reg_dm_mr(dev, in);
	if ((flags & XNIC_MR_F_ALL) && access & ~XNIC_ACCESS_LOCAL_WRITE)
		return XNIC_CMD_BAD_PARAM;
	if ((flags & XNIC_MR_F_FREG) && (!n || n > XNIC_SIM_MAX_FR_PAGES))
		return XNIC_CMD_BAD_PARAM;
	if (!flags && xnic_sim_mr_params_ok(le64_to_cpu(in->iova),
					    le64_to_cpu(in->length), n,
					    in->page_shift,
					    XNIC_SIM_MAX_MR_SIZE))
		return XNIC_CMD_BAD_PARAM;
	return xnic_sim_obj_create(dev, &dev->mrs, le32_to_cpu(in->key) >> 8,
				   &xnic_sim_mr_type, in, NULL);
}

static u32 xnic_sim_cmd_dereg_mr(struct xnic_sim_dev *dev, u32 key)
{
	struct xnic_sim_tbl_chunk *empty = NULL;
	struct xnic_sim_mr *mr = xnic_sim_tbl_get(&dev->mrs, key >> 8);

	if (!mr || mr->mw_type)
		return XNIC_CMD_BAD_INDEX;
	/* windows are bound only by this engine: no new one can appear */
	if (atomic_read(&mr->binds))
		return XNIC_CMD_BUSY;
	xnic_sim_tbl_erase(&dev->mrs, key >> 8, &empty);
	/* operations of the peer that found it are over after this */
	xnic_sim_sect_sync(dev);
	xnic_sim_tbl_free_chunk(empty);
	xnic_sim_mr_free(mr);
	return XNIC_CMD_OK;
}

/* ------------------------------------------------------------------ */
/* Memory windows                                                      */

static u32 xnic_sim_mw_init(struct xnic_sim_dev *dev, void *obj,
			    const void *arg)
{
	const struct xnic_cmd_alloc_mw *in = arg;
	struct xnic_sim_mr *mw = obj;

	mw->key = le32_to_cpu(in->key);
	mw->pdn = le32_to_cpu(in->pdn);
	mw->mw_type = in->type;
	mw->state = XNIC_SIM_MW_FREE;
	return XNIC_CMD_OK;
}

static const struct xnic_sim_obj_type xnic_sim_mw_type = {
	.size = sizeof(struct xnic_sim_mr),
	.init = xnic_sim_mw_init,
};

static u32 xnic_sim_cmd_alloc_mw(struct xnic_sim_dev *dev,
				 const struct xnic_cmd_alloc_mw *in)
{
	if ((in->type != XNIC_MW_TYPE_1 && in->type != XNIC_MW_TYPE_2) ||
	    memchr_inv(in->reserved, 0, sizeof(in->reserved)))
		return XNIC_CMD_BAD_PARAM;
	return xnic_sim_obj_create(dev, &dev->mrs, le32_to_cpu(in->key) >> 8,
				   &xnic_sim_mw_type, in, NULL);
}

static u32 xnic_sim_cmd_dealloc_mw(struct xnic_sim_dev *dev, u32 key)
{
	struct xnic_sim_tbl_chunk *empty = NULL;
	struct xnic_sim_mr *mw = xnic_sim_tbl_get(&dev->mrs, key >> 8);

	if (!mw || !mw->mw_type)
		return XNIC_CMD_BAD_INDEX;
	xnic_sim_tbl_erase(&dev->mrs, key >> 8, &empty);
	/* no engine uses it or invalidates it any more after this */
	xnic_sim_sect_sync(dev);
	xnic_sim_tbl_free_chunk(empty);
	if (mw->state == XNIC_SIM_MW_VALID)
		atomic_dec(&mw->parent->binds);
	kfree(mw);
	return XNIC_CMD_OK;
}

/* ------------------------------------------------------------------ */
/* Doorbell pages                                                      */

static u32 xnic_sim_cmd_alloc_db(struct xnic_sim_dev *dev,
				 const struct xnic_cmd_alloc_db *in)
{
	u32 idx = le32_to_cpu(in->db_index);
	u64 addr = le64_to_cpu(in->page_addr);
	struct xnic_sim_db *db;

	if (idx >= XNIC_SIM_MAX_DB ||
	    !xnic_sim_addr_ok(addr, XNIC_DB_PAGE_SIZE, PAGE_SIZE))
		return XNIC_CMD_BAD_PARAM;
	if (dev->db[idx])
		return XNIC_CMD_BAD_INDEX;
	db = kzalloc(sizeof(*db), GFP_KERNEL);
	if (!db)
		return XNIC_CMD_NO_RESOURCES;
	db->index = idx;
	db->addr = addr;
	dev->db[idx] = db;
	dev->db_list[dev->n_db++] = db;
	return XNIC_CMD_OK;
}

static void xnic_sim_db_free(struct xnic_sim_db *db)
{
	u32 i;

	for (i = 0; i < XNIC_DB_GROUP_WORDS; i++)
		kfree(db->slot[i]);
	kfree(db);
}

static u32 xnic_sim_cmd_free_db(struct xnic_sim_dev *dev, u32 idx)
{
	struct xnic_sim_db *db;
	u32 i;

	if (idx >= XNIC_SIM_MAX_DB || !dev->db[idx])
		return XNIC_CMD_BAD_INDEX;
	db = dev->db[idx];
	if (db->nqps)
		return XNIC_CMD_BUSY;
	for (i = 0; i < dev->n_db; i++) {
		if (dev->db_list[i] == db) {
			dev->db_list[i] = dev->db_list[--dev->n_db];
			break;
		}
	}
	dev->db[idx] = NULL;
	xnic_sim_db_free(db);
	return XNIC_CMD_OK;
}

/* ------------------------------------------------------------------ */
/* The object commands                                                 */

/**
 * xnic_sim_obj_cmd - execute a command that manages objects
 * @dev: device (its engine)
 * @c: the command (a private copy; outputs are written into it)
 *
 * Return: its status; XNIC_CMD_BAD_OPCODE if it is not one of them.
 */
u32 xnic_sim_obj_cmd(struct xnic_sim_dev *dev, struct xnic_cmd *c)
{
	switch (c->hdr.opcode) {
	case XNIC_CMD_CREATE_CQ:
		return xnic_sim_cmd_create_cq(dev, &c->create_cq);
	case XNIC_CMD_DESTROY_CQ:
		return xnic_sim_cmd_destroy_cq(dev, le32_to_cpu(c->obj.index));
	case XNIC_CMD_CREATE_QP:
		return xnic_sim_cmd_create_qp(dev, &c->create_qp);
	case XNIC_CMD_MODIFY_QP:
		return xnic_sim_cmd_modify_qp(dev, &c->modify_qp);
	case XNIC_CMD_QUERY_QP:
		return xnic_sim_cmd_query_qp(dev, c);
	case XNIC_CMD_DESTROY_QP:
		return xnic_sim_cmd_destroy_qp(dev, le32_to_cpu(c->obj.index));
	case XNIC_CMD_CREATE_SRQ:
		return xnic_sim_cmd_create_srq(dev, &c->create_srq);
	case XNIC_CMD_MODIFY_SRQ:
		return xnic_sim_cmd_modify_srq(dev, &c->modify_srq);
	case XNIC_CMD_DESTROY_SRQ:
		return xnic_sim_cmd_destroy_srq(dev, le32_to_cpu(c->obj.index));
	case XNIC_CMD_RESIZE_CQ:
		return xnic_sim_cmd_resize_cq(dev, &c->resize_cq);
	case XNIC_CMD_RESIZE_SRQ:
		return xnic_sim_cmd_resize_srq(dev, &c->resize_srq);
	case XNIC_CMD_REG_MR:
		return xnic_sim_cmd_reg_mr(dev, &c->reg_mr);
	case XNIC_CMD_DEREG_MR:
		return xnic_sim_cmd_dereg_mr(dev, le32_to_cpu(c->dereg_mr.key));
	case XNIC_CMD_ALLOC_MW:
		return xnic_sim_cmd_alloc_mw(dev, &c->alloc_mw);
	case XNIC_CMD_DEALLOC_MW:
		return xnic_sim_cmd_dealloc_mw(dev, le32_to_cpu(c->dereg_mr.key));
	case XNIC_CMD_ALLOC_DB:
		return xnic_sim_cmd_alloc_db(dev, &c->alloc_db);
	case XNIC_CMD_FREE_DB:
		return xnic_sim_cmd_free_db(dev, le32_to_cpu(c->alloc_db.db_index));
	default:
		return XNIC_CMD_BAD_OPCODE;
	}
}

/* ------------------------------------------------------------------ */
/* Memory windows: invalidation, by the requester or the responder      */

/**
 * xnic_sim_mw_remote_inv_ok - may a SEND_WITH_INV invalidate this window?
 * @mw: a window of the responder's device (key and PD checked)
 * @rqp: the responder QP
 *
 * Only a bound type 2 window, through the QP it is bound to.
 */
bool xnic_sim_mw_remote_inv_ok(const struct xnic_sim_mr *mw,
			       const struct xnic_sim_qp *rqp)
{
	if (mw->mw_type != XNIC_MW_TYPE_2)
		return false;
	/* the QP after VALID: pairs with the binder's release */
	return smp_load_acquire(&mw->state) == XNIC_SIM_MW_VALID &&
	       READ_ONCE(mw->qpn) == rqp->qpn;
}

/**
 * xnic_sim_mw_invalidate - unbind a bound window
 * @dev: the device whose engine runs this (not necessarily the window's)
 * @mw: the window
 * @sync: wait for the peer's operations through it (the window's own
 *	  engine invalidating; a peer's engine invalidating is the peer)
 *
 * The window's own engine cannot free the MR while it is executing an
 * operation, so a remote invalidation need not wait.
 * Return: whether this call invalidated it (false: it was not bound).
 */
bool xnic_sim_mw_invalidate(struct xnic_sim_dev *dev, struct xnic_sim_mr *mw,
			    bool sync)
{
	if (cmpxchg(&mw->state, XNIC_SIM_MW_VALID,
		    XNIC_SIM_MW_INVALIDATING) != XNIC_SIM_MW_VALID)
		return false;
	if (sync)
		xnic_sim_sect_sync(dev);
	atomic_dec(&mw->parent->binds);
	/* unbound before a binder may take it: pairs with its acquire */
	smp_store_release(&mw->state, XNIC_SIM_MW_FREE);
	return true;
}

/* ------------------------------------------------------------------ */
/* Reset                                                               */

/* One object at a time, when no memory for xnic_sim_tbl_take() is left. */
static void xnic_sim_tbl_clear_slow(struct xnic_sim_dev *dev,
				    struct xnic_sim_tbl *t,
				    void (*fn)(void *p))
{
	u32 idx = 0;
	void *p;

	while ((p = xnic_sim_tbl_next(t, &idx))) {
		struct xnic_sim_tbl_chunk *empty = NULL;

		xnic_sim_tbl_erase(t, idx, &empty);
		xnic_sim_sect_sync(dev);
		xnic_sim_tbl_free_chunk(empty);
		fn(p);
	}
}

/**
 * xnic_sim_clear - drop every object of a device
 * @dev: device; called by its engine, or with no engine running
 */
void xnic_sim_clear(struct xnic_sim_dev *dev)
{
	struct xnic_sim_tbl *tbl[] = { &dev->qps, &dev->srqs, &dev->cqs,
				       &dev->mrs };
	void (*fn[])(void *p) = { xnic_sim_qp_drop, xnic_sim_plain_drop,
				  xnic_sim_plain_drop, xnic_sim_mr_drop };
	struct xnic_sim_tbl_chunk **old[ARRAY_SIZE(tbl)];
	struct xnic_sim_qp *qp;
	u32 idx = 0, i;

	/* QPs stop answering first */
	while ((qp = xnic_sim_tbl_next(&dev->qps, &idx))) {
		spin_lock(&qp->lock);
		WRITE_ONCE(qp->state, XNIC_QPS_RESET);
		spin_unlock(&qp->lock);
		idx++;
	}
	INIT_LIST_HEAD(&dev->active);
	INIT_LIST_HEAD(&dev->errq);
	INIT_LIST_HEAD(&dev->wresp_acks);	/* answers owed: the QPs go */
	xnic_sim_mcg_reset(dev);
	for (i = 0; i < ARRAY_SIZE(tbl); i++)
		old[i] = xnic_sim_tbl_take(tbl[i]);
	xnic_sim_sect_sync(dev);
	for (i = 0; i < ARRAY_SIZE(tbl); i++) {
		if (old[i])
			xnic_sim_tbl_drop(old[i], fn[i]);
		else
			xnic_sim_tbl_clear_slow(dev, tbl[i], fn[i]);
	}
	for (i = 0; i < dev->n_db; i++) {
		dev->db[dev->db_list[i]->index] = NULL;
		xnic_sim_db_free(dev->db_list[i]);
		dev->db_list[i] = NULL;
	}
	dev->n_db = 0;
}
