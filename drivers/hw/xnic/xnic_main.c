// SPDX-License-Identifier: GPL-2.0
/*
 * xnic: the platform driver.  Device bring-up and teardown: reset, the
 * command and event queues (xnic_cmdq.c, xnic_eq.c) given to the device,
 * its capabilities, the kernel's doorbell page, registration with the
 * core; and the module.
 */
#include <linux/delay.h>
#include <linux/module.h>
#include "xnic.h"

/**
 * xnic_hw_reset - reset the device
 * @xdev: device
 *
 * Polls STATUS.READY, bounded: once it is set the device holds no
 * reference to host memory (registers.rst, RESET).  Sleeps.
 *
 * Return: 0, or -ETIMEDOUT if the device did not become ready.
 */
int xnic_hw_reset(struct xnic_dev *xdev)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(2000);

	xnic_wr(xdev, XNIC_REG_RESET, 1);
	while (!(xnic_rd(xdev, XNIC_REG_STATUS) & XNIC_STATUS_READY)) {
		if (time_after(jiffies, deadline)) {
			dev_err(&xdev->pdev->dev, "device not ready after reset\n");
			return -ETIMEDOUT;
		}
		usleep_range(100, 200);
	}
	return 0;
}

static int xnic_query_caps(struct xnic_dev *xdev)
{
	struct xnic_cmd_query_caps_out out;
	int ret;

	ret = xnic_cmd_exec(xdev, XNIC_CMD_QUERY_CAPS, NULL, 0, &out,
			    sizeof(out));
	if (ret)
		return ret;
	xnic_caps_from_hw(&xdev->caps, &out);
	xnic_fill_device_attr(&xdev->ibdev.attr, &xdev->caps, &out);
	if (!xdev->caps.num_ports)
		return -ENODEV;
	xdev->ibdev.num_ports = min_t(u32, xdev->caps.num_ports,
				      XRDMA_MAX_PORTS);
	xdev->port_state = xdev->caps.port_state;
	return 0;
}

static int xnic_alloc_kernel_db(struct xnic_dev *xdev)
{
	struct xnic_cmd_alloc_db c = {};
	int ret;

	ret = xnic_dma_alloc(xdev, &xdev->kdb, XNIC_DB_PAGE_SIZE);
	if (ret)
		return ret;
	c.db_index = cpu_to_le32(XNIC_KERNEL_DB_INDEX);
	c.page_addr = cpu_to_le64(xdev->kdb.dma);
	ret = xnic_cmd_exec(xdev, XNIC_CMD_ALLOC_DB, &c, sizeof(c), NULL, 0);
	if (ret) {
		xnic_dma_free(xdev, &xdev->kdb, xnic_cmd_let_go(xdev, ret));
		return ret;
	}
	xdev->kdb_allocated = true;
	return 0;
}

static void xnic_free_kernel_db(struct xnic_dev *xdev)
{
	struct xnic_cmd_alloc_db c = {};
	int ret;

	if (!xdev->kdb_allocated)
		return;
	c.db_index = cpu_to_le32(XNIC_KERNEL_DB_INDEX);
	ret = xnic_cmd_exec(xdev, XNIC_CMD_FREE_DB, &c, sizeof(c), NULL, 0);
	if (ret)
		dev_warn(&xdev->pdev->dev, "FREE_DB of the kernel doorbell page: %d\n",
			 ret);
	xdev->kdb_allocated = false;
	/* freed after the reset */
}

/*
 * Stop the device.  Return: true if its reset completed, so that every
 * queue memory may be freed; false if the device may still write it.
 */
static bool xnic_hw_stop(struct xnic_dev *xdev)
{
	bool stopped;

	xnic_wr(xdev, XNIC_REG_INTR_MASK, 1);
	xnic_wr(xdev, XNIC_REG_ENABLE, 0);
	stopped = !xnic_hw_reset(xdev);
	xnic_eq_free_irq(xdev);
	return stopped;
}

/*
 * Free the queues and the memory kept for the device, unless the device
 * did not complete its reset (@stopped false): then all of it is leaked
 * rather than freed under a device that may still write it.
 */
static void xnic_free_queues(struct xnic_dev *xdev, bool stopped)
{
	xnic_dma_free(xdev, &xdev->kdb, stopped);
	xnic_dma_free(xdev, &xdev->eq, stopped);
	xnic_dma_free(xdev, &xdev->cmdq, stopped);
	if (!stopped)
		dev_warn(&xdev->pdev->dev, "reset did not complete: leaking the memory given to the device\n");
	xnic_free_zombies(xdev, stopped);
}

static int xnic_hw_start(struct xnic_dev *xdev)
{
	int ret;

	ret = xnic_hw_reset(xdev);
	if (ret)
		return ret;
	ret = xnic_cmdq_init(xdev);
	if (ret)
		return ret;
	ret = xnic_eq_init(xdev);
	if (ret)
		return ret;
	xnic_wr(xdev, XNIC_REG_ENABLE, 1);
	if (!(xnic_rd(xdev, XNIC_REG_STATUS) & XNIC_STATUS_ENABLED))
		dev_dbg(&xdev->pdev->dev, "ENABLED not reported yet\n");

	ret = xnic_query_caps(xdev);
	if (ret) {
		dev_err(&xdev->pdev->dev, "QUERY_CAPS: %d\n", ret);
		return ret;
	}
	return xnic_alloc_kernel_db(xdev);
}

static int xnic_probe(struct platform_device *pdev)
{
	struct xnic_bus *bus = dev_get_platdata(&pdev->dev);
	struct xnic_dev *xdev;
	u32 id, ver;
	int ret;

	if (!bus || !bus->read32 || !bus->write32 || !bus->request_irq ||
	    !bus->free_irq)
		return -ENODEV;
	id = bus->read32(bus, XNIC_REG_ID);
	ver = bus->read32(bus, XNIC_REG_VERSION);
	if (id != XNIC_ID || ver != XNIC_HW_VERSION) {
		dev_err(&pdev->dev, "not an xnic (id 0x%08x version %u)\n",
			id, ver);
		return -ENODEV;
	}
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;

	xdev = xrdma_alloc_device(struct xnic_dev, ibdev, &xnic_dev_ops);
	if (!xdev)
		return -ENOMEM;
	xdev->pdev = pdev;
	xdev->dma_dev = &pdev->dev;
	xdev->bus = bus;
	mutex_init(&xdev->cmd_lock);
	init_waitqueue_head(&xdev->cmd_wq);
	spin_lock_init(&xdev->eq_lock);
	spin_lock_init(&xdev->zombie_lock);
	INIT_LIST_HEAD(&xdev->zombies);
	INIT_LIST_HEAD(&xdev->umem_zombies);
	ida_init(&xdev->db_ida);
	ida_init(&xdev->kslot_ida);
	xa_init(&xdev->qp_xa);
	xa_init(&xdev->srq_xa);

	ret = xnic_hw_start(xdev);
	if (ret)
		goto err_stop;

	ret = xrdma_register_device(&xdev->ibdev, "xnic%d", &pdev->dev);
	if (ret) {
		dev_err(&pdev->dev, "xrdma_register_device: %d\n", ret);
		goto err_stop;
	}
	platform_set_drvdata(pdev, xdev);
	dev_info(&pdev->dev, "%s: fw %s, %u QPs, %u CQs, %u MRs\n",
		 xdev->ibdev.name, xdev->ibdev.attr.fw_ver, xdev->caps.max_qp,
		 xdev->caps.max_cq, xdev->caps.max_mr);
	return 0;

err_stop:
	xnic_free_kernel_db(xdev);
	xnic_free_queues(xdev, xnic_hw_stop(xdev));
	ida_destroy(&xdev->kslot_ida);
	ida_destroy(&xdev->db_ida);
	mutex_destroy(&xdev->cmd_lock);
	xrdma_dealloc_device(&xdev->ibdev);
	return ret;
}

static int xnic_remove(struct platform_device *pdev)
{
	struct xnic_dev *xdev = platform_get_drvdata(pdev);

	/* every object, kernel and user, is destroyed when this returns */
	xrdma_unregister_device(&xdev->ibdev);
	xnic_free_kernel_db(xdev);
	xnic_free_queues(xdev, xnic_hw_stop(xdev));
	WARN_ON(!xa_empty(&xdev->qp_xa) || !xa_empty(&xdev->srq_xa));
	xa_destroy(&xdev->qp_xa);
	xa_destroy(&xdev->srq_xa);
	ida_destroy(&xdev->kslot_ida);
	ida_destroy(&xdev->db_ida);
	mutex_destroy(&xdev->cmd_lock);
	xrdma_dealloc_device(&xdev->ibdev);
	return 0;
}

static struct platform_driver xnic_driver = {
	.driver = {
		.name = XNIC_PLATFORM_NAME,
	},
	.probe = xnic_probe,
	.remove = xnic_remove,
};
module_platform_driver(xnic_driver);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xnic RDMA NIC driver");
MODULE_ALIAS("platform:" XNIC_PLATFORM_NAME);
