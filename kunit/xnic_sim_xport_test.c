// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of who may talk to whom (issue 11, defect 3):
 *   xnic_sim_xport     the model's responder checks: an RC/UC responder
 *                      takes requests only from its connected peer, RC
 *                      only with the expected PSN; UD checks the Q_Key
 *   xrdma_core_mr_key  MR key tags are random (drivers/core/mr.c)
 *
 * The model's sources are compiled into this module by
 * kunit/xnic_sim_test.c; this file calls the transport's entry point,
 * xnic_sim_sq_exec(), directly on two cabled devices that have no engine
 * threads, with objects made by hand, so every request's outcome is known
 * when the call returns.  Ordinary kernel pages stand in for DMA memory.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/io.h>
#include <linux/random.h>
#include "../drivers/hw/xnic/sim/xnic_sim.h"
#include "fake_driver.h"
#include "core_priv.h"

#define XT_PD		1
#define XT_PSN		0x123456
#define XT_RQ_LOG	3
#define XT_RQ_SHIFT	6		/* 64-byte receive WQEs */
#define XT_CQ_LOG	4
#define XT_ALL_KEY	0x100		/* index 1: an MR over all memory */
#define XT_MR_KEY	(2 << 8 | 0x5c)	/* index 2: the victim's one page */
#define XT_MR_IOVA	0x7f0000000000ULL
#define XT_QKEY		0x11111111
#define XT_REMOTE	(XNIC_ACCESS_LOCAL_WRITE | XNIC_ACCESS_REMOTE_WRITE | \
			 XNIC_ACCESS_REMOTE_READ | XNIC_ACCESS_REMOTE_ATOMIC)
#define XT_MAX_TRIES	16

/* Zeroed pages, freed after the test. */
struct xt_pages {
	unsigned long va;
	unsigned int order;
};

static void xt_pages_free(struct kunit_resource *res)
{
	struct xt_pages *p = res->data;

	free_pages(p->va, p->order);
	kfree(p);
}

static int xt_pages_init(struct kunit_resource *res, void *ctx)
{
	res->data = ctx;
	return 0;
}

static void *xt_dma(struct kunit *test, size_t size, u64 *dma)
{
	struct xt_pages *p = kzalloc(sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->order = get_order(size);
	p->va = __get_free_pages(GFP_KERNEL | __GFP_ZERO, p->order);
	if (!p->va)
		kfree(p);
	KUNIT_ASSERT_NE(test, p->va, 0UL);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, xt_pages_init,
							 xt_pages_free,
							 GFP_KERNEL, p));
	*dma = virt_to_phys((void *)p->va);
	return (void *)p->va;
}

struct xt_qp {
	struct xnic_sim_qp q;
	struct xnic_rwqe *rq;		/* CPU view of the receive ring */
	struct xnic_qp_dbrec *rec;
	u32 rq_pi;
};

struct xt_env {
	struct kunit *test;
	struct xnic_sim_dev *d[2];
	struct xnic_sim_cq cq[2];
	struct xnic_cq_dbrec *cq_rec[2];
	struct xnic_sim_db db[2];
	struct xnic_sim_mr all[2];	/* XT_ALL_KEY on each device */
	struct xnic_sim_mr mr;		/* XT_MR_KEY on device 1 */
	u64 mr_mtt;
	u8 *mr_buf;
	u8 *rbuf;			/* receive buffers, device 1 */
	u64 rbuf_dma;
	u8 *lbuf;			/* data sent, device 0 */
	u64 lbuf_dma;
	struct xnic_sge lsge;
};

static void xt_devs_free(struct kunit_resource *res)
{
	struct xt_env *e = res->data;
	int i;

	for (i = 0; i < 2; i++)
		if (e->d[i])
			xnic_sim_dev_free(e->d[i]);
}

static int xt_devs_init(struct kunit_resource *res, void *ctx)
{
	res->data = ctx;
	return 0;
}

static u64 xt_ctr(struct xnic_sim_dev *d, enum xnic_sim_ctr c)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(d->ctr, cpu)->v[c];
	return sum;
}

/* Two cabled devices, a CQ, a doorbell page and an all-memory MR each. */
static struct xt_env *xt_env(struct kunit *test)
{
	struct xt_env *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, e);
	e->test = test;
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, xt_devs_init,
							 xt_devs_free,
							 GFP_KERNEL, e));
	for (i = 0; i < 2; i++) {
		struct xnic_sim_dev *d = xnic_sim_dev_alloc(i);
		struct xnic_sim_cq *cq = &e->cq[i];
		struct xnic_sim_mr *all = &e->all[i];

		KUNIT_ASSERT_NOT_NULL(test, d);
		e->d[i] = d;
		/* a kick (a QP set to ERR rings its doorbell) wakes us */
		d->engine = current;
		cq->dev = d;
		cq->cqn = 1;
		cq->log = XT_CQ_LOG;
		xt_dma(test, sizeof(struct xnic_cqe) << XT_CQ_LOG, &cq->ring);
		e->cq_rec[i] = xt_dma(test, sizeof(struct xnic_cq_dbrec),
				      &cq->dbrec);
		spin_lock_init(&cq->lock);
		KUNIT_ASSERT_EQ(test, xnic_sim_tbl_insert(&d->cqs, 1, cq), 0);
		xt_dma(test, XNIC_DB_PAGE_SIZE, &e->db[i].addr);
		all->key = XT_ALL_KEY;
		all->pdn = XT_PD;
		all->access = XNIC_ACCESS_LOCAL_WRITE;
		all->flags = XNIC_MR_F_ALL;
		all->valid = true;
		KUNIT_ASSERT_EQ(test, xnic_sim_tbl_insert(&d->mrs,
							  XT_ALL_KEY >> 8,
							  all), 0);
	}
	e->d[0]->peer = e->d[1];
	e->d[1]->peer = e->d[0];

	e->mr_buf = xt_dma(test, PAGE_SIZE, &e->mr_mtt);
	e->mr.key = XT_MR_KEY;
	e->mr.pdn = XT_PD;
	e->mr.access = XT_REMOTE;
	e->mr.valid = true;
	e->mr.page_shift = PAGE_SHIFT;
	e->mr.npages = 1;
	e->mr.max_pages = 1;
	e->mr.iova = XT_MR_IOVA;
	e->mr.length = PAGE_SIZE;
	e->mr.mtt = &e->mr_mtt;
	KUNIT_ASSERT_EQ(test, xnic_sim_tbl_insert(&e->d[1]->mrs,
						  XT_MR_KEY >> 8, &e->mr), 0);
	e->rbuf = xt_dma(test, 4 * PAGE_SIZE, &e->rbuf_dma);
	e->lbuf = xt_dma(test, 4 * PAGE_SIZE, &e->lbuf_dma);
	for (i = 0; i < 4 * PAGE_SIZE; i++)
		e->lbuf[i] = i * 7 + 1;
	return e;
}

/* A QP in RTS on device @dev, of no connection yet. */
static struct xt_qp *xt_qp(struct xt_env *e, int dev, u32 qpn, u8 type)
{
	struct kunit *test = e->test;
	struct xt_qp *x = kunit_kzalloc(test, sizeof(*x), GFP_KERNEL);
	struct xnic_sim_qp *q;

	KUNIT_ASSERT_NOT_NULL(test, x);
	q = &x->q;
	q->dev = e->d[dev];
	q->qpn = qpn;
	q->pdn = XT_PD;
	q->type = type;
	q->state = XNIC_QPS_RTS;
	q->scq = &e->cq[dev];
	q->rcq = &e->cq[dev];
	q->db = &e->db[dev];
	q->slot = qpn % 64;
	x->rq = xt_dma(test, 1U << (XT_RQ_LOG + XT_RQ_SHIFT), &q->rq_addr);
	q->rq_log = XT_RQ_LOG;
	q->rq_shift = XT_RQ_SHIFT;
	x->rec = xt_dma(test, sizeof(*x->rec), &q->dbrec);
	q->mtu = XNIC_MTU_1024;
	q->timeout = 1;
	q->retry_cnt = 2;
	q->rnr_retry = 2;
	q->min_rnr_timer = 1;
	q->max_rd_atomic = 16;
	q->max_dest_rd_atomic = 16;
	q->port = 1;
	q->qkey = XT_QKEY;
	q->access = XT_REMOTE;
	spin_lock_init(&q->lock);
	INIT_LIST_HEAD(&q->active_node);
	INIT_LIST_HEAD(&q->err_node);
	KUNIT_ASSERT_EQ(test, xnic_sim_tbl_insert(&q->dev->qps, qpn, q), 0);
	return x;
}

/* @a's side of a connection to @b (RTR: address, QPN, both PSNs). */
static void xt_connect(struct xt_qp *a, struct xt_qp *b)
{
	a->q.rdev = b->q.dev;
	memcpy(a->q.dgid, b->q.dev->gid, sizeof(a->q.dgid));
	a->q.dest_qpn = b->q.qpn;
	a->q.sq_psn = XT_PSN;
	a->q.rq_psn = XT_PSN;
}

/* A receive WQE of @len bytes at @off in the receive buffer. */
static void xt_post_recv(struct xt_env *e, struct xt_qp *x, u64 wr_id,
			 u32 off, u32 len)
{
	u32 slot = x->rq_pi & ((1U << XT_RQ_LOG) - 1);
	struct xnic_rwqe *h = (void *)x->rq + (slot << XT_RQ_SHIFT);
	struct xnic_sge *sge = (void *)(h + 1);

	h->wr_id = cpu_to_le64(wr_id);
	h->num_sge = 1;
	sge->addr = cpu_to_le64(e->rbuf_dma + off);
	sge->length = cpu_to_le32(len);
	sge->lkey = cpu_to_le32(XT_ALL_KEY);
	h->owner = (x->rq_pi >> XT_RQ_LOG) & 1;
	x->rq_pi++;
	x->rec->rq_pi = cpu_to_le32(x->rq_pi);
}

/* Execute a send WQE of @x once, as its engine would.  Return: XS_*. */
static int xt_try(struct xt_env *e, struct xt_qp *x, u8 op, u32 len,
		  u64 raddr, u32 rkey, u8 *status)
{
	struct xnic_sim_dev *d = x->q.dev;
	struct xnic_sim_swqe *w = &d->scr->w;
	u32 byte_len;

	memset(w, 0, sizeof(*w));
	w->opcode = op;
	w->flags = XNIC_WQE_SIGNALED;
	w->wr_id = 0x77;
	/* inline data for SEND and WRITE; READ and atomics need an SGE */
	if (len <= XNIC_SIM_MAX_INLINE &&
	    (xnic_sim_op_is_send(op) || op == XNIC_OP_RDMA_WRITE ||
	     op == XNIC_OP_RDMA_WRITE_WITH_IMM)) {
		w->flags |= XNIC_WQE_INLINE;
		w->inline_len = len;
		w->inline_data = e->lbuf;
	} else {
		e->lsge.addr = cpu_to_le64(e->lbuf_dma);
		e->lsge.length = cpu_to_le32(len);
		e->lsge.lkey = cpu_to_le32(XT_ALL_KEY);
		w->num_sge = 1;
		w->sge = &e->lsge;
	}
	w->remote_addr = raddr;
	w->rkey = rkey;
	w->compare_add = 1;			/* atomics change memory */
	w->swap = 1;
	w->qkey = rkey;				/* UD */
	w->dest_qpn = (u32)raddr;		/* UD */
	memcpy(w->dgid, e->d[1]->gid, sizeof(w->dgid));
	return xnic_sim_sq_exec(d, &x->q, status, &byte_len);
}

/*
 * Execute a new send WQE of @x to its end, retries included (their waits
 * skipped).  Return: its status; @tries: executions.
 */
static u8 xt_exec(struct xt_env *e, struct xt_qp *x, u8 op, u32 len,
		  u64 raddr, u32 rkey, int *tries)
{
	u8 status = 0xff;
	int r, n = 0;

	x->q.retry_count = 0;
	x->q.rnr_count = 0;
	do {
		r = xt_try(e, x, op, len, raddr, rkey, &status);
		n++;
	} while (r == XS_WAIT && n < XT_MAX_TRIES);
	KUNIT_EXPECT_EQ(e->test, r, (int)XS_DONE);
	if (tries)
		*tries = n;
	return status;
}

/* CQEs the model wrote into a device's CQ. */
static u32 xt_cqes(struct xt_env *e, int dev)
{
	return e->cq[dev].pi;
}

/* The victim's state after an intrusion: nothing of it changed. */
static void xt_untouched(struct xt_env *e, struct xt_qp *v, u32 rq_psn,
			 const char *what)
{
	struct kunit *test = e->test;

	KUNIT_EXPECT_EQ_MSG(test, v->q.state, XNIC_QPS_RTS, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, v->q.rq_ci, 0U, "%s: receive taken", what);
	KUNIT_EXPECT_EQ_MSG(test, v->q.rq_psn, rq_psn, "%s: rq_psn", what);
	KUNIT_EXPECT_EQ_MSG(test, xt_cqes(e, 1), 0U, "%s: CQE written",
			    what);
	KUNIT_EXPECT_EQ_MSG(test, (u64)atomic64_read(&v->q.rx_ops), 0ULL,
			    "%s: rx_ops", what);
	KUNIT_EXPECT_TRUE_MSG(test, e->mr.valid, "%s: MR invalidated", what);
	KUNIT_EXPECT_NULL_MSG(test, memchr_inv(e->mr_buf, 0, PAGE_SIZE),
			      "%s: MR written", what);
	KUNIT_EXPECT_NULL_MSG(test, memchr_inv(e->rbuf, 0, 4 * PAGE_SIZE),
			      "%s: receive buffer written", what);
}

/* The connected peer's SEND and WRITE still work. */
static void xt_peer_works(struct xt_env *e, struct xt_qp *p, struct xt_qp *v,
			  u32 rq_psn)
{
	struct kunit *test = e->test;
	struct xnic_cqe *c = phys_to_virt(e->cq[1].ring);

	KUNIT_EXPECT_EQ(test, xt_exec(e, p, XNIC_OP_SEND, 64, 0, 0, NULL),
			XNIC_CQE_SUCCESS);
	KUNIT_EXPECT_EQ(test, v->q.rq_ci, 1U);
	KUNIT_EXPECT_EQ(test, xt_cqes(e, 1), 1U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c[0].wr_id), 0xa1ULL);
	KUNIT_EXPECT_EQ(test, c[0].status, XNIC_CQE_SUCCESS);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c[0].src_qp), p->q.qpn);
	KUNIT_EXPECT_EQ(test, memcmp(e->rbuf, e->lbuf, 64), 0);
	KUNIT_EXPECT_EQ(test, v->q.rq_psn, (rq_psn + 1) & 0xffffff);
	KUNIT_EXPECT_EQ(test, xt_exec(e, p, XNIC_OP_RDMA_WRITE, 128,
				      XT_MR_IOVA + 256, XT_MR_KEY, NULL),
			XNIC_CQE_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(e->mr_buf + 256, e->lbuf, 128), 0);
	KUNIT_EXPECT_EQ(test, v->q.rq_psn, (rq_psn + 2) & 0xffffff);
	KUNIT_EXPECT_EQ(test, v->q.state, XNIC_QPS_RTS);
}

/*
 * SEND, WRITE (with the right rkey and with a wrong one), READ and an
 * atomic from RC QPs connected to the victim, which is not connected to
 * them: on the peer's device with another QPN, on the victim's own device
 * with the peer's QPN, and on the victim's device with another QPN.  All
 * know the victim's QPN, PSN and rkey.  Each request is dropped and
 * counted; the intruder retries and fails with RETRY_EXC_ERR; the victim
 * keeps its state, receive, PSN, CQ and memory; its peer's traffic goes
 * on.
 */
static void xport_rc_wrong_source(struct kunit *test)
{
	static const struct {
		u8 op;
		u32 len;
		u32 rkey;
	} ops[] = {
		{ XNIC_OP_SEND, 64, 0 },
		{ XNIC_OP_SEND_WITH_IMM, 64, 0 },
		{ XNIC_OP_RDMA_WRITE, 64, XT_MR_KEY },
		{ XNIC_OP_RDMA_WRITE, 64, XT_MR_KEY ^ 1 },	/* bad key */
		{ XNIC_OP_RDMA_WRITE_WITH_IMM, 64, XT_MR_KEY },
		{ XNIC_OP_RDMA_READ, 64, XT_MR_KEY },
		{ XNIC_OP_ATOMIC_FETCH_AND_ADD, 8, XT_MR_KEY },
	};
	struct xt_env *e = xt_env(test);
	struct xt_qp *p = xt_qp(e, 0, 10, XNIC_QPT_RC);
	struct xt_qp *v = xt_qp(e, 1, 20, XNIC_QPT_RC);
	struct xt_qp *in[3];
	u64 drops = 0;
	int i, k, tries;

	xt_connect(p, v);
	xt_connect(v, p);
	in[0] = xt_qp(e, 0, 11, XNIC_QPT_RC);
	in[1] = xt_qp(e, 1, 10, XNIC_QPT_RC);
	in[2] = xt_qp(e, 1, 21, XNIC_QPT_RC);
	for (k = 0; k < 3; k++)
		xt_connect(in[k], v);
	/* the victim's receive */
	xt_post_recv(e, v, 0xa1, 0, 256);
	for (k = 0; k < 3; k++) {
		for (i = 0; i < ARRAY_SIZE(ops); i++) {
			KUNIT_EXPECT_EQ_MSG(test,
					    xt_exec(e, in[k], ops[i].op,
						    ops[i].len, XT_MR_IOVA,
						    ops[i].rkey, &tries),
					    XNIC_CQE_RETRY_EXC_ERR,
					    "intruder %d, opcode %u", k,
					    ops[i].op);
			/* the first try and retry_cnt retries */
			KUNIT_EXPECT_EQ(test, tries, 3);
			drops += tries;
			KUNIT_EXPECT_EQ(test,
					xt_ctr(e->d[1], XS_CTR_rx_drop_bad_src),
					drops);
			xt_untouched(e, v, XT_PSN, "after an intruder");
		}
	}
	KUNIT_EXPECT_EQ(test, xt_ctr(e->d[1], XS_CTR_rx_drop_psn), 0ULL);
	KUNIT_EXPECT_EQ(test, xt_ctr(e->d[1], XS_CTR_rx_send), 0ULL);
	KUNIT_EXPECT_EQ(test, xt_ctr(e->d[1], XS_CTR_rx_write), 0ULL);
	KUNIT_EXPECT_EQ(test, xt_ctr(e->d[1], XS_CTR_rx_read), 0ULL);
	KUNIT_EXPECT_EQ(test, xt_ctr(e->d[1], XS_CTR_rx_atomic), 0ULL);

	xt_peer_works(e, p, v, XT_PSN);
}

/*
 * A UC responder drops a stranger's SEND and WRITE the same way; a UC
 * requester is never told (its WQE succeeds, the message is lost).
 */
static void xport_uc_wrong_source(struct kunit *test)
{
	struct xt_env *e = xt_env(test);
	struct xt_qp *p = xt_qp(e, 0, 10, XNIC_QPT_UC);
	struct xt_qp *v = xt_qp(e, 1, 20, XNIC_QPT_UC);
	struct xt_qp *in = xt_qp(e, 0, 11, XNIC_QPT_UC);

	xt_connect(p, v);
	xt_connect(v, p);
	xt_connect(in, v);
	xt_post_recv(e, v, 0xa1, 0, 256);
	KUNIT_EXPECT_EQ(test, xt_exec(e, in, XNIC_OP_SEND, 64, 0, 0, NULL),
			XNIC_CQE_SUCCESS);
	KUNIT_EXPECT_EQ(test, xt_exec(e, in, XNIC_OP_RDMA_WRITE, 64,
				      XT_MR_IOVA, XT_MR_KEY, NULL),
			XNIC_CQE_SUCCESS);
	KUNIT_EXPECT_EQ(test, xt_exec(e, in, XNIC_OP_RDMA_WRITE, 64,
				      XT_MR_IOVA, XT_MR_KEY ^ 1, NULL),
			XNIC_CQE_SUCCESS);
	KUNIT_EXPECT_EQ(test, xt_ctr(e->d[1], XS_CTR_rx_drop_bad_src), 3ULL);
	KUNIT_EXPECT_EQ(test, xt_ctr(e->d[0], XS_CTR_uc_drops), 3ULL);
	xt_untouched(e, v, XT_PSN, "UC intruder");
	xt_peer_works(e, p, v, XT_PSN);
}

/*
 * RC: a request whose PSN is not the one the responder expects (ahead or
 * behind) is dropped and counted, the requester fails with
 * RETRY_EXC_ERR, the responder is untouched; in-order traffic, also of
 * several packets and after RNR retries, keeps both PSNs in step.
 */
static void xport_rc_psn(struct kunit *test)
{
	static const s32 off[] = { 1, -1, 0x800000, -0x7fffff };
	struct xt_env *e = xt_env(test);
	struct xt_qp *p = xt_qp(e, 0, 10, XNIC_QPT_RC);
	struct xt_qp *v = xt_qp(e, 1, 20, XNIC_QPT_RC);
	int i, tries;
	u32 psn;
	u8 st;

	xt_connect(p, v);
	xt_connect(v, p);
	xt_post_recv(e, v, 0xa1, 0, 256);
	for (i = 0; i < ARRAY_SIZE(off); i++) {
		p->q.sq_psn = (XT_PSN + off[i]) & 0xffffff;
		KUNIT_EXPECT_EQ_MSG(test, xt_exec(e, p, XNIC_OP_SEND, 64, 0, 0,
						  &tries),
				    XNIC_CQE_RETRY_EXC_ERR, "PSN %+d", off[i]);
		KUNIT_EXPECT_EQ(test, tries, 3);
		KUNIT_EXPECT_EQ_MSG(test, xt_exec(e, p, XNIC_OP_RDMA_WRITE, 64,
						  XT_MR_IOVA, XT_MR_KEY ^ 1,
						  NULL),
				    XNIC_CQE_RETRY_EXC_ERR, "PSN %+d", off[i]);
		KUNIT_EXPECT_EQ(test, xt_ctr(e->d[1], XS_CTR_rx_drop_psn),
				6ULL * (i + 1));
		xt_untouched(e, v, XT_PSN, "out of sequence");
	}
	KUNIT_EXPECT_EQ(test, xt_ctr(e->d[1], XS_CTR_rx_drop_bad_src), 0ULL);

	/* in sequence again: everything works, PSNs advance together */
	p->q.sq_psn = XT_PSN;
	xt_peer_works(e, p, v, XT_PSN);
	psn = (XT_PSN + 2) & 0xffffff;
	KUNIT_EXPECT_EQ(test, p->q.sq_psn, psn);
	/* 4 KiB at MTU 1024: 4 packets */
	KUNIT_EXPECT_EQ(test, xt_exec(e, p, XNIC_OP_RDMA_WRITE, PAGE_SIZE,
				      XT_MR_IOVA, XT_MR_KEY, NULL),
			XNIC_CQE_SUCCESS);
	psn = (psn + 4) & 0xffffff;
	KUNIT_EXPECT_EQ(test, v->q.rq_psn, psn);
	KUNIT_EXPECT_EQ(test, p->q.sq_psn, psn);
	KUNIT_EXPECT_EQ(test, xt_exec(e, p, XNIC_OP_RDMA_READ, 2048,
				      XT_MR_IOVA, XT_MR_KEY, NULL),
			XNIC_CQE_SUCCESS);
	psn = (psn + 2) & 0xffffff;
	KUNIT_EXPECT_EQ(test, v->q.rq_psn, psn);
	/* no receive: an RNR NAK; once one is posted the retry is in order */
	p->q.rnr_count = 0;
	KUNIT_EXPECT_EQ(test, xt_try(e, p, XNIC_OP_SEND, 64, 0, 0, &st),
			(int)XS_WAIT);
	KUNIT_EXPECT_EQ(test, xt_ctr(e->d[0], XS_CTR_rnr_naks), 1ULL);
	KUNIT_EXPECT_EQ(test, v->q.rq_psn, psn);
	KUNIT_EXPECT_EQ(test, p->q.sq_psn, psn);
	xt_post_recv(e, v, 0xa2, 1024, 256);
	KUNIT_EXPECT_EQ(test, xt_try(e, p, XNIC_OP_SEND, 64, 0, 0, &st),
			(int)XS_DONE);
	KUNIT_EXPECT_EQ(test, st, XNIC_CQE_SUCCESS);
	psn = (psn + 1) & 0xffffff;
	KUNIT_EXPECT_EQ(test, v->q.rq_psn, psn);
	KUNIT_EXPECT_EQ(test, v->q.rq_ci, 2U);
	KUNIT_EXPECT_EQ(test, v->q.state, XNIC_QPS_RTS);
	KUNIT_EXPECT_EQ(test, xt_ctr(e->d[1], XS_CTR_rx_drop_psn), 24ULL);
	KUNIT_EXPECT_EQ(test, xt_ctr(e->d[0], XS_CTR_psn_mismatch), 0ULL);
}

/* UC has no retries: a gap loses a message, the next one resynchronises. */
static void xport_uc_psn(struct kunit *test)
{
	struct xt_env *e = xt_env(test);
	struct xt_qp *p = xt_qp(e, 0, 10, XNIC_QPT_UC);
	struct xt_qp *v = xt_qp(e, 1, 20, XNIC_QPT_UC);

	xt_connect(p, v);
	xt_connect(v, p);
	p->q.sq_psn = XT_PSN + 3;
	KUNIT_EXPECT_EQ(test, xt_exec(e, p, XNIC_OP_RDMA_WRITE, 64,
				      XT_MR_IOVA, XT_MR_KEY, NULL),
			XNIC_CQE_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(e->mr_buf, e->lbuf, 64), 0);
	KUNIT_EXPECT_EQ(test, v->q.rq_psn, XT_PSN + 4U);
	KUNIT_EXPECT_EQ(test, xt_ctr(e->d[0], XS_CTR_psn_mismatch), 1ULL);
	KUNIT_EXPECT_EQ(test, xt_ctr(e->d[1], XS_CTR_rx_drop_psn), 0ULL);
}

/*
 * UD is connectionless: anyone may send, with the responder's Q_Key.  A
 * work request's Q_Key with the high-order bit set stands for the
 * sending QP's own.
 */
static void xport_ud_qkey(struct kunit *test)
{
	static const struct {
		u32 own, wr;
		bool delivered;
	} c[] = {
		{ XT_QKEY, XT_QKEY, true },
		{ XT_QKEY, XT_QKEY ^ 1, false },
		{ XT_QKEY, 0x80000000, true },
		{ XT_QKEY, XT_QKEY | 0x80000000, true },
		{ 0x2222, 0x80000000, false },
		{ 0x2222, XT_QKEY, true },
	};
	struct xt_env *e = xt_env(test);
	struct xt_qp *s = xt_qp(e, 0, 10, XNIC_QPT_UD);
	struct xt_qp *r = xt_qp(e, 1, 20, XNIC_QPT_UD);
	u32 n = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		s->q.qkey = c[i].own;
		xt_post_recv(e, r, 0xd0 + i, 0, 256);
		KUNIT_EXPECT_EQ(test, xt_exec(e, s, XNIC_OP_SEND, 64, r->q.qpn,
					      c[i].wr, NULL),
				XNIC_CQE_SUCCESS);
		n += c[i].delivered;
		KUNIT_EXPECT_EQ_MSG(test, r->q.rq_ci, n,
				    "QP qkey %#x, work request qkey %#x",
				    c[i].own, c[i].wr);
		if (!c[i].delivered) {
			/* take the receive back */
			r->rq_pi--;
			r->rec->rq_pi = cpu_to_le32(r->rq_pi);
		}
	}
	KUNIT_EXPECT_EQ(test, xt_ctr(e->d[0], XS_CTR_ud_drop_qkey), 2ULL);
}

static struct kunit_case xport_cases[] = {
	KUNIT_CASE(xport_rc_wrong_source),
	KUNIT_CASE(xport_uc_wrong_source),
	KUNIT_CASE(xport_rc_psn),
	KUNIT_CASE(xport_uc_psn),
	KUNIT_CASE(xport_ud_qkey),
	{}
};

static struct kunit_suite xport_suite = {
	.name = "xnic_sim_xport",
	.test_cases = xport_cases,
};

/* ------------------------------------------------------------------ */
/* xrdma_core_mr_key                                                   */

/*
 * Tags of 64 keys: at least 8 distinct values and fewer than 16 of the
 * 63 steps an increment by one.  For independent uniform tags (255 or
 * 256 values) the first fails with probability below C(256,7) (7/255)^63
 * < 1e-80, the second below C(63,16) 255^-16 < 1e-23 (each step is an
 * increment with probability at most 1/255, independently of the steps
 * before): never, in practice.  A counter fails the second at once.
 */
#define XK_N		64
#define XK_DISTINCT	8
#define XK_MAX_INCS	16

static void xk_check(struct kunit *test, const u32 *key, u32 index,
		     bool never_same)
{
	DECLARE_BITMAP(seen, 256);
	int i, incs = 0;

	bitmap_zero(seen, 256);
	for (i = 0; i < XK_N; i++) {
		KUNIT_EXPECT_EQ(test, key[i] >> 8, index);
		__set_bit(key[i] & 0xff, seen);
		if (!i)
			continue;
		if (((key[i - 1] + 1) & 0xff) == (key[i] & 0xff))
			incs++;
		if (never_same)
			KUNIT_EXPECT_NE(test, key[i], key[i - 1]);
	}
	KUNIT_EXPECT_GE(test, bitmap_weight(seen, 256), XK_DISTINCT);
	KUNIT_EXPECT_LT(test, incs, XK_MAX_INCS);
}

/* New MRs: the same index gets an unpredictable tag every time. */
static void mr_key_make(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_create(test, "kxk%d");
	u32 key[XK_N];
	int i;

	for (i = 0; i < XK_N; i++)
		key[i] = xrdma_mr_make_key(&fd->ibdev, 0x123456);
	xk_check(test, key, 0x123456, false);
	fake_dev_destroy(fd);
}

/* Registrations through the verbs: each MR's tag is drawn anew. */
static void mr_key_registrations(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_create(test, "kxk%d");
	struct xrdma_pd *pd = xrdma_alloc_pd(&fd->ibdev, 0);
	u32 key[XK_N];
	int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	for (i = 0; i < XK_N; i++) {
		struct xrdma_mr *mr = xrdma_alloc_mr(pd, 4);

		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
		KUNIT_EXPECT_EQ(test, mr->lkey >> 8, mr->res.id);
		KUNIT_EXPECT_EQ(test, mr->rkey, mr->lkey);
		/* the index is the tracked number: keep only the tag */
		key[i] = mr->lkey & 0xff;
		KUNIT_EXPECT_EQ(test, xrdma_dereg_mr(mr), 0);
	}
	xk_check(test, key, 0, false);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(pd), 0);
	fake_dev_destroy(fd);
}

/* Fast-reg re-registration: a random tag, never the current one. */
static void mr_key_next(struct kunit *test)
{
	u32 key[XK_N];
	int i;

	key[0] = 0xabcdef << 8 | 0xff;
	for (i = 1; i < XK_N; i++)
		key[i] = xrdma_mr_next_key(key[i - 1]);
	xk_check(test, key, 0xabcdef, true);
	/* never the same: also over many more draws */
	for (i = 0; i < 4096; i++) {
		u32 k = 0x42 << 8 | (i & 0xff);

		if (xrdma_mr_next_key(k) == k) {
			KUNIT_FAIL(test, "next key of %#x is itself", k);
			break;
		}
	}
}

static struct kunit_case mr_key_cases[] = {
	KUNIT_CASE(mr_key_make),
	KUNIT_CASE(mr_key_registrations),
	KUNIT_CASE(mr_key_next),
	{}
};

static struct kunit_suite mr_key_suite = {
	.name = "xrdma_core_mr_key",
	.test_cases = mr_key_cases,
};

kunit_test_suites(&xport_suite, &mr_key_suite);
