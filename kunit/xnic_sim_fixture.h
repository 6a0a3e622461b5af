/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device model's KUnit fixture (drivers/hw/xnic/sim/), shared by every
 * xnic_sim_* suite: "DMA" memory, model devices and their counters, each
 * released after the test by a KUnit resource.
 *
 * Ordinary kernel pages stand in for DMA memory: the model takes a DMA
 * address for a physical address (dma-direct without bounce buffers).
 */
#ifndef _XRDMA_KUNIT_XNIC_SIM_FIXTURE_H
#define _XRDMA_KUNIT_XNIC_SIM_FIXTURE_H

#include <kunit/test.h>
#include "../drivers/hw/xnic/sim/xnic_sim.h"

/*
 * Zeroed, physically contiguous pages of at least @size bytes, freed after
 * the test; *@dma = their "DMA" (physical) address.  Asserts success.
 */
void *kt_dma(struct kunit *test, size_t size, u64 *dma);

/*
 * Model device @index (not started), freed after the test, after
 * xnic_sim_clear() if @clear.  Asserts success.
 */
struct xnic_sim_dev *kt_sim_dev(struct kunit *test, int index, bool clear);

/* counter @c of @d, summed over the CPUs */
u64 kt_sim_ctr(struct xnic_sim_dev *d, enum xnic_sim_ctr c);

/*
 * Two cabled model devices without engine threads (a kick wakes the test's
 * thread), each with CQ 1 of 2^@cq_log CQEs, a doorbell page and MR
 * @all_key over all memory (@pd, local write); on device 1 also MR @mr_key
 * of one page at @mr_iova with @mr_access.
 */
struct kt_sim_pair_cfg {
	u32 pd;
	u32 cq_log;
	u32 all_key;
	u32 mr_key;
	u32 mr_access;
	u64 mr_iova;
};

struct kt_sim_pair {
	struct xnic_sim_dev *d[2];
	struct xnic_sim_cq cq[2];
	struct xnic_cq_dbrec *cq_rec[2];
	struct xnic_sim_db db[2];
	struct xnic_sim_mr all[2];
	struct xnic_sim_mr mr;		/* on device 1 */
	u64 mr_mtt;
	u8 *mr_buf;			/* CPU view of mr's page */
};

void kt_sim_pair_init(struct kunit *test, struct kt_sim_pair *p,
		      const struct kt_sim_pair_cfg *cfg);

#endif
