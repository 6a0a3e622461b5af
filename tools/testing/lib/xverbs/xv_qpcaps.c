// SPDX-License-Identifier: GPL-2.0
/*
 * xv_qpcaps: QP creation against the device's own reported limits, as a
 * conformance program does it (issue 15, defect 4).  Built against the
 * system's <infiniband/verbs.h>, public API only; run over xrdma with
 * scripts/xrdma-run (tools/testing/lib/xverbs/xverbs_qpcaps.sh).
 *
 *   sweep     RC, UC and UD QPs with max_send_wr/max_recv_wr up to
 *             max_qp_wr/8, SGEs up to max_sge/2, max_inline_data up to
 *             max_inline_data, one CQ for send and receive, sq_sig_all
 *             random, through ibv_create_qp and ibv_create_qp_ex (comp_mask
 *             PD, PD|CREATE_FLAGS with no flag, PD|SEND_OPS_FLAGS with the
 *             type's opcodes): every one is created with at least the caps
 *             asked for, and ibv_query_qp reports what creation returned
 *   limits    every capability at the device's limit at once is created,
 *             and every capability 0 (as ib_core and rxe); one beyond a
 *             limit is EINVAL
 *   comp_mask ibv_create_qp_ex: unsupported comp_mask bits, create flags,
 *             and send_ops_flags the QP type cannot use are EOPNOTSUPP; an
 *             unsupported QP type is EOPNOTSUPP; XRCD is ignored but by
 *             XRC_RECV QPs
 *   send_ops  a QP created with SEND_OPS_FLAGS has the ibv_wr_* API
 *   fill      the caps a QP at the limits reports hold: max_recv_wr
 *             receives of max_recv_sge SGEs post, one more is ENOMEM;
 *             max_send_wr unsignaled UD sends, of max_send_sge SGEs or
 *             max_inline_data inline bytes, post, one more is ENOMEM
 *
 *   -d IBDEV  device (xnic0)   -s SEED  random seed (1)   -n N  QPs per
 *   type and API in the sweep (64)
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>
#include "xt.h"
#include "xt_verbs.h"

static const char *dev_name = "xnic0";
static int seed = 1, per_combo = 64;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_device_attr da;

/*
 * ibv_device_attr has no inline limit: 256 is what xnic's QPs offer
 * (Documentation/userspace.rst) and what programs commonly ask for
 */
#define XV_INLINE	256U

static const char *const type_name[] = {
	[IBV_QPT_RC] = "RC", [IBV_QPT_UC] = "UC", [IBV_QPT_UD] = "UD",
};

/*
 * the opcodes xnic runs on each type (as mlx5's lists; SEND_WITH_INV on RC
 * only, the device's rule; BIND_MW on RC and UC, as rxe)
 */
static uint64_t type_ops(enum ibv_qp_type t)
{
	uint64_t uc = IBV_QP_EX_WITH_RDMA_WRITE |
		      IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
		      IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
		      IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW;

	switch (t) {
	case IBV_QPT_RC:
		return uc | IBV_QP_EX_WITH_RDMA_READ |
		       IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
		       IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
		       IBV_QP_EX_WITH_SEND_WITH_INV |
		       IBV_QP_EX_WITH_ATOMIC_WRITE;
	case IBV_QPT_UC:
		return uc;
	default:
		return IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM;
	}
}

enum api { API_QP, API_EX_PD, API_EX_FLAGS, API_EX_OPS, API_N };

static const char *const api_name[] = {
	"ibv_create_qp", "create_qp_ex(PD)", "create_qp_ex(PD|CREATE_FLAGS)",
	"create_qp_ex(PD|SEND_OPS_FLAGS)",
};

static unsigned int rnd(unsigned int n)	/* 0..n */
{
	return (unsigned int)(random() % (n + 1));
}

/* create; 0 or the errno; *qpp the QP; @c the caps it returned */
static int create(enum api api, enum ibv_qp_type type,
		  const struct ibv_qp_cap *want, int sig_all,
		  struct ibv_qp **qpp, struct ibv_qp_cap *c)
{
	struct ibv_qp_init_attr_ex ax;
	struct ibv_qp_init_attr a;
	struct ibv_qp *qp;

	if (api == API_QP) {
		memset(&a, 0, sizeof(a));
		a.send_cq = cq;
		a.recv_cq = cq;
		a.qp_type = type;
		a.cap = *want;
		a.sq_sig_all = sig_all;
		qp = ibv_create_qp(pd, &a);
		*c = a.cap;
	} else {
		memset(&ax, 0, sizeof(ax));
		ax.send_cq = cq;
		ax.recv_cq = cq;
		ax.qp_type = type;
		ax.cap = *want;
		ax.sq_sig_all = sig_all;
		ax.pd = pd;
		ax.comp_mask = IBV_QP_INIT_ATTR_PD;
		if (api == API_EX_FLAGS)
			ax.comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
		if (api == API_EX_OPS) {
			ax.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
			ax.send_ops_flags = type_ops(type);
		}
		qp = ibv_create_qp_ex(ctx, &ax);
		*c = ax.cap;
	}
	*qpp = qp;
	return qp ? 0 : errno;
}

/* one QP that must be created; false (and a note) if it was not */
static bool expect_created(enum api api, enum ibv_qp_type type,
			   const struct ibv_qp_cap *w, int sig_all)
{
	struct ibv_qp_init_attr qi;
	struct ibv_qp_attr qa;
	struct ibv_qp_cap c;
	struct ibv_qp *qp;
	const char *why = NULL;
	int err;

	err = create(api, type, w, sig_all, &qp, &c);
	if (err) {
		xt_note("%s %s wr %u/%u sge %u/%u inline %u sig_all %d: %s",
			api_name[api], type_name[type], w->max_send_wr,
			w->max_recv_wr, w->max_send_sge, w->max_recv_sge,
			w->max_inline_data, sig_all, xt_errname(err));
		return false;
	}
	if (c.max_send_wr < w->max_send_wr || c.max_recv_wr < w->max_recv_wr ||
	    c.max_send_sge < w->max_send_sge ||
	    c.max_recv_sge < w->max_recv_sge ||
	    c.max_inline_data < w->max_inline_data)
		why = "fewer caps than asked";
	else if (c.max_send_wr > (uint32_t)da.max_qp_wr ||
		 c.max_recv_wr > (uint32_t)da.max_qp_wr ||
		 c.max_send_sge > (uint32_t)da.max_sge ||
		 c.max_recv_sge > (uint32_t)da.max_sge)
		why = "caps beyond the device's limits";
	else if (ibv_query_qp(qp, &qa, IBV_QP_CAP, &qi))
		why = "ibv_query_qp failed";
	else if (memcmp(&qa.cap, &c, sizeof(c)))
		why = "ibv_query_qp caps differ from creation's";
	if (why)
		xt_note("%s %s wr %u/%u sge %u/%u inline %u: %s (got wr %u/%u sge %u/%u inline %u)",
			api_name[api], type_name[type], w->max_send_wr,
			w->max_recv_wr, w->max_send_sge, w->max_recv_sge,
			w->max_inline_data, why, c.max_send_wr, c.max_recv_wr,
			c.max_send_sge, c.max_recv_sge, c.max_inline_data);
	if (ibv_destroy_qp(qp)) {
		xt_note("ibv_destroy_qp: %s", xt_errname(errno));
		return false;
	}
	return !why;
}

static const enum ibv_qp_type types[] = { IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD };

static void t_sweep(void)
{
	unsigned int wr = (unsigned int)da.max_qp_wr / 8;
	unsigned int sge = (unsigned int)da.max_sge / 2;
	unsigned int inl = XV_INLINE;
	size_t t;
	int api, i;

	srandom((unsigned int)seed);
	for (t = 0; t < ARRAY_SIZE(types); t++) {
		for (api = 0; api < API_N; api++) {
			int bad = 0;

			for (i = 0; i < per_combo; i++) {
				struct ibv_qp_cap w = {
					.max_send_wr = 1 + rnd(wr - 1),
					.max_recv_wr = 1 + rnd(wr - 1),
					.max_send_sge = rnd(sge),
					.max_recv_sge = rnd(sge),
					.max_inline_data = rnd(inl),
				};

				/* the corners first */
				if (i < 4) {
					w.max_send_wr = i & 1 ? wr : 1;
					w.max_recv_wr = w.max_send_wr;
					w.max_send_sge = i & 2 ? sge : 0;
					w.max_recv_sge = w.max_send_sge;
					w.max_inline_data = i & 2 ? inl : 0;
				}
				if (!expect_created(api, types[t], &w,
						    (int)rnd(1)))
					bad++;
			}
			CHECK_EQ(bad, 0, "%s %s: %d QPs within the limits",
				 api_name[api], type_name[types[t]], per_combo);
		}
	}
}

static void t_limits(void)
{
	const struct ibv_qp_cap max = {
		.max_send_wr = (uint32_t)da.max_qp_wr,
		.max_recv_wr = (uint32_t)da.max_qp_wr,
		.max_send_sge = (uint32_t)da.max_sge,
		.max_recv_sge = (uint32_t)da.max_sge,
		.max_inline_data = XV_INLINE,
	};
	struct ibv_qp_cap w, c;
	uint32_t *const beyond[] = {
		&w.max_send_wr, &w.max_recv_wr, &w.max_send_sge,
		&w.max_recv_sge, &w.max_inline_data,
	};
	static const char *const beyond_name[] = {
		"max_send_wr", "max_recv_wr", "max_send_sge", "max_recv_sge",
		"max_inline_data",
	};
	struct ibv_qp *qp;
	size_t t;
	int api, k, err;

	xt_note("max_qp_wr %d max_sge %d max_inline_data %u", da.max_qp_wr,
		da.max_sge, XV_INLINE);
	for (t = 0; t < ARRAY_SIZE(types); t++) {
		for (api = 0; api < API_N; api++) {
			w = max;
			CHECK(expect_created(api, types[t], &w, 1),
			      "%s %s: every cap at its limit",
			      api_name[api], type_name[types[t]]);
			memset(&w, 0, sizeof(w));
			CHECK(expect_created(api, types[t], &w, 0),
			      "%s %s: every cap 0", api_name[api],
			      type_name[types[t]]);
			for (k = 0; k < 5; k++) {
				w = max;
				/* inline beyond any WQE: 1 MiB */
				*beyond[k] = k == 4 ? 1U << 20 : *beyond[k] + 1;
				err = create(api, types[t], &w, 0, &qp, &c);
				if (!err)
					ibv_destroy_qp(qp);
				CHECK_RC(-err, -EINVAL,
					 "%s %s: %s beyond its limit",
					 api_name[api], type_name[types[t]],
					 beyond_name[k]);
			}
		}
	}
}

/* ibv_create_qp_ex with one thing changed from a good PD-only call */
static int create_ex(enum ibv_qp_type type, uint32_t comp_mask,
		     uint32_t create_flags, uint64_t ops)
{
	struct ibv_qp_init_attr_ex ax;
	struct ibv_qp *qp;

	memset(&ax, 0, sizeof(ax));
	ax.send_cq = cq;
	ax.recv_cq = cq;
	ax.qp_type = type;
	ax.cap.max_send_wr = 4;
	ax.cap.max_recv_wr = 4;
	ax.cap.max_send_sge = 1;
	ax.cap.max_recv_sge = 1;
	ax.pd = pd;
	ax.comp_mask = comp_mask;
	ax.create_flags = create_flags;
	ax.send_ops_flags = ops;
	qp = ibv_create_qp_ex(ctx, &ax);
	if (!qp)
		return -errno;
	if (ibv_destroy_qp(qp))
		return -EBUSY;
	return 0;
}

static void t_comp_mask(void)
{
	static const struct { uint32_t bit; const char *name; } bits[] = {
		{ IBV_QP_INIT_ATTR_IND_TABLE, "IND_TABLE" },
		{ IBV_QP_INIT_ATTR_RX_HASH, "RX_HASH" },
		{ IBV_QP_INIT_ATTR_MAX_TSO_HEADER, "MAX_TSO_HEADER" },
		{ IBV_QP_INIT_ATTR_SEND_OPS_FLAGS << 1, "an unknown bit" },
	};
	static const struct { uint32_t flag; const char *name; } flags[] = {
		{ IBV_QP_CREATE_BLOCK_SELF_MCAST_LB, "BLOCK_SELF_MCAST_LB" },
		{ IBV_QP_CREATE_SCATTER_FCS, "SCATTER_FCS" },
		{ IBV_QP_CREATE_CVLAN_STRIPPING, "CVLAN_STRIPPING" },
		{ IBV_QP_CREATE_SOURCE_QPN, "SOURCE_QPN" },
		{ IBV_QP_CREATE_PCI_WRITE_END_PADDING, "PCI_WRITE_END_PADDING" },
	};
	static const struct { uint64_t op; const char *name; } ops[] = {
		{ IBV_QP_EX_WITH_RDMA_WRITE, "RDMA_WRITE" },
		{ IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM, "RDMA_WRITE_WITH_IMM" },
		{ IBV_QP_EX_WITH_SEND, "SEND" },
		{ IBV_QP_EX_WITH_SEND_WITH_IMM, "SEND_WITH_IMM" },
		{ IBV_QP_EX_WITH_RDMA_READ, "RDMA_READ" },
		{ IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP, "ATOMIC_CMP_AND_SWP" },
		{ IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD, "ATOMIC_FETCH_AND_ADD" },
		{ IBV_QP_EX_WITH_LOCAL_INV, "LOCAL_INV" },
		{ IBV_QP_EX_WITH_BIND_MW, "BIND_MW" },
		{ IBV_QP_EX_WITH_SEND_WITH_INV, "SEND_WITH_INV" },
		{ IBV_QP_EX_WITH_TSO, "TSO" },
		{ IBV_QP_EX_WITH_ATOMIC_WRITE, "ATOMIC_WRITE" },
	};
	const uint32_t PD = IBV_QP_INIT_ATTR_PD;
	size_t t, i;

	for (t = 0; t < ARRAY_SIZE(types); t++) {
		enum ibv_qp_type ty = types[t];
		const char *tn = type_name[ty];

		CHECK_RC(create_ex(ty, PD, 0, 0), 0, "%s PD", tn);
		CHECK_RC(create_ex(ty, PD | IBV_QP_INIT_ATTR_CREATE_FLAGS, 0,
				   0), 0,
			 "%s PD|CREATE_FLAGS, no flag", tn);
		CHECK_RC(create_ex(ty, PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
				   0, 0), 0,
			 "%s PD|SEND_OPS_FLAGS, no opcode", tn);
		CHECK_RC(create_ex(ty, PD | IBV_QP_INIT_ATTR_CREATE_FLAGS |
				   IBV_QP_INIT_ATTR_SEND_OPS_FLAGS, 0,
				   type_ops(ty)), 0,
			 "%s PD|CREATE_FLAGS|SEND_OPS_FLAGS, every opcode of the type",
			 tn);
		CHECK_RC(create_ex(ty, 0, 0, 0), -EINVAL,
			 "%s without PD", tn);
		/* only an XRC_RECV QP has a domain: ignored, as rdma-core */
		CHECK_RC(create_ex(ty, PD | IBV_QP_INIT_ATTR_XRCD, 0, 0), 0,
			 "%s PD|XRCD (no domain): ignored", tn);
		for (i = 0; i < ARRAY_SIZE(bits); i++)
			CHECK_RC(create_ex(ty, PD | bits[i].bit, 0, 0),
				 -EOPNOTSUPP, "%s PD|%s", tn,
				 bits[i].name);
		for (i = 0; i < ARRAY_SIZE(flags); i++)
			CHECK_RC(create_ex(ty, PD |
					   IBV_QP_INIT_ATTR_CREATE_FLAGS,
					   flags[i].flag, 0), -EOPNOTSUPP,
				 "%s create flag %s", tn,
				 flags[i].name);
		for (i = 0; i < ARRAY_SIZE(ops); i++) {
			bool ok = ops[i].op & type_ops(ty);

			CHECK_RC(create_ex(ty, PD |
					   IBV_QP_INIT_ATTR_SEND_OPS_FLAGS, 0,
					   ops[i].op), ok ? 0 : -EOPNOTSUPP,
				 "%s send op %s", tn, ops[i].name);
		}
	}
	CHECK_RC(create_ex(IBV_QPT_RAW_PACKET, PD, 0, 0), -EOPNOTSUPP,
		 "RAW_PACKET QP");
	/* XRC QPs: tools/testing/lib/xverbs/xv_xrc.c */
	CHECK_RC(create_ex(IBV_QPT_XRC_SEND, PD, 0, 0), 0,
		 "XRC_SEND QP (its receive caps ignored)");
	CHECK_RC(create_ex(IBV_QPT_XRC_RECV, PD, 0, 0), -EINVAL,
		 "XRC_RECV QP without a domain: EINVAL");
}

static void t_send_ops(void)
{
	size_t t;

	for (t = 0; t < ARRAY_SIZE(types); t++) {
		struct ibv_qp_init_attr_ex ax;
		struct ibv_qp_ex *qx;
		struct ibv_qp *qp;

		memset(&ax, 0, sizeof(ax));
		ax.send_cq = cq;
		ax.recv_cq = cq;
		ax.qp_type = types[t];
		ax.cap.max_send_wr = 4;
		ax.cap.max_recv_wr = 4;
		ax.cap.max_send_sge = 1;
		ax.cap.max_recv_sge = 1;
		ax.pd = pd;
		ax.comp_mask = IBV_QP_INIT_ATTR_PD |
			       IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		ax.send_ops_flags = type_ops(types[t]);
		qp = ibv_create_qp_ex(ctx, &ax);
		if (!CHECK(qp, "%s created", type_name[types[t]]))
			continue;
		qx = ibv_qp_to_qp_ex(qp);
		if (CHECK(qx, "%s ibv_qp_to_qp_ex",
			  type_name[types[t]])) {
			CHECK(qx->wr_start && qx->wr_complete && qx->wr_send &&
			      qx->wr_send_imm && qx->wr_set_sge,
			      "%s has the ibv_wr_* API",
			      type_name[types[t]]);
			if (types[t] == IBV_QPT_UD)
				CHECK(qx->wr_set_ud_addr,
				      "UD has wr_set_ud_addr");
			if (types[t] == IBV_QPT_RC)
				CHECK(qx->wr_rdma_write && qx->wr_rdma_read &&
				      qx->wr_atomic_cmp_swp &&
				      qx->wr_atomic_fetch_add,
				      "RC has the RDMA and atomic wr_*");
		}
		CHECK_RC(ibv_destroy_qp(qp) ? -errno : 0, 0,
			 "%s destroyed", type_name[types[t]]);
	}
}

/* post the QP's whole receive queue, then one more */
static void fill_rq(struct ibv_qp *qp, const struct ibv_qp_cap *c,
		    struct ibv_mr *mr)
{
	struct ibv_sge sg[c->max_recv_sge ? c->max_recv_sge : 1];
	struct ibv_recv_wr wr, *bad;
	uint32_t i, n = 0;
	int ret = 0;

	for (i = 0; i < c->max_recv_sge; i++) {
		sg[i].addr = (uintptr_t)mr->addr + i;
		sg[i].length = 1;
		sg[i].lkey = mr->lkey;
	}
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = sg;
	wr.num_sge = (int)c->max_recv_sge;
	for (n = 0; n < c->max_recv_wr && !ret; n++) {
		wr.wr_id = n;
		ret = ibv_post_recv(qp, &wr, &bad);
	}
	CHECK_RC(-ret, 0, "%u receives of %u SGEs posted", c->max_recv_wr,
		 c->max_recv_sge);
	CHECK_RC(-ibv_post_recv(qp, &wr, &bad), -ENOMEM,
		 "one receive beyond max_recv_wr");
}

/* post the QP's whole send queue (UD to itself, unsignaled), one more */
static void fill_sq(struct ibv_qp *qp, const struct ibv_qp_cap *c,
		    struct ibv_mr *mr, struct ibv_ah *ah)
{
	struct ibv_sge sg[c->max_send_sge ? c->max_send_sge : 1];
	struct ibv_sge isg = {
		.addr = (uintptr_t)mr->addr, .length = c->max_inline_data,
	};
	struct ibv_send_wr wr, *bad;
	uint32_t i, n = 0;
	int ret = 0;

	for (i = 0; i < c->max_send_sge; i++) {
		sg[i].addr = (uintptr_t)mr->addr + i;
		sg[i].length = 1;
		sg[i].lkey = mr->lkey;
	}
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_SEND;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = qp->qp_num;
	wr.wr.ud.remote_qkey = 0x11111111;
	for (n = 0; n < c->max_send_wr && !ret; n++) {
		wr.wr_id = n;
		if (n & 1) {
			wr.sg_list = &isg;
			wr.num_sge = 1;
			wr.send_flags = IBV_SEND_INLINE;
		} else {
			wr.sg_list = sg;
			wr.num_sge = (int)c->max_send_sge;
			wr.send_flags = 0;
		}
		ret = ibv_post_send(qp, &wr, &bad);
	}
	CHECK_RC(-ret, 0,
		 "%u sends of %u SGEs or %u inline bytes posted",
		 c->max_send_wr, c->max_send_sge, c->max_inline_data);
	CHECK_RC(-ibv_post_send(qp, &wr, &bad), -ENOMEM,
		 "one send beyond max_send_wr");
}

static void t_fill(void)
{
	struct ibv_qp_init_attr a;
	struct ibv_ah_attr ah_attr;
	struct ibv_qp *rq_qp, *sq_qp;
	union ibv_gid g;
	struct ibv_ah *ah;
	struct ibv_mr *mr;
	static char buf[4096];

	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		xt_bail(errno, "ibv_reg_mr");
	memset(&a, 0, sizeof(a));
	a.send_cq = cq;
	a.recv_cq = cq;
	a.qp_type = IBV_QPT_UD;
	a.cap.max_send_wr = (uint32_t)da.max_qp_wr;
	a.cap.max_recv_wr = (uint32_t)da.max_qp_wr;
	a.cap.max_send_sge = (uint32_t)da.max_sge;
	a.cap.max_recv_sge = (uint32_t)da.max_sge;
	a.cap.max_inline_data = XV_INLINE;
	rq_qp = ibv_create_qp(pd, &a);
	if (!rq_qp)
		xt_bail(errno, "UD QP at the limits");
	if (xt_qp_init(rq_qp, 0x11111111))
		xt_bail(errno, "UD QP to INIT");
	fill_rq(rq_qp, &a.cap, mr);
	CHECK_RC(ibv_destroy_qp(rq_qp) ? -errno : 0, 0,
		 "QP with a full receive queue destroyed");

	a.cap.max_send_wr = (uint32_t)da.max_qp_wr;
	a.cap.max_recv_wr = 1;
	a.cap.max_send_sge = (uint32_t)da.max_sge;
	a.cap.max_recv_sge = 1;
	a.cap.max_inline_data = XV_INLINE;
	a.sq_sig_all = 0;
	sq_qp = ibv_create_qp(pd, &a);
	if (!sq_qp)
		xt_bail(errno, "UD QP at the send limits");
	if (xt_ud_rts(sq_qp, 0x11111111) || ibv_query_gid(ctx, 1, 0, &g))
		xt_bail(errno, "UD QP to RTS");
	memset(&ah_attr, 0, sizeof(ah_attr));
	ah_attr.is_global = 1;
	ah_attr.grh.dgid = g;
	ah_attr.grh.hop_limit = 64;
	ah_attr.port_num = 1;
	ah = ibv_create_ah(pd, &ah_attr);
	if (!ah)
		xt_bail(errno, "ibv_create_ah");
	fill_sq(sq_qp, &a.cap, mr, ah);
	CHECK_RC(ibv_destroy_qp(sq_qp) ? -errno : 0, 0,
		 "QP with a full send queue destroyed");
	CHECK_RC(-ibv_destroy_ah(ah), 0, "AH destroyed");
	CHECK_RC(-ibv_dereg_mr(mr), 0, "MR deregistered");
}

static bool setup(void)
{
	struct ibv_device **list;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		return false;
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev_name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx || ibv_query_device(ctx, &da))
		return false;
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 64, NULL, NULL, 0) : NULL;
	return cq;
}

static void teardown(void)
{
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	if (ctx)
		ibv_close_device(ctx);
}

static const struct xt_subtest tests[] = {
	XT_SUBTEST(sweep, 0, "QPs within max_qp_wr/8, max_sge/2, max_inline"),
	XT_SUBTEST(limits, 0, "every cap at its limit; one beyond is EINVAL"),
	XT_SUBTEST(comp_mask, 0, "ibv_create_qp_ex's comp_mask and flags"),
	XT_SUBTEST(send_ops, 0, "SEND_OPS_FLAGS gives the ibv_wr_* API"),
	XT_SUBTEST(fill, 0, "the caps of a QP at the limits hold"),
};

static struct xt_suite suite = {
	.tests = tests, .n = ARRAY_SIZE(tests), .timeout = 300,
	.setup = setup, .teardown = teardown,
};

int main(int argc, char **argv)
{
	const struct xt_opt opts[] = {
		{ .c = 'd', .arg = "IBDEV", .str = &dev_name },
		{ .c = 's', .arg = "SEED", .num = &seed },
		{ .c = 'n', .arg = "N", .num = &per_combo, .min = 4 },
	};
	int ret;

	ret = xt_main(&suite, opts, ARRAY_SIZE(opts), &argc, &argv,
		      "xv_qpcaps");
	if (ret >= 0)
		return ret;
	xt_run(&suite, argc, argv);
	return xt_done();
}
