// SPDX-License-Identifier: GPL-2.0
/*
 * xverbs: the control path -- queries and object lifetimes, one uverbs
 * ioctl each, and the mappings of the queues the kernel hands out.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_user_sa.h>
#include "xverbs.h"

/* the public names are macros in <infiniband/verbs.h> */
#undef ibv_query_port
#undef ibv_reg_mr
#undef ibv_reg_mr_iova

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
	{ XRDMA_DEVICE_CAP_SRQ_RESIZE, IBV_DEVICE_SRQ_RESIZE },	/* resize.c */
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

static int xv_query_port_full(struct ibv_context *ctx, uint8_t port_num,
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
static int xv_gid_type_sysfs(struct ibv_context *ctx, uint8_t port, int index)
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

/* ------------------------------------------------------------ CQ */

void *xv_map(struct ibv_context *ctx, uint64_t offset, size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       ctx->cmd_fd, (off_t)offset);

	return p == MAP_FAILED ? NULL : p;
}

static struct xv_cq *xv_create_cq(struct ibv_context *ctx, int cqe,
				  struct ibv_comp_channel *channel,
				  int comp_vector, uint64_t wc_flags)
{
	struct xrdma_cmd_create_cq c = { 0 };
	struct xnic_create_cq_resp r = { 0 };
	struct xv_cq *cq;
	int err;

	if (cqe <= 0 || comp_vector < 0) {
		errno = EINVAL;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}
	c.user_cookie = (uintptr_t)cq;
	c.cqe = (uint32_t)cqe;
	c.comp_vector = (uint32_t)comp_vector;
	c.channel_fd = channel ? channel->fd : -1;
	c.udata.out = (uintptr_t)&r;
	c.udata.out_len = sizeof(r);
	err = xv_ioctl(ctx, XRDMA_IOC_CREATE_CQ, &c);
	if (err)
		goto err_free;
	if (r.log_cqe > 24 ||
	    (sizeof(struct xnic_cqe) << r.log_cqe) > r.mmap_size ||
	    (uint64_t)r.dbrec_offset + sizeof(struct xnic_cq_dbrec) >
	    r.mmap_size) {
		err = EPROTO;
		goto err_destroy;
	}
	cq->map = xv_map(ctx, r.mmap_offset, r.mmap_size);
	if (!cq->map) {
		err = errno;
		goto err_destroy;
	}
	cq->map_size = r.mmap_size;
	cq->ring = cq->map;
	cq->dbrec = (void *)((char *)cq->map + r.dbrec_offset);
	cq->log = r.log_cqe;
	cq->wc_flags = wc_flags;
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	cq->ex.context = ctx;
	cq->ex.channel = channel;
	cq->ex.handle = c.cq_handle;
	cq->ex.cqe = (int)c.cqe;
	pthread_mutex_init(&cq->ex.mutex, NULL);
	pthread_cond_init(&cq->ex.cond, NULL);
	if (channel) {
		pthread_mutex_lock(&ctx->mutex);
		channel->refcnt++;
		pthread_mutex_unlock(&ctx->mutex);
	}
	return cq;

err_destroy:
	xv_destroy_obj(ctx, XRDMA_OBJ_CQ, c.cq_handle, NULL);
err_free:
	free(cq);
	errno = err;
	return NULL;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *ctx, int cqe,
			     void *cq_context,
			     struct ibv_comp_channel *channel,
			     int comp_vector)
{
	struct xv_cq *cq = xv_create_cq(ctx, cqe, channel, comp_vector, 0);

	if (!cq)
		return NULL;
	cq->ex.cq_context = cq_context;
	return ibv_cq_ex_to_cq(&cq->ex);
}

#define XV_WC_EX_FLAGS (IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | \
			IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP | \
			IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL | \
			IBV_WC_EX_WITH_DLID_PATH_BITS | \
			IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)

static struct ibv_cq_ex *xv_create_cq_ex(struct ibv_context *ctx,
					 struct ibv_cq_init_attr_ex *attr)
{
	struct xv_cq *cq;

	if (attr->comp_mask & ~(uint32_t)(IBV_CQ_INIT_ATTR_MASK_FLAGS |
					  IBV_CQ_INIT_ATTR_MASK_PD) ||
	    ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	     attr->flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED) ||
	    attr->wc_flags & ~(uint64_t)XV_WC_EX_FLAGS) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* as mlx5: MASK_PD needs a parent domain (of this context) */
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) &&
	    (!xv_parent_domain(attr->parent_domain) ||
	     attr->parent_domain->context != ctx)) {
		errno = EINVAL;
		return NULL;
	}
	cq = xv_create_cq(ctx, (int)attr->cqe, attr->channel,
			  (int)attr->comp_vector, attr->wc_flags);
	if (!cq)
		return NULL;
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) {
		cq->parent_domain = attr->parent_domain;
		xv_pd_get(cq->parent_domain);
	}
	cq->ex.cq_context = attr->cq_context;
	xv_cq_ex_init(cq);
	return &cq->ex;
}

int ibv_destroy_cq(struct ibv_cq *ibcq)
{
	struct xv_cq *cq = to_xcq(ibcq);
	struct ibv_context *ctx = ibcq->context;
	struct ibv_comp_channel *channel = ibcq->channel;
	struct xrdma_cmd_destroy d;
	int ret;

	ret = xv_destroy_obj(ctx, XRDMA_OBJ_CQ, ibcq->handle, &d);
	if (ret)
		return ret;
	if (channel) {
		pthread_mutex_lock(&ctx->mutex);
		channel->refcnt--;
		pthread_mutex_unlock(&ctx->mutex);
	}
	xv_wait_events(&ibcq->mutex, &ibcq->cond,
		       &ibcq->comp_events_completed, d.comp_events_reported);
	xv_wait_events(&ibcq->mutex, &ibcq->cond,
		       &ibcq->async_events_completed, d.async_events_reported);
	munmap(cq->map, cq->map_size);
	xv_pd_put(cq->parent_domain);
	pthread_spin_destroy(&cq->lock);
	free(cq);
	return 0;
}

/* ------------------------------------------------------------ QPN table */

static uint32_t xv_qp_hash(uint32_t qpn)
{
	return (qpn * 2654435761u) >> 22;	/* 10 bits: XV_QP_HASH */
}

struct xv_qp *xv_qp_lookup(struct xv_context *xctx, uint32_t qpn)
{
	struct xv_qp *qp;

	pthread_rwlock_rdlock(&xctx->qp_lock);
	for (qp = xctx->qp_hash[xv_qp_hash(qpn)]; qp; qp = qp->hnext)
		if (qp->ex.qp_base.qp_num == qpn)
			break;
	pthread_rwlock_unlock(&xctx->qp_lock);
	return qp;
}

static void xv_qp_insert(struct xv_context *xctx, struct xv_qp *qp)
{
	uint32_t h = xv_qp_hash(qp->ex.qp_base.qp_num);

	pthread_rwlock_wrlock(&xctx->qp_lock);
	qp->hnext = xctx->qp_hash[h];
	xctx->qp_hash[h] = qp;
	pthread_rwlock_unlock(&xctx->qp_lock);
}

static void xv_cq_forget(struct ibv_cq *ibcq, struct xv_qp *qp)
{
	struct xv_cq *cq = to_xcq(ibcq);

	pthread_spin_lock(&cq->lock);
	if (cq->last_qp == qp)
		cq->last_qp = NULL;
	pthread_spin_unlock(&cq->lock);
}

static void xv_qp_remove(struct xv_context *xctx, struct xv_qp *qp)
{
	struct xv_qp **p;

	pthread_rwlock_wrlock(&xctx->qp_lock);
	for (p = &xctx->qp_hash[xv_qp_hash(qp->ex.qp_base.qp_num)]; *p;
	     p = &(*p)->hnext) {
		if (*p == qp) {
			*p = qp->hnext;
			break;
		}
	}
	pthread_rwlock_unlock(&xctx->qp_lock);
	if (qp->ex.qp_base.send_cq)
		xv_cq_forget(qp->ex.qp_base.send_cq, qp);
	if (qp->ex.qp_base.recv_cq)
		xv_cq_forget(qp->ex.qp_base.recv_cq, qp);
}

/* ------------------------------------------------------------ QP */

static int xv_wq_init(struct xv_wq *wq, void *map, uint32_t size,
		      uint32_t off, uint32_t log, uint32_t shift,
		      uint32_t max_wr, uint32_t max_sge, struct ibv_pd *pd,
		      uint64_t wrid_type)
{
	if (log > 20 || shift > 16 ||
	    (uint64_t)off + ((uint64_t)1 << (log + shift)) > size)
		return EPROTO;
	wq->buf = (uint8_t *)map + off;
	wq->log = log;
	wq->shift = shift;
	wq->max_wr = max_wr;
	wq->max_sge = max_sge;
	/* a parent domain's allocator, or calloc */
	return xv_wrid_alloc(pd, wq, wrid_type);
}

static struct ibv_qp *xv_create_qp_common(struct ibv_context *ctx,
					  struct ibv_qp_init_attr_ex *attr)
{
	struct xv_context *xctx = to_xctx(ctx);
	struct xrdma_cmd_create_qp c = { 0 };
	struct xnic_create_qp_resp r = { 0 };
	struct ibv_qp *ibqp;
	struct xv_qp *qp;
	bool has_rq;
	int err;

	if (attr->qp_type == IBV_QPT_XRC_RECV)
		return xv_create_xrc_recv_qp(ctx, attr);
	if (!attr->pd || !attr->send_cq ||
	    (!attr->recv_cq && attr->qp_type != IBV_QPT_XRC_SEND)) {
		errno = EINVAL;
		return NULL;
	}
	switch (attr->qp_type) {
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_UD:
		has_rq = !attr->srq;
		break;
	case IBV_QPT_XRC_SEND:
		/*
		 * No receive side: its CQ is ignored and its capabilities
		 * read 0, as rdma-core has it; an SRQ is the kernel's EINVAL.
		 */
		if (attr->srq) {
			errno = EINVAL;
			return NULL;
		}
		attr->cap.max_recv_wr = 0;
		attr->cap.max_recv_sge = 0;
		has_rq = false;
		break;
	default:
		errno = EOPNOTSUPP;
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	ibqp = &qp->ex.qp_base;
	c.user_cookie = (uintptr_t)qp;
	c.pd_handle = attr->pd->handle;
	c.send_cq_handle = attr->send_cq->handle;
	if (attr->qp_type != IBV_QPT_XRC_SEND)
		c.recv_cq_handle = attr->recv_cq->handle;
	c.qp_type = attr->qp_type;
	if (attr->srq) {
		c.flags |= XRDMA_UVERBS_CREATE_QP_SRQ;
		c.srq_handle = attr->srq->handle;
	}
	if (attr->sq_sig_all)
		c.flags |= XRDMA_UVERBS_CREATE_QP_SQ_SIG_ALL;
	c.cap.max_send_wr = attr->cap.max_send_wr;
	c.cap.max_recv_wr = has_rq ? attr->cap.max_recv_wr : 0;
	c.cap.max_send_sge = attr->cap.max_send_sge;
	c.cap.max_recv_sge = has_rq ? attr->cap.max_recv_sge : 0;
	c.cap.max_inline_data = attr->cap.max_inline_data;
	c.udata.out = (uintptr_t)&r;
	c.udata.out_len = sizeof(r);
	err = xv_ioctl(ctx, XRDMA_IOC_CREATE_QP, &c);
	if (err)
		goto err_free;
	if (r.sq_wqe_shift < XNIC_SQ_WQE_MIN_SHIFT ||
	    (has_rq && r.rq_wqe_shift < XNIC_RQ_WQE_MIN_SHIFT) ||
	    r.db_slot >= XNIC_DB_SLOTS ||
	    (uint64_t)r.dbrec_offset + sizeof(struct xnic_qp_dbrec) >
	    r.mmap_size) {
		err = EPROTO;
		goto err_destroy;
	}
	qp->map = xv_map(ctx, r.mmap_offset, r.mmap_size);
	if (!qp->map) {
		err = errno;
		goto err_destroy;
	}
	qp->map_size = r.mmap_size;
	qp->dbrec = (void *)((char *)qp->map + r.dbrec_offset);
	err = xv_wq_init(&qp->sq, qp->map, r.mmap_size, r.sq_offset,
			 r.sq_log_wqe, r.sq_wqe_shift, c.cap.max_send_wr,
			 c.cap.max_send_sge, attr->pd, XV_RES_TYPE_SQ_WRID);
	if (!err && has_rq)
		err = xv_wq_init(&qp->rq, qp->map, r.mmap_size, r.rq_offset,
				 r.rq_log_wqe, r.rq_wqe_shift,
				 c.cap.max_recv_wr, c.cap.max_recv_sge,
				 attr->pd, XV_RES_TYPE_RQ_WRID);
	if (err)
		goto err_unmap;
	qp->db_slot = r.db_slot;
	qp->max_inline = c.cap.max_inline_data;
	qp->sig_all = attr->sq_sig_all;
	qp->td = xv_pd_single_threaded(attr->pd);
	pthread_spin_init(&qp->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq_lock, PTHREAD_PROCESS_PRIVATE);
	ibqp->context = ctx;
	ibqp->qp_context = attr->qp_context;
	ibqp->pd = attr->pd;
	ibqp->send_cq = attr->send_cq;
	ibqp->recv_cq = attr->qp_type == IBV_QPT_XRC_SEND ? NULL :
			attr->recv_cq;
	ibqp->srq = attr->srq;
	ibqp->handle = c.qp_handle;
	ibqp->qp_num = c.qpn;
	ibqp->state = IBV_QPS_RESET;
	ibqp->qp_type = attr->qp_type;
	pthread_mutex_init(&ibqp->mutex, NULL);
	pthread_cond_init(&ibqp->cond, NULL);
	attr->cap.max_send_wr = c.cap.max_send_wr;
	attr->cap.max_send_sge = c.cap.max_send_sge;
	attr->cap.max_inline_data = c.cap.max_inline_data;
	if (has_rq) {
		attr->cap.max_recv_wr = c.cap.max_recv_wr;
		attr->cap.max_recv_sge = c.cap.max_recv_sge;
	}
	xv_pd_get(attr->pd);
	xv_qp_insert(xctx, qp);
	return ibqp;

err_unmap:
	xv_wrid_free(attr->pd, &qp->sq, XV_RES_TYPE_SQ_WRID);
	xv_wrid_free(attr->pd, &qp->rq, XV_RES_TYPE_RQ_WRID);
	munmap(qp->map, qp->map_size);
err_destroy:
	xv_destroy_obj(ctx, XRDMA_OBJ_QP, c.qp_handle, NULL);
err_free:
	free(qp);
	errno = err;
	return NULL;
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd,
			     struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ax;
	struct ibv_qp *qp;

	memset(&ax, 0, sizeof(ax));
	memcpy(&ax, attr, sizeof(*attr));
	ax.comp_mask = IBV_QP_INIT_ATTR_PD;
	ax.pd = pd;
	qp = xv_create_qp_common(pd->context, &ax);
	if (qp)
		attr->cap = ax.cap;
	return qp;
}

/*
 * What ibv_create_qp_ex honours, as rdma-core's providers answer it:
 * comp_mask PD, XRCD (an XRC_RECV QP's domain, which no other type uses),
 * CREATE_FLAGS (no flag makes sense on xnic: no raw packet QPs, no
 * multicast, no underlay QPN) and SEND_OPS_FLAGS with the opcodes the
 * device runs on the QP's type (mlx5's lists; SEND_WITH_INV on RC only, as
 * the device checks it; BIND_MW on RC and UC, as rxe; on XRC_SEND what
 * reaches an XRC SRQ's PD and no window).  Anything else -- IND_TABLE,
 * RX_HASH, MAX_TSO_HEADER, a create flag, an opcode the type cannot use
 * -- is EOPNOTSUPP; no PD (an XRC_RECV QP: no XRCD), or one of another
 * context, is EINVAL.
 */
#define XV_QP_COMP_MASK (IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD | \
			 IBV_QP_INIT_ATTR_CREATE_FLAGS | \
			 IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
#define XV_UD_SEND_OPS (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)
#define XV_UC_SEND_OPS (XV_UD_SEND_OPS | IBV_QP_EX_WITH_RDMA_WRITE | \
			IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
			IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW)
#define XV_XRC_SEND_OPS (XV_UD_SEND_OPS | IBV_QP_EX_WITH_RDMA_WRITE | \
			 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
			 IBV_QP_EX_WITH_RDMA_READ | \
			 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
			 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | \
			 IBV_QP_EX_WITH_ATOMIC_WRITE | XV_QP_EX_WITH_FLUSH)
#define XV_RC_SEND_OPS (XV_UC_SEND_OPS | IBV_QP_EX_WITH_RDMA_READ | \
			IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
			IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | \
			IBV_QP_EX_WITH_SEND_WITH_INV | \
			IBV_QP_EX_WITH_ATOMIC_WRITE | XV_QP_EX_WITH_FLUSH)

static uint64_t xv_send_ops(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
		return XV_RC_SEND_OPS;
	case IBV_QPT_UC:
		return XV_UC_SEND_OPS;
	case IBV_QPT_UD:
		return XV_UD_SEND_OPS;
	case IBV_QPT_XRC_SEND:
		return XV_XRC_SEND_OPS;
	default:
		return 0;
	}
}

static int xv_check_qp_init_attr_ex(struct ibv_context *ctx,
				    const struct ibv_qp_init_attr_ex *attr)
{
	if (attr->comp_mask & ~(uint32_t)XV_QP_COMP_MASK)
		return EOPNOTSUPP;
	if (attr->qp_type == IBV_QPT_XRC_RECV) {
		if (!(attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) ||
		    !attr->xrcd || attr->xrcd->context != ctx)
			return EINVAL;
	} else if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd ||
		   attr->pd->context != ctx) {
		return EINVAL;
	}
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	    attr->create_flags)
		return EOPNOTSUPP;
	/* as mlx5: no send queue, no send operations, not even none */
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    (attr->send_ops_flags & ~xv_send_ops(attr->qp_type) ||
	     attr->qp_type == IBV_QPT_XRC_RECV))
		return EOPNOTSUPP;
	return 0;
}

static struct ibv_qp *xv_create_qp_ex(struct ibv_context *ctx,
				      struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_qp *ibqp;
	int err = xv_check_qp_init_attr_ex(ctx, attr);

	if (err) {
		errno = err;
		return NULL;
	}
	ibqp = xv_create_qp_common(ctx, attr);
	if (ibqp && (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		xv_qp_ex_init(to_xqp(ibqp), attr->send_ops_flags);
	return ibqp;
}

struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *ibqp)
{
	struct xv_qp *qp = to_xqp(ibqp);

	return qp->is_ex ? &qp->ex : NULL;
}

static void xv_ah_to_uverbs(const struct ibv_ah_attr *a,
			    struct xrdma_uverbs_ah_attr *u)
{
	memset(u, 0, sizeof(*u));
	memcpy(u->dgid, a->grh.dgid.raw, 16);
	u->flow_label = a->grh.flow_label;
	u->dlid = a->dlid;
	u->sgid_index = a->grh.sgid_index;
	u->hop_limit = a->grh.hop_limit;
	u->traffic_class = a->grh.traffic_class;
	u->sl = a->sl;
	u->port_num = a->port_num;
	u->is_global = a->is_global;
}

static void xv_ah_from_uverbs(const struct xrdma_uverbs_ah_attr *u,
			      struct ibv_ah_attr *a)
{
	memset(a, 0, sizeof(*a));
	memcpy(a->grh.dgid.raw, u->dgid, 16);
	a->grh.flow_label = u->flow_label;
	a->grh.sgid_index = u->sgid_index;
	a->grh.hop_limit = u->hop_limit;
	a->grh.traffic_class = u->traffic_class;
	a->dlid = u->dlid;
	a->sl = u->sl;
	a->port_num = u->port_num;
	a->is_global = u->is_global;
}

static void xv_cap_to_ibv(const struct xrdma_uverbs_qp_cap *u,
			  struct ibv_qp_cap *c)
{
	c->max_send_wr = u->max_send_wr;
	c->max_recv_wr = u->max_recv_wr;
	c->max_send_sge = u->max_send_sge;
	c->max_recv_sge = u->max_recv_sge;
	c->max_inline_data = u->max_inline_data;
}

#define XV_QP_ATTR_MASK ((1U << 21) - 1)

/* after RESET or destroy: no CQE of the QP's past is polled any more */
static void xv_qp_clean_cqs(struct ibv_qp *qp)
{
	if (qp->send_cq)
		xv_cq_clean(qp->send_cq, qp->qp_num);
	if (qp->recv_cq && qp->recv_cq != qp->send_cq)
		xv_cq_clean(qp->recv_cq, qp->qp_num);
}

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		  int attr_mask)
{
	struct xrdma_cmd_modify_qp c = { 0 };
	struct xrdma_uverbs_qp_attr *u = &c.attr;
	int ret;

	if ((unsigned int)attr_mask & ~XV_QP_ATTR_MASK)
		return EINVAL;
	c.qp_handle = qp->handle;
	c.attr_mask = (uint32_t)attr_mask;
	u->qp_state = attr->qp_state;
	u->cur_qp_state = attr->cur_qp_state;
	u->path_mtu = attr->path_mtu;
	u->qkey = attr->qkey;
	u->rq_psn = attr->rq_psn;
	u->sq_psn = attr->sq_psn;
	u->dest_qp_num = attr->dest_qp_num;
	u->qp_access_flags = (uint32_t)attr->qp_access_flags;
	u->cap.max_send_wr = attr->cap.max_send_wr;
	u->cap.max_recv_wr = attr->cap.max_recv_wr;
	u->cap.max_send_sge = attr->cap.max_send_sge;
	u->cap.max_recv_sge = attr->cap.max_recv_sge;
	u->cap.max_inline_data = attr->cap.max_inline_data;
	xv_ah_to_uverbs(&attr->ah_attr, &u->ah_attr);
	u->pkey_index = attr->pkey_index;
	u->en_sqd_async_notify = attr->en_sqd_async_notify;
	u->sq_draining = attr->sq_draining;
	u->max_rd_atomic = attr->max_rd_atomic;
	u->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	u->min_rnr_timer = attr->min_rnr_timer;
	u->port_num = attr->port_num;
	u->timeout = attr->timeout;
	u->retry_cnt = attr->retry_cnt;
	u->rnr_retry = attr->rnr_retry;
	u->path_mig_state = (uint8_t)attr->path_mig_state;
	ret = xv_ioctl(qp->context, XRDMA_IOC_MODIFY_QP, &c);
	if (ret)
		return ret;
	if (attr_mask & IBV_QP_STATE) {
		struct xv_qp *xqp = to_xqp(qp);

		qp->state = attr->qp_state;
		/* an XRC_RECV QP has no queues */
		if (attr->qp_state == IBV_QPS_RESET && xqp->map) {
			/* the device starts the rings over, so do we */
			xv_qp_clean_cqs(qp);
			pthread_spin_lock(&xqp->sq_lock);
			xqp->sq.pi = 0;
			xqp->sq.ci = 0;
			memset(xqp->sq.buf, 0, (size_t)1 <<
			       (xqp->sq.log + xqp->sq.shift));
			pthread_spin_unlock(&xqp->sq_lock);
			pthread_spin_lock(&xqp->rq_lock);
			if (xqp->rq.buf) {
				xqp->rq.pi = 0;
				xqp->rq.ci = 0;
				memset(xqp->rq.buf, 0, (size_t)1 <<
				       (xqp->rq.log + xqp->rq.shift));
			}
			memset(xqp->dbrec, 0, sizeof(*xqp->dbrec));
			pthread_spin_unlock(&xqp->rq_lock);
		}
	}
	return 0;
}

int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		 int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct xrdma_cmd_query_qp c = { 0 };
	struct xrdma_uverbs_qp_attr *u = &c.attr;
	int ret;

	c.qp_handle = qp->handle;
	c.attr_mask = (uint32_t)attr_mask & XV_QP_ATTR_MASK;
	ret = xv_ioctl(qp->context, XRDMA_IOC_QUERY_QP, &c);
	if (ret)
		return ret;
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = (enum ibv_qp_state)u->qp_state;
	attr->cur_qp_state = (enum ibv_qp_state)u->cur_qp_state;
	attr->path_mtu = (enum ibv_mtu)u->path_mtu;
	attr->qkey = u->qkey;
	attr->rq_psn = u->rq_psn;
	attr->sq_psn = u->sq_psn;
	attr->dest_qp_num = u->dest_qp_num;
	attr->qp_access_flags = (unsigned int)u->qp_access_flags;
	xv_cap_to_ibv(&u->cap, &attr->cap);
	xv_ah_from_uverbs(&u->ah_attr, &attr->ah_attr);
	attr->pkey_index = u->pkey_index;
	attr->en_sqd_async_notify = u->en_sqd_async_notify;
	attr->sq_draining = u->sq_draining;
	attr->max_rd_atomic = u->max_rd_atomic;
	attr->max_dest_rd_atomic = u->max_dest_rd_atomic;
	attr->min_rnr_timer = u->min_rnr_timer;
	attr->port_num = u->port_num;
	attr->timeout = u->timeout;
	attr->retry_cnt = u->retry_cnt;
	attr->rnr_retry = u->rnr_retry;
	attr->path_mig_state = (enum ibv_mig_state)u->path_mig_state;
	if (init_attr) {
		memset(init_attr, 0, sizeof(*init_attr));
		init_attr->qp_context = qp->qp_context;
		init_attr->send_cq = qp->send_cq;
		init_attr->recv_cq = qp->recv_cq;
		init_attr->srq = qp->srq;
		init_attr->qp_type = (enum ibv_qp_type)c.qp_type;
		init_attr->sq_sig_all = (int)c.sq_sig_all;
		xv_cap_to_ibv(&c.init_cap, &init_attr->cap);
	}
	/* as rdma-core: only a state the caller asked for is the QP's */
	if (attr_mask & IBV_QP_STATE)
		qp->state = attr->qp_state;
	return 0;
}

int ibv_destroy_qp(struct ibv_qp *ibqp)
{
	struct xv_qp *qp = to_xqp(ibqp);
	struct xrdma_cmd_destroy d;
	int ret;

	ret = xv_destroy_obj(ibqp->context, XRDMA_OBJ_QP, ibqp->handle, &d);
	if (ret)
		return ret;
	xv_qp_remove(to_xctx(ibqp->context), qp);
	xv_qp_clean_cqs(ibqp);
	xv_wait_events(&ibqp->mutex, &ibqp->cond,
		       &ibqp->events_completed, d.async_events_reported);
	if (qp->map)
		munmap(qp->map, qp->map_size);
	xv_wrid_free(ibqp->pd, &qp->sq, XV_RES_TYPE_SQ_WRID);
	xv_wrid_free(ibqp->pd, &qp->rq, XV_RES_TYPE_RQ_WRID);
	xv_pd_put(ibqp->pd);
	pthread_spin_destroy(&qp->sq_lock);
	pthread_spin_destroy(&qp->rq_lock);
	free(qp);
	return 0;
}

/*
 * rdma-core 56's answer (v56.1 libibverbs/verbs.c:695), which rdma-core
 * 44's callers get too (they pass @flags 0): flags 0, 1 if a whole
 * message's data is placed in order; flags RETURN_CAPS (rdma-core 56's
 * verbs.h), the capability bits WHOLE_MSG and, implied by it,
 * ALIGNED_128_BYTES; another flag bit, 0.  The device places an RC
 * message's data in order.
 */
#define XV_DATA_IN_ORDER_RETURN_CAPS	(1u << 0)
#define XV_DATA_IN_ORDER_WHOLE_MSG	(1 << 0)
#define XV_DATA_IN_ORDER_ALIGNED_128	(1 << 1)

int ibv_query_qp_data_in_order(struct ibv_qp *qp,
			       enum ibv_wr_opcode op,
			       uint32_t flags)
{
	(void)op;
	if (flags & ~XV_DATA_IN_ORDER_RETURN_CAPS)
		return 0;
	if (qp->qp_type != IBV_QPT_RC)
		return 0;
	return flags ? XV_DATA_IN_ORDER_WHOLE_MSG |
		       XV_DATA_IN_ORDER_ALIGNED_128 : 1;
}

/* ------------------------------------------------------------ SRQ */

/*
 * An SRQ: basic, or with @xrcd an XRC SRQ whose receives complete to @cq
 * (xrc.c checks the arguments).
 */
struct ibv_srq *xv_create_srq(struct ibv_pd *pd,
			      struct ibv_srq_init_attr *attr,
			      struct xv_xrcd *xrcd, struct ibv_cq *cq)
{
	struct ibv_context *ctx = pd->context;
	struct xrdma_cmd_create_srq c = { 0 };
	struct xnic_create_srq_resp r = { 0 };
	struct xv_srq *srq;
	int err;

	srq = calloc(1, sizeof(*srq));
	if (!srq) {
		errno = ENOMEM;
		return NULL;
	}
	c.user_cookie = (uintptr_t)srq;
	c.pd_handle = pd->handle;
	c.max_wr = attr->attr.max_wr;
	c.max_sge = attr->attr.max_sge;
	c.srq_limit = attr->attr.srq_limit;
	if (xrcd) {
		c.srq_type = XRDMA_UVERBS_SRQT_XRC;
		c.xrcd_handle = xrcd->handle;
		c.cq_handle = cq->handle;
	}
	c.udata.out = (uintptr_t)&r;
	c.udata.out_len = sizeof(r);
	err = xv_ioctl(ctx, XRDMA_IOC_CREATE_SRQ, &c);
	if (err)
		goto err_free;
	if (r.wqe_shift < XNIC_RQ_WQE_MIN_SHIFT ||
	    (uint64_t)r.dbrec_offset + sizeof(struct xnic_qp_dbrec) >
	    r.mmap_size) {
		err = EPROTO;
		goto err_destroy;
	}
	srq->map = xv_map(ctx, r.mmap_offset, r.mmap_size);
	if (!srq->map) {
		err = errno;
		goto err_destroy;
	}
	srq->map_size = r.mmap_size;
	srq->dbrec = (void *)((char *)srq->map + r.dbrec_offset);
	err = xv_wq_init(&srq->rq, srq->map, r.mmap_size, 0, r.log_wqe,
			 r.wqe_shift, c.max_wr, c.max_sge, pd,
			 XV_RES_TYPE_SRQ_WRID);
	if (err) {
		munmap(srq->map, srq->map_size);
		goto err_destroy;
	}
	/* the number XRC senders name (ibv_get_srq_num) */
	srq->srqn = xrcd ? c.srq_num : r.srqn;
	srq->xrcd = xrcd;
	srq->cq = cq;
	if (cq)
		__atomic_add_fetch(&to_xcq(cq)->xrc_srqs, 1, __ATOMIC_SEQ_CST);
	srq->td = xv_pd_single_threaded(pd);
	pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE);
	srq->ibsrq.context = ctx;
	srq->ibsrq.srq_context = attr->srq_context;
	srq->ibsrq.pd = pd;
	srq->ibsrq.handle = c.srq_handle;
	pthread_mutex_init(&srq->ibsrq.mutex, NULL);
	pthread_cond_init(&srq->ibsrq.cond, NULL);
	attr->attr.max_wr = c.max_wr;
	attr->attr.max_sge = c.max_sge;
	xv_pd_get(pd);
	return &srq->ibsrq;

err_destroy:
	xv_destroy_obj(ctx, XRDMA_OBJ_SRQ, c.srq_handle, NULL);
err_free:
	free(srq);
	errno = err;
	return NULL;
}

struct ibv_srq *ibv_create_srq(struct ibv_pd *pd,
			       struct ibv_srq_init_attr *attr)
{
	return xv_create_srq(pd, attr, NULL, NULL);
}

int ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct xrdma_cmd_query_srq c = { .srq_handle = srq->handle };
	int ret = xv_ioctl(srq->context, XRDMA_IOC_QUERY_SRQ, &c);

	if (ret)
		return ret;
	attr->max_wr = c.max_wr;
	attr->max_sge = c.max_sge;
	attr->srq_limit = c.srq_limit;
	return 0;
}

int ibv_destroy_srq(struct ibv_srq *ibsrq)
{
	struct xv_srq *srq = to_xsrq(ibsrq);
	struct xrdma_cmd_destroy d;
	int ret;

	ret = xv_destroy_obj(ibsrq->context, XRDMA_OBJ_SRQ, ibsrq->handle, &d);
	if (ret)
		return ret;
	xv_wait_events(&ibsrq->mutex, &ibsrq->cond,
		       &ibsrq->events_completed, d.async_events_reported);
	if (srq->cq)
		__atomic_sub_fetch(&to_xcq(srq->cq)->xrc_srqs, 1,
				   __ATOMIC_SEQ_CST);
	munmap(srq->map, srq->map_size);
	xv_wrid_free(ibsrq->pd, &srq->rq, XV_RES_TYPE_SRQ_WRID);
	xv_pd_put(ibsrq->pd);
	pthread_spin_destroy(&srq->lock);
	free(srq);
	return 0;
}

/* ------------------------------------------------------------ AH */

struct ibv_ah *ibv_create_ah(struct ibv_pd *pd,
			     struct ibv_ah_attr *attr)
{
	struct xrdma_cmd_create_ah c = { 0 };
	struct xv_ah *ah;
	int err;

	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}
	c.user_cookie = (uintptr_t)ah;
	c.pd_handle = pd->handle;
	/*
	 * Passed down as it is: the kernel refuses an AH without a GRH on a
	 * RoCE (Ethernet) port, where it would name no destination (EINVAL,
	 * as rdma-core's providers).
	 */
	xv_ah_to_uverbs(attr, &c.attr);
	err = xv_ioctl(pd->context, XRDMA_IOC_CREATE_AH, &c);
	if (err)
		goto err_free;
	memcpy(ah->dgid, c.attr.dgid, 16);
	ah->port_num = attr->port_num;
	if (attr->is_global) {
		ah->sgid_index = attr->grh.sgid_index;
		ah->hop_limit = attr->grh.hop_limit;
		ah->traffic_class = attr->grh.traffic_class;
	}
	ah->ibah.context = pd->context;
	ah->ibah.pd = pd;
	ah->ibah.handle = c.ah_handle;
	return &ah->ibah;

err_free:
	free(ah);
	errno = err;
	return NULL;
}

int ibv_destroy_ah(struct ibv_ah *ah)
{
	int ret = xv_destroy_obj(ah->context, XRDMA_OBJ_AH, ah->handle, NULL);

	if (!ret)
		free(xv_container_of(ah, struct xv_ah, ibah));
	return ret;
}

/*
 * The index of GID raw of type on the port (of any type where ib_core
 * does not say), or -1 (errno)
 */
static int xv_find_gid(struct ibv_context *ctx, uint8_t port,
		       const uint8_t *raw, enum ibv_gid_type type)
{
	struct ibv_port_attr pa;
	union ibv_gid gid;
	int i, t, ret;

	ret = xv_query_port_full(ctx, port, &pa);
	for (i = 0; !ret && i < pa.gid_tbl_len; i++) {
		ret = xv_query_gid(ctx, port, i, &gid);
		if (ret || memcmp(gid.raw, raw, 16))
			continue;
		t = xv_gid_type_sysfs(ctx, port, i);
		if (t < 0 || t == (int)type)
			return i;
	}
	errno = ret ? ret : ENOENT;
	return -1;
}

static void xv_ipv4_mapped(uint8_t *raw, uint32_t addr)
{
	memset(raw, 0, 10);
	raw[10] = 0xff;
	raw[11] = 0xff;
	memcpy(raw + 12, &addr, 4);
}

/*
 * The 40 bytes before a UD payload on RoCE: a GRH (RoCE v1, or v2 over
 * IPv6), or 20 undefined bytes and an IPv4 header (v2 over IPv4).  An
 * IPv6 version nibble can be a chance value of those 20 bytes: a valid
 * IPv4 header checksum decides then, as in rdma-core.
 */
static bool xv_hdr_is_ipv4(const struct ibv_grh *grh, const uint8_t *ip4)
{
	uint32_t sum = 0;
	int i;

	if (be32toh(grh->version_tclass_flow) >> 28 != 6)
		return (ip4[0] >> 4) == 4;
	if (ip4[0] != 0x45)
		return false;
	for (i = 0; i < 20; i += 2)
		sum += (uint32_t)ip4[i] << 8 | ip4[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

int ibv_init_ah_from_wc(struct ibv_context *ctx, uint8_t port_num,
			struct ibv_wc *wc, struct ibv_grh *grh,
			struct ibv_ah_attr *ah_attr)
{
	const uint8_t *ip4 = (const uint8_t *)grh + 20;
	enum ibv_gid_type type;
	uint8_t ours[16];
	uint32_t addr;
	int i;

	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->dlid = wc->slid;
	ah_attr->sl = wc->sl;
	ah_attr->src_path_bits = wc->dlid_path_bits;
	ah_attr->port_num = port_num;
	if (!(wc->wc_flags & IBV_WC_GRH))
		return 0;
	ah_attr->is_global = 1;
	ah_attr->grh.flow_label = be32toh(grh->version_tclass_flow) & 0xfffff;
	if (xv_hdr_is_ipv4(grh, ip4)) {
		/* RoCE v2 over IPv4: the GIDs are the addresses, mapped */
		memcpy(&addr, ip4 + 16, 4);		/* daddr */
		if ((be32toh(addr) >> 28) == 0xe) {	/* multicast */
			errno = EINVAL;
			return -1;
		}
		xv_ipv4_mapped(ours, addr);
		memcpy(&addr, ip4 + 12, 4);		/* saddr */
		xv_ipv4_mapped(ah_attr->grh.dgid.raw, addr);
		ah_attr->grh.hop_limit = ip4[8];	/* TTL */
		ah_attr->grh.traffic_class = ip4[1];	/* TOS */
		type = IBV_GID_TYPE_ROCE_V2;
	} else {
		if (grh->dgid.raw[0] == 0xff) {		/* multicast */
			errno = EINVAL;
			return -1;
		}
		if (grh->next_hdr == 17) {		/* UDP */
			type = IBV_GID_TYPE_ROCE_V2;
		} else if (grh->next_hdr == 0x1b) {	/* IB */
			type = IBV_GID_TYPE_ROCE_V1;
		} else {
			errno = EPROTONOSUPPORT;
			return -1;
		}
		memcpy(ours, grh->dgid.raw, 16);
		ah_attr->grh.dgid = grh->sgid;
		ah_attr->grh.hop_limit = grh->hop_limit;
		ah_attr->grh.traffic_class =
			(be32toh(grh->version_tclass_flow) >> 20) & 0xff;
	}
	/* the GID the message was sent to is ours: its index */
	i = xv_find_gid(ctx, port_num, ours, type);
	if (i < 0)
		return -1;
	ah_attr->grh.sgid_index = (uint8_t)i;
	return 0;
}

struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd,
				     struct ibv_wc *wc,
				     struct ibv_grh *grh,
				     uint8_t port_num)
{
	struct ibv_ah_attr a;

	if (ibv_init_ah_from_wc(pd->context, port_num, wc, grh, &a))
		return NULL;
	return ibv_create_ah(pd, &a);
}

/* ------------------------------------------------------------ marshalling */

/*
 * For librdmacm, which hands the kernel's rdma_cm structures over; the
 * layouts are the kernel's uapi (<rdma/ib_user_verbs.h>, ib_user_sa.h).
 */
void ibv_copy_ah_attr_from_kern(struct ibv_ah_attr *dst,
				struct ib_uverbs_ah_attr *src)
{
	memcpy(dst->grh.dgid.raw, src->grh.dgid, sizeof(dst->grh.dgid));
	dst->grh.flow_label = src->grh.flow_label;
	dst->grh.sgid_index = src->grh.sgid_index;
	dst->grh.hop_limit = src->grh.hop_limit;
	dst->grh.traffic_class = src->grh.traffic_class;
	dst->dlid = src->dlid;
	dst->sl = src->sl;
	dst->src_path_bits = src->src_path_bits;
	dst->static_rate = src->static_rate;
	dst->is_global = src->is_global;
	dst->port_num = src->port_num;
}

void ibv_copy_qp_attr_from_kern(struct ibv_qp_attr *dst,
				struct ib_uverbs_qp_attr *src)
{
	dst->cur_qp_state = src->cur_qp_state;
	dst->path_mtu = src->path_mtu;
	dst->path_mig_state = src->path_mig_state;
	dst->qkey = src->qkey;
	dst->rq_psn = src->rq_psn;
	dst->sq_psn = src->sq_psn;
	dst->dest_qp_num = src->dest_qp_num;
	dst->qp_access_flags = src->qp_access_flags;
	dst->cap.max_send_wr = src->max_send_wr;
	dst->cap.max_recv_wr = src->max_recv_wr;
	dst->cap.max_send_sge = src->max_send_sge;
	dst->cap.max_recv_sge = src->max_recv_sge;
	dst->cap.max_inline_data = src->max_inline_data;
	ibv_copy_ah_attr_from_kern(&dst->ah_attr, &src->ah_attr);
	ibv_copy_ah_attr_from_kern(&dst->alt_ah_attr, &src->alt_ah_attr);
	dst->pkey_index = src->pkey_index;
	dst->alt_pkey_index = src->alt_pkey_index;
	dst->en_sqd_async_notify = src->en_sqd_async_notify;
	dst->sq_draining = src->sq_draining;
	dst->max_rd_atomic = src->max_rd_atomic;
	dst->max_dest_rd_atomic = src->max_dest_rd_atomic;
	dst->min_rnr_timer = src->min_rnr_timer;
	dst->port_num = src->port_num;
	dst->timeout = src->timeout;
	dst->retry_cnt = src->retry_cnt;
	dst->rnr_retry = src->rnr_retry;
	dst->alt_port_num = src->alt_port_num;
	dst->alt_timeout = src->alt_timeout;
}

/* struct ibv_sa_path_rec of <infiniband/sa.h>, which needs no library */
#include <infiniband/sa.h>

void ibv_copy_path_rec_from_kern(struct ibv_sa_path_rec *dst,
				 struct ib_user_path_rec *src)
{
	memcpy(dst->dgid.raw, src->dgid, sizeof(dst->dgid));
	memcpy(dst->sgid.raw, src->sgid, sizeof(dst->sgid));
	dst->dlid = src->dlid;
	dst->slid = src->slid;
	dst->raw_traffic = (int)src->raw_traffic;
	dst->flow_label = src->flow_label;
	dst->hop_limit = src->hop_limit;
	dst->traffic_class = src->traffic_class;
	dst->reversible = (int)src->reversible;
	dst->numb_path = src->numb_path;
	dst->pkey = src->pkey;
	dst->sl = src->sl;
	dst->mtu_selector = src->mtu_selector;
	dst->mtu = src->mtu;
	dst->rate_selector = src->rate_selector;
	dst->rate = src->rate;
	dst->packet_life_time = src->packet_life_time;
	dst->preference = src->preference;
	dst->packet_life_time_selector = src->packet_life_time_selector;
}

void ibv_copy_path_rec_to_kern(struct ib_user_path_rec *dst,
			       struct ibv_sa_path_rec *src)
{
	memcpy(dst->dgid, src->dgid.raw, sizeof(src->dgid));
	memcpy(dst->sgid, src->sgid.raw, sizeof(src->sgid));
	dst->dlid = src->dlid;
	dst->slid = src->slid;
	dst->raw_traffic = (uint32_t)src->raw_traffic;
	dst->flow_label = src->flow_label;
	dst->hop_limit = src->hop_limit;
	dst->traffic_class = src->traffic_class;
	dst->reversible = (uint32_t)src->reversible;
	dst->numb_path = src->numb_path;
	dst->pkey = src->pkey;
	dst->sl = src->sl;
	dst->mtu_selector = src->mtu_selector;
	dst->mtu = src->mtu;
	dst->rate_selector = src->rate_selector;
	dst->rate = src->rate;
	dst->packet_life_time = src->packet_life_time;
	dst->preference = src->preference;
	dst->packet_life_time_selector = src->packet_life_time_selector;
}

/* ------------------------------------------------------------ ops */

void xv_set_ops(struct xv_context *xctx)
{
	struct verbs_context *v = &xctx->vctx;
	struct ibv_context_ops *ops = &v->context.ops;

	ops->poll_cq = xv_poll_cq;
	ops->req_notify_cq = xv_req_notify_cq;
	ops->post_send = xv_post_send;
	ops->post_recv = xv_post_recv;
	ops->post_srq_recv = xv_post_srq_recv;
	v->query_port = xv_query_port_ex;
	v->query_device_ex = xv_query_device_ex;
	v->query_rt_values = xv_query_rt_values;
	v->create_cq_ex = xv_create_cq_ex;
	v->create_qp_ex = xv_create_qp_ex;
	xv_share_set_ops(v);
	/* a device without windows answers ALLOC_MW with EOPNOTSUPP */
	xv_set_mw_ops(ops);
	xv_dm_set_ops(v);
	/* a device without XRC answers its ioctls with EOPNOTSUPP */
	xv_xrc_set_ops(v);
}
