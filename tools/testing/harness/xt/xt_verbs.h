/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xt_verbs: libibverbs helpers of the test programs that run over
 * xrdma's libibverbs.so.1 (xv_semantics, xv_isolation, xv_scale): QP
 * transitions, registered buffers, polling.  Link with -libverbs.
 */
#ifndef XT_VERBS_H
#define XT_VERBS_H

#include <string.h>
#include <infiniband/verbs.h>
#include "xt.h"

#define XT_PORT		1
#define XT_GID_INDEX	0
#define XT_PSN		0x123

/*
 * open the device named @name (its uverbs node in @node if not NULL):
 * the context, or NULL after a note why
 */
struct ibv_context *xt_open_device(const char *name, char *node,
				   size_t len);

/* RESET -> INIT on port 1: RC/UC with remote access, UD with @qkey */
int xt_qp_init(struct ibv_qp *qp, uint32_t qkey);

struct xt_rc_opts {
	uint8_t timeout, retry_cnt, rnr_retry;
	uint8_t port;			/* 0: XT_PORT */
	uint8_t sgid_index;
};

/*
 * RESET/INIT -> INIT -> RTR -> RTS towards @dqpn at @gid (@o NULL:
 * timeout 14, retry_cnt 7, rnr_retry 7 on XT_PORT, GID index 0)
 */
int xt_rc_rts(struct ibv_qp *qp, uint32_t dqpn, const union ibv_gid *gid,
	      enum ibv_mtu mtu, const struct xt_rc_opts *o);
/* a UD QP RESET -> RTS with @qkey */
int xt_ud_rts(struct ibv_qp *qp, uint32_t qkey);
/* the QP's state, or -1 */
int xt_qp_state(struct ibv_qp *qp);

/* a QP with one CQ for sends and receives */
struct xt_ep {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_qp_cap cap;		/* what the QP got */
};

/* a CQ of @cqe entries and a QP of @type with @cap on it; false: neither */
bool xt_ep_new(struct xt_ep *e, struct ibv_pd *pd, enum ibv_qp_type type,
	       int cqe, const struct ibv_qp_cap *cap);

/* a zeroed, page-aligned buffer registered in @pd */
struct xt_buf {
	uint8_t *p;
	size_t len;
	struct ibv_mr *mr;
};

bool xt_buf_new(struct xt_buf *b, struct ibv_pd *pd, size_t len, int access);
/* 0, or the error of ibv_dereg_mr */
int xt_buf_free(struct xt_buf *b);

static inline uint64_t xt_va(const struct xt_buf *b, size_t off)
{
	return (uint64_t)(uintptr_t)(b->p + off);
}

static inline struct ibv_sge xt_sge(const struct xt_buf *b, size_t off,
				    uint32_t len)
{
	struct ibv_sge s = {
		.addr = xt_va(b, off), .length = len, .lkey = b->mr->lkey,
	};

	return s;
}

/* a busy-wait step: yield, then sleep 100 us */
void xt_relax(unsigned int *spins);
/* poll until @n completions are in @wc or @ms passed; the count */
int xt_poll_n(struct ibv_cq *cq, struct ibv_wc *wc, int n, int ms);

static inline bool xt_poll_one(struct ibv_cq *cq, struct ibv_wc *wc, int ms)
{
	memset(wc, 0, sizeof(*wc));
	return xt_poll_n(cq, wc, 1, ms) == 1;
}

/*
 * The options every verbs test program has: -d IBDEV into *@dev,
 * -t WAIT_MS into *@wait_ms, -w SECONDS (the watchdog) into *@watchdog.
 * false: @c is none of them
 */
bool xt_verbs_opt(int c, const char *arg, const char **dev, int *wait_ms,
		  unsigned int *watchdog);

/*
 * for a SIGALRM handler (async-signal-safe): "Bail out! @what" on
 * stdout, then _exit(2)
 */
void xt_watchdog_expired(const char *what);

/*
 * an xt_note of the libibverbs this process runs on (its path in
 * /proc/self/maps): which library a guest test's program loaded
 */
void xt_show_library(void);

#endif
