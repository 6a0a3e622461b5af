// SPDX-License-Identifier: GPL-2.0
/*
 * xnic: the command queue.  Posting a command, waiting for it, its
 * completion, and what a timeout does.
 *
 * One command in flight, serialised by cmd_lock; the submitter sleeps
 * until the entry's done word is set (woken by the CMD_DONE event,
 * xnic_cmdq_complete(), and re-checking periodically so a lost interrupt
 * costs latency, not a hang).  A command that times out (or finds the
 * device fatal) marks the command path dead and resets the device before
 * it returns, still under cmd_lock: the reset stops the data path too, so
 * nothing the device was given is reachable afterwards (xdev->stopped) and
 * the memory kept for it (zombies, xnic_mem.c) is freed.  Later commands
 * fail with -EIO at once, except those that release or quiesce an object
 * (destroy, dereg, free, dealloc, detach, MODIFY_QP to ERR or RESET):
 * those succeed in software, as mlx5's after an internal error, so that
 * consumers tear down without an error per object, and the kernel's
 * outstanding work requests are flushed in software (xnic_dp_dead(),
 * xnic_dp.c).  If the reset does not complete, everything given to the
 * device stays allocated (and pinned) until a later reset does, at worst
 * forever, and every command fails.
 */
#include <linux/moduleparam.h>
#include "xnic.h"
#include "xnic_trace.h"

static unsigned int cmd_timeout_ms = 10000;
module_param(cmd_timeout_ms, uint, 0644);
MODULE_PARM_DESC(cmd_timeout_ms, "command timeout in milliseconds (default 10000)");

/**
 * xnic_cmdq_init - allocate the command queue and give it to the device
 * @xdev: device, reset and not enabled
 *
 * Return: 0 or -ENOMEM.  The ring is freed at teardown (xnic_main.c).
 */
int xnic_cmdq_init(struct xnic_dev *xdev)
{
	int ret;

	ret = xnic_dma_alloc(xdev, &xdev->cmdq,
			     sizeof(struct xnic_cmd) << XNIC_CMDQ_LOG);
	if (ret)
		return ret;
	xnic_put_addr(xdev, XNIC_REG_CMDQ_BASE_LO, XNIC_REG_CMDQ_BASE_HI,
		      xdev->cmdq.dma);
	xnic_wr(xdev, XNIC_REG_CMDQ_LOG_SIZE, XNIC_CMDQ_LOG);
	return 0;
}

/**
 * xnic_cmdq_complete - a command completed (the CMD_DONE event)
 * @xdev: device
 *
 * Also called when the device reports a fatal error, so that a waiting
 * submitter sees it at once.  Any context.
 */
void xnic_cmdq_complete(struct xnic_dev *xdev)
{
	wake_up(&xdev->cmd_wq);
}

/**
 * xnic_cmd_status_to_errno - translate a command's status
 * @status: XNIC_CMD_* written by the device
 *
 * Return: 0 or a negative errno.
 */
static int xnic_cmd_status_to_errno(u32 status)
{
	switch (status) {
	case XNIC_CMD_OK:
		return 0;
	case XNIC_CMD_BAD_OPCODE:
		return -EOPNOTSUPP;
	case XNIC_CMD_BAD_PARAM:
	case XNIC_CMD_BAD_STATE:
	case XNIC_CMD_BAD_INDEX:
		return -EINVAL;
	case XNIC_CMD_NO_RESOURCES:
		return -ENOMEM;
	case XNIC_CMD_BUSY:
		return -EBUSY;
	default:
		return -EIO;
	}
}

static bool xnic_cmd_done(struct xnic_dev *xdev, struct xnic_cmd *cmd)
{
	return READ_ONCE(cmd->hdr.done) || READ_ONCE(xdev->fatal);
}

/**
 * xnic_cmd_sw_ok - may a command succeed in software on a dead device?
 * @opcode: XNIC_CMD_*
 * @in: its body
 * @inlen: the body's size
 *
 * Commands that release an object, and MODIFY_QP to ERR or RESET: a
 * device that was reset holds nothing, so what they ask is already true.
 *
 * Return: true if the command is one of those.
 */
static bool xnic_cmd_sw_ok(u8 opcode, const void *in, size_t inlen)
{
	const struct xnic_cmd_modify_qp *m = in;

	if (xnic_cmd_releases(opcode))
		return true;
	return opcode == XNIC_CMD_MODIFY_QP && in && inlen >= sizeof(*m) &&
	       le32_to_cpu(m->mask) & XNIC_QP_MOD_STATE &&
	       (m->state == XNIC_QPS_ERR || m->state == XNIC_QPS_RESET);
}

/*
 * The command path died (a command timed out, or the device is fatal):
 * stop the device for good and free what was kept for it.  Called with
 * cmd_lock held, so no command is in flight; the first caller does the
 * work.  Interrupts stay requested (freed by xnic_hw_stop()).
 *
 * Return: true if the caller should report DEVICE_FATAL (after dropping
 * cmd_lock): the command path died here and the device did not already
 * report it.  *@flush is set if the device was stopped here: the caller
 * calls xnic_dp_dead() after dropping cmd_lock.
 */
static bool xnic_cmd_path_died(struct xnic_dev *xdev, bool *flush)
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
		/* after the reset: poll_cq's acquire sees its last CQEs */
		smp_store_release(&xdev->stopped, true);
		spin_unlock(&xdev->zombie_lock);
		xnic_free_zombies(xdev, true);
		*flush = true;
	}
	return !READ_ONCE(xdev->fatal);
}

/**
 * xnic_cmd_kill - stop a device that failed, before its recovery
 * @xdev: device
 *
 * What the next command would do (xnic_cmd_path_died()), done now, and
 * the kernel's work requests flushed (again, if a command did it: the
 * handlers were then called from that command's caller), so that kernel
 * clients see them before the recovery unbinds the device.  Sleeps.
 */
void xnic_cmd_kill(struct xnic_dev *xdev)
{
	bool flush = false;

	mutex_lock(&xdev->cmd_lock);
	xnic_cmd_path_died(xdev, &flush);
	mutex_unlock(&xdev->cmd_lock);
	if (READ_ONCE(xdev->stopped))
		xnic_dp_dead(xdev);
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
 * so.  Once the device was stopped, a command that releases or quiesces
 * an object (xnic_cmd_sw_ok()) returns 0 instead.
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
	bool report = false, flush = false;
	unsigned long deadline;
	u32 status;
	int ret;

	if (WARN_ON_ONCE(inlen > sizeof(cmd->raw) || outlen > sizeof(cmd->raw)))
		return -EINVAL;

	mutex_lock(&xdev->cmd_lock);
	if (xdev->cmd_dead || READ_ONCE(xdev->fatal)) {
		report = xnic_cmd_path_died(xdev, &flush);
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
	trace_xnic_cmd_submit(xdev, opcode, xdev->cmd_token);
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
		trace_xnic_cmd_done(xdev, opcode, xdev->cmd_token, ~0U, ret);
		report = xnic_cmd_path_died(xdev, &flush);
		goto out;
	}
	/* outputs after the done word */
	dma_rmb();
	status = le32_to_cpu(READ_ONCE(cmd->hdr.status));
	if (out)
		memcpy(out, cmd->raw, outlen);
	ret = xnic_cmd_status_to_errno(status);
	trace_xnic_cmd_done(xdev, opcode, xdev->cmd_token, status, ret);
	if (ret)
		dev_dbg(&xdev->pdev->dev, "command 0x%02x: status %u\n",
			opcode, status);
out:
	mutex_unlock(&xdev->cmd_lock);
	/* the kernel's work requests complete with flush errors */
	if (flush)
		xnic_dp_dead(xdev);
	/* a reset device holds nothing: releasing succeeds */
	if ((ret == -EIO || ret == -ETIMEDOUT) && READ_ONCE(xdev->stopped) &&
	    xnic_cmd_sw_ok(opcode, in, inlen))
		ret = 0;
	/* the device is useless to its users now */
	if (report) {
		xrdma_dispatch_event(&e);
		xnic_recover(xdev);
	}
	return ret;
}
