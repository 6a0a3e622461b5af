// SPDX-License-Identifier: GPL-2.0
/*
 * xv_xrc: XRC through xrdma's libibverbs.so.1 (run with scripts/xrdma-run;
 * guest test tools/testing/lib/xverbs/xverbs_xrc.sh).
 *
 *   caps        IBV_DEVICE_XRC in ibv_query_device(_ex), as the kernel's
 *               QUERY_DEVICE says (CAP_XRC, max_xrcd)
 *   xrcd        domains of a file: O_CREAT, O_EXCL (EEXIST), a missing one
 *               without O_CREAT (ENOENT), shared by two contexts, gone with
 *               its last handle; private ones (fd -1); bad arguments
 *   traffic     three processes: R1 opens the domain of a file, creates
 *               three XRC SRQs and the XRC_RECV QP; R2 opens the domain
 *               through the file, an XRC SRQ of its own, and R1's QP with
 *               ibv_open_qp; S's XRC_SEND QP, connected to that QP, sends
 *               SEND, SEND_WITH_IMM, WRITE, WRITE_WITH_IMM, READ and both
 *               atomics to all four SRQs: data verified, every wr_id
 *               completed once on each side, qp_num the XRC_RECV QP; R2's
 *               SRQ entries come back when the device took them (posted
 *               again before polling); the QP outlives R1's handle while R2
 *               has one and goes with R2's; close_xrcd and destroy_cq
 *               EBUSY while an SRQ uses them
 *   bad_srqn    remote_srqn of an SRQ in another domain, of a basic SRQ,
 *               of none: IBV_WC_REM_INV_REQ_ERR, the XRC_RECV QP in ERR; an
 *               empty XRC SRQ: RNR; remote access checked against the
 *               named SRQ's PD, a refused one puts the SRQ in error
 *   wr_api      ibv_wr_* with ibv_wr_set_xrc_srqn, an extended CQ's
 *               qp_num of an XRC receive
 *   badargs     the calls' errno: XRC_RECV with a PD and CQs (ignored, as
 *               rdma-core), without XRCD, with an SRQ or send ops;
 *               XRC_SEND with receive caps (zeroed) or an SRQ; post_recv
 *               on XRC QPs, post_send on XRC_RECV, windows on XRC_SEND;
 *               ibv_open_qp of a QP of another type or domain;
 *               ibv_create_srq_ex without XRCD/CQ, TM, an unknown type;
 *               EBUSY of close_xrcd, destroy_cq, dealloc_pd
 *   exit_dirty  two processes exit holding a shared domain, an XRC SRQ,
 *               the XRC_RECV QP and an opened handle of it: everything
 *               goes (the resources file, the file's domain)
 *
 *   -d IBDEV  device (xnic0)   -r RESOURCES  the core's debugfs resources
 *   file (counts checked after the multi-process subtests)
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <xrdma/xrdma-abi.h>
#include "xt.h"
#include "xt_verbs.h"

#define WAIT_MS		5000
#define SRQ_WR		8		/* entries of every XRC SRQ */
#define MSG_LEN		256		/* a SEND's payload */
#define NBUF		64		/* receive buffers of a process */
#define RDMA_OFF	(NBUF * MSG_LEN)	/* R1's WRITE/READ area */
#define RDMA_LEN	4096
#define ATOM_OFF	(RDMA_OFF + 2 * RDMA_LEN)	/* two atomic words */
#define BUF_LEN		(ATOM_OFF + 4096)
#define WORKER_SECS	60
#define ACC_ALL		(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
#define NO_SRQ		0x7fffff	/* an SRQ number nobody has */

/* a check whose failure shows errno */
#define CHECK_ERRNO(c, ...)	xt_ok(!!(c), strerror(errno), __VA_ARGS__)

static const char *dev_name = "xnic0";
static const char *res_path;

/* ------------------------------------------------------------ helpers */

/* the count of @type in the core's resources file, or -1 */
static long res_count(const char *type)
{
	char line[128], name[32];
	long n = -1, v;
	FILE *f;

	if (!res_path)
		return -1;
	f = fopen(res_path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%31s %ld", name, &v) == 2 &&
		    !strcmp(name, type) && !strchr(line + strlen(name) + 1, ' ')) {
			n = v;
			break;
		}
	fclose(f);
	return n;
}

static struct ibv_xrcd *xrcd_open(struct ibv_context *ctx, int fd, int oflags)
{
	struct ibv_xrcd_init_attr a = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = fd, .oflags = oflags,
	};

	return ibv_open_xrcd(ctx, &a);
}

/* an XRC SRQ of @max_wr entries, or NULL (errno) */
static struct ibv_srq *xsrq_new(struct ibv_context *ctx, struct ibv_pd *pd,
				struct ibv_xrcd *xrcd, struct ibv_cq *cq)
{
	struct ibv_srq_init_attr_ex a = {
		.attr = { .max_wr = SRQ_WR, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC, .pd = pd, .xrcd = xrcd, .cq = cq,
	};

	return ibv_create_srq_ex(ctx, &a);
}

static uint32_t srq_num(struct ibv_srq *srq)
{
	uint32_t n = 0;

	if (ibv_get_srq_num(srq, &n))
		xt_fail(NULL, "ibv_get_srq_num");
	return n;
}

static struct ibv_qp *xrc_recv_new(struct ibv_context *ctx,
				   struct ibv_xrcd *xrcd)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD, .xrcd = xrcd,
	};

	return ibv_create_qp_ex(ctx, &a);
}

static struct ibv_qp *xrc_send_new(struct ibv_context *ctx,
				   struct ibv_pd *pd, struct ibv_cq *cq,
				   uint64_t ops)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_XRC_SEND, .send_cq = cq,
		.cap = { .max_send_wr = 64, .max_send_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD, .pd = pd,
	};

	if (ops) {
		a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		a.send_ops_flags = ops;
	}
	return ibv_create_qp_ex(ctx, &a);
}

static struct ibv_qp *qp_open(struct ibv_context *ctx, struct ibv_xrcd *xrcd,
			      uint32_t qpn, enum ibv_qp_type type)
{
	struct ibv_qp_open_attr a = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			     IBV_QP_OPEN_ATTR_TYPE | IBV_QP_OPEN_ATTR_CONTEXT,
		.qp_num = qpn, .xrcd = xrcd, .qp_type = type,
		.qp_context = (void *)0x5eed,
	};

	return ibv_open_qp(ctx, &a);
}

/* an XRC_RECV QP RESET -> INIT -> RTR towards @dqpn (the XRC_SEND QP) */
static int tgt_rtr(struct ibv_qp *qp, uint32_t dqpn, const union ibv_gid *gid)
{
	struct ibv_qp_attr a = { 0 };
	int ret = xt_qp_init(qp, 0);

	if (ret)
		return ret;
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = XT_PSN;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = XT_PORT;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			     IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			     IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			     IBV_QP_MIN_RNR_TIMER);
}

/* an XRC_SEND QP RESET -> INIT -> RTR -> RTS towards @dqpn (XRC_RECV) */
static int ini_rts(struct ibv_qp *qp, uint32_t dqpn, const union ibv_gid *gid,
		   uint8_t rnr_retry)
{
	struct ibv_qp_attr a = { 0 };
	int ret = xt_qp_init(qp, 0);

	if (ret)
		return ret;
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = XT_PSN;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = XT_PORT;
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = rnr_retry;
	a.sq_psn = XT_PSN;
	a.max_rd_atomic = 4;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* post one receive of MSG_LEN bytes at buffer slot @slot, wr_id @wr_id */
static int srq_post(struct ibv_srq *srq, struct xt_buf *b, unsigned int slot,
		    uint64_t wr_id)
{
	struct ibv_sge sge = xt_sge(b, (size_t)(slot % NBUF) * MSG_LEN,
				    MSG_LEN);
	struct ibv_recv_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
	}, *bad;

	return ibv_post_srq_recv(srq, &wr, &bad);
}

/* one signaled WR on an XRC_SEND QP; 0 or the post's error */
static int xpost(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t wr_id,
		 uint32_t srqn, struct ibv_sge *sge, uint32_t rkey,
		 uint64_t raddr, uint64_t cmp_add, uint64_t swap, uint32_t imm)
{
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = sge, .num_sge = sge ? 1 : 0,
		.opcode = op, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	wr.qp_type.xrc.remote_srqn = srqn;
	wr.imm_data = htobe32(imm);
	if (op == IBV_WR_ATOMIC_CMP_AND_SWP ||
	    op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = cmp_add;
		wr.wr.atomic.swap = swap;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	return ibv_post_send(qp, &wr, &bad);
}

/* the status of the next completion on @cq, or -1 */
static int wc_status(struct ibv_cq *cq, struct ibv_wc *wc)
{
	struct ibv_wc w;

	if (!wc)
		wc = &w;
	if (!xt_poll_one(cq, wc, WAIT_MS))
		return -1;
	return (int)wc->status;
}

/* ------------------------------------------------------------ messages */

enum { M_R1, M_R2, M_SQP, M_RTR, M_GO, M_DONE, M_CLOSED };

struct msg {
	uint32_t tag;
	uint32_t qpn;		/* R1: the XRC_RECV QP; S: the XRC_SEND QP */
	uint32_t srqn[3];
	uint32_t rkey;
	uint64_t addr;
	uint32_t count;
};

static void msg_send(int fd, const struct msg *m)
{
	if (write(fd, m, sizeof(*m)) != (ssize_t)sizeof(*m))
		xt_bail(errno, "message %u sent", m->tag);
}

static void msg_recv(int fd, uint32_t tag, struct msg *m)
{
	ssize_t n;

	do
		n = read(fd, m, sizeof(*m));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(*m) || m->tag != tag)
		xt_bail(n < 0 ? errno : 0, "message %u received (got %zd bytes, tag %u)",
			tag, n, n > 0 ? m->tag : 0);
}

static void msg_tag(int fd, uint32_t tag)
{
	struct msg m = { .tag = tag };

	msg_send(fd, &m);
}

static void msg_wait(int fd, uint32_t tag)
{
	struct msg m;

	msg_recv(fd, tag, &m);
}

/* fork a worker running fn(arg) with its own time limit; its pid */
static pid_t worker(void (*fn)(int *), int *fds)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		xt_bail(errno, "fork");
	if (!pid) {
		alarm(WORKER_SECS);
		fn(fds);
		fflush(NULL);
		_exit(0);
	}
	return pid;
}

static bool reap(pid_t pid, const char *who)
{
	int st;

	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return xt_check(WIFEXITED(st) && !WEXITSTATUS(st),
			"%s ran to completion (status %#x)", who, st);
}

/* the expected payload of the k-th message to SRQ j (of 4) */
static uint32_t seed_of(unsigned int j, unsigned int k)
{
	return 0x5100 + j * 64 + k;
}

/* ------------------------------------------------------------ caps */

static void t_caps(void)
{
	struct ibv_context *ctx = xt_open_device(dev_name, NULL, 0);
	struct xrdma_cmd_query_device q;
	struct ibv_device_attr_ex ax;
	struct ibv_device_attr a;

	if (!ctx)
		xt_bail(0, "device opened");
	memset(&q, 0, sizeof(q));
	CHECK_RC(ioctl(ctx->cmd_fd, XRDMA_IOC_QUERY_DEVICE, &q) ? -errno : 0,
		 0, "QUERY_DEVICE");
	CHECK(q.device_cap_flags & XRDMA_DEVICE_CAP_XRC,
	      "the kernel reports CAP_XRC (%#x)", q.device_cap_flags);
	CHECK(q.max_xrcd > 0, "and max_xrcd %u", q.max_xrcd);
	CHECK_RC(-ibv_query_device(ctx, &a), 0, "ibv_query_device");
	CHECK(a.device_cap_flags & IBV_DEVICE_XRC,
	      "IBV_DEVICE_XRC reported (%#x)", a.device_cap_flags);
	CHECK_RC(-ibv_query_device_ex(ctx, NULL, &ax), 0,
		 "ibv_query_device_ex");
	CHECK(ax.device_cap_flags_ex & IBV_DEVICE_XRC,
	      "and in device_cap_flags_ex");
	ibv_close_device(ctx);
}

/* ------------------------------------------------------------ domains */

static char path_a[64], path_b[64];

static void tmpfiles(void)
{
	int fd;

	snprintf(path_a, sizeof(path_a), "/tmp/xv_xrc.a.XXXXXX");
	snprintf(path_b, sizeof(path_b), "/tmp/xv_xrc.b.XXXXXX");
	fd = mkstemp(path_a);
	if (fd < 0)
		xt_bail(errno, "mkstemp");
	close(fd);
	fd = mkstemp(path_b);
	if (fd < 0)
		xt_bail(errno, "mkstemp");
	close(fd);
}

static void rmfiles(void)
{
	unlink(path_a);
	unlink(path_b);
}

static void t_xrcd(void)
{
	struct ibv_context *c1 = xt_open_device(dev_name, NULL, 0);
	struct ibv_context *c2 = xt_open_device(dev_name, NULL, 0);
	struct ibv_xrcd *x1, *x2, *x3, *p1, *p2;
	struct ibv_xrcd_init_attr a = { 0 };
	long base = res_count("xrcd");
	int fa, fb, fa2;

	if (!c1 || !c2)
		xt_bail(0, "two contexts");
	tmpfiles();
	fa = open(path_a, O_RDONLY);
	fb = open(path_b, O_RDONLY);
	fa2 = open(path_a, O_RDWR);
	if (fa < 0 || fb < 0 || fa2 < 0)
		xt_bail(errno, "temporary files opened");

	x1 = xrcd_open(c1, fa, 0);
	CHECK_ERRNO(!x1 && errno == ENOENT,
		    "no domain for the file, no O_CREAT: ENOENT");
	x1 = xrcd_open(c1, fa, O_CREAT);
	if (!CHECK_ERRNO(x1, "O_CREAT: a new domain"))
		xt_bail(0, "the file's domain");
	CHECK(x1->context == c1, "its context");
	x2 = xrcd_open(c1, fa, O_CREAT | O_EXCL);
	CHECK_ERRNO(!x2 && errno == EEXIST, "O_CREAT|O_EXCL of an existing one: EEXIST");
	/* another context, another fd of the same file: the same domain */
	x2 = xrcd_open(c2, fa2, 0);
	CHECK_ERRNO(x2, "a second context opens it without O_CREAT");
	/* O_RDWR and other bits are ignored, as Linux does */
	x3 = xrcd_open(c2, fa, O_CREAT | O_RDWR);
	CHECK_ERRNO(x3, "O_CREAT|O_RDWR: the same domain again");
	if (base >= 0)
		CHECK_EQ(res_count("xrcd"), base + 1,
			 "one domain in the resources file");
	p1 = xrcd_open(c1, -1, O_CREAT);
	CHECK_ERRNO(p1, "fd -1, O_CREAT: a private domain");
	p2 = xrcd_open(c1, -1, 0);
	CHECK_ERRNO(p2, "fd -1 without O_CREAT too, as Linux");
	if (base >= 0)
		CHECK_EQ(res_count("xrcd"), base + 3,
			 "and two private ones");
	CHECK_ERRNO(!xrcd_open(c1, fb, O_EXCL) && errno == ENOENT,
		    "O_EXCL alone, no domain: ENOENT");
	CHECK_ERRNO(!xrcd_open(c1, 1000, O_CREAT) && errno == EBADF,
		    "a closed fd: EBADF");

	a.comp_mask = IBV_XRCD_INIT_ATTR_FD;
	a.fd = fa;
	CHECK_ERRNO(!ibv_open_xrcd(c1, &a) && errno == EINVAL,
		    "comp_mask without OFLAGS: EINVAL");
	a.comp_mask = IBV_XRCD_INIT_ATTR_OFLAGS;
	CHECK_ERRNO(!ibv_open_xrcd(c1, &a) && errno == EINVAL,
		    "comp_mask without FD: EINVAL");
	a.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS |
		      IBV_XRCD_INIT_ATTR_RESERVED;
	CHECK_ERRNO(!ibv_open_xrcd(c1, &a) && errno == EOPNOTSUPP,
		    "an unknown comp_mask bit: EOPNOTSUPP");

	if (x1)
		CHECK_RC(-ibv_close_xrcd(x1), 0, "the creator's handle closed");
	/* the domain lives on with c2's handles */
	x1 = xrcd_open(c1, fa, 0);
	CHECK_ERRNO(x1, "still there for the other handles");
	if (x1)
		CHECK_RC(-ibv_close_xrcd(x1), 0, "closed again");
	if (x2)
		CHECK_RC(-ibv_close_xrcd(x2), 0, "second context's closed");
	if (x3)
		CHECK_RC(-ibv_close_xrcd(x3), 0, "third handle closed");
	CHECK_ERRNO(!xrcd_open(c1, fa, 0) && errno == ENOENT,
		    "gone with its last handle: ENOENT");
	if (p1)
		CHECK_RC(-ibv_close_xrcd(p1), 0, "private domain closed");
	if (p2)
		CHECK_RC(-ibv_close_xrcd(p2), 0, "private domain closed");
	/* a domain of a context goes with it */
	x1 = xrcd_open(c2, fb, O_CREAT);
	CHECK(x1, "a domain of file b in the second context");
	ibv_close_device(c2);
	CHECK_ERRNO(!xrcd_open(c1, fb, 0) && errno == ENOENT,
		    "closing the device closed it: ENOENT");
	if (base >= 0)
		CHECK_EQ(res_count("xrcd"), base, "no domain left");
	close(fa);
	close(fb);
	close(fa2);
	rmfiles();
	ibv_close_device(c1);
}

/* ------------------------------------------------------------ traffic */

/*
 * fds: [0] R1-S, [1] R2-S, [2] R1-R2 (each worker uses its ends: the
 * socket pairs' [0] for R1 (to S and R2), R2's [0] to S; see t_traffic)
 */
static int sp_r1s[2], sp_r2s[2], sp_r1r2[2];

struct node {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_xrcd *xrcd;
	struct xt_buf buf;
	union ibv_gid gid;
	int fd;
};

static void node_up(struct node *n, int oflags)
{
	memset(n, 0, sizeof(*n));
	n->ctx = xt_open_device(dev_name, NULL, 0);
	if (!n->ctx)
		xt_bail(0, "device opened");
	n->pd = ibv_alloc_pd(n->ctx);
	if (!n->pd || ibv_query_gid(n->ctx, XT_PORT, XT_GID_INDEX, &n->gid))
		xt_bail(errno, "PD and GID");
	if (!xt_buf_new(&n->buf, n->pd, BUF_LEN, ACC_ALL))
		xt_bail(errno, "buffer registered");
	if (oflags < 0)
		return;
	n->fd = open(path_a, O_RDONLY);
	if (n->fd < 0)
		xt_bail(errno, "open %s", path_a);
	n->xrcd = xrcd_open(n->ctx, n->fd, oflags);
	if (!n->xrcd)
		xt_bail(errno, "the file's domain opened");
}

static void node_down(struct node *n)
{
	if (n->xrcd)
		CHECK_RC(-ibv_close_xrcd(n->xrcd), 0, "domain closed");
	if (n->fd > 0)
		close(n->fd);
	CHECK_RC(-xt_buf_free(&n->buf), 0, "MR deregistered");
	CHECK_RC(-ibv_dealloc_pd(n->pd), 0, "PD deallocated");
	CHECK_RC(-ibv_close_device(n->ctx), 0, "device closed");
}

/*
 * Receive @n completions on @cq for SRQ index @j (of 4) with wr_ids
 * base..base+n-1 once each, through QP @qpn, and check the data: wr_id w
 * took message w - @mbase of that SRQ
 */
static void recv_check(struct ibv_cq *cq, struct xt_buf *b, unsigned int j,
		       uint64_t mbase, uint64_t base, unsigned int n,
		       uint32_t qpn, uint32_t src)
{
	bool seen[NBUF] = { false };
	unsigned int i, bad = 0, dup = 0, other = 0, badqp = 0, data = 0;
	unsigned int badsrc = 0;
	struct ibv_wc wc;

	for (i = 0; i < n; i++) {
		uint64_t k;

		if (!xt_poll_one(cq, &wc, WAIT_MS)) {
			xt_fail(NULL, "receive %u of %u on SRQ %u", i + 1,
				n, j);
			return;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			xt_note("wr_id %#llx status %s",
				(unsigned long long)wc.wr_id,
				ibv_wc_status_str(wc.status));
			bad++;
			continue;
		}
		k = wc.wr_id - base;
		if (wc.wr_id < base || k >= n) {
			other++;
			continue;
		}
		dup += seen[k];
		seen[k] = true;
		badqp += wc.qp_num != qpn;
		badsrc += wc.src_qp != src;
		k = wc.wr_id - mbase;
		if (wc.opcode == IBV_WC_RECV) {
			/* message k of SRQ j, in the slot it was posted to */
			data += wc.byte_len != MSG_LEN ||
				xt_pat_check(b->p + (wc.wr_id % NBUF) * MSG_LEN,
					     MSG_LEN,
					     seed_of(j, (unsigned int)k)) >= 0;
			if ((wc.wc_flags & IBV_WC_WITH_IMM) &&
			    be32toh(wc.imm_data) != (j << 16 | (unsigned int)k))
				data++;
		} else if (wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
			data += !(wc.wc_flags & IBV_WC_WITH_IMM) ||
				be32toh(wc.imm_data) != 0xfeed0000u + j;
		} else {
			data++;
		}
	}
	CHECK_EQ(bad, 0, "SRQ %u: %u receives succeeded", j, n);
	CHECK_EQ(dup + other, 0, "SRQ %u: every wr_id once", j);
	CHECK_EQ(badqp, 0, "SRQ %u: qp_num is the XRC_RECV QP %u", j, qpn);
	CHECK_EQ(badsrc, 0, "SRQ %u: src_qp is the XRC_SEND QP %u", j, src);
	CHECK_EQ(data, 0, "SRQ %u: data, length, immediate", j);
	/* SRQs 0 and 1 share a CQ */
	if (j != 0)
		CHECK(!xt_poll_n(cq, &wc, 1, 0), "SRQ %u: nothing more", j);
}

/* R1: the domain's creator, three SRQs, the XRC_RECV QP */
static void r1_main(int *unused)
{
	struct ibv_cq *cq01, *cq2;
	struct ibv_srq *srq[3];
	struct ibv_qp *tgt, *again;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;
	struct msg m = { .tag = M_R1 }, r;
	uint64_t *atom;
	unsigned int j, k;
	struct node n;

	(void)unused;
	xt_subtest = "traffic R1";
	node_up(&n, O_CREAT);
	cq01 = ibv_create_cq(n.ctx, 64, NULL, NULL, 0);
	cq2 = ibv_create_cq(n.ctx, 64, NULL, NULL, 0);
	if (!cq01 || !cq2)
		xt_bail(errno, "CQs");
	for (j = 0; j < 3; j++) {
		srq[j] = xsrq_new(n.ctx, n.pd, n.xrcd, j < 2 ? cq01 : cq2);
		if (!srq[j])
			xt_bail(errno, "XRC SRQ %u", j);
		m.srqn[j] = srq_num(srq[j]);
		/* 3 receives each: SEND, SEND_WITH_IMM, WRITE_WITH_IMM */
		for (k = 0; k < 3; k++)
			if (srq_post(srq[j], &n.buf, j * 8 + k, j * 8 + k))
				xt_bail(errno, "receive posted");
	}
	CHECK(m.srqn[0] != m.srqn[1] && m.srqn[1] != m.srqn[2],
	      "three SRQ numbers %u %u %u", m.srqn[0], m.srqn[1], m.srqn[2]);
	tgt = xrc_recv_new(n.ctx, n.xrcd);
	if (!tgt)
		xt_bail(errno, "XRC_RECV QP");
	CHECK(tgt->qp_type == IBV_QPT_XRC_RECV && !tgt->pd && !tgt->send_cq &&
	      !tgt->recv_cq && !tgt->srq, "an XRC_RECV QP without PD and CQs");
	CHECK_EQ(tgt->state, IBV_QPS_RESET, "in RESET");
	m.qpn = tgt->qp_num;
	m.rkey = n.buf.mr->rkey;
	m.addr = xt_va(&n.buf, 0);
	xt_pat_fill(n.buf.p + RDMA_OFF + RDMA_LEN, RDMA_LEN, 0x4ead);
	atom = (uint64_t *)(n.buf.p + ATOM_OFF);
	atom[0] = 100;
	atom[1] = 1000;
	msg_send(sp_r1r2[0], &m);
	msg_send(sp_r1s[0], &m);
	msg_recv(sp_r1s[0], M_SQP, &r);
	CHECK_RC(-tgt_rtr(tgt, r.qpn, &n.gid), 0, "XRC_RECV QP in RTR");
	CHECK_RC(-ibv_query_qp(tgt, &qa, IBV_QP_STATE, &qia), 0,
		 "ibv_query_qp");
	CHECK_EQ(qa.qp_state, IBV_QPS_RTR, "it says RTR");
	CHECK_EQ(qia.qp_type, IBV_QPT_XRC_RECV, "of type XRC_RECV");
	msg_tag(sp_r1s[0], M_RTR);

	/* phase 1: S sent everything and saw it complete */
	msg_wait(sp_r1s[0], M_DONE);
	recv_check(cq01, &n.buf, 0, 0, 0, 2, tgt->qp_num, r.qpn);
	/* SRQs 0 and 1 share a CQ: take SRQ 1's after SRQ 0's */
	recv_check(cq01, &n.buf, 1, 8, 8, 3, tgt->qp_num, r.qpn);
	recv_check(cq2, &n.buf, 2, 16, 16, 2, tgt->qp_num, r.qpn);
	CHECK(xt_pat_check(n.buf.p + RDMA_OFF, RDMA_LEN, 0x3417) < 0,
	      "the RDMA WRITE landed");
	CHECK_EQ(atom[0], 200, "compare and swap swapped");
	CHECK_EQ(atom[1], 1007, "fetch and add added");

	/* busy while in use */
	CHECK_RC(-ibv_close_xrcd(n.xrcd), -EBUSY,
		 "close_xrcd with SRQs and the QP in it: EBUSY");
	CHECK_RC(-ibv_destroy_cq(cq2), -EBUSY,
		 "destroy_cq of an XRC SRQ's CQ: EBUSY");

	/* the QP outlives this handle: R2 has one */
	CHECK_RC(-ibv_destroy_qp(tgt), 0, "its XRC_RECV handle destroyed");
	again = qp_open(n.ctx, n.xrcd, m.qpn, IBV_QPT_XRC_RECV);
	CHECK_ERRNO(again, "the QP opened again through the domain");
	if (again)
		CHECK_RC(-ibv_destroy_qp(again), 0, "and closed");
	msg_tag(sp_r1s[0], M_CLOSED);
	msg_wait(sp_r1r2[0], M_CLOSED);
	again = qp_open(n.ctx, n.xrcd, m.qpn, IBV_QPT_XRC_RECV);
	CHECK_ERRNO(!again && errno == ENOENT,
		    "gone with R2's handle, open_qp: ENOENT");

	for (j = 0; j < 3; j++)
		CHECK_RC(-ibv_destroy_srq(srq[j]), 0, "SRQ %u destroyed", j);
	CHECK_RC(-ibv_destroy_cq(cq01), 0, "CQ destroyed");
	CHECK_RC(-ibv_destroy_cq(cq2), 0, "CQ destroyed");
	node_down(&n);
}

/* R2: the same domain through the file, an SRQ, R1's QP opened */
static void r2_main(int *unused)
{
	struct ibv_qp *qp;
	struct ibv_srq *srq;
	struct ibv_cq *cq;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;
	struct msg m = { .tag = M_R2 }, r1, done;
	unsigned int k, posted = 0;
	struct node n;
	int ret;

	(void)unused;
	xt_subtest = "traffic R2";
	msg_recv(sp_r1r2[1], M_R1, &r1);
	node_up(&n, 0);
	cq = ibv_create_cq(n.ctx, 64, NULL, NULL, 0);
	if (!cq)
		xt_bail(errno, "CQ");
	srq = xsrq_new(n.ctx, n.pd, n.xrcd, cq);
	if (!srq)
		xt_bail(errno, "XRC SRQ");
	qp = qp_open(n.ctx, n.xrcd, r1.qpn, IBV_QPT_XRC_RECV);
	if (!CHECK_ERRNO(qp, "R1's XRC_RECV QP opened"))
		xt_bail(0, "the opened QP");
	CHECK(qp->qp_num == r1.qpn && qp->qp_type == IBV_QPT_XRC_RECV &&
	      qp->qp_context == (void *)0x5eed && qp->context == n.ctx,
	      "its number, type, context");
	CHECK_EQ(qp->state, IBV_QPS_UNKNOWN, "state unknown, as rdma-core");
	for (; posted < SRQ_WR; posted++)
		if (srq_post(srq, &n.buf, posted, posted))
			xt_bail(errno, "receive %u posted", posted);
	CHECK_RC(-srq_post(srq, &n.buf, 99, 99), -ENOMEM,
		 "one beyond max_wr: ENOMEM");
	m.srqn[0] = srq_num(srq);
	msg_send(sp_r2s[0], &m);

	/* phase 1: two messages (S says its QP's number) */
	msg_recv(sp_r2s[0], M_DONE, &done);
	CHECK_RC(-ibv_query_qp(qp, &qa, IBV_QP_STATE, &qia), 0,
		 "ibv_query_qp of the opened QP");
	CHECK_EQ(qa.qp_state, IBV_QPS_RTR, "RTR, as R1 left it");
	CHECK_EQ(qp->state, IBV_QPS_RTR, "qp->state updated");
	recv_check(cq, &n.buf, 3, 0, 0, 2, r1.qpn, done.qpn);

	/*
	 * phase 2: full again; S fills all SRQ_WR entries, and they can be
	 * posted again before any completion is polled
	 */
	for (k = 0; k < 2; k++, posted++)
		CHECK_RC(-srq_post(srq, &n.buf, posted, posted), 0,
			 "receive %u posted", posted);
	CHECK_RC(-srq_post(srq, &n.buf, 99, 99), -ENOMEM,
		 "full again: ENOMEM");
	msg_tag(sp_r2s[0], M_GO);
	msg_wait(sp_r2s[0], M_DONE);
	for (k = 0; k < SRQ_WR; k++, posted++) {
		ret = srq_post(srq, &n.buf, posted, posted);
		if (ret)
			break;
	}
	CHECK_EQ(k, SRQ_WR,
		 "%u entries the device took posted again before polling",
		 SRQ_WR);
	CHECK_RC(-srq_post(srq, &n.buf, 99, 99), -ENOMEM,
		 "and then it is full: ENOMEM");
	recv_check(cq, &n.buf, 3, 0, 2, SRQ_WR, r1.qpn, done.qpn);

	/* phase 3: R1 closed its handle, the QP still takes messages */
	msg_tag(sp_r2s[0], M_GO);
	msg_wait(sp_r2s[0], M_DONE);
	recv_check(cq, &n.buf, 3, 0, 2 + SRQ_WR, 2, r1.qpn, done.qpn);
	CHECK_RC(-ibv_destroy_qp(qp), 0, "its handle destroyed, the last");
	msg_tag(sp_r1r2[1], M_CLOSED);

	CHECK_RC(-ibv_close_xrcd(n.xrcd), -EBUSY,
		 "close_xrcd with an SRQ in it: EBUSY");
	CHECK_RC(-ibv_destroy_srq(srq), 0, "SRQ destroyed");
	CHECK_RC(-ibv_destroy_cq(cq), 0, "CQ destroyed");
	node_down(&n);
}

/* wait for @n send completions: each wr_id of @want once, success */
static void send_check(struct ibv_cq *cq, const uint64_t *want,
		       const enum ibv_wc_opcode *op, unsigned int n,
		       const char *what)
{
	bool seen[32] = { false };
	unsigned int i, k, bad = 0, dup = 0, badop = 0;
	struct ibv_wc wc;

	for (i = 0; i < n; i++) {
		if (!xt_poll_one(cq, &wc, WAIT_MS)) {
			xt_fail(NULL, "%s: completion %u of %u", what, i + 1,
				n);
			return;
		}
		for (k = 0; k < n && want[k] != wc.wr_id; k++)
			;
		if (k == n || wc.status != IBV_WC_SUCCESS) {
			xt_note("wr_id %#llx status %s",
				(unsigned long long)wc.wr_id,
				ibv_wc_status_str(wc.status));
			bad++;
			continue;
		}
		dup += seen[k];
		seen[k] = true;
		badop += wc.opcode != op[k];
	}
	CHECK_EQ(bad, 0, "%s: %u WRs completed successfully", what, n);
	CHECK_EQ(dup, 0, "%s: every wr_id once", what);
	CHECK_EQ(badop, 0, "%s: completion opcodes", what);
}

/* n SENDs of SRQ index j's messages k0.. to srqn */
static void s_sends(struct ibv_qp *qp, struct ibv_cq *cq, struct xt_buf *b,
		    unsigned int j, uint32_t srqn, unsigned int k0,
		    unsigned int n, const char *what)
{
	uint64_t want[32];
	enum ibv_wc_opcode op[32];
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct ibv_sge sge = xt_sge(b, (size_t)i * MSG_LEN, MSG_LEN);

		xt_pat_fill(b->p + (size_t)i * MSG_LEN, MSG_LEN,
			    seed_of(j, k0 + i));
		want[i] = 0x100 * (j + 1) + k0 + i;
		op[i] = IBV_WC_SEND;
		if (xpost(qp, IBV_WR_SEND, want[i], srqn, &sge, 0, 0, 0, 0, 0))
			xt_bail(errno, "SEND posted");
	}
	send_check(cq, want, op, n, what);
}

/* S: the XRC_SEND QP */
static void s_main(int *unused)
{
	struct msg r1, r2, m = { .tag = M_SQP };
	enum ibv_wc_opcode op[32];
	uint64_t want[32];
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	unsigned int j, n = 0, i;
	struct node s;
	uint64_t *res;

	(void)unused;
	xt_subtest = "traffic S";
	msg_recv(sp_r1s[1], M_R1, &r1);
	msg_recv(sp_r2s[1], M_R2, &r2);
	node_up(&s, -1);
	cq = ibv_create_cq(s.ctx, 64, NULL, NULL, 0);
	if (!cq)
		xt_bail(errno, "CQ");
	qp = xrc_send_new(s.ctx, s.pd, cq, 0);
	if (!qp)
		xt_bail(errno, "XRC_SEND QP");
	CHECK(qp->qp_type == IBV_QPT_XRC_SEND && qp->pd == s.pd &&
	      qp->send_cq == cq && !qp->recv_cq, "an XRC_SEND QP");
	m.qpn = qp->qp_num;
	msg_send(sp_r1s[1], &m);
	msg_wait(sp_r1s[1], M_RTR);
	CHECK_RC(-ini_rts(qp, r1.qpn, &s.gid, 7), 0, "XRC_SEND QP in RTS");

	/* phase 1: SEND and SEND_WITH_IMM to each SRQ (R2's is index 3) */
	for (j = 0; j < 4; j++) {
		uint32_t srqn = j < 3 ? r1.srqn[j] : r2.srqn[0];

		for (i = 0; i < 2; i++, n++) {
			struct ibv_sge sge = xt_sge(&s.buf,
						    (size_t)n * MSG_LEN,
						    MSG_LEN);

			xt_pat_fill(s.buf.p + (size_t)n * MSG_LEN, MSG_LEN,
				    seed_of(j, i));
			want[n] = 0x100 * (j + 1) + i;
			op[n] = IBV_WC_SEND;
			if (xpost(qp, i ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
				  want[n], srqn, &sge, 0, 0, 0, 0,
				  j << 16 | i))
				xt_bail(errno, "send posted");
		}
	}
	/* WRITE (named SRQ 0), WRITE_WITH_IMM (consumes SRQ 1's third) */
	xt_pat_fill(s.buf.p + RDMA_OFF, RDMA_LEN, 0x3417);
	{
		struct ibv_sge w = xt_sge(&s.buf, RDMA_OFF, RDMA_LEN);
		struct ibv_sge rd = xt_sge(&s.buf, RDMA_OFF + RDMA_LEN,
					   RDMA_LEN);
		struct ibv_sge a0 = xt_sge(&s.buf, ATOM_OFF, 8);
		struct ibv_sge a1 = xt_sge(&s.buf, ATOM_OFF + 8, 8);

		want[n] = 0x900;
		op[n] = IBV_WC_RDMA_WRITE;
		if (xpost(qp, IBV_WR_RDMA_WRITE, want[n++], r1.srqn[0], &w,
			  r1.rkey, r1.addr + RDMA_OFF, 0, 0, 0))
			xt_bail(errno, "WRITE posted");
		want[n] = 0x901;
		op[n] = IBV_WC_RDMA_WRITE;
		if (xpost(qp, IBV_WR_RDMA_WRITE_WITH_IMM, want[n++], r1.srqn[1],
			  NULL, r1.rkey, r1.addr + RDMA_OFF, 0, 0,
			  0xfeed0001))
			xt_bail(errno, "WRITE_WITH_IMM posted");
		want[n] = 0x902;
		op[n] = IBV_WC_RDMA_READ;
		if (xpost(qp, IBV_WR_RDMA_READ, want[n++], r1.srqn[2], &rd,
			  r1.rkey, r1.addr + RDMA_OFF + RDMA_LEN, 0, 0, 0))
			xt_bail(errno, "READ posted");
		want[n] = 0x903;
		op[n] = IBV_WC_COMP_SWAP;
		if (xpost(qp, IBV_WR_ATOMIC_CMP_AND_SWP, want[n++], r1.srqn[0],
			  &a0, r1.rkey, r1.addr + ATOM_OFF, 100, 200, 0))
			xt_bail(errno, "CMP_AND_SWP posted");
		want[n] = 0x904;
		op[n] = IBV_WC_FETCH_ADD;
		if (xpost(qp, IBV_WR_ATOMIC_FETCH_AND_ADD, want[n++],
			  r1.srqn[1], &a1, r1.rkey, r1.addr + ATOM_OFF + 8, 7,
			  0, 0))
			xt_bail(errno, "FETCH_AND_ADD posted");
	}
	send_check(cq, want, op, n, "phase 1");
	CHECK(xt_pat_check(s.buf.p + RDMA_OFF + RDMA_LEN, RDMA_LEN, 0x4ead) < 0,
	      "the RDMA READ brought R1's data");
	res = (uint64_t *)(s.buf.p + ATOM_OFF);
	CHECK_EQ(res[0], 100, "compare and swap read the old value");
	CHECK_EQ(res[1], 1000, "fetch and add read the old value");
	msg_tag(sp_r1s[1], M_DONE);
	m.tag = M_DONE;
	msg_send(sp_r2s[1], &m);

	/* phase 2: R2's SRQ full */
	msg_wait(sp_r2s[1], M_GO);
	s_sends(qp, cq, &s.buf, 3, r2.srqn[0], 2, SRQ_WR, "phase 2");
	msg_tag(sp_r2s[1], M_DONE);

	/* phase 3: after R1 destroyed its handle of the QP */
	msg_wait(sp_r1s[1], M_CLOSED);
	msg_wait(sp_r2s[1], M_GO);
	s_sends(qp, cq, &s.buf, 3, r2.srqn[0], 2 + SRQ_WR, 2,
		"phase 3, R1's handle gone");
	msg_tag(sp_r2s[1], M_DONE);

	CHECK_RC(-ibv_destroy_qp(qp), 0, "XRC_SEND QP destroyed");
	CHECK_RC(-ibv_destroy_cq(cq), 0, "CQ destroyed");
	node_down(&s);
}

static void t_traffic(void)
{
	long qp0 = res_count("qp"), srq0 = res_count("srq");
	long x0 = res_count("xrcd");
	struct ibv_context *ctx;
	pid_t r1, r2, s;
	int fd;

	tmpfiles();
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp_r1s) ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, sp_r2s) ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, sp_r1r2))
		xt_bail(errno, "socketpair");
	r1 = worker(r1_main, NULL);
	r2 = worker(r2_main, NULL);
	s = worker(s_main, NULL);
	reap(r1, "R1");
	reap(r2, "R2");
	reap(s, "S");
	if (qp0 >= 0) {
		CHECK_EQ(res_count("qp"), qp0, "no QP left");
		CHECK_EQ(res_count("srq"), srq0, "no SRQ left");
		CHECK_EQ(res_count("xrcd"), x0, "no domain left");
	}
	ctx = xt_open_device(dev_name, NULL, 0);
	fd = open(path_a, O_RDONLY);
	if (ctx && fd >= 0)
		CHECK_ERRNO(!xrcd_open(ctx, fd, 0) && errno == ENOENT,
			    "the file's domain is gone: ENOENT");
	if (fd >= 0)
		close(fd);
	if (ctx)
		ibv_close_device(ctx);
	rmfiles();
}

/* ------------------------------------------------------------ errors */

struct lone {
	struct node n;
	struct ibv_cq *scq, *rcq;
	struct ibv_xrcd *xb;		/* a second domain */
};

/*
 * A fresh XRC_SEND -> XRC_RECV pair (domain n.xrcd) in loopback: post one
 * WR naming @srqn; its completion's status (or -1).  With @tgt_err, the
 * XRC_RECV QP must be in ERR afterwards.
 */
static int one_shot(struct lone *l, enum ibv_wr_opcode op, uint32_t srqn,
		    uint32_t rkey, uint64_t raddr, uint8_t rnr_retry,
		    bool tgt_err, const char *what)
{
	struct ibv_qp *s = xrc_send_new(l->n.ctx, l->n.pd, l->scq, 0);
	struct ibv_qp *t = xrc_recv_new(l->n.ctx, l->n.xrcd);
	struct ibv_sge sge = xt_sge(&l->n.buf, 0, 64);
	int st = -1;

	if (!s || !t) {
		xt_fail(strerror(errno), "%s: an XRC QP pair", what);
		goto out;
	}
	if (tgt_rtr(t, s->qp_num, &l->n.gid) ||
	    ini_rts(s, t->qp_num, &l->n.gid, rnr_retry)) {
		xt_fail(strerror(errno), "%s: connected", what);
		goto out;
	}
	if (xpost(s, op, 0x77, srqn, &sge, rkey, raddr, 0, 0, 0)) {
		xt_fail(strerror(errno), "%s: posted", what);
		goto out;
	}
	st = wc_status(l->scq, NULL);
	if (tgt_err)
		CHECK_EQ(xt_qp_state(t), QPS_ERR, "%s: the XRC_RECV QP in ERR",
			 what);
out:
	if (s)
		CHECK_RC(-ibv_destroy_qp(s), 0, "%s: XRC_SEND destroyed", what);
	if (t)
		CHECK_RC(-ibv_destroy_qp(t), 0, "%s: XRC_RECV destroyed", what);
	return st;
}

static void lone_up(struct lone *l)
{
	node_up(&l->n, -1);
	l->n.xrcd = xrcd_open(l->n.ctx, -1, O_CREAT);
	l->xb = xrcd_open(l->n.ctx, -1, O_CREAT);
	l->scq = ibv_create_cq(l->n.ctx, 64, NULL, NULL, 0);
	l->rcq = ibv_create_cq(l->n.ctx, 64, NULL, NULL, 0);
	if (!l->n.xrcd || !l->xb || !l->scq || !l->rcq)
		xt_bail(errno, "domains and CQs");
}

static void lone_down(struct lone *l)
{
	CHECK_RC(-ibv_close_xrcd(l->xb), 0, "second domain closed");
	CHECK_RC(-ibv_destroy_cq(l->scq), 0, "CQ destroyed");
	CHECK_RC(-ibv_destroy_cq(l->rcq), 0, "CQ destroyed");
	node_down(&l->n);
}

static void t_bad_srqn(void)
{
	struct ibv_srq_init_attr ba = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_srq *good, *other, *basic, *empty, *pd2srq;
	struct xt_buf b2 = { 0 };
	struct ibv_pd *pd2;
	struct ibv_wc wc;
	struct lone l;

	lone_up(&l);
	good = xsrq_new(l.n.ctx, l.n.pd, l.n.xrcd, l.rcq);
	other = xsrq_new(l.n.ctx, l.n.pd, l.xb, l.rcq);
	basic = ibv_create_srq(l.n.pd, &ba);
	empty = xsrq_new(l.n.ctx, l.n.pd, l.n.xrcd, l.rcq);
	pd2 = ibv_alloc_pd(l.n.ctx);
	pd2srq = pd2 ? xsrq_new(l.n.ctx, pd2, l.n.xrcd, l.rcq) : NULL;
	if (!good || !other || !basic || !empty || !pd2srq ||
	    !xt_buf_new(&b2, pd2, 4096, ACC_ALL))
		xt_bail(errno, "SRQs, a second PD and its MR");
	CHECK(srq_num(basic) != srq_num(good),
	      "a basic SRQ has a number of its own too (%u)", srq_num(basic));
	if (srq_post(good, &l.n.buf, 10, 0xa0) ||
	    srq_post(good, &l.n.buf, 11, 0xa1) ||
	    srq_post(other, &l.n.buf, 12, 0xb0) ||
	    srq_post(basic, &l.n.buf, 13, 0xc0) ||
	    srq_post(pd2srq, &l.n.buf, 14, 0xd0))
		xt_bail(errno, "receives posted");

	CHECK_EQ(one_shot(&l, IBV_WR_SEND, srq_num(good), 0, 0, 7, false,
			  "SEND to an XRC SRQ of the domain"),
		 IBV_WC_SUCCESS, "SEND to an XRC SRQ of the domain: SUCCESS");
	if (CHECK(xt_poll_one(l.rcq, &wc, WAIT_MS), "its receive"))
		CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == 0xa0 &&
		      wc.opcode == IBV_WC_RECV,
		      "the SRQ's first WQE, received");
	CHECK_EQ(one_shot(&l, IBV_WR_SEND, srq_num(other), 0, 0, 7, true,
			  "SEND to an SRQ of another domain"),
		 IBV_WC_REM_INV_REQ_ERR,
		 "SEND to an SRQ of another domain: REM_INV_REQ_ERR");
	CHECK_EQ(one_shot(&l, IBV_WR_SEND, srq_num(basic), 0, 0, 7, true,
			  "SEND to a basic SRQ"),
		 IBV_WC_REM_INV_REQ_ERR, "SEND to a basic SRQ: REM_INV_REQ_ERR");
	CHECK_EQ(one_shot(&l, IBV_WR_SEND, NO_SRQ, 0, 0, 7, true,
			  "SEND to no SRQ"),
		 IBV_WC_REM_INV_REQ_ERR, "SEND to no SRQ: REM_INV_REQ_ERR");
	CHECK_EQ(one_shot(&l, IBV_WR_RDMA_WRITE, srq_num(other), l.n.buf.mr->rkey,
			  xt_va(&l.n.buf, RDMA_OFF), 7, true,
			  "WRITE naming an SRQ of another domain"),
		 IBV_WC_REM_INV_REQ_ERR,
		 "WRITE naming an SRQ of another domain: REM_INV_REQ_ERR");
	CHECK(!xt_poll_n(l.rcq, &wc, 1, 0),
	      "no receive completed for the refused requests");
	CHECK_EQ(one_shot(&l, IBV_WR_SEND, srq_num(empty), 0, 0, 0, false,
			  "SEND to an empty XRC SRQ, rnr_retry 0"),
		 IBV_WC_RNR_RETRY_EXC_ERR,
		 "SEND to an empty XRC SRQ: RNR_RETRY_EXC_ERR");
	/* remote access against the named SRQ's PD */
	CHECK_EQ(one_shot(&l, IBV_WR_RDMA_WRITE, srq_num(good), b2.mr->rkey,
			  xt_va(&b2, 0), 7, false,
			  "WRITE to pd2's MR naming an SRQ of pd"),
		 IBV_WC_REM_ACCESS_ERR,
		 "WRITE to another PD's MR than the SRQ's: REM_ACCESS_ERR");
	/* the SRQ whose PD refused is in error now: it takes nothing more */
	CHECK_EQ(one_shot(&l, IBV_WR_SEND, srq_num(good), 0, 0, 7, true,
			  "SEND to the SRQ after a remote access error"),
		 IBV_WC_REM_INV_REQ_ERR,
		 "SEND to an SRQ after a remote access error: REM_INV_REQ_ERR");
	CHECK_EQ(one_shot(&l, IBV_WR_RDMA_WRITE, srq_num(pd2srq), b2.mr->rkey,
			  xt_va(&b2, 0), 7, false,
			  "WRITE to pd2's MR naming an SRQ of pd2"),
		 IBV_WC_SUCCESS, "WRITE naming an SRQ of the MR's PD: SUCCESS");
	CHECK(!xt_poll_n(l.rcq, &wc, 1, 0), "no receive completed for WRITEs");

	CHECK_RC(-ibv_destroy_srq(good), 0, "SRQ destroyed");
	CHECK_RC(-ibv_destroy_srq(other), 0, "SRQ destroyed");
	CHECK_RC(-ibv_destroy_srq(basic), 0, "SRQ destroyed");
	CHECK_RC(-ibv_destroy_srq(empty), 0, "SRQ destroyed");
	CHECK_RC(-ibv_destroy_srq(pd2srq), 0, "SRQ destroyed");
	CHECK_RC(-xt_buf_free(&b2), 0, "MR deregistered");
	CHECK_RC(-ibv_dealloc_pd(pd2), 0, "PD deallocated");
	lone_down(&l);
}

/* ------------------------------------------------------------ wr API */

static void t_wr_api(void)
{
	struct ibv_cq_init_attr_ex cx = {
		.cqe = 16, .wc_flags = IBV_WC_EX_WITH_QP_NUM |
				       IBV_WC_EX_WITH_SRC_QP |
				       IBV_WC_EX_WITH_BYTE_LEN,
	};
	struct ibv_poll_cq_attr pa = { 0 };
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = XT_PORT };
	struct ibv_ah *ah;
	struct ibv_sge sge;
	struct ibv_cq_ex *ecq;
	struct ibv_qp *s, *t, *bad;
	struct ibv_srq *srq;
	struct ibv_qp_ex *qx;
	struct ibv_wc wc;
	struct lone l;

	lone_up(&l);
	ecq = ibv_create_cq_ex(l.n.ctx, &cx);
	if (!ecq)
		xt_bail(errno, "extended CQ");
	srq = xsrq_new(l.n.ctx, l.n.pd, l.n.xrcd, ibv_cq_ex_to_cq(ecq));
	s = xrc_send_new(l.n.ctx, l.n.pd, l.scq,
			 IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
			 IBV_QP_EX_WITH_RDMA_WRITE);
	t = xrc_recv_new(l.n.ctx, l.n.xrcd);
	if (!srq || !s || !t)
		xt_bail(errno, "SRQ and XRC QPs");
	qx = ibv_qp_to_qp_ex(s);
	if (!CHECK(qx, "ibv_qp_to_qp_ex of the XRC_SEND QP"))
		xt_bail(0, "qp_ex");
	if (tgt_rtr(t, s->qp_num, &l.n.gid) ||
	    ini_rts(s, t->qp_num, &l.n.gid, 7))
		xt_bail(errno, "connected");
	aa.grh.dgid = l.n.gid;
	aa.grh.hop_limit = 64;
	if (srq_post(srq, &l.n.buf, 0, 0xe0))
		xt_bail(errno, "receive posted");
	xt_pat_fill(l.n.buf.p + MSG_LEN, MSG_LEN, seed_of(0, 0));

	ibv_wr_start(qx);
	qx->wr_id = 0x5e;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qx);
	ibv_wr_set_xrc_srqn(qx, srq_num(srq));
	ibv_wr_set_sge(qx, l.n.buf.mr->lkey, xt_va(&l.n.buf, MSG_LEN),
		       MSG_LEN);
	CHECK_RC(-ibv_wr_complete(qx), 0, "SEND built with ibv_wr_*");
	CHECK_EQ(wc_status(l.scq, &wc), IBV_WC_SUCCESS, "it completed");
	CHECK_EQ(wc.wr_id, 0x5e, "its wr_id");
	if (CHECK_RC(-ibv_start_poll(ecq, &pa), 0, "the receive, extended poll")) {
		CHECK_EQ(ecq->wr_id, 0xe0, "the SRQ WQE's wr_id");
		CHECK_EQ(ecq->status, IBV_WC_SUCCESS, "success");
		CHECK_EQ(ibv_wc_read_qp_num(ecq), t->qp_num,
			 "ibv_wc_read_qp_num: the XRC_RECV QP");
		CHECK_EQ(ibv_wc_read_src_qp(ecq), s->qp_num,
			 "ibv_wc_read_src_qp: the XRC_SEND QP");
		CHECK_EQ(ibv_wc_read_byte_len(ecq), MSG_LEN, "its length");
		ibv_end_poll(ecq);
	}
	CHECK(xt_pat_check(l.n.buf.p, MSG_LEN, seed_of(0, 0)) < 0,
	      "the data arrived");

	/* what the builders refuse */
	ah = ibv_create_ah(l.n.pd, &aa);
	if (CHECK_ERRNO(ah, "an AH")) {
		ibv_wr_start(qx);
		ibv_wr_send(qx);
		ibv_wr_set_ud_addr(qx, ah, 1, 1);
		CHECK_RC(-ibv_wr_complete(qx), -EINVAL,
			 "ibv_wr_set_ud_addr on XRC_SEND: EINVAL");
		CHECK_RC(-ibv_destroy_ah(ah), 0, "AH destroyed");
	}
	CHECK(!xrc_send_new(l.n.ctx, l.n.pd, l.scq, IBV_QP_EX_WITH_BIND_MW) &&
	      errno == EOPNOTSUPP, "XRC_SEND with BIND_MW: EOPNOTSUPP");
	CHECK(!xrc_send_new(l.n.ctx, l.n.pd, l.scq,
			    IBV_QP_EX_WITH_SEND_WITH_INV) &&
	      errno == EOPNOTSUPP, "XRC_SEND with SEND_WITH_INV: EOPNOTSUPP");
	{
		struct ibv_qp_init_attr_ex a = {
			.qp_type = IBV_QPT_RC, .send_cq = l.scq,
			.recv_cq = l.scq,
			.cap = { .max_send_wr = 4, .max_recv_wr = 4,
				 .max_send_sge = 1, .max_recv_sge = 1 },
			.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			.pd = l.n.pd, .send_ops_flags = IBV_QP_EX_WITH_SEND,
		};

		bad = ibv_create_qp_ex(l.n.ctx, &a);
		if (CHECK(bad, "an RC QP with the ibv_wr_* API") &&
		    CHECK_RC(-xt_rc_rts(bad, bad->qp_num, &l.n.gid,
					IBV_MTU_1024, NULL), 0, "in RTS")) {
			struct ibv_qp_ex *rx = ibv_qp_to_qp_ex(bad);

			sge = xt_sge(&l.n.buf, 0, 8);
			ibv_wr_start(rx);
			ibv_wr_send(rx);
			ibv_wr_set_xrc_srqn(rx, 1);
			ibv_wr_set_sge_list(rx, 1, &sge);
			CHECK_RC(-ibv_wr_complete(rx), -EINVAL,
				 "ibv_wr_set_xrc_srqn on RC: EINVAL");
		}
		if (bad)
			CHECK_RC(-ibv_destroy_qp(bad), 0, "RC QP destroyed");
	}
	CHECK_RC(-ibv_destroy_qp(s), 0, "XRC_SEND destroyed");
	CHECK_RC(-ibv_destroy_qp(t), 0, "XRC_RECV destroyed");
	CHECK_RC(-ibv_destroy_srq(srq), 0, "SRQ destroyed");
	CHECK_RC(-ibv_destroy_cq(ibv_cq_ex_to_cq(ecq)), 0, "CQ destroyed");
	lone_down(&l);
}

/* ------------------------------------------------------------ badargs */

static void t_badargs(void)
{
	static const struct ibv_qp_cap rc_cap = {
		.max_send_wr = 4, .max_recv_wr = 4,
		.max_send_sge = 1, .max_recv_sge = 1,
	};
	struct ibv_srq_init_attr ba = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_qp_init_attr_ex a;
	struct ibv_srq_init_attr_ex sa;
	struct ibv_qp_open_attr oa;
	struct ibv_qp *q, *t, *rc;
	struct ibv_srq *srq, *basic;
	struct ibv_recv_wr rwr = { .wr_id = 1 }, *rbad = NULL;
	struct ibv_send_wr swr = { .wr_id = 1, .opcode = IBV_WR_SEND },
			   *sbad = NULL;
	struct ibv_qp_init_attr ia;
	struct ibv_mw_bind mb = { 0 };
	struct ibv_mw *mw;
	struct xt_ep ep;
	uint32_t n;
	struct lone l;

	lone_up(&l);
	srq = xsrq_new(l.n.ctx, l.n.pd, l.n.xrcd, l.rcq);
	basic = ibv_create_srq(l.n.pd, &ba);
	if (!srq || !basic || !xt_ep_new(&ep, l.n.pd, IBV_QPT_RC, 8, &rc_cap))
		xt_bail(errno, "SRQs and an RC QP");
	rc = ep.qp;
	CHECK_RC(-ibv_get_srq_num(basic, &n), 0, "ibv_get_srq_num of a basic SRQ");

	/* XRC_RECV */
	memset(&a, 0, sizeof(a));
	a.qp_type = IBV_QPT_XRC_RECV;
	a.comp_mask = IBV_QP_INIT_ATTR_XRCD | IBV_QP_INIT_ATTR_PD;
	a.xrcd = l.n.xrcd;
	a.pd = l.n.pd;
	a.send_cq = l.scq;
	a.recv_cq = l.rcq;
	a.cap.max_send_wr = 4;
	a.cap.max_recv_wr = 4;
	q = ibv_create_qp_ex(l.n.ctx, &a);
	CHECK_ERRNO(q, "XRC_RECV with a PD, CQs and caps: created, as rdma-core");
	if (q) {
		CHECK(!q->pd && !q->send_cq && !q->recv_cq,
		      "they are not the QP's");
		CHECK(!a.cap.max_send_wr && !a.cap.max_recv_wr,
		      "its caps read 0");
		CHECK_RC(-ibv_post_recv(q, &rwr, &rbad), -EINVAL,
			 "post_recv on XRC_RECV: EINVAL");
		CHECK(rbad == &rwr, "bad_wr names it");
		CHECK_RC(-ibv_post_send(q, &swr, &sbad), -EINVAL,
			 "post_send on XRC_RECV: EINVAL");
		CHECK(sbad == &swr, "bad_wr names it");
		t = q;
	} else {
		t = xrc_recv_new(l.n.ctx, l.n.xrcd);
	}
	a.comp_mask = IBV_QP_INIT_ATTR_PD;
	CHECK_ERRNO(!ibv_create_qp_ex(l.n.ctx, &a) && errno == EINVAL,
		    "XRC_RECV without XRCD: EINVAL");
	memcpy(&ia, &a, sizeof(ia));
	CHECK_ERRNO(!ibv_create_qp(l.n.pd, &ia) && errno == EINVAL,
		    "XRC_RECV through ibv_create_qp: EINVAL");
	a.comp_mask = IBV_QP_INIT_ATTR_XRCD;
	a.xrcd = NULL;
	CHECK_ERRNO(!ibv_create_qp_ex(l.n.ctx, &a) && errno == EINVAL,
		    "XRC_RECV with a NULL xrcd: EINVAL");
	a.xrcd = l.n.xrcd;
	a.srq = srq;
	CHECK_ERRNO(!ibv_create_qp_ex(l.n.ctx, &a) && errno == EINVAL,
		    "XRC_RECV with an SRQ: EINVAL");
	a.srq = NULL;
	a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	a.send_ops_flags = 0;
	CHECK_ERRNO(!ibv_create_qp_ex(l.n.ctx, &a) && errno == EOPNOTSUPP,
		    "XRC_RECV with SEND_OPS_FLAGS: EOPNOTSUPP, as mlx5");

	/* XRC_SEND */
	memset(&a, 0, sizeof(a));
	a.qp_type = IBV_QPT_XRC_SEND;
	a.comp_mask = IBV_QP_INIT_ATTR_PD;
	a.pd = l.n.pd;
	a.send_cq = l.scq;
	a.recv_cq = l.rcq;
	a.cap.max_send_wr = 4;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_wr = 8;
	a.cap.max_recv_sge = 2;
	q = ibv_create_qp_ex(l.n.ctx, &a);
	if (CHECK_ERRNO(q, "XRC_SEND with receive caps and a receive CQ: created")) {
		CHECK(!a.cap.max_recv_wr && !a.cap.max_recv_sge,
		      "its receive caps read 0, as rdma-core");
		CHECK(!q->recv_cq && !q->srq && q->send_cq == l.scq,
		      "no receive CQ of its own");
		CHECK_RC(-ibv_post_recv(q, &rwr, &rbad), -EINVAL,
			 "post_recv on XRC_SEND: EINVAL");
		if (CHECK_RC(-ini_rts(q, t ? t->qp_num : 1, &l.n.gid, 7), 0,
			     "XRC_SEND in RTS")) {
			swr.opcode = IBV_WR_LOCAL_INV;
			CHECK_RC(-ibv_post_send(q, &swr, &sbad), -EINVAL,
				 "LOCAL_INV on XRC_SEND: EINVAL");
			swr.opcode = IBV_WR_SEND_WITH_INV;
			CHECK_RC(-ibv_post_send(q, &swr, &sbad), -EINVAL,
				 "SEND_WITH_INV on XRC_SEND: EINVAL");
			mw = ibv_alloc_mw(l.n.pd, IBV_MW_TYPE_1);
			if (mw) {
				mb.bind_info.mr = l.n.buf.mr;
				mb.bind_info.addr = xt_va(&l.n.buf, 0);
				mb.bind_info.length = 64;
				mb.bind_info.mw_access_flags =
					IBV_ACCESS_REMOTE_READ;
				CHECK_EQ(ibv_bind_mw(q, mw, &mb), EINVAL,
					 "ibv_bind_mw on XRC_SEND: EINVAL");
				CHECK_RC(-ibv_dealloc_mw(mw), 0,
					 "window deallocated");
			}
		}
		CHECK_RC(-ibv_destroy_qp(q), 0, "XRC_SEND destroyed");
	}
	a.srq = srq;
	CHECK_ERRNO(!ibv_create_qp_ex(l.n.ctx, &a) && errno == EINVAL,
		    "XRC_SEND with an SRQ: EINVAL");
	a.srq = NULL;
	a.send_cq = NULL;
	CHECK_ERRNO(!ibv_create_qp_ex(l.n.ctx, &a) && errno == EINVAL,
		    "XRC_SEND without a send CQ: EINVAL");
	a.send_cq = l.scq;
	a.comp_mask = IBV_QP_INIT_ATTR_XRCD;
	a.xrcd = l.n.xrcd;
	CHECK_ERRNO(!ibv_create_qp_ex(l.n.ctx, &a) && errno == EINVAL,
		    "XRC_SEND without PD: EINVAL");

	/* ibv_open_qp */
	memset(&oa, 0, sizeof(oa));
	oa.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
		       IBV_QP_OPEN_ATTR_TYPE;
	oa.xrcd = l.n.xrcd;
	oa.qp_num = rc->qp_num;
	oa.qp_type = IBV_QPT_XRC_RECV;
	CHECK_ERRNO(!ibv_open_qp(l.n.ctx, &oa) && errno == ENOENT,
		    "open_qp of an RC QP's number: ENOENT");
	oa.qp_type = IBV_QPT_RC;
	CHECK_ERRNO(!ibv_open_qp(l.n.ctx, &oa) && errno == EINVAL,
		    "open_qp of type RC: EINVAL");
	if (t) {
		oa.qp_num = t->qp_num;
		oa.qp_type = IBV_QPT_XRC_RECV;
		oa.xrcd = l.xb;
		CHECK_ERRNO(!ibv_open_qp(l.n.ctx, &oa) && errno == ENOENT,
			    "open_qp through another domain: ENOENT");
		oa.xrcd = l.n.xrcd;
		oa.comp_mask &= ~(uint32_t)IBV_QP_OPEN_ATTR_XRCD;
		CHECK_ERRNO(!ibv_open_qp(l.n.ctx, &oa) && errno == EINVAL,
			    "open_qp without XRCD in comp_mask: EINVAL");
		oa.comp_mask |= IBV_QP_OPEN_ATTR_XRCD |
				IBV_QP_OPEN_ATTR_RESERVED;
		CHECK_ERRNO(!ibv_open_qp(l.n.ctx, &oa) && errno == EOPNOTSUPP,
			    "open_qp with an unknown comp_mask bit: EOPNOTSUPP");
	}

	/* ibv_create_srq_ex */
	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = 4;
	sa.attr.max_sge = 1;
	sa.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
		       IBV_SRQ_INIT_ATTR_CQ;
	sa.srq_type = IBV_SRQT_XRC;
	sa.pd = l.n.pd;
	sa.cq = l.rcq;
	sa.xrcd = l.n.xrcd;
	CHECK_ERRNO(!ibv_create_srq_ex(l.n.ctx, &sa) && errno == EINVAL,
		    "XRC SRQ without XRCD in comp_mask: EINVAL");
	sa.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
		       IBV_SRQ_INIT_ATTR_XRCD;
	CHECK_ERRNO(!ibv_create_srq_ex(l.n.ctx, &sa) && errno == EINVAL,
		    "XRC SRQ without CQ: EINVAL");
	sa.comp_mask |= IBV_SRQ_INIT_ATTR_CQ;
	sa.pd = NULL;
	CHECK_ERRNO(!ibv_create_srq_ex(l.n.ctx, &sa) && errno == EINVAL,
		    "XRC SRQ without PD: EINVAL");
	sa.pd = l.n.pd;
	sa.srq_type = IBV_SRQT_TM;
	CHECK_ERRNO(!ibv_create_srq_ex(l.n.ctx, &sa) && errno == EOPNOTSUPP,
		    "tag matching SRQ: EOPNOTSUPP");
	sa.srq_type = (enum ibv_srq_type)7;
	CHECK_ERRNO(!ibv_create_srq_ex(l.n.ctx, &sa) && errno == EINVAL,
		    "SRQ type 7: EINVAL");

	/* what an XRC SRQ holds */
	CHECK_RC(-ibv_close_xrcd(l.n.xrcd), -EBUSY,
		 "close_xrcd with an SRQ and a QP in it: EBUSY");
	CHECK_RC(-ibv_destroy_cq(l.rcq), -EBUSY,
		 "destroy_cq of an XRC SRQ's CQ: EBUSY");
	if (t) {
		CHECK_RC(-ibv_destroy_srq(srq), 0, "XRC SRQ destroyed");
		srq = NULL;
		CHECK_RC(-ibv_close_xrcd(l.n.xrcd), -EBUSY,
			 "close_xrcd with an XRC_RECV QP in it: EBUSY");
		CHECK_RC(-ibv_destroy_qp(t), 0, "XRC_RECV destroyed");
	}
	if (srq)
		CHECK_RC(-ibv_destroy_srq(srq), 0, "XRC SRQ destroyed");
	CHECK_RC(-ibv_destroy_srq(basic), 0, "basic SRQ destroyed");
	CHECK_RC(-ibv_destroy_qp(rc), 0, "RC QP destroyed");
	CHECK_RC(-ibv_destroy_cq(ep.cq), 0, "its CQ destroyed");
	lone_down(&l);
}

/* ------------------------------------------------------------ exit */

static void dirty_creator(int *fds)
{
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct msg m = { .tag = M_R1 };
	struct node n;

	xt_subtest = "exit_dirty creator";
	node_up(&n, O_CREAT);
	cq = ibv_create_cq(n.ctx, 8, NULL, NULL, 0);
	srq = cq ? xsrq_new(n.ctx, n.pd, n.xrcd, cq) : NULL;
	qp = xrc_recv_new(n.ctx, n.xrcd);
	if (!srq || !qp)
		xt_bail(errno, "XRC SRQ and QP");
	m.qpn = qp->qp_num;
	msg_send(fds[0], &m);
	msg_wait(fds[0], M_DONE);
	_exit(0);		/* nothing destroyed */
}

static void dirty_opener(int *fds)
{
	struct msg m;
	struct node n;

	xt_subtest = "exit_dirty opener";
	msg_recv(fds[1], M_R1, &m);
	node_up(&n, 0);
	if (!qp_open(n.ctx, n.xrcd, m.qpn, IBV_QPT_XRC_RECV))
		xt_bail(errno, "the QP opened");
	msg_tag(fds[1], M_DONE);
	_exit(0);
}

static void t_exit_dirty(void)
{
	long qp0 = res_count("qp"), srq0 = res_count("srq");
	long x0 = res_count("xrcd");
	struct ibv_context *ctx;
	pid_t a, b;
	int sv[2], fd;

	tmpfiles();
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		xt_bail(errno, "socketpair");
	a = worker(dirty_creator, sv);
	b = worker(dirty_opener, sv);
	reap(a, "the creator");
	reap(b, "the opener");
	if (qp0 >= 0) {
		CHECK_EQ(res_count("qp"), qp0, "no QP left");
		CHECK_EQ(res_count("srq"), srq0, "no SRQ left");
		CHECK_EQ(res_count("xrcd"), x0, "no domain left");
	}
	ctx = xt_open_device(dev_name, NULL, 0);
	fd = open(path_a, O_RDONLY);
	if (ctx && fd >= 0)
		CHECK_ERRNO(!xrcd_open(ctx, fd, 0) && errno == ENOENT,
			    "the file's domain is gone: ENOENT");
	if (fd >= 0)
		close(fd);
	if (ctx)
		ibv_close_device(ctx);
	close(sv[0]);
	close(sv[1]);
	rmfiles();
}

static const struct xt_subtest tests[] = {
	XT_SUBTEST(caps, 0, "IBV_DEVICE_XRC as the kernel says"),
	XT_SUBTEST(xrcd, 0, "domains of files: O_CREAT, O_EXCL, sharing"),
	XT_SUBTEST(traffic, 0, "three processes, four SRQs, every opcode"),
	XT_SUBTEST(bad_srqn, 0, "REM_INV_REQ_ERR, RNR, the SRQ's PD"),
	XT_SUBTEST(wr_api, 0, "ibv_wr_set_xrc_srqn, extended CQ"),
	XT_SUBTEST(badargs, 0, "errno of the calls, EBUSY"),
	XT_SUBTEST(exit_dirty, 0, "processes exit holding XRC objects"),
};

static struct xt_suite suite = {
	.tests = tests, .n = ARRAY_SIZE(tests), .timeout = 120,
};

int main(int argc, char **argv)
{
	const struct xt_opt opts[] = {
		{ .c = 'd', .arg = "IBDEV", .str = &dev_name },
		{ .c = 'r', .arg = "RESOURCES", .str = &res_path },
	};
	int ret;

	ret = xt_main(&suite, opts, ARRAY_SIZE(opts), &argc, &argv, "xv_xrc");
	if (ret >= 0)
		return ret;
	xt_show_library();
	xt_run(&suite, argc, argv);
	return xt_done();
}
