// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_sim: RoCEv2 packets (xnic_sim_roce.h).  To be written.
 */
#include <linux/kernel.h>
#include "xnic_sim.h"

const struct xnic_sim_opcode xnic_sim_opcodes[256];

u32 xnic_sim_pkt_hdr_len(const struct xnic_sim_pkt *p)
{
	return 0;
}

u32 xnic_sim_pkt_frame_len(const struct xnic_sim_pkt *p)
{
	return 0;
}

void xnic_sim_pkt_write_hdr(u8 *frame, const struct xnic_sim_pkt *p)
{
}

void xnic_sim_pkt_seal(u8 *frame, const struct xnic_sim_pkt *p)
{
}

enum xnic_sim_drop xnic_sim_pkt_parse(const u8 *frame, u32 len,
				      struct xnic_sim_pkt *p)
{
	return XNIC_SIM_DROP_NOT_ROCE;
}

__le32 xnic_sim_icrc(const u8 *ip, u32 len, bool ipv4)
{
	return 0;
}

u16 xnic_sim_roce_sport(u32 qpn, u32 dqpn)
{
	return 0xc000;
}

bool xnic_sim_gid_is_v4(const u8 *gid)
{
	return false;
}
