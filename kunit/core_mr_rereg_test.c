// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma_core_mr_rereg: xrdma_rereg_user_mr()'s checks and what it changes
 * (keys, PD references, rights) depending on the driver's answer, and
 * xrdma_reg_user_mr_dmabuf() on a device without dmabuf MRs.  A KUnit
 * thread has no user memory: the "user MR" here is a DMA MR given a
 * writable umem of no pages, so that no pinning is needed (translation
 * changes are tested in the guest: tools/testing/lib/xverbs/xv_mr.c).
 */
#include <xrdma/xrdma_umem.h>
#include "fake_driver.h"
#include "core_priv.h"

struct rr_env {
	struct xrdma_pd *pd, *pd2;
	struct xrdma_device_ops ops;
	const struct xrdma_device_ops *saved_ops;
	int calls;			/* rereg_user_mr calls */
	int result;			/* what it returns */
	struct xrdma_mr_rereg seen;	/* what it was asked */
};

static struct rr_env *rr_cur;

static int rr_rereg(struct xrdma_mr *mr, struct xrdma_mr_rereg *rr)
{
	rr_cur->calls++;
	rr_cur->seen = *rr;
	return rr_cur->result;
}

static int rr_init(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_create(test, "krr%d");
	struct rr_env *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, e);
	e->pd = xrdma_alloc_pd(&fd->ibdev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, e->pd);
	e->pd2 = xrdma_alloc_pd(&fd->ibdev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, e->pd2);
	e->saved_ops = fd->ibdev.ops;
	e->ops = *fd->ibdev.ops;
	e->ops.rereg_user_mr = rr_rereg;
	fd->ibdev.ops = &e->ops;
	rr_cur = e;
	test->priv = e;
	return 0;
}

static void rr_exit(struct kunit *test)
{
	struct rr_env *e = test->priv;
	struct xrdma_device *dev = e->pd->device;

	dev->ops = e->saved_ops;
	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_MR), 0U);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(e->pd2), 0);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(e->pd), 0);
	rr_cur = NULL;
	fake_dev_destroy(to_fake_dev(dev));
}

/* a DMA MR dressed as a user MR with a writable umem of no pages */
static struct xrdma_mr *fake_user_mr(struct kunit *test, struct rr_env *e,
				     struct xrdma_umem *umem)
{
	struct xrdma_mr *mr = xrdma_get_dma_mr(e->pd, XRDMA_ACCESS_LOCAL_WRITE);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	memset(umem, 0, sizeof(*umem));
	umem->writable = true;
	umem->address = 0x10000;
	umem->length = 0x2000;
	mr->type = XRDMA_MR_TYPE_USER;
	mr->umem = umem;
	mr->iova = 0x10000;
	mr->length = 0x2000;
	mr->rkey = mr->lkey;
	return mr;
}

static void fake_user_mr_free(struct kunit *test, struct xrdma_mr *mr)
{
	mr->umem = NULL;
	mr->type = XRDMA_MR_TYPE_DMA;
	KUNIT_EXPECT_EQ(test, xrdma_dereg_mr(mr), 0);
}

static void rereg_checks(struct kunit *test)
{
	struct rr_env *e = test->priv;
	const u32 all = XRDMA_ACCESS_LOCAL_WRITE | XRDMA_ACCESS_REMOTE_READ;
	struct xrdma_umem umem;
	struct xrdma_mr *dma, *fr, *mr;

	dma = xrdma_get_dma_mr(e->pd, XRDMA_ACCESS_LOCAL_WRITE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dma);
	fr = xrdma_alloc_mr(e->pd, 4);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fr);
	/* only user MRs; the flags first */
	KUNIT_EXPECT_EQ(test, xrdma_rereg_user_mr(dma, XRDMA_MR_REREG_ACCESS,
						  0, 0, 0, all, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, xrdma_rereg_user_mr(fr, XRDMA_MR_REREG_ACCESS,
						  0, 0, 0, all, NULL), -EINVAL);

	mr = fake_user_mr(test, e, &umem);
	KUNIT_EXPECT_EQ(test, xrdma_rereg_user_mr(mr, 0, 0, 0, 0, 0, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, xrdma_rereg_user_mr(mr, 8, 0, 0, 0, 0, NULL),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, xrdma_rereg_user_mr(mr, XRDMA_MR_REREG_ACCESS,
						  0, 0, 0,
						  XRDMA_ACCESS_REMOTE_WRITE,
						  NULL), -EINVAL);
	/* an unknown bit; 1 << 8, 1 << 9: FLUSH, which this device lacks */
	KUNIT_EXPECT_EQ(test, xrdma_rereg_user_mr(mr, XRDMA_MR_REREG_ACCESS,
						  0, 0, 0, 1U << 10, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, xrdma_rereg_user_mr(mr, XRDMA_MR_REREG_ACCESS,
						  0, 0, 0,
						  XRDMA_ACCESS_FLUSH_GLOBAL,
						  NULL), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, xrdma_rereg_user_mr(mr, XRDMA_MR_REREG_ACCESS,
						  0, 0, 0,
						  XRDMA_ACCESS_FLUSH_PERSISTENT,
						  NULL), -EOPNOTSUPP);
	/* translation: page offsets differ, iova wraps */
	KUNIT_EXPECT_EQ(test, xrdma_rereg_user_mr(mr, XRDMA_MR_REREG_TRANS,
						  0x1000, 0x100, 0x2008, 0,
						  NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, xrdma_rereg_user_mr(mr, XRDMA_MR_REREG_TRANS,
						  0x1000, 0x2000,
						  U64_MAX - 0xfff, 0, NULL),
			-EINVAL);
	/* none of them reached the driver or changed anything */
	KUNIT_EXPECT_EQ(test, e->calls, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->pd->usecnt), 4);
	fake_user_mr_free(test, mr);
	KUNIT_EXPECT_EQ(test, xrdma_dereg_mr(fr), 0);
	KUNIT_EXPECT_EQ(test, xrdma_dereg_mr(dma), 0);
}

static void rereg_driver_fails(struct kunit *test)
{
	struct rr_env *e = test->priv;
	struct xrdma_umem umem;
	struct xrdma_mr *mr = fake_user_mr(test, e, &umem);
	u32 lkey = mr->lkey;

	e->result = -EBUSY;
	KUNIT_EXPECT_EQ(test, xrdma_rereg_user_mr(mr, XRDMA_MR_REREG_PD |
						  XRDMA_MR_REREG_ACCESS, 0, 0,
						  0, 0, e->pd2), -EBUSY);
	KUNIT_EXPECT_EQ(test, e->calls, 1);
	/* rights and PD only: the driver was asked to keep the key */
	KUNIT_EXPECT_EQ(test, e->seen.key, lkey);
	KUNIT_EXPECT_PTR_EQ(test, e->seen.pd, e->pd2);
	/* nothing changed, the new PD's reference is back */
	KUNIT_EXPECT_EQ(test, mr->lkey, lkey);
	KUNIT_EXPECT_EQ(test, mr->rkey, lkey);
	KUNIT_EXPECT_PTR_EQ(test, mr->pd, e->pd);
	KUNIT_EXPECT_EQ(test, mr->access, (u32)XRDMA_ACCESS_LOCAL_WRITE);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->pd2->usecnt), 1);
	KUNIT_EXPECT_PTR_EQ(test, mr->umem, &umem);
	fake_user_mr_free(test, mr);
}

static void rereg_pd_access(struct kunit *test)
{
	struct rr_env *e = test->priv;
	const u32 acc = XRDMA_ACCESS_LOCAL_WRITE | XRDMA_ACCESS_REMOTE_READ;
	struct xrdma_umem umem;
	struct xrdma_mr *mr = fake_user_mr(test, e, &umem);
	u32 lkey = mr->lkey;
	int pd_uses = atomic_read(&e->pd->usecnt);
	struct xrdma_mr *found;

	KUNIT_EXPECT_EQ(test, xrdma_rereg_user_mr(mr, XRDMA_MR_REREG_PD |
						  XRDMA_MR_REREG_ACCESS, 0, 0,
						  0, acc, e->pd2), 0);
	KUNIT_EXPECT_EQ(test, e->seen.flags,
			(u32)(XRDMA_MR_REREG_PD | XRDMA_MR_REREG_ACCESS));
	KUNIT_EXPECT_EQ(test, e->seen.access, acc);
	KUNIT_EXPECT_NULL(test, e->seen.umem);	/* the pages stay */
	KUNIT_EXPECT_EQ(test, e->seen.iova, 0x10000ULL);
	KUNIT_EXPECT_EQ(test, e->seen.length, 0x2000ULL);
	KUNIT_EXPECT_PTR_EQ(test, mr->pd, e->pd2);
	KUNIT_EXPECT_EQ(test, mr->access, acc);
	/* rights and PD only: the keys stay (as mlx5 and rxe) */
	KUNIT_EXPECT_EQ(test, e->seen.key, lkey);
	KUNIT_EXPECT_EQ(test, mr->lkey, lkey);
	KUNIT_EXPECT_EQ(test, mr->rkey, lkey);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->pd2->usecnt), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->pd->usecnt), pd_uses - 1);
	/* and find the MR */
	found = xrdma_mr_get_by_key(mr->device, lkey);
	KUNIT_EXPECT_PTR_EQ(test, found, mr);
	if (found)
		xrdma_mr_put(found);
	/* to the PD it is in: the PD flag is dropped */
	KUNIT_EXPECT_EQ(test, xrdma_rereg_user_mr(mr, XRDMA_MR_REREG_PD, 0, 0,
						  0, 0, e->pd2), 0);
	KUNIT_EXPECT_EQ(test, e->seen.flags, 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->pd2->usecnt), 2);
	/* back, so that the MR's PD is the one dereg expects */
	KUNIT_EXPECT_EQ(test, xrdma_rereg_user_mr(mr, XRDMA_MR_REREG_PD, 0, 0,
						  0, 0, e->pd), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->pd2->usecnt), 1);
	KUNIT_EXPECT_EQ(test, e->calls, 3);
	fake_user_mr_free(test, mr);
}

static void dmabuf_unsupported(struct kunit *test)
{
	struct rr_env *e = test->priv;

	/* the fake device has neither a DMA device nor the op */
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_reg_user_mr_dmabuf(e->pd, 0, 4096,
							       0, -1, 0,
							       NULL)),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_umem_dmabuf_get(e->pd->device, 0,
							    4096, -1, 0)),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->pd->usecnt), 1);
}

static struct kunit_case rr_cases[] = {
	KUNIT_CASE(rereg_checks),
	KUNIT_CASE(rereg_driver_fails),
	KUNIT_CASE(rereg_pd_access),
	KUNIT_CASE(dmabuf_unsupported),
	{}
};

static struct kunit_suite rr_suite = {
	.name = "xrdma_core_mr_rereg",
	.init = rr_init,
	.exit = rr_exit,
	.test_cases = rr_cases,
};

kunit_test_suite(rr_suite);
