// SPDX-License-Identifier: GPL-2.0
/*
 * Device memory (Documentation/userspace.rst, "Device memory"): memory
 * the device owns (attr.max_dm_size bytes in all, shared by every user of
 * the device), handed out zeroed by the driver,
 * mapped into the owner's process and registered as zero-based MRs
 * (xrdma_reg_dm_mr() in mr.c).  An MR on a DM holds a use of it: the DM
 * cannot be freed while one exists (-EBUSY, as ib_core's usecnt).
 *
 * Shares: a process's device memory is charged, in pages, to its uid's
 * share of max_dm_size (user_share percent, device.c; -EAGAIN beyond it)
 * for as long as the pages are out: a driver whose pages outlive free_dm
 * (still mapped) moves dm->charge to where it frees them and calls
 * xrdma_dm_uncharge() then.  Kernel callers are not charged.
 */
#include <linux/log2.h>
#include <linux/slab.h>
#include "core_priv.h"

/**
 * xrdma_alloc_dm - allocate device memory
 * @dev: device
 * @length: bytes, 1..attr.max_dm_size
 * @log_align: log2 of the alignment asked for in the device's memory
 * @udata: driver data of a user command (the memory is mapped by that
 *	   process at dm->mmap_offset), NULL for kernel callers
 *
 * Return: the DM, or an ERR_PTR: -EOPNOTSUPP if the device has none,
 * -EINVAL for a zero length, one above max_dm_size (as mlx5) or an
 * alignment above the device memory's size, -EAGAIN if a process's uid
 * would hold more than its share of max_dm_size, -ENOMEM if the device
 * has no such free range left (all users share max_dm_size), or another
 * negative errno.
 */
struct xrdma_dm *xrdma_alloc_dm(struct xrdma_device *dev, u64 length,
				u32 log_align, struct xrdma_udata *udata)
{
	u64 max = dev->attr.max_dm_size;
	struct xrdma_dm *dm;
	int ret;

	if (!max || !dev->ops->alloc_dm || !dev->ops->free_dm)
		return ERR_PTR(-EOPNOTSUPP);
	if (!length || length > max || log_align >= 64 ||
	    BIT_ULL(log_align) > max)
		return ERR_PTR(-EINVAL);
	if (!xrdma_device_try_get(dev))
		return ERR_PTR(-ENODEV);
	dm = kzalloc(max_t(size_t, dev->ops->size_dm, sizeof(*dm)),
		     GFP_KERNEL_ACCOUNT);
	if (!dm) {
		xrdma_device_put(dev);
		return ERR_PTR(-ENOMEM);
	}
	dm->device = dev;
	dm->length = length;
	atomic_set(&dm->usecnt, 1);
	if (udata) {
		/* length <= max_dm_size: the page count fits */
		dm->charge.npages = DIV_ROUND_UP_ULL(length, PAGE_SIZE);
		ret = xrdma_user_charge_n(dev, XRDMA_ULIM_DM,
					  dm->charge.npages, &dm->charge.uc);
		if (ret)
			goto err_free;
	}
	ret = dev->ops->alloc_dm(dm, log_align, udata);
	if (ret)
		goto err_uncharge;
	return dm;

err_uncharge:
	xrdma_dm_uncharge(dev, &dm->charge);
err_free:
	kfree(dm);
	xrdma_device_put(dev);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(xrdma_alloc_dm);

/**
 * xrdma_free_dm - free device memory
 * @dm: from xrdma_alloc_dm()
 *
 * Return: 0, or -EBUSY while an MR is registered on it (nothing changes).
 */
int xrdma_free_dm(struct xrdma_dm *dm)
{
	struct xrdma_device *dev = dm->device;

	if (atomic_cmpxchg(&dm->usecnt, 1, 0) != 1)
		return -EBUSY;
	dev->ops->free_dm(dm);
	/* unless the driver took the charge along with the pages */
	xrdma_dm_uncharge(dev, &dm->charge);
	kfree(dm);
	xrdma_device_put(dev);
	return 0;
}
EXPORT_SYMBOL_GPL(xrdma_free_dm);

/**
 * xrdma_dm_uncharge - give a DM's pages back to its uid's share
 * @dev: the DM's device (registered: before its last user is gone)
 * @c: dm->charge, or where the driver moved it; cleared, so a second
 *     call (or one on a kernel DM's empty charge) does nothing
 *
 * For a driver that keeps a DM's pages after its free_dm: it moves
 * dm->charge (and clears it) in free_dm, and calls this when the pages
 * are free again.
 */
void xrdma_dm_uncharge(struct xrdma_device *dev, struct xrdma_dm_charge *c)
{
	xrdma_user_uncharge_n(dev, XRDMA_ULIM_DM, c->npages, &c->uc);
	c->npages = 0;
}
EXPORT_SYMBOL_GPL(xrdma_dm_uncharge);
