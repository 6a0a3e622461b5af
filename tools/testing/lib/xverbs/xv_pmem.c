// SPDX-License-Identifier: GPL-2.0
/*
 * xv_pmem: the IBTA 1.5 persistent-memory operations, ATOMIC WRITE and
 * FLUSH, checked the same way on any device (guest test
 * tools/testing/lib/xverbs/xverbs_pmem.sh runs it on xnic0 through xrdma's
 * libibverbs.so.1, and on rxe0 through the system's rdma-core 44 on
 * Linux 6.12, to compare the two).
 *
 * Built against rdma-core 44's <infiniband/verbs.h>: ATOMIC WRITE is in
 * it (IBV_WR_ATOMIC_WRITE, ibv_wr_atomic_write), FLUSH is not, so the
 * rdma-core 45+ values are spelled out below and wr_flush is called
 * where rdma-core 45..56 have it in struct ibv_qp_ex: right after 44's
 * last member.  A library whose ibv_create_qp_ex refuses
 * IBV_QP_EX_WITH_FLUSH (rdma-core 44's rxe provider) gets the FLUSH
 * operations skipped, with the reason.
 *
 * Every subtest connects two RC QPs of one device in loopback: "a" (an
 * extended QP) requests, "b" responds with the memory under test; after
 * an error the pair is rebuilt.  Each case prints one line
 * "# case NAME status=S opcode=O byte_len=N" the guest test compares
 * between the devices, then checks it against the expected outcome
 * (rxe's rules on Linux 6.12, drivers/infiniband/sw/rxe/rxe_resp.c).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>
#include "xt.h"
#include "xt_verbs.h"

/* rdma-core 45+ (v56's verbs.h), absent from 44's */
#define V56_ACCESS_FLUSH_GLOBAL		(1U << 8)
#define V56_ACCESS_FLUSH_PERSISTENT	(1U << 9)
#define V56_WC_FLUSH			8
#define V56_QP_EX_WITH_FLUSH		(1ULL << 11)
#define V56_FLUSH_GLOBAL		1
#define V56_FLUSH_PERSISTENT		2
#define V56_FLUSH_RANGE			0
#define V56_FLUSH_MR			1
#define V56_DEVICE_FLUSH_GLOBAL		(1ULL << 38)
#define V56_DEVICE_FLUSH_PERSISTENT	(1ULL << 39)
#define V56_DEVICE_ATOMIC_WRITE		(1ULL << 40)

/* struct ibv_qp_ex of rdma-core 45..56: 44's, then wr_flush */
struct qp_ex56 {
	struct ibv_qp_ex ex;
	void (*wr_flush)(struct ibv_qp_ex *qp, uint32_t rkey,
			 uint64_t remote_addr, size_t len, uint8_t type,
			 uint8_t level);
};

#define BUF_LEN		(2 * 4096)
#define WAIT_MS		5000
#define ACC_ALL		(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
#define QP_ACC		(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
			 IBV_ACCESS_REMOTE_ATOMIC)
#define VAL		0x1122334455667788ULL

static const char *dev_name = "xnic0";
static int gid_index;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static union ibv_gid gid;
static bool can_flush;		/* the library takes IBV_QP_EX_WITH_FLUSH */

struct pair {
	struct xt_ep a, b;
	struct ibv_qp_ex *ax;
	struct xt_buf la, rb;	/* a's local buffer, b's remote one */
};

static const struct ibv_qp_cap qcap = {
	.max_send_wr = 16, .max_recv_wr = 16,
	.max_send_sge = 2, .max_recv_sge = 1, .max_inline_data = 16,
};

static bool ep_new_ex(struct xt_ep *e, bool flush)
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
	ax.send_ops_flags = IBV_QP_EX_WITH_ATOMIC_WRITE |
			    IBV_QP_EX_WITH_RDMA_WRITE |
			    (flush ? V56_QP_EX_WITH_FLUSH : 0);
	e->qp = ibv_create_qp_ex(ctx, &ax);
	if (!e->qp)
		xt_note("ibv_create_qp_ex(%s): %s",
			flush ? "ATOMIC_WRITE|FLUSH" : "ATOMIC_WRITE",
			strerror(errno));
	return e->qp;
}

/* b's QP access flags: @qp_acc (on top of RTS) */
static bool pair_new(struct pair *p, int rb_access, unsigned int qp_acc)
{
	struct xt_rc_opts o = {
		.timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
		.sgid_index = (uint8_t)gid_index,
	};
	struct ibv_qp_attr qa = { .qp_access_flags = qp_acc };

	memset(p, 0, sizeof(*p));
	if (!ep_new_ex(&p->a, can_flush) ||
	    !xt_ep_new(&p->b, pd, IBV_QPT_RC, 64, &qcap))
		return false;
	p->ax = ibv_qp_to_qp_ex(p->a.qp);
	if (!p->ax ||
	    xt_rc_rts(p->a.qp, p->b.qp->qp_num, &gid, IBV_MTU_1024, &o) ||
	    xt_rc_rts(p->b.qp, p->a.qp->qp_num, &gid, IBV_MTU_1024, &o))
		return false;
	if (qp_acc != QP_ACC &&
	    ibv_modify_qp(p->b.qp, &qa, IBV_QP_ACCESS_FLAGS)) {
		xt_note("modify_qp(access %#x): %s", qp_acc, strerror(errno));
		return false;
	}
	return xt_buf_new(&p->la, pd, BUF_LEN, IBV_ACCESS_LOCAL_WRITE) &&
	       xt_buf_new(&p->rb, pd, BUF_LEN, rb_access);
}

static void pair_get(struct pair *p, int rb_access, unsigned int qp_acc)
{
	if (!pair_new(p, rb_access, qp_acc))
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
		CHECK_RC(-xt_buf_free(&p->rb), 0, "remote MR deregistered");
}

/*
 * the completion of a's one WQE, printed for the comparison and checked:
 * @st, and with success @op and @len
 */
static void want_wc(struct pair *p, const char *name, int st, int op,
		    uint32_t len)
{
	struct ibv_wc wc;

	if (!xt_poll_one(p->a.cq, &wc, WAIT_MS)) {
		xt_fail("no completion", "%s: a completion", name);
		return;
	}
	printf("# case %s status=%d opcode=%d byte_len=%u\n", name,
	       wc.status, wc.status ? -1 : (int)wc.opcode,
	       wc.status ? 0 : wc.byte_len);
	CHECK_EQ(wc.status, st, "%s: status %s", name,
		 ibv_wc_status_str((enum ibv_wc_status)st));
	CHECK_EQ(wc.wr_id, 0x5eed, "%s: wr_id", name);
	if (!st && !wc.status) {
		CHECK_EQ(wc.opcode, op, "%s: opcode %d", name, op);
		CHECK_EQ(wc.byte_len, len, "%s: byte_len %u", name, len);
	}
}

/* ibv_wr_atomic_write of VAL at b's @off (rkey ^ @kx); 0 or errno */
static int aw(struct pair *p, size_t off, uint32_t kx)
{
	uint64_t v = VAL;

	ibv_wr_start(p->ax);
	p->ax->wr_id = 0x5eed;
	p->ax->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(p->ax, p->rb.mr->rkey ^ kx, xt_va(&p->rb, off),
			    &v);
	return ibv_wr_complete(p->ax);
}

static uint64_t at(const struct xt_buf *b, size_t off)
{
	uint64_t v;

	memcpy(&v, b->p + off, 8);
	return v;
}

/* one ATOMIC WRITE case on a fresh pair: the status, the memory */
static void aw_case(const char *name, int rb_access, unsigned int qp_acc,
		    size_t off, uint32_t kx, int st)
{
	struct pair p;

	pair_get(&p, rb_access, qp_acc);
	memset(p.rb.p, 0xa5, BUF_LEN);
	if (CHECK_RC(-aw(&p, off, kx), 0, "%s: posted", name)) {
		want_wc(&p, name, st, IBV_WC_ATOMIC_WRITE, 8);
		if (off + 8 <= BUF_LEN)
			CHECK_EQ(at(&p.rb, off),
				 st ? 0xa5a5a5a5a5a5a5a5ULL : VAL,
				 "%s: remote memory %s", name,
				 st ? "untouched" : "holds the value");
	}
	pair_free(&p);
}

static void t_caps(void)
{
	struct ibv_device_attr_ex a;

	memset(&a, 0, sizeof(a));
	if (!CHECK_RC(-ibv_query_device_ex(ctx, NULL, &a), 0,
		      "ibv_query_device_ex"))
		return;
	xt_note("device_cap_flags_ex %#llx",
		(unsigned long long)a.device_cap_flags_ex);
	CHECK(a.device_cap_flags_ex & V56_DEVICE_ATOMIC_WRITE,
	      "IB_UVERBS_DEVICE_ATOMIC_WRITE (bit 40)");
	CHECK(a.device_cap_flags_ex & V56_DEVICE_FLUSH_GLOBAL,
	      "IB_UVERBS_DEVICE_FLUSH_GLOBAL (bit 38)");
	CHECK(a.device_cap_flags_ex & V56_DEVICE_FLUSH_PERSISTENT,
	      "IB_UVERBS_DEVICE_FLUSH_PERSISTENT (bit 39)");
}

/*
 * MRs with FLUSH access: global visibility on any memory; persistence
 * only on persistent memory (rxe_mr.c: is_pmem_page()), which a guest's
 * anonymous memory is not: EINVAL on both devices
 */
static void t_mr_access(void)
{
	struct xt_buf b;
	bool ok;

	ok = xt_buf_new(&b, pd, 4096, IBV_ACCESS_LOCAL_WRITE |
			V56_ACCESS_FLUSH_GLOBAL);
	CHECK(ok, "reg_mr with IBV_ACCESS_FLUSH_GLOBAL");
	if (ok)
		CHECK_RC(-xt_buf_free(&b), 0, "deregistered");
	ok = xt_buf_new(&b, pd, 4096, IBV_ACCESS_LOCAL_WRITE |
			V56_ACCESS_FLUSH_PERSISTENT);
	printf("# case mr_persistent_dram errno=%d\n", ok ? 0 : errno);
	CHECK(!ok && errno == EINVAL,
	      "reg_mr of DRAM with IBV_ACCESS_FLUSH_PERSISTENT: EINVAL");
	if (ok)
		xt_buf_free(&b);
}

static void t_aw_data(void)
{
	aw_case("aw_ok", ACC_ALL, QP_ACC, 64, 0, IBV_WC_SUCCESS);
	aw_case("aw_last_word", ACC_ALL, QP_ACC, BUF_LEN - 8, 0,
		IBV_WC_SUCCESS);
	/* rxe: the MR's and the QP's REMOTE_WRITE, not REMOTE_ATOMIC */
	aw_case("aw_write_right_only", IBV_ACCESS_LOCAL_WRITE |
		IBV_ACCESS_REMOTE_WRITE, IBV_ACCESS_REMOTE_WRITE, 8, 0,
		IBV_WC_SUCCESS);
}

static void t_aw_errors(void)
{
	aw_case("aw_misaligned", ACC_ALL, QP_ACC, 68, 0,
		IBV_WC_REM_INV_REQ_ERR);
	aw_case("aw_no_mr_write", IBV_ACCESS_LOCAL_WRITE |
		IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC, QP_ACC, 64,
		0, IBV_WC_REM_ACCESS_ERR);
	aw_case("aw_no_qp_write", ACC_ALL, IBV_ACCESS_REMOTE_READ |
		IBV_ACCESS_REMOTE_ATOMIC, 64, 0, IBV_WC_REM_INV_REQ_ERR);
	aw_case("aw_bad_rkey", ACC_ALL, QP_ACC, 64, 0x80,
		IBV_WC_REM_ACCESS_ERR);
	aw_case("aw_past_end", ACC_ALL, QP_ACC, BUF_LEN, 0,
		IBV_WC_REM_ACCESS_ERR);
}

/* ibv_post_send(IBV_WR_ATOMIC_WRITE): wr.rdma, 8 bytes of SGEs/inline */
static int aw_post(struct pair *p, size_t off, uint32_t len, bool inl)
{
	struct ibv_sge sge[2] = { xt_sge(&p->la, 0, len > 4 ? 4 : len),
				  xt_sge(&p->la, 4, len > 4 ? len - 4 : 0) };
	struct ibv_send_wr wr = {
		.wr_id = 0x5eed, .sg_list = sge, .num_sge = len > 4 ? 2 : 1,
		.opcode = IBV_WR_ATOMIC_WRITE,
		.send_flags = IBV_SEND_SIGNALED | (inl ? IBV_SEND_INLINE : 0),
	}, *bad;

	wr.wr.rdma.remote_addr = xt_va(&p->rb, off);
	wr.wr.rdma.rkey = p->rb.mr->rkey;
	return ibv_post_send(p->a.qp, &wr, &bad);
}

static void t_aw_post_send(void)
{
	static const char * const name[] = { "aw_post_sge", "aw_post_inline" };
	uint64_t v = VAL;
	struct pair p;
	int i;

	if (strncmp(dev_name, "xnic", 4)) {
		/* rdma-core 44's rxe provider sends no rkey for it */
		xt_skip("rxe's rdma-core 44 provider sends no wr.rdma for IBV_WR_ATOMIC_WRITE",
			"aw_post_send");
		return;
	}
	for (i = 0; i < 2; i++) {
		pair_get(&p, ACC_ALL, QP_ACC);
		memcpy(p.la.p, &v, 8);
		if (CHECK_RC(-aw_post(&p, 8 * (i + 1), 8, i), 0,
			     "%s: posted", name[i])) {
			want_wc(&p, name[i], 0, IBV_WC_ATOMIC_WRITE, 8);
			CHECK_EQ(at(&p.rb, 8 * (i + 1)), VAL, "%s: the value",
				 name[i]);
		}
		pair_free(&p);
	}
	/* 4 bytes of payload: the responder's length check (oA19-28) */
	pair_get(&p, ACC_ALL, QP_ACC);
	if (CHECK_RC(-aw_post(&p, 8, 4, false), 0, "aw_short: posted"))
		want_wc(&p, "aw_short", IBV_WC_REM_INV_REQ_ERR, 0, 0);
	CHECK_EQ(at(&p.rb, 8), 0, "aw_short: remote memory untouched");
	pair_free(&p);
}

/* ibv_wr_flush through rdma-core 56's member; 0 or the errno */
static int flush(struct pair *p, uint32_t kx, size_t off, size_t len,
		 uint8_t type, uint8_t level)
{
	struct qp_ex56 *x = (struct qp_ex56 *)p->ax;

	ibv_wr_start(p->ax);
	p->ax->wr_id = 0x5eed;
	p->ax->wr_flags = IBV_SEND_SIGNALED;
	x->wr_flush(p->ax, p->rb.mr->rkey ^ kx, xt_va(&p->rb, off), len, type,
		    level);
	return ibv_wr_complete(p->ax);
}

static void flush_case(const char *name, int rb_access, unsigned int qp_acc,
		       size_t off, size_t len, uint8_t type, uint8_t level,
		       uint32_t kx, int st)
{
	struct pair p;

	pair_get(&p, rb_access, qp_acc);
	if (CHECK_RC(-flush(&p, kx, off, len, type, level), 0, "%s: posted",
		     name))
		want_wc(&p, name, st, V56_WC_FLUSH, (uint32_t)len);
	pair_free(&p);
}

static bool flush_skip(const char *what)
{
	if (can_flush)
		return false;
	xt_skip("the library refuses IBV_QP_EX_WITH_FLUSH (rdma-core 44 has no wr_flush)",
		"%s", what);
	return true;
}

#define ACC_FG	(ACC_ALL | V56_ACCESS_FLUSH_GLOBAL)
#define QP_FG	(QP_ACC | V56_ACCESS_FLUSH_GLOBAL)
#define QP_FGP	(QP_FG | V56_ACCESS_FLUSH_PERSISTENT)

static void t_flush(void)
{
	if (flush_skip("flush"))
		return;
	flush_case("flush_range", ACC_FG, QP_FG, 0, BUF_LEN, V56_FLUSH_GLOBAL,
		   V56_FLUSH_RANGE, 0, IBV_WC_SUCCESS);
	flush_case("flush_range_empty", ACC_FG, QP_FG, 16, 0,
		   V56_FLUSH_GLOBAL, V56_FLUSH_RANGE, 0, IBV_WC_SUCCESS);
	/* the whole MR: the address and length are not looked at */
	flush_case("flush_mr", ACC_FG, QP_FG, BUF_LEN * 4, 1,
		   V56_FLUSH_GLOBAL, V56_FLUSH_MR, 0, IBV_WC_SUCCESS);
}

static void t_flush_errors(void)
{
	if (flush_skip("flush_errors"))
		return;
	flush_case("flush_no_mr_access", ACC_ALL, QP_FG, 0, 64,
		   V56_FLUSH_GLOBAL, V56_FLUSH_RANGE, 0,
		   IBV_WC_REM_ACCESS_ERR);
	flush_case("flush_no_qp_access", ACC_FG, QP_ACC, 0, 64,
		   V56_FLUSH_GLOBAL, V56_FLUSH_RANGE, 0,
		   IBV_WC_REM_INV_REQ_ERR);
	/* persistence on an MR of global visibility only */
	flush_case("flush_persistent_on_global", ACC_FG, QP_FGP, 0, 64,
		   V56_FLUSH_PERSISTENT, V56_FLUSH_RANGE, 0,
		   IBV_WC_REM_ACCESS_ERR);
	flush_case("flush_past_end", ACC_FG, QP_FG, 64, BUF_LEN,
		   V56_FLUSH_GLOBAL, V56_FLUSH_RANGE, 0,
		   IBV_WC_REM_ACCESS_ERR);
	flush_case("flush_bad_rkey", ACC_FG, QP_FG, 0, 64, V56_FLUSH_GLOBAL,
		   V56_FLUSH_MR, 0x80, IBV_WC_REM_ACCESS_ERR);
}

/* the library's own refusals: what the device cannot be sent */
static void t_flush_api(void)
{
	struct pair p;

	if (flush_skip("flush_api"))
		return;
	if (strncmp(dev_name, "xnic", 4)) {
		xt_skip("xverbs' argument checks only", "flush_api");
		return;
	}
	pair_get(&p, ACC_FG, QP_FG);
	CHECK_RC(-flush(&p, 0, 0, 64, 0, V56_FLUSH_RANGE), -EINVAL,
		 "wr_flush of type 0: EINVAL at wr_complete");
	CHECK_RC(-flush(&p, 0, 0, 64, 4, V56_FLUSH_RANGE), -EINVAL,
		 "wr_flush of an unknown type: EINVAL");
	CHECK_RC(-flush(&p, 0, 0, 64, V56_FLUSH_GLOBAL, 2), -EINVAL,
		 "wr_flush of an unknown level: EINVAL");
	CHECK_RC(-flush(&p, 0, 0, 1ULL << 32, V56_FLUSH_GLOBAL,
			V56_FLUSH_RANGE), -EINVAL,
		 "wr_flush of 4 GiB: EINVAL");
	/* nothing was posted: the QP still works */
	CHECK_RC(-flush(&p, 0, 0, 64, V56_FLUSH_GLOBAL, V56_FLUSH_RANGE), 0,
		 "then a good FLUSH");
	want_wc(&p, "flush_after_refusals", 0, V56_WC_FLUSH, 64);
	pair_free(&p);
}

static bool setup(void)
{
	struct ibv_qp_init_attr_ex ax = { 0 };
	struct ibv_cq *cq;
	struct ibv_qp *qp;

	ctx = xt_open_device(dev_name, NULL, 0);
	if (!ctx)
		return false;
	pd = ibv_alloc_pd(ctx);
	if (!pd || ibv_query_gid(ctx, XT_PORT, gid_index, &gid))
		return false;
	/* whether the library builds FLUSH WQEs at all */
	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	if (!cq)
		return false;
	ax.qp_type = IBV_QPT_RC;
	ax.send_cq = cq;
	ax.recv_cq = cq;
	ax.cap = qcap;
	ax.pd = pd;
	ax.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	ax.send_ops_flags = IBV_QP_EX_WITH_ATOMIC_WRITE | V56_QP_EX_WITH_FLUSH;
	qp = ibv_create_qp_ex(ctx, &ax);
	can_flush = !!qp;
	if (!qp)
		xt_note("IBV_QP_EX_WITH_FLUSH: %s", strerror(errno));
	else
		ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	return true;
}

static void teardown(void)
{
	if (pd && ibv_dealloc_pd(pd))
		xt_fail(NULL, "PD deallocated at the end");
	if (ctx)
		ibv_close_device(ctx);
}

static const struct xt_subtest tests[] = {
	XT_SUBTEST(caps, 0, "device_cap_flags_ex bits 38-40"),
	XT_SUBTEST(mr_access, 0, "MRs with FLUSH_GLOBAL, FLUSH_PERSISTENT"),
	XT_SUBTEST(aw_data, 0, "ibv_wr_atomic_write: value, completion"),
	XT_SUBTEST(aw_errors, 0, "ATOMIC WRITE: every remote error"),
	XT_SUBTEST(aw_post_send, 0, "ibv_post_send(IBV_WR_ATOMIC_WRITE)"),
	XT_SUBTEST(flush, 0, "wr_flush: range, empty range, whole MR"),
	XT_SUBTEST(flush_errors, 0, "FLUSH: every remote error"),
	XT_SUBTEST(flush_api, 0, "wr_flush arguments xverbs refuses"),
};

static struct xt_suite suite = {
	.tests = tests, .n = ARRAY_SIZE(tests), .timeout = 120,
	.setup = setup, .teardown = teardown,
};

int main(int argc, char **argv)
{
	const struct xt_opt opts[] = {
		{ .c = 'd', .arg = "IBDEV", .str = &dev_name },
		{ .c = 'g', .arg = "GID_INDEX", .num = &gid_index },
	};
	int ret;

	ret = xt_main(&suite, opts, ARRAY_SIZE(opts), &argc, &argv,
		      "xv_pmem");
	if (ret >= 0)
		return ret;
	xt_show_library();
	xt_run(&suite, argc, argv);
	return xt_done();
}
