/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xrdma_ib: every xrdma device as an ib_device of the kernel's ib_core, so
 * that the kernel's own RDMA ULPs (rdma_cm, ib_cm, ib_mad, nvme-rdma,
 * nvmet-rdma, rpcrdma, cifs/ksmbd) run over xrdma devices unmodified.
 * See Documentation/core.rst ("xrdma_ib: ib_core on xrdma").
 *
 * File map:
 *   xib.h        the wrappers (ib object + pointer to the xrdma object) and
 *                the translation functions
 *   xib_enums.c  value translation between ib_core and xrdma: pure
 *                functions on the enums (no ib_core symbol), tested by
 *                kunit/ib_enums_test.c
 *   xib_main.c   module, xrdma client add/remove, device and port verbs,
 *                GID table, async events
 *   xib_verbs.c  PD, CQ, QP, SRQ, MR, AH verbs; post and poll
 */
#ifndef _XIB_H
#define _XIB_H

#include <rdma/ib_verbs.h>
#include <xrdma/xrdma_verbs.h>

struct xib_dev {
	struct ib_device ibdev;		/* must be first (ib_alloc_device) */
	struct xrdma_device *xdev;
	struct xrdma_event_handler eh;
	/* the device's hw counters but the private ones; one allocation */
	struct rdma_stat_desc *stat_descs;
	u32 *stat_idx;			/* stat j is the device's stat_idx[j] */
	u32 num_stats;
};

struct xib_pd {
	struct ib_pd ibpd;
	struct xrdma_pd *xpd;
};

struct xib_cq {
	struct ib_cq ibcq;
	struct xrdma_cq *xcq;
};

struct xib_qp {
	struct ib_qp ibqp;
	struct xrdma_qp *xqp;
};

struct xib_srq {
	struct ib_srq ibsrq;
	struct xrdma_srq *xsrq;
};

struct xib_mr {
	struct ib_mr ibmr;
	struct xrdma_mr *xmr;
};

struct xib_ah {
	struct ib_ah ibah;
	struct xrdma_ah *xah;
};

static inline struct xib_dev *to_xib_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct xib_dev, ibdev);
}

static inline struct xrdma_device *to_xdev(struct ib_device *ibdev)
{
	return to_xib_dev(ibdev)->xdev;
}

#define XIB_TO(type, member, obj) container_of(obj, struct type, member)

static inline struct xib_pd *to_xib_pd(struct ib_pd *pd)
{
	return XIB_TO(xib_pd, ibpd, pd);
}

static inline struct xib_cq *to_xib_cq(struct ib_cq *cq)
{
	return XIB_TO(xib_cq, ibcq, cq);
}

static inline struct xib_qp *to_xib_qp(struct ib_qp *qp)
{
	return XIB_TO(xib_qp, ibqp, qp);
}

static inline struct xib_srq *to_xib_srq(struct ib_srq *srq)
{
	return XIB_TO(xib_srq, ibsrq, srq);
}

static inline struct xib_mr *to_xib_mr(struct ib_mr *mr)
{
	return XIB_TO(xib_mr, ibmr, mr);
}

static inline struct xib_ah *to_xib_ah(struct ib_ah *ah)
{
	return XIB_TO(xib_ah, ibah, ah);
}

/*
 * xib_enums.c: every function returns the translated value (>= 0) or
 * -EINVAL for a value with no counterpart (-EOPNOTSUPP where the value is
 * valid for ib_core but xrdma cannot do it).
 */
int xib_wr_opcode_to_xrdma(u32 op);
int xib_send_flags_to_xrdma(u32 flags);
int xib_wc_status_to_ib(u32 status);
int xib_wc_opcode_to_ib(u32 opcode);
int xib_wc_flags_to_ib(u32 flags);
int xib_network_type_to_ib(u32 type);
int xib_qp_state_to_xrdma(u32 state);
int xib_qp_state_to_ib(u32 state);
int xib_qp_type_to_xrdma(u32 type);
int xib_qp_type_to_ib(u32 type);
int xib_qp_mask_to_xrdma(u32 mask);
int xib_qp_mask_to_ib(u32 mask);
int xib_access_to_xrdma(u32 access);
int xib_access_to_ib(u32 access);
int xib_mtu_to_xrdma(u32 mtu);
int xib_mtu_to_ib(u32 mtu);
int xib_event_to_ib(u32 event);
int xib_gid_type_to_xrdma(u32 type);
int xib_srq_mask_to_xrdma(u32 mask);
int xib_cq_notify_to_xrdma(u32 flags);
int xib_port_state_to_ib(u32 state);
int xib_atomic_cap_to_ib(u32 cap);
s64 xib_device_cap_to_ib(u32 caps);

/* xib_verbs.c */
extern const struct ib_device_ops xib_verbs_ops;

#endif /* _XIB_H */
