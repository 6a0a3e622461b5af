// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the xnic model's XRC (Documentation/xnic/), suite
 * xnic_sim_xrc:
 *   - CREATE_SRQ and CREATE_QP of XRC objects: what they take and refuse,
 *     the FEATURES register;
 *   - an XRC_INI QP's SEND lands in the XRC SRQ it names, through the
 *     XRC_TGT QP of the SRQ's domain, and completes on the SRQ's CQ with
 *     the target QP's number; WRITE, WRITE_WITH_IMM, READ and atomics
 *     work with keys of the SRQ's PD and fail with REM_ACCESS_ERR with a
 *     key of another PD, which puts the SRQ in error too;
 *   - an SRQ of another domain, a non-XRC SRQ or no SRQ named: NAK
 *     invalid request (REM_INV_REQ_ERR, the target in ERR); a target that
 *     is not XRC_TGT drops the request (RETRY_EXC_ERR);
 *   - an empty XRC SRQ answers RNR, the message goes through once a
 *     receive is posted;
 *   - the device writes every SRQ's consumer count into its doorbell
 *     record's sq_pi;
 *   - destroying the target, the SRQ or its CQ with requests in flight.
 * The model's sources are compiled into this module by
 * kunit/xnic_sim_test.c.  Objects are made through the command queue
 * (xnic_sim_cmd_poll(), on a device without an engine thread), send WQEs
 * are written into the QP's ring and executed as the engine does
 * (xnic_sim_sq_fetch(), _exec(), _complete()), so every outcome is known
 * when the call returns.  Ordinary kernel pages stand in for DMA memory.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/io.h>
#include "xnic_sim_fixture.h"

#define XX_CMDQ_LOG	3
#define XX_CQ_LOG	5
#define XX_Q_LOG	4		/* 16 WQEs per queue */
#define XX_SQ_SHIFT	8
#define XX_RQ_SHIFT	6
#define XX_PD_INI	1		/* the initiator's PD */
#define XX_PD_SRQ	2		/* the XRC SRQs' PD */
#define XX_KEY_INI	0x100		/* all memory, PD_INI, local write */
#define XX_KEY_SRQ	0x200		/* all memory, PD_SRQ, local write */
#define XX_KEY_REM	(3 << 8 | 0x33)	/* the target page, PD_SRQ, remote */
#define XX_KEY_FOREIGN	(4 << 8 | 0x44)	/* the target page, PD_INI, remote */
#define XX_IOVA		0x7f0000000000ULL
#define XX_XRCD		7
#define XX_XRCD2	8
#define XX_SRQ		5		/* XRC, XX_XRCD, CQ XX_CQ_SRQ */
#define XX_SRQ2		6		/* XRC, XX_XRCD2 */
#define XX_SRQ_BASIC	9
#define XX_CQ_INI	1
#define XX_CQ_SRQ	2
#define XX_CQ_RC	3
#define XX_INI		0x10
#define XX_TGT		0x20
#define XX_RC		0x30		/* RC, on the basic SRQ */
#define XX_RC2		0x31		/* RC, its peer */
#define XX_PSN		0x1234
#define XX_REMOTE	(XNIC_ACCESS_REMOTE_WRITE | XNIC_ACCESS_REMOTE_READ | \
			 XNIC_ACCESS_REMOTE_ATOMIC)
#define XX_MAX_TRIES	16

struct xx_cq {
	struct xnic_cqe *ring;
	struct xnic_cq_dbrec *rec;
	u32 ci;
};

struct xx_q {			/* a send queue or a receive queue/SRQ */
	void *ring;
	u64 ring_dma;
	struct xnic_qp_dbrec *rec;
	u64 rec_dma;
	u32 pi;
};

struct xx_env {
	struct kunit *test;
	struct xnic_sim_dev *d;
	struct xnic_cmd *cmdq;
	struct xx_cq cq[4];		/* by CQN */
	struct xx_q sq[3];		/* XX_INI, XX_RC, XX_RC2 */
	struct xx_q srq[32];		/* by SRQN */
	struct xx_q rc_rq;		/* XX_RC2's receive queue (unused) */
	u64 db_dma;
	u8 *lbuf;			/* data sent and read into */
	u64 lbuf_dma;
	u8 *rbuf;			/* receive buffers */
	u64 rbuf_dma;
	u8 *tbuf;			/* the remote access target page */
	u64 tbuf_dma;
};

/* Execute one command through the queue.  Return: its status. */
static u32 xx_cmd(struct xx_env *e, u8 op, const void *in, size_t len)
{
	struct xnic_sim_dev *d = e->d;
	struct xnic_cmd *c = &e->cmdq[d->cmdq_pi & ((1U << XX_CMDQ_LOG) - 1)];

	memset(c, 0, sizeof(*c));
	c->hdr.opcode = op;
	memcpy(c->raw, in, len);
	WRITE_ONCE(d->cmdq_pi, d->cmdq_pi + 1);
	KUNIT_EXPECT_TRUE(e->test, xnic_sim_cmd_poll(d));
	KUNIT_EXPECT_EQ(e->test, le32_to_cpu(c->hdr.done), 1U);
	return le32_to_cpu(c->hdr.status);
}

#define XX_CMD(e, op, in)	xx_cmd(e, op, &(in), sizeof(in))

static u32 xx_destroy(struct xx_env *e, u8 op, u32 index)
{
	struct xnic_cmd_obj o = { .index = cpu_to_le32(index) };

	return XX_CMD(e, op, o);
}

static void xx_cq(struct xx_env *e, u32 cqn)
{
	struct xx_cq *c = &e->cq[cqn];
	struct xnic_cmd_create_cq in = {
		.cqn = cpu_to_le32(cqn), .log_cqe = cpu_to_le32(XX_CQ_LOG),
	};
	u64 ring, rec;

	c->ring = kt_dma(e->test, sizeof(struct xnic_cqe) << XX_CQ_LOG, &ring);
	c->rec = kt_dma(e->test, sizeof(*c->rec), &rec);
	in.ring_addr = cpu_to_le64(ring);
	in.dbrec_addr = cpu_to_le64(rec);
	KUNIT_ASSERT_EQ(e->test, XX_CMD(e, XNIC_CMD_CREATE_CQ, in),
			XNIC_CMD_OK);
}

/* The next CQE of a CQ, or NULL. */
static struct xnic_cqe *xx_cqe(struct xx_env *e, u32 cqn)
{
	struct xx_cq *c = &e->cq[cqn];
	struct xnic_cqe *cqe = &c->ring[c->ci & ((1U << XX_CQ_LOG) - 1)];

	if (cqe->owner != (((c->ci >> XX_CQ_LOG) & 1) ^ 1))
		return NULL;
	c->ci++;
	return cqe;
}

static void xx_q_mem(struct xx_env *e, struct xx_q *q, u8 shift)
{
	q->ring = kt_dma(e->test, 1U << (XX_Q_LOG + shift), &q->ring_dma);
	q->rec = kt_dma(e->test, sizeof(*q->rec), &q->rec_dma);
}

static u32 xx_srq_cmd(struct xx_env *e, u32 srqn, u8 type, u32 xrcdn,
		      u32 cqn)
{
	struct xx_q *q = &e->srq[srqn];
	struct xnic_cmd_create_srq in = {
		.srqn = cpu_to_le32(srqn), .pdn = cpu_to_le32(XX_PD_SRQ),
		.log_wqe = XX_Q_LOG, .wqe_shift = XX_RQ_SHIFT, .type = type,
		.xrcdn = cpu_to_le32(xrcdn), .cqn = cpu_to_le32(cqn),
	};

	if (!q->ring)
		xx_q_mem(e, q, XX_RQ_SHIFT);
	in.ring_addr = cpu_to_le64(q->ring_dma);
	in.dbrec_addr = cpu_to_le64(q->rec_dma);
	return XX_CMD(e, XNIC_CMD_CREATE_SRQ, in);
}

/* A receive WQE of @len bytes at @off of the receive buffer, in @q. */
static void xx_post_recv(struct xx_env *e, struct xx_q *q, u64 wr_id,
			 u32 off, u32 len)
{
	u32 slot = q->pi & ((1U << XX_Q_LOG) - 1);
	struct xnic_rwqe *h = q->ring + (slot << XX_RQ_SHIFT);
	struct xnic_sge *sge = (void *)(h + 1);

	memset(h, 0, 1U << XX_RQ_SHIFT);
	h->wr_id = cpu_to_le64(wr_id);
	h->num_sge = 1;
	sge->addr = cpu_to_le64(e->rbuf_dma + off);
	sge->length = cpu_to_le32(len);
	sge->lkey = cpu_to_le32(XX_KEY_SRQ);
	h->owner = (q->pi >> XX_Q_LOG) & 1;
	q->pi++;
	q->rec->rq_pi = cpu_to_le32(q->pi);
}

static u32 xx_qp_cmd(struct xx_env *e, u32 qpn, u8 type, struct xx_q *sq,
		     u32 srqn, u32 xrcdn, u32 scqn, u32 rcqn, u32 slot)
{
	struct xnic_cmd_create_qp in = {
		.qpn = cpu_to_le32(qpn), .qp_type = type,
		.pdn = cpu_to_le32(XX_PD_INI),
		.send_cqn = cpu_to_le32(scqn), .recv_cqn = cpu_to_le32(rcqn),
		.srqn = cpu_to_le32(srqn), .db_slot = cpu_to_le32(slot),
		.xrcdn = cpu_to_le32(xrcdn),
	};

	if (sq) {
		if (!sq->ring)
			xx_q_mem(e, sq, XX_SQ_SHIFT);
		in.sq_log_wqe = XX_Q_LOG;
		in.sq_wqe_shift = XX_SQ_SHIFT;
		in.sq_addr = cpu_to_le64(sq->ring_dma);
		in.dbrec_addr = cpu_to_le64(sq->rec_dma);
	}
	return XX_CMD(e, XNIC_CMD_CREATE_QP, in);
}

static u32 xx_modify(struct xx_env *e, u32 qpn, u8 state, u32 dest_qpn)
{
	struct xnic_cmd_modify_qp m = {
		.qpn = cpu_to_le32(qpn), .state = state,
		.mask = cpu_to_le32(XNIC_QP_MOD_STATE),
	};
	u32 mask = XNIC_QP_MOD_STATE;

	switch (state) {
	case XNIC_QPS_INIT:
		mask |= XNIC_QP_MOD_ACCESS | XNIC_QP_MOD_PORT;
		m.access = cpu_to_le32(XX_REMOTE);
		m.port_num = 1;
		break;
	case XNIC_QPS_RTR:
		mask |= XNIC_QP_MOD_AV | XNIC_QP_MOD_DEST_QPN |
			XNIC_QP_MOD_RQ_PSN | XNIC_QP_MOD_PATH_MTU |
			XNIC_QP_MOD_MAX_DEST_RD_ATOMIC |
			XNIC_QP_MOD_MIN_RNR_TIMER;
		memcpy(m.dgid, e->d->gid, sizeof(m.dgid));
		m.dest_qpn = cpu_to_le32(dest_qpn);
		m.rq_psn = cpu_to_le32(XX_PSN);
		m.path_mtu = XNIC_MTU_1024;
		m.max_dest_rd_atomic = 4;
		m.min_rnr_timer = 1;
		break;
	case XNIC_QPS_RTS:
		mask |= XNIC_QP_MOD_SQ_PSN | XNIC_QP_MOD_TIMEOUT |
			XNIC_QP_MOD_RETRY_CNT | XNIC_QP_MOD_RNR_RETRY |
			XNIC_QP_MOD_MAX_RD_ATOMIC;
		m.sq_psn = cpu_to_le32(XX_PSN);
		m.timeout = 1;
		m.retry_cnt = 2;
		m.rnr_retry = 2;
		m.max_rd_atomic = 4;
		break;
	}
	m.mask = cpu_to_le32(mask);
	return XX_CMD(e, XNIC_CMD_MODIFY_QP, m);
}

/* @qpn to RTR connected to @dest (and to RTS when @rts). */
static void xx_connect(struct xx_env *e, u32 qpn, u32 dest, bool rts)
{
	struct kunit *test = e->test;

	KUNIT_ASSERT_EQ(test, xx_modify(e, qpn, XNIC_QPS_INIT, 0), XNIC_CMD_OK);
	KUNIT_ASSERT_EQ(test, xx_modify(e, qpn, XNIC_QPS_RTR, dest),
			XNIC_CMD_OK);
	if (rts)
		KUNIT_ASSERT_EQ(test, xx_modify(e, qpn, XNIC_QPS_RTS, 0),
				XNIC_CMD_OK);
}

static u32 xx_reg_mr(struct xx_env *e, u32 key, u32 pdn, u32 access,
		     bool all)
{
	struct xnic_cmd_reg_mr in = {
		.key = cpu_to_le32(key), .pdn = cpu_to_le32(pdn),
		.access = cpu_to_le32(access),
	};
	u64 *mtt, mtt_dma;

	if (all) {
		in.flags = cpu_to_le32(XNIC_MR_F_ALL);
	} else {
		mtt = kt_dma(e->test, sizeof(*mtt), &mtt_dma);
		*mtt = e->tbuf_dma;
		in.iova = cpu_to_le64(XX_IOVA);
		in.length = cpu_to_le64(PAGE_SIZE);
		in.mtt_addr = cpu_to_le64(mtt_dma);
		in.npages = cpu_to_le32(1);
		in.page_shift = PAGE_SHIFT;
	}
	return XX_CMD(e, XNIC_CMD_REG_MR, in);
}

/*
 * A device with a command queue and: CQs XX_CQ_INI, _SRQ, _RC; MRs; XRC
 * SRQs XX_SRQ (XX_XRCD) and XX_SRQ2 (XX_XRCD2) completing to XX_CQ_SRQ,
 * basic SRQ XX_SRQ_BASIC; an XRC_INI QP in RTS connected to an XRC_TGT
 * QP (XX_XRCD) in RTR.
 */
static struct xx_env *xx_env(struct kunit *test)
{
	struct xx_env *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	struct xnic_cmd_alloc_db db = { 0 };
	struct xnic_sim_dev *d;
	u64 cmdq;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, e);
	e->test = test;
	d = kt_sim_dev(test, 0, true);
	e->d = d;
	/* a kick (a QP set to ERR rings its doorbell) wakes us */
	d->engine = current;
	e->cmdq = kt_dma(test, sizeof(struct xnic_cmd) << XX_CMDQ_LOG, &cmdq);
	d->cmdq_base = cmdq;
	d->cmdq_log = XX_CMDQ_LOG;
	e->lbuf = kt_dma(test, PAGE_SIZE, &e->lbuf_dma);
	e->rbuf = kt_dma(test, PAGE_SIZE, &e->rbuf_dma);
	e->tbuf = kt_dma(test, PAGE_SIZE, &e->tbuf_dma);
	for (i = 0; i < PAGE_SIZE; i++)
		e->lbuf[i] = i * 7 + 1;

	kt_dma(test, XNIC_DB_PAGE_SIZE, &e->db_dma);
	db.page_addr = cpu_to_le64(e->db_dma);
	KUNIT_ASSERT_EQ(test, XX_CMD(e, XNIC_CMD_ALLOC_DB, db), XNIC_CMD_OK);
	xx_cq(e, XX_CQ_INI);
	xx_cq(e, XX_CQ_SRQ);
	xx_cq(e, XX_CQ_RC);
	KUNIT_ASSERT_EQ(test, xx_reg_mr(e, XX_KEY_INI, XX_PD_INI,
					XNIC_ACCESS_LOCAL_WRITE, true),
			XNIC_CMD_OK);
	KUNIT_ASSERT_EQ(test, xx_reg_mr(e, XX_KEY_SRQ, XX_PD_SRQ,
					XNIC_ACCESS_LOCAL_WRITE, true),
			XNIC_CMD_OK);
	KUNIT_ASSERT_EQ(test, xx_reg_mr(e, XX_KEY_REM, XX_PD_SRQ,
					XNIC_ACCESS_LOCAL_WRITE | XX_REMOTE,
					false), XNIC_CMD_OK);
	KUNIT_ASSERT_EQ(test, xx_reg_mr(e, XX_KEY_FOREIGN, XX_PD_INI,
					XNIC_ACCESS_LOCAL_WRITE | XX_REMOTE,
					false), XNIC_CMD_OK);
	KUNIT_ASSERT_EQ(test, xx_srq_cmd(e, XX_SRQ, XNIC_SRQT_XRC, XX_XRCD,
					 XX_CQ_SRQ), XNIC_CMD_OK);
	KUNIT_ASSERT_EQ(test, xx_srq_cmd(e, XX_SRQ2, XNIC_SRQT_XRC, XX_XRCD2,
					 XX_CQ_SRQ), XNIC_CMD_OK);
	KUNIT_ASSERT_EQ(test, xx_srq_cmd(e, XX_SRQ_BASIC, XNIC_SRQT_BASIC, 0,
					 0), XNIC_CMD_OK);
	KUNIT_ASSERT_EQ(test, xx_qp_cmd(e, XX_INI, XNIC_QPT_XRC_INI, &e->sq[0],
					XNIC_NO_SRQ, 0, XX_CQ_INI, 0, 1),
			XNIC_CMD_OK);
	KUNIT_ASSERT_EQ(test, xx_qp_cmd(e, XX_TGT, XNIC_QPT_XRC_TGT, NULL,
					0, XX_XRCD, 0, 0, 0), XNIC_CMD_OK);
	xx_connect(e, XX_TGT, XX_INI, false);
	xx_connect(e, XX_INI, XX_TGT, true);
	return e;
}

static struct xnic_sim_qp *xx_qp(struct xx_env *e, u32 qpn)
{
	struct xnic_sim_qp *qp = xnic_sim_tbl_get(&e->d->qps, qpn);

	KUNIT_ASSERT_NOT_NULL(e->test, qp);
	return qp;
}

/* A send WQE's variable part. */
struct xx_wr {
	u8 opcode;
	u32 srqn;
	u32 len;		/* one SGE at lbuf */
	u64 raddr;
	u32 rkey;
	u64 cmp_add;
	u64 swap;
	__le32 imm;
};

/* Write a signaled send WQE into @qpn's ring and ring its record. */
static void xx_post(struct xx_env *e, struct xx_q *sq, u64 wr_id,
		    const struct xx_wr *wr)
{
	u32 slot = sq->pi & ((1U << XX_Q_LOG) - 1);
	u8 *w = sq->ring + (slot << XX_SQ_SHIFT);
	struct xnic_wqe_ctrl *c = (void *)(w + XNIC_WQE_CTRL_OFF);
	struct xnic_wqe_remote *r = (void *)(w + XNIC_WQE_REMOTE_OFF);
	struct xnic_wqe_atomic *a = (void *)(w + XNIC_WQE_ATOMIC_OFF);
	struct xnic_wqe_xrc *x = (void *)(w + XNIC_WQE_XRC_OFF);
	struct xnic_sge *sge = (void *)(w + XNIC_WQE_DATA_OFF);

	memset(w, 0, 1U << XX_SQ_SHIFT);
	c->opcode = wr->opcode;
	c->flags = XNIC_WQE_SIGNALED;
	c->num_sge = 1;
	c->wr_id = cpu_to_le64(wr_id);
	c->imm_data = wr->imm;
	r->remote_addr = cpu_to_le64(wr->raddr);
	r->rkey = cpu_to_le32(wr->rkey);
	a->compare_add = cpu_to_le64(wr->cmp_add);
	a->swap = cpu_to_le64(wr->swap);
	x->remote_srqn = cpu_to_le32(wr->srqn);
	sge->addr = cpu_to_le64(e->lbuf_dma);
	sge->length = cpu_to_le32(wr->len);
	sge->lkey = cpu_to_le32(XX_KEY_INI);
	c->owner = (sq->pi >> XX_Q_LOG) & 1;
	sq->pi++;
	sq->rec->sq_pi = cpu_to_le32(sq->pi);
}

/*
 * Execute the next WQE of @qpn as its engine does, waits skipped.
 * Return: XNIC_SIM_DONE (completed), or XNIC_SIM_WAIT after @max_tries executions.
 */
static int xx_run(struct xx_env *e, u32 qpn, int max_tries, int *tries)
{
	struct xnic_sim_qp *qp = xx_qp(e, qpn);
	int r = XNIC_SIM_WAIT, n = 0;
	u32 len;
	u8 st;

	while (n < max_tries) {
		KUNIT_ASSERT_EQ(e->test, xnic_sim_sq_fetch(e->d, qp), 1);
		n++;
		qp->wait_until = 0;
		r = xnic_sim_sq_exec(e->d, qp, &st, &len);
		if (r == XNIC_SIM_DONE) {
			xnic_sim_sq_complete(e->d, qp, st, len);
			break;
		}
	}
	if (tries)
		*tries = n;
	return r;
}

/* Post and execute one WQE of the XRC_INI QP; return its CQE status. */
static u8 xx_exec(struct xx_env *e, u64 wr_id, const struct xx_wr *wr)
{
	struct kunit *test = e->test;
	struct xnic_cqe *c;

	xx_post(e, &e->sq[0], wr_id, wr);
	KUNIT_EXPECT_EQ(test, xx_run(e, XX_INI, XX_MAX_TRIES, NULL),
			(int)XNIC_SIM_DONE);
	c = xx_cqe(e, XX_CQ_INI);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->wr_id), wr_id);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->qpn), (u32)XX_INI);
	return c->status;
}

static struct xnic_sim_srq *xx_srq(struct xx_env *e, u32 srqn)
{
	struct xnic_sim_srq *srq = xnic_sim_tbl_get(&e->d->srqs, srqn);

	KUNIT_ASSERT_NOT_NULL(e->test, srq);
	return srq;
}

static u8 xx_qp_state(struct xx_env *e, u32 qpn)
{
	return READ_ONCE(xx_qp(e, qpn)->state);
}

/* ------------------------------------------------------------ objects */

static void xrc_create(struct kunit *test)
{
	struct xx_env *e = xx_env(test);
	struct xnic_sim_dev *d = e->d;

	KUNIT_EXPECT_EQ(test, d->pdata.bus.read32(&d->pdata.bus,
						  XNIC_REG_FEATURES) &
			XNIC_FEAT_XRC, XNIC_FEAT_XRC);
	/* XRC SRQs: a domain and an existing CQ; basic SRQs neither */
	KUNIT_EXPECT_EQ(test, xx_srq_cmd(e, 20, XNIC_SRQT_XRC, XX_XRCD, 30),
			XNIC_CMD_BAD_INDEX);
	KUNIT_EXPECT_EQ(test, xx_srq_cmd(e, 20, XNIC_SRQT_XRC, 0, XX_CQ_SRQ),
			XNIC_CMD_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, xx_srq_cmd(e, 20, XNIC_SRQT_BASIC, XX_XRCD, 0),
			XNIC_CMD_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, xx_srq_cmd(e, 20, XNIC_SRQT_BASIC, 0,
					 XX_CQ_SRQ), XNIC_CMD_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, xx_srq_cmd(e, 20, 2, XX_XRCD, XX_CQ_SRQ),
			XNIC_CMD_BAD_PARAM);
	KUNIT_EXPECT_NULL(test, xnic_sim_tbl_get(&d->srqs, 20));
	/* the SRQ holds its CQ */
	KUNIT_EXPECT_EQ(test, xx_destroy(e, XNIC_CMD_DESTROY_CQ, XX_CQ_SRQ),
			XNIC_CMD_BUSY);

	/* an XRC_TGT QP needs a domain, and has no queues */
	KUNIT_EXPECT_EQ(test, xx_qp_cmd(e, 0x21, XNIC_QPT_XRC_TGT, NULL, 0, 0,
					0, 0, 0), XNIC_CMD_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, xx_qp(e, XX_TGT)->xrcdn, (u32)XX_XRCD);
	KUNIT_EXPECT_NULL(test, xx_qp(e, XX_TGT)->db);
	/* an XRC_INI QP takes no SRQ and no domain */
	KUNIT_EXPECT_EQ(test, xx_qp_cmd(e, 0x11, XNIC_QPT_XRC_INI, &e->sq[1],
					XX_SRQ_BASIC, 0, XX_CQ_INI, 0, 2),
			XNIC_CMD_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, xx_qp_cmd(e, 0x11, XNIC_QPT_XRC_INI, &e->sq[1],
					XNIC_NO_SRQ, XX_XRCD, XX_CQ_INI, 0, 2),
			XNIC_CMD_BAD_PARAM);
	KUNIT_EXPECT_NULL(test, xx_qp(e, XX_INI)->rcq);
	/* no QP attaches to an XRC SRQ */
	KUNIT_EXPECT_EQ(test, xx_qp_cmd(e, 0x11, XNIC_QPT_RC, &e->sq[1],
					XX_SRQ, 0, XX_CQ_INI, XX_CQ_INI, 2),
			XNIC_CMD_BAD_PARAM);
	/* the target goes to RTS and back to RESET: no SQ, nothing runs */
	KUNIT_EXPECT_EQ(test, xx_modify(e, XX_TGT, XNIC_QPS_RTS, 0),
			XNIC_CMD_OK);
	KUNIT_EXPECT_FALSE(test, xx_qp(e, XX_TGT)->on_active);
	KUNIT_EXPECT_EQ(test, xx_modify(e, XX_TGT, XNIC_QPS_ERR, 0),
			XNIC_CMD_OK);
	KUNIT_EXPECT_FALSE(test, xx_qp(e, XX_TGT)->on_active);
	KUNIT_EXPECT_EQ(test, xx_modify(e, XX_TGT, XNIC_QPS_RESET, 0),
			XNIC_CMD_OK);
	KUNIT_EXPECT_EQ(test, xx_destroy(e, XNIC_CMD_DESTROY_QP, XX_TGT),
			XNIC_CMD_OK);
	KUNIT_EXPECT_EQ(test, xx_destroy(e, XNIC_CMD_DESTROY_QP, XX_INI),
			XNIC_CMD_OK);
	/* and the INI's CQ is free again */
	KUNIT_EXPECT_EQ(test, xx_destroy(e, XNIC_CMD_DESTROY_CQ, XX_CQ_INI),
			XNIC_CMD_OK);
}

/* ------------------------------------------------------------ traffic */

/* SENDs land in the named SRQ and complete on its CQ with the TGT's QPN. */
static void xrc_send(struct kunit *test)
{
	struct xx_env *e = xx_env(test);
	struct xx_wr wr = { .opcode = XNIC_OP_SEND, .srqn = XX_SRQ,
			    .len = 300 };
	struct xnic_cqe *c;

	xx_post_recv(e, &e->srq[XX_SRQ], 0xa1, 0, 512);
	xx_post_recv(e, &e->srq[XX_SRQ], 0xa2, 1024, 512);
	KUNIT_EXPECT_EQ(test, xx_exec(e, 1, &wr), XNIC_CQE_SUCCESS);
	c = xx_cqe(e, XX_CQ_SRQ);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_EQ(test, c->status, XNIC_CQE_SUCCESS);
	KUNIT_EXPECT_EQ(test, c->opcode, XNIC_CQE_OP_RECV);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->wr_id), 0xa1ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->qpn), (u32)XX_TGT);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->src_qp), (u32)XX_INI);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->byte_len), 300U);
	KUNIT_EXPECT_EQ(test, memcmp(e->rbuf, e->lbuf, 300), 0);
	KUNIT_EXPECT_EQ(test, e->rbuf[300], 0);

	wr.opcode = XNIC_OP_SEND_WITH_IMM;
	wr.imm = cpu_to_le32(0x12345678);
	wr.len = 40;
	KUNIT_EXPECT_EQ(test, xx_exec(e, 2, &wr), XNIC_CQE_SUCCESS);
	c = xx_cqe(e, XX_CQ_SRQ);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->wr_id), 0xa2ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->qpn), (u32)XX_TGT);
	KUNIT_EXPECT_TRUE(test, c->flags & XNIC_CQE_WITH_IMM);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->imm_data), 0x12345678U);
	KUNIT_EXPECT_EQ(test, memcmp(e->rbuf + 1024, e->lbuf, 40), 0);
	/* nothing on the other SRQ's queue, the TGT receiving still */
	KUNIT_EXPECT_NULL(test, xx_cqe(e, XX_CQ_SRQ));
	KUNIT_EXPECT_EQ(test, xx_qp_state(e, XX_TGT), XNIC_QPS_RTR);
	KUNIT_EXPECT_EQ(test, (u64)atomic64_read(&xx_qp(e, XX_TGT)->rx_ops),
			2ULL);
}

/* WRITE, WRITE_WITH_IMM, READ, atomics with the SRQ's PD. */
static void xrc_rdma(struct kunit *test)
{
	struct xx_env *e = xx_env(test);
	struct xx_wr wr = { .opcode = XNIC_OP_RDMA_WRITE, .srqn = XX_SRQ,
			    .len = 200, .raddr = XX_IOVA + 64,
			    .rkey = XX_KEY_REM };
	struct xnic_cqe *c;
	u64 v;

	KUNIT_EXPECT_EQ(test, xx_exec(e, 1, &wr), XNIC_CQE_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(e->tbuf + 64, e->lbuf, 200), 0);
	/* no receive consumed, no receive completion */
	KUNIT_EXPECT_NULL(test, xx_cqe(e, XX_CQ_SRQ));

	xx_post_recv(e, &e->srq[XX_SRQ], 0xb1, 0, 64);
	wr.opcode = XNIC_OP_RDMA_WRITE_WITH_IMM;
	wr.raddr = XX_IOVA + 1024;
	wr.imm = cpu_to_le32(0xfeed);
	KUNIT_EXPECT_EQ(test, xx_exec(e, 2, &wr), XNIC_CQE_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(e->tbuf + 1024, e->lbuf, 200), 0);
	c = xx_cqe(e, XX_CQ_SRQ);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_EQ(test, c->opcode, XNIC_CQE_OP_RECV_RDMA_WITH_IMM);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->wr_id), 0xb1ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->qpn), (u32)XX_TGT);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->imm_data), 0xfeedU);

	/* READ the page's start into lbuf */
	memset(e->tbuf, 0x5a, 128);
	wr = (struct xx_wr) { .opcode = XNIC_OP_RDMA_READ, .srqn = XX_SRQ,
			      .len = 128, .raddr = XX_IOVA,
			      .rkey = XX_KEY_REM };
	KUNIT_EXPECT_EQ(test, xx_exec(e, 3, &wr), XNIC_CQE_SUCCESS);
	KUNIT_EXPECT_NULL(test, memchr_inv(e->lbuf, 0x5a, 128));

	/* atomics on the u64 at 2048 */
	*(u64 *)(e->tbuf + 2048) = 10;
	wr = (struct xx_wr) { .opcode = XNIC_OP_ATOMIC_FETCH_AND_ADD,
			      .srqn = XX_SRQ, .len = 8,
			      .raddr = XX_IOVA + 2048, .rkey = XX_KEY_REM,
			      .cmp_add = 5 };
	KUNIT_EXPECT_EQ(test, xx_exec(e, 4, &wr), XNIC_CQE_SUCCESS);
	memcpy(&v, e->lbuf, 8);
	KUNIT_EXPECT_EQ(test, v, 10ULL);
	KUNIT_EXPECT_EQ(test, *(u64 *)(e->tbuf + 2048), 15ULL);
	wr.opcode = XNIC_OP_ATOMIC_CMP_AND_SWP;
	wr.cmp_add = 15;
	wr.swap = 99;
	KUNIT_EXPECT_EQ(test, xx_exec(e, 5, &wr), XNIC_CQE_SUCCESS);
	memcpy(&v, e->lbuf, 8);
	KUNIT_EXPECT_EQ(test, v, 15ULL);
	KUNIT_EXPECT_EQ(test, *(u64 *)(e->tbuf + 2048), 99ULL);
	KUNIT_EXPECT_EQ(test, xx_qp_state(e, XX_TGT), XNIC_QPS_RTR);
}

/*
 * A key of another PD (the initiator's own) on the same memory: remote
 * access is checked against the SRQ's PD.  @op on a fresh pair.
 */
static void xx_foreign(struct kunit *test, u8 op)
{
	struct xx_env *e = xx_env(test);
	struct xx_wr wr = { .opcode = op, .srqn = XX_SRQ, .len = 8,
			    .raddr = XX_IOVA + 8, .rkey = XX_KEY_FOREIGN,
			    .cmp_add = 1, .swap = 1 };
	struct xnic_sim_srq *srq;

	memset(e->lbuf, 0x11, 8);
	srq = xnic_sim_tbl_get(&e->d->srqs, XX_SRQ);
	KUNIT_ASSERT_NOT_NULL(test, srq);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(srq->err));
	KUNIT_EXPECT_EQ(test, xx_exec(e, 1, &wr), XNIC_CQE_REM_ACCESS_ERR);
	KUNIT_EXPECT_NULL(test, memchr_inv(e->tbuf, 0, PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, xx_qp_state(e, XX_TGT), XNIC_QPS_ERR);
	KUNIT_EXPECT_EQ(test, xx_qp_state(e, XX_INI), XNIC_QPS_ERR);
	/* the SRQ whose PD refused bears the miss, not only the target */
	KUNIT_EXPECT_TRUE(test, READ_ONCE(srq->err));
}

static void xrc_foreign_pd(struct kunit *test)
{
	xx_foreign(test, XNIC_OP_RDMA_WRITE);
	xx_foreign(test, XNIC_OP_RDMA_READ);
	xx_foreign(test, XNIC_OP_ATOMIC_FETCH_AND_ADD);
	xx_foreign(test, XNIC_OP_ATOMIC_CMP_AND_SWP);
}

/*
 * An SRQ the target may not use: a NAK invalid request for every
 * opcode.  Nothing is written, nothing of any SRQ is consumed, the
 * target goes to ERR and the initiator gets REM_INV_REQ_ERR.
 */
static void xx_bad_srq(struct kunit *test, u32 srqn, u8 op)
{
	struct xx_env *e = xx_env(test);
	struct xx_wr wr = { .opcode = op, .srqn = srqn, .len = 64,
			    .raddr = XX_IOVA, .rkey = XX_KEY_REM };
	u32 i;

	for (i = XX_SRQ; i <= XX_SRQ_BASIC; i++)
		if (e->srq[i].ring)
			xx_post_recv(e, &e->srq[i], i, 0, 512);
	if (op == XNIC_OP_ATOMIC_FETCH_AND_ADD)
		wr.len = 8;
	KUNIT_EXPECT_EQ_MSG(test, xx_exec(e, 1, &wr),
			    XNIC_CQE_REM_INV_REQ_ERR, "srq %u op %u", srqn, op);
	KUNIT_EXPECT_EQ(test, xx_qp_state(e, XX_TGT), XNIC_QPS_ERR);
	KUNIT_EXPECT_NULL(test, xx_cqe(e, XX_CQ_SRQ));
	KUNIT_EXPECT_NULL(test, memchr_inv(e->tbuf, 0, PAGE_SIZE));
	KUNIT_EXPECT_NULL(test, memchr_inv(e->rbuf, 0, PAGE_SIZE));
	for (i = XX_SRQ; i <= XX_SRQ_BASIC; i++) {
		struct xnic_sim_srq *s = xnic_sim_tbl_get(&e->d->srqs, i);

		if (s)
			KUNIT_EXPECT_EQ(test, s->ci, 0U);
	}
	KUNIT_EXPECT_GE(test, kt_sim_ctr(e->d, XNIC_SIM_CTR_err_rem_inv_req), 1ULL);
}

/* the requests an XRC target refuses for a wrong SRQ, one row each */
struct xx_op_row {
	u8 op;
	const char *name;
};

#define XX_OP(op) { op, #op }
static const struct xx_op_row xx_ops[] = {
	XX_OP(XNIC_OP_SEND), XX_OP(XNIC_OP_SEND_WITH_IMM),
	XX_OP(XNIC_OP_RDMA_WRITE), XX_OP(XNIC_OP_RDMA_WRITE_WITH_IMM),
	XX_OP(XNIC_OP_RDMA_READ), XX_OP(XNIC_OP_ATOMIC_FETCH_AND_ADD),
};

static void xx_op_desc(const struct xx_op_row *r, char *desc)
{
	strscpy(desc, r->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(xx_op, xx_ops, xx_op_desc);

/* an XRC SRQ of another domain */
static void xrc_other_xrcd(struct kunit *test)
{
	const struct xx_op_row *r = test->param_value;

	xx_bad_srq(test, XX_SRQ2, r->op);
}

/* a basic SRQ, and a number no SRQ has */
static void xrc_not_xrc_srq(struct kunit *test)
{
	const struct xx_op_row *r = test->param_value;

	xx_bad_srq(test, XX_SRQ_BASIC, r->op);
	xx_bad_srq(test, 0x777, r->op);
}

/*
 * The initiator connected to an RC QP (connected back): a request of
 * another transport service, dropped; the initiator retries and fails
 * with RETRY_EXC_ERR; the RC QP and its SRQ are untouched.
 */
static void xrc_target_not_tgt(struct kunit *test)
{
	struct xx_env *e = xx_env(test);
	struct xx_wr wr = { .opcode = XNIC_OP_SEND, .srqn = XX_SRQ_BASIC,
			    .len = 64 };
	int tries;

	KUNIT_ASSERT_EQ(test, xx_qp_cmd(e, XX_RC, XNIC_QPT_RC, &e->sq[1],
					XX_SRQ_BASIC, 0, XX_CQ_RC, XX_CQ_RC,
					2), XNIC_CMD_OK);
	xx_connect(e, XX_RC, XX_INI, false);
	KUNIT_ASSERT_EQ(test, xx_modify(e, XX_INI, XNIC_QPS_RESET, 0),
			XNIC_CMD_OK);
	xx_connect(e, XX_INI, XX_RC, true);
	xx_post_recv(e, &e->srq[XX_SRQ_BASIC], 1, 0, 512);
	xx_post_recv(e, &e->srq[XX_SRQ], 2, 0, 512);

	xx_post(e, &e->sq[0], 1, &wr);
	KUNIT_EXPECT_EQ(test, xx_run(e, XX_INI, XX_MAX_TRIES, &tries),
			(int)XNIC_SIM_DONE);
	KUNIT_EXPECT_EQ(test, tries, 3);	/* retry_cnt 2 */
	KUNIT_ASSERT_NOT_NULL(test, xx_cqe(e, XX_CQ_INI));
	KUNIT_EXPECT_EQ(test, e->cq[XX_CQ_INI].ring[0].status,
			XNIC_CQE_RETRY_EXC_ERR);
	KUNIT_EXPECT_EQ(test, xx_qp_state(e, XX_RC), XNIC_QPS_RTR);
	KUNIT_EXPECT_NULL(test, xx_cqe(e, XX_CQ_RC));
	KUNIT_EXPECT_NULL(test, xx_cqe(e, XX_CQ_SRQ));
	KUNIT_EXPECT_EQ(test, xx_srq(e, XX_SRQ_BASIC)->ci, 0U);
	KUNIT_EXPECT_NULL(test, memchr_inv(e->rbuf, 0, PAGE_SIZE));
}

/* An empty XRC SRQ: RNR NAKs until a receive is posted. */
static void xrc_rnr(struct kunit *test)
{
	struct xx_env *e = xx_env(test);
	struct xx_wr wr = { .opcode = XNIC_OP_SEND, .srqn = XX_SRQ,
			    .len = 32 };
	struct xnic_cqe *c;
	int tries;

	xx_post(e, &e->sq[0], 1, &wr);
	KUNIT_EXPECT_EQ(test, xx_run(e, XX_INI, 1, &tries), (int)XNIC_SIM_WAIT);
	KUNIT_EXPECT_EQ(test, xx_qp(e, XX_INI)->rnr_naks, 1ULL);
	KUNIT_EXPECT_EQ(test, xx_qp_state(e, XX_TGT), XNIC_QPS_RTR);
	KUNIT_EXPECT_NULL(test, xx_cqe(e, XX_CQ_INI));
	/* a receive in another domain's SRQ does not help */
	xx_post_recv(e, &e->srq[XX_SRQ2], 7, 0, 64);
	KUNIT_EXPECT_EQ(test, xx_run(e, XX_INI, 1, NULL), (int)XNIC_SIM_WAIT);
	KUNIT_EXPECT_EQ(test, xx_qp(e, XX_INI)->rnr_naks, 2ULL);
	KUNIT_EXPECT_EQ(test, xx_srq(e, XX_SRQ2)->ci, 0U);
	xx_post_recv(e, &e->srq[XX_SRQ], 8, 0, 64);
	KUNIT_EXPECT_EQ(test, xx_run(e, XX_INI, 1, NULL), (int)XNIC_SIM_DONE);
	c = xx_cqe(e, XX_CQ_INI);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_EQ(test, c->status, XNIC_CQE_SUCCESS);
	c = xx_cqe(e, XX_CQ_SRQ);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->wr_id), 8ULL);

	/* rnr_retry 2: the third NAK in a row fails the WQE */
	xx_post(e, &e->sq[0], 2, &wr);
	KUNIT_EXPECT_EQ(test, xx_run(e, XX_INI, XX_MAX_TRIES, &tries),
			(int)XNIC_SIM_DONE);
	KUNIT_EXPECT_EQ(test, tries, 3);
	c = xx_cqe(e, XX_CQ_INI);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_EQ(test, c->status, XNIC_CQE_RNR_RETRY_EXC_ERR);
}

/* Every SRQ's consumer count is in its doorbell record's sq_pi. */
static void xrc_srq_ci(struct kunit *test)
{
	struct xx_env *e = xx_env(test);
	struct xx_wr wr = { .opcode = XNIC_OP_SEND, .srqn = XX_SRQ,
			    .len = 16 };
	struct xx_q *q = &e->srq[XX_SRQ], *b = &e->srq[XX_SRQ_BASIC];
	u32 i;

	for (i = 0; i < 3; i++)
		xx_post_recv(e, q, i, i * 64, 64);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(q->rec->sq_pi), 0U);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, xx_exec(e, i, &wr), XNIC_CQE_SUCCESS);
		KUNIT_EXPECT_EQ(test, le32_to_cpu(q->rec->sq_pi), i + 1);
		KUNIT_EXPECT_EQ(test, le32_to_cpu(q->rec->rq_pi), 3U);
	}
	/* the other XRC SRQ's untouched */
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e->srq[XX_SRQ2].rec->sq_pi), 0U);

	/* a basic SRQ too: RC QP XX_RC on it, sent to by XX_RC2 */
	KUNIT_ASSERT_EQ(test, xx_qp_cmd(e, XX_RC, XNIC_QPT_RC, &e->sq[1],
					XX_SRQ_BASIC, 0, XX_CQ_RC, XX_CQ_RC,
					2), XNIC_CMD_OK);
	xx_q_mem(e, &e->rc_rq, XX_RQ_SHIFT);
	xx_q_mem(e, &e->sq[2], XX_SQ_SHIFT);
	{
		struct xnic_cmd_create_qp in = {
			.qpn = cpu_to_le32(XX_RC2), .qp_type = XNIC_QPT_RC,
			.sq_log_wqe = XX_Q_LOG, .sq_wqe_shift = XX_SQ_SHIFT,
			.rq_log_wqe = XX_Q_LOG, .rq_wqe_shift = XX_RQ_SHIFT,
			.pdn = cpu_to_le32(XX_PD_INI),
			.send_cqn = cpu_to_le32(XX_CQ_RC),
			.recv_cqn = cpu_to_le32(XX_CQ_RC),
			.srqn = cpu_to_le32(XNIC_NO_SRQ),
			.db_slot = cpu_to_le32(3),
			.sq_addr = cpu_to_le64(e->sq[2].ring_dma),
			.rq_addr = cpu_to_le64(e->rc_rq.ring_dma),
			.dbrec_addr = cpu_to_le64(e->sq[2].rec_dma),
		};

		KUNIT_ASSERT_EQ(test, XX_CMD(e, XNIC_CMD_CREATE_QP, in),
				XNIC_CMD_OK);
	}
	xx_connect(e, XX_RC, XX_RC2, false);
	xx_connect(e, XX_RC2, XX_RC, true);
	xx_post_recv(e, b, 9, 0, 64);
	wr.srqn = 0;
	xx_post(e, &e->sq[2], 9, &wr);
	KUNIT_EXPECT_EQ(test, xx_run(e, XX_RC2, 1, NULL), (int)XNIC_SIM_DONE);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(b->rec->sq_pi), 1U);
	KUNIT_ASSERT_NOT_NULL(test, xx_cqe(e, XX_CQ_RC));
	KUNIT_EXPECT_EQ(test, e->cq[XX_CQ_RC].ring[0].status,
			XNIC_CQE_SUCCESS);
}

/*
 * Destroying what a request needs while it is posted: the SRQ (the
 * target stays, the next request is invalid), the target QP (the
 * requester retries, then RETRY_EXC_ERR), the SRQ's CQ only after the
 * SRQ; every object goes.
 */
static void xrc_destroy_inflight(struct kunit *test)
{
	struct xx_env *e = xx_env(test);
	struct xx_wr wr = { .opcode = XNIC_OP_SEND, .srqn = XX_SRQ,
			    .len = 16 };
	struct xnic_cqe *c;
	int tries;

	/* receives posted, a SEND posted: the SRQ goes (no QP holds it) */
	xx_post_recv(e, &e->srq[XX_SRQ], 1, 0, 64);
	xx_post(e, &e->sq[0], 1, &wr);
	KUNIT_EXPECT_EQ(test, xx_destroy(e, XNIC_CMD_DESTROY_CQ, XX_CQ_SRQ),
			XNIC_CMD_BUSY);
	KUNIT_EXPECT_EQ(test, xx_destroy(e, XNIC_CMD_DESTROY_SRQ, XX_SRQ),
			XNIC_CMD_OK);
	KUNIT_EXPECT_EQ(test, xx_run(e, XX_INI, 1, NULL), (int)XNIC_SIM_DONE);
	c = xx_cqe(e, XX_CQ_INI);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_EQ(test, c->status, XNIC_CQE_REM_INV_REQ_ERR);
	KUNIT_EXPECT_NULL(test, xx_cqe(e, XX_CQ_SRQ));
	KUNIT_EXPECT_EQ(test, xx_destroy(e, XNIC_CMD_DESTROY_SRQ, XX_SRQ2),
			XNIC_CMD_OK);
	/* the SRQs gone, their CQ may go */
	KUNIT_EXPECT_EQ(test, xx_destroy(e, XNIC_CMD_DESTROY_CQ, XX_CQ_SRQ),
			XNIC_CMD_OK);

	/* a fresh pair; the target destroyed under a posted SEND */
	e = xx_env(test);
	xx_post_recv(e, &e->srq[XX_SRQ], 1, 0, 64);
	xx_post(e, &e->sq[0], 1, &wr);
	xx_post(e, &e->sq[0], 2, &wr);
	KUNIT_EXPECT_EQ(test, xx_destroy(e, XNIC_CMD_DESTROY_QP, XX_TGT),
			XNIC_CMD_OK);
	KUNIT_EXPECT_EQ(test, xx_run(e, XX_INI, XX_MAX_TRIES, &tries),
			(int)XNIC_SIM_DONE);
	KUNIT_EXPECT_EQ(test, tries, 3);
	c = xx_cqe(e, XX_CQ_INI);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_EQ(test, c->status, XNIC_CQE_RETRY_EXC_ERR);
	KUNIT_EXPECT_EQ(test, xx_srq(e, XX_SRQ)->ci, 0U);
	/* the initiator in ERR flushes the other WQE, no receive side */
	{
		u32 quota = 8;
		bool more = false;

		xnic_sim_qp_flush(e->d, xx_qp(e, XX_INI), &quota, &more);
		c = xx_cqe(e, XX_CQ_INI);
		KUNIT_ASSERT_NOT_NULL(test, c);
		KUNIT_EXPECT_EQ(test, le64_to_cpu(c->wr_id), 2ULL);
		KUNIT_EXPECT_EQ(test, c->status, XNIC_CQE_WR_FLUSH_ERR);
		KUNIT_EXPECT_NULL(test, xx_cqe(e, XX_CQ_INI));
		KUNIT_EXPECT_FALSE(test, xx_qp(e, XX_INI)->on_err);
	}
	/* the initiator goes with a WQE posted, then everything else */
	xx_post(e, &e->sq[0], 3, &wr);
	KUNIT_EXPECT_EQ(test, xx_destroy(e, XNIC_CMD_DESTROY_QP, XX_INI),
			XNIC_CMD_OK);
	KUNIT_EXPECT_EQ(test, xx_destroy(e, XNIC_CMD_DESTROY_SRQ, XX_SRQ),
			XNIC_CMD_OK);
	KUNIT_EXPECT_EQ(test, xx_destroy(e, XNIC_CMD_DESTROY_SRQ, XX_SRQ2),
			XNIC_CMD_OK);
	KUNIT_EXPECT_EQ(test, xx_destroy(e, XNIC_CMD_DESTROY_CQ, XX_CQ_SRQ),
			XNIC_CMD_OK);
	KUNIT_EXPECT_EQ(test, xx_destroy(e, XNIC_CMD_DESTROY_CQ, XX_CQ_INI),
			XNIC_CMD_OK);
	KUNIT_EXPECT_EQ(test, e->d->qps.count, 0U);
}

static struct kunit_case xrc_cases[] = {
	KUNIT_CASE(xrc_create),
	KUNIT_CASE(xrc_send),
	KUNIT_CASE(xrc_rdma),
	KUNIT_CASE(xrc_foreign_pd),
	KUNIT_CASE_PARAM(xrc_other_xrcd, xx_op_gen_params),
	KUNIT_CASE_PARAM(xrc_not_xrc_srq, xx_op_gen_params),
	KUNIT_CASE(xrc_target_not_tgt),
	KUNIT_CASE(xrc_rnr),
	KUNIT_CASE(xrc_srq_ci),
	KUNIT_CASE(xrc_destroy_inflight),
	{}
};

static struct kunit_suite xrc_suite = {
	.name = "xnic_sim_xrc",
	.test_cases = xrc_cases,
};

kunit_test_suite(xrc_suite);
