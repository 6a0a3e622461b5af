/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the benchmark programs (physlimit, xv_scale): the clock,
 * fatal errors, medians of runs.
 */
#ifndef XRDMA_BENCH_H
#define XRDMA_BENCH_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

#endif /* XRDMA_BENCH_H */
