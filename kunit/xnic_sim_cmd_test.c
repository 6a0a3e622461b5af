// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite xnic_sim_cmd: the device model's command queue on two cabled
 * devices with their engines (kunit/xnic_sim_dev_fixture.h): the CLOCK
 * register, command parameters, states, busy objects, limits, reset.
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
#include "xnic_sim_dev_fixture.h"

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
	cq.ring_addr = cpu_to_le64(td_pa(kt_dma(test, PAGE_SIZE, &dma)));
	cq.dbrec_addr = cpu_to_le64(td_pa(kt_dma(test, PAGE_SIZE, &dma)));
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
	m.max_rd_atomic = XNIC_SIM_MAX_RD_ATOM + 1;
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
	db.page_addr = cpu_to_le64(td_pa(kt_dma(test, XNIC_DB_PAGE_SIZE,
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
	mr.mtt_addr = cpu_to_le64(td_pa(kt_dma(test, PAGE_SIZE, &dma)));
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

static struct kunit_case cmd_cases[] = {
	KUNIT_CASE(dev_clock),
	KUNIT_CASE(dev_cmds),
	{}
};

static struct kunit_suite cmd_suite = {
	.name = "xnic_sim_cmd",
	.init = td_init,
	.exit = td_exit,
	.test_cases = cmd_cases,
};

kunit_test_suite(cmd_suite);
