/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit fixture of a scripted requester for the wire's responder
 * (drivers/hw/xnic/sim/xnic_sim_wresp.c): an engine-less model device
 * (device 1 of kt_sim_pair_init()) attached to a fake wire that keeps what
 * it transmits; RC, UC and UD QPs of it in RTS connected to a remote
 * requester (kt_rgid, KT_RQPN); request packets (struct xnic_sim_pkt, as
 * xnic_sim_pkt_parse() leaves them) handed to xnic_sim_roce_recv() as the
 * wire's RX poll does (kt_rx) or as whole frames through the rx_handler's
 * path (kt_wire_rx, then kt_rx_poll); the end of an engine pass
 * (kt_pass_end); the frames it sent, parsed (kt_out).
 */
#ifndef _XRDMA_KUNIT_XNIC_SIM_WRESP_FIXTURE_H
#define _XRDMA_KUNIT_XNIC_SIM_WRESP_FIXTURE_H

#include "xnic_sim_fixture.h"

#define KT_PD		1
#define KT_PSN		0xfffffe	/* wraps within the first few packets */
#define KT_RQ_LOG	3
#define KT_RQ_SHIFT	6		/* 64-byte receive WQEs */
#define KT_CQ_LOG	6
#define KT_ALL_KEY	0x100		/* index 1: an MR over all memory */
#define KT_MR_KEY	(2 << 8 | 0x5c)	/* index 2: one page, remote rights */
#define KT_MR_IOVA	0x7f0000000000ULL
#define KT_QKEY		0x11111111
#define KT_RQPN		0x345		/* the remote requester's QPN */
#define KT_QPN		20
#define KT_MTU		1024		/* XNIC_MTU_1024 */
#define KT_RNR_TIMER	7
#define KT_REMOTE	(XNIC_ACCESS_LOCAL_WRITE | XNIC_ACCESS_REMOTE_WRITE | \
			 XNIC_ACCESS_REMOTE_READ | XNIC_ACCESS_REMOTE_ATOMIC)
#define KT_MAX_OUT	16

struct kt_qp {
	struct xnic_sim_qp q;
	struct xnic_rwqe *rq;		/* CPU view of the receive ring */
	struct xnic_qp_dbrec *rec;
	u32 rq_pi;
};

struct kt_env {
	struct kunit *test;
	struct kt_sim_pair p;		/* KT_ALL_KEY, KT_MR_KEY on device 1 */
	struct xnic_sim_dev *d;		/* the responder: device 1 */
	struct sk_buff_head cap;	/* frames it sends */
	u8 *rbuf;			/* receive buffers */
	u64 rbuf_dma;
	u8 *data;			/* payloads sent */
	/* the frames sent since the last kt_out(), parsed */
	struct xnic_sim_pkt out[KT_MAX_OUT];
	u8 *out_pay[KT_MAX_OUT];
	u32 nout;
};

#define KT_ACK		(XNIC_SIM_AETH_ACK | 0x1f)
#define KT_NAK(c)	(XNIC_SIM_AETH_NAK | (c))

/* the remote requester's address */
extern const u8 kt_rgid[16];
extern const struct kt_sim_pair_cfg kt_pair_cfg;

struct kt_env *kt_env_cfg(struct kunit *test,
			  const struct kt_sim_pair_cfg *cfg);
struct kt_env *kt_env(struct kunit *test);
struct kt_qp *kt_qp(struct kt_env *e, u32 qpn, u8 type);
void kt_post_recv(struct kt_env *e, struct kt_qp *x, u64 wr_id, u32 off,
		  u32 len);
struct xnic_sim_pkt kt_req(struct kt_env *e, struct kt_qp *x, u8 op,
			   u32 psn);
void kt_pay(struct kt_env *e, struct xnic_sim_pkt *p, u32 off, u32 len);
struct xnic_sim_pkt kt_read_req(struct kt_env *e, struct kt_qp *x, u32 psn,
				u64 va, u32 rkey, u32 len);
struct xnic_sim_pkt kt_write64(struct kt_env *e, struct kt_qp *x, int i,
			       bool ackreq);
void kt_rx(struct kt_env *e, const struct xnic_sim_pkt *p);
void kt_wire_rx(struct kt_env *e, struct xnic_sim_pkt *p);
bool kt_rx_poll_next(struct kt_env *e, u64 *next);
bool kt_rx_poll(struct kt_env *e);
void kt_pass_end(struct kt_env *e);
u32 kt_out(struct kt_env *e);
void kt_expect_ack(struct kt_env *e, u32 i, u32 psn, u8 syndrome, u32 msn);
u32 kt_cqes(struct kt_env *e);
struct xnic_cqe *kt_cqe(struct kt_env *e, u32 i);
u64 kt_ctr(struct kt_env *e, enum xnic_sim_ctr c);

#endif /* _XRDMA_KUNIT_XNIC_SIM_WRESP_FIXTURE_H */
