// SPDX-License-Identifier: GPL-2.0
/*
 * xv_isolation: two processes on one device (default xnic0, port 1, GID
 * index 0), through the stock verbs API of whatever libibverbs.so.1 the
 * dynamic linker finds -- on xrdma, tools/lib/xverbs via scripts/xrdma-run
 * -- plus, for the handle and mmap checks, the raw uverbs ABI
 * (uapi/xrdma/xrdma-abi.h).  Built against the system's
 * <infiniband/verbs.h>.
 *
 * Process A, the victim (the parent), creates two RC QPs A1 <-> A2
 * connected to each other (loopback on the port), an MR M (64 KiB,
 * LOCAL_WRITE | REMOTE_READ | REMOTE_WRITE | REMOTE_ATOMIC -- atomic too,
 * so that the atomic attack is refused for the right reason) filled with a
 * known pattern, receives posted on A1 and A2, a UD QP AU with a Q_Key, and
 * some spare CQs (so that A holds mmap offsets B never gets).  It checks
 * that its own traffic works, then publishes over a pipe what an attacker
 * could know or guess: the QPNs of A1, A2 and AU, AU's Q_Key, M's address,
 * rkey and first 8 bytes, rkey guesses near the real one, its object
 * handles and its mmap offsets.
 *
 * Process B, the attacker (forked before A touches the device; it drops to
 * uid/gid 65534 when started as root, else it says so and stays), opens
 * the device itself and creates its own RC QP B1.  For every attack it
 * connects B1 (RESET -> INIT -> RTR -> RTS, dest_qp_num A1's or A2's QPN,
 * the port GID) and posts one WQE:
 *   SEND to A1, to A2; RDMA_WRITE_WITH_IMM and RDMA_WRITE to M with the
 *   real rkey through A1 and A2; RDMA_READ of M with the real rkey through
 *   A1 and A2; FETCH_AND_ADD and CMP_AND_SWP (compare = M's real first
 *   word) on M; WRITEs with guessed rkeys (real + 1, real - 1, the tag's
 *   top bit flipped, the next index) and a READ with one; a WRITE with a
 *   bad rkey (B's own MR's, and 0) meant to move A1 / A2 to ERR.
 * B is not the connected peer of A1 or A2, so (as on a real RNIC, which
 * drops a request from any QP but the connected one) each WQE must
 * complete with an error (any status but success; printed -- the model
 * answers a dropped request with RETRY_EXC_ERR), B's READ/atomic buffer
 * stays untouched, and after each attack A checks: M intact (compared
 * byte by byte with its pattern), no completion on any of A's CQs (no
 * receive consumed), A1 and A2 in RTS (ibv_query_qp), no async event on
 * A's context.  If one of these failed, A re-connects A1 <-> A2 and
 * restores M so that the next attack is judged on its own.
 *   A control first: the same WRs between two connected QPs of B's own
 *   succeed, so an attack that fails is refused, not malformed.
 *   Handles: on an fd of its own with a context, DESTROY of A's PD, MR,
 *   CQ and QP handle numbers, MODIFY_QP (to ERR), QUERY_QP and KICK of
 *   A1's handle fail (handles are per fd).
 *   mmap: A's mmap offsets (from A's /proc/self/maps) fail on B's verbs
 *   context fd (those B did not get itself), on a fresh context fd (but
 *   its doorbell page) and on an fd without a context.
 *   Keys: 16 MRs registered back to back do not have keys in arithmetic
 *   progression (a counter tag makes every key of a known index
 *   guessable).
 *   UD: B's UD QP sends to AU with a wrong Q_Key: B completes (the sender
 *   is not told), A receives nothing; with the right Q_Key the datagram is
 *   delivered (src_qp = B's QPN, GRH + payload) -- UD has no connection,
 *   the Q_Key is its only guard; this documents the semantics.
 *   Barrage: every attack again, back to back, A not repairing anything
 *   in between; then the same checks on A, and A's own traffic (SEND both
 *   ways into the first receive posted, WRITE, READ of M; data checked)
 *   still works.
 *
 * The processes take turns (B reports a step, A checks and answers), so
 * the output is one ordered log: "PASS who: check" / "FAIL who: check",
 * "# who: note" lines, and "# xv_isolation: N checks, F failed" last.
 * Waiting for a completion is bounded (-t, default 10 s) only so that a
 * lost one fails instead of hanging; a watchdog (-w, default 300 s) ends
 * a hung run.  Exit status 0 iff every check passed.
 *
 * Usage: xv_isolation [-d IBDEV] [-t WAIT_MS] [-w SECONDS] [-u UID]
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <infiniband/verbs.h>
#include <inttypes.h>
#include <poll.h>
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
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "xt_verbs.h"
#include <xrdma/xrdma-abi.h>
#include <xrdma/xnic-abi.h>

#define PORT		XT_PORT
#define GID_INDEX	XT_GID_INDEX
#define MLEN		65536
#define MSEED		0x4d4d
#define NRECV		8
#define SLOT		2048
#define QKEY_A		0x1a2b3c4du
#define QKEY_B		0x0b0b0b0bu
#define NSPARE		8
#define NKEYS		16
#define MAXMAPS		64
#define UD_LEN		256
#define UD_SEED		0x78
#define UD_IMM		0x15015u
#define ACCESS_ALL	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

static const char *dev_name = "xnic0";
static int wait_ms = 10000;
static uid_t b_uid = 65534;

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static union ibv_gid gid;
static enum ibv_mtu mtu;
static char devnode[96];

static FILE *rx, *tx;		/* the pipe from and to the other process */

/* ------------------------------------------------------------ output */

static void on_alarm(int sig)
{
	(void)sig;
	xt_watchdog_expired("xv_isolation: watchdog expired");
}

static const char *st(enum ibv_wc_status s)
{
	return ibv_wc_status_str(s);
}

/* ------------------------------------------------------------ device */

static bool open_device(void)
{
	struct ibv_port_attr pa;
	int fl;

	ctx = xt_open_device(dev_name, devnode, sizeof(devnode));
	if (!ctx)
		return false;
	if (ibv_query_port(ctx, PORT, &pa) || pa.state != IBV_PORT_ACTIVE) {
		xt_note("port %d not active", PORT);
		return false;
	}
	mtu = pa.active_mtu;
	if (ibv_query_gid(ctx, PORT, GID_INDEX, &gid)) {
		xt_note("no GID %d", GID_INDEX);
		return false;
	}
	pd = ibv_alloc_pd(ctx);
	if (!pd) {
		xt_note("ibv_alloc_pd: %s", strerror(errno));
		return false;
	}
	fl = fcntl(ctx->async_fd, F_GETFL);
	return fl >= 0 && !fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK);
}

static void close_device(void)
{
	if (pd && ibv_dealloc_pd(pd))
		xt_note("ibv_dealloc_pd failed");
	if (ctx && ibv_close_device(ctx))
		xt_note("ibv_close_device failed");
	pd = NULL;
	ctx = NULL;
}

/* ------------------------------------------------------------ CQ */

static void buf_free(struct xt_buf *b)
{
	if (xt_buf_free(b))
		xt_note("ibv_dereg_mr failed");
}

static bool poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	return xt_poll_one(cq, wc, wait_ms);
}

/* take every CQE there is now; the first one in @first; return the count */
static int drain(struct ibv_cq *cq, struct ibv_wc *first)
{
	struct ibv_wc wc;
	int n = 0;

	if (first)
		memset(first, 0, sizeof(*first));
	while (ibv_poll_cq(cq, 1, &wc) == 1) {
		if (!n && first)
			*first = wc;
		n++;
	}
	return n;
}

/* ------------------------------------------------------------ QPs */

static bool ep_new(struct xt_ep *e, enum ibv_qp_type type, int cqe)
{
	const struct ibv_qp_cap cap = {
		.max_send_wr = 32, .max_recv_wr = 2 * NRECV,
		.max_send_sge = 2, .max_recv_sge = 2,
	};

	return xt_ep_new(e, pd, type, cqe, &cap);
}

static void ep_free(struct xt_ep *e)
{
	if (e->qp && ibv_destroy_qp(e->qp))
		xt_note("ibv_destroy_qp failed");
	if (e->cq && ibv_destroy_cq(e->cq))
		xt_note("ibv_destroy_cq failed");
	e->qp = NULL;
	e->cq = NULL;
}

static int qp_reset(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

/* RESET/INIT -> INIT -> RTR -> RTS towards @dqpn on this port's GID */
static bool rc_connect(struct ibv_qp *qp, uint32_t dqpn, uint8_t timeout,
		       uint8_t retry_cnt, uint8_t rnr_retry)
{
	const struct xt_rc_opts o = {
		.timeout = timeout, .retry_cnt = retry_cnt,
		.rnr_retry = rnr_retry,
	};
	int ret = xt_rc_rts(qp, dqpn, &gid, mtu, &o);

	if (ret)
		xt_note("connecting QP %u to %u: %s", qp->qp_num, dqpn,
			strerror(ret));
	return !ret;
}

static bool ud_ready(struct ibv_qp *qp, uint32_t qkey)
{
	int ret = xt_ud_rts(qp, qkey);

	if (ret)
		xt_note("UD QP %u to RTS: %s", qp->qp_num, strerror(ret));
	return !ret;
}

/* ------------------------------------------------------------ posting */

struct wr {
	enum ibv_wr_opcode op;
	uint64_t wr_id;
	struct ibv_sge sg;
	uint64_t raddr;
	uint32_t rkey;
	uint32_t imm;		/* host order */
	uint64_t cmp_add, swap;
	struct ibv_ah *ah;	/* UD */
	uint32_t dqpn, qkey;	/* UD */
};

static int post(struct ibv_qp *qp, const struct wr *d)
{
	struct ibv_send_wr w, *bad = NULL;
	struct ibv_sge s = d->sg;
	int ret;

	memset(&w, 0, sizeof(w));
	w.wr_id = d->wr_id;
	w.opcode = d->op;
	w.send_flags = IBV_SEND_SIGNALED;
	w.sg_list = &s;
	w.num_sge = 1;
	w.imm_data = htobe32(d->imm);
	if (d->ah) {
		w.wr.ud.ah = d->ah;
		w.wr.ud.remote_qpn = d->dqpn;
		w.wr.ud.remote_qkey = d->qkey;
	} else if (d->op == IBV_WR_ATOMIC_CMP_AND_SWP ||
		   d->op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		w.wr.atomic.remote_addr = d->raddr;
		w.wr.atomic.rkey = d->rkey;
		w.wr.atomic.compare_add = d->cmp_add;
		w.wr.atomic.swap = d->swap;
	} else {
		w.wr.rdma.remote_addr = d->raddr;
		w.wr.rdma.rkey = d->rkey;
	}
	ret = ibv_post_send(qp, &w, &bad);
	if (ret)
		xt_note("ibv_post_send(op %d): %s", d->op, strerror(ret));
	return ret;
}

/* post @d on @e's QP and poll its CQE: true if it is @d's, a success */
static bool post_wait(struct xt_ep *e, const struct wr *d, struct ibv_wc *wc)
{
	return !post(e->qp, d) && poll_one(e->cq, wc) &&
	       wc->status == IBV_WC_SUCCESS && wc->wr_id == d->wr_id;
}

static int post_recv(struct ibv_qp *qp, uint64_t wr_id, struct ibv_sge s)
{
	struct ibv_recv_wr w = {
		.wr_id = wr_id, .sg_list = &s, .num_sge = 1,
	}, *bad = NULL;
	int ret = ibv_post_recv(qp, &w, &bad);

	if (ret)
		xt_note("ibv_post_recv: %s", strerror(ret));
	return ret;
}

/* ------------------------------------------------------------ mappings */

struct mapent {
	uint64_t off;
	uint64_t len;
};

/* this process's mappings of @path: offset and length of each */
static int read_maps(const char *path, struct mapent *m, int max)
{
	char line[512], file[256];
	unsigned long start, end;
	unsigned long long off;
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;

	if (!f)
		return -1;
	while (n < max && fgets(line, sizeof(line), f)) {
		file[0] = 0;
		if (sscanf(line, "%lx-%lx %*s %llx %*s %*s %255s", &start,
			   &end, &off, file) != 4 || strcmp(file, path))
			continue;
		m[n].off = off;
		m[n].len = end - start;
		n++;
	}
	fclose(f);
	return n;
}

/* ------------------------------------------------------------ the pipe */

__printf(1, 2)
static void msg_send(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(tx, fmt, ap);
	va_end(ap);
	fputc('\n', tx);
	fflush(tx);
}

static bool msg_recv(char *buf, size_t n)
{
	if (!fgets(buf, (int)n, rx))
		return false;
	buf[strcspn(buf, "\n")] = 0;
	return true;
}

/* the value of " KEY=" in @msg (strtoull base 0) */
static bool kv(const char *msg, const char *key, uint64_t *v)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(msg, pat);
	if (!p)
		return false;
	*v = strtoull(p + strlen(pat), NULL, 0);
	return true;
}

/* ============================================================ A: victim */

struct rq_pool {
	struct ibv_qp *qp;
	struct xt_buf *buf;
	uint64_t base, posted, done;
};

static struct xt_ep a1, a2, au;
static struct xt_buf m, r1, r2, ru, loc, wb;
static struct rq_pool p1, p2, pu;
static struct ibv_cq *spare[NSPARE];
static uint64_t pool_base = 0x1000;
static uint32_t a_seed = 100;

static bool pool_post(struct rq_pool *p)
{
	size_t slot = (size_t)(p->posted % NRECV) * SLOT;

	if (post_recv(p->qp, p->base + p->posted, xt_sge(p->buf, slot, SLOT)))
		return false;
	p->posted++;
	return true;
}

/* NRECV receives with wr_ids from a new base */
static bool pool_fill(struct rq_pool *p, struct ibv_qp *qp, struct xt_buf *b)
{
	int i;

	p->qp = qp;
	p->buf = b;
	p->base = pool_base;
	pool_base += 0x100;
	p->posted = 0;
	p->done = 0;
	for (i = 0; i < NRECV; i++)
		if (!pool_post(p))
			return false;
	return true;
}

static uint8_t *pool_slot(const struct rq_pool *p, uint64_t wr_id)
{
	return p->buf->p + (size_t)((wr_id - p->base) % NRECV) * SLOT;
}

/* a receive CQE: was it the oldest receive posted?  Post another one. */
static bool pool_take(struct rq_pool *p, const struct ibv_wc *wc)
{
	bool first = wc->wr_id == p->base + p->done;

	p->done++;
	pool_post(p);
	return first;
}

static bool a_connect(void)
{
	return rc_connect(a1.qp, a2.qp->qp_num, 14, 7, 7) &&
	       rc_connect(a2.qp, a1.qp->qp_num, 14, 7, 7) &&
	       pool_fill(&p1, a1.qp, &r1) && pool_fill(&p2, a2.qp, &r2);
}

/*
 * RESET, with the CQEs the device wrote before it (flushes of a QP that
 * went to ERR) polled in between and a second RESET after them: xverbs
 * does not clean a QP's CQEs from its CQ at RESET, and polling such a
 * stale CQE after the RESET moves the ring's consumer index past the
 * new producer index (post_recv then fails with ENOMEM).
 */
static bool reset_clean(struct xt_ep *e)
{
	bool ok = !qp_reset(e->qp);

	drain(e->cq, NULL);
	return !qp_reset(e->qp) && ok;
}

/* A1 <-> A2 from scratch: RESET, empty CQs, connected, receives posted */
static bool a_recover(void)
{
	return reset_clean(&a1) && reset_clean(&a2) && a_connect();
}

static bool au_recover(void)
{
	return reset_clean(&au) && ud_ready(au.qp, QKEY_A) &&
	       pool_fill(&pu, au.qp, &ru);
}

/* read every async event there is, waiting up to @ms; names into @s */
static int async_drain(int ms, char *s, size_t n)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event e;
	size_t used = 0;
	int cnt = 0;

	s[0] = 0;
	if (poll(&pfd, 1, ms) <= 0)
		return 0;
	while (!ibv_get_async_event(ctx, &e)) {
		if (used < n)
			used += (size_t)snprintf(s + used, n - used, "%s%s",
						 cnt ? ", " : "",
						 ibv_event_type_str(e.event_type));
		cnt++;
		ibv_ack_async_event(&e);
	}
	return cnt;
}

static bool a_setup(void)
{
	int i;

	if (!open_device() ||
	    !xt_buf_new(&m, pd, MLEN, ACCESS_ALL) ||
	    !xt_buf_new(&r1, pd, NRECV * SLOT, IBV_ACCESS_LOCAL_WRITE) ||
	    !xt_buf_new(&r2, pd, NRECV * SLOT, IBV_ACCESS_LOCAL_WRITE) ||
	    !xt_buf_new(&ru, pd, NRECV * SLOT, IBV_ACCESS_LOCAL_WRITE) ||
	    !xt_buf_new(&loc, pd, 65536, IBV_ACCESS_LOCAL_WRITE) ||
	    !xt_buf_new(&wb, pd, 65536, IBV_ACCESS_LOCAL_WRITE |
		      IBV_ACCESS_REMOTE_WRITE) ||
	    !ep_new(&a1, IBV_QPT_RC, 64) || !ep_new(&a2, IBV_QPT_RC, 64) ||
	    !ep_new(&au, IBV_QPT_UD, 64) || !a_connect() ||
	    !ud_ready(au.qp, QKEY_A) || !pool_fill(&pu, au.qp, &ru))
		return false;
	/* objects whose mmap offsets B's context never reaches */
	for (i = 0; i < NSPARE; i++) {
		spare[i] = ibv_create_cq(ctx, 16, NULL, NULL, 0);
		if (!spare[i])
			return false;
	}
	xt_pat_fill(m.p, MLEN, MSEED);
	return true;
}

static void a_teardown(void)
{
	int i;

	for (i = 0; i < NSPARE; i++)
		if (spare[i] && ibv_destroy_cq(spare[i]))
			xt_note("ibv_destroy_cq failed");
	ep_free(&au);
	ep_free(&a1);
	ep_free(&a2);
	buf_free(&m);
	buf_free(&r1);
	buf_free(&r2);
	buf_free(&ru);
	buf_free(&loc);
	buf_free(&wb);
	close_device();
}

/* a SEND from @s to @r lands in @r's oldest receive, data intact */
static bool a_send(struct xt_ep *s, struct xt_ep *r, struct rq_pool *rp,
		   size_t off, uint32_t len, const char *when, const char *dir)
{
	uint32_t seed = a_seed++;
	struct wr d = {
		.op = IBV_WR_SEND, .wr_id = 0xa000 + seed,
		.sg = xt_sge(&loc, off, len),
	};
	struct ibv_wc wc;
	bool sent, got, first = false, data = false;

	xt_pat_fill(loc.p + off, len, seed);
	sent = post_wait(s, &d, &wc);
	if (!sent)
		xt_note("SEND %s: %s", dir, st(wc.status));
	got = sent && poll_one(r->cq, &wc) && wc.status == IBV_WC_SUCCESS &&
	      wc.opcode == IBV_WC_RECV && wc.byte_len == len;
	if (got) {
		data = xt_pat_check(pool_slot(rp, wc.wr_id), len, seed) < 0;
		first = pool_take(rp, &wc);
	}
	return xt_check(sent && got && first && data,
		     "traffic %s: SEND %s completes, lands in the first receive posted (%s), data intact (%s)",
		     when, dir, got ? (first ? "yes" : "no") : "no receive",
		     data ? "yes" : "no");
}

/*
 * @op (RDMA WRITE or READ) of @len bytes from loc + @off by @e's QP to
 * the start of @rb, signaled: whether it completed; *@how says it
 */
static bool a_rdma(struct xt_ep *e, enum ibv_wr_opcode op, uint64_t wr_id,
		   size_t off, struct xt_buf *rb, uint32_t len,
		   const char **how)
{
	struct wr d = {
		.op = op, .wr_id = wr_id, .sg = xt_sge(&loc, off, len),
		.raddr = xt_va(rb, 0), .rkey = rb->mr->rkey,
	};
	struct ibv_wc wc;
	bool ok = post_wait(e, &d, &wc);

	*how = ok ? "ok" : st(wc.status);
	return ok;
}

/* A's own traffic: SEND both ways, WRITE, READ of M, data checked */
static void a_traffic(const char *when)
{
	uint32_t seed = a_seed++;
	const char *how;
	bool ok;

	a_send(&a1, &a2, &p2, 0, 1000, when, "A1->A2");
	a_send(&a2, &a1, &p1, 4096, 1500, when, "A2->A1");

	xt_pat_fill(loc.p + 8192, 8192, seed);
	memset(wb.p, 0, 8192);
	ok = a_rdma(&a1, IBV_WR_RDMA_WRITE, 0xb000 + seed, 8192, &wb, 8192,
		    &how);
	xt_check(ok && xt_pat_check(wb.p, 8192, seed) < 0 && !drain(a2.cq, NULL),
		 "traffic %s: RDMA WRITE A1->A2 completes (%s), data intact",
		 when, how);

	memset(loc.p + 16384, 0, 4096);
	ok = a_rdma(&a2, IBV_WR_RDMA_READ, 0xc000 + seed, 16384, &m, 4096,
		    &how);
	xt_check(ok && !memcmp(loc.p + 16384, m.p, 4096) &&
		 xt_pat_check(loc.p + 16384, 4096, MSEED) < 0,
		 "traffic %s: RDMA READ of M by its peer A2 completes (%s), data intact",
		 when, how);
}

/*
 * After one of B's steps: M intact, no completion on A's CQs, A1 and A2 in
 * RTS, no async event.  With @repair, undo what B did so that the next
 * step is judged on its own.
 */
static void a_after(const char *step, bool repair)
{
	int n1, n2, nu, s1, s2, nev;
	struct ibv_wc f1, f2, fu, *f;
	char evs[256];
	long off;

	off = xt_pat_check(m.p, MLEN, MSEED);
	n1 = drain(a1.cq, &f1);
	n2 = drain(a2.cq, &f2);
	nu = drain(au.cq, &fu);
	s1 = xt_qp_state(a1.qp);
	s2 = xt_qp_state(a2.qp);
	nev = async_drain(50, evs, sizeof(evs));
	f = n1 ? &f1 : n2 ? &f2 : &fu;

	if (off < 0)
		xt_check(true, "after %s: M intact", step);
	else
		xt_check(false, "after %s: M intact (changed at offset %ld)",
			 step, off);
	if (!(n1 + n2 + nu))
		xt_check(true, "after %s: no completion on A's CQs", step);
	else
		xt_check(false,
			 "after %s: no completion on A's CQs (A1 %d, A2 %d, AU %d; first: wr_id %#llx %s opcode %d src_qp %u byte_len %u)",
			 step, n1, n2, nu, (unsigned long long)f->wr_id,
			 st(f->status), f->opcode, f->src_qp, f->byte_len);
	xt_check(s1 == IBV_QPS_RTS && s2 == IBV_QPS_RTS,
		 "after %s: A1 %s, A2 %s (want RTS)", step, xt_qp_state_str(s1),
		 xt_qp_state_str(s2));
	xt_check(!nev, "after %s: no async event on A%s%s%s", step,
		 nev ? " (" : "", evs, nev ? ")" : "");

	if (!repair)
		return;
	if (off >= 0)
		xt_pat_fill(m.p, MLEN, MSEED);
	if (n1 || n2 || s1 != IBV_QPS_RTS || s2 != IBV_QPS_RTS) {
		if (!a_recover())
			xt_note("re-connecting A1 <-> A2 failed");
		else
			xt_note("re-connected A1 <-> A2 for the next step");
	}
	if (nu && !au_recover())
		xt_note("re-creating AU's receives failed");
}

/*
 * B's datagram with a wrong Q_Key: AU receives nothing.  Checked once B's
 * send completed: the model executes the responder's side before the
 * requester's completion (on a real network the drop could only be
 * missed, not invented).
 */
static void a_ud_bad(void)
{
	struct ibv_wc wc;
	int n = drain(au.cq, &wc);

	xt_check(!n, "UD, wrong Q_Key: AU receives nothing (%d CQEs%s%s)", n,
		 n ? ", first " : "", n ? st(wc.status) : "");
	if (n && !au_recover())
		xt_note("re-creating AU's receives failed");
}

/* B's datagram with the right Q_Key: delivered into AU's oldest receive */
static void a_ud_good(uint32_t bqpn)
{
	struct ibv_wc wc;
	bool polled, got, first = false, data = false;

	polled = poll_one(au.cq, &wc);
	got = polled && wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV;
	if (got) {
		data = wc.byte_len == 40 + UD_LEN &&
		       xt_pat_check(pool_slot(&pu, wc.wr_id) + 40, UD_LEN,
				    UD_SEED) < 0;
		first = pool_take(&pu, &wc);
	}
	xt_check(got && first && data && wc.src_qp == bqpn &&
		 (wc.wc_flags & IBV_WC_WITH_IMM) &&
		 wc.imm_data == htobe32(UD_IMM),
		 "UD, right Q_Key: AU receives B's datagram (UD has no connection; %s, src_qp %u == %u, byte_len %u == 40 + %d, first receive %s, imm, data; AU %s)",
		 polled ? st(wc.status) : "nothing", wc.src_qp, bqpn, wc.byte_len,
		 UD_LEN, first ? "yes" : "no", xt_qp_state_str(xt_qp_state(au.qp)));
}

static void a_publish(void)
{
	struct mapent mp[MAXMAPS];
	char msg[MAXMAPS * 40 + 512];
	size_t u;
	uint64_t m0;
	uint32_t k = m.mr->rkey;
	int i, n;

	memcpy(&m0, m.p, 8);
	u = (size_t)snprintf(msg, sizeof(msg),
			     "INFO a1=%u a2=%u au=%u qkey=%#x maddr=%#llx mlen=%d rkey=%#x m0=%#llx",
			     a1.qp->qp_num, a2.qp->qp_num, au.qp->qp_num,
			     QKEY_A, (unsigned long long)xt_va(&m, 0), MLEN, k,
			     (unsigned long long)m0);
	/* guesses: the tag + 1, - 1, its top bit flipped, the next index */
	u += (size_t)snprintf(msg + u, sizeof(msg) - u,
			      " g0=%#x g1=%#x g2=%#x g3=%#x",
			      (k & ~0xffu) | ((k + 1) & 0xff),
			      (k & ~0xffu) | ((k - 1) & 0xff), k ^ 0x80,
			      k + 0x100);
	u += (size_t)snprintf(msg + u, sizeof(msg) - u,
			      " hpd=%u hmr=%u hcq1=%u hcq2=%u ha1=%u ha2=%u hau=%u maps=",
			      pd->handle, m.mr->handle, a1.cq->handle,
			      a2.cq->handle, a1.qp->handle, a2.qp->handle,
			      au.qp->handle);
	n = read_maps(devnode, mp, MAXMAPS);
	for (i = 0; i < n && u < sizeof(msg); i++)
		u += (size_t)snprintf(msg + u, sizeof(msg) - u, "%s%#llx:%#llx",
				      i ? "," : "",
				      (unsigned long long)mp[i].off,
				      (unsigned long long)mp[i].len);
	xt_note("M at %#llx rkey %#x; A1 %u, A2 %u, AU %u; %d mappings of %s",
		(unsigned long long)xt_va(&m, 0), k, a1.qp->qp_num, a2.qp->qp_num,
		au.qp->qp_num, n, devnode);
	msg_send("%s", msg);
}

static int a_main(pid_t b)
{
	char buf[512];
	int bchecks = -1, bfails = -1, status = 0;
	uint64_t q;

	if (!xt_check(a_setup(), "setup: A1 <-> A2 connected, M registered, AU ready, %d spare CQs",
		      NSPARE)) {
		kill(b, SIGKILL);
		goto out;
	}
	a_traffic("before B's attacks");
	a_after("A's own traffic", true);
	a_publish();

	while (msg_recv(buf, sizeof(buf))) {
		if (sscanf(buf, "END %d %d", &bchecks, &bfails) == 2)
			break;
		if (!strncmp(buf, "STEP ", 5)) {
			a_after(buf + 5, true);
		} else if (!strncmp(buf, "UDBAD ", 6)) {
			a_ud_bad();
			a_after(buf + 6, true);
		} else if (!strncmp(buf, "UDGOOD ", 7) && kv(buf, "qpn", &q)) {
			a_ud_good((uint32_t)q);
			a_after("B's UD datagram", true);
		} else if (!strncmp(buf, "BARRAGE ", 8)) {
			a_after(buf + 8, false);
			a_traffic("after B's attacks");
		} else {
			xt_note("unexpected message from B: %s", buf);
		}
		msg_send("GO");
	}
out:
	fclose(tx);
	tx = NULL;
	if (waitpid(b, &status, 0) < 0)
		status = -1;
	if (bchecks < 0) {
		xt_check(false, "B reported its results (exit status %#x)",
			 status);
	} else {
		xt_add(bchecks, bfails);
		xt_check(WIFEXITED(status) && WEXITSTATUS(status) == (bfails != 0),
			 "B exited normally (status %#x)", status);
	}
	a_teardown();
	return xt_done();
}

/* ============================================================ B: attacker */

struct a_info {
	uint32_t a1, a2, au, qkey, rkey, mlen;
	uint64_t maddr, m0;
	uint32_t g[4];
	uint32_t hpd, hmr, hcq1, hcq2, ha1, ha2, hau;
	int nmaps;
	struct mapent maps[MAXMAPS];
};

static struct a_info ai;
static struct xt_ep b1, bu, c1, c2;	/* c1 <-> c2: B's own pair */
static struct xt_buf lb, tb;		/* B's local buffer, control target */
static struct ibv_ah *ah;

enum keykind { K_NONE, K_REAL, K_G0, K_G1, K_G2, K_G3, K_OWN, K_ZERO };

struct attack {
	const char *name;
	int to;			/* A1 or A2 */
	enum ibv_wr_opcode op;
	enum keykind key;
};

static const struct attack attacks[] = {
	{ "SEND to A1", 1, IBV_WR_SEND, K_NONE },
	{ "SEND to A2", 2, IBV_WR_SEND, K_NONE },
	{ "WRITE_WITH_IMM to M via A1, real rkey", 1,
	  IBV_WR_RDMA_WRITE_WITH_IMM, K_REAL },
	{ "WRITE to M via A1, real rkey", 1, IBV_WR_RDMA_WRITE, K_REAL },
	{ "WRITE to M via A2, real rkey", 2, IBV_WR_RDMA_WRITE, K_REAL },
	{ "READ of M via A1, real rkey", 1, IBV_WR_RDMA_READ, K_REAL },
	{ "READ of M via A2, real rkey", 2, IBV_WR_RDMA_READ, K_REAL },
	{ "FETCH_ADD on M via A1, real rkey", 1,
	  IBV_WR_ATOMIC_FETCH_AND_ADD, K_REAL },
	{ "CMP_SWP on M via A2, real rkey and value", 2,
	  IBV_WR_ATOMIC_CMP_AND_SWP, K_REAL },
	{ "WRITE to M via A1, guessed rkey (tag + 1)", 1, IBV_WR_RDMA_WRITE,
	  K_G0 },
	{ "WRITE to M via A1, guessed rkey (tag - 1)", 1, IBV_WR_RDMA_WRITE,
	  K_G1 },
	{ "WRITE to M via A1, guessed rkey (tag ^ 0x80)", 1,
	  IBV_WR_RDMA_WRITE, K_G2 },
	{ "WRITE to M via A1, guessed rkey (next index)", 1,
	  IBV_WR_RDMA_WRITE, K_G3 },
	{ "READ of M via A1, guessed rkey (tag + 1)", 1, IBV_WR_RDMA_READ,
	  K_G0 },
	{ "WRITE via A1, bad rkey (B's own MR), aimed at A1 -> ERR", 1,
	  IBV_WR_RDMA_WRITE, K_OWN },
	{ "WRITE via A2, bad rkey 0, aimed at A2 -> ERR", 2,
	  IBV_WR_RDMA_WRITE, K_ZERO },
};

static bool b_parse(const char *msg)
{
	static const struct {
		const char *key;
		uint32_t *v;
	} u32s[] = {
		{ "a1", &ai.a1 }, { "a2", &ai.a2 }, { "au", &ai.au },
		{ "qkey", &ai.qkey }, { "rkey", &ai.rkey }, { "mlen", &ai.mlen },
		{ "g0", &ai.g[0] }, { "g1", &ai.g[1] }, { "g2", &ai.g[2] },
		{ "g3", &ai.g[3] }, { "hpd", &ai.hpd }, { "hmr", &ai.hmr },
		{ "hcq1", &ai.hcq1 }, { "hcq2", &ai.hcq2 }, { "ha1", &ai.ha1 },
		{ "ha2", &ai.ha2 }, { "hau", &ai.hau },
	};
	const char *p;
	unsigned int i;
	uint64_t v;

	if (strncmp(msg, "INFO ", 5) || !kv(msg, "maddr", &ai.maddr) ||
	    !kv(msg, "m0", &ai.m0))
		return false;
	for (i = 0; i < ARRAY_SIZE(u32s); i++) {
		if (!kv(msg, u32s[i].key, &v))
			return false;
		*u32s[i].v = (uint32_t)v;
	}
	p = strstr(msg, " maps=");
	if (!p)
		return false;
	p += 6;
	while (*p && ai.nmaps < MAXMAPS) {
		char *e;

		ai.maps[ai.nmaps].off = strtoull(p, &e, 0);
		if (*e != ':')
			break;
		ai.maps[ai.nmaps].len = strtoull(e + 1, &e, 0);
		ai.nmaps++;
		if (*e != ',')
			break;
		p = e + 1;
	}
	return true;
}

static bool b_wait_go(void)
{
	char buf[64];

	if (!msg_recv(buf, sizeof(buf)) || strcmp(buf, "GO")) {
		xt_note("A did not answer");
		return false;
	}
	return true;
}

/* B1 from whatever state to RTS towards @dqpn, its CQ empty */
static bool b_connect(uint32_t dqpn)
{
	bool ok = !qp_reset(b1.qp);

	drain(b1.cq, NULL);
	/* few, short retries: a dropped request fails in milliseconds */
	return ok && rc_connect(b1.qp, dqpn, 10, 2, 1);
}

static uint32_t b_key(enum keykind k)
{
	switch (k) {
	case K_REAL:
		return ai.rkey;
	case K_G0:
	case K_G1:
	case K_G2:
	case K_G3:
		return ai.g[k - K_G0];
	case K_OWN:
		return lb.mr->rkey;
	default:
		return 0;
	}
}

/* the WR of an attack (or of the control, towards @raddr/@rkey) */
static struct wr b_wr(enum ibv_wr_opcode op, uint64_t raddr, uint32_t rkey,
		      uint64_t wr_id)
{
	struct wr d = {
		.op = op, .wr_id = wr_id, .raddr = raddr, .rkey = rkey,
	};

	switch (op) {
	case IBV_WR_SEND:
		d.sg = xt_sge(&lb, 0, 256);
		break;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		d.sg = xt_sge(&lb, 0, 4096);
		d.raddr += 4096;
		d.imm = 0xbad;
		break;
	case IBV_WR_RDMA_READ:
		d.sg = xt_sge(&lb, 8192, 4096);
		memset(lb.p + 8192, 0x5a, 4096);
		break;
	default:	/* atomics */
		d.sg = xt_sge(&lb, 16384, 8);
		memset(lb.p + 16384, 0x5a, 8);
		d.cmp_add = op == IBV_WR_ATOMIC_CMP_AND_SWP ? ai.m0 : 1;
		d.swap = 0xdeadbeefdeadbeefull;
		break;
	}
	return d;
}

/* B's buffer of a READ or atomic still holds what B put there */
static bool b_untouched(enum ibv_wr_opcode op)
{
	if (op == IBV_WR_RDMA_READ)
		return xt_all_bytes(lb.p + 8192, 4096, 0x5a);
	if (op == IBV_WR_ATOMIC_CMP_AND_SWP ||
	    op == IBV_WR_ATOMIC_FETCH_AND_ADD)
		return xt_all_bytes(lb.p + 16384, 8, 0x5a);
	return true;
}

static bool b_reads(enum ibv_wr_opcode op)
{
	return op == IBV_WR_RDMA_READ || op == IBV_WR_ATOMIC_CMP_AND_SWP ||
	       op == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

/*
 * Run one attack; with @report print its checks.  Return: whether it
 * was refused (an error completion, B's buffer untouched).
 */
static bool b_attack(const struct attack *at, bool report)
{
	uint32_t dqpn = at->to == 1 ? ai.a1 : ai.a2;
	struct wr d;
	struct ibv_wc wc;
	bool got, err, clean;

	if (!b_connect(dqpn)) {
		if (report)
			xt_check(false, "%s: connect B1 to A%d (QPN %u)",
				 at->name, at->to, dqpn);
		return false;
	}
	memset(lb.p, 0xbb, 4096);
	d = b_wr(at->op, ai.maddr, b_key(at->key), 0xe000);
	got = !post(b1.qp, &d) && poll_one(b1.cq, &wc) && wc.wr_id == d.wr_id;
	err = got && wc.status != IBV_WC_SUCCESS;
	clean = b_untouched(at->op);
	if (report) {
		xt_check(err, "%s: B's WQE completes with an error (%s)", at->name,
			 got ? st(wc.status) : "no completion");
		if (b_reads(at->op))
			xt_check(clean, "%s: B's buffer got nothing", at->name);
	}
	return err && clean;
}

/* the attack WRs between B's own connected QPs succeed */
static void b_control(void)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_SEND, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_READ, IBV_WR_ATOMIC_FETCH_AND_ADD,
		IBV_WR_ATOMIC_CMP_AND_SWP,
	};
	char bad[128] = "";
	struct ibv_wc wc;
	unsigned int i;
	size_t used = 0;
	bool ok;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		struct wr d = b_wr(ops[i], xt_va(&tb, 0), tb.mr->rkey, 0xf000 + i);

		memset(lb.p, 0xbb, 4096);
		ok = !post_recv(c2.qp, 0xf100 + i, xt_sge(&tb, 32768, 4096)) &&
		     post_wait(&c1, &d, &wc);
		if (ok && ops[i] == IBV_WR_RDMA_READ)
			ok = !memcmp(lb.p + 8192, tb.p + 0, 4096);
		if (!ok && used < sizeof(bad))
			used += (size_t)snprintf(bad + used, sizeof(bad) - used,
						 " op %d", ops[i]);
		/* SEND and WRITE_WITH_IMM consume the receive (else it stays) */
		if (ops[i] == IBV_WR_SEND || ops[i] == IBV_WR_RDMA_WRITE_WITH_IMM)
			poll_one(c2.cq, &wc);
	}
	xt_check(!used,
		 "control: the attack WRs (SEND, WRITE_WITH_IMM, WRITE, READ, FETCH_ADD, CMP_SWP) between B's own connected QPs succeed%s",
		 bad);
}

/* DESTROY/MODIFY_QP/QUERY_QP/KICK on A's handle numbers from B's own fd */
static void b_handles(int fd)
{
	const struct { uint32_t type, h; const char *n; } objs[] = {
		{ XRDMA_OBJ_PD, ai.hpd, "PD" },
		{ XRDMA_OBJ_MR, ai.hmr, "MR" },
		{ XRDMA_OBJ_CQ, ai.hcq1, "CQ1" },
		{ XRDMA_OBJ_CQ, ai.hcq2, "CQ2" },
		{ XRDMA_OBJ_QP, ai.ha1, "A1" },
		{ XRDMA_OBJ_QP, ai.ha2, "A2" },
		{ XRDMA_OBJ_QP, ai.hau, "AU" },
	};
	struct xrdma_cmd_modify_qp mq = {
		.qp_handle = ai.ha1, .attr_mask = IBV_QP_STATE,
		.attr = { .qp_state = IBV_QPS_ERR },
	};
	struct xrdma_cmd_query_qp qq = {
		.qp_handle = ai.ha1, .attr_mask = IBV_QP_STATE,
	};
	struct xrdma_cmd_kick kq = { .qp_handle = ai.ha1 };
	char bad[256] = "", errs[256] = "";
	size_t ub = 0, ue = 0;
	unsigned int i, j, n = 0;
	int r[ARRAY_SIZE(objs) + 3], e[ARRAY_SIZE(objs) + 3];
	const char *what[ARRAY_SIZE(objs) + 3];

	for (i = 0; i < ARRAY_SIZE(objs); i++) {
		struct xrdma_cmd_destroy d = {
			.type = objs[i].type, .handle = objs[i].h,
		};

		r[n] = ioctl(fd, XRDMA_IOC_DESTROY, &d);
		e[n] = errno;
		what[n++] = objs[i].n;
	}
	r[n] = ioctl(fd, XRDMA_IOC_MODIFY_QP, &mq);
	e[n] = errno;
	what[n++] = "MODIFY_QP(A1, ERR)";
	r[n] = ioctl(fd, XRDMA_IOC_QUERY_QP, &qq);
	e[n] = errno;
	what[n++] = "QUERY_QP(A1)";
	r[n] = ioctl(fd, XRDMA_IOC_KICK, &kq);
	e[n] = errno;
	what[n++] = "KICK(A1)";
	for (i = 0; i < n; i++) {
		if (!r[i]) {
			if (ub < sizeof(bad))
				ub += (size_t)snprintf(bad + ub, sizeof(bad) - ub,
						       " %s", what[i]);
			continue;
		}
		for (j = 0; j < i && (!r[j] || e[j] != e[i]); j++)
			;
		if (j == i && ue < sizeof(errs))
			ue += (size_t)snprintf(errs + ue, sizeof(errs) - ue,
					       "%s%s", ue ? " " : "",
					       xt_errname(e[i]));
	}
	xt_check(!ub,
		 "handles: DESTROY of A's PD/MR/CQ/QP handle numbers, MODIFY_QP, QUERY_QP, KICK of A1's, from B's own fd, fail (%s)%s%s",
		 errs, ub ? "; succeeded:" : "", bad);
}

static bool in_maps(const struct mapent *mp, int n, uint64_t off)
{
	int i;

	for (i = 0; i < n; i++)
		if (mp[i].off == off)
			return true;
	return false;
}

/* mmap each of A's offsets but @skip on @fd: each must fail */
static void b_mmap_fd(int fd, const char *what, const struct mapent *skip,
		      int nskip)
{
	char errs[128] = "", bad[128] = "";
	size_t ue = 0, ub = 0;
	int i, tried = 0, last = 0;

	for (i = 0; i < ai.nmaps; i++) {
		const struct mapent *a = &ai.maps[i];
		void *p;

		if (in_maps(skip, nskip, a->off))
			continue;
		tried++;
		p = mmap(NULL, a->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 (off_t)a->off);
		if (p != MAP_FAILED) {
			munmap(p, a->len);
			if (ub < sizeof(bad))
				ub += (size_t)snprintf(bad + ub, sizeof(bad) - ub,
						       " %#llx",
						       (unsigned long long)a->off);
		} else if (errno != last && ue < sizeof(errs)) {
			last = errno;
			ue += (size_t)snprintf(errs + ue, sizeof(errs) - ue,
					       "%s%s", ue ? " " : "",
					       xt_errname(errno));
		}
	}
	xt_check(tried > 0 && !ub, "mmap: %d of A's %d offsets on %s fail (%s)%s%s",
		 tried, ai.nmaps, what, errs, ub ? "; mapped:" : "", bad);
}

static void b_mmap(int rawfd, uint64_t rawdb)
{
	struct mapent own[MAXMAPS], db = { .off = rawdb };
	int n, fd;

	n = read_maps(devnode, own, MAXMAPS);
	if (n < 0)
		n = 0;
	xt_note("%d mappings of its own, A has %d", n, ai.nmaps);
	b_mmap_fd(ctx->cmd_fd, "B's verbs context fd (offsets B did not get)",
		  own, n);
	b_mmap_fd(rawfd, "a fresh context fd (but its doorbell page)", &db, 1);
	fd = open(devnode, O_RDWR | O_CLOEXEC);
	if (!xt_check(fd >= 0, "mmap: open %s as B: %s", devnode,
		      fd >= 0 ? "ok" : strerror(errno)))
		return;
	b_mmap_fd(fd, "an fd without a context", NULL, 0);
	close(fd);
}

/*
 * 16 MRs back to back: their keys are not an arithmetic progression.  Each
 * on a page of its own: a debug kernel's DMA-API checks refuse more than 7
 * mappings of one cacheline.
 */
static void b_keys(void)
{
	struct ibv_mr *mr[NKEYS];
	uint32_t k[NKEYS];
	int i, n, same = 0;
	char *pages = mmap(NULL, NKEYS * 4096, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (!xt_check(pages != MAP_FAILED, "keys: map %d pages", NKEYS))
		return;
	for (n = 0; n < NKEYS; n++) {
		mr[n] = ibv_reg_mr(pd, pages + n * 4096, 4096,
				   IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE);
		if (!mr[n])
			break;
		k[n] = mr[n]->rkey;
	}
	for (i = 2; i < n; i++)
		if (k[i] - k[i - 1] == k[1] - k[0])
			same++;
	xt_check(n == NKEYS && same < NKEYS - 2,
		 "keys: %d MRs registered back to back do not have keys in arithmetic progression (%#x %#x %#x %#x ...: %d of %d steps of %#x)",
		 n, n > 0 ? k[0] : 0, n > 1 ? k[1] : 0, n > 2 ? k[2] : 0,
		 n > 3 ? k[3] : 0, same + 1, NKEYS - 1,
		 n > 1 ? k[1] - k[0] : 0);
	for (i = 0; i < n; i++)
		if (ibv_dereg_mr(mr[i]))
			xt_note("ibv_dereg_mr failed");
	munmap(pages, NKEYS * 4096);
}

static bool b_ud_send(uint32_t qkey, uint32_t imm, struct ibv_wc *wc)
{
	struct wr d = {
		.op = IBV_WR_SEND_WITH_IMM, .wr_id = 0xd000 + imm,
		.sg = xt_sge(&lb, 0, UD_LEN), .imm = imm, .ah = ah,
		.dqpn = ai.au, .qkey = qkey,
	};

	xt_pat_fill(lb.p, UD_LEN, UD_SEED);
	return !post(bu.qp, &d) && poll_one(bu.cq, wc) &&
	       wc->wr_id == d.wr_id;
}

static bool b_setup(void)
{
	struct ibv_ah_attr aa = {
		.is_global = 1,
		.grh = { .sgid_index = GID_INDEX, .hop_limit = 64 },
		.port_num = PORT,
	};

	if (!open_device() ||
	    !xt_buf_new(&lb, pd, 65536, ACCESS_ALL) ||
	    !xt_buf_new(&tb, pd, 65536, ACCESS_ALL) ||
	    !ep_new(&b1, IBV_QPT_RC, 64) || !ep_new(&bu, IBV_QPT_UD, 64) ||
	    !ep_new(&c1, IBV_QPT_RC, 64) || !ep_new(&c2, IBV_QPT_RC, 64) ||
	    !rc_connect(c1.qp, c2.qp->qp_num, 14, 7, 7) ||
	    !rc_connect(c2.qp, c1.qp->qp_num, 14, 7, 7) ||
	    !ud_ready(bu.qp, QKEY_B))
		return false;
	aa.grh.dgid = gid;	/* known once the device is open */
	ah = ibv_create_ah(pd, &aa);
	return ah;
}

static void b_teardown(void)
{
	if (ah && ibv_destroy_ah(ah))
		xt_note("ibv_destroy_ah failed");
	ep_free(&b1);
	ep_free(&bu);
	ep_free(&c1);
	ep_free(&c2);
	buf_free(&lb);
	buf_free(&tb);
	close_device();
}

/* a context of B's own through the raw ABI: its fd, its doorbell offset */
static int b_raw_context(uint64_t *db)
{
	struct xnic_ucontext_resp resp = { 0 };
	struct xrdma_cmd_get_context gc = { 0 };
	int fd = open(devnode, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -1;
	gc.udata.out = (uintptr_t)&resp;
	gc.udata.out_len = sizeof(resp);
	if (ioctl(fd, XRDMA_IOC_GET_CONTEXT, &gc)) {
		xt_note("GET_CONTEXT: %s", strerror(errno));
		close(fd);
		return -1;
	}
	*db = resp.db_page_offset;
	return fd;
}

static void b_body(void)
{
	unsigned int i, refused = 0;
	struct ibv_wc wc;
	uint64_t rawdb = 0;
	int rawfd;
	bool ok;

	b_control();
	for (i = 0; i < ARRAY_SIZE(attacks); i++) {
		b_attack(&attacks[i], true);
		msg_send("STEP B's %s", attacks[i].name);
		if (!b_wait_go())
			return;
	}

	rawfd = b_raw_context(&rawdb);
	if (xt_check(rawfd >= 0, "handles: a context of B's own on a new fd")) {
		b_handles(rawfd);
		b_mmap(rawfd, rawdb);
		close(rawfd);
	}
	msg_send("STEP B's handle and mmap attempts");
	if (!b_wait_go())
		return;

	b_keys();

	ok = b_ud_send(ai.qkey ^ 1, 1, &wc);
	xt_check(ok && wc.status == IBV_WC_SUCCESS,
		 "UD, wrong Q_Key: B's SEND completes at B, the sender is not told (%s)",
		 ok ? st(wc.status) : "no completion");
	msg_send("UDBAD B's UD datagram with a wrong Q_Key");
	if (!b_wait_go())
		return;
	ok = b_ud_send(ai.qkey, UD_IMM, &wc);
	xt_check(ok && wc.status == IBV_WC_SUCCESS,
		 "UD, right Q_Key: B's SEND completes (%s)",
		 ok ? st(wc.status) : "no completion");
	msg_send("UDGOOD qpn=%u", bu.qp->qp_num);
	if (!b_wait_go())
		return;

	for (i = 0; i < ARRAY_SIZE(attacks); i++)
		refused += b_attack(&attacks[i], false);
	xt_check(refused == ARRAY_SIZE(attacks),
		 "barrage: %u of %zu attacks back to back refused (error completion, nothing read)",
		 refused, ARRAY_SIZE(attacks));
	msg_send("BARRAGE the barrage of all %zu attacks",
		 ARRAY_SIZE(attacks));
	b_wait_go();
}

static int b_main(void)
{
	char buf[4096];
	bool ok;

	xt_init("xv_isolation", "B");
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getuid() == 0) {
		if (setgroups(0, NULL) || setgid(b_uid) || setuid(b_uid))
			xt_note("cannot drop to uid %u: %s; B runs as uid 0 like A",
				b_uid, strerror(errno));
	}
	xt_note("attacker runs as uid %u gid %u", getuid(), getgid());
	if (!msg_recv(buf, sizeof(buf)) || !b_parse(buf)) {
		xt_note("no INFO from A");
		return 1;
	}
	ok = xt_check(b_setup(), "setup: B1, a UD QP, B's own pair c1 <-> c2 on %s",
		      dev_name);
	if (ok)
		b_body();
	b_teardown();
	msg_send("END %d %d", xt_count(), xt_failed());
	return xt_failed() ? 1 : 0;
}

/* ------------------------------------------------------------ main */

static void help(void)
{
	fprintf(stderr, "%s\n",
		"usage: xv_isolation [-d IBDEV] [-t WAIT_MS] [-w SECONDS] [-u UID]");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned int wd = 300;
	int ab[2], ba[2];
	pid_t pid;
	int c;

	while ((c = getopt(argc, argv, "d:t:w:u:")) != -1) {
		if (c == 'u')
			b_uid = (uid_t)atoi(optarg);
		else if (!xt_verbs_opt(c, optarg, &dev_name, &wait_ms, &wd))
			help();
	}
	if (wait_ms <= 0)
		help();
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, on_alarm);
	signal(SIGPIPE, SIG_IGN);

	/* B is forked before A touches the device: it inherits nothing */
	if (pipe(ab) || pipe(ba)) {
		perror("pipe");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 2;
	}
	if (!pid) {
		close(ab[1]);
		close(ba[0]);
		rx = fdopen(ab[0], "r");
		tx = fdopen(ba[1], "w");
		alarm(wd);
		return rx && tx ? b_main() : 2;
	}
	xt_init("xv_isolation", "A");
	close(ab[0]);
	close(ba[1]);
	rx = fdopen(ba[0], "r");
	tx = fdopen(ab[1], "w");
	alarm(wd);
	if (!rx || !tx)
		return 2;
	xt_note("victim runs as uid %u, attacker is pid %d", getuid(), pid);
	return a_main(pid);
}
