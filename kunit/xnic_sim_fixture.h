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
#include <xrdma/compat.h>	/* get_unaligned_*(), as for the model */
/* the model's test hooks (xnic_sim_hook()): kunit/xnic_sim_test.c */
#ifndef XNIC_SIM_TEST_HOOKS
#define XNIC_SIM_TEST_HOOKS
#endif
#include "../drivers/hw/xnic/sim/xnic_sim.h"

/*
 * Have @free(res) run on a resource whose data is @data after the test
 * (at once if that cannot be arranged, then the test fails).
 */
void kt_defer(struct kunit *test, void (*free)(struct kunit_resource *res),
	      void *data);

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

/* @n bytes of a pattern that differs by @seed */
void kt_fill_pattern(u8 *p, size_t n, u8 seed);

/* the RFC 1071 sum over an IPv4 header: 0xffff when its checksum is right */
u16 kt_ip_sum(const u8 *ip);

/*
 * What the suites need of the model's sources' own (static functions,
 * limits, structures): wrappers in kunit/xnic_sim_test.c, the file that
 * compiles those sources.  The engine's (xnic_sim_engine.c), for
 * kunit/xnic_sim_engine_test.c:
 */
void kt_sim_pass_budget(struct xnic_sim_budget *b);
bool kt_sim_pass_data(struct xnic_sim_dev *dev, u64 *next,
		      struct xnic_sim_budget *b);
bool kt_sim_recheck_locked(struct xnic_sim_dev *dev);
/* XNIC_SIM_QP_BUDGET, _PASS_BYTES, _KICK_WQES, _KICK_BYTES */
extern const u64 kt_sim_qp_budget, kt_sim_pass_bytes, kt_sim_kick_wqes,
	kt_sim_kick_bytes;

/* the Ethernet function's counters and TX producer index (xnic_sim_eth.c) */
struct kt_sim_eth_view {
	const u64 *tx_errors, *tx_drop_peer, *tx_bad_pi;
	const u64 *rx_frames, *rx_drop_off, *rx_drop_nobuf, *rx_drop_len;
	const u32 *tx_pi;
};

void kt_sim_eth_view(struct xnic_sim_dev *dev, struct kt_sim_eth_view *v);

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
