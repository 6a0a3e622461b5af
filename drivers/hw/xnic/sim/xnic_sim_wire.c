// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_sim: the port on an Ethernet (xnic_sim_wire.h).  To be written.
 */
#include <linux/kernel.h>
#include "xnic_sim.h"

int xnic_sim_wire_attach(struct xnic_sim_dev *dev, const char *ifname)
{
	return -EOPNOTSUPP;
}

void xnic_sim_wire_detach(struct xnic_sim_dev *dev)
{
}

bool xnic_sim_wire_on(const struct xnic_sim_dev *dev)
{
	return false;
}

bool xnic_sim_wire_rx_poll(struct xnic_sim_dev *dev, u32 max)
{
	return false;
}

struct sk_buff *xnic_sim_wire_alloc(struct xnic_sim_dev *dev,
				    const struct xnic_sim_pkt *p,
				    u8 **payload)
{
	return NULL;
}

int xnic_sim_wire_xmit(struct xnic_sim_dev *dev, struct sk_buff *skb,
		       struct xnic_sim_pkt *p)
{
	kfree_skb(skb);
	return -EHOSTUNREACH;
}

bool xnic_sim_wire_eth_xmit(struct xnic_sim_dev *dev, const u8 *frame,
			    u32 len)
{
	return false;
}
