/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fake xrdma driver for the KUnit suites: every operation succeeds and
 * is counted, unless a test asks the next create to fail.
 */
#ifndef _XRDMA_KUNIT_FAKE_DRIVER_H
#define _XRDMA_KUNIT_FAKE_DRIVER_H

#include <kunit/test.h>
#include <xrdma/xrdma_verbs.h>

struct fake_pd {
	struct xrdma_pd ibpd;
	u32 magic;
};

struct fake_cq {
	struct xrdma_cq ibcq;
	int armed;
	u32 notify_flags;	/* of the last req_notify_cq */
};

struct fake_qp {
	struct xrdma_qp ibqp;
	int modify_calls;
	int sends;
	int recvs;
};

struct fake_srq {
	struct xrdma_srq ibsrq;
	struct xrdma_srq_attr attr;
};

struct fake_mr {
	struct xrdma_mr ibmr;
	u64 *pages;
	u32 npages;
};

struct fake_ah {
	struct xrdma_ah ibah;
};

struct fake_dev {
	struct xrdma_device ibdev;
	/* errno the next create/alloc callback returns, then reset to 0 */
	int fail_next_create;
	/*
	 * what dereg_mr returns: 0, or -EBUSY (the device may still use the
	 * MR: a user MR's pages are taken over, and released at once as if
	 * the device were reset)
	 */
	int dereg_mr_result;
	/* ports (bit p for port p) whose link layer is InfiniBand, not Ethernet */
	u32 ib_ports;
	/* what query_port returns (0, or an errno registration must pass on) */
	int query_port_result;
	atomic_t creates;
	atomic_t destroys;
};

static inline struct fake_dev *to_fake_dev(struct xrdma_device *dev)
{
	return container_of(dev, struct fake_dev, ibdev);
}

extern const struct xrdma_device_ops fake_ops;

/* allocated with default attributes; registered as name_fmt, e.g. "fake%d" */
struct fake_dev *fake_dev_alloc(struct kunit *test);
struct fake_dev *fake_dev_create(struct kunit *test, const char *name_fmt);
void fake_dev_destroy(struct fake_dev *fd);

/* a PD, two CQs and an RC QP on them, all asserted to succeed */
struct fake_qp_set {
	struct xrdma_pd *pd;
	struct xrdma_cq *scq, *rcq;
	struct xrdma_qp *qp;
};

struct xrdma_cq *fake_create_cq(struct kunit *test, struct xrdma_device *dev);
struct xrdma_qp *fake_create_qp(struct kunit *test, struct xrdma_pd *pd,
				struct xrdma_cq *scq, struct xrdma_cq *rcq,
				enum xrdma_qp_type type);
void fake_qp_set_create(struct kunit *test, struct xrdma_device *dev,
			struct fake_qp_set *s);
void fake_qp_set_destroy(struct kunit *test, struct fake_qp_set *s);

#endif
