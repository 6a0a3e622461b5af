// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_sim: the module: parameters and platform devices.
 *
 * Loading creates ndev platform devices "xnic" (platform data: struct
 * xnic_bus), each with one port and its own engine thread; ports are
 * cabled in pairs (or as the cable parameter says), and may be on a
 * host netdev (the netdev parameter, the device's "netdev" attribute;
 * xnic_sim_wire.c).  Unloading
 * unregisters the devices first (a bound driver is removed, using the
 * still running engines), then stops the engines and frees the rest.
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>
#include <linux/ctype.h>
#include <linux/string.h>
#include "xnic_sim.h"

static unsigned int ndev = 1;
module_param(ndev, uint, 0444);
MODULE_PARM_DESC(ndev, "number of devices, 1..8 (default 1)");

static char *cable;
module_param(cable, charp, 0444);
MODULE_PARM_DESC(cable,
		 "port cabling: \"a-b,c-d\", \"none\" (default: 0-1,2-3,...)");

static char *netdev;
module_param(netdev, charp, 0444);
MODULE_PARM_DESC(netdev,
		 "the wire of each device's port, by index: \"eth0,eth1\" (empty: none); the port takes the netdev's MAC");

static char *mac;
module_param(mac, charp, 0444);
MODULE_PARM_DESC(mac,
		 "each device's MAC, by index: \"02:00:00:00:00:01,...\" (empty: the default 00:58:52:00:00:<index + 1>); the node GUID is its EUI-64");

module_param_named(idle_us, xnic_sim_idle_us, uint, 0644);
MODULE_PARM_DESC(idle_us, "engine polling time without work before it sleeps (default 100)");

module_param_named(kick_run, xnic_sim_kick_serve_on, bool, 0644);
MODULE_PARM_DESC(kick_run, "a KICK written from process context is served in the writer's context (default 1)");
module_param_named(irq_remote, xnic_sim_irq_remote_on, bool, 0644);
MODULE_PARM_DESC(irq_remote, "an engine thread's interrupts run on an online CPU other than its own (default 1)");

static struct xnic_sim_dev *xnic_sim_devs[XNIC_SIM_MAX_DEV];
static struct dentry *xnic_sim_dbg_root;

/* ------------------------------------------------------------------ */
/* The wire: parameters and the "netdev" attribute                     */

/*
 * Entry @i of a comma separated list into @buf (@size bytes): "" when
 * the list is shorter or the entry empty.  Return: -EINVAL if too long.
 */
static int xnic_sim_list_entry(const char *list, int i, char *buf,
			       size_t size)
{
	const char *p = list, *end;
	size_t n;

	buf[0] = 0;
	while (p && i--) {
		p = strchr(p, ',');
		if (p)
			p++;
	}
	if (!p)
		return 0;
	end = strchrnul(p, ',');
	n = end - p;
	if (n >= size)
		return -EINVAL;
	memcpy(buf, p, n);
	buf[n] = 0;
	strim(buf);
	return 0;
}

/*
 * A device's identity: mac=, else the MAC of its netdev= (looked up
 * now), else the default.  Return: 0 or an errno (said why).
 */
static int xnic_sim_identity(struct xnic_sim_dev *dev)
{
	char name[IFNAMSIZ], m[20];
	struct net_device *nd;
	u8 addr[ETH_ALEN];
	int ret;

	if (xnic_sim_list_entry(mac, dev->index, m, sizeof(m)) ||
	    xnic_sim_list_entry(netdev, dev->index, name, sizeof(name))) {
		pr_err("xnic_sim %d: bad mac or netdev entry\n", dev->index);
		return -EINVAL;
	}
	if (m[0]) {
		if (!mac_pton(m, addr)) {
			pr_err("xnic_sim %d: bad MAC \"%s\"\n", dev->index, m);
			return -EINVAL;
		}
	} else if (name[0]) {
		rtnl_lock();
		nd = __dev_get_by_name(&init_net, name);
		if (nd && nd->addr_len == ETH_ALEN)
			ether_addr_copy(addr, nd->dev_addr);
		rtnl_unlock();
		if (!nd) {
			pr_err("xnic_sim %d: no netdev %s\n", dev->index, name);
			return -ENODEV;
		}
	} else {
		return 0;
	}
	ret = xnic_sim_dev_set_mac(dev, addr);
	if (ret)
		pr_err("xnic_sim %d: %pM is not a unicast MAC\n", dev->index,
		       addr);
	return ret;
}

/* No two devices of the module with one identity. */
static int xnic_sim_identity_unique(int n)
{
	int i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			if (xnic_sim_devs[i]->guid == xnic_sim_devs[j]->guid) {
				pr_err("xnic_sim: devices %d and %d have one MAC\n",
				       j, i);
				return -EINVAL;
			}
	return 0;
}

/* netdev= at load: attach. */
static int xnic_sim_attach_param(struct xnic_sim_dev *dev)
{
	char name[IFNAMSIZ];
	int ret;

	if (xnic_sim_list_entry(netdev, dev->index, name, sizeof(name)) ||
	    !name[0])
		return 0;
	ret = xnic_sim_wire_attach(dev, name);
	if (ret)
		pr_err("xnic_sim %d: cannot attach to %s: %d\n", dev->index,
		       name, ret);
	return ret;
}

static struct xnic_sim_dev *xnic_sim_attr_dev(struct device *d)
{
	struct xnic_sim_pdata *pd = dev_get_platdata(d);

	return pd->dev;
}

static ssize_t netdev_show(struct device *d, struct device_attribute *attr,
			   char *buf)
{
	char name[IFNAMSIZ];

	xnic_sim_wire_ifname(xnic_sim_attr_dev(d), name);
	return sysfs_emit(buf, "%s\n", name[0] ? name : "none");
}

/*
 * Write a netdev's name to attach the port to it, "none" or nothing to
 * detach.  A sysfs attribute of the device, not netlink: the port is not
 * a netdev of its own (the driver's Ethernet function is), so there is
 * no rtnetlink link to enslave; the choice is the device model's (its
 * "cabling"), beside the other knobs of the model's devices.
 */
static ssize_t netdev_store(struct device *d, struct device_attribute *attr,
			    const char *buf, size_t count)
{
	struct xnic_sim_dev *dev = xnic_sim_attr_dev(d);
	char name[IFNAMSIZ];
	size_t n = count;
	int ret;

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	while (n && isspace(buf[n - 1]))
		n--;
	if (n >= IFNAMSIZ)
		return -EINVAL;
	memcpy(name, buf, n);
	name[n] = 0;
	if (!n || !strcmp(name, "none")) {
		xnic_sim_wire_detach(dev);
		return count;
	}
	ret = xnic_sim_wire_attach(dev, name);
	return ret ? ret : count;
}
static DEVICE_ATTR_RW(netdev);

static struct attribute *xnic_sim_attrs[] = {
	&dev_attr_netdev.attr,
	NULL,
};
ATTRIBUTE_GROUPS(xnic_sim);

/* ------------------------------------------------------------------ */
/* Devices                                                             */

static int xnic_sim_dev_add(struct xnic_sim_dev *dev)
{
	struct platform_device *pdev;
	int ret;

	pdev = platform_device_alloc(XNIC_PLATFORM_NAME, dev->index);
	if (!pdev)
		return -ENOMEM;
	pdev->dev.groups = xnic_sim_groups;
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

	/* no fault writer any more (configfs holds us while rules exist) */
	for (i = 0; i < XNIC_SIM_MAX_DEV; i++)
		if (xnic_sim_devs[i])
			xnic_sim_configfs_del(xnic_sim_devs[i]);
	for (i = 0; i < XNIC_SIM_MAX_DEV; i++) {
		struct xnic_sim_dev *dev = xnic_sim_devs[i];

		if (dev && dev->pdev) {
			platform_device_unregister(dev->pdev);
			dev->pdev = NULL;
		}
	}
	/* no flap reads a peer that is freed below */
	for (i = 0; i < XNIC_SIM_MAX_DEV; i++)
		if (xnic_sim_devs[i])
			xnic_sim_fault_quiesce(xnic_sim_devs[i]);
	/* no sysfs writer any more: off the wires, before the engines stop */
	for (i = 0; i < XNIC_SIM_MAX_DEV; i++)
		if (xnic_sim_devs[i])
			xnic_sim_wire_detach(xnic_sim_devs[i]);
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
	ret = xnic_sim_wire_module_init();
	if (ret)
		return ret;
	ret = xnic_sim_configfs_init();
	if (ret) {
		xnic_sim_wire_module_exit();
		return ret;
	}
	xnic_sim_dbg_root = debugfs_create_dir("xnic_sim", NULL);
	for (i = 0; i < ndev; i++) {
		xnic_sim_devs[i] = xnic_sim_dev_alloc(i);
		if (!xnic_sim_devs[i]) {
			ret = -ENOMEM;
			goto err;
		}
	}
	for (i = 0; i < ndev; i++) {
		ret = xnic_sim_identity(xnic_sim_devs[i]);
		if (ret)
			goto err;
	}
	ret = xnic_sim_identity_unique(ndev);
	if (ret)
		goto err;
	for (i = 0; i < ndev; i++)
		if (peer[i] >= 0)
			xnic_sim_devs[i]->peer = xnic_sim_devs[peer[i]];
	for (i = 0; i < ndev; i++) {
		ret = xnic_sim_dev_start(xnic_sim_devs[i], xnic_sim_dbg_root);
		if (ret)
			goto err;
	}
	for (i = 0; i < ndev; i++) {
		ret = xnic_sim_attach_param(xnic_sim_devs[i]);
		if (ret)
			goto err;
	}
	for (i = 0; i < ndev; i++) {
		ret = xnic_sim_dev_add(xnic_sim_devs[i]);
		if (ret)
			goto err;
	}
	for (i = 0; i < ndev; i++) {
		ret = xnic_sim_configfs_add(xnic_sim_devs[i]);
		if (ret)
			goto err;
	}
	pr_info("xnic_sim: %u device%s\n", ndev, ndev > 1 ? "s" : "");
	return 0;
err:
	xnic_sim_destroy_all();
	xnic_sim_configfs_exit();
	xnic_sim_wire_module_exit();
	return ret;
}

static void __exit xnic_sim_exit(void)
{
	xnic_sim_destroy_all();
	xnic_sim_configfs_exit();
	xnic_sim_wire_module_exit();
}

module_init(xnic_sim_init);
module_exit(xnic_sim_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xnic device model (software RDMA NIC)");
