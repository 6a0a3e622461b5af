/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uverbs_test: integration tests of the xrdma uverbs ABI
 * (Documentation/uverbs.rst) against xrdma_testdev, run inside a guest.
 *
 Checks, their output and the subtest runner are the test library's
 * (tools/testing/harness/xt/xt.h): one line a check,
 *   ok N - SUBTEST: NAME
 *   not ok N - SUBTEST: NAME: DETAIL
 * and at the end "# uverbs_test: N tests, N failed", exit status 1 if any
 * check failed.  Subtests run in forked children (with a time limit).
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
#include "xt.h"
#include "xt_uverbs.h"

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

/*
 * the names these tests had before the library (tools/testing/harness/xt/xt.h);
 * new code uses the xt_ ones
 */
#define ut_subtest	xt_subtest
#define ut_ok		xt_ok
#define ut_fail		xt_fail
#define ut_note		xt_note
#define errname		xt_errname
#define now_ms		xt_now_ms
#define modify_qp	xt_modify_qp

/* ------------------------------------------------------------- device */

extern char ut_devname[64];		/* xrdma device, e.g. testdev0 */
extern char ut_uvname[64];		/* uverbsN */
extern char ut_devpath[256];		/* /dev/infiniband/xrdma_uverbsN */
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

/* ioctl number of command nr with an arbitrary encoded size */
#define IOC_SZ(nr, sz) _IOC(_IOC_READ | _IOC_WRITE, XRDMA_IOC_MAGIC, (nr), (sz))

int dev_open(void);			/* fd or -errno */
int ctx_open(struct ctx *c);		/* 0 or -errno; c->fd valid on 0 */
/* which fd a table row's command goes to */
enum ut_fd {
	UT_FD_CTX,	/* the caller's context */
	UT_FD_NOCTX,	/* a new fd without a context (GET_CONTEXT) */
	UT_FD_NEWCTX,	/* a new context (GET_ASYNC_FD: once per context) */
};

/* @fd for UT_FD_CTX, else a new one (the caller closes it): fd or -1 */
int ut_row_fd(int fd, enum ut_fd which);
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
int query_qp(int fd, uint32_t qp, struct xrdma_cmd_query_qp *q);
int qp_to_rts(int fd, uint32_t qp, uint32_t type, uint32_t dest_qpn);

/*
 * The objects the table-driven subtests (abi, sizes) point every command
 * at: a context with a PD, a CQ, an SRQ, an RC QP and a page for an MR.
 */
struct ut_fix {
	struct ctx c;
	uint32_t pd, srq;
	struct cq cq;
	struct qp qp;
	void *mrbuf;
};

bool ut_fix_open(struct ut_fix *f);	/* false: failed (and reported) */
/* checks that only the fixture's objects remain, then destroys them */
void ut_fix_close(struct ut_fix *f);
/* makes *u a valid command nr (_IOC_NR) on f's objects, sent to fd */
void ut_cmd_prep(struct ut_fix *f, int fd, unsigned int nr,
		 union xt_cmd *u);
/* removes what a successful command nr made (an object, an fd) */
void ut_cmd_undo(int fd, unsigned int nr, union xt_cmd *u);
/*
 * Issues create command cmd (m its structure): with h, the new handle goes
 * to *h (0 on failure); without, the object made is destroyed at once.
 */
int ut_create(int fd, unsigned long cmd, void *m, uint32_t *h);
/*
 * Opens *c and makes a PD and a CQ of 4 (and, with qp, an RC QP on it);
 * false: failed (and reported).
 */
bool ut_open_objs(struct ctx *c, uint32_t *pd, struct cq *cq, struct qp *qp);

#define ACC_LW	XRDMA_UVERBS_ACCESS_LOCAL_WRITE
#define ACC_RW	XRDMA_UVERBS_ACCESS_REMOTE_WRITE
#define ACC_RR	XRDMA_UVERBS_ACCESS_REMOTE_READ
#define ACC_RA	XRDMA_UVERBS_ACCESS_REMOTE_ATOMIC

/* -------------------------------------------------- debugfs and procfs */

enum { R_PD, R_CQ, R_QP, R_SRQ, R_MR, R_AH, R_NUM };
extern const char *const res_names[R_NUM];

int res_counts(int c[R_NUM]);		/* 0 or -errno */
int res_total(void);			/* sum of counts, or -errno */
/* the summary count of any type ("xrcd", "mw"), or -errno */
int res_count_of(const char *type);
int res_pid_lines(pid_t pid);		/* objects listed for pid, or -errno */
void res_str(char *buf, size_t len);	/* "pd 0 cq 1 ..." for messages */
/* wait up to ms for the total to reach zero; returns the last total */
int res_wait_zero(int ms);
/* writes s to the file at path: bytes written, or -errno */
ssize_t ut_write_str(const char *path, const char *s);
__printf(1, 2)
int td_inject(const char *fmt, ...);	/* 0 or -errno */
long meminfo_kb(const char *key);	/* -1 if absent */
long status_kb(const char *key);	/* this process's /proc/self/status */

/* poll one fd: 1 readable, 0 timeout, -errno */
int wait_readable(int fd, int ms);
void *map_pages(size_t n, int prot);	/* anonymous, populated; or NULL */
/* read / write one byte at p: 0, or the signal it raised (SIGSEGV, SIGBUS) */
static inline int probe_read(const void *p)
{
	return xt_probe((void *)p, false, NULL);
}

static inline int probe_write(void *p)
{
	return xt_probe(p, true, NULL);
}

/* ------------------------------------------------------------ subtests */

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
void t_xrc(void);
void t_destroy(void);
void t_sizes(void);
void t_fds(void);
void t_kick(void);
void t_query_clock(void);
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
void t_limdm(void);
void t_limmcast(void);
void t_limcgroup(void);
void t_limmemcg(void);
void t_limdmabuf(void);

extern const char *ut_ready_file;	/* -r: t_remove writes its pid here */

#endif
