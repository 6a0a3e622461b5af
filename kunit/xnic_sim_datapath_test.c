// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite xnic_sim_datapath: the device model's data path on two
 * cabled devices with their engines (kunit/xnic_sim_dev_fixture.h): every
 * RC opcode in loopback and device to device, UD, the GID table and the
 * GRH, the GSI QP.
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
	KUNIT_EXPECT_EQ(test, kt_ip_sum(rb + 20), 0xffff);
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

static struct kunit_case datapath_cases[] = {
	KUNIT_CASE(dev_rc),
	KUNIT_CASE(dev_ud),
	KUNIT_CASE(dev_gid),
	KUNIT_CASE(dev_gsi),
	{}
};

static struct kunit_suite datapath_suite = {
	.name = "xnic_sim_datapath",
	.init = td_init,
	.exit = td_exit,
	.test_cases = datapath_cases,
};

kunit_test_suite(datapath_suite);
