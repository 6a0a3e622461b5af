// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_sim: the Ethernet function of the port (Documentation/xnic/
 * ethernet.rst).  Its registers, its TX and RX rings, and the cable: a
 * frame the port transmits lands in the cabled port's RX ring, or is
 * dropped (no cable, the peer's RX off or out of buffers); a port never
 * receives its own frames.  A port attached to a wire (xnic_sim_wire.c)
 * sends its frames on the wire instead of the cable, and receives what
 * the wire's rx_handler hands to xnic_sim_eth_rx().
 *
 * Where it runs.  The TX ring is served by the device's engine thread
 * (xnic_sim_eth_tx(), a bounded number of frames per pass, after the
 * RDMA data path): TX_PI only records the producer index and kicks.  The
 * engine copies each frame from the driver's TX buffer into a bounce
 * buffer of the device, then, under the peer's rx_lock, into the buffer
 * of the peer's next RX descriptor.  Nothing here sleeps.
 *
 * Locks: eth->tx_lock (TX ring state, TX counters, the bounce buffer),
 * eth->rx_lock (RX ring state, RX counters); both taken irqsave since
 * registers are written from any context.  Order: a device's tx_lock,
 * then its peer's rx_lock, then the peer's eq_lock (the RX event); a
 * device's own tx_lock, then its own eq_lock (the TX event).  Disabling
 * a ring (ETH_CTRL) or a reset takes its lock, so once the write returns
 * nobody touches that ring or its buffers any more.
 *
 * Everything the driver writes is bounded: ring sizes 2^1..2^12, bases
 * 16-byte aligned, producer indexes at most one ring ahead of the
 * device (a write further ahead is ignored and counted), frame lengths
 * XNIC_ETH_MIN_FRAME..XNIC_SIM_ETH_MAX_FRAME, every byte reached through
 * the DMA helpers of xnic_sim_mem.c.  The device keeps no frame beyond
 * the one in flight.
 */
#include <linux/slab.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <xrdma/compat.h>
#include "xnic_sim.h"

/* frames the engine transmits per pass */
#define XNIC_SIM_ETH_TX_BUDGET	64

struct xnic_sim_eth_ring {
	u64 base;
	u32 log;
	u32 pi;			/* producer index, last valid write */
	u32 ci;			/* the device's consumer index */
	bool on;		/* enabled (ETH_CTRL) */
	bool armed;		/* one event at the next completion */
};

/*
 * The port's Ethernet function: tx_lock covers the TX ring, the frame in
 * flight (XNIC_SIM_ETH_MAX_FRAME bytes) and the tx_* counters, rx_lock
 * the RX ring and the rx_* counters; mac is derived from the node GUID.
 */
struct xnic_sim_eth {
	spinlock_t tx_lock;		/* TX ring, bounce buffer */
	spinlock_t rx_lock;		/* RX ring */
	u8 mac[6];
	struct xnic_sim_eth_ring tx;
	struct xnic_sim_eth_ring rx;
	u8 *frame;

	/* under tx_lock */
	u64 tx_frames;
	u64 tx_bytes;
	u64 tx_errors;		/* descriptors refused: length, address */
	u64 tx_drop_nocable;
	u64 tx_drop_peer;	/* the peer dropped it (RX off, no buffer) */
	u64 tx_bad_pi;
	/* under rx_lock */
	u64 rx_frames;
	u64 rx_bytes;
	u64 rx_drop_off;	/* RX not enabled */
	u64 rx_drop_nobuf;	/* no RX descriptor posted */
	u64 rx_drop_len;	/* frame longer than the buffer */
	u64 rx_errors;		/* buffer address not memory */
	u64 rx_bad_pi;
};

/**
 * xnic_sim_eth_mac - the MAC address of a port
 * @guid: node GUID (CPU order)
 * @mac: 6 bytes
 *
 * So that the EUI-64 the host derives from the MAC is the GUID, and the
 * netdev's IPv6 link-local address is the port's default GID:
 * {guid[0] ^ 2, guid[1], guid[2], guid[5], guid[6], guid[7]}.
 */
void xnic_sim_eth_mac(u64 guid, u8 mac[6])
{
	u8 g[8];

	put_unaligned_be64(guid, g);
	mac[0] = g[0] ^ 2;
	mac[1] = g[1];
	mac[2] = g[2];
	mac[3] = g[5];
	mac[4] = g[6];
	mac[5] = g[7];
}

/**
 * xnic_sim_eth_set_guid - the port's MAC after its GUID changed
 * @dev: device, its driver not bound (xnic_sim_dev_set_mac())
 */
void xnic_sim_eth_set_guid(struct xnic_sim_dev *dev)
{
	xnic_sim_eth_mac(dev->guid, dev->eth->mac);
}

/**
 * xnic_sim_eth_ring_ok - whether a ring may be enabled
 * @base: DMA address
 * @log: log2 of the number of descriptors
 */
bool xnic_sim_eth_ring_ok(u64 base, u32 log)
{
	return base && !(base & (sizeof(struct xnic_eth_desc) - 1)) &&
	       log >= XNIC_ETH_MIN_LOG && log <= XNIC_ETH_MAX_LOG;
}

/**
 * xnic_sim_eth_pi_ok - whether a producer index write is consistent
 * @ci: the device's consumer index
 * @pi: the written producer index (free running)
 * @log: log2 of the ring size
 *
 * The producer may be at most one ring ahead of the consumer.
 */
bool xnic_sim_eth_pi_ok(u32 ci, u32 pi, u32 log)
{
	return xnic_sim_ring_avail(ci, pi, log) >= 0;
}

/* DMA address of descriptor @idx (free running) of a ring. */
static u64 xnic_sim_eth_desc_addr(const struct xnic_sim_eth_ring *r, u32 idx)
{
	return r->base + (u64)(idx & ((1U << r->log) - 1)) *
			 sizeof(struct xnic_eth_desc);
}

/* Read a descriptor's address and length.  Return: false if no memory. */
static bool xnic_sim_eth_desc_read(const struct xnic_sim_eth_ring *r, u32 idx,
				   u64 *addr, u32 *len)
{
	struct xnic_eth_desc *d = xnic_sim_map(xnic_sim_eth_desc_addr(r, idx));

	if (!d)
		return false;
	*addr = le64_to_cpu(READ_ONCE(d->addr));
	*len = le32_to_cpu(READ_ONCE(d->len));
	xnic_sim_unmap(d);
	return true;
}

/* Complete a descriptor: its length, then its status (release). */
static void xnic_sim_eth_desc_done(const struct xnic_sim_eth_ring *r, u32 idx,
				   u32 len, u8 status, bool set_len)
{
	struct xnic_eth_desc *d = xnic_sim_map(xnic_sim_eth_desc_addr(r, idx));

	if (!d)
		return;
	if (set_len)
		WRITE_ONCE(d->len, cpu_to_le32(len));
	dma_wmb();	/* the length before the status */
	WRITE_ONCE(d->status, status);
	xnic_sim_unmap(d);
}

/**
 * xnic_sim_eth_rx - deliver a frame into @dev's RX ring
 * @dev: the receiving device
 * @frame: the frame, from its Ethernet header
 * @len: its length
 *
 * Called by the cabled peer's engine holding the peer's tx_lock, or by
 * the wire's rx_handler (softirq, xnic_sim_wire.c) holding nothing;
 * takes @dev's rx_lock, then its eq_lock.
 *
 * Return: whether it was received.
 */
bool xnic_sim_eth_rx(struct xnic_sim_dev *dev, const u8 *frame, u32 len)
{
	struct xnic_sim_eth *eth = dev->eth;
	struct xnic_sim_eth_ring *r = &eth->rx;
	bool event = false, ok = false;
	unsigned long flags;
	u32 blen;
	u64 addr;

	spin_lock_irqsave(&eth->rx_lock, flags);
	/* a port without a link receives nothing: counted as RX off */
	if (!r->on || !xnic_sim_port_up(dev)) {
		eth->rx_drop_off++;
		goto out;
	}
	if (r->ci == r->pi) {
		eth->rx_drop_nobuf++;
		goto out;
	}
	if (!xnic_sim_eth_desc_read(r, r->ci, &addr, &blen)) {
		/* the ring itself is not memory: stop using it */
		eth->rx_errors++;
		r->on = false;
		goto out;
	}
	if (len > blen) {
		/* the buffer stays posted for a smaller frame */
		eth->rx_drop_len++;
		goto out;
	}
	if (!xnic_sim_dma_write(addr, frame, len)) {
		eth->rx_errors++;
		xnic_sim_eth_desc_done(r, r->ci, 0,
				       XNIC_ETH_DESC_DONE | XNIC_ETH_DESC_ERR,
				       true);
	} else {
		xnic_sim_eth_desc_done(r, r->ci, len, XNIC_ETH_DESC_DONE,
				       true);
		eth->rx_frames++;
		eth->rx_bytes += len;
		ok = true;
	}
	r->ci++;
	event = r->armed;
	r->armed = false;
	if (event)
		xnic_sim_eq_post(dev, XNIC_EQE_ETH_RX, 1, 0);
out:
	spin_unlock_irqrestore(&eth->rx_lock, flags);
	return ok;
}

/*
 * Transmit the next frame of @dev's TX ring, if any.  Return: whether a
 * descriptor was consumed.
 */
static bool xnic_sim_eth_tx_one(struct xnic_sim_dev *dev)
{
	struct xnic_sim_eth *eth = dev->eth;
	struct xnic_sim_eth_ring *r = &eth->tx;
	struct xnic_sim_dev *peer = dev->peer;
	bool wire = xnic_sim_wire_on(dev);
	unsigned long flags;
	u8 status = XNIC_ETH_DESC_DONE;
	bool send = false;
	u32 len;
	u64 addr;

	spin_lock_irqsave(&eth->tx_lock, flags);
	if (!r->on || r->ci == r->pi) {
		spin_unlock_irqrestore(&eth->tx_lock, flags);
		return false;
	}
	if (!xnic_sim_eth_desc_read(r, r->ci, &addr, &len)) {
		eth->tx_errors++;
		r->on = false;
		spin_unlock_irqrestore(&eth->tx_lock, flags);
		return false;
	}
	if (len < XNIC_ETH_MIN_FRAME || len > XNIC_SIM_ETH_MAX_FRAME ||
	    !xnic_sim_dma_read(addr, eth->frame, len)) {
		eth->tx_errors++;
		status |= XNIC_ETH_DESC_ERR;
	} else if (!xnic_sim_port_up(dev)) {
		/* the link is down: as with no cable */
		eth->tx_drop_nocable++;
	} else if (wire) {
		/* sent below, without the lock: the frame is in the bounce
		 * buffer, which only the engine uses
		 */
		send = true;
	} else if (!peer) {
		eth->tx_drop_nocable++;
	} else if (xnic_sim_eth_rx(peer, eth->frame, len)) {
		eth->tx_frames++;
		eth->tx_bytes += len;
	} else {
		eth->tx_drop_peer++;
	}
	xnic_sim_eth_desc_done(r, r->ci, 0, status, false);
	r->ci++;
	if (r->armed) {
		r->armed = false;
		xnic_sim_eq_post(dev, XNIC_EQE_ETH_TX, 1, 0);
	}
	spin_unlock_irqrestore(&eth->tx_lock, flags);
	if (send) {
		bool sent = xnic_sim_wire_eth_xmit(dev, eth->frame, len);

		spin_lock_irqsave(&eth->tx_lock, flags);
		if (sent) {
			eth->tx_frames++;
			eth->tx_bytes += len;
		} else {
			eth->tx_drop_peer++;
		}
		spin_unlock_irqrestore(&eth->tx_lock, flags);
	}
	return true;
}

/**
 * xnic_sim_eth_tx - transmit what the TX ring holds, within a budget
 * @dev: device (its engine, in a pass)
 *
 * Return: whether a descriptor was consumed (the pass found work).
 */
bool xnic_sim_eth_tx(struct xnic_sim_dev *dev)
{
	int n;

	for (n = 0; n < XNIC_SIM_ETH_TX_BUDGET; n++)
		if (!xnic_sim_eth_tx_one(dev))
			break;
	return n > 0;
}

/* ------------------------------------------------------------------ */
/* Registers                                                           */

/* Whether @reg is in the Ethernet register block of port 1. */
static bool xnic_sim_eth_reg(u32 reg)
{
	return reg >= XNIC_REG_ETH_MAC_HI &&
	       reg < XNIC_REG_ETH_MAC_HI + XNIC_ETH_PORT_STRIDE;
}

/**
 * xnic_sim_eth_read32 - read an Ethernet register
 * @dev: device
 * @reg: register offset
 * @val: its value
 *
 * Return: whether @reg is an Ethernet register.
 */
bool xnic_sim_eth_read32(struct xnic_sim_dev *dev, u32 reg, u32 *val)
{
	struct xnic_sim_eth *eth = dev->eth;

	if (!xnic_sim_eth_reg(reg))
		return false;
	switch (reg) {
	case XNIC_REG_ETH_MAC_HI:
		*val = eth->mac[0] << 8 | eth->mac[1];
		break;
	case XNIC_REG_ETH_MAC_LO:
		*val = get_unaligned_be32(eth->mac + 2);
		break;
	case XNIC_REG_ETH_STATUS:
		*val = ((dev->peer || xnic_sim_wire_on(dev)) &&
			xnic_sim_port_up(dev) ? XNIC_ETH_ST_LINK : 0) |
		       (READ_ONCE(eth->tx.on) ? XNIC_ETH_ST_TX_ON : 0) |
		       (READ_ONCE(eth->rx.on) ? XNIC_ETH_ST_RX_ON : 0);
		break;
	case XNIC_REG_ETH_CTRL:
		*val = (READ_ONCE(eth->tx.on) ? XNIC_ETH_CTRL_TX : 0) |
		       (READ_ONCE(eth->rx.on) ? XNIC_ETH_CTRL_RX : 0);
		break;
	case XNIC_REG_ETH_TX_BASE_LO:
		*val = lower_32_bits(READ_ONCE(eth->tx.base));
		break;
	case XNIC_REG_ETH_TX_BASE_HI:
		*val = upper_32_bits(READ_ONCE(eth->tx.base));
		break;
	case XNIC_REG_ETH_TX_LOG_SIZE:
		*val = READ_ONCE(eth->tx.log);
		break;
	case XNIC_REG_ETH_RX_BASE_LO:
		*val = lower_32_bits(READ_ONCE(eth->rx.base));
		break;
	case XNIC_REG_ETH_RX_BASE_HI:
		*val = upper_32_bits(READ_ONCE(eth->rx.base));
		break;
	case XNIC_REG_ETH_RX_LOG_SIZE:
		*val = READ_ONCE(eth->rx.log);
		break;
	case XNIC_REG_ETH_MAX_FRAME:
		*val = XNIC_SIM_ETH_MAX_FRAME;
		break;
	case XNIC_REG_ETH_PORT_MTU:
		/* the wire's netdev's, as rxe's; 4096 on the cable */
		*val = xnic_sim_wire_active_mtu(dev);
		break;
	default:
		*val = 0;	/* write-only and unused */
		break;
	}
	return true;
}

/* A ring register write, under the ring's lock. */
static void xnic_sim_eth_ring_write(struct xnic_sim_eth_ring *r, u32 off,
				    u32 val, u64 *bad_pi)
{
	switch (off) {
	case 0:	/* BASE_LO */
		if (!r->on)
			WRITE_ONCE(r->base, (r->base & ~0xffffffffULL) | val);
		break;
	case 4:	/* BASE_HI */
		if (!r->on)
			WRITE_ONCE(r->base, (r->base & 0xffffffffULL) |
				   (u64)val << 32);
		break;
	case 8:	/* LOG_SIZE */
		if (!r->on)
			WRITE_ONCE(r->log, val);
		break;
	case 12: /* PI */
		if (r->on && xnic_sim_eth_pi_ok(r->ci, val, r->log))
			r->pi = val;
		else
			(*bad_pi)++;
		break;
	}
}

/* ETH_CTRL: enable a ring (both indexes 0) or disable it. */
static void xnic_sim_eth_ring_ctrl(struct xnic_sim_eth_ring *r, bool on)
{
	if (on == r->on)
		return;
	if (on && !xnic_sim_eth_ring_ok(r->base, r->log))
		return;
	r->pi = 0;
	r->ci = 0;
	r->armed = false;
	WRITE_ONCE(r->on, on);
}

/**
 * xnic_sim_eth_write32 - write an Ethernet register
 * @dev: device
 * @reg: register offset
 * @val: value
 *
 * Return: whether @reg is an Ethernet register.
 */
bool xnic_sim_eth_write32(struct xnic_sim_dev *dev, u32 reg, u32 val)
{
	struct xnic_sim_eth *eth = dev->eth;
	unsigned long flags;

	if (!xnic_sim_eth_reg(reg))
		return false;
	switch (reg) {
	case XNIC_REG_ETH_CTRL:
		spin_lock_irqsave(&eth->tx_lock, flags);
		xnic_sim_eth_ring_ctrl(&eth->tx, val & XNIC_ETH_CTRL_TX);
		spin_unlock_irqrestore(&eth->tx_lock, flags);
		spin_lock_irqsave(&eth->rx_lock, flags);
		xnic_sim_eth_ring_ctrl(&eth->rx, val & XNIC_ETH_CTRL_RX);
		spin_unlock_irqrestore(&eth->rx_lock, flags);
		break;
	case XNIC_REG_ETH_TX_BASE_LO:
	case XNIC_REG_ETH_TX_BASE_HI:
	case XNIC_REG_ETH_TX_LOG_SIZE:
	case XNIC_REG_ETH_TX_PI:
		spin_lock_irqsave(&eth->tx_lock, flags);
		xnic_sim_eth_ring_write(&eth->tx, reg - XNIC_REG_ETH_TX_BASE_LO,
					val, &eth->tx_bad_pi);
		spin_unlock_irqrestore(&eth->tx_lock, flags);
		if (reg == XNIC_REG_ETH_TX_PI)
			xnic_sim_kick(dev);
		break;
	case XNIC_REG_ETH_RX_BASE_LO:
	case XNIC_REG_ETH_RX_BASE_HI:
	case XNIC_REG_ETH_RX_LOG_SIZE:
	case XNIC_REG_ETH_RX_PI:
		spin_lock_irqsave(&eth->rx_lock, flags);
		xnic_sim_eth_ring_write(&eth->rx, reg - XNIC_REG_ETH_RX_BASE_LO,
					val, &eth->rx_bad_pi);
		spin_unlock_irqrestore(&eth->rx_lock, flags);
		break;
	case XNIC_REG_ETH_ARM:
		if (val & XNIC_ETH_ARM_TX) {
			spin_lock_irqsave(&eth->tx_lock, flags);
			eth->tx.armed = eth->tx.on;
			spin_unlock_irqrestore(&eth->tx_lock, flags);
		}
		if (val & XNIC_ETH_ARM_RX) {
			spin_lock_irqsave(&eth->rx_lock, flags);
			eth->rx.armed = eth->rx.on;
			spin_unlock_irqrestore(&eth->rx_lock, flags);
		}
		break;
	}
	return true;
}

/**
 * xnic_sim_eth_reset - drop the Ethernet function's state (RESET)
 * @dev: device
 *
 * Both rings off and forgotten; when this returns the device touches no
 * ring or buffer of the driver's.  The counters stay.
 */
void xnic_sim_eth_reset(struct xnic_sim_dev *dev)
{
	struct xnic_sim_eth *eth = dev->eth;
	const struct xnic_sim_eth_ring zero = {};
	unsigned long flags;

	spin_lock_irqsave(&eth->tx_lock, flags);
	eth->tx = zero;
	spin_unlock_irqrestore(&eth->tx_lock, flags);
	spin_lock_irqsave(&eth->rx_lock, flags);
	eth->rx = zero;
	spin_unlock_irqrestore(&eth->rx_lock, flags);
}

/* ------------------------------------------------------------------ */
/* debugfs "eth", allocation                                           */

static int xnic_sim_eth_show(struct seq_file *m, void *v)
{
	struct xnic_sim_dev *dev = m->private;
	struct xnic_sim_eth *eth = dev->eth;
	struct xnic_sim_eth_ring tx, rx;
	u64 t[6], r[7];
	unsigned long flags;

	spin_lock_irqsave(&eth->tx_lock, flags);
	tx = eth->tx;
	t[0] = eth->tx_frames;
	t[1] = eth->tx_bytes;
	t[2] = eth->tx_errors;
	t[3] = eth->tx_drop_nocable;
	t[4] = eth->tx_drop_peer;
	t[5] = eth->tx_bad_pi;
	spin_unlock_irqrestore(&eth->tx_lock, flags);
	spin_lock_irqsave(&eth->rx_lock, flags);
	rx = eth->rx;
	r[0] = eth->rx_frames;
	r[1] = eth->rx_bytes;
	r[2] = eth->rx_drop_off;
	r[3] = eth->rx_drop_nobuf;
	r[4] = eth->rx_drop_len;
	r[5] = eth->rx_errors;
	r[6] = eth->rx_bad_pi;
	spin_unlock_irqrestore(&eth->rx_lock, flags);

	seq_printf(m, "mac %pM\nlink %d\n", eth->mac,
		   dev->peer || xnic_sim_wire_on(dev) ? 1 : 0);
	seq_printf(m, "tx_on %d\ntx_log %u\ntx_pi %u\ntx_ci %u\n",
		   tx.on, tx.log, tx.pi, tx.ci);
	seq_printf(m, "rx_on %d\nrx_log %u\nrx_pi %u\nrx_ci %u\n",
		   rx.on, rx.log, rx.pi, rx.ci);
	seq_printf(m, "tx_frames %llu\ntx_bytes %llu\ntx_errors %llu\ntx_drop_nocable %llu\ntx_drop_peer %llu\ntx_bad_pi %llu\n",
		   t[0], t[1], t[2], t[3], t[4], t[5]);
	seq_printf(m, "rx_frames %llu\nrx_bytes %llu\nrx_drop_off %llu\nrx_drop_nobuf %llu\nrx_drop_len %llu\nrx_errors %llu\nrx_bad_pi %llu\n",
		   r[0], r[1], r[2], r[3], r[4], r[5], r[6]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(xnic_sim_eth);

/**
 * xnic_sim_eth_debugfs - create the "eth" file
 * @dev: device
 * @dir: its debugfs directory
 */
void xnic_sim_eth_debugfs(struct xnic_sim_dev *dev, struct dentry *dir)
{
	debugfs_create_file("eth", 0400, dir, dev, &xnic_sim_eth_fops);
}

/**
 * xnic_sim_eth_alloc - the Ethernet function of a new device
 * @dev: device, its GUID set
 *
 * Return: 0 or -ENOMEM.
 */
int xnic_sim_eth_alloc(struct xnic_sim_dev *dev)
{
	struct xnic_sim_eth *eth;

	eth = kzalloc(sizeof(*eth), GFP_KERNEL);
	if (!eth)
		return -ENOMEM;
	eth->frame = kmalloc(XNIC_SIM_ETH_MAX_FRAME, GFP_KERNEL);
	if (!eth->frame) {
		kfree(eth);
		return -ENOMEM;
	}
	spin_lock_init(&eth->tx_lock);
	spin_lock_init(&eth->rx_lock);
	xnic_sim_eth_mac(dev->guid, eth->mac);
	dev->eth = eth;
	return 0;
}

/**
 * xnic_sim_eth_free - free it (no engine runs, the peer's neither)
 * @dev: device
 */
void xnic_sim_eth_free(struct xnic_sim_dev *dev)
{
	if (!dev->eth)
		return;
	kfree(dev->eth->frame);
	kfree(dev->eth);
	dev->eth = NULL;
}
