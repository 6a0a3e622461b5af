// SPDX-License-Identifier: GPL-2.0
/*
 * xnic: the platform driver.  Device bring-up and teardown: reset, the
 * command and event queues (xnic_cmdq.c, xnic_eq.c) given to the device,
 * its capabilities, the kernel's doorbell page, the ports' netdevs
 * (xnic_eth.c), registration with the core; and the module.
 */
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/string.h>
#include <xrdma/compat.h>
#include "xnic.h"

#define CREATE_TRACE_POINTS
#include "xnic_trace.h"
/* once: kunit/xnic_drv_test.c includes the driver's .c files together */
#undef CREATE_TRACE_POINTS

static bool recover = true;
module_param(recover, bool, 0644);
MODULE_PARM_DESC(recover,
		 "reset and probe again a device that failed (DEVICE_FATAL, a command timed out)");

/* recoveries; drained at module exit */
static struct workqueue_struct *xnic_wq;
/* probes made: a recovery is for the instance that failed */
static atomic64_t xnic_gen;

struct xnic_recovery {
	struct work_struct work;
	struct device *dev;	/* a reference */
	u64 gen;		/* the instance that failed */
};

/*
 * Unbind the failed instance and probe the device again, as the driver
 * core does for an unbind and a bind through sysfs: the unbind
 * unregisters the device (users are disassociated, kernel clients get
 * DEVICE_REMOVAL), the probe resets the function and registers it anew.
 * Nothing is done if the instance went away meanwhile (an unbind or a
 * module unload came first).
 */
static void xnic_recover_work(struct work_struct *work)
{
	struct xnic_recovery *r = container_of(work, struct xnic_recovery,
					       work);
	struct device *dev = r->dev;
	struct xnic_dev *xdev;
	bool same;
	int ret;

	device_lock(dev);
	/* bound: the instance lives until we let go of the lock */
	xdev = dev->driver ? dev_get_drvdata(dev) : NULL;
	same = xdev && xdev->gen == r->gen;
	/* the kernel's work requests are flushed before the unbind waits */
	if (same)
		xnic_cmd_kill(xdev);
	device_unlock(dev);
	if (same) {
		dev_warn(dev, "resetting the device after its fatal error\n");
		device_release_driver(dev);
		ret = device_attach(dev);
		if (ret <= 0)
			dev_err(dev, "not back after the reset: %d\n", ret);
		else
			dev_info(dev, "recovered\n");
	}
	put_device(dev);
	kfree(r);
}

/**
 * xnic_recover - recover a device that failed
 * @xdev: device (DEVICE_FATAL seen, or its command path died)
 *
 * Any context; once per instance; not with the recover parameter off.
 * As mlx5's health recovery, but by the driver core's unbind and probe.
 */
void xnic_recover(struct xnic_dev *xdev)
{
	struct xnic_recovery *r;

	/* no workqueue: the driver is not registered (KUnit probes by hand) */
	if (!READ_ONCE(recover) || !xnic_wq ||
	    test_and_set_bit(0, &xdev->recovering))
		return;
	r = kzalloc(sizeof(*r), GFP_ATOMIC);
	if (!r) {
		dev_err(&xdev->pdev->dev, "no memory to recover the device\n");
		return;
	}
	INIT_WORK(&r->work, xnic_recover_work);
	r->dev = get_device(&xdev->pdev->dev);
	r->gen = xdev->gen;
	queue_work(xnic_wq, &r->work);
}

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

/**
 * xnic_caps_from_hw - QUERY_CAPS output in CPU byte order
 * @caps: filled in
 * @out: the command's output
 */
static void xnic_caps_from_hw(struct xnic_caps *caps,
			      const struct xnic_cmd_query_caps_out *out)
{
	caps->max_mr_size = le64_to_cpu(out->max_mr_size);
	caps->page_size_cap = le64_to_cpu(out->page_size_cap);
	caps->vendor_id = le32_to_cpu(out->vendor_id);
	caps->vendor_part_id = le32_to_cpu(out->vendor_part_id);
	caps->hw_ver = le32_to_cpu(out->hw_ver);
	caps->max_qp = le32_to_cpu(out->max_qp);
	caps->max_qp_wr = le32_to_cpu(out->max_qp_wr);
	caps->max_sge = le32_to_cpu(out->max_sge);
	caps->max_inline = le32_to_cpu(out->max_inline);
	caps->max_cq = le32_to_cpu(out->max_cq);
	caps->max_cqe = le32_to_cpu(out->max_cqe);
	caps->max_mr = le32_to_cpu(out->max_mr);
	caps->max_srq = le32_to_cpu(out->max_srq);
	caps->max_srq_wr = le32_to_cpu(out->max_srq_wr);
	caps->max_rd_atom = le32_to_cpu(out->max_rd_atom);
	caps->max_fast_reg_pages = le32_to_cpu(out->max_fast_reg_pages);
	caps->max_mw = le32_to_cpu(out->max_mw);
	caps->num_ports = le32_to_cpu(out->num_ports);
	caps->port_state = le32_to_cpu(out->port_state);
	caps->port_mtu = le32_to_cpu(out->port_mtu);

	/* what this driver can express, whatever the device says */
	caps->max_sge = min(caps->max_sge,
			    xnic_sq_wqe_max_sge(XNIC_MAX_WQE_SHIFT));
	caps->max_inline = min(caps->max_inline,
			       xnic_sq_wqe_max_inline(XNIC_MAX_WQE_SHIFT));
	caps->max_qp_wr = min(caps->max_qp_wr, 1U << 16);
	caps->max_srq_wr = min(caps->max_srq_wr, 1U << 16);
	caps->max_cqe = min(caps->max_cqe, 1U << 22);
	caps->max_qp = min(caps->max_qp, 1U << 24);
	/* every CQ can have two events in the EQ (xnic.h) */
	caps->max_cq = min(caps->max_cq, 1U << (XNIC_EQ_LOG - 2));
	caps->max_srq = min(caps->max_srq, 1U << 24);
	/* the core gives MRs and windows half of the key space each */
	caps->max_mr = min(caps->max_mr, XRDMA_MW_INDEX_BASE - 1);
	caps->max_mw = min(caps->max_mw, XRDMA_MW_INDEX_BASE - 1);
	caps->max_fast_reg_pages = min(caps->max_fast_reg_pages, 1U << 16);
}

/**
 * xnic_fill_device_attr - the verbs device attributes
 * @attr: filled in
 * @caps: the device's limits (xnic_caps_from_hw())
 * @out: QUERY_CAPS output, for the GUID and firmware version bytes
 */
static void xnic_fill_device_attr(struct xrdma_device_attr *attr,
				  const struct xnic_caps *caps,
				  const struct xnic_cmd_query_caps_out *out)
{
	size_t n;

	memset(attr, 0, sizeof(*attr));
	n = strnlen((const char *)out->fw_ver, sizeof(out->fw_ver));
	memcpy(attr->fw_ver, out->fw_ver, n);
	attr->fw_ver[n] = '\0';
	/* the GUID's bytes are stored big-endian */
	memcpy(&attr->node_guid, &out->node_guid, sizeof(attr->node_guid));
	attr->max_mr_size = caps->max_mr_size;
	attr->page_size_cap = caps->page_size_cap;
	attr->vendor_id = caps->vendor_id;
	attr->vendor_part_id = caps->vendor_part_id;
	attr->hw_ver = caps->hw_ver;
	attr->device_cap_flags = XRDMA_DEVICE_MEM_MGT_EXTENSIONS |
				 XRDMA_DEVICE_SRQ_RESIZE |
				 XRDMA_DEVICE_RC_RNR_NAK_GEN;
	if (caps->max_mw)
		attr->device_cap_flags |= XRDMA_DEVICE_MEM_WINDOW |
					  XRDMA_DEVICE_MEM_WINDOW_TYPE_2B;
	attr->max_mw = caps->max_mw;
	attr->max_qp = caps->max_qp;
	attr->max_qp_wr = caps->max_qp_wr;
	attr->max_sge = caps->max_sge;
	attr->max_sge_rd = caps->max_sge;
	attr->max_inline_data = caps->max_inline;
	attr->max_cq = caps->max_cq;
	attr->max_cqe = caps->max_cqe;
	attr->max_mr = caps->max_mr;
	attr->max_pd = 1U << 24;
	attr->max_qp_rd_atom = caps->max_rd_atom;
	attr->max_qp_init_rd_atom = caps->max_rd_atom;
	attr->max_srq = caps->max_srq;
	attr->max_srq_wr = caps->max_srq_wr;
	attr->max_srq_sge = caps->max_sge;
	attr->max_ah = 1U << 24;
	attr->max_fast_reg_page_list_len = caps->max_fast_reg_pages;
	attr->atomic_cap = XRDMA_ATOMIC_HCA;
	/* the multicast group table's size is fixed by the PRM */
	attr->max_mcast_grp = XNIC_MCG_MAX;
	attr->max_mcast_qp_attach = XNIC_MCG_MAX_QP;
	attr->max_total_mcast_qp_attach = XNIC_MCG_MAX_ATTACH;
	/* a context holds a doorbell page; index 0 is the kernel's */
	attr->max_ucontext = XNIC_MAX_DB_INDEX - 1;
}

static int xnic_query_caps(struct xnic_dev *xdev)
{
	struct xnic_cmd_query_caps_out out;
	int ret, state;

	ret = xnic_cmd_exec(xdev, XNIC_CMD_QUERY_CAPS, NULL, 0, &out,
			    sizeof(out));
	if (ret)
		return ret;
	xnic_caps_from_hw(&xdev->caps, &out);
	xnic_fill_device_attr(&xdev->ibdev.attr, &xdev->caps, &out);
	xdev->features = xnic_rd(xdev, XNIC_REG_FEATURES);
	if (xdev->features & XNIC_FEAT_XRC) {
		xdev->ibdev.attr.device_cap_flags |= XRDMA_DEVICE_XRC;
		xdev->ibdev.attr.max_xrcd = XNIC_MAX_XRCD;
	}
	if (xdev->features & XNIC_FEAT_ATOMIC_WRITE)
		xdev->ibdev.attr.device_cap_flags |= XRDMA_DEVICE_ATOMIC_WRITE;
	if (xdev->features & XNIC_FEAT_FLUSH_GLOBAL)
		xdev->ibdev.attr.device_cap_flags |= XRDMA_DEVICE_FLUSH_GLOBAL;
	if (xdev->features & XNIC_FEAT_FLUSH_PERSISTENT)
		xdev->ibdev.attr.device_cap_flags |=
			XRDMA_DEVICE_FLUSH_PERSISTENT;
	if (!xdev->caps.num_ports)
		return -ENODEV;
	xdev->ibdev.num_ports = min_t(u32, xdev->caps.num_ports,
				      XRDMA_MAX_PORTS);
	state = xnic_port_state_from_hw(xdev->caps.port_state);
	if (state < 0) {
		dev_warn(&xdev->pdev->dev, "unknown port state %u: taken as down\n",
			 xdev->caps.port_state);
		state = XRDMA_PORT_DOWN;
	}
	xdev->port_state = state;
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
	xnic_gid_init(xdev);
	return xnic_alloc_kernel_db(xdev);
}

static void xnic_remove(void *data)
{
	struct xnic_dev *xdev = data;

	/* every object, kernel and user, is destroyed when this returns */
	xrdma_unregister_device(&xdev->ibdev);
	xnic_eth_fini(xdev);
	xnic_dm_fini(xdev);
	xnic_free_kernel_db(xdev);
	xnic_free_queues(xdev, xnic_hw_stop(xdev));
	WARN_ON(!xa_empty(&xdev->qp_xa) || !xa_empty(&xdev->srq_xa));
	xa_destroy(&xdev->qp_xa);
	xa_destroy(&xdev->srq_xa);
	ida_destroy(&xdev->xrcd_ida);
	ida_destroy(&xdev->kslot_ida);
	ida_destroy(&xdev->db_ida);
	mutex_destroy(&xdev->cmd_lock);
	xrdma_dealloc_device(&xdev->ibdev);
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
	xdev->gen = atomic64_inc_return(&xnic_gen);
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
	ida_init(&xdev->xrcd_ida);
	xa_init(&xdev->qp_xa);
	xa_init(&xdev->srq_xa);
	mutex_init(&xdev->kcq_mutex);
	INIT_LIST_HEAD(&xdev->kcqs);

	ret = xnic_hw_start(xdev);
	if (ret)
		goto err_stop;
	ret = xnic_dm_init(xdev);
	if (ret)
		goto err_stop;
	/* the port's netdev lives longer than the registration */
	ret = xnic_eth_init(xdev);
	if (ret)
		goto err_stop;

	xdev->ibdev.dma_device = xdev->dma_dev;
	ret = xrdma_register_device(&xdev->ibdev, "xnic%d", &pdev->dev);
	if (ret) {
		dev_err(&pdev->dev, "xrdma_register_device: %d\n", ret);
		xnic_eth_fini(xdev);
		goto err_stop;
	}
	platform_set_drvdata(pdev, xdev);
	dev_info(&pdev->dev, "%s: fw %s, %u QPs, %u CQs, %u MRs\n",
		 xdev->ibdev.name, xdev->ibdev.attr.fw_ver, xdev->caps.max_qp,
		 xdev->caps.max_cq, xdev->caps.max_mr);
	/*
	 * Teardown at unbind is a device-managed action rather than
	 * platform_driver.remove, whose type changed in 6.11: nothing to
	 * adapt per kernel.  On failure it runs at once.
	 */
	return devm_add_action_or_reset(&pdev->dev, xnic_remove, xdev);

err_stop:
	xnic_dm_fini(xdev);
	xnic_free_kernel_db(xdev);
	xnic_free_queues(xdev, xnic_hw_stop(xdev));
	ida_destroy(&xdev->xrcd_ida);
	ida_destroy(&xdev->kslot_ida);
	ida_destroy(&xdev->db_ida);
	mutex_destroy(&xdev->cmd_lock);
	xrdma_dealloc_device(&xdev->ibdev);
	return ret;
}

static struct platform_driver xnic_driver = {
	.driver = {
		.name = XNIC_PLATFORM_NAME,
	},
	.probe = xnic_probe,
};

static int xnic_driver_register(struct platform_driver *drv)
{
	int ret;

	xnic_wq = alloc_workqueue("xnic", WQ_UNBOUND, 0);
	if (!xnic_wq)
		return -ENOMEM;
	ret = platform_driver_register(drv);
	if (ret) {
		destroy_workqueue(xnic_wq);
		xnic_wq = NULL;
	}
	return ret;
}

static void xnic_driver_unregister(struct platform_driver *drv)
{
	platform_driver_unregister(drv);
	/* a recovery left finds no instance to recover */
	destroy_workqueue(xnic_wq);
	xnic_wq = NULL;
}

module_driver(xnic_driver, xnic_driver_register, xnic_driver_unregister);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xnic RDMA NIC driver");
MODULE_ALIAS("platform:" XNIC_PLATFORM_NAME);
