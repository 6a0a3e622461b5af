// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite xnic_sim_tbl: the device model's two-level object tables
 * (xnic_sim_tbl.c; the sources come with kunit/xnic_sim_test.c).
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/random.h>
#include "xnic_sim_fixture.h"

static void tbl_exit(struct kunit_resource *res)
{
	xnic_sim_tbl_destroy(res->data);
}

static struct xnic_sim_tbl *tbl_new(struct kunit *test, u32 max)
{
	struct xnic_sim_tbl *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, xnic_sim_tbl_init(t, max), 0);
	kt_defer(test, tbl_exit, t);
	return t;
}

static void tbl_basic(struct kunit *test)
{
	struct xnic_sim_tbl *t = tbl_new(test, 3);
	struct xnic_sim_tbl_chunk *empty = NULL;
	int a, b, c, d;
	u32 idx;

	KUNIT_EXPECT_NULL(test, xnic_sim_tbl_get(t, 5));
	KUNIT_EXPECT_EQ(test, xnic_sim_tbl_insert(t, 5, &a), 0);
	KUNIT_EXPECT_EQ(test, xnic_sim_tbl_insert(t, 5, &b), -EEXIST);
	KUNIT_EXPECT_EQ(test, xnic_sim_tbl_insert(t, 0xffffff, &b), 0);
	KUNIT_EXPECT_EQ(test, xnic_sim_tbl_insert(t, 0x1000000, &c), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_tbl_insert(t, 4096, &c), 0);
	/* full */
	KUNIT_EXPECT_EQ(test, xnic_sim_tbl_insert(t, 6, &d), -ENOSPC);
	KUNIT_EXPECT_EQ(test, t->count, 3U);
	KUNIT_EXPECT_PTR_EQ(test, xnic_sim_tbl_get(t, 5), (void *)&a);
	KUNIT_EXPECT_PTR_EQ(test, xnic_sim_tbl_get(t, 0xffffff), (void *)&b);
	KUNIT_EXPECT_PTR_EQ(test, xnic_sim_tbl_get(t, 4096), (void *)&c);
	KUNIT_EXPECT_NULL(test, xnic_sim_tbl_get(t, 4097));
	KUNIT_EXPECT_NULL(test, xnic_sim_tbl_get(t, 0x1000000));
	KUNIT_EXPECT_NULL(test, xnic_sim_tbl_get(t, ~0U));

	/* walk in order */
	idx = 0;
	KUNIT_EXPECT_PTR_EQ(test, xnic_sim_tbl_next(t, &idx), (void *)&a);
	KUNIT_EXPECT_EQ(test, idx, 5U);
	idx++;
	KUNIT_EXPECT_PTR_EQ(test, xnic_sim_tbl_next(t, &idx), (void *)&c);
	KUNIT_EXPECT_EQ(test, idx, 4096U);
	idx++;
	KUNIT_EXPECT_PTR_EQ(test, xnic_sim_tbl_next(t, &idx), (void *)&b);
	KUNIT_EXPECT_EQ(test, idx, 0xffffffU);
	idx++;
	KUNIT_EXPECT_NULL(test, xnic_sim_tbl_next(t, &idx));

	/* erasing the last object of a chunk hands the chunk back */
	KUNIT_EXPECT_PTR_EQ(test, xnic_sim_tbl_erase(t, 4096, &empty),
			    (void *)&c);
	KUNIT_EXPECT_NOT_NULL(test, empty);
	KUNIT_EXPECT_NULL(test, xnic_sim_tbl_get(t, 4096));
	xnic_sim_tbl_free_chunk(empty);
	empty = NULL;
	KUNIT_EXPECT_NULL(test, xnic_sim_tbl_erase(t, 4096, &empty));
	KUNIT_EXPECT_NULL(test, xnic_sim_tbl_erase(t, 0x1000000, &empty));
	KUNIT_EXPECT_NULL(test, empty);
	/* a chunk still holding an object stays */
	KUNIT_EXPECT_EQ(test, xnic_sim_tbl_insert(t, 6, &d), 0);
	KUNIT_EXPECT_PTR_EQ(test, xnic_sim_tbl_erase(t, 5, &empty), (void *)&a);
	KUNIT_EXPECT_NULL(test, empty);
	KUNIT_EXPECT_PTR_EQ(test, xnic_sim_tbl_get(t, 6), (void *)&d);
	KUNIT_EXPECT_EQ(test, t->count, 2U);
	KUNIT_EXPECT_EQ(test, xnic_sim_tbl_insert(t, 7, NULL), -EINVAL);
}

/* Many random numbers in and out; the table agrees with a bitmap. */
static void tbl_random(struct kunit *test)
{
	struct xnic_sim_tbl *t = tbl_new(test, 1000);
	u32 *num = kunit_kcalloc(test, 1000, sizeof(u32), GFP_KERNEL);
	int i, n = 0, round;

	KUNIT_ASSERT_NOT_NULL(test, num);
	for (round = 0; round < 4000; round++) {
		if (n < 1000 && (n == 0 || get_random_u32_below(3))) {
			u32 idx = get_random_u32_below(1U << 24);
			int ret = xnic_sim_tbl_insert(t, idx, &num[n]);

			if (ret == -EEXIST)
				continue;
			KUNIT_ASSERT_EQ(test, ret, 0);
			num[n++] = idx;
		} else {
			struct xnic_sim_tbl_chunk *empty = NULL;

			i = get_random_u32_below(n);
			KUNIT_ASSERT_NOT_NULL(test,
					      xnic_sim_tbl_erase(t, num[i],
								 &empty));
			xnic_sim_tbl_free_chunk(empty);
			num[i] = num[--n];
			/* the object of the moved number moved too */
			if (i < n) {
				empty = NULL;
				xnic_sim_tbl_erase(t, num[i], &empty);
				xnic_sim_tbl_free_chunk(empty);
				KUNIT_ASSERT_EQ(test,
						xnic_sim_tbl_insert(t, num[i],
								    &num[i]),
						0);
			}
		}
	}
	KUNIT_EXPECT_EQ(test, t->count, (u32)n);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_PTR_EQ(test, xnic_sim_tbl_get(t, num[i]),
				    (void *)&num[i]);
}

static struct kunit_case tbl_cases[] = {
	KUNIT_CASE(tbl_basic),
	KUNIT_CASE(tbl_random),
	{}
};

static struct kunit_suite tbl_suite = {
	.name = "xnic_sim_tbl",
	.test_cases = tbl_cases,
};

kunit_test_suite(tbl_suite);
