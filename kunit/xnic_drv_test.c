// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the xnic driver's device-independent logic:
 *   xnic_drv_wqe   work requests to send and receive WQEs
 *   xnic_drv_cqe   CQEs to work completions
 *   xnic_drv_misc  queue geometry, command and attribute translation,
 *                  the doorbell page protocol
 *   xnic_drv_codes verbs values to and from the device's codes (QP types
 *                  and states, MTUs, port states, MODIFY_QP attributes)
 *   xnic_drv_dp    the kernel data path (post, poll, arm, clean, the
 *                  flush of a dead device) on rings in ordinary memory,
 *                  with the test playing the device
 *   xnic_drv_dead  the whole driver, probed by hand on the device model
 *                  (whose code xnic_sim_test.c includes) behind a register
 *                  window that can stall the command processor: what a
 *                  command timeout does to the device and to the memory
 *                  it was given
 * The driver's files are included directly.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/kthread.h>
#include <linux/mman.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/delay.h>
#include "../drivers/hw/xnic/xnic_wqe.c"
#include "../drivers/hw/xnic/xnic_dp.c"
/*
 * the platform driver is not registered here (xnic_drv_dead probes by
 * hand), nor its recovery workqueue made: no recovery
 */
#undef module_driver
#define module_driver(drv, reg, unreg, ...)				\
	static struct platform_driver *xnic_test_driver __maybe_unused = &(drv); \
	static int (*xnic_test_reg)(struct platform_driver *) __maybe_unused = \
		reg;							\
	static void (*xnic_test_unreg)(struct platform_driver *)	\
		__maybe_unused = unreg
#undef MODULE_ALIAS
#define MODULE_ALIAS(alias)
#include "../drivers/hw/xnic/xnic_main.c"
#include "../drivers/hw/xnic/xnic_cmdq.c"
#include "../drivers/hw/xnic/xnic_eq.c"
#include "../drivers/hw/xnic/xnic_mem.c"
#include "../drivers/hw/xnic/xnic_verbs.c"
#include "../drivers/hw/xnic/xnic_codes.c"
#include "../drivers/hw/xnic/xnic_cq.c"
#include "../drivers/hw/xnic/xnic_qp.c"
#include "../drivers/hw/xnic/xnic_mr.c"
#include "../drivers/hw/xnic/xnic_eth.c"
#include "../drivers/hw/xnic/sim/xnic_sim.h"

/* xnic_dp.c kicks the device through the KICK register: count them */
static int xnic_test_kicks;

static u32 dp_bus_read32(struct xnic_bus *bus, u32 reg)
{
	return 0;
}

static void dp_bus_write32(struct xnic_bus *bus, u32 reg, u32 val)
{
	if (reg == XNIC_REG_KICK)
		xnic_test_kicks++;
}

static struct xnic_bus dp_bus = {
	.read32 = dp_bus_read32,
	.write32 = dp_bus_write32,
};

/* ------------------------------------------------------------------ */
/* xnic_drv_wqe                                                        */

#define WQE_SHIFT	8	/* 256-byte WQEs: 10 SGEs or 160 inline bytes */

static const struct xnic_sq_cfg rc_cfg = {
	.qp_type = XRDMA_QPT_RC, .max_sge = 4, .max_inline = 64,
};

static void *wqe_buf(struct kunit *test)
{
	void *w = kunit_kzalloc(test, 1 << WQE_SHIFT, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, w);
	return w;
}

static void wqe_send_sges(struct kunit *test)
{
	struct xrdma_sge sg[2] = {
		{ .addr = 0x1000, .length = 100, .lkey = 0x1234 },
		{ .addr = 0xffff000000002000ULL, .length = 7, .lkey = 0x55 },
	};
	struct xrdma_send_wr wr = {
		.wr_id = 99, .sg_list = sg, .num_sge = 2,
		.opcode = XRDMA_WR_SEND, .send_flags = XRDMA_SEND_SIGNALED,
	};
	u8 *w = wqe_buf(test);
	struct xnic_wqe_ctrl *ctrl = (void *)w;
	struct xnic_sge *s = (void *)(w + XNIC_WQE_DATA_OFF);

	memset(w, 0xaa, 1 << WQE_SHIFT);
	KUNIT_ASSERT_EQ(test, xnic_build_send_wqe(w, &rc_cfg, &wr, 0x77), 0);
	KUNIT_EXPECT_EQ(test, ctrl->opcode, XNIC_OP_SEND);
	KUNIT_EXPECT_EQ(test, ctrl->flags, XNIC_WQE_SIGNALED);
	KUNIT_EXPECT_EQ(test, ctrl->num_sge, 2);
	/* the owner byte is the caller's, written last */
	KUNIT_EXPECT_EQ(test, ctrl->owner, 0xaa);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ctrl->inline_len), 0U);
	/* the device echoes the driver's value, not the caller's wr_id */
	KUNIT_EXPECT_EQ(test, le64_to_cpu(ctrl->wr_id), 0x77ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(s[0].addr), 0x1000ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(s[0].length), 100U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(s[0].lkey), 0x1234U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(s[1].addr), 0xffff000000002000ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(s[1].lkey), 0x55U);
	/* the header between ctrl and data is cleared */
	KUNIT_EXPECT_FALSE(test, memchr_inv(w + 32, 0, XNIC_WQE_DATA_OFF - 32));
}

static void wqe_flags(struct kunit *test)
{
	struct xrdma_send_wr wr = {
		.opcode = XRDMA_WR_SEND,
		.send_flags = XRDMA_SEND_SOLICITED | XRDMA_SEND_FENCE,
	};
	struct xnic_sq_cfg cfg = rc_cfg;
	struct xnic_wqe_ctrl *ctrl = wqe_buf(test);

	KUNIT_ASSERT_EQ(test, xnic_build_send_wqe(ctrl, &cfg, &wr, 0), 0);
	KUNIT_EXPECT_EQ(test, ctrl->flags, XNIC_WQE_SOLICITED | XNIC_WQE_FENCE);
	/* sq_sig_all signals every WQE */
	cfg.sig_all = true;
	KUNIT_ASSERT_EQ(test, xnic_build_send_wqe(ctrl, &cfg, &wr, 0), 0);
	KUNIT_EXPECT_EQ(test, ctrl->flags,
			XNIC_WQE_SOLICITED | XNIC_WQE_FENCE | XNIC_WQE_SIGNALED);
}

static void wqe_inline(struct kunit *test)
{
	static const char a[] = "hello ", b[] = "inline world";
	struct xrdma_sge sg[2] = {
		{ .addr = (uintptr_t)a, .length = 6 },
		{ .addr = (uintptr_t)b, .length = 12 },
	};
	struct xrdma_send_wr wr = {
		.sg_list = sg, .num_sge = 2, .opcode = XRDMA_WR_RDMA_WRITE,
		.send_flags = XRDMA_SEND_INLINE,
		.wr.rdma = { .remote_addr = 0xabc000, .rkey = 0x4242 },
	};
	struct xnic_sq_cfg cfg = rc_cfg;
	u8 *w = wqe_buf(test);
	struct xnic_wqe_ctrl *ctrl = (void *)w;
	struct xnic_wqe_remote *rem = (void *)(w + XNIC_WQE_REMOTE_OFF);

	KUNIT_ASSERT_EQ(test, xnic_build_send_wqe(w, &cfg, &wr, 1), 0);
	KUNIT_EXPECT_EQ(test, ctrl->opcode, XNIC_OP_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, ctrl->flags, XNIC_WQE_INLINE);
	KUNIT_EXPECT_EQ(test, ctrl->num_sge, 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ctrl->inline_len), 18U);
	KUNIT_EXPECT_EQ(test, memcmp(w + XNIC_WQE_DATA_OFF,
				     "hello inline world", 18), 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(rem->remote_addr), 0xabc000ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(rem->rkey), 0x4242U);

	/* exactly max_inline fits, one byte more does not */
	cfg.max_inline = 18;
	KUNIT_EXPECT_EQ(test, xnic_build_send_wqe(w, &cfg, &wr, 1), 0);
	cfg.max_inline = 17;
	KUNIT_EXPECT_EQ(test, xnic_build_send_wqe(w, &cfg, &wr, 1), -EINVAL);
	/* more SGEs than max_sge are fine inline */
	cfg.max_inline = 64;
	cfg.max_sge = 1;
	KUNIT_EXPECT_EQ(test, xnic_build_send_wqe(w, &cfg, &wr, 1), 0);
	/* READ has no payload to inline: the flag is ignored, SGEs count */
	wr.opcode = XRDMA_WR_RDMA_READ;
	KUNIT_EXPECT_EQ(test, xnic_build_send_wqe(w, &cfg, &wr, 1), -EINVAL);
	cfg.max_sge = 2;
	KUNIT_EXPECT_EQ(test, xnic_build_send_wqe(w, &cfg, &wr, 1), 0);
	KUNIT_EXPECT_EQ(test, ctrl->flags, 0);
	KUNIT_EXPECT_EQ(test, ctrl->num_sge, 2);
}

static void wqe_imm_inv(struct kunit *test)
{
	struct xrdma_send_wr wr = { .opcode = XRDMA_WR_SEND_WITH_IMM };
	u8 *w = wqe_buf(test);
	struct xnic_wqe_ctrl *ctrl = (void *)w;

	wr.ex.imm_data = cpu_to_be32(0x01020304);
	KUNIT_ASSERT_EQ(test, xnic_build_send_wqe(w, &rc_cfg, &wr, 0), 0);
	KUNIT_EXPECT_EQ(test, ctrl->opcode, XNIC_OP_SEND_WITH_IMM);
	/* big-endian payload: the bytes as the caller gave them */
	KUNIT_EXPECT_EQ(test, memcmp(&ctrl->imm_data, "\x01\x02\x03\x04", 4),
			0);

	wr.opcode = XRDMA_WR_RDMA_WRITE_WITH_IMM;
	KUNIT_ASSERT_EQ(test, xnic_build_send_wqe(w, &rc_cfg, &wr, 0), 0);
	KUNIT_EXPECT_EQ(test, ctrl->opcode, XNIC_OP_RDMA_WRITE_WITH_IMM);
	KUNIT_EXPECT_EQ(test, memcmp(&ctrl->imm_data, "\x01\x02\x03\x04", 4),
			0);

	wr.opcode = XRDMA_WR_SEND_WITH_INV;
	wr.ex.invalidate_rkey = 0xdeadbe01;
	KUNIT_ASSERT_EQ(test, xnic_build_send_wqe(w, &rc_cfg, &wr, 0), 0);
	KUNIT_EXPECT_EQ(test, ctrl->opcode, XNIC_OP_SEND_WITH_INV);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ctrl->imm_data), 0xdeadbe01U);

	wr.opcode = XRDMA_WR_LOCAL_INV;
	wr.ex.invalidate_rkey = 0x00abcd07;
	KUNIT_ASSERT_EQ(test, xnic_build_send_wqe(w, &rc_cfg, &wr, 0), 0);
	KUNIT_EXPECT_EQ(test, ctrl->opcode, XNIC_OP_LOCAL_INV);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ctrl->imm_data), 0x00abcd07U);
	KUNIT_EXPECT_EQ(test, ctrl->num_sge, 0);

	/* plain sends carry no immediate */
	wr.opcode = XRDMA_WR_SEND;
	KUNIT_ASSERT_EQ(test, xnic_build_send_wqe(w, &rc_cfg, &wr, 0), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ctrl->imm_data), 0U);
}

static void wqe_read_atomic(struct kunit *test)
{
	struct xrdma_sge sg = { .addr = 0x5000, .length = 8, .lkey = 3 };
	struct xrdma_send_wr wr = {
		.sg_list = &sg, .num_sge = 1,
		.opcode = XRDMA_WR_ATOMIC_CMP_AND_SWP,
		.wr.atomic = { .remote_addr = 0x7008, .compare_add = 11,
			       .swap = 0x1122334455667788ULL, .rkey = 0x99 },
	};
	u8 *w = wqe_buf(test);
	struct xnic_wqe_ctrl *ctrl = (void *)w;
	struct xnic_wqe_remote *rem = (void *)(w + XNIC_WQE_REMOTE_OFF);
	struct xnic_wqe_atomic *at = (void *)(w + XNIC_WQE_ATOMIC_OFF);

	KUNIT_ASSERT_EQ(test, xnic_build_send_wqe(w, &rc_cfg, &wr, 0), 0);
	KUNIT_EXPECT_EQ(test, ctrl->opcode, XNIC_OP_ATOMIC_CMP_AND_SWP);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(rem->remote_addr), 0x7008ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(rem->rkey), 0x99U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(at->compare_add), 11ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(at->swap), 0x1122334455667788ULL);

	wr.opcode = XRDMA_WR_ATOMIC_FETCH_AND_ADD;
	KUNIT_ASSERT_EQ(test, xnic_build_send_wqe(w, &rc_cfg, &wr, 0), 0);
	KUNIT_EXPECT_EQ(test, ctrl->opcode, XNIC_OP_ATOMIC_FETCH_AND_ADD);

	wr.opcode = XRDMA_WR_RDMA_READ;
	wr.wr.rdma.remote_addr = 0x123456789aULL;
	wr.wr.rdma.rkey = 0x777;
	KUNIT_ASSERT_EQ(test, xnic_build_send_wqe(w, &rc_cfg, &wr, 0), 0);
	KUNIT_EXPECT_EQ(test, ctrl->opcode, XNIC_OP_RDMA_READ);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(rem->remote_addr), 0x123456789aULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(rem->rkey), 0x777U);
	/* the atomic fields of an earlier use of the slot are cleared */
	KUNIT_EXPECT_EQ(test, le64_to_cpu(at->swap), 0ULL);
}

static void wqe_reg_mr(struct kunit *test)
{
	struct xnic_mr *xmr = kunit_kzalloc(test, sizeof(*xmr), GFP_KERNEL);
	struct xrdma_send_wr wr = { .opcode = XRDMA_WR_REG_MR };
	u8 *w = wqe_buf(test);
	struct xnic_wqe_ctrl *ctrl = (void *)w;
	struct xnic_wqe_fr *fr = (void *)(w + XNIC_WQE_FR_OFF);

	KUNIT_ASSERT_NOT_NULL(test, xmr);
	xmr->ibmr.type = XRDMA_MR_TYPE_MEM_REG;
	xmr->ibmr.iova = 0x100200;
	xmr->ibmr.length = 3 * 4096 - 0x200;
	xmr->mtt.dma = 0xfeed0000;
	xmr->mtt_max = 8;
	xmr->npages = 3;
	xmr->page_shift = 12;
	wr.wr.reg.mr = &xmr->ibmr;
	wr.wr.reg.key = 0x00012345;
	wr.wr.reg.access = XRDMA_ACCESS_LOCAL_WRITE | XRDMA_ACCESS_REMOTE_READ |
			   XRDMA_ACCESS_MW_BIND;
	KUNIT_ASSERT_EQ(test, xnic_build_send_wqe(w, &rc_cfg, &wr, 5), 0);
	KUNIT_EXPECT_EQ(test, ctrl->opcode, XNIC_OP_REG_MR);
	KUNIT_EXPECT_EQ(test, ctrl->num_sge, 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(fr->mtt_addr), 0xfeed0000ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(fr->iova), 0x100200ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(fr->length), 3ULL * 4096 - 0x200);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(fr->key), 0x00012345U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(fr->access),
			(u32)(XNIC_ACCESS_LOCAL_WRITE | XNIC_ACCESS_REMOTE_READ));
	KUNIT_EXPECT_EQ(test, le32_to_cpu(fr->npages), 3U);
	KUNIT_EXPECT_EQ(test, fr->page_shift, 12);

	/* only fast-reg MRs, with their page list within the MTT */
	xmr->npages = 9;
	KUNIT_EXPECT_EQ(test, xnic_build_send_wqe(w, &rc_cfg, &wr, 5), -EINVAL);
	xmr->npages = 3;
	xmr->ibmr.type = XRDMA_MR_TYPE_USER;
	KUNIT_EXPECT_EQ(test, xnic_build_send_wqe(w, &rc_cfg, &wr, 5), -EINVAL);
	wr.wr.reg.mr = NULL;
	KUNIT_EXPECT_EQ(test, xnic_build_send_wqe(w, &rc_cfg, &wr, 5), -EINVAL);
}

static void wqe_ud(struct kunit *test)
{
	struct xrdma_ah *ah = kunit_kzalloc(test, sizeof(*ah), GFP_KERNEL);
	struct xnic_sq_cfg cfg = rc_cfg;
	struct xrdma_send_wr wr = { .opcode = XRDMA_WR_SEND };
	u8 *w = wqe_buf(test);
	struct xnic_wqe_ud *ud = (void *)(w + XNIC_WQE_UD_OFF);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, ah);
	for (i = 0; i < 16; i++)
		ah->attr.dgid.raw[i] = 0xf0 + i;
	ah->attr.port_num = 1;
	ah->attr.sgid_index = 5;
	ah->attr.hop_limit = 64;
	ah->attr.traffic_class = 0xb8;
	cfg.qp_type = XRDMA_QPT_UD;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = 0x123456;
	wr.wr.ud.remote_qkey = 0x11111111;
	KUNIT_ASSERT_EQ(test, xnic_build_send_wqe(w, &cfg, &wr, 0), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ud->dest_qpn), 0x123456U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ud->qkey), 0x11111111U);
	KUNIT_EXPECT_EQ(test, memcmp(ud->dgid, ah->attr.dgid.raw, 16), 0);
	KUNIT_EXPECT_EQ(test, ud->port_num, 1);
	KUNIT_EXPECT_EQ(test, ud->sgid_index, 5);
	KUNIT_EXPECT_EQ(test, ud->hop_limit, 64);
	KUNIT_EXPECT_EQ(test, ud->traffic_class, 0xb8);

	/* UD: sends only, and an address handle is required */
	wr.opcode = XRDMA_WR_RDMA_WRITE;
	KUNIT_EXPECT_EQ(test, xnic_build_send_wqe(w, &cfg, &wr, 0), -EINVAL);
	wr.opcode = XRDMA_WR_SEND_WITH_IMM;
	KUNIT_EXPECT_EQ(test, xnic_build_send_wqe(w, &cfg, &wr, 0), 0);
	wr.wr.ud.ah = NULL;
	KUNIT_EXPECT_EQ(test, xnic_build_send_wqe(w, &cfg, &wr, 0), -EINVAL);
}

static void wqe_errors(struct kunit *test)
{
	struct xrdma_sge sg[5] = {};
	struct xrdma_send_wr wr = {
		.sg_list = sg, .num_sge = 5, .opcode = XRDMA_WR_SEND,
	};
	struct xnic_sq_cfg uc = rc_cfg;
	void *w = wqe_buf(test);

	/* one SGE too many */
	KUNIT_EXPECT_EQ(test, xnic_build_send_wqe(w, &rc_cfg, &wr, 0), -EINVAL);
	wr.num_sge = 4;
	KUNIT_EXPECT_EQ(test, xnic_build_send_wqe(w, &rc_cfg, &wr, 0), 0);
	wr.num_sge = -1;
	KUNIT_EXPECT_EQ(test, xnic_build_send_wqe(w, &rc_cfg, &wr, 0), -EINVAL);
	wr.num_sge = 0;
	/* unknown opcode: after FLUSH, the last one */
	wr.opcode = XRDMA_WR_FLUSH + 1;
	KUNIT_EXPECT_EQ(test, xnic_build_send_wqe(w, &rc_cfg, &wr, 0), -EINVAL);
	wr.opcode = -1;
	KUNIT_EXPECT_EQ(test, xnic_build_send_wqe(w, &rc_cfg, &wr, 0), -EINVAL);
	/* IBTA 1.5: ATOMIC WRITE and FLUSH on RC; FLUSH carries no SGE */
	wr.opcode = XRDMA_WR_ATOMIC_WRITE;
	KUNIT_EXPECT_EQ(test, xnic_build_send_wqe(w, &rc_cfg, &wr, 0), 0);
	KUNIT_EXPECT_EQ(test, ((struct xnic_wqe_ctrl *)w)->opcode,
			XNIC_OP_ATOMIC_WRITE);
	wr.opcode = XRDMA_WR_FLUSH;
	KUNIT_EXPECT_EQ(test, xnic_build_send_wqe(w, &rc_cfg, &wr, 0), 0);
	KUNIT_EXPECT_EQ(test, ((struct xnic_wqe_ctrl *)w)->opcode,
			XNIC_OP_FLUSH);
	wr.num_sge = 1;
	KUNIT_EXPECT_EQ(test, xnic_build_send_wqe(w, &rc_cfg, &wr, 0), -EINVAL);
	wr.num_sge = 0;
	/* UC: no READ, no atomics, no ATOMIC WRITE, no FLUSH */
	uc.qp_type = XRDMA_QPT_UC;
	wr.opcode = XRDMA_WR_RDMA_READ;
	KUNIT_EXPECT_EQ(test, xnic_build_send_wqe(w, &uc, &wr, 0), -EINVAL);
	wr.opcode = XRDMA_WR_ATOMIC_FETCH_AND_ADD;
	KUNIT_EXPECT_EQ(test, xnic_build_send_wqe(w, &uc, &wr, 0), -EINVAL);
	wr.opcode = XRDMA_WR_ATOMIC_WRITE;
	KUNIT_EXPECT_EQ(test, xnic_build_send_wqe(w, &uc, &wr, 0), -EINVAL);
	wr.opcode = XRDMA_WR_FLUSH;
	KUNIT_EXPECT_EQ(test, xnic_build_send_wqe(w, &uc, &wr, 0), -EINVAL);
	wr.opcode = XRDMA_WR_RDMA_WRITE_WITH_IMM;
	KUNIT_EXPECT_EQ(test, xnic_build_send_wqe(w, &uc, &wr, 0), 0);
	/* LOCAL_INV carries no SGE */
	wr.opcode = XRDMA_WR_LOCAL_INV;
	wr.num_sge = 1;
	KUNIT_EXPECT_EQ(test, xnic_build_send_wqe(w, &rc_cfg, &wr, 0), -EINVAL);
}

static void wqe_opcode_table(struct kunit *test)
{
	static const int want[] = {
		XNIC_OP_RDMA_WRITE, XNIC_OP_RDMA_WRITE_WITH_IMM, XNIC_OP_SEND,
		XNIC_OP_SEND_WITH_IMM, XNIC_OP_RDMA_READ,
		XNIC_OP_ATOMIC_CMP_AND_SWP, XNIC_OP_ATOMIC_FETCH_AND_ADD,
		XNIC_OP_LOCAL_INV, XNIC_OP_SEND_WITH_INV, XNIC_OP_REG_MR,
	};
	int op;

	for (op = XRDMA_WR_RDMA_WRITE; op <= XRDMA_WR_REG_MR; op++)
		KUNIT_EXPECT_EQ(test, xnic_wr_to_hw_opcode(op, XRDMA_QPT_RC),
				want[op]);
	KUNIT_EXPECT_EQ(test, xnic_wr_to_hw_opcode(XRDMA_WR_SEND, 7), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_wr_to_hw_opcode(-1, XRDMA_QPT_RC), -EINVAL);
}

/*
 * An XRC_INI QP: RC's opcodes, and every WQE names the target's SRQ in
 * the xrc segment (where UD's segment would be); an RC WQE leaves it 0.
 */
static void wqe_xrc(struct kunit *test)
{
	static const struct xnic_sq_cfg xrc_cfg = {
		.qp_type = XRDMA_QPT_XRC_INI, .max_sge = 4, .max_inline = 64,
	};
	struct xrdma_sge sg = { .addr = 0x5000, .length = 8, .lkey = 3 };
	struct xrdma_send_wr wr = {
		.sg_list = &sg, .num_sge = 1, .opcode = XRDMA_WR_SEND,
		.xrc_remote_srqn = 0x123456,
	};
	u8 *w = wqe_buf(test);
	struct xnic_wqe_xrc *x = (void *)(w + XNIC_WQE_XRC_OFF);
	struct xnic_wqe_remote *rem = (void *)(w + XNIC_WQE_REMOTE_OFF);
	int op;

	for (op = XRDMA_WR_RDMA_WRITE; op <= XRDMA_WR_REG_MR; op++)
		KUNIT_EXPECT_EQ(test,
				xnic_wr_to_hw_opcode(op, XRDMA_QPT_XRC_INI),
				xnic_wr_to_hw_opcode(op, XRDMA_QPT_RC));
	KUNIT_EXPECT_EQ(test, xnic_wr_to_hw_opcode(XRDMA_WR_SEND,
						   XRDMA_QPT_XRC_TGT),
			-EINVAL);

	KUNIT_ASSERT_EQ(test, xnic_build_send_wqe(w, &xrc_cfg, &wr, 0), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(x->remote_srqn), 0x123456U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(x->reserved), 0U);

	wr.opcode = XRDMA_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = 0x7008;
	wr.wr.atomic.rkey = 0x99;
	wr.xrc_remote_srqn = 0x42;
	KUNIT_ASSERT_EQ(test, xnic_build_send_wqe(w, &xrc_cfg, &wr, 0), 0);
	KUNIT_EXPECT_EQ(test, ((struct xnic_wqe_ctrl *)w)->opcode,
			XNIC_OP_ATOMIC_FETCH_AND_ADD);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(rem->rkey), 0x99U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(x->remote_srqn), 0x42U);

	/* another QP type writes no SRQ, and clears a stale one */
	wr.opcode = XRDMA_WR_SEND;
	KUNIT_ASSERT_EQ(test, xnic_build_send_wqe(w, &rc_cfg, &wr, 0), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(x->remote_srqn), 0U);
}

static void wqe_recv(struct kunit *test)
{
	struct xrdma_sge sg[3] = {
		{ .addr = 1, .length = 2, .lkey = 3 },
		{ .addr = 4, .length = 5, .lkey = 6 },
		{ .addr = 7, .length = 8, .lkey = 9 },
	};
	struct xrdma_recv_wr wr = { .wr_id = 5, .sg_list = sg, .num_sge = 3 };
	u8 *w = wqe_buf(test);
	struct xnic_rwqe *hdr = (void *)w;
	struct xnic_sge *s = (void *)(w + sizeof(*hdr));

	memset(w, 0xcc, 1 << WQE_SHIFT);
	xnic_build_recv_wqe(w, &wr, 0x1234567890ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(hdr->wr_id), 0x1234567890ULL);
	KUNIT_EXPECT_EQ(test, hdr->num_sge, 3);
	KUNIT_EXPECT_EQ(test, hdr->owner, 0xcc);
	KUNIT_EXPECT_FALSE(test, memchr_inv(hdr->reserved, 0,
					    sizeof(hdr->reserved)));
	KUNIT_EXPECT_EQ(test, le64_to_cpu(s[2].addr), 7ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(s[2].length), 8U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(s[2].lkey), 9U);
}

static struct kunit_case wqe_cases[] = {
	KUNIT_CASE(wqe_send_sges),
	KUNIT_CASE(wqe_flags),
	KUNIT_CASE(wqe_inline),
	KUNIT_CASE(wqe_imm_inv),
	KUNIT_CASE(wqe_read_atomic),
	KUNIT_CASE(wqe_reg_mr),
	KUNIT_CASE(wqe_ud),
	KUNIT_CASE(wqe_errors),
	KUNIT_CASE(wqe_opcode_table),
	KUNIT_CASE(wqe_xrc),
	KUNIT_CASE(wqe_recv),
	{}
};

static struct kunit_suite wqe_suite = {
	.name = "xnic_drv_wqe",
	.test_cases = wqe_cases,
};

/* ------------------------------------------------------------------ */
/* xnic_drv_cqe                                                        */

/* a CQE status and the work completion status it gives */
struct cqe_status_row {
	u8 hw;
	enum xrdma_wc_status wc;
	const char *name;
};

#define CQE_STATUS(hw, wc) { hw, wc, #hw }
static const struct cqe_status_row cqe_status_rows[] = {
	CQE_STATUS(XNIC_CQE_SUCCESS, XRDMA_WC_SUCCESS),
	CQE_STATUS(XNIC_CQE_LOC_LEN_ERR, XRDMA_WC_LOC_LEN_ERR),
	CQE_STATUS(XNIC_CQE_LOC_QP_OP_ERR, XRDMA_WC_LOC_QP_OP_ERR),
	CQE_STATUS(XNIC_CQE_LOC_PROT_ERR, XRDMA_WC_LOC_PROT_ERR),
	CQE_STATUS(XNIC_CQE_WR_FLUSH_ERR, XRDMA_WC_WR_FLUSH_ERR),
	CQE_STATUS(XNIC_CQE_BAD_RESP_ERR, XRDMA_WC_BAD_RESP_ERR),
	CQE_STATUS(XNIC_CQE_LOC_ACCESS_ERR, XRDMA_WC_LOC_ACCESS_ERR),
	CQE_STATUS(XNIC_CQE_REM_INV_REQ_ERR, XRDMA_WC_REM_INV_REQ_ERR),
	CQE_STATUS(XNIC_CQE_REM_ACCESS_ERR, XRDMA_WC_REM_ACCESS_ERR),
	CQE_STATUS(XNIC_CQE_REM_OP_ERR, XRDMA_WC_REM_OP_ERR),
	CQE_STATUS(XNIC_CQE_RETRY_EXC_ERR, XRDMA_WC_RETRY_EXC_ERR),
	CQE_STATUS(XNIC_CQE_RNR_RETRY_EXC_ERR, XRDMA_WC_RNR_RETRY_EXC_ERR),
	CQE_STATUS(XNIC_CQE_GENERAL_ERR, XRDMA_WC_GENERAL_ERR),
};

static void cqe_status_desc(const struct cqe_status_row *r, char *desc)
{
	strscpy(desc, r->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(cqe_status, cqe_status_rows, cqe_status_desc);

static void cqe_status_table(struct kunit *test)
{
	const struct cqe_status_row *r = test->param_value;
	struct xnic_cqe cqe = {};
	struct xrdma_wc wc;

	cqe.status = r->hw;
	xnic_cqe_to_wc(&cqe, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, r->wc);
	KUNIT_EXPECT_EQ(test, wc.vendor_err,
			r->hw == XNIC_CQE_GENERAL_ERR ? 21U : 0U);
}

/* a status the driver does not know */
static void cqe_status_unknown(struct kunit *test)
{
	struct xnic_cqe cqe = {};
	struct xrdma_wc wc;

	cqe.status = 200;
	xnic_cqe_to_wc(&cqe, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, XRDMA_WC_GENERAL_ERR);
	KUNIT_EXPECT_EQ(test, wc.vendor_err, 200U);
}

/* a CQE opcode and the work completion opcode it gives */
struct cqe_opcode_row {
	u8 hw;
	enum xrdma_wc_opcode wc;
	const char *name;
};

#define CQE_OPCODE(hw, wc) { hw, wc, #hw }
static const struct cqe_opcode_row cqe_opcode_rows[] = {
	CQE_OPCODE(XNIC_CQE_OP_SEND, XRDMA_WC_SEND),
	CQE_OPCODE(XNIC_CQE_OP_RDMA_WRITE, XRDMA_WC_RDMA_WRITE),
	CQE_OPCODE(XNIC_CQE_OP_RDMA_READ, XRDMA_WC_RDMA_READ),
	CQE_OPCODE(XNIC_CQE_OP_COMP_SWAP, XRDMA_WC_COMP_SWAP),
	CQE_OPCODE(XNIC_CQE_OP_FETCH_ADD, XRDMA_WC_FETCH_ADD),
	CQE_OPCODE(XNIC_CQE_OP_LOCAL_INV, XRDMA_WC_LOCAL_INV),
	CQE_OPCODE(XNIC_CQE_OP_REG_MR, XRDMA_WC_REG_MR),
	CQE_OPCODE(XNIC_CQE_OP_RECV, XRDMA_WC_RECV),
	CQE_OPCODE(XNIC_CQE_OP_RECV_RDMA_WITH_IMM,
		   XRDMA_WC_RECV_RDMA_WITH_IMM),
	/* unknown: by the receive bit */
	CQE_OPCODE(0x7f, XRDMA_WC_SEND),
	CQE_OPCODE(0xfe, XRDMA_WC_RECV),
};

static void cqe_opcode_desc(const struct cqe_opcode_row *r, char *desc)
{
	strscpy(desc, r->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(cqe_opcode, cqe_opcode_rows, cqe_opcode_desc);

static void cqe_opcode_table(struct kunit *test)
{
	const struct cqe_opcode_row *r = test->param_value;
	struct xnic_cqe cqe = {};
	struct xrdma_wc wc;

	cqe.opcode = r->hw;
	xnic_cqe_to_wc(&cqe, &wc);
	KUNIT_EXPECT_EQ(test, wc.opcode, r->wc);
}

static void cqe_fields(struct kunit *test)
{
	struct xnic_cqe cqe = {
		.byte_len = cpu_to_le32(4000),
		.src_qp = cpu_to_le32(0x654321),
		.opcode = XNIC_CQE_OP_RECV,
		.flags = XNIC_CQE_GRH | XNIC_CQE_WITH_IMM,
	};
	struct xrdma_wc wc;

	memcpy(&cqe.imm_data, "\xca\xfe\xba\xbe", 4);
	memset(&wc, 0xff, sizeof(wc));
	xnic_cqe_to_wc(&cqe, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, XRDMA_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 4000U);
	KUNIT_EXPECT_EQ(test, wc.src_qp, 0x654321U);
	KUNIT_EXPECT_EQ(test, wc.wc_flags,
			(u32)(XRDMA_WC_GRH | XRDMA_WC_WITH_NETWORK_HDR_TYPE |
			      XRDMA_WC_WITH_IMM));
	KUNIT_EXPECT_EQ(test, wc.network_hdr_type, XRDMA_NETWORK_ROCE_V1);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(wc.ex.imm_data), 0xcafebabeU);
	KUNIT_EXPECT_EQ(test, wc.port_num, 1);
	KUNIT_EXPECT_EQ(test, wc.pkey_index, 0);

	cqe.flags = XNIC_CQE_WITH_INV;
	cqe.imm_data = cpu_to_le32(0x00112233);
	xnic_cqe_to_wc(&cqe, &wc);
	KUNIT_EXPECT_EQ(test, wc.wc_flags, (u32)XRDMA_WC_WITH_INVALIDATE);
	KUNIT_EXPECT_EQ(test, wc.ex.invalidate_rkey, 0x00112233U);

	cqe.flags = 0;
	xnic_cqe_to_wc(&cqe, &wc);
	KUNIT_EXPECT_EQ(test, wc.wc_flags, 0U);
	KUNIT_EXPECT_EQ(test, wc.ex.invalidate_rkey, 0U);

	/* the network header type of a UD receive */
	cqe.flags = XNIC_CQE_GRH | XNIC_CQE_NET_IPV4;
	xnic_cqe_to_wc(&cqe, &wc);
	KUNIT_EXPECT_EQ(test, wc.wc_flags,
			(u32)(XRDMA_WC_GRH | XRDMA_WC_WITH_NETWORK_HDR_TYPE));
	KUNIT_EXPECT_EQ(test, wc.network_hdr_type, XRDMA_NETWORK_IPV4);
	cqe.flags = XNIC_CQE_GRH | XNIC_CQE_NET_IPV6;
	xnic_cqe_to_wc(&cqe, &wc);
	KUNIT_EXPECT_EQ(test, wc.network_hdr_type, XRDMA_NETWORK_IPV6);
}

static struct kunit_case cqe_cases[] = {
	KUNIT_CASE_PARAM(cqe_status_table, cqe_status_gen_params),
	KUNIT_CASE(cqe_status_unknown),
	KUNIT_CASE_PARAM(cqe_opcode_table, cqe_opcode_gen_params),
	KUNIT_CASE(cqe_fields),
	{}
};

static struct kunit_suite cqe_suite = {
	.name = "xnic_drv_cqe",
	.test_cases = cqe_cases,
};

/* ------------------------------------------------------------------ */
/* xnic_drv_misc                                                       */

static void misc_geometry(struct kunit *test)
{
	u32 s, shift;

	KUNIT_EXPECT_EQ(test, xnic_log_entries(0), 0U);
	KUNIT_EXPECT_EQ(test, xnic_log_entries(1), 0U);
	KUNIT_EXPECT_EQ(test, xnic_log_entries(2), 1U);
	KUNIT_EXPECT_EQ(test, xnic_log_entries(3), 2U);
	KUNIT_EXPECT_EQ(test, xnic_log_entries(1024), 10U);
	KUNIT_EXPECT_EQ(test, xnic_log_entries(1025), 11U);

	/* 128 bytes at least: 2 SGEs or 32 inline bytes */
	KUNIT_EXPECT_EQ(test, xnic_sq_wqe_shift(0, 0), 7U);
	KUNIT_EXPECT_EQ(test, xnic_sq_wqe_shift(2, 32), 7U);
	KUNIT_EXPECT_EQ(test, xnic_sq_wqe_shift(3, 0), 8U);
	KUNIT_EXPECT_EQ(test, xnic_sq_wqe_shift(1, 33), 8U);
	KUNIT_EXPECT_EQ(test, xnic_sq_wqe_shift(10, 160), 8U);
	KUNIT_EXPECT_EQ(test, xnic_sq_wqe_shift(16, 0), 9U);
	KUNIT_EXPECT_EQ(test, xnic_sq_wqe_shift(0, 4000), 12U);
	/* absurd requests give an absurd size, never an overflow */
	KUNIT_EXPECT_GT(test, xnic_sq_wqe_shift(U32_MAX, U32_MAX),
			(u32)XNIC_MAX_WQE_SHIFT);
	for (s = 7; s <= 12; s++) {
		KUNIT_EXPECT_EQ(test, xnic_sq_wqe_max_sge(s),
				((1U << s) - 96) / 16);
		KUNIT_EXPECT_EQ(test, xnic_sq_wqe_max_inline(s),
				(1U << s) - 96);
		/* the size holds what it was computed for */
		shift = xnic_sq_wqe_shift(xnic_sq_wqe_max_sge(s),
					  xnic_sq_wqe_max_inline(s));
		KUNIT_EXPECT_EQ(test, shift, s);
	}

	KUNIT_EXPECT_EQ(test, xnic_rq_wqe_shift(0), 5U);
	KUNIT_EXPECT_EQ(test, xnic_rq_wqe_shift(1), 5U);
	KUNIT_EXPECT_EQ(test, xnic_rq_wqe_shift(2), 6U);
	KUNIT_EXPECT_EQ(test, xnic_rq_wqe_shift(3), 6U);
	KUNIT_EXPECT_EQ(test, xnic_rq_wqe_shift(4), 7U);
	KUNIT_EXPECT_GT(test, xnic_rq_wqe_shift(U32_MAX),
			(u32)XNIC_MAX_WQE_SHIFT);
	KUNIT_EXPECT_EQ(test, xnic_rq_wqe_max_sge(5), 1U);
	KUNIT_EXPECT_EQ(test, xnic_rq_wqe_max_sge(6), 3U);

	/* owner phases: WQEs 0 on the first lap, CQEs/EQEs 1 */
	KUNIT_EXPECT_EQ(test, xnic_phase(0, 3), 0);
	KUNIT_EXPECT_EQ(test, xnic_phase(7, 3), 0);
	KUNIT_EXPECT_EQ(test, xnic_phase(8, 3), 1);
	KUNIT_EXPECT_EQ(test, xnic_phase(16, 3), 0);
	KUNIT_EXPECT_TRUE(test, xnic_hw_owned_valid(1, 0, 3));
	KUNIT_EXPECT_FALSE(test, xnic_hw_owned_valid(0, 0, 3));
	KUNIT_EXPECT_TRUE(test, xnic_hw_owned_valid(0, 8, 3));
	KUNIT_EXPECT_FALSE(test, xnic_hw_owned_valid(1, 8, 3));
	/* free-running indexes wrap */
	KUNIT_EXPECT_TRUE(test, xnic_hw_owned_valid(1, 0xfffffff8, 3) ==
			  xnic_hw_owned_valid(1, 0x8, 3));
}

static void misc_cmd_status(struct kunit *test)
{
	struct xnic_dev *xdev = kunit_kzalloc(test, sizeof(*xdev), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, xdev);
	KUNIT_EXPECT_EQ(test, xnic_cmd_status_to_errno(XNIC_CMD_OK), 0);
	KUNIT_EXPECT_EQ(test, xnic_cmd_status_to_errno(XNIC_CMD_BAD_OPCODE),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, xnic_cmd_status_to_errno(XNIC_CMD_BAD_PARAM),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_cmd_status_to_errno(XNIC_CMD_BAD_STATE),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_cmd_status_to_errno(XNIC_CMD_NO_RESOURCES),
			-ENOMEM);
	KUNIT_EXPECT_EQ(test, xnic_cmd_status_to_errno(XNIC_CMD_BAD_INDEX),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_cmd_status_to_errno(XNIC_CMD_BUSY), -EBUSY);
	KUNIT_EXPECT_EQ(test, xnic_cmd_status_to_errno(77), -EIO);
	/* which failures leave memory with the device */
	KUNIT_EXPECT_TRUE(test, xnic_cmd_let_go(xdev, 0));
	KUNIT_EXPECT_TRUE(test, xnic_cmd_let_go(xdev, -EINVAL));
	KUNIT_EXPECT_FALSE(test, xnic_cmd_let_go(xdev, -ETIMEDOUT));
	KUNIT_EXPECT_FALSE(test, xnic_cmd_let_go(xdev, -EIO));
	KUNIT_EXPECT_FALSE(test, xnic_cmd_let_go(xdev, -EBUSY));
	/* none once the device was reset after its command path died */
	xdev->stopped = true;
	KUNIT_EXPECT_TRUE(test, xnic_cmd_let_go(xdev, -ETIMEDOUT));
	KUNIT_EXPECT_TRUE(test, xnic_cmd_let_go(xdev, -EIO));
	KUNIT_EXPECT_TRUE(test, xnic_cmd_let_go(xdev, -EBUSY));
}

static void misc_access(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, xnic_access_to_hw(0), 0U);
	/* MW_BIND is an MR's (xnic_mr_access_to_hw), not a QP's right */
	KUNIT_EXPECT_EQ(test, xnic_access_to_hw(XRDMA_ACCESS_ALL),
			(u32)(XNIC_ACCESS_LOCAL_WRITE | XNIC_ACCESS_REMOTE_WRITE |
			      XNIC_ACCESS_REMOTE_READ |
			      XNIC_ACCESS_REMOTE_ATOMIC |
			      XNIC_ACCESS_FLUSH_GLOBAL |
			      XNIC_ACCESS_FLUSH_PERSISTENT));
	KUNIT_EXPECT_EQ(test, xnic_access_to_hw(XRDMA_ACCESS_REMOTE_ATOMIC),
			(u32)XNIC_ACCESS_REMOTE_ATOMIC);
	KUNIT_EXPECT_EQ(test, xnic_access_to_hw(XRDMA_ACCESS_MW_BIND), 0U);
	KUNIT_EXPECT_EQ(test, xnic_access_to_hw(XRDMA_ACCESS_FLUSH_GLOBAL),
			(u32)XNIC_ACCESS_FLUSH_GLOBAL);
	KUNIT_EXPECT_EQ(test, xnic_access_to_hw(XRDMA_ACCESS_FLUSH_PERSISTENT),
			(u32)XNIC_ACCESS_FLUSH_PERSISTENT);
}

static void misc_modify_qp(struct kunit *test)
{
	struct xrdma_qp_attr attr = {
		.qp_state = XRDMA_QPS_RTR, .path_mtu = XRDMA_MTU_1024,
		.qkey = 0x1234, .rq_psn = 0x1abcdef, .sq_psn = 77,
		.dest_qp_num = 0x345678,
		.qp_access_flags = XRDMA_ACCESS_REMOTE_WRITE |
				   XRDMA_ACCESS_MW_BIND,
		.max_rd_atomic = 4, .max_dest_rd_atomic = 5,
		.min_rnr_timer = 12, .port_num = 1, .timeout = 14,
		.retry_cnt = 7, .rnr_retry = 6,
	};
	int mask = XRDMA_QP_STATE | XRDMA_QP_AV | XRDMA_QP_PATH_MTU |
		   XRDMA_QP_DEST_QPN | XRDMA_QP_RQ_PSN |
		   XRDMA_QP_MAX_DEST_RD_ATOMIC | XRDMA_QP_MIN_RNR_TIMER |
		   XRDMA_QP_ACCESS_FLAGS;
	struct xnic_cmd_modify_qp c = {};
	int i;

	for (i = 0; i < 16; i++)
		attr.ah_attr.dgid.raw[i] = i + 1;
	attr.ah_attr.port_num = 1;
	attr.ah_attr.sgid_index = 3;
	KUNIT_ASSERT_EQ(test, xnic_fill_modify_qp(&c, 9, &attr, mask), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c.qpn), 9U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c.mask),
			(u32)(XNIC_QP_MOD_STATE | XNIC_QP_MOD_AV |
			      XNIC_QP_MOD_PATH_MTU | XNIC_QP_MOD_DEST_QPN |
			      XNIC_QP_MOD_RQ_PSN |
			      XNIC_QP_MOD_MAX_DEST_RD_ATOMIC |
			      XNIC_QP_MOD_MIN_RNR_TIMER | XNIC_QP_MOD_ACCESS));
	KUNIT_EXPECT_EQ(test, c.state, XNIC_QPS_RTR);
	KUNIT_EXPECT_EQ(test, c.path_mtu, XNIC_MTU_1024);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c.dest_qpn), 0x345678U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c.rq_psn), 0xabcdefU);
	KUNIT_EXPECT_EQ(test, c.max_dest_rd_atomic, 5);
	KUNIT_EXPECT_EQ(test, c.min_rnr_timer, 12);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c.access),
			(u32)XNIC_ACCESS_REMOTE_WRITE);
	KUNIT_EXPECT_EQ(test, memcmp(c.dgid, attr.ah_attr.dgid.raw, 16), 0);
	KUNIT_EXPECT_EQ(test, c.sgid_index, 3);
	KUNIT_EXPECT_EQ(test, c.port_num, 1);
	/* attributes outside the mask are not sent */
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c.qkey), 0U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c.sq_psn), 0U);
	KUNIT_EXPECT_EQ(test, c.timeout, 0);
	KUNIT_EXPECT_EQ(test, c.retry_cnt, 0);
	KUNIT_EXPECT_EQ(test, c.rnr_retry, 0);
	KUNIT_EXPECT_EQ(test, c.max_rd_atomic, 0);

	/* what the device does not keep is not sent */
	memset(&c, 0, sizeof(c));
	attr.pkey_index = 3;
	KUNIT_ASSERT_EQ(test, xnic_fill_modify_qp(&c, 9, &attr,
						  XRDMA_QP_PKEY_INDEX |
						  XRDMA_QP_QKEY), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c.mask), (u32)XNIC_QP_MOD_QKEY);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c.qkey), 0x1234U);

	/* values the device has no code for */
	attr.qp_state = XRDMA_QPS_NUM;
	KUNIT_EXPECT_EQ(test, xnic_fill_modify_qp(&c, 9, &attr,
						  XRDMA_QP_STATE), -EINVAL);
	attr.qp_state = XRDMA_QPS_RTR;
	attr.path_mtu = 0;
	KUNIT_EXPECT_EQ(test, xnic_fill_modify_qp(&c, 9, &attr,
						  XRDMA_QP_PATH_MTU), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_fill_modify_qp(&c, 9, &attr, 1 << 21),
			-EINVAL);
}

static void misc_caps(struct kunit *test)
{
	struct xnic_cmd_query_caps_out out = {};
	struct xrdma_device_attr attr;
	struct xnic_caps caps;

	memcpy(&out.node_guid, "\x02\x00\x00\xff\xfe\x00\x00\x01", 8);
	out.max_qp = cpu_to_le32(4096);
	out.max_sge = cpu_to_le32(1000);
	out.max_inline = cpu_to_le32(512);
	out.max_qp_wr = cpu_to_le32(1U << 20);
	out.max_cqe = cpu_to_le32(65536);
	out.max_fast_reg_pages = cpu_to_le32(512);
	out.max_rd_atom = cpu_to_le32(16);
	out.num_ports = cpu_to_le32(1);
	out.port_state = cpu_to_le32(XNIC_PORT_ACTIVE);
	out.port_mtu = cpu_to_le32(99);
	out.page_size_cap = cpu_to_le64(0x201000);
	memset(out.fw_ver, 'x', sizeof(out.fw_ver));	/* no NUL */
	xnic_caps_from_hw(&caps, &out);
	/* clamped to what the WQE formats can express */
	KUNIT_EXPECT_EQ(test, caps.max_sge, xnic_sq_wqe_max_sge(12));
	KUNIT_EXPECT_EQ(test, caps.max_inline, 512U);
	KUNIT_EXPECT_EQ(test, caps.max_qp_wr, 1U << 16);
	KUNIT_EXPECT_EQ(test, caps.max_cqe, 65536U);
	KUNIT_EXPECT_EQ(test, caps.page_size_cap, 0x201000ULL);

	xnic_fill_device_attr(&attr, &caps, &out);
	KUNIT_EXPECT_EQ(test, strlen(attr.fw_ver), sizeof(out.fw_ver));
	KUNIT_EXPECT_EQ(test, be64_to_cpu(attr.node_guid),
			0x020000fffe000001ULL);
	KUNIT_EXPECT_TRUE(test, attr.device_cap_flags &
			  XRDMA_DEVICE_MEM_MGT_EXTENSIONS);
	KUNIT_EXPECT_TRUE(test, attr.device_cap_flags &
			  XRDMA_DEVICE_SRQ_RESIZE);
	KUNIT_EXPECT_EQ(test, attr.atomic_cap, XRDMA_ATOMIC_HCA);
	KUNIT_EXPECT_EQ(test, attr.max_fast_reg_page_list_len, 512U);
	KUNIT_EXPECT_EQ(test, attr.max_qp, 4096U);
	KUNIT_EXPECT_EQ(test, attr.max_qp_rd_atom, 16U);
	KUNIT_EXPECT_EQ(test, attr.max_sge, caps.max_sge);
}

/* the port's active MTU register (XNIC_REG_ETH_PORT_MTU) as misc_query_port sets it */
static u32 mq_port_mtu;

static u32 mq_bus_read32(struct xnic_bus *bus, u32 reg)
{
	return reg == XNIC_REG_ETH(1, XNIC_REG_ETH_PORT_MTU) ? mq_port_mtu : 0;
}

static struct xnic_bus mq_bus = {
	.read32 = mq_bus_read32,
	.write32 = dp_bus_write32,
};

static void misc_query_port(struct kunit *test)
{
	struct xnic_dev *xdev = kunit_kzalloc(test, sizeof(*xdev), GFP_KERNEL);
	struct xrdma_port_attr pa = {};

	KUNIT_ASSERT_NOT_NULL(test, xdev);
	xdev->bus = &mq_bus;
	mq_port_mtu = 0;	/* a device without the register: the max */
	xdev->port_state = XRDMA_PORT_ACTIVE;
	xdev->caps.port_mtu = XNIC_MTU_2048;
	KUNIT_EXPECT_EQ(test, xnic_query_port(&xdev->ibdev, 1, &pa), 0);
	KUNIT_EXPECT_EQ(test, pa.state, XRDMA_PORT_ACTIVE);
	KUNIT_EXPECT_EQ(test, pa.max_mtu, XRDMA_MTU_2048);
	KUNIT_EXPECT_EQ(test, pa.active_mtu, XRDMA_MTU_2048);
	/* an MTU the driver does not know is taken as 4096 */
	xdev->caps.port_mtu = 99;
	KUNIT_EXPECT_EQ(test, xnic_query_port(&xdev->ibdev, 1, &pa), 0);
	KUNIT_EXPECT_EQ(test, pa.max_mtu, XRDMA_MTU_4096);
	KUNIT_EXPECT_EQ(test, pa.active_mtu, XRDMA_MTU_4096);
	/* the active MTU follows the register, never above the max */
	mq_port_mtu = XNIC_MTU_1024;
	KUNIT_EXPECT_EQ(test, xnic_query_port(&xdev->ibdev, 1, &pa), 0);
	KUNIT_EXPECT_EQ(test, pa.max_mtu, XRDMA_MTU_4096);
	KUNIT_EXPECT_EQ(test, pa.active_mtu, XRDMA_MTU_1024);
	xdev->caps.port_mtu = XNIC_MTU_2048;
	mq_port_mtu = XNIC_MTU_4096;
	KUNIT_EXPECT_EQ(test, xnic_query_port(&xdev->ibdev, 1, &pa), 0);
	KUNIT_EXPECT_EQ(test, pa.active_mtu, XRDMA_MTU_2048);
	/* a code the driver does not know: the max */
	mq_port_mtu = 99;
	KUNIT_EXPECT_EQ(test, xnic_query_port(&xdev->ibdev, 1, &pa), 0);
	KUNIT_EXPECT_EQ(test, pa.active_mtu, XRDMA_MTU_2048);
}

static void misc_doorbell(struct kunit *test)
{
	static const u32 slots[] = { 0, 63, 64, 4095, 4096, XNIC_DB_SLOTS - 1 };
	struct xnic_db_page *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, sizeof(*p), (size_t)XNIC_DB_PAGE_SIZE);
	for (i = 0; i < ARRAY_SIZE(slots); i++) {
		u32 s = slots[i], g = s / 64;

		memset(p, 0, sizeof(*p));
		KUNIT_EXPECT_FALSE(test, xnic_db_ring(p, s));
		KUNIT_EXPECT_EQ(test, le64_to_cpu(p->group[g]), BIT_ULL(s % 64));
		KUNIT_EXPECT_EQ(test, le64_to_cpu(p->summary[g / 64]),
				BIT_ULL(g % 64));
		/* nothing else set */
		p->group[g] = 0;
		p->summary[g / 64] = 0;
		KUNIT_EXPECT_FALSE(test, memchr_inv(p, 0, sizeof(*p)));
	}
	/* bits accumulate; the device's wakeup request is reported */
	memset(p, 0, sizeof(*p));
	xnic_db_ring(p, 1);
	p->flags = cpu_to_le32(XNIC_DB_NEED_WAKEUP);
	KUNIT_EXPECT_TRUE(test, xnic_db_ring(p, 2));
	KUNIT_EXPECT_EQ(test, le64_to_cpu(p->group[0]), 6ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(p->summary[0]), 1ULL);
}

static struct kunit_case misc_cases[] = {
	KUNIT_CASE(misc_geometry),
	KUNIT_CASE(misc_cmd_status),
	KUNIT_CASE(misc_access),
	KUNIT_CASE(misc_modify_qp),
	KUNIT_CASE(misc_caps),
	KUNIT_CASE(misc_query_port),
	KUNIT_CASE(misc_doorbell),
	{}
};

static struct kunit_suite misc_suite = {
	.name = "xnic_drv_misc",
	.test_cases = misc_cases,
};

/* ------------------------------------------------------------------ */
/* xnic_drv_codes: verbs values to and from the device's codes         */

/* a verbs value and the device's code for it */
struct code_row {
	int verbs, hw;
	const char *name;
};

#define CODE(verbs, hw) { verbs, hw, #verbs }

static void code_desc(const struct code_row *r, char *desc)
{
	strscpy(desc, r->name, KUNIT_PARAM_DESC_SIZE);
}

static const struct code_row qp_type_rows[] = {
	CODE(XRDMA_QPT_RC, XNIC_QPT_RC),
	CODE(XRDMA_QPT_UC, XNIC_QPT_UC),
	CODE(XRDMA_QPT_UD, XNIC_QPT_UD),
	CODE(XRDMA_QPT_GSI, XNIC_QPT_GSI),
};

KUNIT_ARRAY_PARAM(qp_type, qp_type_rows, code_desc);

static void codes_qp_type(struct kunit *test)
{
	const struct code_row *r = test->param_value;

	KUNIT_EXPECT_EQ(test, xnic_qp_type_to_hw(r->verbs), r->hw);
}

static void codes_qp_type_invalid(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, xnic_qp_type_to_hw(0), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, xnic_qp_type_to_hw(XRDMA_QPT_UD + 1),
			-EOPNOTSUPP);
}

static const struct code_row qp_state_rows[] = {
	CODE(XRDMA_QPS_RESET, XNIC_QPS_RESET),
	CODE(XRDMA_QPS_INIT, XNIC_QPS_INIT),
	CODE(XRDMA_QPS_RTR, XNIC_QPS_RTR),
	CODE(XRDMA_QPS_RTS, XNIC_QPS_RTS),
	CODE(XRDMA_QPS_SQD, XNIC_QPS_SQD),
	CODE(XRDMA_QPS_SQE, XNIC_QPS_SQE),
	CODE(XRDMA_QPS_ERR, XNIC_QPS_ERR),
};

KUNIT_ARRAY_PARAM(qp_state, qp_state_rows, code_desc);

static void codes_qp_state(struct kunit *test)
{
	const struct code_row *r = test->param_value;

	KUNIT_EXPECT_EQ(test, xnic_qp_state_to_hw(r->verbs), r->hw);
	KUNIT_EXPECT_EQ(test, xnic_qp_state_from_hw(r->hw), r->verbs);
}

static void codes_qp_state_invalid(struct kunit *test)
{
	/* every state of either side has a row */
	KUNIT_EXPECT_EQ(test, ARRAY_SIZE(qp_state_rows),
			(size_t)XRDMA_QPS_NUM);
	KUNIT_EXPECT_EQ(test, ARRAY_SIZE(qp_state_rows),
			(size_t)XNIC_QPS_NUM);
	KUNIT_EXPECT_EQ(test, xnic_qp_state_to_hw(XRDMA_QPS_NUM), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_qp_state_to_hw(-1), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_qp_state_from_hw(XNIC_QPS_NUM), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_qp_state_from_hw(0xff), -EINVAL);
}

static const struct code_row mtu_rows[] = {
	CODE(XRDMA_MTU_256, XNIC_MTU_256),
	CODE(XRDMA_MTU_512, XNIC_MTU_512),
	CODE(XRDMA_MTU_1024, XNIC_MTU_1024),
	CODE(XRDMA_MTU_2048, XNIC_MTU_2048),
	CODE(XRDMA_MTU_4096, XNIC_MTU_4096),
};

KUNIT_ARRAY_PARAM(mtu, mtu_rows, code_desc);

static void codes_mtu(struct kunit *test)
{
	const struct code_row *r = test->param_value;

	KUNIT_EXPECT_EQ(test, xnic_mtu_to_hw(r->verbs), r->hw);
	KUNIT_EXPECT_EQ(test, xnic_mtu_from_hw(r->hw), r->verbs);
}

static void codes_mtu_invalid(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, xnic_mtu_to_hw(0), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_mtu_to_hw(XRDMA_MTU_4096 + 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_mtu_from_hw(0), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_mtu_from_hw(XNIC_MTU_4096 + 1), -EINVAL);
}

static void codes_port_state(struct kunit *test)
{
	u32 s;

	KUNIT_EXPECT_EQ(test, xnic_port_state_from_hw(XNIC_PORT_DOWN),
			XRDMA_PORT_DOWN);
	KUNIT_EXPECT_EQ(test, xnic_port_state_from_hw(XNIC_PORT_ACTIVE),
			XRDMA_PORT_ACTIVE);
	/* every other code is unknown */
	for (s = 0; s < 16; s++)
		if (s != XNIC_PORT_DOWN && s != XNIC_PORT_ACTIVE)
			KUNIT_EXPECT_EQ(test, xnic_port_state_from_hw(s),
					-EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_port_state_from_hw(U32_MAX), -EINVAL);
}

static void codes_qp_mask(struct kunit *test)
{
	static const struct {
		u32 verbs, hw;
	} map[] = {
		{ XRDMA_QP_STATE, XNIC_QP_MOD_STATE },
		{ XRDMA_QP_CUR_STATE, 0 },
		{ XRDMA_QP_EN_SQD_ASYNC_NOTIFY, 0 },
		{ XRDMA_QP_ACCESS_FLAGS, XNIC_QP_MOD_ACCESS },
		{ XRDMA_QP_PKEY_INDEX, 0 },
		{ XRDMA_QP_PORT, XNIC_QP_MOD_PORT },
		{ XRDMA_QP_QKEY, XNIC_QP_MOD_QKEY },
		{ XRDMA_QP_AV, XNIC_QP_MOD_AV },
		{ XRDMA_QP_PATH_MTU, XNIC_QP_MOD_PATH_MTU },
		{ XRDMA_QP_TIMEOUT, XNIC_QP_MOD_TIMEOUT },
		{ XRDMA_QP_RETRY_CNT, XNIC_QP_MOD_RETRY_CNT },
		{ XRDMA_QP_RNR_RETRY, XNIC_QP_MOD_RNR_RETRY },
		{ XRDMA_QP_RQ_PSN, XNIC_QP_MOD_RQ_PSN },
		{ XRDMA_QP_MAX_QP_RD_ATOMIC, XNIC_QP_MOD_MAX_RD_ATOMIC },
		{ XRDMA_QP_ALT_PATH, 0 },
		{ XRDMA_QP_MIN_RNR_TIMER, XNIC_QP_MOD_MIN_RNR_TIMER },
		{ XRDMA_QP_SQ_PSN, XNIC_QP_MOD_SQ_PSN },
		{ XRDMA_QP_MAX_DEST_RD_ATOMIC, XNIC_QP_MOD_MAX_DEST_RD_ATOMIC },
		{ XRDMA_QP_PATH_MIG_STATE, 0 },
		{ XRDMA_QP_CAP, 0 },
		{ XRDMA_QP_DEST_QPN, XNIC_QP_MOD_DEST_QPN },
	};
	u32 all = 0, all_hw = 0, hw;
	int i;

	/* one row per verbs bit, each bit alone */
	KUNIT_EXPECT_EQ(test, ARRAY_SIZE(map),
			(size_t)hweight32(XRDMA_QP_ATTR_MASK_ALL));
	for (i = 0; i < ARRAY_SIZE(map); i++) {
		hw = 0xdead;
		KUNIT_EXPECT_EQ(test, xnic_qp_mask_to_hw(map[i].verbs, &hw), 0);
		KUNIT_EXPECT_EQ_MSG(test, hw, map[i].hw, "verbs bit 0x%x",
				    map[i].verbs);
		all |= map[i].verbs;
		all_hw |= map[i].hw;
	}
	/* all together */
	KUNIT_EXPECT_EQ(test, all, (u32)XRDMA_QP_ATTR_MASK_ALL);
	KUNIT_EXPECT_EQ(test, xnic_qp_mask_to_hw(all, &hw), 0);
	KUNIT_EXPECT_EQ(test, hw, all_hw);
	KUNIT_EXPECT_EQ(test, xnic_qp_mask_to_hw(0, &hw), 0);
	KUNIT_EXPECT_EQ(test, hw, 0U);
	/* bits nobody knows, alone or with known ones; *hw_mask untouched */
	for (i = hweight32(XRDMA_QP_ATTR_MASK_ALL); i < 32; i++) {
		hw = 0xdead;
		KUNIT_EXPECT_EQ(test, xnic_qp_mask_to_hw(BIT(i), &hw), -EINVAL);
		KUNIT_EXPECT_EQ(test, xnic_qp_mask_to_hw(BIT(i) |
							 XRDMA_QP_STATE, &hw),
				-EINVAL);
		KUNIT_EXPECT_EQ(test, hw, 0xdeadU);
	}
}

static struct kunit_case codes_cases[] = {
	KUNIT_CASE_PARAM(codes_qp_type, qp_type_gen_params),
	KUNIT_CASE(codes_qp_type_invalid),
	KUNIT_CASE_PARAM(codes_qp_state, qp_state_gen_params),
	KUNIT_CASE(codes_qp_state_invalid),
	KUNIT_CASE_PARAM(codes_mtu, mtu_gen_params),
	KUNIT_CASE(codes_mtu_invalid),
	KUNIT_CASE(codes_port_state),
	KUNIT_CASE(codes_qp_mask),
	{}
};

static struct kunit_suite codes_suite = {
	.name = "xnic_drv_codes",
	.test_cases = codes_cases,
};

/* ------------------------------------------------------------------ */
/* xnic_drv_dp: the test plays the device                              */

#define DP_QPN		5
#define DP_SLOT		70
#define DP_SQ_LOG	2	/* 4 send WQEs */
#define DP_RQ_LOG	2
#define DP_CQ_LOG	3	/* 8 CQEs */

struct dp {
	struct xnic_dev *xdev;
	struct xnic_cq *cq;		/* send and receive CQ */
	struct xnic_qp *qp;
	struct xnic_srq *srq;
	struct xnic_qp *srq_qp;		/* a second QP, on the SRQ */
	u32 cq_pi;			/* the device's CQ producer index */
};

static void *dp_zalloc(struct kunit *test, size_t size)
{
	void *p = kunit_kzalloc(test, size, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	return p;
}

static void dp_wq_init(struct kunit *test, struct xnic_wq *wq, u32 log,
		       u32 shift)
{
	spin_lock_init(&wq->lock);
	wq->log_size = log;
	wq->wqe_shift = shift;
	wq->ring = dp_zalloc(test, 1U << (log + shift));
	wq->wrid = dp_zalloc(test, sizeof(u64) << log);
}

static struct xnic_qp *dp_qp(struct kunit *test, struct dp *d, u32 qpn,
			     struct xnic_srq *srq)
{
	struct xnic_qp *qp = dp_zalloc(test, sizeof(*qp));

	qp->ibqp.device = &d->xdev->ibdev;
	qp->ibqp.qp_num = qpn;
	qp->ibqp.qp_type = XRDMA_QPT_RC;
	qp->ibqp.state = XRDMA_QPS_RTS;
	qp->ibqp.send_cq = &d->cq->ibcq;
	qp->ibqp.recv_cq = &d->cq->ibcq;
	qp->ibqp.srq = srq ? &srq->ibsrq : NULL;
	qp->kernel = true;
	qp->db_slot = DP_SLOT;
	qp->dbrec = dp_zalloc(test, sizeof(*qp->dbrec));
	qp->sq_cfg.qp_type = XRDMA_QPT_RC;
	qp->sq_cfg.max_sge = 2;
	qp->sq_cfg.max_inline = 32;
	qp->rq_max_sge = 1;
	dp_wq_init(test, &qp->sq, DP_SQ_LOG, 7);
	if (!srq)
		dp_wq_init(test, &qp->rq, DP_RQ_LOG, 5);
	KUNIT_ASSERT_EQ(test, xa_insert(&d->xdev->qp_xa, qpn, qp, GFP_KERNEL),
			0);
	xnic_cq_add_qp(qp);
	return qp;
}

/* A kernel CQ, on the device's list of them. */
static struct xnic_cq *dp_cq(struct kunit *test, struct dp *d)
{
	struct xnic_cq *cq = dp_zalloc(test, sizeof(*cq));

	cq->ibcq.device = &d->xdev->ibdev;
	spin_lock_init(&cq->lock);
	mutex_init(&cq->resize_mutex);
	cq->log_cqe = DP_CQ_LOG;
	cq->ring = dp_zalloc(test, sizeof(struct xnic_cqe) << DP_CQ_LOG);
	cq->dbrec = dp_zalloc(test, sizeof(*cq->dbrec));
	INIT_LIST_HEAD(&cq->sq_list);
	INIT_LIST_HEAD(&cq->rq_list);
	list_add_tail(&cq->kcq_node, &d->xdev->kcqs);
	return cq;
}

static int dp_init(struct kunit *test)
{
	struct dp *d = dp_zalloc(test, sizeof(*d));
	struct xnic_srq *srq;

	d->xdev = dp_zalloc(test, sizeof(*d->xdev));
	d->xdev->bus = &dp_bus;
	xa_init(&d->xdev->qp_xa);
	d->xdev->kdb.cpu = dp_zalloc(test, XNIC_DB_PAGE_SIZE);
	mutex_init(&d->xdev->kcq_mutex);
	INIT_LIST_HEAD(&d->xdev->kcqs);

	d->cq = dp_cq(test, d);

	srq = dp_zalloc(test, sizeof(*srq));
	srq->ibsrq.device = &d->xdev->ibdev;
	spin_lock_init(&srq->lock);
	srq->kernel = true;
	srq->log_size = 2;
	srq->wqe_shift = 5;
	srq->max_wr = 3;
	srq->max_sge = 1;
	srq->ring = dp_zalloc(test, 4 << 5);
	srq->dbrec = dp_zalloc(test, sizeof(*srq->dbrec));
	d->srq = srq;

	d->qp = dp_qp(test, d, DP_QPN, NULL);
	d->srq_qp = dp_qp(test, d, DP_QPN + 1, srq);
	xnic_test_kicks = 0;
	test->priv = d;
	return 0;
}

static void dp_exit(struct kunit *test)
{
	struct dp *d = test->priv;

	xa_destroy(&d->xdev->qp_xa);
}

/* The device writes a CQE: body first, owner last. */
static void dp_cqe(struct dp *d, u32 qpn, u64 wr_id, u8 status, u8 opcode)
{
	struct xnic_cqe *cqe = xnic_cqe_at(d->cq, d->cq_pi);

	memset(cqe, 0, offsetof(struct xnic_cqe, owner));
	cqe->qpn = cpu_to_le32(qpn);
	cqe->wr_id = cpu_to_le64(wr_id);
	cqe->status = status;
	cqe->opcode = opcode;
	cqe->byte_len = cpu_to_le32(64);
	/* body before owner, as the device does */
	wmb();
	cqe->owner = xnic_phase(d->cq_pi, DP_CQ_LOG) ^ 1;
	d->cq_pi++;
}

static struct xnic_wqe_ctrl *dp_sqe(struct xnic_qp *qp, u32 idx)
{
	return xnic_wq_entry(&qp->sq, idx);
}

static void dp_post_send_ring(struct kunit *test)
{
	struct dp *d = test->priv;
	struct xrdma_send_wr wr[3] = {};
	const struct xrdma_send_wr *bad = NULL;
	struct xnic_db_page *db = d->xdev->kdb.cpu;
	int i;

	for (i = 0; i < 3; i++) {
		wr[i].wr_id = 100 + i;
		wr[i].opcode = XRDMA_WR_SEND;
		wr[i].send_flags = XRDMA_SEND_SIGNALED;
		wr[i].next = i < 2 ? &wr[i + 1] : NULL;
	}
	KUNIT_EXPECT_EQ(test, xnic_post_send(&d->qp->ibqp, wr, &bad), 0);
	KUNIT_EXPECT_EQ(test, d->qp->sq.pi, 3U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d->qp->dbrec->sq_pi), 3U);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, dp_sqe(d->qp, i)->owner, 0);
		KUNIT_EXPECT_EQ(test, le64_to_cpu(dp_sqe(d->qp, i)->wr_id),
				(u64)i);
		KUNIT_EXPECT_EQ(test, d->qp->sq.wrid[i], 100ULL + i);
	}
	/* the slot's bits, and no kick: the device is awake */
	KUNIT_EXPECT_EQ(test, le64_to_cpu(db->group[DP_SLOT / 64]),
			BIT_ULL(DP_SLOT % 64));
	KUNIT_EXPECT_EQ(test, le64_to_cpu(db->summary[0]), BIT_ULL(1));
	KUNIT_EXPECT_EQ(test, xnic_test_kicks, 0);

	/* a sleeping device is kicked */
	db->flags = cpu_to_le32(XNIC_DB_NEED_WAKEUP);
	wr[0].next = NULL;
	KUNIT_EXPECT_EQ(test, xnic_post_send(&d->qp->ibqp, wr, &bad), 0);
	KUNIT_EXPECT_EQ(test, xnic_test_kicks, 1);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d->qp->dbrec->sq_pi), 4U);
}

static void dp_sq_full_and_wrap(struct kunit *test)
{
	struct dp *d = test->priv;
	struct xrdma_send_wr wr[6] = {};
	const struct xrdma_send_wr *bad = NULL;
	struct xrdma_wc wc[4];
	int i;

	for (i = 0; i < 6; i++) {
		wr[i].wr_id = 200 + i;
		wr[i].opcode = XRDMA_WR_RDMA_WRITE;
		wr[i].next = i < 5 ? &wr[i + 1] : NULL;
	}
	wr[1].send_flags = XRDMA_SEND_SIGNALED;
	/* 4 fit; the fifth finds the queue full */
	KUNIT_EXPECT_EQ(test, xnic_post_send(&d->qp->ibqp, wr, &bad), -ENOMEM);
	KUNIT_EXPECT_PTR_EQ(test, bad, &wr[4]);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d->qp->dbrec->sq_pi), 4U);

	/* the signaled second WQE completes: it frees the first two */
	dp_cqe(d, DP_QPN, 1, XNIC_CQE_SUCCESS, XNIC_CQE_OP_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, xnic_poll_cq(&d->cq->ibcq, 4, wc), 1);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 201ULL);
	KUNIT_EXPECT_PTR_EQ(test, wc[0].qp, &d->qp->ibqp);
	KUNIT_EXPECT_EQ(test, wc[0].opcode, XRDMA_WC_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, d->qp->sq.ci, 2U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d->cq->dbrec->ci), 1U);
	KUNIT_EXPECT_EQ(test, d->qp->ibqp.state, XRDMA_QPS_RTS);

	/* two more fit, on the second lap (owner 1) */
	bad = NULL;
	KUNIT_EXPECT_EQ(test, xnic_post_send(&d->qp->ibqp, &wr[4], &bad), 0);
	KUNIT_EXPECT_PTR_EQ(test, bad, NULL);
	KUNIT_EXPECT_EQ(test, xnic_post_send(&d->qp->ibqp, &wr[5], &bad),
			-ENOMEM);
	KUNIT_EXPECT_PTR_EQ(test, bad, &wr[5]);
	KUNIT_EXPECT_EQ(test, dp_sqe(d->qp, 4)->owner, 1);
	KUNIT_EXPECT_EQ(test, dp_sqe(d->qp, 5)->owner, 1);
	KUNIT_EXPECT_EQ(test, dp_sqe(d->qp, 2)->owner, 0);
	KUNIT_EXPECT_EQ(test, d->qp->sq.wrid[4 & 3], 204ULL);

	/* a flushed WQE completes the rest, in order */
	dp_cqe(d, DP_QPN, 5, XNIC_CQE_WR_FLUSH_ERR, XNIC_CQE_OP_SEND);
	KUNIT_EXPECT_EQ(test, xnic_poll_cq(&d->cq->ibcq, 4, wc), 1);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 205ULL);
	KUNIT_EXPECT_EQ(test, wc[0].status, XRDMA_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, d->qp->sq.ci, 6U);
	/* an error completion tells the core the QP is in ERR */
	KUNIT_EXPECT_EQ(test, d->qp->ibqp.state, XRDMA_QPS_ERR);
}

static void dp_post_errors(struct kunit *test)
{
	struct dp *d = test->priv;
	struct xrdma_sge sg[3] = {};
	struct xrdma_send_wr wr[2] = {
		{ .opcode = XRDMA_WR_SEND, .next = &wr[1] },
		{ .opcode = XRDMA_WR_SEND, .sg_list = sg, .num_sge = 3 },
	};
	struct xrdma_recv_wr rwr[2] = {
		{ .next = &rwr[1] }, { .sg_list = sg, .num_sge = 2 },
	};
	const struct xrdma_send_wr *bad = NULL;
	const struct xrdma_recv_wr *rbad = NULL;

	/* too many SGEs: the first is posted, the second is bad */
	KUNIT_EXPECT_EQ(test, xnic_post_send(&d->qp->ibqp, wr, &bad), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, bad, &wr[1]);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d->qp->dbrec->sq_pi), 1U);
	KUNIT_EXPECT_EQ(test, xnic_post_recv(&d->qp->ibqp, rwr, &rbad),
			-EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, rbad, &rwr[1]);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d->qp->dbrec->rq_pi), 1U);

	/* nothing is posted in RESET */
	d->qp->ibqp.state = XRDMA_QPS_RESET;
	bad = NULL;
	KUNIT_EXPECT_EQ(test, xnic_post_send(&d->qp->ibqp, wr, &bad), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, bad, &wr[0]);
	KUNIT_EXPECT_EQ(test, xnic_post_recv(&d->qp->ibqp, rwr, &rbad),
			-EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, rbad, &rwr[0]);
	d->qp->ibqp.state = XRDMA_QPS_RTS;

	/* a QP on an SRQ has no receive queue of its own */
	rbad = NULL;
	KUNIT_EXPECT_EQ(test, xnic_post_recv(&d->srq_qp->ibqp, rwr, &rbad),
			-EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, rbad, &rwr[0]);
	/* user QPs are posted to by their process */
	d->qp->kernel = false;
	KUNIT_EXPECT_EQ(test, xnic_post_send(&d->qp->ibqp, wr, &bad), -EINVAL);
	d->qp->kernel = true;
}

static void dp_recv_and_poll(struct kunit *test)
{
	struct dp *d = test->priv;
	struct xrdma_sge sg = { .addr = 0x9000, .length = 64, .lkey = 7 };
	struct xrdma_recv_wr rwr[5] = {};
	const struct xrdma_recv_wr *rbad = NULL;
	struct xrdma_wc wc[8];
	struct xnic_rwqe *rq0;
	int i;

	for (i = 0; i < 5; i++) {
		rwr[i].wr_id = 300 + i;
		rwr[i].sg_list = &sg;
		rwr[i].num_sge = 1;
		rwr[i].next = i < 4 ? &rwr[i + 1] : NULL;
	}
	KUNIT_EXPECT_EQ(test, xnic_post_recv(&d->qp->ibqp, rwr, &rbad),
			-ENOMEM);
	KUNIT_EXPECT_PTR_EQ(test, rbad, &rwr[4]);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d->qp->dbrec->rq_pi), 4U);
	rq0 = xnic_wq_entry(&d->qp->rq, 0);
	KUNIT_EXPECT_EQ(test, rq0->num_sge, 1);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(rq0->wr_id), 0ULL);

	/* a CQE of an unknown QP is consumed, not reported */
	dp_cqe(d, 77, 0, XNIC_CQE_SUCCESS, XNIC_CQE_OP_RECV);
	dp_cqe(d, DP_QPN, 0, XNIC_CQE_SUCCESS, XNIC_CQE_OP_RECV);
	/* a CQE naming an index that is not outstanding is dropped */
	dp_cqe(d, DP_QPN, 3, XNIC_CQE_SUCCESS, XNIC_CQE_OP_SEND);
	dp_cqe(d, DP_QPN, 1, XNIC_CQE_LOC_LEN_ERR, XNIC_CQE_OP_RECV);
	KUNIT_EXPECT_EQ(test, xnic_poll_cq(&d->cq->ibcq, 1, wc), 1);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 300ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d->cq->dbrec->ci), 2U);
	KUNIT_EXPECT_EQ(test, wc[0].opcode, XRDMA_WC_RECV);
	KUNIT_EXPECT_EQ(test, wc[0].byte_len, 64U);
	KUNIT_EXPECT_EQ(test, xnic_poll_cq(&d->cq->ibcq, 8, wc), 1);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 301ULL);
	KUNIT_EXPECT_EQ(test, wc[0].status, XRDMA_WC_LOC_LEN_ERR);
	KUNIT_EXPECT_EQ(test, d->qp->rq.ci, 2U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d->cq->dbrec->ci), 4U);
	KUNIT_EXPECT_EQ(test, xnic_poll_cq(&d->cq->ibcq, 8, wc), 0);

	/* around the CQ ring: the owner phase flips on the second lap */
	for (i = 2; i < 4; i++)
		dp_cqe(d, DP_QPN, i, XNIC_CQE_SUCCESS, XNIC_CQE_OP_RECV);
	KUNIT_EXPECT_EQ(test, xnic_poll_cq(&d->cq->ibcq, 8, wc), 2);
	KUNIT_EXPECT_EQ(test, wc[1].wr_id, 303ULL);
	KUNIT_EXPECT_EQ(test, xnic_post_recv(&d->qp->ibqp, rwr, &rbad),
			-ENOMEM);
	KUNIT_EXPECT_PTR_EQ(test, rbad, &rwr[4]);
	for (i = 4; i < 8; i++)
		dp_cqe(d, DP_QPN, i, XNIC_CQE_SUCCESS, XNIC_CQE_OP_RECV);
	KUNIT_EXPECT_EQ(test, xnic_poll_cq(&d->cq->ibcq, 8, wc), 4);
	KUNIT_EXPECT_EQ(test, wc[3].wr_id, 303ULL);
	KUNIT_EXPECT_EQ(test, d->cq->ci, 10U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d->cq->dbrec->ci), 10U);
}

static void dp_arm(struct kunit *test)
{
	struct dp *d = test->priv;
	struct xrdma_wc wc;

	KUNIT_EXPECT_EQ(test, xnic_req_notify_cq(&d->cq->ibcq,
						 XRDMA_CQ_NEXT_COMP), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d->cq->dbrec->arm),
			(u32)(1 << 2 | XNIC_CQ_ARM_NEXT));
	KUNIT_EXPECT_EQ(test, xnic_req_notify_cq(&d->cq->ibcq,
						 XRDMA_CQ_SOLICITED |
						 XRDMA_CQ_REPORT_MISSED_EVENTS),
			0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d->cq->dbrec->arm),
			(u32)(2 << 2 | XNIC_CQ_ARM_SOLICITED));
	/* a completion already waiting is reported */
	d->qp->sq.pi = 1;
	dp_cqe(d, DP_QPN, 0, XNIC_CQE_SUCCESS, XNIC_CQE_OP_SEND);
	KUNIT_EXPECT_EQ(test, xnic_req_notify_cq(&d->cq->ibcq,
						 XRDMA_CQ_NEXT_COMP |
						 XRDMA_CQ_REPORT_MISSED_EVENTS),
			1);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d->cq->dbrec->arm),
			(u32)(3 << 2 | XNIC_CQ_ARM_NEXT));
	KUNIT_EXPECT_EQ(test, xnic_poll_cq(&d->cq->ibcq, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, xnic_req_notify_cq(&d->cq->ibcq,
						 XRDMA_CQ_NEXT_COMP |
						 XRDMA_CQ_REPORT_MISSED_EVENTS),
			0);
	/* the sequence number skips 0 when it wraps */
	d->cq->arm_sn = 0x3fffffff;
	xnic_req_notify_cq(&d->cq->ibcq, XRDMA_CQ_NEXT_COMP);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d->cq->dbrec->arm) >> 2, 1U);
}

static void dp_srq(struct kunit *test)
{
	struct dp *d = test->priv;
	struct xrdma_sge sg = { .addr = 0x9000, .length = 64, .lkey = 7 };
	struct xrdma_recv_wr rwr[4] = {};
	const struct xrdma_recv_wr *rbad = NULL;
	struct xrdma_wc wc[4];
	struct xnic_rwqe *w;
	int i;

	for (i = 0; i < 4; i++) {
		rwr[i].wr_id = 0xabc00 + i;
		rwr[i].sg_list = &sg;
		rwr[i].num_sge = 1;
		rwr[i].next = i < 3 ? &rwr[i + 1] : NULL;
	}
	/* max_wr is 3 on a ring of 4 */
	KUNIT_EXPECT_EQ(test, xnic_post_srq_recv(&d->srq->ibsrq, rwr, &rbad),
			-ENOMEM);
	KUNIT_EXPECT_PTR_EQ(test, rbad, &rwr[3]);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d->srq->dbrec->rq_pi), 3U);
	/* SRQ WQEs carry the caller's wr_id */
	w = d->srq->ring + (2 << d->srq->wqe_shift);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(w->wr_id), 0xabc02ULL);

	dp_cqe(d, DP_QPN + 1, 0xabc00, XNIC_CQE_SUCCESS, XNIC_CQE_OP_RECV);
	KUNIT_EXPECT_EQ(test, xnic_poll_cq(&d->cq->ibcq, 4, wc), 1);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 0xabc00ULL);
	KUNIT_EXPECT_PTR_EQ(test, wc[0].qp, &d->srq_qp->ibqp);
	KUNIT_EXPECT_EQ(test, atomic_read(&d->srq->done), 1);
	rbad = NULL;
	KUNIT_EXPECT_EQ(test, xnic_post_srq_recv(&d->srq->ibsrq, &rwr[3],
						 &rbad), 0);
	KUNIT_EXPECT_PTR_EQ(test, rbad, NULL);
	w = d->srq->ring + (3 << d->srq->wqe_shift);
	KUNIT_EXPECT_EQ(test, w->owner, 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(w->wr_id), 0xabc03ULL);
	/* three outstanding again */
	KUNIT_EXPECT_EQ(test, xnic_post_srq_recv(&d->srq->ibsrq, &rwr[3],
						 &rbad), -ENOMEM);

	/* cleaning the QP's completions credits the SRQ */
	dp_cqe(d, DP_QPN + 1, 0xabc01, XNIC_CQE_SUCCESS, XNIC_CQE_OP_RECV);
	dp_cqe(d, DP_QPN, 0, XNIC_CQE_SUCCESS, XNIC_CQE_OP_RECV);
	dp_cqe(d, DP_QPN + 1, 0xabc02, XNIC_CQE_WR_FLUSH_ERR, XNIC_CQE_OP_RECV);
	d->qp->rq.pi = 1;
	xnic_cq_clean(d->cq, DP_QPN + 1, d->srq);
	KUNIT_EXPECT_EQ(test, atomic_read(&d->srq->done), 3);
	KUNIT_EXPECT_EQ(test, xnic_poll_cq(&d->cq->ibcq, 4, wc), 1);
	KUNIT_EXPECT_PTR_EQ(test, wc[0].qp, &d->qp->ibqp);
}

static void dp_reset_and_clean(struct kunit *test)
{
	struct dp *d = test->priv;
	struct xrdma_send_wr wr = { .opcode = XRDMA_WR_SEND, .wr_id = 9 };
	struct xrdma_recv_wr rwr = { .wr_id = 8 };
	const struct xrdma_send_wr *bad;
	const struct xrdma_recv_wr *rbad;
	struct xrdma_wc wc[4];

	KUNIT_EXPECT_EQ(test, xnic_post_send(&d->qp->ibqp, &wr, &bad), 0);
	KUNIT_EXPECT_EQ(test, xnic_post_send(&d->qp->ibqp, &wr, &bad), 0);
	KUNIT_EXPECT_EQ(test, xnic_post_recv(&d->qp->ibqp, &rwr, &rbad), 0);
	dp_cqe(d, DP_QPN, 0, XNIC_CQE_WR_FLUSH_ERR, XNIC_CQE_OP_SEND);
	dp_cqe(d, DP_QPN, 0, XNIC_CQE_WR_FLUSH_ERR, XNIC_CQE_OP_RECV);

	/* the device reset the QP: its completions and WQEs are gone */
	xnic_qp_reset_queues(d->qp);
	KUNIT_EXPECT_EQ(test, d->qp->sq.pi, 0U);
	KUNIT_EXPECT_EQ(test, d->qp->rq.pi, 0U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d->qp->dbrec->sq_pi), 0U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d->qp->dbrec->rq_pi), 0U);
	KUNIT_EXPECT_EQ(test, xnic_poll_cq(&d->cq->ibcq, 4, wc), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d->cq->dbrec->ci), 2U);

	/* and it starts over at index 0 */
	KUNIT_EXPECT_EQ(test, xnic_post_send(&d->qp->ibqp, &wr, &bad), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d->qp->dbrec->sq_pi), 1U);
	dp_cqe(d, DP_QPN, 0, XNIC_CQE_SUCCESS, XNIC_CQE_OP_SEND);
	KUNIT_EXPECT_EQ(test, xnic_poll_cq(&d->cq->ibcq, 4, wc), 1);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 9ULL);

	/* after destroy (erase, then clean) nothing of the QP is reported */
	dp_cqe(d, DP_QPN, 1, XNIC_CQE_SUCCESS, XNIC_CQE_OP_SEND);
	xa_erase(&d->xdev->qp_xa, DP_QPN);
	xnic_cq_clean(d->cq, DP_QPN, NULL);
	KUNIT_EXPECT_PTR_EQ(test, d->cq->last_qp, NULL);
	KUNIT_EXPECT_EQ(test, xnic_poll_cq(&d->cq->ibcq, 4, wc), 0);
}

static int dp_comp_calls;

static void dp_comp(struct xrdma_cq *cq, void *ctx)
{
	dp_comp_calls++;
}

/*
 * A dead device (stopped after a fatal error): the CQEs left in the ring
 * first, then a flush completion for every outstanding WQE, signaled or
 * not; a post is accepted, flushed and calls the handler of an armed CQ.
 */
static void dp_dead(struct kunit *test)
{
	struct dp *d = test->priv;
	struct xrdma_send_wr wr[3] = {};
	struct xrdma_recv_wr rwr[2] = {};
	const struct xrdma_send_wr *bad = NULL;
	const struct xrdma_recv_wr *rbad = NULL;
	struct xrdma_wc wc[8];
	int i;

	for (i = 0; i < 3; i++) {
		wr[i].wr_id = 300 + i;
		wr[i].opcode = XRDMA_WR_RDMA_WRITE;
		wr[i].send_flags = i == 1 ? XRDMA_SEND_SIGNALED : 0;
		wr[i].next = i < 2 ? &wr[i + 1] : NULL;
	}
	rwr[0].wr_id = 400;
	rwr[0].next = &rwr[1];
	rwr[1].wr_id = 401;
	d->cq->ibcq.comp_handler = dp_comp;
	dp_comp_calls = 0;
	KUNIT_EXPECT_EQ(test, xnic_post_send(&d->qp->ibqp, wr, &bad), 0);
	KUNIT_EXPECT_EQ(test, xnic_post_recv(&d->qp->ibqp, rwr, &rbad), 0);
	/* the device completed the first two sends, then died */
	dp_cqe(d, DP_QPN, 1, XNIC_CQE_SUCCESS, XNIC_CQE_OP_RDMA_WRITE);
	d->xdev->stopped = true;

	/* never armed (IB_POLL_DIRECT): its handler is not called */
	xnic_dp_dead(d->xdev);
	KUNIT_EXPECT_EQ(test, dp_comp_calls, 0);
	KUNIT_EXPECT_EQ(test, xnic_req_notify_cq(&d->cq->ibcq,
						 XRDMA_CQ_NEXT_COMP), 0);
	xnic_dp_dead(d->xdev);
	KUNIT_EXPECT_EQ(test, dp_comp_calls, 1);

	/* the real CQE, then one at a time */
	KUNIT_EXPECT_EQ(test, xnic_poll_cq(&d->cq->ibcq, 2, wc), 2);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 301ULL);
	KUNIT_EXPECT_EQ(test, wc[0].status, XRDMA_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[1].wr_id, 302ULL);
	KUNIT_EXPECT_EQ(test, wc[1].status, XRDMA_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_PTR_EQ(test, wc[1].qp, &d->qp->ibqp);
	KUNIT_EXPECT_EQ(test, xnic_poll_cq(&d->cq->ibcq, 8, wc), 2);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 400ULL);
	KUNIT_EXPECT_EQ(test, wc[0].status, XRDMA_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, wc[0].opcode, XRDMA_WC_RECV);
	KUNIT_EXPECT_EQ(test, wc[1].wr_id, 401ULL);
	KUNIT_EXPECT_EQ(test, xnic_poll_cq(&d->cq->ibcq, 8, wc), 0);
	KUNIT_EXPECT_EQ(test, d->qp->sq.ci, 3U);
	KUNIT_EXPECT_EQ(test, d->qp->rq.ci, 2U);

	/* nothing missed; then a post is */
	KUNIT_EXPECT_EQ(test, xnic_req_notify_cq(&d->cq->ibcq,
						 XRDMA_CQ_NEXT_COMP |
						 XRDMA_CQ_REPORT_MISSED_EVENTS), 0);

	/* ib_drain_sq(): a post is accepted, kicks and is flushed */
	wr[0].next = NULL;
	KUNIT_EXPECT_EQ(test, xnic_post_send(&d->qp->ibqp, wr, &bad), 0);
	KUNIT_EXPECT_EQ(test, dp_comp_calls, 2);
	KUNIT_EXPECT_EQ(test, xnic_test_kicks, 0);
	rwr[0].next = NULL;
	KUNIT_EXPECT_EQ(test, xnic_post_recv(&d->qp->ibqp, rwr, &rbad), 0);
	KUNIT_EXPECT_EQ(test, dp_comp_calls, 3);
	KUNIT_EXPECT_EQ(test, xnic_req_notify_cq(&d->cq->ibcq,
						 XRDMA_CQ_NEXT_COMP |
						 XRDMA_CQ_REPORT_MISSED_EVENTS), 1);
	KUNIT_EXPECT_EQ(test, xnic_poll_cq(&d->cq->ibcq, 8, wc), 2);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 300ULL);
	KUNIT_EXPECT_EQ(test, wc[1].wr_id, 400ULL);

	/* a QP going away is flushed no more */
	KUNIT_EXPECT_EQ(test, xnic_post_send(&d->qp->ibqp, wr, &bad), 0);
	xnic_cq_del_qp(d->qp);
	KUNIT_EXPECT_EQ(test, xnic_poll_cq(&d->cq->ibcq, 8, wc), 0);
	xnic_cq_add_qp(d->qp);
	KUNIT_EXPECT_EQ(test, xnic_poll_cq(&d->cq->ibcq, 8, wc), 1);
}

static bool dp_comp_bad_ctx;

/* @ctx: the CQ's call count */
static void dp_comp_count(struct xrdma_cq *cq, void *ctx)
{
	/* as from the EQ's interrupt, and with BHs off */
	if (!irqs_disabled() || !in_softirq())
		dp_comp_bad_ctx = true;
	++*(int *)ctx;
}

/*
 * xnic_dp_dead() calls only an armed CQ that has flush completions: one
 * with no QP, only SRQ receives, or nothing outstanding may be in its
 * owner's ib_free_cq(), past cancelling the work a call would queue.
 */
static void dp_dead_calls(struct kunit *test)
{
	struct dp *d = test->priv;
	struct xnic_cq *idle = dp_cq(test, d), *srq_cq = dp_cq(test, d);
	struct xnic_cq *cqs[] = { d->cq, idle, srq_cq };
	int calls[ARRAY_SIZE(cqs)] = {}, i;
	struct xrdma_send_wr wr = { .opcode = XRDMA_WR_SEND, .wr_id = 500 };
	struct xrdma_recv_wr rwr = { .wr_id = 600 };
	const struct xrdma_send_wr *bad = NULL;
	const struct xrdma_recv_wr *rbad = NULL;
	struct xrdma_wc wc[8];

	/* the SRQ QP's receives report to a CQ of their own */
	d->srq_qp->ibqp.recv_cq = &srq_cq->ibcq;
	dp_comp_bad_ctx = false;
	for (i = 0; i < ARRAY_SIZE(cqs); i++) {
		cqs[i]->ibcq.comp_handler = dp_comp_count;
		cqs[i]->ibcq.cq_context = &calls[i];
		KUNIT_EXPECT_EQ(test, xnic_req_notify_cq(&cqs[i]->ibcq,
							 XRDMA_CQ_NEXT_COMP), 0);
	}
	KUNIT_EXPECT_EQ(test, xnic_post_srq_recv(&d->srq->ibsrq, &rwr, &rbad),
			0);

	/* nothing outstanding but SRQ receives: no call */
	d->xdev->stopped = true;
	xnic_dp_dead(d->xdev);
	KUNIT_EXPECT_EQ(test, calls[0], 0);
	KUNIT_EXPECT_EQ(test, calls[1], 0);
	KUNIT_EXPECT_EQ(test, calls[2], 0);

	/* a receive outstanding: its CQ, once */
	d->xdev->stopped = false;
	KUNIT_EXPECT_EQ(test, xnic_post_recv(&d->qp->ibqp, &rwr, &rbad), 0);
	d->xdev->stopped = true;
	xnic_dp_dead(d->xdev);
	KUNIT_EXPECT_EQ(test, calls[0], 1);

	/* a send of the SRQ QP: its send CQ, not its receive CQ */
	d->xdev->stopped = false;
	KUNIT_EXPECT_EQ(test, xnic_post_send(&d->srq_qp->ibqp, &wr, &bad), 0);
	d->xdev->stopped = true;
	xnic_dp_dead(d->xdev);
	KUNIT_EXPECT_EQ(test, calls[0], 2);

	/* flushed and polled: nothing left, no call */
	KUNIT_EXPECT_EQ(test, xnic_poll_cq(&d->cq->ibcq, 8, wc), 2);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 500ULL);
	KUNIT_EXPECT_EQ(test, wc[1].wr_id, 600ULL);
	KUNIT_EXPECT_EQ(test, xnic_poll_cq(&srq_cq->ibcq, 8, wc), 0);
	xnic_dp_dead(d->xdev);
	KUNIT_EXPECT_EQ(test, calls[0], 2);
	KUNIT_EXPECT_EQ(test, calls[1], 0);
	KUNIT_EXPECT_EQ(test, calls[2], 0);
	KUNIT_EXPECT_FALSE(test, dp_comp_bad_ctx);
	d->srq_qp->ibqp.recv_cq = &d->cq->ibcq;
}

static struct kunit_case dp_cases[] = {
	KUNIT_CASE(dp_post_send_ring),
	KUNIT_CASE(dp_sq_full_and_wrap),
	KUNIT_CASE(dp_post_errors),
	KUNIT_CASE(dp_recv_and_poll),
	KUNIT_CASE(dp_arm),
	KUNIT_CASE(dp_srq),
	KUNIT_CASE(dp_reset_and_clean),
	KUNIT_CASE(dp_dead),
	KUNIT_CASE(dp_dead_calls),
	{}
};

static struct kunit_suite dp_suite = {
	.name = "xnic_drv_dp",
	.init = dp_init,
	.exit = dp_exit,
	.test_cases = dp_cases,
};

/* ------------------------------------------------------------------ */
/* xnic_drv_dead: the driver on the device model, commands that stall  */

#define DD_SIM_INDEX	6	/* a model device number of its own */
#define DD_TIMEOUT_MS	1000	/* cmd_timeout_ms during these tests */
#define DD_PAGES	2	/* of the user MR */
#define DD_LEN		(DD_PAGES * PAGE_SIZE)

struct dd;

/*
 * The register window the driver sees: the model's, except that the test
 * can swallow CMDQ_PI writes (the command processor stalls while the data
 * path runs on) and hide STATUS.READY (a reset that does not complete).
 * Each RESET write notes how many of the user MR's pages are pinned.
 */
struct dd_bus {
	struct xnic_bus bus;		/* must be first */
	struct xnic_bus *sim;
	struct dd *d;
	atomic_t drop_cmds;		/* CMDQ_PI writes to swallow */
	bool hide_ready;
	atomic_t resets;		/* RESET writes */
	atomic_t pinned_at_reset;	/* at the last one */
};

struct dd {
	struct xnic_sim_dev *sim;
	struct platform_device *pdev;
	struct dd_bus *bus;		/* the platform data the driver uses */
	struct xnic_dev *xdev;
	unsigned int saved_timeout;
	struct xrdma_event_handler eh;
	atomic_t fatal_events;
	/* the user MR's address space and pages (our own references) */
	struct mm_struct *mm;
	unsigned long uaddr;
	struct page *pages[DD_PAGES];
	int npages;
	/* objects */
	struct xrdma_pd *pd;
	struct xrdma_mr *dmr, *umr;
	struct xrdma_cq *cq;
	struct xrdma_qp *qa, *qb;
	u8 *src;			/* source of the RDMA WRITEs */
	dma_addr_t src_dma;
};

static struct dd_bus *to_dd_bus(struct xnic_bus *bus)
{
	return container_of(bus, struct dd_bus, bus);
}

static int dd_pinned(struct dd *d)
{
	int i, n = 0;

	for (i = 0; i < d->npages; i++)
		n += page_maybe_dma_pinned(d->pages[i]);
	return n;
}

static u32 dd_read32(struct xnic_bus *bus, u32 reg)
{
	struct dd_bus *b = to_dd_bus(bus);
	u32 v = b->sim->read32(b->sim, reg);

	if (reg == XNIC_REG_STATUS && READ_ONCE(b->hide_ready))
		v &= ~XNIC_STATUS_READY;
	return v;
}

static void dd_write32(struct xnic_bus *bus, u32 reg, u32 val)
{
	struct dd_bus *b = to_dd_bus(bus);

	if (reg == XNIC_REG_CMDQ_PI && atomic_dec_if_positive(&b->drop_cmds) >= 0)
		return;
	if (reg == XNIC_REG_RESET) {
		atomic_set(&b->pinned_at_reset, dd_pinned(b->d));
		atomic_inc(&b->resets);
	}
	b->sim->write32(b->sim, reg, val);
}

static int dd_request_irq(struct xnic_bus *bus, irq_handler_t handler,
			  void *data)
{
	struct dd_bus *b = to_dd_bus(bus);

	return b->sim->request_irq(b->sim, handler, data);
}

static void dd_free_irq(struct xnic_bus *bus)
{
	struct dd_bus *b = to_dd_bus(bus);

	b->sim->free_irq(b->sim);
}

static void dd_event(struct xrdma_event_handler *h, struct xrdma_event *e)
{
	struct dd *d = container_of(h, struct dd, eh);

	if (e->event == XRDMA_EVENT_DEVICE_FATAL)
		atomic_inc(&d->fatal_events);
}

static int dd_init(struct kunit *test)
{
	struct dd_bus tmpl = {
		.bus = {
			.read32 = dd_read32,
			.write32 = dd_write32,
			.request_irq = dd_request_irq,
			.free_irq = dd_free_irq,
		},
	};
	struct dd *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	int ret;

	if (!d)
		return -ENOMEM;
	test->priv = d;
	d->saved_timeout = cmd_timeout_ms;
	cmd_timeout_ms = DD_TIMEOUT_MS;
	d->sim = xnic_sim_dev_alloc(DD_SIM_INDEX);
	if (!d->sim)
		return -ENOMEM;
	ret = xnic_sim_dev_start(d->sim, NULL);
	if (ret)
		return ret;
	tmpl.sim = &d->sim->pdata.bus;
	tmpl.d = d;
	d->pdev = platform_device_alloc("xnic_kunit", PLATFORM_DEVID_AUTO);
	if (!d->pdev)
		return -ENOMEM;
	ret = platform_device_add_data(d->pdev, &tmpl, sizeof(tmpl));
	if (!ret)
		ret = platform_device_add(d->pdev);
	if (ret) {
		platform_device_put(d->pdev);
		d->pdev = NULL;
		return ret;
	}
	d->bus = dev_get_platdata(&d->pdev->dev);
	ret = xnic_probe(d->pdev);
	if (ret)
		return ret;
	d->xdev = platform_get_drvdata(d->pdev);
	d->eh.device = &d->xdev->ibdev;
	d->eh.handler = dd_event;
	xrdma_register_event_handler(&d->eh);
	d->src = dma_alloc_coherent(&d->pdev->dev, DD_LEN, &d->src_dma,
				    GFP_KERNEL);
	return d->src ? 0 : -ENOMEM;
}

static void dd_destroy_objects(struct kunit *test, struct dd *d)
{
	if (d->qa)
		KUNIT_EXPECT_EQ(test, xrdma_destroy_qp(d->qa), 0);
	if (d->qb)
		KUNIT_EXPECT_EQ(test, xrdma_destroy_qp(d->qb), 0);
	if (d->cq)
		KUNIT_EXPECT_EQ(test, xrdma_destroy_cq(d->cq), 0);
	if (d->umr)
		KUNIT_EXPECT_EQ(test, xrdma_dereg_mr(d->umr), 0);
	if (d->dmr)
		KUNIT_EXPECT_EQ(test, xrdma_dereg_mr(d->dmr), 0);
	if (d->pd)
		KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(d->pd), 0);
	d->qa = NULL;
	d->qb = NULL;
	d->cq = NULL;
	d->umr = NULL;
	d->dmr = NULL;
	d->pd = NULL;
}

/* Unbind the driver: every object and all kept memory is gone after. */
static void dd_remove(struct kunit *test, struct dd *d)
{
	dd_destroy_objects(test, d);
	if (!d->xdev)
		return;
	xrdma_unregister_event_handler(&d->eh);
	/* the teardown probe registered, as unbinding the driver runs it */
	devm_release_action(&d->pdev->dev, xnic_remove, d->xdev);
	d->xdev = NULL;
}

static void dd_exit(struct kunit *test)
{
	struct dd *d = test->priv;
	int i;

	if (!d)
		return;
	if (d->bus)
		WRITE_ONCE(d->bus->hide_ready, false);
	dd_remove(test, d);
	if (d->src)
		dma_free_coherent(&d->pdev->dev, DD_LEN, d->src, d->src_dma);
	if (d->pdev)
		platform_device_unregister(d->pdev);
	if (d->sim) {
		xnic_sim_dev_stop(d->sim);
		xnic_sim_clear(d->sim);
		irq_work_sync(&d->sim->irq_work);
		xnic_sim_dev_free(d->sim);
	}
	for (i = 0; i < d->npages; i++)
		put_page(d->pages[i]);
	if (d->mm)
		mmput(d->mm);
	cmd_timeout_ms = d->saved_timeout;
}

/*
 * A user MR of DD_PAGES pages of a fresh address space of the test
 * thread.  Needs mm_alloc() and arch_pick_mmap_layout(), which modules
 * cannot use: built-in KUnit only.
 */
static struct xrdma_mr *dd_try_user_mr(struct kunit *test, struct dd *d)
{
#if IS_BUILTIN(CONFIG_XRDMA_KUNIT_TEST)
	struct xrdma_mr *mr;

	d->mm = mm_alloc();
	KUNIT_ASSERT_NOT_NULL(test, d->mm);
	d->mm->task_size = TASK_SIZE;
	arch_pick_mmap_layout(d->mm, &current->signal->rlim[RLIMIT_STACK]);
	kthread_use_mm(d->mm);
	d->uaddr = vm_mmap(NULL, 0, DD_LEN, PROT_READ | PROT_WRITE,
			   MAP_ANONYMOUS | MAP_PRIVATE, 0);
	mr = IS_ERR_VALUE(d->uaddr) ? ERR_PTR(-ENOMEM) :
	     xrdma_reg_user_mr(d->pd, d->uaddr, DD_LEN, d->uaddr,
			       XRDMA_ACCESS_LOCAL_WRITE |
			       XRDMA_ACCESS_REMOTE_WRITE, NULL);
	kthread_unuse_mm(d->mm);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(d->uaddr));
	return mr;
#else
	kunit_skip(test, "needs a user address space: built-in KUnit only");
	return ERR_PTR(-EOPNOTSUPP);
#endif
}

static void dd_user_mr(struct kunit *test, struct dd *d)
{
	struct xrdma_mr *mr = dd_try_user_mr(test, d);
	int i;

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(mr), "reg_user_mr: %ld",
			       PTR_ERR(mr));
	d->umr = mr;
	KUNIT_ASSERT_EQ(test, mr->umem->npages, (unsigned long)DD_PAGES);
	for (i = 0; i < DD_PAGES; i++) {
		d->pages[i] = mr->umem->pages[i];
		get_page(d->pages[i]);
		d->npages++;
	}
	KUNIT_ASSERT_EQ(test, dd_pinned(d), DD_PAGES);
	KUNIT_ASSERT_EQ(test, atomic64_read(&d->mm->pinned_vm), (s64)DD_PAGES);
}

/* Does every byte of the user MR hold @c? */
static bool dd_user_holds(struct dd *d, u8 c)
{
	bool ok = true;
	int i;

	for (i = 0; i < d->npages && ok; i++) {
		u8 *p = kmap_local_page(d->pages[i]);

		ok = !memchr_inv(p, c, PAGE_SIZE);
		kunmap_local(p);
	}
	return ok;
}

static void dd_connect(struct kunit *test, struct xrdma_qp *qp, u32 dest,
		       const union xrdma_gid *gid)
{
	struct xrdma_qp_attr a = {};

	a.qp_state = XRDMA_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = XRDMA_ACCESS_LOCAL_WRITE |
			    XRDMA_ACCESS_REMOTE_WRITE;
	KUNIT_ASSERT_EQ(test, xrdma_modify_qp(qp, &a, XRDMA_QP_STATE |
					      XRDMA_QP_PKEY_INDEX |
					      XRDMA_QP_PORT |
					      XRDMA_QP_ACCESS_FLAGS), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = XRDMA_QPS_RTR;
	a.path_mtu = XRDMA_MTU_1024;
	a.dest_qp_num = dest;
	a.rq_psn = 0x1234;
	a.min_rnr_timer = 1;
	a.ah_attr.dgid = *gid;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.hop_limit = 64;
	KUNIT_ASSERT_EQ(test, xrdma_modify_qp(qp, &a, XRDMA_QP_STATE |
					      XRDMA_QP_AV |
					      XRDMA_QP_PATH_MTU |
					      XRDMA_QP_DEST_QPN |
					      XRDMA_QP_RQ_PSN |
					      XRDMA_QP_MAX_DEST_RD_ATOMIC |
					      XRDMA_QP_MIN_RNR_TIMER), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = XRDMA_QPS_RTS;
	a.sq_psn = 0x1234;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	KUNIT_ASSERT_EQ(test, xrdma_modify_qp(qp, &a, XRDMA_QP_STATE |
					      XRDMA_QP_SQ_PSN |
					      XRDMA_QP_TIMEOUT |
					      XRDMA_QP_RETRY_CNT |
					      XRDMA_QP_RNR_RETRY |
					      XRDMA_QP_MAX_QP_RD_ATOMIC), 0);
}

/* PD, DMA MR, CQ, and two RC QPs connected to each other (loopback). */
static void dd_objects(struct kunit *test, struct dd *d)
{
	struct xrdma_device *dev = &d->xdev->ibdev;
	struct xrdma_cq_init_attr ca = { .cqe = 16 };
	struct xrdma_qp_init_attr qa = {};
	union xrdma_gid gid;

	d->pd = xrdma_alloc_pd(dev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(d->pd));
	d->dmr = xrdma_get_dma_mr(d->pd, XRDMA_ACCESS_LOCAL_WRITE);
	KUNIT_ASSERT_FALSE(test, IS_ERR(d->dmr));
	d->cq = xrdma_create_cq(dev, NULL, NULL, NULL, &ca);
	KUNIT_ASSERT_FALSE(test, IS_ERR(d->cq));
	qa.send_cq = d->cq;
	qa.recv_cq = d->cq;
	qa.qp_type = XRDMA_QPT_RC;
	qa.port_num = 1;
	qa.cap.max_send_wr = 4;
	qa.cap.max_recv_wr = 4;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	d->qa = xrdma_create_qp(d->pd, &qa);
	KUNIT_ASSERT_FALSE(test, IS_ERR(d->qa));
	d->qb = xrdma_create_qp(d->pd, &qa);
	KUNIT_ASSERT_FALSE(test, IS_ERR(d->qb));
	KUNIT_ASSERT_EQ(test, xrdma_query_gid(dev, 1, 0, &gid), 0);
	dd_connect(test, d->qa, d->qb->qp_num, &gid);
	dd_connect(test, d->qb, d->qa->qp_num, &gid);
}

/* RDMA WRITE of DD_LEN bytes of @c from qa to the user MR's @rkey. */
static int dd_write(struct dd *d, u32 rkey, u8 c, u64 wr_id)
{
	struct xrdma_sge sge = {
		.addr = d->src_dma, .length = DD_LEN, .lkey = d->dmr->lkey,
	};
	struct xrdma_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = XRDMA_WR_RDMA_WRITE,
		.send_flags = XRDMA_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = d->uaddr, .rkey = rkey },
	};

	memset(d->src, c, DD_LEN);
	return xrdma_post_send(d->qa, &wr, NULL);
}

/* Poll the CQ for up to @ms; Return: completions seen, the last in @wc. */
static int dd_poll(struct dd *d, unsigned int ms, struct xrdma_wc *wc)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);
	int n = 0;

	do {
		if (xrdma_poll_cq(d->cq, 1, wc) > 0)
			n++;
		else
			usleep_range(500, 1000);
	} while (time_before(jiffies, end) && !n);
	return n;
}

/*
 * A DEREG_MR that times out while the device's reset does not complete
 * either: the MR may still be live in the device, so its pages stay
 * pinned and accounted; the reset at unbind releases them.
 */
static void dead_dereg_keeps_pages(struct kunit *test)
{
	struct dd *d = test->priv;
	int resets;

	d->pd = xrdma_alloc_pd(&d->xdev->ibdev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(d->pd));
	dd_user_mr(test, d);

	resets = atomic_read(&d->bus->resets);
	WRITE_ONCE(d->bus->hide_ready, true);
	atomic_set(&d->bus->drop_cmds, 1);
	KUNIT_EXPECT_EQ(test, xrdma_dereg_mr(d->umr), 0);
	d->umr = NULL;
	/* the driver tried to stop the device */
	KUNIT_EXPECT_GT(test, atomic_read(&d->bus->resets), resets);
	/* which did not confirm it: nothing was released */
	KUNIT_EXPECT_EQ(test, dd_pinned(d), DD_PAGES);
	KUNIT_EXPECT_EQ(test, atomic64_read(&d->mm->pinned_vm), (s64)DD_PAGES);

	/* a reset that completes (unbind) lets go of them */
	WRITE_ONCE(d->bus->hide_ready, false);
	dd_remove(test, d);
	KUNIT_EXPECT_EQ(test, dd_pinned(d), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&d->mm->pinned_vm), 0LL);
}

/*
 * A REG_MR that times out may still be executed by the device: the
 * pages stay pinned and accounted while the reset does not complete, and
 * are released by one that does.
 */
static void dead_reg_mr_keeps_pages(struct kunit *test)
{
	struct dd *d = test->priv;
	struct xrdma_mr *mr;
	int resets;

	d->pd = xrdma_alloc_pd(&d->xdev->ibdev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(d->pd));
	resets = atomic_read(&d->bus->resets);
	WRITE_ONCE(d->bus->hide_ready, true);
	atomic_set(&d->bus->drop_cmds, 1);
	mr = dd_try_user_mr(test, d);
	KUNIT_ASSERT_TRUE(test, IS_ERR(mr));
	KUNIT_EXPECT_EQ(test, PTR_ERR(mr), -ETIMEDOUT);
	KUNIT_EXPECT_GT(test, atomic_read(&d->bus->resets), resets);
	KUNIT_EXPECT_EQ(test, atomic64_read(&d->mm->pinned_vm), (s64)DD_PAGES);

	WRITE_ONCE(d->bus->hide_ready, false);
	dd_remove(test, d);
	KUNIT_EXPECT_EQ(test, atomic64_read(&d->mm->pinned_vm), 0LL);
}

/*
 * The data path stops with the command path: after a command timed out,
 * the device is reset before the MR's pages are released, and an RDMA
 * WRITE through the old rkey touches nothing.  Then commands that release
 * or quiesce succeed in software, others fail.
 */
static void dead_stops_data_path(struct kunit *test)
{
	struct dd *d = test->priv;
	struct xrdma_qp_attr attr = {};
	struct xrdma_wc wc = {};
	u32 rkey;
	int resets;

	dd_objects(test, d);
	dd_user_mr(test, d);
	rkey = d->umr->rkey;

	/* the path works */
	KUNIT_ASSERT_EQ(test, dd_write(d, rkey, 0xa1, 1), 0);
	KUNIT_ASSERT_EQ(test, dd_poll(d, 5000, &wc), 1);
	KUNIT_ASSERT_EQ(test, wc.status, XRDMA_WC_SUCCESS);
	KUNIT_ASSERT_TRUE(test, dd_user_holds(d, 0xa1));

	/* DEREG_MR never reaches the command processor */
	resets = atomic_read(&d->bus->resets);
	atomic_set(&d->bus->drop_cmds, 1);
	KUNIT_EXPECT_EQ(test, xrdma_dereg_mr(d->umr), 0);
	d->umr = NULL;
	KUNIT_EXPECT_GT(test, atomic_read(&d->bus->resets), resets);
	/* the pages were still pinned when the device was reset */
	KUNIT_EXPECT_EQ(test, atomic_read(&d->bus->pinned_at_reset), DD_PAGES);
	/* and released once it was */
	KUNIT_EXPECT_EQ(test, dd_pinned(d), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&d->mm->pinned_vm), 0LL);
	KUNIT_EXPECT_EQ(test, atomic_read(&d->fatal_events), 1);
	KUNIT_EXPECT_FALSE(test, d->sim->pdata.bus.read32(&d->sim->pdata.bus,
							  XNIC_REG_STATUS) &
				 XNIC_STATUS_ENABLED);

	/*
	 * The stale rkey reaches nothing: a WRITE posted to the dead device
	 * is accepted and completes with a flush error (as a WR posted to a
	 * QP in ERR), no byte written.
	 */
	KUNIT_EXPECT_EQ(test, dd_write(d, rkey, 0xb2, 2), 0);
	KUNIT_EXPECT_EQ(test, dd_poll(d, 300, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 2ULL);
	KUNIT_EXPECT_EQ(test, wc.status, XRDMA_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_TRUE(test, dd_user_holds(d, 0xa1));

	/* releasing and quiescing succeed in software; nothing else does */
	attr.qp_state = XRDMA_QPS_ERR;
	KUNIT_EXPECT_EQ(test, xrdma_modify_qp(d->qa, &attr, XRDMA_QP_STATE), 0);
	attr.qp_state = XRDMA_QPS_RESET;
	KUNIT_EXPECT_EQ(test, xrdma_modify_qp(d->qb, &attr, XRDMA_QP_STATE), 0);
	attr.timeout = 14;
	KUNIT_EXPECT_EQ(test, xnic_modify_qp(d->qb, &attr, XRDMA_QP_TIMEOUT,
					     NULL), -EIO);
	KUNIT_EXPECT_EQ(test, xnic_cmd_exec(d->xdev, XNIC_CMD_QUERY_CAPS, NULL,
					    0, NULL, 0), -EIO);
	KUNIT_EXPECT_EQ(test, xnic_destroy_obj(d->xdev, XNIC_CMD_DESTROY_CQ,
					       0x7fff), 0);

	/* objects of a dead device are still destroyed */
	dd_remove(test, d);
	KUNIT_EXPECT_EQ(test, atomic_read(&d->fatal_events), 1);
}

static struct kunit_case dead_cases[] = {
	KUNIT_CASE(dead_dereg_keeps_pages),
	KUNIT_CASE(dead_reg_mr_keeps_pages),
	KUNIT_CASE(dead_stops_data_path),
	{}
};

static struct kunit_suite dead_suite = {
	.name = "xnic_drv_dead",
	.init = dd_init,
	.exit = dd_exit,
	.test_cases = dead_cases,
};

/* ------------------------------------------------------------------ */
/* The Ethernet function's RX buffers follow the MTU                    */

static void eth_buf_len_by_mtu(struct kunit *test)
{
	/* a frame of the MTU with a VLAN tag: not a jumbo buffer at 1500 */
	KUNIT_EXPECT_EQ(test, xnic_eth_buf_len(ETH_DATA_LEN, 9216), 1518U);
	KUNIT_EXPECT_EQ(test, xnic_eth_buf_len(ETH_MIN_MTU, 9216),
			ETH_MIN_MTU + 18U);
	/* the wire tests' MTU 4500 (path MTU 4096) */
	KUNIT_EXPECT_EQ(test, xnic_eth_buf_len(4500, 9216), 4518U);
	/* max_mtu takes the device's largest frame, never more */
	KUNIT_EXPECT_EQ(test, xnic_eth_buf_len(9198, 9216), 9216U);
	KUNIT_EXPECT_EQ(test, xnic_eth_buf_len(9198, 4114), 4114U);
}

static struct kunit_case eth_cases[] = {
	KUNIT_CASE(eth_buf_len_by_mtu),
	{}
};

static struct kunit_suite eth_suite = {
	.name = "xnic_drv_eth",
	.test_cases = eth_cases,
};

kunit_test_suites(&wqe_suite, &cqe_suite, &misc_suite, &codes_suite,
		  &dp_suite, &dead_suite, &eth_suite);
