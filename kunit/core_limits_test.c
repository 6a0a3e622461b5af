// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma_core_limits: the per-uid shares of a device (device.c), the
 * charging of a process's objects (verbs.c) and the accounting of the
 * memory a context maps (ucontext.c: RLIMIT_MEMLOCK in pinned_vm, the
 * per-context cap).  Unprivileged callers are played with override_creds.
 */
#include <linux/cred.h>
#include <linux/capability.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include "fake_driver.h"
#include "core_priv.h"

/*
 * The module parameters a case changes are saved by init and restored by
 * exit, which KUnit runs even after a failed assertion ended the case.
 */
struct lim_ctx {
	struct fake_dev *fd;
	unsigned int user_share;
	unsigned int max_ucontext_mem;
};

static struct fake_dev *lim_dev(struct kunit *test)
{
	return ((struct lim_ctx *)test->priv)->fd;
}

static int limits_init(struct kunit *test)
{
	struct lim_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	ctx->user_share = xrdma_user_share;
	ctx->max_ucontext_mem = xrdma_max_ucontext_mem;
	test->priv = ctx;
	ctx->fd = fake_dev_create(test, "klim%d");
	return 0;
}

static void limits_exit(struct kunit *test)
{
	struct lim_ctx *ctx = test->priv;

	xrdma_user_share = ctx->user_share;
	xrdma_max_ucontext_mem = ctx->max_ucontext_mem;
	if (!ctx->fd)		/* init's assertion failed */
		return;
	/* every charge was given back: no uid is left in the table */
	KUNIT_EXPECT_TRUE(test, xa_empty(&ctx->fd->ibdev.uaccts));
	fake_dev_destroy(ctx->fd);
}

/* Run as @uid without any capability until lim_unbecome(). */
static const struct cred *lim_become(struct kunit *test, uid_t uid,
				     struct cred **newp)
{
	struct cred *new = prepare_creds();

	KUNIT_ASSERT_NOT_NULL(test, new);
	new->uid = KUIDT_INIT(uid);
	new->euid = KUIDT_INIT(uid);
	new->fsuid = KUIDT_INIT(uid);
	cap_clear(new->cap_effective);
	cap_clear(new->cap_permitted);
	*newp = new;
	return override_creds(new);
}

static void lim_unbecome(const struct cred *old, struct cred *new)
{
	revert_creds(old);
	put_cred(new);
}

static void limits_share_arith(struct kunit *test)
{
	struct xrdma_device *dev = &lim_dev(test)->ibdev;

	dev->attr.max_srq = 1024;
	dev->attr.max_ucontext = 1023;
	xrdma_user_share = 50;
	KUNIT_EXPECT_EQ(test, xrdma_ulim_limit(dev, XRDMA_ULIM_SRQ), 512U);
	KUNIT_EXPECT_EQ(test, xrdma_ulim_limit(dev, XRDMA_ULIM_UCONTEXT), 511U);
	dev->attr.max_srq = 1;
	KUNIT_EXPECT_EQ(test, xrdma_ulim_limit(dev, XRDMA_ULIM_SRQ), 1U);
	dev->attr.max_ucontext = 0;	/* the driver does not say */
	KUNIT_EXPECT_EQ(test, xrdma_ulim_limit(dev, XRDMA_ULIM_UCONTEXT),
			UINT_MAX);
	xrdma_user_share = 100;
	KUNIT_EXPECT_EQ(test, xrdma_ulim_limit(dev, XRDMA_ULIM_SRQ), UINT_MAX);
}

/* Counted shares: device memory pages, multicast attachments. */
static void limits_uid_units(struct kunit *test)
{
	struct xrdma_device *dev = &lim_dev(test)->ibdev;
	struct xrdma_ucharge c[3] = {};
	const struct cred *saved;
	struct cred *new;

	xrdma_user_share = 50;
	dev->attr.max_dm_size = 32 * PAGE_SIZE;
	dev->attr.max_mcast_grp = 64;
	dev->attr.max_total_mcast_qp_attach = 256;
	KUNIT_EXPECT_EQ(test, xrdma_ulim_limit(dev, XRDMA_ULIM_DM), 16U);
	/* each attachment may create a group: the smaller limit */
	KUNIT_EXPECT_EQ(test, xrdma_ulim_limit(dev, XRDMA_ULIM_MCAST), 32U);
	saved = lim_become(test, 4244, &new);
	KUNIT_EXPECT_EQ(test, xrdma_user_charge_n(dev, XRDMA_ULIM_DM, 10,
						  &c[0]), 0);
	/* 10 + 7 > 16: refused whole, nothing counted */
	KUNIT_EXPECT_EQ(test, xrdma_user_charge_n(dev, XRDMA_ULIM_DM, 7,
						  &c[1]), -EAGAIN);
	KUNIT_EXPECT_EQ(test, xrdma_user_charge_n(dev, XRDMA_ULIM_DM, 6,
						  &c[1]), 0);
	KUNIT_EXPECT_EQ(test, xrdma_user_count(dev, KUIDT_INIT(4244),
					       XRDMA_ULIM_DM), 16U);
	/* more than the whole share at once (no wrap-around) */
	KUNIT_EXPECT_EQ(test, xrdma_user_charge_n(dev, XRDMA_ULIM_MCAST,
						  UINT_MAX, &c[2]), -EAGAIN);
	xrdma_user_uncharge_n(dev, XRDMA_ULIM_DM, 10, &c[0]);
	xrdma_user_uncharge_n(dev, XRDMA_ULIM_DM, 6, &c[1]);
	KUNIT_EXPECT_EQ(test, xrdma_user_count(dev, KUIDT_INIT(4244),
					       XRDMA_ULIM_DM), 0U);
	lim_unbecome(saved, new);
}

static void limits_uid_share(struct kunit *test)
{
	struct xrdma_device *dev = &lim_dev(test)->ibdev;
	struct xrdma_ucharge c[5] = {};
	const struct cred *saved;
	struct cred *new;
	int i;

	xrdma_user_share = 50;
	dev->attr.max_srq = 4;		/* 2 per uid */
	saved = lim_become(test, 4242, &new);
	KUNIT_EXPECT_EQ(test, xrdma_user_charge(dev, XRDMA_ULIM_SRQ, &c[0]), 0);
	KUNIT_EXPECT_EQ(test, xrdma_user_charge(dev, XRDMA_ULIM_SRQ, &c[1]), 0);
	KUNIT_EXPECT_EQ(test, xrdma_user_charge(dev, XRDMA_ULIM_SRQ, &c[2]),
			-EAGAIN);
	KUNIT_EXPECT_NULL(test, c[2].uacct);
	/* other kinds are counted apart */
	KUNIT_EXPECT_EQ(test, xrdma_user_charge(dev, XRDMA_ULIM_PD, &c[2]), 0);
	KUNIT_EXPECT_EQ(test, xrdma_user_count(dev, KUIDT_INIT(4242),
					       XRDMA_ULIM_SRQ), 2U);
	lim_unbecome(saved, new);

	/* a second uid has its own share */
	saved = lim_become(test, 4243, &new);
	KUNIT_EXPECT_EQ(test, xrdma_user_charge(dev, XRDMA_ULIM_SRQ, &c[3]), 0);
	lim_unbecome(saved, new);
	/* CAP_SYS_RESOURCE (the test's own credentials) is exempt */
	KUNIT_EXPECT_EQ(test, xrdma_user_charge(dev, XRDMA_ULIM_SRQ, &c[4]), 0);

	for (i = 0; i < ARRAY_SIZE(c); i++)
		xrdma_user_uncharge(dev, i == 2 ? XRDMA_ULIM_PD : XRDMA_ULIM_SRQ,
				    &c[i]);
	KUNIT_EXPECT_EQ(test, xrdma_user_count(dev, KUIDT_INIT(4242),
					       XRDMA_ULIM_SRQ), 0U);
	/* a second uncharge does nothing */
	xrdma_user_uncharge(dev, XRDMA_ULIM_SRQ, &c[0]);
}

static void limits_object_charge(struct kunit *test)
{
	struct xrdma_device *dev = &lim_dev(test)->ibdev;
	struct xrdma_pd *pd1, *pd2, *kpd;
	const struct cred *saved;
	struct cred *new;

	xrdma_user_share = 50;
	dev->attr.max_pd = 2;		/* 1 per uid */
	saved = lim_become(test, 4244, &new);
	/* no caller: a process's object, charged */
	pd1 = __xrdma_alloc_pd(dev, 0, NULL, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd1);
	KUNIT_EXPECT_EQ(test, xrdma_user_count(dev, KUIDT_INIT(4244),
					       XRDMA_ULIM_PD), 1U);
	pd2 = __xrdma_alloc_pd(dev, 0, NULL, NULL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(pd2), -EAGAIN);
	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_PD), 1U);
	/* a kernel consumer's object is not the user's */
	kpd = xrdma_alloc_pd(dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, kpd);
	KUNIT_EXPECT_NULL(test, kpd->res.charge.uacct);
	lim_unbecome(saved, new);

	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(kpd), 0);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(pd1), 0);
	KUNIT_EXPECT_EQ(test, xrdma_user_count(dev, KUIDT_INIT(4244),
					       XRDMA_ULIM_PD), 0U);
}

static void limits_ucontext_cap(struct kunit *test)
{
	unsigned long cap = 1UL << (20 - PAGE_SHIFT);
	struct xrdma_ucontext uctx = {};

	xrdma_max_ucontext_mem = 1;	/* MiB */
	KUNIT_EXPECT_EQ(test, xrdma_ucontext_charge(&uctx, cap - 10), 0);
	KUNIT_EXPECT_EQ(test, xrdma_ucontext_charge(&uctx, 11), -ENOMEM);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&uctx.mem_pages), cap - 10);
	KUNIT_EXPECT_EQ(test, xrdma_ucontext_charge(&uctx, 10), 0);
	KUNIT_EXPECT_EQ(test, xrdma_ucontext_charge(&uctx, 1), -ENOMEM);
	/* no wrap-around with an absurd size */
	KUNIT_EXPECT_EQ(test, xrdma_ucontext_charge(&uctx, LONG_MAX), -ENOMEM);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&uctx.mem_pages), cap);
	xrdma_ucontext_uncharge(&uctx, cap);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&uctx.mem_pages), 0);
}

static void limits_ucontext_memlock(struct kunit *test)
{
	unsigned long lim = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	struct xrdma_ucontext uctx = {};
	const struct cred *saved;
	struct cred *new;

	if (lim > (1UL << 28))
		kunit_skip(test, "RLIMIT_MEMLOCK is not finite here");
	uctx.owner_mm = mm_alloc();
	KUNIT_ASSERT_NOT_NULL(test, uctx.owner_mm);
	xrdma_max_ucontext_mem = 1U << 20;	/* out of the way */

	saved = lim_become(test, 4245, &new);
	KUNIT_EXPECT_EQ(test, xrdma_ucontext_charge(&uctx, lim), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&uctx.owner_mm->pinned_vm),
			(s64)lim);
	KUNIT_EXPECT_EQ(test, xrdma_ucontext_charge(&uctx, 1), -ENOMEM);
	KUNIT_EXPECT_EQ(test, atomic64_read(&uctx.owner_mm->pinned_vm),
			(s64)lim);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&uctx.mem_pages), lim);
	lim_unbecome(saved, new);
	/* CAP_IPC_LOCK: over the limit, and still counted */
	KUNIT_EXPECT_EQ(test, xrdma_ucontext_charge(&uctx, 1), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&uctx.owner_mm->pinned_vm),
			(s64)lim + 1);
	xrdma_ucontext_uncharge(&uctx, lim + 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&uctx.owner_mm->pinned_vm), 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&uctx.mem_pages), 0);
	mmput(uctx.owner_mm);
}

/* dmabuf MR tables: the context's cap, never the creator's pinned_vm */
static void limits_ucontext_kmem(struct kunit *test)
{
	unsigned long cap = 1UL << (20 - PAGE_SHIFT);
	struct xrdma_ucontext uctx = {};

	uctx.owner_mm = mm_alloc();
	KUNIT_ASSERT_NOT_NULL(test, uctx.owner_mm);
	xrdma_max_ucontext_mem = 1;	/* MiB */
	KUNIT_EXPECT_EQ(test, xrdma_ucontext_charge(&uctx, 1), 0);
	KUNIT_EXPECT_EQ(test, xrdma_ucontext_charge_kmem(&uctx, cap - 1), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&uctx.owner_mm->pinned_vm), 1);
	/* queue memory and tables share the one cap */
	KUNIT_EXPECT_EQ(test, xrdma_ucontext_charge_kmem(&uctx, 1), -ENOMEM);
	KUNIT_EXPECT_EQ(test, xrdma_ucontext_charge(&uctx, 1), -ENOMEM);
	KUNIT_EXPECT_EQ(test, atomic64_read(&uctx.owner_mm->pinned_vm), 1);
	KUNIT_EXPECT_EQ(test, xrdma_ucontext_charge_kmem(&uctx, LONG_MAX),
			-ENOMEM);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&uctx.mem_pages), cap);
	xrdma_ucontext_uncharge_kmem(&uctx, cap - 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&uctx.owner_mm->pinned_vm), 1);
	xrdma_ucontext_uncharge(&uctx, 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&uctx.owner_mm->pinned_vm), 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&uctx.mem_pages), 0);
	mmput(uctx.owner_mm);
}

static struct kunit_case limits_cases[] = {
	KUNIT_CASE(limits_share_arith),
	KUNIT_CASE(limits_uid_share),
	KUNIT_CASE(limits_uid_units),
	KUNIT_CASE(limits_object_charge),
	KUNIT_CASE(limits_ucontext_cap),
	KUNIT_CASE(limits_ucontext_memlock),
	KUNIT_CASE(limits_ucontext_kmem),
	{}
};

static struct kunit_suite limits_suite = {
	.name = "xrdma_core_limits",
	.init = limits_init,
	.exit = limits_exit,
	.test_cases = limits_cases,
};

kunit_test_suite(limits_suite);
