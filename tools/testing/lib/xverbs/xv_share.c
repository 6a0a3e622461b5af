// SPDX-License-Identifier: GPL-2.0
/*
 * xv_share: sharing a context between processes and parent/thread domains
 * (issue 15, "Sharing objects between processes" and "Parent and thread
 * domains"), public API only (plus raw ioctls on the shared fd for the
 * kernel's answers); run over xrdma with scripts/xrdma-run
 * (tools/testing/lib/xverbs/xverbs_share.sh).
 *
 *   import    the exporter (this process) creates a context, PDs and an MR
 *             and passes the command fd over a unix socket (SCM_RIGHTS) to
 *             an importer it runs with fork+exec (this program, -I): before
 *             importing, commands and mmap on the fd are EPERM; it imports
 *             the device, PD and MR (keys, iova and length as the
 *             exporter's), creates its own CQs and QPs on the imported PD,
 *             READs the exporter's data, WRITEs into the exporter's MR and
 *             SENDs out of it with the imported lkey (data verified on both
 *             sides); its completion channel works, the exporter's is
 *             EINVAL to it; bad handles ENOENT, wrong types EINVAL, a
 *             handle of another context ENOENT, an MR of another PD
 *             EINVAL, reserved fields, flags and short structures EINVAL,
 *             one async fd per import; the importer's QP's async event
 *             comes to its async fd, not the exporter's; every object is
 *             gone after both processes end
 *   orphan    the exporter passes the fd and exits before the importer
 *             touches its MR: the importer still READs the exporter's data
 *             and WRITEs into its MR (the file holds the context); every
 *             object is gone once the importer ends
 *   self      the opener imports its own context through dup(cmd_fd),
 *             as rdma-core allows: the import has its own async fd, and
 *             closing it leaves the first context working
 *   domains   ibv_alloc_td and ibv_alloc_parent_domain: errno of every bad
 *             argument; QPs, an SRQ, a CQ (ibv_create_cq_ex with
 *             IBV_CQ_INIT_ATTR_MASK_PD), an MR and an AH on a parent
 *             domain; the allocator gets the wr_id arrays (type, size,
 *             alignment, pd and pd_context checked) and frees each pointer
 *             it gave once; the thread domain's QP and SRQ (no locks)
 *             post; IBV_ALLOCATOR_USE_DEFAULT and a failing
 *             allocator (ENOMEM, nothing left behind); data through a QP
 *             whose wr_ids live in the allocator's memory; EBUSY for a
 *             TD, PD or parent domain in use, as mlx5
 *
 *   -d IBDEV  device (xnic0)
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <xrdma/xrdma-abi.h>
#include "xt.h"
#include "xt_verbs.h"

static const char *dev_name = "xnic0";
static int importer_sock = -1, importer_report = -1;
static const char *importer_mode;

#define BUF_LEN		(64 * 1024)
#define HALF		(BUF_LEN / 2)
#define SEED_A		0x5a17
#define SEED_B		0xb0b
#define SEED_C		0xc0c
#define WAIT_MS		5000
#define RES_PATH	"/sys/kernel/debug/xrdma/%s/resources"

/* what the exporter tells the importer, with the fd */
struct share_msg {
	uint32_t pd_handle, mr_handle;
	uint32_t pd2_handle, mr2_handle;	/* another PD and its MR */
	uint32_t foreign_handle;	/* a PD of another context only */
	uint32_t lkey, rkey;
	uint32_t pad;
	uint64_t iova, length;
};

/* what the importer answers at the end */
struct share_report {
	int checks, failed;
};

/* ------------------------------------------------------------ helpers */

static int send_fds(int sock, const int *fds, int nfds, const void *buf,
		    size_t len)
{
	char cbuf[CMSG_SPACE(2 * sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = CMSG_SPACE(nfds * sizeof(int)),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
	memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	return sendmsg(sock, &m, 0) == (ssize_t)len ? 0 : -errno;
}

/* @nfds fds into @fds; 0 or -errno (-EPROTO: not what was expected) */
static int recv_fds(int sock, int *fds, int nfds, void *buf, size_t len)
{
	char cbuf[CMSG_SPACE(2 * sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;
	ssize_t n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC | MSG_WAITALL);

	if (n < 0)
		return -errno;
	c = CMSG_FIRSTHDR(&m);
	if (n != (ssize_t)len || !c || c->cmsg_type != SCM_RIGHTS ||
	    c->cmsg_len != CMSG_LEN(nfds * sizeof(int)))
		return -EPROTO;
	memcpy(fds, CMSG_DATA(c), nfds * sizeof(int));
	return 0;
}

static int xread(int fd, void *buf, size_t len)
{
	ssize_t n = recv(fd, buf, len, MSG_WAITALL);

	return n == (ssize_t)len ? 0 : n < 0 ? -errno : -EPIPE;
}

static int xwrite(int fd, const void *buf, size_t len)
{
	return send(fd, buf, len, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -errno;
}

/* every "NAME COUNT" line of the device's resources reads 0 */
static bool res_zero(char *why, size_t len)
{
	char path[128], line[160], name[64];
	unsigned long long v;
	bool zero = true;
	FILE *f;

	snprintf(path, sizeof(path), RES_PATH, dev_name);
	f = fopen(path, "re");
	if (!f) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		return false;
	}
	why[0] = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %llu", name, &v) != 2 || v) {
			zero = false;
			snprintf(why, len, "%s", line);
			why[strcspn(why, "\n")] = 0;
			break;
		}
	}
	fclose(f);
	return zero;
}

/* the device holds no object, within 2 s (a closing file's teardown) */
static void check_res_zero(const char *when)
{
	char why[256];
	int i;

	for (i = 0; i < 200 && !res_zero(why, sizeof(why)); i++)
		usleep(10000);
	xt_ok(res_zero(why, sizeof(why)), why, "no object left %s", when);
}

/*
 * fork, then exec this program as the importer in @mode with the unix
 * socket @sock and the report socket @report (inherited: not CLOEXEC)
 */
static pid_t spawn_importer(const char *mode, int sock, int report)
{
	char s1[16], s2[16];
	pid_t pid;

	snprintf(s1, sizeof(s1), "%d", sock);
	snprintf(s2, sizeof(s2), "%d", report);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", "xv_share", "-d", dev_name, "-I", mode,
		      "-S", s1, "-R", s2, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* the importer's exit status and report: its checks count in ours */
static void reap_importer(pid_t pid, int report)
{
	struct share_report r = { 0, 0 };
	int st = 0, ret;

	ret = xread(report, &r, sizeof(r));
	CHECK_RC(ret, 0, "the importer reported its checks");
	if (!ret)
		xt_add(r.checks, r.failed);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	xt_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, NULL,
	      "the importer exited 0 (status %#x, %d of its checks failed)",
	      st, r.failed);
}

/* a loopback RC pair a <-> b, one CQ each (a's on @ch if not NULL) */
struct pair {
	struct xt_ep a, b;
};

static bool ep_new(struct xt_ep *e, struct ibv_pd *pd,
		   struct ibv_comp_channel *ch)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	e->cq = ibv_create_cq(pd->context, 32, NULL, ch, 0);
	if (!e->cq)
		return false;
	ia.send_cq = e->cq;
	ia.recv_cq = e->cq;
	e->qp = ibv_create_qp(pd, &ia);
	return e->qp;
}

static bool pair_new(struct pair *p, struct ibv_context *ctx,
		     struct ibv_pd *pda, struct ibv_pd *pdb,
		     struct ibv_comp_channel *ch)
{
	union ibv_gid gid;

	memset(p, 0, sizeof(*p));
	if (ibv_query_gid(ctx, XT_PORT, XT_GID_INDEX, &gid) ||
	    !ep_new(&p->a, pda, ch) || !ep_new(&p->b, pdb, NULL))
		return false;
	return !xt_rc_rts(p->a.qp, p->b.qp->qp_num, &gid, IBV_MTU_1024, NULL) &&
	       !xt_rc_rts(p->b.qp, p->a.qp->qp_num, &gid, IBV_MTU_1024, NULL);
}

static void ep_free(struct xt_ep *e)
{
	if (e->qp)
		ibv_destroy_qp(e->qp);
	if (e->cq)
		ibv_destroy_cq(e->cq);
	e->qp = NULL;
	e->cq = NULL;
}

static void pair_free(struct pair *p)
{
	ep_free(&p->a);
	ep_free(&p->b);
}

/* post one signaled send WR on @qp and wait for its success */
static bool rdma_op(struct xt_ep *e, enum ibv_wr_opcode op, struct ibv_sge sge,
		    uint64_t raddr, uint32_t rkey, uint64_t wr_id)
{
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(e->qp, &wr, &bad))
		return false;
	return xt_poll_one(e->cq, &wc, WAIT_MS) && wc.status == IBV_WC_SUCCESS &&
	       wc.wr_id == wr_id;
}

static long raw_ioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) ? -errno : 0;
}

/* ------------------------------------------------------------ importer */

/*
 * The importer's part of "import": runs in the exec'd program, reports
 * PASS/FAIL lines as "importer" and its counts to the exporter.
 */
static void importer_import(int sock)
{
	struct xrdma_cmd_query_object qo;
	struct xrdma_cmd_query_device qd;
	struct xrdma_cmd_import_context ic;
	struct xrdma_cmd_create_cq cc;
	struct xrdma_cmd_fd afd;
	struct ibv_context *ctx;
	struct ibv_pd *pd, *pd2;
	struct ibv_mr *mr, *mr2;
	struct ibv_comp_channel *ch;
	struct share_msg m;
	struct xt_buf mine;
	struct pair p;
	struct ibv_wc wc;
	void *map;
	int fds[2], fd, ret;
	char ok = 1;

	ret = recv_fds(sock, fds, 2, &m, sizeof(m));
	if (ret)
		xt_bail(ret, "receive the command fd and the exporter's channel");
	fd = fds[0];

	/* before importing, the fd is not ours to use */
	memset(&qd, 0, sizeof(qd));
	CHECK_RC(raw_ioctl(fd, XRDMA_IOC_QUERY_DEVICE, &qd), -EPERM,
		 "QUERY_DEVICE before import");
	map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 4096);
	CHECK_RC(map == MAP_FAILED ? -errno : 0, -EPERM, "mmap before import");
	if (map != MAP_FAILED)
		munmap(map, 4096);
	memset(&ic, 0, sizeof(ic));
	ic.flags = 1;
	CHECK_RC(raw_ioctl(fd, XRDMA_IOC_IMPORT_CONTEXT, &ic), -EINVAL,
		 "IMPORT_CONTEXT with flags");
	memset(&ic, 0, sizeof(ic));
	ic.reserved = 1;
	CHECK_RC(raw_ioctl(fd, XRDMA_IOC_IMPORT_CONTEXT, &ic), -EINVAL,
		 "IMPORT_CONTEXT with reserved set");
	CHECK_RC(raw_ioctl(fd, XRDMA_IOC_QUERY_DEVICE, &qd), -EPERM,
		 "QUERY_DEVICE after a refused import");

	/* not a character device; a character device that is not ours */
	CHECK(!ibv_import_device(sock) && errno == EINVAL,
	      "ibv_import_device(a socket): EINVAL");
	ret = open("/dev/null", O_RDWR | O_CLOEXEC);
	CHECK(ret >= 0 && !ibv_import_device(ret) && errno == ENODEV,
	      "ibv_import_device(/dev/null): ENODEV");
	if (ret >= 0)
		close(ret);

	ctx = ibv_import_device(fd);
	if (!ctx)
		xt_bail(errno, "ibv_import_device");
	CHECK(!strcmp(ibv_get_device_name(ctx->device), dev_name),
	      "the imported context is %s's", dev_name);
	CHECK(ctx->cmd_fd == fd && ctx->async_fd >= 0,
	      "the context uses the fd and has an async fd");
	memset(&afd, 0, sizeof(afd));
	CHECK_RC(raw_ioctl(fd, XRDMA_IOC_GET_ASYNC_FD, &afd), -EINVAL,
		 "a second GET_ASYNC_FD of one import: EINVAL");

	/* imports and their errors */
	pd = ibv_import_pd(ctx, m.pd_handle);
	if (!pd)
		xt_bail(errno, "ibv_import_pd");
	CHECK(pd->handle == m.pd_handle && pd->context == ctx,
	      "the imported PD has the handle and the context");
	mr = ibv_import_mr(pd, m.mr_handle);
	if (!mr)
		xt_bail(errno, "ibv_import_mr");
	xt_ok(mr->lkey == m.lkey && mr->rkey == m.rkey &&
	      (uintptr_t)mr->addr == m.iova && mr->length == m.length &&
	      mr->handle == m.mr_handle && mr->pd == pd, NULL,
	      "the imported MR's keys, addr and length are the exporter's");
	CHECK(!ibv_import_pd(ctx, 0) && errno == ENOENT,
	      "ibv_import_pd(handle 0): ENOENT");
	CHECK(!ibv_import_pd(ctx, 0x7fffffff) && errno == ENOENT,
	      "ibv_import_pd(a handle never given): ENOENT");
	CHECK(!ibv_import_pd(ctx, m.foreign_handle) && errno == ENOENT,
	      "ibv_import_pd(a handle of another context): ENOENT");
	CHECK(!ibv_import_pd(ctx, m.mr_handle) && errno == EINVAL,
	      "ibv_import_pd(an MR's handle): EINVAL");
	CHECK(!ibv_import_mr(pd, m.pd_handle) && errno == EINVAL,
	      "ibv_import_mr(a PD's handle): EINVAL");
	CHECK(!ibv_import_mr(pd, 0x7ffffffe) && errno == ENOENT,
	      "ibv_import_mr(a handle never given): ENOENT");
	CHECK(!ibv_import_mr(pd, m.mr2_handle) && errno == EINVAL,
	      "ibv_import_mr(an MR of another PD): EINVAL");
	pd2 = ibv_import_pd(ctx, m.pd2_handle);
	mr2 = pd2 ? ibv_import_mr(pd2, m.mr2_handle) : NULL;
	CHECK(mr2, "ibv_import_mr(the other MR, on its PD)");
	if (mr2)
		ibv_unimport_mr(mr2);
	if (pd2)
		ibv_unimport_pd(pd2);

	memset(&qo, 0, sizeof(qo));
	qo.type = XRDMA_OBJ_QP;
	qo.handle = m.pd_handle;
	CHECK_RC(raw_ioctl(fd, XRDMA_IOC_QUERY_OBJECT, &qo), -EINVAL,
		 "QUERY_OBJECT of type QP: EINVAL");
	memset(&qo, 0, sizeof(qo));
	qo.type = XRDMA_OBJ_MR;
	qo.handle = m.mr_handle;
	qo.reserved = 1;
	CHECK_RC(raw_ioctl(fd, XRDMA_IOC_QUERY_OBJECT, &qo), -EINVAL,
		 "QUERY_OBJECT with reserved set: EINVAL");
	qo.reserved = 0;
	qo.flags = 1;
	CHECK_RC(raw_ioctl(fd, XRDMA_IOC_QUERY_OBJECT, &qo), -EINVAL,
		 "QUERY_OBJECT with flags: EINVAL");
	qo.flags = 0;
	qo.lkey = 1;
	CHECK_RC(raw_ioctl(fd, XRDMA_IOC_QUERY_OBJECT, &qo), -EINVAL,
		 "QUERY_OBJECT with an output field set: EINVAL");
	CHECK_RC(raw_ioctl(fd, _IOC(_IOC_READ | _IOC_WRITE, XRDMA_IOC_MAGIC,
				    0x1b, 16), &qo), -EINVAL,
		 "QUERY_OBJECT shorter than its first version: EINVAL");

	/* the exporter's completion channel is not ours */
	memset(&cc, 0, sizeof(cc));
	cc.cqe = 4;
	cc.channel_fd = fds[1];
	CHECK_RC(raw_ioctl(fd, XRDMA_IOC_CREATE_CQ, &cc), -EINVAL,
		 "CREATE_CQ on the exporter's completion channel: EINVAL");
	close(fds[1]);

	/* our own objects on the imported PD, data to and from its MR */
	if (!xt_buf_new(&mine, pd, BUF_LEN, IBV_ACCESS_LOCAL_WRITE))
		xt_bail(errno, "register the importer's buffer on the imported PD");
	ch = ibv_create_comp_channel(ctx);
	if (!ch)
		xt_bail(errno, "the importer's completion channel");
	if (!pair_new(&p, ctx, pd, pd, ch))
		xt_bail(errno, "an RC pair on the imported PD");
	CHECK(!ibv_req_notify_cq(p.a.cq, 0), "arm the requester's CQ");
	CHECK(rdma_op(&p.a, IBV_WR_RDMA_READ, xt_sge(&mine, 0, HALF), m.iova,
		      mr->rkey, 1),
	      "RDMA READ of the exporter's MR");
	xt_ok(xt_pat_check(mine.p, HALF, SEED_A) < 0, NULL,
	      "the READ brought the exporter's data");
	{
		struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
		struct ibv_cq *ev_cq = NULL;
		void *ev_ctx;

		xt_ok(poll(&pfd, 1, WAIT_MS) == 1 &&
		      !ibv_get_cq_event(ch, &ev_cq, &ev_ctx) && ev_cq == p.a.cq,
		      NULL, "the importer's channel has its CQ's event");
		if (ev_cq)
			ibv_ack_cq_events(ev_cq, 1);
	}
	xt_pat_fill(mine.p + HALF, HALF, SEED_B);
	CHECK(rdma_op(&p.a, IBV_WR_RDMA_WRITE, xt_sge(&mine, HALF, HALF),
		      m.iova + HALF, mr->rkey, 2),
	      "RDMA WRITE into the exporter's MR");

	/* a SEND out of the exporter's memory, with the imported lkey */
	{
		struct ibv_sge rs = xt_sge(&mine, 0, HALF);
		struct ibv_recv_wr rwr = { .wr_id = 7, .sg_list = &rs,
					   .num_sge = 1 }, *rbad;
		struct ibv_sge ss = { .addr = m.iova, .length = HALF,
				      .lkey = mr->lkey };
		struct ibv_send_wr swr = { .wr_id = 8, .sg_list = &ss,
					   .num_sge = 1,
					   .opcode = IBV_WR_SEND,
					   .send_flags = IBV_SEND_SIGNALED },
				   *sbad;

		memset(mine.p, 0, HALF);
		xt_ok(!ibv_post_recv(p.b.qp, &rwr, &rbad) &&
		      !ibv_post_send(p.a.qp, &swr, &sbad) &&
		      xt_poll_one(p.a.cq, &wc, WAIT_MS) &&
		      wc.status == IBV_WC_SUCCESS && wc.wr_id == 8 &&
		      xt_poll_one(p.b.cq, &wc, WAIT_MS) &&
		      wc.status == IBV_WC_SUCCESS && wc.wr_id == 7 &&
		      wc.byte_len == HALF, NULL,
		      "SEND from the exporter's MR with the imported lkey");
		xt_ok(xt_pat_check(mine.p, HALF, SEED_A) < 0, NULL,
		      "the SEND carried the exporter's data");
	}

	/*
	 * An async event of our QP comes to our async fd: a WRITE with a bad
	 * rkey moves the responder to ERR with IBV_EVENT_QP_ACCESS_ERR (its
	 * element a pointer of ours); the exporter checks its fd has none.
	 */
	{
		struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
		struct ibv_async_event ev = { 0 };

		CHECK(!rdma_op(&p.a, IBV_WR_RDMA_WRITE, xt_sge(&mine, 0, 64),
			       m.iova, mr->rkey ^ 0x80, 9),
		      "an RDMA WRITE with a bad rkey fails");
		bool got = poll(&pfd, 1, WAIT_MS) == 1 &&
			   !ibv_get_async_event(ctx, &ev);

		xt_ok(got && ev.event_type == IBV_EVENT_QP_ACCESS_ERR &&
		      ev.element.qp == p.b.qp, NULL,
		      "our async fd has our responder's QP_ACCESS_ERR (%s %d)",
		      got ? "got" : "no event", (int)ev.event_type);
		if (ev.element.qp == p.b.qp)
			ibv_ack_async_event(&ev);
	}

	/*
	 * tell the exporter our WRITE is done and wait for its verdict, the
	 * QP whose event we had still there (destroying it drops its events)
	 */
	CHECK_RC(xwrite(sock, &ok, 1), 0, "tell the exporter");
	CHECK_RC(xread(sock, &ok, 1), 0, "the exporter's answer");
	pair_free(&p);
	CHECK(!ibv_destroy_comp_channel(ch), "destroy the importer's channel");
	ibv_unimport_mr(mr);
	CHECK(!xt_buf_free(&mine), "deregister the importer's buffer");
	ibv_unimport_pd(pd);
	CHECK(!ibv_close_device(ctx), "ibv_close_device");
}

/*
 * The importer's part of "orphan": import, tell the exporter (which then
 * exits), wait for the test's "go", then use the exporter's MR.
 */
static void importer_orphan(int sock, int report)
{
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct share_msg m;
	struct xt_buf mine;
	struct pair p;
	int fds[2], ret;
	char ok = 1;

	ret = recv_fds(sock, fds, 2, &m, sizeof(m));
	if (ret)
		xt_bail(ret, "receive the command fd");
	close(fds[1]);
	ctx = ibv_import_device(fds[0]);
	if (!ctx)
		xt_bail(errno, "ibv_import_device");
	pd = ibv_import_pd(ctx, m.pd_handle);
	mr = pd ? ibv_import_mr(pd, m.mr_handle) : NULL;
	if (!mr)
		xt_bail(errno, "import the PD and the MR");
	CHECK_RC(xwrite(sock, &ok, 1), 0, "tell the exporter we imported");
	close(sock);
	/* the exporter has exited when the test says go */
	CHECK_RC(xread(report, &ok, 1), 0, "the test's go");

	if (!xt_buf_new(&mine, pd, BUF_LEN, IBV_ACCESS_LOCAL_WRITE))
		xt_bail(errno, "register a buffer on the imported PD");
	if (!pair_new(&p, ctx, pd, pd, NULL))
		xt_bail(errno, "an RC pair on the imported PD");
	CHECK(rdma_op(&p.a, IBV_WR_RDMA_READ, xt_sge(&mine, 0, HALF), m.iova,
		      mr->rkey, 1),
	      "RDMA READ of the exited exporter's MR");
	xt_ok(xt_pat_check(mine.p, HALF, SEED_A) < 0, NULL,
	      "the READ brought the exporter's data");
	xt_pat_fill(mine.p + HALF, HALF, SEED_C);
	CHECK(rdma_op(&p.a, IBV_WR_RDMA_WRITE, xt_sge(&mine, HALF, HALF),
		      m.iova + HALF, mr->rkey, 2),
	      "RDMA WRITE into the exited exporter's MR");
	memset(mine.p, 0, HALF);
	CHECK(rdma_op(&p.a, IBV_WR_RDMA_READ, xt_sge(&mine, 0, HALF),
		      m.iova + HALF, mr->rkey, 3),
	      "RDMA READ back of what we wrote");
	xt_ok(xt_pat_check(mine.p, HALF, SEED_C) < 0, NULL,
	      "the exporter's MR holds what we wrote");
	pair_free(&p);
	CHECK(!xt_buf_free(&mine), "deregister our buffer");
	ibv_unimport_mr(mr);
	ibv_unimport_pd(pd);
	/* the last fd of the context: everything goes */
	CHECK(!ibv_close_device(ctx), "ibv_close_device");
}

/* -I MODE: this process is the importer (exec'd by the exporter) */
static int importer_main(void)
{
	struct share_report r;

	xt_init("xv_share", "importer");
	if (!strcmp(importer_mode, "import"))
		importer_import(importer_sock);
	else if (!strcmp(importer_mode, "orphan"))
		importer_orphan(importer_sock, importer_report);
	else
		xt_bail(EINVAL, "importer mode %s", importer_mode);
	r.checks = xt_count();
	r.failed = xt_failed();
	if (xwrite(importer_report, &r, sizeof(r)))
		return 1;
	return r.failed ? 1 : 0;
}

/* ------------------------------------------------------------ exporter */

/* a socket pair whose [1] survives exec, [0] does not */
static void sockets(int sv[2])
{
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) ||
	    fcntl(sv[1], F_SETFD, 0))
		xt_bail(errno, "socketpair");
}

struct exporter {
	struct ibv_context *ctx;
	struct ibv_pd *pd, *pd2;
	struct xt_buf buf, buf2;
	struct ibv_comp_channel *ch;
	struct share_msg m;
};

static void exporter_new(struct exporter *x)
{
	memset(x, 0, sizeof(*x));
	x->ctx = xt_open_device(dev_name, NULL, 0);
	if (!x->ctx)
		xt_bail(0, "open %s", dev_name);
	x->pd = ibv_alloc_pd(x->ctx);
	x->pd2 = ibv_alloc_pd(x->ctx);
	x->ch = ibv_create_comp_channel(x->ctx);
	if (!x->pd || !x->pd2 || !x->ch ||
	    !xt_buf_new(&x->buf, x->pd, BUF_LEN, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ) ||
	    !xt_buf_new(&x->buf2, x->pd2, 4096, IBV_ACCESS_LOCAL_WRITE))
		xt_bail(errno, "the exporter's PDs, MRs and channel");
	xt_pat_fill(x->buf.p, BUF_LEN, SEED_A);
	x->m.pd_handle = x->pd->handle;
	x->m.mr_handle = x->buf.mr->handle;
	x->m.pd2_handle = x->pd2->handle;
	x->m.mr2_handle = x->buf2.mr->handle;
	x->m.lkey = x->buf.mr->lkey;
	x->m.rkey = x->buf.mr->rkey;
	x->m.iova = xt_va(&x->buf, 0);
	x->m.length = BUF_LEN;
}

static void t_import(void)
{
	struct ibv_context *ctx2;
	struct ibv_pd *fpd[12] = { 0 };
	struct exporter x;
	int sv[2], rv[2], fds[2], i;
	pid_t pid;
	char ok = 1;

	exporter_new(&x);
	/* a handle that exists in another context only */
	ctx2 = xt_open_device(dev_name, NULL, 0);
	for (i = 0; ctx2 && i < (int)ARRAY_SIZE(fpd); i++)
		fpd[i] = ibv_alloc_pd(ctx2);
	if (!fpd[ARRAY_SIZE(fpd) - 1])
		xt_bail(errno, "PDs of a second context");
	x.m.foreign_handle = fpd[ARRAY_SIZE(fpd) - 1]->handle;
	CHECK(x.m.foreign_handle > x.buf2.mr->handle + 4,
	      "the second context's handle is none of the first's");

	sockets(sv);
	sockets(rv);
	pid = spawn_importer("import", sv[1], rv[1]);
	close(sv[1]);
	close(rv[1]);
	if (pid < 0)
		xt_bail(errno, "fork");
	fds[0] = x.ctx->cmd_fd;
	fds[1] = x.ch->fd;
	CHECK_RC(send_fds(sv[0], fds, 2, &x.m, sizeof(x.m)), 0,
		 "pass the command fd and the channel (SCM_RIGHTS)");
	CHECK_RC(xread(sv[0], &ok, 1), 0, "the importer's WRITE is done");
	{
		/* the importer has had its QP's event: none came to us */
		struct pollfd pfd = { .fd = x.ctx->async_fd, .events = POLLIN };

		CHECK_EQ(poll(&pfd, 1, 0), 0,
			 "the importer's QP event is not on the exporter's async fd");
	}
	xt_ok(xt_pat_check(x.buf.p, HALF, SEED_A) < 0, NULL,
	      "the first half of the exporter's MR is untouched");
	xt_ok(xt_pat_check(x.buf.p + HALF, HALF, SEED_B) < 0, NULL,
	      "the importer's RDMA WRITE is in the exporter's MR");
	/* the exporter's context works alongside */
	{
		struct ibv_pd *pd3 = ibv_alloc_pd(x.ctx);

		CHECK(pd3 && !ibv_dealloc_pd(pd3),
		      "the exporter allocates and frees a PD meanwhile");
	}
	CHECK_RC(xwrite(sv[0], &ok, 1), 0, "let the importer finish");
	reap_importer(pid, rv[0]);
	close(sv[0]);
	close(rv[0]);

	CHECK(!xt_buf_free(&x.buf) && !xt_buf_free(&x.buf2) &&
	      !ibv_dealloc_pd(x.pd) && !ibv_dealloc_pd(x.pd2) &&
	      !ibv_destroy_comp_channel(x.ch),
	      "the exporter destroys its objects after the importer is gone");
	ibv_close_device(x.ctx);
	for (i = 0; i < (int)ARRAY_SIZE(fpd); i++)
		ibv_dealloc_pd(fpd[i]);
	ibv_close_device(ctx2);
	check_res_zero("after both processes");
}

/* the orphan test's exporter: a forked process that exits after passing */
static void exporter_orphan(int report)
{
	struct exporter x;
	int sv[2], fds[2];
	pid_t pid;
	char ok;

	exporter_new(&x);
	sockets(sv);
	pid = spawn_importer("orphan", sv[1], report);
	close(sv[1]);
	if (pid < 0)
		xt_bail(errno, "fork");
	fds[0] = x.ctx->cmd_fd;
	fds[1] = x.ch->fd;
	CHECK_RC(send_fds(sv[0], fds, 2, &x.m, sizeof(x.m)), 0,
		 "orphan exporter: pass the command fd");
	CHECK_RC(xread(sv[0], &ok, 1), 0, "orphan exporter: imported");
	/* exit with everything open: the importer's fd holds the context */
	_exit(0);
}

static void t_orphan(void)
{
	struct share_report r = { 0, 0 };
	int rv[2], st = 0, ret;
	pid_t e;
	char ok = 1;

	sockets(rv);
	fflush(stdout);
	e = fork();
	if (e < 0)
		xt_bail(errno, "fork");
	if (e == 0) {
		close(rv[0]);
		exporter_orphan(rv[1]);
	}
	close(rv[1]);
	while (waitpid(e, &st, 0) < 0 && errno == EINTR)
		;
	xt_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, NULL,
	      "the exporter exited first (status %#x)", st);
	CHECK_RC(xwrite(rv[0], &ok, 1), 0, "tell the importer to go on");
	ret = xread(rv[0], &r, sizeof(r));
	CHECK_RC(ret, 0, "the importer reported its checks");
	if (!ret)
		xt_add(r.checks, r.failed);
	CHECK_EQ(r.failed, 0, "none of the importer's checks failed");
	/* its exit closes the socket: then every object must be gone */
	while (read(rv[0], &ok, 1) > 0)
		;
	close(rv[0]);
	check_res_zero("after the importer, the last user, ended");
}

/* the opener imports its own context through a dup of its fd */
static void t_self(void)
{
	struct ibv_context *ctx, *ctx2;
	struct ibv_pd *pd, *ipd, *pd2;
	int fd2;

	ctx = xt_open_device(dev_name, NULL, 0);
	if (!ctx)
		xt_bail(0, "open %s", dev_name);
	pd = ibv_alloc_pd(ctx);
	fd2 = dup(ctx->cmd_fd);
	if (!pd || fd2 < 0)
		xt_bail(errno, "a PD and a dup of the fd");
	ctx2 = ibv_import_device(fd2);
	if (!ctx2)
		xt_bail(errno, "ibv_import_device(dup(cmd_fd)) in the opener");
	CHECK(ctx2->async_fd >= 0 && ctx2->async_fd != ctx->async_fd,
	      "the import has an async fd of its own");
	ipd = ibv_import_pd(ctx2, pd->handle);
	CHECK(ipd && ipd->handle == pd->handle, "ibv_import_pd in the opener");
	if (ipd)
		ibv_unimport_pd(ipd);
	CHECK(!ibv_close_device(ctx2), "close the imported context");
	CHECK(fcntl(fd2, F_GETFD) < 0 && errno == EBADF,
	      "ibv_close_device closed the imported fd");
	pd2 = ibv_alloc_pd(ctx);
	CHECK(pd2, "the first context works on");
	CHECK(pd2 && !ibv_dealloc_pd(pd2) && !ibv_dealloc_pd(pd),
	      "its PDs deallocate");
	ibv_close_device(ctx);
	check_res_zero("after the self import");
}

/* ------------------------------------------------------------ domains */

#define XV_RES(n)	(((uint64_t)0x78 << 32) + (n))

/* the allocator's log; pd_context points at it */
struct alog {
	int mode;			/* 0 allocate, 1 USE_DEFAULT, 2 fail */
	struct ibv_pd *pd;		/* the parent domain it serves */
	int allocs, frees, defaults, bad;
	struct {
		void *p;
		uint64_t type;
		size_t size;
		bool freed;
	} a[16];
};

static void *my_alloc(struct ibv_pd *pd, void *pd_context, size_t size,
		      size_t alignment, uint64_t type)
{
	struct alog *l = pd_context;
	void *p;

	if (pd != l->pd || !alignment || alignment & (alignment - 1))
		l->bad++;
	if (l->mode == 1) {
		l->defaults++;
		return IBV_ALLOCATOR_USE_DEFAULT;
	}
	if (l->mode == 2 || l->allocs == (int)ARRAY_SIZE(l->a))
		return NULL;
	p = aligned_alloc(alignment < 64 ? 64 : alignment,
			  (size + 63) & ~(size_t)63);
	if (!p)
		return NULL;
	memset(p, 0xa5, size);	/* the library must not count on zeroes */
	l->a[l->allocs].p = p;
	l->a[l->allocs].type = type;
	l->a[l->allocs].size = size;
	l->a[l->allocs].freed = false;
	l->allocs++;
	return p;
}

static void my_free(struct ibv_pd *pd, void *pd_context, void *ptr,
		    uint64_t type)
{
	struct alog *l = pd_context;
	int i;

	if (pd != l->pd)
		l->bad++;
	for (i = 0; i < l->allocs; i++)
		if (l->a[i].p == ptr && l->a[i].type == type && !l->a[i].freed)
			break;
	if (i == l->allocs) {
		l->bad++;	/* not ours, or freed twice */
		return;
	}
	l->a[i].freed = true;
	l->frees++;
	free(ptr);
}

/* how many allocations of @type of at least @size bytes the log holds */
static int alog_count(const struct alog *l, uint64_t type, size_t size)
{
	int i, n = 0;

	for (i = 0; i < l->allocs; i++)
		if (l->a[i].type == type && l->a[i].size >= size)
			n++;
	return n;
}

static struct ibv_pd *parent(struct ibv_context *ctx, struct ibv_pd *pd,
			     struct ibv_td *td, struct alog *l)
{
	struct ibv_parent_domain_init_attr a = {
		.pd = pd, .td = td,
		.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			     IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
		.alloc = my_alloc, .free = my_free, .pd_context = l,
	};
	struct ibv_pd *par = ibv_alloc_parent_domain(ctx, &a);

	if (par)
		l->pd = par;
	return par;
}

/* @n SENDs each way on the pair with distinct wr_ids, data verified */
static bool ping(struct pair *p, struct xt_buf *ba, struct xt_buf *bb, int n)
{
	struct ibv_wc wc;
	int i;

	for (i = 0; i < n; i++) {
		struct ibv_sge ra = xt_sge(ba, 0, 256), sb = xt_sge(bb, 256, 256);
		struct ibv_recv_wr rwr = { .wr_id = 0xa000 + i, .sg_list = &ra,
					   .num_sge = 1 }, *rbad;
		struct ibv_send_wr swr = { .wr_id = 0xb000 + i, .sg_list = &sb,
					   .num_sge = 1, .opcode = IBV_WR_SEND,
					   .send_flags = IBV_SEND_SIGNALED },
				   *sbad;

		xt_pat_fill(bb->p + 256, 256, i + 1);
		memset(ba->p, 0, 256);
		if (ibv_post_recv(p->a.qp, &rwr, &rbad) ||
		    ibv_post_send(p->b.qp, &swr, &sbad) ||
		    !xt_poll_one(p->b.cq, &wc, WAIT_MS) ||
		    wc.status != IBV_WC_SUCCESS || wc.wr_id != 0xb000u + i ||
		    !xt_poll_one(p->a.cq, &wc, WAIT_MS) ||
		    wc.status != IBV_WC_SUCCESS || wc.wr_id != 0xa000u + i ||
		    xt_pat_check(ba->p, 256, i + 1) >= 0)
			return false;
		/* and back: a's send queue */
		sb = xt_sge(ba, 0, 256);
		ra = xt_sge(bb, 0, 256);
		rwr.wr_id = 0xc000 + i;
		swr.wr_id = 0xd000 + i;
		rwr.sg_list = &ra;
		swr.sg_list = &sb;
		if (ibv_post_recv(p->b.qp, &rwr, &rbad) ||
		    ibv_post_send(p->a.qp, &swr, &sbad) ||
		    !xt_poll_one(p->a.cq, &wc, WAIT_MS) ||
		    wc.status != IBV_WC_SUCCESS || wc.wr_id != 0xd000u + i ||
		    !xt_poll_one(p->b.cq, &wc, WAIT_MS) ||
		    wc.status != IBV_WC_SUCCESS || wc.wr_id != 0xc000u + i ||
		    xt_pat_check(bb->p, 256, i + 1) >= 0)
			return false;
	}
	return true;
}

static void t_domains(void)
{
	struct ibv_td_init_attr tda = { 0 };
	struct ibv_parent_domain_init_attr pa;
	struct ibv_context *ctx, *ctx2;
	struct ibv_pd *pd, *par, *pdef, *pfail;
	struct ibv_td *td, *td2;
	struct alog l = { 0 }, ldef = { .mode = 1 }, lfail = { .mode = 2 };
	struct xt_buf ba, bb;
	struct pair p;
	int i;

	ctx = xt_open_device(dev_name, NULL, 0);
	ctx2 = xt_open_device(dev_name, NULL, 0);
	if (!ctx || !ctx2)
		xt_bail(0, "open %s twice", dev_name);
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		xt_bail(errno, "ibv_alloc_pd");

	tda.comp_mask = 1;
	CHECK(!ibv_alloc_td(ctx, &tda) && errno == EINVAL,
	      "ibv_alloc_td with an unknown comp_mask: EINVAL");
	tda.comp_mask = 0;
	td = ibv_alloc_td(ctx, &tda);
	td2 = ibv_alloc_td(ctx2, &tda);
	if (!td || !td2)
		xt_bail(errno, "ibv_alloc_td");
	CHECK(td->context == ctx, "the TD's context");

	memset(&pa, 0, sizeof(pa));
	CHECK(!ibv_alloc_parent_domain(ctx, &pa) && errno == EINVAL,
	      "a parent domain without a PD: EINVAL");
	pa.pd = pd;
	pa.comp_mask = 1u << 5;
	CHECK(!ibv_alloc_parent_domain(ctx, &pa) && errno == EINVAL,
	      "a parent domain with an unknown comp_mask: EINVAL");
	pa.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS;
	CHECK(!ibv_alloc_parent_domain(ctx, &pa) && errno == EINVAL,
	      "ALLOCATORS without the functions: EINVAL");
	pa.comp_mask = 0;
	pa.td = td2;
	CHECK(!ibv_alloc_parent_domain(ctx, &pa) && errno == EINVAL,
	      "a TD of another context: EINVAL");
	CHECK(!ibv_alloc_parent_domain(ctx2, &pa) && errno == EINVAL,
	      "a PD of another context: EINVAL");
	CHECK(!ibv_dealloc_td(td2), "ibv_dealloc_td of an unused TD");

	par = parent(ctx, pd, td, &l);
	if (!par)
		xt_bail(errno, "ibv_alloc_parent_domain");
	CHECK(par->context == ctx && par->handle == pd->handle,
	      "the parent domain stands for its PD (context, handle)");
	CHECK_RC(-ibv_dealloc_td(td), -EBUSY, "ibv_dealloc_td in use: EBUSY");
	CHECK_RC(-ibv_dealloc_pd(pd), -EBUSY,
		 "ibv_dealloc_pd of a PD a parent domain uses: EBUSY");

	/* a QP on the parent domain: its wr_id arrays from the allocator */
	if (!xt_buf_new(&ba, par, 4096, IBV_ACCESS_LOCAL_WRITE) ||
	    !xt_buf_new(&bb, pd, 4096, IBV_ACCESS_LOCAL_WRITE))
		xt_bail(errno, "MRs on the parent domain and on its PD");
	CHECK(ba.mr->pd == par, "the MR's pd is the parent domain");
	if (!pair_new(&p, ctx, par, pd, NULL))
		xt_bail(errno, "an RC pair, one QP on the parent domain");
	CHECK(p.a.qp->pd == par, "the QP's pd is the parent domain");
	CHECK_EQ(alog_count(&l, XV_RES(1), 16 * sizeof(uint64_t)), 1,
		 "one SQ wr_id array from the allocator");
	CHECK_EQ(alog_count(&l, XV_RES(2), 16 * sizeof(uint64_t)), 1,
		 "one RQ wr_id array from the allocator");
	CHECK_EQ(l.allocs, 2, "the allocator was asked twice for the QP");
	CHECK(ping(&p, &ba, &bb, 40),
	      "SENDs both ways, wr_ids through the allocator's arrays");
	CHECK_RC(-ibv_dealloc_pd(par), -EBUSY,
		 "ibv_dealloc_pd of a parent domain a QP uses: EBUSY");

	/* SRQ, CQ, AH on the parent domain */
	{
		struct ibv_srq_init_attr sa = { .attr = { .max_wr = 8,
							  .max_sge = 1 } };
		struct ibv_srq *srq = ibv_create_srq(par, &sa);
		struct ibv_cq_init_attr_ex ca = {
			.cqe = 8, .comp_mask = IBV_CQ_INIT_ATTR_MASK_PD,
			.parent_domain = par,
		};
		struct ibv_cq_ex *cq = ibv_create_cq_ex(ctx, &ca);
		struct ibv_ah_attr aa = {
			.is_global = 1, .port_num = XT_PORT,
			.grh = { .sgid_index = XT_GID_INDEX, .hop_limit = 64 },
		};
		struct ibv_ah *ah;

		struct ibv_sge sge = xt_sge(&ba, 0, 64);
		struct ibv_recv_wr rwr = { .wr_id = 5, .sg_list = &sge,
					   .num_sge = 1 }, *rbad;

		CHECK(srq && alog_count(&l, XV_RES(3), 8 * sizeof(uint64_t)) == 1,
		      "an SRQ on the parent domain: its wr_id array allocated");
		CHECK(srq && !ibv_post_srq_recv(srq, &rwr, &rbad),
		      "a receive posted to the thread domain's SRQ");
		CHECK(cq, "ibv_create_cq_ex with IBV_CQ_INIT_ATTR_MASK_PD");
		ca.parent_domain = pd;
		CHECK(!ibv_create_cq_ex(ctx, &ca) && errno == EINVAL,
		      "ibv_create_cq_ex with MASK_PD and a plain PD: EINVAL");
		ca.parent_domain = NULL;
		CHECK(!ibv_create_cq_ex(ctx, &ca) && errno == EINVAL,
		      "ibv_create_cq_ex with MASK_PD and no PD: EINVAL");
		ibv_query_gid(ctx, XT_PORT, XT_GID_INDEX, &aa.grh.dgid);
		ah = ibv_create_ah(par, &aa);
		CHECK(ah && ah->pd == par, "an AH on the parent domain");
		if (ah)
			ibv_destroy_ah(ah);
		if (srq)
			CHECK(!ibv_destroy_srq(srq), "destroy the SRQ");
		CHECK_RC(-ibv_dealloc_pd(par), -EBUSY,
			 "ibv_dealloc_pd of a parent domain a CQ uses: EBUSY");
		if (cq)
			CHECK(!ibv_destroy_cq(ibv_cq_ex_to_cq(cq)),
			      "destroy the CQ");
	}

	pair_free(&p);
	CHECK(!xt_buf_free(&ba) && !xt_buf_free(&bb), "deregister the MRs");
	CHECK_EQ(l.frees, l.allocs, "every allocation freed");
	for (i = 0; i < l.allocs; i++)
		if (!l.a[i].freed)
			xt_fail(NULL, "allocation %d (type %#llx) freed", i,
				(unsigned long long)l.a[i].type);
	CHECK_EQ(l.bad, 0, "the allocator saw its pd, alignments and pointers");

	/* IBV_ALLOCATOR_USE_DEFAULT, and a failing allocator */
	pdef = parent(ctx, pd, NULL, &ldef);
	pfail = parent(ctx, pd, NULL, &lfail);
	if (!pdef || !pfail)
		xt_bail(errno, "two more parent domains");
	if (!pair_new(&p, ctx, pdef, pd, NULL))
		xt_fail(strerror(errno), "a QP on a USE_DEFAULT parent domain");
	CHECK(ldef.defaults == 2 && ldef.allocs == 0,
	      "USE_DEFAULT: asked twice, the library allocated");
	pair_free(&p);
	CHECK(ldef.frees == 0 && ldef.bad == 0,
	      "USE_DEFAULT: free was never called");
	{
		struct xt_ep e = { 0 };

		CHECK(!ep_new(&e, pfail, NULL) && errno == ENOMEM,
		      "a QP on a parent domain whose allocator fails: ENOMEM");
		ep_free(&e);
	}
	CHECK(!ibv_dealloc_pd(pfail) && !ibv_dealloc_pd(pdef),
	      "the two parent domains deallocate (no user left)");
	CHECK(!ibv_dealloc_pd(par), "ibv_dealloc_pd of the parent domain");
	CHECK(!ibv_dealloc_td(td), "ibv_dealloc_td after its parent domain");
	CHECK(!ibv_dealloc_pd(pd), "ibv_dealloc_pd after its parent domains");
	ibv_close_device(ctx);
	ibv_close_device(ctx2);
	check_res_zero("after the domains");
}

/* ------------------------------------------------------------ main */

static const struct xt_subtest tests[] = {
	XT_SUBTEST(import, 120, "a second process imports device, PD, MR"),
	XT_SUBTEST(orphan, 120, "the exporter exits first"),
	XT_SUBTEST(self, 60, "the opener imports its own context (dup)"),
	XT_SUBTEST(domains, 120, "thread and parent domains, the allocator"),
};

static const struct xt_suite suite = {
	.tests = tests, .n = ARRAY_SIZE(tests), .timeout = 120,
};

int main(int argc, char **argv)
{
	const struct xt_opt opts[] = {
		{ .c = 'd', .arg = "IBDEV", .str = &dev_name },
		{ .c = 'I', .arg = "MODE", .str = &importer_mode },
		{ .c = 'S', .arg = "FD", .num = &importer_sock },
		{ .c = 'R', .arg = "FD", .num = &importer_report },
	};
	int ret;

	ret = xt_main(&suite, opts, ARRAY_SIZE(opts), &argc, &argv,
		      "xv_share");
	if (ret >= 0)
		return ret;
	if (importer_mode)
		return importer_main();
	xt_show_library();
	xt_run(&suite, argc, argv);
	return xt_done();
}
