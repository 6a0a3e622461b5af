// SPDX-License-Identifier: GPL-2.0
/*
 * xt: results, subtests and helpers of the userspace test programs
 * (see xt.h).
 */
#include <fcntl.h>
#include <fnmatch.h>
#include <glob.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "xt.h"

/* a forked subtest that bailed out: its failure is already counted */
#define XT_BAILED	77

const char *xt_subtest;
static const char *xt_prog = "test";
static const char *xt_who;
static const char *fail_path;
static bool in_child;

struct xt_shared {
	int n, fail;
};

static struct xt_shared local_counts;
static struct xt_shared *sh = &local_counts;

void xt_init(const char *prog, const char *who)
{
	void *p = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	xt_prog = prog;
	xt_who = who;
	if (p != MAP_FAILED)
		sh = p;
	signal(SIGPIPE, SIG_IGN);
}

void xt_fail_file(const char *path)
{
	fail_path = path;
}

int xt_failed(void)
{
	return __atomic_load_n(&sh->fail, __ATOMIC_SEQ_CST);
}

int xt_count(void)
{
	return __atomic_load_n(&sh->n, __ATOMIC_SEQ_CST);
}

void xt_add(int checks, int failed)
{
	__atomic_add_fetch(&sh->n, checks, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&sh->fail, failed, __ATOMIC_SEQ_CST);
}

const char *xt_errname(long err)
{
	static __thread char buf[32];
	long e = err < 0 ? -err : err;
	const char *n = strerrorname_np((int)e);

	if (err == 0)
		return "0";
	if (n)
		snprintf(buf, sizeof(buf), "%s%s", err < 0 ? "-" : "", n);
	else
		snprintf(buf, sizeof(buf), "%serrno%ld", err < 0 ? "-" : "", e);
	return buf;
}

/* one write(): lines of processes and threads do not mix */
static void out(const char *s)
{
	size_t len = strlen(s);
	ssize_t w;

	while (len) {
		w = write(STDOUT_FILENO, s, len);
		if (w <= 0) {
			if (w < 0 && errno == EINTR)
				continue;
			return;
		}
		s += w;
		len -= w;
	}
}

static const char *prefix(char *buf, size_t len)
{
	if (xt_who)
		snprintf(buf, len, "%s: ", xt_who);
	else if (xt_subtest)
		snprintf(buf, len, "%s: ", xt_subtest);
	else
		buf[0] = 0;
	return buf;
}

static void to_fail_file(const char *name, const char *detail)
{
	char line[1200];
	int fd;

	if (!fail_path)
		return;
	fd = open(fail_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	snprintf(line, sizeof(line), "%s: %s%s%s\n",
		 xt_subtest ? xt_subtest : xt_prog, name, detail ? ": " : "",
		 detail ? detail : "");
	(void)!write(fd, line, strlen(line));
	close(fd);
}

/* @skip: an ok line marked "# SKIP skip" */
static bool report(bool ok, const char *detail, const char *skip,
		   const char *fmt, va_list ap)
{
	char name[512], pre[80], line[1400];
	int n;

	vsnprintf(name, sizeof(name), fmt, ap);
	prefix(pre, sizeof(pre));
	n = __atomic_add_fetch(&sh->n, 1, __ATOMIC_SEQ_CST);
	if (!ok)
		__atomic_add_fetch(&sh->fail, 1, __ATOMIC_SEQ_CST);
	if (xt_who)
		snprintf(line, sizeof(line), "%s %s%s%s%s\n",
			 ok ? "PASS" : "FAIL", pre, name,
			 !ok && detail ? ": " : "", !ok && detail ? detail : "");
	else if (ok)
		snprintf(line, sizeof(line), "ok %d - %s%s%s%s\n", n, pre, name,
			 skip ? " # SKIP " : "", skip ? skip : "");
	else
		snprintf(line, sizeof(line), "not ok %d - %s%s%s%s\n", n, pre,
			 name, detail ? ": " : "", detail ? detail : "");
	out(line);
	if (!ok)
		to_fail_file(name, detail);
	return ok;
}

bool xt_ok(bool ok, const char *detail, const char *fmt, ...)
{
	va_list ap;
	bool r;

	va_start(ap, fmt);
	r = report(ok, detail, NULL, fmt, ap);
	va_end(ap);
	return r;
}

void xt_skip(const char *why, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(true, NULL, why, fmt, ap);
	va_end(ap);
}

bool xt_rc(long got, long want, const char *fmt, ...)
{
	char detail[128];
	va_list ap;
	bool r;

	snprintf(detail, sizeof(detail), "got %s", xt_errname(got));
	snprintf(detail + strlen(detail), sizeof(detail) - strlen(detail),
		 ", want %s", xt_errname(want));
	va_start(ap, fmt);
	r = report(got == want, detail, NULL, fmt, ap);
	va_end(ap);
	return r;
}

bool xt_eq(unsigned long long got, unsigned long long want, const char *fmt,
	   ...)
{
	char detail[128];
	va_list ap;
	bool r;

	snprintf(detail, sizeof(detail), "got %llu (0x%llx), want %llu (0x%llx)",
		 got, got, want, want);
	va_start(ap, fmt);
	r = report(got == want, detail, NULL, fmt, ap);
	va_end(ap);
	return r;
}

void xt_note(const char *fmt, ...)
{
	char a[1024], pre[80], line[1200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a, sizeof(a), fmt, ap);
	va_end(ap);
	snprintf(line, sizeof(line), "# %s%s\n", prefix(pre, sizeof(pre)), a);
	out(line);
}

int xt_done(void)
{
	char line[160];

	snprintf(line, sizeof(line), "# %s: %d %s, %d failed\n", xt_prog,
		 xt_count(), xt_who ? "checks" : "tests", xt_failed());
	fflush(stdout);
	out(line);
	return xt_failed() ? 1 : 0;
}

void xt_bail(int err, const char *fmt, ...)
{
	char name[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (err)
		xt_fail(strerror(err < 0 ? -err : err), "%s", name);
	else
		xt_fail(NULL, "%s", name);
	fflush(stdout);
	if (in_child)
		_exit(XT_BAILED);
	exit(xt_done());
}

/* ------------------------------------------------------------ subtests */

static bool opt_in(const struct xt_suite *s, const char *name)
{
	char globs[256], *g, *save;

	if (!s->opt_in)
		return false;
	snprintf(globs, sizeof(globs), "%s", s->opt_in);
	for (g = strtok_r(globs, " ", &save); g; g = strtok_r(NULL, " ", &save))
		if (!fnmatch(g, name, 0))
			return true;
	return false;
}

int xt_start(const struct xt_suite *s, bool list, int argc, char **argv,
	     const char *prog)
{
	size_t i;
	int a;

	for (i = 0; list && i < s->n; i++)
		printf("%-12s %s%s\n", s->tests[i].name, s->tests[i].help,
		       opt_in(s, s->tests[i].name) ? " (only when named)" : "");
	if (list)
		return 0;
	for (a = 0; a < argc; a++) {
		for (i = 0; i < s->n; i++)
			if (!fnmatch(argv[a], s->tests[i].name, 0))
				break;
		if (i == s->n) {
			fprintf(stderr, "%s: no subtest matches '%s' (-l lists them)\n",
				prog, argv[a]);
			return 2;
		}
	}
	xt_init(prog, NULL);
	return -1;
}

int xt_usage(const char *prog, const char *args)
{
	fprintf(stderr, "usage: %s %s\n", prog, args);
	return 2;
}

/* "[-n IBDEV] [-v] [-l] [SUBTEST|GLOB...]" on stderr: 2 */
static int opts_usage(const struct xt_opt *o, size_t n, const char *prog)
{
	char buf[512];
	size_t i, len = 0;

	for (i = 0; i < n && len < sizeof(buf); i++) {
		if (o[i].arg)
			len += snprintf(buf + len, sizeof(buf) - len, "[-%c %s] ",
					o[i].c, o[i].arg);
		else
			len += snprintf(buf + len, sizeof(buf) - len, "[-%c] ",
					o[i].c);
	}
	if (len < sizeof(buf))
		snprintf(buf + len, sizeof(buf) - len, "[-l] [SUBTEST|GLOB...]");
	return xt_usage(prog, buf);
}

/* apply option @o with argument @arg: false if its number is too small */
static bool opt_set(const struct xt_opt *o, const char *arg)
{
	if (!o->arg)
		*o->num = 1;
	else if (o->str)
		*o->str = arg;
	else if (o->num)
		*o->num = atoi(arg);
	else
		o->fn(arg);
	return !o->num || *o->num >= o->min;
}

int xt_main(const struct xt_suite *s, const struct xt_opt *opts, size_t n,
	    int *argc, char ***argv, const char *prog)
{
	char optstr[128];
	bool list = false;
	size_t i, k = 0;
	int c;

	for (i = 0; i < n && k + 4 < sizeof(optstr); i++) {
		optstr[k++] = opts[i].c;
		if (opts[i].arg)
			optstr[k++] = ':';
	}
	memcpy(optstr + k, "l", 2);
	while ((c = getopt(*argc, *argv, optstr)) != -1) {
		for (i = 0; i < n; i++)
			if (opts[i].c == c)
				break;
		if (c == 'l')
			list = true;
		else if (i == n || !opt_set(&opts[i], optarg))
			return opts_usage(opts, n, (*argv)[0]);
	}
	*argc -= optind;
	*argv += optind;
	return xt_start(s, list, *argc, *argv, prog);
}

static bool selected(const struct xt_suite *s, const struct xt_subtest *t,
		     int argc, char **argv)
{
	int i;

	if (argc == 0)
		return !opt_in(s, t->name);
	for (i = 0; i < argc; i++)
		if (!fnmatch(argv[i], t->name, 0))
			return true;
	return false;
}

static void run_body(const struct xt_suite *s, const struct xt_subtest *t)
{
	if (s->setup && !s->setup()) {
		xt_fail(NULL, "setup of the subtest");
		return;
	}
	t->fn();
	if (s->teardown)
		s->teardown();
}

/*
 * A subtest's time limit times XRDMA_TIMEOUT_SCALE, the factor the guest
 * harness gives every test's limit (a debug kernel runs several times
 * slower).
 */
static unsigned int xt_scaled(unsigned int secs)
{
	const char *v = getenv("XRDMA_TIMEOUT_SCALE");
	unsigned long f = v ? strtoul(v, NULL, 10) : 1;

	return f > 1 && f < 100 ? secs * f : secs;
}

/* the child of a forked subtest */
XT_ATTRIBUTE((noreturn))
static void run_child(const struct xt_suite *s, const struct xt_subtest *t)
{
	in_child = true;
	alarm(xt_scaled(t->timeout ? t->timeout : s->timeout));
	run_body(s, t);
	fflush(NULL);
	_exit(0);
}

static void run_one(const struct xt_suite *s, const struct xt_subtest *t)
{
	char why[128];
	pid_t pid;
	int st;

	xt_subtest = t->name;
	xt_note("--- %s (%s)", t->name, t->help);
	if (t->nofork) {
		run_body(s, t);
		return;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		run_child(s, t);
	if (pid < 0) {
		xt_fail(strerror(errno), "fork the subtest");
		return;
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(st))
		snprintf(why, sizeof(why), "killed by signal %d%s",
			 WTERMSIG(st),
			 WTERMSIG(st) == SIGALRM ? " (time limit)" : "");
	else if (WEXITSTATUS(st) && WEXITSTATUS(st) != XT_BAILED)
		snprintf(why, sizeof(why), "exit status %d", WEXITSTATUS(st));
	else
		return;
	xt_fail(why, "subtest ran to completion");
}

void xt_run(const struct xt_suite *s, int argc, char **argv)
{
	const char *outer = xt_subtest;
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (!selected(s, &s->tests[i], argc, argv))
			continue;
		run_one(s, &s->tests[i]);
		if (s->after)
			s->after(&s->tests[i]);
	}
	xt_subtest = outer;
}

const char *xt_qp_state_str(int s)
{
	static const char *const n[] = {
		"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
	};

	return s >= 0 && s < (int)ARRAY_SIZE(n) ? n[s] : "(query failed)";
}

/* ------------------------------------------------------------ helpers */

uint64_t xt_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int xt_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return -errno;
	ok = !!fgets(buf, len, f);
	fclose(f);
	if (!ok)
		return -EIO;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

int xt_find_uverbs(const char *ibdev, char *name, size_t len)
{
	char line[64];
	glob_t g;
	size_t i;
	bool found = false;

	if (glob("/sys/class/xrdma/uverbs*/ibdev", 0, NULL, &g))
		return -ENOENT;
	for (i = 0; i < g.gl_pathc && !found; i++) {
		const char *d = strstr(g.gl_pathv[i], "uverbs");

		if (xt_read_line(g.gl_pathv[i], line, sizeof(line)) ||
		    strcmp(line, ibdev))
			continue;
		snprintf(name, len, "%.*s", (int)strcspn(d, "/"), d);
		found = true;
	}
	globfree(&g);
	return found ? 0 : -ENOENT;
}

long xt_kv_kb(const char *path, const char *key)
{
	size_t kl = strlen(key);
	char line[256];
	long v = -1;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == ':') {
			v = strtol(line + kl + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

int xt_read_counters(const char *path, struct xt_counters *c)
{
	char line[128];
	FILE *f;

	c->n = 0;
	if (!path || !*path)
		return -ENOENT;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (c->n < XT_MAX_CTR && fgets(line, sizeof(line), f))
		if (sscanf(line, "%47s %llu", c->name[c->n], &c->val[c->n]) == 2)
			c->n++;
	fclose(f);
	return 0;
}

long long xt_counter(const struct xt_counters *c, const char *name)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->name[i], name))
			return (long long)c->val[i];
	return -1;
}

uint8_t xt_pat_byte(uint32_t seed, size_t i)
{
	uint32_t x = seed * 2654435761u + (uint32_t)i * 40503u;

	x ^= x >> 13;
	x *= 0x5bd1e995u;
	return (uint8_t)(x ^ (x >> 15));
}

void xt_pat_fill(void *p, size_t n, uint32_t seed)
{
	uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = xt_pat_byte(seed, i);
}

long xt_pat_check(const void *p, size_t n, uint32_t seed)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != xt_pat_byte(seed, i))
			return (long)i;
	return -1;
}

bool xt_all_bytes(const void *p, size_t n, uint8_t v)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != v)
			return false;
	return true;
}

static sigjmp_buf probe_jb;
static int probe_sig;		/* accessed with atomics only */
static uint8_t probe_val;	/* the byte read; likewise */

static void probe_handler(int sig)
{
	__atomic_store_n(&probe_sig, sig, __ATOMIC_SEQ_CST);
	siglongjmp(probe_jb, 1);
}

int xt_probe(void *p, bool write, uint8_t *val)
{
	struct sigaction sa, obus, osegv;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = probe_handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &obus);
	sigaction(SIGSEGV, &sa, &osegv);
	__atomic_store_n(&probe_sig, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&probe_val, 0, __ATOMIC_SEQ_CST);
	if (!sigsetjmp(probe_jb, 1)) {
		if (write)
			__atomic_store_n((uint8_t *)p, 0x5a, __ATOMIC_SEQ_CST);
		else
			__atomic_store_n(&probe_val,
					 __atomic_load_n((uint8_t *)p,
							 __ATOMIC_SEQ_CST),
					 __ATOMIC_SEQ_CST);
	}
	sigaction(SIGBUS, &obus, NULL);
	sigaction(SIGSEGV, &osegv, NULL);
	if (val)
		*val = __atomic_load_n(&probe_val, __ATOMIC_SEQ_CST);
	return __atomic_load_n(&probe_sig, __ATOMIC_SEQ_CST);
}
