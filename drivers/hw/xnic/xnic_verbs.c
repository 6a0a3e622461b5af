// SPDX-License-Identifier: GPL-2.0
/*
 * xnic: the device's verbs table (xnic_dev_ops) and the verbs of no object
 * file of their own: user contexts and mmap, doorbell kicks, hardware
 * counters, the clock, PD, AH, multicast and XRC domains; and the destroy
 * command the object files share.  The objects: xnic_cq.c, xnic_qp.c (QP,
 * SRQ), xnic_mr.c (MR, MW); port and GIDs: xnic_codes.c.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <xrdma/xrdma_umem.h>
#include "xnic.h"

/* ------------------------------------------------------------------ */
/* Commands                                                            */

int xnic_destroy_obj(struct xnic_dev *xdev, u8 opcode, u32 index)
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
	[XNIC_CTR_WIRE_TX_PKTS] = "wire_tx_packets",
	[XNIC_CTR_WIRE_TX_BYTES] = "wire_tx_bytes",
	[XNIC_CTR_WIRE_RX_PKTS] = "wire_rx_packets",
	[XNIC_CTR_WIRE_RX_BYTES] = "wire_rx_bytes",
	[XNIC_CTR_WIRE_RETRANSMITS] = "wire_retransmits",
	[XNIC_CTR_WIRE_TIMEOUTS] = "wire_timeouts",
	[XNIC_CTR_WIRE_SEQ_NAKS_SENT] = "wire_seq_naks_sent",
	[XNIC_CTR_WIRE_SEQ_NAKS_RCVD] = "wire_seq_naks_rcvd",
	[XNIC_CTR_WIRE_RNR_NAKS_SENT] = "wire_rnr_naks_sent",
	[XNIC_CTR_WIRE_RNR_NAKS_RCVD] = "wire_rnr_naks_rcvd",
	[XNIC_CTR_WIRE_ERR_NAKS_SENT] = "wire_err_naks_sent",
	[XNIC_CTR_WIRE_ERR_NAKS_RCVD] = "wire_err_naks_rcvd",
	[XNIC_CTR_WIRE_DUPLICATES] = "wire_duplicates",
	[XNIC_CTR_WIRE_OOS_DROPS] = "wire_oos_drops",
	[XNIC_CTR_WIRE_ICRC_ERRORS] = "wire_icrc_errors",
	[XNIC_CTR_WIRE_MALFORMED] = "wire_malformed",
	[XNIC_CTR_WIRE_NO_QP] = "wire_drop_noqp",
	[XNIC_CTR_WIRE_NO_NEIGH] = "wire_no_neigh",
	[XNIC_CTR_WIRE_ECN_MARKED] = "wire_ecn_marked",
	[XNIC_CTR_WIRE_ETH_TX] = "wire_eth_tx",
	[XNIC_CTR_WIRE_ETH_RX] = "wire_eth_rx",
	[XNIC_CTR_SERVE_WAITS] = "serve_waits",
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
/* PD, AH                                                              */

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

