// SPDX-License-Identifier: GPL-2.0
/*
 * xv_semantics: verbs semantics that the stock programs (ibv_*_pingpong,
 * perftest) do not check, run through whatever libibverbs.so.1 the
 * dynamic linker finds -- on xrdma, tools/lib/xverbs via scripts/xrdma-run.
 * It is built against the system's <infiniband/verbs.h> and uses nothing
 * but the public verbs API.
 *
 * One process, one device (default xnic0), port 1, GID index 0: every RC
 * pair is two QPs of this device connected to each other (loopback), with
 * path_mtu = the port's active_mtu.
 *
 * Tests:
 *  1. RC data integrity, pattern data verified byte by byte: SEND/RECV
 *     with several SGEs on both sides (and the bytes around them
 *     untouched), SEND_WITH_IMM, RDMA_WRITE (no receive CQE),
 *     RDMA_WRITE_WITH_IMM (RECV_RDMA_WITH_IMM, its receive buffer
 *     untouched), RDMA_READ into two SGEs, CMP_AND_SWP hit and miss,
 *     FETCH_AND_ADD, inline SEND and WRITE (the source is overwritten
 *     right after the post), unsignaled WRs followed by a signaled one
 *     (exactly one CQE); opcode, byte_len, qp_num and wr_id of the CQEs.
 *  2. UD: SEND_WITH_IMM through an AH (is_global, the port GID): GRH in
 *     the first 40 bytes (version, source and destination GID), IBV_WC_GRH,
 *     src_qp, byte_len = 40 + payload; ibv_create_ah_from_wc() answers;
 *     an inline SEND; a wrong qkey is dropped silently (the sender
 *     completes, the next good message is the first thing received).
 *  3. error completions, each on a fresh pair: bad lkey (LOC_PROT_ERR,
 *     then WR_FLUSH_ERR for the rest, unsignaled ones included, the flushed
 *     WRITE not executed, later posts flushed too), bad rkey, out-of-bounds
 *     WRITE, MR without REMOTE_WRITE (REM_ACCESS_ERR, nothing written),
 *     receive buffer too small (LOC_LEN_ERR / REM_INV_REQ_ERR), no receive
 *     with rnr_retry = 0 (RNR_RETRY_EXC_ERR, the responder stays in RTS);
 *     after the error the QP is in ERR (ibv_query_qp) and its receives
 *     are flushed; RESET and connecting again makes a pair work anew.
 *  4. API errors: post_send in RESET and INIT (EINVAL, bad_wr), post_recv
 *     in RESET, num_sge > max_send_sge (the WRs before bad_wr are
 *     posted), a full send queue (ENOMEM, room again after polling),
 *     REMOTE_WRITE/ATOMIC without LOCAL_WRITE (EINVAL), dealloc of a PD
 *     with an MR and destroy of a CQ with a QP (EBUSY, still usable),
 *     inline data longer than max_inline_data; an address vector
 *     without a GRH on the RoCE port: ibv_create_ah NULL/EINVAL,
 *     ibv_modify_qp to RTR (RC, UC) EINVAL with the QP left in INIT.
 *  5. ordering: 200 WRITEs of increasing values to one u64, unsignaled
 *     but the last (one CQE, the last value stays); WRITEs then a SEND:
 *     the data is visible when the receive CQE is.
 *  6. threads: 4 threads, each with its own pair and small CQs (every
 *     ring wraps), WRITE + SEND per iteration (-i), every message and
 *     WRITE verified.
 *  7. completion channel: the event comes with the CQ and its cq_context,
 *     no second event without re-arming (poll() of 200 ms finds
 *     nothing), one after re-arming; a channel in use cannot be
 *     destroyed; the acknowledged CQ is destroyed.  Solicited-only arming
 *     ignores a plain SEND and fires for IBV_SEND_SOLICITED.  sq_sig_all
 *     and ibv_query_qp (state, attributes, init_attr).  A CQ shared by two
 *     QPs: the unpolled CQE of a destroyed QP is not returned.
 *  8. async events (xnic: Documentation/xnic/errors.rst): QP_ACCESS_ERR
 *     for the responder of a remote access error, QP_REQ_ERR for the
 *     responder of a too small receive, QP_FATAL for the requesters, CQ_ERR
 *     for an overrun CQ; each with its element; acknowledged, the objects
 *     are destroyed.  A requester whose WR completed in error needs no
 *     event (the error is in its CQE; errors.rst promises QP_FATAL, the
 *     model sends none): one is tolerated.  Any other event fails.
 *  9. extended API: ibv_query_device_ex (completion_timestamp_mask);
 *     device_cap_flags are the kernel's (QUERY_DEVICE) less
 *     MEM_MGT_EXTENSIONS, and ibv_modify_srq(IBV_SRQ_MAX_WR) agrees with
 *     SRQ_RESIZE;
 *     ibv_create_cq_ex with BYTE_LEN | IMM | QP_NUM | COMPLETION_TIMESTAMP
 *     and the start/next/end_poll readers, ibv_create_qp_ex with
 *     SEND_OPS_FLAGS, ibv_qp_to_qp_ex, ibv_wr_* batches (write + send_imm
 *     with inline data), ibv_wr_abort and a failing ibv_wr_complete post
 *     nothing.
 * At the end of each every object is destroyed and each destroy must
 * succeed.
 *
 * Waiting for a completion or an event is bounded (-t, default 10 s) only
 * so that a lost one fails instead of hanging; no result depends on how
 * long anything takes.  A watchdog (-w, default 600 s) ends a hung run.
 *
 * Each of these is a subtest in a process of its own, with a context and
 * PD of its own ("setup: ..." checks) and the two checks of the end
 * ("events: ...", "teardown: ..."); -l lists them, names or globs run some.
 *
 * Usage: xv_semantics [-d IBDEV] [-i ITERATIONS] [-t WAIT_MS] [-w SECONDS] [-v]
 *                [-l] [SUBTEST...]
 * Output: "ok N - SUBTEST: ..." / "not ok N - ..." lines and a summary
 * (tools/testing/harness/xt/xt.h); exit 0 if all passed.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <xrdma/xrdma-abi.h>
#include "xt_verbs.h"

#define PORT		XT_PORT
#define GID_INDEX	XT_GID_INDEX
#define QKEY		0x11111111u
#define BUF_SIZE	65536
#define NTHREADS	4
#define ACCESS_ALL	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

static const char *dev_name = "xnic0";
static int wait_ms = 10000;
static int iterations = 1000;
static int verbose;

static int destroy_errors, stray_events;

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static union ibv_gid gid;
static enum ibv_mtu mtu;

/* ------------------------------------------------------------ output */

static void on_alarm(int sig)
{
	(void)sig;
	xt_watchdog_expired("xv_semantics: watchdog expired (a verb hung)");
}

/* a destroy/dereg/dealloc call: it must succeed */
static void destroyed(int ret, const char *what)
{
	if (ret) {
		destroy_errors++;
		xt_note("destroying %s failed: %d (%s)", what, ret,
			strerror(ret > 0 ? ret : errno));
	}
}

/* deregister and free two buffers */
static void bufs_free(struct xt_buf *a, struct xt_buf *b)
{
	destroyed(xt_buf_free(a), "MR");
	destroyed(xt_buf_free(b), "MR");
}

static const char *st(enum ibv_wc_status s)
{
	return ibv_wc_status_str(s);
}

/* ------------------------------------------------------------ buffers */

/* ------------------------------------------------------------ async */

struct aev {
	enum ibv_event_type type;
	void *elem;
};

static struct aev aevs[256];
static int naev;

static void *aev_elem(const struct ibv_async_event *e)
{
	switch (e->event_type) {
	case IBV_EVENT_CQ_ERR:
		return e->element.cq;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		return e->element.qp;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		return e->element.srq;
	default:
		return NULL;
	}
}

/* read (and acknowledge) every async event there is, waiting up to @ms */
static void async_collect(int ms)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event e;

	if (poll(&pfd, 1, ms) <= 0)
		return;
	while (!ibv_get_async_event(ctx, &e)) {
		if (verbose)
			xt_note("async event %s (%d) element %p",
				ibv_event_type_str(e.event_type), e.event_type,
				aev_elem(&e));
		if (naev < (int)ARRAY_SIZE(aevs)) {
			aevs[naev].type = e.event_type;
			aevs[naev].elem = aev_elem(&e);
			naev++;
		}
		ibv_ack_async_event(&e);
	}
}

static bool async_take(enum ibv_event_type type, void *elem)
{
	int i;

	for (i = 0; i < naev; i++) {
		if (aevs[i].type == type && aevs[i].elem == elem) {
			aevs[i] = aevs[--naev];
			return true;
		}
	}
	return false;
}

/* wait for one event of @type for @elem and consume it */
static bool async_wait(enum ibv_event_type type, void *elem)
{
	uint64_t end = xt_now_ms() + (uint64_t)wait_ms;

	for (;;) {
		if (async_take(type, elem))
			return true;
		if (xt_now_ms() >= end)
			return false;
		async_collect(50);
	}
}

/* events collected so far for @elem (consumed); 0 = none */
static int async_count(void *elem)
{
	int i, n = 0;

	async_collect(0);
	for (i = 0; i < naev; ) {
		if (aevs[i].elem == elem) {
			if (verbose)
				xt_note("unexpected event %s for %p",
					ibv_event_type_str(aevs[i].type), elem);
			aevs[i] = aevs[--naev];
			n++;
		} else {
			i++;
		}
	}
	return n;
}

/* before @elem is destroyed: an event of it nobody expected is stray */
static void async_forget(void *elem)
{
	int n = async_count(elem);

	if (n)
		xt_note("%d unexpected async event(s) for %p", n, elem);
	stray_events += n;
}

/* ------------------------------------------------------------ CQ */

/* poll until @n completions are in @wc or the wait bound; returns count */
static int poll_n(struct ibv_cq *cq, struct ibv_wc *wc, int n)
{
	return xt_poll_n(cq, wc, n, wait_ms);
}

static bool poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	return xt_poll_one(cq, wc, wait_ms);
}

/* nothing (more) in @cq */
static bool cq_empty(struct ibv_cq *cq)
{
	struct ibv_wc wc;
	int r = ibv_poll_cq(cq, 1, &wc);

	if (r && verbose)
		xt_note("unexpected CQE wr_id %#llx status %s opcode %d",
			(unsigned long long)wc.wr_id, st(wc.status), wc.opcode);
	return r == 0;
}

static bool wc_ok(const struct ibv_wc *wc, uint64_t wr_id,
		  enum ibv_wc_opcode op, uint32_t qpn)
{
	if (wc->status == IBV_WC_SUCCESS && wc->wr_id == wr_id &&
	    wc->opcode == op && wc->qp_num == qpn)
		return true;
	xt_note("CQE: wr_id %#llx status %s opcode %d qp_num %u byte_len %u (want %#llx %d %u)",
		(unsigned long long)wc->wr_id, st(wc->status), wc->opcode,
		wc->qp_num, wc->byte_len, (unsigned long long)wr_id, op, qpn);
	return false;
}

static bool wc_err(const struct ibv_wc *wc, uint64_t wr_id,
		   enum ibv_wc_status status, uint32_t qpn)
{
	if (wc->status == status && wc->wr_id == wr_id && wc->qp_num == qpn)
		return true;
	xt_note("CQE: wr_id %#llx status %s qp_num %u (want wr_id %#llx %s qp_num %u)",
		(unsigned long long)wc->wr_id, st(wc->status),
		wc->qp_num, (unsigned long long)wr_id, st(status), qpn);
	return false;
}

/* ------------------------------------------------------------ QPs */

struct pair_opts {
	uint32_t send_wr, recv_wr;
	int cqe_a, cqe_b;
	uint8_t rnr_retry_a;
};

#define PAIR_DEFAULTS { .send_wr = 64, .recv_wr = 64, .cqe_a = 256, \
			.cqe_b = 256, .rnr_retry_a = 7 }

struct pair {
	struct xt_ep a, b;		/* a is the requester, b the responder */
};

static bool ep_new(struct xt_ep *e, enum ibv_qp_type type, int cqe,
		   uint32_t send_wr, uint32_t recv_wr)
{
	const struct ibv_qp_cap cap = {
		.max_send_wr = send_wr, .max_recv_wr = recv_wr,
		.max_send_sge = 4, .max_recv_sge = 4, .max_inline_data = 64,
	};

	return xt_ep_new(e, pd, type, cqe, &cap);
}

static void ep_free(struct xt_ep *e)
{
	if (e->qp) {
		async_forget(e->qp);
		destroyed(ibv_destroy_qp(e->qp), "QP");
	}
	if (e->cq) {
		async_forget(e->cq);
		destroyed(ibv_destroy_cq(e->cq), "CQ");
	}
	e->qp = NULL;
	e->cq = NULL;
}

static int qp_to_init(struct ibv_qp *qp)
{
	return xt_qp_init(qp, QKEY);
}

static bool rc_connect(struct ibv_qp *qp, uint32_t dqpn, uint8_t rnr_retry)
{
	const struct xt_rc_opts o = {
		.timeout = 14, .retry_cnt = 7, .rnr_retry = rnr_retry,
	};
	int ret = xt_rc_rts(qp, dqpn, &gid, mtu, &o);

	if (ret)
		xt_note("connecting QP %u: %s", qp->qp_num, strerror(ret));
	return !ret;
}

static bool ud_ready(struct ibv_qp *qp)
{
	int ret = xt_ud_rts(qp, QKEY);

	if (ret)
		xt_note("UD QP %u to RTS: %s", qp->qp_num, strerror(ret));
	return !ret;
}

static bool pair_new_opts(struct pair *p, const struct pair_opts *o)
{
	memset(p, 0, sizeof(*p));
	if (!ep_new(&p->a, IBV_QPT_RC, o->cqe_a, o->send_wr, o->recv_wr))
		return false;
	if (!ep_new(&p->b, IBV_QPT_RC, o->cqe_b, o->send_wr, o->recv_wr)) {
		ep_free(&p->a);
		return false;
	}
	if (!rc_connect(p->a.qp, p->b.qp->qp_num, o->rnr_retry_a) ||
	    !rc_connect(p->b.qp, p->a.qp->qp_num, 7)) {
		ep_free(&p->a);
		ep_free(&p->b);
		return false;
	}
	return true;
}

static bool pair_new(struct pair *p)
{
	struct pair_opts o = PAIR_DEFAULTS;

	return pair_new_opts(p, &o);
}

static void pair_free(struct pair *p)
{
	ep_free(&p->a);
	ep_free(&p->b);
}

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	return (enum ibv_qp_state)xt_qp_state(qp);
}

/* ------------------------------------------------------------ posting */

struct wr {
	enum ibv_wr_opcode op;
	uint64_t wr_id;
	unsigned int flags;
	struct ibv_sge *sg;
	int nsge;
	uint64_t raddr;
	uint32_t rkey;
	uint32_t imm;		/* host order; sent big-endian */
	uint64_t cmp_add, swap;
};

static void wr_build(struct ibv_send_wr *w, const struct wr *d)
{
	memset(w, 0, sizeof(*w));
	w->wr_id = d->wr_id;
	w->opcode = d->op;
	w->send_flags = d->flags;
	w->sg_list = d->sg;
	w->num_sge = d->nsge;
	w->imm_data = htobe32(d->imm);
	if (d->op == IBV_WR_ATOMIC_CMP_AND_SWP ||
	    d->op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		w->wr.atomic.remote_addr = d->raddr;
		w->wr.atomic.rkey = d->rkey;
		w->wr.atomic.compare_add = d->cmp_add;
		w->wr.atomic.swap = d->swap;
	} else {
		w->wr.rdma.remote_addr = d->raddr;
		w->wr.rdma.rkey = d->rkey;
	}
}

static int post1(struct ibv_qp *qp, const struct wr *d)
{
	struct ibv_send_wr w, *bad = NULL;
	int ret;

	wr_build(&w, d);
	ret = ibv_post_send(qp, &w, &bad);
	if (ret)
		xt_note("ibv_post_send(op %d): %s", d->op, strerror(ret));
	return ret;
}

/* a SEND of the one SGE @s */
static int send1(struct ibv_qp *qp, uint64_t wr_id, unsigned int flags,
		 struct ibv_sge *s)
{
	return post1(qp, &(struct wr){ .op = IBV_WR_SEND, .wr_id = wr_id,
				       .flags = flags, .sg = s, .nsge = 1 });
}

static int recv1(struct ibv_qp *qp, uint64_t wr_id, struct ibv_sge *sg,
		 int nsge)
{
	struct ibv_recv_wr w = {
		.wr_id = wr_id, .sg_list = sg, .num_sge = nsge,
	}, *bad = NULL;
	int ret = ibv_post_recv(qp, &w, &bad);

	if (ret)
		xt_note("ibv_post_recv: %s", strerror(ret));
	return ret;
}

/* ------------------------------------------------------------ 1. RC ops */

static void t_rc_send_recv(struct pair *p, struct xt_buf *la, struct xt_buf *rb)
{
	struct ibv_sge s[3] = {
		xt_sge(la, 0, 100), xt_sge(la, 1000, 2000), xt_sge(la, 5000, 1000),
	};
	struct ibv_sge r[3] = {
		xt_sge(rb, 0, 1000), xt_sge(rb, 2000, 1000), xt_sge(rb, 8000, 2000),
	};
	struct wr d = {
		.op = IBV_WR_SEND, .wr_id = 0xa1, .flags = IBV_SEND_SIGNALED,
		.sg = s, .nsge = 3,
	};
	uint8_t want[3100];
	struct ibv_wc wc;
	bool ok;

	xt_pat_fill(la->p, 8192, 1);
	memset(rb->p, 0xee, 12000);
	memcpy(want, la->p, 100);
	memcpy(want + 100, la->p + 1000, 2000);
	memcpy(want + 2100, la->p + 5000, 1000);

	ok = !recv1(p->b.qp, 0xb1, r, 3) && !post1(p->a.qp, &d);
	ok = ok && poll_one(p->a.cq, &wc) &&
	     wc_ok(&wc, 0xa1, IBV_WC_SEND, p->a.qp->qp_num);
	xt_check(ok, "rc send: 3-SGE SEND completes (SEND, wr_id, qp_num)");
	ok = poll_one(p->b.cq, &wc) &&
	     wc_ok(&wc, 0xb1, IBV_WC_RECV, p->b.qp->qp_num) &&
	     wc.byte_len == 3100 && !(wc.wc_flags & IBV_WC_WITH_IMM);
	xt_check(ok, "rc send: RECV CQE, byte_len %u == 3100, no IMM flag",
		 wc.byte_len);
	ok = !memcmp(rb->p, want, 1000) &&
	     xt_all_bytes(rb->p + 1000, 1000, 0xee) &&
	     !memcmp(rb->p + 2000, want + 1000, 1000) &&
	     xt_all_bytes(rb->p + 3000, 5000, 0xee) &&
	     !memcmp(rb->p + 8000, want + 2000, 1100) &&
	     xt_all_bytes(rb->p + 9100, 2900, 0xee);
	xt_check(ok,
		 "rc send: 3 gather SGEs scattered over 3 receive SGEs, bytes around untouched");
}

static void t_rc_send_imm(struct pair *p, struct xt_buf *la, struct xt_buf *rb)
{
	struct ibv_sge s = xt_sge(la, 16384, 256), r = xt_sge(rb, 16384, 4096);
	struct wr d = {
		.op = IBV_WR_SEND_WITH_IMM, .wr_id = 0xa2,
		.flags = IBV_SEND_SIGNALED, .sg = &s, .nsge = 1,
		.imm = 0xdeadbeef,
	};
	struct ibv_wc wc;
	bool ok;

	xt_pat_fill(la->p + 16384, 256, 2);
	memset(rb->p + 16384, 0, 4096);
	ok = !recv1(p->b.qp, 0xb2, &r, 1) && !post1(p->a.qp, &d) &&
	     poll_one(p->a.cq, &wc) &&
	     wc_ok(&wc, 0xa2, IBV_WC_SEND, p->a.qp->qp_num);
	ok = ok && poll_one(p->b.cq, &wc) &&
	     wc_ok(&wc, 0xb2, IBV_WC_RECV, p->b.qp->qp_num);
	xt_check(ok && (wc.wc_flags & IBV_WC_WITH_IMM) &&
		 wc.imm_data == htobe32(0xdeadbeef) && wc.byte_len == 256 &&
		 xt_pat_check(rb->p + 16384, 256, 2) < 0,
		 "rc send_imm: IBV_WC_WITH_IMM, imm_data %#x, byte_len %u, data",
		 be32toh(wc.imm_data), wc.byte_len);
}

static void t_rc_write(struct pair *p, struct xt_buf *la, struct xt_buf *rb)
{
	struct ibv_sge s = xt_sge(la, 20480, 8192), r;
	struct wr d = {
		.op = IBV_WR_RDMA_WRITE, .wr_id = 0xa3,
		.flags = IBV_SEND_SIGNALED, .sg = &s, .nsge = 1,
		.raddr = xt_va(rb, 20480), .rkey = rb->mr->rkey,
	};
	struct ibv_wc wc;
	bool ok;

	xt_pat_fill(la->p + 20480, 8192, 3);
	memset(rb->p + 20480, 0, 8192);
	ok = !post1(p->a.qp, &d) && poll_one(p->a.cq, &wc) &&
	     wc_ok(&wc, 0xa3, IBV_WC_RDMA_WRITE, p->a.qp->qp_num);
	xt_check(ok && xt_pat_check(rb->p + 20480, 8192, 3) < 0 &&
		 cq_empty(p->b.cq),
		 "rc write: 8 KiB placed, RDMA_WRITE CQE, no receive CQE");

	/* with immediate: a receive is consumed, its buffer not written */
	r = xt_sge(rb, 40000, 64);
	memset(rb->p + 40000, 0xee, 64);
	xt_pat_fill(la->p + 32768, 4096, 4);
	memset(rb->p + 32768, 0, 4096);
	s = xt_sge(la, 32768, 4096);
	d.op = IBV_WR_RDMA_WRITE_WITH_IMM;
	d.wr_id = 0xa4;
	d.raddr = xt_va(rb, 32768);
	d.imm = 0x01020304;
	ok = !recv1(p->b.qp, 0xb4, &r, 1) && !post1(p->a.qp, &d) &&
	     poll_one(p->a.cq, &wc) &&
	     wc_ok(&wc, 0xa4, IBV_WC_RDMA_WRITE, p->a.qp->qp_num);
	xt_check(ok, "rc write_imm: requester CQE RDMA_WRITE");
	ok = poll_one(p->b.cq, &wc) &&
	     wc_ok(&wc, 0xb4, IBV_WC_RECV_RDMA_WITH_IMM, p->b.qp->qp_num);
	xt_check(ok && (wc.wc_flags & IBV_WC_WITH_IMM) &&
		 wc.imm_data == htobe32(0x01020304) && wc.byte_len == 4096,
		 "rc write_imm: RECV_RDMA_WITH_IMM, WITH_IMM, imm %#x, byte_len %u",
		 be32toh(wc.imm_data), wc.byte_len);
	xt_check(xt_pat_check(rb->p + 32768, 4096, 4) < 0 &&
		 xt_all_bytes(rb->p + 40000, 64, 0xee),
		 "rc write_imm: data placed, receive buffer untouched");
}

static void t_rc_read(struct pair *p, struct xt_buf *la, struct xt_buf *rb)
{
	struct ibv_sge s[2] = { xt_sge(la, 45000, 2500), xt_sge(la, 50000, 3500) };
	struct wr d = {
		.op = IBV_WR_RDMA_READ, .wr_id = 0xa5,
		.flags = IBV_SEND_SIGNALED, .sg = s, .nsge = 2,
		.raddr = xt_va(rb, 45000), .rkey = rb->mr->rkey,
	};
	uint8_t want[6000];
	struct ibv_wc wc;
	bool ok;

	xt_pat_fill(want, sizeof(want), 5);
	memcpy(rb->p + 45000, want, sizeof(want));
	memset(la->p + 45000, 0, 10000);
	ok = !post1(p->a.qp, &d) && poll_one(p->a.cq, &wc) &&
	     wc_ok(&wc, 0xa5, IBV_WC_RDMA_READ, p->a.qp->qp_num);
	xt_check(ok && wc.byte_len == 6000 &&
		 !memcmp(la->p + 45000, want, 2500) &&
		 !memcmp(la->p + 50000, want + 2500, 3500) &&
		 xt_all_bytes(la->p + 47500, 2500, 0),
		 "rc read: 6000 bytes into 2 SGEs, RDMA_READ, byte_len %u",
		 wc.byte_len);
}

static void t_rc_atomics(struct pair *p, struct xt_buf *la, struct xt_buf *rb)
{
	uint64_t *rem = (uint64_t *)(rb->p + 57344);
	uint64_t *res = (uint64_t *)(la->p + 57344);
	struct ibv_sge s = xt_sge(la, 57344, 8);
	struct wr d = {
		.op = IBV_WR_ATOMIC_CMP_AND_SWP, .wr_id = 0xa6,
		.flags = IBV_SEND_SIGNALED, .sg = &s, .nsge = 1,
		.raddr = xt_va(rb, 57344), .rkey = rb->mr->rkey,
		.cmp_add = 0x1111, .swap = 0x2222,
	};
	struct ibv_wc wc;
	bool ok;

	*rem = 0x1111;
	*res = 0;
	ok = !post1(p->a.qp, &d) && poll_one(p->a.cq, &wc) &&
	     wc_ok(&wc, 0xa6, IBV_WC_COMP_SWAP, p->a.qp->qp_num);
	xt_check(ok && wc.byte_len == 8 && *res == 0x1111 && *rem == 0x2222,
		 "rc cmp_swp hit: returned %#llx (0x1111), memory %#llx (0x2222)",
		 (unsigned long long)*res, (unsigned long long)*rem);

	*res = 0;
	d.wr_id = 0xa7;
	d.cmp_add = 0x9999;
	d.swap = 0x3333;
	ok = !post1(p->a.qp, &d) && poll_one(p->a.cq, &wc) &&
	     wc_ok(&wc, 0xa7, IBV_WC_COMP_SWAP, p->a.qp->qp_num);
	xt_check(ok && *res == 0x2222 && *rem == 0x2222,
		 "rc cmp_swp miss: returned %#llx (0x2222), memory unchanged",
		 (unsigned long long)*res);

	*res = 0;
	*rem = 0x100000000ULL - 2;
	d.op = IBV_WR_ATOMIC_FETCH_AND_ADD;
	d.wr_id = 0xa8;
	d.cmp_add = 0x10;
	ok = !post1(p->a.qp, &d) && poll_one(p->a.cq, &wc) &&
	     wc_ok(&wc, 0xa8, IBV_WC_FETCH_ADD, p->a.qp->qp_num);
	xt_check(ok && wc.byte_len == 8 && *res == 0xfffffffeULL &&
		 *rem == 0x10000000eULL,
		 "rc fetch_add: returned %#llx, memory %#llx (carry into bit 32)",
		 (unsigned long long)*res, (unsigned long long)*rem);
}

static void t_rc_inline(struct pair *p, struct xt_buf *rb)
{
	uint32_t n = p->a.cap.max_inline_data < 48 ?
		     p->a.cap.max_inline_data : 48;
	uint8_t src[48];
	struct ibv_sge s = {
		.addr = (uintptr_t)src, .length = n, .lkey = 0,
	}, r = xt_sge(rb, 58000, 256);
	struct wr d = {
		.op = IBV_WR_SEND, .wr_id = 0xa9,
		.flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE, .sg = &s,
		.nsge = 1,
	};
	struct ibv_wc wc;
	bool ok;

	xt_check(p->a.cap.max_inline_data >= 64,
		 "rc inline: max_inline_data %u >= 64 asked",
		 p->a.cap.max_inline_data);
	/* unregistered memory, rewritten right after the post */
	xt_pat_fill(src, sizeof(src), 6);
	memset(rb->p + 58000, 0, 256);
	ok = !recv1(p->b.qp, 0xb9, &r, 1) && !post1(p->a.qp, &d);
	memset(src, 0, sizeof(src));
	ok = ok && poll_one(p->a.cq, &wc) &&
	     wc_ok(&wc, 0xa9, IBV_WC_SEND, p->a.qp->qp_num) &&
	     poll_one(p->b.cq, &wc) &&
	     wc_ok(&wc, 0xb9, IBV_WC_RECV, p->b.qp->qp_num);
	xt_check(ok && wc.byte_len == n && xt_pat_check(rb->p + 58000, n, 6) < 0,
		 "rc inline send: %u bytes copied at post time, byte_len %u",
		 n, wc.byte_len);

	xt_pat_fill(src, 32, 7);
	memset(rb->p + 59000, 0, 64);
	s.length = 32;
	d.op = IBV_WR_RDMA_WRITE;
	d.wr_id = 0xaa;
	d.raddr = xt_va(rb, 59000);
	d.rkey = rb->mr->rkey;
	ok = !post1(p->a.qp, &d);
	memset(src, 0, sizeof(src));
	ok = ok && poll_one(p->a.cq, &wc) &&
	     wc_ok(&wc, 0xaa, IBV_WC_RDMA_WRITE, p->a.qp->qp_num);
	xt_check(ok && xt_pat_check(rb->p + 59000, 32, 7) < 0 &&
		 xt_all_bytes(rb->p + 59032, 32, 0),
		 "rc inline write: 32 bytes placed");
}

static void t_rc_unsignaled(struct pair *p, struct xt_buf *la, struct xt_buf *rb)
{
	struct ibv_send_wr w[6], *bad = NULL;
	struct ibv_sge s[6];
	struct ibv_wc wc[2];
	int i, got, bad_i = -1;
	bool ok;

	for (i = 0; i < 6; i++) {
		struct wr d = {
			.op = IBV_WR_RDMA_WRITE, .wr_id = 0x100 + (uint64_t)i,
			.flags = i == 5 ? IBV_SEND_SIGNALED : 0,
			.sg = &s[i], .nsge = 1,
			.raddr = xt_va(rb, 61440 + (size_t)i * 512),
			.rkey = rb->mr->rkey,
		};

		s[i] = xt_sge(la, 61440 + (size_t)i * 512, 512);
		xt_pat_fill(la->p + 61440 + i * 512, 512, 10 + (uint32_t)i);
		wr_build(&w[i], &d);
		w[i].next = i < 5 ? &w[i + 1] : NULL;
	}
	memset(rb->p + 61440, 0, 6 * 512);
	ok = !ibv_post_send(p->a.qp, w, &bad);
	got = ok ? poll_n(p->a.cq, wc, 1) : 0;
	ok = ok && got == 1 &&
	     wc_ok(&wc[0], 0x105, IBV_WC_RDMA_WRITE, p->a.qp->qp_num);
	for (i = 0; i < 6; i++)
		if (xt_pat_check(rb->p + 61440 + i * 512, 512,
				 10 + (uint32_t)i) >= 0 && bad_i < 0)
			bad_i = i;
	xt_check(ok && bad_i < 0 && cq_empty(p->a.cq),
		 "rc unsignaled: 5 unsignaled + 1 signaled WRITE: one CQE (the signaled one), all 6 placed (first bad %d)",
		 bad_i);
}

static void t_rc_ops(void)
{
	struct xt_buf la = { 0 }, rb = { 0 };
	struct pair p;

	if (!xt_buf_new(&la, pd, BUF_SIZE, ACCESS_ALL) ||
	    !xt_buf_new(&rb, pd, BUF_SIZE, ACCESS_ALL) || !pair_new(&p)) {
		xt_check(false, "rc: set up a connected pair");
		bufs_free(&la, &rb);
		return;
	}
	t_rc_send_recv(&p, &la, &rb);
	t_rc_send_imm(&p, &la, &rb);
	t_rc_write(&p, &la, &rb);
	t_rc_read(&p, &la, &rb);
	t_rc_atomics(&p, &la, &rb);
	t_rc_inline(&p, &rb);
	t_rc_unsignaled(&p, &la, &rb);
	xt_check(cq_empty(p.a.cq) && cq_empty(p.b.cq) &&
		 async_count(p.a.qp) == 0 && async_count(p.b.qp) == 0,
		 "rc: no stray completion or event");
	pair_free(&p);
	bufs_free(&la, &rb);
}

/* ------------------------------------------------------------ 2. UD */

static int ud_send(struct ibv_qp *qp, struct ibv_ah *ah, uint32_t dqpn,
		   uint32_t qkey, struct ibv_sge *s, uint64_t wr_id,
		   uint32_t imm)
{
	struct ibv_send_wr w = {
		.wr_id = wr_id, .sg_list = s, .num_sge = 1,
		.opcode = imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
		.imm_data = htobe32(imm),
	}, *bad = NULL;

	w.wr.ud.ah = ah;
	w.wr.ud.remote_qpn = dqpn;
	w.wr.ud.remote_qkey = qkey;
	return ibv_post_send(qp, &w, &bad);
}

static void t_ud(void)
{
	struct ibv_ah_attr aa = {
		.is_global = 1,
		.grh = { .dgid = gid, .sgid_index = GID_INDEX,
			 .hop_limit = 64 },
		.port_num = PORT,
	};
	struct xt_buf sb = { 0 }, rbuf = { 0 };
	struct ibv_ah *ah = NULL, *ah2 = NULL;
	struct xt_ep s = { 0 }, r = { 0 };
	struct ibv_sge ss, rs;
	struct ibv_grh *grh;
	struct ibv_wc wc;
	bool ok;

	if (!xt_buf_new(&sb, pd, 8192, ACCESS_ALL) ||
	    !xt_buf_new(&rbuf, pd, 8192, ACCESS_ALL) ||
	    !ep_new(&s, IBV_QPT_UD, 64, 16, 16) ||
	    !ep_new(&r, IBV_QPT_UD, 64, 16, 16) ||
	    !ud_ready(s.qp) || !ud_ready(r.qp)) {
		xt_check(false, "ud: set up two UD QPs");
		goto out;
	}
	ah = ibv_create_ah(pd, &aa);
	if (!xt_check(ah, "ud: ibv_create_ah(is_global, port GID)"))
		goto out;

	xt_pat_fill(sb.p, 512, 20);
	memset(rbuf.p, 0xee, 2048);
	ss = xt_sge(&sb, 0, 512);
	rs = xt_sge(&rbuf, 0, 1024);
	ok = !recv1(r.qp, 0xc1, &rs, 1) &&
	     !ud_send(s.qp, ah, r.qp->qp_num, QKEY, &ss, 0xd1, 0xcafe) &&
	     poll_one(s.cq, &wc) &&
	     wc_ok(&wc, 0xd1, IBV_WC_SEND, s.qp->qp_num);
	xt_check(ok, "ud send_imm completes");
	ok = poll_one(r.cq, &wc) &&
	     wc_ok(&wc, 0xc1, IBV_WC_RECV, r.qp->qp_num);
	xt_check(ok && (wc.wc_flags & IBV_WC_GRH) &&
		 (wc.wc_flags & IBV_WC_WITH_IMM) &&
		 wc.imm_data == htobe32(0xcafe) && wc.byte_len == 40 + 512 &&
		 wc.src_qp == s.qp->qp_num,
		 "ud recv: GRH and IMM flags, byte_len %u == 552, src_qp %u == %u",
		 wc.byte_len, wc.src_qp, s.qp->qp_num);
	grh = (struct ibv_grh *)rbuf.p;
	xt_check((be32toh(grh->version_tclass_flow) >> 28) == 6 &&
		 !memcmp(&grh->sgid, &gid, 16) && !memcmp(&grh->dgid, &gid, 16),
		 "ud recv: 40-byte GRH first (version 6, sgid and dgid = port GID)");
	xt_check(xt_pat_check(rbuf.p + 40, 512, 20) < 0 &&
		 xt_all_bytes(rbuf.p + 552, 1024 - 552, 0xee),
		 "ud recv: payload after the GRH, nothing beyond");

	/* reply through an AH made from the receive completion */
	ah2 = ibv_create_ah_from_wc(pd, &wc, grh, PORT);
	if (!xt_check(ah2, "ud: ibv_create_ah_from_wc: %s",
		      ah2 ? "ok" : strerror(errno)))
		goto out;
	xt_pat_fill(rbuf.p + 4096, 100, 21);
	ss = xt_sge(&rbuf, 4096, 100);
	rs = xt_sge(&sb, 1024, 1024);
	ok = !recv1(s.qp, 0xc2, &rs, 1) &&
	     !ud_send(r.qp, ah2, wc.src_qp, QKEY, &ss, 0xd2, 0) &&
	     poll_one(r.cq, &wc) &&
	     wc_ok(&wc, 0xd2, IBV_WC_SEND, r.qp->qp_num) &&
	     poll_one(s.cq, &wc) &&
	     wc_ok(&wc, 0xc2, IBV_WC_RECV, s.qp->qp_num);
	xt_check(ok && wc.byte_len == 140 && wc.src_qp == r.qp->qp_num &&
		 !(wc.wc_flags & IBV_WC_WITH_IMM) &&
		 xt_pat_check(sb.p + 1024 + 40, 100, 21) < 0,
		 "ud: reply through the AH from the wc arrives (byte_len %u)",
		 wc.byte_len);

	/* inline, from unregistered memory rewritten after the post */
	{
		uint8_t src[32];
		struct ibv_send_wr w = {
			.wr_id = 0xd5, .sg_list = &ss, .num_sge = 1,
			.opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE,
		}, *bad = NULL;

		xt_pat_fill(src, sizeof(src), 23);
		ss = (struct ibv_sge){ .addr = (uintptr_t)src,
				       .length = sizeof(src) };
		rs = xt_sge(&rbuf, 6144, 1024);
		w.wr.ud.ah = ah;
		w.wr.ud.remote_qpn = r.qp->qp_num;
		w.wr.ud.remote_qkey = QKEY;
		ok = !recv1(r.qp, 0xc5, &rs, 1) &&
		     !ibv_post_send(s.qp, &w, &bad);
		memset(src, 0, sizeof(src));
		ok = ok && poll_one(s.cq, &wc) &&
		     wc_ok(&wc, 0xd5, IBV_WC_SEND, s.qp->qp_num) &&
		     poll_one(r.cq, &wc) &&
		     wc_ok(&wc, 0xc5, IBV_WC_RECV, r.qp->qp_num);
		xt_check(ok && wc.byte_len == 40 + sizeof(src) &&
			 xt_pat_check(rbuf.p + 6144 + 40, sizeof(src), 23) < 0,
			 "ud inline send: data copied at post time");
	}

	/* a wrong qkey: dropped, the sender completes; the next one lands */
	rs = xt_sge(&rbuf, 2048, 1024);
	xt_pat_fill(sb.p, 64, 22);
	ss = xt_sge(&sb, 0, 64);
	ok = !recv1(r.qp, 0xc3, &rs, 1) &&
	     !ud_send(s.qp, ah, r.qp->qp_num, QKEY + 1, &ss, 0xd3, 1) &&
	     poll_one(s.cq, &wc) &&
	     wc_ok(&wc, 0xd3, IBV_WC_SEND, s.qp->qp_num) &&
	     !ud_send(s.qp, ah, r.qp->qp_num, QKEY, &ss, 0xd4, 2) &&
	     poll_one(s.cq, &wc) &&
	     wc_ok(&wc, 0xd4, IBV_WC_SEND, s.qp->qp_num) &&
	     poll_one(r.cq, &wc) &&
	     wc_ok(&wc, 0xc3, IBV_WC_RECV, r.qp->qp_num);
	xt_check(ok && wc.imm_data == htobe32(2) && cq_empty(r.cq),
		 "ud: wrong qkey dropped silently (sender ok), next message received (imm %u == 2)",
		 be32toh(wc.imm_data));

	/*
	 * source GID index 1 (the port GID as RoCE v2, an IPv6 GID): the
	 * GRH says UDP (next header 17), traffic class and hop limit are
	 * the AH's, the source GID is entry 1's
	 */
	if (ah2)
		destroyed(ibv_destroy_ah(ah2), "AH");
	ah2 = NULL;
	{
		struct ibv_ah_attr a1 = aa;
		union ibv_gid g1;
		uint32_t vtf;

		a1.grh.sgid_index = 1;
		a1.grh.hop_limit = 33;
		a1.grh.traffic_class = 0x48;
		ah2 = ibv_create_ah(pd, &a1);
		xt_check(ah2 && !ibv_query_gid(ctx, PORT, 1, &g1) &&
			 !memcmp(&g1, &gid, 16),
			 "ud: AH with sgid_index 1 (entry 1 = the port GID)");
		rs = xt_sge(&rbuf, 2048, 1024);
		memset(rbuf.p + 2048, 0xee, 1024);
		ok = ah2 && !recv1(r.qp, 0xc6, &rs, 1) &&
		     !ud_send(s.qp, ah2, r.qp->qp_num, QKEY, &ss, 0xd6, 3) &&
		     poll_one(s.cq, &wc) &&
		     wc_ok(&wc, 0xd6, IBV_WC_SEND, s.qp->qp_num) &&
		     poll_one(r.cq, &wc) &&
		     wc_ok(&wc, 0xc6, IBV_WC_RECV, r.qp->qp_num);
		grh = (struct ibv_grh *)(rbuf.p + 2048);
		vtf = be32toh(grh->version_tclass_flow);
		xt_check(ok && (wc.wc_flags & IBV_WC_GRH) &&
			 vtf >> 28 == 6 && ((vtf >> 20) & 0xff) == 0x48 &&
			 grh->next_hdr == 17 && grh->hop_limit == 33 &&
			 !memcmp(&grh->sgid, &gid, 16) &&
			 !memcmp(&grh->dgid, &gid, 16),
			 "ud recv via sgid_index 1: GRH next header %u == 17, hop limit %u == 33, tclass 0x%x == 0x48",
			 grh->next_hdr, grh->hop_limit, (vtf >> 20) & 0xff);
	}
	/* an empty GID table entry cannot be a source: refused */
	{
		struct ibv_ah_attr a2 = aa;
		struct ibv_port_attr pa;
		union ibv_gid g2;
		struct ibv_ah *bad_ah;
		bool q;

		a2.grh.sgid_index = 9;
		memset(&pa, 0, sizeof(pa));
		q = !ibv_query_port(ctx, PORT, &pa) &&
		    !ibv_query_gid(ctx, PORT, 9, &g2);
		xt_check(q && pa.gid_tbl_len == 16 &&
			 xt_all_bytes((uint8_t *)&g2, 16, 0),
			 "port: gid_tbl_len %d == 16, entry 9 empty (zero GID)",
			 pa.gid_tbl_len);
		errno = 0;
		bad_ah = ibv_create_ah(pd, &a2);
		xt_check(!bad_ah && errno == EINVAL,
			 "ud: ibv_create_ah with an empty sgid_index: EINVAL (%s)",
			 strerror(errno));
		if (bad_ah)
			destroyed(ibv_destroy_ah(bad_ah), "AH");
	}
out:
	if (ah2)
		destroyed(ibv_destroy_ah(ah2), "AH");
	if (ah)
		destroyed(ibv_destroy_ah(ah), "AH");
	ep_free(&s);
	ep_free(&r);
	destroyed(xt_buf_free(&sb), "MR");
	destroyed(xt_buf_free(&rbuf), "MR");
}

/* ------------------------------------------------------------ 3. errors */

struct err_env {
	struct pair p;
	struct xt_buf la, rb;
};

/*
 * A requester whose WR completed in error: the error is reported in the
 * CQE; the verbs define no affiliated event for it (xnic's errors.rst
 * says QP_FATAL, the model sends none).  One QP_FATAL is tolerated.
 */
static void requester_event(struct ibv_qp *qp)
{
	async_collect(0);
	if (async_take(IBV_EVENT_QP_FATAL, qp))
		xt_note("requester QP %u got IBV_EVENT_QP_FATAL", qp->qp_num);
}

/* a pair and two buffers; false after a failed check "err @what: set up" */
static bool env_new(struct err_env *e, uint8_t rnr_retry_a, const char *what)
{
	struct pair_opts o = PAIR_DEFAULTS;

	memset(e, 0, sizeof(*e));
	o.rnr_retry_a = rnr_retry_a;
	if (xt_buf_new(&e->la, pd, 16384, ACCESS_ALL) &&
	    xt_buf_new(&e->rb, pd, 16384, ACCESS_ALL) && pair_new_opts(&e->p, &o))
		return true;
	bufs_free(&e->la, &e->rb);
	xt_check(false, "err %s: set up", what);
	return false;
}

/*
 * if @ok, a signaled SEND of the first @len bytes of la by the requester:
 * whether it completes with @status
 */
static bool env_send_err(struct err_env *e, bool ok, uint64_t wr_id,
			 uint32_t len, enum ibv_wc_status status)
{
	struct ibv_sge s = xt_sge(&e->la, 0, len);
	struct ibv_wc wc;

	return ok && !send1(e->p.a.qp, wr_id, IBV_SEND_SIGNALED, &s) &&
	       poll_one(e->p.a.cq, &wc) &&
	       wc_err(&wc, wr_id, status, e->p.a.qp->qp_num);
}

static void env_free(struct err_env *e)
{
	requester_event(e->p.a.qp);
	pair_free(&e->p);
	bufs_free(&e->la, &e->rb);
}

/* @n receives on @qp with wr_id base..base+n-1 */
static bool recvs(struct ibv_qp *qp, struct xt_buf *b, uint64_t base, int n)
{
	struct ibv_sge s;
	int i;

	for (i = 0; i < n; i++) {
		s = xt_sge(b, 8192 + (size_t)i * 1024, 1024);
		if (recv1(qp, base + (uint64_t)i, &s, 1))
			return false;
	}
	return true;
}

/* the next @n CQEs of @cq are flushed receives base..base+n-1 */
static bool flushed_recvs(struct ibv_cq *cq, uint32_t qpn, uint64_t base,
			  int n)
{
	struct ibv_wc wc;
	int i;

	for (i = 0; i < n; i++) {
		if (!poll_one(cq, &wc) ||
		    !wc_err(&wc, base + (uint64_t)i, IBV_WC_WR_FLUSH_ERR, qpn))
			return false;
		if (!(wc.opcode & IBV_WC_RECV)) {
			xt_note("flushed receive CQE with opcode %d", wc.opcode);
			return false;
		}
	}
	return true;
}

static void t_err_lkey(void)
{
	struct ibv_send_wr w[3], *bad = NULL;
	struct ibv_sge s[3], rs;
	struct err_env e;
	struct ibv_wc wc[3];
	struct ibv_qp *a;
	uint32_t qpn;
	int i, got;
	bool ok;

	if (!env_new(&e, 7, "lkey"))
		return;
	a = e.p.a.qp;
	qpn = a->qp_num;
	for (i = 0; i < 3; i++) {
		struct wr d = {
			.op = i < 2 ? IBV_WR_RDMA_WRITE : IBV_WR_SEND,
			.wr_id = 1 + (uint64_t)i,
			.flags = i == 0 ? IBV_SEND_SIGNALED : 0,
			.sg = &s[i], .nsge = 1,
			.raddr = xt_va(&e.rb, (size_t)i * 1024),
			.rkey = e.rb.mr->rkey,
		};

		s[i] = xt_sge(&e.la, (size_t)i * 1024, 1024);
		wr_build(&w[i], &d);
		w[i].next = i < 2 ? &w[i + 1] : NULL;
	}
	s[0].lkey ^= 0x80;	/* the MR's index, another tag: invalid */
	xt_pat_fill(e.la.p, 3072, 30);
	ok = recvs(a, &e.la, 0x51, 2) && recvs(e.p.b.qp, &e.rb, 0x61, 1) &&
	     !ibv_post_send(a, w, &bad);
	got = ok ? poll_n(e.p.a.cq, wc, 3) : 0;
	xt_check(got == 3 && wc_err(&wc[0], 1, IBV_WC_LOC_PROT_ERR, qpn),
		 "err lkey: LOC_PROT_ERR for the bad lkey");
	xt_check(got == 3 && wc_err(&wc[1], 2, IBV_WC_WR_FLUSH_ERR, qpn) &&
		 wc_err(&wc[2], 3, IBV_WC_WR_FLUSH_ERR, qpn),
		 "err lkey: the 2 unsignaled WRs after it flushed, in order");
	xt_check(xt_all_bytes(e.rb.p + 1024, 1024, 0),
		 "err lkey: the flushed WRITE was not executed");
	xt_check(flushed_recvs(e.p.a.cq, qpn, 0x51, 2),
		 "err lkey: posted receives of the QP flushed");
	xt_check(qp_state(a) == IBV_QPS_ERR, "err lkey: requester QP in ERR");
	/* posted in ERR: flushed too */
	rs = xt_sge(&e.la, 12288, 64);
	ok = !send1(a, 4, 0, &rs) &&
	     !recv1(a, 0x53, &rs, 1) && poll_n(e.p.a.cq, wc, 2) == 2;
	xt_check(ok && ((wc_err(&wc[0], 4, IBV_WC_WR_FLUSH_ERR, qpn) &&
			 wc_err(&wc[1], 0x53, IBV_WC_WR_FLUSH_ERR, qpn)) ||
			(wc_err(&wc[0], 0x53, IBV_WC_WR_FLUSH_ERR, qpn) &&
			 wc_err(&wc[1], 4, IBV_WC_WR_FLUSH_ERR, qpn))),
		 "err lkey: a send and a receive posted in ERR are flushed");
	xt_check(cq_empty(e.p.b.cq) && qp_state(e.p.b.qp) == IBV_QPS_RTS &&
		 async_count(e.p.b.qp) == 0,
		 "err lkey: responder untouched (no CQE, no event, RTS)");
	/* both to RESET and connected again: the pair works as new */
	requester_event(a);
	ok = true;
	for (i = 0; i < 2; i++) {
		struct ibv_qp_attr ra = { .qp_state = IBV_QPS_RESET };
		struct ibv_qp *q = i ? e.p.b.qp : a;
		int ret = ibv_modify_qp(q, &ra, IBV_QP_STATE);

		if (ret)
			xt_note("modify_qp(RESET) of QP %u: %s", q->qp_num,
				strerror(ret));
		ok = ok && !ret;
	}
	ok = ok && cq_empty(e.p.a.cq) && cq_empty(e.p.b.cq) &&
	     rc_connect(a, e.p.b.qp->qp_num, 7) &&
	     rc_connect(e.p.b.qp, qpn, 7);
	xt_pat_fill(e.la.p, 3072, 32);
	memset(e.rb.p, 0, 4096);
	s[0] = xt_sge(&e.la, 0, 1024);
	s[1] = xt_sge(&e.la, 1024, 1024);
	rs = xt_sge(&e.rb, 2048, 1024);
	ok = ok && !recv1(e.p.b.qp, 0x91, &rs, 1) &&
	     !post1(a, &(struct wr){ .op = IBV_WR_RDMA_WRITE, .wr_id = 0x92,
				     .sg = &s[0], .nsge = 1,
				     .raddr = xt_va(&e.rb, 0),
				     .rkey = e.rb.mr->rkey }) &&
	     !send1(a, 0x93, IBV_SEND_SIGNALED, &s[1]) &&
	     poll_one(e.p.a.cq, &wc[0]) &&
	     wc_ok(&wc[0], 0x93, IBV_WC_SEND, qpn) &&
	     poll_one(e.p.b.cq, &wc[1]) &&
	     wc_ok(&wc[1], 0x91, IBV_WC_RECV, e.p.b.qp->qp_num);
	if (ok && (wc[1].byte_len != 1024 || memcmp(e.rb.p, e.la.p, 1024) ||
		   memcmp(e.rb.p + 2048, e.la.p + 1024, 1024)))
		xt_note("after RESET: byte_len %u, WRITE data %s, SEND data %s",
			wc[1].byte_len, memcmp(e.rb.p, e.la.p, 1024) ? "bad" :
			"ok", memcmp(e.rb.p + 2048, e.la.p + 1024, 1024) ?
			"bad" : "ok");
	xt_check(ok && wc[1].byte_len == 1024 &&
		 !memcmp(e.rb.p, e.la.p, 1024) &&
		 !memcmp(e.rb.p + 2048, e.la.p + 1024, 1024) &&
		 cq_empty(e.p.a.cq),
		 "err lkey: after RESET and reconnecting, WRITE + SEND work");
	env_free(&e);
}

/*
 * One RC WRITE that the responder refuses: REM_ACCESS_ERR, the responder
 * gets QP_ACCESS_ERR and flushes its receives, both QPs in ERR.
 */
static void rem_access_case(const char *name, bool bad_rkey, bool oob,
			    bool no_rw)
{
	struct xt_buf nrw = { 0 }, *dst;
	struct ibv_sge s;
	struct err_env e;
	struct ibv_wc wc;
	struct wr d = { .op = IBV_WR_RDMA_WRITE, .wr_id = 7,
			.flags = IBV_SEND_SIGNALED, .nsge = 1 };
	size_t off = 0;
	bool ok;

	if (!env_new(&e, 7, name))
		return;
	if (no_rw && !xt_buf_new(&nrw, pd, 4096, IBV_ACCESS_LOCAL_WRITE |
				 IBV_ACCESS_REMOTE_READ)) {
		xt_check(false, "err %s: set up", name);
		env_free(&e);
		return;
	}
	dst = no_rw ? &nrw : &e.rb;
	if (oob)
		off = dst->len - 100;
	s = xt_sge(&e.la, 0, 200);
	xt_pat_fill(e.la.p, 200, 31);
	d.sg = &s;
	d.raddr = xt_va(dst, off);
	d.rkey = dst->mr->rkey ^ (bad_rkey ? 0x80 : 0);
	ok = recvs(e.p.b.qp, &e.rb, 0x61, 2) && !post1(e.p.a.qp, &d) &&
	     poll_one(e.p.a.cq, &wc) &&
	     wc_err(&wc, 7, IBV_WC_REM_ACCESS_ERR, e.p.a.qp->qp_num);
	xt_check(ok, "err %s: REM_ACCESS_ERR on the requester", name);
	xt_check(xt_all_bytes(dst->p + off, dst->len - off < 200 ?
			 dst->len - off : 200, 0),
	       "err %s: nothing written", name);
	xt_check(async_wait(IBV_EVENT_QP_ACCESS_ERR, e.p.b.qp),
		 "err %s: IBV_EVENT_QP_ACCESS_ERR for the responder QP", name);
	xt_check(qp_state(e.p.a.qp) == IBV_QPS_ERR &&
		 qp_state(e.p.b.qp) == IBV_QPS_ERR,
		 "err %s: both QPs in ERR", name);
	xt_check(flushed_recvs(e.p.b.cq, e.p.b.qp->qp_num, 0x61, 2),
		 "err %s: the responder's receives flushed", name);
	destroyed(xt_buf_free(&nrw), "MR");
	env_free(&e);
}

static void t_err_len(void)
{
	struct err_env e;
	struct ibv_sge r;
	struct ibv_wc wc;
	bool ok;

	if (!env_new(&e, 7, "len"))
		return;
	r = xt_sge(&e.rb, 0, 100);
	ok = !recv1(e.p.b.qp, 0x71, &r, 1) && recvs(e.p.b.qp, &e.rb, 0x72, 1);
	xt_check(env_send_err(&e, ok, 8, 1000, IBV_WC_REM_INV_REQ_ERR),
		 "err len: REM_INV_REQ_ERR on the sender");
	xt_check(poll_one(e.p.b.cq, &wc) &&
		 wc_err(&wc, 0x71, IBV_WC_LOC_LEN_ERR, e.p.b.qp->qp_num),
		 "err len: LOC_LEN_ERR on the receiver");
	xt_check(flushed_recvs(e.p.b.cq, e.p.b.qp->qp_num, 0x72, 1),
		 "err len: the receiver's next receive flushed");
	xt_check(async_wait(IBV_EVENT_QP_REQ_ERR, e.p.b.qp),
		 "err len: IBV_EVENT_QP_REQ_ERR for the receiver QP");
	xt_check(qp_state(e.p.a.qp) == IBV_QPS_ERR &&
		 qp_state(e.p.b.qp) == IBV_QPS_ERR, "err len: both QPs in ERR");
	env_free(&e);
}

static void t_err_rnr(void)
{
	struct err_env e;
	bool ok;

	if (!env_new(&e, 0, "rnr"))
		return;
	ok = recvs(e.p.a.qp, &e.la, 0x81, 1);
	xt_check(env_send_err(&e, ok, 9, 64, IBV_WC_RNR_RETRY_EXC_ERR),
		 "err rnr: no receive, rnr_retry 0: RNR_RETRY_EXC_ERR");
	xt_check(qp_state(e.p.a.qp) == IBV_QPS_ERR,
		 "err rnr: the sender QP in ERR");
	xt_check(flushed_recvs(e.p.a.cq, e.p.a.qp->qp_num, 0x81, 1),
		 "err rnr: the sender's posted receive flushed");
	xt_check(qp_state(e.p.b.qp) == IBV_QPS_RTS && cq_empty(e.p.b.cq) &&
		 async_count(e.p.b.qp) == 0,
		 "err rnr: the responder stays in RTS, no CQE, no event");
	env_free(&e);
}

static void t_errors(void)
{
	t_err_lkey();
	rem_access_case("rkey", true, false, false);
	rem_access_case("bounds", false, true, false);
	rem_access_case("no-remote-write", false, false, true);
	t_err_len();
	t_err_rnr();
}

/* ------------------------------------------------------------ 4. API */

static void t_api_state(void)
{
	struct ibv_send_wr w, *bad;
	struct ibv_recv_wr rw, *rbad;
	struct xt_buf b = { 0 };
	struct ibv_sge s;
	struct xt_ep e;
	int ret;

	if (!xt_buf_new(&b, pd, 4096, ACCESS_ALL) ||
	    !ep_new(&e, IBV_QPT_RC, 16, 8, 8)) {
		xt_check(false, "api state: set up");
		destroyed(xt_buf_free(&b), "MR");
		return;
	}
	s = xt_sge(&b, 0, 64);
	wr_build(&w, &(struct wr){ .op = IBV_WR_SEND, .wr_id = 1,
		 .flags = IBV_SEND_SIGNALED, .sg = &s,
		 .nsge = 1 });
	bad = NULL;
	ret = ibv_post_send(e.qp, &w, &bad);
	xt_check(ret == EINVAL && bad == &w,
		 "api: post_send in RESET: %d (EINVAL), bad_wr set", ret);
	memset(&rw, 0, sizeof(rw));
	rw.sg_list = &s;
	rw.num_sge = 1;
	rbad = NULL;
	ret = ibv_post_recv(e.qp, &rw, &rbad);
	xt_check(ret != 0 && rbad == &rw,
		 "api: post_recv in RESET: %d (error), bad_wr set", ret);
	ret = qp_to_init(e.qp);
	bad = NULL;
	ret = ret ? -1 : ibv_post_send(e.qp, &w, &bad);
	xt_check(ret == EINVAL && bad == &w,
		 "api: post_send in INIT: %d (EINVAL), bad_wr set", ret);
	rbad = NULL;
	ret = ibv_post_recv(e.qp, &rw, &rbad);
	xt_check(ret == 0, "api: post_recv in INIT: %d (allowed)", ret);
	xt_check(cq_empty(e.cq), "api: nothing completed");
	ep_free(&e);
	destroyed(xt_buf_free(&b), "MR");
}

static void t_api_limits(void)
{
	struct pair_opts o = PAIR_DEFAULTS;
	struct ibv_send_wr w[2], *bad;
	struct xt_buf la = { 0 }, rb = { 0 };
	struct ibv_sge *sg = NULL, s;
	struct ibv_wc wc[64];
	uint32_t i, n, nsge;
	uint8_t *big = NULL;
	struct pair p;
	int ret;

	o.send_wr = 8;
	if (!xt_buf_new(&la, pd, 16384, ACCESS_ALL) ||
	    !xt_buf_new(&rb, pd, 16384, ACCESS_ALL) || !pair_new_opts(&p, &o)) {
		xt_check(false, "api limits: set up");
		goto out_buf;
	}

	/* too many SGEs: the WR before it is posted, bad_wr is the 2nd */
	nsge = p.a.cap.max_send_sge + 1;
	sg = calloc(nsge, sizeof(*sg));
	if (!sg)
		goto out;
	for (i = 0; i < nsge; i++)
		sg[i] = xt_sge(&la, i * 8, 8);
	s = xt_sge(&la, 0, 8);
	wr_build(&w[0], &(struct wr){ .op = IBV_WR_RDMA_WRITE, .wr_id = 1,
		 .flags = IBV_SEND_SIGNALED, .sg = &s,
		 .nsge = 1, .raddr = xt_va(&rb, 0),
		 .rkey = rb.mr->rkey });
	wr_build(&w[1], &(struct wr){ .op = IBV_WR_RDMA_WRITE, .wr_id = 2,
		 .flags = IBV_SEND_SIGNALED, .sg = sg,
		 .nsge = (int)nsge, .raddr = xt_va(&rb, 0),
		 .rkey = rb.mr->rkey });
	w[0].next = &w[1];
	bad = NULL;
	ret = ibv_post_send(p.a.qp, w, &bad);
	xt_check(ret != 0 && bad == &w[1],
		 "api: num_sge %u > max_send_sge %u: %d, bad_wr = that WR",
		 nsge, p.a.cap.max_send_sge, ret);
	xt_check(poll_n(p.a.cq, wc, 1) == 1 &&
		 wc_ok(&wc[0], 1, IBV_WC_RDMA_WRITE, p.a.qp->qp_num) &&
		 cq_empty(p.a.cq),
		 "api: the WR before the bad one was posted, the bad one not");

	/* inline data longer than max_inline_data */
	n = p.a.cap.max_inline_data + 1;
	big = calloc(1, n);
	if (!big)
		goto out;
	s.addr = (uintptr_t)big;
	s.length = n;
	w[0].send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	w[0].next = NULL;
	bad = NULL;
	ret = ibv_post_send(p.a.qp, w, &bad);
	xt_check(ret != 0 && bad == &w[0] && cq_empty(p.a.cq),
		 "api: %u bytes inline > max_inline_data %u: %d, bad_wr set",
		 n, p.a.cap.max_inline_data, ret);

	/* a full send queue */
	n = p.a.cap.max_send_wr;
	s = xt_sge(&la, 0, 8);
	wr_build(&w[0], &(struct wr){ .op = IBV_WR_RDMA_WRITE, .wr_id = 3,
		 .flags = IBV_SEND_SIGNALED, .sg = &s,
		 .nsge = 1, .raddr = xt_va(&rb, 0),
		 .rkey = rb.mr->rkey });
	for (i = 0, ret = 0; i < n && !ret; i++) {
		bad = NULL;
		ret = ibv_post_send(p.a.qp, w, &bad);
	}
	xt_check(!ret && n < ARRAY_SIZE(wc),
		 "api: max_send_wr %u WRs posted without polling", n);
	bad = NULL;
	ret = ibv_post_send(p.a.qp, w, &bad);
	xt_check(ret == ENOMEM && bad == &w[0],
		 "api: one more: %d (ENOMEM), bad_wr set", ret);
	xt_check(poll_n(p.a.cq, wc, (int)n) == (int)n && cq_empty(p.a.cq),
		 "api: %u completions, none for the refused WR", n);
	bad = NULL;
	ret = ibv_post_send(p.a.qp, w, &bad);
	xt_check(!ret && poll_n(p.a.cq, wc, 1) == 1 &&
		 wc_ok(&wc[0], 3, IBV_WC_RDMA_WRITE, p.a.qp->qp_num),
		 "api: after polling there is room again");
out:
	free(sg);
	free(big);
	pair_free(&p);
out_buf:
	bufs_free(&la, &rb);
}

/* an ibv_reg_mr argument case: one row, one check */
struct reg_mr_row {
	const char *name;
	int access;
	int err;		/* errno */
};

static const struct reg_mr_row reg_mr_cases[] = {
	{ "REMOTE_WRITE without LOCAL_WRITE", IBV_ACCESS_REMOTE_WRITE, EINVAL },
	{ "REMOTE_ATOMIC without LOCAL_WRITE",
	  IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_REMOTE_READ, EINVAL },
};

static void t_api_objects(void)
{
	struct ibv_pd *pd2;
	struct ibv_mr *mr;
	uint8_t *mem;
	struct xt_ep e;
	size_t i;
	int ret;

	mem = aligned_alloc(4096, 4096);
	if (!mem)
		return;
	for (i = 0; i < ARRAY_SIZE(reg_mr_cases); i++) {
		const struct reg_mr_row *r = &reg_mr_cases[i];

		errno = 0;
		mr = ibv_reg_mr(pd, mem, 4096, r->access);
		xt_check(!mr && errno == r->err,
			 "api: reg_mr %s: NULL, errno %d (%s)", r->name, errno,
			 xt_errname(r->err));
		if (mr)
			destroyed(ibv_dereg_mr(mr), "MR");
	}

	pd2 = ibv_alloc_pd(ctx);
	mr = pd2 ? ibv_reg_mr(pd2, mem, 4096, IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (mr) {
		ret = ibv_dealloc_pd(pd2);
		xt_check(ret == EBUSY,
			 "api: dealloc_pd with an MR: %d (EBUSY)", ret);
		if (ret == 0)
			pd2 = NULL;
		destroyed(ibv_dereg_mr(mr), "MR");
	} else {
		xt_check(false, "api: PD and MR for dealloc_pd: %s",
			 strerror(errno));
	}
	if (pd2)
		destroyed(ibv_dealloc_pd(pd2), "PD");
	free(mem);

	if (!ep_new(&e, IBV_QPT_RC, 16, 8, 8)) {
		xt_check(false, "api: CQ and QP");
		return;
	}
	ret = ibv_destroy_cq(e.cq);
	xt_check(ret == EBUSY, "api: destroy_cq of a CQ a QP uses: %d (EBUSY)",
		 ret);
	if (!ret)
		e.cq = NULL;
	else
		xt_check(cq_empty(e.cq), "api: the CQ still works");
	ep_free(&e);
}

/*
 * An address vector without a GRH on a RoCE port (link layer Ethernet)
 * names no destination: ibv_create_ah is NULL with errno EINVAL, and
 * ibv_modify_qp to RTR of RC and UC returns EINVAL and leaves the QP in
 * INIT (as rdma-core's providers; before, the AH silently went to this
 * port and an RC QP retried until "retries exceeded").  With the GRH both
 * work.
 */
static void grh_rtr_case(enum ibv_qp_type type, const char *name,
			 const struct ibv_port_attr *pa)
{
	struct ibv_qp_attr a;
	struct xt_ep e;
	int mask, ret;

	if (!ep_new(&e, type, 16, 8, 8)) {
		xt_check(false, "grh: %s QP", name);
		return;
	}
	ret = qp_to_init(e.qp);
	xt_check(!ret, "grh: %s RESET -> INIT: %d", name, ret);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qp_num = e.qp->qp_num;
	a.rq_psn = XT_PSN;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 0;
	a.ah_attr.dlid = pa->lid;
	a.ah_attr.port_num = PORT;
	mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
	       IBV_QP_RQ_PSN;
	if (type == IBV_QPT_RC)
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	ret = ibv_modify_qp(e.qp, &a, mask);
	xt_check(ret == EINVAL,
		 "grh: %s INIT -> RTR, is_global 0: %d (EINVAL)", name, ret);
	xt_check(qp_state(e.qp) == IBV_QPS_INIT,
		 "grh: %s still INIT after the refused RTR (%d)", name,
		 qp_state(e.qp));
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = gid;
	a.ah_attr.grh.sgid_index = GID_INDEX;
	a.ah_attr.grh.hop_limit = 64;
	ret = ibv_modify_qp(e.qp, &a, mask);
	xt_check(ret == 0 && qp_state(e.qp) == IBV_QPS_RTR,
		 "grh: %s INIT -> RTR with a GRH: %d, state %d (RTR)", name,
		 ret, qp_state(e.qp));
	ep_free(&e);
}

static void t_api_grh(void)
{
	struct ibv_ah_attr aa = { .port_num = PORT };
	struct ibv_port_attr pa;
	struct ibv_ah *ah;
	int ret;

	memset(&pa, 0, sizeof(pa));
	ret = ibv_query_port(ctx, PORT, &pa);
	if (!xt_check(!ret && pa.link_layer == IBV_LINK_LAYER_ETHERNET,
		      "grh: port %d is RoCE (link layer %d == Ethernet): %d",
		      PORT, pa.link_layer, ret))
		return;
	aa.dlid = pa.lid;
	errno = 0;
	ah = ibv_create_ah(pd, &aa);
	xt_check(!ah && errno == EINVAL,
		 "grh: ibv_create_ah, is_global 0: NULL, errno %d (EINVAL)",
		 errno);
	if (ah)
		destroyed(ibv_destroy_ah(ah), "AH");
	aa.is_global = 1;
	aa.grh.dgid = gid;
	aa.grh.sgid_index = GID_INDEX;
	aa.grh.hop_limit = 64;
	ah = ibv_create_ah(pd, &aa);
	xt_check(ah, "grh: ibv_create_ah with a GRH: %s",
		 ah ? "ok" : strerror(errno));
	if (ah)
		destroyed(ibv_destroy_ah(ah), "AH");
	grh_rtr_case(IBV_QPT_RC, "RC", &pa);
	grh_rtr_case(IBV_QPT_UC, "UC", &pa);
}

/* ------------------------------------------------------------ 5. order */

static void t_order(void)
{
	struct pair_opts o = PAIR_DEFAULTS;
	struct ibv_send_wr *w = NULL, *bad;
	struct xt_buf la = { 0 }, rb = { 0 };
	struct ibv_sge *sg = NULL, s, r;
	uint64_t *dst;
	struct ibv_wc wc;
	long first_bad = -1;
	struct pair p;
	bool ok;
	int i;

	o.send_wr = 256;
	if (!xt_buf_new(&la, pd, BUF_SIZE, ACCESS_ALL) ||
	    !xt_buf_new(&rb, pd, BUF_SIZE, ACCESS_ALL) || !pair_new_opts(&p, &o)) {
		xt_check(false, "order: set up");
		goto out_buf;
	}
	w = calloc(200, sizeof(*w));
	sg = calloc(200, sizeof(*sg));
	if (!w || !sg)
		goto out;
	for (i = 0; i < 200; i++) {
		((uint64_t *)la.p)[i] = 1000 + (uint64_t)i;
		sg[i] = xt_sge(&la, (size_t)i * 8, 8);
		wr_build(&w[i], &(struct wr){
			 .op = IBV_WR_RDMA_WRITE, .wr_id = 0x200 + (uint64_t)i,
			 .flags = i == 199 ? IBV_SEND_SIGNALED : 0,
			 .sg = &sg[i], .nsge = 1, .raddr = xt_va(&rb, 0),
			 .rkey = rb.mr->rkey });
		w[i].next = i < 199 ? &w[i + 1] : NULL;
	}
	dst = (uint64_t *)rb.p;
	*dst = 0;
	bad = NULL;
	ok = !ibv_post_send(p.a.qp, w, &bad) && poll_one(p.a.cq, &wc) &&
	     wc_ok(&wc, 0x200 + 199, IBV_WC_RDMA_WRITE, p.a.qp->qp_num);
	xt_check(ok && *dst == 1199 && cq_empty(p.a.cq),
		 "order: 200 WRITEs to one u64, one CQE, final value %llu (1199)",
		 (unsigned long long)*dst);

	/* WRITEs, then a SEND: the data is there with the receive CQE */
	for (i = 0; i < 8; i++) {
		size_t off = 4096 + (size_t)i * 4096;

		xt_pat_fill(la.p + off, 4096, 40 + (uint32_t)i);
		memset(rb.p + off, 0, 4096);
		sg[i] = xt_sge(&la, off, 4096);
		wr_build(&w[i], &(struct wr){
			 .op = IBV_WR_RDMA_WRITE, .wr_id = 0x300 + (uint64_t)i,
			 .sg = &sg[i], .nsge = 1, .raddr = xt_va(&rb, off),
			 .rkey = rb.mr->rkey });
		w[i].next = &w[i + 1];
	}
	s = xt_sge(&la, 40960, 16);
	r = xt_sge(&rb, 40960, 64);
	wr_build(&w[8], &(struct wr){ .op = IBV_WR_SEND, .wr_id = 0x308,
		 .flags = IBV_SEND_SIGNALED, .sg = &s,
		 .nsge = 1 });
	w[8].next = NULL;
	bad = NULL;
	ok = !recv1(p.b.qp, 0x400, &r, 1) && !ibv_post_send(p.a.qp, w, &bad) &&
	     poll_one(p.b.cq, &wc) &&
	     wc_ok(&wc, 0x400, IBV_WC_RECV, p.b.qp->qp_num);
	for (i = 0; ok && i < 8 && first_bad < 0; i++)
		if (xt_pat_check(rb.p + 4096 + i * 4096, 4096,
				 40 + (uint32_t)i) >= 0)
			first_bad = i;
	xt_check(ok && first_bad < 0,
		 "order: 8 WRITEs visible when the later SEND's receive CQE is (first missing %ld)",
		 first_bad);
	xt_check(poll_one(p.a.cq, &wc) &&
		 wc_ok(&wc, 0x308, IBV_WC_SEND, p.a.qp->qp_num) &&
		 cq_empty(p.a.cq), "order: one CQE for the SEND");
out:
	free(w);
	free(sg);
	pair_free(&p);
out_buf:
	bufs_free(&la, &rb);
}

/* ------------------------------------------------------------ 6. threads */

#define TH_SLOTS	64
#define TH_WINDOW	16
#define TH_MSG		64

struct th {
	pthread_t tid;
	int id;
	bool ready;
	struct pair p;
	struct xt_buf la, rb, rr;	/* sources; WRITE targets; receives */
	long done;
	char err[160];
};

static uint32_t th_seed(int id, long seq)
{
	return (uint32_t)id << 24 ^ (uint32_t)seq;
}

static bool th_recv(struct th *t, uint32_t slot)
{
	struct ibv_sge s = xt_sge(&t->rr, slot * TH_MSG, TH_MSG);

	return !recv1(t->p.b.qp, slot, &s, 1);
}

static bool th_post(struct th *t, long seq)
{
	uint32_t slot = (uint32_t)(seq % TH_SLOTS);
	size_t woff = slot * TH_MSG, soff = BUF_SIZE / 2 + slot * TH_MSG;
	struct ibv_sge ws = xt_sge(&t->la, woff, TH_MSG);
	struct ibv_sge ss = xt_sge(&t->la, soff, 8);
	struct ibv_send_wr w[2], *bad = NULL;
	uint32_t *msg = (uint32_t *)(t->la.p + soff);

	xt_pat_fill(t->la.p + woff, TH_MSG, th_seed(t->id, seq));
	msg[0] = (uint32_t)seq;
	msg[1] = (uint32_t)t->id;
	wr_build(&w[0], &(struct wr){ .op = IBV_WR_RDMA_WRITE,
		 .wr_id = (uint64_t)seq, .sg = &ws,
		 .nsge = 1, .raddr = xt_va(&t->rb, woff),
		 .rkey = t->rb.mr->rkey });
	wr_build(&w[1], &(struct wr){ .op = IBV_WR_SEND,
		 .wr_id = (uint64_t)seq,
		 .flags = IBV_SEND_SIGNALED, .sg = &ss,
		 .nsge = 1 });
	w[0].next = &w[1];
	return !ibv_post_send(t->p.a.qp, w, &bad);
}

static void *th_main(void *arg)
{
	struct th *t = arg;
	long posted = 0, received = 0, acked = 0;
	uint64_t last = xt_now_ms();
	unsigned int spins = 0;
	struct ibv_wc wc[16];
	uint32_t slot, *msg;
	int i, n;

	for (i = 0; i < TH_SLOTS; i++)
		if (!th_recv(t, (uint32_t)i)) {
			snprintf(t->err, sizeof(t->err), "post_recv");
			return NULL;
		}
	while (received < iterations || acked < iterations) {
		bool progress = false;

		while (posted < iterations &&
		       posted - (received < acked ? received : acked) <
		       TH_WINDOW) {
			if (!th_post(t, posted)) {
				snprintf(t->err, sizeof(t->err),
					 "post_send at %ld", posted);
				return NULL;
			}
			posted++;
		}
		n = ibv_poll_cq(t->p.b.cq, 16, wc);
		for (i = 0; i < n; i++, received++) {
			slot = (uint32_t)wc[i].wr_id;
			msg = (uint32_t *)(t->rr.p + slot * TH_MSG);
			if (wc[i].status != IBV_WC_SUCCESS ||
			    wc[i].opcode != IBV_WC_RECV ||
			    wc[i].byte_len != 8 ||
			    slot != (uint32_t)(received % TH_SLOTS) ||
			    msg[0] != (uint32_t)received ||
			    msg[1] != (uint32_t)t->id) {
				snprintf(t->err, sizeof(t->err),
					 "receive %ld: %s opcode %d len %u slot %u msg %u/%u",
					 received,
					 st(wc[i].status), wc[i].opcode,
					 wc[i].byte_len, slot, msg[0], msg[1]);
				return NULL;
			}
			if (xt_pat_check(t->rb.p + (size_t)(received % TH_SLOTS) *
				      TH_MSG, TH_MSG,
				      th_seed(t->id, received)) >= 0) {
				snprintf(t->err, sizeof(t->err),
					 "WRITE %ld not visible with its SEND",
					 received);
				return NULL;
			}
			if (!th_recv(t, slot)) {
				snprintf(t->err, sizeof(t->err), "post_recv");
				return NULL;
			}
		}
		progress = n > 0;
		n = ibv_poll_cq(t->p.a.cq, 16, wc);
		for (i = 0; i < n; i++, acked++) {
			if (wc[i].status != IBV_WC_SUCCESS ||
			    wc[i].opcode != IBV_WC_SEND ||
			    wc[i].wr_id != (uint64_t)acked) {
				snprintf(t->err, sizeof(t->err),
					 "send CQE %ld: %s opcode %d wr_id %llu",
					 acked, st(wc[i].status), wc[i].opcode,
					 (unsigned long long)wc[i].wr_id);
				return NULL;
			}
		}
		progress = progress || n > 0;
		if (progress) {
			last = xt_now_ms();
			spins = 0;
			continue;
		}
		if (xt_now_ms() - last > (uint64_t)wait_ms) {
			snprintf(t->err, sizeof(t->err),
				 "stuck: posted %ld received %ld acked %ld",
				 posted, received, acked);
			return NULL;
		}
		xt_relax(&spins);
	}
	t->done = received;
	return NULL;
}

static void t_threads(void)
{
	struct pair_opts o = PAIR_DEFAULTS;
	struct th th[NTHREADS];
	int i, started = 0;
	bool ok;

	/* small rings: the SQ, RQ and both CQs wrap many times */
	o.cqe_a = 2 * TH_WINDOW;
	o.cqe_b = 2 * TH_WINDOW;
	memset(th, 0, sizeof(th));
	for (i = 0; i < NTHREADS; i++) {
		th[i].id = i + 1;
		th[i].ready = xt_buf_new(&th[i].la, pd, BUF_SIZE, ACCESS_ALL) &&
			      xt_buf_new(&th[i].rb, pd, BUF_SIZE, ACCESS_ALL) &&
			      xt_buf_new(&th[i].rr, pd, BUF_SIZE, ACCESS_ALL) &&
			      pair_new_opts(&th[i].p, &o);
		if (!th[i].ready)
			break;
	}
	if (i == NTHREADS) {
		for (i = 0; i < NTHREADS; i++)
			if (!pthread_create(&th[i].tid, NULL, th_main, &th[i]))
				started++;
		for (i = 0; i < started; i++)
			pthread_join(th[i].tid, NULL);
	}
	xt_check(started == NTHREADS, "threads: %d threads with a pair each",
		 started);
	for (i = 0; i < started; i++) {
		ok = th[i].done == iterations && !th[i].err[0];
		xt_check(ok,
			 "threads: thread %d: %d WRITE+SEND, all completed and verified%s%s",
			 th[i].id, iterations, th[i].err[0] ? ": " : "",
			 th[i].err);
	}
	for (i = 0; i < NTHREADS; i++) {
		if (th[i].p.a.qp)
			pair_free(&th[i].p);
		bufs_free(&th[i].la, &th[i].rb);
		destroyed(xt_buf_free(&th[i].rr), "MR");
	}
}

/* ------------------------------------------------------------ 7. channel */

/*
 * The setting of the channel tests: a CQ of 16 entries (on a completion
 * channel, or none), one or two QPs on it, each connected to a peer of
 * its own (with a CQ of its own) or the two to each other, and two
 * registered 4 KiB buffers.
 */
struct shared {
	struct ibv_comp_channel *ch;
	struct pollfd pfd;		/* the channel's fd, POLLIN */
	struct ibv_cq *cq;
	struct ibv_qp *qp[2];
	struct xt_ep peer[2];
	struct xt_buf la, rb;
};

/* the channel (if @channel) and the CQ (@cq_context): false if not */
static bool shared_cq(struct shared *f, bool channel, void *cq_context)
{
	memset(f, 0, sizeof(*f));
	if (channel) {
		f->ch = ibv_create_comp_channel(ctx);
		if (!f->ch)
			return false;
		f->pfd = (struct pollfd){ .fd = f->ch->fd, .events = POLLIN };
	}
	f->cq = ibv_create_cq(ctx, 16, cq_context, f->ch, 0);
	return f->cq;
}

/*
 * the buffers and @nqp QPs of @attr (NULL: RC, 8 WRs and 1 SGE each way)
 * on the CQ, each connected to a peer of its own (@peers) or the two to
 * each other, all in RTS
 */
static bool shared_qps(struct shared *f, const struct ibv_qp_init_attr *attr,
		       int nqp, bool peers)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	uint32_t dqpn;
	int i;

	if (attr)
		ia = *attr;
	ia.send_cq = f->cq;
	ia.recv_cq = f->cq;
	if (!xt_buf_new(&f->la, pd, 4096, ACCESS_ALL) ||
	    !xt_buf_new(&f->rb, pd, 4096, ACCESS_ALL))
		return false;
	for (i = 0; i < nqp; i++) {
		f->qp[i] = ibv_create_qp(pd, &ia);
		if (!f->qp[i] ||
		    (peers && !ep_new(&f->peer[i], IBV_QPT_RC, 16, 8, 8)))
			return false;
	}
	for (i = 0; i < nqp; i++) {
		dqpn = peers ? f->peer[i].qp->qp_num : f->qp[!i]->qp_num;
		if (!rc_connect(f->qp[i], dqpn, 7) ||
		    (peers && !rc_connect(f->peer[i].qp, f->qp[i]->qp_num, 7)))
			return false;
	}
	return true;
}

static void shared_free(struct shared *f)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (f->qp[i]) {
			async_forget(f->qp[i]);
			destroyed(ibv_destroy_qp(f->qp[i]), "QP");
		}
		ep_free(&f->peer[i]);
	}
	if (f->cq) {
		async_forget(f->cq);
		destroyed(ibv_destroy_cq(f->cq), "CQ");
	}
	if (f->ch)
		destroyed(ibv_destroy_comp_channel(f->ch), "comp channel");
	bufs_free(&f->la, &f->rb);
}

/* poll() the channel's fd for @ms if @ok (else -1): what poll() said */
static int shared_poll(struct shared *f, bool ok, int ms)
{
	f->pfd.revents = 0;
	return ok ? poll(&f->pfd, 1, ms) : -1;
}

/*
 * the channel's event, acknowledged (the CQ's cq_context in *@ectx if
 * not NULL): whether there is one and it is the CQ's
 */
static bool shared_event(struct shared *f, void **ectx)
{
	struct ibv_cq *ecq;
	void *c;

	if (ibv_get_cq_event(f->ch, &ecq, &c))
		return false;
	ibv_ack_cq_events(ecq, 1);
	if (ectx)
		*ectx = c;
	return ecq == f->cq;
}

/* if @ok, wait for the channel's event: whether the CQ's came */
static bool shared_wait(struct shared *f, bool ok)
{
	return shared_poll(f, ok, wait_ms) == 1 && shared_event(f, NULL);
}

/* a signaled RDMA WRITE on @qp of @s to @f's rb + @off */
static int shared_write(struct shared *f, struct ibv_qp *qp, uint64_t wr_id,
			struct ibv_sge *s, size_t off)
{
	return post1(qp, &(struct wr){ .op = IBV_WR_RDMA_WRITE, .wr_id = wr_id,
				       .flags = IBV_SEND_SIGNALED, .sg = s,
				       .nsge = 1, .raddr = xt_va(&f->rb, off),
				       .rkey = f->rb.mr->rkey });
}

static void t_channel(void)
{
	int marker, r, ret, before;
	struct shared f;
	struct ibv_qp *qp;
	void *ectx = NULL;
	struct ibv_sge s;
	struct ibv_wc wc;
	bool ok;

	ok = shared_cq(&f, true, &marker);
	if (!xt_check(f.ch, "channel: ibv_create_comp_channel"))
		return;
	if (!xt_check(ok && f.cq->channel == f.ch &&
		      f.cq->cq_context == &marker,
		      "channel: CQ with the channel and a cq_context"))
		goto out;
	if (!shared_qps(&f, NULL, 1, true)) {
		xt_check(false, "channel: set up a pair");
		goto out;
	}
	qp = f.qp[0];
	ret = ibv_destroy_comp_channel(f.ch);
	xt_check(ret != 0, "channel: destroy while a CQ uses it: %d (EBUSY)",
		 ret);
	if (!ret) {
		f.ch = NULL;
		goto out;
	}

	s = xt_sge(&f.la, 0, 64);
	ok = !ibv_req_notify_cq(f.cq, 0) && !shared_write(&f, qp, 1, &s, 0);
	r = shared_poll(&f, ok, wait_ms);
	xt_check(r == 1 && (f.pfd.revents & POLLIN),
		 "channel: armed CQ, a completion: the fd becomes readable");
	ok = r == 1 && shared_event(&f, &ectx);
	xt_check(ok && ectx == &marker,
		 "channel: ibv_get_cq_event returns the CQ and its cq_context");
	xt_check(poll_one(f.cq, &wc) &&
		 wc_ok(&wc, 1, IBV_WC_RDMA_WRITE, qp->qp_num),
		 "channel: the completion is in the CQ");

	/* not re-armed: a completion raises nothing */
	ok = !shared_write(&f, qp, 2, &s, 0) && poll_one(f.cq, &wc) &&
	     wc_ok(&wc, 2, IBV_WC_RDMA_WRITE, qp->qp_num);
	r = shared_poll(&f, true, 200);
	xt_check(ok && r == 0,
		 "channel: not re-armed: a completion, but no event (poll %d)",
		 r);

	/* re-armed: the next one does */
	ok = !ibv_req_notify_cq(f.cq, 0) && !shared_write(&f, qp, 3, &s, 0);
	xt_check(shared_wait(&f, ok),
		 "channel: re-armed: the next completion raises an event");
	xt_check(poll_one(f.cq, &wc) &&
		 wc_ok(&wc, 3, IBV_WC_RDMA_WRITE, qp->qp_num) && cq_empty(f.cq),
		 "channel: its completion is in the CQ");
out:
	before = destroy_errors;
	shared_free(&f);
	xt_check(destroy_errors == before,
		 "channel: QPs, CQ, channel and MRs destroyed");
}

/*
 * Solicited-only arming: a CQ shared by both QPs of a pair; a SEND
 * without IBV_SEND_SOLICITED (its send and receive CQEs) raises nothing,
 * one with it raises the event.
 */
static void t_solicited(void)
{
	struct ibv_qp *a, *b;
	struct ibv_wc wc[2];
	struct ibv_sge s, r;
	struct shared f;
	bool ok;
	int rc;

	if (!shared_cq(&f, true, NULL) || !shared_qps(&f, NULL, 2, false)) {
		xt_check(false, "solicited: set up");
		goto out;
	}
	a = f.qp[0];
	b = f.qp[1];
	s = xt_sge(&f.la, 0, 32);
	r = xt_sge(&f.rb, 0, 64);
	ok = !recv1(b, 0xf1, &r, 1) && !ibv_req_notify_cq(f.cq, 1) &&
	     !send1(a, 0xf2, IBV_SEND_SIGNALED, &s) &&
	     poll_n(f.cq, wc, 2) == 2;
	rc = shared_poll(&f, ok, 200);
	xt_check(rc == 0,
		 "solicited: armed solicited-only, a plain SEND and its receive: no event (poll %d)",
		 rc);
	ok = !recv1(b, 0xf3, &r, 1) &&
	     !send1(a, 0xf4, IBV_SEND_SOLICITED, &s);
	xt_check(shared_wait(&f, ok),
		 "solicited: a SEND with IBV_SEND_SOLICITED raises it");
	xt_check(poll_one(f.cq, wc) &&
		 wc_ok(wc, 0xf3, IBV_WC_RECV, b->qp_num) && cq_empty(f.cq),
		 "solicited: the (unsignaled) SEND's receive CQE only");
out:
	shared_free(&f);
}

/* sq_sig_all: every WR completes; ibv_query_qp gives the creation attrs */
static void t_sig_all(void)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC, .sq_sig_all = 1,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2,
			 .max_inline_data = 32 },
	}, qi;
	struct ibv_qp_attr qa;
	struct ibv_wc wc[2];
	struct shared f;
	struct ibv_qp *a;
	struct ibv_sge s;
	bool ok;

	if (!shared_cq(&f, false, NULL) || !shared_qps(&f, &ia, 1, true)) {
		xt_check(false, "sig_all: set up");
		goto out;
	}
	a = f.qp[0];
	memset(&qi, 0, sizeof(qi));
	ok = !ibv_query_qp(a, &qa, IBV_QP_STATE | IBV_QP_CAP |
			   IBV_QP_DEST_QPN | IBV_QP_PATH_MTU, &qi);
	xt_check(ok && qa.qp_state == IBV_QPS_RTS &&
		 qa.dest_qp_num == f.peer[0].qp->qp_num &&
		 qa.path_mtu == mtu && qi.qp_type == IBV_QPT_RC &&
		 qi.sq_sig_all == 1 && qi.send_cq == f.cq &&
		 qi.cap.max_send_wr == ia.cap.max_send_wr &&
		 qi.cap.max_inline_data == ia.cap.max_inline_data,
		 "query_qp: RTS, dest_qp_num, path_mtu, qp_type, sq_sig_all, send_cq, caps as created");
	s = xt_sge(&f.la, 0, 16);
	ok = !post1(a, &(struct wr){ .op = IBV_WR_RDMA_WRITE, .wr_id = 1,
				     .sg = &s, .nsge = 1,
				     .raddr = xt_va(&f.rb, 0),
				     .rkey = f.rb.mr->rkey }) &&
	     !post1(a, &(struct wr){ .op = IBV_WR_RDMA_WRITE, .wr_id = 2,
				     .sg = &s, .nsge = 1,
				     .raddr = xt_va(&f.rb, 64),
				     .rkey = f.rb.mr->rkey }) &&
	     poll_n(f.cq, wc, 2) == 2;
	xt_check(ok && wc_ok(&wc[0], 1, IBV_WC_RDMA_WRITE, a->qp_num) &&
		 wc_ok(&wc[1], 2, IBV_WC_RDMA_WRITE, a->qp_num),
		 "sig_all: 2 WRs without IBV_SEND_SIGNALED, 2 CQEs");
out:
	shared_free(&f);
}

/*
 * A CQ shared by two QPs: the CQE of a QP destroyed before it was polled
 * is not returned; the other QP's completions still are.
 */
static void t_stale_cqe(void)
{
	struct ibv_qp *c, *d;
	struct shared f;
	struct ibv_wc wc;
	struct ibv_sge s;
	bool ok;

	if (!shared_cq(&f, true, NULL) || !shared_qps(&f, NULL, 2, true)) {
		xt_check(false, "stale cqe: set up");
		goto out;
	}
	c = f.qp[1];
	d = f.peer[1].qp;
	s = xt_sge(&f.la, 0, 16);
	/* the event says the CQE is in the CQ */
	ok = !ibv_req_notify_cq(f.cq, 0) &&
	     !shared_write(&f, f.qp[0], 0xa, &s, 0);
	ok = shared_wait(&f, ok) && !ibv_destroy_qp(f.qp[0]);
	if (ok)
		f.qp[0] = NULL;
	xt_check(ok && cq_empty(f.cq),
		 "stale cqe: the CQE of a QP destroyed before polling is not returned");
	ok = !shared_write(&f, c, 0xc, &s, 64) && poll_one(f.cq, &wc);
	xt_check(ok && wc_ok(&wc, 0xc, IBV_WC_RDMA_WRITE, c->qp_num) &&
		 cq_empty(f.cq), "stale cqe: the other QP's CQE comes next");
	/* RESET drops the QP's unpolled CQEs, as rdma-core's providers do */
	ok = !ibv_req_notify_cq(f.cq, 0) && !shared_write(&f, c, 0xd, &s, 128);
	/* the event says the CQE is in the CQ, unpolled */
	ok = shared_wait(&f, ok) &&
	     !ibv_modify_qp(c, &(struct ibv_qp_attr){
					.qp_state = IBV_QPS_RESET },
			    IBV_QP_STATE);
	xt_check(ok && cq_empty(f.cq),
		 "stale cqe: RESET drops the QP's unpolled CQE");
	/* both ends start over: the responder expects the first PSN again */
	ok = !ibv_modify_qp(d, &(struct ibv_qp_attr){
					.qp_state = IBV_QPS_RESET },
			    IBV_QP_STATE) &&
	     rc_connect(c, d->qp_num, 7) && rc_connect(d, c->qp_num, 7) &&
	     !shared_write(&f, c, 0xe, &s, 192) && poll_one(f.cq, &wc);
	xt_check(ok && wc_ok(&wc, 0xe, IBV_WC_RDMA_WRITE, c->qp_num) &&
		 cq_empty(f.cq),
		 "stale cqe: after RESET and reconnecting, only the new CQE");
out:
	shared_free(&f);
}

/* ------------------------------------------------------------ 8. events */

static void t_cq_overrun(void)
{
	struct pair_opts o = PAIR_DEFAULTS;
	struct xt_buf la = { 0 }, rb = { 0 };
	struct ibv_sge s;
	struct pair p;
	int i, n = 0;
	bool ok = true;

	o.cqe_a = 4;
	if (!xt_buf_new(&la, pd, 4096, ACCESS_ALL) ||
	    !xt_buf_new(&rb, pd, 4096, ACCESS_ALL) || !pair_new_opts(&p, &o)) {
		xt_check(false, "cq overrun: set up");
		goto out_buf;
	}
	n = p.a.cq->cqe + 2;
	if (n > (int)p.a.cap.max_send_wr) {
		xt_check(false, "cq overrun: CQ of %d entries, SQ of %u",
			 p.a.cq->cqe, p.a.cap.max_send_wr);
		goto out;
	}
	s = xt_sge(&la, 0, 8);
	for (i = 0; i < n && ok; i++)
		ok = !post1(p.a.qp, &(struct wr){
			.op = IBV_WR_RDMA_WRITE, .wr_id = (uint64_t)i,
			.flags = IBV_SEND_SIGNALED, .sg = &s, .nsge = 1,
			.raddr = xt_va(&rb, 0), .rkey = rb.mr->rkey });
	xt_check(ok && async_wait(IBV_EVENT_CQ_ERR, p.a.cq),
		 "cq overrun: %d completions into a CQ of %d, not polled: IBV_EVENT_CQ_ERR with element.cq",
		 n, p.a.cq->cqe);
	xt_check(async_wait(IBV_EVENT_QP_FATAL, p.a.qp),
		 "cq overrun: IBV_EVENT_QP_FATAL for the QP");
out:
	n = destroy_errors;
	pair_free(&p);
	xt_check(destroy_errors == n,
		 "cq overrun: QPs and CQs destroyed after the acks");
out_buf:
	bufs_free(&la, &rb);
}

/* ------------------------------------------------------------ 9. ex */

struct expoll {
	uint64_t wr_id;
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	uint32_t byte_len, qp_num;
	__be32 imm;
	unsigned int flags;
	uint64_t ts;
};

/* read every CQE there is with the extended poll; returns the count */
static int ex_poll(struct ibv_cq_ex *cq, struct expoll *out, int max,
		   int want)
{
	struct ibv_poll_cq_attr pa = { .comp_mask = 0 };
	uint64_t end = xt_now_ms() + (uint64_t)wait_ms;
	unsigned int spins = 0;
	int n = 0, ret;

	for (;;) {
		ret = ibv_start_poll(cq, &pa);
		if (ret == ENOENT) {
			if (n >= want || xt_now_ms() >= end)
				return n;
			xt_relax(&spins);
			continue;
		}
		if (ret) {
			xt_note("ibv_start_poll: %d", ret);
			return -1;
		}
		do {
			if (n < max) {
				out[n].wr_id = cq->wr_id;
				out[n].status = cq->status;
				out[n].opcode = ibv_wc_read_opcode(cq);
				out[n].byte_len = ibv_wc_read_byte_len(cq);
				out[n].qp_num = ibv_wc_read_qp_num(cq);
				out[n].imm = ibv_wc_read_imm_data(cq);
				out[n].flags = ibv_wc_read_wc_flags(cq);
				out[n].ts = ibv_wc_read_completion_ts(cq);
			}
			n++;
		} while (!(ret = ibv_next_poll(cq)));
		ibv_end_poll(cq);
		if (ret != ENOENT) {
			xt_note("ibv_next_poll: %d", ret);
			return -1;
		}
		if (n >= want)
			return n;
	}
}

/* ibv_wr_start, then an RDMA WRITE (@flags) of @s to @rb + @off */
static void ex_write(struct ibv_qp_ex *qx, uint64_t wr_id, unsigned int flags,
		     struct ibv_sge s, const struct xt_buf *rb, size_t off)
{
	ibv_wr_start(qx);
	qx->wr_id = wr_id;
	qx->wr_flags = flags;
	ibv_wr_rdma_write(qx, rb->mr->rkey, xt_va(rb, off));
	ibv_wr_set_sge(qx, s.lkey, s.addr, s.length);
}

/* device_cap_flags: the kernel's, less what user queues cannot do */
static void xv_caps_check(void)
{
	static const struct {
		const char *name;
		uint32_t kernel;
		unsigned int ibv;
	} map[] = {
		{ "SRQ_RESIZE", XRDMA_DEVICE_CAP_SRQ_RESIZE,
		  IBV_DEVICE_SRQ_RESIZE },
		{ "RC_RNR_NAK_GEN", XRDMA_DEVICE_CAP_RC_RNR_NAK_GEN,
		  IBV_DEVICE_RC_RNR_NAK_GEN },
		{ "PORT_ACTIVE_EVENT", XRDMA_DEVICE_CAP_PORT_ACTIVE_EVENT,
		  IBV_DEVICE_PORT_ACTIVE_EVENT },
		{ "CHANGE_PHY_PORT", XRDMA_DEVICE_CAP_CHANGE_PHY_PORT,
		  IBV_DEVICE_CHANGE_PHY_PORT },
		{ "XRC", XRDMA_DEVICE_CAP_XRC, IBV_DEVICE_XRC },
	};
	size_t i;
	struct xrdma_cmd_query_device q = { 0 };
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_srq_attr a = { .max_wr = 8 };
	struct ibv_device_attr d;
	struct ibv_srq *srq;
	int ret;

	if (!xt_check(!ioctl(ctx->cmd_fd, XRDMA_IOC_QUERY_DEVICE, &q) &&
		      !ibv_query_device(ctx, &d),
		      "caps: QUERY_DEVICE and ibv_query_device"))
		return;
	for (i = 0; i < ARRAY_SIZE(map); i++)
		xt_check(!(q.device_cap_flags & map[i].kernel) ==
			 !(d.device_cap_flags & map[i].ibv),
			 "caps: %s as the kernel says (kernel %#x, library %#x)",
			 map[i].name, q.device_cap_flags, d.device_cap_flags);
	xt_check(q.device_cap_flags & XRDMA_DEVICE_CAP_RC_RNR_NAK_GEN,
		 "caps: xnic's RC receiver generates RNR NAKs (kernel %#x)",
		 q.device_cap_flags);
	xt_check(!(d.device_cap_flags & IBV_DEVICE_MEM_MGT_EXTENSIONS),
		 "caps: no MEM_MGT_EXTENSIONS on user queues (library %#x)",
		 d.device_cap_flags);
	srq = ibv_create_srq(pd, &sa);
	if (!xt_check(srq, "caps: create an SRQ: %s", srq ? "ok" : strerror(errno)))
		return;
	/* xv_resize tests SRQ resize itself */
	ret = ibv_modify_srq(srq, &a, IBV_SRQ_MAX_WR);
	xt_check(!ret == !!(d.device_cap_flags & IBV_DEVICE_SRQ_RESIZE),
		 "caps: modify_srq(MAX_WR 8) works as SRQ_RESIZE says (%d)",
		 ret);
	ibv_destroy_srq(srq);
}

static void t_ex(void)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 32,
		.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			    IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM |
			    IBV_WC_EX_WITH_QP_NUM,
	};
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = 64 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_SEND_WITH_IMM,
	};
	struct ibv_device_attr_ex dx;
	struct ibv_cq_ex *cqa = NULL, *cqb = NULL;
	struct ibv_qp *qa_qp = NULL, *qb_qp = NULL;
	struct ibv_qp_init_attr ib;
	struct xt_buf la = { 0 }, rb = { 0 };
	struct ibv_qp_ex *qx;
	struct expoll e[4];
	uint64_t ts1 = 0;
	uint8_t inl[40], *big = NULL;
	struct ibv_sge r;
	int n, ret;
	bool ok;

	memset(&dx, 0, sizeof(dx));
	ret = ibv_query_device_ex(ctx, NULL, &dx);
	xt_check(!ret && dx.completion_timestamp_mask != 0 &&
		 dx.hca_core_clock != 0,
		 "ex: query_device_ex: completion_timestamp_mask %#llx, hca_core_clock %llu kHz",
		 (unsigned long long)
		 dx.completion_timestamp_mask,
		 (unsigned long long)dx.hca_core_clock);

	xv_caps_check();

	cqa = ibv_create_cq_ex(ctx, &ca);
	cqb = ibv_create_cq_ex(ctx, &ca);
	if (!xt_check(cqa && cqb,
		      "ex: create_cq_ex with TIMESTAMP|BYTE_LEN|IMM|QP_NUM: %s",
		      cqa && cqb ? "ok" : strerror(errno)))
		goto out;
	qa.pd = pd;
	qa.send_cq = ibv_cq_ex_to_cq(cqa);
	qa.recv_cq = ibv_cq_ex_to_cq(cqa);
	qa_qp = ibv_create_qp_ex(ctx, &qa);
	qx = qa_qp ? ibv_qp_to_qp_ex(qa_qp) : NULL;
	if (!xt_check(qx,
		      "ex: create_qp_ex with SEND_OPS_FLAGS, ibv_qp_to_qp_ex: %s",
		      qx ? "ok" : strerror(errno)))
		goto out;
	memset(&ib, 0, sizeof(ib));
	ib.qp_type = IBV_QPT_RC;
	ib.send_cq = ibv_cq_ex_to_cq(cqb);
	ib.recv_cq = ibv_cq_ex_to_cq(cqb);
	ib.cap = qa.cap;
	qb_qp = ibv_create_qp(pd, &ib);
	if (!qb_qp || !xt_buf_new(&la, pd, 32768, ACCESS_ALL) ||
	    !xt_buf_new(&rb, pd, 32768, ACCESS_ALL) ||
	    !rc_connect(qa_qp, qb_qp->qp_num, 7) ||
	    !rc_connect(qb_qp, qa_qp->qp_num, 7)) {
		xt_check(false, "ex: set up the pair");
		goto out;
	}
	xt_check(!ibv_qp_to_qp_ex(qb_qp),
		 "ex: ibv_qp_to_qp_ex of a plain QP is NULL");
	n = ex_poll(cqa, e, 4, 0);
	xt_check(n == 0, "ex: start_poll of an empty CQ: ENOENT");

	/* a batch: WRITE (unsignaled) + SEND_WITH_IMM with inline data */
	xt_pat_fill(la.p, 2048, 50);
	xt_pat_fill(inl, sizeof(inl), 51);
	r = xt_sge(&rb, 8192, 256);
	ok = !recv1(qb_qp, 0xe1, &r, 1);
	ex_write(qx, 11, 0, xt_sge(&la, 0, 2048), &rb, 0);
	qx->wr_id = 12;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_imm(qx, htobe32(0xabcd0001));
	ibv_wr_set_inline_data(qx, inl, sizeof(inl));
	ret = ibv_wr_complete(qx);
	memset(inl, 0, sizeof(inl));
	xt_check(ok && !ret,
		 "ex: wr_start, rdma_write+set_sge, send_imm+set_inline_data, wr_complete: %d",
		 ret);
	n = ex_poll(cqa, e, 4, 1);
	ok = n == 1 && e[0].wr_id == 12 && e[0].status == IBV_WC_SUCCESS &&
	     e[0].opcode == IBV_WC_SEND && e[0].qp_num == qa_qp->qp_num;
	xt_check(ok,
		 "ex: one requester CQE (wr_id %llu == 12, SEND, qp_num) via start/next/end_poll",
		 n > 0 ?
		 (unsigned long long)e[0].wr_id : 0ULL);
	ts1 = e[0].ts;
	n = ex_poll(cqb, e, 4, 1);
	ok = n == 1 && e[0].wr_id == 0xe1 && e[0].status == IBV_WC_SUCCESS &&
	     e[0].opcode == IBV_WC_RECV && e[0].byte_len == sizeof(inl) &&
	     (e[0].flags & IBV_WC_WITH_IMM) &&
	     e[0].imm == htobe32(0xabcd0001) && e[0].qp_num == qb_qp->qp_num;
	xt_check(ok, "ex: receive CQE readers: RECV, byte_len %u == 40, WITH_IMM, imm %#x, qp_num",
		 n > 0 ? e[0].byte_len : 0,
		 n > 0 ? be32toh(e[0].imm) : 0);
	xt_pat_fill(inl, sizeof(inl), 51);
	xt_check(xt_pat_check(rb.p, 2048, 50) < 0 &&
		 !memcmp(rb.p + 8192, inl, sizeof(inl)),
		 "ex: the WRITE's data and the inline SEND's data arrived");

	/* an aborted batch posts nothing */
	xt_pat_fill(la.p + 4096, 1024, 52);
	ex_write(qx, 21, IBV_SEND_SIGNALED, xt_sge(&la, 4096, 1024), &rb, 12288);
	ibv_wr_abort(qx);
	ex_write(qx, 22, IBV_SEND_SIGNALED, xt_sge(&la, 4096, 512), &rb, 16384);
	ret = ibv_wr_complete(qx);
	n = ret ? 0 : ex_poll(cqa, e, 4, 1);
	ok = n == 1 && e[0].wr_id == 22 && e[0].status == IBV_WC_SUCCESS &&
	     e[0].opcode == IBV_WC_RDMA_WRITE;
	xt_check(ok && xt_all_bytes(rb.p + 12288, 1024, 0) &&
		 xt_pat_check(rb.p + 16384, 512, 52) < 0,
		 "ex: wr_abort posts nothing (only the next batch completes, wr_id %llu)",
		 n > 0 ? (unsigned long long)e[0].wr_id : 0ULL);
	xt_check(n == 1 && (e[0].ts & ~dx.completion_timestamp_mask) == 0 &&
		 ((e[0].ts - ts1) & dx.completion_timestamp_mask) <=
		 dx.completion_timestamp_mask / 2,
		 "ex: completion timestamps %llu then %llu: in order, within the mask",
		 (unsigned long long)ts1,
		 n == 1 ? (unsigned long long)e[0].ts : 0ULL);

	/* a batch with a bad WR: wr_complete fails, nothing is posted */
	big = calloc(1, qa.cap.max_inline_data + 1);
	if (!big)
		goto out;
	ex_write(qx, 31, IBV_SEND_SIGNALED, xt_sge(&la, 4096, 256), &rb, 20480);
	qx->wr_id = 32;
	ibv_wr_send(qx);
	ibv_wr_set_inline_data(qx, big, qa.cap.max_inline_data + 1);
	ret = ibv_wr_complete(qx);
	xt_check(ret != 0, "ex: inline data > max_inline_data (%u): wr_complete fails: %d",
		 qa.cap.max_inline_data, ret);
	ex_write(qx, 33, IBV_SEND_SIGNALED, xt_sge(&la, 4096, 256), &rb, 24576);
	ret = ibv_wr_complete(qx);
	n = ret ? 0 : ex_poll(cqa, e, 4, 1);
	xt_check(n == 1 && e[0].wr_id == 33 && e[0].status == IBV_WC_SUCCESS &&
		 xt_all_bytes(rb.p + 20480, 256, 0) &&
		 xt_pat_check(rb.p + 24576, 256, 52) < 0 &&
		 ex_poll(cqb, e, 4, 0) == 0,
		 "ex: the failed batch posted nothing, the next one works");
out:
	free(big);
	if (qa_qp) {
		async_forget(qa_qp);
		destroyed(ibv_destroy_qp(qa_qp), "QP (ex)");
	}
	if (qb_qp) {
		async_forget(qb_qp);
		destroyed(ibv_destroy_qp(qb_qp), "QP");
	}
	if (cqa)
		destroyed(ibv_destroy_cq(ibv_cq_ex_to_cq(cqa)), "CQ (ex)");
	if (cqb)
		destroyed(ibv_destroy_cq(ibv_cq_ex_to_cq(cqb)), "CQ (ex)");
	bufs_free(&la, &rb);
}

/* ------------------------------------------------------------ main */

static bool open_device(void)
{
	struct ibv_port_attr pa;
	int fl;

	ctx = xt_open_device(dev_name, NULL, 0);
	if (!xt_check(ctx, "setup: open %s", dev_name))
		return false;
	if (!xt_check(!ibv_query_port(ctx, PORT, &pa) &&
		      pa.state == IBV_PORT_ACTIVE &&
		      pa.link_layer == IBV_LINK_LAYER_ETHERNET,
		      "setup: port %d active, link layer Ethernet", PORT))
		return false;
	mtu = pa.active_mtu;
	if (!xt_check(!ibv_query_gid(ctx, PORT, GID_INDEX, &gid),
		      "setup: GID %d", GID_INDEX))
		return false;
	pd = ibv_alloc_pd(ctx);
	if (!xt_check(pd, "setup: alloc PD"))
		return false;
	fl = fcntl(ctx->async_fd, F_GETFL);
	return xt_check(fl >= 0 &&
			!fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK),
			"setup: async fd non-blocking");
}

/* every subtest in a process of its own, with a context and PD */
static bool sub_open(void)
{
	if (open_device())
		return true;
	if (pd)
		destroyed(ibv_dealloc_pd(pd), "PD");
	if (ctx)
		destroyed(ibv_close_device(ctx), "context");
	return false;
}

static void sub_close(void)
{
	async_collect(0);
	xt_check(stray_events == 0 && naev == 0,
		 "events: no unexpected async event (%d, %d left)",
		 stray_events, naev);
	destroyed(ibv_dealloc_pd(pd), "PD");
	destroyed(ibv_close_device(ctx), "context");
	xt_check(destroy_errors == 0,
		 "teardown: every object destroyed without error (%d failed)",
		 destroy_errors);
}

static const struct xt_subtest subtests[] = {
	XT_SUBTEST(rc_ops, 0, "RC opcodes: data and completions"),
	XT_SUBTEST(ud, 0, "UD: GRH, AH from a wc, Q_Key"),
	XT_SUBTEST(errors, 0, "error completions, QP states, flushes"),
	XT_SUBTEST(api_state, 0, "posting in the wrong QP state"),
	XT_SUBTEST(api_limits, 0, "API errors: limits"),
	XT_SUBTEST(api_objects, 0, "API errors: objects in use"),
	XT_SUBTEST(api_grh, 0, "API errors: address vectors without a GRH"),
	XT_SUBTEST(order, 0, "ordering"),
	XT_SUBTEST(threads, 0, "threads posting and polling"),
	XT_SUBTEST(channel, 0, "completion channel"),
	XT_SUBTEST(solicited, 0, "solicited-only notification"),
	XT_SUBTEST(sig_all, 0, "sq_sig_all and unsignaled WRs"),
	XT_SUBTEST(stale_cqe, 0, "CQEs of destroyed QPs"),
	XT_SUBTEST(cq_overrun, 0, "CQ overrun: async event"),
	XT_SUBTEST(ex, 0, "extended QP and CQ API"),
};

static struct xt_suite suite = {
	.tests = subtests,
	.n = ARRAY_SIZE(subtests),
	.setup = sub_open,
	.teardown = sub_close,
};

int main(int argc, char **argv)
{
	int wd = 600, ret;
	const struct xt_opt opts[] = {
		{ .c = 'd', .arg = "IBDEV", .str = &dev_name },
		{ .c = 'i', .arg = "ITERATIONS", .num = &iterations, .min = 1 },
		{ .c = 't', .arg = "WAIT_MS", .num = &wait_ms, .min = 1 },
		{ .c = 'w', .arg = "SECONDS", .num = &wd },
		{ .c = 'v', .num = &verbose },
	};

	ret = xt_main(&suite, opts, ARRAY_SIZE(opts), &argc, &argv, "xv_semantics");
	if (ret >= 0)
		return ret;
	signal(SIGALRM, on_alarm);
	alarm((unsigned int)wd);
	suite.timeout = wd;
	xt_show_library();
	xt_run(&suite, argc, argv);
	return xt_done();
}
