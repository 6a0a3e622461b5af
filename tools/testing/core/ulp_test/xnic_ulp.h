/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xnic_ulp_test: in-kernel verbs tests of xnic devices, written as a ULP
 * of xrdma_core (include/xrdma/xrdma_verbs.h only: no driver or model
 * code).  The framework (ulp_main.c), the helpers (ulp_util.c) and the
 * test cases (ulp_cases.c; CQ resize in ulp_cq_resize.c) share this header.
 */
#ifndef _XNIC_ULP_H
#define _XNIC_ULP_H

#include <linux/atomic.h>
#include <linux/dma-mapping.h>
#include <linux/list.h>
#include <linux/scatterlist.h>
#include <xrdma/xrdma_verbs.h>
#include "ktest.h"		/* tools/testing/harness/ktest */

#define ULPT_MAX_SGE	16
#define ULPT_MAX_QP	12
#define ULPT_MAX_CQ	(2 * ULPT_MAX_QP)
#define ULPT_MAX_MR	8
#define ULPT_MAX_AH	4
#define ULPT_MAX_SRQ	2
#define ULPT_NEV		(XRDMA_EVENT_DEVICE_FATAL + 1)
#define ULPT_DETAIL_LEN	256

extern unsigned int ulpt_timeout_ms;	/* bound of every wait */

enum ulpt_topo {
	ULPT_LOOP,	/* both QPs on the first device */
	ULPT_D2D,		/* first device <-> second device */
	ULPT_NTOPO,
};

/* One end of a test: a device with its PD and DMA MR. */
struct ulpt_side {
	struct xrdma_device *dev;
	struct device *dma;		/* ibdev->dev.parent */
	struct xrdma_pd *pd;
	struct xrdma_mr *dmr;		/* local DMA MR, LOCAL_WRITE */
	struct xrdma_device_attr attr;
	struct xrdma_port_attr pattr;
	union xrdma_gid gid;		/* port 1, index 0 */
	struct xrdma_event_handler eh;
	bool eh_registered;
	atomic_t dev_ev[ULPT_NEV];
};

struct ulpt_cq {
	struct xrdma_cq *cq;
	struct ulpt_side *side;
	atomic_t ev[ULPT_NEV];
	atomic_t comps;			/* comp_handler calls */
};

struct ulpt_q {
	struct xrdma_qp *qp;
	struct ulpt_side *side;
	struct ulpt_cq *scq, *rcq;
	atomic_t ev[ULPT_NEV];
	struct xrdma_qp_cap cap;	/* as created */
	u32 qkey;			/* UD */
};

/* A buffer the device reaches through the DMA API of its side. */
struct ulpt_buf {
	struct list_head node;
	struct ulpt_side *side;
	u8 *va;				/* CPU view, contiguous */
	size_t size;
	bool paged;
	/* contiguous buffers: one dma_map_single() */
	dma_addr_t dma;
	/* paged buffers: single pages, vmap()ed, one sg entry per page */
	struct page **pages;
	unsigned int npages;
	struct sg_table sgt;
	bool mapped;
};

/* A fast-registration MR over a paged buffer. */
struct ulpt_mr {
	struct xrdma_mr *mr;
	struct ulpt_buf *buf;
	u64 iova;			/* first byte of the MR */
	u64 len;
	u32 rkey;
};

/* The environment of one test case; everything in it is torn down. */
struct ulpt {
	const char *name;
	const void *arg;		/* the case's parameters */
	enum ulpt_topo topo;
	bool failed;
	char detail[ULPT_DETAIL_LEN];
	char note[ULPT_DETAIL_LEN];
	struct ulpt_side side[2];
	struct ulpt_cq cq[ULPT_MAX_CQ];
	int ncq;
	struct ulpt_q q[ULPT_MAX_QP];
	int nq;
	struct xrdma_mr *mr[ULPT_MAX_MR];
	int nmr;
	struct xrdma_ah *ah[ULPT_MAX_AH];
	int nah;
	struct xrdma_srq *srq[ULPT_MAX_SRQ];
	atomic_t srq_ev[ULPT_MAX_SRQ][ULPT_NEV];
	int nsrq;
	struct list_head bufs;
	u8 key_tag;
};

/* QP creation and connection options; zero means the default. */
struct ulpt_qp_opts {
	enum xrdma_qp_type type;	/* default RC */
	u32 send_wr, recv_wr;		/* default 16 */
	u32 send_sge, recv_sge;		/* default min(4, max_sge) */
	u32 inline_data;
	u32 cqe;			/* each CQ, default 64 */
	u32 a_scq_cqe;			/* first QP's send CQ size */
	bool sig_all;
	bool no_connect;		/* leave both QPs in RESET */
	u8 rnr_retry;			/* default 7 (infinite) */
	u8 retry_cnt;			/* default 7 */
	u8 min_rnr_timer;		/* default 1 */
	bool set_rnr_retry;		/* use rnr_retry even when 0 */
	bool no_rd_atomic;		/* max_rd_atomic 0 (default 16) */
	bool no_dest_rd_atomic;		/* max_dest_rd_atomic 0 (default 16) */
	u32 a_dest_qpn;			/* connect the first QP here instead */
	struct xrdma_srq *b_srq;	/* second QP receives from this SRQ */
};

struct ulpt_case {
	const char *name;
	void (*fn)(struct ulpt *t);
	const void *arg;		/* t->arg: what a table-driven case runs */
};

extern const struct ulpt_case ulpt_cases[];
/* ulp_cq_resize.c */
void ulpt_case_cq_resize(struct ulpt *t);
extern const unsigned int ulpt_ncases;

/* results */
__printf(3, 4) bool ulpt_ok_(struct ulpt *t, int line, const char *fmt, ...);
/* ULPT_OK(t, cond, fmt, ...): true if @cond holds, else records @fmt */
#define ULPT_OK(t, cond, fmt, ...)	\
	KTEST_OK(ulpt_ok_, t, cond, fmt, ##__VA_ARGS__)
__printf(2, 3) void ulpt_note(struct ulpt *t, const char *fmt, ...);
const char *ulpt_wc_status_str(enum xrdma_wc_status s);

/* environment */
int ulpt_env_init(struct ulpt *t, enum ulpt_topo topo,
		  const char *const names[2]);
void ulpt_env_fini(struct ulpt *t);

/* buffers and data */
struct ulpt_buf *ulpt_buf_alloc(struct ulpt *t, struct ulpt_side *s,
				size_t size, bool paged);
void ulpt_buf_to_dev(struct ulpt_buf *b);
void ulpt_buf_to_cpu(struct ulpt_buf *b);
u64 ulpt_buf_dma(struct ulpt_buf *b, size_t off);
void ulpt_pat_fill(u8 *p, size_t len, u32 seed, size_t moff);
long ulpt_pat_check(const u8 *p, size_t len, u32 seed, size_t moff);

/* a message split over SGEs placed with gaps in a buffer */
struct ulpt_sgl {
	struct xrdma_sge sge[ULPT_MAX_SGE];
	size_t boff[ULPT_MAX_SGE];	/* offset of each piece in the buffer */
	size_t moff[ULPT_MAX_SGE];	/* offset of each piece in the message */
	int n;
	size_t len;
};

size_t ulpt_sgl_span(size_t len, int nsge, size_t start);
void ulpt_sgl_build(struct ulpt_sgl *s, struct ulpt_buf *b, u32 lkey,
		    size_t start, size_t len, int nsge, int variant);
void ulpt_sgl_fill(struct ulpt_sgl *s, struct ulpt_buf *b, u32 seed);
bool ulpt_sgl_check(struct ulpt *t, struct ulpt_sgl *s, struct ulpt_buf *b,
		    u32 seed, u8 canary, const char *what);
bool ulpt_sgl_gaps_ok(struct ulpt *t, struct ulpt_sgl *s, struct ulpt_buf *b,
		      u8 canary, const char *what);
void ulpt_sgl_gather(struct ulpt_sgl *s, struct ulpt_buf *b, u8 *out);
bool ulpt_region_check(struct ulpt *t, struct ulpt_buf *b, size_t off,
		       size_t len, u32 seed, u8 canary, const char *what);

/* objects */
struct ulpt_cq *ulpt_cq_create(struct ulpt *t, struct ulpt_side *s, u32 cqe);
struct ulpt_q *ulpt_qp_create(struct ulpt *t, struct ulpt_side *s,
			      struct ulpt_cq *scq,
			      struct ulpt_cq *rcq, struct xrdma_srq *srq,
			      const struct ulpt_qp_opts *o);
int ulpt_qp_connect(struct ulpt *t, struct ulpt_q *q,
		    const union xrdma_gid *dgid,
		    u32 dest_qpn, const struct ulpt_qp_opts *o);
int ulpt_pair(struct ulpt *t, const struct ulpt_qp_opts *o, struct ulpt_q **qa,
	      struct ulpt_q **qb);
struct xrdma_ah *ulpt_ah_create(struct ulpt *t, struct ulpt_side *s,
				const union xrdma_gid *dgid);
struct xrdma_srq *ulpt_srq_create(struct ulpt *t, struct ulpt_side *s,
				  u32 max_wr, u32 max_sge, u32 limit);
bool ulpt_destroy_qp(struct ulpt *t, struct ulpt_q *q);

/* fast registration */
struct ulpt_mr *ulpt_freg(struct ulpt *t, struct ulpt_q *q, struct ulpt_buf *b,
			  unsigned int sg_offset, u32 access, struct ulpt_mr *m);
int ulpt_freg_again(struct ulpt *t, struct ulpt_q *q, struct ulpt_mr *m,
		    u32 access);
int ulpt_local_inv(struct ulpt *t, struct ulpt_q *q, u32 rkey);
bool ulpt_dereg_mr(struct ulpt *t, struct xrdma_mr *mr);

/* posting and completions */
int ulpt_post_send(struct ulpt *t, struct ulpt_q *q, struct xrdma_send_wr *wr);
int ulpt_post_recv(struct ulpt *t, struct ulpt_q *q, struct xrdma_recv_wr *wr);
int ulpt_post_recv_sgl(struct ulpt *t, struct ulpt_q *q, u64 wr_id,
		       struct ulpt_sgl *s);
int ulpt_poll(struct ulpt *t, struct ulpt_cq *cq, struct xrdma_wc *wc, int n,
	      unsigned int ms);
bool ulpt_expect(struct ulpt *t, struct ulpt_q *q, bool recv, u64 wr_id,
		 enum xrdma_wc_status status, int opcode, struct xrdma_wc *out,
		 const char *what);
bool ulpt_quiet(struct ulpt *t, struct ulpt_cq *cq, unsigned int ms,
		const char *what);
bool ulpt_wait_state(struct ulpt *t, struct ulpt_q *q,
		     enum xrdma_qp_state state, const char *what);
bool ulpt_wait_count(atomic_t *v, int n, unsigned int ms);

#endif /* _XNIC_ULP_H */
