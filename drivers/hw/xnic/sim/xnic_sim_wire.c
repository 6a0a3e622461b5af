// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_sim: the port on an Ethernet (xnic_sim_wire.h, Documentation/xnic/
 * wire.rst): attaching a host netdev as the port's wire, the rx_handler,
 * frames in and out, the neighbour cache.
 *
 * Attaching.  xnic_sim_wire_attach() (the netdev module parameter, or the
 * device's "netdev" sysfs attribute) registers an rx_handler on the
 * netdev under rtnl, as a bridge port does: from then on every frame
 * the netdev receives is the port's, and the host stack of the netdev
 * sees none.  A netdev notifier detaches on NETDEV_UNREGISTER; module
 * unload and device removal detach too.
 *
 * Where it runs.  The rx_handler (softirq) classifies a frame: RoCEv2
 * (UDP 4791) to one of the port's GIDs is queued for the engine
 * (bounded, XNIC_SIM_WIRE_RXQ_MAX) and the engine kicked; any other
 * frame for the port's MAC, broadcast or multicast goes straight into
 * the Ethernet function's RX ring (xnic_sim_eth_rx()).  The engine
 * (exec_lock held, its thread) parses the queued frames
 * (xnic_sim_wire_rx_poll()) and transmits with dev_queue_xmit(), under
 * rcu_read_lock() with the netdev pointer read by rcu_dereference():
 * detaching clears the pointer, unregisters the rx_handler and waits
 * with synchronize_net() before the netdev's reference is dropped and
 * the queue purged, so neither side uses a netdev that is gone.
 *
 * Neighbours.  The transport gives a destination GID; the MAC comes from
 * the GID itself (multicast: 01:00:5e / 33:33; link-local EUI-64: its
 * interface identifier) or from a small cache (XNIC_SIM_WIRE_NEIGH_MAX
 * entries, the least recently used replaced) learnt as the kernel's
 * neighbour code learns: from received ARP and neighbour discovery
 * addressed to the port (never from a frame's IP source), and from
 * what the port's own host sends through the Ethernet function (its
 * ARP replies, its IP frames' destinations).  A GID not known makes
 * the port send an ARP request or a neighbour solicitation itself (rate
 * limited) and the frame is dropped (wire_no_neigh): the requester
 * retransmits.
 *
 * VLANs.  The port is untagged: a RoCEv2 frame in an 802.1Q tag of VLAN
 * 1..4095 is another LAN's and is dropped (rx_vlan_drops), ARP and ND in
 * one teach nothing; VLAN 0 (priority tagged) is the port's own LAN.
 * RoCE on a VLAN: attach the port to the VLAN's netdev (eth0.100), whose
 * frames reach the rx_handler with the tag already taken off.
 *
 * MTU.  The port's active MTU follows the attached netdev's MTU as rxe's
 * does (xnic_sim_wire_active_mtu(); NETDEV_CHANGEMTU), read by the
 * driver from ETH_PORT_MTU; 4096 on the cable.
 *
 * Locks: neigh_lock (the cache; a leaf, taken with BHs off), the RX
 * queue's own lock (irqsave); a device's gid_lock (irqsave) is read
 * from the rx_handler; xnic_sim_eth_rx() takes the Ethernet function's
 * rx_lock, then eq_lock, with nothing else held.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/if_arp.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <linux/icmpv6.h>
#include <linux/ratelimit.h>
#include <linux/rtnetlink.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/platform_device.h>
#include <net/ip6_checksum.h>
#include <net/ndisc.h>
#include <net/inet_ecn.h>
#include <xrdma/compat.h>
#include "xnic_sim.h"

/* A neighbour: the MAC a GID's address was last seen with. */
struct xnic_sim_neigh {
	u8 gid[16];
	u8 mac[ETH_ALEN];
	bool valid;
	u64 used;		/* neigh_clock at the last use or update */
};

/**
 * struct xnic_sim_wire - the port's wire
 * @dev: its device
 * @ndev: the attached netdev (RCU; changed under rtnl)
 * @held: the same, for rtnl holders (a reference is held while set)
 * @on: attached (a netdev or, in KUnit, a fake wire)
 * @promisc: the netdev was made promiscuous (the port's MAC is not its)
 * @allmulti: the netdev was made to receive every multicast
 * @mac: the port's MAC (from the GUID, at attach)
 * @rxq: RoCEv2 frames for the engine, at most XNIC_SIM_WIRE_RXQ_MAX
 * @neigh_lock: the cache
 * @neigh: the cache
 * @neigh_clock: use stamps
 * @sol_rs: rate limit of ARP requests / neighbour solicitations
 * @rxq_drops: RoCEv2 frames dropped, the queue full
 * @rxq_max: the longest the queue was (after a frame was queued)
 * @rx_polls: engine passes that took frames from the queue ...
 * @rx_taken: ... and the frames they took
 * @rx_filtered: frames for another MAC (a promiscuous netdev's)
 * @rx_errors: frames not linearised or too short
 * @rx_vlan_drops: RoCEv2 frames in an 802.1Q tag (VLAN 1..4095) dropped
 * @rx_link_drops: frames dropped, the port's link down (faults.rst)
 * @mtu: the attached netdev's MTU (NETDEV_CHANGEMTU), 0 when not attached
 * @eth_tx_drops: Ethernet frames not sent (too long, no memory)
 * @solicits: ARP requests and neighbour solicitations sent
 * @fake_tx: KUnit: the fake wire's transmit (xnic_sim_wire_attach_fake())
 * @fake_ctx: its argument
 */
struct xnic_sim_wire {
	struct xnic_sim_dev *dev;
	struct net_device __rcu *ndev;
	struct net_device *held;
	bool on;
	bool promisc;
	bool allmulti;
	u8 mac[ETH_ALEN];
	struct sk_buff_head rxq;
	spinlock_t neigh_lock;		/* the cache */
	struct xnic_sim_neigh neigh[XNIC_SIM_WIRE_NEIGH_MAX];
	u64 neigh_clock;
	struct ratelimit_state sol_rs;
	atomic64_t rxq_drops;
	u32 rxq_max;
	u64 rx_polls;
	u64 rx_taken;
	atomic64_t rx_filtered;
	atomic64_t rx_errors;
	atomic64_t rx_vlan_drops;
	atomic64_t rx_link_drops;
	u32 mtu;
	atomic64_t eth_tx_drops;
	atomic64_t solicits;
#ifdef XNIC_SIM_TEST_HOOKS
	xnic_sim_wire_tx_fn fake_tx;
	void *fake_ctx;
#endif
};

/* ------------------------------------------------------------------ */
/* Addresses                                                           */

static void xnic_sim_wire_v4_gid(__be32 addr, u8 gid[16])
{
	memset(gid, 0, 10);
	gid[10] = 0xff;
	gid[11] = 0xff;
	memcpy(gid + 12, &addr, 4);
}

static bool xnic_sim_wire_gid_v4(const u8 *gid)
{
	static const u8 pfx[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(gid, pfx, sizeof(pfx));
}

/* Whether @gid is one of the port's (its GID table). */
static bool xnic_sim_wire_gid_mine(struct xnic_sim_dev *dev, const u8 *gid)
{
	unsigned long flags;
	bool mine = false;
	int i;

	spin_lock_irqsave(&dev->gid_lock, flags);
	for (i = 0; i < XNIC_GID_TABLE_LEN && !mine; i++)
		mine = dev->gids[i].valid && !memcmp(dev->gids[i].gid, gid, 16);
	spin_unlock_irqrestore(&dev->gid_lock, flags);
	return mine;
}

/* A usable unicast source address to learn from (not 0, not multicast). */
static bool xnic_sim_wire_learnable(const u8 *gid, const u8 *mac)
{
	static const u8 zero[16];

	if (!is_valid_ether_addr(mac))
		return false;
	if (xnic_sim_wire_gid_v4(gid))
		return gid[12] && gid[12] < 224 && gid[12] != 127;
	return memcmp(gid, zero, 16) && gid[0] != 0xff;
}

/* ------------------------------------------------------------------ */
/* The neighbour cache                                                 */

/**
 * xnic_sim_wire_neigh_learn - remember the MAC of a GID's address
 * @dev: device
 * @gid: the GID (IPv4-mapped or IPv6)
 * @mac: its MAC
 *
 * An entry for @gid is overwritten; else a free entry or the least
 * recently used one is taken.  Any context but hard IRQ.
 *
 * Return: whether it was learnt (false: not a unicast address).
 */
bool xnic_sim_wire_neigh_learn(struct xnic_sim_dev *dev, const u8 *gid,
			       const u8 *mac)
{
	struct xnic_sim_wire *w = dev->wire;
	struct xnic_sim_neigh *n, *victim = NULL;
	int i;

	if (!w || !xnic_sim_wire_learnable(gid, mac))
		return false;
	spin_lock_bh(&w->neigh_lock);
	for (i = 0; i < XNIC_SIM_WIRE_NEIGH_MAX; i++) {
		n = &w->neigh[i];
		if (n->valid && !memcmp(n->gid, gid, 16)) {
			victim = n;
			break;
		}
		if (!victim || (victim->valid &&
				(!n->valid || n->used < victim->used)))
			victim = n;
	}
	memcpy(victim->gid, gid, 16);
	ether_addr_copy(victim->mac, mac);
	victim->valid = true;
	victim->used = ++w->neigh_clock;
	spin_unlock_bh(&w->neigh_lock);
	return true;
}

static bool xnic_sim_wire_neigh_find(struct xnic_sim_wire *w, const u8 *gid,
				     u8 mac[ETH_ALEN])
{
	bool found = false;
	int i;

	spin_lock_bh(&w->neigh_lock);
	for (i = 0; i < XNIC_SIM_WIRE_NEIGH_MAX; i++) {
		struct xnic_sim_neigh *n = &w->neigh[i];

		if (n->valid && !memcmp(n->gid, gid, 16)) {
			ether_addr_copy(mac, n->mac);
			n->used = ++w->neigh_clock;
			found = true;
			break;
		}
	}
	spin_unlock_bh(&w->neigh_lock);
	return found;
}

/**
 * xnic_sim_wire_resolve - the destination MAC of a GID
 * @dev: device
 * @gid: destination GID
 * @mac: its MAC
 *
 * Multicast GIDs map to 01:00:5e:... (IPv4) or 33:33:... (IPv6), a
 * link-local GID with an EUI-64 interface identifier (fe80::/64 with
 * ff:fe in its middle) carries its MAC; others are looked up in the
 * cache.  Return: whether a MAC was found.
 */
bool xnic_sim_wire_resolve(struct xnic_sim_dev *dev, const u8 *gid,
			   u8 mac[6])
{
	static const u8 ll[8] = { 0xfe, 0x80 };

	if (xnic_sim_wire_gid_v4(gid)) {
		if ((gid[12] & 0xf0) == 0xe0) {
			mac[0] = 0x01;
			mac[1] = 0x00;
			mac[2] = 0x5e;
			mac[3] = gid[13] & 0x7f;
			mac[4] = gid[14];
			mac[5] = gid[15];
			return true;
		}
	} else if (gid[0] == 0xff) {
		mac[0] = 0x33;
		mac[1] = 0x33;
		memcpy(mac + 2, gid + 12, 4);
		return true;
	} else if (!memcmp(gid, ll, 8) && gid[11] == 0xff && gid[12] == 0xfe) {
		mac[0] = gid[8] ^ 2;
		mac[1] = gid[9];
		mac[2] = gid[10];
		mac[3] = gid[13];
		mac[4] = gid[14];
		mac[5] = gid[15];
		return is_valid_ether_addr(mac);
	}
	return dev->wire && xnic_sim_wire_neigh_find(dev->wire, gid, mac);
}

/* ------------------------------------------------------------------ */
/* Sending                                                             */

/* Hand a whole frame (skb->data: Ethernet header) to the wire; consumes. */
static int xnic_sim_wire_send(struct xnic_sim_wire *w, struct sk_buff *skb)
{
	struct net_device *nd;
	int ret;

	rcu_read_lock();
	nd = rcu_dereference(w->ndev);
	if (nd) {
		skb->dev = nd;
		skb_reset_mac_header(skb);
		skb_set_network_header(skb, ETH_HLEN);
		skb->protocol = eth_hdr(skb)->h_proto;
		skb->priority = 0;
		ret = dev_queue_xmit(skb);
		rcu_read_unlock();
		return net_xmit_eval(ret) ? -EIO : 0;
	}
#ifdef XNIC_SIM_TEST_HOOKS
	{
		xnic_sim_wire_tx_fn fn = READ_ONCE(w->fake_tx);

		if (fn) {
			fn(w->fake_ctx, w->dev, skb);
			rcu_read_unlock();
			return 0;
		}
	}
#endif
	rcu_read_unlock();
	kfree_skb(skb);
	return -ENOTCONN;
}

static struct sk_buff *xnic_sim_wire_skb(u32 len)
{
	struct sk_buff *skb;

	skb = alloc_skb(LL_MAX_HEADER + len, GFP_ATOMIC | __GFP_NOWARN);
	if (!skb)
		return NULL;
	skb_reserve(skb, LL_MAX_HEADER);
	return skb;
}

/* ARP request for the IPv4 address of @dgid, from @sgid's. */
static struct sk_buff *xnic_sim_wire_arp(struct xnic_sim_wire *w,
					 const u8 *sgid, const u8 *dgid)
{
	struct sk_buff *skb = xnic_sim_wire_skb(ETH_HLEN + 28);
	struct ethhdr *eh;
	struct arphdr *ah;
	u8 *p;

	if (!skb)
		return NULL;
	eh = skb_put(skb, ETH_HLEN);
	eth_broadcast_addr(eh->h_dest);
	ether_addr_copy(eh->h_source, w->mac);
	eh->h_proto = htons(ETH_P_ARP);
	ah = skb_put(skb, sizeof(*ah));
	ah->ar_hrd = htons(ARPHRD_ETHER);
	ah->ar_pro = htons(ETH_P_IP);
	ah->ar_hln = ETH_ALEN;
	ah->ar_pln = 4;
	ah->ar_op = htons(ARPOP_REQUEST);
	p = skb_put(skb, 2 * (ETH_ALEN + 4));
	ether_addr_copy(p, w->mac);
	memcpy(p + 6, sgid + 12, 4);
	eth_zero_addr(p + 10);
	memcpy(p + 16, dgid + 12, 4);
	return skb;
}

/* Neighbour solicitation for @dgid, from @sgid, with our MAC. */
static struct sk_buff *xnic_sim_wire_ns(struct xnic_sim_wire *w,
					const u8 *sgid, const u8 *dgid)
{
	u32 icmp_len = sizeof(struct icmp6hdr) + 16 + 8;
	struct sk_buff *skb = xnic_sim_wire_skb(ETH_HLEN + 40 + icmp_len);
	struct in6_addr daddr = {};
	struct ethhdr *eh;
	struct ipv6hdr *ip;
	struct icmp6hdr *ic;
	u8 *p;

	if (!skb)
		return NULL;
	/* the solicited-node multicast address ff02::1:ffXX:XXXX */
	daddr.s6_addr[0] = 0xff;
	daddr.s6_addr[1] = 0x02;
	daddr.s6_addr[11] = 0x01;
	daddr.s6_addr[12] = 0xff;
	memcpy(&daddr.s6_addr[13], dgid + 13, 3);
	eh = skb_put(skb, ETH_HLEN);
	eh->h_dest[0] = 0x33;
	eh->h_dest[1] = 0x33;
	memcpy(eh->h_dest + 2, &daddr.s6_addr[12], 4);
	ether_addr_copy(eh->h_source, w->mac);
	eh->h_proto = htons(ETH_P_IPV6);
	ip = skb_put_zero(skb, sizeof(*ip));
	ip->version = 6;
	ip->payload_len = htons(icmp_len);
	ip->nexthdr = IPPROTO_ICMPV6;
	ip->hop_limit = 255;
	memcpy(&ip->saddr, sgid, 16);
	ip->daddr = daddr;
	ic = skb_put_zero(skb, sizeof(*ic));
	ic->icmp6_type = NDISC_NEIGHBOUR_SOLICITATION;
	p = skb_put(skb, 16 + 8);
	memcpy(p, dgid, 16);
	p[16] = ND_OPT_SOURCE_LL_ADDR;
	p[17] = 1;		/* in units of 8 bytes */
	ether_addr_copy(p + 18, w->mac);
	ic->icmp6_cksum = csum_ipv6_magic(&ip->saddr, &ip->daddr, icmp_len,
					  IPPROTO_ICMPV6,
					  csum_partial(ic, icmp_len, 0));
	return skb;
}

/* Ask the wire for @dgid's MAC (rate limited). */
static void xnic_sim_wire_solicit(struct xnic_sim_wire *w, const u8 *sgid,
				  const u8 *dgid)
{
	struct sk_buff *skb;

	if (!__ratelimit(&w->sol_rs))
		return;
	if (xnic_sim_wire_gid_v4(dgid))
		skb = xnic_sim_wire_gid_v4(sgid) ?
		      xnic_sim_wire_arp(w, sgid, dgid) : NULL;
	else
		skb = xnic_sim_wire_ns(w, sgid, dgid);
	if (!skb)
		return;
	atomic64_inc(&w->solicits);
	xnic_sim_wire_send(w, skb);
}

/**
 * xnic_sim_wire_alloc - a frame for a packet (xnic_sim_wire.h)
 * @dev: device (its engine)
 * @p: the packet: opcode, lengths, GIDs
 * @payload: where its payload goes
 *
 * Return: the skb, or NULL (no wire, no memory: counted).
 */
struct sk_buff *xnic_sim_wire_alloc(struct xnic_sim_dev *dev,
				    const struct xnic_sim_pkt *p,
				    u8 **payload)
{
	u32 hlen = xnic_sim_pkt_hdr_len(p);
	u32 flen = xnic_sim_pkt_frame_len(p);
	struct sk_buff *skb;

	if (!dev->wire || !flen || flen < hlen + p->paylen)
		return NULL;
	skb = xnic_sim_wire_skb(flen);
	if (!skb) {
		xnic_sim_count(dev, XNIC_SIM_CTR_err_other, 1);
		return NULL;
	}
	skb_put(skb, flen);
	*payload = skb->data + hlen;
	return skb;
}

/**
 * xnic_sim_wire_xmit - resolve, write the headers and ICRC, send
 * @dev: device (its engine)
 * @skb: from xnic_sim_wire_alloc(), its payload written; consumed
 * @p: the packet (its MACs are set here)
 *
 * Return: 0, -EHOSTUNREACH (no MAC for the destination yet: a request
 * for it went out, the frame is dropped and counted) or -ENOTCONN (no
 * wire any more).
 */
int xnic_sim_wire_xmit(struct xnic_sim_dev *dev, struct sk_buff *skb,
		       struct xnic_sim_pkt *p)
{
	struct xnic_sim_wire *w = dev->wire;
	u32 len = skb->len;
	int ret;

	if (!w || !READ_ONCE(w->on)) {
		kfree_skb(skb);
		return -ENOTCONN;
	}
	if (!xnic_sim_port_up(dev)) {
		/* lost on a link that is down, as on any wire */
		kfree_skb(skb);
		return 0;
	}
	if (!xnic_sim_wire_resolve(dev, p->dgid, p->dmac)) {
		xnic_sim_count(dev, XNIC_SIM_CTR_wire_no_neigh, 1);
		xnic_sim_wire_solicit(w, p->sgid, p->dgid);
		kfree_skb(skb);
		return -EHOSTUNREACH;
	}
	ether_addr_copy(p->smac, w->mac);
	xnic_sim_pkt_write_hdr(skb->data, p);
	xnic_sim_pkt_seal(skb->data, p);
	ret = xnic_sim_wire_send(w, skb);
	if (ret == -ENOTCONN)
		return ret;
	/* a frame the qdisc dropped is lost on the wire, as any other */
	xnic_sim_count(dev, XNIC_SIM_CTR_wire_tx_packets, 1);
	xnic_sim_count(dev, XNIC_SIM_CTR_wire_tx_bytes, len);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Receiving                                                           */

/*
 * An ARP packet (@a: its header, 28 bytes there) crossing the port
 * untagged.  Received: a request for one of the port's addresses teaches
 * the asker's MAC, a reply to the port (its address and MAC as the
 * target) the answerer's -- what the kernel's ARP trusts, not any
 * frame's source.  Sent by the port's Ethernet function: the host's
 * reply teaches the peer it answers.
 */
static void xnic_sim_wire_arp_learn(struct xnic_sim_dev *dev, const u8 *a,
				    bool rx)
{
	const struct arphdr *ah = (const void *)a;
	const u8 *sha = a + sizeof(*ah), *tha = sha + 10;
	__be32 ip;
	u8 gid[16];

	if (!rx) {
		if (ah->ar_op == htons(ARPOP_REPLY)) {
			memcpy(&ip, tha + 6, 4);
			xnic_sim_wire_v4_gid(ip, gid);
			xnic_sim_wire_neigh_learn(dev, gid, tha);
		}
		return;
	}
	memcpy(&ip, tha + 6, 4);
	xnic_sim_wire_v4_gid(ip, gid);
	if (!xnic_sim_wire_gid_mine(dev, gid))
		return;
	if (ah->ar_op == htons(ARPOP_REPLY)) {
		if (!ether_addr_equal(tha, dev->wire->mac))
			return;
	} else if (ah->ar_op != htons(ARPOP_REQUEST)) {
		return;
	}
	memcpy(&ip, sha + 6, 4);
	xnic_sim_wire_v4_gid(ip, gid);
	xnic_sim_wire_neigh_learn(dev, gid, sha);
}

/*
 * A received untagged ICMPv6 packet (@ip, @avail bytes from it in the
 * frame).  As the kernel's ndisc: hop limit 255 (no router forwarded
 * it), code 0, a valid checksum; a neighbour solicitation for one of the
 * port's addresses teaches the solicitor's MAC (its source link-layer
 * option), a neighbour advertisement to one of the port's addresses the
 * target's (its target link-layer option).
 */
static void xnic_sim_wire_nd_learn(struct xnic_sim_dev *dev,
				   const struct ipv6hdr *ip, u32 avail)
{
	const u8 *ic = (const u8 *)(ip + 1), *target = ic + 8, *lla = NULL;
	u32 plen = ntohs(ip->payload_len), off, olen;
	u8 type = ic[0], want;

	if (ip->hop_limit != 255 || plen < 24 || plen > avail - sizeof(*ip) ||
	    ic[1] != 0)
		return;
	if (type == NDISC_NEIGHBOUR_SOLICITATION)
		want = ND_OPT_SOURCE_LL_ADDR;
	else if (type == NDISC_NEIGHBOUR_ADVERTISEMENT)
		want = ND_OPT_TARGET_LL_ADDR;
	else
		return;
	if (csum_ipv6_magic(&ip->saddr, &ip->daddr, plen, IPPROTO_ICMPV6,
			    csum_partial(ic, plen, 0)))
		return;
	for (off = 24; off + 8 <= plen; off += olen) {
		olen = ic[off + 1] * 8;
		if (!olen || off + olen > plen)
			return;
		if (ic[off] == want && olen == 8)
			lla = ic + off + 2;
	}
	if (!lla)
		return;
	if (type == NDISC_NEIGHBOUR_SOLICITATION) {
		if (xnic_sim_wire_gid_mine(dev, target))
			xnic_sim_wire_neigh_learn(dev, ip->saddr.s6_addr, lla);
	} else if (xnic_sim_wire_gid_mine(dev, ip->daddr.s6_addr)) {
		xnic_sim_wire_neigh_learn(dev, target, lla);
	}
}

/*
 * Classify a frame, learning neighbours from it (@rx: it arrived; else
 * the port's Ethernet function sends it: the host's own resolution, its
 * destination).  A frame in an 802.1Q tag other than VLAN 0 (priority
 * tagged) belongs to a VLAN: the port is untagged, so it teaches
 * nothing, and RoCEv2 in it is not the port's (XNIC_SIM_WIRE_VLAN).
 */
static enum xnic_sim_wire_class
xnic_sim_wire_class(struct xnic_sim_dev *dev, const u8 *f, u32 len, bool rx)
{
	const struct ethhdr *eh = (const void *)f;
	bool tagged = false;
	u8 gid[16];
	u32 off = ETH_HLEN;
	__be16 proto;

	if (len < ETH_HLEN || !dev->wire)
		return XNIC_SIM_WIRE_DROP;
	proto = eh->h_proto;
	if (proto == htons(ETH_P_8021Q) && len >= VLAN_ETH_HLEN) {
		tagged = get_unaligned_be16(f + ETH_HLEN) & VLAN_VID_MASK;
		proto = *(const __be16 *)(f + 16);
		off = VLAN_ETH_HLEN;
	}
	if (proto == htons(ETH_P_ARP) && len >= off + 28) {
		const struct arphdr *ah = (const void *)(f + off);

		if (!tagged && ah->ar_hrd == htons(ARPHRD_ETHER) &&
		    ah->ar_pro == htons(ETH_P_IP) && ah->ar_hln == ETH_ALEN &&
		    ah->ar_pln == 4)
			xnic_sim_wire_arp_learn(dev, f + off, rx);
		return XNIC_SIM_WIRE_ETH;
	}
	if (proto == htons(ETH_P_IP) && len >= off + sizeof(struct iphdr)) {
		const struct iphdr *ip = (const void *)(f + off);
		u32 ihl = ip->ihl * 4;
		const struct udphdr *uh;

		if (ip->version != 4 || ihl < sizeof(*ip) || len < off + ihl)
			return XNIC_SIM_WIRE_ETH;
		if (!rx) {
			if (!tagged) {
				xnic_sim_wire_v4_gid(ip->daddr, gid);
				xnic_sim_wire_neigh_learn(dev, gid, eh->h_dest);
			}
			return XNIC_SIM_WIRE_ETH;
		}
		if (ip->protocol != IPPROTO_UDP ||
		    (ip->frag_off & htons(IP_MF | IP_OFFSET)) ||
		    len < off + ihl + sizeof(*uh))
			return XNIC_SIM_WIRE_ETH;
		uh = (const void *)(f + off + ihl);
		if (uh->dest != htons(XNIC_SIM_ROCE_PORT))
			return XNIC_SIM_WIRE_ETH;
		xnic_sim_wire_v4_gid(ip->daddr, gid);
		if (ipv4_is_multicast(ip->daddr) ||
		    xnic_sim_wire_gid_mine(dev, gid))
			return tagged ? XNIC_SIM_WIRE_VLAN : XNIC_SIM_WIRE_ROCE;
		return XNIC_SIM_WIRE_ETH;
	}
	if (proto == htons(ETH_P_IPV6) && len >= off + sizeof(struct ipv6hdr)) {
		const struct ipv6hdr *ip = (const void *)(f + off);
		const struct udphdr *uh;

		if (ip->version != 6)
			return XNIC_SIM_WIRE_ETH;
		if (!rx) {
			if (!tagged)
				xnic_sim_wire_neigh_learn(dev,
							  ip->daddr.s6_addr,
							  eh->h_dest);
			return XNIC_SIM_WIRE_ETH;
		}
		if (ip->nexthdr == IPPROTO_ICMPV6 && !tagged &&
		    len >= off + sizeof(*ip) + 24)
			xnic_sim_wire_nd_learn(dev, ip, len - off);
		if (ip->nexthdr != IPPROTO_UDP ||
		    len < off + sizeof(*ip) + sizeof(*uh))
			return XNIC_SIM_WIRE_ETH;
		uh = (const void *)(f + off + sizeof(*ip));
		if (uh->dest != htons(XNIC_SIM_ROCE_PORT))
			return XNIC_SIM_WIRE_ETH;
		if (ip->daddr.s6_addr[0] == 0xff ||
		    xnic_sim_wire_gid_mine(dev, ip->daddr.s6_addr))
			return tagged ? XNIC_SIM_WIRE_VLAN : XNIC_SIM_WIRE_ROCE;
	}
	return XNIC_SIM_WIRE_ETH;
}

/* A received frame (skb->data: its Ethernet header); consumes @skb. */
static void xnic_sim_wire_rx(struct xnic_sim_wire *w, struct sk_buff *skb)
{
	struct xnic_sim_dev *dev = w->dev;
	const struct ethhdr *eh;
	unsigned long flags;
	bool queued = false;

	if (skb_linearize(skb) || skb->len < ETH_HLEN) {
		atomic64_inc(&w->rx_errors);
		kfree_skb(skb);
		return;
	}
	if (!xnic_sim_port_up(dev)) {
		/* the port's link is down: nothing arrives, nothing is learnt */
		atomic64_inc(&w->rx_link_drops);
		kfree_skb(skb);
		return;
	}
	eh = (const void *)skb->data;
	if ((!is_multicast_ether_addr(eh->h_dest) &&
	     !ether_addr_equal(eh->h_dest, w->mac)) ||
	    ether_addr_equal(eh->h_source, w->mac)) {
		/* another station's (promiscuous netdev), or our own */
		atomic64_inc(&w->rx_filtered);
		consume_skb(skb);
		return;
	}
	switch (xnic_sim_wire_class(dev, skb->data, skb->len, true)) {
	case XNIC_SIM_WIRE_ROCE:
		spin_lock_irqsave(&w->rxq.lock, flags);
		if (skb_queue_len(&w->rxq) < XNIC_SIM_WIRE_RXQ_MAX) {
			__skb_queue_tail(&w->rxq, skb);
			queued = true;
			if (skb_queue_len(&w->rxq) > w->rxq_max)
				WRITE_ONCE(w->rxq_max, skb_queue_len(&w->rxq));
		}
		spin_unlock_irqrestore(&w->rxq.lock, flags);
		if (queued) {
			xnic_sim_kick(dev);
		} else {
			atomic64_inc(&w->rxq_drops);
			kfree_skb(skb);
		}
		return;
	case XNIC_SIM_WIRE_VLAN:
		/* RoCEv2 of a VLAN: the port is untagged (wire.rst) */
		atomic64_inc(&w->rx_vlan_drops);
		kfree_skb(skb);
		return;
	case XNIC_SIM_WIRE_ETH:
		if (xnic_sim_eth_rx(dev, skb->data, skb->len))
			xnic_sim_count(dev, XNIC_SIM_CTR_wire_eth_rx, 1);
		break;
	default:
		break;
	}
	consume_skb(skb);
}

static rx_handler_result_t xnic_sim_wire_rx_handler(struct sk_buff **pskb)
{
	struct sk_buff *skb = *pskb;
	struct xnic_sim_wire *w;

	if (unlikely(skb->pkt_type == PACKET_LOOPBACK))
		return RX_HANDLER_PASS;
	w = rcu_dereference(skb->dev->rx_handler_data);
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		return RX_HANDLER_CONSUMED;
	/* back to the Ethernet header, the VLAN tag (if offloaded) inside */
	skb_push(skb, skb->data - skb_mac_header(skb));
	if (skb_vlan_tag_present(skb)) {
		skb = __vlan_hwaccel_push_inside(skb);
		if (!skb)
			return RX_HANDLER_CONSUMED;
	}
	xnic_sim_wire_rx(w, skb);
	return RX_HANDLER_CONSUMED;
}

static void xnic_sim_wire_rx_one(struct xnic_sim_dev *dev, struct sk_buff *skb,
				 bool faults);

/*
 * A frame fault for @skb, parsed into @p: whether it took the frame (a
 * drop, a corruption, a frame held back).  A duplicate is held to follow
 * the frame; a reordered frame follows the next one (or comes alone
 * after the rule's delay_us).
 */
static bool xnic_sim_wire_rx_fault(struct xnic_sim_dev *dev,
				   struct sk_buff *skb,
				   const struct xnic_sim_pkt *p)
{
	struct xnic_sim_faults *f = &dev->fault;
	struct xnic_sim_fault_hit hit;
	struct sk_buff *copy;
	u64 now = xnic_sim_now();
	/* the last byte the ICRC covers: payload, pad, else a header's */
	u32 last = (u32)(p->payload - skb->data) + p->paylen + p->pad - 1;
	u64 at;

	if (!xnic_sim_fault_frame(dev, p->dqpn,
				  xnic_sim_opcodes[p->opcode].mask, &hit))
		return false;
	/* when a delayed or reordered frame is due at the latest */
	at = now + (u64)hit.delay_us * NSEC_PER_USEC;

	switch (hit.type) {
	case XNIC_SIM_FAULT_DROP:
		kfree_skb(skb);
		return true;
	case XNIC_SIM_FAULT_DUP:
		copy = skb_copy(skb, GFP_ATOMIC | __GFP_NOWARN);
		if (copy && !xnic_sim_fault_hold(dev, copy, U64_MAX,
						 f->taken + 1))
			kfree_skb(copy);
		return false;
	case XNIC_SIM_FAULT_DELAY:
		return xnic_sim_fault_hold(dev, skb, at, 0);
	case XNIC_SIM_FAULT_REORDER:
		return xnic_sim_fault_hold(dev, skb, at, f->taken + 2);
	default:
		/* the byte before the ICRC: the receiver's check fails */
		if (skb_ensure_writable(skb, last + 1)) {
			kfree_skb(skb);		/* lost instead: still a fault */
			return true;
		}
		skb->data[last] ^= 0x5a;
		xnic_sim_wire_rx_one(dev, skb, false);
		return true;
	}
}

/*
 * One queued RoCEv2 frame: parse, count, hand to the transport.
 * @faults: whether frame faults may take it (not for one they released).
 */
static void xnic_sim_wire_rx_one(struct xnic_sim_dev *dev, struct sk_buff *skb,
				 bool faults)
{
	struct xnic_sim_pkt pkt;

	memset(&pkt, 0, sizeof(pkt));
	switch (xnic_sim_pkt_parse(skb->data, skb->len, &pkt)) {
	case XNIC_SIM_DROP_NONE:
		break;
	case XNIC_SIM_DROP_ICRC:
		xnic_sim_count(dev, XNIC_SIM_CTR_wire_icrc_errors, 1);
		kfree_skb(skb);
		return;
	default:
		xnic_sim_count(dev, XNIC_SIM_CTR_wire_malformed, 1);
		kfree_skb(skb);
		return;
	}
	if (faults && xnic_sim_faults_on() &&
	    xnic_sim_wire_rx_fault(dev, skb, &pkt))
		return;
	if ((pkt.tclass & INET_ECN_MASK) == INET_ECN_CE)
		xnic_sim_count(dev, XNIC_SIM_CTR_wire_ecn_marked, 1);
	xnic_sim_count(dev, XNIC_SIM_CTR_wire_rx_packets, 1);
	xnic_sim_count(dev, XNIC_SIM_CTR_wire_rx_bytes, skb->len);
	xnic_sim_roce_recv(dev, &pkt);
	consume_skb(skb);
}

/* The held-back frames that are due.  Return: how many went in. */
static u32 xnic_sim_wire_rx_held(struct xnic_sim_dev *dev, u64 *next)
{
	u64 now = xnic_sim_now();
	struct sk_buff *skb;
	u32 n = 0;

	while ((skb = xnic_sim_fault_release(dev, now, next))) {
		xnic_sim_wire_rx_one(dev, skb, false);
		n++;
		if (!list_empty(&dev->wresp_acks))
			xnic_sim_wresp_send_acks(dev);
	}
	return n;
}

/**
 * xnic_sim_wire_rx_poll - the engine takes received RoCEv2 frames
 * @dev: device (its engine, exec_lock held)
 * @max: at most this many
 * @next: lowered to when a frame held back by a fault is due
 *
 * One at a time; the ACKs and NAKs a frame made its QP owe are sent
 * before the next is taken (xnic_sim_wresp_send_acks()).  Frames held
 * back by faults (delay, reorder, duplicate) go in when they are due.
 *
 * Return: whether there was any.
 */
bool xnic_sim_wire_rx_poll(struct xnic_sim_dev *dev, u32 max, u64 *next)
{
	struct xnic_sim_wire *w = dev->wire;
	struct sk_buff *skb;
	u32 n = 0;

	if (!w)
		return false;
	if (dev->fault.nheld)
		n += xnic_sim_wire_rx_held(dev, next);
	if (skb_queue_empty_lockless(&w->rxq))
		return n > 0;
	while (n < max && (skb = skb_dequeue(&w->rxq))) {
		xnic_sim_wire_rx_one(dev, skb, true);
		n++;
		dev->fault.taken++;
		/* what it made a QP owe goes before the next frame is taken */
		if (!list_empty(&dev->wresp_acks))
			xnic_sim_wresp_send_acks(dev);
		if (dev->fault.nheld)
			n += xnic_sim_wire_rx_held(dev, next);
	}
	if (n) {
		WRITE_ONCE(w->rx_polls, w->rx_polls + 1);
		WRITE_ONCE(w->rx_taken, w->rx_taken + n);
	}
	return n > 0;
}

/**
 * xnic_sim_wire_eth_xmit - the Ethernet function transmits on the wire
 * @dev: device (its engine)
 * @frame: the frame, from its Ethernet header
 * @len: its length
 *
 * Return: whether it was sent.
 */
bool xnic_sim_wire_eth_xmit(struct xnic_sim_dev *dev, const u8 *frame,
			    u32 len)
{
	struct xnic_sim_wire *w = dev->wire;
	struct net_device *nd;
	struct sk_buff *skb;
	u32 max = XNIC_SIM_ETH_MAX_FRAME;

	if (!w || !READ_ONCE(w->on) || len < ETH_HLEN ||
	    !xnic_sim_port_up(dev))
		return false;
	rcu_read_lock();
	nd = rcu_dereference(w->ndev);
	if (nd)
		max = nd->mtu + VLAN_ETH_HLEN;
	rcu_read_unlock();
	if (len > max) {
		atomic64_inc(&w->eth_tx_drops);
		return false;
	}
	skb = xnic_sim_wire_skb(len);
	if (!skb) {
		atomic64_inc(&w->eth_tx_drops);
		return false;
	}
	skb_put_data(skb, frame, len);
	xnic_sim_wire_class(dev, frame, len, false);
	if (xnic_sim_wire_send(w, skb))
		return false;
	xnic_sim_count(dev, XNIC_SIM_CTR_wire_eth_tx, 1);
	return true;
}

/* ------------------------------------------------------------------ */
/* Attaching                                                           */

bool xnic_sim_wire_on(const struct xnic_sim_dev *dev)
{
	return dev->wire && READ_ONCE(dev->wire->on);
}

/**
 * xnic_sim_wire_mtu_code - the largest IB MTU a netdev MTU carries
 * @ndev_mtu: the netdev's MTU (IP packet bytes)
 *
 * As rxe's rxe_set_mtu(): the MTU less XNIC_SIM_WIRE_MTU_HDR bytes of
 * headers, rounded down to an IB MTU, at least 256, at most 4096.
 *
 * Return: XNIC_MTU_*.
 */
u8 xnic_sim_wire_mtu_code(u32 ndev_mtu)
{
	u8 code = XNIC_MTU_4096;

	if (ndev_mtu < XNIC_SIM_WIRE_MTU_HDR + 512)
		return XNIC_MTU_256;
	while (code > XNIC_MTU_256 &&
	       xnic_sim_mtu_bytes(code) > ndev_mtu - XNIC_SIM_WIRE_MTU_HDR)
		code--;
	return code;
}

/**
 * xnic_sim_wire_active_mtu - the port's active MTU
 * @dev: device (any context)
 *
 * Attached to a netdev: what its MTU carries (xnic_sim_wire_mtu_code()),
 * following NETDEV_CHANGEMTU; otherwise (the cable, a fake wire) 4096.
 *
 * Return: XNIC_MTU_*.
 */
u8 xnic_sim_wire_active_mtu(const struct xnic_sim_dev *dev)
{
	u32 mtu = dev->wire ? READ_ONCE(dev->wire->mtu) : 0;

	return mtu ? xnic_sim_wire_mtu_code(mtu) : XNIC_MTU_4096;
}

/* Whether @nd is the Ethernet function of an xnic (its parent device). */
static bool xnic_sim_wire_is_xnic(const struct net_device *nd)
{
	struct device *parent = nd->dev.parent;

	return parent && dev_is_platform(parent) &&
	       !strcmp(to_platform_device(parent)->name, XNIC_PLATFORM_NAME);
}

/*
 * The Ethernet function's link is up with a cable or a wire: tell the
 * driver when attaching or detaching changed it (PORT_CHANGE; the RDMA
 * port stays ACTIVE, as QUERY_CAPS says, a cable or not).
 */
static void xnic_sim_wire_link_event(struct xnic_sim_wire *w)
{
	if (!w->dev->peer)
		xnic_sim_eq_post(w->dev, XNIC_EQE_PORT_CHANGE, 1,
				 xnic_sim_port_up(w->dev) ? XNIC_PORT_ACTIVE :
							    XNIC_PORT_DOWN);
}

static int xnic_sim_wire_attach_locked(struct xnic_sim_wire *w,
				       const char *ifname)
{
	struct net_device *nd;
	int err;

	ASSERT_RTNL();
	if (w->on)
		return -EISCONN;
	nd = __dev_get_by_name(&init_net, ifname);
	if (!nd)
		return -ENODEV;
	if (nd->flags & IFF_LOOPBACK)
		return -EINVAL;
	if (nd->type != ARPHRD_ETHER || nd->addr_len != ETH_ALEN)
		return -EPFNOSUPPORT;
	if (xnic_sim_wire_is_xnic(nd))
		return -ELOOP;
	if (netdev_is_rx_handler_busy(nd))
		return -EBUSY;
	xnic_sim_eth_mac(w->dev->guid, w->mac);
	dev_hold(nd);
	err = netdev_rx_handler_register(nd, xnic_sim_wire_rx_handler, w);
	if (err)
		goto put;
	if (!ether_addr_equal(nd->dev_addr, w->mac)) {
		err = dev_set_promiscuity(nd, 1);
		w->promisc = !err;
	} else {
		/* the port's solicited-node and group addresses */
		err = dev_set_allmulti(nd, 1);
		w->allmulti = !err;
	}
	if (err)
		goto unreg;
	w->held = nd;
	WRITE_ONCE(w->mtu, nd->mtu);
	rcu_assign_pointer(w->ndev, nd);
	WRITE_ONCE(w->on, true);
	xnic_sim_wire_link_event(w);
	pr_info("xnic_sim %d: on %s (port %pM)\n", w->dev->index, nd->name,
		w->mac);
	return 0;
unreg:
	netdev_rx_handler_unregister(nd);
put:
	dev_put(nd);
	return err;
}

static void xnic_sim_wire_detach_locked(struct xnic_sim_wire *w)
{
	struct net_device *nd = w->held;
	bool was_on = w->on;

	ASSERT_RTNL();
	WRITE_ONCE(w->on, false);
	WRITE_ONCE(w->mtu, 0);
	if (nd) {
		netdev_rx_handler_unregister(nd);
		RCU_INIT_POINTER(w->ndev, NULL);
		/* the engine's transmits and the rx_handler are over */
		synchronize_net();
		if (w->promisc)
			dev_set_promiscuity(nd, -1);
		if (w->allmulti)
			dev_set_allmulti(nd, -1);
		w->promisc = false;
		w->allmulti = false;
		w->held = NULL;
		pr_info("xnic_sim %d: off %s\n", w->dev->index, nd->name);
		dev_put(nd);
	}
#ifdef XNIC_SIM_TEST_HOOKS
	if (READ_ONCE(w->fake_tx)) {
		WRITE_ONCE(w->fake_tx, NULL);
		synchronize_net();
	}
#endif
	skb_queue_purge(&w->rxq);
	if (was_on)
		xnic_sim_wire_link_event(w);
}

/**
 * xnic_sim_wire_attach - attach the port to a netdev
 * @dev: device
 * @ifname: the netdev's name (initial network namespace)
 *
 * Return: 0, -ENODEV (no such netdev), -EINVAL (loopback), -EPFNOSUPPORT
 * (not Ethernet), -ELOOP (an xnic's own Ethernet function), -EBUSY (the
 * netdev has an rx_handler: a bridge, bond, macvtap or another port),
 * -EISCONN (this port is attached already).
 */
int xnic_sim_wire_attach(struct xnic_sim_dev *dev, const char *ifname)
{
	int err;

	if (!dev->wire)
		return -ENODEV;
	rtnl_lock();
	err = xnic_sim_wire_attach_locked(dev->wire, ifname);
	rtnl_unlock();
	return err;
}

/**
 * xnic_sim_wire_detach - detach the port from its wire (if attached)
 * @dev: device
 */
void xnic_sim_wire_detach(struct xnic_sim_dev *dev)
{
	if (!dev->wire)
		return;
	rtnl_lock();
	xnic_sim_wire_detach_locked(dev->wire);
	rtnl_unlock();
}

/**
 * xnic_sim_wire_ifname - the attached netdev's name
 * @dev: device
 * @buf: IFNAMSIZ bytes; "" if not attached to a netdev
 */
void xnic_sim_wire_ifname(struct xnic_sim_dev *dev, char *buf)
{
	buf[0] = 0;
	if (!dev->wire)
		return;
	rtnl_lock();
	if (dev->wire->held)
		strscpy(buf, dev->wire->held->name, IFNAMSIZ);
	rtnl_unlock();
}

static int xnic_sim_wire_netdev_event(struct notifier_block *nb,
				      unsigned long event, void *ptr)
{
	struct net_device *nd = netdev_notifier_info_to_dev(ptr);
	struct xnic_sim_wire *w;

	if (rtnl_dereference(nd->rx_handler) != xnic_sim_wire_rx_handler)
		return NOTIFY_DONE;
	w = rtnl_dereference(nd->rx_handler_data);
	switch (event) {
	case NETDEV_UNREGISTER:
		xnic_sim_wire_detach_locked(w);
		return NOTIFY_OK;
	case NETDEV_CHANGEMTU:
		/* the port's active MTU follows, as rxe's (no event) */
		WRITE_ONCE(w->mtu, nd->mtu);
		return NOTIFY_OK;
	default:
		return NOTIFY_DONE;
	}
}

static struct notifier_block xnic_sim_wire_nb = {
	.notifier_call = xnic_sim_wire_netdev_event,
};

/* The module's netdev notifier (xnic_sim_main.c). */
int xnic_sim_wire_module_init(void)
{
	return register_netdevice_notifier(&xnic_sim_wire_nb);
}

void xnic_sim_wire_module_exit(void)
{
	unregister_netdevice_notifier(&xnic_sim_wire_nb);
}

/* ------------------------------------------------------------------ */
/* debugfs "wire", allocation                                          */

static int xnic_sim_wire_show(struct seq_file *m, void *v)
{
	struct xnic_sim_dev *dev = m->private;
	struct xnic_sim_wire *w = dev->wire;
	char name[IFNAMSIZ];
	int i;

	xnic_sim_wire_ifname(dev, name);
	seq_printf(m, "on %d\nnetdev %s\nmac %pM\npromisc %d\n",
		   READ_ONCE(w->on), name[0] ? name : "none", w->mac,
		   READ_ONCE(w->promisc));
	seq_printf(m, "mtu %u\nactive_mtu %u\n", READ_ONCE(w->mtu),
		   xnic_sim_mtu_bytes(xnic_sim_wire_active_mtu(dev)));
	seq_printf(m, "rxq %u\nrxq_drops %lld\nrx_filtered %lld\nrx_errors %lld\nrx_vlan_drops %lld\neth_tx_drops %lld\nsolicits %lld\n",
		   skb_queue_len_lockless(&w->rxq),
		   (long long)atomic64_read(&w->rxq_drops),
		   (long long)atomic64_read(&w->rx_filtered),
		   (long long)atomic64_read(&w->rx_errors),
		   (long long)atomic64_read(&w->rx_vlan_drops),
		   (long long)atomic64_read(&w->eth_tx_drops),
		   (long long)atomic64_read(&w->solicits));
	seq_printf(m, "rxq_max %u\nrx_polls %llu\nrx_taken %llu\n",
		   READ_ONCE(w->rxq_max), READ_ONCE(w->rx_polls),
		   READ_ONCE(w->rx_taken));
	seq_printf(m, "rx_link_drops %lld\nrx_held %u\n",
		   (long long)atomic64_read(&w->rx_link_drops),
		   READ_ONCE(dev->fault.nheld));
	spin_lock_bh(&w->neigh_lock);
	for (i = 0; i < XNIC_SIM_WIRE_NEIGH_MAX; i++)
		if (w->neigh[i].valid)
			seq_printf(m, "neigh %pI6 %pM\n", w->neigh[i].gid,
				   w->neigh[i].mac);
	spin_unlock_bh(&w->neigh_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(xnic_sim_wire);

/**
 * xnic_sim_wire_debugfs - create the "wire" file
 * @dev: device
 * @dir: its debugfs directory
 */
void xnic_sim_wire_debugfs(struct xnic_sim_dev *dev, struct dentry *dir)
{
	debugfs_create_file("wire", 0400, dir, dev, &xnic_sim_wire_fops);
}

/**
 * xnic_sim_wire_init - the wire state of a new device (not attached)
 * @dev: device
 *
 * Return: 0 or -ENOMEM.
 */
int xnic_sim_wire_init(struct xnic_sim_dev *dev)
{
	struct xnic_sim_wire *w = kzalloc(sizeof(*w), GFP_KERNEL);

	if (!w)
		return -ENOMEM;
	w->dev = dev;
	skb_queue_head_init(&w->rxq);
	spin_lock_init(&w->neigh_lock);
	/* ARP requests and solicitations: 20 a second */
	ratelimit_state_init(&w->sol_rs, HZ, 20);
	ratelimit_set_flags(&w->sol_rs, RATELIMIT_MSG_ON_RELEASE);
	xnic_sim_eth_mac(dev->guid, w->mac);
	dev->wire = w;
	return 0;
}

/**
 * xnic_sim_wire_free - free it (detached, no engine runs)
 * @dev: device
 */
void xnic_sim_wire_free(struct xnic_sim_dev *dev)
{
	if (!dev->wire)
		return;
	skb_queue_purge(&dev->wire->rxq);
	kfree(dev->wire);
	dev->wire = NULL;
}

#ifdef XNIC_SIM_TEST_HOOKS
int xnic_sim_wire_attach_fake(struct xnic_sim_dev *dev,
			      xnic_sim_wire_tx_fn tx, void *ctx)
{
	struct xnic_sim_wire *w = dev->wire;
	int err = 0;

	rtnl_lock();
	if (w->on) {
		err = -EISCONN;
	} else {
		xnic_sim_eth_mac(dev->guid, w->mac);
		w->fake_ctx = ctx;
		WRITE_ONCE(w->fake_tx, tx);
		WRITE_ONCE(w->on, true);
	}
	rtnl_unlock();
	return err;
}

void xnic_sim_wire_inject(struct xnic_sim_dev *dev, struct sk_buff *skb)
{
	if (!xnic_sim_wire_on(dev)) {
		kfree_skb(skb);
		return;
	}
	xnic_sim_wire_rx(dev->wire, skb);
}

int xnic_sim_wire_classify(struct xnic_sim_dev *dev, const u8 *frame,
			   u32 len)
{
	return xnic_sim_wire_class(dev, frame, len, true);
}

void xnic_sim_wire_set_mtu(struct xnic_sim_dev *dev, u32 mtu)
{
	WRITE_ONCE(dev->wire->mtu, mtu);
}

u64 xnic_sim_wire_rx_vlan_drops(struct xnic_sim_dev *dev)
{
	return atomic64_read(&dev->wire->rx_vlan_drops);
}

u64 xnic_sim_wire_rxq_drops(struct xnic_sim_dev *dev)
{
	return atomic64_read(&dev->wire->rxq_drops);
}

u32 xnic_sim_wire_rxq_len(struct xnic_sim_dev *dev)
{
	return skb_queue_len_lockless(&dev->wire->rxq);
}
#endif
