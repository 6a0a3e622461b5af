/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xt: the library of the userspace test programs in tools/testing
 * (uverbs_test, xnic_utest, xnic_raw, xv_semantics, xv_isolation, uverbs_fuzz,
 * the benchmarks).  xt.c needs nothing but libc; xt_uverbs.c (the raw
 * uverbs ioctls) needs uapi/, xt_verbs.c (libibverbs) -libverbs.
 *
 * Results: every check prints one line, with a number counted over the
 * whole program (its forked subtests and threads too: the counters are in
 * shared memory, each line is one write()):
 *   ok N - [SUBTEST: ]NAME
 *   not ok N - [SUBTEST: ]NAME[: DETAIL]
 *   ok N - [SUBTEST: ]NAME # SKIP WHY            (counted, not a failure)
 * or, with xt_init(..., "WHO") (xv_isolation's two processes),
 *   PASS WHO: NAME  /  FAIL WHO: NAME
 * notes are "# [SUBTEST: ]TEXT" ("# WHO: TEXT"), and xt_done() ends with
 *   # PROG: N tests, N failed        ("N checks" in the PASS/FAIL style)
 * The guest tests (the *.sh wrappers beside the programs) parse these lines.
 *
 * Subtests: a table of struct xt_subtest run by xt_run(), each in a forked
 * child with a time limit, selected by names or shell globs: any one can
 * run on its own ("PROG -l" lists them).
 */
#ifndef XT_H
#define XT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
#ifndef BIT
#define BIT(n)		(1u << (n))
#endif
/* spelled so that checkpatch's attribute rule does not apply to userspace */
#define XT_ATTRIBUTE	__attribute__
#ifndef __printf
#define __printf(a, b)	XT_ATTRIBUTE((format(printf, a, b)))
#endif

/* ------------------------------------------------------------ results */

/* before any check: @prog for the summary; @who: PASS/FAIL style (or NULL) */
void xt_init(const char *prog, const char *who);
/* append "SUBTEST: NAME: DETAIL" of every failed check to @path */
void xt_fail_file(const char *path);
extern const char *xt_subtest;	/* prefix of check names, or NULL */

__printf(3, 4)
bool xt_ok(bool ok, const char *detail, const char *fmt, ...);
/* xt_fail(detail, name fmt...): a failed check, false */
#define xt_fail(detail, ...)	xt_ok(false, (detail), __VA_ARGS__)
/* got and want are 0 or -errno */
__printf(3, 4)
bool xt_rc(long got, long want, const char *fmt, ...);
__printf(3, 4)
bool xt_eq(unsigned long long got, unsigned long long want,
	   const char *fmt, ...);
/* a check that could not decide: an "ok ... # SKIP why" line */
__printf(2, 3)
void xt_skip(const char *why, const char *fmt, ...);
__printf(1, 2)
void xt_note(const char *fmt, ...);
/*
 * a check the rest depends on failed: report it (with strerror(|err|) if
 * @err) and end the subtest (in a forked subtest) or the program
 */
__printf(2, 3) XT_ATTRIBUTE((noreturn))
void xt_bail(int err, const char *fmt, ...);
int xt_failed(void);		/* failures so far */
int xt_count(void);		/* checks so far */
/* count the checks another process made and reported (not its lines) */
void xt_add(int checks, int failed);
/* print the summary line; the exit status: 0, or 1 if any check failed */
int xt_done(void);

/* a check whose name says it all */
#define xt_check(ok, ...)	xt_ok((ok), NULL, __VA_ARGS__)
/* CHECK(cond, name fmt...) */
#define CHECK(c, ...)		xt_ok(!!(c), "false: " #c, __VA_ARGS__)
/* CHECK_RC(rc, want, name...): rc and want are 0 or -errno */
#define CHECK_RC(got, want, ...) xt_rc((got), (want), __VA_ARGS__)
#define CHECK_EQ(got, want, ...) xt_eq((got), (want), __VA_ARGS__)

/* "-EINVAL" for -EINVAL, "0", "EINVAL" for EINVAL */
const char *xt_errname(long err);

/* ------------------------------------------------------------ subtests */

struct xt_subtest {
	const char *name;
	void (*fn)(void);
	int timeout;		/* seconds; 0: the suite's */
	bool nofork;		/* run in the main process */
	const char *help;
};

/* the row of subtest NAME, run by the function t_NAME, forked */
#define XT_SUBTEST(name, timeout, help) \
	{ #name, t_##name, (timeout), false, (help) }

struct xt_suite {
	const struct xt_subtest *tests;
	size_t n;
	int timeout;		/* seconds, when a subtest has none */
	/* globs (one space between) of subtests run only when named */
	const char *opt_in;
	/* in the child, around each subtest; setup false: the subtest fails */
	bool (*setup)(void);
	void (*teardown)(void);
	/* in the parent, after each subtest */
	void (*after)(const struct xt_subtest *t);
};

/*
 * after a program's options: with @list, list the subtests; else check
 * that each name or glob of argv matches one and xt_init(@prog, NULL).
 * -1 to go on, or the exit status (0 listed, 2 a name matches nothing)
 */
int xt_start(const struct xt_suite *s, bool list, int argc, char **argv,
	     const char *prog);
/* "usage: PROG ARGS" on stderr; 2, the exit status of a bad usage */
int xt_usage(const char *prog, const char *args);
/* run the subtests named by argv (none: every one not opt_in), in order */
void xt_run(const struct xt_suite *s, int argc, char **argv);

/*
 * an option of a test program: with @arg, -C ARG sets *str = ARG, or
 * *num = atoi(ARG) (at least @min, else a bad usage), or calls fn(ARG);
 * with no @arg, -C sets *num = 1
 */
struct xt_opt {
	char c;
	const char *arg;	/* the argument's name in the usage, or NULL */
	const char **str;
	int *num;
	int min;
	void (*fn)(const char *arg);
};

/*
 * the start of a test program's main(): parse the options @opts[@n] and
 * -l (list the subtests), then xt_start(); -1 to go on with *argc and
 * *argv the subtest names, or the exit status (2 and the usage on stderr
 * for a bad option or -h)
 */
int xt_main(const struct xt_suite *s, const struct xt_opt *opts, size_t n,
	    int *argc, char ***argv, const char *prog);

/* ------------------------------------------------------------ verbs */

/* IBV_QP_* attribute mask bits */
enum {
	QPA_STATE = 1 << 0, QPA_CUR_STATE = 1 << 1, QPA_EN_SQD = 1 << 2,
	QPA_ACCESS = 1 << 3, QPA_PKEY = 1 << 4, QPA_PORT = 1 << 5,
	QPA_QKEY = 1 << 6, QPA_AV = 1 << 7, QPA_PATH_MTU = 1 << 8,
	QPA_TIMEOUT = 1 << 9, QPA_RETRY = 1 << 10, QPA_RNR_RETRY = 1 << 11,
	QPA_RQ_PSN = 1 << 12, QPA_MAX_RD = 1 << 13, QPA_ALT_PATH = 1 << 14,
	QPA_MIN_RNR = 1 << 15, QPA_SQ_PSN = 1 << 16, QPA_MAX_DEST_RD = 1 << 17,
	QPA_MIG = 1 << 18, QPA_CAP = 1 << 19, QPA_DEST_QPN = 1 << 20,
	QPA_ALL = (1 << 21) - 1,
};

/* IBV_QPS_* */
enum { QPS_RESET, QPS_INIT, QPS_RTR, QPS_RTS, QPS_SQD, QPS_SQE, QPS_ERR };

const char *xt_qp_state_str(int s);	/* "RTS", "(query failed)" */

/* ------------------------------------------------------------ helpers */

uint64_t xt_now_ms(void);		/* CLOCK_MONOTONIC */
/* first line of a file, without its newline: 0 or -errno */
int xt_read_line(const char *path, char *buf, size_t len);
/* uverbsN of an ibdev name, through /sys/class/xrdma: 0 or -ENOENT */
int xt_find_uverbs(const char *ibdev, char *name, size_t len);
/* the number of "KEY: N kB" in a /proc file, or -1 */
long xt_kv_kb(const char *path, const char *key);
/* the counters "NAME VALUE" of a file (debugfs counters) */
#define XT_MAX_CTR	128
struct xt_counters {
	int n;
	char name[XT_MAX_CTR][48];
	unsigned long long val[XT_MAX_CTR];
};

int xt_read_counters(const char *path, struct xt_counters *c);
/* the value of counter @name, or -1 */
long long xt_counter(const struct xt_counters *c, const char *name);

/* the byte pattern of seed @seed at offset i */
uint8_t xt_pat_byte(uint32_t seed, size_t i);
void xt_pat_fill(void *p, size_t n, uint32_t seed);
/* the first offset that differs from the pattern, or -1 */
long xt_pat_check(const void *p, size_t n, uint32_t seed);
bool xt_all_bytes(const void *p, size_t n, uint8_t v);

/* touch a byte at p: 0, or the signal it raised (SIGSEGV, SIGBUS) */
int xt_probe(void *p, bool write, uint8_t *val);

#endif
