// SPDX-License-Identifier: GPL-2.0
/*
 * The verbs: object creation and destruction with their dependency rules;
 * here the use counts and object allocation every object file shares, the
 * device and port queries, PDs and AHs (address vectors).  The other
 * objects have files of their own: cq.c, srq.c, qp.c (with multicast),
 * mr.c (MRs, MWs), dm.c, xrcd.c; qp_state.c checks QP state transitions.
 *
 * Every object holds a user reference on its device and a use count on
 * each object it depends on.  Use counts start at one while the object
 * lives; destroy succeeds only by moving the count from one to zero
 * (xrdma_use_kill), and a dependent takes a use only while the count is
 * not zero (xrdma_use_get), so "destroy while in use" gives -EBUSY and
 * "create on a dying object" gives -EINVAL, without a lock.
 */
#include <linux/slab.h>
#include "core_priv.h"

bool xrdma_use_get(atomic_t *usecnt)
{
	return atomic_inc_not_zero(usecnt);
}

void xrdma_use_put(atomic_t *usecnt)
{
	WARN_ON(atomic_dec_return(usecnt) < 1);
}

bool xrdma_use_kill(atomic_t *usecnt)
{
	return atomic_cmpxchg(usecnt, 1, 0) == 1;
}

/*
 * Allocate a driver-sized object and reserve its number: @id, or the next
 * free one if @id is 0.  The device user reference is taken here and
 * dropped by xrdma_obj_free().  A process's object (no @caller) is charged
 * to its rdma cgroup and its uid's share here too: -EAGAIN when either is
 * used up.  With a @gfp that does not block (kernel objects only, @id 0)
 * nothing here sleeps.
 */
void *xrdma_obj_alloc_id(struct xrdma_device *dev, size_t size,
			 enum xrdma_res_type type, const char *caller,
			 gfp_t gfp, u32 id)
{
	struct xrdma_res *res;
	int ret;

	if (!xrdma_device_try_get(dev))
		return ERR_PTR(-ENODEV);
	/* a process's object is charged to its memory cgroup */
	res = kzalloc(size, caller ? gfp : gfp | __GFP_ACCOUNT);
	if (!res) {
		ret = -ENOMEM;
		goto err_put;
	}
	if (!caller) {
		ret = xrdma_user_charge(dev, (enum xrdma_ulim)type,
					&res->charge);
		if (ret)
			goto err_free;
	}
	if (id)
		ret = xrdma_res_reserve_id(dev, res, type, id, caller);
	else
		ret = xrdma_res_reserve(dev, res, type, caller, gfp);
	if (ret)
		goto err_uncharge;
	return res;

err_uncharge:
	xrdma_user_uncharge(dev, (enum xrdma_ulim)type, &res->charge);
err_free:
	kfree(res);
err_put:
	xrdma_device_put(dev);
	return ERR_PTR(ret);
}

void *xrdma_obj_alloc(struct xrdma_device *dev, size_t size,
		      enum xrdma_res_type type, const char *caller)
{
	return xrdma_obj_alloc_id(dev, size, type, caller, GFP_KERNEL, 0);
}

/* Undo xrdma_obj_alloc() for an object that was never committed. */
void xrdma_obj_abort(struct xrdma_res *res)
{
	struct xrdma_device *dev = res->dev;

	xrdma_res_abort(res);
	xrdma_user_uncharge(dev, (enum xrdma_ulim)res->type, &res->charge);
	kfree(res);
	xrdma_device_put(dev);
}

void xrdma_obj_free(struct xrdma_res *res)
{
	struct xrdma_device *dev = res->dev;

	xrdma_user_uncharge(dev, (enum xrdma_ulim)res->type, &res->charge);
	kfree(res);
	xrdma_device_put(dev);
}

/**
 * xrdma_query_device - read a device's attributes
 * @dev: device
 * @attr: filled in
 *
 * Return: 0.
 */
int xrdma_query_device(struct xrdma_device *dev,
		       struct xrdma_device_attr *attr)
{
	*attr = dev->attr;
	return 0;
}
EXPORT_SYMBOL_GPL(xrdma_query_device);

/**
 * xrdma_query_port - read a port's attributes
 * @dev: device
 * @port: port number, 1-based
 * @attr: filled in
 *
 * Return: 0, -EINVAL for a bad port, or the driver's error.
 */
int xrdma_query_port(struct xrdma_device *dev, u32 port,
		     struct xrdma_port_attr *attr)
{
	if (port < 1 || port > dev->num_ports)
		return -EINVAL;
	memset(attr, 0, sizeof(*attr));
	return dev->ops->query_port(dev, port, attr);
}
EXPORT_SYMBOL_GPL(xrdma_query_port);

/**
 * xrdma_query_gid - read one entry of a port's GID table
 * @dev: device
 * @port: port number, 1-based
 * @index: GID index
 * @gid: filled in
 *
 * Return: 0, -EINVAL for a bad @port or @index, or the driver's error.
 */
int xrdma_query_gid(struct xrdma_device *dev, u32 port, int index,
		    union xrdma_gid *gid)
{
	if (port < 1 || port > dev->num_ports || index < 0 ||
	    index >= XRDMA_GID_TABLE_LEN)
		return -EINVAL;
	return dev->ops->query_gid(dev, port, index, gid);
}
EXPORT_SYMBOL_GPL(xrdma_query_gid);

/**
 * xrdma_set_gid - program one entry of a port's GID table (RoCE)
 * @dev: device
 * @port: port number, 1-based
 * @index: GID index, below the port's gid_tbl_len
 * @gid: the GID, or NULL to clear the entry
 * @type: the entry's RoCE type
 *
 * May sleep.  Return: 0, -EOPNOTSUPP if the device's table is fixed,
 * -EINVAL for a bad @port, @index or @type, or the driver's error.
 */
int xrdma_set_gid(struct xrdma_device *dev, u32 port, u32 index,
		  const union xrdma_gid *gid, enum xrdma_gid_type type)
{
	if (!dev->ops->set_gid)
		return -EOPNOTSUPP;
	if (port < 1 || port > dev->num_ports ||
	    index >= XRDMA_GID_TABLE_LEN ||
	    (type != XRDMA_GID_TYPE_ROCE_V1 && type != XRDMA_GID_TYPE_ROCE_V2))
		return -EINVAL;
	return dev->ops->set_gid(dev, port, index, gid, type);
}
EXPORT_SYMBOL_GPL(xrdma_set_gid);

/**
 * xrdma_get_netdev - the Ethernet netdev of a port
 * @dev: device
 * @port: port number, 1-based
 *
 * Return: the netdev (no reference taken: it lives as long as @dev is
 * registered), or NULL if the port has none.
 */
struct net_device *xrdma_get_netdev(struct xrdma_device *dev, u32 port)
{
	if (!dev->ops->get_netdev || port < 1 || port > dev->num_ports)
		return NULL;
	return dev->ops->get_netdev(dev, port);
}
EXPORT_SYMBOL_GPL(xrdma_get_netdev);

/* ------------------------------------------------------------------ PD */

/**
 * __xrdma_alloc_pd - allocate a protection domain
 * @dev: device
 * @flags: must be 0
 * @caller: owner's module name (the xrdma_alloc_pd() macro passes it)
 * @udata: driver data of a user command, NULL for kernel callers
 *
 * Return: the PD or an ERR_PTR: -ENODEV if @dev is going away, -EINVAL,
 * -ENOMEM, -ENOSPC or the driver's error.
 */
struct xrdma_pd *__xrdma_alloc_pd(struct xrdma_device *dev, u32 flags,
				  const char *caller, struct xrdma_udata *udata)
{
	struct xrdma_pd *pd;
	int ret;

	if (flags)
		return ERR_PTR(-EINVAL);
	pd = xrdma_obj_alloc(dev, dev->ops->size_pd, XRDMA_RES_PD, caller);
	if (IS_ERR(pd))
		return pd;
	pd->device = dev;
	atomic_set(&pd->usecnt, 1);
	ret = dev->ops->alloc_pd(pd, udata);
	if (ret) {
		xrdma_obj_abort(&pd->res);
		return ERR_PTR(ret);
	}
	xrdma_res_commit(&pd->res);
	return pd;
}
EXPORT_SYMBOL_GPL(__xrdma_alloc_pd);

/**
 * xrdma_dealloc_pd - free a protection domain
 * @pd: the PD
 *
 * Return: 0, or -EBUSY while an MR, QP, SRQ or AH still uses @pd.
 */
int xrdma_dealloc_pd(struct xrdma_pd *pd)
{
	if (!xrdma_use_kill(&pd->usecnt))
		return -EBUSY;
	xrdma_res_remove(&pd->res);
	pd->device->ops->dealloc_pd(pd);
	xrdma_obj_free(&pd->res);
	return 0;
}
EXPORT_SYMBOL_GPL(xrdma_dealloc_pd);

/* ------------------------------------------------------------------ AH */

/**
 * xrdma_check_ah_attr - check an address vector (AH or a QP's path)
 * @dev: device
 * @attr: the address vector
 *
 * The port must exist and the source GID index lie in the GID table.  On a
 * port whose link layer is Ethernet (RoCE) packets are routed by GID, so
 * the address vector must carry a GRH (is_global): without one it names
 * no destination.  As ib_core's rdma_check_ah_attr(), the port is the
 * address vector's own.
 *
 * Return: 0 or -EINVAL.
 */
int xrdma_check_ah_attr(struct xrdma_device *dev,
			const struct xrdma_ah_attr *attr)
{
	if (attr->port_num < 1 || attr->port_num > dev->num_ports ||
	    attr->sgid_index >= XRDMA_GID_TABLE_LEN)
		return -EINVAL;
	if (!attr->is_global && dev->port_link_layer[attr->port_num - 1] ==
	    XRDMA_LINK_LAYER_ETHERNET)
		return -EINVAL;
	return 0;
}

/**
 * __xrdma_create_ah - create an address handle for UD sends
 * @pd: protection domain
 * @attr: destination; port_num must be a valid port, sgid_index < GID
 *	  table length, is_global set on a RoCE (Ethernet) port
 * @flags: 0 or XRDMA_AH_NOSLEEP (kernel callers only: nothing here sleeps,
 *	   allocations are GFP_ATOMIC)
 * @caller: owner's module name
 * @udata: driver data of a user command, NULL for kernel callers
 *
 * Return: the AH, or an ERR_PTR: -EOPNOTSUPP if the device has no AHs,
 * -EINVAL for a bad @attr (xrdma_check_ah_attr()) or @flags, or another
 * negative errno (allocation, driver).
 */
struct xrdma_ah *__xrdma_create_ah(struct xrdma_pd *pd,
				   const struct xrdma_ah_attr *attr,
				   u32 flags, const char *caller,
				   struct xrdma_udata *udata)
{
	struct xrdma_device *dev = pd->device;
	struct xrdma_ah *ah;
	int ret;

	if (!dev->ops->create_ah)
		return ERR_PTR(-EOPNOTSUPP);
	if (flags & ~XRDMA_AH_NOSLEEP || (flags && udata))
		return ERR_PTR(-EINVAL);
	if (!(flags & XRDMA_AH_NOSLEEP))
		might_sleep();
	ret = xrdma_check_ah_attr(dev, attr);
	if (ret)
		return ERR_PTR(ret);
	if (!xrdma_use_get(&pd->usecnt))
		return ERR_PTR(-EINVAL);
	ah = xrdma_obj_alloc_id(dev, dev->ops->size_ah, XRDMA_RES_AH, caller,
				flags & XRDMA_AH_NOSLEEP ? GFP_ATOMIC :
				GFP_KERNEL, 0);
	if (IS_ERR(ah)) {
		xrdma_use_put(&pd->usecnt);
		return ah;
	}
	ah->device = dev;
	ah->pd = pd;
	ah->attr = *attr;
	ret = dev->ops->create_ah(ah, udata);
	if (ret) {
		xrdma_obj_abort(&ah->res);
		xrdma_use_put(&pd->usecnt);
		return ERR_PTR(ret);
	}
	xrdma_res_commit(&ah->res);
	return ah;
}
EXPORT_SYMBOL_GPL(__xrdma_create_ah);

/**
 * xrdma_destroy_ah - destroy an address handle
 * @ah: the AH
 *
 * Never sleeps for a kernel caller's AH: one created with
 * XRDMA_AH_NOSLEEP may be destroyed in atomic context (AHs are never
 * looked up by number, so there is nothing to wait for).
 *
 * Return: 0.
 */
int xrdma_destroy_ah(struct xrdma_ah *ah)
{
	struct xrdma_pd *pd = ah->pd;

	xrdma_res_remove_nowait(&ah->res);
	ah->device->ops->destroy_ah(ah);
	xrdma_obj_free(&ah->res);
	xrdma_use_put(&pd->usecnt);
	return 0;
}
EXPORT_SYMBOL_GPL(xrdma_destroy_ah);

