// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the port on a wire (drivers/hw/xnic/sim/xnic_sim_wire.c) --
 * attaching and refusals, the neighbour cache, what the rx_handler does
 * with a frame, the bound of the engine's queue, hostile frames, the
 * port's own ARP requests and neighbour solicitations, and the fixture
 * (kunit/xnic_sim_wire_fixture.[ch]) carrying Ethernet frames.
 */
#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/ip6_checksum.h>
#include <net/ndisc.h>
#include <net/inet_ecn.h>
#include "xnic_sim_wire_fixture.h"

/* 6.1's KUnit has no KUNIT_EXPECT_MEMEQ */
#define EXPECT_MEM(test, a, b, n) \
	KUNIT_EXPECT_EQ(test, memcmp(a, b, n), 0)

static const u8 peer_mac[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };

static void v4_gid(u8 gid[16], u8 a, u8 b, u8 c, u8 d)
{
	memset(gid, 0, 16);
	gid[10] = 0xff;
	gid[11] = 0xff;
	gid[12] = a;
	gid[13] = b;
	gid[14] = c;
	gid[15] = d;
}

/*
 * A UDP frame from @smac to @dmac, @sgid -> @dgid (IPv4-mapped: IPv4),
 * destination port @dport, @plen bytes of payload after the UDP header.
 * Return: its length.
 */
static u32 udp_frame(u8 *f, const u8 *dmac, const u8 *smac, const u8 *sgid,
		     const u8 *dgid, u16 dport, u32 plen)
{
	bool v4 = !memcmp(dgid, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12);
	u32 ip_len = v4 ? 20 : 40, off = ETH_HLEN + ip_len;

	memset(f, 0, off + 8 + plen);
	ether_addr_copy(f, dmac);
	ether_addr_copy(f + 6, smac);
	if (v4) {
		struct iphdr *ip = (void *)(f + ETH_HLEN);

		put_unaligned_be16(ETH_P_IP, f + 12);
		ip->version = 4;
		ip->ihl = 5;
		ip->tot_len = htons(ip_len + 8 + plen);
		ip->ttl = 64;
		ip->protocol = IPPROTO_UDP;
		memcpy(&ip->saddr, sgid + 12, 4);
		memcpy(&ip->daddr, dgid + 12, 4);
	} else {
		struct ipv6hdr *ip = (void *)(f + ETH_HLEN);

		put_unaligned_be16(ETH_P_IPV6, f + 12);
		ip->version = 6;
		ip->payload_len = htons(8 + plen);
		ip->nexthdr = IPPROTO_UDP;
		ip->hop_limit = 64;
		memcpy(&ip->saddr, sgid, 16);
		memcpy(&ip->daddr, dgid, 16);
	}
	put_unaligned_be16(0xc000, f + off);
	put_unaligned_be16(dport, f + off + 2);
	put_unaligned_be16(8 + plen, f + off + 4);
	return off + 8 + plen;
}

/* An ARP frame: @op from @sha/@sip about @tip. */
static u32 arp_frame(u8 *f, const u8 *dmac, u16 op, const u8 *sha,
		     const u8 *sip, const u8 *tha, const u8 *tip)
{
	ether_addr_copy(f, dmac);
	ether_addr_copy(f + 6, sha);
	put_unaligned_be16(ETH_P_ARP, f + 12);
	put_unaligned_be16(ARPHRD_ETHER, f + 14);
	put_unaligned_be16(ETH_P_IP, f + 16);
	f[18] = 6;
	f[19] = 4;
	put_unaligned_be16(op, f + 20);
	memcpy(f + 22, sha, 6);
	memcpy(f + 28, sip, 4);
	memcpy(f + 32, tha, 6);
	memcpy(f + 38, tip, 4);
	return 42;
}

/* ------------------------------------------------------------------ */

static void wire_attach_detach(struct kunit *test)
{
	struct xnic_sim_dev *dev = kt_sim_dev(test, 0, false);

	KUNIT_EXPECT_FALSE(test, xnic_sim_wire_on(dev));
	/* refusals: no such netdev, loopback */
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_attach(dev, "xnic-no-such0"),
			-ENODEV);
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_attach(dev, "lo"), -EINVAL);
	KUNIT_EXPECT_FALSE(test, xnic_sim_wire_on(dev));

	KUNIT_ASSERT_EQ(test, xnic_sim_wire_attach_fake(dev, NULL, NULL), 0);
	KUNIT_EXPECT_TRUE(test, xnic_sim_wire_on(dev));
	/* attached already */
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_attach_fake(dev, NULL, NULL),
			-EISCONN);
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_attach(dev, "lo"), -EISCONN);
	xnic_sim_wire_detach(dev);
	KUNIT_EXPECT_FALSE(test, xnic_sim_wire_on(dev));
	/* twice is harmless, and it attaches again */
	xnic_sim_wire_detach(dev);
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_attach_fake(dev, NULL, NULL), 0);
	xnic_sim_wire_detach(dev);
}

/* The identity from a MAC: GUID = EUI-64, port MAC = the MAC, GID. */
static void wire_identity(struct kunit *test)
{
	struct xnic_sim_dev *dev = kt_sim_dev(test, 0, false);
	static const u8 m[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
	static const u8 ll[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
				   0x50, 0x54, 0x00, 0xff, 0xfe, 0x12, 0x34,
				   0x56 };
	u8 mac[6], gid[16];
	u8 type;

	KUNIT_ASSERT_EQ(test, xnic_sim_dev_set_mac(dev, m), 0);
	KUNIT_EXPECT_EQ(test, dev->guid, 0x505400fffe123456ULL);
	xnic_sim_eth_mac(dev->guid, mac);
	EXPECT_MEM(test, mac, m, 6);
	EXPECT_MEM(test, dev->gid, ll, 16);
	KUNIT_ASSERT_TRUE(test, xnic_sim_sgid(dev, 1, gid, &type));
	EXPECT_MEM(test, gid, ll, 16);
	/* the Ethernet function's MAC registers follow */
	KUNIT_EXPECT_EQ(test, dev->pdata.bus.read32(&dev->pdata.bus,
						    XNIC_REG_ETH_MAC_HI),
			0x5254U);
	/* not a unicast MAC */
	KUNIT_EXPECT_EQ(test, xnic_sim_dev_set_mac(dev, (const u8 *)
						   "\x01\0\0\0\0\1"), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_dev_set_mac(dev, (const u8 *)
						   "\0\0\0\0\0\0"), -EINVAL);
	/* the default identity stays what the tests know */
	dev = kt_sim_dev(test, 1, false);
	KUNIT_EXPECT_EQ(test, dev->guid, 0x025852fffe000002ULL);
}

static void wire_neigh(struct kunit *test)
{
	struct xnic_sim_dev *dev = kt_sim_dev(test, 0, false);
	u8 gid[16], mac[6], m2[6];
	static const u8 ll[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
				   0x02, 0x58, 0x52, 0xff, 0xfe, 0x00, 0x00,
				   0x07 };
	static const u8 mc6[16] = { 0xff, 0x0e, [12] = 0x12, 0x34, 0x56,
				    0x78 };
	int i;

	v4_gid(gid, 198, 18, 0, 2);
	KUNIT_EXPECT_FALSE(test, xnic_sim_wire_resolve(dev, gid, mac));
	/* learn, then overwrite */
	KUNIT_EXPECT_TRUE(test, xnic_sim_wire_neigh_learn(dev, gid, peer_mac));
	KUNIT_ASSERT_TRUE(test, xnic_sim_wire_resolve(dev, gid, mac));
	EXPECT_MEM(test, mac, peer_mac, 6);
	ether_addr_copy(m2, peer_mac);
	m2[5] = 0x66;
	KUNIT_EXPECT_TRUE(test, xnic_sim_wire_neigh_learn(dev, gid, m2));
	KUNIT_ASSERT_TRUE(test, xnic_sim_wire_resolve(dev, gid, mac));
	EXPECT_MEM(test, mac, m2, 6);

	/* not learnt: a multicast MAC, a multicast or zero address */
	v4_gid(gid, 198, 18, 0, 3);
	KUNIT_EXPECT_FALSE(test, xnic_sim_wire_neigh_learn(dev, gid, (const u8 *)
							    "\x01\0\x5e\0\0\1"));
	v4_gid(gid, 224, 0, 0, 1);
	KUNIT_EXPECT_FALSE(test, xnic_sim_wire_neigh_learn(dev, gid, peer_mac));
	v4_gid(gid, 0, 0, 0, 0);
	KUNIT_EXPECT_FALSE(test, xnic_sim_wire_neigh_learn(dev, gid, peer_mac));

	/* from the GID itself: link-local EUI-64, multicast */
	KUNIT_ASSERT_TRUE(test, xnic_sim_wire_resolve(dev, ll, mac));
	EXPECT_MEM(test, mac, "\x00\x58\x52\x00\x00\x07", 6);
	v4_gid(gid, 239, 129, 2, 3);
	KUNIT_ASSERT_TRUE(test, xnic_sim_wire_resolve(dev, gid, mac));
	EXPECT_MEM(test, mac, "\x01\x00\x5e\x01\x02\x03", 6);
	KUNIT_ASSERT_TRUE(test, xnic_sim_wire_resolve(dev, mc6, mac));
	EXPECT_MEM(test, mac, "\x33\x33\x12\x34\x56\x78", 6);

	/*
	 * Bound: with 198.18.0.2 just used, fill the cache with as many
	 * others: the least recently used go, 198.18.0.2 (used again
	 * halfway) stays.
	 */
	for (i = 0; i < XNIC_SIM_WIRE_NEIGH_MAX; i++) {
		v4_gid(gid, 10, 0, 1, i);
		m2[5] = i;
		KUNIT_ASSERT_TRUE(test, xnic_sim_wire_neigh_learn(dev, gid, m2));
		if (i == XNIC_SIM_WIRE_NEIGH_MAX / 2) {
			v4_gid(gid, 198, 18, 0, 2);
			KUNIT_EXPECT_TRUE(test, xnic_sim_wire_resolve(dev, gid,
								      mac));
		}
	}
	v4_gid(gid, 198, 18, 0, 2);
	KUNIT_EXPECT_TRUE(test, xnic_sim_wire_resolve(dev, gid, mac));
	/* the oldest of the new ones made room */
	v4_gid(gid, 10, 0, 1, 0);
	KUNIT_EXPECT_FALSE(test, xnic_sim_wire_resolve(dev, gid, mac));
	v4_gid(gid, 10, 0, 1, XNIC_SIM_WIRE_NEIGH_MAX - 1);
	KUNIT_ASSERT_TRUE(test, xnic_sim_wire_resolve(dev, gid, mac));
	KUNIT_EXPECT_EQ(test, mac[5], (u8)(XNIC_SIM_WIRE_NEIGH_MAX - 1));
}

/*
 * A neighbour advertisement (@type NDISC_NEIGHBOUR_ADVERTISEMENT) from
 * @saddr to @daddr for @target at @lla, or a solicitation (@type
 * NDISC_NEIGHBOUR_SOLICITATION) for @target from @saddr at @lla; hop
 * limit @hop, a valid checksum.  Return: its length.
 */
static u32 nd_frame(u8 *f, const u8 *dmac, const u8 *smac, u8 type,
		    const u8 *saddr, const u8 *daddr, const u8 *target,
		    const u8 *lla, u8 hop)
{
	struct ipv6hdr *ip = (void *)(f + ETH_HLEN);
	u8 *ic = f + ETH_HLEN + sizeof(*ip);
	u32 plen = 24 + 8;

	memset(f, 0, ETH_HLEN + sizeof(*ip) + plen);
	ether_addr_copy(f, dmac);
	ether_addr_copy(f + 6, smac);
	put_unaligned_be16(ETH_P_IPV6, f + 12);
	ip->version = 6;
	ip->payload_len = htons(plen);
	ip->nexthdr = IPPROTO_ICMPV6;
	ip->hop_limit = hop;
	memcpy(&ip->saddr, saddr, 16);
	memcpy(&ip->daddr, daddr, 16);
	ic[0] = type;
	if (type == NDISC_NEIGHBOUR_ADVERTISEMENT)
		ic[4] = 0x60;		/* solicited, override */
	memcpy(ic + 8, target, 16);
	ic[24] = type == NDISC_NEIGHBOUR_ADVERTISEMENT ?
		 ND_OPT_TARGET_LL_ADDR : ND_OPT_SOURCE_LL_ADDR;
	ic[25] = 1;
	memcpy(ic + 26, lla, 6);
	put_unaligned((__force u16)csum_ipv6_magic(&ip->saddr, &ip->daddr, plen,
						   IPPROTO_ICMPV6,
						   csum_partial(ic, plen, 0)),
		      (u16 *)(ic + 2));
	return ETH_HLEN + sizeof(*ip) + plen;
}

/* @f (@len bytes, from its Ethernet header) in an 802.1Q tag of @vid. */
static u32 vlan_tag(u8 *f, u32 len, u16 vid)
{
	memmove(f + 16, f + 12, len - 12);
	put_unaligned_be16(ETH_P_8021Q, f + 12);
	put_unaligned_be16(vid, f + 14);
	return len + 4;
}

/* Whether @dev resolves @gid to @mac. */
static bool resolves_to(struct xnic_sim_dev *dev, const u8 *gid,
			const u8 *mac)
{
	u8 m[6];

	return xnic_sim_wire_resolve(dev, gid, m) && ether_addr_equal(m, mac);
}

/*
 * Learning as the kernel's neighbour code: ARP requests for the port's
 * addresses and ARP replies to it; neighbour solicitations for its
 * addresses and advertisements to it (hop limit 255, checksum); never an
 * IP frame's source, nor ARP/ND of a VLAN.
 */
static void wire_neigh_frames(struct kunit *test)
{
	struct xnic_sim_dev *dev = kt_sim_dev(test, 0, false);
	u8 f[160], gid[16], mine[16], sgid[16], port[6], evil[6];
	static const u8 sip[4] = { 198, 18, 0, 9 }, tip[4] = { 198, 18, 0, 1 };
	static const u8 other[4] = { 198, 18, 0, 7 };
	u32 len;

	xnic_sim_eth_mac(dev->guid, port);
	ether_addr_copy(evil, peer_mac);
	evil[5] = 0xee;
	v4_gid(mine, 198, 18, 0, 1);
	KUNIT_ASSERT_EQ(test, xnic_sim_set_gid(dev, 1, 2, mine,
					       XNIC_GID_TYPE_ROCE_V2, true), 0);
	v4_gid(gid, 198, 18, 0, 9);

	/* an ARP reply to another address of ours, or another MAC: no */
	len = arp_frame(f, port, ARPOP_REPLY, peer_mac, sip, port, other);
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_classify(dev, f, len),
			(int)XNIC_SIM_WIRE_ETH);
	len = arp_frame(f, port, ARPOP_REPLY, peer_mac, sip, peer_mac, tip);
	xnic_sim_wire_classify(dev, f, len);
	KUNIT_EXPECT_FALSE(test, xnic_sim_wire_resolve(dev, gid, f));
	/* an ARP request for another address: no */
	len = arp_frame(f, port, ARPOP_REQUEST, peer_mac, sip, port, other);
	xnic_sim_wire_classify(dev, f, len);
	KUNIT_EXPECT_FALSE(test, xnic_sim_wire_resolve(dev, gid, f));
	/* an ARP reply in VLAN 5: no */
	len = arp_frame(f, port, ARPOP_REPLY, peer_mac, sip, port, tip);
	len = vlan_tag(f, len, 5);
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_classify(dev, f, len),
			(int)XNIC_SIM_WIRE_ETH);
	KUNIT_EXPECT_FALSE(test, xnic_sim_wire_resolve(dev, gid, f));

	/* an ARP reply to us: learnt */
	len = arp_frame(f, port, ARPOP_REPLY, peer_mac, sip, port, tip);
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_classify(dev, f, len),
			(int)XNIC_SIM_WIRE_ETH);
	KUNIT_EXPECT_TRUE(test, resolves_to(dev, gid, peer_mac));

	/* an IP frame with that source from another MAC changes nothing */
	len = udp_frame(f, port, evil, gid, mine, 4791, 32);
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_classify(dev, f, len),
			(int)XNIC_SIM_WIRE_ROCE);
	len = udp_frame(f, port, evil, gid, mine, 53, 32);
	xnic_sim_wire_classify(dev, f, len);
	KUNIT_EXPECT_TRUE(test, resolves_to(dev, gid, peer_mac));
	/* nor does it teach a new address */
	v4_gid(sgid, 198, 18, 0, 66);
	len = udp_frame(f, port, evil, sgid, mine, 53, 32);
	xnic_sim_wire_classify(dev, f, len);
	KUNIT_EXPECT_FALSE(test, xnic_sim_wire_resolve(dev, sgid, f));

	/* an ARP request for our address teaches the asker (priority tag) */
	len = arp_frame(f, port, ARPOP_REQUEST, evil, sip, port, tip);
	len = vlan_tag(f, len, 0);
	xnic_sim_wire_classify(dev, f, len);
	KUNIT_EXPECT_TRUE(test, resolves_to(dev, gid, evil));

	/* IPv6: an IP source teaches nothing */
	memset(sgid, 0, 16);
	sgid[0] = 0x20;
	sgid[1] = 0x01;
	sgid[15] = 0x42;
	len = udp_frame(f, port, peer_mac, sgid, dev->gid, 53, 4);
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_classify(dev, f, len),
			(int)XNIC_SIM_WIRE_ETH);
	KUNIT_EXPECT_FALSE(test, xnic_sim_wire_resolve(dev, sgid, f));
	/* an advertisement with hop limit 64 (routed), or a bad checksum */
	len = nd_frame(f, port, peer_mac, NDISC_NEIGHBOUR_ADVERTISEMENT, sgid,
		       dev->gid, sgid, peer_mac, 64);
	xnic_sim_wire_classify(dev, f, len);
	KUNIT_EXPECT_FALSE(test, xnic_sim_wire_resolve(dev, sgid, f));
	len = nd_frame(f, port, peer_mac, NDISC_NEIGHBOUR_ADVERTISEMENT, sgid,
		       dev->gid, sgid, peer_mac, 255);
	f[len - 1] ^= 1;
	xnic_sim_wire_classify(dev, f, len);
	KUNIT_EXPECT_FALSE(test, xnic_sim_wire_resolve(dev, sgid, f));
	/* ... to another address */
	len = nd_frame(f, port, peer_mac, NDISC_NEIGHBOUR_ADVERTISEMENT, sgid,
		       sgid, sgid, peer_mac, 255);
	xnic_sim_wire_classify(dev, f, len);
	KUNIT_EXPECT_FALSE(test, xnic_sim_wire_resolve(dev, sgid, f));
	/* a good one to our default GID: learnt */
	len = nd_frame(f, port, peer_mac, NDISC_NEIGHBOUR_ADVERTISEMENT, sgid,
		       dev->gid, sgid, peer_mac, 255);
	xnic_sim_wire_classify(dev, f, len);
	KUNIT_EXPECT_TRUE(test, resolves_to(dev, sgid, peer_mac));
	/* a solicitation for another address teaches nothing, ours does */
	len = nd_frame(f, port, evil, NDISC_NEIGHBOUR_SOLICITATION, sgid,
		       dev->gid, sgid, evil, 255);
	xnic_sim_wire_classify(dev, f, len);
	KUNIT_EXPECT_TRUE(test, resolves_to(dev, sgid, peer_mac));
	len = nd_frame(f, port, evil, NDISC_NEIGHBOUR_SOLICITATION, sgid,
		       dev->gid, dev->gid, evil, 255);
	xnic_sim_wire_classify(dev, f, len);
	KUNIT_EXPECT_TRUE(test, resolves_to(dev, sgid, evil));
	KUNIT_ASSERT_EQ(test, xnic_sim_set_gid(dev, 1, 2, mine,
					       XNIC_GID_TYPE_ROCE_V2, false), 0);
}

/*
 * The port is untagged: RoCEv2 in VLAN 1..4095 is not the port's (a
 * counted drop), in VLAN 0 (priority tagged) it is; other tagged frames
 * go to the Ethernet function (its host may run VLANs on it).
 */
static void wire_vlan(struct kunit *test)
{
	struct xnic_sim_dev *dev = kt_sim_dev(test, 0, false);
	u8 f[160], src[16], port[6];
	u32 len;

	xnic_sim_eth_mac(dev->guid, port);
	v4_gid(src, 198, 18, 0, 2);
	len = udp_frame(f, port, peer_mac, src, dev->gid, 4791, 32);
	len = vlan_tag(f, len, 100);
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_classify(dev, f, len),
			(int)XNIC_SIM_WIRE_VLAN);
	len = udp_frame(f, port, peer_mac, src, dev->gid, 4791, 32);
	len = vlan_tag(f, len, 0x2000 | 4095);	/* PCP 1, VID 4095 */
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_classify(dev, f, len),
			(int)XNIC_SIM_WIRE_VLAN);
	len = udp_frame(f, port, peer_mac, src, dev->gid, 4791, 32);
	len = vlan_tag(f, len, 0x6000);		/* PCP 3, VID 0 */
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_classify(dev, f, len),
			(int)XNIC_SIM_WIRE_ROCE);
	len = udp_frame(f, port, peer_mac, src, dev->gid, 53, 32);
	len = vlan_tag(f, len, 100);
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_classify(dev, f, len),
			(int)XNIC_SIM_WIRE_ETH);
}

/* The port's active MTU: the attached netdev's, as rxe's; 4096 else. */
static void wire_mtu(struct kunit *test)
{
	struct xnic_sim_dev *dev = kt_sim_dev(test, 0, false);
	static const struct {
		u32 ndev;
		u8 ib;
	} t[] = {
		{ 9000, XNIC_MTU_4096 }, { 4176, XNIC_MTU_4096 },
		{ 4175, XNIC_MTU_2048 }, { 2128, XNIC_MTU_2048 },
		{ 2127, XNIC_MTU_1024 }, { 1500, XNIC_MTU_1024 },
		{ 1104, XNIC_MTU_1024 }, { 1103, XNIC_MTU_512 },
		{ 592, XNIC_MTU_512 }, { 591, XNIC_MTU_256 },
		{ 68, XNIC_MTU_256 }, { 0, XNIC_MTU_256 },
	};
	struct xnic_bus *bus = &dev->pdata.bus;
	unsigned int i;
	u32 reg;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		KUNIT_EXPECT_EQ_MSG(test, xnic_sim_wire_mtu_code(t[i].ndev),
				    t[i].ib, "netdev MTU %u", t[i].ndev);
	/* the cable */
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_active_mtu(dev), (u8)XNIC_MTU_4096);
	KUNIT_EXPECT_EQ(test, bus->read32(bus, XNIC_REG_ETH_PORT_MTU),
			(u32)XNIC_MTU_4096);
	KUNIT_ASSERT_EQ(test, xnic_sim_wire_attach_fake(dev, NULL, NULL), 0);
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_active_mtu(dev), (u8)XNIC_MTU_4096);
	xnic_sim_wire_set_mtu(dev, 1500);
	KUNIT_EXPECT_EQ(test, bus->read32(bus, XNIC_REG_ETH_PORT_MTU),
			(u32)XNIC_MTU_1024);
	xnic_sim_wire_set_mtu(dev, 9000);
	KUNIT_EXPECT_EQ(test, bus->read32(bus, XNIC_REG_ETH_PORT_MTU),
			(u32)XNIC_MTU_4096);
	xnic_sim_wire_set_mtu(dev, 1500);
	/* detached: back to the cable's */
	xnic_sim_wire_detach(dev);
	KUNIT_EXPECT_EQ(test, bus->read32(bus, XNIC_REG_ETH_PORT_MTU),
			(u32)XNIC_MTU_4096);
	/* another port's block reads 0 */
	reg = XNIC_REG_ETH(2, XNIC_REG_ETH_PORT_MTU);
	KUNIT_EXPECT_EQ(test, bus->read32(bus, reg), 0U);
}

static netdev_tx_t kt_ndev_xmit(struct sk_buff *skb, struct net_device *nd)
{
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops kt_ndev_ops = {
	.ndo_start_xmit = kt_ndev_xmit,
};

/*
 * A real netdev: attaching takes its MTU, NETDEV_CHANGEMTU moves the
 * port's active MTU, unregistering it detaches.
 */
static void wire_mtu_netdev(struct kunit *test)
{
	struct xnic_sim_dev *dev = kt_sim_dev(test, 0, false);
	struct net_device *nd;
	int err;

	/*
	 * The module's netdev notifier (xnic_sim_main.c, not in the KUnit
	 * build): registered for this case.
	 */
	KUNIT_ASSERT_EQ(test, xnic_sim_wire_module_init(), 0);
	nd = alloc_etherdev(0);
	if (!nd) {
		xnic_sim_wire_module_exit();
		KUNIT_FAIL(test, "alloc_etherdev");
		return;
	}
	strscpy(nd->name, "xkt%d", IFNAMSIZ);
	nd->netdev_ops = &kt_ndev_ops;
	nd->max_mtu = 9000;
	eth_hw_addr_random(nd);
	err = register_netdev(nd);
	if (err) {
		free_netdev(nd);
		xnic_sim_wire_module_exit();
		KUNIT_FAIL(test, "register_netdev: %d", err);
		return;
	}
	rtnl_lock();
	err = dev_set_mtu(nd, 2200);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, err, 0);
	err = xnic_sim_wire_attach(dev, nd->name);
	KUNIT_EXPECT_EQ(test, err, 0);
	if (!err) {
		KUNIT_EXPECT_EQ(test, xnic_sim_wire_active_mtu(dev),
				(u8)XNIC_MTU_2048);
		rtnl_lock();
		KUNIT_EXPECT_EQ(test, dev_set_mtu(nd, 1500), 0);
		rtnl_unlock();
		KUNIT_EXPECT_EQ(test, xnic_sim_wire_active_mtu(dev),
				(u8)XNIC_MTU_1024);
		rtnl_lock();
		KUNIT_EXPECT_EQ(test, dev_set_mtu(nd, 9000), 0);
		rtnl_unlock();
		KUNIT_EXPECT_EQ(test, xnic_sim_wire_active_mtu(dev),
				(u8)XNIC_MTU_4096);
		rtnl_lock();
		KUNIT_EXPECT_EQ(test, dev_set_mtu(nd, 1000), 0);
		rtnl_unlock();
		KUNIT_EXPECT_EQ(test, xnic_sim_wire_active_mtu(dev),
				(u8)XNIC_MTU_512);
	}
	/* the notifier detaches */
	unregister_netdev(nd);
	KUNIT_EXPECT_FALSE(test, xnic_sim_wire_on(dev));
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_active_mtu(dev), (u8)XNIC_MTU_4096);
	free_netdev(nd);
	xnic_sim_wire_module_exit();
}

/* RoCE (UDP 4791 to one of the port's GIDs) or the Ethernet function */
static void wire_classify(struct kunit *test)
{
	struct xnic_sim_dev *dev = kt_sim_dev(test, 0, false);
	u8 f[256], mine4[16], other4[16], src4[16], port[6];
	u32 len;

	xnic_sim_eth_mac(dev->guid, port);
	v4_gid(mine4, 198, 18, 0, 1);
	v4_gid(other4, 198, 18, 0, 7);
	v4_gid(src4, 198, 18, 0, 2);
	KUNIT_ASSERT_EQ(test, xnic_sim_set_gid(dev, 1, 2, mine4,
					       XNIC_GID_TYPE_ROCE_V2, true), 0);

	len = udp_frame(f, port, peer_mac, src4, mine4, 4791, 32);
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_classify(dev, f, len),
			(int)XNIC_SIM_WIRE_ROCE);
	len = udp_frame(f, port, peer_mac, src4, other4, 4791, 32);
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_classify(dev, f, len),
			(int)XNIC_SIM_WIRE_ETH);
	len = udp_frame(f, port, peer_mac, src4, mine4, 4792, 32);
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_classify(dev, f, len),
			(int)XNIC_SIM_WIRE_ETH);
	/* IPv6 to the default GID */
	len = udp_frame(f, port, peer_mac, other4, dev->gid, 4791, 32);
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_classify(dev, f, len),
			(int)XNIC_SIM_WIRE_ROCE);
	/* a fragment is not RoCE */
	len = udp_frame(f, port, peer_mac, src4, mine4, 4791, 32);
	put_unaligned_be16(0x2000, f + ETH_HLEN + 6);
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_classify(dev, f, len),
			(int)XNIC_SIM_WIRE_ETH);
	/* truncated headers */
	len = udp_frame(f, port, peer_mac, src4, mine4, 4791, 32);
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_classify(dev, f, ETH_HLEN + 24),
			(int)XNIC_SIM_WIRE_ETH);
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_classify(dev, f, 10),
			(int)XNIC_SIM_WIRE_DROP);
	/* the entry cleared: no longer the port's */
	KUNIT_ASSERT_EQ(test, xnic_sim_set_gid(dev, 1, 2, mine4,
					       XNIC_GID_TYPE_ROCE_V2, false), 0);
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_classify(dev, f, len),
			(int)XNIC_SIM_WIRE_ETH);
}

/*
 * The engine's queue holds XNIC_SIM_WIRE_RXQ_MAX frames; more are
 * dropped and counted.  The devices are not enabled: their engines do
 * not take from the queue.
 */
static void wire_queue_bound(struct kunit *test)
{
	struct tw_ctx *c = tw_ctx(test);
	struct xnic_sim_dev *dev = tw_sim(c, 1);
	u8 f[128], port[6], src[16];
	u32 len, i, extra = 10;

	tw_mac(c, 1, port);
	v4_gid(src, 198, 18, 0, 2);
	len = udp_frame(f, port, peer_mac, src, dev->gid, 4791, 20);
	for (i = 0; i < XNIC_SIM_WIRE_RXQ_MAX + extra; i++)
		tw_inject(c, 1, f, len);
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_rxq_len(dev),
			(u32)XNIC_SIM_WIRE_RXQ_MAX);
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_rxq_drops(dev), (u64)extra);
	/* detaching purges it */
	xnic_sim_wire_detach(dev);
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_rxq_len(dev), 0U);
}

/* Frames for another MAC or from the port's own are not taken. */
static void wire_mac_filter(struct kunit *test)
{
	struct tw_ctx *c = tw_ctx(test);
	struct xnic_sim_dev *dev = tw_sim(c, 1);
	u8 f[128], port[6], other[6], src[16];
	u32 len;

	tw_mac(c, 1, port);
	ether_addr_copy(other, peer_mac);
	other[0] = 0x06;
	v4_gid(src, 198, 18, 0, 2);
	len = udp_frame(f, other, peer_mac, src, dev->gid, 4791, 20);
	tw_inject(c, 1, f, len);
	len = udp_frame(f, port, port, src, dev->gid, 4791, 20);
	tw_inject(c, 1, f, len);
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_rxq_len(dev), 0U);
	len = udp_frame(f, port, peer_mac, src, dev->gid, 4791, 20);
	tw_inject(c, 1, f, len);
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_rxq_len(dev), 1U);
}

/* RoCEv2 in a VLAN is dropped and counted, not queued; VLAN 0 is taken. */
static void wire_vlan_drop(struct kunit *test)
{
	struct tw_ctx *c = tw_ctx(test);
	struct xnic_sim_dev *dev = tw_sim(c, 1);
	u8 f[160], port[6], src[16];
	u32 len;

	tw_mac(c, 1, port);
	v4_gid(src, 198, 18, 0, 2);
	len = udp_frame(f, port, peer_mac, src, dev->gid, 4791, 20);
	len = vlan_tag(f, len, 7);
	tw_inject(c, 1, f, len);
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_rxq_len(dev), 0U);
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_rx_vlan_drops(dev), 1ULL);
	len = udp_frame(f, port, peer_mac, src, dev->gid, 4791, 20);
	len = vlan_tag(f, len, 0);
	tw_inject(c, 1, f, len);
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_rxq_len(dev), 1U);
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_rx_vlan_drops(dev), 1ULL);
}

/* A hostile RoCE frame reaching an enabled device is counted, no more. */
static void wire_hostile(struct kunit *test)
{
	struct tw_ctx *c = tw_ctx_up(test);
	struct xnic_sim_dev *dev = tw_sim(c, 1);
	u8 f[128], port[6], src[16];
	unsigned long end;
	u32 len, i;
	u64 n;

	tw_mac(c, 1, port);
	v4_gid(src, 198, 18, 0, 2);
	for (i = 0; i < 4; i++) {
		/* a BTH of junk, 0..3 bytes short of one */
		len = udp_frame(f, port, peer_mac, src, dev->gid, 4791, 9 + i);
		memset(f + len - 9 - i, 0xa5 + i, 9 + i);
		tw_inject(c, 1, f, len);
	}
	end = jiffies + msecs_to_jiffies(TD_TIMEOUT_MS);
	do {
		n = kt_sim_ctr(dev, XNIC_SIM_CTR_wire_malformed) +
		    kt_sim_ctr(dev, XNIC_SIM_CTR_wire_icrc_errors);
		if (n >= 4)
			break;
		usleep_range(500, 1000);
	} while (time_before(jiffies, end));
	KUNIT_EXPECT_EQ(test, n, 4ULL);
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(dev, XNIC_SIM_CTR_wire_rx_packets),
			0ULL);
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_rxq_len(dev), 0U);
}

/*
 * No MAC for a destination: the frame is dropped and counted, and the
 * port asks for it (ARP for IPv4, a solicitation for IPv6) from its
 * MAC and the source GID's address; the fixture answers (teaches), so
 * the next send resolves.
 */
static void wire_no_neigh(struct kunit *test)
{
	struct tw_ctx *c = tw_ctx(test);
	struct xnic_sim_dev *d0 = tw_sim(c, 0), *d1 = tw_sim(c, 1);
	struct xnic_sim_pkt p = {};
	u8 mac0[6], mac1[6], peer4[16], peer6[16], mac[6];
	struct sk_buff *skb;

	tw_mac(c, 0, mac0);
	tw_mac(c, 1, mac1);
	v4_gid(p.sgid, 198, 18, 0, 1);
	v4_gid(peer4, 198, 18, 0, 2);
	KUNIT_ASSERT_EQ(test, xnic_sim_set_gid(d0, 1, 2, p.sgid,
					       XNIC_GID_TYPE_ROCE_V2, true), 0);
	KUNIT_ASSERT_EQ(test, xnic_sim_set_gid(d1, 1, 2, peer4,
					       XNIC_GID_TYPE_ROCE_V2, true), 0);
	tw_capture(c, 0, true);

	memcpy(p.dgid, peer4, 16);
	skb = alloc_skb(64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_put_zero(skb, 64);
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_xmit(d0, skb, &p), -EHOSTUNREACH);
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(d0, XNIC_SIM_CTR_wire_no_neigh), 1ULL);
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(d0, XNIC_SIM_CTR_wire_tx_packets),
			0ULL);
	skb = tw_captured(c, 0);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_GE(test, skb->len, 42U);
	KUNIT_EXPECT_TRUE(test, is_broadcast_ether_addr(skb->data));
	EXPECT_MEM(test, skb->data + 6, mac0, 6);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(skb->data + 12),
			(u16)ETH_P_ARP);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(skb->data + 20),
			(u16)ARPOP_REQUEST);
	EXPECT_MEM(test, skb->data + 22, mac0, 6);
	EXPECT_MEM(test, skb->data + 28, p.sgid + 12, 4);
	EXPECT_MEM(test, skb->data + 38, peer4 + 12, 4);
	/* the fixture's answer taught d0 */
	KUNIT_ASSERT_TRUE(test, xnic_sim_wire_resolve(d0, peer4, mac));
	EXPECT_MEM(test, mac, mac1, 6);

	/* IPv6: a solicitation to the solicited-node group */
	memset(peer6, 0, 16);
	peer6[0] = 0x20;
	peer6[1] = 0x01;
	peer6[13] = 0xab;
	peer6[14] = 0xcd;
	peer6[15] = 0xef;
	memcpy(p.sgid, d0->gid, 16);
	memcpy(p.dgid, peer6, 16);
	skb = alloc_skb(64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_put_zero(skb, 64);
	KUNIT_EXPECT_EQ(test, xnic_sim_wire_xmit(d0, skb, &p), -EHOSTUNREACH);
	skb = tw_captured(c, 0);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_EQ(test, skb->len, (u32)(ETH_HLEN + 40 + 32));
	EXPECT_MEM(test, skb->data, "\x33\x33\xff\xab\xcd\xef", 6);
	KUNIT_EXPECT_EQ(test, skb->data[ETH_HLEN + 6], (u8)IPPROTO_ICMPV6);
	KUNIT_EXPECT_EQ(test, skb->data[ETH_HLEN + 7], 255);
	EXPECT_MEM(test, skb->data + ETH_HLEN + 8, d0->gid, 16);
	KUNIT_EXPECT_EQ(test, skb->data[ETH_HLEN + 40],
			(u8)NDISC_NEIGHBOUR_SOLICITATION);
	EXPECT_MEM(test, skb->data + ETH_HLEN + 48, peer6, 16);
	EXPECT_MEM(test, skb->data + ETH_HLEN + 66, mac0, 6);
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(d0, XNIC_SIM_CTR_wire_no_neigh), 2ULL);
}

/* Wait for counter @c of @dev to reach @n; its value. */
static u64 wait_ctr(struct xnic_sim_dev *dev, enum xnic_sim_ctr c, u64 n)
{
	unsigned long end = jiffies + msecs_to_jiffies(TD_TIMEOUT_MS);
	u64 v;

	while ((v = kt_sim_ctr(dev, c)) < n && time_before(jiffies, end))
		usleep_range(500, 1000);
	return v;
}

/* A UD SEND ONLY packet of @len bytes from d0 to d1's default GID. */
static int send_pkt(struct kunit *test, struct tw_ctx *c, u8 tclass,
		    u32 len)
{
	struct xnic_sim_dev *d0 = tw_sim(c, 0), *d1 = tw_sim(c, 1);
	struct xnic_sim_pkt p = {};
	struct sk_buff *skb;
	u8 *payload;

	p.opcode = XNIC_SIM_BTH_UD | XNIC_SIM_BTH_SEND_ONLY;
	memcpy(p.sgid, d0->gid, 16);
	memcpy(p.dgid, d1->gid, 16);
	p.tclass = tclass;
	p.hop_limit = 64;
	p.sport = 0xc001;
	p.pkey = XNIC_SIM_DEFAULT_PKEY;
	p.dqpn = 7;
	p.qkey = 0x11111111;
	p.sqpn = 9;
	p.paylen = len;
	skb = xnic_sim_wire_alloc(d0, &p, &payload);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	memset(payload, 0x5a, len);
	return xnic_sim_wire_xmit(d0, skb, &p);
}

/*
 * A RoCEv2 packet end to end: built and sent by d0 (its MAC from the
 * link-local GID), carried by the fixture, classified, queued, parsed
 * by d1's engine; a corrupted one is an ICRC drop, a CE mark counted.
 */
static void wire_roce_path(struct kunit *test)
{
	struct tw_ctx *c = tw_ctx_up(test);
	struct xnic_sim_dev *d0 = tw_sim(c, 0), *d1 = tw_sim(c, 1);
	struct sk_buff *skb;
	u8 mac0[6], mac1[6];

	tw_mac(c, 0, mac0);
	tw_mac(c, 1, mac1);
	tw_capture(c, 0, true);
	KUNIT_ASSERT_EQ(test, send_pkt(test, c, 0, 16), 0);
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(d0, XNIC_SIM_CTR_wire_tx_packets),
			1ULL);
	skb = tw_captured(c, 0);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	EXPECT_MEM(test, skb->data, mac1, 6);
	EXPECT_MEM(test, skb->data + 6, mac0, 6);
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(d0, XNIC_SIM_CTR_wire_tx_bytes),
			(u64)skb->len);
	KUNIT_EXPECT_EQ(test, wait_ctr(d1, XNIC_SIM_CTR_wire_rx_packets, 1),
			1ULL);
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(d1, XNIC_SIM_CTR_wire_rx_bytes),
			(u64)skb->len);

	tw_corrupt_next(c, 0, 1);
	KUNIT_ASSERT_EQ(test, send_pkt(test, c, 0, 16), 0);
	KUNIT_EXPECT_EQ(test, wait_ctr(d1, XNIC_SIM_CTR_wire_icrc_errors, 1),
			1ULL);
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(d1, XNIC_SIM_CTR_wire_rx_packets),
			1ULL);

	KUNIT_ASSERT_EQ(test, send_pkt(test, c, INET_ECN_CE, 16), 0);
	KUNIT_EXPECT_EQ(test, wait_ctr(d1, XNIC_SIM_CTR_wire_rx_packets, 2),
			2ULL);
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(d1, XNIC_SIM_CTR_wire_ecn_marked),
			1ULL);
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(d1, XNIC_SIM_CTR_wire_malformed),
			0ULL);
}

/* The fixture: drop / duplicate / capture, on Ethernet frames. */
static void wire_fixture_faults(struct kunit *test)
{
	struct tw_ctx *c = tw_ctx(test);
	struct xnic_sim_dev *d0 = tw_sim(c, 0);
	u8 f[64], mac1[6];
	u32 i;

	tw_mac(c, 1, mac1);
	memset(f, 0, sizeof(f));
	ether_addr_copy(f, mac1);
	tw_mac(c, 0, f + 6);
	put_unaligned_be16(0x88b5, f + 12);	/* local experimental */
	tw_capture(c, 0, true);
	tw_drop_next(c, 0, 2);
	tw_dup_next(c, 0, 1);
	for (i = 0; i < 4; i++) {
		f[20] = i;
		KUNIT_EXPECT_TRUE(test, xnic_sim_wire_eth_xmit(d0, f, sizeof(f)));
	}
	KUNIT_EXPECT_EQ(test, c->link[0].frames, 4ULL);
	KUNIT_EXPECT_EQ(test, c->link[0].dropped, 2ULL);
	KUNIT_EXPECT_EQ(test, c->link[0].duplicated, 1ULL);
	KUNIT_EXPECT_EQ(test, c->link[0].delivered, 3ULL);
	KUNIT_EXPECT_EQ(test, tw_captured_count(c, 0), 4U);
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(d0, XNIC_SIM_CTR_wire_eth_tx), 4ULL);
	/* the other device's Ethernet RX is off: nothing taken */
	KUNIT_EXPECT_EQ(test, kt_sim_ctr(tw_sim(c, 1),
					 XNIC_SIM_CTR_wire_eth_rx), 0ULL);
	/* a reordered frame waits for the next */
	tw_reorder_next(c, 0, 1);
	KUNIT_EXPECT_TRUE(test, xnic_sim_wire_eth_xmit(d0, f, sizeof(f)));
	KUNIT_EXPECT_EQ(test, c->link[0].delivered, 3ULL);
	KUNIT_EXPECT_TRUE(test, xnic_sim_wire_eth_xmit(d0, f, sizeof(f)));
	KUNIT_EXPECT_EQ(test, c->link[0].delivered, 5ULL);
	/* cut */
	tw_cut(c, 0, true);
	KUNIT_EXPECT_TRUE(test, xnic_sim_wire_eth_xmit(d0, f, sizeof(f)));
	KUNIT_EXPECT_EQ(test, c->link[0].delivered, 5ULL);
	/* detached: nothing is sent */
	xnic_sim_wire_detach(d0);
	KUNIT_EXPECT_FALSE(test, xnic_sim_wire_eth_xmit(d0, f, sizeof(f)));
}

static struct kunit_case wire_cases[] = {
	KUNIT_CASE(wire_attach_detach),
	KUNIT_CASE(wire_identity),
	KUNIT_CASE(wire_neigh),
	KUNIT_CASE(wire_neigh_frames),
	KUNIT_CASE(wire_classify),
	KUNIT_CASE(wire_vlan),
	KUNIT_CASE(wire_mtu),
	KUNIT_CASE(wire_mtu_netdev),
	{}
};

static struct kunit_suite wire_suite = {
	.name = "xnic_sim_wire",
	.test_cases = wire_cases,
};

static struct kunit_case wire_fixture_cases[] = {
	KUNIT_CASE(wire_queue_bound),
	KUNIT_CASE(wire_mac_filter),
	KUNIT_CASE(wire_vlan_drop),
	KUNIT_CASE(wire_hostile),
	KUNIT_CASE(wire_no_neigh),
	KUNIT_CASE(wire_roce_path),
	KUNIT_CASE(wire_fixture_faults),
	{}
};

static struct kunit_suite wire_fixture_suite = {
	.name = "xnic_sim_wire_fixture",
	.init = tw_init,
	.exit = tw_exit,
	.test_cases = wire_fixture_cases,
};

kunit_test_suites(&wire_suite, &wire_fixture_suite);
