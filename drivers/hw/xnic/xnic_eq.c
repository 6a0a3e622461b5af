// SPDX-License-Identifier: GPL-2.0
/*
 * xnic: the event queue.  Its ring, the interrupt handler, and the
 * dispatch of events to the command queue (CMD_DONE), to CQ completion
 * handlers and to the core's asynchronous events.
 *
 * Events are handled in the hard interrupt handler (completion events
 * call the CQ's comp_handler straight away).  One CPU consumes the EQ at
 * a time; a handler that finds another one busy leaves it a note
 * (eq_pending) and returns, so the handler may even be re-entered from a
 * callback without deadlock.
 */
#include <linux/interrupt.h>
#include "xnic.h"
#include "xnic_trace.h"

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
	int state;

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
		xnic_cmdq_complete(xdev);
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
	case XNIC_EQE_SRQ_ERR:
		/* destroy_srq erases, then waits for this handler */
		srq = xa_load(&xdev->srq_xa, data);
		if (!srq)
			break;
		e.event = XRDMA_EVENT_SRQ_ERR;
		e.element.srq = &srq->ibsrq;
		xrdma_dispatch_event(&e);
		break;
	case XNIC_EQE_PORT_CHANGE:
		if (data < 1 || data > xdev->ibdev.num_ports)
			break;
		state = xnic_port_state_from_hw(aux);
		if (state < 0) {
			dev_warn_ratelimited(&xdev->pdev->dev,
					     "port %u: unknown state %u, taken as down\n",
					     data, aux);
			state = XRDMA_PORT_DOWN;
		}
		WRITE_ONCE(xdev->port_state, state);
		xnic_eth_link(xdev, data);
		e.event = state == XRDMA_PORT_ACTIVE ?
			  XRDMA_EVENT_PORT_ACTIVE : XRDMA_EVENT_PORT_ERR;
		e.element.port_num = data;
		xrdma_dispatch_event(&e);
		break;
	case XNIC_EQE_ETH_TX:
	case XNIC_EQE_ETH_RX:
		xnic_eth_event(xdev, data);
		break;
	case XNIC_EQE_DEVICE_FATAL:
		dev_err(&xdev->pdev->dev, "device reported a fatal error\n");
		WRITE_ONCE(xdev->fatal, true);
		/* a waiting command sees it */
		xnic_cmdq_complete(xdev);
		e.event = XRDMA_EVENT_DEVICE_FATAL;
		xrdma_dispatch_event(&e);
		xnic_recover(xdev);
		break;
	default:
		dev_warn_ratelimited(&xdev->pdev->dev,
				     "unknown event type 0x%02x\n", type);
		break;
	}
}

/*
 * Consume every valid EQE.  Called with eq_lock held.
 *
 * The device writes no COMPLETION event for a CQ while its previous one
 * is before EQ_CI (events.rst): EQ_CI goes past a COMPLETION entry before
 * its handler runs, so an arm made after the handler is served by a new
 * event, not merged into the one being handled.
 */
static void xnic_eq_process(struct xnic_dev *xdev)
{
	struct xnic_eqe *ring = xdev->eq.cpu;
	u32 mask = (1U << XNIC_EQ_LOG) - 1;
	u32 ci = xdev->eq_ci, n = 0;

	for (;;) {
		struct xnic_eqe *eqe = &ring[ci & mask];
		u32 data, aux;
		u8 type;

		if (!xnic_hw_owned_valid(READ_ONCE(eqe->owner), ci,
					 XNIC_EQ_LOG))
			break;
		/* the entry's body after its owner */
		dma_rmb();
		type = eqe->type;
		data = le32_to_cpu(eqe->data);
		aux = le32_to_cpu(eqe->aux);
		ci++;
		trace_xnic_eqe(xdev, type, data, aux);
		/* give the device room during a long burst */
		if (type == XNIC_EQE_COMPLETION || !(++n % 256)) {
			xdev->eq_ci = ci;
			xnic_wr(xdev, XNIC_REG_EQ_CI, ci);
		}
		xnic_handle_eqe(xdev, type, data, aux);
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

/**
 * xnic_eq_init - allocate the event queue, give it to the device and
 *		  request its interrupt
 * @xdev: device, reset and not enabled
 *
 * Return: 0 or an errno.  The ring is freed at teardown (xnic_main.c),
 * the interrupt by xnic_eq_free_irq().
 */
int xnic_eq_init(struct xnic_dev *xdev)
{
	int ret;

	ret = xnic_dma_alloc(xdev, &xdev->eq,
			     sizeof(struct xnic_eqe) << XNIC_EQ_LOG);
	if (ret)
		return ret;
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
	return 0;
}

/**
 * xnic_eq_free_irq - free the interrupt, wait for its handler
 * @xdev: device, its interrupts masked
 *
 * A handler that started before the interrupt was freed is done when
 * this returns.
 */
void xnic_eq_free_irq(struct xnic_dev *xdev)
{
	if (xdev->irq_requested) {
		xdev->bus->free_irq(xdev->bus);
		xdev->irq_requested = false;
	}
	xnic_eq_sync(xdev);
}
