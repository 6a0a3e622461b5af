// SPDX-License-Identifier: GPL-2.0
/*
 * xnic: the Ethernet function (Documentation/xnic/ethernet.rst): a
 * netdev "xnic%d" per port, whose frames the device carries over the
 * port's cable.
 *
 * The netdev exists while the device is bound: created before the xrdma
 * device is registered, removed after it is unregistered (xnic_main.c),
 * so xrdma_get_netdev() always finds it.  Its rings live from ndo_open to
 * ndo_stop.  Transmit: one descriptor per linear skb, the TX_PI doorbell.
 * Receive: the RX ring is kept full of buffers sized by the MTU (a frame
 * of the MTU with a VLAN tag, at most the device's largest frame), so
 * that a frame's skb is charged to the socket that queues it (truesize)
 * for about what the MTU needs and not for a jumbo buffer; changing the
 * MTU of a running netdev restarts the rings with buffers of the new
 * size, as most NIC drivers do.  NAPI polls both rings, scheduled by the
 * ETH_TX / ETH_RX events (hard interrupt, via xnic_eq.c), which the
 * device posts once per arm: NAPI re-arms when it completes and then
 * looks once more, so a completion is never missed.
 *
 * tx_lock (BH) serialises the TX ring between ndo_start_xmit and the
 * completion in NAPI; the RX ring is NAPI's alone.  After ndo_stop has
 * disabled the rings (ETH_CTRL 0, then STATUS says they are off) the
 * device touches none of their memory; if it does not say so within a
 * bound, the rings are kept until the device is reset and the buffers
 * are leaked, like every other memory given to a device that does not
 * let go of it.
 */
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/if_vlan.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include "xnic.h"

#define XNIC_ETH_TX_LOG		8	/* 256 TX descriptors */
#define XNIC_ETH_RX_LOG		8	/* 256 RX buffers */
#define XNIC_ETH_FRAME_MAX	9216	/* what the driver accepts */
#define XNIC_ETH_STOP_MS	1000	/* bound for the rings to stop */
#define XNIC_ETH_COPYBREAK	256	/* frames up to this are copied */

struct xnic_eth_buf {
	struct sk_buff *skb;
	dma_addr_t dma;
	u32 len;
};

/**
 * struct xnic_eth - the netdev of a port (its private data)
 * @netdev: the netdev
 * @xdev: device
 * @port: port number (1-based)
 * @napi: polls both rings
 * @max_frame: the largest frame the device takes (ETH_MAX_FRAME, read once)
 * @buf_len: RX buffer size, xnic_eth_buf_len() of the MTU
 * @rings: the rings are allocated and the device uses them (ndo_open done)
 * @tx_lock: TX ring state (BH): @tx_pi, @tx_ci, @tx_buf
 * @tx_ring: TX descriptors
 * @rx_ring: RX descriptors
 * @tx_buf: skb of each TX descriptor
 * @rx_buf: buffer of each RX descriptor
 * @tx_pi: next TX descriptor to fill (free running)
 * @tx_ci: next TX descriptor to complete
 * @rx_ci: next RX descriptor to complete; rx_ci + ring size is posted
 */
struct xnic_eth {
	struct net_device *netdev;
	struct xnic_dev *xdev;
	u32 port;
	struct napi_struct napi;
	u32 max_frame;
	u32 buf_len;
	bool rings;

	spinlock_t tx_lock;		/* TX ring, with ndo_start_xmit */
	struct xnic_dmabuf tx_ring;
	struct xnic_dmabuf rx_ring;
	struct xnic_eth_buf *tx_buf;
	struct xnic_eth_buf *rx_buf;
	u32 tx_pi;
	u32 tx_ci;
	u32 rx_ci;
};

static void xnic_eth_wr(struct xnic_eth *eth, u32 reg, u32 val)
{
	xnic_wr(eth->xdev, XNIC_REG_ETH(eth->port, reg), val);
}

static u32 xnic_eth_rd(struct xnic_eth *eth, u32 reg)
{
	return xnic_rd(eth->xdev, XNIC_REG_ETH(eth->port, reg));
}

static struct xnic_eth_desc *xnic_eth_desc(struct xnic_dmabuf *ring, u32 log,
					   u32 idx)
{
	return (struct xnic_eth_desc *)ring->cpu + (idx & ((1U << log) - 1));
}

/* ------------------------------------------------------------------ */
/* Receive                                                             */

/**
 * xnic_eth_buf_len - the RX buffer size for an MTU
 * @mtu: the netdev's MTU
 * @max_frame: the device's largest frame
 *
 * A frame of @mtu bytes of payload with an Ethernet header and a VLAN
 * tag, at most @max_frame.  A longer frame is dropped by the device
 * (counted, rx_drop_len) as a real NIC drops a frame over its MRU.
 *
 * Return: bytes.
 */
static u32 xnic_eth_buf_len(u32 mtu, u32 max_frame)
{
	return min_t(u32, mtu + VLAN_ETH_HLEN, max_frame);
}

/*
 * A new RX buffer, mapped: from NAPI, or sleeping (ndo_open, ndo_change_mtu).
 * Return: 0 or -ENOMEM.
 */
static int xnic_eth_rx_alloc(struct xnic_eth *eth, struct xnic_eth_buf *b,
			     bool napi)
{
	struct device *dma_dev = eth->xdev->dma_dev;
	struct sk_buff *skb;
	dma_addr_t dma;

	skb = napi ? napi_alloc_skb(&eth->napi, eth->buf_len) :
		     __netdev_alloc_skb_ip_align(eth->netdev, eth->buf_len,
						 GFP_KERNEL);
	if (!skb)
		return -ENOMEM;
	dma = dma_map_single(dma_dev, skb->data, eth->buf_len,
			     DMA_FROM_DEVICE);
	if (dma_mapping_error(dma_dev, dma)) {
		dev_kfree_skb_any(skb);
		return -ENOMEM;
	}
	b->skb = skb;
	b->dma = dma;
	b->len = eth->buf_len;
	return 0;
}

/* Hand RX descriptor @idx (its buffer in rx_buf) to the device. */
static void xnic_eth_rx_post(struct xnic_eth *eth, u32 idx)
{
	struct xnic_eth_desc *d = xnic_eth_desc(&eth->rx_ring, XNIC_ETH_RX_LOG,
						idx);
	struct xnic_eth_buf *b = &eth->rx_buf[idx & ((1U << XNIC_ETH_RX_LOG) - 1)];

	d->addr = cpu_to_le64(b->dma);
	d->len = cpu_to_le32(b->len);
	d->status = 0;
}

/* One received frame, or its buffer back to the device. */
static void xnic_eth_rx_one(struct xnic_eth *eth, struct xnic_eth_desc *d,
			    u8 status)
{
	struct device *dma_dev = eth->xdev->dma_dev;
	struct net_device *nd = eth->netdev;
	struct xnic_eth_buf *b, nb;
	struct sk_buff *skb;
	u32 len = le32_to_cpu(d->len);

	b = &eth->rx_buf[eth->rx_ci & ((1U << XNIC_ETH_RX_LOG) - 1)];
	if ((status & XNIC_ETH_DESC_ERR) || len < ETH_HLEN || len > b->len) {
		nd->stats.rx_errors++;
		return;		/* the buffer is posted again */
	}
	if (len <= XNIC_ETH_COPYBREAK) {
		/* a small skb of its own; the buffer is posted again */
		skb = napi_alloc_skb(&eth->napi, len);
		if (!skb) {
			nd->stats.rx_dropped++;
			return;
		}
		dma_sync_single_for_cpu(dma_dev, b->dma, len, DMA_FROM_DEVICE);
		skb_put_data(skb, b->skb->data, len);
		dma_sync_single_for_device(dma_dev, b->dma, len,
					   DMA_FROM_DEVICE);
		goto deliver;
	}
	if (xnic_eth_rx_alloc(eth, &nb, true)) {
		nd->stats.rx_dropped++;
		return;
	}
	dma_unmap_single(dma_dev, b->dma, b->len, DMA_FROM_DEVICE);
	skb = b->skb;
	*b = nb;
	skb_put(skb, len);
deliver:
	skb->protocol = eth_type_trans(skb, nd);
	nd->stats.rx_packets++;
	nd->stats.rx_bytes += len;
	napi_gro_receive(&eth->napi, skb);
}

/* Receive up to @budget frames.  Return: how many descriptors were done. */
static int xnic_eth_rx(struct xnic_eth *eth, int budget)
{
	int done = 0;

	while (done < budget) {
		struct xnic_eth_desc *d = xnic_eth_desc(&eth->rx_ring,
							XNIC_ETH_RX_LOG,
							eth->rx_ci);
		u8 status = READ_ONCE(d->status);

		if (!(status & XNIC_ETH_DESC_DONE))
			break;
		dma_rmb();	/* the length after the status */
		xnic_eth_rx_one(eth, d, status);
		xnic_eth_rx_post(eth, eth->rx_ci);
		eth->rx_ci++;
		done++;
	}
	if (done) {
		wmb();	/* the descriptors before the doorbell */
		xnic_eth_wr(eth, XNIC_REG_ETH_RX_PI,
			    eth->rx_ci + (1U << XNIC_ETH_RX_LOG));
	}
	return done;
}

/* ------------------------------------------------------------------ */
/* Transmit                                                            */

static u32 xnic_eth_tx_free(struct xnic_eth *eth)
{
	return (1U << XNIC_ETH_TX_LOG) - (eth->tx_pi - eth->tx_ci);
}

/* Complete what the device has transmitted; NAPI, or ndo_stop. */
static void xnic_eth_tx_clean(struct xnic_eth *eth, int budget)
{
	struct net_device *nd = eth->netdev;

	spin_lock(&eth->tx_lock);
	while (eth->tx_ci != eth->tx_pi) {
		struct xnic_eth_desc *d = xnic_eth_desc(&eth->tx_ring,
							XNIC_ETH_TX_LOG,
							eth->tx_ci);
		struct xnic_eth_buf *b;
		u8 status = READ_ONCE(d->status);

		if (!(status & XNIC_ETH_DESC_DONE))
			break;
		dma_rmb();
		b = &eth->tx_buf[eth->tx_ci & ((1U << XNIC_ETH_TX_LOG) - 1)];
		dma_unmap_single(eth->xdev->dma_dev, b->dma, b->len,
				 DMA_TO_DEVICE);
		if (status & XNIC_ETH_DESC_ERR) {
			nd->stats.tx_errors++;
		} else {
			nd->stats.tx_packets++;
			nd->stats.tx_bytes += b->len;
		}
		napi_consume_skb(b->skb, budget);
		b->skb = NULL;
		eth->tx_ci++;
	}
	if (netif_queue_stopped(nd) && xnic_eth_tx_free(eth))
		netif_wake_queue(nd);
	spin_unlock(&eth->tx_lock);
}

static netdev_tx_t xnic_eth_xmit(struct sk_buff *skb, struct net_device *nd)
{
	struct xnic_eth *eth = netdev_priv(nd);
	struct device *dma_dev = eth->xdev->dma_dev;
	struct xnic_eth_desc *d;
	struct xnic_eth_buf *b;
	dma_addr_t dma;

	if (skb->len < ETH_HLEN || skb->len > eth->max_frame ||
	    skb_linearize(skb))
		goto drop;
	dma = dma_map_single(dma_dev, skb->data, skb->len, DMA_TO_DEVICE);
	if (dma_mapping_error(dma_dev, dma))
		goto drop;

	spin_lock(&eth->tx_lock);
	if (!xnic_eth_tx_free(eth)) {
		/* the queue is stopped when the ring fills: not reached */
		netif_stop_queue(nd);
		spin_unlock(&eth->tx_lock);
		dma_unmap_single(dma_dev, dma, skb->len, DMA_TO_DEVICE);
		return NETDEV_TX_BUSY;
	}
	b = &eth->tx_buf[eth->tx_pi & ((1U << XNIC_ETH_TX_LOG) - 1)];
	b->skb = skb;
	b->dma = dma;
	b->len = skb->len;
	d = xnic_eth_desc(&eth->tx_ring, XNIC_ETH_TX_LOG, eth->tx_pi);
	d->addr = cpu_to_le64(dma);
	d->len = cpu_to_le32(skb->len);
	d->status = 0;
	eth->tx_pi++;
	if (!xnic_eth_tx_free(eth))
		netif_stop_queue(nd);
	if (!netdev_xmit_more() || netif_queue_stopped(nd)) {
		wmb();	/* the descriptors before the doorbell */
		xnic_eth_wr(eth, XNIC_REG_ETH_TX_PI, eth->tx_pi);
	}
	spin_unlock(&eth->tx_lock);
	return NETDEV_TX_OK;

drop:
	nd->stats.tx_dropped++;
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

/* ------------------------------------------------------------------ */
/* NAPI and events                                                     */

/* Whether a completion waits at the head of either ring. */
static bool xnic_eth_pending(struct xnic_eth *eth)
{
	struct xnic_eth_desc *d;

	d = xnic_eth_desc(&eth->rx_ring, XNIC_ETH_RX_LOG, eth->rx_ci);
	if (READ_ONCE(d->status) & XNIC_ETH_DESC_DONE)
		return true;
	spin_lock(&eth->tx_lock);
	d = xnic_eth_desc(&eth->tx_ring, XNIC_ETH_TX_LOG, eth->tx_ci);
	d = eth->tx_ci != eth->tx_pi ? d : NULL;
	spin_unlock(&eth->tx_lock);
	return d && (READ_ONCE(d->status) & XNIC_ETH_DESC_DONE);
}

static int xnic_eth_poll(struct napi_struct *napi, int budget)
{
	struct xnic_eth *eth = container_of(napi, struct xnic_eth, napi);
	int done;

	xnic_eth_tx_clean(eth, budget);
	if (!budget)
		return 0;	/* netpoll: TX only */
	done = xnic_eth_rx(eth, budget);
	if (done < budget && napi_complete_done(napi, done)) {
		/* one event at the next completion, then look once more */
		xnic_eth_wr(eth, XNIC_REG_ETH_ARM,
			    XNIC_ETH_ARM_TX | XNIC_ETH_ARM_RX);
		mb();	/* the arm before the look */
		if (xnic_eth_pending(eth))
			napi_schedule(napi);
	}
	return done;
}

/**
 * xnic_eth_event - an ETH_TX or ETH_RX event
 * @xdev: device
 * @port: the event's port (unchecked)
 *
 * Hard interrupt context (xnic_eq.c).  A netdev that is down has its NAPI
 * disabled, which ignores the schedule.
 */
void xnic_eth_event(struct xnic_dev *xdev, u32 port)
{
	struct xnic_eth *eth;

	if (port < 1 || port > XRDMA_MAX_PORTS)
		return;
	eth = READ_ONCE(xdev->eth[port - 1]);
	if (eth)
		napi_schedule(&eth->napi);
}

/* Carrier from the port's link state. */
static void xnic_eth_carrier(struct xnic_eth *eth)
{
	if (xnic_eth_rd(eth, XNIC_REG_ETH_STATUS) & XNIC_ETH_ST_LINK)
		netif_carrier_on(eth->netdev);
	else
		netif_carrier_off(eth->netdev);
}

/**
 * xnic_eth_link - a port changed state (PORT_CHANGE): look at its link
 * @xdev: device
 * @port: the port (unchecked)
 */
void xnic_eth_link(struct xnic_dev *xdev, u32 port)
{
	struct xnic_eth *eth;

	if (port < 1 || port > XRDMA_MAX_PORTS)
		return;
	eth = READ_ONCE(xdev->eth[port - 1]);
	if (eth && netif_running(eth->netdev))
		xnic_eth_carrier(eth);
}

/* ------------------------------------------------------------------ */
/* Open and stop                                                       */

/*
 * Disable both rings.  Return: true once the device says they are off
 * (it touches none of their memory any more), false if it does not
 * within XNIC_ETH_STOP_MS.
 */
static bool xnic_eth_hw_stop(struct xnic_eth *eth)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(XNIC_ETH_STOP_MS);

	xnic_eth_wr(eth, XNIC_REG_ETH_CTRL, 0);
	while (xnic_eth_rd(eth, XNIC_REG_ETH_STATUS) &
	       (XNIC_ETH_ST_TX_ON | XNIC_ETH_ST_RX_ON)) {
		if (time_after(jiffies, deadline)) {
			netdev_err(eth->netdev, "rings not stopped: leaking their memory\n");
			return false;
		}
		usleep_range(100, 200);
	}
	return true;
}

/* Free the rings and their buffers (@stopped: the device let go). */
static void xnic_eth_free_rings(struct xnic_eth *eth, bool stopped)
{
	struct device *dma_dev = eth->xdev->dma_dev;
	u32 i;

	if (stopped && eth->tx_buf) {
		for (; eth->tx_ci != eth->tx_pi; eth->tx_ci++) {
			struct xnic_eth_buf *b;

			b = &eth->tx_buf[eth->tx_ci &
					 ((1U << XNIC_ETH_TX_LOG) - 1)];
			dma_unmap_single(dma_dev, b->dma, b->len,
					 DMA_TO_DEVICE);
			dev_kfree_skb_any(b->skb);
			eth->netdev->stats.tx_dropped++;
		}
	}
	if (stopped && eth->rx_buf) {
		for (i = 0; i < (1U << XNIC_ETH_RX_LOG); i++) {
			struct xnic_eth_buf *b = &eth->rx_buf[i];

			if (!b->skb)
				continue;
			dma_unmap_single(dma_dev, b->dma, b->len,
					 DMA_FROM_DEVICE);
			dev_kfree_skb_any(b->skb);
		}
	}
	/* not stopped: the buffers stay mapped and allocated for good */
	kfree(eth->tx_buf);
	kfree(eth->rx_buf);
	eth->tx_buf = NULL;
	eth->rx_buf = NULL;
	xnic_dma_free(eth->xdev, &eth->tx_ring, stopped);
	xnic_dma_free(eth->xdev, &eth->rx_ring, stopped);
}

static int xnic_eth_alloc_rings(struct xnic_eth *eth)
{
	u32 i;

	eth->tx_pi = 0;
	eth->tx_ci = 0;
	eth->rx_ci = 0;
	eth->tx_buf = kcalloc(1U << XNIC_ETH_TX_LOG, sizeof(*eth->tx_buf),
			      GFP_KERNEL);
	eth->rx_buf = kcalloc(1U << XNIC_ETH_RX_LOG, sizeof(*eth->rx_buf),
			      GFP_KERNEL);
	if (!eth->tx_buf || !eth->rx_buf ||
	    xnic_dma_alloc(eth->xdev, &eth->tx_ring,
			   sizeof(struct xnic_eth_desc) << XNIC_ETH_TX_LOG) ||
	    xnic_dma_alloc(eth->xdev, &eth->rx_ring,
			   sizeof(struct xnic_eth_desc) << XNIC_ETH_RX_LOG))
		return -ENOMEM;
	for (i = 0; i < (1U << XNIC_ETH_RX_LOG); i++) {
		if (xnic_eth_rx_alloc(eth, &eth->rx_buf[i], false))
			return -ENOMEM;
		xnic_eth_rx_post(eth, i);
	}
	return 0;
}

/*
 * Allocate the rings, hand them to the device, start NAPI and the queue.
 * Return: 0, or an errno with nothing left running (@eth->rings false).
 */
static int xnic_eth_up(struct xnic_eth *eth)
{
	struct net_device *nd = eth->netdev;
	u32 on = XNIC_ETH_ST_TX_ON | XNIC_ETH_ST_RX_ON;
	int ret;

	eth->buf_len = xnic_eth_buf_len(nd->mtu, eth->max_frame);
	ret = xnic_eth_alloc_rings(eth);
	if (ret)
		goto err_free;
	xnic_put_addr(eth->xdev, XNIC_REG_ETH(eth->port, XNIC_REG_ETH_TX_BASE_LO),
		      XNIC_REG_ETH(eth->port, XNIC_REG_ETH_TX_BASE_HI),
		      eth->tx_ring.dma);
	xnic_eth_wr(eth, XNIC_REG_ETH_TX_LOG_SIZE, XNIC_ETH_TX_LOG);
	xnic_put_addr(eth->xdev, XNIC_REG_ETH(eth->port, XNIC_REG_ETH_RX_BASE_LO),
		      XNIC_REG_ETH(eth->port, XNIC_REG_ETH_RX_BASE_HI),
		      eth->rx_ring.dma);
	xnic_eth_wr(eth, XNIC_REG_ETH_RX_LOG_SIZE, XNIC_ETH_RX_LOG);
	napi_enable(&eth->napi);
	wmb();	/* the RX descriptors before the device reads them */
	xnic_eth_wr(eth, XNIC_REG_ETH_CTRL, XNIC_ETH_CTRL_TX | XNIC_ETH_CTRL_RX);
	if ((xnic_eth_rd(eth, XNIC_REG_ETH_STATUS) & on) != on) {
		netdev_err(nd, "the device did not enable the rings\n");
		ret = -EIO;
		goto err_napi;
	}
	xnic_eth_wr(eth, XNIC_REG_ETH_RX_PI, 1U << XNIC_ETH_RX_LOG);
	xnic_eth_wr(eth, XNIC_REG_ETH_ARM, XNIC_ETH_ARM_TX | XNIC_ETH_ARM_RX);
	xnic_eth_carrier(eth);
	eth->rings = true;
	netif_start_queue(nd);
	return 0;

err_napi:
	napi_disable(&eth->napi);
	xnic_eth_free_rings(eth, xnic_eth_hw_stop(eth));
	return ret;
err_free:
	xnic_eth_free_rings(eth, true);
	return ret;
}

/*
 * Stop the queue and NAPI, take the rings from the device and free them
 * (nothing if they are not up).  Return: false if the device did not let
 * go of them (they are leaked, xnic_eth_free_rings()).
 */
static bool xnic_eth_down(struct xnic_eth *eth)
{
	struct net_device *nd = eth->netdev;
	bool stopped;

	if (!eth->rings)
		return true;
	netif_tx_disable(nd);
	napi_disable(&eth->napi);
	netif_carrier_off(nd);
	stopped = xnic_eth_hw_stop(eth);
	xnic_eth_free_rings(eth, stopped);
	eth->rings = false;
	return stopped;
}

static int xnic_eth_open(struct net_device *nd)
{
	return xnic_eth_up(netdev_priv(nd));
}

static int xnic_eth_stop(struct net_device *nd)
{
	xnic_eth_down(netdev_priv(nd));
	return 0;
}

/*
 * ndo_change_mtu (RTNL; the core checked min_mtu..max_mtu): the RX buffers
 * are sized by the MTU, so a running netdev's rings restart with buffers
 * of the new size (frames in flight meanwhile are dropped, as by most NIC
 * drivers).  If the new buffers cannot be allocated the old MTU is put
 * back.  Return: 0 or an errno.
 */
static int xnic_eth_change_mtu(struct net_device *nd, int new_mtu)
{
	struct xnic_eth *eth = netdev_priv(nd);
	int old_mtu = nd->mtu;
	int ret;

	if (!netif_running(nd) || !eth->rings) {
		WRITE_ONCE(nd->mtu, new_mtu);
		return 0;
	}
	if (!xnic_eth_down(eth))
		return -EIO;	/* the device holds the old rings: stay down */
	WRITE_ONCE(nd->mtu, new_mtu);
	ret = xnic_eth_up(eth);
	if (!ret)
		return 0;
	netdev_warn(nd, "MTU %d: no RX buffers (%d), keeping MTU %d\n",
		    new_mtu, ret, old_mtu);
	WRITE_ONCE(nd->mtu, old_mtu);
	if (xnic_eth_up(eth))
		netdev_err(nd, "cannot restart the rings: down until reopened\n");
	return ret;
}

static const struct net_device_ops xnic_eth_ops = {
	.ndo_open = xnic_eth_open,
	.ndo_stop = xnic_eth_stop,
	.ndo_start_xmit = xnic_eth_xmit,
	.ndo_change_mtu = xnic_eth_change_mtu,
	.ndo_validate_addr = eth_validate_addr,
};

/* ------------------------------------------------------------------ */
/* Creation and removal                                                */

/**
 * xnic_eth_get_netdev - xrdma_device_ops.get_netdev
 * @dev: device
 * @port: port (the core checked it)
 */
struct net_device *xnic_eth_get_netdev(struct xrdma_device *dev, u32 port)
{
	struct xnic_dev *xdev = to_xdev(dev);
	struct xnic_eth *eth;

	if (port < 1 || port > XRDMA_MAX_PORTS)
		return NULL;
	eth = xdev->eth[port - 1];
	return eth ? eth->netdev : NULL;
}

static int xnic_eth_add(struct xnic_dev *xdev, u32 port)
{
	struct net_device *nd;
	struct xnic_eth *eth;
	u32 hi, lo, max_frame;
	u8 mac[ETH_ALEN];
	int ret;

	max_frame = xnic_rd(xdev, XNIC_REG_ETH(port, XNIC_REG_ETH_MAX_FRAME));
	max_frame = min_t(u32, max_frame, XNIC_ETH_FRAME_MAX);
	if (max_frame < ETH_HLEN + ETH_MIN_MTU) {
		dev_warn(&xdev->pdev->dev, "port %u: largest frame %u: no Ethernet function\n",
			 port, max_frame);
		return 0;
	}
	nd = alloc_etherdev(sizeof(*eth));
	if (!nd)
		return -ENOMEM;
	SET_NETDEV_DEV(nd, &xdev->pdev->dev);
	eth = netdev_priv(nd);
	eth->netdev = nd;
	eth->xdev = xdev;
	eth->port = port;
	eth->max_frame = max_frame;
	eth->buf_len = xnic_eth_buf_len(ETH_DATA_LEN, max_frame);
	spin_lock_init(&eth->tx_lock);
	strscpy(nd->name, "xnic%d", sizeof(nd->name));
	nd->netdev_ops = &xnic_eth_ops;
	nd->min_mtu = ETH_MIN_MTU;
	nd->max_mtu = min_t(u32, max_frame - ETH_HLEN, XNIC_ETH_FRAME_MAX);
	if (max_frame >= ETH_HLEN + VLAN_HLEN + ETH_MIN_MTU)
		nd->max_mtu = max_frame - ETH_HLEN - VLAN_HLEN;
	nd->mtu = min_t(u32, ETH_DATA_LEN, nd->max_mtu);

	hi = xnic_rd(xdev, XNIC_REG_ETH(port, XNIC_REG_ETH_MAC_HI));
	lo = xnic_rd(xdev, XNIC_REG_ETH(port, XNIC_REG_ETH_MAC_LO));
	mac[0] = hi >> 8;
	mac[1] = hi;
	mac[2] = lo >> 24;
	mac[3] = lo >> 16;
	mac[4] = lo >> 8;
	mac[5] = lo;
	if (is_valid_ether_addr(mac)) {
		eth_hw_addr_set(nd, mac);
	} else {
		dev_warn(&xdev->pdev->dev, "port %u: invalid MAC %pM, using a random one\n",
			 port, mac);
		eth_hw_addr_random(nd);
	}
	netif_napi_add(nd, &eth->napi, xnic_eth_poll);
	netif_carrier_off(nd);
	ret = register_netdev(nd);
	if (ret) {
		netif_napi_del(&eth->napi);
		free_netdev(nd);
		return ret;
	}
	WRITE_ONCE(xdev->eth[port - 1], eth);
	return 0;
}

/**
 * xnic_eth_fini - remove the netdevs (after xrdma_unregister_device())
 * @xdev: device, still enabled
 */
void xnic_eth_fini(struct xnic_dev *xdev)
{
	u32 i;

	for (i = 0; i < XRDMA_MAX_PORTS; i++) {
		struct xnic_eth *eth = xdev->eth[i];

		if (!eth)
			continue;
		/* stops it first: the rings are off when it returns */
		unregister_netdev(eth->netdev);
		WRITE_ONCE(xdev->eth[i], NULL);
		/* an event handler that found it is done */
		xnic_eq_sync(xdev);
		netif_napi_del(&eth->napi);
		free_netdev(eth->netdev);
	}
}

/**
 * xnic_eth_init - a netdev per port (before xrdma_register_device())
 * @xdev: device, enabled, its ports known
 *
 * Return: 0 or an errno (nothing is left behind).
 */
int xnic_eth_init(struct xnic_dev *xdev)
{
	u32 port;
	int ret;

	for (port = 1; port <= xdev->ibdev.num_ports; port++) {
		ret = xnic_eth_add(xdev, port);
		if (ret) {
			dev_err(&xdev->pdev->dev, "port %u netdev: %d\n",
				port, ret);
			xnic_eth_fini(xdev);
			return ret;
		}
	}
	return 0;
}
