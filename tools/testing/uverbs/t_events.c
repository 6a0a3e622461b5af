// SPDX-License-Identifier: GPL-2.0
/*
 * uverbs_test: completion channels and the async event fd
 * (Documentation/uverbs.rst, "Events"), driven by the test device's
 * debugfs inject file.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ut.h"

static void set_nonblock(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);

	fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

/* read(2) as 0..n bytes or -errno */
static ssize_t xread(int fd, void *buf, size_t len)
{
	ssize_t r;

	do {
		r = read(fd, buf, len);
	} while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : r;
}

/*
 * Collect records (size rsz each) from a non-blocking event fd: wait up
 * to wait_ms for the first, then read until EAGAIN.  Returns the number
 * of records or -errno; a read that is not a whole number of records is
 * -EPROTO.
 */
static int collect(int fd, void *out, size_t rsz, int max, int wait_ms)
{
	char buf[64 * 32];
	ssize_t r;
	int n = 0;

	if (wait_ms > 0 && wait_readable(fd, wait_ms) <= 0)
		return 0;
	while (n < max) {
		r = xread(fd, buf, sizeof(buf) - sizeof(buf) % rsz);
		if (r == -EAGAIN)
			break;
		if (r < 0)
			return r;
		if (r == 0 || r % rsz)
			return -EPROTO;
		if ((size_t)(max - n) < r / rsz)
			r = (max - n) * rsz;
		memcpy((char *)out + n * rsz, buf, r);
		n += r / rsz;
	}
	return n;
}

/* in a child: sleep ms then inject */
static pid_t inject_later(int ms, const char *what, unsigned int arg)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		usleep(ms * 1000);
		_exit(td_inject("%s %u", what, arg) ? 1 : 0);
	}
	return pid;
}

static bool reap(pid_t pid)
{
	int st;

	if (pid < 0)
		return false;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* ------------------------------------------------------ comp channels */

void t_compchan(void)
{
	struct xrdma_comp_event ev[8];
	struct xrdma_cmd_destroy d;
	struct epoll_event ee;
	struct cq cq1, cq2, cq3, cq4, cq5;
	struct ctx c, c2;
	int ch, ch2, chb, ep, n, r, got1 = 0, got2 = 0, i;
	fd_set rs;
	struct timeval tv;
	uint64_t t0;
	char small[8];
	pid_t pid;

	if (!CHECK_RC(ctx_open(&c), 0, "context"))
		return;
	ch = new_channel(c.fd);
	if (ch < 0 || create_cq(c.fd, 8, ch, 0xc1c1c1c1c1ull, &cq1) ||
	    create_cq(c.fd, 8, ch, 0xc2c2c2c2c2ull, &cq2) ||
	    create_cq(c.fd, 8, -1, 0xc3, &cq3)) {
		ut_fail("setup", "channel, 3 CQs");
		return;
	}
	set_nonblock(ch, true);
	CHECK_EQ(wait_readable(ch, 0), 0, "a fresh channel is not readable");
	CHECK_RC(xread(ch, ev, sizeof(ev)), -EAGAIN,
		 "O_NONBLOCK read of an empty channel");

	CHECK_RC(td_inject("comp %u", cq3.resp.cqn), 0,
		 "inject a completion on a CQ without channel");
	CHECK_EQ(wait_readable(ch, 100), 0,
		 "... does not make the channel readable");

	CHECK_RC(td_inject("comp %u", cq1.resp.cqn), 0, "inject comp on CQ 1");
	CHECK_EQ(wait_readable(ch, 2000), 1, "poll: channel readable");
	ep = epoll_create1(EPOLL_CLOEXEC);
	memset(&ee, 0, sizeof(ee));
	ee.events = EPOLLIN;
	ee.data.fd = ch;
	CHECK(ep >= 0 && !epoll_ctl(ep, EPOLL_CTL_ADD, ch, &ee),
	      "epoll_ctl ADD the channel");
	memset(&ee, 0, sizeof(ee));
	n = epoll_wait(ep, &ee, 1, 2000);
	CHECK(n == 1 && (ee.events & EPOLLIN) && ee.data.fd == ch,
	      "epoll: channel readable (n %d events 0x%x)", n, ee.events);
	FD_ZERO(&rs);
	FD_SET(ch, &rs);
	tv.tv_sec = 2;
	tv.tv_usec = 0;
	CHECK(select(ch + 1, &rs, NULL, NULL, &tv) == 1 && FD_ISSET(ch, &rs),
	      "select: channel readable");
	CHECK_RC(xread(ch, small, sizeof(small)), -EINVAL,
		 "read with a buffer smaller than one record");
	CHECK_EQ(wait_readable(ch, 0), 1, "... consumed nothing");
	memset(ev, 0xa5, sizeof(ev));
	r = xread(ch, ev, sizeof(ev[0]));
	CHECK_EQ(r, sizeof(ev[0]), "read one record");
	CHECK_EQ(ev[0].cq_cookie, 0xc1c1c1c1c1ull, "record: CQ 1's cookie");
	CHECK_EQ(ev[0].cq_handle, cq1.h, "record: CQ 1's handle");
	CHECK_EQ(ev[0].reserved, 0, "record: reserved is 0");
	if (r == sizeof(ev[0]))
		got1++;
	CHECK_EQ(wait_readable(ch, 0), 0, "channel drained");
	memset(&ee, 0, sizeof(ee));
	CHECK_EQ(epoll_wait(ep, &ee, 1, 0), 0, "epoll: drained");
	CHECK_RC(xread(ch, ev, sizeof(ev)), -EAGAIN, "read of a drained channel");

	/* two CQs on one channel */
	CHECK_RC(td_inject("comp %u", cq1.resp.cqn), 0, "inject comp on CQ 1");
	CHECK_RC(td_inject("comp %u", cq2.resp.cqn), 0, "inject comp on CQ 2");
	memset(ev, 0, sizeof(ev));
	n = collect(ch, ev, sizeof(ev[0]), 8, 2000);
	CHECK_EQ(n, 2, "two records, one per CQ");
	if (n == 2) {
		CHECK(ev[0].cq_handle == cq1.h && ev[0].cq_cookie == 0xc1c1c1c1c1ull &&
		      ev[1].cq_handle == cq2.h && ev[1].cq_cookie == 0xc2c2c2c2c2ull,
		      "in order: CQ 1 then CQ 2 (got %u, %u)", ev[0].cq_handle,
		      ev[1].cq_handle);
	}
	for (i = 0; i < n && n > 0; i++) {
		got1 += ev[i].cq_handle == cq1.h;
		got2 += ev[i].cq_handle == cq2.h;
	}

	/*
	 * Bounded queue: completions of a CQ whose record is still unread
	 * coalesce into it (one record per CQ, however many completions).
	 */
	for (i = 0; i < 64; i++) {
		if (td_inject("comp %u", cq1.resp.cqn) ||
		    td_inject("comp %u", cq2.resp.cqn))
			break;
	}
	CHECK_EQ(i, 64, "inject 64 completions on each of CQ 1 and CQ 2");
	memset(ev, 0, sizeof(ev));
	n = collect(ch, ev, sizeof(ev[0]), 8, 2000);
	CHECK_EQ(n, 2, "128 unread completions coalesce into one record per CQ");
	if (n == 2)
		CHECK(ev[0].cq_handle == cq1.h && ev[1].cq_handle == cq2.h,
		      "... CQ 1's, then CQ 2's (got %u, %u)", ev[0].cq_handle,
		      ev[1].cq_handle);
	for (i = 0; i < n && n > 0; i++) {
		got1 += ev[i].cq_handle == cq1.h;
		got2 += ev[i].cq_handle == cq2.h;
	}
	CHECK_RC(td_inject("comp %u", cq1.resp.cqn), 0,
		 "inject comp on CQ 1 after its record was read");
	n = collect(ch, ev, sizeof(ev[0]), 8, 2000);
	CHECK(n == 1 && ev[0].cq_handle == cq1.h,
	      "... queues a new record (n %d)", n);
	if (n == 1)
		got1++;

	/* blocking read */
	set_nonblock(ch, false);
	t0 = now_ms();
	pid = inject_later(300, "comp", cq2.resp.cqn);
	memset(ev, 0, sizeof(ev));
	r = xread(ch, ev, sizeof(ev[0]));
	CHECK(r == sizeof(ev[0]) && ev[0].cq_handle == cq2.h,
	      "blocking read returns CQ 2's record (%s, handle %u)",
	      errname(r), ev[0].cq_handle);
	CHECK(now_ms() - t0 >= 200, "... after blocking (%llu ms)",
	      (unsigned long long)(now_ms() - t0));
	CHECK(reap(pid), "the injecting child succeeded");
	if (r == sizeof(ev[0]))
		got2++;
	/*
	 * An event 3 ms later: while the blocking reader polls before it
	 * sleeps (xrdma_uverbs' ev_poll_us), or after -- the same either way.
	 */
	pid = inject_later(3, "comp", cq2.resp.cqn);
	memset(ev, 0, sizeof(ev));
	r = xread(ch, ev, sizeof(ev[0]));
	CHECK(r == sizeof(ev[0]) && ev[0].cq_handle == cq2.h,
	      "blocking read returns an event injected 3 ms later (r %d, handle %u)",
	      r, ev[0].cq_handle);
	CHECK(reap(pid), "the injecting child succeeded");
	if (r == sizeof(ev[0]))
		got2++;
	set_nonblock(ch, true);

	/* DESTROY reports what was read */
	CHECK_RC(destroy_ex(c.fd, XRDMA_OBJ_CQ, cq1.h, &d), 0, "DESTROY CQ 1");
	CHECK_EQ(d.comp_events_reported, got1,
		 "CQ 1 comp_events_reported = records read for it");
	/* an unread event of a destroyed CQ goes away with it */
	CHECK_RC(td_inject("comp %u", cq2.resp.cqn), 0,
		 "inject comp on CQ 2, left unread");
	CHECK_EQ(wait_readable(ch, 2000), 1, "channel readable");
	CHECK_RC(destroy_ex(c.fd, XRDMA_OBJ_CQ, cq2.h, &d), 0, "DESTROY CQ 2");
	CHECK_EQ(d.comp_events_reported, got2,
		 "CQ 2 comp_events_reported = records read (%d), not queued",
		 got2);
	CHECK_EQ(wait_readable(ch, 0), 0,
		 "the unread record of the destroyed CQ was dropped");
	CHECK_RC(xread(ch, ev, sizeof(ev)), -EAGAIN, "... read says EAGAIN");

	/* two channels, one CQ each */
	chb = new_channel(c.fd);
	if (chb >= 0 && !create_cq(c.fd, 4, chb, 0xb, &cq4)) {
		set_nonblock(chb, true);
		if (!create_cq(c.fd, 4, ch, 0xa, &cq5)) {
			CHECK_RC(td_inject("comp %u", cq4.resp.cqn), 0,
				 "inject comp on the CQ of channel B");
			CHECK_EQ(wait_readable(chb, 2000), 1, "channel B readable");
			CHECK_EQ(wait_readable(ch, 0), 0, "channel A not readable");
			n = collect(chb, ev, sizeof(ev[0]), 8, 0);
			CHECK(n == 1 && ev[0].cq_cookie == 0xb,
			      "channel B's record is its CQ's (n %d)", n);
			destroy(c.fd, XRDMA_OBJ_CQ, cq5.h);
		}
		/* the channel is closed while its CQ lives */
		close(chb);
		CHECK_RC(td_inject("comp %u", cq4.resp.cqn), 0,
			 "inject comp on a CQ whose channel fd was closed");
		CHECK_RC(destroy(c.fd, XRDMA_OBJ_CQ, cq4.h), 0,
			 "DESTROY that CQ");
	}

	/* another context's channel does not see our completions */
	if (!ctx_open(&c2)) {
		ch2 = new_channel(c2.fd);
		if (ch2 >= 0 && !create_cq(c2.fd, 4, ch2, 0x2, &cq4)) {
			CHECK_RC(td_inject("comp %u", cq3.resp.cqn), 0,
				 "inject comp on context 1's CQ 3");
			CHECK_EQ(wait_readable(ch2, 100), 0,
				 "context 2's channel stays quiet");
			CHECK_RC(td_inject("comp %u", cq4.resp.cqn), 0,
				 "inject comp on context 2's CQ");
			CHECK_EQ(wait_readable(ch2, 2000), 1,
				 "context 2's channel readable");
			CHECK_EQ(wait_readable(ch, 0), 0,
				 "context 1's channel stays quiet");
		}
		ctx_close(&c2);
		if (ch2 >= 0)
			close(ch2);
	}
	destroy(c.fd, XRDMA_OBJ_CQ, cq3.h);
	close(ep);
	close(ch);
	ctx_close(&c);
}

/* ------------------------------------------------------------- async */

static int drain(int fd)
{
	struct xrdma_async_event ev[64];
	int n, t = 0;

	while ((n = collect(fd, ev, sizeof(ev[0]), 64, 0)) > 0)
		t += n;
	return t;
}

/* opens *c and its async fd, non-blocking: the fd, or -1 (reported) */
static int open_async(struct ctx *c)
{
	int as;

	if (!CHECK_RC(ctx_open(c), 0, "context"))
		return -1;
	as = get_async_fd(c->fd);
	if (!CHECK(as >= 0, "GET_ASYNC_FD (%s)", errname(as)))
		return -1;
	set_nonblock(as, true);
	return as;
}

/* flood n port events and check nothing is lost silently */
static void check_flood(int as, int as2, int n)
{
	static struct xrdma_async_event ev[1024];
	int got, i, pa, ov, ovpos, fds[2] = { as, as2 };
	unsigned long long dropped;
	int k;

	drain(as);
	drain(as2);
	CHECK_RC(td_inject("flood %d", n), 0, "inject flood %d", n);
	for (k = 0; k < 2; k++) {
		if (fds[k] < 0)
			continue;
		got = collect(fds[k], ev, sizeof(ev[0]), 1024, 2000);
		pa = 0;
		ov = 0;
		ovpos = -1;
		dropped = 0;
		for (i = 0; i < got; i++) {
			if (ev[i].event_type == XRDMA_UVERBS_EVENT_PORT_ACTIVE)
				pa++;
			if (ev[i].event_type == XRDMA_UVERBS_EVENT_OVERFLOW) {
				ov++;
				ovpos = i;
				dropped += ev[i].element;
			}
		}
		ut_note("context %d: flood %d: %d records, %d PORT_ACTIVE",
			k + 1, n, got, pa);
		ut_note("context %d: %d OVERFLOW record(s), at %d, dropped %llu",
			k + 1, ov, ovpos, dropped);
		CHECK(got > 0, "context %d: flood %d delivered records (%s)",
		      k + 1, n, errname(got));
		CHECK_EQ(pa + dropped, n,
			 "context %d: flood %d: PORT_ACTIVE read + dropped", k + 1,
			 n);
		if (n <= 256) {
			CHECK_EQ(ov, 0, "context %d: flood %d fits, no OVERFLOW",
				 k + 1, n);
		} else {
			CHECK_EQ(ov, 1, "context %d: flood %d: one OVERFLOW record",
				 k + 1, n);
			CHECK(pa >= 255 && pa <= 256,
			      "context %d: flood %d: the queue held 255..256 events (%d)",
			      k + 1, n, pa);
		}
	}
}

void t_async(void)
{
	struct xrdma_async_event ev[16];
	struct xrdma_cmd_destroy d;
	struct ctx c, c2;
	struct qp qp, qp2;
	struct cq cq;
	uint32_t pd;
	char small[8];
	uint64_t t0;
	int as, as2 = -1, n, r;
	pid_t pid;

	as = open_async(&c);
	if (as < 0)
		return;
	if (alloc_pd(c.fd, &pd) || create_cq(c.fd, 8, -1, 0xaaa1, &cq) ||
	    create_qp(c.fd, pd, cq.h, cq.h, 0, XRDMA_UVERBS_QPT_RC, 0xbbb1, &qp)) {
		ut_fail("setup", "PD, CQ, QP");
		return;
	}
	if (!ctx_open(&c2)) {
		as2 = get_async_fd(c2.fd);
		if (as2 >= 0)
			set_nonblock(as2, true);
	}
	CHECK(as2 >= 0, "a second context with its async fd");
	drain(as);	/* no events expected, but port events may linger */
	if (as2 >= 0)
		drain(as2);
	CHECK_EQ(wait_readable(as, 0), 0, "async fd not readable");
	CHECK_RC(xread(as, ev, sizeof(ev)), -EAGAIN, "O_NONBLOCK read: EAGAIN");

	/* QP event */
	CHECK_RC(td_inject("qp_fatal %u", qp.qpn), 0, "inject qp_fatal");
	CHECK_EQ(wait_readable(as, 2000), 1, "async fd readable");
	CHECK_RC(xread(as, small, sizeof(small)), -EINVAL,
		 "read with a buffer smaller than one record");
	memset(ev, 0xa5, sizeof(ev));
	n = collect(as, ev, sizeof(ev[0]), 16, 0);
	CHECK_EQ(n, 1, "one record");
	CHECK(ev[0].event_type == XRDMA_UVERBS_EVENT_QP_FATAL &&
	      ev[0].element == 0xbbb1 && ev[0].handle == qp.h,
	      "QP_FATAL with the QP's cookie and handle (type %u element 0x%llx handle %u)",
	      ev[0].event_type, (unsigned long long)ev[0].element,
	      ev[0].handle);
	if (as2 >= 0)
		CHECK_EQ(wait_readable(as2, 100), 0,
			 "the other context does not get our QP's event");

	/* CQ event */
	CHECK_RC(td_inject("cq_err %u", cq.resp.cqn), 0, "inject cq_err");
	n = collect(as, ev, sizeof(ev[0]), 16, 2000);
	CHECK(n == 1 && ev[0].event_type == XRDMA_UVERBS_EVENT_CQ_ERR &&
	      ev[0].element == 0xaaa1 && ev[0].handle == cq.h,
	      "CQ_ERR with the CQ's cookie and handle (n %d type %u element 0x%llx handle %u)",
	      n, ev[0].event_type, (unsigned long long)ev[0].element,
	      ev[0].handle);

	/* port events reach every context */
	CHECK_RC(td_inject("port_err %u", 1), 0, "inject port_err 1");
	n = collect(as, ev, sizeof(ev[0]), 16, 2000);
	CHECK(n == 1 && ev[0].event_type == XRDMA_UVERBS_EVENT_PORT_ERR &&
	      ev[0].element == 1 && ev[0].handle == 0,
	      "PORT_ERR, element = port 1, handle 0 (n %d type %u element %llu handle %u)",
	      n, ev[0].event_type, (unsigned long long)ev[0].element,
	      ev[0].handle);
	if (as2 >= 0) {
		n = collect(as2, ev, sizeof(ev[0]), 16, 2000);
		CHECK(n == 1 && ev[0].event_type == XRDMA_UVERBS_EVENT_PORT_ERR,
		      "context 2 got PORT_ERR too");
	}
	CHECK_RC(td_inject("port_active %u", 1), 0, "inject port_active 1");
	n = collect(as, ev, sizeof(ev[0]), 16, 2000);
	CHECK(n == 1 && ev[0].event_type == XRDMA_UVERBS_EVENT_PORT_ACTIVE &&
	      ev[0].element == 1 && ev[0].handle == 0,
	      "PORT_ACTIVE, element = port 1 (n %d type %u element %llu)", n,
	      ev[0].event_type, (unsigned long long)ev[0].element);
	if (as2 >= 0)
		drain(as2);

	/* blocking read */
	set_nonblock(as, false);
	t0 = now_ms();
	pid = inject_later(300, "port_err", 1);
	r = xread(as, ev, sizeof(ev[0]));
	CHECK(r == sizeof(ev[0]) &&
	      ev[0].event_type == XRDMA_UVERBS_EVENT_PORT_ERR,
	      "blocking read returns the PORT_ERR record (%s)", errname(r));
	CHECK(now_ms() - t0 >= 200, "... after blocking (%llu ms)",
	      (unsigned long long)(now_ms() - t0));
	CHECK(reap(pid), "the injecting child succeeded");
	set_nonblock(as, true);
	if (as2 >= 0)
		drain(as2);

	/* DESTROY reports what was read; unread events go with the object */
	CHECK_RC(destroy_ex(c.fd, XRDMA_OBJ_QP, qp.h, &d), 0, "DESTROY QP");
	CHECK_EQ(d.async_events_reported, 1, "QP async_events_reported");
	CHECK_EQ(d.comp_events_reported, 0, "QP comp_events_reported");
	if (!create_qp(c.fd, pd, cq.h, cq.h, 0, XRDMA_UVERBS_QPT_UD, 0xbbb2,
		       &qp2)) {
		CHECK_RC(td_inject("qp_fatal %u", qp2.qpn), 0,
			 "inject qp_fatal, left unread");
		CHECK_EQ(wait_readable(as, 2000), 1, "async fd readable");
		CHECK_RC(destroy_ex(c.fd, XRDMA_OBJ_QP, qp2.h, &d), 0,
			 "DESTROY that QP");
		CHECK_EQ(d.async_events_reported, 0,
			 "its async_events_reported counts only records read");
		CHECK_EQ(wait_readable(as, 0), 0,
			 "the unread record of the destroyed QP was dropped");
	}
	CHECK_RC(destroy_ex(c.fd, XRDMA_OBJ_CQ, cq.h, &d), 0, "DESTROY CQ");
	CHECK_EQ(d.async_events_reported, 1, "CQ async_events_reported");
	destroy(c.fd, XRDMA_OBJ_PD, pd);

	/* overflow: nothing is lost silently */
	check_flood(as, as2, 256);
	check_flood(as, as2, 300);
	check_flood(as, as2, 1000);
	CHECK_RC(td_inject("port_err %u", 1), 0, "inject port_err after a flood");
	n = collect(as, ev, sizeof(ev[0]), 16, 2000);
	CHECK(n == 1 && ev[0].event_type == XRDMA_UVERBS_EVENT_PORT_ERR,
	      "exactly that record follows, no stale OVERFLOW (n %d type 0x%x)",
	      n, ev[0].event_type);

	if (as2 >= 0)
		close(as2);
	if (c2.fd >= 0)
		ctx_close(&c2);
	close(as);
	ctx_close(&c);
}

/* ------------------------------------------------------------- fatal */

/*
 * The device stays failed (xrdma_testdev does not recover it): this runs
 * last on it.  From DEVICE_FATAL on, DESTROY destroys but answers EIO,
 * as on a disassociated file: the library must touch no mapping and
 * wait for no event acknowledgment.
 */
void t_fatal(void)
{
	struct xrdma_async_event ev[16];
	uint32_t pd = 0;
	struct ctx c;
	int as, n, i, fatal = -1;

	as = open_async(&c);
	if (as < 0)
		return;
	drain(as);
	CHECK_RC(alloc_pd(c.fd, &pd), 0, "ALLOC_PD before the fatal error");
	CHECK_RC(td_inject("fatal"), 0, "inject fatal");
	n = collect(as, ev, sizeof(ev[0]), 16, 2000);
	for (i = 0; i < n; i++)
		if (ev[i].event_type == XRDMA_UVERBS_EVENT_DEVICE_FATAL)
			fatal = i;
	CHECK(fatal >= 0, "a DEVICE_FATAL record (%d records)", n);
	if (fatal >= 0)
		CHECK(ev[fatal].element == 0 && ev[fatal].handle == 0,
		      "DEVICE_FATAL carries nothing (element %llu handle %u)",
		      (unsigned long long)ev[fatal].element, ev[fatal].handle);
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_PD, pd), -EIO,
		 "DESTROY PD on the failed device");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_PD, pd), -ENOENT,
		 "... destroyed all the same: DESTROY again");
	close(as);
	ctx_close(&c);
}
