// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the xnic model's memory windows
 * (drivers/hw/xnic/sim/xnic_sim_mem.c, _resp.c, _req.c; compiled into
 * this module by kunit/xnic_sim_test.c):
 *   xnic_sim_mw  what BIND_MW checks (xnic_sim_bind_check()), remote
 *                access through a window (xnic_sim_mw_check(): state,
 *                tag, PD, the type 2 window's QP, rights, range, zero
 *                based translation), invalidation and the MR's bind
 *                count, a window's key is no MR's, the BIND_MW WQE's
 *                decoding, opcode and completion tables
 * Windows and MRs are made by hand; no memory is touched.
 */
#include <kunit/test.h>
#include "../drivers/hw/xnic/sim/xnic_sim.h"

#define MW_PD		3
#define MW_QPN		0x42
#define MR_KEY		(0x10 << 8 | 0x11)
#define MW_KEY		(0x800020 << 8 | 0x7)
#define MR_IOVA		0x10000000ULL
#define MR_LEN		0x10000ULL
#define RIGHTS		(XNIC_ACCESS_REMOTE_WRITE | XNIC_ACCESS_REMOTE_READ | \
			 XNIC_ACCESS_REMOTE_ATOMIC)

static void mw_fix(struct xnic_sim_mr *mr, struct xnic_sim_mr *mw, u8 type)
{
	memset(mr, 0, sizeof(*mr));
	mr->key = MR_KEY;
	mr->pdn = MW_PD;
	mr->access = XNIC_ACCESS_LOCAL_WRITE | RIGHTS | XNIC_ACCESS_MW_BIND;
	mr->valid = true;
	mr->iova = MR_IOVA;
	mr->length = MR_LEN;
	mr->page_shift = 12;
	mr->npages = MR_LEN >> 12;
	mr->max_pages = mr->npages;
	atomic_set(&mr->binds, 0);
	memset(mw, 0, sizeof(*mw));
	mw->key = MW_KEY;
	mw->pdn = MW_PD;
	mw->mw_type = type;
	mw->state = XNIC_SIM_MW_FREE;
}

static struct xnic_sim_bind bind_of(u64 addr, u64 len, u32 access)
{
	struct xnic_sim_bind b = {
		.addr = addr, .length = len, .mr_key = MR_KEY,
		.mw_key = (MW_KEY & ~0xffU) | 0x8, .access = access,
	};

	return b;
}

/* what xnic_sim_do_bind_mw() stores, for mw_check */
static void bound(struct xnic_sim_mr *mw, struct xnic_sim_mr *mr,
		  const struct xnic_sim_bind *b)
{
	mw->key = b->mw_key;
	mw->parent = mr;
	mw->access = b->access;
	mw->base = b->addr;
	mw->iova = (b->flags & XNIC_BIND_F_ZERO_BASED) ? 0 : b->addr;
	mw->length = b->length;
	mw->qpn = MW_QPN;
	mw->state = XNIC_SIM_MW_VALID;
	atomic_inc(&mr->binds);
}

static void mw_bind_ok(struct kunit *test)
{
	struct xnic_sim_mr mr, mw;
	struct xnic_sim_bind b = bind_of(MR_IOVA + 0x1000, 0x2000, RIGHTS);

	mw_fix(&mr, &mw, XNIC_MW_TYPE_2);
	KUNIT_EXPECT_EQ(test, xnic_sim_bind_check(&mw, &mr, MW_PD, &b), 0);
	/* the whole MR, zero based */
	b = bind_of(MR_IOVA, MR_LEN, XNIC_ACCESS_REMOTE_READ);
	b.flags = XNIC_BIND_F_ZERO_BASED;
	KUNIT_EXPECT_EQ(test, xnic_sim_bind_check(&mw, &mr, MW_PD, &b), 0);
	/* type 1: rebinding a bound window, and unbinding without an MR */
	mw_fix(&mr, &mw, XNIC_MW_TYPE_1);
	mw.state = XNIC_SIM_MW_VALID;
	b = bind_of(MR_IOVA, 0x1000, XNIC_ACCESS_REMOTE_WRITE);
	KUNIT_EXPECT_EQ(test, xnic_sim_bind_check(&mw, &mr, MW_PD, &b), 0);
	b = bind_of(0, 0, 0);
	KUNIT_EXPECT_EQ(test, xnic_sim_bind_check(&mw, NULL, MW_PD, &b), 0);
}

static void mw_bind_errors(struct kunit *test)
{
	const u8 E = XNIC_CQE_MW_BIND_ERR;
	struct xnic_sim_bind b = bind_of(MR_IOVA + 0x1000, 0x2000, RIGHTS);
	struct xnic_sim_mr mr, mw, other;

	mw_fix(&mr, &mw, XNIC_MW_TYPE_2);
	/* no window, an MR's key as the window, window of another PD */
	KUNIT_EXPECT_EQ(test, xnic_sim_bind_check(NULL, &mr, MW_PD, &b), E);
	KUNIT_EXPECT_EQ(test, xnic_sim_bind_check(&mr, &mr, MW_PD, &b), E);
	KUNIT_EXPECT_EQ(test, xnic_sim_bind_check(&mw, &mr, MW_PD + 1, &b),
			E);
	/* no MR, a window as the MR, the MR of another PD, a wrong tag */
	KUNIT_EXPECT_EQ(test, xnic_sim_bind_check(&mw, NULL, MW_PD, &b), E);
	other = mw;
	KUNIT_EXPECT_EQ(test, xnic_sim_bind_check(&mw, &other, MW_PD, &b), E);
	mr.pdn = MW_PD + 1;
	KUNIT_EXPECT_EQ(test, xnic_sim_bind_check(&mw, &mr, MW_PD, &b), E);
	mr.pdn = MW_PD;
	b.mr_key ^= 1;
	KUNIT_EXPECT_EQ(test, xnic_sim_bind_check(&mw, &mr, MW_PD, &b), E);
	b.mr_key ^= 1;
	/* an invalid MR, a DMA MR, a fast-reg MR */
	mr.valid = false;
	KUNIT_EXPECT_EQ(test, xnic_sim_bind_check(&mw, &mr, MW_PD, &b), E);
	mr.valid = true;
	mr.flags = XNIC_MR_F_ALL;
	KUNIT_EXPECT_EQ(test, xnic_sim_bind_check(&mw, &mr, MW_PD, &b), E);
	mr.flags = XNIC_MR_F_FREG;
	KUNIT_EXPECT_EQ(test, xnic_sim_bind_check(&mw, &mr, MW_PD, &b), E);
	mr.flags = 0;
	/* no MW_BIND; remote write or atomic without local write */
	mr.access &= ~XNIC_ACCESS_MW_BIND;
	KUNIT_EXPECT_EQ(test, xnic_sim_bind_check(&mw, &mr, MW_PD, &b), E);
	mr.access = XNIC_ACCESS_REMOTE_READ | XNIC_ACCESS_MW_BIND;
	KUNIT_EXPECT_EQ(test, xnic_sim_bind_check(&mw, &mr, MW_PD, &b), E);
	b.access = XNIC_ACCESS_REMOTE_READ;
	KUNIT_EXPECT_EQ(test, xnic_sim_bind_check(&mw, &mr, MW_PD, &b), 0);
	mw_fix(&mr, &mw, XNIC_MW_TYPE_2);
	/* a local right, an unknown flag */
	b = bind_of(MR_IOVA, 0x1000, XNIC_ACCESS_LOCAL_WRITE);
	KUNIT_EXPECT_EQ(test, xnic_sim_bind_check(&mw, &mr, MW_PD, &b), E);
	b = bind_of(MR_IOVA, 0x1000, XNIC_ACCESS_REMOTE_READ);
	b.flags = 0x2;
	KUNIT_EXPECT_EQ(test, xnic_sim_bind_check(&mw, &mr, MW_PD, &b), E);
	/* outside the MR: before, after, crossing the end, wrapping */
	b = bind_of(MR_IOVA - 1, 0x10, RIGHTS);
	KUNIT_EXPECT_EQ(test, xnic_sim_bind_check(&mw, &mr, MW_PD, &b), E);
	b = bind_of(MR_IOVA + MR_LEN, 1, RIGHTS);
	KUNIT_EXPECT_EQ(test, xnic_sim_bind_check(&mw, &mr, MW_PD, &b), E);
	b = bind_of(MR_IOVA + MR_LEN - 0x10, 0x11, RIGHTS);
	KUNIT_EXPECT_EQ(test, xnic_sim_bind_check(&mw, &mr, MW_PD, &b), E);
	b = bind_of(~0ULL - 0xf, 0x20, RIGHTS);
	KUNIT_EXPECT_EQ(test, xnic_sim_bind_check(&mw, &mr, MW_PD, &b), E);
	/* type 2: length 0, already bound, being invalidated */
	b = bind_of(MR_IOVA, 0, RIGHTS);
	KUNIT_EXPECT_EQ(test, xnic_sim_bind_check(&mw, &mr, MW_PD, &b), E);
	b = bind_of(MR_IOVA, 0x10, RIGHTS);
	mw.state = XNIC_SIM_MW_VALID;
	KUNIT_EXPECT_EQ(test, xnic_sim_bind_check(&mw, &mr, MW_PD, &b), E);
	mw.state = XNIC_SIM_MW_INVALIDATING;
	KUNIT_EXPECT_EQ(test, xnic_sim_bind_check(&mw, &mr, MW_PD, &b), E);
	/* type 1: zero based */
	mw_fix(&mr, &mw, XNIC_MW_TYPE_1);
	b.flags = XNIC_BIND_F_ZERO_BASED;
	KUNIT_EXPECT_EQ(test, xnic_sim_bind_check(&mw, &mr, MW_PD, &b), E);
}

static void mw_access(struct kunit *test)
{
	struct xnic_sim_bind b = bind_of(MR_IOVA + 0x1000, 0x2000,
					 XNIC_ACCESS_REMOTE_WRITE |
					 XNIC_ACCESS_REMOTE_READ);
	const struct xnic_sim_mr *got = NULL;
	struct xnic_sim_mr mr, mw;
	u32 key = b.mw_key;
	u64 m = 0;

	mw_fix(&mr, &mw, XNIC_MW_TYPE_2);
	/* unbound */
	KUNIT_EXPECT_EQ(test, xnic_sim_mw_check(&mw, MW_KEY, MW_PD, MW_QPN,
						MR_IOVA + 0x1000, 8,
						XNIC_ACCESS_REMOTE_READ, &got,
						&m), -EACCES);
	bound(&mw, &mr, &b);
	KUNIT_EXPECT_EQ(test, xnic_sim_mw_check(&mw, key, MW_PD, MW_QPN,
						MR_IOVA + 0x1000, 0x2000,
						XNIC_ACCESS_REMOTE_WRITE, &got,
						&m), 0);
	KUNIT_EXPECT_PTR_EQ(test, got, (const struct xnic_sim_mr *)&mr);
	KUNIT_EXPECT_EQ(test, m, MR_IOVA + 0x1000);
	/* the old tag, another PD, another QP, a missing right, no right */
	KUNIT_EXPECT_EQ(test, xnic_sim_mw_check(&mw, MW_KEY, MW_PD, MW_QPN,
						MR_IOVA + 0x1000, 8,
						XNIC_ACCESS_REMOTE_READ, &got,
						&m), -EACCES);
	KUNIT_EXPECT_EQ(test, xnic_sim_mw_check(&mw, key, MW_PD + 1, MW_QPN,
						MR_IOVA + 0x1000, 8,
						XNIC_ACCESS_REMOTE_READ, &got,
						&m), -EACCES);
	KUNIT_EXPECT_EQ(test, xnic_sim_mw_check(&mw, key, MW_PD, MW_QPN + 1,
						MR_IOVA + 0x1000, 8,
						XNIC_ACCESS_REMOTE_READ, &got,
						&m), -EACCES);
	KUNIT_EXPECT_EQ(test, xnic_sim_mw_check(&mw, key, MW_PD, MW_QPN,
						MR_IOVA + 0x1000, 8,
						XNIC_ACCESS_REMOTE_ATOMIC,
						&got, &m), -EACCES);
	KUNIT_EXPECT_EQ(test, xnic_sim_mw_check(&mw, key, MW_PD, MW_QPN,
						MR_IOVA + 0x1000, 8, 0, &got,
						&m), -EACCES);
	/* the range: before, crossing the end, the last byte */
	KUNIT_EXPECT_EQ(test, xnic_sim_mw_check(&mw, key, MW_PD, MW_QPN,
						MR_IOVA + 0xfff, 8,
						XNIC_ACCESS_REMOTE_READ, &got,
						&m), -EACCES);
	KUNIT_EXPECT_EQ(test, xnic_sim_mw_check(&mw, key, MW_PD, MW_QPN,
						MR_IOVA + 0x2ff9, 8,
						XNIC_ACCESS_REMOTE_READ, &got,
						&m), -EACCES);
	KUNIT_EXPECT_EQ(test, xnic_sim_mw_check(&mw, key, MW_PD, MW_QPN,
						MR_IOVA + 0x2fff, 1,
						XNIC_ACCESS_REMOTE_READ, &got,
						&m), 0);
	/* type 1: any QP of the PD */
	mw.mw_type = XNIC_MW_TYPE_1;
	KUNIT_EXPECT_EQ(test, xnic_sim_mw_check(&mw, key, MW_PD, MW_QPN + 1,
						MR_IOVA + 0x1000, 8,
						XNIC_ACCESS_REMOTE_READ, &got,
						&m), 0);
	/* an MR's check never takes a window's key */
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_check(&mw, key, MW_PD,
						MR_IOVA + 0x1000, 8, 0, false),
			-EACCES);
	/* a window's check never takes an MR */
	KUNIT_EXPECT_EQ(test, xnic_sim_mw_check(&mr, MR_KEY, MW_PD, MW_QPN,
						MR_IOVA, 8,
						XNIC_ACCESS_REMOTE_READ, &got,
						&m), -EACCES);
}

static void mw_zero_based(struct kunit *test)
{
	struct xnic_sim_bind b = bind_of(MR_IOVA + 0x3000, 0x1000,
					 XNIC_ACCESS_REMOTE_READ);
	const struct xnic_sim_mr *got = NULL;
	struct xnic_sim_mr mr, mw;
	u64 m = 0;

	mw_fix(&mr, &mw, XNIC_MW_TYPE_2);
	b.flags = XNIC_BIND_F_ZERO_BASED;
	bound(&mw, &mr, &b);
	KUNIT_EXPECT_EQ(test, xnic_sim_mw_check(&mw, b.mw_key, MW_PD, MW_QPN,
						0x10, 0x20,
						XNIC_ACCESS_REMOTE_READ, &got,
						&m), 0);
	KUNIT_EXPECT_EQ(test, m, MR_IOVA + 0x3010);
	KUNIT_EXPECT_EQ(test, xnic_sim_mw_check(&mw, b.mw_key, MW_PD, MW_QPN,
						0xff8, 8,
						XNIC_ACCESS_REMOTE_READ, &got,
						&m), 0);
	KUNIT_EXPECT_EQ(test, m, MR_IOVA + 0x3ff8);
	/* the MR's own addresses are not the window's */
	KUNIT_EXPECT_EQ(test, xnic_sim_mw_check(&mw, b.mw_key, MW_PD, MW_QPN,
						MR_IOVA + 0x3000, 8,
						XNIC_ACCESS_REMOTE_READ, &got,
						&m), -EACCES);
	KUNIT_EXPECT_EQ(test, xnic_sim_mw_check(&mw, b.mw_key, MW_PD, MW_QPN,
						0xff9, 8,
						XNIC_ACCESS_REMOTE_READ, &got,
						&m), -EACCES);
}

static void mw_invalidate(struct kunit *test)
{
	struct xnic_sim_bind b = bind_of(MR_IOVA, 0x1000, RIGHTS);
	struct xnic_sim_qp rqp = { .qpn = MW_QPN, .pdn = MW_PD };
	const struct xnic_sim_mr *got;
	struct xnic_sim_mr mr, mw;
	u64 m;

	mw_fix(&mr, &mw, XNIC_MW_TYPE_2);
	KUNIT_EXPECT_FALSE(test, xnic_sim_mw_remote_inv_ok(&mw, &rqp));
	KUNIT_EXPECT_FALSE(test, xnic_sim_mw_invalidate(NULL, &mw, false));
	bound(&mw, &mr, &b);
	KUNIT_EXPECT_EQ(test, atomic_read(&mr.binds), 1);
	KUNIT_EXPECT_TRUE(test, xnic_sim_mw_remote_inv_ok(&mw, &rqp));
	rqp.qpn++;
	KUNIT_EXPECT_FALSE(test, xnic_sim_mw_remote_inv_ok(&mw, &rqp));
	rqp.qpn--;
	KUNIT_EXPECT_TRUE(test, xnic_sim_mw_invalidate(NULL, &mw, false));
	KUNIT_EXPECT_EQ(test, mw.state, (u32)XNIC_SIM_MW_FREE);
	KUNIT_EXPECT_EQ(test, atomic_read(&mr.binds), 0);
	/* once: a second invalidation finds it unbound */
	KUNIT_EXPECT_FALSE(test, xnic_sim_mw_invalidate(NULL, &mw, false));
	KUNIT_EXPECT_EQ(test, atomic_read(&mr.binds), 0);
	KUNIT_EXPECT_EQ(test, xnic_sim_mw_check(&mw, b.mw_key, MW_PD, MW_QPN,
						MR_IOVA, 8,
						XNIC_ACCESS_REMOTE_READ, &got,
						&m), -EACCES);
	/* a type 1 window cannot be invalidated remotely */
	mw_fix(&mr, &mw, XNIC_MW_TYPE_1);
	bound(&mw, &mr, &b);
	KUNIT_EXPECT_FALSE(test, xnic_sim_mw_remote_inv_ok(&mw, &rqp));
}

static void mw_wqe(struct kunit *test)
{
	u8 buf[XNIC_WQE_DATA_OFF] = {};
	struct xnic_wqe_ctrl *c = (void *)buf;
	struct xnic_wqe_bind *bd = (void *)(buf + XNIC_WQE_BIND_OFF);
	struct xnic_sim_swqe w;

	c->opcode = XNIC_OP_BIND_MW;
	bd->addr = cpu_to_le64(0x1122334455667788ULL);
	bd->length = cpu_to_le64(0x1000);
	bd->mr_key = cpu_to_le32(MR_KEY);
	bd->mw_key = cpu_to_le32(MW_KEY);
	bd->access = cpu_to_le32(XNIC_ACCESS_REMOTE_READ);
	bd->flags = XNIC_BIND_F_ZERO_BASED;
	KUNIT_EXPECT_EQ(test, xnic_sim_swqe_len(c, 128), XNIC_WQE_DATA_OFF);
	xnic_sim_swqe_decode(buf, &w);
	KUNIT_EXPECT_EQ(test, w.bind.addr, 0x1122334455667788ULL);
	KUNIT_EXPECT_EQ(test, w.bind.length, 0x1000ULL);
	KUNIT_EXPECT_EQ(test, w.bind.mr_key, (u32)MR_KEY);
	KUNIT_EXPECT_EQ(test, w.bind.mw_key, (u32)MW_KEY);
	KUNIT_EXPECT_EQ(test, w.bind.access, (u32)XNIC_ACCESS_REMOTE_READ);
	KUNIT_EXPECT_EQ(test, w.bind.flags, (u8)XNIC_BIND_F_ZERO_BASED);
	KUNIT_EXPECT_EQ(test, xnic_sim_op_check(XNIC_QPT_RC, XNIC_OP_BIND_MW,
						false), 0);
	KUNIT_EXPECT_EQ(test, xnic_sim_op_check(XNIC_QPT_UC, XNIC_OP_BIND_MW,
						false), 0);
	KUNIT_EXPECT_EQ(test, xnic_sim_op_check(XNIC_QPT_UD, XNIC_OP_BIND_MW,
						false), XNIC_CQE_LOC_QP_OP_ERR);
	KUNIT_EXPECT_EQ(test, xnic_sim_cqe_opcode(XNIC_OP_BIND_MW),
			XNIC_CQE_OP_BIND_MW);
	KUNIT_EXPECT_STREQ(test, xnic_sim_status_name(XNIC_CQE_MW_BIND_ERR),
			   "mw_bind_err");
}

static struct kunit_case mw_cases[] = {
	KUNIT_CASE(mw_bind_ok),
	KUNIT_CASE(mw_bind_errors),
	KUNIT_CASE(mw_access),
	KUNIT_CASE(mw_zero_based),
	KUNIT_CASE(mw_invalidate),
	KUNIT_CASE(mw_wqe),
	{}
};

static struct kunit_suite mw_suite = {
	.name = "xnic_sim_mw",
	.test_cases = mw_cases,
};

kunit_test_suites(&mw_suite);
