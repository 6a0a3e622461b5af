// SPDX-License-Identifier: GPL-2.0
/*
 * xv_dm: device memory through xrdma's libibverbs.so.1 (issue 15, "Verbs
 * to add"), public API only, as rdma-core v44's mlx5 answers it; run over
 * xrdma with scripts/xrdma-run (tools/testing/lib/xverbs/xverbs_dm.sh).
 *
 *   attr     ibv_query_device_ex reports max_dm_size (a page multiple)
 *   alloc    allocations of 1 byte .. max_dm_size succeed and read zero;
 *            0 bytes, more than max_dm_size, comp_mask, an alignment above
 *            max_dm_size are EINVAL; once max_dm_size is handed out one
 *            more byte is ENOMEM; memory freed and taken again reads zero
 *   copy     ibv_memcpy_to_dm / from_dm: data at offsets through the
 *            whole DM; beyond it (offset, length, wrap) is EFAULT, an
 *            offset or length not a multiple of 4 is EINVAL (as mlx5), and
 *            neither changes anything
 *   mr       ibv_reg_dm_mr: IBV_ACCESS_ZERO_BASED required (EINVAL),
 *            access bits beyond the verbs' (EINVAL), a range outside the DM
 *            (EINVAL); addr NULL, length as asked; ibv_free_dm with an MR
 *            on it is EBUSY and the DM still works; after dereg it frees
 *   rdma     RC QPs on one device: a DM MR as the local SGE of SEND,
 *            RDMA WRITE and RDMA READ, as the receive buffer of a SEND,
 *            and as the remote target of RDMA WRITE, READ, fetch-and-add
 *            and compare-and-swap (zero-based addresses); data verified
 *            with ibv_memcpy_from_dm and in host memory; an RDMA WRITE one
 *            byte beyond the DM MR completes with IBV_WC_REM_ACCESS_ERR
 *   ioctl    the ALLOC_DM and REG_DM_MR ioctls raw on the library's
 *            command fd: reserved fields, comp_mask, short sizes, bad and
 *            wrong-type handles, access bits beyond the uverbs ones are
 *            errno; a mapping longer than the DM's pages is refused;
 *            DESTROY of a DM by another type or type 7 is EINVAL
 *   concurrent  NPROC forked children allocate max_dm_size / 10 each at
 *            the same time on the parent's context (as rdma-core's
 *            test_multi_process_alloc_dm): every one succeeds, each
 *            reads back only its own data while all hold theirs (the
 *            ranges are disjoint), and once they freed, all of
 *            max_dm_size is free again
 *   exit     a child process allocates all of max_dm_size, fills it and
 *            exits without freeing: then the whole max_dm_size is free
 *            again and reads zero (no other process's data)
 *
 *   -d IBDEV  device (xnic0)
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <xrdma/xrdma-abi.h>
#include "xt.h"
#include "xt_verbs.h"

/* CHECK(cond, name fmt...) */
#define CHECK(c, ...)		xt_ok(!!(c), "false: " #c, __VA_ARGS__)
/* CHECK_RC(rc, want, name...): rc and want are 0 or -errno */
#define CHECK_RC(got, want, ...) xt_rc((got), (want), __VA_ARGS__)
#define CHECK_EQ(got, want, ...) xt_eq((got), (want), __VA_ARGS__)

#define ZB		IBV_ACCESS_ZERO_BASED
#define ALL_REMOTE	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
#define DM_LEN		8192

static const char *dev_name = "xnic0";
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static uint64_t max_dm;

static struct ibv_dm *dm_alloc(size_t len, uint32_t align, uint32_t mask)
{
	struct ibv_alloc_dm_attr a = {
		.length = len, .log_align_req = align, .comp_mask = mask,
	};

	errno = 0;
	return ibv_alloc_dm(ctx, &a);
}

/* -errno of a failed allocation, 0 (and freed) for a success */
static int dm_alloc_rc(size_t len, uint32_t align, uint32_t mask)
{
	struct ibv_dm *dm = dm_alloc(len, align, mask);

	if (!dm)
		return -errno;
	return -ibv_free_dm(dm);
}

/*
 * every byte of the whole 4-byte words of [0, len) of @dm is @v (copies
 * are in words, as mlx5's: the last len % 4 bytes cannot be read)
 */
static bool dm_all(struct ibv_dm *dm, size_t len, uint8_t v)
{
	uint8_t *b;
	bool ok;
	size_t i;

	len &= ~(size_t)3;
	b = malloc(len + 1);
	if (!b || ibv_memcpy_from_dm(b, dm, 0, len)) {
		free(b);
		return false;
	}
	for (i = 0; i < len && b[i] == v; i++)
		;
	ok = i == len;
	if (!ok)
		xt_note("byte %zu is %#x, not %#x", i, b[i], v);
	free(b);
	return ok;
}

static void t_attr(void)
{
	struct ibv_device_attr_ex a;

	memset(&a, 0xff, sizeof(a));
	CHECK_RC(-ibv_query_device_ex(ctx, NULL, &a), 0, "query_device_ex");
	CHECK(a.max_dm_size == max_dm && max_dm, "max_dm_size %llu",
	      (unsigned long long)a.max_dm_size);
	CHECK(!(a.max_dm_size % 4096), "max_dm_size a page multiple");
}

static void t_alloc(void)
{
	static const size_t sizes[] = { 1, 3, 64, 4095, 4096, 4097, 12345 };
	struct ibv_dm *dm, *dm2;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		dm = dm_alloc(sizes[i], 0, 0);
		if (!CHECK(dm, "alloc %zu bytes", sizes[i]))
			continue;
		CHECK(dm->context == ctx, "alloc %zu: context", sizes[i]);
		CHECK(dm_all(dm, sizes[i], 0), "alloc %zu: reads zero",
		      sizes[i]);
		CHECK_RC(-ibv_free_dm(dm), 0, "free %zu bytes", sizes[i]);
	}
	CHECK_RC(dm_alloc_rc(0, 0, 0), -EINVAL, "alloc 0 bytes");
	CHECK_RC(dm_alloc_rc(max_dm + 1, 0, 0), -EINVAL,
		 "alloc max_dm_size + 1");
	CHECK_RC(dm_alloc_rc(SIZE_MAX, 0, 0), -EINVAL, "alloc SIZE_MAX");
	CHECK_RC(dm_alloc_rc(64, 0, 1), -EINVAL, "alloc comp_mask 1");
	CHECK_RC(dm_alloc_rc(64, 63, 0), -EINVAL, "alloc log_align_req 63");
	CHECK_RC(dm_alloc_rc(64, 200, 0), -EINVAL, "alloc log_align_req 200");
	CHECK_RC(dm_alloc_rc(64, 16, 0), 0, "alloc log_align_req 16");

	/* all of it, then nothing more; freed memory comes back zeroed */
	dm = dm_alloc(max_dm, 0, 0);
	if (!CHECK(dm, "alloc max_dm_size"))
		return;
	CHECK_RC(dm_alloc_rc(1, 0, 0), -ENOMEM, "alloc 1 byte more");
	dm2 = malloc(max_dm);
	if (dm2) {
		memset(dm2, 0xa5, max_dm);
		CHECK_RC(-ibv_memcpy_to_dm(dm, 0, dm2, max_dm), 0,
			 "fill max_dm_size");
		free(dm2);
	}
	CHECK(dm_all(dm, max_dm, 0xa5), "filled");
	CHECK_RC(-ibv_free_dm(dm), 0, "free max_dm_size");
	dm = dm_alloc(max_dm, 0, 0);
	if (!CHECK(dm, "alloc max_dm_size again"))
		return;
	CHECK(dm_all(dm, max_dm, 0), "taken again: reads zero");
	CHECK_RC(-ibv_free_dm(dm), 0, "free again");
}

static void t_copy(void)
{
	uint8_t in[DM_LEN], out[DM_LEN];
	struct ibv_dm *dm = dm_alloc(DM_LEN, 0, 0);
	size_t i, off;

	if (!dm)
		xt_bail(errno, "alloc %d bytes", DM_LEN);
	for (i = 0; i < DM_LEN; i++)
		in[i] = (uint8_t)(i * 7 + 1);
	CHECK_RC(-ibv_memcpy_to_dm(dm, 0, in, DM_LEN), 0, "to_dm all");
	memset(out, 0, sizeof(out));
	CHECK_RC(-ibv_memcpy_from_dm(out, dm, 0, DM_LEN), 0, "from_dm all");
	CHECK(!memcmp(in, out, DM_LEN), "all: data");
	for (off = 4; off < DM_LEN; off = (off * 3 + 4) & ~(size_t)3) {
		uint8_t v[8] = { (uint8_t)off, 0x5a, (uint8_t)~off, 3, 4, 5,
				 6, 7 }, r[8];
		size_t n = off + 8 <= DM_LEN ? 8 : DM_LEN - off;

		CHECK_RC(-ibv_memcpy_to_dm(dm, off, v, n), 0, "to_dm at %zu",
			 off);
		memset(r, 0, sizeof(r));
		CHECK_RC(-ibv_memcpy_from_dm(r, dm, off, n), 0,
			 "from_dm at %zu", off);
		CHECK(!memcmp(v, r, n), "at %zu: data", off);
	}
	CHECK_RC(-ibv_memcpy_to_dm(dm, DM_LEN - 4, in, 4), 0,
		 "to_dm last word");
	CHECK_RC(-ibv_memcpy_to_dm(dm, DM_LEN, in, 0), 0, "to_dm 0 at end");

	/* not in 4-byte words: EINVAL (as mlx5), nothing written */
	CHECK_RC(-ibv_memcpy_from_dm(out, dm, 0, DM_LEN), 0, "from_dm again");
	for (off = 1; off < 4; off++) {
		CHECK_RC(-ibv_memcpy_to_dm(dm, off, in, 4), -EINVAL,
			 "to_dm at offset %zu: EINVAL", off);
		CHECK_RC(-ibv_memcpy_to_dm(dm, 4, in, off), -EINVAL,
			 "to_dm of %zu bytes: EINVAL", off);
		CHECK_RC(-ibv_memcpy_to_dm(dm, 8 + off, in, 4 + off), -EINVAL,
			 "to_dm at %zu, %zu bytes: EINVAL", 8 + off, 4 + off);
		CHECK_RC(-ibv_memcpy_from_dm(in, dm, off, 4), -EINVAL,
			 "from_dm at offset %zu: EINVAL", off);
		CHECK_RC(-ibv_memcpy_from_dm(in, dm, 4, off), -EINVAL,
			 "from_dm of %zu bytes: EINVAL", off);
	}
	/* rdma-core's test_dm_bad_access: offset size + 4, length size + 4 */
	CHECK_RC(-ibv_memcpy_to_dm(dm, DM_LEN + 4, in, 4), -EFAULT,
		 "to_dm at size + 4");
	CHECK_RC(-ibv_memcpy_from_dm(in, dm, DM_LEN + 4, 4), -EFAULT,
		 "from_dm at size + 4");
	CHECK_RC(-ibv_memcpy_from_dm(in, dm, 0, DM_LEN + 4), -EFAULT,
		 "from_dm of size + 4");
	memset(in, 0, sizeof(in));
	CHECK_RC(-ibv_memcpy_from_dm(in, dm, 0, DM_LEN), 0,
		 "from_dm after the unaligned ones");
	CHECK(!memcmp(in, out, DM_LEN), "refused unaligned copies changed nothing");
	for (i = 0; i < DM_LEN; i++)
		in[i] = (uint8_t)(i * 7 + 1);

	/* beyond: EFAULT, nothing written */
	CHECK_RC(-ibv_memcpy_from_dm(out, dm, 0, DM_LEN), 0, "from_dm again");
	CHECK_RC(-ibv_memcpy_to_dm(dm, 0, in, DM_LEN + 4), -EFAULT,
		 "to_dm of size + 4");
	CHECK_RC(-ibv_memcpy_to_dm(dm, 0, in, DM_LEN + 1), -EFAULT,
		 "to_dm one byte beyond");
	CHECK_RC(-ibv_memcpy_to_dm(dm, DM_LEN, in, 1), -EFAULT,
		 "to_dm at the end");
	CHECK_RC(-ibv_memcpy_to_dm(dm, DM_LEN + 4096, in, 1), -EFAULT,
		 "to_dm a page beyond");
	CHECK_RC(-ibv_memcpy_to_dm(dm, UINT64_MAX, in, 2), -EFAULT,
		 "to_dm offset wraps");
	CHECK_RC(-ibv_memcpy_from_dm(in, dm, 1, SIZE_MAX), -EFAULT,
		 "from_dm length wraps");
	CHECK_RC(-ibv_memcpy_from_dm(in, dm, DM_LEN - 1, 2), -EFAULT,
		 "from_dm one byte beyond");
	memset(in, 0, sizeof(in));
	CHECK_RC(-ibv_memcpy_from_dm(in, dm, 0, DM_LEN), 0, "from_dm after");
	CHECK(!memcmp(in, out, DM_LEN), "refused copies changed nothing");
	CHECK_RC(-ibv_free_dm(dm), 0, "free");
}

/* -errno of a failed ibv_reg_dm_mr, 0 (and deregistered) for a success */
static int reg_rc(struct ibv_dm *dm, uint64_t off, size_t len,
		  unsigned int access)
{
	struct ibv_mr *mr;

	errno = 0;
	mr = ibv_reg_dm_mr(pd, dm, off, len, access);
	if (!mr)
		return -errno;
	return -ibv_dereg_mr(mr);
}

static void t_mr(void)
{
	struct ibv_dm *dm = dm_alloc(DM_LEN, 0, 0);
	struct ibv_mr *mr;
	uint32_t v = 0x3c;

	if (!dm)
		xt_bail(errno, "alloc %d bytes", DM_LEN);
	CHECK_RC(reg_rc(dm, 0, DM_LEN, IBV_ACCESS_LOCAL_WRITE), -EINVAL,
		 "reg without ZERO_BASED");
	CHECK_RC(reg_rc(dm, 0, DM_LEN, ZB | IBV_ACCESS_MW_BIND), -EINVAL,
		 "reg with MW_BIND");
	CHECK_RC(reg_rc(dm, 0, DM_LEN, ZB | IBV_ACCESS_REMOTE_WRITE), -EINVAL,
		 "reg remote write without local write");
	CHECK_RC(reg_rc(dm, 0, DM_LEN + 1, ZB), -EINVAL, "reg one byte beyond");
	CHECK_RC(reg_rc(dm, DM_LEN, 1, ZB), -EINVAL, "reg at the end");
	CHECK_RC(reg_rc(dm, 1, SIZE_MAX, ZB), -EINVAL, "reg length wraps");
	CHECK_RC(reg_rc(dm, 0, DM_LEN, ZB), 0, "reg all of it, local only");

	mr = ibv_reg_dm_mr(pd, dm, 4096, DM_LEN - 4096, ZB | ALL_REMOTE);
	if (!CHECK(mr, "reg the second page"))
		return;
	CHECK(!mr->addr && mr->length == DM_LEN - 4096 && mr->pd == pd &&
	      mr->context == ctx, "MR addr NULL, length, pd, context");
	CHECK_RC(-ibv_free_dm(dm), -EBUSY, "free with an MR: EBUSY");
	CHECK_RC(-ibv_memcpy_to_dm(dm, 0, &v, 4), 0,
		 "the DM still works after EBUSY");
	CHECK_RC(-ibv_dereg_mr(mr), 0, "dereg");
	CHECK_RC(-ibv_free_dm(dm), 0, "free after dereg");
}

/* ------------------------------------------------------------ rdma */

struct side {
	struct xt_ep e;
	struct ibv_dm *dm;
	struct ibv_mr *dmr;		/* zero-based, whole DM */
	struct xt_buf host;
};

static struct side A, B;

static bool side_new(struct side *s)
{
	const struct ibv_qp_cap cap = {
		.max_send_wr = 16, .max_recv_wr = 16,
		.max_send_sge = 2, .max_recv_sge = 2,
	};

	if (!xt_ep_new(&s->e, pd, IBV_QPT_RC, 64, &cap))
		return false;
	s->dm = dm_alloc(DM_LEN, 0, 0);
	if (!s->dm)
		return false;
	s->dmr = ibv_reg_dm_mr(pd, s->dm, 0, DM_LEN, ZB | ALL_REMOTE);
	return s->dmr && xt_buf_new(&s->host, pd, DM_LEN, ALL_REMOTE);
}

static void fill(uint8_t *b, size_t n, uint8_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)(seed + i * 13);
}

/* post one send WR on @s and wait for its completion with @status */
static bool run(struct side *s, struct ibv_send_wr *wr,
		enum ibv_wc_status status, const char *what)
{
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	int ret;

	wr->wr_id = 0x1234;
	wr->send_flags |= IBV_SEND_SIGNALED;
	ret = ibv_post_send(s->e.qp, wr, &bad);
	if (!CHECK_RC(-ret, 0, "%s: posted", what))
		return false;
	if (!CHECK(xt_poll_one(s->e.cq, &wc, 10000), "%s: completes", what))
		return false;
	return CHECK(wc.status == status && wc.wr_id == 0x1234,
		     "%s: %s (got %s)", what, ibv_wc_status_str(status),
		     ibv_wc_status_str(wc.status));
}

static struct ibv_sge dm_sge(struct side *s, uint64_t off, uint32_t len)
{
	struct ibv_sge sg = { .addr = off, .length = len,
			      .lkey = s->dmr->lkey };

	return sg;
}

static void rdma_send(void)
{
	uint8_t buf[DM_LEN], got[DM_LEN];
	struct ibv_sge sg = dm_sge(&A, 100, 3000), rsg;
	struct ibv_send_wr wr = { .sg_list = &sg, .num_sge = 1,
				  .opcode = IBV_WR_SEND };
	struct ibv_recv_wr rwr = { .sg_list = &rsg, .num_sge = 1 }, *rbad;
	struct ibv_wc wc;

	/* DM -> host: SEND gathers from A's DM */
	fill(buf, DM_LEN, 1);
	ibv_memcpy_to_dm(A.dm, 0, buf, DM_LEN);
	rsg = xt_sge(&B.host, 0, DM_LEN);
	CHECK_RC(-ibv_post_recv(B.e.qp, &rwr, &rbad), 0, "recv posted");
	if (run(&A, &wr, IBV_WC_SUCCESS, "SEND from DM") &&
	    CHECK(xt_poll_one(B.e.cq, &wc, 10000) &&
		  wc.status == IBV_WC_SUCCESS && wc.byte_len == 3000,
		  "SEND from DM: received 3000 bytes"))
		CHECK(!memcmp(B.host.p, buf + 100, 3000), "SEND from DM: data");

	/* host -> DM: the receive scatters into B's DM at 5000 */
	fill(A.host.p, DM_LEN, 2);
	sg = xt_sge(&A.host, 10, 2000);
	rsg = dm_sge(&B, 5000, 3000);
	CHECK_RC(-ibv_post_recv(B.e.qp, &rwr, &rbad), 0, "recv into DM posted");
	if (run(&A, &wr, IBV_WC_SUCCESS, "SEND into DM") &&
	    CHECK(xt_poll_one(B.e.cq, &wc, 10000) &&
		  wc.status == IBV_WC_SUCCESS && wc.byte_len == 2000,
		  "SEND into DM: received 2000 bytes")) {
		ibv_memcpy_from_dm(got, B.dm, 0, DM_LEN);
		CHECK(!memcmp(got + 5000, A.host.p + 10, 2000),
		      "SEND into DM: data");
	}
}

static void rdma_write_read(void)
{
	uint8_t buf[DM_LEN], got[DM_LEN];
	struct ibv_sge sg;
	struct ibv_send_wr wr = { .sg_list = &sg, .num_sge = 1 };

	/* WRITE: local DM -> remote host */
	fill(buf, DM_LEN, 3);
	ibv_memcpy_to_dm(A.dm, 0, buf, DM_LEN);
	memset(B.host.p, 0, DM_LEN);
	sg = dm_sge(&A, 1000, 4000);
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = xt_va(&B.host, 50);
	wr.wr.rdma.rkey = B.host.mr->rkey;
	if (run(&A, &wr, IBV_WC_SUCCESS, "WRITE from DM"))
		CHECK(!memcmp(B.host.p + 50, buf + 1000, 4000),
		      "WRITE from DM: data");

	/* WRITE: local host -> remote DM (zero-based) */
	fill(A.host.p, DM_LEN, 4);
	sg = xt_sge(&A.host, 0, DM_LEN);
	wr.wr.rdma.remote_addr = 0;
	wr.wr.rdma.rkey = B.dmr->rkey;
	if (run(&A, &wr, IBV_WC_SUCCESS, "WRITE into remote DM")) {
		ibv_memcpy_from_dm(got, B.dm, 0, DM_LEN);
		CHECK(!memcmp(got, A.host.p, DM_LEN),
		      "WRITE into remote DM: data");
	}

	/* READ: remote DM -> local host */
	fill(buf, DM_LEN, 5);
	ibv_memcpy_to_dm(B.dm, 0, buf, DM_LEN);
	memset(A.host.p, 0, DM_LEN);
	sg = xt_sge(&A.host, 0, 3333);
	wr.opcode = IBV_WR_RDMA_READ;
	wr.wr.rdma.remote_addr = 4444;
	if (run(&A, &wr, IBV_WC_SUCCESS, "READ from remote DM"))
		CHECK(!memcmp(A.host.p, buf + 4444, 3333),
		      "READ from remote DM: data");

	/* READ: remote host -> local DM */
	fill(B.host.p, DM_LEN, 6);
	sg = dm_sge(&A, 7, 6000);
	wr.wr.rdma.remote_addr = xt_va(&B.host, 99);
	wr.wr.rdma.rkey = B.host.mr->rkey;
	if (run(&A, &wr, IBV_WC_SUCCESS, "READ into DM")) {
		ibv_memcpy_from_dm(got, A.dm, 0, DM_LEN);
		CHECK(!memcmp(got + 7, B.host.p + 99, 6000),
		      "READ into DM: data");
	}
}

static void rdma_atomic(void)
{
	uint64_t v = 1000, got = 0;
	uint64_t *res = (uint64_t *)A.host.p;
	struct ibv_sge sg = xt_sge(&A.host, 0, 8);
	struct ibv_send_wr wr = { .sg_list = &sg, .num_sge = 1 };

	ibv_memcpy_to_dm(B.dm, 64, &v, 8);
	*res = 0;
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = 64;
	wr.wr.atomic.rkey = B.dmr->rkey;
	wr.wr.atomic.compare_add = 23;
	if (run(&A, &wr, IBV_WC_SUCCESS, "FETCH_ADD on remote DM")) {
		ibv_memcpy_from_dm(&got, B.dm, 64, 8);
		CHECK(*res == 1000 && got == 1023,
		      "FETCH_ADD: old %llu, now %llu", (unsigned long long)*res,
		      (unsigned long long)got);
	}
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.compare_add = 1023;
	wr.wr.atomic.swap = 77;
	if (run(&A, &wr, IBV_WC_SUCCESS, "CMP_SWP on remote DM")) {
		ibv_memcpy_from_dm(&got, B.dm, 64, 8);
		CHECK(*res == 1023 && got == 77, "CMP_SWP: old %llu, now %llu",
		      (unsigned long long)*res, (unsigned long long)got);
	}
	/* the DM as the local buffer of the atomic's result */
	sg = dm_sge(&A, 128, 8);
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.compare_add = 3;
	if (run(&A, &wr, IBV_WC_SUCCESS, "FETCH_ADD result into DM")) {
		ibv_memcpy_from_dm(&got, A.dm, 128, 8);
		CHECK(got == 77, "FETCH_ADD result in DM: %llu",
		      (unsigned long long)got);
	}
}

static void t_rdma(void)
{
	union ibv_gid gid;
	struct ibv_sge sg;
	struct ibv_send_wr wr = { .sg_list = &sg, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE };

	if (!side_new(&A) || !side_new(&B))
		xt_bail(errno, "QPs, DMs and MRs");
	if (ibv_query_gid(ctx, XT_PORT, XT_GID_INDEX, &gid) ||
	    xt_rc_rts(A.e.qp, B.e.qp->qp_num, &gid, IBV_MTU_1024, NULL) ||
	    xt_rc_rts(B.e.qp, A.e.qp->qp_num, &gid, IBV_MTU_1024, NULL))
		xt_bail(0, "connecting the QPs");
	rdma_send();
	rdma_write_read();
	rdma_atomic();

	/* one byte beyond the remote DM MR: the requester sees the NAK */
	sg = xt_sge(&A.host, 0, 2);
	wr.wr.rdma.remote_addr = DM_LEN - 1;
	wr.wr.rdma.rkey = B.dmr->rkey;
	run(&A, &wr, IBV_WC_REM_ACCESS_ERR, "WRITE beyond the DM MR");

	CHECK_RC(-ibv_free_dm(A.dm), -EBUSY, "free a DM with an MR: EBUSY");
	CHECK_RC(-ibv_dereg_mr(A.dmr), 0, "dereg A's DM MR");
	CHECK_RC(-ibv_dereg_mr(B.dmr), 0, "dereg B's DM MR");
	CHECK_RC(-ibv_free_dm(A.dm), 0, "free A's DM");
	CHECK_RC(-ibv_free_dm(B.dm), 0, "free B's DM");
	CHECK_RC(-ibv_destroy_qp(A.e.qp), 0, "destroy A's QP");
	CHECK_RC(-ibv_destroy_qp(B.e.qp), 0, "destroy B's QP");
	CHECK_RC(-ibv_destroy_cq(A.e.cq), 0, "destroy A's CQ");
	CHECK_RC(-ibv_destroy_cq(B.e.cq), 0, "destroy B's CQ");
	CHECK_RC(-xt_buf_free(&A.host), 0, "dereg A's buffer");
	CHECK_RC(-xt_buf_free(&B.host), 0, "dereg B's buffer");
}

/* ------------------------------------------------------------ ioctl */

static int xio(unsigned long req, void *arg)
{
	return ioctl(ctx->cmd_fd, req, arg) ? -errno : 0;
}

static int destroy(uint32_t type, uint32_t handle)
{
	struct xrdma_cmd_destroy d = { .type = type, .handle = handle };

	return xio(XRDMA_IOC_DESTROY, &d);
}

static void t_ioctl(void)
{
	struct xrdma_cmd_alloc_dm a = { .length = 100 }, a2;
	struct xrdma_cmd_reg_dm_mr r, r0;
	void *p;

	a2 = a;
	a2.reserved = 1;
	CHECK_RC(xio(XRDMA_IOC_ALLOC_DM, &a2), -EINVAL, "ALLOC_DM reserved 1");
	a2 = a;
	a2.comp_mask = 1;
	CHECK_RC(xio(XRDMA_IOC_ALLOC_DM, &a2), -EINVAL, "ALLOC_DM comp_mask 1");
	a2 = a;
	a2.length = 0;
	CHECK_RC(xio(XRDMA_IOC_ALLOC_DM, &a2), -EINVAL, "ALLOC_DM length 0");
	a2 = a;
	CHECK_RC(xio(_IOWR(XRDMA_IOC_MAGIC, 0x1c, struct xrdma_cmd_kick), &a2),
		 -EINVAL, "ALLOC_DM below its first size");
	if (!CHECK_RC(xio(XRDMA_IOC_ALLOC_DM, &a), 0, "ALLOC_DM 100 bytes"))
		return;
	CHECK(a.dm_handle && a.mmap_length == 4096 && a.mmap_offset &&
	      !(a.mmap_offset % 4096), "ALLOC_DM: handle %u, a page at %#llx",
	      a.dm_handle, (unsigned long long)a.mmap_offset);
	p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, ctx->cmd_fd,
		 (off_t)a.mmap_offset);
	CHECK(p == MAP_FAILED, "a mapping of two pages of a one-page DM fails");
	if (p != MAP_FAILED)
		munmap(p, 8192);
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, ctx->cmd_fd,
		 (off_t)a.mmap_offset);
	if (CHECK(p != MAP_FAILED, "its page maps")) {
		CHECK(((uint8_t *)p)[0] == 0 && ((uint8_t *)p)[4095] == 0,
		      "and reads zero");
		munmap(p, 4096);
	}

	memset(&r0, 0, sizeof(r0));
	r0.pd_handle = pd->handle;
	r0.dm_handle = a.dm_handle;
	r0.length = 100;
	r = r0;
	r.dm_handle = a.dm_handle + 1000;
	CHECK_RC(xio(XRDMA_IOC_REG_DM_MR, &r), -ENOENT, "REG_DM_MR bad DM");
	r = r0;
	r.dm_handle = pd->handle;
	CHECK_RC(xio(XRDMA_IOC_REG_DM_MR, &r), -EINVAL,
		 "REG_DM_MR a PD as the DM");
	r = r0;
	r.pd_handle = a.dm_handle;
	CHECK_RC(xio(XRDMA_IOC_REG_DM_MR, &r), -EINVAL,
		 "REG_DM_MR the DM as the PD");
	r = r0;
	r.access = IBV_ACCESS_ZERO_BASED;
	CHECK_RC(xio(XRDMA_IOC_REG_DM_MR, &r), -EINVAL,
		 "REG_DM_MR access 0x20 (not a uverbs bit)");
	r = r0;
	r.offset = 50;
	r.length = 51;
	CHECK_RC(xio(XRDMA_IOC_REG_DM_MR, &r), -EINVAL,
		 "REG_DM_MR beyond the 100 bytes asked for");
	r = r0;
	CHECK_RC(xio(_IOWR(XRDMA_IOC_MAGIC, 0x1d, struct xrdma_cmd_kick), &r),
		 -EINVAL, "REG_DM_MR below its first size");
	r = r0;
	if (CHECK_RC(xio(XRDMA_IOC_REG_DM_MR, &r), 0, "REG_DM_MR")) {
		CHECK_RC(destroy(XRDMA_OBJ_DM, a.dm_handle), -EBUSY,
			 "DESTROY the DM with its MR: EBUSY");
		CHECK_RC(destroy(XRDMA_OBJ_DM, r.mr_handle), -EINVAL,
			 "DESTROY the MR as a DM");
		CHECK_RC(destroy(XRDMA_OBJ_MR, r.mr_handle), 0, "DESTROY the MR");
	}
	CHECK_RC(destroy(7, a.dm_handle), -EINVAL, "DESTROY type 7");
	CHECK_RC(destroy(XRDMA_OBJ_PD, a.dm_handle), -EINVAL,
		 "DESTROY the DM as a PD");
	CHECK_RC(destroy(9, a.dm_handle), -EINVAL, "DESTROY type 9");
	CHECK_RC(destroy(XRDMA_OBJ_DM, a.dm_handle), 0, "DESTROY the DM");
	CHECK_RC(destroy(XRDMA_OBJ_DM, a.dm_handle), -ENOENT,
		 "DESTROY the DM again");
}

/* ------------------------------------------------------ concurrent */

#define NPROC	5

/*
 * One child: allocate on the inherited context, fill with its own byte,
 * wait until every child holds its DM (go), check it still reads its own
 * byte only, free.  Exit status: 0, or the step that failed.
 */
static int concurrent_child(int idx, int ready, int go)
{
	/* a tenth of the window, in the 4-byte words copies move */
	size_t len = (max_dm / 10) & ~(size_t)3;
	struct ibv_dm *dm = dm_alloc(len, 0, 0);
	uint8_t *b = malloc(len);
	char ch = 'r';

	if (!dm)
		return errno == EPERM ? 2 : 3;
	if (!b)
		return 4;
	memset(b, 0x40 + idx, len);
	if (ibv_memcpy_to_dm(dm, 0, b, len))
		return 5;
	if (write(ready, &ch, 1) != 1 || read(go, &ch, 1) != 1)
		return 6;
	if (!dm_all(dm, len, 0x40 + idx))
		return 7;
	if (ibv_free_dm(dm))
		return 8;
	return 0;
}

static void t_concurrent(void)
{
	int ready[2], go[2], i, n, st = 0, ok = 0, ready_n = 0;
	pid_t pid[NPROC];
	struct ibv_dm *dm;
	char ch;

	if (pipe(ready) || pipe(go))
		xt_bail(errno, "pipe");
	for (n = 0; n < NPROC; n++) {
		pid[n] = fork();
		if (pid[n] < 0)
			break;
		if (!pid[n]) {
			close(ready[0]);
			close(go[1]);
			_exit(concurrent_child(n, ready[1], go[0]));
		}
	}
	close(ready[1]);
	close(go[0]);
	CHECK_EQ(n, NPROC, "forked %d children", NPROC);
	/* a child that failed closes its end without writing */
	for (i = 0; i < n && read(ready[0], &ch, 1) == 1; i++)
		ready_n++;
	for (i = 0; i < n; i++)
		if (write(go[1], "g", 1) != 1)
			break;
	close(go[1]);
	close(ready[0]);
	for (i = 0; i < n; i++) {
		if (waitpid(pid[i], &st, 0) != pid[i] || !WIFEXITED(st)) {
			CHECK(0, "child %d exits (%#x)", i, st);
			continue;
		}
		ok += !WEXITSTATUS(st);
		CHECK_EQ(WEXITSTATUS(st), 0,
			 "child %d: alloc, fill, own data while all hold theirs, free (2: EPERM)",
			 i);
	}
	CHECK_EQ(ready_n, n, "children holding their DM at once");
	CHECK_EQ(ok, NPROC, "concurrent allocations that succeeded");
	dm = dm_alloc(max_dm, 0, 0);
	if (CHECK(dm, "all of max_dm_size free after them (%s)",
		  strerror(errno)))
		CHECK_RC(-ibv_free_dm(dm), 0, "free");
}

/* ------------------------------------------------------------ exit */

static void t_exit(void)
{
	struct ibv_dm *dm;
	int status = 0;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		xt_bail(errno, "fork");
	if (!pid) {
		struct ibv_context *c = xt_open_device(dev_name, NULL, 0);
		struct ibv_alloc_dm_attr a = { .length = max_dm };
		struct ibv_dm *cdm = c ? ibv_alloc_dm(c, &a) : NULL;
		uint8_t *b = malloc(max_dm);

		if (!cdm || !b)
			_exit(3);
		memset(b, 0x77, max_dm);
		if (ibv_memcpy_to_dm(cdm, 0, b, max_dm))
			_exit(4);
		/* a DM MR too: the exit destroys it before the DM */
		if (!ibv_reg_dm_mr(ibv_alloc_pd(c), cdm, 0, max_dm, ZB))
			_exit(5);
		_exit(0);	/* nothing freed */
	}
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      !WEXITSTATUS(status), "child filled max_dm_size and exited (%#x)",
	      status);
	dm = dm_alloc(max_dm, 0, 0);
	if (!CHECK(dm, "max_dm_size free again after the child's exit (%s)",
		   strerror(errno)))
		return;
	CHECK(dm_all(dm, max_dm, 0), "the child's data is gone: reads zero");
	CHECK_RC(-ibv_free_dm(dm), 0, "free");
}

static bool setup(void)
{
	struct ibv_device_attr_ex a;

	ctx = xt_open_device(dev_name, NULL, 0);
	if (!ctx || ibv_query_device_ex(ctx, NULL, &a))
		return false;
	max_dm = a.max_dm_size;
	if (!max_dm) {
		xt_note("%s reports no device memory", dev_name);
		return false;
	}
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
	XT_SUBTEST(attr, 0, "max_dm_size reported"),
	XT_SUBTEST(alloc, 0, "sizes, limits, zeroed, ENOMEM when all used"),
	XT_SUBTEST(copy, 0, "memcpy to/from DM; EFAULT beyond it"),
	XT_SUBTEST(mr, 0, "ibv_reg_dm_mr's rules; free with an MR: EBUSY"),
	XT_SUBTEST(rdma, 0, "DM MRs in SEND, WRITE, READ, atomics"),
	XT_SUBTEST(ioctl, 0, "the ioctls' errno for bad arguments"),
	XT_SUBTEST(concurrent, 0,
		   "5 children allocate at once on one context: all succeed"),
	XT_SUBTEST(exit, 0, "a process's DM is freed and zeroed at exit"),
};

static struct xt_suite suite = {
	.tests = tests, .n = ARRAY_SIZE(tests), .timeout = 120,
	.setup = setup, .teardown = teardown,
};

int main(int argc, char **argv)
{
	const struct xt_opt opts[] = {
		{ .c = 'd', .arg = "IBDEV", .str = &dev_name },
	};
	int ret;

	ret = xt_main(&suite, opts, ARRAY_SIZE(opts), &argc, &argv, "xv_dm");
	if (ret >= 0)
		return ret;
	xt_show_library();
	xt_run(&suite, argc, argv);
	return xt_done();
}
