// SPDX-License-Identifier: GPL-2.0
/*
 * uverbs_test: framework, helpers and main().
 *
 * Usage: uverbs_test [-d DEV] [-f FAILFILE] [-r READYFILE] [-l] [SUBTEST...]
 *   -d DEV     xrdma device to test (default testdev0)
 *   -f FILE    append one line per failed check to FILE
 *   -r FILE    the "remove" subtest writes its pid there when ready
 *   -l         list the subtests
 *   SUBTEST    names or shell globs; default: every subtest but "remove"
 */
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "ut.h"

char ut_devname[64] = "testdev0";
char ut_uvname[64];
char ut_devpath[256];
long ut_pagesz;
struct xrdma_cmd_query_device ut_dattr;
struct xrdma_cmd_query_port ut_pattr;
uint8_t ut_gid0[16];
uint32_t ut_ncomp;
const char *ut_ready_file;

/* ------------------------------------------------------------ device */

int dev_open(void)
{
	int fd = open(ut_devpath, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int ctx_open(struct ctx *c)
{
	struct xrdma_cmd_get_context gc = { 0 };
	int fd, ret;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	fd = dev_open();
	if (fd < 0)
		return fd;
	gc.udata.out = (uintptr_t)&c->resp;
	gc.udata.out_len = sizeof(c->resp);
	ret = xio(fd, XRDMA_IOC_GET_CONTEXT, &gc);
	if (ret) {
		close(fd);
		return ret;
	}
	c->fd = fd;
	c->num_comp_vectors = gc.num_comp_vectors;
	return 0;
}

int ut_row_fd(int fd, enum ut_fd which)
{
	struct ctx fc;

	switch (which) {
	case UT_FD_NOCTX:
		fd = dev_open();
		return fd < 0 ? -1 : fd;
	case UT_FD_NEWCTX:
		return ctx_open(&fc) ? -1 : fc.fd;
	default:
		return fd;
	}
}

void ctx_close(struct ctx *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

int alloc_pd(int fd, uint32_t *h)
{
	struct xrdma_cmd_alloc_pd c = { 0 };
	int ret = xio(fd, XRDMA_IOC_ALLOC_PD, &c);

	*h = ret ? 0 : c.pd_handle;
	return ret;
}

int create_cq(int fd, uint32_t cqe, int chan, uint64_t cookie, struct cq *cq)
{
	struct xrdma_cmd_create_cq c = {
		.user_cookie = cookie,
		.cqe = cqe,
		.channel_fd = chan,
		.udata.out = (uintptr_t)&cq->resp,
		.udata.out_len = sizeof(cq->resp),
	};
	int ret;

	memset(cq, 0, sizeof(*cq));
	ret = xio(fd, XRDMA_IOC_CREATE_CQ, &c);
	if (!ret) {
		cq->h = c.cq_handle;
		cq->cqe = c.cqe;
	}
	return ret;
}

int create_qp(int fd, uint32_t pd, uint32_t scq, uint32_t rcq, uint32_t srq,
	      uint32_t type, uint64_t cookie, struct qp *qp)
{
	struct xrdma_cmd_create_qp c = {
		.user_cookie = cookie,
		.pd_handle = pd,
		.send_cq_handle = scq,
		.recv_cq_handle = rcq,
		.qp_type = type,
		.cap.max_send_wr = 16,
		.cap.max_send_sge = 1,
	};
	int ret;

	memset(qp, 0, sizeof(*qp));
	if (srq) {
		c.flags = XRDMA_UVERBS_CREATE_QP_SRQ;
		c.srq_handle = srq;
	} else {
		c.cap.max_recv_wr = 16;
		c.cap.max_recv_sge = 1;
	}
	ret = xio(fd, XRDMA_IOC_CREATE_QP, &c);
	if (!ret) {
		qp->h = c.qp_handle;
		qp->qpn = c.qpn;
		qp->cap = c.cap;
	}
	return ret;
}

int create_srq(int fd, uint32_t pd, uint32_t max_wr, uint32_t max_sge,
	       uint32_t limit, uint64_t cookie, uint32_t *h)
{
	struct xrdma_cmd_create_srq c = {
		.user_cookie = cookie, .pd_handle = pd,
		.max_wr = max_wr, .max_sge = max_sge, .srq_limit = limit,
	};

	return ut_create(fd, XRDMA_IOC_CREATE_SRQ, &c, h);
}

int reg_mr(int fd, uint32_t pd, const void *addr, uint64_t len, uint64_t iova,
	   uint32_t access, struct mr *mr)
{
	struct xrdma_cmd_reg_mr c = { 0 };
	int ret;

	c.pd_handle = pd;
	c.access = access;
	c.addr = (uintptr_t)addr;
	c.length = len;
	c.iova = iova;
	ret = xio(fd, XRDMA_IOC_REG_MR, &c);
	if (mr) {
		memset(mr, 0, sizeof(*mr));
		if (!ret) {
			mr->h = c.mr_handle;
			mr->lkey = c.lkey;
			mr->rkey = c.rkey;
		}
	}
	return ret;
}

void ah_attr_default(struct xrdma_uverbs_ah_attr *a)
{
	memset(a, 0, sizeof(*a));
	memcpy(a->dgid, ut_gid0, 16);
	a->is_global = 1;
	a->hop_limit = 64;
	a->sgid_index = 0;
	a->port_num = 1;
	a->dlid = ut_pattr.lid;
}

bool ut_fix_open(struct ut_fix *f)
{
	memset(f, 0, sizeof(*f));
	if (!CHECK_RC(ctx_open(&f->c), 0, "context"))
		return false;
	f->mrbuf = map_pages(1, PROT_READ | PROT_WRITE);
	if (!f->mrbuf || alloc_pd(f->c.fd, &f->pd) ||
	    create_cq(f->c.fd, 4, -1, 0, &f->cq) ||
	    create_srq(f->c.fd, f->pd, 4, 1, 0, 0, &f->srq) ||
	    create_qp(f->c.fd, f->pd, f->cq.h, f->cq.h, 0, XRDMA_UVERBS_QPT_RC,
		      0, &f->qp)) {
		ut_fail("setup", "PD, CQ, SRQ, QP");
		ctx_close(&f->c);
		return false;
	}
	return true;
}

void ut_fix_close(struct ut_fix *f)
{
	CHECK_EQ(res_total(), 4, "only the fixture's 4 objects remain");
	destroy(f->c.fd, XRDMA_OBJ_QP, f->qp.h);
	destroy(f->c.fd, XRDMA_OBJ_SRQ, f->srq);
	destroy(f->c.fd, XRDMA_OBJ_CQ, f->cq.h);
	destroy(f->c.fd, XRDMA_OBJ_PD, f->pd);
	ctx_close(&f->c);
}

void ut_cmd_prep(struct ut_fix *f, int fd, unsigned int nr, union xt_cmd *u)
{
	static struct xrdma_testdev_create_cq_resp cq_resp;
	static struct xrdma_testdev_ucontext_resp ctx_resp;

	switch (nr) {
	case _IOC_NR(XRDMA_IOC_GET_CONTEXT):
		u->gc.udata.out = (uintptr_t)&ctx_resp;
		u->gc.udata.out_len = sizeof(ctx_resp);
		break;
	case _IOC_NR(XRDMA_IOC_QUERY_PORT):
		u->qpo.port_num = 1;
		break;
	case _IOC_NR(XRDMA_IOC_QUERY_GID):
		u->qg.port_num = 1;
		break;
	case _IOC_NR(XRDMA_IOC_DESTROY):	/* of a PD made for it */
		u->d.type = XRDMA_OBJ_PD;
		alloc_pd(fd, &u->d.handle);
		break;
	case _IOC_NR(XRDMA_IOC_REG_MR):
		u->mr.pd_handle = f->pd;
		u->mr.addr = (uintptr_t)f->mrbuf;
		u->mr.iova = (uintptr_t)f->mrbuf;
		u->mr.length = ut_pagesz;
		u->mr.access = ACC_LW;
		break;
	case _IOC_NR(XRDMA_IOC_CREATE_CQ):
		u->cq.cqe = 4;
		u->cq.channel_fd = -1;
		u->cq.udata.out = (uintptr_t)&cq_resp;
		u->cq.udata.out_len = sizeof(cq_resp);
		break;
	case _IOC_NR(XRDMA_IOC_CREATE_QP):
		u->qp.pd_handle = f->pd;
		u->qp.send_cq_handle = f->cq.h;
		u->qp.recv_cq_handle = f->cq.h;
		u->qp.qp_type = XRDMA_UVERBS_QPT_RC;
		u->qp.cap.max_send_wr = 1;
		u->qp.cap.max_recv_wr = 1;
		u->qp.cap.max_send_sge = 1;
		u->qp.cap.max_recv_sge = 1;
		break;
	case _IOC_NR(XRDMA_IOC_MODIFY_QP):	/* RESET -> RESET */
		u->mqp.qp_handle = f->qp.h;
		u->mqp.attr_mask = XRDMA_UVERBS_QP_STATE;
		u->mqp.attr.qp_state = XRDMA_UVERBS_QPS_RESET;
		break;
	case _IOC_NR(XRDMA_IOC_QUERY_QP):
		u->qqp.qp_handle = f->qp.h;
		break;
	case _IOC_NR(XRDMA_IOC_CREATE_SRQ):
		u->srq.pd_handle = f->pd;
		u->srq.max_wr = 4;
		u->srq.max_sge = 1;
		break;
	case _IOC_NR(XRDMA_IOC_MODIFY_SRQ):
		u->msrq.srq_handle = f->srq;
		u->msrq.attr_mask = XRDMA_UVERBS_SRQ_LIMIT;
		u->msrq.srq_limit = 1;
		break;
	case _IOC_NR(XRDMA_IOC_QUERY_SRQ):
		u->qsrq.srq_handle = f->srq;
		break;
	case _IOC_NR(XRDMA_IOC_CREATE_AH):
		u->ah.pd_handle = f->pd;
		ah_attr_default(&u->ah.attr);
		break;
	case _IOC_NR(XRDMA_IOC_KICK):
		u->kick.qp_handle = f->qp.h;
		break;
	case _IOC_NR(XRDMA_IOC_OPEN_XRCD):	/* a private domain */
		((struct xrdma_cmd_open_xrcd *)u->raw)->fd = -1;
		break;
	}
}

#define MADE(cmd, type, field)	\
	{ _IOC_NR(XRDMA_IOC_##cmd), type, offsetof(union xt_cmd, field) }

/* the commands that make an object: its type, where its handle is */
static const struct {
	unsigned int nr;
	uint32_t type;
	size_t off;
} ut_made[] = {
	MADE(ALLOC_PD, XRDMA_OBJ_PD, pd.pd_handle),
	MADE(REG_MR, XRDMA_OBJ_MR, mr.mr_handle),
	MADE(CREATE_CQ, XRDMA_OBJ_CQ, cq.cq_handle),
	MADE(CREATE_QP, XRDMA_OBJ_QP, qp.qp_handle),
	MADE(CREATE_SRQ, XRDMA_OBJ_SRQ, srq.srq_handle),
	MADE(CREATE_AH, XRDMA_OBJ_AH, ah.ah_handle),
	{ _IOC_NR(XRDMA_IOC_OPEN_XRCD), XRDMA_OBJ_XRCD,
	  offsetof(struct xrdma_cmd_open_xrcd, xrcd_handle) },
};

/* the object a successful command nr made: false if it makes none */
static bool ut_made_obj(unsigned int nr, const void *m, uint32_t *type,
			uint32_t *h)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ut_made); i++) {
		if (ut_made[i].nr != nr)
			continue;
		*type = ut_made[i].type;
		memcpy(h, (const char *)m + ut_made[i].off, sizeof(*h));
		return true;
	}
	return false;
}

void ut_cmd_undo(int fd, unsigned int nr, union xt_cmd *u)
{
	uint32_t type, h;

	if (ut_made_obj(nr, u, &type, &h))
		destroy(fd, type, h);
	if (nr == _IOC_NR(XRDMA_IOC_CREATE_COMP_CHANNEL) ||
	    nr == _IOC_NR(XRDMA_IOC_GET_ASYNC_FD))
		close(u->fd.fd);
}

int ut_create(int fd, unsigned long cmd, void *m, uint32_t *h)
{
	int ret = xio(fd, cmd, m);
	uint32_t type, made = 0;

	if (!ret && ut_made_obj(_IOC_NR(cmd), m, &type, &made) && !h)
		destroy(fd, type, made);
	if (h)
		*h = made;
	return ret;
}

bool ut_open_objs(struct ctx *c, uint32_t *pd, struct cq *cq, struct qp *qp)
{
	if (!CHECK_RC(ctx_open(c), 0, "context"))
		return false;
	if (alloc_pd(c->fd, pd) || create_cq(c->fd, 4, -1, 0, cq) ||
	    (qp && create_qp(c->fd, *pd, cq->h, cq->h, 0, XRDMA_UVERBS_QPT_RC,
			     0, qp))) {
		ut_fail("setup", qp ? "PD, CQ, QP" : "PD, CQ");
		return false;
	}
	return true;
}

int create_ah(int fd, uint32_t pd, uint64_t cookie, uint32_t *h)
{
	struct xrdma_cmd_create_ah c = { 0 };
	int ret;

	c.user_cookie = cookie;
	c.pd_handle = pd;
	ah_attr_default(&c.attr);
	ret = xio(fd, XRDMA_IOC_CREATE_AH, &c);
	*h = ret ? 0 : c.ah_handle;
	return ret;
}

int destroy_ex(int fd, uint32_t type, uint32_t h, struct xrdma_cmd_destroy *d)
{
	memset(d, 0, sizeof(*d));
	d->type = type;
	d->handle = h;
	return xio(fd, XRDMA_IOC_DESTROY, d);
}

int destroy(int fd, uint32_t type, uint32_t h)
{
	struct xrdma_cmd_destroy d;

	return destroy_ex(fd, type, h, &d);
}

int new_channel(int fd)
{
	struct xrdma_cmd_fd c = { 0 };
	int ret = xio(fd, XRDMA_IOC_CREATE_COMP_CHANNEL, &c);

	return ret ? ret : c.fd;
}

int get_async_fd(int fd)
{
	struct xrdma_cmd_fd c = { 0 };
	int ret = xio(fd, XRDMA_IOC_GET_ASYNC_FD, &c);

	return ret ? ret : c.fd;
}

int query_qp(int fd, uint32_t qp, struct xrdma_cmd_query_qp *q)
{
	memset(q, 0, sizeof(*q));
	q->qp_handle = qp;
	q->attr_mask = 0x1fffff;
	return xio(fd, XRDMA_IOC_QUERY_QP, q);
}

/* RESET -> INIT -> RTR -> RTS with valid attributes */
int qp_to_rts(int fd, uint32_t qp, uint32_t type, uint32_t dest_qpn)
{
	struct xrdma_uverbs_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = QPS_INIT;
	a.port_num = 1;
	a.pkey_index = 0;
	if (type == XRDMA_UVERBS_QPT_UD) {
		a.qkey = 0x11111111;
		ret = modify_qp(fd, qp, QPA_STATE | QPA_PKEY | QPA_PORT |
				QPA_QKEY, &a);
	} else {
		a.qp_access_flags = ACC_LW | ACC_RW | ACC_RR;
		ret = modify_qp(fd, qp, QPA_STATE | QPA_PKEY | QPA_PORT |
				QPA_ACCESS, &a);
	}
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = QPS_RTR;
	if (type == XRDMA_UVERBS_QPT_UD) {
		ret = modify_qp(fd, qp, QPA_STATE, &a);
	} else {
		ah_attr_default(&a.ah_attr);
		a.path_mtu = 3;	/* 1024 */
		a.dest_qp_num = dest_qpn;
		a.rq_psn = 0x123;
		a.max_dest_rd_atomic = ut_dattr.max_qp_rd_atom ? 1 : 0;
		a.min_rnr_timer = 12;
		ret = modify_qp(fd, qp, QPA_STATE | QPA_AV | QPA_PATH_MTU |
				QPA_DEST_QPN | QPA_RQ_PSN |
				(type == XRDMA_UVERBS_QPT_RC ?
				 QPA_MAX_DEST_RD | QPA_MIN_RNR : 0), &a);
	}
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = QPS_RTS;
	a.sq_psn = 0x456;
	if (type == XRDMA_UVERBS_QPT_RC) {
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = ut_dattr.max_qp_init_rd_atom ? 1 : 0;
		return modify_qp(fd, qp, QPA_STATE | QPA_TIMEOUT | QPA_RETRY |
				 QPA_RNR_RETRY | QPA_SQ_PSN | QPA_MAX_RD, &a);
	}
	return modify_qp(fd, qp, QPA_STATE | QPA_SQ_PSN, &a);
}

/* ----------------------------------------------------- debugfs/procfs */

const char *const res_names[R_NUM] = { "pd", "cq", "qp", "srq", "mr", "ah" };

static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;
	ssize_t r;

	if (fd < 0)
		return -errno;
	while (got < len - 1) {
		r = read(fd, buf + got, len - 1 - got);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			close(fd);
			return r;
		}
		if (r == 0)
			break;
		got += r;
	}
	buf[got] = 0;
	close(fd);
	return got;
}

static char resbuf[1 << 16];

static int read_resources(void)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/kernel/debug/xrdma/%s/resources",
		 ut_devname);
	return read_file(path, resbuf, sizeof(resbuf));
}

int res_counts(int c[R_NUM])
{
	char name[16];
	char *p;
	int i, n, ret;

	ret = read_resources();
	if (ret < 0)
		return ret;
	p = resbuf;
	for (i = 0; i < R_NUM; i++) {
		if (sscanf(p, "%15s %d", name, &n) != 2 ||
		    strcmp(name, res_names[i]))
			return -EPROTO;
		c[i] = n;
		p = strchr(p, '\n');
		if (!p)
			return -EPROTO;
		p++;
	}
	return 0;
}

int res_total(void)
{
	int c[R_NUM], i, t = 0, ret;

	ret = res_counts(c);
	if (ret)
		return ret;
	for (i = 0; i < R_NUM; i++)
		t += c[i];
	return t;
}

int res_pid_lines(pid_t pid)
{
	char pat[32], *p;
	int ret, n = 0;

	ret = read_resources();
	if (ret < 0)
		return ret;
	snprintf(pat, sizeof(pat), " pid %d\n", (int)pid);
	for (p = resbuf; (p = strstr(p, pat)); p++)
		n++;
	return n;
}

int res_count_of(const char *type)
{
	char name[16], *p;
	int ret, n;

	ret = read_resources();
	if (ret < 0)
		return ret;
	/* the summary lines come first: the first line of @type is its */
	for (p = resbuf; sscanf(p, "%15s %d", name, &n) == 2;) {
		if (!strcmp(name, type))
			return n;
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	return -ENOENT;
}

void res_str(char *buf, size_t len)
{
	int c[R_NUM], ret = res_counts(c);

	if (ret) {
		snprintf(buf, len, "resources unreadable: %s", errname(ret));
		return;
	}
	snprintf(buf, len, "pd %d cq %d qp %d srq %d mr %d ah %d", c[0], c[1],
		 c[2], c[3], c[4], c[5]);
}

int res_wait_zero(int ms)
{
	uint64_t end = now_ms() + ms;
	int t;

	for (;;) {
		t = res_total();
		if (t == 0 || now_ms() >= end)
			return t;
		usleep(20000);
	}
}

ssize_t ut_write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t w;

	if (fd < 0)
		return -errno;
	w = write(fd, s, strlen(s));
	if (w < 0)
		w = -errno;
	close(fd);
	return w;
}

int td_inject(const char *fmt, ...)
{
	char path[256], cmd[128];
	va_list ap;
	ssize_t w;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "/sys/kernel/debug/xrdma_testdev/%s/inject",
		 ut_devname);
	w = ut_write_str(path, cmd);
	if (w < 0)
		return w;
	return w == (ssize_t)strlen(cmd) ? 0 : -EIO;
}

long meminfo_kb(const char *key)
{
	return xt_kv_kb("/proc/meminfo", key);
}

long status_kb(const char *key)
{
	return xt_kv_kb("/proc/self/status", key);
}

int wait_readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r;

	do {
		r = poll(&p, 1, ms);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	return r > 0 && (p.revents & POLLIN) ? 1 : 0;
}

void *map_pages(size_t n, int prot)
{
	void *p = mmap(NULL, n * ut_pagesz, prot, MAP_PRIVATE | MAP_ANONYMOUS |
		       MAP_POPULATE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* ---------------------------------------------------------------- main */

void t_abi(void);	/* t_abi.c */

static const struct xt_subtest subtests[] = {
	{ "sysfs", t_sysfs, 30, false, "discovery attributes, device node" },
	{ "context", t_context, 30, false, "GET_CONTEXT, order, once" },
	{ "ioctl", t_ioctl, 30, false, "magic/nr/direction, bad arg pointers" },
	{ "query", t_query, 30, false, "QUERY_DEVICE/PORT/GID" },
	{ "pd", t_pd, 30, false, "ALLOC_PD" },
	{ "mr", t_mr, 60, false, "REG_MR" },
	{ "cq", t_cq, 30, false, "CREATE_CQ" },
	{ "qp", t_qp, 60, false, "CREATE/MODIFY/QUERY_QP" },
	{ "srq", t_srq, 30, false, "CREATE/MODIFY/QUERY_SRQ" },
	{ "ah", t_ah, 30, false, "CREATE_AH" },
	{ "xrc", t_xrc, 60, false,
	  "OPEN_XRCD, XRC SRQs and QPs, OPEN_QP, shared QP events" },
	{ "destroy", t_destroy, 30, false, "DESTROY, handles" },
	{ "sizes", t_sizes, 60, false, "structure sizes of every command" },
	{ "fds", t_fds, 30, false, "CREATE_COMP_CHANNEL, GET_ASYNC_FD" },
	{ "kick", t_kick, 30, false, "KICK" },
	{ "query_clock", t_query_clock, 30, false, "QUERY_CLOCK" },
	{ "mmap", t_mmap, 30, false, "mmap of rings and doorbells" },
	{ "fork", t_fork, 30, false, "fork: EPERM, no inherited mappings" },
	{ "compchan", t_compchan, 30, false, "completion channels" },
	{ "async", t_async, 60, false, "async event fd, overflow" },
	{ "close", t_close, 30, false, "close/exit with live objects" },
	{ "kill", t_kill, 120, false, "SIGKILL mid-operation" },
	{ "memlock", t_memlock, 30, false, "RLIMIT_MEMLOCK, VmPin" },
	{ "cycles", t_cycles, 400, false, "create/destroy cycles, slab growth" },
	{ "fatal", t_fatal, 30, false, "injected device fatal event" },
	{ "limmem", t_limmem, 60, false, "xnic: queue memory in VmPin, RLIMIT_MEMLOCK" },
	{ "limcap", t_limcap, 60, false, "xnic: per-context memory cap, queue order cap" },
	{ "limshare", t_limshare, 300, false, "xnic: per-uid share of contexts and SRQs" },
	{ "limdm", t_limdm, 60, false, "xnic: per-uid share of device memory" },
	{ "limmcast", t_limmcast, 60, false, "xnic: per-uid share of multicast attachments" },
	{ "limcgroup", t_limcgroup, 60, false, "xnic: rdma cgroup hca_handle/hca_object" },
	{ "limmemcg", t_limmemcg, 60, false, "xnic: queue memory in the memory cgroup" },
	{ "limdmabuf", t_limdmabuf, 120, false, "xnic: dmabuf MR tables: memcg, context cap" },
	{ "remove", t_remove, 120, true,
	  "device removal with an open fd (driven by uverbs_remove.sh)" },
	{ "abi", t_abi, 30, false, "extension convention, reserved numbers" },
};

/* /dev/infiniband/xrdma_uverbsN of ut_devname, found through /sys/class/xrdma */
static int find_device(void)
{
	char path[512], buf[128];
	struct dirent *d;
	DIR *dir;
	int ret;

	dir = opendir("/sys/class/xrdma");
	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/class/xrdma/%s/ibdev",
			 d->d_name);
		if (read_file(path, buf, sizeof(buf)) <= 0)
			continue;
		buf[strcspn(buf, "\n")] = 0;
		if (strcmp(buf, ut_devname))
			continue;
		if (strlen(d->d_name) >= sizeof(ut_uvname))
			continue;
		strcpy(ut_uvname, d->d_name);
		closedir(dir);
		snprintf(ut_devpath, sizeof(ut_devpath), "/dev/infiniband/xrdma_%s",
			 ut_uvname);
		if (access(ut_devpath, F_OK) == 0)
			return 0;
		/* no node (no devtmpfs?): make one so the rest can run */
		unsigned int ma, mi;

		snprintf(path, sizeof(path), "/sys/class/xrdma/%s/dev",
			 ut_uvname);
		ret = read_file(path, buf, sizeof(buf));
		if (ret <= 0 || sscanf(buf, "%u:%u", &ma, &mi) != 2)
			return -ENODEV;
		snprintf(ut_devpath, sizeof(ut_devpath), "/tmp/xrdma-%s",
			 ut_uvname);
		unlink(ut_devpath);
		if (mknod(ut_devpath, S_IFCHR | 0666, makedev(ma, mi)))
			return -errno;
		return 0;
	}
	closedir(dir);
	return -ENODEV;
}

static int setup_attrs(void)
{
	struct xrdma_cmd_query_gid g = { .port_num = 1, .index = 0 };
	struct ctx c;
	int ret;

	ret = ctx_open(&c);
	if (ret)
		return ret;
	ut_ncomp = c.num_comp_vectors;
	ret = xio(c.fd, XRDMA_IOC_QUERY_DEVICE, &ut_dattr);
	if (!ret) {
		ut_pattr.port_num = 1;
		ret = xio(c.fd, XRDMA_IOC_QUERY_PORT, &ut_pattr);
	}
	if (!ret)
		ret = xio(c.fd, XRDMA_IOC_QUERY_GID, &g);
	if (!ret)
		memcpy(ut_gid0, g.gid, 16);
	ctx_close(&c);
	return ret;
}

/* every subtest cleans up after itself, and so must the kernel */
static void after(const struct xt_subtest *t)
{
	char rs[128];
	int left;

	if (!strcmp(t->name, "remove"))
		return;
	left = res_wait_zero(2000);
	res_str(rs, sizeof(rs));
	xt_ok(left == 0, rs, "no objects left on %s", ut_devname);
}

static const struct xt_suite suite = {
	.tests = subtests,
	.n = ARRAY_SIZE(subtests),
	.after = after,
	/* lim*: xnic only (uverbs_limits.sh) */
	.opt_in = "remove fatal lim*",
};

static void set_devname(const char *name)
{
	snprintf(ut_devname, sizeof(ut_devname), "%s", name);
}

int main(int argc, char **argv)
{
	const struct xt_opt opts[] = {
		{ .c = 'd', .arg = "DEV", .fn = set_devname },
		{ .c = 'f', .arg = "FAILFILE", .fn = xt_fail_file },
		{ .c = 'r', .arg = "READYFILE", .str = &ut_ready_file },
	};
	int ret;

	ret = xt_main(&suite, opts, ARRAY_SIZE(opts), &argc, &argv,
		      "uverbs_test");
	if (ret >= 0)
		return ret;
	ut_pagesz = sysconf(_SC_PAGESIZE);
	xt_subtest = "main";

	ret = find_device();
	if (!xt_ok(!ret, xt_errname(ret), "find the uverbs device of %s",
		   ut_devname))
		goto done;
	xt_note("%s is %s (%s)", ut_devname, ut_uvname, ut_devpath);
	ret = setup_attrs();
	if (!xt_ok(!ret, xt_errname(ret),
		   "open a context, query device, port 1 and GID 0"))
		goto done;
	xt_note("num_ports %u max_cqe %u max_qp_wr %u max_sge %u max_srq_wr %u",
		ut_dattr.num_ports, ut_dattr.max_cqe, ut_dattr.max_qp_wr,
		ut_dattr.max_sge, ut_dattr.max_srq_wr);
	xt_note("max_mr_size 0x%llx num_comp_vectors %u port state %u",
		(unsigned long long)ut_dattr.max_mr_size, ut_ncomp,
		ut_pattr.state);
	ret = res_total();
	if (!xt_ok(ret == 0, xt_errname(ret),
		   "debugfs resources readable and zero at start"))
		goto done;

	xt_run(&suite, argc, argv);
done:
	return xt_done();
}
