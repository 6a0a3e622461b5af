// SPDX-License-Identifier: GPL-2.0
/*
 * uverbs_fuzz: a seeded fuzzer of the xrdma user ABI on xnic devices
 * (uapi/xrdma/xrdma-abi.h, uapi/xrdma/xnic-abi.h), run in the QEMU guest
 * by tools/testing/uverbs/uverbs_fuzz.sh (make check, make fuzz).
 *
 * Usage: uverbs_fuzz [--seed N] [--iterations N] [--seconds S]
 *                    [--threads N] [--skip ACTION[,ACTION...]]
 *                    [--user UID] [--no-checks] [--disjoint-mrs] [-v]
 *
 * --disjoint-mrs keeps MRs from sharing pages: kernels with DMA-API
 * debugging (the debug guest kernel) report overlapping DMA mappings,
 * which user MRs legitimately are.
 *
 * A supervisor process (root, reads debugfs) forks the fuzz process, which
 * drops to UID (default 65534 when started as root: the threat model is an
 * unprivileged local user) and runs THREADS threads for at most SECONDS
 * and ITERATIONS actions, whichever ends first.  Actions, each chosen by
 * the thread's random generator (seeded from SEED and the thread number):
 *
 *   ioctl     every command, built plausibly from the context's objects,
 *             then mutated: stale, foreign, wrong-type and random handles,
 *             hostile flags, reserved fields, comp_mask, counts and keys,
 *             structure sizes (short, long with a zero or non-zero tail,
 *             over a page), direction/magic/number bits, argument and
 *             driver-data pointers that are NULL, unmapped, read-only or
 *             straddle a guard page, bit flips; every command up to
 *             OPEN_QP (0x1f): RESIZE_CQ (the object takes the moved
 *             ring), IMPORT_CONTEXT (own, another and a context-less fd),
 *             QUERY_OBJECT, ALLOC_DM (mapped) and REG_DM_MR (keys the
 *             data path uses), OPEN_XRCD (fd -1 or two shared files),
 *             XRC_SEND/XRC_RECV QPs, XRC SRQs, OPEN_QP of any context's
 *             XRC_RECV QP, DESTROY of every type
 *   connect   a QP through RESET..RTS to itself, another QP, a QP of
 *             another context or device, with an occasional hostile value
 *   post      send WQEs written into the mapped queue: valid opcodes (and
 *             some invalid) with hostile lengths, SGE counts, lkeys,
 *             rkeys, remote addresses, inline lengths, UD destinations,
 *             REG_MR page lists; hostile owner bits and producer indexes;
 *             the doorbell page's group/summary bits; KICK when asked
 *   recv      receive WQEs into RQs and SRQs, likewise
 *   poll      CQEs read by owner phase (their opcodes and statuses are
 *             counted), the consumer index and arm word written (also
 *             hostile values)
 *   garbage   random bytes anywhere in any mapping (rings, doorbell
 *             records, doorbell page), also after the object is destroyed
 *   dbell     hostile doorbell page bits, then KICK
 *   kick      KICK of the context, a QP, a stale or random handle
 *   mmap      mmap of known and random offsets, lengths, protections,
 *             MAP_PRIVATE, mremap and mprotect(PROT_EXEC) of mappings
 *   unmap     munmap of a mapping (of a live object too)
 *   events    non-blocking reads of completion channels and the async fd
 *   open      a new context (GET_CONTEXT mutated too), its doorbell page
 *   close     close a context's fd (its mappings stay), a channel fd
 *   fork      a child that uses the inherited fd (EPERM), imports it
 *             (IMPORT_CONTEXT, then a PD and one async fd), or opens its
 *             own context, connects a QP to one of ours with guessed keys
 *             and posts, then exits at once or is killed with SIGKILL
 *   xumount   a child in a user and mount namespace of its own mounts a
 *             tmpfs, opens a domain (OPEN_XRCD) on a file of it, closes
 *             (maybe unlinks) the file and unmounts: EBUSY, or the run
 *             fails; then DESTROY of the domain and umount (must
 *             succeed), or a lazy umount (must succeed), or exit with the
 *             domain open on the mounted tmpfs
 *   xpeer     the peer, a process of another uid (UID - 1, forked by the
 *             supervisor), is handed read-only fds of the domain files,
 *             joins the domains (OPEN_XRCD), opens one of our XRC_RECV
 *             QPs by number (OPEN_QP) and modifies it through that
 *             handle: EPERM (only the creator's handle modifies it), or
 *             the run fails; QUERY_QP is counted
 *
 * Mappings are reference counted so that no thread writes into memory that
 * another thread unmapped (and that could have been reused); a fault in a
 * mapping is caught and counted.  At the end the fuzz process closes
 * everything and checks its pinned memory (VmPin) is 0; the supervisor
 * checks that every device's resource tracking (debugfs
 * xrdma/<dev>/resources) returns to zero and the model's object counts
 * (debugfs xnic_sim/<i>/regs) to their baseline, that a fresh context can
 * still move data (a verified loopback RDMA WRITE on every device), and
 * prints the coverage: per ioctl command the calls, successes and each
 * errno; the WQE opcodes posted; the CQE opcodes and statuses seen; the
 * model's tx_*, rx_* and err_* counter deltas; the runs of each action
 * and the endings of the xumount and xpeer sequences.
 *
 * The sequence of actions of each thread is a function of SEED; the
 * interleaving of threads (and the engine) is not, so a replay reproduces
 * the same inputs in about the same order.  The seed and the command that
 * replays the run are printed at the start and on failure.
 *
 * Exit status: 0 if every check passed, 1 otherwise, 2 for bad usage.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <xrdma/xrdma-abi.h>
#include <xrdma/xnic-abi.h>
#include "xt_uverbs.h"

#define INC(x)		__atomic_fetch_add(&(x), 1, __ATOMIC_RELAXED)
#define PG		4096u

/* verbs QP attribute mask bits (as IBV_QP_*) */
#define UD_QKEY		0x11111111u

#define MAX_DEV		4
#define MAX_CTX		8
#define MAX_OBJ		384
#define MAX_STALE	64
#define MAX_THREADS	8
#define MAX_CHAN	4
#define MAX_KIDS	4
#define ARENA_SIZE	(2u << 20)
#define NR_CMDS		0x20		/* XRDMA_IOC_* numbers 0..0x1f */
#define MAX_ERRNO	134
#define N_WQE_OPS	17		/* 0..15, then "other" */
#define N_CQE_OPS	11
#define N_STATUS	32

/* ------------------------------------------------------------ options */

static struct {
	unsigned long long seed;
	unsigned long iterations;
	int iterations_given;
	unsigned int seconds;
	unsigned int threads;
	const char *skip;
	long user;
	int checks;
	int verbose;
	int disjoint;
} opt = {
	.iterations = 1000000,
	.seconds = 30,
	.threads = 3,
	.skip = "",
	.user = -1,
	.checks = 1,
};

enum act {
	A_IOCTL, A_CONNECT, A_POST, A_RECV, A_POLL, A_GARBAGE, A_DBELL,
	A_KICK, A_MMAP, A_UNMAP, A_EVENTS, A_OPEN, A_CLOSE, A_FORK,
	A_XUMOUNT, A_XPEER, N_ACT
};

static const struct {
	const char *name;
	unsigned int weight;
} acts[N_ACT] = {
	[A_IOCTL] = { "ioctl", 34 },
	[A_CONNECT] = { "connect", 8 },
	[A_POST] = { "post", 20 },
	[A_RECV] = { "recv", 7 },
	[A_POLL] = { "poll", 10 },
	[A_GARBAGE] = { "garbage", 4 },
	[A_DBELL] = { "dbell", 3 },
	[A_KICK] = { "kick", 4 },
	[A_MMAP] = { "mmap", 3 },
	[A_UNMAP] = { "unmap", 2 },
	[A_EVENTS] = { "events", 3 },
	[A_OPEN] = { "open", 2 },
	[A_CLOSE] = { "close", 1 },
	[A_FORK] = { "fork", 1 },
	[A_XUMOUNT] = { "xumount", 1 },
	[A_XPEER] = { "xpeer", 1 },
};

static int skipped[N_ACT];

/* ------------------------------------------------------------ statistics */

/* in shared memory: the fuzz process and its children count here */
struct stats {
	unsigned long calls[NR_CMDS + 1], ok[NR_CMDS + 1];
	unsigned long err[NR_CMDS + 1][MAX_ERRNO + 1];
	unsigned long posted[N_WQE_OPS], recvs;
	unsigned long cqe[N_CQE_OPS][N_STATUS];
	unsigned long acts[N_ACT];
	unsigned long iters, faults, forks, kills, closes, opens;
	unsigned long mmap_ok, mmap_fail, remap_ok, exec_ok, kicks;
	unsigned long child_eperm, child_other, map_new_fail, abrupt, splits;
	unsigned long writes_ok, resized, imports, child_imports;
	/* xumount: runs, no namespace, no domain, EBUSY, then each ending */
	unsigned long xu_runs, xu_nons, xu_nodom, xu_busy, xu_end[3];
	/* xpeer: requests, domains joined, QPs opened, MODIFY_QP EPERM */
	unsigned long xp_reqs, xp_noctx, xp_joined, xp_opened, xp_eperm;
	unsigned long xp_queried;
	int killed;
	int fuzz_fail;
	char fail_why[256];
};

static struct stats *st;

static const char *const cmd_names[NR_CMDS + 1] = {
	"GET_CONTEXT", "QUERY_DEVICE", "QUERY_PORT", "QUERY_GID", "ALLOC_PD",
	"DESTROY", "REG_MR", "CREATE_CQ", "(0x08 reserved)", "CREATE_QP",
	"MODIFY_QP", "QUERY_QP", "CREATE_SRQ", "MODIFY_SRQ", "QUERY_SRQ",
	"CREATE_AH", "CREATE_COMP_CHANNEL", "GET_ASYNC_FD", "KICK",
	"QUERY_CLOCK", "ALLOC_MW", "RESIZE_CQ", "REREG_MR", "REG_DMABUF_MR",
	"ATTACH_MCAST", "DETACH_MCAST", "IMPORT_CONTEXT", "QUERY_OBJECT",
	"ALLOC_DM", "REG_DM_MR", "OPEN_XRCD", "OPEN_QP",
	"(bad number/magic/dir)",
};

static const char *const wqe_names[N_WQE_OPS] = {
	"RDMA_WRITE", "RDMA_WRITE_IMM", "SEND", "SEND_IMM", "RDMA_READ",
	"CMP_SWAP", "FETCH_ADD", "LOCAL_INV", "SEND_INV", "REG_MR", "op10",
	"op11", "op12", "op13", "op14", "NOP", "other",
};

static const char *const cqe_names[N_CQE_OPS] = {
	"SEND", "RDMA_WRITE", "RDMA_READ", "COMP_SWAP", "FETCH_ADD", "op5",
	"LOCAL_INV", "REG_MR", "RECV", "RECV_RDMA_IMM", "other",
};

__printf(1, 2)
static void out(const char *fmt, ...)
{
	va_list ap;

	printf("uverbs_fuzz: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* the first failure of the fuzz process, reported by the supervisor */
__printf(1, 2)
static void fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	if (__atomic_exchange_n(&st->fuzz_fail, 1, __ATOMIC_ACQ_REL))
		return;
	va_start(ap, fmt);
	vsnprintf(st->fail_why, sizeof(st->fail_why), fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------------ random */

struct rng {
	unsigned long long s;
};

static unsigned long long rnd(struct rng *r)
{
	unsigned long long z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static __u32 rn(struct rng *r, __u32 n)
{
	return n ? (__u32)(rnd(r) % n) : 0;
}

static int pct(struct rng *r, __u32 p)
{
	return rn(r, 100) < p;
}

static __u32 hostile32(struct rng *r)
{
	static const __u32 v[] = {
		0, 1, 2, 3, 7, 0x7f, 0x80, 0xff, 0x100, 0x1000, 0xffff,
		0x10000, 0xffffff, 0x1000000, 0x7fffffff, 0x80000000,
		0xfffffffe, 0xffffffff,
	};

	switch (rn(r, 4)) {
	case 0:
		return (__u32)rnd(r);
	case 1:
		return rn(r, 64);
	default:
		return v[rn(r, ARRAY_SIZE(v))];
	}
}

static __u64 hostile64(struct rng *r)
{
	static const __u64 v[] = {
		0, 1, 0xfff, 0x1000, 0x7fffffffffffull, 0x800000000000ull,
		0xffff888000000000ull, 0xffffffff80000000ull,
		0xfffffffffffff000ull, 0xffffffffffffffffull, 0x100000000ull,
	};

	if (pct(r, 40))
		return rnd(r);
	return v[rn(r, ARRAY_SIZE(v))];
}

/* ------------------------------------------------------------ devices */

struct fdev {
	char name[32];
	char path[64];
	char res[96];		/* debugfs xrdma/<name>/resources */
	char regs[128];		/* debugfs xnic_sim/<i>/regs, or "" */
	char ctrs[128];		/* debugfs xnic_sim/<i>/counters, or "" */
	unsigned long long guid;
	__u8 gid[16];
	__u32 max_sge, max_inline, max_cqe, max_qp_wr, rd_atom;
	__u64 max_dm;
};

static struct fdev devs[MAX_DEV];
static int ndev;

/* node_guid "xxxx:xxxx:xxxx:xxxx" as a number */
static unsigned long long parse_guid(const char *s)
{
	unsigned long long g = 0;

	for (; *s; s++) {
		if (*s == ':')
			continue;
		g = g * 16 + (*s <= '9' ? *s - '0' : (*s | 0x20) - 'a' + 10);
	}
	return g;
}

/* the model's debugfs directory of a node GUID */
static void find_sim_dir(struct fdev *d)
{
	char line[128];
	glob_t g;
	size_t i;

	if (glob("/sys/kernel/debug/xnic_sim/*/regs", 0, NULL, &g))
		return;
	for (i = 0; i < g.gl_pathc; i++) {
		FILE *f = fopen(g.gl_pathv[i], "re");
		unsigned long long guid;

		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "node_guid %llx", &guid) == 1 &&
			    guid == d->guid) {
				snprintf(d->regs, sizeof(d->regs), "%s",
					 g.gl_pathv[i]);
				snprintf(d->ctrs, sizeof(d->ctrs), "%.*scounters",
					 (int)(strlen(g.gl_pathv[i]) - 4),
					 g.gl_pathv[i]);
			}
		fclose(f);
	}
	globfree(&g);
}

static int discover(void)
{
	char p[160], v[64];
	glob_t g;
	size_t i;

	if (glob("/sys/class/xrdma/uverbs*", 0, NULL, &g))
		return 0;
	for (i = 0; i < g.gl_pathc && ndev < MAX_DEV; i++) {
		struct fdev *d = &devs[ndev];

		snprintf(p, sizeof(p), "%s/driver", g.gl_pathv[i]);
		if (xt_read_line(p, v, sizeof(v)) || strcmp(v, "xnic"))
			continue;
		snprintf(p, sizeof(p), "%s/ibdev", g.gl_pathv[i]);
		if (xt_read_line(p, d->name, sizeof(d->name)))
			continue;
		snprintf(p, sizeof(p), "%s/node_guid", g.gl_pathv[i]);
		if (xt_read_line(p, v, sizeof(v)))
			continue;
		d->guid = parse_guid(v);
		snprintf(d->path, sizeof(d->path), "/dev/infiniband/xrdma_%s",
			 strrchr(g.gl_pathv[i], '/') + 1);
		/* 24 + 31 + 10 bytes at most */
		strcpy(d->res, "/sys/kernel/debug/xrdma/");
		strcat(d->res, d->name);
		strcat(d->res, "/resources");
		find_sim_dir(d);
		ndev++;
	}
	globfree(&g);
	return ndev;
}

/* ------------------------------------------------------------ threads */

/* per thread (and per forked child) */
struct wk {
	int id;
	struct rng r;
	__u8 *cbuf;		/* 4 pages: command structures */
	__u8 *ro;		/* 1 page, read-only while in use */
	__u8 *edge;		/* 1 page followed by a PROT_NONE page */
	__u8 *resp;		/* 1 page: driver data */
	__u64 wr_id;
	int hostile;		/* this action may be hostile */
};

/* a hostile choice: never in a clean action, else with 2 * @p percent */
static int hz(struct wk *w, unsigned int p)
{
	return w->hostile && pct(&w->r, 2 * p);
}

/* the sigjmp_buf of the mapping access in progress, or NULL */
static __thread void *guard;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	if (guard)
		siglongjmp(*(sigjmp_buf *)guard, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void *map_anon(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int wk_init(struct wk *w, int id, unsigned long long seed)
{
	w->id = id;
	w->r.s = seed ^ (0x5851f42d4c957f2dull * (unsigned long long)(id + 1));
	w->cbuf = map_anon(4 * PG, PROT_READ | PROT_WRITE);
	w->ro = map_anon(PG, PROT_READ | PROT_WRITE);
	w->edge = map_anon(2 * PG, PROT_READ | PROT_WRITE);
	w->resp = map_anon(PG, PROT_READ | PROT_WRITE);
	if (!w->cbuf || !w->ro || !w->edge || !w->resp)
		return -1;
	return mprotect(w->edge + PG, PG, PROT_NONE);
}

/* ------------------------------------------------------------ ioctls */

static unsigned int errno_bucket(int e)
{
	return e > 0 && e <= MAX_ERRNO ? (unsigned int)e : 0;
}

/*
 * The errnos an ioctl of a uverbs fd may answer (Documentation/uverbs.rst,
 * core.rst; ETIMEDOUT and ENODEV of a device command; ENOTTY also for the
 * other fds commands are sent to).  Anything else, such as a kernel-internal
 * ENOTSUPP (524) or ERESTARTSYS (512), fails the run, for every command.
 */
static int errno_documented(int e)
{
	switch (e) {
	case EPERM: case ENOENT: case EIO: case EBADF: case EAGAIN:
	case ENOMEM: case EFAULT: case EBUSY: case EEXIST: case ENODEV:
	case EINVAL: case ENFILE: case EMFILE: case ENOSPC: case ENOTTY:
	case E2BIG: case ETIMEDOUT: case EOPNOTSUPP:
		return 1;
	default:
		return 0;
	}
}

static void count_call(unsigned int nr, int ret)
{
	unsigned int b = nr < NR_CMDS ? nr : NR_CMDS;

	if (ret && !errno_documented(ret))
		fuzz_fail("ioctl %s answered errno %d (%s), not a documented one",
			  cmd_names[b], ret, strerror(ret));
	INC(st->calls[b]);
	if (!ret)
		INC(st->ok[b]);
	else
		INC(st->err[b][errno_bucket(ret)]);
}

/* a correct call (counted): 0 or errno */
static int pio(int fd, unsigned int nr, void *arg, size_t n)
{
	int ret;

	ret = ioctl(fd, _IOC(_IOC_READ | _IOC_WRITE, XRDMA_IOC_MAGIC, nr, n),
		    arg) ? errno : 0;
	count_call(nr, ret);
	return ret;
}

static void note_import(int fd);

/*
 * Issue command @nr with the structure @s (@n bytes, in w->cbuf), mutated
 * with probability @mut percent.  Return 0 or errno; *@pristine tells
 * whether the kernel read and wrote @s itself (results are in @s).
 */
static int fz_call(struct wk *w, int fd, unsigned int nr, void *s, size_t n,
		   unsigned int mut, int *pristine)
{
	unsigned int dir = _IOC_READ | _IOC_WRITE, magic = XRDMA_IOC_MAGIC;
	unsigned int cnr = nr, i;
	size_t size = n;
	void *arg = s;
	int ret, ro = 0;

	*pristine = 1;
	if (w->hostile && pct(&w->r, mut)) {
		switch (rn(&w->r, 13)) {
		case 0:
			size = rn(&w->r, n);
			break;
		case 1:
			size = n + 1 + rn(&w->r, 64);
			memset((__u8 *)s + n, 0, size - n);
			break;
		case 2:
			size = n + 1 + rn(&w->r, 64);
			memset((__u8 *)s + n, 0, size - n);
			((__u8 *)s)[n + rn(&w->r, size - n)] = 1 + rn(&w->r, 255);
			break;
		case 3:
			size = PG + 1 + rn(&w->r, (1u << 14) - 1 - PG);
			break;
		case 4:
			dir = rn(&w->r, 3);	/* NONE, WRITE, READ */
			break;
		case 5:
			magic = (magic + 1 + rn(&w->r, 255)) & 0xff;
			break;
		case 6:
			cnr = rn(&w->r, 256);
			break;
		case 7:
			arg = NULL;
			break;
		case 8:
			arg = (void *)(unsigned long)(pct(&w->r, 50) ?
				0xdead0000ul : 0xffff888000000000ul);
			break;
		case 9:
			memcpy(w->ro, s, n);
			mprotect(w->ro, PG, PROT_READ);
			arg = w->ro;
			ro = 1;
			break;
		case 10:
			arg = w->edge + PG - 1 - rn(&w->r, n);
			memcpy(arg, s, w->edge + PG - (__u8 *)arg);
			break;
		case 11:
			for (i = 1 + rn(&w->r, 3); i; i--)
				((__u8 *)s)[rn(&w->r, n)] ^= 1u << rn(&w->r, 8);
			break;
		default:
			((__u8 *)s)[rn(&w->r, n)] = (__u8)rnd(&w->r);
			break;
		}
	}
	if (arg != s || size < n || dir != (_IOC_READ | _IOC_WRITE) ||
	    magic != XRDMA_IOC_MAGIC || cnr != nr)
		*pristine = 0;
	ret = ioctl(fd, _IOC(dir, magic, cnr, size), arg) ? errno : 0;
	/* a command turned into CREATE_COMP_CHANNEL/GET_ASYNC_FD: its fd */
	if (!ret && cnr != nr && arg == s && size >= 8 &&
	    (cnr == _IOC_NR(XRDMA_IOC_CREATE_COMP_CHANNEL) ||
	     cnr == _IOC_NR(XRDMA_IOC_GET_ASYNC_FD)) &&
	    dir == (_IOC_READ | _IOC_WRITE) && magic == XRDMA_IOC_MAGIC)
		close(((struct xrdma_cmd_fd *)s)->fd);
	if ((!ret || ret == EFAULT) && dir == (_IOC_READ | _IOC_WRITE) &&
	    magic == XRDMA_IOC_MAGIC &&
	    cnr == _IOC_NR(XRDMA_IOC_IMPORT_CONTEXT))
		note_import(fd);
	if (ro)
		mprotect(w->ro, PG, PROT_READ | PROT_WRITE);
	count_call(magic == XRDMA_IOC_MAGIC && dir == (_IOC_READ | _IOC_WRITE) ?
		   cnr : NR_CMDS, ret);
	return ret;
}

/* driver data: usually a correct out buffer of @len bytes in w->resp */
static void fz_udata(struct wk *w, struct xrdma_udata_desc *u, size_t len,
		     int hostile)
{
	memset(w->resp, 0, len);
	u->out = (__u64)(unsigned long)w->resp;
	u->out_len = len;
	u->in = 0;
	u->in_len = 0;
	if (!hostile || !hz(w, 6))
		return;
	switch (rn(&w->r, 7)) {
	case 0:
		u->out = 0;
		break;
	case 1:
		u->out_len = rn(&w->r, len);
		break;
	case 2:
		u->out_len = PG + 1 + rn(&w->r, 1u << 20);
		break;
	case 3:
		u->out = (__u64)(unsigned long)(w->edge + PG - rn(&w->r, len));
		break;
	case 4:
		u->out = 0xffff888000001000ull;
		break;
	case 5:
		u->in = (__u64)(unsigned long)w->cbuf;
		u->in_len = hostile32(&w->r);
		break;
	default:
		u->out_len = len + rn(&w->r, 256);
		break;
	}
}

static int fz_udata_ok(const struct xrdma_udata_desc *u, const struct wk *w,
		       size_t len)
{
	return u->out == (__u64)(unsigned long)w->resp && u->out_len >= len;
}

/* ------------------------------------------------------------ plain verbs */

/*
 * Correct calls for setup, the children and the final check; nothing here
 * uses the fuzz process's shared tables.
 */
struct pctx {
	int fd, dev;
	void *db;
	struct xnic_ucontext_resp u;
	__u32 pd;
};

struct pcq {
	__u32 h, ci;
	struct xnic_create_cq_resp r;
	void *map;
};

struct pqp {
	__u32 h, qpn, sq_pi;
	struct xnic_create_qp_resp r;
	void *map;
};

struct pmr {
	__u32 h, lkey, rkey;
};

/* a shared read-write mapping of the uverbs fd: 0, or errno and NULL */
static int pl_map(int fd, size_t len, __u64 off, void **map)
{
	*map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
	if (*map != MAP_FAILED)
		return 0;
	*map = NULL;
	return errno;
}

static int pl_open(struct pctx *c, int dev)
{
	struct xrdma_cmd_get_context gc = { 0 };
	struct xrdma_cmd_alloc_pd pd = { 0 };
	int ret;

	memset(c, 0, sizeof(*c));
	c->dev = dev;
	c->fd = open(devs[dev].path, O_RDWR | O_CLOEXEC);
	if (c->fd < 0)
		return errno;
	xt_udata_out(&gc.udata, &c->u, sizeof(c->u));
	ret = pio(c->fd, _IOC_NR(XRDMA_IOC_GET_CONTEXT), &gc, sizeof(gc));
	if (!ret)
		ret = pl_map(c->fd, XNIC_DB_PAGE_SIZE, c->u.db_page_offset,
			     &c->db);
	if (!ret)
		ret = pio(c->fd, _IOC_NR(XRDMA_IOC_ALLOC_PD), &pd, sizeof(pd));
	if (ret) {
		close(c->fd);
		c->fd = -1;
		return ret;
	}
	c->pd = pd.pd_handle;
	return 0;
}

static int pl_mr(struct pctx *c, void *addr, size_t len, __u32 access,
		 struct pmr *m)
{
	struct xrdma_cmd_reg_mr r = { 0 };
	int ret;

	r.pd_handle = c->pd;
	r.access = access;
	r.addr = (__u64)(unsigned long)addr;
	r.length = len;
	r.iova = r.addr;
	ret = pio(c->fd, _IOC_NR(XRDMA_IOC_REG_MR), &r, sizeof(r));
	if (ret)
		return ret;
	m->h = r.mr_handle;
	m->lkey = r.lkey;
	m->rkey = r.rkey;
	return 0;
}

/*
 * command @cmd (@r, @n bytes) creating a CQ or a QP, then the mapping of
 * its rings that its driver data tells (*@off, *@size): 0 or errno
 */
static int pl_new(struct pctx *c, unsigned long cmd, void *r, size_t n,
		  const __u64 *off, const __u32 *size, void **map)
{
	int ret = pio(c->fd, _IOC_NR(cmd), r, n);

	return ret ? ret : pl_map(c->fd, *size, *off, map);
}

static int pl_cq(struct pctx *c, struct pcq *cq, __u32 cqe)
{
	struct xrdma_cmd_create_cq r = {
		.cqe = cqe, .channel_fd = -1,
		.udata = { .out = uptr(&cq->r), .out_len = sizeof(cq->r) },
	};
	int ret;

	memset(cq, 0, sizeof(*cq));
	ret = pl_new(c, XRDMA_IOC_CREATE_CQ, &r, sizeof(r), &cq->r.mmap_offset,
		     &cq->r.mmap_size, &cq->map);
	cq->h = r.cq_handle;
	return ret;
}

static int pl_qp(struct pctx *c, struct pcq *cq, struct pqp *qp, __u32 type)
{
	struct xrdma_cmd_create_qp r = {
		.pd_handle = c->pd, .qp_type = type,
		.send_cq_handle = cq->h, .recv_cq_handle = cq->h,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2 },
		.udata = { .out = uptr(&qp->r), .out_len = sizeof(qp->r) },
	};
	int ret;

	memset(qp, 0, sizeof(*qp));
	ret = pl_new(c, XRDMA_IOC_CREATE_QP, &r, sizeof(r), &qp->r.mmap_offset,
		     &qp->r.mmap_size, &qp->map);
	qp->h = r.qp_handle;
	qp->qpn = r.qpn;
	return ret;
}

static int modify(int fd, __u32 h, __u32 mask, struct xrdma_uverbs_qp_attr *a)
{
	struct xrdma_cmd_modify_qp c = { 0 };

	c.qp_handle = h;
	c.attr_mask = mask;
	c.attr = *a;
	return pio(fd, _IOC_NR(XRDMA_IOC_MODIFY_QP), &c, sizeof(c));
}

/*
 * RESET -> INIT -> RTR -> RTS.  RC/UC: to @dqpn at @dgid; UD: Q_Key
 * UD_QKEY.  With @r, each value is hostile with a small probability.
 */
static int connect_qp(int fd, __u32 h, __u32 type, const __u8 *dgid,
		      __u32 dqpn, struct rng *r)
{
	struct xrdma_uverbs_qp_attr a;
	__u32 mask;
	int ret;

#define HOSTILE(field, bits) do {					\
		if (r && pct(r, 4))					\
			(field) = hostile32(r) & (bits);		\
	} while (0)

	memset(&a, 0, sizeof(a));
	a.qp_state = QPS_INIT;
	a.port_num = 1;
	a.qkey = UD_QKEY;
	a.qp_access_flags = XRDMA_UVERBS_ACCESS_LOCAL_WRITE |
			    XRDMA_UVERBS_ACCESS_REMOTE_WRITE |
			    XRDMA_UVERBS_ACCESS_REMOTE_READ |
			    XRDMA_UVERBS_ACCESS_REMOTE_ATOMIC;
	HOSTILE(a.port_num, 0xff);
	HOSTILE(a.qp_access_flags, 0xffffffff);
	HOSTILE(a.pkey_index, 0xffff);
	mask = QPA_STATE | QPA_PKEY | QPA_PORT;
	mask |= type == XRDMA_UVERBS_QPT_UD ? QPA_QKEY : QPA_ACCESS;
	ret = modify(fd, h, mask, &a);
	if (ret)
		return ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = QPS_RTR;
	mask = QPA_STATE;
	if (type != XRDMA_UVERBS_QPT_UD) {
		a.path_mtu = 1 + (r ? rn(r, 5) : 4);
		a.dest_qp_num = dqpn;
		a.rq_psn = 0x100;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 1;
		memcpy(a.ah_attr.dgid, dgid, 16);
		a.ah_attr.is_global = 1;
		a.ah_attr.port_num = 1;
		a.ah_attr.hop_limit = 64;
		HOSTILE(a.path_mtu, 0xff);
		HOSTILE(a.dest_qp_num, 0xffffffff);
		HOSTILE(a.max_dest_rd_atomic, 0xff);
		HOSTILE(a.ah_attr.sgid_index, 0xff);
		HOSTILE(a.ah_attr.port_num, 0xff);
		HOSTILE(a.ah_attr.is_global, 0xff);
		HOSTILE(a.min_rnr_timer, 0xff);
		mask |= QPA_AV | QPA_PATH_MTU | QPA_DEST_QPN | QPA_RQ_PSN;
		/* what IB requires: the responder's attributes */
		if (type == XRDMA_UVERBS_QPT_RC ||
		    type == XRDMA_UVERBS_QPT_XRC_RECV)
			mask |= QPA_MAX_DEST_RD | QPA_MIN_RNR;
	}
	ret = modify(fd, h, mask, &a);
	if (ret)
		return ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = QPS_RTS;
	a.sq_psn = 0x100;
	a.timeout = 10;
	a.retry_cnt = 3;
	a.rnr_retry = 3;
	a.max_rd_atomic = 1;
	HOSTILE(a.timeout, 0xff);
	HOSTILE(a.retry_cnt, 0xff);
	HOSTILE(a.rnr_retry, 0xff);
	HOSTILE(a.max_rd_atomic, 0xff);
	HOSTILE(a.sq_psn, 0xffffffff);
	mask = QPA_STATE | QPA_SQ_PSN;
	/* the requester's (an XRC target has only the timeout) */
	if (type == XRDMA_UVERBS_QPT_RC || type == XRDMA_UVERBS_QPT_XRC_SEND)
		mask |= QPA_TIMEOUT | QPA_RETRY | QPA_RNR_RETRY | QPA_MAX_RD;
	else if (type == XRDMA_UVERBS_QPT_XRC_RECV)
		mask |= QPA_TIMEOUT;
	return modify(fd, h, mask, &a);
#undef HOSTILE
}

/* set a QP's doorbell slot bits; return NEED_WAKEUP */
static int kick(int fd, __u32 qp_handle)
{
	struct xrdma_cmd_kick k = { .qp_handle = qp_handle };

	INC(st->kicks);
	return pio(fd, _IOC_NR(XRDMA_IOC_KICK), &k, sizeof(k));
}

/* a signaled RDMA WRITE, correctly posted */
static void pl_post_write(struct pctx *c, struct pqp *qp,
			  const struct xt_write *wr)
{
	__u32 log = qp->r.sq_log_wqe, shift = qp->r.sq_wqe_shift;
	__u8 *wqe = (__u8 *)qp->map + qp->r.sq_offset +
		    ((size_t)(qp->sq_pi & ((1u << log) - 1)) << shift);
	struct xnic_qp_dbrec *rec = (void *)((__u8 *)qp->map +
					     qp->r.dbrec_offset);
	struct xnic_wqe_ctrl *ctrl = xt_wqe_write(wqe, (size_t)1 << shift, wr);

	__atomic_store_n(&ctrl->owner, (__u8)((qp->sq_pi >> log) & 1),
			 __ATOMIC_RELEASE);
	qp->sq_pi++;
	__atomic_store_n(&rec->sq_pi, htole32(qp->sq_pi), __ATOMIC_RELEASE);
	if (xt_db_ring(c->db, qp->r.db_slot))
		kick(c->fd, 0);
}

static int pl_poll(struct pcq *cq, struct xnic_cqe *e)
{
	__u32 log = cq->r.log_cqe;
	struct xnic_cqe *ring = cq->map;
	struct xnic_cqe *x = &ring[cq->ci & ((1u << log) - 1)];
	struct xnic_cq_dbrec *rec = (void *)((__u8 *)cq->map +
					     cq->r.dbrec_offset);

	if (__atomic_load_n(&x->owner, __ATOMIC_ACQUIRE) !=
	    (((cq->ci >> log) & 1) ^ 1))
		return 0;
	*e = *x;
	cq->ci++;
	__atomic_store_n(&rec->ci, htole32(cq->ci), __ATOMIC_RELEASE);
	return 1;
}

static int query_dev(struct pctx *c)
{
	struct xrdma_cmd_query_device q = { 0 };
	struct xrdma_cmd_query_gid g = { .port_num = 1 };
	struct fdev *d = &devs[c->dev];
	int ret;

	ret = pio(c->fd, _IOC_NR(XRDMA_IOC_QUERY_DEVICE), &q, sizeof(q));
	if (!ret)
		ret = pio(c->fd, _IOC_NR(XRDMA_IOC_QUERY_GID), &g, sizeof(g));
	if (ret)
		return ret;
	memcpy(d->gid, g.gid, 16);
	d->max_sge = c->u.max_sge;
	d->max_inline = c->u.max_inline;
	d->max_cqe = q.max_cqe;
	d->max_qp_wr = q.max_qp_wr;
	d->rd_atom = q.max_qp_rd_atom;
	d->max_dm = q.max_dm_size;
	return 0;
}

/* ------------------------------------------------------------ the tables */

enum { S_FREE, S_LIVE, S_GONE };
/*
 * Table entries that are no kernel object, numbered above every
 * XRDMA_OBJ_* (they were 7 and 8 once, which XRDMA_OBJ_MW and
 * XRDMA_OBJ_DM took: DESTROY of an MW picked doorbell pages)
 */
#define O_DB	32		/* a context's doorbell page */
#define O_MAP	33		/* an extra mapping made by the mmap action */

/* a kernel object's type (XRDMA_OBJ_*), not O_DB or O_MAP */
static int kobj(int type)
{
	return type >= XRDMA_OBJ_PD && type <= XRDMA_OBJ_XRCD;
}

struct fobj {
	int state, type, ctx, dev, refs, unmap_req;
	int split;		/* mapping cut or partly read-only: garbage only */
	int clean;		/* a QP only correct work goes to (but garbage) */
	unsigned int gen;
	__u32 handle;
	void *map;
	size_t map_len;
	__u64 mmap_off;
	pthread_mutex_t plock;
	__u32 pd;		/* QP, SRQ, MR: its PD's handle */
	/* QP */
	__u32 qpn, qp_type, sq_pi, rq_pi, has_rq;
	int peer;		/* the QP it was connected to, or -1 */
	unsigned int peer_gen;
	int db_obj;
	unsigned int db_gen;
	struct xnic_create_qp_resp qr;
	/* CQ */
	struct xnic_create_cq_resp cr;
	__u32 ci, arm_sn;
	/* SRQ */
	struct xnic_create_srq_resp sr;
	__u32 pi, srq_type;
	/* MR; DM: len is its length */
	__u64 iova, len;
	__u32 lkey, rkey, access;
};

struct fctx {
	int state, fd, dev, refs, db_obj, async_fd, nchan;
	int async_extra;	/* IMPORT_CONTEXTs seen: one more async fd each */
	int chan[MAX_CHAN];
	unsigned int gen;
	struct xnic_ucontext_resp u;
};

static struct fctx ctxs[MAX_CTX];
static struct fobj objs[MAX_OBJ];
static struct {
	__u32 type, handle;
} stale[MAX_STALE];
static unsigned int stale_n, stale_next;
static pthread_mutex_t W = PTHREAD_MUTEX_INITIALIZER;
static int stopping;
static __u8 *arena, *ro_area;
static __u32 arena_size = ARENA_SIZE, arena_next;
static int devnull = -1;
/* two unlinked files whose inodes name XRC domains (OPEN_XRCD) */
static int xrcd_file[2] = { -1, -1 };
/* the same files opened read-only, for the xpeer process */
static int xrcd_ro[2] = { -1, -1 };
/* the fuzz process's end of the xpeer socket, or -1; P: one request */
static int peer_sock = -1;
static pthread_mutex_t P = PTHREAD_MUTEX_INITIALIZER;

struct kid {
	pid_t pid;
	struct timespec kill_at;
	int kill;
};

static struct kid kids[MAX_KIDS];

static int stopped(void)
{
	return __atomic_load_n(&stopping, __ATOMIC_RELAXED);
}

static void push_stale(__u32 type, __u32 handle)
{
	stale[stale_next].type = type;
	stale[stale_next].handle = handle;
	stale_next = (stale_next + 1) % MAX_STALE;
	if (stale_n < MAX_STALE)
		stale_n++;
}

/* under W: a free slot, zeroed, or -1 */
static int obj_alloc(int type, int ctx)
{
	int i;

	for (i = 0; i < MAX_OBJ; i++) {
		struct fobj *o = &objs[i];
		unsigned int gen;

		if (o->state != S_FREE)
			continue;
		gen = o->gen + 1;
		memset((__u8 *)o, 0, offsetof(struct fobj, plock));
		memset((__u8 *)o + offsetof(struct fobj, qpn), 0,
		       sizeof(*o) - offsetof(struct fobj, qpn));
		o->gen = gen;
		o->state = S_LIVE;
		o->type = type;
		o->ctx = ctx;
		o->dev = ctx >= 0 ? ctxs[ctx].dev : 0;
		o->db_obj = -1;
		o->peer = -1;
		return i;
	}
	return -1;
}

static int free_slots(void)
{
	int i, n = 0;

	for (i = 0; i < MAX_OBJ; i++)
		n += objs[i].state == S_FREE;
	return n;
}

/* under W: release what nobody uses any more */
static void obj_settle(struct fobj *o)
{
	if (o->refs)
		return;
	if (o->unmap_req && o->map) {
		munmap(o->map, o->map_len);
		o->map = NULL;
		o->unmap_req = 0;
	}
	if (o->state == S_GONE && !o->map)
		o->state = S_FREE;
}

/* under W: the object's handle no longer names it */
static void obj_gone(struct fobj *o)
{
	if (o->state != S_LIVE)
		return;
	o->state = S_GONE;
	if (kobj(o->type))
		push_stale(o->type, o->handle);
	obj_settle(o);
}

static void obj_put(int i)
{
	pthread_mutex_lock(&W);
	objs[i].refs--;
	obj_settle(&objs[i]);
	pthread_mutex_unlock(&W);
}

/* the end of an action on the rings of object @i: its plock if @locked */
static void obj_unlock_put(int i, int locked)
{
	if (locked)
		pthread_mutex_unlock(&objs[i].plock);
	obj_put(i);
}

/*
 * Pick a random object (reservoir) matching @type (0: any kernel object,
 * -1: anything with a mapping), state @state (S_LIVE, or -1 for LIVE or
 * GONE), context @ctx (-1: any) and, with @ref, take a reference.  Under W.
 */
static int pick_locked(struct wk *w, int type, int state, int ctx,
		       int need_map, int ref)
{
	int i, n = 0, pick = -1;

	for (i = 0; i < MAX_OBJ; i++) {
		struct fobj *o = &objs[i];

		if (o->state == S_FREE)
			continue;
		if (state >= 0 && o->state != state)
			continue;
		if (type > 0 && o->type != type)
			continue;
		if (!type && !kobj(o->type))
			continue;
		if (ctx >= 0 && o->ctx != ctx)
			continue;
		if (need_map && (!o->map || o->unmap_req))
			continue;
		if (!rn(&w->r, ++n))
			pick = i;
	}
	if (pick >= 0 && ref)
		objs[pick].refs++;
	return pick;
}

static int pick_obj(struct wk *w, int type, int state, int ctx, int need_map)
{
	int i;

	pthread_mutex_lock(&W);
	i = pick_locked(w, type, state, ctx, need_map, 1);
	pthread_mutex_unlock(&W);
	return i;
}

/* a handle to use in context @ctx where a @type is expected */
static __u32 pick_handle(struct wk *w, int ctx, int type)
{
	unsigned int r = w->hostile ? rn(&w->r, 100) : 0;
	__u32 h = 0;
	int i = -1;

	pthread_mutex_lock(&W);
	if (r < 74)
		i = pick_locked(w, type, S_LIVE, ctx, 0, 0);
	else if (r < 82 && stale_n)
		h = stale[rn(&w->r, stale_n)].handle;
	else if (r < 89)
		i = pick_locked(w, type, S_LIVE, -1, 0, 0);
	else if (r < 94)
		i = pick_locked(w, 0, S_LIVE, ctx, 0, 0);
	else if (r < 97)
		h = 0;
	else
		h = hostile32(&w->r);
	if (i >= 0)
		h = objs[i].handle;
	pthread_mutex_unlock(&W);
	return h;
}

/* under W: take a reference on a live context */
static int ctx_get_locked(struct wk *w)
{
	int i, n = 0, pick = -1;

	for (i = 0; i < MAX_CTX; i++)
		if (ctxs[i].state == S_LIVE && !rn(&w->r, ++n))
			pick = i;
	if (pick >= 0)
		ctxs[pick].refs++;
	return pick;
}

static int ctx_get(struct wk *w)
{
	int c;

	pthread_mutex_lock(&W);
	c = ctx_get_locked(w);
	pthread_mutex_unlock(&W);
	return c;
}

/* under W: close a context nobody uses; its objects are gone */
static void ctx_settle(int c)
{
	struct fctx *x = &ctxs[c];
	int i;

	if (x->state != S_GONE || x->refs)
		return;
	close(x->fd);
	for (i = 0; i < x->nchan; i++)
		close(x->chan[i]);
	if (x->async_fd >= 0)
		close(x->async_fd);
	for (i = 0; i < MAX_OBJ; i++)
		if (objs[i].state == S_LIVE && objs[i].ctx == c)
			obj_gone(&objs[i]);
	x->state = S_FREE;
	INC(st->closes);
}

static void ctx_put(int c)
{
	pthread_mutex_lock(&W);
	ctxs[c].refs--;
	ctx_settle(c);
	pthread_mutex_unlock(&W);
}

/*
 * An IMPORT_CONTEXT by this process on @fd that may have succeeded (0, or
 * EFAULT: the kernel may have imported before it failed to copy the answer
 * back): the context allows one more GET_ASYNC_FD.  Counting too many only
 * makes the GET_ASYNC_FD check more lenient.
 */
static void note_import(int fd)
{
	int c;

	pthread_mutex_lock(&W);
	for (c = 0; c < MAX_CTX; c++)
		if (ctxs[c].state == S_LIVE && ctxs[c].fd == fd)
			ctxs[c].async_extra++;
	pthread_mutex_unlock(&W);
}

/* find the live object (@type, @handle) of context @c; under W */
static struct fobj *find_obj(int c, __u32 type, __u32 handle)
{
	int i;

	for (i = 0; i < MAX_OBJ; i++)
		if (objs[i].state == S_LIVE && objs[i].ctx == c &&
		    objs[i].type == (int)type && objs[i].handle == handle)
			return &objs[i];
	return NULL;
}

/* map an object's queue memory; 0 or errno */
static int map_obj(struct fobj *o, int fd, __u64 off, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);

	if (p == MAP_FAILED)
		return errno;
	o->map = p;
	o->map_len = len;
	o->mmap_off = off;
	return 0;
}

/* ------------------------------------------------------------ contexts */

static int act_open(struct wk *w, int dev)
{
	struct xrdma_cmd_get_context *gc = (void *)w->cbuf;
	struct xrdma_cmd_alloc_pd pd = { 0 };
	struct xnic_ucontext_resp u;
	int c, fd, ret, pristine, i, have;

	if (dev < 0)
		dev = rn(&w->r, ndev);

	pthread_mutex_lock(&W);
	for (c = 0; c < MAX_CTX && ctxs[c].state != S_FREE; c++)
		;
	if (c == MAX_CTX) {
		pthread_mutex_unlock(&W);
		return 0;
	}
	ctxs[c].state = -1;	/* reserved */
	pthread_mutex_unlock(&W);

	fd = open(devs[dev].path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		ret = errno;
		goto fail;
	}
	/* a few commands before GET_CONTEXT: -EINVAL */
	if (pct(&w->r, 10)) {
		memset(w->cbuf, 0, sizeof(pd));
		fz_call(w, fd, _IOC_NR(XRDMA_IOC_ALLOC_PD), w->cbuf,
			sizeof(pd), 30, &pristine);
	}
	for (i = 0, have = 0; i < 3 && !have; i++) {
		memset(gc, 0, sizeof(*gc));
		fz_udata(w, &gc->udata, sizeof(u), !i);
		if (hz(w, 5))
			gc->flags = hostile32(&w->r);
		if (hz(w, 5))
			gc->reserved = hostile32(&w->r);
		ret = fz_call(w, fd, _IOC_NR(XRDMA_IOC_GET_CONTEXT), gc,
			      sizeof(*gc), i ? 0 : 15, &pristine);
		if (!ret && !(pristine && fz_udata_ok(&gc->udata, w, sizeof(u)))) {
			/* a context, but we did not get its data: drop it */
			close(fd);
			fd = open(devs[dev].path, O_RDWR | O_CLOEXEC);
			if (fd < 0) {
				ret = errno;
				goto fail;
			}
			continue;
		}
		have = !ret;
	}
	if (!have) {
		ret = ret ? ret : EINVAL;
		goto fail_fd;
	}
	memcpy(&u, w->resp, sizeof(u));
	memset(&pd, 0, sizeof(pd));
	ret = pio(fd, _IOC_NR(XRDMA_IOC_ALLOC_PD), &pd, sizeof(pd));
	if (ret)
		goto fail_fd;

	pthread_mutex_lock(&W);
	ctxs[c].fd = fd;
	ctxs[c].dev = dev;
	ctxs[c].refs = 0;
	ctxs[c].nchan = 0;
	ctxs[c].async_fd = -1;
	ctxs[c].u = u;
	ctxs[c].gen++;
	ctxs[c].state = S_LIVE;
	ctxs[c].db_obj = -1;
	i = obj_alloc(O_DB, c);
	if (i >= 0 && map_obj(&objs[i], fd, u.db_page_offset,
			      XNIC_DB_PAGE_SIZE)) {
		objs[i].state = S_FREE;
		i = -1;
	}
	ctxs[c].db_obj = i;
	i = obj_alloc(XRDMA_OBJ_PD, c);
	if (i >= 0)
		objs[i].handle = pd.pd_handle;
	pthread_mutex_unlock(&W);
	INC(st->opens);
	return 0;

fail_fd:
	close(fd);
fail:
	pthread_mutex_lock(&W);
	ctxs[c].state = S_FREE;
	pthread_mutex_unlock(&W);
	return ret;
}

static void act_close(struct wk *w)
{
	int c, i;

	pthread_mutex_lock(&W);
	c = ctx_get_locked(w);
	if (c < 0) {
		pthread_mutex_unlock(&W);
		return;
	}
	if (pct(&w->r, 60) && ctxs[c].nchan) {
		/* a completion channel only */
		i = rn(&w->r, ctxs[c].nchan);
		close(ctxs[c].chan[i]);
		ctxs[c].chan[i] = ctxs[c].chan[--ctxs[c].nchan];
	} else {
		ctxs[c].state = S_GONE;
		/*
		 * Hostile: the file goes away now, while other threads may
		 * be inside an ioctl on it; the fd number stays taken (by
		 * /dev/null) until they are done, so it is not reused.
		 */
		if (w->hostile && pct(&w->r, 50) && devnull >= 0 &&
		    dup2(devnull, ctxs[c].fd) >= 0)
			INC(st->abrupt);
	}
	ctxs[c].refs--;
	ctx_settle(c);
	pthread_mutex_unlock(&W);
}

/* ------------------------------------------------------------ ioctl action */

/* an MR buffer: mostly a piece of the arena, sometimes hostile */
/*
 * --disjoint-mrs: MRs never share a page (each gets fresh pages of the
 * arena, never reused), for kernels whose DMA-API debugging reports
 * overlapping DMA mappings.  Only hostile variants that cannot register
 * shared pages remain.
 */
static void pick_mr_disjoint(struct wk *w, __u64 *addr, __u64 *len,
			     __u64 *iova)
{
	__u32 n = 1 + rn(&w->r, 4), off;

	pthread_mutex_lock(&W);
	off = arena_next;
	if (off + n * PG <= arena_size)
		arena_next += n * PG;
	pthread_mutex_unlock(&W);
	if (off + n * PG > arena_size) {
		/* used up: the guard page, which fails */
		*addr = (__u64)(unsigned long)(arena + arena_size);
		*len = PG;
		*iova = *addr;
		return;
	}
	*addr = (__u64)(unsigned long)(arena + off + rn(&w->r, PG));
	*len = 1 + rn(&w->r, (__u32)((__u64)(unsigned long)arena + off +
				     n * PG - *addr));
	*iova = *addr;
	if (!hz(w, 15))
		return;
	switch (rn(&w->r, 5)) {
	case 0:
		*addr = (__u64)(unsigned long)(arena + arena_size - PG);
		*len = 2 * PG;
		break;
	case 1:
		*len = 0;
		break;
	case 2:
		*addr = hostile64(&w->r) | (1ull << 62);
		break;
	case 3:
		*iova = hostile64(&w->r);
		break;
	default:
		*iova = *addr + 1;
		break;
	}
}

static void pick_mr_range(struct wk *w, int c, __u64 *addr, __u64 *len,
			  __u64 *iova)
{
	__u32 off = rn(&w->r, ARENA_SIZE - PG);
	int i;

	if (opt.disjoint) {
		pick_mr_disjoint(w, addr, len, iova);
		return;
	}

	*addr = (__u64)(unsigned long)(arena + off);
	*len = 1 + rn(&w->r, pct(&w->r, 90) ? 64 * 1024 : ARENA_SIZE - off);
	if (*len > ARENA_SIZE - off)
		*len = ARENA_SIZE - off;
	*iova = *addr;
	if (hz(w, 15))
		*iova = (rnd(&w->r) & ~0xfffull) | (*addr & 0xfff);
	if (!hz(w, 15))
		return;
	switch (rn(&w->r, 8)) {
	case 0:		/* read-only memory */
		*addr = (__u64)(unsigned long)(ro_area + rn(&w->r, PG));
		*len = 1 + rn(&w->r, 64 * 1024);
		break;
	case 1:		/* running into the guard page */
		*addr = (__u64)(unsigned long)(arena + ARENA_SIZE - PG);
		*len = 2 * PG;
		break;
	case 2:		/* one of our device mappings */
		pthread_mutex_lock(&W);
		i = pick_locked(w, -1, -1, c, 1, 0);
		if (i >= 0) {
			*addr = (__u64)(unsigned long)objs[i].map;
			*len = objs[i].map_len;
		}
		pthread_mutex_unlock(&W);
		break;
	case 3:
		*len = 0;
		break;
	case 4:
		*len = hostile64(&w->r);
		break;
	case 5:
		*addr = hostile64(&w->r);
		break;
	case 6:
		*iova = hostile64(&w->r);
		break;
	default:
		*iova = *addr + 1;
		break;
	}
	*iova = pct(&w->r, 50) ? *iova : *addr;
}

static int chan_fd(struct wk *w, int c)
{
	int fd = -1, o;

	pthread_mutex_lock(&W);
	switch (rn(&w->r, 8)) {
	case 0:
		o = rn(&w->r, MAX_CTX);
		if (ctxs[o].state == S_LIVE && ctxs[o].nchan)
			fd = ctxs[o].chan[rn(&w->r, ctxs[o].nchan)];
		break;
	case 1:
		fd = ctxs[c].fd;
		break;
	case 2:
		fd = (int)hostile32(&w->r);
		break;
	case 3:
	case 4:
		if (ctxs[c].nchan)
			fd = ctxs[c].chan[rn(&w->r, ctxs[c].nchan)];
		break;
	default:
		break;
	}
	pthread_mutex_unlock(&W);
	return fd;
}

/* record a created object with its mapping; under nothing */
static void record(int c, int type, __u32 handle, __u32 pd,
		   const void *resp, size_t rlen, int have_resp, __u32 extra)
{
	struct fobj *o;
	__u64 off = 0;
	size_t len = 0;
	int i, fd;

	pthread_mutex_lock(&W);
	if (ctxs[c].state != S_LIVE) {
		pthread_mutex_unlock(&W);
		return;
	}
	fd = ctxs[c].fd;
	i = obj_alloc(type, c);
	if (i < 0) {
		pthread_mutex_unlock(&W);
		return;
	}
	o = &objs[i];
	o->handle = handle;
	o->pd = pd;
	if (type == XRDMA_OBJ_QP) {
		o->qpn = extra & 0xffffff;
		o->qp_type = extra >> 24;
	}
	if (type == XRDMA_OBJ_SRQ)
		o->srq_type = extra;
	if (have_resp) {
		switch (type) {
		case XRDMA_OBJ_CQ:
			memcpy(&o->cr, resp, rlen);
			off = o->cr.mmap_offset;
			len = o->cr.mmap_size;
			if (o->cr.log_cqe > 20 ||
			    o->cr.dbrec_offset + 8 > len ||
			    (sizeof(struct xnic_cqe) << o->cr.log_cqe) > len)
				len = 0;
			break;
		case XRDMA_OBJ_QP:
			memcpy(&o->qr, resp, rlen);
			off = o->qr.mmap_offset;
			len = o->qr.mmap_size;
			o->has_rq = o->qr.rq_log_wqe || o->qr.rq_wqe_shift;
			/* a third of the QPs carry correct traffic only */
			o->clean = !(o->qpn % 3);
			o->db_obj = ctxs[c].db_obj;
			if (o->db_obj >= 0)
				o->db_gen = objs[o->db_obj].gen;
			if (o->qr.sq_log_wqe > 16 || o->qr.sq_wqe_shift > 16 ||
			    o->qr.sq_wqe_shift < XNIC_SQ_WQE_MIN_SHIFT ||
			    o->qr.dbrec_offset + 8 > len)
				len = 0;
			break;
		case XRDMA_OBJ_SRQ:
			memcpy(&o->sr, resp, rlen);
			off = o->sr.mmap_offset;
			len = o->sr.mmap_size;
			if (o->sr.log_wqe > 16 || o->sr.wqe_shift > 16 ||
			    o->sr.dbrec_offset + 8 > len)
				len = 0;
			break;
		case XRDMA_OBJ_DM: {
			const struct xrdma_cmd_alloc_dm *dm = resp;

			o->len = dm->length;
			off = dm->mmap_offset;
			len = dm->mmap_length;
			if (len > (64u << 20) || len % PG)
				len = 0;
			break;
		}
		}
	}
	/* fails if another thread destroyed it already (a guessed handle) */
	if (len && map_obj(o, fd, off, len))
		INC(st->map_new_fail);
	pthread_mutex_unlock(&W);
}

static void fill_mr(int c, __u32 handle, __u64 iova, __u64 len, __u32 lkey,
		    __u32 rkey, __u32 access)
{
	struct fobj *o;

	pthread_mutex_lock(&W);
	o = find_obj(c, XRDMA_OBJ_MR, handle);
	if (o) {
		o->iova = iova;
		o->len = len;
		o->lkey = lkey;
		o->rkey = rkey;
		o->access = access;
	}
	pthread_mutex_unlock(&W);
}

/* a REREG_MR that succeeded: the MR's new keys, range and rights */
static void rereg_done(int c, const struct xrdma_cmd_rereg_mr *rr)
{
	struct fobj *o;

	pthread_mutex_lock(&W);
	o = find_obj(c, XRDMA_OBJ_MR, rr->mr_handle);
	if (o) {
		if (rr->flags & XRDMA_UVERBS_REREG_TRANS) {
			o->iova = rr->iova;
			o->len = rr->length;
		}
		if (rr->flags & XRDMA_UVERBS_REREG_ACCESS)
			o->access = rr->access;
		if (rr->flags & XRDMA_UVERBS_REREG_PD)
			o->pd = rr->pd_handle;
		o->lkey = rr->lkey;
		o->rkey = rr->rkey;
	}
	pthread_mutex_unlock(&W);
}

/*
 * A RESIZE_CQ that succeeded: the ring moved to a new mapping (unless
 * mmap_size is 0), the consumer index carried over.  The CQ's object takes
 * it when no action holds the object; else the new ring only gets garbage
 * (an extra mapping) and polls keep reading the old one, which the device
 * no longer writes.
 */
static void resize_done(int c, __u32 handle, const struct xnic_resize_cq_resp *r)
{
	struct fobj *o;
	void *p;
	int i, fd;

	if (!r->mmap_size || r->mmap_size > (64u << 20) || r->log_cqe > 20 ||
	    r->dbrec_offset + 8 > r->mmap_size ||
	    (sizeof(struct xnic_cqe) << r->log_cqe) > r->mmap_size)
		return;
	pthread_mutex_lock(&W);
	if (ctxs[c].state != S_LIVE) {
		pthread_mutex_unlock(&W);
		return;
	}
	fd = ctxs[c].fd;
	p = mmap(NULL, r->mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 r->mmap_offset);
	if (p == MAP_FAILED) {
		/* another thread destroyed the CQ meanwhile */
		INC(st->map_new_fail);
		pthread_mutex_unlock(&W);
		return;
	}
	o = find_obj(c, XRDMA_OBJ_CQ, handle);
	if (o && !o->refs && !o->split && !o->unmap_req) {
		if (o->map)
			munmap(o->map, o->map_len);
		o->map = p;
		o->map_len = r->mmap_size;
		o->mmap_off = r->mmap_offset;
		o->cr.mmap_offset = r->mmap_offset;
		o->cr.mmap_size = r->mmap_size;
		o->cr.log_cqe = r->log_cqe;
		o->cr.dbrec_offset = r->dbrec_offset;
		INC(st->resized);
		pthread_mutex_unlock(&W);
		return;
	}
	i = obj_alloc(O_MAP, c);
	if (i >= 0) {
		objs[i].map = p;
		objs[i].map_len = r->mmap_size;
		objs[i].mmap_off = r->mmap_offset;
		objs[i].state = S_GONE;	/* no handle; freed when unmapped */
	} else {
		munmap(p, r->mmap_size);
	}
	pthread_mutex_unlock(&W);
}

/* the length a live DM @handle of context @c was allocated with, or 0 */
static __u64 dm_len(int c, __u32 handle)
{
	struct fobj *o;
	__u64 len;

	pthread_mutex_lock(&W);
	o = find_obj(c, XRDMA_OBJ_DM, handle);
	len = o ? o->len : 0;
	pthread_mutex_unlock(&W);
	return len;
}

/* under W: the number of a live QP of @qp_type (any context), or -1 */
static int pick_qp_type_locked(struct wk *w, __u32 qp_type)
{
	int i, n = 0, pick = -1;

	for (i = 0; i < MAX_OBJ; i++)
		if (objs[i].state == S_LIVE && objs[i].type == XRDMA_OBJ_QP &&
		    objs[i].qp_type == qp_type && !rn(&w->r, ++n))
			pick = i;
	return pick;
}

/* an fd for OPEN_XRCD: mostly one of the two domain files */
static int xrcd_fd(struct wk *w, int c)
{
	if (!hz(w, 8))
		return xrcd_file[rn(&w->r, 2)];
	switch (rn(&w->r, 4)) {
	case 0:
		return ctxs[c].fd;	/* a uverbs file's inode */
	case 1:
		return devnull;
	case 2:
		return chan_fd(w, c);
	default:
		return (int)hostile32(&w->r);
	}
}

static void caps(struct wk *w, struct xrdma_uverbs_qp_cap *cap, int srq)
{
	cap->max_send_wr = 1 + rn(&w->r, 32);
	cap->max_recv_wr = srq ? 0 : 1 + rn(&w->r, 32);
	cap->max_send_sge = rn(&w->r, 5);
	cap->max_recv_sge = srq ? 0 : 1 + rn(&w->r, 4);
	cap->max_inline_data = pct(&w->r, 40) ? rn(&w->r, 256) : 0;
	if (hz(w, 4))
		cap->max_send_wr = hostile32(&w->r);
	if (hz(w, 4))
		cap->max_recv_wr = hostile32(&w->r);
	if (hz(w, 4))
		cap->max_send_sge = hostile32(&w->r);
	if (hz(w, 4))
		cap->max_recv_sge = hostile32(&w->r);
	if (hz(w, 4))
		cap->max_inline_data = hostile32(&w->r);
	if (hz(w, 3))
		cap->reserved = hostile32(&w->r);
}

static void ah_attr(struct wk *w, struct xrdma_uverbs_ah_attr *a, int dev)
{
	memcpy(a->dgid, devs[pct(&w->r, 80) ? dev : (int)rn(&w->r, ndev)].gid,
	       16);
	a->is_global = 1;
	a->port_num = 1;
	a->hop_limit = 64;
	if (hz(w, 10))
		a->dgid[rn(&w->r, 16)] = (__u8)rnd(&w->r);
	if (hz(w, 5))
		a->port_num = (__u8)hostile32(&w->r);
	if (hz(w, 5))
		a->sgid_index = (__u8)hostile32(&w->r);
	if (hz(w, 5))
		a->is_global = (__u8)hostile32(&w->r);
	if (hz(w, 3))
		a->reserved[rn(&w->r, 2)] = 1;
	if (hz(w, 5))
		a->flow_label = hostile32(&w->r);
}

/* 0x08 has weight 0: reserved (it was RESIZE_CQ); so have numbers unused */
static const unsigned int cmd_weight[NR_CMDS] = {
	1, 2, 2, 2, 4, 12, 10, 10, 0, 12, 12, 4, 5, 3, 2, 4, 3, 1, 5, 1,
	[0x14] = 3, [0x15] = 3, [0x16] = 3, [0x17] = 1, [0x18] = 3,
	[0x19] = 2, [0x1a] = 1, [0x1b] = 2, [0x1c] = 2, [0x1d] = 3,
	[0x1e] = 3, [0x1f] = 2,
};

static void act_ioctl(struct wk *w)
{
	union xt_cmd *u = (void *)w->cbuf;
	static const size_t sizes[NR_CMDS] = {
		sizeof(u->gc), sizeof(u->qd), sizeof(u->qpo), sizeof(u->qg),
		sizeof(u->pd), sizeof(u->d), sizeof(u->mr), sizeof(u->cq),
		0, sizeof(u->qp), sizeof(u->mqp),
		sizeof(u->qqp), sizeof(u->srq), sizeof(u->msrq),
		sizeof(u->qsrq), sizeof(u->ah), sizeof(u->fd), sizeof(u->fd),
		sizeof(u->kick), sizeof(struct xrdma_cmd_query_clock),
		[0x14] = sizeof(struct xrdma_cmd_alloc_mw),
		[0x16] = sizeof(struct xrdma_cmd_rereg_mr),
		[0x17] = sizeof(struct xrdma_cmd_reg_dmabuf_mr),
		[0x18] = sizeof(struct xrdma_cmd_mcast),
		[0x19] = sizeof(struct xrdma_cmd_mcast),
		[0x15] = sizeof(struct xrdma_cmd_resize_cq),
		[0x1a] = sizeof(struct xrdma_cmd_import_context),
		[0x1b] = sizeof(struct xrdma_cmd_query_object),
		[0x1c] = sizeof(struct xrdma_cmd_alloc_dm),
		[0x1d] = sizeof(struct xrdma_cmd_reg_dm_mr),
		[0x1e] = sizeof(struct xrdma_cmd_open_xrcd),
		[0x1f] = sizeof(struct xrdma_cmd_open_qp),
	};
	unsigned int nr, total = 0, x;
	int c, ret, pristine, fd, low, dev, c2 = -1, fresh = -1;
	__u64 addr = 0, len = 0, iova = 0;
	size_t size;

	c = ctx_get(w);
	if (c < 0)
		return;
	fd = ctxs[c].fd;
	dev = ctxs[c].dev;
	pthread_mutex_lock(&W);
	low = free_slots() < 48;
	pthread_mutex_unlock(&W);
	for (nr = 0; nr < NR_CMDS; nr++)
		total += cmd_weight[nr];
	x = rn(&w->r, total);
	for (nr = 0; x >= cmd_weight[nr]; nr++)
		x -= cmd_weight[nr];
	/* creating with few slots left: destroy instead */
	if (low && (nr == 4 || nr == 6 || nr == 7 || nr == 9 || nr == 12 ||
		    nr == 15 || nr == 0x14 || nr >= 0x1c))
		nr = _IOC_NR(XRDMA_IOC_DESTROY);
	memset(u, 0, 2 * PG);
	size = sizes[nr];

	switch (nr) {
	case 0x00:
		fz_udata(w, &u->gc.udata, sizeof(struct xnic_ucontext_resp), 1);
		break;
	case 0x01:
		if (hz(w, 10))
			u->qd.comp_mask = hostile32(&w->r);
		if (hz(w, 5))
			u->qd.reserved = hostile32(&w->r);
		break;
	case 0x02:
		u->qpo.port_num = !hz(w, 10) ? 1 : hostile32(&w->r);
		break;
	case 0x03:
		u->qg.port_num = !hz(w, 10) ? 1 : hostile32(&w->r);
		u->qg.index = !hz(w, 15) ? 0 : hostile32(&w->r);
		break;
	case 0x04:
		if (hz(w, 5))
			u->pd.flags = hostile32(&w->r);
		fz_udata(w, &u->pd.udata, 0, 1);
		break;
	case 0x05:
		u->d.type = 1 + rn(&w->r, XRDMA_OBJ_XRCD);
		if (hz(w, 5))
			u->d.type = hostile32(&w->r);
		u->d.handle = pick_handle(w, c, u->d.type);
		break;
	case 0x06:
		u->mr.pd_handle = pick_handle(w, c, XRDMA_OBJ_PD);
		u->mr.access = w->hostile ? rn(&w->r, 16) : 0xf;
		if (hz(w, 5))
			u->mr.access = hostile32(&w->r);
		if (hz(w, 3))
			u->mr.reserved = hostile32(&w->r);
		pick_mr_range(w, c, &addr, &len, &iova);
		u->mr.addr = addr;
		u->mr.length = len;
		u->mr.iova = iova;
		fz_udata(w, &u->mr.udata, 0, 1);
		break;
	case 0x07:
		u->cq.user_cookie = rnd(&w->r);
		u->cq.cqe = 1 + rn(&w->r, 128);
		if (hz(w, 6))
			u->cq.cqe = pct(&w->r, 50) ? devs[dev].max_cqe +
				    rn(&w->r, 2) : hostile32(&w->r);
		u->cq.channel_fd = chan_fd(w, c);
		if (hz(w, 4))
			u->cq.comp_vector = hostile32(&w->r);
		if (hz(w, 3))
			u->cq.flags = hostile32(&w->r);
		if (hz(w, 3))
			u->cq.reserved = hostile32(&w->r);
		fz_udata(w, &u->cq.udata, sizeof(struct xnic_create_cq_resp),
			 1);
		break;
	case 0x09:
		u->qp.user_cookie = rnd(&w->r);
		u->qp.pd_handle = pick_handle(w, c, XRDMA_OBJ_PD);
		u->qp.send_cq_handle = pick_handle(w, c, XRDMA_OBJ_CQ);
		u->qp.recv_cq_handle = pct(&w->r, 50) ?
			u->qp.send_cq_handle : pick_handle(w, c, XRDMA_OBJ_CQ);
		if (pct(&w->r, 20)) {
			u->qp.flags = XRDMA_UVERBS_CREATE_QP_SRQ;
			u->qp.srq_handle = pick_handle(w, c, XRDMA_OBJ_SRQ);
		}
		if (pct(&w->r, 20))
			u->qp.flags |= XRDMA_UVERBS_CREATE_QP_SQ_SIG_ALL;
		if (hz(w, 4))
			u->qp.flags = hostile32(&w->r);
		if (hz(w, 3))
			u->qp.srq_handle = hostile32(&w->r);
		x = rn(&w->r, 12);
		u->qp.qp_type = x < 6 ? XRDMA_UVERBS_QPT_RC : x < 8 ?
				 XRDMA_UVERBS_QPT_UD : x < 9 ?
				 XRDMA_UVERBS_QPT_UC : x < 10 ?
				 XRDMA_UVERBS_QPT_XRC_SEND : x < 11 ?
				 XRDMA_UVERBS_QPT_XRC_RECV : hostile32(&w->r);
		caps(w, &u->qp.cap, u->qp.flags & XRDMA_UVERBS_CREATE_QP_SRQ);
		if (u->qp.qp_type == XRDMA_UVERBS_QPT_XRC_SEND &&
		    !hz(w, 10)) {
			/* a send queue only */
			u->qp.recv_cq_handle = 0;
			u->qp.srq_handle = 0;
			u->qp.flags &= ~XRDMA_UVERBS_CREATE_QP_SRQ;
			u->qp.cap.max_recv_wr = 0;
			u->qp.cap.max_recv_sge = 0;
		} else if (u->qp.qp_type == XRDMA_UVERBS_QPT_XRC_RECV &&
			   !hz(w, 10)) {
			/* an XRCD and nothing else */
			memset(&u->qp.cap, 0, sizeof(u->qp.cap));
			u->qp.pd_handle = 0;
			u->qp.send_cq_handle = 0;
			u->qp.recv_cq_handle = 0;
			u->qp.srq_handle = 0;
			u->qp.flags = 0;
		}
		if (u->qp.qp_type == XRDMA_UVERBS_QPT_XRC_RECV || hz(w, 4))
			u->qp.xrcd_handle = pick_handle(w, c, XRDMA_OBJ_XRCD);
		if (hz(w, 3))
			u->qp.reserved2 = hostile32(&w->r);
		/* VER0 (no xrcd_handle) now and then, when it can do */
		if (!u->qp.xrcd_handle && !u->qp.reserved2 && pct(&w->r, 30))
			size = XRDMA_CMD_CREATE_QP_SIZE_VER0;
		fz_udata(w, &u->qp.udata, sizeof(struct xnic_create_qp_resp),
			 1);
		break;
	case 0x0a:
		u->mqp.qp_handle = pick_handle(w, c, XRDMA_OBJ_QP);
		u->mqp.attr_mask = (__u32)rnd(&w->r) & QPA_ALL;
		if (pct(&w->r, 50))
			u->mqp.attr_mask &= QPA_STATE | QPA_PKEY | QPA_PORT |
					    QPA_ACCESS | QPA_QKEY;
		if (hz(w, 4))
			u->mqp.attr_mask = hostile32(&w->r);
		u->mqp.attr.qp_state = rn(&w->r, 8);
		u->mqp.attr.cur_qp_state = rn(&w->r, 8);
		u->mqp.attr.path_mtu = rn(&w->r, 7);
		u->mqp.attr.qkey = !hz(w, 10) ? UD_QKEY : hostile32(&w->r);
		u->mqp.attr.rq_psn = hostile32(&w->r);
		u->mqp.attr.sq_psn = hostile32(&w->r);
		u->mqp.attr.dest_qp_num = pct(&w->r, 50) ? rn(&w->r, 64) :
					  hostile32(&w->r);
		u->mqp.attr.qp_access_flags = rn(&w->r, 16);
		caps(w, &u->mqp.attr.cap, 0);
		ah_attr(w, &u->mqp.attr.ah_attr, dev);
		u->mqp.attr.pkey_index = !hz(w, 10) ? 0 : rn(&w->r, 0x10000);
		u->mqp.attr.en_sqd_async_notify = rn(&w->r, 2);
		u->mqp.attr.max_rd_atomic = (__u8)hostile32(&w->r);
		u->mqp.attr.max_dest_rd_atomic = (__u8)hostile32(&w->r);
		u->mqp.attr.min_rnr_timer = rn(&w->r, 32);
		u->mqp.attr.port_num = !hz(w, 10) ? 1 : (__u8)rnd(&w->r);
		u->mqp.attr.timeout = rn(&w->r, 32);
		u->mqp.attr.retry_cnt = rn(&w->r, 8);
		u->mqp.attr.rnr_retry = rn(&w->r, 8);
		u->mqp.attr.path_mig_state = rn(&w->r, 3);
		if (hz(w, 3))
			u->mqp.attr.reserved[rn(&w->r, 4)] = 1;
		if (hz(w, 3))
			u->mqp.reserved = 1;
		fz_udata(w, &u->mqp.udata, 0, 1);
		break;
	case 0x0b:
		u->qqp.qp_handle = pick_handle(w, c, XRDMA_OBJ_QP);
		u->qqp.attr_mask = !hz(w, 10) ? QPA_ALL & ~BIT(14) :
				   hostile32(&w->r);
		break;
	case 0x0c:
		u->srq.user_cookie = rnd(&w->r);
		u->srq.pd_handle = pick_handle(w, c, XRDMA_OBJ_PD);
		u->srq.max_wr = 1 + rn(&w->r, 64);
		u->srq.max_sge = 1 + rn(&w->r, 4);
		u->srq.srq_limit = rn(&w->r, 8);
		if (hz(w, 5))
			u->srq.max_wr = hostile32(&w->r);
		if (hz(w, 5))
			u->srq.max_sge = hostile32(&w->r);
		if (hz(w, 5))
			u->srq.srq_limit = hostile32(&w->r);
		if (hz(w, 3))
			u->srq.reserved = 1;
		if (pct(&w->r, 25)) {
			/* XRC: its domain and the CQ its receives go to */
			u->srq.srq_type = XRDMA_UVERBS_SRQT_XRC;
			u->srq.xrcd_handle = pick_handle(w, c, XRDMA_OBJ_XRCD);
			u->srq.cq_handle = pick_handle(w, c, XRDMA_OBJ_CQ);
		} else if (hz(w, 4)) {
			/* a basic SRQ with XRC fields */
			u->srq.xrcd_handle = pick_handle(w, c, XRDMA_OBJ_XRCD);
			u->srq.cq_handle = pick_handle(w, c, XRDMA_OBJ_CQ);
		}
		if (hz(w, 4))
			u->srq.srq_type = hostile32(&w->r);
		if (hz(w, 3))
			u->srq.srq_num = hostile32(&w->r);	/* out */
		if (!u->srq.srq_type && !u->srq.xrcd_handle &&
		    !u->srq.cq_handle && !u->srq.srq_num && pct(&w->r, 30))
			size = XRDMA_CMD_CREATE_SRQ_SIZE_VER0;
		fz_udata(w, &u->srq.udata, sizeof(struct xnic_create_srq_resp),
			 1);
		break;
	case 0x0d:
		u->msrq.srq_handle = pick_handle(w, c, XRDMA_OBJ_SRQ);
		u->msrq.attr_mask = !hz(w, 5) ? rn(&w->r, 4) :
				    hostile32(&w->r);
		u->msrq.max_wr = pct(&w->r, 50) ? rn(&w->r, 128) :
				 hostile32(&w->r);
		u->msrq.srq_limit = pct(&w->r, 50) ? rn(&w->r, 16) :
				    hostile32(&w->r);
		fz_udata(w, &u->msrq.udata, 0, 1);
		break;
	case 0x0e:
		u->qsrq.srq_handle = pick_handle(w, c, XRDMA_OBJ_SRQ);
		break;
	case 0x0f:
		u->ah.user_cookie = rnd(&w->r);
		u->ah.pd_handle = pick_handle(w, c, XRDMA_OBJ_PD);
		ah_attr(w, &u->ah.attr, dev);
		if (hz(w, 3))
			u->ah.reserved = 1;
		fz_udata(w, &u->ah.udata, 0, 1);
		break;
	case 0x10:
	case 0x11:
		if (hz(w, 5))
			u->fd.flags = hostile32(&w->r);
		break;
	case 0x16: {
		struct xrdma_cmd_rereg_mr *rr = (void *)u;

		rr->mr_handle = pick_handle(w, c, XRDMA_OBJ_MR);
		rr->flags = 1 + rn(&w->r, 7);
		if (hz(w, 5))
			rr->flags = hostile32(&w->r);
		rr->pd_handle = pick_handle(w, c, XRDMA_OBJ_PD);
		rr->access = w->hostile ? rn(&w->r, 16) : 0xf;
		if (hz(w, 5))
			rr->access = hostile32(&w->r);
		if (hz(w, 3))
			rr->reserved = rnd(&w->r);
		pick_mr_range(w, c, &addr, &len, &iova);
		rr->addr = addr;
		rr->length = len;
		rr->iova = iova;
		break;
	}
	case 0x17: {
		struct xrdma_cmd_reg_dmabuf_mr *dm = (void *)u;

		/* no dmabuf here: fds of every other kind, and none */
		dm->pd_handle = pick_handle(w, c, XRDMA_OBJ_PD);
		dm->access = w->hostile ? rn(&w->r, 16) : 0xf;
		dm->fd = pct(&w->r, 50) ? fd : (int)hostile32(&w->r);
		dm->offset = rnd(&w->r) & (hz(w, 3) ? ~0ULL : 0xffff);
		dm->length = 1 + rn(&w->r, 1 << 20);
		dm->iova = dm->offset;
		if (hz(w, 3))
			dm->reserved = rnd(&w->r);
		fz_udata(w, &dm->udata, 0, 1);
		break;
	}
	case 0x13: {
		struct xrdma_cmd_query_clock *qc = (void *)u;

		if (hz(w, 4))
			qc->comp_mask = hostile32(&w->r);
		if (hz(w, 4))
			qc->reserved = hostile32(&w->r);
		break;
	}
	case 0x18:
	case 0x19: {
		/* a UD QP or another object; mostly a multicast GID */
		struct xrdma_cmd_mcast *mc = (void *)u;

		mc->qp_handle = pick_handle(w, c, XRDMA_OBJ_QP);
		if (pct(&w->r, 70)) {
			mc->gid[0] = 0xff;
			mc->gid[15] = rn(&w->r, 4);
		} else {
			for (x = 0; x < sizeof(mc->gid); x++)
				mc->gid[x] = rn(&w->r, 256);
		}
		mc->lid = rn(&w->r, 65536);
		if (hz(w, 4))
			mc->reserved = 1;
		break;
	}
	case 0x14: {
		struct xrdma_cmd_alloc_mw *am = (void *)u;

		am->pd_handle = pick_handle(w, c, XRDMA_OBJ_PD);
		am->type = 1 + rn(&w->r, 2);
		if (hz(w, 5))
			am->type = hostile32(&w->r);
		if (hz(w, 5))
			am->reserved[rn(&w->r, 2)] = 1;
		fz_udata(w, &am->udata, 0, 1);
		break;
	}
	case 0x15: {
		struct xrdma_cmd_resize_cq *rc = (void *)u;

		rc->cq_handle = pick_handle(w, c, XRDMA_OBJ_CQ);
		rc->cqe = 1 + rn(&w->r, pct(&w->r, 80) ? 256 : 4096);
		if (hz(w, 6))
			rc->cqe = pct(&w->r, 50) ? devs[dev].max_cqe +
				  rn(&w->r, 2) : hostile32(&w->r);
		if (hz(w, 3))
			rc->flags = hostile32(&w->r);
		if (hz(w, 3))
			rc->reserved = hostile32(&w->r);
		fz_udata(w, &rc->udata, sizeof(struct xnic_resize_cq_resp), 1);
		break;
	}
	case 0x1a: {
		/*
		 * On this context's fd (the opener imports again: one more
		 * async fd), another context's, or a new fd without a
		 * context (-EINVAL).  Children import the parent's fds
		 * (act_fork).
		 */
		struct xrdma_cmd_import_context *im = (void *)u;

		x = rn(&w->r, 10);
		if (x >= 6 && x < 8) {
			c2 = ctx_get(w);
			if (c2 >= 0)
				fd = ctxs[c2].fd;
		} else if (x >= 8) {
			fresh = open(devs[rn(&w->r, ndev)].path,
				     O_RDWR | O_CLOEXEC);
			if (fresh >= 0)
				fd = fresh;
		}
		if (hz(w, 4))
			im->flags = hostile32(&w->r);
		if (hz(w, 4))
			im->reserved = hostile32(&w->r);
		if (hz(w, 3))
			im->abi_version = hostile32(&w->r);	/* out */
		fz_udata(w, &im->udata, sizeof(struct xnic_ucontext_resp), 1);
		break;
	}
	case 0x1b: {
		struct xrdma_cmd_query_object *qo = (void *)u;

		qo->type = pct(&w->r, 60) ? XRDMA_OBJ_MR : XRDMA_OBJ_PD;
		if (hz(w, 8))
			qo->type = pct(&w->r, 70) ?
				   1 + rn(&w->r, XRDMA_OBJ_XRCD) :
				   hostile32(&w->r);
		qo->handle = pick_handle(w, c, qo->type);
		if (hz(w, 3))
			qo->flags = hostile32(&w->r);
		if (hz(w, 3))
			qo->reserved = hostile32(&w->r);
		if (hz(w, 3)) {
			/* output fields must come in as 0 */
			switch (rn(&w->r, 6)) {
			case 0:
				qo->pd_handle = hostile32(&w->r);
				break;
			case 1:
				qo->iova = hostile64(&w->r);
				break;
			case 2:
				qo->length = hostile64(&w->r);
				break;
			case 3:
				qo->lkey = hostile32(&w->r);
				break;
			case 4:
				qo->rkey = hostile32(&w->r);
				break;
			default:
				qo->access = hostile32(&w->r);
				break;
			}
		}
		break;
	}
	case 0x1c: {
		struct xrdma_cmd_alloc_dm *ad = (void *)u;
		__u64 max = devs[dev].max_dm;

		/* xnic: 128 KiB in pages; an eighth leaves room for many */
		ad->length = 1 + rn(&w->r, max ? (__u32)(max < 65536 ? max : 65536) / 8 + 1 :
					   4096);
		if (max && pct(&w->r, 3))
			ad->length = max;
		if (hz(w, 6)) {
			switch (rn(&w->r, 3)) {
			case 0:
				ad->length = 0;
				break;
			case 1:
				ad->length = max + 1;
				break;
			default:
				ad->length = hostile64(&w->r);
				break;
			}
		}
		ad->log_align_req = rn(&w->r, 13);
		if (hz(w, 5))
			ad->log_align_req = pct(&w->r, 50) ? 64 - rn(&w->r, 8) :
					    hostile32(&w->r);
		if (hz(w, 3))
			ad->comp_mask = hostile32(&w->r);
		if (hz(w, 3))
			ad->reserved = hostile32(&w->r);
		break;
	}
	case 0x1d: {
		/* mostly a range inside a DM of this context */
		struct xrdma_cmd_reg_dm_mr *dr = (void *)u;
		__u64 dlen;

		dr->pd_handle = pick_handle(w, c, XRDMA_OBJ_PD);
		dr->dm_handle = pick_handle(w, c, XRDMA_OBJ_DM);
		dlen = dm_len(c, dr->dm_handle);
		if (!dlen)
			dlen = 1 + rn(&w->r, 8192);
		dr->offset = pct(&w->r, 50) ? 0 :
			     rn(&w->r, (__u32)(dlen < 65536 ? dlen : 65536));
		dr->length = 1 + rn(&w->r, (__u32)(dlen - dr->offset > 65536 ?
						   65536 : dlen - dr->offset));
		dr->access = w->hostile ? rn(&w->r, 16) : 0x7;
		if (hz(w, 5))
			dr->access = hostile32(&w->r);
		if (hz(w, 6)) {
			switch (rn(&w->r, 5)) {
			case 0:
				dr->length = 0;
				break;
			case 1:
				dr->length = dlen - dr->offset + 1;
				break;
			case 2:
				dr->offset = dlen;
				break;
			case 3:
				dr->offset = hostile64(&w->r);
				break;
			default:
				dr->length = hostile64(&w->r);
				break;
			}
		}
		if (hz(w, 3))
			dr->mr_handle = hostile32(&w->r);	/* out */
		break;
	}
	case 0x1e: {
		/* a domain of this context only, or of one of the files */
		struct xrdma_cmd_open_xrcd *ox = (void *)u;

		if (pct(&w->r, 30)) {
			ox->fd = -1;
		} else {
			ox->fd = xrcd_fd(w, c);
			x = rn(&w->r, 10);
			ox->oflags = x < 6 ? O_CREAT : x < 8 ?
				     O_CREAT | O_EXCL : 0;
		}
		if (hz(w, 5))
			ox->oflags = pct(&w->r, 50) ?
				     ox->oflags | 1u << rn(&w->r, 32) :
				     hostile32(&w->r);
		if (hz(w, 3))
			ox->reserved = hostile32(&w->r);
		break;
	}
	case 0x1f: {
		/* a new handle to an XRC_RECV QP, of any context */
		struct xrdma_cmd_open_qp *oq = (void *)u;
		int q;

		oq->user_cookie = rnd(&w->r);
		oq->xrcd_handle = pick_handle(w, c, XRDMA_OBJ_XRCD);
		pthread_mutex_lock(&W);
		q = pick_qp_type_locked(w, XRDMA_UVERBS_QPT_XRC_RECV);
		if (q < 0 || hz(w, 10))
			q = pick_locked(w, XRDMA_OBJ_QP, -1, -1, 0, 0);
		oq->qpn = q >= 0 ? objs[q].qpn : rn(&w->r, 64);
		pthread_mutex_unlock(&W);
		if (hz(w, 5))
			oq->qpn = hostile32(&w->r);
		oq->qp_type = XRDMA_UVERBS_QPT_XRC_RECV;
		if (hz(w, 5))
			oq->qp_type = pct(&w->r, 50) ? rn(&w->r, 12) :
				      hostile32(&w->r);
		if (hz(w, 3))
			oq->qp_handle = hostile32(&w->r);	/* out */
		break;
	}
	default:
		u->kick.qp_handle = pct(&w->r, 40) ? 0 :
				 pick_handle(w, c, XRDMA_OBJ_QP);
		if (hz(w, 4))
			u->kick.flags = hostile32(&w->r);
		INC(st->kicks);
		break;
	}
	/* now and then the command goes to a channel or the async fd */
	if (hz(w, 2)) {
		int alt = chan_fd(w, c);

		if (alt >= 0)
			fd = alt;
	}
	ret = fz_call(w, fd, nr, u, size, 20, &pristine);
	if (nr == 0x1a && !ret && pristine) {
		const struct xrdma_cmd_import_context *im = (void *)u;

		INC(st->imports);
		if (fd == fresh)
			fuzz_fail("IMPORT_CONTEXT on an fd without a context succeeded");
		else if (im->abi_version != XRDMA_ABI_VERSION)
			fuzz_fail("IMPORT_CONTEXT: abi_version %u", im->abi_version);
		else if (fd == ctxs[c].fd &&
			 fz_udata_ok(&im->udata, w, sizeof(ctxs[c].u)) &&
			 memcmp(w->resp, &ctxs[c].u, sizeof(ctxs[c].u)))
			fuzz_fail("IMPORT_CONTEXT's driver data differ from GET_CONTEXT's");
	}
	if (c2 >= 0)
		ctx_put(c2);
	if (fresh >= 0)
		close(fresh);
	if (ret || !pristine || fd != ctxs[c].fd)
		goto out;

	switch (nr) {
	case 0x04:
		record(c, XRDMA_OBJ_PD, u->pd.pd_handle, 0, NULL, 0, 0, 0);
		break;
	case 0x05:
		pthread_mutex_lock(&W);
		{
			struct fobj *o = find_obj(c, u->d.type, u->d.handle);

			if (o)
				obj_gone(o);
		}
		pthread_mutex_unlock(&W);
		break;
	case 0x16:
		rereg_done(c, (void *)u);
		break;
	case 0x14: {
		struct xrdma_cmd_alloc_mw *am = (void *)u;

		record(c, XRDMA_OBJ_MW, am->mw_handle, am->pd_handle, NULL, 0,
		       0, 0);
		break;
	}
	case 0x06:
		record(c, XRDMA_OBJ_MR, u->mr.mr_handle, u->mr.pd_handle, NULL, 0, 0, 0);
		fill_mr(c, u->mr.mr_handle, u->mr.iova, u->mr.length,
			u->mr.lkey, u->mr.rkey, u->mr.access);
		break;
	case 0x07:
		record(c, XRDMA_OBJ_CQ, u->cq.cq_handle, 0, w->resp,
		       sizeof(struct xnic_create_cq_resp),
		       fz_udata_ok(&u->cq.udata, w,
				   sizeof(struct xnic_create_cq_resp)), 0);
		break;
	case 0x09:
		record(c, XRDMA_OBJ_QP, u->qp.qp_handle, u->qp.pd_handle,
		       w->resp,
		       sizeof(struct xnic_create_qp_resp),
		       fz_udata_ok(&u->qp.udata, w,
				   sizeof(struct xnic_create_qp_resp)),
		       (u->qp.qpn & 0xffffff) | (u->qp.qp_type << 24));
		break;
	case 0x0c:
		record(c, XRDMA_OBJ_SRQ, u->srq.srq_handle, u->srq.pd_handle,
		       w->resp,
		       sizeof(struct xnic_create_srq_resp),
		       fz_udata_ok(&u->srq.udata, w,
				   sizeof(struct xnic_create_srq_resp)),
		       size > XRDMA_CMD_CREATE_SRQ_SIZE_VER0 ?
		       u->srq.srq_type : 0);
		break;
	case 0x15:
		if (fz_udata_ok(&((struct xrdma_cmd_resize_cq *)u)->udata, w,
				sizeof(struct xnic_resize_cq_resp)))
			resize_done(c, ((struct xrdma_cmd_resize_cq *)u)->cq_handle,
				    (void *)w->resp);
		break;
	case 0x1b: {
		const struct xrdma_cmd_query_object *qo = (void *)u;

		if (qo->type != XRDMA_OBJ_PD && qo->type != XRDMA_OBJ_MR)
			fuzz_fail("QUERY_OBJECT of type %u succeeded", qo->type);
		else if (qo->type == XRDMA_OBJ_MR && !qo->pd_handle)
			fuzz_fail("QUERY_OBJECT of MR %u: no PD", qo->handle);
		break;
	}
	case 0x1c: {
		const struct xrdma_cmd_alloc_dm *ad = (void *)u;

		if (ad->mmap_length < ad->length)
			fuzz_fail("ALLOC_DM of %llu bytes maps %llu",
				  (unsigned long long)ad->length,
				  (unsigned long long)ad->mmap_length);
		record(c, XRDMA_OBJ_DM, ad->dm_handle, 0, ad, sizeof(*ad), 1,
		       0);
		break;
	}
	case 0x1d: {
		const struct xrdma_cmd_reg_dm_mr *dr = (void *)u;

		/* zero-based: the data path addresses it from 0 */
		record(c, XRDMA_OBJ_MR, dr->mr_handle, dr->pd_handle, NULL, 0,
		       0, 0);
		fill_mr(c, dr->mr_handle, 0, dr->length, dr->lkey, dr->rkey,
			dr->access);
		break;
	}
	case 0x1e:
		record(c, XRDMA_OBJ_XRCD,
		       ((struct xrdma_cmd_open_xrcd *)u)->xrcd_handle, 0, NULL,
		       0, 0, 0);
		break;
	case 0x1f: {
		const struct xrdma_cmd_open_qp *oq = (void *)u;

		record(c, XRDMA_OBJ_QP, oq->qp_handle, 0, NULL, 0, 0,
		       (oq->qpn & 0xffffff) | (oq->qp_type << 24));
		break;
	}
	case 0x0f:
		record(c, XRDMA_OBJ_AH, u->ah.ah_handle, 0, NULL, 0, 0, 0);
		break;
	case 0x10:
	case 0x11:
		pthread_mutex_lock(&W);
		if (ctxs[c].state != S_LIVE || (nr == 0x10 &&
						ctxs[c].nchan == MAX_CHAN)) {
			close(u->fd.fd);
		} else if (nr == 0x10) {
			ctxs[c].chan[ctxs[c].nchan++] = u->fd.fd;
		} else {
			if (ctxs[c].async_fd < 0) {
				ctxs[c].async_fd = u->fd.fd;
			} else if (ctxs[c].async_extra) {
				/* allowed by an IMPORT_CONTEXT */
				ctxs[c].async_extra--;
				close(u->fd.fd);
			} else {
				fuzz_fail("GET_ASYNC_FD succeeded twice");
				close(u->fd.fd);
			}
		}
		pthread_mutex_unlock(&W);
		break;
	}
out:
	ctx_put(c);
}

/* ------------------------------------------------------------ connect */

/*
 * To RESET, where the device forgets the queues' indexes: so do we (if no
 * other thread is posting), and the doorbell record starts from 0 again.
 */
static void qp_reset(struct fobj *q, int fd)
{
	struct xrdma_uverbs_qp_attr a = { 0 };
	struct xnic_qp_dbrec *rec;
	sigjmp_buf jb;

	if (pthread_mutex_trylock(&q->plock))
		return;
	if (!modify(fd, q->handle, QPA_STATE, &a) && !q->split) {
		q->sq_pi = 0;
		q->rq_pi = 0;
		if (q->map && !sigsetjmp(jb, 1)) {
			guard = &jb;
			rec = (void *)((__u8 *)q->map + q->qr.dbrec_offset);
			__atomic_store_n(&rec->sq_pi, 0, __ATOMIC_RELEASE);
			__atomic_store_n(&rec->rq_pi, 0, __ATOMIC_RELEASE);
		}
		guard = NULL;
	}
	pthread_mutex_unlock(&q->plock);
}

static void act_connect(struct wk *w)
{
	int q, t, c, fd, st_ok;
	__u32 h, type, dqpn, tdev;

	q = pick_obj(w, XRDMA_OBJ_QP, S_LIVE, -1, 0);
	if (q < 0)
		return;
	pthread_mutex_lock(&W);
	c = objs[q].ctx;
	st_ok = ctxs[c].state == S_LIVE;
	if (st_ok)
		ctxs[c].refs++;
	fd = ctxs[c].fd;
	h = objs[q].handle;
	type = objs[q].qp_type;
	dqpn = objs[q].qpn;
	tdev = objs[q].dev;
	/* a peer: itself, or any QP; clean QPs loop back to themselves */
	t = q;
	if (objs[q].clean)
		w->hostile = 0;
	if (!objs[q].clean && pct(&w->r, 60)) {
		t = pick_locked(w, XRDMA_OBJ_QP, S_LIVE, -1, 0, 0);
		if (t >= 0) {
			dqpn = objs[t].qpn;
			tdev = objs[t].dev;
		}
	}
	objs[q].peer = t;
	objs[q].peer_gen = t >= 0 ? objs[t].gen : 0;
	pthread_mutex_unlock(&W);
	if (!st_ok) {
		obj_put(q);
		return;
	}
	if (!w->hostile || pct(&w->r, 50))
		qp_reset(&objs[q], fd);
	if (hz(w, 8)) {
		/* somewhere else: ERR, RESET, SQD, or nowhere */
		struct xrdma_uverbs_qp_attr a = { 0 };

		a.qp_state = pct(&w->r, 80) ? rn(&w->r, 7) : hostile32(&w->r);
		modify(fd, h, QPA_STATE, &a);
	} else {
		connect_qp(fd, h, type, devs[tdev % ndev].gid, dqpn,
			   w->hostile ? &w->r : NULL);
	}
	obj_put(q);
	ctx_put(c);
}

/* ------------------------------------------------------------ data path */

struct keyinfo {
	__u64 iova, len;
	__u32 lkey, rkey;
};

/* under W: a live MR of context @ctx and PD @pd, or -1 */
static int pick_mr_pd(struct wk *w, int ctx, __u32 pd)
{
	int i, n = 0, pick = -1;

	for (i = 0; i < MAX_OBJ; i++)
		if (objs[i].state == S_LIVE && objs[i].type == XRDMA_OBJ_MR &&
		    objs[i].ctx == ctx && objs[i].pd == pd && objs[i].lkey &&
		    !rn(&w->r, ++n))
			pick = i;
	return pick;
}

/*
 * Keys of an MR: in a clean action a live one of context @ctx and PD @pd;
 * else also dead ones, other PDs and contexts, and mangled keys.
 */
static void pick_key(struct wk *w, int ctx, __u32 pd, struct keyinfo *k)
{
	int i = -1;

	memset(k, 0, sizeof(*k));
	pthread_mutex_lock(&W);
	if (!hz(w, 15))
		i = pick_mr_pd(w, ctx, pd);
	if (i < 0)
		i = pick_locked(w, XRDMA_OBJ_MR, !hz(w, 8) ? S_LIVE : -1,
				!hz(w, 10) ? ctx : -1, 0, 0);
	if (i >= 0) {
		k->iova = objs[i].iova;
		k->len = objs[i].len;
		k->lkey = objs[i].lkey;
		k->rkey = objs[i].rkey;
	}
	pthread_mutex_unlock(&W);
	if (hz(w, 8))
		k->lkey = pct(&w->r, 50) ? k->lkey + 0x100 : hostile32(&w->r);
	if (hz(w, 8))
		k->rkey = pct(&w->r, 50) ? k->rkey ^ (1u << rn(&w->r, 8)) :
			  hostile32(&w->r);
}

/* an address and length inside (mostly) the MR */
static void pick_span(struct wk *w, const struct keyinfo *k, __u64 *addr,
		      __u32 *len)
{
	__u64 max = k->len ? k->len : 4096;
	__u64 off = rn(&w->r, (__u32)(max > 65536 ? 65536 : max));

	*addr = k->iova + off;
	*len = 1 + rn(&w->r, (__u32)(max - off > 8192 ? 8192 : max - off));
	if (pct(&w->r, 4))	/* bulk: to the end of the MR */
		*len = (__u32)(max - off > (1u << 24) ? 1u << 24 : max - off);
	if (!w->hostile)
		return;
	if (hz(w, 8))
		*len = pct(&w->r, 50) ? (__u32)(max - off + 1) :
		       hostile32(&w->r);
	if (hz(w, 6))
		*addr = pct(&w->r, 50) ? k->iova - 1 - rn(&w->r, 64) :
			hostile64(&w->r);
}

/*
 * a scatter element: a span of a key of @ctx and @pd (for an @atomic, in a
 * clean action, the first 8 bytes of the key)
 */
static void pick_sge(struct wk *w, int ctx, __u32 pd, int atomic,
		     struct xnic_sge *sge)
{
	struct keyinfo k;
	__u64 addr;
	__u32 len;

	pick_key(w, ctx, pd, &k);
	pick_span(w, &k, &addr, &len);
	if (atomic && !w->hostile) {
		len = 8;
		addr = k.iova;
	}
	sge->addr = htole64(addr);
	sge->length = htole32(len);
	sge->lkey = htole32(k.lkey);
}

static const __u8 wqe_ops[] = {
	XNIC_OP_RDMA_WRITE, XNIC_OP_RDMA_WRITE, XNIC_OP_RDMA_WRITE_WITH_IMM,
	XNIC_OP_SEND, XNIC_OP_SEND, XNIC_OP_SEND_WITH_IMM, XNIC_OP_RDMA_READ,
	XNIC_OP_RDMA_READ, XNIC_OP_ATOMIC_CMP_AND_SWP,
	XNIC_OP_ATOMIC_FETCH_AND_ADD, XNIC_OP_LOCAL_INV,
	XNIC_OP_SEND_WITH_INV, XNIC_OP_REG_MR, XNIC_OP_NOP,
};

/* what a correct user of each QP type posts */
static const __u8 clean_rc[] = {
	XNIC_OP_RDMA_WRITE, XNIC_OP_RDMA_WRITE, XNIC_OP_RDMA_WRITE_WITH_IMM,
	XNIC_OP_SEND, XNIC_OP_SEND, XNIC_OP_SEND_WITH_IMM, XNIC_OP_RDMA_READ,
	XNIC_OP_RDMA_READ, XNIC_OP_ATOMIC_CMP_AND_SWP,
	XNIC_OP_ATOMIC_FETCH_AND_ADD, XNIC_OP_NOP,
};

static const __u8 clean_uc[] = {
	XNIC_OP_RDMA_WRITE, XNIC_OP_RDMA_WRITE_WITH_IMM, XNIC_OP_SEND,
	XNIC_OP_SEND_WITH_IMM,
};

static const __u8 clean_ud[] = { XNIC_OP_SEND, XNIC_OP_SEND_WITH_IMM };

static __u8 pick_op(struct wk *w, __u32 qp_type)
{
	if (w->hostile)
		return !hz(w, 4) ? wqe_ops[rn(&w->r, ARRAY_SIZE(wqe_ops))] :
		       (__u8)rnd(&w->r);
	if (qp_type == XRDMA_UVERBS_QPT_UD)
		return clean_ud[rn(&w->r, ARRAY_SIZE(clean_ud))];
	if (qp_type == XRDMA_UVERBS_QPT_UC)
		return clean_uc[rn(&w->r, ARRAY_SIZE(clean_uc))];
	return clean_rc[rn(&w->r, ARRAY_SIZE(clean_rc))];
}

/* under W: a live UD QP (any QP in a hostile action), or -1 */
static int pick_ud_locked(struct wk *w)
{
	int i, n = 0, pick = -1;

	if (w->hostile)
		return pick_locked(w, XRDMA_OBJ_QP, -1, -1, 0, 0);
	for (i = 0; i < MAX_OBJ; i++)
		if (objs[i].state == S_LIVE && objs[i].type == XRDMA_OBJ_QP &&
		    objs[i].qp_type == XRDMA_UVERBS_QPT_UD && !rn(&w->r, ++n))
			pick = i;
	return pick;
}

/*
 * under W: the number of a live XRC SRQ whose driver data we have (any
 * SRQ in a hostile action), or -1
 */
static int pick_xrc_srq_locked(struct wk *w)
{
	int i, n = 0, pick = -1;

	if (w->hostile && pct(&w->r, 30))
		return pick_locked(w, XRDMA_OBJ_SRQ, -1, -1, 0, 0);
	for (i = 0; i < MAX_OBJ; i++)
		if (objs[i].state == S_LIVE && objs[i].type == XRDMA_OBJ_SRQ &&
		    objs[i].srq_type == XRDMA_UVERBS_SRQT_XRC &&
		    objs[i].map && !rn(&w->r, ++n))
			pick = i;
	return pick;
}

/* write one send WQE (owner last); return its opcode */
static __u8 build_swqe(struct wk *w, struct fobj *q, __u8 *wqe, __u32 pi,
		       int ctx)
{
	__u32 log = q->qr.sq_log_wqe, size = 1u << q->qr.sq_wqe_shift;
	struct xnic_wqe_ctrl *ctrl = (void *)wqe;
	struct xnic_wqe_remote *rem = (void *)(wqe + XNIC_WQE_REMOTE_OFF);
	struct xnic_wqe_atomic *at = (void *)(wqe + XNIC_WQE_ATOMIC_OFF);
	struct xnic_wqe_ud *ud = (void *)(wqe + XNIC_WQE_UD_OFF);
	struct xnic_wqe_fr *fr = (void *)(wqe + XNIC_WQE_FR_OFF);
	struct xnic_sge *sge = (void *)(wqe + XNIC_WQE_DATA_OFF);
	__u32 max_sge = (size - XNIC_WQE_DATA_OFF) / sizeof(*sge), i, n, len;
	struct keyinfo k;
	__u64 addr;
	__u8 op, owner = (pi >> log) & 1;
	int t, rctx = ctx, atomic;
	__u32 rpd = q->pd;

	memset(wqe, 0, offsetof(struct xnic_wqe_ctrl, owner));
	memset(wqe + offsetof(struct xnic_wqe_ctrl, owner) + 1, 0,
	       size - offsetof(struct xnic_wqe_ctrl, owner) - 1);
	op = pick_op(w, q->qp_type);
	atomic = op == XNIC_OP_ATOMIC_CMP_AND_SWP ||
		 op == XNIC_OP_ATOMIC_FETCH_AND_ADD;
	ctrl->opcode = op;
	ctrl->flags = pct(&w->r, 85) ? XNIC_WQE_SIGNALED : 0;
	if (pct(&w->r, 15))
		ctrl->flags |= XNIC_WQE_SOLICITED;
	if (pct(&w->r, 10))
		ctrl->flags |= XNIC_WQE_FENCE;
	if (hz(w, 4))
		ctrl->flags = (__u8)rnd(&w->r);
	ctrl->wr_id = htole64(++w->wr_id);
	ctrl->imm_data = htole32((__u32)rnd(&w->r));
	if (hz(w, 3))
		ctrl->reserved = htole32(hostile32(&w->r));

	/* remote: an MR of the connected QP's PD, mostly */
	pthread_mutex_lock(&W);
	if (q->peer >= 0 && objs[q->peer].gen == q->peer_gen &&
	    objs[q->peer].state == S_LIVE) {
		rctx = objs[q->peer].ctx;
		rpd = objs[q->peer].pd;
	}
	pthread_mutex_unlock(&W);
	pick_key(w, rctx, rpd, &k);
	pick_span(w, &k, &addr, &len);
	if (atomic && !hz(w, 5))
		addr = k.len >= 8 ? k.iova + ((addr - k.iova) & ~7ull) : addr;
	if (atomic && addr + 8 > k.iova + k.len && k.len >= 8 && !w->hostile)
		addr = k.iova;
	rem->remote_addr = htole64(addr);
	rem->rkey = htole32(k.rkey);
	if (op == XNIC_OP_SEND_WITH_INV || op == XNIC_OP_LOCAL_INV)
		ctrl->imm_data = htole32(!hz(w, 10) ? k.rkey :
					 hostile32(&w->r));
	at->compare_add = htole64(rnd(&w->r));
	at->swap = htole64(rnd(&w->r));

	if (q->qp_type == XRDMA_UVERBS_QPT_UD) {
		pthread_mutex_lock(&W);
		t = pick_ud_locked(w);
		ud->dest_qpn = htole32(t >= 0 ? objs[t].qpn : 1);
		memcpy(ud->dgid, devs[t >= 0 ? objs[t].dev % ndev : 0].gid, 16);
		pthread_mutex_unlock(&W);
		ud->qkey = htole32(!hz(w, 8) ? UD_QKEY : hostile32(&w->r));
		ud->port_num = 1;
		if (hz(w, 5))
			ud->dest_qpn = htole32(hostile32(&w->r));
		if (hz(w, 5))
			ud->dgid[rn(&w->r, 16)] ^= 1;
		if (hz(w, 5))
			ud->port_num = (__u8)rnd(&w->r);
	}
	if (q->qp_type == XRDMA_UVERBS_QPT_XRC_SEND) {
		/* the target's XRC SRQ, in place of the UD segment */
		struct xnic_wqe_xrc *xrc = (void *)(wqe + XNIC_WQE_XRC_OFF);

		pthread_mutex_lock(&W);
		t = pick_xrc_srq_locked(w);
		xrc->remote_srqn = htole32(t >= 0 ? objs[t].sr.srqn :
					   rn(&w->r, 64));
		pthread_mutex_unlock(&W);
		if (hz(w, 5))
			xrc->remote_srqn = htole32(hostile32(&w->r));
		if (hz(w, 3))
			xrc->reserved = htole32(hostile32(&w->r));
	}
	if (op == XNIC_OP_REG_MR) {
		/* kernel QPs only: a user QP must never get here */
		fr->mtt_addr = htole64(pct(&w->r, 50) ?
				       (__u64)(unsigned long)arena :
				       hostile64(&w->r));
		fr->iova = htole64(rnd(&w->r));
		fr->length = htole64(hostile64(&w->r));
		fr->key = htole32(pct(&w->r, 50) ? k.rkey : hostile32(&w->r));
		fr->access = htole32(rn(&w->r, 16));
		fr->npages = htole32(hostile32(&w->r));
		fr->page_shift = (__u8)rn(&w->r, 70);
	}

	if ((op == XNIC_OP_SEND || op == XNIC_OP_RDMA_WRITE || w->hostile) &&
	    pct(&w->r, 20)) {
		len = rn(&w->r, size - XNIC_WQE_DATA_OFF + 1);
		if (len > devs[q->dev % ndev].max_inline && !w->hostile)
			len = devs[q->dev % ndev].max_inline;
		if (hz(w, 10))
			len = hostile32(&w->r);
		ctrl->flags |= XNIC_WQE_INLINE;
		ctrl->inline_len = htole32(len);
		for (i = 0; i + XNIC_WQE_DATA_OFF < size && i < len && i < 64;
		     i++)
			wqe[XNIC_WQE_DATA_OFF + i] = (__u8)rnd(&w->r);
		if (hz(w, 5))
			ctrl->num_sge = 1;
	} else {
		n = max_sge ? 1 + rn(&w->r, max_sge < 3 ? max_sge : 3) : 0;
		if (atomic && !w->hostile)
			n = 1;
		if (hz(w, 8))
			n = (__u8)hostile32(&w->r);
		if (hz(w, 5))
			n = 0;
		ctrl->num_sge = n;
		for (i = 0; i < n && i < max_sge; i++)
			pick_sge(w, ctx, q->pd, atomic, &sge[i]);
	}
	if (hz(w, 5))
		owner ^= 1;
	__atomic_store_n(&ctrl->owner, owner, __ATOMIC_RELEASE);
	return op;
}

/* the doorbell record's producer index: mostly right */
static __u32 hostile_pi(struct wk *w, __u32 pi, __u32 log)
{
	if (!hz(w, 6))
		return pi;
	switch (rn(&w->r, 4)) {
	case 0:
		return pi + rn(&w->r, 4u << log);
	case 1:
		return pi - 1 - rn(&w->r, 4);
	case 2:
		return pi + (1u << log) + 1;
	default:
		return (__u32)rnd(&w->r);
	}
}

/* ring the doorbell page (correctly, or hostile bits) and kick if asked */
static void doorbell(struct wk *w, struct fobj *q, int fd, __u32 qh)
{
	struct xnic_db_page *db;
	int d = -1, nw = 1;

	pthread_mutex_lock(&W);
	if (q->db_obj >= 0 && objs[q->db_obj].gen == q->db_gen &&
	    objs[q->db_obj].map && !objs[q->db_obj].unmap_req &&
	    !objs[q->db_obj].split) {
		d = q->db_obj;
		objs[d].refs++;
	}
	pthread_mutex_unlock(&W);
	if (d >= 0) {
		db = objs[d].map;
		if (!hz(w, 5))
			nw = xt_db_ring(db, q->qr.db_slot);
		if (hz(w, 6)) {
			__u32 g = rn(&w->r, XNIC_DB_GROUP_WORDS);

			__atomic_fetch_or(&db->group[g], rnd(&w->r),
					  __ATOMIC_RELEASE);
		}
		if (hz(w, 6)) {
			__u32 sw = rn(&w->r, XNIC_DB_SUMMARY_WORDS);

			__atomic_fetch_or(&db->summary[sw], rnd(&w->r),
					  __ATOMIC_RELEASE);
		}
		obj_put(d);
	}
	if (nw || pct(&w->r, 10))
		kick(fd, pct(&w->r, 70) ? 0 : qh);
}

static int ctx_fd_ref(int c, int *fd)
{
	int ok;

	pthread_mutex_lock(&W);
	ok = c >= 0 && ctxs[c].state == S_LIVE;
	if (ok) {
		ctxs[c].refs++;
		*fd = ctxs[c].fd;
	}
	pthread_mutex_unlock(&W);
	return ok;
}

/* write 1..4 send WQEs and the doorbell record; faults are counted */
static void post_burst(struct wk *w, struct fobj *q, int c)
{
	struct xnic_qp_dbrec *rec;
	sigjmp_buf jb;
	__u32 log;
	__u8 op;
	int n;

	log = q->qr.sq_log_wqe;
	rec = (void *)((__u8 *)q->map + q->qr.dbrec_offset);
	if (!sigsetjmp(jb, 1)) {
		guard = &jb;
		for (n = 1 + rn(&w->r, 4); n; n--) {
			__u8 *wqe = (__u8 *)q->map + q->qr.sq_offset +
				    ((size_t)(q->sq_pi & ((1u << log) - 1)) <<
				     q->qr.sq_wqe_shift);

			op = build_swqe(w, q, wqe, q->sq_pi, c);
			INC(st->posted[op < 16 ? op : 16]);
			q->sq_pi++;
			__atomic_store_n(&rec->sq_pi,
					 htole32(hostile_pi(w, q->sq_pi, log)),
					 __ATOMIC_RELEASE);
		}
	} else {
		INC(st->faults);
	}
	guard = NULL;
}

static void act_post(struct wk *w)
{
	struct fobj *q;
	int i, locked, fd = -1, c, have_fd;

	i = pick_obj(w, XRDMA_OBJ_QP, pct(&w->r, 90) ? S_LIVE : -1, -1, 1);
	if (i < 0)
		return;
	q = &objs[i];
	c = q->ctx;
	if (q->split) {
		obj_put(i);
		return;
	}
	if (q->clean)
		w->hostile = 0;
	have_fd = q->state == S_LIVE && ctx_fd_ref(c, &fd);
	locked = !pthread_mutex_trylock(&q->plock);
	if (!locked && (q->clean || !pct(&w->r, 20)))
		goto out;
	post_burst(w, q, c);
	if (have_fd)
		doorbell(w, q, fd, q->handle);
	if (locked)
		pthread_mutex_unlock(&q->plock);
out:
	if (have_fd)
		ctx_put(c);
	obj_put(i);
}

/* receive WQEs into a QP's RQ or an SRQ */
static void act_recv(struct wk *w)
{
	sigjmp_buf jb;
	struct fobj *o;
	struct xnic_qp_dbrec *rec;
	__u32 log, shift, *pi, n, j, max_sge;
	__u8 *ring;
	int i, srq = pct(&w->r, 30), locked;

	i = pick_obj(w, srq ? XRDMA_OBJ_SRQ : XRDMA_OBJ_QP,
		     pct(&w->r, 90) ? S_LIVE : -1, -1, 1);
	if (i < 0)
		return;
	o = &objs[i];
	if (o->split) {
		obj_put(i);
		return;
	}
	if (o->clean)
		w->hostile = 0;
	if (srq) {
		log = o->sr.log_wqe;
		shift = o->sr.wqe_shift;
		ring = o->map;
		rec = (void *)((__u8 *)o->map + o->sr.dbrec_offset);
		pi = &o->pi;
	} else {
		log = o->qr.rq_log_wqe;
		shift = o->qr.rq_wqe_shift;
		ring = (__u8 *)o->map + o->qr.rq_offset;
		rec = (void *)((__u8 *)o->map + o->qr.dbrec_offset);
		pi = &o->rq_pi;
	}
	if ((!srq && !o->has_rq) || shift < XNIC_RQ_WQE_MIN_SHIFT ||
	    shift > 16 || log > 16) {
		obj_put(i);
		return;
	}
	locked = !pthread_mutex_trylock(&o->plock);
	if (!locked && (o->clean || !pct(&w->r, 20))) {
		obj_put(i);
		return;
	}
	max_sge = ((1u << shift) - sizeof(struct xnic_rwqe)) /
		  sizeof(struct xnic_sge);
	if (!sigsetjmp(jb, 1)) {
		guard = &jb;
		for (n = 1 + rn(&w->r, 4); n; n--) {
			__u8 *e = ring + ((size_t)(*pi & ((1u << log) - 1)) <<
					  shift);
			struct xnic_rwqe *h = (void *)e;
			struct xnic_sge *sge = (void *)(h + 1);
			__u8 owner = (*pi >> log) & 1;

			memset(e, 0, offsetof(struct xnic_rwqe, owner));
			memset(e + offsetof(struct xnic_rwqe, owner) + 1, 0,
			       (1u << shift) - offsetof(struct xnic_rwqe, owner) - 1);
			h->wr_id = htole64(++w->wr_id);
			h->num_sge = max_sge ? 1 + rn(&w->r, max_sge) : 0;
			if (hz(w, 6))
				h->num_sge = (__u8)hostile32(&w->r);
			for (j = 0; j < h->num_sge && j < max_sge; j++)
				pick_sge(w, o->ctx, o->pd, 0, &sge[j]);
			if (hz(w, 4))
				owner ^= 1;
			__atomic_store_n(&h->owner, owner, __ATOMIC_RELEASE);
			++*pi;
			__atomic_store_n(&rec->rq_pi,
					 htole32(hostile_pi(w, *pi, log)),
					 __ATOMIC_RELEASE);
			INC(st->recvs);
		}
	} else {
		INC(st->faults);
	}
	guard = NULL;
	obj_unlock_put(i, locked);
}

static unsigned int cqe_bucket(__u8 op)
{
	if (op <= 7)
		return op;
	if (op == XNIC_CQE_OP_RECV)
		return 8;
	if (op == XNIC_CQE_OP_RECV_RDMA_WITH_IMM)
		return 9;
	return 10;
}

static void act_poll(struct wk *w)
{
	sigjmp_buf jb;
	struct fobj *o;
	struct xnic_cq_dbrec *rec;
	struct xnic_cqe *ring;
	__u32 log;
	int i, n, locked;

	i = pick_obj(w, XRDMA_OBJ_CQ, pct(&w->r, 95) ? S_LIVE : -1, -1, 1);
	if (i < 0)
		return;
	o = &objs[i];
	if (o->split) {
		obj_put(i);
		return;
	}
	locked = !pthread_mutex_trylock(&o->plock);
	if (!locked && !pct(&w->r, 10)) {
		obj_put(i);
		return;
	}
	log = o->cr.log_cqe;
	ring = o->map;
	rec = (void *)((__u8 *)o->map + o->cr.dbrec_offset);
	if (!sigsetjmp(jb, 1)) {
		guard = &jb;
		for (n = 0; n < 64; n++) {
			struct xnic_cqe *e = &ring[o->ci & ((1u << log) - 1)];

			if (__atomic_load_n(&e->owner, __ATOMIC_ACQUIRE) !=
			    (((o->ci >> log) & 1) ^ 1))
				break;
			INC(st->cqe[cqe_bucket(e->opcode)][e->status % N_STATUS]);
			o->ci++;
			__atomic_store_n(&rec->ci, htole32(hz(w, 3) ?
							   hostile32(&w->r) :
							   o->ci),
					 __ATOMIC_RELEASE);
		}
		if (pct(&w->r, 30)) {
			o->arm_sn++;
			__atomic_store_n(&rec->arm,
					 htole32(!hz(w, 5) ?
						 (o->arm_sn << 2) |
						 (1 + rn(&w->r, 2)) :
						 hostile32(&w->r)),
					 __ATOMIC_RELEASE);
		}
	} else {
		INC(st->faults);
	}
	guard = NULL;
	obj_unlock_put(i, locked);
}

static void act_garbage(struct wk *w)
{
	sigjmp_buf jb;
	struct fobj *o;
	__u8 *p;
	size_t off;
	int i, n;

	i = pick_obj(w, -1, -1, -1, 1);
	if (i < 0)
		return;
	o = &objs[i];
	if (o->clean && pct(&w->r, 80)) {
		obj_put(i);
		return;
	}
	if (!sigsetjmp(jb, 1)) {
		guard = &jb;
		for (n = 1 + rn(&w->r, 8); n; n--) {
			off = rn(&w->r, o->map_len) & ~7ul;
			p = (__u8 *)o->map + off;
			switch (rn(&w->r, 4)) {
			case 0:
				*p = (__u8)rnd(&w->r);
				break;
			case 1:
				__atomic_store_n((__u32 *)p,
						 hostile32(&w->r),
						 __ATOMIC_RELAXED);
				break;
			case 2:
				__atomic_store_n((__u64 *)p, rnd(&w->r),
						 __ATOMIC_RELAXED);
				break;
			default:
				memset(p, pct(&w->r, 50) ? 0xff : 0,
				       o->map_len - off < 64 ?
				       o->map_len - off : 64);
				break;
			}
		}
	} else {
		INC(st->faults);
	}
	guard = NULL;
	obj_put(i);
}

static void act_dbell(struct wk *w)
{
	sigjmp_buf jb;
	struct xnic_db_page *db;
	int i, c, fd;

	i = pick_obj(w, O_DB, -1, -1, 1);
	if (i < 0)
		return;
	if (objs[i].split) {
		obj_put(i);
		return;
	}
	c = objs[i].ctx;
	db = objs[i].map;
	if (!sigsetjmp(jb, 1)) {
		guard = &jb;
		switch (rn(&w->r, 4)) {
		case 0:	/* every bit */
			memset(db->summary, 0xff, sizeof(db->summary));
			memset(db->group, 0xff, sizeof(db->group));
			break;
		case 1:
			db->summary[rn(&w->r, XNIC_DB_SUMMARY_WORDS)] =
				rnd(&w->r);
			db->group[rn(&w->r, XNIC_DB_GROUP_WORDS)] = rnd(&w->r);
			break;
		case 2:
			db->flags = htole32(hostile32(&w->r));
			break;
		default:
			db->summary[rn(&w->r, XNIC_DB_SUMMARY_WORDS)] |=
				1ull << rn(&w->r, 64);
			break;
		}
	} else {
		INC(st->faults);
	}
	guard = NULL;
	obj_put(i);
	if (ctx_fd_ref(c, &fd)) {
		kick(fd, 0);
		ctx_put(c);
	}
}

static void act_kick(struct wk *w)
{
	struct xrdma_cmd_kick k = { 0 };
	int c, pristine;

	c = ctx_get(w);
	if (c < 0)
		return;
	k.qp_handle = pct(&w->r, 50) ? 0 : pick_handle(w, c, XRDMA_OBJ_QP);
	if (hz(w, 3))
		k.flags = hostile32(&w->r);
	memcpy(w->cbuf, &k, sizeof(k));
	INC(st->kicks);
	fz_call(w, ctxs[c].fd, _IOC_NR(XRDMA_IOC_KICK), w->cbuf, sizeof(k),
		5, &pristine);
	ctx_put(c);
}

/* ------------------------------------------------------------ mappings */

static void act_mmap(struct wk *w)
{
	static const int prots[] = {
		PROT_READ | PROT_WRITE, PROT_READ | PROT_WRITE, PROT_READ,
		PROT_WRITE, PROT_NONE, PROT_READ | PROT_WRITE | PROT_EXEC,
	};
	__u64 off = 0;
	size_t len = PG;
	int c, i, prot, flags = MAP_SHARED;
	void *p;

	c = ctx_get(w);
	if (c < 0)
		return;
	pthread_mutex_lock(&W);
	if (pct(&w->r, 70)) {
		i = pick_locked(w, -1, -1, pct(&w->r, 80) ? c : -1, 0, 0);
		if (i >= 0 && objs[i].map_len) {
			off = objs[i].mmap_off;
			len = objs[i].map_len;
		}
	} else {
		off = (__u64)rn(&w->r, 4096) * PG;
	}
	pthread_mutex_unlock(&W);
	switch (rn(&w->r, 8)) {
	case 0:
		len += PG;
		break;
	case 1:
		len = hostile32(&w->r);
		break;
	case 2:
		off += PG * (1 + rn(&w->r, 4));
		break;
	case 3:
		off = hostile64(&w->r) & ~0xfffull;
		break;
	default:
		break;
	}
	prot = prots[rn(&w->r, ARRAY_SIZE(prots))];
	if (pct(&w->r, 8))
		flags = MAP_PRIVATE;
	p = mmap(NULL, len, prot, flags, ctxs[c].fd, off);
	if (p == MAP_FAILED) {
		INC(st->mmap_fail);
		ctx_put(c);
		return;
	}
	INC(st->mmap_ok);
	if (pct(&w->r, 30)) {
		void *q = mremap(p, len, len + PG, MREMAP_MAYMOVE);

		if (q != MAP_FAILED) {
			INC(st->remap_ok);
			p = q;
			len += PG;
		}
	}
	if (pct(&w->r, 20) && !mprotect(p, len, PROT_READ | PROT_EXEC))
		INC(st->exec_ok);
	if (pct(&w->r, 10))
		madvise(p, len, MADV_DONTNEED);
	if (!(prot & PROT_WRITE) || !(prot & PROT_READ) || flags != MAP_SHARED ||
	    pct(&w->r, 30)) {
		munmap(p, len);
		ctx_put(c);
		return;
	}
	pthread_mutex_lock(&W);
	i = obj_alloc(O_MAP, c);
	if (i < 0) {
		munmap(p, len);
	} else {
		objs[i].map = p;
		objs[i].map_len = len;
		objs[i].mmap_off = off;
		objs[i].state = S_GONE;	/* no handle; freed when unmapped */
	}
	pthread_mutex_unlock(&W);
	ctx_put(c);
}

/*
 * Split a mapping nobody is using: unmap its tail, or make one page
 * read-only.  Only garbage goes into it afterwards (writes into a
 * read-only page fault and are counted).
 */
static void split_map(struct wk *w)
{
	struct fobj *o;
	size_t pages, keep;
	int i;

	pthread_mutex_lock(&W);
	i = pick_locked(w, -1, -1, -1, 1, 0);
	if (i >= 0 && !objs[i].refs && objs[i].map_len >= 2 * PG) {
		o = &objs[i];
		pages = o->map_len / PG;
		keep = 1 + rn(&w->r, pages - 1);
		if (pct(&w->r, 50)) {
			munmap((__u8 *)o->map + keep * PG, o->map_len - keep * PG);
			o->map_len = keep * PG;
		} else {
			mprotect((__u8 *)o->map + rn(&w->r, pages) * PG, PG,
				 PROT_READ);
		}
		o->split = 1;
		INC(st->splits);
	}
	pthread_mutex_unlock(&W);
}

static void act_unmap(struct wk *w)
{
	int i;

	if (hz(w, 20)) {
		split_map(w);
		return;
	}
	pthread_mutex_lock(&W);
	/* mostly mappings of destroyed objects, some of live ones */
	i = pick_locked(w, -1, pct(&w->r, 80) ? S_GONE : -1, -1, 1, 0);
	if (i >= 0) {
		objs[i].unmap_req = 1;
		obj_settle(&objs[i]);
	}
	pthread_mutex_unlock(&W);
}

static void act_events(struct wk *w)
{
	union {
		struct xrdma_comp_event c[8];
		struct xrdma_async_event a[8];
	} buf;
	struct pollfd pfd;
	int c, fd = -1;

	c = ctx_get(w);
	if (c < 0)
		return;
	pthread_mutex_lock(&W);
	if (pct(&w->r, 10))
		fd = ctxs[c].fd;	/* read/write/poll the main fd */
	else if (ctxs[c].nchan && pct(&w->r, 60))
		fd = ctxs[c].chan[rn(&w->r, ctxs[c].nchan)];
	else
		fd = ctxs[c].async_fd;
	if (fd >= 0)
		fd = dup(fd);
	pthread_mutex_unlock(&W);
	if (fd >= 0) {
		pfd.fd = fd;
		pfd.events = POLLIN;
		poll(&pfd, 1, 0);
		fcntl(fd, F_SETFL, O_NONBLOCK);
		if (pct(&w->r, 10) && write(fd, &buf, rn(&w->r, sizeof(buf))) >= 0)
			INC(st->writes_ok);
		/* EIO: the context was closed (abruptly) meanwhile */
		if (read(fd, &buf, pct(&w->r, 80) ? sizeof(buf) :
			 rn(&w->r, sizeof(buf))) < 0 && errno != EAGAIN &&
		    errno != EINVAL &&
		    (errno != EIO || ctxs[c].state == S_LIVE))
			fuzz_fail("read of an event fd: %s", strerror(errno));
		close(fd);
	}
	ctx_put(c);
}

/* ------------------------------------------------------------ fork */

struct kid_plan {
	int fd, dev, mode;
	__u32 qpn, rkey;
	__u64 raddr;
	unsigned long long seed;
};

/*
 * In the child: import the parent's context (as ibv_import_device()), then
 * commands work (a PD, made and destroyed) and one async fd of its own.
 */
static void child_import(int fd)
{
	struct xrdma_cmd_import_context im = { 0 };
	struct xrdma_cmd_alloc_pd pd = { 0 };
	struct xrdma_cmd_destroy d = { .type = XRDMA_OBJ_PD };
	struct xrdma_cmd_fd af = { 0 };
	struct xnic_ucontext_resp u;
	int ret;

	xt_udata_out(&im.udata, &u, sizeof(u));
	ret = pio(fd, _IOC_NR(XRDMA_IOC_IMPORT_CONTEXT), &im, sizeof(im));
	/* 16 importers at most; the device may be gone */
	if (ret == ENOSPC || ret == EIO || ret == ENOMEM)
		return;
	if (ret) {
		fuzz_fail("a child's IMPORT_CONTEXT: %s", strerror(ret));
		return;
	}
	INC(st->child_imports);
	ret = pio(fd, _IOC_NR(XRDMA_IOC_ALLOC_PD), &pd, sizeof(pd));
	if (ret == EPERM)
		fuzz_fail("ALLOC_PD after IMPORT_CONTEXT: EPERM");
	if (!ret) {
		d.handle = pd.pd_handle;
		pio(fd, _IOC_NR(XRDMA_IOC_DESTROY), &d, sizeof(d));
	}
	if (pio(fd, _IOC_NR(XRDMA_IOC_GET_ASYNC_FD), &af, sizeof(af)))
		return;
	close(af.fd);
	memset(&af, 0, sizeof(af));
	if (!pio(fd, _IOC_NR(XRDMA_IOC_GET_ASYNC_FD), &af, sizeof(af)))
		fuzz_fail("a child got two async fds of one IMPORT_CONTEXT");
}

/* in the child: nothing of the parent's tables, no locks */
static void child_main(struct wk *w, struct kid_plan *p)
{
	struct xrdma_cmd_alloc_pd pd = { 0 };
	struct pctx c;
	struct pcq cq;
	struct pqp qp;
	struct pmr mr;
	struct xnic_cqe e;
	__u8 *buf;
	int i, ret;

	alarm(20);
	close(peer_sock);
	w->r.s = p->seed;
	/* the parent's fd: every command must fail with EPERM */
	ret = pio(p->fd, _IOC_NR(XRDMA_IOC_ALLOC_PD), &pd, sizeof(pd));
	if (ret == EPERM)
		INC(st->child_eperm);
	else
		INC(st->child_other);
	if (!ret)
		fuzz_fail("a child's ALLOC_PD on the parent's fd succeeded");
	if (p->mode == 0) {
		/* EPERM: still the parent's context (not /dev/null) */
		if (ret == EPERM && pct(&w->r, 60))
			child_import(p->fd);
		_exit(0);
	}
	/* its own context, a QP connected to one of ours, guessed keys */
	if (pl_open(&c, p->dev))
		_exit(0);
	buf = map_anon(2 * PG, PROT_READ | PROT_WRITE);
	if (!buf || pl_mr(&c, buf, 2 * PG, 7, &mr) || pl_cq(&c, &cq, 32) ||
	    pl_qp(&c, &cq, &qp, XRDMA_UVERBS_QPT_RC))
		_exit(0);
	connect_qp(c.fd, qp.h, XRDMA_UVERBS_QPT_RC, devs[p->dev].gid,
		   pct(&w->r, 70) ? p->qpn : qp.qpn, NULL);
	for (i = 0; i < 8; i++) {
		__u32 rkey = pct(&w->r, 50) ? p->rkey : p->rkey + rn(&w->r, 4) * 0x100;
		const struct xt_write wr = {
			.wr_id = i, .src = uptr(buf), .lkey = mr.lkey,
			.dst = p->raddr, .rkey = rkey, .len = 1 + rn(&w->r, 4096),
		};

		pl_post_write(&c, &qp, &wr);
	}
	if (pct(&w->r, 50))
		_exit(0);	/* with the WRITEs in flight */
	for (i = 0; i < 100 && !pl_poll(&cq, &e); i++)
		usleep(1000);
	_exit(0);
}

static void act_fork(struct wk *w)
{
	struct kid_plan p;
	int c, k, q;
	struct keyinfo key;
	pid_t pid;

	pthread_mutex_lock(&W);
	for (k = 0; k < MAX_KIDS && kids[k].pid; k++)
		;
	c = k < MAX_KIDS ? ctx_get_locked(w) : -1;
	pthread_mutex_unlock(&W);
	if (c < 0)
		return;
	memset(&p, 0, sizeof(p));
	p.fd = ctxs[c].fd;
	p.dev = ctxs[c].dev;
	p.mode = rn(&w->r, 3);
	p.seed = rnd(&w->r);
	pthread_mutex_lock(&W);
	q = pick_locked(w, XRDMA_OBJ_QP, S_LIVE, -1, 0, 0);
	if (q >= 0) {
		p.qpn = objs[q].qpn;
		p.dev = objs[q].dev % ndev;
	}
	pthread_mutex_unlock(&W);
	pick_key(w, -1, 0, &key);
	p.rkey = key.rkey;
	p.raddr = key.iova;
	pid = fork();
	if (!pid)
		child_main(w, &p);
	ctx_put(c);
	if (pid < 0)
		return;
	INC(st->forks);
	pthread_mutex_lock(&W);
	kids[k].pid = pid;
	kids[k].kill = p.mode == 2;
	clock_gettime(CLOCK_MONOTONIC, &kids[k].kill_at);
	kids[k].kill_at.tv_nsec += (long)rn(&w->r, 50) * 1000000;
	if (kids[k].kill_at.tv_nsec >= 1000000000) {
		kids[k].kill_at.tv_sec++;
		kids[k].kill_at.tv_nsec -= 1000000000;
	}
	pthread_mutex_unlock(&W);
}

/* ------------------------------------------------------------ XRC */

/* the mount point of the xumount children (in their own namespace) */
#define XU_MNT		"/tmp"

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : EIO;
}

/* in the child: uid 0 of a user namespace of its own, its own mounts */
static int userns_enter(void)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();
	int ret;

	/* a changed uid made /proc/self root's: ours again for the maps */
	prctl(PR_SET_DUMPABLE, 1);
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
		return errno;
	snprintf(map, sizeof(map), "0 %u 1", uid);
	ret = write_str("/proc/self/setgroups", "deny");
	if (!ret)
		ret = write_str("/proc/self/uid_map", map);
	snprintf(map, sizeof(map), "0 %u 1", gid);
	if (!ret)
		ret = write_str("/proc/self/gid_map", map);
	if (ret)
		return ret;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return errno;
	return 0;
}

/*
 * The child of xumount: a tmpfs of its own, a domain (OPEN_XRCD) on a file
 * of it, the file closed: the unmount must fail with EBUSY (the domain
 * holds the file's mount).  Then the domain destroyed and the unmount
 * must succeed, or a lazy unmount (must succeed), or exit with the
 * domain open on the mounted tmpfs.
 */
static void xumount_main(struct wk *w, int dev, unsigned long long seed)
{
	struct xrdma_cmd_open_xrcd ox = { .oflags = O_CREAT };
	struct xrdma_cmd_destroy d = { .type = XRDMA_OBJ_XRCD };
	char path[64];
	struct pctx c;
	int fd, ret, end;

	alarm(20);
	close(peer_sock);
	w->r.s = seed;
	INC(st->xu_runs);
	ret = userns_enter();
	if (ret) {
		/* no user namespaces for this uid (a sysctl, the kernel) */
		INC(st->xu_nons);
		_exit(0);
	}
	if (mount("uverbs_fuzz", XU_MNT, "tmpfs", 0, "size=64k")) {
		fuzz_fail("xumount: tmpfs mounted in a user namespace: %s",
			  strerror(errno));
		_exit(0);
	}
	snprintf(path, sizeof(path), XU_MNT "/domain");
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || pl_open(&c, dev)) {
		INC(st->xu_nodom);
		_exit(0);
	}
	ox.fd = fd;
	ret = pio(c.fd, _IOC_NR(XRDMA_IOC_OPEN_XRCD), &ox, sizeof(ox));
	close(fd);
	if (ret) {
		/* the uid's share, memory */
		INC(st->xu_nodom);
		_exit(0);
	}
	if (pct(&w->r, 50))
		unlink(path);	/* only the domain names the file */
	errno = 0;
	if (!umount(XU_MNT) || errno != EBUSY) {
		fuzz_fail("xumount: umount with a domain open on the tmpfs: %s, not EBUSY",
			  errno ? strerror(errno) : "success");
		_exit(0);
	}
	INC(st->xu_busy);
	end = rn(&w->r, 3);
	INC(st->xu_end[end]);
	switch (end) {
	case 0:
		d.handle = ox.xrcd_handle;
		ret = pio(c.fd, _IOC_NR(XRDMA_IOC_DESTROY), &d, sizeof(d));
		if (ret)
			fuzz_fail("xumount: DESTROY of the domain: %s",
				  strerror(ret));
		else if (umount(XU_MNT))
			fuzz_fail("xumount: umount once the domain is destroyed: %s",
				  strerror(errno));
		break;
	case 1:
		if (umount2(XU_MNT, MNT_DETACH))
			fuzz_fail("xumount: lazy umount with the domain open: %s",
				  strerror(errno));
		if (pct(&w->r, 50)) {
			d.handle = ox.xrcd_handle;
			ret = pio(c.fd, _IOC_NR(XRDMA_IOC_DESTROY), &d,
				  sizeof(d));
			if (ret)
				fuzz_fail("xumount: DESTROY of the domain of a detached tmpfs: %s",
					  strerror(ret));
		}
		break;
	default:
		/* exit with the domain open, mounted: the namespace goes first */
		break;
	}
	_exit(0);
}

/* a child slot for @pid (reaped by reap()); under W */
static void kid_add(int k, pid_t pid, int killit, struct wk *w)
{
	kids[k].pid = pid;
	kids[k].kill = killit;
	clock_gettime(CLOCK_MONOTONIC, &kids[k].kill_at);
	kids[k].kill_at.tv_nsec += (long)rn(&w->r, 50) * 1000000;
	if (kids[k].kill_at.tv_nsec >= 1000000000) {
		kids[k].kill_at.tv_sec++;
		kids[k].kill_at.tv_nsec -= 1000000000;
	}
}

static void act_xumount(struct wk *w)
{
	unsigned long long seed;
	int k, dev;
	pid_t pid;

	pthread_mutex_lock(&W);
	for (k = 0; k < MAX_KIDS && kids[k].pid; k++)
		;
	pthread_mutex_unlock(&W);
	if (k == MAX_KIDS)
		return;
	dev = rn(&w->r, ndev);
	seed = rnd(&w->r);
	pid = fork();
	if (!pid)
		xumount_main(w, dev, seed);
	if (pid < 0)
		return;
	INC(st->forks);
	pthread_mutex_lock(&W);
	kid_add(k, pid, 0, w);
	pthread_mutex_unlock(&W);
}

/*
 * The peer: a process of another uid (the fuzz process's minus one when
 * started as root), forked by the supervisor, that serves xpeer requests
 * over a socket: the device, an XRC_RECV QP number of the fuzz process
 * and read-only fds of the two domain files.  It joins the domains
 * (OPEN_XRCD), opens the QP by number (OPEN_QP) and modifies it through
 * that handle: EPERM (only the creator's handle modifies an XRC_RECV QP).
 */
struct peer_req {
	unsigned long long seed;
	__u32 dev, qpn;
};

static void peer_serve(struct wk *w, const struct peer_req *q,
		       const int *fds, int nfd)
{
	static const __u32 states[] = {
		XRDMA_UVERBS_QPS_RESET, XRDMA_UVERBS_QPS_INIT,
		XRDMA_UVERBS_QPS_ERR,
	};
	struct xrdma_cmd_destroy d = { .type = XRDMA_OBJ_QP };
	struct xrdma_cmd_query_qp qq = { 0 };
	struct xrdma_uverbs_qp_attr a;
	struct pctx c;
	int i, ret;

	w->r.s = q->seed;
	if (q->dev >= (__u32)ndev || pl_open(&c, q->dev)) {
		INC(st->xp_noctx);
		return;
	}
	for (i = 0; i < nfd; i++) {
		struct xrdma_cmd_open_xrcd ox = { .fd = fds[i] };
		struct xrdma_cmd_open_qp oq = {
			.qpn = q->qpn, .qp_type = XRDMA_UVERBS_QPT_XRC_RECV,
		};

		/* O_CREAT now and then: the domain exists, or is made */
		if (pct(&w->r, 30))
			ox.oflags = O_CREAT;
		if (pio(c.fd, _IOC_NR(XRDMA_IOC_OPEN_XRCD), &ox, sizeof(ox)))
			continue;
		INC(st->xp_joined);
		oq.xrcd_handle = ox.xrcd_handle;
		oq.user_cookie = rnd(&w->r);
		/* ENOENT: not a QP of this domain (or gone) */
		if (pio(c.fd, _IOC_NR(XRDMA_IOC_OPEN_QP), &oq, sizeof(oq)))
			continue;
		INC(st->xp_opened);
		memset(&a, 0, sizeof(a));
		a.qp_state = states[rn(&w->r, ARRAY_SIZE(states))];
		ret = modify(c.fd, oq.qp_handle, XRDMA_UVERBS_QP_STATE, &a);
		if (ret != EPERM)
			fuzz_fail("xpeer: MODIFY_QP of QP %#x opened by number: %s, not EPERM",
				  q->qpn, ret ? strerror(ret) : "success");
		else
			INC(st->xp_eperm);
		qq.qp_handle = oq.qp_handle;
		qq.attr_mask = XRDMA_UVERBS_QP_STATE;
		if (!pio(c.fd, _IOC_NR(XRDMA_IOC_QUERY_QP), &qq, sizeof(qq)))
			INC(st->xp_queried);
		/* the handle destroyed, or left for the close */
		if (pct(&w->r, 50)) {
			d.handle = oq.qp_handle;
			pio(c.fd, _IOC_NR(XRDMA_IOC_DESTROY), &d, sizeof(d));
		}
	}
	munmap(c.db, XNIC_DB_PAGE_SIZE);
	close(c.fd);
}

/* the peer process: serve until the fuzz process's end of the socket goes */
static int peer_main(int sock, long uid)
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct peer_req q;
	struct wk w = { 0 };
	char ok = 1;
	int fds[2], nfd, i;

	if (uid >= 0 && !geteuid() &&
	    (setgroups(0, NULL) || setgid(uid) || setuid(uid))) {
		fuzz_fail("xpeer: cannot become uid %ld: %s", uid,
			  strerror(errno));
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		struct iovec iov = { .iov_base = &q, .iov_len = sizeof(q) };
		struct msghdr m = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
		};
		struct cmsghdr *cm;
		ssize_t n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);

		if (n <= 0)
			return 0;
		nfd = 0;
		cm = CMSG_FIRSTHDR(&m);
		if (cm && cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_RIGHTS) {
			nfd = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			if (nfd > 2)
				nfd = 2;
			memcpy(fds, CMSG_DATA(cm), nfd * sizeof(int));
		}
		if (n == sizeof(q)) {
			INC(st->xp_reqs);
			peer_serve(&w, &q, fds, nfd);
		}
		for (i = 0; i < nfd; i++)
			close(fds[i]);
		if (send(sock, &ok, 1, 0) != 1)
			return 0;
	}
}

/* xpeer: the peer joins our domains and tries one of our XRC_RECV QPs */
static void act_xpeer(struct wk *w)
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct peer_req q = { .seed = rnd(&w->r) };
	struct iovec iov = { .iov_base = &q, .iov_len = sizeof(q) };
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *cm;
	int fds[2], nfd = 0, i;
	char ok;

	if (peer_sock < 0)
		return;
	pthread_mutex_lock(&W);
	i = pick_qp_type_locked(w, XRDMA_UVERBS_QPT_XRC_RECV);
	if (i >= 0) {
		q.qpn = objs[i].qpn;
		q.dev = objs[i].dev;
	}
	pthread_mutex_unlock(&W);
	if (i < 0)
		return;
	/* one or both domain files, in a seeded order */
	i = rn(&w->r, 2);
	fds[nfd++] = xrcd_ro[i];
	if (pct(&w->r, 70))
		fds[nfd++] = xrcd_ro[!i];
	if (fds[0] < 0 || (nfd == 2 && fds[1] < 0))
		return;
	memset(u.buf, 0, sizeof(u.buf));
	m.msg_controllen = CMSG_SPACE(nfd * sizeof(int));
	cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(nfd * sizeof(int));
	memcpy(CMSG_DATA(cm), fds, nfd * sizeof(int));
	/* one request at a time, its answer before the next */
	pthread_mutex_lock(&P);
	if (sendmsg(peer_sock, &m, 0) == sizeof(q))
		recv(peer_sock, &ok, 1, 0);
	pthread_mutex_unlock(&P);
}

static int ts_after(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec ||
	       (a->tv_sec == b->tv_sec && a->tv_nsec >= b->tv_nsec);
}

/* reap children; kill the ones due; with @all, wait for every one */
static void reap(int all)
{
	struct timespec now;
	int k, status;

	clock_gettime(CLOCK_MONOTONIC, &now);
	pthread_mutex_lock(&W);
	for (k = 0; k < MAX_KIDS; k++) {
		if (!kids[k].pid)
			continue;
		if (kids[k].kill && ts_after(&now, &kids[k].kill_at)) {
			kill(kids[k].pid, SIGKILL);
			kids[k].kill = 0;
			INC(st->kills);
		}
		if (waitpid(kids[k].pid, &status, all ? 0 : WNOHANG) ==
		    kids[k].pid) {
			if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL)
				fuzz_fail("a child died of signal %d",
					  WTERMSIG(status));
			kids[k].pid = 0;
		}
	}
	pthread_mutex_unlock(&W);
}

/* ------------------------------------------------------------ the run */

static struct timespec t_end;

static void *worker(void *arg)
{
	struct wk *w = arg;
	unsigned int total = 0, x, a;

	for (a = 0; a < N_ACT; a++)
		total += skipped[a] ? 0 : acts[a].weight;
	while (!stopped() && total) {
		x = rn(&w->r, total);
		for (a = 0; skipped[a] || x >= acts[a].weight; a++)
			if (!skipped[a])
				x -= acts[a].weight;
		INC(st->acts[a]);
		/* half of the actions are those of a correct user */
		w->hostile = pct(&w->r, 50);
		switch (a) {
		case A_IOCTL:
			act_ioctl(w);
			break;
		case A_CONNECT:
			act_connect(w);
			break;
		case A_POST:
			act_post(w);
			break;
		case A_RECV:
			act_recv(w);
			break;
		case A_POLL:
			act_poll(w);
			break;
		case A_GARBAGE:
			act_garbage(w);
			break;
		case A_DBELL:
			act_dbell(w);
			break;
		case A_KICK:
			act_kick(w);
			break;
		case A_MMAP:
			act_mmap(w);
			break;
		case A_UNMAP:
			act_unmap(w);
			break;
		case A_EVENTS:
			act_events(w);
			break;
		case A_OPEN:
			act_open(w, -1);
			break;
		case A_CLOSE:
			act_close(w);
			break;
		case A_XUMOUNT:
			act_xumount(w);
			break;
		case A_XPEER:
			act_xpeer(w);
			break;
		default:
			act_fork(w);
			break;
		}
		/* at least one context to work on */
		pthread_mutex_lock(&W);
		for (x = 0; x < MAX_CTX && ctxs[x].state != S_LIVE; x++)
			;
		pthread_mutex_unlock(&W);
		if (x == MAX_CTX)
			act_open(w, -1);
		if (__atomic_add_fetch(&st->iters, 1, __ATOMIC_RELAXED) >=
		    opt.iterations)
			__atomic_store_n(&stopping, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* a starting population: per device two contexts with connected QPs */
static void populate(struct wk *w)
{
	int d, k, c, i;

	w->hostile = 0;
	for (d = 0; d < ndev; d++)
		for (k = 0; k < 2; k++)
			act_open(w, d);
	for (c = 0; c < MAX_CTX; c++) {
		if (ctxs[c].state != S_LIVE)
			continue;
		for (i = 0; i < 40; i++)
			act_ioctl(w);
	}
	for (i = 0; i < 16; i++)
		act_connect(w);
}

static int vm_pin_kb(void)
{
	return (int)xt_kv_kb("/proc/self/status", "VmPin");
}

/* the fuzz process: returns its exit status */
static int fuzz_main(void)
{
	struct wk w[MAX_THREADS];
	pthread_t th[MAX_THREADS];
	struct sigaction sa;
	struct timespec now;
	unsigned int t;
	int c, i, kb;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (opt.user >= 0 && !geteuid()) {
		if (setgroups(0, NULL) || setgid(opt.user) ||
		    setuid(opt.user)) {
			fuzz_fail("cannot become uid %ld: %s", opt.user,
				  strerror(errno));
			return 1;
		}
	}
	if (opt.disjoint)
		arena_size = 4 * ARENA_SIZE;
	arena = map_anon(arena_size + PG, PROT_READ | PROT_WRITE);
	ro_area = map_anon(16 * PG, PROT_READ);
	if (!arena || !ro_area || mprotect(arena + arena_size, PG, PROT_NONE))
		return 1;
	/* distinct pages (not the zero page) for MRs that must not overlap */
	if (opt.disjoint)
		memset(arena, 0x5a, arena_size);
	for (i = 0; i < MAX_OBJ; i++)
		pthread_mutex_init(&objs[i].plock, NULL);
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	for (i = 0; i < 2; i++) {
		char name[] = "/tmp/uverbs_fuzz.xrcd.XXXXXX";

		xrcd_file[i] = mkostemp(name, O_CLOEXEC);
		if (xrcd_file[i] < 0)
			continue;
		/* the peer's way in: an fd opened read-only */
		xrcd_ro[i] = open(name, O_RDONLY | O_CLOEXEC);
		unlink(name);
	}
	for (t = 0; t < opt.threads; t++)
		if (wk_init(&w[t], t, opt.seed))
			return 1;
	populate(&w[0]);
	for (c = 0; c < MAX_CTX && ctxs[c].state != S_LIVE; c++)
		;
	if (c == MAX_CTX) {
		fuzz_fail("uid %ld cannot open a context on %s: %s", opt.user,
			  devs[0].path, strerror(act_open(&w[0], 0)));
		return 1;
	}
	for (t = 0; t < opt.threads; t++)
		pthread_create(&th[t], NULL, worker, &w[t]);
	for (;;) {
		usleep(20000);
		reap(0);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (ts_after(&now, &t_end))
			__atomic_store_n(&stopping, 1, __ATOMIC_RELAXED);
		if (stopped())
			break;
	}
	for (t = 0; t < opt.threads; t++)
		pthread_join(th[t], NULL);
	for (i = 0; i < MAX_KIDS; i++)
		if (kids[i].pid && kids[i].kill)
			kids[i].kill_at = now;
	reap(1);

	/* everything closed and unmapped: nothing may stay pinned */
	pthread_mutex_lock(&W);
	for (c = 0; c < MAX_CTX; c++)
		if (ctxs[c].state == S_LIVE)
			ctxs[c].state = S_GONE;
	for (c = 0; c < MAX_CTX; c++)
		ctx_settle(c);
	for (i = 0; i < MAX_OBJ; i++) {
		objs[i].unmap_req = 1;
		obj_settle(&objs[i]);
	}
	pthread_mutex_unlock(&W);
	/* fds a mutated command created unseen */
	closefrom(3);
	for (i = 0; i < 50 && (kb = vm_pin_kb()) != 0; i++)
		usleep(100000);
	if (kb < 0)
		fuzz_fail("cannot read VmPin in /proc/self/status");
	else if (kb)
		fuzz_fail("VmPin %d kB after closing every context", kb);
	return 0;
}

/* ------------------------------------------------------------ supervisor */

static unsigned long long ctr(const struct xt_counters *c, const char *name)
{
	long long v = xt_counter(c, name);

	return v < 0 ? 0 : (unsigned long long)v;
}

/* the model's object counts (qps, cqs, srqs, mrs, db_pages) */
static int read_regs(const char *path, struct xt_counters *c)
{
	static const char *const keys[] = {
		"qps", "cqs", "srqs", "mrs", "db_pages",
	};
	struct xt_counters all;
	unsigned int i;

	if (xt_read_counters(path, &all))
		return -1;
	c->n = 0;
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		snprintf(c->name[c->n], sizeof(c->name[0]), "%s", keys[i]);
		c->val[c->n++] = ctr(&all, keys[i]);
	}
	return 0;
}

/* resources: "type count" lines then one line per object; 0 if empty */
static int resources_empty(const char *path, char *why, size_t len)
{
	char line[128], name[32], more[32];
	unsigned int n;
	FILE *f = fopen(path, "re");
	int empty = 1;

	*why = 0;
	if (!f) {
		snprintf(why, len, "cannot read %s", path);
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%31s %u %31s", name, &n, more) == 2 && !n)
			continue;
		if (empty)
			snprintf(why, len, "%s", line);
		empty = 0;
	}
	fclose(f);
	return empty;
}

/*
 * the resources of device @d, given @tries tenths of a second to reach
 * zero: 0, or 1 and a FAIL line "objects left @when"
 */
static int objects_left(int d, int tries, const char *when)
{
	char why[256];

	while (tries-- && !resources_empty(devs[d].res, why, sizeof(why)))
		usleep(100000);
	if (!*why)
		return 0;
	out("FAIL: %s: objects left %s: %s", devs[d].name, when, why);
	return 1;
}

/* a loopback RDMA WRITE on a fresh context: the device still works */
static int sanity(int dev, char *why, size_t len)
{
	struct pctx c;
	struct pcq cq;
	struct pqp qp;
	struct pmr src, dst;
	struct xnic_cqe e;
	__u8 *buf;
	int ret, i, got = 0;

	memset(&cq, 0, sizeof(cq));
	memset(&qp, 0, sizeof(qp));
	buf = map_anon(2 * PG, PROT_READ | PROT_WRITE);
	if (!buf) {
		snprintf(why, len, "no memory");
		return -1;
	}
	for (i = 0; i < (int)PG; i++)
		buf[i] = (__u8)(i * 7 + 1);
	ret = pl_open(&c, dev);
	if (ret) {
		snprintf(why, len, "open/GET_CONTEXT/ALLOC_PD: %s",
			 strerror(ret));
		munmap(buf, 2 * PG);
		return -1;
	}
	ret = pl_mr(&c, buf, PG, 7, &src);
	if (!ret)
		ret = pl_mr(&c, buf + PG, PG, 7, &dst);
	if (!ret)
		ret = pl_cq(&c, &cq, 16);
	if (!ret)
		ret = pl_qp(&c, &cq, &qp, XRDMA_UVERBS_QPT_RC);
	if (!ret)
		ret = query_dev(&c);
	if (!ret)
		ret = connect_qp(c.fd, qp.h, XRDMA_UVERBS_QPT_RC,
				 devs[dev].gid, qp.qpn, NULL);
	if (ret) {
		snprintf(why, len, "setup of a loopback RC QP: %s",
			 strerror(ret));
		goto out;
	}
	pl_post_write(&c, &qp, &(struct xt_write){
		.wr_id = 42, .src = uptr(buf), .lkey = src.lkey,
		.dst = uptr(buf + PG), .rkey = dst.rkey, .len = PG,
	});
	for (i = 0; i < 1000 && !got; i++) {
		got = pl_poll(&cq, &e);
		if (!got) {
			usleep(10000);
			if (i % 10 == 9)
				kick(c.fd, 0);
		}
	}
	if (!got)
		snprintf(why, len, "a 4 KiB RDMA WRITE: no completion in 10 s");
	else if (e.status || le64toh(e.wr_id) != 42)
		snprintf(why, len, "a 4 KiB RDMA WRITE: status %u wr_id %llu",
			 e.status, (unsigned long long)le64toh(e.wr_id));
	else if (memcmp(buf, buf + PG, PG))
		snprintf(why, len, "a 4 KiB RDMA WRITE: data differ");
	else
		ret = 0;
	if (!*why)
		goto out;
	ret = -1;
out:
	if (qp.map)
		munmap(qp.map, qp.r.mmap_size);
	if (cq.map)
		munmap(cq.map, cq.r.mmap_size);
	if (c.db)
		munmap(c.db, XNIC_DB_PAGE_SIZE);
	close(c.fd);
	munmap(buf, 2 * PG);
	return ret ? -1 : 0;
}

static const char *ename(unsigned int e)
{
	const char *s = e ? strerrorname_np(e) : NULL;

	return s ? s : "?";
}

static void print_summary(struct xt_counters *c0, struct xt_counters *c1)
{
	char line[1024];
	size_t n;
	unsigned int i, j, d;
	unsigned long calls = 0, ok = 0;

	for (i = 0; i <= NR_CMDS; i++) {
		calls += st->calls[i];
		ok += st->ok[i];
	}
	out("coverage: %lu actions, %lu ioctls (%lu ok), %lu forks (%lu killed)",
	    st->iters, calls, ok, st->forks, st->kills);
	out("  contexts: %lu opened, %lu closed (%lu abruptly)", st->opens,
	    st->closes, st->abrupt);
	for (i = 0; i <= NR_CMDS; i++) {
		if (!st->calls[i])
			continue;
		n = snprintf(line, sizeof(line), "  ioctl %-22s %6lu calls %6lu ok",
			     cmd_names[i], st->calls[i], st->ok[i]);
		for (j = 0; j <= MAX_ERRNO && n < sizeof(line) - 32; j++)
			if (st->err[i][j])
				n += snprintf(line + n, sizeof(line) - n,
					      " %s:%lu", ename(j),
					      st->err[i][j]);
		out("%s", line);
	}
	n = snprintf(line, sizeof(line), "  wqe posted:");
	for (i = 0; i < N_WQE_OPS; i++)
		if (st->posted[i])
			n += snprintf(line + n, sizeof(line) - n, " %s:%lu",
				      wqe_names[i], st->posted[i]);
	out("%s; recv wqes %lu", line, st->recvs);
	for (i = 0; i < N_CQE_OPS; i++) {
		unsigned long tot = 0;

		for (j = 0; j < N_STATUS; j++)
			tot += st->cqe[i][j];
		if (!tot)
			continue;
		n = snprintf(line, sizeof(line), "  cqe %-14s %6lu:",
			     cqe_names[i], tot);
		for (j = 0; j < N_STATUS; j++)
			if (st->cqe[i][j])
				n += snprintf(line + n, sizeof(line) - n,
					      " st%u:%lu", j, st->cqe[i][j]);
		out("%s", line);
	}
	out("  kicks %lu; mmaps %lu ok %lu refused, mremap grew %lu, PROT_EXEC %lu",
	    st->kicks, st->mmap_ok, st->mmap_fail, st->remap_ok, st->exec_ok);
	out("  mapping faults %lu, splits %lu, new queues not mappable %lu",
	    st->faults, st->splits, st->map_new_fail);
	out("  children: on the parent's fd EPERM %lu, other %lu; imported it %lu",
	    st->child_eperm, st->child_other, st->child_imports);
	out("  write() to a uverbs or event fd accepted: %lu", st->writes_ok);
	out("  CQ rings moved by RESIZE_CQ and taken over: %lu; IMPORT_CONTEXT ok: %lu",
	    st->resized, st->imports);
	out("  xumount: %lu children (%lu no user namespace, %lu no domain)",
	    st->xu_runs, st->xu_nons, st->xu_nodom);
	out("  xumount: umount EBUSY %lu; then destroy+umount %lu, lazy %lu, exit %lu",
	    st->xu_busy, st->xu_end[0], st->xu_end[1], st->xu_end[2]);
	out("  xpeer: %lu requests (%lu no context), domains joined %lu",
	    st->xp_reqs, st->xp_noctx, st->xp_joined);
	out("  xpeer: XRC_RECV QPs opened %lu, MODIFY_QP EPERM %lu, QUERY_QP ok %lu",
	    st->xp_opened, st->xp_eperm, st->xp_queried);
	n = snprintf(line, sizeof(line), "  actions:");
	for (i = 0; i < N_ACT; i++)
		n += snprintf(line + n, sizeof(line) - n, " %s:%lu%s",
			      acts[i].name, st->acts[i],
			      skipped[i] ? "(skipped)" : "");
	out("%s", line);
	for (d = 0; d < (unsigned int)ndev; d++) {
		static const char *const pre[] = { "tx_", "rx_", "err_" };
		static const char *const other[] = {
			"doorbells", "bad_doorbells", "kicks", "cqes",
			"cq_overruns", "psn_mismatch", "cmd_errors",
		};

		if (!c0[d].n || !c1[d].n)
			continue;
		for (j = 0; j < ARRAY_SIZE(pre); j++) {
			n = snprintf(line, sizeof(line), "  %s model %s*:",
				     devs[d].name, pre[j]);
			for (i = 0; i < (unsigned int)c1[d].n; i++) {
				unsigned long long v = c1[d].val[i] -
					ctr(&c0[d], c1[d].name[i]);

				if (strncmp(c1[d].name[i], pre[j],
					    strlen(pre[j])) || !v ||
				    strstr(c1[d].name[i], "bytes"))
					continue;
				n += snprintf(line + n, sizeof(line) - n,
					      " %s:%llu",
					      c1[d].name[i] + strlen(pre[j]), v);
			}
			out("%s", line);
		}
		n = snprintf(line, sizeof(line), "  %s model:", devs[d].name);
		for (j = 0; j < ARRAY_SIZE(other); j++)
			n += snprintf(line + n, sizeof(line) - n, " %s:%llu",
				      other[j], ctr(&c1[d], other[j]) -
				      ctr(&c0[d], other[j]));
		out("%s", line);
	}
}

static char replay[256];

static void parse_skip(const char *s)
{
	char buf[256], *tok, *save = NULL;
	int a;

	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (a = 0; a < N_ACT && strcmp(tok, acts[a].name); a++)
			;
		if (a == N_ACT) {
			fprintf(stderr, "uverbs_fuzz: unknown action '%s'\n",
				tok);
			exit(2);
		}
		skipped[a] = 1;
	}
}

static void print_usage(const char *prog)
{
	int a;

	fprintf(stderr,
		"usage: %s [--seed N] [--iterations N] [--seconds S] [--threads N]\n"
		"          [--skip ACTION,...] [--user UID] [--no-checks]\n"
		"          [--disjoint-mrs] [-v]\n"
		"actions:", prog);
	for (a = 0; a < N_ACT; a++)
		fprintf(stderr, " %s", acts[a].name);
	fprintf(stderr, "\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "iterations", required_argument, NULL, 'i' },
		{ "seconds", required_argument, NULL, 't' },
		{ "threads", required_argument, NULL, 'j' },
		{ "skip", required_argument, NULL, 'x' },
		{ "user", required_argument, NULL, 'u' },
		{ "no-checks", no_argument, NULL, 'n' },
		{ "disjoint-mrs", no_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct xt_counters c0[MAX_DEV], c1[MAX_DEV], r0[MAX_DEV], r1[MAX_DEV];
	char why[256];
	struct timespec t0, now;
	int o, d, status = 0, failed = 0, i, done, kill_end, sv[2], pst = 0;
	size_t n;
	pid_t pid, peer = -1;

	clock_gettime(CLOCK_REALTIME, &t0);
	opt.seed = (unsigned long long)t0.tv_sec * 1000003ull + t0.tv_nsec;
	while ((o = getopt_long(argc, argv, "s:i:t:j:x:u:ndv", lo, NULL)) != -1) {
		switch (o) {
		case 's':
			opt.seed = strtoull(optarg, NULL, 0);
			break;
		case 'i':
			opt.iterations = strtoul(optarg, NULL, 0);
			opt.iterations_given = 1;
			break;
		case 't':
			opt.seconds = strtoul(optarg, NULL, 0);
			break;
		case 'j':
			opt.threads = strtoul(optarg, NULL, 0);
			if (!opt.threads || opt.threads > MAX_THREADS)
				print_usage(argv[0]);
			break;
		case 'x':
			opt.skip = optarg;
			parse_skip(optarg);
			break;
		case 'u':
			opt.user = strtol(optarg, NULL, 0);
			break;
		case 'n':
			opt.checks = 0;
			break;
		case 'd':
			opt.disjoint = 1;
			break;
		case 'v':
			opt.verbose = 1;
			break;
		default:
			print_usage(argv[0]);
		}
	}
	if (opt.user < 0 && !geteuid())
		opt.user = 65534;
	n = snprintf(replay, sizeof(replay), "make fuzz SEED=%llu SECONDS=%u",
		     opt.seed, opt.seconds);
	if (opt.iterations_given)
		n += snprintf(replay + n, sizeof(replay) - n, " ITERATIONS=%lu",
			      opt.iterations);
	if (*opt.skip)
		n += snprintf(replay + n, sizeof(replay) - n, " FUZZ_SKIP=%s",
			      opt.skip);
	if (opt.disjoint)
		snprintf(replay + n, sizeof(replay) - n, " FUZZ_DISJOINT_MRS=1");
	setvbuf(stdout, NULL, _IOLBF, 0);
	kill_end = (opt.seed >> 4) % 3 == 0;
	out("seed=%llu iterations=%lu seconds=%u threads=%u skip=%s uid=%ld end=%s",
	    opt.seed, opt.iterations, opt.seconds, opt.threads,
	    *opt.skip ? opt.skip : "-", opt.user,
	    kill_end ? "SIGKILL" : "close");
	out("replay: %s", replay);

	if (!discover()) {
		out("FAIL: no xnic uverbs device in /sys/class/xrdma");
		return 1;
	}
	st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st == MAP_FAILED)
		return 1;
	for (d = 0; d < ndev; d++) {
		struct pctx c;
		int ret = pl_open(&c, d);

		if (!ret)
			ret = query_dev(&c);
		if (ret) {
			out("FAIL: %s: cannot open a context: %s", devs[d].path,
			    strerror(ret));
			return 1;
		}
		munmap(c.db, XNIC_DB_PAGE_SIZE);
		close(c.fd);
		xt_read_counters(devs[d].ctrs, &c0[d]);
		read_regs(devs[d].regs, &r0[d]);
	}
	memset(st, 0, sizeof(*st));
	for (d = 0; d < ndev; d++)
		out("device %s (%s): max_sge %u max_inline %u max_cqe %u%s%s",
		    devs[d].name, devs[d].path, devs[d].max_sge,
		    devs[d].max_inline, devs[d].max_cqe,
		    *devs[d].regs ? ", model " : ", no model debugfs",
		    devs[d].regs);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	t_end = t0;
	t_end.tv_sec += opt.seconds;
	fflush(stdout);
	/* the xpeer action's other uid */
	if (!skipped[A_XPEER] &&
	    !socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		peer = fork();
		if (!peer) {
			close(sv[1]);
			_exit(peer_main(sv[0], opt.user > 0 ? opt.user - 1 :
					-1));
		}
		close(sv[0]);
		if (peer > 0)
			peer_sock = sv[1];
		else
			close(sv[1]);
	}
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid)
		_exit(fuzz_main());
	if (peer_sock >= 0)
		close(peer_sock);

	/*
	 * The fuzz process must end: seconds plus a generous teardown.  For
	 * a third of the seeds it is killed instead, with everything open
	 * and in flight (the kernel then tears down every context).
	 */
	for (done = 0; !done;) {
		usleep(100000);
		done = waitpid(pid, &status, WNOHANG) == pid;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (!done && kill_end && !st->killed && ts_after(&now, &t_end)) {
			st->killed = 1;
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			done = 1;
		}
		if (!done && now.tv_sec > t_end.tv_sec + 90) {
			out("FAIL: the fuzz process did not end 90 s after its time; killing it");
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			failed = 1;
			done = 1;
		}
	}
	if (st->killed && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) {
		out("the fuzz process was killed (SIGKILL) at the end, as planned");
	} else if (WIFSIGNALED(status)) {
		out("FAIL: the fuzz process died of signal %d",
		    WTERMSIG(status));
		failed = 1;
	} else if (WEXITSTATUS(status)) {
		out("FAIL: the fuzz process exited with %d", WEXITSTATUS(status));
		failed = 1;
	}
	if (st->fuzz_fail) {
		out("FAIL: %s", st->fail_why);
		failed = 1;
	}
	/* the peer ends with the fuzz process's socket */
	for (i = 0; peer > 0 && i < 300; i++) {
		if (waitpid(peer, &pst, WNOHANG) == peer)
			break;
		usleep(100000);
	}
	if (peer > 0 && i == 300) {
		out("FAIL: the xpeer process did not end 30 s after the fuzz process; killing it");
		kill(peer, SIGKILL);
		waitpid(peer, &pst, 0);
		failed = 1;
	} else if (peer > 0 && (!WIFEXITED(pst) || WEXITSTATUS(pst))) {
		out("FAIL: the xpeer process ended with status %#x", pst);
		failed = 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	out("fuzzing ended after %ld s", (long)(now.tv_sec - t0.tv_sec));

	for (d = 0; d < ndev && opt.checks; d++) {
		/* leaks: the resources and the model's objects settle */
		failed |= objects_left(d, 200, "after the last close");
		if (r0[d].n) {
			for (i = 0; i < 200; i++) {
				read_regs(devs[d].regs, &r1[d]);
				if (!memcmp(r0[d].val, r1[d].val,
					    sizeof(r0[d].val[0]) * r0[d].n))
					break;
				usleep(100000);
			}
			if (i == 200) {
				out("FAIL: %s: the model holds %llu %llu %llu %llu %llu",
				    devs[d].name, r1[d].val[0], r1[d].val[1],
				    r1[d].val[2], r1[d].val[3], r1[d].val[4]);
				out("  (qps cqs srqs mrs db_pages) before %llu %llu %llu %llu %llu",
				    r0[d].val[0], r0[d].val[1], r0[d].val[2],
				    r0[d].val[3], r0[d].val[4]);
				failed = 1;
			}
		}
		*why = 0;
		if (sanity(d, why, sizeof(why))) {
			out("FAIL: %s: the device no longer works: %s",
			    devs[d].name, why);
			failed = 1;
		}
		failed |= objects_left(d, 50, "after the check");
	}
	for (d = 0; d < ndev; d++) {
		c1[d].n = 0;
		xt_read_counters(devs[d].ctrs, &c1[d]);
	}
	print_summary(c0, c1);
	if (failed) {
		out("FAIL seed=%llu; replay: %s", opt.seed, replay);
		return 1;
	}
	out("PASS seed=%llu, %lu actions in %ld s", opt.seed, st->iters,
	    (long)(now.tv_sec - t0.tv_sec));
	return 0;
}
