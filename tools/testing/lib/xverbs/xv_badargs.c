// SPDX-License-Identifier: GPL-2.0
/*
 * xv_badargs: every library call that fills a caller's array or structure,
 * with bad or edge arguments, as rdma-core v44 answers them (issue 15).
 * Table driven: one case per call.  Built with -fsanitize=address and run
 * against the ASan build of tools/lib/xverbs (asan/libibverbs.so.1) by
 * tools/testing/lib/xverbs/xverbs_badargs.sh, so a write past a caller's
 * buffer is an ASan report and a failed test even where no sentinel sees
 * it; every buffer is malloc()ed at its exact size, and where a call must
 * not write a buffer, a sentinel pattern in it is checked as well.
 *
 *   xv_badargs -d xnic0 [-c CASE]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <infiniband/verbs.h>
#include "xt.h"
#include "xt_verbs.h"

#define SENT	0xa5

static struct ibv_context *ctx;

/* @n bytes of malloc()ed memory filled with SENT (n 0: a 0-byte block) */
static void *sent_alloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		xt_bail(ENOMEM, "malloc %zu", n);
	memset(p, SENT, n);
	return p;
}

/* the valid GIDs of every port (as ibv_query_gid_ex sees them) */
static size_t count_gids(void)
{
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	struct ibv_gid_entry e;
	size_t n = 0;
	int p, i;

	if (ibv_query_device(ctx, &da))
		xt_bail(errno, "ibv_query_device");
	for (p = 1; p <= da.phys_port_cnt; p++) {
		if (ibv_query_port(ctx, (uint8_t)p, &pa))
			xt_bail(errno, "ibv_query_port %d", p);
		for (i = 0; i < pa.gid_tbl_len; i++)
			if (!ibv_query_gid_ex(ctx, (uint32_t)p, (uint32_t)i,
					      &e, 0))
				n++;
	}
	return n;
}

/* defect 1: never a write at entries[max_entries] or beyond */
static void case_gid_table(void)
{
	size_t n = count_gids(), max, es = sizeof(struct ibv_gid_entry);
	struct ibv_gid_entry *t;
	ssize_t r;

	if (!CHECK(n > 0, "gid_table: the port has a valid GID"))
		return;
	xt_note("gid_table: %zu valid GIDs", n);
	for (max = 0; max < n; max++) {
		/* exact size: ASan catches a write past it */
		t = sent_alloc(max * es);
		r = _ibv_query_gid_table(ctx, t, max, 0, es);
		CHECK_RC(r, -EINVAL, "gid_table: max_entries %zu of %zu", max,
			 n);
		free(t);
		/* one spare entry: the sentinel catches it without ASan */
		t = sent_alloc((max + 1) * es);
		r = _ibv_query_gid_table(ctx, t, max, 0, es);
		CHECK(xt_all_bytes(&t[max], es, SENT),
		      "gid_table: max_entries %zu: entry %zu untouched", max,
		      max);
		free(t);
	}
	t = sent_alloc(n * es);
	CHECK_EQ(ibv_query_gid_table(ctx, t, n, 0), n,
		 "gid_table: max_entries = the valid GIDs");
	free(t);
	t = sent_alloc((n + 2) * es);
	CHECK_EQ(ibv_query_gid_table(ctx, t, n + 2, 0), n,
		 "gid_table: max_entries above the valid GIDs");
	CHECK(xt_all_bytes(&t[n], 2 * es, SENT),
	      "gid_table: the entries beyond the valid ones untouched");
	free(t);
	/* a larger entry_size: strided, the tail of each entry untouched */
	t = sent_alloc(n * (es + 16));
	CHECK_EQ(_ibv_query_gid_table(ctx, t, n, 0, es + 16), n,
		 "gid_table: entry_size + 16");
	free(t);
	t = sent_alloc(n * es);
	CHECK_RC(_ibv_query_gid_table(ctx, t, n, 0, es - 1), -EINVAL,
		 "gid_table: entry_size too small");
	CHECK(xt_all_bytes(t, n * es, SENT),
	      "gid_table: entry_size too small: nothing written");
	CHECK_RC(_ibv_query_gid_table(ctx, t, n, 1, es), -EINVAL,
		 "gid_table: flags 1");
	CHECK(xt_all_bytes(t, n * es, SENT),
	      "gid_table: flags 1: nothing written");
	free(t);
}

/* GID and P_Key indexes out of range: an error, the output untouched */
static void case_gid_pkey_index(void)
{
	struct ibv_port_attr pa;
	struct ibv_gid_entry *e;
	union ibv_gid *g;
	__be16 *pk;
	int bad[3], i;

	if (ibv_query_port(ctx, XT_PORT, &pa))
		xt_bail(errno, "ibv_query_port");
	bad[0] = -1;
	bad[1] = pa.gid_tbl_len;
	bad[2] = 1 << 20;
	for (i = 0; i < 3; i++) {
		g = sent_alloc(sizeof(*g));
		errno = 0;
		CHECK_RC(ibv_query_gid(ctx, XT_PORT, bad[i], g) ? -errno : 0,
			 -EINVAL, "ibv_query_gid index %d", bad[i]);
		CHECK(xt_all_bytes(g, sizeof(*g), SENT),
		      "ibv_query_gid index %d: nothing written", bad[i]);
		free(g);
		if (bad[i] >= 0) {
			e = sent_alloc(sizeof(*e));
			CHECK_RC(-ibv_query_gid_ex(ctx, XT_PORT,
						   (uint32_t)bad[i], e, 0),
				 -EINVAL, "ibv_query_gid_ex index %d", bad[i]);
			CHECK(xt_all_bytes(e, sizeof(*e), SENT),
			      "ibv_query_gid_ex index %d: nothing written",
			      bad[i]);
			free(e);
		}
	}
	bad[1] = pa.pkey_tbl_len;
	for (i = 0; i < 3; i++) {
		pk = sent_alloc(sizeof(*pk));
		errno = 0;
		CHECK_RC(ibv_query_pkey(ctx, XT_PORT, bad[i], pk) ? -errno : 0,
			 -EINVAL, "ibv_query_pkey index %d", bad[i]);
		CHECK(xt_all_bytes(pk, sizeof(*pk), SENT),
		      "ibv_query_pkey index %d: nothing written", bad[i]);
		free(pk);
	}
	g = sent_alloc(sizeof(*g));
	CHECK_RC(ibv_query_gid(ctx, 0, 0, g) ? -errno : 0, -EINVAL,
		 "ibv_query_gid port 0");
	CHECK_RC(ibv_query_gid(ctx, 2, 0, g) ? -errno : 0, -EINVAL,
		 "ibv_query_gid port 2");
	CHECK(xt_all_bytes(g, sizeof(*g), SENT),
	      "ibv_query_gid bad ports: nothing written");
	free(g);
}

/* ibv_query_port: the old ABI's structure is shorter; bad ports */
static void case_query_port(void)
{
	size_t old = offsetof(struct ibv_port_attr, port_cap_flags2);
	struct ibv_port_attr *pa;
	void *p;

	/* the exported symbol old binaries call: up to port_cap_flags2 */
	p = sent_alloc(old);
	CHECK_RC(-(ibv_query_port)(ctx, XT_PORT, p), 0,
		 "compat ibv_query_port into %zu bytes", old);
	free(p);
	pa = sent_alloc(sizeof(*pa));
	CHECK(ibv_query_port(ctx, 0, pa) != 0, "ibv_query_port port 0 fails");
	CHECK(ibv_query_port(ctx, 2, pa) != 0, "ibv_query_port port 2 fails");
	CHECK(xt_all_bytes(pa, sizeof(*pa), SENT),
	      "ibv_query_port bad ports: nothing written");
	CHECK_RC(-ibv_query_port(ctx, XT_PORT, pa), 0, "ibv_query_port");
	free(pa);
}

/* defect 2: ibv_device_attr_ex as the device really is; its size */
static void case_device_ex(void)
{
	struct verbs_context *v = verbs_get_ctx(ctx);
	struct ibv_query_device_ex_input in = { .comp_mask = 1 };
	size_t small = sizeof(struct ibv_device_attr);
	struct ibv_device_attr_ex *a;
	void *p;

	a = sent_alloc(sizeof(*a));
	CHECK_RC(-ibv_query_device_ex(ctx, &in, a), -EINVAL,
		 "query_device_ex: input comp_mask 1");
	CHECK_RC(-ibv_query_device_ex(ctx, NULL, a), 0, "query_device_ex");
	CHECK_EQ(a->phys_port_cnt_ex, a->orig_attr.phys_port_cnt,
		 "query_device_ex: phys_port_cnt_ex");
	CHECK_EQ(a->device_cap_flags_ex & 0xffffffffULL,
		 a->orig_attr.device_cap_flags,
		 "query_device_ex: device_cap_flags_ex has device_cap_flags");
	/* IBTA 1.5: FLUSH_GLOBAL (38), FLUSH_PERSISTENT (39), ATOMIC_WRITE (40) */
	CHECK_EQ(a->device_cap_flags_ex >> 32, 0x1c0,
		 "query_device_ex: the extended capability flags are IBTA 1.5's three");
	/* reported, so it must work: the whole of it in one allocation */
	if (CHECK(a->max_dm_size > 0, "query_device_ex: max_dm_size reported")) {
		struct ibv_alloc_dm_attr da = { .length = a->max_dm_size };
		struct ibv_dm *dm = ibv_alloc_dm(ctx, &da);

		CHECK(dm, "query_device_ex: ibv_alloc_dm of max_dm_size");
		if (dm)
			ibv_free_dm(dm);
	}
	CHECK(xt_all_bytes(&a->odp_caps, sizeof(a->odp_caps), 0),
	      "query_device_ex: odp_caps absent");
	CHECK_EQ(a->xrc_odp_caps, 0, "query_device_ex: xrc_odp_caps");
	CHECK(xt_all_bytes(&a->tm_caps, sizeof(a->tm_caps), 0),
	      "query_device_ex: tm_caps absent");
	CHECK(xt_all_bytes(&a->cq_mod_caps, sizeof(a->cq_mod_caps), 0),
	      "query_device_ex: cq_mod_caps absent");
	CHECK(xt_all_bytes(&a->pci_atomic_caps, sizeof(a->pci_atomic_caps),
			   0), "query_device_ex: pci_atomic_caps absent");
	CHECK_EQ(a->raw_packet_caps, 0, "query_device_ex: raw_packet_caps");
	CHECK(xt_all_bytes(&a->tso_caps, sizeof(a->tso_caps), 0) &&
	      xt_all_bytes(&a->rss_caps, sizeof(a->rss_caps), 0) &&
	      a->max_wq_type_rq == 0,
	      "query_device_ex: tso, rss, wq absent");
	/* timestamps: a clock that runs at hca_core_clock kHz, mask set */
	CHECK(a->completion_timestamp_mask && a->hca_core_clock,
	      "query_device_ex: completion_timestamp_mask %#llx, hca_core_clock %llu kHz",
	      (unsigned long long)a->completion_timestamp_mask,
	      (unsigned long long)a->hca_core_clock);
	free(a);
	/* the provider's op with a smaller caller structure (old binaries) */
	p = sent_alloc(small);
	CHECK_RC(-v->query_device_ex(ctx, NULL, p, small), 0,
		 "query_device_ex op, size of ibv_device_attr");
	free(p);
	p = sent_alloc(small + 12);
	CHECK_RC(-v->query_device_ex(ctx, NULL, p, small + 12), 0,
		 "query_device_ex op, size inside comp_mask");
	free(p);
	p = sent_alloc(small - 1);
	CHECK_RC(-v->query_device_ex(ctx, NULL, p, small - 1), -EINVAL,
		 "query_device_ex op, size below ibv_device_attr");
	CHECK(xt_all_bytes(p, small - 1, SENT),
	      "query_device_ex op, size too small: nothing written");
	free(p);
}

static uint64_t raw_now(struct ibv_values_ex *v)
{
	v->comp_mask = IBV_VALUES_MASK_RAW_CLOCK;
	if (ibv_query_rt_values_ex(ctx, v))
		xt_bail(errno, "ibv_query_rt_values_ex");
	return (uint64_t)v->raw_clock.tv_sec * 1000000000ULL +
	       (uint64_t)v->raw_clock.tv_nsec;
}

/*
 * A completion's timestamp is on the clock RAW_CLOCK reads: a flush
 * completion made between two reads carries a time between them.
 */
static void case_rt_cqe(struct ibv_values_ex *v, uint64_t mask)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 4, .wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP,
	};
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };
	struct ibv_recv_wr wr = { .wr_id = 5 }, *bad;
	struct ibv_poll_cq_attr pa = { 0 };
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	uint64_t t0, t1, ts = 0;
	struct ibv_cq_ex *cq;
	struct ibv_qp *qp;
	int i, ret = ENOENT;

	if (!pd)
		xt_bail(errno, "ibv_alloc_pd");
	cq = ibv_create_cq_ex(ctx, &ca);
	if (!cq)
		xt_bail(errno, "ibv_create_cq_ex with timestamps");
	qa.send_cq = ibv_cq_ex_to_cq(cq);
	qa.recv_cq = qa.send_cq;
	qp = ibv_create_qp(pd, &qa);
	if (!qp || xt_qp_init(qp, 0) || ibv_post_recv(qp, &wr, &bad))
		xt_bail(errno, "an RC QP with a receive");
	t0 = raw_now(v);
	if (ibv_modify_qp(qp, &err, IBV_QP_STATE))
		xt_bail(errno, "QP to ERR");
	for (i = 0; i < 1000 && ret == ENOENT; i++) {
		ret = ibv_start_poll(cq, &pa);
		if (ret == ENOENT)
			usleep(1000);
	}
	if (CHECK_RC(-ret, 0, "rt_values: the flush completion")) {
		ts = ibv_wc_read_completion_ts(cq);
		ibv_end_poll(cq);
	}
	t1 = raw_now(v);
	if (!ret)
		CHECK(((ts - t0) & mask) <= ((t1 - t0) & mask),
		      "rt_values: CQE timestamp %llu between RAW_CLOCK %llu and %llu",
		      (unsigned long long)ts, (unsigned long long)t0,
		      (unsigned long long)t1);
	ibv_destroy_qp(qp);
	ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	ibv_dealloc_pd(pd);
}

/* defect 5: the device clock, so that a timestamp converts to time */
static void case_rt_values(void)
{
	struct ibv_device_attr_ex da;
	struct ibv_values_ex *v;
	uint64_t t0, t1, mask, khz;
	struct timespec s0, s1;
	long long dev_ns, host_ns;

	if (ibv_query_device_ex(ctx, NULL, &da))
		xt_bail(errno, "ibv_query_device_ex");
	mask = da.completion_timestamp_mask;
	khz = da.hca_core_clock;
	v = sent_alloc(sizeof(*v));
	v->comp_mask = IBV_VALUES_MASK_RESERVED;
	CHECK_RC(-ibv_query_rt_values_ex(ctx, v), -EINVAL,
		 "rt_values: comp_mask RESERVED");
	v->comp_mask = 0;
	CHECK_RC(-ibv_query_rt_values_ex(ctx, v), 0, "rt_values: comp_mask 0");
	CHECK_EQ(v->comp_mask, 0, "rt_values: comp_mask 0 stays 0");
	v->comp_mask = IBV_VALUES_MASK_RAW_CLOCK;
	clock_gettime(CLOCK_MONOTONIC, &s0);
	if (!CHECK_RC(-ibv_query_rt_values_ex(ctx, v), 0,
		      "rt_values: RAW_CLOCK"))
		goto out;
	CHECK_EQ(v->comp_mask, IBV_VALUES_MASK_RAW_CLOCK,
		 "rt_values: RAW_CLOCK answered");
	t0 = (uint64_t)v->raw_clock.tv_sec * 1000000000ULL +
	     (uint64_t)v->raw_clock.tv_nsec;
	usleep(200000);
	v->comp_mask = IBV_VALUES_MASK_RAW_CLOCK;
	CHECK_RC(-ibv_query_rt_values_ex(ctx, v), 0, "rt_values: again");
	clock_gettime(CLOCK_MONOTONIC, &s1);
	t1 = (uint64_t)v->raw_clock.tv_sec * 1000000000ULL +
	     (uint64_t)v->raw_clock.tv_nsec;
	CHECK(t0 <= mask && t1 <= mask,
	      "rt_values: raw clock within completion_timestamp_mask");
	if (!khz)
		goto out;
	/* cycles at hca_core_clock kHz -> ns: within the host's interval */
	dev_ns = (long long)(((t1 - t0) & mask) * 1000000ULL / khz);
	host_ns = (s1.tv_sec - s0.tv_sec) * 1000000000LL +
		  (s1.tv_nsec - s0.tv_nsec);
	CHECK(dev_ns >= 200000000LL && dev_ns <= host_ns + 1000000LL,
	      "rt_values: device clock %lld ns over a %lld ns interval (slept 200 ms)",
	      dev_ns, host_ns);
	case_rt_cqe(v, mask);
out:
	free(v);
}

/* a CQ holding one flush completion of a receive, and its QP */
static void case_poll_cq(void)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };
	struct ibv_recv_wr wr = { .wr_id = 77 }, *bad;
	struct ibv_qp_init_attr *ia;
	struct ibv_qp_attr *qattr;
	struct ibv_ece *ece;
	struct ibv_wc *wc;
	struct xt_ep ep;
	struct ibv_qp_cap cap = {
		.max_send_wr = 4, .max_recv_wr = 4,
		.max_send_sge = 1, .max_recv_sge = 1,
	};
	int state;

	if (!pd)
		xt_bail(errno, "ibv_alloc_pd");
	if (!xt_ep_new(&ep, pd, IBV_QPT_RC, 8, &cap))
		xt_bail(0, "a CQ and an RC QP");
	if (xt_qp_init(ep.qp, 0) || ibv_post_recv(ep.qp, &wr, &bad) ||
	    ibv_modify_qp(ep.qp, &qa, IBV_QP_STATE))
		xt_bail(errno, "INIT, a receive, ERR");
	usleep(100000);
	wc = sent_alloc(sizeof(*wc));
	CHECK_RC(ibv_poll_cq(ep.cq, 0, wc), 0, "poll_cq num_entries 0");
	CHECK_RC(ibv_poll_cq(ep.cq, -1, wc), 0, "poll_cq num_entries -1");
	CHECK_RC(ibv_poll_cq(ep.cq, -100, wc), 0, "poll_cq num_entries -100");
	CHECK(xt_all_bytes(wc, sizeof(*wc), SENT),
	      "poll_cq num_entries <= 0: nothing written");
	CHECK_RC(ibv_poll_cq(ep.cq, 1, wc), 1,
		 "poll_cq then finds the flush completion");
	CHECK(wc->wr_id == 77 && wc->status == IBV_WC_WR_FLUSH_ERR,
	      "poll_cq: the receive flushed (wr_id %llu status %d)",
	      (unsigned long long)wc->wr_id, wc->status);
	free(wc);

	/* ibv_query_qp with a partial mask: exact-size structures */
	qattr = sent_alloc(sizeof(*qattr));
	ia = sent_alloc(sizeof(*ia));
	state = (int)ep.qp->state;
	CHECK_RC(-ibv_query_qp(ep.qp, qattr, IBV_QP_CAP, ia), 0,
		 "query_qp IBV_QP_CAP");
	CHECK_EQ(ep.qp->state, state,
		 "query_qp without IBV_QP_STATE leaves qp->state");
	CHECK_RC(-ibv_query_qp(ep.qp, qattr, IBV_QP_STATE, NULL), 0,
		 "query_qp IBV_QP_STATE, no init_attr");
	CHECK_EQ(qattr->qp_state, IBV_QPS_ERR, "query_qp: state ERR");
	free(qattr);
	free(ia);
	/* ECE: not supported (rdma-core's default op), nothing written */
	ece = sent_alloc(sizeof(*ece));
	CHECK_RC(-ibv_query_ece(ep.qp, ece), -EOPNOTSUPP, "query_ece");
	CHECK(xt_all_bytes(ece, sizeof(*ece), SENT),
	      "query_ece: nothing written");
	free(ece);
	ibv_destroy_qp(ep.qp);
	ibv_destroy_cq(ep.cq);
	ibv_dealloc_pd(pd);
}

/* an SRQ's attributes into an exact-size structure */
static void case_query_srq(void)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_srq_init_attr ia = {
		.attr = { .max_wr = 8, .max_sge = 1, .srq_limit = 0 },
	};
	struct ibv_srq_attr *a;
	struct ibv_srq *srq;

	if (!pd)
		xt_bail(errno, "ibv_alloc_pd");
	srq = ibv_create_srq(pd, &ia);
	if (!srq)
		xt_bail(errno, "ibv_create_srq");
	a = sent_alloc(sizeof(*a));
	CHECK_RC(-ibv_query_srq(srq, a), 0, "query_srq");
	CHECK(a->max_wr >= 8 && a->max_sge >= 1 && a->srq_limit == 0,
	      "query_srq: max_wr %u max_sge %u srq_limit %u", a->max_wr,
	      a->max_sge, a->srq_limit);
	free(a);
	ibv_destroy_srq(srq);
	ibv_dealloc_pd(pd);
}

/* ibv_get_device_list: num_devices, and NULL for it */
static void case_device_list(void)
{
	struct ibv_device **l;
	int *n = sent_alloc(sizeof(*n)), i;

	l = ibv_get_device_list(n);
	if (!CHECK(l, "get_device_list"))
		goto out;
	for (i = 0; l[i]; i++)
		;
	CHECK_EQ(*n, i, "get_device_list: num_devices = the list's length");
	ibv_free_device_list(l);
	l = ibv_get_device_list(NULL);
	CHECK(l, "get_device_list(NULL)");
	if (l)
		ibv_free_device_list(l);
out:
	free(n);
}

static const struct {
	const char *name;
	void (*fn)(void);
} cases[] = {
	{ "gid_table", case_gid_table },
	{ "gid_pkey_index", case_gid_pkey_index },
	{ "query_port", case_query_port },
	{ "device_ex", case_device_ex },
	{ "rt_values", case_rt_values },
	{ "poll_cq", case_poll_cq },
	{ "query_srq", case_query_srq },
	{ "device_list", case_device_list },
};

int main(int argc, char **argv)
{
	const char *dev = "xnic0", *only = NULL;
	size_t i;
	int opt;

	while ((opt = getopt(argc, argv, "d:c:")) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 'c':
			only = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-d DEV] [-c CASE]\n",
				argv[0]);
			return 2;
		}
	}
	xt_init("xv_badargs", NULL);
	xt_show_library();
	ctx = xt_open_device(dev, NULL, 0);
	if (!ctx)
		xt_bail(0, "open %s", dev);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		if (only && strcmp(only, cases[i].name))
			continue;
		xt_note("case %s", cases[i].name);
		cases[i].fn();
	}
	ibv_close_device(ctx);
	return xt_done();
}
