// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma_core_mr: keys, access rules, fast-reg page lists, umem checks.
 */
#include <linux/scatterlist.h>
#include <xrdma/xrdma_umem.h>
#include "fake_driver.h"
#include "core_priv.h"

static int mr_init(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_create(test, "kmr%d");
	struct xrdma_pd *pd = xrdma_alloc_pd(&fd->ibdev, 0);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	test->priv = pd;
	return 0;
}

static void mr_exit(struct kunit *test)
{
	struct xrdma_pd *pd = test->priv;
	struct xrdma_device *dev = pd->device;

	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_MR), 0U);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(pd), 0);
	fake_dev_destroy(to_fake_dev(dev));
}

static void mr_keys(struct kunit *test)
{
	struct xrdma_pd *pd = test->priv;
	struct xrdma_device *dev = pd->device;
	struct xrdma_mr *a, *b, *c, *found;
	u32 old_lkey;

	a = xrdma_get_dma_mr(pd, XRDMA_ACCESS_LOCAL_WRITE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, a);
	b = xrdma_alloc_mr(pd, 4);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b);

	/* key = index << 8 | tag */
	KUNIT_EXPECT_EQ(test, a->lkey >> 8, a->res.id);
	KUNIT_EXPECT_EQ(test, b->lkey >> 8, b->res.id);
	KUNIT_EXPECT_NE(test, a->lkey >> 8, b->lkey >> 8);
	/* tags are random: kunit/xnic_sim_xport_test.c (xrdma_core_mr_key) */
	/* the DMA MR has no rkey: it is local only */
	KUNIT_EXPECT_EQ(test, a->rkey, 0U);
	KUNIT_EXPECT_EQ(test, b->rkey, b->lkey);

	found = xrdma_mr_get_by_key(dev, b->lkey);
	KUNIT_EXPECT_PTR_EQ(test, found, b);
	if (found)
		xrdma_mr_put(found);
	/* right index, wrong tag: nothing */
	KUNIT_EXPECT_NULL(test, xrdma_mr_get_by_key(dev, b->lkey ^ 0x01));
	KUNIT_EXPECT_NULL(test, xrdma_mr_get_by_key(dev, b->lkey ^ 0x80));

	/* a fast-reg MR's next registration changes the tag only */
	old_lkey = b->lkey;
	xrdma_update_fast_reg_key(b, xrdma_mr_next_key(b->lkey) & 0xff);
	KUNIT_EXPECT_EQ(test, b->lkey >> 8, old_lkey >> 8);
	KUNIT_EXPECT_NE(test, b->lkey, old_lkey);
	KUNIT_EXPECT_NULL(test, xrdma_mr_get_by_key(dev, old_lkey));
	found = xrdma_mr_get_by_key(dev, b->rkey);
	KUNIT_EXPECT_PTR_EQ(test, found, b);
	if (found)
		xrdma_mr_put(found);

	/* a stale key does not reach the MR created after it */
	old_lkey = b->lkey;
	KUNIT_EXPECT_EQ(test, xrdma_dereg_mr(b), 0);
	c = xrdma_alloc_mr(pd, 4);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c);
	KUNIT_EXPECT_NE(test, c->lkey >> 8, old_lkey >> 8);
	KUNIT_EXPECT_NULL(test, xrdma_mr_get_by_key(dev, old_lkey));

	KUNIT_EXPECT_EQ(test, xrdma_dereg_mr(c), 0);
	KUNIT_EXPECT_EQ(test, xrdma_dereg_mr(a), 0);
}

static void mr_next_key_wraps(struct kunit *test)
{
	/* the index is kept, the tag changes, also from 0xff */
	KUNIT_EXPECT_EQ(test, xrdma_mr_next_key(0x123456ff) >> 8, 0x123456U);
	KUNIT_EXPECT_NE(test, xrdma_mr_next_key(0x123456ff), 0x123456ffU);
	KUNIT_EXPECT_EQ(test, xrdma_mr_next_key(0x00000100) >> 8, 0x1U);
	KUNIT_EXPECT_NE(test, xrdma_mr_next_key(0x00000100), 0x00000100U);
}

static void mr_access_rules(struct kunit *test)
{
	struct xrdma_pd *pd = test->priv;
	struct xrdma_mr *mr;

	KUNIT_EXPECT_EQ(test, xrdma_check_mr_access(0), 0);
	KUNIT_EXPECT_EQ(test, xrdma_check_mr_access(XRDMA_ACCESS_REMOTE_READ),
			0);
	KUNIT_EXPECT_EQ(test, xrdma_check_mr_access(XRDMA_ACCESS_LOCAL_WRITE |
						    XRDMA_ACCESS_REMOTE_WRITE |
						    XRDMA_ACCESS_REMOTE_ATOMIC),
			0);
	/* remote write and atomic need local write */
	KUNIT_EXPECT_EQ(test, xrdma_check_mr_access(XRDMA_ACCESS_REMOTE_WRITE),
			-EINVAL);
	KUNIT_EXPECT_EQ(test,
			xrdma_check_mr_access(XRDMA_ACCESS_REMOTE_ATOMIC),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, xrdma_check_mr_access(XRDMA_ACCESS_ALL + 1),
			-EINVAL);

	/* a DMA MR is local only */
	mr = xrdma_get_dma_mr(pd, XRDMA_ACCESS_REMOTE_READ);
	KUNIT_EXPECT_EQ(test, PTR_ERR(mr), -EINVAL);
}

static void mr_alloc_limits(struct kunit *test)
{
	struct xrdma_pd *pd = test->priv;
	struct xrdma_device *dev = pd->device;
	u32 caps = dev->attr.device_cap_flags;
	u32 max = dev->attr.max_fast_reg_page_list_len;

	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_alloc_mr(pd, 0)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_alloc_mr(pd, max + 1)), -EINVAL);
	dev->attr.device_cap_flags &= ~XRDMA_DEVICE_MEM_MGT_EXTENSIONS;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_alloc_mr(pd, 1)), -EOPNOTSUPP);
	dev->attr.device_cap_flags = caps;
}

struct sg_case {
	const char *name;
	int n;
	u64 addr[4];
	u32 len[4];
	unsigned int offset;
	/* expected */
	int mapped;
	int npages;
	u64 pages[8];
	u64 iova, length;
};

#define P 4096ULL

static const struct sg_case sg_cases[] = {
	{ "one aligned page", 1, { 0x10000 }, { P }, 0,
	  1, 1, { 0x10000 }, 0x10000, P },
	{ "unaligned start and end", 1, { 0x10100 }, { 2 * P }, 0,
	  1, 3, { 0x10000, 0x11000, 0x12000 }, 0x10100, 2 * P },
	{ "two aligned entries", 2, { 0x10000, 0x30000 }, { P, 2 * P }, 0,
	  2, 3, { 0x10000, 0x30000, 0x31000 }, 0x10000, 3 * P },
	{ "contiguous entries merge", 2, { 0x10000, 0x10800 },
	  { 0x800, 0x1000 }, 0,
	  2, 2, { 0x10000, 0x11000 }, 0x10000, 0x1800 },
	{ "gap after partial page stops", 2, { 0x10000, 0x20000 },
	  { 0x800, P }, 0,
	  1, 1, { 0x10000 }, 0x10000, 0x800 },
	{ "unaligned second entry stops", 2, { 0x10000, 0x20100 },
	  { P, P }, 0,
	  1, 1, { 0x10000 }, 0x10000, P },
	{ "offset into first entry", 1, { 0x10000 }, { 3 * P }, 0x1800,
	  1, 2, { 0x11000, 0x12000 }, 0x11800, 0x1800 },
};

static void mr_sg_to_pages(struct kunit *test)
{
	struct xrdma_pd *pd = test->priv;
	struct scatterlist sgl[4];
	struct xrdma_mr *mr;
	struct fake_mr *fmr;
	int c, i, ret;

	mr = xrdma_alloc_mr(pd, 8);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	fmr = container_of(mr, struct fake_mr, ibmr);

	for (c = 0; c < ARRAY_SIZE(sg_cases); c++) {
		const struct sg_case *k = &sg_cases[c];
		unsigned int off = k->offset;

		sg_init_table(sgl, k->n);
		for (i = 0; i < k->n; i++) {
			sg_dma_address(&sgl[i]) = k->addr[i];
			sg_dma_len(&sgl[i]) = k->len[i];
		}
		ret = xrdma_map_mr_sg(mr, sgl, k->n, &off, SZ_4K);
		KUNIT_EXPECT_EQ_MSG(test, ret, k->mapped, "%s", k->name);
		KUNIT_EXPECT_EQ_MSG(test, fmr->npages, (u32)k->npages, "%s",
				    k->name);
		for (i = 0; i < k->npages && i < fmr->npages; i++)
			KUNIT_EXPECT_EQ_MSG(test, fmr->pages[i], k->pages[i],
					    "%s page %d", k->name, i);
		KUNIT_EXPECT_EQ_MSG(test, mr->iova, k->iova, "%s", k->name);
		KUNIT_EXPECT_EQ_MSG(test, mr->length, k->length, "%s",
				    k->name);
	}

	/* bad page sizes */
	KUNIT_EXPECT_EQ(test, xrdma_map_mr_sg(mr, sgl, 1, NULL, 3000),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, xrdma_map_mr_sg(mr, sgl, 1, NULL, SZ_64K),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, xrdma_map_mr_sg(mr, sgl, 0, NULL, SZ_4K),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, xrdma_dereg_mr(mr), 0);
}

/* A page list that fills up mid-entry reports where to resume. */
static void mr_sg_partial(struct kunit *test)
{
	struct xrdma_pd *pd = test->priv;
	struct scatterlist sgl[2];
	unsigned int off = 0;
	struct xrdma_mr *mr;
	int ret;

	mr = xrdma_alloc_mr(pd, 2);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	sg_init_table(sgl, 2);
	sg_dma_address(&sgl[0]) = 0x10000;
	sg_dma_len(&sgl[0]) = P;
	sg_dma_address(&sgl[1]) = 0x40000;
	sg_dma_len(&sgl[1]) = 3 * P;
	ret = xrdma_map_mr_sg(mr, sgl, 2, &off, SZ_4K);
	KUNIT_EXPECT_EQ(test, ret, 1);
	KUNIT_EXPECT_EQ(test, off, (unsigned int)P);
	KUNIT_EXPECT_EQ(test, mr->length, 2 * P);

	/* a single entry bigger than the whole list maps nothing */
	off = 0;
	sg_dma_len(&sgl[0]) = 3 * P;
	KUNIT_EXPECT_EQ(test, xrdma_map_mr_sg(mr, sgl, 1, &off, SZ_4K), 0);
	KUNIT_EXPECT_EQ(test, off, (unsigned int)(2 * P));
	KUNIT_EXPECT_EQ(test, xrdma_dereg_mr(mr), 0);
}

static void mr_umem_checks(struct kunit *test)
{
	struct xrdma_pd *pd = test->priv;
	struct xrdma_device *dev = pd->device;
	struct xrdma_umem *umem;

	KUNIT_EXPECT_EQ(test, xrdma_umem_num_pages(0x1000, 1), 1UL);
	KUNIT_EXPECT_EQ(test, xrdma_umem_num_pages(0x1fff, 2), 2UL);
	KUNIT_EXPECT_EQ(test, xrdma_umem_num_pages(0x1000, 0x2000), 2UL);
	KUNIT_EXPECT_EQ(test, xrdma_umem_num_pages(0x1800, 0x2000), 3UL);

	/* bad input is refused before any page is touched */
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_umem_get(dev, 0x1000, 0, 0)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_umem_get(dev, U64_MAX - 10, 100,
						     0)), -EINVAL);
	/* the sum fits, its page-aligned end does not */
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_umem_get(dev, U64_MAX - 10, 4, 0)),
			-EINVAL);
	umem = xrdma_umem_get(dev, 0x1000, dev->attr.max_mr_size + 1, 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(umem), -EINVAL);
	umem = xrdma_umem_get(dev, 0x1000, 4096, XRDMA_ACCESS_REMOTE_WRITE);
	KUNIT_EXPECT_EQ(test, PTR_ERR(umem), -EINVAL);
	/* a kernel thread has no user memory */
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_umem_get(dev, 0x1000, 4096, 0)),
			-EFAULT);

	/* reg_user_mr: iova must keep the offset in the page */
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_reg_user_mr(pd, 0x1010, 16,
							0x2020, 0, NULL)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_reg_user_mr(pd, 0x1010, 16,
							U64_MAX - 8, 0,
							NULL)), -EINVAL);
	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_MR), 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&pd->usecnt), 1);
}

/*
 * A driver whose device may still use the MR: the MR is gone for the
 * caller all the same (dereg returns 0, the PD is free again).
 */
static void mr_dereg_device_busy(struct kunit *test)
{
	struct xrdma_pd *pd = test->priv;
	struct xrdma_device *dev = pd->device;
	struct xrdma_mr *mr;

	mr = xrdma_get_dma_mr(pd, XRDMA_ACCESS_LOCAL_WRITE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	to_fake_dev(dev)->dereg_mr_result = -EBUSY;
	KUNIT_EXPECT_EQ(test, xrdma_dereg_mr(mr), 0);
	to_fake_dev(dev)->dereg_mr_result = 0;
	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_MR), 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&pd->usecnt), 1);
}

static struct kunit_case mr_cases[] = {
	KUNIT_CASE(mr_keys),
	KUNIT_CASE(mr_next_key_wraps),
	KUNIT_CASE(mr_access_rules),
	KUNIT_CASE(mr_alloc_limits),
	KUNIT_CASE(mr_sg_to_pages),
	KUNIT_CASE(mr_sg_partial),
	KUNIT_CASE(mr_umem_checks),
	KUNIT_CASE(mr_dereg_device_busy),
	{}
};

static struct kunit_suite mr_suite = {
	.name = "xrdma_core_mr",
	.init = mr_init,
	.exit = mr_exit,
	.test_cases = mr_cases,
};

kunit_test_suite(mr_suite);
