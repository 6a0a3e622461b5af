// SPDX-License-Identifier: GPL-2.0
/*
 * xverbs: the names of the verbs' enums (ibv_*_str) and the rate
 * conversions.
 */
#include "xverbs.h"

/* ------------------------------------------------------------ strings */

/* names[i], or "unknown" outside the table and in its holes */
static const char *xv_name(const char *const *names, size_t n, int i)
{
	return i >= 0 && (size_t)i < n && names[i] ? names[i] : "unknown";
}

const char *ibv_node_type_str(enum ibv_node_type node_type)
{
	static const char *const names[] = {
		[IBV_NODE_CA] = "InfiniBand channel adapter",
		[IBV_NODE_SWITCH] = "InfiniBand switch",
		[IBV_NODE_ROUTER] = "InfiniBand router",
		[IBV_NODE_RNIC] = "iWARP NIC",
		[IBV_NODE_USNIC] = "usNIC",
		[IBV_NODE_USNIC_UDP] = "usNIC UDP",
		[IBV_NODE_UNSPECIFIED] = "unspecified",
	};

	return xv_name(names, ARRAY_SIZE(names), node_type);
}

const char *ibv_port_state_str(enum ibv_port_state port_state)
{
	static const char *const names[] = {
		[IBV_PORT_NOP] = "no state change (NOP)",
		[IBV_PORT_DOWN] = "down",
		[IBV_PORT_INIT] = "init",
		[IBV_PORT_ARMED] = "armed",
		[IBV_PORT_ACTIVE] = "active",
		[IBV_PORT_ACTIVE_DEFER] = "active defer",
	};

	return xv_name(names, ARRAY_SIZE(names), port_state);
}

const char *ibv_event_type_str(enum ibv_event_type event)
{
	static const char *const names[] = {
		[IBV_EVENT_CQ_ERR] = "CQ error",
		[IBV_EVENT_QP_FATAL] = "local work queue catastrophic error",
		[IBV_EVENT_QP_REQ_ERR] = "invalid request local work queue error",
		[IBV_EVENT_QP_ACCESS_ERR] = "local access violation work queue error",
		[IBV_EVENT_COMM_EST] = "communication established",
		[IBV_EVENT_SQ_DRAINED] = "send queue drained",
		[IBV_EVENT_PATH_MIG] = "path migrated",
		[IBV_EVENT_PATH_MIG_ERR] = "path migration request error",
		[IBV_EVENT_DEVICE_FATAL] = "local catastrophic error",
		[IBV_EVENT_PORT_ACTIVE] = "port active",
		[IBV_EVENT_PORT_ERR] = "port error",
		[IBV_EVENT_LID_CHANGE] = "LID change",
		[IBV_EVENT_PKEY_CHANGE] = "P_Key change",
		[IBV_EVENT_SM_CHANGE] = "SM change",
		[IBV_EVENT_SRQ_ERR] = "SRQ catastrophic error",
		[IBV_EVENT_SRQ_LIMIT_REACHED] = "SRQ limit reached",
		[IBV_EVENT_QP_LAST_WQE_REACHED] = "last WQE reached",
		[IBV_EVENT_CLIENT_REREGISTER] = "client reregistration",
		[IBV_EVENT_GID_CHANGE] = "GID table change",
		[IBV_EVENT_WQ_FATAL] = "WQ fatal",
	};

	return xv_name(names, ARRAY_SIZE(names), event);
}

const char *ibv_wc_status_str(enum ibv_wc_status status)
{
	static const char *const names[] = {
		[IBV_WC_SUCCESS] = "success",
		[IBV_WC_LOC_LEN_ERR] = "local length error",
		[IBV_WC_LOC_QP_OP_ERR] = "local QP operation error",
		[IBV_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
		[IBV_WC_LOC_PROT_ERR] = "local protection error",
		[IBV_WC_WR_FLUSH_ERR] = "Work Request Flushed Error",
		[IBV_WC_MW_BIND_ERR] = "memory management operation error",
		[IBV_WC_BAD_RESP_ERR] = "bad response error",
		[IBV_WC_LOC_ACCESS_ERR] = "local access error",
		[IBV_WC_REM_INV_REQ_ERR] = "remote invalid request error",
		[IBV_WC_REM_ACCESS_ERR] = "remote access error",
		[IBV_WC_REM_OP_ERR] = "remote operation error",
		[IBV_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
		[IBV_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
		[IBV_WC_LOC_RDD_VIOL_ERR] = "local RDD violation error",
		[IBV_WC_REM_INV_RD_REQ_ERR] = "remote invalid RD request",
		[IBV_WC_REM_ABORT_ERR] = "aborted error",
		[IBV_WC_INV_EECN_ERR] = "invalid EE context number",
		[IBV_WC_INV_EEC_STATE_ERR] = "invalid EE context state",
		[IBV_WC_FATAL_ERR] = "fatal error",
		[IBV_WC_RESP_TIMEOUT_ERR] = "response timeout error",
		[IBV_WC_GENERAL_ERR] = "general error",
		[IBV_WC_TM_ERR] = "TM error",
		[IBV_WC_TM_RNDV_INCOMPLETE] = "TM software rendezvous",
	};

	return xv_name(names, ARRAY_SIZE(names), status);
}

/*
 * rdma-core 56 (v56.1 libibverbs/enum_strs.c:136): declared by its public
 * verbs.h, exported as IBVERBS_PRIVATE_34, so a program built against 56
 * links to it.  Its FLUSH (14) is not in rdma-core 44's enum.  rdma-core
 * returns NULL for 12 and 13, which have no name; "unknown" here, as for
 * any other number without one.
 */
const char *ibv_wr_opcode_str(enum ibv_wr_opcode opcode)
{
	static const char *const names[] = {
		[IBV_WR_RDMA_WRITE] = "rdma-write",
		[IBV_WR_RDMA_WRITE_WITH_IMM] = "rdma-write-with-imm",
		[IBV_WR_SEND] = "send",
		[IBV_WR_SEND_WITH_IMM] = "send-with-imm",
		[IBV_WR_RDMA_READ] = "rdma-read",
		[IBV_WR_ATOMIC_CMP_AND_SWP] = "atomic-cmp-and-swp",
		[IBV_WR_ATOMIC_FETCH_AND_ADD] = "atomic-fetch-and-add",
		[IBV_WR_LOCAL_INV] = "local-inv",
		[IBV_WR_BIND_MW] = "bind-mw",
		[IBV_WR_SEND_WITH_INV] = "send-with-inv",
		[IBV_WR_TSO] = "tso",
		[IBV_WR_DRIVER1] = "driver1",
		[14] = "flush",			/* rdma-core 56's IBV_WR_FLUSH */
		[IBV_WR_ATOMIC_WRITE] = "atomic-write",
	};

	return xv_name(names, ARRAY_SIZE(names), opcode);
}

/* ------------------------------------------------------------ rates */

static const struct {
	enum ibv_rate rate;
	int mult;
	int mbps;
} xv_rates[] = {
	{ IBV_RATE_2_5_GBPS, 1, 2500 },
	{ IBV_RATE_5_GBPS, 2, 5000 },
	{ IBV_RATE_10_GBPS, 4, 10000 },
	{ IBV_RATE_20_GBPS, 8, 20000 },
	{ IBV_RATE_30_GBPS, 12, 30000 },
	{ IBV_RATE_40_GBPS, 16, 40000 },
	{ IBV_RATE_60_GBPS, 24, 60000 },
	{ IBV_RATE_80_GBPS, 32, 80000 },
	{ IBV_RATE_120_GBPS, 48, 120000 },
	{ IBV_RATE_14_GBPS, 0, 14062 },
	{ IBV_RATE_56_GBPS, 0, 56250 },
	{ IBV_RATE_112_GBPS, 0, 112500 },
	{ IBV_RATE_168_GBPS, 0, 168750 },
	{ IBV_RATE_25_GBPS, 10, 25781 },
	{ IBV_RATE_100_GBPS, 40, 103125 },
	{ IBV_RATE_200_GBPS, 80, 206250 },
	{ IBV_RATE_300_GBPS, 120, 309375 },
	{ IBV_RATE_28_GBPS, 11, 28125 },
	{ IBV_RATE_50_GBPS, 20, 53125 },
	{ IBV_RATE_400_GBPS, 160, 425000 },
	{ IBV_RATE_600_GBPS, 240, 637500 },
};

#define XV_NRATES ARRAY_SIZE(xv_rates)

int ibv_rate_to_mult(enum ibv_rate rate)
{
	size_t i;

	for (i = 0; i < XV_NRATES; i++)
		if (xv_rates[i].rate == rate && xv_rates[i].mult)
			return xv_rates[i].mult;
	return -1;
}

enum ibv_rate mult_to_ibv_rate(int mult)
{
	size_t i;

	for (i = 0; i < XV_NRATES; i++)
		if (xv_rates[i].mult == mult && mult)
			return xv_rates[i].rate;
	return IBV_RATE_MAX;
}

int ibv_rate_to_mbps(enum ibv_rate rate)
{
	size_t i;

	for (i = 0; i < XV_NRATES; i++)
		if (xv_rates[i].rate == rate)
			return xv_rates[i].mbps;
	return -1;
}

enum ibv_rate mbps_to_ibv_rate(int mbps)
{
	size_t i;

	for (i = 0; i < XV_NRATES; i++)
		if (xv_rates[i].mbps == mbps)
			return xv_rates[i].rate;
	return IBV_RATE_MAX;
}
