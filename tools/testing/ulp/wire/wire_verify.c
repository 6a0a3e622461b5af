// SPDX-License-Identifier: GPL-2.0
/*
 * wire_verify: RC data verified between two hosts, for the fault tests
 * of the two-guest wire suite (tools/testing/ulp/wire/
 * wire_faults_xnic_rxe.sh).  One side listens on a TCP port (no -c), the
 * other connects to it (-c HOST); over that socket they exchange their
 * QP numbers, GIDs, buffers and keys, and meet before and after every
 * operation.  Each side in turn is the requester: for every size (-S,
 * default crossing the path MTU, 1 B .. 1 MiB) and iteration (-n) it
 *   SEND   a patterned buffer into the peer's posted receive;
 *   WRITE  a patterned buffer into the peer's memory;
 *   READ   the peer's patterned memory into a cleared buffer
 * and both sides check every completion (status, opcode, wr_id, byte
 * count) and every byte that arrived (the receiving side for SEND and
 * WRITE, the requester for READ).  The last step is a meeting over TCP
 * after the last completion on both sides, and only then are the QPs
 * destroyed: no side tears down while the other still waits for an ACK,
 * so a lost or late final ACK is recovered by the transport, not a
 * failure of the program.
 *
 *   wire_verify -d IBDEV -g GID_INDEX -p PORT [-c HOST] [-m MTU]
 *               [-S SIZE,...] [-n ITERS] [-t POLL_MS] [-w SECONDS]
 *               [-T TIMEOUT]
 *
 * -T is the QP's local ACK timeout (4.096 us << TIMEOUT, default 14:
 * 67 ms), with retry_cnt 7: IBTA's 7 retries without progress, then
 * RETRY_EXC_ERR (rxe takes 7 as "retry for ever").
 *
 * Output: xt's "ok N - ..." lines, one per side, operation and size,
 * then "# wire_verify: N tests, F failed"; exit 0 only when every check
 * passed (1 otherwise, 2 on a bad usage or a watchdog expiry).
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "xt_verbs.h"

#define WV_MAX_SIZES	16
#define WV_MAGIC	0x77766572u	/* "wver" */

/* what each side tells the other once, at the start */
struct wv_info {
	uint32_t magic;
	uint32_t qpn;
	uint32_t mtu;			/* enum ibv_mtu */
	uint32_t max_size;
	uint8_t gid[16];
	uint64_t rbuf_va;		/* WRITE target */
	uint32_t rbuf_rkey;
	uint32_t sbuf_rkey;
	uint64_t sbuf_va;		/* READ source */
};

/* one meeting: both send theirs, then read the peer's */
struct wv_step {
	uint32_t token;
	uint32_t ok;
};

enum wv_op { WV_SEND, WV_WRITE, WV_READ, WV_NOPS };
static const char *const wv_op_name[WV_NOPS] = { "SEND", "WRITE", "READ" };

static struct {
	const char *dev, *host;
	int gidx, port, mtu, iters, poll_ms, timeout;
	unsigned int watchdog;
	size_t sizes[WV_MAX_SIZES];
	int nsizes;
} opt = {
	.gidx = -1, .mtu = 1024, .iters = 2, .poll_ms = 60000, .timeout = 14,
	.watchdog = 240,
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct xt_ep ep;
static struct xt_buf sbuf, rbuf;
static struct wv_info me, peer;
static int sock = -1;
static uint32_t token;
static unsigned long long verified;

static void on_alarm(int sig)
{
	(void)sig;
	xt_watchdog_expired("wire_verify: watchdog expired");
}

static bool full_io(bool wr, void *p, size_t n)
{
	uint8_t *b = p;

	while (n) {
		ssize_t r = wr ? send(sock, b, n, MSG_NOSIGNAL) :
				 recv(sock, b, n, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		b += r;
		n -= (size_t)r;
	}
	return true;
}

/*
 * meet the peer at the next step, telling it @ok; the peer's ok.  A
 * broken socket or a peer at another step ends the program (the peer
 * failed: its output says why)
 */
static bool meet(const char *what, bool ok)
{
	struct wv_step s = { htonl(++token), htonl(ok) }, p;

	if (!full_io(true, &s, sizeof(s)) || !full_io(false, &p, sizeof(p)))
		xt_bail(0, "%s: the peer is gone (TCP)", what);
	if (ntohl(p.token) != token)
		xt_bail(0, "%s: the peer is at step %u, not %u", what,
			ntohl(p.token), token);
	return ntohl(p.ok);
}

static int tcp_connect(void)
{
	struct addrinfo hints = {
		.ai_family = AF_INET, .ai_socktype = SOCK_STREAM,
	};
	struct addrinfo *ai;
	char port[16];
	int fd, one = 1, tries;

	snprintf(port, sizeof(port), "%d", opt.port);
	if (getaddrinfo(opt.host, port, &hints, &ai))
		xt_bail(0, "cannot resolve %s", opt.host);
	/* the server may not listen yet: try for 20 s */
	for (tries = 0; tries < 200; tries++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			xt_bail(errno, "socket");
		if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
			break;
		close(fd);
		fd = -1;
		usleep(100000);
	}
	freeaddrinfo(ai);
	if (fd < 0)
		xt_bail(errno, "connect to %s:%d", opt.host, opt.port);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static int tcp_accept(void)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET, .sin_port = htons(opt.port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	int lfd, fd, one = 1;

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0)
		xt_bail(errno, "socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1))
		xt_bail(errno, "listen on port %d", opt.port);
	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		xt_bail(errno, "accept");
	close(lfd);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static enum ibv_mtu mtu_enum(int bytes)
{
	enum ibv_mtu m;

	for (m = IBV_MTU_256; m < IBV_MTU_4096; m++)
		if ((128 << m) >= bytes)
			break;
	return m;
}

static void setup(void)
{
	struct ibv_qp_cap cap = {
		.max_send_wr = 4, .max_recv_wr = 4,
		.max_send_sge = 1, .max_recv_sge = 1,
	};
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ;
	struct ibv_port_attr pa;
	union ibv_gid gid;
	size_t max = 0;
	int i;

	for (i = 0; i < opt.nsizes; i++)
		if (opt.sizes[i] > max)
			max = opt.sizes[i];
	ctx = xt_open_device(opt.dev, NULL, 0);
	if (!ctx)
		xt_bail(0, "open %s", opt.dev);
	xt_show_library();
	if (ibv_query_port(ctx, XT_PORT, &pa))
		xt_bail(errno, "ibv_query_port");
	if (ibv_query_gid(ctx, XT_PORT, opt.gidx, &gid))
		xt_bail(errno, "ibv_query_gid(%d)", opt.gidx);
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		xt_bail(errno, "ibv_alloc_pd");
	if (!xt_ep_new(&ep, pd, IBV_QPT_RC, 8, &cap))
		xt_bail(0, "RC QP");
	if (!xt_buf_new(&sbuf, pd, max, access) ||
	    !xt_buf_new(&rbuf, pd, max, access))
		xt_bail(0, "buffers of %zu bytes", max);

	me.magic = htonl(WV_MAGIC);
	me.qpn = htonl(ep.qp->qp_num);
	me.mtu = htonl(mtu_enum(opt.mtu) < pa.active_mtu ?
		       mtu_enum(opt.mtu) : pa.active_mtu);
	me.max_size = htonl((uint32_t)max);
	memcpy(me.gid, gid.raw, sizeof(me.gid));
	me.rbuf_va = htobe64(xt_va(&rbuf, 0));
	me.rbuf_rkey = htonl(rbuf.mr->rkey);
	me.sbuf_va = htobe64(xt_va(&sbuf, 0));
	me.sbuf_rkey = htonl(sbuf.mr->rkey);
}

static void connect_qp(void)
{
	struct xt_rc_opts ro = {
		.timeout = (uint8_t)opt.timeout, .retry_cnt = 7, .rnr_retry = 7,
		.sgid_index = (uint8_t)opt.gidx,
	};
	enum ibv_mtu mtu;
	union ibv_gid dgid;
	int ret;

	if (!full_io(true, &me, sizeof(me)) ||
	    !full_io(false, &peer, sizeof(peer)))
		xt_bail(0, "exchange with the peer (TCP)");
	if (ntohl(peer.magic) != WV_MAGIC)
		xt_bail(0, "the peer is not wire_verify");
	if (ntohl(peer.max_size) != ntohl(me.max_size))
		xt_bail(0, "the peer has other sizes (-S)");
	mtu = ntohl(me.mtu) < ntohl(peer.mtu) ? ntohl(me.mtu) : ntohl(peer.mtu);
	memcpy(dgid.raw, peer.gid, sizeof(dgid.raw));
	ret = xt_rc_rts(ep.qp, ntohl(peer.qpn), &dgid, mtu, &ro);
	if (ret)
		xt_bail(ret, "RC QP to RTS (peer QP %#x)", ntohl(peer.qpn));
	xt_note("%s: QP %#x to %#x, path MTU %d, timeout %d, %d sizes x %d iterations",
		opt.host ? "client" : "server", ep.qp->qp_num,
		ntohl(peer.qpn), 128 << mtu, opt.timeout, opt.nsizes,
		opt.iters);
}

/*
 * the one completion of wr_id @id, which must be @op, successful (and of
 * @len bytes for a receive)
 */
static void complete(uint64_t id, enum ibv_wc_opcode op, size_t len,
		     const char *what)
{
	struct ibv_wc wc;

	if (!xt_poll_one(ep.cq, &wc, opt.poll_ms))
		xt_bail(0, "%s: no completion in %d ms", what, opt.poll_ms);
	if (wc.status != IBV_WC_SUCCESS)
		xt_bail(0, "%s: completion status %s (%d), vendor error %#x",
			what, ibv_wc_status_str(wc.status), wc.status,
			wc.vendor_err);
	if (wc.wr_id != id || wc.opcode != op)
		xt_bail(0, "%s: completion of wr_id %llu opcode %d, want %llu %d",
			what, (unsigned long long)wc.wr_id, wc.opcode,
			(unsigned long long)id, op);
	if (op == IBV_WC_RECV && wc.byte_len != len)
		xt_bail(0, "%s: received %u bytes", what, wc.byte_len);
}

static void post_send(enum ibv_wr_opcode op, uint64_t id, size_t len,
		      const char *what)
{
	struct ibv_sge sge = op == IBV_WR_RDMA_READ ?
			     xt_sge(&rbuf, 0, (uint32_t)len) :
			     xt_sge(&sbuf, 0, (uint32_t)len);
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	int ret;

	if (op == IBV_WR_RDMA_WRITE) {
		wr.wr.rdma.remote_addr = be64toh(peer.rbuf_va);
		wr.wr.rdma.rkey = ntohl(peer.rbuf_rkey);
	} else if (op == IBV_WR_RDMA_READ) {
		wr.wr.rdma.remote_addr = be64toh(peer.sbuf_va);
		wr.wr.rdma.rkey = ntohl(peer.sbuf_rkey);
	}
	ret = ibv_post_send(ep.qp, &wr, &bad);
	if (ret)
		xt_bail(ret, "%s: ibv_post_send", what);
}

static void post_recv(uint64_t id, size_t len, const char *what)
{
	struct ibv_sge sge = xt_sge(&rbuf, 0, (uint32_t)len);
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 },
			   *bad;
	int ret;

	ret = ibv_post_recv(ep.qp, &wr, &bad);
	if (ret)
		xt_bail(ret, "%s: ibv_post_recv", what);
}

/* the data at @p is the pattern @seed: true, else a note where not */
static bool data_ok(const uint8_t *p, size_t len, uint32_t seed,
		    const char *what)
{
	long off = xt_pat_check(p, len, seed);

	if (off < 0) {
		verified += len;
		return true;
	}
	xt_note("%s: byte %ld of %zu is %#x, want %#x", what, off, len,
		p[off], xt_pat_byte(seed, (size_t)off));
	return false;
}

/*
 * one operation @op of @len bytes, this side the requester when @req:
 * true when this side's checks passed (a failed completion ends the
 * program)
 */
static bool one_op(enum wv_op op, size_t len, uint32_t seed, bool req,
		   const char *what)
{
	uint64_t id = ((uint64_t)seed << 8) | op;
	bool ok = true;

	switch (op) {
	case WV_SEND:
		if (!req) {
			/* the whole buffer: a longer message would fit too */
			memset(rbuf.p, 0, len);
			post_recv(id, rbuf.len, what);
		}
		meet(what, true);
		if (req) {
			xt_pat_fill(sbuf.p, len, seed);
			post_send(IBV_WR_SEND, id, len, what);
			complete(id, IBV_WC_SEND, len, what);
		} else {
			complete(id, IBV_WC_RECV, len, what);
			ok = data_ok(rbuf.p, len, seed, what);
		}
		break;
	case WV_WRITE:
		if (!req)
			memset(rbuf.p, 0, len);
		meet(what, true);
		if (req) {
			xt_pat_fill(sbuf.p, len, seed);
			post_send(IBV_WR_RDMA_WRITE, id, len, what);
			complete(id, IBV_WC_RDMA_WRITE, len, what);
		}
		/* the requester's completion: the data is in place */
		meet(what, true);
		if (!req)
			ok = data_ok(rbuf.p, len, seed, what);
		break;
	case WV_READ:
		if (!req)
			xt_pat_fill(sbuf.p, len, seed);
		meet(what, true);
		if (req) {
			memset(rbuf.p, 0, len);
			post_send(IBV_WR_RDMA_READ, id, len, what);
			complete(id, IBV_WC_RDMA_READ, len, what);
			ok = data_ok(rbuf.p, len, seed, what);
		}
		break;
	default:
		break;
	}
	return ok;
}

/* every size, iteration and operation with the @client the requester */
static void phase(bool client)
{
	bool req = client == !!opt.host;
	const char *who = client ? "client" : "server";
	char what[96];
	int s, i, o;

	for (s = 0; s < opt.nsizes; s++)
		for (o = 0; o < WV_NOPS; o++) {
			bool ok = true, peer_ok;

			for (i = 0; i < opt.iters; i++) {
				uint32_t seed = (uint32_t)(client << 24 |
					o << 20 | s << 12 | i) + 1;

				snprintf(what, sizeof(what), "%s %s %zu #%d",
					 who, wv_op_name[o], opt.sizes[s], i);
				ok &= one_op(o, opt.sizes[s], seed, req, what);
			}
			/* both sides' checks of this size and operation */
			snprintf(what, sizeof(what), "%s %s %zu", who,
				 wv_op_name[o], opt.sizes[s]);
			peer_ok = meet(what, ok);
			xt_check(ok, "%s x%d: %s", what, opt.iters,
				 req ? "completions, data" : "data arrived");
			if (!peer_ok)
				xt_note("%s: the peer's check failed", what);
		}
}

static void teardown(void)
{
	CHECK_RC(ibv_destroy_qp(ep.qp) ? -errno : 0, 0, "destroy the QP");
	CHECK_RC(ibv_destroy_cq(ep.cq) ? -errno : 0, 0, "destroy the CQ");
	CHECK_RC(xt_buf_free(&sbuf), 0, "deregister the send buffer");
	CHECK_RC(xt_buf_free(&rbuf), 0, "deregister the receive buffer");
	CHECK_RC(ibv_dealloc_pd(pd) ? -errno : 0, 0, "free the PD");
	CHECK_RC(ibv_close_device(ctx) ? -errno : 0, 0, "close the device");
}

static void parse_sizes(const char *arg)
{
	char *dup = strdup(arg), *tok, *save = NULL;

	opt.nsizes = 0;
	for (tok = strtok_r(dup, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		long v = atol(tok);

		if (v < 1 || v > (1 << 24) || opt.nsizes == WV_MAX_SIZES) {
			fprintf(stderr, "wire_verify: bad size list %s\n", arg);
			exit(2);
		}
		opt.sizes[opt.nsizes++] = (size_t)v;
	}
	free(dup);
}

int main(int argc, char **argv)
{
	int c;

	parse_sizes("1,1024,1025,4097,65536,1048576");
	while ((c = getopt(argc, argv, "d:g:p:c:m:S:n:t:w:T:")) != -1) {
		switch (c) {
		case 'd':
			opt.dev = optarg;
			break;
		case 'g':
			opt.gidx = atoi(optarg);
			break;
		case 'p':
			opt.port = atoi(optarg);
			break;
		case 'c':
			opt.host = optarg;
			break;
		case 'm':
			opt.mtu = atoi(optarg);
			break;
		case 'S':
			parse_sizes(optarg);
			break;
		case 'n':
			opt.iters = atoi(optarg);
			break;
		case 't':
			opt.poll_ms = atoi(optarg);
			break;
		case 'w':
			opt.watchdog = (unsigned int)atoi(optarg);
			break;
		case 'T':
			opt.timeout = atoi(optarg);
			break;
		default:
			return xt_usage("wire_verify",
					"-d IBDEV -g GID_INDEX -p PORT [-c HOST] [-m MTU] [-S SIZE,...] [-n ITERS] [-t POLL_MS] [-w SECONDS] [-T TIMEOUT]");
		}
	}
	if (!opt.dev || opt.gidx < 0 || opt.port <= 0 || opt.iters < 1 ||
	    opt.timeout < 0 || opt.timeout > 31)
		return xt_usage("wire_verify",
				"-d IBDEV -g GID_INDEX -p PORT [-c HOST] ...");
	xt_init("wire_verify", NULL);
	signal(SIGALRM, on_alarm);
	alarm(opt.watchdog);

	setup();
	sock = opt.host ? tcp_connect() : tcp_accept();
	connect_qp();
	phase(true);
	phase(false);
	/*
	 * after the last completion on both sides: no request of either
	 * is outstanding, no ACK awaited; only now may the QPs go
	 */
	meet("last completion", true);
	teardown();
	xt_note("%llu bytes verified here", verified);
	close(sock);
	return xt_done();
}
