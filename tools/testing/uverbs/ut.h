/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uverbs_test: integration tests of the xrdma uverbs ABI
 * (Documentation/uverbs.rst) against xrdma_testdev, run inside a guest.
 *
 * A tiny framework: every check prints one TAP-like line
 *   ok N - SUBTEST: NAME
 *   not ok N - SUBTEST: NAME: DETAIL
 * and the program ends with "# uverbs_test: N passed, N failed" and exit
 * status 1 if any check failed.  Subtests run in forked children (with a
 * time limit); the counters live in shared memory, so checks made in any
 * process count.
 */
#ifndef UT_H
#define UT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <xrdma/xrdma-abi.h>
#include <xrdma/xrdma-testdev-abi.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ----------------------------------------------------------- framework */

/* spelled so that checkpatch's attribute rule does not apply to userspace */
#define UT_ATTRIBUTE __attribute__
#define __printf(a, b) UT_ATTRIBUTE((format(printf, a, b)))

/* one real access to memory the kernel (or another process) may change */
static inline uint64_t rd64(const void *p)
{
	return __atomic_load_n((const uint64_t *)p, __ATOMIC_RELAXED);
}

static inline uint32_t rd32(const void *p)
{
	return __atomic_load_n((const uint32_t *)p, __ATOMIC_RELAXED);
}

static inline void wr64(void *p, uint64_t v)
{
	__atomic_store_n((uint64_t *)p, v, __ATOMIC_RELAXED);
}

extern const char *ut_subtest;		/* current subtest name */

__printf(3, 4)
bool ut_ok(bool ok, const char *detail, const char *fmt, ...);
__printf(3, 4)
bool ut_rc(long got, long want, const char *fmt, ...);
__printf(3, 4)
bool ut_eq(unsigned long long got, unsigned long long want,
	   const char *fmt, ...);
__printf(1, 2)
void ut_note(const char *fmt, ...);
__printf(2, 3)
bool ut_fail(const char *detail, const char *fmt, ...);

/* CHECK(cond, name fmt...) */
#define CHECK(c, ...) ut_ok(!!(c), "false: " #c, __VA_ARGS__)
/* CHECK_RC(rc, want, name...): rc and want are 0 or -errno */
#define CHECK_RC(got, want, ...) ut_rc((got), (want), __VA_ARGS__)
#define CHECK_EQ(got, want, ...) ut_eq((got), (want), __VA_ARGS__)

const char *errname(long err);	/* "-EINVAL", "0", ... */

/* ------------------------------------------------------------- device */

extern char ut_devname[64];		/* xrdma device, e.g. testdev0 */
extern char ut_uvname[64];		/* uverbsN */
extern char ut_devpath[256];		/* /dev/xrdma/uverbsN */
extern long ut_pagesz;
/* filled once by main() from a first context */
extern struct xrdma_cmd_query_device ut_dattr;
extern struct xrdma_cmd_query_port ut_pattr;
extern uint8_t ut_gid0[16];
extern uint32_t ut_ncomp;		/* num_comp_vectors */

struct ctx {
	int fd;
	uint32_t num_comp_vectors;
	struct xrdma_testdev_ucontext_resp resp;
};

/* 0 or -errno */
static inline int xio(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

/* ioctl number of command nr with an arbitrary encoded size */
#define IOC_SZ(nr, sz) _IOC(_IOC_READ | _IOC_WRITE, XRDMA_IOC_MAGIC, (nr), (sz))

int dev_open(void);			/* fd or -errno */
int ctx_open(struct ctx *c);		/* 0 or -errno; c->fd valid on 0 */
void ctx_close(struct ctx *c);

struct cq {
	uint32_t h;
	uint32_t cqe;
	struct xrdma_testdev_create_cq_resp resp;
};

struct qp {
	uint32_t h;
	uint32_t qpn;
	struct xrdma_uverbs_qp_cap cap;
};

struct mr {
	uint32_t h, lkey, rkey;
};

int alloc_pd(int fd, uint32_t *h);
int create_cq(int fd, uint32_t cqe, int chan, uint64_t cookie, struct cq *cq);
int create_qp(int fd, uint32_t pd, uint32_t scq, uint32_t rcq, uint32_t srq,
	      uint32_t type, uint64_t cookie, struct qp *qp);
int create_srq(int fd, uint32_t pd, uint32_t max_wr, uint32_t max_sge,
	       uint32_t limit, uint64_t cookie, uint32_t *h);
int reg_mr(int fd, uint32_t pd, const void *addr, uint64_t len, uint64_t iova,
	   uint32_t access, struct mr *mr);
void ah_attr_default(struct xrdma_uverbs_ah_attr *a);
int create_ah(int fd, uint32_t pd, uint64_t cookie, uint32_t *h);
int destroy(int fd, uint32_t type, uint32_t h);
int destroy_ex(int fd, uint32_t type, uint32_t h, struct xrdma_cmd_destroy *d);
int new_channel(int fd);		/* fd or -errno */
int get_async_fd(int fd);		/* fd or -errno */
int modify_qp(int fd, uint32_t qp, uint32_t mask,
	      const struct xrdma_uverbs_qp_attr *a);
int query_qp(int fd, uint32_t qp, struct xrdma_cmd_query_qp *q);
int qp_to_rts(int fd, uint32_t qp, uint32_t type, uint32_t dest_qpn);

/* IBV_QP_* attribute mask bits */
enum {
	QPA_STATE = 1 << 0, QPA_CUR_STATE = 1 << 1, QPA_EN_SQD = 1 << 2,
	QPA_ACCESS = 1 << 3, QPA_PKEY = 1 << 4, QPA_PORT = 1 << 5,
	QPA_QKEY = 1 << 6, QPA_AV = 1 << 7, QPA_PATH_MTU = 1 << 8,
	QPA_TIMEOUT = 1 << 9, QPA_RETRY = 1 << 10, QPA_RNR_RETRY = 1 << 11,
	QPA_RQ_PSN = 1 << 12, QPA_MAX_RD = 1 << 13, QPA_ALT_PATH = 1 << 14,
	QPA_MIN_RNR = 1 << 15, QPA_SQ_PSN = 1 << 16, QPA_MAX_DEST_RD = 1 << 17,
	QPA_MIG = 1 << 18, QPA_CAP = 1 << 19, QPA_DEST_QPN = 1 << 20,
};

enum { QPS_RESET, QPS_INIT, QPS_RTR, QPS_RTS, QPS_SQD, QPS_SQE, QPS_ERR };

#define ACC_LW	XRDMA_UVERBS_ACCESS_LOCAL_WRITE
#define ACC_RW	XRDMA_UVERBS_ACCESS_REMOTE_WRITE
#define ACC_RR	XRDMA_UVERBS_ACCESS_REMOTE_READ
#define ACC_RA	XRDMA_UVERBS_ACCESS_REMOTE_ATOMIC

/* -------------------------------------------------- debugfs and procfs */

enum { R_PD, R_CQ, R_QP, R_SRQ, R_MR, R_AH, R_NUM };
extern const char *const res_names[R_NUM];

int res_counts(int c[R_NUM]);		/* 0 or -errno */
int res_total(void);			/* sum of counts, or -errno */
int res_pid_lines(pid_t pid);		/* objects listed for pid, or -errno */
void res_str(char *buf, size_t len);	/* "pd 0 cq 1 ..." for messages */
/* wait up to ms for the total to reach zero; returns the last total */
int res_wait_zero(int ms);
__printf(1, 2)
int td_inject(const char *fmt, ...);	/* 0 or -errno */
long meminfo_kb(const char *key);	/* -1 if absent */
long status_kb(const char *key);	/* this process's /proc/self/status */

/* poll one fd: 1 readable, 0 timeout, -errno */
int wait_readable(int fd, int ms);
void *map_pages(size_t n, int prot);	/* anonymous, populated; or NULL */
/* read / write one byte at p: 0, or the signal it raised (SIGSEGV, SIGBUS) */
int probe_read(const void *p);
int probe_write(void *p);
uint64_t now_ms(void);

/* ------------------------------------------------------------ subtests */

struct subtest {
	const char *name;
	void (*fn)(void);
	int timeout;		/* seconds */
	bool nofork;		/* run in the main process */
	const char *help;
};

/* t_cmds.c */
void t_sysfs(void);
void t_context(void);
void t_ioctl(void);
void t_query(void);
void t_pd(void);
void t_mr(void);
void t_cq(void);
void t_qp(void);
void t_srq(void);
void t_ah(void);
void t_destroy(void);
void t_sizes(void);
void t_fds(void);
void t_kick(void);
/* t_mmap.c */
void t_mmap(void);
void t_fork(void);
/* t_events.c */
void t_compchan(void);
void t_async(void);
void t_fatal(void);
/* t_life.c */
void t_close(void);
void t_kill(void);
void t_memlock(void);
void t_cycles(void);
void t_remove(void);
/* t_limits.c (on xnic) */
void t_limmem(void);
void t_limcap(void);
void t_limshare(void);
void t_limcgroup(void);
void t_limmemcg(void);

extern const char *ut_ready_file;	/* -r: t_remove writes its pid here */

#endif
