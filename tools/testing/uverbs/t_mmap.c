// SPDX-License-Identifier: GPL-2.0
/*
 * uverbs_test: mmap of the test device's CQ rings and doorbell page, and
 * fork() (Documentation/uverbs.rst, "mmap" and "Commands").
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ut.h"

static size_t round_pg(size_t n)
{
	return (n + ut_pagesz - 1) / ut_pagesz * ut_pagesz;
}

static void *map(int fd, size_t len, int prot, int flags, uint64_t off,
		 int *err)
{
	void *p = mmap(NULL, len, prot, flags, fd, (off_t)off);

	*err = p == MAP_FAILED ? -errno : 0;
	return p == MAP_FAILED ? NULL : p;
}

/* an mmap that should fail: its error, and no mapping left behind */
static int map_err(int fd, size_t len, int prot, int flags, uint64_t off)
{
	int err;
	void *p = map(fd, len, prot, flags, off, &err);

	if (p)
		munmap(p, len);
	return err;
}

/* the ring starts with magic, token, cqn */
static bool ring_ok(const void *p, const struct cq *cq)
{
	const char *b = p;

	return rd64(b) == XRDMA_TESTDEV_RING_MAGIC &&
	       rd64(b + 8) == cq->resp.token && rd32(b + 16) == cq->resp.cqn;
}

static void ring_diag(const void *p, const struct cq *cq)
{
	const uint64_t *q = p;

	ut_note("ring: %016llx %016llx %08x, want %016llx %016llx %08x",
		(unsigned long long)q[0], (unsigned long long)q[1],
		((const uint32_t *)p)[4],
		(unsigned long long)XRDMA_TESTDEV_RING_MAGIC,
		(unsigned long long)cq->resp.token, cq->resp.cqn);
}

void t_mmap(void)
{
	struct cq cq1, cq2, cq3;
	struct ctx c, c2;
	size_t len1, len2;
	char *r1, *r1b, *r2, *ro, *db, *snap, *p;
	int err;

	if (!CHECK_RC(ctx_open(&c), 0, "context"))
		return;
	if (create_cq(c.fd, 64, -1, 0, &cq1) || create_cq(c.fd, 16, -1, 0, &cq2)) {
		ut_fail("setup", "two CQs");
		return;
	}
	len1 = cq1.resp.ring_size;
	len2 = cq2.resp.ring_size;
	ut_note("ring 1: offset 0x%llx size %zu; doorbell: offset 0x%llx size %u",
		(unsigned long long)cq1.resp.ring_offset, len1,
		(unsigned long long)c.resp.db_offset, c.resp.db_size);

	r1 = map(c.fd, len1, PROT_READ | PROT_WRITE, MAP_SHARED,
		 cq1.resp.ring_offset, &err);
	CHECK_RC(err, 0, "mmap ring 1");
	r2 = map(c.fd, len2, PROT_READ | PROT_WRITE, MAP_SHARED,
		 cq2.resp.ring_offset, &err);
	CHECK_RC(err, 0, "mmap ring 2");
	if (!r1 || !r2)
		return;
	if (!CHECK(ring_ok(r1, &cq1), "ring 1 shows its magic, token, cqn"))
		ring_diag(r1, &cq1);
	if (!CHECK(ring_ok(r2, &cq2), "ring 2 shows its magic, token, cqn"))
		ring_diag(r2, &cq2);

	r1b = map(c.fd, len1, PROT_READ | PROT_WRITE, MAP_SHARED,
		  cq1.resp.ring_offset, &err);
	CHECK_RC(err, 0, "mmap ring 1 a second time");
	if (r1b) {
		CHECK(ring_ok(r1b, &cq1), "second mapping shows the same ring");
		wr64(r1b + len1 - 8, 0x1122334455667788ull);
		CHECK(rd64(r1 + len1 - 8) == 0x1122334455667788ull,
		      "a write through one mapping shows in the other");
		munmap(r1b, len1);
	}
	ro = map(c.fd, len1, PROT_READ, MAP_SHARED, cq1.resp.ring_offset, &err);
	CHECK_RC(err, 0, "mmap ring 1 read-only");
	if (ro) {
		CHECK(ring_ok(ro, &cq1), "read-only mapping shows the ring");
		munmap(ro, len1);
	}
	if (len1 > (size_t)ut_pagesz) {
		p = map(c.fd, ut_pagesz, PROT_READ, MAP_SHARED,
			cq1.resp.ring_offset, &err);
		CHECK_RC(err, 0, "mmap the first page of ring 1 only");
		if (p) {
			CHECK(ring_ok(p, &cq1), "... shows the ring header");
			munmap(p, ut_pagesz);
		}
	}
	db = map(c.fd, c.resp.db_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 c.resp.db_offset, &err);
	CHECK_RC(err, 0, "mmap the doorbell page");
	if (db)
		munmap(db, c.resp.db_size);

	/* errors */
	CHECK_RC(map_err(c.fd, round_pg(len1) + ut_pagesz, PROT_READ,
			 MAP_SHARED, cq1.resp.ring_offset),
		 -EINVAL, "ring mapped one page too long");
	CHECK_RC(map_err(c.fd, round_pg(c.resp.db_size) + ut_pagesz, PROT_READ,
			 MAP_SHARED, c.resp.db_offset),
		 -EINVAL, "doorbell mapped one page too long");
	CHECK_RC(map_err(c.fd, ut_pagesz, PROT_READ, MAP_SHARED,
			 cq1.resp.ring_offset + 4096ull * ut_pagesz),
		 -EINVAL, "offset never handed out");
	CHECK_RC(map_err(c.fd, len1, PROT_READ | PROT_WRITE, MAP_PRIVATE,
			 cq1.resp.ring_offset),
		 -EINVAL, "MAP_PRIVATE");
	CHECK_RC(map_err(c.fd, len1, PROT_READ, MAP_PRIVATE,
			 cq1.resp.ring_offset),
		 -EINVAL, "MAP_PRIVATE read-only");
	CHECK_RC(map_err(c.fd, len1, PROT_READ | PROT_EXEC, MAP_SHARED,
			 cq1.resp.ring_offset),
		 -EPERM, "PROT_EXEC");
	/*
	 * An offset that context 2 handed out but context 1 did not: offsets
	 * are per context and may coincide, so create CQs in context 2 until
	 * one has an offset context 1 never gave.
	 */
	if (!ctx_open(&c2)) {
		uint64_t o = 0;
		int i;

		for (i = 0; i < 8 && !o; i++) {
			if (create_cq(c2.fd, 4, -1, 0, &cq3))
				break;
			if (cq3.resp.ring_offset != c.resp.db_offset &&
			    cq3.resp.ring_offset != cq1.resp.ring_offset &&
			    cq3.resp.ring_offset != cq2.resp.ring_offset)
				o = cq3.resp.ring_offset;
		}
		if (CHECK(o != 0,
			  "context 2 handed out an offset unknown to context 1 (0x%llx)",
			  (unsigned long long)o)) {
			p = map(c2.fd, ut_pagesz, PROT_READ, MAP_SHARED, o, &err);
			CHECK_RC(err, 0, "context 2 maps it");
			if (p)
				munmap(p, ut_pagesz);
			CHECK_RC(map_err(c.fd, ut_pagesz, PROT_READ,
					 MAP_SHARED, o),
				 -EINVAL, "context 1 cannot map context 2's offset");
		}
		ctx_close(&c2);
	}

	/* VM_DONTEXPAND */
	p = mremap(r1, len1, round_pg(len1) + ut_pagesz, MREMAP_MAYMOVE);
	CHECK(p == MAP_FAILED, "mremap cannot grow a ring mapping (%s)",
	      p == MAP_FAILED ? errname(-errno) : "it grew");
	if (p != MAP_FAILED)
		r1 = p;
	p = mremap(r1, len1, round_pg(len1) + ut_pagesz, 0);
	CHECK(p == MAP_FAILED, "mremap cannot grow it in place either");
	if (p != MAP_FAILED)
		r1 = p;

	/* destroy with a live mapping: the memory stays until munmap */
	snap = malloc(len1);
	memcpy(snap, r1, len1);
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_CQ, cq1.h), 0,
		 "DESTROY a CQ whose ring is mapped");
	CHECK(!memcmp(snap, r1, len1),
	      "the mapping still reads the same bytes after DESTROY");
	CHECK(ring_ok(r1, &cq1), "... including magic, token, cqn");
	wr64(r1 + len1 - 8, 42);	/* must not crash */
	CHECK_RC(map_err(c.fd, len1, PROT_READ, MAP_SHARED,
			 cq1.resp.ring_offset),
		 -EINVAL, "the destroyed CQ's offset cannot be mapped");
	free(snap);
	CHECK_EQ(munmap(r1, len1), 0, "munmap the destroyed CQ's ring");

	/* close with a live mapping: objects go once the last VMA goes */
	ctx_close(&c);
	CHECK(ring_ok(r2, &cq2), "ring 2 still readable after close(fd)");
	munmap(r2, len2);
	CHECK_EQ(res_wait_zero(2000), 0,
		 "after close and munmap no object is left");
}

/* ------------------------------------------------------------- fork */

static bool in_maps(uintptr_t a)
{
	char line[512];
	unsigned long lo, hi;
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f)
		return true;	/* make the check fail */
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && a >= lo && a < hi)
			found = true;
	fclose(f);
	return found;
}

void t_fork(void)
{
	struct xrdma_cmd_query_device qd;
	struct xrdma_cmd_alloc_pd ap;
	struct xrdma_cmd_create_cq cc;
	struct cq cq;
	struct ctx c, own;
	unsigned char vec;
	uint32_t pd, h;
	char *ring;
	pid_t pid;
	int err, st, ch;

	if (!CHECK_RC(ctx_open(&c), 0, "context"))
		return;
	ch = new_channel(c.fd);
	if (alloc_pd(c.fd, &pd) || ch < 0 || create_cq(c.fd, 8, ch, 9, &cq)) {
		ut_fail("setup", "PD, channel, CQ");
		return;
	}
	ring = map(c.fd, cq.resp.ring_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   cq.resp.ring_offset, &err);
	if (!CHECK_RC(err, 0, "mmap the ring in the parent"))
		return;
	CHECK(in_maps((uintptr_t)ring), "the parent has the ring in its maps");

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ut_fail(strerror(errno), "fork");
		return;
	}
	if (pid == 0) {
		memset(&qd, 0, sizeof(qd));
		CHECK_RC(xio(c.fd, XRDMA_IOC_QUERY_DEVICE, &qd), -EPERM,
			 "child: QUERY_DEVICE on the parent's fd");
		memset(&ap, 0, sizeof(ap));
		CHECK_RC(xio(c.fd, XRDMA_IOC_ALLOC_PD, &ap), -EPERM,
			 "child: ALLOC_PD");
		memset(&cc, 0, sizeof(cc));
		cc.cqe = 4;
		cc.channel_fd = -1;
		CHECK_RC(xio(c.fd, XRDMA_IOC_CREATE_CQ, &cc), -EPERM,
			 "child: CREATE_CQ");
		CHECK_RC(destroy(c.fd, XRDMA_OBJ_PD, pd), -EPERM,
			 "child: DESTROY of the parent's PD");
		CHECK_RC(get_async_fd(c.fd), -EPERM, "child: GET_ASYNC_FD");
		CHECK_RC(new_channel(c.fd), -EPERM,
			 "child: CREATE_COMP_CHANNEL");
		CHECK(!in_maps((uintptr_t)ring),
		      "child: the ring is not in /proc/self/maps");
		err = mincore(ring, ut_pagesz, &vec) ? -errno : 0;
		CHECK_RC(err, -ENOMEM, "child: mincore says the ring is unmapped");
		err = probe_read(ring);
		CHECK_EQ(err, 11 /* SIGSEGV */,
			 "child: touching the ring address faults with SIGSEGV");
		/* the child may open the device for itself */
		if (CHECK_RC(ctx_open(&own), 0, "child: its own open works")) {
			CHECK_RC(alloc_pd(own.fd, &h), 0,
				 "child: ALLOC_PD on its own fd");
			ctx_close(&own);
		}
		_exit(0);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child exited normally");
	CHECK(ring_ok(ring, &cq), "parent: ring intact after the child exited");
	memset(&qd, 0, sizeof(qd));
	CHECK_RC(xio(c.fd, XRDMA_IOC_QUERY_DEVICE, &qd), 0,
		 "parent: QUERY_DEVICE still works");
	CHECK_EQ(res_total(), 2, "parent: its PD and CQ are still there");
	CHECK_RC(alloc_pd(c.fd, &h), 0, "parent: ALLOC_PD works");
	destroy(c.fd, XRDMA_OBJ_PD, h);
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_CQ, cq.h), 0, "parent: DESTROY CQ");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_PD, pd), 0, "parent: DESTROY PD");
	munmap(ring, cq.resp.ring_size);
	close(ch);
	ctx_close(&c);
}
