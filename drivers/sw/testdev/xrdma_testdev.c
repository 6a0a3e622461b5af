// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma_testdev: a software xrdma device without a data path, for the
 * uverbs integration tests.  Every object is accepted within the limits it
 * advertises; user contexts get a doorbell page and every user CQ a ring
 * page to mmap, filled with a recognisable pattern
 * (uapi/xrdma/xrdma-testdev-abi.h).  debugfs
 * xrdma_testdev/<dev>/inject takes commands that raise events:
 *   comp <cqn> | cq_err <cqn> | qp_fatal <qpn> | port_err <port> |
 *   port_active <port> | flood <n> | fatal
 * and xrdma_testdev/<dev>/kicks counts KICK commands.
 */
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/timekeeping.h>
#include <xrdma/xrdma_verbs.h>
#include <uapi/xrdma/xrdma-testdev-abi.h>

static unsigned int ndev = 1;
module_param(ndev, uint, 0444);
MODULE_PARM_DESC(ndev, "number of test devices (1..8)");

struct td_dev {
	struct xrdma_device ibdev;
	struct dentry *dbg;
	atomic_t kicks;
};

struct td_ucontext {
	struct xrdma_ucontext uctx;
	struct xrdma_mmap_entry *db_entry;
};

struct td_pd {
	struct xrdma_pd ibpd;
};

struct td_cq {
	struct xrdma_cq ibcq;
	struct xrdma_mmap_entry *ring_entry;
};

struct td_qp {
	struct xrdma_qp ibqp;
	struct xrdma_qp_cap cap;
	struct xrdma_qp_attr attr;
	u32 sq_sig_all;
};

struct td_srq {
	struct xrdma_srq ibsrq;
	struct xrdma_srq_attr attr;
};

struct td_mr {
	struct xrdma_mr ibmr;
};

struct td_ah {
	struct xrdma_ah ibah;
};

static struct td_dev *td_devs[8];
static struct dentry *td_dbg_root;

static struct td_dev *to_td(struct xrdma_device *dev)
{
	return container_of(dev, struct td_dev, ibdev);
}

/* A zeroed page exposed through an mmap entry; freed by td_mmap_free. */
static struct xrdma_mmap_entry *td_page_entry(struct xrdma_ucontext *uctx,
					      void **page)
{
	struct xrdma_mmap_entry *entry;
	void *p = (void *)get_zeroed_page(GFP_KERNEL);

	if (!p)
		return ERR_PTR(-ENOMEM);
	entry = xrdma_mmap_entry_insert(uctx, PAGE_SIZE, p);
	if (IS_ERR(entry))
		free_page((unsigned long)p);
	else
		*page = p;
	return entry;
}

static int td_alloc_ucontext(struct xrdma_ucontext *uctx,
			     struct xrdma_udata *udata)
{
	struct td_ucontext *tuc = container_of(uctx, struct td_ucontext, uctx);
	struct xrdma_testdev_ucontext_resp resp = {};
	void *page;
	int ret;

	tuc->db_entry = td_page_entry(uctx, &page);
	if (IS_ERR(tuc->db_entry))
		return PTR_ERR(tuc->db_entry);
	resp.db_offset = xrdma_mmap_entry_offset(tuc->db_entry);
	resp.db_size = PAGE_SIZE;
	ret = xrdma_copy_to_udata(udata, &resp, sizeof(resp));
	if (ret)
		xrdma_mmap_entry_remove(tuc->db_entry);
	return ret;
}

static void td_dealloc_ucontext(struct xrdma_ucontext *uctx)
{
	struct td_ucontext *tuc = container_of(uctx, struct td_ucontext, uctx);

	xrdma_mmap_entry_remove(tuc->db_entry);
}

static int td_mmap(struct xrdma_ucontext *uctx, struct vm_area_struct *vma)
{
	struct xrdma_mmap_entry *entry = xrdma_mmap_entry_get(uctx, vma);
	int ret;

	if (!entry)
		return -EINVAL;
	ret = xrdma_user_mmap_pfn(uctx, vma,
				  page_to_pfn(virt_to_page(entry->priv)),
				  vma->vm_page_prot, entry);
	if (ret)
		xrdma_mmap_entry_put(entry);
	return ret;
}

static void td_mmap_free(struct xrdma_mmap_entry *entry)
{
	free_page((unsigned long)entry->priv);
}

static int td_kick(struct xrdma_ucontext *uctx, struct xrdma_qp *qp)
{
	atomic_inc(&to_td(uctx->device)->kicks);
	return 0;
}

/* a 32-bit microsecond clock, as xnic's */
static int td_read_clock(struct xrdma_device *dev, u64 *clock)
{
	*clock = (u32)div_u64(ktime_get_ns(), NSEC_PER_USEC);
	return 0;
}

static int td_query_port(struct xrdma_device *dev, u32 port,
			 struct xrdma_port_attr *attr)
{
	attr->state = XRDMA_PORT_ACTIVE;
	attr->max_mtu = XRDMA_MTU_4096;
	attr->active_mtu = XRDMA_MTU_4096;
	attr->link_layer = XRDMA_LINK_LAYER_ETHERNET;
	attr->gid_tbl_len = XRDMA_GID_TABLE_LEN;
	attr->pkey_tbl_len = 1;
	attr->max_msg_sz = 1U << 31;
	return 0;
}

static int td_query_gid(struct xrdma_device *dev, u32 port, int index,
			union xrdma_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	gid->global.subnet_prefix = cpu_to_be64(0xfe80000000000000ULL);
	gid->global.interface_id = dev->attr.node_guid;
	gid->raw[15] += index;
	return 0;
}

static int td_alloc_pd(struct xrdma_pd *pd, struct xrdma_udata *udata)
{
	return 0;
}

static void td_dealloc_pd(struct xrdma_pd *pd)
{
}

static int td_create_cq(struct xrdma_cq *cq,
			const struct xrdma_cq_init_attr *attr,
			struct xrdma_udata *udata)
{
	struct td_cq *tcq = container_of(cq, struct td_cq, ibcq);
	struct xrdma_testdev_create_cq_resp resp = {};
	u64 *ring;
	int ret;

	if (!udata)
		return 0;
	tcq->ring_entry = td_page_entry(udata->uctx, (void **)&ring);
	if (IS_ERR(tcq->ring_entry))
		return PTR_ERR(tcq->ring_entry);
	resp.token = get_random_u64();
	resp.cqn = cq->res.id;
	resp.ring_size = PAGE_SIZE;
	resp.ring_offset = xrdma_mmap_entry_offset(tcq->ring_entry);
	ring[0] = XRDMA_TESTDEV_RING_MAGIC;
	ring[1] = resp.token;
	ring[2] = resp.cqn;
	ret = xrdma_copy_to_udata(udata, &resp, sizeof(resp));
	if (ret)
		xrdma_mmap_entry_remove(tcq->ring_entry);
	return ret;
}

static void td_destroy_cq(struct xrdma_cq *cq)
{
	xrdma_mmap_entry_remove(container_of(cq, struct td_cq, ibcq)->ring_entry);
}

static int td_poll_cq(struct xrdma_cq *cq, int n, struct xrdma_wc *wc)
{
	return 0;
}

static int td_req_notify_cq(struct xrdma_cq *cq, u32 flags)
{
	return 0;
}

static int td_create_qp(struct xrdma_qp *qp, struct xrdma_qp_init_attr *attr,
			struct xrdma_udata *udata)
{
	struct td_qp *tqp = container_of(qp, struct td_qp, ibqp);

	tqp->cap = attr->cap;
	tqp->sq_sig_all = attr->sq_sig_all;
	return 0;
}

static int td_modify_qp(struct xrdma_qp *qp, struct xrdma_qp_attr *attr,
			int mask, struct xrdma_udata *udata)
{
	struct td_qp *tqp = container_of(qp, struct td_qp, ibqp);

	if (mask & XRDMA_QP_QKEY)
		tqp->attr.qkey = attr->qkey;
	if (mask & XRDMA_QP_PORT)
		tqp->attr.port_num = attr->port_num;
	if (mask & XRDMA_QP_ACCESS_FLAGS)
		tqp->attr.qp_access_flags = attr->qp_access_flags;
	if (mask & XRDMA_QP_PATH_MTU)
		tqp->attr.path_mtu = attr->path_mtu;
	if (mask & XRDMA_QP_DEST_QPN)
		tqp->attr.dest_qp_num = attr->dest_qp_num;
	if (mask & XRDMA_QP_RQ_PSN)
		tqp->attr.rq_psn = attr->rq_psn;
	if (mask & XRDMA_QP_SQ_PSN)
		tqp->attr.sq_psn = attr->sq_psn;
	if (mask & XRDMA_QP_AV)
		tqp->attr.ah_attr = attr->ah_attr;
	if (mask & XRDMA_QP_TIMEOUT)
		tqp->attr.timeout = attr->timeout;
	if (mask & XRDMA_QP_RETRY_CNT)
		tqp->attr.retry_cnt = attr->retry_cnt;
	if (mask & XRDMA_QP_RNR_RETRY)
		tqp->attr.rnr_retry = attr->rnr_retry;
	if (mask & XRDMA_QP_MIN_RNR_TIMER)
		tqp->attr.min_rnr_timer = attr->min_rnr_timer;
	if (mask & XRDMA_QP_MAX_QP_RD_ATOMIC)
		tqp->attr.max_rd_atomic = attr->max_rd_atomic;
	if (mask & XRDMA_QP_MAX_DEST_RD_ATOMIC)
		tqp->attr.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	return 0;
}

static int td_query_qp(struct xrdma_qp *qp, struct xrdma_qp_attr *attr,
		       int mask, struct xrdma_qp_init_attr *init_attr)
{
	struct td_qp *tqp = container_of(qp, struct td_qp, ibqp);

	*attr = tqp->attr;
	attr->cap = tqp->cap;
	init_attr->cap = tqp->cap;
	init_attr->sq_sig_all = tqp->sq_sig_all;
	return 0;
}

static void td_destroy_qp(struct xrdma_qp *qp)
{
}

static int td_post_send(struct xrdma_qp *qp, const struct xrdma_send_wr *wr,
			const struct xrdma_send_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

static int td_post_recv(struct xrdma_qp *qp, const struct xrdma_recv_wr *wr,
			const struct xrdma_recv_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

static int td_create_srq(struct xrdma_srq *srq,
			 struct xrdma_srq_init_attr *attr,
			 struct xrdma_udata *udata)
{
	container_of(srq, struct td_srq, ibsrq)->attr = attr->attr;
	srq->srq_num = srq->res.id;
	return 0;
}

static int td_modify_srq(struct xrdma_srq *srq, struct xrdma_srq_attr *attr,
			 u32 mask, struct xrdma_udata *udata)
{
	struct td_srq *tsrq = container_of(srq, struct td_srq, ibsrq);

	if (mask & XRDMA_SRQ_LIMIT && attr->srq_limit >
	    (mask & XRDMA_SRQ_MAX_WR ? attr->max_wr : tsrq->attr.max_wr))
		return -EINVAL;
	if (mask & XRDMA_SRQ_MAX_WR)
		tsrq->attr.max_wr = attr->max_wr;
	if (mask & XRDMA_SRQ_LIMIT)
		tsrq->attr.srq_limit = attr->srq_limit;
	return 0;
}

static int td_query_srq(struct xrdma_srq *srq, struct xrdma_srq_attr *attr)
{
	*attr = container_of(srq, struct td_srq, ibsrq)->attr;
	return 0;
}

static void td_destroy_srq(struct xrdma_srq *srq)
{
}

static int td_alloc_xrcd(struct xrdma_xrcd *xrcd)
{
	xrcd->xrcdn = xrcd->res.id;
	return 0;
}

static void td_dealloc_xrcd(struct xrdma_xrcd *xrcd)
{
}

static int td_get_dma_mr(struct xrdma_mr *mr)
{
	return 0;
}

static int td_reg_user_mr(struct xrdma_mr *mr, struct xrdma_udata *udata)
{
	return 0;
}

static int td_dereg_mr(struct xrdma_mr *mr)
{
	return 0;
}

static int td_create_ah(struct xrdma_ah *ah, struct xrdma_udata *udata)
{
	return 0;
}

static void td_destroy_ah(struct xrdma_ah *ah)
{
}

static const struct xrdma_device_ops td_ops = {
	.owner = THIS_MODULE,
	.driver_name = "xrdma_testdev",
	.size_pd = XRDMA_OBJ_SIZE(struct td_pd, ibpd),
	.size_cq = XRDMA_OBJ_SIZE(struct td_cq, ibcq),
	.size_qp = XRDMA_OBJ_SIZE(struct td_qp, ibqp),
	.size_srq = XRDMA_OBJ_SIZE(struct td_srq, ibsrq),
	.size_mr = XRDMA_OBJ_SIZE(struct td_mr, ibmr),
	.size_ah = XRDMA_OBJ_SIZE(struct td_ah, ibah),
	.size_ucontext = XRDMA_OBJ_SIZE(struct td_ucontext, uctx),
	.alloc_ucontext = td_alloc_ucontext,
	.dealloc_ucontext = td_dealloc_ucontext,
	.mmap = td_mmap,
	.mmap_free = td_mmap_free,
	.kick = td_kick,
	.read_clock = td_read_clock,
	.query_port = td_query_port,
	.query_gid = td_query_gid,
	.alloc_pd = td_alloc_pd,
	.dealloc_pd = td_dealloc_pd,
	.create_cq = td_create_cq,
	.destroy_cq = td_destroy_cq,
	.poll_cq = td_poll_cq,
	.req_notify_cq = td_req_notify_cq,
	.create_qp = td_create_qp,
	.modify_qp = td_modify_qp,
	.query_qp = td_query_qp,
	.destroy_qp = td_destroy_qp,
	.post_send = td_post_send,
	.post_recv = td_post_recv,
	.create_srq = td_create_srq,
	.modify_srq = td_modify_srq,
	.query_srq = td_query_srq,
	.destroy_srq = td_destroy_srq,
	.alloc_xrcd = td_alloc_xrcd,
	.dealloc_xrcd = td_dealloc_xrcd,
	.get_dma_mr = td_get_dma_mr,
	.reg_user_mr = td_reg_user_mr,
	.dereg_mr = td_dereg_mr,
	.create_ah = td_create_ah,
	.destroy_ah = td_destroy_ah,
};

static void td_event(struct td_dev *td, enum xrdma_event_type type, u32 port)
{
	struct xrdma_event e = {
		.device = &td->ibdev,
		.event = type,
		.element.port_num = port,
	};

	xrdma_dispatch_event(&e);
}

static ssize_t td_inject_write(struct file *f, const char __user *ubuf,
			       size_t len, loff_t *pos)
{
	struct td_dev *td = file_inode(f)->i_private;
	struct xrdma_event e = { .device = &td->ibdev };
	char buf[64], cmd[16];
	struct xrdma_cq *cq;
	struct xrdma_qp *qp;
	unsigned int n = 0, i;
	int args;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	args = sscanf(buf, "%15s %u", cmd, &n);
	if (args < 1)
		return -EINVAL;

	if (!strcmp(cmd, "comp") || !strcmp(cmd, "cq_err")) {
		cq = xrdma_cq_get_by_num(&td->ibdev, n);
		if (!cq)
			return -ENOENT;
		if (!strcmp(cmd, "comp")) {
			if (cq->comp_handler)
				cq->comp_handler(cq, cq->cq_context);
		} else {
			e.event = XRDMA_EVENT_CQ_ERR;
			e.element.cq = cq;
			xrdma_dispatch_event(&e);
		}
		xrdma_cq_put(cq);
	} else if (!strcmp(cmd, "qp_fatal")) {
		qp = xrdma_qp_get_by_num(&td->ibdev, n);
		if (!qp)
			return -ENOENT;
		xrdma_qp_set_error(qp);
		e.event = XRDMA_EVENT_QP_FATAL;
		e.element.qp = qp;
		xrdma_dispatch_event(&e);
		xrdma_qp_put(qp);
	} else if (!strcmp(cmd, "port_err") && args == 2) {
		td_event(td, XRDMA_EVENT_PORT_ERR, n);
	} else if (!strcmp(cmd, "port_active") && args == 2) {
		td_event(td, XRDMA_EVENT_PORT_ACTIVE, n);
	} else if (!strcmp(cmd, "flood") && args == 2 && n <= 100000) {
		for (i = 0; i < n; i++)
			td_event(td, XRDMA_EVENT_PORT_ACTIVE, 1);
	} else if (!strcmp(cmd, "fatal")) {
		td_event(td, XRDMA_EVENT_DEVICE_FATAL, 0);
	} else {
		return -EINVAL;
	}
	return len;
}

static const struct file_operations td_inject_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = td_inject_write,
};

static int td_kicks_get(void *data, u64 *val)
{
	*val = atomic_read(&((struct td_dev *)data)->kicks);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(td_kicks_fops, td_kicks_get, NULL, "%llu\n");

static struct td_dev *td_create(unsigned int i)
{
	struct xrdma_device_attr *a;
	struct td_dev *td;
	int ret;

	td = xrdma_alloc_device(struct td_dev, ibdev, &td_ops);
	if (!td)
		return ERR_PTR(-ENOMEM);
	a = &td->ibdev.attr;
	strscpy(a->fw_ver, "0.1.0", sizeof(a->fw_ver));
	a->node_guid = cpu_to_be64(0x0200a8fffe000000ULL | i);
	a->max_mr_size = 1ULL << 32;
	a->page_size_cap = PAGE_SIZE;
	a->vendor_id = 0x1af4;
	a->vendor_part_id = 0x7e57;
	a->device_cap_flags = XRDMA_DEVICE_SRQ_RESIZE | XRDMA_DEVICE_XRC;
	a->max_qp = 4096;
	a->max_qp_wr = 1024;
	a->max_sge = 8;
	a->max_sge_rd = 8;
	a->max_inline_data = 128;
	a->max_cq = 4096;
	a->max_cqe = 4096;
	a->max_mr = 4096;
	a->max_pd = 4096;
	a->max_qp_rd_atom = 16;
	a->max_qp_init_rd_atom = 16;
	a->max_srq = 1024;
	a->max_srq_wr = 1024;
	a->max_srq_sge = 4;
	a->max_ah = 4096;
	a->max_xrcd = 256;
	a->atomic_cap = XRDMA_ATOMIC_NONE;
	td->ibdev.num_ports = 1;
	ret = xrdma_register_device(&td->ibdev, "testdev%d", NULL);
	if (ret) {
		xrdma_dealloc_device(&td->ibdev);
		return ERR_PTR(ret);
	}
	td->dbg = debugfs_create_dir(td->ibdev.name, td_dbg_root);
	debugfs_create_file("inject", 0200, td->dbg, td, &td_inject_fops);
	debugfs_create_file("kicks", 0400, td->dbg, td, &td_kicks_fops);
	return td;
}

static void td_destroy(struct td_dev *td)
{
	debugfs_remove_recursive(td->dbg);
	xrdma_unregister_device(&td->ibdev);
	xrdma_dealloc_device(&td->ibdev);
}

static int __init td_init(void)
{
	unsigned int i;
	struct td_dev *td;

	if (!ndev || ndev > ARRAY_SIZE(td_devs))
		return -EINVAL;
	td_dbg_root = debugfs_create_dir("xrdma_testdev", NULL);
	for (i = 0; i < ndev; i++) {
		td = td_create(i);
		if (IS_ERR(td)) {
			while (i--)
				td_destroy(td_devs[i]);
			debugfs_remove_recursive(td_dbg_root);
			return PTR_ERR(td);
		}
		td_devs[i] = td;
	}
	return 0;
}

static void __exit td_exit(void)
{
	unsigned int i;

	for (i = ndev; i--;)
		td_destroy(td_devs[i]);
	debugfs_remove_recursive(td_dbg_root);
}

module_init(td_init);
module_exit(td_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xrdma software test device (no data path)");
