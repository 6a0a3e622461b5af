/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xrdma_cmtest: a test ULP of the kernel's own RDMA stack (ib_core and
 * rdma_cm: <rdma/rdma_cm.h> and <rdma/ib_verbs.h> only), so that it runs
 * over any RDMA device (rxe, or xnic through xrdma_ib).  The framework,
 * the connection ends and the helpers (cmtest_main.c) and the test cases
 * (cmtest_cases.c) share this header.
 *
 * A case runs a client and a server cm_id in this module, both on the
 * device that owns the address given as the "ip" parameter (loopback).
 */
#ifndef _XRDMA_CMTEST_H
#define _XRDMA_CMTEST_H

#include <linux/completion.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <rdma/ib_cm.h>		/* IB_CM_REJ_* reasons of rdma_reject() */
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include "ktest.h"		/* tools/testing/harness/ktest */

#define CT_DETAIL_LEN	256
#define CT_NRECV	8		/* receives each end posts up front */
#define CT_NSEND	4		/* send slots of an end */
#define CT_MSG		256		/* bytes of a message slot */
#define CT_DATA		(4 * PAGE_SIZE)	/* client's RDMA buffer */
#define CT_MR_PAGES	4		/* server's fast-registered MR */
#define CT_PDATA	64		/* private data kept of an event */
#define CT_NEV		(RDMA_CM_EVENT_TIMEWAIT_EXIT + 1)

extern unsigned int ct_timeout_ms;	/* bound of every wait */

/* objects the module holds, counted so that a case can prove it freed all */
enum ct_obj {
	CT_OBJ_ID, CT_OBJ_PD, CT_OBJ_CQ, CT_OBJ_QP, CT_OBJ_MR, CT_OBJ_MAP,
	CT_OBJ_BUF, CT_OBJ_MAX,
};

extern atomic_t ct_objs[CT_OBJ_MAX];
extern const char *const ct_obj_names[CT_OBJ_MAX];

/* One work request slot: its completion as the CQ reported it. */
struct ct_wr {
	struct ib_cqe cqe;
	struct completion done;
	int status;			/* enum ib_wc_status, -1: none yet */
	enum ib_wc_opcode opcode;
	u32 byte_len;
};

struct ct;

/* One end: the listener, the client or the server side of a connection. */
struct ct_end {
	struct ct *t;
	const char *role;
	struct rdma_cm_id *id;
	struct ib_device *dev;		/* of the buffers, PD, CQ (setup) */
	struct ib_pd *pd;
	struct ib_cq *cq;
	enum ib_poll_context poll;
	bool qp;			/* rdma_create_qp() done */
	/* rdma_cm events, recorded by the handler */
	spinlock_t lock;
	wait_queue_head_t wq;
	unsigned long events;		/* bit per enum rdma_cm_event_type */
	int status[CT_NEV];		/* of the last event of each type */
	u8 pdata[CT_NEV][CT_PDATA];	/* its private data (first bytes) */
	u8 pdata_len[CT_NEV];
	/* messages: CT_NRECV receive slots, then CT_NSEND send slots */
	u8 *msg;
	u64 msg_dma;
	struct ct_wr rwr[CT_NRECV];
	int nrecv;			/* receives posted */
	int next_recv;			/* the next one to complete */
	struct ct_wr swr[CT_NSEND];
	/* client: a contiguous buffer read and written by RDMA */
	u8 *data;
	u64 data_dma;
	/* server: paged buffer under a fast-registration MR */
	struct page *pages[CT_MR_PAGES];
	u8 *mr_va;			/* vmap() of pages */
	struct scatterlist sg[CT_MR_PAGES];
	int sg_mapped;
	struct ib_mr *mr;
};

/* What the server does with a connect request. */
enum ct_mode {
	CT_ACCEPT,
	CT_REJECT,
};

/* The environment of one case; ct_fini() tears all of it down. */
struct ct {
	const char *name;
	u16 port;
	bool failed;
	char detail[CT_DETAIL_LEN];
	char note[CT_DETAIL_LEN];
	enum ct_mode mode;
	int accept_err;			/* of the server's accept, in the handler */
	atomic_t requests;		/* connect requests the listener saw */
	struct sockaddr_in addr;	/* ip:port */
	struct ct_end lis, cli, srv;
	u8 key;				/* fast-registration key */
	u8 retry_count;			/* of the client's QP, 0: 7 */
	u8 ack_timeout;			/* rdma_set_ack_timeout(), 0: default */
};

/* the server's MR as it tells the client (little endian on the wire) */
struct ct_desc {
	__le64 addr;
	__le32 rkey;
	__le32 len;
};

/* results */
__printf(3, 4) bool ct_ok_(struct ct *t, int line, const char *fmt, ...);
/* CT_OK(t, cond, fmt, ...): true if @cond holds, else records @fmt */
#define CT_OK(t, cond, fmt, ...)	\
	KTEST_OK(ct_ok_, t, cond, fmt, ##__VA_ARGS__)
__printf(2, 3) void ct_note(struct ct *t, const char *fmt, ...);

/* environment */
int ct_init(struct ct *t, const char *name, u16 port);
void ct_fini(struct ct *t);
bool ct_quiet(struct ct *t);

/* connection management */
int ct_listen(struct ct *t);
int ct_resolve(struct ct *t);
int ct_connect(struct ct *t);
void ct_disconnect(struct ct *t);
bool ct_wait_err(struct ct *t, struct ct_wr *w, const char *what);
int ct_establish(struct ct *t);
bool ct_wait_ev(struct ct *t, struct ct_end *e, unsigned long mask,
		int *got, const char *what);
bool ct_seen(struct ct_end *e, enum rdma_cm_event_type ev);
void ct_destroy_qp(struct ct_end *e);
void ct_destroy_id(struct ct_end *e);

/* data */
void ct_pat_fill(u8 *p, size_t len, u32 seed);
long ct_pat_check(const u8 *p, size_t len, u32 seed);
u8 *ct_send_buf(struct ct_end *e, int slot);
int ct_post_send(struct ct *t, struct ct_end *e, int slot,
		 struct ib_send_wr *wr, const char *what);
int ct_send_msg(struct ct *t, struct ct_end *e, int slot, size_t len,
		const char *what);
bool ct_wait_wr(struct ct *t, struct ct_wr *w, int status, int opcode,
		const char *what);
struct ct_wr *ct_wait_recv(struct ct *t, struct ct_end *e, int status,
			   const char *what);
u8 *ct_recv_buf(struct ct_end *e, struct ct_wr *w);
int ct_mr_setup(struct ct *t, struct ct_end *e);
int ct_mr_reg(struct ct *t, struct ct_end *e, int slot);
int ct_mr_inv(struct ct *t, struct ct_end *e, int slot);
void ct_sync_for_cpu(struct ct_end *e);
void ct_sync_for_dev(struct ct_end *e);

struct ct_case {
	const char *name;
	void (*fn)(struct ct *t);
};

extern const struct ct_case ct_cases[];
extern const unsigned int ct_ncases;

#endif /* _XRDMA_CMTEST_H */
