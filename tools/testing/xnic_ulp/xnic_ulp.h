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

#define UT_MAX_SGE	16
#define UT_MAX_QP	12
#define UT_MAX_CQ	(2 * UT_MAX_QP)
#define UT_MAX_MR	8
#define UT_MAX_AH	4
#define UT_MAX_SRQ	2
#define UT_NEV		(XRDMA_EVENT_DEVICE_FATAL + 1)
#define UT_DETAIL_LEN	256

extern unsigned int ut_timeout_ms;	/* bound of every wait */

enum ut_topo {
	UT_LOOP,	/* both QPs on the first device */
	UT_D2D,		/* first device <-> second device */
	UT_NTOPO,
};

/* One end of a test: a device with its PD and DMA MR. */
struct ut_side {
	struct xrdma_device *dev;
	struct device *dma;		/* ibdev->dev.parent */
	struct xrdma_pd *pd;
	struct xrdma_mr *dmr;		/* local DMA MR, LOCAL_WRITE */
	struct xrdma_device_attr attr;
	struct xrdma_port_attr pattr;
	union xrdma_gid gid;		/* port 1, index 0 */
	struct xrdma_event_handler eh;
	bool eh_registered;
	atomic_t dev_ev[UT_NEV];
};

struct ut_cq {
	struct xrdma_cq *cq;
	struct ut_side *side;
	atomic_t ev[UT_NEV];
	atomic_t comps;			/* comp_handler calls */
};

struct ut_q {
	struct xrdma_qp *qp;
	struct ut_side *side;
	struct ut_cq *scq, *rcq;
	atomic_t ev[UT_NEV];
	struct xrdma_qp_cap cap;	/* as created */
	u32 qkey;			/* UD */
};

/* A buffer the device reaches through the DMA API of its side. */
struct ut_buf {
	struct list_head node;
	struct ut_side *side;
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
struct ut_mr {
	struct xrdma_mr *mr;
	struct ut_buf *buf;
	u64 iova;			/* first byte of the MR */
	u64 len;
	u32 rkey;
};

/* The environment of one test case; everything in it is torn down. */
struct ut {
	const char *name;
	const void *arg;		/* the case's parameters */
	enum ut_topo topo;
	bool failed;
	char detail[UT_DETAIL_LEN];
	char note[UT_DETAIL_LEN];
	struct ut_side side[2];
	struct ut_cq cq[UT_MAX_CQ];
	int ncq;
	struct ut_q q[UT_MAX_QP];
	int nq;
	struct xrdma_mr *mr[UT_MAX_MR];
	int nmr;
	struct xrdma_ah *ah[UT_MAX_AH];
	int nah;
	struct xrdma_srq *srq[UT_MAX_SRQ];
	atomic_t srq_ev[UT_MAX_SRQ][UT_NEV];
	int nsrq;
	struct list_head bufs;
	u8 key_tag;
};

/* QP creation and connection options; zero means the default. */
struct ut_qp_opts {
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

struct ut_case {
	const char *name;
	void (*fn)(struct ut *t);
	const void *arg;		/* t->arg: what a table-driven case runs */
};

extern const struct ut_case ut_cases[];
/* ulp_cq_resize.c */
void ut_case_cq_resize(struct ut *t);
extern const unsigned int ut_ncases;

/* results */
__printf(3, 4) bool ut_ok_(struct ut *t, int line, const char *fmt, ...);
/* UT_OK(t, cond, fmt, ...): true if @cond holds, else records @fmt */
#define UT_OK(t, cond, fmt, ...)					\
({									\
	bool __ut_c = !!(cond);						\
									\
	if (!__ut_c)							\
		ut_ok_(t, __LINE__, fmt, ##__VA_ARGS__);		\
	__ut_c;								\
})
__printf(2, 3) void ut_note(struct ut *t, const char *fmt, ...);
const char *ut_wc_status_str(enum xrdma_wc_status s);

/* environment */
int ut_env_init(struct ut *t, enum ut_topo topo, const char *const names[2]);
void ut_env_fini(struct ut *t);

/* buffers and data */
struct ut_buf *ut_buf_alloc(struct ut *t, struct ut_side *s, size_t size,
			    bool paged);
void ut_buf_to_dev(struct ut_buf *b);
void ut_buf_to_cpu(struct ut_buf *b);
u64 ut_buf_dma(struct ut_buf *b, size_t off);
void ut_pat_fill(u8 *p, size_t len, u32 seed, size_t moff);
long ut_pat_check(const u8 *p, size_t len, u32 seed, size_t moff);

/* a message split over SGEs placed with gaps in a buffer */
struct ut_sgl {
	struct xrdma_sge sge[UT_MAX_SGE];
	size_t boff[UT_MAX_SGE];	/* offset of each piece in the buffer */
	size_t moff[UT_MAX_SGE];	/* offset of each piece in the message */
	int n;
	size_t len;
};

size_t ut_sgl_span(size_t len, int nsge, size_t start);
void ut_sgl_build(struct ut_sgl *s, struct ut_buf *b, u32 lkey, size_t start,
		  size_t len, int nsge, int variant);
void ut_sgl_fill(struct ut_sgl *s, struct ut_buf *b, u32 seed);
bool ut_sgl_check(struct ut *t, struct ut_sgl *s, struct ut_buf *b, u32 seed,
		  u8 canary, const char *what);
bool ut_sgl_gaps_ok(struct ut *t, struct ut_sgl *s, struct ut_buf *b,
		    u8 canary, const char *what);
void ut_sgl_gather(struct ut_sgl *s, struct ut_buf *b, u8 *out);
bool ut_region_check(struct ut *t, struct ut_buf *b, size_t off, size_t len,
		     u32 seed, u8 canary, const char *what);

/* objects */
struct ut_cq *ut_cq_create(struct ut *t, struct ut_side *s, u32 cqe);
struct ut_q *ut_qp_create(struct ut *t, struct ut_side *s, struct ut_cq *scq,
			  struct ut_cq *rcq, struct xrdma_srq *srq,
			  const struct ut_qp_opts *o);
int ut_qp_connect(struct ut *t, struct ut_q *q, const union xrdma_gid *dgid,
		  u32 dest_qpn, const struct ut_qp_opts *o);
int ut_pair(struct ut *t, const struct ut_qp_opts *o, struct ut_q **qa,
	    struct ut_q **qb);
struct xrdma_ah *ut_ah_create(struct ut *t, struct ut_side *s,
			      const union xrdma_gid *dgid);
struct xrdma_srq *ut_srq_create(struct ut *t, struct ut_side *s, u32 max_wr,
				u32 max_sge, u32 limit);
bool ut_destroy_qp(struct ut *t, struct ut_q *q);

/* fast registration */
struct ut_mr *ut_freg(struct ut *t, struct ut_q *q, struct ut_buf *b,
		      unsigned int sg_offset, u32 access, struct ut_mr *m);
int ut_freg_again(struct ut *t, struct ut_q *q, struct ut_mr *m, u32 access);
int ut_local_inv(struct ut *t, struct ut_q *q, u32 rkey);
bool ut_dereg_mr(struct ut *t, struct xrdma_mr *mr);

/* posting and completions */
int ut_post_send(struct ut *t, struct ut_q *q, struct xrdma_send_wr *wr);
int ut_post_recv(struct ut *t, struct ut_q *q, struct xrdma_recv_wr *wr);
int ut_post_recv_sgl(struct ut *t, struct ut_q *q, u64 wr_id,
		     struct ut_sgl *s);
int ut_poll(struct ut *t, struct ut_cq *cq, struct xrdma_wc *wc, int n,
	    unsigned int ms);
bool ut_expect(struct ut *t, struct ut_q *q, bool recv, u64 wr_id,
	       enum xrdma_wc_status status, int opcode, struct xrdma_wc *out,
	       const char *what);
bool ut_quiet(struct ut *t, struct ut_cq *cq, unsigned int ms,
	      const char *what);
bool ut_wait_state(struct ut *t, struct ut_q *q, enum xrdma_qp_state state,
		   const char *what);
bool ut_wait_count(atomic_t *v, int n, unsigned int ms);

#endif /* _XNIC_ULP_H */
