// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_ulp_test cases.  Each runs on side 0 -> side 1 of its environment
 * (the same device in loopback, two cabled devices otherwise), verifies
 * every completion (wr_id, status, opcode, QP, length, flags) and every
 * byte of data, and checks that the device wrote nothing outside its
 * target (buffers are pre-filled with a canary).  Waits are bounded.
 */
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include "xnic_ulp.h"

#define ULPT_MIB		(1024 * 1024)
#define ULPT_CANARY	0xa5	/* local buffers */
#define ULPT_RCANARY	0x5a	/* remote (MR) buffers */
#define ULPT_LW		XRDMA_ACCESS_LOCAL_WRITE
#define ULPT_RW		(XRDMA_ACCESS_LOCAL_WRITE | XRDMA_ACCESS_REMOTE_WRITE)
#define ULPT_ALL		(XRDMA_ACCESS_LOCAL_WRITE | XRDMA_ACCESS_REMOTE_WRITE | \
				 XRDMA_ACCESS_REMOTE_READ | XRDMA_ACCESS_REMOTE_ATOMIC)
#define ULPT_BAD_INDEX	0x00800000	/* flips a key's MR index far away */
#define ULPT_NO_QPN	0xfffffe	/* a QPN no test creates */

static const size_t ulpt_sizes[] = { 1, 64, 4096, 65536, ULPT_MIB };

static u32 ulpt_lkey(struct ulpt_side *s)
{
	return s->dmr->lkey;
}

static void ulpt_wr(struct xrdma_send_wr *wr, u64 id,
		    enum xrdma_wr_opcode op, struct xrdma_sge *sge, int n,
		    u32 flags)
{
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = id;
	wr->opcode = op;
	wr->sg_list = sge;
	wr->num_sge = n;
	wr->send_flags = flags;
}

static void ulpt_wr_rdma(struct xrdma_send_wr *wr, u64 id,
			 enum xrdma_wr_opcode op, struct xrdma_sge *sge, int n,
			 u32 flags, u64 raddr, u32 rkey)
{
	ulpt_wr(wr, id, op, sge, n, flags);
	wr->wr.rdma.remote_addr = raddr;
	wr->wr.rdma.rkey = rkey;
}

static void ulpt_sge(struct xrdma_sge *sge, u64 addr, u32 len, u32 lkey)
{
	sge->addr = addr;
	sge->length = len;
	sge->lkey = lkey;
}

/* a layout with given piece lengths, 11-byte gaps */
static void ulpt_sgl_manual(struct ulpt_sgl *s, struct ulpt_buf *b, u32 lkey,
			    size_t start, const size_t *lens, int n)
{
	size_t off = start, m = 0;
	int j;

	s->n = n;
	for (j = 0; j < n; j++) {
		s->boff[j] = off;
		s->moff[j] = m;
		ulpt_sge(&s->sge[j], ulpt_buf_dma(b, off), lens[j], lkey);
		off += lens[j] + 11;
		m += lens[j];
	}
	s->len = m;
}

/* a paged buffer of side 1 (sized down to the page list limit) fast-reg'd */
static struct ulpt_mr *ulpt_remote(struct ulpt *t, struct ulpt_q *qb,
				   size_t want, unsigned int sg_off, u32 access,
				   struct ulpt_mr *m)
{
	size_t max = (size_t)qb->side->attr.max_fast_reg_page_list_len *
		     PAGE_SIZE;
	struct ulpt_buf *b;

	b = ulpt_buf_alloc(t, qb->side, min(want, max), true);
	if (!b)
		return NULL;
	return ulpt_freg(t, qb, b, sg_off, access, m);
}

/*
 * A connected QP pair with the options @o, a buffer of @lsize bytes on
 * side 0 (*@lb) and, unless @rb is NULL, one of @rsize bytes on side 1
 * (*@rb): false (failure reported) when one is missing
 */
static bool ulpt_pair_bufs(struct ulpt *t, const struct ulpt_qp_opts *o,
			   struct ulpt_q **qa, struct ulpt_q **qb,
			   struct ulpt_buf **lb, size_t lsize,
			   struct ulpt_buf **rb, size_t rsize)
{
	if (ulpt_pair(t, o, qa, qb))
		return false;
	*lb = ulpt_buf_alloc(t, &t->side[0], lsize, false);
	if (!*lb || !rb)
		return *lb;
	*rb = ulpt_buf_alloc(t, &t->side[1], rsize, false);
	return *rb;
}

/* post to @q a receive of the first @len bytes of @b */
static int ulpt_post_recv_buf(struct ulpt *t, struct ulpt_q *q, u64 wr_id,
			      struct ulpt_buf *b, u32 len)
{
	struct xrdma_recv_wr wr = {};
	struct xrdma_sge sge;

	ulpt_sge(&sge, ulpt_buf_dma(b, 0), len, ulpt_lkey(b->side));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return ulpt_post_recv(t, q, &wr);
}

/*
 * The start of most cases: a connected QP pair with the options @o, a
 * buffer of @lsize bytes on side 0 (*@lb) and a remote MR of @msize bytes
 * (ulpt_remote, in @mr) with @access: the MR, or NULL (failure reported)
 */
static struct ulpt_mr *ulpt_pair_mr(struct ulpt *t,
				    const struct ulpt_qp_opts *o,
				    struct ulpt_q **qa, struct ulpt_q **qb,
				    struct ulpt_buf **lb, size_t lsize,
				    size_t msize, u32 access, struct ulpt_mr *mr)
{
	if (!ulpt_pair_bufs(t, o, qa, qb, lb, lsize, NULL, 0))
		return NULL;
	return ulpt_remote(t, *qb, msize, 0, access, mr);
}

static void ulpt_remote_canary(struct ulpt_mr *m)
{
	memset(m->buf->va, ULPT_RCANARY, m->buf->size);
	ulpt_buf_to_dev(m->buf);
}

static bool ulpt_remote_untouched(struct ulpt *t, struct ulpt_mr *m,
				  const char *what)
{
	const u8 *bad;

	ulpt_buf_to_cpu(m->buf);
	bad = memchr_inv(m->buf->va, ULPT_RCANARY, m->buf->size);
	return ULPT_OK(t, !bad, "%s: remote byte %td written", what,
		       bad - m->buf->va);
}

/* one RDMA WRITE of a pattern to remote offset @roff that must succeed */
static bool ulpt_write_ok(struct ulpt *t, struct ulpt_q *qa,
			  struct ulpt_buf *lb,
			  struct ulpt_mr *m, u64 raddr, u32 rkey, size_t len,
			  u32 seed, const char *what)
{
	struct xrdma_send_wr wr;
	struct xrdma_sge sge;

	ulpt_pat_fill(lb->va, len, seed, 0);
	ulpt_buf_to_dev(lb);
	ulpt_remote_canary(m);
	ulpt_sge(&sge, ulpt_buf_dma(lb, 0), len, ulpt_lkey(qa->side));
	ulpt_wr_rdma(&wr, 0x600d, XRDMA_WR_RDMA_WRITE, &sge, 1,
		     XRDMA_SEND_SIGNALED, raddr, rkey);
	if (ulpt_post_send(t, qa, &wr) ||
	    !ulpt_expect(t, qa, false, wr.wr_id, XRDMA_WC_SUCCESS,
			 XRDMA_WC_RDMA_WRITE, NULL, what))
		return false;
	ulpt_buf_to_cpu(m->buf);
	return ulpt_region_check(t, m->buf, raddr - m->iova +
				 (m->iova - ulpt_buf_dma(m->buf, 0)), len, seed,
				 ULPT_RCANARY, what);
}

/* what a failed remote operation leaves on the responder */
enum ulpt_resp {
	ULPT_RESP_DEFAULT,	/* ACCESS_ERR for REM_ACCESS_ERR, else ERR */
	ULPT_RESP_ERR,		/* ERR, its posted receive flushed */
	ULPT_RESP_ACCESS_ERR,	/* the same, and a QP_ACCESS_ERR event */
	ULPT_RESP_REQ_ERR,	/* the same, and a QP_REQ_ERR event */
	ULPT_RESP_UNTOUCHED,	/* still RTS, no event, its receive posted */
};

/*
 * A remote operation that must fail with @status on the requester, which
 * moves to ERR; the responder ends as @resp says; neither the remote nor
 * the local buffer is written.  An atomic compares with (and adds) the
 * remote canary, so one that took place would show.
 */
static bool ulpt_remote_fail(struct ulpt *t, struct ulpt_q *qa,
			     struct ulpt_q *qb,
			     struct ulpt_mr *m, enum xrdma_wr_opcode op,
			     u64 raddr, u32 rkey, u32 len,
			     enum xrdma_wc_status status, enum ulpt_resp resp,
			     struct ulpt_buf *lb, const char *what)
{
	static const enum xrdma_event_type resp_ev[] = {
		[ULPT_RESP_ACCESS_ERR] = XRDMA_EVENT_QP_ACCESS_ERR,
		[ULPT_RESP_REQ_ERR] = XRDMA_EVENT_QP_REQ_ERR,
	};
	struct xrdma_send_wr wr;
	struct xrdma_sge sge;
	const u8 *bad;

	if (resp == ULPT_RESP_DEFAULT)
		resp = status == XRDMA_WC_REM_ACCESS_ERR ? ULPT_RESP_ACCESS_ERR :
			ULPT_RESP_ERR;
	ulpt_remote_canary(m);
	memset(lb->va, ULPT_CANARY, lb->size);
	ulpt_buf_to_dev(lb);
	if (ulpt_post_recv_sgl(t, qb, 0xf1, NULL))
		return false;
	ulpt_sge(&sge, ulpt_buf_dma(lb, 0), len, ulpt_lkey(qa->side));
	ulpt_wr_rdma(&wr, 0xfa11, op, &sge, 1, XRDMA_SEND_SIGNALED, raddr,
		     rkey);
	if (op == XRDMA_WR_ATOMIC_CMP_AND_SWP ||
	    op == XRDMA_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 0x0101010101010101ULL * ULPT_RCANARY;
		wr.wr.atomic.swap = 0;
	}
	if (ulpt_post_send(t, qa, &wr) ||
	    !ulpt_expect(t, qa, false, wr.wr_id, status, -1, NULL, what) ||
	    !ulpt_wait_state(t, qa, XRDMA_QPS_ERR, what))
		return false;
	if (resp == ULPT_RESP_UNTOUCHED) {
		if (!ulpt_wait_state(t, qb, XRDMA_QPS_RTS, what) ||
		    !ulpt_quiet(t, qb->rcq, 50, what) ||
		    !ULPT_OK(t, !atomic_read(&qb->ev[XRDMA_EVENT_QP_REQ_ERR]) &&
			     !atomic_read(&qb->ev[XRDMA_EVENT_QP_ACCESS_ERR]) &&
			     !atomic_read(&qb->ev[XRDMA_EVENT_QP_FATAL]),
			     "%s: responder event (req %d access %d fatal %d)",
			     what, atomic_read(&qb->ev[XRDMA_EVENT_QP_REQ_ERR]),
			     atomic_read(&qb->ev[XRDMA_EVENT_QP_ACCESS_ERR]),
			     atomic_read(&qb->ev[XRDMA_EVENT_QP_FATAL])))
			return false;
	} else if (!ulpt_wait_state(t, qb, XRDMA_QPS_ERR, what) ||
		   !ulpt_expect(t, qb, true, 0xf1, XRDMA_WC_WR_FLUSH_ERR, -1,
				NULL, what) ||
		   (resp != ULPT_RESP_ERR &&
		    !ULPT_OK(t, ulpt_wait_count(&qb->ev[resp_ev[resp]], 1,
						ulpt_timeout_ms),
			     "%s: no QP event %d on the responder (fatal %d access %d req %d)",
			     what, resp_ev[resp],
			     atomic_read(&qb->ev[XRDMA_EVENT_QP_FATAL]),
			     atomic_read(&qb->ev[XRDMA_EVENT_QP_ACCESS_ERR]),
			     atomic_read(&qb->ev[XRDMA_EVENT_QP_REQ_ERR])))) {
		return false;
	}
	if (!ulpt_remote_untouched(t, m, what))
		return false;
	ulpt_buf_to_cpu(lb);
	bad = memchr_inv(lb->va, ULPT_CANARY, lb->size);
	return ULPT_OK(t, !bad, "%s: local byte %td written", what,
		       bad - lb->va);
}

/* a 64-byte WRITE the responder refuses for want of access to @rkey */
static bool ulpt_write_refused(struct ulpt *t, struct ulpt_q *qa,
			       struct ulpt_q *qb,
			       struct ulpt_mr *m, u64 raddr, u32 rkey,
			       struct ulpt_buf *lb, const char *what)
{
	return ulpt_remote_fail(t, qa, qb, m, XRDMA_WR_RDMA_WRITE, raddr, rkey,
				64, XRDMA_WC_REM_ACCESS_ERR, ULPT_RESP_ACCESS_ERR,
				lb, what);
}

/* ------------------------------------------------------------ SEND */

/* the variants of the SEND and WRITE cases */
struct ulpt_xfer {
	bool imm;		/* SEND_WITH_IMM, RDMA_WRITE_WITH_IMM */
	bool maxsge;		/* as many SGEs as the device allows */
};

static const struct ulpt_xfer ulpt_plain, ulpt_imm = { .imm = true },
	ulpt_maxsge = { .maxsge = true };

static void ulpt_case_send(struct ulpt *t)
{
	const struct ulpt_xfer *x = t->arg;
	bool imm = x->imm, maxsge = x->maxsge;
	struct ulpt_side *sa = &t->side[0], *sb = &t->side[1];
	size_t span = ulpt_sgl_span(ULPT_MIB, ULPT_MAX_SGE, 16);
	struct ulpt_qp_opts o = {};
	struct xrdma_send_wr wr;
	struct ulpt_buf *lb, *rb;
	struct ulpt_sgl ss, rs;
	struct xrdma_wc wc;
	struct ulpt_q *qa, *qb;
	unsigned int i, n;
	char what[64];

	if (maxsge) {
		o.send_sge = min_t(u32, sa->attr.max_sge, ULPT_MAX_SGE);
		o.recv_sge = min_t(u32, sb->attr.max_sge, ULPT_MAX_SGE);
	}
	if (!ulpt_pair_bufs(t, &o, &qa, &qb, &lb, span, &rb, span))
		return;
	n = ARRAY_SIZE(ulpt_sizes) + (imm ? 1 : 0);
	for (i = 0; i < n; i++) {
		size_t len = i < ARRAY_SIZE(ulpt_sizes) ? ulpt_sizes[i] : 0;
		u32 seed = 0x5e00 + i + (imm ? 0x100 : 0);

		snprintf(what, sizeof(what), "%zu bytes, %u/%u SGEs", len,
			 qa->cap.max_send_sge, qb->cap.max_recv_sge);
		ulpt_sgl_build(&ss, lb, ulpt_lkey(sa), i, len,
			       qa->cap.max_send_sge, i);
		/* a zero-length message still gets a receive buffer */
		ulpt_sgl_build(&rs, rb, ulpt_lkey(sb), 2 * i + 1,
			       len ? len : 64, qb->cap.max_recv_sge, i + 1);
		memset(rb->va, ULPT_CANARY, rb->size);
		ulpt_buf_to_dev(rb);
		ulpt_sgl_fill(&ss, lb, seed);
		ulpt_buf_to_dev(lb);
		if (ulpt_post_recv_sgl(t, qb, 0x100 + i, &rs))
			return;
		ulpt_wr(&wr, 0x200 + i,
			imm ? XRDMA_WR_SEND_WITH_IMM : XRDMA_WR_SEND, ss.sge,
			ss.n, XRDMA_SEND_SIGNALED);
		wr.ex.imm_data = cpu_to_be32(0xc0de0000 + i);
		if (ulpt_post_send(t, qa, &wr) ||
		    !ulpt_expect(t, qa, false, wr.wr_id, XRDMA_WC_SUCCESS,
				 XRDMA_WC_SEND, NULL, what) ||
		    !ulpt_expect(t, qb, true, 0x100 + i, XRDMA_WC_SUCCESS,
				 XRDMA_WC_RECV, &wc, what))
			return;
		if (!ULPT_OK(t, wc.byte_len == len, "%s: byte_len %u", what,
			     wc.byte_len))
			return;
		if (imm && !ULPT_OK(t, wc.wc_flags & XRDMA_WC_WITH_IMM &&
				    wc.ex.imm_data == wr.ex.imm_data,
				    "%s: wc_flags %#x imm %#x, want WITH_IMM %#x",
				    what, wc.wc_flags,
				    be32_to_cpu(wc.ex.imm_data),
				    be32_to_cpu(wr.ex.imm_data)))
			return;
		if (!imm && !ULPT_OK(t, !(wc.wc_flags & XRDMA_WC_WITH_IMM),
				     "%s: WITH_IMM set on a plain SEND", what))
			return;
		ulpt_buf_to_cpu(rb);
		if (!len) {
			if (!ULPT_OK(t,
				     !memchr_inv(rb->va, ULPT_CANARY, rb->size),
				     "%s: zero-length message wrote data",
				     what))
				return;
			continue;
		}
		if (!ulpt_sgl_check(t, &rs, rb, seed, ULPT_CANARY, what))
			return;
	}
	ulpt_note(t, "sizes %s1..1MiB, %u/%u SGEs", imm ? "0," : "",
		  qa->cap.max_send_sge, qb->cap.max_recv_sge);
}

/* ----------------------------------------------------- RDMA WRITE */

static void ulpt_case_write(struct ulpt *t)
{
	bool imm = ((const struct ulpt_xfer *)t->arg)->imm;
	struct ulpt_side *sa = &t->side[0], *sb = &t->side[1];
	size_t span = ulpt_sgl_span(ULPT_MIB, ULPT_MAX_SGE, 16);
	struct ulpt_buf *lb, *ib = NULL;
	struct ulpt_qp_opts o = {};
	struct xrdma_send_wr wr;
	struct ulpt_mr mr, *m;
	struct xrdma_wc wc;
	struct ulpt_q *qa, *qb;
	struct ulpt_sgl ss;
	int skipped = 0;
	unsigned int i;
	char what[64];

	m = ulpt_pair_mr(t, &o, &qa, &qb, &lb, span, ULPT_MIB + 2 * PAGE_SIZE,
			 ULPT_RW, &mr);
	if (imm && m)
		ib = ulpt_buf_alloc(t, sb, 256, false);
	if (!m || (imm && !ib))
		return;
	for (i = 0; i < ARRAY_SIZE(ulpt_sizes); i++) {
		size_t len = ulpt_sizes[i], roff = 1 + 7 * i;
		u32 seed = 0x3e00 + i + (imm ? 0x100 : 0);

		if (roff + len > m->len) {
			skipped++;
			continue;
		}
		snprintf(what, sizeof(what), "%zu bytes at +%zu", len, roff);
		ulpt_sgl_build(&ss, lb, ulpt_lkey(sa), i, len,
			       qa->cap.max_send_sge, i);
		ulpt_sgl_fill(&ss, lb, seed);
		ulpt_buf_to_dev(lb);
		ulpt_remote_canary(m);
		if (imm) {
			memset(ib->va, ULPT_CANARY, ib->size);
			ulpt_buf_to_dev(ib);
			if (ulpt_post_recv_buf(t, qb, 0x300 + i, ib, 64))
				return;
		}
		ulpt_wr_rdma(&wr, 0x400 + i,
			     imm ? XRDMA_WR_RDMA_WRITE_WITH_IMM :
			     XRDMA_WR_RDMA_WRITE, ss.sge, ss.n,
			     XRDMA_SEND_SIGNALED, m->iova + roff, m->rkey);
		wr.ex.imm_data = cpu_to_be32(0x1111 * (i + 1));
		if (ulpt_post_send(t, qa, &wr) ||
		    !ulpt_expect(t, qa, false, wr.wr_id, XRDMA_WC_SUCCESS,
				 XRDMA_WC_RDMA_WRITE, NULL, what))
			return;
		if (imm) {
			if (!ulpt_expect(t, qb, true, 0x300 + i,
					 XRDMA_WC_SUCCESS,
					 XRDMA_WC_RECV_RDMA_WITH_IMM, &wc, what))
				return;
			if (!ULPT_OK(t, wc.wc_flags & XRDMA_WC_WITH_IMM &&
				     wc.ex.imm_data == wr.ex.imm_data,
				     "%s: wc_flags %#x imm %#x, want %#x", what,
				     wc.wc_flags, be32_to_cpu(wc.ex.imm_data),
				     be32_to_cpu(wr.ex.imm_data)) ||
			    !ULPT_OK(t, wc.byte_len == len,
				     "%s: RECV_RDMA_WITH_IMM byte_len %u", what,
				     wc.byte_len))
				return;
			ulpt_buf_to_cpu(ib);
			if (!ULPT_OK(t,
				     !memchr_inv(ib->va, ULPT_CANARY, ib->size),
				     "%s: WRITE_WITH_IMM wrote the receive buffer",
				     what))
				return;
		}
		ulpt_buf_to_cpu(m->buf);
		if (!ulpt_region_check(t, m->buf, roff, len, seed, ULPT_RCANARY,
				       what))
			return;
	}
	if (!ulpt_quiet(t, qb->rcq, 1, "receive CQ after WRITEs"))
		return;
	if (skipped)
		ulpt_note(t,
			  "%d size(s) skipped: max_fast_reg_page_list_len %u",
			  skipped, sb->attr.max_fast_reg_page_list_len);
	else
		ulpt_note(t, "sizes 1..1MiB, unaligned, %u SGEs",
			  qa->cap.max_send_sge);
}

/* ------------------------------------------------------ RDMA READ */

static void ulpt_case_read(struct ulpt *t)
{
	struct ulpt_side *sa = &t->side[0], *sb = &t->side[1];
	size_t span = ulpt_sgl_span(ULPT_MIB, ULPT_MAX_SGE, 16);
	struct ulpt_qp_opts o = {};
	struct xrdma_send_wr wr;
	struct ulpt_mr mr, *m;
	struct ulpt_q *qa, *qb;
	struct ulpt_buf *lb;
	struct ulpt_sgl ss;
	unsigned int i, ns;
	int skipped = 0;
	char what[64];

	m = ulpt_pair_mr(t, &o, &qa, &qb, &lb, span, ULPT_MIB + 2 * PAGE_SIZE,
			 XRDMA_ACCESS_REMOTE_READ, &mr);
	if (!m)
		return;
	ns = min_t(u32, qa->cap.max_send_sge,
		   sa->attr.max_sge_rd ? sa->attr.max_sge_rd :
		   sa->attr.max_sge);
	for (i = 0; i < ARRAY_SIZE(ulpt_sizes); i++) {
		size_t len = ulpt_sizes[i], roff = 3 + 5 * i;
		u32 seed = 0x4e00 + i;

		if (roff + len > m->len) {
			skipped++;
			continue;
		}
		snprintf(what, sizeof(what), "%zu bytes from +%zu", len,
			 roff);
		memset(m->buf->va, ULPT_RCANARY, m->buf->size);
		ulpt_pat_fill(m->buf->va + roff, len, seed, 0);
		ulpt_buf_to_dev(m->buf);
		memset(lb->va, ULPT_CANARY, lb->size);
		ulpt_buf_to_dev(lb);
		ulpt_sgl_build(&ss, lb, ulpt_lkey(sa), i + 2, len, ns, i);
		ulpt_wr_rdma(&wr, 0x500 + i, XRDMA_WR_RDMA_READ, ss.sge, ss.n,
			     XRDMA_SEND_SIGNALED, m->iova + roff, m->rkey);
		if (ulpt_post_send(t, qa, &wr) ||
		    !ulpt_expect(t, qa, false, wr.wr_id, XRDMA_WC_SUCCESS,
				 XRDMA_WC_RDMA_READ, NULL, what))
			return;
		ulpt_buf_to_cpu(lb);
		if (!ulpt_sgl_check(t, &ss, lb, seed, ULPT_CANARY, what))
			return;
	}
	if (skipped)
		ulpt_note(t,
			  "%d size(s) skipped: max_fast_reg_page_list_len %u",
			  skipped, sb->attr.max_fast_reg_page_list_len);
	else
		ulpt_note(t, "sizes 1..1MiB, unaligned, %u SGEs", ns);
}

/* --------------------------------------------------------- atomics */

static bool ulpt_cas_step(struct ulpt *t, struct ulpt_q *qa, struct ulpt_mr *m,
			  struct ulpt_buf *lb, u64 cmp, u64 swap, u64 want_old,
			  u64 want_new, const char *what)
{
	u64 *rv = (u64 *)(m->buf->va + 64), *res = (u64 *)(lb->va + 8);
	struct xrdma_send_wr wr;
	struct xrdma_sge sge;

	*res = 0xdeadbeefdeadbeefULL;
	ulpt_buf_to_dev(lb);
	ulpt_sge(&sge, ulpt_buf_dma(lb, 8), 8, ulpt_lkey(qa->side));
	ulpt_wr(&wr, 0xca5, XRDMA_WR_ATOMIC_CMP_AND_SWP, &sge, 1,
		XRDMA_SEND_SIGNALED);
	wr.wr.atomic.remote_addr = m->iova + 64;
	wr.wr.atomic.rkey = m->rkey;
	wr.wr.atomic.compare_add = cmp;
	wr.wr.atomic.swap = swap;
	if (ulpt_post_send(t, qa, &wr) ||
	    !ulpt_expect(t, qa, false, wr.wr_id, XRDMA_WC_SUCCESS,
			 XRDMA_WC_COMP_SWAP, NULL, what))
		return false;
	ulpt_buf_to_cpu(lb);
	ulpt_buf_to_cpu(m->buf);
	return ULPT_OK(t, *res == want_old && *rv == want_new,
		       "%s: returned %#llx remote %#llx, want %#llx %#llx%s",
		       what, *res, *rv, want_old, want_new,
		       swab64(*res) == want_old ? " (byte-swapped)" : "");
}

static void ulpt_case_atomic_cas(struct ulpt *t)
{
	const u64 v0 = 0x1111222233334444ULL, v1 = 0x5555666677778888ULL;
	const u64 v2 = 0x99990000aaaabbbbULL;
	struct ulpt_qp_opts o = {};
	struct ulpt_mr mr, *m;
	struct ulpt_q *qa, *qb;
	struct ulpt_buf *lb;

	m = ulpt_pair_mr(t, &o, &qa, &qb, &lb, 64, PAGE_SIZE, ULPT_ALL, &mr);
	if (!m)
		return;
	*(u64 *)(m->buf->va + 64) = v0;
	ulpt_buf_to_dev(m->buf);
	if (!ulpt_cas_step(t, qa, m, lb, v0, v1, v0, v1, "CAS, equal"))
		return;
	ulpt_cas_step(t, qa, m, lb, v0, v2, v1, v1, "CAS, not equal");
}

#define ULPT_FAA_N	32
#define ULPT_FAA_BATCH	8

static int ulpt_u64_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* two QPs add concurrently to one remote counter */
static void ulpt_case_atomic_faa(struct ulpt *t)
{
	const u64 add[2] = { 1, 1ULL << 20 };
	struct xrdma_send_wr (*wrs)[ULPT_FAA_BATCH] = NULL;
	struct xrdma_sge (*sges)[ULPT_FAA_BATCH] = NULL;
	struct ulpt_q *qa[2], *qb[2];
	struct ulpt_qp_opts o = {};
	struct xrdma_wc *wc = NULL;
	u64 *res, *vals = NULL;
	struct ulpt_mr mr, *m;
	struct ulpt_buf *lb;
	int p, k, j;

	o.send_wr = ULPT_FAA_N;
	if (ulpt_pair(t, &o, &qa[0], &qb[0]) ||
	    ulpt_pair(t, &o, &qa[1], &qb[1]))
		return;
	lb = ulpt_buf_alloc(t, &t->side[0], 2 * ULPT_FAA_N * 8, false);
	m = ulpt_remote(t, qb[0], PAGE_SIZE, 0, ULPT_ALL, &mr);
	wrs = kcalloc(2, sizeof(*wrs), GFP_KERNEL);
	sges = kcalloc(2, sizeof(*sges), GFP_KERNEL);
	wc = kcalloc(ULPT_FAA_N, sizeof(*wc), GFP_KERNEL);
	vals = kcalloc(2 * ULPT_FAA_N, sizeof(*vals), GFP_KERNEL);
	if (!lb || !m || !ULPT_OK(t, wrs && sges && wc && vals, "no memory"))
		goto out;
	*(u64 *)(m->buf->va + 128) = 0;
	ulpt_buf_to_dev(m->buf);
	memset(lb->va, ULPT_CANARY, lb->size);
	ulpt_buf_to_dev(lb);
	res = (u64 *)lb->va;

	/* interleave chains of ULPT_FAA_BATCH on the two QPs */
	for (k = 0; k < ULPT_FAA_N; k += ULPT_FAA_BATCH) {
		for (p = 0; p < 2; p++) {
			for (j = 0; j < ULPT_FAA_BATCH; j++) {
				struct xrdma_send_wr *wr = &wrs[p][j];

				ulpt_sge(&sges[p][j],
					 ulpt_buf_dma(lb, (p * ULPT_FAA_N + k + j) * 8),
					 8, ulpt_lkey(&t->side[0]));
				ulpt_wr(wr, (p << 16) | (k + j),
					XRDMA_WR_ATOMIC_FETCH_AND_ADD,
					&sges[p][j], 1, XRDMA_SEND_SIGNALED);
				wr->wr.atomic.remote_addr = m->iova + 128;
				wr->wr.atomic.rkey = m->rkey;
				wr->wr.atomic.compare_add = add[p];
				wr->next = j + 1 < ULPT_FAA_BATCH ?
					   &wrs[p][j + 1] : NULL;
			}
			if (ulpt_post_send(t, qa[p], wrs[p]))
				goto out;
		}
	}
	for (p = 0; p < 2; p++) {
		int n = ulpt_poll(t, qa[p]->scq, wc, ULPT_FAA_N,
				  ulpt_timeout_ms);

		if (n < 0 || !ULPT_OK(t, n == ULPT_FAA_N,
				      "QP %d: %d of %d FETCH_ADD completions", p,
				      n, ULPT_FAA_N))
			goto out;
		for (j = 0; j < ULPT_FAA_N; j++)
			if (!ULPT_OK(t, wc[j].status == XRDMA_WC_SUCCESS &&
				     wc[j].opcode == XRDMA_WC_FETCH_ADD &&
				     wc[j].wr_id == (u64)((p << 16) | j),
				     "QP %d completion %d: wr_id %#llx %s opcode %d",
				     p, j, wc[j].wr_id,
				     ulpt_wc_status_str(wc[j].status),
				     wc[j].opcode))
				goto out;
	}
	ulpt_buf_to_cpu(lb);
	ulpt_buf_to_cpu(m->buf);
	if (!ULPT_OK(t, *(u64 *)(m->buf->va + 128) ==
		     ULPT_FAA_N * (add[0] + add[1]),
		     "final counter %#llx, want %#llx",
		     *(u64 *)(m->buf->va + 128), ULPT_FAA_N * (add[0] + add[1])))
		goto out;
	for (p = 0; p < 2; p++)
		for (j = 1; j < ULPT_FAA_N; j++)
			if (!ULPT_OK(t, res[p * ULPT_FAA_N + j] >
				     res[p * ULPT_FAA_N + j - 1],
				     "QP %d: fetched values not increasing at %d (%#llx after %#llx)",
				     p, j, res[p * ULPT_FAA_N + j],
				     res[p * ULPT_FAA_N + j - 1]))
				goto out;
	memcpy(vals, res, 2 * ULPT_FAA_N * sizeof(*vals));
	sort(vals, 2 * ULPT_FAA_N, sizeof(*vals), ulpt_u64_cmp, NULL);
	for (j = 1; j < 2 * ULPT_FAA_N; j++)
		if (!ULPT_OK(t, vals[j] != vals[j - 1],
			     "two FETCH_ADDs fetched %#llx: not atomic", vals[j]))
			goto out;
	ulpt_note(t, "2 QPs x %d FETCH_ADD, sum and fetched values correct",
		  ULPT_FAA_N);
out:
	kfree(vals);
	kfree(wc);
	kfree(sges);
	kfree(wrs);
}

/* ---------------------------------------------------------- inline */

static void ulpt_case_inline(struct ulpt *t)
{
	struct ulpt_side *sa = &t->side[0], *sb = &t->side[1];
	struct ulpt_qp_opts o = {};
	struct xrdma_send_wr wr;
	const struct xrdma_send_wr *bad;
	struct xrdma_sge sge[2];
	struct ulpt_q *qa, *qb;
	struct ulpt_buf *rb;
	size_t sizes[4];
	struct ulpt_sgl rs;
	struct xrdma_wc wc;
	u32 max, cap;
	u8 *src = NULL;
	unsigned int i;
	char what[48];
	int ret;

	max = min_t(u32, sa->attr.max_inline_data, 512);
	if (!ULPT_OK(t, max, "device reports max_inline_data 0"))
		return;
	o.inline_data = max;
	if (ulpt_pair(t, &o, &qa, &qb))
		return;
	cap = qa->cap.max_inline_data;
	if (!ULPT_OK(t, cap >= max, "max_inline_data %u < %u asked", cap, max))
		return;
	rb = ulpt_buf_alloc(t, sb, cap + 256, false);
	src = kmalloc(cap + 64, GFP_KERNEL);
	if (!rb || !ULPT_OK(t, src, "no memory"))
		goto out;
	sizes[0] = 1;
	sizes[1] = min_t(u32, 13, max);
	sizes[2] = min_t(u32, 64, max);
	sizes[3] = max;
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		size_t len = sizes[i];
		u32 seed = 0x1e00 + i;
		int n = (i & 1) && len > 1 && qa->cap.max_send_sge > 1 ? 2 : 1;

		snprintf(what, sizeof(what), "inline %zu bytes, %d SGE(s)",
			 len, n);
		memset(src, 0, cap + 64);
		ulpt_pat_fill(src + 3, len, seed, 0);
		/* inline SGEs carry kernel virtual addresses */
		if (n == 1) {
			ulpt_sge(&sge[0], (uintptr_t)(src + 3), len,
				 ulpt_lkey(sa));
		} else {
			ulpt_sge(&sge[0], (uintptr_t)(src + 3), len / 2,
				 ulpt_lkey(sa));
			ulpt_sge(&sge[1], (uintptr_t)(src + 3 + len / 2),
				 len - len / 2, ulpt_lkey(sa));
		}
		ulpt_sgl_build(&rs, rb, ulpt_lkey(sb), 5, len, 1, 0);
		memset(rb->va, ULPT_CANARY, rb->size);
		ulpt_buf_to_dev(rb);
		if (ulpt_post_recv_sgl(t, qb, 0x1100 + i, &rs))
			goto out;
		ulpt_wr(&wr, 0x1200 + i, XRDMA_WR_SEND, sge, n,
			XRDMA_SEND_SIGNALED | XRDMA_SEND_INLINE);
		if (ulpt_post_send(t, qa, &wr))
			goto out;
		/* the data was copied at post time */
		memset(src, 0xee, cap + 64);
		if (!ulpt_expect(t, qa, false, wr.wr_id, XRDMA_WC_SUCCESS,
				 XRDMA_WC_SEND, NULL, what) ||
		    !ulpt_expect(t, qb, true, 0x1100 + i, XRDMA_WC_SUCCESS,
				 XRDMA_WC_RECV, &wc, what) ||
		    !ULPT_OK(t, wc.byte_len == len, "%s: byte_len %u", what,
			     wc.byte_len))
			goto out;
		ulpt_buf_to_cpu(rb);
		if (!ulpt_sgl_check(t, &rs, rb, seed, ULPT_CANARY, what))
			goto out;
	}
	/* more than the QP's inline capacity is refused at post time */
	ulpt_sge(&sge[0], (uintptr_t)src, cap + 1, ulpt_lkey(sa));
	ulpt_wr(&wr, 0x12ff, XRDMA_WR_SEND, sge, 1,
		XRDMA_SEND_SIGNALED | XRDMA_SEND_INLINE);
	bad = NULL;
	ret = xrdma_post_send(qa->qp, &wr, &bad);
	if (!ULPT_OK(t, ret && bad == &wr,
		     "inline send of %u bytes (max %u): ret %d, bad_wr %s", cap + 1,
		     cap, ret, bad == &wr ? "set" : "not set"))
		goto out;
	if (!ulpt_quiet(t, qa->scq, 20, "after a refused inline send"))
		goto out;
	ulpt_note(t, "inline 1..%u bytes, oversized refused (%d)", max, ret);
out:
	kfree(src);
}

/* ---------------------------------------------- unsignaled, ordering */

static void ulpt_case_unsignaled(struct ulpt *t)
{
	struct xrdma_send_wr wrs[8];
	struct xrdma_sge sges[8];
	struct ulpt_qp_opts o = {};
	struct ulpt_buf *lb, *rb;
	struct ulpt_mr mr, *m;
	struct ulpt_q *qa, *qb;
	u32 lk = ulpt_lkey(&t->side[0]);
	u8 *rv;
	int r, k;

	o.send_wr = 8;
	m = ulpt_pair_mr(t, &o, &qa, &qb, &lb, 2048, PAGE_SIZE, ULPT_RW, &mr);
	rb = m ? ulpt_buf_alloc(t, &t->side[1], 256, false) : NULL;
	if (!rb)
		return;
	rv = m->buf->va;
	/* four rounds of 8 WRs on an 8-deep SQ: unsignaled WRs are retired */
	for (r = 0; r < 4; r++) {
		u32 sx = 0x7700 + r, sy = 0x7800 + r;

		ulpt_pat_fill(lb->va, 64, sx, 0);
		ulpt_pat_fill(lb->va + 256, 64, sy, 0);
		for (k = 0; k < 5; k++)
			*(u64 *)(lb->va + 512 + 8 * k) = (u64)r << 32 | k;
		ulpt_buf_to_dev(lb);
		ulpt_remote_canary(m);
		if (ulpt_post_recv_buf(t, qb, 0x7100 + r, rb, 64))
			return;
		ulpt_sge(&sges[0], ulpt_buf_dma(lb, 0), 64, lk);
		ulpt_wr_rdma(&wrs[0], 0x7000, XRDMA_WR_RDMA_WRITE, &sges[0], 1,
			     0, m->iova, m->rkey);
		ulpt_sge(&sges[1], ulpt_buf_dma(lb, 256), 64, lk);
		ulpt_wr_rdma(&wrs[1], 0x7001, XRDMA_WR_RDMA_WRITE, &sges[1], 1,
			     0, m->iova + 32, m->rkey);
		for (k = 0; k < 5; k++) {
			ulpt_sge(&sges[2 + k], ulpt_buf_dma(lb, 512 + 8 * k), 8, lk);
			ulpt_wr_rdma(&wrs[2 + k], 0x7002 + k,
				     XRDMA_WR_RDMA_WRITE,
				     &sges[2 + k], 1, 0, m->iova + 128 + 8 * k,
				     m->rkey);
		}
		ulpt_sge(&sges[7], ulpt_buf_dma(lb, 1024), 16, lk);
		ulpt_wr(&wrs[7], 0x7200 + r, XRDMA_WR_SEND, &sges[7], 1,
			XRDMA_SEND_SIGNALED);
		for (k = 0; k < 7; k++)
			wrs[k].next = &wrs[k + 1];
		if (ulpt_post_send(t, qa, wrs) ||
		    !ulpt_expect(t, qa, false, 0x7200 + r, XRDMA_WC_SUCCESS,
				 XRDMA_WC_SEND, NULL, "the signaled SEND") ||
		    !ulpt_quiet(t, qa->scq, 10, "unsignaled WRs") ||
		    !ulpt_expect(t, qb, true, 0x7100 + r, XRDMA_WC_SUCCESS,
				 XRDMA_WC_RECV, NULL, "receive of the SEND"))
			return;
		/* everything written before the SEND is visible now */
		ulpt_buf_to_cpu(m->buf);
		if (!ULPT_OK(t, ulpt_pat_check(rv, 32, sx, 0) < 0 &&
			     ulpt_pat_check(rv + 32, 64, sy, 0) < 0,
			     "round %d: WRITEs not applied in order", r) ||
		    !ULPT_OK(t, !memchr_inv(rv + 96, ULPT_RCANARY, 32),
			     "round %d: bytes 96..127 written", r))
			return;
		for (k = 0; k < 5; k++)
			if (!ULPT_OK(t, *(u64 *)(rv + 128 + 8 * k) ==
				     ((u64)r << 32 | k),
				     "round %d: unsignaled WRITE %d missing", r,
				     k))
				return;
		if (!ULPT_OK(t, !memchr_inv(rv + 168, ULPT_RCANARY,
					    PAGE_SIZE - 168),
			     "round %d: bytes after 168 written", r))
			return;
	}
	ulpt_note(t, "4 rounds of 7 unsignaled + 1 signaled on an 8-deep SQ");
}

/* ----------------------------------------------------------- fence */

static void ulpt_case_fence(struct ulpt *t)
{
	struct xrdma_send_wr wrs[3];
	struct xrdma_sge sges[3];
	struct ulpt_qp_opts o = {};
	struct ulpt_buf *lb, *rb;
	struct ulpt_mr mr, *m;
	struct ulpt_q *qa, *qb;
	struct ulpt_sgl rs;
	struct xrdma_wc wc;
	u32 lk = ulpt_lkey(&t->side[0]);

	m = ulpt_pair_mr(t, &o, &qa, &qb, &lb, 3 * PAGE_SIZE, 2 * PAGE_SIZE,
			 ULPT_ALL, &mr);
	rb = m ? ulpt_buf_alloc(t, &t->side[1], PAGE_SIZE + 128, false) : NULL;
	if (!rb)
		return;
	memset(m->buf->va, ULPT_RCANARY, m->buf->size);
	ulpt_pat_fill(m->buf->va, 4096, 0xfe1, 0);
	ulpt_buf_to_dev(m->buf);
	memset(lb->va, ULPT_CANARY, lb->size);
	ulpt_pat_fill(lb->va + 8192, 4096, 0xfe2, 0);
	ulpt_buf_to_dev(lb);
	memset(rb->va, ULPT_CANARY, rb->size);
	ulpt_buf_to_dev(rb);
	ulpt_sgl_build(&rs, rb, ulpt_lkey(&t->side[1]), 0, 4096, 1, 0);
	if (ulpt_post_recv_sgl(t, qb, 0x7f00, &rs))
		return;
	/* READ into L1, SEND of L1 fenced behind it, WRITE fenced too */
	ulpt_sge(&sges[0], ulpt_buf_dma(lb, 0), 4096, lk);
	ulpt_wr_rdma(&wrs[0], 0x7f10, XRDMA_WR_RDMA_READ, &sges[0], 1,
		     XRDMA_SEND_SIGNALED, m->iova, m->rkey);
	ulpt_sge(&sges[1], ulpt_buf_dma(lb, 0), 4096, lk);
	ulpt_wr(&wrs[1], 0x7f11, XRDMA_WR_SEND, &sges[1], 1,
		XRDMA_SEND_SIGNALED | XRDMA_SEND_FENCE);
	ulpt_sge(&sges[2], ulpt_buf_dma(lb, 8192), 4096, lk);
	ulpt_wr_rdma(&wrs[2], 0x7f12, XRDMA_WR_RDMA_WRITE, &sges[2], 1,
		     XRDMA_SEND_SIGNALED | XRDMA_SEND_FENCE, m->iova, m->rkey);
	wrs[0].next = &wrs[1];
	wrs[1].next = &wrs[2];
	if (ulpt_post_send(t, qa, wrs) ||
	    !ulpt_expect(t, qa, false, 0x7f10, XRDMA_WC_SUCCESS,
			 XRDMA_WC_RDMA_READ, NULL, "READ") ||
	    !ulpt_expect(t, qa, false, 0x7f11, XRDMA_WC_SUCCESS, XRDMA_WC_SEND,
			 NULL, "fenced SEND") ||
	    !ulpt_expect(t, qa, false, 0x7f12, XRDMA_WC_SUCCESS,
			 XRDMA_WC_RDMA_WRITE, NULL, "fenced WRITE") ||
	    !ulpt_expect(t, qb, true, 0x7f00, XRDMA_WC_SUCCESS, XRDMA_WC_RECV,
			 &wc, "receive") ||
	    !ULPT_OK(t, wc.byte_len == 4096, "byte_len %u", wc.byte_len))
		return;
	ulpt_buf_to_cpu(rb);
	ulpt_buf_to_cpu(lb);
	ulpt_buf_to_cpu(m->buf);
	if (!ulpt_sgl_check(t, &rs, rb, 0xfe1, ULPT_CANARY,
			    "SEND fenced behind READ carries the read data") ||
	    !ULPT_OK(t, ulpt_pat_check(lb->va, 4096, 0xfe1, 0) < 0,
		     "READ returned data the later WRITE wrote") ||
	    !ULPT_OK(t, ulpt_pat_check(m->buf->va, 4096, 0xfe2, 0) < 0,
		     "fenced WRITE not applied"))
		return;
	ulpt_note(t, "READ; SEND|FENCE of its buffer; WRITE|FENCE");
}

/* -------------------------------------------------------------- UD */

static bool ulpt_ud_send(struct ulpt *t, struct ulpt_q *qa, struct xrdma_ah *ah,
			 u32 qpn, u32 qkey, struct ulpt_buf *lb, size_t len,
			 u32 seed, bool imm, u64 id, const char *what)
{
	struct xrdma_send_wr wr;
	struct ulpt_sgl ss;

	ulpt_sgl_build(&ss, lb, ulpt_lkey(qa->side), 3, len,
		       min_t(u32, 2, qa->cap.max_send_sge), 0);
	ulpt_sgl_fill(&ss, lb, seed);
	ulpt_buf_to_dev(lb);
	ulpt_wr(&wr, id, imm ? XRDMA_WR_SEND_WITH_IMM : XRDMA_WR_SEND, ss.sge,
		ss.n, XRDMA_SEND_SIGNALED);
	wr.ex.imm_data = cpu_to_be32(0xabcd0000 | (u32)len);
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = qpn;
	wr.wr.ud.remote_qkey = qkey;
	return !ulpt_post_send(t, qa, &wr) &&
	       ulpt_expect(t, qa, false, id, XRDMA_WC_SUCCESS, XRDMA_WC_SEND,
			   NULL, what);
}

/* the receive of a UD message: GRH, source QP, payload */
static bool ulpt_ud_check(struct ulpt *t, struct ulpt_q *qa, struct ulpt_q *qb,
			  struct xrdma_wc *wc, struct ulpt_sgl *rs,
			  struct ulpt_buf *rb, u8 *msg, size_t len, u32 seed,
			  bool imm, const char *what)
{
	struct ulpt_side *sa = qa->side, *sb = qb->side;

	if (!ULPT_OK(t, wc->byte_len == len + 40,
		     "%s: byte_len %u, want %zu (40-byte GRH + payload)", what,
		     wc->byte_len, len + 40) ||
	    !ULPT_OK(t, wc->wc_flags & XRDMA_WC_GRH, "%s: no GRH flag", what) ||
	    !ULPT_OK(t, wc->src_qp == qa->qp->qp_num, "%s: src_qp %u, want %u",
		     what, wc->src_qp, qa->qp->qp_num))
		return false;
	if (imm && !ULPT_OK(t, wc->wc_flags & XRDMA_WC_WITH_IMM &&
			    be32_to_cpu(wc->ex.imm_data) ==
			    (0xabcd0000 | (u32)len),
			    "%s: imm %#x flags %#x", what,
			    be32_to_cpu(wc->ex.imm_data), wc->wc_flags))
		return false;
	ulpt_buf_to_cpu(rb);
	ulpt_sgl_gather(rs, rb, msg);
	if (!ULPT_OK(t, (msg[0] >> 4) == 6, "%s: GRH version nibble %u", what,
		     msg[0] >> 4) ||
	    !ULPT_OK(t, !memcmp(msg + 8, sa->gid.raw, 16),
		     "%s: GRH sgid %pI6, want %pI6", what, msg + 8,
		     sa->gid.raw) ||
	    !ULPT_OK(t, !memcmp(msg + 24, sb->gid.raw, 16),
		     "%s: GRH dgid %pI6, want %pI6", what, msg + 24,
		     sb->gid.raw) ||
	    !ULPT_OK(t, ulpt_pat_check(msg + 40, len, seed, 0) < 0,
		     "%s: payload mismatch at %ld", what,
		     ulpt_pat_check(msg + 40, len, seed, 0)))
		return false;
	return ulpt_sgl_gaps_ok(t, rs, rb, ULPT_CANARY, what);
}

static void ulpt_case_ud(struct ulpt *t)
{
	struct ulpt_side *sa = &t->side[0], *sb = &t->side[1];
	struct ulpt_qp_opts o = { .type = XRDMA_QPT_UD };
	struct ulpt_buf *lb, *rb;
	struct ulpt_q *qa, *qb;
	struct xrdma_ah *ah;
	struct xrdma_wc wc;
	struct ulpt_sgl rs;
	size_t sizes[4];
	u8 *msg = NULL;
	unsigned int i;
	char what[48];
	int mtu;

	mtu = xrdma_mtu_to_int(sb->pattr.active_mtu);
	if (!ULPT_OK(t, mtu > 0, "port active_mtu %d", sb->pattr.active_mtu) ||
	    ulpt_pair(t, &o, &qa, &qb))
		return;
	ah = ulpt_ah_create(t, sa, &sb->gid);
	lb = ulpt_buf_alloc(t, sa, 2 * mtu + 256, false);
	rb = ulpt_buf_alloc(t, sb, 2 * mtu + 256, false);
	msg = kmalloc(mtu + 40, GFP_KERNEL);
	if (!ah || !lb || !rb || !ULPT_OK(t, msg, "no memory"))
		goto out;
	sizes[0] = 1;
	sizes[1] = 64;
	sizes[2] = min(1000, mtu);
	sizes[3] = mtu;
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		size_t len = sizes[i], lens[2] = { 40, len };
		bool imm = i == 1 || i == 3;
		u32 seed = 0xd000 + i;

		snprintf(what, sizeof(what), "UD %zu bytes%s", len,
			 imm ? " with imm" : "");
		/* GRH and payload in separate SGEs, or one unaligned SGE */
		if (i & 1 || qb->cap.max_recv_sge < 2) {
			lens[0] = 40 + len;
			ulpt_sgl_manual(&rs, rb, ulpt_lkey(sb), 1, lens, 1);
		} else {
			ulpt_sgl_manual(&rs, rb, ulpt_lkey(sb), 0, lens, 2);
		}
		memset(rb->va, ULPT_CANARY, rb->size);
		ulpt_buf_to_dev(rb);
		if (ulpt_post_recv_sgl(t, qb, 0xd00 + i, &rs) ||
		    !ulpt_ud_send(t, qa, ah, qb->qp->qp_num, qb->qkey, lb, len,
				  seed, imm, 0xd10 + i, what) ||
		    !ulpt_expect(t, qb, true, 0xd00 + i, XRDMA_WC_SUCCESS,
				 XRDMA_WC_RECV, &wc, what) ||
		    !ulpt_ud_check(t, qa, qb, &wc, &rs, rb, msg, len, seed, imm,
				   what))
			goto out;
	}
	ulpt_note(t, "UD 1..%d bytes, GRH, src_qp, imm", mtu);
out:
	kfree(msg);
}

static void ulpt_case_ud_qkey(struct ulpt *t)
{
	struct ulpt_side *sa = &t->side[0], *sb = &t->side[1];
	struct ulpt_qp_opts o = { .type = XRDMA_QPT_UD };
	struct ulpt_buf *lb, *rb;
	struct ulpt_sgl rs[2];
	struct ulpt_q *qa, *qb;
	struct xrdma_ah *ah;
	struct xrdma_wc wc;
	size_t lens[1] = { 40 + 64 };
	u8 *msg = NULL;

	if (ulpt_pair(t, &o, &qa, &qb))
		return;
	ah = ulpt_ah_create(t, sa, &sb->gid);
	lb = ulpt_buf_alloc(t, sa, 1024, false);
	rb = ulpt_buf_alloc(t, sb, 1024, false);
	msg = kmalloc(256, GFP_KERNEL);
	if (!ah || !lb || !rb || !ULPT_OK(t, msg, "no memory"))
		goto out;
	memset(rb->va, ULPT_CANARY, rb->size);
	ulpt_buf_to_dev(rb);
	ulpt_sgl_manual(&rs[0], rb, ulpt_lkey(sb), 0, lens, 1);
	ulpt_sgl_manual(&rs[1], rb, ulpt_lkey(sb), 512, lens, 1);
	if (ulpt_post_recv_sgl(t, qb, 0xe00, &rs[0]) ||
	    ulpt_post_recv_sgl(t, qb, 0xe01, &rs[1]))
		goto out;
	/* wrong qkey, then a QPN that does not exist: both dropped */
	if (!ulpt_ud_send(t, qa, ah, qb->qp->qp_num, qb->qkey ^ 0x10, lb, 64,
			  0xe1, false, 0xe10, "UD send with a wrong qkey") ||
	    !ulpt_ud_send(t, qa, ah, ULPT_NO_QPN, qb->qkey, lb, 64, 0xe2, false,
			  0xe11, "UD send to a missing QPN") ||
	    !ulpt_quiet(t, qb->rcq, 100, "wrong qkey or QPN delivered"))
		goto out;
	/* the first receive is still there for a good message */
	if (!ulpt_ud_send(t, qa, ah, qb->qp->qp_num, qb->qkey, lb, 64, 0xe3,
			  false, 0xe12, "UD send with the right qkey") ||
	    !ulpt_expect(t, qb, true, 0xe00, XRDMA_WC_SUCCESS, XRDMA_WC_RECV,
			 &wc, "good UD message") ||
	    !ulpt_ud_check(t, qa, qb, &wc, &rs[0], rb, msg, 64, 0xe3, false,
			   "good UD message"))
		goto out;
	ulpt_note(t, "wrong qkey and missing QPN dropped silently");
out:
	kfree(msg);
}

/* ------------------------------------------------------------- GSI */

/*
 * The GSI QP (QP1) as ib_mad uses it: QPN 1, one per port, UD semantics;
 * a work request's Q_Key with bit 31 set sends with the QP's own (the GSI
 * Q_Key); a GID programmed with xrdma_set_gid() routes, and a RoCE v2
 * IPv4 source entry gives an IPv4 header (network type IPV4).
 */
static void ulpt_case_gsi(struct ulpt *t)
{
	static const u8 ipa[4] = { 198, 51, 100, 1 }, ipb[4] = { 198, 51, 100, 2 };
	struct ulpt_side *sa = &t->side[0], *sb = &t->side[1];
	struct ulpt_qp_opts o = { .type = XRDMA_QPT_UD };
	struct ulpt_qp_opts og = { .type = XRDMA_QPT_GSI };
	struct xrdma_qp_init_attr ia = {};
	union xrdma_gid ga = {}, gb = {}, q;
	bool set_a = false, set_b = false;
	struct ulpt_cq *ca, *cb;
	struct ulpt_buf *lb = NULL, *rb = NULL;
	struct xrdma_ah_attr aa = {};
	struct xrdma_ah *ah = NULL;
	struct ulpt_q *qa, *qg;
	struct xrdma_qp *dup;
	struct xrdma_wc wc;
	struct ulpt_sgl rs;
	size_t lens[1] = { 40 + 64 };
	u8 *msg = NULL;
	int ret;

	ca = ulpt_cq_create(t, sa, 64);
	cb = ulpt_cq_create(t, sb, 64);
	if (!ca || !cb)
		return;
	qg = ulpt_qp_create(t, sb, cb, cb, NULL, &og);
	if (!qg || !ULPT_OK(t, qg->qp->qp_num == XRDMA_GSI_QPN,
			    "GSI QP number %u", qg->qp->qp_num))
		return;
	ia.send_cq = cb->cq;
	ia.recv_cq = cb->cq;
	ia.qp_type = XRDMA_QPT_GSI;
	ia.port_num = 1;
	ia.cap = qg->cap;
	dup = xrdma_create_qp(sb->pd, &ia);
	if (!ULPT_OK(t, PTR_ERR(dup) == -EBUSY,
		     "a second GSI QP on the port: %ld, want -EBUSY",
		     PTR_ERR(dup))) {
		if (!IS_ERR(dup))
			xrdma_destroy_qp(dup);
		return;
	}
	qg->qkey = XRDMA_GSI_QKEY;
	qa = ulpt_qp_create(t, sa, ca, ca, NULL, &o);
	if (!qa)
		return;
	qa->qkey = XRDMA_GSI_QKEY;
	if (ulpt_qp_connect(t, qg, NULL, 0, &og) ||
	    ulpt_qp_connect(t, qa, NULL, 0, &o))
		return;

	/* IPv4-mapped RoCE v2 GIDs: index 3 on side a, 4 on side b */
	ga.raw[10] = 0xff;
	ga.raw[11] = 0xff;
	gb = ga;
	memcpy(ga.raw + 12, ipa, 4);
	memcpy(gb.raw + 12, ipb, 4);
	ret = xrdma_set_gid(sa->dev, 1, 3, &ga, XRDMA_GID_TYPE_ROCE_V2);
	set_a = !ret;
	if (!ULPT_OK(t, !ret, "set_gid %s 3: %d", sa->dev->name, ret))
		goto out;
	ret = xrdma_set_gid(sb->dev, 1, 4, &gb, XRDMA_GID_TYPE_ROCE_V2);
	set_b = !ret;
	if (!ULPT_OK(t, !ret, "set_gid %s 4: %d", sb->dev->name, ret) ||
	    !ULPT_OK(t, !xrdma_query_gid(sb->dev, 1, 4, &q) &&
		     !memcmp(&q, &gb, 16), "query_gid returns the set GID"))
		goto out;

	aa.dgid = gb;
	aa.is_global = 1;
	aa.port_num = 1;
	aa.sgid_index = 3;
	aa.hop_limit = 64;
	ah = xrdma_create_ah_flags(sa->pd, &aa, XRDMA_AH_NOSLEEP);
	lb = ulpt_buf_alloc(t, sa, 1024, false);
	rb = ulpt_buf_alloc(t, sb, 1024, false);
	msg = kmalloc(256, GFP_KERNEL);
	if (!ULPT_OK(t, !IS_ERR(ah), "create_ah(NOSLEEP, sgid 3): %ld",
		     PTR_ERR(ah)) || !lb || !rb || !ULPT_OK(t, msg, "no memory")) {
		if (IS_ERR(ah))
			ah = NULL;
		goto out;
	}
	memset(rb->va, ULPT_CANARY, rb->size);
	ulpt_buf_to_dev(rb);
	ulpt_sgl_manual(&rs, rb, ulpt_lkey(sb), 0, lens, 1);
	if (ulpt_post_recv_sgl(t, qg, 0xf00, &rs))
		goto out;
	/* a literal Q_Key the GSI QP does not have: dropped */
	if (!ulpt_ud_send(t, qa, ah, XRDMA_GSI_QPN, 0x1234, lb, 64, 0xf1, false,
			  0xf10, "UD send to QP1 with a wrong qkey") ||
	    !ulpt_quiet(t, qg->rcq, 100, "wrong qkey delivered to QP1"))
		goto out;
	/* bit 31: the sending QP's Q_Key, the GSI one, is used */
	if (!ulpt_ud_send(t, qa, ah, XRDMA_GSI_QPN, XRDMA_QKEY_CONTROLLED, lb,
			  64, 0xf2, false, 0xf11, "UD send to QP1, QP's qkey") ||
	    !ulpt_expect(t, qg, true, 0xf00, XRDMA_WC_SUCCESS, XRDMA_WC_RECV,
			 &wc, "QP1 receive"))
		goto out;
	ulpt_buf_to_cpu(rb);
	ulpt_sgl_gather(&rs, rb, msg);
	if (!ULPT_OK(t, wc.byte_len == 40 + 64, "QP1: byte_len %u", wc.byte_len) ||
	    !ULPT_OK(t, wc.src_qp == qa->qp->qp_num, "QP1: src_qp %u, want %u",
		     wc.src_qp, qa->qp->qp_num) ||
	    !ULPT_OK(t, wc.qp == qg->qp, "QP1: completion of another QP") ||
	    !ULPT_OK(t, (wc.wc_flags & (XRDMA_WC_GRH |
					XRDMA_WC_WITH_NETWORK_HDR_TYPE)) ==
		     (XRDMA_WC_GRH | XRDMA_WC_WITH_NETWORK_HDR_TYPE) &&
		     wc.network_hdr_type == XRDMA_NETWORK_IPV4,
		     "QP1: flags %#x network type %u, want GRH, IPv4",
		     wc.wc_flags, wc.network_hdr_type) ||
	    !ULPT_OK(t, msg[20] == 0x45 && msg[29] == 17 &&
		     !memcmp(msg + 32, ipa, 4) && !memcmp(msg + 36, ipb, 4),
		     "QP1: IPv4 header %*ph", 20, msg + 20) ||
	    !ULPT_OK(t, ulpt_pat_check(msg + 40, 64, 0xf2, 0) < 0,
		     "QP1: payload mismatch"))
		goto out;
	/* a GID no table holds any more reaches nobody */
	ret = xrdma_set_gid(sb->dev, 1, 4, NULL, XRDMA_GID_TYPE_ROCE_V2);
	set_b = ret != 0;
	if (!ULPT_OK(t, !ret, "clear gid 4: %d", ret) ||
	    ulpt_post_recv_sgl(t, qg, 0xf01, &rs) ||
	    !ulpt_ud_send(t, qa, ah, XRDMA_GSI_QPN, XRDMA_QKEY_CONTROLLED, lb,
			  64, 0xf3, false, 0xf12, "UD send to a cleared GID") ||
	    !ulpt_quiet(t, qg->rcq, 100, "a cleared GID delivered"))
		goto out;
	ulpt_note(t, "QP1: QPN 1, -EBUSY twice, qkey rule, set_gid routing, IPv4 header");
out:
	if (ah)
		xrdma_destroy_ah(ah);
	if (set_a)
		xrdma_set_gid(sa->dev, 1, 3, NULL, XRDMA_GID_TYPE_ROCE_V2);
	if (set_b)
		xrdma_set_gid(sb->dev, 1, 4, NULL, XRDMA_GID_TYPE_ROCE_V2);
	kfree(msg);
}

/* ---------------------------------------------------- local errors */

/* a SEND whose SGE must fail with LOC_PROT_ERR on a fresh pair */
static bool ulpt_lkey_fail(struct ulpt *t, struct xrdma_sge *bad_sge,
			   struct ulpt_q *qa, struct ulpt_q *qb, const char *what)
{
	struct xrdma_send_wr wr;

	if (ulpt_post_recv_sgl(t, qb, 0x801, NULL))
		return false;
	ulpt_wr(&wr, 0x830, XRDMA_WR_SEND, bad_sge, 1, XRDMA_SEND_SIGNALED);
	return !ulpt_post_send(t, qa, &wr) &&
	       ulpt_expect(t, qa, false, wr.wr_id, XRDMA_WC_LOC_PROT_ERR, -1,
			   NULL, what) &&
	       ulpt_wait_state(t, qa, XRDMA_QPS_ERR, what);
}

static void ulpt_case_err_lkey(struct ulpt *t)
{
	struct ulpt_side *sa = &t->side[0], *sb = &t->side[1];
	struct xrdma_send_wr wrs[3];
	struct xrdma_sge sge[3];
	struct ulpt_qp_opts o = {};
	struct xrdma_qp_attr a;
	struct ulpt_buf *lb, *rb, *pb;
	struct ulpt_sgl rs;
	struct ulpt_mr mr, *m;
	struct ulpt_q *qa, *qb;
	int ret;

	if (!ulpt_pair_bufs(t, &o, &qa, &qb, &lb, 4096, &rb, 4096))
		return;
	ulpt_sgl_build(&rs, rb, ulpt_lkey(sb), 0, 256, 1, 0);
	if (ulpt_post_recv_sgl(t, qb, 0x800, &rs) ||
	    ulpt_post_recv_sgl(t, qb, 0x801, &rs) ||
	    ulpt_post_recv_sgl(t, qa, 0x810, NULL))
		return;
	/* bad lkey, then two good WRs (one unsignaled) behind it */
	ulpt_sge(&sge[0], ulpt_buf_dma(lb, 0), 64,
		 ulpt_lkey(sa) ^ ULPT_BAD_INDEX);
	ulpt_sge(&sge[1], ulpt_buf_dma(lb, 64), 64, ulpt_lkey(sa));
	ulpt_sge(&sge[2], ulpt_buf_dma(lb, 128), 64, ulpt_lkey(sa));
	ulpt_wr(&wrs[0], 0x820, XRDMA_WR_SEND, &sge[0], 1, XRDMA_SEND_SIGNALED);
	ulpt_wr(&wrs[1], 0x821, XRDMA_WR_SEND, &sge[1], 1, 0);
	ulpt_wr(&wrs[2], 0x822, XRDMA_WR_SEND, &sge[2], 1, XRDMA_SEND_SIGNALED);
	wrs[0].next = &wrs[1];
	wrs[1].next = &wrs[2];
	if (ulpt_post_send(t, qa, wrs) ||
	    !ulpt_expect(t, qa, false, 0x820, XRDMA_WC_LOC_PROT_ERR, -1, NULL,
			 "bad lkey") ||
	    !ulpt_expect(t, qa, false, 0x821, XRDMA_WC_WR_FLUSH_ERR, -1, NULL,
			 "unsignaled WR behind the error") ||
	    !ulpt_expect(t, qa, false, 0x822, XRDMA_WC_WR_FLUSH_ERR, -1, NULL,
			 "signaled WR behind the error") ||
	    !ulpt_wait_state(t, qa, XRDMA_QPS_ERR, "after LOC_PROT_ERR") ||
	    !ulpt_expect(t, qa, true, 0x810, XRDMA_WC_WR_FLUSH_ERR, -1, NULL,
			 "posted receive of the failed QP"))
		return;
	/* WRs posted in ERR flush too */
	ulpt_wr(&wrs[0], 0x823, XRDMA_WR_SEND, &sge[1], 1, 0);
	if (ulpt_post_send(t, qa, wrs) ||
	    ulpt_post_recv_sgl(t, qa, 0x811, NULL) ||
	    !ulpt_expect(t, qa, false, 0x823, XRDMA_WC_WR_FLUSH_ERR, -1, NULL,
			 "WR posted in ERR") ||
	    !ulpt_expect(t, qa, true, 0x811, XRDMA_WC_WR_FLUSH_ERR, -1, NULL,
			 "receive posted in ERR"))
		return;
	/* the peer saw nothing and is still in RTS */
	if (!ulpt_quiet(t, qb->rcq, 20, "peer after a local error"))
		return;
	ret = xrdma_query_qp(qb->qp, &a, XRDMA_QP_STATE, NULL);
	if (!ULPT_OK(t, !ret && a.qp_state == XRDMA_QPS_RTS,
		     "peer state %d (ret %d), want RTS", a.qp_state, ret))
		return;

	/* right index, wrong tag */
	if (ulpt_pair(t, &o, &qa, &qb))
		return;
	ulpt_sge(&sge[0], ulpt_buf_dma(lb, 0), 64, ulpt_lkey(sa) ^ 1);
	if (!ulpt_lkey_fail(t, &sge[0], qa, qb, "lkey with a wrong tag"))
		return;

	/* another PD's MR on the same device */
	if (t->topo == ULPT_LOOP) {
		if (ulpt_pair(t, &o, &qa, &qb))
			return;
		ulpt_sge(&sge[0], ulpt_buf_dma(lb, 0), 64, ulpt_lkey(sb));
		if (!ulpt_lkey_fail(t, &sge[0], qa, qb, "lkey of another PD"))
			return;
	}

	/* beyond the end of a local fast-reg MR */
	if (ulpt_pair(t, &o, &qa, &qb))
		return;
	pb = ulpt_buf_alloc(t, sa, PAGE_SIZE, true);
	if (!pb)
		return;
	m = ulpt_freg(t, qa, pb, 0, ULPT_LW, &mr);
	if (!m)
		return;
	ulpt_sge(&sge[0], m->iova, 64, m->mr->lkey);
	ulpt_wr(&wrs[0], 0x840, XRDMA_WR_SEND, &sge[0], 1, XRDMA_SEND_SIGNALED);
	if (ulpt_post_recv_sgl(t, qb, 0x841, &rs) ||
	    ulpt_post_send(t, qa, wrs) ||
	    !ulpt_expect(t, qa, false, 0x840, XRDMA_WC_SUCCESS, XRDMA_WC_SEND,
			 NULL, "SEND from a local fast-reg MR") ||
	    !ulpt_expect(t, qb, true, 0x841, XRDMA_WC_SUCCESS, XRDMA_WC_RECV,
			 NULL, "receive"))
		return;
	ulpt_sge(&sge[0], m->iova + m->len - 16, 64, m->mr->lkey);
	if (!ulpt_lkey_fail(t, &sge[0], qa, qb, "SGE beyond a local MR"))
		return;
	ulpt_note(t, "bad index, bad tag,%s out of bounds; flush of SQ and RQ",
		  t->topo == ULPT_LOOP ? " other PD," : "");
}

/*
 * The core's view of a QP's state (qp->state, no query_qp) must become ERR
 * after an error completion: the device reports the move with a QP event
 * and the driver calls xrdma_qp_set_error().
 */
static bool ulpt_core_state_err(struct ulpt *t, struct ulpt_q *q,
				const char *what)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(ulpt_timeout_ms);

	while (READ_ONCE(q->qp->state) != XRDMA_QPS_ERR) {
		if (time_after(jiffies, deadline))
			return ULPT_OK(t, false,
				       "%s: core state of qp %u still %d (no QP event: fatal %d access %d req %d)",
				       what, q->qp->qp_num, READ_ONCE(q->qp->state),
				       atomic_read(&q->ev[XRDMA_EVENT_QP_FATAL]),
				       atomic_read(&q->ev[XRDMA_EVENT_QP_ACCESS_ERR]),
				       atomic_read(&q->ev[XRDMA_EVENT_QP_REQ_ERR]));
		usleep_range(100, 500);
	}
	return true;
}

/* back to RESET and reconnected to @peer: the QP is usable again */
static bool ulpt_reconnect(struct ulpt *t, struct ulpt_q *q,
			   struct ulpt_q *peer, const char *what)
{
	struct ulpt_qp_opts o = {};
	struct xrdma_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = XRDMA_QPS_RESET;
	ret = xrdma_modify_qp(q->qp, &a, XRDMA_QP_STATE);
	if (!ULPT_OK(t, !ret, "%s: modify to RESET: %d", what, ret))
		return false;
	return !ulpt_qp_connect(t, q, &peer->side->gid, peer->qp->qp_num, &o);
}

static void ulpt_case_err_state(struct ulpt *t)
{
	struct ulpt_side *sa = &t->side[0], *sb = &t->side[1];
	struct ulpt_qp_opts o = {};
	struct xrdma_send_wr wr;
	struct ulpt_buf *lb, *rb;
	struct xrdma_sge sge;
	struct ulpt_q *qa, *qb;
	struct ulpt_sgl rs;
	int i;

	lb = ulpt_buf_alloc(t, sa, 256, false);
	rb = ulpt_buf_alloc(t, sb, 256, false);
	if (!lb || !rb || ulpt_pair(t, &o, &qa, &qb))
		return;
	ulpt_sgl_build(&rs, rb, ulpt_lkey(sb), 0, 64, 1, 0);
	/* a local error on the requester */
	ulpt_sge(&sge, ulpt_buf_dma(lb, 0), 64, ulpt_lkey(sa) ^ ULPT_BAD_INDEX);
	ulpt_wr(&wr, 0x5e1, XRDMA_WR_SEND, &sge, 1, XRDMA_SEND_SIGNALED);
	if (ulpt_post_send(t, qa, &wr) ||
	    !ulpt_expect(t, qa, false, 0x5e1, XRDMA_WC_LOC_PROT_ERR, -1, NULL,
			 "bad lkey") ||
	    !ulpt_core_state_err(t, qa, "requester after LOC_PROT_ERR"))
		return;
	/* reset, reconnect, and the pair works again (both directions) */
	ulpt_sge(&sge, ulpt_buf_dma(lb, 0), 64, ulpt_lkey(sa));
	for (i = 0; i < 2; i++) {
		ulpt_wr(&wr, 0x5e2 + i, XRDMA_WR_SEND, &sge, 1,
			XRDMA_SEND_SIGNALED);
		if ((!i && !ulpt_reconnect(t, qa, qb, "requester")) ||
		    ulpt_post_recv_sgl(t, qb, 0x5f0 + i, &rs) ||
		    ulpt_post_send(t, qa, &wr) ||
		    !ulpt_expect(t, qa, false, 0x5e2 + i, XRDMA_WC_SUCCESS,
				 XRDMA_WC_SEND, NULL, "SEND after reconnect") ||
		    !ulpt_expect(t, qb, true, 0x5f0 + i, XRDMA_WC_SUCCESS,
				 XRDMA_WC_RECV, NULL, "receive after reconnect"))
			return;
	}
	/* the responder's receive buffer fails its check */
	if (ulpt_pair(t, &o, &qa, &qb))
		return;
	rs.sge[0].lkey ^= ULPT_BAD_INDEX;
	ulpt_wr(&wr, 0x5e4, XRDMA_WR_SEND, &sge, 1, XRDMA_SEND_SIGNALED);
	if (ulpt_post_recv_sgl(t, qb, 0x5f4, &rs) ||
	    ulpt_post_send(t, qa, &wr) ||
	    !ulpt_expect(t, qb, true, 0x5f4, XRDMA_WC_LOC_PROT_ERR, -1, NULL,
			 "receive into a bad lkey") ||
	    !ulpt_expect(t, qa, false, 0x5e4, XRDMA_WC_REM_OP_ERR, -1, NULL,
			 "SEND into a bad receive lkey") ||
	    !ulpt_wait_state(t, qb, XRDMA_QPS_ERR, "responder (query)") ||
	    !ulpt_core_state_err(t, qb, "responder after a receive LOC_PROT_ERR") ||
	    !ulpt_core_state_err(t, qa, "requester after REM_OP_ERR"))
		return;
	ulpt_note(t,
		  "core state ERR after error CQEs; RESET and reconnect work");
}

/* --------------------------------------------------- remote errors */

/* where a row's remote address is */
enum ulpt_at {
	ULPT_AT_START,		/* the MR's iova + off */
	ULPT_AT_END,		/* the MR's iova + length + off */
	ULPT_AT_ABS,		/* off itself */
};

/*
 * One remote operation of a table: on MR @mr at @at + @off, with the MR's
 * rkey ^ @rkey_xor.  @status XRDMA_WC_SUCCESS: a WRITE must land (every
 * byte checked) or a READ complete; else it must fail as ulpt_remote_fail()
 * checks, and the next row runs on a fresh pair.
 */
struct ulpt_rop {
	enum xrdma_wr_opcode op;
	u8 mr;
	enum ulpt_at at;
	s64 off;
	u32 rkey_xor;
	u32 len;
	enum xrdma_wc_status status;
	const char *what;
	enum ulpt_resp resp;		/* default: ULPT_RESP_DEFAULT */
};

#define ULPT_NROP		7

/* A case of remote operations on one or two MRs of side 1. */
struct ulpt_rcase {
	struct ulpt_qp_opts o;
	struct {
		u32 access;	/* 0: no MR */
		size_t size;
		unsigned int sg_off;
	} mr[2];
	struct ulpt_rop rop[ULPT_NROP];	/* up to the first without .what */
	const char *note;
};

static bool ulpt_rop_ok(struct ulpt *t, struct ulpt_q *qa, struct ulpt_buf *lb,
			struct ulpt_mr *m, const struct ulpt_rop *r, u64 raddr,
			u32 rkey, u32 seed)
{
	struct xrdma_send_wr wr;
	struct xrdma_sge sge;

	if (r->op == XRDMA_WR_RDMA_WRITE)
		return ulpt_write_ok(t, qa, lb, m, raddr, rkey, r->len, seed,
				     r->what);
	ulpt_sge(&sge, ulpt_buf_dma(lb, 0), r->len, ulpt_lkey(qa->side));
	ulpt_wr_rdma(&wr, 0xc02, r->op, &sge, 1, XRDMA_SEND_SIGNALED, raddr,
		     rkey);
	return !ulpt_post_send(t, qa, &wr) &&
	       ulpt_expect(t, qa, false, wr.wr_id, XRDMA_WC_SUCCESS,
			   XRDMA_WC_RDMA_READ, NULL, r->what);
}

static void ulpt_case_remote_err(struct ulpt *t)
{
	const struct ulpt_rcase *c = t->arg;
	struct ulpt_mr mrs[2], *m[2] = {};
	struct ulpt_q *qa, *qb;
	bool fresh = true;	/* no failure on the pair yet */
	struct ulpt_buf *lb;
	int i;

	if (ulpt_pair(t, &c->o, &qa, &qb))
		return;
	lb = ulpt_buf_alloc(t, &t->side[0], 256, false);
	if (!lb)
		return;
	for (i = 0; i < ARRAY_SIZE(c->mr); i++) {
		if (!c->mr[i].access)
			continue;
		m[i] = ulpt_remote(t, qb, c->mr[i].size, c->mr[i].sg_off,
				   c->mr[i].access, &mrs[i]);
		if (!m[i])
			return;
	}
	for (i = 0; i < ULPT_NROP && c->rop[i].what; i++) {
		const struct ulpt_rop *r = &c->rop[i];
		struct ulpt_mr *rm = m[r->mr];
		u64 raddr = r->off;

		if (r->at == ULPT_AT_START)
			raddr += rm->iova;
		else if (r->at == ULPT_AT_END)
			raddr += rm->iova + rm->len;
		if (!fresh && ulpt_pair(t, &c->o, &qa, &qb))
			return;
		if (r->status == XRDMA_WC_SUCCESS) {
			if (!ulpt_rop_ok(t, qa, lb, rm, r, raddr,
					 rm->rkey ^ r->rkey_xor, 0x901 + i))
				return;
			continue;
		}
		if (!ulpt_remote_fail(t, qa, qb, rm, r->op, raddr,
				      rm->rkey ^ r->rkey_xor, r->len, r->status,
				      r->resp, lb, r->what))
			return;
		fresh = false;
	}
	ulpt_note(t, "%s", c->note);
}

/* short names for the tables */
#define ULPT_WR		XRDMA_WR_RDMA_WRITE
#define ULPT_RD		XRDMA_WR_RDMA_READ
#define ULPT_FAA		XRDMA_WR_ATOMIC_FETCH_AND_ADD
#define ULPT_CAS		XRDMA_WR_ATOMIC_CMP_AND_SWP
#define ULPT_SUCC		XRDMA_WC_SUCCESS
#define ULPT_RACC		XRDMA_WC_REM_ACCESS_ERR
#define ULPT_RINV		XRDMA_WC_REM_INV_REQ_ERR
#define ULPT_LQPOP	XRDMA_WC_LOC_QP_OP_ERR

/* bad rkeys: a bad index or a bad tag, for WRITE, READ and atomics */
static const struct ulpt_rcase ulpt_rc_rkey = {
	.mr = { { ULPT_ALL, PAGE_SIZE } },
	.rop = {
		{ ULPT_WR, 0, ULPT_AT_START, 0, 0, 64, ULPT_SUCC,
		  "WRITE with the right rkey" },
		{ ULPT_WR, 0, ULPT_AT_START, 0, ULPT_BAD_INDEX, 64, ULPT_RACC,
		  "WRITE, rkey with a bad index" },
		{ ULPT_WR, 0, ULPT_AT_START, 0, 1, 64, ULPT_RACC,
		  "WRITE, rkey with a bad tag" },
		{ ULPT_RD, 0, ULPT_AT_START, 0, ULPT_BAD_INDEX, 64, ULPT_RACC,
		  "READ, rkey with a bad index" },
		{ ULPT_FAA, 0, ULPT_AT_START, 8, 1, 8, ULPT_RACC,
		  "FETCH_ADD, rkey with a bad tag" },
	},
	.note = "WRITE/READ/atomic with bad rkeys: REM_ACCESS_ERR, responder ERR + event",
};

/* the bounds of an MR that starts 100 bytes into its first page */
static const struct ulpt_rcase ulpt_rc_bounds = {
	.mr = { { ULPT_ALL, 2 * PAGE_SIZE, 100 } },
	.rop = {
		{ ULPT_WR, 0, ULPT_AT_END, -32, 0, 32, ULPT_SUCC,
		  "WRITE of the MR's last 32 bytes" },
		{ ULPT_WR, 0, ULPT_AT_START, 0, 0, 8, ULPT_SUCC,
		  "WRITE of the MR's first 8 bytes" },
		{ ULPT_WR, 0, ULPT_AT_END, -32, 0, 64, ULPT_RACC,
		  "WRITE across the end of the MR" },
		{ ULPT_WR, 0, ULPT_AT_START, -8, 0, 16, ULPT_RACC,
		  "WRITE before the start of the MR (same page)" },
		{ ULPT_RD, 0, ULPT_AT_END, 0, 0, 8, ULPT_RACC,
		  "READ just past the end of the MR" },
		{ ULPT_WR, 0, ULPT_AT_ABS, -8, 0, 64, ULPT_RACC,
		  "WRITE whose range wraps around 2^64" },
	},
	.note = "end, start, past end, wrap: REM_ACCESS_ERR, nothing written",
};

/* MR 0 with REMOTE_READ only, MR 1 with REMOTE_WRITE only */
static const struct ulpt_rcase ulpt_rc_rights = {
	.mr = { { XRDMA_ACCESS_REMOTE_READ, PAGE_SIZE },
		{ ULPT_RW, PAGE_SIZE } },
	.rop = {
		{ ULPT_WR, 1, ULPT_AT_START, 0, 0, 64, ULPT_SUCC,
		  "WRITE to a REMOTE_WRITE MR" },
		{ ULPT_RD, 0, ULPT_AT_START, 0, 0, 64, ULPT_SUCC,
		  "READ of a REMOTE_READ MR" },
		{ ULPT_WR, 0, ULPT_AT_START, 0, 0, 64, ULPT_RACC,
		  "WRITE to an MR without REMOTE_WRITE" },
		{ ULPT_RD, 1, ULPT_AT_START, 0, 0, 64, ULPT_RACC,
		  "READ of an MR without REMOTE_READ" },
		{ ULPT_FAA, 1, ULPT_AT_START, 8, 0, 8, ULPT_RACC,
		  "FETCH_ADD on an MR without REMOTE_ATOMIC" },
		{ ULPT_CAS, 0, ULPT_AT_START, 8, 0, 8, ULPT_RACC,
		  "CMP_AND_SWP on an MR without REMOTE_ATOMIC" },
	},
	.note = "WRITE/READ/atomics without the right: REM_ACCESS_ERR",
};

static const struct ulpt_rcase ulpt_rc_atomic_align = {
	.mr = { { ULPT_ALL, PAGE_SIZE } },
	.rop = {
		{ ULPT_FAA, 0, ULPT_AT_START, 4, 0, 8, ULPT_RINV,
		  "FETCH_ADD at a misaligned address" },
	},
	.note = "FETCH_ADD at iova + 4: REM_INV_REQ_ERR, responder ERR",
};

/*
 * READ and atomics refused for want of READ/atomic resources: by a
 * responder with max_dest_rd_atomic 0 (REM_INV_REQ_ERR, the responder ERR
 * with a QP_REQ_ERR event), by a requester with max_rd_atomic 0
 * (LOC_QP_OP_ERR, the responder untouched in RTS).  WRITEs still work.
 */
static const struct ulpt_rcase ulpt_rc_dest_rd_atomic = {
	.o = { .no_dest_rd_atomic = true },
	.mr = { { ULPT_ALL, PAGE_SIZE } },
	.rop = {
		{ ULPT_WR, 0, ULPT_AT_START, 0, 0, 64, ULPT_SUCC,
		  "WRITE to a responder with max_dest_rd_atomic 0" },
		{ ULPT_RD, 0, ULPT_AT_START, 0, 0, 64, ULPT_RINV,
		  "READ from a responder with max_dest_rd_atomic 0",
		  ULPT_RESP_REQ_ERR },
		{ ULPT_CAS, 0, ULPT_AT_START, 8, 0, 8, ULPT_RINV,
		  "CMP_AND_SWP on a responder with max_dest_rd_atomic 0",
		  ULPT_RESP_REQ_ERR },
		{ ULPT_RD, 0, ULPT_AT_START, 0, 0, 0, ULPT_RINV,
		  "0-byte READ from a responder with max_dest_rd_atomic 0",
		  ULPT_RESP_REQ_ERR },
	},
	.note = "WRITE ok; READ, CAS, 0-byte READ: REM_INV_REQ_ERR, responder ERR + REQ_ERR",
};

static const struct ulpt_rcase ulpt_rc_rd_atomic = {
	.o = { .no_rd_atomic = true },
	.mr = { { ULPT_ALL, PAGE_SIZE } },
	.rop = {
		{ ULPT_WR, 0, ULPT_AT_START, 0, 0, 64, ULPT_SUCC,
		  "WRITE from a requester with max_rd_atomic 0" },
		{ ULPT_RD, 0, ULPT_AT_START, 0, 0, 64, ULPT_LQPOP,
		  "READ by a requester with max_rd_atomic 0", ULPT_RESP_UNTOUCHED },
		{ ULPT_CAS, 0, ULPT_AT_START, 8, 0, 8, ULPT_LQPOP,
		  "CMP_AND_SWP by a requester with max_rd_atomic 0",
		  ULPT_RESP_UNTOUCHED },
	},
	.note = "WRITE ok; READ, CMP_AND_SWP: LOC_QP_OP_ERR, responder untouched in RTS",
};

/* receive buffer too small */
static void ulpt_case_err_len(struct ulpt *t)
{
	struct ulpt_side *sa = &t->side[0], *sb = &t->side[1];
	struct ulpt_qp_opts o = {};
	struct xrdma_send_wr wr;
	struct ulpt_sgl rs[2], ss;
	struct ulpt_buf *lb, *rb;
	struct ulpt_q *qa, *qb;

	if (!ulpt_pair_bufs(t, &o, &qa, &qb, &lb, 1024, &rb, 1024))
		return;
	memset(rb->va, ULPT_CANARY, rb->size);
	ulpt_buf_to_dev(rb);
	ulpt_sgl_build(&rs[0], rb, ulpt_lkey(sb), 0, 64, 1, 0);
	ulpt_sgl_build(&rs[1], rb, ulpt_lkey(sb), 512, 256, 1, 0);
	ulpt_sgl_build(&ss, lb, ulpt_lkey(sa), 0, 256, 1, 0);
	ulpt_sgl_fill(&ss, lb, 0xa1);
	ulpt_buf_to_dev(lb);
	ulpt_wr(&wr, 0xa10, XRDMA_WR_SEND, ss.sge, ss.n, XRDMA_SEND_SIGNALED);
	if (ulpt_post_recv_sgl(t, qb, 0xa00, &rs[0]) ||
	    ulpt_post_recv_sgl(t, qb, 0xa01, &rs[1]) ||
	    ulpt_post_send(t, qa, &wr) ||
	    !ulpt_expect(t, qb, true, 0xa00, XRDMA_WC_LOC_LEN_ERR, -1, NULL,
			 "responder, 256 bytes into 64") ||
	    !ulpt_expect(t, qa, false, 0xa10, XRDMA_WC_REM_INV_REQ_ERR, -1,
			 NULL, "requester, 256 bytes into 64") ||
	    !ulpt_expect(t, qb, true, 0xa01, XRDMA_WC_WR_FLUSH_ERR, -1, NULL,
			 "responder's next receive") ||
	    !ulpt_wait_state(t, qa, XRDMA_QPS_ERR, "requester") ||
	    !ulpt_wait_state(t, qb, XRDMA_QPS_ERR, "responder"))
		return;
	ulpt_buf_to_cpu(rb);
	ULPT_OK(t, !memchr_inv(rb->va + 64, ULPT_CANARY, rb->size - 64),
		"bytes beyond the 64-byte receive buffer written");
}

static void ulpt_case_err_rnr(struct ulpt *t)
{
	struct ulpt_qp_opts o = {};
	struct xrdma_send_wr wr;
	struct xrdma_qp_attr a;
	struct xrdma_sge sge;
	struct ulpt_q *qa, *qb;
	struct ulpt_buf *lb;
	int retry, ret;

	o.set_rnr_retry = true;
	o.min_rnr_timer = 1;
	for (retry = 1; retry >= 0; retry--) {
		o.rnr_retry = retry;
		if (!ulpt_pair_bufs(t, &o, &qa, &qb, &lb, 64, NULL, 0))
			return;
		ulpt_sge(&sge, ulpt_buf_dma(lb, 0), 64, ulpt_lkey(&t->side[0]));
		ulpt_wr(&wr, 0xb10 + retry, XRDMA_WR_SEND, &sge, 1,
			XRDMA_SEND_SIGNALED);
		if (ulpt_post_send(t, qa, &wr) ||
		    !ulpt_expect(t, qa, false, wr.wr_id,
				 XRDMA_WC_RNR_RETRY_EXC_ERR, -1, NULL,
				 retry ? "no receive, rnr_retry 1" :
				 "no receive, rnr_retry 0") ||
		    !ulpt_wait_state(t, qa, XRDMA_QPS_ERR, "requester"))
			return;
		ret = xrdma_query_qp(qb->qp, &a, XRDMA_QP_STATE, NULL);
		if (!ULPT_OK(t, !ret && a.qp_state == XRDMA_QPS_RTS,
			     "responder state %d after RNR, want RTS",
			     a.qp_state) ||
		    !ulpt_quiet(t, qb->rcq, 5, "responder after RNR"))
			return;
	}
	ulpt_note(t, "rnr_retry 1 and 0: RNR_RETRY_EXC_ERR");
}

static void ulpt_case_rnr_recover(struct ulpt *t)
{
	struct ulpt_side *sa = &t->side[0], *sb = &t->side[1];
	struct ulpt_qp_opts o = {};
	struct xrdma_send_wr wr;
	struct ulpt_buf *lb, *rb;
	struct ulpt_q *qa, *qb;
	struct ulpt_sgl ss, rs;

	if (!ulpt_pair_bufs(t, &o, &qa, &qb, &lb, 8192, &rb, 8192))
		return;
	ulpt_sgl_build(&ss, lb, ulpt_lkey(sa), 1, 4096, 2, 0);
	ulpt_sgl_fill(&ss, lb, 0xb2);
	ulpt_buf_to_dev(lb);
	memset(rb->va, ULPT_CANARY, rb->size);
	ulpt_buf_to_dev(rb);
	ulpt_sgl_build(&rs, rb, ulpt_lkey(sb), 3, 4096, 1, 0);
	ulpt_wr(&wr, 0xb20, XRDMA_WR_SEND, ss.sge, ss.n, XRDMA_SEND_SIGNALED);
	if (ulpt_post_send(t, qa, &wr))
		return;
	msleep(50);
	if (!ulpt_quiet(t, qa->scq, 1, "SEND before a receive was posted") ||
	    ulpt_post_recv_sgl(t, qb, 0xb21, &rs) ||
	    !ulpt_expect(t, qa, false, 0xb20, XRDMA_WC_SUCCESS, XRDMA_WC_SEND,
			 NULL, "SEND after RNR retries") ||
	    !ulpt_expect(t, qb, true, 0xb21, XRDMA_WC_SUCCESS, XRDMA_WC_RECV,
			 NULL, "late receive"))
		return;
	ulpt_buf_to_cpu(rb);
	ulpt_sgl_check(t, &rs, rb, 0xb2, ULPT_CANARY, "late receive");
}

static void ulpt_case_err_retry(struct ulpt *t)
{
	union xrdma_gid nogid = { .raw = { 0xfe, 0x80 } };
	struct ulpt_qp_opts o = {};
	struct xrdma_send_wr wr;
	struct xrdma_sge sge;
	struct ulpt_q *qa, *qb;
	struct ulpt_buf *lb;
	int i;

	lb = ulpt_buf_alloc(t, &t->side[0], 64, false);
	if (!lb)
		return;
	nogid.raw[8] = 0xde;
	nogid.raw[15] = 0xad;
	ulpt_sge(&sge, ulpt_buf_dma(lb, 0), 64, ulpt_lkey(&t->side[0]));
	o.retry_cnt = 1;
	for (i = 0; i < 3; i++) {
		static const char *const what[] = {
			"destination QPN missing", "destination QP in RESET",
			"destination GID unreachable",
		};

		o.no_connect = true;
		if (ulpt_pair(t, &o, &qa, &qb) ||
		    ulpt_qp_connect(t, qa, i == 2 ? &nogid : &t->side[1].gid,
				    i == 0 ? ULPT_NO_QPN : qb->qp->qp_num, &o))
			return;
		ulpt_wr(&wr, 0xe70 + i, XRDMA_WR_SEND, &sge, 1,
			XRDMA_SEND_SIGNALED);
		if (ulpt_post_send(t, qa, &wr) ||
		    !ulpt_expect(t, qa, false, wr.wr_id, XRDMA_WC_RETRY_EXC_ERR,
				 -1, NULL, what[i]) ||
		    !ulpt_wait_state(t, qa, XRDMA_QPS_ERR, what[i]))
			return;
	}
	ulpt_note(t, "missing QPN, QP in RESET, unknown GID: RETRY_EXC_ERR");
}

static void ulpt_case_err_stale_rkey(struct ulpt *t)
{
	struct ulpt_qp_opts o = {};
	struct ulpt_mr mr, *m;
	struct ulpt_q *qa, *qb;
	struct ulpt_buf *lb;

	m = ulpt_pair_mr(t, &o, &qa, &qb, &lb, 256, PAGE_SIZE, ULPT_RW, &mr);
	if (!m ||
	    !ulpt_write_ok(t, qa, lb, m, m->iova, m->rkey, 64, 0x5a1,
			   "WRITE before dereg") ||
	    !ulpt_dereg_mr(t, m->mr))
		return;
	/* the buffer stays allocated and mapped: a stray write is seen */
	ulpt_write_refused(t, qa, qb, m, m->iova, m->rkey, lb,
			   "WRITE with the rkey of a deregistered MR");
}

/* ------------------------------------------------------ connections */

/*
 * The victim of an intrusion: still RTS (the device's view), no QP event,
 * no completion, its remote MR unwritten.
 */
static bool ulpt_victim_ok(struct ulpt *t, struct ulpt_q *qb, struct ulpt_mr *m,
			   const char *what)
{
	struct xrdma_qp_attr a = {};
	int i, ret;

	ret = xrdma_query_qp(qb->qp, &a, XRDMA_QP_STATE, NULL);
	if (!ULPT_OK(t, !ret && a.qp_state == XRDMA_QPS_RTS,
		     "%s: victim state %d (query_qp %d), want RTS", what,
		     a.qp_state, ret) ||
	    !ULPT_OK(t, READ_ONCE(qb->qp->state) == XRDMA_QPS_RTS,
		     "%s: victim's core state %d, want RTS", what,
		     READ_ONCE(qb->qp->state)))
		return false;
	for (i = 0; i < ULPT_NEV; i++)
		if (!ULPT_OK(t, !atomic_read(&qb->ev[i]),
			     "%s: QP event %d on the victim", what, i))
			return false;
	return ulpt_quiet(t, qb->rcq, 1, what) &&
	       ulpt_quiet(t, qb->scq, 1, what) &&
	       ulpt_remote_untouched(t, m, what);
}

/*
 * A third QP connected to the victim (side 1) that the victim is not
 * connected to, on side 0 (the peer's device) and on side 1 (the
 * victim's), knowing the victim's QPN, PSN and rkey: its SEND, WRITE
 * (right and wrong rkey) and READ are dropped by the victim, so each ends
 * with RETRY_EXC_ERR, as for a peer that does not answer.  The victim
 * stays RTS with its receive, MR and CQs untouched, and its traffic with
 * its real peer goes on.
 */
static void ulpt_case_intruder(struct ulpt *t)
{
	static const struct {
		enum xrdma_wr_opcode op;
		bool bad_rkey;
		const char *what;
	} ops[] = {
		{ XRDMA_WR_SEND, false, "intruder's SEND" },
		{ XRDMA_WR_SEND_WITH_IMM, false, "intruder's SEND_WITH_IMM" },
		{ XRDMA_WR_RDMA_WRITE, false, "intruder's WRITE, right rkey" },
		{ XRDMA_WR_RDMA_WRITE, true, "intruder's WRITE, wrong rkey" },
		{ XRDMA_WR_RDMA_READ, false, "intruder's READ, right rkey" },
	};
	struct ulpt_side *sa = &t->side[0], *sb = &t->side[1];
	struct ulpt_qp_opts o = {};
	struct ulpt_q *qa, *qb, *qc;
	struct xrdma_send_wr wr;
	struct ulpt_mr mr, *m;
	struct ulpt_buf *lb, *rb;
	struct xrdma_sge sge;
	struct ulpt_sgl rs;
	int i, k;

	m = ulpt_pair_mr(t, &o, &qa, &qb, &lb, 4096, PAGE_SIZE, ULPT_ALL, &mr);
	rb = m ? ulpt_buf_alloc(t, sb, 4096, false) : NULL;
	if (!rb)
		return;
	memset(rb->va, ULPT_CANARY, rb->size);
	ulpt_buf_to_dev(rb);
	ulpt_remote_canary(m);
	ulpt_pat_fill(lb->va, lb->size, 0x1d, 0);
	ulpt_buf_to_dev(lb);
	ulpt_sgl_build(&rs, rb, ulpt_lkey(sb), 0, 64, 1, 0);
	if (ulpt_post_recv_sgl(t, qb, 0x1d0, &rs))
		return;
	for (k = 0; k < 2; k++) {
		struct ulpt_side *sc = k ? sb : sa;
		struct ulpt_cq *cs = ulpt_cq_create(t, sc, 16);
		struct ulpt_cq *cr = ulpt_cq_create(t, sc, 16);

		if (!cs || !cr)
			return;
		qc = ulpt_qp_create(t, sc, cs, cr, NULL, &o);
		if (!qc || ulpt_qp_connect(t, qc, &sb->gid, qb->qp->qp_num, &o))
			return;
		for (i = 0; i < ARRAY_SIZE(ops); i++) {
			ulpt_sge(&sge, ulpt_buf_dma(lb, 0), 64, ulpt_lkey(sc));
			ulpt_wr_rdma(&wr, 0x1d10 + 16 * k + i, ops[i].op, &sge,
				     1, XRDMA_SEND_SIGNALED, m->iova,
				     ops[i].bad_rkey ? m->rkey ^ 1 : m->rkey);
			wr.ex.imm_data = cpu_to_be32(0x1d1d);
			if (ulpt_post_send(t, qc, &wr) ||
			    !ulpt_expect(t, qc, false, wr.wr_id,
					 XRDMA_WC_RETRY_EXC_ERR, -1, NULL,
					 ops[i].what) ||
			    !ulpt_wait_state(t, qc, XRDMA_QPS_ERR,
					     ops[i].what) ||
			    !ulpt_victim_ok(t, qb, m, ops[i].what) ||
			    !ulpt_reconnect(t, qc, qb, ops[i].what))
				return;
		}
	}
	/* the real peer: its SEND takes the receive posted first */
	ulpt_sge(&sge, ulpt_buf_dma(lb, 0), 64, ulpt_lkey(sa));
	ulpt_wr(&wr, 0x1d20, XRDMA_WR_SEND, &sge, 1, XRDMA_SEND_SIGNALED);
	if (ulpt_post_send(t, qa, &wr) ||
	    !ulpt_expect(t, qa, false, 0x1d20, XRDMA_WC_SUCCESS, XRDMA_WC_SEND,
			 NULL, "peer's SEND after the intrusions") ||
	    !ulpt_expect(t, qb, true, 0x1d0, XRDMA_WC_SUCCESS, XRDMA_WC_RECV,
			 NULL, "victim's receive of its peer's SEND"))
		return;
	ulpt_buf_to_cpu(rb);
	if (!ulpt_sgl_check(t, &rs, rb, 0x1d, ULPT_CANARY, "peer's SEND") ||
	    !ulpt_write_ok(t, qa, lb, m, m->iova, m->rkey, 64, 0x1e,
			   "peer's WRITE after the intrusions"))
		return;
	ulpt_note(t, "intruders' SEND/WRITE/READ: RETRY_EXC_ERR; victim untouched");
}

/* --------------------------------------------------------- CQ errors */

static void ulpt_case_cq_overrun(struct ulpt *t)
{
	struct xrdma_send_wr *wrs = NULL;
	struct ulpt_qp_opts o = {};
	struct ulpt_mr mr, *m;
	struct ulpt_q *qa, *qb;
	struct xrdma_sge sge;
	struct ulpt_buf *lb;
	u32 n, i;

	n = min_t(u32, t->side[0].attr.max_qp_wr, 128);
	o.send_wr = n;
	o.a_scq_cqe = 2;
	if (ulpt_pair(t, &o, &qa, &qb))
		return;
	lb = ulpt_buf_alloc(t, &t->side[0], 64, false);
	m = ulpt_remote(t, qb, PAGE_SIZE, 0, ULPT_RW, &mr);
	wrs = kcalloc(n, sizeof(*wrs), GFP_KERNEL);
	if (!lb || !m || !ULPT_OK(t, wrs, "no memory"))
		goto out;
	ulpt_sge(&sge, ulpt_buf_dma(lb, 0), 8, ulpt_lkey(&t->side[0]));
	for (i = 0; i < n; i++) {
		ulpt_wr_rdma(&wrs[i], 0x0c00 + i, XRDMA_WR_RDMA_WRITE, &sge, 1,
			     XRDMA_SEND_SIGNALED, m->iova + 8 * (i % 64),
			     m->rkey);
		wrs[i].next = i + 1 < n ? &wrs[i + 1] : NULL;
	}
	/* n signaled WRs into a CQ of 2, never polled */
	if (ulpt_post_send(t, qa, wrs))
		goto out;
	if (!ULPT_OK(t, ulpt_wait_count(&qa->scq->ev[XRDMA_EVENT_CQ_ERR], 1,
					ulpt_timeout_ms),
		     "no CQ_ERR event after %u completions into a CQ of %u", n,
		     qa->scq->cq->cqe) ||
	    !ulpt_wait_state(t, qa, XRDMA_QPS_ERR, "QP of the overrun CQ"))
		goto out;
	ULPT_OK(t, !atomic_read(&qa->rcq->ev[XRDMA_EVENT_CQ_ERR]) &&
		!atomic_read(&qb->scq->ev[XRDMA_EVENT_CQ_ERR]) &&
		!atomic_read(&qb->rcq->ev[XRDMA_EVENT_CQ_ERR]),
		"CQ_ERR on a CQ that did not overrun");
	ulpt_note(t, "%u completions into a CQ of %u: CQ_ERR, QP ERR", n,
		  qa->scq->cq->cqe);
out:
	kfree(wrs);
}

/* ------------------------------------------------ fast registration */

static void ulpt_case_freg(struct ulpt *t)
{
	struct ulpt_side *sa = &t->side[0];
	struct ulpt_mr mrb, mra, *mb, *ma;
	struct ulpt_qp_opts o = {};
	struct xrdma_send_wr wr;
	struct ulpt_buf *lb, *pa;
	struct xrdma_sge sge;
	struct ulpt_q *qa, *qb;
	size_t rlen;
	u32 old;

	if (ulpt_pair(t, &o, &qa, &qb))
		return;
	lb = ulpt_buf_alloc(t, sa, 4 * PAGE_SIZE, false);
	pa = ulpt_buf_alloc(t, sa, 3 * PAGE_SIZE, true);
	mb = ulpt_remote(t, qb, 3 * PAGE_SIZE, 0, ULPT_RW |
			 XRDMA_ACCESS_REMOTE_READ, &mrb);
	ma = pa ? ulpt_freg(t, qa, pa, 0, ULPT_LW, &mra) : NULL;
	if (!lb || !mb || !ma)
		return;
	/* a WRITE across the pages of the new MR */
	if (!ulpt_write_ok(t, qa, lb, mb, mb->iova + 100, mb->rkey, 5000,
			   0xf01, "WRITE through the new rkey"))
		return;
	/* a READ into a local fast-reg MR (lkey, iova addresses) */
	rlen = 3 * PAGE_SIZE - 200;
	memset(mb->buf->va, ULPT_RCANARY, mb->buf->size);
	ulpt_pat_fill(mb->buf->va + 100, rlen, 0xf02, 0);
	ulpt_buf_to_dev(mb->buf);
	memset(pa->va, ULPT_CANARY, pa->size);
	ulpt_buf_to_dev(pa);
	ulpt_sge(&sge, ma->iova + 50, rlen, ma->mr->lkey);
	ulpt_wr_rdma(&wr, 0xf03, XRDMA_WR_RDMA_READ, &sge, 1,
		     XRDMA_SEND_SIGNALED, mb->iova + 100, mb->rkey);
	if (ulpt_post_send(t, qa, &wr) ||
	    !ulpt_expect(t, qa, false, 0xf03, XRDMA_WC_SUCCESS,
			 XRDMA_WC_RDMA_READ, NULL, "READ into a local MR"))
		return;
	ulpt_buf_to_cpu(pa);
	if (!ulpt_region_check(t, pa, 50, rlen, 0xf02, ULPT_CANARY,
			       "READ into a local MR"))
		return;
	/* LOCAL_INV by the owner: the same WRITE is refused */
	old = mb->rkey;
	if (ulpt_local_inv(t, qb, mb->rkey) ||
	    !ulpt_write_refused(t, qa, qb, mb, mb->iova + 100, mb->rkey, lb,
				"WRITE after LOCAL_INV"))
		return;
	/* registered again with a new key: new key works, old one not */
	if (ulpt_pair(t, &o, &qa, &qb) ||
	    ulpt_freg_again(t, qb, mb, ULPT_RW) ||
	    !ULPT_OK(t, mb->rkey != old, "re-registration kept the key") ||
	    !ulpt_write_ok(t, qa, lb, mb, mb->iova + 8, mb->rkey, 64, 0xf04,
			   "WRITE through the re-registered key") ||
	    !ulpt_write_refused(t, qa, qb, mb, mb->iova + 8, old, lb,
				"WRITE with the key of the previous registration"))
		return;
	ulpt_note(t, "REG_MR, WRITE, READ to local MR, LOCAL_INV, re-REG");
}

static void ulpt_case_send_inv(struct ulpt *t)
{
	struct ulpt_side *sa = &t->side[0], *sb = &t->side[1];
	struct ulpt_qp_opts o = {};
	struct xrdma_send_wr wr;
	struct ulpt_buf *lb, *rb;
	struct ulpt_mr mr, *m;
	struct ulpt_q *qa, *qb;
	struct ulpt_sgl ss, rs;
	struct xrdma_wc wc;

	m = ulpt_pair_mr(t, &o, &qa, &qb, &lb, 1024, PAGE_SIZE, ULPT_RW, &mr);
	rb = m ? ulpt_buf_alloc(t, sb, 1024, false) : NULL;
	if (!rb ||
	    !ulpt_write_ok(t, qa, lb, m, m->iova, m->rkey, 64, 0x1e1,
			   "WRITE before SEND_WITH_INV"))
		return;
	memset(rb->va, ULPT_CANARY, rb->size);
	ulpt_buf_to_dev(rb);
	ulpt_sgl_build(&rs, rb, ulpt_lkey(sb), 0, 64, 1, 0);
	ulpt_sgl_build(&ss, lb, ulpt_lkey(sa), 0, 64, 1, 0);
	ulpt_sgl_fill(&ss, lb, 0x1e2);
	ulpt_buf_to_dev(lb);
	ulpt_wr(&wr, 0x1e3, XRDMA_WR_SEND_WITH_INV, ss.sge, ss.n,
		XRDMA_SEND_SIGNALED);
	wr.ex.invalidate_rkey = m->rkey;
	if (ulpt_post_recv_sgl(t, qb, 0x1e4, &rs) ||
	    ulpt_post_send(t, qa, &wr) ||
	    !ulpt_expect(t, qa, false, 0x1e3, XRDMA_WC_SUCCESS, XRDMA_WC_SEND,
			 NULL, "SEND_WITH_INV") ||
	    !ulpt_expect(t, qb, true, 0x1e4, XRDMA_WC_SUCCESS, XRDMA_WC_RECV,
			 &wc, "receive of SEND_WITH_INV") ||
	    !ULPT_OK(t, wc.wc_flags & XRDMA_WC_WITH_INVALIDATE &&
		     wc.ex.invalidate_rkey == m->rkey,
		     "receive: wc_flags %#x invalidate_rkey %#x, want WITH_INVALIDATE %#x",
		     wc.wc_flags, wc.ex.invalidate_rkey, m->rkey) ||
	    !ULPT_OK(t, wc.byte_len == 64, "byte_len %u", wc.byte_len))
		return;
	ulpt_buf_to_cpu(rb);
	if (!ulpt_sgl_check(t, &rs, rb, 0x1e2, ULPT_CANARY,
			    "SEND_WITH_INV data"))
		return;
	ulpt_write_refused(t, qa, qb, m, m->iova, m->rkey, lb,
			   "WRITE with the invalidated rkey");
}

/* --------------------------------------------------- CQ notification */

static bool ulpt_send_one(struct ulpt *t, struct ulpt_q *qa, struct ulpt_q *qb,
			  struct ulpt_buf *lb, u64 id, u32 flags, bool poll_recv)
{
	struct xrdma_send_wr wr;
	struct xrdma_sge sge;

	ulpt_sge(&sge, ulpt_buf_dma(lb, 0), 16, ulpt_lkey(qa->side));
	ulpt_wr(&wr, id, XRDMA_WR_SEND, &sge, 1, XRDMA_SEND_SIGNALED | flags);
	if (ulpt_post_send(t, qa, &wr) ||
	    !ulpt_expect(t, qa, false, id, XRDMA_WC_SUCCESS, XRDMA_WC_SEND,
			 NULL, "SEND"))
		return false;
	return !poll_recv ||
	       ulpt_expect(t, qb, true, id | 0x10000, XRDMA_WC_SUCCESS,
			   XRDMA_WC_RECV, NULL, "receive");
}

static void ulpt_case_cq_notify(struct ulpt *t)
{
	struct ulpt_qp_opts o = {};
	struct ulpt_buf *lb, *rb;
	struct ulpt_q *qa, *qb;
	struct ulpt_sgl rs;
	atomic_t *comps;
	int i, ret;

	if (!ulpt_pair_bufs(t, &o, &qa, &qb, &lb, 64, &rb, 64))
		return;
	comps = &qb->rcq->comps;
	ulpt_sgl_build(&rs, rb, ulpt_lkey(&t->side[1]), 0, 16, 1, 0);
	for (i = 1; i <= 7; i++)
		if (ulpt_post_recv_sgl(t, qb, 0x10000 | i, &rs))
			return;
	/* NEXT: one event for the first completion, none without re-arm */
	ret = xrdma_req_notify_cq(qb->rcq->cq, XRDMA_CQ_NEXT_COMP);
	if (!ULPT_OK(t, !ret, "req_notify_cq(NEXT): %d", ret) ||
	    !ulpt_send_one(t, qa, qb, lb, 1, 0, false) ||
	    !ULPT_OK(t, ulpt_wait_count(comps, 1, ulpt_timeout_ms),
		     "no completion event on an armed CQ") ||
	    !ulpt_expect(t, qb, true, 0x10001, XRDMA_WC_SUCCESS, XRDMA_WC_RECV,
			 NULL, "receive 1") ||
	    !ulpt_send_one(t, qa, qb, lb, 2, 0, true))
		return;
	msleep(20);
	if (!ULPT_OK(t, atomic_read(comps) == 1,
		     "%d completion events without re-arming",
		     atomic_read(comps)))
		return;
	/* SOLICITED: a plain SEND raises nothing, a solicited one does */
	ret = xrdma_req_notify_cq(qb->rcq->cq, XRDMA_CQ_SOLICITED);
	if (!ULPT_OK(t, !ret, "req_notify_cq(SOLICITED): %d", ret) ||
	    !ulpt_send_one(t, qa, qb, lb, 3, 0, true))
		return;
	msleep(20);
	if (!ULPT_OK(t, atomic_read(comps) == 1,
		     "event for an unsolicited receive on a SOLICITED-armed CQ") ||
	    !ulpt_send_one(t, qa, qb, lb, 4, XRDMA_SEND_SOLICITED, false) ||
	    !ULPT_OK(t, ulpt_wait_count(comps, 2, ulpt_timeout_ms),
		     "no event for a solicited receive") ||
	    !ulpt_expect(t, qb, true, 0x10004, XRDMA_WC_SUCCESS, XRDMA_WC_RECV,
			 NULL, "receive 4"))
		return;
	/* REPORT_MISSED_EVENTS with a completion already in the CQ */
	if (!ulpt_send_one(t, qa, qb, lb, 5, 0, false))
		return;
	msleep(20);
	ret = xrdma_req_notify_cq(qb->rcq->cq, XRDMA_CQ_NEXT_COMP |
				  XRDMA_CQ_REPORT_MISSED_EVENTS);
	if (!ULPT_OK(t, ret > 0,
		     "req_notify_cq(REPORT_MISSED) with a CQE waiting: %d", ret) ||
	    !ulpt_expect(t, qb, true, 0x10005, XRDMA_WC_SUCCESS, XRDMA_WC_RECV,
			 NULL, "receive 5"))
		return;
	msleep(20);
	i = atomic_read(comps);
	ret = xrdma_req_notify_cq(qb->rcq->cq, XRDMA_CQ_NEXT_COMP |
				  XRDMA_CQ_REPORT_MISSED_EVENTS);
	if (!ULPT_OK(t, !ret, "req_notify_cq(REPORT_MISSED) on an empty CQ: %d",
		     ret) ||
	    !ulpt_send_one(t, qa, qb, lb, 6, 0, false) ||
	    !ULPT_OK(t, ulpt_wait_count(comps, i + 1, ulpt_timeout_ms),
		     "no event after re-arming") ||
	    !ulpt_expect(t, qb, true, 0x10006, XRDMA_WC_SUCCESS, XRDMA_WC_RECV,
			 NULL, "receive 6"))
		return;
	ULPT_OK(t, !atomic_read(&qa->scq->comps),
		"events on a CQ that was never armed");
}

/* ------------------------------------------------------------- SRQ */

/* a 256-byte receive at @off of @b posted to @srq */
static bool ulpt_srq_post(struct ulpt *t, struct xrdma_srq *srq,
			  struct ulpt_buf *b, size_t off, u64 wr_id)
{
	const struct xrdma_recv_wr *bad;
	struct xrdma_recv_wr rwr = {};
	struct ulpt_sgl rs;
	int ret;

	ulpt_sgl_build(&rs, b, ulpt_lkey(b->side), off, 256, 1, 0);
	rwr.wr_id = wr_id;
	rwr.sg_list = rs.sge;
	rwr.num_sge = 1;
	ret = xrdma_post_srq_recv(srq, &rwr, &bad);
	return ULPT_OK(t, !ret, "post_srq_recv: %d", ret);
}

static void ulpt_case_srq(struct ulpt *t)
{
	static const size_t lens[] = { 1, 50, 100, 150, 200, 256 };
	struct ulpt_side *sa = &t->side[0], *sb = &t->side[1];
	struct xrdma_srq_attr sattr = {};
	struct ulpt_qp_opts o = {};
	struct xrdma_send_wr wr;
	struct ulpt_sgl ss, rs;
	struct ulpt_buf *lb, *rb;
	struct ulpt_q *qa, *qb;
	struct xrdma_srq *srq;
	struct xrdma_wc wc;
	unsigned int i;
	int ret;

	srq = ulpt_srq_create(t, sb, 16, min_t(u32, 2, sb->attr.max_srq_sge),
			      0);
	if (!srq)
		return;
	o.b_srq = srq;
	if (!ulpt_pair_bufs(t, &o, &qa, &qb, &lb, 512, &rb, 6 * 300))
		return;
	memset(rb->va, ULPT_CANARY, rb->size);
	ulpt_buf_to_dev(rb);
	for (i = 0; i < ARRAY_SIZE(lens); i++)
		if (!ulpt_srq_post(t, srq, rb, i * 300, 0xe00 + i))
			return;
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		memset(rb->va, ULPT_CANARY, rb->size);
		ulpt_buf_to_dev(rb);
		ulpt_sgl_build(&ss, lb, ulpt_lkey(sa), 0, lens[i], 1, 0);
		ulpt_sgl_fill(&ss, lb, 0xe10 + i);
		ulpt_buf_to_dev(lb);
		ulpt_wr(&wr, 0xe20 + i, XRDMA_WR_SEND, ss.sge, 1,
			XRDMA_SEND_SIGNALED);
		if (ulpt_post_send(t, qa, &wr) ||
		    !ulpt_expect(t, qa, false, wr.wr_id, XRDMA_WC_SUCCESS,
				 XRDMA_WC_SEND, NULL, "SEND to an SRQ QP") ||
		    !ulpt_expect(t, qb, true, 0xe00 + i, XRDMA_WC_SUCCESS,
				 XRDMA_WC_RECV, &wc, "SRQ receive") ||
		    !ULPT_OK(t, wc.byte_len == lens[i], "SRQ byte_len %u, want %zu",
			     wc.byte_len, lens[i]))
			return;
		ulpt_buf_to_cpu(rb);
		ulpt_sgl_build(&rs, rb, ulpt_lkey(sb), i * 300, lens[i], 1, 0);
		if (!ulpt_sgl_check(t, &rs, rb, 0xe10 + i, ULPT_CANARY,
				    "SRQ receive"))
			return;
	}
	/* the limit event: arm at 2, then go from 3 WQEs to 1 */
	sattr.srq_limit = 2;
	ret = xrdma_modify_srq(srq, &sattr, XRDMA_SRQ_LIMIT);
	if (!ULPT_OK(t, !ret, "modify_srq(limit 2): %d", ret))
		return;
	for (i = 0; i < 3; i++)
		if (!ulpt_srq_post(t, srq, rb, i * 300, 0xe30 + i))
			return;
	for (i = 0; i < 2; i++) {
		ulpt_wr(&wr, 0xe40 + i, XRDMA_WR_SEND, ss.sge, 1,
			XRDMA_SEND_SIGNALED);
		if (ulpt_post_send(t, qa, &wr) ||
		    !ulpt_expect(t, qa, false, wr.wr_id, XRDMA_WC_SUCCESS,
				 XRDMA_WC_SEND, NULL, "SEND") ||
		    !ulpt_expect(t, qb, true, 0xe30 + i, XRDMA_WC_SUCCESS,
				 XRDMA_WC_RECV, NULL, "SRQ receive"))
			return;
	}
	if (!ULPT_OK(t, ulpt_wait_count(&t->srq_ev[0][XRDMA_EVENT_SRQ_LIMIT_REACHED],
					1, ulpt_timeout_ms),
		     "no SRQ_LIMIT_REACHED event going below the limit"))
		return;
	ulpt_note(t, "6 receives through an SRQ in order, limit event");
}

/* ----------------------------------------------- bad opcode for type */

static void ulpt_case_err_qp_op(struct ulpt *t)
{
	struct ulpt_qp_opts o = { .type = XRDMA_QPT_UD };
	const struct xrdma_send_wr *bad = NULL;
	struct xrdma_send_wr wr;
	struct xrdma_sge sge;
	struct ulpt_q *qa, *qb;
	struct ulpt_buf *lb;
	int ret;

	if (!ulpt_pair_bufs(t, &o, &qa, &qb, &lb, 64, NULL, 0))
		return;
	ulpt_sge(&sge, ulpt_buf_dma(lb, 0), 8, ulpt_lkey(&t->side[0]));
	ulpt_wr_rdma(&wr, 0x0b0, XRDMA_WR_RDMA_WRITE, &sge, 1,
		     XRDMA_SEND_SIGNALED, 0x1000, 0x100);
	ret = xrdma_post_send(qa->qp, &wr, &bad);
	if (ret) {
		ULPT_OK(t, bad == &wr, "refused post: bad_wr not set");
		ulpt_note(t, "RDMA WRITE on UD refused at post: %d", ret);
		return;
	}
	if (ulpt_expect(t, qa, false, 0x0b0, XRDMA_WC_LOC_QP_OP_ERR, -1, NULL,
			"RDMA WRITE on a UD QP"))
		ulpt_note(t, "RDMA WRITE on UD: LOC_QP_OP_ERR");
}

/* a case of its own function; one of a function run over @arg */
#define ULPT_CASE(n) { .name = #n, .fn = ulpt_case_##n }
#define ULPT_CASE_OF(n, f, a) { .name = #n, .fn = ulpt_case_##f, .arg = &(a) }

const struct ulpt_case ulpt_cases[] = {
	ULPT_CASE_OF(send, send, ulpt_plain),
	ULPT_CASE_OF(send_imm, send, ulpt_imm),
	ULPT_CASE_OF(send_maxsge, send, ulpt_maxsge),
	ULPT_CASE_OF(write, write, ulpt_plain),
	ULPT_CASE_OF(write_imm, write, ulpt_imm),
	ULPT_CASE(read),
	ULPT_CASE(atomic_cas),
	ULPT_CASE(atomic_faa),
	ULPT_CASE(inline),
	ULPT_CASE(unsignaled),
	ULPT_CASE(fence),
	ULPT_CASE(ud),
	ULPT_CASE(ud_qkey),
	ULPT_CASE(gsi),
	ULPT_CASE(srq),
	ULPT_CASE(cq_notify),
	ULPT_CASE(cq_resize),
	ULPT_CASE(freg),
	ULPT_CASE(send_inv),
	ULPT_CASE(rnr_recover),
	ULPT_CASE(err_lkey),
	ULPT_CASE_OF(err_rkey, remote_err, ulpt_rc_rkey),
	ULPT_CASE_OF(err_bounds, remote_err, ulpt_rc_bounds),
	ULPT_CASE_OF(err_rights, remote_err, ulpt_rc_rights),
	ULPT_CASE_OF(err_atomic_align, remote_err, ulpt_rc_atomic_align),
	ULPT_CASE_OF(err_dest_rd_atomic, remote_err, ulpt_rc_dest_rd_atomic),
	ULPT_CASE_OF(err_rd_atomic, remote_err, ulpt_rc_rd_atomic),
	ULPT_CASE(err_len),
	ULPT_CASE(err_rnr),
	ULPT_CASE(err_retry),
	ULPT_CASE(err_stale_rkey),
	ULPT_CASE(err_qp_op),
	ULPT_CASE(err_state),
	ULPT_CASE(cq_overrun),
	ULPT_CASE(intruder),
};

const unsigned int ulpt_ncases = ARRAY_SIZE(ulpt_cases);
