// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma_cmtest cases.  Each gets a fresh struct ct (listener, client and
 * server ends on the port of its own) that ct_fini() tears down after it;
 * a case records its first failure with CT_OK and returns.
 */
#include <linux/string.h>
#include "cmtest.h"

#define CT_CANARY	0x5a

/* the QP of @e is in @state */
static bool ct_qp_state(struct ct *t, struct ct_end *e,
			enum ib_qp_state state)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr a;
	int ret;

	ret = ib_query_qp(e->id->qp, &a, IB_QP_STATE, &init);
	if (!CT_OK(t, !ret, "%s ib_query_qp: %d", e->role, ret))
		return false;
	return CT_OK(t, a.qp_state == state, "%s QP state %d, want %d",
		     e->role, a.qp_state, state);
}

/* every receive still posted on @e completes with WR_FLUSH_ERR */
static bool ct_recvs_flushed(struct ct *t, struct ct_end *e)
{
	while (e->next_recv < e->nrecv)
		if (!ct_wait_recv(t, e, IB_WC_WR_FLUSH_ERR, e->role))
			return false;
	return true;
}

/* SEND @len bytes of pattern @seed from @a to @b; @b checks them */
static bool ct_send_check(struct ct *t, struct ct_end *a, struct ct_end *b,
			  size_t len, u32 seed)
{
	struct ct_wr *w;
	long bad;

	ct_pat_fill(ct_send_buf(a, 0), len, seed);
	if (ct_send_msg(t, a, 0, len, "SEND"))
		return false;
	if (!ct_wait_wr(t, &a->swr[0], IB_WC_SUCCESS, IB_WC_SEND, "SEND"))
		return false;
	w = ct_wait_recv(t, b, IB_WC_SUCCESS, "RECV");
	if (!w)
		return false;
	if (!CT_OK(t, w->byte_len == len, "%s received %u bytes, sent %zu",
		   b->role, w->byte_len, len))
		return false;
	bad = ct_pat_check(ct_recv_buf(b, w), len, seed);
	return CT_OK(t, bad < 0, "%s received wrong data at byte %ld of %zu",
		     b->role, bad, len);
}

/*
 * resolve address and route, listen, connect: ESTABLISHED on both ends
 * with the private data of the request and of the accept, both QPs RTS;
 * then an orderly disconnect
 */
static void ct_case_connect(struct ct *t)
{
	if (ct_establish(t))
		return;
	if (!ct_qp_state(t, &t->cli, IB_QPS_RTS) ||
	    !ct_qp_state(t, &t->srv, IB_QPS_RTS))
		return;
	ct_note(t, "%s client_qpn=%u server_qpn=%u",
		dev_name(&t->cli.id->device->dev), t->cli.id->qp->qp_num,
		t->srv.id->qp->qp_num);
	ct_disconnect(t);
	ct_quiet(t);
}

/* SEND/RECV both ways, data and lengths checked (1 B to a full slot) */
static void ct_case_send(struct ct *t)
{
	if (ct_establish(t))
		return;
	if (!ct_send_check(t, &t->cli, &t->srv, 200, 1) ||
	    !ct_send_check(t, &t->srv, &t->cli, 1, 2) ||
	    !ct_send_check(t, &t->srv, &t->cli, CT_MSG, 3) ||
	    !ct_send_check(t, &t->cli, &t->srv, CT_MSG - 1, 4))
		return;
	ct_disconnect(t);
	ct_quiet(t);
}

/* @len bytes at @off of the server's MR hold pattern @seed, the rest
 * CT_CANARY (@seed 0: all canary)
 */
static bool ct_mr_check(struct ct *t, size_t off, size_t len, u32 seed,
			const char *what)
{
	const u8 *p = t->srv.mr_va;
	size_t i, end = off + len;
	long bad;

	for (i = 0; i < CT_MR_PAGES * PAGE_SIZE; i++)
		if ((i < off || i >= end) && p[i] != CT_CANARY)
			return CT_OK(t, false,
				     "%s: byte %zu of the MR outside [%zu, %zu) changed",
				     what, i, off, end);
	bad = ct_pat_check(p + off, len, seed);
	return CT_OK(t, bad < 0, "%s: wrong data at byte %ld of %zu", what,
		     bad, len);
}

static int ct_rdma(struct ct *t, enum ib_wr_opcode op, size_t loff,
		   u64 raddr, u32 rkey, size_t len, int slot)
{
	struct ct_end *c = &t->cli;
	struct ib_sge sge = {
		.addr = c->data_dma + loff,
		.length = len,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr.opcode = op,
		.wr.sg_list = &sge,
		.wr.num_sge = 1,
		.remote_addr = raddr,
		.rkey = rkey,
	};

	return ct_post_send(t, c, slot, &wr.wr,
			    op == IB_WR_RDMA_READ ? "RDMA READ" : "RDMA WRITE");
}

/*
 * The server fast-registers CT_MR_PAGES separate pages (ib_alloc_mr,
 * ib_map_mr_sg, IB_WR_REG_MR) and SENDs its address and rkey; the client
 * RDMA WRITEs into it across page boundaries and SENDs a note, the server
 * checks the bytes (and that nothing around them changed); the client
 * RDMA READs a pattern the server wrote into an unaligned spot; the server
 * invalidates the MR (IB_WR_LOCAL_INV) and a READ through the old rkey
 * fails with REM_ACCESS_ERR.
 */
static void ct_case_rdma(struct ct *t)
{
	struct ct_end *c = &t->cli, *s = &t->srv;
	const size_t wlen = 2 * PAGE_SIZE + 300, woff = 100;
	const size_t rlen = 3 * PAGE_SIZE - 10, roff = PAGE_SIZE / 2 + 3;
	const size_t lrd = 8;	/* where READ data lands in the client's */
	struct ct_desc *d;
	struct ct_wr *w;
	u64 iova;
	u32 rkey;
	long bad;
	size_t i;

	if (ct_establish(t) || ct_mr_setup(t, s))
		return;
	memset(s->mr_va, CT_CANARY, CT_MR_PAGES * PAGE_SIZE);
	ct_sync_for_dev(s);
	if (ct_mr_reg(t, s, 0))
		return;
	d = (struct ct_desc *)ct_send_buf(s, 1);
	d->addr = cpu_to_le64(s->mr->iova);
	d->rkey = cpu_to_le32(s->mr->rkey);
	d->len = cpu_to_le32(s->mr->length);
	if (ct_send_msg(t, s, 1, sizeof(*d), "SEND desc") ||
	    !ct_wait_wr(t, &s->swr[1], IB_WC_SUCCESS, IB_WC_SEND, "SEND desc"))
		return;
	w = ct_wait_recv(t, c, IB_WC_SUCCESS, "RECV desc");
	if (!w || !CT_OK(t, w->byte_len == sizeof(*d), "desc: %u bytes",
			 w->byte_len))
		return;
	d = (struct ct_desc *)ct_recv_buf(c, w);
	iova = le64_to_cpu(d->addr);
	rkey = le32_to_cpu(d->rkey);
	if (!CT_OK(t, le32_to_cpu(d->len) == CT_MR_PAGES * PAGE_SIZE,
		   "MR length %u", le32_to_cpu(d->len)))
		return;

	/* RDMA WRITE across pages, then a SEND: the data is there before */
	ct_pat_fill(c->data, wlen, 7);
	ct_sync_for_dev(c);
	if (ct_rdma(t, IB_WR_RDMA_WRITE, 0, iova + woff, rkey, wlen, 0) ||
	    !ct_wait_wr(t, &c->swr[0], IB_WC_SUCCESS, IB_WC_RDMA_WRITE,
			"RDMA WRITE"))
		return;
	ct_send_buf(c, 1)[0] = 'w';
	if (ct_send_msg(t, c, 1, 1, "SEND note") ||
	    !ct_wait_wr(t, &c->swr[1], IB_WC_SUCCESS, IB_WC_SEND, "SEND note") ||
	    !ct_wait_recv(t, s, IB_WC_SUCCESS, "RECV note"))
		return;
	ct_sync_for_cpu(s);
	if (!ct_mr_check(t, woff, wlen, 7, "RDMA WRITE"))
		return;

	/* RDMA READ of what the server wrote, to an unaligned local spot */
	memset(s->mr_va, CT_CANARY, CT_MR_PAGES * PAGE_SIZE);
	ct_pat_fill(s->mr_va + roff, rlen, 9);
	ct_sync_for_dev(s);
	memset(c->data, 0, CT_DATA);
	ct_sync_for_dev(c);
	if (ct_rdma(t, IB_WR_RDMA_READ, lrd, iova + roff, rkey, rlen, 2) ||
	    !ct_wait_wr(t, &c->swr[2], IB_WC_SUCCESS, IB_WC_RDMA_READ,
			"RDMA READ"))
		return;
	ct_sync_for_cpu(c);
	bad = ct_pat_check(c->data + lrd, rlen, 9);
	if (!CT_OK(t, bad < 0, "RDMA READ: wrong data at byte %ld of %zu", bad,
		   rlen))
		return;
	for (i = 0; i < CT_DATA; i++)
		if (i < lrd || i >= lrd + rlen)
			if (!CT_OK(t, !c->data[i],
				   "RDMA READ wrote byte %zu outside its SGE", i))
				return;
	if (!ct_mr_check(t, roff, rlen, 9, "after RDMA READ"))
		return;

	/* invalidated: the rkey no longer works */
	if (ct_mr_inv(t, s, 0))
		return;
	if (ct_rdma(t, IB_WR_RDMA_READ, 0, iova, rkey, 64, 3) ||
	    !ct_wait_wr(t, &c->swr[3], IB_WC_REM_ACCESS_ERR, -1,
			"RDMA READ through an invalidated rkey"))
		return;
	ct_note(t, "WRITE %zu B, READ %zu B over a %d-page MR, LOCAL_INV ok",
		wlen, rlen, CT_MR_PAGES);
	ct_disconnect(t);
	ct_quiet(t);
}

/*
 * An orderly disconnect: DISCONNECTED on both ends with status 0, every
 * receive still posted on either QP flushed (WR_FLUSH_ERR), QPs in ERR;
 * ct_fini() then frees it all (the leak check is the framework's).
 */
static void ct_case_disconnect(struct ct *t)
{
	if (ct_establish(t))
		return;
	if (!ct_send_check(t, &t->cli, &t->srv, 16, 5))
		return;
	ct_disconnect(t);
	if (t->failed)
		return;
	if (!ct_recvs_flushed(t, &t->cli) || !ct_recvs_flushed(t, &t->srv))
		return;
	if (!ct_qp_state(t, &t->cli, IB_QPS_ERR) ||
	    !ct_qp_state(t, &t->srv, IB_QPS_ERR))
		return;
	ct_quiet(t);
}

/*
 * The server rejects with private data: the client sees REJECTED with
 * status IB_CM_REJ_CONSUMER_DEFINED and that private data, its QP goes to
 * ERR (its receives flush); the server never sees ESTABLISHED.
 */
static void ct_case_reject(struct ct *t)
{
	static const u8 rej[] = "xrdma_cmtest reject";
	const int ev = RDMA_CM_EVENT_REJECTED;
	struct ct_end *c = &t->cli;
	int got;

	t->mode = CT_REJECT;
	if (ct_listen(t) || ct_resolve(t) || ct_connect(t))
		return;
	if (!ct_wait_ev(t, c, BIT(ev) | BIT(RDMA_CM_EVENT_ESTABLISHED) |
			BIT(RDMA_CM_EVENT_UNREACHABLE) |
			BIT(RDMA_CM_EVENT_CONNECT_ERROR), &got, "reject"))
		return;
	if (!CT_OK(t, got == ev, "client got %s status %d, want REJECTED",
		   rdma_event_msg(got), c->status[got]))
		return;
	/* recorded after the handler's rdma_reject() returned */
	if (!ct_wait_ev(t, &t->srv, BIT(RDMA_CM_EVENT_CONNECT_REQUEST), NULL,
			"reject") ||
	    !CT_OK(t, !t->accept_err, "server rdma_reject: %d",
		   t->accept_err))
		return;
	if (!CT_OK(t, c->status[ev] == IB_CM_REJ_CONSUMER_DEFINED,
		   "REJECTED status %d (%s), want %d", c->status[ev],
		   rdma_reject_msg(c->id, c->status[ev]),
		   IB_CM_REJ_CONSUMER_DEFINED))
		return;
	if (!CT_OK(t, c->pdata_len[ev] >= sizeof(rej) &&
		   !memcmp(c->pdata[ev], rej, sizeof(rej)),
		   "REJECTED private data (%u bytes) is not the server's",
		   c->pdata_len[ev]))
		return;
	if (!CT_OK(t, !ct_seen(&t->srv, RDMA_CM_EVENT_ESTABLISHED),
		   "the rejecting server saw ESTABLISHED"))
		return;
	if (!ct_recvs_flushed(t, c))
		return;
	ct_quiet(t);
}

/*
 * Nobody listens on the port: the connect ends in REJECTED (not by a
 * consumer) or UNREACHABLE within the bound, never ESTABLISHED.
 */
static void ct_case_unreachable(struct ct *t)
{
	struct ct_end *c = &t->cli;
	int got;

	if (ct_resolve(t) || ct_connect(t))
		return;
	if (!ct_wait_ev(t, c, BIT(RDMA_CM_EVENT_REJECTED) |
			BIT(RDMA_CM_EVENT_UNREACHABLE) |
			BIT(RDMA_CM_EVENT_ESTABLISHED) |
			BIT(RDMA_CM_EVENT_CONNECT_ERROR), &got, "unreachable"))
		return;
	if (!CT_OK(t, got == RDMA_CM_EVENT_REJECTED ||
		   got == RDMA_CM_EVENT_UNREACHABLE,
		   "client got %s status %d", rdma_event_msg(got),
		   c->status[got]))
		return;
	if (!CT_OK(t, got != RDMA_CM_EVENT_REJECTED ||
		   c->status[got] != IB_CM_REJ_CONSUMER_DEFINED,
		   "REJECTED as if by a consumer, with nobody listening"))
		return;
	ct_note(t, "%s status %d (%s)", rdma_event_msg(got), c->status[got],
		got == RDMA_CM_EVENT_REJECTED ?
		rdma_reject_msg(c->id, c->status[got]) : "-");
	ct_quiet(t);
}

/*
 * The peer's QP vanishes without any CM message (to ERR, destroyed; its
 * cm_id stays): the client's next SEND completes with an error (transport
 * retries exhausted) within the bound and its receives flush.  Short ACK
 * timeout and 3 retries keep that bound small.
 */
static void ct_case_peer_gone_qp(struct ct *t)
{
	struct ib_qp_attr a = { .qp_state = IB_QPS_ERR };
	struct ct_end *c = &t->cli, *s = &t->srv;
	int ret;

	t->retry_count = 3;
	t->ack_timeout = 17;	/* 4.096 us << 17: about 0.5 s */
	if (ct_establish(t) || !ct_send_check(t, c, s, 32, 11))
		return;
	ret = ib_modify_qp(s->id->qp, &a, IB_QP_STATE);
	if (!CT_OK(t, !ret, "server QP to ERR: %d", ret))
		return;
	ct_destroy_qp(s);
	ct_pat_fill(ct_send_buf(c, 0), 32, 12);
	if (ct_send_msg(t, c, 0, 32, "SEND to a vanished QP") ||
	    !ct_wait_err(t, &c->swr[0], "SEND to a vanished QP"))
		return;
	ct_note(t, "SEND completed with %s",
		ib_wc_status_msg(c->swr[0].status));
	if (!ct_recvs_flushed(t, c))
		return;
	ct_quiet(t);
}

/*
 * The peer goes away without disconnecting (QP and cm_id destroyed, no
 * rdma_disconnect): the client sees DISCONNECTED within the bound; as a
 * ULP it then disconnects itself and its receives flush.
 */
static void ct_case_peer_gone_id(struct ct *t)
{
	struct ct_end *c = &t->cli, *s = &t->srv;
	int ret;

	if (ct_establish(t) || !ct_send_check(t, s, c, 32, 13))
		return;
	ct_destroy_qp(s);
	ct_destroy_id(s);
	if (!ct_wait_ev(t, c, BIT(RDMA_CM_EVENT_DISCONNECTED), NULL,
			"peer gone"))
		return;
	ret = rdma_disconnect(c->id);
	ct_note(t, "client DISCONNECTED status %d, its rdma_disconnect %d",
		c->status[RDMA_CM_EVENT_DISCONNECTED], ret);
	if (!ct_recvs_flushed(t, c))
		return;
	ct_quiet(t);
}

const struct ct_case ct_cases[] = {
	{ "connect", ct_case_connect },
	{ "send", ct_case_send },
	{ "rdma", ct_case_rdma },
	{ "disconnect", ct_case_disconnect },
	{ "reject", ct_case_reject },
	{ "unreachable", ct_case_unreachable },
	{ "peer_gone_qp", ct_case_peer_gone_qp },
	{ "peer_gone_id", ct_case_peer_gone_id },
};

const unsigned int ct_ncases = ARRAY_SIZE(ct_cases);
