/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktest: the debugfs runner that the in-kernel test ULPs share
 * (tools/testing/ib/cm_test: xrdma_cmtest.ko, tools/testing/core/ulp_test:
 * xnic_ulp_test.ko).  A module describes its cases in a struct ktest and
 * gets the folder /sys/kernel/debug/<name>/ with three files:
 *
 *   run      write a case name, a glob of names or "all": runs the cases
 *            that match, one at a time, and returns when they are done
 *            (ENOENT if none matched); a module may take other words
 *            (see struct ktest.command)
 *   results  the last run's lines "XRDMA_CASE <name> PASS|FAIL <detail>"
 *   cases    every case name, one a line
 *
 * Each case result is also printed to the kernel log, and every run ends
 * with the log line "<name>: '<pattern>': N passed, M failed".
 *
 * Every module that uses it builds ktest.c into itself (a one-line file in
 * its own folder includes it), so nothing is exported.  The modules are
 * meant to be built as modules (=m): built into one kernel together, the
 * two copies of the ktest_* symbols would clash at link time.
 */
#ifndef _XRDMA_KTEST_H
#define _XRDMA_KTEST_H

#include <linux/compiler.h>
#include <linux/mutex.h>
#include <linux/stdarg.h>
#include <linux/types.h>

#define KTEST_NAME_MAX	64	/* bytes of a case name, NUL included */

struct dentry;

struct ktest {
	/* debugfs folder and prefix of the log's summary line */
	const char *name;
	size_t results_size;		/* bytes kept of a run's results */
	unsigned int ncases;		/* case names, in running order */
	/* the name of case @i (< ncases) into @buf */
	void (*case_name)(unsigned int i, char *buf, size_t size);
	/*
	 * run case @i, named @name, and report it (ktest_report());
	 * true if it passed
	 */
	bool (*run_case)(struct ktest *kt, unsigned int i, const char *name);
	/*
	 * optional: a word written to run that is no case pattern; true
	 * if it was one, with what the write returns in *ret (0: the
	 * length written).  Called with lock held and results emptied.
	 */
	bool (*command)(struct ktest *kt, const char *word, int *ret);
	/*
	 * optional: called by ktest_exit() after the files are gone and
	 * before the results buffer is freed (it may still report)
	 */
	void (*fini)(struct ktest *kt);

	/* one run at a time; protects results (a module may take it) */
	struct mutex lock;
	char *results;
	size_t results_len;
	struct dentry *dir;
};

int ktest_init(struct ktest *kt);
void ktest_exit(struct ktest *kt);
/* append one result line to results and the kernel log; lock held */
void ktest_report(struct ktest *kt, const char *name, bool pass,
		  const char *detail);

/*
 * A failed check of a case: unless *@failed already, set it and keep
 * "<tag><line>: <message>" in @detail (the first failure is the detail).
 * Return: false.
 */
__printf(6, 0) bool ktest_failv(bool *failed, char *detail, size_t size,
				const char *tag, int line, const char *fmt,
				va_list ap);

/*
 * KTEST_OK(fail, t, cond, fmt, ...): true if @cond holds, else calls
 * fail(t, __LINE__, fmt, ...) (which records it) and is false
 */
#define KTEST_OK(fail, t, cond, fmt, ...)				\
({									\
	bool __ktest_c = !!(cond);					\
									\
	if (!__ktest_c)							\
		fail(t, __LINE__, fmt, ##__VA_ARGS__);			\
	__ktest_c;							\
})

#endif /* _XRDMA_KTEST_H */
