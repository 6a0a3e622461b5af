// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite xnic_sim_xport: who may talk to whom (issue 11, defect 3).
 * The model's responder checks: an RC/UC responder takes requests only
 * from its connected peer, RC only with the expected PSN; UD checks the
 * Q_Key.  (MR key tags: core_mr_key_test.c.)
 *
 * The model's sources are compiled into this module by
 * kunit/xnic_sim_test.c; this file calls the transport's entry point,
 * xnic_sim_sq_exec(), directly on two cabled devices that have no engine
 * threads, with objects made by hand, so every request's outcome is known
 * when the call returns (fixture: xnic_sim_fixture.h).
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/io.h>
#include <linux/random.h>
#include "xnic_sim_fixture.h"

#define KT_PD		1
#define KT_PSN		0x123456
#define KT_RQ_LOG	3
#define KT_RQ_SHIFT	6		/* 64-byte receive WQEs */
#define KT_CQ_LOG	4
#define KT_ALL_KEY	0x100		/* index 1: an MR over all memory */
#define KT_MR_KEY	(2 << 8 | 0x5c)	/* index 2: the victim's one page */
#define KT_MR_IOVA	0x7f0000000000ULL
#define KT_QKEY		0x11111111
#define KT_REMOTE	(XNIC_ACCESS_LOCAL_WRITE | XNIC_ACCESS_REMOTE_WRITE | \
			 XNIC_ACCESS_REMOTE_READ | XNIC_ACCESS_REMOTE_ATOMIC)
#define KT_MAX_TRIES	16

struct kt_qp {
	struct xnic_sim_qp q;
	struct xnic_rwqe *rq;		/* CPU view of the receive ring */
	struct xnic_qp_dbrec *rec;
	u32 rq_pi;
};

struct kt_env {
	struct kunit *test;
	struct kt_sim_pair p;		/* KT_ALL_KEY, KT_MR_KEY on device 1 */
	u8 *rbuf;			/* receive buffers, device 1 */
	u64 rbuf_dma;
	u8 *lbuf;			/* data sent, device 0 */
	u64 lbuf_dma;
	struct xnic_sge lsge;
};

static const struct kt_sim_pair_cfg kt_pair_cfg = {
	.pd = KT_PD, .cq_log = KT_CQ_LOG, .all_key = KT_ALL_KEY,
	.mr_key = KT_MR_KEY, .mr_access = KT_REMOTE, .mr_iova = KT_MR_IOVA,
};

/* Two cabled devices, a CQ, a doorbell page and an all-memory MR each. */
static struct kt_env *kt_env(struct kunit *test)
{
	struct kt_env *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, e);
	e->test = test;
	kt_sim_pair_init(test, &e->p, &kt_pair_cfg);
	e->rbuf = kt_dma(test, 4 * PAGE_SIZE, &e->rbuf_dma);
	e->lbuf = kt_dma(test, 4 * PAGE_SIZE, &e->lbuf_dma);
	for (i = 0; i < 4 * PAGE_SIZE; i++)
		e->lbuf[i] = i * 7 + 1;
	return e;
}

/* A QP in RTS on device @dev, of no connection yet. */
static struct kt_qp *kt_qp(struct kt_env *e, int dev, u32 qpn, u8 type)
{
	struct kunit *test = e->test;
	struct kt_qp *x = kunit_kzalloc(test, sizeof(*x), GFP_KERNEL);
	struct xnic_sim_qp *q;

	KUNIT_ASSERT_NOT_NULL(test, x);
	q = &x->q;
	q->dev = e->p.d[dev];
	q->qpn = qpn;
	q->pdn = KT_PD;
	q->type = type;
	q->state = XNIC_QPS_RTS;
	q->scq = &e->p.cq[dev];
	q->rcq = &e->p.cq[dev];
	q->db = &e->p.db[dev];
	q->slot = qpn % 64;
	x->rq = kt_dma(test, 1U << (KT_RQ_LOG + KT_RQ_SHIFT), &q->rq_addr);
	q->rq_log = KT_RQ_LOG;
	q->rq_shift = KT_RQ_SHIFT;
	x->rec = kt_dma(test, sizeof(*x->rec), &q->dbrec);
	q->mtu = XNIC_MTU_1024;
	q->timeout = 1;
	q->retry_cnt = 2;
	q->rnr_retry = 2;
	q->min_rnr_timer = 1;
	q->max_rd_atomic = 16;
	q->max_dest_rd_atomic = 16;
	q->port = 1;
	q->qkey = KT_QKEY;
	q->access = KT_REMOTE;
	spin_lock_init(&q->lock);
	INIT_LIST_HEAD(&q->active_node);
	INIT_LIST_HEAD(&q->err_node);
	KUNIT_ASSERT_EQ(test, xnic_sim_tbl_insert(&q->dev->qps, qpn, q), 0);
	return x;
}

/* @a's side of a connection to @b (RTR: address, QPN, both PSNs). */
static void kt_connect(struct kt_qp *a, struct kt_qp *b)
{
	a->q.rdev = b->q.dev;
	memcpy(a->q.dgid, b->q.dev->gid, sizeof(a->q.dgid));
	a->q.dest_qpn = b->q.qpn;
	a->q.sq_psn = KT_PSN;
	a->q.rq_psn = KT_PSN;
}

/* A receive WQE of @len bytes at @off in the receive buffer. */
static void kt_post_recv(struct kt_env *e, struct kt_qp *x, u64 wr_id,
			 u32 off, u32 len)
{
	u32 slot = x->rq_pi & ((1U << KT_RQ_LOG) - 1);
	struct xnic_rwqe *h = (void *)x->rq + (slot << KT_RQ_SHIFT);
	struct xnic_sge *sge = (void *)(h + 1);

	h->wr_id = cpu_to_le64(wr_id);
	h->num_sge = 1;
	sge->addr = cpu_to_le64(e->rbuf_dma + off);
	sge->length = cpu_to_le32(len);
	sge->lkey = cpu_to_le32(KT_ALL_KEY);
	h->owner = (x->rq_pi >> KT_RQ_LOG) & 1;
	x->rq_pi++;
	x->rec->rq_pi = cpu_to_le32(x->rq_pi);
}

/* Execute a send WQE of @x once, as its engine would.  Return: XNIC_SIM_*. */
static int kt_try(struct kt_env *e, struct kt_qp *x, u8 op, u32 len,
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
		e->lsge.lkey = cpu_to_le32(KT_ALL_KEY);
		w->num_sge = 1;
		w->sge = &e->lsge;
	}
	w->remote_addr = raddr;
	w->rkey = rkey;
	w->compare_add = 1;			/* atomics change memory */
	w->swap = 1;
	w->qkey = rkey;				/* UD */
	w->dest_qpn = (u32)raddr;		/* UD */
	memcpy(w->dgid, e->p.d[1]->gid, sizeof(w->dgid));
	return xnic_sim_sq_exec(d, &x->q, status, &byte_len);
}

/*
 * Execute a new send WQE of @x to its end, retries included (their waits
 * skipped).  Return: its status; @tries: executions.
 */
static u8 kt_exec(struct kt_env *e, struct kt_qp *x, u8 op, u32 len,
		  u64 raddr, u32 rkey, int *tries)
{
	u8 status = 0xff;
	int r, n = 0;

	x->q.retry_count = 0;
	x->q.rnr_count = 0;
	do {
		r = kt_try(e, x, op, len, raddr, rkey, &status);
		n++;
	} while (r == XNIC_SIM_WAIT && n < KT_MAX_TRIES);
	KUNIT_EXPECT_EQ(e->test, r, (int)XNIC_SIM_DONE);
	if (tries)
		*tries = n;
	return status;
}

/* CQEs the model wrote into a device's CQ. */
static u32 kt_cqes(struct kt_env *e, int dev)
{
	return e->p.cq[dev].pi;
}

/* The victim's state after an intrusion: nothing of it changed. */
static void kt_untouched(struct kt_env *e, struct kt_qp *v, u32 rq_psn,
			 const char *what)
{
	struct kunit *test = e->test;

	KUNIT_EXPECT_EQ_MSG(test, v->q.state, XNIC_QPS_RTS, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, v->q.rq_ci, 0U, "%s: receive taken", what);
	KUNIT_EXPECT_EQ_MSG(test, v->q.rq_psn, rq_psn, "%s: rq_psn", what);
	KUNIT_EXPECT_EQ_MSG(test, kt_cqes(e, 1), 0U, "%s: CQE written",
			    what);
	KUNIT_EXPECT_EQ_MSG(test, (u64)atomic64_read(&v->q.rx_ops), 0ULL,
			    "%s: rx_ops", what);
	KUNIT_EXPECT_TRUE_MSG(test, e->p.mr.valid, "%s: MR invalidated", what);
	KUNIT_EXPECT_NULL_MSG(test, memchr_inv(e->p.mr_buf, 0, PAGE_SIZE),
			      "%s: MR written", what);
	KUNIT_EXPECT_NULL_MSG(test, memchr_inv(e->rbuf, 0, 4 * PAGE_SIZE),
			      "%s: receive buffer written", what);
}

/* The connected peer's SEND and WRITE still work. */
static void kt_peer_works(struct kt_env *e, struct kt_qp *p, struct kt_qp *v,
			  u32 rq_psn)
{
	struct kunit *test = e->test;
	struct xnic_cqe *c = phys_to_virt(e->p.cq[1].ring);

	KUNIT_EXPECT_EQ(test, kt_exec(e, p, XNIC_OP_SEND, 64, 0, 0, NULL),
			XNIC_CQE_SUCCESS);
	KUNIT_EXPECT_EQ(test, v->q.rq_ci, 1U);
	KUNIT_EXPECT_EQ(test, kt_cqes(e, 1), 1U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c[0].wr_id), 0xa1ULL);
	KUNIT_EXPECT_EQ(test, c[0].status, XNIC_CQE_SUCCESS);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c[0].src_qp), p->q.qpn);
	KUNIT_EXPECT_EQ(test, memcmp(e->rbuf, e->lbuf, 64), 0);
	KUNIT_EXPECT_EQ(test, v->q.rq_psn, (rq_psn + 1) & 0xffffff);
	KUNIT_EXPECT_EQ(test, kt_exec(e, p, XNIC_OP_RDMA_WRITE, 128,
				      KT_MR_IOVA + 256, KT_MR_KEY, NULL),
			XNIC_CQE_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(e->p.mr_buf + 256, e->lbuf, 128), 0);
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
		{ XNIC_OP_RDMA_WRITE, 64, KT_MR_KEY },
		{ XNIC_OP_RDMA_WRITE, 64, KT_MR_KEY ^ 1 },	/* bad key */
		{ XNIC_OP_RDMA_WRITE_WITH_IMM, 64, KT_MR_KEY },
		{ XNIC_OP_RDMA_READ, 64, KT_MR_KEY },
		{ XNIC_OP_ATOMIC_FETCH_AND_ADD, 8, KT_MR_KEY },
	};
	struct kt_env *e = kt_env(test);
	struct kt_qp *p = kt_qp(e, 0, 10, XNIC_QPT_RC);
	struct kt_qp *v = kt_qp(e, 1, 20, XNIC_QPT_RC);
	struct kt_qp *in[3];
	u64 drops = 0;
	int i, k, tries;

	kt_connect(p, v);
	kt_connect(v, p);
	in[0] = kt_qp(e, 0, 11, XNIC_QPT_RC);
	in[1] = kt_qp(e, 1, 10, XNIC_QPT_RC);
	in[2] = kt_qp(e, 1, 21, XNIC_QPT_RC);
	for (k = 0; k < 3; k++)
		kt_connect(in[k], v);
	/* the victim's receive */
	kt_post_recv(e, v, 0xa1, 0, 256);
	for (k = 0; k < 3; k++) {
		for (i = 0; i < ARRAY_SIZE(ops); i++) {
			KUNIT_EXPECT_EQ_MSG(test,
					    kt_exec(e, in[k], ops[i].op,
						    ops[i].len, KT_MR_IOVA,
						    ops[i].rkey, &tries),
					    XNIC_CQE_RETRY_EXC_ERR,
					    "intruder %d, opcode %u", k,
					    ops[i].op);
			/* the first try and retry_cnt retries */
			KUNIT_EXPECT_EQ(test, tries, 3);
			drops += tries;
			KUNIT_EXPECT_EQ(test,
					kt_sim_ctr(e->p.d[1], XNIC_SIM_CTR_rx_drop_bad_src),
					drops);
			kt_untouched(e, v, KT_PSN, "after an intruder");
		}
	}
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(e->p.d[1], XNIC_SIM_CTR_rx_drop_psn), 0ULL);
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(e->p.d[1], XNIC_SIM_CTR_rx_send), 0ULL);
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(e->p.d[1], XNIC_SIM_CTR_rx_write), 0ULL);
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(e->p.d[1], XNIC_SIM_CTR_rx_read), 0ULL);
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(e->p.d[1], XNIC_SIM_CTR_rx_atomic), 0ULL);

	kt_peer_works(e, p, v, KT_PSN);
}

/*
 * A UC responder drops a stranger's SEND and WRITE the same way; a UC
 * requester is never told (its WQE succeeds, the message is lost).
 */
static void xport_uc_wrong_source(struct kunit *test)
{
	struct kt_env *e = kt_env(test);
	struct kt_qp *p = kt_qp(e, 0, 10, XNIC_QPT_UC);
	struct kt_qp *v = kt_qp(e, 1, 20, XNIC_QPT_UC);
	struct kt_qp *in = kt_qp(e, 0, 11, XNIC_QPT_UC);

	kt_connect(p, v);
	kt_connect(v, p);
	kt_connect(in, v);
	kt_post_recv(e, v, 0xa1, 0, 256);
	KUNIT_EXPECT_EQ(test, kt_exec(e, in, XNIC_OP_SEND, 64, 0, 0, NULL),
			XNIC_CQE_SUCCESS);
	KUNIT_EXPECT_EQ(test, kt_exec(e, in, XNIC_OP_RDMA_WRITE, 64,
				      KT_MR_IOVA, KT_MR_KEY, NULL),
			XNIC_CQE_SUCCESS);
	KUNIT_EXPECT_EQ(test, kt_exec(e, in, XNIC_OP_RDMA_WRITE, 64,
				      KT_MR_IOVA, KT_MR_KEY ^ 1, NULL),
			XNIC_CQE_SUCCESS);
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(e->p.d[1], XNIC_SIM_CTR_rx_drop_bad_src), 3ULL);
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(e->p.d[0], XNIC_SIM_CTR_uc_drops), 3ULL);
	kt_untouched(e, v, KT_PSN, "UC intruder");
	kt_peer_works(e, p, v, KT_PSN);
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
	struct kt_env *e = kt_env(test);
	struct kt_qp *p = kt_qp(e, 0, 10, XNIC_QPT_RC);
	struct kt_qp *v = kt_qp(e, 1, 20, XNIC_QPT_RC);
	int i, tries;
	u32 psn;
	u8 st;

	kt_connect(p, v);
	kt_connect(v, p);
	kt_post_recv(e, v, 0xa1, 0, 256);
	for (i = 0; i < ARRAY_SIZE(off); i++) {
		p->q.sq_psn = (KT_PSN + off[i]) & 0xffffff;
		KUNIT_EXPECT_EQ_MSG(test, kt_exec(e, p, XNIC_OP_SEND, 64, 0, 0,
						  &tries),
				    XNIC_CQE_RETRY_EXC_ERR, "PSN %+d", off[i]);
		KUNIT_EXPECT_EQ(test, tries, 3);
		KUNIT_EXPECT_EQ_MSG(test, kt_exec(e, p, XNIC_OP_RDMA_WRITE, 64,
						  KT_MR_IOVA, KT_MR_KEY ^ 1,
						  NULL),
				    XNIC_CQE_RETRY_EXC_ERR, "PSN %+d", off[i]);
		KUNIT_EXPECT_EQ(test, kt_sim_ctr(e->p.d[1], XNIC_SIM_CTR_rx_drop_psn),
				6ULL * (i + 1));
		kt_untouched(e, v, KT_PSN, "out of sequence");
	}
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(e->p.d[1], XNIC_SIM_CTR_rx_drop_bad_src), 0ULL);

	/* in sequence again: everything works, PSNs advance together */
	p->q.sq_psn = KT_PSN;
	kt_peer_works(e, p, v, KT_PSN);
	psn = (KT_PSN + 2) & 0xffffff;
	KUNIT_EXPECT_EQ(test, p->q.sq_psn, psn);
	/* 4 KiB at MTU 1024: 4 packets */
	KUNIT_EXPECT_EQ(test, kt_exec(e, p, XNIC_OP_RDMA_WRITE, PAGE_SIZE,
				      KT_MR_IOVA, KT_MR_KEY, NULL),
			XNIC_CQE_SUCCESS);
	psn = (psn + 4) & 0xffffff;
	KUNIT_EXPECT_EQ(test, v->q.rq_psn, psn);
	KUNIT_EXPECT_EQ(test, p->q.sq_psn, psn);
	KUNIT_EXPECT_EQ(test, kt_exec(e, p, XNIC_OP_RDMA_READ, 2048,
				      KT_MR_IOVA, KT_MR_KEY, NULL),
			XNIC_CQE_SUCCESS);
	psn = (psn + 2) & 0xffffff;
	KUNIT_EXPECT_EQ(test, v->q.rq_psn, psn);
	/* no receive: an RNR NAK; once one is posted the retry is in order */
	p->q.rnr_count = 0;
	KUNIT_EXPECT_EQ(test, kt_try(e, p, XNIC_OP_SEND, 64, 0, 0, &st),
			(int)XNIC_SIM_WAIT);
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(e->p.d[0], XNIC_SIM_CTR_rnr_naks), 1ULL);
	KUNIT_EXPECT_EQ(test, v->q.rq_psn, psn);
	KUNIT_EXPECT_EQ(test, p->q.sq_psn, psn);
	kt_post_recv(e, v, 0xa2, 1024, 256);
	KUNIT_EXPECT_EQ(test, kt_try(e, p, XNIC_OP_SEND, 64, 0, 0, &st),
			(int)XNIC_SIM_DONE);
	KUNIT_EXPECT_EQ(test, st, XNIC_CQE_SUCCESS);
	psn = (psn + 1) & 0xffffff;
	KUNIT_EXPECT_EQ(test, v->q.rq_psn, psn);
	KUNIT_EXPECT_EQ(test, v->q.rq_ci, 2U);
	KUNIT_EXPECT_EQ(test, v->q.state, XNIC_QPS_RTS);
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(e->p.d[1], XNIC_SIM_CTR_rx_drop_psn), 24ULL);
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(e->p.d[0], XNIC_SIM_CTR_psn_mismatch), 0ULL);
}

/* UC has no retries: a gap loses a message, the next one resynchronises. */
static void xport_uc_psn(struct kunit *test)
{
	struct kt_env *e = kt_env(test);
	struct kt_qp *p = kt_qp(e, 0, 10, XNIC_QPT_UC);
	struct kt_qp *v = kt_qp(e, 1, 20, XNIC_QPT_UC);

	kt_connect(p, v);
	kt_connect(v, p);
	p->q.sq_psn = KT_PSN + 3;
	KUNIT_EXPECT_EQ(test, kt_exec(e, p, XNIC_OP_RDMA_WRITE, 64,
				      KT_MR_IOVA, KT_MR_KEY, NULL),
			XNIC_CQE_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(e->p.mr_buf, e->lbuf, 64), 0);
	KUNIT_EXPECT_EQ(test, v->q.rq_psn, KT_PSN + 4U);
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(e->p.d[0], XNIC_SIM_CTR_psn_mismatch), 1ULL);
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(e->p.d[1], XNIC_SIM_CTR_rx_drop_psn), 0ULL);
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
		{ KT_QKEY, KT_QKEY, true },
		{ KT_QKEY, KT_QKEY ^ 1, false },
		{ KT_QKEY, 0x80000000, true },
		{ KT_QKEY, KT_QKEY | 0x80000000, true },
		{ 0x2222, 0x80000000, false },
		{ 0x2222, KT_QKEY, true },
	};
	struct kt_env *e = kt_env(test);
	struct kt_qp *s = kt_qp(e, 0, 10, XNIC_QPT_UD);
	struct kt_qp *r = kt_qp(e, 1, 20, XNIC_QPT_UD);
	u32 n = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		s->q.qkey = c[i].own;
		kt_post_recv(e, r, 0xd0 + i, 0, 256);
		KUNIT_EXPECT_EQ(test, kt_exec(e, s, XNIC_OP_SEND, 64, r->q.qpn,
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
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(e->p.d[0], XNIC_SIM_CTR_ud_drop_qkey), 2ULL);
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

kunit_test_suite(xport_suite);
