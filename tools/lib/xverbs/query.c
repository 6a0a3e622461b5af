// SPDX-License-Identifier: GPL-2.0
/*
 * xverbs: queries of the device and its ports -- ibv_query_device(_ex),
 * ibv_query_port, the GID and P_Key tables, the real-time values; one
 * uverbs ioctl each.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "xverbs.h"

/* the public names are macros in <infiniband/verbs.h> */
#undef ibv_query_port

/* ------------------------------------------------------------ queries */

static int xv_query_device_cmd(struct ibv_context *ctx,
			       struct xrdma_cmd_query_device *q)
{
	memset(q, 0, sizeof(*q));
	return xv_ioctl(ctx, XRDMA_IOC_QUERY_DEVICE, q);
}

/*
 * The device's capabilities as the kernel reports them, less what this
 * library cannot offer on user queues:
 *  - MEM_MGT_EXTENSIONS: fast registration is for kernel QPs only (no
 *    REG_MR work request on a user QP).
 * Every other bit the kernel reports is passed on (memory windows:
 * mw.c).
 */
static const struct {
	uint32_t kernel;
	unsigned int ibv;
} xv_cap_map[] = {
	{ XRDMA_DEVICE_CAP_SRQ_RESIZE, IBV_DEVICE_SRQ_RESIZE },	/* srq.c */
	{ XRDMA_DEVICE_CAP_RC_RNR_NAK_GEN, IBV_DEVICE_RC_RNR_NAK_GEN },
	{ XRDMA_DEVICE_CAP_PORT_ACTIVE_EVENT, IBV_DEVICE_PORT_ACTIVE_EVENT },
	{ XRDMA_DEVICE_CAP_CHANGE_PHY_PORT, IBV_DEVICE_CHANGE_PHY_PORT },
	{ XRDMA_DEVICE_CAP_MEM_WINDOW, IBV_DEVICE_MEM_WINDOW },
	{ XRDMA_DEVICE_CAP_MEM_WINDOW_TYPE_2B, IBV_DEVICE_MEM_WINDOW_TYPE_2B },
	{ XRDMA_DEVICE_CAP_XRC, IBV_DEVICE_XRC },		/* xrc.c */
};

static unsigned int xv_device_cap_flags(uint32_t kernel)
{
	unsigned int f = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(xv_cap_map); i++)
		if (kernel & xv_cap_map[i].kernel)
			f |= xv_cap_map[i].ibv;
	return f;
}

static void xv_fill_device_attr(const struct xrdma_cmd_query_device *q,
				struct ibv_device_attr *a)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->fw_ver, sizeof(a->fw_ver), "%.*s",
		 (int)sizeof(q->fw_ver), q->fw_ver);
	a->node_guid = q->node_guid;
	a->sys_image_guid = q->node_guid;
	a->max_mr_size = q->max_mr_size;
	a->page_size_cap = q->page_size_cap;
	a->vendor_id = q->vendor_id;
	a->vendor_part_id = q->vendor_part_id;
	a->hw_ver = q->hw_ver;
	a->max_qp = (int)q->max_qp;
	a->max_qp_wr = (int)q->max_qp_wr;
	a->device_cap_flags = xv_device_cap_flags(q->device_cap_flags);
	a->max_sge = (int)q->max_sge;
	a->max_sge_rd = (int)q->max_sge_rd;
	a->max_cq = (int)q->max_cq;
	a->max_cqe = (int)q->max_cqe;
	a->max_mr = (int)q->max_mr;
	/* windows have a key space of their own as large as the MRs' */
	if (q->device_cap_flags & XRDMA_DEVICE_CAP_MEM_WINDOW)
		a->max_mw = (int)q->max_mr;
	a->max_pd = (int)q->max_pd;
	a->max_qp_rd_atom = (int)q->max_qp_rd_atom;
	a->max_qp_init_rd_atom = (int)q->max_qp_init_rd_atom;
	a->max_res_rd_atom = (int)(q->max_qp_rd_atom * q->max_qp);
	a->atomic_cap = (enum ibv_atomic_cap)q->atomic_cap;
	a->max_ah = (int)q->max_ah;
	a->max_srq = (int)q->max_srq;
	a->max_srq_wr = (int)q->max_srq_wr;
	a->max_srq_sge = (int)q->max_srq_sge;
	a->max_mcast_grp = (int)q->max_mcast_grp;
	a->max_mcast_qp_attach = (int)q->max_mcast_qp_attach;
	a->max_total_mcast_qp_attach = (int)q->max_total_mcast_qp_attach;
	a->max_pkeys = 1;
	a->local_ca_ack_delay = 15;
	a->phys_port_cnt = (uint8_t)q->num_ports;
}

int ibv_query_device(struct ibv_context *ctx,
		     struct ibv_device_attr *attr)
{
	struct xrdma_cmd_query_device q;
	int ret = xv_query_device_cmd(ctx, &q);

	if (!ret)
		xv_fill_device_attr(&q, attr);
	return ret;
}

static int xv_query_device_ex(struct ibv_context *ctx,
			      const struct ibv_query_device_ex_input *input,
			      struct ibv_device_attr_ex *attr, size_t size)
{
	struct ibv_device_attr_ex a;
	struct xrdma_cmd_query_device q;
	int ret;

	if (input && input->comp_mask)
		return EINVAL;
	if (size < sizeof(attr->orig_attr))
		return EINVAL;
	ret = xv_query_device_cmd(ctx, &q);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	xv_fill_device_attr(&q, &a.orig_attr);
	/* CQE timestamps: a 32-bit microsecond clock */
	a.completion_timestamp_mask = 0xffffffffULL;
	a.hca_core_clock = 1000;	/* kHz */
	/*
	 * What rdma-core's ibv_cmd_query_device_any() reports from the
	 * kernel: the 64-bit flags include the 32 of orig_attr, and the port
	 * count (below 256) is orig_attr's.  Everything else the device does
	 * not have reads 0: odp_caps, xrc_odp_caps, tso_caps,
	 * rss_caps, max_wq_type_rq, packet_pacing_caps, raw_packet_caps,
	 * tm_caps, cq_mod_caps, max_counters, pci_atomic_caps.
	 */
	a.device_cap_flags_ex = a.orig_attr.device_cap_flags;
	/* IBTA 1.5 persistent-memory operations: the 64-bit flags only */
	if (q.device_cap_flags & XRDMA_DEVICE_CAP_ATOMIC_WRITE)
		a.device_cap_flags_ex |= XV_DEVICE_ATOMIC_WRITE;
	if (q.device_cap_flags & XRDMA_DEVICE_CAP_FLUSH_GLOBAL)
		a.device_cap_flags_ex |= XV_DEVICE_FLUSH_GLOBAL;
	if (q.device_cap_flags & XRDMA_DEVICE_CAP_FLUSH_PERSISTENT)
		a.device_cap_flags_ex |= XV_DEVICE_FLUSH_PERSISTENT;
	a.phys_port_cnt_ex = a.orig_attr.phys_port_cnt;
	/* device memory (0 from a kernel without it: ibv_alloc_dm EINVAL) */
	a.max_dm_size = q.max_dm_size;
	/*
	 * as rdma-core's ibv_cmd_query_device_any(): the caller's @size, all
	 * of it written; what a newer rdma-core's structure has beyond ours
	 * reads 0 (not supported)
	 */
	memcpy(attr, &a, size < sizeof(a) ? size : sizeof(a));
	if (size > sizeof(a))
		memset((char *)attr + sizeof(a), 0, size - sizeof(a));
	return 0;
}

/*
 * ibv_query_rt_values_ex() as rdma-core v44's mlx5: EINVAL for a mask bit
 * other than RAW_CLOCK; RAW_CLOCK reads the device clock the CQE
 * timestamps count (QUERY_CLOCK: the xnic CLOCK register, 32-bit
 * microseconds, hca_core_clock 1000 kHz) into raw_clock.tv_nsec, tv_sec 0;
 * comp_mask says what was answered.
 */
static int xv_query_rt_values(struct ibv_context *ctx,
			      struct ibv_values_ex *values)
{
	struct xrdma_cmd_query_clock q = { 0 };
	uint32_t mask = 0;
	int ret = 0;

	if (values->comp_mask & ~(uint32_t)IBV_VALUES_MASK_RAW_CLOCK)
		return EINVAL;
	if (values->comp_mask & IBV_VALUES_MASK_RAW_CLOCK) {
		ret = xv_ioctl(ctx, XRDMA_IOC_QUERY_CLOCK, &q);
		if (!ret) {
			values->raw_clock.tv_sec = 0;
			values->raw_clock.tv_nsec = (long)q.clock;
			mask |= IBV_VALUES_MASK_RAW_CLOCK;
		}
	}
	values->comp_mask = mask;
	return ret;
}

int xv_query_port_full(struct ibv_context *ctx, uint8_t port_num,
		       struct ibv_port_attr *a)
{
	struct xrdma_cmd_query_port q = { .port_num = port_num };
	int ret = xv_ioctl(ctx, XRDMA_IOC_QUERY_PORT, &q);

	if (ret)
		return ret;
	memset(a, 0, sizeof(*a));
	a->state = (enum ibv_port_state)q.state;
	a->max_mtu = (enum ibv_mtu)q.max_mtu;
	a->active_mtu = (enum ibv_mtu)q.active_mtu;
	a->gid_tbl_len = (int)q.gid_tbl_len;
	a->port_cap_flags = IBV_PORT_CM_SUP;
	a->max_msg_sz = q.max_msg_sz;
	a->pkey_tbl_len = q.pkey_tbl_len;
	a->lid = q.lid;
	a->active_width = q.active_width;
	a->active_speed = q.active_speed;
	a->phys_state = q.state == IBV_PORT_ACTIVE ? 5 : 3;	/* LinkUp */
	a->link_layer = (uint8_t)q.link_layer;
	return 0;
}

/*
 * verbs.h's ibv_query_port() passes the size of the caller's struct
 * ibv_port_attr: rdma-core 56's has active_speed_ex behind ours, which
 * reads 0 ("use active_speed", as 56's ibv_devinfo takes it), as
 * rdma-core 44's __lib_query_port() zeroes all of @len.
 */
static int xv_query_port_ex(struct ibv_context *ctx, uint8_t port_num,
			    struct ibv_port_attr *attr, size_t len)
{
	struct ibv_port_attr a;
	int ret = xv_query_port_full(ctx, port_num, &a);

	if (ret)
		return ret;
	memcpy(attr, &a, len < sizeof(a) ? len : sizeof(a));
	if (len > sizeof(a))
		memset((char *)attr + sizeof(a), 0, len - sizeof(a));
	return 0;
}

/* the old ABI: the structure up to flags */
int ibv_query_port(struct ibv_context *ctx, uint8_t port_num,
		   struct _compat_ibv_port_attr *attr)
{
	return xv_query_port_ex(ctx, port_num, (struct ibv_port_attr *)attr,
				offsetof(struct ibv_port_attr,
					 port_cap_flags2));
}

int xv_query_gid(struct ibv_context *ctx, uint8_t port, int index,
		 union ibv_gid *gid)
{
	struct xrdma_cmd_query_gid q = {
		.port_num = port,
		.index = (uint32_t)index,
	};
	int ret;

	if (index < 0)
		return EINVAL;
	ret = xv_ioctl(ctx, XRDMA_IOC_QUERY_GID, &q);
	if (!ret)
		memcpy(gid->raw, q.gid, 16);
	return ret;
}

/*
 * The type of a GID table entry as ib_core's sysfs says it when xrdma_ib
 * registered the device (ibdev_path is then ib_core's directory, whose
 * indexes are ours), else -1: the library's own files have no types.
 */
int xv_gid_type_sysfs(struct ibv_context *ctx, uint8_t port, int index)
{
	char path[IBV_SYSFS_PATH_MAX + 64], buf[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/ports/%u/gid_attrs/types/%d",
		 ctx->device->ibdev_path, port, index);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	if (!strncmp(buf, "IB/RoCE v1", 10))
		return IBV_GID_TYPE_ROCE_V1;
	if (!strncmp(buf, "RoCE v2", 7))
		return IBV_GID_TYPE_ROCE_V2;
	return -1;
}

/* the entry's type; RoCE v2 when ib_core does not say */
enum ibv_gid_type xv_gid_type(struct ibv_context *ctx, uint8_t port,
			      int index)
{
	int t = xv_gid_type_sysfs(ctx, port, index);

	return t < 0 ? IBV_GID_TYPE_ROCE_V2 : (enum ibv_gid_type)t;
}

int ibv_query_gid(struct ibv_context *ctx, uint8_t port_num,
		  int index, union ibv_gid *gid)
{
	int ret = xv_query_gid(ctx, port_num, index, gid);

	if (ret) {
		errno = ret;
		return -1;
	}
	return 0;
}

static bool xv_gid_empty(const union ibv_gid *gid)
{
	static const uint8_t zero[16];

	return !memcmp(gid->raw, zero, 16);
}

int _ibv_query_gid_ex(struct ibv_context *ctx, uint32_t port_num,
		      uint32_t gid_index, struct ibv_gid_entry *entry,
		      uint32_t flags, size_t entry_size)
{
	struct ibv_gid_entry e = { 0 };
	int ret;

	if (flags || entry_size < sizeof(e) || port_num > 255 ||
	    gid_index > INT32_MAX)
		return EINVAL;
	ret = xv_query_gid(ctx, (uint8_t)port_num, (int)gid_index, &e.gid);
	if (ret)
		return ret;
	if (xv_gid_empty(&e.gid))
		return ENODATA;
	e.gid_index = gid_index;
	e.port_num = port_num;
	e.gid_type = xv_gid_type(ctx, (uint8_t)port_num, (int)gid_index);
	e.ndev_ifindex = 0;
	memcpy(entry, &e, sizeof(e));
	return 0;
}

/*
 * rdma-core v44's query_gid_table_fb(): the valid entries of every port,
 * in order; never a write at entries[max_entries] or beyond -- past
 * max_entries an entry is read into a scratch one, and a valid one there
 * is -EINVAL (more valid GIDs than the caller has room for; max_entries 0
 * included).
 */
ssize_t _ibv_query_gid_table(struct ibv_context *ctx,
			     struct ibv_gid_entry *entries,
			     size_t max_entries, uint32_t flags,
			     size_t entry_size)
{
	struct xrdma_cmd_query_device q;
	struct ibv_gid_entry scratch;
	struct ibv_port_attr pa;
	size_t n = 0;
	uint32_t port;
	int i, ret;

	if (flags || entry_size < sizeof(*entries))
		return -EINVAL;
	ret = xv_query_device_cmd(ctx, &q);
	if (ret)
		return -ret;
	for (port = 1; port <= q.num_ports; port++) {
		ret = xv_query_port_full(ctx, (uint8_t)port, &pa);
		if (ret)
			return -ret;
		for (i = 0; i < pa.gid_tbl_len; i++) {
			struct ibv_gid_entry *e = &scratch;

			if (n < max_entries)
				e = (void *)((char *)entries + n * entry_size);
			ret = _ibv_query_gid_ex(ctx, port, (uint32_t)i, e, 0,
						sizeof(*e));
			if (ret == ENODATA)
				continue;
			if (ret)
				return -ret;
			if (n == max_entries)
				return -EINVAL;
			n++;
		}
	}
	return (ssize_t)n;
}

int ibv_query_pkey(struct ibv_context *ctx, uint8_t port_num,
		   int index, __be16 *pkey)
{
	struct ibv_port_attr pa;
	int ret = xv_query_port_full(ctx, port_num, &pa);

	if (!ret && (index < 0 || index >= pa.pkey_tbl_len))
		ret = EINVAL;
	if (ret) {
		errno = ret;
		return -1;
	}
	*pkey = htobe16(0xffff);	/* the default partition, full */
	return 0;
}

int ibv_get_pkey_index(struct ibv_context *ctx, uint8_t port_num,
		       __be16 pkey)
{
	__be16 p;

	if (ibv_query_pkey(ctx, port_num, 0, &p))
		return -1;
	/* the membership bit does not take part in the match */
	if ((be16toh(p) & 0x7fff) == (be16toh(pkey) & 0x7fff))
		return 0;
	errno = ENOENT;
	return -1;
}

void xv_query_set_ops(struct verbs_context *v)
{
	v->query_port = xv_query_port_ex;
	v->query_device_ex = xv_query_device_ex;
	v->query_rt_values = xv_query_rt_values;
}
