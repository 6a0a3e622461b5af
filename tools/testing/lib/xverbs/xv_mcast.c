// SPDX-License-Identifier: GPL-2.0
/*
 * xv_mcast: UD multicast (ibv_attach_mcast/ibv_detach_mcast) through
 * xrdma's libibverbs.so.1, as rdma-core and ib_core define it.  Built
 * against the system's <infiniband/verbs.h>; run over xrdma with
 * scripts/xrdma-run (tools/testing/lib/xverbs/xverbs_mcast.sh).
 *
 *   loopback  receivers on the sender's device, one attached twice, and
 *             an IPv6 (ff0e::) and an IPv4-mapped (::ffff:239.x) group:
 *             a SEND / SEND_WITH_IMM to dest QPN 0xffffff and the group's
 *             GID reaches every attached QP exactly once (twice as many
 *             receives posted as messages sent), with the network header
 *             (GRH: the sender's GID and the group's), src_qp, byte_len,
 *             immediate data and the payload verified; a QP not attached
 *             and a QP of another group get nothing
 *   cabled    receivers on both devices of a cable (-D): each gets one
 *             copy, whichever device sends
 *   detach    a detached QP gets nothing more, the others still do;
 *             detaching again is EINVAL; attaching again works; a QP in
 *             RESET may attach and receives once in RTS
 *   errors    RC and UC QPs (EINVAL), GIDs that are not multicast
 *             (EINVAL), detach of a group not attached (EINVAL), attach
 *             twice then detach once leaves nothing attached
 *   limits    max_mcast_qp_attach QPs in one group, one more is ENOMEM;
 *             max_mcast_grp groups, one more is ENOMEM;
 *             max_total_mcast_qp_attach attachments, one more is ENOMEM;
 *             a failed attach changes nothing
 *   destroy   destroying an attached QP succeeds and detaches it: the
 *             others still receive, its place in the group is free again
 *   uverbs    the raw ioctls: bad and stale handles (ENOENT), a CQ's handle
 *             (EINVAL), reserved field (EINVAL), short (EINVAL) and long
 *             (E2BIG) structures
 *   drained   (last) every group of the device is free: max_mcast_grp
 *             groups can be made again
 *
 *   -d IBDEV  sending device (xnic0)   -D IBDEV  its cabled peer (xnic1)
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <xrdma/xrdma-abi.h>
#include "xt.h"
#include "xt_verbs.h"

#define QKEY		0x11110000
#define MCAST_QPN	0xffffff
#define MSG_LEN		200
#define NMSG		4
#define GRH_LEN		40
#define SLOT		(GRH_LEN + MSG_LEN)
#define WAIT_MS		10000
#define QUIET_MS	300	/* how long nothing more must arrive */

static const char *dev_name = "xnic0";
static const char *peer_name = "xnic1";
static struct ibv_context *ctx[2];
static struct ibv_pd *pd[2];
static struct ibv_device_attr da;

/* ------------------------------------------------------------ helpers */

static union ibv_gid gid6(uint16_t last)
{
	union ibv_gid g;

	memset(&g, 0, sizeof(g));
	g.raw[0] = 0xff;
	g.raw[1] = 0x0e;
	g.raw[14] = last >> 8;
	g.raw[15] = last & 0xff;
	return g;
}

static union ibv_gid gid4(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	union ibv_gid g;

	memset(&g, 0, sizeof(g));
	g.raw[10] = 0xff;
	g.raw[11] = 0xff;
	g.raw[12] = a;
	g.raw[13] = b;
	g.raw[14] = c;
	g.raw[15] = d;
	return g;
}

static const char *gstr(const union ibv_gid *g, char *buf)
{
	return inet_ntop(AF_INET6, g->raw, buf, INET6_ADDRSTRLEN) ? buf : "?";
}

/* a UD QP with its CQ and a receive buffer of 2 * NMSG slots */
struct member {
	const char *name;
	int dev;
	struct xt_ep ep;
	struct xt_buf buf;
	bool busy[2 * NMSG];		/* a receive is posted in the slot */
};

static bool member_new(struct member *m, const char *name, int dev,
		       bool rts)
{
	const struct ibv_qp_cap cap = {
		.max_send_wr = 2 * NMSG, .max_recv_wr = 2 * NMSG,
		.max_send_sge = 1, .max_recv_sge = 1,
	};

	memset(m, 0, sizeof(*m));
	m->name = name;
	m->dev = dev;
	if (!xt_ep_new(&m->ep, pd[dev], IBV_QPT_UD, 4 * NMSG, &cap))
		return false;
	if (!xt_buf_new(&m->buf, pd[dev], 2 * NMSG * SLOT,
			IBV_ACCESS_LOCAL_WRITE))
		return false;
	return !rts || !xt_ud_rts(m->ep.qp, QKEY);
}

static void member_free(struct member *m)
{
	if (m->ep.qp && ibv_destroy_qp(m->ep.qp))
		xt_fail(NULL, "%s: ibv_destroy_qp", m->name);
	if (m->ep.cq && ibv_destroy_cq(m->ep.cq))
		xt_fail(NULL, "%s: ibv_destroy_cq", m->name);
	if (m->buf.mr && xt_buf_free(&m->buf))
		xt_fail(NULL, "%s: ibv_dereg_mr", m->name);
	memset(m, 0, sizeof(*m));
}

/*
 * a receive in every free slot: 2 * NMSG in all, room for a duplicate
 * of each message
 */
static bool member_post(struct member *m)
{
	struct ibv_recv_wr wr = { .num_sge = 1 }, *bad;
	struct ibv_sge sge;
	int i;

	for (i = 0; i < 2 * NMSG; i++) {
		if (m->busy[i])
			continue;
		memset(m->buf.p + i * SLOT, 0, SLOT);
		sge = xt_sge(&m->buf, i * SLOT, SLOT);
		wr.wr_id = i;
		wr.sg_list = &sge;
		if (ibv_post_recv(m->ep.qp, &wr, &bad))
			return xt_fail(NULL, "%s: ibv_post_recv", m->name);
		m->busy[i] = true;
	}
	return true;
}

static uint8_t pattern(uint32_t tag, int msg, int i)
{
	return (uint8_t)(tag * 7 + msg * 31 + i);
}

/* a sender: its own member (QP, CQ, buffer) and an AH to @g */
static bool send_msgs(struct member *s, const union ibv_gid *g, uint32_t tag,
		      int n, bool imm)
{
	struct ibv_ah_attr aa = {
		.is_global = 1, .port_num = XT_PORT,
		.grh = { .dgid = *g, .sgid_index = XT_GID_INDEX,
			 .hop_limit = 1 },
	};
	struct ibv_ah *ah = ibv_create_ah(pd[s->dev], &aa);
	struct ibv_wc wc[NMSG];
	bool ok = true;
	int i, j;

	if (!ah)
		return xt_fail(strerror(errno), "%s: ibv_create_ah", s->name);
	for (i = 0; i < n; i++) {
		uint8_t *p = s->buf.p + i * SLOT;
		struct ibv_sge sge = xt_sge(&s->buf, i * SLOT, MSG_LEN);
		struct ibv_send_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1,
			.opcode = imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED,
			.imm_data = htonl(tag + i),
			.wr.ud = { .ah = ah, .remote_qpn = MCAST_QPN,
				   .remote_qkey = QKEY },
		}, *bad;

		for (j = 0; j < MSG_LEN; j++)
			p[j] = pattern(tag, i, j);
		if (ibv_post_send(s->ep.qp, &wr, &bad)) {
			ok = xt_fail(strerror(errno), "%s: ibv_post_send",
				     s->name);
			n = i;
			break;
		}
	}
	if (xt_poll_n(s->ep.cq, wc, n, WAIT_MS) != n)
		ok = xt_fail(NULL, "%s: %d send completions", s->name, n);
	for (i = 0; ok && i < n; i++)
		if (wc[i].status != IBV_WC_SUCCESS)
			ok = xt_fail(ibv_wc_status_str(wc[i].status),
				     "%s: send %d completes", s->name, i);
	if (ibv_destroy_ah(ah))
		ok = xt_fail(NULL, "%s: ibv_destroy_ah", s->name);
	return ok;
}

/*
 * @m got exactly @n messages of @tag from @s to @g (or none with @n 0),
 * each once, and nothing more within QUIET_MS
 */
static bool expect(struct member *m, const struct member *s,
		   const union ibv_gid *g, uint32_t tag, int n, bool imm,
		   const char *what)
{
	struct ibv_wc wc[2 * NMSG];
	union ibv_gid sgid;
	bool seen[NMSG] = { false };
	char b1[INET6_ADDRSTRLEN];
	int got, extra, i, j;
	bool ok = true;

	if (ibv_query_gid(ctx[s->dev], XT_PORT, XT_GID_INDEX, &sgid))
		return xt_fail(NULL, "ibv_query_gid");
	got = n ? xt_poll_n(m->ep.cq, wc, n, WAIT_MS) : 0;
	extra = xt_poll_n(m->ep.cq, wc + got, 2 * NMSG - got, QUIET_MS);
	if (!xt_eq(got + extra, n, "%s: %s: %s gets %d message(s), once",
		   what, gstr(g, b1), m->name, n))
		return false;
	for (i = 0; i < got; i++) {
		const uint8_t *p;
		int msg = -1;

		if (wc[i].wr_id >= 2 * NMSG) {
			ok = xt_fail(NULL, "%s: %s: wr_id %llu", what, m->name,
				     (unsigned long long)wc[i].wr_id);
			continue;
		}
		p = m->buf.p + wc[i].wr_id * SLOT;
		m->busy[wc[i].wr_id] = false;
		if (wc[i].status != IBV_WC_SUCCESS ||
		    wc[i].opcode != IBV_WC_RECV ||
		    wc[i].byte_len != SLOT || !(wc[i].wc_flags & IBV_WC_GRH) ||
		    wc[i].src_qp != s->ep.qp->qp_num ||
		    !!(wc[i].wc_flags & IBV_WC_WITH_IMM) != imm) {
			ok = xt_fail(ibv_wc_status_str(wc[i].status),
				     "%s: %s: completion %d (opcode %d len %u flags %#x src_qp %u)",
				     what, m->name, i, wc[i].opcode,
				     wc[i].byte_len, wc[i].wc_flags,
				     wc[i].src_qp);
			continue;
		}
		/* the GRH: the sender's GID, the group's GID */
		if (memcmp(p + 8, sgid.raw, 16) || memcmp(p + 24, g->raw, 16))
			ok = xt_fail(NULL, "%s: %s: GRH of completion %d",
				     what, m->name, i);
		for (j = 0; j < NMSG; j++)
			if (p[GRH_LEN] == pattern(tag, j, 0) &&
			    p[GRH_LEN + 1] == pattern(tag, j, 1))
				msg = j;
		if (msg < 0 || seen[msg]) {
			ok = xt_fail(NULL, "%s: %s: completion %d: %s", what,
				     m->name, i,
				     msg < 0 ? "not a message" : "a second copy");
			continue;
		}
		seen[msg] = true;
		if (imm && ntohl(wc[i].imm_data) != tag + msg)
			ok = xt_fail(NULL, "%s: %s: immediate data", what,
				     m->name);
		for (j = 0; j < MSG_LEN; j++)
			if (p[GRH_LEN + j] != pattern(tag, msg, j))
				break;
		if (j < MSG_LEN)
			ok = xt_fail(NULL, "%s: %s: message %d byte %d",
				     what, m->name, msg, j);
	}
	return ok;
}

static bool attach_ok(struct member *m, const union ibv_gid *g)
{
	char b[INET6_ADDRSTRLEN];
	int ret = ibv_attach_mcast(m->ep.qp, g, 0);

	return xt_rc(-ret, 0, "%s attaches to %s", m->name, gstr(g, b));
}

static bool detach_ok(struct member *m, const union ibv_gid *g)
{
	char b[INET6_ADDRSTRLEN];
	int ret = ibv_detach_mcast(m->ep.qp, g, 0);

	return xt_rc(-ret, 0, "%s detaches from %s", m->name, gstr(g, b));
}

/* ------------------------------------------------------------ subtests */

static void t_loopback(void)
{
	static const char *const names[] = { "r0", "r1", "r2", "other", "none" };
	union ibv_gid g[2] = { gid6(0x101), gid4(239, 1, 2, 3) };
	struct member s, r[5];
	int i, k;

	if (!member_new(&s, "sender", 0, true))
		xt_bail(errno, "sender");
	for (i = 0; i < 5; i++)
		if (!member_new(&r[i], names[i], 0, true))
			xt_bail(errno, "receiver %s", names[i]);
	for (k = 0; k < 2; k++) {
		union ibv_gid other = gid6(0x999);

		for (i = 0; i < 3; i++)
			attach_ok(&r[i], &g[k]);
		/* attaching again: 0, still one copy */
		attach_ok(&r[1], &g[k]);
		attach_ok(&r[3], &other);
		for (i = 0; i < 5; i++)
			member_post(&r[i]);
		send_msgs(&s, &g[k], 0x100 * (k + 1), NMSG, k);
		for (i = 0; i < 5; i++)
			expect(&r[i], &s, &g[k], 0x100 * (k + 1),
			       i < 3 ? NMSG : 0, k, "loopback");
		for (i = 0; i < 3; i++)
			detach_ok(&r[i], &g[k]);
		detach_ok(&r[3], &other);
		/* the receives left are flushed with the QPs */
	}
	member_free(&s);
	for (i = 0; i < 5; i++)
		member_free(&r[i]);
}

static void t_cabled(void)
{
	static const char *const names[] = { "a0", "a1", "b0", "b1" };
	union ibv_gid g = gid4(224, 0, 0, 77);
	struct member s[2], r[4];
	int i, d;

	for (d = 0; d < 2; d++)
		if (!member_new(&s[d], d ? "sender1" : "sender0", d, true))
			xt_bail(errno, "sender on device %d", d);
	for (i = 0; i < 4; i++) {
		if (!member_new(&r[i], names[i], i / 2, true))
			xt_bail(errno, "receiver %s", names[i]);
		attach_ok(&r[i], &g);
	}
	for (d = 0; d < 2; d++) {
		for (i = 0; i < 4; i++)
			member_post(&r[i]);
		send_msgs(&s[d], &g, 0x300 + d, NMSG, false);
		for (i = 0; i < 4; i++)
			expect(&r[i], &s[d], &g, 0x300 + d, NMSG, false,
			       d ? "from the peer" : "to the peer");
	}
	for (i = 0; i < 4; i++)
		member_free(&r[i]);
	for (d = 0; d < 2; d++)
		member_free(&s[d]);
}

static void t_detach(void)
{
	union ibv_gid g = gid6(0x202);
	struct member s, a, b, c;

	if (!member_new(&s, "sender", 0, true) ||
	    !member_new(&a, "a", 0, true) || !member_new(&b, "b", 1, true) ||
	    !member_new(&c, "reset", 0, false))
		xt_bail(errno, "QPs");
	attach_ok(&a, &g);
	attach_ok(&b, &g);
	/* a QP in RESET may attach (ib_core allows any state) */
	attach_ok(&c, &g);
	if (xt_ud_rts(c.ep.qp, QKEY))
		xt_bail(errno, "RESET QP to RTS");
	member_post(&a);
	member_post(&b);
	member_post(&c);
	send_msgs(&s, &g, 0x400, NMSG, false);
	expect(&a, &s, &g, 0x400, NMSG, false, "both attached");
	expect(&b, &s, &g, 0x400, NMSG, false, "both attached");
	expect(&c, &s, &g, 0x400, NMSG, false, "attached in RESET");

	detach_ok(&a, &g);
	xt_rc(-ibv_detach_mcast(a.ep.qp, &g, 0), -EINVAL,
	      "detaching again is EINVAL");
	member_free(&c);
	member_post(&a);
	member_post(&b);
	send_msgs(&s, &g, 0x500, NMSG, false);
	expect(&a, &s, &g, 0x500, 0, false, "a detached");
	expect(&b, &s, &g, 0x500, NMSG, false, "b still attached");

	/* attaching again after a detach */
	attach_ok(&a, &g);
	send_msgs(&s, &g, 0x600, NMSG, false);
	expect(&a, &s, &g, 0x600, NMSG, false, "a attached again");
	member_free(&a);
	member_free(&b);
	member_free(&s);
}

static void t_errors(void)
{
	static const struct {
		const char *what;
		uint8_t raw[16];
	} bad[] = {
		{ "link-local unicast", { 0xfe, 0x80, [15] = 1 } },
		{ "zero GID", { 0 } },
		{ "IPv4-mapped unicast", { [10] = 0xff, [11] = 0xff, 198, 18,
					   0, 1 } },
		{ "IPv4-mapped 240.0.0.1", { [10] = 0xff, [11] = 0xff, 240, 0,
					     0, 1 } },
		{ "IPv4-mapped 223.255.255.255", { [10] = 0xff, [11] = 0xff,
						   223, 255, 255, 255 } },
		{ "fe ff::", { 0xfe, 0xff } },
	};
	static const struct {
		const char *what;
		uint8_t raw[16];
	} good[] = {
		{ "ff02::1", { 0xff, 0x02, [15] = 1 } },
		{ "ff00::", { 0xff } },
		{ "::ffff:224.0.0.0", { [10] = 0xff, [11] = 0xff, 224 } },
		{ "::ffff:239.255.255.255", { [10] = 0xff, [11] = 0xff, 239,
					      255, 255, 255 } },
	};
	const struct ibv_qp_cap cap = {
		.max_send_wr = 1, .max_recv_wr = 1,
		.max_send_sge = 1, .max_recv_sge = 1,
	};
	union ibv_gid g = gid6(0x303), g2 = gid6(0x304);
	struct xt_ep rc, uc;
	struct member m;
	size_t i;

	if (!xt_ep_new(&rc, pd[0], IBV_QPT_RC, 4, &cap) ||
	    !xt_ep_new(&uc, pd[0], IBV_QPT_UC, 4, &cap) ||
	    !member_new(&m, "ud", 0, true))
		xt_bail(errno, "QPs");
	xt_rc(-ibv_attach_mcast(rc.qp, &g, 0), -EINVAL, "RC QP: attach");
	xt_rc(-ibv_detach_mcast(rc.qp, &g, 0), -EINVAL, "RC QP: detach");
	xt_rc(-ibv_attach_mcast(uc.qp, &g, 0), -EINVAL, "UC QP: attach");
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		union ibv_gid b;

		memcpy(b.raw, bad[i].raw, 16);
		xt_rc(-ibv_attach_mcast(m.ep.qp, &b, 0), -EINVAL,
		      "%s: attach", bad[i].what);
		xt_rc(-ibv_detach_mcast(m.ep.qp, &b, 0), -EINVAL,
		      "%s: detach", bad[i].what);
	}
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		union ibv_gid b;

		memcpy(b.raw, good[i].raw, 16);
		xt_rc(-ibv_attach_mcast(m.ep.qp, &b, 0xc001), 0,
		      "%s: attach (any LID on RoCE)", good[i].what);
		xt_rc(-ibv_detach_mcast(m.ep.qp, &b, 0), 0, "%s: detach",
		      good[i].what);
	}
	errno = 0;
	xt_rc(-ibv_detach_mcast(m.ep.qp, &g, 0), -EINVAL,
	      "detach of a group never attached");
	xt_eq(errno, EINVAL, "errno is set too");
	attach_ok(&m, &g);
	xt_rc(-ibv_detach_mcast(m.ep.qp, &g2, 0), -EINVAL,
	      "detach of another group");
	attach_ok(&m, &g);
	detach_ok(&m, &g);
	xt_rc(-ibv_detach_mcast(m.ep.qp, &g, 0), -EINVAL,
	      "attached twice, detached once: no longer attached");
	member_free(&m);
	if (ibv_destroy_qp(rc.qp) || ibv_destroy_cq(rc.cq) ||
	    ibv_destroy_qp(uc.qp) || ibv_destroy_cq(uc.cq))
		xt_fail(NULL, "destroy RC/UC");
}

/* plain UD QPs for the limits, on one CQ */
static struct ibv_cq *lim_cq;

static struct ibv_qp *lim_qp(void)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_UD, .send_cq = lim_cq, .recv_cq = lim_cq,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(pd[0], &ia);

	if (!qp)
		xt_bail(errno, "ibv_create_qp");
	return qp;
}

static void t_limits(void)
{
	int ngrp = da.max_mcast_grp, nqp = da.max_mcast_qp_attach;
	int ntot = da.max_total_mcast_qp_attach;
	struct ibv_qp **qp;
	union ibv_gid g;
	int i, j, n, nq;

	xt_ok(ngrp > 0 && nqp > 0 && ntot > 0, NULL,
	      "limits reported: max_mcast_grp %d max_mcast_qp_attach %d max_total_mcast_qp_attach %d",
	      ngrp, nqp, ntot);
	if (ngrp <= 0 || nqp <= 0 || ntot <= 0 || ngrp > 4096 || nqp > 256)
		xt_bail(0, "no usable limits");
	lim_cq = ibv_create_cq(ctx[0], 16, NULL, NULL, 0);
	if (!lim_cq)
		xt_bail(errno, "ibv_create_cq");
	nq = nqp + 1;
	qp = calloc(nq, sizeof(*qp));
	if (!qp)
		xt_bail(ENOMEM, "calloc");
	for (i = 0; i < nq; i++)
		qp[i] = lim_qp();

	/* QPs per group */
	g = gid6(0x7000);
	for (i = n = 0; i < nqp; i++)
		n += !ibv_attach_mcast(qp[i], &g, 0);
	xt_eq(n, nqp, "max_mcast_qp_attach QPs attach to one group");
	xt_rc(-ibv_attach_mcast(qp[nqp], &g, 0), -ENOMEM,
	      "one more QP in the group");
	xt_rc(-ibv_attach_mcast(qp[0], &g, 0), 0,
	      "attaching again in a full group is still 0");
	xt_rc(-ibv_detach_mcast(qp[nqp], &g, 0), -EINVAL,
	      "the refused QP is not attached");
	xt_rc(-ibv_detach_mcast(qp[0], &g, 0), 0, "one leaves");
	xt_rc(-ibv_attach_mcast(qp[nqp], &g, 0), 0, "its place is free");
	for (i = n = 0; i < nq; i++)
		n += !ibv_detach_mcast(qp[i], &g, 0);
	xt_eq(n, nqp, "all detach");

	/* groups */
	for (i = n = 0; i < ngrp; i++) {
		g = gid6(0x1000 + i);
		n += !ibv_attach_mcast(qp[0], &g, 0);
	}
	xt_eq(n, ngrp, "max_mcast_grp groups");
	g = gid6(0x1000 + ngrp);
	xt_rc(-ibv_attach_mcast(qp[1], &g, 0), -ENOMEM, "one more group");
	g = gid6(0x1000);
	xt_rc(-ibv_attach_mcast(qp[1], &g, 0), 0,
	      "a QP more in an existing group");
	xt_rc(-ibv_detach_mcast(qp[1], &g, 0), 0, "and out again");
	for (i = n = 0; i < ngrp; i++) {
		g = gid6(0x1000 + i);
		n += !ibv_detach_mcast(qp[0], &g, 0);
	}
	xt_eq(n, ngrp, "every group left");

	/* attachments in all: nqp QPs in as many groups as it takes */
	if ((long)ngrp * nqp <= ntot) {
		xt_note("max_total_mcast_qp_attach %d: not below %d groups of %d QPs",
			ntot, ngrp, nqp);
	} else {
		for (i = n = 0; i < ntot; i++) {
			g = gid6(0x2000 + i / nqp);
			n += !ibv_attach_mcast(qp[i % nqp], &g, 0);
		}
		xt_eq(n, ntot, "max_total_mcast_qp_attach attachments");
		g = gid6(0x2000 + (ntot + nqp - 1) / nqp);
		xt_rc(-ibv_attach_mcast(qp[nqp], &g, 0), -ENOMEM,
		      "one more attachment (a new group)");
		xt_rc(-ibv_detach_mcast(qp[nqp], &g, 0), -EINVAL,
		      "the refused attachment did not happen");
		for (i = n = 0; i < ntot; i++) {
			g = gid6(0x2000 + i / nqp);
			n += !ibv_detach_mcast(qp[i % nqp], &g, 0);
		}
		xt_eq(n, ntot, "every attachment undone");
	}
	for (i = j = 0; i < nq; i++)
		j += !!ibv_destroy_qp(qp[i]);
	xt_eq(j, 0, "QPs destroyed");
	free(qp);
	xt_rc(-ibv_destroy_cq(lim_cq), 0, "CQ destroyed");
}

static void t_destroy(void)
{
	union ibv_gid g = gid6(0x404), g2 = gid4(239, 9, 9, 9);
	struct member s, a, b;
	struct ibv_qp **qp;
	int nqp = da.max_mcast_qp_attach, i, n;

	if (nqp <= 0 || nqp > 256)
		xt_bail(0, "max_mcast_qp_attach %d", nqp);
	if (!member_new(&s, "sender", 0, true) ||
	    !member_new(&a, "a", 0, true) || !member_new(&b, "b", 1, true))
		xt_bail(errno, "QPs");
	attach_ok(&a, &g);
	attach_ok(&a, &g2);
	attach_ok(&b, &g);
	member_post(&a);
	member_post(&b);
	xt_rc(-ibv_destroy_qp(a.ep.qp), 0, "an attached QP is destroyed");
	a.ep.qp = NULL;
	send_msgs(&s, &g, 0x700, NMSG, false);
	expect(&b, &s, &g, 0x700, NMSG, false, "after a's destroy");
	expect(&a, &s, &g, 0x700, 0, false, "destroyed QP's CQ");
	member_free(&a);
	member_free(&b);

	/* the destroyed QP's places are free: full groups again */
	lim_cq = ibv_create_cq(ctx[0], 16, NULL, NULL, 0);
	qp = calloc(nqp, sizeof(*qp));
	if (!lim_cq || !qp)
		xt_bail(errno, "CQ");
	for (i = n = 0; i < nqp; i++) {
		qp[i] = lim_qp();
		n += !ibv_attach_mcast(qp[i], &g, 0);
		n += !ibv_attach_mcast(qp[i], &g2, 0);
	}
	xt_eq(n, 2 * nqp, "both groups take max_mcast_qp_attach QPs again");
	/* destroyed while attached to both, without a detach */
	for (i = n = 0; i < nqp; i++)
		n += !ibv_destroy_qp(qp[i]);
	xt_eq(n, nqp, "attached QPs destroyed");
	free(qp);
	xt_rc(-ibv_destroy_cq(lim_cq), 0, "CQ destroyed");
	member_free(&s);
}

/* XRDMA_IOC_ATTACH_MCAST/DETACH_MCAST with bad arguments */
static int raw(unsigned long req, void *arg)
{
	return ioctl(ctx[0]->cmd_fd, req, arg) ? -errno : 0;
}

static void t_uverbs(void)
{
	static const struct {
		const char *name;
		unsigned long nr;
	} cmd[] = {
		{ "ATTACH_MCAST", XRDMA_IOC_ATTACH_MCAST },
		{ "DETACH_MCAST", XRDMA_IOC_DETACH_MCAST },
	};
	union ibv_gid g = gid6(0x505);
	struct xrdma_cmd_mcast c;
	struct {
		struct xrdma_cmd_mcast c;
		uint32_t more;
	} big;
	struct member m;
	uint32_t stale;
	size_t i;

	xt_eq(sizeof(c), XRDMA_CMD_MCAST_SIZE_VER0, "struct size");
	if (!member_new(&m, "ud", 0, true))
		xt_bail(errno, "QP");
	stale = m.ep.qp->handle;
	member_free(&m);
	if (!member_new(&m, "ud", 0, true))
		xt_bail(errno, "QP");
	for (i = 0; i < ARRAY_SIZE(cmd); i++) {
		const char *n = cmd[i].name;

		memset(&c, 0, sizeof(c));
		memcpy(c.gid, g.raw, 16);
		c.qp_handle = 0;
		xt_rc(raw(cmd[i].nr, &c), -ENOENT, "%s: handle 0", n);
		c.qp_handle = 0xdeadbeef;
		xt_rc(raw(cmd[i].nr, &c), -ENOENT, "%s: bad handle", n);
		c.qp_handle = stale;
		xt_rc(raw(cmd[i].nr, &c), -ENOENT, "%s: destroyed QP's handle",
		      n);
		c.qp_handle = m.ep.cq->handle;
		xt_rc(raw(cmd[i].nr, &c), -EINVAL, "%s: a CQ's handle", n);
		c.qp_handle = m.ep.qp->handle;
		c.reserved = 1;
		xt_rc(raw(cmd[i].nr, &c), -EINVAL, "%s: reserved set", n);
		c.reserved = 0;
		xt_rc(raw(_IOC(_IOC_READ | _IOC_WRITE, XRDMA_IOC_MAGIC,
			       _IOC_NR(cmd[i].nr), 16), &c),
		      -EINVAL, "%s: short structure", n);
		memset(&big, 0, sizeof(big));
		big.c = c;
		big.more = 1;
		xt_rc(raw(_IOC(_IOC_READ | _IOC_WRITE, XRDMA_IOC_MAGIC,
			       _IOC_NR(cmd[i].nr), sizeof(big)), &big),
		      -E2BIG, "%s: longer structure, non-zero tail", n);
		big.more = 0;
		xt_rc(raw(_IOC(_IOC_READ | _IOC_WRITE, XRDMA_IOC_MAGIC,
			       _IOC_NR(cmd[i].nr), sizeof(big)), &big),
		      0, "%s: longer structure, zero tail", n);
	}
	/* the zero-tail ATTACH then DETACH above left nothing attached */
	xt_rc(-ibv_detach_mcast(m.ep.qp, &g, 0), -EINVAL,
	      "attach and detach by raw ioctl balanced");
	member_free(&m);
}

static void t_drained(void)
{
	int ngrp = da.max_mcast_grp, i, n;
	struct member m;

	if (!member_new(&m, "ud", 0, true))
		xt_bail(errno, "QP");
	for (i = n = 0; i < ngrp; i++) {
		union ibv_gid g = gid6(0x3000 + i);

		n += !ibv_attach_mcast(m.ep.qp, &g, 0);
	}
	xt_eq(n, ngrp, "max_mcast_grp groups can be made: none left over");
	member_free(&m);
}

/* ------------------------------------------------------------ main */

static bool setup(void)
{
	int i;

	ctx[0] = xt_open_device(dev_name, NULL, 0);
	ctx[1] = xt_open_device(peer_name, NULL, 0);
	if (!ctx[0] || !ctx[1] || ibv_query_device(ctx[0], &da))
		return false;
	for (i = 0; i < 2; i++) {
		pd[i] = ibv_alloc_pd(ctx[i]);
		if (!pd[i])
			return false;
	}
	return true;
}

static void teardown(void)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (pd[i] && ibv_dealloc_pd(pd[i]))
			xt_fail(NULL, "ibv_dealloc_pd");
		if (ctx[i])
			ibv_close_device(ctx[i]);
	}
}

static const struct xt_subtest tests[] = {
	XT_SUBTEST(loopback, 0, "every attached QP on the device, once"),
	XT_SUBTEST(cabled, 0, "every attached QP on both cabled devices"),
	XT_SUBTEST(detach, 0, "detached QPs get nothing more"),
	XT_SUBTEST(errors, 0, "EINVAL for other QP types and GIDs"),
	XT_SUBTEST(limits, 0, "the reported limits hold, ENOMEM beyond"),
	XT_SUBTEST(destroy, 0, "destroying an attached QP detaches it"),
	XT_SUBTEST(uverbs, 0, "the raw ioctls with bad arguments"),
	XT_SUBTEST(drained, 0, "no group left over"),
};

static struct xt_suite suite = {
	.tests = tests, .n = ARRAY_SIZE(tests), .timeout = 300,
	.setup = setup, .teardown = teardown,
};

int main(int argc, char **argv)
{
	const struct xt_opt opts[] = {
		{ .c = 'd', .arg = "IBDEV", .str = &dev_name },
		{ .c = 'D', .arg = "IBDEV", .str = &peer_name },
	};
	int ret;

	ret = xt_main(&suite, opts, ARRAY_SIZE(opts), &argc, &argv,
		      "xv_mcast");
	if (ret >= 0)
		return ret;
	xt_show_library();
	xt_run(&suite, argc, argv);
	return xt_done();
}
