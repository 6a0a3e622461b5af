// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs: xrdma/<device>/resources lists every live object with its owner,
 * preceded by one "<type> <count>" summary line per type.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/pid.h>
#include "core_priv.h"

static struct dentry *xrdma_debugfs_root;

const char *const xrdma_res_type_names[XRDMA_RES_MAX] = {
	[XRDMA_RES_PD] = "pd",
	[XRDMA_RES_CQ] = "cq",
	[XRDMA_RES_QP] = "qp",
	[XRDMA_RES_SRQ] = "srq",
	[XRDMA_RES_MR] = "mr",
	[XRDMA_RES_AH] = "ah",
	[XRDMA_RES_MW] = "mw",
	[XRDMA_RES_XRCD] = "xrcd",
};

static int xrdma_resources_show(struct seq_file *s, void *unused)
{
	struct xrdma_device *dev = s->private;
	struct xrdma_res *res;
	unsigned long index;
	int t;

	for (t = 0; t < XRDMA_RES_MAX; t++)
		seq_printf(s, "%s %u\n", xrdma_res_type_names[t],
			   xrdma_res_count(dev, t));

	for (t = 0; t < XRDMA_RES_MAX; t++) {
		xa_lock_irq(&dev->res[t]);
		xa_for_each(&dev->res[t], index, res) {
			if (res->pid)
				seq_printf(s, "%s %u pid %d\n",
					   xrdma_res_type_names[t], res->id,
					   pid_vnr(res->pid));
			else
				seq_printf(s, "%s %u kern %s\n",
					   xrdma_res_type_names[t], res->id,
					   res->kern_name);
		}
		xa_unlock_irq(&dev->res[t]);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(xrdma_resources);

void xrdma_debugfs_add_device(struct xrdma_device *dev)
{
	dev->debugfs = debugfs_create_dir(dev->name, xrdma_debugfs_root);
	debugfs_create_file("resources", 0400, dev->debugfs, dev,
			    &xrdma_resources_fops);
}

void xrdma_debugfs_remove_device(struct xrdma_device *dev)
{
	debugfs_remove_recursive(dev->debugfs);
	dev->debugfs = NULL;
}

void xrdma_debugfs_init(void)
{
	xrdma_debugfs_root = debugfs_create_dir("xrdma", NULL);
}

void xrdma_debugfs_cleanup(void)
{
	debugfs_remove_recursive(xrdma_debugfs_root);
}
