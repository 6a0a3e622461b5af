// SPDX-License-Identifier: GPL-2.0
/*
 * The QP state machine: which transitions are legal and which attributes
 * each transition requires or allows, per QP type, after the QP state table
 * of the InfiniBand Architecture Specification (vol. 1, 11.2.4.2 / 10.3).
 * The GSI QP follows UD's rules except that its port is fixed at creation:
 * Reset->Init takes the P_Key index and the Q_Key only, and no transition
 * accepts a port.  The XRC types follow Linux 6.1 ib_core's qp_state_table:
 * XRC_INI is RC's requester (no responder attributes: max_dest_rd_atomic,
 * min_rnr_timer), XRC_TGT RC's responder, which needs only the timeout and
 * the SQ PSN for RTS (it sends acknowledgements, never requests).
 */
#include "core_priv.h"

enum { T_RC, T_UC, T_UD, T_GSI, T_XRC_INI, T_XRC_TGT, T_NUM };

struct qp_trans {
	bool valid;
	int req[T_NUM];
	int opt[T_NUM];
};

#define PATH_OPT	(XRDMA_QP_ALT_PATH | XRDMA_QP_ACCESS_FLAGS |	\
			 XRDMA_QP_PKEY_INDEX)
#define RTS_OPT_UC	(XRDMA_QP_CUR_STATE | XRDMA_QP_ALT_PATH |	\
			 XRDMA_QP_ACCESS_FLAGS | XRDMA_QP_PATH_MIG_STATE)
#define RTS_OPT_RC	(RTS_OPT_UC | XRDMA_QP_MIN_RNR_TIMER)
#define RTS_OPT_UD	(XRDMA_QP_CUR_STATE | XRDMA_QP_QKEY)
#define INIT_RC		(XRDMA_QP_PKEY_INDEX | XRDMA_QP_PORT |		\
			 XRDMA_QP_ACCESS_FLAGS)
#define RTR_REQ_UC	(XRDMA_QP_AV | XRDMA_QP_PATH_MTU |		\
			 XRDMA_QP_DEST_QPN | XRDMA_QP_RQ_PSN)
#define RTR_REQ_RC	(RTR_REQ_UC | XRDMA_QP_MAX_DEST_RD_ATOMIC |	\
			 XRDMA_QP_MIN_RNR_TIMER)
#define RTS_REQ_RC	(XRDMA_QP_TIMEOUT | XRDMA_QP_RETRY_CNT |	\
			 XRDMA_QP_RNR_RETRY | XRDMA_QP_SQ_PSN |		\
			 XRDMA_QP_MAX_QP_RD_ATOMIC)
#define SQD_OPT_XRC	(XRDMA_QP_PORT | XRDMA_QP_AV | XRDMA_QP_TIMEOUT |	\
			 XRDMA_QP_ALT_PATH | XRDMA_QP_ACCESS_FLAGS |	\
			 XRDMA_QP_PKEY_INDEX | XRDMA_QP_PATH_MIG_STATE)

static const struct qp_trans qp_table[XRDMA_QPS_NUM][XRDMA_QPS_NUM] = {
	[XRDMA_QPS_RESET] = {
		[XRDMA_QPS_RESET] = { .valid = true },
		[XRDMA_QPS_INIT] = {
			.valid = true,
			.req = {
				[T_RC] = XRDMA_QP_PKEY_INDEX | XRDMA_QP_PORT |
					 XRDMA_QP_ACCESS_FLAGS,
				[T_UC] = XRDMA_QP_PKEY_INDEX | XRDMA_QP_PORT |
					 XRDMA_QP_ACCESS_FLAGS,
				[T_UD] = XRDMA_QP_PKEY_INDEX | XRDMA_QP_PORT |
					 XRDMA_QP_QKEY,
				[T_GSI] = XRDMA_QP_PKEY_INDEX | XRDMA_QP_QKEY,
				[T_XRC_INI] = INIT_RC,
				[T_XRC_TGT] = INIT_RC,
			},
		},
		[XRDMA_QPS_ERR] = { .valid = true },
	},
	[XRDMA_QPS_INIT] = {
		[XRDMA_QPS_RESET] = { .valid = true },
		[XRDMA_QPS_ERR] = { .valid = true },
		[XRDMA_QPS_INIT] = {
			.valid = true,
			.opt = {
				[T_RC] = XRDMA_QP_PKEY_INDEX | XRDMA_QP_PORT |
					 XRDMA_QP_ACCESS_FLAGS,
				[T_UC] = XRDMA_QP_PKEY_INDEX | XRDMA_QP_PORT |
					 XRDMA_QP_ACCESS_FLAGS,
				[T_UD] = XRDMA_QP_PKEY_INDEX | XRDMA_QP_PORT |
					 XRDMA_QP_QKEY,
				[T_GSI] = XRDMA_QP_PKEY_INDEX | XRDMA_QP_QKEY,
				[T_XRC_INI] = INIT_RC,
				[T_XRC_TGT] = INIT_RC,
			},
		},
		[XRDMA_QPS_RTR] = {
			.valid = true,
			.req = {
				[T_RC] = XRDMA_QP_AV | XRDMA_QP_PATH_MTU |
					 XRDMA_QP_DEST_QPN | XRDMA_QP_RQ_PSN |
					 XRDMA_QP_MAX_DEST_RD_ATOMIC |
					 XRDMA_QP_MIN_RNR_TIMER,
				[T_UC] = XRDMA_QP_AV | XRDMA_QP_PATH_MTU |
					 XRDMA_QP_DEST_QPN | XRDMA_QP_RQ_PSN,
				[T_XRC_INI] = RTR_REQ_UC,
				[T_XRC_TGT] = RTR_REQ_RC,
			},
			.opt = {
				[T_RC] = PATH_OPT,
				[T_UC] = PATH_OPT,
				[T_XRC_INI] = PATH_OPT,
				[T_XRC_TGT] = PATH_OPT,
				[T_UD] = XRDMA_QP_PKEY_INDEX | XRDMA_QP_QKEY,
				[T_GSI] = XRDMA_QP_PKEY_INDEX | XRDMA_QP_QKEY,
			},
		},
	},
	[XRDMA_QPS_RTR] = {
		[XRDMA_QPS_RESET] = { .valid = true },
		[XRDMA_QPS_ERR] = { .valid = true },
		[XRDMA_QPS_RTS] = {
			.valid = true,
			.req = {
				[T_RC] = XRDMA_QP_TIMEOUT | XRDMA_QP_RETRY_CNT |
					 XRDMA_QP_RNR_RETRY | XRDMA_QP_SQ_PSN |
					 XRDMA_QP_MAX_QP_RD_ATOMIC,
				[T_UC] = XRDMA_QP_SQ_PSN,
				[T_UD] = XRDMA_QP_SQ_PSN,
				[T_GSI] = XRDMA_QP_SQ_PSN,
				[T_XRC_INI] = RTS_REQ_RC,
				[T_XRC_TGT] = XRDMA_QP_TIMEOUT | XRDMA_QP_SQ_PSN,
			},
			.opt = {
				[T_RC] = RTS_OPT_RC,
				[T_UC] = RTS_OPT_UC,
				[T_UD] = RTS_OPT_UD,
				[T_GSI] = RTS_OPT_UD,
				[T_XRC_INI] = RTS_OPT_UC,
				[T_XRC_TGT] = RTS_OPT_RC,
			},
		},
	},
	[XRDMA_QPS_RTS] = {
		[XRDMA_QPS_RESET] = { .valid = true },
		[XRDMA_QPS_ERR] = { .valid = true },
		[XRDMA_QPS_RTS] = {
			.valid = true,
			.opt = {
				[T_RC] = RTS_OPT_RC,
				[T_UC] = RTS_OPT_UC,
				[T_UD] = RTS_OPT_UD,
				[T_GSI] = RTS_OPT_UD,
				[T_XRC_INI] = RTS_OPT_UC,
				[T_XRC_TGT] = RTS_OPT_RC,
			},
		},
		[XRDMA_QPS_SQD] = {
			.valid = true,
			.opt = {
				[T_RC] = XRDMA_QP_EN_SQD_ASYNC_NOTIFY,
				[T_UC] = XRDMA_QP_EN_SQD_ASYNC_NOTIFY,
				[T_UD] = XRDMA_QP_EN_SQD_ASYNC_NOTIFY,
				[T_GSI] = XRDMA_QP_EN_SQD_ASYNC_NOTIFY,
				[T_XRC_INI] = XRDMA_QP_EN_SQD_ASYNC_NOTIFY,
				[T_XRC_TGT] = XRDMA_QP_EN_SQD_ASYNC_NOTIFY,
			},
		},
	},
	[XRDMA_QPS_SQD] = {
		[XRDMA_QPS_RESET] = { .valid = true },
		[XRDMA_QPS_ERR] = { .valid = true },
		[XRDMA_QPS_RTS] = {
			.valid = true,
			.opt = {
				[T_RC] = RTS_OPT_RC,
				[T_UC] = RTS_OPT_UC,
				[T_UD] = RTS_OPT_UD,
				[T_GSI] = RTS_OPT_UD,
				[T_XRC_INI] = RTS_OPT_UC,
				[T_XRC_TGT] = RTS_OPT_RC,
			},
		},
		[XRDMA_QPS_SQD] = {
			.valid = true,
			.opt = {
				[T_RC] = XRDMA_QP_PORT | XRDMA_QP_AV |
					 XRDMA_QP_TIMEOUT | XRDMA_QP_RETRY_CNT |
					 XRDMA_QP_RNR_RETRY |
					 XRDMA_QP_MAX_QP_RD_ATOMIC |
					 XRDMA_QP_MAX_DEST_RD_ATOMIC |
					 XRDMA_QP_ALT_PATH |
					 XRDMA_QP_ACCESS_FLAGS |
					 XRDMA_QP_PKEY_INDEX |
					 XRDMA_QP_MIN_RNR_TIMER |
					 XRDMA_QP_PATH_MIG_STATE,
				[T_UC] = XRDMA_QP_AV | XRDMA_QP_ALT_PATH |
					 XRDMA_QP_ACCESS_FLAGS |
					 XRDMA_QP_PKEY_INDEX |
					 XRDMA_QP_PATH_MIG_STATE,
				[T_UD] = XRDMA_QP_PKEY_INDEX | XRDMA_QP_QKEY,
				[T_GSI] = XRDMA_QP_PKEY_INDEX | XRDMA_QP_QKEY,
				[T_XRC_INI] = SQD_OPT_XRC | XRDMA_QP_RETRY_CNT |
					      XRDMA_QP_RNR_RETRY |
					      XRDMA_QP_MAX_QP_RD_ATOMIC,
				[T_XRC_TGT] = SQD_OPT_XRC |
					      XRDMA_QP_MAX_DEST_RD_ATOMIC |
					      XRDMA_QP_MIN_RNR_TIMER,
			},
		},
	},
	[XRDMA_QPS_SQE] = {
		[XRDMA_QPS_RESET] = { .valid = true },
		[XRDMA_QPS_ERR] = { .valid = true },
		/* SQE exists only for unreliable QPs: RC goes to ERR instead */
		[XRDMA_QPS_RTS] = {
			.valid = true,
			.opt = {
				[T_UC] = XRDMA_QP_CUR_STATE |
					 XRDMA_QP_ACCESS_FLAGS,
				[T_UD] = XRDMA_QP_CUR_STATE | XRDMA_QP_QKEY,
				[T_GSI] = XRDMA_QP_CUR_STATE | XRDMA_QP_QKEY,
			},
		},
	},
	[XRDMA_QPS_ERR] = {
		[XRDMA_QPS_RESET] = { .valid = true },
		[XRDMA_QPS_ERR] = { .valid = true },
	},
};

static int qp_type_index(enum xrdma_qp_type type)
{
	switch (type) {
	case XRDMA_QPT_RC:
		return T_RC;
	case XRDMA_QPT_UC:
		return T_UC;
	case XRDMA_QPT_UD:
		return T_UD;
	case XRDMA_QPT_GSI:
		return T_GSI;
	case XRDMA_QPT_XRC_INI:
		return T_XRC_INI;
	case XRDMA_QPT_XRC_TGT:
		return T_XRC_TGT;
	default:
		return -1;
	}
}

/**
 * xrdma_modify_qp_is_ok - check a QP transition and its attribute mask
 * @cur: current state
 * @next: requested state (equal to @cur when @mask has no XRDMA_QP_STATE)
 * @type: QP type
 * @mask: attribute mask of the modify
 *
 * Return: true if the transition exists for @type, @mask holds every
 * required attribute and nothing beyond the required and optional ones
 * (and XRDMA_QP_STATE).
 */
bool xrdma_modify_qp_is_ok(enum xrdma_qp_state cur, enum xrdma_qp_state next,
			   enum xrdma_qp_type type, int mask)
{
	const struct qp_trans *t;
	int ti = qp_type_index(type);
	int req, opt;

	if (ti < 0 || (unsigned int)cur >= XRDMA_QPS_NUM ||
	    (unsigned int)next >= XRDMA_QPS_NUM)
		return false;
	if (mask & ~XRDMA_QP_ATTR_MASK_ALL)
		return false;
	/* SQE exists only for unreliable QPs: RC and XRC have no SQE->RTS */
	if (cur == XRDMA_QPS_SQE && next == XRDMA_QPS_RTS &&
	    (type == XRDMA_QPT_RC || type == XRDMA_QPT_XRC_INI ||
	     type == XRDMA_QPT_XRC_TGT))
		return false;
	/* moving to another state requires naming it */
	if (cur != next && !(mask & XRDMA_QP_STATE))
		return false;
	/* SQE, like ERR for the others, is entered by the device only */
	if (next == XRDMA_QPS_SQE && cur != XRDMA_QPS_SQE)
		return false;

	t = &qp_table[cur][next];
	if (!t->valid)
		return false;
	req = t->req[ti];
	opt = t->opt[ti];
	if ((mask & req) != req)
		return false;
	if (mask & ~(req | opt | XRDMA_QP_STATE))
		return false;
	return true;
}
EXPORT_SYMBOL_GPL(xrdma_modify_qp_is_ok);

/**
 * xrdma_check_qp_attr - check the values of the attributes in @mask
 * @dev: device
 * @type: QP type
 * @attr: values
 * @mask: which of them are set
 *
 * Return: 0 or -EINVAL.
 */
int xrdma_check_qp_attr(struct xrdma_device *dev, enum xrdma_qp_type type,
			const struct xrdma_qp_attr *attr, int mask)
{
	const struct xrdma_device_attr *da = &dev->attr;

	if (mask & XRDMA_QP_STATE && (unsigned int)attr->qp_state >=
	    XRDMA_QPS_NUM)
		return -EINVAL;
	if (mask & XRDMA_QP_PORT &&
	    (attr->port_num < 1 || attr->port_num > dev->num_ports))
		return -EINVAL;
	if (mask & XRDMA_QP_PKEY_INDEX && attr->pkey_index != 0)
		return -EINVAL;
	if (mask & XRDMA_QP_ACCESS_FLAGS &&
	    (attr->qp_access_flags & ~(XRDMA_ACCESS_LOCAL_WRITE |
				       XRDMA_ACCESS_REMOTE_WRITE |
				       XRDMA_ACCESS_REMOTE_READ |
				       XRDMA_ACCESS_REMOTE_ATOMIC |
				       XRDMA_ACCESS_FLUSH) ||
	     xrdma_check_flush_access(dev, attr->qp_access_flags)))
		return -EINVAL;
	if (mask & XRDMA_QP_PATH_MTU && xrdma_mtu_to_int(attr->path_mtu) < 0)
		return -EINVAL;
	if (mask & XRDMA_QP_AV && xrdma_check_ah_attr(dev, &attr->ah_attr))
		return -EINVAL;
	if (mask & XRDMA_QP_TIMEOUT && attr->timeout > 31)
		return -EINVAL;
	if (mask & XRDMA_QP_MIN_RNR_TIMER && attr->min_rnr_timer > 31)
		return -EINVAL;
	if (mask & XRDMA_QP_RETRY_CNT && attr->retry_cnt > 7)
		return -EINVAL;
	if (mask & XRDMA_QP_RNR_RETRY && attr->rnr_retry > 7)
		return -EINVAL;
	if (mask & XRDMA_QP_RQ_PSN && attr->rq_psn > 0xffffff)
		return -EINVAL;
	if (mask & XRDMA_QP_SQ_PSN && attr->sq_psn > 0xffffff)
		return -EINVAL;
	if (mask & XRDMA_QP_DEST_QPN && attr->dest_qp_num > 0xffffff)
		return -EINVAL;
	if (mask & XRDMA_QP_MAX_QP_RD_ATOMIC &&
	    attr->max_rd_atomic > da->max_qp_init_rd_atom)
		return -EINVAL;
	if (mask & XRDMA_QP_MAX_DEST_RD_ATOMIC &&
	    attr->max_dest_rd_atomic > da->max_qp_rd_atom)
		return -EINVAL;
	if (mask & XRDMA_QP_CAP)
		return -EINVAL;	/* QP resize is not supported */
	return 0;
}
