// SPDX-License-Identifier: GPL-2.0
/*
 * uverbs_test: limits on what one process or user may take of a device
 * (Documentation/core.rst "Limits"), run on xnic0 by
 * tools/testing/uverbs/uverbs_limits.sh:
 *
 *   limmem     queue memory counts in VmPin against RLIMIT_MEMLOCK for as
 *              long as it exists, mapped after DESTROY included; munmap
 *              gives it back
 *   limcap     the per-context cap (xrdma_core max_ucontext_mem) holds
 *              even with CAP_IPC_LOCK; xnic max_queue_order refuses a
 *              larger queue
 *   limshare   one uid exhausting its share of contexts and SRQs gets
 *              -EAGAIN, and a second uid still gets both
 *   limdm      one uid gets its share of device memory (pages), then
 *              -EAGAIN, also while a freed DM is still mapped; a second
 *              uid still gets its share; all of it is free afterwards
 *   limmcast   one uid gets its share of multicast attachments, then
 *              -EAGAIN; a second uid still attaches, to the same groups
 *              and to new ones
 *   limcgroup  the rdma cgroup's hca_handle/hca_object limits: -EAGAIN
 *   limmemcg   queue memory is charged to the memory cgroup (__GFP_ACCOUNT)
 *   limdmabuf  a dmabuf MR's translation table is charged to the memory
 *              cgroup, and its tables to the per-context cap: registering
 *              one vgem dmabuf over and over ends in -ENOMEM at the cap's
 *              count; dereg gives all of it back
 *
 * The unprivileged parts setuid() to uids 1000/1001 after setting their
 * rlimits as root.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <grp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <xrdma/xnic-abi.h>
#include "ut.h"

#define UID_A	1000
#define UID_B	1001

/* CREATE_CQ on xnic: 0 or -errno, handle and the xnic response */
static int xcq_create(int fd, uint32_t cqe, uint32_t *h,
		      struct xnic_create_cq_resp *resp)
{
	struct xrdma_cmd_create_cq c = { 0 };
	int ret;

	memset(resp, 0, sizeof(*resp));
	c.cqe = cqe;
	c.channel_fd = -1;
	c.udata.out = (uintptr_t)resp;
	c.udata.out_len = sizeof(*resp);
	ret = xio(fd, XRDMA_IOC_CREATE_CQ, &c);
	*h = ret ? 0 : c.cq_handle;
	return ret;
}

/* CREATE_SRQ on xnic with the smallest queue */
static int xsrq_create(int fd, uint32_t pd, uint32_t *h)
{
	struct xnic_create_srq_resp resp;
	struct xrdma_cmd_create_srq c = { 0 };
	int ret;

	c.pd_handle = pd;
	c.max_wr = 1;
	c.max_sge = 1;
	c.udata.out = (uintptr_t)&resp;
	c.udata.out_len = sizeof(resp);
	ret = xio(fd, XRDMA_IOC_CREATE_SRQ, &c);
	*h = ret ? 0 : c.srq_handle;
	return ret;
}

/* Become @uid with the given RLIMIT_MEMLOCK and RLIMIT_NOFILE: 0/-errno */
static int become(uid_t uid, long memlock, long nofile)
{
	struct rlimit ml = { memlock, memlock }, nf = { nofile, nofile };

	if (setrlimit(RLIMIT_MEMLOCK, &ml) ||
	    (nofile && setrlimit(RLIMIT_NOFILE, &nf)) ||
	    setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid))
		return -errno;
	return 0;
}

static int write_str(const char *path, const char *s)
{
	ssize_t n = ut_write_str(path, s);

	return n < 0 ? (int)n : 0;
}

/* first line of a file, "" if unreadable */
static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	len = strlen(buf);
	while (len && buf[len - 1] == ' ')
		buf[--len] = '\0';
}

static long read_long(const char *path)
{
	char buf[64];

	read_line(path, buf, sizeof(buf));
	return buf[0] ? strtol(buf, NULL, 0) : -1;
}

/* run fn in a child, wait for it; checks made there count */
static void in_child(void (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		fn(arg);
		_exit(0);
	}
	if (!CHECK(pid > 0, "fork"))
		return;
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && !WEXITSTATUS(st), "child exits normally");
}

/* ------------------------------------------------------------- limmem */

#define MEM_LIMIT	(4L << 20)
#define MEM_CQE		8192		/* 256 kB ring: one 512 kB allocation */
#define MEM_ROUNDS	64

static void limmem_child(void *unused)
{
	struct xnic_create_cq_resp resp;
	void *maps[MEM_ROUNDS] = { 0 };
	long pin_ctx, pin_cq, pin, kb;
	size_t map_len = 0;
	int i, n = 0, rc = 0, bad = 0;
	struct ctx c;
	uint32_t h;

	(void)unused;
	if (!CHECK_RC(become(UID_A, MEM_LIMIT, 0), 0,
		      "uid %d, RLIMIT_MEMLOCK %ld kB", UID_A, MEM_LIMIT >> 10) ||
	    !CHECK_RC(ctx_open(&c), 0, "context"))
		return;
	pin_ctx = status_kb("VmPin");
	CHECK(pin_ctx >= XNIC_DB_PAGE_SIZE / 1024,
	      "the context's doorbell page counts in VmPin (%ld kB)", pin_ctx);

	if (!CHECK_RC(xcq_create(c.fd, MEM_CQE, &h, &resp), 0,
		      "CREATE_CQ %d entries", MEM_CQE))
		return;
	pin_cq = status_kb("VmPin") - pin_ctx;
	kb = resp.mmap_size / 1024;
	CHECK(pin_cq >= kb, "VmPin counts the CQ: +%ld kB for %ld kB", pin_cq,
	      kb);
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_CQ, h), 0, "DESTROY it unmapped");
	CHECK_EQ(status_kb("VmPin"), pin_ctx, "VmPin back without the CQ");
	if (pin_cq <= 0)
		pin_cq = 1;

	/* create, mmap, destroy: the mappings keep the memory, and its charge */
	for (i = 0; i < MEM_ROUNDS; i++) {
		pin = status_kb("VmPin");
		rc = xcq_create(c.fd, MEM_CQE, &h, &resp);
		if (rc)
			break;
		map_len = resp.mmap_size;
		maps[i] = mmap(NULL, map_len, PROT_READ | PROT_WRITE,
			       MAP_SHARED, c.fd, resp.mmap_offset);
		if (maps[i] == MAP_FAILED) {
			maps[i] = NULL;
			ut_fail(errname(-errno), "round %d: mmap", i);
		}
		rc = destroy(c.fd, XRDMA_OBJ_CQ, h);
		if (rc) {
			ut_fail(errname(rc), "round %d: DESTROY", i);
			break;
		}
		if (status_kb("VmPin") != pin + pin_cq && !bad++)
			ut_fail("", "round %d: VmPin %ld kB, want %ld + %ld",
				i, status_kb("VmPin"), pin, pin_cq);
		n++;
	}
	CHECK_EQ(bad, 0, "every round: the mapping keeps the memory charged");
	CHECK_RC(rc, -ENOMEM, "CREATE_CQ after %d create/mmap/destroy rounds",
		 n);
	pin = status_kb("VmPin");
	CHECK(pin <= MEM_LIMIT / 1024 && pin + pin_cq > MEM_LIMIT / 1024,
	      "VmPin %ld kB: within %ld kB, no room for one more CQ", pin,
	      MEM_LIMIT / 1024);
	for (i = 0; i < MEM_ROUNDS; i++)
		if (maps[i])
			munmap(maps[i], map_len);
	CHECK_EQ(status_kb("VmPin"), pin_ctx,
		 "munmap gives it back: VmPin is the doorbell page again");
	if (CHECK_RC(xcq_create(c.fd, MEM_CQE, &h, &resp), 0,
		     "CREATE_CQ fits again"))
		CHECK_RC(destroy(c.fd, XRDMA_OBJ_CQ, h), 0, "DESTROY it");
	ctx_close(&c);
	CHECK_EQ(status_kb("VmPin"), 0, "close: VmPin 0");
}

void t_limmem(void)
{
	in_child(limmem_child, NULL);
}

/* ------------------------------------------------------------- limcap */

#define P_CTXMEM	"/sys/module/xrdma_core/parameters/max_ucontext_mem"
#define P_ORDER		"/sys/module/xnic/parameters/max_queue_order"

void t_limcap(void)
{
	struct xnic_create_cq_resp resp;
	long old_mem = read_long(P_CTXMEM), old_order = read_long(P_ORDER);
	char buf[32];
	uint32_t h1, h2;
	struct ctx c;

	CHECK(old_mem > 0, "%s readable (%ld)", P_CTXMEM, old_mem);
	CHECK(old_order > 0, "%s readable (%ld)", P_ORDER, old_order);
	if (old_mem <= 0 || old_order <= 0)
		return;

	/* 1 MiB a context: the doorbell page and one 512 kB CQ fit */
	CHECK_RC(write_str(P_CTXMEM, "1"), 0, "max_ucontext_mem=1");
	if (CHECK_RC(ctx_open(&c), 0, "context (root, CAP_IPC_LOCK)")) {
		CHECK_RC(xcq_create(c.fd, MEM_CQE, &h1, &resp), 0,
			 "a 512 kB CQ fits");
		CHECK_RC(xcq_create(c.fd, MEM_CQE, &h2, &resp), -ENOMEM,
			 "a second one is over the context's cap, CAP_IPC_LOCK or not");
		CHECK_RC(destroy(c.fd, XRDMA_OBJ_CQ, h1), 0, "DESTROY the first");
		CHECK_RC(xcq_create(c.fd, MEM_CQE, &h2, &resp), 0,
			 "then one fits again");
		CHECK_RC(destroy(c.fd, XRDMA_OBJ_CQ, h2), 0, "DESTROY it");
		ctx_close(&c);
	}
	snprintf(buf, sizeof(buf), "%ld", old_mem);
	CHECK_RC(write_str(P_CTXMEM, buf), 0, "max_ucontext_mem restored");

	/* order 6 (256 kB): a 512 kB CQ is refused, a 32 kB one is not */
	CHECK_RC(write_str(P_ORDER, "6"), 0, "max_queue_order=6");
	if (CHECK_RC(ctx_open(&c), 0, "context")) {
		CHECK_RC(xcq_create(c.fd, MEM_CQE, &h1, &resp), -ENOMEM,
			 "CQ of %d entries (order 7) refused", MEM_CQE);
		if (CHECK_RC(xcq_create(c.fd, 1000, &h1, &resp), 0,
			     "CQ of 1000 entries fits"))
			CHECK_RC(destroy(c.fd, XRDMA_OBJ_CQ, h1), 0, "DESTROY");
		ctx_close(&c);
	}
	snprintf(buf, sizeof(buf), "%ld", old_order);
	CHECK_RC(write_str(P_ORDER, buf), 0, "max_queue_order restored");
}

/* ----------------------------------------------------------- limshare */

#define P_SHARE		"/sys/module/xrdma_core/parameters/user_share"
#define XNIC_CONTEXTS	1023	/* doorbell pages for processes */
#define SHARE_MAX	2048	/* give up counting there */

struct share {
	int a_ready[2];		/* A -> parent: holding its share */
	int b_done[2];		/* parent -> A: B has checked */
	unsigned int srq_lim, ctx_lim;
};

static void share_a(void *arg)
{
	struct share *s = arg;
	static struct ctx cs[SHARE_MAX];
	uint32_t pd, h;
	int n, rc = 0;
	char ch = 'x';

	close(s->a_ready[0]);
	close(s->b_done[1]);
	for (n = 0; n < SHARE_MAX; n++)
		cs[n].fd = -1;
	if (!CHECK_RC(become(UID_A, 64L << 20, SHARE_MAX + 64), 0,
		      "A: uid %d", UID_A) ||
	    !CHECK_RC(ctx_open(&cs[0]), 0, "A: context") ||
	    !CHECK_RC(alloc_pd(cs[0].fd, &pd), 0, "A: ALLOC_PD"))
		goto out;

	for (n = 0; n < SHARE_MAX; n++) {
		rc = xsrq_create(cs[0].fd, pd, &h);
		if (rc)
			break;
	}
	CHECK_RC(rc, -EAGAIN, "A: CREATE_SRQ number %d", n + 1);
	CHECK_EQ(n, s->srq_lim, "A: SRQs created = its share");

	for (n = 1; n < SHARE_MAX; n++) {
		rc = ctx_open(&cs[n]);
		if (rc)
			break;
	}
	CHECK_RC(rc, -EAGAIN, "A: context number %d", n + 1);
	CHECK_EQ(n, s->ctx_lim, "A: contexts opened = its share");
out:
	/* A holds everything while B tries */
	if (write(s->a_ready[1], &ch, 1) != 1)
		ut_fail("", "A: pipe");
	if (read(s->b_done[0], &ch, 1) != 1)
		ut_fail("", "A: pipe");
	for (n = 0; n < SHARE_MAX; n++)
		ctx_close(&cs[n]);
}

static void share_b(void *arg)
{
	uint32_t pd, h;
	struct ctx c;

	(void)arg;
	if (!CHECK_RC(become(UID_B, 64L << 20, 0), 0, "B: uid %d", UID_B) ||
	    !CHECK_RC(ctx_open(&c), 0, "B: context while A holds its share"))
		return;
	if (CHECK_RC(alloc_pd(c.fd, &pd), 0, "B: ALLOC_PD"))
		CHECK_RC(xsrq_create(c.fd, pd, &h), 0,
			 "B: CREATE_SRQ while A holds its share");
	ctx_close(&c);
}

void t_limshare(void)
{
	struct share s;
	long share = read_long(P_SHARE);
	pid_t a;
	char ch;
	int st;

	/* without the parameter, go on with 50% to show what happens */
	if (!CHECK(share > 0 && share < 100, "%s: %ld", P_SHARE, share))
		share = 50;
	s.srq_lim = (uint64_t)ut_dattr.max_srq * share / 100;
	s.ctx_lim = XNIC_CONTEXTS * share / 100;
	ut_note("user_share %ld%%: %u of %u SRQs, %u of %u contexts per uid",
		share, s.srq_lim, ut_dattr.max_srq, s.ctx_lim, XNIC_CONTEXTS);
	if (pipe(s.a_ready) || pipe(s.b_done)) {
		ut_fail(errname(-errno), "pipe");
		return;
	}
	a = fork();
	if (a == 0) {
		share_a(&s);
		_exit(0);
	}
	close(s.a_ready[1]);
	close(s.b_done[0]);
	if (!CHECK(a > 0, "fork A"))
		return;
	if (CHECK_EQ(read(s.a_ready[0], &ch, 1), 1, "A holds its share"))
		in_child(share_b, NULL);
	if (write(s.b_done[1], "x", 1) != 1)
		ut_fail("", "pipe");
	waitpid(a, &st, 0);
	CHECK(WIFEXITED(st) && !WEXITSTATUS(st), "A exits normally");
	close(s.a_ready[0]);
	close(s.b_done[1]);
}

/* -------------------------------------------------- limdm, limmcast */

/*
 * Two uids side by side (A holds what it got while B tries): @a and @b
 * run in children as UID_A and UID_B; A signals once it holds its share.
 */
struct pair {
	int a_ready[2];		/* A -> parent: holding its share */
	int b_done[2];		/* parent -> A: B has checked */
	unsigned int lim;	/* the share, in the pool's units */
};

static void pair_wait_b(struct pair *p)
{
	char ch = 'x';

	if (write(p->a_ready[1], &ch, 1) != 1 ||
	    read(p->b_done[0], &ch, 1) != 1)
		ut_fail("", "A: pipe");
}

static void pair_run(struct pair *p, void (*a)(struct pair *),
		     void (*b)(struct pair *))
{
	pid_t pa;
	char ch;
	int st;

	if (pipe(p->a_ready) || pipe(p->b_done)) {
		ut_fail(errname(-errno), "pipe");
		return;
	}
	pa = fork();
	if (pa == 0) {
		close(p->a_ready[0]);
		close(p->b_done[1]);
		a(p);
		_exit(0);
	}
	close(p->a_ready[1]);
	close(p->b_done[0]);
	if (CHECK(pa > 0, "fork A") &&
	    CHECK_EQ(read(p->a_ready[0], &ch, 1), 1, "A holds its share"))
		in_child((void (*)(void *))b, p);
	if (write(p->b_done[1], "x", 1) != 1)
		ut_fail("", "pipe");
	if (pa > 0) {
		waitpid(pa, &st, 0);
		CHECK(WIFEXITED(st) && !WEXITSTATUS(st), "A exits normally");
	}
	close(p->a_ready[0]);
	close(p->b_done[1]);
}

static unsigned int share_of(unsigned long long max)
{
	long share = read_long(P_SHARE);

	if (!CHECK(share > 0 && share < 100, "%s: %ld", P_SHARE, share))
		share = 50;
	return (unsigned int)(max * share / 100);
}

static int dm_alloc(int fd, uint64_t len, struct xrdma_cmd_alloc_dm *c)
{
	memset(c, 0, sizeof(*c));
	c->length = len;
	return xio(fd, XRDMA_IOC_ALLOC_DM, c);
}

#define DM_MAXN		64

/* A: one page at a time up to the share; the first one stays mapped */
static void dm_a(struct pair *p)
{
	struct xrdma_cmd_alloc_dm c;
	unsigned int n;
	struct ctx cx;
	void *map;
	int rc = 0;

	if (!CHECK_RC(become(UID_A, 64L << 20, 0), 0, "A: uid %d", UID_A) ||
	    !CHECK_RC(ctx_open(&cx), 0, "A: context"))
		goto out;
	/* freed but still mapped: its page stays out, and charged */
	if (CHECK_RC(dm_alloc(cx.fd, 4096, &c), 0, "A: ALLOC_DM 1 page")) {
		map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
			   cx.fd, (off_t)c.mmap_offset);
		CHECK(map != MAP_FAILED, "A: mmap it");
		CHECK_RC(destroy(cx.fd, XRDMA_OBJ_DM, c.dm_handle), 0,
			 "A: DESTROY it, still mapped");
	}
	for (n = 1; n < DM_MAXN; n++) {
		rc = dm_alloc(cx.fd, 4096, &c);
		if (rc)
			break;
	}
	CHECK_RC(rc, -EAGAIN, "A: ALLOC_DM page number %u", n + 1);
	CHECK_EQ(n, p->lim, "A: pages allocated (one freed, mapped) = its share");
out:
	pair_wait_b(p);
}

static void dm_b(struct pair *p)
{
	struct xrdma_cmd_alloc_dm c;
	struct ctx cx;

	if (!CHECK_RC(become(UID_B, 64L << 20, 0), 0, "B: uid %d", UID_B) ||
	    !CHECK_RC(ctx_open(&cx), 0, "B: context"))
		return;
	CHECK_RC(dm_alloc(cx.fd, (uint64_t)p->lim * 4096, &c), 0,
		 "B: ALLOC_DM its share (%u pages) while A holds its own",
		 p->lim);
	CHECK_RC(dm_alloc(cx.fd, 4096, &c), -EAGAIN, "B: one page more");
	ctx_close(&cx);
}

void t_limdm(void)
{
	struct xrdma_cmd_alloc_dm c;
	struct pair p;
	struct ctx cx;

	if (!ut_dattr.max_dm_size) {
		ut_note("no device memory");
		return;
	}
	p.lim = share_of(ut_dattr.max_dm_size / 4096);
	ut_note("%u of %llu DM pages per uid", p.lim,
		(unsigned long long)ut_dattr.max_dm_size / 4096);
	if (!CHECK(p.lim && p.lim < DM_MAXN, "share of %u pages testable",
		   p.lim))
		return;
	pair_run(&p, dm_a, dm_b);
	/* root (CAP_SYS_RESOURCE) gets all of it: everything came back */
	if (CHECK_RC(ctx_open(&cx), 0, "context")) {
		CHECK_RC(dm_alloc(cx.fd, ut_dattr.max_dm_size, &c), 0,
			 "root: ALLOC_DM all of it afterwards");
		ctx_close(&cx);
	}
}

#define MC_QPS		4	/* a group's 8 QP slots: half for A */
#define MC_MAXN		(MC_QPS * 32)

static int mcast(int fd, uint32_t qp, unsigned int group, bool attach)
{
	struct xrdma_cmd_mcast m = { .qp_handle = qp, .lid = 0xc001 };

	m.gid[0] = 0xff;
	m.gid[1] = 0x0e;
	m.gid[14] = (uint8_t)(group >> 8);
	m.gid[15] = (uint8_t)group;
	return xio(fd, attach ? XRDMA_IOC_ATTACH_MCAST :
				XRDMA_IOC_DETACH_MCAST, &m);
}

/* a context with MC_QPS UD QPs: 0 or -errno */
static int mc_objs(struct ctx *cx, struct qp *qp, int nqp)
{
	uint32_t pd;
	struct cq cq;
	int i, rc;

	rc = ctx_open(cx);
	if (!rc)
		rc = alloc_pd(cx->fd, &pd);
	if (!rc)
		rc = create_cq(cx->fd, 64, -1, 0, &cq);
	for (i = 0; !rc && i < nqp; i++)
		rc = create_qp(cx->fd, pd, cq.h, cq.h, 0, XRDMA_UVERBS_QPT_UD,
			       0, &qp[i]);
	return rc;
}

/* A: QP i attaches to groups 0, 1, ... (4 QPs a group) until refused */
static void mc_a(struct pair *p)
{
	struct qp qp[MC_QPS];
	unsigned int n;
	struct ctx cx;
	int rc = 0;

	if (!CHECK_RC(become(UID_A, 64L << 20, 0), 0, "A: uid %d", UID_A) ||
	    !CHECK_RC(mc_objs(&cx, qp, MC_QPS), 0, "A: %d UD QPs", MC_QPS))
		goto out;
	for (n = 0; n < MC_MAXN; n++) {
		rc = mcast(cx.fd, qp[n % MC_QPS].h, n / MC_QPS, true);
		if (rc)
			break;
	}
	CHECK_RC(rc, -EAGAIN, "A: attachment number %u", n + 1);
	CHECK_EQ(n, p->lim, "A: attachments = its share");
	if (n) {
		n--;
		CHECK_RC(mcast(cx.fd, qp[n % MC_QPS].h, n / MC_QPS, false), 0,
			 "A: detach one");
		CHECK_RC(mcast(cx.fd, qp[n % MC_QPS].h, n / MC_QPS, true), 0,
			 "A: then attach again");
	}
out:
	pair_wait_b(p);
}

static void mc_b(struct pair *p)
{
	struct qp qp[2];
	struct ctx cx;

	(void)p;
	if (!CHECK_RC(become(UID_B, 64L << 20, 0), 0, "B: uid %d", UID_B) ||
	    !CHECK_RC(mc_objs(&cx, qp, 2), 0, "B: 2 UD QPs"))
		return;
	CHECK_RC(mcast(cx.fd, qp[0].h, 0, true), 0,
		 "B: attach to A's group 0 while A holds its share");
	CHECK_RC(mcast(cx.fd, qp[1].h, 1000, true), 0,
		 "B: attach to a new group while A holds its share");
	ctx_close(&cx);
}

void t_limmcast(void)
{
	unsigned long long max = ut_dattr.max_mcast_grp;
	struct pair p;

	if (ut_dattr.max_total_mcast_qp_attach < max)
		max = ut_dattr.max_total_mcast_qp_attach;
	if (!max) {
		ut_note("no multicast");
		return;
	}
	p.lim = share_of(max);
	ut_note("%u attachments per uid (of %u groups, %u attachments)",
		p.lim, ut_dattr.max_mcast_grp,
		ut_dattr.max_total_mcast_qp_attach);
	if (!CHECK(p.lim && p.lim < MC_MAXN, "share of %u testable", p.lim))
		return;
	pair_run(&p, mc_a, mc_b);
}

/* ---------------------------------------------------------- limcgroup */

#define CG_ROOT		"/sys/fs/cgroup"
#define CG_DIR		CG_ROOT "/xrdma_limits"

static void cgroup_child(void *unused)
{
	char buf[256], want[128];
	struct ctx c1, c2, c3;
	uint32_t pd, h;
	struct xnic_create_cq_resp resp;

	(void)unused;
	snprintf(buf, sizeof(buf), "%d", getpid());
	if (!CHECK_RC(write_str(CG_DIR "/cgroup.procs", buf), 0,
		      "join the cgroup"))
		return;
	CHECK_RC(ctx_open(&c1), 0, "context 1 of hca_handle=2");
	CHECK_RC(ctx_open(&c2), 0, "context 2");
	CHECK_RC(ctx_open(&c3), -EAGAIN, "context 3: over hca_handle");
	if (c1.fd >= 0) {
		CHECK_RC(alloc_pd(c1.fd, &pd), 0, "object 1 of hca_object=3");
		CHECK_RC(xcq_create(c1.fd, 16, &h, &resp), 0, "object 2");
		CHECK_RC(xsrq_create(c1.fd, pd, &h), 0, "object 3");
		CHECK_RC(alloc_pd(c1.fd, &h), -EAGAIN,
			 "object 4: over hca_object");
	}
	read_line(CG_DIR "/rdma.current", buf, sizeof(buf));
	snprintf(want, sizeof(want), "%s hca_handle=2 hca_object=3",
		 ut_devname);
	CHECK(!strcmp(buf, want), "rdma.current \"%s\", want \"%s\"", buf,
	      want);
	ctx_close(&c1);
	ctx_close(&c2);
	ctx_close(&c3);
	read_line(CG_DIR "/rdma.current", buf, sizeof(buf));
	snprintf(want, sizeof(want), "%s hca_handle=0 hca_object=0",
		 ut_devname);
	CHECK(!strcmp(buf, want) || !buf[0],
	      "after close rdma.current \"%s\"", buf);
	/* leave, so that the cgroup can be removed */
	snprintf(buf, sizeof(buf), "%d", getpid());
	write_str(CG_ROOT "/cgroup.procs", buf);
}

/* cgroup2 mounted on CG_ROOT with controller @ctl enabled for children */
static bool cg_setup(const char *ctl)
{
	char buf[256];

	if (access(CG_ROOT "/cgroup.controllers", R_OK)) {
		mkdir(CG_ROOT, 0755);
		if (!CHECK_RC(mount("none", CG_ROOT, "cgroup2", 0, NULL) ?
			      -errno : 0, 0, "mount cgroup2 on %s", CG_ROOT))
			return false;
	}
	read_line(CG_ROOT "/cgroup.controllers", buf, sizeof(buf));
	if (!CHECK(strstr(buf, ctl), "%s controller available: \"%s\"", ctl,
		   buf))
		return false;
	snprintf(buf, sizeof(buf), "+%s", ctl);
	return CHECK_RC(write_str(CG_ROOT "/cgroup.subtree_control", buf), 0,
			"enable %s", buf);
}

void t_limcgroup(void)
{
	char buf[256];

	if (!cg_setup("rdma"))
		return;
	rmdir(CG_DIR);
	if (!CHECK_RC(mkdir(CG_DIR, 0755) ? -errno : 0, 0, "mkdir " CG_DIR))
		return;
	snprintf(buf, sizeof(buf), "%s hca_handle=2 hca_object=3",
		 ut_devname);
	if (CHECK_RC(write_str(CG_DIR "/rdma.max", buf), 0,
		     "rdma.max \"%s\" (the device is known to the controller)",
		     buf))
		in_child(cgroup_child, NULL);
	/*
	 * Back to "max" before rmdir: 6.1's rdmacg frees an unused pool with
	 * a limit only then.  Removing the cgroup instead leaves the pool on
	 * the device's list, pointing into the freed cgroup, and
	 * rdmacg_unregister_device() at rmmod then corrupts memory (a kernel
	 * bug that ib_core devices share; Documentation/core.rst).
	 */
	snprintf(buf, sizeof(buf), "%s hca_handle=max hca_object=max",
		 ut_devname);
	CHECK_RC(write_str(CG_DIR "/rdma.max", buf), 0, "rdma.max back to max");
	CHECK_RC(rmdir(CG_DIR) ? -errno : 0, 0, "rmdir " CG_DIR);
}

/* ---------------------------------------------------------- limmemcg */

#define CG_MEM		CG_ROOT "/xrdma_memcg"
#define MEMCG_CQE	32768	/* 1 MiB ring: one 2 MiB allocation */
/* memory.current moves in per-cpu batches of up to 64 pages */
#define MEMCG_MIN	((2L << 20) - 64 * 4096)

/*
 * Kernel memory of a process's objects (the core's object, the uverbs
 * handle) is charged too: MEMCG_PDS PDs take at least about 300 bytes
 * each, far more than the per-cpu charge batches can hide.
 */
#define MEMCG_PDS	4000
#define MEMCG_PD_MIN	((long)MEMCG_PDS * 256 - 2 * 64 * 4096)

static void memcg_objects(int fd)
{
	static uint32_t pd[MEMCG_PDS];
	long m0, m1, m2;
	int i, n, bad = 0;

	m0 = read_long(CG_MEM "/memory.current");
	for (n = 0; n < MEMCG_PDS; n++)
		if (alloc_pd(fd, &pd[n]))
			break;
	CHECK_EQ(n, MEMCG_PDS, "ALLOC_PD %d times", MEMCG_PDS);
	m1 = read_long(CG_MEM "/memory.current");
	CHECK(m1 - m0 >= MEMCG_PD_MIN,
	      "memory.current %ld -> %ld: %d PDs are charged to the memory cgroup",
	      m0, m1, n);
	for (i = 0; i < n; i++)
		bad += !!destroy(fd, XRDMA_OBJ_PD, pd[i]);
	CHECK_EQ(bad, 0, "DESTROY them");
	m2 = read_long(CG_MEM "/memory.current");
	CHECK(m1 - m2 >= MEMCG_PD_MIN,
	      "memory.current %ld -> %ld: destroying them uncharges it", m1, m2);
}

static void memcg_child(void *unused)
{
	struct xnic_create_cq_resp resp;
	long m0, m1, m2;
	char buf[32];
	struct ctx c;
	uint32_t h;

	(void)unused;
	snprintf(buf, sizeof(buf), "%d", getpid());
	if (!CHECK_RC(write_str(CG_MEM "/cgroup.procs", buf), 0,
		      "join the cgroup") ||
	    !CHECK_RC(ctx_open(&c), 0, "context"))
		return;
	m0 = read_long(CG_MEM "/memory.current");
	if (CHECK_RC(xcq_create(c.fd, MEMCG_CQE, &h, &resp), 0,
		     "CREATE_CQ %d entries (2 MiB)", MEMCG_CQE)) {
		m1 = read_long(CG_MEM "/memory.current");
		CHECK(m1 - m0 >= MEMCG_MIN,
		      "memory.current %ld -> %ld: the queue is charged to the memory cgroup",
		      m0, m1);
		CHECK_RC(destroy(c.fd, XRDMA_OBJ_CQ, h), 0, "DESTROY it");
		m2 = read_long(CG_MEM "/memory.current");
		CHECK(m1 - m2 >= MEMCG_MIN,
		      "memory.current %ld -> %ld: freeing uncharges it", m1, m2);
	}
	memcg_objects(c.fd);
	ctx_close(&c);
	snprintf(buf, sizeof(buf), "%d", getpid());
	write_str(CG_ROOT "/cgroup.procs", buf);
}

void t_limmemcg(void)
{
	if (!cg_setup("memory"))
		return;
	rmdir(CG_MEM);
	if (CHECK_RC(mkdir(CG_MEM, 0755) ? -errno : 0, 0, "mkdir " CG_MEM))
		in_child(memcg_child, NULL);
	/* the cgroup may linger for a moment while its memory is reparented */
	for (int i = 0; i < 50 && rmdir(CG_MEM) && errno == EBUSY; i++)
		usleep(100000);
	CHECK(access(CG_MEM, F_OK), "rmdir " CG_MEM);
}

/* --------------------------------------------------------- limdmabuf */

/*
 * DRM's ioctls for a dumb buffer exported as a dmabuf (include/uapi/drm,
 * a stable ABI; as tools/testing/lib/xverbs/xv_mr.c)
 */
struct lim_drm_version {
	int major, minor, patchlevel;
	size_t name_len;
	char *name;
	size_t date_len;
	char *date;
	size_t desc_len;
	char *desc;
};

struct lim_drm_create_dumb {
	uint32_t height, width, bpp, flags;
	uint32_t handle, pitch;
	uint64_t size;
};

struct lim_drm_prime_handle {
	uint32_t handle, flags;
	int32_t fd;
};

#define LIM_DRM_VERSION		_IOWR('d', 0x00, struct lim_drm_version)
#define LIM_DRM_PRIME_HANDLE_TO_FD _IOWR('d', 0x2d, struct lim_drm_prime_handle)
#define LIM_DRM_CREATE_DUMB	_IOWR('d', 0xb2, struct lim_drm_create_dumb)

#define CG_DMABUF	CG_ROOT "/xrdma_dmabuf"
#define DMB_PAGES	2048	/* 8 MiB: a 16 KiB MTT per MR */
#define DMB_MRS		128	/* 2 MiB of MTTs */
/* the MTTs less the per-cpu charge batches (up to 64 pages, 2 CPUs) */
#define DMB_MIN		((long)DMB_MRS * DMB_PAGES * 8 - 2 * 64 * 4096)
/*
 * A 1-page dmabuf MR is charged 3 pages to the context (xnic: its MTT,
 * the device's copy, the exporter's scatterlist): with a 1 MiB cap, at
 * most 256 / 3 fit, and at least that less the context's own pages
 * (its doorbell page; 16 is ample).
 */
#define DMB_CAP_MIN	((256 - 16) / 3)
#define DMB_CAP_MAX	(256 / 3)
#define DMB_CAP_TRY	(4 * DMB_CAP_MAX)

/* an fd of vgem's /dev/dri/cardN, or -1 */
static int lim_vgem_open(void)
{
	char path[32], name[16];
	int i, fd;

	for (i = 0; i < 16; i++) {
		struct lim_drm_version v = { .name = name,
					     .name_len = sizeof(name) - 1 };

		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		memset(name, 0, sizeof(name));
		if (!ioctl(fd, LIM_DRM_VERSION, &v) && !strcmp(name, "vgem"))
			return fd;
		close(fd);
	}
	return -1;
}

/* a dmabuf fd of @npages pages from vgem, or -1 */
static int lim_vgem_dmabuf(int card, uint32_t npages)
{
	struct lim_drm_create_dumb d = {
		.height = npages, .width = (uint32_t)(ut_pagesz / 4),
		.bpp = 32,
	};
	struct lim_drm_prime_handle h = { .flags = O_CLOEXEC | O_RDWR };

	if (ioctl(card, LIM_DRM_CREATE_DUMB, &d) ||
	    d.size < (uint64_t)npages * ut_pagesz)
		return -1;
	h.handle = d.handle;
	if (ioctl(card, LIM_DRM_PRIME_HANDLE_TO_FD, &h))
		return -1;
	return h.fd;
}

static int reg_dmabuf(int fd, uint32_t pd, int dfd, uint64_t len,
		      uint32_t *h)
{
	struct xrdma_cmd_reg_dmabuf_mr c = { 0 };
	int ret;

	c.pd_handle = pd;
	c.access = XRDMA_UVERBS_ACCESS_LOCAL_WRITE;
	c.length = len;
	c.fd = dfd;
	ret = xio(fd, XRDMA_IOC_REG_DMABUF_MR, &c);
	if (!ret)
		*h = c.mr_handle;
	return ret;
}

/* the MTTs of DMB_MRS registrations of an 8 MiB dmabuf, in the memcg */
static void dmabuf_memcg(int fd, uint32_t pd, int card)
{
	static uint32_t mr[DMB_MRS];
	long m0, m1, m2;
	int dfd, n, i, bad = 0, ret = 0;
	uint32_t warm;

	dfd = lim_vgem_dmabuf(card, DMB_PAGES);
	if (!CHECK(dfd >= 0, "a %d-page dmabuf from vgem", DMB_PAGES))
		return;
	/* the exporter's pages are allocated (and charged) once, here */
	if (!CHECK_RC(reg_dmabuf(fd, pd, dfd, DMB_PAGES * ut_pagesz, &warm),
		      0, "REG_DMABUF_MR of all of it"))
		goto out;
	m0 = read_long(CG_DMABUF "/memory.current");
	for (n = 0; n < DMB_MRS; n++) {
		ret = reg_dmabuf(fd, pd, dfd, DMB_PAGES * ut_pagesz, &mr[n]);
		if (ret)
			break;
	}
	CHECK_EQ(n, DMB_MRS, "REG_DMABUF_MR %d more times (%s)", DMB_MRS,
		 errname(ret));
	m1 = read_long(CG_DMABUF "/memory.current");
	CHECK(m1 - m0 >= DMB_MIN,
	      "memory.current %ld -> %ld: %d MTTs of %ld bytes are charged to the memory cgroup",
	      m0, m1, n, (long)DMB_PAGES * 8);
	for (i = 0; i < n; i++)
		bad += !!destroy(fd, XRDMA_OBJ_MR, mr[i]);
	CHECK_EQ(bad, 0, "DESTROY them");
	m2 = read_long(CG_DMABUF "/memory.current");
	CHECK(m1 - m2 >= DMB_MIN,
	      "memory.current %ld -> %ld: deregistering uncharges them",
	      m1, m2);
	CHECK_RC(destroy(fd, XRDMA_OBJ_MR, warm), 0, "DESTROY the first");
out:
	close(dfd);
}

/* 1-page dmabuf MRs up to the context's cap of 1 MiB */
static void dmabuf_cap(int fd, uint32_t pd, int card)
{
	static uint32_t mr[DMB_CAP_TRY];
	int dfd, n, i, bad = 0, ret = 0;

	dfd = lim_vgem_dmabuf(card, 1);
	if (!CHECK(dfd >= 0, "a 1-page dmabuf from vgem"))
		return;
	for (n = 0; n < DMB_CAP_TRY; n++) {
		ret = reg_dmabuf(fd, pd, dfd, ut_pagesz, &mr[n]);
		if (ret)
			break;
	}
	CHECK(n >= DMB_CAP_MIN && n <= DMB_CAP_MAX && ret == -ENOMEM,
	      "1-page dmabuf MRs under a 1 MiB context cap: %d fit (%d..%d expected), then %s (-ENOMEM expected)",
	      n, DMB_CAP_MIN, DMB_CAP_MAX, errname(ret));
	if (n > 0 && n < DMB_CAP_TRY) {
		CHECK_RC(destroy(fd, XRDMA_OBJ_MR, mr[n - 1]), 0,
			 "DESTROY one");
		CHECK_RC(reg_dmabuf(fd, pd, dfd, ut_pagesz, &mr[n - 1]), 0,
			 "then one fits again");
		CHECK_RC(reg_dmabuf(fd, pd, dfd, ut_pagesz, &mr[n]), -ENOMEM,
			 "and only one");
	}
	for (i = 0; i < n; i++)
		bad += !!destroy(fd, XRDMA_OBJ_MR, mr[i]);
	CHECK_EQ(bad, 0, "DESTROY them");
	CHECK_EQ(res_count_of("mr"), 0, "no MR left on the device");
	close(dfd);
}

static void dmabuf_child(void *unused)
{
	long old_mem = read_long(P_CTXMEM);
	char buf[32];
	struct ctx c;
	uint32_t pd;
	int card;

	(void)unused;
	snprintf(buf, sizeof(buf), "%d", getpid());
	if (!CHECK_RC(write_str(CG_DMABUF "/cgroup.procs", buf), 0,
		      "join the cgroup"))
		return;
	card = lim_vgem_open();
	if (!CHECK(card >= 0, "vgem's card in /dev/dri (modprobe vgem)"))
		return;
	if (CHECK_RC(ctx_open(&c), 0, "context") &&
	    CHECK_RC(alloc_pd(c.fd, &pd), 0, "ALLOC_PD")) {
		dmabuf_memcg(c.fd, pd, card);
		if (CHECK(old_mem > 0, "%s readable", P_CTXMEM) &&
		    CHECK_RC(write_str(P_CTXMEM, "1"), 0,
			     "max_ucontext_mem=1")) {
			dmabuf_cap(c.fd, pd, card);
			snprintf(buf, sizeof(buf), "%ld", old_mem);
			CHECK_RC(write_str(P_CTXMEM, buf), 0,
				 "max_ucontext_mem restored");
		}
		CHECK_RC(destroy(c.fd, XRDMA_OBJ_PD, pd), 0, "DESTROY the PD");
		/* a charge left over WARNs in xrdma_free_ucontext() */
		ctx_close(&c);
	}
	close(card);
	snprintf(buf, sizeof(buf), "%d", getpid());
	write_str(CG_ROOT "/cgroup.procs", buf);
}

void t_limdmabuf(void)
{
	if (!cg_setup("memory"))
		return;
	rmdir(CG_DMABUF);
	if (CHECK_RC(mkdir(CG_DMABUF, 0755) ? -errno : 0, 0,
		     "mkdir " CG_DMABUF))
		in_child(dmabuf_child, NULL);
	for (int i = 0; i < 50 && rmdir(CG_DMABUF) && errno == EBUSY; i++)
		usleep(100000);
	CHECK(access(CG_DMABUF, F_OK), "rmdir " CG_DMABUF);
}
