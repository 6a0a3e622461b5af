// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the model's device memory (Documentation/xnic/
 * registers.rst "DM_BASE", commands.rst "REG_MR"):
 *   xnic_sim_dm  the DM window registers (a page-aligned, zeroed window of
 *                XNIC_SIM_DM_SIZE bytes) and MRs with XNIC_MR_F_DM: the
 *                range check, the translation to the window (zero-based
 *                addresses), copies into and out of it and atomics on it,
 *                and nothing beyond the MR's length
 *
 * The model's sources are compiled into this module by
 * kunit/xnic_sim_test.c; this file calls its non-static functions on a
 * device without engine thread and on MRs made by hand.
 */
#include <kunit/test.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include "xnic_sim_fixture.h"

#define KT_DM_KEY	(3 << 8 | 0x42)
#define KT_DM_PD	5
#define KT_DM_OFF	0x1000		/* the MR starts a page into the window */
#define KT_DM_LEN	0x2000
#define KT_REMOTE	(XNIC_ACCESS_LOCAL_WRITE | XNIC_ACCESS_REMOTE_WRITE | \
			 XNIC_ACCESS_REMOTE_READ | XNIC_ACCESS_REMOTE_ATOMIC)

struct kt_dm {
	struct xnic_sim_dev *dev;
	struct xnic_sim_mr mr;
	u8 *win;			/* CPU view of the window */
};

static void kt_dm_init(struct kunit *test, struct kt_dm *d)
{
	struct xnic_bus *bus;
	u64 base;

	d->dev = kt_sim_dev(test, 0, false);
	bus = &d->dev->pdata.bus;
	base = bus->read32(bus, XNIC_REG_DM_BASE_LO) |
	       (u64)bus->read32(bus, XNIC_REG_DM_BASE_HI) << 32;
	KUNIT_ASSERT_EQ(test, base, d->dev->dm_base);
	d->win = phys_to_virt(base);
	/* an MR as REG_MR with XNIC_MR_F_DM makes it */
	d->mr = (struct xnic_sim_mr) {
		.key = KT_DM_KEY, .pdn = KT_DM_PD, .access = KT_REMOTE,
		.flags = XNIC_MR_F_DM, .valid = true, .iova = 0,
		.length = KT_DM_LEN, .dm_dma = base + KT_DM_OFF,
	};
}

static void xnic_sim_dm_regs(struct kunit *test)
{
	struct kt_dm d;
	struct xnic_bus *bus;
	u32 i;

	kt_dm_init(test, &d);
	bus = &d.dev->pdata.bus;
	KUNIT_EXPECT_EQ(test, bus->read32(bus, XNIC_REG_DM_SIZE),
			(u32)XNIC_SIM_DM_SIZE);
	KUNIT_EXPECT_NE(test, d.dev->dm_base, 0ULL);
	KUNIT_EXPECT_TRUE(test, PAGE_ALIGNED(d.dev->dm_base));
	/* read only: writes are ignored */
	bus->write32(bus, XNIC_REG_DM_SIZE, 1);
	bus->write32(bus, XNIC_REG_DM_BASE_LO, 0x1000);
	KUNIT_EXPECT_EQ(test, bus->read32(bus, XNIC_REG_DM_SIZE),
			(u32)XNIC_SIM_DM_SIZE);
	KUNIT_EXPECT_EQ(test, bus->read32(bus, XNIC_REG_DM_BASE_LO),
			lower_32_bits(d.dev->dm_base));
	for (i = 0; i < XNIC_SIM_DM_SIZE && !d.win[i]; i++)
		;
	KUNIT_EXPECT_EQ(test, i, (u32)XNIC_SIM_DM_SIZE);
}

static void xnic_sim_dm_check(struct kunit *test)
{
	struct kt_dm d;

	kt_dm_init(test, &d);
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_check(&d.mr, KT_DM_KEY, KT_DM_PD, 0,
						KT_DM_LEN, KT_REMOTE, true), 0);
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_check(&d.mr, KT_DM_KEY, KT_DM_PD,
						KT_DM_LEN - 1, 1,
						XNIC_ACCESS_REMOTE_READ,
						true), 0);
	/* one byte beyond, a wrapping range, another PD or key */
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_check(&d.mr, KT_DM_KEY, KT_DM_PD,
						KT_DM_LEN - 1, 2,
						XNIC_ACCESS_REMOTE_READ,
						true), -EACCES);
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_check(&d.mr, KT_DM_KEY, KT_DM_PD,
						U64_MAX, 2, 0, false), -EACCES);
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_check(&d.mr, KT_DM_KEY, KT_DM_PD + 1,
						0, 8, 0, false), -EACCES);
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_check(&d.mr, KT_DM_KEY + 1, KT_DM_PD,
						0, 8, 0, false), -EACCES);
	d.mr.access = XNIC_ACCESS_LOCAL_WRITE;
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_check(&d.mr, KT_DM_KEY, KT_DM_PD, 0,
						8, XNIC_ACCESS_REMOTE_WRITE,
						true), -EACCES);
}

static void xnic_sim_dm_xlate(struct kunit *test)
{
	struct kt_dm d;
	u64 dma, contig;

	kt_dm_init(test, &d);
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_xlate(&d.mr, 0, &dma, &contig), 0);
	KUNIT_EXPECT_EQ(test, dma, d.dev->dm_base + KT_DM_OFF);
	KUNIT_EXPECT_EQ(test, contig, (u64)KT_DM_LEN);
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_xlate(&d.mr, 0x1234, &dma, &contig),
			0);
	KUNIT_EXPECT_EQ(test, dma, d.dev->dm_base + KT_DM_OFF + 0x1234);
	KUNIT_EXPECT_EQ(test, contig, (u64)KT_DM_LEN - 0x1234);
	/* the MR's end is the end of what it translates */
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_xlate(&d.mr, KT_DM_LEN, &dma,
						&contig), -EFAULT);
	/* an iova other than 0 is the MR's first byte */
	d.mr.iova = 0x10000;
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_xlate(&d.mr, 0x10008, &dma, &contig),
			0);
	KUNIT_EXPECT_EQ(test, dma, d.dev->dm_base + KT_DM_OFF + 8);
	KUNIT_EXPECT_EQ(test, xnic_sim_mr_xlate(&d.mr, 0xfff8, &dma, &contig),
			-EFAULT);
}

static void xnic_sim_dm_copy(struct kunit *test)
{
	u8 src[300], dst[300];
	struct xnic_sim_seg s = { .kaddr = src, .len = sizeof(src) };
	struct xnic_sim_seg m = { .addr = KT_DM_LEN - 300, .len = 300 };
	struct xnic_sim_seg k = { .kaddr = dst, .len = sizeof(dst) };
	struct kt_dm d;
	u64 old = 0, v;
	u32 i;

	kt_dm_init(test, &d);
	m.mr = &d.mr;
	for (i = 0; i < sizeof(src); i++)
		src[i] = (u8)(i * 5 + 3);
	/* into the DM: the last 300 bytes of the MR, in the window */
	KUNIT_EXPECT_EQ(test, xnic_sim_copy(&m, 1, &s, 1, 300, false), 0);
	KUNIT_EXPECT_EQ(test, memcmp(d.win + KT_DM_OFF + KT_DM_LEN - 300, src,
				     300), 0);
	/* nothing before the MR or after it was touched */
	KUNIT_EXPECT_EQ(test, d.win[KT_DM_OFF + KT_DM_LEN], 0);
	KUNIT_EXPECT_EQ(test, d.win[KT_DM_OFF - 1], 0);
	/* out of it */
	memset(dst, 0, sizeof(dst));
	KUNIT_EXPECT_EQ(test, xnic_sim_copy(&k, 1, &m, 1, 300, false), 0);
	KUNIT_EXPECT_EQ(test, memcmp(dst, src, 300), 0);
	/* a segment reaching past the MR stops there */
	m.addr = KT_DM_LEN - 10;
	m.len = 20;
	KUNIT_EXPECT_EQ(test, xnic_sim_copy(&m, 1, &s, 1, 20, false), -EFAULT);
	KUNIT_EXPECT_EQ(test, d.win[KT_DM_OFF + KT_DM_LEN], 0);

	/* atomics on the window */
	v = 40;
	memcpy(d.win + KT_DM_OFF + 64, &v, 8);
	KUNIT_EXPECT_EQ(test, xnic_sim_atomic(&d.mr, 64, false, 2, 0, &old), 0);
	KUNIT_EXPECT_EQ(test, old, 40ULL);
	KUNIT_EXPECT_EQ(test, xnic_sim_atomic(&d.mr, 64, true, 42, 7, &old), 0);
	KUNIT_EXPECT_EQ(test, old, 42ULL);
	memcpy(&v, d.win + KT_DM_OFF + 64, 8);
	KUNIT_EXPECT_EQ(test, v, 7ULL);
	KUNIT_EXPECT_EQ(test, xnic_sim_atomic(&d.mr, 65, false, 1, 0, &old),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_atomic(&d.mr, KT_DM_LEN, false, 1, 0,
					      &old), -EFAULT);
}

static struct kunit_case dm_cases[] = {
	KUNIT_CASE(xnic_sim_dm_regs),
	KUNIT_CASE(xnic_sim_dm_check),
	KUNIT_CASE(xnic_sim_dm_xlate),
	KUNIT_CASE(xnic_sim_dm_copy),
	{}
};

static struct kunit_suite dm_suite = {
	.name = "xnic_sim_dm",
	.test_cases = dm_cases,
};

kunit_test_suites(&dm_suite);
