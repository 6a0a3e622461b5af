// SPDX-License-Identifier: GPL-2.0
/*
 * The fake driver behind the xrdma_core KUnit suites.
 */
#include <linux/slab.h>
#include <xrdma/xrdma_umem.h>
#include "fake_driver.h"

static int fake_create_result(struct xrdma_device *dev)
{
	struct fake_dev *fd = to_fake_dev(dev);
	int ret = fd->fail_next_create;

	fd->fail_next_create = 0;
	if (!ret)
		atomic_inc(&fd->creates);
	return ret;
}

static void fake_destroyed(struct xrdma_device *dev)
{
	atomic_inc(&to_fake_dev(dev)->destroys);
}

static int fake_query_port(struct xrdma_device *dev, u32 port,
			   struct xrdma_port_attr *attr)
{
	struct fake_dev *fd = to_fake_dev(dev);

	if (fd->query_port_result)
		return fd->query_port_result;
	attr->state = XRDMA_PORT_ACTIVE;
	attr->max_mtu = XRDMA_MTU_4096;
	attr->active_mtu = XRDMA_MTU_4096;
	attr->link_layer = fd->ib_ports & BIT(port) ?
			   XRDMA_LINK_LAYER_INFINIBAND :
			   XRDMA_LINK_LAYER_ETHERNET;
	attr->gid_tbl_len = XRDMA_GID_TABLE_LEN;
	attr->pkey_tbl_len = 1;
	attr->max_msg_sz = 1 << 30;
	return 0;
}

static int fake_query_gid(struct xrdma_device *dev, u32 port, int index,
			  union xrdma_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	gid->raw[15] = index;
	return 0;
}

static int fake_alloc_pd(struct xrdma_pd *pd, struct xrdma_udata *udata)
{
	container_of(pd, struct fake_pd, ibpd)->magic = 0xfeedf00d;
	return fake_create_result(pd->device);
}

static void fake_dealloc_pd(struct xrdma_pd *pd)
{
	fake_destroyed(pd->device);
}

static int fake_create_cq_op(struct xrdma_cq *cq,
			     const struct xrdma_cq_init_attr *attr,
			     struct xrdma_udata *udata)
{
	return fake_create_result(cq->device);
}

static void fake_destroy_cq(struct xrdma_cq *cq)
{
	fake_destroyed(cq->device);
}

static int fake_poll_cq(struct xrdma_cq *cq, int n, struct xrdma_wc *wc)
{
	return 0;
}

static int fake_req_notify_cq(struct xrdma_cq *cq, u32 flags)
{
	struct fake_cq *fcq = container_of(cq, struct fake_cq, ibcq);

	fcq->armed++;
	fcq->notify_flags = flags;
	return 0;
}

static int fake_create_qp_op(struct xrdma_qp *qp,
			     struct xrdma_qp_init_attr *attr,
			     struct xrdma_udata *udata)
{
	return fake_create_result(qp->device);
}

static int fake_modify_qp(struct xrdma_qp *qp, struct xrdma_qp_attr *attr,
			  int mask, struct xrdma_udata *udata)
{
	container_of(qp, struct fake_qp, ibqp)->modify_calls++;
	return 0;
}

static void fake_destroy_qp(struct xrdma_qp *qp)
{
	fake_destroyed(qp->device);
}

static int fake_post_send(struct xrdma_qp *qp, const struct xrdma_send_wr *wr,
			  const struct xrdma_send_wr **bad_wr)
{
	struct fake_qp *fqp = container_of(qp, struct fake_qp, ibqp);

	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0) {
			*bad_wr = wr;
			return -EINVAL;
		}
		fqp->sends++;
	}
	return 0;
}

static int fake_post_recv(struct xrdma_qp *qp, const struct xrdma_recv_wr *wr,
			  const struct xrdma_recv_wr **bad_wr)
{
	struct fake_qp *fqp = container_of(qp, struct fake_qp, ibqp);

	for (; wr; wr = wr->next)
		fqp->recvs++;
	return 0;
}

static int fake_create_srq_op(struct xrdma_srq *srq,
			      struct xrdma_srq_init_attr *attr,
			      struct xrdma_udata *udata)
{
	container_of(srq, struct fake_srq, ibsrq)->attr = attr->attr;
	srq->srq_num = srq->res.id;
	return fake_create_result(srq->device);
}

static int fake_modify_srq(struct xrdma_srq *srq, struct xrdma_srq_attr *attr,
			   u32 mask, struct xrdma_udata *udata)
{
	struct fake_srq *fsrq = container_of(srq, struct fake_srq, ibsrq);

	if (mask & XRDMA_SRQ_MAX_WR)
		fsrq->attr.max_wr = attr->max_wr;
	if (mask & XRDMA_SRQ_LIMIT)
		fsrq->attr.srq_limit = attr->srq_limit;
	return 0;
}

static int fake_query_srq(struct xrdma_srq *srq, struct xrdma_srq_attr *attr)
{
	*attr = container_of(srq, struct fake_srq, ibsrq)->attr;
	return 0;
}

static void fake_destroy_srq(struct xrdma_srq *srq)
{
	fake_destroyed(srq->device);
}

static int fake_alloc_xrcd(struct xrdma_xrcd *xrcd)
{
	xrcd->xrcdn = xrcd->res.id;
	return fake_create_result(xrcd->device);
}

static void fake_dealloc_xrcd(struct xrdma_xrcd *xrcd)
{
	fake_destroyed(xrcd->device);
}

static int fake_get_dma_mr(struct xrdma_mr *mr)
{
	return fake_create_result(mr->device);
}

static int fake_alloc_mr(struct xrdma_mr *mr, u32 max_num_sg)
{
	struct fake_mr *fmr = container_of(mr, struct fake_mr, ibmr);
	int ret = fake_create_result(mr->device);

	if (ret)
		return ret;
	fmr->pages = kcalloc(max_num_sg, sizeof(u64), GFP_KERNEL);
	return fmr->pages ? 0 : -ENOMEM;
}

static int fake_set_page(struct xrdma_mr *mr, u64 addr)
{
	struct fake_mr *fmr = container_of(mr, struct fake_mr, ibmr);

	if (fmr->npages == mr->max_num_sg)
		return -ENOMEM;
	fmr->pages[fmr->npages++] = addr;
	return 0;
}

static int fake_map_mr_sg(struct xrdma_mr *mr, struct scatterlist *sg,
			  int sg_nents, unsigned int *sg_offset)
{
	container_of(mr, struct fake_mr, ibmr)->npages = 0;
	return xrdma_sg_to_pages(mr, sg, sg_nents, sg_offset, fake_set_page);
}

static int fake_reg_user_mr(struct xrdma_mr *mr, struct xrdma_udata *udata)
{
	return fake_create_result(mr->device);
}

static int fake_dereg_mr(struct xrdma_mr *mr)
{
	int ret = to_fake_dev(mr->device)->dereg_mr_result;

	kfree(container_of(mr, struct fake_mr, ibmr)->pages);
	fake_destroyed(mr->device);
	if (ret && mr->umem) {
		xrdma_umem_release(mr->umem);
		mr->umem = NULL;
	}
	return ret;
}

static int fake_create_ah_op(struct xrdma_ah *ah, struct xrdma_udata *udata)
{
	return fake_create_result(ah->device);
}

static void fake_destroy_ah(struct xrdma_ah *ah)
{
	fake_destroyed(ah->device);
}

const struct xrdma_device_ops fake_ops = {
	.owner = THIS_MODULE,
	.driver_name = "fake",
	.size_pd = XRDMA_OBJ_SIZE(struct fake_pd, ibpd),
	.size_cq = XRDMA_OBJ_SIZE(struct fake_cq, ibcq),
	.size_qp = XRDMA_OBJ_SIZE(struct fake_qp, ibqp),
	.size_srq = XRDMA_OBJ_SIZE(struct fake_srq, ibsrq),
	.size_mr = XRDMA_OBJ_SIZE(struct fake_mr, ibmr),
	.size_ah = XRDMA_OBJ_SIZE(struct fake_ah, ibah),
	.query_port = fake_query_port,
	.query_gid = fake_query_gid,
	.alloc_pd = fake_alloc_pd,
	.dealloc_pd = fake_dealloc_pd,
	.create_cq = fake_create_cq_op,
	.destroy_cq = fake_destroy_cq,
	.poll_cq = fake_poll_cq,
	.req_notify_cq = fake_req_notify_cq,
	.create_qp = fake_create_qp_op,
	.modify_qp = fake_modify_qp,
	.destroy_qp = fake_destroy_qp,
	.post_send = fake_post_send,
	.post_recv = fake_post_recv,
	.create_srq = fake_create_srq_op,
	.modify_srq = fake_modify_srq,
	.query_srq = fake_query_srq,
	.destroy_srq = fake_destroy_srq,
	.post_srq_recv = NULL,
	/* XRC: with XRDMA_DEVICE_XRC, which a test sets (core_xrc_test.c) */
	.alloc_xrcd = fake_alloc_xrcd,
	.dealloc_xrcd = fake_dealloc_xrcd,
	.get_dma_mr = fake_get_dma_mr,
	.alloc_mr = fake_alloc_mr,
	.map_mr_sg = fake_map_mr_sg,
	.reg_user_mr = fake_reg_user_mr,
	.dereg_mr = fake_dereg_mr,
	.create_ah = fake_create_ah_op,
	.destroy_ah = fake_destroy_ah,
};

struct fake_dev *fake_dev_alloc(struct kunit *test)
{
	struct fake_dev *fd;
	struct xrdma_device_attr *a;

	fd = xrdma_alloc_device(struct fake_dev, ibdev, &fake_ops);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fd);
	a = &fd->ibdev.attr;
	strscpy(a->fw_ver, "1.0.0", sizeof(a->fw_ver));
	a->node_guid = cpu_to_be64(0x0002c9fffe000001ULL);
	a->max_mr_size = 1ULL << 40;
	a->page_size_cap = SZ_4K | SZ_2M;
	a->vendor_id = 0x1234;
	a->vendor_part_id = 1;
	a->device_cap_flags = XRDMA_DEVICE_MEM_MGT_EXTENSIONS |
			      XRDMA_DEVICE_SRQ_RESIZE;
	a->max_qp = 1024;
	a->max_qp_wr = 256;
	a->max_sge = 8;
	a->max_sge_rd = 8;
	a->max_inline_data = 64;
	a->max_cq = 1024;
	a->max_cqe = 1024;
	a->max_mr = 1024;
	a->max_pd = 1024;
	a->max_qp_rd_atom = 16;
	a->max_qp_init_rd_atom = 16;
	a->max_srq = 64;
	a->max_srq_wr = 256;
	a->max_srq_sge = 4;
	a->max_ah = 1024;
	a->max_fast_reg_page_list_len = 16;
	a->max_xrcd = 64;
	a->atomic_cap = XRDMA_ATOMIC_HCA;
	fd->ibdev.num_ports = 1;
	return fd;
}

struct fake_dev *fake_dev_create(struct kunit *test, const char *name_fmt)
{
	struct fake_dev *fd = fake_dev_alloc(test);
	int ret = xrdma_register_device(&fd->ibdev, name_fmt, NULL);

	if (ret)
		xrdma_dealloc_device(&fd->ibdev);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return fd;
}

void fake_dev_destroy(struct fake_dev *fd)
{
	xrdma_unregister_device(&fd->ibdev);
	xrdma_dealloc_device(&fd->ibdev);
}

struct xrdma_cq *fake_create_cq(struct kunit *test, struct xrdma_device *dev)
{
	struct xrdma_cq_init_attr ca = { .cqe = 16 };
	struct xrdma_cq *cq = xrdma_create_cq(dev, NULL, NULL, NULL, &ca);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq);
	return cq;
}

struct xrdma_qp *fake_create_qp(struct kunit *test, struct xrdma_pd *pd,
				struct xrdma_cq *scq, struct xrdma_cq *rcq,
				enum xrdma_qp_type type)
{
	struct xrdma_qp_init_attr qa = {
		.send_cq = scq,
		.recv_cq = rcq,
		.qp_type = type,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct xrdma_qp *qp = xrdma_create_qp(pd, &qa);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	return qp;
}

void fake_qp_set_create(struct kunit *test, struct xrdma_device *dev,
			struct fake_qp_set *s)
{
	s->pd = xrdma_alloc_pd(dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s->pd);
	s->scq = fake_create_cq(test, dev);
	s->rcq = fake_create_cq(test, dev);
	s->qp = fake_create_qp(test, s->pd, s->scq, s->rcq, XRDMA_QPT_RC);
}

void fake_qp_set_destroy(struct kunit *test, struct fake_qp_set *s)
{
	KUNIT_EXPECT_EQ(test, xrdma_destroy_qp(s->qp), 0);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_cq(s->rcq), 0);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_cq(s->scq), 0);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(s->pd), 0);
}
