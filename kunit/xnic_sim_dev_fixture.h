/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The whole device model's KUnit fixture: two cabled xnic model devices
 * with their engine threads, driven through their register window by the
 * small driver here (td_*: the "test driver"), for the suites of
 * kunit/xnic_sim_{cmd,datapath,errors,engine,eth}_test.c.  Each suite has
 * .init = td_init and .exit = td_exit; a case starts with td_ctx_up().
 */
#ifndef _XRDMA_KUNIT_XNIC_SIM_DEV_FIXTURE_H
#define _XRDMA_KUNIT_XNIC_SIM_DEV_FIXTURE_H

#include <linux/interrupt.h>
#include "xnic_sim_fixture.h"

#define TD_CMDQ_LOG	3
#define TD_EQ_LOG	8
#define TD_Q_LOG	5	/* 32 WQEs per queue */
#define TD_WQE_SHIFT	8	/* 256 bytes: 8 SGEs or 160 inline bytes */
#define TD_TIMEOUT_MS	5000
#define TD_PD		1
#define TD_ALL_KEY	0x100	/* DMA MR, index 1 */
#define TD_ACCESS	(XNIC_ACCESS_LOCAL_WRITE | XNIC_ACCESS_REMOTE_WRITE | \
			 XNIC_ACCESS_REMOTE_READ | XNIC_ACCESS_REMOTE_ATOMIC)

/* The driver side of one device. */
struct td_dev {
	struct kunit *test;
	struct xnic_sim_dev *sim;
	struct xnic_bus *bus;
	struct xnic_cmd *cmdq;
	u32 cmd_pi;
	u32 token;
	struct xnic_eqe *eq;
	u32 eq_ci;
	bool irq;
	int irq_cpu;		/* where the handler ran last */
	spinlock_t ev_lock;	/* the interrupt handler's counts */
	u32 ev[16];
	u32 ev_data[16];
	struct xnic_db_page *db[3];	/* 0: kernel, 1, 2: "user" pages */
};

struct td_cq {
	struct td_dev *d;
	u32 cqn;
	u32 log;
	u32 ci;
	u32 arm_sn;
	struct xnic_cqe *ring;
	struct xnic_cq_dbrec *rec;
};

struct td_qp {
	struct td_dev *d;
	u32 qpn;
	u8 type;
	u32 dbi;
	u32 slot;
	u8 *sq;
	u8 *rq;
	u32 sq_pi;
	u32 rq_pi;
	struct xnic_qp_dbrec *rec;
};

/* An MR over separately allocated pages (its MTT is not contiguous). */
struct td_mr {
	u32 key;
	u64 iova;
	u32 npages;
	struct page *pg[8];
};

struct td_ctx {
	struct td_dev dev[2];
};

struct td_wr {
	u8 op;
	u8 flags;
	u64 wr_id;
	__le32 imm;
	u64 raddr;
	u32 rkey;
	u64 cmp;
	u64 swap;
	u32 nsge;
	struct xnic_sge sge[XNIC_SIM_MAX_SGE];
	const void *inl;
	u32 inl_len;
	u32 dqpn;
	u32 qkey;
	const u8 *dgid;
	u8 sgid_index;
	u8 hop_limit;
	u8 tclass;
};

u64 td_pa(const void *p);
u32 td_ev(struct td_dev *d, u8 type);
bool td_wait_ev(struct td_dev *d, u8 type, u32 n);
u64 td_ctr(struct td_dev *d, enum xnic_sim_ctr c);
u32 td_rd(struct td_dev *d, u32 reg);
void td_wr(struct td_dev *d, u32 reg, u32 val);
u32 td_cmd_out(struct td_dev *d, u8 op, const void *in, size_t len,
	       void *out, size_t outlen);
u32 td_cmd(struct td_dev *d, u8 op, const void *in, size_t len);
void td_want(struct td_dev *d, u8 op, const void *in, size_t len,
	     u32 status);
void td_cmd_ok(struct td_dev *d, u8 op, const void *in, size_t len);
void td_reset(struct td_dev *d);
void td_up(struct td_dev *d);
struct td_cq *td_cq(struct td_dev *d, u32 cqn, u32 log, bool events);
bool td_peek(struct td_cq *cq, struct xnic_cqe *out);
bool td_poll(struct td_cq *cq, struct xnic_cqe *out, unsigned int ms);
void td_expect(struct td_cq *cq, u64 wr_id, u8 status, u8 opcode,
	       struct xnic_cqe *out);
void td_arm(struct td_cq *cq, u32 how);
struct td_qp *td_qp(struct td_dev *d, u32 qpn, u8 type, u32 pdn,
		    struct td_cq *scq, struct td_cq *rcq, u32 dbi,
		    u32 slot, u32 srqn);
struct td_qp *td_qp_status(struct td_dev *d, u32 qpn, u8 type,
			   u32 pdn, struct td_cq *scq,
			   struct td_cq *rcq, u32 dbi, u32 slot,
			   u32 srqn, u32 status);
u32 td_modify(struct td_qp *q, struct xnic_cmd_modify_qp *m, u8 state,
	      u32 mask);
u8 td_state(struct td_qp *q);
void td_connect(struct td_qp *a, struct td_qp *b, u8 rnr_retry);
void td_ring_bits(struct td_dev *d, u32 dbi, u32 slot);
void td_kick(struct td_dev *d, u32 dbi);
void td_ring(struct td_dev *d, u32 dbi, u32 slot);
void td_write_wqe(struct td_qp *q, const struct td_wr *w);
void td_doorbell(struct td_qp *q);
void td_post(struct td_qp *q, const struct td_wr *w);
void td_post_recv(struct td_qp *q, u64 wr_id,
		  const struct xnic_sge *sge, u32 n);
struct xnic_sge td_sge(u64 addr, u32 len, u32 key);
struct td_mr *td_mr(struct td_dev *d, u32 key, u32 pdn, u32 access,
		    u32 npages, u64 iova, bool managed);
u8 *td_mr_byte(struct td_mr *m, u64 iova);
int td_init(struct kunit *test);
void td_exit(struct kunit *test);
struct td_ctx *td_ctx_up(struct kunit *test);
void td_rc_ops(struct kunit *test, struct td_dev *da, struct td_dev *db,
	       u32 base);

#endif
