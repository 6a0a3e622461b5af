/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xnic_sim: RoCEv2 packets (IBTA vol. 1 ch. 9, Annex A17): the BTH
 * opcode table, building and parsing whole Ethernet frames (Ethernet /
 * IPv4 or IPv6 / UDP 4791 / BTH / extension headers / payload / pad /
 * ICRC) and the ICRC.  Pure functions over byte buffers, no device
 * state (xnic_sim_roce.c); the wire (xnic_sim_wire.c) moves the frames,
 * the transport (xnic_sim_wreq.c, xnic_sim_wresp.c) fills and reads
 * struct xnic_sim_pkt.  Included by xnic_sim.h.
 */
#ifndef _XNIC_SIM_ROCE_H
#define _XNIC_SIM_ROCE_H

#include <linux/types.h>
#include <linux/bits.h>

#define XNIC_SIM_ROCE_PORT	4791	/* UDP destination port */
#define XNIC_SIM_BTH_LEN	12
#define XNIC_SIM_ICRC_LEN	4
#define XNIC_SIM_DEFAULT_PKEY	0xffff
#define XNIC_SIM_DEFAULT_TTL	64

/* BTH opcodes: transport (bits 7..5) | operation (bits 4..0) */
#define XNIC_SIM_BTH_RC		0x00
#define XNIC_SIM_BTH_UC		0x20
#define XNIC_SIM_BTH_UD		0x60

enum xnic_sim_bth_op {
	XNIC_SIM_BTH_SEND_FIRST			= 0x00,
	XNIC_SIM_BTH_SEND_MIDDLE		= 0x01,
	XNIC_SIM_BTH_SEND_LAST			= 0x02,
	XNIC_SIM_BTH_SEND_LAST_IMM		= 0x03,
	XNIC_SIM_BTH_SEND_ONLY			= 0x04,
	XNIC_SIM_BTH_SEND_ONLY_IMM		= 0x05,
	XNIC_SIM_BTH_WRITE_FIRST		= 0x06,
	XNIC_SIM_BTH_WRITE_MIDDLE		= 0x07,
	XNIC_SIM_BTH_WRITE_LAST			= 0x08,
	XNIC_SIM_BTH_WRITE_LAST_IMM		= 0x09,
	XNIC_SIM_BTH_WRITE_ONLY			= 0x0a,
	XNIC_SIM_BTH_WRITE_ONLY_IMM		= 0x0b,
	XNIC_SIM_BTH_READ_REQUEST		= 0x0c,
	XNIC_SIM_BTH_READ_RESP_FIRST		= 0x0d,
	XNIC_SIM_BTH_READ_RESP_MIDDLE		= 0x0e,
	XNIC_SIM_BTH_READ_RESP_LAST		= 0x0f,
	XNIC_SIM_BTH_READ_RESP_ONLY		= 0x10,
	XNIC_SIM_BTH_ACK			= 0x11,
	XNIC_SIM_BTH_ATOMIC_ACK			= 0x12,
	XNIC_SIM_BTH_CMP_SWAP			= 0x13,
	XNIC_SIM_BTH_FETCH_ADD			= 0x14,
	XNIC_SIM_BTH_SEND_LAST_INV		= 0x16,
	XNIC_SIM_BTH_SEND_ONLY_INV		= 0x17,
	XNIC_SIM_BTH_FLUSH			= 0x1c,
	XNIC_SIM_BTH_ATOMIC_WRITE		= 0x1d,
};

/* What an opcode's packet carries and is (struct xnic_sim_opcode.mask) */
#define XNIC_SIM_PH_RETH	BIT(0)	/* RDMA extended header, 16 bytes */
#define XNIC_SIM_PH_AETH	BIT(1)	/* ACK extended header, 4 */
#define XNIC_SIM_PH_ATMETH	BIT(2)	/* atomic extended header, 28 */
#define XNIC_SIM_PH_ATMACK	BIT(3)	/* atomic ACK extended header, 8 */
#define XNIC_SIM_PH_IMM		BIT(4)	/* immediate data, 4 */
#define XNIC_SIM_PH_IETH	BIT(5)	/* invalidate extended header, 4 */
#define XNIC_SIM_PH_DETH	BIT(6)	/* datagram extended header, 8 */
#define XNIC_SIM_PH_FETH	BIT(7)	/* FLUSH extended header, 4 */
#define XNIC_SIM_PH_PAYLOAD	BIT(8)	/* may carry a payload */
#define XNIC_SIM_PH_REQ		BIT(9)	/* a request (the responder's) */
#define XNIC_SIM_PH_RESP	BIT(10)	/* a response (the requester's) */
#define XNIC_SIM_PH_FIRST	BIT(11)
#define XNIC_SIM_PH_MIDDLE	BIT(12)
#define XNIC_SIM_PH_LAST	BIT(13)
#define XNIC_SIM_PH_ONLY	BIT(14)
#define XNIC_SIM_PH_SEND	BIT(15)
#define XNIC_SIM_PH_WRITE	BIT(16)
#define XNIC_SIM_PH_READ	BIT(17)	/* READ request or response */
#define XNIC_SIM_PH_ATOMIC	BIT(18)	/* CMP_SWAP, FETCH_ADD (request) */
#define XNIC_SIM_PH_ACK		BIT(19)	/* ACK, ATOMIC_ACK (AETH only) */
#define XNIC_SIM_PH_START	(XNIC_SIM_PH_FIRST | XNIC_SIM_PH_ONLY)
#define XNIC_SIM_PH_END		(XNIC_SIM_PH_LAST | XNIC_SIM_PH_ONLY)

/**
 * struct xnic_sim_opcode - one BTH opcode
 * @name: as Wireshark names it, e.g. "RC Send Only"
 * @mask: XNIC_SIM_PH_*; 0 for an opcode the model does not know
 * @ext: bytes of the extension headers after the BTH
 */
struct xnic_sim_opcode {
	const char *name;
	u32 mask;
	u8 ext;
};

extern const struct xnic_sim_opcode xnic_sim_opcodes[256];

/* AETH syndromes (IBTA 9.7.5.1, Table 43): bits 7..5 of the syndrome */
#define XNIC_SIM_AETH_ACK	0x00	/* | credit count (0x1f: invalid) */
#define XNIC_SIM_AETH_RNR	0x20	/* | RNR timer code */
#define XNIC_SIM_AETH_NAK	0x60	/* | one of: */
#define XNIC_SIM_NAK_PSN_SEQ	0x00
#define XNIC_SIM_NAK_INV_REQ	0x01
#define XNIC_SIM_NAK_REM_ACCESS	0x02
#define XNIC_SIM_NAK_REM_OP	0x03
#define XNIC_SIM_NAK_INV_RD_REQ	0x04
#define XNIC_SIM_AETH_TYPE(s)	((s) & 0x60)

/**
 * struct xnic_sim_pkt - one RoCEv2 packet, parsed or to be built
 *
 * Network: @ipv4 chooses IPv4 (GIDs are IPv4-mapped: ::ffff:a.b.c.d,
 * the address in bytes 12..15) or IPv6.  All numbers in CPU order.
 * Which extension fields are meaningful follows xnic_sim_opcodes[
 * @opcode].mask.
 *
 * @dmac: destination MAC
 * @smac: source MAC
 * @ipv4: IPv4 (else IPv6)
 * @sgid: source address as a GID
 * @dgid: destination address as a GID
 * @tclass: IPv4 TOS / IPv6 traffic class
 * @hop_limit: IPv4 TTL / IPv6 hop limit
 * @flow_label: IPv6 flow label (20 bits)
 * @sport: UDP source port (flow entropy)
 * @opcode: BTH opcode
 * @se: solicited event
 * @migreq: MigReq
 * @pad: pad count (0..3); parse: as received, build: computed
 * @tver: transport header version (0)
 * @pkey: partition key
 * @becn: FECN and BECN (BTH byte 4, bits 7..6): F << 1 | B
 * @dqpn: destination QP (24 bits)
 * @ackreq: AckReq
 * @psn: packet sequence number (24 bits)
 * @va: RETH or AtomicETH virtual address
 * @rkey: RETH or AtomicETH remote key
 * @dma_len: RETH DMA length
 * @syndrome: AETH syndrome
 * @msn: AETH message sequence number (24 bits)
 * @swap_add: AtomicETH swap (CMP_SWAP) or add (FETCH_ADD) data
 * @cmp: AtomicETH compare data
 * @orig: AtomicAckETH original remote data
 * @imm: ImmDt, as on the wire (big-endian)
 * @ieth: IETH: the rkey to invalidate
 * @qkey: DETH Q_Key
 * @sqpn: DETH source QP (24 bits)
 * @feth: FLUSH extended header (type and level, as on the wire)
 * @payload: parse: the payload inside the frame; build: unused
 * @paylen: payload bytes (without pad and ICRC)
 */
struct xnic_sim_pkt {
	u8 dmac[6];
	u8 smac[6];
	bool ipv4;
	u8 sgid[16];
	u8 dgid[16];
	u8 tclass;
	u8 hop_limit;
	u32 flow_label;
	u16 sport;

	u8 opcode;
	bool se;
	bool migreq;
	u8 pad;
	u8 tver;
	u16 pkey;
	u8 becn;
	u32 dqpn;
	bool ackreq;
	u32 psn;

	u64 va;
	u32 rkey;
	u32 dma_len;
	u8 syndrome;
	u32 msn;
	u64 swap_add;
	u64 cmp;
	u64 orig;
	__be32 imm;
	u32 ieth;
	u32 qkey;
	u32 sqpn;
	u32 feth;

	const u8 *payload;
	u32 paylen;
};

/* Why xnic_sim_pkt_parse() refused a frame (each one a wire counter) */
enum xnic_sim_drop {
	XNIC_SIM_DROP_NONE = 0,
	XNIC_SIM_DROP_NOT_ROCE,		/* not IPv4/IPv6 UDP to port 4791 */
	XNIC_SIM_DROP_MALFORMED,	/* lengths, IP header, BTH version */
	XNIC_SIM_DROP_OPCODE,		/* an opcode the model does not know */
	XNIC_SIM_DROP_ICRC,		/* bad ICRC */
	XNIC_SIM_DROP_NUM
};

/* xnic_sim_roce.c */

/* Bytes from the Ethernet header to the payload (no VLAN tag built). */
u32 xnic_sim_pkt_hdr_len(const struct xnic_sim_pkt *p);
/* Bytes of the whole frame: headers, @p->paylen, pad, ICRC. */
u32 xnic_sim_pkt_frame_len(const struct xnic_sim_pkt *p);
/*
 * Write every header of @p into @frame (xnic_sim_pkt_frame_len() bytes,
 * the payload at xnic_sim_pkt_hdr_len() is the caller's): Ethernet,
 * IPv4 (DF, checksum) or IPv6, UDP (checksum 0), BTH (pad computed from
 * @p->paylen) and the extension headers of @p->opcode.
 */
void xnic_sim_pkt_write_hdr(u8 *frame, const struct xnic_sim_pkt *p);
/* Once the payload is in: zero the pad bytes and append the ICRC. */
void xnic_sim_pkt_seal(u8 *frame, const struct xnic_sim_pkt *p);
/*
 * Parse an Ethernet frame of @len bytes (an 802.1Q tag is skipped) into
 * @p, checking every length, the IP header, UDP port 4791, the BTH
 * version, the opcode and the ICRC.  @p->payload points into @frame.
 * Return: XNIC_SIM_DROP_NONE, or why the frame is dropped.
 */
enum xnic_sim_drop xnic_sim_pkt_parse(const u8 *frame, u32 len,
				      struct xnic_sim_pkt *p);
/*
 * The ICRC of a frame whose IP header is at @ip and whose @len bytes
 * run from there to the end of the pad (the ICRC's four bytes after
 * them), Annex A17.3.3: the masked IP, UDP and BTH fields as ones.
 * Return: the value as it is written on the wire (little-endian bytes).
 */
__le32 xnic_sim_icrc(const u8 *ip, u32 len, bool ipv4);
/* The UDP source port of a flow: 0xc000 | hash of the QP numbers. */
u16 xnic_sim_roce_sport(u32 qpn, u32 dqpn);
/* Whether the GID is IPv4-mapped (::ffff:a.b.c.d). */
bool xnic_sim_gid_is_v4(const u8 *gid);

#endif /* _XNIC_SIM_ROCE_H */
