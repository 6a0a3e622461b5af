// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma_ib: value translation between ib_core's enums and xrdma's.
 *
 * Many values happen to be equal today (both follow the InfiniBand
 * specification or the same uapi), some are not (WR opcodes from LOCAL_INV
 * on, the REG_MR completion, WC flags beyond WITH_INVALIDATE, the network
 * header type, the GID type); every value goes through an explicit table
 * here anyway, so a renumbering on either side cannot pass unnoticed.
 * Nothing here calls ib_core: the file needs only the headers, and the
 * KUnit suite xrdma_ib_enums (kunit/ib_enums_test.c) includes it into a
 * kernel built without CONFIG_INFINIBAND.
 */
#include <linux/kernel.h>
#include <linux/errno.h>
#include <xrdma/compat.h>
#include "xib.h"

struct xib_pair {
	u32 ib;
	u32 x;
};

static int xib_find_x(const struct xib_pair *t, size_t n, u32 ib, int err)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].ib == ib)
			return t[i].x;
	return err;
}

static int xib_find_ib(const struct xib_pair *t, size_t n, u32 x)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].x == x)
			return t[i].ib;
	return -EINVAL;
}

/*
 * flags: every bit of @v must be in the table.  A pair with 0 on either
 * side (a bit this kernel's ib_verbs.h has not, include/xrdma/compat.h)
 * is no pair: its bit is refused, not dropped.
 */
static s64 xib_bits(const struct xib_pair *t, size_t n, u32 v, bool to_x)
{
	s64 out = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		u32 from = to_x ? t[i].ib : t[i].x;

		if (!t[i].ib || !t[i].x)
			continue;
		if (v & from) {
			out |= to_x ? t[i].x : t[i].ib;
			v &= ~from;
		}
	}
	return v ? -EINVAL : out;
}

/* ------------------------------------------------------------ data path */

int xib_wr_opcode_to_xrdma(u32 op)
{
	switch (op) {
	case IB_WR_RDMA_WRITE:		return XRDMA_WR_RDMA_WRITE;
	case IB_WR_RDMA_WRITE_WITH_IMM:	return XRDMA_WR_RDMA_WRITE_WITH_IMM;
	case IB_WR_SEND:		return XRDMA_WR_SEND;
	case IB_WR_SEND_WITH_IMM:	return XRDMA_WR_SEND_WITH_IMM;
	case IB_WR_RDMA_READ:		return XRDMA_WR_RDMA_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:	return XRDMA_WR_ATOMIC_CMP_AND_SWP;
	case IB_WR_ATOMIC_FETCH_AND_ADD: return XRDMA_WR_ATOMIC_FETCH_AND_ADD;
	case IB_WR_LOCAL_INV:		return XRDMA_WR_LOCAL_INV;
	case IB_WR_SEND_WITH_INV:	return XRDMA_WR_SEND_WITH_INV;
	case IB_WR_REG_MR:		return XRDMA_WR_REG_MR;
	default:
		break;
	}
	/*
	 * ATOMIC WRITE: an ib_rdma_wr and 8 bytes of payload.  IB_WR_FLUSH
	 * is not taken: no ib_verbs.h work request carries its type, level
	 * and length (6.12's rxe_post_send sends it with rkey 0).  Before
	 * Linux 6.2 there is no ATOMIC WRITE: -1, which no u32 may match.
	 */
	if (XRDMA_IB_WR_ATOMIC_WRITE >= 0 &&
	    (int)op == XRDMA_IB_WR_ATOMIC_WRITE)
		return XRDMA_WR_ATOMIC_WRITE;
	return -EINVAL;
}

static const struct xib_pair xib_send_flags[] = {
	{ IB_SEND_FENCE,	XRDMA_SEND_FENCE },
	{ IB_SEND_SIGNALED,	XRDMA_SEND_SIGNALED },
	{ IB_SEND_SOLICITED,	XRDMA_SEND_SOLICITED },
	{ IB_SEND_INLINE,	XRDMA_SEND_INLINE },
};

int xib_send_flags_to_xrdma(u32 flags)
{
	return xib_bits(xib_send_flags, ARRAY_SIZE(xib_send_flags), flags,
			true);
}

int xib_wc_status_to_ib(u32 status)
{
	switch (status) {
	case XRDMA_WC_SUCCESS:		return IB_WC_SUCCESS;
	case XRDMA_WC_LOC_LEN_ERR:	return IB_WC_LOC_LEN_ERR;
	case XRDMA_WC_LOC_QP_OP_ERR:	return IB_WC_LOC_QP_OP_ERR;
	case XRDMA_WC_LOC_EEC_OP_ERR:	return IB_WC_LOC_EEC_OP_ERR;
	case XRDMA_WC_LOC_PROT_ERR:	return IB_WC_LOC_PROT_ERR;
	case XRDMA_WC_WR_FLUSH_ERR:	return IB_WC_WR_FLUSH_ERR;
	case XRDMA_WC_MW_BIND_ERR:	return IB_WC_MW_BIND_ERR;
	case XRDMA_WC_BAD_RESP_ERR:	return IB_WC_BAD_RESP_ERR;
	case XRDMA_WC_LOC_ACCESS_ERR:	return IB_WC_LOC_ACCESS_ERR;
	case XRDMA_WC_REM_INV_REQ_ERR:	return IB_WC_REM_INV_REQ_ERR;
	case XRDMA_WC_REM_ACCESS_ERR:	return IB_WC_REM_ACCESS_ERR;
	case XRDMA_WC_REM_OP_ERR:	return IB_WC_REM_OP_ERR;
	case XRDMA_WC_RETRY_EXC_ERR:	return IB_WC_RETRY_EXC_ERR;
	case XRDMA_WC_RNR_RETRY_EXC_ERR: return IB_WC_RNR_RETRY_EXC_ERR;
	case XRDMA_WC_LOC_RDD_VIOL_ERR:	return IB_WC_LOC_RDD_VIOL_ERR;
	case XRDMA_WC_REM_INV_RD_REQ_ERR: return IB_WC_REM_INV_RD_REQ_ERR;
	case XRDMA_WC_REM_ABORT_ERR:	return IB_WC_REM_ABORT_ERR;
	case XRDMA_WC_INV_EECN_ERR:	return IB_WC_INV_EECN_ERR;
	case XRDMA_WC_INV_EEC_STATE_ERR: return IB_WC_INV_EEC_STATE_ERR;
	case XRDMA_WC_FATAL_ERR:	return IB_WC_FATAL_ERR;
	case XRDMA_WC_RESP_TIMEOUT_ERR:	return IB_WC_RESP_TIMEOUT_ERR;
	case XRDMA_WC_GENERAL_ERR:	return IB_WC_GENERAL_ERR;
	default:			return -EINVAL;
	}
}

int xib_wc_opcode_to_ib(u32 opcode)
{
	switch (opcode) {
	case XRDMA_WC_SEND:		return IB_WC_SEND;
	case XRDMA_WC_RDMA_WRITE:	return IB_WC_RDMA_WRITE;
	case XRDMA_WC_RDMA_READ:	return IB_WC_RDMA_READ;
	case XRDMA_WC_COMP_SWAP:	return IB_WC_COMP_SWAP;
	case XRDMA_WC_FETCH_ADD:	return IB_WC_FETCH_ADD;
	case XRDMA_WC_LOCAL_INV:	return IB_WC_LOCAL_INV;
	case XRDMA_WC_REG_MR:		return IB_WC_REG_MR;
	case XRDMA_WC_RECV:		return IB_WC_RECV;
	case XRDMA_WC_RECV_RDMA_WITH_IMM: return IB_WC_RECV_RDMA_WITH_IMM;
	case XRDMA_WC_ATOMIC_WRITE:
		return XRDMA_IB_WC_ATOMIC_WRITE < 0 ? -EINVAL :
		       XRDMA_IB_WC_ATOMIC_WRITE;
	case XRDMA_WC_FLUSH:
		return XRDMA_IB_WC_FLUSH < 0 ? -EINVAL : XRDMA_IB_WC_FLUSH;
	default:			return -EINVAL;
	}
}

static const struct xib_pair xib_wc_flags[] = {
	{ IB_WC_GRH,			XRDMA_WC_GRH },
	{ IB_WC_WITH_IMM,		XRDMA_WC_WITH_IMM },
	{ IB_WC_WITH_INVALIDATE,	XRDMA_WC_WITH_INVALIDATE },
	{ IB_WC_WITH_NETWORK_HDR_TYPE,	XRDMA_WC_WITH_NETWORK_HDR_TYPE },
};

int xib_wc_flags_to_ib(u32 flags)
{
	return xib_bits(xib_wc_flags, ARRAY_SIZE(xib_wc_flags), flags, false);
}

static const struct xib_pair xib_network_types[] = {
	{ RDMA_NETWORK_ROCE_V1,	XRDMA_NETWORK_ROCE_V1 },
	{ RDMA_NETWORK_IPV4,	XRDMA_NETWORK_IPV4 },
	{ RDMA_NETWORK_IPV6,	XRDMA_NETWORK_IPV6 },
};

int xib_network_type_to_ib(u32 type)
{
	return xib_find_ib(xib_network_types, ARRAY_SIZE(xib_network_types),
			   type);
}

int xib_cq_notify_to_xrdma(u32 flags)
{
	static const struct xib_pair t[] = {
		{ IB_CQ_SOLICITED,		XRDMA_CQ_SOLICITED },
		{ IB_CQ_NEXT_COMP,		XRDMA_CQ_NEXT_COMP },
		{ IB_CQ_REPORT_MISSED_EVENTS,	XRDMA_CQ_REPORT_MISSED_EVENTS },
	};

	return xib_bits(t, ARRAY_SIZE(t), flags, true);
}

/* ------------------------------------------------------------ QP */

static const struct xib_pair xib_qp_states[] = {
	{ IB_QPS_RESET,	XRDMA_QPS_RESET },
	{ IB_QPS_INIT,	XRDMA_QPS_INIT },
	{ IB_QPS_RTR,	XRDMA_QPS_RTR },
	{ IB_QPS_RTS,	XRDMA_QPS_RTS },
	{ IB_QPS_SQD,	XRDMA_QPS_SQD },
	{ IB_QPS_SQE,	XRDMA_QPS_SQE },
	{ IB_QPS_ERR,	XRDMA_QPS_ERR },
};

int xib_qp_state_to_xrdma(u32 state)
{
	return xib_find_x(xib_qp_states, ARRAY_SIZE(xib_qp_states), state,
			  -EINVAL);
}

int xib_qp_state_to_ib(u32 state)
{
	return xib_find_ib(xib_qp_states, ARRAY_SIZE(xib_qp_states), state);
}

static const struct xib_pair xib_qp_types[] = {
	{ IB_QPT_GSI,	XRDMA_QPT_GSI },
	{ IB_QPT_RC,	XRDMA_QPT_RC },
	{ IB_QPT_UC,	XRDMA_QPT_UC },
	{ IB_QPT_UD,	XRDMA_QPT_UD },
};

/* types ib_core knows but xrdma has not (SMI, raw, XRC, driver): EOPNOTSUPP */
int xib_qp_type_to_xrdma(u32 type)
{
	return xib_find_x(xib_qp_types, ARRAY_SIZE(xib_qp_types), type,
			  -EOPNOTSUPP);
}

int xib_qp_type_to_ib(u32 type)
{
	return xib_find_ib(xib_qp_types, ARRAY_SIZE(xib_qp_types), type);
}

static const struct xib_pair xib_qp_mask[] = {
	{ IB_QP_STATE,			XRDMA_QP_STATE },
	{ IB_QP_CUR_STATE,		XRDMA_QP_CUR_STATE },
	{ IB_QP_EN_SQD_ASYNC_NOTIFY,	XRDMA_QP_EN_SQD_ASYNC_NOTIFY },
	{ IB_QP_ACCESS_FLAGS,		XRDMA_QP_ACCESS_FLAGS },
	{ IB_QP_PKEY_INDEX,		XRDMA_QP_PKEY_INDEX },
	{ IB_QP_PORT,			XRDMA_QP_PORT },
	{ IB_QP_QKEY,			XRDMA_QP_QKEY },
	{ IB_QP_AV,			XRDMA_QP_AV },
	{ IB_QP_PATH_MTU,		XRDMA_QP_PATH_MTU },
	{ IB_QP_TIMEOUT,		XRDMA_QP_TIMEOUT },
	{ IB_QP_RETRY_CNT,		XRDMA_QP_RETRY_CNT },
	{ IB_QP_RNR_RETRY,		XRDMA_QP_RNR_RETRY },
	{ IB_QP_RQ_PSN,			XRDMA_QP_RQ_PSN },
	{ IB_QP_MAX_QP_RD_ATOMIC,	XRDMA_QP_MAX_QP_RD_ATOMIC },
	{ IB_QP_ALT_PATH,		XRDMA_QP_ALT_PATH },
	{ IB_QP_MIN_RNR_TIMER,		XRDMA_QP_MIN_RNR_TIMER },
	{ IB_QP_SQ_PSN,			XRDMA_QP_SQ_PSN },
	{ IB_QP_MAX_DEST_RD_ATOMIC,	XRDMA_QP_MAX_DEST_RD_ATOMIC },
	{ IB_QP_PATH_MIG_STATE,		XRDMA_QP_PATH_MIG_STATE },
	{ IB_QP_CAP,			XRDMA_QP_CAP },
	{ IB_QP_DEST_QPN,		XRDMA_QP_DEST_QPN },
};

/* bits beyond the standard ones (IB_QP_RATE_LIMIT, reserved): EOPNOTSUPP */
int xib_qp_mask_to_xrdma(u32 mask)
{
	s64 r = xib_bits(xib_qp_mask, ARRAY_SIZE(xib_qp_mask), mask, true);

	return r < 0 ? -EOPNOTSUPP : r;
}

int xib_qp_mask_to_ib(u32 mask)
{
	return xib_bits(xib_qp_mask, ARRAY_SIZE(xib_qp_mask), mask, false);
}

static const struct xib_pair xib_access[] = {
	{ IB_ACCESS_LOCAL_WRITE,	XRDMA_ACCESS_LOCAL_WRITE },
	{ IB_ACCESS_REMOTE_WRITE,	XRDMA_ACCESS_REMOTE_WRITE },
	{ IB_ACCESS_REMOTE_READ,	XRDMA_ACCESS_REMOTE_READ },
	{ IB_ACCESS_REMOTE_ATOMIC,	XRDMA_ACCESS_REMOTE_ATOMIC },
	{ IB_ACCESS_MW_BIND,		XRDMA_ACCESS_MW_BIND },
	/* 0 before Linux 6.2 (include/xrdma/compat.h): refused there */
	{ XRDMA_IB_ACCESS_FLUSH_GLOBAL,	XRDMA_ACCESS_FLUSH_GLOBAL },
	{ XRDMA_IB_ACCESS_FLUSH_PERSISTENT, XRDMA_ACCESS_FLUSH_PERSISTENT },
};

/*
 * The optional range (IB_ACCESS_RELAXED_ORDERING, ...) is a hint a device
 * may ignore (ib_verbs.h): dropped.  ZERO_BASED, ON_DEMAND, HUGETLB and
 * unknown bits: EOPNOTSUPP.
 */
int xib_access_to_xrdma(u32 access)
{
	s64 r = xib_bits(xib_access, ARRAY_SIZE(xib_access),
			 access & ~IB_ACCESS_OPTIONAL, true);

	return r < 0 ? -EOPNOTSUPP : r;
}

int xib_access_to_ib(u32 access)
{
	return xib_bits(xib_access, ARRAY_SIZE(xib_access), access, false);
}

static const struct xib_pair xib_mtus[] = {
	{ IB_MTU_256,	XRDMA_MTU_256 },
	{ IB_MTU_512,	XRDMA_MTU_512 },
	{ IB_MTU_1024,	XRDMA_MTU_1024 },
	{ IB_MTU_2048,	XRDMA_MTU_2048 },
	{ IB_MTU_4096,	XRDMA_MTU_4096 },
};

int xib_mtu_to_xrdma(u32 mtu)
{
	return xib_find_x(xib_mtus, ARRAY_SIZE(xib_mtus), mtu, -EINVAL);
}

int xib_mtu_to_ib(u32 mtu)
{
	return xib_find_ib(xib_mtus, ARRAY_SIZE(xib_mtus), mtu);
}

int xib_srq_mask_to_xrdma(u32 mask)
{
	static const struct xib_pair t[] = {
		{ IB_SRQ_MAX_WR,	XRDMA_SRQ_MAX_WR },
		{ IB_SRQ_LIMIT,		XRDMA_SRQ_LIMIT },
	};

	return xib_bits(t, ARRAY_SIZE(t), mask, true);
}

/* ------------------------------------------------------------ device */

static const struct xib_pair xib_events[] = {
	{ IB_EVENT_CQ_ERR,		XRDMA_EVENT_CQ_ERR },
	{ IB_EVENT_QP_FATAL,		XRDMA_EVENT_QP_FATAL },
	{ IB_EVENT_QP_REQ_ERR,		XRDMA_EVENT_QP_REQ_ERR },
	{ IB_EVENT_QP_ACCESS_ERR,	XRDMA_EVENT_QP_ACCESS_ERR },
	{ IB_EVENT_COMM_EST,		XRDMA_EVENT_COMM_EST },
	{ IB_EVENT_SQ_DRAINED,		XRDMA_EVENT_SQ_DRAINED },
	{ IB_EVENT_QP_LAST_WQE_REACHED,	XRDMA_EVENT_QP_LAST_WQE_REACHED },
	{ IB_EVENT_SRQ_ERR,		XRDMA_EVENT_SRQ_ERR },
	{ IB_EVENT_SRQ_LIMIT_REACHED,	XRDMA_EVENT_SRQ_LIMIT_REACHED },
	{ IB_EVENT_PORT_ACTIVE,		XRDMA_EVENT_PORT_ACTIVE },
	{ IB_EVENT_PORT_ERR,		XRDMA_EVENT_PORT_ERR },
	{ IB_EVENT_DEVICE_FATAL,	XRDMA_EVENT_DEVICE_FATAL },
};

int xib_event_to_ib(u32 event)
{
	return xib_find_ib(xib_events, ARRAY_SIZE(xib_events), event);
}

/* IB_GID_TYPE_IB has no meaning on a RoCE port */
int xib_gid_type_to_xrdma(u32 type)
{
	static const struct xib_pair t[] = {
		{ IB_GID_TYPE_ROCE,		XRDMA_GID_TYPE_ROCE_V1 },
		{ IB_GID_TYPE_ROCE_UDP_ENCAP,	XRDMA_GID_TYPE_ROCE_V2 },
	};

	return xib_find_x(t, ARRAY_SIZE(t), type, -EINVAL);
}

int xib_port_state_to_ib(u32 state)
{
	static const struct xib_pair t[] = {
		{ IB_PORT_NOP,		XRDMA_PORT_NOP },
		{ IB_PORT_DOWN,		XRDMA_PORT_DOWN },
		{ IB_PORT_INIT,		XRDMA_PORT_INIT },
		{ IB_PORT_ARMED,	XRDMA_PORT_ARMED },
		{ IB_PORT_ACTIVE,	XRDMA_PORT_ACTIVE },
	};

	return xib_find_ib(t, ARRAY_SIZE(t), state);
}

int xib_atomic_cap_to_ib(u32 cap)
{
	static const struct xib_pair t[] = {
		{ IB_ATOMIC_NONE,	XRDMA_ATOMIC_NONE },
		{ IB_ATOMIC_HCA,	XRDMA_ATOMIC_HCA },
		{ IB_ATOMIC_GLOB,	XRDMA_ATOMIC_GLOB },
	};

	return xib_find_ib(t, ARRAY_SIZE(t), cap);
}

/*
 * The uapi-visible bits; XRDMA_DEVICE_SQD (kernel only) has no ib_core
 * counterpart (ib_core assumes SQD): dropped.
 */
s64 xib_device_cap_to_ib(u32 caps)
{
	static const struct xib_pair t[] = {
		{ IB_DEVICE_MEM_MGT_EXTENSIONS,	XRDMA_DEVICE_MEM_MGT_EXTENSIONS },
		{ IB_DEVICE_SRQ_RESIZE,		XRDMA_DEVICE_SRQ_RESIZE },
		{ IB_DEVICE_RC_RNR_NAK_GEN,	XRDMA_DEVICE_RC_RNR_NAK_GEN },
		{ IB_DEVICE_PORT_ACTIVE_EVENT,	XRDMA_DEVICE_PORT_ACTIVE_EVENT },
		{ IB_DEVICE_CHANGE_PHY_PORT,	XRDMA_DEVICE_CHANGE_PHY_PORT },
	};
	s64 r;

	/*
	 * xrdma_ib offers ib_core neither memory windows (no alloc_mw) nor
	 * XRC (no alloc_xrcd, no XRC QP or SRQ types)
	 */
	u32 pmem = caps & (XRDMA_DEVICE_ATOMIC_WRITE |
			   XRDMA_DEVICE_FLUSH_GLOBAL |
			   XRDMA_DEVICE_FLUSH_PERSISTENT);

	caps &= ~(XRDMA_DEVICE_SQD | XRDMA_DEVICE_MEM_WINDOW |
		  XRDMA_DEVICE_MEM_WINDOW_TYPE_2B | XRDMA_DEVICE_XRC | pmem);
	r = xib_bits(t, ARRAY_SIZE(t), caps, false);
	/*
	 * the 64-bit IB_DEVICE_* of Linux 6.2+; before, not offered (as
	 * windows and XRC): refusing them would fail xib_query_device()
	 */
	if (r >= 0 && pmem & XRDMA_DEVICE_ATOMIC_WRITE)
		r |= XRDMA_IB_DEVICE_ATOMIC_WRITE;
	if (r >= 0 && pmem & XRDMA_DEVICE_FLUSH_GLOBAL)
		r |= XRDMA_IB_DEVICE_FLUSH_GLOBAL;
	if (r >= 0 && pmem & XRDMA_DEVICE_FLUSH_PERSISTENT)
		r |= XRDMA_IB_DEVICE_FLUSH_PERSISTENT;
	return r;
}
