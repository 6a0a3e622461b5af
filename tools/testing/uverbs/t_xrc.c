// SPDX-License-Identifier: GPL-2.0
/*
 * uverbs_test xrc: XRC through the ABI (Documentation/uverbs.rst, "XRC"):
 * OPEN_XRCD (private and by file, O_CREAT/O_EXCL, shared between
 * contexts), DESTROY of XRCD handles, CREATE_SRQ VER1 (XRC SRQs),
 * CREATE_QP VER1 (XRC_SEND, XRC_RECV), OPEN_QP, the shared QP's events in
 * every context holding a handle, and teardown at close.  Runs against
 * xrdma_testdev (XRDMA_DEVICE_CAP_XRC, no data path).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include "ut.h"

#define BAD_HANDLE 0xfffff0u

static int open_xrcd(int fd, int file, uint32_t oflags, uint32_t *h)
{
	struct xrdma_cmd_open_xrcd c = { .fd = file, .oflags = oflags };
	int ret = xio(fd, XRDMA_IOC_OPEN_XRCD, &c);

	if (h)
		*h = ret ? 0 : c.xrcd_handle;
	return ret;
}

static int xrc_srq(int fd, uint32_t pd, uint32_t xrcd, uint32_t cq,
		   uint64_t cookie, uint32_t *h, uint32_t *srqn)
{
	struct xrdma_cmd_create_srq c = {
		.user_cookie = cookie, .pd_handle = pd,
		.max_wr = 4, .max_sge = 1,
		.srq_type = XRDMA_UVERBS_SRQT_XRC,
		.xrcd_handle = xrcd, .cq_handle = cq,
	};
	int ret = xio(fd, XRDMA_IOC_CREATE_SRQ, &c);

	*h = ret ? 0 : c.srq_handle;
	if (srqn)
		*srqn = ret ? 0 : c.srq_num;
	return ret;
}

static void recv_qp_cmd(struct xrdma_cmd_create_qp *c, uint32_t xrcd,
			uint64_t cookie)
{
	memset(c, 0, sizeof(*c));
	c->user_cookie = cookie;
	c->qp_type = XRDMA_UVERBS_QPT_XRC_RECV;
	c->xrcd_handle = xrcd;
}

static void send_qp_cmd(struct xrdma_cmd_create_qp *c, uint32_t pd,
			uint32_t cq)
{
	memset(c, 0, sizeof(*c));
	c->qp_type = XRDMA_UVERBS_QPT_XRC_SEND;
	c->pd_handle = pd;
	c->send_cq_handle = cq;
	c->cap.max_send_wr = 4;
	c->cap.max_send_sge = 1;
}

static int open_qp(int fd, uint32_t xrcd, uint32_t qpn, uint32_t type,
		   uint64_t cookie, uint32_t *h)
{
	struct xrdma_cmd_open_qp c = {
		.user_cookie = cookie, .xrcd_handle = xrcd, .qpn = qpn,
		.qp_type = type,
	};
	int ret = xio(fd, XRDMA_IOC_OPEN_QP, &c);

	if (h)
		*h = ret ? 0 : c.qp_handle;
	return ret;
}

/* a file to name a domain by: a new temporary file, its fd */
static int domain_file(void)
{
	char path[] = "/tmp/xrdma-xrcd.XXXXXX";
	int f = mkstemp(path);

	if (f >= 0)
		unlink(path);
	return f;
}

/* the events queued on async fd as (O_NONBLOCK), at most max: how many */
static int read_events(int as, struct xrdma_async_event *ev, int max)
{
	ssize_t r;
	int n = 0;

	if (wait_readable(as, 2000) <= 0)
		return 0;
	while (n < max) {
		r = read(as, ev + n, (max - n) * sizeof(*ev));
		if (r <= 0)
			break;
		n += r / sizeof(*ev);
	}
	return n;
}

/* QP_FATAL of handle h among ev[0..n): 1 with its cookie, else 0 */
static int qp_fatal_in(const struct xrdma_async_event *ev, int n, uint32_t h,
		       uint64_t *cookie)
{
	int i;

	for (i = 0; i < n; i++) {
		if (ev[i].event_type == XRDMA_UVERBS_EVENT_QP_FATAL &&
		    ev[i].handle == h) {
			*cookie = ev[i].element;
			return 1;
		}
	}
	return 0;
}

static int async_nonblock(struct ctx *c)
{
	int as = get_async_fd(c->fd);

	if (as >= 0)
		fcntl(as, F_SETFL, fcntl(as, F_GETFL) | O_NONBLOCK);
	return as;
}

static void xrc_open_xrcd(void)
{
	uint32_t a, b, h1, h2, h3, h4;
	struct xrdma_cmd_open_xrcd c;
	struct ctx c1, c2;
	int f, e, pfd[2];

	if (!CHECK_RC(ctx_open(&c1), 0, "context 1") ||
	    !CHECK_RC(ctx_open(&c2), 0, "context 2"))
		return;
	f = domain_file();
	if (!CHECK(f >= 0, "a temporary file"))
		return;

	/* private domains: fd -1, oflags not looked at (as Linux) */
	CHECK_RC(open_xrcd(c1.fd, -1, 0, &a), 0, "OPEN_XRCD fd -1");
	CHECK_RC(open_xrcd(c1.fd, -1, O_CREAT, &b), 0,
		 "OPEN_XRCD fd -1 O_CREAT");
	CHECK(a && b && a != b, "two handles (%u, %u)", a, b);
	CHECK_EQ(res_count_of("xrcd"), 2, "two domains");

	/* bad arguments */
	CHECK_RC(open_xrcd(c1.fd, 9999, O_CREAT, NULL), -EBADF,
		 "OPEN_XRCD of a closed fd");
	CHECK_RC(open_xrcd(c1.fd, -2, O_CREAT, NULL), -EBADF,
		 "OPEN_XRCD fd -2");
	/* anybody can open an inode of these: no domain on one */
	e = eventfd(0, 0);
	if (e >= 0) {
		CHECK_RC(open_xrcd(c1.fd, e, O_CREAT, NULL), -EINVAL,
			 "OPEN_XRCD of an eventfd (not a regular file)");
		close(e);
	}
	if (!pipe(pfd)) {
		CHECK_RC(open_xrcd(c1.fd, pfd[0], O_CREAT, NULL), -EINVAL,
			 "OPEN_XRCD of a pipe (not a regular file)");
		close(pfd[0]);
		close(pfd[1]);
	}
	CHECK_RC(open_xrcd(c1.fd, c2.fd, O_CREAT, NULL), -EINVAL,
		 "OPEN_XRCD of a character device (not a regular file)");
	CHECK_RC(open_xrcd(c1.fd, f, O_CREAT | O_APPEND, NULL), -EINVAL,
		 "OPEN_XRCD oflags with O_APPEND");
	CHECK_RC(open_xrcd(c1.fd, -1, O_RDWR, NULL), -EINVAL,
		 "OPEN_XRCD oflags O_RDWR");
	memset(&c, 0, sizeof(c));
	c.fd = -1;
	c.reserved = 1;
	CHECK_RC(xio(c1.fd, XRDMA_IOC_OPEN_XRCD, &c), -EINVAL,
		 "OPEN_XRCD reserved 1");
	CHECK_RC(xio(c1.fd, IOC_SZ(_IOC_NR(XRDMA_IOC_OPEN_XRCD), 12), &c),
		 -EINVAL, "OPEN_XRCD shorter than VER0");
	CHECK_EQ(res_count_of("xrcd"), 2, "no domain from a failed OPEN_XRCD");

	/* by file: ENOENT without O_CREAT, EEXIST with O_EXCL */
	CHECK_RC(open_xrcd(c1.fd, f, 0, NULL), -ENOENT,
		 "OPEN_XRCD of a file without a domain, no O_CREAT");
	CHECK_RC(open_xrcd(c1.fd, f, O_CREAT | O_EXCL, &h1), 0,
		 "OPEN_XRCD O_CREAT|O_EXCL");
	CHECK_RC(open_xrcd(c1.fd, f, O_CREAT | O_EXCL, NULL), -EEXIST,
		 "OPEN_XRCD O_CREAT|O_EXCL of an existing domain");
	CHECK_RC(open_xrcd(c1.fd, f, O_CREAT, &h2), 0,
		 "OPEN_XRCD O_CREAT of an existing domain");
	CHECK_RC(open_xrcd(c2.fd, f, 0, &h3), 0,
		 "OPEN_XRCD in another context");
	CHECK_EQ(res_count_of("xrcd"), 3, "the file's domain is one");

	/* handles of other types and of the wrong type */
	CHECK_RC(destroy(c1.fd, XRDMA_OBJ_PD, h1), -EINVAL,
		 "DESTROY an XRCD handle as a PD");
	CHECK_RC(destroy(c1.fd, XRDMA_OBJ_XRCD + 1, h1), -EINVAL,
		 "DESTROY type XRCD + 1");
	/* the domain lives while any handle does */
	CHECK_RC(destroy(c1.fd, XRDMA_OBJ_XRCD, h1), 0, "DESTROY XRCD 1");
	CHECK_RC(destroy(c1.fd, XRDMA_OBJ_XRCD, h1), -ENOENT,
		 "DESTROY XRCD 1 twice");
	CHECK_RC(destroy(c1.fd, XRDMA_OBJ_XRCD, h2), 0, "DESTROY XRCD 2");
	CHECK_RC(open_xrcd(c1.fd, f, 0, &h4), 0,
		 "OPEN_XRCD without O_CREAT while another context holds it");
	CHECK_EQ(res_count_of("xrcd"), 3, "still one domain for the file");
	CHECK_RC(destroy(c1.fd, XRDMA_OBJ_XRCD, h4), 0, "DESTROY XRCD 4");
	CHECK_RC(destroy(c2.fd, XRDMA_OBJ_XRCD, h3), 0, "DESTROY XRCD 3");
	CHECK_EQ(res_count_of("xrcd"), 2,
		 "the file's domain went with its last handle");
	CHECK_RC(open_xrcd(c1.fd, f, 0, NULL), -ENOENT,
		 "OPEN_XRCD without O_CREAT after the last handle");

	/* closing a context frees its handles (and private domains) */
	CHECK_RC(open_xrcd(c2.fd, f, O_CREAT, &h3), 0, "OPEN_XRCD again");
	ctx_close(&c2);
	ctx_close(&c1);
	CHECK_EQ(res_count_of("xrcd"), 0, "no domain after close");
	close(f);
}

static void xrc_srq_qp(void)
{
	struct xrdma_cmd_create_srq s;
	struct xrdma_cmd_create_qp q;
	struct xrdma_cmd_query_qp qq;
	struct xrdma_cmd_kick k;
	uint32_t pd, x, srq, srqn, sh;
	struct qp rc;
	struct cq cq;
	struct ctx c;

	if (!ut_open_objs(&c, &pd, &cq, NULL))
		return;
	if (!CHECK_RC(open_xrcd(c.fd, -1, O_CREAT, &x), 0, "OPEN_XRCD"))
		goto out;

	/* CREATE_SRQ VER1 */
	CHECK_RC(xrc_srq(c.fd, pd, x, cq.h, 1, &srq, &srqn), 0,
		 "CREATE_SRQ XRC");
	CHECK(srqn != 0, "srq_num %u", srqn);
	CHECK_RC(xrc_srq(c.fd, pd, BAD_HANDLE, cq.h, 2, &sh, NULL), -ENOENT,
		 "CREATE_SRQ XRC, unknown XRCD handle");
	CHECK_RC(xrc_srq(c.fd, pd, pd, cq.h, 2, &sh, NULL), -EINVAL,
		 "CREATE_SRQ XRC, a PD handle as XRCD");
	CHECK_RC(xrc_srq(c.fd, pd, x, 0, 2, &sh, NULL), -ENOENT,
		 "CREATE_SRQ XRC without a CQ");
	CHECK_RC(xrc_srq(c.fd, pd, x, pd, 2, &sh, NULL), -EINVAL,
		 "CREATE_SRQ XRC, a PD handle as CQ");
	memset(&s, 0, sizeof(s));
	s.pd_handle = pd;
	s.max_wr = 4;
	s.max_sge = 1;
	s.xrcd_handle = x;
	CHECK_RC(xio(c.fd, XRDMA_IOC_CREATE_SRQ, &s), -EINVAL,
		 "CREATE_SRQ basic with an XRCD");
	s.xrcd_handle = 0;
	s.cq_handle = cq.h;
	CHECK_RC(xio(c.fd, XRDMA_IOC_CREATE_SRQ, &s), -EINVAL,
		 "CREATE_SRQ basic with a CQ");
	s.cq_handle = 0;
	s.srq_type = 2;
	CHECK_RC(xio(c.fd, XRDMA_IOC_CREATE_SRQ, &s), -EINVAL,
		 "CREATE_SRQ type 2");
	/* a VER0 caller gets a basic SRQ as before */
	s.srq_type = 0;
	CHECK_RC(ut_create(c.fd, IOC_SZ(_IOC_NR(XRDMA_IOC_CREATE_SRQ),
					XRDMA_CMD_CREATE_SRQ_SIZE_VER0),
			   &s, NULL), 0, "CREATE_SRQ VER0");
	CHECK_EQ(res_count_of("srq"), 1, "only the XRC SRQ is left");
	/* an XRC SRQ is no SRQ for an RC QP */
	CHECK_RC(create_qp(c.fd, pd, cq.h, cq.h, srq, XRDMA_UVERBS_QPT_RC, 0,
			   &rc), -EINVAL, "CREATE_QP RC on an XRC SRQ");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_XRCD, x), -EBUSY,
		 "DESTROY XRCD of an SRQ");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_CQ, cq.h), -EBUSY,
		 "DESTROY CQ of an XRC SRQ");

	/* CREATE_QP VER1: XRC_SEND */
	send_qp_cmd(&q, pd, cq.h);
	q.cap.max_recv_wr = 8;
	q.cap.max_recv_sge = 2;
	CHECK_RC(ut_create(c.fd, XRDMA_IOC_CREATE_QP, &q, &rc.h), 0,
		 "CREATE_QP XRC_SEND (receive sizes ignored)");
	CHECK(!q.cap.max_recv_wr && !q.cap.max_recv_sge,
	      "XRC_SEND answers no receive queue (%u, %u)", q.cap.max_recv_wr,
	      q.cap.max_recv_sge);
	CHECK_RC(query_qp(c.fd, rc.h, &qq), 0, "QUERY_QP XRC_SEND");
	CHECK_EQ(qq.qp_type, XRDMA_UVERBS_QPT_XRC_SEND, "its type");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_QP, rc.h), 0, "DESTROY XRC_SEND");
	send_qp_cmd(&q, pd, cq.h);
	q.recv_cq_handle = cq.h;
	CHECK_RC(xio(c.fd, XRDMA_IOC_CREATE_QP, &q), -EINVAL,
		 "CREATE_QP XRC_SEND with a receive CQ");
	send_qp_cmd(&q, pd, cq.h);
	q.flags = XRDMA_UVERBS_CREATE_QP_SRQ;
	q.srq_handle = srq;
	CHECK_RC(xio(c.fd, XRDMA_IOC_CREATE_QP, &q), -EINVAL,
		 "CREATE_QP XRC_SEND with an SRQ");
	send_qp_cmd(&q, pd, cq.h);
	q.xrcd_handle = x;
	CHECK_RC(xio(c.fd, XRDMA_IOC_CREATE_QP, &q), -EINVAL,
		 "CREATE_QP XRC_SEND with an XRCD");
	send_qp_cmd(&q, 0, cq.h);
	CHECK_RC(xio(c.fd, XRDMA_IOC_CREATE_QP, &q), -ENOENT,
		 "CREATE_QP XRC_SEND without a PD");

	/* XRC_RECV */
	recv_qp_cmd(&q, x, 0);
	q.pd_handle = pd;
	CHECK_RC(xio(c.fd, XRDMA_IOC_CREATE_QP, &q), -EINVAL,
		 "CREATE_QP XRC_RECV with a PD");
	recv_qp_cmd(&q, x, 0);
	q.send_cq_handle = cq.h;
	CHECK_RC(xio(c.fd, XRDMA_IOC_CREATE_QP, &q), -EINVAL,
		 "CREATE_QP XRC_RECV with a CQ");
	recv_qp_cmd(&q, BAD_HANDLE, 0);
	CHECK_RC(xio(c.fd, XRDMA_IOC_CREATE_QP, &q), -ENOENT,
		 "CREATE_QP XRC_RECV, unknown XRCD handle");
	recv_qp_cmd(&q, pd, 0);
	CHECK_RC(xio(c.fd, XRDMA_IOC_CREATE_QP, &q), -EINVAL,
		 "CREATE_QP XRC_RECV, a PD handle as XRCD");
	recv_qp_cmd(&q, x, 0);
	q.reserved2 = 1;
	CHECK_RC(xio(c.fd, XRDMA_IOC_CREATE_QP, &q), -EINVAL,
		 "CREATE_QP reserved2 1");
	CHECK_RC(xio(c.fd, IOC_SZ(_IOC_NR(XRDMA_IOC_CREATE_QP),
				  XRDMA_CMD_CREATE_QP_SIZE_VER0), &q), -ENOENT,
		 "CREATE_QP XRC_RECV at VER0 size (no XRCD handle)");
	memset(&q, 0, sizeof(q));
	q.qp_type = XRDMA_UVERBS_QPT_RC;
	q.pd_handle = pd;
	q.send_cq_handle = cq.h;
	q.recv_cq_handle = cq.h;
	q.xrcd_handle = x;
	CHECK_RC(xio(c.fd, XRDMA_IOC_CREATE_QP, &q), -EINVAL,
		 "CREATE_QP RC with an XRCD");
	recv_qp_cmd(&q, x, 0);
	q.cap.max_send_wr = 4;
	CHECK_RC(ut_create(c.fd, XRDMA_IOC_CREATE_QP, &q, &rc.h), 0,
		 "CREATE_QP XRC_RECV (sizes ignored)");
	CHECK(!q.cap.max_send_wr && !q.cap.max_recv_wr,
	      "XRC_RECV answers no queues");
	CHECK_RC(query_qp(c.fd, rc.h, &qq), 0, "QUERY_QP XRC_RECV");
	CHECK_EQ(qq.qp_type, XRDMA_UVERBS_QPT_XRC_RECV, "its type");
	memset(&k, 0, sizeof(k));
	k.qp_handle = rc.h;
	CHECK_RC(xio(c.fd, XRDMA_IOC_KICK, &k), -EINVAL,
		 "KICK an XRC_RECV QP (no queue)");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_SRQ, srq), 0, "DESTROY the XRC SRQ");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_XRCD, x), -EBUSY,
		 "DESTROY XRCD of an XRC_RECV QP");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_QP, rc.h), 0, "DESTROY XRC_RECV");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_XRCD, x), 0, "DESTROY XRCD");
out:
	destroy(c.fd, XRDMA_OBJ_CQ, cq.h);
	destroy(c.fd, XRDMA_OBJ_PD, pd);
	ctx_close(&c);
	CHECK_EQ(res_count_of("xrcd"), 0, "no domain left");
}

static void xrc_open_qp(void)
{
	uint32_t x1, x2, xp, q1, q2, q3, pd;
	struct xrdma_cmd_create_qp q;
	struct xrdma_cmd_query_qp qq;
	struct xrdma_async_event ev[16];
	struct xrdma_uverbs_qp_attr a;
	struct ctx c1, c2;
	uint64_t cookie;
	struct qp rc;
	struct cq cq;
	int f, n, as1, as2;

	if (!ut_open_objs(&c1, &pd, &cq, &rc))
		return;
	if (!CHECK_RC(ctx_open(&c2), 0, "context 2"))
		return;
	as1 = async_nonblock(&c1);
	as2 = async_nonblock(&c2);
	CHECK(as1 >= 0 && as2 >= 0, "both async fds");
	f = domain_file();
	if (!CHECK(f >= 0, "a temporary file"))
		return;
	CHECK_RC(open_xrcd(c1.fd, f, O_CREAT, &x1), 0, "OPEN_XRCD 1");
	CHECK_RC(open_xrcd(c2.fd, f, 0, &x2), 0, "OPEN_XRCD 2 (same file)");
	CHECK_RC(open_xrcd(c2.fd, -1, 0, &xp), 0, "OPEN_XRCD private");
	recv_qp_cmd(&q, x1, 0xc1);
	CHECK_RC(ut_create(c1.fd, XRDMA_IOC_CREATE_QP, &q, &q1), 0,
		 "CREATE_QP XRC_RECV in context 1");

	/* what cannot be opened */
	CHECK_RC(open_qp(c2.fd, x2, q.qpn, XRDMA_UVERBS_QPT_RC, 0, NULL),
		 -EINVAL, "OPEN_QP type RC");
	CHECK_RC(open_qp(c2.fd, x2, q.qpn, XRDMA_UVERBS_QPT_XRC_SEND, 0, NULL),
		 -EINVAL, "OPEN_QP type XRC_SEND");
	CHECK_RC(open_qp(c2.fd, xp, q.qpn, XRDMA_UVERBS_QPT_XRC_RECV, 0, NULL),
		 -ENOENT, "OPEN_QP through another domain");
	CHECK_RC(open_qp(c2.fd, BAD_HANDLE, q.qpn, XRDMA_UVERBS_QPT_XRC_RECV, 0,
			 NULL), -ENOENT, "OPEN_QP through a domain not held");
	CHECK_RC(open_qp(c1.fd, pd, q.qpn, XRDMA_UVERBS_QPT_XRC_RECV, 0, NULL),
		 -EINVAL, "OPEN_QP with a PD handle as XRCD");
	CHECK_RC(open_qp(c2.fd, x2, q.qpn + 0x1000, XRDMA_UVERBS_QPT_XRC_RECV,
			 0, NULL), -ENOENT, "OPEN_QP of an unknown QPN");
	CHECK_RC(open_qp(c1.fd, x1, rc.qpn, XRDMA_UVERBS_QPT_XRC_RECV, 0,
			 NULL), -ENOENT, "OPEN_QP of an RC QP's number");

	CHECK_RC(open_qp(c2.fd, x2, q.qpn, XRDMA_UVERBS_QPT_XRC_RECV, 0xc2,
			 &q2), 0, "OPEN_QP in context 2");
	CHECK_RC(open_qp(c1.fd, x1, q.qpn, XRDMA_UVERBS_QPT_XRC_RECV, 0xc3,
			 &q3), 0, "OPEN_QP in the creator's context");
	CHECK_EQ(res_count_of("qp"), 2, "one XRC_RECV QP (and the RC QP)");
	CHECK_RC(query_qp(c2.fd, q2, &qq), 0, "QUERY_QP the opened handle");
	CHECK_EQ(qq.qp_type, XRDMA_UVERBS_QPT_XRC_RECV, "its type");
	memset(&a, 0, sizeof(a));
	a.qp_state = QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = ACC_RW;
	/* only the creator's handle modifies the QP (security.rst, XRC) */
	CHECK_RC(modify_qp(c2.fd, q2, QPA_STATE | QPA_PKEY | QPA_PORT |
			   QPA_ACCESS, &a), -EPERM,
		 "MODIFY_QP an opened handle: EPERM");
	CHECK_RC(modify_qp(c1.fd, q3, QPA_STATE | QPA_PKEY | QPA_PORT |
			   QPA_ACCESS, &a), -EPERM,
		 "MODIFY_QP an opened handle in the creator's context: EPERM");
	CHECK_RC(query_qp(c1.fd, q1, &qq), 0, "QUERY_QP the creator's handle");
	CHECK_EQ(qq.attr.qp_state, QPS_RESET, "the QP is still in RESET");
	CHECK_RC(modify_qp(c1.fd, q1, QPA_STATE | QPA_PKEY | QPA_PORT |
			   QPA_ACCESS, &a), 0, "MODIFY_QP the creator's handle");
	CHECK_RC(query_qp(c2.fd, q2, &qq), 0, "QUERY_QP the opened handle");
	CHECK_EQ(qq.attr.qp_state, QPS_INIT, "the opened handle sees INIT");
	CHECK_RC(destroy(c2.fd, XRDMA_OBJ_XRCD, x2), -EBUSY,
		 "DESTROY XRCD of an opened QP handle");

	/* one event, every handle: each with its cookie and handle */
	CHECK_RC(td_inject("qp_fatal %u", q.qpn), 0, "inject qp_fatal");
	n = read_events(as1, ev, 16);
	cookie = 0;
	CHECK(qp_fatal_in(ev, n, q1, &cookie) && cookie == 0xc1,
	      "the creator's handle got QP_FATAL (cookie 0x%llx)",
	      (unsigned long long)cookie);
	cookie = 0;
	CHECK(qp_fatal_in(ev, n, q3, &cookie) && cookie == 0xc3,
	      "context 1's opened handle got it (cookie 0x%llx)",
	      (unsigned long long)cookie);
	n = read_events(as2, ev, 16);
	cookie = 0;
	CHECK(qp_fatal_in(ev, n, q2, &cookie) && cookie == 0xc2,
	      "context 2's handle got it (cookie 0x%llx)",
	      (unsigned long long)cookie);

	/* the creator's handle goes; the QP stays for the others */
	CHECK_RC(destroy(c1.fd, XRDMA_OBJ_QP, q1), 0, "DESTROY the creator's");
	CHECK_RC(query_qp(c2.fd, q2, &qq), 0, "context 2's handle works");
	CHECK_RC(destroy(c1.fd, XRDMA_OBJ_QP, q3), 0,
		 "DESTROY context 1's opened handle");
	CHECK_RC(destroy(c1.fd, XRDMA_OBJ_XRCD, x1), 0,
		 "DESTROY context 1's XRCD handle");
	CHECK_EQ(res_count_of("qp"), 2, "the QP lives in context 2");
	CHECK_RC(td_inject("qp_fatal %u", q.qpn), 0, "inject qp_fatal again");
	n = read_events(as2, ev, 16);
	cookie = 0;
	CHECK(qp_fatal_in(ev, n, q2, &cookie) && cookie == 0xc2,
	      "context 2 still gets its events");
	CHECK_EQ(wait_readable(as1, 100), 0, "context 1 gets none now");

	/* context 2 closes with the handle and the domain: all goes */
	close(as2);
	ctx_close(&c2);
	CHECK_EQ(res_count_of("qp"), 1,
		 "the XRC_RECV QP went with its last handle");
	CHECK_EQ(res_count_of("xrcd"), 0,
		 "the domains went with their handles");
	close(as1);
	destroy(c1.fd, XRDMA_OBJ_QP, rc.h);
	destroy(c1.fd, XRDMA_OBJ_CQ, cq.h);
	destroy(c1.fd, XRDMA_OBJ_PD, pd);
	ctx_close(&c1);
	close(f);
}

/* a context closed with everything XRC in it: handles in dependency order */
static void xrc_close(void)
{
	uint32_t pd, x, srq, q1, q2;
	struct xrdma_cmd_create_qp q;
	struct ctx c1, c2;
	struct cq cq;
	int f = domain_file();

	if (!CHECK(f >= 0, "a temporary file") ||
	    !ut_open_objs(&c1, &pd, &cq, NULL))
		return;
	if (!CHECK_RC(ctx_open(&c2), 0, "context 2"))
		return;
	CHECK_RC(open_xrcd(c1.fd, f, O_CREAT, &x), 0, "OPEN_XRCD");
	CHECK_RC(xrc_srq(c1.fd, pd, x, cq.h, 0, &srq, NULL), 0,
		 "CREATE_SRQ XRC");
	recv_qp_cmd(&q, x, 0);
	CHECK_RC(ut_create(c1.fd, XRDMA_IOC_CREATE_QP, &q, &q1), 0,
		 "CREATE_QP XRC_RECV");
	CHECK_RC(open_xrcd(c2.fd, f, 0, &x), 0, "OPEN_XRCD in context 2");
	CHECK_RC(open_qp(c2.fd, x, q.qpn, XRDMA_UVERBS_QPT_XRC_RECV, 0, &q2),
		 0, "OPEN_QP in context 2");
	/* the creator closes with everything: context 2 keeps the QP */
	ctx_close(&c1);
	CHECK_EQ(res_count_of("qp"), 1, "the QP lives on in context 2");
	CHECK_EQ(res_count_of("srq"), 0, "the SRQ went with context 1");
	CHECK_EQ(res_count_of("xrcd"), 1, "the domain lives on");
	ctx_close(&c2);
	CHECK_EQ(res_count_of("qp"), 0, "nothing left");
	CHECK_EQ(res_count_of("xrcd"), 0, "no domain left");
	close(f);
}

void t_xrc(void)
{
	struct ctx c;

	if (!(ut_dattr.device_cap_flags & XRDMA_DEVICE_CAP_XRC)) {
		if (CHECK_RC(ctx_open(&c), 0, "context")) {
			CHECK_RC(open_xrcd(c.fd, -1, O_CREAT, NULL),
				 -EOPNOTSUPP, "OPEN_XRCD without CAP_XRC");
			ctx_close(&c);
		}
		return;
	}
	CHECK(ut_dattr.max_xrcd > 0, "max_xrcd %u with CAP_XRC",
	      ut_dattr.max_xrcd);
	xrc_open_xrcd();
	xrc_srq_qp();
	xrc_open_qp();
	xrc_close();
}
