// SPDX-License-Identifier: GPL-2.0
/*
 * xv_scale: does the cost of RDMA on a device stay flat with many QPs
 * created?  A plain libibverbs program (run it with scripts/xrdma-run to
 * use xrdma's library).  It opens the device, creates N idle RC QPs and
 * one active loopback pair (two RC QPs of the device connected to each
 * other through the GID at index -g of the port), then measures on the
 * active pair:
 *   scale_<N>_msgrate_Mpps  64-byte RDMA WRITEs A -> B, lists of 16 WRs
 *                           per ibv_post_send, every 64th signaled, at
 *                           most 128 in flight (perftest's tx_depth and
 *                           cq moderation), 10^6 messages / s
 *   scale_<N>_lat_us        64-byte RDMA WRITE ping-pong (ib_write_lat):
 *                           half the round trip A -> B -> A, each side
 *                           seeing the other's write by polling the last
 *                           byte of its buffer (no completion awaited)
 *   scale_<N>_complat_us    one signaled 64-byte RDMA WRITE A -> B, from
 *                           ibv_post_send until ibv_poll_cq returns its
 *                           completion (completion latency)
 * and, measured once (informative):
 *   scale_<N>_create_s      ibv_create_qp of the N idle QPs
 *   scale_<N>_modify_s      moving them to their idle state
 *   scale_<N>_destroy_s     ibv_destroy_qp of them
 *
 * The idle QPs are tiny (one send and one receive WR, one shared CQ) and,
 * by default, in RTS connected to themselves, so that the device holds
 * them as ready to send (-I: left in INIT); they never get any work.
 * The rate and latencies are the median of RUNS runs (-r, default 5) of
 * about 0.3 s each (-s: about 10 ms, a smoke test); the latencies of a
 * run are the median of its round trips (ib_write_lat's t_typical).
 * Output: "RESULT <metric> <value> <unit>" lines, the others start with
 * '#'.  Exit status 0, or 1 with a message on any error.
 *
 *   xv_scale [-d DEV] [-i PORT] [-g GIDIDX] [-n N] [-r RUNS] [-s] [-I]
 */
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include "bench.h"
#include "xt_verbs.h"

#define MSG_SIZE	64
#define BUF_SIZE	4096
#define DST_OFF		0		/* the peer writes here */
#define SRC_OFF		2048		/* we write from here */
#define BATCH		16		/* WRs per ibv_post_send */
#define TX_DEPTH	128		/* WRs in flight, at most */
#define CQ_MOD		64		/* every CQ_MOD-th WR signaled */
#define LAT_SIG		32		/* ping-pong: every LAT_SIG-th signaled */
#define CQ_SIZE		256
#define LAT_MAX_ITERS	200000
#define STUCK_SECS	5.0		/* no progress that long: an error */

/* one QP of the active pair and its memory */
struct side {
	const char *name;
	struct ibv_qp *qp;
	struct ibv_cq *cq;		/* its send and receive CQ */
	struct ibv_mr *mr;
	unsigned char *buf;		/* BUF_SIZE bytes */
	unsigned long posted;		/* WRs posted; wr_id = their number */
	unsigned long done;		/* WRs completed */
};

static const char *dev_name = "xnic0";
static unsigned int ib_port = 1;
static unsigned int gid_index;
static unsigned int nidle = 1;
static unsigned int runs = 5;
static double run_secs = 0.3;
static bool idle_init;

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_port_attr port_attr;
static union ibv_gid gid;

/* ------------------------------------------------------------ setup */

static void open_device(void)
{
	struct ibv_device_attr da;
	int err;

	ctx = xt_open_device(dev_name, NULL, 0);
	if (!ctx)
		die("opening the device", 0);
	err = ibv_query_device(ctx, &da);
	if (err)
		die("ibv_query_device", err);
	if ((unsigned long)nidle + 2 > (unsigned long)da.max_qp) {
		fprintf(stderr, "xv_scale: %u + 2 QPs, the device has max_qp %d\n",
			nidle, da.max_qp);
		exit(1);
	}
	err = ibv_query_port(ctx, ib_port, &port_attr);
	if (err)
		die("ibv_query_port", err);
	if (port_attr.state != IBV_PORT_ACTIVE)
		die("the port is not active", 0);
	err = ibv_query_gid(ctx, ib_port, gid_index, &gid);
	if (err)
		die("ibv_query_gid", err);
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		die("ibv_alloc_pd", errno);
	printf("# device %s port %u: max_qp %d, active_mtu %d, gid[%u] %016llx%016llx\n",
	       dev_name, ib_port, da.max_qp, 128 << port_attr.active_mtu,
	       gid_index,
	       (unsigned long long)be64toh(gid.global.subnet_prefix),
	       (unsigned long long)be64toh(gid.global.interface_id));
}

/* each QP maps its rings: that many mappings must be allowed */
static void check_map_count(void)
{
	unsigned long max = 0;
	FILE *f = fopen("/proc/sys/vm/max_map_count", "r");

	if (!f)
		return;
	if (fscanf(f, "%lu", &max) != 1)
		max = 0;
	fclose(f);
	if (max && (unsigned long)nidle + 1000 > max) {
		fprintf(stderr, "xv_scale: %u QPs need more mappings than vm.max_map_count %lu\n",
			nidle, max);
		exit(1);
	}
}

static struct ibv_qp *create_qp(struct ibv_cq *cq, unsigned int send_wr,
				unsigned int recv_wr)
{
	struct ibv_qp_init_attr a;
	struct ibv_qp *qp;

	memset(&a, 0, sizeof(a));
	a.send_cq = cq;
	a.recv_cq = cq;
	a.qp_type = IBV_QPT_RC;
	a.cap.max_send_wr = send_wr;
	a.cap.max_recv_wr = recv_wr;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = 1;
	qp = ibv_create_qp(pd, &a);
	if (qp && a.cap.max_send_wr < send_wr) {
		fprintf(stderr, "xv_scale: max_send_wr %u, not %u\n",
			a.cap.max_send_wr, send_wr);
		exit(1);
	}
	return qp;
}

static int qp_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = ib_port;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_READ;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

/* INIT -> RTR -> RTS, to QP @dqpn of this device */
static int qp_connect(struct ibv_qp *qp, uint32_t dqpn)
{
	const struct xt_rc_opts o = {
		.timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
		.port = (uint8_t)ib_port, .sgid_index = (uint8_t)gid_index,
	};

	return xt_rc_rts(qp, dqpn, &gid, port_attr.active_mtu, &o);
}

static void side_up(struct side *s, const char *name)
{
	int err;

	s->name = name;
	s->cq = ibv_create_cq(ctx, CQ_SIZE, NULL, NULL, 0);
	if (!s->cq)
		die("ibv_create_cq", errno);
	s->qp = create_qp(s->cq, TX_DEPTH, 1);
	if (!s->qp)
		die("ibv_create_qp (active pair)", errno);
	s->buf = aligned_alloc(BUF_SIZE, BUF_SIZE);
	if (!s->buf)
		die("aligned_alloc", ENOMEM);
	memset(s->buf, 0, BUF_SIZE);
	s->mr = ibv_reg_mr(pd, s->buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!s->mr)
		die("ibv_reg_mr", errno);
	err = qp_init(s->qp);
	if (err)
		die("ibv_modify_qp INIT (active pair)", err);
}

static void side_down(struct side *s)
{
	int err;

	err = ibv_destroy_qp(s->qp);
	if (err)
		die("ibv_destroy_qp (active pair)", err);
	err = ibv_dereg_mr(s->mr);
	if (err)
		die("ibv_dereg_mr", err);
	err = ibv_destroy_cq(s->cq);
	if (err)
		die("ibv_destroy_cq", err);
	free(s->buf);
}

/* ------------------------------------------------------------ data path */

/*
 * Poll the CQ of @s until @until WRs are completed; at least once, so
 * with @until <= s->done it takes what is there without waiting.
 */
static void reap(struct side *s, unsigned long until)
{
	struct ibv_wc wc[16];
	double t0 = 0;
	int i, n;

	for (;;) {
		n = ibv_poll_cq(s->cq, ARRAY_SIZE(wc), wc);
		if (n < 0) {
			fprintf(stderr, "xv_scale: %s: ibv_poll_cq: %d\n",
				s->name, n);
			exit(1);
		}
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				fprintf(stderr, "xv_scale: %s: WR %llu: %s\n",
					s->name,
					(unsigned long long)wc[i].wr_id,
					ibv_wc_status_str(wc[i].status));
				exit(1);
			}
			if (wc[i].opcode != IBV_WC_RDMA_WRITE)
				die("a completion of another opcode", 0);
			s->done = wc[i].wr_id + 1;
		}
		if (s->done >= until)
			return;
		if (n) {
			t0 = 0;
		} else if (!t0) {
			t0 = now();
		} else if (now() - t0 > STUCK_SECS) {
			fprintf(stderr, "xv_scale: %s: no completion in %g s (%lu of %lu done)\n",
				s->name, STUCK_SECS, s->done, s->posted);
			exit(1);
		}
	}
}

/* the WR writing MSG_SIZE bytes of @s's source to @d's destination */
static void write_wr(struct ibv_send_wr *wr, struct ibv_sge *sge,
		     const struct side *s, const struct side *d)
{
	memset(wr, 0, sizeof(*wr));
	sge->addr = (uintptr_t)(s->buf + SRC_OFF);
	sge->length = MSG_SIZE;
	sge->lkey = s->mr->lkey;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = IBV_WR_RDMA_WRITE;
	wr->wr.rdma.remote_addr = (uintptr_t)(d->buf + DST_OFF);
	wr->wr.rdma.rkey = d->mr->rkey;
}

static void post(struct side *s, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad = NULL;
	int err = ibv_post_send(s->qp, wr, &bad);

	if (err)
		die("ibv_post_send", err);
}

/* one run of the message rate: 10^6 WRITEs A -> B per second */
static double msgrate_run(struct side *a, struct side *b, double secs)
{
	struct ibv_send_wr wr[BATCH];
	struct ibv_sge sge[BATCH];
	unsigned long start = a->posted;
	bool stop = false;
	double t0, t;
	unsigned int i;

	for (i = 0; i < BATCH; i++) {
		write_wr(&wr[i], &sge[i], a, b);
		wr[i].next = i + 1 < BATCH ? &wr[i + 1] : NULL;
	}
	t0 = now();
	for (;;) {
		while (!stop && a->posted - a->done + BATCH <= TX_DEPTH) {
			for (i = 0; i < BATCH; i++) {
				wr[i].wr_id = a->posted + i;
				wr[i].send_flags = (a->posted + i) % CQ_MOD ==
						   CQ_MOD - 1 ?
						   IBV_SEND_SIGNALED : 0;
			}
			post(a, wr);
			a->posted += BATCH;
		}
		/* posting leaves WRs in flight: all done only once stopped */
		if (a->done == a->posted)
			break;
		/* wait for the next signaled WR */
		reap(a, a->done + 1);
		/* stop after a signaled WR: everything posted completes */
		if (!stop && now() - t0 >= secs && a->posted % CQ_MOD == 0)
			stop = true;
	}
	t = now() - t0;
	return (double)(a->posted - start) / t / 1e6;
}

/* the byte at @p becomes @val (the peer's write landed) */
static void wait_byte(const unsigned char *p, unsigned char val)
{
	unsigned long spins = 0;
	double t0 = 0;

	while (__atomic_load_n(p, __ATOMIC_ACQUIRE) != val) {
		__builtin_ia32_pause();
		if (++spins % 16384)
			continue;
		if (!t0) {
			t0 = now();
		} else if (now() - t0 > STUCK_SECS) {
			fprintf(stderr, "xv_scale: the write did not land in %g s\n",
				STUCK_SECS);
			exit(1);
		}
	}
}

/* post @wr on @s, its WR number as wr_id, every LAT_SIG-th signaled */
static void post_one(struct side *s, struct ibv_send_wr *wr)
{
	if (s->posted - s->done >= TX_DEPTH)
		reap(s, s->posted - TX_DEPTH + 1);
	wr->wr_id = s->posted;
	wr->send_flags = s->posted % LAT_SIG == LAT_SIG - 1 ?
			 IBV_SEND_SIGNALED : 0;
	post(s, wr);
	s->posted++;
}

/*
 * One run of the ping-pong, @iters round trips, each timed in @rtt[]:
 * A writes 64 bytes to B's buffer, their last byte the round's number;
 * B's side (this same thread) polls that byte, then writes back to A's
 * buffer, where the thread polls the last byte again.  One message is in
 * flight at a time, as with ib_write_lat's two processes.  Completions
 * (every LAT_SIG-th WR) are taken between the timed rounds.
 */
static void lat_run(struct side *a, struct side *b, unsigned int iters,
		    double *rtt)
{
	struct ibv_send_wr wa, wb;
	struct ibv_sge sa, sb;
	unsigned char val;
	unsigned int i;
	double t0;

	write_wr(&wa, &sa, a, b);
	write_wr(&wb, &sb, b, a);
	for (i = 0; i < iters; i++) {
		val = (unsigned char)(a->buf[DST_OFF + MSG_SIZE - 1] + 1);
		if (!val)
			val = 1;
		a->buf[SRC_OFF + MSG_SIZE - 1] = val;
		b->buf[SRC_OFF + MSG_SIZE - 1] = val;
		t0 = now();
		post_one(a, &wa);
		wait_byte(&b->buf[DST_OFF + MSG_SIZE - 1], val);
		post_one(b, &wb);
		wait_byte(&a->buf[DST_OFF + MSG_SIZE - 1], val);
		rtt[i] = now() - t0;
		reap(a, a->done);
		reap(b, b->done);
	}
}

/* one signaled WRITE A -> B, timed until ibv_poll_cq has its completion */
static void complat_run(struct side *a, struct side *b, unsigned int iters,
			double *lat)
{
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	unsigned int i;
	double t0;

	write_wr(&wr, &sge, a, b);
	wr.send_flags = IBV_SEND_SIGNALED;
	for (i = 0; i < iters; i++) {
		wr.wr_id = a->posted;
		t0 = now();
		post(a, &wr);
		a->posted++;
		reap(a, a->posted);
		lat[i] = now() - t0;
	}
}

/* round trips for a run of run_secs, from a warm-up */
static unsigned int lat_iters(struct side *a, struct side *b, double *buf,
			      bool complat)
{
	unsigned int n = run_secs < 0.1 ? 10 : 200;
	double t0 = now(), t, each;

	if (complat)
		complat_run(a, b, n, buf);
	else
		lat_run(a, b, n, buf);
	t = now() - t0;
	each = t / n;
	if (each <= 0)
		return LAT_MAX_ITERS;
	t = run_secs / each;
	if (t < 20)
		return 20;
	return t > LAT_MAX_ITERS ? LAT_MAX_ITERS : (unsigned int)t;
}

static void bench(struct side *a, struct side *b)
{
	double v[MAX_RUNS], *samples;
	unsigned int r, iters;
	char metric[64], prefix[32];

	snprintf(prefix, sizeof(prefix), "scale_%u_", nidle);
	/* warm-up */
	msgrate_run(a, b, run_secs / 5);
	for (r = 0; r < runs; r++)
		v[r] = msgrate_run(a, b, run_secs);
	print_runs(prefix, "msgrate_Mpps", v, runs);
	printf("RESULT scale_%u_msgrate_Mpps %.4f Mpps\n", nidle,
	       median(v, runs));

	samples = calloc(LAT_MAX_ITERS, sizeof(*samples));
	if (!samples)
		die("calloc", ENOMEM);
	iters = lat_iters(a, b, samples, false);
	printf("# scale_%u_lat_us: %u round trips per run\n", nidle, iters);
	for (r = 0; r < runs; r++) {
		lat_run(a, b, iters, samples);
		v[r] = median(samples, iters) * 1e6 / 2;
	}
	print_runs(prefix, "lat_us", v, runs);
	snprintf(metric, sizeof(metric), "scale_%u_lat_us", nidle);
	printf("RESULT %s %.3f us\n", metric, median(v, runs));

	/* the ping-pong's unsignaled tail: retired by the first WRITE here */
	iters = lat_iters(a, b, samples, true);
	printf("# scale_%u_complat_us: %u WRITEs per run\n", nidle, iters);
	for (r = 0; r < runs; r++) {
		complat_run(a, b, iters, samples);
		v[r] = median(samples, iters) * 1e6;
	}
	print_runs(prefix, "complat_us", v, runs);
	printf("RESULT scale_%u_complat_us %.3f us\n", nidle, median(v, runs));
	free(samples);
	/* B's last WRs may be unsignaled: one signaled WR retires them */
	if (b->done != b->posted) {
		struct ibv_send_wr wr;
		struct ibv_sge sge;

		write_wr(&wr, &sge, b, a);
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr_id = b->posted;
		post(b, &wr);
		b->posted++;
		reap(b, b->posted);
	}
}

/* ------------------------------------------------------------ main */

/*
 * For N >= 100: the cost of the first and the last tenth of a loop over
 * the idle QPs, in ms per QP (a cost growing with the QPs there shows)
 */
static void tenths(const char *what, const double *mark, double t0)
{
	unsigned int k = nidle / 10;

	if (nidle < 100)
		return;
	printf("# %s: %.3f ms/QP for the first %u QPs, %.3f ms/QP for the last %u\n",
	       what, (mark[0] - t0) * 1e3 / k, k,
	       (mark[2] - mark[1]) * 1e3 / k, k);
}

/* mark[0]: after the first tenth, [1]: before the last, [2]: the end */
static void tenth_mark(double *mark, unsigned int i)
{
	if (i + 1 == nidle / 10)
		mark[0] = now();
	if (i + 1 == nidle - nidle / 10)
		mark[1] = now();
	if (i + 1 == nidle)
		mark[2] = now();
}

static void bad_usage(void)
{
	fprintf(stderr,
		"usage: xv_scale [-d DEV] [-i PORT] [-g GIDIDX] [-n N] [-r RUNS] [-s] [-I]\n"
		"  -d DEV     device (default xnic0)\n"
		"  -i PORT    port (default 1)\n"
		"  -g GIDIDX  GID index of the active pair's path (default 0)\n"
		"  -n N       idle QPs to create (default 1)\n"
		"  -r RUNS    runs of each measurement, the median is reported (default 5)\n"
		"  -s         smoke test: very short runs\n"
		"  -I         leave the idle QPs in INIT (default: RTS, connected to themselves)\n");
	exit(2);
}

/* "xv_scale: @verb of idle QP i+1 of N: strerror(@err)", exit status 1 */
static void idle_die(const char *verb, unsigned int i, int err)
{
	fprintf(stderr, "xv_scale: %s of idle QP %u of %u: %s\n", verb, i + 1,
		nidle, strerror(err));
	exit(1);
}

/* the options of xv_scale's own */
static void scale_opt(int c, const char *arg)
{
	switch (c) {
	case 'd':
		dev_name = arg;
		break;
	case 'i':
		ib_port = bench_num(arg, 1, 255, bad_usage);
		break;
	case 'g':
		gid_index = bench_num(arg, 0, 255, bad_usage);
		break;
	case 'n':
		nidle = bench_num(arg, 0, 1U << 24, bad_usage);
		break;
	case 'I':
		idle_init = true;
		break;
	default:
		bad_usage();
	}
}

int main(int argc, char **argv)
{
	struct ibv_qp **idle;
	struct ibv_cq *idle_cq;
	struct side a = { 0 }, b = { 0 };
	double t0, mark[3] = { 0 };
	unsigned int i;
	int err;

	bench_args(argc, argv, "d:i:g:n:r:sIh", &runs, &run_secs, scale_opt,
		   bad_usage);
	check_map_count();
	open_device();
	printf("# %u idle RC QPs (1 send WR, 1 recv WR, one shared CQ) in %s\n",
	       nidle, idle_init ? "INIT" : "RTS, each connected to itself");
	printf("# active pair: RC loopback through gid[%u], RDMA WRITE %d B\n",
	       gid_index, MSG_SIZE);
	printf("# %u run(s) of ~%g s per measurement; msgrate: %d WRs per post,\n",
	       runs, run_secs, BATCH);
	printf("# every %dth signaled, at most %d in flight\n", CQ_MOD, TX_DEPTH);

	idle_cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!idle_cq)
		die("ibv_create_cq", errno);
	idle = calloc(nidle ? nidle : 1, sizeof(*idle));
	if (!idle)
		die("calloc", ENOMEM);
	t0 = now();
	for (i = 0; i < nidle; i++) {
		idle[i] = create_qp(idle_cq, 1, 1);
		if (!idle[i])
			idle_die("ibv_create_qp", i, errno);
		tenth_mark(mark, i);
	}
	printf("RESULT scale_%u_create_s %.4f s\n", nidle, now() - t0);
	tenths("ibv_create_qp", mark, t0);
	t0 = now();
	for (i = 0; i < nidle; i++) {
		err = qp_init(idle[i]);
		if (!err && !idle_init)
			err = qp_connect(idle[i], idle[i]->qp_num);
		if (err)
			idle_die("ibv_modify_qp", i, err);
	}
	printf("RESULT scale_%u_modify_s %.4f s\n", nidle, now() - t0);

	side_up(&a, "A");
	side_up(&b, "B");
	err = qp_connect(a.qp, b.qp->qp_num);
	if (!err)
		err = qp_connect(b.qp, a.qp->qp_num);
	if (err)
		die("ibv_modify_qp RTR/RTS (active pair)", err);
	printf("# active pair: QPs %u <-> %u\n", a.qp->qp_num, b.qp->qp_num);

	bench(&a, &b);

	side_down(&a);
	side_down(&b);
	t0 = now();
	for (i = 0; i < nidle; i++) {
		err = ibv_destroy_qp(idle[i]);
		if (err)
			idle_die("ibv_destroy_qp", i, err);
		tenth_mark(mark, i);
	}
	printf("RESULT scale_%u_destroy_s %.4f s\n", nidle, now() - t0);
	tenths("ibv_destroy_qp", mark, t0);
	free(idle);
	err = ibv_destroy_cq(idle_cq);
	if (err)
		die("ibv_destroy_cq", err);
	err = ibv_dealloc_pd(pd);
	if (err)
		die("ibv_dealloc_pd", err);
	err = ibv_close_device(ctx);
	if (err)
		die("ibv_close_device", errno);
	return 0;
}
