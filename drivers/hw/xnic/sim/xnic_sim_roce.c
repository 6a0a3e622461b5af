// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_sim: RoCEv2 packets (xnic_sim_roce.h): the BTH opcode table, the
 * frame builder and parser, the ICRC.
 *
 * Layout of a frame (IBTA vol. 1 ch. 9 and Annex A17, as Linux's rxe
 * sends it: rxe_net.c, rxe_hdr.h, rxe_opcode.c, rxe_icrc.c):
 *   Ethernet 14 (+ 4 for one 802.1Q tag, accepted, never sent)
 *   IPv4 20 (options accepted, never sent) or IPv6 40
 *   UDP 8 (destination port 4791, checksum 0)
 *   BTH 12, then the extension headers in this order: DETH 8, RETH 16,
 *   AtomicETH 28, AETH 4, AtomicAckETH 8, ImmDt 4, IETH 4
 *   payload, pad (0..3 bytes, to a multiple of 4), ICRC 4
 * The parser trusts no length of the frame: every field is read only
 * after the bytes it lies in are known to be inside @len, and the
 * RoCE packet's extent is the one IP declares (Ethernet pads short
 * frames to 60 bytes).
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/crc32.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <xrdma/compat.h>
#include "xnic_sim.h"

#define ETH_LEN		ETH_HLEN
#define VLAN_LEN	4
#define IP4_LEN		20
#define IP6_LEN		40
#define UDP_LEN		8
#define DETH_LEN	8
#define RETH_LEN	16
#define ATMETH_LEN	28
#define AETH_LEN	4
#define ATMACK_LEN	8
#define IMM_LEN		4
#define IETH_LEN	4

/* IPv4 flags and fragment offset (net/ip.h) */
#define IP4_DF		0x4000
#define IP4_MF		0x2000
#define IP4_OFFSET	0x1fff

/* BTH byte 4 (F, B, resv6) is resv8a of the ICRC: masked */
#define BTH_RESV8A	4

#define REQ_SEND	(XNIC_SIM_PH_PAYLOAD | XNIC_SIM_PH_REQ | XNIC_SIM_PH_SEND)
#define REQ_WRITE	(XNIC_SIM_PH_PAYLOAD | XNIC_SIM_PH_REQ | XNIC_SIM_PH_WRITE)
#define RESP_READ	(XNIC_SIM_PH_RESP | XNIC_SIM_PH_READ)

#define OP(tr, op, nm, m, e) \
	[XNIC_SIM_BTH_##tr | XNIC_SIM_BTH_##op] = { \
		.name = #tr " " nm, .mask = (m), .ext = (e) }

/*
 * The opcodes of RC, UC and UD that rxe knows (rxe_opcode.c), named as
 * Wireshark's InfiniBand dissector prints them in its Info column.  XRC
 * is refused on the wire; FLUSH and ATOMIC WRITE are named but unknown
 * to the model (mask 0: dropped as XNIC_SIM_DROP_OPCODE).
 */
const struct xnic_sim_opcode xnic_sim_opcodes[256] = {
	OP(RC, SEND_FIRST, "Send First", REQ_SEND | XNIC_SIM_PH_FIRST, 0),
	OP(RC, SEND_MIDDLE, "Send Middle", REQ_SEND | XNIC_SIM_PH_MIDDLE, 0),
	OP(RC, SEND_LAST, "Send Last", REQ_SEND | XNIC_SIM_PH_LAST, 0),
	OP(RC, SEND_LAST_IMM, "Send Last Immediate",
	   REQ_SEND | XNIC_SIM_PH_LAST | XNIC_SIM_PH_IMM, IMM_LEN),
	OP(RC, SEND_ONLY, "Send Only", REQ_SEND | XNIC_SIM_PH_ONLY, 0),
	OP(RC, SEND_ONLY_IMM, "Send Only Immediate",
	   REQ_SEND | XNIC_SIM_PH_ONLY | XNIC_SIM_PH_IMM, IMM_LEN),
	OP(RC, WRITE_FIRST, "RDMA Write First",
	   REQ_WRITE | XNIC_SIM_PH_FIRST | XNIC_SIM_PH_RETH, RETH_LEN),
	OP(RC, WRITE_MIDDLE, "RDMA Write Middle",
	   REQ_WRITE | XNIC_SIM_PH_MIDDLE, 0),
	OP(RC, WRITE_LAST, "RDMA Write Last", REQ_WRITE | XNIC_SIM_PH_LAST, 0),
	OP(RC, WRITE_LAST_IMM, "RDMA Write Last Immediate",
	   REQ_WRITE | XNIC_SIM_PH_LAST | XNIC_SIM_PH_IMM, IMM_LEN),
	OP(RC, WRITE_ONLY, "RDMA Write Only",
	   REQ_WRITE | XNIC_SIM_PH_ONLY | XNIC_SIM_PH_RETH, RETH_LEN),
	OP(RC, WRITE_ONLY_IMM, "RDMA Write Only Immediate",
	   REQ_WRITE | XNIC_SIM_PH_ONLY | XNIC_SIM_PH_RETH | XNIC_SIM_PH_IMM,
	   RETH_LEN + IMM_LEN),
	OP(RC, READ_REQUEST, "RDMA Read Request",
	   XNIC_SIM_PH_REQ | XNIC_SIM_PH_READ | XNIC_SIM_PH_ONLY |
	   XNIC_SIM_PH_RETH, RETH_LEN),
	OP(RC, READ_RESP_FIRST, "RDMA Read Response First",
	   RESP_READ | XNIC_SIM_PH_PAYLOAD | XNIC_SIM_PH_FIRST |
	   XNIC_SIM_PH_AETH, AETH_LEN),
	OP(RC, READ_RESP_MIDDLE, "RDMA Read Response Middle",
	   RESP_READ | XNIC_SIM_PH_PAYLOAD | XNIC_SIM_PH_MIDDLE, 0),
	OP(RC, READ_RESP_LAST, "RDMA Read Response Last",
	   RESP_READ | XNIC_SIM_PH_PAYLOAD | XNIC_SIM_PH_LAST |
	   XNIC_SIM_PH_AETH, AETH_LEN),
	OP(RC, READ_RESP_ONLY, "RDMA Read Response Only",
	   RESP_READ | XNIC_SIM_PH_PAYLOAD | XNIC_SIM_PH_ONLY |
	   XNIC_SIM_PH_AETH, AETH_LEN),
	OP(RC, ACK, "Acknowledge",
	   XNIC_SIM_PH_RESP | XNIC_SIM_PH_ACK | XNIC_SIM_PH_ONLY |
	   XNIC_SIM_PH_AETH, AETH_LEN),
	OP(RC, ATOMIC_ACK, "Atomic Acknowledge",
	   XNIC_SIM_PH_RESP | XNIC_SIM_PH_ACK | XNIC_SIM_PH_ONLY |
	   XNIC_SIM_PH_AETH | XNIC_SIM_PH_ATMACK, AETH_LEN + ATMACK_LEN),
	OP(RC, CMP_SWAP, "Compare Swap",
	   XNIC_SIM_PH_REQ | XNIC_SIM_PH_ATOMIC | XNIC_SIM_PH_ONLY |
	   XNIC_SIM_PH_ATMETH, ATMETH_LEN),
	OP(RC, FETCH_ADD, "Fetch Add",
	   XNIC_SIM_PH_REQ | XNIC_SIM_PH_ATOMIC | XNIC_SIM_PH_ONLY |
	   XNIC_SIM_PH_ATMETH, ATMETH_LEN),
	OP(RC, SEND_LAST_INV, "Send Last Invalidate",
	   REQ_SEND | XNIC_SIM_PH_LAST | XNIC_SIM_PH_IETH, IETH_LEN),
	OP(RC, SEND_ONLY_INV, "Send Only Invalidate",
	   REQ_SEND | XNIC_SIM_PH_ONLY | XNIC_SIM_PH_IETH, IETH_LEN),
	OP(RC, FLUSH, "Flush", 0, 0),
	OP(RC, ATOMIC_WRITE, "Atomic Write", 0, 0),
	OP(UC, SEND_FIRST, "Send First", REQ_SEND | XNIC_SIM_PH_FIRST, 0),
	OP(UC, SEND_MIDDLE, "Send Middle", REQ_SEND | XNIC_SIM_PH_MIDDLE, 0),
	OP(UC, SEND_LAST, "Send Last", REQ_SEND | XNIC_SIM_PH_LAST, 0),
	OP(UC, SEND_LAST_IMM, "Send Last Immediate",
	   REQ_SEND | XNIC_SIM_PH_LAST | XNIC_SIM_PH_IMM, IMM_LEN),
	OP(UC, SEND_ONLY, "Send Only", REQ_SEND | XNIC_SIM_PH_ONLY, 0),
	OP(UC, SEND_ONLY_IMM, "Send Only Immediate",
	   REQ_SEND | XNIC_SIM_PH_ONLY | XNIC_SIM_PH_IMM, IMM_LEN),
	OP(UC, WRITE_FIRST, "RDMA Write First",
	   REQ_WRITE | XNIC_SIM_PH_FIRST | XNIC_SIM_PH_RETH, RETH_LEN),
	OP(UC, WRITE_MIDDLE, "RDMA Write Middle",
	   REQ_WRITE | XNIC_SIM_PH_MIDDLE, 0),
	OP(UC, WRITE_LAST, "RDMA Write Last", REQ_WRITE | XNIC_SIM_PH_LAST, 0),
	OP(UC, WRITE_LAST_IMM, "RDMA Write Last Immediate",
	   REQ_WRITE | XNIC_SIM_PH_LAST | XNIC_SIM_PH_IMM, IMM_LEN),
	OP(UC, WRITE_ONLY, "RDMA Write Only",
	   REQ_WRITE | XNIC_SIM_PH_ONLY | XNIC_SIM_PH_RETH, RETH_LEN),
	OP(UC, WRITE_ONLY_IMM, "RDMA Write Only Immediate",
	   REQ_WRITE | XNIC_SIM_PH_ONLY | XNIC_SIM_PH_RETH | XNIC_SIM_PH_IMM,
	   RETH_LEN + IMM_LEN),
	OP(UD, SEND_ONLY, "Send Only",
	   REQ_SEND | XNIC_SIM_PH_ONLY | XNIC_SIM_PH_DETH, DETH_LEN),
	OP(UD, SEND_ONLY_IMM, "Send Only Immediate",
	   REQ_SEND | XNIC_SIM_PH_ONLY | XNIC_SIM_PH_DETH | XNIC_SIM_PH_IMM,
	   DETH_LEN + IMM_LEN),
};

static u32 ip_len(bool ipv4)
{
	return ipv4 ? IP4_LEN : IP6_LEN;
}

/* pad to a multiple of 4 bytes (BTH PadCnt) */
static u8 pkt_pad(u32 paylen)
{
	return -paylen & 3;
}

static void put_be24(u32 v, u8 *b)
{
	b[0] = v >> 16;
	b[1] = v >> 8;
	b[2] = v;
}

static u32 get_be24(const u8 *b)
{
	return (u32)b[0] << 16 | (u32)b[1] << 8 | b[2];
}

u32 xnic_sim_pkt_hdr_len(const struct xnic_sim_pkt *p)
{
	return ETH_LEN + ip_len(p->ipv4) + UDP_LEN + XNIC_SIM_BTH_LEN +
	       xnic_sim_opcodes[p->opcode].ext;
}

u32 xnic_sim_pkt_frame_len(const struct xnic_sim_pkt *p)
{
	return xnic_sim_pkt_hdr_len(p) + p->paylen + pkt_pad(p->paylen) +
	       XNIC_SIM_ICRC_LEN;
}

/* the extension headers of @p->opcode, in their order on the wire */
static void put_ext(u8 *h, const struct xnic_sim_pkt *p, u32 mask)
{
	if (mask & XNIC_SIM_PH_DETH) {
		put_unaligned_be32(p->qkey, h);
		put_unaligned_be32(p->sqpn & 0xffffff, h + 4);
		h += DETH_LEN;
	}
	if (mask & XNIC_SIM_PH_RETH) {
		put_unaligned_be64(p->va, h);
		put_unaligned_be32(p->rkey, h + 8);
		put_unaligned_be32(p->dma_len, h + 12);
		h += RETH_LEN;
	}
	if (mask & XNIC_SIM_PH_ATMETH) {
		put_unaligned_be64(p->va, h);
		put_unaligned_be32(p->rkey, h + 8);
		put_unaligned_be64(p->swap_add, h + 12);
		put_unaligned_be64(p->cmp, h + 20);
		h += ATMETH_LEN;
	}
	if (mask & XNIC_SIM_PH_AETH) {
		h[0] = p->syndrome;
		put_be24(p->msn, h + 1);
		h += AETH_LEN;
	}
	if (mask & XNIC_SIM_PH_ATMACK) {
		put_unaligned_be64(p->orig, h);
		h += ATMACK_LEN;
	}
	if (mask & XNIC_SIM_PH_IMM) {
		memcpy(h, &p->imm, IMM_LEN);
		h += IMM_LEN;
	}
	if (mask & XNIC_SIM_PH_IETH)
		put_unaligned_be32(p->ieth, h);
}

static void get_ext(const u8 *h, struct xnic_sim_pkt *p, u32 mask)
{
	if (mask & XNIC_SIM_PH_DETH) {
		p->qkey = get_unaligned_be32(h);
		p->sqpn = get_be24(h + 5);
		h += DETH_LEN;
	}
	if (mask & XNIC_SIM_PH_RETH) {
		p->va = get_unaligned_be64(h);
		p->rkey = get_unaligned_be32(h + 8);
		p->dma_len = get_unaligned_be32(h + 12);
		h += RETH_LEN;
	}
	if (mask & XNIC_SIM_PH_ATMETH) {
		p->va = get_unaligned_be64(h);
		p->rkey = get_unaligned_be32(h + 8);
		p->swap_add = get_unaligned_be64(h + 12);
		p->cmp = get_unaligned_be64(h + 20);
		h += ATMETH_LEN;
	}
	if (mask & XNIC_SIM_PH_AETH) {
		p->syndrome = h[0];
		p->msn = get_be24(h + 1);
		h += AETH_LEN;
	}
	if (mask & XNIC_SIM_PH_ATMACK) {
		p->orig = get_unaligned_be64(h);
		h += ATMACK_LEN;
	}
	if (mask & XNIC_SIM_PH_IMM) {
		memcpy(&p->imm, h, IMM_LEN);
		h += IMM_LEN;
	}
	if (mask & XNIC_SIM_PH_IETH)
		p->ieth = get_unaligned_be32(h);
}

void xnic_sim_pkt_write_hdr(u8 *frame, const struct xnic_sim_pkt *p)
{
	u32 flen = xnic_sim_pkt_frame_len(p);
	u32 iplen = flen - ETH_LEN;
	u32 udplen = iplen - ip_len(p->ipv4);
	u8 *ip = frame + ETH_LEN;
	u8 *udp = ip + ip_len(p->ipv4);
	u8 *bth = udp + UDP_LEN;

	memcpy(frame, p->dmac, ETH_ALEN);
	memcpy(frame + ETH_ALEN, p->smac, ETH_ALEN);
	if (p->ipv4) {
		put_unaligned_be16(ETH_P_IP, frame + 12);
		ip[0] = 0x45;
		ip[1] = p->tclass;
		put_unaligned_be16(iplen, ip + 2);
		put_unaligned_be16(0, ip + 4);		/* id */
		put_unaligned_be16(IP4_DF, ip + 6);
		ip[8] = p->hop_limit;
		ip[9] = IPPROTO_UDP;
		put_unaligned_be16(0, ip + 10);
		memcpy(ip + 12, p->sgid + 12, 4);
		memcpy(ip + 16, p->dgid + 12, 4);
		put_unaligned((__force u16)ip_fast_csum(ip, IP4_LEN / 4),
			      (u16 *)(ip + 10));
	} else {
		put_unaligned_be16(ETH_P_IPV6, frame + 12);
		put_unaligned_be32(6U << 28 | (u32)p->tclass << 20 |
				   (p->flow_label & 0xfffff), ip);
		put_unaligned_be16(udplen, ip + 4);
		ip[6] = IPPROTO_UDP;
		ip[7] = p->hop_limit;
		memcpy(ip + 8, p->sgid, 16);
		memcpy(ip + 24, p->dgid, 16);
	}
	put_unaligned_be16(p->sport, udp);
	put_unaligned_be16(XNIC_SIM_ROCE_PORT, udp + 2);
	put_unaligned_be16(udplen, udp + 4);
	put_unaligned_be16(0, udp + 6);		/* as rxe, IPv4 and IPv6 */

	bth[0] = p->opcode;
	bth[1] = (p->se ? 0x80 : 0) | (p->migreq ? 0x40 : 0) |
		 pkt_pad(p->paylen) << 4;	/* TVer 0 */
	put_unaligned_be16(p->pkey, bth + 2);
	bth[4] = (p->becn & 3) << 6;
	put_be24(p->dqpn, bth + 5);
	bth[8] = p->ackreq ? 0x80 : 0;
	put_be24(p->psn, bth + 9);
	put_ext(bth + XNIC_SIM_BTH_LEN, p, xnic_sim_opcodes[p->opcode].mask);
}

void xnic_sim_pkt_seal(u8 *frame, const struct xnic_sim_pkt *p)
{
	u32 end = xnic_sim_pkt_hdr_len(p) + p->paylen;
	u8 pad = pkt_pad(p->paylen);
	__le32 icrc;

	memset(frame + end, 0, pad);
	end += pad;
	icrc = xnic_sim_icrc(frame + ETH_LEN, end - ETH_LEN, p->ipv4);
	memcpy(frame + end, &icrc, XNIC_SIM_ICRC_LEN);
}

__le32 xnic_sim_icrc(const u8 *ip, u32 len, bool ipv4)
{
	u8 buf[IP6_LEN];
	u32 ihl = ipv4 ? (ip[0] & 0xf) * 4 : IP6_LEN;
	u32 crc, n;

	/*
	 * rxe's seed: the CRC (seeded with ones) of the 8 bytes of ones
	 * standing for the masked LRH of Annex A17.3.3.
	 */
	crc = 0xdebb20e3;

	/* the IP header, its variant fields as ones */
	n = min_t(u32, len, ipv4 ? IP4_LEN : IP6_LEN);
	memcpy(buf, ip, n);
	if (ipv4) {
		buf[1] = 0xff;			/* TOS */
		buf[8] = 0xff;			/* TTL */
		buf[10] = 0xff;			/* header checksum */
		buf[11] = 0xff;
	} else {
		buf[0] |= 0x0f;			/* traffic class, */
		buf[1] = 0xff;			/* flow label */
		buf[2] = 0xff;
		buf[3] = 0xff;
		buf[7] = 0xff;			/* hop limit */
	}
	crc = crc32_le(crc, buf, n);
	/* IPv4 options as they are */
	if (ihl > n && len > n) {
		crc = crc32_le(crc, ip + n, min(ihl, len) - n);
		n = min(ihl, len);
	}
	/* UDP, its checksum as ones */
	if (len >= n + UDP_LEN) {
		memcpy(buf, ip + n, UDP_LEN);
		buf[6] = 0xff;
		buf[7] = 0xff;
		crc = crc32_le(crc, buf, UDP_LEN);
		n += UDP_LEN;
	}
	/* BTH, its resv8a as ones */
	if (len >= n + XNIC_SIM_BTH_LEN) {
		memcpy(buf, ip + n, XNIC_SIM_BTH_LEN);
		buf[BTH_RESV8A] = 0xff;
		crc = crc32_le(crc, buf, XNIC_SIM_BTH_LEN);
		n += XNIC_SIM_BTH_LEN;
	}
	/* the rest: extension headers, payload, pad */
	if (len > n)
		crc = crc32_le(crc, ip + n, len - n);
	return cpu_to_le32(~crc);
}

/*
 * The IP header at @ip, @len bytes from it to the frame's end: fill
 * @p's network fields, set *@l4 and *@l4len to the UDP datagram as IP
 * declares it.
 */
static enum xnic_sim_drop parse_ipv4(const u8 *ip, u32 len,
				     struct xnic_sim_pkt *p,
				     const u8 **l4, u32 *l4len)
{
	u32 ihl, tot;

	if (len < IP4_LEN || ip[0] >> 4 != 4)
		return XNIC_SIM_DROP_MALFORMED;
	ihl = (ip[0] & 0xf) * 4;
	tot = get_unaligned_be16(ip + 2);
	if (ihl < IP4_LEN || tot < ihl || tot > len)
		return XNIC_SIM_DROP_MALFORMED;
	if (ip[9] != IPPROTO_UDP)
		return XNIC_SIM_DROP_NOT_ROCE;
	/* no fragments (MF or an offset), a valid header checksum */
	if (get_unaligned_be16(ip + 6) & (IP4_MF | IP4_OFFSET) ||
	    ip_fast_csum(ip, ihl / 4))
		return XNIC_SIM_DROP_MALFORMED;
	p->ipv4 = true;
	p->tclass = ip[1];
	p->hop_limit = ip[8];
	p->sgid[10] = 0xff;
	p->sgid[11] = 0xff;
	memcpy(p->sgid + 12, ip + 12, 4);
	p->dgid[10] = 0xff;
	p->dgid[11] = 0xff;
	memcpy(p->dgid + 12, ip + 16, 4);
	*l4 = ip + ihl;
	*l4len = tot - ihl;
	return XNIC_SIM_DROP_NONE;
}

static enum xnic_sim_drop parse_ipv6(const u8 *ip, u32 len,
				     struct xnic_sim_pkt *p,
				     const u8 **l4, u32 *l4len)
{
	u32 w, plen;

	if (len < IP6_LEN)
		return XNIC_SIM_DROP_MALFORMED;
	w = get_unaligned_be32(ip);
	plen = get_unaligned_be16(ip + 4);
	if (w >> 28 != 6 || plen > len - IP6_LEN)
		return XNIC_SIM_DROP_MALFORMED;
	/* no extension headers */
	if (ip[6] != IPPROTO_UDP)
		return XNIC_SIM_DROP_NOT_ROCE;
	p->ipv4 = false;
	p->tclass = w >> 20;
	p->flow_label = w & 0xfffff;
	p->hop_limit = ip[7];
	memcpy(p->sgid, ip + 8, 16);
	memcpy(p->dgid, ip + 24, 16);
	*l4 = ip + IP6_LEN;
	*l4len = plen;
	return XNIC_SIM_DROP_NONE;
}

enum xnic_sim_drop xnic_sim_pkt_parse(const u8 *frame, u32 len,
				      struct xnic_sim_pkt *p)
{
	const struct xnic_sim_opcode *op;
	enum xnic_sim_drop drop;
	u32 off = ETH_LEN, l4len, ulen, rest;
	const u8 *ip, *l4, *bth;
	u16 type;

	memset(p, 0, sizeof(*p));
	if (len < ETH_LEN)
		return XNIC_SIM_DROP_MALFORMED;
	type = get_unaligned_be16(frame + 12);
	if (type == ETH_P_8021Q) {
		if (len < ETH_LEN + VLAN_LEN)
			return XNIC_SIM_DROP_MALFORMED;
		type = get_unaligned_be16(frame + 16);
		off += VLAN_LEN;
	}
	ip = frame + off;
	if (type == ETH_P_IP)
		drop = parse_ipv4(ip, len - off, p, &l4, &l4len);
	else if (type == ETH_P_IPV6)
		drop = parse_ipv6(ip, len - off, p, &l4, &l4len);
	else
		return XNIC_SIM_DROP_NOT_ROCE;
	if (drop)
		return drop;

	/* UDP to 4791, its length the one IP declares */
	if (l4len < UDP_LEN)
		return XNIC_SIM_DROP_MALFORMED;
	if (get_unaligned_be16(l4 + 2) != XNIC_SIM_ROCE_PORT)
		return XNIC_SIM_DROP_NOT_ROCE;
	ulen = get_unaligned_be16(l4 + 4);
	if (ulen != l4len ||
	    ulen < UDP_LEN + XNIC_SIM_BTH_LEN + XNIC_SIM_ICRC_LEN)
		return XNIC_SIM_DROP_MALFORMED;
	p->sport = get_unaligned_be16(l4);

	/* the ICRC covers everything from the IP header to the pad */
	if (xnic_sim_icrc(ip, l4 + ulen - XNIC_SIM_ICRC_LEN - ip, p->ipv4) !=
	    get_unaligned((const __le32 *)(l4 + ulen - XNIC_SIM_ICRC_LEN)))
		return XNIC_SIM_DROP_ICRC;

	memcpy(p->dmac, frame, ETH_ALEN);
	memcpy(p->smac, frame + ETH_ALEN, ETH_ALEN);
	bth = l4 + UDP_LEN;
	p->opcode = bth[0];
	p->se = bth[1] & 0x80;
	p->migreq = bth[1] & 0x40;
	p->pad = (bth[1] >> 4) & 3;
	p->tver = bth[1] & 0xf;
	p->pkey = get_unaligned_be16(bth + 2);
	p->becn = bth[4] >> 6;
	p->dqpn = get_be24(bth + 5);
	p->ackreq = bth[8] & 0x80;
	p->psn = get_be24(bth + 9);
	if (p->tver)
		return XNIC_SIM_DROP_MALFORMED;
	op = &xnic_sim_opcodes[p->opcode];
	if (!op->mask)
		return XNIC_SIM_DROP_OPCODE;

	/* extension headers, payload and pad between BTH and ICRC */
	rest = ulen - UDP_LEN - XNIC_SIM_BTH_LEN - XNIC_SIM_ICRC_LEN;
	if (rest < op->ext + p->pad)
		return XNIC_SIM_DROP_MALFORMED;
	p->paylen = rest - op->ext - p->pad;
	if (pkt_pad(p->paylen) != p->pad ||
	    (!(op->mask & XNIC_SIM_PH_PAYLOAD) && p->paylen))
		return XNIC_SIM_DROP_MALFORMED;
	get_ext(bth + XNIC_SIM_BTH_LEN, p, op->mask);
	p->payload = bth + XNIC_SIM_BTH_LEN + op->ext;
	return XNIC_SIM_DROP_NONE;
}

/* rdma_get_udp_sport() without a flow label (ib_verbs.h) */
u16 xnic_sim_roce_sport(u32 qpn, u32 dqpn)
{
	u64 v = (u64)qpn * dqpn;
	u32 fl;

	v ^= v >> 20;
	v ^= v >> 40;
	fl = v & 0xfffff;
	return ((fl & 0x3fff) ^ (fl >> 14)) | 0xc000;
}

bool xnic_sim_gid_is_v4(const u8 *gid)
{
	static const u8 prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(gid, prefix, sizeof(prefix));
}
