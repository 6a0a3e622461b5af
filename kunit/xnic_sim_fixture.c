// SPDX-License-Identifier: GPL-2.0
/*
 * The device model's KUnit fixture: see xnic_sim_fixture.h.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/io.h>
#include <linux/percpu.h>
#include "xnic_sim_fixture.h"

struct kt_pages {
	unsigned long va;
	unsigned int order;
};

static int kt_res_init(struct kunit_resource *res, void *ctx)
{
	res->data = ctx;
	return 0;
}

void kt_defer(struct kunit *test, void (*free)(struct kunit_resource *res),
	      void *data)
{
	struct kunit_resource *res;

	res = kunit_alloc_resource(test, kt_res_init, free, GFP_KERNEL, data);
	if (!res) {
		struct kunit_resource now = { .data = data };

		free(&now);
	}
	KUNIT_ASSERT_NOT_NULL(test, res);
}

static void kt_pages_free(struct kunit_resource *res)
{
	struct kt_pages *p = res->data;

	free_pages(p->va, p->order);
	kfree(p);
}

void *kt_dma(struct kunit *test, size_t size, u64 *dma)
{
	struct kt_pages *p = kzalloc(sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->order = get_order(size);
	p->va = __get_free_pages(GFP_KERNEL | __GFP_ZERO, p->order);
	if (!p->va)
		kfree(p);
	KUNIT_ASSERT_NE(test, p->va, 0UL);
	kt_defer(test, kt_pages_free, p);
	*dma = virt_to_phys((void *)p->va);
	return (void *)p->va;
}

static void kt_sim_dev_free(struct kunit_resource *res)
{
	xnic_sim_dev_free(res->data);
}

static void kt_sim_dev_clear_free(struct kunit_resource *res)
{
	xnic_sim_clear(res->data);
	xnic_sim_dev_free(res->data);
}

struct xnic_sim_dev *kt_sim_dev(struct kunit *test, int index, bool clear)
{
	struct xnic_sim_dev *d = xnic_sim_dev_alloc(index);

	KUNIT_ASSERT_NOT_NULL(test, d);
	kt_defer(test, clear ? kt_sim_dev_clear_free : kt_sim_dev_free, d);
	return d;
}

u64 kt_sim_ctr(struct xnic_sim_dev *d, enum xnic_sim_ctr c)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(d->ctr, cpu)->v[c];
	return sum;
}

void kt_fill_pattern(u8 *p, size_t n, u8 seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (u8)(seed + i * 7 + (i >> 8));
}

u16 kt_ip_sum(const u8 *ip)
{
	u32 sum = 0;
	int i;

	for (i = 0; i < 20; i += 2)
		sum += ip[i] << 8 | ip[i + 1];
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

void kt_sim_pair_init(struct kunit *test, struct kt_sim_pair *p,
		      const struct kt_sim_pair_cfg *cfg)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct xnic_sim_dev *d = kt_sim_dev(test, i, false);
		struct xnic_sim_cq *cq = &p->cq[i];
		struct xnic_sim_mr *all = &p->all[i];

		p->d[i] = d;
		/* a kick (a QP set to ERR rings its doorbell) wakes us */
		d->engine = current;
		cq->dev = d;
		cq->cqn = 1;
		cq->log = cfg->cq_log;
		kt_dma(test, sizeof(struct xnic_cqe) << cfg->cq_log, &cq->ring);
		p->cq_rec[i] = kt_dma(test, sizeof(struct xnic_cq_dbrec),
				      &cq->dbrec);
		spin_lock_init(&cq->lock);
		KUNIT_ASSERT_EQ(test, xnic_sim_tbl_insert(&d->cqs, 1, cq), 0);
		kt_dma(test, XNIC_DB_PAGE_SIZE, &p->db[i].addr);
		all->key = cfg->all_key;
		all->pdn = cfg->pd;
		all->access = XNIC_ACCESS_LOCAL_WRITE;
		all->flags = XNIC_MR_F_ALL;
		all->valid = true;
		KUNIT_ASSERT_EQ(test, xnic_sim_tbl_insert(&d->mrs,
							  cfg->all_key >> 8,
							  all), 0);
	}
	p->d[0]->peer = p->d[1];
	p->d[1]->peer = p->d[0];

	p->mr_buf = kt_dma(test, PAGE_SIZE, &p->mr_mtt);
	p->mr.key = cfg->mr_key;
	p->mr.pdn = cfg->pd;
	p->mr.access = cfg->mr_access;
	p->mr.valid = true;
	p->mr.page_shift = PAGE_SHIFT;
	p->mr.npages = 1;
	p->mr.max_pages = 1;
	p->mr.iova = cfg->mr_iova;
	p->mr.length = PAGE_SIZE;
	p->mr.mtt = &p->mr_mtt;
	KUNIT_ASSERT_EQ(test, xnic_sim_tbl_insert(&p->d[1]->mrs,
						  cfg->mr_key >> 8, &p->mr), 0);
}
