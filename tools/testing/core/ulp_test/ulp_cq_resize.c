// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_ulp_test: resizing a kernel CQ (xrdma_resize_cq) with RC traffic in
 * flight, as a ULP would: every completion once, in order, data intact;
 * bad sizes and a shrink below the completions held are -EINVAL.
 */
#include <linux/delay.h>
#include "xnic_ulp.h"

#define UR_MSG		64
#define UR_WINDOW	8
#define UR_N		512

static const u32 ur_sizes[] = { 8, 64, 4096, 16, 8, 1024, 9, 100 };

/* receive @seq into its slot of @rb */
static int ur_recv(struct ulpt *t, struct ulpt_q *qb, struct ulpt_buf *rb,
		   u64 seq)
{
	struct xrdma_sge sge = {
		.addr = ulpt_buf_dma(rb, (seq % (2 * UR_WINDOW)) * UR_MSG),
		.length = UR_MSG, .lkey = qb->side->dmr->lkey,
	};
	struct xrdma_recv_wr wr = { .wr_id = seq, .sg_list = &sge,
				    .num_sge = 1 };

	return ulpt_post_recv(t, qb, &wr);
}

/* message @seq: its number in every byte's slot, signaled */
static int ur_send(struct ulpt *t, struct ulpt_q *qa, struct ulpt_buf *sb,
		   u64 seq)
{
	size_t off = (seq % (2 * UR_WINDOW)) * UR_MSG;
	struct xrdma_sge sge = {
		.addr = ulpt_buf_dma(sb, off), .length = UR_MSG,
		.lkey = qa->side->dmr->lkey,
	};
	struct xrdma_send_wr wr = {
		.wr_id = seq, .opcode = XRDMA_WR_SEND, .sg_list = &sge,
		.num_sge = 1, .send_flags = XRDMA_SEND_SIGNALED,
	};

	ulpt_buf_to_cpu(sb);
	memset(sb->va + off, (int)(seq & 0xff), UR_MSG);
	ulpt_buf_to_dev(sb);
	return ulpt_post_send(t, qa, &wr);
}

static bool ur_recv_ok(struct ulpt *t, struct ulpt_buf *rb,
		       const struct xrdma_wc *wc, u64 want)
{
	size_t off = (want % (2 * UR_WINDOW)) * UR_MSG;

	if (!ULPT_OK(t, wc->status == XRDMA_WC_SUCCESS &&
		     wc->opcode == XRDMA_WC_RECV && wc->wr_id == want &&
		     wc->byte_len == UR_MSG,
		     "receive %llu: wr_id %llu %s opcode %d len %u", want,
		     wc->wr_id, ulpt_wc_status_str(wc->status), wc->opcode,
		     wc->byte_len))
		return false;
	ulpt_buf_to_cpu(rb);
	return ULPT_OK(t, !memchr_inv(rb->va + off, (int)(want & 0xff), UR_MSG),
		       "receive %llu: data differs", want);
}

static bool ur_resize(struct ulpt *t, struct ulpt_cq *cq, u32 n)
{
	int ret = xrdma_resize_cq(cq->cq, n);

	return ULPT_OK(t, !ret && cq->cq->cqe >= n,
		       "resize_cq(%u): %d, cqe %u", n, ret, cq->cq->cqe);
}

void ulpt_case_cq_resize(struct ulpt *t)
{
	struct ulpt_qp_opts o = { .cqe = UR_WINDOW, .send_wr = 2 * UR_WINDOW,
				.recv_wr = 2 * UR_WINDOW };
	u64 posted = 0, sent = 0, rdone = 0, sdone = 0;
	unsigned long deadline;
	struct ulpt_buf *sb, *rb;
	struct xrdma_wc wc[UR_WINDOW + 1];
	struct ulpt_q *qa, *qb;
	unsigned int round = 0;
	int i, got, ret;

	if (!ULPT_OK(t, !ulpt_pair(t, &o, &qa, &qb), "pair"))
		return;
	sb = ulpt_buf_alloc(t, qa->side, 2 * UR_WINDOW * UR_MSG, false);
	rb = ulpt_buf_alloc(t, qb->side, 2 * UR_WINDOW * UR_MSG, false);
	if (!sb || !rb)
		return;

	/* bad sizes change nothing */
	ULPT_OK(t, xrdma_resize_cq(qb->rcq->cq, 0) == -EINVAL, "cqe 0");
	ULPT_OK(t, xrdma_resize_cq(qb->rcq->cq,
				   qb->side->attr.max_cqe + 1) == -EINVAL,
		"cqe max_cqe + 1");
	ULPT_OK(t, qb->rcq->cq->cqe == UR_WINDOW, "cqe %u after the failures",
		qb->rcq->cq->cqe);

	/* traffic; both CQs resized after each batch, before polling */
	deadline = jiffies + msecs_to_jiffies(ulpt_timeout_ms);
	while ((rdone < UR_N || sdone < UR_N) && !t->failed &&
	       time_before(jiffies, deadline)) {
		while (posted < UR_N && posted - rdone < UR_WINDOW)
			if (ur_recv(t, qb, rb, posted++))
				return;
		while (sent < posted && sent - sdone < UR_WINDOW)
			if (ur_send(t, qa, sb, sent++))
				return;
		ur_resize(t, qb->rcq, ur_sizes[round % ARRAY_SIZE(ur_sizes)]);
		ur_resize(t, qa->scq,
			  ur_sizes[(round + 3) % ARRAY_SIZE(ur_sizes)]);
		round++;
		got = xrdma_poll_cq(qb->rcq->cq, UR_WINDOW, wc);
		for (i = 0; i < got; i++)
			ur_recv_ok(t, rb, &wc[i], rdone++);
		got = xrdma_poll_cq(qa->scq->cq, UR_WINDOW, wc);
		for (i = 0; i < got; i++, sdone++)
			ULPT_OK(t, wc[i].status == XRDMA_WC_SUCCESS &&
				wc[i].wr_id == sdone, "send %llu: wr_id %llu %s",
				sdone, wc[i].wr_id,
				ulpt_wc_status_str(wc[i].status));
		if (!got)
			usleep_range(20, 100);
	}
	if (!ULPT_OK(t, rdone == UR_N && sdone == UR_N,
		     "%llu received, %llu sent of %u", rdone, sdone, UR_N))
		return;

	/*
	 * 8 messages, then a 9th: once it completed, the 8 receive CQEs are
	 * in B's CQ (WQEs execute in order, a SEND's receive CQE is written
	 * before the next WQE executes)
	 */
	if (!ur_resize(t, qb->rcq, 64) || !ur_resize(t, qa->scq, 64))
		return;
	for (i = 0; i <= UR_WINDOW; i++)
		if (ur_recv(t, qb, rb, posted + i) ||
		    ur_send(t, qa, sb, posted + i))
			return;
	if (!ULPT_OK(t, ulpt_poll(t, qa->scq, wc, UR_WINDOW + 1, ulpt_timeout_ms) ==
		     UR_WINDOW + 1, "the 9 sends completed"))
		return;
	ret = xrdma_resize_cq(qb->rcq->cq, 4);
	ULPT_OK(t, ret == -EINVAL, "shrink to 4 below 8 completions: %d", ret);
	ULPT_OK(t, ur_resize(t, qb->rcq, UR_WINDOW + 1),
		"shrink to hold exactly the completions");
	got = ulpt_poll(t, qb->rcq, wc, UR_WINDOW + 1, ulpt_timeout_ms);
	if (!ULPT_OK(t, got == UR_WINDOW + 1, "%d of 9 received", got))
		return;
	for (i = 0; i <= UR_WINDOW; i++)
		ur_recv_ok(t, rb, &wc[i], posted + i);
	ulpt_quiet(t, qb->rcq, 10, "after the resizes");
	ulpt_note(t, "%u messages, %u resizes of each CQ", UR_N, round);
}
