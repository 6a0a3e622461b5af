// SPDX-License-Identifier: GPL-2.0
/*
 * udplink: what a link between two machines gives a UDP socket that
 * spins, the floor under an RDMA stack's numbers on the same link
 * (tools/testing/bench/bench_wire.sh; RoCEv2 is UDP too):
 *
 *   udplink pong [-p PORT] [-t SECS]
 *       the server: answers every datagram with itself, and a "sink"
 *       stream with its count; spins on recv(MSG_DONTWAIT) as perftest
 *       spins on its CQ; ends after SECS (default 60) without a datagram
 *       or at a "quit" datagram
 *   udplink ping [-p PORT] [-n N] [-s SIZE] HOST
 *       N round trips of SIZE bytes (default 500 x 64), spinning:
 *         RESULT udp_lat_<SIZE>_us <median round trip / 2> us
 *         RESULT udp_lat_<SIZE>_p99_us <99th percentile / 2> us
 *       (perftest's ib_*_lat report half a round trip too)
 *   udplink stream [-p PORT] [-n N] [-s SIZE] HOST
 *       N datagrams of SIZE bytes (default 2000 x 4096) as fast as the
 *       socket takes them (a blocking socket: its send buffer is the
 *       window), then asks the server what arrived (it reads a
 *       datagram's first 64 bytes: what the link delivers, not how
 *       fast a copy of the rest runs):
 *         RESULT udp_stream_<SIZE>_MBps <bytes received / the server's
 *                                        time from first to last> MBps
 *         RESULT udp_stream_<SIZE>_sent_MBps <bytes sent / the time the
 *                                        socket took them> MBps
 *         RESULT udp_stream_<SIZE>_kpps <datagrams the same way> kpps
 *         RESULT udp_stream_<SIZE>_lost_pct <datagrams lost> pct
 *   udplink quit [-p PORT] HOST
 *
 * Messages start with a 4-byte tag: 'P' a ping, 'S' a stream datagram,
 * 'E' the end of a stream (the answer: 'R' with the count), 'Q' quit.
 * Exit status 0, or 1 with a message on stderr (a ping or the end of a
 * stream without an answer within 5 s: the link is meant to be lossless).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "bench.h"

#define DEF_PORT	18999
#define MAX_SIZE	65000
#define MAX_N		1000000
#define ANSWER_SECS	5.0

enum { TAG_PING = 'P', TAG_STREAM = 'S', TAG_END = 'E', TAG_REPORT = 'R',
	TAG_QUIT = 'Q' };

/* 'R': what a stream brought the server */
struct report {
	uint32_t tag;
	uint32_t pad;
	uint64_t count;
	uint64_t bytes;
	double secs;	/* first to last datagram */
};

static unsigned int port = DEF_PORT, count, size, idle_secs = 60;
static unsigned char buf[MAX_SIZE];

static void bad_usage(void)
{
	fprintf(stderr,
		"usage: udplink pong [-p PORT] [-t SECS]\n"
		"       udplink ping|stream [-p PORT] [-n N] [-s SIZE] HOST\n"
		"       udplink quit [-p PORT] HOST\n");
	exit(2);
}

static uint32_t tag_of(const unsigned char *b)
{
	uint32_t t;

	memcpy(&t, b, sizeof(t));
	return t;
}

static void set_tag(unsigned char *b, uint32_t t)
{
	memcpy(b, &t, sizeof(t));
}

/*
 * Spin for a datagram until @deadline (now()); its length, or -1 at the
 * deadline.  @from: its sender, if not NULL.  @flags: recvfrom()'s, with
 * MSG_DONTWAIT.
 */
static ssize_t spin_recv(int fd, void *b, size_t len, int flags,
			 double deadline, struct sockaddr_in *from)
{
	socklen_t fl = sizeof(*from);
	unsigned long spins = 0;
	ssize_t n;

	for (;;) {
		n = recvfrom(fd, b, len, MSG_DONTWAIT | flags,
			     (struct sockaddr *)from, from ? &fl : NULL);
		if (n >= 0)
			return n;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			die("recvfrom", errno);
		/* the clock now and then: a call is dearer than a spin */
		if (!(++spins & 1023) && now() >= deadline)
			return -1;
	}
}

static int udp_socket(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	int rcv = 4 << 20;

	if (fd < 0)
		die("socket", errno);
	/* a stream's burst waits here while the server spins (capped by
	 * net.core.rmem_max: udp_stream_<SIZE>_lost_pct says what was
	 * dropped)
	 */
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	return fd;
}

static void send_to(int fd, const void *b, size_t len,
		    const struct sockaddr_in *to)
{
	if (sendto(fd, b, len, 0, (const struct sockaddr *)to,
		   sizeof(*to)) != (ssize_t)len)
		die("sendto", errno);
}

/* ------------------------------------------------------------ server */

static void run_pong(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_ANY) };
	struct sockaddr_in from;
	struct report r = { .tag = TAG_REPORT };
	double first = 0, last = 0;
	unsigned char head[64];
	int fd = udp_socket();
	ssize_t n;

	if (bind(fd, (struct sockaddr *)&a, sizeof(a)))
		die("bind", errno);
	printf("# udplink: listening on UDP port %u\n", port);
	fflush(stdout);
	for (;;) {
		/*
		 * The head alone (MSG_TRUNC: the datagram's whole length):
		 * a payload copy under TCG would make the stream measure
		 * this program, not the link
		 */
		n = spin_recv(fd, head, sizeof(head), MSG_TRUNC,
			      now() + idle_secs, &from);
		if (n < 0) {
			printf("# udplink: %u s without a datagram\n",
			       idle_secs);
			break;
		}
		if (n < 4 || n > MAX_SIZE)
			continue;
		switch (tag_of(head)) {
		case TAG_PING:	/* the same length, tag and number */
			memcpy(buf, head, sizeof(head));
			send_to(fd, buf, n, &from);
			break;
		case TAG_STREAM:
			last = now();
			if (!r.count)
				first = last;
			r.count++;
			r.bytes += n;
			break;
		case TAG_END:
			r.secs = last - first;
			send_to(fd, &r, sizeof(r), &from);
			memset(&r, 0, sizeof(r));
			r.tag = TAG_REPORT;
			break;
		case TAG_QUIT:
			close(fd);
			return;
		}
	}
	close(fd);
}

/* ------------------------------------------------------------ clients */

static void run_ping(int fd, const struct sockaddr_in *to)
{
	double *rtt = calloc(count, sizeof(*rtt)), t0;
	unsigned int i, seq;
	ssize_t n;

	if (!rtt)
		die("calloc", errno);
	memset(buf, 0x5a, size);
	set_tag(buf, TAG_PING);
	for (i = 0; i < count; i++) {
		memcpy(buf + 4, &i, sizeof(i));
		t0 = now();
		send_to(fd, buf, size, to);
		do {	/* (a late answer: not this one's) */
			n = spin_recv(fd, buf, size, 0, t0 + ANSWER_SECS,
				      NULL);
			if (n < 0)
				die("a ping without an answer within 5 s", 0);
			memcpy(&seq, buf + 4, sizeof(seq));
		} while (n != size || tag_of(buf) != TAG_PING || seq != i);
		rtt[i] = now() - t0;
	}
	printf("RESULT udp_lat_%u_us %.1f us\n", size,
	       median(rtt, count) / 2 * 1e6);
	/* (median() sorted them) */
	printf("RESULT udp_lat_%u_p99_us %.1f us\n", size,
	       rtt[count * 99 / 100] / 2 * 1e6);
	free(rtt);
}

static void run_stream(int fd, const struct sockaddr_in *to)
{
	struct report r;
	unsigned int i, tries;
	ssize_t n = -1;
	double t0, sent;

	memset(buf, 0xa5, size);
	set_tag(buf, TAG_STREAM);
	t0 = now();
	for (i = 0; i < count; i++)
		send_to(fd, buf, size, to);
	sent = now() - t0;
	set_tag(buf, TAG_END);
	for (tries = 0; tries < 3 && n != sizeof(r); tries++) {
		send_to(fd, buf, 4, to);
		n = spin_recv(fd, &r, sizeof(r), 0, now() + ANSWER_SECS,
			      NULL);
		if (n == sizeof(r) && r.tag != TAG_REPORT)
			n = -1;
	}
	if (n != sizeof(r))
		die("no report of the stream within 3 x 5 s", 0);
	if (r.count < 2 || r.secs <= 0)
		die("fewer than 2 datagrams of the stream arrived", 0);
	printf("# udplink: %llu of %u datagrams, %llu bytes in %.3f s\n",
	       (unsigned long long)r.count, count,
	       (unsigned long long)r.bytes, r.secs);
	/* the first datagram's bytes arrived before the clock started */
	printf("RESULT udp_stream_%u_MBps %.1f MBps\n", size,
	       (double)(r.bytes - size) / r.secs / 1e6);
	/* (the socket's send buffer is the window: at most that unsent) */
	printf("RESULT udp_stream_%u_sent_MBps %.1f MBps\n", size,
	       (double)count * size / sent / 1e6);
	printf("RESULT udp_stream_%u_kpps %.2f kpps\n", size,
	       (double)(r.count - 1) / r.secs / 1e3);
	printf("RESULT udp_stream_%u_lost_pct %.1f pct\n", size,
	       100.0 * (double)(count - r.count) / count);
}

int main(int argc, char **argv)
{
	struct sockaddr_in to = { .sin_family = AF_INET };
	const char *mode;
	int opt, fd;

	if (argc < 2)
		bad_usage();
	mode = argv[1];
	if (!strcmp(mode, "ping")) {
		count = 500;
		size = 64;
	} else if (!strcmp(mode, "stream")) {
		count = 2000;
		size = 4096;
	} else if (strcmp(mode, "pong") && strcmp(mode, "quit")) {
		bad_usage();
	}
	optind = 2;
	while ((opt = getopt(argc, argv, "p:n:s:t:")) != -1) {
		switch (opt) {
		case 'p':
			port = bench_num(optarg, 1, 65535, bad_usage);
			break;
		case 'n':
			count = bench_num(optarg, 1, MAX_N, bad_usage);
			break;
		case 's':
			size = bench_num(optarg, 8, MAX_SIZE, bad_usage);
			break;
		case 't':
			idle_secs = bench_num(optarg, 1, 3600, bad_usage);
			break;
		default:
			bad_usage();
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "pong")) {
		if (optind != argc)
			bad_usage();
		run_pong();
		return 0;
	}
	if (optind != argc - 1 || inet_pton(AF_INET, argv[optind],
					    &to.sin_addr) != 1)
		bad_usage();
	to.sin_port = htons(port);
	fd = udp_socket();
	if (!strcmp(mode, "quit")) {
		set_tag(buf, TAG_QUIT);
		send_to(fd, buf, 4, &to);
	} else if (!strcmp(mode, "ping")) {
		run_ping(fd, &to);
	} else {
		run_stream(fd, &to);
	}
	close(fd);
	return 0;
}
