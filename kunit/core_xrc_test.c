// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma_core_xrc: XRC in the core (drivers/core/xrcd.c, srq.c and qp.c,
 * qp_state.c) on the fake device with XRDMA_DEVICE_XRC: domains and their
 * use counts (-EBUSY), the checks of XRC SRQs and XRC_INI/XRC_TGT QPs,
 * the shared XRC_TGT QP (several handles, events to every handle with its
 * context, destroyed with the last handle), post_recv refused, and the
 * state rules of the XRC types.
 */
#include <linux/cred.h>
#include "fake_driver.h"
#include "core_priv.h"

static struct fake_dev *xrc_dev(struct kunit *test, bool xrc)
{
	struct fake_dev *fd = fake_dev_alloc(test);
	int ret;

	if (xrc)
		fd->ibdev.attr.device_cap_flags |= XRDMA_DEVICE_XRC;
	ret = xrdma_register_device(&fd->ibdev, "kxrc%d", NULL);
	if (ret)
		xrdma_dealloc_device(&fd->ibdev);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return fd;
}

/* what one handle's event handler saw */
struct xrc_seen {
	int events;
	void *ctx;
	enum xrdma_event_type last;
};

static void xrc_record(struct xrdma_event *e, void *ctx)
{
	struct xrc_seen *s = ctx;

	s->events++;
	s->ctx = ctx;
	s->last = e->event;
}

static struct xrdma_srq *xrc_srq(struct xrdma_pd *pd, struct xrdma_xrcd *xrcd,
				 struct xrdma_cq *cq)
{
	struct xrdma_srq_init_attr sa = {
		.attr = { .max_wr = 16, .max_sge = 1 },
		.srq_type = XRDMA_SRQT_XRC,
		.xrcd = xrcd,
		.cq = cq,
	};

	return xrdma_create_srq(pd, &sa);
}

static struct xrdma_qp *xrc_tgt(struct xrdma_xrcd *xrcd, struct xrc_seen *s)
{
	struct xrdma_qp_init_attr qa = {
		.event_handler = xrc_record,
		.qp_context = s,
		.qp_type = XRDMA_QPT_XRC_TGT,
		.xrcd = xrcd,
	};

	return xrdma_create_qp(NULL, &qa);
}

static struct xrdma_qp *xrc_ini(struct xrdma_pd *pd, struct xrdma_cq *cq)
{
	struct xrdma_qp_init_attr qa = {
		.send_cq = cq,
		.qp_type = XRDMA_QPT_XRC_INI,
		.cap = { .max_send_wr = 8, .max_send_sge = 1 },
	};

	return xrdma_create_qp(pd, &qa);
}

static void xrc_qp_event(struct xrdma_qp *qp, enum xrdma_event_type type)
{
	struct xrdma_event e = {
		.device = qp->device,
		.event = type,
		.element.qp = qp,
	};

	xrdma_dispatch_event(&e);
}

/* a device without XRDMA_DEVICE_XRC has none of it */
static void xrc_unsupported(struct kunit *test)
{
	struct fake_dev *fd = xrc_dev(test, false);
	struct xrdma_device *dev = &fd->ibdev;
	struct xrdma_pd *pd = xrdma_alloc_pd(dev, 0);
	struct xrdma_cq *cq = fake_create_cq(test, dev);
	struct xrdma_srq_init_attr sa = {
		.attr = { .max_wr = 16, .max_sge = 1 },
		.srq_type = XRDMA_SRQT_XRC,
		.cq = cq,
	};

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_alloc_xrcd(dev)), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_srq(pd, &sa)), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrc_ini(pd, cq)), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_XRCD), 0U);
	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_QP), 0U);
	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_SRQ), 0U);
	/* nothing kept a use */
	KUNIT_EXPECT_EQ(test, xrdma_destroy_cq(cq), 0);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(pd), 0);
	fake_dev_destroy(fd);
}

/* a domain lives while SRQs and XRC_TGT QPs use it; its CQ likewise */
static void xrc_domain_uses(struct kunit *test)
{
	struct fake_dev *fd = xrc_dev(test, true);
	struct xrdma_device *dev = &fd->ibdev;
	struct xrdma_pd *pd = xrdma_alloc_pd(dev, 0);
	struct xrdma_cq *cq = fake_create_cq(test, dev);
	struct xrdma_xrcd *xrcd, *pxrcd;
	struct xrdma_srq *srq;
	struct xrdma_qp *tgt;
	struct xrc_seen s = {};

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	/* the driver's failure leaves nothing */
	fd->fail_next_create = -ENOSPC;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_alloc_xrcd(dev)), -ENOSPC);
	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_XRCD), 0U);

	xrcd = xrdma_alloc_xrcd(dev);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, xrcd);
	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_XRCD), 1U);
	KUNIT_EXPECT_EQ(test, xrcd->xrcdn, xrcd->res.id);
	KUNIT_EXPECT_EQ(test, atomic_read(&xrcd->usecnt), 1);

	srq = xrc_srq(pd, xrcd, cq);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, srq);
	KUNIT_EXPECT_EQ(test, srq->srq_type, XRDMA_SRQT_XRC);
	KUNIT_EXPECT_PTR_EQ(test, srq->xrcd, xrcd);
	KUNIT_EXPECT_PTR_EQ(test, srq->cq, cq);
	KUNIT_EXPECT_NE(test, srq->srq_num, 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&xrcd->usecnt), 2);
	tgt = xrc_tgt(xrcd, &s);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, tgt);
	KUNIT_EXPECT_EQ(test, atomic_read(&xrcd->usecnt), 3);

	/* in use: EBUSY, nothing changes */
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_xrcd(xrcd), -EBUSY);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_cq(cq), -EBUSY);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(pd), -EBUSY);
	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_XRCD), 1U);
	/* a failed create gives its uses back */
	pxrcd = xrdma_alloc_xrcd(dev);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pxrcd);
	fd->fail_next_create = -EIO;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrc_srq(pd, pxrcd, cq)), -EIO);
	KUNIT_EXPECT_EQ(test, atomic_read(&pxrcd->usecnt), 1);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_xrcd(pxrcd), 0);

	KUNIT_EXPECT_EQ(test, xrdma_destroy_qp(tgt), 0);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_xrcd(xrcd), -EBUSY);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_srq(srq), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&xrcd->usecnt), 1);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_xrcd(xrcd), 0);
	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_XRCD), 0U);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_cq(cq), 0);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(pd), 0);
	fake_dev_destroy(fd);
}

/* a process's domain is charged to its uid, as every object */
static void xrc_domain_charge(struct kunit *test)
{
	struct fake_dev *fd = xrc_dev(test, true);
	struct xrdma_device *dev = &fd->ibdev;
	kuid_t uid = current_uid();
	unsigned int before = xrdma_user_count(dev, uid, XRDMA_ULIM_XRCD);
	unsigned int qps = xrdma_user_count(dev, uid, XRDMA_ULIM_QP);
	struct xrdma_qp_open_attr oa = { .qp_type = XRDMA_QPT_XRC_TGT };
	struct xrdma_xrcd *xrcd, *kxrcd;
	struct xrdma_qp_open *o, *ko;
	struct xrc_seen s = {};
	struct xrdma_qp *tgt;

	xrcd = __xrdma_alloc_xrcd(dev, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, xrcd);
	KUNIT_EXPECT_EQ(test, xrdma_user_count(dev, uid, XRDMA_ULIM_XRCD),
			before + 1);
	/* a process's handle on a shared QP counts as one of its QPs */
	tgt = xrc_tgt(xrcd, &s);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, tgt);
	oa.qp_num = tgt->qp_num;
	o = __xrdma_open_qp(xrcd, &oa, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, o);
	KUNIT_EXPECT_EQ(test, xrdma_user_count(dev, uid, XRDMA_ULIM_QP),
			qps + 1);
	ko = xrdma_open_qp(xrcd, &oa);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ko);
	KUNIT_EXPECT_EQ(test, xrdma_user_count(dev, uid, XRDMA_ULIM_QP),
			qps + 1);
	/* a failed open gives its charge back */
	oa.qp_num = tgt->qp_num + 1000;
	KUNIT_EXPECT_EQ(test, PTR_ERR(__xrdma_open_qp(xrcd, &oa, NULL)),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, xrdma_user_count(dev, uid, XRDMA_ULIM_QP),
			qps + 1);
	KUNIT_EXPECT_EQ(test, xrdma_close_qp(o), 0);
	KUNIT_EXPECT_EQ(test, xrdma_user_count(dev, uid, XRDMA_ULIM_QP), qps);
	KUNIT_EXPECT_EQ(test, xrdma_close_qp(ko), 0);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_qp(tgt), 0);
	KUNIT_EXPECT_EQ(test, xrdma_ulim_limit(dev, XRDMA_ULIM_XRCD),
			xrdma_user_share >= 100 ? UINT_MAX :
			max_t(u32, 1, dev->attr.max_xrcd * xrdma_user_share /
			      100));
	/* a kernel consumer's is not */
	kxrcd = xrdma_alloc_xrcd(dev);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, kxrcd);
	KUNIT_EXPECT_NULL(test, kxrcd->res.charge.uacct);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_xrcd(kxrcd), 0);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_xrcd(xrcd), 0);
	KUNIT_EXPECT_EQ(test, xrdma_user_count(dev, uid, XRDMA_ULIM_XRCD),
			before);
	fake_dev_destroy(fd);
}

/* XRC SRQs need a domain and a CQ of the device; basic ones neither */
static void xrc_srq_checks(struct kunit *test)
{
	struct fake_dev *fd = xrc_dev(test, true), *fd2 = xrc_dev(test, true);
	struct xrdma_device *dev = &fd->ibdev;
	struct xrdma_pd *pd = xrdma_alloc_pd(dev, 0);
	struct xrdma_cq *cq = fake_create_cq(test, dev);
	struct xrdma_cq *cq2 = fake_create_cq(test, &fd2->ibdev);
	struct xrdma_xrcd *xrcd = xrdma_alloc_xrcd(dev);
	struct xrdma_xrcd *xrcd2 = xrdma_alloc_xrcd(&fd2->ibdev);
	struct xrdma_srq_init_attr sa = {
		.attr = { .max_wr = 16, .max_sge = 1 },
	};
	struct xrdma_qp_init_attr qa = {
		.qp_type = XRDMA_QPT_RC,
		.cap = { .max_send_wr = 1, .max_send_sge = 1 },
	};
	struct xrdma_srq *srq;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, xrcd);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, xrcd2);
	sa.srq_type = XRDMA_SRQT_XRC;
	sa.cq = cq;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_srq(pd, &sa)), -EINVAL);
	sa.xrcd = xrcd;
	sa.cq = NULL;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_srq(pd, &sa)), -EINVAL);
	sa.cq = cq2;		/* another device's */
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_srq(pd, &sa)), -EINVAL);
	sa.cq = cq;
	sa.xrcd = xrcd2;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_srq(pd, &sa)), -EINVAL);
	sa.srq_type = XRDMA_SRQT_BASIC;
	sa.xrcd = xrcd;
	sa.cq = NULL;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_srq(pd, &sa)), -EINVAL);
	sa.xrcd = NULL;
	sa.cq = cq;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_srq(pd, &sa)), -EINVAL);
	sa.srq_type = 7;
	sa.cq = NULL;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_srq(pd, &sa)), -EINVAL);
	/* sizes are checked as for any SRQ */
	srq = xrc_srq(pd, xrcd, cq);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, srq);
	sa = (struct xrdma_srq_init_attr){
		.attr = { .max_wr = 0, .max_sge = 1 },
		.srq_type = XRDMA_SRQT_XRC, .xrcd = xrcd, .cq = cq,
	};
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_srq(pd, &sa)), -EINVAL);
	/* no failed create kept a use or an object */
	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_SRQ), 1U);
	KUNIT_EXPECT_EQ(test, atomic_read(&xrcd->usecnt), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&xrcd2->usecnt), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&cq->usecnt), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&cq2->usecnt), 1);

	/* an XRC SRQ is for XRC_TGT QPs: an RC QP cannot use it */
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qa.srq = srq;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_qp(pd, &qa)), -EINVAL);
	KUNIT_EXPECT_EQ(test, atomic_read(&srq->usecnt), 1);

	KUNIT_EXPECT_EQ(test, xrdma_destroy_srq(srq), 0);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_xrcd(xrcd), 0);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_xrcd(xrcd2), 0);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_cq(cq), 0);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_cq(cq2), 0);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(pd), 0);
	fake_dev_destroy(fd2);
	fake_dev_destroy(fd);
}

/* XRC_INI: PD and send CQ, no receive side; XRC_TGT: the domain only */
static void xrc_qp_checks(struct kunit *test)
{
	struct fake_dev *fd = xrc_dev(test, true);
	struct xrdma_device *dev = &fd->ibdev;
	struct xrdma_pd *pd = xrdma_alloc_pd(dev, 0);
	struct xrdma_cq *cq = fake_create_cq(test, dev);
	struct xrdma_xrcd *xrcd = xrdma_alloc_xrcd(dev);
	struct xrdma_srq *srq;
	struct xrdma_qp_init_attr qa;
	struct xrdma_recv_wr rwr = { .wr_id = 1 };
	const struct xrdma_recv_wr *bad = NULL;
	struct xrdma_qp *ini, *tgt;
	struct xrc_seen s = {};

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, xrcd);
	srq = xrc_srq(pd, xrcd, cq);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, srq);

#define INI() (qa = (struct xrdma_qp_init_attr){ .send_cq = cq,		\
		.qp_type = XRDMA_QPT_XRC_INI,				\
		.cap = { .max_send_wr = 8, .max_send_sge = 1 } })
	INI();
	qa.recv_cq = cq;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_qp(pd, &qa)), -EINVAL);
	INI();
	qa.srq = srq;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_qp(pd, &qa)), -EINVAL);
	INI();
	qa.cap.max_recv_wr = 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_qp(pd, &qa)), -EINVAL);
	INI();
	qa.cap.max_recv_sge = 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_qp(pd, &qa)), -EINVAL);
	INI();
	qa.xrcd = xrcd;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_qp(pd, &qa)), -EINVAL);
	INI();
	qa.send_cq = NULL;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_qp(pd, &qa)), -EINVAL);
	INI();
	qa.cap.max_send_wr = dev->attr.max_qp_wr + 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_qp(pd, &qa)), -EINVAL);
#undef INI

#define TGT() (qa = (struct xrdma_qp_init_attr){ .xrcd = xrcd,		\
		.qp_type = XRDMA_QPT_XRC_TGT })
	TGT();
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_qp(pd, &qa)), -EINVAL);
	TGT();
	qa.xrcd = NULL;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_qp(NULL, &qa)), -EINVAL);
	TGT();
	qa.send_cq = cq;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_qp(NULL, &qa)), -EINVAL);
	TGT();
	qa.recv_cq = cq;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_qp(NULL, &qa)), -EINVAL);
	TGT();
	qa.srq = srq;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_qp(NULL, &qa)), -EINVAL);
	TGT();
	qa.cap.max_send_wr = 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_qp(NULL, &qa)), -EINVAL);
#undef TGT
	/* other types take no domain, and need a PD */
	qa = (struct xrdma_qp_init_attr){ .send_cq = cq, .recv_cq = cq,
		.qp_type = XRDMA_QPT_RC, .xrcd = xrcd };
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_qp(pd, &qa)), -EINVAL);
	qa.xrcd = NULL;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_create_qp(NULL, &qa)), -EINVAL);
	/* nothing kept a use */
	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_QP), 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&xrcd->usecnt), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&cq->usecnt), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&pd->usecnt), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&srq->usecnt), 1);

	ini = xrc_ini(pd, cq);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ini);
	KUNIT_EXPECT_NULL(test, ini->recv_cq);
	KUNIT_EXPECT_NULL(test, ini->xrcd);
	KUNIT_EXPECT_EQ(test, atomic_read(&cq->usecnt), 3);
	tgt = xrc_tgt(xrcd, &s);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, tgt);
	KUNIT_EXPECT_NULL(test, tgt->pd);
	KUNIT_EXPECT_PTR_EQ(test, tgt->xrcd, xrcd);
	KUNIT_EXPECT_EQ(test, atomic_read(&pd->usecnt), 3);

	/* neither has a receive queue: post_recv never reaches the driver */
	KUNIT_EXPECT_EQ(test, xrdma_post_recv(ini, &rwr, &bad), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, bad, (const struct xrdma_recv_wr *)&rwr);
	bad = NULL;
	KUNIT_EXPECT_EQ(test, xrdma_post_recv(tgt, &rwr, &bad), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, bad, (const struct xrdma_recv_wr *)&rwr);
	KUNIT_EXPECT_EQ(test, xrdma_post_recv(tgt, &rwr, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, container_of(ini, struct fake_qp, ibqp)->recvs,
			0);
	KUNIT_EXPECT_EQ(test, container_of(tgt, struct fake_qp, ibqp)->recvs,
			0);

	KUNIT_EXPECT_EQ(test, xrdma_destroy_qp(ini), 0);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_qp(tgt), 0);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_srq(srq), 0);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_xrcd(xrcd), 0);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_cq(cq), 0);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(pd), 0);
	fake_dev_destroy(fd);
}

/*
 * An XRC_TGT QP shared by its creator and two opened handles: each gets
 * every event with its own context until it closes; the QP lives until
 * the last handle goes, whoever holds it.
 */
static void xrc_tgt_shared(struct kunit *test)
{
	struct fake_dev *fd = xrc_dev(test, true);
	struct xrdma_device *dev = &fd->ibdev;
	struct xrdma_pd *pd = xrdma_alloc_pd(dev, 0);
	struct xrdma_cq *cq = fake_create_cq(test, dev);
	struct xrdma_xrcd *xrcd = xrdma_alloc_xrcd(dev);
	struct xrdma_xrcd *other = xrdma_alloc_xrcd(dev);
	struct xrc_seen s0 = {}, s1 = {}, s2 = {};
	struct xrdma_qp_open_attr oa = {
		.event_handler = xrc_record,
		.qp_type = XRDMA_QPT_XRC_TGT,
	};
	struct xrdma_qp_attr a = {
		.qp_state = XRDMA_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = XRDMA_ACCESS_REMOTE_WRITE,
	};
	struct xrdma_qp_open *o1, *o2;
	struct xrdma_qp *tgt, *ini;
	int destroys;
	u32 qpn;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, xrcd);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, other);
	tgt = xrc_tgt(xrcd, &s0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, tgt);
	ini = xrc_ini(pd, cq);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ini);
	qpn = tgt->qp_num;

	/* what cannot be opened */
	oa.qp_num = qpn;
	oa.qp_type = XRDMA_QPT_RC;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_open_qp(xrcd, &oa)), -EINVAL);
	oa.qp_type = XRDMA_QPT_XRC_TGT;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_open_qp(other, &oa)), -ENOENT);
	oa.qp_num = ini->qp_num;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_open_qp(xrcd, &oa)), -ENOENT);
	oa.qp_num = qpn + 1000;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_open_qp(xrcd, &oa)), -ENOENT);
	KUNIT_EXPECT_EQ(test, atomic_read(&tgt->open_cnt), 1);

	oa.qp_num = qpn;
	oa.qp_context = &s1;
	o1 = xrdma_open_qp(xrcd, &oa);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, o1);
	oa.qp_context = &s2;
	o2 = xrdma_open_qp(xrcd, &oa);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, o2);
	KUNIT_EXPECT_PTR_EQ(test, o1->qp, tgt);
	KUNIT_EXPECT_PTR_EQ(test, o2->qp, tgt);
	KUNIT_EXPECT_EQ(test, atomic_read(&tgt->open_cnt), 3);

	/* every handle gets the event, with its own context */
	xrc_qp_event(tgt, XRDMA_EVENT_QP_FATAL);
	KUNIT_EXPECT_EQ(test, s0.events, 1);
	KUNIT_EXPECT_EQ(test, s1.events, 1);
	KUNIT_EXPECT_EQ(test, s2.events, 1);
	KUNIT_EXPECT_PTR_EQ(test, s0.ctx, (void *)&s0);
	KUNIT_EXPECT_PTR_EQ(test, s1.ctx, (void *)&s1);
	KUNIT_EXPECT_PTR_EQ(test, s2.ctx, (void *)&s2);
	KUNIT_EXPECT_EQ(test, s2.last, XRDMA_EVENT_QP_FATAL);

	/* a handle modifies the shared QP */
	KUNIT_EXPECT_EQ(test, xrdma_modify_qp(o1->qp, &a, XRDMA_QP_STATE |
					      XRDMA_QP_PKEY_INDEX |
					      XRDMA_QP_PORT |
					      XRDMA_QP_ACCESS_FLAGS), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(tgt->state), XRDMA_QPS_INIT);

	/* the creator goes: the QP stays for the other two */
	destroys = atomic_read(&fd->destroys);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_qp(tgt), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->destroys), destroys);
	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_QP), 2U);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_xrcd(xrcd), -EBUSY);
	xrc_qp_event(o2->qp, XRDMA_EVENT_QP_LAST_WQE_REACHED);
	KUNIT_EXPECT_EQ(test, s0.events, 1);
	KUNIT_EXPECT_EQ(test, s1.events, 2);
	KUNIT_EXPECT_EQ(test, s2.events, 2);
	/* a closed handle gets nothing more; the QP can still be opened */
	KUNIT_EXPECT_EQ(test, xrdma_close_qp(o2), 0);
	oa.qp_context = NULL;
	oa.event_handler = NULL;
	o2 = xrdma_open_qp(xrcd, &oa);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, o2);
	xrc_qp_event(o2->qp, XRDMA_EVENT_COMM_EST);
	KUNIT_EXPECT_EQ(test, s1.events, 3);
	KUNIT_EXPECT_EQ(test, s2.events, 2);

	KUNIT_EXPECT_EQ(test, xrdma_close_qp(o1), 0);
	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_QP), 2U);
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->destroys), destroys);
	/* the last handle destroys it: then it is gone from the domain */
	KUNIT_EXPECT_EQ(test, xrdma_close_qp(o2), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->destroys), destroys + 1);
	KUNIT_EXPECT_EQ(test, xrdma_res_count(dev, XRDMA_RES_QP), 1U);
	oa.qp_num = qpn;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_open_qp(xrcd, &oa)), -ENOENT);
	KUNIT_EXPECT_EQ(test, atomic_read(&xrcd->usecnt), 1);

	KUNIT_EXPECT_EQ(test, xrdma_destroy_qp(ini), 0);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_xrcd(xrcd), 0);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_xrcd(other), 0);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_cq(cq), 0);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(pd), 0);
	fake_dev_destroy(fd);
}

/* the state table of 6.1 ib_core for the XRC types */
static void xrc_state_rules(struct kunit *test)
{
	const int init = XRDMA_QP_STATE | XRDMA_QP_PKEY_INDEX |
			 XRDMA_QP_PORT | XRDMA_QP_ACCESS_FLAGS;
	const int rtr_uc = XRDMA_QP_STATE | XRDMA_QP_AV | XRDMA_QP_PATH_MTU |
			   XRDMA_QP_DEST_QPN | XRDMA_QP_RQ_PSN;
	const int rtr_rc = rtr_uc | XRDMA_QP_MAX_DEST_RD_ATOMIC |
			   XRDMA_QP_MIN_RNR_TIMER;
	const int rts_rc = XRDMA_QP_STATE | XRDMA_QP_TIMEOUT |
			   XRDMA_QP_RETRY_CNT | XRDMA_QP_RNR_RETRY |
			   XRDMA_QP_SQ_PSN | XRDMA_QP_MAX_QP_RD_ATOMIC;
	const int rts_tgt = XRDMA_QP_STATE | XRDMA_QP_TIMEOUT |
			    XRDMA_QP_SQ_PSN;
	const enum xrdma_qp_type ini = XRDMA_QPT_XRC_INI;
	const enum xrdma_qp_type tgt = XRDMA_QPT_XRC_TGT;

#define OK(c, n, t, m) KUNIT_EXPECT_TRUE(test, xrdma_modify_qp_is_ok(	\
		XRDMA_QPS_##c, XRDMA_QPS_##n, t, m))
#define NOK(c, n, t, m) KUNIT_EXPECT_FALSE(test, xrdma_modify_qp_is_ok( \
		XRDMA_QPS_##c, XRDMA_QPS_##n, t, m))
	/* RESET->INIT as RC, both */
	OK(RESET, INIT, ini, init);
	OK(RESET, INIT, tgt, init);
	NOK(RESET, INIT, tgt, init & ~XRDMA_QP_ACCESS_FLAGS);
	NOK(RESET, INIT, ini, init | XRDMA_QP_QKEY);
	/* INIT->RTR: the initiator has no responder attributes */
	OK(INIT, RTR, ini, rtr_uc);
	NOK(INIT, RTR, ini, rtr_rc);
	NOK(INIT, RTR, ini, rtr_uc & ~XRDMA_QP_RQ_PSN);
	OK(INIT, RTR, tgt, rtr_rc);
	NOK(INIT, RTR, tgt, rtr_uc);
	OK(INIT, RTR, tgt, rtr_rc | XRDMA_QP_ALT_PATH | XRDMA_QP_PKEY_INDEX);
	/* RTR->RTS: the initiator as RC's requester, the target less */
	OK(RTR, RTS, ini, rts_rc);
	NOK(RTR, RTS, ini, rts_rc & ~XRDMA_QP_MAX_QP_RD_ATOMIC);
	NOK(RTR, RTS, ini, rts_rc | XRDMA_QP_MIN_RNR_TIMER);
	OK(RTR, RTS, tgt, rts_tgt);
	OK(RTR, RTS, tgt, rts_tgt | XRDMA_QP_MIN_RNR_TIMER);
	NOK(RTR, RTS, tgt, rts_tgt | XRDMA_QP_RETRY_CNT);
	NOK(RTR, RTS, tgt, XRDMA_QP_STATE | XRDMA_QP_SQ_PSN);
	/* RTS->RTS */
	OK(RTS, RTS, tgt, XRDMA_QP_MIN_RNR_TIMER);
	NOK(RTS, RTS, ini, XRDMA_QP_MIN_RNR_TIMER);
	OK(RTS, RTS, ini, XRDMA_QP_ACCESS_FLAGS | XRDMA_QP_PATH_MIG_STATE);
	/* SQD->SQD */
	OK(SQD, SQD, ini, XRDMA_QP_RETRY_CNT | XRDMA_QP_MAX_QP_RD_ATOMIC);
	NOK(SQD, SQD, ini, XRDMA_QP_MAX_DEST_RD_ATOMIC);
	OK(SQD, SQD, tgt, XRDMA_QP_MAX_DEST_RD_ATOMIC |
	   XRDMA_QP_MIN_RNR_TIMER);
	NOK(SQD, SQD, tgt, XRDMA_QP_RETRY_CNT);
	/* reliable: no SQE->RTS; to RESET and ERR always */
	NOK(SQE, RTS, ini, XRDMA_QP_STATE);
	NOK(SQE, RTS, tgt, XRDMA_QP_STATE);
	OK(RTS, ERR, tgt, XRDMA_QP_STATE);
	OK(RTR, RESET, ini, XRDMA_QP_STATE);
#undef OK
#undef NOK
}

/* the same rules through xrdma_modify_qp() on a real XRC_TGT QP */
static void xrc_tgt_modify(struct kunit *test)
{
	struct fake_dev *fd = xrc_dev(test, true);
	struct xrdma_xrcd *xrcd = xrdma_alloc_xrcd(&fd->ibdev);
	struct xrdma_qp_attr a = {
		.qp_state = XRDMA_QPS_INIT,
		.port_num = 1,
	};
	struct xrc_seen s = {};
	struct xrdma_qp_init_attr init;
	struct xrdma_qp *qp;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, xrcd);
	qp = xrc_tgt(xrcd, &s);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	KUNIT_EXPECT_EQ(test, xrdma_modify_qp(qp, &a, XRDMA_QP_STATE |
					      XRDMA_QP_PKEY_INDEX |
					      XRDMA_QP_PORT |
					      XRDMA_QP_ACCESS_FLAGS), 0);
	a.qp_state = XRDMA_QPS_RTR;
	a.ah_attr.port_num = 1;
	a.ah_attr.is_global = 1;
	a.path_mtu = XRDMA_MTU_1024;
	a.dest_qp_num = 5;
	/* RC's responder attributes are required */
	KUNIT_EXPECT_EQ(test, xrdma_modify_qp(qp, &a, XRDMA_QP_STATE |
					      XRDMA_QP_AV | XRDMA_QP_PATH_MTU |
					      XRDMA_QP_DEST_QPN |
					      XRDMA_QP_RQ_PSN), -EINVAL);
	KUNIT_EXPECT_EQ(test, xrdma_modify_qp(qp, &a, XRDMA_QP_STATE |
					      XRDMA_QP_AV | XRDMA_QP_PATH_MTU |
					      XRDMA_QP_DEST_QPN |
					      XRDMA_QP_RQ_PSN |
					      XRDMA_QP_MAX_DEST_RD_ATOMIC |
					      XRDMA_QP_MIN_RNR_TIMER), 0);
	a.qp_state = XRDMA_QPS_RTS;
	a.timeout = 14;
	KUNIT_EXPECT_EQ(test, xrdma_modify_qp(qp, &a, XRDMA_QP_STATE |
					      XRDMA_QP_TIMEOUT |
					      XRDMA_QP_SQ_PSN), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(qp->state), XRDMA_QPS_RTS);
	KUNIT_EXPECT_EQ(test, container_of(qp, struct fake_qp,
					   ibqp)->modify_calls, 3);
	KUNIT_EXPECT_EQ(test, xrdma_query_qp(qp, &a, 0, &init), 0);
	KUNIT_EXPECT_EQ(test, init.qp_type, XRDMA_QPT_XRC_TGT);
	KUNIT_EXPECT_PTR_EQ(test, init.xrcd, xrcd);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_qp(qp), 0);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_xrcd(xrcd), 0);
	fake_dev_destroy(fd);
}

static struct kunit_case xrc_cases[] = {
	KUNIT_CASE(xrc_unsupported),
	KUNIT_CASE(xrc_domain_uses),
	KUNIT_CASE(xrc_domain_charge),
	KUNIT_CASE(xrc_srq_checks),
	KUNIT_CASE(xrc_qp_checks),
	KUNIT_CASE(xrc_tgt_shared),
	KUNIT_CASE(xrc_state_rules),
	KUNIT_CASE(xrc_tgt_modify),
	{}
};

static struct kunit_suite xrc_suite = {
	.name = "xrdma_core_xrc",
	.test_cases = xrc_cases,
};

kunit_test_suites(&xrc_suite);
