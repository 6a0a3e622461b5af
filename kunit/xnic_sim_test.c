// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the xnic device model (drivers/hw/xnic/sim/: every file
 * but the module's xnic_sim_main.c is included here).  Its functions
 * without device state, one by one:
 *   xnic_sim_ring  ring index and owner arithmetic (xnic_sim.h)
 *   xnic_sim_wqe   WQE decoding and validation (xnic_sim_req.c,
 *                  xnic_sim_resp.c), budgets (xnic_sim_engine.c), opcode,
 *                  status and state tables, CQ arming (xnic_sim_cq.c,
 *                  xnic_sim_qp.c), retry delays (xnic_sim_comp.c)
 *   xnic_sim_mr    MR checks, MTT translation, copies between
 *                  scatter/gather lists over real pages, atomics
 *                  (xnic_sim_mem.c)
 *   xnic_sim_tbl   the two-level object tables (xnic_sim_tbl.c)
 *   xnic_sim_port  GIDs, the UD GRH, the cable parameter (xnic_sim_port.c),
 *                  the Ethernet MAC, ring and index checks (xnic_sim_eth.c)
 * and the whole model:
 *   xnic_sim_dev   two cabled devices with their engine threads, driven
 *                  through their register window by a small driver in
 *                  this file: commands, the RC and UD data path, errors,
 *                  fuzzing with garbage in every ring and doorbell, the
 *                  Ethernet function, and
 *                  reset/deregistration racing with remote operations
 *                  (memory is freed right after, so KASAN sees any late
 *                  access)
 * Ordinary kernel pages stand in for DMA memory: the model takes a DMA
 * address for a physical address (dma-direct without bounce buffers).
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/io.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/completion.h>
/* the model's test hooks (xnic_sim_hook()), compiled in here only */
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
#include "../drivers/hw/xnic/sim/xnic_sim_eth.c"
#include "../drivers/hw/xnic/sim/xnic_sim_engine.c"
#include "../drivers/hw/xnic/sim/xnic_sim_dev.c"

/* ------------------------------------------------------------------ */
/* xnic_sim_ring                                                       */

static void ring_avail(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, xnic_sim_ring_avail(0, 0, 4), 0);
	KUNIT_EXPECT_EQ(test, xnic_sim_ring_avail(0, 16, 4), 16);
	KUNIT_EXPECT_EQ(test, xnic_sim_ring_avail(0, 17, 4), -1);
	KUNIT_EXPECT_EQ(test, xnic_sim_ring_avail(5, 4, 4), -1);
	/* free-running indexes wrap at 2^32 */
	KUNIT_EXPECT_EQ(test, xnic_sim_ring_avail(0xfffffffe, 3, 4), 5);
	KUNIT_EXPECT_EQ(test, xnic_sim_ring_avail(0xfffffff0, 0, 4), 16);
	KUNIT_EXPECT_EQ(test, xnic_sim_ring_avail(0xffffffef, 0, 4), -1);
	KUNIT_EXPECT_EQ(test, xnic_sim_ring_avail(0, 1, 0), 1);
	KUNIT_EXPECT_EQ(test, xnic_sim_ring_avail(0, 2, 0), -1);
	KUNIT_EXPECT_EQ(test, xnic_sim_ring_avail(7, 7 + 4096, 12), 4096);
}

static void ring_owner(struct kunit *test)
{
	/* WQEs: first lap 0, second 1, third 0 */
	KUNIT_EXPECT_TRUE(test, xnic_sim_wqe_owner_ok(0, 0, 3));
	KUNIT_EXPECT_FALSE(test, xnic_sim_wqe_owner_ok(1, 7, 3));
	KUNIT_EXPECT_TRUE(test, xnic_sim_wqe_owner_ok(1, 8, 3));
	KUNIT_EXPECT_TRUE(test, xnic_sim_wqe_owner_ok(0, 16, 3));
	/* only bit 0 counts */
	KUNIT_EXPECT_TRUE(test, xnic_sim_wqe_owner_ok(0xfe, 0, 3));
	KUNIT_EXPECT_TRUE(test, xnic_sim_wqe_owner_ok(1, 0xffffffff, 3));
	/* CQ/EQ: first lap 1 */
	KUNIT_EXPECT_EQ(test, xnic_sim_hw_owner(0, 2), 1);
	KUNIT_EXPECT_EQ(test, xnic_sim_hw_owner(3, 2), 1);
	KUNIT_EXPECT_EQ(test, xnic_sim_hw_owner(4, 2), 0);
	KUNIT_EXPECT_EQ(test, xnic_sim_hw_owner(8, 2), 1);
	KUNIT_EXPECT_EQ(test, xnic_sim_hw_owner(0xffffffff, 0), 0);
}

static void ring_full(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, xnic_sim_ring_full(0, 0, 2));
	KUNIT_EXPECT_FALSE(test, xnic_sim_ring_full(3, 0, 2));
	KUNIT_EXPECT_TRUE(test, xnic_sim_ring_full(4, 0, 2));
	KUNIT_EXPECT_TRUE(test, xnic_sim_ring_full(2, 0xfffffffe, 2));
	KUNIT_EXPECT_FALSE(test, xnic_sim_ring_full(1, 0xfffffffe, 2));
	/* a consumer index ahead of the producer is nonsense: full */
	KUNIT_EXPECT_TRUE(test, xnic_sim_ring_full(0, 1, 2));
}

static struct kunit_case ring_cases[] = {
	KUNIT_CASE(ring_avail),
	KUNIT_CASE(ring_owner),
	KUNIT_CASE(ring_full),
	{}
};

static struct kunit_suite ring_suite = {
	.name = "xnic_sim_ring",
	.test_cases = ring_cases,
};

/* ------------------------------------------------------------------ */
/* xnic_sim_wqe                                                        */

static void wqe_len(struct kunit *test)
{
	struct xnic_wqe_ctrl c = {};

	c.num_sge = 0;
	KUNIT_EXPECT_EQ(test, xnic_sim_swqe_len(&c, 128), XNIC_WQE_DATA_OFF);
	c.num_sge = 2;
	KUNIT_EXPECT_EQ(test, xnic_sim_swqe_len(&c, 128), 128);
	c.num_sge = 3;
	KUNIT_EXPECT_EQ(test, xnic_sim_swqe_len(&c, 128), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_swqe_len(&c, 256), 96 + 48);
	c.num_sge = XNIC_SIM_MAX_SGE;
	KUNIT_EXPECT_EQ(test, xnic_sim_swqe_len(&c, 256), 224);
	c.num_sge = XNIC_SIM_MAX_SGE + 1;
	KUNIT_EXPECT_EQ(test, xnic_sim_swqe_len(&c, 4096), -EINVAL);
	c.num_sge = 255;
	KUNIT_EXPECT_EQ(test, xnic_sim_swqe_len(&c, 4096), -EINVAL);

	c.num_sge = 0;
	c.flags = XNIC_WQE_INLINE;
	c.inline_len = cpu_to_le32(32);
	KUNIT_EXPECT_EQ(test, xnic_sim_swqe_len(&c, 128), 128);
	c.inline_len = cpu_to_le32(33);
	KUNIT_EXPECT_EQ(test, xnic_sim_swqe_len(&c, 128), -EINVAL);
	c.inline_len = cpu_to_le32(XNIC_SIM_MAX_INLINE);
	KUNIT_EXPECT_EQ(test, xnic_sim_swqe_len(&c, 512), 96 + 256);
	c.inline_len = cpu_to_le32(XNIC_SIM_MAX_INLINE + 1);
	KUNIT_EXPECT_EQ(test, xnic_sim_swqe_len(&c, 4096), -EINVAL);
	c.inline_len = cpu_to_le32(0xffffffff);
	KUNIT_EXPECT_EQ(test, xnic_sim_swqe_len(&c, 4096), -EINVAL);
	/* SGEs and inline data together are not a WQE */
	c.inline_len = cpu_to_le32(8);
	c.num_sge = 1;
	KUNIT_EXPECT_EQ(test, xnic_sim_swqe_len(&c, 4096), -EINVAL);
}

static void wqe_decode(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, 256, GFP_KERNEL);
	struct xnic_wqe_ctrl *c = (void *)buf;
	struct xnic_wqe_remote *r = (void *)(buf + XNIC_WQE_REMOTE_OFF);
	struct xnic_wqe_atomic *a = (void *)(buf + XNIC_WQE_ATOMIC_OFF);
	struct xnic_wqe_ud *ud = (void *)(buf + XNIC_WQE_UD_OFF);
	struct xnic_wqe_fr *fr = (void *)(buf + XNIC_WQE_FR_OFF);
	struct xnic_sge *sge = (void *)(buf + XNIC_WQE_DATA_OFF);
	struct xnic_sim_swqe w;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	c->opcode = XNIC_OP_ATOMIC_CMP_AND_SWP;
	c->flags = XNIC_WQE_SIGNALED | XNIC_WQE_FENCE;
	c->num_sge = 1;
	c->owner = 1;
	c->wr_id = cpu_to_le64(0x1122334455667788ULL);
	c->imm_data = cpu_to_le32(0xabcd);
	r->remote_addr = cpu_to_le64(0x7000000000001000ULL);
	r->rkey = cpu_to_le32(0x12345);
	a->compare_add = cpu_to_le64(5);
	a->swap = cpu_to_le64(6);
	ud->dest_qpn = cpu_to_le32(77);
	ud->qkey = cpu_to_le32(0x11111111);
	ud->dgid[15] = 9;
	sge[0].addr = cpu_to_le64(0x4000);
	sge[0].length = cpu_to_le32(8);
	sge[0].lkey = cpu_to_le32(0x300);
	xnic_sim_swqe_decode(buf, &w);
	KUNIT_EXPECT_EQ(test, w.opcode, XNIC_OP_ATOMIC_CMP_AND_SWP);
	KUNIT_EXPECT_EQ(test, w.flags, XNIC_WQE_SIGNALED | XNIC_WQE_FENCE);
	KUNIT_EXPECT_EQ(test, w.num_sge, 1);
	KUNIT_EXPECT_EQ(test, w.inline_len, 0U);
	KUNIT_EXPECT_EQ(test, w.wr_id, 0x1122334455667788ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(w.imm), 0xabcdU);
	KUNIT_EXPECT_EQ(test, w.remote_addr, 0x7000000000001000ULL);
	KUNIT_EXPECT_EQ(test, w.rkey, 0x12345U);
	KUNIT_EXPECT_EQ(test, w.compare_add, 5ULL);
	KUNIT_EXPECT_EQ(test, w.swap, 6ULL);
	KUNIT_EXPECT_EQ(test, w.dest_qpn, 77U);
	KUNIT_EXPECT_EQ(test, w.qkey, 0x11111111U);
	KUNIT_EXPECT_EQ(test, w.dgid[15], 9);
	KUNIT_EXPECT_PTR_EQ(test, (const void *)w.sge, (void *)sge);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(w.sge[0].lkey), 0x300U);

	/* inline: num_sge is not used */
	c->opcode = XNIC_OP_SEND;
	c->flags = XNIC_WQE_INLINE;
	c->inline_len = cpu_to_le32(17);
	xnic_sim_swqe_decode(buf, &w);
	KUNIT_EXPECT_EQ(test, w.num_sge, 0);
	KUNIT_EXPECT_EQ(test, w.inline_len, 17U);
	KUNIT_EXPECT_PTR_EQ(test, (const void *)w.inline_data,
			    (void *)(buf + XNIC_WQE_DATA_OFF));

	/* fast registration overlays the remote/atomic/UD segments */
	memset(buf, 0, 256);
	c->opcode = XNIC_OP_REG_MR;
	fr->mtt_addr = cpu_to_le64(0x123000);
	fr->iova = cpu_to_le64(0xffff0000);
	fr->length = cpu_to_le64(0x20000);
	fr->key = cpu_to_le32(0x4207);
	fr->access = cpu_to_le32(XNIC_ACCESS_REMOTE_READ);
	fr->npages = cpu_to_le32(32);
	fr->page_shift = 12;
	xnic_sim_swqe_decode(buf, &w);
	KUNIT_EXPECT_EQ(test, w.fr.mtt_addr, 0x123000ULL);
	KUNIT_EXPECT_EQ(test, w.fr.iova, 0xffff0000ULL);
	KUNIT_EXPECT_EQ(test, w.fr.length, 0x20000ULL);
	KUNIT_EXPECT_EQ(test, w.fr.key, 0x4207U);
	KUNIT_EXPECT_EQ(test, w.fr.access, (u32)XNIC_ACCESS_REMOTE_READ);
	KUNIT_EXPECT_EQ(test, w.fr.npages, 32U);
	KUNIT_EXPECT_EQ(test, w.fr.page_shift, 12);
}

static void wqe_rwqe_len(struct kunit *test)
{
	struct xnic_rwqe h = {};

	KUNIT_EXPECT_EQ(test, xnic_sim_rwqe_len(&h, 32), 16);
	h.num_sge = 1;
	KUNIT_EXPECT_EQ(test, xnic_sim_rwqe_len(&h, 32), 32);
	h.num_sge = 2;
	KUNIT_EXPECT_EQ(test, xnic_sim_rwqe_len(&h, 32), -EINVAL);
	h.num_sge = XNIC_SIM_MAX_SGE;
	KUNIT_EXPECT_EQ(test, xnic_sim_rwqe_len(&h, 256), 16 + 128);
	h.num_sge = XNIC_SIM_MAX_SGE + 1;
	KUNIT_EXPECT_EQ(test, xnic_sim_rwqe_len(&h, 4096), -EINVAL);
}

static void wqe_opcodes(struct kunit *test)
{
	static const u8 all[] = {
		XNIC_OP_RDMA_WRITE, XNIC_OP_RDMA_WRITE_WITH_IMM, XNIC_OP_SEND,
		XNIC_OP_SEND_WITH_IMM, XNIC_OP_RDMA_READ,
		XNIC_OP_ATOMIC_CMP_AND_SWP, XNIC_OP_ATOMIC_FETCH_AND_ADD,
		XNIC_OP_LOCAL_INV, XNIC_OP_SEND_WITH_INV, XNIC_OP_NOP,
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(all); i++) {
		KUNIT_EXPECT_EQ(test, xnic_sim_op_check(XNIC_QPT_RC, all[i],
							false), 0);
		KUNIT_EXPECT_EQ(test, xnic_sim_op_check(XNIC_QPT_RC, all[i],
							true), 0);
	}
	/* fast registration: kernel QPs only */
	KUNIT_EXPECT_EQ(test, xnic_sim_op_check(XNIC_QPT_RC,
						XNIC_OP_REG_MR, true), 0);
	KUNIT_EXPECT_EQ(test, xnic_sim_op_check(XNIC_QPT_RC,
						XNIC_OP_REG_MR, false),
			XNIC_CQE_LOC_QP_OP_ERR);
	/* UD: sends only (and local operations) */
	KUNIT_EXPECT_EQ(test, xnic_sim_op_check(XNIC_QPT_UD,
						XNIC_OP_SEND_WITH_IMM, false), 0);
	KUNIT_EXPECT_EQ(test, xnic_sim_op_check(XNIC_QPT_UD,
						XNIC_OP_RDMA_WRITE, false),
			XNIC_CQE_LOC_QP_OP_ERR);
	KUNIT_EXPECT_EQ(test, xnic_sim_op_check(XNIC_QPT_UD,
						XNIC_OP_RDMA_READ, true),
			XNIC_CQE_LOC_QP_OP_ERR);
	KUNIT_EXPECT_EQ(test, xnic_sim_op_check(XNIC_QPT_UD,
						XNIC_OP_SEND_WITH_INV, true),
			XNIC_CQE_LOC_QP_OP_ERR);
	/* UC: no READ, atomics, SEND_WITH_INV */
	KUNIT_EXPECT_EQ(test, xnic_sim_op_check(XNIC_QPT_UC,
						XNIC_OP_RDMA_WRITE_WITH_IMM,
						false), 0);
	KUNIT_EXPECT_EQ(test, xnic_sim_op_check(XNIC_QPT_UC,
						XNIC_OP_ATOMIC_FETCH_AND_ADD,
						false),
			XNIC_CQE_LOC_QP_OP_ERR);
	/*
	 * ATOMIC WRITE and FLUSH: RC (and XRC_INI) only, user QPs too
	 * (the rest: kunit/xnic_sim_pmem_test.c)
	 */
	KUNIT_EXPECT_EQ(test, xnic_sim_op_check(XNIC_QPT_RC,
						XNIC_OP_ATOMIC_WRITE, false), 0);
	KUNIT_EXPECT_EQ(test, xnic_sim_op_check(XNIC_QPT_RC, XNIC_OP_FLUSH,
						false), 0);
	KUNIT_EXPECT_EQ(test, xnic_sim_op_check(XNIC_QPT_UC, XNIC_OP_FLUSH,
						true), XNIC_CQE_LOC_QP_OP_ERR);
	KUNIT_EXPECT_EQ(test, xnic_sim_op_check(XNIC_QPT_UD,
						XNIC_OP_ATOMIC_WRITE, true),
			XNIC_CQE_LOC_QP_OP_ERR);
	/* unknown opcodes (BIND_MW: kunit/xnic_sim_mw_test.c) */
	for (i = XNIC_OP_FLUSH + 1; i < 256; i++)
		if (i != XNIC_OP_NOP)
			KUNIT_EXPECT_EQ(test,
					xnic_sim_op_check(XNIC_QPT_RC, i,
							  true),
					XNIC_CQE_LOC_QP_OP_ERR);

	KUNIT_EXPECT_EQ(test, xnic_sim_cqe_opcode(XNIC_OP_RDMA_WRITE_WITH_IMM),
			XNIC_CQE_OP_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, xnic_sim_cqe_opcode(XNIC_OP_SEND_WITH_INV),
			XNIC_CQE_OP_SEND);
	KUNIT_EXPECT_EQ(test, xnic_sim_cqe_opcode(XNIC_OP_RDMA_READ),
			XNIC_CQE_OP_RDMA_READ);
	KUNIT_EXPECT_EQ(test, xnic_sim_cqe_opcode(XNIC_OP_ATOMIC_CMP_AND_SWP),
			XNIC_CQE_OP_COMP_SWAP);
	KUNIT_EXPECT_EQ(test,
			xnic_sim_cqe_opcode(XNIC_OP_ATOMIC_FETCH_AND_ADD),
			XNIC_CQE_OP_FETCH_ADD);
	KUNIT_EXPECT_EQ(test, xnic_sim_cqe_opcode(XNIC_OP_LOCAL_INV),
			XNIC_CQE_OP_LOCAL_INV);
	KUNIT_EXPECT_EQ(test, xnic_sim_cqe_opcode(XNIC_OP_REG_MR),
			XNIC_CQE_OP_REG_MR);
	KUNIT_EXPECT_TRUE(test, xnic_sim_op_is_send(XNIC_OP_SEND_WITH_INV));
	KUNIT_EXPECT_FALSE(test,
			   xnic_sim_op_is_send(XNIC_OP_RDMA_WRITE_WITH_IMM));

	KUNIT_EXPECT_STREQ(test, xnic_sim_status_name(XNIC_CQE_SUCCESS),
			   "success");
	KUNIT_EXPECT_STREQ(test,
			   xnic_sim_status_name(XNIC_CQE_RNR_RETRY_EXC_ERR),
			   "rnr_retry_exc_err");
	KUNIT_EXPECT_NULL(test, xnic_sim_status_name(3));
	KUNIT_EXPECT_NULL(test, xnic_sim_status_name(200));
}

static void wqe_qp_states(struct kunit *test)
{
	static const char *const ok[XNIC_QPS_NUM] = {
		/* cur: next states allowed (R I r S D E X) */
		[XNIC_QPS_RESET] = "RI....X",
		[XNIC_QPS_INIT]  = "RIr...X",
		[XNIC_QPS_RTR]   = "R..S..X",
		[XNIC_QPS_RTS]   = "R..SD.X",
		[XNIC_QPS_SQD]   = "R..SD.X",
		[XNIC_QPS_SQE]   = "R..S..X",
		[XNIC_QPS_ERR]   = "R.....X",
	};
	int cur, next;

	for (cur = 0; cur < XNIC_QPS_NUM; cur++)
		for (next = 0; next < XNIC_QPS_NUM; next++)
			KUNIT_EXPECT_EQ_MSG(test,
					    xnic_sim_qp_trans_ok(cur, next),
					    ok[cur][next] != '.',
					    "%d -> %d", cur, next);
	KUNIT_EXPECT_FALSE(test, xnic_sim_qp_trans_ok(XNIC_QPS_NUM, 0));
	KUNIT_EXPECT_FALSE(test, xnic_sim_qp_trans_ok(0, XNIC_QPS_NUM));
	KUNIT_EXPECT_FALSE(test, xnic_sim_qp_trans_ok(0, 255));

	KUNIT_EXPECT_FALSE(test, xnic_sim_qp_can_recv(XNIC_QPS_INIT));
	KUNIT_EXPECT_TRUE(test, xnic_sim_qp_can_recv(XNIC_QPS_RTR));
	KUNIT_EXPECT_TRUE(test, xnic_sim_qp_can_recv(XNIC_QPS_RTS));
	KUNIT_EXPECT_FALSE(test, xnic_sim_qp_can_recv(XNIC_QPS_ERR));
	KUNIT_EXPECT_FALSE(test, xnic_sim_qp_can_recv(XNIC_QPS_RESET));
}

static void wqe_delays(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, xnic_sim_rnr_delay_ns(1, 0), 10000ULL);
	KUNIT_EXPECT_EQ(test, xnic_sim_rnr_delay_ns(12, 31), 120000ULL);
	KUNIT_EXPECT_EQ(test, xnic_sim_rnr_delay_ns(0, 1), 320000ULL);
	/* backing off after 32 NAKs, up to 10 ms */
	KUNIT_EXPECT_EQ(test, xnic_sim_rnr_delay_ns(1, 32), 20000ULL);
	KUNIT_EXPECT_EQ(test, xnic_sim_rnr_delay_ns(1, 95), 40000ULL);
	KUNIT_EXPECT_EQ(test, xnic_sim_rnr_delay_ns(1, 1000000), 10000000ULL);
	KUNIT_EXPECT_EQ(test, xnic_sim_rnr_delay_ns(31, 200), 10000000ULL);
	KUNIT_EXPECT_EQ(test, xnic_sim_retry_delay_ns(0), 2000000ULL);
	KUNIT_EXPECT_EQ(test, xnic_sim_retry_delay_ns(1), 10000ULL);
	KUNIT_EXPECT_EQ(test, xnic_sim_retry_delay_ns(8), 4096ULL << 8);
	KUNIT_EXPECT_EQ(test, xnic_sim_retry_delay_ns(14), 2000000ULL);
	KUNIT_EXPECT_EQ(test, xnic_sim_retry_delay_ns(31), 2000000ULL);

	KUNIT_EXPECT_FALSE(test, xnic_sim_retry_left(0, 0, true));
	KUNIT_EXPECT_TRUE(test, xnic_sim_retry_left(0, 1, true));
	KUNIT_EXPECT_FALSE(test, xnic_sim_retry_left(1, 1, true));
	KUNIT_EXPECT_TRUE(test, xnic_sim_retry_left(1000000, 7, true));
	KUNIT_EXPECT_FALSE(test, xnic_sim_retry_left(7, 7, false));
	KUNIT_EXPECT_TRUE(test, xnic_sim_retry_left(6, 7, false));
}

static void wqe_arm(struct kunit *test)
{
	u32 served = XNIC_SIM_ARM_NONE;

	/* not armed */
	KUNIT_EXPECT_FALSE(test, xnic_sim_arm_fire(0, &served, true, true));
	/* arm_sn 0 with NEXT fires once */
	KUNIT_EXPECT_TRUE(test, xnic_sim_arm_fire(XNIC_CQ_ARM_NEXT, &served,
						  false, false));
	KUNIT_EXPECT_EQ(test, served, 0U);
	KUNIT_EXPECT_FALSE(test, xnic_sim_arm_fire(XNIC_CQ_ARM_NEXT, &served,
						   false, false));
	/* SOLICITED: only solicited receives and errors */
	KUNIT_EXPECT_FALSE(test, xnic_sim_arm_fire(1 << 2 |
						   XNIC_CQ_ARM_SOLICITED,
						   &served, false, false));
	KUNIT_EXPECT_EQ(test, served, 0U);
	KUNIT_EXPECT_TRUE(test, xnic_sim_arm_fire(1 << 2 |
						  XNIC_CQ_ARM_SOLICITED,
						  &served, true, false));
	KUNIT_EXPECT_EQ(test, served, 1U);
	KUNIT_EXPECT_TRUE(test, xnic_sim_arm_fire(2 << 2 |
						  XNIC_CQ_ARM_SOLICITED,
						  &served, false, true));
	KUNIT_EXPECT_EQ(test, served, 2U);
	/* the largest arm_sn */
	KUNIT_EXPECT_TRUE(test, xnic_sim_arm_fire(0xfffffffc |
						  XNIC_CQ_ARM_NEXT,
						  &served, false, false));
	KUNIT_EXPECT_EQ(test, served, 0x3fffffffU);
	KUNIT_EXPECT_FALSE(test, xnic_sim_arm_fire(0xfffffffc |
						   XNIC_CQ_ARM_NEXT,
						   &served, false, false));
}

/* Payload bytes of a WQE, and what a run's budget lets through. */
static void wqe_budget(struct kunit *test)
{
	struct xnic_sge sge[2] = {
		{ .length = cpu_to_le32(0x10000) },
		{ .length = cpu_to_le32(0xffffffff) },
	};
	struct xnic_sim_swqe w = { .opcode = XNIC_OP_SEND, .sge = sge };
	struct xnic_sim_budget b = { .wqes = 3, .bytes = 0x20000 };

	KUNIT_EXPECT_EQ(test, xnic_sim_swqe_bytes(&w), 0ULL);
	w.num_sge = 2;
	KUNIT_EXPECT_EQ(test, xnic_sim_swqe_bytes(&w), 0x10000ULL + 0xffffffff);
	w.num_sge = 0;
	w.inline_len = 200;
	KUNIT_EXPECT_EQ(test, xnic_sim_swqe_bytes(&w), 200ULL);

	/* the engine: a WQE starts while bytes are left, charged whole */
	w.inline_len = 0;
	w.num_sge = 1;
	KUNIT_EXPECT_TRUE(test, xnic_sim_budget_take(&b, &w));
	KUNIT_EXPECT_EQ(test, b.bytes, 0x10000ULL);
	w.num_sge = 2;
	KUNIT_EXPECT_TRUE(test, xnic_sim_budget_take(&b, &w));
	KUNIT_EXPECT_EQ(test, b.bytes, 0ULL);
	KUNIT_EXPECT_FALSE(test, b.left);
	w.num_sge = 0;
	KUNIT_EXPECT_FALSE(test, xnic_sim_budget_take(&b, &w));
	KUNIT_EXPECT_TRUE(test, b.left);
	KUNIT_EXPECT_EQ(test, b.wqes, 1U);
	/* ... and WQEs */
	b = (struct xnic_sim_budget) { .wqes = 1, .bytes = 100 };
	KUNIT_EXPECT_TRUE(test, xnic_sim_budget_take(&b, &w));
	KUNIT_EXPECT_FALSE(test, xnic_sim_budget_take(&b, &w));

	/* a kick serve: only what fits, nothing that may sleep */
	b = (struct xnic_sim_budget) { .wqes = 8, .bytes = 0x10000,
				       .atomic = true };
	w.num_sge = 2;
	KUNIT_EXPECT_FALSE(test, xnic_sim_budget_take(&b, &w));
	KUNIT_EXPECT_TRUE(test, b.left);
	KUNIT_EXPECT_EQ(test, b.bytes, 0x10000ULL);
	w.num_sge = 1;
	w.opcode = XNIC_OP_LOCAL_INV;
	KUNIT_EXPECT_FALSE(test, xnic_sim_budget_take(&b, &w));
	w.opcode = XNIC_OP_REG_MR;
	KUNIT_EXPECT_FALSE(test, xnic_sim_budget_take(&b, &w));
	w.opcode = XNIC_OP_RDMA_WRITE;
	KUNIT_EXPECT_TRUE(test, xnic_sim_budget_take(&b, &w));
	KUNIT_EXPECT_EQ(test, b.bytes, 0ULL);
	KUNIT_EXPECT_EQ(test, b.wqes, 7U);
}

/*
 * Doorbell page words are found by the structure's layout (group words
 * at 4096, whatever PAGE_SIZE is), and the model rings and scans them
 * there.
 */
static void wqe_db_layout(struct kunit *test)
{
	struct xnic_db_page *pg = kunit_kzalloc(test, sizeof(*pg), GFP_KERNEL);
	const u64 base = 0x40000000ULL;
	u32 g;

	KUNIT_ASSERT_NOT_NULL(test, pg);

	KUNIT_EXPECT_EQ(test, offsetof(struct xnic_db_page, summary), 8UL);
	KUNIT_EXPECT_EQ(test, offsetof(struct xnic_db_page, group), 4096UL);
	KUNIT_EXPECT_EQ(test, sizeof(struct xnic_db_page),
			(size_t)XNIC_DB_PAGE_SIZE);
	for (g = 0; g < XNIC_DB_GROUP_WORDS; g += 73)
		KUNIT_EXPECT_EQ(test, xnic_sim_db_group_addr(base, g),
				base + ((u8 *)&pg->group[g] - (u8 *)pg));
	KUNIT_EXPECT_EQ(test,
			xnic_sim_db_group_addr(base, XNIC_DB_GROUP_WORDS - 1),
			base + XNIC_DB_PAGE_SIZE - 8);
	for (g = 0; g < XNIC_DB_SUMMARY_WORDS; g++)
		KUNIT_EXPECT_EQ(test, xnic_sim_db_summary_addr(base, g),
				base + ((u8 *)&pg->summary[g] - (u8 *)pg));
}

static struct kunit_case wqe_cases[] = {
	KUNIT_CASE(wqe_len),
	KUNIT_CASE(wqe_decode),
	KUNIT_CASE(wqe_rwqe_len),
	KUNIT_CASE(wqe_opcodes),
	KUNIT_CASE(wqe_qp_states),
	KUNIT_CASE(wqe_delays),
	KUNIT_CASE(wqe_arm),
	KUNIT_CASE(wqe_budget),
	KUNIT_CASE(wqe_db_layout),
	{}
};

static struct kunit_suite wqe_suite = {
	.name = "xnic_sim_wqe",
	.test_cases = wqe_cases,
};

/* ------------------------------------------------------------------ */
/* xnic_sim_mr                                                         */

#define MR_PAGES	6

/* Real pages, scattered (allocated one by one), as an MTT-based MR. */
struct mr_fix {
	struct page *pg[MR_PAGES];
	u64 mtt[MR_PAGES];
	struct xnic_sim_mr mr;
};

static int defer_init(struct kunit_resource *res, void *context)
{
	res->data = context;
	return 0;
}

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
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, defer_init,
							 mr_fix_exit,
							 GFP_KERNEL, f));
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

static void fill_pattern(u8 *p, size_t n, u8 seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (u8)(seed + i * 7 + (i >> 8));
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
	fill_pattern(src, len, 3);
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
	fill_pattern(a, len, 9);
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

/* ------------------------------------------------------------------ */
/* xnic_sim_tbl                                                        */

static void tbl_exit(struct kunit_resource *res)
{
	xnic_sim_tbl_destroy(res->data);
}

static struct xnic_sim_tbl *tbl_new(struct kunit *test, u32 max)
{
	struct xnic_sim_tbl *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, xnic_sim_tbl_init(t, max), 0);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, defer_init,
							 tbl_exit, GFP_KERNEL,
							 t));
	return t;
}

static void tbl_basic(struct kunit *test)
{
	struct xnic_sim_tbl *t = tbl_new(test, 3);
	struct xnic_sim_tbl_chunk *empty = NULL;
	int a, b, c, d;
	u32 idx;

	KUNIT_EXPECT_NULL(test, xnic_sim_tbl_get(t, 5));
	KUNIT_EXPECT_EQ(test, xnic_sim_tbl_insert(t, 5, &a), 0);
	KUNIT_EXPECT_EQ(test, xnic_sim_tbl_insert(t, 5, &b), -EEXIST);
	KUNIT_EXPECT_EQ(test, xnic_sim_tbl_insert(t, 0xffffff, &b), 0);
	KUNIT_EXPECT_EQ(test, xnic_sim_tbl_insert(t, 0x1000000, &c), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_tbl_insert(t, 4096, &c), 0);
	/* full */
	KUNIT_EXPECT_EQ(test, xnic_sim_tbl_insert(t, 6, &d), -ENOSPC);
	KUNIT_EXPECT_EQ(test, t->count, 3U);
	KUNIT_EXPECT_PTR_EQ(test, xnic_sim_tbl_get(t, 5), (void *)&a);
	KUNIT_EXPECT_PTR_EQ(test, xnic_sim_tbl_get(t, 0xffffff), (void *)&b);
	KUNIT_EXPECT_PTR_EQ(test, xnic_sim_tbl_get(t, 4096), (void *)&c);
	KUNIT_EXPECT_NULL(test, xnic_sim_tbl_get(t, 4097));
	KUNIT_EXPECT_NULL(test, xnic_sim_tbl_get(t, 0x1000000));
	KUNIT_EXPECT_NULL(test, xnic_sim_tbl_get(t, ~0U));

	/* walk in order */
	idx = 0;
	KUNIT_EXPECT_PTR_EQ(test, xnic_sim_tbl_next(t, &idx), (void *)&a);
	KUNIT_EXPECT_EQ(test, idx, 5U);
	idx++;
	KUNIT_EXPECT_PTR_EQ(test, xnic_sim_tbl_next(t, &idx), (void *)&c);
	KUNIT_EXPECT_EQ(test, idx, 4096U);
	idx++;
	KUNIT_EXPECT_PTR_EQ(test, xnic_sim_tbl_next(t, &idx), (void *)&b);
	KUNIT_EXPECT_EQ(test, idx, 0xffffffU);
	idx++;
	KUNIT_EXPECT_NULL(test, xnic_sim_tbl_next(t, &idx));

	/* erasing the last object of a chunk hands the chunk back */
	KUNIT_EXPECT_PTR_EQ(test, xnic_sim_tbl_erase(t, 4096, &empty),
			    (void *)&c);
	KUNIT_EXPECT_NOT_NULL(test, empty);
	KUNIT_EXPECT_NULL(test, xnic_sim_tbl_get(t, 4096));
	xnic_sim_tbl_free_chunk(empty);
	empty = NULL;
	KUNIT_EXPECT_NULL(test, xnic_sim_tbl_erase(t, 4096, &empty));
	KUNIT_EXPECT_NULL(test, xnic_sim_tbl_erase(t, 0x1000000, &empty));
	KUNIT_EXPECT_NULL(test, empty);
	/* a chunk still holding an object stays */
	KUNIT_EXPECT_EQ(test, xnic_sim_tbl_insert(t, 6, &d), 0);
	KUNIT_EXPECT_PTR_EQ(test, xnic_sim_tbl_erase(t, 5, &empty), (void *)&a);
	KUNIT_EXPECT_NULL(test, empty);
	KUNIT_EXPECT_PTR_EQ(test, xnic_sim_tbl_get(t, 6), (void *)&d);
	KUNIT_EXPECT_EQ(test, t->count, 2U);
	KUNIT_EXPECT_EQ(test, xnic_sim_tbl_insert(t, 7, NULL), -EINVAL);
}

/* Many random numbers in and out; the table agrees with a bitmap. */
static void tbl_random(struct kunit *test)
{
	struct xnic_sim_tbl *t = tbl_new(test, 1000);
	u32 *num = kunit_kcalloc(test, 1000, sizeof(u32), GFP_KERNEL);
	int i, n = 0, round;

	KUNIT_ASSERT_NOT_NULL(test, num);
	for (round = 0; round < 4000; round++) {
		if (n < 1000 && (n == 0 || get_random_u32_below(3))) {
			u32 idx = get_random_u32_below(1U << 24);
			int ret = xnic_sim_tbl_insert(t, idx, &num[n]);

			if (ret == -EEXIST)
				continue;
			KUNIT_ASSERT_EQ(test, ret, 0);
			num[n++] = idx;
		} else {
			struct xnic_sim_tbl_chunk *empty = NULL;

			i = get_random_u32_below(n);
			KUNIT_ASSERT_NOT_NULL(test,
					      xnic_sim_tbl_erase(t, num[i],
								 &empty));
			xnic_sim_tbl_free_chunk(empty);
			num[i] = num[--n];
			/* the object of the moved number moved too */
			if (i < n) {
				empty = NULL;
				xnic_sim_tbl_erase(t, num[i], &empty);
				xnic_sim_tbl_free_chunk(empty);
				KUNIT_ASSERT_EQ(test,
						xnic_sim_tbl_insert(t, num[i],
								    &num[i]),
						0);
			}
		}
	}
	KUNIT_EXPECT_EQ(test, t->count, (u32)n);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_PTR_EQ(test, xnic_sim_tbl_get(t, num[i]),
				    (void *)&num[i]);
}

static struct kunit_case tbl_cases[] = {
	KUNIT_CASE(tbl_basic),
	KUNIT_CASE(tbl_random),
	{}
};

static struct kunit_suite tbl_suite = {
	.name = "xnic_sim_tbl",
	.test_cases = tbl_cases,
};

/* ------------------------------------------------------------------ */
/* xnic_sim_port                                                       */

static void port_gid_grh(struct kunit *test)
{
	static const u8 want[16] = {
		0xfe, 0x80, 0, 0, 0, 0, 0, 0,
		0x02, 0x58, 0x52, 0xff, 0xfe, 0, 0, 0x01,
	};
	u8 gid[16], dgid[16], grh[40];

	xnic_sim_gid(0x025852fffe000001ULL, gid);
	KUNIT_EXPECT_EQ(test, memcmp(gid, want, 16), 0);
	memset(dgid, 0x33, sizeof(dgid));
	xnic_sim_grh(grh, gid, dgid, 4096);
	KUNIT_EXPECT_EQ(test, grh[0] >> 4, 6);
	KUNIT_EXPECT_EQ(test, grh[4], 0x10);
	KUNIT_EXPECT_EQ(test, grh[5], 0x00);
	KUNIT_EXPECT_EQ(test, grh[6], 0x1b);
	KUNIT_EXPECT_EQ(test, memcmp(grh + 8, gid, 16), 0);
	KUNIT_EXPECT_EQ(test, memcmp(grh + 24, dgid, 16), 0);
}

static void port_cable(struct kunit *test)
{
	int p[8];

	KUNIT_EXPECT_EQ(test, xnic_sim_parse_cable(NULL, 5, p), 0);
	KUNIT_EXPECT_EQ(test, p[0], 1);
	KUNIT_EXPECT_EQ(test, p[1], 0);
	KUNIT_EXPECT_EQ(test, p[2], 3);
	KUNIT_EXPECT_EQ(test, p[3], 2);
	KUNIT_EXPECT_EQ(test, p[4], -1);
	KUNIT_EXPECT_EQ(test, xnic_sim_parse_cable("", 1, p), 0);
	KUNIT_EXPECT_EQ(test, p[0], -1);
	KUNIT_EXPECT_EQ(test, xnic_sim_parse_cable("none", 4, p), 0);
	KUNIT_EXPECT_EQ(test, p[0] & p[1] & p[2] & p[3], -1);
	KUNIT_EXPECT_EQ(test, xnic_sim_parse_cable("0-3,1-2\n", 4, p), 0);
	KUNIT_EXPECT_EQ(test, p[0], 3);
	KUNIT_EXPECT_EQ(test, p[3], 0);
	KUNIT_EXPECT_EQ(test, p[1], 2);
	KUNIT_EXPECT_EQ(test, p[2], 1);
	KUNIT_EXPECT_EQ(test, xnic_sim_parse_cable("2-7", 8, p), 0);
	KUNIT_EXPECT_EQ(test, p[7], 2);
	KUNIT_EXPECT_EQ(test, p[0], -1);
	/* errors */
	KUNIT_EXPECT_EQ(test, xnic_sim_parse_cable("0-0", 2, p), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_parse_cable("0-2", 2, p), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_parse_cable("0-1,1-2", 3, p), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_parse_cable("0-1,,2-3", 4, p),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_parse_cable("01", 2, p), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_parse_cable("a-b", 2, p), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_parse_cable("-1", 2, p), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_parse_cable("0-", 2, p), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_parse_cable("1000-1", 8, p), -EINVAL);
}

/* The Ethernet function's MAC, ring and producer index checks. */
static void port_eth(struct kunit *test)
{
	static const u8 want[6] = { 0x00, 0x58, 0x52, 0x00, 0x00, 0x01 };
	u8 mac[6], gid[16];

	/* the EUI-64 of the MAC is the GUID: link-local address = GID */
	xnic_sim_eth_mac(XNIC_SIM_GUID_BASE | 1, mac);
	KUNIT_EXPECT_EQ(test, memcmp(mac, want, 6), 0);
	xnic_sim_gid(XNIC_SIM_GUID_BASE | 1, gid);
	KUNIT_EXPECT_EQ(test, gid[8], mac[0] ^ 2);
	KUNIT_EXPECT_EQ(test, memcmp(gid + 9, mac + 1, 2), 0);
	KUNIT_EXPECT_EQ(test, gid[11], 0xff);
	KUNIT_EXPECT_EQ(test, gid[12], 0xfe);
	KUNIT_EXPECT_EQ(test, memcmp(gid + 13, mac + 3, 3), 0);

	KUNIT_EXPECT_TRUE(test, xnic_sim_eth_ring_ok(0x1000, 1));
	KUNIT_EXPECT_TRUE(test, xnic_sim_eth_ring_ok(0x1010, 12));
	KUNIT_EXPECT_FALSE(test, xnic_sim_eth_ring_ok(0, 4));
	KUNIT_EXPECT_FALSE(test, xnic_sim_eth_ring_ok(0x1008, 4));
	KUNIT_EXPECT_FALSE(test, xnic_sim_eth_ring_ok(0x1000, 0));
	KUNIT_EXPECT_FALSE(test, xnic_sim_eth_ring_ok(0x1000, 13));
	KUNIT_EXPECT_FALSE(test, xnic_sim_eth_ring_ok(0x1000, U32_MAX));

	/* at most one ring ahead, modulo 2^32 */
	KUNIT_EXPECT_TRUE(test, xnic_sim_eth_pi_ok(0, 0, 4));
	KUNIT_EXPECT_TRUE(test, xnic_sim_eth_pi_ok(0, 16, 4));
	KUNIT_EXPECT_FALSE(test, xnic_sim_eth_pi_ok(0, 17, 4));
	KUNIT_EXPECT_FALSE(test, xnic_sim_eth_pi_ok(5, 4, 4));
	KUNIT_EXPECT_TRUE(test, xnic_sim_eth_pi_ok(U32_MAX - 3, 12, 4));
	KUNIT_EXPECT_FALSE(test, xnic_sim_eth_pi_ok(U32_MAX - 3, 13, 4));
}

/* The RFC 1071 sum over a header: 0xffff when its checksum is right. */
static u16 td_ip_sum(const u8 *ip)
{
	u32 sum = 0;
	int i;

	for (i = 0; i < 20; i += 2)
		sum += ip[i] << 8 | ip[i + 1];
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

static void port_net_hdr(struct kunit *test)
{
	static const u8 v4a[16] = { [10] = 0xff, [11] = 0xff,
				    198, 18, 0, 1 };
	static const u8 v4b[16] = { [10] = 0xff, [11] = 0xff,
				    198, 18, 0, 2 };
	static const u8 zero[20];
	/* a header worked out by hand: 198.18.0.1 -> 198.18.0.2, 100 bytes */
	static const u8 want_ip[20] = {
		0x45, 0x00, 0x00, 0x80, 0x00, 0x00, 0x40, 0x00,
		0x40, 0x11, 0xae, 0x45, 198, 18, 0, 1, 198, 18, 0, 2,
	};
	u8 gid[16], hdr[40];

	xnic_sim_gid(0x025852fffe000001ULL, gid);
	/* RoCE v1: a GRH, next header 0x1b, traffic class and hop limit */
	KUNIT_EXPECT_EQ(test, xnic_sim_net_hdr(hdr, gid, XNIC_GID_TYPE_ROCE_V1,
					       gid, 300, 7, 0xa5),
			XNIC_CQE_NET_ROCE_V1);
	KUNIT_EXPECT_EQ(test, hdr[0], 0x6a);
	KUNIT_EXPECT_EQ(test, hdr[1] >> 4, 0x5);
	KUNIT_EXPECT_EQ(test, hdr[4] << 8 | hdr[5], 300);
	KUNIT_EXPECT_EQ(test, hdr[6], 0x1b);
	KUNIT_EXPECT_EQ(test, hdr[7], 7);
	KUNIT_EXPECT_EQ(test, memcmp(hdr + 8, gid, 16), 0);
	/* RoCE v2 over IPv6: the same with next header UDP */
	KUNIT_EXPECT_EQ(test, xnic_sim_net_hdr(hdr, gid, XNIC_GID_TYPE_ROCE_V2,
					       gid, 300, 64, 0),
			XNIC_CQE_NET_IPV6);
	KUNIT_EXPECT_EQ(test, hdr[0], 0x60);
	KUNIT_EXPECT_EQ(test, hdr[6], 17);
	KUNIT_EXPECT_EQ(test, hdr[7], 64);
	KUNIT_EXPECT_EQ(test, memcmp(hdr + 24, gid, 16), 0);
	/* an IPv4-mapped v1 GID is still a GRH */
	KUNIT_EXPECT_EQ(test, xnic_sim_net_hdr(hdr, v4a, XNIC_GID_TYPE_ROCE_V1,
					       v4b, 1, 1, 0),
			XNIC_CQE_NET_ROCE_V1);
	/* RoCE v2 over IPv4: 20 zero bytes, then the IPv4 header */
	memset(hdr, 0xee, sizeof(hdr));
	KUNIT_EXPECT_EQ(test, xnic_sim_net_hdr(hdr, v4a, XNIC_GID_TYPE_ROCE_V2,
					       v4b, 100, 64, 0),
			XNIC_CQE_NET_IPV4);
	KUNIT_EXPECT_EQ(test, memcmp(hdr, zero, 20), 0);
	KUNIT_EXPECT_EQ(test, memcmp(hdr + 20, want_ip, 20), 0);
	KUNIT_EXPECT_EQ(test, td_ip_sum(hdr + 20), 0xffff);
	/* other values: the checksum stays right */
	KUNIT_EXPECT_EQ(test, xnic_sim_net_hdr(hdr, v4b, XNIC_GID_TYPE_ROCE_V2,
					       v4a, 4096, 255, 0xb8),
			XNIC_CQE_NET_IPV4);
	KUNIT_EXPECT_EQ(test, hdr[21], 0xb8);
	KUNIT_EXPECT_EQ(test, hdr[22] << 8 | hdr[23], 4096 + 28);
	KUNIT_EXPECT_EQ(test, hdr[28], 255);
	KUNIT_EXPECT_EQ(test, memcmp(hdr + 32, v4b + 12, 4), 0);
	KUNIT_EXPECT_EQ(test, memcmp(hdr + 36, v4a + 12, 4), 0);
	KUNIT_EXPECT_EQ(test, td_ip_sum(hdr + 20), 0xffff);
}

static struct kunit_case port_cases[] = {
	KUNIT_CASE(port_gid_grh),
	KUNIT_CASE(port_net_hdr),
	KUNIT_CASE(port_cable),
	KUNIT_CASE(port_eth),
	{}
};

static struct kunit_suite port_suite = {
	.name = "xnic_sim_port",
	.test_cases = port_cases,
};

/* ------------------------------------------------------------------ */
/* xnic_sim_dev                                                        */

#define TD_CMDQ_LOG	3
#define TD_EQ_LOG	8
#define TD_Q_LOG	5	/* 32 WQEs per queue */
#define TD_WQE_SHIFT	8	/* 256 bytes: 8 SGEs or 160 inline bytes */
#define TD_TIMEOUT_MS	5000
#define TD_PD		1
#define TD_ALL_KEY	0x100	/* DMA MR, index 1 */
#define TD_ACCESS	(XNIC_ACCESS_LOCAL_WRITE | XNIC_ACCESS_REMOTE_WRITE | \
			 XNIC_ACCESS_REMOTE_READ | XNIC_ACCESS_REMOTE_ATOMIC)

/* The driver side of one device. */
struct td_dev {
	struct kunit *test;
	struct xnic_sim_dev *sim;
	struct xnic_bus *bus;
	struct xnic_cmd *cmdq;
	u32 cmd_pi;
	u32 token;
	struct xnic_eqe *eq;
	u32 eq_ci;
	bool irq;
	spinlock_t ev_lock;	/* the interrupt handler's counts */
	u32 ev[16];
	u32 ev_data[16];
	struct xnic_db_page *db[3];	/* 0: kernel, 1, 2: "user" pages */
};

struct td_cq {
	struct td_dev *d;
	u32 cqn;
	u32 log;
	u32 ci;
	u32 arm_sn;
	struct xnic_cqe *ring;
	struct xnic_cq_dbrec *rec;
};

struct td_qp {
	struct td_dev *d;
	u32 qpn;
	u8 type;
	u32 dbi;
	u32 slot;
	u8 *sq;
	u8 *rq;
	u32 sq_pi;
	u32 rq_pi;
	struct xnic_qp_dbrec *rec;
};

/* An MR over separately allocated pages (its MTT is not contiguous). */
struct td_mr {
	u32 key;
	u64 iova;
	u32 npages;
	struct page *pg[8];
};

struct td_ctx {
	struct td_dev dev[2];
};

struct td_wr {
	u8 op;
	u8 flags;
	u64 wr_id;
	__le32 imm;
	u64 raddr;
	u32 rkey;
	u64 cmp;
	u64 swap;
	u32 nsge;
	struct xnic_sge sge[XNIC_SIM_MAX_SGE];
	const void *inl;
	u32 inl_len;
	u32 dqpn;
	u32 qkey;
	const u8 *dgid;
	u8 sgid_index;
	u8 hop_limit;
	u8 tclass;
};

struct td_buf {
	struct page *pg;
	unsigned int order;
};

static void td_buf_free(struct kunit_resource *res)
{
	struct td_buf *b = res->data;

	__free_pages(b->pg, b->order);
	kfree(b);
}

/* Zeroed, physically contiguous "DMA" memory, freed after the test. */
static void *td_dma(struct kunit *test, size_t size, u64 *dma)
{
	struct td_buf *b = kzalloc(sizeof(*b), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	b->order = get_order(size);
	b->pg = alloc_pages(GFP_KERNEL | __GFP_ZERO, b->order);
	if (!b->pg)
		kfree(b);
	KUNIT_ASSERT_NOT_NULL(test, b->pg);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, defer_init,
							 td_buf_free,
							 GFP_KERNEL, b));
	*dma = page_to_phys(b->pg);
	return page_address(b->pg);
}

static u64 td_pa(const void *p)
{
	return virt_to_phys((void *)p);
}

static irqreturn_t td_irq(int irq, void *data)
{
	struct td_dev *d = data;
	u32 mask = (1U << TD_EQ_LOG) - 1;

	spin_lock(&d->ev_lock);
	for (;;) {
		struct xnic_eqe *e = &d->eq[d->eq_ci & mask];

		if ((READ_ONCE(e->owner) & 1) !=
		    (((d->eq_ci >> TD_EQ_LOG) & 1) ^ 1))
			break;
		dma_rmb();
		if (e->type < ARRAY_SIZE(d->ev)) {
			d->ev[e->type]++;
			d->ev_data[e->type] = le32_to_cpu(e->data);
		}
		d->eq_ci++;
	}
	d->bus->write32(d->bus, XNIC_REG_EQ_CI, d->eq_ci);
	spin_unlock(&d->ev_lock);
	return IRQ_HANDLED;
}

static u32 td_ev(struct td_dev *d, u8 type)
{
	u32 n;

	spin_lock_irq(&d->ev_lock);
	n = d->ev[type];
	spin_unlock_irq(&d->ev_lock);
	return n;
}

/* Wait until event @type was seen more than @n times. */
static bool td_wait_ev(struct td_dev *d, u8 type, u32 n)
{
	unsigned long end = jiffies + msecs_to_jiffies(TD_TIMEOUT_MS);

	while (td_ev(d, type) <= n) {
		if (time_after(jiffies, end))
			return false;
		usleep_range(50, 200);
	}
	return true;
}

/* A device counter (debugfs "counters"). */
static u64 td_ctr(struct td_dev *d, enum xnic_sim_ctr c)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(d->sim->ctr, cpu)->v[c];
	return sum;
}

static u32 td_rd(struct td_dev *d, u32 reg)
{
	return d->bus->read32(d->bus, reg);
}

static void td_wr(struct td_dev *d, u32 reg, u32 val)
{
	d->bus->write32(d->bus, reg, val);
}

/* Run a command; returns its status (@out: outlen bytes of the body). */
static u32 td_cmd_out(struct td_dev *d, u8 op, const void *in, size_t len,
		      void *out, size_t outlen)
{
	struct xnic_cmd *c = &d->cmdq[d->cmd_pi & ((1U << TD_CMDQ_LOG) - 1)];
	unsigned long end = jiffies + msecs_to_jiffies(TD_TIMEOUT_MS);

	memset(c, 0, sizeof(*c));
	c->hdr.opcode = op;
	c->hdr.token = cpu_to_le32(++d->token);
	if (in)
		memcpy(c->raw, in, len);
	d->cmd_pi++;
	wmb();	/* the entry before the producer index */
	td_wr(d, XNIC_REG_CMDQ_PI, d->cmd_pi);
	while (!READ_ONCE(c->hdr.done)) {
		KUNIT_ASSERT_TRUE_MSG(d->test, time_before(jiffies, end),
				      "command 0x%x timed out", op);
		usleep_range(20, 100);
	}
	rmb();	/* the outputs after done */
	if (out)
		memcpy(out, c->raw, min(outlen, sizeof(c->raw)));
	return le32_to_cpu(c->hdr.status);
}

static u32 td_cmd(struct td_dev *d, u8 op, const void *in, size_t len)
{
	return td_cmd_out(d, op, in, len, NULL, 0);
}

/* Expect a command to end with @status. */
static void td_want(struct td_dev *d, u8 op, const void *in, size_t len,
		    u32 status)
{
	KUNIT_EXPECT_EQ_MSG(d->test, td_cmd(d, op, in, len), status,
			    "command 0x%x", op);
}

static void td_cmd_ok(struct td_dev *d, u8 op, const void *in, size_t len)
{
	KUNIT_ASSERT_EQ(d->test, td_cmd(d, op, in, len),
			(u32)XNIC_CMD_OK);
}

static void td_reset(struct td_dev *d)
{
	td_wr(d, XNIC_REG_RESET, 1);
	KUNIT_ASSERT_EQ(d->test, td_rd(d, XNIC_REG_STATUS),
			(u32)XNIC_STATUS_READY);
}

/* Reset, set the queues up, enable, check the caps, 3 doorbell pages. */
static void td_up(struct td_dev *d)
{
	struct kunit *test = d->test;
	struct xnic_cmd_query_caps_out caps;
	struct xnic_cmd_alloc_db db = {};
	struct xnic_eqe *eq;
	u64 dma;
	int i;

	td_reset(d);
	d->cmd_pi = 0;
	d->cmdq = td_dma(test, sizeof(struct xnic_cmd) << TD_CMDQ_LOG, &dma);
	td_wr(d, XNIC_REG_CMDQ_BASE_LO, lower_32_bits(dma));
	td_wr(d, XNIC_REG_CMDQ_BASE_HI, upper_32_bits(dma));
	td_wr(d, XNIC_REG_CMDQ_LOG_SIZE, TD_CMDQ_LOG);
	eq = td_dma(test, sizeof(struct xnic_eqe) << TD_EQ_LOG, &dma);
	spin_lock_irq(&d->ev_lock);
	d->eq = eq;
	d->eq_ci = 0;
	spin_unlock_irq(&d->ev_lock);
	td_wr(d, XNIC_REG_EQ_BASE_LO, lower_32_bits(dma));
	td_wr(d, XNIC_REG_EQ_BASE_HI, upper_32_bits(dma));
	td_wr(d, XNIC_REG_EQ_LOG_SIZE, TD_EQ_LOG);
	KUNIT_ASSERT_EQ(test, td_rd(d, XNIC_REG_EQ_LOG_SIZE), (u32)TD_EQ_LOG);
	td_wr(d, XNIC_REG_INTR_MASK, 0);
	if (!d->irq) {
		KUNIT_ASSERT_EQ(test, d->bus->request_irq(d->bus, td_irq, d), 0);
		d->irq = true;
	}
	td_wr(d, XNIC_REG_ENABLE, 1);
	KUNIT_ASSERT_EQ(test, td_rd(d, XNIC_REG_STATUS),
			(u32)(XNIC_STATUS_READY | XNIC_STATUS_ENABLED));
	/* queue registers are fixed while enabled */
	td_wr(d, XNIC_REG_EQ_LOG_SIZE, 3);
	KUNIT_EXPECT_EQ(test, td_rd(d, XNIC_REG_EQ_LOG_SIZE), (u32)TD_EQ_LOG);

	KUNIT_ASSERT_EQ(test, td_cmd_out(d, XNIC_CMD_QUERY_CAPS, NULL, 0,
					 &caps, sizeof(caps)),
			(u32)XNIC_CMD_OK);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(caps.max_qp), 16384U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(caps.max_sge), 8U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(caps.max_inline), 256U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(caps.num_ports), 1U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(caps.vendor_id), 0x5852U);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(&caps.node_guid),
			d->sim->guid);
	for (i = 0; i < ARRAY_SIZE(d->db); i++) {
		d->db[i] = td_dma(test, XNIC_DB_PAGE_SIZE, &dma);
		db.db_index = cpu_to_le32(i);
		db.page_addr = cpu_to_le64(dma);
		td_cmd_ok(d, XNIC_CMD_ALLOC_DB, &db, sizeof(db));
	}
	/* the all-memory MR of PD 1 */
	{
		struct xnic_cmd_reg_mr mr = {
			.key = cpu_to_le32(TD_ALL_KEY),
			.pdn = cpu_to_le32(TD_PD),
			.access = cpu_to_le32(XNIC_ACCESS_LOCAL_WRITE),
			.flags = cpu_to_le32(XNIC_MR_F_ALL),
		};

		td_cmd_ok(d, XNIC_CMD_REG_MR, &mr, sizeof(mr));
	}
}

static struct td_cq *td_cq(struct td_dev *d, u32 cqn, u32 log, bool events)
{
	struct td_cq *cq = kunit_kzalloc(d->test, sizeof(*cq), GFP_KERNEL);
	struct xnic_cmd_create_cq in = {};
	u64 ring, rec;

	KUNIT_ASSERT_NOT_NULL(d->test, cq);
	cq->d = d;
	cq->cqn = cqn;
	cq->log = log;
	cq->ring = td_dma(d->test, sizeof(struct xnic_cqe) << log, &ring);
	cq->rec = td_dma(d->test, sizeof(*cq->rec), &rec);
	in.cqn = cpu_to_le32(cqn);
	in.log_cqe = cpu_to_le32(log);
	in.ring_addr = cpu_to_le64(ring);
	in.dbrec_addr = cpu_to_le64(rec);
	in.flags = cpu_to_le32(events ? XNIC_CQ_F_EVENTS : 0);
	td_cmd_ok(d, XNIC_CMD_CREATE_CQ, &in, sizeof(in));
	return cq;
}

/* Take a CQE if one is there within @ms. */
/* Take the CQE at ci if the device wrote it, without waiting. */
static bool td_peek(struct td_cq *cq, struct xnic_cqe *out)
{
	struct xnic_cqe *e = &cq->ring[cq->ci & ((1U << cq->log) - 1)];

	if ((READ_ONCE(e->owner) & 1) != (((cq->ci >> cq->log) & 1) ^ 1))
		return false;
	rmb();	/* the body after the owner */
	*out = *e;
	cq->ci++;
	WRITE_ONCE(cq->rec->ci, cpu_to_le32(cq->ci));
	return true;
}

static bool td_poll(struct td_cq *cq, struct xnic_cqe *out, unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	for (;;) {
		if (td_peek(cq, out))
			return true;
		if (time_after(jiffies, end))
			return false;
		usleep_range(10, 50);
	}
}

static void td_expect(struct td_cq *cq, u64 wr_id, u8 status, u8 opcode,
		      struct xnic_cqe *out)
{
	struct kunit *test = cq->d->test;
	struct xnic_cqe e;

	KUNIT_ASSERT_TRUE_MSG(test, td_poll(cq, &e, TD_TIMEOUT_MS),
			      "no CQE for wr_id 0x%llx", wr_id);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(e.wr_id), wr_id);
	KUNIT_EXPECT_EQ(test, e.status, status);
	if (!status)
		KUNIT_EXPECT_EQ(test, e.opcode, opcode);
	if (out)
		*out = e;
}

static void td_arm(struct td_cq *cq, u32 how)
{
	cq->arm_sn++;
	smp_mb();	/* as a driver: the ci before the arm word */
	WRITE_ONCE(cq->rec->arm, cpu_to_le32(cq->arm_sn << 2 | how));
}

static struct td_qp *td_qp_status(struct td_dev *d, u32 qpn, u8 type,
				  u32 pdn, struct td_cq *scq,
				  struct td_cq *rcq, u32 dbi, u32 slot,
				  u32 srqn, u32 status);

static struct td_qp *td_qp(struct td_dev *d, u32 qpn, u8 type, u32 pdn,
			   struct td_cq *scq, struct td_cq *rcq, u32 dbi,
			   u32 slot, u32 srqn)
{
	return td_qp_status(d, qpn, type, pdn, scq, rcq, dbi, slot, srqn,
			    XNIC_CMD_OK);
}

/* CREATE_QP with valid queues; asserts the command returns @status. */
static struct td_qp *td_qp_status(struct td_dev *d, u32 qpn, u8 type,
				  u32 pdn, struct td_cq *scq,
				  struct td_cq *rcq, u32 dbi, u32 slot,
				  u32 srqn, u32 status)
{
	struct td_qp *q = kunit_kzalloc(d->test, sizeof(*q), GFP_KERNEL);
	struct xnic_cmd_create_qp in = {};
	u64 sq, rq, rec;

	KUNIT_ASSERT_NOT_NULL(d->test, q);
	q->d = d;
	q->qpn = qpn;
	q->type = type;
	q->dbi = dbi;
	q->slot = slot;
	q->sq = td_dma(d->test, 1U << (TD_Q_LOG + TD_WQE_SHIFT), &sq);
	q->rq = td_dma(d->test, 1U << (TD_Q_LOG + TD_WQE_SHIFT), &rq);
	q->rec = td_dma(d->test, sizeof(*q->rec), &rec);
	in.qpn = cpu_to_le32(qpn);
	in.qp_type = type;
	in.sq_log_wqe = TD_Q_LOG;
	in.sq_wqe_shift = TD_WQE_SHIFT;
	in.rq_log_wqe = TD_Q_LOG;
	in.rq_wqe_shift = TD_WQE_SHIFT;
	in.pdn = cpu_to_le32(pdn);
	in.send_cqn = cpu_to_le32(scq->cqn);
	in.recv_cqn = cpu_to_le32(rcq->cqn);
	in.srqn = cpu_to_le32(srqn);
	in.db_index = cpu_to_le32(dbi);
	in.db_slot = cpu_to_le32(slot);
	in.sq_addr = cpu_to_le64(sq);
	in.rq_addr = cpu_to_le64(rq);
	in.dbrec_addr = cpu_to_le64(rec);
	KUNIT_ASSERT_EQ(d->test, td_cmd(d, XNIC_CMD_CREATE_QP, &in, sizeof(in)),
			status);
	return q;
}

static u32 td_modify(struct td_qp *q, struct xnic_cmd_modify_qp *m, u8 state,
		     u32 mask)
{
	m->qpn = cpu_to_le32(q->qpn);
	m->state = state;
	m->mask = cpu_to_le32(mask | XNIC_QP_MOD_STATE);
	return td_cmd(q->d, XNIC_CMD_MODIFY_QP, m, sizeof(*m));
}

static u8 td_state(struct td_qp *q)
{
	struct xnic_cmd_obj in = { .index = cpu_to_le32(q->qpn) };
	struct xnic_cmd_query_qp_out out;

	KUNIT_ASSERT_EQ(q->d->test, td_cmd_out(q->d, XNIC_CMD_QUERY_QP, &in,
					       sizeof(in), &out, sizeof(out)),
			(u32)XNIC_CMD_OK);
	return out.state;
}

/* RESET -> INIT -> RTR -> RTS towards @b (RC/UC), or for UD. */
static void td_connect(struct td_qp *a, struct td_qp *b, u8 rnr_retry)
{
	struct kunit *test = a->d->test;
	struct xnic_cmd_modify_qp m = {};

	m.access = cpu_to_le32(TD_ACCESS);
	m.port_num = 1;
	m.qkey = cpu_to_le32(0x11111111);
	KUNIT_ASSERT_EQ(test, td_modify(a, &m, XNIC_QPS_INIT,
					XNIC_QP_MOD_ACCESS | XNIC_QP_MOD_PORT |
					XNIC_QP_MOD_QKEY), (u32)XNIC_CMD_OK);
	memset(&m, 0, sizeof(m));
	m.path_mtu = XNIC_MTU_1024;
	m.min_rnr_timer = 1;
	m.max_dest_rd_atomic = 16;
	if (b) {
		memcpy(m.dgid, b->d->sim->gid, 16);
		m.dest_qpn = cpu_to_le32(b->qpn);
	}
	/* PSN 0 both ways: a responder drops requests out of sequence */
	KUNIT_ASSERT_EQ(test, td_modify(a, &m, XNIC_QPS_RTR,
					XNIC_QP_MOD_AV | XNIC_QP_MOD_PATH_MTU |
					XNIC_QP_MOD_DEST_QPN | XNIC_QP_MOD_RQ_PSN |
					XNIC_QP_MOD_MIN_RNR_TIMER |
					XNIC_QP_MOD_MAX_DEST_RD_ATOMIC),
			(u32)XNIC_CMD_OK);
	memset(&m, 0, sizeof(m));
	m.timeout = 1;
	m.retry_cnt = 2;
	m.rnr_retry = rnr_retry;
	m.max_rd_atomic = 16;
	KUNIT_ASSERT_EQ(test, td_modify(a, &m, XNIC_QPS_RTS,
					XNIC_QP_MOD_TIMEOUT | XNIC_QP_MOD_RETRY_CNT |
					XNIC_QP_MOD_RNR_RETRY | XNIC_QP_MOD_SQ_PSN |
					XNIC_QP_MOD_MAX_RD_ATOMIC),
			(u32)XNIC_CMD_OK);
}

/* Set a slot's bits in a doorbell page (no kick). */
static void td_ring_bits(struct td_dev *d, u32 dbi, u32 slot)
{
	struct xnic_db_page *p = d->db[dbi];

	set_bit(slot % 64, (unsigned long *)&p->group[slot / 64]);
	set_bit((slot / 64) % 64, (unsigned long *)&p->summary[slot / 4096]);
	smp_mb__after_atomic();	/* the bits before the flags */
}

/* A KICK as the uverbs ioctl writes it for the context of page @dbi. */
static void td_kick(struct td_dev *d, u32 dbi)
{
	td_wr(d, XNIC_REG_KICK,
	      XNIC_KICK_WAKE | XNIC_KICK_RUN_HERE | XNIC_KICK_DB(dbi));
}

static void td_ring(struct td_dev *d, u32 dbi, u32 slot)
{
	struct xnic_db_page *p = d->db[dbi];

	td_ring_bits(d, dbi, slot);
	/* the test thread holds no lock: the device may run the work here */
	if (le32_to_cpu(READ_ONCE(p->flags)) & XNIC_DB_NEED_WAKEUP)
		td_kick(d, dbi);
}

/* Write a WQE (owner last), without telling the device. */
static void td_write_wqe(struct td_qp *q, const struct td_wr *w)
{
	u8 *e = q->sq + ((q->sq_pi & ((1U << TD_Q_LOG) - 1)) << TD_WQE_SHIFT);
	struct xnic_wqe_ctrl *c = (void *)e;
	struct xnic_wqe_remote *r = (void *)(e + XNIC_WQE_REMOTE_OFF);
	struct xnic_wqe_atomic *a = (void *)(e + XNIC_WQE_ATOMIC_OFF);
	struct xnic_wqe_ud *ud = (void *)(e + XNIC_WQE_UD_OFF);

	memset(e, 0, 1U << TD_WQE_SHIFT);
	c->opcode = w->op;
	c->flags = w->flags | (w->inl ? XNIC_WQE_INLINE : 0);
	c->wr_id = cpu_to_le64(w->wr_id);
	c->imm_data = w->imm;
	r->remote_addr = cpu_to_le64(w->raddr);
	r->rkey = cpu_to_le32(w->rkey);
	a->compare_add = cpu_to_le64(w->cmp);
	a->swap = cpu_to_le64(w->swap);
	ud->dest_qpn = cpu_to_le32(w->dqpn);
	ud->qkey = cpu_to_le32(w->qkey);
	if (w->dgid)
		memcpy(ud->dgid, w->dgid, 16);
	ud->sgid_index = w->sgid_index;
	ud->hop_limit = w->hop_limit;
	ud->traffic_class = w->tclass;
	if (w->inl) {
		c->inline_len = cpu_to_le32(w->inl_len);
		memcpy(e + XNIC_WQE_DATA_OFF, w->inl, w->inl_len);
	} else {
		c->num_sge = w->nsge;
		memcpy(e + XNIC_WQE_DATA_OFF, w->sge,
		       w->nsge * sizeof(struct xnic_sge));
	}
	dma_wmb();	/* the entry before its owner */
	WRITE_ONCE(c->owner, (q->sq_pi >> TD_Q_LOG) & 1);
	q->sq_pi++;
}

/* The doorbell record, then the doorbell page. */
static void td_doorbell(struct td_qp *q)
{
	dma_wmb();	/* the entries before the producer index */
	WRITE_ONCE(q->rec->sq_pi, cpu_to_le32(q->sq_pi));
	td_ring(q->d, q->dbi, q->slot);
}

static void td_post(struct td_qp *q, const struct td_wr *w)
{
	td_write_wqe(q, w);
	td_doorbell(q);
}

static void td_post_recv(struct td_qp *q, u64 wr_id,
			 const struct xnic_sge *sge, u32 n)
{
	u8 *e = q->rq + ((q->rq_pi & ((1U << TD_Q_LOG) - 1)) << TD_WQE_SHIFT);
	struct xnic_rwqe *h = (void *)e;

	memset(e, 0, 1U << TD_WQE_SHIFT);
	h->wr_id = cpu_to_le64(wr_id);
	h->num_sge = n;
	memcpy(h + 1, sge, n * sizeof(*sge));
	dma_wmb();	/* the entry before its owner */
	WRITE_ONCE(h->owner, (q->rq_pi >> TD_Q_LOG) & 1);
	q->rq_pi++;
	dma_wmb();	/* the entry before the producer index */
	WRITE_ONCE(q->rec->rq_pi, cpu_to_le32(q->rq_pi));
}

static struct xnic_sge td_sge(u64 addr, u32 len, u32 key)
{
	return (struct xnic_sge) {
		.addr = cpu_to_le64(addr), .length = cpu_to_le32(len),
		.lkey = cpu_to_le32(key),
	};
}

static void td_mr_pages_free(struct kunit_resource *res)
{
	struct td_mr *m = res->data;
	u32 i;

	for (i = 0; i < m->npages; i++)
		if (m->pg[i])
			__free_page(m->pg[i]);
}

/* An MR of @npages single pages at @iova (page aligned + @off). */
static struct td_mr *td_mr(struct td_dev *d, u32 key, u32 pdn, u32 access,
			   u32 npages, u64 iova, bool managed)
{
	struct kunit *test = d->test;
	struct td_mr *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	struct xnic_cmd_reg_mr in = {};
	__le64 *mtt;
	u64 mtt_dma;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_LE(test, npages, (u32)ARRAY_SIZE(m->pg));
	mtt = td_dma(test, npages * sizeof(u64), &mtt_dma);
	m->key = key;
	m->iova = iova;
	m->npages = npages;
	for (i = 0; i < npages; i++) {
		m->pg[npages - 1 - i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		KUNIT_ASSERT_NOT_NULL(test, m->pg[npages - 1 - i]);
	}
	if (managed)
		KUNIT_ASSERT_NOT_NULL(test,
				      kunit_alloc_resource(test, defer_init,
							   td_mr_pages_free,
							   GFP_KERNEL, m));
	for (i = 0; i < npages; i++)
		mtt[i] = cpu_to_le64(page_to_phys(m->pg[i]));
	in.key = cpu_to_le32(key);
	in.pdn = cpu_to_le32(pdn);
	in.access = cpu_to_le32(access);
	in.iova = cpu_to_le64(iova);
	in.length = cpu_to_le64((u64)npages * PAGE_SIZE -
				(iova & ~PAGE_MASK));
	in.mtt_addr = cpu_to_le64(mtt_dma);
	in.npages = cpu_to_le32(npages);
	in.page_shift = PAGE_SHIFT;
	td_cmd_ok(d, XNIC_CMD_REG_MR, &in, sizeof(in));
	return m;
}

static u8 *td_mr_byte(struct td_mr *m, u64 iova)
{
	u64 off = iova - (m->iova & PAGE_MASK);

	return page_address(m->pg[off >> PAGE_SHIFT]) + (off & ~PAGE_MASK);
}

/* module parameters a case may change, restored by td_exit() */
static bool td_saved_kick_serve_on;

static int td_init(struct kunit *test)
{
	struct td_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	int i;

	td_saved_kick_serve_on = READ_ONCE(xnic_sim_kick_serve_on);
	if (!c)
		return -ENOMEM;
	for (i = 0; i < 2; i++) {
		c->dev[i].test = test;
		spin_lock_init(&c->dev[i].ev_lock);
		c->dev[i].sim = xnic_sim_dev_alloc(i);
		if (!c->dev[i].sim)
			return -ENOMEM;
		c->dev[i].bus = &c->dev[i].sim->pdata.bus;
	}
	c->dev[0].sim->peer = c->dev[1].sim;
	c->dev[1].sim->peer = c->dev[0].sim;
	test->priv = c;
	for (i = 0; i < 2; i++)
		if (xnic_sim_dev_start(c->dev[i].sim, NULL))
			return -ENOMEM;
	return 0;
}

static void td_exit(struct kunit *test)
{
	struct td_ctx *c = test->priv;
	int i;

	WRITE_ONCE(xnic_sim_test_hook, NULL);
	/* also after a failed assertion, which skips the rest of a case */
	WRITE_ONCE(xnic_sim_kick_serve_on, td_saved_kick_serve_on);
	if (!c)
		return;
	for (i = 0; i < 2; i++)
		if (c->dev[i].sim && c->dev[i].irq)
			c->dev[i].bus->free_irq(c->dev[i].bus);
	for (i = 0; i < 2; i++)
		if (c->dev[i].sim)
			xnic_sim_dev_stop(c->dev[i].sim);
	for (i = 0; i < 2; i++) {
		if (!c->dev[i].sim)
			continue;
		xnic_sim_clear(c->dev[i].sim);
		irq_work_sync(&c->dev[i].sim->irq_work);
		xnic_sim_dev_free(c->dev[i].sim);
	}
}

static struct td_ctx *td_ctx_up(struct kunit *test)
{
	struct td_ctx *c = test->priv;

	td_up(&c->dev[0]);
	td_up(&c->dev[1]);
	return c;
}

/* Commands: parameters, states, busy objects, limits, reset. */
/*
 * CLOCK: the microseconds of CQE timestamps (local_clock() / 1000, 32
 * bits); a read lies between two reads of that clock around it.
 */
static void dev_clock(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct td_dev *d = &c->dev[0];
	u32 a, r, b;

	a = (u32)div_u64(local_clock(), NSEC_PER_USEC);
	r = td_rd(d, XNIC_REG_CLOCK);
	b = (u32)div_u64(local_clock(), NSEC_PER_USEC);
	KUNIT_EXPECT_LE_MSG(test, r - a, b - a, "clock %u not in [%u, %u]",
			    r, a, b);
	/* read only: a write does not reset it; it runs on (>= 2 ms) */
	td_wr(d, XNIC_REG_CLOCK, 0);
	usleep_range(2000, 3000);
	r = td_rd(d, XNIC_REG_CLOCK) - b;
	KUNIT_EXPECT_GE(test, r, 2000U);
}

static void dev_cmds(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct td_dev *d = &c->dev[0];
	struct xnic_cmd_create_cq cq = {};
	struct xnic_cmd_obj obj = {};
	struct xnic_cmd_alloc_db db = {};
	struct xnic_cmd_reg_mr mr = {};
	struct xnic_cmd_modify_qp m = {};
	struct td_cq *tcq;
	struct td_qp *q;
	u32 done = td_ev(d, XNIC_EQE_CMD_DONE);
	u64 dma;

	KUNIT_EXPECT_EQ(test, td_rd(d, XNIC_REG_ID), (u32)XNIC_ID);
	KUNIT_EXPECT_EQ(test, td_rd(d, XNIC_REG_VERSION), (u32)XNIC_HW_VERSION);
	td_want(d, 0x77, NULL, 0, XNIC_CMD_BAD_OPCODE);
	KUNIT_EXPECT_TRUE(test, td_wait_ev(d, XNIC_EQE_CMD_DONE, done));

	/* CQs */
	cq.cqn = cpu_to_le32(5);
	cq.log_cqe = cpu_to_le32(17);
	cq.ring_addr = cpu_to_le64(td_pa(td_dma(test, PAGE_SIZE, &dma)));
	cq.dbrec_addr = cpu_to_le64(td_pa(td_dma(test, PAGE_SIZE, &dma)));
	td_want(d, XNIC_CMD_CREATE_CQ, &cq, sizeof(cq), XNIC_CMD_BAD_PARAM);
	cq.log_cqe = cpu_to_le32(2);
	cq.flags = cpu_to_le32(0x80);
	td_want(d, XNIC_CMD_CREATE_CQ, &cq, sizeof(cq), XNIC_CMD_BAD_PARAM);
	cq.flags = 0;
	cq.cqn = cpu_to_le32(1U << 24);
	td_want(d, XNIC_CMD_CREATE_CQ, &cq, sizeof(cq), XNIC_CMD_BAD_PARAM);
	obj.index = cpu_to_le32(9);
	td_want(d, XNIC_CMD_DESTROY_CQ, &obj, sizeof(obj), XNIC_CMD_BAD_INDEX);

	tcq = td_cq(d, 0xffffff, 2, false);
	cq.cqn = cpu_to_le32(0xffffff);
	td_want(d, XNIC_CMD_CREATE_CQ, &cq, sizeof(cq), XNIC_CMD_BAD_INDEX);
	q = td_qp(d, 77, XNIC_QPT_RC, TD_PD, tcq, tcq, 0, 3, XNIC_NO_SRQ);
	KUNIT_EXPECT_EQ(test, td_state(q), XNIC_QPS_RESET);
	/* the slot is taken */
	{
		struct xnic_cmd_create_qp in = {};

		in.qpn = cpu_to_le32(78);
		in.qp_type = XNIC_QPT_RC;
		in.sq_wqe_shift = 7;
		in.rq_wqe_shift = 5;
		in.send_cqn = cpu_to_le32(0xffffff);
		in.recv_cqn = cpu_to_le32(0xffffff);
		in.srqn = cpu_to_le32(XNIC_NO_SRQ);
		in.db_slot = cpu_to_le32(3);
		in.sq_addr = cpu_to_le64(td_pa(q->sq));
		in.rq_addr = cpu_to_le64(td_pa(q->rq));
		in.dbrec_addr = cpu_to_le64(td_pa(q->rec));
		td_want(d, XNIC_CMD_CREATE_QP, &in, sizeof(in),
			XNIC_CMD_BAD_INDEX);
		in.db_slot = cpu_to_le32(4);
		in.sq_wqe_shift = 6;
		td_want(d, XNIC_CMD_CREATE_QP, &in, sizeof(in),
			XNIC_CMD_BAD_PARAM);
		in.sq_wqe_shift = 7;
		in.db_index = cpu_to_le32(5);
		td_want(d, XNIC_CMD_CREATE_QP, &in, sizeof(in),
			XNIC_CMD_BAD_INDEX);
		in.db_index = 0;
		in.qp_type = 7;
		td_want(d, XNIC_CMD_CREATE_QP, &in, sizeof(in),
			XNIC_CMD_BAD_PARAM);
	}
	obj.index = cpu_to_le32(0xffffff);
	td_want(d, XNIC_CMD_DESTROY_CQ, &obj, sizeof(obj), XNIC_CMD_BUSY);
	/* states */
	KUNIT_EXPECT_EQ(test, td_modify(q, &m, XNIC_QPS_RTS, 0),
			(u32)XNIC_CMD_BAD_STATE);
	m.path_mtu = 9;
	KUNIT_EXPECT_EQ(test, td_modify(q, &m, XNIC_QPS_INIT,
					XNIC_QP_MOD_PATH_MTU),
			(u32)XNIC_CMD_BAD_PARAM);
	m.path_mtu = 0;
	m.max_rd_atomic = 17;
	KUNIT_EXPECT_EQ(test, td_modify(q, &m, XNIC_QPS_INIT,
					XNIC_QP_MOD_MAX_RD_ATOMIC),
			(u32)XNIC_CMD_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, td_state(q), XNIC_QPS_RESET);
	m.max_rd_atomic = 0;
	KUNIT_EXPECT_EQ(test, td_modify(q, &m, XNIC_QPS_INIT, 0),
			(u32)XNIC_CMD_OK);
	KUNIT_EXPECT_EQ(test, td_modify(q, &m, XNIC_QPS_ERR, 0),
			(u32)XNIC_CMD_OK);
	KUNIT_EXPECT_EQ(test, td_state(q), XNIC_QPS_ERR);
	KUNIT_EXPECT_EQ(test, td_modify(q, &m, XNIC_QPS_RTS, 0),
			(u32)XNIC_CMD_BAD_STATE);
	/* doorbell pages */
	db.db_index = cpu_to_le32(XNIC_SIM_MAX_DB);
	db.page_addr = cpu_to_le64(td_pa(td_dma(test, XNIC_DB_PAGE_SIZE,
						&dma)));
	td_want(d, XNIC_CMD_ALLOC_DB, &db, sizeof(db), XNIC_CMD_BAD_PARAM);
	db.db_index = cpu_to_le32(1);
	td_want(d, XNIC_CMD_ALLOC_DB, &db, sizeof(db), XNIC_CMD_BAD_INDEX);
	db.db_index = 0;
	td_want(d, XNIC_CMD_FREE_DB, &db, sizeof(db), XNIC_CMD_BUSY);
	db.db_index = cpu_to_le32(1);
	td_want(d, XNIC_CMD_FREE_DB, &db, sizeof(db), XNIC_CMD_OK);
	/* MRs */
	mr.key = cpu_to_le32(0x200);
	mr.flags = cpu_to_le32(XNIC_MR_F_ALL);
	mr.access = cpu_to_le32(XNIC_ACCESS_REMOTE_READ);
	td_want(d, XNIC_CMD_REG_MR, &mr, sizeof(mr), XNIC_CMD_BAD_PARAM);
	mr.flags = cpu_to_le32(XNIC_MR_F_FREG);
	mr.npages = cpu_to_le32(XNIC_SIM_MAX_FR_PAGES + 1);
	td_want(d, XNIC_CMD_REG_MR, &mr, sizeof(mr), XNIC_CMD_BAD_PARAM);
	mr.flags = 0;
	mr.npages = cpu_to_le32(1);
	mr.page_shift = 12;
	mr.length = cpu_to_le64(4096);
	mr.mtt_addr = cpu_to_le64(td_pa(td_dma(test, PAGE_SIZE, &dma)));
	/* a misaligned MTT entry */
	*(__le64 *)phys_to_virt(le64_to_cpu(mr.mtt_addr)) = cpu_to_le64(0x10);
	td_want(d, XNIC_CMD_REG_MR, &mr, sizeof(mr), XNIC_CMD_BAD_PARAM);
	*(__le64 *)phys_to_virt(le64_to_cpu(mr.mtt_addr)) = 0;
	mr.key = cpu_to_le32(TD_ALL_KEY + 5);	/* index 1 is taken */
	td_want(d, XNIC_CMD_REG_MR, &mr, sizeof(mr), XNIC_CMD_BAD_INDEX);
	/* deregistration goes by index (the tag may have changed) */
	td_want(d, XNIC_CMD_DEREG_MR, &mr, sizeof(mr), XNIC_CMD_OK);
	td_want(d, XNIC_CMD_DEREG_MR, &mr, sizeof(mr), XNIC_CMD_BAD_INDEX);

	obj.index = cpu_to_le32(77);
	td_want(d, XNIC_CMD_DESTROY_QP, &obj, sizeof(obj), XNIC_CMD_OK);
	obj.index = cpu_to_le32(0xffffff);
	td_want(d, XNIC_CMD_DESTROY_CQ, &obj, sizeof(obj), XNIC_CMD_OK);
	KUNIT_EXPECT_EQ(test, d->sim->qps.count + d->sim->cqs.count, 0U);
	KUNIT_EXPECT_EQ(test, d->sim->mrs.count, 0U);

	/* reset drops everything and needs a new setup */
	td_reset(d);
	KUNIT_EXPECT_EQ(test, d->sim->mrs.count + d->sim->n_db, 0U);
	KUNIT_EXPECT_EQ(test, td_rd(d, XNIC_REG_INTR_MASK), 1U);
	td_up(d);
}

/* One RC pair a -> b: every opcode, data checked, on @da -> @db. */
static void td_rc_ops(struct kunit *test, struct td_dev *da, struct td_dev *db,
		      u32 base)
{
	struct td_cq *acq = td_cq(da, base, 6, true);
	struct td_cq *bcq = td_cq(db, base + 1, 6, true);
	struct td_qp *a = td_qp(da, base + 2, XNIC_QPT_RC, TD_PD, acq, acq,
				0, base, XNIC_NO_SRQ);
	struct td_qp *b = td_qp(db, base + 3, XNIC_QPT_RC, TD_PD, bcq, bcq,
				0, base + 1, XNIC_NO_SRQ);
	u64 iova = 0x7000000000000800ULL;
	struct td_mr *m = td_mr(db, (base + 8) << 8 | 0x5a, TD_PD, TD_ACCESS,
				4, iova, true);
	u32 len = 3 * PAGE_SIZE - 0x800, i, ev;
	u8 *src = kunit_kmalloc(test, len, GFP_KERNEL);
	u8 *dst = kunit_kzalloc(test, len, GFP_KERNEL);
	struct td_wr w = {};
	struct xnic_sge rs[2];
	struct xnic_cqe e;
	u64 *ctr;

	KUNIT_ASSERT_NOT_NULL(test, src);
	KUNIT_ASSERT_NOT_NULL(test, dst);
	fill_pattern(src, len, base);
	td_connect(a, b, 3);
	td_connect(b, a, 3);

	/* SEND: 3 SGEs into 2 of an MTT MR, signaled, event armed */
	td_arm(bcq, XNIC_CQ_ARM_NEXT);
	ev = td_ev(db, XNIC_EQE_COMPLETION);
	rs[0] = td_sge(iova, 1000, m->key);
	rs[1] = td_sge(iova + 1000, len - 1000, m->key);
	td_post_recv(b, 0xb0, rs, 2);
	w.op = XNIC_OP_SEND_WITH_IMM;
	w.flags = XNIC_WQE_SIGNALED | XNIC_WQE_SOLICITED;
	w.wr_id = 0xa0;
	w.imm = cpu_to_le32(0xdeadbeef);
	w.nsge = 3;
	w.sge[0] = td_sge(td_pa(src), 10, TD_ALL_KEY);
	w.sge[1] = td_sge(td_pa(src + 10), 0, TD_ALL_KEY);
	w.sge[2] = td_sge(td_pa(src + 10), len - 10, TD_ALL_KEY);
	td_post(a, &w);
	td_expect(bcq, 0xb0, 0, XNIC_CQE_OP_RECV, &e);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e.byte_len), len);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e.qpn), b->qpn);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e.src_qp), a->qpn);
	KUNIT_EXPECT_EQ(test, e.flags, XNIC_CQE_WITH_IMM);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e.imm_data), 0xdeadbeefU);
	td_expect(acq, 0xa0, 0, XNIC_CQE_OP_SEND, NULL);
	for (i = 0; i < len; i++)
		if (*td_mr_byte(m, iova + i) != src[i])
			break;
	KUNIT_EXPECT_EQ(test, i, len);
	KUNIT_EXPECT_TRUE(test, td_wait_ev(db, XNIC_EQE_COMPLETION, ev));
	KUNIT_EXPECT_EQ(test, READ_ONCE(db->ev_data[XNIC_EQE_COMPLETION]),
			bcq->cqn);

	/* RDMA READ it back, unsignaled then a signaled NOP-like READ */
	memset(&w, 0, sizeof(w));
	w.op = XNIC_OP_RDMA_READ;
	w.flags = XNIC_WQE_SIGNALED;
	w.wr_id = 0xa1;
	w.raddr = iova + 1;
	w.rkey = m->key;
	w.nsge = 2;
	w.sge[0] = td_sge(td_pa(dst), 4097, TD_ALL_KEY);
	w.sge[1] = td_sge(td_pa(dst + 4097), len - 4098, TD_ALL_KEY);
	td_post(a, &w);
	td_expect(acq, 0xa1, 0, XNIC_CQE_OP_RDMA_READ, &e);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e.byte_len), len - 1);
	KUNIT_EXPECT_EQ(test, memcmp(dst, src + 1, len - 1), 0);

	/* RDMA WRITE with immediate, from inline data */
	memset(&w, 0, sizeof(w));
	w.op = XNIC_OP_RDMA_WRITE_WITH_IMM;
	w.wr_id = 0xa2;
	w.imm = cpu_to_le32(7);
	w.raddr = iova + PAGE_SIZE - 0x800 - 3;	/* across a page */
	w.rkey = m->key;
	w.inl = "0123456789";
	w.inl_len = 10;
	td_post_recv(b, 0xb1, NULL, 0);
	td_post(a, &w);
	td_expect(bcq, 0xb1, 0, XNIC_CQE_OP_RECV_RDMA_WITH_IMM, &e);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e.byte_len), 10U);
	KUNIT_EXPECT_EQ(test, e.flags, XNIC_CQE_WITH_IMM);
	for (i = 0; i < 10; i++)
		KUNIT_EXPECT_EQ(test, *td_mr_byte(m, w.raddr + i), '0' + i);

	/* atomics */
	ctr = (u64 *)td_mr_byte(m, iova + 0x800);
	*ctr = 40;
	memset(&w, 0, sizeof(w));
	w.op = XNIC_OP_ATOMIC_FETCH_AND_ADD;
	w.flags = XNIC_WQE_SIGNALED;
	w.wr_id = 0xa3;
	w.raddr = iova + 0x800;
	w.rkey = m->key;
	w.cmp = 2;
	w.nsge = 1;
	w.sge[0] = td_sge(td_pa(dst), 8, TD_ALL_KEY);
	td_post(a, &w);
	td_expect(acq, 0xa3, 0, XNIC_CQE_OP_FETCH_ADD, NULL);
	KUNIT_EXPECT_EQ(test, *(u64 *)dst, 40ULL);
	KUNIT_EXPECT_EQ(test, READ_ONCE(*ctr), 42ULL);
	w.op = XNIC_OP_ATOMIC_CMP_AND_SWP;
	w.wr_id = 0xa4;
	w.cmp = 42;
	w.swap = 1;
	td_post(a, &w);
	td_expect(acq, 0xa4, 0, XNIC_CQE_OP_COMP_SWAP, NULL);
	KUNIT_EXPECT_EQ(test, *(u64 *)dst, 42ULL);
	KUNIT_EXPECT_EQ(test, READ_ONCE(*ctr), 1ULL);

	/* unsignaled WQEs complete silently, a NOP signals */
	memset(&w, 0, sizeof(w));
	w.op = XNIC_OP_RDMA_WRITE;
	w.raddr = iova;
	w.rkey = m->key;
	w.nsge = 1;
	w.sge[0] = td_sge(td_pa(src), 64, TD_ALL_KEY);
	for (i = 0; i < 40; i++) {	/* more than the SQ holds: laps */
		w.wr_id = 0x100 + i;
		w.flags = i % 8 == 7 ? XNIC_WQE_SIGNALED : 0;
		td_post(a, &w);
		if (i % 8 == 7)
			td_expect(acq, 0x100 + i, 0, XNIC_CQE_OP_RDMA_WRITE,
				  NULL);
	}
	KUNIT_EXPECT_FALSE(test, td_poll(acq, &e, 10));
	KUNIT_EXPECT_EQ(test, td_state(a), XNIC_QPS_RTS);
	KUNIT_EXPECT_EQ(test, td_state(b), XNIC_QPS_RTS);
}

static void dev_rc(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);

	td_rc_ops(test, &c->dev[0], &c->dev[0], 16);	/* loopback */
	td_rc_ops(test, &c->dev[0], &c->dev[1], 32);	/* device to device */
	td_rc_ops(test, &c->dev[1], &c->dev[0], 48);
}

static void dev_ud(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct td_dev *d0 = &c->dev[0], *d1 = &c->dev[1];
	struct td_cq *acq = td_cq(d0, 1, 4, false);
	struct td_cq *bcq = td_cq(d1, 1, 4, false);
	struct td_qp *a = td_qp(d0, 2, XNIC_QPT_UD, TD_PD, acq, acq, 0, 0,
				XNIC_NO_SRQ);
	struct td_qp *b = td_qp(d1, 3, XNIC_QPT_UD, TD_PD, bcq, bcq, 0, 0,
				XNIC_NO_SRQ);
	u8 *buf = kunit_kzalloc(test, 2 * PAGE_SIZE, GFP_KERNEL);
	struct td_wr w = {};
	struct xnic_sge rs;
	struct xnic_cqe e;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	td_connect(a, NULL, 0);
	td_connect(b, NULL, 0);
	rs = td_sge(td_pa(buf + PAGE_SIZE), 100, TD_ALL_KEY);
	td_post_recv(b, 0xb0, &rs, 1);
	w.op = XNIC_OP_SEND;
	w.flags = XNIC_WQE_SIGNALED;
	w.wr_id = 0xa0;
	w.inl = "hello";
	w.inl_len = 5;
	w.dqpn = b->qpn;
	w.qkey = 0x11111111;
	w.dgid = d1->sim->gid;
	/* wrong qkey, wrong QPN, unreachable GID: dropped, success */
	w.qkey = 5;
	td_post(a, &w);
	td_expect(acq, 0xa0, 0, XNIC_CQE_OP_SEND, NULL);
	w.qkey = 0x11111111;
	w.dqpn = 99;
	td_post(a, &w);
	td_expect(acq, 0xa0, 0, XNIC_CQE_OP_SEND, NULL);
	w.dqpn = b->qpn;
	w.dgid = buf;
	td_post(a, &w);
	td_expect(acq, 0xa0, 0, XNIC_CQE_OP_SEND, NULL);
	KUNIT_EXPECT_FALSE(test, td_poll(bcq, &e, 20));
	w.dgid = d1->sim->gid;
	td_post(a, &w);
	td_expect(acq, 0xa0, 0, XNIC_CQE_OP_SEND, NULL);
	td_expect(bcq, 0xb0, 0, XNIC_CQE_OP_RECV, &e);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e.byte_len), 45U);
	KUNIT_EXPECT_EQ(test, e.flags, XNIC_CQE_GRH);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e.src_qp), a->qpn);
	KUNIT_EXPECT_EQ(test, memcmp(buf + PAGE_SIZE + 8, d0->sim->gid, 16), 0);
	KUNIT_EXPECT_EQ(test, memcmp(buf + PAGE_SIZE + 24, d1->sim->gid, 16),
			0);
	KUNIT_EXPECT_EQ(test, memcmp(buf + PAGE_SIZE + 40, "hello", 5), 0);
	/* larger than the MTU: a local length error, the QP fails */
	w.inl = NULL;
	w.nsge = 1;
	w.sge[0] = td_sge(td_pa(buf), 4097, TD_ALL_KEY);
	td_post(a, &w);
	td_expect(acq, 0xa0, XNIC_CQE_LOC_LEN_ERR, 0, NULL);
	KUNIT_EXPECT_EQ(test, td_state(a), XNIC_QPS_ERR);
}

static u32 td_set_gid(struct td_dev *d, u32 port, u32 index, const u8 *gid,
		      u8 type, u8 valid)
{
	struct xnic_cmd_set_gid in = {};

	in.port = cpu_to_le32(port);
	in.index = cpu_to_le32(index);
	if (gid)
		memcpy(in.gid, gid, 16);
	in.type = type;
	in.valid = valid;
	return td_cmd(d, XNIC_CMD_SET_GID, &in, sizeof(in));
}

/* The GID table: defaults, SET_GID, routing by any entry, source GIDs. */
static void dev_gid(struct kunit *test)
{
	static const u8 v4a[16] = { [10] = 0xff, [11] = 0xff,
				    198, 18, 0, 1 };
	static const u8 v4b[16] = { [10] = 0xff, [11] = 0xff,
				    198, 18, 0, 2 };
	struct td_ctx *c = td_ctx_up(test);
	struct td_dev *d0 = &c->dev[0], *d1 = &c->dev[1];
	struct td_cq *acq = td_cq(d0, 1, 4, false);
	struct td_cq *bcq = td_cq(d1, 1, 4, false);
	struct td_qp *a = td_qp(d0, 2, XNIC_QPT_UD, TD_PD, acq, acq, 0, 0,
				XNIC_NO_SRQ);
	struct td_qp *b = td_qp(d1, 3, XNIC_QPT_UD, TD_PD, bcq, bcq, 0, 0,
				XNIC_NO_SRQ);
	struct td_qp *r = td_qp(d0, 4, XNIC_QPT_RC, TD_PD, acq, acq, 0, 1,
				XNIC_NO_SRQ);
	u8 *buf = kunit_kzalloc(test, 2 * PAGE_SIZE, GFP_KERNEL);
	struct xnic_cmd_modify_qp m = {};
	u8 gid[16], type, *rb;
	struct td_wr w = {};
	struct xnic_sge rs;
	struct xnic_cqe e;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	rb = buf + PAGE_SIZE;
	/* after reset: the default GID as v1 (0) and v2 (1), nothing else */
	KUNIT_EXPECT_TRUE(test, xnic_sim_sgid(d0->sim, 0, gid, &type));
	KUNIT_EXPECT_EQ(test, memcmp(gid, d0->sim->gid, 16), 0);
	KUNIT_EXPECT_EQ(test, type, XNIC_GID_TYPE_ROCE_V1);
	KUNIT_EXPECT_TRUE(test, xnic_sim_sgid(d0->sim, 1, gid, &type));
	KUNIT_EXPECT_EQ(test, memcmp(gid, d0->sim->gid, 16), 0);
	KUNIT_EXPECT_EQ(test, type, XNIC_GID_TYPE_ROCE_V2);
	KUNIT_EXPECT_FALSE(test, xnic_sim_sgid(d0->sim, 2, gid, &type));
	KUNIT_EXPECT_FALSE(test, xnic_sim_sgid(d0->sim, XNIC_GID_TABLE_LEN,
					       gid, &type));

	/* SET_GID parameters */
	KUNIT_EXPECT_EQ(test, td_set_gid(d0, 0, 2, v4a, 1, 1),
			(u32)XNIC_CMD_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, td_set_gid(d0, 2, 2, v4a, 1, 1),
			(u32)XNIC_CMD_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, td_set_gid(d0, 1, XNIC_GID_TABLE_LEN, v4a, 1, 1),
			(u32)XNIC_CMD_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, td_set_gid(d0, 1, 2, v4a, 2, 1),
			(u32)XNIC_CMD_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, td_set_gid(d0, 1, 2, v4a, 1, 2),
			(u32)XNIC_CMD_BAD_PARAM);
	KUNIT_EXPECT_FALSE(test, xnic_sim_sgid(d0->sim, 2, gid, &type));
	KUNIT_EXPECT_EQ(test, td_set_gid(d0, 1, 2, v4a, XNIC_GID_TYPE_ROCE_V2,
					 1), (u32)XNIC_CMD_OK);
	KUNIT_EXPECT_EQ(test, td_set_gid(d1, 1, 5, v4b, XNIC_GID_TYPE_ROCE_V2,
					 1), (u32)XNIC_CMD_OK);
	KUNIT_EXPECT_TRUE(test, xnic_sim_sgid(d0->sim, 2, gid, &type));
	KUNIT_EXPECT_EQ(test, memcmp(gid, v4a, 16), 0);

	/* routing: own table first, then the cabled peer's, any entry */
	KUNIT_EXPECT_PTR_EQ(test, xnic_sim_gid_dev(d0->sim, v4a), d0->sim);
	KUNIT_EXPECT_PTR_EQ(test, xnic_sim_gid_dev(d0->sim, v4b), d1->sim);
	KUNIT_EXPECT_PTR_EQ(test, xnic_sim_gid_dev(d1->sim, v4a), d0->sim);
	KUNIT_EXPECT_PTR_EQ(test, xnic_sim_gid_dev(d0->sim, d1->sim->gid),
			    d1->sim);
	KUNIT_EXPECT_NULL(test, xnic_sim_gid_dev(d0->sim, buf));

	/* UD from the IPv4 entry to the peer's: IPv4 header, NET_IPV4 */
	td_connect(a, NULL, 0);
	td_connect(b, NULL, 0);
	rs = td_sge(td_pa(rb), 100, TD_ALL_KEY);
	td_post_recv(b, 0xb0, &rs, 1);
	w.op = XNIC_OP_SEND;
	w.flags = XNIC_WQE_SIGNALED;
	w.wr_id = 0xa0;
	w.inl = "hello";
	w.inl_len = 5;
	w.dqpn = b->qpn;
	w.qkey = 0x11111111;
	w.dgid = v4b;
	w.sgid_index = 2;
	w.hop_limit = 64;
	td_post(a, &w);
	td_expect(acq, 0xa0, 0, XNIC_CQE_OP_SEND, NULL);
	td_expect(bcq, 0xb0, 0, XNIC_CQE_OP_RECV, &e);
	KUNIT_EXPECT_EQ(test, e.flags, XNIC_CQE_GRH | XNIC_CQE_NET_IPV4);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e.byte_len), 45U);
	KUNIT_EXPECT_EQ(test, rb[20], 0x45);
	KUNIT_EXPECT_EQ(test, rb[28], 64);
	KUNIT_EXPECT_EQ(test, memcmp(rb + 32, v4a + 12, 4), 0);
	KUNIT_EXPECT_EQ(test, memcmp(rb + 36, v4b + 12, 4), 0);
	KUNIT_EXPECT_EQ(test, td_ip_sum(rb + 20), 0xffff);
	KUNIT_EXPECT_EQ(test, memcmp(rb + 40, "hello", 5), 0);

	/* sgid 1 (v2, IPv6 GID): a GRH with next header UDP, NET_IPV6 */
	td_post_recv(b, 0xb1, &rs, 1);
	w.dgid = d1->sim->gid;
	w.sgid_index = 1;
	td_post(a, &w);
	td_expect(acq, 0xa0, 0, XNIC_CQE_OP_SEND, NULL);
	td_expect(bcq, 0xb1, 0, XNIC_CQE_OP_RECV, &e);
	KUNIT_EXPECT_EQ(test, e.flags, XNIC_CQE_GRH | XNIC_CQE_NET_IPV6);
	KUNIT_EXPECT_EQ(test, rb[6], 17);
	KUNIT_EXPECT_EQ(test, memcmp(rb + 8, d0->sim->gid, 16), 0);

	/* a cleared entry routes nowhere: dropped, the send succeeds */
	KUNIT_EXPECT_EQ(test, td_set_gid(d1, 1, 5, NULL, 0, 0),
			(u32)XNIC_CMD_OK);
	td_post_recv(b, 0xb2, &rs, 1);
	w.dgid = v4b;
	w.sgid_index = 2;
	td_post(a, &w);
	td_expect(acq, 0xa0, 0, XNIC_CQE_OP_SEND, NULL);
	KUNIT_EXPECT_FALSE(test, td_poll(bcq, &e, 20));

	/* RC: the AV's source GID must be valid */
	KUNIT_EXPECT_EQ(test, td_modify(r, &m, XNIC_QPS_INIT, 0),
			(u32)XNIC_CMD_OK);
	m.dest_qpn = cpu_to_le32(r->qpn);
	memcpy(m.dgid, d0->sim->gid, 16);
	m.sgid_index = 7;
	KUNIT_EXPECT_EQ(test, td_modify(r, &m, XNIC_QPS_RTR, XNIC_QP_MOD_AV),
			(u32)XNIC_CMD_BAD_PARAM);
	m.sgid_index = 2;
	KUNIT_EXPECT_EQ(test, td_modify(r, &m, XNIC_QPS_RTR, XNIC_QP_MOD_AV),
			(u32)XNIC_CMD_OK);

	/* UD from an empty source entry: a local QP operation error */
	w.dgid = d1->sim->gid;
	w.sgid_index = 9;
	td_post(a, &w);
	td_expect(acq, 0xa0, XNIC_CQE_LOC_QP_OP_ERR, 0, NULL);

	/* reset restores the defaults */
	td_reset(d0);
	KUNIT_EXPECT_FALSE(test, xnic_sim_sgid(d0->sim, 2, gid, &type));
	KUNIT_EXPECT_TRUE(test, xnic_sim_sgid(d0->sim, 1, gid, &type));
}

/* The GSI QP: QPN 1 only, UD semantics, the Q_Key rule. */
static void dev_gsi(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct td_dev *d0 = &c->dev[0], *d1 = &c->dev[1];
	struct td_cq *acq = td_cq(d0, 1, 4, false);
	struct td_cq *bcq = td_cq(d1, 1, 4, false);
	u8 *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct td_qp *a, *g;
	struct td_wr w = {};
	struct xnic_sge rs;
	struct xnic_cqe e;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	/* QPN 1 is the GSI QP's and only its */
	td_qp_status(d1, 2, XNIC_QPT_GSI, TD_PD, bcq, bcq, 0, 0, XNIC_NO_SRQ,
		     XNIC_CMD_BAD_PARAM);
	td_qp_status(d1, XNIC_GSI_QPN, XNIC_QPT_UD, TD_PD, bcq, bcq, 0, 0,
		     XNIC_NO_SRQ, XNIC_CMD_BAD_PARAM);
	g = td_qp(d1, XNIC_GSI_QPN, XNIC_QPT_GSI, TD_PD, bcq, bcq, 0, 0,
		  XNIC_NO_SRQ);
	td_qp_status(d1, XNIC_GSI_QPN, XNIC_QPT_GSI, TD_PD, bcq, bcq, 0, 1,
		     XNIC_NO_SRQ, XNIC_CMD_BAD_INDEX);
	a = td_qp(d0, 2, XNIC_QPT_UD, TD_PD, acq, acq, 0, 0, XNIC_NO_SRQ);
	/* both Q_Keys 0x11111111 (td_connect) */
	td_connect(a, NULL, 0);
	td_connect(g, NULL, 0);

	rs = td_sge(td_pa(buf), 100, TD_ALL_KEY);
	w.op = XNIC_OP_SEND;
	w.flags = XNIC_WQE_SIGNALED;
	w.wr_id = 0xa0;
	w.inl = "mad";
	w.inl_len = 3;
	w.dqpn = XNIC_GSI_QPN;
	w.dgid = d1->sim->gid;
	/* a Q_Key the receiver does not have: dropped */
	w.qkey = 0x80010000;
	td_post_recv(g, 0xb0, &rs, 1);
	KUNIT_EXPECT_EQ(test, td_modify(a, &(struct xnic_cmd_modify_qp){
		.qkey = cpu_to_le32(0x22222222) }, XNIC_QPS_RTS,
		XNIC_QP_MOD_QKEY), (u32)XNIC_CMD_OK);
	td_post(a, &w);
	td_expect(acq, 0xa0, 0, XNIC_CQE_OP_SEND, NULL);
	KUNIT_EXPECT_FALSE(test, td_poll(bcq, &e, 20));
	/* bit 31 set: the sending QP's Q_Key is used, which matches */
	KUNIT_EXPECT_EQ(test, td_modify(a, &(struct xnic_cmd_modify_qp){
		.qkey = cpu_to_le32(0x11111111) }, XNIC_QPS_RTS,
		XNIC_QP_MOD_QKEY), (u32)XNIC_CMD_OK);
	td_post(a, &w);
	td_expect(acq, 0xa0, 0, XNIC_CQE_OP_SEND, NULL);
	td_expect(bcq, 0xb0, 0, XNIC_CQE_OP_RECV, &e);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e.qpn), XNIC_GSI_QPN);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e.src_qp), a->qpn);
	KUNIT_EXPECT_EQ(test, e.flags, XNIC_CQE_GRH);
	KUNIT_EXPECT_EQ(test, memcmp(buf + 40, "mad", 3), 0);
	/* a literal Q_Key that matches without bit 31 */
	w.qkey = 0x11111111;
	td_post_recv(g, 0xb1, &rs, 1);
	td_post(a, &w);
	td_expect(acq, 0xa0, 0, XNIC_CQE_OP_SEND, NULL);
	td_expect(bcq, 0xb1, 0, XNIC_CQE_OP_RECV, &e);

	/* the GSI QP sends like UD, and not RDMA */
	rs = td_sge(td_pa(buf + 2048), 100, TD_ALL_KEY);
	td_post_recv(a, 0xa1, &rs, 1);
	w.wr_id = 0xb9;
	w.dqpn = a->qpn;
	w.dgid = d0->sim->gid;
	w.qkey = 0x11111111;
	td_post(g, &w);
	td_expect(bcq, 0xb9, 0, XNIC_CQE_OP_SEND, NULL);
	td_expect(acq, 0xa1, 0, XNIC_CQE_OP_RECV, &e);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e.src_qp), XNIC_GSI_QPN);
	w.op = XNIC_OP_RDMA_WRITE;
	td_post(g, &w);
	td_expect(bcq, 0xb9, XNIC_CQE_LOC_QP_OP_ERR, 0, NULL);
}

/* Error completions, QP errors, events, flushing. */
static void dev_errors(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct td_dev *d0 = &c->dev[0], *d1 = &c->dev[1];
	struct td_cq *acq = td_cq(d0, 1, 6, false);
	struct td_cq *bcq = td_cq(d1, 1, 6, false);
	struct td_qp *a = td_qp(d0, 2, XNIC_QPT_RC, TD_PD, acq, acq, 0, 0,
				XNIC_NO_SRQ);
	struct td_qp *b = td_qp(d1, 3, XNIC_QPT_RC, TD_PD, bcq, bcq, 0, 0,
				XNIC_NO_SRQ);
	struct td_mr *m = td_mr(d1, 0x1000 << 8, TD_PD,
				XNIC_ACCESS_REMOTE_READ, 1, 0x10000, true);
	u8 *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct xnic_cmd_modify_qp mq = {};
	u32 ev = td_ev(d1, XNIC_EQE_QP_ACCESS_ERR);
	struct td_wr w = {};
	struct xnic_sge rs;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	td_connect(a, b, 1);
	td_connect(b, a, 1);
	rs = td_sge(td_pa(buf), 64, TD_ALL_KEY);
	td_post_recv(b, 0xb0, &rs, 1);
	td_post_recv(a, 0xa9, &rs, 1);

	/* a write without the right: remote access error */
	w.op = XNIC_OP_RDMA_WRITE;
	w.wr_id = 0xa0;
	w.raddr = 0x10000;
	w.rkey = m->key;
	w.nsge = 1;
	w.sge[0] = td_sge(td_pa(buf), 8, TD_ALL_KEY);
	td_write_wqe(a, &w);
	w.wr_id = 0xa1;
	w.flags = 0;
	td_write_wqe(a, &w);
	td_doorbell(a);
	td_expect(acq, 0xa0, XNIC_CQE_REM_ACCESS_ERR, 0, NULL);
	/* unsignaled and behind the error: flushed, then the receive */
	td_expect(acq, 0xa1, XNIC_CQE_WR_FLUSH_ERR, 0, NULL);
	td_expect(acq, 0xa9, XNIC_CQE_WR_FLUSH_ERR, 0, NULL);
	KUNIT_EXPECT_EQ(test, td_state(a), XNIC_QPS_ERR);
	KUNIT_EXPECT_TRUE(test, td_wait_ev(d1, XNIC_EQE_QP_ACCESS_ERR, ev));
	KUNIT_EXPECT_EQ(test, td_state(b), XNIC_QPS_ERR);
	td_expect(bcq, 0xb0, XNIC_CQE_WR_FLUSH_ERR, 0, NULL);
	/* posted in ERR: flushed too (send by doorbell, receive by sweep) */
	td_post(a, &w);
	td_expect(acq, 0xa1, XNIC_CQE_WR_FLUSH_ERR, 0, NULL);
	td_post_recv(b, 0xb1, &rs, 1);
	td_expect(bcq, 0xb1, XNIC_CQE_WR_FLUSH_ERR, 0, NULL);

	/* back to work: RESET, reconnect; RNR with rnr_retry 1 */
	KUNIT_EXPECT_EQ(test, td_modify(a, &mq, XNIC_QPS_RESET, 0),
			(u32)XNIC_CMD_OK);
	KUNIT_EXPECT_EQ(test, td_modify(b, &mq, XNIC_QPS_RESET, 0),
			(u32)XNIC_CMD_OK);
	memset(a->rec, 0, sizeof(*a->rec));
	memset(b->rec, 0, sizeof(*b->rec));
	a->sq_pi = 0;
	a->rq_pi = 0;
	b->sq_pi = 0;
	b->rq_pi = 0;
	memset(a->sq, 0, 1U << (TD_Q_LOG + TD_WQE_SHIFT));
	memset(b->rq, 0, 1U << (TD_Q_LOG + TD_WQE_SHIFT));
	td_connect(a, b, 1);
	td_connect(b, a, 1);
	w.op = XNIC_OP_SEND;
	w.wr_id = 0xa2;
	td_post(a, &w);
	td_expect(acq, 0xa2, XNIC_CQE_RNR_RETRY_EXC_ERR, 0, NULL);
	KUNIT_EXPECT_EQ(test, td_state(b), XNIC_QPS_RTS);

	/* nobody there: transport retries, then RETRY_EXC_ERR */
	KUNIT_EXPECT_EQ(test, td_modify(a, &mq, XNIC_QPS_RESET, 0),
			(u32)XNIC_CMD_OK);
	memset(a->rec, 0, sizeof(*a->rec));
	a->sq_pi = 0;
	memset(a->sq, 0, 1U << (TD_Q_LOG + TD_WQE_SHIFT));
	td_connect(a, b, 1);
	KUNIT_EXPECT_EQ(test, td_modify(b, &mq, XNIC_QPS_ERR, 0),
			(u32)XNIC_CMD_OK);
	w.wr_id = 0xa3;
	td_post(a, &w);
	td_expect(acq, 0xa3, XNIC_CQE_RETRY_EXC_ERR, 0, NULL);
}

/* Turn a garbage send WQE into one that can pass every check. */
static void td_plausible(struct td_dev *d, u8 *e, struct td_mr *m,
			 struct rnd_state *rs)
{
	static const u8 ops[] = {
		XNIC_OP_SEND, XNIC_OP_SEND_WITH_IMM, XNIC_OP_RDMA_WRITE,
		XNIC_OP_RDMA_WRITE_WITH_IMM, XNIC_OP_RDMA_READ,
		XNIC_OP_ATOMIC_CMP_AND_SWP, XNIC_OP_ATOMIC_FETCH_AND_ADD,
		XNIC_OP_SEND_WITH_INV, XNIC_OP_NOP,
	};
	struct xnic_wqe_ctrl *ctrl = (void *)e;
	struct xnic_wqe_remote *r = (void *)(e + XNIC_WQE_REMOTE_OFF);
	struct xnic_wqe_ud *ud = (void *)(e + XNIC_WQE_UD_OFF);
	struct xnic_sge *sge = (void *)(e + XNIC_WQE_DATA_OFF);
	u64 mlen = (u64)m->npages * PAGE_SIZE - (m->iova & ~PAGE_MASK);
	u32 j;

	ctrl->opcode = ops[prandom_u32_state(rs) % ARRAY_SIZE(ops)];
	ctrl->flags &= XNIC_WQE_SIGNALED | XNIC_WQE_SOLICITED |
		       XNIC_WQE_FENCE;
	ctrl->num_sge = prandom_u32_state(rs) % 4;
	for (j = 0; j < ctrl->num_sge; j++) {
		u32 l = prandom_u32_state(rs) % 2000;

		sge[j].lkey = cpu_to_le32(m->key);
		sge[j].addr = cpu_to_le64(m->iova + prandom_u32_state(rs) %
					  (mlen - l));
		sge[j].length = cpu_to_le32(l);
	}
	r->rkey = cpu_to_le32(m->key);
	r->remote_addr = cpu_to_le64(m->iova + 8 * (prandom_u32_state(rs) %
						    (mlen / 8 - 300)));
	memcpy(ud->dgid, d->sim->peer->gid, 16);
	ud->dest_qpn = cpu_to_le32(13);
	ud->qkey = cpu_to_le32(0x11111111);
}

/* A user QP's garbage: anything in rings, records and doorbells. */
static void td_garbage(struct td_dev *d, struct td_qp *q, struct td_mr *m,
		       struct rnd_state *rs)
{
	u32 n = prandom_u32_state(rs) % 8 + 1, i, j;

	for (i = 0; i < n; i++) {
		u8 *e = q->sq + ((q->sq_pi & ((1U << TD_Q_LOG) - 1)) <<
				 TD_WQE_SHIFT);
		struct xnic_wqe_ctrl *ctrl = (void *)e;
		struct xnic_sge *sge = (void *)(e + XNIC_WQE_DATA_OFF);

		prandom_bytes_state(rs, e, 1U << TD_WQE_SHIFT);
		ctrl->opcode = prandom_u32_state(rs) % 17;
		if (prandom_u32_state(rs) % 4)
			ctrl->flags &= ~XNIC_WQE_INLINE;
		if (prandom_u32_state(rs) % 4)
			ctrl->num_sge %= 10;
		if (prandom_u32_state(rs) % 2) {
			u32 il = le32_to_cpu(ctrl->inline_len) % 300;

			ctrl->inline_len = cpu_to_le32(il);
		}
		/* SGEs and remote keys that are real, near the MR */
		for (j = 0; j < XNIC_SIM_MAX_SGE; j++) {
			if (prandom_u32_state(rs) % 3 == 0)
				continue;
			sge[j].lkey = cpu_to_le32(m->key);
			sge[j].addr = cpu_to_le64(m->iova - 64 +
						  prandom_u32_state(rs) %
						  (3 * PAGE_SIZE));
			sge[j].length = cpu_to_le32(prandom_u32_state(rs) %
						    (2 * PAGE_SIZE));
		}
		if (prandom_u32_state(rs) % 2) {
			struct xnic_wqe_remote *r = (void *)(e +
						XNIC_WQE_REMOTE_OFF);

			r->rkey = cpu_to_le32(m->key);
			r->remote_addr = sge[0].addr;
		}
		if (prandom_u32_state(rs) % 2) {
			struct xnic_wqe_ud *ud = (void *)(e + XNIC_WQE_UD_OFF);

			memcpy(ud->dgid, d->sim->peer->gid, 16);
			ud->dest_qpn = cpu_to_le32(10 +
						   prandom_u32_state(rs) % 4);
		}
		if (prandom_u32_state(rs) % 2)
			td_plausible(d, e, m, rs);
		dma_wmb();	/* the entry before its owner */
		ctrl->owner = prandom_u32_state(rs) % 8 ? (q->sq_pi >> TD_Q_LOG)
							  & 1 : 0xff;
		q->sq_pi++;
	}
	/* receive side */
	for (i = 0; i < 4; i++) {
		u8 *e = q->rq + ((q->rq_pi & ((1U << TD_Q_LOG) - 1)) <<
				 TD_WQE_SHIFT);
		struct xnic_rwqe *h = (void *)e;
		struct xnic_sge *sge = (void *)(h + 1);

		prandom_bytes_state(rs, e, 1U << TD_WQE_SHIFT);
		h->num_sge %= 12;
		for (j = 0; j < XNIC_SIM_MAX_SGE; j++) {
			sge[j].lkey = cpu_to_le32(m->key);
			sge[j].addr = cpu_to_le64(m->iova - 64 +
						  prandom_u32_state(rs) %
						  (3 * PAGE_SIZE));
			sge[j].length = cpu_to_le32(prandom_u32_state(rs) %
						    PAGE_SIZE);
		}
		if (prandom_u32_state(rs) % 2) {
			/* a receive that fits in the MR */
			h->num_sge = prandom_u32_state(rs) % 3;
			for (j = 0; j < h->num_sge; j++) {
				u32 l = prandom_u32_state(rs) % 3000;

				sge[j].addr = cpu_to_le64(m->iova +
						prandom_u32_state(rs) %
						(PAGE_SIZE - 256));
				sge[j].length = cpu_to_le32(l);
			}
		}
		dma_wmb();	/* the entry before its owner */
		h->owner = (q->rq_pi >> TD_Q_LOG) & 1;
		q->rq_pi++;
	}
	switch (prandom_u32_state(rs) % 8) {
	case 0:
		q->rec->sq_pi = cpu_to_le32(prandom_u32_state(rs));
		break;
	case 1:
		q->rec->rq_pi = cpu_to_le32(prandom_u32_state(rs));
		break;
	default:
		WRITE_ONCE(q->rec->sq_pi, cpu_to_le32(q->sq_pi));
		WRITE_ONCE(q->rec->rq_pi, cpu_to_le32(q->rq_pi));
		break;
	}
	/* doorbell bits of slots with and without a QP */
	for (i = 0; i < 3; i++) {
		u32 slot = prandom_u32_state(rs) % XNIC_DB_SLOTS;

		td_ring(d, 1, prandom_u32_state(rs) % 2 ? q->slot : slot);
	}
	if (prandom_u32_state(rs) % 4 == 0)
		prandom_bytes_state(rs, d->db[1]->summary,
				    sizeof(d->db[1]->summary));
	td_wr(d, XNIC_REG_KICK, 1);
}

static void dev_fuzz(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct td_cq *cq[2];
	struct td_qp *q[2][4];
	struct td_mr *m[2];
	struct rnd_state rs;
	struct xnic_cqe e;
	int i, j, round;

	prandom_seed_state(&rs, 42);
	for (i = 0; i < 2; i++) {
		struct td_dev *d = &c->dev[i];

		cq[i] = td_cq(d, 1, 6, true);
		m[i] = td_mr(d, 0x77 << 8 | 1, 7, TD_ACCESS, 2, 0x40000100,
			     true);
		for (j = 0; j < 4; j++)
			q[i][j] = td_qp(d, 10 + j,
					j == 3 ? XNIC_QPT_UD :
					j == 2 ? XNIC_QPT_UC :
					XNIC_QPT_RC,
					7, cq[i], cq[i], 1, 100 + j,
					XNIC_NO_SRQ);
	}
	for (round = 0; round < 300; round++) {
		i = prandom_u32_state(&rs) % 2;
		j = prandom_u32_state(&rs) % 4;
		if (round % 5 == 0) {
			struct xnic_cmd_modify_qp mq = {};
			int a, b;

			for (a = 0; a < 2; a++) {
				for (b = 0; b < 4; b++) {
					td_modify(q[a][b], &mq,
						  XNIC_QPS_RESET, 0);
					q[a][b]->sq_pi = 0;
					q[a][b]->rq_pi = 0;
				}
			}
			for (a = 0; a < 2; a++)
				for (b = 0; b < 4; b++)
					td_connect(q[a][b],
						   b == 3 ? NULL : q[!a][b],
						   prandom_u32_state(&rs) % 8);
		}
		td_garbage(&c->dev[i], q[i][j], m[i], &rs);
		/* garbage in the CQ records too, now and then */
		if (prandom_u32_state(&rs) % 16 == 0)
			td_arm(cq[i], prandom_u32_state(&rs) % 4);
		while (td_poll(cq[i], &e, 0))
			;
		if (round % 10 == 0)
			usleep_range(100, 1000);
	}
	msleep(100);
	for (i = 0; i < 2; i++) {
		struct td_dev *d = &c->dev[i];

		kunit_info(test, "dev %d: doorbells %llu bad %llu, sends %llu writes %llu reads %llu atomics %llu, errors: loc_qp_op %llu loc_prot %llu loc_len %llu rem_access %llu rem_inv_req %llu flush %llu, rnr %llu retries %llu cq_overruns %llu\n",
			   i, td_ctr(d, XS_CTR_doorbells),
			   td_ctr(d, XS_CTR_bad_doorbells),
			   td_ctr(d, XS_CTR_tx_send) +
			   td_ctr(d, XS_CTR_tx_send_imm) +
			   td_ctr(d, XS_CTR_tx_send_inv),
			   td_ctr(d, XS_CTR_tx_rdma_write) +
			   td_ctr(d, XS_CTR_tx_rdma_write_imm),
			   td_ctr(d, XS_CTR_tx_rdma_read),
			   td_ctr(d, XS_CTR_tx_cmp_swap) +
			   td_ctr(d, XS_CTR_tx_fetch_add),
			   td_ctr(d, XS_CTR_err_loc_qp_op),
			   td_ctr(d, XS_CTR_err_loc_prot),
			   td_ctr(d, XS_CTR_err_loc_len),
			   td_ctr(d, XS_CTR_err_rem_access),
			   td_ctr(d, XS_CTR_err_rem_inv_req),
			   td_ctr(d, XS_CTR_err_flush),
			   td_ctr(d, XS_CTR_rnr_naks),
			   td_ctr(d, XS_CTR_retries),
			   td_ctr(d, XS_CTR_cq_overruns));
	}
	/* the devices still work after a reset */
	for (i = 0; i < 2; i++)
		td_up(&c->dev[i]);
	KUNIT_EXPECT_EQ(test, c->dev[0].sim->qps.count, 0U);
	td_rc_ops(test, &c->dev[0], &c->dev[1], 16);
}

/*
 * Reset and deregistration racing with the peer's operations on the
 * objects they drop: the memory is freed as soon as the command (or the
 * reset write) returns, so any later access is a KASAN report.
 */
static void dev_teardown_race(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct td_dev *d0 = &c->dev[0], *d1 = &c->dev[1];
	struct td_cq *acq = td_cq(d0, 1, 8, false);
	struct td_qp *a = td_qp(d0, 2, XNIC_QPT_RC, TD_PD, acq, acq, 0, 0,
				XNIC_NO_SRQ);
	const u32 posted = (1U << TD_Q_LOG) - 1;
	u32 len = 4 * PAGE_SIZE, round, i, failed = 0, cut = 0;
	u8 *src = kunit_kzalloc(test, len, GFP_KERNEL);
	u64 writes = td_ctr(d0, XS_CTR_tx_rdma_write);
	struct xnic_cqe e;

	KUNIT_ASSERT_NOT_NULL(test, src);
	for (round = 0; round < 12; round++) {
		struct td_cq *bcq = td_cq(d1, 1, 8, false);
		struct td_qp *b = td_qp(d1, 3, XNIC_QPT_RC, TD_PD, bcq,
					bcq, 0, 0, XNIC_NO_SRQ);
		struct td_mr *m = td_mr(d1, 0x50 << 8, TD_PD, TD_ACCESS, 4,
					0x20000000, false);
		struct xnic_cmd_modify_qp mq = {};
		struct xnic_cmd_dereg_mr dm = { .key = cpu_to_le32(m->key) };
		struct td_wr w = {};
		u64 done0 = td_ctr(d0, XS_CTR_tx_rdma_write);
		unsigned long end;
		u32 acct, errs = 0;

		td_modify(a, &mq, XNIC_QPS_RESET, 0);
		memset(a->rec, 0, sizeof(*a->rec));
		memset(a->sq, 0, 1U << (TD_Q_LOG + TD_WQE_SHIFT));
		a->sq_pi = 0;
		td_connect(a, b, 1);
		td_connect(b, a, 1);
		w.op = XNIC_OP_RDMA_WRITE;
		w.raddr = m->iova;
		w.rkey = m->key;
		w.nsge = 1;
		w.sge[0] = td_sge(td_pa(src), len, TD_ALL_KEY);
		for (i = 0; i < posted; i++) {
			w.wr_id = i;
			w.flags = i == 0 ? XNIC_WQE_SIGNALED : 0;
			td_post(a, &w);
		}
		/* the first write is through: the rest is in flight */
		td_expect(acq, 0, 0, XNIC_CQE_OP_RDMA_WRITE, NULL);
		if (round % 2) {
			td_want(d1, XNIC_CMD_DEREG_MR, &dm, sizeof(dm),
				XNIC_CMD_OK);
		} else {
			td_reset(d1);
		}
		for (i = 0; i < m->npages; i++)
			__free_page(m->pg[i]);
		/*
		 * Each of the rest either made it before the teardown (an
		 * unsignaled success, counted by the device) or completes
		 * in error (the failing one, then flushes); none is lost.
		 * Where the teardown fell is timing and is only reported.
		 */
		end = jiffies + msecs_to_jiffies(5000);
		for (;;) {
			acct = td_ctr(d0, XS_CTR_tx_rdma_write) - done0 + errs;
			if (acct >= posted || time_after(jiffies, end))
				break;
			if (td_poll(acq, &e, 10)) {
				KUNIT_EXPECT_NE(test, e.status,
						XNIC_CQE_SUCCESS);
				errs++;
			}
		}
		KUNIT_EXPECT_EQ_MSG(test, acct, posted, "round %u", round);
		KUNIT_EXPECT_FALSE(test, td_poll(acq, &e, 10));
		failed += errs;
		cut += errs > 0;
		td_up(d1);
	}
	kunit_info(test, "%llu of %u writes done, %u completions in error, teardown cut %u of 12 rounds short\n",
		   td_ctr(d0, XS_CTR_tx_rdma_write) - writes, 12 * posted,
		   failed, cut);
}

/* Wait (up to 2 s) until the engine announced that it sleeps. */
static bool td_wait_asleep(struct td_dev *d, u32 dbi)
{
	unsigned long end = jiffies + 2 * HZ;

	while (!(le32_to_cpu(READ_ONCE(d->db[dbi]->flags)) &
		 XNIC_DB_NEED_WAKEUP)) {
		if (time_after(jiffies, end))
			return false;
		usleep_range(100, 200);
	}
	return true;
}

/*
 * A KICK written from process context while the engine sleeps is served
 * in the writer's context: the completion is in the CQ when the register
 * write returns.  (The engine may be inside a pass when the writer comes,
 * then the kick wakes it as before; of five tries at least one must be
 * served in place.)  With kick_run off, the kick wakes the engine, which
 * serves it.
 */
static void dev_kick_serve(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct td_dev *d = &c->dev[0];
	struct td_cq *cq = td_cq(d, 1, 4, false);
	struct td_qp *a = td_qp(d, 2, XNIC_QPT_RC, TD_PD, cq, cq, 0, 0,
				XNIC_NO_SRQ);
	struct td_wr w = { .op = XNIC_OP_NOP, .flags = XNIC_WQE_SIGNALED };
	u64 runs;
	struct xnic_cqe e;
	int i, served = 0;

	td_connect(a, a, 1);
	for (i = 0; i < 5; i++) {
		KUNIT_ASSERT_TRUE(test, td_wait_asleep(d, 0));
		runs = td_ctr(d, XS_CTR_writer_runs);
		w.wr_id = 0x100 + i;
		td_post(a, &w);		/* sees NEED_WAKEUP: kicks */
		if (td_ctr(d, XS_CTR_writer_runs) != runs) {
			KUNIT_EXPECT_TRUE_MSG(test, td_peek(cq, &e),
					      "kick serve without its completion");
			served++;
		} else {
			KUNIT_EXPECT_TRUE(test, td_poll(cq, &e, 1000));
		}
		KUNIT_EXPECT_EQ(test, le64_to_cpu(e.wr_id), 0x100ULL + i);
		KUNIT_EXPECT_EQ(test, e.status, XNIC_CQE_SUCCESS);
	}
	KUNIT_EXPECT_GT(test, served, 0);

	WRITE_ONCE(xnic_sim_kick_serve_on, false);
	KUNIT_ASSERT_TRUE(test, td_wait_asleep(d, 0));
	runs = td_ctr(d, XS_CTR_writer_runs);
	w.wr_id = 0x200;
	td_post(a, &w);
	KUNIT_EXPECT_TRUE(test, td_poll(cq, &e, 1000));
	KUNIT_EXPECT_EQ(test, le64_to_cpu(e.wr_id), 0x200ULL);
	/*
	 * The engine thread served it.  (Not necessarily after a counted
	 * wakeup: NEED_WAKEUP is set before the engine sleeps, and a kick
	 * before it does keeps it awake, or ends a yield.)
	 */
	KUNIT_EXPECT_EQ(test, td_ctr(d, XS_CTR_writer_runs), runs);
	/* td_exit() restores xnic_sim_kick_serve_on */
}

/* CQEs the device wrote from ci on, not consumed (any context). */
static u32 td_cq_count(struct td_cq *cq)
{
	u32 n, size = 1U << cq->log;

	for (n = 0; n < size; n++) {
		u32 i = cq->ci + n;
		struct xnic_cqe *e = &cq->ring[i & (size - 1)];

		if ((READ_ONCE(e->owner) & 1) != (((i >> cq->log) & 1) ^ 1))
			break;
	}
	return n;
}

/* Post a send WQE and announce it in the doorbell page, without a kick. */
static void td_post_quiet(struct td_qp *q, const struct td_wr *w)
{
	td_write_wqe(q, w);
	dma_wmb();	/* the entries before the producer index */
	WRITE_ONCE(q->rec->sq_pi, cpu_to_le32(q->sq_pi));
	td_ring_bits(q->d, q->dbi, q->slot);
}

/* Take @n CQEs with status 0 (any wr_id), within the test timeout. */
static void td_drain(struct td_cq *cq, u32 n)
{
	struct kunit *test = cq->d->test;
	struct xnic_cqe e;
	u32 i;

	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_TRUE_MSG(test, td_poll(cq, &e, TD_TIMEOUT_MS),
				      "CQE %u of %u missing", i, n);
		KUNIT_EXPECT_EQ(test, e.status, XNIC_CQE_SUCCESS);
	}
}

/* What the model's test hook saw (kick serves of th.dev only). */
static struct {
	struct xnic_sim_dev *dev;
	struct td_cq *cq[2];
	u32 start[2];		/* td_cq_count() when a kick serve began */
	u32 slice[2];		/* ... and when it ended */
	u32 serves;		/* kick serves seen */
	u32 bad_ctx;		/* serves holding exec_lock while preemptible */
	struct task_struct *stall;	/* parked at XS_HOOK_SERVE_AFTER */
	bool parked;
	struct completion release;
} th;

static void td_hook(struct xnic_sim_dev *dev, enum xnic_sim_hook where)
{
	int i;

	if (dev != th.dev)
		return;
	switch (where) {
	case XS_HOOK_SERVE_START:
		for (i = 0; i < 2; i++)
			th.start[i] = th.cq[i] ? td_cq_count(th.cq[i]) : 0;
		break;
	case XS_HOOK_SERVE_END:
		for (i = 0; i < 2; i++)
			th.slice[i] = th.cq[i] ? td_cq_count(th.cq[i]) : 0;
		if (!mutex_is_locked(&dev->exec_lock) ||
		    (IS_ENABLED(CONFIG_PREEMPT_COUNT) && preemptible()))
			th.bad_ctx++;
		th.serves++;
		break;
	case XS_HOOK_SERVE_AFTER:
		if (current == th.stall && !READ_ONCE(th.parked)) {
			WRITE_ONCE(th.parked, true);
			wait_for_completion(&th.release);
		}
		break;
	}
}

static void td_hook_on(struct td_dev *d, struct td_cq *c0, struct td_cq *c1)
{
	memset(&th, 0, sizeof(th));
	init_completion(&th.release);
	th.dev = d->sim;
	th.cq[0] = c0;
	th.cq[1] = c1;
	WRITE_ONCE(xnic_sim_test_hook, td_hook);
}

/*
 * A kick serves the work of the writer's own doorbell page, nobody else's:
 * context B's WQE, announced in its page but not kicked, is not executed
 * by context A's kick serve (the hook looks while the run holds exec_lock,
 * so the engine thread cannot have run it meanwhile).  Every kick serve
 * holds exec_lock with preemption disabled.  Both WQEs complete in the
 * end, by whoever runs them.
 */
static void dev_kick_own(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct td_dev *d = &c->dev[0];
	struct td_cq *ca = td_cq(d, 1, 4, false), *cb = td_cq(d, 2, 4, false);
	struct td_qp *a = td_qp(d, 3, XNIC_QPT_RC, TD_PD, ca, ca, 1, 5,
				XNIC_NO_SRQ);
	struct td_qp *b = td_qp(d, 4, XNIC_QPT_RC, TD_PD, cb, cb, 2, 5,
				XNIC_NO_SRQ);
	struct td_wr w = { .op = XNIC_OP_NOP, .flags = XNIC_WQE_SIGNALED };
	u8 nop = xnic_sim_cqe_opcode(XNIC_OP_NOP);
	int i, seen = 0;

	td_connect(a, a, 1);
	td_connect(b, b, 1);
	td_hook_on(d, ca, cb);
	for (i = 0; i < 20 && seen < 3; i++) {
		u32 serves = th.serves;

		KUNIT_ASSERT_TRUE(test, td_wait_asleep(d, 1));
		w.wr_id = 0x100 + i;
		td_post_quiet(b, &w);	/* context B: announced, no kick */
		td_post_quiet(a, &w);
		td_kick(d, 1);		/* context A's kick */
		/* a run that began with both WQEs pending tells */
		if (th.serves != serves && !th.start[0] && !th.start[1]) {
			seen++;
			KUNIT_EXPECT_EQ_MSG(test, th.slice[1], 0U,
					    "A's kick ran B's WQE");
			KUNIT_EXPECT_EQ_MSG(test, th.slice[0], 1U,
					    "A's kick did not run A's WQE");
		}
		td_kick(d, 2);		/* B's own kick */
		td_expect(ca, 0x100 + i, 0, nop, NULL);
		td_expect(cb, 0x100 + i, 0, nop, NULL);
	}
	WRITE_ONCE(xnic_sim_test_hook, NULL);
	KUNIT_EXPECT_GT(test, seen, 0);
	KUNIT_EXPECT_GT(test, th.serves, 0U);
	KUNIT_EXPECT_EQ_MSG(test, th.bad_ctx, 0U,
			    "a kick serve held exec_lock preemptible");
}

/*
 * A kick serve is bounded: with 4 QPs of 30 WQEs each announced, it runs
 * at most XNIC_SIM_KICK_WQES of them; a SEND larger than a kick's byte
 * budget is not run by the kick at all.  The engine thread runs the rest:
 * every WQE completes.
 */
static void dev_kick_bounded(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct td_dev *d = &c->dev[0];
	struct td_cq *cq = td_cq(d, 1, 8, false);
	struct td_wr w = { .op = XNIC_OP_NOP, .flags = XNIC_WQE_SIGNALED };
	const u32 big = XNIC_SIM_KICK_BYTES + 1;
	struct td_qp *q[4];
	u64 sdma, rdma;
	int i, j, tries, seen = 0;

	for (i = 0; i < 4; i++) {
		q[i] = td_qp(d, 10 + i, XNIC_QPT_RC, TD_PD, cq, cq, 1, i,
			     XNIC_NO_SRQ);
		td_connect(q[i], q[i], 1);
	}
	td_hook_on(d, cq, NULL);
	for (tries = 0; tries < 5 && !seen; tries++) {
		u32 serves = th.serves;

		KUNIT_ASSERT_TRUE(test, td_wait_asleep(d, 1));
		for (i = 0; i < 4; i++)
			for (j = 0; j < 30; j++)
				td_post_quiet(q[i], &w);
		td_kick(d, 1);
		if (th.serves != serves && !th.start[0]) {
			seen++;
			KUNIT_EXPECT_GT(test, th.slice[0], 0U);
			KUNIT_EXPECT_LE(test, th.slice[0],
					(u32)XNIC_SIM_KICK_WQES);
		}
		td_drain(cq, 4 * 30);
	}
	KUNIT_EXPECT_GT(test, seen, 0);

	/* one SEND over the kick's byte budget: for the engine thread */
	td_dma(test, 2 * big, &sdma);
	td_dma(test, 2 * big, &rdma);
	for (seen = 0, tries = 0; tries < 5 && !seen; tries++) {
		struct xnic_sge sge = td_sge(rdma, 2 * big, TD_ALL_KEY);
		u32 serves = th.serves;

		td_post_recv(q[0], 0x200 + tries, &sge, 1);
		KUNIT_ASSERT_TRUE(test, td_wait_asleep(d, 1));
		w = (struct td_wr) { .op = XNIC_OP_SEND, .nsge = 1,
				     .flags = XNIC_WQE_SIGNALED,
				     .wr_id = 0x300 + tries };
		w.sge[0] = td_sge(sdma, big, TD_ALL_KEY);
		td_post_quiet(q[0], &w);
		td_kick(d, 1);
		if (th.serves != serves && !th.start[0]) {
			seen++;
			KUNIT_EXPECT_EQ_MSG(test, th.slice[0], 0U,
					    "a kick ran a %u-byte SEND", big);
		}
		td_drain(cq, 2);	/* the SEND and its receive */
	}
	WRITE_ONCE(xnic_sim_test_hook, NULL);
	KUNIT_EXPECT_GT(test, seen, 0);
	KUNIT_EXPECT_EQ(test, th.bad_ctx, 0U);
}

static int td_stall_fn(void *arg)
{
	struct td_dev *d = arg;

	/* kick until a kick serve parks in the hook, then wait to be stopped */
	while (!kthread_should_stop()) {
		if (!READ_ONCE(th.parked))
			td_kick(d, 1);
		usleep_range(100, 200);
	}
	return 0;
}

/*
 * A writer parked in a kick serve -- where a preempted, SCHED_IDLE or
 * throttled process can be parked for as long as the scheduler likes --
 * does not hold up commands: one written meanwhile is executed by the
 * engine thread.
 */
static void dev_kick_stall(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct td_dev *d = &c->dev[0];
	struct xnic_cmd *cmd = &d->cmdq[d->cmd_pi & ((1U << TD_CMDQ_LOG) - 1)];
	unsigned long end = jiffies + msecs_to_jiffies(TD_TIMEOUT_MS);
	struct task_struct *t;
	bool parked, done;

	td_hook_on(d, NULL, NULL);
	t = kthread_create(td_stall_fn, d, "td_stall");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	get_task_struct(t);
	th.stall = t;
	wake_up_process(t);
	while (!(parked = READ_ONCE(th.parked)) && time_before(jiffies, end))
		usleep_range(100, 200);

	/* a command while the writer is parked */
	memset(cmd, 0, sizeof(*cmd));
	cmd->hdr.opcode = XNIC_CMD_QUERY_CAPS;
	cmd->hdr.token = cpu_to_le32(++d->token);
	d->cmd_pi++;
	wmb();	/* the entry before the producer index */
	td_wr(d, XNIC_REG_CMDQ_PI, d->cmd_pi);
	end = jiffies + msecs_to_jiffies(TD_TIMEOUT_MS);
	while (!(done = READ_ONCE(cmd->hdr.done)) && time_before(jiffies, end))
		usleep_range(100, 200);

	/* let the writer go, whatever happened */
	complete(&th.release);
	kthread_stop(t);
	put_task_struct(t);
	WRITE_ONCE(xnic_sim_test_hook, NULL);
	KUNIT_EXPECT_TRUE_MSG(test, parked, "no kick serve was parked");
	KUNIT_EXPECT_TRUE_MSG(test, done,
			      "a command waited for a parked kick writer");
	end = jiffies + msecs_to_jiffies(TD_TIMEOUT_MS);
	while (!READ_ONCE(cmd->hdr.done) && time_before(jiffies, end))
		usleep_range(100, 200);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cmd->hdr.status), (u32)XNIC_CMD_OK);
}

/*
 * An engine pass is bounded: run under exec_lock (the test holds it, so
 * the engine thread waits), a data pass with a budget of 20 WQEs runs 20
 * of the 4 x 30 announced, and the next pass starts with the QPs this one
 * did not reach (round robin).  The byte budget: of six 1 MiB SENDs, one
 * pass runs XNIC_SIM_PASS_BYTES worth.  The engine thread runs the rest.
 */
static void dev_pass_budget(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct td_dev *d = &c->dev[0];
	struct xnic_sim_dev *sim = d->sim;
	struct td_wr w = { .op = XNIC_OP_NOP, .flags = XNIC_WQE_SIGNALED };
	struct xnic_sim_budget b = { .wqes = 20, .bytes = U64_MAX };
	struct td_cq *cq[4], *rcq;
	struct td_qp *q[4];
	u32 n[4], m[4], sends, i, j;
	u64 next = U64_MAX, sdma, rdma;
	bool work;

	for (i = 0; i < 4; i++) {
		cq[i] = td_cq(d, 1 + i, 6, false);
		q[i] = td_qp(d, 10 + i, XNIC_QPT_RC, TD_PD, cq[i], cq[i],
			     1, i, XNIC_NO_SRQ);
		td_connect(q[i], q[i], 1);
	}
	mutex_lock(&sim->exec_lock);
	for (i = 0; i < 4; i++)
		for (j = 0; j < 30; j++)
			td_post_quiet(q[i], &w);
	work = xnic_sim_pass_data(sim, &next, &b);
	for (i = 0; i < 4; i++)
		n[i] = td_cq_count(cq[i]);
	b = (struct xnic_sim_budget) { .wqes = 20, .bytes = U64_MAX };
	xnic_sim_pass_data(sim, &next, &b);
	for (i = 0; i < 4; i++)
		m[i] = td_cq_count(cq[i]) - n[i];
	mutex_unlock(&sim->exec_lock);
	td_wr(d, XNIC_REG_KICK, XNIC_KICK_WAKE);
	KUNIT_EXPECT_TRUE(test, work);
	KUNIT_EXPECT_EQ(test, n[0] + n[1] + n[2] + n[3], 20U);
	KUNIT_EXPECT_EQ(test, n[0], (u32)XNIC_SIM_QP_BUDGET);
	KUNIT_EXPECT_EQ(test, m[0] + m[1] + m[2] + m[3], 20U);
	KUNIT_EXPECT_EQ_MSG(test, m[2], (u32)XNIC_SIM_QP_BUDGET,
			    "the second pass did not start where the first stopped");
	for (i = 0; i < 4; i++)
		td_drain(cq[i], 30);

	/* bytes */
	rcq = td_cq(d, 9, 6, false);
	q[0] = td_qp(d, 20, XNIC_QPT_RC, TD_PD, cq[0], rcq, 1, 20,
		     XNIC_NO_SRQ);
	td_connect(q[0], q[0], 1);
	td_dma(test, SZ_1M, &sdma);
	td_dma(test, SZ_1M, &rdma);
	w = (struct td_wr) { .op = XNIC_OP_SEND, .nsge = 1,
			     .flags = XNIC_WQE_SIGNALED };
	w.sge[0] = td_sge(sdma, SZ_1M, TD_ALL_KEY);
	mutex_lock(&sim->exec_lock);
	for (i = 0; i < 6; i++) {
		struct xnic_sge sge = td_sge(rdma, SZ_1M, TD_ALL_KEY);

		td_post_recv(q[0], i, &sge, 1);
		td_post_quiet(q[0], &w);
	}
	xnic_sim_pass_budget(&b);
	work = xnic_sim_pass_data(sim, &next, &b);
	sends = td_cq_count(cq[0]);
	mutex_unlock(&sim->exec_lock);
	td_wr(d, XNIC_REG_KICK, XNIC_KICK_WAKE);
	KUNIT_EXPECT_TRUE(test, work);
	KUNIT_EXPECT_EQ(test, sends, (u32)(XNIC_SIM_PASS_BYTES / SZ_1M));
	td_drain(cq[0], 6);
	td_drain(rcq, 6);
}

/*
 * Doorbell bits with nothing valid behind them -- a slot without a QP, a
 * QP with nothing posted, a QP in ERR with nothing to flush -- are taken
 * and counted, but are no work: the pass says so, and so does the look
 * before sleeping, so the engine may sleep however often they ring.
 */
static void dev_db_hostile(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct td_dev *d = &c->dev[0];
	struct xnic_sim_dev *sim = d->sim;
	struct td_cq *cq = td_cq(d, 1, 4, false);
	struct td_qp *a = td_qp(d, 3, XNIC_QPT_RC, TD_PD, cq, cq, 1, 3,
				XNIC_NO_SRQ);
	struct td_qp *e = td_qp(d, 4, XNIC_QPT_RC, TD_PD, cq, cq, 1, 4,
				XNIC_NO_SRQ);
	struct xnic_cmd_modify_qp m = {};
	struct xnic_sim_budget b;
	struct xnic_sim_qp *sa, *se;
	struct xnic_wqe_ctrl *ctrl;
	struct td_wr nop = { .op = XNIC_OP_NOP, .flags = XNIC_WQE_SIGNALED };
	u64 next = U64_MAX, bad, dbs;
	bool work;
	int round, s;

	td_connect(a, a, 1);
	KUNIT_ASSERT_EQ(test, td_modify(e, &m, XNIC_QPS_ERR, 0),
			(u32)XNIC_CMD_OK);
	sa = xnic_sim_tbl_get(&sim->qps, 3);
	se = xnic_sim_tbl_get(&sim->qps, 4);
	KUNIT_ASSERT_NOT_NULL(test, sa);
	KUNIT_ASSERT_NOT_NULL(test, se);
	mutex_lock(&sim->exec_lock);
	/* whatever was pending (the ERR QP's first flush) */
	xnic_sim_pass_budget(&b);
	xnic_sim_pass_data(sim, &next, &b);
	for (round = 0; round < 3; round++) {
		bad = td_ctr(d, XS_CTR_bad_doorbells);
		dbs = td_ctr(d, XS_CTR_doorbells);
		td_ring_bits(d, 1, 77);		/* no QP */
		td_ring_bits(d, 1, 4096 + 5);	/* no QP, summary word 1 */
		td_ring_bits(d, 1, 3);		/* nothing posted */
		td_ring_bits(d, 1, 4);		/* ERR, nothing to flush */
		xnic_sim_pass_budget(&b);
		work = xnic_sim_pass_data(sim, &next, &b);
		KUNIT_EXPECT_FALSE_MSG(test, work, "round %d", round);
		KUNIT_EXPECT_EQ(test, td_ctr(d, XS_CTR_bad_doorbells) - bad,
				2ULL);
		KUNIT_EXPECT_EQ(test, td_ctr(d, XS_CTR_doorbells) - dbs, 2ULL);
		for (s = 0; s < XNIC_DB_SUMMARY_WORDS; s++)
			KUNIT_EXPECT_EQ(test,
					le64_to_cpu(READ_ONCE(d->db[1]->summary[s])),
					0ULL);
		KUNIT_EXPECT_FALSE(test, sa->on_active);
		KUNIT_EXPECT_FALSE(test, se->on_active);
	}

	/*
	 * The look before sleeping (exec_lock held as the engine holds it
	 * there) takes such bits and finds no reason to stay awake; a WQE
	 * announced but not owned by the device is none either; a real WQE
	 * is one.
	 */
	for (round = 0; round < 3; round++) {
		bad = td_ctr(d, XS_CTR_bad_doorbells);
		td_ring_bits(d, 1, 77);
		td_ring_bits(d, 1, 3);
		td_ring_bits(d, 1, 4);
		preempt_disable();
		work = xnic_sim_recheck_locked(sim);
		preempt_enable();
		KUNIT_EXPECT_FALSE_MSG(test, work, "look %d", round);
		KUNIT_EXPECT_EQ(test, td_ctr(d, XS_CTR_bad_doorbells) - bad,
				1ULL);
		for (s = 0; s < XNIC_DB_SUMMARY_WORDS; s++)
			KUNIT_EXPECT_EQ(test,
					le64_to_cpu(READ_ONCE(d->db[1]->summary[s])),
					0ULL);
	}
	/* sq_pi ahead, the entry's owner not the device's */
	ctrl = (void *)(a->sq + ((a->sq_pi & ((1U << TD_Q_LOG) - 1)) <<
				 TD_WQE_SHIFT));
	WRITE_ONCE(ctrl->owner, ((a->sq_pi >> TD_Q_LOG) & 1) ^ 1);
	WRITE_ONCE(a->rec->sq_pi, cpu_to_le32(a->sq_pi + 1));
	td_ring_bits(d, 1, 3);
	preempt_disable();
	work = xnic_sim_recheck_locked(sim);
	preempt_enable();
	KUNIT_EXPECT_FALSE(test, work);
	WRITE_ONCE(a->rec->sq_pi, cpu_to_le32(a->sq_pi));
	td_post_quiet(a, &nop);
	preempt_disable();
	work = xnic_sim_recheck_locked(sim);
	preempt_enable();
	KUNIT_EXPECT_TRUE_MSG(test, work, "a posted WQE did not count");
	xnic_sim_pass_budget(&b);
	KUNIT_EXPECT_TRUE(test, xnic_sim_pass_data(sim, &next, &b));
	mutex_unlock(&sim->exec_lock);
	td_drain(cq, 1);
}

/* ------------------------------------------------------------------ */
/* The Ethernet function of two cabled devices                         */

#define TE_LOG		2	/* 4 descriptors */
#define TE_BUF		256	/* bytes per buffer, one page per ring */

struct te_ring {
	struct xnic_eth_desc *desc;
	u8 *buf;		/* 1 << TE_LOG buffers of TE_BUF bytes */
	u64 buf_dma;
	u32 pi;
};

struct te_port {
	struct td_dev *d;
	struct te_ring tx;
	struct te_ring rx;
};

static void te_ring_init(struct kunit *test, struct te_port *p,
			 struct te_ring *r, u32 base_lo)
{
	u64 dma;

	r->desc = td_dma(test, sizeof(*r->desc) << TE_LOG, &dma);
	r->buf = td_dma(test, TE_BUF << TE_LOG, &r->buf_dma);
	r->pi = 0;
	td_wr(p->d, base_lo, lower_32_bits(dma));
	td_wr(p->d, base_lo + 4, upper_32_bits(dma));
	td_wr(p->d, base_lo + 8, TE_LOG);
}

/* Post descriptor pi of @r: buffer (pi % size) with @len bytes. */
static void te_post(struct te_port *p, struct te_ring *r, u32 len, u32 reg)
{
	u32 i = r->pi & ((1U << TE_LOG) - 1);

	r->desc[i].addr = cpu_to_le64(r->buf_dma + i * TE_BUF);
	r->desc[i].len = cpu_to_le32(len);
	r->desc[i].status = 0;
	r->pi++;
	wmb();	/* the descriptor before the doorbell */
	td_wr(p->d, reg, r->pi);
}

/* Wait for descriptor @idx of @r to be done; return its status. */
static u8 te_wait(struct kunit *test, struct te_ring *r, u32 idx)
{
	struct xnic_eth_desc *e = &r->desc[idx & ((1U << TE_LOG) - 1)];
	unsigned long end = jiffies + msecs_to_jiffies(TD_TIMEOUT_MS);
	u8 st;

	while (!((st = READ_ONCE(e->status)) & XNIC_ETH_DESC_DONE)) {
		KUNIT_ASSERT_TRUE_MSG(test, time_before(jiffies, end),
				      "descriptor %u not done", idx);
		usleep_range(20, 100);
	}
	dma_rmb();
	return st;
}

/* Wait for a counter of @eth to reach @n (the engine runs apart). */
static void te_wait_ctr(struct kunit *test, const u64 *ctr, u64 n,
			const char *what)
{
	unsigned long end = jiffies + msecs_to_jiffies(TD_TIMEOUT_MS);

	while (READ_ONCE(*ctr) < n) {
		KUNIT_ASSERT_TRUE_MSG(test, time_before(jiffies, end),
				      "%s: %llu, want %llu", what,
				      READ_ONCE(*ctr), n);
		usleep_range(20, 100);
	}
}

/*
 * Frames from device 0 land in device 1's RX ring, never in device 0's;
 * the events come once per arm; lengths, producer indexes and ring
 * registers are checked; no buffer, a small buffer or a disabled ring
 * drops the frame (counted); reset forgets the rings.
 */
static void dev_eth(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct te_port p[2] = { { .d = &c->dev[0] }, { .d = &c->dev[1] } };
	struct xnic_sim_eth *e0 = c->dev[0].sim->eth;
	struct xnic_sim_eth *e1 = c->dev[1].sim->eth;
	u32 on = XNIC_ETH_ST_TX_ON | XNIC_ETH_ST_RX_ON, i, ev_tx, ev_rx;
	struct td_dev *d0 = p[0].d, *d1 = p[1].d;
	u8 st;

	/* identity: the MAC of GUID ...:01, cabled, 4114-byte frames */
	KUNIT_EXPECT_EQ(test, td_rd(d0, XNIC_REG_ETH_MAC_HI), 0x0058U);
	KUNIT_EXPECT_EQ(test, td_rd(d0, XNIC_REG_ETH_MAC_LO), 0x52000001U);
	KUNIT_EXPECT_EQ(test, td_rd(d1, XNIC_REG_ETH_MAC_LO), 0x52000002U);
	KUNIT_EXPECT_EQ(test, td_rd(d0, XNIC_REG_ETH_STATUS),
			(u32)XNIC_ETH_ST_LINK);
	KUNIT_EXPECT_EQ(test, td_rd(d0, XNIC_REG_ETH_MAX_FRAME),
			(u32)XNIC_SIM_ETH_MAX_FRAME);
	/* a port other than 1 has no registers */
	KUNIT_EXPECT_EQ(test, td_rd(d0, XNIC_REG_ETH(2, XNIC_REG_ETH_MAC_LO)),
			0U);

	/* no ring: enabling is ignored; a misaligned one too */
	td_wr(d0, XNIC_REG_ETH_CTRL, XNIC_ETH_CTRL_TX | XNIC_ETH_CTRL_RX);
	KUNIT_EXPECT_EQ(test, td_rd(d0, XNIC_REG_ETH_STATUS) & on, 0U);
	for (i = 0; i < 2; i++) {
		te_ring_init(test, &p[i], &p[i].tx, XNIC_REG_ETH_TX_BASE_LO);
		te_ring_init(test, &p[i], &p[i].rx, XNIC_REG_ETH_RX_BASE_LO);
	}
	td_wr(d0, XNIC_REG_ETH_TX_BASE_LO,
	      td_rd(d0, XNIC_REG_ETH_TX_BASE_LO) + 8);
	td_wr(d0, XNIC_REG_ETH_CTRL, XNIC_ETH_CTRL_TX);
	KUNIT_EXPECT_EQ(test, td_rd(d0, XNIC_REG_ETH_STATUS) & on, 0U);
	td_wr(d0, XNIC_REG_ETH_TX_BASE_LO, lower_32_bits(td_pa(p[0].tx.desc)));
	for (i = 0; i < 2; i++) {
		td_wr(p[i].d, XNIC_REG_ETH_CTRL,
		      XNIC_ETH_CTRL_TX | XNIC_ETH_CTRL_RX);
		KUNIT_ASSERT_EQ(test, td_rd(p[i].d, XNIC_REG_ETH_STATUS) & on,
				on);
	}
	/* the ring registers are fixed while the ring is on */
	td_wr(d0, XNIC_REG_ETH_TX_LOG_SIZE, 5);
	KUNIT_EXPECT_EQ(test, td_rd(d0, XNIC_REG_ETH_TX_LOG_SIZE), (u32)TE_LOG);

	/* one frame 0 -> 1, buffers posted on both sides */
	te_post(&p[0], &p[0].rx, TE_BUF, XNIC_REG_ETH_RX_PI);
	te_post(&p[1], &p[1].rx, TE_BUF, XNIC_REG_ETH_RX_PI);
	te_post(&p[1], &p[1].rx, TE_BUF, XNIC_REG_ETH_RX_PI);
	ev_tx = td_ev(d0, XNIC_EQE_ETH_TX);
	ev_rx = td_ev(d1, XNIC_EQE_ETH_RX);
	td_wr(d0, XNIC_REG_ETH_ARM, XNIC_ETH_ARM_TX);
	td_wr(d1, XNIC_REG_ETH_ARM, XNIC_ETH_ARM_RX);
	for (i = 0; i < 100; i++)
		p[0].tx.buf[i] = i ^ 0x5a;
	te_post(&p[0], &p[0].tx, 100, XNIC_REG_ETH_TX_PI);
	KUNIT_EXPECT_EQ(test, te_wait(test, &p[0].tx, 0), XNIC_ETH_DESC_DONE);
	KUNIT_EXPECT_EQ(test, te_wait(test, &p[1].rx, 0), XNIC_ETH_DESC_DONE);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(p[1].rx.desc[0].len), 100U);
	KUNIT_EXPECT_EQ(test, memcmp(p[1].rx.buf, p[0].tx.buf, 100), 0);
	KUNIT_EXPECT_TRUE(test, td_wait_ev(d0, XNIC_EQE_ETH_TX, ev_tx));
	KUNIT_EXPECT_TRUE(test, td_wait_ev(d1, XNIC_EQE_ETH_RX, ev_rx));
	KUNIT_EXPECT_EQ(test, c->dev[1].ev_data[XNIC_EQE_ETH_RX], 1U);
	/* a port never receives its own frame */
	KUNIT_EXPECT_EQ(test, READ_ONCE(p[0].rx.desc[0].status), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(e0->rx_frames), 0ULL);

	/* disarmed: the next frame posts no event */
	te_post(&p[0], &p[0].tx, 60, XNIC_REG_ETH_TX_PI);
	te_wait(test, &p[0].tx, 1);
	te_wait(test, &p[1].rx, 1);
	KUNIT_EXPECT_EQ(test, td_ev(d0, XNIC_EQE_ETH_TX), ev_tx + 1);
	KUNIT_EXPECT_EQ(test, td_ev(d1, XNIC_EQE_ETH_RX), ev_rx + 1);

	/* bad lengths: refused, not sent */
	te_post(&p[0], &p[0].tx, XNIC_ETH_MIN_FRAME - 1, XNIC_REG_ETH_TX_PI);
	st = te_wait(test, &p[0].tx, 2);
	KUNIT_EXPECT_EQ(test, st, XNIC_ETH_DESC_DONE | XNIC_ETH_DESC_ERR);
	te_post(&p[0], &p[0].tx, XNIC_SIM_ETH_MAX_FRAME + 1,
		XNIC_REG_ETH_TX_PI);
	st = te_wait(test, &p[0].tx, 3);
	KUNIT_EXPECT_EQ(test, st, XNIC_ETH_DESC_DONE | XNIC_ETH_DESC_ERR);
	KUNIT_EXPECT_EQ(test, READ_ONCE(e0->tx_errors), 2ULL);

	/* a producer index more than a ring ahead is ignored */
	td_wr(d0, XNIC_REG_ETH_TX_PI, p[0].tx.pi + (1U << TE_LOG) + 1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(e0->tx_bad_pi), 1ULL);
	KUNIT_EXPECT_EQ(test, READ_ONCE(e0->tx.pi), p[0].tx.pi);

	/* no buffer left on device 1: dropped, counted on both sides */
	te_post(&p[0], &p[0].tx, 80, XNIC_REG_ETH_TX_PI);
	te_wait(test, &p[0].tx, 4);
	te_wait_ctr(test, &e1->rx_drop_nobuf, 1, "rx_drop_nobuf");
	te_wait_ctr(test, &e0->tx_drop_peer, 1, "tx_drop_peer");
	/* a buffer too small: dropped, the buffer stays posted */
	te_post(&p[1], &p[1].rx, 50, XNIC_REG_ETH_RX_PI);
	te_post(&p[0], &p[0].tx, 80, XNIC_REG_ETH_TX_PI);
	te_wait(test, &p[0].tx, 5);
	te_wait_ctr(test, &e1->rx_drop_len, 1, "rx_drop_len");
	KUNIT_EXPECT_EQ(test, READ_ONCE(p[1].rx.desc[2].status), 0);
	te_post(&p[0], &p[0].tx, 50, XNIC_REG_ETH_TX_PI);
	KUNIT_EXPECT_EQ(test, te_wait(test, &p[1].rx, 2), XNIC_ETH_DESC_DONE);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(p[1].rx.desc[2].len), 50U);
	KUNIT_EXPECT_EQ(test, READ_ONCE(e1->rx_frames), 3ULL);

	/* RX off: the write returns with the ring off; frames dropped */
	td_wr(d1, XNIC_REG_ETH_CTRL, XNIC_ETH_CTRL_TX);
	KUNIT_EXPECT_EQ(test, td_rd(d1, XNIC_REG_ETH_STATUS) & on,
			(u32)XNIC_ETH_ST_TX_ON);
	te_post(&p[0], &p[0].tx, 70, XNIC_REG_ETH_TX_PI);
	te_wait(test, &p[0].tx, 7);
	te_wait_ctr(test, &e1->rx_drop_off, 1, "rx_drop_off");

	/* reset forgets both rings and their registers */
	td_reset(d1);
	KUNIT_EXPECT_EQ(test, td_rd(d1, XNIC_REG_ETH_STATUS),
			(u32)XNIC_ETH_ST_LINK);
	KUNIT_EXPECT_EQ(test, td_rd(d1, XNIC_REG_ETH_RX_LOG_SIZE), 0U);
	KUNIT_EXPECT_EQ(test, td_rd(d1, XNIC_REG_ETH_TX_BASE_LO), 0U);
	td_wr(d0, XNIC_REG_ETH_CTRL, 0);
	KUNIT_EXPECT_EQ(test, td_rd(d0, XNIC_REG_ETH_STATUS) & on, 0U);
}

/*
 * QUERY_COUNTERS: min(num, XNIC_CTR_NUM) counters in the PRM's order,
 * the model's own values, nothing past them written; bad input refused.
 */
static void dev_counters(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct td_dev *d = &c->dev[0];
	struct xnic_cmd_query_counters q = {}, out;
	__le64 *buf;
	u64 dma, cqes, cmds;
	u32 i;

	buf = td_dma(test, (XNIC_CTR_NUM + 1) * sizeof(*buf), &dma);
	memset(buf, 0xa5, (XNIC_CTR_NUM + 1) * sizeof(*buf));

	/* the whole set, with room to spare: the extra slot untouched */
	q.buf_addr = cpu_to_le64(td_pa(buf));
	q.num = cpu_to_le32(XNIC_CTR_NUM + 1);
	cmds = td_ctr(d, XS_CTR_commands);
	cqes = td_ctr(d, XS_CTR_cqes);
	KUNIT_ASSERT_EQ(test, td_cmd_out(d, XNIC_CMD_QUERY_COUNTERS, &q,
					 sizeof(q), &out, sizeof(out)),
			(u32)XNIC_CMD_OK);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out.written), (u32)XNIC_CTR_NUM);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(buf[XNIC_CTR_NUM]),
			0xa5a5a5a5a5a5a5a5ULL);
	/* taken before the command counted itself */
	KUNIT_EXPECT_EQ(test, le64_to_cpu(buf[XNIC_CTR_COMMANDS]), cmds);
	KUNIT_EXPECT_EQ(test, td_ctr(d, XS_CTR_commands), cmds + 1);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(buf[XNIC_CTR_CQES]), cqes);
	/* the model's counters are at the PRM's indexes */
	KUNIT_EXPECT_EQ(test, (int)XS_CTR_NUM, (int)XNIC_CTR_NUM);
	for (i = 0; i < XNIC_CTR_NUM; i++) {
		if (i == XNIC_CTR_COMMANDS || i == XNIC_CTR_EQES ||
		    i == XNIC_CTR_IRQS || i == XNIC_CTR_SLEEPS ||
		    i == XNIC_CTR_WAKEUPS || i == XNIC_CTR_YIELDS ||
		    i == XNIC_CTR_WRITER_RUNS)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, le64_to_cpu(buf[i]), td_ctr(d, i),
				    "counter %u", i);
	}

	/* fewer: only those written */
	memset(buf, 0xa5, (XNIC_CTR_NUM + 1) * sizeof(*buf));
	q.num = cpu_to_le32(3);
	KUNIT_ASSERT_EQ(test, td_cmd_out(d, XNIC_CMD_QUERY_COUNTERS, &q,
					 sizeof(q), &out, sizeof(out)),
			(u32)XNIC_CMD_OK);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out.written), 3U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(buf[3]), 0xa5a5a5a5a5a5a5a5ULL);

	/* bad input */
	q.num = 0;
	td_want(d, XNIC_CMD_QUERY_COUNTERS, &q, sizeof(q), XNIC_CMD_BAD_PARAM);
	q.num = cpu_to_le32(1);
	q.buf_addr = 0;
	td_want(d, XNIC_CMD_QUERY_COUNTERS, &q, sizeof(q), XNIC_CMD_BAD_PARAM);
	q.buf_addr = cpu_to_le64(td_pa(buf) + 4);
	td_want(d, XNIC_CMD_QUERY_COUNTERS, &q, sizeof(q), XNIC_CMD_BAD_PARAM);
	q.buf_addr = cpu_to_le64(td_pa(buf));
	q.written = cpu_to_le32(1);
	td_want(d, XNIC_CMD_QUERY_COUNTERS, &q, sizeof(q), XNIC_CMD_BAD_PARAM);
}

/*
 * A CQ re-armed after every CQE, its events never consumed (the driver's
 * CPU stalled, here INTR_MASK set): the device writes at most one
 * COMPLETION event of the CQ until the driver consumes it, so the event
 * queue cannot overrun (it used to: one event per arm, then FATAL).  Once
 * consumed, the next arm fires again.
 */
static void dev_eq_flood(struct kunit *test)
{
	struct td_ctx *c = td_ctx_up(test);
	struct td_dev *d = &c->dev[0];
	struct td_cq *cq = td_cq(d, 5, 6, true);
	struct td_qp *a = td_qp(d, 6, XNIC_QPT_RC, TD_PD, cq, cq, 0, 6,
				XNIC_NO_SRQ);
	struct td_qp *b = td_qp(d, 7, XNIC_QPT_RC, TD_PD, cq, cq, 0, 7,
				XNIC_NO_SRQ);
	u64 iova = 0x7000000000000000ULL;
	struct td_mr *m = td_mr(d, 9 << 8 | 0x33, TD_PD, TD_ACCESS, 1, iova,
				true);
	u8 *src = kunit_kzalloc(test, 64, GFP_KERNEL);
	u32 n = 4U << TD_EQ_LOG, i, ev, pi;
	u64 overruns = td_ctr(d, XS_CTR_eq_overruns);
	struct td_wr w = {};

	KUNIT_ASSERT_NOT_NULL(test, src);
	td_connect(a, b, 3);
	td_connect(b, a, 3);
	w.op = XNIC_OP_RDMA_WRITE;
	w.flags = XNIC_WQE_SIGNALED;
	w.raddr = iova;
	w.rkey = m->key;
	w.nsge = 1;
	w.sge[0] = td_sge(td_pa(src), 8, TD_ALL_KEY);

	ev = td_ev(d, XNIC_EQE_COMPLETION);
	td_wr(d, XNIC_REG_INTR_MASK, 1);
	pi = READ_ONCE(d->sim->eq_pi);
	for (i = 0; i < n; i++) {
		td_arm(cq, XNIC_CQ_ARM_NEXT);
		w.wr_id = i;
		td_post(a, &w);
		td_expect(cq, i, 0, XNIC_CQE_OP_RDMA_WRITE, NULL);
	}
	KUNIT_EXPECT_FALSE(test, td_rd(d, XNIC_REG_STATUS) & XNIC_STATUS_FATAL);
	KUNIT_EXPECT_EQ(test, td_ctr(d, XS_CTR_eq_overruns), overruns);
	/* one event for n arms and CQEs */
	KUNIT_EXPECT_EQ(test, READ_ONCE(d->sim->eq_pi) - pi, 1U);
	td_wr(d, XNIC_REG_INTR_MASK, 0);
	KUNIT_EXPECT_TRUE(test, td_wait_ev(d, XNIC_EQE_COMPLETION, ev));
	KUNIT_EXPECT_EQ(test, td_ev(d, XNIC_EQE_COMPLETION), ev + 1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(d->ev_data[XNIC_EQE_COMPLETION]),
			cq->cqn);

	/* consumed: the next arm fires its own event */
	td_arm(cq, XNIC_CQ_ARM_NEXT);
	w.wr_id = n;
	td_post(a, &w);
	td_expect(cq, n, 0, XNIC_CQE_OP_RDMA_WRITE, NULL);
	KUNIT_EXPECT_TRUE(test, td_wait_ev(d, XNIC_EQE_COMPLETION, ev + 1));
	KUNIT_EXPECT_EQ(test, td_ev(d, XNIC_EQE_COMPLETION), ev + 2);
}

static struct kunit_case dev_cases[] = {
	KUNIT_CASE(dev_clock),
	KUNIT_CASE(dev_cmds),
	KUNIT_CASE(dev_counters),
	KUNIT_CASE(dev_rc),
	KUNIT_CASE(dev_ud),
	KUNIT_CASE(dev_gid),
	KUNIT_CASE(dev_gsi),
	KUNIT_CASE(dev_errors),
	KUNIT_CASE(dev_fuzz),
	KUNIT_CASE(dev_teardown_race),
	KUNIT_CASE(dev_kick_serve),
	KUNIT_CASE(dev_kick_own),
	KUNIT_CASE(dev_kick_bounded),
	KUNIT_CASE(dev_kick_stall),
	KUNIT_CASE(dev_pass_budget),
	KUNIT_CASE(dev_db_hostile),
	KUNIT_CASE(dev_eth),
	KUNIT_CASE(dev_eq_flood),
	{}
};

static struct kunit_suite dev_suite = {
	.name = "xnic_sim_dev",
	.init = td_init,
	.exit = td_exit,
	.test_cases = dev_cases,
};

kunit_test_suites(&ring_suite, &wqe_suite, &mr_suite, &tbl_suite,
		  &port_suite, &dev_suite);
