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
#include <linux/slab.h>
#include <linux/string.h>
#include "ktest.h"
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

static const char *const ut_topo_names[UT_NTOPO] = {
	[UT_LOOP] = "loop",
	[UT_D2D] = "d2d",
};

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

/* ktest: case @i is ut_cases[i / UT_NTOPO] in topology i % UT_NTOPO */
static void ut_case_name(unsigned int i, char *buf, size_t size)
{
	snprintf(buf, size, "%s_%s", ut_topo_names[i % UT_NTOPO],
		 ut_cases[i / UT_NTOPO].name);
}

static bool ut_run_one(struct ktest *kt, unsigned int idx, const char *name)
{
	const struct ut_case *c = &ut_cases[idx / UT_NTOPO];
	const char *const names[2] = { dev0, dev1 };
	unsigned int before[2][XRDMA_RES_MAX], after[2][XRDMA_RES_MAX];
	enum ut_topo topo = idx % UT_NTOPO;
	bool present[2], dummy, pass;
	struct ut *t;
	int d, i;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t) {
		ktest_report(kt, name, false, "no memory");
		return false;
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
	ktest_report(kt, name, !t->failed, t->failed ? t->detail :
		     t->note[0] ? t->note : "ok");
	pass = !t->failed;
	kfree(t);
	return pass;
}

static struct ktest ut_kt = {
	.name = "xnic_ulp",
	.results_size = 64 * 1024,
	.case_name = ut_case_name,
	.run_case = ut_run_one,
};

static int __init ut_init(void)
{
	ut_kt.ncases = ut_ncases * UT_NTOPO;
	return ktest_init(&ut_kt);
}

static void __exit ut_exit(void)
{
	ktest_exit(&ut_kt);
}

module_init(ut_init);
module_exit(ut_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xnic verbs tests through the xrdma core API");
