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

struct xt_pair {
	u32 from;
	u64 to;		/* 64 bits: IB_DEVICE_* of Linux 6.2+ */
};

#define XT(a, b) { a, b }

/* an enum translation: @fn(v) for every v below @range and some far off */
static void xt_check_enum(struct kunit *test, const char *name,
			  int (*fn)(u32), const struct xt_pair *t, size_t n,
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
static void xt_check_flags(struct kunit *test, const char *name,
			   s64 (*fn)(u32), const struct xt_pair *t, size_t n)
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

/* adapters: every translation as s64 (*)(u32) for xt_check_flags */
#define XT_S64(f) static s64 f##_64(u32 v) { return f(v); }
XT_S64(xib_send_flags_to_xrdma)
XT_S64(xib_wc_flags_to_ib)
XT_S64(xib_cq_notify_to_xrdma)
XT_S64(xib_qp_mask_to_xrdma)
XT_S64(xib_qp_mask_to_ib)
XT_S64(xib_access_to_ib)
XT_S64(xib_srq_mask_to_xrdma)

static void xt_swap(const struct xt_pair *t, struct xt_pair *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		r[i].from = (u32)t[i].to;
		r[i].to = t[i].from;
	}
}

static void xt_wr_opcode(struct kunit *test)
{
	static const struct xt_pair t[] = {
		XT(IB_WR_RDMA_WRITE, XRDMA_WR_RDMA_WRITE),
		XT(IB_WR_RDMA_WRITE_WITH_IMM, XRDMA_WR_RDMA_WRITE_WITH_IMM),
		XT(IB_WR_SEND, XRDMA_WR_SEND),
		XT(IB_WR_SEND_WITH_IMM, XRDMA_WR_SEND_WITH_IMM),
		XT(IB_WR_RDMA_READ, XRDMA_WR_RDMA_READ),
		XT(IB_WR_ATOMIC_CMP_AND_SWP, XRDMA_WR_ATOMIC_CMP_AND_SWP),
		XT(IB_WR_ATOMIC_FETCH_AND_ADD, XRDMA_WR_ATOMIC_FETCH_AND_ADD),
		XT(IB_WR_LOCAL_INV, XRDMA_WR_LOCAL_INV),
		XT(IB_WR_SEND_WITH_INV, XRDMA_WR_SEND_WITH_INV),
		XT(IB_WR_REG_MR, XRDMA_WR_REG_MR),
	};
	struct xt_pair all[ARRAY_SIZE(t) + 1];
	size_t n = ARRAY_SIZE(t);

	memcpy(all, t, sizeof(t));
	/*
	 * Linux 6.2+: ATOMIC WRITE; FLUSH never (no ib_verbs.h work request
	 * carries its type, level and length).  Before, the stand-in -1 is
	 * no opcode (0xffffffff: refused by xt_check_enum()).
	 */
	if (XRDMA_IB_WR_ATOMIC_WRITE >= 0) {
		all[n++] = (struct xt_pair)XT(XRDMA_IB_WR_ATOMIC_WRITE,
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
	xt_check_enum(test, "xib_wr_opcode_to_xrdma", xib_wr_opcode_to_xrdma,
		      all, n, 0x100);
}

static void xt_wc(struct kunit *test)
{
	static const struct xt_pair status[] = {
		XT(XRDMA_WC_SUCCESS, IB_WC_SUCCESS),
		XT(XRDMA_WC_LOC_LEN_ERR, IB_WC_LOC_LEN_ERR),
		XT(XRDMA_WC_LOC_QP_OP_ERR, IB_WC_LOC_QP_OP_ERR),
		XT(XRDMA_WC_LOC_EEC_OP_ERR, IB_WC_LOC_EEC_OP_ERR),
		XT(XRDMA_WC_LOC_PROT_ERR, IB_WC_LOC_PROT_ERR),
		XT(XRDMA_WC_WR_FLUSH_ERR, IB_WC_WR_FLUSH_ERR),
		XT(XRDMA_WC_MW_BIND_ERR, IB_WC_MW_BIND_ERR),
		XT(XRDMA_WC_BAD_RESP_ERR, IB_WC_BAD_RESP_ERR),
		XT(XRDMA_WC_LOC_ACCESS_ERR, IB_WC_LOC_ACCESS_ERR),
		XT(XRDMA_WC_REM_INV_REQ_ERR, IB_WC_REM_INV_REQ_ERR),
		XT(XRDMA_WC_REM_ACCESS_ERR, IB_WC_REM_ACCESS_ERR),
		XT(XRDMA_WC_REM_OP_ERR, IB_WC_REM_OP_ERR),
		XT(XRDMA_WC_RETRY_EXC_ERR, IB_WC_RETRY_EXC_ERR),
		XT(XRDMA_WC_RNR_RETRY_EXC_ERR, IB_WC_RNR_RETRY_EXC_ERR),
		XT(XRDMA_WC_LOC_RDD_VIOL_ERR, IB_WC_LOC_RDD_VIOL_ERR),
		XT(XRDMA_WC_REM_INV_RD_REQ_ERR, IB_WC_REM_INV_RD_REQ_ERR),
		XT(XRDMA_WC_REM_ABORT_ERR, IB_WC_REM_ABORT_ERR),
		XT(XRDMA_WC_INV_EECN_ERR, IB_WC_INV_EECN_ERR),
		XT(XRDMA_WC_INV_EEC_STATE_ERR, IB_WC_INV_EEC_STATE_ERR),
		XT(XRDMA_WC_FATAL_ERR, IB_WC_FATAL_ERR),
		XT(XRDMA_WC_RESP_TIMEOUT_ERR, IB_WC_RESP_TIMEOUT_ERR),
		XT(XRDMA_WC_GENERAL_ERR, IB_WC_GENERAL_ERR),
	};
	static const struct xt_pair opcode[] = {
		XT(XRDMA_WC_SEND, IB_WC_SEND),
		XT(XRDMA_WC_RDMA_WRITE, IB_WC_RDMA_WRITE),
		XT(XRDMA_WC_RDMA_READ, IB_WC_RDMA_READ),
		XT(XRDMA_WC_COMP_SWAP, IB_WC_COMP_SWAP),
		XT(XRDMA_WC_FETCH_ADD, IB_WC_FETCH_ADD),
		XT(XRDMA_WC_LOCAL_INV, IB_WC_LOCAL_INV),
		XT(XRDMA_WC_REG_MR, IB_WC_REG_MR),
		XT(XRDMA_WC_RECV, IB_WC_RECV),
		XT(XRDMA_WC_RECV_RDMA_WITH_IMM, IB_WC_RECV_RDMA_WITH_IMM),
	};
	struct xt_pair op_all[ARRAY_SIZE(opcode) + 2];
	size_t n_op = ARRAY_SIZE(opcode);
	static const struct xt_pair flags[] = {
		XT(XRDMA_WC_GRH, IB_WC_GRH),
		XT(XRDMA_WC_WITH_IMM, IB_WC_WITH_IMM),
		XT(XRDMA_WC_WITH_INVALIDATE, IB_WC_WITH_INVALIDATE),
		XT(XRDMA_WC_WITH_NETWORK_HDR_TYPE, IB_WC_WITH_NETWORK_HDR_TYPE),
	};
	static const struct xt_pair net[] = {
		XT(XRDMA_NETWORK_ROCE_V1, RDMA_NETWORK_ROCE_V1),
		XT(XRDMA_NETWORK_IPV4, RDMA_NETWORK_IPV4),
		XT(XRDMA_NETWORK_IPV6, RDMA_NETWORK_IPV6),
	};

	/* ATOMIC WRITE and FLUSH completions: Linux 6.2+, refused before */
	memcpy(op_all, opcode, sizeof(opcode));
	if (XRDMA_IB_WC_ATOMIC_WRITE >= 0) {
		op_all[n_op++] = (struct xt_pair)XT(XRDMA_WC_ATOMIC_WRITE,
						    XRDMA_IB_WC_ATOMIC_WRITE);
		op_all[n_op++] = (struct xt_pair)XT(XRDMA_WC_FLUSH,
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
	xt_check_enum(test, "xib_wc_status_to_ib", xib_wc_status_to_ib, status,
		      ARRAY_SIZE(status), 0x100);
	xt_check_enum(test, "xib_wc_opcode_to_ib", xib_wc_opcode_to_ib, op_all,
		      n_op, 0x200);
	xt_check_flags(test, "xib_wc_flags_to_ib", xib_wc_flags_to_ib_64, flags,
		       ARRAY_SIZE(flags));
	xt_check_enum(test, "xib_network_type_to_ib", xib_network_type_to_ib, net,
		      ARRAY_SIZE(net), 0x100);
}

static void xt_send_cq_flags(struct kunit *test)
{
	static const struct xt_pair send[] = {
		XT(IB_SEND_FENCE, XRDMA_SEND_FENCE),
		XT(IB_SEND_SIGNALED, XRDMA_SEND_SIGNALED),
		XT(IB_SEND_SOLICITED, XRDMA_SEND_SOLICITED),
		XT(IB_SEND_INLINE, XRDMA_SEND_INLINE),
	};
	static const struct xt_pair notify[] = {
		XT(IB_CQ_SOLICITED, XRDMA_CQ_SOLICITED),
		XT(IB_CQ_NEXT_COMP, XRDMA_CQ_NEXT_COMP),
		XT(IB_CQ_REPORT_MISSED_EVENTS, XRDMA_CQ_REPORT_MISSED_EVENTS),
	};
	static const struct xt_pair srq[] = {
		XT(IB_SRQ_MAX_WR, XRDMA_SRQ_MAX_WR),
		XT(IB_SRQ_LIMIT, XRDMA_SRQ_LIMIT),
	};

	KUNIT_EXPECT_LT(test, xib_send_flags_to_xrdma(IB_SEND_IP_CSUM), 0);
	xt_check_flags(test, "xib_send_flags_to_xrdma", xib_send_flags_to_xrdma_64, send,
		       ARRAY_SIZE(send));
	xt_check_flags(test, "xib_cq_notify_to_xrdma", xib_cq_notify_to_xrdma_64, notify,
		       ARRAY_SIZE(notify));
	xt_check_flags(test, "xib_srq_mask_to_xrdma", xib_srq_mask_to_xrdma_64, srq,
		       ARRAY_SIZE(srq));
}

static const struct xt_pair xt_qp_states[] = {
	XT(IB_QPS_RESET, XRDMA_QPS_RESET),
	XT(IB_QPS_INIT, XRDMA_QPS_INIT),
	XT(IB_QPS_RTR, XRDMA_QPS_RTR),
	XT(IB_QPS_RTS, XRDMA_QPS_RTS),
	XT(IB_QPS_SQD, XRDMA_QPS_SQD),
	XT(IB_QPS_SQE, XRDMA_QPS_SQE),
	XT(IB_QPS_ERR, XRDMA_QPS_ERR),
};

static const struct xt_pair xt_qp_types[] = {
	XT(IB_QPT_GSI, XRDMA_QPT_GSI),
	XT(IB_QPT_RC, XRDMA_QPT_RC),
	XT(IB_QPT_UC, XRDMA_QPT_UC),
	XT(IB_QPT_UD, XRDMA_QPT_UD),
};

static const struct xt_pair xt_qp_mask[] = {
	XT(IB_QP_STATE, XRDMA_QP_STATE),
	XT(IB_QP_CUR_STATE, XRDMA_QP_CUR_STATE),
	XT(IB_QP_EN_SQD_ASYNC_NOTIFY, XRDMA_QP_EN_SQD_ASYNC_NOTIFY),
	XT(IB_QP_ACCESS_FLAGS, XRDMA_QP_ACCESS_FLAGS),
	XT(IB_QP_PKEY_INDEX, XRDMA_QP_PKEY_INDEX),
	XT(IB_QP_PORT, XRDMA_QP_PORT),
	XT(IB_QP_QKEY, XRDMA_QP_QKEY),
	XT(IB_QP_AV, XRDMA_QP_AV),
	XT(IB_QP_PATH_MTU, XRDMA_QP_PATH_MTU),
	XT(IB_QP_TIMEOUT, XRDMA_QP_TIMEOUT),
	XT(IB_QP_RETRY_CNT, XRDMA_QP_RETRY_CNT),
	XT(IB_QP_RNR_RETRY, XRDMA_QP_RNR_RETRY),
	XT(IB_QP_RQ_PSN, XRDMA_QP_RQ_PSN),
	XT(IB_QP_MAX_QP_RD_ATOMIC, XRDMA_QP_MAX_QP_RD_ATOMIC),
	XT(IB_QP_ALT_PATH, XRDMA_QP_ALT_PATH),
	XT(IB_QP_MIN_RNR_TIMER, XRDMA_QP_MIN_RNR_TIMER),
	XT(IB_QP_SQ_PSN, XRDMA_QP_SQ_PSN),
	XT(IB_QP_MAX_DEST_RD_ATOMIC, XRDMA_QP_MAX_DEST_RD_ATOMIC),
	XT(IB_QP_PATH_MIG_STATE, XRDMA_QP_PATH_MIG_STATE),
	XT(IB_QP_CAP, XRDMA_QP_CAP),
	XT(IB_QP_DEST_QPN, XRDMA_QP_DEST_QPN),
};

static void xt_qp(struct kunit *test)
{
	struct xt_pair r[ARRAY_SIZE(xt_qp_mask)];

	xt_check_enum(test, "xib_qp_state_to_xrdma", xib_qp_state_to_xrdma, xt_qp_states,
		      ARRAY_SIZE(xt_qp_states), 0x100);
	xt_swap(xt_qp_states, r, ARRAY_SIZE(xt_qp_states));
	xt_check_enum(test, "xib_qp_state_to_ib", xib_qp_state_to_ib, r,
		      ARRAY_SIZE(xt_qp_states), 0x100);

	/* ib_core types xrdma has not: EOPNOTSUPP, not EINVAL */
	KUNIT_EXPECT_EQ(test, xib_qp_type_to_xrdma(IB_QPT_SMI), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, xib_qp_type_to_xrdma(IB_QPT_XRC_INI),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, xib_qp_type_to_xrdma(IB_QPT_RAW_PACKET),
			-EOPNOTSUPP);
	xt_check_enum(test, "xib_qp_type_to_xrdma", xib_qp_type_to_xrdma, xt_qp_types,
		      ARRAY_SIZE(xt_qp_types), 0x2000);
	xt_swap(xt_qp_types, r, ARRAY_SIZE(xt_qp_types));
	xt_check_enum(test, "xib_qp_type_to_ib", xib_qp_type_to_ib, r,
		      ARRAY_SIZE(xt_qp_types), 0x100);

	KUNIT_EXPECT_EQ(test, xib_qp_mask_to_xrdma(IB_QP_RATE_LIMIT),
			-EOPNOTSUPP);
	xt_check_flags(test, "xib_qp_mask_to_xrdma", xib_qp_mask_to_xrdma_64, xt_qp_mask,
		       ARRAY_SIZE(xt_qp_mask));
	xt_swap(xt_qp_mask, r, ARRAY_SIZE(xt_qp_mask));
	xt_check_flags(test, "xib_qp_mask_to_ib", xib_qp_mask_to_ib_64, r,
		       ARRAY_SIZE(xt_qp_mask));
}

static const struct xt_pair xt_access[] = {
	XT(IB_ACCESS_LOCAL_WRITE, XRDMA_ACCESS_LOCAL_WRITE),
	XT(IB_ACCESS_REMOTE_WRITE, XRDMA_ACCESS_REMOTE_WRITE),
	XT(IB_ACCESS_REMOTE_READ, XRDMA_ACCESS_REMOTE_READ),
	XT(IB_ACCESS_REMOTE_ATOMIC, XRDMA_ACCESS_REMOTE_ATOMIC),
	XT(IB_ACCESS_MW_BIND, XRDMA_ACCESS_MW_BIND),
};

static void xt_access_mtu(struct kunit *test)
{
	static const struct xt_pair mtu[] = {
		XT(IB_MTU_256, XRDMA_MTU_256),
		XT(IB_MTU_512, XRDMA_MTU_512),
		XT(IB_MTU_1024, XRDMA_MTU_1024),
		XT(IB_MTU_2048, XRDMA_MTU_2048),
		XT(IB_MTU_4096, XRDMA_MTU_4096),
	};
	struct xt_pair acc[ARRAY_SIZE(xt_access) + 2], r[ARRAY_SIZE(acc)];
	size_t n = ARRAY_SIZE(xt_access);
	u32 all = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		  IB_ACCESS_REMOTE_READ;
	int b;

	/* the FLUSH placement types: Linux 6.2+, refused both ways before */
	memcpy(acc, xt_access, sizeof(xt_access));
	if (XRDMA_IB_ACCESS_FLUSH_GLOBAL) {
		acc[n++] = (struct xt_pair)XT(XRDMA_IB_ACCESS_FLUSH_GLOBAL,
					      XRDMA_ACCESS_FLUSH_GLOBAL);
		acc[n++] = (struct xt_pair)XT(XRDMA_IB_ACCESS_FLUSH_PERSISTENT,
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
	xt_swap(acc, r, n);
	xt_check_flags(test, "xib_access_to_ib", xib_access_to_ib_64, r, n);

	xt_check_enum(test, "xib_mtu_to_xrdma", xib_mtu_to_xrdma, mtu,
		      ARRAY_SIZE(mtu), 0x100);
	{
		struct xt_pair rm[ARRAY_SIZE(mtu)];

		xt_swap(mtu, rm, ARRAY_SIZE(mtu));
		xt_check_enum(test, "xib_mtu_to_ib", xib_mtu_to_ib, rm,
			      ARRAY_SIZE(rm), 0x100);
	}
}

static void xt_device(struct kunit *test)
{
	static const struct xt_pair events[] = {
		XT(XRDMA_EVENT_CQ_ERR, IB_EVENT_CQ_ERR),
		XT(XRDMA_EVENT_QP_FATAL, IB_EVENT_QP_FATAL),
		XT(XRDMA_EVENT_QP_REQ_ERR, IB_EVENT_QP_REQ_ERR),
		XT(XRDMA_EVENT_QP_ACCESS_ERR, IB_EVENT_QP_ACCESS_ERR),
		XT(XRDMA_EVENT_COMM_EST, IB_EVENT_COMM_EST),
		XT(XRDMA_EVENT_SQ_DRAINED, IB_EVENT_SQ_DRAINED),
		XT(XRDMA_EVENT_QP_LAST_WQE_REACHED,
		   IB_EVENT_QP_LAST_WQE_REACHED),
		XT(XRDMA_EVENT_SRQ_ERR, IB_EVENT_SRQ_ERR),
		XT(XRDMA_EVENT_SRQ_LIMIT_REACHED, IB_EVENT_SRQ_LIMIT_REACHED),
		XT(XRDMA_EVENT_PORT_ACTIVE, IB_EVENT_PORT_ACTIVE),
		XT(XRDMA_EVENT_PORT_ERR, IB_EVENT_PORT_ERR),
		XT(XRDMA_EVENT_DEVICE_FATAL, IB_EVENT_DEVICE_FATAL),
	};
	static const struct xt_pair gid[] = {
		XT(IB_GID_TYPE_ROCE, XRDMA_GID_TYPE_ROCE_V1),
		XT(IB_GID_TYPE_ROCE_UDP_ENCAP, XRDMA_GID_TYPE_ROCE_V2),
	};
	static const struct xt_pair port[] = {
		XT(XRDMA_PORT_NOP, IB_PORT_NOP),
		XT(XRDMA_PORT_DOWN, IB_PORT_DOWN),
		XT(XRDMA_PORT_INIT, IB_PORT_INIT),
		XT(XRDMA_PORT_ARMED, IB_PORT_ARMED),
		XT(XRDMA_PORT_ACTIVE, IB_PORT_ACTIVE),
	};
	static const struct xt_pair atomic[] = {
		XT(XRDMA_ATOMIC_NONE, IB_ATOMIC_NONE),
		XT(XRDMA_ATOMIC_HCA, IB_ATOMIC_HCA),
		XT(XRDMA_ATOMIC_GLOB, IB_ATOMIC_GLOB),
	};
	static const struct xt_pair caps[] = {
		XT(XRDMA_DEVICE_MEM_MGT_EXTENSIONS,
		   IB_DEVICE_MEM_MGT_EXTENSIONS),
		XT(XRDMA_DEVICE_SRQ_RESIZE, IB_DEVICE_SRQ_RESIZE),
		XT(XRDMA_DEVICE_RC_RNR_NAK_GEN, IB_DEVICE_RC_RNR_NAK_GEN),
		XT(XRDMA_DEVICE_PORT_ACTIVE_EVENT, IB_DEVICE_PORT_ACTIVE_EVENT),
		XT(XRDMA_DEVICE_CHANGE_PHY_PORT, IB_DEVICE_CHANGE_PHY_PORT),
		/* kernel-only SQD bit: ib_core has no such capability */
		XT(XRDMA_DEVICE_SQD, 0),
		/* xrdma_ib has no alloc_mw: windows are not offered */
		XT(XRDMA_DEVICE_MEM_WINDOW, 0),
		XT(XRDMA_DEVICE_MEM_WINDOW_TYPE_2B, 0),
		/* nor XRC: no alloc_xrcd, no XRC QP or SRQ types */
		XT(XRDMA_DEVICE_XRC, 0),
		/*
		 * the 64-bit bits of Linux 6.2+; before, 0: not offered (a
		 * refusal would fail xib_query_device() on a device with them)
		 */
		XT(XRDMA_DEVICE_ATOMIC_WRITE, XRDMA_IB_DEVICE_ATOMIC_WRITE),
		XT(XRDMA_DEVICE_FLUSH_GLOBAL, XRDMA_IB_DEVICE_FLUSH_GLOBAL),
		XT(XRDMA_DEVICE_FLUSH_PERSISTENT,
		   XRDMA_IB_DEVICE_FLUSH_PERSISTENT),
	};

	xt_check_enum(test, "xib_event_to_ib", xib_event_to_ib, events,
		      ARRAY_SIZE(events), 0x100);
	/* IB_GID_TYPE_IB means nothing on a RoCE port */
	KUNIT_EXPECT_LT(test, xib_gid_type_to_xrdma(IB_GID_TYPE_IB), 0);
	xt_check_enum(test, "xib_gid_type_to_xrdma", xib_gid_type_to_xrdma, gid,
		      ARRAY_SIZE(gid), 0x100);
	xt_check_enum(test, "xib_port_state_to_ib", xib_port_state_to_ib, port,
		      ARRAY_SIZE(port), 0x100);
	xt_check_enum(test, "xib_atomic_cap_to_ib", xib_atomic_cap_to_ib, atomic,
		      ARRAY_SIZE(atomic), 0x100);
	xt_check_flags(test, "xib_device_cap_to_ib", xib_device_cap_to_ib,
		       caps, ARRAY_SIZE(caps));
}

static struct kunit_case xt_cases[] = {
	KUNIT_CASE(xt_wr_opcode),
	KUNIT_CASE(xt_wc),
	KUNIT_CASE(xt_send_cq_flags),
	KUNIT_CASE(xt_qp),
	KUNIT_CASE(xt_access_mtu),
	KUNIT_CASE(xt_device),
	{}
};

static struct kunit_suite xt_suite = {
	.name = "xrdma_ib_enums",
	.test_cases = xt_cases,
};

kunit_test_suite(xt_suite);
