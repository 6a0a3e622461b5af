/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the benchmark programs (physlimit, xv_scale): the clock,
 * fatal errors, medians of runs.
 */
#ifndef XRDMA_BENCH_H
#define XRDMA_BENCH_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_RUNS	1000

/* CLOCK_MONOTONIC in seconds */
static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* "<program>: what[: strerror(err)]" on stderr, exit status 1 */
static inline void die(const char *what, int err)
{
	if (err)
		fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name,
			what, strerror(err));
	else
		fprintf(stderr, "%s: %s\n", program_invocation_short_name,
			what);
	exit(1);
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* the median of v[0..n-1] (sorts v) */
static inline double median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	if (n % 2)
		return v[n / 2];
	return (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* "# <prefix><metric> runs: v0 v1 ..." */
static inline void print_runs(const char *prefix, const char *metric,
			      const double *v, unsigned int n)
{
	unsigned int i;

	printf("# %s%s runs:", prefix, metric);
	for (i = 0; i < n; i++)
		printf(" %.6g", v[i]);
	printf("\n");
}

/* @s as a whole number in [@min, @max], else @usage() (which exits) */
static inline unsigned int bench_num(const char *s, unsigned long min,
				     unsigned long max, void (*usage)(void))
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < min || v > max)
		usage();
	return (unsigned int)v;
}

/*
 * The command line of a benchmark: getopt with @opts; -r RUNS (1 to
 * MAX_RUNS) sets *@runs, -s (smoke test) sets *@run_secs to 0.01 s, any
 * other option goes to @opt (NULL: there is none); an unknown option or
 * an operand calls @usage (which exits).  Then stdout is line-buffered.
 */
static inline void bench_args(int argc, char **argv, const char *opts,
			      unsigned int *runs, double *run_secs,
			      void (*opt)(int c, const char *arg),
			      void (*usage)(void))
{
	int c;

	while ((c = getopt(argc, argv, opts)) != -1) {
		if (c == 'r')
			*runs = bench_num(optarg, 1, MAX_RUNS, usage);
		else if (c == 's')
			*run_secs = 0.01;
		else if (c != '?' && c != 'h' && opt)
			opt(c, optarg);
		else
			usage();
	}
	if (optind != argc)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
}

#endif /* XRDMA_BENCH_H */
