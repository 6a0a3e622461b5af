// SPDX-License-Identifier: GPL-2.0
/*
 * ktest: the debugfs runner of the in-kernel test ULPs (see ktest.h).
 * Not built on its own: each module's folder has a one-line file that
 * includes this one.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/glob.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "ktest.h"

void ktest_report(struct ktest *kt, const char *name, bool pass,
		  const char *detail)
{
	pr_info("XRDMA_CASE %s %s %s\n", name, pass ? "PASS" : "FAIL", detail);
	kt->results_len += scnprintf(kt->results + kt->results_len,
				     kt->results_size - kt->results_len,
				     "XRDMA_CASE %s %s %s\n", name,
				     pass ? "PASS" : "FAIL", detail);
}

bool ktest_failv(bool *failed, char *detail, size_t size, const char *tag,
		 int line, const char *fmt, va_list ap)
{
	int n;

	if (*failed)
		return false;
	*failed = true;
	n = scnprintf(detail, size, "%s%d: ", tag, line);
	vscnprintf(detail + n, size - n, fmt, ap);
	return false;
}

/* Run every case whose name matches @pattern ("all" for all). */
static int ktest_run(struct ktest *kt, const char *pattern)
{
	char name[KTEST_NAME_MAX];
	int pass = 0, fail = 0;
	unsigned int i;
	int ret;

	mutex_lock(&kt->lock);
	kt->results_len = 0;
	kt->results[0] = 0;
	if (kt->command && kt->command(kt, pattern, &ret)) {
		mutex_unlock(&kt->lock);
		return ret;
	}
	for (i = 0; i < kt->ncases; i++) {
		kt->case_name(i, name, sizeof(name));
		if (strcmp(pattern, "all") && !glob_match(pattern, name))
			continue;
		if (fatal_signal_pending(current))
			break;
		if (kt->run_case(kt, i, name))
			pass++;
		else
			fail++;
	}
	mutex_unlock(&kt->lock);
	pr_info("%s: '%s': %d passed, %d failed\n", kt->name, pattern, pass,
		fail);
	return pass + fail ? 0 : -ENOENT;
}

static ssize_t ktest_run_write(struct file *f, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	struct ktest *kt = f->private_data;
	char buf[64];
	int ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	if (!strim(buf)[0])
		return -EINVAL;
	ret = ktest_run(kt, strim(buf));
	return ret ? ret : len;
}

static const struct file_operations ktest_run_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = ktest_run_write,
	.llseek = noop_llseek,
};

static ssize_t ktest_results_read(struct file *f, char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	struct ktest *kt = f->private_data;
	ssize_t ret;

	mutex_lock(&kt->lock);
	ret = simple_read_from_buffer(ubuf, len, ppos, kt->results,
				      kt->results_len);
	mutex_unlock(&kt->lock);
	return ret;
}

static const struct file_operations ktest_results_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = ktest_results_read,
	.llseek = default_llseek,
};

static ssize_t ktest_cases_read(struct file *f, char __user *ubuf,
				size_t len, loff_t *ppos)
{
	struct ktest *kt = f->private_data;
	size_t size = kt->ncases * KTEST_NAME_MAX, n = 0;
	char name[KTEST_NAME_MAX];
	unsigned int i;
	ssize_t ret;
	char *buf;

	buf = kmalloc(size, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < kt->ncases; i++) {
		kt->case_name(i, name, sizeof(name));
		n += scnprintf(buf + n, size - n, "%s\n", name);
	}
	ret = simple_read_from_buffer(ubuf, len, ppos, buf, n);
	kfree(buf);
	return ret;
}

static const struct file_operations ktest_cases_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = ktest_cases_read,
	.llseek = default_llseek,
};

/* the results buffer and the debugfs folder with its files */
int ktest_init(struct ktest *kt)
{
	mutex_init(&kt->lock);
	kt->results_len = 0;
	kt->results = kvzalloc(kt->results_size, GFP_KERNEL);
	if (!kt->results)
		return -ENOMEM;
	kt->dir = debugfs_create_dir(kt->name, NULL);
	debugfs_create_file("run", 0200, kt->dir, kt, &ktest_run_fops);
	debugfs_create_file("results", 0400, kt->dir, kt, &ktest_results_fops);
	debugfs_create_file("cases", 0400, kt->dir, kt, &ktest_cases_fops);
	return 0;
}

void ktest_exit(struct ktest *kt)
{
	debugfs_remove_recursive(kt->dir);
	if (kt->fini)
		kt->fini(kt);
	kvfree(kt->results);
	kt->results = NULL;
}
