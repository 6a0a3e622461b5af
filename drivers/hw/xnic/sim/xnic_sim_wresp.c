// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_sim: responder of wire QPs (xnic_sim_wire.h).  To be written.
 */
#include <linux/kernel.h>
#include "xnic_sim.h"

void xnic_sim_roce_recv(struct xnic_sim_dev *dev,
			const struct xnic_sim_pkt *p)
{
}

void xnic_sim_wresp_recv(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
			 const struct xnic_sim_pkt *p)
{
}

void xnic_sim_wresp_flush_acks(struct xnic_sim_dev *dev)
{
}

void xnic_sim_wresp_reset(struct xnic_sim_qp *qp)
{
	memset(qp->wresp, 0, sizeof(*qp->wresp));
}
