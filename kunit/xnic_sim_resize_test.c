// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the device model's RESIZE_CQ and RESIZE_SRQ
 * (Documentation/xnic/commands.rst), suite xnic_sim_resize:
 *   - a CQ's unconsumed CQEs move to the same free-running indexes of the
 *     new ring with the new size's owner, every other entry reads as
 *     invalid (whatever the new ring held), the record is copied, later
 *     CQEs go to the new ring; at indexes that wrap 2^32 too;
 *   - a new ring too small for the CQEs from ci on, an impossible ci and
 *     an overrun CQ are refused with nothing changed; exactly full fits;
 *   - an SRQ's posted WQEs move to the same indexes of the larger ring
 *     with the new owner, the record is copied, and the responder takes
 *     them from the new ring in order; an impossible rq_pi is refused.
 * The model's sources are compiled into this module by
 * kunit/xnic_sim_test.c; this file calls xnic_sim_cq_resize(),
 * xnic_sim_srq_resize(), xnic_sim_cq_post() and xnic_sim_rq_take() on
 * objects made by hand on a device without an engine.  Ordinary kernel
 * pages stand in for DMA memory.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/io.h>
#include "xnic_sim_fixture.h"

struct xr_cq {
	struct xnic_sim_cq cq;
	struct xnic_cqe *ring;
	struct xnic_cq_dbrec *rec;
};

/* a CQ of 2^@log entries whose producer index starts at @pi0 */
static void xr_cq(struct kunit *test, struct xnic_sim_dev *d, struct xr_cq *c,
		  u32 log, u32 pi0)
{
	memset(c, 0, sizeof(*c));
	c->cq.dev = d;
	c->cq.cqn = 1;
	c->cq.log = log;
	c->cq.pi = pi0;
	c->cq.served = XNIC_SIM_ARM_NONE;
	spin_lock_init(&c->cq.lock);
	c->ring = kt_dma(test, sizeof(struct xnic_cqe) << log, &c->cq.ring);
	c->rec = kt_dma(test, sizeof(*c->rec), &c->cq.dbrec);
	c->rec->ci = cpu_to_le32(pi0);
}

static void xr_post(struct kunit *test, struct xr_cq *c, u64 wr_id)
{
	struct xnic_sim_cqe_info info = {
		.wr_id = wr_id, .qpn = 7, .byte_len = (u32)wr_id,
		.opcode = XNIC_CQE_OP_RECV,
	};

	KUNIT_ASSERT_EQ(test, xnic_sim_cq_post(&c->cq, &info, false), 0);
}

/* the consumer's view: the valid CQE at @i of a ring of 2^@log, or NULL */
static struct xnic_cqe *xr_valid(struct xnic_cqe *ring, u32 log, u32 i)
{
	struct xnic_cqe *e = &ring[i & ((1U << log) - 1)];

	return e->owner == (((i >> log) & 1) ^ 1) ? e : NULL;
}

/*
 * 6 CQEs from @pi0 on, 2 consumed; resize from 8 to 16 entries into a
 * ring full of garbage; check the new ring as a consumer sees it; 2 more
 * CQEs land there.
 */
static void xr_cq_move(struct kunit *test, u32 pi0)
{
	struct xnic_sim_dev *d = kt_sim_dev(test, 0, false);
	struct xnic_cq_dbrec *nrec;
	struct xnic_cqe *nring;
	u64 ring_dma, rec_dma;
	struct xr_cq c;
	u32 i, ci = pi0 + 2;

	xr_cq(test, d, &c, 3, pi0);
	for (i = 0; i < 6; i++)
		xr_post(test, &c, 100 + i);
	c.rec->ci = cpu_to_le32(ci);
	c.rec->arm = cpu_to_le32(5 << 2 | XNIC_CQ_ARM_NEXT);
	nring = kt_dma(test, sizeof(struct xnic_cqe) << 4, &ring_dma);
	memset(nring, 0xa5, sizeof(struct xnic_cqe) << 4);
	nrec = kt_dma(test, sizeof(*nrec), &rec_dma);

	KUNIT_ASSERT_EQ(test, xnic_sim_cq_resize(&c.cq, 4, ring_dma, rec_dma),
			0);
	KUNIT_EXPECT_EQ(test, c.cq.ring, ring_dma);
	KUNIT_EXPECT_EQ(test, c.cq.dbrec, rec_dma);
	KUNIT_EXPECT_EQ(test, c.cq.log, 4U);
	KUNIT_EXPECT_EQ(test, c.cq.pi, pi0 + 6);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(nrec->ci), ci);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(nrec->arm),
			5U << 2 | XNIC_CQ_ARM_NEXT);
	for (i = ci; i != ci + 16; i++) {
		struct xnic_cqe *e = xr_valid(nring, 4, i);

		if (i - ci < 4) {
			KUNIT_ASSERT_NOT_NULL_MSG(test, e, "CQE %u", i);
			KUNIT_EXPECT_EQ(test, le64_to_cpu(e->wr_id),
					100ULL + (i - pi0));
			KUNIT_EXPECT_EQ(test, le32_to_cpu(e->qpn), 7U);
			KUNIT_EXPECT_EQ(test, e->opcode, XNIC_CQE_OP_RECV);
		} else {
			KUNIT_EXPECT_NULL_MSG(test, e, "entry %u", i);
		}
	}
	/* later CQEs go to the new ring, after the moved ones */
	xr_post(test, &c, 106);
	xr_post(test, &c, 107);
	for (i = ci; i != ci + 6; i++) {
		struct xnic_cqe *e = xr_valid(nring, 4, i);

		KUNIT_ASSERT_NOT_NULL_MSG(test, e, "CQE %u", i);
		KUNIT_EXPECT_EQ(test, le64_to_cpu(e->wr_id),
				100ULL + (i - pi0));
	}
	KUNIT_EXPECT_NULL(test, xr_valid(nring, 4, ci + 6));
}

static void cq_move(struct kunit *test)
{
	xr_cq_move(test, 0);
}

static void cq_move_wrap(struct kunit *test)
{
	/* the moved and the later CQEs straddle 2^32 */
	xr_cq_move(test, 0xfffffffb);
}

/* shrinking: exactly the CQEs held fits, one fewer entry does not */
static void cq_shrink(struct kunit *test)
{
	struct xnic_sim_dev *d = kt_sim_dev(test, 0, false);
	u64 r4, r2, r1, rec_dma, old_ring;
	struct xnic_cq_dbrec *nrec;
	struct xnic_cqe *ring4;
	struct xr_cq c;
	u32 i;

	xr_cq(test, d, &c, 4, 0x10);
	for (i = 0; i < 4; i++)
		xr_post(test, &c, i);
	kt_dma(test, sizeof(struct xnic_cqe) << 1, &r1);
	kt_dma(test, sizeof(struct xnic_cqe) << 2, &r2);
	ring4 = kt_dma(test, sizeof(struct xnic_cqe) << 2, &r4);
	nrec = kt_dma(test, sizeof(*nrec), &rec_dma);
	old_ring = c.cq.ring;
	KUNIT_EXPECT_EQ(test, xnic_sim_cq_resize(&c.cq, 1, r1, rec_dma),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, c.cq.ring, old_ring);
	KUNIT_EXPECT_EQ(test, c.cq.log, 4U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(nrec->ci), 0U);
	/* a ci the device never reached: impossible, refused */
	c.rec->ci = cpu_to_le32(0x10 + 5);
	KUNIT_EXPECT_EQ(test, xnic_sim_cq_resize(&c.cq, 2, r2, rec_dma),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, c.cq.ring, old_ring);
	c.rec->ci = cpu_to_le32(0x10);
	KUNIT_ASSERT_EQ(test, xnic_sim_cq_resize(&c.cq, 2, r4, rec_dma), 0);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_NOT_NULL(test, xr_valid(ring4, 2, 0x10 + i));
	/* full: the next CQE is an overrun, and an overrun CQ stays so */
	{
		struct xnic_sim_cqe_info info = { .wr_id = 9 };

		KUNIT_EXPECT_EQ(test, xnic_sim_cq_post(&c.cq, &info, false),
				-ENOSPC);
	}
	KUNIT_EXPECT_TRUE(test, c.cq.overrun);
	KUNIT_EXPECT_EQ(test, xnic_sim_cq_resize(&c.cq, 4, old_ring,
						 c.cq.dbrec), -EIO);
	KUNIT_EXPECT_EQ(test, c.cq.ring, r4);
}

struct xr_srq {
	struct xnic_sim_srq srq;
	u8 *ring;
	struct xnic_qp_dbrec *rec;
};

#define XR_SHIFT	5	/* 32-byte receive WQEs */

/* software posts WQE @i (wr_id 1000 + i, no SGE) into a ring of 2^@log */
static void xr_rpost(u8 *ring, u32 log, u32 i)
{
	struct xnic_rwqe *w = (void *)(ring + ((i & ((1U << log) - 1)) <<
					       XR_SHIFT));

	memset(w, 0, 1U << XR_SHIFT);
	w->wr_id = cpu_to_le64(1000ULL + i);
	w->owner = (i >> log) & 1;
}

/*
 * An SRQ of 4 with WQEs [@ci, @ci + 3) posted and @ci consumed, grown to
 * 8; the responder then takes the 3 from the new ring, in order.
 */
static void xr_srq_move(struct kunit *test, u32 ci)
{
	struct xnic_sim_dev *d = kt_sim_dev(test, 0, false);
	struct xnic_sim_qp qp = {};
	struct xnic_qp_dbrec *nrec;
	u64 ring_dma, rec_dma;
	struct xr_srq s = {};
	u8 *nring;
	u32 i;

	s.srq.dev = d;
	s.srq.srqn = 1;
	s.srq.log = 2;
	s.srq.shift = XR_SHIFT;
	s.srq.ci = ci;
	spin_lock_init(&s.srq.lock);
	s.ring = kt_dma(test, 4 << XR_SHIFT, &s.srq.ring);
	s.rec = kt_dma(test, sizeof(*s.rec), &s.srq.dbrec);
	for (i = ci; i != ci + 3; i++)
		xr_rpost(s.ring, 2, i);
	s.rec->rq_pi = cpu_to_le32(ci + 3);
	nring = kt_dma(test, 8 << XR_SHIFT, &ring_dma);
	memset(nring, 0xa5, 8 << XR_SHIFT);
	nrec = kt_dma(test, sizeof(*nrec), &rec_dma);

	KUNIT_ASSERT_EQ(test, xnic_sim_srq_resize(&s.srq, 3, ring_dma, rec_dma),
			0);
	KUNIT_EXPECT_EQ(test, s.srq.ring, ring_dma);
	KUNIT_EXPECT_EQ(test, s.srq.dbrec, rec_dma);
	KUNIT_EXPECT_EQ(test, (u32)s.srq.log, 3U);
	KUNIT_EXPECT_EQ(test, s.srq.ci, ci);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(nrec->rq_pi), ci + 3);
	for (i = ci; i != ci + 3; i++) {
		struct xnic_rwqe *w = (void *)(nring + ((i & 7) << XR_SHIFT));

		KUNIT_EXPECT_EQ(test, le64_to_cpu(w->wr_id), 1000ULL + i);
		KUNIT_EXPECT_EQ(test, w->owner, (u8)((i >> 3) & 1));
	}
	/* software posts one more into the new ring; all 4 come out */
	xr_rpost(nring, 3, ci + 3);
	nrec->rq_pi = cpu_to_le32(ci + 4);
	qp.dev = d;
	qp.srq = &s.srq;
	for (i = ci; i != ci + 4; i++) {
		KUNIT_ASSERT_EQ_MSG(test, xnic_sim_rq_take(d, &qp), 1,
				    "WQE %u", i);
		KUNIT_EXPECT_EQ(test, le64_to_cpu(((struct xnic_rwqe *)
						    d->scr->rwqe)->wr_id),
				1000ULL + i);
	}
	KUNIT_EXPECT_EQ(test, xnic_sim_rq_take(d, &qp), 0);
}

static void srq_move(struct kunit *test)
{
	xr_srq_move(test, 1);
}

static void srq_move_wrap(struct kunit *test)
{
	xr_srq_move(test, 0xfffffffe);
}

static void srq_bad_pi(struct kunit *test)
{
	struct xnic_sim_dev *d = kt_sim_dev(test, 0, false);
	struct xr_srq s = {};
	u64 ring_dma, rec_dma;

	s.srq.dev = d;
	s.srq.log = 2;
	s.srq.shift = XR_SHIFT;
	spin_lock_init(&s.srq.lock);
	s.ring = kt_dma(test, 4 << XR_SHIFT, &s.srq.ring);
	s.rec = kt_dma(test, sizeof(*s.rec), &s.srq.dbrec);
	s.rec->rq_pi = cpu_to_le32(5);	/* more than the ring ahead */
	kt_dma(test, 8 << XR_SHIFT, &ring_dma);
	kt_dma(test, sizeof(struct xnic_qp_dbrec), &rec_dma);
	KUNIT_EXPECT_EQ(test, xnic_sim_srq_resize(&s.srq, 3, ring_dma, rec_dma),
			-EIO);
	KUNIT_EXPECT_EQ(test, (u32)s.srq.log, 2U);
	KUNIT_EXPECT_NE(test, s.srq.ring, ring_dma);
}

static struct kunit_case resize_cases[] = {
	KUNIT_CASE(cq_move),
	KUNIT_CASE(cq_move_wrap),
	KUNIT_CASE(cq_shrink),
	KUNIT_CASE(srq_move),
	KUNIT_CASE(srq_move_wrap),
	KUNIT_CASE(srq_bad_pi),
	{}
};

static struct kunit_suite resize_suite = {
	.name = "xnic_sim_resize",
	.test_cases = resize_cases,
};

kunit_test_suites(&resize_suite);
