// SPDX-License-Identifier: GPL-2.0
/*
 * cm_fault: an rdma_cm client and server that survive a failing device
 * and say what they saw, for tools/testing/ulp/rdmacm_fault.sh.
 *
 *     cm_fault -s -a ADDR -p PORT [-S SIZE] [-t SECS] [-d SECS]
 *     cm_fault -c -a ADDR -p PORT [-S SIZE] [-t SECS] [-d SECS] [-k N] [-i N]
 *              [-n N]
 *
 * librdmacm for the connections (RDMA_PS_TCP, RC), libibverbs for the
 * rest.  An exchange: the client RDMA WRITEs SIZE bytes into the
 * server's buffer and SENDs the exchange's number; the server checks
 * every byte, then RDMA WRITEs SIZE bytes of its own into the client's
 * buffer and SENDs the number back, which the client checks.  The bytes
 * depend on the side, the number and the offset.  Buffer addresses and
 * rkeys travel in the connect and accept private data.
 *
 * The client connects with a fresh cm_id each time (a session): its
 * first connection exchanges until it fails (with -i N it stops after
 * every N exchanges and waits for SIGUSR1 before the next ones); any
 * later connection makes N (-k, default 50) exchanges, disconnects and
 * the client exits 0.  With -n N every connection makes its -k
 * exchanges, and the client exits 0 after N of them (no fault needed).
 * A session that fails is ended (below) and the client connects again,
 * once a second, until it succeeds or -t SECS (default 300) have passed
 * (exit 1).  The server accepts any number of connections, one session
 * each, listens again after its listening id was removed with its
 * device (every half second until it can), and exits on SIGTERM or
 * SIGINT: 0 unless data was wrong.
 *
 * Each end reacts as rdma_cm and verbs say an application must:
 *   - a completion in error (a flush counted, anything else printed),
 *     RDMA_CM_EVENT_UNREACHABLE or ADDR_CHANGE on an established
 *     connection: rdma_disconnect(), then wait for
 *     RDMA_CM_EVENT_DISCONNECTED (at most -d SECS, default 60) and
 *     destroy the QP, CQ, channel, MR and cm_id;
 *   - RDMA_CM_EVENT_DISCONNECTED from the peer: rdma_disconnect() (the
 *     DREP) and destroy;
 *   - RDMA_CM_EVENT_DEVICE_REMOVAL, IBV_EVENT_DEVICE_FATAL or an async fd
 *     that fails: the device is gone, nothing of it is touched any more
 *     (its mapped queues may be gone: no CQ is polled), and on
 *     DEVICE_REMOVAL everything is destroyed;
 *   - async events (PORT_ERR, PORT_ACTIVE, ...) are printed and acked.
 * A CQ is polled only after its completion channel reported it, never
 * while its device is gone.  Everything goes through one poll() loop; no
 * threads.
 *
 * Output, a line each (stdout, line buffered), "cm_fault ROLE [SECS]: "
 * then one of
 *   listening on ADDR:PORT | listen: CALL: ERROR (once per kind)
 *   listen id: cm event NAME status N
 *   session N: cm event NAME status N
 *   session N: wc error STATUS (N) opcode OP | session N: wc flushes N
 *   session N: established, connection N | session N: N exchanges verified
 *   session N: idle after N exchanges | session N: ended: WHY
 *   async event NAME port N (on DEV)
 *   MISMATCH ... (wrong data: exit 2) | SIGBUS ... (exit 3)
 *   done: N sessions, N failed, N exchanges verified
 * CM event names are librdmacm's (rdma_event_str), async events and
 * completion statuses the enum's names without IBV_WC_.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#define MAX_CONNS	16
#define NRECV		4
#define MAGIC		0x636d6674u	/* "cmft" */

enum { WR_WRITE = 1, WR_SEND, WR_RECV };

/* the SEND messages and the private data */
struct msg {
	uint32_t magic;
	uint32_t seq;
	uint64_t addr;
	uint32_t rkey;
	uint32_t pad;
};

enum cstate { C_RESOLVING, C_CONNECTING, C_UP, C_DISCONNECTING };

struct conn {
	int used;
	int num;			/* session number */
	int conn_no;			/* its connection's number, once up */
	enum cstate state;
	struct rdma_cm_id *id;
	struct ibv_context *verbs;	/* the device's context, once known */
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	unsigned char *buf;		/* out, in, smsg, rmsg[NRECV] */
	int has_qp;
	int dev_gone;			/* its device was removed or failed */
	int failed;			/* the session failed (not a clean end) */
	int clean;			/* client: its exchanges done, ending */
	uint64_t raddr;
	uint32_t rkey;
	uint32_t seq;			/* exchange in progress / last seen */
	int pend;			/* client: sends not completed */
	int got;			/* client: the answer came */
	int idle;			/* client: waiting for SIGUSR1 */
	unsigned long exchanges;
	unsigned long flushes;
	double since;			/* when the state began */
};

static int server;
static const char *addr_s, *port_s = "7900";
static size_t size = 4096;
static double deadline_s = 300, disc_s = 60;
static unsigned long final_k = 50, idle_n;
static int clean_n;		/* -n: connections that all end after final_k */
static int clean_done;
static struct rdma_event_channel *chan;
static struct rdma_cm_id *listen_id;
static struct ibv_context *listen_verbs;
static int listen_gone;
static struct conn conns[MAX_CONNS];
static struct sockaddr_storage dst;
static int sessions, failed_sessions, connections;
static unsigned long total_ex;
static int mismatches;
static int sfd;
static double t0, next_try;
static int done;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void say(const char *fmt, ...)
{
	va_list ap;

	printf("cm_fault %s [%.3f]: ", server ? "server" : "client", now() - t0);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void on_sigbus(int sig)
{
	static const char m[] =
		"cm_fault: SIGBUS: a mapped queue was touched after its device went away\n";

	(void)sig;
	if (write(STDOUT_FILENO, m, sizeof(m) - 1) < 0)
		_exit(4);
	_exit(3);
}

static const char *wc_name(enum ibv_wc_status s)
{
	static const char *const n[] = {
		[IBV_WC_SUCCESS] = "SUCCESS",
		[IBV_WC_LOC_LEN_ERR] = "LOC_LEN_ERR",
		[IBV_WC_LOC_QP_OP_ERR] = "LOC_QP_OP_ERR",
		[IBV_WC_LOC_EEC_OP_ERR] = "LOC_EEC_OP_ERR",
		[IBV_WC_LOC_PROT_ERR] = "LOC_PROT_ERR",
		[IBV_WC_WR_FLUSH_ERR] = "WR_FLUSH_ERR",
		[IBV_WC_MW_BIND_ERR] = "MW_BIND_ERR",
		[IBV_WC_BAD_RESP_ERR] = "BAD_RESP_ERR",
		[IBV_WC_LOC_ACCESS_ERR] = "LOC_ACCESS_ERR",
		[IBV_WC_REM_INV_REQ_ERR] = "REM_INV_REQ_ERR",
		[IBV_WC_REM_ACCESS_ERR] = "REM_ACCESS_ERR",
		[IBV_WC_REM_OP_ERR] = "REM_OP_ERR",
		[IBV_WC_RETRY_EXC_ERR] = "RETRY_EXC_ERR",
		[IBV_WC_RNR_RETRY_EXC_ERR] = "RNR_RETRY_EXC_ERR",
		[IBV_WC_LOC_RDD_VIOL_ERR] = "LOC_RDD_VIOL_ERR",
		[IBV_WC_REM_INV_RD_REQ_ERR] = "REM_INV_RD_REQ_ERR",
		[IBV_WC_REM_ABORT_ERR] = "REM_ABORT_ERR",
		[IBV_WC_INV_EECN_ERR] = "INV_EECN_ERR",
		[IBV_WC_INV_EEC_STATE_ERR] = "INV_EEC_STATE_ERR",
		[IBV_WC_FATAL_ERR] = "FATAL_ERR",
		[IBV_WC_RESP_TIMEOUT_ERR] = "RESP_TIMEOUT_ERR",
		[IBV_WC_GENERAL_ERR] = "GENERAL_ERR",
	};

	if ((unsigned int)s < ARRAY_SIZE(n) && n[s])
		return n[s];
	return "UNKNOWN";
}

static const char *ev_name(enum ibv_event_type e)
{
	static const char *const n[] = {
		[IBV_EVENT_CQ_ERR] = "IBV_EVENT_CQ_ERR",
		[IBV_EVENT_QP_FATAL] = "IBV_EVENT_QP_FATAL",
		[IBV_EVENT_QP_REQ_ERR] = "IBV_EVENT_QP_REQ_ERR",
		[IBV_EVENT_QP_ACCESS_ERR] = "IBV_EVENT_QP_ACCESS_ERR",
		[IBV_EVENT_COMM_EST] = "IBV_EVENT_COMM_EST",
		[IBV_EVENT_SQ_DRAINED] = "IBV_EVENT_SQ_DRAINED",
		[IBV_EVENT_PATH_MIG] = "IBV_EVENT_PATH_MIG",
		[IBV_EVENT_PATH_MIG_ERR] = "IBV_EVENT_PATH_MIG_ERR",
		[IBV_EVENT_DEVICE_FATAL] = "IBV_EVENT_DEVICE_FATAL",
		[IBV_EVENT_PORT_ACTIVE] = "IBV_EVENT_PORT_ACTIVE",
		[IBV_EVENT_PORT_ERR] = "IBV_EVENT_PORT_ERR",
		[IBV_EVENT_LID_CHANGE] = "IBV_EVENT_LID_CHANGE",
		[IBV_EVENT_PKEY_CHANGE] = "IBV_EVENT_PKEY_CHANGE",
		[IBV_EVENT_SM_CHANGE] = "IBV_EVENT_SM_CHANGE",
		[IBV_EVENT_SRQ_ERR] = "IBV_EVENT_SRQ_ERR",
		[IBV_EVENT_SRQ_LIMIT_REACHED] = "IBV_EVENT_SRQ_LIMIT_REACHED",
		[IBV_EVENT_QP_LAST_WQE_REACHED] = "IBV_EVENT_QP_LAST_WQE_REACHED",
		[IBV_EVENT_CLIENT_REREGISTER] = "IBV_EVENT_CLIENT_REREGISTER",
		[IBV_EVENT_GID_CHANGE] = "IBV_EVENT_GID_CHANGE",
		[IBV_EVENT_WQ_FATAL] = "IBV_EVENT_WQ_FATAL",
	};

	if ((unsigned int)e < ARRAY_SIZE(n) && n[e])
		return n[e];
	return "IBV_EVENT_UNKNOWN";
}

static const char *op_name(enum ibv_wc_opcode op, uint64_t wr_id)
{
	/* a completion in error need not say its opcode: the wr_id does */
	switch (wr_id) {
	case WR_WRITE:
		return "RDMA_WRITE";
	case WR_SEND:
		return "SEND";
	case WR_RECV:
		return "RECV";
	}
	return op == IBV_WC_RECV ? "RECV" : "?";
}

static unsigned char pattern(uint32_t seq, size_t off, int side)
{
	return (unsigned char)(off * 7 + seq * 13 + (side ? 0x5a : 0xa5));
}

static unsigned char *out_buf(struct conn *c) { return c->buf; }
static unsigned char *in_buf(struct conn *c) { return c->buf + size; }
static struct msg *smsg(struct conn *c) { return (void *)(c->buf + 2 * size); }
static struct msg *rmsg(struct conn *c, int i)
{
	return (void *)(c->buf + 2 * size + (1 + i) * sizeof(struct msg));
}

static size_t buf_len(void) { return 2 * size + (1 + NRECV) * sizeof(struct msg); }

static struct conn *conn_new(void)
{
	int i;

	for (i = 0; i < MAX_CONNS; i++)
		if (!conns[i].used) {
			memset(&conns[i], 0, sizeof(conns[i]));
			conns[i].used = 1;
			conns[i].num = ++sessions;
			conns[i].since = now();
			return &conns[i];
		}
	return NULL;
}

/* read what the async fd of CTX holds; 1 when the device is gone */
static int drain_async(struct ibv_context *ctx)
{
	struct ibv_async_event ev;
	int gone = 0;

	for (;;) {
		errno = 0;
		if (ibv_get_async_event(ctx, &ev)) {
			if (errno != EAGAIN) {
				say("async fd of %s: %s: the device is gone",
				    ibv_get_device_name(ctx->device), strerror(errno));
				gone = 1;
			}
			break;
		}
		switch (ev.event_type) {
		case IBV_EVENT_CQ_ERR:
		case IBV_EVENT_QP_FATAL:
		case IBV_EVENT_QP_REQ_ERR:
		case IBV_EVENT_QP_ACCESS_ERR:
		case IBV_EVENT_COMM_EST:
		case IBV_EVENT_SQ_DRAINED:
		case IBV_EVENT_PATH_MIG:
		case IBV_EVENT_PATH_MIG_ERR:
		case IBV_EVENT_SRQ_ERR:
		case IBV_EVENT_SRQ_LIMIT_REACHED:
		case IBV_EVENT_QP_LAST_WQE_REACHED:
		case IBV_EVENT_WQ_FATAL:
			say("async event %s (on %s)", ev_name(ev.event_type),
			    ibv_get_device_name(ctx->device));
			break;
		default:
			say("async event %s port %d (on %s)", ev_name(ev.event_type),
			    ev.element.port_num, ibv_get_device_name(ctx->device));
		}
		if (ev.event_type == IBV_EVENT_DEVICE_FATAL)
			gone = 1;
		ibv_ack_async_event(&ev);
		if (gone)
			break;
	}
	return gone;
}

/* the device of CTX is gone: nothing of it is touched any more */
static void device_gone(struct ibv_context *ctx)
{
	int i;

	for (i = 0; i < MAX_CONNS; i++)
		if (conns[i].used && conns[i].verbs == ctx)
			conns[i].dev_gone = 1;
	if (listen_id && listen_verbs == ctx)
		listen_gone = 1;
}

static void watch_ctx(struct ibv_context *ctx)
{
	int fl = fcntl(ctx->async_fd, F_GETFL);

	if (fl >= 0 && !(fl & O_NONBLOCK))
		fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK);
}

/* is CTX still watched by another conn than SKIP, or by the listen id */
static int ctx_used(struct ibv_context *ctx, struct conn *skip)
{
	int i;

	if (listen_id && listen_verbs == ctx)
		return 1;
	for (i = 0; i < MAX_CONNS; i++)
		if (conns[i].used && &conns[i] != skip && conns[i].verbs == ctx)
			return 1;
	return 0;
}

static void conn_destroy(struct conn *c, const char *why)
{
	if (c->verbs && !c->dev_gone && !ctx_used(c->verbs, c) &&
	    drain_async(c->verbs))
		device_gone(c->verbs);
	if (c->flushes)
		say("session %d: wc flushes %lu", c->num, c->flushes);
	say("session %d: ended: %s (%lu exchanges verified)", c->num, why,
	    c->exchanges);
	if (c->has_qp)
		rdma_destroy_qp(c->id);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->ch)
		ibv_destroy_comp_channel(c->ch);
	if (c->mr)
		ibv_dereg_mr(c->mr);
	free(c->buf);
	if (c->id)
		rdma_destroy_id(c->id);
	c->used = 0;
}

static int post_recv(struct conn *c, int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)rmsg(c, i),
		.length = sizeof(struct msg),
		.lkey = c->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = WR_RECV | ((uint64_t)i << 8),
		.sg_list = &sge,
		.num_sge = 1,
	}, *bad;

	return ibv_post_recv(c->id->qp, &wr, &bad);
}

/* the QP, CQ and MR of C on its cm_id's device, receives posted */
static int conn_setup(struct conn *c)
{
	struct ibv_qp_init_attr qa = {
		.cap = {
			.max_send_wr = 8, .max_recv_wr = NRECV,
			.max_send_sge = 1, .max_recv_sge = 1,
		},
		.qp_type = IBV_QPT_RC,
	};
	const char *what;
	int i;

	c->verbs = c->id->verbs;
	watch_ctx(c->verbs);
	what = "ibv_create_comp_channel";
	c->ch = ibv_create_comp_channel(c->verbs);
	if (!c->ch)
		goto err;
	fcntl(c->ch->fd, F_SETFL, fcntl(c->ch->fd, F_GETFL) | O_NONBLOCK);
	what = "ibv_create_cq";
	c->cq = ibv_create_cq(c->verbs, 16, c, c->ch, 0);
	if (!c->cq)
		goto err;
	what = "ibv_req_notify_cq";
	if (ibv_req_notify_cq(c->cq, 0))
		goto err;
	what = "malloc";
	c->buf = calloc(1, buf_len());
	if (!c->buf)
		goto err;
	what = "ibv_reg_mr";
	c->mr = ibv_reg_mr(c->id->pd, c->buf, buf_len(),
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!c->mr)
		goto err;
	qa.send_cq = c->cq;
	qa.recv_cq = c->cq;
	what = "rdma_create_qp";
	if (rdma_create_qp(c->id, c->id->pd, &qa))
		goto err;
	c->has_qp = 1;
	what = "ibv_post_recv";
	for (i = 0; i < NRECV; i++)
		if (post_recv(c, i))
			goto err;
	return 0;
err:
	say("session %d: %s: %s", c->num, what, strerror(errno));
	return -1;
}

static int post_xfer(struct conn *c, int side)
{
	struct ibv_sge ws = {
		.addr = (uintptr_t)out_buf(c), .length = size, .lkey = c->mr->lkey,
	};
	struct ibv_sge ss = {
		.addr = (uintptr_t)smsg(c), .length = sizeof(struct msg),
		.lkey = c->mr->lkey,
	};
	struct ibv_send_wr send = {
		.wr_id = WR_SEND, .sg_list = &ss, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr write = {
		.wr_id = WR_WRITE, .next = &send, .sg_list = &ws, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = c->raddr, .rkey = c->rkey },
	}, *bad;
	size_t i;

	for (i = 0; i < size; i++)
		out_buf(c)[i] = pattern(c->seq, i, side);
	smsg(c)->magic = MAGIC;
	smsg(c)->seq = c->seq;
	if (ibv_post_send(c->id->qp, &write, &bad)) {
		say("session %d: ibv_post_send: %s", c->num, strerror(errno));
		return -1;
	}
	return 0;
}

static int check_in(struct conn *c, uint32_t seq, int side)
{
	size_t i;

	for (i = 0; i < size; i++)
		if (in_buf(c)[i] != pattern(seq, i, side)) {
			say("MISMATCH session %d exchange %u offset %zu: got 0x%02x, want 0x%02x",
			    c->num, seq, i, in_buf(c)[i],
			    pattern(seq, i, side));
			mismatches++;
			return -1;
		}
	return 0;
}

static void start_disconnect(struct conn *c, const char *why)
{
	if (c->state == C_DISCONNECTING)
		return;
	say("session %d: disconnecting: %s", c->num, why);
	c->state = C_DISCONNECTING;
	c->since = now();
	if (rdma_disconnect(c->id))
		say("session %d: rdma_disconnect: %s", c->num, strerror(errno));
}

static void fail(struct conn *c, const char *why)
{
	if (!c->failed) {
		c->failed = 1;
		failed_sessions++;
	}
	start_disconnect(c, why);
}

/* the client's next exchange, or the end of the session */
static void client_next(struct conn *c)
{
	if ((c->conn_no > 1 || clean_n) && c->exchanges >= final_k) {
		say("session %d: %lu exchanges verified", c->num, c->exchanges);
		c->clean = 1;
		start_disconnect(c, "done");
		return;
	}
	if (c->exchanges == 1 || (c->exchanges && c->exchanges % 100 == 0))
		say("session %d: %lu exchanges verified", c->num, c->exchanges);
	if (c->conn_no == 1 && idle_n && c->exchanges && c->exchanges % idle_n == 0 &&
	    !c->idle) {
		c->idle = 1;
		say("session %d: idle after %lu exchanges", c->num, c->exchanges);
		return;
	}
	c->idle = 0;
	c->pend = 2;
	c->got = 0;
	if (post_xfer(c, 0))
		fail(c, "post failed");
}

static void on_wc(struct conn *c, struct ibv_wc *wc)
{
	uint64_t kind = wc->wr_id & 0xff;
	struct msg *m;

	if (wc->status != IBV_WC_SUCCESS) {
		if (wc->status == IBV_WC_WR_FLUSH_ERR)
			c->flushes++;
		else
			say("session %d: wc error %s (%d) opcode %s", c->num,
			    wc_name(wc->status), wc->status,
			    op_name(wc->opcode, kind));
		if (c->state == C_UP)
			fail(c, "completion error");
		return;
	}
	/*
	 * The client's first message can come before the server read its
	 * ESTABLISHED event (the client sends once it got the REP; the
	 * server's event waits for the RTU): a server takes it accepting
	 */
	if (c->state != C_UP && !(server && c->state == C_CONNECTING))
		return;
	if (kind == WR_RECV) {
		int i = (int)(wc->wr_id >> 8);

		m = rmsg(c, i);
		if (m->magic != MAGIC) {
			say("MISMATCH session %d: message magic 0x%x", c->num, m->magic);
			mismatches++;
			fail(c, "bad message");
			return;
		}
		if (server) {
			if (check_in(c, m->seq, 0)) {
				fail(c, "wrong data");
				return;
			}
			c->seq = m->seq;
			c->exchanges++;
			total_ex++;
			if (c->exchanges == 1 || c->exchanges % 100 == 0)
				say("session %d: %lu exchanges verified", c->num,
				    c->exchanges);
			if (post_recv(c, i) || post_xfer(c, 1))
				fail(c, "post failed");
			return;
		}
		if (m->seq != c->seq || check_in(c, c->seq, 1)) {
			if (m->seq != c->seq) {
				say("MISMATCH session %d: answer %u, want %u",
				    c->num, m->seq, c->seq);
				mismatches++;
			}
			fail(c, "wrong data");
			return;
		}
		c->got = 1;
		if (post_recv(c, i)) {
			fail(c, "post failed");
			return;
		}
	} else if (!server) {
		c->pend--;
	}
	if (!server && c->pend == 0 && c->got) {
		c->exchanges++;
		total_ex++;
		c->seq++;
		client_next(c);
	}
}

static void on_cq(struct conn *c)
{
	struct ibv_cq *cq;
	void *ctx;
	struct ibv_wc wc[8];
	int n, i;

	errno = 0;
	if (ibv_get_cq_event(c->ch, &cq, &ctx)) {
		if (errno == EAGAIN)
			return;
		say("session %d: completion channel: %s: the device is gone",
		    c->num, strerror(errno));
		c->dev_gone = 1;
		return;
	}
	ibv_ack_cq_events(cq, 1);
	if (ibv_req_notify_cq(c->cq, 0)) {
		say("session %d: ibv_req_notify_cq: %s", c->num, strerror(errno));
		c->dev_gone = 1;
		return;
	}
	while (c->used && !c->dev_gone &&
	       (n = ibv_poll_cq(c->cq, 8, wc)) > 0)
		for (i = 0; i < n; i++)
			on_wc(c, &wc[i]);
}

static int do_listen(void)
{
	static int last_err = -1;
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_PASSIVE }, *ai;
	const char *what;
	int err;

	what = "getaddrinfo";
	if (getaddrinfo(addr_s, port_s, &hints, &ai)) {
		errno = EINVAL;
		goto err0;
	}
	what = "rdma_create_id";
	if (rdma_create_id(chan, &listen_id, NULL, RDMA_PS_TCP))
		goto err1;
	what = "rdma_bind_addr";
	if (rdma_bind_addr(listen_id, ai->ai_addr))
		goto err2;
	what = "rdma_listen";
	if (rdma_listen(listen_id, 8))
		goto err2;
	freeaddrinfo(ai);
	listen_verbs = listen_id->verbs;
	listen_gone = 0;
	if (listen_verbs)
		watch_ctx(listen_verbs);
	say("listening on %s:%s (%s)", addr_s, port_s,
	    listen_verbs ? ibv_get_device_name(listen_verbs->device) : "any device");
	last_err = -1;
	return 0;
err2:
	err = errno;
	rdma_destroy_id(listen_id);
	errno = err;
err1:
	freeaddrinfo(ai);
	listen_id = NULL;
err0:
	if (errno != last_err)
		say("listen: %s: %s", what, strerror(errno));
	last_err = errno;
	return -1;
}

static void client_start(void)
{
	struct conn *c = conn_new();

	if (!c) {
		say("no free connection slot");
		exit(1);
	}
	if (rdma_create_id(chan, &c->id, c, RDMA_PS_TCP)) {
		say("session %d: rdma_create_id: %s", c->num, strerror(errno));
		c->id = NULL;
		conn_destroy(c, "rdma_create_id failed");
		next_try = now() + 1;
		return;
	}
	c->state = C_RESOLVING;
	if (rdma_resolve_addr(c->id, NULL, (struct sockaddr *)&dst, 2000)) {
		say("session %d: rdma_resolve_addr: %s", c->num, strerror(errno));
		c->failed = 1;
		failed_sessions++;
		conn_destroy(c, "rdma_resolve_addr failed");
		next_try = now() + 1;
	}
}

static void on_cm_event(void)
{
	struct rdma_cm_event *ev;
	struct rdma_conn_param cp = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};
	struct rdma_cm_id *id;
	enum rdma_cm_event_type type;
	struct msg pd = { 0 };
	struct conn *c;
	int status;

	if (rdma_get_cm_event(chan, &ev)) {
		if (errno != EAGAIN) {
			say("rdma_get_cm_event: %s", strerror(errno));
			exit(1);
		}
		return;
	}
	type = ev->event;
	status = ev->status;
	id = ev->id;
	if (ev->param.conn.private_data &&
	    ev->param.conn.private_data_len >= sizeof(pd))
		memcpy(&pd, ev->param.conn.private_data, sizeof(pd));
	c = type == RDMA_CM_EVENT_CONNECT_REQUEST ? NULL : id->context;
	rdma_ack_cm_event(ev);

	if (id == listen_id && type != RDMA_CM_EVENT_CONNECT_REQUEST) {
		say("listen id: cm event %s status %d", rdma_event_str(type), status);
		if (type == RDMA_CM_EVENT_DEVICE_REMOVAL) {
			if (listen_verbs && !listen_gone && drain_async(listen_verbs))
				device_gone(listen_verbs);
			rdma_destroy_id(listen_id);
			listen_id = NULL;
			listen_verbs = NULL;
			next_try = now() + 0.5;
		}
		return;
	}
	if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
		c = conn_new();
		if (!c) {
			say("connect request: no free slot, rejected");
			rdma_reject(id, NULL, 0);
			rdma_destroy_id(id);
			return;
		}
		c->id = id;
		id->context = c;
		say("session %d: cm event %s status %d", c->num,
		    rdma_event_str(type), status);
		if (pd.magic != MAGIC) {
			say("session %d: connect request without our private data", c->num);
			rdma_reject(id, NULL, 0);
			conn_destroy(c, "rejected");
			return;
		}
		c->raddr = pd.addr;
		c->rkey = pd.rkey;
		if (conn_setup(c)) {
			rdma_reject(id, NULL, 0);
			conn_destroy(c, "setup failed");
			return;
		}
		pd.magic = MAGIC;
		pd.addr = (uintptr_t)in_buf(c);
		pd.rkey = c->mr->rkey;
		cp.private_data = &pd;
		cp.private_data_len = sizeof(pd);
		c->state = C_CONNECTING;
		if (rdma_accept(id, &cp)) {
			say("session %d: rdma_accept: %s", c->num, strerror(errno));
			conn_destroy(c, "rdma_accept failed");
		}
		return;
	}
	if (!c) {
		say("cm event %s status %d on an unknown id", rdma_event_str(type), status);
		return;
	}
	say("session %d: cm event %s status %d", c->num, rdma_event_str(type), status);
	switch (type) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (rdma_resolve_route(c->id, 2000)) {
			say("session %d: rdma_resolve_route: %s", c->num, strerror(errno));
			goto retry;
		}
		return;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		if (conn_setup(c))
			goto retry;
		pd.magic = MAGIC;
		pd.addr = (uintptr_t)in_buf(c);
		pd.rkey = c->mr->rkey;
		cp.private_data = &pd;
		cp.private_data_len = sizeof(pd);
		c->state = C_CONNECTING;
		c->since = now();
		if (rdma_connect(c->id, &cp)) {
			say("session %d: rdma_connect: %s", c->num, strerror(errno));
			goto retry;
		}
		return;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (c->state != C_CONNECTING)
			return;
		c->state = C_UP;
		c->since = now();
		c->conn_no = ++connections;
		say("session %d: established, connection %d", c->num, c->conn_no);
		if (server)
			return;
		if (pd.magic != MAGIC) {
			say("session %d: accepted without our private data", c->num);
			fail(c, "no private data");
			return;
		}
		c->raddr = pd.addr;
		c->rkey = pd.rkey;
		client_next(c);
		return;
	case RDMA_CM_EVENT_DISCONNECTED:
		if (c->state != C_DISCONNECTING) {
			/*
			 * The peer's DREQ: answer it (DREP; the QP to ERR).  A
			 * server ends its sessions so; a client's server never
			 * ends one by itself.
			 */
			if (!server && !c->failed)
				c->failed = 1, failed_sessions++;
			if (rdma_disconnect(c->id))
				say("session %d: rdma_disconnect: %s", c->num,
				    strerror(errno));
		}
		conn_destroy(c, c->failed ? "disconnected after a failure" :
			     "disconnected");
		if (!server && c->clean && !c->failed && ++clean_done >= clean_n)
			done = 1;
		else if (!server)
			next_try = now() + 1;
		return;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		if (c->verbs && !c->dev_gone && drain_async(c->verbs))
			device_gone(c->verbs);
		c->dev_gone = 1;
		if (!c->failed)
			c->failed = 1, failed_sessions++;
		conn_destroy(c, "device removed");
		if (!server)
			next_try = now() + 1;
		return;
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		if (c->state == C_UP || c->state == C_DISCONNECTING) {
			fail(c, rdma_event_str(type));
			return;
		}
		goto retry;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		return;
	default:
		/* ADDR_ERROR, ROUTE_ERROR, REJECTED, CONNECT_ERROR, ... */
		if (c->state == C_UP) {
			fail(c, rdma_event_str(type));
			return;
		}
		goto retry;
	}
retry:
	if (!c->failed)
		c->failed = 1, failed_sessions++;
	conn_destroy(c, "connect failed");
	if (!server)
		next_try = now() + 1;
}

static void on_signal(void)
{
	struct signalfd_siginfo si;
	int i;

	if (read(sfd, &si, sizeof(si)) != sizeof(si))
		return;
	if (si.ssi_signo == SIGUSR1) {
		for (i = 0; i < MAX_CONNS; i++)
			if (conns[i].used && conns[i].idle && conns[i].state == C_UP &&
			    !conns[i].dev_gone) {
				say("session %d: resuming", conns[i].num);
				client_next(&conns[i]);
			}
		return;
	}
	say("signal %d: ending", (int)si.ssi_signo);
	done = 1;
}

static void print_usage(void)
{
	fprintf(stderr,
		"usage: cm_fault -s|-c -a ADDR [-p PORT] [-S SIZE] [-t SECS] [-d SECS] [-k N] [-i N] [-n N]\n");
	exit(1);
}

int main(int argc, char **argv)
{
	struct pollfd pfd[2 + 2 * MAX_CONNS + 1];
	struct ibv_context *ctxs[MAX_CONNS + 1];
	struct sigaction sa = { .sa_handler = on_sigbus };
	int role = 0, opt, i, n, nctx, j;
	sigset_t ss;

	while ((opt = getopt(argc, argv, "sca:p:S:t:d:k:i:n:")) != -1) {
		switch (opt) {
		case 's':
			role = 's';
			break;
		case 'c':
			role = 'c';
			break;
		case 'a':
			addr_s = optarg;
			break;
		case 'p':
			port_s = optarg;
			break;
		case 'S':
			size = strtoul(optarg, NULL, 0);
			break;
		case 't':
			deadline_s = strtod(optarg, NULL);
			break;
		case 'd':
			disc_s = strtod(optarg, NULL);
			break;
		case 'k':
			final_k = strtoul(optarg, NULL, 0);
			break;
		case 'i':
			idle_n = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			clean_n = atoi(optarg);
			break;
		default:
			print_usage();
		}
	}
	if (!role || !addr_s || !size || !final_k)
		print_usage();
	server = role == 's';
	setvbuf(stdout, NULL, _IOLBF, 0);
	t0 = now();
	sigaction(SIGBUS, &sa, NULL);
	sigemptyset(&ss);
	sigaddset(&ss, SIGUSR1);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	sfd = signalfd(-1, &ss, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sfd < 0) {
		perror("signalfd");
		return 1;
	}
	chan = rdma_create_event_channel();
	if (!chan) {
		say("rdma_create_event_channel: %s", strerror(errno));
		return 1;
	}
	fcntl(chan->fd, F_SETFL, fcntl(chan->fd, F_GETFL) | O_NONBLOCK);
	if (server) {
		if (do_listen())
			return 1;
	} else {
		struct addrinfo hints = { .ai_flags = AI_NUMERICHOST }, *ai;

		if (getaddrinfo(addr_s, port_s, &hints, &ai)) {
			say("bad address %s:%s", addr_s, port_s);
			return 1;
		}
		memcpy(&dst, ai->ai_addr, ai->ai_addrlen);
		freeaddrinfo(ai);
		client_start();
	}

	while (!done) {
		double t = now();
		int busy = 0;

		if (t - t0 > deadline_s) {
			say("deadline: %.0f s passed", deadline_s);
			break;
		}
		for (i = 0; i < MAX_CONNS; i++) {
			struct conn *c = &conns[i];

			if (!c->used)
				continue;
			busy = 1;
			if (c->state == C_DISCONNECTING && t - c->since > disc_s) {
				say("session %d: no RDMA_CM_EVENT_DISCONNECTED within %.0f s",
				    c->num, disc_s);
				conn_destroy(c, "disconnect timed out");
				if (!server)
					next_try = t + 1;
			} else if ((c->state == C_RESOLVING || c->state == C_CONNECTING) &&
				   t - c->since > 30) {
				say("session %d: no connection within 30 s", c->num);
				if (!c->failed)
					c->failed = 1, failed_sessions++;
				conn_destroy(c, "connect timed out");
				if (!server)
					next_try = t + 1;
			}
		}
		if (server && !listen_id && t >= next_try) {
			if (do_listen())
				next_try = t + 0.5;
		}
		if (!server && !busy && t >= next_try)
			client_start();

		n = 0;
		pfd[n].fd = chan->fd;
		pfd[n++].events = POLLIN;
		pfd[n].fd = sfd;
		pfd[n++].events = POLLIN;
		nctx = 0;
		if (listen_id && listen_verbs && !listen_gone)
			ctxs[nctx++] = listen_verbs;
		for (i = 0; i < MAX_CONNS; i++) {
			struct conn *c = &conns[i];

			if (!c->used || c->dev_gone)
				continue;
			if (c->ch) {
				pfd[n].fd = c->ch->fd;
				pfd[n++].events = POLLIN;
			}
			if (!c->verbs)
				continue;
			for (j = 0; j < nctx; j++)
				if (ctxs[j] == c->verbs)
					break;
			if (j == nctx)
				ctxs[nctx++] = c->verbs;
		}
		for (j = 0; j < nctx; j++) {
			pfd[n].fd = ctxs[j]->async_fd;
			pfd[n++].events = POLLIN;
		}
		if (poll(pfd, n, 100) < 0 && errno != EINTR) {
			perror("poll");
			return 1;
		}
		if (pfd[1].revents)
			on_signal();
		for (j = 0; j < nctx; j++)
			if (pfd[n - nctx + j].revents && drain_async(ctxs[j]))
				device_gone(ctxs[j]);
		for (i = 0; i < MAX_CONNS; i++)
			if (conns[i].used && !conns[i].dev_gone && conns[i].ch)
				on_cq(&conns[i]);
		if (pfd[0].revents)
			on_cm_event();
	}

	for (i = 0; i < MAX_CONNS; i++)
		if (conns[i].used) {
			if (conns[i].state == C_UP && !conns[i].dev_gone)
				rdma_disconnect(conns[i].id);
			conn_destroy(&conns[i], "exiting");
		}
	if (listen_id)
		rdma_destroy_id(listen_id);
	rdma_destroy_event_channel(chan);
	say("done: %d sessions, %d failed, %lu exchanges verified, %d mismatches",
	    sessions, failed_sessions, total_ex, mismatches);
	if (mismatches)
		return 2;
	if (server)
		return 0;
	return done ? 0 : 1;
}
