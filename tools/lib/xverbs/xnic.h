/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The xnic provider's own declarations (xnic_*.c): the data path of
 * uapi/xrdma/xnic-abi.h -- WQE building, doorbells, CQ polling, the
 * mapped rings and the ibv_qp_ex / ibv_cq_ex ops.  The API layer (the
 * other files, see xverbs.h) reaches it only through struct
 * xv_provider_ops (xnic_provider_ops, xnic_queues.c); nothing here is an
 * ibv_* entry point.
 */
#ifndef XNIC_H
#define XNIC_H

#include "xverbs.h"

#define XV_LOAD(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define XV_STORE(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)

static inline uint8_t *xv_wqe_at(struct xv_wq *wq, uint32_t idx)
{
	return wq->buf + ((size_t)(idx & ((1U << wq->log) - 1)) << wq->shift);
}

static inline uint32_t xv_wq_used(struct xv_wq *wq)
{
	return wq->pi - XV_LOAD(&wq->ci);
}

/* xnic_post.c: posting, and the WQE builders xnic_qp_ex.c shares */
void xv_ring_sq(struct xv_qp *qp);
int xv_fill_sges(struct xv_qp *qp, uint8_t *wqe,
		 const struct ibv_sge *sg, int n);
int xv_fill_inline(struct xv_qp *qp, uint8_t *wqe, size_t n,
		   const void *const *addr, const size_t *len);
void xv_fill_ud(uint8_t *wqe, struct ibv_ah *ibah, uint32_t qpn,
		uint32_t qkey);
bool xv_op_ok(enum ibv_qp_type type, uint8_t op);
void xv_fill_xrc(uint8_t *wqe, uint32_t remote_srqn);
uint8_t *xv_sq_begin(struct xv_qp *qp, uint8_t op,
		     unsigned int send_flags, uint64_t wr_id);
int xv_fill_bind(uint8_t *wqe, struct ibv_mw *mw, uint32_t rkey,
		 const struct ibv_mw_bind_info *info);
void xv_sq_commit(struct xv_qp *qp, uint32_t idx);
int xv_qp_can_send(struct xv_qp *qp);
int xv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		 struct ibv_send_wr **bad);
int xv_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		 struct ibv_recv_wr **bad);
int xv_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad);
int xv_post_bind(struct ibv_qp *qp, struct ibv_mw *mw, uint32_t rkey,
		 const struct ibv_mw_bind_info *info, uint64_t wr_id,
		 unsigned int send_flags);

/* xnic_cq.c: polling */
int xv_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);
int xv_req_notify_cq(struct ibv_cq *cq, int solicited);
void xv_cq_clean(struct ibv_cq *cq, uint32_t qpn);
void xv_cq_ex_init(struct xv_cq *cq);

/* xnic_qp_ex.c: the ibv_wr_* builders */
void xv_qp_ex_init(struct xv_qp *qp, uint64_t ops);

#endif /* XNIC_H */
