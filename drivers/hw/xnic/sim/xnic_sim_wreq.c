// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_sim: requester and completer of wire QPs (xnic_sim_wire.h).  To
 * be written.
 */
#include <linux/kernel.h>
#include "xnic_sim.h"

int xnic_sim_wreq_ud_send(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
			  u32 nl, u64 len, const u8 *sgid, u8 stype)
{
	return XNIC_SIM_DONE;
}

bool xnic_sim_wreq_turn(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
			u64 now, u64 *next, struct xnic_sim_budget *b)
{
	xnic_sim_qp_deactivate(qp);
	return false;
}

void xnic_sim_wreq_recv(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
			const struct xnic_sim_pkt *p)
{
}

void xnic_sim_wreq_reset(struct xnic_sim_qp *qp)
{
	memset(qp->wreq, 0, sizeof(*qp->wreq));
}
