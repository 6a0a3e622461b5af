// SPDX-License-Identifier: GPL-2.0
/*
 * xv_resize: ibv_resize_cq and SRQ resize (ibv_modify_srq with
 * IBV_SRQ_MAX_WR) with traffic in flight (issue 15).  Built against the
 * system's <infiniband/verbs.h>; run over xrdma with scripts/xrdma-run
 * (tools/testing/lib/xverbs/xverbs_resize.sh).  Every test moves messages
 * from RC QP A to RC QP B on one device, each carrying its sequence
 * number, and accounts for every wr_id: each completes exactly once, in
 * order, with its data.
 *
 *   cq_traffic  A's send CQ and B's receive CQ are resized (grown and
 *               shrunk, never below the completions they can hold) after
 *               every batch of sends, before it is polled
 *   cq_threads  one thread polls B's CQ, another resizes it, the main
 *               thread posts
 *   cq_shrink   with 8 receive completions waiting: shrinking below 8 is
 *               EINVAL and changes nothing, grow and shrink to 8 keep the
 *               8, in order; an arm made before a resize fires after it
 *   cq_args     cqe 0, negative, beyond max_cqe: EINVAL, cqe unchanged;
 *               the same size is a no-op; max_cqe works; the raw ioctl
 *               with a bad handle, another object's handle, flags,
 *               reserved, a short structure, no room for the answer
 *   srq_grow    an SRQ grows with its receives posted and messages in
 *               flight: none lost, max_wr receives post and one more is
 *               ENOMEM; shrinking, 0, beyond max_srq_wr, a limit above
 *               max_wr are EINVAL and change nothing; SRQ_RESIZE reported
 *   exit_dirty  (only when named) resize a CQ and an SRQ, then exit
 *               without destroying anything
 *
 *   -d IBDEV  device (xnic0)   -n N  messages per traffic test (2000)
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <xrdma/xrdma-abi.h>
#include <xrdma/xnic-abi.h>
#include "xt.h"
#include "xt_verbs.h"

#define MSG		64	/* bytes per message */
#define SLOTS		64	/* buffer slots per side */
#define WINDOW		16	/* receives (and sends) outstanding at most */
#define WAIT_MS		10000

static const char *dev_name = "xnic0";
static int nmsg = 2000;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_device_attr da;
static union ibv_gid gid;

/* CQ sizes the traffic tests cycle through: none below WINDOW */
static const int sizes[] = { 16, 64, 4096, 32, 16, 1024, 17, 100, 2048, 20 };

/* A sends, B receives (on its own QP or an SRQ) */
struct rig {
	struct ibv_cq *acq, *bcq;
	struct ibv_qp *a, *b;
	struct ibv_srq *srq;
	struct xt_buf sbuf, rbuf;
};

static struct ibv_qp *qp_new(struct ibv_cq *cq, struct ibv_srq *srq)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .srq = srq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 2 * WINDOW, .max_recv_wr = srq ? 0 : 2 * WINDOW,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &ia);

	if (!qp)
		xt_bail(errno, "ibv_create_qp");
	return qp;
}

/* the rig; @srq: B receives on it; @chan: B's CQ reports to it */
static void rig_new(struct rig *r, struct ibv_srq *srq,
		    struct ibv_comp_channel *chan)
{
	int ret;

	memset(r, 0, sizeof(*r));
	r->acq = ibv_create_cq(ctx, WINDOW, NULL, NULL, 0);
	r->bcq = ibv_create_cq(ctx, WINDOW, NULL, chan, 0);
	if (!r->acq || !r->bcq)
		xt_bail(errno, "ibv_create_cq");
	r->srq = srq;
	r->a = qp_new(r->acq, NULL);
	r->b = qp_new(r->bcq, srq);
	ret = xt_rc_rts(r->a, r->b->qp_num, &gid, IBV_MTU_1024, NULL);
	if (!ret)
		ret = xt_rc_rts(r->b, r->a->qp_num, &gid, IBV_MTU_1024, NULL);
	if (ret)
		xt_bail(ret, "connecting A and B");
	if (!xt_buf_new(&r->sbuf, pd, MSG * SLOTS, IBV_ACCESS_LOCAL_WRITE) ||
	    !xt_buf_new(&r->rbuf, pd, MSG * SLOTS,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE))
		xt_bail(errno, "buffers");
}

static void rig_free(struct rig *r)
{
	CHECK_RC(-ibv_destroy_qp(r->a), 0, "QP A destroyed");
	CHECK_RC(-ibv_destroy_qp(r->b), 0, "QP B destroyed");
	CHECK_RC(-ibv_destroy_cq(r->acq), 0, "A's CQ destroyed");
	CHECK_RC(-ibv_destroy_cq(r->bcq), 0, "B's CQ destroyed");
	CHECK_RC(-xt_buf_free(&r->sbuf), 0, "send buffer deregistered");
	CHECK_RC(-xt_buf_free(&r->rbuf), 0, "receive buffer deregistered");
}

/* receive number @seq into its slot of B's buffer */
static int post_recv(struct rig *r, uint64_t seq)
{
	struct ibv_sge sge = xt_sge(&r->rbuf, (seq % SLOTS) * MSG, MSG);
	struct ibv_recv_wr wr = {
		.wr_id = seq, .sg_list = &sge, .num_sge = 1,
	}, *bad;

	memset(r->rbuf.p + (seq % SLOTS) * MSG, 0xee, MSG);
	if (r->srq)
		return ibv_post_srq_recv(r->srq, &wr, &bad);
	return ibv_post_recv(r->b, &wr, &bad);
}

/* message number @seq from A: a signaled SEND of MSG bytes */
static int post_send(struct rig *r, uint64_t seq)
{
	uint8_t *p = r->sbuf.p + (seq % SLOTS) * MSG;
	struct ibv_sge sge = xt_sge(&r->sbuf, (seq % SLOTS) * MSG, MSG);
	struct ibv_send_wr wr = {
		.wr_id = seq, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	memcpy(p, &seq, sizeof(seq));
	memset(p + sizeof(seq), (int)(seq & 0xff), MSG - sizeof(seq));
	return ibv_post_send(r->a, &wr, &bad);
}

/* whether receive completion @wc is message @want, its data intact */
static bool recv_ok(struct rig *r, const struct ibv_wc *wc, uint64_t want)
{
	const uint8_t *p = r->rbuf.p + (want % SLOTS) * MSG;
	uint64_t seq;
	int i;

	if (wc->status != IBV_WC_SUCCESS || wc->opcode != IBV_WC_RECV ||
	    wc->wr_id != want || wc->byte_len != MSG) {
		xt_note("receive %llu: wr_id %llu status %s opcode %d len %u",
			(unsigned long long)want,
			(unsigned long long)wc->wr_id,
			ibv_wc_status_str(wc->status), wc->opcode,
			wc->byte_len);
		return false;
	}
	memcpy(&seq, p, sizeof(seq));
	for (i = sizeof(seq); i < MSG && p[i] == (uint8_t)(want & 0xff); i++)
		;
	if (seq != want || i != MSG) {
		xt_note("receive %llu: data of %llu, byte %d differs",
			(unsigned long long)want, (unsigned long long)seq, i);
		return false;
	}
	return true;
}

static bool send_ok(const struct ibv_wc *wc, uint64_t want)
{
	if (wc->status == IBV_WC_SUCCESS && wc->opcode == IBV_WC_SEND &&
	    wc->wr_id == want)
		return true;
	xt_note("send %llu: wr_id %llu status %s opcode %d",
		(unsigned long long)want, (unsigned long long)wc->wr_id,
		ibv_wc_status_str(wc->status), wc->opcode);
	return false;
}

/* resize @cq to @n; false (and a note) unless it holds n entries now */
static bool resize(struct ibv_cq *cq, int n)
{
	int ret = ibv_resize_cq(cq, n);

	if (ret || cq->cqe < n) {
		xt_note("ibv_resize_cq(%d): %s, cqe %d", n, strerror(ret),
			cq->cqe);
		return false;
	}
	return true;
}

/* nothing more on @cq: no completion duplicated */
static void check_empty(struct ibv_cq *cq, const char *what)
{
	struct ibv_wc wc;

	CHECK_EQ(ibv_poll_cq(cq, 1, &wc), 0, "%s: no completion left over",
		 what);
}

/*
 * The single-threaded traffic loop: keep WINDOW receives posted and up to
 * WINDOW sends outstanding, call @between (resizes) after posting each
 * batch, then poll.  Counts in *bad every completion out of order, lost
 * or wrong.
 */
static void traffic(struct rig *r, int n, void (*between)(struct rig *r,
							  int round),
		    int *bad)
{
	uint64_t posted = 0, sent = 0, rdone = 0, sdone = 0;
	uint64_t end = xt_now_ms() + 120000;
	struct ibv_wc wc[8];
	int round = 0, i, got, ret;

	while ((rdone < (uint64_t)n || sdone < (uint64_t)n) &&
	       xt_now_ms() < end) {
		while (posted < (uint64_t)n && posted - rdone < WINDOW) {
			ret = post_recv(r, posted++);
			if (ret)
				xt_bail(ret, "post receive");
		}
		while (sent < posted && sent - sdone < WINDOW) {
			ret = post_send(r, sent++);
			if (ret)
				xt_bail(ret, "post send");
		}
		if (between)
			between(r, round++);
		got = ibv_poll_cq(r->bcq, 8, wc);
		for (i = 0; i < got; i++)
			*bad += !recv_ok(r, &wc[i], rdone++);
		if (got < 0)
			xt_bail(0, "ibv_poll_cq of B: %d", got);
		got = ibv_poll_cq(r->acq, 8, wc);
		for (i = 0; i < got; i++)
			*bad += !send_ok(&wc[i], sdone++);
		if (got < 0)
			xt_bail(0, "ibv_poll_cq of A: %d", got);
	}
	CHECK_EQ(rdone, n, "every message received");
	CHECK_EQ(sdone, n, "every send completed");
}

static int resize_failures;

static void resize_both(struct rig *r, int round)
{
	int nb = sizes[round % (int)ARRAY_SIZE(sizes)];
	int na = sizes[(round + 3) % (int)ARRAY_SIZE(sizes)];

	resize_failures += !resize(r->bcq, nb);
	resize_failures += !resize(r->acq, na);
}

static void t_cq_traffic(void)
{
	struct rig r;
	int bad = 0;

	rig_new(&r, NULL, NULL);
	resize_failures = 0;
	traffic(&r, nmsg, resize_both, &bad);
	CHECK_EQ(bad, 0, "every completion once, in order, data intact");
	CHECK_EQ(resize_failures, 0, "every resize of both CQs succeeded");
	check_empty(r.bcq, "B");
	check_empty(r.acq, "A");
	rig_free(&r);
}

/* ------------------------------------------------------------ threads */

struct shared {
	struct rig *r;
	int n;
	uint64_t rdone;			/* atomic: receives polled */
	int bad, resizes, failed;
	bool stop;			/* atomic */
};

static void *poller(void *arg)
{
	struct shared *s = arg;
	uint64_t next = 0, end = xt_now_ms() + 120000;
	struct ibv_wc wc[4];
	int i, got;

	while (next < (uint64_t)s->n && xt_now_ms() < end) {
		got = ibv_poll_cq(s->r->bcq, 4, wc);
		for (i = 0; i < got; i++)
			s->bad += !recv_ok(s->r, &wc[i], next++);
		__atomic_store_n(&s->rdone, next, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void *resizer(void *arg)
{
	struct shared *s = arg;

	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		s->failed += !resize(s->r->bcq,
				     sizes[s->resizes % (int)ARRAY_SIZE(sizes)]);
		s->resizes++;
		/*
		 * the CQ lock is a spinlock, not fair: a resizer that takes
		 * it again at once can starve the poller for good
		 */
		usleep(200);
	}
	return NULL;
}

static void t_cq_threads(void)
{
	uint64_t posted = 0, sent = 0, sdone = 0, end;
	struct shared s = { .n = nmsg };
	pthread_t tp, tr;
	struct ibv_wc wc[8];
	int i, got, ret, sbad = 0;
	struct rig r;

	rig_new(&r, NULL, NULL);
	s.r = &r;
	if (pthread_create(&tp, NULL, poller, &s) ||
	    pthread_create(&tr, NULL, resizer, &s))
		xt_bail(0, "pthread_create");
	end = xt_now_ms() + 120000;
	while (sdone < (uint64_t)nmsg && xt_now_ms() < end) {
		uint64_t rdone = __atomic_load_n(&s.rdone, __ATOMIC_ACQUIRE);

		while (posted < (uint64_t)nmsg && posted - rdone < WINDOW) {
			ret = post_recv(&r, posted++);
			if (ret)
				xt_bail(ret, "post receive");
		}
		while (sent < posted && sent - sdone < WINDOW) {
			ret = post_send(&r, sent++);
			if (ret)
				xt_bail(ret, "post send");
		}
		got = ibv_poll_cq(r.acq, 8, wc);
		for (i = 0; i < got; i++)
			sbad += !send_ok(&wc[i], sdone++);
	}
	pthread_join(tp, NULL);
	__atomic_store_n(&s.stop, true, __ATOMIC_RELEASE);
	pthread_join(tr, NULL);
	CHECK_EQ(s.rdone, nmsg, "the poller received every message");
	CHECK_EQ(s.bad, 0, "each once, in order, data intact");
	CHECK_EQ(sdone, nmsg, "every send completed");
	CHECK_EQ(sbad, 0, "sends completed in order");
	CHECK_EQ(s.failed, 0, "none of %d resizes failed", s.resizes);
	CHECK(s.resizes > 0, "the resizer ran (%d resizes)", s.resizes);
	check_empty(r.bcq, "B");
	rig_free(&r);
}

/* ------------------------------------------------------------ shrink */

/*
 * 8 messages to B, then a signaled RDMA WRITE: once it completes, B's 8
 * receive completions are in its CQ (a QP's WQEs execute in order and a
 * SEND's receive CQE is written before the next WQE executes,
 * Documentation/xnic/operations.rst), none polled.
 */
static void eight_waiting(struct rig *r, uint64_t first)
{
	struct ibv_sge sge = xt_sge(&r->sbuf, 0, 8);
	struct ibv_send_wr wr = {
		.wr_id = 1000, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = xt_va(&r->rbuf, MSG * (SLOTS - 1)),
			     .rkey = r->rbuf.mr->rkey },
	}, *bad;
	struct ibv_wc wc[9];
	uint64_t i;

	int ret;

	for (i = first; i < first + 8; i++) {
		ret = post_recv(r, i);
		if (!ret)
			ret = post_send(r, i);
		if (ret)
			xt_bail(ret, "posting message %llu",
				(unsigned long long)i);
	}
	ret = ibv_post_send(r->a, &wr, &bad);
	if (ret)
		xt_bail(ret, "posting the WRITE");
	if (xt_poll_n(r->acq, wc, 9, WAIT_MS) != 9 ||
	    wc[8].status != IBV_WC_SUCCESS || wc[8].wr_id != 1000)
		xt_bail(0, "the 8 sends and the WRITE did not complete");
}

static void t_cq_shrink(void)
{
	struct ibv_comp_channel *chan = ibv_create_comp_channel(ctx);
	struct pollfd pfd;
	struct ibv_cq *ev_cq;
	struct ibv_wc wc[8];
	void *ev_ctx;
	struct rig r;
	int i, ret, bad = 0;

	if (!chan)
		xt_bail(errno, "ibv_create_comp_channel");
	rig_new(&r, NULL, chan);
	CHECK(resize(r.bcq, 64), "B's CQ grows to 64");
	eight_waiting(&r, 0);

	ret = ibv_resize_cq(r.bcq, 4);
	CHECK_EQ(ret, EINVAL, "shrinking to 4 below 8 completions: EINVAL");
	CHECK_EQ(r.bcq->cqe, 64, "cqe unchanged by the failure");
	ret = ibv_resize_cq(r.bcq, 7);
	CHECK_EQ(ret, 0, "7 rounds up to 8: the 8 fit");
	CHECK_EQ(r.bcq->cqe, 8, "cqe is the real size, 8");
	CHECK(resize(r.bcq, 4096), "grown to 4096 with the 8 waiting");
	CHECK(resize(r.bcq, 8), "shrunk to exactly 8 with the 8 waiting");
	CHECK_EQ(xt_poll_n(r.bcq, wc, 8, WAIT_MS), 8, "the 8 are there");
	for (i = 0; i < 8; i++)
		bad += !recv_ok(&r, &wc[i], (uint64_t)i);
	CHECK_EQ(bad, 0, "the 8 in order, data intact");
	check_empty(r.bcq, "B");

	/* an arm made before a resize raises the event after it */
	CHECK_RC(-ibv_req_notify_cq(r.bcq, 0), 0, "B's CQ armed");
	CHECK(resize(r.bcq, 256), "resized after arming");
	eight_waiting(&r, 8);
	pfd.fd = chan->fd;
	pfd.events = POLLIN;
	ret = poll(&pfd, 1, WAIT_MS);
	CHECK(ret == 1 && !ibv_get_cq_event(chan, &ev_cq, &ev_ctx) &&
	      ev_cq == r.bcq, "the completion event arrives after the resize");
	if (ret == 1)
		ibv_ack_cq_events(r.bcq, 1);
	CHECK_EQ(xt_poll_n(r.bcq, wc, 8, WAIT_MS), 8, "8 more received");
	for (i = 0, bad = 0; i < 8; i++)
		bad += !recv_ok(&r, &wc[i], 8 + (uint64_t)i);
	CHECK_EQ(bad, 0, "in order, data intact");
	rig_free(&r);
	CHECK_RC(-ibv_destroy_comp_channel(chan), 0, "channel destroyed");
}

/* ------------------------------------------------------------ arguments */

/* the raw RESIZE_CQ ioctl with @size bytes of @c: 0 or -errno */
static int raw_resize(struct xrdma_cmd_resize_cq *c, unsigned int size)
{
	unsigned long nr = _IOC(_IOC_READ | _IOC_WRITE, XRDMA_IOC_MAGIC,
				_IOC_NR(XRDMA_IOC_RESIZE_CQ), size);

	return ioctl(ctx->cmd_fd, nr, c) ? -errno : 0;
}

static void t_cq_args(void)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 32, NULL, NULL, 0);
	struct xnic_resize_cq_resp resp;
	struct xrdma_cmd_resize_cq c;
	int ret, bad = 0;
	struct rig r;

	if (!cq)
		xt_bail(errno, "ibv_create_cq");
	CHECK_EQ(cq->cqe, 32, "a CQ of 32");
	ret = ibv_resize_cq(cq, 0);
	CHECK_EQ(ret, EINVAL, "cqe 0: EINVAL");
	ret = ibv_resize_cq(cq, -1);
	CHECK_EQ(ret, EINVAL, "cqe -1: EINVAL");
	ret = ibv_resize_cq(cq, da.max_cqe + 1);
	CHECK_EQ(ret, EINVAL, "cqe max_cqe + 1 (%d): EINVAL", da.max_cqe + 1);
	ret = ibv_resize_cq(cq, INT_MAX);
	CHECK_EQ(ret, EINVAL, "cqe INT_MAX: EINVAL");
	CHECK_EQ(cq->cqe, 32, "cqe unchanged by the failures");
	ret = ibv_resize_cq(cq, 32);
	CHECK(!ret && cq->cqe == 32, "the same size: 0, cqe 32 (%d, %d)",
	      ret, cq->cqe);
	ret = ibv_resize_cq(cq, da.max_cqe);
	CHECK(!ret && cq->cqe == da.max_cqe, "max_cqe %d: 0, cqe %d (%d)",
	      da.max_cqe, cq->cqe, ret);
	ret = ibv_resize_cq(cq, 1);
	CHECK(!ret && cq->cqe >= 1 && cq->cqe < 32,
	      "an empty CQ shrinks to 1: cqe %d (%d)", cq->cqe, ret);

	memset(&c, 0, sizeof(c));
	memset(&resp, 0, sizeof(resp));
	c.cq_handle = cq->handle;
	c.cqe = 64;
	c.udata.out = (uintptr_t)&resp;
	c.udata.out_len = sizeof(resp);
	c.flags = 1;
	CHECK_RC(raw_resize(&c, sizeof(c)), -EINVAL, "RESIZE_CQ flags 1");
	c.flags = 0;
	c.reserved = 1;
	CHECK_RC(raw_resize(&c, sizeof(c)), -EINVAL, "RESIZE_CQ reserved 1");
	c.reserved = 0;
	CHECK_RC(raw_resize(&c, XRDMA_CMD_RESIZE_CQ_SIZE_VER0 - 8), -EINVAL,
		 "RESIZE_CQ of %d bytes", XRDMA_CMD_RESIZE_CQ_SIZE_VER0 - 8);
	c.cq_handle = 0x7ffffff0;
	CHECK_RC(raw_resize(&c, sizeof(c)), -ENOENT, "RESIZE_CQ bad handle");
	c.cq_handle = pd->handle;
	CHECK_RC(raw_resize(&c, sizeof(c)), -EINVAL,
		 "RESIZE_CQ of a PD handle");
	c.cq_handle = cq->handle;
	c.udata.out_len = sizeof(resp) - 4;
	CHECK_RC(raw_resize(&c, sizeof(c)), -EINVAL,
		 "RESIZE_CQ with no room for the new mapping");
	c.udata.out_len = sizeof(resp);
	c.cqe = 0;
	CHECK_RC(raw_resize(&c, sizeof(c)), -EINVAL, "RESIZE_CQ cqe 0");
	c.cqe = da.max_cqe + 1;
	CHECK_RC(raw_resize(&c, sizeof(c)), -EINVAL,
		 "RESIZE_CQ cqe max_cqe + 1");
	CHECK_RC(-ibv_destroy_cq(cq), 0, "CQ destroyed");

	/* the rig's CQs work after failed resizes */
	rig_new(&r, NULL, NULL);
	CHECK_EQ(ibv_resize_cq(r.bcq, 0), EINVAL, "B's CQ: cqe 0 EINVAL");
	CHECK_EQ(ibv_resize_cq(r.bcq, da.max_cqe + 1), EINVAL,
		 "B's CQ: beyond max_cqe EINVAL");
	traffic(&r, 64, NULL, &bad);
	CHECK_EQ(bad, 0, "64 messages after the failed resizes");
	rig_free(&r);
}

/* ------------------------------------------------------------ SRQ */

/* send messages *@sent.. up to @upto (received already posted), poll */
static void send_all(struct rig *r, uint64_t *sent, uint64_t *sdone,
		     uint64_t *rdone, uint64_t upto, int *bad)
{
	uint64_t end = xt_now_ms() + 60000;
	struct ibv_wc wc[8];
	int i, got, ret;

	while ((*rdone < upto || *sdone < upto) && xt_now_ms() < end) {
		while (*sent < upto && *sent - *sdone < WINDOW) {
			ret = post_send(r, (*sent)++);
			if (ret)
				xt_bail(ret, "post send");
		}
		got = ibv_poll_cq(r->bcq, 8, wc);
		for (i = 0; i < got; i++)
			*bad += !recv_ok(r, &wc[i], (*rdone)++);
		got = ibv_poll_cq(r->acq, 8, wc);
		for (i = 0; i < got; i++)
			*bad += !send_ok(&wc[i], (*sdone)++);
	}
}

static int srq_max_wr(struct ibv_srq *srq, uint32_t *limit)
{
	struct ibv_srq_attr a;

	if (ibv_query_srq(srq, &a))
		return -1;
	if (limit)
		*limit = a.srq_limit;
	return (int)a.max_wr;
}

static void t_srq_grow(void)
{
	struct ibv_srq_init_attr sa = {
		.attr = { .max_wr = WINDOW, .max_sge = 1 },
	};
	uint64_t posted = 0, sent, rdone = 0, sdone = 0, extra;
	struct ibv_srq_attr a;
	struct ibv_wc wc[8];
	struct ibv_srq *srq;
	uint32_t limit = 0;
	int i, got, ret, bad = 0, n;
	struct rig r;

	CHECK(da.device_cap_flags & IBV_DEVICE_SRQ_RESIZE,
	      "IBV_DEVICE_SRQ_RESIZE reported (%#x)", da.device_cap_flags);
	srq = ibv_create_srq(pd, &sa);
	if (!srq)
		xt_bail(errno, "ibv_create_srq");
	CHECK_EQ(sa.attr.max_wr, WINDOW, "an SRQ of %d", WINDOW);
	rig_new(&r, srq, NULL);
	CHECK(resize(r.bcq, 256), "B's CQ holds 256");

	/* full, messages in flight, then grown */
	for (; posted < WINDOW; posted++)
		CHECK_RC(-post_recv(&r, posted), 0, "receive %llu posted",
			 (unsigned long long)posted);
	CHECK_RC(-post_recv(&r, 999), -ENOMEM, "one beyond max_wr: ENOMEM");
	for (i = 0; i < 8; i++)
		if (post_send(&r, (uint64_t)i))
			xt_bail(errno, "post send");
	memset(&a, 0, sizeof(a));
	a.max_wr = 4 * WINDOW;
	ret = ibv_modify_srq(srq, &a, IBV_SRQ_MAX_WR);
	CHECK_EQ(ret, 0, "grown to %d with 16 receives posted, 8 sends in flight",
		 4 * WINDOW);
	n = srq_max_wr(srq, NULL);
	CHECK_EQ(n, 4 * WINDOW, "ibv_query_srq says max_wr %d", 4 * WINDOW);

	/* room for max_wr receives: the ones not yet completed count */
	got = xt_poll_n(r.acq, wc, 8, WAIT_MS);
	for (i = 0; i < got; i++)
		bad += !send_ok(&wc[i], sdone++);
	CHECK_EQ(got, 8, "the 8 sends completed");
	got = xt_poll_n(r.bcq, wc, 8, WAIT_MS);
	for (i = 0; i < got; i++)
		bad += !recv_ok(&r, &wc[i], rdone++);
	CHECK_EQ(got, 8, "the 8 messages received from the grown SRQ");
	extra = 0;
	while (posted - rdone < (uint64_t)n && !post_recv(&r, posted))
		posted++, extra++;
	CHECK_EQ(posted - rdone, n, "%d receives outstanding after %llu more",
		 n, (unsigned long long)extra);
	CHECK_RC(-post_recv(&r, 999), -ENOMEM, "one beyond: ENOMEM");

	/* what is posted is received, in order, once */
	sent = 8;
	send_all(&r, &sent, &sdone, &rdone, posted, &bad);
	CHECK_EQ(rdone, posted, "all %llu messages received",
		 (unsigned long long)posted);
	CHECK_EQ(sdone, posted, "all sends completed");
	CHECK_EQ(bad, 0, "every completion once, in order, data intact");

	/* bad sizes change nothing */
	a.max_wr = 2 * WINDOW;
	CHECK_EQ(ibv_modify_srq(srq, &a, IBV_SRQ_MAX_WR), EINVAL,
		 "shrinking to %d: EINVAL", 2 * WINDOW);
	a.max_wr = 0;
	CHECK_EQ(ibv_modify_srq(srq, &a, IBV_SRQ_MAX_WR), EINVAL,
		 "max_wr 0: EINVAL");
	a.max_wr = (uint32_t)da.max_srq_wr + 1;
	CHECK_EQ(ibv_modify_srq(srq, &a, IBV_SRQ_MAX_WR), EINVAL,
		 "max_wr beyond max_srq_wr: EINVAL");
	a.max_wr = 8 * WINDOW;
	a.srq_limit = 8 * WINDOW + 1;
	CHECK_EQ(ibv_modify_srq(srq, &a, IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT),
		 EINVAL, "a limit above the new max_wr: EINVAL");
	CHECK_EQ(srq_max_wr(srq, NULL), 4 * WINDOW, "max_wr unchanged");
	a.max_wr = 4 * WINDOW;
	CHECK_EQ(ibv_modify_srq(srq, &a, IBV_SRQ_MAX_WR), 0,
		 "the same size: 0");
	a.max_wr = 8 * WINDOW;
	a.srq_limit = 4;
	CHECK_EQ(ibv_modify_srq(srq, &a, IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT), 0,
		 "grown to %d with a limit of 4", 8 * WINDOW);
	n = srq_max_wr(srq, &limit);
	CHECK(n == 8 * WINDOW && limit == 4, "max_wr %d, limit %u", n, limit);

	/* and it still carries traffic, from an empty start */
	rig_free(&r);
	rig_new(&r, srq, NULL);
	traffic(&r, 256, NULL, &bad);
	CHECK_EQ(bad, 0, "256 messages through the grown SRQ");
	rig_free(&r);
	CHECK_RC(-ibv_destroy_srq(srq), 0, "SRQ destroyed");
}

/* ------------------------------------------------------------ exit */

/*
 * Opt-in: resize a CQ (with completions in it) and an SRQ, then exit
 * without destroying anything; the guest test checks that the device
 * holds no object afterwards (old and new rings, mappings, records).
 */
static void t_exit_dirty(void)
{
	struct ibv_srq_init_attr sa = {
		.attr = { .max_wr = WINDOW, .max_sge = 1 },
	};
	struct ibv_srq_attr a = { .max_wr = 4 * WINDOW };
	struct ibv_srq *srq = ibv_create_srq(pd, &sa);
	struct rig r;
	int bad = 0;

	if (!srq)
		xt_bail(errno, "ibv_create_srq");
	rig_new(&r, srq, NULL);
	traffic(&r, 64, resize_both, &bad);
	CHECK_EQ(ibv_modify_srq(srq, &a, IBV_SRQ_MAX_WR), 0, "SRQ grown");
	eight_waiting(&r, 64);
	CHECK(resize(r.bcq, 1024), "B's CQ resized with 8 waiting");
	/* the subtest's child ends here, its context still open */
	fflush(NULL);
	_exit(0);
}

/* ------------------------------------------------------------ main */

static bool setup(void)
{
	ctx = xt_open_device(dev_name, NULL, 0);
	if (!ctx || ibv_query_device(ctx, &da) ||
	    ibv_query_gid(ctx, XT_PORT, XT_GID_INDEX, &gid))
		return false;
	pd = ibv_alloc_pd(ctx);
	return pd;
}

static void teardown(void)
{
	if (pd)
		ibv_dealloc_pd(pd);
	if (ctx)
		ibv_close_device(ctx);
}

static const struct xt_subtest tests[] = {
	XT_SUBTEST(cq_traffic, 0, "both CQs resized between batches"),
	XT_SUBTEST(cq_threads, 0, "one thread polls, one resizes"),
	XT_SUBTEST(cq_shrink, 0, "completions waiting: below is EINVAL"),
	XT_SUBTEST(cq_args, 0, "bad sizes and a bad RESIZE_CQ ioctl"),
	XT_SUBTEST(srq_grow, 0, "an SRQ grows with receives posted"),
	XT_SUBTEST(exit_dirty, 0, "resize, then exit without cleaning up"),
};

static struct xt_suite suite = {
	.tests = tests, .n = ARRAY_SIZE(tests), .timeout = 300,
	.opt_in = "exit_dirty",
	.setup = setup, .teardown = teardown,
};

int main(int argc, char **argv)
{
	const struct xt_opt opts[] = {
		{ .c = 'd', .arg = "IBDEV", .str = &dev_name },
		{ .c = 'n', .arg = "N", .num = &nmsg, .min = 64 },
	};
	int ret;

	ret = xt_main(&suite, opts, ARRAY_SIZE(opts), &argc, &argv,
		      "xv_resize");
	if (ret >= 0)
		return ret;
	xt_show_library();
	xt_run(&suite, argc, argv);
	return xt_done();
}
