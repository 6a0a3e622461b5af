// SPDX-License-Identifier: GPL-2.0
/*
 * Device and client registration.
 *
 * xrdma_reg_lock serialises registration and unregistration of devices
 * and clients, and with them every client add/remove callback: a callback
 * sees a stable set of devices and clients and must not register or
 * unregister devices or clients itself.
 *
 * A device's memory lives as long as its struct device reference; its
 * registration as long as dev->users, which starts at one (the
 * registration) and which every consumer and every object holds.
 * Unregistration stops new users, asks every client to let go, then waits
 * for the last user.
 *
 * Shares: every user context and every object a process creates is
 * charged to the rdma cgroup of the creator (hca_handle, hca_object) and
 * to a per-device count of the creator's uid, which may hold at most
 * user_share percent of what the device can hold of that kind
 * (Documentation/core.rst, "Limits").  Device memory (in pages) and
 * multicast attachments count against the same per-uid share, without
 * an rdma cgroup charge.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/random.h>
#include "core_priv.h"

#define CREATE_TRACE_POINTS
#include "trace.h"
#undef CREATE_TRACE_POINTS

static DEFINE_MUTEX(xrdma_reg_lock);
/* registered devices, by index; lookups take the xarray lock */
static DEFINE_XARRAY_FLAGS(xrdma_devices, XA_FLAGS_ALLOC);
static LIST_HEAD(xrdma_clients);
static u32 xrdma_next_client_id;

struct xrdma_client_ctx {
	void *data;
};

unsigned int xrdma_user_share = 50;
module_param_named(user_share, xrdma_user_share, uint, 0644);
MODULE_PARM_DESC(user_share,
		 "percent of a device's contexts, of each object type, of its device memory and of its multicast attachments one uid may hold (1-100, default 50; 100: no per-user limit; CAP_SYS_RESOURCE is exempt)");

/* What one uid holds on one device: counts by xrdma_ulim. */
struct xrdma_uacct {
	kuid_t uid;
	unsigned int count[XRDMA_ULIM_MAX];
	unsigned int total;
};

/* The most a device can hold of @type, 0 if the driver does not say. */
static u32 xrdma_ulim_max(struct xrdma_device *dev, enum xrdma_ulim type)
{
	const struct xrdma_device_attr *a = &dev->attr;

	switch (type) {
	case XRDMA_ULIM_PD:
		return a->max_pd;
	case XRDMA_ULIM_CQ:
		return a->max_cq;
	case XRDMA_ULIM_QP:
		return a->max_qp;
	case XRDMA_ULIM_SRQ:
		return a->max_srq;
	case XRDMA_ULIM_MR:
		return a->max_mr;
	case XRDMA_ULIM_AH:
		return a->max_ah;
	case XRDMA_ULIM_MW:
		return a->max_mw;
	case XRDMA_ULIM_XRCD:
		return a->max_xrcd;
	case XRDMA_ULIM_UCONTEXT:
		return a->max_ucontext;
	case XRDMA_ULIM_DM:
		return min_t(u64, a->max_dm_size >> PAGE_SHIFT, U32_MAX);
	case XRDMA_ULIM_MCAST:
		/* each attachment may be the one that creates a group */
		return min(a->max_mcast_grp, a->max_total_mcast_qp_attach);
	default:
		return 0;
	}
}

/**
 * xrdma_ulim_limit - how many of @type one uid may hold on @dev
 * @dev: device
 * @type: kind of resource
 *
 * Return: user_share percent of the device's maximum, at least 1, or
 * UINT_MAX when there is no limit (user_share >= 100, or a device that
 * does not state its maximum).
 */
unsigned int xrdma_ulim_limit(struct xrdma_device *dev, enum xrdma_ulim type)
{
	unsigned int share = READ_ONCE(xrdma_user_share);
	u32 max = xrdma_ulim_max(dev, type);

	if (!max || share >= 100)
		return UINT_MAX;
	return max_t(u32, 1, div_u64((u64)max * share, 100));
}

/* Shares counted in units (pages, attachments): not rdma cgroup objects. */
static bool xrdma_ulim_cg(enum xrdma_ulim type)
{
	return type <= XRDMA_ULIM_UCONTEXT;
}

#ifdef CONFIG_CGROUP_RDMA
/* The rdma cgroup's resource: a context is a handle, the rest objects. */
static enum rdmacg_resource_type xrdma_cg_res(enum xrdma_ulim type)
{
	return type == XRDMA_ULIM_UCONTEXT ? RDMACG_RESOURCE_HCA_HANDLE :
					     RDMACG_RESOURCE_HCA_OBJECT;
}

static int xrdma_cg_charge(struct xrdma_device *dev, struct rdma_cgroup **cg,
			   enum xrdma_ulim type)
{
	if (!xrdma_ulim_cg(type)) {
		*cg = NULL;
		return 0;
	}
	return rdmacg_try_charge(cg, &dev->cg_device, xrdma_cg_res(type));
}

static void xrdma_cg_uncharge(struct xrdma_device *dev,
			      struct rdma_cgroup *cg, enum xrdma_ulim type)
{
	if (!cg)
		return;
	rdmacg_uncharge(cg, &dev->cg_device, xrdma_cg_res(type));
}
#else
static int xrdma_cg_charge(struct xrdma_device *dev, struct rdma_cgroup **cg,
			   enum xrdma_ulim type)
{
	*cg = NULL;
	return 0;
}

static void xrdma_cg_uncharge(struct xrdma_device *dev,
			      struct rdma_cgroup *cg, enum xrdma_ulim type)
{
}
#endif

/**
 * xrdma_user_charge_n - charge @n units of a share to the calling process
 * @dev: device
 * @type: what is created: a context or an object (@n 1), pages of device
 *	  memory or multicast attachments
 * @n: how many units
 * @c: filled in; pass to xrdma_user_uncharge_n() with @n when it goes away
 *
 * Charges the caller's rdma cgroup (hca_handle for a context, hca_object
 * for an object; nothing for the counted shares) and the caller's uid on
 * @dev, which may hold at most xrdma_ulim_limit() units of @type.
 *
 * Return: 0, -EAGAIN if the rdma cgroup's limit or the uid's share is
 * reached, or -ENOMEM.
 */
int xrdma_user_charge_n(struct xrdma_device *dev, enum xrdma_ulim type,
			unsigned int n, struct xrdma_ucharge *c)
{
	unsigned int limit = xrdma_ulim_limit(dev, type);
	kuid_t uid = current_uid();
	struct xrdma_uacct *ua, *new = NULL;
	int ret;

	ret = xrdma_cg_charge(dev, &c->cg, type);
	if (ret)
		return ret;
	mutex_lock(&dev->uacct_lock);
	ua = xa_load(&dev->uaccts, __kuid_val(uid));
	if (!ua) {
		ret = -ENOMEM;
		new = kzalloc(sizeof(*new), GFP_KERNEL);
		if (!new)
			goto err_unlock;
		new->uid = uid;
		ret = xa_err(xa_store(&dev->uaccts, __kuid_val(uid), new,
				      GFP_KERNEL));
		if (ret)
			goto err_unlock;
		ua = new;
	}
	/* asked only when it matters: capable() marks and audits the task */
	if ((n > limit || ua->count[type] > limit - n) &&
	    !capable(CAP_SYS_RESOURCE)) {
		ret = -EAGAIN;
		goto err_unlock;
	}
	ua->count[type] += n;
	ua->total += n;
	mutex_unlock(&dev->uacct_lock);
	c->uacct = ua;
	return 0;

err_unlock:
	if (ua && !ua->total) {
		xa_erase(&dev->uaccts, __kuid_val(uid));
		kfree(ua);
	} else {
		kfree(new);
	}
	mutex_unlock(&dev->uacct_lock);
	xrdma_cg_uncharge(dev, c->cg, type);
	c->cg = NULL;
	return ret;
}

/**
 * xrdma_user_charge - charge a context or object to the calling process
 * @dev: device
 * @type: what is created
 * @c: filled in; pass to xrdma_user_uncharge() when it goes away
 *
 * Return: as xrdma_user_charge_n() for one unit.
 */
int xrdma_user_charge(struct xrdma_device *dev, enum xrdma_ulim type,
		      struct xrdma_ucharge *c)
{
	return xrdma_user_charge_n(dev, type, 1, c);
}

/**
 * xrdma_user_uncharge_n - undo xrdma_user_charge_n()
 * @dev: device
 * @type: as charged
 * @n: as charged
 * @c: from xrdma_user_charge_n(); cleared, so a second call does nothing
 */
void xrdma_user_uncharge_n(struct xrdma_device *dev, enum xrdma_ulim type,
			   unsigned int n, struct xrdma_ucharge *c)
{
	struct xrdma_uacct *ua = c->uacct;

	if (!ua)
		return;
	mutex_lock(&dev->uacct_lock);
	if (!WARN_ON(ua->count[type] < n)) {
		ua->count[type] -= n;
		ua->total -= n;
	}
	if (!ua->total) {
		xa_erase(&dev->uaccts, __kuid_val(ua->uid));
		kfree(ua);
	}
	mutex_unlock(&dev->uacct_lock);
	xrdma_cg_uncharge(dev, c->cg, type);
	c->uacct = NULL;
	c->cg = NULL;
}

/**
 * xrdma_user_uncharge - undo xrdma_user_charge()
 * @dev: device
 * @type: as charged
 * @c: from xrdma_user_charge(); cleared, so a second call does nothing
 */
void xrdma_user_uncharge(struct xrdma_device *dev, enum xrdma_ulim type,
			 struct xrdma_ucharge *c)
{
	xrdma_user_uncharge_n(dev, type, 1, c);
}

/**
 * xrdma_user_count - what a uid holds of @type on @dev (for tests)
 * @dev: device
 * @uid: the user
 * @type: kind of resource
 *
 * Return: the count.
 */
unsigned int xrdma_user_count(struct xrdma_device *dev, kuid_t uid,
			      enum xrdma_ulim type)
{
	struct xrdma_uacct *ua;
	unsigned int n = 0;

	mutex_lock(&dev->uacct_lock);
	ua = xa_load(&dev->uaccts, __kuid_val(uid));
	if (ua)
		n = ua->count[type];
	mutex_unlock(&dev->uacct_lock);
	return n;
}

struct class xrdma_device_class = {
	.name = "xrdma_device",
};

static void xrdma_device_release(struct device *device)
{
	struct xrdma_device *dev = container_of(device, struct xrdma_device,
						dev);

	xrdma_res_destroy_tables(dev);
	xrdma_hw_counters_free(dev);
	xa_destroy(&dev->client_data);
	WARN_ON(!xa_empty(&dev->uaccts));
	xa_destroy(&dev->uaccts);
	mutex_destroy(&dev->uacct_lock);
	kfree(dev);
}

/**
 * _xrdma_alloc_device - allocate a driver's device structure
 * @size: size of the driver structure, struct xrdma_device at offset 0
 * @ops: the driver's operations, which must outlive the device
 *
 * Use the xrdma_alloc_device() macro, which checks the layout at build
 * time.  Free with xrdma_dealloc_device().
 *
 * Return: the device, or NULL if @size or @ops is invalid or memory is short.
 */
void *_xrdma_alloc_device(size_t size, const struct xrdma_device_ops *ops)
{
	struct xrdma_device *dev;

	if (size < sizeof(*dev) || !ops)
		return NULL;
	dev = kzalloc(size, GFP_KERNEL);
	if (!dev)
		return NULL;
	dev->ops = ops;
	device_initialize(&dev->dev);
	dev->dev.class = &xrdma_device_class;
	dev->dev.release = xrdma_device_release;
	dev->state = XRDMA_DEV_ALLOCATED;
	init_completion(&dev->users_done);
	xa_init_flags(&dev->client_data, XA_FLAGS_ALLOC);
	spin_lock_init(&dev->event_lock);
	INIT_LIST_HEAD(&dev->event_handlers);
	xrdma_res_init_tables(dev);
	mutex_init(&dev->uacct_lock);
	xa_init(&dev->uaccts);
	return dev;
}
EXPORT_SYMBOL_GPL(_xrdma_alloc_device);

/**
 * xrdma_dealloc_device - drop the driver's reference to a device
 * @dev: a device that is not registered (any more)
 */
void xrdma_dealloc_device(struct xrdma_device *dev)
{
	WARN_ON(dev->state == XRDMA_DEV_REGISTERED ||
		dev->state == XRDMA_DEV_UNREGISTERING);
	put_device(&dev->dev);
}
EXPORT_SYMBOL_GPL(xrdma_dealloc_device);

/**
 * xrdma_device_try_get - become a user of a registered device
 * @dev: the device
 *
 * Return: true if @dev is registered and now has one more user; false once
 * unregistration has begun.
 */
bool xrdma_device_try_get(struct xrdma_device *dev)
{
	if (READ_ONCE(dev->state) != XRDMA_DEV_REGISTERED)
		return false;
	return refcount_inc_not_zero(&dev->users);
}
EXPORT_SYMBOL_GPL(xrdma_device_try_get);

/**
 * xrdma_device_gone - whether a device has failed or is going away
 * @dev: the device
 *
 * Return: true once DEVICE_FATAL was dispatched for @dev or its
 * unregistration has begun.  A failed device executes nothing more; its
 * driver usually recovers it (an unregistration, which disassociates
 * every process and zaps what they map), but may leave it failed until
 * it is unbound (xnic.recover=0).
 */
bool xrdma_device_gone(struct xrdma_device *dev)
{
	return READ_ONCE(dev->fatal) ||
	       READ_ONCE(dev->state) != XRDMA_DEV_REGISTERED;
}
EXPORT_SYMBOL_GPL(xrdma_device_gone);

/**
 * xrdma_device_put - stop being a user of a device
 * @dev: the device
 */
void xrdma_device_put(struct xrdma_device *dev)
{
	if (refcount_dec_and_test(&dev->users))
		complete(&dev->users_done);
}
EXPORT_SYMBOL_GPL(xrdma_device_put);

/**
 * xrdma_device_get_by_name - find a registered device by name
 * @name: e.g. "xnic0"
 *
 * Return: the device with a user reference (xrdma_device_put() it), or
 * NULL.
 */
struct xrdma_device *xrdma_device_get_by_name(const char *name)
{
	struct xrdma_device *dev, *found = NULL;
	unsigned long index;

	xa_lock(&xrdma_devices);
	xa_for_each(&xrdma_devices, index, dev) {
		if (!strcmp(dev->name, name) && xrdma_device_try_get(dev)) {
			found = dev;
			break;
		}
	}
	xa_unlock(&xrdma_devices);
	return found;
}
EXPORT_SYMBOL_GPL(xrdma_device_get_by_name);

static bool xrdma_name_in_use(const char *name)
{
	struct xrdma_device *dev;
	unsigned long index;

	xa_for_each(&xrdma_devices, index, dev)
		if (!strcmp(dev->name, name))
			return true;
	return false;
}

static int xrdma_assign_name(struct xrdma_device *dev, const char *name_fmt)
{
	char name[XRDMA_NAME_LEN];
	int i, n;

	if (!strchr(name_fmt, '%')) {
		if (strlen(name_fmt) >= XRDMA_NAME_LEN)
			return -EINVAL;
		if (xrdma_name_in_use(name_fmt))
			return -EEXIST;
		strscpy(dev->name, name_fmt, XRDMA_NAME_LEN);
		return 0;
	}
	for (i = 0; i < 1024; i++) {
		n = snprintf(name, sizeof(name), name_fmt, i);
		if (n >= XRDMA_NAME_LEN)
			return -EINVAL;
		if (!xrdma_name_in_use(name)) {
			strscpy(dev->name, name, XRDMA_NAME_LEN);
			return 0;
		}
	}
	return -ENFILE;
}

/* Called with xrdma_reg_lock held. */
static void xrdma_add_client_context(struct xrdma_device *dev,
				     struct xrdma_client *client)
{
	struct xrdma_client_ctx *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return;
	if (xa_insert(&dev->client_data, client->client_id, ctx, GFP_KERNEL)) {
		kfree(ctx);
		return;
	}
	if (client->add && client->add(dev)) {
		xa_erase(&dev->client_data, client->client_id);
		kfree(ctx);
	}
}

/* Called with xrdma_reg_lock held. */
static void xrdma_remove_client_context(struct xrdma_device *dev,
					struct xrdma_client *client)
{
	struct xrdma_client_ctx *ctx;

	ctx = xa_load(&dev->client_data, client->client_id);
	if (!ctx)
		return;
	if (client->remove)
		client->remove(dev, ctx->data);
	xa_erase(&dev->client_data, client->client_id);
	kfree(ctx);
}

static int xrdma_validate_ops(const struct xrdma_device_ops *ops)
{
	/* the mandatory operations: everything else is optional */
	if (!ops->query_port || !ops->query_gid || !ops->alloc_pd ||
	    !ops->dealloc_pd || !ops->create_cq || !ops->destroy_cq ||
	    !ops->poll_cq || !ops->req_notify_cq || !ops->create_qp ||
	    !ops->modify_qp || !ops->destroy_qp || !ops->post_send ||
	    !ops->post_recv || !ops->get_dma_mr || !ops->dereg_mr)
		return -EINVAL;
	if (ops->size_pd < sizeof(struct xrdma_pd) ||
	    ops->size_cq < sizeof(struct xrdma_cq) ||
	    ops->size_qp < sizeof(struct xrdma_qp) ||
	    ops->size_mr < sizeof(struct xrdma_mr) ||
	    (ops->create_srq && ops->size_srq < sizeof(struct xrdma_srq)) ||
	    (ops->create_ah && ops->size_ah < sizeof(struct xrdma_ah)) ||
	    (!ops->alloc_mw != !ops->dealloc_mw) ||
	    (ops->alloc_mw && ops->size_mw < sizeof(struct xrdma_mw)))
		return -EINVAL;
	return 0;
}

/*
 * A port's link layer never changes: read once here, it tells the core
 * whether an address vector needs a GRH without asking the driver (AHs are
 * created in atomic context too).
 */
static int xrdma_read_link_layers(struct xrdma_device *dev)
{
	struct xrdma_port_attr pa;
	u32 port;
	int ret;

	for (port = 1; port <= dev->num_ports; port++) {
		memset(&pa, 0, sizeof(pa));
		ret = dev->ops->query_port(dev, port, &pa);
		if (ret)
			return ret;
		dev->port_link_layer[port - 1] = pa.link_layer;
	}
	return 0;
}

/**
 * xrdma_register_device - make a device available to clients
 * @dev: allocated with xrdma_alloc_device(), attr and num_ports filled in
 * @name_fmt: name, or a format with one %d for the lowest free number
 * @parent: parent device in the driver model, may be NULL
 *
 * Every registered client's add callback runs before this returns.  Each
 * port's link layer is read here (query_port), once.
 * Return: 0 or a negative errno (also query_port's).
 */
int xrdma_register_device(struct xrdma_device *dev, const char *name_fmt,
			  struct device *parent)
{
	struct xrdma_client *client;
	int ret;

	if (dev->state != XRDMA_DEV_ALLOCATED)
		return -EINVAL;
	if (!dev->num_ports || dev->num_ports > XRDMA_MAX_PORTS)
		return -EINVAL;
	ret = xrdma_validate_ops(dev->ops);
	if (ret)
		return ret;
	ret = xrdma_read_link_layers(dev);
	if (ret)
		return ret;
	ret = xrdma_hw_counters_init(dev);
	if (ret)
		return ret;

	mutex_lock(&xrdma_reg_lock);
	ret = xrdma_assign_name(dev, name_fmt);
	if (ret)
		goto out_unlock;
	ret = dev_set_name(&dev->dev, "%s", dev->name);
	if (ret)
		goto out_unlock;
	dev->dev.parent = parent;
	ret = device_add(&dev->dev);
	if (ret)
		goto out_unlock;
	ret = xa_alloc(&xrdma_devices, &dev->index, dev, xa_limit_31b,
		       GFP_KERNEL);
	if (ret)
		goto out_del;

#ifdef CONFIG_CGROUP_RDMA
	/* the rdma cgroup knows the device by name ("xnic0 hca_handle=...") */
	dev->cg_device.name = dev->name;
	rdmacg_register_device(&dev->cg_device);
#endif
	refcount_set(&dev->users, 1);
	reinit_completion(&dev->users_done);
	WRITE_ONCE(dev->state, XRDMA_DEV_REGISTERED);
	xrdma_debugfs_add_device(dev);

	list_for_each_entry(client, &xrdma_clients, list)
		xrdma_add_client_context(dev, client);
	mutex_unlock(&xrdma_reg_lock);
	return 0;

out_del:
	device_del(&dev->dev);
out_unlock:
	mutex_unlock(&xrdma_reg_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(xrdma_register_device);

/**
 * xrdma_unregister_device - take a device away from its users
 * @dev: a registered device
 *
 * New users are refused at once; every client's remove callback runs (in
 * reverse order of client registration); then this waits until the last
 * user reference is dropped.  May sleep for as long as users take.
 */
void xrdma_unregister_device(struct xrdma_device *dev)
{
	struct xrdma_client *client;

	mutex_lock(&xrdma_reg_lock);
	if (WARN_ON(dev->state != XRDMA_DEV_REGISTERED)) {
		mutex_unlock(&xrdma_reg_lock);
		return;
	}
	WRITE_ONCE(dev->state, XRDMA_DEV_UNREGISTERING);
	list_for_each_entry_reverse(client, &xrdma_clients, list)
		xrdma_remove_client_context(dev, client);
	mutex_unlock(&xrdma_reg_lock);

	xrdma_device_put(dev);
	wait_for_completion(&dev->users_done);

	mutex_lock(&xrdma_reg_lock);
	/* every user is gone, and with it every charge */
#ifdef CONFIG_CGROUP_RDMA
	rdmacg_unregister_device(&dev->cg_device);
#endif
	xrdma_debugfs_remove_device(dev);
	xa_erase(&xrdma_devices, dev->index);
	device_del(&dev->dev);
	WRITE_ONCE(dev->state, XRDMA_DEV_UNREGISTERED);
	mutex_unlock(&xrdma_reg_lock);
}
EXPORT_SYMBOL_GPL(xrdma_unregister_device);

/**
 * xrdma_register_client - attach a consumer to all present and future
 *			   devices
 * @client: the client; add is called for every registered device
 *
 * Return: 0 or -ENOMEM.
 */
int xrdma_register_client(struct xrdma_client *client)
{
	struct xrdma_device *dev;
	unsigned long index;

	mutex_lock(&xrdma_reg_lock);
	client->client_id = xrdma_next_client_id++;
	list_add_tail(&client->list, &xrdma_clients);
	xa_for_each(&xrdma_devices, index, dev)
		if (dev->state == XRDMA_DEV_REGISTERED)
			xrdma_add_client_context(dev, client);
	mutex_unlock(&xrdma_reg_lock);
	return 0;
}
EXPORT_SYMBOL_GPL(xrdma_register_client);

/**
 * xrdma_unregister_client - detach a consumer from every device
 * @client: a registered client; remove is called for each device it added
 */
void xrdma_unregister_client(struct xrdma_client *client)
{
	struct xrdma_device *dev;
	unsigned long index;

	mutex_lock(&xrdma_reg_lock);
	xa_for_each(&xrdma_devices, index, dev)
		xrdma_remove_client_context(dev, client);
	list_del(&client->list);
	mutex_unlock(&xrdma_reg_lock);
}
EXPORT_SYMBOL_GPL(xrdma_unregister_client);

/**
 * xrdma_set_client_data - store a client's per-device pointer
 * @dev: device
 * @client: client whose add callback accepted @dev
 * @data: any pointer, passed back to the remove callback
 */
void xrdma_set_client_data(struct xrdma_device *dev,
			   struct xrdma_client *client, void *data)
{
	struct xrdma_client_ctx *ctx = xa_load(&dev->client_data,
					       client->client_id);

	if (!WARN_ON(!ctx))
		WRITE_ONCE(ctx->data, data);
}
EXPORT_SYMBOL_GPL(xrdma_set_client_data);

/**
 * xrdma_get_client_data - read a client's per-device pointer
 * @dev: device
 * @client: client
 *
 * Return: the pointer, or NULL if the client is not attached to @dev.
 */
void *xrdma_get_client_data(struct xrdma_device *dev,
			    struct xrdma_client *client)
{
	struct xrdma_client_ctx *ctx = xa_load(&dev->client_data,
					       client->client_id);

	return ctx ? READ_ONCE(ctx->data) : NULL;
}
EXPORT_SYMBOL_GPL(xrdma_get_client_data);

/**
 * xrdma_register_event_handler - subscribe to a device's async events
 * @h: handler with ->device and ->handler set
 */
void xrdma_register_event_handler(struct xrdma_event_handler *h)
{
	unsigned long flags;

	spin_lock_irqsave(&h->device->event_lock, flags);
	list_add_tail(&h->list, &h->device->event_handlers);
	spin_unlock_irqrestore(&h->device->event_lock, flags);
}
EXPORT_SYMBOL_GPL(xrdma_register_event_handler);

/**
 * xrdma_unregister_event_handler - unsubscribe from a device's async events
 * @h: a handler registered with xrdma_register_event_handler()
 *
 * Once this returns, @h is not running and gets no further events.  Any
 * context except a handler of the same device (events are delivered under
 * the lock this takes).
 */
void xrdma_unregister_event_handler(struct xrdma_event_handler *h)
{
	unsigned long flags;

	spin_lock_irqsave(&h->device->event_lock, flags);
	list_del(&h->list);
	spin_unlock_irqrestore(&h->device->event_lock, flags);
}
EXPORT_SYMBOL_GPL(xrdma_unregister_event_handler);

/**
 * xrdma_dispatch_event - deliver an async event (called by drivers)
 * @e: the event
 *
 * QP, CQ and SRQ events go to the object's event handler, port and device
 * events to every registered device handler.  Any context.
 */
void xrdma_dispatch_event(struct xrdma_event *e)
{
	struct xrdma_event_handler *h;
	unsigned long flags;

	switch (e->event) {
	case XRDMA_EVENT_CQ_ERR:
		trace_xrdma_async_event(e, e->element.cq->res.id);
		if (e->element.cq->event_handler)
			e->element.cq->event_handler(e,
						     e->element.cq->cq_context);
		return;
	case XRDMA_EVENT_QP_FATAL:
	case XRDMA_EVENT_QP_REQ_ERR:
	case XRDMA_EVENT_QP_ACCESS_ERR:
	case XRDMA_EVENT_COMM_EST:
	case XRDMA_EVENT_SQ_DRAINED:
	case XRDMA_EVENT_QP_LAST_WQE_REACHED:
		trace_xrdma_async_event(e, e->element.qp->qp_num);
		/* a shared QP's events reach every handle */
		if (e->element.qp->qp_type == XRDMA_QPT_XRC_TGT)
			xrdma_tgt_qp_event(e);
		else if (e->element.qp->event_handler)
			e->element.qp->event_handler(e,
						     e->element.qp->qp_context);
		return;
	case XRDMA_EVENT_SRQ_ERR:
	case XRDMA_EVENT_SRQ_LIMIT_REACHED:
		trace_xrdma_async_event(e, e->element.srq->res.id);
		if (e->element.srq->event_handler)
			e->element.srq->event_handler(e,
						e->element.srq->srq_context);
		return;
	case XRDMA_EVENT_DEVICE_FATAL:
		/* before any handler: whoever hears of it sees the device gone */
		WRITE_ONCE(e->device->fatal, true);
		fallthrough;
	default:
		/* port events: the port; DEVICE_FATAL: 0 */
		trace_xrdma_async_event(e, e->event == XRDMA_EVENT_DEVICE_FATAL ?
					0 : e->element.port_num);
		break;
	}
	spin_lock_irqsave(&e->device->event_lock, flags);
	list_for_each_entry(h, &e->device->event_handlers, list)
		h->handler(h, e);
	spin_unlock_irqrestore(&e->device->event_lock, flags);
}
EXPORT_SYMBOL_GPL(xrdma_dispatch_event);

static int __init xrdma_core_init(void)
{
	int ret;

	ret = class_register(&xrdma_device_class);
	if (ret)
		return ret;
	xrdma_debugfs_init();
	return 0;
}

static void __exit xrdma_core_exit(void)
{
	xrdma_debugfs_cleanup();
	class_unregister(&xrdma_device_class);
	WARN_ON(!xa_empty(&xrdma_devices));
	WARN_ON(!list_empty(&xrdma_clients));
}

module_init(xrdma_core_init);
module_exit(xrdma_core_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xrdma core: RDMA resource layer and in-kernel verbs");
