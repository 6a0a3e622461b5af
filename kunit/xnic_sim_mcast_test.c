// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the xnic model's UD multicast (issue 15):
 *   xnic_sim_mcast  the multicast GID rule, the port's group table
 *                   (attach, detach, limits, a QP's removal, snapshots,
 *                   reset: xnic_sim_port.c) and the UD send to a group
 *                   (xnic_sim_req.c): one copy to every attached QP on
 *                   both cabled devices, the GRH, the Q_Key rule per
 *                   receiver, drops counted
 *
 * The model's sources are compiled into this module by
 * kunit/xnic_sim_test.c; the send cases call the transport's entry point,
 * xnic_sim_sq_exec(), directly on two cabled devices without engine
 * threads (as kunit/xnic_sim_xport_test.c does), so every outcome is
 * known when the call returns.  Ordinary kernel pages stand in for DMA
 * memory.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/io.h>
#include "xnic_sim_fixture.h"

#define MT_PD		1
#define MT_QKEY		0x22220000
#define MT_RQ_LOG	3
#define MT_RQ_SHIFT	6
#define MT_CQ_LOG	5
#define MT_ALL_KEY	0x100
#define MT_LEN		100
#define MT_SLOT		256

static const u8 mt_g6[16] = { 0xff, 0x0e, [15] = 0x42 };
static const u8 mt_g4[16] = { [10] = 0xff, [11] = 0xff, 239, 1, 2, 3 };
static const u8 mt_none[16] = { 0xff, 0x0e, 9 };	/* a group nobody has */

/* ------------------------------------------------------------ table */

/* GIDs and whether the model takes them for multicast groups */
struct mt_gid_row {
	u8 gid[16];
	bool mcast;
};

static const struct mt_gid_row mt_gids[] = {
	{ { 0xff }, true },
	{ { 0xff, 0x02, [15] = 1 }, true },
	{ { [10] = 0xff, [11] = 0xff, 224 }, true },
	{ { [10] = 0xff, [11] = 0xff, 239, 255, 255, 255 }, true },
	{ { [10] = 0xff, [11] = 0xff, 223, 255, 255, 255 }, false },
	{ { [10] = 0xff, [11] = 0xff, 240 }, false },
	{ { [10] = 0xff, [11] = 0xfe, 224 }, false },
	{ { [9] = 1, [10] = 0xff, [11] = 0xff, 224 }, false },
	{ { 0xfe, 0x80, [15] = 1 }, false },
	{ { 0 }, false },
};

static void mt_gid_desc(const struct mt_gid_row *r, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%pI6c %s", r->gid,
		 r->mcast ? "multicast" : "not multicast");
}

KUNIT_ARRAY_PARAM(mt_gid, mt_gids, mt_gid_desc);

static void mcast_gid(struct kunit *test)
{
	const struct mt_gid_row *r = test->param_value;

	KUNIT_EXPECT_EQ(test, xnic_sim_gid_mcast(r->gid), r->mcast);
}

static struct xnic_sim_dev *mt_dev(struct kunit *test, int index);

static void mcast_table(struct kunit *test)
{
	struct xnic_sim_dev *d = mt_dev(test, 0);
	u32 q[XNIC_MCG_MAX_QP], i, n;
	u8 g[16], bad[16] = { 0xfe, 0x80 };

	KUNIT_EXPECT_EQ(test, xnic_sim_mcg_attach(d, 5, bad), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_mcg_attach(d, 5, mt_g6), 0);
	/* again: one attachment */
	KUNIT_EXPECT_EQ(test, xnic_sim_mcg_attach(d, 5, mt_g6), 0);
	KUNIT_EXPECT_EQ(test, d->n_mcg, 1U);
	KUNIT_EXPECT_EQ(test, d->n_mcg_att, 1U);
	KUNIT_EXPECT_EQ(test, xnic_sim_mcg_members(d, mt_g6, q), 1U);
	KUNIT_EXPECT_EQ(test, q[0], 5U);
	KUNIT_EXPECT_EQ(test, xnic_sim_mcg_members(d, mt_g4, q), 0U);
	KUNIT_EXPECT_EQ(test, xnic_sim_mcg_detach(d, 6, mt_g6), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_mcg_detach(d, 5, mt_g4), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_mcg_detach(d, 5, mt_g6), 0);
	KUNIT_EXPECT_EQ(test, xnic_sim_mcg_detach(d, 5, mt_g6), -EINVAL);
	KUNIT_EXPECT_EQ(test, d->n_mcg, 0U);
	KUNIT_EXPECT_EQ(test, d->n_mcg_att, 0U);

	/* QPs per group */
	for (i = 0; i < XNIC_MCG_MAX_QP; i++)
		KUNIT_EXPECT_EQ(test, xnic_sim_mcg_attach(d, 100 + i, mt_g6), 0);
	KUNIT_EXPECT_EQ(test, xnic_sim_mcg_attach(d, 99, mt_g6), -ENOSPC);
	KUNIT_EXPECT_EQ(test, xnic_sim_mcg_attach(d, 100, mt_g6), 0);
	n = xnic_sim_mcg_members(d, mt_g6, q);
	KUNIT_EXPECT_EQ(test, n, (u32)XNIC_MCG_MAX_QP);
	KUNIT_EXPECT_EQ(test, xnic_sim_mcg_detach(d, 103, mt_g6), 0);
	n = xnic_sim_mcg_members(d, mt_g6, q);
	KUNIT_EXPECT_EQ(test, n, (u32)XNIC_MCG_MAX_QP - 1);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_NE(test, q[i], 103U);
	xnic_sim_mcg_reset(d);
	KUNIT_EXPECT_EQ(test, d->n_mcg, 0U);
	KUNIT_EXPECT_EQ(test, d->n_mcg_att, 0U);
	KUNIT_EXPECT_EQ(test, xnic_sim_mcg_members(d, mt_g6, q), 0U);

	/* groups */
	memcpy(g, mt_g6, 16);
	for (i = 0; i < XNIC_MCG_MAX; i++) {
		g[14] = i;
		KUNIT_EXPECT_EQ(test, xnic_sim_mcg_attach(d, 7, g), 0);
	}
	g[14] = XNIC_MCG_MAX;
	KUNIT_EXPECT_EQ(test, xnic_sim_mcg_attach(d, 7, g), -ENOSPC);
	g[14] = 3;
	KUNIT_EXPECT_EQ(test, xnic_sim_mcg_attach(d, 8, g), 0);
	/* a QP leaves every group; the groups it was alone in go */
	xnic_sim_mcg_detach_qp(d, 7);
	KUNIT_EXPECT_EQ(test, d->n_mcg, 1U);
	KUNIT_EXPECT_EQ(test, d->n_mcg_att, 1U);
	KUNIT_EXPECT_EQ(test, xnic_sim_mcg_members(d, g, q), 1U);
	KUNIT_EXPECT_EQ(test, q[0], 8U);
	xnic_sim_mcg_detach_qp(d, 8);
	KUNIT_EXPECT_EQ(test, d->n_mcg, 0U);

	/* attachments in all */
	for (i = 0; i < XNIC_MCG_MAX_ATTACH; i++) {
		g[14] = i / XNIC_MCG_MAX_QP;
		KUNIT_ASSERT_EQ(test, xnic_sim_mcg_attach(d, i % XNIC_MCG_MAX_QP,
							  g), 0);
	}
	g[14] = XNIC_MCG_MAX_ATTACH / XNIC_MCG_MAX_QP;
	KUNIT_EXPECT_LT(test, (u32)g[14], (u32)XNIC_MCG_MAX);
	KUNIT_EXPECT_EQ(test, xnic_sim_mcg_attach(d, 0, g), -ENOSPC);
	for (i = 0; i < XNIC_MCG_MAX_QP; i++)
		xnic_sim_mcg_detach_qp(d, i);
	KUNIT_EXPECT_EQ(test, d->n_mcg, 0U);
	KUNIT_EXPECT_EQ(test, d->n_mcg_att, 0U);
}

/* ------------------------------------------------------------ sends */

/* 16 KiB of zeroed memory, freed after the test */
static void *mt_dma(struct kunit *test, u64 *dma)
{
	return kt_dma(test, 4 * PAGE_SIZE, dma);
}

static struct xnic_sim_dev *mt_dev(struct kunit *test, int index)
{
	struct xnic_sim_dev *d = kt_sim_dev(test, index, false);

	d->engine = current;
	return d;
}

struct mt_qp {
	struct xnic_sim_qp q;
	struct xnic_sim_cq cq;		/* its own, for sends and receives */
	struct xnic_cqe *cqes;
	struct xnic_rwqe *rq;
	struct xnic_qp_dbrec *rec;
	u8 *buf;			/* receive slots of MT_SLOT bytes */
	u64 buf_dma;
	u32 rq_pi;
};

struct mt_env {
	struct kunit *test;
	struct xnic_sim_dev *d[2];
	struct xnic_sim_mr all[2];
	struct xnic_sim_db db[2];
	u8 *lbuf;
	u64 lbuf_dma;
};

static struct mt_env *mt_env(struct kunit *test)
{
	struct mt_env *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, e);
	e->test = test;
	for (i = 0; i < 2; i++) {
		e->d[i] = mt_dev(test, i);
		e->all[i].key = MT_ALL_KEY;
		e->all[i].pdn = MT_PD;
		e->all[i].access = XNIC_ACCESS_LOCAL_WRITE;
		e->all[i].flags = XNIC_MR_F_ALL;
		e->all[i].valid = true;
		KUNIT_ASSERT_EQ(test, xnic_sim_tbl_insert(&e->d[i]->mrs,
							  MT_ALL_KEY >> 8,
							  &e->all[i]), 0);
		mt_dma(test, &e->db[i].addr);
	}
	e->d[0]->peer = e->d[1];
	e->d[1]->peer = e->d[0];
	e->lbuf = mt_dma(test, &e->lbuf_dma);
	for (i = 0; i < MT_LEN; i++)
		e->lbuf[i] = i * 3 + 1;
	return e;
}

/* a UD QP in RTS on device @dev with MT_QKEY and receives posted */
static struct mt_qp *mt_qp(struct mt_env *e, int dev, u32 qpn)
{
	struct kunit *test = e->test;
	struct mt_qp *x = kunit_kzalloc(test, sizeof(*x), GFP_KERNEL);
	struct xnic_sim_qp *q;
	u64 dma;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, x);
	x->cq.dev = e->d[dev];
	x->cq.cqn = qpn;
	x->cq.log = MT_CQ_LOG;
	x->cqes = mt_dma(test, &x->cq.ring);
	mt_dma(test, &x->cq.dbrec);
	spin_lock_init(&x->cq.lock);
	q = &x->q;
	q->dev = e->d[dev];
	q->qpn = qpn;
	q->pdn = MT_PD;
	q->type = XNIC_QPT_UD;
	q->state = XNIC_QPS_RTS;
	q->scq = &x->cq;
	q->rcq = &x->cq;
	q->db = &e->db[dev];
	q->slot = qpn % 64;
	x->rq = mt_dma(test, &q->rq_addr);
	q->rq_log = MT_RQ_LOG;
	q->rq_shift = MT_RQ_SHIFT;
	x->rec = mt_dma(test, &q->dbrec);
	q->mtu = XNIC_MTU_1024;
	q->port = 1;
	q->qkey = MT_QKEY;
	spin_lock_init(&q->lock);
	INIT_LIST_HEAD(&q->active_node);
	INIT_LIST_HEAD(&q->err_node);
	KUNIT_ASSERT_EQ(test, xnic_sim_tbl_insert(&q->dev->qps, qpn, q), 0);
	x->buf = mt_dma(test, &x->buf_dma);
	dma = x->buf_dma;
	for (i = 0; i < (1U << MT_RQ_LOG); i++, dma += MT_SLOT) {
		struct xnic_rwqe *h = (void *)x->rq + (i << MT_RQ_SHIFT);
		struct xnic_sge *sge = (void *)(h + 1);

		h->wr_id = cpu_to_le64(i);
		h->num_sge = 1;
		sge->addr = cpu_to_le64(dma);
		sge->length = cpu_to_le32(MT_SLOT);
		sge->lkey = cpu_to_le32(MT_ALL_KEY);
	}
	x->rq_pi = 1U << MT_RQ_LOG;
	x->rec->rq_pi = cpu_to_le32(x->rq_pi);
	return x;
}

/* a SEND of MT_LEN inline bytes from @s to QPN @dqpn at @dgid */
static void mt_send(struct mt_env *e, struct mt_qp *s, u32 dqpn,
		    const u8 *dgid, u32 qkey)
{
	struct xnic_sim_dev *d = s->q.dev;
	struct xnic_sim_swqe *w = &d->scr->w;
	u32 byte_len;
	u8 status = 0xff;

	memset(w, 0, sizeof(*w));
	w->opcode = XNIC_OP_SEND_WITH_IMM;
	w->flags = XNIC_WQE_SIGNALED | XNIC_WQE_INLINE;
	w->inline_len = MT_LEN;
	w->inline_data = e->lbuf;
	w->imm = cpu_to_le32(0x1234);
	w->dest_qpn = dqpn;
	w->qkey = qkey;
	w->hop_limit = 1;
	memcpy(w->dgid, dgid, 16);
	KUNIT_EXPECT_EQ(e->test, xnic_sim_sq_exec(d, &s->q, &status,
						  &byte_len), (int)XNIC_SIM_DONE);
	KUNIT_EXPECT_EQ(e->test, status, (u8)XNIC_CQE_SUCCESS);
}

/* @r received @n copies so far, the last one of @s to @dgid */
static void mt_got(struct mt_env *e, struct mt_qp *r, struct mt_qp *s,
		   const u8 *dgid, u32 n, const char *what)
{
	struct kunit *test = e->test;
	const struct xnic_cqe *c;
	const u8 *p;

	KUNIT_EXPECT_EQ_MSG(test, r->cq.pi, n, "%s: QP %u's receives", what,
			    r->q.qpn);
	if (!n || r->cq.pi != n)
		return;
	c = &r->cqes[n - 1];
	KUNIT_EXPECT_EQ_MSG(test, c->status, (u8)XNIC_CQE_SUCCESS, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, c->opcode, (u8)XNIC_CQE_OP_RECV, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, le32_to_cpu(c->qpn), r->q.qpn, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, le32_to_cpu(c->src_qp), s->q.qpn, "%s",
			    what);
	KUNIT_EXPECT_EQ_MSG(test, le32_to_cpu(c->byte_len),
			    (u32)(XNIC_SIM_GRH_LEN + MT_LEN), "%s", what);
	KUNIT_EXPECT_TRUE_MSG(test, c->flags & XNIC_CQE_GRH, "%s", what);
	KUNIT_EXPECT_TRUE_MSG(test, c->flags & XNIC_CQE_WITH_IMM, "%s", what);
	p = r->buf + le64_to_cpu(c->wr_id) * MT_SLOT;
	/* default GID entry 0 (RoCE v1): a GRH, the group's GID last */
	KUNIT_EXPECT_EQ_MSG(test, memcmp(p + 8, s->q.dev->gid, 16), 0,
			    "%s: GRH source", what);
	KUNIT_EXPECT_EQ_MSG(test, memcmp(p + 24, dgid, 16), 0,
			    "%s: GRH destination", what);
	KUNIT_EXPECT_EQ_MSG(test, memcmp(p + XNIC_SIM_GRH_LEN, e->lbuf,
					 MT_LEN), 0, "%s: payload", what);
}

/* every attached QP on both devices, once; the sender's own too */
static void mcast_send(struct kunit *test)
{
	struct mt_env *e = mt_env(test);
	struct mt_qp *s = mt_qp(e, 0, 10);
	struct mt_qp *a = mt_qp(e, 0, 11), *b = mt_qp(e, 1, 20);
	struct mt_qp *c = mt_qp(e, 1, 21), *none = mt_qp(e, 1, 22);
	struct mt_qp *other = mt_qp(e, 0, 12);
	struct xnic_sim_tbl_chunk *empty = NULL;

	KUNIT_ASSERT_EQ(test, xnic_sim_mcg_attach(e->d[0], 11, mt_g6), 0);
	KUNIT_ASSERT_EQ(test, xnic_sim_mcg_attach(e->d[0], 11, mt_g6), 0);
	KUNIT_ASSERT_EQ(test, xnic_sim_mcg_attach(e->d[1], 20, mt_g6), 0);
	KUNIT_ASSERT_EQ(test, xnic_sim_mcg_attach(e->d[1], 21, mt_g6), 0);
	KUNIT_ASSERT_EQ(test, xnic_sim_mcg_attach(e->d[0], 12, mt_g4), 0);

	mt_send(e, s, XNIC_MCAST_QPN, mt_g6, MT_QKEY);
	mt_got(e, a, s, mt_g6, 1, "loopback");
	mt_got(e, b, s, mt_g6, 1, "cabled");
	mt_got(e, c, s, mt_g6, 1, "cabled");
	mt_got(e, none, s, mt_g6, 0, "not attached");
	mt_got(e, other, s, mt_g6, 0, "other group");
	KUNIT_EXPECT_EQ(test, s->cq.pi, 0U);
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(e->d[0], XNIC_SIM_CTR_tx_mcast), 1ULL);
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(e->d[0], XNIC_SIM_CTR_rx_mcast), 1ULL);
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(e->d[1], XNIC_SIM_CTR_rx_mcast), 2ULL);

	/* the sender attached receives its own message too (as rxe) */
	KUNIT_ASSERT_EQ(test, xnic_sim_mcg_attach(e->d[0], 10, mt_g4), 0);
	mt_send(e, s, XNIC_MCAST_QPN, mt_g4, MT_QKEY);
	mt_got(e, other, s, mt_g4, 1, "IPv4-mapped group");
	mt_got(e, s, s, mt_g4, 1, "the sender's own QP");
	mt_got(e, a, s, mt_g6, 1, "other group");

	/* a receiver with another Q_Key drops its copy only */
	c->q.qkey = MT_QKEY + 1;
	mt_send(e, s, XNIC_MCAST_QPN, mt_g6, MT_QKEY);
	mt_got(e, a, s, mt_g6, 2, "second");
	mt_got(e, b, s, mt_g6, 2, "second");
	mt_got(e, c, s, mt_g6, 1, "another Q_Key");
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(e->d[0], XNIC_SIM_CTR_ud_drop_qkey), 1ULL);

	/* a group's GID needs the multicast QPN, and the QPN a group */
	mt_send(e, s, 20, mt_g6, MT_QKEY);
	mt_got(e, b, s, mt_g6, 2, "group GID, unicast QPN");
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(e->d[0], XNIC_SIM_CTR_ud_drop_noqp), 1ULL);
	mt_send(e, s, XNIC_MCAST_QPN, e->d[1]->gid, MT_QKEY);
	mt_got(e, b, s, mt_g6, 2, "multicast QPN, unicast GID");
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(e->d[0], XNIC_SIM_CTR_ud_drop_nomcg), 1ULL);
	mt_send(e, s, XNIC_MCAST_QPN, mt_none, MT_QKEY);
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(e->d[0], XNIC_SIM_CTR_ud_drop_nomcg), 2ULL);

	/* detached, and removed with its QP: no more copies */
	KUNIT_EXPECT_EQ(test, xnic_sim_mcg_detach(e->d[0], 11, mt_g6), 0);
	xnic_sim_mcg_detach_qp(e->d[1], 20);
	mt_send(e, s, XNIC_MCAST_QPN, mt_g6, MT_QKEY);
	mt_got(e, a, s, mt_g6, 2, "detached");
	mt_got(e, b, s, mt_g6, 2, "its QP destroyed");
	mt_got(e, c, s, mt_g6, 1, "still another Q_Key");
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(e->d[0], XNIC_SIM_CTR_ud_drop_qkey), 2ULL);

	/* a QP gone from the table is not reached, even if still listed */
	c->q.qkey = MT_QKEY;
	KUNIT_EXPECT_PTR_EQ(test, xnic_sim_tbl_erase(&e->d[1]->qps, 21, &empty),
			    (void *)&c->q);
	xnic_sim_tbl_free_chunk(empty);
	mt_send(e, s, XNIC_MCAST_QPN, mt_g6, MT_QKEY);
	mt_got(e, c, s, mt_g6, 1, "erased QP");
	xnic_sim_mcg_reset(e->d[0]);
	xnic_sim_mcg_reset(e->d[1]);
}

static struct kunit_case mcast_cases[] = {
	KUNIT_CASE_PARAM(mcast_gid, mt_gid_gen_params),
	KUNIT_CASE(mcast_table),
	KUNIT_CASE(mcast_send),
	{}
};

static struct kunit_suite mcast_suite = {
	.name = "xnic_sim_mcast",
	.test_cases = mcast_cases,
};

kunit_test_suites(&mcast_suite);
