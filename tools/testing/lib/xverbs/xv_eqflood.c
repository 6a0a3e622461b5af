// SPDX-License-Identifier: GPL-2.0
/*
 * xv_eqflood: one unprivileged user floods the device's event queue with
 * completion events; another user's traffic and events must survive.
 *
 * Arming a CQ is a store to the CQ's user-mapped doorbell record (a new
 * arm_sn: ibv_req_notify_cq()), so a process can arm its CQs again after
 * every completion, or all the time, without a system call, and without
 * ever reading its completion channel.  If every such arm put an event
 * in the device's one event queue, the queue could fill faster than the
 * driver empties it, and an event queue overrun makes the device fatal
 * for every user (Documentation/xnic/events.rst).
 *
 * Process A, the victim (the parent, normally root), connects two RC QPs
 * of its own (loopback), and checks an RDMA WRITE and its completion
 * event (arm, post, the event on its channel, the CQE).  Then it lets B
 * go and waits for B's end.
 *
 * Process B, the attacker (forked before A opens the device; it drops to
 * uid/gid 65534 when started as root), connects -p loopback RC pairs,
 * each QP with a CQ of its own, all CQs on one completion channel it
 * never reads during the flood.  For -s seconds it keeps -q signalled
 * 8-byte RDMA WRITEs in flight on every QP and re-arms every CQ on every
 * pass and after every CQE it polls.  It counts what it posted and what
 * completed: every WQE must complete, with success (nothing lost, no
 * flush because the device died).  Then it reads and acknowledges the
 * events its channel holds and checks its own pair still works.
 *
 * Then A checks that no DEVICE_FATAL (or any) async event reached its
 * context, that a new PD can be allocated (the command path works), and
 * that a WRITE and its completion event work as before.  The guest test
 * (tools/testing/lib/xverbs/xverbs_eqflood.sh) also checks the model's
 * counters: no event queue overrun, many events written.
 *
 * Output: "PASS who: check" / "FAIL who: check", "# who: note" lines,
 * "# xv_eqflood: N checks, F failed" last; exit 0 iff every check passed.
 *
 * Usage: xv_eqflood [-d IBDEV] [-t WAIT_MS] [-w SECONDS] [-u UID]
 *		     [-s SECONDS] [-p PAIRS] [-q DEPTH]
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "xt_verbs.h"

#define MAXPAIRS	512
#define SLOT		64

static const char *dev_name = "xnic0";
static int wait_ms = 10000;
static uid_t b_uid = 65534;
static int flood_s = 5;
static int npairs = 64;
static int depth = 32;

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_comp_channel *ch;
static union ibv_gid gid;
static enum ibv_mtu mtu;
static int to_peer, from_peer;

static void on_alarm(int sig)
{
	(void)sig;
	xt_watchdog_expired("xv_eqflood: watchdog expired");
}

static bool open_device(void)
{
	struct ibv_port_attr pa;
	int fl;

	ctx = xt_open_device(dev_name, NULL, 0);
	if (!ctx)
		return false;
	if (ibv_query_port(ctx, XT_PORT, &pa) || pa.state != IBV_PORT_ACTIVE ||
	    ibv_query_gid(ctx, XT_PORT, XT_GID_INDEX, &gid)) {
		xt_note("port %d not active or no GID", XT_PORT);
		return false;
	}
	mtu = pa.active_mtu;
	pd = ibv_alloc_pd(ctx);
	ch = ibv_create_comp_channel(ctx);
	if (!pd || !ch) {
		xt_note("ibv_alloc_pd/ibv_create_comp_channel: %s",
			strerror(errno));
		return false;
	}
	fl = fcntl(ch->fd, F_GETFL);
	if (fl < 0 || fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK))
		return false;
	fl = fcntl(ctx->async_fd, F_GETFL);
	return fl >= 0 && !fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK);
}

/* a QP of its own CQ (on the channel) */
static bool ep_new(struct xt_ep *e, int cqe)
{
	struct ibv_qp_init_attr a = {
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
		.cap = { .max_send_wr = depth, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	e->cq = ibv_create_cq(ctx, cqe, NULL, ch, 0);
	if (!e->cq)
		return false;
	a.send_cq = e->cq;
	a.recv_cq = e->cq;
	e->qp = ibv_create_qp(pd, &a);
	return !!e->qp;
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

static bool pair_new(struct xt_ep *x, struct xt_ep *y)
{
	return ep_new(x, 2 * depth) && ep_new(y, 2 * depth) &&
	       !xt_rc_rts(x->qp, y->qp->qp_num, &gid, mtu, NULL) &&
	       !xt_rc_rts(y->qp, x->qp->qp_num, &gid, mtu, NULL);
}

static int post_write(struct xt_ep *e, struct xt_buf *b, size_t off,
		      uint64_t wr_id)
{
	struct ibv_sge s = xt_sge(b, off, 8);
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &s, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.wr.rdma = { .remote_addr = xt_va(b, off + SLOT / 2),
			     .rkey = b->mr->rkey },
	}, *bad;

	return ibv_post_send(e->qp, &wr, &bad);
}

/* acknowledge every event the channel holds now; their count */
static unsigned int drain_events(void)
{
	struct ibv_cq *cq;
	void *cq_ctx;
	unsigned int n = 0;

	while (!ibv_get_cq_event(ch, &cq, &cq_ctx)) {
		ibv_ack_cq_events(cq, 1);
		n++;
	}
	return n;
}

/* arm, post one WRITE, get the event, then the CQE: all within wait_ms */
static bool write_with_event(struct xt_ep *e, struct xt_buf *b,
			     const char *who)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct ibv_cq *cq = NULL;
	struct ibv_wc wc;
	void *cq_ctx;
	bool ok;

	drain_events();
	ok = xt_rc(ibv_req_notify_cq(e->cq, 0), 0, "%s: arm the CQ", who);
	ok &= xt_rc(post_write(e, b, 0, 7), 0, "%s: post a WRITE", who);
	ok &= xt_ok(poll(&pfd, 1, wait_ms) == 1, NULL,
		    "%s: the completion event arrives", who);
	if (ok && !ibv_get_cq_event(ch, &cq, &cq_ctx)) {
		ok &= xt_ok(cq == e->cq, NULL, "%s: the event names the CQ",
			    who);
		ibv_ack_cq_events(cq, 1);
	}
	ok &= xt_ok(xt_poll_one(e->cq, &wc, wait_ms) &&
		    wc.status == IBV_WC_SUCCESS && wc.wr_id == 7,
		    ibv_wc_status_str(wc.status), "%s: the WRITE completes",
		    who);
	return ok;
}

static void msg(int fd, char c)
{
	if (write(fd, &c, 1) != 1)
		xt_note("pipe write: %s", strerror(errno));
}

static char msg_wait(int fd)
{
	char c = 0;

	if (read(fd, &c, 1) != 1)
		return 0;
	return c;
}

/* ------------------------------------------------------------ B */

static struct xt_ep bx[MAXPAIRS * 2];
static int inflight[MAXPAIRS * 2];

static void b_flood(struct xt_buf *b)
{
	unsigned long long posted = 0, done = 0, bad = 0, arms = 0;
	uint64_t end = xt_now_ms() + (uint64_t)flood_s * 1000, t0;
	struct ibv_wc wc[16];
	int i, k, n, nq = 2 * npairs;
	bool stop = false;

	t0 = xt_now_ms();
	for (;;) {
		if (!stop && xt_now_ms() >= end)
			stop = true;
		n = 0;
		for (i = 0; i < nq; i++) {
			struct xt_ep *e = &bx[i];

			while (!stop && inflight[i] < depth &&
			       !post_write(e, b, (size_t)(i / 2) * SLOT, i)) {
				inflight[i]++;
				posted++;
			}
			ibv_req_notify_cq(e->cq, 0);
			arms++;
			while ((k = ibv_poll_cq(e->cq, 16, wc)) > 0) {
				for (int j = 0; j < k; j++) {
					done++;
					if (wc[j].status != IBV_WC_SUCCESS &&
					    bad++ < 3)
						xt_note("CQE status %s",
							ibv_wc_status_str(wc[j].status));
					if (wc[j].wr_id < (uint64_t)nq)
						inflight[wc[j].wr_id]--;
				}
				/* after every CQE poll: a new arm_sn */
				ibv_req_notify_cq(e->cq, 0);
				arms++;
				n += k;
			}
		}
		if (stop) {
			if (done == posted)
				break;
			if (xt_now_ms() > end + (uint64_t)wait_ms)
				break;
			if (!n)
				usleep(1000);
		}
	}
	xt_note("%llu WRITEs posted, %llu completed (%llu with an error), %llu arms in %llu ms",
		posted, done, bad, arms,
		(unsigned long long)(xt_now_ms() - t0));
	xt_ok(posted > 0, NULL, "the flood posted WRITEs");
	xt_eq(done, posted, "every WRITE of the flood completed");
	xt_eq(bad, 0, "no completion of the flood has an error");
	xt_note("%u completion events were queued on the channel",
		drain_events());
}

static int b_main(void)
{
	struct xt_buf b = { 0 };
	int i;

	xt_init("xv_eqflood", "B");
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getuid() == 0 &&
	    (setgroups(0, NULL) || setgid(b_uid) || setuid(b_uid)))
		xt_note("cannot drop to uid %u: %s; B runs as uid 0 like A",
			b_uid, strerror(errno));
	xt_note("attacker runs as uid %u gid %u", getuid(), getgid());
	if (msg_wait(from_peer) != 'G')
		xt_bail(0, "no GO from A");
	if (!open_device() ||
	    !xt_buf_new(&b, pd, (size_t)npairs * SLOT,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE))
		xt_bail(errno, "open the device, a PD, a channel, an MR");
	for (i = 0; i < npairs; i++)
		if (!pair_new(&bx[2 * i], &bx[2 * i + 1]))
			break;
	if (!xt_ok(i == npairs, strerror(errno),
		   "%d loopback RC pairs, a CQ per QP", npairs))
		npairs = i;
	if (npairs)
		b_flood(&b);
	if (npairs)
		write_with_event(&bx[0], &b, "after the flood");
	drain_events();
	for (i = 0; i < 2 * npairs; i++)
		ep_free(&bx[i]);
	xt_buf_free(&b);
	ibv_destroy_comp_channel(ch);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	msg(to_peer, xt_failed() ? 'F' : 'E');
	return xt_failed() ? 1 : 0;
}

/* ------------------------------------------------------------ A */

static int a_main(pid_t pid)
{
	struct xt_ep x = { 0 }, y = { 0 };
	struct xt_buf b = { 0 };
	struct ibv_async_event ae;
	struct ibv_pd *pd2;
	int status = 0, nev = 0;
	char c;

	if (!open_device() ||
	    !xt_buf_new(&b, pd, SLOT,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE) ||
	    !pair_new(&x, &y)) {
		msg(to_peer, 'X');
		xt_bail(errno, "setup: a loopback RC pair on %s", dev_name);
	}
	write_with_event(&x, &b, "before the flood");
	msg(to_peer, 'G');
	c = msg_wait(from_peer);
	xt_ok(c == 'E' || c == 'F', NULL, "B ran to its end");
	waitpid(pid, &status, 0);
	xt_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, NULL,
	      "B's checks passed (exit status 0x%x)", status);

	while (!ibv_get_async_event(ctx, &ae)) {
		xt_note("async event %s",
			ibv_event_type_str(ae.event_type));
		nev++;
		ibv_ack_async_event(&ae);
	}
	xt_eq(nev, 0, "no async event (no DEVICE_FATAL) after the flood");
	pd2 = ibv_alloc_pd(ctx);
	xt_ok(!!pd2, strerror(errno),
	      "a new PD after the flood (the command path works)");
	if (pd2)
		ibv_dealloc_pd(pd2);
	write_with_event(&x, &b, "after the flood");

	ep_free(&x);
	ep_free(&y);
	xt_buf_free(&b);
	ibv_destroy_comp_channel(ch);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return xt_done();
}

static void help(void)
{
	fprintf(stderr, "%s\n",
		"usage: xv_eqflood [-d IBDEV] [-t WAIT_MS] [-w SECONDS] [-u UID] [-s SECONDS] [-p PAIRS] [-q DEPTH]");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned int wd = 300;
	int ab[2], ba[2];
	pid_t pid;
	int c;

	while ((c = getopt(argc, argv, "d:t:w:u:s:p:q:")) != -1) {
		if (c == 'u')
			b_uid = (uid_t)atoi(optarg);
		else if (c == 's')
			flood_s = atoi(optarg);
		else if (c == 'p')
			npairs = atoi(optarg);
		else if (c == 'q')
			depth = atoi(optarg);
		else if (!xt_verbs_opt(c, optarg, &dev_name, &wait_ms, &wd))
			help();
	}
	if (wait_ms <= 0 || flood_s <= 0 || npairs <= 0 ||
	    npairs > MAXPAIRS || depth <= 0 || depth > 1024)
		help();
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, on_alarm);
	signal(SIGPIPE, SIG_IGN);

	if (pipe(ab) || pipe(ba)) {
		perror("pipe");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 2;
	}
	if (!pid) {
		close(ab[1]);
		close(ba[0]);
		from_peer = ab[0];
		to_peer = ba[1];
		alarm(wd);
		return b_main();
	}
	xt_init("xv_eqflood", "A");
	close(ab[0]);
	close(ba[1]);
	from_peer = ba[0];
	to_peer = ab[1];
	alarm(wd);
	xt_note("victim runs as uid %u, attacker is pid %d", getuid(), pid);
	return a_main(pid);
}
