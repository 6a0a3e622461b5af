// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the xnic model's IBTA 1.5 persistent-memory operations
 * (drivers/hw/xnic/sim/xnic_sim_req.c, _resp.c xnic_sim_pmem_rkey(),
 * _mem.c; the sources come with kunit/xnic_sim_test.c):
 *   xnic_sim_pmem  the responder's rules for ATOMIC WRITE (value stored,
 *                  8-byte alignment, exactly 8 bytes of payload, the MR's
 *                  and the QP's REMOTE_WRITE, the key, the range,
 *                  responder and requester resources) and FLUSH (range,
 *                  whole MR, empty range; FLUSH_GLOBAL/PERSISTENT on the
 *                  MR and the QP, the key, the range, the 2 GiB limit,
 *                  malformed type and level, UC), each giving the status
 *                  rxe gives on Linux 6.12, the responder QP's state and
 *                  event, the memory untouched on an error; the WQE and
 *                  CQE opcodes; persistence refused on ordinary memory;
 *                  and the same key-before-alignment order for
 *                  FETCH_AND_ADD / CMP_AND_SWP (xnic_sim_req.c)
 *
 * As kunit/xnic_sim_xport_test.c: two cabled devices without engine
 * threads, objects made by hand, xnic_sim_sq_exec() called directly;
 * every case gets a new pair of QPs.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/io.h>
#include "xnic_sim_fixture.h"

#define PM_PD		1
#define PM_PSN		0x100
#define PM_CQ_LOG	4
#define PM_ALL_KEY	0x100		/* index 1: all memory, local */
#define PM_MR_KEY	(2 << 8 | 0x5c)	/* index 2: one page on device 1 */
#define PM_MR_IOVA	0x7f0000000000ULL
#define PM_MW_KEY	(3 << 8 | 0x77)	/* index 3: a type 2 window */
#define PM_QP_ACC	(XNIC_ACCESS_REMOTE_WRITE | XNIC_ACCESS_REMOTE_READ | \
			 XNIC_ACCESS_REMOTE_ATOMIC | XNIC_ACCESS_FLUSH_GLOBAL | \
			 XNIC_ACCESS_FLUSH_PERSISTENT)
#define PM_MR_ACC	(XNIC_ACCESS_LOCAL_WRITE | XNIC_ACCESS_REMOTE_WRITE | \
			 XNIC_ACCESS_REMOTE_READ | XNIC_ACCESS_REMOTE_ATOMIC | \
			 XNIC_ACCESS_FLUSH_GLOBAL)
#define PM_VAL		0x1122334455667788ULL
#define PM_FILL		0xa5

struct pm_env {
	struct kunit *test;
	struct kt_sim_pair p;		/* PM_MR_KEY on device 1 */
	u32 next_qpn;
};

static const struct kt_sim_pair_cfg pm_pair_cfg = {
	.pd = PM_PD, .cq_log = PM_CQ_LOG, .all_key = PM_ALL_KEY,
	.mr_key = PM_MR_KEY, .mr_access = PM_MR_ACC, .mr_iova = PM_MR_IOVA,
};

static struct pm_env *pm_env(struct kunit *test)
{
	struct pm_env *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, e);
	e->test = test;
	e->next_qpn = 0x10;
	kt_sim_pair_init(test, &e->p, &pm_pair_cfg);
	return e;
}

static struct xnic_sim_qp *pm_qp(struct pm_env *e, int dev, u8 type)
{
	struct kunit *test = e->test;
	struct xnic_sim_qp *q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, q);
	q->dev = e->p.d[dev];
	q->qpn = e->next_qpn++;
	q->pdn = PM_PD;
	q->type = type;
	q->state = XNIC_QPS_RTS;
	q->scq = &e->p.cq[dev];
	q->rcq = &e->p.cq[dev];
	q->db = &e->p.db[dev];
	q->slot = q->qpn % 64;
	kt_dma(test, sizeof(struct xnic_qp_dbrec), &q->dbrec);
	q->mtu = XNIC_MTU_1024;
	q->timeout = 1;
	q->retry_cnt = 2;
	q->rnr_retry = 2;
	q->max_rd_atomic = 1;
	q->max_dest_rd_atomic = 1;
	q->port = 1;
	q->access = PM_QP_ACC;
	spin_lock_init(&q->lock);
	INIT_LIST_HEAD(&q->active_node);
	INIT_LIST_HEAD(&q->err_node);
	KUNIT_ASSERT_EQ(test, xnic_sim_tbl_insert(&q->dev->qps, q->qpn, q), 0);
	return q;
}

/* a requester on device 0 connected to a responder on device 1 */
struct pm_pair {
	struct xnic_sim_qp *a, *b;
};

static struct pm_pair pm_pair(struct pm_env *e, u8 type)
{
	struct pm_pair p = { pm_qp(e, 0, type), pm_qp(e, 1, type) };

	p.a->rdev = e->p.d[1];
	memcpy(p.a->dgid, e->p.d[1]->gid, sizeof(p.a->dgid));
	p.a->dest_qpn = p.b->qpn;
	p.b->rdev = e->p.d[0];
	memcpy(p.b->dgid, e->p.d[0]->gid, sizeof(p.b->dgid));
	p.b->dest_qpn = p.a->qpn;
	p.a->sq_psn = PM_PSN;
	p.b->rq_psn = PM_PSN;
	memset(e->p.mr_buf, PM_FILL, PAGE_SIZE);
	return p;
}

/* one ATOMIC WRITE of @len inline bytes of PM_VAL; the status */
static u8 pm_aw(struct pm_env *e, struct pm_pair *p, u64 addr, u32 rkey,
		u32 len, u32 *byte_len)
{
	static u8 payload[16];
	struct xnic_sim_swqe *w = &e->p.d[0]->scr->w;
	u64 v = PM_VAL;
	u8 status = 0xff;
	u32 bl;

	memcpy(payload, &v, 8);
	memcpy(payload + 8, &v, 8);
	memset(w, 0, sizeof(*w));
	w->opcode = XNIC_OP_ATOMIC_WRITE;
	w->flags = XNIC_WQE_SIGNALED | XNIC_WQE_INLINE;
	w->inline_len = len;
	w->inline_data = payload;
	w->remote_addr = addr;
	w->rkey = rkey;
	KUNIT_EXPECT_EQ(e->test, xnic_sim_sq_exec(e->p.d[0], p->a, &status,
						  byte_len ? byte_len : &bl),
			(int)XNIC_SIM_DONE);
	return status;
}

static u8 pm_flush(struct pm_env *e, struct pm_pair *p, u64 addr, u32 rkey,
		   u32 len, u8 type, u8 level, u32 *byte_len)
{
	struct xnic_sim_swqe *w = &e->p.d[0]->scr->w;
	u8 status = 0xff;
	u32 bl;

	memset(w, 0, sizeof(*w));
	w->opcode = XNIC_OP_FLUSH;
	w->flags = XNIC_WQE_SIGNALED;
	w->remote_addr = addr;
	w->rkey = rkey;
	w->flush_len = len;
	w->flush_type = type;
	w->flush_level = level;
	KUNIT_EXPECT_EQ(e->test, xnic_sim_sq_exec(e->p.d[0], p->a, &status,
						  byte_len ? byte_len : &bl),
			(int)XNIC_SIM_DONE);
	return status;
}

static u64 pm_at(struct pm_env *e, u32 off)
{
	u64 v;

	memcpy(&v, e->p.mr_buf + off, 8);
	return v;
}

/* after a remote error: the responder in ERR, the page untouched */
static void pm_refused(struct pm_env *e, struct pm_pair *p, const char *what)
{
	KUNIT_EXPECT_EQ_MSG(e->test, p->b->state, XNIC_QPS_ERR, "%s", what);
	KUNIT_EXPECT_NULL_MSG(e->test, memchr_inv(e->p.mr_buf, PM_FILL,
						  PAGE_SIZE),
			      "%s: memory written", what);
}

static void pmem_aw_ok(struct kunit *test)
{
	struct pm_env *e = pm_env(test);
	struct pm_pair p = pm_pair(e, XNIC_QPT_RC);
	u32 bl = 0;

	KUNIT_EXPECT_EQ(test, pm_aw(e, &p, PM_MR_IOVA + 64, PM_MR_KEY, 8, &bl),
			XNIC_CQE_SUCCESS);
	KUNIT_EXPECT_EQ(test, pm_at(e, 64), PM_VAL);
	KUNIT_EXPECT_EQ(test, bl, 8U);
	/* the bytes around it untouched; one packet; still RTS */
	KUNIT_EXPECT_EQ(test, pm_at(e, 56), 0xa5a5a5a5a5a5a5a5ULL);
	KUNIT_EXPECT_EQ(test, pm_at(e, 72), 0xa5a5a5a5a5a5a5a5ULL);
	KUNIT_EXPECT_EQ(test, p.b->rq_psn, PM_PSN + 1U);
	KUNIT_EXPECT_EQ(test, p.b->state, XNIC_QPS_RTS);
	/* the last word; REMOTE_WRITE is the right, not REMOTE_ATOMIC */
	p = pm_pair(e, XNIC_QPT_RC);
	e->p.mr.access = XNIC_ACCESS_LOCAL_WRITE | XNIC_ACCESS_REMOTE_WRITE;
	p.b->access = XNIC_ACCESS_REMOTE_WRITE;
	KUNIT_EXPECT_EQ(test, pm_aw(e, &p, PM_MR_IOVA + PAGE_SIZE - 8,
				    PM_MR_KEY, 8, NULL), XNIC_CQE_SUCCESS);
	KUNIT_EXPECT_EQ(test, pm_at(e, PAGE_SIZE - 8), PM_VAL);
	/* XRC_INI has the RC opcodes; UC, UD do not */
	KUNIT_EXPECT_EQ(test, xnic_sim_op_check(XNIC_QPT_XRC_INI,
						XNIC_OP_ATOMIC_WRITE, false), 0);
	KUNIT_EXPECT_EQ(test, xnic_sim_op_check(XNIC_QPT_UC,
						XNIC_OP_ATOMIC_WRITE, false),
			XNIC_CQE_LOC_QP_OP_ERR);
	KUNIT_EXPECT_EQ(test, xnic_sim_op_check(XNIC_QPT_UD, XNIC_OP_FLUSH,
						false), XNIC_CQE_LOC_QP_OP_ERR);
}

static void pmem_aw_errors(struct kunit *test)
{
	struct pm_env *e = pm_env(test);
	struct pm_pair p;

	/* misaligned (IBA A19.4.2): invalid request, QP_REQ_ERR */
	p = pm_pair(e, XNIC_QPT_RC);
	KUNIT_EXPECT_EQ(test, pm_aw(e, &p, PM_MR_IOVA + 68, PM_MR_KEY, 8,
				    NULL), XNIC_CQE_REM_INV_REQ_ERR);
	pm_refused(e, &p, "misaligned");
	/* not exactly 8 bytes (oA19-28) */
	p = pm_pair(e, XNIC_QPT_RC);
	KUNIT_EXPECT_EQ(test, pm_aw(e, &p, PM_MR_IOVA, PM_MR_KEY, 4, NULL),
			XNIC_CQE_REM_INV_REQ_ERR);
	pm_refused(e, &p, "4 bytes");
	p = pm_pair(e, XNIC_QPT_RC);
	KUNIT_EXPECT_EQ(test, pm_aw(e, &p, PM_MR_IOVA, PM_MR_KEY, 16, NULL),
			XNIC_CQE_REM_INV_REQ_ERR);
	pm_refused(e, &p, "16 bytes");
	/* the MR without REMOTE_WRITE (atomic is not enough) */
	p = pm_pair(e, XNIC_QPT_RC);
	e->p.mr.access = PM_MR_ACC & ~XNIC_ACCESS_REMOTE_WRITE;
	KUNIT_EXPECT_EQ(test, pm_aw(e, &p, PM_MR_IOVA, PM_MR_KEY, 8, NULL),
			XNIC_CQE_REM_ACCESS_ERR);
	pm_refused(e, &p, "MR without REMOTE_WRITE");
	e->p.mr.access = PM_MR_ACC;
	/* the QP without REMOTE_WRITE: rxe's unsupported opcode */
	p = pm_pair(e, XNIC_QPT_RC);
	p.b->access = PM_QP_ACC & ~XNIC_ACCESS_REMOTE_WRITE;
	KUNIT_EXPECT_EQ(test, pm_aw(e, &p, PM_MR_IOVA, PM_MR_KEY, 8, NULL),
			XNIC_CQE_REM_INV_REQ_ERR);
	pm_refused(e, &p, "QP without REMOTE_WRITE");
	/* a stale tag; past the MR's end (aligned); before its start */
	p = pm_pair(e, XNIC_QPT_RC);
	KUNIT_EXPECT_EQ(test, pm_aw(e, &p, PM_MR_IOVA, PM_MR_KEY ^ 1, 8, NULL),
			XNIC_CQE_REM_ACCESS_ERR);
	pm_refused(e, &p, "bad rkey");
	p = pm_pair(e, XNIC_QPT_RC);
	KUNIT_EXPECT_EQ(test, pm_aw(e, &p, PM_MR_IOVA + PAGE_SIZE, PM_MR_KEY,
				    8, NULL), XNIC_CQE_REM_ACCESS_ERR);
	pm_refused(e, &p, "past the end");
	/* out of range and misaligned: the key's check comes first (rxe) */
	p = pm_pair(e, XNIC_QPT_RC);
	KUNIT_EXPECT_EQ(test, pm_aw(e, &p, PM_MR_IOVA + PAGE_SIZE - 4,
				    PM_MR_KEY, 8, NULL),
			XNIC_CQE_REM_ACCESS_ERR);
	pm_refused(e, &p, "across the end");
	/* responder resources: none */
	p = pm_pair(e, XNIC_QPT_RC);
	p.b->max_dest_rd_atomic = 0;
	KUNIT_EXPECT_EQ(test, pm_aw(e, &p, PM_MR_IOVA, PM_MR_KEY, 8, NULL),
			XNIC_CQE_REM_INV_REQ_ERR);
	pm_refused(e, &p, "max_dest_rd_atomic 0");
	/* requester resources: none, nothing sent */
	p = pm_pair(e, XNIC_QPT_RC);
	p.a->max_rd_atomic = 0;
	KUNIT_EXPECT_EQ(test, pm_aw(e, &p, PM_MR_IOVA, PM_MR_KEY, 8, NULL),
			XNIC_CQE_LOC_QP_OP_ERR);
	KUNIT_EXPECT_EQ(test, p.b->state, XNIC_QPS_RTS);
	KUNIT_EXPECT_EQ(test, p.b->rq_psn, (u32)PM_PSN);
}

/* one FETCH_AND_ADD of 1 into an 8-byte local buffer; the status */
static u8 pm_fadd(struct pm_env *e, struct pm_pair *p, u64 addr, u32 rkey,
		  u64 *orig)
{
	struct xnic_sim_swqe *w = &e->p.d[0]->scr->w;
	static struct xnic_sge sge;
	u8 status = 0xff;
	u64 *local, dma;
	u32 bl;

	local = kt_dma(e->test, 8, &dma);
	*local = 0xdeadULL;
	sge.addr = cpu_to_le64(dma);
	sge.length = cpu_to_le32(8);
	sge.lkey = cpu_to_le32(PM_ALL_KEY);
	memset(w, 0, sizeof(*w));
	w->opcode = XNIC_OP_ATOMIC_FETCH_AND_ADD;
	w->flags = XNIC_WQE_SIGNALED;
	w->num_sge = 1;
	w->sge = &sge;
	w->remote_addr = addr;
	w->rkey = rkey;
	w->compare_add = 1;
	KUNIT_EXPECT_EQ(e->test, xnic_sim_sq_exec(e->p.d[0], p->a, &status,
						  &bl), (int)XNIC_SIM_DONE);
	if (orig)
		*orig = *local;
	return status;
}

/*
 * CMP_AND_SWP / FETCH_AND_ADD on the cable check the key before the
 * alignment, as the wire responder and rxe (check_rkey(), then
 * atomic_reply()): misaligned with a good key is an invalid request,
 * misaligned with a bad key (tag, range, right) a remote access error;
 * the responder in ERR, memory untouched either way.
 */
static void pmem_atomic_key_first(struct kunit *test)
{
	struct pm_env *e = pm_env(test);
	struct xnic_sim_mr *mw;
	struct pm_pair p;
	u64 orig = 0;

	/* aligned, good key: executed */
	p = pm_pair(e, XNIC_QPT_RC);
	KUNIT_EXPECT_EQ(test, pm_fadd(e, &p, PM_MR_IOVA + 64, PM_MR_KEY,
				      &orig), XNIC_CQE_SUCCESS);
	KUNIT_EXPECT_EQ(test, orig, 0xa5a5a5a5a5a5a5a5ULL);
	KUNIT_EXPECT_EQ(test, pm_at(e, 64), 0xa5a5a5a5a5a5a5a6ULL);
	KUNIT_EXPECT_EQ(test, p.b->state, XNIC_QPS_RTS);
	/* misaligned, good key: invalid request */
	p = pm_pair(e, XNIC_QPT_RC);
	KUNIT_EXPECT_EQ(test, pm_fadd(e, &p, PM_MR_IOVA + 68, PM_MR_KEY,
				      NULL), XNIC_CQE_REM_INV_REQ_ERR);
	pm_refused(e, &p, "misaligned");
	/* misaligned, bad key: the key's check comes first */
	p = pm_pair(e, XNIC_QPT_RC);
	KUNIT_EXPECT_EQ(test, pm_fadd(e, &p, PM_MR_IOVA + 68, PM_MR_KEY ^ 1,
				      NULL), XNIC_CQE_REM_ACCESS_ERR);
	pm_refused(e, &p, "misaligned, bad key");
	/* misaligned and across the MR's end: out of range first */
	p = pm_pair(e, XNIC_QPT_RC);
	KUNIT_EXPECT_EQ(test, pm_fadd(e, &p, PM_MR_IOVA + PAGE_SIZE - 4,
				      PM_MR_KEY, NULL),
			XNIC_CQE_REM_ACCESS_ERR);
	pm_refused(e, &p, "misaligned, across the end");
	/* misaligned, the MR without REMOTE_ATOMIC: access first */
	p = pm_pair(e, XNIC_QPT_RC);
	e->p.mr.access = PM_MR_ACC & ~XNIC_ACCESS_REMOTE_ATOMIC;
	KUNIT_EXPECT_EQ(test, pm_fadd(e, &p, PM_MR_IOVA + 68, PM_MR_KEY,
				      NULL), XNIC_CQE_REM_ACCESS_ERR);
	pm_refused(e, &p, "misaligned, no REMOTE_ATOMIC");
	e->p.mr.access = PM_MR_ACC;
	/*
	 * aligned, but a type 2 window puts it at a misaligned place of its
	 * MR: an invalid request too (was a remote access error)
	 */
	p = pm_pair(e, XNIC_QPT_RC);
	mw = kunit_kzalloc(test, sizeof(*mw), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mw);
	mw->key = PM_MW_KEY;
	mw->pdn = PM_PD;
	mw->mw_type = XNIC_MW_TYPE_2;
	mw->qpn = p.b->qpn;
	mw->access = XNIC_ACCESS_REMOTE_ATOMIC;
	mw->iova = 0x1000;
	mw->length = PAGE_SIZE - 4;
	mw->parent = &e->p.mr;
	mw->base = PM_MR_IOVA + 4;
	mw->state = XNIC_SIM_MW_VALID;
	KUNIT_ASSERT_EQ(test, xnic_sim_tbl_insert(&e->p.d[1]->mrs,
						  PM_MW_KEY >> 8, mw), 0);
	KUNIT_EXPECT_EQ(test, pm_fadd(e, &p, 0x1000 + 8, PM_MW_KEY, NULL),
			XNIC_CQE_REM_INV_REQ_ERR);
	pm_refused(e, &p, "misaligned through a window");
	/* ... and misaligned with the window's bad tag: the key first */
	p = pm_pair(e, XNIC_QPT_RC);
	mw->qpn = p.b->qpn;
	KUNIT_EXPECT_EQ(test, pm_fadd(e, &p, 0x1000 + 9, PM_MW_KEY ^ 1, NULL),
			XNIC_CQE_REM_ACCESS_ERR);
	pm_refused(e, &p, "misaligned, the window's bad tag");
}

static void pmem_flush_ok(struct kunit *test)
{
	struct pm_env *e = pm_env(test);
	struct pm_pair p = pm_pair(e, XNIC_QPT_RC);
	u32 bl = 0;

	KUNIT_EXPECT_EQ(test, pm_flush(e, &p, PM_MR_IOVA, PM_MR_KEY, PAGE_SIZE,
				       XNIC_FLUSH_GLOBAL, XNIC_FLUSH_RANGE,
				       &bl), XNIC_CQE_SUCCESS);
	KUNIT_EXPECT_EQ(test, bl, (u32)PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, p.b->rq_psn, PM_PSN + 1U);
	/* an empty range inside the MR */
	KUNIT_EXPECT_EQ(test, pm_flush(e, &p, PM_MR_IOVA + 16, PM_MR_KEY, 0,
				       XNIC_FLUSH_GLOBAL, XNIC_FLUSH_RANGE,
				       &bl), XNIC_CQE_SUCCESS);
	/* the whole MR: address and length are not looked at */
	KUNIT_EXPECT_EQ(test, pm_flush(e, &p, 1, PM_MR_KEY, 1U << 31,
				       XNIC_FLUSH_GLOBAL, XNIC_FLUSH_MR, &bl),
			XNIC_CQE_SUCCESS);
	/* persistence (an MR made by hand: no pmem here), both types */
	e->p.mr.access = PM_MR_ACC | XNIC_ACCESS_FLUSH_PERSISTENT;
	KUNIT_EXPECT_EQ(test, pm_flush(e, &p, PM_MR_IOVA + 8, PM_MR_KEY, 100,
				       XNIC_FLUSH_GLOBAL | XNIC_FLUSH_PERSISTENT,
				       XNIC_FLUSH_RANGE, NULL),
			XNIC_CQE_SUCCESS);
	KUNIT_EXPECT_EQ(test, p.b->state, XNIC_QPS_RTS);
	KUNIT_EXPECT_NULL(test, memchr_inv(e->p.mr_buf, PM_FILL, PAGE_SIZE));
}

static void pmem_flush_errors(struct kunit *test)
{
	struct pm_env *e = pm_env(test);
	struct pm_pair p;

	/* the MR without FLUSH_GLOBAL */
	p = pm_pair(e, XNIC_QPT_RC);
	e->p.mr.access = PM_MR_ACC & ~XNIC_ACCESS_FLUSH_GLOBAL;
	KUNIT_EXPECT_EQ(test, pm_flush(e, &p, PM_MR_IOVA, PM_MR_KEY, 64,
				       XNIC_FLUSH_GLOBAL, XNIC_FLUSH_RANGE,
				       NULL), XNIC_CQE_REM_ACCESS_ERR);
	pm_refused(e, &p, "MR without FLUSH_GLOBAL");
	e->p.mr.access = PM_MR_ACC;
	/* persistence asked of an MR of global visibility only */
	p = pm_pair(e, XNIC_QPT_RC);
	KUNIT_EXPECT_EQ(test, pm_flush(e, &p, PM_MR_IOVA, PM_MR_KEY, 64,
				       XNIC_FLUSH_PERSISTENT, XNIC_FLUSH_MR,
				       NULL), XNIC_CQE_REM_ACCESS_ERR);
	pm_refused(e, &p, "persistence on a global MR");
	/* the QP without the FLUSH access: rxe's unsupported opcode */
	p = pm_pair(e, XNIC_QPT_RC);
	p.b->access = PM_QP_ACC & ~XNIC_ACCESS_FLUSH_GLOBAL;
	KUNIT_EXPECT_EQ(test, pm_flush(e, &p, PM_MR_IOVA, PM_MR_KEY, 64,
				       XNIC_FLUSH_GLOBAL, XNIC_FLUSH_RANGE,
				       NULL), XNIC_CQE_REM_INV_REQ_ERR);
	pm_refused(e, &p, "QP without FLUSH_GLOBAL");
	/* a range past the end; a bad key even for the whole MR */
	p = pm_pair(e, XNIC_QPT_RC);
	KUNIT_EXPECT_EQ(test, pm_flush(e, &p, PM_MR_IOVA + 8, PM_MR_KEY,
				       PAGE_SIZE, XNIC_FLUSH_GLOBAL,
				       XNIC_FLUSH_RANGE, NULL),
			XNIC_CQE_REM_ACCESS_ERR);
	pm_refused(e, &p, "past the end");
	p = pm_pair(e, XNIC_QPT_RC);
	KUNIT_EXPECT_EQ(test, pm_flush(e, &p, PM_MR_IOVA, PM_MR_KEY ^ 1, 0,
				       XNIC_FLUSH_GLOBAL, XNIC_FLUSH_MR, NULL),
			XNIC_CQE_REM_ACCESS_ERR);
	pm_refused(e, &p, "bad rkey");
	/* more than 2 GiB (IBA C9-94) */
	p = pm_pair(e, XNIC_QPT_RC);
	KUNIT_EXPECT_EQ(test, pm_flush(e, &p, PM_MR_IOVA, PM_MR_KEY,
				       (1U << 31) + 1, XNIC_FLUSH_GLOBAL,
				       XNIC_FLUSH_RANGE, NULL),
			XNIC_CQE_REM_INV_REQ_ERR);
	pm_refused(e, &p, "2 GiB + 1");
	/* malformed: type 0, unknown type or level; nothing sent */
	p = pm_pair(e, XNIC_QPT_RC);
	KUNIT_EXPECT_EQ(test, pm_flush(e, &p, PM_MR_IOVA, PM_MR_KEY, 64, 0,
				       XNIC_FLUSH_RANGE, NULL),
			XNIC_CQE_LOC_QP_OP_ERR);
	KUNIT_EXPECT_EQ(test, pm_flush(e, &p, PM_MR_IOVA, PM_MR_KEY, 64, 4,
				       XNIC_FLUSH_RANGE, NULL),
			XNIC_CQE_LOC_QP_OP_ERR);
	KUNIT_EXPECT_EQ(test, pm_flush(e, &p, PM_MR_IOVA, PM_MR_KEY, 64,
				       XNIC_FLUSH_GLOBAL, 2, NULL),
			XNIC_CQE_LOC_QP_OP_ERR);
	KUNIT_EXPECT_EQ(test, p.b->state, XNIC_QPS_RTS);
	KUNIT_EXPECT_EQ(test, p.b->rq_psn, (u32)PM_PSN);
}

/* WQE decoding, completion opcodes, persistence needs pmem */
static void pmem_tables(struct kunit *test)
{
	u8 buf[XNIC_WQE_DATA_OFF] = { 0 };
	struct xnic_wqe_flush *f = (void *)(buf + XNIC_WQE_FLUSH_OFF);
	struct xnic_sim_swqe w;
	u64 dma;

	buf[0] = XNIC_OP_FLUSH;
	f->length = cpu_to_le32(0x12345);
	f->type = XNIC_FLUSH_PERSISTENT;
	f->level = XNIC_FLUSH_MR;
	xnic_sim_swqe_decode(buf, &w);
	KUNIT_EXPECT_EQ(test, w.flush_len, 0x12345U);
	KUNIT_EXPECT_EQ(test, w.flush_type, XNIC_FLUSH_PERSISTENT);
	KUNIT_EXPECT_EQ(test, w.flush_level, XNIC_FLUSH_MR);
	KUNIT_EXPECT_EQ(test, xnic_sim_cqe_opcode(XNIC_OP_FLUSH),
			XNIC_CQE_OP_FLUSH);
	KUNIT_EXPECT_EQ(test, xnic_sim_cqe_opcode(XNIC_OP_ATOMIC_WRITE),
			XNIC_CQE_OP_ATOMIC_WRITE);
	KUNIT_EXPECT_EQ(test, XNIC_CQE_OP_FLUSH, 8);
	KUNIT_EXPECT_EQ(test, XNIC_CQE_OP_ATOMIC_WRITE, 9);
	/* an ordinary page is no persistent memory */
	kt_dma(test, PAGE_SIZE, &dma);
	KUNIT_EXPECT_FALSE(test, xnic_sim_mtt_pmem(&dma, 1, PAGE_SHIFT));
	KUNIT_EXPECT_FALSE(test, xnic_sim_mtt_pmem(&dma, 0, PAGE_SHIFT));
}

static struct kunit_case pmem_cases[] = {
	KUNIT_CASE(pmem_aw_ok),
	KUNIT_CASE(pmem_aw_errors),
	KUNIT_CASE(pmem_atomic_key_first),
	KUNIT_CASE(pmem_flush_ok),
	KUNIT_CASE(pmem_flush_errors),
	KUNIT_CASE(pmem_tables),
	{}
};

static struct kunit_suite pmem_suite = {
	.name = "xnic_sim_pmem",
	.test_cases = pmem_cases,
};

kunit_test_suites(&pmem_suite);
