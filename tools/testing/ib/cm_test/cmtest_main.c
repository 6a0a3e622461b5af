// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma_cmtest: test cases of the kernel's rdma_cm and ib_core verbs, run
 * as an in-kernel ULP over whatever RDMA device owns the address "ip".
 *
 *   insmod xrdma_cmtest.ko ip=198.18.0.1 [port=20000] [timeout_ms=10000]
 *   echo all > /sys/kernel/debug/xrdma_cmtest/run      every case
 *   echo 'peer_*' > /sys/kernel/debug/xrdma_cmtest/run cases matching a glob
 *   cat /sys/kernel/debug/xrdma_cmtest/cases           the case names
 *   cat /sys/kernel/debug/xrdma_cmtest/results         the last run's results
 *   echo hold > .../run      connect and stay connected (for "rdma res")
 *   echo release > .../run   disconnect and free what "hold" made
 *                            (ENOENT if nothing is held)
 *
 * Every case reports one line "XRDMA_CASE <name> PASS|FAIL <detail>" in
 * results and in the kernel log; a case also fails if it leaves any object
 * (cm_id, PD, CQ, QP, MR, DMA mapping, buffer) behind.  The write returns
 * when the selected cases are done; every wait is bounded by timeout_ms.
 * If the device goes away while "hold" is connected (RDMA_CM_EVENT_
 * DEVICE_REMOVAL), a work item frees the connection and appends
 * "XRDMA_CASE device_removal ..." to results.
 */
#include <linux/module.h>
#include <linux/inet.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include "cmtest.h"

static char *ip = "198.18.0.1";
module_param(ip, charp, 0444);
MODULE_PARM_DESC(ip, "IPv4 address of the RDMA device (loopback: both ends)");
static ushort port = 20000;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "first port; case N listens on port + N");
unsigned int ct_timeout_ms = 10000;
module_param_named(timeout_ms, ct_timeout_ms, uint, 0644);
MODULE_PARM_DESC(timeout_ms, "bound of every wait for an event or completion");

atomic_t ct_objs[CT_OBJ_MAX];
const char *const ct_obj_names[CT_OBJ_MAX] = {
	"cm_id", "pd", "cq", "qp", "mr", "dma_map", "buffer",
};

static struct ktest ct_kt;	/* its lock protects ct_held too */
static struct ct *ct_held;	/* the connection "hold" made */
static struct work_struct ct_remove_work;

static const u8 ct_req_pdata[] = "xrdma_cmtest connect request";
static const u8 ct_rep_pdata[] = "xrdma_cmtest accept";

/* --- results --- */

bool ct_ok_(struct ct *t, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ktest_failv(&t->failed, t->detail, sizeof(t->detail), "line ", line,
		    fmt, ap);
	va_end(ap);
	return false;
}

void ct_note(struct ct *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vscnprintf(t->note, sizeof(t->note), fmt, ap);
	va_end(ap);
}

static void ct_report(const char *name, bool pass, const char *detail)
{
	ktest_report(&ct_kt, name, pass, detail);
}

/* --- data patterns --- */

static u8 ct_pat(u32 seed, size_t i)
{
	u32 x = seed * 2654435761u + (u32)i * 40503u;

	return (x >> 13) ^ (x >> 24) ^ (u8)i;
}

void ct_pat_fill(u8 *p, size_t len, u32 seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = ct_pat(seed, i);
}

/* the first byte that differs, or -1 */
long ct_pat_check(const u8 *p, size_t len, u32 seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != ct_pat(seed, i))
			return i;
	return -1;
}

/* --- rdma_cm events --- */

static void ct_record(struct ct_end *e, const struct rdma_cm_event *ev)
{
	const void *pd = ev->param.conn.private_data;
	unsigned long flags;
	u8 n = 0;

	pr_info("xrdma_cmtest: %s %s: %s (%d) status %d\n", e->t->name,
		e->role, rdma_event_msg(ev->event), ev->event, ev->status);
	if (ev->event >= CT_NEV)
		return;
	if (pd && ev->event != RDMA_CM_EVENT_ADDR_RESOLVED &&
	    ev->event != RDMA_CM_EVENT_ROUTE_RESOLVED)
		n = min_t(u8, CT_PDATA, ev->param.conn.private_data_len);
	spin_lock_irqsave(&e->lock, flags);
	e->status[ev->event] = ev->status;
	if (n)
		memcpy(e->pdata[ev->event], pd, n);
	e->pdata_len[ev->event] = n;
	e->events |= BIT(ev->event);
	spin_unlock_irqrestore(&e->lock, flags);
	wake_up_all(&e->wq);
}

bool ct_seen(struct ct_end *e, enum rdma_cm_event_type ev)
{
	return READ_ONCE(e->events) & BIT(ev);
}

/*
 * Wait until @e has seen an event in @mask; *@got (if given) is the
 * lowest one seen.  False (and the case fails) past the bound.
 */
bool ct_wait_ev(struct ct *t, struct ct_end *e, unsigned long mask,
		int *got, const char *what)
{
	unsigned long seen;

	wait_event_timeout(e->wq, READ_ONCE(e->events) & mask,
			   msecs_to_jiffies(ct_timeout_ms));
	seen = READ_ONCE(e->events);
	if (!CT_OK(t, seen & mask,
		   "%s: %s saw no awaited event within %u ms (events 0x%lx, want 0x%lx)",
		   what, e->role, ct_timeout_ms, seen, mask))
		return false;
	if (got)
		*got = __ffs(seen & mask);
	return true;
}

static void ct_wr_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ct_wr *w = container_of(wc->wr_cqe, struct ct_wr, cqe);

	w->opcode = wc->opcode;
	w->byte_len = wc->byte_len;
	WRITE_ONCE(w->status, wc->status);
	complete(&w->done);
}

static void ct_wr_init(struct ct_wr *w)
{
	init_completion(&w->done);
	w->cqe.done = ct_wr_done;
	w->status = -1;
}

/* --- ends: buffers, PD, CQ, QP --- */

static void *ct_buf_map(struct ct_end *e, size_t size, u64 *dma)
{
	struct ib_device *dev = e->dev;
	void *p = kzalloc(size, GFP_KERNEL);

	if (!p)
		return NULL;
	*dma = ib_dma_map_single(dev, p, size, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(dev, *dma)) {
		kfree(p);
		return NULL;
	}
	atomic_inc(&ct_objs[CT_OBJ_BUF]);
	atomic_inc(&ct_objs[CT_OBJ_MAP]);
	return p;
}

static void ct_buf_unmap(struct ct_end *e, u8 **p, u64 dma, size_t size)
{
	if (!*p)
		return;
	ib_dma_unmap_single(e->dev, dma, size, DMA_BIDIRECTIONAL);
	kfree(*p);
	*p = NULL;
	atomic_dec(&ct_objs[CT_OBJ_BUF]);
	atomic_dec(&ct_objs[CT_OBJ_MAP]);
}

static int ct_post_recv(struct ct_end *e, int i)
{
	struct ct_wr *w = &e->rwr[i];
	struct ib_sge sge = {
		.addr = e->msg_dma + i * CT_MSG,
		.length = CT_MSG,
		.lkey = e->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &w->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	ct_wr_init(w);
	return ib_post_recv(e->id->qp, &wr, NULL);
}

/*
 * PD, CQ (polled in e->poll context), RC QP on the cm_id, the message
 * buffer with every receive posted, and (@data) the RDMA buffer.  Runs in
 * the test thread (client) or in the cm handler (server).  Whatever it
 * made is freed by ct_end_fini() even when it fails halfway.
 */
static int ct_end_setup(struct ct_end *e, bool data)
{
	struct ib_device *dev = e->id->device;
	struct ib_qp_init_attr qa = {};
	struct ib_cq *cq;
	struct ib_pd *pd;
	int i, ret;

	e->dev = dev;
	pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(pd))
		return PTR_ERR(pd);
	e->pd = pd;
	atomic_inc(&ct_objs[CT_OBJ_PD]);
	cq = ib_alloc_cq(dev, e, 2 * (CT_NRECV + 4 * CT_NSEND), 0, e->poll);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	e->cq = cq;
	atomic_inc(&ct_objs[CT_OBJ_CQ]);
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qa.cap.max_send_wr = 4 * CT_NSEND;
	qa.cap.max_recv_wr = CT_NRECV;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qa.sq_sig_type = IB_SIGNAL_REQ_WR;
	qa.qp_type = IB_QPT_RC;
	ret = rdma_create_qp(e->id, pd, &qa);
	if (ret)
		return ret;
	e->qp = true;
	atomic_inc(&ct_objs[CT_OBJ_QP]);
	e->msg = ct_buf_map(e, (CT_NRECV + CT_NSEND) * CT_MSG, &e->msg_dma);
	if (!e->msg)
		return -ENOMEM;
	if (data) {
		e->data = ct_buf_map(e, CT_DATA, &e->data_dma);
		if (!e->data)
			return -ENOMEM;
	}
	for (i = 0; i < CT_NSEND; i++)
		ct_wr_init(&e->swr[i]);
	for (i = 0; i < CT_NRECV; i++) {
		ret = ct_post_recv(e, i);
		if (ret)
			return ret;
		e->nrecv++;
	}
	return 0;
}

void ct_destroy_qp(struct ct_end *e)
{
	if (!e->qp)
		return;
	rdma_destroy_qp(e->id);
	e->qp = false;
	atomic_dec(&ct_objs[CT_OBJ_QP]);
}

void ct_destroy_id(struct ct_end *e)
{
	if (!e->id)
		return;
	rdma_destroy_id(e->id);
	e->id = NULL;
	atomic_dec(&ct_objs[CT_OBJ_ID]);
}

static void ct_mr_fini(struct ct_end *e)
{
	int i;

	if (e->mr) {
		ib_dereg_mr(e->mr);
		e->mr = NULL;
		atomic_dec(&ct_objs[CT_OBJ_MR]);
	}
	if (e->sg_mapped) {
		ib_dma_unmap_sg(e->dev, e->sg, CT_MR_PAGES,
				DMA_BIDIRECTIONAL);
		e->sg_mapped = 0;
		atomic_dec(&ct_objs[CT_OBJ_MAP]);
	}
	if (e->mr_va) {
		vunmap(e->mr_va);
		e->mr_va = NULL;
	}
	for (i = 0; i < CT_MR_PAGES; i++) {
		if (e->pages[i]) {
			__free_page(e->pages[i]);
			e->pages[i] = NULL;
			atomic_dec(&ct_objs[CT_OBJ_BUF]);
		}
	}
}

/*
 * Free everything of an end, QP first: after ib_free_cq() no completion
 * handler runs, so the buffers and slots can go.
 */
static void ct_end_fini(struct ct_end *e)
{
	ct_destroy_qp(e);
	if (e->cq) {
		ib_free_cq(e->cq);
		e->cq = NULL;
		atomic_dec(&ct_objs[CT_OBJ_CQ]);
	}
	if (e->dev) {
		ct_mr_fini(e);
		ct_buf_unmap(e, &e->msg, e->msg_dma,
			     (CT_NRECV + CT_NSEND) * CT_MSG);
		ct_buf_unmap(e, &e->data, e->data_dma, CT_DATA);
	}
	if (e->pd) {
		ib_dealloc_pd(e->pd);
		e->pd = NULL;
		atomic_dec(&ct_objs[CT_OBJ_PD]);
	}
	ct_destroy_id(e);
}

/* --- the cm handler --- */

/* In the listener's handler: accept @id as the server end. */
static int ct_accept(struct ct *t, struct ct_end *s,
		     const struct rdma_cm_event *ev)
{
	const struct ib_device_attr *a = &s->id->device->attrs;
	struct rdma_conn_param p = {
		.private_data = ct_rep_pdata,
		.private_data_len = sizeof(ct_rep_pdata),
		.rnr_retry_count = 7,
	};
	int ret;

	ret = ct_end_setup(s, false);
	if (ret)
		return ret;
	p.responder_resources = min_t(int, ev->param.conn.initiator_depth,
				      a->max_qp_rd_atom);
	p.initiator_depth = min_t(int, ev->param.conn.responder_resources,
				  a->max_qp_init_rd_atom);
	return rdma_accept(s->id, &p);
}

static int ct_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct ct_end *e = id->context;
	struct ct *t = e->t;
	struct ct_end *s = &t->srv;

	if (e != &t->lis || ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
		ct_record(e, ev);
		/* the held connection is freed by a work item, not here */
		if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
			schedule_work(&ct_remove_work);
		return 0;
	}
	/* a new cm_id: the server end, unless there is one already */
	atomic_inc(&t->requests);
	if (s->id) {
		rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
		return 1;	/* rdma_cm destroys it */
	}
	s->id = id;
	id->context = s;
	atomic_inc(&ct_objs[CT_OBJ_ID]);
	if (t->mode == CT_REJECT) {
		static const u8 rej[] = "xrdma_cmtest reject";

		t->accept_err = rdma_reject(id, rej, sizeof(rej),
					    IB_CM_REJ_CONSUMER_DEFINED);
	} else {
		t->accept_err = ct_accept(t, s, ev);
		if (t->accept_err)
			rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
	}
	ct_record(s, ev);
	return 0;
}

/* --- the environment --- */

static void ct_end_init(struct ct *t, struct ct_end *e, const char *role,
			enum ib_poll_context poll)
{
	e->t = t;
	e->role = role;
	e->poll = poll;
	spin_lock_init(&e->lock);
	init_waitqueue_head(&e->wq);
}

int ct_init(struct ct *t, const char *name, u16 p)
{
	t->name = name;
	t->port = p;
	/* two completion contexts: softirq (client), workqueue (server) */
	ct_end_init(t, &t->lis, "listener", IB_POLL_DIRECT);
	ct_end_init(t, &t->cli, "client", IB_POLL_SOFTIRQ);
	ct_end_init(t, &t->srv, "server", IB_POLL_WORKQUEUE);
	atomic_set(&t->requests, 0);
	t->addr.sin_family = AF_INET;
	t->addr.sin_port = htons(p);
	if (!in4_pton(ip, -1, (u8 *)&t->addr.sin_addr.s_addr, -1, NULL)) {
		CT_OK(t, false, "ip=%s is no IPv4 address", ip);
		return -EINVAL;
	}
	return 0;
}

/*
 * The listener goes first: destroying it waits for its handler, so no
 * connect request can set up a server end behind our back.
 */
void ct_fini(struct ct *t)
{
	ct_destroy_id(&t->lis);
	ct_end_fini(&t->srv);
	ct_end_fini(&t->cli);
}

static struct rdma_cm_id *ct_create_id(struct ct *t, struct ct_end *e)
{
	struct rdma_cm_id *id;

	id = rdma_create_id(&init_net, ct_cm_handler, e, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (!CT_OK(t, !IS_ERR(id), "rdma_create_id (%s): %ld", e->role,
		   PTR_ERR(id)))
		return NULL;
	e->id = id;
	atomic_inc(&ct_objs[CT_OBJ_ID]);
	return id;
}

int ct_listen(struct ct *t)
{
	struct rdma_cm_id *id = ct_create_id(t, &t->lis);
	int ret;

	if (!id)
		return -ENOMEM;
	ret = rdma_bind_addr(id, (struct sockaddr *)&t->addr);
	if (!CT_OK(t, !ret, "rdma_bind_addr %pI4:%u: %d", &t->addr.sin_addr,
		   t->port, ret))
		return ret;
	if (!CT_OK(t, id->device, "listener bound to %pI4 has no device",
		   &t->addr.sin_addr))
		return -ENODEV;
	ret = rdma_listen(id, 4);
	CT_OK(t, !ret, "rdma_listen: %d", ret);
	return ret;
}

/* client: resolve the address and the route, then its PD, CQ and QP */
int ct_resolve(struct ct *t)
{
	struct ct_end *c = &t->cli;
	struct rdma_cm_id *id = ct_create_id(t, c);
	int ret, ev;

	if (!id)
		return -ENOMEM;
	ret = rdma_resolve_addr(id, NULL, (struct sockaddr *)&t->addr,
				ct_timeout_ms);
	if (!CT_OK(t, !ret, "rdma_resolve_addr: %d", ret))
		return ret;
	if (!ct_wait_ev(t, c, BIT(RDMA_CM_EVENT_ADDR_RESOLVED) |
			BIT(RDMA_CM_EVENT_ADDR_ERROR), &ev, "resolve_addr"))
		return -ETIMEDOUT;
	if (!CT_OK(t, ev == RDMA_CM_EVENT_ADDR_RESOLVED && !c->status[ev],
		   "resolve_addr: %s status %d", rdma_event_msg(ev),
		   c->status[ev]))
		return -EHOSTUNREACH;
	if (!CT_OK(t, id->device, "ADDR_RESOLVED without a device"))
		return -ENODEV;
	ret = rdma_resolve_route(id, ct_timeout_ms);
	if (!CT_OK(t, !ret, "rdma_resolve_route: %d", ret))
		return ret;
	if (!ct_wait_ev(t, c, BIT(RDMA_CM_EVENT_ROUTE_RESOLVED) |
			BIT(RDMA_CM_EVENT_ROUTE_ERROR), &ev, "resolve_route"))
		return -ETIMEDOUT;
	if (!CT_OK(t, ev == RDMA_CM_EVENT_ROUTE_RESOLVED && !c->status[ev],
		   "resolve_route: %s status %d", rdma_event_msg(ev),
		   c->status[ev]))
		return -EHOSTUNREACH;
	ret = ct_end_setup(c, true);
	CT_OK(t, !ret, "client PD/CQ/QP/buffers on %s: %d",
	      dev_name(&id->device->dev), ret);
	return ret;
}

int ct_connect(struct ct *t)
{
	const struct ib_device_attr *a = &t->cli.id->device->attrs;
	struct rdma_conn_param p = {
		.private_data = ct_req_pdata,
		.private_data_len = sizeof(ct_req_pdata),
		.retry_count = t->retry_count ?: 7,
		.rnr_retry_count = 7,
	};
	int ret;

	if (t->ack_timeout) {
		ret = rdma_set_ack_timeout(t->cli.id, t->ack_timeout);
		if (!CT_OK(t, !ret, "rdma_set_ack_timeout: %d", ret))
			return ret;
	}

	p.responder_resources = min_t(int, 4, a->max_qp_rd_atom);
	p.initiator_depth = min_t(int, 4, a->max_qp_init_rd_atom);
	ret = rdma_connect(t->cli.id, &p);
	CT_OK(t, !ret, "rdma_connect: %d", ret);
	return ret;
}

/*
 * listen, resolve, connect: ESTABLISHED on both ends, the request's and
 * the accept's private data delivered, both ends on the same device
 */
int ct_establish(struct ct *t)
{
	struct ct_end *c = &t->cli, *s = &t->srv;
	const u8 *pd;
	int ret, ev;

	ret = ct_listen(t);
	if (!ret)
		ret = ct_resolve(t);
	if (!ret)
		ret = ct_connect(t);
	if (ret)
		return ret;
	if (!ct_wait_ev(t, c, BIT(RDMA_CM_EVENT_ESTABLISHED) |
			BIT(RDMA_CM_EVENT_REJECTED) |
			BIT(RDMA_CM_EVENT_UNREACHABLE) |
			BIT(RDMA_CM_EVENT_CONNECT_ERROR), &ev, "connect"))
		return -ETIMEDOUT;
	if (!CT_OK(t, ev == RDMA_CM_EVENT_ESTABLISHED,
		   "connect: client got %s status %d (server accept %d)",
		   rdma_event_msg(ev), c->status[ev], t->accept_err))
		return -ECONNREFUSED;
	if (!ct_wait_ev(t, s, BIT(RDMA_CM_EVENT_ESTABLISHED), NULL,
			"server ESTABLISHED"))
		return -ETIMEDOUT;
	ev = RDMA_CM_EVENT_CONNECT_REQUEST;
	pd = s->pdata[ev];
	if (!CT_OK(t, s->pdata_len[ev] >= sizeof(ct_req_pdata) &&
		   !memcmp(pd, ct_req_pdata, sizeof(ct_req_pdata)),
		   "CONNECT_REQUEST private data (%u bytes) is not the client's",
		   s->pdata_len[ev]))
		return -EPROTO;
	ev = RDMA_CM_EVENT_ESTABLISHED;
	pd = c->pdata[ev];
	if (!CT_OK(t, c->pdata_len[ev] >= sizeof(ct_rep_pdata) &&
		   !memcmp(pd, ct_rep_pdata, sizeof(ct_rep_pdata)),
		   "client ESTABLISHED private data (%u bytes) is not the accept's",
		   c->pdata_len[ev]))
		return -EPROTO;
	if (!CT_OK(t, s->id->device == c->id->device &&
		   s->id->device == t->lis.id->device,
		   "the ends are on different devices"))
		return -EXDEV;
	if (!CT_OK(t, atomic_read(&t->requests) == 1,
		   "%d connect requests for one connect",
		   atomic_read(&t->requests)))
		return -EPROTO;
	return 0;
}

/*
 * An orderly disconnect: the client disconnects, the server sees
 * DISCONNECTED and answers, the client sees DISCONNECTED; both with
 * status 0 (a DREQ that timed out would say -ETIMEDOUT).
 */
void ct_disconnect(struct ct *t)
{
	const int ev = RDMA_CM_EVENT_DISCONNECTED;
	int ret;

	ret = rdma_disconnect(t->cli.id);
	if (!CT_OK(t, !ret, "client rdma_disconnect: %d", ret))
		return;
	if (!ct_wait_ev(t, &t->srv, BIT(ev), NULL, "disconnect"))
		return;
	ret = rdma_disconnect(t->srv.id);
	if (!CT_OK(t, !ret, "server rdma_disconnect: %d", ret))
		return;
	if (!ct_wait_ev(t, &t->cli, BIT(ev), NULL, "disconnect"))
		return;
	CT_OK(t, !t->srv.status[ev] && !t->cli.status[ev],
	      "DISCONNECTED status: server %d client %d", t->srv.status[ev],
	      t->cli.status[ev]);
}

/* True if no end saw an event it should not have. */
bool ct_quiet(struct ct *t)
{
	unsigned long bad = BIT(RDMA_CM_EVENT_DEVICE_REMOVAL) |
			    BIT(RDMA_CM_EVENT_ADDR_CHANGE) |
			    BIT(RDMA_CM_EVENT_CONNECT_ERROR);

	return CT_OK(t, !((t->cli.events | t->srv.events | t->lis.events) &
			  bad),
		     "unexpected event: client 0x%lx server 0x%lx listener 0x%lx",
		     t->cli.events, t->srv.events, t->lis.events);
}

/* --- work requests --- */

u8 *ct_send_buf(struct ct_end *e, int slot)
{
	return e->msg + (CT_NRECV + slot) * CT_MSG;
}

u8 *ct_recv_buf(struct ct_end *e, struct ct_wr *w)
{
	return e->msg + (w - e->rwr) * CT_MSG;
}

int ct_post_send(struct ct *t, struct ct_end *e, int slot,
		 struct ib_send_wr *wr, const char *what)
{
	struct ct_wr *w = &e->swr[slot];
	int ret;

	reinit_completion(&w->done);
	w->status = -1;
	wr->wr_cqe = &w->cqe;
	wr->send_flags |= IB_SEND_SIGNALED;
	ret = ib_post_send(e->id->qp, wr, NULL);
	CT_OK(t, !ret, "%s: %s ib_post_send: %d", what, e->role, ret);
	return ret;
}

/* SEND @len bytes of send slot @slot (the caller filled it) */
int ct_send_msg(struct ct *t, struct ct_end *e, int slot, size_t len,
		const char *what)
{
	u64 off = (CT_NRECV + slot) * CT_MSG;
	struct ib_sge sge = {
		.addr = e->msg_dma + off,
		.length = len,
		.lkey = e->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.opcode = IB_WR_SEND,
		.sg_list = &sge,
		.num_sge = 1,
	};

	ib_dma_sync_single_for_device(e->dev, e->msg_dma + off, len,
				      DMA_BIDIRECTIONAL);
	return ct_post_send(t, e, slot, &wr, what);
}

/*
 * Wait for the completion of @w: @status, and @opcode (if >= 0) when it
 * succeeded.
 */
bool ct_wait_wr(struct ct *t, struct ct_wr *w, int status, int opcode,
		const char *what)
{
	int st;

	if (!wait_for_completion_timeout(&w->done,
					 msecs_to_jiffies(ct_timeout_ms)))
		return CT_OK(t, false, "%s: no completion within %u ms", what,
			     ct_timeout_ms);
	st = READ_ONCE(w->status);
	if (!CT_OK(t, st == status, "%s: completion status %s (%d), want %s",
		   what, ib_wc_status_msg(st), st, ib_wc_status_msg(status)))
		return false;
	return CT_OK(t, st != IB_WC_SUCCESS || opcode < 0 ||
		     w->opcode == opcode, "%s: completion opcode %d, want %d",
		     what, w->opcode, opcode);
}

/* Wait for @w to complete with an error status (any). */
bool ct_wait_err(struct ct *t, struct ct_wr *w, const char *what)
{
	int st;

	if (!wait_for_completion_timeout(&w->done,
					 msecs_to_jiffies(ct_timeout_ms)))
		return CT_OK(t, false, "%s: no completion within %u ms", what,
			     ct_timeout_ms);
	st = READ_ONCE(w->status);
	return CT_OK(t, st != IB_WC_SUCCESS,
		     "%s: completed successfully, want an error", what);
}

/* the next receive of @e (they complete in order) */
struct ct_wr *ct_wait_recv(struct ct *t, struct ct_end *e, int status,
			   const char *what)
{
	struct ct_wr *w;

	if (!CT_OK(t, e->next_recv < e->nrecv, "%s: %s has no receive left",
		   what, e->role))
		return NULL;
	w = &e->rwr[e->next_recv++];
	if (!ct_wait_wr(t, w, status, IB_WC_RECV, what))
		return NULL;
	ib_dma_sync_single_for_cpu(e->dev, e->msg_dma + (w - e->rwr) * CT_MSG, CT_MSG,
				   DMA_BIDIRECTIONAL);
	return w;
}

/* the data buffer and the MR's pages for the CPU, or for the device */
void ct_sync_for_cpu(struct ct_end *e)
{
	struct ib_device *dev = e->dev;

	if (e->data)
		ib_dma_sync_single_for_cpu(dev, e->data_dma, CT_DATA,
					   DMA_BIDIRECTIONAL);
	if (e->sg_mapped && !ib_uses_virt_dma(dev))
		dma_sync_sg_for_cpu(dev->dma_device, e->sg, CT_MR_PAGES,
				    DMA_BIDIRECTIONAL);
}

void ct_sync_for_dev(struct ct_end *e)
{
	struct ib_device *dev = e->dev;

	if (e->data)
		ib_dma_sync_single_for_device(dev, e->data_dma, CT_DATA,
					      DMA_BIDIRECTIONAL);
	if (e->sg_mapped && !ib_uses_virt_dma(dev))
		dma_sync_sg_for_device(dev->dma_device, e->sg, CT_MR_PAGES,
				       DMA_BIDIRECTIONAL);
}

/* --- fast registration --- */

/* CT_MR_PAGES separate pages, DMA-mapped, under a MEM_REG MR (not yet
 * registered: ct_mr_reg)
 */
int ct_mr_setup(struct ct *t, struct ct_end *e)
{
	struct ib_device *dev = e->dev;
	struct ib_mr *mr;
	int i, n;

	sg_init_table(e->sg, CT_MR_PAGES);
	for (i = 0; i < CT_MR_PAGES; i++) {
		e->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!CT_OK(t, e->pages[i], "no memory"))
			return -ENOMEM;
		atomic_inc(&ct_objs[CT_OBJ_BUF]);
		sg_set_page(&e->sg[i], e->pages[i], PAGE_SIZE, 0);
	}
	e->mr_va = vmap(e->pages, CT_MR_PAGES, VM_MAP, PAGE_KERNEL);
	if (!CT_OK(t, e->mr_va, "vmap failed"))
		return -ENOMEM;
	n = ib_dma_map_sg(dev, e->sg, CT_MR_PAGES, DMA_BIDIRECTIONAL);
	if (!CT_OK(t, n > 0, "ib_dma_map_sg: %d", n))
		return -EIO;
	e->sg_mapped = n;
	atomic_inc(&ct_objs[CT_OBJ_MAP]);
	mr = ib_alloc_mr(e->pd, IB_MR_TYPE_MEM_REG, CT_MR_PAGES);
	if (!CT_OK(t, !IS_ERR(mr), "ib_alloc_mr: %ld", PTR_ERR(mr)))
		return PTR_ERR(mr);
	e->mr = mr;
	atomic_inc(&ct_objs[CT_OBJ_MR]);
	n = ib_map_mr_sg(mr, e->sg, e->sg_mapped, NULL, PAGE_SIZE);
	if (!CT_OK(t, n == e->sg_mapped, "ib_map_mr_sg: %d of %d", n,
		   e->sg_mapped))
		return n < 0 ? n : -EIO;
	if (!CT_OK(t, mr->length == CT_MR_PAGES * PAGE_SIZE &&
		   mr->iova == sg_dma_address(&e->sg[0]),
		   "MR after ib_map_mr_sg: iova 0x%llx length %llu", mr->iova,
		   mr->length))
		return -EIO;
	return 0;
}

/* IB_WR_REG_MR with a new key: local write, remote read and write */
int ct_mr_reg(struct ct *t, struct ct_end *e, int slot)
{
	struct ib_reg_wr rw = {
		.wr.opcode = IB_WR_REG_MR,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			  IB_ACCESS_REMOTE_WRITE,
	};
	int ret;

	ib_update_fast_reg_key(e->mr, ++t->key);
	rw.mr = e->mr;
	rw.key = e->mr->rkey;
	ret = ct_post_send(t, e, slot, &rw.wr, "REG_MR");
	if (ret)
		return ret;
	return ct_wait_wr(t, &e->swr[slot], IB_WC_SUCCESS, IB_WC_REG_MR,
			  "REG_MR") ? 0 : -EIO;
}

int ct_mr_inv(struct ct *t, struct ct_end *e, int slot)
{
	struct ib_send_wr wr = {
		.opcode = IB_WR_LOCAL_INV,
		.ex.invalidate_rkey = e->mr->rkey,
	};
	int ret;

	ret = ct_post_send(t, e, slot, &wr, "LOCAL_INV");
	if (ret)
		return ret;
	return ct_wait_wr(t, &e->swr[slot], IB_WC_SUCCESS, IB_WC_LOCAL_INV,
			  "LOCAL_INV") ? 0 : -EIO;
}

/* --- running cases --- */

static void ct_count(int c[CT_OBJ_MAX])
{
	int i;

	for (i = 0; i < CT_OBJ_MAX; i++)
		c[i] = atomic_read(&ct_objs[i]);
}

/* every object count back to @before; false (and a FAIL) if not */
static bool ct_leak_check(struct ct *t, const int before[CT_OBJ_MAX])
{
	int after[CT_OBJ_MAX], i;
	bool ok = true;

	ct_count(after);
	for (i = 0; i < CT_OBJ_MAX; i++)
		ok &= CT_OK(t, after[i] == before[i],
			    "leak: %d %s objects before, %d after", before[i],
			    ct_obj_names[i], after[i]);
	return ok;
}

static void ct_case_name(unsigned int i, char *buf, size_t size)
{
	strscpy(buf, ct_cases[i].name, size);
}

static bool ct_run_one(struct ktest *kt, unsigned int idx, const char *name)
{
	const struct ct_case *c = &ct_cases[idx];
	int before[CT_OBJ_MAX];
	struct ct *t;
	bool pass;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t) {
		ct_report(c->name, false, "no memory");
		return false;
	}
	ct_count(before);
	if (!ct_init(t, c->name, port + idx))
		c->fn(t);
	ct_fini(t);
	ct_leak_check(t, before);
	ct_report(c->name, !t->failed, t->failed ? t->detail :
		  t->note[0] ? t->note : "ok");
	pass = !t->failed;
	kfree(t);
	return pass;
}

/* "hold": a connection that stays up until "release" or device removal */
static void ct_hold(void)
{
	struct ct *t;

	if (ct_held) {
		ct_report("hold", false, "a connection is held already");
		return;
	}
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t) {
		ct_report("hold", false, "no memory");
		return;
	}
	if (!ct_init(t, "hold", port + ct_ncases) && !ct_establish(t)) {
		ct_note(t, "client_qpn=%u server_qpn=%u device=%s",
			t->cli.id->qp->qp_num, t->srv.id->qp->qp_num,
			dev_name(&t->cli.id->device->dev));
		ct_report("hold", true, t->note);
		ct_held = t;
		return;
	}
	ct_fini(t);
	ct_report("hold", false, t->detail);
	kfree(t);
}

/*
 * Tear the held connection down: disconnect (unless the device is going
 * away), then free it all; the module must hold nothing afterwards.
 */
static void ct_release(const char *name, bool removal)
{
	static const int zero[CT_OBJ_MAX];
	struct ct *t = ct_held;

	if (!t)
		return;
	if (removal && !ct_seen(&t->cli, RDMA_CM_EVENT_DEVICE_REMOVAL) &&
	    !ct_seen(&t->srv, RDMA_CM_EVENT_DEVICE_REMOVAL) &&
	    !ct_seen(&t->lis, RDMA_CM_EVENT_DEVICE_REMOVAL))
		return;		/* another device went away */
	ct_held = NULL;
	if (removal) {
		/* rdma_cm tells one cm_id after the other: wait for all */
		ct_wait_ev(t, &t->cli, BIT(RDMA_CM_EVENT_DEVICE_REMOVAL), NULL,
			   "DEVICE_REMOVAL");
		ct_wait_ev(t, &t->srv, BIT(RDMA_CM_EVENT_DEVICE_REMOVAL), NULL,
			   "DEVICE_REMOVAL");
		ct_wait_ev(t, &t->lis, BIT(RDMA_CM_EVENT_DEVICE_REMOVAL), NULL,
			   "DEVICE_REMOVAL");
	} else {
		ct_disconnect(t);
	}
	ct_fini(t);
	ct_leak_check(t, zero);
	ct_report(name, !t->failed, t->failed ? t->detail : "ok");
	kfree(t);
}

static void ct_remove_fn(struct work_struct *w)
{
	mutex_lock(&ct_kt.lock);
	ct_release("device_removal", true);
	mutex_unlock(&ct_kt.lock);
}

/* ktest: the words "hold" and "release" of run */
static bool ct_command(struct ktest *kt, const char *word, int *ret)
{
	bool held = ct_held;

	if (!strcmp(word, "hold")) {
		ct_hold();
		*ret = 0;
		return true;
	}
	if (!strcmp(word, "release")) {
		ct_release("release", false);
		*ret = held ? 0 : -ENOENT;
		return true;
	}
	return false;
}

/* ktest_exit(): no run is in progress; let go of a held connection */
static void ct_kt_fini(struct ktest *kt)
{
	flush_work(&ct_remove_work);
	mutex_lock(&kt->lock);
	if (ct_held)
		ct_release("release", false);
	mutex_unlock(&kt->lock);
	/* no cm_id is left, so nothing queues it again */
	flush_work(&ct_remove_work);
}

static struct ktest ct_kt = {
	.name = "xrdma_cmtest",
	.results_size = 16 * 1024,
	.case_name = ct_case_name,
	.run_case = ct_run_one,
	.command = ct_command,
	.fini = ct_kt_fini,
};

static int __init ct_module_init(void)
{
	struct sockaddr_in sin;

	if (!in4_pton(ip, -1, (u8 *)&sin.sin_addr.s_addr, -1, NULL)) {
		pr_err("xrdma_cmtest: ip=%s is no IPv4 address\n", ip);
		return -EINVAL;
	}
	INIT_WORK(&ct_remove_work, ct_remove_fn);
	ct_kt.ncases = ct_ncases;
	return ktest_init(&ct_kt);
}

static void __exit ct_module_exit(void)
{
	ktest_exit(&ct_kt);
}

module_init(ct_module_init);
module_exit(ct_module_exit);
MODULE_DESCRIPTION("xrdma: in-kernel tests of rdma_cm and ib_core verbs");
MODULE_LICENSE("GPL");
