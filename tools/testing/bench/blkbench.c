// SPDX-License-Identifier: GPL-2.0
/*
 * blkbench: direct I/O throughput of a block device or file, for the ULP
 * rows of make bench (NVMe over Fabrics namespaces, files on NFS over
 * RDMA; tools/testing/bench/bench-guest.sh).  What fio's libaio engine
 * does for "--direct=1 --rw=randread|read|write --bs --iodepth
 * --time_based", without fio's 60-odd shared libraries (80 MB that every
 * guest's initramfs would carry):
 *
 *   blkbench -m randread|read|write [-b BYTES] [-q DEPTH] [-t SECS]
 *            [-S BYTES] [-n METRIC] [-L] PATH
 *
 * PATH is opened with O_DIRECT (write: created if missing).  BYTES take
 * a k, M or G suffix.
 * DEPTH requests of BYTES (default 4096, 32) are kept in flight with the
 * kernel's native AIO (io_submit) for SECS seconds (default 10): randread
 * at random BYTES-aligned offsets, read and write sequentially, wrapping
 * at the end of PATH (its size, or -S).  Every request must complete with
 * all its bytes.  Output: "RESULT <METRIC> <value> <unit>", unit IOPS for
 * randread, MBps (10^6 bytes/s) otherwise; METRIC defaults to the mode.
 * -L reports instead the mean time a request was in flight, in us
 * (DEPTH over the request rate, Little's law: with -q 1 the latency of
 * one request, submission to completion as the program sees it).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "bench.h"

#define MAX_DEPTH	1024
#define MAX_BS		(64U << 20)

enum mode { M_RANDREAD, M_READ, M_WRITE };

static void bad_usage(void)
{
	fprintf(stderr,
		"usage: %s -m randread|read|write [-b BYTES] [-q DEPTH] [-t SECS]\n"
		"          [-S BYTES] [-n METRIC] [-L] PATH\n",
		program_invocation_short_name);
	exit(2);
}

static unsigned long long rnd_state = 88172645463325252ULL;

/* xorshift64: offsets, not security */
static unsigned long long rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static unsigned long long parse_size(const char *s)
{
	unsigned long long v;
	const char *sfx;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		bad_usage();
	if (*end) {
		sfx = strchr("kKmMgG", *end);
		if (!sfx || end[1])
			bad_usage();
		v <<= 10 * (1 + (sfx - "kKmMgG") / 2);
	}
	return v;
}

int main(int argc, char **argv)
{
	unsigned long long size = 0, fsize = 0, blocks, next = 0, done = 0, bytes = 0;
	unsigned int bs = 4096, depth = 32, secs = 10, i, inflight = 0;
	static struct io_event ev[MAX_DEPTH];
	static struct iocb cb[MAX_DEPTH];
	static struct iocb *cbp[MAX_DEPTH];
	const char *metric = NULL, *path;
	enum mode mode = M_RANDREAD;
	aio_context_t ctx = 0;
	bool have_mode = false, lat = false;
	double t0, t, el;
	struct stat st;
	char *buf;
	int fd, c;

	while ((c = getopt(argc, argv, "m:b:q:t:S:n:L")) != -1) {
		switch (c) {
		case 'm':
			have_mode = true;
			if (!strcmp(optarg, "randread"))
				mode = M_RANDREAD;
			else if (!strcmp(optarg, "read"))
				mode = M_READ;
			else if (!strcmp(optarg, "write"))
				mode = M_WRITE;
			else
				bad_usage();
			break;
		case 'b':
			size = parse_size(optarg);
			if (size < 512 || size > MAX_BS)
				bad_usage();
			bs = (unsigned int)size;
			size = 0;
			break;
		case 'q':
			depth = bench_num(optarg, 1, MAX_DEPTH, bad_usage);
			break;
		case 't':
			secs = bench_num(optarg, 1, 3600, bad_usage);
			break;
		case 'S':
			fsize = parse_size(optarg);
			break;
		case 'n':
			metric = optarg;
			break;
		case 'L':
			lat = true;
			break;
		default:
			bad_usage();
		}
	}
	if (!have_mode || optind != argc - 1 || bs % 512)
		bad_usage();
	path = argv[optind];
	if (!metric)
		metric = mode == M_RANDREAD ? "randread" :
			 mode == M_READ ? "read" : "write";

	fd = open(path, (mode == M_WRITE ? O_RDWR | O_CREAT : O_RDONLY) |
		  O_DIRECT, 0644);
	if (fd < 0)
		die(path, errno);
	if (fstat(fd, &st))
		die("fstat", errno);
	size = fsize;
	if (!size) {
		if (S_ISBLK(st.st_mode)) {
			if (ioctl(fd, BLKGETSIZE64, &size))
				die("BLKGETSIZE64", errno);
		} else {
			size = (unsigned long long)st.st_size;
		}
	}
	blocks = size / bs;
	if (!blocks)
		die("PATH is smaller than one block (give -S)", 0);

	if (posix_memalign((void **)&buf, 4096, (size_t)bs * depth))
		die("posix_memalign", ENOMEM);
	for (i = 0; i < bs * depth; i++)
		buf[i] = (char)rnd();
	if (syscall(SYS_io_setup, depth, &ctx))
		die("io_setup", errno);

	t0 = now();
	t = t0;
	for (;;) {
		unsigned int n = 0;
		long got;

		/* refill while the time lasts */
		for (i = 0; t - t0 < secs && i < depth; i++) {
			if (cb[i].aio_data)
				continue;
			memset(&cb[i], 0, sizeof(cb[i]));
			cb[i].aio_fildes = (uint32_t)fd;
			cb[i].aio_lio_opcode = mode == M_WRITE ?
				IOCB_CMD_PWRITE : IOCB_CMD_PREAD;
			cb[i].aio_buf = (uintptr_t)(buf + (size_t)i * bs);
			cb[i].aio_nbytes = bs;
			if (mode == M_RANDREAD) {
				cb[i].aio_offset = (int64_t)(rnd() % blocks * bs);
			} else {
				cb[i].aio_offset = (int64_t)(next * bs);
				next = (next + 1) % blocks;
			}
			cb[i].aio_data = i + 1;
			cbp[n++] = &cb[i];
		}
		if (n) {
			got = syscall(SYS_io_submit, ctx, (long)n, cbp);
			if (got != (long)n)
				die("io_submit", got < 0 ? errno : EAGAIN);
			inflight += n;
		}
		if (!inflight)
			break;
		got = syscall(SYS_io_getevents, ctx, 1L, (long)depth, ev, NULL);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			die("io_getevents", errno);
		}
		for (i = 0; i < (unsigned int)got; i++) {
			struct iocb *done_cb = (struct iocb *)(uintptr_t)ev[i].obj;

			if (ev[i].res != (int64_t)bs) {
				fprintf(stderr, "%s: %s at %lld: %s\n",
					program_invocation_short_name,
					mode == M_WRITE ? "write" : "read",
					(long long)done_cb->aio_offset,
					ev[i].res < 0 ? strerror((int)-ev[i].res) :
					"short transfer");
				return 1;
			}
			done_cb->aio_data = 0;
			done++;
			bytes += bs;
		}
		inflight -= (unsigned int)got;
		t = now();
	}
	el = now() - t0;
	syscall(SYS_io_destroy, ctx);
	if (mode == M_WRITE && fsync(fd))
		die("fsync", errno);
	close(fd);
	printf("# %s: %llu requests of %u bytes in %.3f s, depth %u\n",
	       path, done, bs, el, depth);
	if (lat)
		printf("RESULT %s %.2f us\n", metric,
		       done ? el * 1e6 * depth / (double)done : 0.0);
	else if (mode == M_RANDREAD)
		printf("RESULT %s %.0f IOPS\n", metric, (double)done / el);
	else
		printf("RESULT %s %.1f MBps\n", metric, (double)bytes / el / 1e6);
	free(buf);
	return 0;
}
