// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite xrdma_core_mr_key: MR key tags are random
 * (drivers/core/mr.c; issue 11, defect 3).
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include "fake_driver.h"
#include "core_priv.h"

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

kunit_test_suite(mr_key_suite);
