// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma_core_objects: object lifetimes, dependency rules, resource
 * tracking, and lookups racing with destroy.
 */
#include <linux/delay.h>
#include <linux/kthread.h>
#include "fake_driver.h"
#include "core_priv.h"

static struct fake_dev *obj_dev(struct kunit *test)
{
	return test->priv;
}

static int objects_init(struct kunit *test)
{
	test->priv = fake_dev_create(test, "kobjs%d");
	return 0;
}

static void objects_exit(struct kunit *test)
{
	struct fake_dev *fd = obj_dev(test);
	int t;

	/* every test must leave nothing behind */
	for (t = 0; t < XRDMA_RES_MAX; t++)
		KUNIT_EXPECT_EQ_MSG(test, xrdma_res_count(&fd->ibdev, t), 0U,
				    "leaked %s", xrdma_res_type_names[t]);
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->creates),
			atomic_read(&fd->destroys));
	fake_dev_destroy(fd);
}

static void objects_pd_tracking(struct kunit *test)
{
	struct xrdma_device *dev = &obj_dev(test)->ibdev;
	struct xrdma_pd *pd1, *pd2;

	pd1 = xrdma_alloc_pd(dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd1);
	pd2 = xrdma_alloc_pd(dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd2);
	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_PD), 2U);
	KUNIT_EXPECT_NE(test, pd1->res.id, pd2->res.id);
	KUNIT_EXPECT_STREQ(test, pd1->res.kern_name, KBUILD_MODNAME);
	KUNIT_EXPECT_NULL(test, pd1->res.pid);
	/* the driver's part of the object is there, at its own offset */
	KUNIT_EXPECT_EQ(test, container_of(pd1, struct fake_pd, ibpd)->magic,
			0xfeedf00dU);
	KUNIT_EXPECT_EQ(test, refcount_read(&dev->users), 3U);

	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(pd1), 0);
	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_PD), 1U);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(pd2), 0);
	KUNIT_EXPECT_EQ(test, refcount_read(&dev->users), 1U);

	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_alloc_pd(dev, 1)), -EINVAL);
}

/* A failing driver create leaves no trace: no count, no number, no ref. */
static void objects_create_abort(struct kunit *test)
{
	struct fake_dev *fd = obj_dev(test);
	struct xrdma_device *dev = &fd->ibdev;
	struct xrdma_cq_init_attr ca = { .cqe = 4 };
	struct xrdma_qp_init_attr qa = {};
	struct xrdma_pd *pd;
	struct xrdma_cq *cq;

	fd->fail_next_create = -EIO;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_alloc_pd(dev, 0)), -EIO);
	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_PD), 0U);
	KUNIT_EXPECT_TRUE(test, xa_empty(&dev->res[XRDMA_RES_PD]));
	KUNIT_EXPECT_EQ(test, refcount_read(&dev->users), 1U);

	pd = xrdma_alloc_pd(dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	fd->fail_next_create = -ENOMEM;
	cq = xrdma_create_cq(dev, NULL, NULL, NULL, &ca);
	KUNIT_EXPECT_EQ(test, PTR_ERR(cq), -ENOMEM);
	KUNIT_EXPECT_TRUE(test, xa_empty(&dev->res[XRDMA_RES_CQ]));

	cq = fake_create_cq(test, dev);
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qa.qp_type = XRDMA_QPT_RC;
	qa.cap.max_send_wr = 1;
	fd->fail_next_create = -ENOSPC;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_qp(pd, &qa)), -ENOSPC);
	KUNIT_EXPECT_TRUE(test, xa_empty(&dev->res[XRDMA_RES_QP]));
	/* the failed QP released its uses of the PD and the CQ */
	KUNIT_EXPECT_EQ(test, xrdma_destroy_cq(cq), 0);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(pd), 0);
}

static void objects_cq_limits(struct kunit *test)
{
	struct xrdma_device *dev = &obj_dev(test)->ibdev;
	struct xrdma_cq_init_attr ca = {};
	struct xrdma_cq *cq;

	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_cq(dev, NULL, NULL, NULL,
						      &ca)), -EINVAL);
	ca.cqe = dev->attr.max_cqe + 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_cq(dev, NULL, NULL, NULL,
						      &ca)), -EINVAL);
	ca.cqe = 1;
	ca.flags = 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_cq(dev, NULL, NULL, NULL,
						      &ca)), -EINVAL);

	cq = fake_create_cq(test, dev);
	KUNIT_EXPECT_EQ(test, xrdma_req_notify_cq(cq, XRDMA_CQ_NEXT_COMP), 0);
	KUNIT_EXPECT_EQ(test, container_of(cq, struct fake_cq, ibcq)->armed,
			1);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_cq(cq), 0);
}

/* Bad flags are refused by the core and never reach the driver. */
static void objects_cq_notify_flags(struct kunit *test)
{
	struct xrdma_device *dev = &obj_dev(test)->ibdev;
	static const u32 bad[] = {
		0,
		XRDMA_CQ_REPORT_MISSED_EVENTS,
		XRDMA_CQ_NEXT_COMP | XRDMA_CQ_SOLICITED,
		XRDMA_CQ_NEXT_COMP | XRDMA_CQ_SOLICITED |
			XRDMA_CQ_REPORT_MISSED_EVENTS,
		XRDMA_CQ_NEXT_COMP | 1 << 3,
		XRDMA_CQ_SOLICITED | 1U << 31,
		1 << 3,
		~0U,
	};
	static const u32 good[] = {
		XRDMA_CQ_NEXT_COMP,
		XRDMA_CQ_SOLICITED,
		XRDMA_CQ_NEXT_COMP | XRDMA_CQ_REPORT_MISSED_EVENTS,
		XRDMA_CQ_SOLICITED | XRDMA_CQ_REPORT_MISSED_EVENTS,
	};
	struct xrdma_cq *cq = fake_create_cq(test, dev);
	struct fake_cq *fcq = container_of(cq, struct fake_cq, ibcq);
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, xrdma_req_notify_cq(cq, bad[i]),
				    -EINVAL, "flags %#x", bad[i]);
	KUNIT_EXPECT_EQ(test, fcq->armed, 0);

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		KUNIT_EXPECT_EQ_MSG(test, xrdma_req_notify_cq(cq, good[i]), 0,
				    "flags %#x", good[i]);
		KUNIT_EXPECT_EQ(test, fcq->armed, i + 1);
		KUNIT_EXPECT_EQ(test, fcq->notify_flags, good[i]);
	}
	KUNIT_EXPECT_EQ(test, xrdma_destroy_cq(cq), 0);
}

static void objects_qp_create_checks(struct kunit *test)
{
	struct xrdma_device *dev = &obj_dev(test)->ibdev;
	struct fake_dev *other = fake_dev_create(test, "kother%d");
	struct xrdma_qp_init_attr qa;
	struct xrdma_cq *cq, *ocq;
	struct xrdma_qp *qp;
	struct xrdma_pd *pd;

	pd = xrdma_alloc_pd(dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	cq = fake_create_cq(test, dev);
	ocq = fake_create_cq(test, &other->ibdev);

#define QA_RESET() (qa = (struct xrdma_qp_init_attr){ .send_cq = cq,	\
		.recv_cq = cq, .qp_type = XRDMA_QPT_RC,			\
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,		\
			 .max_send_sge = 1, .max_recv_sge = 1 } })
	QA_RESET();
	qa.send_cq = NULL;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_qp(pd, &qa)), -EINVAL);
	QA_RESET();
	qa.recv_cq = ocq;	/* CQ of another device */
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_qp(pd, &qa)), -EINVAL);
	QA_RESET();
	qa.cap.max_send_wr = dev->attr.max_qp_wr + 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_qp(pd, &qa)), -EINVAL);
	QA_RESET();
	qa.cap.max_recv_sge = dev->attr.max_sge + 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_qp(pd, &qa)), -EINVAL);
	QA_RESET();
	qa.cap.max_inline_data = dev->attr.max_inline_data + 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_qp(pd, &qa)), -EINVAL);
	QA_RESET();
	qa.qp_type = 7;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_qp(pd, &qa)), -EOPNOTSUPP);
	QA_RESET();
	qa.cap.max_send_wr = dev->attr.max_qp_wr;
	qa.cap.max_recv_wr = dev->attr.max_qp_wr + 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_qp(pd, &qa)), -EINVAL);
	/* every cap at its limit, and every cap 0, are valid */
	QA_RESET();
	qa.cap = (struct xrdma_qp_cap){
		.max_send_wr = dev->attr.max_qp_wr,
		.max_recv_wr = dev->attr.max_qp_wr,
		.max_send_sge = dev->attr.max_sge,
		.max_recv_sge = dev->attr.max_sge,
		.max_inline_data = dev->attr.max_inline_data,
	};
	qp = xrdma_create_qp(pd, &qa);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_qp(qp), 0);
	QA_RESET();
	qa.cap = (struct xrdma_qp_cap){};
	qp = xrdma_create_qp(pd, &qa);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_qp(qp), 0);
#undef QA_RESET
	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_QP), 0U);
	/* nothing above kept a use of the CQ */
	KUNIT_EXPECT_EQ(test, atomic_read(&cq->usecnt), 1);

	KUNIT_EXPECT_EQ(test, xrdma_destroy_cq(ocq), 0);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_cq(cq), 0);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(pd), 0);
	fake_dev_destroy(other);
}

/* Every dependency rule: the depended-on object cannot go first. */
static void objects_dependencies(struct kunit *test)
{
	struct xrdma_device *dev = &obj_dev(test)->ibdev;
	struct xrdma_srq_init_attr sa = { .attr = { .max_wr = 8,
						    .max_sge = 1 } };
	struct xrdma_ah_attr aa = { .port_num = 1, .is_global = 1 };
	struct xrdma_qp_init_attr qa;
	struct xrdma_cq *scq, *rcq;
	struct xrdma_srq *srq;
	struct xrdma_qp *qp;
	struct xrdma_mr *mr;
	struct xrdma_ah *ah;
	struct xrdma_pd *pd;

	pd = xrdma_alloc_pd(dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);

	/* PD <- MR */
	mr = xrdma_get_dma_mr(pd, XRDMA_ACCESS_LOCAL_WRITE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(pd), -EBUSY);
	KUNIT_EXPECT_EQ(test, xrdma_dereg_mr(mr), 0);

	/* PD <- AH */
	ah = xrdma_create_ah(pd, &aa);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ah);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(pd), -EBUSY);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_ah(ah), 0);

	/* PD <- SRQ <- QP -> CQs */
	srq = xrdma_create_srq(pd, &sa);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, srq);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(pd), -EBUSY);
	scq = fake_create_cq(test, dev);
	rcq = fake_create_cq(test, dev);
	qa = (struct xrdma_qp_init_attr){ .send_cq = scq, .recv_cq = rcq,
		.srq = srq, .qp_type = XRDMA_QPT_RC,
		.cap = { .max_send_wr = 4, .max_send_sge = 1 } };
	qp = xrdma_create_qp(pd, &qa);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	KUNIT_EXPECT_GE(test, qp->qp_num, 2U);
	KUNIT_EXPECT_EQ(test, qp->state, XRDMA_QPS_RESET);

	KUNIT_EXPECT_EQ(test, xrdma_destroy_srq(srq), -EBUSY);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_cq(scq), -EBUSY);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_cq(rcq), -EBUSY);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(pd), -EBUSY);
	/* refused destroys changed nothing */
	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_CQ), 2U);
	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_SRQ), 1U);

	KUNIT_EXPECT_EQ(test, xrdma_destroy_qp(qp), 0);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(pd), -EBUSY);	/* SRQ left */
	KUNIT_EXPECT_EQ(test, xrdma_destroy_srq(srq), 0);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_cq(scq), 0);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_cq(rcq), 0);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(pd), 0);
}

/* One CQ used as both send and receive CQ counts twice. */
static void objects_shared_cq(struct kunit *test)
{
	struct xrdma_device *dev = &obj_dev(test)->ibdev;
	struct xrdma_qp *qp1, *qp2;
	struct xrdma_pd *pd;
	struct xrdma_cq *cq;

	pd = xrdma_alloc_pd(dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	cq = fake_create_cq(test, dev);
	qp1 = fake_create_qp(test, pd, cq, cq, XRDMA_QPT_RC);
	qp2 = fake_create_qp(test, pd, cq, cq, XRDMA_QPT_UD);
	KUNIT_EXPECT_EQ(test, atomic_read(&cq->usecnt), 5);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_qp(qp1), 0);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_cq(cq), -EBUSY);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_qp(qp2), 0);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_cq(cq), 0);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(pd), 0);
}

static void objects_srq(struct kunit *test)
{
	struct xrdma_device *dev = &obj_dev(test)->ibdev;
	struct xrdma_srq_init_attr sa = { .attr = { .max_wr = 8,
						    .max_sge = 1 } };
	struct xrdma_srq_attr a;
	struct xrdma_srq *srq;
	struct xrdma_pd *pd;

	pd = xrdma_alloc_pd(dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);

	sa.attr.max_wr = 0;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_srq(pd, &sa)), -EINVAL);
	sa.attr.max_wr = dev->attr.max_srq_wr + 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_srq(pd, &sa)), -EINVAL);
	sa.attr.max_wr = 8;
	sa.attr.max_sge = dev->attr.max_srq_sge + 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_srq(pd, &sa)), -EINVAL);
	sa.attr.max_sge = 1;
	sa.attr.srq_limit = 9;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_srq(pd, &sa)), -EINVAL);
	sa.attr.srq_limit = 2;

	srq = xrdma_create_srq(pd, &sa);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, srq);
	a.max_wr = 16;
	KUNIT_EXPECT_EQ(test, xrdma_modify_srq(srq, &a, XRDMA_SRQ_MAX_WR), 0);
	KUNIT_EXPECT_EQ(test, xrdma_modify_srq(srq, &a, 1 << 5), -EINVAL);
	KUNIT_EXPECT_EQ(test, xrdma_modify_srq(srq, &a, 0), -EINVAL);
	a.max_wr = dev->attr.max_srq_wr + 1;
	KUNIT_EXPECT_EQ(test, xrdma_modify_srq(srq, &a, XRDMA_SRQ_MAX_WR),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, xrdma_query_srq(srq, &a), 0);
	KUNIT_EXPECT_EQ(test, a.max_wr, 16U);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_srq(srq), 0);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(pd), 0);
}

/* an AH create that must fail with @want; one made anyway is destroyed */
static void expect_no_ah(struct kunit *test, struct xrdma_ah *ah, int want)
{
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(ah), want);
	if (!IS_ERR(ah))
		KUNIT_EXPECT_EQ(test, xrdma_destroy_ah(ah), 0);
}

static void objects_ah_checks(struct kunit *test)
{
	struct xrdma_device *dev = &obj_dev(test)->ibdev;
	struct xrdma_ah_attr aa = { .port_num = 0, .is_global = 1 };
	struct xrdma_pd *pd;
	struct xrdma_ah *ah;

	pd = xrdma_alloc_pd(dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_ah(pd, &aa)), -EINVAL);
	aa.port_num = 2;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_ah(pd, &aa)), -EINVAL);
	aa.port_num = 1;
	aa.sgid_index = XRDMA_GID_TABLE_LEN;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_ah(pd, &aa)), -EINVAL);
	aa.sgid_index = 0;
	/* the port is RoCE (Ethernet): without a GRH the AV reaches nobody */
	aa.is_global = 0;
	expect_no_ah(test, xrdma_create_ah(pd, &aa), -EINVAL);
	expect_no_ah(test, xrdma_create_ah_flags(pd, &aa, XRDMA_AH_NOSLEEP),
		     -EINVAL);
	aa.is_global = 1;
	ah = xrdma_create_ah(pd, &aa);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ah);
	KUNIT_EXPECT_EQ(test, ah->attr.is_global, 1);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_ah(ah), 0);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(pd), 0);
}

/*
 * The GRH rule follows the AV's port: on an InfiniBand port (port 2 of
 * this device) an AH without a GRH is fine, on the RoCE port 1 it is not.
 */
static void objects_ah_grh_per_port(struct kunit *test)
{
	struct xrdma_ah_attr aa = { .port_num = 1 };
	struct xrdma_ah *ah;
	struct fake_dev *fd;
	struct xrdma_pd *pd;
	int ret;

	fd = fake_dev_alloc(test);
	fd->ibdev.num_ports = 2;
	fd->ib_ports = BIT(2);
	ret = xrdma_register_device(&fd->ibdev, "kobjib%d", NULL);
	if (ret)
		xrdma_dealloc_device(&fd->ibdev);
	KUNIT_ASSERT_EQ(test, ret, 0);
	pd = xrdma_alloc_pd(&fd->ibdev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);

	expect_no_ah(test, xrdma_create_ah(pd, &aa), -EINVAL);
	aa.port_num = 2;
	aa.dlid = 7;
	ah = xrdma_create_ah(pd, &aa);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ah);
	KUNIT_EXPECT_EQ(test, ah->attr.dlid, 7);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_ah(ah), 0);
	/* with a GRH both ports take it */
	aa.is_global = 1;
	for (aa.port_num = 1; aa.port_num <= 2; aa.port_num++) {
		ah = xrdma_create_ah(pd, &aa);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ah);
		KUNIT_EXPECT_EQ(test, xrdma_destroy_ah(ah), 0);
	}
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(pd), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->creates),
			atomic_read(&fd->destroys));
	fake_dev_destroy(fd);
}

static struct xrdma_qp *gsi_create(struct xrdma_pd *pd, struct xrdma_cq *cq,
				   u32 port, struct xrdma_udata *udata)
{
	struct xrdma_qp_init_attr qa = {
		.send_cq = cq, .recv_cq = cq, .qp_type = XRDMA_QPT_GSI,
		.port_num = port,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return __xrdma_create_qp(pd, &qa, udata ? NULL : "kunit", udata);
}

/* GSI QPs: QPN 1, one per port, kernel callers only. */
static void objects_gsi_qp(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_alloc(test);
	struct xrdma_device *dev = &fd->ibdev;
	struct xrdma_qp *gsi1, *gsi2, *qp;
	struct xrdma_udata udata = {};
	struct xrdma_cq *cq;
	struct xrdma_pd *pd;
	int ret;

	dev->num_ports = 2;
	ret = xrdma_register_device(dev, "kgsi%d", NULL);
	if (ret)
		xrdma_dealloc_device(dev);
	KUNIT_ASSERT_EQ(test, ret, 0);
	pd = xrdma_alloc_pd(dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	cq = fake_create_cq(test, dev);

	KUNIT_EXPECT_EQ(test, PTR_ERR(gsi_create(pd, cq, 0, NULL)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(gsi_create(pd, cq, 3, NULL)), -EINVAL);
	/* a process never gets one */
	KUNIT_EXPECT_EQ(test, PTR_ERR(gsi_create(pd, cq, 1, &udata)), -EINVAL);

	gsi1 = gsi_create(pd, cq, 1, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, gsi1);
	KUNIT_EXPECT_EQ(test, gsi1->qp_num, XRDMA_GSI_QPN);
	KUNIT_EXPECT_EQ(test, gsi1->port_num, 1);
	KUNIT_EXPECT_EQ(test, PTR_ERR(gsi_create(pd, cq, 1, NULL)), -EBUSY);
	gsi2 = gsi_create(pd, cq, 2, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, gsi2);
	KUNIT_EXPECT_EQ(test, gsi2->qp_num, XRDMA_GSI_QPN);
	KUNIT_EXPECT_EQ(test, PTR_ERR(gsi_create(pd, cq, 2, NULL)), -EBUSY);
	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_QP), 2U);

	/* lookups: port 1's under QPN 1, port 2's under its own number */
	qp = xrdma_qp_get_by_num(dev, XRDMA_GSI_QPN);
	KUNIT_EXPECT_PTR_EQ(test, qp, gsi1);
	if (qp)
		xrdma_qp_put(qp);
	qp = xrdma_qp_get_by_num(dev, xrdma_gsi_res_id(2));
	KUNIT_EXPECT_PTR_EQ(test, qp, gsi2);
	if (qp)
		xrdma_qp_put(qp);

	/* ordinary QPs never get the GSI numbers */
	qp = fake_create_qp(test, pd, cq, cq, XRDMA_QPT_UD);
	KUNIT_EXPECT_GT(test, qp->qp_num, 1U);
	KUNIT_EXPECT_LE(test, qp->qp_num, 0xffffffU);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_qp(qp), 0);

	/* the number is free again once the GSI QP is gone */
	KUNIT_EXPECT_EQ(test, xrdma_destroy_qp(gsi1), 0);
	KUNIT_EXPECT_NULL(test, xrdma_qp_get_by_num(dev, XRDMA_GSI_QPN));
	gsi1 = gsi_create(pd, cq, 1, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, gsi1);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_qp(gsi1), 0);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_qp(gsi2), 0);

	/* a failed driver create releases the number */
	fd->fail_next_create = -ENOMEM;
	KUNIT_EXPECT_EQ(test, PTR_ERR(gsi_create(pd, cq, 1, NULL)), -ENOMEM);
	gsi1 = gsi_create(pd, cq, 1, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, gsi1);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_qp(gsi1), 0);

	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_QP), 0U);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_cq(cq), 0);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(pd), 0);
	fake_dev_destroy(fd);
}

/* XRDMA_AH_NOSLEEP: create and destroy under a spinlock, irqs off. */
static void objects_ah_nosleep(struct kunit *test)
{
	struct fake_dev *fd = obj_dev(test);
	struct xrdma_device *dev = &fd->ibdev;
	struct xrdma_ah_attr aa = { .port_num = 1, .sgid_index = 1,
				    .is_global = 1 };
	struct xrdma_udata udata = {};
	struct xrdma_ah *ah[4];
	spinlock_t lock;	/* the caller's lock (ib_cm's) */
	unsigned long flags;
	struct xrdma_pd *pd;
	int i;

	spin_lock_init(&lock);
	pd = xrdma_alloc_pd(dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_ah_flags(pd, &aa, BIT(1))),
			-EINVAL);
	/* only kernel callers */
	KUNIT_EXPECT_EQ(test, PTR_ERR(__xrdma_create_ah(pd, &aa,
							XRDMA_AH_NOSLEEP,
							NULL, &udata)),
			-EINVAL);
	aa.sgid_index = XRDMA_GID_TABLE_LEN;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_ah_flags(pd, &aa,
							    XRDMA_AH_NOSLEEP)),
			-EINVAL);
	aa.sgid_index = 1;

	/* under lockdep/might_sleep checking, any sleep here would splat */
	spin_lock_irqsave(&lock, flags);
	for (i = 0; i < ARRAY_SIZE(ah); i++)
		ah[i] = xrdma_create_ah_flags(pd, &aa, XRDMA_AH_NOSLEEP);
	spin_unlock_irqrestore(&lock, flags);
	for (i = 0; i < ARRAY_SIZE(ah); i++) {
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ah[i]);
		KUNIT_EXPECT_EQ(test, ah[i]->attr.sgid_index, 1);
	}
	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_AH), 4U);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(pd), -EBUSY);
	spin_lock_irqsave(&lock, flags);
	for (i = 0; i < ARRAY_SIZE(ah); i++)
		KUNIT_EXPECT_EQ(test, xrdma_destroy_ah(ah[i]), 0);
	/* interrupts stay off for the caller: nothing re-enabled them */
	KUNIT_EXPECT_TRUE(test, irqs_disabled());
	spin_unlock_irqrestore(&lock, flags);
	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_AH), 0U);

	/* a failed driver create in atomic context releases everything */
	fd->fail_next_create = -ENOMEM;
	spin_lock_irqsave(&lock, flags);
	ah[0] = xrdma_create_ah_flags(pd, &aa, XRDMA_AH_NOSLEEP);
	spin_unlock_irqrestore(&lock, flags);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ah[0]), -ENOMEM);

	/* a sleeping AH is destroyed the same way */
	ah[0] = xrdma_create_ah(pd, &aa);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ah[0]);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_ah(ah[0]), 0);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(pd), 0);
}

/* Object numbers are handed out cyclically: not reused right away. */
static void objects_numbers_not_reused(struct kunit *test)
{
	struct xrdma_device *dev = &obj_dev(test)->ibdev;
	struct fake_qp_set s;
	u32 first, second;

	fake_qp_set_create(test, dev, &s);
	first = s.qp->qp_num;
	fake_qp_set_destroy(test, &s);
	KUNIT_EXPECT_NULL(test, xrdma_qp_get_by_num(dev, first));
	fake_qp_set_create(test, dev, &s);
	second = s.qp->qp_num;
	KUNIT_EXPECT_NE(test, first, second);
	fake_qp_set_destroy(test, &s);
}

static void objects_data_path(struct kunit *test)
{
	struct xrdma_device *dev = &obj_dev(test)->ibdev;
	struct xrdma_send_wr w2 = { .num_sge = -1 };
	struct xrdma_send_wr w1 = { .next = &w2 };
	struct xrdma_recv_wr r1 = {};
	const struct xrdma_send_wr *bad = NULL;
	struct fake_qp_set s;
	struct fake_qp *fqp;

	fake_qp_set_create(test, dev, &s);
	fqp = container_of(s.qp, struct fake_qp, ibqp);
	KUNIT_EXPECT_EQ(test, xrdma_post_send(s.qp, &w1, &bad), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, bad, &w2);
	KUNIT_EXPECT_EQ(test, fqp->sends, 1);
	/* bad_wr may be NULL */
	KUNIT_EXPECT_EQ(test, xrdma_post_send(s.qp, &w2, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, xrdma_post_recv(s.qp, &r1, NULL), 0);
	KUNIT_EXPECT_EQ(test, fqp->recvs, 1);
	fake_qp_set_destroy(test, &s);
}

struct racer {
	struct xrdma_device *dev;
	u32 qpn;
	unsigned int hold_ms;
	struct completion holding;
	atomic_t stop;
	atomic_t released;
	unsigned long hits;
};

/* Holds one reference for hold_ms, as a driver's receive path would. */
static int racer_hold_fn(void *data)
{
	struct racer *r = data;
	struct xrdma_qp *qp = xrdma_qp_get_by_num(r->dev, r->qpn);

	complete(&r->holding);
	if (!qp)
		return -ENOENT;
	msleep(r->hold_ms);
	/* the object is still intact while referenced */
	if (qp->qp_num == r->qpn)
		r->hits++;
	atomic_set(&r->released, 1);
	xrdma_qp_put(qp);
	return 0;
}

static void objects_destroy_waits_for_lookup(struct kunit *test)
{
	struct xrdma_device *dev = &obj_dev(test)->ibdev;
	struct racer r = { .dev = dev, .hold_ms = 200 };
	struct task_struct *t;
	struct fake_qp_set s;

	fake_qp_set_create(test, dev, &s);
	r.qpn = s.qp->qp_num;
	init_completion(&r.holding);
	t = kthread_run(racer_hold_fn, &r, "xrdma-kunit-hold");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	wait_for_completion(&r.holding);

	KUNIT_EXPECT_EQ(test, xrdma_destroy_qp(s.qp), 0);
	/* destroy returned only after the lookup's reference was dropped */
	KUNIT_EXPECT_EQ(test, atomic_read(&r.released), 1);
	KUNIT_EXPECT_EQ(test, r.hits, 1UL);
	s.qp = fake_create_qp(test, s.pd, s.scq, s.rcq, XRDMA_QPT_RC);
	fake_qp_set_destroy(test, &s);
}

/* Looks up every QPN in a window as fast as it can until told to stop. */
static int racer_spin_fn(void *data)
{
	struct racer *r = data;
	struct xrdma_qp *qp;
	u32 n;

	complete(&r->holding);
	while (!atomic_read(&r->stop)) {
		for (n = r->qpn; n < r->qpn + 64; n++) {
			qp = xrdma_qp_get_by_num(r->dev, n);
			if (!qp)
				continue;
			/* touch the object: KASAN reports a use after free */
			if (READ_ONCE(qp->qp_num) == n &&
			    READ_ONCE(qp->pd->device) == r->dev)
				r->hits++;
			xrdma_qp_put(qp);
		}
		cond_resched();
	}
	atomic_set(&r->released, 1);
	return 0;
}

static void objects_lookup_race_stress(struct kunit *test)
{
	struct xrdma_device *dev = &obj_dev(test)->ibdev;
	struct racer r = { .dev = dev };
	struct task_struct *t;
	struct fake_qp_set s;
	int i;

	fake_qp_set_create(test, dev, &s);
	r.qpn = s.qp->qp_num;
	KUNIT_EXPECT_EQ(test, xrdma_destroy_qp(s.qp), 0);
	init_completion(&r.holding);
	atomic_set(&r.stop, 0);
	t = kthread_run(racer_spin_fn, &r, "xrdma-kunit-spin");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	wait_for_completion(&r.holding);

	for (i = 0; i < 48; i++) {
		s.qp = fake_create_qp(test, s.pd, s.scq, s.rcq, XRDMA_QPT_RC);
		if (i % 4 == 0)
			usleep_range(1000, 2000);
		KUNIT_EXPECT_EQ(test, xrdma_destroy_qp(s.qp), 0);
	}
	atomic_set(&r.stop, 1);
	while (!atomic_read(&r.released))
		usleep_range(5000, 10000);
	kunit_info(test, "lookups that hit a live QP: %lu\n", r.hits);
	s.qp = fake_create_qp(test, s.pd, s.scq, s.rcq, XRDMA_QPT_RC);
	fake_qp_set_destroy(test, &s);
}

static struct kunit_case objects_cases[] = {
	KUNIT_CASE(objects_pd_tracking),
	KUNIT_CASE(objects_create_abort),
	KUNIT_CASE(objects_cq_limits),
	KUNIT_CASE(objects_cq_notify_flags),
	KUNIT_CASE(objects_qp_create_checks),
	KUNIT_CASE(objects_dependencies),
	KUNIT_CASE(objects_shared_cq),
	KUNIT_CASE(objects_srq),
	KUNIT_CASE(objects_ah_checks),
	KUNIT_CASE(objects_ah_grh_per_port),
	KUNIT_CASE(objects_ah_nosleep),
	KUNIT_CASE(objects_gsi_qp),
	KUNIT_CASE(objects_numbers_not_reused),
	KUNIT_CASE(objects_data_path),
	KUNIT_CASE(objects_destroy_waits_for_lookup),
	KUNIT_CASE(objects_lookup_race_stress),
	{}
};

static struct kunit_suite objects_suite = {
	.name = "xrdma_core_objects",
	.init = objects_init,
	.exit = objects_exit,
	.test_cases = objects_cases,
};

kunit_test_suite(objects_suite);
