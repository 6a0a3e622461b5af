// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit fixture of a scripted requester for the wire's RC/UC/UD
 * responder (xnic_sim_wresp_fixture.h): an engine-less model device on a
 * fake wire, the responder's QPs, request packets and frames, and what
 * the responder sent back, parsed.  Used by kunit/xnic_sim_wresp_test.c
 * and kunit/xnic_sim_fault_wire_test.c.
 */
#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include "xnic_sim_wresp_fixture.h"

/* the remote requester's address */
const u8 kt_rgid[16] = {
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0xff, 0xfe, 0x33,
	0x44, 0x55,
};

const struct kt_sim_pair_cfg kt_pair_cfg = {
	.pd = KT_PD, .cq_log = KT_CQ_LOG, .all_key = KT_ALL_KEY,
	.mr_key = KT_MR_KEY, .mr_access = KT_REMOTE, .mr_iova = KT_MR_IOVA,
};

/* The fake wire: keep what the responder transmits. */
static void kt_tx(void *ctx, struct xnic_sim_dev *dev, struct sk_buff *skb)
{
	struct kt_env *e = ctx;

	skb_queue_tail(&e->cap, skb);
}

static void kt_wire_off(struct kunit_resource *res)
{
	struct kt_env *e = res->data;

	xnic_sim_wire_detach(e->d);
	skb_queue_purge(&e->cap);
}

struct kt_env *kt_env_cfg(struct kunit *test,
			  const struct kt_sim_pair_cfg *cfg)
{
	struct kt_env *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, e);
	e->test = test;
	kt_sim_pair_init(test, &e->p, cfg);
	e->d = e->p.d[1];
	skb_queue_head_init(&e->cap);
	KUNIT_ASSERT_EQ(test, xnic_sim_wire_attach_fake(e->d, kt_tx, e), 0);
	kt_defer(test, kt_wire_off, e);
	e->rbuf = kt_dma(test, 4 * PAGE_SIZE, &e->rbuf_dma);
	e->data = kunit_kzalloc(test, 4 * PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e->data);
	kt_fill_pattern(e->data, 4 * PAGE_SIZE, 1);
	for (i = 0; i < KT_MAX_OUT; i++) {
		e->out_pay[i] = kunit_kzalloc(test, 4096, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, e->out_pay[i]);
	}
	return e;
}

struct kt_env *kt_env(struct kunit *test)
{
	return kt_env_cfg(test, &kt_pair_cfg);
}

/* A wire QP of the responder in RTS, connected to the remote requester. */
struct kt_qp *kt_qp(struct kt_env *e, u32 qpn, u8 type)
{
	struct kunit *test = e->test;
	struct kt_qp *x = kunit_kzalloc(test, sizeof(*x), GFP_KERNEL);
	struct xnic_sim_qp *q;

	KUNIT_ASSERT_NOT_NULL(test, x);
	q = &x->q;
	q->dev = e->d;
	q->qpn = qpn;
	q->pdn = KT_PD;
	q->type = type;
	q->state = XNIC_QPS_RTS;
	q->scq = &e->p.cq[1];
	q->rcq = &e->p.cq[1];
	q->db = &e->p.db[1];
	q->slot = qpn % 64;
	x->rq = kt_dma(test, 1U << (KT_RQ_LOG + KT_RQ_SHIFT), &q->rq_addr);
	q->rq_log = KT_RQ_LOG;
	q->rq_shift = KT_RQ_SHIFT;
	x->rec = kt_dma(test, sizeof(*x->rec), &q->dbrec);
	q->mtu = XNIC_MTU_1024;
	q->min_rnr_timer = KT_RNR_TIMER;
	q->max_rd_atomic = 4;
	q->max_dest_rd_atomic = 4;
	q->port = 1;
	q->qkey = KT_QKEY;
	q->access = KT_REMOTE;
	q->sgid_index = 1;		/* the default GID, RoCEv2 */
	memcpy(q->dgid, kt_rgid, sizeof(q->dgid));
	q->dest_qpn = KT_RQPN;
	q->rq_psn = KT_PSN;
	spin_lock_init(&q->lock);
	INIT_LIST_HEAD(&q->active_node);
	INIT_LIST_HEAD(&q->err_node);
	if (!xnic_sim_qpt_ud(type)) {
		q->wire = true;
		q->wreq = kunit_kzalloc(test, sizeof(*q->wreq), GFP_KERNEL);
		q->wresp = kunit_kzalloc(test, sizeof(*q->wresp), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, q->wreq);
		KUNIT_ASSERT_NOT_NULL(test, q->wresp);
	}
	KUNIT_ASSERT_EQ(test, xnic_sim_tbl_insert(&e->d->qps, qpn, q), 0);
	return x;
}

/* A receive WQE of @len bytes at @off in the receive buffer. */
void kt_post_recv(struct kt_env *e, struct kt_qp *x, u64 wr_id,
		  u32 off, u32 len)
{
	u32 slot = x->rq_pi & ((1U << KT_RQ_LOG) - 1);
	struct xnic_rwqe *h = (void *)x->rq + (slot << KT_RQ_SHIFT);
	struct xnic_sge *sge = (void *)(h + 1);

	h->wr_id = cpu_to_le64(wr_id);
	h->num_sge = 1;
	sge->addr = cpu_to_le64(e->rbuf_dma + off);
	sge->length = cpu_to_le32(len);
	sge->lkey = cpu_to_le32(KT_ALL_KEY);
	h->owner = (x->rq_pi >> KT_RQ_LOG) & 1;
	x->rq_pi++;
	x->rec->rq_pi = cpu_to_le32(x->rq_pi);
}

/* A request of the remote requester to @x: BTH and addresses. */
struct xnic_sim_pkt kt_req(struct kt_env *e, struct kt_qp *x, u8 op,
			   u32 psn)
{
	struct xnic_sim_pkt p = {
		.opcode = op, .pkey = XNIC_SIM_DEFAULT_PKEY,
		.dqpn = x->q.qpn, .psn = psn & 0xffffff,
		.hop_limit = 64, .sqpn = KT_RQPN, .qkey = KT_QKEY,
	};

	memcpy(p.sgid, kt_rgid, 16);
	memcpy(p.dgid, e->d->gid, 16);
	return p;
}

/* @len bytes of payload, @off into the data, on @p. */
void kt_pay(struct kt_env *e, struct xnic_sim_pkt *p, u32 off,
	    u32 len)
{
	p->payload = e->data + off;
	p->paylen = len;
}

/* A READ request of @len bytes at @va (key @rkey) at @psn to @x. */
struct xnic_sim_pkt kt_read_req(struct kt_env *e, struct kt_qp *x,
				u32 psn, u64 va, u32 rkey, u32 len)
{
	struct xnic_sim_pkt p = kt_req(e, x, XNIC_SIM_BTH_READ_REQUEST, psn);

	p.va = va;
	p.rkey = rkey;
	p.dma_len = len;
	return p;
}

/* The wire's RX poll hands @p to the device (engine: exec_lock held). */
void kt_rx(struct kt_env *e, const struct xnic_sim_pkt *p)
{
	mutex_lock(&e->d->exec_lock);
	xnic_sim_roce_recv(e->d, p);
	mutex_unlock(&e->d->exec_lock);
}

/* The end of an engine pass: the ACKs owed. */
void kt_pass_end(struct kt_env *e)
{
	mutex_lock(&e->d->exec_lock);
	xnic_sim_wresp_flush_acks(e->d);
	mutex_unlock(&e->d->exec_lock);
}

/* Parse the frames sent since the last call into e->out.  Return: count. */
u32 kt_out(struct kt_env *e)
{
	struct kunit *test = e->test;
	struct sk_buff *skb;
	u32 i;

	e->nout = 0;
	for (i = 0; (skb = skb_dequeue(&e->cap)); i++) {
		struct xnic_sim_pkt *p = &e->out[e->nout];

		if (e->nout == KT_MAX_OUT) {
			kfree_skb(skb);
			continue;
		}
		memset(p, 0, sizeof(*p));
		KUNIT_EXPECT_EQ_MSG(test,
				    xnic_sim_pkt_parse(skb->data, skb->len, p),
				    XNIC_SIM_DROP_NONE, "frame %u", i);
		KUNIT_ASSERT_LE(test, p->paylen, 4096U);
		memcpy(e->out_pay[e->nout], p->payload, p->paylen);
		p->payload = e->out_pay[e->nout];
		/* every answer goes to the requester, from the QP's GID */
		KUNIT_EXPECT_EQ(test, memcmp(p->dgid, kt_rgid, 16), 0);
		KUNIT_EXPECT_EQ(test, memcmp(p->sgid, e->d->gid, 16), 0);
		KUNIT_EXPECT_EQ(test, p->dqpn, (u32)KT_RQPN);
		kfree_skb(skb);
		e->nout++;
	}
	KUNIT_EXPECT_LE(test, i, (u32)KT_MAX_OUT);
	return e->nout;
}

/* Answer @i is an ACK/NAK: BTH PSN, syndrome and MSN. */
void kt_expect_ack(struct kt_env *e, u32 i, u32 psn, u8 syndrome,
		   u32 msn)
{
	struct kunit *test = e->test;
	const struct xnic_sim_pkt *p = &e->out[i];

	KUNIT_ASSERT_LT(test, i, e->nout);
	KUNIT_EXPECT_EQ(test, p->opcode, XNIC_SIM_BTH_ACK);
	KUNIT_EXPECT_EQ(test, p->psn, psn & 0xffffff);
	KUNIT_EXPECT_EQ(test, p->syndrome, syndrome);
	KUNIT_EXPECT_EQ(test, p->msn, msn);
}

u32 kt_cqes(struct kt_env *e)
{
	return e->p.cq[1].pi;
}

struct xnic_cqe *kt_cqe(struct kt_env *e, u32 i)
{
	struct xnic_cqe *c = phys_to_virt(e->p.cq[1].ring);

	return &c[i];
}

u64 kt_ctr(struct kt_env *e, enum xnic_sim_ctr c)
{
	return kt_sim_ctr(e->d, c);
}

/*
 * @p from the remote requester as the wire receives it (its MAC, to the
 * port's), queued for the engine by the rx_handler's path.
 */
void kt_wire_rx(struct kt_env *e, struct xnic_sim_pkt *p)
{
	static const u8 rmac[6] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 };
	u32 flen = xnic_sim_pkt_frame_len(p);
	struct sk_buff *skb = alloc_skb(flen, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(e->test, skb);
	ether_addr_copy(p->smac, rmac);
	xnic_sim_eth_mac(e->d->guid, p->dmac);
	p->sport = 0xc000;
	skb_put(skb, flen);
	xnic_sim_pkt_write_hdr(skb->data, p);
	if (p->paylen)
		memcpy(skb->data + xnic_sim_pkt_hdr_len(p), p->payload,
		       p->paylen);
	xnic_sim_pkt_seal(skb->data, p);
	xnic_sim_wire_inject(e->d, skb);
}

/*
 * The engine's RX poll of a pass: whether it took frames; *@next: the
 * release time of a frame still held back (xnic_sim_now()), else U64_MAX.
 */
bool kt_rx_poll_next(struct kt_env *e, u64 *next)
{
	bool any;

	*next = U64_MAX;
	mutex_lock(&e->d->exec_lock);
	any = xnic_sim_wire_rx_poll(e->d, XNIC_SIM_WIRE_RX_BUDGET, next);
	mutex_unlock(&e->d->exec_lock);
	return any;
}

/* The engine's RX poll of a pass: whether it took frames. */
bool kt_rx_poll(struct kt_env *e)
{
	u64 next;

	return kt_rx_poll_next(e, &next);
}

/* A WRITE ONLY of 64 bytes at PSN KT_PSN + @i (data and MR offset 64 * @i) */
struct xnic_sim_pkt kt_write64(struct kt_env *e, struct kt_qp *x,
			       int i, bool ackreq)
{
	struct xnic_sim_pkt p = kt_req(e, x, XNIC_SIM_BTH_WRITE_ONLY,
				       KT_PSN + i);

	p.va = KT_MR_IOVA + 64 * i;
	p.rkey = KT_MR_KEY;
	p.dma_len = 64;
	p.ackreq = ackreq;
	kt_pay(e, &p, 64 * i, 64);
	return p;
}
