// SPDX-License-Identifier: GPL-2.0
/*
 * xv_rdma56: a program built against rdma-core 56's headers (Debian 13's
 * libibverbs-dev, fetched at test time by scripts/xverbs-rdma56.sh, never
 * committed) on xrdma's libibverbs.so.1, which keeps rdma-core 44's ABI.
 * It goes through every inline of 56's <infiniband/verbs.h> that reads
 * the library's objects or passes it a structure whose size changed
 * (Documentation/userspace.rst, "Programs built against newer
 * rdma-core"); run over xrdma with scripts/xrdma-run
 * (tools/testing/lib/xverbs/xverbs_rdma56.sh).
 *
 *   wr_ops      RC QPs of one device in loopback, every ibv_wr_* builder
 *               and setter rdma-core 44 had, through 56's inlines: each
 *               completes with its own opcode and moves its data
 *   wr_new      ibv_wr_flush (56's new slot), ibv_wr_atomic_write,
 *               ibv_wr_send_tso: where the device lacks the operation
 *               (its capability bit in device_cap_flags_ex), the batch
 *               fails with EOPNOTSUPP at ibv_wr_complete, nothing of it is
 *               posted and the QP goes on working; where it has it, the
 *               operation completes as itself
 *   wr_misc     ibv_wr_abort posts nothing; ibv_wr_set_xrc_srqn on RC is
 *               EINVAL; ibv_wr_set_ud_addr on UD delivers
 *   create_qp   ibv_create_qp_ex with 56's send_ops_flags (FLUSH,
 *               ATOMIC_WRITE: EOPNOTSUPP unless the device has them, a bit
 *               beyond them EOPNOTSUPP); ibv_reg_mr with 56's
 *               IBV_ACCESS_FLUSH_* (EOPNOTSUPP unless the device has
 *               that FLUSH type, as Linux 6.12's ib_check_mr_access;
 *               PERSISTENT of ordinary memory EINVAL, as rxe)
 *   query_port  ibv_query_port with 56's struct ibv_port_attr (a new
 *               active_speed_ex behind 44's): all of it written,
 *               active_speed_ex 0; the old-ABI entry writes nothing past
 *               its structure
 *   query_dev   ibv_query_device_ex with 56's attr size, every byte
 *               written; input comp_mask EINVAL; the op with a size beyond
 *               ours zeroes the tail, below orig_attr EINVAL;
 *               verbs_context's sz is 56's sizeof
 *   ctx_ops     every verbs_get_ctx_op()-guarded inline: the ops the
 *               library has work, the others are EOPNOTSUPP
 *   misc        ibv_query_qp_data_in_order with 56's flags,
 *               ibv_wr_opcode_str (56's IBVERBS_PRIVATE_34 symbol)
 *
 *   -d IBDEV  device (xnic0)
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <endian.h>
#include <infiniband/verbs.h>
#include "xt.h"
#include "xt_verbs.h"

/*
 * built against rdma-core 56's verbs.h, not the system's 44 (there:
 * "IBV_WR_FLUSH undeclared")
 */
static_assert(IBV_WR_FLUSH == 14 && IBV_QP_EX_WITH_FLUSH == (1 << 11),
	      "rdma-core 56's verbs.h");
static_assert(offsetof(struct ibv_qp_ex, wr_flush) ==
	      offsetof(struct ibv_qp_ex, wr_atomic_write) + sizeof(void *) &&
	      sizeof(struct ibv_qp_ex) ==
	      offsetof(struct ibv_qp_ex, wr_flush) + sizeof(void *),
	      "56's ibv_qp_ex: wr_flush appended to 44's");
static_assert(offsetof(struct ibv_port_attr, active_speed_ex) >
	      offsetof(struct ibv_port_attr, port_cap_flags2),
	      "56's ibv_port_attr: active_speed_ex appended");

#define WAIT_MS		5000
#define QUIET_MS	300
#define BUF_LEN		65536
#define ACC		(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC | \
			 IBV_ACCESS_MW_BIND)
#define RC_OPS		(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
			 IBV_QP_EX_WITH_RDMA_WRITE | \
			 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
			 IBV_QP_EX_WITH_RDMA_READ | \
			 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
			 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | \
			 IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW | \
			 IBV_QP_EX_WITH_SEND_WITH_INV)
/*
 * device_cap_flags_ex bits: IB_UVERBS_DEVICE_FLUSH_GLOBAL/PERSISTENT and
 * _ATOMIC_WRITE of <rdma/ib_user_verbs.h> since Linux 6.2 (rdma-core 56's
 * copy of it is not installed; Debian 12's linux-libc-dev is 6.1's)
 */
#define CAP_FLUSH_GLOBAL	(1ULL << 38)
#define CAP_FLUSH_PERSISTENT	(1ULL << 39)
#define CAP_ATOMIC_WRITE	(1ULL << 40)

/* offsets in a side's buffer */
#define SRC		0
#define DST		4096
#define RDMA		8192
#define ATOM		16384

static const char *dev_name = "xnic0";
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static union ibv_gid gid;
static uint64_t cap_ex;			/* device_cap_flags_ex */

struct side {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_qp_ex *qx;
	struct xt_buf b;
};

static struct ibv_qp *qp_ex_new(enum ibv_qp_type type, struct ibv_cq *cq,
				uint64_t ops)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = type, .send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 32, .max_recv_wr = 32,
			 .max_send_sge = 2, .max_recv_sge = 2,
			 .max_inline_data = 64 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd, .send_ops_flags = ops,
	};

	errno = 0;
	return ibv_create_qp_ex(ctx, &a);
}

static bool side_new(struct side *s, enum ibv_qp_type type, uint64_t ops,
		     int access)
{
	memset(s, 0, sizeof(*s));
	s->cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!s->cq)
		return false;
	s->qp = qp_ex_new(type, s->cq, ops);
	if (!s->qp) {
		xt_note("ibv_create_qp_ex(ops %#llx): %s",
			(unsigned long long)ops, strerror(errno));
		return false;
	}
	s->qx = ibv_qp_to_qp_ex(s->qp);
	return s->qx && xt_buf_new(&s->b, pd, BUF_LEN, access);
}

static void side_free(struct side *s)
{
	if (s->qp)
		CHECK_RC(-ibv_destroy_qp(s->qp), 0, "destroy a QP");
	if (s->cq)
		CHECK_RC(-ibv_destroy_cq(s->cq), 0, "destroy a CQ");
	if (s->b.mr)
		CHECK_RC(-xt_buf_free(&s->b), 0, "dereg a buffer");
}

/* two RC QPs connected to each other, with @ops and MRs of @access */
static void rc_pair(struct side *a, struct side *b, uint64_t ops, int access)
{
	if (!side_new(a, IBV_QPT_RC, ops, access) ||
	    !side_new(b, IBV_QPT_RC, ops, access))
		xt_bail(errno, "RC QPs (ops %#llx), CQs and MRs",
			(unsigned long long)ops);
	if (xt_rc_rts(a->qp, b->qp->qp_num, &gid, IBV_MTU_1024, NULL) ||
	    xt_rc_rts(b->qp, a->qp->qp_num, &gid, IBV_MTU_1024, NULL))
		xt_bail(0, "connecting the QPs");
}

static bool post_recv(struct side *s, uint64_t wr_id, size_t off,
		      uint32_t len)
{
	struct ibv_sge sg = xt_sge(&s->b, off, len);
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sg,
				  .num_sge = 1 }, *bad;

	return !ibv_post_recv(s->qp, &wr, &bad);
}

/*
 * the next completion on @s: its status, opcode and wr_id must be these;
 * false (with a failed check) otherwise
 */
static bool expect_wc(struct side *s, struct ibv_wc *wc, enum ibv_wc_opcode op,
		      uint64_t wr_id, const char *what)
{
	if (!xt_poll_one(s->cq, wc, WAIT_MS))
		return xt_fail("no completion", "%s: completes", what);
	return xt_ok(wc->status == IBV_WC_SUCCESS && wc->opcode == op &&
		     wc->wr_id == wr_id, NULL,
		     "%s: status %s (%d), opcode %d (want %d), wr_id %llu (want %llu)",
		     what, ibv_wc_status_str(wc->status), wc->status,
		     wc->opcode, op, (unsigned long long)wc->wr_id,
		     (unsigned long long)wr_id);
}

static bool quiet(struct side *s)
{
	struct ibv_wc wc;

	return xt_poll_n(s->cq, &wc, 1, QUIET_MS) == 0;
}

static void start(struct side *s, uint64_t wr_id, unsigned int flags)
{
	ibv_wr_start(s->qx);
	s->qx->wr_id = wr_id;
	s->qx->wr_flags = IBV_SEND_SIGNALED | flags;
}

/* ------------------------------------------------------------ wr_ops */

static void wr_sends(struct side *a, struct side *b)
{
	struct ibv_sge sl[2] = { xt_sge(&a->b, SRC, 100),
				 xt_sge(&a->b, SRC + 100, 28) };
	struct ibv_wc wc;

	xt_pat_fill(a->b.p + SRC, 4096, 1);
	if (!post_recv(b, 100, DST, 4096))
		xt_bail(errno, "post_recv");
	start(a, 1, 0);
	ibv_wr_send(a->qx);
	ibv_wr_set_sge(a->qx, a->b.mr->lkey, xt_va(&a->b, SRC), 64);
	CHECK_RC(-ibv_wr_complete(a->qx), 0, "ibv_wr_send + set_sge posted");
	expect_wc(a, &wc, IBV_WC_SEND, 1, "ibv_wr_send");
	if (expect_wc(b, &wc, IBV_WC_RECV, 100, "ibv_wr_send: received"))
		CHECK(wc.byte_len == 64 && xt_pat_check(b->b.p + DST, 64, 1) < 0,
		      "ibv_wr_send: 64 bytes of data (byte_len %u)",
		      wc.byte_len);

	if (!post_recv(b, 101, DST, 4096))
		xt_bail(errno, "post_recv");
	start(a, 2, 0);
	ibv_wr_send_imm(a->qx, htobe32(0x12345678));
	ibv_wr_set_sge_list(a->qx, 2, sl);
	CHECK_RC(-ibv_wr_complete(a->qx), 0,
		 "ibv_wr_send_imm + set_sge_list posted");
	expect_wc(a, &wc, IBV_WC_SEND, 2, "ibv_wr_send_imm");
	if (expect_wc(b, &wc, IBV_WC_RECV, 101, "ibv_wr_send_imm: received"))
		CHECK(wc.byte_len == 128 && (wc.wc_flags & IBV_WC_WITH_IMM) &&
		      wc.imm_data == htobe32(0x12345678) &&
		      xt_pat_check(b->b.p + DST, 128, 1) < 0,
		      "ibv_wr_send_imm: 2 SGEs, 128 bytes, the immediate");
}

static void wr_writes(struct side *a, struct side *b)
{
	struct ibv_data_buf db[2] = {
		{ a->b.p + SRC + 512, 20 }, { a->b.p + SRC + 532, 12 },
	};
	struct ibv_wc wc;

	xt_pat_fill(a->b.p + SRC, 4096, 2);
	start(a, 3, IBV_SEND_INLINE);
	ibv_wr_rdma_write(a->qx, b->b.mr->rkey, xt_va(&b->b, RDMA));
	ibv_wr_set_inline_data(a->qx, a->b.p + SRC, 48);
	CHECK_RC(-ibv_wr_complete(a->qx), 0,
		 "ibv_wr_rdma_write + set_inline_data posted");
	if (expect_wc(a, &wc, IBV_WC_RDMA_WRITE, 3, "ibv_wr_rdma_write"))
		CHECK(xt_pat_check(b->b.p + RDMA, 48, 2) < 0,
		      "ibv_wr_rdma_write: the data arrived");

	if (!post_recv(b, 102, DST, 4096))
		xt_bail(errno, "post_recv");
	start(a, 4, IBV_SEND_INLINE);
	ibv_wr_rdma_write_imm(a->qx, b->b.mr->rkey, xt_va(&b->b, RDMA + 1024),
			      htobe32(0xabcdef01));
	ibv_wr_set_inline_data_list(a->qx, 2, db);
	CHECK_RC(-ibv_wr_complete(a->qx), 0,
		 "ibv_wr_rdma_write_imm + set_inline_data_list posted");
	expect_wc(a, &wc, IBV_WC_RDMA_WRITE, 4, "ibv_wr_rdma_write_imm");
	if (expect_wc(b, &wc, IBV_WC_RECV_RDMA_WITH_IMM, 102,
		      "ibv_wr_rdma_write_imm: the receiver's completion"))
		CHECK(wc.imm_data == htobe32(0xabcdef01) &&
		      !memcmp(b->b.p + RDMA + 1024, a->b.p + SRC + 512, 32),
		      "ibv_wr_rdma_write_imm: immediate and 32 bytes");

	xt_pat_fill(b->b.p + RDMA + 2048, 256, 3);
	start(a, 5, 0);
	ibv_wr_rdma_read(a->qx, b->b.mr->rkey, xt_va(&b->b, RDMA + 2048));
	ibv_wr_set_sge(a->qx, a->b.mr->lkey, xt_va(&a->b, DST), 256);
	CHECK_RC(-ibv_wr_complete(a->qx), 0, "ibv_wr_rdma_read posted");
	if (expect_wc(a, &wc, IBV_WC_RDMA_READ, 5, "ibv_wr_rdma_read"))
		CHECK(xt_pat_check(a->b.p + DST, 256, 3) < 0,
		      "ibv_wr_rdma_read: the data was read");
}

static void wr_atomics(struct side *a, struct side *b)
{
	uint64_t *remote = (uint64_t *)(b->b.p + ATOM);
	uint64_t *local = (uint64_t *)(a->b.p + ATOM);
	struct ibv_wc wc;

	*remote = 5;
	start(a, 6, 0);
	ibv_wr_atomic_cmp_swp(a->qx, b->b.mr->rkey, xt_va(&b->b, ATOM), 5, 9);
	ibv_wr_set_sge(a->qx, a->b.mr->lkey, xt_va(&a->b, ATOM), 8);
	CHECK_RC(-ibv_wr_complete(a->qx), 0, "ibv_wr_atomic_cmp_swp posted");
	if (expect_wc(a, &wc, IBV_WC_COMP_SWAP, 6, "ibv_wr_atomic_cmp_swp"))
		CHECK(*local == 5 && *remote == 9,
		      "ibv_wr_atomic_cmp_swp: 5 read, 9 written (%llu, %llu)",
		      (unsigned long long)*local,
		      (unsigned long long)*remote);
	start(a, 7, 0);
	ibv_wr_atomic_fetch_add(a->qx, b->b.mr->rkey, xt_va(&b->b, ATOM), 3);
	ibv_wr_set_sge(a->qx, a->b.mr->lkey, xt_va(&a->b, ATOM), 8);
	CHECK_RC(-ibv_wr_complete(a->qx), 0, "ibv_wr_atomic_fetch_add posted");
	if (expect_wc(a, &wc, IBV_WC_FETCH_ADD, 7, "ibv_wr_atomic_fetch_add"))
		CHECK(*local == 9 && *remote == 12,
		      "ibv_wr_atomic_fetch_add: 9 read, 12 left (%llu, %llu)",
		      (unsigned long long)*local,
		      (unsigned long long)*remote);
}

/* a type 2 window of b's buffer: bind, LOCAL_INV, bind, SEND_WITH_INV */
static void wr_windows(struct side *a, struct side *b)
{
	struct ibv_mw_bind_info bi = {
		.mr = b->b.mr, .addr = xt_va(&b->b, RDMA), .length = 4096,
		.mw_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	struct ibv_mw *mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	struct ibv_wc wc;
	uint32_t rkey;

	if (!mw)
		xt_bail(errno, "ibv_alloc_mw(type 2)");
	rkey = ibv_inc_rkey(mw->rkey);
	start(b, 20, 0);
	ibv_wr_bind_mw(b->qx, mw, rkey, &bi);
	CHECK_RC(-ibv_wr_complete(b->qx), 0, "ibv_wr_bind_mw posted");
	expect_wc(b, &wc, IBV_WC_BIND_MW, 20, "ibv_wr_bind_mw");
	start(b, 21, 0);
	ibv_wr_local_inv(b->qx, rkey);
	CHECK_RC(-ibv_wr_complete(b->qx), 0, "ibv_wr_local_inv posted");
	expect_wc(b, &wc, IBV_WC_LOCAL_INV, 21, "ibv_wr_local_inv");

	rkey = ibv_inc_rkey(rkey);
	start(b, 22, 0);
	ibv_wr_bind_mw(b->qx, mw, rkey, &bi);
	CHECK_RC(-ibv_wr_complete(b->qx), 0, "ibv_wr_bind_mw again posted");
	expect_wc(b, &wc, IBV_WC_BIND_MW, 22, "ibv_wr_bind_mw again");
	if (!post_recv(b, 103, DST, 4096))
		xt_bail(errno, "post_recv");
	start(a, 8, 0);
	ibv_wr_send_inv(a->qx, rkey);
	ibv_wr_set_sge(a->qx, a->b.mr->lkey, xt_va(&a->b, SRC), 16);
	CHECK_RC(-ibv_wr_complete(a->qx), 0, "ibv_wr_send_inv posted");
	expect_wc(a, &wc, IBV_WC_SEND, 8, "ibv_wr_send_inv");
	if (expect_wc(b, &wc, IBV_WC_RECV, 103, "ibv_wr_send_inv: received"))
		CHECK((wc.wc_flags & IBV_WC_WITH_INV) &&
		      wc.invalidated_rkey == rkey,
		      "ibv_wr_send_inv: the window's rkey %#x invalidated (%#x)",
		      rkey, wc.invalidated_rkey);
	CHECK_RC(-ibv_dealloc_mw(mw), 0, "window deallocated");
}

static void t_wr_ops(void)
{
	struct side a, b;

	rc_pair(&a, &b, RC_OPS, ACC);
	wr_sends(&a, &b);
	wr_writes(&a, &b);
	wr_atomics(&a, &b);
	wr_windows(&a, &b);
	side_free(&a);
	side_free(&b);
}

/* ------------------------------------------------------------ wr_new */

enum new_op { OP_FLUSH, OP_ATOMIC_WRITE, OP_TSO };

static const char *const new_name[] = {
	[OP_FLUSH] = "ibv_wr_flush",
	[OP_ATOMIC_WRITE] = "ibv_wr_atomic_write",
	[OP_TSO] = "ibv_wr_send_tso",
};

static void new_op(struct side *a, struct side *b, enum new_op op,
		   uint8_t placement)
{
	static const uint64_t val = 0x0123456789abcdefULL;
	char hdr[64] = { 0 };

	switch (op) {
	case OP_FLUSH:
		ibv_wr_flush(a->qx, b->b.mr->rkey, xt_va(&b->b, RDMA), 64,
			     placement, IBV_FLUSH_RANGE);
		break;
	case OP_ATOMIC_WRITE:
		ibv_wr_atomic_write(a->qx, b->b.mr->rkey, xt_va(&b->b, ATOM),
				    &val);
		break;
	case OP_TSO:
		ibv_wr_send_tso(a->qx, hdr, sizeof(hdr), 1024);
		ibv_wr_set_sge(a->qx, a->b.mr->lkey, xt_va(&a->b, SRC), 64);
		break;
	}
}

/* what the device lacks: the whole batch fails, the QP goes on */
static void new_unsupported(enum new_op op)
{
	const char *n = new_name[op];
	struct ibv_wc wc;
	struct side a, b;

	rc_pair(&a, &b, RC_OPS, ACC);
	if (!post_recv(&b, 200, DST, 4096))
		xt_bail(errno, "post_recv");
	start(&a, 10, 0);
	ibv_wr_send(a.qx);
	ibv_wr_set_sge(a.qx, a.b.mr->lkey, xt_va(&a.b, SRC), 8);
	a.qx->wr_id = 11;
	new_op(&a, &b, op, IBV_FLUSH_GLOBAL);
	CHECK_RC(-ibv_wr_complete(a.qx), -EOPNOTSUPP,
		 "%s (no device capability): ibv_wr_complete EOPNOTSUPP", n);
	CHECK(quiet(&a) && quiet(&b),
	      "%s: nothing of the failed batch was posted", n);
	CHECK_EQ(xt_qp_state(a.qp), QPS_RTS, "%s: the QP is still in RTS", n);
	start(&a, 12, 0);
	ibv_wr_send(a.qx);
	ibv_wr_set_sge(a.qx, a.b.mr->lkey, xt_va(&a.b, SRC), 8);
	CHECK_RC(-ibv_wr_complete(a.qx), 0, "%s: the next batch posts", n);
	expect_wc(&a, &wc, IBV_WC_SEND, 12, "after the failed batch: a SEND");
	expect_wc(&b, &wc, IBV_WC_RECV, 200,
		  "after the failed batch: its receive is the first");
	side_free(&a);
	side_free(&b);
}

/* what the device has: the operation completes as itself */
static void new_supported(enum new_op op, uint64_t qp_op, int access,
			  enum ibv_wc_opcode wc_op, uint8_t placement)
{
	const char *n = new_name[op];
	struct ibv_wc wc;
	struct side a, b;

	rc_pair(&a, &b, RC_OPS | qp_op, ACC | access);
	/* a FLUSH needs the responder QP's FLUSH access too (rxe, 6.12) */
	if (access) {
		struct ibv_qp_attr qa = {
			.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
					   IBV_ACCESS_REMOTE_READ |
					   IBV_ACCESS_REMOTE_ATOMIC | access,
		};

		if (ibv_modify_qp(b.qp, &qa, IBV_QP_ACCESS_FLAGS))
			xt_bail(errno, "modify_qp: FLUSH access");
	}
	*(uint64_t *)(b.b.p + ATOM) = 0;
	start(&a, 13, 0);
	new_op(&a, &b, op, placement);
	CHECK_RC(-ibv_wr_complete(a.qx), 0, "%s (device capability): posted",
		 n);
	expect_wc(&a, &wc, wc_op, 13, n);
	if (op == OP_ATOMIC_WRITE)
		CHECK_EQ(*(uint64_t *)(b.b.p + ATOM), 0x0123456789abcdefULL,
			 "%s: the 8 bytes arrived", n);
	side_free(&a);
	side_free(&b);
}

static void t_wr_new(void)
{
	uint64_t fl = cap_ex & (CAP_FLUSH_GLOBAL | CAP_FLUSH_PERSISTENT);

	xt_note("device_cap_flags_ex %#llx: FLUSH %s, ATOMIC_WRITE %s",
		(unsigned long long)cap_ex, fl ? "yes" : "no",
		cap_ex & CAP_ATOMIC_WRITE ? "yes" : "no");
	/* (a persistent flush needs persistent memory: global here) */
	if (fl & CAP_FLUSH_GLOBAL)
		new_supported(OP_FLUSH, IBV_QP_EX_WITH_FLUSH,
			      IBV_ACCESS_FLUSH_GLOBAL, IBV_WC_FLUSH,
			      IBV_FLUSH_GLOBAL);
	else if (fl)
		xt_skip("FLUSH persistent only: no persistent memory here",
			"ibv_wr_flush");
	else
		new_unsupported(OP_FLUSH);
	if (cap_ex & CAP_ATOMIC_WRITE)
		new_supported(OP_ATOMIC_WRITE, IBV_QP_EX_WITH_ATOMIC_WRITE, 0,
			      IBV_WC_ATOMIC_WRITE, 0);
	else
		new_unsupported(OP_ATOMIC_WRITE);
	/* TSO is for UD/raw packet QPs with tso_caps; xnic has none */
	new_unsupported(OP_TSO);
}

/* ------------------------------------------------------------ wr_misc */

static void t_wr_misc(void)
{
	struct ibv_ah_attr ah_attr = {
		.is_global = 1, .port_num = XT_PORT,
		.grh = { .dgid = gid, .sgid_index = XT_GID_INDEX,
			 .hop_limit = 1 },
	};
	struct ibv_ah *ah;
	struct ibv_wc wc;
	struct side a, b;

	rc_pair(&a, &b, RC_OPS, ACC);
	if (!post_recv(&b, 300, DST, 4096))
		xt_bail(errno, "post_recv");
	start(&a, 30, 0);
	ibv_wr_send(a.qx);
	ibv_wr_set_sge(a.qx, a.b.mr->lkey, xt_va(&a.b, SRC), 8);
	ibv_wr_abort(a.qx);
	CHECK(quiet(&a) && quiet(&b), "ibv_wr_abort: nothing posted");
	start(&a, 31, 0);
	ibv_wr_send(a.qx);
	ibv_wr_set_xrc_srqn(a.qx, 5);
	ibv_wr_set_sge(a.qx, a.b.mr->lkey, xt_va(&a.b, SRC), 8);
	CHECK_RC(-ibv_wr_complete(a.qx), -EINVAL,
		 "ibv_wr_set_xrc_srqn on an RC QP: EINVAL");
	CHECK(quiet(&a) && quiet(&b), "ibv_wr_set_xrc_srqn: nothing posted");
	start(&a, 32, 0);
	ibv_wr_send(a.qx);
	ibv_wr_set_sge(a.qx, a.b.mr->lkey, xt_va(&a.b, SRC), 8);
	CHECK_RC(-ibv_wr_complete(a.qx), 0, "a SEND after those");
	expect_wc(&a, &wc, IBV_WC_SEND, 32, "the SEND after abort");
	expect_wc(&b, &wc, IBV_WC_RECV, 300, "its receive is the first");
	side_free(&a);
	side_free(&b);

	if (!side_new(&a, IBV_QPT_UD, IBV_QP_EX_WITH_SEND, ACC) ||
	    !side_new(&b, IBV_QPT_UD, IBV_QP_EX_WITH_SEND, ACC) ||
	    xt_ud_rts(a.qp, 0x11111111) || xt_ud_rts(b.qp, 0x11111111))
		xt_bail(errno, "UD QPs");
	ah = ibv_create_ah(pd, &ah_attr);
	if (!ah)
		xt_bail(errno, "ibv_create_ah");
	xt_pat_fill(a.b.p + SRC, 100, 4);
	if (!post_recv(&b, 301, DST, 4096))
		xt_bail(errno, "post_recv");
	start(&a, 33, 0);
	ibv_wr_send(a.qx);
	ibv_wr_set_ud_addr(a.qx, ah, b.qp->qp_num, 0x11111111);
	ibv_wr_set_sge(a.qx, a.b.mr->lkey, xt_va(&a.b, SRC), 100);
	CHECK_RC(-ibv_wr_complete(a.qx), 0, "UD: ibv_wr_set_ud_addr posted");
	expect_wc(&a, &wc, IBV_WC_SEND, 33, "UD: the SEND");
	if (expect_wc(&b, &wc, IBV_WC_RECV, 301, "UD: received"))
		CHECK(wc.byte_len == 140 && wc.src_qp == a.qp->qp_num &&
		      xt_pat_check(b.b.p + DST + 40, 100, 4) < 0,
		      "UD: 40 + 100 bytes from the sender's QPN (%u, %u)",
		      wc.byte_len, wc.src_qp);
	CHECK_RC(-ibv_destroy_ah(ah), 0, "destroy the AH");
	side_free(&a);
	side_free(&b);
}

/* ------------------------------------------------------------ create_qp */

static void create_rc(uint64_t ops, bool ok, const char *what)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	struct ibv_qp *qp;

	if (!cq)
		xt_bail(errno, "ibv_create_cq");
	qp = qp_ex_new(IBV_QPT_RC, cq, ops);
	if (ok)
		CHECK(qp, "create_qp_ex RC with %s: created (%s)", what,
		      qp ? "ok" : strerror(errno));
	else
		CHECK(!qp && errno == EOPNOTSUPP,
		      "create_qp_ex RC with %s: EOPNOTSUPP (errno %s)", what,
		      qp ? "none: created" : xt_errname(errno));
	if (qp)
		ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
}

/*
 * 56's access bits through its ibv_reg_mr(): as Linux 6.12's core
 * (EOPNOTSUPP without the capability) and rxe (FLUSH_PERSISTENT of
 * memory that is not persistent memory: EINVAL); @want 0 or an errno
 */
static void reg_flush(int bit, int want, const char *what)
{
	void *buf = aligned_alloc(4096, 4096);
	struct ibv_mr *mr;

	if (!buf)
		xt_bail(ENOMEM, "aligned_alloc");
	errno = 0;
	mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | bit);
	if (!want)
		CHECK(mr, "ibv_reg_mr with %s: registered (%s)", what,
		      mr ? "ok" : strerror(errno));
	else
		CHECK(!mr && errno == want, "ibv_reg_mr with %s: %s (%s)",
		      what, xt_errname(want),
		      mr ? "registered" : xt_errname(errno));
	if (mr)
		ibv_dereg_mr(mr);
	free(buf);
}

static void t_create_qp(void)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	struct ibv_qp *qp;

	create_rc(IBV_QP_EX_WITH_FLUSH,
		  cap_ex & (CAP_FLUSH_GLOBAL | CAP_FLUSH_PERSISTENT),
		  "IBV_QP_EX_WITH_FLUSH");
	create_rc(IBV_QP_EX_WITH_ATOMIC_WRITE, cap_ex & CAP_ATOMIC_WRITE,
		  "IBV_QP_EX_WITH_ATOMIC_WRITE");
	create_rc(IBV_QP_EX_WITH_ATOMIC_WRITE << 1, false,
		  "a send_ops_flags bit beyond rdma-core 56's");
	create_rc(RC_OPS, true, "rdma-core 44's RC operations");
	reg_flush(IBV_ACCESS_FLUSH_GLOBAL,
		  cap_ex & CAP_FLUSH_GLOBAL ? 0 : EOPNOTSUPP,
		  "IBV_ACCESS_FLUSH_GLOBAL");
	reg_flush(IBV_ACCESS_FLUSH_PERSISTENT,
		  cap_ex & CAP_FLUSH_PERSISTENT ? EINVAL : EOPNOTSUPP,
		  "IBV_ACCESS_FLUSH_PERSISTENT of ordinary memory");
	if (!cq)
		xt_bail(errno, "ibv_create_cq");
	qp = qp_ex_new(IBV_QPT_UD, cq,
		       IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_FLUSH);
	CHECK(!qp && errno == EOPNOTSUPP,
	      "create_qp_ex UD with IBV_QP_EX_WITH_FLUSH: EOPNOTSUPP (%s)",
	      qp ? "created" : xt_errname(errno));
	if (qp)
		ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
}

/* ------------------------------------------------------------ query_port */

static void t_query_port(void)
{
	struct ibv_port_attr pa, pz;
	unsigned char *p = (unsigned char *)&pa;
	size_t off = offsetof(struct ibv_port_attr, port_cap_flags2), i;

	xt_note("rdma-core 56's struct ibv_port_attr: %zu bytes, active_speed_ex at %zu",
		sizeof(pa), offsetof(struct ibv_port_attr, active_speed_ex));
	memset(&pa, 0xa5, sizeof(pa));
	memset(&pz, 0, sizeof(pz));
	CHECK_RC(-ibv_query_port(ctx, XT_PORT, &pa), 0, "ibv_query_port");
	CHECK_RC(-ibv_query_port(ctx, XT_PORT, &pz), 0,
		 "ibv_query_port into a zeroed structure");
	CHECK_EQ(pa.active_speed_ex, 0,
		 "active_speed_ex (behind 44's structure) reads 0");
	CHECK_EQ(pa.state, IBV_PORT_ACTIVE, "the port is ACTIVE");
	CHECK(!memcmp(&pa, &pz, sizeof(pa)),
	      "every byte of 56's structure written (0xa5- and 0-filled agree)");

	/* the old ABI's entry point: up to flags, nothing beyond */
	memset(&pa, 0xa5, sizeof(pa));
	CHECK_RC(-(ibv_query_port)(ctx, XT_PORT,
				   (struct _compat_ibv_port_attr *)&pa), 0,
		 "the IBVERBS_1.1 ibv_query_port (struct _compat_ibv_port_attr)");
	for (i = off; i < sizeof(pa) && p[i] == 0xa5; i++)
		;
	CHECK(i == sizeof(pa),
	      "it wrote nothing past its structure (byte %zu of %zu)", i,
	      sizeof(pa));
	CHECK(!memcmp(&pa, &pz, off), "and the same up to flags");
}

/* ------------------------------------------------------------ query_dev */

static void t_query_dev(void)
{
	struct ibv_query_device_ex_input in = { .comp_mask = 1 };
	struct verbs_context *v = verbs_get_ctx(ctx);
	struct ibv_device_attr_ex ax, az;
	struct ibv_device_attr da;
	size_t big = sizeof(ax) + 64, i;
	unsigned char *buf;

	xt_note("rdma-core 56's struct ibv_device_attr_ex: %zu bytes, struct verbs_context %zu",
		sizeof(ax), sizeof(*v));
	if (!CHECK(v, "verbs_get_ctx: an extended context"))
		return;
	CHECK_EQ(v->sz, sizeof(struct verbs_context),
		 "verbs_context.sz is rdma-core 56's sizeof (every op in it)");

	memset(&ax, 0xa5, sizeof(ax));
	memset(&az, 0, sizeof(az));
	CHECK_RC(-ibv_query_device_ex(ctx, NULL, &ax), 0, "ibv_query_device_ex");
	CHECK_RC(-ibv_query_device_ex(ctx, NULL, &az), 0,
		 "ibv_query_device_ex into a zeroed structure");
	CHECK(!memcmp(&ax, &az, sizeof(ax)),
	      "every byte of 56's structure written (0xa5- and 0-filled agree)");
	CHECK_RC(-ibv_query_device(ctx, &da), 0, "ibv_query_device");
	CHECK(!memcmp(&da, &ax.orig_attr, sizeof(da)),
	      "orig_attr is ibv_query_device's answer");
	CHECK_EQ(ax.phys_port_cnt_ex, da.phys_port_cnt, "phys_port_cnt_ex");
	CHECK_RC(-ibv_query_device_ex(ctx, &in, &ax), -EINVAL,
		 "input comp_mask 1: EINVAL");

	/* the op as a newer verbs.h would call it: a larger structure */
	buf = malloc(big + 8);
	if (!buf)
		xt_bail(ENOMEM, "malloc");
	memset(buf, 0xa5, big + 8);
	CHECK_RC(-v->query_device_ex(ctx, NULL, (void *)buf, big), 0,
		 "query_device_ex with %zu bytes (64 beyond 56's)", big);
	CHECK(!memcmp(buf, &az, sizeof(az)), "56's part as before");
	for (i = sizeof(az); i < big && !buf[i]; i++)
		;
	CHECK(i == big, "the 64 bytes beyond read 0 (byte %zu)", i);
	for (i = big; i < big + 8 && buf[i] == 0xa5; i++)
		;
	CHECK(i == big + 8, "nothing written past the size");
	memset(buf, 0xa5, big + 8);
	CHECK_RC(-v->query_device_ex(ctx, NULL, (void *)buf,
				     sizeof(struct ibv_device_attr)), 0,
		 "query_device_ex with orig_attr's size");
	CHECK(!memcmp(buf, &da, sizeof(da)) &&
	      buf[sizeof(da)] == 0xa5, "orig_attr only");
	CHECK_RC(-v->query_device_ex(ctx, NULL, (void *)buf,
				     sizeof(struct ibv_device_attr) - 1),
		 -EINVAL, "query_device_ex below orig_attr's size: EINVAL");
	free(buf);
}

/* ------------------------------------------------------------ ctx_ops */

/* @p, what a call returned with errno 0 before it: NULL, errno @want */
static void check_null(void *p, int want, const char *what)
{
	CHECK(!p && errno == want, "%s: NULL, errno %s (%s)", what,
	      xt_errname(want), p ? "an object" : xt_errname(errno));
}

#define CHECK_NULL(call, want, what) \
	check_null((errno = 0, (void *)(call)), (want), (what))

static void ctx_ops_absent(struct ibv_qp *qp, struct ibv_cq *cq,
			   struct ibv_srq *srq)
{
	struct ibv_flow_attr fa = { .size = sizeof(fa), .port = XT_PORT };
	struct ibv_flow_action_esp_attr esp = { 0 };
	struct ibv_wq_init_attr wa = { .wq_type = IBV_WQT_RQ, .max_wr = 1,
				       .max_sge = 1, .pd = pd, .cq = cq };
	struct ibv_rwq_ind_table_init_attr ia = { 0 };
	struct ibv_counters_init_attr ca = { 0 };
	struct ibv_modify_cq_attr mc = {
		.attr_mask = IBV_CQ_ATTR_MODERATE,
		.moderate = { .cq_count = 1, .cq_period = 1 },
	};
	struct ibv_qp_rate_limit_attr rl = { .rate_limit = 1000 };
	struct ibv_ops_wr ow = { .opcode = IBV_WR_TAG_SYNC };
	struct ibv_ops_wr *bad_ow;
	struct ibv_counter_attach_attr cat = { 0 };
	uint64_t cnt[1];
	struct ibv_sge sg = { 0 };
	/* objects the library never makes: the inlines read only ->context */
	struct ibv_flow flow = { .context = ctx };
	struct ibv_flow_action act = { .context = ctx };
	struct ibv_wq wq = { .context = ctx };
	struct ibv_rwq_ind_table ind = { .context = ctx };
	struct ibv_counters ctr = { .context = ctx };
	struct ibv_wq_attr wqa = { 0 };

	CHECK_NULL(ibv_create_flow(qp, &fa), EOPNOTSUPP, "ibv_create_flow");
	CHECK_RC(-ibv_destroy_flow(&flow), -EOPNOTSUPP, "ibv_destroy_flow");
	CHECK_NULL(ibv_create_flow_action_esp(ctx, &esp), EOPNOTSUPP,
		   "ibv_create_flow_action_esp");
	CHECK_RC(-ibv_modify_flow_action_esp(&act, &esp), -EOPNOTSUPP,
		 "ibv_modify_flow_action_esp");
	CHECK_RC(-ibv_destroy_flow_action(&act), -EOPNOTSUPP,
		 "ibv_destroy_flow_action");
	CHECK_RC(-ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sg, 1),
		 -EOPNOTSUPP, "ibv_advise_mr");
	CHECK_NULL(ibv_alloc_null_mr(pd), EOPNOTSUPP, "ibv_alloc_null_mr");
	CHECK_RC(-ibv_modify_cq(cq, &mc), -EOPNOTSUPP, "ibv_modify_cq");
	CHECK_RC(-ibv_post_srq_ops(srq, &ow, &bad_ow), -EOPNOTSUPP,
		 "ibv_post_srq_ops");
	CHECK_RC(-ibv_modify_qp_rate_limit(qp, &rl), -EOPNOTSUPP,
		 "ibv_modify_qp_rate_limit");
	CHECK_NULL(ibv_create_wq(ctx, &wa), EOPNOTSUPP, "ibv_create_wq");
	CHECK_RC(-ibv_modify_wq(&wq, &wqa), -EOPNOTSUPP, "ibv_modify_wq");
	CHECK_RC(-ibv_destroy_wq(&wq), -EOPNOTSUPP, "ibv_destroy_wq");
	CHECK_NULL(ibv_create_rwq_ind_table(ctx, &ia), EOPNOTSUPP,
		   "ibv_create_rwq_ind_table");
	CHECK_RC(-ibv_destroy_rwq_ind_table(&ind), -EOPNOTSUPP,
		 "ibv_destroy_rwq_ind_table");
	CHECK_NULL(ibv_create_counters(ctx, &ca), EOPNOTSUPP,
		   "ibv_create_counters");
	CHECK_RC(-ibv_destroy_counters(&ctr), -EOPNOTSUPP,
		 "ibv_destroy_counters");
	CHECK_RC(-ibv_attach_counters_point_flow(&ctr, &cat, &flow),
		 -EOPNOTSUPP, "ibv_attach_counters_point_flow");
	CHECK_RC(-ibv_read_counters(&ctr, cnt, 1, 0), -EOPNOTSUPP,
		 "ibv_read_counters");
}

static void ctx_ops_xrc(void)
{
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1, .oflags = O_CREAT,
	};
	struct ibv_qp_open_attr oa = { .comp_mask = 0 };
	struct ibv_xrcd *xrcd;

	errno = 0;
	xrcd = ibv_open_xrcd(ctx, &xa);
	if (!CHECK(xrcd, "ibv_open_xrcd (%s)", xrcd ? "ok" : strerror(errno)))
		return;
	oa.xrcd = xrcd;
	CHECK_NULL(ibv_open_qp(ctx, &oa), EINVAL,
		   "ibv_open_qp without NUM, XRCD, TYPE");
	CHECK_RC(-ibv_close_xrcd(xrcd), 0, "ibv_close_xrcd");
}

static void ctx_ops_dm(uint64_t max_dm)
{
	struct ibv_alloc_dm_attr da = { .length = 4096 };
	struct ibv_dm *dm;
	struct ibv_mr *mr;

	if (!max_dm) {
		CHECK_NULL(ibv_alloc_dm(ctx, &da), EOPNOTSUPP,
			   "ibv_alloc_dm without device memory");
		return;
	}
	errno = 0;
	dm = ibv_alloc_dm(ctx, &da);
	if (!CHECK(dm, "ibv_alloc_dm (%s)", dm ? "ok" : strerror(errno)))
		return;
	mr = ibv_reg_dm_mr(pd, dm, 0, 4096, IBV_ACCESS_ZERO_BASED |
			   IBV_ACCESS_LOCAL_WRITE);
	CHECK(mr, "ibv_reg_dm_mr (%s)", mr ? "ok" : strerror(errno));
	if (mr)
		CHECK_RC(-ibv_dereg_mr(mr), 0, "dereg the DM MR");
	CHECK_RC(-ibv_free_dm(dm), 0, "ibv_free_dm");
}

static void t_ctx_ops(void)
{
	struct ibv_cq_init_attr_ex cqa = {
		.cqe = 8, .wc_flags = IBV_WC_EX_WITH_BYTE_LEN,
	};
	struct ibv_srq_init_attr_ex sa = {
		.attr = { .max_wr = 4, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD,
		.srq_type = IBV_SRQT_BASIC, .pd = pd,
	};
	struct ibv_parent_domain_init_attr pda = { .pd = pd };
	struct ibv_td_init_attr ta = { 0 };
	struct ibv_values_ex vx = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	struct ibv_device_attr_ex ax;
	struct ibv_cq_ex *cqx;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	struct ibv_td *td;
	struct ibv_pd *ppd;
	uint32_t srqn = ~0u;

	if (ibv_query_device_ex(ctx, NULL, &ax))
		xt_bail(errno, "ibv_query_device_ex");
	CHECK_RC(-ibv_query_rt_values_ex(ctx, &vx), 0,
		 "ibv_query_rt_values_ex RAW_CLOCK");
	CHECK_EQ(vx.comp_mask, IBV_VALUES_MASK_RAW_CLOCK,
		 "ibv_query_rt_values_ex answered RAW_CLOCK");

	cqa.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD << 1;
	CHECK_NULL(ibv_create_cq_ex(ctx, &cqa), EOPNOTSUPP,
		   "ibv_create_cq_ex with a comp_mask bit beyond PD");
	cqa.comp_mask = 0;
	errno = 0;
	cqx = ibv_create_cq_ex(ctx, &cqa);
	if (!CHECK(cqx, "ibv_create_cq_ex (%s)",
		   cqx ? "ok" : strerror(errno)))
		xt_bail(errno, "ibv_create_cq_ex");
	qp = qp_ex_new(IBV_QPT_RC, ibv_cq_ex_to_cq(cqx), RC_OPS);
	if (!CHECK(qp, "ibv_create_qp_ex (%s)", qp ? "ok" : strerror(errno)))
		xt_bail(errno, "ibv_create_qp_ex");
	errno = 0;
	srq = ibv_create_srq_ex(ctx, &sa);
	if (!CHECK(srq, "ibv_create_srq_ex BASIC (%s)",
		   srq ? "ok" : strerror(errno)))
		xt_bail(errno, "ibv_create_srq_ex");
	CHECK_RC(-ibv_get_srq_num(srq, &srqn), 0, "ibv_get_srq_num");

	errno = 0;
	td = ibv_alloc_td(ctx, &ta);
	if (CHECK(td, "ibv_alloc_td (%s)", td ? "ok" : strerror(errno))) {
		pda.td = td;
		errno = 0;
		ppd = ibv_alloc_parent_domain(ctx, &pda);
		if (CHECK(ppd, "ibv_alloc_parent_domain (%s)",
			  ppd ? "ok" : strerror(errno)))
			CHECK_RC(-ibv_dealloc_pd(ppd), 0,
				 "dealloc the parent domain");
		CHECK_RC(-ibv_dealloc_td(td), 0, "ibv_dealloc_td");
	}
	if (ax.orig_attr.device_cap_flags & IBV_DEVICE_XRC)
		ctx_ops_xrc();
	else
		CHECK_NULL(ibv_open_xrcd(ctx, &(struct ibv_xrcd_init_attr){
				.comp_mask = IBV_XRCD_INIT_ATTR_FD |
					     IBV_XRCD_INIT_ATTR_OFLAGS,
				.fd = -1, .oflags = O_CREAT }),
			   EOPNOTSUPP, "ibv_open_xrcd without XRC");
	ctx_ops_dm(ax.max_dm_size);

	ctx_ops_absent(qp, ibv_cq_ex_to_cq(cqx), srq);

	CHECK_RC(-ibv_destroy_srq(srq), 0, "destroy the SRQ");
	CHECK_RC(-ibv_destroy_qp(qp), 0, "destroy the QP");
	CHECK_RC(-ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)), 0, "destroy the CQ");
}

/* ------------------------------------------------------------ misc */

static void t_misc(void)
{
	const uint32_t caps = IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS;
	struct ibv_cq *cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	struct ibv_qp *rc, *ud;
	static const struct {
		int op;
		const char *name;
	} names[] = {
		{ IBV_WR_RDMA_WRITE, "rdma-write" }, { IBV_WR_SEND, "send" },
		{ IBV_WR_ATOMIC_FETCH_AND_ADD, "atomic-fetch-and-add" },
		{ IBV_WR_DRIVER1, "driver1" }, { IBV_WR_FLUSH, "flush" },
		{ IBV_WR_ATOMIC_WRITE, "atomic-write" },
		{ 12, "unknown" }, { 16, "unknown" }, { -1, "unknown" },
	};
	size_t i;

	if (!cq)
		xt_bail(errno, "ibv_create_cq");
	rc = qp_ex_new(IBV_QPT_RC, cq, IBV_QP_EX_WITH_SEND);
	ud = qp_ex_new(IBV_QPT_UD, cq, IBV_QP_EX_WITH_SEND);
	if (!rc || !ud)
		xt_bail(errno, "QPs");
	CHECK_EQ(ibv_query_qp_data_in_order(rc, IBV_WR_RDMA_WRITE, 0), 1,
		 "data_in_order RC, flags 0: 1");
	CHECK_EQ(ibv_query_qp_data_in_order(rc, IBV_WR_RDMA_WRITE, caps),
		 IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG |
		 IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES,
		 "data_in_order RC, RETURN_CAPS: WHOLE_MSG | ALIGNED_128_BYTES");
	CHECK_EQ(ibv_query_qp_data_in_order(rc, IBV_WR_RDMA_WRITE, 2), 0,
		 "data_in_order RC, an unknown flag: 0");
	CHECK_EQ(ibv_query_qp_data_in_order(ud, IBV_WR_SEND, caps), 0,
		 "data_in_order UD, RETURN_CAPS: 0");
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		const char *s = ibv_wr_opcode_str((enum ibv_wr_opcode)names[i].op);

		CHECK(s && !strcmp(s, names[i].name),
		      "ibv_wr_opcode_str(%d) is \"%s\" (\"%s\")", names[i].op,
		      names[i].name, s ? s : "(null)");
	}
	ibv_destroy_qp(rc);
	ibv_destroy_qp(ud);
	ibv_destroy_cq(cq);
}

/* ------------------------------------------------------------ main */

static bool setup(void)
{
	struct ibv_device_attr_ex a;

	ctx = xt_open_device(dev_name, NULL, 0);
	if (!ctx || ibv_query_device_ex(ctx, NULL, &a) ||
	    ibv_query_gid(ctx, XT_PORT, XT_GID_INDEX, &gid))
		return false;
	cap_ex = a.device_cap_flags_ex;
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
	XT_SUBTEST(wr_ops, 0, "every 44 ibv_wr_* builder and setter works"),
	XT_SUBTEST(wr_new, 0,
		   "wr_flush, wr_atomic_write, wr_send_tso: EOPNOTSUPP or work"),
	XT_SUBTEST(wr_misc, 0, "wr_abort, set_xrc_srqn on RC, set_ud_addr"),
	XT_SUBTEST(create_qp, 0, "56's send_ops_flags and FLUSH access bits"),
	XT_SUBTEST(query_port, 0, "56's ibv_port_attr, all of it written"),
	XT_SUBTEST(query_dev, 0, "query_device_ex sizes; verbs_context sz"),
	XT_SUBTEST(ctx_ops, 0, "every verbs_get_ctx_op-guarded inline"),
	XT_SUBTEST(misc, 0, "data_in_order flags, ibv_wr_opcode_str"),
};

static struct xt_suite suite = {
	.tests = tests, .n = ARRAY_SIZE(tests), .timeout = 60,
	.setup = setup, .teardown = teardown,
};

int main(int argc, char **argv)
{
	const struct xt_opt opts[] = {
		{ .c = 'd', .arg = "IBDEV", .str = &dev_name },
	};
	int ret;

	ret = xt_main(&suite, opts, ARRAY_SIZE(opts), &argc, &argv,
		      "xv_rdma56");
	if (ret >= 0)
		return ret;
	xt_show_library();
	xt_run(&suite, argc, argv);
	return xt_done();
}
