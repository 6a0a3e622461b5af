// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_sim: the module: parameters and platform devices.
 *
 * Loading creates ndev platform devices "xnic" (platform data: struct
 * xnic_bus), each with one port and its own engine thread; ports are
 * cabled in pairs (or as the cable parameter says).  Unloading
 * unregisters the devices first (a bound driver is removed, using the
 * still running engines), then stops the engines and frees the rest.
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include "xnic_sim.h"

static unsigned int ndev = 1;
module_param(ndev, uint, 0444);
MODULE_PARM_DESC(ndev, "number of devices, 1..8 (default 1)");

static char *cable;
module_param(cable, charp, 0444);
MODULE_PARM_DESC(cable,
		 "port cabling: \"a-b,c-d\", \"none\" (default: 0-1,2-3,...)");

module_param_named(idle_us, xnic_sim_idle_us, uint, 0644);
MODULE_PARM_DESC(idle_us, "engine polling time without work before it sleeps (default 100)");

module_param_named(kick_run, xnic_sim_kick_serve_on, bool, 0644);
MODULE_PARM_DESC(kick_run, "a KICK written from process context is served in the writer's context (default 1)");

static struct xnic_sim_dev *xnic_sim_devs[XNIC_SIM_MAX_DEV];
static struct dentry *xnic_sim_dbg_root;

/* ------------------------------------------------------------------ */
/* Devices                                                             */

static int xnic_sim_dev_add(struct xnic_sim_dev *dev)
{
	struct platform_device *pdev;
	int ret;

	pdev = platform_device_alloc(XNIC_PLATFORM_NAME, dev->index);
	if (!pdev)
		return -ENOMEM;
	/*
	 * The model's memory is the node's it runs on: a node makes the
	 * platform device show numa_node in sysfs, which RDMA userspace and
	 * ib_core's device/numa_node (xrdma_ib) expect.
	 */
	set_dev_node(&pdev->dev, numa_node_id());
	ret = platform_device_add_data(pdev, &dev->pdata, sizeof(dev->pdata));
	if (ret)
		goto err;
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		goto err;
	dev->pdev = pdev;
	ret = platform_device_add(pdev);
	if (ret) {
		dev->pdev = NULL;
		goto err;
	}
	return 0;
err:
	platform_device_put(pdev);
	return ret;
}

/* Tear down every device: unbind the driver, stop engines, free. */
static void xnic_sim_destroy_all(void)
{
	int i;

	for (i = 0; i < XNIC_SIM_MAX_DEV; i++) {
		struct xnic_sim_dev *dev = xnic_sim_devs[i];

		if (dev && dev->pdev) {
			platform_device_unregister(dev->pdev);
			dev->pdev = NULL;
		}
	}
	for (i = 0; i < XNIC_SIM_MAX_DEV; i++)
		if (xnic_sim_devs[i])
			xnic_sim_dev_stop(xnic_sim_devs[i]);
	debugfs_remove_recursive(xnic_sim_dbg_root);
	xnic_sim_dbg_root = NULL;
	for (i = 0; i < XNIC_SIM_MAX_DEV; i++) {
		struct xnic_sim_dev *dev = xnic_sim_devs[i];

		if (!dev)
			continue;
		xnic_sim_clear(dev);
		irq_work_sync(&dev->irq_work);
	}
	for (i = 0; i < XNIC_SIM_MAX_DEV; i++) {
		if (xnic_sim_devs[i])
			xnic_sim_dev_free(xnic_sim_devs[i]);
		xnic_sim_devs[i] = NULL;
	}
}

static int __init xnic_sim_init(void)
{
	int peer[XNIC_SIM_MAX_DEV];
	int i, ret;

	if (ndev < 1 || ndev > XNIC_SIM_MAX_DEV) {
		pr_err("xnic_sim: ndev must be 1..%d\n", XNIC_SIM_MAX_DEV);
		return -EINVAL;
	}
	if (xnic_sim_parse_cable(cable, ndev, peer)) {
		pr_err("xnic_sim: bad cable parameter \"%s\"\n", cable);
		return -EINVAL;
	}
	xnic_sim_dbg_root = debugfs_create_dir("xnic_sim", NULL);
	for (i = 0; i < ndev; i++) {
		xnic_sim_devs[i] = xnic_sim_dev_alloc(i);
		if (!xnic_sim_devs[i]) {
			ret = -ENOMEM;
			goto err;
		}
	}
	for (i = 0; i < ndev; i++)
		if (peer[i] >= 0)
			xnic_sim_devs[i]->peer = xnic_sim_devs[peer[i]];
	for (i = 0; i < ndev; i++) {
		ret = xnic_sim_dev_start(xnic_sim_devs[i], xnic_sim_dbg_root);
		if (ret)
			goto err;
	}
	for (i = 0; i < ndev; i++) {
		ret = xnic_sim_dev_add(xnic_sim_devs[i]);
		if (ret)
			goto err;
	}
	pr_info("xnic_sim: %u device%s\n", ndev, ndev > 1 ? "s" : "");
	return 0;
err:
	xnic_sim_destroy_all();
	return ret;
}

static void __exit xnic_sim_exit(void)
{
	xnic_sim_destroy_all();
}

module_init(xnic_sim_init);
module_exit(xnic_sim_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xnic device model (software RDMA NIC)");
