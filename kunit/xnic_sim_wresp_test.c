// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite xnic_sim_wresp: the responder of wire QPs
 * (drivers/hw/xnic/sim/xnic_sim_wresp.c, Documentation/xnic/wire.rst,
 * "Responder").  A scripted requester: each case builds request packets
 * (struct xnic_sim_pkt, as xnic_sim_pkt_parse() leaves them) and hands
 * them to xnic_sim_roce_recv() of an engine-less model device, as the
 * wire's RX poll does, ends an engine pass with
 * xnic_sim_wresp_flush_acks(), and reads back what the responder sent
 * (the frames of a fake wire, xnic_sim_wire_attach_fake(), parsed) and
 * what it did to its QP, receive queue, CQ, memory and counters.
 *
 * The model's sources are compiled into this module by
 * kunit/xnic_sim_test.c.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/io.h>
#include <linux/random.h>
#include <linux/etherdevice.h>
#include "xnic_sim_wresp_fixture.h"

/* ------------------------------------------------------------------ */

/*
 * SEND ONLY into a posted receive, then a SEND of three packets with
 * immediate data: data, CQEs, one ACK per ackreq packet of a pass.
 */
static void wresp_send(struct kunit *test)
{
	struct kt_env *e = kt_env(test);
	struct kt_qp *x = kt_qp(e, KT_QPN, XNIC_QPT_RC);
	struct xnic_sim_pkt p;
	struct xnic_cqe *c;

	kt_post_recv(e, x, 0xa1, 0, 256);
	kt_post_recv(e, x, 0xa2, 1024, 4096);
	p = kt_req(e, x, XNIC_SIM_BTH_SEND_ONLY, KT_PSN);
	p.ackreq = true;
	kt_pay(e, &p, 0, 100);
	kt_rx(e, &p);
	KUNIT_EXPECT_EQ(test, kt_cqes(e), 1U);
	c = kt_cqe(e, 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->wr_id), 0xa1ULL);
	KUNIT_EXPECT_EQ(test, c->status, XNIC_CQE_SUCCESS);
	KUNIT_EXPECT_EQ(test, c->opcode, XNIC_CQE_OP_RECV);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->byte_len), 100U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->src_qp), (u32)KT_RQPN);
	KUNIT_EXPECT_EQ(test, memcmp(e->rbuf, e->data, 100), 0);
	KUNIT_EXPECT_EQ(test, kt_out(e), 0U);	/* coalesced: not yet */
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, kt_out(e), 1U);
	kt_expect_ack(e, 0, KT_PSN, KT_ACK, 1);

	/* FIRST, MIDDLE, LAST_IMM: 2 * MTU + 500 bytes */
	p = kt_req(e, x, XNIC_SIM_BTH_SEND_FIRST, KT_PSN + 1);
	kt_pay(e, &p, 1000, KT_MTU);
	kt_rx(e, &p);
	p = kt_req(e, x, XNIC_SIM_BTH_SEND_MIDDLE, KT_PSN + 2);
	kt_pay(e, &p, 1000 + KT_MTU, KT_MTU);
	kt_rx(e, &p);
	KUNIT_EXPECT_EQ(test, kt_cqes(e), 1U);
	p = kt_req(e, x, XNIC_SIM_BTH_SEND_LAST_IMM, KT_PSN + 3);
	kt_pay(e, &p, 1000 + 2 * KT_MTU, 500);
	p.imm = cpu_to_be32(0xdeadbeef);
	p.ackreq = true;
	kt_rx(e, &p);
	KUNIT_EXPECT_EQ(test, kt_cqes(e), 2U);
	c = kt_cqe(e, 1);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->wr_id), 0xa2ULL);
	KUNIT_EXPECT_EQ(test, c->status, XNIC_CQE_SUCCESS);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->byte_len), 2U * KT_MTU + 500);
	KUNIT_EXPECT_TRUE(test, c->flags & XNIC_CQE_WITH_IMM);
	KUNIT_EXPECT_EQ(test, (__force u32)c->imm_data,
			(__force u32)cpu_to_be32(0xdeadbeef));
	KUNIT_EXPECT_EQ(test, memcmp(e->rbuf + 1024, e->data + 1000,
				     2 * KT_MTU + 500), 0);
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, kt_out(e), 1U);
	kt_expect_ack(e, 0, KT_PSN + 3, KT_ACK, 2);
	KUNIT_EXPECT_EQ(test, x->q.rq_psn, (KT_PSN + 4) & 0xffffff);
	KUNIT_EXPECT_EQ(test, x->q.state, XNIC_QPS_RTS);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_rx_send), 2ULL);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_rx_send_bytes),
			100ULL + 2 * KT_MTU + 500);
}

/*
 * A SEND longer than its receive buffer: LOC_LEN_ERR receive completion,
 * NAK invalid request, the QP in ERR; a middle packet of a bad length
 * is an invalid request too.
 */
static void wresp_send_too_long(struct kunit *test)
{
	struct kt_env *e = kt_env(test);
	struct kt_qp *x = kt_qp(e, KT_QPN, XNIC_QPT_RC);
	struct kt_qp *y = kt_qp(e, KT_QPN + 1, XNIC_QPT_RC);
	struct xnic_sim_pkt p;

	kt_post_recv(e, x, 0xa1, 0, 1500);
	p = kt_req(e, x, XNIC_SIM_BTH_SEND_FIRST, KT_PSN);
	kt_pay(e, &p, 0, KT_MTU);
	kt_rx(e, &p);
	p = kt_req(e, x, XNIC_SIM_BTH_SEND_LAST, KT_PSN + 1);
	kt_pay(e, &p, KT_MTU, KT_MTU);
	kt_rx(e, &p);
	KUNIT_EXPECT_EQ(test, kt_cqes(e), 1U);
	KUNIT_EXPECT_EQ(test, kt_cqe(e, 0)->status, XNIC_CQE_LOC_LEN_ERR);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(kt_cqe(e, 0)->wr_id), 0xa1ULL);
	KUNIT_EXPECT_EQ(test, x->q.state, XNIC_QPS_ERR);
	KUNIT_EXPECT_EQ(test, kt_out(e), 1U);
	kt_expect_ack(e, 0, KT_PSN + 1, KT_NAK(XNIC_SIM_NAK_INV_REQ), 0);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_wire_err_naks_sent), 1ULL);

	/* a MIDDLE packet shorter than the MTU */
	kt_post_recv(e, y, 0xb1, 0, 4096);
	p = kt_req(e, y, XNIC_SIM_BTH_SEND_FIRST, KT_PSN);
	kt_pay(e, &p, 0, KT_MTU);
	kt_rx(e, &p);
	p = kt_req(e, y, XNIC_SIM_BTH_SEND_MIDDLE, KT_PSN + 1);
	kt_pay(e, &p, 0, KT_MTU - 4);
	kt_rx(e, &p);
	KUNIT_EXPECT_EQ(test, y->q.state, XNIC_QPS_ERR);
	KUNIT_EXPECT_EQ(test, kt_out(e), 1U);
	kt_expect_ack(e, 0, KT_PSN + 1, KT_NAK(XNIC_SIM_NAK_INV_REQ), 0);
	/* the receive WQE the message held is completed, in error */
	KUNIT_EXPECT_EQ(test, kt_cqes(e), 2U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(kt_cqe(e, 1)->wr_id), 0xb1ULL);
	KUNIT_EXPECT_NE(test, kt_cqe(e, 1)->status, XNIC_CQE_SUCCESS);
}

/* No receive posted: an RNR NAK, nothing consumed; the retry succeeds. */
static void wresp_rnr(struct kunit *test)
{
	struct kt_env *e = kt_env(test);
	struct kt_qp *x = kt_qp(e, KT_QPN, XNIC_QPT_RC);
	struct xnic_sim_pkt p;

	p = kt_req(e, x, XNIC_SIM_BTH_SEND_ONLY, KT_PSN);
	p.ackreq = true;
	kt_pay(e, &p, 0, 64);
	kt_rx(e, &p);
	KUNIT_EXPECT_EQ(test, kt_out(e), 1U);
	kt_expect_ack(e, 0, KT_PSN, XNIC_SIM_AETH_RNR | KT_RNR_TIMER, 0);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_wire_rnr_naks_sent), 1ULL);
	KUNIT_EXPECT_EQ(test, x->q.rq_psn, (u32)KT_PSN);
	KUNIT_EXPECT_EQ(test, x->q.rq_ci, 0U);
	KUNIT_EXPECT_EQ(test, kt_cqes(e), 0U);
	KUNIT_EXPECT_EQ(test, x->q.state, XNIC_QPS_RTS);
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, kt_out(e), 0U);

	kt_post_recv(e, x, 0xa1, 0, 256);
	kt_rx(e, &p);
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, kt_cqes(e), 1U);
	KUNIT_EXPECT_EQ(test, kt_cqe(e, 0)->status, XNIC_CQE_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(e->rbuf, e->data, 64), 0);
	KUNIT_EXPECT_EQ(test, kt_out(e), 1U);
	kt_expect_ack(e, 0, KT_PSN, KT_ACK, 1);
}

/*
 * WRITE of two packets with the right key, then one with a bad key:
 * a remote access NAK, the QP in ERR, memory untouched.
 */
static void wresp_write(struct kunit *test)
{
	struct kt_env *e = kt_env(test);
	struct kt_qp *x = kt_qp(e, KT_QPN, XNIC_QPT_RC);
	struct xnic_sim_pkt p;

	p = kt_req(e, x, XNIC_SIM_BTH_WRITE_FIRST, KT_PSN);
	p.va = KT_MR_IOVA + 100;
	p.rkey = KT_MR_KEY;
	p.dma_len = KT_MTU + 10;
	kt_pay(e, &p, 0, KT_MTU);
	kt_rx(e, &p);
	p = kt_req(e, x, XNIC_SIM_BTH_WRITE_LAST, KT_PSN + 1);
	kt_pay(e, &p, KT_MTU, 10);
	p.ackreq = true;
	kt_rx(e, &p);
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, memcmp(e->p.mr_buf + 100, e->data, KT_MTU + 10),
			0);
	KUNIT_EXPECT_EQ(test, kt_cqes(e), 0U);
	KUNIT_EXPECT_EQ(test, kt_out(e), 1U);
	kt_expect_ack(e, 0, KT_PSN + 1, KT_ACK, 1);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_rx_write), 1ULL);

	memset(e->p.mr_buf, 0, PAGE_SIZE);
	p = kt_req(e, x, XNIC_SIM_BTH_WRITE_ONLY, KT_PSN + 2);
	p.va = KT_MR_IOVA;
	p.rkey = KT_MR_KEY ^ 1;
	p.dma_len = 64;
	p.ackreq = true;
	kt_pay(e, &p, 0, 64);
	kt_rx(e, &p);
	KUNIT_EXPECT_EQ(test, kt_out(e), 1U);
	kt_expect_ack(e, 0, KT_PSN + 2, KT_NAK(XNIC_SIM_NAK_REM_ACCESS), 1);
	KUNIT_EXPECT_EQ(test, x->q.state, XNIC_QPS_ERR);
	KUNIT_EXPECT_NULL(test, memchr_inv(e->p.mr_buf, 0, PAGE_SIZE));
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, kt_out(e), 0U);
	/* in ERR: the next request is dropped, counted */
	p.psn = (KT_PSN + 3) & 0xffffff;
	kt_rx(e, &p);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_wire_drop_noqp), 1ULL);
	KUNIT_EXPECT_EQ(test, kt_out(e), 0U);
}

/*
 * WRITE_ONLY_IMM consumes a receive WQE (none: RNR, nothing written);
 * SEND_ONLY_INV invalidates a fast-registration MR, a bad key is a
 * remote access error.
 */
static void wresp_imm_inv(struct kunit *test)
{
	struct kt_env *e = kt_env(test);
	struct kt_qp *x = kt_qp(e, KT_QPN, XNIC_QPT_RC);
	struct xnic_sim_pkt p;
	struct xnic_cqe *c;

	p = kt_req(e, x, XNIC_SIM_BTH_WRITE_ONLY_IMM, KT_PSN);
	p.va = KT_MR_IOVA;
	p.rkey = KT_MR_KEY;
	p.dma_len = 32;
	p.imm = cpu_to_be32(0x1234);
	kt_pay(e, &p, 0, 32);
	kt_rx(e, &p);
	KUNIT_EXPECT_EQ(test, kt_out(e), 1U);
	kt_expect_ack(e, 0, KT_PSN, XNIC_SIM_AETH_RNR | KT_RNR_TIMER, 0);
	KUNIT_EXPECT_NULL(test, memchr_inv(e->p.mr_buf, 0, PAGE_SIZE));
	kt_post_recv(e, x, 0xa1, 0, 64);
	kt_rx(e, &p);
	KUNIT_EXPECT_EQ(test, memcmp(e->p.mr_buf, e->data, 32), 0);
	KUNIT_EXPECT_EQ(test, kt_cqes(e), 1U);
	c = kt_cqe(e, 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->wr_id), 0xa1ULL);
	KUNIT_EXPECT_EQ(test, c->opcode, XNIC_CQE_OP_RECV_RDMA_WITH_IMM);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->byte_len), 32U);
	KUNIT_EXPECT_EQ(test, (__force u32)c->imm_data,
			(__force u32)cpu_to_be32(0x1234));

	e->p.mr.flags |= XNIC_MR_F_FREG;
	kt_post_recv(e, x, 0xa2, 0, 64);
	p = kt_req(e, x, XNIC_SIM_BTH_SEND_ONLY_INV, KT_PSN + 1);
	p.ieth = KT_MR_KEY;
	p.ackreq = true;
	kt_pay(e, &p, 0, 16);
	kt_rx(e, &p);
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, kt_cqes(e), 2U);
	c = kt_cqe(e, 1);
	KUNIT_EXPECT_EQ(test, c->status, XNIC_CQE_SUCCESS);
	KUNIT_EXPECT_TRUE(test, c->flags & XNIC_CQE_WITH_INV);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->imm_data), (u32)KT_MR_KEY);
	KUNIT_EXPECT_FALSE(test, e->p.mr.valid);
	KUNIT_EXPECT_EQ(test, kt_out(e), 1U);
	kt_expect_ack(e, 0, KT_PSN + 1, KT_ACK, 2);

	/* the key again: no longer valid, a remote access error */
	kt_post_recv(e, x, 0xa3, 0, 64);
	p.psn = (KT_PSN + 2) & 0xffffff;
	p.ieth = KT_MR_KEY ^ 0xff;
	kt_rx(e, &p);
	KUNIT_EXPECT_EQ(test, kt_out(e), 1U);
	kt_expect_ack(e, 0, KT_PSN + 2, KT_NAK(XNIC_SIM_NAK_REM_ACCESS), 2);
	KUNIT_EXPECT_EQ(test, x->q.state, XNIC_QPS_ERR);
	/* the receive WQE it took is flushed */
	KUNIT_EXPECT_EQ(test, kt_cqes(e), 3U);
	KUNIT_EXPECT_EQ(test, kt_cqe(e, 2)->status, XNIC_CQE_WR_FLUSH_ERR);
}

/* Answer @i is a READ response of @len bytes at @psn, @off into the MR. */
static void kt_expect_read(struct kt_env *e, u32 i, u8 op, u32 psn,
			   u32 off, u32 len)
{
	struct kunit *test = e->test;
	const struct xnic_sim_pkt *p = &e->out[i];

	KUNIT_ASSERT_LT(test, i, e->nout);
	KUNIT_EXPECT_EQ_MSG(test, p->opcode, op, "response %u", i);
	KUNIT_EXPECT_EQ_MSG(test, p->psn, psn & 0xffffff, "response %u", i);
	KUNIT_EXPECT_EQ_MSG(test, p->paylen, len, "response %u", i);
	KUNIT_EXPECT_EQ_MSG(test, memcmp(p->payload, e->p.mr_buf + off, len),
			    0, "response %u", i);
}

/*
 * READ of 2.5 MTUs: FIRST, MIDDLE, LAST from the request's PSN on, the
 * MR's bytes; rq_psn past them.  Its duplicate is executed again, memory
 * read anew; one from its second PSN answers from there on.
 */
static void wresp_read(struct kunit *test)
{
	struct kt_env *e = kt_env(test);
	struct kt_qp *x = kt_qp(e, KT_QPN, XNIC_QPT_RC);
	struct xnic_sim_pkt p;
	u32 len = 2 * KT_MTU + 512;

	kt_fill_pattern(e->p.mr_buf, PAGE_SIZE, 3);
	p = kt_read_req(e, x, KT_PSN, KT_MR_IOVA + 8, KT_MR_KEY, len);
	kt_rx(e, &p);
	/* executed: the responses go out at the end of the pass */
	KUNIT_EXPECT_EQ(test, x->q.rq_psn, (KT_PSN + 3) & 0xffffff);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_rx_read), 1ULL);
	KUNIT_EXPECT_EQ(test, kt_out(e), 0U);
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, kt_out(e), 3U);
	kt_expect_read(e, 0, XNIC_SIM_BTH_READ_RESP_FIRST, KT_PSN, 8, KT_MTU);
	kt_expect_read(e, 1, XNIC_SIM_BTH_READ_RESP_MIDDLE, KT_PSN + 1,
		       8 + KT_MTU, KT_MTU);
	kt_expect_read(e, 2, XNIC_SIM_BTH_READ_RESP_LAST, KT_PSN + 2,
		       8 + 2 * KT_MTU, 512);
	KUNIT_EXPECT_EQ(test, e->out[0].syndrome, KT_ACK);
	KUNIT_EXPECT_EQ(test, e->out[0].msn, 1U);
	KUNIT_EXPECT_EQ(test, e->out[2].syndrome, KT_ACK);
	KUNIT_EXPECT_EQ(test, e->out[2].msn, 1U);
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, kt_out(e), 0U);

	/* the duplicate: memory changed since, read again */
	kt_fill_pattern(e->p.mr_buf, PAGE_SIZE, 4);
	kt_rx(e, &p);
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, kt_out(e), 3U);
	kt_expect_read(e, 0, XNIC_SIM_BTH_READ_RESP_FIRST, KT_PSN, 8, KT_MTU);
	kt_expect_read(e, 2, XNIC_SIM_BTH_READ_RESP_LAST, KT_PSN + 2,
		       8 + 2 * KT_MTU, 512);
	/* from its second PSN: MIDDLE, LAST */
	p.psn = (KT_PSN + 1) & 0xffffff;
	kt_rx(e, &p);
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, kt_out(e), 2U);
	kt_expect_read(e, 0, XNIC_SIM_BTH_READ_RESP_MIDDLE, KT_PSN + 1,
		       8 + KT_MTU, KT_MTU);
	kt_expect_read(e, 1, XNIC_SIM_BTH_READ_RESP_LAST, KT_PSN + 2,
		       8 + 2 * KT_MTU, 512);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_wire_duplicates), 2ULL);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_rx_read), 1ULL);
	KUNIT_EXPECT_EQ(test, x->q.rq_psn, (KT_PSN + 3) & 0xffffff);

	/* a bad key: remote access NAK */
	p = kt_read_req(e, x, KT_PSN + 3, KT_MR_IOVA + PAGE_SIZE - 8,
			KT_MR_KEY, 16);
	kt_rx(e, &p);
	KUNIT_EXPECT_EQ(test, kt_out(e), 1U);
	kt_expect_ack(e, 0, KT_PSN + 3, KT_NAK(XNIC_SIM_NAK_REM_ACCESS), 1);
	KUNIT_EXPECT_EQ(test, x->q.state, XNIC_QPS_ERR);
}

/*
 * FETCH_ADD, then its duplicate: memory changed once, the same original
 * value and MSN in both ATOMIC ACKs.  A misaligned CMP_SWAP is an invalid
 * request.
 */
static void wresp_atomic(struct kunit *test)
{
	struct kt_env *e = kt_env(test);
	struct kt_qp *x = kt_qp(e, KT_QPN, XNIC_QPT_RC);
	u64 *v = (u64 *)(e->p.mr_buf + 64);
	struct xnic_sim_pkt p;

	*v = 1000;
	p = kt_req(e, x, XNIC_SIM_BTH_FETCH_ADD, KT_PSN);
	p.va = KT_MR_IOVA + 64;
	p.rkey = KT_MR_KEY;
	p.swap_add = 5;
	kt_rx(e, &p);
	KUNIT_EXPECT_EQ(test, *v, 1005ULL);
	KUNIT_EXPECT_EQ(test, kt_out(e), 1U);
	KUNIT_EXPECT_EQ(test, e->out[0].opcode, XNIC_SIM_BTH_ATOMIC_ACK);
	KUNIT_EXPECT_EQ(test, e->out[0].psn, (u32)KT_PSN);
	KUNIT_EXPECT_EQ(test, e->out[0].orig, 1000ULL);
	KUNIT_EXPECT_EQ(test, e->out[0].msn, 1U);
	KUNIT_EXPECT_EQ(test, x->q.rq_psn, (KT_PSN + 1) & 0xffffff);

	/* a SEND in between does not disturb the replay */
	kt_post_recv(e, x, 0xa1, 0, 256);
	p = kt_req(e, x, XNIC_SIM_BTH_SEND_ONLY, KT_PSN + 1);
	kt_pay(e, &p, 0, 8);
	kt_rx(e, &p);
	p = kt_req(e, x, XNIC_SIM_BTH_FETCH_ADD, KT_PSN);
	p.va = KT_MR_IOVA + 64;
	p.rkey = KT_MR_KEY;
	p.swap_add = 5;
	kt_rx(e, &p);
	KUNIT_EXPECT_EQ(test, *v, 1005ULL);
	KUNIT_EXPECT_EQ(test, kt_out(e), 1U);
	KUNIT_EXPECT_EQ(test, e->out[0].opcode, XNIC_SIM_BTH_ATOMIC_ACK);
	KUNIT_EXPECT_EQ(test, e->out[0].psn, (u32)KT_PSN);
	KUNIT_EXPECT_EQ(test, e->out[0].orig, 1000ULL);
	KUNIT_EXPECT_EQ(test, e->out[0].msn, 1U);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_rx_atomic), 1ULL);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_wire_duplicates), 1ULL);

	/* CMP_SWAP at an address not 8-byte aligned */
	p = kt_req(e, x, XNIC_SIM_BTH_CMP_SWAP, KT_PSN + 2);
	p.va = KT_MR_IOVA + 68;
	p.rkey = KT_MR_KEY;
	kt_rx(e, &p);
	KUNIT_EXPECT_EQ(test, kt_out(e), 1U);
	kt_expect_ack(e, 0, KT_PSN + 2, KT_NAK(XNIC_SIM_NAK_INV_REQ), 2);
	KUNIT_EXPECT_EQ(test, x->q.state, XNIC_QPS_ERR);
	KUNIT_EXPECT_EQ(test, *v, 1005ULL);
}

/* A duplicate SEND is acknowledged again, not delivered again. */
static void wresp_dup_send(struct kunit *test)
{
	struct kt_env *e = kt_env(test);
	struct kt_qp *x = kt_qp(e, KT_QPN, XNIC_QPT_RC);
	struct xnic_sim_pkt p;

	kt_post_recv(e, x, 0xa1, 0, 256);
	kt_post_recv(e, x, 0xa2, 256, 256);
	p = kt_req(e, x, XNIC_SIM_BTH_SEND_ONLY, KT_PSN);
	p.ackreq = true;
	kt_pay(e, &p, 0, 32);
	kt_rx(e, &p);
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, kt_out(e), 1U);
	kt_rx(e, &p);
	KUNIT_EXPECT_EQ(test, kt_cqes(e), 1U);
	KUNIT_EXPECT_EQ(test, x->q.rq_ci, 1U);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_wire_duplicates), 1ULL);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_rx_send), 1ULL);
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, kt_out(e), 1U);
	kt_expect_ack(e, 0, KT_PSN, KT_ACK, 1);
	KUNIT_EXPECT_EQ(test, x->q.rq_psn, (KT_PSN + 1) & 0xffffff);
}

/*
 * A gap: the packets after it are dropped, one PSN sequence NAK for the
 * expected PSN; once it comes, a later gap gets its own NAK.
 */
static void wresp_gap(struct kunit *test)
{
	struct kt_env *e = kt_env(test);
	struct kt_qp *x = kt_qp(e, KT_QPN, XNIC_QPT_RC);
	struct xnic_sim_pkt p;
	int i;

	for (i = 0; i < 4; i++)
		kt_post_recv(e, x, 0xa0 + i, 256 * i, 256);
	for (i = 2; i < 5; i++) {
		p = kt_req(e, x, XNIC_SIM_BTH_SEND_ONLY, KT_PSN + i);
		p.ackreq = true;
		kt_pay(e, &p, 0, 16);
		kt_rx(e, &p);
	}
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, kt_out(e), 1U);
	kt_expect_ack(e, 0, KT_PSN, KT_NAK(XNIC_SIM_NAK_PSN_SEQ), 0);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_wire_seq_naks_sent), 1ULL);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_wire_oos_drops), 3ULL);
	KUNIT_EXPECT_EQ(test, kt_cqes(e), 0U);
	KUNIT_EXPECT_EQ(test, x->q.rq_ci, 0U);

	p = kt_req(e, x, XNIC_SIM_BTH_SEND_ONLY, KT_PSN);
	p.ackreq = true;
	kt_pay(e, &p, 0, 16);
	kt_rx(e, &p);
	p.psn = (KT_PSN + 3) & 0xffffff;
	kt_rx(e, &p);
	kt_pass_end(e);
	/* the NAK acknowledges PSN KT_PSN: the ACK owed for it is not sent */
	KUNIT_EXPECT_EQ(test, kt_out(e), 1U);
	kt_expect_ack(e, 0, KT_PSN + 1, KT_NAK(XNIC_SIM_NAK_PSN_SEQ), 1);
	KUNIT_EXPECT_EQ(test, kt_cqes(e), 1U);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_wire_seq_naks_sent), 2ULL);
}

/* Several ackreq packets in one pass: one ACK, for the last PSN. */
static void wresp_coalesce(struct kunit *test)
{
	struct kt_env *e = kt_env(test);
	struct kt_qp *x = kt_qp(e, KT_QPN, XNIC_QPT_RC);
	struct xnic_sim_pkt p;
	int i;

	for (i = 0; i < 5; i++) {
		p = kt_req(e, x, XNIC_SIM_BTH_WRITE_ONLY, KT_PSN + i);
		p.va = KT_MR_IOVA + 64 * i;
		p.rkey = KT_MR_KEY;
		p.dma_len = 64;
		p.ackreq = i != 4;
		kt_pay(e, &p, 64 * i, 64);
		kt_rx(e, &p);
	}
	KUNIT_EXPECT_EQ(test, kt_out(e), 0U);
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, kt_out(e), 1U);
	kt_expect_ack(e, 0, KT_PSN + 3, KT_ACK, 5);
	KUNIT_EXPECT_EQ(test, memcmp(e->p.mr_buf, e->data, 5 * 64), 0);
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, kt_out(e), 0U);
}

/*
 * Frames from the wire: the ACK a frame with AckReq makes its QP owe goes
 * out before the engine takes the next frame (rxe answers each AckReq at
 * once), not after the rest of the pass -- a requester's PSN window
 * waits for it.  Three WRITEs queued, two with AckReq, one RX poll: two
 * ACKs, in order, each with its MSN; nothing left for the pass's end.
 */
static void wresp_ack_per_frame(struct kunit *test)
{
	struct kt_env *e = kt_env(test);
	struct kt_qp *x = kt_qp(e, KT_QPN, XNIC_QPT_RC);
	struct xnic_sim_pkt p;
	int i;

	for (i = 0; i < 3; i++) {
		p = kt_write64(e, x, i, i != 2);
		kt_wire_rx(e, &p);
	}
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_rxq_len(e->d), 3U);
	KUNIT_EXPECT_TRUE(test, kt_rx_poll(e));
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_rxq_len(e->d), 0U);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_wire_rx_packets), 3ULL);
	KUNIT_EXPECT_EQ(test, memcmp(e->p.mr_buf, e->data, 3 * 64), 0);
	KUNIT_ASSERT_EQ(test, kt_out(e), 2U);
	kt_expect_ack(e, 0, KT_PSN, KT_ACK, 1);
	kt_expect_ack(e, 1, KT_PSN + 1, KT_ACK, 2);
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, kt_out(e), 0U);
}

/*
 * ... but not before READ responses owed before it: a READ, then a
 * WRITE with AckReq, in one RX poll: nothing until the pass's end, then
 * the READ's responses and the ACK behind them.
 */
static void wresp_ack_behind_read(struct kunit *test)
{
	struct kt_env *e = kt_env(test);
	struct kt_qp *x = kt_qp(e, KT_QPN, XNIC_QPT_RC);
	struct xnic_sim_pkt p;

	p = kt_read_req(e, x, KT_PSN, KT_MR_IOVA + 2048, KT_MR_KEY, 100);
	kt_wire_rx(e, &p);
	p = kt_write64(e, x, 1, true);
	kt_wire_rx(e, &p);
	KUNIT_EXPECT_TRUE(test, kt_rx_poll(e));
	KUNIT_EXPECT_EQ(test, kt_out(e), 0U);
	kt_pass_end(e);
	KUNIT_ASSERT_EQ(test, kt_out(e), 2U);
	KUNIT_EXPECT_EQ(test, e->out[0].opcode, XNIC_SIM_BTH_READ_RESP_ONLY);
	KUNIT_EXPECT_EQ(test, e->out[0].psn, (u32)KT_PSN);
	kt_expect_ack(e, 1, KT_PSN + 1, KT_ACK, 2);
}

/*
 * UC: a gap loses the message in progress (its receive WQE kept for the
 * next one); a new FIRST or ONLY starts over whatever its PSN; nothing
 * is ever answered.
 */
static void wresp_uc(struct kunit *test)
{
	struct kt_env *e = kt_env(test);
	struct kt_qp *x = kt_qp(e, KT_QPN, XNIC_QPT_UC);
	struct xnic_sim_pkt p;

	kt_post_recv(e, x, 0xa1, 0, 4096);
	p = kt_req(e, x, XNIC_SIM_BTH_UC | XNIC_SIM_BTH_SEND_FIRST, KT_PSN);
	kt_pay(e, &p, 0, KT_MTU);
	kt_rx(e, &p);
	p = kt_req(e, x, XNIC_SIM_BTH_UC | XNIC_SIM_BTH_SEND_LAST, KT_PSN + 2);
	kt_pay(e, &p, 0, 10);
	p.ackreq = true;
	kt_rx(e, &p);
	KUNIT_EXPECT_EQ(test, kt_cqes(e), 0U);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_uc_drops), 2ULL);
	p = kt_req(e, x, XNIC_SIM_BTH_UC | XNIC_SIM_BTH_SEND_ONLY, KT_PSN + 7);
	kt_pay(e, &p, 100, 50);
	kt_rx(e, &p);
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, kt_cqes(e), 1U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(kt_cqe(e, 0)->wr_id), 0xa1ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(kt_cqe(e, 0)->byte_len), 50U);
	KUNIT_EXPECT_EQ(test, memcmp(e->rbuf, e->data + 100, 50), 0);
	KUNIT_EXPECT_EQ(test, x->q.rq_ci, 1U);
	KUNIT_EXPECT_EQ(test, x->q.rq_psn, (KT_PSN + 8) & 0xffffff);
	KUNIT_EXPECT_EQ(test, kt_out(e), 0U);
	KUNIT_EXPECT_EQ(test, x->q.state, XNIC_QPS_RTS);
}

/*
 * A SEND in progress holds the receive WQE it took; the QP then goes to
 * ERR another way than by the responder (here its consumer's): the flush
 * completes the held WQE first, then the one still posted, both
 * WR_FLUSH_ERR, and nothing is left held.
 */
static void wresp_err_flush_held(struct kunit *test)
{
	struct kt_env *e = kt_env(test);
	struct kt_qp *x = kt_qp(e, KT_QPN, XNIC_QPT_RC);
	struct xnic_sim_qp *q = &x->q;
	struct xnic_sim_pkt p;
	bool more = false;
	u32 quota = 16;

	kt_post_recv(e, x, 0xb1, 0, 4096);
	kt_post_recv(e, x, 0xb2, 4096, 4096);
	p = kt_req(e, x, XNIC_SIM_BTH_SEND_FIRST, KT_PSN);
	kt_pay(e, &p, 0, KT_MTU);
	kt_rx(e, &p);
	KUNIT_EXPECT_TRUE(test, q->wresp->have_rwqe);
	KUNIT_EXPECT_EQ(test, q->rq_ci, 1U);
	KUNIT_EXPECT_EQ(test, kt_cqes(e), 0U);

	mutex_lock(&e->d->exec_lock);
	xnic_sim_qp_set_err(q, 0);
	xnic_sim_qp_flush(e->d, q, &quota, &more);
	if (q->on_err) {
		list_del(&q->err_node);
		q->on_err = false;
	}
	mutex_unlock(&e->d->exec_lock);

	KUNIT_EXPECT_FALSE(test, more);
	KUNIT_EXPECT_FALSE(test, q->wresp->have_rwqe);
	KUNIT_ASSERT_EQ(test, kt_cqes(e), 2U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(kt_cqe(e, 0)->wr_id), 0xb1ULL);
	KUNIT_EXPECT_EQ(test, kt_cqe(e, 0)->status, XNIC_CQE_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(kt_cqe(e, 1)->wr_id), 0xb2ULL);
	KUNIT_EXPECT_EQ(test, kt_cqe(e, 1)->status, XNIC_CQE_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_err_flush), 2ULL);
}

/*
 * UD: the Q_Key must be the QP's (else dropped, counted); a SEND with
 * the right one lands after the 40-byte network header, with the DETH's
 * source QP.
 */
static void wresp_ud(struct kunit *test)
{
	struct kt_env *e = kt_env(test);
	struct kt_qp *x = kt_qp(e, KT_QPN, XNIC_QPT_UD);
	struct xnic_sim_pkt p;
	struct xnic_cqe *c;

	kt_post_recv(e, x, 0xa1, 0, 1024);
	p = kt_req(e, x, XNIC_SIM_BTH_UD | XNIC_SIM_BTH_SEND_ONLY, 5);
	p.qkey = KT_QKEY + 1;
	p.sqpn = 0x77;
	kt_pay(e, &p, 0, 200);
	kt_rx(e, &p);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_ud_drop_qkey), 1ULL);
	KUNIT_EXPECT_EQ(test, kt_cqes(e), 0U);
	KUNIT_EXPECT_EQ(test, x->q.rq_ci, 0U);

	p.qkey = KT_QKEY;
	kt_rx(e, &p);
	KUNIT_EXPECT_EQ(test, kt_cqes(e), 1U);
	c = kt_cqe(e, 0);
	KUNIT_EXPECT_EQ(test, c->status, XNIC_CQE_SUCCESS);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->byte_len), 240U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->src_qp), 0x77U);
	KUNIT_EXPECT_TRUE(test, c->flags & XNIC_CQE_GRH);
	KUNIT_EXPECT_EQ(test, c->flags & XNIC_CQE_NET_MASK, XNIC_CQE_NET_IPV6);
	/* a GRH: version 6, the sender's and our addresses */
	KUNIT_EXPECT_EQ(test, e->rbuf[0] >> 4, 6);
	KUNIT_EXPECT_EQ(test, memcmp(e->rbuf + 8, kt_rgid, 16), 0);
	KUNIT_EXPECT_EQ(test, memcmp(e->rbuf + 24, e->d->gid, 16), 0);
	KUNIT_EXPECT_EQ(test, memcmp(e->rbuf + 40, e->data, 200), 0);
	KUNIT_EXPECT_EQ(test, kt_out(e), 0U);

	/* no receive: dropped, counted */
	kt_rx(e, &p);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_ud_drop_norecv), 1ULL);
	KUNIT_EXPECT_EQ(test, kt_cqes(e), 1U);

	/* over IPv4: 20 zero bytes, then the IPv4 header of the packet */
	kt_post_recv(e, x, 0xa2, 2048, 1024);
	memset(p.sgid, 0, 16);
	memset(p.dgid, 0, 16);
	p.sgid[10] = 0xff;
	p.sgid[11] = 0xff;
	p.sgid[12] = 10;
	p.sgid[15] = 2;
	p.dgid[10] = 0xff;
	p.dgid[11] = 0xff;
	p.dgid[12] = 10;
	p.dgid[15] = 1;
	p.ipv4 = true;
	p.imm = cpu_to_be32(0x55);
	p.opcode = XNIC_SIM_BTH_UD | XNIC_SIM_BTH_SEND_ONLY_IMM;
	kt_rx(e, &p);
	KUNIT_EXPECT_EQ(test, kt_cqes(e), 2U);
	c = kt_cqe(e, 1);
	KUNIT_EXPECT_EQ(test, c->flags & XNIC_CQE_NET_MASK, XNIC_CQE_NET_IPV4);
	KUNIT_EXPECT_TRUE(test, c->flags & XNIC_CQE_WITH_IMM);
	KUNIT_EXPECT_NULL(test, memchr_inv(e->rbuf + 2048, 0, 20));
	KUNIT_EXPECT_EQ(test, e->rbuf[2048 + 20], 0x45);
	KUNIT_EXPECT_EQ(test, kt_ip_sum(e->rbuf + 2048 + 20), 0xffff);
	KUNIT_EXPECT_EQ(test, memcmp(e->rbuf + 2048 + 32, p.sgid + 12, 4), 0);
	KUNIT_EXPECT_EQ(test, memcmp(e->rbuf + 2048 + 36, p.dgid + 12, 4), 0);
	KUNIT_EXPECT_EQ(test, memcmp(e->rbuf + 2048 + 40, e->data, 200), 0);
}

/* ------------------------------------------------------------------ */
/* READ responses in turns                                             */

#define KT_SEQ_MAX	256
#define KT_MTU256	256

/* The frames sent, in order (beyond e->out's KT_MAX_OUT). */
struct kt_seq {
	u32 n;
	u8 op[KT_SEQ_MAX];
	u32 psn[KT_SEQ_MAX];
	u32 len[KT_SEQ_MAX];
	u32 bad;	/* READ responses whose payload is not @mem's */
};

static bool kt_is_read_resp(u8 op)
{
	return op == XNIC_SIM_BTH_READ_RESP_FIRST ||
	       op == XNIC_SIM_BTH_READ_RESP_MIDDLE ||
	       op == XNIC_SIM_BTH_READ_RESP_LAST ||
	       op == XNIC_SIM_BTH_READ_RESP_ONLY;
}

/*
 * Append the frames sent since the last call to @q; a READ response's
 * payload must be @mem's bytes at (its PSN - @psn0) * @mtu.  Return: how
 * many were appended.
 */
static u32 kt_seq_take(struct kt_env *e, struct kt_seq *q, const u8 *mem,
		       u32 psn0, u32 mtu)
{
	struct kunit *test = e->test;
	struct sk_buff *skb;
	u32 n = 0;

	while ((skb = skb_dequeue(&e->cap))) {
		struct xnic_sim_pkt p = {};

		KUNIT_EXPECT_EQ(test, xnic_sim_pkt_parse(skb->data, skb->len,
							 &p),
				XNIC_SIM_DROP_NONE);
		if (q->n < KT_SEQ_MAX) {
			q->op[q->n] = p.opcode;
			q->psn[q->n] = p.psn;
			q->len[q->n] = p.paylen;
			q->n++;
		}
		if (mem && kt_is_read_resp(p.opcode) && p.paylen &&
		    memcmp(p.payload,
			   mem + (u64)((p.psn - psn0) & 0xffffff) * mtu,
			   p.paylen))
			q->bad++;
		kfree_skb(skb);
		n++;
	}
	return n;
}

/* A READ of @len bytes at @va (key @rkey) at @psn to @x. */
static void kt_read(struct kt_env *e, struct kt_qp *x, u32 psn, u64 va,
		    u32 rkey, u32 len)
{
	struct xnic_sim_pkt p = kt_read_req(e, x, psn, va, rkey, len);

	kt_rx(e, &p);
}

#define KT_BIG_KEY	(4 << 8 | 0x11)	/* index 4: the receive buffers */

/*
 * An MR of remote read over the receive buffers (4 pages, iova their DMA
 * address), filled with a pattern: READs longer than a turn.  Return: it.
 */
static struct xnic_sim_mr *kt_all_remote(struct kt_env *e)
{
	struct kunit *test = e->test;
	struct xnic_sim_mr *mr = kunit_kzalloc(test, sizeof(*mr), GFP_KERNEL);
	u64 *mtt = kunit_kcalloc(test, 4, sizeof(*mtt), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, mr);
	KUNIT_ASSERT_NOT_NULL(test, mtt);
	for (i = 0; i < 4; i++)
		mtt[i] = e->rbuf_dma + i * PAGE_SIZE;
	mr->key = KT_BIG_KEY;
	mr->pdn = KT_PD;
	mr->access = XNIC_ACCESS_LOCAL_WRITE | XNIC_ACCESS_REMOTE_READ;
	mr->valid = true;
	mr->page_shift = PAGE_SHIFT;
	mr->npages = 4;
	mr->max_pages = 4;
	mr->iova = e->rbuf_dma;
	mr->length = 4 * PAGE_SIZE;
	mr->mtt = mtt;
	KUNIT_ASSERT_EQ(test, xnic_sim_tbl_insert(&e->d->mrs, KT_BIG_KEY >> 8,
						  mr), 0);
	kt_fill_pattern(e->rbuf, 4 * PAGE_SIZE, 7);
	return mr;
}

/*
 * A READ of 64 packets (path MTU 256): nothing at once, then at most
 * XNIC_SIM_WIRE_RD_TURN responses a pass, PSN after PSN across the passes,
 * FIRST, MIDDLEs, LAST, each with the memory's bytes.  An atomic and an
 * RNR NAK behind it wait for its LAST (the atomic is executed at once).
 */
static void wresp_read_turns(struct kunit *test)
{
	struct kt_env *e = kt_env(test);
	struct kt_qp *x = kt_qp(e, KT_QPN, XNIC_QPT_RC);
	u32 len = 64 * KT_MTU256, i, passes = 0, got;
	u64 *v = (u64 *)(e->p.mr_buf + 64);
	struct xnic_sim_pkt p;
	struct kt_seq *q;

	q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, q);
	x->q.mtu = XNIC_MTU_256;
	kt_all_remote(e);
	kt_read(e, x, KT_PSN, e->rbuf_dma, KT_BIG_KEY, len);
	KUNIT_EXPECT_EQ(test, x->q.rq_psn, (KT_PSN + 64) & 0xffffff);
	*v = 10;
	p = kt_req(e, x, XNIC_SIM_BTH_FETCH_ADD, KT_PSN + 64);
	p.va = KT_MR_IOVA + 64;
	p.rkey = KT_MR_KEY;
	p.swap_add = 1;
	kt_rx(e, &p);
	KUNIT_EXPECT_EQ(test, *v, 11ULL);
	p = kt_req(e, x, XNIC_SIM_BTH_SEND_ONLY, KT_PSN + 65);
	p.ackreq = true;
	kt_pay(e, &p, 0, 8);
	kt_rx(e, &p);		/* no receive posted: RNR */
	KUNIT_EXPECT_EQ(test, kt_seq_take(e, q, NULL, 0, 0), 0U);

	for (passes = 0; passes < 16; passes++) {
		kt_pass_end(e);
		got = kt_seq_take(e, q, e->rbuf, KT_PSN, KT_MTU256);
		KUNIT_EXPECT_LE(test, got, (u32)XNIC_SIM_WIRE_RD_TURN);
		if (!got)
			break;
	}
	KUNIT_EXPECT_GE(test, passes, 64U / XNIC_SIM_WIRE_RD_TURN);
	KUNIT_EXPECT_LT(test, passes, 16U);

	KUNIT_ASSERT_EQ(test, q->n, 66U);
	for (i = 0; i < 64; i++) {
		u8 op = !i ? XNIC_SIM_BTH_READ_RESP_FIRST :
			i == 63 ? XNIC_SIM_BTH_READ_RESP_LAST :
			XNIC_SIM_BTH_READ_RESP_MIDDLE;

		KUNIT_EXPECT_EQ_MSG(test, q->op[i], op, "response %u", i);
		KUNIT_EXPECT_EQ_MSG(test, q->psn[i], (KT_PSN + i) & 0xffffff,
				    "response %u", i);
		KUNIT_EXPECT_EQ_MSG(test, q->len[i], (u32)KT_MTU256,
				    "response %u", i);
	}
	KUNIT_EXPECT_EQ(test, q->bad, 0U);
	KUNIT_EXPECT_EQ(test, q->op[64], XNIC_SIM_BTH_ATOMIC_ACK);
	KUNIT_EXPECT_EQ(test, q->psn[64], (KT_PSN + 64) & 0xffffff);
	KUNIT_EXPECT_EQ(test, q->op[65], XNIC_SIM_BTH_ACK);
	KUNIT_EXPECT_EQ(test, q->psn[65], (KT_PSN + 65) & 0xffffff);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_wire_rnr_naks_sent), 1ULL);
	KUNIT_EXPECT_TRUE(test, list_empty(&e->d->wresp_acks));
	KUNIT_EXPECT_EQ(test, x->q.wresp->npending, 0U);
	KUNIT_EXPECT_EQ(test, x->q.state, XNIC_QPS_RTS);
}

/*
 * The pass's budget is for all QPs: five QPs with a READ of a turn each
 * get XNIC_SIM_WIRE_RD_PKTS responses in the first pass, the rest in the
 * next.
 */
static void wresp_read_budget(struct kunit *test)
{
	struct kt_env *e = kt_env(test);
	u32 per = XNIC_SIM_WIRE_RD_TURN, nqp = XNIC_SIM_WIRE_RD_PKTS / per + 1;
	struct kt_qp *x;
	struct kt_seq *q;
	u32 i;

	q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, q);
	kt_all_remote(e);
	for (i = 0; i < nqp; i++) {
		x = kt_qp(e, KT_QPN + i, XNIC_QPT_RC);
		x->q.mtu = XNIC_MTU_256;
		kt_read(e, x, KT_PSN, e->rbuf_dma, KT_BIG_KEY,
			per * KT_MTU256);
	}
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, kt_seq_take(e, q, e->rbuf, KT_PSN, KT_MTU256),
			(u32)XNIC_SIM_WIRE_RD_PKTS);
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, kt_seq_take(e, q, e->rbuf, KT_PSN, KT_MTU256),
			nqp * per - XNIC_SIM_WIRE_RD_PKTS);
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, kt_seq_take(e, q, NULL, 0, 0), 0U);
	KUNIT_EXPECT_EQ(test, q->bad, 0U);
	KUNIT_EXPECT_TRUE(test, list_empty(&e->d->wresp_acks));
}

/*
 * A duplicate READ mid-stream restarts its resource from its PSN (as rxe):
 * the next responses go on from there, MIDDLE, in PSN order; one at the
 * READ's own PSN starts over with FIRST.
 */
static void wresp_read_dup_mid(struct kunit *test)
{
	struct kt_env *e = kt_env(test);
	struct kt_qp *x = kt_qp(e, KT_QPN, XNIC_QPT_RC);
	u32 turn = XNIC_SIM_WIRE_RD_TURN, i;
	struct xnic_sim_pkt p;
	struct kt_seq *q;

	q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, q);
	x->q.mtu = XNIC_MTU_256;
	kt_all_remote(e);
	kt_read(e, x, KT_PSN, e->rbuf_dma, KT_BIG_KEY, 64 * KT_MTU256);
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, kt_seq_take(e, q, e->rbuf, KT_PSN, KT_MTU256),
			turn);

	/* the requester asks again from its 6th response */
	p = kt_read_req(e, x, KT_PSN + 5, e->rbuf_dma + 5 * KT_MTU256,
			KT_BIG_KEY, 59 * KT_MTU256);
	kt_rx(e, &p);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_wire_duplicates), 1ULL);
	KUNIT_EXPECT_EQ(test, x->q.rq_psn, (KT_PSN + 64) & 0xffffff);
	q->n = 0;
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, kt_seq_take(e, q, e->rbuf, KT_PSN, KT_MTU256),
			turn);
	for (i = 0; i < turn; i++) {
		KUNIT_EXPECT_EQ(test, q->psn[i], (KT_PSN + 5 + i) & 0xffffff);
		KUNIT_EXPECT_EQ(test, q->op[i], XNIC_SIM_BTH_READ_RESP_MIDDLE);
	}

	/* from the READ's first PSN: FIRST again */
	kt_read(e, x, KT_PSN, e->rbuf_dma, KT_BIG_KEY, 64 * KT_MTU256);
	q->n = 0;
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, kt_seq_take(e, q, e->rbuf, KT_PSN, KT_MTU256),
			turn);
	KUNIT_EXPECT_EQ(test, q->op[0], XNIC_SIM_BTH_READ_RESP_FIRST);
	KUNIT_EXPECT_EQ(test, q->psn[0], (u32)KT_PSN);
	KUNIT_EXPECT_EQ(test, q->psn[turn - 1], (KT_PSN + turn - 1) & 0xffffff);
	KUNIT_EXPECT_EQ(test, q->bad, 0U);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_rx_read), 1ULL);
}

/*
 * A READ half sent when its QP is reset or destroyed (both reset the
 * responder: xnic_sim_wresp_reset()), or goes to ERR: nothing more is
 * sent, the QP leaves the device's answer list, nothing stays pending.
 */
static void wresp_read_destroy_err(struct kunit *test)
{
	struct kt_env *e = kt_env(test);
	struct kt_qp *x = kt_qp(e, KT_QPN, XNIC_QPT_RC);
	struct kt_qp *y = kt_qp(e, KT_QPN + 1, XNIC_QPT_RC);
	struct kt_seq *q;
	bool more;

	q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, q);
	kt_all_remote(e);
	x->q.mtu = XNIC_MTU_256;
	y->q.mtu = XNIC_MTU_256;
	kt_read(e, x, KT_PSN, e->rbuf_dma, KT_BIG_KEY, 64 * KT_MTU256);
	kt_read(e, y, KT_PSN, e->rbuf_dma, KT_BIG_KEY, 64 * KT_MTU256);
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, kt_seq_take(e, q, e->rbuf, KT_PSN, KT_MTU256),
			2U * XNIC_SIM_WIRE_RD_TURN);
	KUNIT_EXPECT_EQ(test, x->q.wresp->npending, 1U);

	mutex_lock(&e->d->exec_lock);
	xnic_sim_wresp_reset(&x->q);		/* destroy / RESET */
	xnic_sim_qp_set_err(&y->q, 0);		/* any way to ERR */
	if (y->q.on_err) {
		list_del(&y->q.err_node);
		y->q.on_err = false;
	}
	more = xnic_sim_wresp_flush_acks(e->d);
	mutex_unlock(&e->d->exec_lock);
	KUNIT_EXPECT_FALSE(test, more);
	KUNIT_EXPECT_EQ(test, kt_seq_take(e, q, NULL, 0, 0), 0U);
	KUNIT_EXPECT_TRUE(test, list_empty(&e->d->wresp_acks));
	KUNIT_EXPECT_FALSE(test, x->q.wresp->on_ack);
	KUNIT_EXPECT_FALSE(test, y->q.wresp->on_ack);
	KUNIT_EXPECT_EQ(test, x->q.wresp->npending, 0U);
	KUNIT_EXPECT_EQ(test, y->q.wresp->npending, 0U);
	KUNIT_EXPECT_EQ(test, q->bad, 0U);
}

/*
 * The key of a READ half sent is invalidated: the next response is not
 * sent, a remote access NAK for its PSN is, the QP goes to ERR.
 */
static void wresp_read_key_gone(struct kunit *test)
{
	struct kt_env *e = kt_env(test);
	struct kt_qp *x = kt_qp(e, KT_QPN, XNIC_QPT_RC);

	struct xnic_sim_mr *all;

	x->q.mtu = XNIC_MTU_256;
	all = kt_all_remote(e);
	kt_read(e, x, KT_PSN, e->rbuf_dma, KT_BIG_KEY, 64 * KT_MTU256);
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, kt_out(e), (u32)XNIC_SIM_WIRE_RD_TURN);
	all->access &= ~XNIC_ACCESS_REMOTE_READ;
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, kt_out(e), 1U);
	kt_expect_ack(e, 0, KT_PSN + XNIC_SIM_WIRE_RD_TURN,
		      KT_NAK(XNIC_SIM_NAK_REM_ACCESS), 1);
	KUNIT_EXPECT_EQ(test, x->q.state, XNIC_QPS_ERR);
	KUNIT_EXPECT_TRUE(test, list_empty(&e->d->wresp_acks));
}

/*
 * A response that cannot be sent (here: no MAC for the requester's
 * address; counted by the wire) ends the READ's answers: nothing after it
 * is sent; the requester's READ again from the PSN it misses resumes.
 */
static void wresp_read_xmit_fail(struct kunit *test)
{
	static const u8 far[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 9 };
	struct kt_env *e = kt_env(test);
	struct kt_qp *x = kt_qp(e, KT_QPN, XNIC_QPT_RC);
	u32 turn = XNIC_SIM_WIRE_RD_TURN;
	struct xnic_sim_pkt p;
	struct kt_seq *q;
	u64 before;

	q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, q);
	x->q.mtu = XNIC_MTU_256;
	kt_all_remote(e);
	kt_read(e, x, KT_PSN, e->rbuf_dma, KT_BIG_KEY, 64 * KT_MTU256);
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, kt_seq_take(e, q, e->rbuf, KT_PSN, KT_MTU256),
			turn);

	before = kt_ctr(e, XNIC_SIM_CTR_wire_no_neigh);
	memcpy(x->q.dgid, far, 16);	/* no neighbour for it */
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_wire_no_neigh),
			before + 1);
	KUNIT_EXPECT_EQ(test, x->q.wresp->npending, 0U);
	KUNIT_EXPECT_TRUE(test, list_empty(&e->d->wresp_acks));
	skb_queue_purge(&e->cap);	/* the neighbour solicitation */
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, skb_queue_len(&e->cap), 0U);

	/* reachable again: the requester asks from the PSN it misses */
	memcpy(x->q.dgid, kt_rgid, 16);
	p = kt_read_req(e, x, KT_PSN + turn,
			e->rbuf_dma + turn * KT_MTU256, KT_BIG_KEY,
			(64 - turn) * KT_MTU256);
	kt_rx(e, &p);
	q->n = 0;
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, kt_seq_take(e, q, e->rbuf, KT_PSN, KT_MTU256),
			turn);
	KUNIT_EXPECT_EQ(test, q->psn[0], (KT_PSN + turn) & 0xffffff);
	KUNIT_EXPECT_EQ(test, q->bad, 0U);
}

/* ------------------------------------------------------------------ */
/* Atomics: alignment, windows                                         */

#define KT_MW_KEY	(3 << 8 | 0x77)	/* index 3: a type 2 window */

/* A type 2 window over the MR's page from @off, bound to @qpn. */
static struct xnic_sim_mr *kt_mw2(struct kt_env *e, u32 qpn, u64 iova,
				  u64 off)
{
	struct kunit *test = e->test;
	struct xnic_sim_mr *mw = kunit_kzalloc(test, sizeof(*mw), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, mw);
	mw->key = KT_MW_KEY;
	mw->pdn = KT_PD;
	mw->mw_type = XNIC_MW_TYPE_2;
	mw->qpn = qpn;
	mw->access = XNIC_ACCESS_REMOTE_READ | XNIC_ACCESS_REMOTE_ATOMIC;
	mw->iova = iova;
	mw->length = PAGE_SIZE - off;
	mw->parent = &e->p.mr;
	mw->base = KT_MR_IOVA + off;
	mw->state = XNIC_SIM_MW_VALID;
	KUNIT_ASSERT_EQ(test, xnic_sim_tbl_insert(&e->d->mrs, KT_MW_KEY >> 8,
						  mw), 0);
	return mw;
}

static struct xnic_sim_pkt kt_fadd(struct kt_env *e, struct kt_qp *x,
				   u32 psn, u64 va, u32 rkey)
{
	struct xnic_sim_pkt p = kt_req(e, x, XNIC_SIM_BTH_FETCH_ADD, psn);

	p.va = va;
	p.rkey = rkey;
	p.swap_add = 1;
	return p;
}

/*
 * A type 2 window on the wire is checked as on the cable: READ and
 * FETCH_ADD through it by the QP it is bound to reach its MR at the
 * window's base; another QP gets a remote access NAK.
 */
static void wresp_mw2(struct kunit *test)
{
	struct kt_env *e = kt_env(test);
	struct kt_qp *x = kt_qp(e, KT_QPN, XNIC_QPT_RC);
	struct kt_qp *y = kt_qp(e, KT_QPN + 1, XNIC_QPT_RC);
	u64 *v = (u64 *)(e->p.mr_buf + 256 + 8);
	struct xnic_sim_pkt p;

	kt_fill_pattern(e->p.mr_buf, PAGE_SIZE, 5);
	kt_mw2(e, KT_QPN, 0x1000, 256);
	kt_read(e, x, KT_PSN, 0x1000 + 8, KT_MW_KEY, 100);
	kt_pass_end(e);
	KUNIT_EXPECT_EQ(test, kt_out(e), 1U);
	kt_expect_read(e, 0, XNIC_SIM_BTH_READ_RESP_ONLY, KT_PSN, 256 + 8,
		       100);
	*v = 7;
	p = kt_fadd(e, x, KT_PSN + 1, 0x1000 + 8, KT_MW_KEY);
	kt_rx(e, &p);
	KUNIT_EXPECT_EQ(test, *v, 8ULL);
	KUNIT_EXPECT_EQ(test, kt_out(e), 1U);
	KUNIT_EXPECT_EQ(test, e->out[0].opcode, XNIC_SIM_BTH_ATOMIC_ACK);
	KUNIT_EXPECT_EQ(test, e->out[0].orig, 7ULL);

	/* not the QP it is bound to */
	p = kt_fadd(e, y, KT_PSN, 0x1000 + 8, KT_MW_KEY);
	kt_rx(e, &p);
	KUNIT_EXPECT_EQ(test, kt_out(e), 1U);
	kt_expect_ack(e, 0, KT_PSN, KT_NAK(XNIC_SIM_NAK_REM_ACCESS), 0);
	KUNIT_EXPECT_EQ(test, y->q.state, XNIC_QPS_ERR);
	KUNIT_EXPECT_EQ(test, *v, 8ULL);
}

/*
 * A misaligned atomic is an invalid request (class C, rxe's
 * RESPST_ERR_MISALIGNED_ATOMIC) once its key is good -- also when the
 * address is aligned but a window puts it at a misaligned place of its
 * MR; with a bad key it is a remote access error (rxe checks the key
 * first).
 */
static void wresp_atomic_align(struct kunit *test)
{
	struct kt_env *e = kt_env(test);
	struct kt_qp *x = kt_qp(e, KT_QPN, XNIC_QPT_RC);
	struct kt_qp *y = kt_qp(e, KT_QPN + 1, XNIC_QPT_RC);
	struct kt_qp *z = kt_qp(e, KT_QPN + 2, XNIC_QPT_RC);
	struct xnic_sim_pkt p;

	kt_mw2(e, KT_QPN, 0, 4);	/* zero based, at byte 4 of its MR */
	p = kt_fadd(e, x, KT_PSN, 0, KT_MW_KEY);
	kt_rx(e, &p);
	KUNIT_EXPECT_EQ(test, kt_out(e), 1U);
	kt_expect_ack(e, 0, KT_PSN, KT_NAK(XNIC_SIM_NAK_INV_REQ), 0);
	KUNIT_EXPECT_EQ(test, x->q.state, XNIC_QPS_ERR);
	KUNIT_EXPECT_NULL(test, memchr_inv(e->p.mr_buf, 0, PAGE_SIZE));

	p = kt_fadd(e, y, KT_PSN, KT_MR_IOVA + 12, KT_MR_KEY);
	kt_rx(e, &p);
	KUNIT_EXPECT_EQ(test, kt_out(e), 1U);
	kt_expect_ack(e, 0, KT_PSN, KT_NAK(XNIC_SIM_NAK_INV_REQ), 0);

	p = kt_fadd(e, z, KT_PSN, KT_MR_IOVA + 12, KT_MR_KEY ^ 1);
	kt_rx(e, &p);
	KUNIT_EXPECT_EQ(test, kt_out(e), 1U);
	kt_expect_ack(e, 0, KT_PSN, KT_NAK(XNIC_SIM_NAK_REM_ACCESS), 0);
	KUNIT_EXPECT_NULL(test, memchr_inv(e->p.mr_buf, 0, PAGE_SIZE));
}

/* The wire counters a packet the responder did not execute lands in. */
static const enum xnic_sim_ctr kt_fuzz_ctrs[] = {
	XNIC_SIM_CTR_wire_drop_noqp, XNIC_SIM_CTR_wire_malformed,
	XNIC_SIM_CTR_wire_duplicates, XNIC_SIM_CTR_wire_oos_drops,
	XNIC_SIM_CTR_wire_err_naks_sent, XNIC_SIM_CTR_wire_rnr_naks_sent,
	XNIC_SIM_CTR_uc_drops, XNIC_SIM_CTR_rx_drop_bad_src,
};

static u64 kt_fuzz_sum(struct kt_env *e)
{
	u64 n = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(kt_fuzz_ctrs); i++)
		n += kt_ctr(e, kt_fuzz_ctrs[i]);
	return n;
}

/*
 * Hostile packets at live RC and UC QPs: any opcode, PSNs around the
 * expected one, any length, random keys and addresses, no receive
 * posted and no MR granting remote rights.  Nothing may crash or write a
 * CQE, memory stays as it was, and every packet is either executed (a
 * message that needs no key: a zero-length WRITE or READ) or counted.
 * A QP driven to ERR is put back to RTS.
 */
static void wresp_fuzz(struct kunit *test)
{
	static const struct kt_sim_pair_cfg cfg = {
		.pd = KT_PD, .cq_log = KT_CQ_LOG, .all_key = KT_ALL_KEY,
		.mr_key = KT_MR_KEY, .mr_access = XNIC_ACCESS_LOCAL_WRITE,
		.mr_iova = KT_MR_IOVA,
	};
	struct kt_env *e = kt_env_cfg(test, &cfg);
	struct kt_qp *x[2] = {
		kt_qp(e, KT_QPN, XNIC_QPT_RC),
		kt_qp(e, KT_QPN + 1, XNIC_QPT_UC),
	};
	struct xnic_sim_pkt p;
	u64 before, done;
	int i;

	for (i = 0; i < 4000; i++) {
		struct kt_qp *q = x[get_random_u32_below(2)];
		u32 r = get_random_u32();

		/* responses are the requester's (xnic_sim_wreq.c) */
		if (xnic_sim_opcodes[(u8)r].mask & XNIC_SIM_PH_RESP)
			continue;
		p = kt_req(e, q, (u8)r,
			   q->q.rq_psn + (s32)get_random_u32_below(9) - 4);
		if (r & BIT(8))
			p.dqpn = get_random_u32_below(64);
		p.ackreq = r & BIT(9);
		p.se = r & BIT(10);
		p.va = KT_MR_IOVA + get_random_u32_below(2 * PAGE_SIZE);
		if (r & BIT(11))
			p.va = get_random_u64();
		p.rkey = r & BIT(12) ? KT_MR_KEY : get_random_u32();
		p.dma_len = r & BIT(13) ? get_random_u32() :
			    get_random_u32_below(3 * KT_MTU);
		p.swap_add = get_random_u64();
		p.cmp = get_random_u64();
		p.ieth = r & BIT(14) ? KT_MR_KEY : get_random_u32();
		kt_pay(e, &p, get_random_u32_below(PAGE_SIZE),
		       get_random_u32_below(KT_MTU + 64));
		before = kt_fuzz_sum(e);
		done = kt_ctr(e, XNIC_SIM_CTR_rx_write) +
		       kt_ctr(e, XNIC_SIM_CTR_rx_read);
		kt_rx(e, &p);
		if (get_random_u32_below(8) == 0)
			kt_pass_end(e);
		KUNIT_EXPECT_GE_MSG(test, kt_fuzz_sum(e) +
				    kt_ctr(e, XNIC_SIM_CTR_rx_write) +
				    kt_ctr(e, XNIC_SIM_CTR_rx_read),
				    before + done + 1,
				    "packet %d: opcode %#x psn %#x uncounted",
				    i, p.opcode, p.psn);
		kt_out(e);
		if (q->q.state == XNIC_QPS_ERR) {
			q->q.state = XNIC_QPS_RTS;
			xnic_sim_wresp_reset(&q->q);
		}
	}
	kt_pass_end(e);
	kt_out(e);
	KUNIT_EXPECT_EQ(test, kt_cqes(e), 0U);
	KUNIT_EXPECT_NULL(test, memchr_inv(e->p.mr_buf, 0, PAGE_SIZE));
	KUNIT_EXPECT_NULL(test, memchr_inv(e->rbuf, 0, 4 * PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_rx_send), 0ULL);
	KUNIT_EXPECT_EQ(test, kt_ctr(e, XNIC_SIM_CTR_rx_atomic), 0ULL);
}

static struct kunit_case xnic_sim_wresp_cases[] = {
	KUNIT_CASE(wresp_send),
	KUNIT_CASE(wresp_send_too_long),
	KUNIT_CASE(wresp_rnr),
	KUNIT_CASE(wresp_write),
	KUNIT_CASE(wresp_imm_inv),
	KUNIT_CASE(wresp_read),
	KUNIT_CASE(wresp_atomic),
	KUNIT_CASE(wresp_dup_send),
	KUNIT_CASE(wresp_gap),
	KUNIT_CASE(wresp_coalesce),
	KUNIT_CASE(wresp_ack_per_frame),
	KUNIT_CASE(wresp_ack_behind_read),
	KUNIT_CASE(wresp_uc),
	KUNIT_CASE(wresp_err_flush_held),
	KUNIT_CASE(wresp_ud),
	KUNIT_CASE(wresp_read_turns),
	KUNIT_CASE(wresp_read_budget),
	KUNIT_CASE(wresp_read_dup_mid),
	KUNIT_CASE(wresp_read_destroy_err),
	KUNIT_CASE(wresp_read_key_gone),
	KUNIT_CASE(wresp_read_xmit_fail),
	KUNIT_CASE(wresp_mw2),
	KUNIT_CASE(wresp_atomic_align),
	KUNIT_CASE(wresp_fuzz),
	{}
};

static struct kunit_suite xnic_sim_wresp_suite = {
	.name = "xnic_sim_wresp",
	.test_cases = xnic_sim_wresp_cases,
};

kunit_test_suite(xnic_sim_wresp_suite);
