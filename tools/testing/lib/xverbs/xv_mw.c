// SPDX-License-Identifier: GPL-2.0
/*
 * xv_mw: memory windows through xrdma's libibverbs.so.1 (run with
 * scripts/xrdma-run; guest test tools/testing/lib/xverbs/xverbs_mw.sh).
 *
 * Every subtest connects two RC QPs of one device in loopback: "a" is the
 * requester, "b" the responder whose memory the windows expose.  Type 2B
 * windows are bound on b's QP (IBV_WR_BIND_MW or ibv_wr_bind_mw) and then
 * serve only that QP; type 1 windows are bound with ibv_bind_mw and serve
 * every QP of their PD.  Checked: data through RDMA WRITE, READ and both
 * atomics via a window's rkey (zero based too), the window's bounds and
 * rights, LOCAL_INV and SEND_WITH_INV of a window (the receive's
 * invalidated rkey), rebinding with a new tag (type 1: random, never
 * the current one), LOCAL_WRITE in a bind ignored, every bind error
 * completion (IBV_WC_MW_BIND_ERR: MR without MW_BIND, range outside the
 * MR, window or MR of another PD, type 2 window already bound, remote
 * write on an MR without local write), the remote errors
 * (IBV_WC_REM_ACCESS_ERR: unbound, invalidated, out of range, missing
 * right, another QP, stale tag), the calls' errno (type 1 through
 * post_send, type 2 through ibv_bind_mw, zero-based type 1, a UD QP, no
 * MR), dereg of an MR with bound windows (EBUSY), and the ALLOC_MW ioctl
 * with bad arguments.  With -r, the core's resources file counts the
 * windows.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <infiniband/verbs.h>
#include <xrdma/xrdma-abi.h>
#include "xt.h"
#include "xt_verbs.h"

#define BUF_LEN		(4 * 4096)
#define WIN_OFF		4096		/* the window: 2 pages of the MR */
#define WIN_LEN		8192
#define WAIT_MS		5000
#define ACC_MR		(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC | \
			 IBV_ACCESS_MW_BIND)
#define ACC_WIN		(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
			 IBV_ACCESS_REMOTE_ATOMIC)

static const char *dev_name = "xnic0";
static const char *res_path;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static union ibv_gid gid;

struct pair {
	struct xt_ep a, b;
	struct xt_buf la, rb;		/* a's local buffer, b's exposed one */
};

static const struct ibv_qp_cap qcap = {
	.max_send_wr = 16, .max_recv_wr = 16,
	.max_send_sge = 1, .max_recv_sge = 1,
};

/* b's QP made by ibv_create_qp_ex with the BIND_MW send op */
static bool ep_new_ex(struct xt_ep *e)
{
	struct ibv_qp_init_attr_ex ax = { 0 };

	memset(e, 0, sizeof(*e));
	e->cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!e->cq)
		return false;
	ax.qp_type = IBV_QPT_RC;
	ax.send_cq = e->cq;
	ax.recv_cq = e->cq;
	ax.cap = qcap;
	ax.pd = pd;
	ax.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	ax.send_ops_flags = IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_SEND;
	e->qp = ibv_create_qp_ex(ctx, &ax);
	if (!e->qp)
		xt_note("ibv_create_qp_ex: %s", strerror(errno));
	return e->qp;
}

static bool pair_new_pd(struct pair *p, struct ibv_pd *bpd, int rb_access,
			bool ex)
{
	memset(p, 0, sizeof(*p));
	if (!xt_ep_new(&p->a, pd, IBV_QPT_RC, 64, &qcap))
		return false;
	if (ex ? !ep_new_ex(&p->b) : !xt_ep_new(&p->b, bpd, IBV_QPT_RC, 64,
						&qcap))
		return false;
	if (xt_rc_rts(p->a.qp, p->b.qp->qp_num, &gid, IBV_MTU_1024, NULL) ||
	    xt_rc_rts(p->b.qp, p->a.qp->qp_num, &gid, IBV_MTU_1024, NULL))
		return false;
	return xt_buf_new(&p->la, pd, BUF_LEN, IBV_ACCESS_LOCAL_WRITE) &&
	       xt_buf_new(&p->rb, bpd, BUF_LEN, rb_access);
}

/* a connected pair and its buffers, or the subtest ends */
static void pair_new(struct pair *p, int rb_access)
{
	if (!pair_new_pd(p, pd, rb_access, false))
		xt_bail(0, "a connected RC pair with buffers");
}

static void ep_free(struct xt_ep *e)
{
	if (e->qp)
		CHECK_RC(-ibv_destroy_qp(e->qp), 0, "QP destroyed");
	if (e->cq)
		CHECK_RC(-ibv_destroy_cq(e->cq), 0, "CQ destroyed");
}

static void pair_free(struct pair *p)
{
	ep_free(&p->a);
	ep_free(&p->b);
	if (p->la.mr)
		CHECK_RC(-xt_buf_free(&p->la), 0, "local MR deregistered");
	if (p->rb.mr)
		CHECK_RC(-xt_buf_free(&p->rb), 0, "exposed MR deregistered");
}

/* the completion of the one WQE posted on @e: its status, or -1 */
static int wait_wc(struct xt_ep *e, enum ibv_wc_opcode op, struct ibv_wc *wc)
{
	struct ibv_wc w;

	if (!wc)
		wc = &w;
	if (!xt_poll_one(e->cq, wc, WAIT_MS)) {
		xt_note("no completion on QP %u", e->qp->qp_num);
		return -1;
	}
	if (wc->status == IBV_WC_SUCCESS && wc->opcode != op)
		xt_note("completion opcode %d, not %d", wc->opcode, op);
	return wc->status == IBV_WC_SUCCESS && wc->opcode != op ?
	       -1 : (int)wc->status;
}

/* post a type 2 bind on @e's QP; the completion's status (or -1) */
static int bind2(struct xt_ep *e, struct ibv_mw *mw, uint32_t rkey,
		 struct ibv_mr *mr, uint64_t addr, uint64_t len,
		 unsigned int access)
{
	struct ibv_send_wr wr = {
		.wr_id = 0xb1d, .opcode = IBV_WR_BIND_MW,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	int ret;

	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info.mr = mr;
	wr.bind_mw.bind_info.addr = addr;
	wr.bind_mw.bind_info.length = len;
	wr.bind_mw.bind_info.mw_access_flags = access;
	ret = ibv_post_send(e->qp, &wr, &bad);
	if (ret) {
		xt_note("post BIND_MW: %s", strerror(ret));
		return -1;
	}
	return wait_wc(e, IBV_WC_BIND_MW, NULL);
}

/* bind a type 2 window with a new tag over b's window range */
static int bind2_win(struct pair *p, struct ibv_mw *mw, unsigned int access)
{
	uint32_t rkey = ibv_inc_rkey(mw->rkey);
	int st = bind2(&p->b, mw, rkey, p->rb.mr, xt_va(&p->rb, WIN_OFF),
		       WIN_LEN, access);

	if (!st)
		mw->rkey = rkey;
	return st;
}

/* one RDMA or atomic WQE from a's buffer at @loff; its status (or -1) */
static int rdma(struct pair *p, enum ibv_wr_opcode op, size_t loff,
		uint32_t len, uint32_t rkey, uint64_t raddr, uint64_t cmp_add,
		uint64_t swap)
{
	static const enum ibv_wc_opcode wcop[] = {
		[IBV_WR_RDMA_WRITE] = IBV_WC_RDMA_WRITE,
		[IBV_WR_RDMA_READ] = IBV_WC_RDMA_READ,
		[IBV_WR_ATOMIC_CMP_AND_SWP] = IBV_WC_COMP_SWAP,
		[IBV_WR_ATOMIC_FETCH_AND_ADD] = IBV_WC_FETCH_ADD,
	};
	struct ibv_sge sge = xt_sge(&p->la, loff, len);
	struct ibv_send_wr wr = {
		.wr_id = 7, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	int ret;

	if (op == IBV_WR_RDMA_WRITE || op == IBV_WR_RDMA_READ) {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	} else {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = cmp_add;
		wr.wr.atomic.swap = swap;
	}
	ret = ibv_post_send(p->a.qp, &wr, &bad);
	if (ret) {
		xt_note("post opcode %d: %s", op, strerror(ret));
		return -1;
	}
	return wait_wc(&p->a, wcop[op], NULL);
}

static int write_at(struct pair *p, uint32_t rkey, uint64_t raddr,
		    uint32_t len)
{
	return rdma(p, IBV_WR_RDMA_WRITE, 0, len, rkey, raddr, 0, 0);
}

/* the status of a WQE refused by the responder: REM_ACCESS_ERR */
static void want_rem_access(int st, const char *what)
{
	CHECK_EQ(st, IBV_WC_REM_ACCESS_ERR, "%s: REM_ACCESS_ERR", what);
}

static struct ibv_mw *mw_new(struct ibv_pd *in, enum ibv_mw_type type)
{
	struct ibv_mw *mw = ibv_alloc_mw(in, type);

	if (!mw)
		xt_bail(errno, "ibv_alloc_mw(type %d)", type);
	return mw;
}

static void mw_free(struct ibv_mw *mw)
{
	CHECK_RC(-ibv_dealloc_mw(mw), 0, "window deallocated");
}

/* the count of @type in the core's resources file, or -1 */
static long res_count(const char *type)
{
	char line[128], name[32];
	unsigned long n;
	long r = -1;
	FILE *f;

	f = fopen(res_path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%31s %lu", name, &n) == 2 &&
		    !strcmp(name, type) && !strchr(line + strlen(name) + 1, ' ')) {
			r = (long)n;
			break;
		}
	fclose(f);
	return r;
}

/* ------------------------------------------------------------ subtests */

static void t_caps(void)
{
	struct ibv_device_attr a;
	struct ibv_mw *m1, *m2;

	if (!CHECK_RC(-ibv_query_device(ctx, &a), 0, "ibv_query_device"))
		return;
	CHECK(a.device_cap_flags & IBV_DEVICE_MEM_WINDOW,
	      "IBV_DEVICE_MEM_WINDOW reported");
	CHECK(a.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B,
	      "IBV_DEVICE_MEM_WINDOW_TYPE_2B reported");
	CHECK(a.max_mw > 0, "max_mw %d > 0", a.max_mw);
	m1 = mw_new(pd, IBV_MW_TYPE_1);
	m2 = mw_new(pd, IBV_MW_TYPE_2);
	CHECK(m1->type == IBV_MW_TYPE_1 && m2->type == IBV_MW_TYPE_2 &&
	      m1->pd == pd && m2->pd == pd && m1->context == ctx,
	      "windows know their type, PD and context");
	CHECK((m1->rkey >> 8) != (m2->rkey >> 8), "windows' rkey indexes differ");
	if (res_path) {
		CHECK_EQ(res_count("mw"), 2, "the core counts 2 windows");
		CHECK_EQ(res_count("mr"), 0, "windows are not MRs");
	}
	errno = 0;
	CHECK(!ibv_alloc_mw(pd, (enum ibv_mw_type)3) && errno == EINVAL,
	      "ibv_alloc_mw of type 3: EINVAL (errno %d)", errno);
	mw_free(m1);
	mw_free(m2);
	if (res_path)
		CHECK_EQ(res_count("mw"), 0, "no window left");
}

/* type 2B: data through every opcode, bounds, rights */
static void t_type2(void)
{
	int st;
	uint64_t win = 0, *cell;
	struct ibv_mw *mw;
	struct pair p;
	long bad;

	pair_new(&p, ACC_MR);
	mw = mw_new(pd, IBV_MW_TYPE_2);
	if (!CHECK_EQ(bind2_win(&p, mw, ACC_WIN), IBV_WC_SUCCESS,
		      "type 2 bound with IBV_WR_BIND_MW"))
		goto out;
	win = xt_va(&p.rb, WIN_OFF);
	xt_pat_fill(p.la.p, 4096, 21);
	CHECK_EQ(write_at(&p, mw->rkey, win + 100, 4096), IBV_WC_SUCCESS,
		 "RDMA WRITE through the window");
	bad = xt_pat_check(p.rb.p + WIN_OFF + 100, 4096, 21);
	CHECK(bad < 0, "the data is at the window's address (offset %ld)", bad);
	CHECK(xt_all_bytes(p.rb.p, WIN_OFF + 100, 0) &&
	      xt_all_bytes(p.rb.p + WIN_OFF + 100 + 4096,
			   BUF_LEN - WIN_OFF - 100 - 4096, 0),
	      "nothing written outside");
	xt_pat_fill(p.rb.p + WIN_OFF, WIN_LEN, 22);
	CHECK_EQ(rdma(&p, IBV_WR_RDMA_READ, 0, WIN_LEN, mw->rkey, win, 0, 0),
		 IBV_WC_SUCCESS, "RDMA READ of the whole window");
	CHECK(xt_pat_check(p.la.p, WIN_LEN, 22) < 0, "the data read is right");
	cell = (uint64_t *)(void *)(p.rb.p + WIN_OFF + WIN_LEN - 8);
	*cell = 40;
	CHECK_EQ(rdma(&p, IBV_WR_ATOMIC_FETCH_AND_ADD, 0, 8, mw->rkey,
		      win + WIN_LEN - 8, 2, 0), IBV_WC_SUCCESS,
		 "FETCH_ADD through the window");
	CHECK(*(uint64_t *)(void *)p.la.p == 40 && *cell == 42,
	      "FETCH_ADD: 40 returned, 42 stored");
	CHECK_EQ(rdma(&p, IBV_WR_ATOMIC_CMP_AND_SWP, 0, 8, mw->rkey,
		      win + WIN_LEN - 8, 42, 7), IBV_WC_SUCCESS,
		 "CMP_SWP through the window");
	CHECK(*(uint64_t *)(void *)p.la.p == 42 && *cell == 7,
	      "CMP_SWP: 42 returned, 7 stored");
	CHECK_EQ(write_at(&p, p.rb.mr->rkey, xt_va(&p.rb, 0), 8),
		 IBV_WC_SUCCESS, "the MR's own rkey still works");
	/* one byte past the window's end: the responder refuses */
	st = write_at(&p, mw->rkey, win + WIN_LEN - 8, 16);
	want_rem_access(st, "WRITE crossing the window's end");
out:
	/* the window first: its MR deregisters only once it is unbound */
	mw_free(mw);
	pair_free(&p);
}

/* a window's rights and range, each on a fresh pair (errors end QPs) */
static void t_rights(void)
{
	static const struct {
		unsigned int access;
		enum ibv_wr_opcode op;
		int64_t off;
		const char *what;
	} c[] = {
		{ IBV_ACCESS_REMOTE_READ, IBV_WR_RDMA_WRITE, 0,
		  "WRITE to a read-only window" },
		{ IBV_ACCESS_REMOTE_WRITE, IBV_WR_RDMA_READ, 0,
		  "READ of a write-only window" },
		{ IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
		  IBV_WR_ATOMIC_FETCH_AND_ADD, 0,
		  "atomic on a window without REMOTE_ATOMIC" },
		{ ACC_WIN, IBV_WR_RDMA_READ, -8, "READ before the window" },
		{ ACC_WIN, IBV_WR_ATOMIC_FETCH_AND_ADD, WIN_LEN,
		  "atomic past the window" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		struct ibv_mw *mw = mw_new(pd, IBV_MW_TYPE_2);
		struct pair p;
		uint64_t at;

		pair_new(&p, ACC_MR);
		at = xt_va(&p.rb, WIN_OFF) + c[i].off;

		if (CHECK_EQ(bind2_win(&p, mw, c[i].access), IBV_WC_SUCCESS,
			     "%s: bound", c[i].what))
			want_rem_access(rdma(&p, c[i].op, 0, 8, mw->rkey, at,
					     1, 0), c[i].what);
		mw_free(mw);
		pair_free(&p);
	}
}

/* LOCAL_INV of a window, a rebind with a new tag, the stale tag */
static void t_local_inv(void)
{
	int st;
	struct ibv_send_wr wr = {
		.wr_id = 9, .opcode = IBV_WR_LOCAL_INV,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_mw *mw = mw_new(pd, IBV_MW_TYPE_2);
	struct pair p, q;
	uint32_t old;

	pair_new(&p, ACC_MR);
	pair_new(&q, ACC_MR);
	if (!CHECK_EQ(bind2_win(&p, mw, ACC_WIN), IBV_WC_SUCCESS, "bound"))
		goto out;
	CHECK_EQ(write_at(&p, mw->rkey, xt_va(&p.rb, WIN_OFF), 64),
		 IBV_WC_SUCCESS, "WRITE through the bound window");
	CHECK_EQ(bind2_win(&p, mw, ACC_WIN), IBV_WC_MW_BIND_ERR,
		 "binding a bound type 2 window: MW_BIND_ERR");
	CHECK_RC(-ibv_dereg_mr(p.rb.mr), -EBUSY,
		 "the failed bind left it bound: dereg of its MR is EBUSY");
	/* p's QPs are in ERR: q's responder (same PD) invalidates it */
	old = mw->rkey;
	wr.invalidate_rkey = mw->rkey;
	CHECK_RC(-ibv_post_send(q.b.qp, &wr, &bad), 0, "post LOCAL_INV");
	CHECK_EQ(wait_wc(&q.b, IBV_WC_LOCAL_INV, NULL), IBV_WC_SUCCESS,
		 "LOCAL_INV of the window");
	if (CHECK_EQ(bind2(&q.b, mw, ibv_inc_rkey(old), q.rb.mr,
			   xt_va(&q.rb, 0), 4096, IBV_ACCESS_REMOTE_WRITE),
		     IBV_WC_SUCCESS,
		     "an invalidated window binds again, new tag")) {
		mw->rkey = ibv_inc_rkey(old);
		CHECK_EQ(write_at(&q, mw->rkey, xt_va(&q.rb, 0), 64),
			 IBV_WC_SUCCESS, "WRITE with the new tag");
		st = write_at(&q, old, xt_va(&q.rb, 0), 64);
		want_rem_access(st, "WRITE with the old tag");
	}
out:
	mw_free(mw);
	pair_free(&q);
	pair_free(&p);
}

/* LOCAL_INV then remote access; SEND_WITH_INV then remote access */
static void t_invalidated(void)
{
	int st;
	struct ibv_send_wr wr = {
		.wr_id = 9, .opcode = IBV_WR_LOCAL_INV,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_mw *mw = mw_new(pd, IBV_MW_TYPE_2);
	struct ibv_recv_wr rwr = { .wr_id = 11, .num_sge = 1 }, *rbad;
	struct ibv_sge rs, ss;
	struct ibv_wc wc;
	struct pair p;

	pair_new(&p, ACC_MR);
	if (CHECK_EQ(bind2_win(&p, mw, ACC_WIN), IBV_WC_SUCCESS, "bound")) {
		wr.invalidate_rkey = mw->rkey;
		CHECK_RC(-ibv_post_send(p.b.qp, &wr, &bad), 0,
			 "post LOCAL_INV");
		CHECK_EQ(wait_wc(&p.b, IBV_WC_LOCAL_INV, NULL), IBV_WC_SUCCESS,
			 "LOCAL_INV of the window");
		st = write_at(&p, mw->rkey, xt_va(&p.rb, WIN_OFF), 8);
		want_rem_access(st, "WRITE through a locally invalidated window");
	}
	pair_free(&p);

	pair_new(&p, ACC_MR);
	if (!CHECK_EQ(bind2_win(&p, mw, ACC_WIN), IBV_WC_SUCCESS,
		      "bound again"))
		goto out;
	rs = xt_sge(&p.rb, 0, 256);
	rwr.sg_list = &rs;
	CHECK_RC(-ibv_post_recv(p.b.qp, &rwr, &rbad), 0, "post a receive");
	ss = xt_sge(&p.la, 0, 32);
	wr.opcode = IBV_WR_SEND_WITH_INV;
	wr.sg_list = &ss;
	wr.num_sge = 1;
	wr.invalidate_rkey = mw->rkey;
	CHECK_RC(-ibv_post_send(p.a.qp, &wr, &bad), 0, "post SEND_WITH_INV");
	CHECK_EQ(wait_wc(&p.a, IBV_WC_SEND, NULL), IBV_WC_SUCCESS,
		 "SEND_WITH_INV of the window's rkey");
	if (CHECK_EQ(wait_wc(&p.b, IBV_WC_RECV, &wc), IBV_WC_SUCCESS,
		     "received"))
		CHECK((wc.wc_flags & IBV_WC_WITH_INV) &&
		      wc.invalidated_rkey == mw->rkey,
		      "the receive names the invalidated rkey (flags %#x)",
		      wc.wc_flags);
	st = write_at(&p, mw->rkey, xt_va(&p.rb, WIN_OFF), 8);
	want_rem_access(st, "WRITE through a remotely invalidated window");
out:
	/* the window first: its MR deregisters only once it is unbound */
	mw_free(mw);
	pair_free(&p);
}

/* every bind error: IBV_WC_MW_BIND_ERR, nothing bound */
static void t_bind_errors(void)
{
	enum { NO_MW_BIND, OUTSIDE, MW_OTHER_PD, MR_OTHER_PD, NO_LOCAL_WRITE,
	       ZERO_LEN, NCASES };
	static const char *const what[NCASES] = {
		"an MR without MW_BIND", "a range outside the MR",
		"a window of another PD", "an MR of another PD",
		"remote write on an MR without local write",
		"a type 2 window with length 0",
	};
	struct ibv_pd *pd2 = ibv_alloc_pd(ctx);
	int i;

	if (!CHECK(pd2, "a second PD"))
		return;
	for (i = 0; i < NCASES; i++) {
		struct ibv_mw *mw = mw_new(i == MW_OTHER_PD ? pd2 : pd,
					   IBV_MW_TYPE_2);
		struct xt_buf other = { 0 };
		struct ibv_mr *mr;
		uint64_t addr, len = WIN_LEN;
		struct pair p;
		int acc = ACC_MR;

		if (i == NO_MW_BIND)
			acc &= ~IBV_ACCESS_MW_BIND;
		if (i == NO_LOCAL_WRITE)
			acc = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_MW_BIND;
		pair_new(&p, acc);
		mr = p.rb.mr;
		addr = xt_va(&p.rb, WIN_OFF);
		if (i == OUTSIDE)
			addr = xt_va(&p.rb, BUF_LEN - 4096);
		if (i == ZERO_LEN)
			len = 0;
		if (i == MR_OTHER_PD) {
			if (!xt_buf_new(&other, pd2, BUF_LEN, ACC_MR))
				xt_bail(0, "an MR in the second PD");
			mr = other.mr;
			addr = xt_va(&other, WIN_OFF);
		}
		CHECK_EQ(bind2(&p.b, mw, ibv_inc_rkey(mw->rkey), mr, addr, len,
			       i == NO_LOCAL_WRITE ? ACC_WIN :
			       IBV_ACCESS_REMOTE_READ),
			 IBV_WC_MW_BIND_ERR, "binding to %s: MW_BIND_ERR",
			 what[i]);
		CHECK_EQ(xt_qp_state(p.b.qp), QPS_ERR, "%s: the QP is in ERR",
			 what[i]);
		pair_free(&p);
		/* nothing was bound: the MR deregisters */
		if (other.mr)
			CHECK_RC(-xt_buf_free(&other), 0,
				 "the other PD's MR deregistered");
		mw_free(mw);
	}
	CHECK_RC(-ibv_dealloc_pd(pd2), 0, "second PD deallocated");
}

/* remote access that must fail: unbound, another QP of the PD */
static void t_remote_errors(void)
{
	int st;
	struct ibv_mw *mw = mw_new(pd, IBV_MW_TYPE_2);
	struct pair p, q;

	pair_new(&p, ACC_MR);
	st = write_at(&p, mw->rkey, xt_va(&p.rb, WIN_OFF), 8);
	want_rem_access(st, "WRITE through an unbound window");
	pair_free(&p);

	pair_new(&p, ACC_MR);
	pair_new(&q, ACC_MR);
	if (CHECK_EQ(bind2_win(&p, mw, ACC_WIN), IBV_WC_SUCCESS, "bound")) {
		/* q.b is another QP of the same PD: a type 2 window is p.b's */
		st = write_at(&q, mw->rkey, xt_va(&p.rb, WIN_OFF), 8);
		want_rem_access(st, "WRITE through another QP than the window's");
		CHECK_EQ(write_at(&p, mw->rkey, xt_va(&p.rb, WIN_OFF), 8),
			 IBV_WC_SUCCESS, "the window's own QP still works");
	}
	pair_free(&q);
	/* dereg of an MR with a bound window: EBUSY, nothing changes */
	CHECK_RC(-ibv_dereg_mr(p.rb.mr), -EBUSY,
		 "dereg of an MR with a bound window: EBUSY");
	CHECK_EQ(write_at(&p, mw->rkey, xt_va(&p.rb, WIN_OFF), 8),
		 IBV_WC_SUCCESS, "the window works after the refused dereg");
	/* dealloc of a bound window unbinds it */
	mw_free(mw);
	pair_free(&p);
}

/* zero based windows: addresses from 0 */
static void t_zero_based(void)
{
	int st;
	struct ibv_mw *mw = mw_new(pd, IBV_MW_TYPE_2);
	uint32_t rkey = ibv_inc_rkey(mw->rkey);
	struct pair p;

	pair_new(&p, ACC_MR);
	if (!CHECK_EQ(bind2(&p.b, mw, rkey, p.rb.mr, xt_va(&p.rb, WIN_OFF),
			    WIN_LEN, ACC_WIN | IBV_ACCESS_ZERO_BASED),
		      IBV_WC_SUCCESS, "zero based type 2 bound"))
		goto out;
	xt_pat_fill(p.la.p, 64, 5);
	CHECK_EQ(write_at(&p, rkey, 16, 64), IBV_WC_SUCCESS,
		 "WRITE at window address 16");
	CHECK(xt_pat_check(p.rb.p + WIN_OFF + 16, 64, 5) < 0 &&
	      xt_all_bytes(p.rb.p, WIN_OFF + 16, 0),
	      "the data is at the window's start + 16");
	xt_pat_fill(p.rb.p + WIN_OFF + WIN_LEN - 64, 64, 6);
	CHECK_EQ(rdma(&p, IBV_WR_RDMA_READ, 0, 64, rkey, WIN_LEN - 64, 0, 0),
		 IBV_WC_SUCCESS, "READ of the window's last 64 bytes");
	CHECK(xt_pat_check(p.la.p, 64, 6) < 0, "the data read is right");
	st = write_at(&p, rkey, WIN_LEN - 8, 16);
	want_rem_access(st, "WRITE past the zero based window");
out:
	/* the window first: its MR deregisters only once it is unbound */
	mw_free(mw);
	pair_free(&p);
}

/* type 1: ibv_bind_mw, any QP of the PD, rebind, unbind */
static void t_type1(void)
{
	int st;
	struct ibv_mw *mw = mw_new(pd, IBV_MW_TYPE_1);
	struct ibv_mw_bind mb = {
		.wr_id = 3, .send_flags = IBV_SEND_SIGNALED,
	};
	uint32_t first = mw->rkey, old;
	struct pair p, q;

	pair_new(&p, ACC_MR);
	pair_new(&q, ACC_MR);
	mb.bind_info.mr = p.rb.mr;
	mb.bind_info.addr = xt_va(&p.rb, WIN_OFF);
	mb.bind_info.length = WIN_LEN;
	mb.bind_info.mw_access_flags = ACC_WIN;
	if (!CHECK_RC(-ibv_bind_mw(p.b.qp, mw, &mb), 0, "ibv_bind_mw") ||
	    !CHECK_EQ(wait_wc(&p.b, IBV_WC_BIND_MW, NULL), IBV_WC_SUCCESS,
		      "type 1 bound"))
		goto out;
	CHECK((mw->rkey >> 8) == (first >> 8) && mw->rkey != first,
	      "mw->rkey: the window's index, a new tag");
	xt_pat_fill(p.la.p, 128, 8);
	CHECK_EQ(write_at(&p, mw->rkey, xt_va(&p.rb, WIN_OFF), 128),
		 IBV_WC_SUCCESS, "WRITE through the type 1 window");
	CHECK(xt_pat_check(p.rb.p + WIN_OFF, 128, 8) < 0, "data arrived");
	/* a type 1 window serves every QP of its PD */
	xt_pat_fill(q.la.p, 128, 9);
	CHECK_EQ(write_at(&q, mw->rkey, xt_va(&p.rb, WIN_OFF + 128), 128),
		 IBV_WC_SUCCESS, "WRITE through another QP of the PD");
	CHECK(xt_pat_check(p.rb.p + WIN_OFF + 128, 128, 9) < 0,
	      "its data arrived");
	/* rebind to the first page only: new tag, old one dead */
	old = mw->rkey;
	mb.bind_info.addr = xt_va(&p.rb, 0);
	mb.bind_info.length = 4096;
	if (CHECK_RC(-ibv_bind_mw(p.b.qp, mw, &mb), 0, "rebind") &&
	    CHECK_EQ(wait_wc(&p.b, IBV_WC_BIND_MW, NULL), IBV_WC_SUCCESS,
		     "type 1 rebound")) {
		st = write_at(&q, old, xt_va(&p.rb, 0), 8);
		want_rem_access(st, "WRITE with the tag before the rebind");
		CHECK_EQ(write_at(&p, mw->rkey, xt_va(&p.rb, 0), 64),
			 IBV_WC_SUCCESS, "WRITE in the new range");
		/* unbind (length 0, no MR) */
		old = mw->rkey;
		memset(&mb.bind_info, 0, sizeof(mb.bind_info));
		CHECK_RC(-ibv_bind_mw(p.b.qp, mw, &mb), 0, "unbind");
		CHECK_EQ(wait_wc(&p.b, IBV_WC_BIND_MW, NULL), IBV_WC_SUCCESS,
			 "type 1 unbound");
		CHECK_RC(-ibv_dereg_mr(p.rb.mr), 0,
			 "its MR deregisters once the window is unbound");
		p.rb.mr = NULL;
		st = write_at(&p, old, xt_va(&p.rb, 0), 8);
		want_rem_access(st, "WRITE through the unbound type 1 window");
	}
out:
	mw_free(mw);
	pair_free(&q);
	if (!p.rb.mr)
		free(p.rb.p);
	pair_free(&p);
}

/*
 * Defect 6 of issue 29: the tag a type 1 bind gives is random and never
 * the current one, so a peer that saw a window's rkeys cannot name the
 * next.  64 rebinds: none keeps the tag, and at most 8 take old + 1 (the
 * ibv_inc_rkey() convention mlx5 and rxe follow: 64 of 64 there; for
 * random tags P(8 or more of 64) < 1e-9).  Distinct tags seen: more than 8.
 */
static void t_tag(void)
{
	struct ibv_mw *mw = mw_new(pd, IBV_MW_TYPE_1);
	struct ibv_mw_bind mb = { .wr_id = 6, .send_flags = IBV_SEND_SIGNALED };
	bool seen[256] = { false };
	int i, inc = 0, same = 0, distinct = 0, done = 0;
	struct pair p;
	uint32_t old;

	pair_new(&p, ACC_MR);
	mb.bind_info.mr = p.rb.mr;
	mb.bind_info.addr = xt_va(&p.rb, 0);
	mb.bind_info.length = 4096;
	mb.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ;
	for (i = 0; i < 64; i++) {
		old = mw->rkey;
		if (ibv_bind_mw(p.b.qp, mw, &mb) ||
		    wait_wc(&p.b, IBV_WC_BIND_MW, NULL) != IBV_WC_SUCCESS)
			break;
		done++;
		if ((mw->rkey >> 8) != (old >> 8))
			break;
		same += mw->rkey == old;
		inc += mw->rkey == ibv_inc_rkey(old);
		if (!seen[mw->rkey & 0xff])
			distinct++;
		seen[mw->rkey & 0xff] = true;
	}
	CHECK_EQ(done, 64, "64 type 1 rebinds, the window's index kept");
	CHECK_EQ(same, 0, "no rebind kept the tag");
	CHECK(inc <= 8, "old + 1 in %d of 64 rebinds (at most 8)", inc);
	CHECK(distinct > 8, "%d distinct tags (more than 8)", distinct);
	/* the last tag is the window's: data through it */
	CHECK_EQ(rdma(&p, IBV_WR_RDMA_READ, 0, 64, mw->rkey, xt_va(&p.rb, 0),
		      0, 0), IBV_WC_SUCCESS, "READ through the last tag");
	mw_free(mw);
	pair_free(&p);
}

/* ibv_wr_bind_mw on a QP made with the BIND_MW send op */
static void t_wr_bind(void)
{
	struct ibv_mw_bind_info bi = { 0 };
	struct ibv_mw *mw = mw_new(pd, IBV_MW_TYPE_2);
	struct ibv_mw *m1 = mw_new(pd, IBV_MW_TYPE_1);
	struct ibv_qp_ex *qx;
	uint32_t rkey;
	struct pair p;

	if (!pair_new_pd(&p, pd, ACC_MR, true))
		xt_bail(0, "a pair whose responder has the BIND_MW send op");
	qx = ibv_qp_to_qp_ex(p.b.qp);
	if (!CHECK(qx && qx->wr_bind_mw, "the QP has wr_bind_mw"))
		goto out;
	rkey = ibv_inc_rkey(mw->rkey);
	bi.mr = p.rb.mr;
	bi.addr = xt_va(&p.rb, WIN_OFF);
	bi.length = WIN_LEN;
	bi.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	/* a type 1 window: the batch fails, nothing posted */
	ibv_wr_start(qx);
	qx->wr_id = 1;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(qx, m1, ibv_inc_rkey(m1->rkey), &bi);
	CHECK_RC(-ibv_wr_complete(qx), -EINVAL,
		 "ibv_wr_bind_mw of a type 1 window: EINVAL");
	ibv_wr_start(qx);
	qx->wr_id = 2;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(qx, mw, rkey, &bi);
	if (!CHECK_RC(-ibv_wr_complete(qx), 0, "ibv_wr_bind_mw posted") ||
	    !CHECK_EQ(wait_wc(&p.b, IBV_WC_BIND_MW, NULL), IBV_WC_SUCCESS,
		      "bound through ibv_wr_bind_mw (only this WQE completes)"))
		goto out;
	mw->rkey = rkey;
	xt_pat_fill(p.la.p, 256, 12);
	CHECK_EQ(write_at(&p, rkey, xt_va(&p.rb, WIN_OFF), 256),
		 IBV_WC_SUCCESS, "WRITE through it");
	CHECK(xt_pat_check(p.rb.p + WIN_OFF, 256, 12) < 0, "data arrived");
out:
	mw_free(mw);
	mw_free(m1);
	pair_free(&p);
}

/*
 * rdma-core's MW tests: an MR with LOCAL_WRITE | MW_BIND only, windows
 * bound with REMOTE_WRITE | LOCAL_WRITE (type 1 by ibv_bind_mw, type 2 by
 * IBV_WR_BIND_MW and by ibv_wr_bind_mw).  LOCAL_WRITE means nothing for a
 * window and is ignored, as rxe and mlx5 do: the binds succeed and WRITE
 * through each works; a window bound with LOCAL_WRITE alone grants no
 * remote right (rdma-core's test_qp_ex_rc_bind_mw).
 */
static void t_local_write(void)
{
	const unsigned int acc = IBV_ACCESS_REMOTE_WRITE |
				 IBV_ACCESS_LOCAL_WRITE;
	const int mr_acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND;
	struct ibv_mw_bind mb = { .wr_id = 4, .send_flags = IBV_SEND_SIGNALED };
	struct ibv_mw_bind_info bi = { 0 };
	struct ibv_mw *m1 = mw_new(pd, IBV_MW_TYPE_1);
	struct ibv_mw *m2 = mw_new(pd, IBV_MW_TYPE_2);
	struct ibv_mw *m3 = mw_new(pd, IBV_MW_TYPE_2);
	struct ibv_mw *m4 = mw_new(pd, IBV_MW_TYPE_2);
	struct ibv_qp_ex *qx;
	struct pair p, q;
	uint32_t rkey;

	if (!pair_new_pd(&p, pd, mr_acc, true))
		xt_bail(0, "a pair whose responder has the BIND_MW send op");
	pair_new(&q, mr_acc);
	mb.bind_info.mr = p.rb.mr;
	mb.bind_info.addr = xt_va(&p.rb, 0);
	mb.bind_info.length = 4096;
	mb.bind_info.mw_access_flags = acc;
	if (CHECK_RC(-ibv_bind_mw(p.b.qp, m1, &mb), 0,
		     "type 1 ibv_bind_mw with REMOTE_WRITE | LOCAL_WRITE") &&
	    CHECK_EQ(wait_wc(&p.b, IBV_WC_BIND_MW, NULL), IBV_WC_SUCCESS,
		     "type 1 bound")) {
		xt_pat_fill(p.la.p, 64, 31);
		CHECK_EQ(write_at(&p, m1->rkey, xt_va(&p.rb, 0), 64),
			 IBV_WC_SUCCESS, "WRITE through the type 1 window");
		CHECK(xt_pat_check(p.rb.p, 64, 31) < 0, "its data arrived");
	}
	if (CHECK_EQ(bind2(&p.b, m2, ibv_inc_rkey(m2->rkey), p.rb.mr,
			   xt_va(&p.rb, 4096), 4096, acc), IBV_WC_SUCCESS,
		     "IBV_WR_BIND_MW with REMOTE_WRITE | LOCAL_WRITE")) {
		m2->rkey = ibv_inc_rkey(m2->rkey);
		xt_pat_fill(p.la.p, 64, 32);
		CHECK_EQ(write_at(&p, m2->rkey, xt_va(&p.rb, 4096), 64),
			 IBV_WC_SUCCESS, "WRITE through the type 2 window");
		CHECK(xt_pat_check(p.rb.p + 4096, 64, 32) < 0,
		      "its data arrived");
	}
	qx = ibv_qp_to_qp_ex(p.b.qp);
	rkey = ibv_inc_rkey(m3->rkey);
	bi.mr = p.rb.mr;
	bi.addr = xt_va(&p.rb, 8192);
	bi.length = 4096;
	bi.mw_access_flags = acc;
	ibv_wr_start(qx);
	qx->wr_id = 5;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(qx, m3, rkey, &bi);
	if (CHECK_RC(-ibv_wr_complete(qx), 0,
		     "ibv_wr_bind_mw with REMOTE_WRITE | LOCAL_WRITE") &&
	    CHECK_EQ(wait_wc(&p.b, IBV_WC_BIND_MW, NULL), IBV_WC_SUCCESS,
		     "bound through ibv_wr_bind_mw")) {
		m3->rkey = rkey;
		xt_pat_fill(p.la.p, 64, 33);
		CHECK_EQ(write_at(&p, rkey, xt_va(&p.rb, 8192), 64),
			 IBV_WC_SUCCESS, "WRITE through it");
		CHECK(xt_pat_check(p.rb.p + 8192, 64, 33) < 0,
		      "its data arrived");
	}
	/* LOCAL_WRITE alone: bound, but no remote right (on q: errors end QPs) */
	rkey = ibv_inc_rkey(m4->rkey);
	if (CHECK_EQ(bind2(&q.b, m4, rkey, q.rb.mr, xt_va(&q.rb, 0), 4096,
			   IBV_ACCESS_LOCAL_WRITE), IBV_WC_SUCCESS,
		     "IBV_WR_BIND_MW with LOCAL_WRITE alone")) {
		m4->rkey = rkey;
		want_rem_access(write_at(&q, rkey, xt_va(&q.rb, 0), 8),
				"WRITE through a LOCAL_WRITE-only window");
	}
	mw_free(m1);
	mw_free(m2);
	mw_free(m3);
	mw_free(m4);
	pair_free(&q);
	pair_free(&p);
}

/* what the calls refuse before anything reaches the device */
static void t_api_errors(void)
{
	struct ibv_mw *m1 = mw_new(pd, IBV_MW_TYPE_1);
	struct ibv_mw *m2 = mw_new(pd, IBV_MW_TYPE_2);
	struct ibv_pd *pd2 = ibv_alloc_pd(ctx);
	struct ibv_send_wr wr = { .opcode = IBV_WR_BIND_MW }, *bad = NULL;
	struct ibv_mw_bind mb = { 0 };
	struct xt_buf other = { 0 };
	struct xt_ep ud;
	struct pair p;

	pair_new(&p, ACC_MR);
	wr.bind_mw.mw = m1;
	wr.bind_mw.rkey = ibv_inc_rkey(m1->rkey);
	wr.bind_mw.bind_info.mr = p.rb.mr;
	wr.bind_mw.bind_info.addr = xt_va(&p.rb, 0);
	wr.bind_mw.bind_info.length = 64;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ;
	CHECK_RC(-ibv_post_send(p.b.qp, &wr, &bad), -EINVAL,
		 "IBV_WR_BIND_MW of a type 1 window: EINVAL");
	CHECK(bad == &wr, "bad_wr names it");
	wr.bind_mw.mw = m2;
	wr.bind_mw.rkey = ibv_inc_rkey(m2->rkey);
	wr.bind_mw.bind_info.mr = NULL;
	CHECK_RC(-ibv_post_send(p.b.qp, &wr, &bad), -EINVAL,
		 "IBV_WR_BIND_MW with a length and no MR: EINVAL");
	wr.bind_mw.bind_info.mr = p.rb.mr;
	wr.bind_mw.rkey = m1->rkey;
	CHECK_RC(-ibv_post_send(p.b.qp, &wr, &bad), -EINVAL,
		 "IBV_WR_BIND_MW with another window's rkey index: EINVAL");
	wr.bind_mw.rkey = ibv_inc_rkey(m2->rkey);
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ |
					       IBV_ACCESS_MW_BIND;
	CHECK_RC(-ibv_post_send(p.b.qp, &wr, &bad), -EINVAL,
		 "IBV_WR_BIND_MW with MW_BIND in the window's rights: EINVAL");
	mb.bind_info = wr.bind_mw.bind_info;
	mb.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ;
	CHECK_EQ(ibv_bind_mw(p.b.qp, m2, &mb), EINVAL,
		 "ibv_bind_mw of a type 2 window: EINVAL");
	mb.bind_info.mw_access_flags |= IBV_ACCESS_ZERO_BASED;
	CHECK_EQ(ibv_bind_mw(p.b.qp, m1, &mb), EINVAL,
		 "zero based type 1 bind: EINVAL");
	if (CHECK(pd2 && xt_buf_new(&other, pd2, 4096, ACC_MR),
		  "an MR of a second PD")) {
		mb.bind_info.mr = other.mr;
		mb.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ;
		CHECK_EQ(ibv_bind_mw(p.b.qp, m1, &mb), EPERM,
			 "ibv_bind_mw to an MR of another PD: EPERM");
		CHECK_RC(-xt_buf_free(&other), 0, "its MR deregistered");
	}
	if (pd2)
		CHECK_RC(-ibv_dealloc_pd(pd2), 0, "second PD deallocated");
	if (CHECK(xt_ep_new(&ud, pd, IBV_QPT_UD, 8, &qcap), "a UD QP")) {
		if (CHECK_RC(-xt_ud_rts(ud.qp, 0x11), 0, "UD QP in RTS")) {
			mb.bind_info.mr = p.rb.mr;
			mb.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ;
			CHECK_EQ(ibv_bind_mw(ud.qp, m1, &mb), EINVAL,
				 "ibv_bind_mw on a UD QP: EINVAL");
		}
		ep_free(&ud);
	}
	CHECK_EQ(xt_qp_state(p.b.qp), QPS_RTS,
		 "refused calls leave the QP in RTS");
	mw_free(m1);
	mw_free(m2);
	pair_free(&p);
}

/* the ALLOC_MW ioctl and DESTROY of windows with bad arguments */
static void t_ioctl(void)
{
	struct xrdma_cmd_alloc_mw c;
	struct xrdma_cmd_destroy d;
	struct ibv_cq *cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	int fd = ctx->cmd_fd;

#define ALLOC(field, val, want, what) do {				\
		memset(&c, 0, sizeof(c));				\
		c.pd_handle = pd->handle;				\
		c.type = XRDMA_UVERBS_MW_TYPE_2;			\
		c.field = val;						\
		CHECK_RC(ioctl(fd, XRDMA_IOC_ALLOC_MW, &c) ? -errno : 0,	\
			 want, "ALLOC_MW %s", what);			\
	} while (0)
	ALLOC(type, 0, -EINVAL, "type 0: EINVAL");
	ALLOC(type, 3, -EINVAL, "type 3: EINVAL");
	ALLOC(reserved[0], 1, -EINVAL, "reserved[0] set: EINVAL");
	ALLOC(reserved[1], 1, -EINVAL, "reserved[1] set: EINVAL");
	ALLOC(pd_handle, 0xfffff, -ENOENT, "no such PD handle: ENOENT");
	if (cq)
		ALLOC(pd_handle, cq->handle, -EINVAL,
		      "a CQ's handle as the PD: EINVAL");
	CHECK_RC(ioctl(fd, _IOWR(XRDMA_IOC_MAGIC, 0x14, __u32[4]), &c) ?
		 -errno : 0, -EINVAL, "ALLOC_MW shorter than its VER0: EINVAL");
	ALLOC(type, XRDMA_UVERBS_MW_TYPE_1, 0, "type 1 allocated");
	memset(&d, 0, sizeof(d));
	d.type = XRDMA_OBJ_MR;
	d.handle = c.mw_handle;
	CHECK_RC(ioctl(fd, XRDMA_IOC_DESTROY, &d) ? -errno : 0, -EINVAL,
		 "DESTROY of a window as an MR: EINVAL");
	d.type = 8;
	CHECK_RC(ioctl(fd, XRDMA_IOC_DESTROY, &d) ? -errno : 0, -EINVAL,
		 "DESTROY with object type 8: EINVAL");
	d.type = XRDMA_OBJ_MW;
	CHECK_RC(ioctl(fd, XRDMA_IOC_DESTROY, &d) ? -errno : 0, 0,
		 "DESTROY of the window");
	CHECK_RC(ioctl(fd, XRDMA_IOC_DESTROY, &d) ? -errno : 0, -ENOENT,
		 "DESTROY of it again: ENOENT");
	if (cq) {
		d.handle = cq->handle;
		CHECK_RC(ioctl(fd, XRDMA_IOC_DESTROY, &d) ? -errno : 0,
			 -EINVAL, "DESTROY of a CQ as a window: EINVAL");
		CHECK_RC(-ibv_destroy_cq(cq), 0, "CQ destroyed");
	}
#undef ALLOC
}

static bool setup(void)
{
	ctx = xt_open_device(dev_name, NULL, 0);
	if (!ctx)
		return false;
	pd = ibv_alloc_pd(ctx);
	return pd && !ibv_query_gid(ctx, XT_PORT, XT_GID_INDEX, &gid);
}

static void teardown(void)
{
	if (pd && ibv_dealloc_pd(pd))
		xt_fail(NULL, "PD deallocated at the end");
	if (ctx)
		ibv_close_device(ctx);
}

static const struct xt_subtest tests[] = {
	XT_SUBTEST(caps, 0, "caps, max_mw, alloc and dealloc"),
	XT_SUBTEST(type2, 0, "type 2B: data through every opcode"),
	XT_SUBTEST(rights, 0, "a window's rights and range"),
	XT_SUBTEST(local_inv, 0, "LOCAL_INV, bound twice, new tag"),
	XT_SUBTEST(invalidated, 0, "access after LOCAL_INV, SEND_WITH_INV"),
	XT_SUBTEST(bind_errors, 0, "every MW_BIND_ERR"),
	XT_SUBTEST(remote_errors, 0, "unbound, another QP, dereg EBUSY"),
	XT_SUBTEST(zero_based, 0, "zero based type 2 windows"),
	XT_SUBTEST(type1, 0, "type 1: ibv_bind_mw, rebind, unbind"),
	XT_SUBTEST(tag, 0, "type 1 binds draw random new tags"),
	XT_SUBTEST(wr_bind, 0, "ibv_wr_bind_mw"),
	XT_SUBTEST(local_write, 0, "LOCAL_WRITE in a bind is ignored"),
	XT_SUBTEST(api_errors, 0, "errno of the calls"),
	XT_SUBTEST(ioctl, 0, "ALLOC_MW and DESTROY with bad arguments"),
};

static struct xt_suite suite = {
	.tests = tests, .n = ARRAY_SIZE(tests), .timeout = 120,
	.setup = setup, .teardown = teardown,
};

int main(int argc, char **argv)
{
	const struct xt_opt opts[] = {
		{ .c = 'd', .arg = "IBDEV", .str = &dev_name },
		{ .c = 'r', .arg = "RESOURCES", .str = &res_path },
	};
	int ret;

	ret = xt_main(&suite, opts, ARRAY_SIZE(opts), &argc, &argv, "xv_mw");
	if (ret >= 0)
		return ret;
	xt_show_library();
	xt_run(&suite, argc, argv);
	return xt_done();
}
