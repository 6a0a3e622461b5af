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
#include "xnic_ulp.h"

static char *dev0 = "xnic0";
module_param(dev0, charp, 0444);
MODULE_PARM_DESC(dev0, "first device (loopback cases use it alone)");
static char *dev1 = "xnic1";
module_param(dev1, charp, 0444);
MODULE_PARM_DESC(dev1, "second device, cabled to the first");
unsigned int ulpt_timeout_ms = 5000;
module_param_named(timeout_ms, ulpt_timeout_ms, uint, 0644);
MODULE_PARM_DESC(timeout_ms, "bound of every wait for a completion or event");

static const char *const ulpt_topo_names[ULPT_NTOPO] = {
	[ULPT_LOOP] = "loop",
	[ULPT_D2D] = "d2d",
};

/* objects of every type on a device, or -1 if it is not there */
static void ulpt_count(const char *name, unsigned int c[XRDMA_RES_MAX],
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

static const char *const ulpt_res_names[XRDMA_RES_MAX] = {
	"pd", "cq", "qp", "srq", "mr", "ah",
};

/* ktest: case @i is ulpt_cases[i / ULPT_NTOPO] in topology i % ULPT_NTOPO */
static void ulpt_case_name(unsigned int i, char *buf, size_t size)
{
	snprintf(buf, size, "%s_%s", ulpt_topo_names[i % ULPT_NTOPO],
		 ulpt_cases[i / ULPT_NTOPO].name);
}

static bool ulpt_run_one(struct ktest *kt, unsigned int idx, const char *name)
{
	const struct ulpt_case *c = &ulpt_cases[idx / ULPT_NTOPO];
	const char *const names[2] = { dev0, dev1 };
	unsigned int before[2][XRDMA_RES_MAX], after[2][XRDMA_RES_MAX];
	enum ulpt_topo topo = idx % ULPT_NTOPO;
	bool present[2], dummy, pass;
	struct ulpt *t;
	int d, i;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t) {
		ktest_report(kt, name, false, "no memory");
		return false;
	}
	for (d = 0; d < 2; d++)
		ulpt_count(names[d], before[d], &present[d]);
	t->name = name;
	t->arg = c->arg;
	if (!ulpt_env_init(t, topo, names))
		c->fn(t);
	ulpt_env_fini(t);
	for (d = 0; d < 2; d++) {
		if (!present[d])
			continue;
		ulpt_count(names[d], after[d], &dummy);
		for (i = 0; i < XRDMA_RES_MAX; i++)
			ULPT_OK(t, after[d][i] == before[d][i],
				"leak on %s: %u %s objects before, %u after",
				names[d], before[d][i], ulpt_res_names[i],
				after[d][i]);
	}
	ktest_report(kt, name, !t->failed, t->failed ? t->detail :
		     t->note[0] ? t->note : "ok");
	pass = !t->failed;
	kfree(t);
	return pass;
}

static struct ktest ulpt_kt = {
	.name = "xnic_ulp",
	.results_size = 64 * 1024,
	.case_name = ulpt_case_name,
	.run_case = ulpt_run_one,
};

static int __init ulpt_init(void)
{
	ulpt_kt.ncases = ulpt_ncases * ULPT_NTOPO;
	return ktest_init(&ulpt_kt);
}

static void __exit ulpt_exit(void)
{
	ktest_exit(&ulpt_kt);
}

module_init(ulpt_init);
module_exit(ulpt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xnic verbs tests through the xrdma core API");
