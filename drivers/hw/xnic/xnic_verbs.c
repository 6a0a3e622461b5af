// SPDX-License-Identifier: GPL-2.0
/*
 * xnic: the control path.  Objects (PD, CQ, QP, SRQ, MR, AH), user
 * contexts and mmap.  The memory of queues is xnic_mem.c's.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <xrdma/xrdma_umem.h>
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
static int xnic_qp_type_to_hw(enum xrdma_qp_type type)
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
static int xnic_qp_state_to_hw(enum xrdma_qp_state state)
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
static int xnic_qp_state_from_hw(u32 state)
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
static int xnic_mtu_to_hw(enum xrdma_mtu mtu)
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
static int xnic_qp_mask_to_hw(u32 mask, u32 *hw_mask)
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
/* Commands                                                            */

static int xnic_destroy_obj(struct xnic_dev *xdev, u8 opcode, u32 index)
{
	struct xnic_cmd_obj c = { .index = cpu_to_le32(index) };
	int ret;

	ret = xnic_cmd_exec(xdev, opcode, &c, sizeof(c), NULL, 0);
	if (ret)
		dev_warn(&xdev->pdev->dev, "destroy command 0x%02x of %u: %d\n",
			 opcode, index, ret);
	return ret;
}

/* ------------------------------------------------------------------ */
/* User contexts                                                       */

static int xnic_db_cmd(struct xnic_dev *xdev, u8 opcode, u32 index,
		       dma_addr_t addr)
{
	struct xnic_cmd_alloc_db c = {
		.db_index = cpu_to_le32(index),
		.page_addr = cpu_to_le64(addr),
	};

	return xnic_cmd_exec(xdev, opcode, &c, sizeof(c), NULL, 0);
}

static int xnic_alloc_ucontext(struct xrdma_ucontext *uctx,
			       struct xrdma_udata *udata)
{
	struct xnic_dev *xdev = to_xdev(uctx->device);
	struct xnic_ucontext *xuc = to_xuctx(uctx);
	struct xnic_ucontext_resp resp = {};
	struct xnic_ubuf *ubuf;
	bool kept = false;
	int idx, ret;

	ida_init(&xuc->slot_ida);
	idx = ida_alloc_range(&xdev->db_ida, 1, XNIC_MAX_DB_INDEX - 1,
			      GFP_KERNEL);
	if (idx < 0) {
		ret = idx == -ENOSPC ? -ENOMEM : idx;
		goto err_ida;
	}
	xuc->db_index = idx;
	ubuf = xnic_ubuf_alloc(xdev, uctx, XNIC_DB_PAGE_SIZE);
	if (IS_ERR(ubuf)) {
		ret = PTR_ERR(ubuf);
		goto err_index;
	}
	xuc->db = ubuf;
	ret = xnic_queue_publish(udata, &xuc->db, &xuc->db_entry);
	if (ret)
		goto err_index;
	ret = xnic_db_cmd(xdev, XNIC_CMD_ALLOC_DB, idx, ubuf->buf.dma);
	if (ret) {
		kept = !xnic_cmd_let_go(xdev, ret);
		goto err_entry;
	}

	resp.db_page_offset = xrdma_mmap_entry_offset(xuc->db_entry);
	resp.abi_version = XNIC_ABI_VERSION;
	resp.max_sge = xdev->caps.max_sge;
	resp.max_inline = xdev->caps.max_inline;
	ret = xrdma_copy_to_udata(udata, &resp, sizeof(resp));
	if (ret)
		goto err_db;
	return 0;

err_db:
	kept = !xnic_cmd_let_go(xdev, xnic_db_cmd(xdev, XNIC_CMD_FREE_DB, idx,
						  0));
err_entry:
	ubuf->zombie = kept;
	/* mmap_free may free ubuf now */
	xrdma_mmap_entry_remove(xuc->db_entry);
	xuc->db_entry = NULL;
	/* an index the device may still use is not reused */
	if (kept)
		goto err_ida;
err_index:
	ida_free(&xdev->db_ida, idx);
err_ida:
	ida_destroy(&xuc->slot_ida);
	return ret;
}

/* what alloc_ucontext answered, for a process importing the context */
static int xnic_query_ucontext(struct xrdma_ucontext *uctx,
			       struct xrdma_udata *udata)
{
	struct xnic_dev *xdev = to_xdev(uctx->device);
	struct xnic_ucontext *xuc = to_xuctx(uctx);
	struct xnic_ucontext_resp resp = {};

	if (!xuc->db_entry)
		return -EIO;
	resp.db_page_offset = xrdma_mmap_entry_offset(xuc->db_entry);
	resp.abi_version = XNIC_ABI_VERSION;
	resp.max_sge = xdev->caps.max_sge;
	resp.max_inline = xdev->caps.max_inline;
	return xrdma_copy_to_udata(udata, &resp, sizeof(resp));
}

static void xnic_dealloc_ucontext(struct xrdma_ucontext *uctx)
{
	struct xnic_dev *xdev = to_xdev(uctx->device);
	struct xnic_ucontext *xuc = to_xuctx(uctx);
	int ret;

	ret = xnic_db_cmd(xdev, XNIC_CMD_FREE_DB, xuc->db_index, 0);
	if (ret)
		dev_warn(&xdev->pdev->dev, "FREE_DB %u: %d\n", xuc->db_index,
			 ret);
	xuc->db->zombie = !xnic_cmd_let_go(xdev, ret);
	xrdma_mmap_entry_remove(xuc->db_entry);
	xuc->db_entry = NULL;
	if (xnic_cmd_let_go(xdev, ret))
		ida_free(&xdev->db_ida, xuc->db_index);
	ida_destroy(&xuc->slot_ida);
}

static int xnic_mmap(struct xrdma_ucontext *uctx, struct vm_area_struct *vma)
{
	struct xrdma_mmap_entry *entry = xrdma_mmap_entry_get(uctx, vma);
	struct xnic_ubuf *ubuf;
	int ret;

	if (!entry)
		return -EINVAL;
	ubuf = entry->priv;
	/* device memory by its bus address, as a BAR's pages */
	ret = xrdma_user_mmap_pfn(uctx, vma,
				  ubuf->dm ? PHYS_PFN(ubuf->buf.dma) :
				  page_to_pfn(virt_to_page(ubuf->buf.cpu)),
				  vma->vm_page_prot, entry);
	if (ret)
		xrdma_mmap_entry_put(entry);
	return ret;
}

static void xnic_mmap_free(struct xrdma_mmap_entry *entry)
{
	struct xnic_ubuf *ubuf = entry->priv;

	if (ubuf->dm)
		xnic_dm_release(ubuf);
	else
		xnic_ubuf_free(ubuf);
}

static int xnic_kick_op(struct xrdma_ucontext *uctx, struct xrdma_qp *qp)
{
	xnic_kick_user(to_xdev(uctx->device), to_xuctx(uctx)->db_index);
	return 0;
}

/* the CLOCK register: the microseconds of CQE timestamps, 32 bits */
static const char * const xnic_hw_counter_names[XNIC_CTR_NUM] = {
	[XNIC_CTR_DOORBELLS] = "doorbells",
	[XNIC_CTR_BAD_DOORBELLS] = "bad_doorbells",
	[XNIC_CTR_KICKS] = "kicks",
	[XNIC_CTR_SLEEPS] = "sleeps",
	[XNIC_CTR_WAKEUPS] = "wakeups",
	[XNIC_CTR_WRITER_RUNS] = "writer_runs",
	[XNIC_CTR_YIELDS] = "yields",
	[XNIC_CTR_COMMANDS] = "commands",
	[XNIC_CTR_CMD_ERRORS] = "cmd_errors",
	[XNIC_CTR_EQES] = "eqes",
	[XNIC_CTR_EQ_OVERRUNS] = "eq_overruns",
	[XNIC_CTR_IRQS] = "irqs",
	[XNIC_CTR_CQES] = "cqes",
	[XNIC_CTR_CQ_OVERRUNS] = "cq_overruns",
	[XNIC_CTR_TX_RDMA_WRITE] = "tx_rdma_write",
	[XNIC_CTR_TX_RDMA_WRITE_BYTES] = "tx_rdma_write_bytes",
	[XNIC_CTR_TX_RDMA_WRITE_IMM] = "tx_rdma_write_imm",
	[XNIC_CTR_TX_RDMA_WRITE_IMM_BYTES] = "tx_rdma_write_imm_bytes",
	[XNIC_CTR_TX_SEND] = "tx_send",
	[XNIC_CTR_TX_SEND_BYTES] = "tx_send_bytes",
	[XNIC_CTR_TX_SEND_IMM] = "tx_send_imm",
	[XNIC_CTR_TX_SEND_IMM_BYTES] = "tx_send_imm_bytes",
	[XNIC_CTR_TX_RDMA_READ] = "tx_rdma_read",
	[XNIC_CTR_TX_RDMA_READ_BYTES] = "tx_rdma_read_bytes",
	[XNIC_CTR_TX_CMP_SWAP] = "tx_cmp_swap",
	[XNIC_CTR_TX_FETCH_ADD] = "tx_fetch_add",
	[XNIC_CTR_TX_LOCAL_INV] = "tx_local_inv",
	[XNIC_CTR_TX_SEND_INV] = "tx_send_inv",
	[XNIC_CTR_TX_SEND_INV_BYTES] = "tx_send_inv_bytes",
	[XNIC_CTR_TX_REG_MR] = "tx_reg_mr",
	[XNIC_CTR_TX_BIND_MW] = "tx_bind_mw",
	[XNIC_CTR_TX_NOP] = "tx_nop",
	[XNIC_CTR_TX_MCAST] = "tx_mcast",
	[XNIC_CTR_RX_SEND] = "rx_send",
	[XNIC_CTR_RX_SEND_BYTES] = "rx_send_bytes",
	[XNIC_CTR_RX_WRITE] = "rx_write",
	[XNIC_CTR_RX_WRITE_BYTES] = "rx_write_bytes",
	[XNIC_CTR_RX_READ] = "rx_read",
	[XNIC_CTR_RX_READ_BYTES] = "rx_read_bytes",
	[XNIC_CTR_RX_ATOMIC] = "rx_atomic",
	[XNIC_CTR_RX_MCAST] = "rx_mcast",
	[XNIC_CTR_ERR_LOC_LEN] = "err_loc_len",
	[XNIC_CTR_ERR_LOC_QP_OP] = "err_loc_qp_op",
	[XNIC_CTR_ERR_LOC_PROT] = "err_loc_prot",
	[XNIC_CTR_ERR_MW_BIND] = "err_mw_bind",
	[XNIC_CTR_ERR_FLUSH] = "err_flush",
	[XNIC_CTR_ERR_REM_INV_REQ] = "err_rem_inv_req",
	[XNIC_CTR_ERR_REM_ACCESS] = "err_rem_access",
	[XNIC_CTR_ERR_REM_OP] = "err_rem_op",
	[XNIC_CTR_ERR_RETRY_EXC] = "err_retry_exc",
	[XNIC_CTR_ERR_RNR_RETRY_EXC] = "err_rnr_retry_exc",
	[XNIC_CTR_ERR_OTHER] = "err_other",
	[XNIC_CTR_RNR_NAKS] = "rnr_naks",
	[XNIC_CTR_RETRIES] = "retries",
	[XNIC_CTR_UD_DROP_QKEY] = "ud_drop_qkey",
	[XNIC_CTR_UD_DROP_NOQP] = "ud_drop_noqp",
	[XNIC_CTR_UD_DROP_NORECV] = "ud_drop_norecv",
	[XNIC_CTR_UD_DROP_NOMCG] = "ud_drop_nomcg",
	[XNIC_CTR_UC_DROPS] = "uc_drops",
	[XNIC_CTR_PSN_MISMATCH] = "psn_mismatch",
	[XNIC_CTR_RX_DROP_BAD_SRC] = "rx_drop_bad_src",
	[XNIC_CTR_RX_DROP_PSN] = "rx_drop_psn",
};

/*
 * Drops that answer a guess one at a time: a Q_Key (ud_drop_qkey, and
 * ud_drop_norecv counts the right ones), a live QPN (ud_drop_noqp,
 * rx_drop_bad_src), a multicast group, a UC rkey, a PSN.  Root only
 * (Documentation/security.rst, "Hardware counters").
 */
static const u8 xnic_hw_counter_flags[XNIC_CTR_NUM] = {
	[XNIC_CTR_UD_DROP_QKEY] = XRDMA_HW_COUNTER_PRIVATE,
	[XNIC_CTR_UD_DROP_NOQP] = XRDMA_HW_COUNTER_PRIVATE,
	[XNIC_CTR_UD_DROP_NORECV] = XRDMA_HW_COUNTER_PRIVATE,
	[XNIC_CTR_UD_DROP_NOMCG] = XRDMA_HW_COUNTER_PRIVATE,
	[XNIC_CTR_UC_DROPS] = XRDMA_HW_COUNTER_PRIVATE,
	[XNIC_CTR_PSN_MISMATCH] = XRDMA_HW_COUNTER_PRIVATE,
	[XNIC_CTR_RX_DROP_BAD_SRC] = XRDMA_HW_COUNTER_PRIVATE,
	[XNIC_CTR_RX_DROP_PSN] = XRDMA_HW_COUNTER_PRIVATE,
};

/*
 * The device's counters (QUERY_COUNTERS), @num of them in enum
 * xnic_counter order; one DMA buffer per call.  Sleeps.
 */
static int xnic_get_hw_counters(struct xrdma_device *dev, u64 *values,
				u32 num)
{
	struct xnic_dev *xdev = to_xdev(dev);
	struct xnic_cmd_query_counters c = {}, out;
	struct xnic_dmabuf buf;
	__le64 *v;
	u32 i, n;
	int ret;

	if (!num || num > XNIC_CTR_NUM)
		return -EINVAL;
	ret = xnic_dma_alloc(xdev, &buf, num * sizeof(__le64));
	if (ret)
		return ret;
	c.buf_addr = cpu_to_le64(buf.dma);
	c.num = cpu_to_le32(num);
	ret = xnic_cmd_exec(xdev, XNIC_CMD_QUERY_COUNTERS, &c, sizeof(c),
			    &out, sizeof(out));
	if (!ret) {
		n = le32_to_cpu(out.written);
		v = buf.cpu;
		/* an older device has fewer counters: the rest read 0 */
		for (i = 0; i < num; i++)
			values[i] = i < n ? le64_to_cpu(v[i]) : 0;
	}
	/* after a timeout the device may still write the buffer */
	xnic_dma_free(xdev, &buf, xnic_cmd_let_go(xdev, ret));
	return ret;
}

static int xnic_read_clock_op(struct xrdma_device *dev, u64 *clock)
{
	*clock = xnic_rd(to_xdev(dev), XNIC_REG_CLOCK);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Port, GID, PD, AH                                                   */

static int xnic_query_port(struct xrdma_device *dev, u32 port,
			   struct xrdma_port_attr *attr)
{
	struct xnic_dev *xdev = to_xdev(dev);

	int mtu = xnic_mtu_from_hw(xdev->caps.port_mtu);

	/* a device that reports an MTU the driver does not know gets 4096 */
	if (mtu < 0)
		mtu = XRDMA_MTU_4096;
	attr->state = READ_ONCE(xdev->port_state);
	attr->max_mtu = mtu;
	attr->active_mtu = mtu;
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

static int xnic_query_gid(struct xrdma_device *dev, u32 port, int index,
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
static int xnic_set_gid(struct xrdma_device *dev, u32 port, u32 index,
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

static int xnic_alloc_pd(struct xrdma_pd *pd, struct xrdma_udata *udata)
{
	/* the device learns PD numbers from the objects that use them */
	return 0;
}

static void xnic_dealloc_pd(struct xrdma_pd *pd)
{
}

static int xnic_create_ah(struct xrdma_ah *ah, struct xrdma_udata *udata)
{
	struct xnic_dev *xdev = to_xdev(ah->device);
	unsigned long flags;
	bool valid;

	/*
	 * The core keeps the attributes; UD WQEs carry the GIDs.  The
	 * source GID must be in the table now (if it goes away later, the
	 * send completes with a local QP operation error).  Never sleeps.
	 */
	spin_lock_irqsave(&xdev->gid_lock, flags);
	valid = xdev->gids[ah->attr.sgid_index].valid;
	spin_unlock_irqrestore(&xdev->gid_lock, flags);
	return valid ? 0 : -EINVAL;
}

static void xnic_destroy_ah(struct xrdma_ah *ah)
{
}

/* ------------------------------------------------------------------ */
/* CQ                                                                  */

static int xnic_create_cq(struct xrdma_cq *cq,
			  const struct xrdma_cq_init_attr *attr,
			  struct xrdma_udata *udata)
{
	struct xnic_dev *xdev = to_xdev(cq->device);
	struct xnic_cq *xcq = to_xcq(cq);
	struct xnic_create_cq_resp resp = {};
	struct xnic_cmd_create_cq c = {};
	u32 cqn = cq->res.id, log, ring_bytes, total;
	dma_addr_t dma;
	void *cpu;
	int ret;

	log = max_t(u32, xnic_log_entries(attr->cqe), XNIC_MIN_LOG_CQE);
	ring_bytes = sizeof(struct xnic_cqe) << log;
	total = ring_bytes + sizeof(struct xnic_cq_dbrec);
	spin_lock_init(&xcq->lock);
	mutex_init(&xcq->resize_mutex);
	ret = xnic_queue_alloc(xdev, udata, total, &xcq->buf, &xcq->ubuf,
			       &cpu, &dma);
	if (ret)
		return ret;
	xcq->ring = cpu;
	xcq->dbrec = cpu + ring_bytes;
	xcq->log_cqe = log;
	if (udata) {
		ret = xnic_queue_publish(udata, &xcq->ubuf, &xcq->entry);
		if (ret)
			return ret;
	}

	c.cqn = cpu_to_le32(cqn);
	c.log_cqe = cpu_to_le32(log);
	c.ring_addr = cpu_to_le64(dma);
	c.dbrec_addr = cpu_to_le64(dma + ring_bytes);
	c.flags = cpu_to_le32(XNIC_CQ_F_EVENTS);
	ret = xnic_cmd_exec(xdev, XNIC_CMD_CREATE_CQ, &c, sizeof(c), NULL, 0);
	if (ret)
		goto err_free;

	if (udata) {
		resp.mmap_offset = xrdma_mmap_entry_offset(xcq->entry);
		resp.mmap_size = xcq->ubuf->buf.size;
		resp.log_cqe = log;
		resp.dbrec_offset = ring_bytes;
		resp.cqn = cqn;
		ret = xrdma_copy_to_udata(udata, &resp, sizeof(resp));
		if (ret) {
			ret = xnic_destroy_obj(xdev, XNIC_CMD_DESTROY_CQ, cqn);
			xnic_queue_free(xdev, &xcq->buf, &xcq->ubuf,
					&xcq->entry,
					xnic_cmd_let_go(xdev, ret));
			return -EFAULT;
		}
	}
	cq->cqe = min(1U << log, xdev->caps.max_cqe);
	return 0;

err_free:
	xnic_queue_free(xdev, &xcq->buf, &xcq->ubuf, &xcq->entry,
			xnic_cmd_let_go(xdev, ret));
	return ret;
}

/*
 * Resize: a new ring and record (a new mapping for a user CQ), RESIZE_CQ
 * moves the CQEs and the record into them (commands.rst), then the old
 * memory goes.  A user CQ's library holds its CQ lock throughout, so its
 * ci is in the record; a kernel CQ takes no CQE while the command runs
 * (next_dbrec set), and an arm goes to both records.
 */
static int xnic_resize_cq(struct xrdma_cq *cq, u32 cqe,
			  struct xrdma_udata *udata)
{
	struct xnic_dev *xdev = to_xdev(cq->device);
	struct xnic_cq *xcq = to_xcq(cq);
	struct xnic_resize_cq_resp resp = {};
	struct xnic_cmd_resize_cq c = {};
	struct xnic_dmabuf kbuf = {};
	struct xnic_ubuf *ubuf = NULL;
	struct xrdma_mmap_entry *entry = NULL;
	bool user = xcq->ubuf || xcq->entry;
	u32 log, ring_bytes;
	unsigned long flags;
	dma_addr_t dma;
	void *cpu;
	int ret;

	if (user != !!udata || (udata && udata->outlen < sizeof(resp)))
		return -EINVAL;
	log = max_t(u32, xnic_log_entries(cqe), XNIC_MIN_LOG_CQE);
	ring_bytes = sizeof(struct xnic_cqe) << log;
	mutex_lock(&xcq->resize_mutex);
	if (log == xcq->log_cqe) {
		resp.log_cqe = log;
		ret = udata ? xrdma_copy_to_udata(udata, &resp, sizeof(resp)) :
			      0;
		goto out;
	}
	ret = xnic_queue_alloc(xdev, udata,
			       ring_bytes + sizeof(struct xnic_cq_dbrec),
			       &kbuf, &ubuf, &cpu, &dma);
	if (ret)
		goto out;
	if (udata) {
		ret = xnic_queue_publish(udata, &ubuf, &entry);
		if (ret)
			goto out;
		resp.mmap_offset = xrdma_mmap_entry_offset(entry);
		resp.mmap_size = ubuf->buf.size;
		resp.log_cqe = log;
		resp.dbrec_offset = ring_bytes;
		/* before the switch: afterwards there is no way back */
		ret = xrdma_copy_to_udata(udata, &resp, sizeof(resp));
		if (ret) {
			xnic_queue_free(xdev, &kbuf, &ubuf, &entry, true);
			goto out;
		}
	} else {
		spin_lock_irqsave(&xcq->lock, flags);
		xcq->next_dbrec = cpu + ring_bytes;
		xcq->next_dbrec->arm = xcq->dbrec->arm;
		spin_unlock_irqrestore(&xcq->lock, flags);
	}

	c.cqn = cpu_to_le32(cq->res.id);
	c.log_cqe = cpu_to_le32(log);
	c.ring_addr = cpu_to_le64(dma);
	c.dbrec_addr = cpu_to_le64(dma + ring_bytes);
	ret = xnic_cmd_exec(xdev, XNIC_CMD_RESIZE_CQ, &c, sizeof(c), NULL, 0);

	spin_lock_irqsave(&xcq->lock, flags);
	xcq->next_dbrec = NULL;
	if (!ret) {
		swap(xcq->buf, kbuf);
		swap(xcq->ubuf, ubuf);
		swap(xcq->entry, entry);
		xcq->ring = cpu;
		xcq->dbrec = cpu + ring_bytes;
		xcq->log_cqe = log;
		xcq->last_qp = NULL;
	}
	spin_unlock_irqrestore(&xcq->lock, flags);
	/* the old memory on success, the new one on failure */
	xnic_queue_free(xdev, &kbuf, &ubuf, &entry, xnic_cmd_let_go(xdev, ret));
out:
	if (!ret)
		WRITE_ONCE(cq->cqe, min(1U << xcq->log_cqe, xdev->caps.max_cqe));
	mutex_unlock(&xcq->resize_mutex);
	return ret;
}

static void xnic_destroy_cq(struct xrdma_cq *cq)
{
	struct xnic_dev *xdev = to_xdev(cq->device);
	struct xnic_cq *xcq = to_xcq(cq);
	int ret;

	ret = xnic_destroy_obj(xdev, XNIC_CMD_DESTROY_CQ, cq->res.id);
	xnic_queue_free(xdev, &xcq->buf, &xcq->ubuf, &xcq->entry,
			xnic_cmd_let_go(xdev, ret));
}

/* ------------------------------------------------------------------ */
/* QP                                                                  */

struct xnic_qp_geom {
	u32 sq_log, sq_shift, rq_log, rq_shift;
	u32 sq_bytes, rq_bytes, dbrec_off, total;
};

static int xnic_qp_geometry(struct xnic_dev *xdev,
			    const struct xrdma_qp_init_attr *attr,
			    struct xnic_qp_geom *g)
{
	const struct xrdma_qp_cap *cap = &attr->cap;
	/* an XRC_INI QP sends only: its receives are the target's SRQ's */
	bool rq = !attr->srq && attr->qp_type != XRDMA_QPT_XRC_INI;

	memset(g, 0, sizeof(*g));
	g->sq_log = xnic_log_entries(cap->max_send_wr);
	g->sq_shift = xnic_sq_wqe_shift(cap->max_send_sge,
					cap->max_inline_data);
	if (g->sq_shift > XNIC_MAX_WQE_SHIFT || g->sq_log > 16)
		return -EINVAL;
	g->sq_bytes = 1U << (g->sq_log + g->sq_shift);
	if (rq) {
		g->rq_log = xnic_log_entries(cap->max_recv_wr);
		g->rq_shift = xnic_rq_wqe_shift(cap->max_recv_sge);
		if (g->rq_shift > XNIC_MAX_WQE_SHIFT || g->rq_log > 16)
			return -EINVAL;
		g->rq_bytes = 1U << (g->rq_log + g->rq_shift);
	}
	g->dbrec_off = ALIGN(g->sq_bytes + g->rq_bytes, XNIC_DBREC_ALIGN);
	g->total = g->dbrec_off + sizeof(struct xnic_qp_dbrec);
	return 0;
}

static int xnic_alloc_slot(struct xnic_dev *xdev, struct xnic_qp *xqp)
{
	struct ida *ida = xqp->uctx ? &xqp->uctx->slot_ida : &xdev->kslot_ida;
	int slot = ida_alloc_max(ida, XNIC_DB_SLOTS - 1, GFP_KERNEL);

	if (slot < 0)
		return slot == -ENOSPC ? -ENOMEM : slot;
	xqp->db_slot = slot;
	return 0;
}

static void xnic_free_slot(struct xnic_dev *xdev, struct xnic_qp *xqp)
{
	ida_free(xqp->uctx ? &xqp->uctx->slot_ida : &xdev->kslot_ida,
		 xqp->db_slot);
}

static void xnic_qp_free_wrid(struct xnic_qp *xqp)
{
	kvfree(xqp->sq.wrid);
	kvfree(xqp->rq.wrid);
	xqp->sq.wrid = NULL;
	xqp->rq.wrid = NULL;
}

static int xnic_qp_respond(struct xnic_qp *xqp, const struct xnic_qp_geom *g,
			   struct xrdma_udata *udata)
{
	struct xnic_create_qp_resp resp = {};

	resp.mmap_offset = xrdma_mmap_entry_offset(xqp->entry);
	resp.mmap_size = xqp->ubuf->buf.size;
	resp.sq_offset = 0;
	resp.sq_log_wqe = g->sq_log;
	resp.sq_wqe_shift = g->sq_shift;
	resp.rq_offset = g->sq_bytes;
	resp.rq_log_wqe = g->rq_log;
	resp.rq_wqe_shift = g->rq_shift;
	resp.dbrec_offset = g->dbrec_off;
	resp.db_slot = xqp->db_slot;
	return xrdma_copy_to_udata(udata, &resp, sizeof(resp));
}

/*
 * An XRC_TGT QP: a number in a domain, no queues, no doorbell slot, no
 * PD or CQs; requests name the XRC SRQ they land in.  It belongs to the
 * domain, not to a context (the core creates and modifies it without
 * udata, and it outlives its creator's context), so nothing of it is tied
 * to one; there is nothing to map (a response, if asked for, is zero).
 */
static int xnic_create_xrc_tgt(struct xrdma_qp *qp,
			       struct xrdma_qp_init_attr *attr,
			       struct xrdma_udata *udata)
{
	struct xnic_dev *xdev = to_xdev(qp->device);
	struct xnic_qp *xqp = to_xqp(qp);
	struct xnic_create_qp_resp resp = {};
	struct xnic_cmd_create_qp c = {};
	int ret;

	if (!attr->xrcd)
		return -EINVAL;
	spin_lock_init(&xqp->sq.lock);
	spin_lock_init(&xqp->rq.lock);
	memset(&attr->cap, 0, sizeof(attr->cap));
	xqp->cap = attr->cap;
	xqp->sq_cfg.qp_type = XRDMA_QPT_XRC_TGT;
	xqp->attr.port_num = attr->port_num;

	c.qpn = cpu_to_le32(qp->qp_num);
	c.qp_type = XNIC_QPT_XRC_TGT;
	c.srqn = cpu_to_le32(XNIC_NO_SRQ);
	c.xrcdn = cpu_to_le32(attr->xrcd->xrcdn);
	ret = xnic_cmd_exec(xdev, XNIC_CMD_CREATE_QP, &c, sizeof(c), NULL, 0);
	if (ret || !udata)
		return ret;
	ret = xrdma_copy_to_udata(udata, &resp, sizeof(resp));
	if (ret) {
		xnic_destroy_obj(xdev, XNIC_CMD_DESTROY_QP, qp->qp_num);
		return -EFAULT;
	}
	return 0;
}

static int xnic_create_qp(struct xrdma_qp *qp,
			  struct xrdma_qp_init_attr *attr,
			  struct xrdma_udata *udata)
{
	struct xnic_dev *xdev = to_xdev(qp->device);
	const struct xnic_caps *caps = &xdev->caps;
	struct xnic_qp *xqp = to_xqp(qp);
	struct xrdma_qp_cap *cap = &attr->cap;
	struct xnic_cmd_create_qp c = {};
	struct xnic_qp_geom g;
	dma_addr_t dma;
	void *cpu;
	int qp_type, ret;

	qp_type = xnic_qp_type_to_hw(qp->qp_type);
	if (qp_type < 0)
		return qp_type;
	if ((qp_type == XNIC_QPT_XRC_INI || qp_type == XNIC_QPT_XRC_TGT) &&
	    !(xdev->features & XNIC_FEAT_XRC))
		return -EOPNOTSUPP;
	if (qp_type == XNIC_QPT_XRC_TGT)
		return xnic_create_xrc_tgt(qp, attr, udata);
	ret = xnic_qp_geometry(xdev, attr, &g);
	if (ret)
		return ret;
	xqp->kernel = !udata;
	xqp->uctx = udata ? to_xuctx(udata->uctx) : NULL;
	xqp->sq_sig_all = !!attr->sq_sig_all;
	spin_lock_init(&xqp->sq.lock);
	spin_lock_init(&xqp->rq.lock);

	ret = xnic_alloc_slot(xdev, xqp);
	if (ret)
		return ret;
	ret = xnic_queue_alloc(xdev, udata, g.total, &xqp->buf, &xqp->ubuf,
			       &cpu, &dma);
	if (ret)
		goto err_slot;
	xqp->sq.ring = cpu;
	xqp->sq.log_size = g.sq_log;
	xqp->sq.wqe_shift = g.sq_shift;
	xqp->rq.ring = g.rq_bytes ? cpu + g.sq_bytes : NULL;
	xqp->rq.log_size = g.rq_log;
	xqp->rq.wqe_shift = g.rq_shift;
	xqp->dbrec = cpu + g.dbrec_off;

	/* what the QP provides: at least what was asked for */
	cap->max_send_wr = min(1U << g.sq_log, caps->max_qp_wr);
	cap->max_send_sge = min(xnic_sq_wqe_max_sge(g.sq_shift), caps->max_sge);
	cap->max_inline_data = min(xnic_sq_wqe_max_inline(g.sq_shift),
				   caps->max_inline);
	if (!g.rq_bytes) {
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
	} else {
		cap->max_recv_wr = min(1U << g.rq_log, caps->max_qp_wr);
		cap->max_recv_sge = min(xnic_rq_wqe_max_sge(g.rq_shift),
					caps->max_sge);
	}
	xqp->cap = *cap;
	/* the GSI QP posts and completes as UD */
	xqp->sq_cfg.qp_type = qp->qp_type == XRDMA_QPT_GSI ? XRDMA_QPT_UD :
			      qp->qp_type;
	xqp->sq_cfg.max_sge = cap->max_send_sge;
	xqp->sq_cfg.max_inline = cap->max_inline_data;
	xqp->sq_cfg.sig_all = xqp->sq_sig_all;
	xqp->rq_max_sge = cap->max_recv_sge;
	xqp->attr.port_num = attr->port_num;

	if (udata) {
		ret = xnic_queue_publish(udata, &xqp->ubuf, &xqp->entry);
		if (ret)
			goto err_slot;
	} else {
		ret = -ENOMEM;
		xqp->sq.wrid = kvcalloc(1U << g.sq_log, sizeof(u64),
					GFP_KERNEL);
		if (!xqp->sq.wrid)
			goto err_free;
		if (g.rq_bytes) {
			xqp->rq.wrid = kvcalloc(1U << g.rq_log, sizeof(u64),
						GFP_KERNEL);
			if (!xqp->rq.wrid)
				goto err_free;
		}
		/* poll_cq finds kernel QPs here */
		ret = xa_insert(&xdev->qp_xa, qp->qp_num, xqp, GFP_KERNEL);
		if (ret)
			goto err_free;
	}

	c.qpn = cpu_to_le32(qp->qp_num);
	c.qp_type = qp_type;
	c.sq_log_wqe = g.sq_log;
	c.sq_wqe_shift = g.sq_shift;
	c.rq_log_wqe = g.rq_log;
	c.rq_wqe_shift = g.rq_shift;
	c.sq_sig_all = xqp->sq_sig_all;
	c.pdn = cpu_to_le32(qp->pd->res.id);
	c.send_cqn = cpu_to_le32(qp->send_cq->res.id);
	c.recv_cqn = cpu_to_le32(qp->recv_cq ? qp->recv_cq->res.id : 0);
	c.srqn = cpu_to_le32(qp->srq ? qp->srq->res.id : XNIC_NO_SRQ);
	c.db_index = cpu_to_le32(xqp->uctx ? xqp->uctx->db_index :
				 XNIC_KERNEL_DB_INDEX);
	c.db_slot = cpu_to_le32(xqp->db_slot);
	c.sq_addr = cpu_to_le64(dma);
	c.rq_addr = cpu_to_le64(g.rq_bytes ? dma + g.sq_bytes : 0);
	c.dbrec_addr = cpu_to_le64(dma + g.dbrec_off);
	ret = xnic_cmd_exec(xdev, XNIC_CMD_CREATE_QP, &c, sizeof(c), NULL, 0);
	if (ret)
		goto err_xa;

	if (udata) {
		ret = xnic_qp_respond(xqp, &g, udata);
		if (ret) {
			ret = xnic_destroy_obj(xdev, XNIC_CMD_DESTROY_QP,
					       qp->qp_num);
			xnic_queue_free(xdev, &xqp->buf, &xqp->ubuf,
					&xqp->entry,
					xnic_cmd_let_go(xdev, ret));
			if (xnic_cmd_let_go(xdev, ret))
				xnic_free_slot(xdev, xqp);
			return -EFAULT;
		}
	}
	return 0;

err_xa:
	if (!udata)
		xa_erase(&xdev->qp_xa, qp->qp_num);
err_free:
	xnic_qp_free_wrid(xqp);
	xnic_queue_free(xdev, &xqp->buf, &xqp->ubuf, &xqp->entry,
			xnic_cmd_let_go(xdev, ret));
	/* a doorbell slot the device may still watch is not reused */
	if (!xnic_cmd_let_go(xdev, ret))
		return ret;
err_slot:
	xnic_free_slot(xdev, xqp);
	return ret;
}

/**
 * xnic_fill_modify_qp - a MODIFY_QP command from verbs attributes
 * @cmd: zeroed command body
 * @qpn: the QP
 * @attr: values (only those in @mask are meaningful)
 * @mask: XRDMA_QP_* mask
 *
 * Return: 0, or -EINVAL for a mask bit, state or MTU the device cannot
 * be told.
 */
static int xnic_fill_modify_qp(struct xnic_cmd_modify_qp *cmd, u32 qpn,
			       const struct xrdma_qp_attr *attr, int mask)
{
	u32 hw_mask;
	int ret;

	ret = xnic_qp_mask_to_hw(mask, &hw_mask);
	if (ret)
		return ret;
	cmd->qpn = cpu_to_le32(qpn);
	cmd->mask = cpu_to_le32(hw_mask);
	if (mask & XRDMA_QP_STATE) {
		ret = xnic_qp_state_to_hw(attr->qp_state);
		if (ret < 0)
			return ret;
		cmd->state = ret;
	}
	if (mask & XRDMA_QP_PATH_MTU) {
		ret = xnic_mtu_to_hw(attr->path_mtu);
		if (ret < 0)
			return ret;
		cmd->path_mtu = ret;
	}
	if (mask & XRDMA_QP_TIMEOUT)
		cmd->timeout = attr->timeout;
	if (mask & XRDMA_QP_RETRY_CNT)
		cmd->retry_cnt = attr->retry_cnt;
	if (mask & XRDMA_QP_RNR_RETRY)
		cmd->rnr_retry = attr->rnr_retry;
	if (mask & XRDMA_QP_MIN_RNR_TIMER)
		cmd->min_rnr_timer = attr->min_rnr_timer;
	if (mask & XRDMA_QP_MAX_QP_RD_ATOMIC)
		cmd->max_rd_atomic = attr->max_rd_atomic;
	if (mask & XRDMA_QP_MAX_DEST_RD_ATOMIC)
		cmd->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & XRDMA_QP_QKEY)
		cmd->qkey = cpu_to_le32(attr->qkey);
	if (mask & XRDMA_QP_RQ_PSN)
		cmd->rq_psn = cpu_to_le32(attr->rq_psn & 0xffffff);
	if (mask & XRDMA_QP_SQ_PSN)
		cmd->sq_psn = cpu_to_le32(attr->sq_psn & 0xffffff);
	if (mask & XRDMA_QP_DEST_QPN)
		cmd->dest_qpn = cpu_to_le32(attr->dest_qp_num & 0xffffff);
	if (mask & XRDMA_QP_ACCESS_FLAGS)
		cmd->access = cpu_to_le32(xnic_access_to_hw(attr->qp_access_flags));
	if (mask & XRDMA_QP_PORT)
		cmd->port_num = attr->port_num;
	else if (mask & XRDMA_QP_AV)
		cmd->port_num = attr->ah_attr.port_num;
	if (mask & XRDMA_QP_AV) {
		memcpy(cmd->dgid, attr->ah_attr.dgid.raw, sizeof(cmd->dgid));
		cmd->sgid_index = attr->ah_attr.sgid_index;
	}
	return 0;
}

static void xnic_save_qp_attr(struct xnic_qp *xqp,
			      const struct xrdma_qp_attr *attr, int mask)
{
	struct xrdma_qp_attr *a = &xqp->attr;

	if (mask & XRDMA_QP_QKEY)
		a->qkey = attr->qkey;
	if (mask & XRDMA_QP_PORT)
		a->port_num = attr->port_num;
	if (mask & XRDMA_QP_ACCESS_FLAGS)
		a->qp_access_flags = attr->qp_access_flags;
	if (mask & XRDMA_QP_PKEY_INDEX)
		a->pkey_index = attr->pkey_index;
	if (mask & XRDMA_QP_PATH_MTU)
		a->path_mtu = attr->path_mtu;
	if (mask & XRDMA_QP_DEST_QPN)
		a->dest_qp_num = attr->dest_qp_num;
	if (mask & XRDMA_QP_RQ_PSN)
		a->rq_psn = attr->rq_psn;
	if (mask & XRDMA_QP_SQ_PSN)
		a->sq_psn = attr->sq_psn;
	if (mask & XRDMA_QP_AV)
		a->ah_attr = attr->ah_attr;
	if (mask & XRDMA_QP_TIMEOUT)
		a->timeout = attr->timeout;
	if (mask & XRDMA_QP_RETRY_CNT)
		a->retry_cnt = attr->retry_cnt;
	if (mask & XRDMA_QP_RNR_RETRY)
		a->rnr_retry = attr->rnr_retry;
	if (mask & XRDMA_QP_MIN_RNR_TIMER)
		a->min_rnr_timer = attr->min_rnr_timer;
	if (mask & XRDMA_QP_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = attr->max_rd_atomic;
	if (mask & XRDMA_QP_MAX_DEST_RD_ATOMIC)
		a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & XRDMA_QP_EN_SQD_ASYNC_NOTIFY)
		a->en_sqd_async_notify = attr->en_sqd_async_notify;
	if (mask & XRDMA_QP_PATH_MIG_STATE)
		a->path_mig_state = attr->path_mig_state;
}

static int xnic_modify_qp(struct xrdma_qp *qp, struct xrdma_qp_attr *attr,
			  int mask, struct xrdma_udata *udata)
{
	struct xnic_dev *xdev = to_xdev(qp->device);
	struct xnic_qp *xqp = to_xqp(qp);
	enum xrdma_qp_state cur = READ_ONCE(qp->state);
	struct xnic_cmd_modify_qp c = {};
	int ret;

	ret = xnic_fill_modify_qp(&c, qp->qp_num, attr, mask);
	if (ret)
		return ret;
	ret = xnic_cmd_exec(xdev, XNIC_CMD_MODIFY_QP, &c, sizeof(c), NULL, 0);
	if (ret)
		return ret;
	xnic_save_qp_attr(xqp, attr, mask);
	if (mask & XRDMA_QP_STATE && attr->qp_state == XRDMA_QPS_RESET &&
	    cur != XRDMA_QPS_RESET && xqp->kernel)
		xnic_qp_reset_queues(xqp);
	return 0;
}

static int xnic_query_qp(struct xrdma_qp *qp, struct xrdma_qp_attr *attr,
			 int mask, struct xrdma_qp_init_attr *init_attr)
{
	struct xnic_dev *xdev = to_xdev(qp->device);
	struct xnic_qp *xqp = to_xqp(qp);
	struct xnic_cmd_obj c = { .index = cpu_to_le32(qp->qp_num) };
	struct xnic_cmd_query_qp_out out;
	int ret, state;

	ret = xnic_cmd_exec(xdev, XNIC_CMD_QUERY_QP, &c, sizeof(c), &out,
			    sizeof(out));
	if (ret)
		return ret;
	state = xnic_qp_state_from_hw(out.state);
	if (state < 0) {
		dev_warn_ratelimited(&xdev->pdev->dev,
				     "QUERY_QP %u: unknown state %u\n",
				     qp->qp_num, out.state);
		return -EIO;
	}
	*attr = xqp->attr;
	attr->sq_psn = le32_to_cpu(out.sq_psn) & 0xffffff;
	attr->rq_psn = le32_to_cpu(out.rq_psn) & 0xffffff;
	attr->cap = xqp->cap;
	/* the device moved it to ERR and the event is still on its way */
	if (state == XRDMA_QPS_ERR)
		xrdma_qp_set_error(qp);
	init_attr->cap = xqp->cap;
	init_attr->sq_sig_all = xqp->sq_sig_all;
	init_attr->port_num = qp->port_num;
	return 0;
}

static void xnic_destroy_qp(struct xrdma_qp *qp)
{
	struct xnic_dev *xdev = to_xdev(qp->device);
	struct xnic_qp *xqp = to_xqp(qp);
	struct xnic_srq *srq = qp->srq ? to_xsrq(qp->srq) : NULL;
	bool let_go;
	int ret;

	ret = xnic_destroy_obj(xdev, XNIC_CMD_DESTROY_QP, qp->qp_num);
	let_go = xnic_cmd_let_go(xdev, ret);
	/* an XRC_TGT QP has no queues, slot or CQs */
	if (qp->qp_type == XRDMA_QPT_XRC_TGT)
		return;
	if (xqp->kernel) {
		xa_erase(&xdev->qp_xa, qp->qp_num);
		/* forget its completions; waits for pollers using it */
		xnic_cq_clean(to_xcq(qp->send_cq), qp->qp_num, srq);
		if (qp->recv_cq && qp->recv_cq != qp->send_cq)
			xnic_cq_clean(to_xcq(qp->recv_cq), qp->qp_num, srq);
		xnic_qp_free_wrid(xqp);
	}
	xnic_queue_free(xdev, &xqp->buf, &xqp->ubuf, &xqp->entry, let_go);
	if (let_go)
		xnic_free_slot(xdev, xqp);
}

/* ------------------------------------------------------------------ */
/* SRQ                                                                 */

static int xnic_create_srq(struct xrdma_srq *srq,
			   struct xrdma_srq_init_attr *attr,
			   struct xrdma_udata *udata)
{
	struct xnic_dev *xdev = to_xdev(srq->device);
	const struct xnic_caps *caps = &xdev->caps;
	struct xnic_srq *xsrq = to_xsrq(srq);
	struct xnic_create_srq_resp resp = {};
	struct xnic_cmd_create_srq c = {};
	u32 srqn = srq->res.id, log, shift, ring_bytes, total;
	bool xrc = attr->srq_type == XRDMA_SRQT_XRC;
	dma_addr_t dma;
	void *cpu;
	int ret;

	/*
	 * An XRC SRQ is a user one: its completions name XRC_TGT QPs on its
	 * CQ, and the kernel's poll_cq finds QPs, not SRQs, by number
	 * (xnic_cqe_process()); a process's library recycles its entries
	 * from the consumer count in the doorbell record.
	 */
	if (xrc && (!udata || !(xdev->features & XNIC_FEAT_XRC)))
		return -EOPNOTSUPP;
	if (attr->srq_type != XRDMA_SRQT_BASIC && !xrc)
		return -EOPNOTSUPP;
	if (xrc && (!attr->xrcd || !attr->cq))
		return -EINVAL;
	srq->srq_num = srqn;
	log = xnic_log_entries(attr->attr.max_wr);
	shift = xnic_rq_wqe_shift(attr->attr.max_sge);
	if (shift > XNIC_MAX_WQE_SHIFT || log > 16)
		return -EINVAL;
	ring_bytes = 1U << (log + shift);
	total = ring_bytes + sizeof(struct xnic_qp_dbrec);
	spin_lock_init(&xsrq->lock);
	mutex_init(&xsrq->modify_mutex);
	atomic_set(&xsrq->done, 0);
	xsrq->kernel = !udata;
	ret = xnic_queue_alloc(xdev, udata, total, &xsrq->buf, &xsrq->ubuf,
			       &cpu, &dma);
	if (ret)
		return ret;
	xsrq->ring = cpu;
	xsrq->dbrec = cpu + ring_bytes;
	xsrq->log_size = log;
	xsrq->wqe_shift = shift;
	attr->attr.max_wr = min(1U << log, caps->max_srq_wr);
	attr->attr.max_sge = min(xnic_rq_wqe_max_sge(shift), caps->max_sge);
	xsrq->max_wr = attr->attr.max_wr;
	xsrq->max_sge = attr->attr.max_sge;
	xsrq->limit = attr->attr.srq_limit;
	if (udata) {
		ret = xnic_queue_publish(udata, &xsrq->ubuf, &xsrq->entry);
		if (ret)
			return ret;
	}
	ret = xa_insert(&xdev->srq_xa, srqn, xsrq, GFP_KERNEL);
	if (ret)
		goto err_free;

	c.srqn = cpu_to_le32(srqn);
	c.pdn = cpu_to_le32(srq->pd->res.id);
	c.log_wqe = log;
	c.wqe_shift = shift;
	c.limit = cpu_to_le32(xsrq->limit);
	c.ring_addr = cpu_to_le64(dma);
	c.dbrec_addr = cpu_to_le64(dma + ring_bytes);
	if (xrc) {
		c.type = XNIC_SRQT_XRC;
		c.xrcdn = cpu_to_le32(attr->xrcd->xrcdn);
		c.cqn = cpu_to_le32(attr->cq->res.id);
	}
	ret = xnic_cmd_exec(xdev, XNIC_CMD_CREATE_SRQ, &c, sizeof(c), NULL, 0);
	if (ret)
		goto err_xa;

	if (udata) {
		resp.mmap_offset = xrdma_mmap_entry_offset(xsrq->entry);
		resp.mmap_size = xsrq->ubuf->buf.size;
		resp.log_wqe = log;
		resp.wqe_shift = shift;
		resp.dbrec_offset = ring_bytes;
		resp.srqn = srqn;
		ret = xrdma_copy_to_udata(udata, &resp, sizeof(resp));
		if (ret) {
			ret = xnic_destroy_obj(xdev, XNIC_CMD_DESTROY_SRQ, srqn);
			xa_erase(&xdev->srq_xa, srqn);
			xnic_eq_sync(xdev);
			xnic_queue_free(xdev, &xsrq->buf, &xsrq->ubuf,
					&xsrq->entry,
					xnic_cmd_let_go(xdev, ret));
			return -EFAULT;
		}
	}
	return 0;

err_xa:
	xa_erase(&xdev->srq_xa, srqn);
	xnic_eq_sync(xdev);
err_free:
	xnic_queue_free(xdev, &xsrq->buf, &xsrq->ubuf, &xsrq->entry,
			xnic_cmd_let_go(xdev, ret));
	return ret;
}

/*
 * Grow a user SRQ's ring to 2^@log WQEs: a new mapping, RESIZE_SRQ moves
 * the posted WQEs and the record (commands.rst), the old memory goes.
 * The library holds its SRQ lock, so nothing is posted meanwhile.
 * Kernel SRQs grow within their ring only: their posts cannot wait.
 */
static int xnic_srq_move(struct xnic_srq *xsrq, u32 log,
			 struct xrdma_udata *udata,
			 struct xnic_modify_srq_resp *resp)
{
	struct xnic_dev *xdev = to_xdev(xsrq->ibsrq.device);
	u32 ring_bytes = 1U << (log + xsrq->wqe_shift);
	struct xnic_cmd_resize_srq c = {};
	struct xrdma_mmap_entry *entry = NULL;
	struct xnic_ubuf *ubuf = NULL;
	struct xnic_dmabuf kbuf = {};
	unsigned long flags;
	dma_addr_t dma;
	void *cpu;
	int ret;

	if (xsrq->kernel || !udata || udata->outlen < sizeof(*resp))
		return -EINVAL;
	ret = xnic_queue_alloc(xdev, udata,
			       ring_bytes + sizeof(struct xnic_qp_dbrec),
			       &kbuf, &ubuf, &cpu, &dma);
	if (ret)
		return ret;
	ret = xnic_queue_publish(udata, &ubuf, &entry);
	if (ret)
		return ret;
	resp->mmap_offset = xrdma_mmap_entry_offset(entry);
	resp->mmap_size = ubuf->buf.size;
	resp->log_wqe = log;
	resp->dbrec_offset = ring_bytes;
	/* before the switch: afterwards there is no way back */
	ret = xrdma_copy_to_udata(udata, resp, sizeof(*resp));
	if (ret) {
		xnic_queue_free(xdev, &kbuf, &ubuf, &entry, true);
		return ret;
	}
	c.srqn = cpu_to_le32(xsrq->ibsrq.res.id);
	c.log_wqe = log;
	c.ring_addr = cpu_to_le64(dma);
	c.dbrec_addr = cpu_to_le64(dma + ring_bytes);
	ret = xnic_cmd_exec(xdev, XNIC_CMD_RESIZE_SRQ, &c, sizeof(c), NULL, 0);
	if (!ret) {
		spin_lock_irqsave(&xsrq->lock, flags);
		swap(xsrq->ubuf, ubuf);
		swap(xsrq->entry, entry);
		xsrq->ring = cpu;
		xsrq->dbrec = cpu + ring_bytes;
		xsrq->log_size = log;
		spin_unlock_irqrestore(&xsrq->lock, flags);
	}
	/* the old memory on success, the new one on failure */
	xnic_queue_free(xdev, &kbuf, &ubuf, &entry, xnic_cmd_let_go(xdev, ret));
	return ret;
}

static int xnic_modify_srq(struct xrdma_srq *srq, struct xrdma_srq_attr *attr,
			   u32 mask, struct xrdma_udata *udata)
{
	struct xnic_dev *xdev = to_xdev(srq->device);
	struct xnic_srq *xsrq = to_xsrq(srq);
	struct xnic_modify_srq_resp resp = {};
	struct xnic_cmd_modify_srq c = {};
	u32 max_wr, log;
	int ret = 0;

	mutex_lock(&xsrq->modify_mutex);
	max_wr = xsrq->max_wr;
	if (mask & XRDMA_SRQ_MAX_WR) {
		/* grow only: the verbs do not shrink an SRQ */
		if (attr->max_wr < max_wr) {
			ret = -EINVAL;
			goto out;
		}
		max_wr = attr->max_wr;
	}
	if (mask & XRDMA_SRQ_LIMIT && attr->srq_limit > max_wr) {
		ret = -EINVAL;
		goto out;
	}
	if (mask & XRDMA_SRQ_MAX_WR) {
		log = xnic_log_entries(max_wr);
		if (log > xsrq->log_size) {
			ret = xnic_srq_move(xsrq, log, udata, &resp);
			if (ret)
				goto out;
		} else if (udata && udata->outlen) {
			resp.log_wqe = xsrq->log_size;
		}
		/* the ring's capacity, as create reports it */
		max_wr = min(1U << xsrq->log_size, xdev->caps.max_srq_wr);
		WRITE_ONCE(xsrq->max_wr, max_wr);
		resp.max_wr = max_wr;
		if (udata && udata->outlen) {
			ret = xrdma_copy_to_udata(udata, &resp, sizeof(resp));
			if (ret)
				goto out;
		}
	}
	if (mask & XRDMA_SRQ_LIMIT) {
		c.srqn = cpu_to_le32(srq->res.id);
		c.limit = cpu_to_le32(attr->srq_limit);
		ret = xnic_cmd_exec(xdev, XNIC_CMD_MODIFY_SRQ, &c, sizeof(c),
				    NULL, 0);
		if (ret)
			goto out;
		WRITE_ONCE(xsrq->limit, attr->srq_limit);
	}
out:
	mutex_unlock(&xsrq->modify_mutex);
	return ret;
}

static int xnic_query_srq(struct xrdma_srq *srq, struct xrdma_srq_attr *attr)
{
	struct xnic_srq *xsrq = to_xsrq(srq);

	attr->max_wr = READ_ONCE(xsrq->max_wr);
	attr->max_sge = xsrq->max_sge;
	attr->srq_limit = READ_ONCE(xsrq->limit);
	return 0;
}

static void xnic_destroy_srq(struct xrdma_srq *srq)
{
	struct xnic_dev *xdev = to_xdev(srq->device);
	struct xnic_srq *xsrq = to_xsrq(srq);
	int ret;

	ret = xnic_destroy_obj(xdev, XNIC_CMD_DESTROY_SRQ, srq->res.id);
	xa_erase(&xdev->srq_xa, srq->res.id);
	xnic_eq_sync(xdev);
	xnic_queue_free(xdev, &xsrq->buf, &xsrq->ubuf, &xsrq->entry,
			xnic_cmd_let_go(xdev, ret));
}

/* ------------------------------------------------------------------ */
/* MR                                                                  */

/* An MR's rights in the device: the remote ones and MW_BIND. */
static u32 xnic_mr_access_to_hw(u32 access)
{
	return xnic_access_to_hw(access) |
	       (access & XRDMA_ACCESS_MW_BIND ? XNIC_ACCESS_MW_BIND : 0);
}

static void xnic_reg_mr_fill(struct xrdma_mr *mr, struct xnic_cmd_reg_mr *c,
			     u32 flags)
{
	struct xnic_mr *xmr = to_xmr(mr);

	c->key = cpu_to_le32(mr->lkey);
	c->pdn = cpu_to_le32(mr->pd->res.id);
	c->access = cpu_to_le32(xnic_mr_access_to_hw(mr->access));
	c->flags = cpu_to_le32(flags);
	c->iova = cpu_to_le64(mr->iova);
	c->length = cpu_to_le64(mr->length);
	c->mtt_addr = cpu_to_le64(xmr->mtt.cpu ? xmr->mtt.dma : 0);
	c->npages = cpu_to_le32(xmr->npages);
	c->page_shift = xmr->page_shift;
}

static int xnic_reg_mr_cmd(struct xnic_dev *xdev, struct xrdma_mr *mr,
			   u32 flags)
{
	struct xnic_cmd_reg_mr c = {};
	int ret;

	xnic_reg_mr_fill(mr, &c, flags);
	ret = xnic_cmd_exec(xdev, XNIC_CMD_REG_MR, &c, sizeof(c), NULL, 0);
	to_xmr(mr)->in_device = !ret;
	return ret;
}

static int xnic_get_dma_mr(struct xrdma_mr *mr)
{
	struct xnic_dev *xdev = to_xdev(mr->device);

	to_xmr(mr)->page_shift = PAGE_SHIFT;
	return xnic_reg_mr_cmd(xdev, mr, XNIC_MR_F_ALL);
}

static int xnic_alloc_mr(struct xrdma_mr *mr, u32 max_num_sg)
{
	struct xnic_dev *xdev = to_xdev(mr->device);
	struct xnic_mr *xmr = to_xmr(mr);
	int ret;

	ret = xnic_dma_alloc(xdev, &xmr->mtt, max_num_sg * sizeof(__le64));
	if (ret)
		return ret;
	xmr->mtt_max = max_num_sg;
	xmr->npages = max_num_sg;	/* the MTT the device reserves */
	xmr->page_shift = PAGE_SHIFT;
	ret = xnic_reg_mr_cmd(xdev, mr, XNIC_MR_F_FREG);
	xmr->npages = 0;
	if (ret)
		xnic_dma_free(xdev, &xmr->mtt, xnic_cmd_let_go(xdev, ret));
	return ret;
}

static int xnic_set_page(struct xrdma_mr *mr, u64 addr)
{
	struct xnic_mr *xmr = to_xmr(mr);
	__le64 *mtt = xmr->mtt.cpu;

	if (xmr->npages >= xmr->mtt_max)
		return -ENOMEM;
	mtt[xmr->npages++] = cpu_to_le64(addr);
	return 0;
}

static int xnic_map_mr_sg(struct xrdma_mr *mr, struct scatterlist *sg,
			  int sg_nents, unsigned int *sg_offset)
{
	struct xnic_mr *xmr = to_xmr(mr);

	xmr->npages = 0;
	xmr->page_shift = ilog2(mr->page_size);
	return xrdma_sg_to_pages(mr, sg, sg_nents, sg_offset, xnic_set_page);
}

/*
 * The MTT of a dmabuf's range: the pages covering umem->address..+length
 * of the dmabuf's DMA mapping (made by the core for our DMA device), whose
 * segments must be whole pages.
 */
static int xnic_dmabuf_mtt(struct xrdma_umem *umem, __le64 *ent)
{
	u64 first = umem->address >> PAGE_SHIFT, pg = 0;
	struct scatterlist *sg;
	u32 n = 0;
	int i;

	for_each_sgtable_dma_sg(umem->dmabuf_sgt, sg, i) {
		u64 addr = sg_dma_address(sg), len = sg_dma_len(sg), o;

		if ((addr | len) & ~PAGE_MASK)
			return -EINVAL;
		for (o = 0; o < len && n < umem->npages; o += PAGE_SIZE, pg++)
			if (pg >= first)
				ent[n++] = cpu_to_le64(addr + o);
	}
	return n == umem->npages ? 0 : -EINVAL;
}

/*
 * DMA-map @umem (a dmabuf's is mapped already) and build its MTT in @mtt
 * (one entry per page).  Undo with xnic_umem_unmap().
 */
static int xnic_umem_map(struct xnic_dev *xdev, struct xrdma_umem *umem,
			 struct xnic_dmabuf *mtt)
{
	bool dmabuf = umem->dmabuf_attach;
	struct scatterlist *sg;
	__le64 *ent;
	u32 n = 0;
	int ret, i;

	if (!umem->npages || umem->npages > U32_MAX / sizeof(__le64))
		return -EINVAL;
	if (!dmabuf) {
		ret = dma_map_sgtable(xdev->dma_dev, &umem->sgt,
				      DMA_BIDIRECTIONAL, XNIC_UMEM_DMA_ATTRS);
		if (ret)
			return ret;
	}
	/* on behalf of the process: charged to its memory cgroup */
	ret = xnic_dma_alloc_gfp(xdev, mtt, umem->npages * sizeof(__le64),
				 GFP_KERNEL_ACCOUNT);
	if (ret)
		goto err_unmap;
	ent = mtt->cpu;
	if (dmabuf) {
		ret = xnic_dmabuf_mtt(umem, ent);
		if (!ret)
			return 0;
		goto err_mtt;
	}
	/* DMA address of every page; only the first segment starts inside */
	for_each_sgtable_dma_sg(&umem->sgt, sg, i) {
		u64 addr = ALIGN_DOWN(sg_dma_address(sg), PAGE_SIZE);
		u64 end = sg_dma_address(sg) + sg_dma_len(sg);

		for (; addr < end && n < umem->npages; addr += PAGE_SIZE)
			ent[n++] = cpu_to_le64(addr);
	}
	if (n == umem->npages)
		return 0;
	ret = -EINVAL;
err_mtt:
	xnic_dma_free(xdev, mtt, true);
err_unmap:
	if (!dmabuf)
		dma_unmap_sgtable(xdev->dma_dev, &umem->sgt,
				  DMA_BIDIRECTIONAL, XNIC_UMEM_DMA_ATTRS);
	return ret;
}

/*
 * Undo xnic_umem_map() after a command that failed with @ret: if the
 * device may still execute it, keep the pages and the MTT for it.
 *
 * Return: true if @umem was released to the caller, false if it was
 * taken over (xnic_umem_keep()).
 */
static bool xnic_umem_unmap(struct xnic_dev *xdev, struct xrdma_umem *umem,
			    struct xnic_dmabuf *mtt, int ret)
{
	bool let_go = xnic_cmd_let_go(xdev, ret);
	bool mapped = !umem->dmabuf_attach;

	xnic_dma_free(xdev, mtt, let_go);
	if (!let_go) {
		/* the device may execute the REG_MR yet: keep the pages */
		xnic_umem_keep(xdev, umem, mapped);
		return false;
	}
	if (mapped)
		dma_unmap_sgtable(xdev->dma_dev, &umem->sgt, DMA_BIDIRECTIONAL,
				  XNIC_UMEM_DMA_ATTRS);
	return true;
}

/*
 * Kernel memory a dmabuf MR holds, in pages: its MTT (one power-of-two
 * DMA allocation), the device's copy of it (the model keeps one of the
 * same size, allocated by its engine thread: not in the process's memory
 * cgroup), and the exporter's scatterlist of the whole dmabuf mapped for
 * the device (allocated by the exporter with GFP_KERNEL).  A user MR over
 * process memory needs no such charge: its MTT is 1/512 of the pages it
 * pins, which RLIMIT_MEMLOCK bounds; a dmabuf's pages are not counted
 * there, so this charge to the context's max_ucontext_mem cap is what
 * bounds how many a process registers.
 */
static unsigned long xnic_dmabuf_mr_pages(const struct xrdma_umem *umem)
{
	size_t sg = umem->dmabuf_sgt->orig_nents * sizeof(struct scatterlist) +
		    sizeof(struct sg_table);

	return (2UL << get_order(umem->npages * sizeof(__le64))) +
	       DIV_ROUND_UP(sg, PAGE_SIZE);
}

/* Undo the charge of a dmabuf MR (all of it: the MR is gone) */
static void xnic_mr_uncharge(struct xnic_mr *xmr)
{
	if (!xmr->kmem_uctx)
		return;
	xrdma_ucontext_uncharge_kmem(xmr->kmem_uctx, xmr->kmem_pages);
	xmr->kmem_uctx = NULL;
	xmr->kmem_pages = 0;
}

static int xnic_reg_user_mr(struct xrdma_mr *mr, struct xrdma_udata *udata)
{
	struct xnic_dev *xdev = to_xdev(mr->device);
	struct xnic_mr *xmr = to_xmr(mr);
	struct xrdma_umem *umem = mr->umem;
	int ret;

	if (umem->dmabuf_attach) {
		if (!udata || !udata->uctx)
			return -EINVAL;
		xmr->kmem_pages = xnic_dmabuf_mr_pages(umem);
		ret = xrdma_ucontext_charge_kmem(udata->uctx,
						 xmr->kmem_pages);
		if (ret)
			return ret;
		xmr->kmem_uctx = udata->uctx;
	}
	ret = xnic_umem_map(xdev, umem, &xmr->mtt);
	if (ret) {
		xnic_mr_uncharge(xmr);
		return ret;
	}
	xmr->mtt_max = umem->npages;
	xmr->npages = umem->npages;
	xmr->page_shift = PAGE_SHIFT;
	ret = xnic_reg_mr_cmd(xdev, mr, 0);
	if (!ret) {
		/* a dmabuf's mapping is the core's */
		xmr->sgt_mapped = !umem->dmabuf_attach;
		return 0;
	}
	if (!xnic_umem_unmap(xdev, umem, &xmr->mtt, ret))
		mr->umem = NULL;
	/* a kept MTT stays in the memory cgroup until the reset frees it */
	xnic_mr_uncharge(xmr);
	return ret;
}

/*
 * Re-registration: DEREG_MR of the old key, then REG_MR of the new one
 * (same index).  Between the two no key reaches the MR: an operation
 * that looks it up then fails with an access error, as after a dereg;
 * one that found it under the old key completed before DEREG_MR did.
 * If DEREG_MR fails nothing changed; if REG_MR fails the MR stays out of
 * the device (in_device false) until a later rereg registers it again,
 * and dereg has no command to send.
 */
static int xnic_rereg_user_mr(struct xrdma_mr *mr, struct xrdma_mr_rereg *rr)
{
	struct xnic_dev *xdev = to_xdev(mr->device);
	struct xnic_mr *xmr = to_xmr(mr);
	struct xnic_dmabuf mtt = {};
	struct xnic_cmd_reg_mr c = {};
	int ret;

	if (rr->umem) {
		ret = xnic_umem_map(xdev, rr->umem, &mtt);
		if (ret)
			return ret;
	}
	if (xmr->in_device) {
		struct xnic_cmd_dereg_mr d = { .key = cpu_to_le32(mr->lkey) };

		ret = xnic_cmd_exec(xdev, XNIC_CMD_DEREG_MR, &d, sizeof(d),
				    NULL, 0);
		if (ret) {
			/* the device never saw the new MTT */
			if (rr->umem)
				xnic_umem_unmap(xdev, rr->umem, &mtt, 0);
			return ret;
		}
		xmr->in_device = false;
	}
	xnic_reg_mr_fill(mr, &c, 0);
	c.key = cpu_to_le32(rr->key);
	c.pdn = cpu_to_le32(rr->pd->res.id);
	c.access = cpu_to_le32(xnic_mr_access_to_hw(rr->access));
	c.iova = cpu_to_le64(rr->iova);
	c.length = cpu_to_le64(rr->length);
	if (rr->umem) {
		c.mtt_addr = cpu_to_le64(mtt.dma);
		c.npages = cpu_to_le32(rr->umem->npages);
		c.page_shift = PAGE_SHIFT;
	}
	ret = xnic_cmd_exec(xdev, XNIC_CMD_REG_MR, &c, sizeof(c), NULL, 0);
	if (ret) {
		dev_warn(&xdev->pdev->dev, "rereg: REG_MR 0x%x: %d\n",
			 rr->key, ret);
		if (rr->umem && !xnic_umem_unmap(xdev, rr->umem, &mtt, ret))
			rr->umem = NULL;
		return ret;
	}
	xmr->in_device = true;
	if (rr->umem) {
		/* DEREG_MR succeeded: the device let go of the old pages */
		xnic_dma_free(xdev, &xmr->mtt, true);
		if (xmr->sgt_mapped)
			dma_unmap_sgtable(xdev->dma_dev, &mr->umem->sgt,
					  DMA_BIDIRECTIONAL,
					  XNIC_UMEM_DMA_ATTRS);
		xmr->mtt = mtt;
		xmr->mtt_max = rr->umem->npages;
		xmr->npages = rr->umem->npages;
		xmr->sgt_mapped = true;
	}
	return 0;
}

/*
 * Return: 0 when the device let go of the MR (the core unpins its pages),
 * -EAGAIN when the device refused because memory windows are bound to it
 * (nothing changed), or -EBUSY when it may still use it: then a user
 * MR's pages are kept until the device is reset (xnic_umem_keep()).
 */
static int xnic_dereg_mr(struct xrdma_mr *mr)
{
	struct xnic_dev *xdev = to_xdev(mr->device);
	struct xnic_mr *xmr = to_xmr(mr);
	struct xnic_cmd_dereg_mr c = { .key = cpu_to_le32(mr->lkey) };
	bool let_go;
	int ret;

	/* not in the device after a failed rereg */
	ret = xmr->in_device ? xnic_cmd_exec(xdev, XNIC_CMD_DEREG_MR, &c,
					     sizeof(c), NULL, 0) : 0;
	if (ret == -EBUSY)	/* XNIC_CMD_BUSY: windows are bound */
		return -EAGAIN;
	if (ret)
		dev_warn(&xdev->pdev->dev, "DEREG_MR 0x%x: %d\n", mr->lkey, ret);
	let_go = xnic_cmd_let_go(xdev, ret);
	xnic_dma_free(xdev, &xmr->mtt, let_go);
	/*
	 * The MR is gone for the context either way; a kept MTT is charged
	 * to nobody but the memory cgroup until the reset frees it, as a
	 * kept queue (xnic_ubuf_free()).
	 */
	xnic_mr_uncharge(xmr);
	if (!let_go) {
		if (mr->umem) {
			xnic_umem_keep(xdev, mr->umem, xmr->sgt_mapped);
			mr->umem = NULL;
		}
		xmr->sgt_mapped = false;
		return -EBUSY;
	}
	if (xmr->sgt_mapped) {
		dma_unmap_sgtable(xdev->dma_dev, &mr->umem->sgt,
				  DMA_BIDIRECTIONAL, XNIC_UMEM_DMA_ATTRS);
		xmr->sgt_mapped = false;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Multicast                                                           */

static int xnic_mcast_cmd(struct xrdma_qp *qp, const union xrdma_gid *gid,
			  u8 opcode)
{
	struct xnic_cmd_mcast c = { .qpn = cpu_to_le32(qp->qp_num) };

	memcpy(c.gid, gid->raw, sizeof(c.gid));
	return xnic_cmd_exec(to_xdev(qp->device), opcode, &c, sizeof(c),
			     NULL, 0);
}

/* The device's NO_RESOURCES (a table full) is ENOMEM, as ib_core has it. */
static int xnic_attach_mcast(struct xrdma_qp *qp, const union xrdma_gid *gid)
{
	return xnic_mcast_cmd(qp, gid, XNIC_CMD_ATTACH_MCAST);
}

static int xnic_detach_mcast(struct xrdma_qp *qp, const union xrdma_gid *gid)
{
	return xnic_mcast_cmd(qp, gid, XNIC_CMD_DETACH_MCAST);
}

/* Memory windows: entries of the device's key table (ALLOC_MW). */
static int xnic_alloc_mw(struct xrdma_mw *mw, struct xrdma_udata *udata)
{
	struct xnic_dev *xdev = to_xdev(mw->device);
	struct xnic_cmd_alloc_mw c = {
		.key = cpu_to_le32(mw->rkey),
		.pdn = cpu_to_le32(mw->pd->res.id),
		.type = mw->type == XRDMA_MW_TYPE_1 ? XNIC_MW_TYPE_1 :
						      XNIC_MW_TYPE_2,
	};

	return xnic_cmd_exec(xdev, XNIC_CMD_ALLOC_MW, &c, sizeof(c), NULL, 0);
}

/*
 * A window holds no memory of its own: whatever DEALLOC_MW answers, there
 * is nothing to keep for the device (the MR it may be bound to is the
 * MR's business).
 */
static int xnic_dealloc_mw(struct xrdma_mw *mw)
{
	struct xnic_dev *xdev = to_xdev(mw->device);
	struct xnic_cmd_dereg_mr c = { .key = cpu_to_le32(mw->rkey) };
	int ret;

	ret = xnic_cmd_exec(xdev, XNIC_CMD_DEALLOC_MW, &c, sizeof(c), NULL, 0);
	if (ret)
		dev_warn(&xdev->pdev->dev, "DEALLOC_MW 0x%x: %d\n", mw->rkey,
			 ret);
	return 0;
}

/* [offset, offset + mr->length) of @dm as [0, mr->length): XNIC_MR_F_DM */
static int xnic_reg_dm_mr(struct xrdma_mr *mr, struct xrdma_dm *dm,
			  u64 offset)
{
	struct xnic_dm *xdm = container_of(dm, struct xnic_dm, ibdm);
	struct xnic_cmd_reg_mr c = {};
	int ret;

	c.key = cpu_to_le32(mr->lkey);
	c.pdn = cpu_to_le32(mr->pd->res.id);
	c.access = cpu_to_le32(xnic_mr_access_to_hw(mr->access));
	c.flags = cpu_to_le32(XNIC_MR_F_DM);
	c.iova = cpu_to_le64(mr->iova);
	c.length = cpu_to_le64(mr->length);
	c.mtt_addr = cpu_to_le64(((u64)xdm->first << PAGE_SHIFT) + offset);
	ret = xnic_cmd_exec(to_xdev(mr->device), XNIC_CMD_REG_MR, &c,
			    sizeof(c), NULL, 0);
	/* else xnic_dereg_mr() never tells the device to let go of it */
	to_xmr(mr)->in_device = !ret;
	return ret;
}

/* ------------------------------------------------------------------ */
/* XRC domains                                                         */

/*
 * A domain is a number the device compares (an XRC SRQ's and an XRC_TGT
 * QP's must match); it holds nothing in the device.
 */
static int xnic_alloc_xrcd(struct xrdma_xrcd *xrcd)
{
	struct xnic_dev *xdev = to_xdev(xrcd->device);
	int n;

	if (!(xdev->features & XNIC_FEAT_XRC))
		return -EOPNOTSUPP;
	n = ida_alloc_range(&xdev->xrcd_ida, 1, XNIC_MAX_XRCD, GFP_KERNEL);
	if (n < 0)
		return n == -ENOSPC ? -ENOMEM : n;
	xrcd->xrcdn = n;
	return 0;
}

static void xnic_dealloc_xrcd(struct xrdma_xrcd *xrcd)
{
	ida_free(&to_xdev(xrcd->device)->xrcd_ida, xrcd->xrcdn);
}

const struct xrdma_device_ops xnic_dev_ops = {
	.owner = THIS_MODULE,
	.driver_name = XNIC_DRV_NAME,
	.size_pd = XRDMA_OBJ_SIZE(struct xnic_pd, ibpd),
	.size_cq = XRDMA_OBJ_SIZE(struct xnic_cq, ibcq),
	.size_qp = XRDMA_OBJ_SIZE(struct xnic_qp, ibqp),
	.size_srq = XRDMA_OBJ_SIZE(struct xnic_srq, ibsrq),
	.size_mr = XRDMA_OBJ_SIZE(struct xnic_mr, ibmr),
	.size_ah = XRDMA_OBJ_SIZE(struct xnic_ah, ibah),
	.size_mw = XRDMA_OBJ_SIZE(struct xnic_mw, ibmw),
	.size_ucontext = XRDMA_OBJ_SIZE(struct xnic_ucontext, uctx),
	.alloc_ucontext = xnic_alloc_ucontext,
	.dealloc_ucontext = xnic_dealloc_ucontext,
	.query_ucontext = xnic_query_ucontext,
	.mmap = xnic_mmap,
	.mmap_free = xnic_mmap_free,
	.kick = xnic_kick_op,
	.read_clock = xnic_read_clock_op,
	.hw_counter_names = xnic_hw_counter_names,
	.hw_counter_flags = xnic_hw_counter_flags,
	.num_hw_counters = XNIC_CTR_NUM,
	.get_hw_counters = xnic_get_hw_counters,
	.query_port = xnic_query_port,
	.query_gid = xnic_query_gid,
	.set_gid = xnic_set_gid,
	.alloc_pd = xnic_alloc_pd,
	.dealloc_pd = xnic_dealloc_pd,
	.create_cq = xnic_create_cq,
	.destroy_cq = xnic_destroy_cq,
	.poll_cq = xnic_poll_cq,
	.req_notify_cq = xnic_req_notify_cq,
	.resize_cq = xnic_resize_cq,
	.create_qp = xnic_create_qp,
	.modify_qp = xnic_modify_qp,
	.query_qp = xnic_query_qp,
	.destroy_qp = xnic_destroy_qp,
	.post_send = xnic_post_send,
	.post_recv = xnic_post_recv,
	.create_srq = xnic_create_srq,
	.modify_srq = xnic_modify_srq,
	.query_srq = xnic_query_srq,
	.destroy_srq = xnic_destroy_srq,
	.post_srq_recv = xnic_post_srq_recv,
	.get_dma_mr = xnic_get_dma_mr,
	.alloc_mr = xnic_alloc_mr,
	.map_mr_sg = xnic_map_mr_sg,
	.reg_user_mr = xnic_reg_user_mr,
	.dereg_mr = xnic_dereg_mr,
	.rereg_user_mr = xnic_rereg_user_mr,
	.reg_user_mr_dmabuf = xnic_reg_user_mr,
	.alloc_mw = xnic_alloc_mw,
	.dealloc_mw = xnic_dealloc_mw,
	.create_ah = xnic_create_ah,
	.destroy_ah = xnic_destroy_ah,
	.attach_mcast = xnic_attach_mcast,
	.detach_mcast = xnic_detach_mcast,
	.get_netdev = xnic_eth_get_netdev,
	.size_dm = XRDMA_OBJ_SIZE(struct xnic_dm, ibdm),
	.alloc_dm = xnic_dm_alloc,
	.free_dm = xnic_dm_free,
	.reg_dm_mr = xnic_reg_dm_mr,
	.alloc_xrcd = xnic_alloc_xrcd,
	.dealloc_xrcd = xnic_dealloc_xrcd,
};
