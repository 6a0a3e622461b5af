// SPDX-License-Identifier: GPL-2.0
/*
 * xnic: verbs values to and from the device's codes (QP types and states,
 * path MTUs, port states, MODIFY_QP attributes), and port 1 as the verbs
 * see it: its attributes and the GID table (the driver's copy and SET_GID).
 */
#include "xnic.h"

/* ------------------------------------------------------------------ */
/* The device's codes                                                  */

/*
 * QP types, QP states, path MTUs, port states and MODIFY_QP attributes
 * have codes of the device's own (xnic_hw.h).  Their values happen to be
 * the verbs' today; the translation does not count on it.
 */

/**
 * xnic_qp_type_to_hw - a QP type in the device's code
 * @type: verbs QP type
 *
 * Return: XNIC_QPT_*, or -EOPNOTSUPP for a type the device has not.
 */
int xnic_qp_type_to_hw(enum xrdma_qp_type type)
{
	switch (type) {
	case XRDMA_QPT_RC:
		return XNIC_QPT_RC;
	case XRDMA_QPT_UC:
		return XNIC_QPT_UC;
	case XRDMA_QPT_UD:
		return XNIC_QPT_UD;
	case XRDMA_QPT_GSI:
		return XNIC_QPT_GSI;
	case XRDMA_QPT_XRC_INI:
		return XNIC_QPT_XRC_INI;
	case XRDMA_QPT_XRC_TGT:
		return XNIC_QPT_XRC_TGT;
	default:
		return -EOPNOTSUPP;
	}
}

static const struct {
	enum xrdma_qp_state verbs;
	enum xnic_qp_state hw;
} xnic_qp_states[] = {
	{ XRDMA_QPS_RESET,	XNIC_QPS_RESET },
	{ XRDMA_QPS_INIT,	XNIC_QPS_INIT },
	{ XRDMA_QPS_RTR,	XNIC_QPS_RTR },
	{ XRDMA_QPS_RTS,	XNIC_QPS_RTS },
	{ XRDMA_QPS_SQD,	XNIC_QPS_SQD },
	{ XRDMA_QPS_SQE,	XNIC_QPS_SQE },
	{ XRDMA_QPS_ERR,	XNIC_QPS_ERR },
};

/**
 * xnic_qp_state_to_hw - a QP state in the device's code (MODIFY_QP)
 * @state: verbs QP state
 *
 * Return: XNIC_QPS_*, or -EINVAL.
 */
int xnic_qp_state_to_hw(enum xrdma_qp_state state)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(xnic_qp_states); i++)
		if (xnic_qp_states[i].verbs == state)
			return xnic_qp_states[i].hw;
	return -EINVAL;
}

/**
 * xnic_qp_state_from_hw - a QP state the device reported (QUERY_QP)
 * @state: enum xnic_qp_state
 *
 * Return: XRDMA_QPS_*, or -EINVAL for a code the driver does not know.
 */
int xnic_qp_state_from_hw(u32 state)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(xnic_qp_states); i++)
		if (xnic_qp_states[i].hw == state)
			return xnic_qp_states[i].verbs;
	return -EINVAL;
}

static const struct {
	enum xrdma_mtu verbs;
	enum xnic_mtu hw;
} xnic_mtus[] = {
	{ XRDMA_MTU_256,	XNIC_MTU_256 },
	{ XRDMA_MTU_512,	XNIC_MTU_512 },
	{ XRDMA_MTU_1024,	XNIC_MTU_1024 },
	{ XRDMA_MTU_2048,	XNIC_MTU_2048 },
	{ XRDMA_MTU_4096,	XNIC_MTU_4096 },
};

/**
 * xnic_mtu_to_hw - a path MTU in the device's code
 * @mtu: verbs MTU
 *
 * Return: XNIC_MTU_*, or -EINVAL.
 */
int xnic_mtu_to_hw(enum xrdma_mtu mtu)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(xnic_mtus); i++)
		if (xnic_mtus[i].verbs == mtu)
			return xnic_mtus[i].hw;
	return -EINVAL;
}

/**
 * xnic_mtu_from_hw - an MTU the device reported (QUERY_CAPS)
 * @mtu: enum xnic_mtu
 *
 * Return: XRDMA_MTU_*, or -EINVAL for a code the driver does not know.
 */
static int xnic_mtu_from_hw(u32 mtu)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(xnic_mtus); i++)
		if (xnic_mtus[i].hw == mtu)
			return xnic_mtus[i].verbs;
	return -EINVAL;
}

/**
 * xnic_port_state_from_hw - a port state the device reported
 * @state: enum xnic_port_state (QUERY_CAPS, the PORT_CHANGE event)
 *
 * Return: XRDMA_PORT_*, or -EINVAL for a code the driver does not know.
 */
int xnic_port_state_from_hw(u32 state)
{
	switch (state) {
	case XNIC_PORT_DOWN:
		return XRDMA_PORT_DOWN;
	case XNIC_PORT_ACTIVE:
		return XRDMA_PORT_ACTIVE;
	default:
		return -EINVAL;
	}
}

/* MODIFY_QP attributes: the verbs mask bit and the device's */
static const struct {
	u32 verbs;
	u32 hw;
} xnic_qp_mod_bits[] = {
	{ XRDMA_QP_STATE,		XNIC_QP_MOD_STATE },
	{ XRDMA_QP_ACCESS_FLAGS,	XNIC_QP_MOD_ACCESS },
	{ XRDMA_QP_PORT,		XNIC_QP_MOD_PORT },
	{ XRDMA_QP_QKEY,		XNIC_QP_MOD_QKEY },
	{ XRDMA_QP_AV,			XNIC_QP_MOD_AV },
	{ XRDMA_QP_PATH_MTU,		XNIC_QP_MOD_PATH_MTU },
	{ XRDMA_QP_TIMEOUT,		XNIC_QP_MOD_TIMEOUT },
	{ XRDMA_QP_RETRY_CNT,		XNIC_QP_MOD_RETRY_CNT },
	{ XRDMA_QP_RNR_RETRY,		XNIC_QP_MOD_RNR_RETRY },
	{ XRDMA_QP_RQ_PSN,		XNIC_QP_MOD_RQ_PSN },
	{ XRDMA_QP_MAX_QP_RD_ATOMIC,	XNIC_QP_MOD_MAX_RD_ATOMIC },
	{ XRDMA_QP_MIN_RNR_TIMER,	XNIC_QP_MOD_MIN_RNR_TIMER },
	{ XRDMA_QP_SQ_PSN,		XNIC_QP_MOD_SQ_PSN },
	{ XRDMA_QP_MAX_DEST_RD_ATOMIC,	XNIC_QP_MOD_MAX_DEST_RD_ATOMIC },
	{ XRDMA_QP_DEST_QPN,		XNIC_QP_MOD_DEST_QPN },
};

/*
 * Attributes of no concern to the device: the core's (the current state,
 * the capabilities), kept by the driver for QUERY_QP (P_Key index, SQD
 * notification, migration state) or of a path the device has not.
 */
#define XNIC_QP_MASK_HOST_ONLY	(XRDMA_QP_CUR_STATE |			\
				 XRDMA_QP_EN_SQD_ASYNC_NOTIFY |		\
				 XRDMA_QP_PKEY_INDEX |			\
				 XRDMA_QP_ALT_PATH |			\
				 XRDMA_QP_PATH_MIG_STATE |		\
				 XRDMA_QP_CAP)

/**
 * xnic_qp_mask_to_hw - a MODIFY_QP attribute mask in the device's bits
 * @mask: XRDMA_QP_*
 * @hw_mask: set to the XNIC_QP_MOD_* bits of @mask
 *
 * Bits of no concern to the device are left out.
 *
 * Return: 0, or -EINVAL for a bit neither the device nor the driver knows.
 */
int xnic_qp_mask_to_hw(u32 mask, u32 *hw_mask)
{
	u32 hw = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(xnic_qp_mod_bits); i++) {
		if (mask & xnic_qp_mod_bits[i].verbs) {
			hw |= xnic_qp_mod_bits[i].hw;
			mask &= ~xnic_qp_mod_bits[i].verbs;
		}
	}
	if (mask & ~(u32)XNIC_QP_MASK_HOST_ONLY)
		return -EINVAL;
	*hw_mask = hw;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Port and GID table                                                  */

int xnic_query_port(struct xrdma_device *dev, u32 port,
		    struct xrdma_port_attr *attr)
{
	struct xnic_dev *xdev = to_xdev(dev);
	int mtu = xnic_mtu_from_hw(xdev->caps.port_mtu);
	u32 reg = XNIC_REG_ETH(port, XNIC_REG_ETH_PORT_MTU);
	int active;

	/* a device that reports an MTU the driver does not know gets 4096 */
	if (mtu < 0)
		mtu = XRDMA_MTU_4096;
	/* the active MTU may change (the port's Ethernet); 0: the max */
	active = xnic_mtu_from_hw(xnic_rd(xdev, reg));
	if (active < 0 || active > mtu)
		active = mtu;
	attr->state = READ_ONCE(xdev->port_state);
	attr->max_mtu = mtu;
	attr->active_mtu = active;
	attr->link_layer = XRDMA_LINK_LAYER_ETHERNET;
	attr->gid_tbl_len = XRDMA_GID_TABLE_LEN;
	attr->pkey_tbl_len = 1;
	attr->max_msg_sz = 1U << 31;
	attr->lid = 0;
	attr->active_speed = 1;
	attr->active_width = 1;
	return 0;
}

/* The default GID, fe80::<node GUID>: entries 0 (v1) and 1 (v2). */
static void xnic_default_gid(struct xnic_dev *xdev, union xrdma_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	gid->global.subnet_prefix = cpu_to_be64(0xfe80000000000000ULL);
	gid->global.interface_id = xdev->ibdev.attr.node_guid;
}

/**
 * xnic_gid_init - the driver's copy of the GID table after reset
 * @xdev: device (node GUID known)
 */
void xnic_gid_init(struct xnic_dev *xdev)
{
	int i;

	mutex_init(&xdev->gid_mutex);
	spin_lock_init(&xdev->gid_lock);
	for (i = 0; i < XRDMA_GID_TABLE_LEN; i++) {
		memset(&xdev->gids[i], 0, sizeof(xdev->gids[i]));
		if (i > 1)
			continue;
		xnic_default_gid(xdev, &xdev->gids[i].gid);
		xdev->gids[i].type = i ? XRDMA_GID_TYPE_ROCE_V2 :
				     XRDMA_GID_TYPE_ROCE_V1;
		xdev->gids[i].valid = true;
	}
}

int xnic_query_gid(struct xrdma_device *dev, u32 port, int index,
		   union xrdma_gid *gid)
{
	struct xnic_dev *xdev = to_xdev(dev);
	unsigned long flags;

	spin_lock_irqsave(&xdev->gid_lock, flags);
	if (xdev->gids[index].valid)
		*gid = xdev->gids[index].gid;
	else
		memset(gid, 0, sizeof(*gid));
	spin_unlock_irqrestore(&xdev->gid_lock, flags);
	return 0;
}

/*
 * Program a GID table entry.  Clearing entry 0 or 1 (ib_core clears the
 * whole table when it lets go of the device) restores the default there,
 * so that userspace, which finds the default GID at index 0, keeps
 * working.
 */
int xnic_set_gid(struct xrdma_device *dev, u32 port, u32 index,
		 const union xrdma_gid *gid, enum xrdma_gid_type type)
{
	struct xnic_dev *xdev = to_xdev(dev);
	struct xnic_cmd_set_gid c = {};
	struct xnic_gid_entry e = {};
	unsigned long flags;
	int ret;

	if (gid) {
		e.gid = *gid;
		e.type = type;
		e.valid = true;
	} else if (index <= 1) {
		xnic_default_gid(xdev, &e.gid);
		e.type = index ? XRDMA_GID_TYPE_ROCE_V2 : XRDMA_GID_TYPE_ROCE_V1;
		e.valid = true;
	}
	c.port = cpu_to_le32(port);
	c.index = cpu_to_le32(index);
	memcpy(c.gid, e.gid.raw, sizeof(c.gid));
	c.type = e.type == XRDMA_GID_TYPE_ROCE_V2 ? XNIC_GID_TYPE_ROCE_V2 :
		 XNIC_GID_TYPE_ROCE_V1;
	c.valid = e.valid;
	mutex_lock(&xdev->gid_mutex);
	ret = xnic_cmd_exec(xdev, XNIC_CMD_SET_GID, &c, sizeof(c), NULL, 0);
	if (!ret) {
		spin_lock_irqsave(&xdev->gid_lock, flags);
		xdev->gids[index] = e;
		spin_unlock_irqrestore(&xdev->gid_lock, flags);
	}
	mutex_unlock(&xdev->gid_mutex);
	return ret;
}

