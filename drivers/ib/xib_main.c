// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma_ib: module, xrdma client, device and port verbs, GIDs, events.
 *
 * For every xrdma device whose every port has a netdev (the device's
 * Ethernet function, xrdma_get_netdev()), an ib_device of the same name is
 * registered with ib_core, with the netdevs set on its ports so that
 * ib_core's roce_gid_mgmt fills the GID table (add_gid/del_gid program the
 * device through xrdma_set_gid()), and with the xrdma device's parent (the
 * xnic platform device) as DMA device, so that ib_dma_map_*() give the
 * addresses the device understands.  The xrdma client's remove
 * unregisters it: ib_core's clients (rdma_cm and its ULPs) then get
 * DEVICE_REMOVAL and release what they hold before remove returns.
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include "xib.h"

static bool roce_only = true;
module_param(roce_only, bool, 0444);
MODULE_PARM_DESC(roce_only,
		 "register only devices with a netdev on every port (default Y; N also registers the others, without GIDs: for tests)");

static struct xrdma_client xib_client;

/* ------------------------------------------------------------ device */

static int xib_query_device(struct ib_device *ibdev,
			    struct ib_device_attr *ia, struct ib_udata *udata)
{
	struct xrdma_device_attr xa;
	s64 caps;
	int ret, atomic;

	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	ret = xrdma_query_device(to_xdev(ibdev), &xa);
	if (ret)
		return ret;
	caps = xib_device_cap_to_ib(xa.device_cap_flags);
	atomic = xib_atomic_cap_to_ib(xa.atomic_cap);
	if (caps < 0 || atomic < 0)
		return -EINVAL;

	memset(ia, 0, sizeof(*ia));
	ia->sys_image_guid = xa.node_guid;
	ia->max_mr_size = xa.max_mr_size;
	ia->page_size_cap = xa.page_size_cap;
	ia->vendor_id = xa.vendor_id;
	ia->vendor_part_id = xa.vendor_part_id;
	ia->hw_ver = xa.hw_ver;
	ia->max_qp = xa.max_qp;
	ia->max_qp_wr = xa.max_qp_wr;
	ia->device_cap_flags = caps | IB_DEVICE_SYS_IMAGE_GUID;
	ia->max_send_sge = xa.max_sge;
	ia->max_recv_sge = xa.max_sge;
	ia->max_sge_rd = xa.max_sge_rd;
	ia->max_cq = xa.max_cq;
	ia->max_cqe = xa.max_cqe;
	ia->max_mr = xa.max_mr;
	ia->max_pd = xa.max_pd;
	ia->max_qp_rd_atom = xa.max_qp_rd_atom;
	ia->max_res_rd_atom = xa.max_qp_rd_atom * xa.max_qp;
	ia->max_qp_init_rd_atom = xa.max_qp_init_rd_atom;
	ia->atomic_cap = atomic;
	ia->max_ah = xa.max_ah;
	ia->max_srq = xa.max_srq;
	ia->max_srq_wr = xa.max_srq_wr;
	ia->max_srq_sge = xa.max_srq_sge;
	ia->max_fast_reg_page_list_len = xa.max_fast_reg_page_list_len;
	ia->max_pkeys = 1;
	ia->max_mcast_grp = xa.max_mcast_grp;
	ia->max_mcast_qp_attach = xa.max_mcast_qp_attach;
	ia->max_total_mcast_qp_attach = xa.max_total_mcast_qp_attach;
	ia->local_ca_ack_delay = 15;
	/* rdma_rw: plain RDMA READ/WRITE, never MR-based reads on RoCE */
	ia->max_sgl_rd = 0;
	return 0;
}

static void xib_get_fw_str(struct ib_device *ibdev, char *str)
{
	strscpy(str, to_xdev(ibdev)->attr.fw_ver, IB_FW_VERSION_NAME_MAX);
}

static int xib_query_port(struct ib_device *ibdev, u32 port,
			  struct ib_port_attr *pa)
{
	struct xrdma_port_attr xa;
	int ret, state, max_mtu, active_mtu;

	ret = xrdma_query_port(to_xdev(ibdev), port, &xa);
	if (ret)
		return ret;
	state = xib_port_state_to_ib(xa.state);
	max_mtu = xib_mtu_to_ib(xa.max_mtu);
	active_mtu = xib_mtu_to_ib(xa.active_mtu);
	if (state < 0 || max_mtu < 0 || active_mtu < 0)
		return -EINVAL;

	/* ib_query_port() zeroed *pa */
	pa->state = state;
	pa->phys_state = state == IB_PORT_ACTIVE ?
		IB_PORT_PHYS_STATE_LINK_UP : IB_PORT_PHYS_STATE_DISABLED;
	pa->max_mtu = max_mtu;
	pa->active_mtu = active_mtu;
	pa->phys_mtu = xrdma_mtu_to_int(xa.max_mtu);
	pa->gid_tbl_len = xa.gid_tbl_len;
	pa->port_cap_flags = IB_PORT_CM_SUP;
	pa->max_msg_sz = xa.max_msg_sz;
	pa->pkey_tbl_len = xa.pkey_tbl_len;
	pa->active_speed = xa.active_speed;
	pa->active_width = xa.active_width;
	pa->max_vl_num = 1;
	return 0;
}

static int xib_get_port_immutable(struct ib_device *ibdev, u32 port,
				  struct ib_port_immutable *im)
{
	struct ib_port_attr pa;
	int ret;

	ret = ib_query_port(ibdev, port, &pa);
	if (ret)
		return ret;
	im->pkey_tbl_len = pa.pkey_tbl_len;
	im->gid_tbl_len = pa.gid_tbl_len;
	im->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE |
			     RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	im->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer xib_get_link_layer(struct ib_device *ibdev,
					       u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

static int xib_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			  u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

/* RoCE: the table is ib_core's cache, which add_gid/del_gid mirror */
static int xib_query_gid(struct ib_device *ibdev, u32 port, int index,
			 union ib_gid *gid)
{
	return rdma_query_gid(ibdev, port, index, gid);
}

static int xib_add_gid(const struct ib_gid_attr *attr, void **context)
{
	union xrdma_gid gid;
	int type = xib_gid_type_to_xrdma(attr->gid_type);

	if (type < 0)
		return type;
	BUILD_BUG_ON(sizeof(gid.raw) != sizeof(attr->gid.raw));
	memcpy(gid.raw, attr->gid.raw, sizeof(gid.raw));
	return xrdma_set_gid(to_xdev(attr->device), attr->port_num,
			     attr->index, &gid, type);
}

static int xib_del_gid(const struct ib_gid_attr *attr, void **context)
{
	int type = xib_gid_type_to_xrdma(attr->gid_type);

	if (type < 0)
		return type;
	return xrdma_set_gid(to_xdev(attr->device), attr->port_num,
			     attr->index, NULL, type);
}

/* ib_core drops the reference it gets here */
static struct net_device *xib_get_netdev(struct ib_device *ibdev, u32 port)
{
	struct net_device *ndev = xrdma_get_netdev(to_xdev(ibdev), port);

	if (ndev)
		dev_hold(ndev);
	return ndev;
}

static const struct ib_device_ops xib_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = 0,

	.query_device = xib_query_device,
	.get_dev_fw_str = xib_get_fw_str,
	.query_port = xib_query_port,
	.get_port_immutable = xib_get_port_immutable,
	.get_link_layer = xib_get_link_layer,
	.query_pkey = xib_query_pkey,
	.query_gid = xib_query_gid,
	.add_gid = xib_add_gid,
	.del_gid = xib_del_gid,
	.get_netdev = xib_get_netdev,
};

/* ------------------------------------------------------------ counters */

/*
 * The xrdma device's hardware counters are device-wide: every port shows
 * them (xnic devices have one port).  No device-level set, as ib_core
 * would show the same values twice.  ib_core's hw_counters files are
 * world-readable and so is "rdma statistic": the device's private
 * counters (XRDMA_HW_COUNTER_PRIVATE) are not shown there at all.
 */
static struct rdma_hw_stats *xib_alloc_hw_port_stats(struct ib_device *ibdev,
						     u32 port)
{
	struct xib_dev *d = to_xib_dev(ibdev);

	return rdma_alloc_hw_stats_struct(d->stat_descs, d->num_stats,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

static int xib_get_hw_stats(struct ib_device *ibdev,
			    struct rdma_hw_stats *stats, u32 port, int index)
{
	struct xib_dev *d = to_xib_dev(ibdev);
	u32 n = d->xdev->ops->num_hw_counters, j;
	u64 *vals;
	int ret;

	if (!port)
		return -EINVAL;
	vals = kcalloc(n, sizeof(*vals), GFP_KERNEL);
	if (!vals)
		return -ENOMEM;
	ret = xrdma_query_hw_counters(d->xdev, vals, n);
	if (!ret) {
		for (j = 0; j < d->num_stats; j++)
			stats->value[j] = vals[d->stat_idx[j]];
		ret = d->num_stats;
	}
	kfree(vals);
	return ret;
}

static const struct ib_device_ops xib_stats_ops = {
	.alloc_hw_port_stats = xib_alloc_hw_port_stats,
	.get_hw_stats = xib_get_hw_stats,
};

static int xib_init_stats(struct xib_dev *d)
{
	struct xrdma_device *xdev = d->xdev;
	const struct xrdma_device_ops *ops = xdev->ops;
	u32 i, n = ops->num_hw_counters;

	if (!n || !ops->get_hw_counters)
		return 0;
	/* the descriptors, then the indexes (u32 after pointers: aligned) */
	d->stat_descs = kcalloc(n, sizeof(*d->stat_descs) + sizeof(u32),
				GFP_KERNEL);
	if (!d->stat_descs)
		return -ENOMEM;
	d->stat_idx = (u32 *)(d->stat_descs + n);
	for (i = 0; i < n; i++) {
		if (xrdma_hw_counter_private(xdev, i))
			continue;
		d->stat_descs[d->num_stats].name = ops->hw_counter_names[i];
		d->stat_idx[d->num_stats++] = i;
	}
	if (d->num_stats)
		ib_set_device_ops(&d->ibdev, &xib_stats_ops);
	return 0;
}

/* ------------------------------------------------------------ events */

/* port and device events; object events go through the objects' handlers */
static void xib_event(struct xrdma_event_handler *h, struct xrdma_event *e)
{
	struct xib_dev *d = container_of(h, struct xib_dev, eh);
	struct ib_event ev = { .device = &d->ibdev };
	int type = xib_event_to_ib(e->event);

	if (type < 0)
		return;
	ev.event = type;
	switch (e->event) {
	case XRDMA_EVENT_PORT_ACTIVE:
	case XRDMA_EVENT_PORT_ERR:
		ev.element.port_num = e->element.port_num;
		break;
	case XRDMA_EVENT_DEVICE_FATAL:
		ev.element.port_num = 1;
		break;
	default:
		return;
	}
	/* ib_dispatch_event() defers to a work item: fine in atomic context */
	ib_dispatch_event(&ev);
}

/* ------------------------------------------------------------ client */

static int xib_add(struct xrdma_device *xdev)
{
	struct xib_dev *d;
	struct net_device *ndev;
	u32 port;
	int ret;

	for (port = 1; port <= xdev->num_ports; port++)
		if (!xrdma_get_netdev(xdev, port) && roce_only)
			return -ENODEV;

	d = ib_alloc_device(xib_dev, ibdev);
	if (!d)
		return -ENOMEM;
	d->xdev = xdev;
	d->ibdev.node_type = RDMA_NODE_IB_CA;
	d->ibdev.node_guid = xdev->attr.node_guid;
	d->ibdev.phys_port_cnt = xdev->num_ports;
	d->ibdev.num_comp_vectors = 1;
	d->ibdev.dev.parent = xdev->dev.parent;
	strscpy(d->ibdev.node_desc, xdev->name, sizeof(d->ibdev.node_desc));
	ib_set_device_ops(&d->ibdev, &xib_dev_ops);
	ib_set_device_ops(&d->ibdev, &xib_verbs_ops);
	ret = xib_init_stats(d);
	if (ret)
		goto err_free;

	for (port = 1; port <= xdev->num_ports; port++) {
		ndev = xrdma_get_netdev(xdev, port);
		if (!ndev)
			continue;
		ret = ib_device_set_netdev(&d->ibdev, ndev, port);
		if (ret)
			goto err_free;
	}

	ret = ib_register_device(&d->ibdev, xdev->name, xdev->dev.parent);
	if (ret) {
		dev_err(&xdev->dev, "ib_register_device: %d\n", ret);
		goto err_free;
	}
	d->eh.device = xdev;
	d->eh.handler = xib_event;
	xrdma_register_event_handler(&d->eh);
	xrdma_set_client_data(xdev, &xib_client, d);
	return 0;

err_free:
	kfree(d->stat_descs);
	ib_dealloc_device(&d->ibdev);
	return ret;
}

static void xib_remove(struct xrdma_device *xdev, void *data)
{
	struct xib_dev *d = data;
	struct rdma_stat_desc *descs;

	if (!d)
		return;
	xrdma_unregister_event_handler(&d->eh);
	/* ib_core's clients release their objects on the device first */
	ib_unregister_device(&d->ibdev);
	descs = d->stat_descs;
	ib_dealloc_device(&d->ibdev);
	/* the port stats only point at them; nothing reads them now */
	kfree(descs);
}

static struct xrdma_client xib_client = {
	.name = "xrdma_ib",
	.add = xib_add,
	.remove = xib_remove,
};

static int __init xib_init(void)
{
	return xrdma_register_client(&xib_client);
}

static void __exit xib_exit(void)
{
	xrdma_unregister_client(&xib_client);
}

module_init(xib_init);
module_exit(xib_exit);
MODULE_DESCRIPTION("xrdma devices as ib_core devices (kernel ULPs over xrdma)");
MODULE_LICENSE("GPL");
