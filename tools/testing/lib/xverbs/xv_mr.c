// SPDX-License-Identifier: GPL-2.0
/*
 * xv_mr: ibv_rereg_mr and ibv_reg_dmabuf_mr as rdma-core 44 and the verbs
 * define them, through xrdma's libibverbs.so.1 on an xnic device (guest
 * test xverbs_mr).  Built
 * against the system's <infiniband/verbs.h>; every remote access goes
 * through a fresh loopback RC pair on the PD it is made from (an access
 * error moves a pair to ERR).
 *
 *   trans     CHANGE_TRANSLATION: the new range is read and written with
 *             the new keys, data verified; the old range is not reachable
 *             with the new rkey, the old keys reach nothing, locally
 *             (LOC_PROT_ERR) or remotely (REM_ACCESS_ERR); keys keep
 *             their index and change their tag
 *   access    CHANGE_ACCESS keeps lkey and rkey (as mlx5 and rxe; rdma-core's
 *             test_mr_rereg_access writes with the rkeys it had): remote
 *             write refused, then allowed with the same rkey, then refused
 *             again with it; an MR pinned read-only over untouched
 *             anonymous memory and given write access (a re-pin: keys kept
 *             too) is written through the process's own pages
 *   pd        CHANGE_PD keeps the keys: only QPs of the new PD reach it;
 *             the new PD is busy while the MR is in it; moving to its own
 *             PD
 *   combos    every combination of the three flags: fields, keys (new
 *             with CHANGE_TRANSLATION, else kept), data, the old rkey
 *             refused after a new translation, rights and PD as asked
 *   input     IBV_REREG_MR_ERR_INPUT and ERR_CMD with the errno
 *             rdma-core and ib_core answer; the MR unchanged and working
 *             after each; the REREG_MR ioctl's own negative cases (bad
 *             handle, object type, reserved field, short size, flags)
 *   inflight  RDMA WRITEs in flight while the translation changes: every
 *             one completes once, successfully or with an error, and none
 *             reaches the new range
 *   threads   two threads re-registering one MR: each call succeeds or
 *             is EBUSY; the MR works afterwards
 *   pinned    VmPin follows the MR's pages through re-registration and
 *             returns to where it was after dereg
 *   dmabuf    an MR over part of a vgem dmabuf (DRM dumb buffer, PRIME
 *             export; needs vgem loaded): READ, WRITE, SEND from and RECV
 *             into it, data checked through the dmabuf's own mapping,
 *             nothing outside the range touched, the MR working after the
 *             fd is closed, rereg refused; bad fd, non-dmabuf fd, ranges
 *             outside the dmabuf, iova page offset, rights = errno; the
 *             REG_DMABUF_MR ioctl's negative cases
 *
 *   -d IBDEV  device (xnic0)   -t WAIT_MS  completion wait (5000)
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <infiniband/verbs.h>
#include <xrdma/xrdma-abi.h>
#include "xt.h"
#include "xt_verbs.h"

#define PG	4096UL
#define RWR	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		 IBV_ACCESS_REMOTE_READ)
#define LBUF	(64 * 1024)

static const char *dev_name = "xnic0";
static int wait_ms = 5000;
static unsigned int watchdog = 600;
static struct ibv_context *ctx;
static struct ibv_pd *pd0, *pd1;
static union ibv_gid gid;
static enum ibv_mtu mtu;

/* a loopback RC pair on one PD and a local buffer registered there */
struct pair {
	struct xt_ep a, b;
	struct xt_buf l;
};

static void pair_free(struct pair *p)
{
	struct xt_ep *e[] = { &p->a, &p->b };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(e); i++) {
		if (e[i]->qp && ibv_destroy_qp(e[i]->qp))
			xt_fail(NULL, "teardown: destroy QP");
		if (e[i]->cq && ibv_destroy_cq(e[i]->cq))
			xt_fail(NULL, "teardown: destroy CQ");
	}
	if (p->l.mr && xt_buf_free(&p->l))
		xt_fail(NULL, "teardown: dereg the pair's buffer");
	memset(p, 0, sizeof(*p));
}

static bool pair_new(struct pair *p, struct ibv_pd *pd)
{
	const struct ibv_qp_cap cap = {
		.max_send_wr = 128, .max_recv_wr = 8,
		.max_send_sge = 1, .max_recv_sge = 1,
	};

	memset(p, 0, sizeof(*p));
	if (xt_ep_new(&p->a, pd, IBV_QPT_RC, 256, &cap) &&
	    xt_ep_new(&p->b, pd, IBV_QPT_RC, 256, &cap) &&
	    !xt_rc_rts(p->a.qp, p->b.qp->qp_num, &gid, mtu, NULL) &&
	    !xt_rc_rts(p->b.qp, p->a.qp->qp_num, &gid, mtu, NULL) &&
	    xt_buf_new(&p->l, pd, LBUF, RWR))
		return true;
	xt_fail(NULL, "setup: a connected RC pair");
	pair_free(p);
	return false;
}

/* the status of one signaled WR's completion, or -1 */
static int post_wait(struct ibv_qp *qp, struct ibv_cq *cq,
		     struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	struct ibv_wc wc;

	wr->send_flags = IBV_SEND_SIGNALED;
	wr->wr_id = 0x77;
	if (ibv_post_send(qp, wr, &bad))
		return -1;
	if (!xt_poll_one(cq, &wc, wait_ms) || wc.wr_id != 0x77)
		return -1;
	return wc.status;
}

/*
 * RDMA WRITE of @len pattern bytes (@seed) to @raddr/@rkey from a fresh
 * pair on @pd: the completion's status, -1 if none
 */
static int probe_write(struct ibv_pd *pd, void *raddr, uint32_t rkey,
		       uint32_t len, uint32_t seed)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_RDMA_WRITE, .num_sge = 1 };
	struct ibv_sge s;
	struct pair p;
	int st;

	if (!pair_new(&p, pd))
		return -1;
	xt_pat_fill(p.l.p, len, seed);
	s = xt_sge(&p.l, 0, len);
	wr.sg_list = &s;
	wr.wr.rdma.remote_addr = (uintptr_t)raddr;
	wr.wr.rdma.rkey = rkey;
	st = post_wait(p.a.qp, p.a.cq, &wr);
	pair_free(&p);
	return st;
}

/* RDMA READ of @len bytes into @out (when it succeeds), as probe_write */
static int probe_read(struct ibv_pd *pd, void *raddr, uint32_t rkey,
		      uint32_t len, void *out)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_RDMA_READ, .num_sge = 1 };
	struct ibv_sge s;
	struct pair p;
	int st;

	if (!pair_new(&p, pd))
		return -1;
	memset(p.l.p, 0xee, len);
	s = xt_sge(&p.l, 0, len);
	wr.sg_list = &s;
	wr.wr.rdma.remote_addr = (uintptr_t)raddr;
	wr.wr.rdma.rkey = rkey;
	st = post_wait(p.a.qp, p.a.cq, &wr);
	if (st == IBV_WC_SUCCESS)
		memcpy(out, p.l.p, len);
	pair_free(&p);
	return st;
}

/*
 * SEND of @len bytes at @addr with @lkey (the MR under test as a local
 * SGE) on a fresh pair of @pd: the sender's status; on success the
 * receiver must have got the bytes, else -1
 */
static int probe_send(struct ibv_pd *pd, void *addr, uint32_t lkey,
		      uint32_t len)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND, .num_sge = 1 };
	struct ibv_recv_wr rwr = { .wr_id = 5, .num_sge = 1 }, *rbad;
	struct ibv_sge s = { .addr = (uintptr_t)addr, .length = len,
			     .lkey = lkey }, rs;
	struct ibv_wc wc;
	struct pair p;
	int st;

	if (!pair_new(&p, pd))
		return -1;
	memset(p.l.p, 0, len);
	rs = xt_sge(&p.l, 0, len);
	rwr.sg_list = &rs;
	wr.sg_list = &s;
	if (ibv_post_recv(p.b.qp, &rwr, &rbad)) {
		pair_free(&p);
		return -1;
	}
	st = post_wait(p.a.qp, p.a.cq, &wr);
	if (st == IBV_WC_SUCCESS &&
	    (!xt_poll_one(p.b.cq, &wc, wait_ms) ||
	     wc.status != IBV_WC_SUCCESS || wc.byte_len != len ||
	     memcmp(p.l.p, addr, len)))
		st = -1;
	pair_free(&p);
	return st;
}

static const char *st_name(int st)
{
	return st < 0 ? "no completion" : ibv_wc_status_str(st);
}

/* a completion status (or -1) against the one wanted */
__printf(3, 4)
static bool check_st(int got, int want, const char *fmt, ...)
{
	char name[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	return xt_ok(got == want, st_name(got), "%s", name);
}

#define CHECK_ST check_st

/* page-aligned anonymous memory, filled with pattern @seed */
static uint8_t *area(size_t len, uint32_t seed)
{
	uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		xt_bail(errno, "mmap %zu", len);
	xt_pat_fill(p, len, seed);
	return p;
}

/* the first offset in [@from, @to) of @p not pattern @seed (of @p), or -1 */
static long pat_from(const uint8_t *p, size_t from, size_t to, uint32_t seed)
{
	size_t i;

	for (i = from; i < to; i++)
		if (p[i] != xt_pat_byte(seed, i))
			return (long)i;
	return -1;
}

/* a new key of the same MR: same index, another tag */
static bool key_renewed(uint32_t now, uint32_t before)
{
	return now != before && now >> 8 == before >> 8;
}

/* what a rereg without CHANGE_TRANSLATION left: the MR's keys as they were */
static bool keys_kept(struct ibv_mr *mr, uint32_t lk, uint32_t rk)
{
	return mr->lkey == lk && mr->rkey == rk;
}

/* ------------------------------------------------------------ trans */

static void t_trans(void)
{
	uint8_t *a = area(3 * PG, 1), *b = area(5 * PG, 2);
	uint8_t buf[8192];
	struct ibv_mr *mr;
	uint32_t lk, rk;
	long bad[3];

	mr = ibv_reg_mr(pd0, a + 100, 8000, RWR);
	if (!mr)
		xt_bail(errno, "reg_mr");
	lk = mr->lkey;
	rk = mr->rkey;
	CHECK_ST(probe_read(pd0, a + 100, rk, 8000, buf), IBV_WC_SUCCESS,
		 "trans: READ of the first range");
	CHECK(!memcmp(buf, a + 100, 8000), "trans: first range's data");

	CHECK_RC(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL,
			      b + 200, 12000, 0), 0, "trans: rereg");
	CHECK(mr->addr == b + 200 && mr->length == 12000 && mr->pd == pd0 &&
	      mr->context == ctx, "trans: addr, length set, pd kept");
	CHECK(key_renewed(mr->lkey, lk) && key_renewed(mr->rkey, rk),
	      "trans: lkey 0x%x rkey 0x%x -> 0x%x 0x%x (same index, new tag)",
	      lk, rk, mr->lkey, mr->rkey);

	CHECK_ST(probe_read(pd0, b + 200, mr->rkey, 8192, buf),
		 IBV_WC_SUCCESS, "trans: READ of the new range");
	CHECK(!memcmp(buf, b + 200, 8192), "trans: new range's data");
	CHECK_ST(probe_write(pd0, b + 200 + 4000, mr->rkey, 8000, 3),
		 IBV_WC_SUCCESS, "trans: WRITE into the new range");
	CHECK(xt_pat_check(b + 200 + 4000, 8000, 3) < 0,
	      "trans: WRITE's data in the new range");
	CHECK_ST(probe_write(pd0, b + 200 + 11000, mr->rkey, 1001, 3),
		 IBV_WC_REM_ACCESS_ERR,
		 "trans: WRITE one byte past the new length");

	CHECK_ST(probe_read(pd0, a + 100, mr->rkey, 64, buf),
		 IBV_WC_REM_ACCESS_ERR,
		 "trans: the old range with the new rkey");
	CHECK_ST(probe_write(pd0, b + 200, rk, 64, 4), IBV_WC_REM_ACCESS_ERR,
		 "trans: the new range with the old rkey");
	CHECK_ST(probe_write(pd0, a + 100, rk, 64, 4), IBV_WC_REM_ACCESS_ERR,
		 "trans: the old range with the old rkey");
	CHECK_ST(probe_send(pd0, b + 300, mr->lkey, 5000), IBV_WC_SUCCESS,
		 "trans: SEND from the new range with the new lkey");
	CHECK_ST(probe_send(pd0, a + 100, mr->lkey, 64), IBV_WC_LOC_PROT_ERR,
		 "trans: SEND from the old range with the new lkey");
	CHECK_ST(probe_send(pd0, b + 300, lk, 64), IBV_WC_LOC_PROT_ERR,
		 "trans: SEND with the old lkey");
	CHECK(xt_pat_check(a, 3 * PG, 1) < 0,
	      "trans: the old range never written");
	bad[0] = xt_pat_check(b, 4200, 2);
	bad[1] = xt_pat_check(b + 4200, 8000, 3);
	bad[2] = pat_from(b, 12200, 5 * PG, 2);
	CHECK(bad[0] < 0 && bad[1] < 0 && bad[2] < 0,
	      "trans: the new range written only by the WRITE that worked (first bad bytes %ld %ld %ld)",
	      bad[0], bad[1], bad[2]);
	CHECK_RC(ibv_dereg_mr(mr), 0, "trans: dereg");
	munmap(a, 3 * PG);
	munmap(b, 5 * PG);
}

/* ------------------------------------------------------------ access */

static void t_access(void)
{
	uint8_t *a = area(2 * PG, 5), *z, buf[64];
	struct ibv_mr *mr;
	uint32_t lk, rk;

	mr = ibv_reg_mr(pd0, a, 2 * PG,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!mr)
		xt_bail(errno, "reg_mr");
	CHECK_ST(probe_write(pd0, a, mr->rkey, 512, 6), IBV_WC_REM_ACCESS_ERR,
		 "access: WRITE without REMOTE_WRITE");
	CHECK(xt_pat_check(a, 2 * PG, 5) < 0, "access: nothing written");
	lk = mr->lkey;
	rk = mr->rkey;
	CHECK_RC(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			      RWR), 0, "access: rereg to add REMOTE_WRITE");
	CHECK(keys_kept(mr, lk, rk) && mr->addr == a && mr->length == 2 * PG,
	      "access: lkey 0x%x rkey 0x%x -> 0x%x 0x%x (kept), range kept",
	      lk, rk, mr->lkey, mr->rkey);
	/* the peer's rkey from before the rereg: rdma-core's test */
	CHECK_ST(probe_write(pd0, a + 100, rk, 6000, 6), IBV_WC_SUCCESS,
		 "access: WRITE with the rkey from before, now REMOTE_WRITE");
	CHECK(xt_pat_check(a + 100, 6000, 6) < 0, "access: WRITE's data");
	CHECK_RC(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			      IBV_ACCESS_LOCAL_WRITE), 0,
		 "access: rereg to local write only");
	CHECK(keys_kept(mr, lk, rk), "access: keys kept again");
	/* the same key loses its rights at once */
	CHECK_ST(probe_read(pd0, a, rk, 64, buf),
		 IBV_WC_REM_ACCESS_ERR, "access: READ without REMOTE_READ");
	CHECK_ST(probe_write(pd0, a, rk, 64, 6), IBV_WC_REM_ACCESS_ERR,
		 "access: WRITE with the kept rkey, REMOTE_WRITE dropped");
	CHECK(xt_pat_check(a, 100, 5) < 0, "access: nothing written then");
	CHECK_ST(probe_send(pd0, a, lk, 64), IBV_WC_SUCCESS,
		 "access: the lkey still works locally");
	CHECK_RC(ibv_dereg_mr(mr), 0, "access: dereg");

	/*
	 * Untouched private anonymous memory pinned read-only is the zero
	 * page; write access needs the process's own pages, pinned for write
	 */
	z = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (z == MAP_FAILED)
		xt_bail(errno, "mmap");
	mr = ibv_reg_mr(pd0, z, 2 * PG, 0);
	if (!xt_check(mr, "access: reg_mr of untouched memory, no rights"))
		return;
	lk = mr->lkey;
	rk = mr->rkey;
	CHECK_RC(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			      RWR), 0, "access: rereg to remote write");
	CHECK(keys_kept(mr, lk, rk), "access: keys kept over the re-pin");
	CHECK_ST(probe_write(pd0, z + 10, mr->rkey, 2 * PG - 20, 7),
		 IBV_WC_SUCCESS, "access: WRITE into it");
	CHECK(xt_pat_check(z + 10, 2 * PG - 20, 7) < 0,
	      "access: the process sees the WRITE (its pages, pinned for write)");
	CHECK_RC(ibv_dereg_mr(mr), 0, "access: dereg");
	munmap(z, 2 * PG);
	munmap(a, 2 * PG);
}

/* ------------------------------------------------------------ pd */

static void t_pd(void)
{
	uint8_t *a = area(2 * PG, 8), buf[256];
	struct ibv_pd *pd2 = ibv_alloc_pd(ctx);
	struct ibv_mr *mr;
	uint32_t lk, rk;

	if (!pd2)
		xt_bail(errno, "alloc_pd");
	mr = ibv_reg_mr(pd0, a, 2 * PG, RWR);
	if (!mr)
		xt_bail(errno, "reg_mr");
	lk = mr->lkey;
	rk = mr->rkey;
	CHECK_RC(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0), 0,
		 "pd: rereg to another PD");
	CHECK(mr->pd == pd2 && mr->addr == a && keys_kept(mr, lk, rk),
	      "pd: pd set, range kept, keys kept");
	CHECK_ST(probe_read(pd0, a, mr->rkey, 256, buf),
		 IBV_WC_REM_ACCESS_ERR, "pd: READ from a QP of the old PD");
	CHECK_ST(probe_read(pd2, a, mr->rkey, 256, buf), IBV_WC_SUCCESS,
		 "pd: READ from a QP of the new PD");
	CHECK(!memcmp(buf, a, 256), "pd: READ's data");
	CHECK_ST(probe_send(pd0, a, mr->lkey, 64), IBV_WC_LOC_PROT_ERR,
		 "pd: SEND on a QP of the old PD");
	CHECK_ST(probe_send(pd2, a, mr->lkey, 64), IBV_WC_SUCCESS,
		 "pd: SEND on a QP of the new PD");
	CHECK(ibv_dealloc_pd(pd2) == EBUSY,
	      "pd: dealloc of the MR's new PD is EBUSY");
	CHECK_RC(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0), 0,
		 "pd: rereg to the PD it is in");
	CHECK(mr->pd == pd2 && keys_kept(mr, lk, rk), "pd: same PD, keys kept");
	CHECK_RC(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, pd0, NULL, 0, 0), 0,
		 "pd: rereg back");
	CHECK_RC(ibv_dealloc_pd(pd2), 0, "pd: the other PD is free again");
	CHECK_ST(probe_write(pd0, a + 8, mr->rkey, 100, 9), IBV_WC_SUCCESS,
		 "pd: WRITE from a QP of the first PD again");
	CHECK(xt_pat_check(a + 8, 100, 9) < 0, "pd: WRITE's data");
	CHECK_RC(ibv_dereg_mr(mr), 0, "pd: dereg");
	munmap(a, 2 * PG);
}

/* ------------------------------------------------------------ combos */

static void t_combos(void)
{
	static const char *const fname[] = {
		"", "T", "P", "TP", "A", "TA", "PA", "TPA",
	};
	int f;

	for (f = 1; f <= IBV_REREG_MR_FLAGS_SUPPORTED; f++) {
		bool tr = f & IBV_REREG_MR_CHANGE_TRANSLATION;
		bool chpd = f & IBV_REREG_MR_CHANGE_PD;
		bool acc = f & IBV_REREG_MR_CHANGE_ACCESS;
		uint8_t *a = area(2 * PG, 10 + f), *b = area(3 * PG, 20 + f);
		uint8_t *exp = tr ? b : a, buf[1024];
		size_t len = tr ? 3 * PG - 64 : 2 * PG;
		struct ibv_pd *pd = chpd ? pd1 : pd0;
		const char *n = fname[f];
		struct ibv_mr *mr;
		uint32_t lk, rk;

		mr = ibv_reg_mr(pd0, a, 2 * PG, RWR);
		if (!mr)
			xt_bail(errno, "reg_mr");
		lk = mr->lkey;
		rk = mr->rkey;
		CHECK_RC(ibv_rereg_mr(mr, f, chpd ? pd1 : NULL,
				      tr ? b + 64 : NULL, tr ? len : 0,
				      acc ? IBV_ACCESS_LOCAL_WRITE |
					    IBV_ACCESS_REMOTE_READ : 0),
			 0, "combos %s: rereg", n);
		if (tr)
			exp += 64;
		CHECK(mr->addr == exp && mr->length == len && mr->pd == pd &&
		      (tr ? key_renewed(mr->lkey, lk) &&
			    key_renewed(mr->rkey, rk) :
			    keys_kept(mr, lk, rk)),
		      "combos %s: addr, length, pd, keys %s", n,
		      tr ? "new" : "kept");
		CHECK_ST(probe_read(pd, exp + len - 1024, mr->rkey, 1024, buf),
			 IBV_WC_SUCCESS, "combos %s: READ the MR's end", n);
		CHECK(!memcmp(buf, exp + len - 1024, 1024),
		      "combos %s: READ's data", n);
		CHECK_ST(probe_write(pd, exp, mr->rkey, 512, 30),
			 acc ? IBV_WC_REM_ACCESS_ERR : IBV_WC_SUCCESS,
			 "combos %s: WRITE %s", n,
			 acc ? "refused (REMOTE_WRITE dropped)" : "works");
		CHECK(acc ? (tr ? xt_pat_check(b, 3 * PG, 20 + f) :
				  xt_pat_check(a, 2 * PG, 10 + f)) < 0 :
			    xt_pat_check(exp, 512, 30) < 0,
		      "combos %s: memory as the WRITE's status says", n);
		if (tr)
			CHECK_ST(probe_read(pd, exp, rk, 64, buf),
				 IBV_WC_REM_ACCESS_ERR, "combos %s: old rkey",
				 n);
		if (chpd)
			CHECK_ST(probe_read(pd0, exp, mr->rkey, 64, buf),
				 IBV_WC_REM_ACCESS_ERR,
				 "combos %s: QP of the old PD", n);
		if (tr)
			CHECK_ST(probe_read(pd, a, mr->rkey, 64, buf),
				 IBV_WC_REM_ACCESS_ERR,
				 "combos %s: old range", n);
		CHECK_RC(ibv_dereg_mr(mr), 0, "combos %s: dereg", n);
		munmap(a, 2 * PG);
		munmap(b, 3 * PG);
	}
}

/* ------------------------------------------------------------ input */

/* the MR still has @lk/@rk, @addr and works for READ */
static void still_same(struct ibv_mr *mr, uint32_t lk, uint32_t rk,
		       void *addr, const char *what)
{
	uint8_t buf[64];

	CHECK(mr->lkey == lk && mr->rkey == rk && mr->addr == addr &&
	      mr->pd == pd0, "input %s: the MR unchanged", what);
	CHECK_ST(probe_read(pd0, addr, rk, 64, buf), IBV_WC_SUCCESS,
		 "input %s: the MR still works", what);
}

static void rereg_fails(struct ibv_mr *mr, int flags, struct ibv_pd *pd,
			void *addr, size_t len, int access, int want_ret,
			int want_errno, const char *what)
{
	uint32_t lk = mr->lkey, rk = mr->rkey;
	void *old = mr->addr;
	int ret;

	errno = 0;
	ret = ibv_rereg_mr(mr, flags, pd, addr, len, access);
	xt_ok(ret == want_ret && errno == want_errno, xt_errname(errno),
	      "input %s: %d, errno %s", what, want_ret,
	      xt_errname(want_errno));
	still_same(mr, lk, rk, old, what);
}

static int rereg_ioctl(struct xrdma_cmd_rereg_mr *c, size_t size)
{
	unsigned long req = _IOC(_IOC_READ | _IOC_WRITE, XRDMA_IOC_MAGIC,
				 _IOC_NR(XRDMA_IOC_REREG_MR), size);

	return ioctl(ctx->cmd_fd, req, c) ? -errno : 0;
}

static void t_input(void)
{
	const int T = IBV_REREG_MR_CHANGE_TRANSLATION,
		  P = IBV_REREG_MR_CHANGE_PD, A = IBV_REREG_MR_CHANGE_ACCESS;
	const int IN = IBV_REREG_MR_ERR_INPUT, CMD = IBV_REREG_MR_ERR_CMD;
	uint8_t *a = area(2 * PG, 40), *gone = area(2 * PG, 41), *ro;
	struct xrdma_cmd_rereg_mr c;
	struct ibv_device_attr da;
	struct ibv_mr *mr;

	if (ibv_query_device(ctx, &da))
		xt_bail(errno, "query_device");
	munmap(gone, 2 * PG);
	ro = mmap(NULL, 2 * PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro == MAP_FAILED)
		xt_bail(errno, "mmap");
	mr = ibv_reg_mr(pd0, a, 2 * PG, RWR);
	if (!mr)
		xt_bail(errno, "reg_mr");

	/* refused by the library, as rdma-core's ibv_rereg_mr */
	rereg_fails(mr, 8, NULL, NULL, 0, 0, IN, EINVAL, "unknown flag");
	rereg_fails(mr, -1, pd0, a, PG, RWR, IN, EINVAL, "flags -1");
	rereg_fails(mr, T, NULL, NULL, PG, 0, IN, EINVAL, "TRANS, addr NULL");
	rereg_fails(mr, T, NULL, a, 0, 0, IN, EINVAL, "TRANS, length 0");
	rereg_fails(mr, P, NULL, NULL, 0, IBV_ACCESS_LOCAL_WRITE, IN, EINVAL,
		    "access without CHANGE_ACCESS");
	rereg_fails(mr, P, NULL, NULL, 0, 0, IN, EINVAL, "CHANGE_PD, pd NULL");
	/* refused by the kernel, as ib_core's */
	rereg_fails(mr, 0, NULL, NULL, 0, 0, CMD, EINVAL, "no flag");
	rereg_fails(mr, A, NULL, NULL, 0, IBV_ACCESS_REMOTE_WRITE, CMD, EINVAL,
		    "REMOTE_WRITE without LOCAL_WRITE");
	rereg_fails(mr, A, NULL, NULL, 0,
		    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC |
		    IBV_ACCESS_ON_DEMAND, CMD, EINVAL, "unknown access bit");
	rereg_fails(mr, T, NULL, gone, 2 * PG, 0, CMD, EFAULT,
		    "TRANS to unmapped memory");
	rereg_fails(mr, T | A, NULL, ro, 2 * PG, RWR, CMD, EFAULT,
		    "TRANS for write to read-only memory");
	if (da.max_mr_size < SIZE_MAX / 2)
		rereg_fails(mr, T, NULL, a, da.max_mr_size + 1, 0, CMD,
			    EINVAL, "TRANS beyond max_mr_size");
	else
		xt_fail("max_mr_size", "input: max_mr_size 0x%llx reported",
			(unsigned long long)da.max_mr_size);
	rereg_fails(mr, T, NULL, (void *)(uintptr_t)-PG, 2 * PG, 0, CMD,
		    EINVAL, "TRANS range wrapping");

	/* the ioctl itself */
	memset(&c, 0, sizeof(c));
	c.mr_handle = mr->handle;
	c.flags = XRDMA_UVERBS_REREG_ACCESS;
	c.access = RWR;
	c.reserved = 1;
	CHECK_RC(rereg_ioctl(&c, sizeof(c)), -EINVAL, "ioctl: reserved set");
	c.reserved = 0;
	CHECK_RC(rereg_ioctl(&c, XRDMA_CMD_REREG_MR_SIZE_VER0 - 8), -EINVAL,
		 "ioctl: short size");
	c.mr_handle = 0x7fffff00;
	CHECK_RC(rereg_ioctl(&c, sizeof(c)), -ENOENT, "ioctl: bad handle");
	c.mr_handle = pd0->handle;
	CHECK_RC(rereg_ioctl(&c, sizeof(c)), -EINVAL,
		 "ioctl: a PD's handle");
	c.mr_handle = mr->handle;
	c.flags = 0x8;
	CHECK_RC(rereg_ioctl(&c, sizeof(c)), -EOPNOTSUPP,
		 "ioctl: unknown flag");
	c.flags = XRDMA_UVERBS_REREG_PD;
	c.pd_handle = 0x7fffff00;
	CHECK_RC(rereg_ioctl(&c, sizeof(c)), -ENOENT, "ioctl: bad PD handle");
	c.pd_handle = mr->handle;
	CHECK_RC(rereg_ioctl(&c, sizeof(c)), -EINVAL,
		 "ioctl: an MR's handle as the PD");
	still_same(mr, mr->lkey, mr->rkey, a, "after the ioctls");
	c.flags = XRDMA_UVERBS_REREG_ACCESS;
	c.access = RWR;
	c.pd_handle = 0;
	c.lkey = 0;
	CHECK_RC(rereg_ioctl(&c, sizeof(c)), 0, "ioctl: a good one");
	CHECK(c.lkey == mr->lkey && c.rkey == mr->rkey,
	      "ioctl: an access change returns the MR's keys");
	CHECK_ST(probe_read(pd0, a, c.rkey, 64, a + PG), IBV_WC_SUCCESS,
		 "ioctl: the returned rkey works");
	CHECK_RC(ibv_dereg_mr(mr), 0, "input: dereg");
	munmap(ro, 2 * PG);
	munmap(a, 2 * PG);
}

/* ------------------------------------------------------------ inflight */

#define NWR	64
/* each WRITE a whole LBUF, so that some may still run during the rereg */
#define WSZ	LBUF

static void t_inflight(void)
{
	uint8_t *a = area(NWR * WSZ, 50), *b = area(NWR * WSZ, 0);
	struct ibv_send_wr wr[NWR], *bad;
	struct ibv_sge s[NWR];
	struct ibv_wc wc[NWR];
	int seen[NWR] = { 0 }, i, n = 0, ok = 0, err = 0, ret;
	struct ibv_mr *mr;
	struct pair p;

	memset(b, 0, NWR * WSZ);
	mr = ibv_reg_mr(pd0, a, NWR * WSZ, RWR);
	if (!mr || !pair_new(&p, pd0))
		xt_bail(errno, "setup");
	xt_pat_fill(p.l.p, LBUF, 51);
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < NWR; i++) {
		s[i] = xt_sge(&p.l, 0, WSZ);
		wr[i].wr_id = i;
		wr[i].sg_list = &s[i];
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_RDMA_WRITE;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].wr.rdma.remote_addr = (uintptr_t)a + (size_t)i * WSZ;
		wr[i].wr.rdma.rkey = mr->rkey;
		wr[i].next = i + 1 < NWR ? &wr[i + 1] : NULL;
	}
	if (!xt_check(!ibv_post_send(p.a.qp, wr, &bad),
		      "inflight: post %d WRITEs", NWR))
		goto out;
	ret = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, b,
			   NWR * WSZ, 0);
	CHECK_RC(ret, 0, "inflight: rereg while they run");
	n = xt_poll_n(p.a.cq, wc, NWR, wait_ms * 2);
	for (i = 0; i < n; i++) {
		if (wc[i].wr_id < NWR)
			seen[wc[i].wr_id]++;
		if (wc[i].status == IBV_WC_SUCCESS)
			ok++;
		else if (wc[i].status == IBV_WC_REM_ACCESS_ERR ||
			 wc[i].status == IBV_WC_WR_FLUSH_ERR)
			err++;
	}
	for (i = 0; i < NWR && seen[i] == 1; i++)
		;
	CHECK(n == NWR && i == NWR && ok + err == NWR,
	      "inflight: every WRITE completed once (%d of %d; %d ok, %d errors)",
	      n, NWR, ok, err);
	xt_note("inflight: %d WRITEs before the rereg, %d after", ok, err);
	CHECK(xt_all_bytes(b, NWR * WSZ, 0),
	      "inflight: none reached the new range");
	for (i = 0; i < ok; i++)
		if (xt_pat_check(a + (size_t)i * WSZ, WSZ, 51) >= 0)
			break;
	CHECK(i == ok, "inflight: the successful ones wrote the old range");
	CHECK_ST(probe_write(pd0, b + PG, mr->rkey, 100, 52), IBV_WC_SUCCESS,
		 "inflight: the new range works afterwards");
out:
	pair_free(&p);
	CHECK_RC(ibv_dereg_mr(mr), 0, "inflight: dereg");
	munmap(a, NWR * WSZ);
	munmap(b, NWR * WSZ);
}

/* ------------------------------------------------------------ threads */

struct thr {
	struct ibv_mr *mr;
	int ok, busy, other;
};

static void *rereg_loop(void *arg)
{
	struct thr *t = arg;
	int i, ret;

	for (i = 0; i < 200; i++) {
		errno = 0;
		ret = ibv_rereg_mr(t->mr, IBV_REREG_MR_CHANGE_ACCESS, NULL,
				   NULL, 0, i & 1 ? RWR :
				   IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_READ);
		if (!ret)
			t->ok++;
		else if (ret == IBV_REREG_MR_ERR_CMD && errno == EBUSY)
			t->busy++;
		else
			t->other++;
	}
	return NULL;
}

static void t_threads(void)
{
	uint8_t *a = area(4 * PG, 60), buf[64];
	struct thr t[2] = { 0 };
	pthread_t th[2];
	struct ibv_mr *mr;
	int i;

	mr = ibv_reg_mr(pd0, a, 4 * PG, RWR);
	if (!mr)
		xt_bail(errno, "reg_mr");
	for (i = 0; i < 2; i++) {
		t[i].mr = mr;
		if (pthread_create(&th[i], NULL, rereg_loop, &t[i]))
			xt_bail(errno, "pthread_create");
	}
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	xt_note("threads: %d and %d succeeded, %d and %d EBUSY", t[0].ok,
		t[1].ok, t[0].busy, t[1].busy);
	CHECK(!t[0].other && !t[1].other &&
	      t[0].ok + t[0].busy == 200 && t[1].ok + t[1].busy == 200,
	      "threads: every call succeeded or was EBUSY (%d, %d others)",
	      t[0].other, t[1].other);
	/* the keys the library stored may be either thread's: set them */
	CHECK_RC(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			      RWR), 0, "threads: rereg afterwards");
	CHECK_ST(probe_read(pd0, a, mr->rkey, 64, buf), IBV_WC_SUCCESS,
		 "threads: the MR works afterwards");
	CHECK(!memcmp(buf, a, 64), "threads: READ's data");
	CHECK_RC(ibv_dereg_mr(mr), 0, "threads: dereg");
	munmap(a, 4 * PG);
}

/* ------------------------------------------------------------ pinned */

static long vmpin(void)
{
	return xt_kv_kb("/proc/self/status", "VmPin");
}

static void t_pinned(void)
{
	uint8_t *a = area(16 * PG, 70), *b = area(4 * PG, 71);
	long base = vmpin(), k = (long)(PG / 1024);
	struct ibv_mr *mr;

	if (!xt_check(base >= 0, "pinned: VmPin readable"))
		return;
	mr = ibv_reg_mr(pd0, a, 16 * PG, RWR);
	if (!mr)
		xt_bail(errno, "reg_mr");
	CHECK_EQ(vmpin() - base, 16 * k, "pinned: 16 pages after reg (kB)");
	CHECK_RC(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL,
			      b + 1, 3 * PG, 0), 0, "pinned: rereg to 4 pages");
	CHECK_EQ(vmpin() - base, 4 * k, "pinned: 4 pages after rereg (kB)");
	CHECK(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL,
			   (void *)(uintptr_t)PG, PG, 0) ==
	      IBV_REREG_MR_ERR_CMD, "pinned: rereg to unmapped memory fails");
	CHECK_EQ(vmpin() - base, 4 * k, "pinned: still 4 pages (kB)");
	CHECK_RC(ibv_dereg_mr(mr), 0, "pinned: dereg");
	CHECK_EQ(vmpin(), base, "pinned: VmPin back where it was (kB)");
	munmap(a, 16 * PG);
	munmap(b, 4 * PG);
}

/* ------------------------------------------------------------ dmabuf */

/*
 * DRM's ioctls for a dumb buffer exported as a dmabuf (the kernel's
 * include/uapi/drm: a stable ABI; the host has no libdrm headers)
 */
struct xv_drm_version {
	int major, minor, patchlevel;
	size_t name_len;
	char *name;
	size_t date_len;
	char *date;
	size_t desc_len;
	char *desc;
};

struct xv_drm_create_dumb {
	uint32_t height, width, bpp, flags;
	uint32_t handle, pitch;
	uint64_t size;
};

struct xv_drm_prime_handle {
	uint32_t handle, flags;
	int32_t fd;
};

#define XV_DRM_VERSION		_IOWR('d', 0x00, struct xv_drm_version)
#define XV_DRM_PRIME_HANDLE_TO_FD _IOWR('d', 0x2d, struct xv_drm_prime_handle)
#define XV_DRM_CREATE_DUMB	_IOWR('d', 0xb2, struct xv_drm_create_dumb)

/* an fd of vgem's /dev/dri/cardN, or -1 after a note */
static int vgem_open(void)
{
	char path[32], name[16];
	int i, fd;

	for (i = 0; i < 16; i++) {
		struct xv_drm_version v = { .name = name,
					    .name_len = sizeof(name) - 1 };

		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		memset(name, 0, sizeof(name));
		if (!ioctl(fd, XV_DRM_VERSION, &v) && !strcmp(name, "vgem"))
			return fd;
		close(fd);
	}
	xt_note("no vgem device in /dev/dri (modprobe vgem)");
	return -1;
}

/* a dmabuf fd of @npages pages from vgem, or -1 */
static int vgem_dmabuf(int card, uint32_t npages)
{
	struct xv_drm_create_dumb d = {
		.height = npages, .width = (uint32_t)(PG / 4), .bpp = 32,
	};
	struct xv_drm_prime_handle h = { .flags = O_CLOEXEC | O_RDWR };

	if (ioctl(card, XV_DRM_CREATE_DUMB, &d)) {
		xt_note("DRM_IOCTL_MODE_CREATE_DUMB: %s", strerror(errno));
		return -1;
	}
	if (d.size < npages * PG) {
		xt_note("dumb buffer of %llu bytes", (unsigned long long)d.size);
		return -1;
	}
	h.handle = d.handle;
	if (ioctl(card, XV_DRM_PRIME_HANDLE_TO_FD, &h)) {
		xt_note("DRM_IOCTL_PRIME_HANDLE_TO_FD: %s", strerror(errno));
		return -1;
	}
	return h.fd;
}

static void dmabuf_fails(uint64_t off, size_t len, uint64_t iova, int fd,
			 int access, int want, const char *what)
{
	struct ibv_mr *mr;

	errno = 0;
	mr = ibv_reg_dmabuf_mr(pd0, off, len, iova, fd, access);
	xt_ok(!mr && errno == want, mr ? "registered" : xt_errname(errno),
	      "dmabuf: %s is %s", what, xt_errname(want));
	if (mr)
		ibv_dereg_mr(mr);
}

#define DB_PAGES	8
#define DB_OFF		(PG + 100)
#define DB_LEN		(5 * PG)
#define DB_IOVA		(0x7000000000ULL + 100)

/* a SEND from a fresh pair into the MR (a receive SGE in it) */
static int recv_into(struct ibv_mr *mr, uint64_t iova, uint32_t len,
		     uint32_t seed)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND, .num_sge = 1 };
	struct ibv_recv_wr rwr = { .wr_id = 9, .num_sge = 1 }, *rbad;
	struct ibv_sge rs = { .addr = iova, .length = len, .lkey = mr->lkey };
	struct ibv_sge s;
	struct ibv_wc wc;
	struct pair p;
	int st;

	if (!pair_new(&p, pd0))
		return -1;
	xt_pat_fill(p.l.p, len, seed);
	s = xt_sge(&p.l, 0, len);
	wr.sg_list = &s;
	rwr.sg_list = &rs;
	if (ibv_post_recv(p.b.qp, &rwr, &rbad)) {
		pair_free(&p);
		return -1;
	}
	st = post_wait(p.a.qp, p.a.cq, &wr);
	if (st == IBV_WC_SUCCESS &&
	    (!xt_poll_one(p.b.cq, &wc, wait_ms) || wc.wr_id != 9))
		st = -1;
	else if (st == IBV_WC_SUCCESS)
		st = wc.status;
	pair_free(&p);
	return st;
}

static void t_dmabuf(void)
{
	int card = vgem_open(), fd, nfd, pfd[2];
	struct xrdma_cmd_reg_dmabuf_mr c;
	uint8_t *map, buf[4096];
	struct ibv_mr *mr;
	uint32_t rk;

	if (!xt_check(card >= 0, "dmabuf: vgem's card"))
		return;
	fd = vgem_dmabuf(card, DB_PAGES);
	if (!xt_check(fd >= 0, "dmabuf: a %d-page dmabuf from vgem", DB_PAGES))
		return;
	map = mmap(NULL, DB_PAGES * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   0);
	if (!xt_check(map != MAP_FAILED, "dmabuf: mmap of the dmabuf"))
		return;
	xt_pat_fill(map, DB_PAGES * PG, 80);

	mr = ibv_reg_dmabuf_mr(pd0, DB_OFF, DB_LEN, DB_IOVA, fd, RWR);
	if (!xt_check(mr, "dmabuf: ibv_reg_dmabuf_mr (%s)",
		      mr ? "0" : xt_errname(errno)))
		goto out;
	CHECK(mr->addr == (void *)(uintptr_t)DB_OFF && mr->length == DB_LEN &&
	      mr->pd == pd0 && mr->context == ctx,
	      "dmabuf: addr is the offset (as rdma-core), length, pd");
	CHECK_ST(probe_read(pd0, (void *)(uintptr_t)DB_IOVA, mr->rkey, 4096,
			    buf), IBV_WC_SUCCESS, "dmabuf: READ from it");
	CHECK(!memcmp(buf, map + DB_OFF, 4096), "dmabuf: READ's data");
	CHECK_ST(probe_read(pd0, (void *)(uintptr_t)(DB_IOVA + DB_LEN - 4096),
			    mr->rkey, 4096, buf), IBV_WC_SUCCESS,
		 "dmabuf: READ of its last bytes");
	CHECK(!memcmp(buf, map + DB_OFF + DB_LEN - 4096, 4096),
	      "dmabuf: last bytes' data");
	CHECK_ST(probe_write(pd0, (void *)(uintptr_t)(DB_IOVA + 1000),
			     mr->rkey, 9000, 81), IBV_WC_SUCCESS,
		 "dmabuf: WRITE into it");
	CHECK(xt_pat_check(map + DB_OFF + 1000, 9000, 81) < 0,
	      "dmabuf: WRITE's data in the dmabuf's memory");
	CHECK_ST(probe_send(pd0, map + DB_OFF + 2 * PG, mr->lkey, 64),
		 IBV_WC_LOC_PROT_ERR,
		 "dmabuf: an SGE at the mapping's address (not the iova)");
	CHECK_ST(recv_into(mr, DB_IOVA + 3 * PG, 5000, 82), IBV_WC_SUCCESS,
		 "dmabuf: RECV into it");
	CHECK(xt_pat_check(map + DB_OFF + 3 * PG, 5000, 82) < 0,
	      "dmabuf: RECV's data in the dmabuf's memory");
	CHECK_ST(probe_write(pd0, (void *)(uintptr_t)(DB_IOVA + DB_LEN - 10),
			     mr->rkey, 20, 83), IBV_WC_REM_ACCESS_ERR,
		 "dmabuf: WRITE past its end");
	CHECK(pat_from(map, DB_OFF + DB_LEN, DB_PAGES * PG, 80) < 0 &&
	      pat_from(map, 0, DB_OFF, 80) < 0,
	      "dmabuf: nothing written outside the MR's range");

	/* SEND from it: a local SGE by iova */
	{
		struct ibv_send_wr wr = { .opcode = IBV_WR_SEND, .num_sge = 1 };
		struct ibv_recv_wr rwr = { .num_sge = 1 }, *rbad;
		struct ibv_sge s = { .addr = DB_IOVA + 2 * PG, .length = 3000,
				     .lkey = mr->lkey }, rs;
		struct ibv_wc wc;
		struct pair p;

		if (pair_new(&p, pd0)) {
			rs = xt_sge(&p.l, 0, 3000);
			rwr.sg_list = &rs;
			wr.sg_list = &s;
			CHECK(!ibv_post_recv(p.b.qp, &rwr, &rbad) &&
			      post_wait(p.a.qp, p.a.cq, &wr) == IBV_WC_SUCCESS &&
			      xt_poll_one(p.b.cq, &wc, wait_ms) &&
			      wc.status == IBV_WC_SUCCESS &&
			      !memcmp(p.l.p, map + DB_OFF + 2 * PG, 3000),
			      "dmabuf: SEND from it, data received");
			pair_free(&p);
		}
	}

	rk = mr->rkey;
	errno = 0;
	CHECK(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			   IBV_ACCESS_LOCAL_WRITE) == IBV_REREG_MR_ERR_CMD &&
	      errno == EINVAL && mr->rkey == rk,
	      "dmabuf: rereg of a dmabuf MR is EINVAL, keys kept");
	CHECK(!close(fd), "dmabuf: close the dmabuf fd");
	fd = -1;
	CHECK_ST(probe_write(pd0, (void *)(uintptr_t)DB_IOVA, mr->rkey, 500,
			     84), IBV_WC_SUCCESS,
		 "dmabuf: WRITE after the fd is closed");
	CHECK(xt_pat_check(map + DB_OFF, 500, 84) < 0,
	      "dmabuf: its data (the MR holds the dmabuf)");
	CHECK_RC(ibv_dereg_mr(mr), 0, "dmabuf: dereg");

	/* bad input */
	fd = vgem_dmabuf(card, 2);
	if (!xt_check(fd >= 0, "dmabuf: a 2-page dmabuf"))
		goto out;
	dmabuf_fails(0, PG, 0, -1, RWR, EBADF, "fd -1");
	nfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	dmabuf_fails(0, PG, 0, nfd, RWR, EINVAL, "/dev/null's fd");
	if (!pipe(pfd)) {
		dmabuf_fails(0, PG, 0, pfd[0], RWR, EINVAL, "a pipe");
		close(pfd[0]);
		close(pfd[1]);
	}
	close(nfd);
	dmabuf_fails(0, PG, 0, nfd, RWR, EBADF, "a closed fd");
	dmabuf_fails(0, 2 * PG + 1, 0, fd, RWR, EINVAL,
		     "one byte more than the dmabuf");
	dmabuf_fails(PG + 1, PG, 1, fd, RWR, EINVAL,
		     "a range ending past the dmabuf");
	dmabuf_fails(2 * PG, 1, 0, fd, RWR, EINVAL, "offset at its end");
	dmabuf_fails(0, 0, 0, fd, RWR, EINVAL, "length 0");
	dmabuf_fails(UINT64_MAX - 10, 100, UINT64_MAX - 10, fd, RWR, EINVAL,
		     "an offset wrapping");
	dmabuf_fails(100, PG, 200, fd, RWR, EINVAL,
		     "an iova with another page offset");
	dmabuf_fails(0, PG, 0, fd, IBV_ACCESS_REMOTE_WRITE, EINVAL,
		     "REMOTE_WRITE without LOCAL_WRITE");
	dmabuf_fails(0, PG, 0, fd, IBV_ACCESS_LOCAL_WRITE |
		     IBV_ACCESS_ON_DEMAND, EINVAL, "an unknown access bit");
	mr = ibv_reg_dmabuf_mr(pd0, 0, 2 * PG, 0, fd, 0);
	CHECK(mr, "dmabuf: the whole dmabuf, no rights, iova 0");
	if (mr)
		CHECK_RC(ibv_dereg_mr(mr), 0, "dmabuf: dereg");

	memset(&c, 0, sizeof(c));
	c.pd_handle = pd0->handle;
	c.length = PG;
	c.fd = fd;
	c.reserved = 1;
	CHECK_RC(ioctl(ctx->cmd_fd, XRDMA_IOC_REG_DMABUF_MR, &c) ? -errno : 0,
		 -EINVAL, "dmabuf ioctl: reserved set");
	c.reserved = 0;
	c.pd_handle = 0x7fffff00;
	CHECK_RC(ioctl(ctx->cmd_fd, XRDMA_IOC_REG_DMABUF_MR, &c) ? -errno : 0,
		 -ENOENT, "dmabuf ioctl: bad PD handle");
	c.pd_handle = pd0->handle;
	/* 0x100 and 0x200 are FLUSH_GLOBAL/_PERSISTENT; 0x400 is no bit */
	c.access = 0x400;
	CHECK_RC(ioctl(ctx->cmd_fd, XRDMA_IOC_REG_DMABUF_MR, &c) ? -errno : 0,
		 -EINVAL, "dmabuf ioctl: unknown access bit");
	c.access = 0;
	CHECK_RC(ioctl(ctx->cmd_fd,
		       _IOC(_IOC_READ | _IOC_WRITE, XRDMA_IOC_MAGIC,
			    _IOC_NR(XRDMA_IOC_REG_DMABUF_MR),
			    XRDMA_CMD_REG_DMABUF_MR_SIZE_VER0 - 8), &c) ?
		 -errno : 0, -EINVAL, "dmabuf ioctl: short size");
out:
	if (fd >= 0)
		close(fd);
	munmap(map, DB_PAGES * PG);
	close(card);
}

/* ------------------------------------------------------------ main */

static bool sub_open(void)
{
	struct ibv_port_attr pa;

	ctx = xt_open_device(dev_name, NULL, 0);
	if (!xt_check(ctx, "setup: open %s", dev_name))
		return false;
	if (!xt_check(!ibv_query_port(ctx, XT_PORT, &pa) &&
		      !ibv_query_gid(ctx, XT_PORT, XT_GID_INDEX, &gid),
		      "setup: port and GID"))
		return false;
	mtu = pa.active_mtu;
	pd0 = ibv_alloc_pd(ctx);
	pd1 = ibv_alloc_pd(ctx);
	return xt_check(pd0 && pd1, "setup: two PDs");
}

static void sub_close(void)
{
	CHECK_RC(-ibv_dealloc_pd(pd1), 0, "teardown: dealloc PD 1");
	CHECK_RC(-ibv_dealloc_pd(pd0), 0, "teardown: dealloc PD 0");
	CHECK_RC(-ibv_close_device(ctx), 0, "teardown: close");
}

static const struct xt_subtest subtests[] = {
	XT_SUBTEST(trans, 0, "CHANGE_TRANSLATION: new range, old unreachable"),
	XT_SUBTEST(access, 0, "CHANGE_ACCESS: rights as asked"),
	XT_SUBTEST(pd, 0, "CHANGE_PD: only the new PD's QPs"),
	XT_SUBTEST(combos, 0, "every flag combination"),
	XT_SUBTEST(input, 0, "bad input: return codes, errno, the ioctl"),
	XT_SUBTEST(inflight, 0, "WRITEs in flight while the range changes"),
	XT_SUBTEST(threads, 0, "concurrent rereg of one MR"),
	XT_SUBTEST(pinned, 0, "VmPin through rereg"),
	XT_SUBTEST(dmabuf, 0, "ibv_reg_dmabuf_mr over a vgem dmabuf"),
};

static struct xt_suite suite = {
	.tests = subtests,
	.n = ARRAY_SIZE(subtests),
	.setup = sub_open,
	.teardown = sub_close,
};

static void on_alarm(int sig)
{
	(void)sig;
	xt_watchdog_expired("xv_mr: watchdog");
}

int main(int argc, char **argv)
{
	int wd = (int)watchdog, ret;
	const struct xt_opt opts[] = {
		{ .c = 'd', .arg = "IBDEV", .str = &dev_name },
		{ .c = 't', .arg = "WAIT_MS", .num = &wait_ms, .min = 1 },
		{ .c = 'w', .arg = "SECONDS", .num = &wd, .min = 1 },
	};

	ret = xt_main(&suite, opts, ARRAY_SIZE(opts), &argc, &argv, "xv_mr");
	if (ret >= 0)
		return ret;
	signal(SIGALRM, on_alarm);
	alarm((unsigned int)wd);
	suite.timeout = wd;
	xt_show_library();
	xt_run(&suite, argc, argv);
	return xt_done();
}
