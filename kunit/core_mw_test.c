// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma_core_mw: memory windows in the core (drivers/core/mr.c):
 * xrdma_alloc_mw/xrdma_dealloc_mw on the fake device with window
 * operations added, their checks, keys in the upper half of the index
 * space, the PD's use count, resource counts, and xrdma_dereg_mr's EBUSY
 * when the driver refuses because windows are bound.
 */
#include "fake_driver.h"
#include "core_priv.h"

struct test_mw {
	struct xrdma_mw ibmw;
};

static struct xrdma_device_ops mw_ops;
static bool mw_dereg_busy;

static int mw_alloc_op(struct xrdma_mw *mw, struct xrdma_udata *udata)
{
	struct fake_dev *fd = to_fake_dev(mw->device);
	int ret = fd->fail_next_create;

	fd->fail_next_create = 0;
	return ret;
}

static int mw_dealloc_op(struct xrdma_mw *mw)
{
	atomic_inc(&to_fake_dev(mw->device)->destroys);
	return 0;
}

/* the device refuses while windows are bound: nothing changes */
static int mw_dereg_op(struct xrdma_mr *mr)
{
	if (mw_dereg_busy)
		return -EAGAIN;
	return fake_ops.dereg_mr(mr);
}

static struct fake_dev *mw_dev(struct kunit *test, u32 caps)
{
	struct fake_dev *fd = fake_dev_alloc(test);
	int ret;

	mw_ops = fake_ops;
	mw_ops.size_mw = XRDMA_OBJ_SIZE(struct test_mw, ibmw);
	mw_ops.alloc_mw = mw_alloc_op;
	mw_ops.dealloc_mw = mw_dealloc_op;
	mw_ops.dereg_mr = mw_dereg_op;
	mw_dereg_busy = false;
	fd->ibdev.ops = &mw_ops;
	fd->ibdev.attr.device_cap_flags |= caps;
	fd->ibdev.attr.max_mw = 8;
	ret = xrdma_register_device(&fd->ibdev, "kmw%d", NULL);
	if (ret)
		xrdma_dealloc_device(&fd->ibdev);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return fd;
}

static void mw_unsupported(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_create(test, "kmw%d");
	struct xrdma_pd *pd = xrdma_alloc_pd(&fd->ibdev, 0);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	/* no window operations, no capability */
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_alloc_mw(pd, XRDMA_MW_TYPE_1)),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, xrdma_res_count(&fd->ibdev, XRDMA_RES_MW), 0U);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(pd), 0);
	fake_dev_destroy(fd);

	/* operations but only type 1 */
	fd = mw_dev(test, XRDMA_DEVICE_MEM_WINDOW);
	pd = xrdma_alloc_pd(&fd->ibdev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_alloc_mw(pd, XRDMA_MW_TYPE_2)),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_alloc_mw(pd, 0)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_alloc_mw(pd, 3)), -EINVAL);
	KUNIT_EXPECT_EQ(test, xrdma_res_count(&fd->ibdev, XRDMA_RES_MW), 0U);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(pd), 0);
	fake_dev_destroy(fd);
}

static void mw_alloc(struct kunit *test)
{
	struct fake_dev *fd = mw_dev(test, XRDMA_DEVICE_MEM_WINDOW |
				     XRDMA_DEVICE_MEM_WINDOW_TYPE_2B);
	struct xrdma_device *dev = &fd->ibdev;
	struct xrdma_pd *pd = xrdma_alloc_pd(dev, 0);
	struct xrdma_mw *a, *b;
	struct xrdma_mr *mr;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	a = xrdma_alloc_mw(pd, XRDMA_MW_TYPE_1);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, a);
	b = xrdma_alloc_mw(pd, XRDMA_MW_TYPE_2);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b);
	mr = xrdma_alloc_mr(pd, 4);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_EXPECT_EQ(test, a->type, XRDMA_MW_TYPE_1);
	KUNIT_EXPECT_EQ(test, b->type, XRDMA_MW_TYPE_2);
	KUNIT_EXPECT_PTR_EQ(test, a->pd, pd);
	/* windows' indexes: the upper half, their own numbers */
	KUNIT_EXPECT_EQ(test, a->rkey >> 8, XRDMA_MW_INDEX_BASE | a->res.id);
	KUNIT_EXPECT_EQ(test, b->rkey >> 8, XRDMA_MW_INDEX_BASE | b->res.id);
	KUNIT_EXPECT_NE(test, a->rkey >> 8, b->rkey >> 8);
	KUNIT_EXPECT_LT(test, mr->lkey >> 8, XRDMA_MW_INDEX_BASE);
	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_MW), 2U);
	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_MR), 1U);
	/* a window holds its PD */
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(pd), -EBUSY);
	/* a failing driver leaves nothing */
	fd->fail_next_create = -ENOSPC;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_alloc_mw(pd, XRDMA_MW_TYPE_2)),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_MW), 2U);
	/* the device refuses the MR's dereg: EBUSY, the MR stays */
	mw_dereg_busy = true;
	KUNIT_EXPECT_EQ(test, xrdma_dereg_mr(mr), -EBUSY);
	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_MR), 1U);
	mw_dereg_busy = false;
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_mw(a), 0);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_mw(b), 0);
	KUNIT_EXPECT_EQ(test, xrdma_dereg_mr(mr), 0);
	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_MW), 0U);
	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_MR), 0U);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(pd), 0);
	fake_dev_destroy(fd);
}

static struct kunit_case mw_cases[] = {
	KUNIT_CASE(mw_unsupported),
	KUNIT_CASE(mw_alloc),
	{}
};

static struct kunit_suite mw_suite = {
	.name = "xrdma_core_mw",
	.test_cases = mw_cases,
};

kunit_test_suites(&mw_suite);
