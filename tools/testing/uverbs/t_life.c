// SPDX-License-Identifier: GPL-2.0
/*
 * uverbs_test: object lifetime (Documentation/uverbs.rst, "Lifetime"):
 * close and exit with live objects, SIGKILL at any moment, RLIMIT_MEMLOCK,
 * create/destroy cycles without slab growth, and device removal with an
 * open fd (the "remove" subtest, driven by uverbs_remove.sh).
 */
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "ut.h"

static void set_nonblock(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* everything a context can hold; returns 0 or the first error */
struct full {
	int as, ch;
	uint32_t pd, srq, ah;
	struct cq cq1, cq2;
	struct qp qp1, qp2;
	struct mr mr;
};

static int populate(int fd, struct full *f, void *buf, size_t len)
{
	int ret;

	memset(f, 0, sizeof(*f));
	f->as = get_async_fd(fd);
	if (f->as < 0)
		return f->as;
	f->ch = new_channel(fd);
	if (f->ch < 0)
		return f->ch;
	ret = alloc_pd(fd, &f->pd);
	if (!ret)
		ret = create_cq(fd, 8, f->ch, 1, &f->cq1);
	if (!ret)
		ret = create_cq(fd, 8, -1, 2, &f->cq2);
	if (!ret)
		ret = create_srq(fd, f->pd, 8, 1, 0, 3, &f->srq);
	if (!ret)
		ret = create_qp(fd, f->pd, f->cq1.h, f->cq2.h, f->srq,
				XRDMA_UVERBS_QPT_RC, 4, &f->qp1);
	if (!ret)
		ret = create_qp(fd, f->pd, f->cq2.h, f->cq2.h, 0,
				XRDMA_UVERBS_QPT_UD, 5, &f->qp2);
	if (!ret)
		ret = reg_mr(fd, f->pd, buf, len, (uintptr_t)buf,
			     ACC_LW | ACC_RW, &f->mr);
	if (!ret)
		ret = create_ah(fd, f->pd, 6, &f->ah);
	if (!ret)
		ret = qp_to_rts(fd, f->qp1.h, XRDMA_UVERBS_QPT_RC, f->qp2.qpn);
	return ret;
}

static bool counts_are(const int want[R_NUM], char *msg, size_t len)
{
	int c[R_NUM], i;

	res_str(msg, len);
	if (res_counts(c))
		return false;
	for (i = 0; i < R_NUM; i++)
		if (c[i] != want[i])
			return false;
	return true;
}

/* ------------------------------------------------------------- close */

void t_close(void)
{
	static const int want[R_NUM] = { 1, 2, 2, 1, 1, 1 };
	char msg[128], evbuf[256], *buf;
	long pin0;
	struct full f;
	struct ctx c;
	pid_t pid;
	int st, t;

	buf = map_pages(4, PROT_READ | PROT_WRITE);
	pin0 = status_kb("VmPin");
	if (!CHECK_RC(ctx_open(&c), 0, "context"))
		return;
	CHECK_RC(populate(c.fd, &f, buf, 4 * ut_pagesz), 0,
		 "create PD, 2 CQs, SRQ, 2 QPs (one on the SRQ, in RTS), MR, AH");
	CHECK(counts_are(want, msg, sizeof(msg)), "debugfs: %s", msg);
	CHECK_EQ(res_pid_lines(getpid()), 8, "8 objects listed for pid %d",
		 (int)getpid());
	CHECK_EQ(status_kb("VmPin") - pin0, 4 * ut_pagesz / 1024,
		 "VmPin grew by the MR");
	CHECK_RC(td_inject("comp %u", f.cq1.resp.cqn), 0,
		 "a completion event left unread");
	CHECK_RC(td_inject("qp_fatal %u", f.qp1.qpn), 0,
		 "an async event left unread");
	/* the channel and async fds stay open: they must not keep objects */
	close(c.fd);
	t = res_total();
	res_str(msg, sizeof(msg));
	CHECK(t == 0, "close(fd) destroyed every object at once (%s)", msg);
	if (t != 0)
		ut_note("after 2 s: %d objects", res_wait_zero(2000));
	CHECK_EQ(res_pid_lines(getpid()), 0, "nothing listed for our pid");
	CHECK_EQ(status_kb("VmPin"), pin0, "VmPin back: pages unpinned");
	set_nonblock(f.ch);
	set_nonblock(f.as);
	/* no event can come any more, and the one queued was its CQ's */
	t = read(f.ch, evbuf, sizeof(evbuf));
	CHECK(t < 0 && errno == EIO, "channel read after close: %s (want EIO)",
	      t < 0 ? errname(-errno) : "data");
	t = read(f.as, evbuf, sizeof(evbuf));
	ut_note("async read after close: %s", t < 0 ? errname(-errno) : "data");
	close(f.ch);
	close(f.as);

	/* exit with everything live, mappings and pending events included */
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct ctx cc;
		void *r, *db;

		if (ctx_open(&cc) || populate(cc.fd, &f, buf, 4 * ut_pagesz))
			_exit(2);
		r = mmap(NULL, f.cq1.resp.ring_size, PROT_READ | PROT_WRITE,
			 MAP_SHARED, cc.fd, f.cq1.resp.ring_offset);
		db = mmap(NULL, cc.resp.db_size, PROT_READ | PROT_WRITE,
			  MAP_SHARED, cc.fd, cc.resp.db_offset);
		if (r == MAP_FAILED || db == MAP_FAILED)
			_exit(3);
		if (td_inject("comp %u", f.cq1.resp.cqn) ||
		    td_inject("qp_fatal %u", f.qp1.qpn))
			_exit(4);
		_exit(0);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "child set everything up and exited (status 0x%x)", st);
	t = res_total();
	res_str(msg, sizeof(msg));
	CHECK(t == 0,
	      "exit destroyed every object by the time wait() returned (%s)",
	      msg);
	if (t != 0)
		ut_note("after 2 s: %d objects", res_wait_zero(2000));
	CHECK_EQ(res_pid_lines(pid), 0, "nothing listed for the child's pid");
	munmap(buf, 4 * ut_pagesz);
}

/* -------------------------------------------------------------- kill */

/* create and destroy everything, forever, leaving things live at times */
static void churn(int *progress, char *big, size_t biglen)
{
	char *buf = map_pages(16, PROT_READ | PROT_WRITE);
	unsigned int i = 0;
	struct full f;
	struct ctx c;
	void *r;

	for (;;) {
		if (ctx_open(&c))
			_exit(1);
		if (populate(c.fd, &f, buf, 16 * ut_pagesz) == 0) {
			r = mmap(NULL, f.cq1.resp.ring_size, PROT_READ,
				 MAP_SHARED, c.fd, f.cq1.resp.ring_offset);
			__atomic_add_fetch(progress, 1, __ATOMIC_SEQ_CST);
			if (big && i % 2 == 0) {
				struct mr m;

				if (!reg_mr(c.fd, f.pd, big, biglen,
					    (uintptr_t)big, ACC_LW, &m))
					destroy(c.fd, XRDMA_OBJ_MR, m.h);
			}
			if (i % 3) {
				destroy(c.fd, XRDMA_OBJ_AH, f.ah);
				destroy(c.fd, XRDMA_OBJ_MR, f.mr.h);
				destroy(c.fd, XRDMA_OBJ_QP, f.qp2.h);
				destroy(c.fd, XRDMA_OBJ_QP, f.qp1.h);
				destroy(c.fd, XRDMA_OBJ_SRQ, f.srq);
				destroy(c.fd, XRDMA_OBJ_CQ, f.cq2.h);
				destroy(c.fd, XRDMA_OBJ_CQ, f.cq1.h);
				destroy(c.fd, XRDMA_OBJ_PD, f.pd);
			}
			if (r != MAP_FAILED)
				munmap(r, f.cq1.resp.ring_size);
		}
		if (f.ch > 0)
			close(f.ch);
		if (f.as > 0)
			close(f.as);
		ctx_close(&c);
		i++;
	}
}

static void kill_one(int i, int delay_ms, bool big, bool blocked,
		     int *progress)
{
	size_t biglen = 4096 * ut_pagesz;	/* 16 MB */
	char *bigbuf = NULL, msg[128];
	uint64_t t0;
	pid_t pid;
	int st, t, lines, rounds;

	if (big)
		bigbuf = map_pages(4096, PROT_READ | PROT_WRITE);
	__atomic_store_n(progress, 0, __ATOMIC_SEQ_CST);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (blocked) {
			struct full f;
			struct ctx c;
			char ev[64];

			char *b = bigbuf ? bigbuf : map_pages(1, PROT_READ |
							     PROT_WRITE);

			if (!b || ctx_open(&c) ||
			    populate(c.fd, &f, b, bigbuf ? biglen : (size_t)ut_pagesz))
				_exit(1);
			__atomic_add_fetch(progress, 1, __ATOMIC_SEQ_CST);
			if (read(f.ch, ev, sizeof(ev)) < 0)	/* blocks */
				_exit(2);
			_exit(3);
		}
		churn(progress, bigbuf, biglen);
	}
	/* wait until the child is busy */
	t0 = now_ms();
	while (!__atomic_load_n(progress, __ATOMIC_SEQ_CST) &&
	       now_ms() - t0 < 10000)
		usleep(1000);
	usleep(delay_ms * 1000);
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	t = res_total();
	lines = res_pid_lines(pid);
	res_str(msg, sizeof(msg));
	rounds = __atomic_load_n(progress, __ATOMIC_SEQ_CST);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL && rounds > 0 &&
	      t == 0 && lines == 0,
	      "kill %d (%s%s, +%d ms, %d rounds): SIGKILLed, then nothing left (%s; %d listed for the pid)",
	      i, blocked ? "blocked in read" : "churning",
	      big ? " with 16 MB MRs" : "", delay_ms, rounds, msg, lines);
	if (t != 0)
		ut_note("after 2 s: %d objects", res_wait_zero(2000));
	if (bigbuf)
		munmap(bigbuf, biglen);
}

void t_kill(void)
{
	int *progress;
	int i;

	progress = mmap(NULL, ut_pagesz, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (progress == MAP_FAILED)
		return;
	srand(getpid());
	for (i = 0; i < 16; i++)
		kill_one(i, rand() % 40 + i * 7, i % 4 == 3, false, progress);
	kill_one(16, 100, false, true, progress);
	kill_one(17, 100, true, true, progress);
}

/* ----------------------------------------------------------- memlock */

static int drop_ipc_lock(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	data[0].effective &= ~(1u << CAP_IPC_LOCK);
	data[0].permitted &= ~(1u << CAP_IPC_LOCK);
	data[0].inheritable &= ~(1u << CAP_IPC_LOCK);
	if (syscall(SYS_capset, &hdr, data))
		return -errno;
	if (prctl(PR_CAPBSET_DROP, CAP_IPC_LOCK, 0, 0, 0))
		return -errno;
	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	return data[0].effective & (1u << CAP_IPC_LOCK) ? -EPERM : 0;
}

void t_memlock(void)
{
	const long lim = 64 * 1024;
	struct rlimit rl = { lim, lim };
	char *b1, *b2, *b3, *big;
	struct mr m1, m2, m3, mb;
	long kb = ut_pagesz / 1024, pin0;
	uint32_t pd;
	struct ctx c;

	b1 = map_pages(32 * 1024 / ut_pagesz, PROT_READ | PROT_WRITE);
	b2 = map_pages(48 * 1024 / ut_pagesz, PROT_READ | PROT_WRITE);
	b3 = map_pages(32 * 1024 / ut_pagesz, PROT_READ | PROT_WRITE);
	big = map_pages(256, PROT_READ | PROT_WRITE);
	if (!b1 || !b2 || !b3 || !big)
		return;
	if (!CHECK_RC(ctx_open(&c), 0, "context") ||
	    !CHECK_RC(alloc_pd(c.fd, &pd), 0, "ALLOC_PD"))
		return;
	pin0 = status_kb("VmPin");
	CHECK_EQ(pin0, 0, "VmPin starts at 0");
	CHECK_EQ(setrlimit(RLIMIT_MEMLOCK, &rl), 0, "RLIMIT_MEMLOCK 64 kB");

	/* with CAP_IPC_LOCK the limit does not apply, but pins are counted */
	CHECK_RC(reg_mr(c.fd, pd, big, 256 * ut_pagesz, (uintptr_t)big, ACC_LW,
			&mb), 0, "with CAP_IPC_LOCK: REG_MR of %ld kB", 256 * kb);
	CHECK_EQ(status_kb("VmPin"), 256 * kb, "VmPin counts it");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_MR, mb.h), 0, "DEREG it");
	CHECK_EQ(status_kb("VmPin"), 0, "VmPin back to 0");

	CHECK_RC(drop_ipc_lock(), 0, "drop CAP_IPC_LOCK");
	CHECK_RC(reg_mr(c.fd, pd, big, 256 * ut_pagesz, (uintptr_t)big, ACC_LW,
			&mb), -ENOMEM, "without it: REG_MR of %ld kB", 256 * kb);
	CHECK_EQ(status_kb("VmPin"), 0, "the refused REG_MR pinned nothing");
	CHECK_RC(reg_mr(c.fd, pd, b1, 32 * 1024, (uintptr_t)b1, ACC_LW, &m1), 0,
		 "REG_MR 32 kB");
	CHECK_EQ(status_kb("VmPin"), 32, "VmPin 32 kB");
	CHECK_RC(reg_mr(c.fd, pd, b2, 48 * 1024, (uintptr_t)b2, ACC_LW, &m2),
		 -ENOMEM, "REG_MR 48 kB more (80 > 64)");
	CHECK_EQ(status_kb("VmPin"), 32, "VmPin still 32 kB");
	CHECK_RC(reg_mr(c.fd, pd, b3, 32 * 1024, (uintptr_t)b3, 0, &m3), 0,
		 "REG_MR 32 kB more, read-only access (64 = limit)");
	CHECK_EQ(status_kb("VmPin"), 64, "VmPin 64 kB");
	CHECK_RC(reg_mr(c.fd, pd, b1, ut_pagesz, (uintptr_t)b1, 0, NULL),
		 -ENOMEM, "one more page over the limit");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_MR, m1.h), 0, "DEREG the first");
	CHECK_EQ(status_kb("VmPin"), 32, "VmPin back to 32 kB");
	CHECK_RC(reg_mr(c.fd, pd, b2, 32 * 1024, (uintptr_t)b2, ACC_LW, &m2), 0,
		 "REG_MR 32 kB fits again");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_MR, m3.h), 0, "DEREG the second");
	CHECK_EQ(status_kb("VmPin"), 32, "VmPin 32 kB");
	ctx_close(&c);
	CHECK_EQ(status_kb("VmPin"), 0, "close with a live MR: VmPin 0");
	CHECK_EQ(res_total(), 0, "no object left");
}

/* ------------------------------------------------------------ cycles */

struct cyc_err {
	int n;
	char first[160];
};

static void cyc_fail(struct cyc_err *e, int i, const char *what, int ret)
{
	if (!e->n++)
		snprintf(e->first, sizeof(e->first), "cycle %d: %s: %s", i, what,
			 errname(ret));
}

/* record the first failure of a step */
static void step(struct cyc_err *e, int i, const char *what, int ret)
{
	if (ret)
		cyc_fail(e, i, what, ret);
}

/* n rounds of PD + CQ + QP + MR on one context, m rounds of a context */
static void cycles(int fd, char *buf, int n, int m, struct cyc_err *e)
{
	struct ctx c;
	struct mr mr;
	struct cq cq;
	struct qp qp;
	uint32_t pd;
	int i, ret;

	for (i = 0; i < n; i++) {
		ret = alloc_pd(fd, &pd);
		step(e, i, "ALLOC_PD", ret);
		if (ret)
			continue;
		ret = create_cq(fd, 16, -1, i, &cq);
		step(e, i, "CREATE_CQ", ret);
		if (!ret) {
			ret = create_qp(fd, pd, cq.h, cq.h, 0,
					XRDMA_UVERBS_QPT_RC, i, &qp);
			step(e, i, "CREATE_QP", ret);
			if (!ret)
				step(e, i, "DESTROY QP",
				     destroy(fd, XRDMA_OBJ_QP, qp.h));
			step(e, i, "DESTROY CQ", destroy(fd, XRDMA_OBJ_CQ, cq.h));
		}
		ret = reg_mr(fd, pd, buf, 4 * ut_pagesz, (uintptr_t)buf,
			     ACC_LW | ACC_RW | ACC_RR, &mr);
		step(e, i, "REG_MR", ret);
		if (!ret)
			step(e, i, "DESTROY MR", destroy(fd, XRDMA_OBJ_MR, mr.h));
		step(e, i, "DESTROY PD", destroy(fd, XRDMA_OBJ_PD, pd));
	}
	for (i = 0; i < m; i++) {
		ret = ctx_open(&c);
		step(e, i, "open + GET_CONTEXT", ret);
		if (ret)
			continue;
		step(e, i, "ALLOC_PD on a new context", alloc_pd(c.fd, &pd));
		step(e, i, "CREATE_CQ on a new context",
		     create_cq(c.fd, 4, -1, 0, &cq));
		ctx_close(&c);	/* with both live */
	}
}

static void drop_vm_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);

	sync();
	if (fd >= 0) {
		(void)!write(fd, "3", 1);
		close(fd);
	}
	usleep(100000);
}

struct slab {
	long slab, unrecl;
};

static void slab_now(struct slab *s)
{
	drop_vm_caches();
	s->slab = meminfo_kb("Slab");
	s->unrecl = meminfo_kb("SUnreclaim");
}

/*
 * Create/destroy cycles must not grow the slab.  Every object the stack
 * allocates (kmalloc, GFP_KERNEL_ACCOUNT or not) is unreclaimable, so a
 * leak shows in SUnreclaim, whose noise in a quiet guest is about +-12 kB
 * per run.  A leak of a single 8-byte object per cycle adds 80 kB per run
 * of 10000 cycles.  A run over the limit is repeated: a leak grows again,
 * noise does not.  The reclaimable part (dentries, inodes) is only noted:
 * it moves by hundreds of kB with nothing of ours in it, more under a
 * debug kernel, and a check on it failed with no leak.
 */
void t_cycles(void)
{
	const int N = 10000, M = 500;
	const long thr_u = 64;	/* kB per run */
	struct cyc_err e = { 0 };
	struct slab s0, s1, s2;
	long pin0, du1, ds1, du2 = 0, ds2 = 0;
	bool again;
	char *buf;
	struct ctx c;
	uint64_t t0;

	buf = map_pages(4, PROT_READ | PROT_WRITE);
	if (!buf || !CHECK_RC(ctx_open(&c), 0, "context"))
		return;
	pin0 = status_kb("VmPin");
	t0 = now_ms();
	cycles(c.fd, buf, N, M, &e);	/* warm-up: fill the caches */
	ut_note("warm-up: %d object cycles + %d contexts in %llu ms", N, M,
		(unsigned long long)(now_ms() - t0));
	slab_now(&s0);
	cycles(c.fd, buf, N, M, &e);
	slab_now(&s1);
	du1 = s1.unrecl - s0.unrecl;
	ds1 = s1.slab - s0.slab;
	ut_note("SUnreclaim %ld -> %ld kB (%+ld), Slab %ld -> %ld kB (%+ld)",
		s0.unrecl, s1.unrecl, du1, s0.slab, s1.slab, ds1);
	again = du1 > thr_u;
	if (again) {
		cycles(c.fd, buf, N, M, &e);
		slab_now(&s2);
		du2 = s2.unrecl - s1.unrecl;
		ds2 = s2.slab - s1.slab;
		ut_note("again: SUnreclaim %+ld kB, Slab %+ld kB", du2, ds2);
	}
	CHECK(e.n == 0, "every create and destroy succeeded (%d errors%s%s)",
	      e.n, e.n ? ", first: " : "", e.first);
	CHECK(s0.unrecl > 0 && (du1 <= thr_u || du2 <= thr_u),
	      "no SUnreclaim growth over %d PD+CQ+QP+MR cycles + %d contexts (%+ld kB%s, allowed %ld)",
	      N, M, du1, du1 > thr_u ? ", then again" : "", thr_u);
	CHECK_EQ(res_total(), 0, "resource counts are zero");
	CHECK_EQ(status_kb("VmPin"), pin0, "VmPin back");
	ctx_close(&c);
	munmap(buf, 4 * ut_pagesz);
}

/* ------------------------------------------------------------ remove */

/* a thread blocked in read() or poll() on a completion channel */
struct ch_waiter {
	pthread_t thread;
	int fd;
	bool use_poll;
	int done;		/* __atomic: the thread returned */
	int ret;		/* read: bytes or -errno; poll: its result */
	short revents;
	int rd;			/* poll: then read(): bytes, -errno, 1 = none */
};

static void *ch_wait_fn(void *arg)
{
	struct ch_waiter *w = arg;
	struct xrdma_comp_event ce[4];
	struct pollfd p = { .fd = w->fd, .events = POLLIN };
	ssize_t r;

	w->rd = 1;
	if (w->use_poll) {
		w->ret = poll(&p, 1, 60000);
		if (w->ret < 0)
			w->ret = -errno;
		w->revents = p.revents;
		/* readable and no error: then read() must fail */
		if (w->ret > 0 && (p.revents & POLLIN) &&
		    !(p.revents & POLLERR)) {
			r = read(w->fd, ce, sizeof(ce));
			w->rd = r < 0 ? -errno : (int)r;
		}
	} else {
		r = read(w->fd, ce, sizeof(ce));
		w->ret = r < 0 ? -errno : (int)r;
	}
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static bool ch_waiter_start(struct ch_waiter *w, int fd, bool use_poll)
{
	memset(w, 0, sizeof(*w));
	w->fd = fd;
	w->use_poll = use_poll;
	return pthread_create(&w->thread, NULL, ch_wait_fn, w) == 0;
}

/* wait up to @ms for the thread; false (and left running) if it hangs */
static bool ch_waiter_join(struct ch_waiter *w, int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return pthread_timedjoin_np(w->thread, NULL, &ts) == 0;
}

/*
 * Device removal with an open fd: set everything up, tell the script
 * (pid in the -r file), wait for SIGUSR1 while the script rmmods the
 * driver, then check the disassociated file.
 */
void t_remove(void)
{
	struct xrdma_async_event ev[32];
	struct xrdma_cmd_query_device qd;
	struct xrdma_cmd_alloc_pd ap;
	struct xrdma_cmd_kick k;
	struct xrdma_cmd_query_qp qq;
	struct timespec to = { 120, 0 };
	struct ch_waiter rw, pw;
	struct pollfd pfd;
	bool rw_on, pw_on;
	char *buf, *ring, *db, line[32];
	sigset_t set;
	long pin0;
	struct full f;
	struct ctx c;
	int i, n, fd, fatal;
	ssize_t r;

	buf = map_pages(8, PROT_READ | PROT_WRITE);
	pin0 = status_kb("VmPin");
	if (!buf || !CHECK_RC(ctx_open(&c), 0, "context"))
		return;
	if (!CHECK_RC(populate(c.fd, &f, buf, 8 * ut_pagesz), 0,
		      "create one of everything"))
		return;
	set_nonblock(f.as);
	ring = mmap(NULL, f.cq1.resp.ring_size, PROT_READ | PROT_WRITE,
		    MAP_SHARED, c.fd, f.cq1.resp.ring_offset);
	db = mmap(NULL, c.resp.db_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		  c.fd, c.resp.db_offset);
	if (!CHECK(ring != MAP_FAILED && db != MAP_FAILED,
		   "mmap the ring and the doorbell"))
		return;
	CHECK(rd64(ring) == XRDMA_TESTDEV_RING_MAGIC,
	      "the ring shows its magic");
	CHECK_EQ(status_kb("VmPin") - pin0, 8 * ut_pagesz / 1024,
		 "VmPin counts the MR");
	/* no events yet */
	while (read(f.as, ev, sizeof(ev)) > 0)
		;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	/* after the mask: the threads inherit it, SIGUSR1 stays ours */
	rw_on = CHECK(ch_waiter_start(&rw, f.ch, false),
		      "a thread reads the completion channel");
	pw_on = CHECK(ch_waiter_start(&pw, f.ch, true),
		      "a thread polls the completion channel");
	usleep(200000);
	CHECK(!(rw_on && __atomic_load_n(&rw.done, __ATOMIC_ACQUIRE)) &&
	      !(pw_on && __atomic_load_n(&pw.done, __ATOMIC_ACQUIRE)),
	      "both block while the device is there");
	ut_note("ready, pid %d: waiting for SIGUSR1", (int)getpid());
	if (ut_ready_file) {
		snprintf(line, sizeof(line), "%d\n", (int)getpid());
		fd = open(ut_ready_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, line, strlen(line)) < 0)
			ut_fail(strerror(errno), "write %s", ut_ready_file);
		if (fd >= 0)
			close(fd);
	}
	if (!CHECK(sigtimedwait(&set, NULL, &to) == SIGUSR1,
		   "SIGUSR1 arrived (the device was removed)"))
		return;

	memset(&qd, 0, sizeof(qd));
	CHECK_RC(xio(c.fd, XRDMA_IOC_QUERY_DEVICE, &qd), -EIO, "QUERY_DEVICE");
	memset(&ap, 0, sizeof(ap));
	CHECK_RC(xio(c.fd, XRDMA_IOC_ALLOC_PD, &ap), -EIO, "ALLOC_PD");
	CHECK_RC(reg_mr(c.fd, f.pd, buf, ut_pagesz, (uintptr_t)buf, 0, NULL),
		 -EIO, "REG_MR");
	CHECK_RC(create_cq(c.fd, 4, -1, 0, &f.cq2), -EIO, "CREATE_CQ");
	CHECK_RC(query_qp(c.fd, f.qp1.h, &qq), -EIO, "QUERY_QP");
	memset(&k, 0, sizeof(k));
	CHECK_RC(xio(c.fd, XRDMA_IOC_KICK, &k), -EIO, "KICK");
	CHECK_RC(new_channel(c.fd), -EIO, "CREATE_COMP_CHANNEL");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_QP, f.qp1.h), -EIO, "DESTROY QP");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_PD, f.pd), -EIO, "DESTROY PD");

	/* the completion channel is disassociated too: no one hangs */
	if (rw_on) {
		if (CHECK(ch_waiter_join(&rw, 10000),
			  "the blocked read() on the channel returned"))
			CHECK_RC(rw.ret, -EIO, "... with EIO");
	}
	if (pw_on) {
		if (CHECK(ch_waiter_join(&pw, 10000),
			  "the blocked poll() on the channel returned")) {
			CHECK_EQ(pw.ret, 1, "... with one fd ready");
			CHECK(pw.revents & POLLERR ||
			      (pw.revents & POLLIN && pw.rd == -EIO),
			      "... POLLERR, or POLLIN and read() EIO (revents 0x%x, read %s)",
			      pw.revents, pw.rd == 1 ? "not done" :
			      errname(pw.rd));
		}
	}
	pfd.fd = f.ch;
	pfd.events = POLLIN;
	pfd.revents = 0;
	CHECK_EQ(poll(&pfd, 1, 0), 1, "a new poll() of the channel returns");
	CHECK(pfd.revents & POLLERR, "... POLLERR (revents 0x%x)",
	      pfd.revents);
	set_nonblock(f.ch);	/* a blocking read could hang without the fix */
	r = read(f.ch, ev, sizeof(ev));
	CHECK_RC(r < 0 ? -errno : r, -EIO, "a new read() of the channel");

	CHECK_EQ(wait_readable(f.as, 5000), 1, "async fd readable");
	fatal = 0;
	n = 0;
	while ((r = read(f.as, ev, sizeof(ev))) > 0) {
		for (i = 0; i < (int)(r / sizeof(ev[0])); i++, n++) {
			ut_note("async record: type %u element %llu handle %u",
				ev[i].event_type,
				(unsigned long long)ev[i].element, ev[i].handle);
			fatal += ev[i].event_type ==
				 XRDMA_UVERBS_EVENT_DEVICE_FATAL;
		}
	}
	CHECK_EQ(fatal, 1, "one DEVICE_FATAL among %d async records", n);

	CHECK_EQ(probe_read(ring), SIGBUS, "reading the ring: SIGBUS");
	CHECK_EQ(probe_write(ring), SIGBUS, "writing the ring: SIGBUS");
	CHECK_EQ(probe_read(db), SIGBUS, "reading the doorbell: SIGBUS");
	CHECK_EQ(status_kb("VmPin"), pin0, "the MR was unpinned: VmPin back");
	CHECK(mmap(NULL, ut_pagesz, PROT_READ, MAP_SHARED, c.fd,
		   f.cq1.resp.ring_offset) == MAP_FAILED,
	      "a new mmap fails");
	CHECK_EQ(munmap(ring, f.cq1.resp.ring_size), 0, "munmap the ring");
	CHECK_EQ(munmap(db, c.resp.db_size), 0, "munmap the doorbell");
	CHECK_EQ(close(c.fd), 0, "close the uverbs fd");
	CHECK_EQ(close(f.ch), 0, "close the channel");
	CHECK_EQ(close(f.as), 0, "close the async fd");
}
