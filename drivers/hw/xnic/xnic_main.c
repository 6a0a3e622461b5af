// SPDX-License-Identifier: GPL-2.0
/*
 * xnic: the platform driver.  Device bring-up and teardown, the command
 * queue, the event queue and its interrupt handler.
 *
 * Commands: one in flight, serialised by cmd_lock; the submitter sleeps
 * until the entry's done word is set (woken by the CMD_DONE event, and
 * re-checking periodically so a lost interrupt costs latency, not a hang).
 * A command that times out (or finds the device fatal) marks the command
 * path dead and resets the device before it returns, still under
 * cmd_lock: the reset stops the data path too, so nothing the device was
 * given is reachable afterwards (xdev->stopped) and the memory kept for it
 * (zombies) is freed.  Later commands fail with -EIO at once; objects can
 * still be destroyed, and their memory is freed at once.  If the reset
 * does not complete, everything given to the device stays allocated (and
 * pinned) until a later reset does, at worst forever.
 *
 * Events: handled in the hard interrupt handler (completion events call
 * the CQ's comp_handler straight away).  One CPU consumes the EQ at a
 * time; a handler that finds another one busy leaves it a note
 * (eq_pending) and returns, so the handler may even be re-entered from a
 * callback without deadlock.
 */
#include <linux/delay.h>
#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <xrdma/xrdma_umem.h>
#include "xnic.h"

static unsigned int cmd_timeout_ms = 10000;
module_param(cmd_timeout_ms, uint, 0644);
MODULE_PARM_DESC(cmd_timeout_ms, "command timeout in milliseconds (default 10000)");

static u32 xnic_rd(struct xnic_dev *xdev, u32 reg)
{
	return xdev->bus->read32(xdev->bus, reg);
}

static void xnic_wr(struct xnic_dev *xdev, u32 reg, u32 val)
{
	xdev->bus->write32(xdev->bus, reg, val);
}

/**
 * xnic_kick - wake the device's engine (KICK register)
 * @xdev: device
 * @run_here: the caller is a process holding no lock (a system call on
 *	      behalf of user space): the device may do the work in the write
 */
void xnic_kick(struct xnic_dev *xdev, bool run_here)
{
	xnic_wr(xdev, XNIC_REG_KICK,
		XNIC_KICK_WAKE | (run_here ? XNIC_KICK_RUN_HERE : 0));
}

/**
 * xnic_kick_user - kick for a process context (the uverbs KICK ioctl)
 * @xdev: device
 * @db_index: the context's doorbell page
 *
 * The caller is a process holding no lock: the device may run the work
 * announced in that doorbell page -- and only there -- in the write.
 */
void xnic_kick_user(struct xnic_dev *xdev, u32 db_index)
{
	xnic_wr(xdev, XNIC_REG_KICK, XNIC_KICK_WAKE | XNIC_KICK_RUN_HERE |
		XNIC_KICK_DB(db_index));
}

/* ------------------------------------------------------------------ */
/* DMA memory                                                          */

/**
 * xnic_dma_alloc - zeroed, physically contiguous DMA memory
 * @xdev: device
 * @buf: filled in
 * @size: bytes
 *
 * Return: 0 or -ENOMEM.
 */
int xnic_dma_alloc(struct xnic_dev *xdev, struct xnic_dmabuf *buf,
		   size_t size)
{
	buf->cpu = dma_alloc_coherent(xdev->dma_dev, size, &buf->dma,
				      GFP_KERNEL | __GFP_NOWARN);
	if (!buf->cpu)
		return -ENOMEM;
	buf->size = size;
	INIT_LIST_HEAD(&buf->zombie);
	return 0;
}

/**
 * xnic_dma_free - release memory given to the device
 * @xdev: device
 * @buf: from xnic_dma_alloc(), may be empty
 * @device_done: the device let go of it (its destroy command succeeded);
 *		 if not, the memory is kept until the device is reset
 */
void xnic_dma_free(struct xnic_dev *xdev, struct xnic_dmabuf *buf,
		   bool device_done)
{
	struct xnic_dmabuf *z;

	if (!buf->cpu)
		return;
	if (!device_done) {
		z = kmalloc(sizeof(*z), GFP_KERNEL | __GFP_NOFAIL);
		*z = *buf;
		spin_lock(&xdev->zombie_lock);
		/* a reset that completed meanwhile let go of it too */
		device_done = xdev->stopped;
		if (!device_done)
			list_add(&z->zombie, &xdev->zombies);
		spin_unlock(&xdev->zombie_lock);
		if (device_done)
			kfree(z);
	}
	if (device_done)
		dma_free_coherent(xdev->dma_dev, buf->size, buf->cpu,
				  buf->dma);
	buf->cpu = NULL;
}

/* A user MR's pages the device may still reach (see xnic_umem_keep()). */
struct xnic_umem_zombie {
	struct list_head node;		/* in xnic_dev.umem_zombies */
	struct xrdma_umem *umem;
	bool mapped;			/* umem->sgt is DMA-mapped */
};

static void xnic_umem_release(struct xnic_dev *xdev, struct xrdma_umem *umem,
			      bool mapped)
{
	if (mapped)
		dma_unmap_sgtable(xdev->dma_dev, &umem->sgt, DMA_BIDIRECTIONAL,
				  XNIC_UMEM_DMA_ATTRS);
	xrdma_umem_release(umem);
}

/**
 * xnic_umem_keep - take over a user MR's pages the device may still reach
 * @xdev: device
 * @umem: the MR's pinned pages (the caller gives up its reference)
 * @mapped: @umem->sgt is DMA-mapped for the device
 *
 * After a REG_MR or DEREG_MR that failed in a way that leaves the MR in
 * the device (xnic_cmd_let_go() false), the pages stay pinned, accounted
 * and mapped until the device is reset; then they are unmapped and
 * released.  Sleeps.
 */
void xnic_umem_keep(struct xnic_dev *xdev, struct xrdma_umem *umem,
		    bool mapped)
{
	struct xnic_umem_zombie *z;
	bool done;

	z = kmalloc(sizeof(*z), GFP_KERNEL | __GFP_NOFAIL);
	z->umem = umem;
	z->mapped = mapped;
	spin_lock(&xdev->zombie_lock);
	done = xdev->stopped;
	if (!done)
		list_add(&z->node, &xdev->umem_zombies);
	spin_unlock(&xdev->zombie_lock);
	if (done) {
		xnic_umem_release(xdev, umem, mapped);
		kfree(z);
	}
}

/*
 * After a device reset: nothing may touch the kept memory any more.
 * @release false: the reset did not complete, leak it all instead (the
 * pages stay pinned for good).
 */
static void xnic_free_zombies(struct xnic_dev *xdev, bool release)
{
	struct xnic_umem_zombie *u, *utmp;
	struct xnic_dmabuf *z, *tmp;
	LIST_HEAD(zombies);
	LIST_HEAD(umems);

	spin_lock(&xdev->zombie_lock);
	list_splice_init(&xdev->zombies, &zombies);
	list_splice_init(&xdev->umem_zombies, &umems);
	spin_unlock(&xdev->zombie_lock);
	list_for_each_entry_safe(z, tmp, &zombies, zombie) {
		list_del(&z->zombie);
		if (release)
			dma_free_coherent(xdev->dma_dev, z->size, z->cpu,
					  z->dma);
		kfree(z);
	}
	list_for_each_entry_safe(u, utmp, &umems, node) {
		list_del(&u->node);
		if (release)
			xnic_umem_release(xdev, u->umem, u->mapped);
		kfree(u);
	}
}

/* ------------------------------------------------------------------ */
/* Command queue                                                       */

static bool xnic_cmd_done(struct xnic_dev *xdev, struct xnic_cmd *cmd)
{
	return READ_ONCE(cmd->hdr.done) || READ_ONCE(xdev->fatal);
}

static int xnic_hw_reset(struct xnic_dev *xdev);

/*
 * The command path died (a command timed out, or the device is fatal):
 * stop the device for good and free what was kept for it.  Called with
 * cmd_lock held, so no command is in flight; the first caller does the
 * work.  Interrupts stay requested (freed by xnic_hw_stop()).
 *
 * Return: true if the caller should report DEVICE_FATAL (after dropping
 * cmd_lock): the command path died here and the device did not already
 * report it.
 */
static bool xnic_cmd_path_died(struct xnic_dev *xdev)
{
	if (xdev->cmd_dead)
		return false;
	xdev->cmd_dead = true;
	xnic_wr(xdev, XNIC_REG_INTR_MASK, 1);
	xnic_wr(xdev, XNIC_REG_ENABLE, 0);
	if (xnic_hw_reset(xdev)) {
		dev_err(&xdev->pdev->dev,
			"reset after the command failure did not complete: memory given to the device stays allocated\n");
	} else {
		/* nothing given to the device is reachable any more */
		spin_lock(&xdev->zombie_lock);
		WRITE_ONCE(xdev->stopped, true);
		spin_unlock(&xdev->zombie_lock);
		xnic_free_zombies(xdev, true);
	}
	return !READ_ONCE(xdev->fatal);
}

/**
 * xnic_cmd_exec - run one command and wait for it
 * @xdev: device
 * @opcode: XNIC_CMD_*
 * @in: command body (copied after the header), may be NULL
 * @inlen: its size, at most 112 bytes
 * @out: where to copy the entry's body back, may be NULL
 * @outlen: its size
 *
 * Sleeps.  A command that times out, or finds the device fatal, resets
 * the device before returning (see the file comment): an -ETIMEDOUT or
 * -EIO caller may free what the command named if xnic_cmd_let_go() says
 * so.
 *
 * Return: 0, the errno of the device's status, -ETIMEDOUT, or
 * -EIO once the device is dead.
 */
int xnic_cmd_exec(struct xnic_dev *xdev, u8 opcode, const void *in,
		  size_t inlen, void *out, size_t outlen)
{
	struct xnic_cmd *ring = xdev->cmdq.cpu, *cmd;
	struct xrdma_event e = {
		.device = &xdev->ibdev,
		.event = XRDMA_EVENT_DEVICE_FATAL,
	};
	bool report = false;
	unsigned long deadline;
	u32 status;
	int ret;

	if (WARN_ON_ONCE(inlen > sizeof(cmd->raw) || outlen > sizeof(cmd->raw)))
		return -EINVAL;

	mutex_lock(&xdev->cmd_lock);
	if (xdev->cmd_dead || READ_ONCE(xdev->fatal)) {
		report = xnic_cmd_path_died(xdev);
		ret = -EIO;
		goto out;
	}
	cmd = &ring[xdev->cmdq_pi & ((1U << XNIC_CMDQ_LOG) - 1)];
	memset(cmd, 0, sizeof(*cmd));
	cmd->hdr.opcode = opcode;
	cmd->hdr.token = cpu_to_le32(++xdev->cmd_token);
	if (in)
		memcpy(cmd->raw, in, inlen);
	xdev->cmdq_pi++;
	/* the entry before the producer index */
	wmb();
	xnic_wr(xdev, XNIC_REG_CMDQ_PI, xdev->cmdq_pi);

	deadline = jiffies + msecs_to_jiffies(cmd_timeout_ms);
	while (!xnic_cmd_done(xdev, cmd)) {
		if (time_after(jiffies, deadline))
			break;
		wait_event_timeout(xdev->cmd_wq, xnic_cmd_done(xdev, cmd),
				   msecs_to_jiffies(100));
	}
	if (!READ_ONCE(cmd->hdr.done)) {
		if (!READ_ONCE(xdev->fatal))
			dev_err(&xdev->pdev->dev,
				"command 0x%02x timed out; device considered dead, resetting it\n",
				opcode);
		ret = READ_ONCE(xdev->fatal) ? -EIO : -ETIMEDOUT;
		report = xnic_cmd_path_died(xdev);
		goto out;
	}
	/* outputs after the done word */
	dma_rmb();
	status = le32_to_cpu(READ_ONCE(cmd->hdr.status));
	if (out)
		memcpy(out, cmd->raw, outlen);
	ret = xnic_cmd_status_to_errno(status);
	if (ret)
		dev_dbg(&xdev->pdev->dev, "command 0x%02x: status %u\n",
			opcode, status);
out:
	mutex_unlock(&xdev->cmd_lock);
	/* the device is useless to its users now */
	if (report)
		xrdma_dispatch_event(&e);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Event queue                                                         */

static void xnic_qp_event(struct xnic_dev *xdev, u32 qpn,
			  enum xrdma_event_type type, bool fatal)
{
	struct xrdma_qp *qp = xrdma_qp_get_by_num(&xdev->ibdev, qpn);
	struct xrdma_event e = {
		.device = &xdev->ibdev,
		.event = type,
	};

	if (!qp)
		return;
	if (fatal)
		xrdma_qp_set_error(qp);
	e.element.qp = qp;
	xrdma_dispatch_event(&e);
	xrdma_qp_put(qp);
}

static void xnic_handle_eqe(struct xnic_dev *xdev, u8 type, u32 data,
			    u32 aux)
{
	struct xrdma_event e = { .device = &xdev->ibdev };
	struct xnic_srq *srq;
	struct xrdma_cq *cq;

	switch (type) {
	case XNIC_EQE_COMPLETION:
		cq = xrdma_cq_get_by_num(&xdev->ibdev, data);
		if (!cq)
			break;
		if (cq->comp_handler)
			cq->comp_handler(cq, cq->cq_context);
		xrdma_cq_put(cq);
		break;
	case XNIC_EQE_CMD_DONE:
		wake_up(&xdev->cmd_wq);
		break;
	case XNIC_EQE_QP_FATAL:
		xnic_qp_event(xdev, data, XRDMA_EVENT_QP_FATAL, true);
		break;
	case XNIC_EQE_QP_REQ_ERR:
		xnic_qp_event(xdev, data, XRDMA_EVENT_QP_REQ_ERR, true);
		break;
	case XNIC_EQE_QP_ACCESS_ERR:
		xnic_qp_event(xdev, data, XRDMA_EVENT_QP_ACCESS_ERR, true);
		break;
	case XNIC_EQE_LAST_WQE:
		xnic_qp_event(xdev, data, XRDMA_EVENT_QP_LAST_WQE_REACHED,
			      false);
		break;
	case XNIC_EQE_CQ_ERR:
		cq = xrdma_cq_get_by_num(&xdev->ibdev, data);
		if (!cq)
			break;
		e.event = XRDMA_EVENT_CQ_ERR;
		e.element.cq = cq;
		xrdma_dispatch_event(&e);
		xrdma_cq_put(cq);
		break;
	case XNIC_EQE_SRQ_LIMIT:
		/* destroy_srq erases, then waits for this handler */
		srq = xa_load(&xdev->srq_xa, data);
		if (!srq)
			break;
		WRITE_ONCE(srq->limit, 0);	/* the event disarms it */
		e.event = XRDMA_EVENT_SRQ_LIMIT_REACHED;
		e.element.srq = &srq->ibsrq;
		xrdma_dispatch_event(&e);
		break;
	case XNIC_EQE_PORT_CHANGE:
		if (data < 1 || data > xdev->ibdev.num_ports)
			break;
		WRITE_ONCE(xdev->port_state, aux);
		e.event = aux == XRDMA_PORT_ACTIVE ? XRDMA_EVENT_PORT_ACTIVE :
						     XRDMA_EVENT_PORT_ERR;
		e.element.port_num = data;
		xrdma_dispatch_event(&e);
		break;
	case XNIC_EQE_DEVICE_FATAL:
		dev_err(&xdev->pdev->dev, "device reported a fatal error\n");
		WRITE_ONCE(xdev->fatal, true);
		wake_up(&xdev->cmd_wq);
		e.event = XRDMA_EVENT_DEVICE_FATAL;
		xrdma_dispatch_event(&e);
		break;
	default:
		dev_warn_ratelimited(&xdev->pdev->dev,
				     "unknown event type 0x%02x\n", type);
		break;
	}
}

/* Consume every valid EQE.  Called with eq_lock held. */
static void xnic_eq_process(struct xnic_dev *xdev)
{
	struct xnic_eqe *ring = xdev->eq.cpu;
	u32 mask = (1U << XNIC_EQ_LOG) - 1;
	u32 ci = xdev->eq_ci, n = 0;

	for (;;) {
		struct xnic_eqe *eqe = &ring[ci & mask];

		if (!xnic_hw_owned_valid(READ_ONCE(eqe->owner), ci,
					 XNIC_EQ_LOG))
			break;
		/* the entry's body after its owner */
		dma_rmb();
		ci++;
		xnic_handle_eqe(xdev, eqe->type, le32_to_cpu(eqe->data),
				le32_to_cpu(eqe->aux));
		/* give the device room during a long burst */
		if (!(++n % 256)) {
			xdev->eq_ci = ci;
			xnic_wr(xdev, XNIC_REG_EQ_CI, ci);
		}
	}
	if (ci != xdev->eq_ci) {
		xdev->eq_ci = ci;
		xnic_wr(xdev, XNIC_REG_EQ_CI, ci);
	}
}

static irqreturn_t xnic_irq(int irq, void *data)
{
	struct xnic_dev *xdev = data;
	unsigned long flags;

	for (;;) {
		set_bit(0, &xdev->eq_pending);
		if (!spin_trylock_irqsave(&xdev->eq_lock, flags))
			return IRQ_HANDLED;	/* the holder will look again */
		while (test_and_clear_bit(0, &xdev->eq_pending))
			xnic_eq_process(xdev);
		spin_unlock_irqrestore(&xdev->eq_lock, flags);
		/* set after our last look but before the unlock? */
		if (!test_bit(0, &xdev->eq_pending))
			break;
	}
	return IRQ_HANDLED;
}

/**
 * xnic_eq_sync - wait for the event handler running on another CPU
 * @xdev: device
 *
 * After it returns, a pointer unpublished before the call is no longer
 * used by the handler.
 */
void xnic_eq_sync(struct xnic_dev *xdev)
{
	spin_lock_irq(&xdev->eq_lock);
	spin_unlock_irq(&xdev->eq_lock);
	/*
	 * An interrupt that found the lock held while we had it left its
	 * events to the holder (eq_pending): look at them, or they wait
	 * for the device's next event.
	 */
	if (test_bit(0, &xdev->eq_pending))
		xnic_irq(0, xdev);
}

/* ------------------------------------------------------------------ */
/* Bring-up and teardown                                               */

/*
 * Reset the device and poll STATUS.READY, bounded: once it is set the
 * device holds no reference to host memory (registers.rst, RESET).
 */
static int xnic_hw_reset(struct xnic_dev *xdev)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(2000);

	xnic_wr(xdev, XNIC_REG_RESET, 1);
	while (!(xnic_rd(xdev, XNIC_REG_STATUS) & XNIC_STATUS_READY)) {
		if (time_after(jiffies, deadline)) {
			dev_err(&xdev->pdev->dev, "device not ready after reset\n");
			return -ETIMEDOUT;
		}
		usleep_range(100, 200);
	}
	return 0;
}

static void xnic_put_addr(struct xnic_dev *xdev, u32 lo, u32 hi,
			  dma_addr_t addr)
{
	xnic_wr(xdev, lo, lower_32_bits(addr));
	xnic_wr(xdev, hi, upper_32_bits(addr));
}

static int xnic_query_caps(struct xnic_dev *xdev)
{
	struct xnic_cmd_query_caps_out out;
	int ret;

	ret = xnic_cmd_exec(xdev, XNIC_CMD_QUERY_CAPS, NULL, 0, &out,
			    sizeof(out));
	if (ret)
		return ret;
	xnic_caps_from_hw(&xdev->caps, &out);
	xnic_fill_device_attr(&xdev->ibdev.attr, &xdev->caps, &out);
	if (!xdev->caps.num_ports)
		return -ENODEV;
	xdev->ibdev.num_ports = min_t(u32, xdev->caps.num_ports,
				      XRDMA_MAX_PORTS);
	xdev->port_state = xdev->caps.port_state;
	return 0;
}

static int xnic_alloc_kernel_db(struct xnic_dev *xdev)
{
	struct xnic_cmd_alloc_db c = {};
	int ret;

	ret = xnic_dma_alloc(xdev, &xdev->kdb, XNIC_DB_PAGE_SIZE);
	if (ret)
		return ret;
	c.db_index = cpu_to_le32(XNIC_KERNEL_DB_INDEX);
	c.page_addr = cpu_to_le64(xdev->kdb.dma);
	ret = xnic_cmd_exec(xdev, XNIC_CMD_ALLOC_DB, &c, sizeof(c), NULL, 0);
	if (ret) {
		xnic_dma_free(xdev, &xdev->kdb, xnic_cmd_let_go(xdev, ret));
		return ret;
	}
	xdev->kdb_allocated = true;
	return 0;
}

static void xnic_free_kernel_db(struct xnic_dev *xdev)
{
	struct xnic_cmd_alloc_db c = {};
	int ret;

	if (!xdev->kdb_allocated)
		return;
	c.db_index = cpu_to_le32(XNIC_KERNEL_DB_INDEX);
	ret = xnic_cmd_exec(xdev, XNIC_CMD_FREE_DB, &c, sizeof(c), NULL, 0);
	if (ret)
		dev_warn(&xdev->pdev->dev, "FREE_DB of the kernel doorbell page: %d\n",
			 ret);
	xdev->kdb_allocated = false;
	/* freed after the reset */
}

/*
 * Stop the device.  Return: true if its reset completed, so that every
 * queue memory may be freed; false if the device may still write it.
 */
static bool xnic_hw_stop(struct xnic_dev *xdev)
{
	bool stopped;

	xnic_wr(xdev, XNIC_REG_INTR_MASK, 1);
	xnic_wr(xdev, XNIC_REG_ENABLE, 0);
	stopped = !xnic_hw_reset(xdev);
	if (xdev->irq_requested) {
		xdev->bus->free_irq(xdev->bus);
		xdev->irq_requested = false;
	}
	/* a handler that started before free_irq is done after this */
	xnic_eq_sync(xdev);
	return stopped;
}

/*
 * Free the queues and the memory kept for the device, unless the device
 * did not complete its reset (@stopped false): then all of it is leaked
 * rather than freed under a device that may still write it.
 */
static void xnic_free_queues(struct xnic_dev *xdev, bool stopped)
{
	xnic_dma_free(xdev, &xdev->kdb, stopped);
	xnic_dma_free(xdev, &xdev->eq, stopped);
	xnic_dma_free(xdev, &xdev->cmdq, stopped);
	if (!stopped)
		dev_warn(&xdev->pdev->dev, "reset did not complete: leaking the memory given to the device\n");
	xnic_free_zombies(xdev, stopped);
}

static int xnic_hw_start(struct xnic_dev *xdev)
{
	int ret;

	ret = xnic_hw_reset(xdev);
	if (ret)
		return ret;
	ret = xnic_dma_alloc(xdev, &xdev->cmdq,
			     sizeof(struct xnic_cmd) << XNIC_CMDQ_LOG);
	if (ret)
		return ret;
	ret = xnic_dma_alloc(xdev, &xdev->eq,
			     sizeof(struct xnic_eqe) << XNIC_EQ_LOG);
	if (ret)
		return ret;

	xnic_put_addr(xdev, XNIC_REG_CMDQ_BASE_LO, XNIC_REG_CMDQ_BASE_HI,
		      xdev->cmdq.dma);
	xnic_wr(xdev, XNIC_REG_CMDQ_LOG_SIZE, XNIC_CMDQ_LOG);
	xnic_put_addr(xdev, XNIC_REG_EQ_BASE_LO, XNIC_REG_EQ_BASE_HI,
		      xdev->eq.dma);
	xnic_wr(xdev, XNIC_REG_EQ_LOG_SIZE, XNIC_EQ_LOG);
	xnic_wr(xdev, XNIC_REG_INTR_MASK, 0);
	ret = xdev->bus->request_irq(xdev->bus, xnic_irq, xdev);
	if (ret) {
		dev_err(&xdev->pdev->dev, "request_irq: %d\n", ret);
		return ret;
	}
	xdev->irq_requested = true;
	xnic_wr(xdev, XNIC_REG_ENABLE, 1);
	if (!(xnic_rd(xdev, XNIC_REG_STATUS) & XNIC_STATUS_ENABLED))
		dev_dbg(&xdev->pdev->dev, "ENABLED not reported yet\n");

	ret = xnic_query_caps(xdev);
	if (ret) {
		dev_err(&xdev->pdev->dev, "QUERY_CAPS: %d\n", ret);
		return ret;
	}
	return xnic_alloc_kernel_db(xdev);
}

static int xnic_probe(struct platform_device *pdev)
{
	struct xnic_bus *bus = dev_get_platdata(&pdev->dev);
	struct xnic_dev *xdev;
	u32 id, ver;
	int ret;

	if (!bus || !bus->read32 || !bus->write32 || !bus->request_irq ||
	    !bus->free_irq)
		return -ENODEV;
	id = bus->read32(bus, XNIC_REG_ID);
	ver = bus->read32(bus, XNIC_REG_VERSION);
	if (id != XNIC_ID || ver != XNIC_HW_VERSION) {
		dev_err(&pdev->dev, "not an xnic (id 0x%08x version %u)\n",
			id, ver);
		return -ENODEV;
	}
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;

	xdev = xrdma_alloc_device(struct xnic_dev, ibdev, &xnic_dev_ops);
	if (!xdev)
		return -ENOMEM;
	xdev->pdev = pdev;
	xdev->dma_dev = &pdev->dev;
	xdev->bus = bus;
	mutex_init(&xdev->cmd_lock);
	init_waitqueue_head(&xdev->cmd_wq);
	spin_lock_init(&xdev->eq_lock);
	spin_lock_init(&xdev->zombie_lock);
	INIT_LIST_HEAD(&xdev->zombies);
	INIT_LIST_HEAD(&xdev->umem_zombies);
	ida_init(&xdev->db_ida);
	ida_init(&xdev->kslot_ida);
	xa_init(&xdev->qp_xa);
	xa_init(&xdev->srq_xa);

	ret = xnic_hw_start(xdev);
	if (ret)
		goto err_stop;

	ret = xrdma_register_device(&xdev->ibdev, "xnic%d", &pdev->dev);
	if (ret) {
		dev_err(&pdev->dev, "xrdma_register_device: %d\n", ret);
		goto err_stop;
	}
	platform_set_drvdata(pdev, xdev);
	dev_info(&pdev->dev, "%s: fw %s, %u QPs, %u CQs, %u MRs\n",
		 xdev->ibdev.name, xdev->ibdev.attr.fw_ver, xdev->caps.max_qp,
		 xdev->caps.max_cq, xdev->caps.max_mr);
	return 0;

err_stop:
	xnic_free_kernel_db(xdev);
	xnic_free_queues(xdev, xnic_hw_stop(xdev));
	ida_destroy(&xdev->kslot_ida);
	ida_destroy(&xdev->db_ida);
	mutex_destroy(&xdev->cmd_lock);
	xrdma_dealloc_device(&xdev->ibdev);
	return ret;
}

static int xnic_remove(struct platform_device *pdev)
{
	struct xnic_dev *xdev = platform_get_drvdata(pdev);

	/* every object, kernel and user, is destroyed when this returns */
	xrdma_unregister_device(&xdev->ibdev);
	xnic_free_kernel_db(xdev);
	xnic_free_queues(xdev, xnic_hw_stop(xdev));
	WARN_ON(!xa_empty(&xdev->qp_xa) || !xa_empty(&xdev->srq_xa));
	xa_destroy(&xdev->qp_xa);
	xa_destroy(&xdev->srq_xa);
	ida_destroy(&xdev->kslot_ida);
	ida_destroy(&xdev->db_ida);
	mutex_destroy(&xdev->cmd_lock);
	xrdma_dealloc_device(&xdev->ibdev);
	return 0;
}

static struct platform_driver xnic_driver = {
	.driver = {
		.name = XNIC_PLATFORM_NAME,
	},
	.probe = xnic_probe,
	.remove = xnic_remove,
};
module_platform_driver(xnic_driver);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xnic RDMA NIC driver");
MODULE_ALIAS("platform:" XNIC_PLATFORM_NAME);
