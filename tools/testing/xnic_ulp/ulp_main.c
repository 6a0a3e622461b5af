// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_ulp_test: run verbs test cases on xnic devices through the xrdma
 * core API (in the spirit of krping).
 *
 *   echo all > /sys/kernel/debug/xnic_ulp/run       every case
 *   echo 'd2d_*' > /sys/kernel/debug/xnic_ulp/run   cases matching a glob
 *   cat /sys/kernel/debug/xnic_ulp/cases            the case names
 *   cat /sys/kernel/debug/xnic_ulp/results          last run's results
 *
 * Each case runs once in loopback ("loop_<case>": both QPs on dev0) and
 * once between two devices ("d2d_<case>": dev0 <-> dev1) and reports one
 * line "XRDMA_CASE <name> PASS|FAIL <detail>" in results and in the kernel
 * log.  A case also fails if it leaves any object behind on either device.
 * The write returns when the selected cases are done.
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/glob.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include "xnic_ulp.h"

static char *dev0 = "xnic0";
module_param(dev0, charp, 0444);
MODULE_PARM_DESC(dev0, "first device (loopback cases use it alone)");
static char *dev1 = "xnic1";
module_param(dev1, charp, 0444);
MODULE_PARM_DESC(dev1, "second device, cabled to the first");
unsigned int ut_timeout_ms = 5000;
module_param_named(timeout_ms, ut_timeout_ms, uint, 0644);
MODULE_PARM_DESC(timeout_ms, "bound of every wait for a completion or event");

#define UT_RESULTS_SIZE	(64 * 1024)

static DEFINE_MUTEX(ut_lock);	/* one run at a time; protects results */
static char *ut_results;
static size_t ut_results_len;
static struct dentry *ut_dir;

static const char *const ut_topo_names[UT_NTOPO] = {
	[UT_LOOP] = "loop",
	[UT_D2D] = "d2d",
};

static void ut_report(const char *name, bool pass, const char *detail)
{
	int n;

	pr_info("XRDMA_CASE %s %s %s\n", name, pass ? "PASS" : "FAIL",
		detail);
	n = scnprintf(ut_results + ut_results_len,
		      UT_RESULTS_SIZE - ut_results_len,
		      "XRDMA_CASE %s %s %s\n", name, pass ? "PASS" : "FAIL",
		      detail);
	ut_results_len += n;
}

/* objects of every type on a device, or -1 if it is not there */
static void ut_count(const char *name, unsigned int c[XRDMA_RES_MAX],
		     bool *present)
{
	struct xrdma_device *dev = xrdma_device_get_by_name(name);
	int i;

	*present = dev;
	for (i = 0; i < XRDMA_RES_MAX; i++)
		c[i] = dev ? xrdma_res_count(dev, i) : 0;
	if (dev)
		xrdma_device_put(dev);
}

static const char *const ut_res_names[XRDMA_RES_MAX] = {
	"pd", "cq", "qp", "srq", "mr", "ah",
};

static void ut_run_one(const struct ut_case *c, enum ut_topo topo,
		       const char *name, int *pass, int *fail)
{
	const char *const names[2] = { dev0, dev1 };
	unsigned int before[2][XRDMA_RES_MAX], after[2][XRDMA_RES_MAX];
	bool present[2], dummy;
	struct ut *t;
	int d, i;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t) {
		ut_report(name, false, "no memory");
		(*fail)++;
		return;
	}
	for (d = 0; d < 2; d++)
		ut_count(names[d], before[d], &present[d]);
	t->name = name;
	t->arg = c->arg;
	if (!ut_env_init(t, topo, names))
		c->fn(t);
	ut_env_fini(t);
	for (d = 0; d < 2; d++) {
		if (!present[d])
			continue;
		ut_count(names[d], after[d], &dummy);
		for (i = 0; i < XRDMA_RES_MAX; i++)
			UT_OK(t, after[d][i] == before[d][i],
			      "leak on %s: %u %s objects before, %u after",
			      names[d], before[d][i], ut_res_names[i],
			      after[d][i]);
	}
	ut_report(name, !t->failed, t->failed ? t->detail :
		  t->note[0] ? t->note : "ok");
	if (t->failed)
		(*fail)++;
	else
		(*pass)++;
	kfree(t);
}

/* Run every case whose name matches @pattern ("all" for all). */
static int ut_run(const char *pattern)
{
	char name[64];
	int pass = 0, fail = 0;
	unsigned int i;
	int topo;

	mutex_lock(&ut_lock);
	ut_results_len = 0;
	ut_results[0] = 0;
	for (i = 0; i < ut_ncases; i++) {
		for (topo = 0; topo < UT_NTOPO; topo++) {
			snprintf(name, sizeof(name), "%s_%s",
				 ut_topo_names[topo], ut_cases[i].name);
			if (strcmp(pattern, "all") && !glob_match(pattern, name))
				continue;
			if (fatal_signal_pending(current))
				break;
			ut_run_one(&ut_cases[i], topo, name, &pass, &fail);
		}
	}
	mutex_unlock(&ut_lock);
	pr_info("xnic_ulp: '%s': %d passed, %d failed\n", pattern, pass, fail);
	return pass + fail ? 0 : -ENOENT;
}

static ssize_t ut_run_write(struct file *f, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	char buf[64];
	int ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	strim(buf);
	if (!buf[0])
		return -EINVAL;
	ret = ut_run(strim(buf));
	return ret ? ret : len;
}

static const struct file_operations ut_run_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = ut_run_write,
	.llseek = noop_llseek,
};

static ssize_t ut_results_read(struct file *f, char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&ut_lock);
	ret = simple_read_from_buffer(ubuf, len, ppos, ut_results,
				      ut_results_len);
	mutex_unlock(&ut_lock);
	return ret;
}

static const struct file_operations ut_results_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = ut_results_read,
	.llseek = default_llseek,
};

static ssize_t ut_cases_read(struct file *f, char __user *ubuf, size_t len,
			     loff_t *ppos)
{
	size_t size = ut_ncases * UT_NTOPO * 40, n = 0;
	unsigned int i;
	ssize_t ret;
	char *buf;
	int topo;

	buf = kmalloc(size, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < ut_ncases; i++)
		for (topo = 0; topo < UT_NTOPO; topo++)
			n += scnprintf(buf + n, size - n, "%s_%s\n",
				       ut_topo_names[topo], ut_cases[i].name);
	ret = simple_read_from_buffer(ubuf, len, ppos, buf, n);
	kfree(buf);
	return ret;
}

static const struct file_operations ut_cases_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = ut_cases_read,
	.llseek = default_llseek,
};

static int __init ut_init(void)
{
	ut_results = vzalloc(UT_RESULTS_SIZE);
	if (!ut_results)
		return -ENOMEM;
	ut_dir = debugfs_create_dir("xnic_ulp", NULL);
	debugfs_create_file("run", 0200, ut_dir, NULL, &ut_run_fops);
	debugfs_create_file("results", 0400, ut_dir, NULL, &ut_results_fops);
	debugfs_create_file("cases", 0400, ut_dir, NULL, &ut_cases_fops);
	return 0;
}

static void __exit ut_exit(void)
{
	debugfs_remove_recursive(ut_dir);
	vfree(ut_results);
}

module_init(ut_init);
module_exit(ut_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xnic verbs tests through the xrdma core API");
