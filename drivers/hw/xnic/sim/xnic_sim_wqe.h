/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xnic_sim: work queue entries as the device reads them (xnic_sim_wqe.c:
 * the formats of Documentation/xnic/queues.rst that the driver's
 * xnic_wqe.c encodes).  Included by xnic_sim.h.
 */
#ifndef _XNIC_SIM_WQE_H
#define _XNIC_SIM_WQE_H

#include <linux/types.h>
#include <xrdma/xnic_hw.h>
#include "xnic_sim_mem.h"

struct xnic_sim_dev;
struct xnic_sim_qp;

/**
 * struct xnic_sim_swqe - a send WQE, decoded from a private copy
 * @opcode: XNIC_OP_*
 * @flags: XNIC_WQE_*
 * @num_sge: SGEs at @sge
 * @inline_len: bytes at @inline_data
 * @wr_id: echoed in the CQE
 * @imm: immediate data or rkey to invalidate, as stored
 * @remote_addr: RDMA and atomic target
 * @rkey: its key
 * @compare_add: atomic operand
 * @swap: atomic operand
 * @flush_len: FLUSH: bytes of the range
 * @flush_type: FLUSH: XNIC_FLUSH_GLOBAL, XNIC_FLUSH_PERSISTENT
 * @flush_level: FLUSH: XNIC_FLUSH_RANGE or XNIC_FLUSH_MR
 * @dest_qpn: UD destination
 * @remote_srqn: XRC_INI: the target's XRC SRQ
 * @qkey: UD key
 * @dgid: UD destination port
 * @sgid_index: UD source GID table entry
 * @hop_limit: UD GRH hop limit / IPv4 TTL
 * @tclass: UD GRH traffic class / IPv4 TOS
 * @fr: REG_MR fields (CPU order)
 * @bind: BIND_MW fields (CPU order)
 * @sge: the SGEs, in the copy
 * @inline_data: the inline data, in the copy
 */
struct xnic_sim_swqe {
	u8 opcode;
	u8 flags;
	u8 num_sge;
	u32 inline_len;
	u64 wr_id;
	__le32 imm;
	u64 remote_addr;
	u32 rkey;
	u64 compare_add;
	u64 swap;
	u32 flush_len;
	u8 flush_type;
	u8 flush_level;
	u32 dest_qpn;
	u32 remote_srqn;
	u32 qkey;
	u8 dgid[16];
	u8 sgid_index;
	u8 hop_limit;
	u8 tclass;
	struct {
		u64 mtt_addr;
		u64 iova;
		u64 length;
		u32 key;
		u32 access;
		u32 npages;
		u8 page_shift;
	} fr;
	struct xnic_sim_bind bind;
	const struct xnic_sge *sge;
	const u8 *inline_data;
};

/* xnic_sim_wqe.c */
int xnic_sim_swqe_len(const struct xnic_wqe_ctrl *ctrl, u32 wqe_size);
void xnic_sim_swqe_decode(const void *buf, struct xnic_sim_swqe *w);
u64 xnic_sim_swqe_bytes(const struct xnic_sim_swqe *w);
int xnic_sim_op_check(u8 qp_type, u8 opcode, bool kernel);
bool xnic_sim_sq_ready(struct xnic_sim_qp *qp);
int xnic_sim_sq_fetch(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp);
int xnic_sim_sq_fetch_at(struct xnic_sim_dev *dev, struct xnic_sim_qp *qp,
			 u32 idx);
int xnic_sim_rwqe_len(const struct xnic_rwqe *hdr, u32 wqe_size);
bool xnic_sim_op_is_send(u8 opcode);

#endif /* _XNIC_SIM_WQE_H */
