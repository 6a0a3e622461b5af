// SPDX-License-Identifier: GPL-2.0
/*
 * xv_xrc_isolation: XRC domains against a hostile local user, through the
 * stock verbs API of whatever libibverbs.so.1 the dynamic linker finds (on
 * xrdma, tools/lib/xverbs via scripts/xrdma-run); guest test
 * tools/testing/lib/xverbs/xverbs_xrc.sh.  Started as root, the attacker
 * drops to uid/gid 65534 (-u UID).
 *
 *   umount   the attacker, in a user and mount namespace of its own
 *            (unshare(CLONE_NEWUSER | CLONE_NEWNS)), mounts a tmpfs,
 *            creates a file, opens an XRC domain on it (O_CREAT), closes
 *            the file and unmounts: EBUSY while the domain is open (the
 *            domain holds the file's path, so the filesystem cannot go
 *            from under it), the unmount succeeds once the domain is
 *            closed; a lazy unmount (MNT_DETACH) with the domain open,
 *            then its close; a domain left open at exit on a mounted
 *            tmpfs (the namespace goes before the context).  No domain is
 *            left on the device (-r RESOURCES).  Before the fix the first
 *            unmount succeeded and the later close touched the freed
 *            superblock ("Busy inodes after unmount", KASAN).
 *
 *   brute    the victim (this process) opens a domain on a regular file
 *            readable by all, an XRC SRQ with receives posted and an MR M
 *            of its PD (remote write).  The attacker (uid 65534) opens the
 *            file read-only and the domain, and cannot make a domain of an
 *            eventfd (EINVAL: anybody could open that inode).  With an
 *            XRC_SEND and an XRC_RECV QP of its own, connected to each
 *            other, it walks the 256 key tags of M's index with WRITEs
 *            naming the victim's SRQ, resetting and reconnecting its QPs
 *            after each miss (the real tag last).  The first miss puts the
 *            victim's SRQ in error (REM_ACCESS_ERR), every later guess is
 *            refused (REM_INV_REQ_ERR): nothing is written, no receive
 *            is consumed, and the victim gets IBV_EVENT_SRQ_ERR for its
 *            SRQ.  Before the rule the walk wrote M silently.
 *
 *   modify   the victim (this process) connects an XRC_RECV QP of its
 *            domain (RTR) to its own XRC_SEND QP.  The attacker opens the
 *            domain and that QP by number (ibv_open_qp) and moves it to
 *            ERR, then RESET: EPERM both (only the creator's handle
 *            modifies an XRC_RECV QP); ibv_query_qp through its handle
 *            works.  The victim's QP is still in RTR and receives a SEND.
 *            Before the rule the attacker moved it to ERR.
 *
 *   charge   with user_share 1 (so a uid's share of domains and QPs is
 *            small enough to fill), the victim (uid UID - 1) measures how
 *            many domains and XRC_RECV QPs it may take (until EAGAIN),
 *            opens a domain on a file and an XRC_RECV QP in it; the
 *            attacker joins both; the victim closes its handles and may
 *            take exactly as many as before: the domain and the QP, which
 *            live on for the attacker (its handle still queries), are no
 *            longer on the victim's share.  Then the attacker closes and
 *            no domain or QP is left.  Before the fix the victim got one
 *            domain and one QP less until the attacker let go.
 *
 *   -d IBDEV  device (xnic0)   -r RESOURCES  the core's debugfs resources
 *   file   -u UID  the attacker's uid and gid (65534)
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include "xt.h"
#include "xt_verbs.h"

#define WORKER_SECS	60

/* a check whose failure shows errno */
#define CHECK_ERRNO(c, ...)	xt_ok(!!(c), strerror(errno), __VA_ARGS__)

static const char *dev_name = "xnic0";
static const char *res_path;
static int attacker_uid = 65534;

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

/* fork a worker running fn(arg) with its own time limit; its pid */
static pid_t worker(void (*fn)(void *), void *arg)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		xt_bail(errno, "fork");
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		alarm(WORKER_SECS);
		fn(arg);
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

/* this process as the attacker: uid/gid attacker_uid when root */
static void become_attacker(void)
{
	if (getuid() == 0 &&
	    (setgroups(0, NULL) || setgid((gid_t)attacker_uid) ||
	     setuid((uid_t)attacker_uid)))
		xt_bail(errno, "drop to uid %d", attacker_uid);
	/* a changed uid made /proc/self root's: our own again */
	prctl(PR_SET_DUMPABLE, 1);
	xt_note("attacker runs as uid %u gid %u", getuid(), getgid());
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -EIO;
}

/* ------------------------------------------------------------ umount */

static char mnt[64];

/* uid 0 of a new user namespace (the attacker's uid outside), own mounts */
static bool userns_enter(void)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (!CHECK_ERRNO(!unshare(CLONE_NEWUSER | CLONE_NEWNS),
			 "unshare(CLONE_NEWUSER | CLONE_NEWNS) as uid %u", uid))
		return false;
	snprintf(map, sizeof(map), "0 %u 1", uid);
	if (write_file("/proc/self/setgroups", "deny") ||
	    write_file("/proc/self/uid_map", map))
		xt_bail(errno, "uid_map");
	snprintf(map, sizeof(map), "0 %u 1", gid);
	if (write_file("/proc/self/gid_map", map))
		xt_bail(errno, "gid_map");
	/* our mounts and unmounts stay in this namespace */
	return CHECK_ERRNO(!mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL),
			   "mounts made private in the new namespace");
}

/* a tmpfs on mnt, a file on it and a domain of that file, the file closed */
static struct ibv_xrcd *tmpfs_domain(struct ibv_context *ctx, bool unlinked)
{
	char path[96];
	struct ibv_xrcd *xrcd;
	int fd;

	if (mount("xv_xrc", mnt, "tmpfs", 0, "size=64k")) {
		xt_fail(strerror(errno), "tmpfs mounted on %s", mnt);
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/domain", mnt);
	fd = open(path, O_RDWR | O_CREAT, 0600);
	if (fd < 0)
		xt_bail(errno, "%s created", path);
	xrcd = xrcd_open(ctx, fd, O_CREAT);
	CHECK_ERRNO(xrcd, "a domain opened on a file of the tmpfs");
	close(fd);
	if (unlinked && unlink(path))
		xt_bail(errno, "%s unlinked", path);
	return xrcd;
}

static void umount_attacker(void *unused)
{
	struct ibv_context *ctx;
	struct ibv_xrcd *xrcd;

	(void)unused;
	xt_subtest = "umount";
	become_attacker();
	if (!userns_enter())
		return;
	ctx = xt_open_device(dev_name, NULL, 0);
	if (!ctx)
		xt_bail(errno, "%s opened", dev_name);

	/* the sequence */
	xrcd = tmpfs_domain(ctx, false);
	if (xrcd) {
		errno = 0;
		CHECK_ERRNO(umount(mnt) && errno == EBUSY,
			    "umount with the domain open: EBUSY");
		CHECK_ERRNO(!ibv_close_xrcd(xrcd), "the domain closed");
	}
	CHECK_ERRNO(!umount(mnt), "umount once the domain is closed");

	/* the file unlinked too: only the domain names it */
	xrcd = tmpfs_domain(ctx, true);
	if (xrcd) {
		errno = 0;
		CHECK_ERRNO(umount(mnt) && errno == EBUSY,
			    "umount with the domain of an unlinked file open: EBUSY");
		CHECK_ERRNO(!ibv_close_xrcd(xrcd), "the domain closed");
	}
	CHECK_ERRNO(!umount(mnt), "umount once the domain is closed");

	/* lazy: the mount goes from the tree, the filesystem stays */
	xrcd = tmpfs_domain(ctx, true);
	CHECK_ERRNO(!umount2(mnt, MNT_DETACH),
		    "lazy umount with the domain open");
	if (xrcd)
		CHECK_ERRNO(!ibv_close_xrcd(xrcd),
			    "the domain of the detached filesystem closed");

	/* left open, mounted, at exit: the namespace goes first */
	xrcd = tmpfs_domain(ctx, false);
	xt_check(xrcd, "a domain left open at exit");
	/* ctx not closed either */
}

static void t_umount(void)
{
	long x0 = res_count("xrcd");
	const char *knob = "/proc/sys/kernel/unprivileged_userns_clone";
	char v[16] = "";
	pid_t pid;

	/* Debian's switch (its default is 1): the attack needs it on */
	if (!xt_read_line(knob, v, sizeof(v)) && strcmp(v, "1")) {
		xt_note("%s is %s: set to 1", knob, v);
		if (write_file(knob, "1"))
			xt_bail(errno, "%s set", knob);
	}
	snprintf(mnt, sizeof(mnt), "/xv_xrc.XXXXXX");
	if (!mkdtemp(mnt) || chmod(mnt, 0755))
		xt_bail(errno, "mount point %s", mnt);
	pid = worker(umount_attacker, NULL);
	reap(pid, "the attacker");
	if (x0 >= 0)
		CHECK_EQ(res_count("xrcd"), x0,
			 "no domain left on the device after the attacker");
	/* unmounted here too: the attacker's mounts were its own */
	CHECK_ERRNO(!rmdir(mnt), "the mount point is an empty directory");
}

/* ------------------------------------------------------------ brute */

#define M_LEN		4096
#define M_SEED		0x29
#define ACC_ALL		(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

struct brute_info {
	char path[64];
	uint32_t srqn;
	uint32_t rkey;
	uint64_t addr;
};

static int brute_pipe[2], brute_done[2];

static int qp_reset(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

/* @qp RESET -> INIT -> RTR towards @dqpn; @rts: on to RTS (XRC_SEND) */
static int xrc_connect(struct ibv_qp *qp, uint32_t dqpn,
		       const union ibv_gid *gid, bool rts)
{
	struct ibv_qp_attr a = { 0 };
	int ret;

	ret = qp_reset(qp) ? -1 : xt_qp_init(qp, 0);
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
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			    IBV_QP_RQ_PSN |
			    (rts ? 0 : IBV_QP_MAX_DEST_RD_ATOMIC |
			     IBV_QP_MIN_RNR_TIMER));
	if (ret || !rts)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = XT_PSN;
	a.max_rd_atomic = 4;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

static void brute_attacker(void *unused)
{
	unsigned int n_ok = 0, n_acc = 0, n_inv = 0, n_other = 0, i;
	struct ibv_qp_init_attr_ex ta = {
		.qp_type = IBV_QPT_XRC_RECV, .comp_mask = IBV_QP_INIT_ATTR_XRCD,
	};
	struct ibv_qp_init_attr_ex sa = {
		.qp_type = IBV_QPT_XRC_SEND,
		.cap = { .max_send_wr = 4, .max_send_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD,
	};
	struct brute_info bi;
	struct ibv_context *ctx;
	struct ibv_xrcd *xrcd;
	struct ibv_qp *s, *t;
	struct ibv_cq *cq;
	union ibv_gid gid;
	struct xt_buf b = { 0 };
	int fd, efd;

	(void)unused;
	xt_subtest = "brute";
	close(brute_pipe[1]);
	become_attacker();
	if (read(brute_pipe[0], &bi, sizeof(bi)) != (ssize_t)sizeof(bi))
		xt_bail(errno, "the victim's domain file, SRQ and MR");
	ctx = xt_open_device(dev_name, NULL, 0);
	if (!ctx)
		xt_bail(errno, "%s opened", dev_name);
	efd = eventfd(0, 0);
	errno = 0;
	CHECK_ERRNO(efd >= 0 && !xrcd_open(ctx, efd, O_CREAT) &&
		    errno == EINVAL,
		    "no domain of an eventfd (not a regular file): EINVAL");
	fd = open(bi.path, O_RDONLY);
	CHECK_ERRNO(fd >= 0, "the victim's domain file opened read-only");
	xrcd = fd >= 0 ? xrcd_open(ctx, fd, 0) : NULL;
	CHECK_ERRNO(xrcd, "the victim's domain opened through its file");
	if (!xrcd)
		return;
	sa.pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	sa.send_cq = cq;
	ta.xrcd = xrcd;
	s = sa.pd && cq ? ibv_create_qp_ex(ctx, &sa) : NULL;
	t = ibv_create_qp_ex(ctx, &ta);
	if (!s || !t || ibv_query_gid(ctx, XT_PORT, 0, &gid) ||
	    !xt_buf_new(&b, sa.pd, 64, ACC_ALL))
		xt_bail(errno, "the attacker's XRC_SEND and XRC_RECV QPs");
	memset(b.p, 0xee, 64);
	/* every tag of the index, the real one last */
	for (i = 1; i <= 256; i++) {
		uint32_t key = (bi.rkey & ~0xffu) | ((bi.rkey + i) & 0xff);
		struct ibv_sge sge = xt_sge(&b, 0, 8);
		struct ibv_send_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
		}, *bad;
		struct ibv_wc wc;

		wr.qp_type.xrc.remote_srqn = bi.srqn;
		wr.wr.rdma.remote_addr = bi.addr;
		wr.wr.rdma.rkey = key;
		if (xrc_connect(t, s->qp_num, &gid, false) ||
		    xrc_connect(s, t->qp_num, &gid, true) ||
		    ibv_post_send(s, &wr, &bad) ||
		    !xt_poll_one(cq, &wc, 5000)) {
			xt_fail(strerror(errno), "guess %u: connected, posted, completed",
				i);
			break;
		}
		if (wc.status == IBV_WC_SUCCESS)
			n_ok++;
		else if (wc.status == IBV_WC_REM_ACCESS_ERR)
			n_acc++;
		else if (wc.status == IBV_WC_REM_INV_REQ_ERR)
			n_inv++;
		else
			n_other++;
	}
	xt_note("256 guesses: %u written, %u REM_ACCESS_ERR, %u REM_INV_REQ_ERR, %u other",
		n_ok, n_acc, n_inv, n_other);
	CHECK_EQ(n_ok, 0, "no guess wrote the victim's memory");
	CHECK_EQ(n_acc, 1, "one key miss (the first) reached the SRQ's PD");
	CHECK_EQ(n_inv, 255,
		 "every later guess refused: the SRQ is in error");
	if (write(brute_done[1], "x", 1) != 1)
		xt_bail(errno, "done");
}

static void t_brute(void)
{
	struct ibv_srq_init_attr_ex sa = {
		.attr = { .max_wr = 8, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC,
	};
	struct ibv_async_event ev;
	struct ibv_srq *srq;
	struct brute_info bi = { 0 };
	struct ibv_context *ctx;
	struct ibv_xrcd *xrcd;
	struct xt_buf m = { 0 };
	struct pollfd pfd;
	struct ibv_wc wc;
	bool srq_err = false;
	unsigned int i;
	pid_t pid;
	char c;
	int fd;

	if (pipe(brute_pipe) || pipe(brute_done))
		xt_bail(errno, "pipes");
	/* forked before the victim touches the device: it inherits nothing */
	pid = worker(brute_attacker, NULL);
	close(brute_pipe[0]);
	close(brute_done[1]);

	snprintf(bi.path, sizeof(bi.path), "/xv_xrc_domain.XXXXXX");
	fd = mkstemp(bi.path);
	if (fd < 0 || fchmod(fd, 0644))
		xt_bail(errno, "the domain's file");
	ctx = xt_open_device(dev_name, NULL, 0);
	if (!ctx)
		xt_bail(errno, "%s opened", dev_name);
	xrcd = xrcd_open(ctx, fd, O_CREAT);
	sa.pd = ibv_alloc_pd(ctx);
	sa.cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	sa.xrcd = xrcd;
	srq = xrcd && sa.pd && sa.cq ? ibv_create_srq_ex(ctx, &sa) : NULL;
	if (!srq || !xt_buf_new(&m, sa.pd, M_LEN, ACC_ALL) ||
	    ibv_get_srq_num(srq, &bi.srqn))
		xt_bail(errno, "the victim's domain, SRQ and MR");
	xt_pat_fill(m.p, M_LEN, M_SEED);
	for (i = 0; i < 4; i++) {
		struct ibv_sge sge = xt_sge(&m, i * 64, 64);
		struct ibv_recv_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1,
		}, *bad;

		if (ibv_post_srq_recv(srq, &wr, &bad))
			xt_bail(errno, "receives posted");
	}
	/* recv buffers overlap M's start: the WRITE goes to its end */
	bi.rkey = m.mr->rkey;
	bi.addr = xt_va(&m, M_LEN - 64);
	xt_pat_fill(m.p, M_LEN, M_SEED);
	if (write(brute_pipe[1], &bi, sizeof(bi)) != (ssize_t)sizeof(bi))
		xt_bail(errno, "info sent");
	if (read(brute_done[0], &c, 1) != 1)
		xt_note("the attacker stopped early");
	reap(pid, "the attacker");

	CHECK(xt_pat_check(m.p, M_LEN, M_SEED) < 0,
	      "the victim's memory is intact");
	CHECK(!xt_poll_n(sa.cq, &wc, 1, 0), "no receive of the victim's consumed");
	/* the victim hears of it */
	pfd.fd = ctx->async_fd;
	pfd.events = POLLIN;
	while (poll(&pfd, 1, 2000) == 1 && !ibv_get_async_event(ctx, &ev)) {
		if (ev.event_type == IBV_EVENT_SRQ_ERR &&
		    ev.element.srq == srq)
			srq_err = true;
		ibv_ack_async_event(&ev);
		if (srq_err)
			break;
	}
	CHECK(srq_err, "the victim got IBV_EVENT_SRQ_ERR for its SRQ");

	CHECK_RC(-ibv_destroy_srq(srq), 0, "the SRQ in error destroyed");
	xt_buf_free(&m);
	ibv_destroy_cq(sa.cq);
	ibv_dealloc_pd(sa.pd);
	CHECK_RC(-ibv_close_xrcd(xrcd), 0, "the domain closed");
	ibv_close_device(ctx);
	close(fd);
	unlink(bi.path);
}

/* ------------------------------------------------------------ modify */

struct modify_info {
	char path[64];
	uint32_t qpn;
};

static int modify_pipe[2], modify_done[2];

static void modify_attacker(void *unused)
{
	struct ibv_qp_open_attr oa = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			     IBV_QP_OPEN_ATTR_TYPE,
		.qp_type = IBV_QPT_XRC_RECV,
	};
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_context *ctx;
	struct modify_info mi;
	struct ibv_xrcd *xrcd;
	struct ibv_qp *qp;
	int fd, ret;

	(void)unused;
	xt_subtest = "modify";
	close(modify_pipe[1]);
	become_attacker();
	if (read(modify_pipe[0], &mi, sizeof(mi)) != (ssize_t)sizeof(mi))
		xt_bail(errno, "the victim's domain file and QPN");
	ctx = xt_open_device(dev_name, NULL, 0);
	if (!ctx)
		xt_bail(errno, "%s opened", dev_name);
	fd = open(mi.path, O_RDONLY);
	xrcd = fd >= 0 ? xrcd_open(ctx, fd, 0) : NULL;
	CHECK_ERRNO(xrcd, "the victim's domain opened through its file");
	if (!xrcd)
		return;
	oa.xrcd = xrcd;
	oa.qp_num = mi.qpn;
	qp = ibv_open_qp(ctx, &oa);
	CHECK_ERRNO(qp, "the victim's XRC_RECV QP opened by number");
	if (!qp)
		return;
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	CHECK_RC(-ret, -EPERM, "ibv_modify_qp to ERR through the opened QP");
	a.qp_state = IBV_QPS_RESET;
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	CHECK_RC(-ret, -EPERM,
		 "ibv_modify_qp to RESET through the opened QP");
	CHECK_EQ(xt_qp_state(qp), IBV_QPS_RTR,
		 "ibv_query_qp through the opened QP works: RTR");
	CHECK_RC(-ibv_destroy_qp(qp), 0, "the opened QP closed");
	CHECK_RC(-ibv_close_xrcd(xrcd), 0, "the domain closed");
	ibv_close_device(ctx);
	close(fd);
	if (write(modify_done[1], "x", 1) != 1)
		xt_bail(errno, "done");
}

static void t_modify(void)
{
	struct ibv_srq_init_attr_ex sa = {
		.attr = { .max_wr = 8, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC,
	};
	struct ibv_qp_init_attr_ex ta = {
		.qp_type = IBV_QPT_XRC_RECV, .comp_mask = IBV_QP_INIT_ATTR_XRCD,
	};
	struct ibv_qp_init_attr_ex xa = {
		.qp_type = IBV_QPT_XRC_SEND,
		.cap = { .max_send_wr = 4, .max_send_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD,
	};
	struct modify_info mi = { 0 };
	struct ibv_cq *scq = NULL;
	struct ibv_context *ctx;
	struct ibv_qp *s, *t;
	struct ibv_xrcd *xrcd;
	struct ibv_srq *srq;
	struct xt_buf m = { 0 };
	union ibv_gid gid;
	struct ibv_wc wc;
	uint32_t srqn;
	pid_t pid;
	char c;
	int fd;

	if (pipe(modify_pipe) || pipe(modify_done))
		xt_bail(errno, "pipes");
	pid = worker(modify_attacker, NULL);
	close(modify_pipe[0]);
	close(modify_done[1]);

	snprintf(mi.path, sizeof(mi.path), "/xv_xrc_domain.XXXXXX");
	fd = mkstemp(mi.path);
	if (fd < 0 || fchmod(fd, 0644))
		xt_bail(errno, "the domain's file");
	ctx = xt_open_device(dev_name, NULL, 0);
	if (!ctx)
		xt_bail(errno, "%s opened", dev_name);
	xrcd = xrcd_open(ctx, fd, O_CREAT);
	sa.pd = ibv_alloc_pd(ctx);
	sa.cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	sa.xrcd = xrcd;
	ta.xrcd = xrcd;
	xa.pd = sa.pd;
	if (sa.pd)
		scq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	xa.send_cq = scq;
	srq = xrcd && sa.pd && sa.cq ? ibv_create_srq_ex(ctx, &sa) : NULL;
	t = xrcd ? ibv_create_qp_ex(ctx, &ta) : NULL;
	s = scq ? ibv_create_qp_ex(ctx, &xa) : NULL;
	if (!srq || !t || !s || ibv_get_srq_num(srq, &srqn) ||
	    ibv_query_gid(ctx, XT_PORT, 0, &gid) ||
	    !xt_buf_new(&m, sa.pd, 128, ACC_ALL))
		xt_bail(errno, "the victim's domain, SRQ and QPs");
	if (xrc_connect(t, s->qp_num, &gid, false) ||
	    xrc_connect(s, t->qp_num, &gid, true))
		xt_bail(errno, "the victim's XRC QPs connected");
	mi.qpn = t->qp_num;
	if (write(modify_pipe[1], &mi, sizeof(mi)) != (ssize_t)sizeof(mi))
		xt_bail(errno, "info sent");
	if (read(modify_done[0], &c, 1) != 1)
		xt_note("the attacker stopped early");
	reap(pid, "the attacker");

	CHECK_EQ(xt_qp_state(t), IBV_QPS_RTR,
		 "the victim's XRC_RECV QP is still in RTR");
	{
		struct ibv_sge rs = xt_sge(&m, 0, 64), ss = xt_sge(&m, 64, 8);
		struct ibv_recv_wr rwr = {
			.wr_id = 1, .sg_list = &rs, .num_sge = 1,
		}, *rbad;
		struct ibv_send_wr swr = {
			.wr_id = 2, .sg_list = &ss, .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		}, *sbad;

		swr.qp_type.xrc.remote_srqn = srqn;
		CHECK_RC(-ibv_post_srq_recv(srq, &rwr, &rbad), 0,
			 "a receive posted");
		CHECK_RC(-ibv_post_send(s, &swr, &sbad), 0, "a SEND posted");
		CHECK(xt_poll_one(scq, &wc, 5000) &&
		      wc.status == IBV_WC_SUCCESS, "the SEND completed");
		CHECK(xt_poll_one(sa.cq, &wc, 5000) &&
		      wc.status == IBV_WC_SUCCESS && wc.wr_id == 1,
		      "the victim's QP still receives");
	}
	ibv_destroy_qp(s);
	ibv_destroy_qp(t);
	CHECK_RC(-ibv_destroy_srq(srq), 0, "the SRQ destroyed");
	xt_buf_free(&m);
	ibv_destroy_cq(scq);
	ibv_destroy_cq(sa.cq);
	ibv_dealloc_pd(sa.pd);
	CHECK_RC(-ibv_close_xrcd(xrcd), 0, "the domain closed");
	ibv_close_device(ctx);
	close(fd);
	unlink(mi.path);
}

/* ------------------------------------------------------------ charge */

#define USER_SHARE	"/sys/module/xrdma_core/parameters/user_share"
#define FILL_MAX	4096

static char charge_path[64];
static int charge_info[2], charge_opened[2], charge_closed[2];

/*
 * How many domains, then XRC_RECV QPs (in the first of them), this uid
 * may still take: each until -EAGAIN; all freed again.  false if
 * something else failed.
 */
static bool fill(struct ibv_context *ctx, unsigned int *nx, unsigned int *nq)
{
	static struct ibv_xrcd *x[FILL_MAX];
	static struct ibv_qp *q[FILL_MAX];
	struct ibv_qp_init_attr_ex ta = {
		.qp_type = IBV_QPT_XRC_RECV, .comp_mask = IBV_QP_INIT_ATTR_XRCD,
	};
	unsigned int i;
	bool ok;

	for (*nx = 0; *nx < FILL_MAX; (*nx)++) {
		x[*nx] = xrcd_open(ctx, -1, O_CREAT);
		if (!x[*nx])
			break;
	}
	ok = xt_ok(*nx && *nx < FILL_MAX && errno == EAGAIN, strerror(errno),
		   "domains until EAGAIN: %u", *nx);
	*nq = 0;
	ta.xrcd = *nx ? x[0] : NULL;
	for (; ta.xrcd && *nq < FILL_MAX; (*nq)++) {
		q[*nq] = ibv_create_qp_ex(ctx, &ta);
		if (!q[*nq])
			break;
	}
	ok &= xt_ok(*nq && *nq < FILL_MAX && errno == EAGAIN, strerror(errno),
		    "XRC_RECV QPs until EAGAIN: %u", *nq);
	for (i = 0; i < *nq; i++)
		ibv_destroy_qp(q[i]);
	for (i = 0; i < *nx; i++)
		ibv_close_xrcd(x[i]);
	return ok;
}

/* drop to uid/gid @uid (the victim's, not the attacker's) */
static void become(int uid)
{
	if (setgroups(0, NULL) || setgid((gid_t)uid) || setuid((uid_t)uid))
		xt_bail(errno, "drop to uid %d", uid);
	prctl(PR_SET_DUMPABLE, 1);
}

static void charge_victim(void *unused)
{
	struct ibv_qp_init_attr_ex ta = {
		.qp_type = IBV_QPT_XRC_RECV, .comp_mask = IBV_QP_INIT_ATTR_XRCD,
	};
	unsigned int x0, q0, x1, q1;
	struct ibv_context *ctx;
	struct ibv_xrcd *xrcd;
	struct ibv_qp *t;
	uint32_t qpn;
	char c;
	int fd;

	(void)unused;
	xt_subtest = "charge";
	close(charge_info[0]);
	close(charge_opened[1]);
	close(charge_closed[0]);
	become(attacker_uid - 1);
	xt_note("victim runs as uid %u", getuid());
	ctx = xt_open_device(dev_name, NULL, 0);
	if (!ctx)
		xt_bail(errno, "%s opened", dev_name);
	if (!fill(ctx, &x0, &q0))
		xt_bail(0, "the victim's share measured");
	fd = open(charge_path, O_RDONLY);
	xrcd = fd >= 0 ? xrcd_open(ctx, fd, O_CREAT) : NULL;
	ta.xrcd = xrcd;
	t = xrcd ? ibv_create_qp_ex(ctx, &ta) : NULL;
	if (!t)
		xt_bail(errno, "the victim's domain and XRC_RECV QP");
	qpn = t->qp_num;
	if (write(charge_info[1], &qpn, sizeof(qpn)) != sizeof(qpn) ||
	    read(charge_opened[0], &c, 1) != 1)
		xt_bail(errno, "the attacker opened them");
	CHECK_RC(-ibv_destroy_qp(t), 0, "the victim's QP handle destroyed");
	CHECK_RC(-ibv_close_xrcd(xrcd), 0, "the victim's domain handle closed");
	close(fd);
	if (!fill(ctx, &x1, &q1))
		xt_fail(NULL, "the victim's share measured again");
	xt_note("victim's room: %u domains, %u QPs before; %u, %u after",
		x0, q0, x1, q1);
	CHECK_EQ(x1, x0, "the victim may open its whole share of domains again");
	CHECK_EQ(q1, q0, "the victim may create its whole share of QPs again");
	ibv_close_device(ctx);
	if (write(charge_closed[1], "x", 1) != 1)
		xt_bail(errno, "closed");
}

static void charge_attacker(void *unused)
{
	struct ibv_qp_open_attr oa = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			     IBV_QP_OPEN_ATTR_TYPE,
		.qp_type = IBV_QPT_XRC_RECV,
	};
	struct ibv_context *ctx;
	struct ibv_xrcd *xrcd;
	struct ibv_qp *qp;
	uint32_t qpn;
	char c;
	int fd;

	(void)unused;
	xt_subtest = "charge";
	close(charge_info[1]);
	close(charge_opened[0]);
	close(charge_closed[1]);
	become_attacker();
	if (read(charge_info[0], &qpn, sizeof(qpn)) != sizeof(qpn))
		xt_bail(errno, "the victim's QPN");
	ctx = xt_open_device(dev_name, NULL, 0);
	if (!ctx)
		xt_bail(errno, "%s opened", dev_name);
	fd = open(charge_path, O_RDONLY);
	xrcd = fd >= 0 ? xrcd_open(ctx, fd, 0) : NULL;
	CHECK_ERRNO(xrcd, "the victim's domain joined");
	oa.xrcd = xrcd;
	oa.qp_num = qpn;
	qp = xrcd ? ibv_open_qp(ctx, &oa) : NULL;
	CHECK_ERRNO(qp, "the victim's XRC_RECV QP opened");
	if (write(charge_opened[1], "x", 1) != 1)
		xt_bail(errno, "opened");
	if (read(charge_closed[0], &c, 1) != 1)
		xt_note("the victim stopped early");
	if (qp)
		CHECK_EQ(xt_qp_state(qp), IBV_QPS_RESET,
			 "the QP lives on for the attacker");
	if (qp)
		CHECK_RC(-ibv_destroy_qp(qp), 0, "the attacker's QP handle destroyed");
	if (xrcd)
		CHECK_RC(-ibv_close_xrcd(xrcd), 0, "the attacker's domain closed");
	ibv_close_device(ctx);
}

static void t_charge(void)
{
	long x0 = res_count("xrcd"), q0 = res_count("qp");
	char share[16] = "";
	pid_t v, a;
	int fd;

	/* 1% of xnic's 16384 domains and QPs: a share small enough to fill */
	if (xt_read_line(USER_SHARE, share, sizeof(share)) ||
	    write_file(USER_SHARE, "1"))
		xt_bail(errno, "%s set to 1", USER_SHARE);
	if (pipe(charge_info) || pipe(charge_opened) || pipe(charge_closed))
		xt_bail(errno, "pipes");
	snprintf(charge_path, sizeof(charge_path), "/xv_xrc_charge.XXXXXX");
	fd = mkstemp(charge_path);
	if (fd < 0 || fchmod(fd, 0644))
		xt_bail(errno, "the domain's file");
	close(fd);
	v = worker(charge_victim, NULL);
	a = worker(charge_attacker, NULL);
	close(charge_info[0]);
	close(charge_info[1]);
	close(charge_opened[0]);
	close(charge_opened[1]);
	close(charge_closed[0]);
	close(charge_closed[1]);
	reap(v, "the victim");
	reap(a, "the attacker");
	if (write_file(USER_SHARE, share))
		xt_bail(errno, "%s restored to %s", USER_SHARE, share);
	unlink(charge_path);
	if (x0 >= 0)
		CHECK_EQ(res_count("xrcd"), x0, "no domain left on the device");
	if (q0 >= 0)
		CHECK_EQ(res_count("qp"), q0, "no QP left on the device");
}

/* ------------------------------------------------------------ main */

static const struct xt_subtest tests[] = {
	XT_SUBTEST(umount, 0, "a domain keeps its file's mount busy"),
	XT_SUBTEST(brute, 0, "a member walks another's key tags via its SRQ"),
	XT_SUBTEST(modify, 0, "a member modifies another's XRC_RECV QP"),
	XT_SUBTEST(charge, 0, "a member keeps another's domain and QP charged"),
};

static struct xt_suite suite = {
	.tests = tests, .n = ARRAY_SIZE(tests), .timeout = 120,
};

int main(int argc, char **argv)
{
	const struct xt_opt opts[] = {
		{ .c = 'd', .arg = "IBDEV", .str = &dev_name },
		{ .c = 'r', .arg = "RESOURCES", .str = &res_path },
		{ .c = 'u', .arg = "UID", .num = &attacker_uid, .min = 1 },
	};
	int ret;

	ret = xt_main(&suite, opts, ARRAY_SIZE(opts), &argc, &argv,
		      "xv_xrc_isolation");
	if (ret >= 0)
		return ret;
	xt_show_library();
	xt_run(&suite, argc, argv);
	return xt_done();
}
