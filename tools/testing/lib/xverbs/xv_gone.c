// SPDX-License-Identifier: GPL-2.0
/*
 * xv_gone: a process releases its objects after its device went away.
 *
 * When the device fails (or is removed), the process's context is
 * disassociated: the kernel destroys every object and later calls fail
 * with EIO (Documentation/uverbs.rst).  The library then releases its
 * own side of each object and returns 0 (as rdma-core's libibverbs does
 * with RDMAV_ALLOW_DISASSOC_DESTROY set; without it, it returns EIO).
 * The kernel no longer answers how many events it reported for a CQ, QP
 * or SRQ, so the library must not wait for them (neither does rdma-core):
 * it once waited for counts of zero while the application had
 * acknowledged events, and hung in ibv_destroy_cq for ever (a librdmacm
 * client removing its connection after RDMA_CM_EVENT_DEVICE_REMOVAL).
 *
 * The program makes a loopback RC pair whose responder receives from an
 * SRQ, gets and acknowledges completion events on a channel, the SRQ's
 * limit event and, once the responder is moved to the error state, its
 * QP's last-WQE-reached event.  Then it writes the -r file and waits for
 * IBV_EVENT_DEVICE_FATAL (the guest test,
 * tools/testing/hw/xnic/xnic_fault.sh "fatal", makes the device fail),
 * acknowledging whatever comes before it.  Once its calls fail with EIO
 * it destroys everything: each call returns 0, all within 20 s (a
 * watchdog).  It touches no mapped queue after the failure (SIGBUS).
 *
 * Usage: xv_gone [-d IBDEV] [-t WAIT_MS] [-w SECONDS] -r READY_FILE
 */
#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "xt_verbs.h"

#define USAGE "usage: xv_gone [-d IBDEV] [-t WAIT_MS] [-w SECONDS] -r READY_FILE"
#define ROUNDS		3
#define SRQ_WRS		8
#define SRQ_LIMIT	(SRQ_WRS - ROUNDS + 1)
#define MSG		64

static const char *what = "xv_gone: watchdog expired";
static int cq_events;			/* acknowledged */

static void on_alarm(int sig)
{
	(void)sig;
	xt_watchdog_expired(what);
}

/* the next async event within @ms: 0 with *@ev, -ETIMEDOUT or -errno */
static int async_event(struct ibv_context *ctx, struct ibv_async_event *ev,
		       int ms)
{
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };

	if (poll(&p, 1, ms) <= 0)
		return -ETIMEDOUT;
	if (ibv_get_async_event(ctx, ev))
		return errno ? -errno : -EIO;
	return 0;
}

/* one SEND a -> b, with completion events: both completions, acked */
static bool round_trip(struct ibv_comp_channel *ch, struct ibv_cq *cq,
		       struct ibv_qp *a, struct xt_buf *buf, int ms)
{
	struct ibv_sge sge = xt_sge(buf, 0, MSG);
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct ibv_cq *ecq;
	struct ibv_wc wc[2];
	void *ectx;
	int got = 0, n;

	if (ibv_req_notify_cq(cq, 0) || ibv_post_send(a, &wr, &bad))
		return false;
	while (got < 2) {
		if (poll(&p, 1, ms) <= 0 || ibv_get_cq_event(ch, &ecq, &ectx))
			return false;
		ibv_ack_cq_events(ecq, 1);
		cq_events++;
		if (ibv_req_notify_cq(cq, 0))
			return false;
		while ((n = ibv_poll_cq(cq, 2, wc)) > 0) {
			for (int i = 0; i < n; i++)
				if (wc[i].status != IBV_WC_SUCCESS)
					return false;
			got += n;
		}
	}
	return true;
}

int main(int argc, char **argv)
{
	const char *dev_name = "xnic0", *ready = NULL;
	unsigned int wd = 120;
	int wait_ms = 60000, c, i, ret, nev = 0, fatal = 0, srq_ev = 0, qp_ev = 0;
	struct ibv_srq_init_attr sia = {
		.attr = { .max_wr = SRQ_WRS, .max_sge = 1 },
	};
	struct ibv_srq_attr sa = { .srq_limit = SRQ_LIMIT };
	struct ibv_qp_attr err_attr = { .qp_state = IBV_QPS_ERR };
	const struct ibv_qp_cap cap = {
		.max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
		.max_recv_sge = 1,
	};
	struct ibv_qp_init_attr qia = { .cap = cap, .qp_type = IBV_QPT_RC };
	struct ibv_device_attr da;
	struct ibv_async_event ev;
	struct ibv_context *ctx;
	struct ibv_comp_channel *ch;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_qp *a, *b;
	struct xt_buf buf;
	union ibv_gid gid;
	uint64_t t0;
	FILE *f;

	while ((c = getopt(argc, argv, "d:t:w:r:")) != -1) {
		if (c == 'r') {
			ready = optarg;
		} else if (!xt_verbs_opt(c, optarg, &dev_name, &wait_ms,
					 &wd)) {
			fprintf(stderr, "%s\n", USAGE);
			return 2;
		}
	}
	if (!ready) {
		fprintf(stderr, "%s\n", USAGE);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, on_alarm);
	alarm(wd);
	xt_init("xv_gone", NULL);

	ctx = xt_open_device(dev_name, NULL, 0);
	if (!ctx)
		xt_bail(errno, "open %s", dev_name);
	ch = ibv_create_comp_channel(ctx);
	pd = ibv_alloc_pd(ctx);
	cq = ch && pd ? ibv_create_cq(ctx, 16, NULL, ch, 0) : NULL;
	srq = cq ? ibv_create_srq(pd, &sia) : NULL;
	if (!srq)
		xt_bail(errno, "channel, PD, CQ and SRQ");
	qia.send_cq = cq;
	qia.recv_cq = cq;
	a = ibv_create_qp(pd, &qia);
	qia.srq = srq;
	b = a ? ibv_create_qp(pd, &qia) : NULL;
	if (!b)
		xt_bail(errno, "two RC QPs");
	if (!xt_buf_new(&buf, pd, 4096, IBV_ACCESS_LOCAL_WRITE))
		xt_bail(errno, "a registered buffer");
	if (ibv_query_gid(ctx, XT_PORT, XT_GID_INDEX, &gid))
		xt_bail(errno, "ibv_query_gid");
	ret = xt_rc_rts(a, b->qp_num, &gid, IBV_MTU_1024, NULL);
	if (!ret)
		ret = xt_rc_rts(b, a->qp_num, &gid, IBV_MTU_1024, NULL);
	if (ret)
		xt_bail(ret, "connecting the QPs");
	for (i = 0; i < SRQ_WRS; i++) {
		struct ibv_sge sge = xt_sge(&buf, 2048, MSG);
		struct ibv_recv_wr wr = {
			.wr_id = 100 + i, .sg_list = &sge, .num_sge = 1,
		}, *bad;

		if (ibv_post_srq_recv(srq, &wr, &bad))
			xt_bail(errno, "ibv_post_srq_recv");
	}
	if (ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT))
		xt_bail(errno, "arming the SRQ limit");

	/* events the application acknowledges: on the CQ, SRQ and QP */
	for (i = 0; i < ROUNDS; i++)
		if (!xt_ok(round_trip(ch, cq, a, &buf, wait_ms), NULL,
			   "SEND %d: its completions through the channel", i))
			xt_bail(0, "no traffic");
	if (ibv_modify_qp(b, &err_attr, IBV_QP_STATE))
		xt_bail(errno, "the SRQ's QP to ERR");
	/* in either order, with whatever else comes */
	while ((!srq_ev || !qp_ev) && !(ret = async_event(ctx, &ev, wait_ms))) {
		if (ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED &&
		    ev.element.srq == srq)
			srq_ev++;
		else if (ev.event_type == IBV_EVENT_QP_LAST_WQE_REACHED &&
			 ev.element.qp == b)
			qp_ev++;
		else
			xt_note("async event %s",
				ibv_event_type_str(ev.event_type));
		ibv_ack_async_event(&ev);
	}
	xt_eq(srq_ev, 1, "the SRQ's limit event");
	xt_eq(qp_ev, 1, "the QP's last WQE reached event, in ERR");

	f = fopen(ready, "w");
	if (!f || fclose(f))
		xt_bail(errno, "writing %s", ready);
	xt_note("ready: waiting for the device to fail");

	/* every event until DEVICE_FATAL, acknowledged */
	while (!fatal && !(ret = async_event(ctx, &ev, wait_ms))) {
		xt_note("async event %s", ibv_event_type_str(ev.event_type));
		fatal = ev.event_type == IBV_EVENT_DEVICE_FATAL;
		nev++;
		ibv_ack_async_event(&ev);
	}
	if (!xt_ok(fatal, ret ? strerror(-ret) : NULL,
		   "IBV_EVENT_DEVICE_FATAL (after %d events)", nev))
		xt_bail(0, "the device did not fail");

	/* the context is disassociated when the driver lets the device go */
	t0 = xt_now_ms();
	while (!(ret = ibv_query_device(ctx, &da)) &&
	       xt_now_ms() - t0 < (uint64_t)wait_ms)
		usleep(50000);
	if (!xt_rc(-ret, -EIO, "ibv_query_device once the device is gone"))
		xt_bail(0, "not disassociated");

	what = "xv_gone: a destroy on the disassociated context hangs";
	alarm(20);
	xt_rc(-ibv_destroy_qp(b), 0, "ibv_destroy_qp (the SRQ's, 1 event acked)");
	xt_rc(-ibv_destroy_qp(a), 0, "ibv_destroy_qp");
	xt_rc(-ibv_destroy_srq(srq), 0, "ibv_destroy_srq (1 event acked)");
	xt_rc(-ibv_destroy_cq(cq), 0, "ibv_destroy_cq (%d events acked)",
	      cq_events);
	xt_rc(-ibv_destroy_comp_channel(ch), 0, "ibv_destroy_comp_channel");
	xt_rc(-xt_buf_free(&buf), 0, "ibv_dereg_mr");
	xt_rc(-ibv_dealloc_pd(pd), 0, "ibv_dealloc_pd");
	xt_rc(-ibv_close_device(ctx), 0, "ibv_close_device");
	alarm(0);
	return xt_done();
}
