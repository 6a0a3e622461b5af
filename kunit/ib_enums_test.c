// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite xrdma_ib_enums: every value translation of xrdma_ib
 * (drivers/ib/xib_enums.c) between ib_core's enums and xrdma's, in both
 * directions where both exist.  Each function is run over every value of
 * a range well beyond its enum (every single bit for flags): a value in
 * the expectation table below must map to its partner, any other value
 * must be refused with a negative errno.
 *
 * The IBTA 1.5 values (IB_WR_ATOMIC_WRITE, IB_ACCESS_FLUSH_*, the 64-bit
 * IB_DEVICE_ATOMIC_WRITE/FLUSH_*) exist from Linux 6.2 on; before, their
 * include/xrdma/compat.h stand-ins are -1 and 0 and the tables below hold
 * them only where this kernel has them: the KUnit kernel (6.1) checks that
 * they are refused (device capabilities: not offered).
 *
 * xib_enums.c needs only headers (<rdma/ib_verbs.h>, xrdma_verbs.h), so it
 * is included here and the KUnit kernel needs no CONFIG_INFINIBAND.
 */
#include <kunit/test.h>
#include "../drivers/ib/xib_enums.c"

struct kt_pair {
	u32 from;
	u64 to;		/* 64 bits: IB_DEVICE_* of Linux 6.2+ */
};

#define KT(a, b) { a, b }

/* an enum translation: @fn(v) for every v below @range and some far off */
static void kt_check_enum(struct kunit *test, const char *name,
			  int (*fn)(u32), const struct kt_pair *t, size_t n,
			  u32 range)
{
	static const u32 far[] = { 0x100, 0x1000, 0x7fffffff, 0x80000000,
				   0xffffffff };
	size_t i, j;
	u32 v;

	for (i = 0; i < range + ARRAY_SIZE(far); i++) {
		int want = -1, got;

		v = i < range ? i : far[i - range];
		for (j = 0; j < n; j++)
			if (t[j].from == v)
				want = (int)t[j].to;
		got = fn(v);
		if (want >= 0)
			KUNIT_EXPECT_EQ_MSG(test, got, want, "%s(%u)", name, v);
		else
			KUNIT_EXPECT_LT_MSG(test, got, 0,
					    "%s(%u) not refused", name, v);
	}
}

/* a flag translation: each bit alone, all known bits together, + unknown */
static void kt_check_flags(struct kunit *test, const char *name,
			   s64 (*fn)(u32), const struct kt_pair *t, size_t n)
{
	u32 all_from = 0, unknown = 0, bit;
	u64 all_to = 0;
	size_t j;
	int b;

	for (j = 0; j < n; j++) {
		all_from |= t[j].from;
		all_to |= t[j].to;
	}
	for (b = 0; b < 32; b++) {
		s64 want = -1;

		bit = BIT(b);
		for (j = 0; j < n; j++)
			if (t[j].from == bit)
				want = t[j].to;
		if (want < 0)
			unknown = unknown ?: bit;
		if (want >= 0)
			KUNIT_EXPECT_EQ_MSG(test, fn(bit), want, "%s(%#x)",
					    name, bit);
		else
			KUNIT_EXPECT_LT_MSG(test, fn(bit), 0,
					    "%s(%#x) not refused", name, bit);
	}
	KUNIT_EXPECT_EQ_MSG(test, fn(0), 0, "%s(0)", name);
	KUNIT_EXPECT_EQ_MSG(test, fn(all_from), (s64)all_to, "%s(all)", name);
	if (unknown)
		KUNIT_EXPECT_LT_MSG(test, fn(all_from | unknown), 0,
				    "%s(all | %#x) not refused", name, unknown);
}

/* adapters: every translation as s64 (*)(u32) for kt_check_flags */
#define KT_S64(f) static s64 f##_64(u32 v) { return f(v); }
KT_S64(xib_send_flags_to_xrdma)
KT_S64(xib_wc_flags_to_ib)
KT_S64(xib_cq_notify_to_xrdma)
KT_S64(xib_qp_mask_to_xrdma)
KT_S64(xib_qp_mask_to_ib)
KT_S64(xib_access_to_ib)
KT_S64(xib_srq_mask_to_xrdma)

static void kt_swap(const struct kt_pair *t, struct kt_pair *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		r[i].from = (u32)t[i].to;
		r[i].to = t[i].from;
	}
}

static void enums_wr_opcode(struct kunit *test)
{
	static const struct kt_pair t[] = {
		KT(IB_WR_RDMA_WRITE, XRDMA_WR_RDMA_WRITE),
		KT(IB_WR_RDMA_WRITE_WITH_IMM, XRDMA_WR_RDMA_WRITE_WITH_IMM),
		KT(IB_WR_SEND, XRDMA_WR_SEND),
		KT(IB_WR_SEND_WITH_IMM, XRDMA_WR_SEND_WITH_IMM),
		KT(IB_WR_RDMA_READ, XRDMA_WR_RDMA_READ),
		KT(IB_WR_ATOMIC_CMP_AND_SWP, XRDMA_WR_ATOMIC_CMP_AND_SWP),
		KT(IB_WR_ATOMIC_FETCH_AND_ADD, XRDMA_WR_ATOMIC_FETCH_AND_ADD),
		KT(IB_WR_LOCAL_INV, XRDMA_WR_LOCAL_INV),
		KT(IB_WR_SEND_WITH_INV, XRDMA_WR_SEND_WITH_INV),
		KT(IB_WR_REG_MR, XRDMA_WR_REG_MR),
	};
	struct kt_pair all[ARRAY_SIZE(t) + 1];
	size_t n = ARRAY_SIZE(t);

	memcpy(all, t, sizeof(t));
	/*
	 * Linux 6.2+: ATOMIC WRITE; FLUSH never (no ib_verbs.h work request
	 * carries its type, level and length).  Before, the stand-in -1 is
	 * no opcode (0xffffffff: refused by kt_check_enum()).
	 */
	if (XRDMA_IB_WR_ATOMIC_WRITE >= 0) {
		all[n++] = (struct kt_pair)KT(XRDMA_IB_WR_ATOMIC_WRITE,
					      XRDMA_WR_ATOMIC_WRITE);
		KUNIT_EXPECT_EQ(test,
				xib_wr_opcode_to_xrdma(XRDMA_IB_WR_ATOMIC_WRITE),
				XRDMA_WR_ATOMIC_WRITE);
		KUNIT_EXPECT_EQ(test, xib_wr_opcode_to_xrdma(XRDMA_IB_WR_FLUSH),
				-EINVAL);
	}
	KUNIT_EXPECT_EQ(test, xib_wr_opcode_to_xrdma(U32_MAX), -EINVAL);

	/* the values that differ between the two (the reason for the table) */
	KUNIT_EXPECT_EQ(test, xib_wr_opcode_to_xrdma(IB_WR_LOCAL_INV),
			XRDMA_WR_LOCAL_INV);
	KUNIT_EXPECT_LT(test, xib_wr_opcode_to_xrdma(IB_WR_BIND_MW), 0);
	KUNIT_EXPECT_LT(test, xib_wr_opcode_to_xrdma(IB_WR_LSO), 0);
	KUNIT_EXPECT_LT(test, xib_wr_opcode_to_xrdma(IB_WR_REG_MR_INTEGRITY), 0);
	kt_check_enum(test, "xib_wr_opcode_to_xrdma", xib_wr_opcode_to_xrdma,
		      all, n, 0x100);
}

static void enums_wc(struct kunit *test)
{
	static const struct kt_pair status[] = {
		KT(XRDMA_WC_SUCCESS, IB_WC_SUCCESS),
		KT(XRDMA_WC_LOC_LEN_ERR, IB_WC_LOC_LEN_ERR),
		KT(XRDMA_WC_LOC_QP_OP_ERR, IB_WC_LOC_QP_OP_ERR),
		KT(XRDMA_WC_LOC_EEC_OP_ERR, IB_WC_LOC_EEC_OP_ERR),
		KT(XRDMA_WC_LOC_PROT_ERR, IB_WC_LOC_PROT_ERR),
		KT(XRDMA_WC_WR_FLUSH_ERR, IB_WC_WR_FLUSH_ERR),
		KT(XRDMA_WC_MW_BIND_ERR, IB_WC_MW_BIND_ERR),
		KT(XRDMA_WC_BAD_RESP_ERR, IB_WC_BAD_RESP_ERR),
		KT(XRDMA_WC_LOC_ACCESS_ERR, IB_WC_LOC_ACCESS_ERR),
		KT(XRDMA_WC_REM_INV_REQ_ERR, IB_WC_REM_INV_REQ_ERR),
		KT(XRDMA_WC_REM_ACCESS_ERR, IB_WC_REM_ACCESS_ERR),
		KT(XRDMA_WC_REM_OP_ERR, IB_WC_REM_OP_ERR),
		KT(XRDMA_WC_RETRY_EXC_ERR, IB_WC_RETRY_EXC_ERR),
		KT(XRDMA_WC_RNR_RETRY_EXC_ERR, IB_WC_RNR_RETRY_EXC_ERR),
		KT(XRDMA_WC_LOC_RDD_VIOL_ERR, IB_WC_LOC_RDD_VIOL_ERR),
		KT(XRDMA_WC_REM_INV_RD_REQ_ERR, IB_WC_REM_INV_RD_REQ_ERR),
		KT(XRDMA_WC_REM_ABORT_ERR, IB_WC_REM_ABORT_ERR),
		KT(XRDMA_WC_INV_EECN_ERR, IB_WC_INV_EECN_ERR),
		KT(XRDMA_WC_INV_EEC_STATE_ERR, IB_WC_INV_EEC_STATE_ERR),
		KT(XRDMA_WC_FATAL_ERR, IB_WC_FATAL_ERR),
		KT(XRDMA_WC_RESP_TIMEOUT_ERR, IB_WC_RESP_TIMEOUT_ERR),
		KT(XRDMA_WC_GENERAL_ERR, IB_WC_GENERAL_ERR),
	};
	static const struct kt_pair opcode[] = {
		KT(XRDMA_WC_SEND, IB_WC_SEND),
		KT(XRDMA_WC_RDMA_WRITE, IB_WC_RDMA_WRITE),
		KT(XRDMA_WC_RDMA_READ, IB_WC_RDMA_READ),
		KT(XRDMA_WC_COMP_SWAP, IB_WC_COMP_SWAP),
		KT(XRDMA_WC_FETCH_ADD, IB_WC_FETCH_ADD),
		KT(XRDMA_WC_LOCAL_INV, IB_WC_LOCAL_INV),
		KT(XRDMA_WC_REG_MR, IB_WC_REG_MR),
		KT(XRDMA_WC_RECV, IB_WC_RECV),
		KT(XRDMA_WC_RECV_RDMA_WITH_IMM, IB_WC_RECV_RDMA_WITH_IMM),
	};
	struct kt_pair op_all[ARRAY_SIZE(opcode) + 2];
	size_t n_op = ARRAY_SIZE(opcode);
	static const struct kt_pair flags[] = {
		KT(XRDMA_WC_GRH, IB_WC_GRH),
		KT(XRDMA_WC_WITH_IMM, IB_WC_WITH_IMM),
		KT(XRDMA_WC_WITH_INVALIDATE, IB_WC_WITH_INVALIDATE),
		KT(XRDMA_WC_WITH_NETWORK_HDR_TYPE, IB_WC_WITH_NETWORK_HDR_TYPE),
	};
	static const struct kt_pair net[] = {
		KT(XRDMA_NETWORK_ROCE_V1, RDMA_NETWORK_ROCE_V1),
		KT(XRDMA_NETWORK_IPV4, RDMA_NETWORK_IPV4),
		KT(XRDMA_NETWORK_IPV6, RDMA_NETWORK_IPV6),
	};

	/* ATOMIC WRITE and FLUSH completions: Linux 6.2+, refused before */
	memcpy(op_all, opcode, sizeof(opcode));
	if (XRDMA_IB_WC_ATOMIC_WRITE >= 0) {
		op_all[n_op++] = (struct kt_pair)KT(XRDMA_WC_ATOMIC_WRITE,
						    XRDMA_IB_WC_ATOMIC_WRITE);
		op_all[n_op++] = (struct kt_pair)KT(XRDMA_WC_FLUSH,
						    XRDMA_IB_WC_FLUSH);
	} else {
		KUNIT_EXPECT_EQ(test, xib_wc_opcode_to_ib(XRDMA_WC_ATOMIC_WRITE),
				-EINVAL);
		KUNIT_EXPECT_EQ(test, xib_wc_opcode_to_ib(XRDMA_WC_FLUSH),
				-EINVAL);
	}
	/* REG_MR's completion differs: xrdma has no LSO before it */
	KUNIT_EXPECT_EQ(test, xib_wc_opcode_to_ib(XRDMA_WC_REG_MR),
			IB_WC_REG_MR);
	kt_check_enum(test, "xib_wc_status_to_ib", xib_wc_status_to_ib, status,
		      ARRAY_SIZE(status), 0x100);
	kt_check_enum(test, "xib_wc_opcode_to_ib", xib_wc_opcode_to_ib, op_all,
		      n_op, 0x200);
	kt_check_flags(test, "xib_wc_flags_to_ib", xib_wc_flags_to_ib_64, flags,
		       ARRAY_SIZE(flags));
	kt_check_enum(test, "xib_network_type_to_ib", xib_network_type_to_ib, net,
		      ARRAY_SIZE(net), 0x100);
}

static const struct kt_pair kt_send[] = {
	KT(IB_SEND_FENCE, XRDMA_SEND_FENCE),
	KT(IB_SEND_SIGNALED, XRDMA_SEND_SIGNALED),
	KT(IB_SEND_SOLICITED, XRDMA_SEND_SOLICITED),
	KT(IB_SEND_INLINE, XRDMA_SEND_INLINE),
};

static const struct kt_pair kt_notify[] = {
	KT(IB_CQ_SOLICITED, XRDMA_CQ_SOLICITED),
	KT(IB_CQ_NEXT_COMP, XRDMA_CQ_NEXT_COMP),
	KT(IB_CQ_REPORT_MISSED_EVENTS, XRDMA_CQ_REPORT_MISSED_EVENTS),
};

static const struct kt_pair kt_srq[] = {
	KT(IB_SRQ_MAX_WR, XRDMA_SRQ_MAX_WR),
	KT(IB_SRQ_LIMIT, XRDMA_SRQ_LIMIT),
};

/* send flags ib_core has and xrdma has not (the tables: enums_table) */
static void enums_send_cq_flags(struct kunit *test)
{
	KUNIT_EXPECT_LT(test, xib_send_flags_to_xrdma(IB_SEND_IP_CSUM), 0);
}

static const struct kt_pair kt_qp_states[] = {
	KT(IB_QPS_RESET, XRDMA_QPS_RESET),
	KT(IB_QPS_INIT, XRDMA_QPS_INIT),
	KT(IB_QPS_RTR, XRDMA_QPS_RTR),
	KT(IB_QPS_RTS, XRDMA_QPS_RTS),
	KT(IB_QPS_SQD, XRDMA_QPS_SQD),
	KT(IB_QPS_SQE, XRDMA_QPS_SQE),
	KT(IB_QPS_ERR, XRDMA_QPS_ERR),
};

static const struct kt_pair kt_qp_types[] = {
	KT(IB_QPT_GSI, XRDMA_QPT_GSI),
	KT(IB_QPT_RC, XRDMA_QPT_RC),
	KT(IB_QPT_UC, XRDMA_QPT_UC),
	KT(IB_QPT_UD, XRDMA_QPT_UD),
};

static const struct kt_pair kt_qp_mask[] = {
	KT(IB_QP_STATE, XRDMA_QP_STATE),
	KT(IB_QP_CUR_STATE, XRDMA_QP_CUR_STATE),
	KT(IB_QP_EN_SQD_ASYNC_NOTIFY, XRDMA_QP_EN_SQD_ASYNC_NOTIFY),
	KT(IB_QP_ACCESS_FLAGS, XRDMA_QP_ACCESS_FLAGS),
	KT(IB_QP_PKEY_INDEX, XRDMA_QP_PKEY_INDEX),
	KT(IB_QP_PORT, XRDMA_QP_PORT),
	KT(IB_QP_QKEY, XRDMA_QP_QKEY),
	KT(IB_QP_AV, XRDMA_QP_AV),
	KT(IB_QP_PATH_MTU, XRDMA_QP_PATH_MTU),
	KT(IB_QP_TIMEOUT, XRDMA_QP_TIMEOUT),
	KT(IB_QP_RETRY_CNT, XRDMA_QP_RETRY_CNT),
	KT(IB_QP_RNR_RETRY, XRDMA_QP_RNR_RETRY),
	KT(IB_QP_RQ_PSN, XRDMA_QP_RQ_PSN),
	KT(IB_QP_MAX_QP_RD_ATOMIC, XRDMA_QP_MAX_QP_RD_ATOMIC),
	KT(IB_QP_ALT_PATH, XRDMA_QP_ALT_PATH),
	KT(IB_QP_MIN_RNR_TIMER, XRDMA_QP_MIN_RNR_TIMER),
	KT(IB_QP_SQ_PSN, XRDMA_QP_SQ_PSN),
	KT(IB_QP_MAX_DEST_RD_ATOMIC, XRDMA_QP_MAX_DEST_RD_ATOMIC),
	KT(IB_QP_PATH_MIG_STATE, XRDMA_QP_PATH_MIG_STATE),
	KT(IB_QP_CAP, XRDMA_QP_CAP),
	KT(IB_QP_DEST_QPN, XRDMA_QP_DEST_QPN),
};

/*
 * The translations whose tables do not depend on the kernel, one parameter
 * each: @fn over its table (read right to left if @swap).
 */
struct kt_xlate {
	const char *name;
	int (*to_enum)(u32 v);		/* an enum translation, or */
	s64 (*to_flags)(u32 v);		/* a flag translation */
	const struct kt_pair *t;
	size_t n;
	u32 range;			/* enums: every value below it checked */
	bool swap;
};

static const struct kt_xlate kt_xlates[] = {
	{ .name = "xib_send_flags_to_xrdma",
	  .to_flags = xib_send_flags_to_xrdma_64,
	  .t = kt_send, .n = ARRAY_SIZE(kt_send) },
	{ .name = "xib_cq_notify_to_xrdma",
	  .to_flags = xib_cq_notify_to_xrdma_64,
	  .t = kt_notify, .n = ARRAY_SIZE(kt_notify) },
	{ .name = "xib_srq_mask_to_xrdma",
	  .to_flags = xib_srq_mask_to_xrdma_64,
	  .t = kt_srq, .n = ARRAY_SIZE(kt_srq) },
	{ .name = "xib_qp_state_to_xrdma",
	  .to_enum = xib_qp_state_to_xrdma, .range = 0x100,
	  .t = kt_qp_states, .n = ARRAY_SIZE(kt_qp_states) },
	{ .name = "xib_qp_state_to_ib",
	  .to_enum = xib_qp_state_to_ib, .range = 0x100,
	  .t = kt_qp_states, .n = ARRAY_SIZE(kt_qp_states), .swap = true },
	{ .name = "xib_qp_type_to_xrdma",
	  .to_enum = xib_qp_type_to_xrdma, .range = 0x2000,
	  .t = kt_qp_types, .n = ARRAY_SIZE(kt_qp_types) },
	{ .name = "xib_qp_type_to_ib",
	  .to_enum = xib_qp_type_to_ib, .range = 0x100,
	  .t = kt_qp_types, .n = ARRAY_SIZE(kt_qp_types), .swap = true },
	{ .name = "xib_qp_mask_to_xrdma",
	  .to_flags = xib_qp_mask_to_xrdma_64,
	  .t = kt_qp_mask, .n = ARRAY_SIZE(kt_qp_mask) },
	{ .name = "xib_qp_mask_to_ib",
	  .to_flags = xib_qp_mask_to_ib_64,
	  .t = kt_qp_mask, .n = ARRAY_SIZE(kt_qp_mask), .swap = true },
};

static void kt_xlate_desc(const struct kt_xlate *x, char *desc)
{
	strscpy(desc, x->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kt_xlate, kt_xlates, kt_xlate_desc);

static void enums_table(struct kunit *test)
{
	const struct kt_xlate *x = test->param_value;
	struct kt_pair r[ARRAY_SIZE(kt_qp_mask)];
	const struct kt_pair *t = x->t;

	if (x->swap) {
		KUNIT_ASSERT_LE(test, x->n, ARRAY_SIZE(r));
		kt_swap(x->t, r, x->n);
		t = r;
	}
	if (x->to_enum)
		kt_check_enum(test, x->name, x->to_enum, t, x->n, x->range);
	else
		kt_check_flags(test, x->name, x->to_flags, t, x->n);
}

/* QP types and attributes ib_core has and xrdma has not */
static void enums_qp(struct kunit *test)
{
	/* ib_core types xrdma has not: EOPNOTSUPP, not EINVAL */
	KUNIT_EXPECT_EQ(test, xib_qp_type_to_xrdma(IB_QPT_SMI), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, xib_qp_type_to_xrdma(IB_QPT_XRC_INI),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, xib_qp_type_to_xrdma(IB_QPT_RAW_PACKET),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, xib_qp_mask_to_xrdma(IB_QP_RATE_LIMIT),
			-EOPNOTSUPP);
}

static const struct kt_pair kt_access[] = {
	KT(IB_ACCESS_LOCAL_WRITE, XRDMA_ACCESS_LOCAL_WRITE),
	KT(IB_ACCESS_REMOTE_WRITE, XRDMA_ACCESS_REMOTE_WRITE),
	KT(IB_ACCESS_REMOTE_READ, XRDMA_ACCESS_REMOTE_READ),
	KT(IB_ACCESS_REMOTE_ATOMIC, XRDMA_ACCESS_REMOTE_ATOMIC),
	KT(IB_ACCESS_MW_BIND, XRDMA_ACCESS_MW_BIND),
};

static void enums_access_mtu(struct kunit *test)
{
	static const struct kt_pair mtu[] = {
		KT(IB_MTU_256, XRDMA_MTU_256),
		KT(IB_MTU_512, XRDMA_MTU_512),
		KT(IB_MTU_1024, XRDMA_MTU_1024),
		KT(IB_MTU_2048, XRDMA_MTU_2048),
		KT(IB_MTU_4096, XRDMA_MTU_4096),
	};
	struct kt_pair acc[ARRAY_SIZE(kt_access) + 2], r[ARRAY_SIZE(acc)];
	size_t n = ARRAY_SIZE(kt_access);
	u32 all = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		  IB_ACCESS_REMOTE_READ;
	int b;

	/* the FLUSH placement types: Linux 6.2+, refused both ways before */
	memcpy(acc, kt_access, sizeof(kt_access));
	if (XRDMA_IB_ACCESS_FLUSH_GLOBAL) {
		acc[n++] = (struct kt_pair)KT(XRDMA_IB_ACCESS_FLUSH_GLOBAL,
					      XRDMA_ACCESS_FLUSH_GLOBAL);
		acc[n++] = (struct kt_pair)KT(XRDMA_IB_ACCESS_FLUSH_PERSISTENT,
					      XRDMA_ACCESS_FLUSH_PERSISTENT);
		KUNIT_EXPECT_EQ(test,
				xib_access_to_xrdma(XRDMA_IB_ACCESS_FLUSH_GLOBAL |
						    XRDMA_IB_ACCESS_FLUSH_PERSISTENT),
				XRDMA_ACCESS_FLUSH);
		KUNIT_EXPECT_EQ(test, xib_access_to_ib(XRDMA_ACCESS_FLUSH),
				XRDMA_IB_ACCESS_FLUSH_GLOBAL |
				XRDMA_IB_ACCESS_FLUSH_PERSISTENT);
	} else {
		KUNIT_EXPECT_EQ(test, xib_access_to_ib(XRDMA_ACCESS_FLUSH_GLOBAL),
				-EINVAL);
		KUNIT_EXPECT_EQ(test,
				xib_access_to_ib(XRDMA_ACCESS_FLUSH_PERSISTENT),
				-EINVAL);
		/* bits 8 and 9, as IB_UVERBS_ACCESS_FLUSH_* on 6.2+ */
		KUNIT_EXPECT_EQ(test, xib_access_to_xrdma(BIT(8)), -EOPNOTSUPP);
		KUNIT_EXPECT_EQ(test, xib_access_to_xrdma(BIT(9)), -EOPNOTSUPP);
	}

	/* ib to xrdma: optional bits are dropped, the others refused */
	for (b = 0; b < 32; b++) {
		u32 bit = BIT(b);
		int want = -1;
		size_t j;

		for (j = 0; j < n; j++)
			if (acc[j].from == bit)
				want = (int)acc[j].to;
		if (bit & IB_ACCESS_OPTIONAL)
			want = 0;
		if (want >= 0)
			KUNIT_EXPECT_EQ_MSG(test, xib_access_to_xrdma(bit),
					    want, "access %#x", bit);
		else
			KUNIT_EXPECT_EQ_MSG(test, xib_access_to_xrdma(bit),
					    -EOPNOTSUPP, "access %#x", bit);
	}
	KUNIT_EXPECT_EQ(test, xib_access_to_xrdma(all |
						  IB_ACCESS_RELAXED_ORDERING),
			XRDMA_ACCESS_LOCAL_WRITE | XRDMA_ACCESS_REMOTE_WRITE |
			XRDMA_ACCESS_REMOTE_READ);
	KUNIT_EXPECT_EQ(test, xib_access_to_xrdma(all | IB_ACCESS_ON_DEMAND),
			-EOPNOTSUPP);
	kt_swap(acc, r, n);
	kt_check_flags(test, "xib_access_to_ib", xib_access_to_ib_64, r, n);

	kt_check_enum(test, "xib_mtu_to_xrdma", xib_mtu_to_xrdma, mtu,
		      ARRAY_SIZE(mtu), 0x100);
	{
		struct kt_pair rm[ARRAY_SIZE(mtu)];

		kt_swap(mtu, rm, ARRAY_SIZE(mtu));
		kt_check_enum(test, "xib_mtu_to_ib", xib_mtu_to_ib, rm,
			      ARRAY_SIZE(rm), 0x100);
	}
}

static void enums_device(struct kunit *test)
{
	static const struct kt_pair events[] = {
		KT(XRDMA_EVENT_CQ_ERR, IB_EVENT_CQ_ERR),
		KT(XRDMA_EVENT_QP_FATAL, IB_EVENT_QP_FATAL),
		KT(XRDMA_EVENT_QP_REQ_ERR, IB_EVENT_QP_REQ_ERR),
		KT(XRDMA_EVENT_QP_ACCESS_ERR, IB_EVENT_QP_ACCESS_ERR),
		KT(XRDMA_EVENT_COMM_EST, IB_EVENT_COMM_EST),
		KT(XRDMA_EVENT_SQ_DRAINED, IB_EVENT_SQ_DRAINED),
		KT(XRDMA_EVENT_QP_LAST_WQE_REACHED,
		   IB_EVENT_QP_LAST_WQE_REACHED),
		KT(XRDMA_EVENT_SRQ_ERR, IB_EVENT_SRQ_ERR),
		KT(XRDMA_EVENT_SRQ_LIMIT_REACHED, IB_EVENT_SRQ_LIMIT_REACHED),
		KT(XRDMA_EVENT_PORT_ACTIVE, IB_EVENT_PORT_ACTIVE),
		KT(XRDMA_EVENT_PORT_ERR, IB_EVENT_PORT_ERR),
		KT(XRDMA_EVENT_DEVICE_FATAL, IB_EVENT_DEVICE_FATAL),
	};
	static const struct kt_pair gid[] = {
		KT(IB_GID_TYPE_ROCE, XRDMA_GID_TYPE_ROCE_V1),
		KT(IB_GID_TYPE_ROCE_UDP_ENCAP, XRDMA_GID_TYPE_ROCE_V2),
	};
	static const struct kt_pair port[] = {
		KT(XRDMA_PORT_NOP, IB_PORT_NOP),
		KT(XRDMA_PORT_DOWN, IB_PORT_DOWN),
		KT(XRDMA_PORT_INIT, IB_PORT_INIT),
		KT(XRDMA_PORT_ARMED, IB_PORT_ARMED),
		KT(XRDMA_PORT_ACTIVE, IB_PORT_ACTIVE),
	};
	static const struct kt_pair atomic[] = {
		KT(XRDMA_ATOMIC_NONE, IB_ATOMIC_NONE),
		KT(XRDMA_ATOMIC_HCA, IB_ATOMIC_HCA),
		KT(XRDMA_ATOMIC_GLOB, IB_ATOMIC_GLOB),
	};
	static const struct kt_pair caps[] = {
		KT(XRDMA_DEVICE_MEM_MGT_EXTENSIONS,
		   IB_DEVICE_MEM_MGT_EXTENSIONS),
		KT(XRDMA_DEVICE_SRQ_RESIZE, IB_DEVICE_SRQ_RESIZE),
		KT(XRDMA_DEVICE_RC_RNR_NAK_GEN, IB_DEVICE_RC_RNR_NAK_GEN),
		KT(XRDMA_DEVICE_PORT_ACTIVE_EVENT, IB_DEVICE_PORT_ACTIVE_EVENT),
		KT(XRDMA_DEVICE_CHANGE_PHY_PORT, IB_DEVICE_CHANGE_PHY_PORT),
		/* kernel-only SQD bit: ib_core has no such capability */
		KT(XRDMA_DEVICE_SQD, 0),
		/* xrdma_ib has no alloc_mw: windows are not offered */
		KT(XRDMA_DEVICE_MEM_WINDOW, 0),
		KT(XRDMA_DEVICE_MEM_WINDOW_TYPE_2B, 0),
		/* nor XRC: no alloc_xrcd, no XRC QP or SRQ types */
		KT(XRDMA_DEVICE_XRC, 0),
		/*
		 * the 64-bit bits of Linux 6.2+; before, 0: not offered (a
		 * refusal would fail xib_query_device() on a device with them)
		 */
		KT(XRDMA_DEVICE_ATOMIC_WRITE, XRDMA_IB_DEVICE_ATOMIC_WRITE),
		KT(XRDMA_DEVICE_FLUSH_GLOBAL, XRDMA_IB_DEVICE_FLUSH_GLOBAL),
		KT(XRDMA_DEVICE_FLUSH_PERSISTENT,
		   XRDMA_IB_DEVICE_FLUSH_PERSISTENT),
	};

	kt_check_enum(test, "xib_event_to_ib", xib_event_to_ib, events,
		      ARRAY_SIZE(events), 0x100);
	/* IB_GID_TYPE_IB means nothing on a RoCE port */
	KUNIT_EXPECT_LT(test, xib_gid_type_to_xrdma(IB_GID_TYPE_IB), 0);
	kt_check_enum(test, "xib_gid_type_to_xrdma", xib_gid_type_to_xrdma, gid,
		      ARRAY_SIZE(gid), 0x100);
	kt_check_enum(test, "xib_port_state_to_ib", xib_port_state_to_ib, port,
		      ARRAY_SIZE(port), 0x100);
	kt_check_enum(test, "xib_atomic_cap_to_ib", xib_atomic_cap_to_ib, atomic,
		      ARRAY_SIZE(atomic), 0x100);
	kt_check_flags(test, "xib_device_cap_to_ib", xib_device_cap_to_ib,
		       caps, ARRAY_SIZE(caps));
}

static struct kunit_case enums_cases[] = {
	KUNIT_CASE(enums_wr_opcode),
	KUNIT_CASE(enums_wc),
	KUNIT_CASE(enums_send_cq_flags),
	KUNIT_CASE(enums_qp),
	KUNIT_CASE_PARAM(enums_table, kt_xlate_gen_params),
	KUNIT_CASE(enums_access_mtu),
	KUNIT_CASE(enums_device),
	{}
};

static struct kunit_suite enums_suite = {
	.name = "xrdma_ib_enums",
	.test_cases = enums_cases,
};

kunit_test_suite(enums_suite);
