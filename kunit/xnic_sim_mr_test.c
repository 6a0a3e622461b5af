// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite xnic_sim_mr: the device model's MR checks, MTT translation,
 * copies between scatter/gather lists over real pages, atomics
 * (xnic_sim_mem.c; the sources come with kunit/xnic_sim_test.c).
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/io.h>
#include "xnic_sim_fixture.h"

#define MR_PAGES	6

/* Real pages, scattered (allocated one by one), as an MTT-based MR. */
struct mr_fix {
	struct page *pg[MR_PAGES];
	u64 mtt[MR_PAGES];
	struct xnic_sim_mr mr;
};

static void mr_fix_exit(struct kunit_resource *res)
{
	struct mr_fix *f = res->data;
	int i;

	for (i = 0; i < MR_PAGES; i++)
		if (f->pg[i])
			__free_page(f->pg[i]);
}

static struct mr_fix *mr_fix_new(struct kunit *test, u64 iova, u64 len,
				 u32 access)
{
	struct mr_fix *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, f);
	/* allocate in reverse so the pages are unlikely to be contiguous */
	for (i = MR_PAGES - 1; i >= 0; i--) {
		f->pg[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		KUNIT_ASSERT_NOT_NULL(test, f->pg[i]);
		f->mtt[i] = page_to_phys(f->pg[i]);
	}
	kt_defer(test, mr_fix_exit, f);
	f->mr = (struct xnic_sim_mr) {
		.key = 0x1234, .pdn = 3, .access = access, .valid = true,
		.page_shift = PAGE_SHIFT, .npages = MR_PAGES,
		.max_pages = MR_PAGES, .iova = iova, .length = len,
		.mtt = f->mtt,
	};
	return f;
}

static u8 *mr_byte(struct mr_fix *f, u64 iova)
{
	u64 off = iova - (f->mr.iova & PAGE_MASK);

	return page_address(f->pg[off >> PAGE_SHIFT]) + (off & ~PAGE_MASK);
}

static void mr_check(struct kunit *test)
{
	struct mr_fix *f = mr_fix_new(test, 0x10000100, 0x4000,
				      XNIC_ACCESS_REMOTE_WRITE);
	const struct xnic_sim_mr *mr = &f->mr;
	struct xnic_sim_mr all = {
		.key = 0x500, .pdn = 3, .flags = XNIC_MR_F_ALL, .valid = true,
		.access = XNIC_ACCESS_LOCAL_WRITE,
	};

	KUNIT_EXPECT_EQ(test, xnic_sim_mr_check(mr, 0x1234, 3, 0x10000100,
						0x4000, 0, false), 0);
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_check(mr, 0x1234, 3, 0x10004000,
						0x100, XNIC_ACCESS_REMOTE_WRITE,
						true), 0);
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_check(mr, 0x1234, 3, 0x10004100,
						0, 0, true), 0);
	/* no MR, wrong tag, wrong PD, invalid */
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_check(NULL, 0x1234, 3, 0x10000100,
						1, 0, false), -EACCES);
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_check(mr, 0x1235, 3, 0x10000100,
						1, 0, false), -EACCES);
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_check(mr, 0x1234, 4, 0x10000100,
						1, 0, false), -EACCES);
	f->mr.valid = false;
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_check(mr, 0x1234, 3, 0x10000100,
						1, 0, false), -EACCES);
	f->mr.valid = true;
	/* rights */
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_check(mr, 0x1234, 3, 0x10000100,
						1, XNIC_ACCESS_LOCAL_WRITE,
						false), -EACCES);
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_check(mr, 0x1234, 3, 0x10000100,
						1, XNIC_ACCESS_REMOTE_READ,
						true), -EACCES);
	/* bounds: before, past the end, straddling, wrapping */
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_check(mr, 0x1234, 3, 0x100000ff,
						1, 0, false), -EACCES);
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_check(mr, 0x1234, 3, 0x10004100,
						1, 0, false), -EACCES);
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_check(mr, 0x1234, 3, 0x10004000,
						0x101, 0, false), -EACCES);
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_check(mr, 0x1234, 3, 0x10000100,
						~0ULL, 0, false), -EACCES);
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_check(mr, 0x1234, 3, ~0ULL - 7,
						0x10, 0, false), -EACCES);
	/* DMA MR: any address, local only */
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_check(&all, 0x500, 3, 0x1234567,
						100, XNIC_ACCESS_LOCAL_WRITE,
						false), 0);
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_check(&all, 0x500, 3, 0x1234567,
						100, 0, true), -EACCES);
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_check(&all, 0x500, 3, ~0ULL, 2, 0,
						false), -EACCES);
}

static void mr_params(struct kunit *test)
{
	u64 max = 1ULL << 40;

	KUNIT_EXPECT_EQ(test, xnic_sim_mr_params_ok(0x1000, 0x3000, 3, 12,
						    max), 0);
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_params_ok(0x1800, 0x3000, 3, 12,
						    max), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_params_ok(0x1800, 0x3000, 4, 12,
						    max), 0);
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_params_ok(0x1800, 0x3000, 4, 11,
						    max), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_params_ok(0x1800, 0x3000, 4, 31,
						    max), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_params_ok(0x200000, 0x400000, 2, 21,
						    max), 0);
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_params_ok(0, max + 1, 1U << 28, 12,
						    max), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_params_ok(~0ULL - 10, 100, 1, 12,
						    max), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_params_ok(0x1000, 0, 0, 12, max), 0);
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_params_ok(0x1000, 1, 0, 12, max),
			-EINVAL);
}

static void mr_mtt_check(struct kunit *test)
{
	struct mr_fix *f = mr_fix_new(test, 0, 0x1000, 0);
	u64 bad[2];

	KUNIT_EXPECT_EQ(test, xnic_sim_mtt_check(f->mtt, MR_PAGES, 12), 0);
	bad[0] = f->mtt[0];
	bad[1] = f->mtt[1] + 8;
	KUNIT_EXPECT_EQ(test, xnic_sim_mtt_check(bad, 2, 12), -EINVAL);
	bad[1] = ~0ULL & PAGE_MASK;
	KUNIT_EXPECT_EQ(test, xnic_sim_mtt_check(bad, 2, 12), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_mtt_check(bad, 0, 12), 0);
}

static void mr_xlate(struct kunit *test)
{
	u64 mtt[3] = { 0x40000000, 0x80000000, 0x20000000 };
	struct xnic_sim_mr mr = {
		.page_shift = 21, .npages = 3, .max_pages = 3,
		.iova = 0x7f0000123456ULL, .length = 0x400000, .mtt = mtt,
	};
	u64 dma, contig;

	/* 2 MiB pages: the first covers iova's 2 MiB page from its base */
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_xlate(&mr, 0x7f0000123456ULL, &dma,
						&contig), 0);
	KUNIT_EXPECT_EQ(test, dma, 0x40123456ULL);
	KUNIT_EXPECT_EQ(test, contig, 0x200000ULL - 0x123456);
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_xlate(&mr, 0x7f0000200000ULL, &dma,
						&contig), 0);
	KUNIT_EXPECT_EQ(test, dma, 0x80000000ULL);
	KUNIT_EXPECT_EQ(test, contig, 0x200000ULL);
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_xlate(&mr, 0x7f00005fffffULL, &dma,
						&contig), 0);
	KUNIT_EXPECT_EQ(test, dma, 0x201fffffULL);
	KUNIT_EXPECT_EQ(test, contig, 1ULL);
	/* beyond the page list, before it */
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_xlate(&mr, 0x7f0000600000ULL, &dma,
						&contig), -EFAULT);
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_xlate(&mr, 0x7effffffffffULL, &dma,
						&contig), -EFAULT);
	/* npages beyond max_pages (a racing re-registration) is bounded */
	mr.npages = 100;
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_xlate(&mr, 0x7f0000600000ULL, &dma,
						&contig), -EFAULT);
	/* a corrupt page shift */
	mr.page_shift = 63;
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_xlate(&mr, 0x7f0000123456ULL, &dma,
						&contig), -EFAULT);
	/* DMA MR: identity */
	mr.flags = XNIC_MR_F_ALL;
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_xlate(&mr, 0x1234, &dma, &contig),
			0);
	KUNIT_EXPECT_EQ(test, dma, 0x1234ULL);
}

/* Scatter a buffer into an MR through three SGEs, then gather it back. */
static void mr_copy_sgl(struct kunit *test)
{
	u64 iova = 0x5000000000000f00ULL, len = (MR_PAGES - 1) * PAGE_SIZE;
	struct mr_fix *f = mr_fix_new(test, iova, len,
				      XNIC_ACCESS_LOCAL_WRITE);
	u8 *src = kunit_kzalloc(test, len, GFP_KERNEL);
	u8 *back = kunit_kzalloc(test, len, GFP_KERNEL);
	struct xnic_sim_seg k[2], m[3];
	u64 i, n1 = 100, n2 = 2 * PAGE_SIZE + 33;

	KUNIT_ASSERT_NOT_NULL(test, src);
	KUNIT_ASSERT_NOT_NULL(test, back);
	kt_fill_pattern(src, len, 3);
	/* source: two kernel pieces; destination: three MR pieces */
	k[0] = (struct xnic_sim_seg) { .kaddr = src, .len = 5000 };
	k[1] = (struct xnic_sim_seg) { .kaddr = src + 5000,
				       .len = len - 5000 };
	m[0] = (struct xnic_sim_seg) { .mr = &f->mr, .addr = iova,
				       .len = n1 };
	m[1] = (struct xnic_sim_seg) { .mr = &f->mr, .addr = iova + n1,
				       .len = n2 };
	m[2] = (struct xnic_sim_seg) { .mr = &f->mr, .addr = iova + n1 + n2,
				       .len = len - n1 - n2 };
	KUNIT_EXPECT_EQ(test, xnic_sim_segs_len(m, 3), len);
	KUNIT_ASSERT_EQ(test, xnic_sim_copy(m, 3, k, 2, len, true), 0);
	for (i = 0; i < len; i++)
		if (*mr_byte(f, iova + i) != src[i])
			break;
	KUNIT_EXPECT_EQ_MSG(test, i, len, "first difference at %llu", i);
	/* the byte before the MR's start in its first page is untouched */
	KUNIT_EXPECT_EQ(test, *mr_byte(f, iova - 1), 0);

	/* gather it back in one kernel segment */
	k[0] = (struct xnic_sim_seg) { .kaddr = back, .len = len };
	KUNIT_ASSERT_EQ(test, xnic_sim_copy(k, 1, m, 3, len, false), 0);
	KUNIT_EXPECT_EQ(test, memcmp(back, src, len), 0);

	/* MR to MR, shifted by an odd offset, overlapping (memmove) */
	m[0] = (struct xnic_sim_seg) { .mr = &f->mr, .addr = iova + 1,
				       .len = 3 * PAGE_SIZE };
	m[1] = (struct xnic_sim_seg) { .mr = &f->mr, .addr = iova + 4000,
				       .len = 3 * PAGE_SIZE };
	KUNIT_ASSERT_EQ(test, xnic_sim_copy(m, 1, &m[1], 1, 3 * PAGE_SIZE,
					    true), 0);
}

static void mr_copy_short(struct kunit *test)
{
	struct mr_fix *f = mr_fix_new(test, 0x1000, 2 * PAGE_SIZE, 0);
	u8 buf[64] = {};
	struct xnic_sim_seg k = { .kaddr = buf, .len = sizeof(buf) };
	struct xnic_sim_seg m[2] = {
		{ .mr = &f->mr, .addr = 0x1000, .len = 0 },
		{ .mr = &f->mr, .addr = 0x1000, .len = 16 },
	};

	/* a zero-length segment is skipped */
	KUNIT_EXPECT_EQ(test, xnic_sim_copy(m, 2, &k, 1, 16, false), 0);
	/* lists shorter than the length */
	KUNIT_EXPECT_EQ(test, xnic_sim_copy(m, 2, &k, 1, 17, false), -EFAULT);
	KUNIT_EXPECT_EQ(test, xnic_sim_copy(&k, 1, m, 2, 17, false), -EFAULT);
	KUNIT_EXPECT_EQ(test, xnic_sim_copy(&k, 1, m, 0, 1, false), -EFAULT);
	/* nothing to copy needs no segment */
	KUNIT_EXPECT_EQ(test, xnic_sim_copy(NULL, 0, NULL, 0, 0, false), 0);
	/* an address beyond the page list (unchecked segment) */
	m[1].addr = 0x1000 + MR_PAGES * PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, xnic_sim_copy(m, 2, &k, 1, 16, false), -EFAULT);
}

/* 64 KiB through 8 SGEs each side with odd sizes: the benchmark shape. */
static void mr_copy_64k(struct kunit *test)
{
	size_t len = 64 * 1024;
	u8 *a = kunit_kmalloc(test, len, GFP_KERNEL);
	u8 *b = kunit_kzalloc(test, len, GFP_KERNEL);
	struct xnic_sim_mr all = { .flags = XNIC_MR_F_ALL, .valid = true };
	struct xnic_sim_seg s[8], d[8];
	size_t off = 0, doff = 0;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	kt_fill_pattern(a, len, 9);
	for (i = 0; i < 8; i++) {
		size_t sl = i < 7 ? 8191 - i : len - off;
		size_t dl = i < 7 ? 7000 + i * 3 : len - doff;

		s[i] = (struct xnic_sim_seg) { .mr = &all,
					       .addr = virt_to_phys(a + off),
					       .len = sl };
		d[i] = (struct xnic_sim_seg) { .mr = &all,
					       .addr = virt_to_phys(b + doff),
					       .len = dl };
		off += sl;
		doff += dl;
	}
	KUNIT_ASSERT_EQ(test, xnic_sim_copy(d, 8, s, 8, len, true), 0);
	KUNIT_EXPECT_EQ(test, memcmp(a, b, len), 0);
}

static void mr_atomic(struct kunit *test)
{
	struct mr_fix *f = mr_fix_new(test, 0x2000, PAGE_SIZE,
				      XNIC_ACCESS_REMOTE_ATOMIC);
	u64 *v = (u64 *)mr_byte(f, 0x2008), orig;

	*v = 10;
	KUNIT_EXPECT_EQ(test, xnic_sim_atomic(&f->mr, 0x2008, false, 5, 0,
					      &orig), 0);
	KUNIT_EXPECT_EQ(test, orig, 10ULL);
	KUNIT_EXPECT_EQ(test, *v, 15ULL);
	/* compare fails: unchanged */
	KUNIT_EXPECT_EQ(test, xnic_sim_atomic(&f->mr, 0x2008, true, 3, 99,
					      &orig), 0);
	KUNIT_EXPECT_EQ(test, orig, 15ULL);
	KUNIT_EXPECT_EQ(test, *v, 15ULL);
	KUNIT_EXPECT_EQ(test, xnic_sim_atomic(&f->mr, 0x2008, true, 15, 99,
					      &orig), 0);
	KUNIT_EXPECT_EQ(test, orig, 15ULL);
	KUNIT_EXPECT_EQ(test, *v, 99ULL);
	/* wraps */
	*v = ~0ULL;
	KUNIT_EXPECT_EQ(test, xnic_sim_atomic(&f->mr, 0x2008, false, 2, 0,
					      &orig), 0);
	KUNIT_EXPECT_EQ(test, *v, 1ULL);
	/* misaligned */
	KUNIT_EXPECT_EQ(test, xnic_sim_atomic(&f->mr, 0x2004, false, 1, 0,
					      &orig), -EINVAL);
}

static struct kunit_case mr_cases[] = {
	KUNIT_CASE(mr_check),
	KUNIT_CASE(mr_params),
	KUNIT_CASE(mr_mtt_check),
	KUNIT_CASE(mr_xlate),
	KUNIT_CASE(mr_copy_sgl),
	KUNIT_CASE(mr_copy_short),
	KUNIT_CASE(mr_copy_64k),
	KUNIT_CASE(mr_atomic),
	{}
};

static struct kunit_suite mr_suite = {
	.name = "xnic_sim_mr",
	.test_cases = mr_cases,
};

kunit_test_suite(mr_suite);
