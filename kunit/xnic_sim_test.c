// SPDX-License-Identifier: GPL-2.0
/*
 * The xnic device model compiled into the KUnit module: every file of
 * drivers/hw/xnic/sim/ but the module's xnic_sim_main.c is included here,
 * with the model's test hooks (XNIC_SIM_TEST_HOOKS, xnic_sim_hook()).
 * The suites are in kunit/xnic_sim_*_test.c, their fixtures in
 * kunit/xnic_sim_fixture.[ch] (DMA pages, devices, counters, two cabled
 * engine-less devices) and kunit/xnic_sim_dev_fixture.[ch] (two cabled
 * devices with their engines and a small driver):
 *   xnic_sim_ring, xnic_sim_wqe  xnic_sim_wqe_test.c
 *   xnic_sim_mr                  xnic_sim_mr_test.c
 *   xnic_sim_tbl                 xnic_sim_tbl_test.c
 *   xnic_sim_port                xnic_sim_port_test.c
 *   xnic_sim_cmd                 xnic_sim_cmd_test.c
 *   xnic_sim_datapath            xnic_sim_datapath_test.c
 *   xnic_sim_errors              xnic_sim_errors_test.c
 *   xnic_sim_engine              xnic_sim_engine_test.c
 *   xnic_sim_eth, xnic_sim_events xnic_sim_eth_test.c
 *   xnic_sim_wire, xnic_sim_wire_fixture  xnic_sim_wire_test.c (the
 *                                fixture of two devices on a fake wire:
 *                                kunit/xnic_sim_wire_fixture.[ch])
 *   xnic_sim_wreq                xnic_sim_wreq_test.c (the wire's
 *                                requester, a scripted responder)
 *   xnic_sim_roce                xnic_sim_roce_test.c
 *   xnic_sim_wresp               xnic_sim_wresp_test.c (the responder of
 *                                wire QPs, on a fake wire)
 *   xnic_sim_fault_rules, xnic_sim_fault_dev  xnic_sim_fault_test.c
 *                                (faults on demand: rules alone, then
 *                                the link and rules on two devices)
 *   xnic_sim_fault_wire          xnic_sim_fault_wire_test.c (frame
 *                                faults on a wire port and its RC
 *                                responder's answers, on a fake wire)
 * Below, wrappers for what the suites need of the sources' own: the
 * engine's static functions and limits, the Ethernet function's counters.
 * Ordinary kernel pages stand in for DMA memory: the model takes a DMA
 * address for a physical address (dma-direct without bounce buffers).
 */
#define XNIC_SIM_TEST_HOOKS
#include "../drivers/hw/xnic/sim/xnic_sim_mem.c"
#include "../drivers/hw/xnic/sim/xnic_sim_tbl.c"
#include "../drivers/hw/xnic/sim/xnic_sim_port.c"
#include "../drivers/hw/xnic/sim/xnic_sim_cq.c"
#include "../drivers/hw/xnic/sim/xnic_sim_qp.c"
#include "../drivers/hw/xnic/sim/xnic_sim_comp.c"
#include "../drivers/hw/xnic/sim/xnic_sim_wqe.c"
#include "../drivers/hw/xnic/sim/xnic_sim_resp.c"
#include "../drivers/hw/xnic/sim/xnic_sim_req.c"
#include "../drivers/hw/xnic/sim/xnic_sim_cmd.c"
#include "../drivers/hw/xnic/sim/xnic_sim_obj.c"
#include "../drivers/hw/xnic/sim/xnic_sim_roce.c"
#include "../drivers/hw/xnic/sim/xnic_sim_wire.c"
#include "../drivers/hw/xnic/sim/xnic_sim_wresp.c"
#include "../drivers/hw/xnic/sim/xnic_sim_wreq.c"
#include "../drivers/hw/xnic/sim/xnic_sim_eth.c"
#include "../drivers/hw/xnic/sim/xnic_sim_fault.c"
#include "../drivers/hw/xnic/sim/xnic_sim_engine.c"
#include "../drivers/hw/xnic/sim/xnic_sim_dev.c"
#include "xnic_sim_fixture.h"

void kt_sim_pass_budget(struct xnic_sim_budget *b)
{
	xnic_sim_pass_budget(b);
}

bool kt_sim_pass_data(struct xnic_sim_dev *dev, u64 *next,
		      struct xnic_sim_budget *b)
{
	return xnic_sim_pass_data(dev, next, b);
}

bool kt_sim_recheck_locked(struct xnic_sim_dev *dev)
{
	return xnic_sim_recheck_locked(dev);
}

/* the engine's limits (xnic_sim_engine.c), for xnic_sim_engine_test.c */
const u64 kt_sim_qp_budget = XNIC_SIM_QP_BUDGET;
const u64 kt_sim_pass_bytes = XNIC_SIM_PASS_BYTES;
const u64 kt_sim_kick_wqes = XNIC_SIM_KICK_WQES;
const u64 kt_sim_kick_bytes = XNIC_SIM_KICK_BYTES;

void kt_sim_eth_view(struct xnic_sim_dev *dev, struct kt_sim_eth_view *v)
{
	struct xnic_sim_eth *e = dev->eth;

	*v = (struct kt_sim_eth_view) {
		.tx_errors = &e->tx_errors, .tx_drop_peer = &e->tx_drop_peer,
		.tx_bad_pi = &e->tx_bad_pi, .rx_frames = &e->rx_frames,
		.rx_drop_off = &e->rx_drop_off,
		.rx_drop_nobuf = &e->rx_drop_nobuf,
		.rx_drop_len = &e->rx_drop_len, .tx_pi = &e->tx.pi,
	};
}
