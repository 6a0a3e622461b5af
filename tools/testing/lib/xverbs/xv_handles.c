// SPDX-License-Identifier: GPL-2.0
/*
 * xv_handles: QUERY_OBJECT (ibv_import_pd, ibv_import_mr) on a context
 * holding as many handles as it may get.
 *
 * An MR's QUERY_OBJECT answers its PD's handle, found by a walk of the
 * context's handles; the walk once held the handles' spinlock (preemption
 * off) for all of them.  It now drops the lock every 256 handles.  This
 * program fills a context with PDs (-n at most, or until ibv_alloc_pd
 * fails: the per-user share or the device's limit), registers MRs on the
 * first PD, a PD in the middle and the last one (whose handle is found
 * last), imports the context (a dup of its fd) and checks:
 *   - ibv_import_mr through the right imported PD succeeds, -r times
 *     each, with the MR's keys, address and length;
 *   - through a wrong PD it fails with EINVAL (the walk found the right
 *     PD, not just any);
 *   - the PDs and MRs are released afterwards.
 * The guest test (tools/testing/lib/xverbs/xverbs_handles.sh) runs it in the
 * debug guest too, where a soft lockup or a lockdep report fails it.
 *
 * Usage: xv_handles [-d IBDEV] [-n MAX_PDS] [-r REPEAT] [-w SECONDS]
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "xt_verbs.h"

#define USAGE "usage: xv_handles [-d IBDEV] [-n MAX_PDS] [-r REPEAT] [-w SECONDS]"

static void on_alarm(int sig)
{
	(void)sig;
	xt_watchdog_expired("xv_handles: watchdog expired");
}

static void import_check(struct ibv_context *ctx2, struct ibv_pd *pd,
			 struct ibv_pd *wrong, struct ibv_mr *mr,
			 const char *what, int repeat)
{
	struct ibv_pd *p2, *w2;
	struct ibv_mr *m2;
	int i, ok = 0;

	p2 = ibv_import_pd(ctx2, pd->handle);
	if (!xt_ok(!!p2, strerror(errno),
		   "%s: ibv_import_pd(handle %u)", what, pd->handle))
		return;
	for (i = 0; i < repeat; i++) {
		m2 = ibv_import_mr(p2, mr->handle);
		if (!m2) {
			xt_fail(strerror(errno), "%s: ibv_import_mr #%d",
				what, i);
			break;
		}
		if (m2->lkey == mr->lkey && m2->rkey == mr->rkey &&
		    m2->addr == mr->addr && m2->length == mr->length &&
		    m2->handle == mr->handle)
			ok++;
		ibv_unimport_mr(m2);
	}
	xt_eq(ok, repeat, "%s: ibv_import_mr through its PD, %d times, keys, address and length",
	      what, repeat);
	w2 = ibv_import_pd(ctx2, wrong->handle);
	if (w2) {
		m2 = ibv_import_mr(w2, mr->handle);
		xt_ok(!m2 && errno == EINVAL, m2 ? "imported" : strerror(errno),
		      "%s: ibv_import_mr through another PD: EINVAL", what);
		if (m2)
			ibv_unimport_mr(m2);
		ibv_unimport_pd(w2);
	}
	ibv_unimport_pd(p2);
}

int main(int argc, char **argv)
{
	const char *dev_name = "xnic0";
	unsigned int wd = 300;
	int wait_ms = 10000, max = 1 << 17, repeat = 20, n, c, fd;
	struct ibv_context *ctx, *ctx2;
	struct ibv_pd **pds;
	struct ibv_mr *mr[3];
	struct ibv_pd *owner[3];
	static char buf[3][4096];
	uint64_t t0;

	while ((c = getopt(argc, argv, "d:t:w:n:r:")) != -1) {
		if (c == 'n') {
			max = atoi(optarg);
		} else if (c == 'r') {
			repeat = atoi(optarg);
		} else if (!xt_verbs_opt(c, optarg, &dev_name, &wait_ms,
					 &wd)) {
			fprintf(stderr, "%s\n", USAGE);
			return 2;
		}
	}
	if (max < 3 || repeat < 1)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, on_alarm);
	alarm(wd);
	xt_init("xv_handles", NULL);
	xt_note("runs as uid %u", getuid());
	ctx = xt_open_device(dev_name, NULL, 0);
	pds = calloc(max, sizeof(*pds));
	if (!ctx || !pds)
		xt_bail(errno, "open %s", dev_name);

	t0 = xt_now_ms();
	for (n = 0; n < max; n++) {
		pds[n] = ibv_alloc_pd(ctx);
		if (!pds[n])
			break;
	}
	xt_note("%d PDs in %llu ms (%s)", n,
		(unsigned long long)(xt_now_ms() - t0),
		n < max ? strerror(errno) : "the -n limit");
	if (!xt_ok(n >= 1000, NULL, "at least 1000 PDs in one context"))
		xt_bail(0, "too few handles");
	owner[0] = pds[0];
	owner[1] = pds[n / 2];
	owner[2] = pds[n - 1];
	/* the MRs take handles too: give them back a PD's */
	ibv_dealloc_pd(pds[n - 2]);
	pds[n - 2] = NULL;
	for (c = 0; c < 3; c++) {
		mr[c] = ibv_reg_mr(owner[c], buf[c], sizeof(buf[c]),
				   IBV_ACCESS_LOCAL_WRITE);
		if (!mr[c])
			xt_bail(errno, "ibv_reg_mr on PD %d", c);
	}

	fd = dup(ctx->cmd_fd);
	ctx2 = fd >= 0 ? ibv_import_device(fd) : NULL;
	if (!xt_ok(!!ctx2, strerror(errno), "ibv_import_device"))
		xt_bail(errno, "import");
	t0 = xt_now_ms();
	import_check(ctx2, owner[0], owner[2], mr[0], "the first PD", repeat);
	import_check(ctx2, owner[1], owner[0], mr[1], "a PD in the middle",
		     repeat);
	import_check(ctx2, owner[2], owner[1], mr[2], "the last PD", repeat);
	xt_note("the imports took %llu ms",
		(unsigned long long)(xt_now_ms() - t0));
	ibv_close_device(ctx2);

	for (c = 0; c < 3; c++)
		xt_rc(-ibv_dereg_mr(mr[c]), 0, "ibv_dereg_mr %d", c);
	for (c = 0; c < n; c++)
		if (pds[c] && ibv_dealloc_pd(pds[c]))
			break;
	xt_eq(c, n, "every PD deallocated");
	free(pds);
	ibv_close_device(ctx);
	return xt_done();
}
