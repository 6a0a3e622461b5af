// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites of the xnic device model's functions without device state
 * (the model's sources come with kunit/xnic_sim_test.c):
 *   xnic_sim_ring  ring index and owner arithmetic (xnic_sim.h)
 *   xnic_sim_wqe   WQE decoding and validation (xnic_sim_req.c,
 *                  xnic_sim_resp.c), budgets (xnic_sim_engine.c), opcode,
 *                  status and state tables, CQ arming (xnic_sim_cq.c,
 *                  xnic_sim_qp.c), retry delays (xnic_sim_comp.c)
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/io.h>
#include "xnic_sim_fixture.h"

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

/* the opcodes an RC QP takes from user and kernel QPs alike */
struct wqe_op_row {
	u8 op;
	const char *name;
};

#define WQE_OP(op) { op, #op }
static const struct wqe_op_row wqe_rc_ops[] = {
	WQE_OP(XNIC_OP_RDMA_WRITE), WQE_OP(XNIC_OP_RDMA_WRITE_WITH_IMM),
	WQE_OP(XNIC_OP_SEND), WQE_OP(XNIC_OP_SEND_WITH_IMM),
	WQE_OP(XNIC_OP_RDMA_READ), WQE_OP(XNIC_OP_ATOMIC_CMP_AND_SWP),
	WQE_OP(XNIC_OP_ATOMIC_FETCH_AND_ADD), WQE_OP(XNIC_OP_LOCAL_INV),
	WQE_OP(XNIC_OP_SEND_WITH_INV), WQE_OP(XNIC_OP_NOP),
};

static void wqe_op_desc(const struct wqe_op_row *r, char *desc)
{
	strscpy(desc, r->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(wqe_rc_op, wqe_rc_ops, wqe_op_desc);

static void wqe_opcode_rc(struct kunit *test)
{
	const struct wqe_op_row *r = test->param_value;

	KUNIT_EXPECT_EQ(test, xnic_sim_op_check(XNIC_QPT_RC, r->op, false), 0);
	KUNIT_EXPECT_EQ(test, xnic_sim_op_check(XNIC_QPT_RC, r->op, true), 0);
}

static void wqe_opcodes(struct kunit *test)
{
	int i;

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
	KUNIT_CASE_PARAM(wqe_opcode_rc, wqe_rc_op_gen_params),
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

kunit_test_suites(&ring_suite, &wqe_suite);
