// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma core: sysfs attributes of a device beyond the driver model's own:
 * hw_counters/<name>, one read-only file per hardware counter the driver
 * names (xrdma_device_ops.hw_counter_names), for when xrdma_ib, and with
 * it `rdma statistic`, is not loaded.  See Documentation/core.rst.
 */
#include <linux/slab.h>
#include <linux/sysfs.h>
#include "core_priv.h"

struct xrdma_hw_counters_sysfs {
	struct attribute_group group;
	const struct attribute_group *groups[2];
	struct attribute **attrs;
	struct device_attribute dattr[];
};

static ssize_t xrdma_hw_counter_show(struct device *device,
				     struct device_attribute *attr, char *buf)
{
	struct xrdma_device *dev = container_of(device, struct xrdma_device,
						dev);
	u32 i = attr - dev->hw_ctr->dattr;
	u64 *vals;
	int ret;

	vals = kcalloc(i + 1, sizeof(*vals), GFP_KERNEL);
	if (!vals)
		return -ENOMEM;
	ret = xrdma_query_hw_counters(dev, vals, i + 1);
	if (!ret)
		ret = sysfs_emit(buf, "%llu\n", vals[i]);
	kfree(vals);
	return ret;
}

/**
 * xrdma_query_hw_counters - read a device's hardware counters
 * @dev: device
 * @values: filled with the first @num counters, in the order of
 *	    dev->ops->hw_counter_names
 * @num: 1 to dev->ops->num_hw_counters
 *
 * Sleeps.
 * Return: 0, -EOPNOTSUPP (no counters), -EINVAL (@num), or the driver's
 * error.
 */
int xrdma_query_hw_counters(struct xrdma_device *dev, u64 *values, u32 num)
{
	if (!dev->ops->get_hw_counters)
		return -EOPNOTSUPP;
	if (!num || num > dev->ops->num_hw_counters)
		return -EINVAL;
	return dev->ops->get_hw_counters(dev, values, num);
}
EXPORT_SYMBOL_GPL(xrdma_query_hw_counters);

/**
 * xrdma_hw_counters_init - the hw_counters group, before device_add()
 * @dev: device being registered
 *
 * Nothing if the driver has no counters.  Freed by
 * xrdma_hw_counters_free() when the device is released.
 *
 * Return: 0, -EINVAL (names without a reader), or -ENOMEM.
 */
int xrdma_hw_counters_init(struct xrdma_device *dev)
{
	const struct xrdma_device_ops *ops = dev->ops;
	struct xrdma_hw_counters_sysfs *hc;
	u32 i, n = ops->num_hw_counters;

	if (!n)
		return 0;
	if (!ops->get_hw_counters || !ops->hw_counter_names)
		return -EINVAL;
	if (dev->hw_ctr)
		return 0;
	hc = kzalloc(struct_size(hc, dattr, n), GFP_KERNEL);
	if (!hc)
		return -ENOMEM;
	hc->attrs = kcalloc(n + 1, sizeof(*hc->attrs), GFP_KERNEL);
	if (!hc->attrs) {
		kfree(hc);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct device_attribute *da = &hc->dattr[i];

		sysfs_attr_init(&da->attr);
		da->attr.name = ops->hw_counter_names[i];
		da->attr.mode = xrdma_hw_counter_private(dev, i) ? 0400 : 0444;
		da->show = xrdma_hw_counter_show;
		hc->attrs[i] = &da->attr;
	}
	hc->group.name = "hw_counters";
	hc->group.attrs = hc->attrs;
	hc->groups[0] = &hc->group;
	dev->hw_ctr = hc;
	dev->dev.groups = hc->groups;
	return 0;
}

/**
 * xrdma_hw_counters_free - undo xrdma_hw_counters_init()
 * @dev: device being released (its sysfs files are gone)
 */
void xrdma_hw_counters_free(struct xrdma_device *dev)
{
	if (!dev->hw_ctr)
		return;
	kfree(dev->hw_ctr->attrs);
	kfree(dev->hw_ctr);
	dev->hw_ctr = NULL;
}
