// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_sim: one device: register file, interrupt, engine thread start and
 * stop, debugfs.  No module state (xnic_sim_main.c creates the devices),
 * so KUnit can run devices too.
 */
#include <linux/kthread.h>
#include <linux/slab.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/hardirq.h>
#include <linux/etherdevice.h>
#include <xrdma/compat.h>
#include "xnic_sim.h"

bool xnic_sim_kick_serve_on = true;
bool xnic_sim_irq_remote_on = true;

/* irq_flags: a call of the interrupt is queued to another CPU */
#define XNIC_SIM_IRQ_REMOTE	0

static const char * const xnic_sim_ctr_names[XNIC_SIM_CTR_NUM] = {
	[XNIC_SIM_CTR_doorbells] = "doorbells",
	[XNIC_SIM_CTR_bad_doorbells] = "bad_doorbells",
	[XNIC_SIM_CTR_kicks] = "kicks",
	[XNIC_SIM_CTR_sleeps] = "sleeps",
	[XNIC_SIM_CTR_wakeups] = "wakeups",
	[XNIC_SIM_CTR_writer_runs] = "writer_runs",
	[XNIC_SIM_CTR_yields] = "yields",
	[XNIC_SIM_CTR_commands] = "commands",
	[XNIC_SIM_CTR_cmd_errors] = "cmd_errors",
	[XNIC_SIM_CTR_eqes] = "eqes",
	[XNIC_SIM_CTR_eq_overruns] = "eq_overruns",
	[XNIC_SIM_CTR_irqs] = "irqs",
	[XNIC_SIM_CTR_cqes] = "cqes",
	[XNIC_SIM_CTR_cq_overruns] = "cq_overruns",
	[XNIC_SIM_CTR_tx_rdma_write] = "tx_rdma_write",
	[XNIC_SIM_CTR_tx_rdma_write_bytes] = "tx_rdma_write_bytes",
	[XNIC_SIM_CTR_tx_rdma_write_imm] = "tx_rdma_write_imm",
	[XNIC_SIM_CTR_tx_rdma_write_imm_bytes] = "tx_rdma_write_imm_bytes",
	[XNIC_SIM_CTR_tx_send] = "tx_send",
	[XNIC_SIM_CTR_tx_send_bytes] = "tx_send_bytes",
	[XNIC_SIM_CTR_tx_send_imm] = "tx_send_imm",
	[XNIC_SIM_CTR_tx_send_imm_bytes] = "tx_send_imm_bytes",
	[XNIC_SIM_CTR_tx_rdma_read] = "tx_rdma_read",
	[XNIC_SIM_CTR_tx_rdma_read_bytes] = "tx_rdma_read_bytes",
	[XNIC_SIM_CTR_tx_cmp_swap] = "tx_cmp_swap",
	[XNIC_SIM_CTR_tx_fetch_add] = "tx_fetch_add",
	[XNIC_SIM_CTR_tx_local_inv] = "tx_local_inv",
	[XNIC_SIM_CTR_tx_send_inv] = "tx_send_inv",
	[XNIC_SIM_CTR_tx_send_inv_bytes] = "tx_send_inv_bytes",
	[XNIC_SIM_CTR_tx_reg_mr] = "tx_reg_mr",
	[XNIC_SIM_CTR_tx_bind_mw] = "tx_bind_mw",
	[XNIC_SIM_CTR_tx_nop] = "tx_nop",
	[XNIC_SIM_CTR_tx_mcast] = "tx_mcast",
	[XNIC_SIM_CTR_rx_send] = "rx_send",
	[XNIC_SIM_CTR_rx_send_bytes] = "rx_send_bytes",
	[XNIC_SIM_CTR_rx_write] = "rx_write",
	[XNIC_SIM_CTR_rx_write_bytes] = "rx_write_bytes",
	[XNIC_SIM_CTR_rx_read] = "rx_read",
	[XNIC_SIM_CTR_rx_read_bytes] = "rx_read_bytes",
	[XNIC_SIM_CTR_rx_atomic] = "rx_atomic",
	[XNIC_SIM_CTR_rx_mcast] = "rx_mcast",
	[XNIC_SIM_CTR_err_loc_len] = "err_loc_len",
	[XNIC_SIM_CTR_err_loc_qp_op] = "err_loc_qp_op",
	[XNIC_SIM_CTR_err_loc_prot] = "err_loc_prot",
	[XNIC_SIM_CTR_err_mw_bind] = "err_mw_bind",
	[XNIC_SIM_CTR_err_flush] = "err_flush",
	[XNIC_SIM_CTR_err_rem_inv_req] = "err_rem_inv_req",
	[XNIC_SIM_CTR_err_rem_access] = "err_rem_access",
	[XNIC_SIM_CTR_err_rem_op] = "err_rem_op",
	[XNIC_SIM_CTR_err_retry_exc] = "err_retry_exc",
	[XNIC_SIM_CTR_err_rnr_retry_exc] = "err_rnr_retry_exc",
	[XNIC_SIM_CTR_err_other] = "err_other",
	[XNIC_SIM_CTR_rnr_naks] = "rnr_naks",
	[XNIC_SIM_CTR_retries] = "retries",
	[XNIC_SIM_CTR_ud_drop_qkey] = "ud_drop_qkey",
	[XNIC_SIM_CTR_ud_drop_noqp] = "ud_drop_noqp",
	[XNIC_SIM_CTR_ud_drop_norecv] = "ud_drop_norecv",
	[XNIC_SIM_CTR_ud_drop_nomcg] = "ud_drop_nomcg",
	[XNIC_SIM_CTR_uc_drops] = "uc_drops",
	[XNIC_SIM_CTR_psn_mismatch] = "psn_mismatch",
	[XNIC_SIM_CTR_rx_drop_bad_src] = "rx_drop_bad_src",
	[XNIC_SIM_CTR_rx_drop_psn] = "rx_drop_psn",
	[XNIC_SIM_CTR_wire_tx_packets] = "wire_tx_packets",
	[XNIC_SIM_CTR_wire_tx_bytes] = "wire_tx_bytes",
	[XNIC_SIM_CTR_wire_rx_packets] = "wire_rx_packets",
	[XNIC_SIM_CTR_wire_rx_bytes] = "wire_rx_bytes",
	[XNIC_SIM_CTR_wire_retransmits] = "wire_retransmits",
	[XNIC_SIM_CTR_wire_timeouts] = "wire_timeouts",
	[XNIC_SIM_CTR_wire_seq_naks_sent] = "wire_seq_naks_sent",
	[XNIC_SIM_CTR_wire_seq_naks_rcvd] = "wire_seq_naks_rcvd",
	[XNIC_SIM_CTR_wire_rnr_naks_sent] = "wire_rnr_naks_sent",
	[XNIC_SIM_CTR_wire_rnr_naks_rcvd] = "wire_rnr_naks_rcvd",
	[XNIC_SIM_CTR_wire_err_naks_sent] = "wire_err_naks_sent",
	[XNIC_SIM_CTR_wire_err_naks_rcvd] = "wire_err_naks_rcvd",
	[XNIC_SIM_CTR_wire_duplicates] = "wire_duplicates",
	[XNIC_SIM_CTR_wire_oos_drops] = "wire_oos_drops",
	[XNIC_SIM_CTR_wire_icrc_errors] = "wire_icrc_errors",
	[XNIC_SIM_CTR_wire_malformed] = "wire_malformed",
	[XNIC_SIM_CTR_wire_drop_noqp] = "wire_drop_noqp",
	[XNIC_SIM_CTR_wire_no_neigh] = "wire_no_neigh",
	[XNIC_SIM_CTR_wire_ecn_marked] = "wire_ecn_marked",
	[XNIC_SIM_CTR_wire_eth_tx] = "wire_eth_tx",
	[XNIC_SIM_CTR_wire_eth_rx] = "wire_eth_rx",
	[XNIC_SIM_CTR_serve_waits] = "serve_waits",
};

static struct xnic_sim_dev *xnic_sim_bus_dev(struct xnic_bus *bus)
{
	return container_of(bus, struct xnic_sim_pdata, bus)->dev;
}

/* ------------------------------------------------------------------ */
/* Interrupt and engine wakeup                                         */

/**
 * xnic_sim_kick - wake a device's engine
 * @dev: device; any context
 */
void xnic_sim_kick(struct xnic_sim_dev *dev)
{
	WRITE_ONCE(dev->kicked, true);
	/* orders the flag before the task state check (full barrier) */
	wake_up_process(dev->engine);
}

/*
 * The CPU after @cpu among the online ones (wrapping), for an interrupt
 * raised on @cpu; @cpu itself when it is the only one.
 */
static unsigned int xnic_sim_irq_cpu(unsigned int cpu)
{
	unsigned int next = cpumask_next(cpu, cpu_online_mask);

	return next < nr_cpu_ids ? next : cpumask_first(cpu_online_mask);
}

/* Is the caller an engine thread that writes @dev's events? */
static bool xnic_sim_on_engine(const struct xnic_sim_dev *dev)
{
	const struct xnic_sim_dev *peer = READ_ONCE(dev->peer);

	return in_task() &&
	       (current == dev->engine || (peer && current == peer->engine));
}

/**
 * xnic_sim_raise_irq - signal the interrupt unless masked
 * @dev: device; any context
 *
 * Raised by an engine thread (the device's, or its cabled peer's), the
 * interrupt runs on an online CPU other than the raiser's (the next
 * one), as a NIC's message-signalled interrupt goes to a CPU that is not
 * the NIC: the handler, its softirq and the work it queues on its CPU
 * (ib_core's CQ polling, a ULP's completion work) do not take the CPU of
 * the engine, which has more work to do.  An async function call moves
 * it there (one queued at a time: a call not yet begun finds every event
 * written before it) and queues the irq_work on that CPU, whose handler
 * context the driver expects (irq_work_queue_on() is not exported).
 * Elsewhere -- a kick serve on the writer's own time, interrupt context
 * -- and with one CPU online or the irq_remote parameter off, the
 * irq_work is queued on the raiser's CPU.
 */
void xnic_sim_raise_irq(struct xnic_sim_dev *dev)
{
	unsigned int cpu, target;

	/* preemption off: xnic_sim_irq_sync() waits for this with RCU */
	cpu = get_cpu();
	if (READ_ONCE(dev->intr_mask) || !READ_ONCE(dev->handler))
		goto out;
	target = cpu;
	if (READ_ONCE(xnic_sim_irq_remote_on) && xnic_sim_on_engine(dev))
		target = xnic_sim_irq_cpu(cpu);
	if (target == cpu) {
		irq_work_queue(&dev->irq_work);
		goto out;
	}
	/* full barrier: the event before the flag (xnic_sim_irq_call()) */
	if (test_and_set_bit(XNIC_SIM_IRQ_REMOTE, &dev->irq_flags))
		goto out;	/* queued, not begun: it finds this event */
	if (smp_call_function_single_async(target, &dev->irq_csd)) {
		/* defensive: the csd still locked, or the CPU offline */
		clear_bit(XNIC_SIM_IRQ_REMOTE, &dev->irq_flags);
		irq_work_queue(&dev->irq_work);
	}
out:
	put_cpu();
}

/* The interrupt "line": the driver's handler in hard interrupt context. */
static void xnic_sim_irq_fn(struct irq_work *work)
{
	struct xnic_sim_dev *dev = container_of(work, struct xnic_sim_dev,
						irq_work);

	spin_lock(&dev->irq_lock);
	if (dev->handler && !READ_ONCE(dev->intr_mask)) {
		xnic_sim_count(dev, XNIC_SIM_CTR_irqs, 1);
		dev->handler(dev->index, dev->irq_data);
	}
	spin_unlock(&dev->irq_lock);
}

/*
 * The call queued to another CPU (interrupts off): the interrupt's
 * irq_work, queued there.  Before the flag is cleared: the csd's unlock
 * (an async call's csd is unlocked before it runs), so that a raiser
 * that finds the flag clear may queue the csd again; after it, the
 * irq_work's claim (fully ordered): a raiser that found the flag set
 * wrote its event before the handler that the claim leads to reads the
 * event queue.
 */
static void xnic_sim_irq_call(void *info)
{
	struct xnic_sim_dev *dev = info;

	smp_mb__before_atomic();	/* the csd's unlock before the flag */
	clear_bit(XNIC_SIM_IRQ_REMOTE, &dev->irq_flags);
	smp_mb__after_atomic();		/* the flag before the claim */
	irq_work_queue(&dev->irq_work);
}

/*
 * Wait until no interrupt is queued or running: raisers that passed the
 * handler check (preemption off), a call queued to another CPU, one that
 * runs there (interrupts off), the irq_work wherever it was queued.
 * Process context, the handler gone.
 */
static void xnic_sim_irq_sync(struct xnic_sim_dev *dev)
{
	synchronize_rcu();
	while (test_bit(XNIC_SIM_IRQ_REMOTE, &dev->irq_flags))
		cpu_relax();
	synchronize_rcu();
	irq_work_sync(&dev->irq_work);
}

static int xnic_sim_request_irq(struct xnic_bus *bus, irq_handler_t handler,
				void *data)
{
	struct xnic_sim_dev *dev = xnic_sim_bus_dev(bus);
	unsigned long flags;
	int ret = 0;

	if (!handler)
		return -EINVAL;
	spin_lock_irqsave(&dev->irq_lock, flags);
	if (dev->handler) {
		ret = -EBUSY;
	} else {
		dev->irq_data = data;
		WRITE_ONCE(dev->handler, handler);
	}
	spin_unlock_irqrestore(&dev->irq_lock, flags);
	if (!ret && READ_ONCE(dev->eq_pi) != READ_ONCE(dev->eq_ci))
		xnic_sim_raise_irq(dev);
	return ret;
}

static void xnic_sim_free_irq(struct xnic_bus *bus)
{
	struct xnic_sim_dev *dev = xnic_sim_bus_dev(bus);
	unsigned long flags;

	spin_lock_irqsave(&dev->irq_lock, flags);
	WRITE_ONCE(dev->handler, NULL);
	dev->irq_data = NULL;
	spin_unlock_irqrestore(&dev->irq_lock, flags);
	/* a handler call that started is over after this */
	xnic_sim_irq_sync(dev);
}

/* ------------------------------------------------------------------ */
/* Registers                                                           */

static u32 xnic_sim_read32(struct xnic_bus *bus, u32 reg)
{
	struct xnic_sim_dev *dev = xnic_sim_bus_dev(bus);
	u32 val;

	if (xnic_sim_eth_read32(dev, reg, &val))
		return val;
	switch (reg) {
	case XNIC_REG_ID:
		return XNIC_ID;
	case XNIC_REG_VERSION:
		return XNIC_HW_VERSION;
	case XNIC_REG_STATUS:
		return READ_ONCE(dev->status);
	case XNIC_REG_CMDQ_BASE_LO:
		return lower_32_bits(READ_ONCE(dev->cmdq_base));
	case XNIC_REG_CMDQ_BASE_HI:
		return upper_32_bits(READ_ONCE(dev->cmdq_base));
	case XNIC_REG_CMDQ_LOG_SIZE:
		return READ_ONCE(dev->cmdq_log);
	case XNIC_REG_EQ_BASE_LO:
		return lower_32_bits(READ_ONCE(dev->eq_base));
	case XNIC_REG_EQ_BASE_HI:
		return upper_32_bits(READ_ONCE(dev->eq_base));
	case XNIC_REG_EQ_LOG_SIZE:
		return READ_ONCE(dev->eq_log);
	case XNIC_REG_INTR_MASK:
		return READ_ONCE(dev->intr_mask);
	case XNIC_REG_ENABLE:
		return READ_ONCE(dev->enable);
	case XNIC_REG_CLOCK:
		/* the clock of CQE timestamps (xnic_sim_cq.c) */
		return xnic_sim_clock_us(dev);
	case XNIC_REG_DM_BASE_LO:
		return lower_32_bits(dev->dm_base);
	case XNIC_REG_DM_BASE_HI:
		return upper_32_bits(dev->dm_base);
	case XNIC_REG_DM_SIZE:
		return dev->dm_pages ? XNIC_SIM_DM_SIZE : 0;
	case XNIC_REG_FEATURES:
		return XNIC_FEAT_XRC | XNIC_FEAT_ATOMIC_WRITE |
		       XNIC_FEAT_FLUSH_GLOBAL | XNIC_FEAT_FLUSH_PERSISTENT;
	default:
		return 0;	/* write-only and unknown registers */
	}
}

/* A 64-bit base register half, only while the queues are off. */
static void xnic_sim_set_half(struct xnic_sim_dev *dev, u64 *base, bool hi,
			      u32 val)
{
	u64 v = READ_ONCE(*base);

	v = hi ? (v & 0xffffffffULL) | ((u64)val << 32) :
		 (v & ~0xffffffffULL) | val;
	WRITE_ONCE(*base, v);
}

/* whether the register writer may sleep (the model may work in its stead) */
static bool xnic_sim_writer_can_sleep(void)
{
	return IS_ENABLED(CONFIG_PREEMPT_COUNT) ? preemptible() :
	       in_task() && !irqs_disabled();
}

/*
 * RESET: the engine drops everything; a caller that may sleep waits for
 * it, so the device touches no memory of the driver's afterwards.
 */
static void xnic_sim_reset_write(struct xnic_sim_dev *dev)
{
	unsigned long flags;
	u32 req;

	spin_lock_irqsave(&dev->reg_lock, flags);
	WRITE_ONCE(dev->status, 0);
	WRITE_ONCE(dev->enable, 0);
	req = ++dev->reset_req;
	spin_unlock_irqrestore(&dev->reg_lock, flags);
	spin_lock_irqsave(&dev->eq_lock, flags);
	dev->eq_on = false;
	spin_unlock_irqrestore(&dev->eq_lock, flags);
	xnic_sim_kick(dev);
	if (!xnic_sim_writer_can_sleep())
		return;	/* atomic context: the reset completes later */
	if (!wait_event_timeout(dev->reset_wq,
				(s32)(READ_ONCE(dev->reset_done) - req) >= 0,
				5 * HZ))
		pr_warn("xnic_sim %d: reset not done in 5 s\n", dev->index);
}

static void xnic_sim_enable_write(struct xnic_sim_dev *dev, bool on)
{
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&dev->reg_lock, flags);
	ok = on && (dev->status & XNIC_STATUS_READY) &&
	     !(dev->status & XNIC_STATUS_FATAL) &&
	     dev->cmdq_log >= 1 && dev->cmdq_log <= 12 &&
	     dev->eq_log >= 1 && dev->eq_log <= 16 &&
	     dev->cmdq_base && !(dev->cmdq_base & 127) &&
	     dev->eq_base && !(dev->eq_base & 15);
	if (on && !ok) {
		spin_unlock_irqrestore(&dev->reg_lock, flags);
		return;
	}
	WRITE_ONCE(dev->enable, on);
	if (on)
		WRITE_ONCE(dev->status, dev->status | XNIC_STATUS_ENABLED);
	else
		WRITE_ONCE(dev->status, dev->status & ~XNIC_STATUS_ENABLED);
	spin_unlock_irqrestore(&dev->reg_lock, flags);

	spin_lock_irqsave(&dev->eq_lock, flags);
	dev->eq_on = on;
	spin_unlock_irqrestore(&dev->eq_lock, flags);
	xnic_sim_kick(dev);
}

static void xnic_sim_write32(struct xnic_bus *bus, u32 reg, u32 val)
{
	struct xnic_sim_dev *dev = xnic_sim_bus_dev(bus);
	unsigned long flags;

	if (xnic_sim_eth_write32(dev, reg, val))
		return;
	switch (reg) {
	case XNIC_REG_RESET:
		if (val & 1)
			xnic_sim_reset_write(dev);
		return;
	case XNIC_REG_CMDQ_PI:
		WRITE_ONCE(dev->cmdq_pi, val);
		xnic_sim_kick(dev);
		return;
	case XNIC_REG_EQ_CI:
		/* ordered with the COMPLETION merge (xnic_sim_cq.c) */
		spin_lock_irqsave(&dev->eq_lock, flags);
		WRITE_ONCE(dev->eq_ci, val);
		spin_unlock_irqrestore(&dev->eq_lock, flags);
		return;
	case XNIC_REG_INTR_MASK:
		WRITE_ONCE(dev->intr_mask, val & 1);
		if (!(val & 1) && READ_ONCE(dev->eq_pi) != READ_ONCE(dev->eq_ci))
			xnic_sim_raise_irq(dev);
		return;
	case XNIC_REG_KICK:
		xnic_sim_count(dev, XNIC_SIM_CTR_kicks, 1);
		/* the work done in the writer's stead needs no wakeup */
		if ((val & XNIC_KICK_RUN_HERE) &&
		    READ_ONCE(xnic_sim_kick_serve_on) &&
		    xnic_sim_writer_can_sleep() && xnic_sim_kick_serve(dev, val))
			return;
		xnic_sim_kick(dev);
		return;
	case XNIC_REG_ENABLE:
		xnic_sim_enable_write(dev, val & 1);
		return;
	}

	spin_lock_irqsave(&dev->reg_lock, flags);
	if (dev->enable) {
		/* queue registers are fixed while enabled */
		spin_unlock_irqrestore(&dev->reg_lock, flags);
		return;
	}
	switch (reg) {
	case XNIC_REG_CMDQ_BASE_LO:
	case XNIC_REG_CMDQ_BASE_HI:
		xnic_sim_set_half(dev, &dev->cmdq_base,
				  reg == XNIC_REG_CMDQ_BASE_HI, val);
		break;
	case XNIC_REG_CMDQ_LOG_SIZE:
		WRITE_ONCE(dev->cmdq_log, val);
		break;
	case XNIC_REG_EQ_BASE_LO:
	case XNIC_REG_EQ_BASE_HI:
		xnic_sim_set_half(dev, &dev->eq_base,
				  reg == XNIC_REG_EQ_BASE_HI, val);
		break;
	case XNIC_REG_EQ_LOG_SIZE:
		WRITE_ONCE(dev->eq_log, val);
		break;
	}
	spin_unlock_irqrestore(&dev->reg_lock, flags);
}

/* ------------------------------------------------------------------ */
/* debugfs                                                             */

/**
 * xnic_sim_ctr_sum - one counter, summed over the CPUs
 * @dev: device
 * @c: XNIC_SIM_CTR_*
 *
 * Return: its value (not a snapshot with the others).
 */
u64 xnic_sim_ctr_sum(struct xnic_sim_dev *dev, enum xnic_sim_ctr c)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(dev->ctr, cpu)->v[c]);
	return sum;
}

static int xnic_sim_counters_show(struct seq_file *m, void *v)
{
	struct xnic_sim_dev *dev = m->private;
	int i;

	for (i = 0; i < XNIC_SIM_CTR_NUM; i++)
		seq_printf(m, "%s %llu\n", xnic_sim_ctr_names[i],
			   xnic_sim_ctr_sum(dev, i));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(xnic_sim_counters);

static int xnic_sim_qps_show(struct seq_file *m, void *v)
{
	struct xnic_sim_dev *dev = m->private;
	struct xnic_sim_qp *qp;
	u32 idx = 0;

	seq_puts(m, "qpn type state sq_ci rq_ci sq_psn rq_psn tx_ops tx_bytes rx_ops rx_bytes errors rnr_naks retries flushed doorbells bad_doorbells\n");
	rcu_read_lock();
	while ((qp = xnic_sim_tbl_next(&dev->qps, &idx))) {
		seq_printf(m, "%u %u %u %u %u %u %u %llu %llu %lld %lld %llu %llu %llu %llu %llu %llu\n",
			   qp->qpn, qp->type, READ_ONCE(qp->state),
			   READ_ONCE(qp->sq_ci), READ_ONCE(qp->rq_ci),
			   READ_ONCE(qp->sq_psn), READ_ONCE(qp->rq_psn),
			   READ_ONCE(qp->tx_ops), READ_ONCE(qp->tx_bytes),
			   (long long)atomic64_read(&qp->rx_ops),
			   (long long)atomic64_read(&qp->rx_bytes),
			   READ_ONCE(qp->errors), READ_ONCE(qp->rnr_naks),
			   READ_ONCE(qp->retries), READ_ONCE(qp->flushed),
			   READ_ONCE(qp->doorbells),
			   READ_ONCE(qp->bad_doorbells));
		idx++;
	}
	rcu_read_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(xnic_sim_qps);

static int xnic_sim_regs_show(struct seq_file *m, void *v)
{
	struct xnic_sim_dev *dev = m->private;

	seq_printf(m, "status 0x%x\nenable %u\nintr_mask %u\n",
		   READ_ONCE(dev->status), READ_ONCE(dev->enable),
		   READ_ONCE(dev->intr_mask));
	seq_printf(m, "cmdq_log %u\ncmdq_pi %u\ncmd_ci %u\n",
		   READ_ONCE(dev->cmdq_log), READ_ONCE(dev->cmdq_pi),
		   READ_ONCE(dev->cmd_ci));
	seq_printf(m, "eq_log %u\neq_pi %u\neq_ci %u\n",
		   READ_ONCE(dev->eq_log), READ_ONCE(dev->eq_pi),
		   READ_ONCE(dev->eq_ci));
	seq_printf(m, "node_guid %016llx\npeer %d\nqps %u\ncqs %u\nsrqs %u\nmrs %u\ndb_pages %u\n",
		   dev->guid, dev->peer ? dev->peer->index : -1,
		   READ_ONCE(dev->qps.count), READ_ONCE(dev->cqs.count),
		   READ_ONCE(dev->srqs.count), READ_ONCE(dev->mrs.count),
		   READ_ONCE(dev->n_db));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(xnic_sim_regs);

/* The multicast groups: "groups N attached N", then "GID QPN..." each. */
static int xnic_sim_mcast_show(struct seq_file *m, void *v)
{
	struct xnic_sim_dev *dev = m->private;
	u32 i, j;

	spin_lock(&dev->mcg_lock);
	seq_printf(m, "groups %u attached %u\n", dev->n_mcg, dev->n_mcg_att);
	for (i = 0; i < dev->n_mcg; i++) {
		seq_printf(m, "%pI6", dev->mcg[i].gid);
		for (j = 0; j < dev->mcg[i].nqp; j++)
			seq_printf(m, " %u", dev->mcg[i].qpn[j]);
		seq_putc(m, '\n');
	}
	spin_unlock(&dev->mcg_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(xnic_sim_mcast);

/* ------------------------------------------------------------------ */
/* Devices                                                             */

/**
 * xnic_sim_dev_free - free a device whose engine is stopped
 * @dev: the device, without objects (xnic_sim_clear())
 */
void xnic_sim_dev_free(struct xnic_sim_dev *dev)
{
	xnic_sim_fault_fini(dev);
	xnic_sim_tbl_destroy(&dev->qps);
	xnic_sim_tbl_destroy(&dev->cqs);
	xnic_sim_tbl_destroy(&dev->srqs);
	xnic_sim_tbl_destroy(&dev->mrs);
	xnic_sim_wire_free(dev);
	xnic_sim_eth_free(dev);
	if (dev->dm_pages)
		__free_pages(dev->dm_pages, get_order(XNIC_SIM_DM_SIZE));
	free_percpu(dev->ctr);
	kfree(dev->scr);
	kfree(dev);
}

/**
 * xnic_sim_dev_alloc - a device, idle, READY, without engine
 * @index: its number
 */
struct xnic_sim_dev *xnic_sim_dev_alloc(int index)
{
	struct xnic_sim_dev *dev;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return NULL;
	dev->index = index;
	dev->guid = XNIC_SIM_GUID_BASE | (index + 1);
	xnic_sim_gid(dev->guid, dev->gid);
	spin_lock_init(&dev->gid_lock);
	xnic_sim_gid_reset(dev);
	spin_lock_init(&dev->mcg_lock);
	spin_lock_init(&dev->reg_lock);
	spin_lock_init(&dev->irq_lock);
	spin_lock_init(&dev->eq_lock);
	init_waitqueue_head(&dev->reset_wq);
	mutex_init(&dev->exec_lock);
	init_irq_work(&dev->irq_work, xnic_sim_irq_fn);
	INIT_CSD(&dev->irq_csd, xnic_sim_irq_call, dev);
	xnic_sim_fault_init(dev);
	INIT_LIST_HEAD(&dev->active);
	INIT_LIST_HEAD(&dev->errq);
	INIT_LIST_HEAD(&dev->wresp_acks);
	dev->status = XNIC_STATUS_READY;
	dev->intr_mask = 1;
	dev->scr = kzalloc(sizeof(*dev->scr), GFP_KERNEL);
	dev->ctr = alloc_percpu(struct xnic_sim_ctrs);
	/*
	 * The device memory window: pages of its own, reached by the CPU and
	 * by the device at their physical address, as a memory BAR would be.
	 */
	dev->dm_pages = alloc_pages(GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN,
				    get_order(XNIC_SIM_DM_SIZE));
	if (dev->dm_pages)
		dev->dm_base = PFN_PHYS(page_to_pfn(dev->dm_pages));
	if (!dev->scr || !dev->ctr || !dev->dm_pages ||
	    xnic_sim_tbl_init(&dev->qps, XNIC_SIM_MAX_QP) ||
	    xnic_sim_tbl_init(&dev->cqs, XNIC_SIM_MAX_CQ) ||
	    xnic_sim_tbl_init(&dev->srqs, XNIC_SIM_MAX_SRQ) ||
	    xnic_sim_tbl_init(&dev->mrs,
			      XNIC_SIM_MAX_MR + XNIC_SIM_MAX_MW) ||
	    xnic_sim_eth_alloc(dev) || xnic_sim_wire_init(dev)) {
		xnic_sim_dev_free(dev);
		return NULL;
	}
	dev->pdata.bus.read32 = xnic_sim_read32;
	dev->pdata.bus.write32 = xnic_sim_write32;
	dev->pdata.bus.request_irq = xnic_sim_request_irq;
	dev->pdata.bus.free_irq = xnic_sim_free_irq;
	dev->pdata.dev = dev;
	return dev;
}

/**
 * xnic_sim_dev_set_mac - the identity of a device from a MAC
 * @dev: from xnic_sim_dev_alloc(), its driver not bound yet
 * @mac: a unicast MAC
 *
 * The node GUID is the MAC's EUI-64 (mac[0] ^ 2, mac[1], mac[2], ff, fe,
 * mac[3..5]), so that the port's MAC (xnic_sim_eth_mac()) is @mac and
 * its default GID the link-local address a host derives from @mac.
 *
 * Return: 0, or -EINVAL for a multicast or zero MAC.
 */
int xnic_sim_dev_set_mac(struct xnic_sim_dev *dev, const u8 mac[6])
{
	u8 g[8];

	if (!is_valid_ether_addr(mac))
		return -EINVAL;
	g[0] = mac[0] ^ 2;
	g[1] = mac[1];
	g[2] = mac[2];
	g[3] = 0xff;
	g[4] = 0xfe;
	g[5] = mac[3];
	g[6] = mac[4];
	g[7] = mac[5];
	dev->guid = get_unaligned_be64(g);
	xnic_sim_gid(dev->guid, dev->gid);
	xnic_sim_gid_reset(dev);
	xnic_sim_eth_set_guid(dev);
	return 0;
}

/**
 * xnic_sim_dev_start - start a device's engine and its debugfs files
 * @dev: from xnic_sim_dev_alloc()
 * @dbg_root: debugfs directory to create "<index>" in, or NULL
 */
int xnic_sim_dev_start(struct xnic_sim_dev *dev, struct dentry *dbg_root)
{
	struct task_struct *t;
	char name[8];

	t = kthread_create(xnic_sim_engine, dev, "xnic_sim/%d", dev->index);
	if (IS_ERR(t))
		return PTR_ERR(t);
	get_task_struct(t);
	dev->engine = t;
	wake_up_process(t);

	if (!dbg_root)
		return 0;
	snprintf(name, sizeof(name), "%d", dev->index);
	dev->dbg = debugfs_create_dir(name, dbg_root);
	debugfs_create_file("counters", 0400, dev->dbg, dev,
			    &xnic_sim_counters_fops);
	debugfs_create_file("qps", 0400, dev->dbg, dev, &xnic_sim_qps_fops);
	debugfs_create_file("regs", 0400, dev->dbg, dev, &xnic_sim_regs_fops);
	debugfs_create_file("mcast", 0400, dev->dbg, dev, &xnic_sim_mcast_fops);
	xnic_sim_eth_debugfs(dev, dev->dbg);
	xnic_sim_wire_debugfs(dev, dev->dbg);
	return 0;
}

/**
 * xnic_sim_dev_stop - stop a device's engine (all devices' engines must
 * be stopped before any device is cleared and freed)
 * @dev: the device
 */
void xnic_sim_dev_stop(struct xnic_sim_dev *dev)
{
	debugfs_remove_recursive(dev->dbg);
	dev->dbg = NULL;
	if (dev->engine) {
		kthread_stop(dev->engine);
		put_task_struct(dev->engine);
		dev->engine = NULL;
	}
}
