// SPDX-License-Identifier: GPL-2.0
/*
 * mpi_pingpong: a two-rank MPI ping-pong whose every byte is checked.
 *
 *     mpirun -np 2 mpi_pingpong [ITERS]          (ITERS default 20)
 *
 * For each size (1 B to 1 MiB: UCX's eager short, eager copy and
 * rendezvous protocols) rank 0 sends a buffer whose bytes depend on the
 * size, the iteration and their offset; rank 1 checks every byte and
 * sends back its complement, which rank 0 checks.  Then an MPI_Allreduce
 * of both ranks' numbers and an MPI_Barrier.  Rank 0 prints one line per
 * size ("mpi_pingpong: size S iters N bytes B ok") and, when everything
 * matched, "mpi_pingpong: PASS bytes=B" (B: payload bytes both ranks
 * sent, for the test to compare with the transport's counters).  A
 * mismatch is printed with its offset and ends the job (MPI_Abort, exit
 * status 1).  tools/testing/ulp/comm/comm_ucx.sh runs it.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const size_t sizes[] = { 1, 64, 4096, 16384, 65536, 1048576 };

static unsigned char pattern(size_t size, int iter, size_t off)
{
	return (unsigned char)((off * 7 + (size_t)iter * 13 + size) ^ 0x5a);
}

static void die(const char *what, size_t size, int iter, size_t off,
		unsigned int got, unsigned int want)
{
	fprintf(stderr,
		"mpi_pingpong: %s: size %zu iter %d offset %zu: got 0x%02x, want 0x%02x\n",
		what, size, iter, off, got, want);
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
}

static void check(const char *what, const unsigned char *buf, size_t size,
		  int iter, unsigned char flip)
{
	size_t i;

	for (i = 0; i < size; i++) {
		unsigned char want = pattern(size, iter, i) ^ flip;

		if (buf[i] != want)
			die(what, size, iter, i, buf[i], want);
	}
}

int main(int argc, char **argv)
{
	unsigned long long total = 0;
	int rank, nranks, iters = 20;
	unsigned char *buf;
	size_t s, i;
	long mine, sum;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if (argc > 1)
		iters = atoi(argv[1]);
	if (nranks != 2 || iters < 1) {
		if (rank == 0)
			fprintf(stderr, "usage: mpirun -np 2 mpi_pingpong [ITERS>0]\n");
		MPI_Finalize();
		return 2;
	}
	buf = malloc(sizes[ARRAY_SIZE(sizes) - 1]);
	if (!buf) {
		fprintf(stderr, "mpi_pingpong: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
		return 1;
	}

	for (s = 0; s < ARRAY_SIZE(sizes); s++) {
		size_t size = sizes[s];
		int it;

		for (it = 0; it < iters; it++) {
			if (rank == 0) {
				for (i = 0; i < size; i++)
					buf[i] = pattern(size, it, i);
				MPI_Send(buf, (int)size, MPI_BYTE, 1, it, MPI_COMM_WORLD);
				memset(buf, 0, size);
				MPI_Recv(buf, (int)size, MPI_BYTE, 1, it, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
				check("reply", buf, size, it, 0xff);
			} else {
				memset(buf, 0, size);
				MPI_Recv(buf, (int)size, MPI_BYTE, 0, it, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
				check("request", buf, size, it, 0);
				for (i = 0; i < size; i++)
					buf[i] ^= 0xff;
				MPI_Send(buf, (int)size, MPI_BYTE, 0, it, MPI_COMM_WORLD);
			}
		}
		total += 2ULL * size * (unsigned long long)iters;
		if (rank == 0)
			printf("mpi_pingpong: size %zu iters %d bytes %llu ok\n",
			       size, iters, 2ULL * size * (unsigned long long)iters);
	}

	mine = 1000 + rank;
	MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	if (sum != 2001) {
		fprintf(stderr, "mpi_pingpong: allreduce: got %ld, want 2001\n", sum);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("mpi_pingpong: PASS bytes=%llu\n", total);
	free(buf);
	MPI_Finalize();
	return 0;
}
