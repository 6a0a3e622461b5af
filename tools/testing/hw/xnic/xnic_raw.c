// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_raw: one RDMA WRITE on an xnic device from userspace with nothing
 * but the uverbs ioctls (uapi/xrdma/xrdma-abi.h) and the xnic queue
 * formats (uapi/xrdma/xnic-abi.h): no libibverbs, no provider library.
 *
 * Setup (syscalls): GET_CONTEXT, mmap of the doorbell page, ALLOC_PD,
 * REG_MR of two buffers, CREATE_CQ and CREATE_QP with their rings mapped,
 * the QP connected to itself (RESET->INIT->RTR->RTS, dgid = its own GID,
 * dest_qpn = its own QPN).
 *
 * Data path (no syscalls): the WQE is written into the mapped send queue
 * (owner byte last), then the doorbell record, then the QP's bit in the
 * doorbell page's group word and the group's bit in the summary word;
 * XNIC_DB_NEED_WAKEUP in the page's flags says whether the engine sleeps
 * and must be kicked (the KICK ioctl).  Completions are read from the
 * mapped CQ ring by the owner bit and returned with the CQ doorbell
 * record.
 *
 * Tests:
 *  1. awake: a 1 MiB warm-up WRITE (kicking only if NEED_WAKEUP is set;
 *     then spinning until the engine has cleared NEED_WAKEUP), then at
 *     once the measured 8 KiB WRITE, whose post and completion happen
 *     with no syscall at all.  Proof: the posting thread runs under a
 *     seccomp filter that traps (SIGSYS, counted) every system call but
 *     exit, rt_sigreturn and the KICK ioctl; the KICK ioctls it makes are
 *     counted by the program, and the measured post must find
 *     NEED_WAKEUP clear, so it does not kick (else the attempt is
 *     repeated); and the device's own counters (xnic_sim debugfs, -c)
 *     must show no kick beyond the warm-up's (engine wakeups are only
 *     shown: the engine's timers wake it too).
 *  2. sleeping: after an idle period the engine has set NEED_WAKEUP; a
 *     posted WRITE sees it, the KICK ioctl (for the context, then for the
 *     QP) is served -- by the engine thread it wakes or in the writer's
 *     context -- and the completion arrives.
 * First of all a self-test proves that the trap works: the same window
 * with one getppid() in it must report exactly that system call.
 * Every WRITE's data is verified in the destination buffer.
 *
 * Usage: xnic_raw [-n IBDEV] [-c COUNTERS_FILE] [-v] [-l] [SUBTEST...]
 *   the subtests "awake" (1.) and "sleep" (2., then 1. again) each run in
 *   a child process with a context and QP of their own; -l lists them.
 * Output: "ok N - ..." / "not ok N - ..." lines (tools/testing/harness/xt/xt.h);
 * exit 0 if all passed.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <x86intrin.h>
#include <xrdma/xrdma-abi.h>
#include <xrdma/xnic-abi.h>
#include "xt.h"
#include "xt_uverbs.h"

#define BUF_SIZE	8192		/* the measured WRITE */
#define WARM_SIZE	(1024 * 1024)	/* the warm-up WRITE, after it */
#define MR_SIZE		(BUF_SIZE + WARM_SIZE)
#define PSN		0x321
#define TIMEOUT_MS	5000
/*
 * How long an attempt of the awake test waits for the engine to clear
 * NEED_WAKEUP before posting anyway (the attempt then counts as "engine
 * slept"): 50 attempts stay well inside the test's time limit.
 */
#define AWAKE_WAIT_MS	500

static int verbose;
static unsigned long long tsc_per_ms;

/* ------------------------------------------------------------ uverbs */

struct dev {
	int fd;
	struct xnic_ucontext_resp uctx;
	struct xnic_db_page *db;
	__u32 pd;
};

struct cq {
	__u32 h;
	struct xnic_create_cq_resp resp;
	void *map;
	struct xnic_cqe *ring;
	struct xnic_cq_dbrec *dbrec;
	__u32 ci;
};

struct qp {
	__u32 h, qpn;
	struct xnic_create_qp_resp resp;
	void *map;
	__u8 *sq;
	struct xnic_qp_dbrec *dbrec;
	__u32 sq_pi;
};

static void dev_open(struct dev *d, const char *ibdev)
{
	struct xrdma_cmd_get_context gc = { 0 };
	struct xrdma_cmd_alloc_pd pd = { 0 };
	char name[64], path[128];
	void *p;
	int ret;

	ret = xt_find_uverbs(ibdev, name, sizeof(name));
	if (ret)
		xt_bail(ret, "find the uverbs device");
	snprintf(path, sizeof(path), "/dev/infiniband/xrdma_%s", name);
	d->fd = open(path, O_RDWR | O_CLOEXEC);
	if (d->fd < 0)
		xt_bail(errno, "%s", path);
	xt_udata_out(&gc.udata, &d->uctx, sizeof(d->uctx));
	ret = xio(d->fd, XRDMA_IOC_GET_CONTEXT, &gc);
	if (ret)
		xt_bail(ret, "GET_CONTEXT");
	xt_check(d->uctx.abi_version == XNIC_ABI_VERSION,
		 "GET_CONTEXT on %s: xnic abi %u, max_sge %u, max_inline %u",
		 path, d->uctx.abi_version, d->uctx.max_sge,
		 d->uctx.max_inline);
	p = mmap(NULL, XNIC_DB_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 d->fd, d->uctx.db_page_offset);
	if (p == MAP_FAILED)
		xt_bail(errno, "mmap of the doorbell page");
	d->db = p;
	ret = xio(d->fd, XRDMA_IOC_ALLOC_PD, &pd);
	if (ret)
		xt_bail(ret, "ALLOC_PD");
	d->pd = pd.pd_handle;
}

static void mr_reg(struct dev *d, struct xt_umr *m)
{
	const char *step;
	int ret;

	ret = xt_umr_new(d->fd, d->pd, MR_SIZE, 0,
			 XRDMA_UVERBS_ACCESS_LOCAL_WRITE |
			 XRDMA_UVERBS_ACCESS_REMOTE_WRITE, m, &step);
	if (ret)
		xt_bail(ret, "%s of a buffer", step);
}

static void cq_create(struct dev *d, struct cq *cq)
{
	struct xrdma_cmd_create_cq c = { 0 };
	size_t ring;
	int ret;

	c.cqe = 16;
	c.channel_fd = -1;
	xt_udata_out(&c.udata, &cq->resp, sizeof(cq->resp));
	ret = xio(d->fd, XRDMA_IOC_CREATE_CQ, &c);
	if (ret)
		xt_bail(ret, "CREATE_CQ");
	cq->h = c.cq_handle;
	ring = sizeof(struct xnic_cqe) << cq->resp.log_cqe;
	if (cq->resp.log_cqe > 20 || ring > cq->resp.mmap_size ||
	    cq->resp.dbrec_offset + sizeof(*cq->dbrec) > cq->resp.mmap_size) {
		xt_check(0, "CREATE_CQ response: log_cqe %u, dbrec at %u, mmap_size %u",
			 cq->resp.log_cqe, cq->resp.dbrec_offset,
			 cq->resp.mmap_size);
		xt_bail(EINVAL, "CREATE_CQ response");
	}
	cq->map = mmap(NULL, cq->resp.mmap_size, PROT_READ | PROT_WRITE,
		       MAP_SHARED, d->fd, cq->resp.mmap_offset);
	if (cq->map == MAP_FAILED)
		xt_bail(errno, "mmap of the CQ");
	cq->ring = cq->map;
	cq->dbrec = (void *)((__u8 *)cq->map + cq->resp.dbrec_offset);
	xt_note("CQ %u: 2^%u CQEs, dbrec at +%u of %u bytes", cq->resp.cqn,
		cq->resp.log_cqe, cq->resp.dbrec_offset, cq->resp.mmap_size);
}

static void qp_create(struct dev *d, struct cq *cq, struct qp *qp)
{
	struct xrdma_cmd_create_qp c = { 0 };
	struct xnic_create_qp_resp *r = &qp->resp;
	__u64 sq_bytes;
	int ret;

	c.pd_handle = d->pd;
	c.send_cq_handle = cq->h;
	c.recv_cq_handle = cq->h;
	c.qp_type = XRDMA_UVERBS_QPT_RC;
	c.cap.max_send_wr = 8;
	c.cap.max_recv_wr = 1;
	c.cap.max_send_sge = 1;
	c.cap.max_recv_sge = 1;
	xt_udata_out(&c.udata, r, sizeof(*r));
	ret = xio(d->fd, XRDMA_IOC_CREATE_QP, &c);
	if (ret)
		xt_bail(ret, "CREATE_QP");
	qp->h = c.qp_handle;
	qp->qpn = c.qpn;
	sq_bytes = (__u64)1 << (r->sq_log_wqe + r->sq_wqe_shift);
	if (r->sq_wqe_shift < XNIC_SQ_WQE_MIN_SHIFT || r->sq_log_wqe > 16 ||
	    r->sq_offset + sq_bytes > r->mmap_size ||
	    r->dbrec_offset + sizeof(*qp->dbrec) > r->mmap_size ||
	    r->db_slot >= XNIC_DB_SLOTS) {
		xt_check(0, "CREATE_QP response: sq 2^%u x 2^%u at %u, dbrec %u, size %u, slot %u",
			 r->sq_log_wqe, r->sq_wqe_shift, r->sq_offset,
			 r->dbrec_offset, r->mmap_size, r->db_slot);
		xt_bail(EINVAL, "CREATE_QP response");
	}
	qp->map = mmap(NULL, r->mmap_size, PROT_READ | PROT_WRITE,
		       MAP_SHARED, d->fd, r->mmap_offset);
	if (qp->map == MAP_FAILED)
		xt_bail(errno, "mmap of the QP");
	qp->sq = (__u8 *)qp->map + r->sq_offset;
	qp->dbrec = (void *)((__u8 *)qp->map + r->dbrec_offset);
	xt_note("QP %u: SQ 2^%u x %u bytes, RQ 2^%u x %u, slot %u", qp->qpn,
		r->sq_log_wqe, 1u << r->sq_wqe_shift, r->rq_log_wqe,
		1u << r->rq_wqe_shift, r->db_slot);
}

/* RC QP connected to itself: dgid = own port GID, dest_qpn = own QPN */
static void qp_connect_self(struct dev *d, struct qp *qp)
{
	struct xrdma_cmd_query_port qport = { .port_num = 1 };
	struct xrdma_cmd_query_gid qgid = { .port_num = 1, .index = 0 };
	struct xrdma_cmd_query_device qdev = { 0 };
	struct xt_rc_path path = {
		.dgid = qgid.gid, .psn = PSN,
		.access = XRDMA_UVERBS_ACCESS_LOCAL_WRITE |
			  XRDMA_UVERBS_ACCESS_REMOTE_WRITE,
	};
	const char *step;
	int ret;

	ret = xio(d->fd, XRDMA_IOC_QUERY_GID, &qgid);
	if (ret)
		xt_bail(ret, "QUERY_GID");
	ret = xio(d->fd, XRDMA_IOC_QUERY_PORT, &qport);
	if (ret)
		xt_bail(ret, "QUERY_PORT");
	ret = xio(d->fd, XRDMA_IOC_QUERY_DEVICE, &qdev);
	if (ret)
		xt_bail(ret, "QUERY_DEVICE");
	path.mtu = qport.active_mtu;
	path.max_rd_atomic = qdev.max_qp_init_rd_atom ? 1 : 0;
	path.max_dest_rd_atomic = qdev.max_qp_rd_atom ? 1 : 0;
	ret = xt_rc_connect(d->fd, qp->h, qp->qpn, &path, &step);
	if (ret)
		xt_bail(ret, "MODIFY_QP %s", step);
	xt_check(1, "QP %u connected to itself (GID %02x%02x::%02x%02x:%02x%02x:%02x%02x:%02x%02x)",
		 qp->qpn, qgid.gid[0], qgid.gid[1], qgid.gid[8], qgid.gid[9],
		 qgid.gid[10], qgid.gid[11], qgid.gid[12], qgid.gid[13],
		 qgid.gid[14], qgid.gid[15]);
}

static int kick(struct dev *d, __u32 qp_handle)
{
	struct xrdma_cmd_kick k = { .qp_handle = qp_handle };

	return xio(d->fd, XRDMA_IOC_KICK, &k);
}

static void destroy(struct dev *d, __u32 type, __u32 h,
		    const char *what)
{
	struct xrdma_cmd_destroy c = { .type = type, .handle = h };
	int ret = xio(d->fd, XRDMA_IOC_DESTROY, &c);

	if (ret)
		xt_check(0, "DESTROY %s: %s", what, strerror(-ret));
}

/* ------------------------------------------------ the data path (no syscalls) */

static __u64 pattern(__u32 seed, size_t i)
{
	__u64 x = (seed + i) * 0x9e3779b97f4a7c15ull;

	return x ^ (x >> 29);
}

/*
 * Post one signaled RDMA WRITE of @len bytes: WQE, owner, doorbell record,
 * doorbell page bits.  Return: the NEED_WAKEUP flag read afterwards.
 */
static int post_write(struct dev *d, struct qp *qp, struct xt_umr *src,
		      struct xt_umr *dst, __u32 off, __u32 len, __u64 wr_id)
{
	__u32 log = qp->resp.sq_log_wqe, shift = qp->resp.sq_wqe_shift;
	__u32 pi = qp->sq_pi;
	const struct xt_write wr = {
		.wr_id = wr_id, .len = len,
		.src = uptr(src->buf + off), .lkey = src->lkey,
		.dst = uptr(dst->buf + off), .rkey = dst->rkey,
	};
	struct xnic_wqe_ctrl *ctrl;

	ctrl = xt_wqe_write(qp->sq + ((size_t)(pi & ((1u << log) - 1)) << shift),
			    (size_t)1 << shift, &wr);
	/* the owner byte last: the phase of this lap (first lap 0) */
	__atomic_store_n(&ctrl->owner, (__u8)((pi >> log) & 1),
			 __ATOMIC_RELEASE);
	qp->sq_pi = pi + 1;
	__atomic_store_n(&qp->dbrec->sq_pi, htole32(qp->sq_pi),
			 __ATOMIC_RELEASE);
	return xt_db_ring(d->db, qp->resp.db_slot);
}

/* one CQE if there is one: 1, else 0 */
static int poll_cq(struct cq *cq, struct xnic_cqe *out)
{
	__u32 log = cq->resp.log_cqe;
	struct xnic_cqe *e = &cq->ring[cq->ci & ((1u << log) - 1)];
	__u8 want = ((cq->ci >> log) & 1) ^ 1;	/* first lap: 1 */

	if (__atomic_load_n(&e->owner, __ATOMIC_ACQUIRE) != want)
		return 0;
	*out = *e;
	cq->ci++;
	__atomic_store_n(&cq->dbrec->ci, htole32(cq->ci), __ATOMIC_RELEASE);
	return 1;
}

/* poll until a CQE arrives or @ms pass (rdtsc: no clock syscall) */
static int wait_cq(struct cq *cq, struct xnic_cqe *out, unsigned int ms)
{
	unsigned long long end = __rdtsc() + tsc_per_ms * ms;

	do {
		if (poll_cq(cq, out))
			return 1;
		_mm_pause();
	} while (__rdtsc() < end);
	return 0;
}

static void fill(struct xt_umr *m, __u32 seed)
{
	__u64 *p = (__u64 *)m->buf;
	size_t i;

	for (i = 0; i < MR_SIZE / 8; i++)
		p[i] = pattern(seed, i);
}

/* NULL if @e is the successful RDMA WRITE @wr_id of @qp, else a reason */
static const char *check_cqe(const struct xnic_cqe *e, struct qp *qp,
			     __u64 wr_id)
{
	static char why[160];

	if (e->status != XNIC_CQE_SUCCESS || e->opcode != XNIC_CQE_OP_RDMA_WRITE ||
	    le64toh(e->wr_id) != wr_id || le32toh(e->qpn) != qp->qpn) {
		snprintf(why, sizeof(why),
			 "CQE status %u opcode %u wr_id %#llx qpn %u, want 0 %u %#llx %u",
			 e->status, e->opcode,
			 (unsigned long long)le64toh(e->wr_id), le32toh(e->qpn),
			 XNIC_CQE_OP_RDMA_WRITE, (unsigned long long)wr_id,
			 qp->qpn);
		return why;
	}
	return NULL;
}

static int data_ok(struct xt_umr *src, struct xt_umr *dst, __u32 len)
{
	return !memcmp(src->buf, dst->buf, len) &&
	       (len == MR_SIZE || dst->buf[len] == 0);
}

/* NULL if @e completes WRITE @wr_id of @len bytes src -> dst, else a reason */
static const char *write_why(const struct xnic_cqe *e, struct qp *qp,
			     __u64 wr_id, struct xt_umr *src,
			     struct xt_umr *dst, __u32 len)
{
	const char *why = check_cqe(e, qp, wr_id);

	if (!why && !data_ok(src, dst, len))
		why = "destination data wrong";
	return why;
}

/* ------------------------------------------------------- device counters */

/* sum of the deltas of counters whose name contains @key */
static long long delta(const struct xt_counters *a, const struct xt_counters *b,
		       const char *key, int *found)
{
	long long sum = 0;
	int i, j;

	*found = 0;
	for (i = 0; i < b->n; i++) {
		if (!strstr(b->name[i], key))
			continue;
		for (j = 0; j < a->n; j++)
			if (!strcmp(a->name[j], b->name[i]))
				break;
		if (j == a->n)
			continue;
		sum += (long long)(b->val[i] - a->val[j]);
		(*found)++;
	}
	return sum;
}

static void show_deltas(const struct xt_counters *a, const struct xt_counters *b)
{
	static const char *const keys[] = {
		"kick", "wake", "sleep", "doorbell", "writer_",
	};
	const int nkeys = ARRAY_SIZE(keys);
	int i, j, k;

	if (!verbose)
		return;
	for (i = 0; i < b->n; i++) {
		for (k = 0; k < nkeys && !strstr(b->name[i], keys[k]); k++)
			;
		if (k == nkeys)
			continue;
		for (j = 0; j < a->n && strcmp(a->name[j], b->name[i]); j++)
			;
		if (j < a->n)
			xt_note("  counter %s: %llu -> %llu", b->name[i],
				a->val[j], b->val[i]);
	}
}

/* ---------------------------------------- the syscall-free window */

/* written by the SIGSYS handler, read with atomics */
static int trapped;
static int trapped_nr;

static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
	ucontext_t *ctx = uc;

	(void)sig;
	__atomic_fetch_add(&trapped, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&trapped_nr, si->si_syscall, __ATOMIC_RELAXED);
	/* the trapped call fails with EPERM */
	ctx->uc_mcontext.gregs[REG_RAX] = -EPERM;
}

/* trap every syscall but exit, rt_sigreturn and the KICK ioctl */
static int no_syscalls(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_rt_sigreturn, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ioctl, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[1])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			 (__u32)XRDMA_IOC_KICK, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
	};
	struct sock_fprog prog = {
		.len = ARRAY_SIZE(f),
		.filter = f,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return errno;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		return errno;
	return 0;
}

struct window {
	struct dev *d;
	struct qp *qp;
	struct cq *cq;
	struct xt_umr *src, *dst;
	int inject;		/* self-test: make a syscall in the window */
	/* results */
	int setup_err;
	int warm_nw, warm_done, kicks, kick_err;
	int nw, done;
	struct xnic_cqe warm_cqe, cqe;
	int syscalls;
	int syscall_nr;
};

/*
 * The posting thread: under the filter, a warm-up WRITE (kick if the
 * engine sleeps), then the measured WRITE, then both completions.  It ends
 * with the raw exit system call (the filter allows nothing glibc's thread
 * exit would do).
 */
static void *window_thread(void *arg)
{
	struct window *w = arg;
	unsigned long long end;
	int ret;

	__atomic_store_n(&trapped, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&trapped_nr, -1, __ATOMIC_RELAXED);
	ret = no_syscalls();
	if (ret) {
		w->setup_err = ret;
		return NULL;
	}
	/*
	 * Warm-up: a 1 MiB WRITE that keeps the engine busy for a while; if
	 * the engine sleeps, wake it the normal way, then wait (spinning on
	 * the flag, no syscall) until it has cleared NEED_WAKEUP.
	 */
	w->warm_nw = post_write(w->d, w->qp, w->src, w->dst, BUF_SIZE,
				WARM_SIZE, 0x1000);
	if (w->warm_nw) {
		w->kicks++;
		if (kick(w->d, 0))
			w->kick_err = errno;
	}
	end = __rdtsc() + tsc_per_ms * AWAKE_WAIT_MS;
	while (xt_need_wakeup(w->d->db) && __rdtsc() < end)
		_mm_pause();
	/*
	 * The measured post, with the engine awake: nothing but memory
	 * accesses from here to its completion.
	 */
	w->nw = post_write(w->d, w->qp, w->src, w->dst, 0, BUF_SIZE, 0x2000);
	if (w->inject)
		getppid();
	if (w->nw) {
		/* the engine fell asleep in between: not a proof */
		w->kicks++;
		if (kick(w->d, 0))
			w->kick_err = errno;
	}
	w->warm_done = wait_cq(w->cq, &w->warm_cqe, TIMEOUT_MS);
	if (w->warm_done)
		w->done = wait_cq(w->cq, &w->cqe, TIMEOUT_MS);
	w->syscalls = __atomic_load_n(&trapped, __ATOMIC_RELAXED);
	w->syscall_nr = __atomic_load_n(&trapped_nr, __ATOMIC_RELAXED);
	syscall(SYS_exit, 0);
	return NULL;
}

static int test_awake(struct dev *d, struct qp *qp, struct cq *cq,
		      struct xt_umr *src, struct xt_umr *dst, const char *ctr_path,
		      int inject)
{
	struct xt_counters c0, c1;
	struct window w;
	pthread_t th;
	long long kicks = 0, wakes = 0;
	int attempt, fk = 0, fw = 0, have;
	__u32 dts;
	const char *why;

	for (attempt = 1; attempt <= 50; attempt++) {
		memset(&w, 0, sizeof(w));
		w.d = d;
		w.qp = qp;
		w.cq = cq;
		w.src = src;
		w.dst = dst;
		w.inject = inject;
		fill(src, attempt * 16);
		memset(dst->buf, 0, MR_SIZE);
		have = !xt_read_counters(ctr_path, &c0);
		if (pthread_create(&th, NULL, window_thread, &w))
			xt_bail(errno, "pthread_create");
		pthread_join(th, NULL);
		if (have)
			have = !xt_read_counters(ctr_path, &c1);
		if (w.setup_err)
			xt_bail(w.setup_err, "seccomp filter");
		if (w.kick_err)
			xt_bail(w.kick_err, "KICK ioctl");
		if (!w.warm_done) {
			xt_check(0,
				 "warm-up WRITE: no completion within %d ms (NEED_WAKEUP %s, %d kick)",
				 TIMEOUT_MS, w.warm_nw ? "set" : "clear",
				 w.kicks);
			return -1;
		}
		why = check_cqe(&w.warm_cqe, qp, 0x1000);
		if (why) {
			xt_check(0, "warm-up WRITE: %s", why);
			return -1;
		}
		if (!w.done) {
			xt_check(0,
				 "WRITE after warm-up: no completion within %d ms (NEED_WAKEUP %s)",
				 TIMEOUT_MS, w.nw ? "set" : "clear");
			return -1;
		}
		why = write_why(&w.cqe, qp, 0x2000, src, dst, MR_SIZE);
		if (why) {
			xt_check(0, "WRITE after warm-up: %s", why);
			return -1;
		}
		/* device clock in microseconds: later, and not by much */
		dts = le32toh(w.cqe.timestamp) - le32toh(w.warm_cqe.timestamp);
		if (dts > 10 * 1000 * 1000) {
			xt_check(0, "CQE timestamps %u then %u: not a microsecond clock",
				 le32toh(w.warm_cqe.timestamp),
				 le32toh(w.cqe.timestamp));
			return -1;
		}
		if (verbose)
			xt_note("attempt %d: NEED_WAKEUP %d/%d, kicks %d, trapped %d",
				attempt, w.warm_nw, w.nw, w.kicks, w.syscalls);
		if (inject) {
			xt_check(w.syscalls == 1 && w.syscall_nr == SYS_getppid,
				 "self-test: a getppid() in the window is seen (%d trapped, last nr %d)",
				 w.syscalls, w.syscall_nr);
			return 0;
		}
		if (w.syscalls) {
			xt_check(0,
				 "syscall-free post..completion: %d syscall(s) trapped (last nr %d)",
				 w.syscalls, w.syscall_nr);
			return -1;
		}
		if (w.nw)
			continue;	/* engine slept in between: again */
		if (have) {
			kicks = delta(&c0, &c1, "kick", &fk);
			wakes = delta(&c0, &c1, "wake", &fw);
			show_deltas(&c0, &c1);
			if (fk && kicks != w.kicks) {
				xt_check(0, "device counted %lld kick(s), the program made %d",
					 kicks, w.kicks);
				return -1;
			}
			/*
			 * Wakeups are shown, not checked: besides kicks,
			 * the engine's own timers wake it (a bound on them
			 * failed under load with nothing wrong).
			 */
			if (fw)
				xt_note("engine wakeups %lld for %d kick(s)",
					wakes, w.kicks);
		}
		xt_check(1,
			 "RDMA WRITE of %d bytes posted and completed with no syscall (attempt %d; seccomp: 0 trapped; NEED_WAKEUP clear; warm-up kicks %d%s)",
			 BUF_SIZE, attempt, w.kicks,
			 !have ? "; no device counters" :
			 fk ? "; device kicks match" : "; no kick counter");
		if (have && !fk)
			xt_note("counters file %s has no *kick* counter",
				ctr_path);
		return 0;
	}
	xt_check(0,
		 "engine asleep right after every completion in 50 attempts: cannot show a syscall-free post");
	return -1;
}

static int test_sleep(struct dev *d, struct qp *qp, struct cq *cq,
		      struct xt_umr *src, struct xt_umr *dst, const char *ctr_path,
		      __u32 kick_handle)
{
	struct xt_counters c0, c1;
	struct xnic_cqe e;
	const char *why;
	long long kicks, wakes, runs;
	int i, nw, early, ret, fk, fw, fr, have, attempt;

	memset(dst->buf, 0, MR_SIZE);
	fill(src, 0x5000 + kick_handle);
	for (attempt = 1;; attempt++) {
		/* idle long enough for the engine to go to sleep */
		for (i = 0; i < 200 && !xt_need_wakeup(d->db); i++)
			usleep(10000);
		if (!xt_need_wakeup(d->db)) {
			xt_check(0, "engine never set NEED_WAKEUP in 2 s of idleness");
			return -1;
		}
		have = !xt_read_counters(ctr_path, &c0);
		nw = post_write(d, qp, src, dst, 0, 4096, 0x3000 + kick_handle);
		if (nw)
			break;
		/*
		 * The engine woke between the look and the post (the end of
		 * a step aside, NEED_WAKEUP set for <= 1 ms, or a deadline):
		 * awake, it takes the WRITE with no kick.  An outcome, not a
		 * failure -- as long as the WRITE completes; then idle again.
		 */
		if (!wait_cq(cq, &e, TIMEOUT_MS)) {
			xt_check(0, "WRITE posted awake (attempt %d): no CQE in %d ms",
				 attempt, TIMEOUT_MS);
			return -1;
		}
		why = write_why(&e, qp, 0x3000 + kick_handle, src, dst, 4096);
		if (why) {
			xt_check(0, "WRITE posted with NEED_WAKEUP clear: %s", why);
			return -1;
		}
		if (attempt == 20) {
			xt_check(0, "post after idleness: NEED_WAKEUP clear 20 times");
			return -1;
		}
		xt_note("attempt %d: engine awake at the post, WRITE done",
			attempt);
		memset(dst->buf, 0, MR_SIZE);
	}
	/* without a kick a sleeping engine should not see the doorbell */
	early = wait_cq(cq, &e, 20);
	if (!early) {
		ret = kick(d, kick_handle);
		if (ret) {
			xt_check(0, "KICK ioctl (qp_handle %u): %s", kick_handle,
				 strerror(-ret));
			return -1;
		}
		if (!wait_cq(cq, &e, TIMEOUT_MS)) {
			xt_check(0, "KICK (qp_handle %u): no completion within %d ms",
				 kick_handle, TIMEOUT_MS);
			return -1;
		}
	}
	why = write_why(&e, qp, 0x3000 + kick_handle, src, dst, 4096);
	if (why) {
		xt_check(0, "WRITE after KICK: %s", why);
		return -1;
	}
	/*
	 * The KICK serves the QP in the caller (a writer run) or wakes the
	 * engine, which counts its wakeup when it next runs -- maybe after
	 * the completion: wait for either.
	 */
	for (i = 0; have && i < 200; i++) {
		if (xt_read_counters(ctr_path, &c1)) {
			have = 0;
			break;
		}
		kicks = delta(&c0, &c1, "kick", &fk);
		wakes = delta(&c0, &c1, "wake", &fw);
		runs = delta(&c0, &c1, "writer_", &fr);
		if (early || !fw || !fr || wakes >= 1 || runs >= 1)
			break;
		usleep(10000);
	}
	if (have) {
		show_deltas(&c0, &c1);
		/*
		 * The KICK is served by the engine thread (a wakeup) or in
		 * the writer's context (a writer run, the engine sleeping
		 * on): either, never neither.
		 */
		if ((fk && kicks != !early) ||
		    (fw && fr && !early && wakes < 1 && runs < 1)) {
			xt_check(0,
				 "device counters: %lld kick(s), %lld wakeup(s), %lld writer run(s) for %d KICK ioctl(s)",
				 kicks, wakes, runs, !early);
			return -1;
		}
	}
	if (early)
		xt_note("completed in 20 ms without a kick (NEED_WAKEUP was set)");
	xt_check(1, "engine asleep: post saw NEED_WAKEUP, KICK(qp_handle %u), completion, data ok",
		 kick_handle);
	return 0;
}

static unsigned long long ns_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ull + t.tv_nsec;
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/*
 * TSC ticks per millisecond, the median of five 20 ms samples: a vCPU
 * preempted between a clock read and its rdtsc (TCG on a busy host)
 * spoils one sample, which would otherwise stretch or shrink every
 * timeout of the program.
 */
static void calibrate(void)
{
	unsigned long long r[5], t0, t1, n0, n1;
	int i;

	for (i = 0; i < 5; i++) {
		n0 = ns_now();
		t0 = __rdtsc();
		usleep(20000);
		n1 = ns_now();
		t1 = __rdtsc();
		r[i] = (t1 - t0) * 1000000ull / (n1 > n0 ? n1 - n0 : 1);
	}
	qsort(r, 5, sizeof(r[0]), cmp_ull);
	tsc_per_ms = r[2] ? r[2] : 1000000;
}

/* ------------------------------------------------------------ main */

static const char *dev_name = "xnic0", *ctr_path;
static struct dev d;
static struct xt_umr src, dst;
static struct cq cq;
static struct qp qp;

/* in each subtest's process: a context, two MRs, a CQ, a QP on itself */
static bool setup(void)
{
	memset(&d, 0, sizeof(d));
	memset(&cq, 0, sizeof(cq));
	memset(&qp, 0, sizeof(qp));
	dev_open(&d, dev_name);
	mr_reg(&d, &src);
	mr_reg(&d, &dst);
	cq_create(&d, &cq);
	qp_create(&d, &cq, &qp);
	qp_connect_self(&d, &qp);
	return true;
}

static void teardown(void)
{
	munmap(qp.map, qp.resp.mmap_size);
	munmap(cq.map, cq.resp.mmap_size);
	destroy(&d, XRDMA_OBJ_QP, qp.h, "QP");
	destroy(&d, XRDMA_OBJ_CQ, cq.h, "CQ");
	destroy(&d, XRDMA_OBJ_MR, src.h, "MR");
	destroy(&d, XRDMA_OBJ_MR, dst.h, "MR");
	destroy(&d, XRDMA_OBJ_PD, d.pd, "PD");
	munmap(d.db, XNIC_DB_PAGE_SIZE);
	close(d.fd);
}

/* the trap's self-test and warm-up, then a WRITE with no syscall */
static void t_awake(void)
{
	test_awake(&d, &qp, &cq, &src, &dst, ctr_path, 1);
	test_awake(&d, &qp, &cq, &src, &dst, ctr_path, 0);
}

/* KICK for the context, then for the QP; then awake again */
static void t_sleep(void)
{
	test_sleep(&d, &qp, &cq, &src, &dst, ctr_path, 0);
	test_sleep(&d, &qp, &cq, &src, &dst, ctr_path, qp.h);
	test_awake(&d, &qp, &cq, &src, &dst, ctr_path, 0);
}

static const struct xt_subtest subtests[] = {
	XT_SUBTEST(awake, 0, "the awake engine: no syscall, no kick"),
	XT_SUBTEST(sleep, 0, "the sleeping engine: NEED_WAKEUP, KICK"),
};

static const struct xt_suite suite = {
	.tests = subtests,
	.n = ARRAY_SIZE(subtests),
	.timeout = 300,
	.setup = setup,
	.teardown = teardown,
};

int main(int argc, char **argv)
{
	const struct xt_opt opts[] = {
		{ .c = 'n', .arg = "IBDEV", .str = &dev_name },
		{ .c = 'c', .arg = "COUNTERS", .str = &ctr_path },
		{ .c = 'v', .num = &verbose },
	};
	struct sigaction sa;
	int ret;

	ret = xt_main(&suite, opts, ARRAY_SIZE(opts), &argc, &argv,
		      "xnic_raw");
	if (ret >= 0)
		return ret;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigsys;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSYS, &sa, NULL);
	calibrate();
	if (ctr_path && access(ctr_path, R_OK)) {
		xt_note("no counters file %s", ctr_path);
		ctr_path = NULL;
	}
	xt_run(&suite, argc, argv);
	return xt_done();
}
