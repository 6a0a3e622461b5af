// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_sim: the command queue, the device's own commands (capabilities,
 * GIDs, multicast, counters), and reset.  Commands run in the device's
 * engine thread, in order, between send WQEs; those that manage objects
 * are xnic_sim_obj_cmd()'s (xnic_sim_obj.c; QPs: xnic_sim_qp.c): object
 * numbers are the driver's (24 bits), limits (max_qp, ...) bound how
 * many objects live at a time.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <xrdma/compat.h>
#include "xnic_sim.h"

#define XNIC_SIM_CMD_BATCH	8	/* commands per engine turn */

/* ------------------------------------------------------------------ */
/* Device                                                              */

static u32 xnic_sim_cmd_query_caps(struct xnic_sim_dev *dev, struct xnic_cmd *c)
{
	struct xnic_cmd_query_caps_out *o = &c->caps;

	memset(c->raw, 0, sizeof(c->raw));
	put_unaligned_be64(dev->guid, &o->node_guid);
	o->max_mr_size = cpu_to_le64(XNIC_SIM_MAX_MR_SIZE);
	o->page_size_cap = cpu_to_le64(SZ_4K | SZ_2M | SZ_1G);
	o->vendor_id = cpu_to_le32(XNIC_SIM_VENDOR_ID);
	o->vendor_part_id = cpu_to_le32(XNIC_SIM_PART_ID);
	o->hw_ver = cpu_to_le32(XNIC_HW_VERSION);
	o->max_qp = cpu_to_le32(XNIC_SIM_MAX_QP);
	o->max_qp_wr = cpu_to_le32(1U << XNIC_SIM_MAX_LOG_WQE);
	o->max_sge = cpu_to_le32(XNIC_SIM_MAX_SGE);
	o->max_inline = cpu_to_le32(XNIC_SIM_MAX_INLINE);
	o->max_cq = cpu_to_le32(XNIC_SIM_MAX_CQ);
	o->max_cqe = cpu_to_le32(1U << XNIC_SIM_MAX_LOG_CQE);
	o->max_mr = cpu_to_le32(XNIC_SIM_MAX_MR);
	o->max_srq = cpu_to_le32(XNIC_SIM_MAX_SRQ);
	o->max_srq_wr = cpu_to_le32(1U << XNIC_SIM_MAX_LOG_WQE);
	o->max_rd_atom = cpu_to_le32(XNIC_SIM_MAX_RD_ATOM);
	o->max_fast_reg_pages = cpu_to_le32(XNIC_SIM_MAX_FR_PAGES);
	o->num_ports = cpu_to_le32(1);
	o->port_state = cpu_to_le32(xnic_sim_port_up(dev) ? XNIC_PORT_ACTIVE :
						    XNIC_PORT_DOWN);
	o->port_mtu = cpu_to_le32(XNIC_MTU_4096);
	strscpy(o->fw_ver, "xnic_sim 1.0", sizeof(o->fw_ver));
	o->max_mw = cpu_to_le32(XNIC_SIM_MAX_MW);
	return XNIC_CMD_OK;
}

static u32 xnic_sim_cmd_set_gid(struct xnic_sim_dev *dev,
				const struct xnic_cmd_set_gid *in)
{
	if (in->valid > 1)
		return XNIC_CMD_BAD_PARAM;
	return xnic_sim_errno_status(xnic_sim_set_gid(dev,
						      le32_to_cpu(in->port),
						      le32_to_cpu(in->index),
						      in->gid, in->type,
						      in->valid));
}

/* ATTACH_MCAST, DETACH_MCAST: a UD QP of this device and a group GID. */
static u32 xnic_sim_cmd_mcast(struct xnic_sim_dev *dev,
			      const struct xnic_cmd_mcast *in, bool attach)
{
	u32 qpn = le32_to_cpu(in->qpn);
	struct xnic_sim_qp *qp = xnic_sim_tbl_get(&dev->qps, qpn);

	if (in->reserved)
		return XNIC_CMD_BAD_PARAM;
	if (!qp)
		return XNIC_CMD_BAD_INDEX;
	if (qp->type != XNIC_QPT_UD || !xnic_sim_gid_mcast(in->gid))
		return XNIC_CMD_BAD_PARAM;
	if (attach)
		return xnic_sim_errno_status(xnic_sim_mcg_attach(dev, qpn,
								 in->gid));
	return xnic_sim_errno_status(xnic_sim_mcg_detach(dev, qpn, in->gid));
}

/* QUERY_COUNTERS: DMA min(num, XNIC_CTR_NUM) counters to the driver. */
static u32 xnic_sim_cmd_query_counters(struct xnic_sim_dev *dev,
				       struct xnic_cmd_query_counters *io)
{
	u64 addr = le64_to_cpu(io->buf_addr);
	u32 n = min_t(u32, le32_to_cpu(io->num), XNIC_CTR_NUM);
	__le64 vals[XNIC_CTR_NUM];
	u32 i;

	if (!n || !addr || !IS_ALIGNED(addr, sizeof(__le64)) || io->written)
		return XNIC_CMD_BAD_PARAM;
	for (i = 0; i < n; i++)
		vals[i] = cpu_to_le64(xnic_sim_ctr_sum(dev, i));
	if (!xnic_sim_dma_write(addr, vals, n * sizeof(vals[0])))
		return XNIC_CMD_BAD_PARAM;
	io->written = cpu_to_le32(n);
	return XNIC_CMD_OK;
}

/* ------------------------------------------------------------------ */
/* The queue                                                           */

static u32 xnic_sim_cmd_exec(struct xnic_sim_dev *dev, struct xnic_cmd *c)
{
	switch (c->hdr.opcode) {
	case XNIC_CMD_QUERY_CAPS:
		return xnic_sim_cmd_query_caps(dev, c);
	case XNIC_CMD_SET_GID:
		return xnic_sim_cmd_set_gid(dev, &c->set_gid);
	case XNIC_CMD_ATTACH_MCAST:
		return xnic_sim_cmd_mcast(dev, &c->mcast, true);
	case XNIC_CMD_DETACH_MCAST:
		return xnic_sim_cmd_mcast(dev, &c->mcast, false);
	case XNIC_CMD_QUERY_COUNTERS:
		return xnic_sim_cmd_query_counters(dev, &c->query_counters);
	default:
		return xnic_sim_obj_cmd(dev, c);
	}
}

/* Execute one entry, write its results, set done, post CMD_DONE. */
static void xnic_sim_cmd_one(struct xnic_sim_dev *dev, u64 addr)
{
	struct xnic_cmd c;
	__le32 *done;
	u32 status;

	if (!xnic_sim_dma_read(addr, &c, sizeof(c))) {
		xnic_sim_count(dev, XNIC_SIM_CTR_cmd_errors, 1);
		return;
	}
	switch (xnic_sim_faults_on() ?
		xnic_sim_fault_cmd(dev, c.hdr.opcode, &status) : -1) {
	case XNIC_SIM_FAULT_CMD_TIMEOUT:
		/* lost: no status, no done, no event; the driver times out */
		return;
	case XNIC_SIM_FAULT_CMD_FAIL:
		break;		/* not executed: answered @status */
	default:
		status = xnic_sim_cmd_exec(dev, &c);
		break;
	}
	xnic_sim_count(dev, XNIC_SIM_CTR_commands, 1);
	if (status)
		xnic_sim_count(dev, XNIC_SIM_CTR_cmd_errors, 1);
	c.hdr.status = cpu_to_le32(status);
	xnic_sim_dma_write(addr + offsetof(struct xnic_cmd, raw), c.raw,
			   sizeof(c.raw));
	xnic_sim_dma_write(addr + offsetof(struct xnic_cmd, hdr.status),
			   &c.hdr.status, sizeof(c.hdr.status));
	done = xnic_sim_map(addr + offsetof(struct xnic_cmd, hdr.done));
	if (done) {
		dma_wmb();	/* status and outputs before done */
		WRITE_ONCE(*done, cpu_to_le32(1));
		xnic_sim_unmap(done);
	}
	xnic_sim_eq_post(dev, XNIC_EQE_CMD_DONE, le32_to_cpu(c.hdr.token), 0);
}

/**
 * xnic_sim_cmd_poll - execute commands the driver announced
 * @dev: device (its engine)
 *
 * A few per call, so the data path keeps moving.  Return: whether there
 * was anything to do.
 */
bool xnic_sim_cmd_poll(struct xnic_sim_dev *dev)
{
	u32 pi = READ_ONCE(dev->cmdq_pi), log = READ_ONCE(dev->cmdq_log);
	u64 base = READ_ONCE(dev->cmdq_base);
	int n = 0;

	if (pi == dev->cmd_ci)
		return false;
	if (xnic_sim_ring_avail(dev->cmd_ci, pi, log) < 0) {
		/* an impossible producer index: ignored */
		xnic_sim_count(dev, XNIC_SIM_CTR_cmd_errors, 1);
		dev->cmd_ci = pi;
		return true;
	}
	while (dev->cmd_ci != pi && n++ < XNIC_SIM_CMD_BATCH) {
		xnic_sim_cmd_one(dev, base + (u64)(dev->cmd_ci &
				 ((1U << log) - 1)) * sizeof(struct xnic_cmd));
		dev->cmd_ci++;
	}
	return true;
}

/* ------------------------------------------------------------------ */
/* Reset                                                             */

/**
 * xnic_sim_do_reset - execute a RESET register write
 * @dev: device (its engine)
 *
 * Drops every object, forgets the queues, and reports READY again.
 */
void xnic_sim_do_reset(struct xnic_sim_dev *dev)
{
	u32 req = READ_ONCE(dev->reset_req);
	unsigned long flags;

	spin_lock_irqsave(&dev->eq_lock, flags);
	dev->eq_on = false;
	dev->eq_pi = 0;
	spin_unlock_irqrestore(&dev->eq_lock, flags);
	xnic_sim_clear(dev);
	xnic_sim_fault_drop_held(dev);
	xnic_sim_eth_reset(dev);
	xnic_sim_gid_reset(dev);
	spin_lock_irqsave(&dev->reg_lock, flags);
	dev->cmdq_base = 0;
	dev->cmdq_log = 0;
	dev->cmdq_pi = 0;
	dev->eq_base = 0;
	dev->eq_log = 0;
	dev->eq_ci = 0;
	dev->intr_mask = 1;
	dev->enable = 0;
	dev->cmd_ci = 0;
	if (READ_ONCE(dev->reset_req) == req)
		dev->status = XNIC_STATUS_READY;
	spin_unlock_irqrestore(&dev->reg_lock, flags);
	WRITE_ONCE(dev->reset_done, req);
	wake_up_all(&dev->reset_wq);
}
