// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite xnic_sim_port: the device model's GIDs, the UD GRH, the
 * cable parameter (xnic_sim_port.c), the Ethernet MAC, ring and index
 * checks (xnic_sim_eth.c; the sources come with kunit/xnic_sim_test.c).
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/io.h>
#include "xnic_sim_fixture.h"

static void port_gid_grh(struct kunit *test)
{
	static const u8 want[16] = {
		0xfe, 0x80, 0, 0, 0, 0, 0, 0,
		0x02, 0x58, 0x52, 0xff, 0xfe, 0, 0, 0x01,
	};
	u8 gid[16], dgid[16], grh[40];

	xnic_sim_gid(0x025852fffe000001ULL, gid);
	KUNIT_EXPECT_EQ(test, memcmp(gid, want, 16), 0);
	memset(dgid, 0x33, sizeof(dgid));
	xnic_sim_grh(grh, gid, dgid, 4096);
	KUNIT_EXPECT_EQ(test, grh[0] >> 4, 6);
	KUNIT_EXPECT_EQ(test, grh[4], 0x10);
	KUNIT_EXPECT_EQ(test, grh[5], 0x00);
	KUNIT_EXPECT_EQ(test, grh[6], 0x1b);
	KUNIT_EXPECT_EQ(test, memcmp(grh + 8, gid, 16), 0);
	KUNIT_EXPECT_EQ(test, memcmp(grh + 24, dgid, 16), 0);
}

static void port_cable(struct kunit *test)
{
	int p[8];

	KUNIT_EXPECT_EQ(test, xnic_sim_parse_cable(NULL, 5, p), 0);
	KUNIT_EXPECT_EQ(test, p[0], 1);
	KUNIT_EXPECT_EQ(test, p[1], 0);
	KUNIT_EXPECT_EQ(test, p[2], 3);
	KUNIT_EXPECT_EQ(test, p[3], 2);
	KUNIT_EXPECT_EQ(test, p[4], -1);
	KUNIT_EXPECT_EQ(test, xnic_sim_parse_cable("", 1, p), 0);
	KUNIT_EXPECT_EQ(test, p[0], -1);
	KUNIT_EXPECT_EQ(test, xnic_sim_parse_cable("none", 4, p), 0);
	KUNIT_EXPECT_EQ(test, p[0] & p[1] & p[2] & p[3], -1);
	KUNIT_EXPECT_EQ(test, xnic_sim_parse_cable("0-3,1-2\n", 4, p), 0);
	KUNIT_EXPECT_EQ(test, p[0], 3);
	KUNIT_EXPECT_EQ(test, p[3], 0);
	KUNIT_EXPECT_EQ(test, p[1], 2);
	KUNIT_EXPECT_EQ(test, p[2], 1);
	KUNIT_EXPECT_EQ(test, xnic_sim_parse_cable("2-7", 8, p), 0);
	KUNIT_EXPECT_EQ(test, p[7], 2);
	KUNIT_EXPECT_EQ(test, p[0], -1);
	/* errors */
	KUNIT_EXPECT_EQ(test, xnic_sim_parse_cable("0-0", 2, p), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_parse_cable("0-2", 2, p), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_parse_cable("0-1,1-2", 3, p), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_parse_cable("0-1,,2-3", 4, p),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_parse_cable("01", 2, p), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_parse_cable("a-b", 2, p), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_parse_cable("-1", 2, p), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_parse_cable("0-", 2, p), -EINVAL);
	KUNIT_EXPECT_EQ(test, xnic_sim_parse_cable("1000-1", 8, p), -EINVAL);
}

/* The Ethernet function's MAC, ring and producer index checks. */
static void port_eth(struct kunit *test)
{
	static const u8 want[6] = { 0x00, 0x58, 0x52, 0x00, 0x00, 0x01 };
	u8 mac[6], gid[16];

	/* the EUI-64 of the MAC is the GUID: link-local address = GID */
	xnic_sim_eth_mac(XNIC_SIM_GUID_BASE | 1, mac);
	KUNIT_EXPECT_EQ(test, memcmp(mac, want, 6), 0);
	xnic_sim_gid(XNIC_SIM_GUID_BASE | 1, gid);
	KUNIT_EXPECT_EQ(test, gid[8], mac[0] ^ 2);
	KUNIT_EXPECT_EQ(test, memcmp(gid + 9, mac + 1, 2), 0);
	KUNIT_EXPECT_EQ(test, gid[11], 0xff);
	KUNIT_EXPECT_EQ(test, gid[12], 0xfe);
	KUNIT_EXPECT_EQ(test, memcmp(gid + 13, mac + 3, 3), 0);

	KUNIT_EXPECT_TRUE(test, xnic_sim_eth_ring_ok(0x1000, 1));
	KUNIT_EXPECT_TRUE(test, xnic_sim_eth_ring_ok(0x1010, 12));
	KUNIT_EXPECT_FALSE(test, xnic_sim_eth_ring_ok(0, 4));
	KUNIT_EXPECT_FALSE(test, xnic_sim_eth_ring_ok(0x1008, 4));
	KUNIT_EXPECT_FALSE(test, xnic_sim_eth_ring_ok(0x1000, 0));
	KUNIT_EXPECT_FALSE(test, xnic_sim_eth_ring_ok(0x1000, 13));
	KUNIT_EXPECT_FALSE(test, xnic_sim_eth_ring_ok(0x1000, U32_MAX));

	/* at most one ring ahead, modulo 2^32 */
	KUNIT_EXPECT_TRUE(test, xnic_sim_eth_pi_ok(0, 0, 4));
	KUNIT_EXPECT_TRUE(test, xnic_sim_eth_pi_ok(0, 16, 4));
	KUNIT_EXPECT_FALSE(test, xnic_sim_eth_pi_ok(0, 17, 4));
	KUNIT_EXPECT_FALSE(test, xnic_sim_eth_pi_ok(5, 4, 4));
	KUNIT_EXPECT_TRUE(test, xnic_sim_eth_pi_ok(U32_MAX - 3, 12, 4));
	KUNIT_EXPECT_FALSE(test, xnic_sim_eth_pi_ok(U32_MAX - 3, 13, 4));
}

static void port_net_hdr(struct kunit *test)
{
	static const u8 v4a[16] = { [10] = 0xff, [11] = 0xff,
				    198, 18, 0, 1 };
	static const u8 v4b[16] = { [10] = 0xff, [11] = 0xff,
				    198, 18, 0, 2 };
	static const u8 zero[20];
	/* a header worked out by hand: 198.18.0.1 -> 198.18.0.2, 100 bytes */
	static const u8 want_ip[20] = {
		0x45, 0x00, 0x00, 0x80, 0x00, 0x00, 0x40, 0x00,
		0x40, 0x11, 0xae, 0x45, 198, 18, 0, 1, 198, 18, 0, 2,
	};
	u8 gid[16], hdr[40];

	xnic_sim_gid(0x025852fffe000001ULL, gid);
	/* RoCE v1: a GRH, next header 0x1b, traffic class and hop limit */
	KUNIT_EXPECT_EQ(test, xnic_sim_net_hdr(hdr, gid, XNIC_GID_TYPE_ROCE_V1,
					       gid, 300, 7, 0xa5),
			XNIC_CQE_NET_ROCE_V1);
	KUNIT_EXPECT_EQ(test, hdr[0], 0x6a);
	KUNIT_EXPECT_EQ(test, hdr[1] >> 4, 0x5);
	KUNIT_EXPECT_EQ(test, hdr[4] << 8 | hdr[5], 300);
	KUNIT_EXPECT_EQ(test, hdr[6], 0x1b);
	KUNIT_EXPECT_EQ(test, hdr[7], 7);
	KUNIT_EXPECT_EQ(test, memcmp(hdr + 8, gid, 16), 0);
	/* RoCE v2 over IPv6: the same with next header UDP */
	KUNIT_EXPECT_EQ(test, xnic_sim_net_hdr(hdr, gid, XNIC_GID_TYPE_ROCE_V2,
					       gid, 300, 64, 0),
			XNIC_CQE_NET_IPV6);
	KUNIT_EXPECT_EQ(test, hdr[0], 0x60);
	KUNIT_EXPECT_EQ(test, hdr[6], 17);
	KUNIT_EXPECT_EQ(test, hdr[7], 64);
	KUNIT_EXPECT_EQ(test, memcmp(hdr + 24, gid, 16), 0);
	/* an IPv4-mapped v1 GID is still a GRH */
	KUNIT_EXPECT_EQ(test, xnic_sim_net_hdr(hdr, v4a, XNIC_GID_TYPE_ROCE_V1,
					       v4b, 1, 1, 0),
			XNIC_CQE_NET_ROCE_V1);
	/* RoCE v2 over IPv4: 20 zero bytes, then the IPv4 header */
	memset(hdr, 0xee, sizeof(hdr));
	KUNIT_EXPECT_EQ(test, xnic_sim_net_hdr(hdr, v4a, XNIC_GID_TYPE_ROCE_V2,
					       v4b, 100, 64, 0),
			XNIC_CQE_NET_IPV4);
	KUNIT_EXPECT_EQ(test, memcmp(hdr, zero, 20), 0);
	KUNIT_EXPECT_EQ(test, memcmp(hdr + 20, want_ip, 20), 0);
	KUNIT_EXPECT_EQ(test, kt_ip_sum(hdr + 20), 0xffff);
	/* other values: the checksum stays right */
	KUNIT_EXPECT_EQ(test, xnic_sim_net_hdr(hdr, v4b, XNIC_GID_TYPE_ROCE_V2,
					       v4a, 4096, 255, 0xb8),
			XNIC_CQE_NET_IPV4);
	KUNIT_EXPECT_EQ(test, hdr[21], 0xb8);
	KUNIT_EXPECT_EQ(test, hdr[22] << 8 | hdr[23], 4096 + 28);
	KUNIT_EXPECT_EQ(test, hdr[28], 255);
	KUNIT_EXPECT_EQ(test, memcmp(hdr + 32, v4b + 12, 4), 0);
	KUNIT_EXPECT_EQ(test, memcmp(hdr + 36, v4a + 12, 4), 0);
	KUNIT_EXPECT_EQ(test, kt_ip_sum(hdr + 20), 0xffff);
}

static struct kunit_case port_cases[] = {
	KUNIT_CASE(port_gid_grh),
	KUNIT_CASE(port_net_hdr),
	KUNIT_CASE(port_cable),
	KUNIT_CASE(port_eth),
	{}
};

static struct kunit_suite port_suite = {
	.name = "xnic_sim_port",
	.test_cases = port_cases,
};

kunit_test_suite(port_suite);
