// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_utest: the user paths of the xnic driver, with nothing but the
 * uverbs ioctls (uapi/xrdma/xrdma-abi.h) and the xnic queue formats
 * (uapi/xrdma/xnic-abi.h, Documentation/xnic/userspace.rst).
 *
 * Usage: xnic_utest [-n IBDEV] [-c COUNTERS] [-r READY_FILE] [-v] [-l]
 *                   [SUBTEST...]
 *
 *   -n IBDEV     the xrdma device (default xnic0), found through the
 *                "ibdev" attributes in /sys/class/xrdma
 *   -c FILE      the model's counters (debugfs xnic_sim/<i>/counters),
 *                read by the "wake" mode
 *   -r FILE      "remove" and "fatal" modes: the pid is written there
 *                when ready
 *   -v           more detail
 *   -l           list the subtests ("modes"), each run in a child process
 *
 * MODE "paths" (default):
 *   the context (GET_CONTEXT driver data, device/port/GID queries, the
 *   async fd), the doorbell page mapping, an MR, two CQs, an SRQ and two
 *   RC QPs with their rings mapped (response geometry checked, fresh
 *   rings zeroed, too long mappings refused); each QP connected to itself
 *   (loopback); posted from userspace through the mappings:
 *   an RDMA WRITE and an inline SEND_WITH_IMM (data, immediate and
 *   completions verified, canaries around every target intact), a SEND
 *   received through the SRQ, then enough WRITEs and SENDs to wrap the
 *   send queue, the receive queue and the send CQ three times (owner
 *   phases); explicit destruction (-EBUSY for a PD in use, a destroyed
 *   QP's mapping stays usable until munmap, its offset cannot be mapped
 *   again), then objects left to close() with a mapping outliving the fd.
 * MODE "wake":
 *   after an idle period the engine has set XNIC_DB_NEED_WAKEUP; a posted
 *   WRITE sees it, the KICK ioctl (for the context, then for the QP)
 *   wakes the engine, the WRITE completes with its data; with -c the
 *   model's "kicks" and "wakeups" counters must show it.
 * MODE "remove" (driven by tools/testing/hw/xnic/xnic_remove.sh):
 *   sets up everything of "paths" with work done and receives
 *   outstanding, writes its pid to READY_FILE and waits for SIGUSR1
 *   while the driver is removed; then every ioctl must fail with -EIO,
 *   the async fd must hold one DEVICE_FATAL record, every mapping must
 *   be zapped (SIGBUS, or a zero page where the data was not zero), no
 *   new mapping is possible, the MR is unpinned (VmPin), and munmap and
 *   close succeed.
 * MODE "fatal" (driven by tools/testing/hw/xnic/xnic_fault.sh, with
 *   xnic.recover=0): sets up everything of "paths", writes its pid to
 *   READY_FILE and waits for SIGUSR1 while the device fails; then the
 *   async fd holds DEVICE_FATAL and every DESTROY answers -EIO with its
 *   handle gone (-ENOENT again).
 *
 * Output: "ok N - ..." / "not ok N - ..." lines and "# ..." notes; the
 * exit status is 0 only if every check passed.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <xrdma/xrdma-abi.h>
#include <xrdma/xnic-abi.h>
#include "xt.h"
#include "xt_uverbs.h"

#define PORT_ACTIVE	4
#define PSN		0x1234
#define TIMEOUT_MS	5000
#define ACCESS_ALL	(XRDMA_UVERBS_ACCESS_LOCAL_WRITE | \
			 XRDMA_UVERBS_ACCESS_REMOTE_WRITE | \
			 XRDMA_UVERBS_ACCESS_REMOTE_READ)

/* the MR buffer: areas, each with GUARD canary bytes around its targets */
#define MR_SIZE		(256 * 1024)
#define OFF_WSRC	0x00000		/* RDMA WRITE source */
#define OFF_WDST	0x08000		/* RDMA WRITE destination */
#define OFF_RECV	0x10000		/* QP A's receive buffer */
#define OFF_SSRC	0x18000		/* SEND source of the SRQ test */
#define OFF_SRECV	0x20000		/* SRQ receive buffer */
#define OFF_LSRC	0x28000		/* wrap test: sources */
#define OFF_LDST	0x30000		/* wrap test: destinations */
#define LAP_AREA	0x8000
#define WRITE_LEN	4096
#define SRQ_SEND_LEN	512
#define RECV_LEN	4096
#define GUARD		64
#define CANARY		0xa5
#define INLINE_LEN	100

static int verbose;
static const char *ctr_path;
static const char *dev_name = "xnic0";
static const char *ready_file;
static long pagesz;

/* ------------------------------------------------------------ objects */

struct ctx {
	int fd;
	int as;				/* async event fd */
	char name[32];			/* uverbsN */
	struct xnic_ucontext_resp uctx;
	struct xrdma_cmd_query_device qd;
	struct xrdma_cmd_query_port qport;
	__u8 gid[16];
	struct xnic_db_page *db;
	__u32 pd;
	int kicks;			/* KICK ioctls made */
};

struct ucq {
	__u32 h, cqn, log, ci;
	struct xnic_create_cq_resp r;
	void *map;
	struct xnic_cqe *ring;
	struct xnic_cq_dbrec *dbrec;
};

/* a receive ring: a QP's RQ or an SRQ */
struct urq {
	__u8 *ring;
	__u32 log, shift, pi;
	struct xnic_qp_dbrec *dbrec;
};

struct usrq {
	__u32 h, srqn;
	struct xnic_create_srq_resp r;
	void *map;
	struct urq rq;
};

struct uqp {
	__u32 h, qpn;
	struct xnic_create_qp_resp r;
	struct xrdma_uverbs_qp_cap cap;
	void *map;
	__u8 *sq;
	struct xnic_qp_dbrec *dbrec;
	__u32 sq_pi;
	struct urq rq;			/* unused with an SRQ */
	struct ucq *scq, *rcq;
};

static const char *err_str(int ret)
{
	return ret ? strerror(-ret) : "success";
}

/* a mapping of the uverbs fd: the address, or NULL with errno set */
static void *map(struct ctx *c, __u64 off, size_t len, int prot, int flags)
{
	void *p = mmap(NULL, len, prot, flags, c->fd, off);

	return p == MAP_FAILED ? NULL : p;
}

static void *map_rw(struct ctx *c, __u64 off, size_t len)
{
	return map(c, off, len, PROT_READ | PROT_WRITE, MAP_SHARED);
}

/* mmap must fail with @err */
static void map_refused(struct ctx *c, __u64 off, size_t len, int prot,
			int flags, int err, const char *what)
{
	void *p = map(c, off, len, prot, flags);
	int e = errno;

	xt_check(!p && e == err, "mmap of %s refused with %s (got %s)", what,
		 strerror(err), p ? "a mapping" : strerror(e));
	if (p)
		munmap(p, len);
}

/*
 * the rings of @what (number @n) at @off, @len bytes, mapped after a
 * mapping one page longer was refused
 */
static void *map_obj(struct ctx *c, __u64 off, __u32 len, const char *what,
		     __u32 n)
{
	char name[64];
	void *p;

	snprintf(name, sizeof(name), "%s, one page too long", what);
	map_refused(c, off, len + pagesz, PROT_READ | PROT_WRITE, MAP_SHARED,
		    EINVAL, name);
	p = map_rw(c, off, len);
	if (!p)
		xt_bail(errno, "mmap of %s (%u)", what, n);
	return p;
}

static int all_zero(const void *p, size_t len)
{
	const __u8 *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i])
			return 0;
	return 1;
}

/* ------------------------------------------------------------ context */

static void check_queries(struct ctx *c)
{
	struct xrdma_cmd_query_device *qd = &c->qd;
	struct xrdma_cmd_query_port *qp = &c->qport;
	struct xrdma_cmd_query_port qp2 = { .port_num = 2 };
	struct xrdma_cmd_query_gid qg = { .port_num = 1 };
	static const __u8 fe80[8] = { 0xfe, 0x80 };
	int ret;

	ret = xio(c->fd, XRDMA_IOC_QUERY_DEVICE, qd);
	if (ret)
		xt_bail(ret, "QUERY_DEVICE");
	xt_check(qd->max_sge == c->uctx.max_sge &&
		 qd->max_inline_data == c->uctx.max_inline &&
		 qd->num_ports == 1 && qd->atomic_cap == 1 &&
		 (qd->device_cap_flags & XRDMA_DEVICE_CAP_MEM_MGT_EXTENSIONS) &&
		 qd->max_qp && qd->max_cq && qd->max_srq && qd->max_mr &&
		 qd->max_qp_wr >= 16 && qd->max_cqe >= 128 &&
		 qd->max_srq_wr >= 20 && qd->max_fast_reg_page_list_len &&
		 qd->fw_ver[0],
		 "QUERY_DEVICE: fw '%.32s', max_qp %u, max_qp_wr %u, max_sge %u, max_inline %u, max_cq %u, max_cqe %u, max_mr %u, max_srq %u, atomic_cap %u, caps %#x",
		 qd->fw_ver, qd->max_qp, qd->max_qp_wr, qd->max_sge,
		 qd->max_inline_data, qd->max_cq, qd->max_cqe, qd->max_mr,
		 qd->max_srq, qd->atomic_cap, qd->device_cap_flags);

	qp->port_num = 1;
	ret = xio(c->fd, XRDMA_IOC_QUERY_PORT, qp);
	if (ret)
		xt_bail(ret, "QUERY_PORT 1");
	xt_check(qp->state == PORT_ACTIVE && qp->active_mtu >= 1 &&
		 qp->active_mtu <= 5 && qp->gid_tbl_len >= 1,
		 "QUERY_PORT 1: state %u (want %u), active_mtu %u, link_layer %u, gid_tbl_len %u",
		 qp->state, PORT_ACTIVE, qp->active_mtu, qp->link_layer,
		 qp->gid_tbl_len);
	ret = xio(c->fd, XRDMA_IOC_QUERY_PORT, &qp2);
	xt_check(ret == -EINVAL, "QUERY_PORT 2: %s (want EINVAL)", err_str(ret));

	ret = xio(c->fd, XRDMA_IOC_QUERY_GID, &qg);
	if (ret)
		xt_bail(ret, "QUERY_GID 1/0");
	memcpy(c->gid, qg.gid, sizeof(c->gid));
	xt_check(!memcmp(qg.gid, fe80, 8) && !memcmp(qg.gid + 8, &qd->node_guid, 8),
		 "GID 0 is fe80::<node_guid> (%02x%02x::%02x%02x:%02x%02x:%02x%02x:%02x%02x)",
		 qg.gid[0], qg.gid[1], qg.gid[8], qg.gid[9], qg.gid[10],
		 qg.gid[11], qg.gid[12], qg.gid[13], qg.gid[14], qg.gid[15]);
}

/*
 * Open the device, create the context, check the driver data and the
 * queries, get the async fd and map the doorbell page.
 */
static void ctx_open(struct ctx *c, const char *ibdev)
{
	struct xrdma_cmd_get_context gc = { 0 };
	struct xrdma_cmd_fd af = { 0 };
	char path[96], drv[32];
	int ret;

	memset(c, 0, sizeof(*c));
	ret = xt_find_uverbs(ibdev, c->name, sizeof(c->name));
	if (ret)
		xt_bail(ret, "no /sys/class/xrdma/uverbs*/ibdev says %s", ibdev);
	snprintf(path, sizeof(path), "/sys/class/xrdma/%s/driver", c->name);
	ret = xt_read_line(path, drv, sizeof(drv));
	xt_check(!ret && !strcmp(drv, "xnic"), "%s: driver is '%s' (want xnic)",
		 path, ret ? err_str(ret) : drv);
	snprintf(path, sizeof(path), "/dev/infiniband/xrdma_%s", c->name);
	c->fd = open(path, O_RDWR | O_CLOEXEC);
	if (c->fd < 0)
		xt_bail(errno, "open %s", path);

	xt_udata_out(&gc.udata, &c->uctx, sizeof(c->uctx));
	ret = xio(c->fd, XRDMA_IOC_GET_CONTEXT, &gc);
	if (ret)
		xt_bail(ret, "GET_CONTEXT on %s", path);
	xt_check(gc.abi_version == XRDMA_ABI_VERSION &&
		 c->uctx.abi_version == XNIC_ABI_VERSION &&
		 c->uctx.max_sge >= 2 && c->uctx.max_inline >= INLINE_LEN &&
		 !c->uctx.reserved,
		 "GET_CONTEXT on %s (%s): abi %u, xnic abi %u, max_sge %u, max_inline %u",
		 path, ibdev, gc.abi_version, c->uctx.abi_version,
		 c->uctx.max_sge, c->uctx.max_inline);
	check_queries(c);

	ret = xio(c->fd, XRDMA_IOC_GET_ASYNC_FD, &af);
	if (ret)
		xt_bail(ret, "GET_ASYNC_FD");
	c->as = af.fd;
	fcntl(c->as, F_SETFL, fcntl(c->as, F_GETFL) | O_NONBLOCK);

	map_refused(c, c->uctx.db_page_offset, XNIC_DB_PAGE_SIZE + pagesz,
		    PROT_READ | PROT_WRITE, MAP_SHARED, EINVAL,
		    "the doorbell page, one page too long");
	map_refused(c, c->uctx.db_page_offset, XNIC_DB_PAGE_SIZE,
		    PROT_READ | PROT_EXEC, MAP_SHARED, EPERM,
		    "the doorbell page with PROT_EXEC");
	c->db = map_rw(c, c->uctx.db_page_offset, XNIC_DB_PAGE_SIZE);
	if (!c->db)
		xt_bail(errno, "mmap of the doorbell page");
	xt_check(all_zero(c->db->summary, sizeof(c->db->summary)) &&
		 all_zero(c->db->group, sizeof(c->db->group)),
		 "doorbell page mapped (%d bytes at offset %#llx), summary and group words zero, flags %#x",
		 XNIC_DB_PAGE_SIZE, (unsigned long long)c->uctx.db_page_offset,
		 le32toh(c->db->flags));
}

static void pd_alloc(struct ctx *c)
{
	struct xrdma_cmd_alloc_pd pd = { 0 };
	int ret = xio(c->fd, XRDMA_IOC_ALLOC_PD, &pd);

	if (ret)
		xt_bail(ret, "ALLOC_PD");
	c->pd = pd.pd_handle;
}

static void mr_reg(struct ctx *c, struct xt_umr *m)
{
	const char *step;
	int ret;

	ret = xt_umr_new(c->fd, c->pd, MR_SIZE, CANARY, ACCESS_ALL, m, &step);
	if (ret)
		xt_bail(ret, "%s of the MR buffer (%d bytes)", step, MR_SIZE);
	xt_check(m->lkey >> 8 && m->rkey >> 8,
		 "REG_MR of %d bytes: lkey %#x rkey %#x", MR_SIZE, m->lkey,
		 m->rkey);
}

static void cq_create(struct ctx *c, struct ucq *cq, __u32 cqe)
{
	struct xrdma_cmd_create_cq cc = { 0 };
	struct xnic_create_cq_resp *r = &cq->r;
	size_t ring;
	int ret;

	memset(cq, 0, sizeof(*cq));
	cc.cqe = cqe;
	cc.channel_fd = -1;
	xt_udata_out(&cc.udata, r, sizeof(*r));
	ret = xio(c->fd, XRDMA_IOC_CREATE_CQ, &cc);
	if (ret)
		xt_bail(ret, "CREATE_CQ of %u CQEs", cqe);
	cq->h = cc.cq_handle;
	cq->cqn = r->cqn;
	cq->log = r->log_cqe;
	ring = sizeof(struct xnic_cqe) << (r->log_cqe & 31);
	if (!xt_check(r->log_cqe <= 20 && (1u << r->log_cqe) >= cqe &&
		      cc.cqe >= cqe && cc.cqe <= (1u << r->log_cqe) &&
		      r->dbrec_offset >= ring &&
		      r->dbrec_offset + sizeof(struct xnic_cq_dbrec) <= r->mmap_size &&
		      r->mmap_size % pagesz == 0,
		      "CREATE_CQ %u: cqe %u -> %u, 2^%u CQEs, dbrec at %u, mmap_size %u",
		      r->cqn, cqe, cc.cqe, r->log_cqe, r->dbrec_offset,
		      r->mmap_size))
		xt_bail(0, "CREATE_CQ response unusable");
	cq->map = map_obj(c, r->mmap_offset, r->mmap_size, "a CQ", r->cqn);
	cq->ring = cq->map;
	cq->dbrec = (void *)((__u8 *)cq->map + r->dbrec_offset);
	xt_check(all_zero(cq->map, r->mmap_size),
		 "CQ %u mapped: ring and doorbell record zeroed", r->cqn);
}

static void srq_create(struct ctx *c, struct usrq *s, __u32 max_wr,
		       __u32 max_sge)
{
	struct xrdma_cmd_create_srq cs = { 0 };
	struct xnic_create_srq_resp *r = &s->r;
	__u64 bytes;
	int ret;

	memset(s, 0, sizeof(*s));
	cs.pd_handle = c->pd;
	cs.max_wr = max_wr;
	cs.max_sge = max_sge;
	xt_udata_out(&cs.udata, r, sizeof(*r));
	ret = xio(c->fd, XRDMA_IOC_CREATE_SRQ, &cs);
	if (ret)
		xt_bail(ret, "CREATE_SRQ");
	s->h = cs.srq_handle;
	s->srqn = r->srqn;
	bytes = (__u64)1 << ((r->log_wqe + r->wqe_shift) & 63);
	if (!xt_check(r->wqe_shift >= XNIC_RQ_WQE_MIN_SHIFT && r->wqe_shift <= 12 &&
		      r->log_wqe <= 16 && cs.max_wr >= max_wr &&
		      cs.max_wr <= (1u << r->log_wqe) && cs.max_sge >= max_sge &&
		      ((1u << r->wqe_shift) - 16) / 16 >= cs.max_sge &&
		      r->dbrec_offset >= bytes &&
		      r->dbrec_offset + sizeof(struct xnic_qp_dbrec) <= r->mmap_size &&
		      r->mmap_size % pagesz == 0,
		      "CREATE_SRQ %u: max_wr %u -> %u, max_sge %u -> %u, 2^%u x %u bytes, dbrec at %u, mmap_size %u",
		      r->srqn, max_wr, cs.max_wr, max_sge, cs.max_sge,
		      r->log_wqe, 1u << r->wqe_shift, r->dbrec_offset,
		      r->mmap_size))
		xt_bail(0, "CREATE_SRQ response unusable");
	s->map = map_obj(c, r->mmap_offset, r->mmap_size, "an SRQ", r->srqn);
	s->rq.ring = s->map;
	s->rq.log = r->log_wqe;
	s->rq.shift = r->wqe_shift;
	s->rq.dbrec = (void *)((__u8 *)s->map + r->dbrec_offset);
	xt_check(all_zero(s->map, r->mmap_size),
		 "SRQ %u mapped: ring and doorbell record zeroed", r->srqn);
}

/* [a, a + al) and [b, b + bl) do not overlap */
static int disjoint(__u64 a, __u64 al, __u64 b, __u64 bl)
{
	return !al || !bl || a + al <= b || b + bl <= a;
}

static int qp_geometry_ok(const struct uqp *qp, int has_srq)
{
	const struct xnic_create_qp_resp *r = &qp->r;
	const struct xrdma_uverbs_qp_cap *cap = &qp->cap;
	__u64 sq_bytes, rq_bytes = 0, sq_room;

	if (r->sq_wqe_shift < XNIC_SQ_WQE_MIN_SHIFT || r->sq_wqe_shift > 12 ||
	    r->sq_log_wqe > 16 || r->db_slot >= XNIC_DB_SLOTS ||
	    r->mmap_size % pagesz)
		return 0;
	sq_bytes = (__u64)1 << (r->sq_log_wqe + r->sq_wqe_shift);
	sq_room = ((__u64)1 << r->sq_wqe_shift) - XNIC_WQE_DATA_OFF;
	if (cap->max_send_wr > (1u << r->sq_log_wqe) ||
	    cap->max_send_sge > sq_room / sizeof(struct xnic_sge) ||
	    cap->max_inline_data > sq_room ||
	    r->sq_offset + sq_bytes > r->mmap_size)
		return 0;
	if (!has_srq) {
		if (r->rq_wqe_shift < XNIC_RQ_WQE_MIN_SHIFT ||
		    r->rq_wqe_shift > 12 || r->rq_log_wqe > 16)
			return 0;
		rq_bytes = (__u64)1 << (r->rq_log_wqe + r->rq_wqe_shift);
		if (cap->max_recv_wr > (1u << r->rq_log_wqe) ||
		    cap->max_recv_sge >
		    (((__u64)1 << r->rq_wqe_shift) - 16) / 16 ||
		    r->rq_offset + rq_bytes > r->mmap_size)
			return 0;
	}
	return r->dbrec_offset + sizeof(struct xnic_qp_dbrec) <= r->mmap_size &&
	       disjoint(r->sq_offset, sq_bytes, r->rq_offset, rq_bytes) &&
	       disjoint(r->sq_offset, sq_bytes, r->dbrec_offset, 8) &&
	       disjoint(r->rq_offset, rq_bytes, r->dbrec_offset, 8);
}

static void qp_create(struct ctx *c, struct uqp *qp, struct ucq *scq,
		      struct ucq *rcq, struct usrq *srq,
		      const struct xrdma_uverbs_qp_cap *want, const char *name)
{
	struct xrdma_cmd_create_qp cq = { 0 };
	struct xnic_create_qp_resp *r = &qp->r;
	int ret;

	memset(qp, 0, sizeof(*qp));
	qp->scq = scq;
	qp->rcq = rcq;
	cq.pd_handle = c->pd;
	cq.send_cq_handle = scq->h;
	cq.recv_cq_handle = rcq->h;
	if (srq) {
		cq.flags = XRDMA_UVERBS_CREATE_QP_SRQ;
		cq.srq_handle = srq->h;
	}
	cq.qp_type = XRDMA_UVERBS_QPT_RC;
	cq.cap = *want;
	xt_udata_out(&cq.udata, r, sizeof(*r));
	ret = xio(c->fd, XRDMA_IOC_CREATE_QP, &cq);
	if (ret)
		xt_bail(ret, "CREATE_QP %s", name);
	qp->h = cq.qp_handle;
	qp->qpn = cq.qpn;
	qp->cap = cq.cap;
	if (!xt_check(cq.cap.max_send_wr >= want->max_send_wr &&
		      cq.cap.max_send_sge >= want->max_send_sge &&
		      cq.cap.max_inline_data >= want->max_inline_data &&
		      (srq || (cq.cap.max_recv_wr >= want->max_recv_wr &&
			       cq.cap.max_recv_sge >= want->max_recv_sge)) &&
		      qp_geometry_ok(qp, !!srq),
		      "CREATE_QP %s: QPN %u, cap %u/%u/%u/%u/%u, SQ 2^%u x %u at %u, RQ 2^%u x %u at %u, dbrec at %u, slot %u, mmap_size %u",
		      name, qp->qpn, cq.cap.max_send_wr, cq.cap.max_recv_wr,
		      cq.cap.max_send_sge, cq.cap.max_recv_sge,
		      cq.cap.max_inline_data, r->sq_log_wqe,
		      1u << (r->sq_wqe_shift & 31), r->sq_offset, r->rq_log_wqe,
		      1u << (r->rq_wqe_shift & 31), r->rq_offset,
		      r->dbrec_offset, r->db_slot, r->mmap_size))
		xt_bail(0, "CREATE_QP response unusable");
	map_refused(c, r->mmap_offset, r->mmap_size + pagesz,
		    PROT_READ | PROT_WRITE, MAP_SHARED, EINVAL,
		    "a QP, one page too long");
	map_refused(c, r->mmap_offset, r->mmap_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE, EINVAL, "a QP with MAP_PRIVATE");
	qp->map = map_rw(c, r->mmap_offset, r->mmap_size);
	if (!qp->map)
		xt_bail(errno, "mmap of QP %u", qp->qpn);
	qp->sq = (__u8 *)qp->map + r->sq_offset;
	qp->dbrec = (void *)((__u8 *)qp->map + r->dbrec_offset);
	qp->rq.ring = (__u8 *)qp->map + r->rq_offset;
	qp->rq.log = r->rq_log_wqe;
	qp->rq.shift = r->rq_wqe_shift;
	qp->rq.dbrec = qp->dbrec;
	xt_check(all_zero(qp->map, r->mmap_size),
		 "QP %s mapped: rings and doorbell record zeroed", name);
}

static int modify(struct ctx *c, struct uqp *qp, __u32 mask,
		  const struct xrdma_uverbs_qp_attr *a)
{
	return xt_modify_qp(c->fd, qp->h, mask, a);
}

/* RC QP connected to itself: dgid = own port GID, dest_qpn = own QPN */
static void qp_connect_self(struct ctx *c, struct uqp *qp, const char *name)
{
	const struct xt_rc_path path = {
		.dgid = c->gid, .mtu = c->qport.active_mtu, .psn = PSN,
		.access = ACCESS_ALL, .max_rd_atomic = 1,
		.max_dest_rd_atomic = 1,
	};
	struct xrdma_cmd_query_qp q = { 0 };
	const char *step;
	int ret;

	ret = xt_rc_connect(c->fd, qp->h, qp->qpn, &path, &step);
	if (ret)
		xt_bail(ret, "MODIFY_QP %s %s", name, step);
	q.qp_handle = qp->h;
	q.attr_mask = QPA_STATE | QPA_DEST_QPN;
	ret = xio(c->fd, XRDMA_IOC_QUERY_QP, &q);
	xt_check(!ret && q.attr.qp_state == QPS_RTS &&
		 q.attr.dest_qp_num == qp->qpn,
		 "QP %s (QPN %u) connected to itself: QUERY_QP %s, state %u, dest_qpn %u",
		 name, qp->qpn, err_str(ret), q.attr.qp_state,
		 q.attr.dest_qp_num);
}

static int destroy(struct ctx *c, __u32 type, __u32 h)
{
	struct xrdma_cmd_destroy d = { .type = type, .handle = h };

	return xio(c->fd, XRDMA_IOC_DESTROY, &d);
}

static int kick(struct ctx *c, __u32 qp_handle)
{
	struct xrdma_cmd_kick k = { .qp_handle = qp_handle };

	c->kicks++;
	return xio(c->fd, XRDMA_IOC_KICK, &k);
}

/* ------------------------------------------------------------ data path */

/* the send WQE at sq_pi, cleared but for its owner byte (still invalid) */
static __u8 *sq_wqe(struct uqp *qp)
{
	size_t size = (size_t)1 << qp->r.sq_wqe_shift;
	size_t own = offsetof(struct xnic_wqe_ctrl, owner);
	__u32 idx = qp->sq_pi & ((1u << qp->r.sq_log_wqe) - 1);
	__u8 *wqe = qp->sq + idx * size;

	memset(wqe, 0, own);
	memset(wqe + own + 1, 0, size - own - 1);
	return wqe;
}

/* make the WQE at sq_pi valid (owner byte last) and move on */
static void sq_produce(struct uqp *qp, __u8 *wqe)
{
	struct xnic_wqe_ctrl *ctrl = (void *)(wqe + XNIC_WQE_CTRL_OFF);

	__atomic_store_n(&ctrl->owner, (__u8)((qp->sq_pi >> qp->r.sq_log_wqe) & 1),
			 __ATOMIC_RELEASE);
	qp->sq_pi++;
}

/*
 * Ring the doorbell for everything produced: the doorbell record, the
 * slot's group bit, the group's summary bit, then NEED_WAKEUP; kick if it
 * is set and @may_kick.  Return: NEED_WAKEUP was set.
 */
static int sq_ring(struct ctx *c, struct uqp *qp, int may_kick)
{
	int nw, ret;

	__atomic_store_n(&qp->dbrec->sq_pi, htole32(qp->sq_pi),
			 __ATOMIC_RELEASE);
	nw = xt_db_ring(c->db, qp->r.db_slot);
	if (nw && may_kick) {
		ret = kick(c, 0);
		if (ret)
			xt_bail(ret, "KICK");
	}
	return nw;
}

static void wqe_sge(__u8 *wqe, int i, const struct xt_umr *m, __u32 off,
		    __u32 len)
{
	struct xnic_sge *sge = (void *)(wqe + XNIC_WQE_DATA_OFF);

	sge[i].addr = htole64(uptr(m->buf + off));
	sge[i].length = htole32(len);
	sge[i].lkey = htole32(m->lkey);
}

static void post_write(struct uqp *qp, const struct xt_umr *m, __u32 src,
		       __u32 dst, __u32 len, __u64 wr_id)
{
	__u8 *wqe = sq_wqe(qp);
	struct xnic_wqe_ctrl *ctrl = (void *)(wqe + XNIC_WQE_CTRL_OFF);
	struct xnic_wqe_remote *rem = (void *)(wqe + XNIC_WQE_REMOTE_OFF);

	ctrl->opcode = XNIC_OP_RDMA_WRITE;
	ctrl->flags = XNIC_WQE_SIGNALED;
	ctrl->num_sge = 1;
	ctrl->wr_id = htole64(wr_id);
	rem->remote_addr = htole64(uptr(m->buf + dst));
	rem->rkey = htole32(m->rkey);
	wqe_sge(wqe, 0, m, src, len);
	sq_produce(qp, wqe);
}

static void post_send_inline(struct uqp *qp, const void *data, __u32 len,
			     const __u8 *imm, __u64 wr_id)
{
	__u8 *wqe = sq_wqe(qp);
	struct xnic_wqe_ctrl *ctrl = (void *)(wqe + XNIC_WQE_CTRL_OFF);

	ctrl->opcode = imm ? XNIC_OP_SEND_WITH_IMM : XNIC_OP_SEND;
	ctrl->flags = XNIC_WQE_SIGNALED | XNIC_WQE_INLINE;
	ctrl->inline_len = htole32(len);
	ctrl->wr_id = htole64(wr_id);
	if (imm)
		memcpy(&ctrl->imm_data, imm, sizeof(ctrl->imm_data));
	memcpy(wqe + XNIC_WQE_DATA_OFF, data, len);
	sq_produce(qp, wqe);
}

/* a SEND from two SGEs: [off, off + len / 2) and the rest */
static void post_send_sges(struct uqp *qp, const struct xt_umr *m, __u32 off,
			   __u32 len, __u64 wr_id)
{
	__u8 *wqe = sq_wqe(qp);
	struct xnic_wqe_ctrl *ctrl = (void *)(wqe + XNIC_WQE_CTRL_OFF);

	ctrl->opcode = XNIC_OP_SEND;
	ctrl->flags = XNIC_WQE_SIGNALED;
	ctrl->num_sge = 2;
	ctrl->wr_id = htole64(wr_id);
	wqe_sge(wqe, 0, m, off, len / 2);
	wqe_sge(wqe, 1, m, off + len / 2, len - len / 2);
	sq_produce(qp, wqe);
}

/* a receive WQE of one SGE, owner last, then rq_pi */
static void post_recv(struct urq *rq, const struct xt_umr *m, __u32 off,
		      __u32 len, __u64 wr_id)
{
	size_t size = (size_t)1 << rq->shift;
	__u32 idx = rq->pi & ((1u << rq->log) - 1);
	__u8 *wqe = rq->ring + idx * size;
	struct xnic_rwqe *h = (void *)wqe;
	struct xnic_sge *sge = (void *)(wqe + sizeof(*h));
	size_t own = offsetof(struct xnic_rwqe, owner);

	memset(wqe, 0, own);
	memset(wqe + own + 1, 0, size - own - 1);
	h->wr_id = htole64(wr_id);
	h->num_sge = 1;
	sge->addr = htole64(uptr(m->buf + off));
	sge->length = htole32(len);
	sge->lkey = htole32(m->lkey);
	__atomic_store_n(&h->owner, (__u8)((rq->pi >> rq->log) & 1),
			 __ATOMIC_RELEASE);
	rq->pi++;
	__atomic_store_n(&rq->dbrec->rq_pi, htole32(rq->pi), __ATOMIC_RELEASE);
}

/* the next CQE, waiting up to @ms: 1, or 0 if none came */
static int cq_poll(struct ucq *cq, struct xnic_cqe *out, int ms)
{
	uint64_t start = xt_now_ms();
	struct xnic_cqe *e;
	__u8 want;

	for (;;) {
		e = &cq->ring[cq->ci & ((1u << cq->log) - 1)];
		want = ((cq->ci >> cq->log) & 1) ^ 1;	/* first lap: 1 */
		if (__atomic_load_n(&e->owner, __ATOMIC_ACQUIRE) == want) {
			*out = *e;
			cq->ci++;
			__atomic_store_n(&cq->dbrec->ci, htole32(cq->ci),
					 __ATOMIC_RELEASE);
			return 1;
		}
		if (xt_now_ms() - start > (uint64_t)ms)
			return 0;
		if (xt_now_ms() - start > 10)
			usleep(100);
	}
}

struct want {
	__u64 wr_id;
	__u32 qpn, byte_len;
	__u8 opcode, flags;
	const __u8 *imm;
};

/* @e must match @w: reported as a check */
static int cqe_check(const struct xnic_cqe *e, const struct want *w,
		     const char *what)
{
	if (verbose)
		xt_note("%s: CQE timestamp %u us", what, le32toh(e->timestamp));
	return xt_check(e->status == XNIC_CQE_SUCCESS && e->opcode == w->opcode &&
		      le64toh(e->wr_id) == w->wr_id &&
		      le32toh(e->qpn) == w->qpn &&
		      le32toh(e->byte_len) == w->byte_len &&
		      e->flags == w->flags &&
		      (!w->imm || !memcmp(&e->imm_data, w->imm, 4)),
		      "%s: CQE status %u opcode %u wr_id %#llx qpn %u byte_len %u flags %#x imm %08x (want 0 %u %#llx %u %u %#x)",
		      what, e->status, e->opcode,
		      (unsigned long long)le64toh(e->wr_id), le32toh(e->qpn),
		      le32toh(e->byte_len), e->flags, be32toh(e->imm_data),
		      w->opcode, (unsigned long long)w->wr_id, w->qpn,
		      w->byte_len, w->flags);
}

/* the next CQE of @cq must come and match @w */
static int cq_expect(struct ucq *cq, const struct want *w, const char *what)
{
	struct xnic_cqe e;

	if (!cq_poll(cq, &e, TIMEOUT_MS))
		return xt_check(0, "%s: no CQE on CQ %u within %d ms", what,
			      cq->cqn, TIMEOUT_MS);
	return cqe_check(&e, w, what);
}

static int cq_empty(struct ucq *cq)
{
	struct xnic_cqe e;

	return !cq_poll(cq, &e, 0);
}

static void fill(__u8 *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (__u8)((seed * 131 + i * 7 + (i >> 8)) ^ (i >> 3));
}

/* the target equals @src and the GUARD bytes around it are canaries */
static int target_ok(const struct xt_umr *m, __u32 off, const __u8 *src,
		     __u32 len)
{
	const __u8 *t = m->buf + off;
	int i;

	for (i = 1; i <= GUARD; i++)
		if (t[-i] != CANARY || t[len + i - 1] != CANARY)
			return 0;
	return !memcmp(t, src, len);
}

/* the device consumed the doorbell bits of @qp (words back to 0) */
static int db_clear(struct ctx *c, struct uqp *qp)
{
	__u32 slot = qp->r.db_slot;

	return !__atomic_load_n(&c->db->group[slot / 64], __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&c->db->summary[slot / 4096], __ATOMIC_ACQUIRE);
}

/* ------------------------------------------------------------ tests */

static void t_write(struct ctx *c, struct uqp *qp, struct xt_umr *m)
{
	struct want w = { .wr_id = 0x1001, .qpn = qp->qpn,
			  .byte_len = WRITE_LEN,
			  .opcode = XNIC_CQE_OP_RDMA_WRITE };

	fill(m->buf + OFF_WSRC, WRITE_LEN, 1);
	post_write(qp, m, OFF_WSRC, OFF_WDST, WRITE_LEN, w.wr_id);
	sq_ring(c, qp, 1);
	if (!cq_expect(qp->scq, &w, "RDMA WRITE of 4096 bytes"))
		return;
	xt_check(target_ok(m, OFF_WDST, m->buf + OFF_WSRC, WRITE_LEN),
		 "RDMA WRITE: destination holds the data, the canaries around it are intact");
	xt_check(db_clear(c, qp),
		 "the device took the doorbell bits (group and summary words zero)");
	xt_check(cq_empty(qp->scq) && cq_empty(qp->rcq),
		 "no other CQE (a WRITE without immediate consumes no receive)");
}

static void t_send_imm_inline(struct ctx *c, struct uqp *qp, struct xt_umr *m)
{
	static const __u8 imm[4] = { 0x01, 0x02, 0x03, 0x04 };
	struct want ws = { .wr_id = 0x2001, .qpn = qp->qpn,
			   .byte_len = INLINE_LEN, .opcode = XNIC_CQE_OP_SEND };
	struct want wr = { .wr_id = 0x2002, .qpn = qp->qpn,
			   .byte_len = INLINE_LEN, .opcode = XNIC_CQE_OP_RECV,
			   .flags = XNIC_CQE_WITH_IMM, .imm = imm };
	__u8 data[INLINE_LEN];

	fill(data, sizeof(data), 2);
	post_recv(&qp->rq, m, OFF_RECV, RECV_LEN, wr.wr_id);
	post_send_inline(qp, data, sizeof(data), imm, ws.wr_id);
	/* inline: the data lives in the WQE, the source may change now */
	memset(data, 0, sizeof(data));
	sq_ring(c, qp, 1);
	cq_expect(qp->scq, &ws, "inline SEND_WITH_IMM of 100 bytes, send CQE");
	if (!cq_expect(qp->rcq, &wr, "inline SEND_WITH_IMM, receive CQE"))
		return;
	fill(data, sizeof(data), 2);
	xt_check(target_ok(m, OFF_RECV, data, INLINE_LEN),
		 "inline SEND_WITH_IMM: receive buffer holds the 100 bytes, canaries intact");
}

static void t_srq_send(struct ctx *c, struct uqp *qp, struct usrq *s,
		       struct xt_umr *m)
{
	struct want ws = { .wr_id = 0x3001, .qpn = qp->qpn,
			   .byte_len = SRQ_SEND_LEN,
			   .opcode = XNIC_CQE_OP_SEND };
	struct want wr = { .wr_id = 0x3002, .qpn = qp->qpn,
			   .byte_len = SRQ_SEND_LEN,
			   .opcode = XNIC_CQE_OP_RECV };

	fill(m->buf + OFF_SSRC, SRQ_SEND_LEN, 3);
	post_recv(&s->rq, m, OFF_SRECV, RECV_LEN, wr.wr_id);
	post_send_sges(qp, m, OFF_SSRC, SRQ_SEND_LEN, ws.wr_id);
	sq_ring(c, qp, 1);
	cq_expect(qp->scq, &ws, "SEND of 512 bytes (2 SGEs) to the SRQ QP, send CQE");
	if (!cq_expect(qp->rcq, &wr, "SEND to the SRQ QP, receive CQE (WQE from the SRQ ring)"))
		return;
	xt_check(target_ok(m, OFF_SRECV, m->buf + OFF_SSRC, SRQ_SEND_LEN),
		 "SRQ receive buffer holds the 512 bytes, canaries intact");
}

/*
 * Three laps of the send queue and the send CQ (WRITEs posted four per
 * doorbell), and three laps of the receive queue (inline SENDs).
 */
static void t_laps(struct ctx *c, struct uqp *qp, struct xt_umr *m)
{
	__u32 nsq = 1u << qp->r.sq_log_wqe, ncq = 1u << qp->scq->log;
	__u32 nrq = 1u << qp->rq.log, n, len, i, j, batch = 4, bad = 0;
	__u8 data[16];

	n = 3 * (nsq > ncq ? nsq : ncq);
	len = LAP_AREA / n;
	len = len > 64 ? 64 : len & ~7u;
	if (batch > nsq)
		batch = nsq;
	if (batch > ncq)
		batch = ncq;
	fill(m->buf + OFF_LSRC, n * len, 4);
	for (i = 0; i < n && !bad; i += batch) {
		for (j = i; j < i + batch && j < n; j++)
			post_write(qp, m, OFF_LSRC + j * len, OFF_LDST + j * len,
				   len, 0x4000 + j);
		sq_ring(c, qp, 1);
		for (j = i; j < i + batch && j < n; j++) {
			struct xnic_cqe e;

			if (!cq_poll(qp->scq, &e, TIMEOUT_MS) ||
			    e.status != XNIC_CQE_SUCCESS ||
			    le64toh(e.wr_id) != 0x4000 + j) {
				bad = j + 1;
				break;
			}
		}
	}
	xt_check(!bad && !memcmp(m->buf + OFF_LDST, m->buf + OFF_LSRC, n * len) &&
		 m->buf[OFF_LDST + n * len] == CANARY,
		 "%u WRITEs of %u bytes, %u per doorbell: 3 laps of the SQ (%u) and the send CQ (%u), completions in order, data ok%s",
		 n, len, batch, nsq, ncq, bad ? " (stopped at a bad or missing CQE)" : "");

	n = 3 * nrq;
	bad = 0;
	for (i = 0; i < n && !bad; i++) {
		struct want ws = { .wr_id = 0x5000 + i, .qpn = qp->qpn,
				   .byte_len = sizeof(data),
				   .opcode = XNIC_CQE_OP_SEND };
		struct want wr = { .wr_id = 0x6000 + i, .qpn = qp->qpn,
				   .byte_len = sizeof(data),
				   .opcode = XNIC_CQE_OP_RECV };
		struct xnic_cqe e;

		fill(data, sizeof(data), 100 + i);
		post_recv(&qp->rq, m, OFF_RECV, RECV_LEN, wr.wr_id);
		post_send_inline(qp, data, sizeof(data), NULL, ws.wr_id);
		sq_ring(c, qp, 1);
		if (!cq_poll(qp->scq, &e, TIMEOUT_MS) || e.status ||
		    le64toh(e.wr_id) != ws.wr_id ||
		    !cq_poll(qp->rcq, &e, TIMEOUT_MS) || e.status ||
		    e.opcode != wr.opcode || le64toh(e.wr_id) != wr.wr_id ||
		    le32toh(e.byte_len) != wr.byte_len ||
		    memcmp(m->buf + OFF_RECV, data, sizeof(data)))
			bad = i + 1;
	}
	xt_check(!bad, "%u inline SENDs: 3 laps of the RQ (%u), receive CQEs and data ok%s",
		 n, nrq, bad ? " (a CQE or the data was wrong)" : "");
}

static int async_empty(struct ctx *c)
{
	struct xrdma_async_event ev;

	return read(c->as, &ev, sizeof(ev)) < 0 && errno == EAGAIN;
}

/* ------------------------------------------------------------ setup */

struct world {
	struct ctx c;
	struct xt_umr mr;
	struct ucq scq, rcq;
	struct usrq srq;
	struct uqp a, b;		/* a: own RQ; b: on the SRQ */
};

static const struct xrdma_uverbs_qp_cap cap_a = {
	.max_send_wr = 10, .max_recv_wr = 8, .max_send_sge = 2,
	.max_recv_sge = 2, .max_inline_data = INLINE_LEN,
};

static const struct xrdma_uverbs_qp_cap cap_b = {
	.max_send_wr = 4, .max_send_sge = 2,
};

static void world_setup(struct world *w, const char *ibdev)
{
	ctx_open(&w->c, ibdev);
	pd_alloc(&w->c);
	mr_reg(&w->c, &w->mr);
	cq_create(&w->c, &w->scq, 16);
	cq_create(&w->c, &w->rcq, 100);
	srq_create(&w->c, &w->srq, 20, 3);
	qp_create(&w->c, &w->a, &w->scq, &w->rcq, NULL, &cap_a, "A");
	qp_create(&w->c, &w->b, &w->scq, &w->rcq, &w->srq, &cap_b,
		  "B (SRQ)");
	xt_check(w->a.r.db_slot != w->b.r.db_slot,
		 "QPs A and B have distinct doorbell slots (%u, %u)",
		 w->a.r.db_slot, w->b.r.db_slot);
	qp_connect_self(&w->c, &w->a, "A");
	qp_connect_self(&w->c, &w->b, "B");
}

/* ------------------------------------------------------------ paths */

static void t_teardown(struct world *w)
{
	struct ctx *c = &w->c;
	struct xrdma_cmd_alloc_pd pd = { 0 };
	struct ucq cq;
	struct uqp qp;
	int ret;

	ret = destroy(c, XRDMA_OBJ_PD, c->pd);
	xt_check(ret == -EBUSY, "DESTROY of the PD in use: %s (want EBUSY)",
		 err_str(ret));

	ret = destroy(c, XRDMA_OBJ_QP, w->a.h);
	xt_check(!ret, "DESTROY QP A (mapped): %s", err_str(ret));
	/* the memory outlives the object until munmap */
	memset(w->a.map, 0x5a, w->a.r.mmap_size);
	xt_check(((__u8 *)w->a.map)[w->a.r.mmap_size - 1] == 0x5a,
		 "the destroyed QP's mapping is still usable");
	map_refused(c, w->a.r.mmap_offset, w->a.r.mmap_size,
		    PROT_READ | PROT_WRITE, MAP_SHARED, EINVAL,
		    "the destroyed QP's offset");
	xt_check(!munmap(w->a.map, w->a.r.mmap_size), "munmap QP A");
	ret = destroy(c, XRDMA_OBJ_QP, w->a.h);
	xt_check(ret == -ENOENT, "DESTROY QP A again: %s (want ENOENT)",
		 err_str(ret));

	ret = destroy(c, XRDMA_OBJ_SRQ, w->srq.h);
	xt_check(ret == -EBUSY, "DESTROY of the SRQ QP B uses: %s (want EBUSY)",
		 err_str(ret));
	ret = destroy(c, XRDMA_OBJ_QP, w->b.h);
	xt_check(!ret, "DESTROY QP B: %s", err_str(ret));
	ret = destroy(c, XRDMA_OBJ_SRQ, w->srq.h);
	xt_check(!ret, "DESTROY SRQ: %s", err_str(ret));
	ret = destroy(c, XRDMA_OBJ_CQ, w->scq.h);
	xt_check(!ret, "DESTROY send CQ: %s", err_str(ret));
	ret = destroy(c, XRDMA_OBJ_CQ, w->rcq.h);
	xt_check(!ret, "DESTROY receive CQ: %s", err_str(ret));
	ret = destroy(c, XRDMA_OBJ_MR, w->mr.h);
	xt_check(!ret, "DESTROY MR: %s", err_str(ret));
	ret = destroy(c, XRDMA_OBJ_PD, c->pd);
	xt_check(!ret, "DESTROY PD: %s", err_str(ret));
	xt_check(!munmap(w->b.map, w->b.r.mmap_size) &&
		 !munmap(w->srq.map, w->srq.r.mmap_size) &&
		 !munmap(w->scq.map, w->scq.r.mmap_size) &&
		 !munmap(w->rcq.map, w->rcq.r.mmap_size),
		 "munmap of the destroyed objects' rings");
	xt_check(async_empty(c), "no async event was queued");

	/* new objects, left to close(); a mapping outlives the fd */
	ret = xio(c->fd, XRDMA_IOC_ALLOC_PD, &pd);
	if (ret)
		xt_bail(ret, "ALLOC_PD after the teardown");
	c->pd = pd.pd_handle;
	cq_create(c, &cq, 4);
	qp_create(c, &qp, &cq, &cq, NULL, &cap_a, "C (left to close)");
	xt_check(!munmap(cq.map, cq.r.mmap_size), "munmap CQ of QP C");
	xt_check(!close(c->as) && !close(c->fd),
		 "close the async fd and the uverbs fd with a PD, CQ and QP alive and the QP mapped");
	memset(qp.map, 0x5a, qp.r.mmap_size);
	xt_check(!munmap(qp.map, qp.r.mmap_size),
		 "the QP mapping outlived the fd, munmap ok");
	munmap(c->db, XNIC_DB_PAGE_SIZE);
	munmap(w->mr.buf, MR_SIZE);
}

static void mode_paths(void)
{
	struct world w;

	world_setup(&w, dev_name);
	t_write(&w.c, &w.a, &w.mr);
	t_send_imm_inline(&w.c, &w.a, &w.mr);
	t_srq_send(&w.c, &w.b, &w.srq, &w.mr);
	t_laps(&w.c, &w.a, &w.mr);
	xt_note("%d post(s) found the engine asleep and kicked it", w.c.kicks);
	t_teardown(&w);
}

/* ------------------------------------------------------------ wake */

/* the value of counter @name in the -c file, or -1 */
static long long counter(const char *name)
{
	struct xt_counters c;

	return xt_read_counters(ctr_path, &c) ? -1 : xt_counter(&c, name);
}

static void t_wake(struct ctx *c, struct uqp *qp, struct xt_umr *m,
		   __u32 kick_handle, unsigned int seed)
{
	struct want w = { .wr_id = 0x7000 + seed, .qpn = qp->qpn,
			  .byte_len = WRITE_LEN,
			  .opcode = XNIC_CQE_OP_RDMA_WRITE };
	long long k0, k1, w0, w1, r0, r1;
	int i, nw, early, kicks0, ret;
	struct xnic_cqe e;

	memset(m->buf + OFF_WDST - GUARD, CANARY, WRITE_LEN + 2 * GUARD);
	fill(m->buf + OFF_WSRC, WRITE_LEN, seed);
	for (i = 0; i < 300 && !xt_need_wakeup(c->db); i++)
		usleep(10000);
	if (!xt_check(xt_need_wakeup(c->db),
		      "the idle engine went to sleep: NEED_WAKEUP set within 3 s"))
		return;
	k0 = counter("kicks");
	w0 = counter("wakeups");
	r0 = counter("writer_runs");
	kicks0 = c->kicks;
	post_write(qp, m, OFF_WSRC, OFF_WDST, WRITE_LEN, w.wr_id);
	nw = sq_ring(c, qp, 0);
	xt_check(nw, "a post to the sleeping engine sees NEED_WAKEUP");
	/* without a kick a sleeping engine does not look */
	early = cq_poll(qp->scq, &e, 20);
	if (early) {
		xt_note("completed without a kick (the engine was about to look again)");
	} else {
		ret = kick(c, kick_handle);
		xt_check(!ret, "KICK (qp_handle %u): %s", kick_handle,
			 err_str(ret));
		if (!cq_poll(qp->scq, &e, TIMEOUT_MS)) {
			xt_check(0, "no completion within %d ms of the KICK",
				 TIMEOUT_MS);
			return;
		}
	}
	if (!cqe_check(&e, &w, "RDMA WRITE after the engine slept"))
		return;
	xt_check(target_ok(m, OFF_WDST, m->buf + OFF_WSRC, WRITE_LEN),
		 "RDMA WRITE after the wakeup: data ok");
	k1 = counter("kicks");
	w1 = counter("wakeups");
	r1 = counter("writer_runs");
	if (k0 < 0 || k1 < 0 || w0 < 0 || w1 < 0 || r0 < 0 || r1 < 0) {
		xt_note("no model counters (-c): kicks and wakeups not checked");
		return;
	}
	xt_note("model counters: kicks %lld -> %lld, wakeups %lld -> %lld",
		k0, k1, w0, w1);
	xt_note("model counters: writer_runs %lld -> %lld", r0, r1);
	xt_check(k1 - k0 == c->kicks - kicks0,
		 "the model counted %lld kick(s) for %d KICK ioctl(s)", k1 - k0,
		 c->kicks - kicks0);
	/* the kick is served by the woken engine or in the kicker's context */
	xt_check(early || w1 > w0 || r1 > r0,
		 "the kick was served: wakeups %lld -> %lld, writer_runs %lld -> %lld",
		 w0, w1, r0, r1);
}

static void mode_wake(void)
{
	struct world w;

	world_setup(&w, dev_name);
	t_wake(&w.c, &w.a, &w.mr, 0, 11);
	t_wake(&w.c, &w.a, &w.mr, w.a.h, 12);
	/* everything else is left to close() */
	xt_check(!close(w.c.as) && !close(w.c.fd), "close with all objects alive");
}

/* ------------------------------------------------------------ remove */

/*
 * a zapped mapping: a read gets SIGBUS, or 0 where the data was not 0; a
 * 0 read where it was 0 before decides nothing: a skip
 */
static void zapped(const char *what, void *p, __u8 before)
{
	__u8 v;
	int sig = xt_probe(p, false, &v);

	if (sig == SIGBUS)
		xt_check(1, "%s: SIGBUS on read", what);
	else if (!sig && !v && before)
		xt_check(1, "%s: a zero page (was %#x)", what, before);
	else if (!sig && !v)
		xt_skip("it read 0 before too", "%s: zapped", what);
	else
		xt_check(0, "%s: %s on read, value %#x (was %#x): still mapped",
			 what, sig ? strsignal(sig) : "no signal", v, before);
}

static long vm_pin_kb(void)
{
	return xt_kv_kb("/proc/self/status", "VmPin");
}

static int write_ready(const char *path)
{
	char tmp[4096], line[32];
	int fd, len, ok;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	len = snprintf(line, sizeof(line), "%d\n", (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	ok = write(fd, line, len) == len;
	close(fd);
	if (!ok || rename(tmp, path))
		return -EIO;
	return 0;
}

/* munmap every mapping of @w and close its fds: all must succeed */
static void world_unmap_close(struct world *w)
{
	struct ctx *c = &w->c;

	xt_check(!munmap(w->a.map, w->a.r.mmap_size) &&
		 !munmap(w->b.map, w->b.r.mmap_size) &&
		 !munmap(w->srq.map, w->srq.r.mmap_size) &&
		 !munmap(w->scq.map, w->scq.r.mmap_size) &&
		 !munmap(w->rcq.map, w->rcq.r.mmap_size) &&
		 !munmap(c->db, XNIC_DB_PAGE_SIZE), "munmap of every mapping");
	xt_check(!close(c->as) && !close(c->fd),
		 "close the async fd and the uverbs fd");
	munmap(w->mr.buf, MR_SIZE);
}

/*
 * Tell the driving script we are ready (our pid in READY_FILE) and wait
 * for its SIGUSR1, sent once it did @what to the device.
 */
static bool wait_go(const char *what)
{
	struct timespec to = { 120, 0 };
	sigset_t set;
	int ret;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	ret = write_ready(ready_file);
	if (ret)
		xt_bail(ret, "write %s", ready_file);
	xt_note("ready, pid %d: waiting for SIGUSR1 (%s)", (int)getpid(),
		what);
	return xt_check(sigtimedwait(&set, NULL, &to) == SIGUSR1,
			"SIGUSR1 arrived");
}

/* the async fd must be readable and hold exactly one DEVICE_FATAL */
static void one_fatal(struct ctx *c)
{
	struct xrdma_async_event ev[32];
	struct pollfd pfd = { .fd = c->as, .events = POLLIN };
	int i, n = 0, fatal = 0;
	ssize_t r;

	xt_check(poll(&pfd, 1, TIMEOUT_MS) == 1 && (pfd.revents & POLLIN),
		 "the async fd is readable");
	while ((r = read(c->as, ev, sizeof(ev))) > 0) {
		for (i = 0; i < (int)(r / sizeof(ev[0])); i++, n++) {
			xt_note("async record: type %u element %llu handle %u",
				ev[i].event_type,
				(unsigned long long)ev[i].element, ev[i].handle);
			fatal += ev[i].event_type ==
				 XRDMA_UVERBS_EVENT_DEVICE_FATAL;
		}
	}
	xt_check(fatal == 1, "one DEVICE_FATAL among %d async record(s)", n);
}

static void mode_remove(void)
{
	struct xrdma_cmd_query_device qd = { 0 };
	struct xrdma_cmd_alloc_pd pd = { 0 };
	struct xrdma_cmd_create_cq cc = { .cqe = 4, .channel_fd = -1 };
	struct xrdma_cmd_reg_mr rm = { 0 };
	struct xrdma_cmd_query_qp qq = { 0 };
	struct xrdma_uverbs_qp_attr a = { .qp_state = QPS_ERR };
	struct world w;
	struct ctx *c = &w.c;
	__u8 b_cq, b_sq, b_srq, b_db, *sq_wrid;
	void *p;
	long pin0, pin1, pin2;
	int i, ret;

	pin0 = vm_pin_kb();
	if (!ready_file)
		xt_bail(0, "remove: no -r READY_FILE");
	world_setup(&w, dev_name);
	pin1 = vm_pin_kb();
	if (pin0 >= 0)
		xt_check(pin1 - pin0 >= MR_SIZE / 1024,
			 "VmPin counts the MR: %ld kB -> %ld kB", pin0, pin1);
	/* work done, and receives left outstanding on the RQ and the SRQ */
	t_write(c, &w.a, &w.mr);
	t_srq_send(c, &w.b, &w.srq, &w.mr);
	post_recv(&w.a.rq, &w.mr, OFF_RECV, RECV_LEN, 0x8001);
	post_recv(&w.srq.rq, &w.mr, OFF_SRECV, RECV_LEN, 0x8002);
	xt_check(async_empty(c), "no async event before the removal");

	/*
	 * Known bytes in each mapping: a CQE's owner, WQEs' wr_id, and the
	 * doorbell page's flags once the idle engine has set NEED_WAKEUP.
	 */
	for (i = 0; i < 300 && !xt_need_wakeup(c->db); i++)
		usleep(10000);
	b_cq = w.scq.ring[0].owner;
	sq_wrid = w.a.sq + offsetof(struct xnic_wqe_ctrl, wr_id);
	b_sq = *sq_wrid;
	b_srq = *w.srq.rq.ring;
	b_db = *(__u8 *)&c->db->flags;

	if (!wait_go("the driver is removed"))
		return;

	ret = xio(c->fd, XRDMA_IOC_QUERY_DEVICE, &qd);
	xt_check(ret == -EIO, "QUERY_DEVICE after the removal: %s (want EIO)",
		 err_str(ret));
	ret = xio(c->fd, XRDMA_IOC_ALLOC_PD, &pd);
	xt_check(ret == -EIO, "ALLOC_PD: %s (want EIO)", err_str(ret));
	rm.pd_handle = c->pd;
	rm.access = XRDMA_UVERBS_ACCESS_LOCAL_WRITE;
	rm.addr = uptr(w.mr.buf);
	rm.length = pagesz;
	rm.iova = rm.addr;
	ret = xio(c->fd, XRDMA_IOC_REG_MR, &rm);
	xt_check(ret == -EIO, "REG_MR: %s (want EIO)", err_str(ret));
	ret = xio(c->fd, XRDMA_IOC_CREATE_CQ, &cc);
	xt_check(ret == -EIO, "CREATE_CQ: %s (want EIO)", err_str(ret));
	ret = modify(c, &w.a, QPA_STATE, &a);
	xt_check(ret == -EIO, "MODIFY_QP: %s (want EIO)", err_str(ret));
	qq.qp_handle = w.a.h;
	ret = xio(c->fd, XRDMA_IOC_QUERY_QP, &qq);
	xt_check(ret == -EIO, "QUERY_QP: %s (want EIO)", err_str(ret));
	ret = kick(c, 0);
	xt_check(ret == -EIO, "KICK: %s (want EIO)", err_str(ret));
	ret = destroy(c, XRDMA_OBJ_QP, w.a.h);
	xt_check(ret == -EIO, "DESTROY QP: %s (want EIO)", err_str(ret));
	one_fatal(c);

	xt_check(b_cq && b_sq, "the CQ ring and the SQ held data before (%#x, %#x)",
		 b_cq, b_sq);
	zapped("send CQ ring", &w.scq.ring[0].owner, b_cq);
	zapped("QP A send queue", sq_wrid, b_sq);
	zapped("SRQ ring", w.srq.rq.ring, b_srq);
	zapped("doorbell page", &c->db->flags, b_db);
	/* a write may land in a zero page the zap left: that decides nothing */
	ret = xt_probe(w.rcq.map, true, NULL);
	if (ret)
		xt_check(ret == SIGBUS, "a write to the receive CQ mapping: %s",
			 strsignal(ret));
	else
		xt_skip("no signal", "a write to the receive CQ mapping");
	p = map_rw(c, c->uctx.db_page_offset, XNIC_DB_PAGE_SIZE);
	xt_check(!p, "a new mmap of the doorbell page fails (%s)",
		 p ? "it succeeded" : strerror(errno));
	pin2 = vm_pin_kb();
	if (pin0 >= 0)
		xt_check(pin2 == pin0, "the MR was unpinned: VmPin %ld kB -> %ld kB",
			 pin1, pin2);
	world_unmap_close(&w);
}

/* ------------------------------------------------------------ fatal */

/*
 * A device that failed (xnic.recover=0: it stays failed and registered,
 * the file is not disassociated): DESTROY still destroys, but answers
 * EIO, so that a library does not touch the mappings the coming
 * disassociation zaps (xverbs cleans a CQ ring after a QP's destroy) and
 * waits for no event acknowledgment.  The handle is gone either way.
 */
static void mode_fatal(void)
{
	struct world w;
	struct ctx *c = &w.c;
	int ret;

	if (!ready_file)
		xt_bail(0, "fatal: no -r READY_FILE");
	world_setup(&w, dev_name);
	t_write(c, &w.a, &w.mr);
	xt_check(async_empty(c), "no async event before the fatal error");
	ret = destroy(c, XRDMA_OBJ_QP, w.b.h);
	xt_check(!ret, "DESTROY QP B while the device works: %s", err_str(ret));

	if (!wait_go("the device fails"))
		return;
	one_fatal(c);

	ret = destroy(c, XRDMA_OBJ_QP, w.a.h);
	xt_check(ret == -EIO, "DESTROY QP A on the failed device: %s (want EIO)",
		 err_str(ret));
	ret = destroy(c, XRDMA_OBJ_QP, w.a.h);
	xt_check(ret == -ENOENT, "... and it is gone: DESTROY again %s (want ENOENT)",
		 err_str(ret));
	ret = destroy(c, XRDMA_OBJ_SRQ, w.srq.h);
	xt_check(ret == -EIO, "DESTROY SRQ: %s (want EIO)", err_str(ret));
	ret = destroy(c, XRDMA_OBJ_CQ, w.scq.h);
	xt_check(ret == -EIO, "DESTROY send CQ: %s (want EIO)", err_str(ret));
	ret = destroy(c, XRDMA_OBJ_CQ, w.rcq.h);
	xt_check(ret == -EIO, "DESTROY receive CQ: %s (want EIO)", err_str(ret));
	ret = destroy(c, XRDMA_OBJ_MR, w.mr.h);
	xt_check(ret == -EIO, "DESTROY MR: %s (want EIO)", err_str(ret));
	ret = destroy(c, XRDMA_OBJ_PD, c->pd);
	xt_check(ret == -EIO, "DESTROY PD: %s (want EIO)", err_str(ret));
	ret = destroy(c, XRDMA_OBJ_PD, c->pd);
	xt_check(ret == -ENOENT, "DESTROY PD again: %s (want ENOENT)",
		 err_str(ret));
	world_unmap_close(&w);
}

/* ------------------------------------------------------------ main */

static const struct xt_subtest subtests[] = {
	{ "paths", mode_paths, 0, false,
	  "objects, mappings, posting, wrapping, teardown" },
	{ "wake", mode_wake, 0, false, "NEED_WAKEUP and KICK" },
	{ "remove", mode_remove, 0, true,
	  "device removal with everything open (driven by xnic_remove.sh)" },
	{ "fatal", mode_fatal, 0, true,
	  "DESTROY on a failed device (driven by xnic_fault.sh)" },
};

static const struct xt_suite suite = {
	.tests = subtests,
	.n = ARRAY_SIZE(subtests),
	.timeout = 600,
	.opt_in = "wake remove fatal",
};

int main(int argc, char **argv)
{
	const struct xt_opt opts[] = {
		{ .c = 'n', .arg = "IBDEV", .str = &dev_name },
		{ .c = 'c', .arg = "COUNTERS", .str = &ctr_path },
		{ .c = 'r', .arg = "READY_FILE", .str = &ready_file },
		{ .c = 'v', .num = &verbose },
	};
	int ret;

	ret = xt_main(&suite, opts, ARRAY_SIZE(opts), &argc, &argv,
		      "xnic_utest");
	if (ret >= 0)
		return ret;
	pagesz = sysconf(_SC_PAGESIZE);
	xt_run(&suite, argc, argv);
	return xt_done();
}
