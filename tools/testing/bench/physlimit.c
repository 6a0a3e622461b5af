// SPDX-License-Identifier: GPL-2.0
/*
 * physlimit: the physical limits of this machine, to compare the RDMA
 * stacks of make bench against (tools/testing/bench/bench-host.sh):
 *   memcpy_64k_MBps     one thread copying a 64 KiB buffer to another,
 *                       again and again (caches), 10^6 bytes copied / s
 *   memcpy_64m_MBps     the same with 64 MiB buffers (memory)
 *   movsb_64k_MBps      64 KiB copied by "rep movsb", and
 *   movsq_64k_MBps      by "rep movsq" (informative: the kernel's memcpy
 *                       is rep movsb on a CPU with ERMS, glibc's too for
 *                       some sizes; QEMU TCG runs it a byte at a time)
 *   pingpong_rtt_us     two threads, pinned to two CPUs, bouncing a value
 *                       through one cache line (release store, acquire
 *                       load, pause while spinning): one round trip
 *   pingpong_oneway_us  half of it
 *
 * Each measurement is repeated RUNS times (-r, default 5) and the median
 * is reported, as "RESULT <metric> <value> <unit>"; other lines start with
 * '#'.  A run lasts about 0.3 s (-s: about 10 ms, for a smoke test).
 *
 *   physlimit [-r RUNS] [-s]
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "bench.h"

#define PP_STOP		ULONG_MAX	/* odd: never a reply */
#define PP_YIELD_SPINS	(1UL << 20)	/* spins before sched_yield() */

static unsigned int runs = 5;
static double run_secs = 0.3;

/* the one cache line of the ping-pong, alone in its line */
static struct {
	alignas(64) unsigned long val;
	char pad[64 - sizeof(unsigned long)];
} line;

/* ------------------------------------------------------------ memcpy */

static void *alloc_touched(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap", errno);
	memset(p, 0x5a, size);	/* every page faulted in */
	return p;
}

static void copy_memcpy(char *dst, const char *src, size_t size)
{
	memcpy(dst, src, size);
}

static void copy_movsb(char *dst, const char *src, size_t size)
{
	asm volatile("rep movsb"
		     : "+D"(dst), "+S"(src), "+c"(size) : : "memory");
}

/* @size: a multiple of 8 */
static void copy_movsq(char *dst, const char *src, size_t size)
{
	size /= 8;
	asm volatile("rep movsq"
		     : "+D"(dst), "+S"(src), "+c"(size) : : "memory");
}

/* seconds for @iters copies of @size bytes */
static double copy_loop(void (*copy)(char *, const char *, size_t),
			char *dst, const char *src, size_t size,
			unsigned long iters)
{
	unsigned long i;
	double t0 = now();

	for (i = 0; i < iters; i++) {
		copy(dst, src, size);
		/* the copy is used: it may not be merged or dropped */
		asm volatile("" : : "r"(dst) : "memory");
	}
	return now() - t0;
}

static void bench_copy(const char *metric, size_t size,
		       void (*copy)(char *, const char *, size_t))
{
	double v[MAX_RUNS], t = 0;
	unsigned long iters = 1;
	unsigned int r;
	char *src, *dst;

	src = alloc_touched(size);
	dst = alloc_touched(size);
	/* calibrate: double the count until a loop takes a tenth of a run */
	for (;;) {
		t = copy_loop(copy, dst, src, size, iters);
		if (t >= run_secs / 10 || iters >= (1UL << 40))
			break;
		iters *= 2;
	}
	if (t > 0)
		iters = (unsigned long)((double)iters * run_secs / t);
	if (!iters)
		iters = 1;
	printf("# %s: %zu bytes x %lu copies per run\n", metric, size, iters);
	for (r = 0; r < runs; r++) {
		t = copy_loop(copy, dst, src, size, iters);
		if (t <= 0)
			die("memcpy: the clock did not advance", 0);
		v[r] = (double)size * (double)iters / t / 1e6;
	}
	print_runs("", metric, v, runs);
	printf("RESULT %s %.1f MBps\n", metric, median(v, runs));
	munmap(src, size);
	munmap(dst, size);
}

/* ------------------------------------------------------------ ping-pong */

static void spin_wait(unsigned long *spins)
{
	__builtin_ia32_pause();
	/* both threads on one CPU: let the other one run */
	if (++*spins >= PP_YIELD_SPINS) {
		*spins = 0;
		sched_yield();
	}
}

/* the echo thread: answers every odd value v with v + 1 */
static void *pong(void *arg)
{
	unsigned long v, last = 0, spins = 0;

	(void)arg;
	for (;;) {
		v = __atomic_load_n(&line.val, __ATOMIC_ACQUIRE);
		if (v == last || !(v & 1)) {
			spin_wait(&spins);
			continue;
		}
		if (v == PP_STOP)
			return NULL;
		last = v + 1;
		__atomic_store_n(&line.val, last, __ATOMIC_RELEASE);
	}
}

/* seconds for @n round trips; *seq is the last value sent, advanced */
static double ping_loop(unsigned long n, unsigned long *seq)
{
	unsigned long i, v = *seq, spins = 0;
	double t0 = now();

	for (i = 0; i < n; i++) {
		v += 2;		/* odd */
		__atomic_store_n(&line.val, v, __ATOMIC_RELEASE);
		while (__atomic_load_n(&line.val, __ATOMIC_ACQUIRE) != v + 1)
			spin_wait(&spins);
	}
	*seq = v;
	return now() - t0;
}

/* the first two CPUs we may run on, or -1 */
static void pick_cpus(int cpu[2])
{
	cpu_set_t set;
	int c, k = 0;

	cpu[0] = -1;
	cpu[1] = -1;
	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (c = 0; c < CPU_SETSIZE && k < 2; c++)
		if (CPU_ISSET(c, &set))
			cpu[k++] = c;
	if (k < 2)
		cpu[0] = -1;
}

static void pin(pthread_t t, int cpu)
{
	cpu_set_t set;
	int err;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	err = pthread_setaffinity_np(t, sizeof(set), &set);
	if (err)
		die("pthread_setaffinity_np", err);
}

static void bench_pingpong(void)
{
	double v[MAX_RUNS], t;
	unsigned long n, seq = 1;	/* odd values are pings */
	unsigned int r;
	pthread_t thr;
	int cpu[2], err;

	pick_cpus(cpu);
	__atomic_store_n(&line.val, 0, __ATOMIC_RELEASE);
	err = pthread_create(&thr, NULL, pong, NULL);
	if (err)
		die("pthread_create", err);
	if (cpu[0] >= 0) {
		pin(pthread_self(), cpu[0]);
		pin(thr, cpu[1]);
		printf("# pingpong: threads pinned to CPUs %d and %d\n",
		       cpu[0], cpu[1]);
	} else {
		printf("# pingpong: one CPU only, threads not pinned (yield after %lu spins)\n",
		       PP_YIELD_SPINS);
	}
	/* warm up, then size a run from the time of 1000 round trips */
	n = 1000;
	t = ping_loop(n, &seq);
	if (t > 0)
		n = (unsigned long)((double)n * run_secs / t);
	if (n < 100)
		n = 100;
	printf("# pingpong: %lu round trips per run\n", n);
	for (r = 0; r < runs; r++) {
		t = ping_loop(n, &seq);
		v[r] = t / (double)n * 1e6;
	}
	__atomic_store_n(&line.val, PP_STOP, __ATOMIC_RELEASE);
	err = pthread_join(thr, NULL);
	if (err)
		die("pthread_join", err);
	print_runs("", "pingpong_rtt_us", v, runs);
	t = median(v, runs);
	printf("RESULT pingpong_oneway_us %.4f us\n", t / 2);
	printf("RESULT pingpong_rtt_us %.4f us\n", t);
}

static void bad_usage(void)
{
	fprintf(stderr,
		"usage: physlimit [-r RUNS] [-s]\n"
		"  -r RUNS  runs of each measurement, the median is reported (default 5)\n"
		"  -s       smoke test: very short runs\n");
	exit(2);
}

int main(int argc, char **argv)
{
	bench_args(argc, argv, "r:sh", &runs, &run_secs, NULL, bad_usage);
	printf("# physlimit: %u run(s) of ~%g s per measurement, %ld CPU(s) online\n",
	       runs, run_secs, sysconf(_SC_NPROCESSORS_ONLN));
	bench_copy("memcpy_64k_MBps", 64UL << 10, copy_memcpy);
	bench_copy("memcpy_64m_MBps", 64UL << 20, copy_memcpy);
	bench_copy("movsb_64k_MBps", 64UL << 10, copy_movsb);
	bench_copy("movsq_64k_MBps", 64UL << 10, copy_movsq);
	bench_pingpong();
	return 0;
}
