// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_ulp_test helpers: the per-case environment (devices, PDs, DMA MRs),
 * DMA buffers, data patterns, object creation with automatic teardown,
 * fast registration, posting and bounded completion polling.
 */
#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/mm.h>
#include "xnic_ulp.h"

/* PSN used by every QP: each requester's sq_psn is its peer's rq_psn */
#define ULPT_PSN		0x1234

static const char *const ulpt_wc_status_names[] = {
	[XRDMA_WC_SUCCESS] = "SUCCESS",
	[XRDMA_WC_LOC_LEN_ERR] = "LOC_LEN_ERR",
	[XRDMA_WC_LOC_QP_OP_ERR] = "LOC_QP_OP_ERR",
	[XRDMA_WC_LOC_EEC_OP_ERR] = "LOC_EEC_OP_ERR",
	[XRDMA_WC_LOC_PROT_ERR] = "LOC_PROT_ERR",
	[XRDMA_WC_WR_FLUSH_ERR] = "WR_FLUSH_ERR",
	[XRDMA_WC_MW_BIND_ERR] = "MW_BIND_ERR",
	[XRDMA_WC_BAD_RESP_ERR] = "BAD_RESP_ERR",
	[XRDMA_WC_LOC_ACCESS_ERR] = "LOC_ACCESS_ERR",
	[XRDMA_WC_REM_INV_REQ_ERR] = "REM_INV_REQ_ERR",
	[XRDMA_WC_REM_ACCESS_ERR] = "REM_ACCESS_ERR",
	[XRDMA_WC_REM_OP_ERR] = "REM_OP_ERR",
	[XRDMA_WC_RETRY_EXC_ERR] = "RETRY_EXC_ERR",
	[XRDMA_WC_RNR_RETRY_EXC_ERR] = "RNR_RETRY_EXC_ERR",
	[XRDMA_WC_LOC_RDD_VIOL_ERR] = "LOC_RDD_VIOL_ERR",
	[XRDMA_WC_REM_INV_RD_REQ_ERR] = "REM_INV_RD_REQ_ERR",
	[XRDMA_WC_REM_ABORT_ERR] = "REM_ABORT_ERR",
	[XRDMA_WC_INV_EECN_ERR] = "INV_EECN_ERR",
	[XRDMA_WC_INV_EEC_STATE_ERR] = "INV_EEC_STATE_ERR",
	[XRDMA_WC_FATAL_ERR] = "FATAL_ERR",
	[XRDMA_WC_RESP_TIMEOUT_ERR] = "RESP_TIMEOUT_ERR",
	[XRDMA_WC_GENERAL_ERR] = "GENERAL_ERR",
};

const char *ulpt_wc_status_str(enum xrdma_wc_status s)
{
	if ((unsigned int)s < ARRAY_SIZE(ulpt_wc_status_names) &&
	    ulpt_wc_status_names[s])
		return ulpt_wc_status_names[s];
	return "?";
}

/* ---------------------------------------------------------- results */

/**
 * ulpt_ok_ - record a failed check
 * @t: the case
 * @line: source line of the check
 * @fmt: what went wrong
 *
 * Only the first failure of a case is kept as its detail.  Return: false.
 */
bool ulpt_ok_(struct ulpt *t, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ktest_failv(&t->failed, t->detail, sizeof(t->detail), "L", line, fmt,
		    ap);
	va_end(ap);
	return false;
}

void ulpt_note(struct ulpt *t, const char *fmt, ...)
{
	size_t n = strlen(t->note);
	va_list ap;

	if (n)
		n += scnprintf(t->note + n, sizeof(t->note) - n, "; ");
	va_start(ap, fmt);
	vscnprintf(t->note + n, sizeof(t->note) - n, fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------ environment */

static void ulpt_dev_event(struct xrdma_event_handler *h, struct xrdma_event *e)
{
	struct ulpt_side *s = container_of(h, struct ulpt_side, eh);

	if ((unsigned int)e->event < ULPT_NEV)
		atomic_inc(&s->dev_ev[e->event]);
}

static int ulpt_side_init(struct ulpt *t, struct ulpt_side *s, const char *name)
{
	int ret;

	s->dev = xrdma_device_get_by_name(name);
	if (!ULPT_OK(t, s->dev, "no xrdma device %s", name))
		return -ENODEV;
	s->dma = s->dev->dev.parent;
	if (!ULPT_OK(t, s->dma, "%s has no parent (DMA) device", name))
		return -ENODEV;
	xrdma_query_device(s->dev, &s->attr);
	ret = xrdma_query_port(s->dev, 1, &s->pattr);
	if (!ULPT_OK(t, !ret, "query_port(%s, 1): %d", name, ret))
		return ret;
	if (!ULPT_OK(t, s->pattr.state == XRDMA_PORT_ACTIVE,
		     "%s port 1 state %d, want ACTIVE", name, s->pattr.state))
		return -ENETDOWN;
	ret = xrdma_query_gid(s->dev, 1, 0, &s->gid);
	if (!ULPT_OK(t, !ret, "query_gid(%s, 1, 0): %d", name, ret))
		return ret;
	s->eh.device = s->dev;
	s->eh.handler = ulpt_dev_event;
	xrdma_register_event_handler(&s->eh);
	s->eh_registered = true;

	s->pd = xrdma_alloc_pd(s->dev, 0);
	if (IS_ERR(s->pd)) {
		ret = PTR_ERR(s->pd);
		s->pd = NULL;
		ULPT_OK(t, false, "alloc_pd(%s): %d", name, ret);
		return ret;
	}
	s->dmr = xrdma_get_dma_mr(s->pd, XRDMA_ACCESS_LOCAL_WRITE);
	if (IS_ERR(s->dmr)) {
		ret = PTR_ERR(s->dmr);
		s->dmr = NULL;
		ULPT_OK(t, false, "get_dma_mr(%s): %d", name, ret);
		return ret;
	}
	return 0;
}

/**
 * ulpt_env_init - set up the two sides of a case
 * @t: the case, zeroed
 * @topo: ULPT_LOOP (both sides on @names[0]) or ULPT_D2D
 * @names: the two devices
 *
 * Each side has its own PD and DMA MR, also in loopback.  Return: 0 or a
 * negative errno (the failure is recorded in @t).
 */
int ulpt_env_init(struct ulpt *t, enum ulpt_topo topo,
		  const char *const names[2])
{
	int i, ret;

	INIT_LIST_HEAD(&t->bufs);
	t->topo = topo;
	for (i = 0; i < 2; i++) {
		ret = ulpt_side_init(t, &t->side[i],
				     names[topo == ULPT_LOOP ? 0 : i]);
		if (ret)
			return ret;
	}
	return 0;
}

static void ulpt_buf_free(struct ulpt_buf *b)
{
	unsigned int i;

	if (b->paged) {
		if (b->mapped)
			dma_unmap_sgtable(b->side->dma, &b->sgt,
					  DMA_BIDIRECTIONAL, 0);
		sg_free_table(&b->sgt);
		if (b->va)
			vunmap(b->va);
		for (i = 0; i < b->npages; i++)
			if (b->pages[i])
				__free_page(b->pages[i]);
		kfree(b->pages);
	} else if (b->va) {
		if (b->mapped)
			dma_unmap_single(b->side->dma, b->dma, b->size,
					 DMA_BIDIRECTIONAL);
		free_pages_exact(b->va, PAGE_ALIGN(b->size));
	}
	kfree(b);
}

/**
 * ulpt_destroy_qp - destroy one QP of the case now
 * @t: the case
 * @q: the QP
 *
 * Return: false if the destroy failed (recorded).
 */
bool ulpt_destroy_qp(struct ulpt *t, struct ulpt_q *q)
{
	int ret;

	if (!q->qp)
		return true;
	ret = xrdma_destroy_qp(q->qp);
	q->qp = NULL;
	return ULPT_OK(t, !ret, "destroy_qp: %d", ret);
}

/**
 * ulpt_dereg_mr - deregister one fast-reg MR of the case now
 * @t: the case
 * @mr: the MR
 *
 * Return: false if it was not the case's or the deregistration failed.
 */
bool ulpt_dereg_mr(struct ulpt *t, struct xrdma_mr *mr)
{
	int i, ret;

	for (i = 0; i < t->nmr; i++) {
		if (t->mr[i] != mr)
			continue;
		t->mr[i] = NULL;
		ret = xrdma_dereg_mr(mr);
		return ULPT_OK(t, !ret, "dereg_mr: %d", ret);
	}
	return ULPT_OK(t, false, "dereg_mr: unknown MR");
}

/**
 * ulpt_env_fini - destroy everything the case created, in dependency order
 * @t: the case
 *
 * A destroy that fails (e.g. -EBUSY) fails the case.
 */
void ulpt_env_fini(struct ulpt *t)
{
	struct ulpt_buf *b, *tmp;
	int i, ret;

	for (i = t->nq - 1; i >= 0; i--)
		ulpt_destroy_qp(t, &t->q[i]);
	for (i = t->nah - 1; i >= 0; i--) {
		ret = xrdma_destroy_ah(t->ah[i]);
		ULPT_OK(t, !ret, "destroy_ah: %d", ret);
	}
	for (i = t->nsrq - 1; i >= 0; i--) {
		ret = xrdma_destroy_srq(t->srq[i]);
		ULPT_OK(t, !ret, "destroy_srq: %d", ret);
	}
	for (i = t->nmr - 1; i >= 0; i--) {
		if (!t->mr[i])
			continue;
		ret = xrdma_dereg_mr(t->mr[i]);
		ULPT_OK(t, !ret, "dereg_mr: %d", ret);
	}
	for (i = t->ncq - 1; i >= 0; i--) {
		ret = xrdma_destroy_cq(t->cq[i].cq);
		ULPT_OK(t, !ret, "destroy_cq: %d", ret);
	}
	list_for_each_entry_safe(b, tmp, &t->bufs, node) {
		list_del(&b->node);
		ulpt_buf_free(b);
	}
	for (i = 1; i >= 0; i--) {
		struct ulpt_side *s = &t->side[i];

		if (s->dmr) {
			ret = xrdma_dereg_mr(s->dmr);
			ULPT_OK(t, !ret, "dereg DMA MR: %d", ret);
		}
		if (s->pd) {
			ret = xrdma_dealloc_pd(s->pd);
			ULPT_OK(t, !ret, "dealloc_pd: %d", ret);
		}
		if (s->eh_registered)
			xrdma_unregister_event_handler(&s->eh);
		if (s->dev) {
			ULPT_OK(t, !atomic_read(&s->dev_ev[XRDMA_EVENT_DEVICE_FATAL]),
				"%s: DEVICE_FATAL event", s->dev->name);
			xrdma_device_put(s->dev);
		}
	}
}

/* ---------------------------------------------------------- buffers */

/**
 * ulpt_buf_alloc - a zeroed DMA buffer of a side's device
 * @t: the case (owns the buffer)
 * @s: side whose DMA device maps it
 * @size: bytes
 * @paged: false: physically contiguous, one dma_map_single(), for local
 *	   SGEs with the DMA MR; true: single pages, vmap()ed for the CPU and
 *	   DMA-mapped as an sg_table (one entry per page), for fast-reg MRs
 */
struct ulpt_buf *ulpt_buf_alloc(struct ulpt *t, struct ulpt_side *s,
				size_t size, bool paged)
{
	struct scatterlist *sg;
	struct ulpt_buf *b;
	unsigned int i;
	int ret;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!ULPT_OK(t, b, "no memory"))
		return NULL;
	b->side = s;
	b->size = size;
	b->paged = paged;
	list_add(&b->node, &t->bufs);
	if (!paged) {
		b->va = alloc_pages_exact(PAGE_ALIGN(size),
					  GFP_KERNEL | __GFP_ZERO |
					  __GFP_NOWARN);
		if (!ULPT_OK(t, b->va, "no contiguous memory for %zu bytes",
			     size))
			return NULL;
		b->dma = dma_map_single(s->dma, b->va, size,
					DMA_BIDIRECTIONAL);
		if (!ULPT_OK(t, !dma_mapping_error(s->dma, b->dma),
			     "dma_map_single of %zu bytes failed", size))
			return NULL;
		b->mapped = true;
		return b;
	}
	b->npages = DIV_ROUND_UP(size, PAGE_SIZE);
	b->pages = kcalloc(b->npages, sizeof(*b->pages), GFP_KERNEL);
	if (!ULPT_OK(t, b->pages, "no memory"))
		return NULL;
	for (i = 0; i < b->npages; i++) {
		b->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!ULPT_OK(t, b->pages[i], "no memory"))
			return NULL;
	}
	b->va = vmap(b->pages, b->npages, VM_MAP, PAGE_KERNEL);
	if (!ULPT_OK(t, b->va, "vmap failed"))
		return NULL;
	ret = sg_alloc_table(&b->sgt, b->npages, GFP_KERNEL);
	if (!ULPT_OK(t, !ret, "sg_alloc_table: %d", ret))
		return NULL;
	for_each_sgtable_sg(&b->sgt, sg, i)
		sg_set_page(sg, b->pages[i],
			    i == b->npages - 1 ?
			    size - (size_t)i * PAGE_SIZE : PAGE_SIZE, 0);
	ret = dma_map_sgtable(s->dma, &b->sgt, DMA_BIDIRECTIONAL, 0);
	if (!ULPT_OK(t, !ret, "dma_map_sgtable: %d", ret))
		return NULL;
	b->mapped = true;
	return b;
}

/* hand the buffer to the device after the CPU wrote it */
void ulpt_buf_to_dev(struct ulpt_buf *b)
{
	if (b->paged) {
		flush_kernel_vmap_range(b->va, b->npages * PAGE_SIZE);
		dma_sync_sgtable_for_device(b->side->dma, &b->sgt,
					    DMA_BIDIRECTIONAL);
	} else {
		dma_sync_single_for_device(b->side->dma, b->dma, b->size,
					   DMA_BIDIRECTIONAL);
	}
}

/* take the buffer back before the CPU reads what the device wrote */
void ulpt_buf_to_cpu(struct ulpt_buf *b)
{
	if (b->paged) {
		dma_sync_sgtable_for_cpu(b->side->dma, &b->sgt,
					 DMA_BIDIRECTIONAL);
		invalidate_kernel_vmap_range(b->va, b->npages * PAGE_SIZE);
	} else {
		dma_sync_single_for_cpu(b->side->dma, b->dma, b->size,
					DMA_BIDIRECTIONAL);
	}
}

/* DMA address of byte @off of a contiguous buffer (or within one page) */
u64 ulpt_buf_dma(struct ulpt_buf *b, size_t off)
{
	struct scatterlist *sg;
	unsigned int i;

	if (!b->paged)
		return b->dma + off;
	for_each_sgtable_dma_sg(&b->sgt, sg, i) {
		if (off < sg_dma_len(sg))
			return sg_dma_address(sg) + off;
		off -= sg_dma_len(sg);
	}
	return 0;
}

static inline u8 ulpt_pat(u32 seed, size_t m)
{
	u32 x = (u32)m * 0x9e3779b1u + seed;

	x ^= x >> 15;
	x *= 0x85ebca6bu;
	x ^= x >> 13;
	return (u8)x;
}

/* bytes @moff.. of the message of @seed (not periodic in a page) */
void ulpt_pat_fill(u8 *p, size_t len, u32 seed, size_t moff)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = ulpt_pat(seed, moff + i);
}

/* Return: index of the first wrong byte, or -1 */
long ulpt_pat_check(const u8 *p, size_t len, u32 seed, size_t moff)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != ulpt_pat(seed, moff + i))
			return i;
	return -1;
}

/* ------------------------------------------------------ SGE layouts */

static size_t ulpt_gap(int j, int variant)
{
	return 5 + (3 * j + 7 * variant) % 17;
}

/* bytes of buffer a ulpt_sgl_build() layout needs (with trailing canary) */
size_t ulpt_sgl_span(size_t len, int nsge, size_t start)
{
	return start + len + (size_t)nsge * 24 + 64;
}

/**
 * ulpt_sgl_build - split a message into SGEs placed with gaps in a buffer
 * @s: result
 * @b: contiguous buffer (addresses are DMA addresses)
 * @lkey: key of the SGEs
 * @start: buffer offset of the first piece (may be unaligned)
 * @len: message length
 * @nsge: wanted number of pieces (fewer if @len is smaller)
 * @variant: changes the split and the gaps
 */
void ulpt_sgl_build(struct ulpt_sgl *s, struct ulpt_buf *b, u32 lkey,
		    size_t start, size_t len, int nsge, int variant)
{
	size_t cut[ULPT_MAX_SGE + 1], w = 0, cum = 0, off = start;
	int n, j;

	n = min_t(size_t, min(nsge, ULPT_MAX_SGE), len);
	s->n = n;
	s->len = len;
	if (!n)
		return;
	for (j = 0; j < n; j++)
		w += variant & 1 ? n - j : j + 1;
	cut[0] = 0;
	for (j = 1; j < n; j++) {
		cum += variant & 1 ? n - (j - 1) : j;
		cut[j] = len * cum / w;
		if (cut[j] <= cut[j - 1])
			cut[j] = cut[j - 1] + 1;
		if (cut[j] > len - (n - j))
			cut[j] = len - (n - j);
	}
	cut[n] = len;
	for (j = 0; j < n; j++) {
		s->boff[j] = off;
		s->moff[j] = cut[j];
		s->sge[j].addr = ulpt_buf_dma(b, off);
		s->sge[j].length = cut[j + 1] - cut[j];
		s->sge[j].lkey = lkey;
		off += s->sge[j].length + ulpt_gap(j, variant);
	}
}

void ulpt_sgl_fill(struct ulpt_sgl *s, struct ulpt_buf *b, u32 seed)
{
	int j;

	for (j = 0; j < s->n; j++)
		ulpt_pat_fill(b->va + s->boff[j], s->sge[j].length, seed,
			      s->moff[j]);
}

/**
 * ulpt_sgl_gaps_ok - every byte of the layout's span outside the pieces
 *		    still holds the canary
 * @t: the case
 * @s: layout
 * @b: buffer (synced for the CPU)
 * @canary: byte the buffer was filled with before
 * @what: for the failure message
 */
bool ulpt_sgl_gaps_ok(struct ulpt *t, struct ulpt_sgl *s, struct ulpt_buf *b,
		      u8 canary, const char *what)
{
	size_t prev = 0, end;
	const u8 *bad;
	int j;

	for (j = 0; j < s->n; j++) {
		bad = memchr_inv(b->va + prev, canary, s->boff[j] - prev);
		if (!ULPT_OK(t, !bad, "%s: byte %td before SGE %d overwritten",
			     what, bad - b->va, j))
			return false;
		prev = s->boff[j] + s->sge[j].length;
	}
	end = min(b->size, prev + 64);
	bad = memchr_inv(b->va + prev, canary, end - prev);
	return ULPT_OK(t, !bad, "%s: byte %td after the last SGE overwritten",
		       what, bad - b->va);
}

/* copy the message the pieces hold to @out (s->len bytes) */
void ulpt_sgl_gather(struct ulpt_sgl *s, struct ulpt_buf *b, u8 *out)
{
	int j;

	for (j = 0; j < s->n; j++)
		memcpy(out + s->moff[j], b->va + s->boff[j],
		       s->sge[j].length);
}

/**
 * ulpt_sgl_check - the pieces hold the message, everything else the canary
 * @t: the case
 * @s: layout
 * @b: buffer (synced for the CPU)
 * @seed: message
 * @canary: byte the buffer was filled with before
 * @what: for the failure message
 */
bool ulpt_sgl_check(struct ulpt *t, struct ulpt_sgl *s, struct ulpt_buf *b,
		    u32 seed, u8 canary, const char *what)
{
	long i;
	int j;

	for (j = 0; j < s->n; j++) {
		i = ulpt_pat_check(b->va + s->boff[j], s->sge[j].length, seed,
				   s->moff[j]);
		if (!ULPT_OK(t, i < 0,
			     "%s: data mismatch at message byte %zu (SGE %d of %d, len %zu)",
			     what, s->moff[j] + i, j, s->n, s->len))
			return false;
	}
	return ulpt_sgl_gaps_ok(t, s, b, canary, what);
}

/**
 * ulpt_region_check - bytes [@off, @off + @len) of a buffer hold the message
 *		     @seed, every other byte the canary
 * @t: the case
 * @b: buffer (synced for the CPU)
 * @off: where the message is
 * @len: its length
 * @seed: message
 * @canary: byte the buffer was filled with before
 * @what: for the failure message
 */
bool ulpt_region_check(struct ulpt *t, struct ulpt_buf *b, size_t off,
		       size_t len, u32 seed, u8 canary, const char *what)
{
	const u8 *bad;
	long i;

	bad = memchr_inv(b->va, canary, off);
	if (!ULPT_OK(t, !bad, "%s: byte %td before the target overwritten",
		     what, bad - b->va))
		return false;
	i = ulpt_pat_check(b->va + off, len, seed, 0);
	if (!ULPT_OK(t, i < 0, "%s: data mismatch at byte %ld of %zu", what, i,
		     len))
		return false;
	bad = memchr_inv(b->va + off + len, canary, b->size - off - len);
	return ULPT_OK(t, !bad, "%s: byte %td after the target overwritten",
		       what, bad - b->va);
}

/* ---------------------------------------------------------- objects */

static void ulpt_comp(struct xrdma_cq *cq, void *ctx)
{
	struct ulpt_cq *c = ctx;

	atomic_inc(&c->comps);
}

static void ulpt_cq_event(struct xrdma_event *e, void *ctx)
{
	struct ulpt_cq *c = ctx;

	if ((unsigned int)e->event < ULPT_NEV)
		atomic_inc(&c->ev[e->event]);
}

static void ulpt_qp_event(struct xrdma_event *e, void *ctx)
{
	struct ulpt_q *q = ctx;

	if ((unsigned int)e->event < ULPT_NEV)
		atomic_inc(&q->ev[e->event]);
}

static void ulpt_srq_event(struct xrdma_event *e, void *ctx)
{
	atomic_t *ev = ctx;

	if ((unsigned int)e->event < ULPT_NEV)
		atomic_inc(&ev[e->event]);
}

struct ulpt_cq *ulpt_cq_create(struct ulpt *t, struct ulpt_side *s, u32 cqe)
{
	struct xrdma_cq_init_attr a = { .cqe = cqe };
	struct ulpt_cq *c;

	if (!ULPT_OK(t, t->ncq < ULPT_MAX_CQ, "too many CQs"))
		return NULL;
	c = &t->cq[t->ncq];
	c->side = s;
	c->cq = xrdma_create_cq(s->dev, ulpt_comp, ulpt_cq_event, c, &a);
	if (IS_ERR(c->cq)) {
		ULPT_OK(t, false, "create_cq(%s, cqe %u): %ld", s->dev->name,
			cqe, PTR_ERR(c->cq));
		c->cq = NULL;
		return NULL;
	}
	t->ncq++;
	return c;
}

struct ulpt_q *ulpt_qp_create(struct ulpt *t, struct ulpt_side *s,
			      struct ulpt_cq *scq,
			      struct ulpt_cq *rcq, struct xrdma_srq *srq,
			      const struct ulpt_qp_opts *o)
{
	struct xrdma_qp_init_attr ia = {};
	u32 sge = min_t(u32, 4, s->attr.max_sge);
	struct ulpt_q *q;

	if (!ULPT_OK(t, t->nq < ULPT_MAX_QP, "too many QPs"))
		return NULL;
	q = &t->q[t->nq];
	q->side = s;
	q->scq = scq;
	q->rcq = rcq;
	q->qkey = 0x1234abcd;
	ia.event_handler = ulpt_qp_event;
	ia.qp_context = q;
	ia.send_cq = scq->cq;
	ia.recv_cq = rcq->cq;
	ia.srq = srq;
	ia.qp_type = o->type ? o->type : XRDMA_QPT_RC;
	ia.sq_sig_all = o->sig_all;
	ia.port_num = 1;
	ia.cap.max_send_wr = o->send_wr ? o->send_wr : 16;
	ia.cap.max_send_sge = o->send_sge ? o->send_sge : sge;
	ia.cap.max_inline_data = o->inline_data;
	if (!srq) {
		ia.cap.max_recv_wr = o->recv_wr ? o->recv_wr : 16;
		ia.cap.max_recv_sge = o->recv_sge ? o->recv_sge : sge;
	}
	q->qp = xrdma_create_qp(s->pd, &ia);
	if (IS_ERR(q->qp)) {
		ULPT_OK(t, false, "create_qp(%s, type %d, wr %u/%u, sge %u/%u, inline %u): %ld",
			s->dev->name, ia.qp_type, ia.cap.max_send_wr,
			ia.cap.max_recv_wr, ia.cap.max_send_sge,
			ia.cap.max_recv_sge, ia.cap.max_inline_data,
			PTR_ERR(q->qp));
		q->qp = NULL;
		return NULL;
	}
	q->cap = ia.cap;
	t->nq++;
	return q;
}

/**
 * ulpt_qp_connect - move a QP from RESET to RTS
 * @t: the case
 * @q: the QP
 * @dgid: the remote port (RC)
 * @dest_qpn: the remote QP (RC)
 * @o: retry counts and timers
 */
int ulpt_qp_connect(struct ulpt *t, struct ulpt_q *q,
		    const union xrdma_gid *dgid,
		    u32 dest_qpn, const struct ulpt_qp_opts *o)
{
	const struct xrdma_device_attr *da = &q->side->attr;
	bool gsi = q->qp->qp_type == XRDMA_QPT_GSI;
	bool ud = q->qp->qp_type == XRDMA_QPT_UD || gsi;
	struct xrdma_qp_attr a;
	int mask, ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = XRDMA_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	mask = XRDMA_QP_STATE | XRDMA_QP_PKEY_INDEX;
	/* the GSI QP's port is the one it was created on */
	if (!gsi)
		mask |= XRDMA_QP_PORT;
	if (ud) {
		a.qkey = q->qkey;
		mask |= XRDMA_QP_QKEY;
	} else {
		a.qp_access_flags = XRDMA_ACCESS_LOCAL_WRITE |
				    XRDMA_ACCESS_REMOTE_WRITE |
				    XRDMA_ACCESS_REMOTE_READ |
				    XRDMA_ACCESS_REMOTE_ATOMIC;
		mask |= XRDMA_QP_ACCESS_FLAGS;
	}
	ret = xrdma_modify_qp(q->qp, &a, mask);
	if (!ULPT_OK(t, !ret, "qp %u RESET->INIT: %d", q->qp->qp_num, ret))
		return ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = XRDMA_QPS_RTR;
	mask = XRDMA_QP_STATE;
	if (!ud) {
		a.path_mtu = q->side->pattr.active_mtu ?
			     q->side->pattr.active_mtu : XRDMA_MTU_1024;
		a.dest_qp_num = dest_qpn;
		a.rq_psn = ULPT_PSN;
		a.max_dest_rd_atomic = o->no_dest_rd_atomic ? 0 :
				       min_t(u32, da->max_qp_rd_atom, 16);
		a.min_rnr_timer = o->min_rnr_timer ? o->min_rnr_timer : 1;
		a.ah_attr.dgid = *dgid;
		a.ah_attr.is_global = 1;
		a.ah_attr.port_num = 1;
		a.ah_attr.sgid_index = 0;
		a.ah_attr.hop_limit = 64;
		mask |= XRDMA_QP_AV | XRDMA_QP_PATH_MTU | XRDMA_QP_DEST_QPN |
			XRDMA_QP_RQ_PSN | XRDMA_QP_MAX_DEST_RD_ATOMIC |
			XRDMA_QP_MIN_RNR_TIMER;
	}
	ret = xrdma_modify_qp(q->qp, &a, mask);
	if (!ULPT_OK(t, !ret, "qp %u INIT->RTR: %d", q->qp->qp_num, ret))
		return ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = XRDMA_QPS_RTS;
	a.sq_psn = ULPT_PSN;
	mask = XRDMA_QP_STATE | XRDMA_QP_SQ_PSN;
	if (!ud) {
		a.timeout = 14;
		a.retry_cnt = o->retry_cnt ? o->retry_cnt : 7;
		a.rnr_retry = o->set_rnr_retry || o->rnr_retry ?
			      o->rnr_retry : 7;
		a.max_rd_atomic = o->no_rd_atomic ? 0 :
				  min_t(u32, da->max_qp_init_rd_atom, 16);
		mask |= XRDMA_QP_TIMEOUT | XRDMA_QP_RETRY_CNT |
			XRDMA_QP_RNR_RETRY | XRDMA_QP_MAX_QP_RD_ATOMIC;
	}
	ret = xrdma_modify_qp(q->qp, &a, mask);
	ULPT_OK(t, !ret, "qp %u RTR->RTS: %d", q->qp->qp_num, ret);
	return ret;
}

/**
 * ulpt_pair - two QPs, the first on side 0 and the second on side 1, each
 *	     with its own send and receive CQ, connected to each other (RC)
 *	     or brought to RTS (UD)
 * @t: the case
 * @o: options
 * @qa: first QP
 * @qb: second QP
 */
int ulpt_pair(struct ulpt *t, const struct ulpt_qp_opts *o, struct ulpt_q **qa,
	      struct ulpt_q **qb)
{
	struct ulpt_side *sa = &t->side[0], *sb = &t->side[1];
	u32 cqe = o->cqe ? o->cqe : 64;
	struct ulpt_cq *as, *ar, *bs, *br;
	struct ulpt_q *a, *b;
	int ret;

	as = ulpt_cq_create(t, sa, o->a_scq_cqe ? o->a_scq_cqe : cqe);
	ar = ulpt_cq_create(t, sa, cqe);
	bs = ulpt_cq_create(t, sb, cqe);
	br = ulpt_cq_create(t, sb, cqe);
	if (!as || !ar || !bs || !br)
		return -ENOMEM;
	a = ulpt_qp_create(t, sa, as, ar, NULL, o);
	if (!a)
		return -EINVAL;
	b = ulpt_qp_create(t, sb, bs, br, o->b_srq, o);
	if (!b)
		return -EINVAL;
	*qa = a;
	*qb = b;
	if (o->no_connect)
		return 0;
	ret = ulpt_qp_connect(t, a, &sb->gid,
			      o->a_dest_qpn ? o->a_dest_qpn : b->qp->qp_num, o);
	if (ret)
		return ret;
	return ulpt_qp_connect(t, b, &sa->gid, a->qp->qp_num, o);
}

struct xrdma_ah *ulpt_ah_create(struct ulpt *t, struct ulpt_side *s,
				const union xrdma_gid *dgid)
{
	struct xrdma_ah_attr a = {};
	struct xrdma_ah *ah;

	if (!ULPT_OK(t, t->nah < ULPT_MAX_AH, "too many AHs"))
		return NULL;
	a.dgid = *dgid;
	a.is_global = 1;
	a.port_num = 1;
	a.sgid_index = 0;
	a.hop_limit = 64;
	ah = xrdma_create_ah(s->pd, &a);
	if (IS_ERR(ah)) {
		ULPT_OK(t, false, "create_ah(%s): %ld", s->dev->name,
			PTR_ERR(ah));
		return NULL;
	}
	t->ah[t->nah++] = ah;
	return ah;
}

struct xrdma_srq *ulpt_srq_create(struct ulpt *t, struct ulpt_side *s,
				  u32 max_wr, u32 max_sge, u32 limit)
{
	struct xrdma_srq_init_attr ia = {};
	struct xrdma_srq *srq;

	if (!ULPT_OK(t, t->nsrq < ULPT_MAX_SRQ, "too many SRQs"))
		return NULL;
	ia.event_handler = ulpt_srq_event;
	ia.srq_context = t->srq_ev[t->nsrq];
	ia.attr.max_wr = max_wr;
	ia.attr.max_sge = max_sge;
	ia.attr.srq_limit = limit;
	srq = xrdma_create_srq(s->pd, &ia);
	if (IS_ERR(srq)) {
		ULPT_OK(t, false,
			"create_srq(%s, %u wr, %u sge, limit %u): %ld",
			s->dev->name, max_wr, max_sge, limit, PTR_ERR(srq));
		return NULL;
	}
	t->srq[t->nsrq++] = srq;
	return srq;
}

/* ------------------------------------------------- fast registration */

/**
 * ulpt_freg_again - (re)register a fast-reg MR with a new key
 * @t: the case
 * @q: a QP of the MR's PD, in RTS, that posts the REG_MR work request
 * @m: the MR, mapped
 * @access: XRDMA_ACCESS_* rights
 */
int ulpt_freg_again(struct ulpt *t, struct ulpt_q *q, struct ulpt_mr *m,
		    u32 access)
{
	struct xrdma_send_wr wr = {};
	int ret;

	xrdma_update_fast_reg_key(m->mr, (u8)(m->mr->rkey + 1));
	wr.wr_id = 0xf00d0000 | (m->mr->rkey & 0xff);
	wr.opcode = XRDMA_WR_REG_MR;
	wr.send_flags = XRDMA_SEND_SIGNALED;
	wr.wr.reg.mr = m->mr;
	wr.wr.reg.key = m->mr->rkey;
	wr.wr.reg.access = access;
	ret = ulpt_post_send(t, q, &wr);
	if (ret)
		return ret;
	if (!ulpt_expect(t, q, false, wr.wr_id, XRDMA_WC_SUCCESS,
			 XRDMA_WC_REG_MR, NULL, "REG_MR"))
		return -EIO;
	m->rkey = m->mr->rkey;
	return 0;
}

/**
 * ulpt_freg - fast-register a paged buffer for remote access
 * @t: the case
 * @q: QP of the buffer's side that posts REG_MR
 * @b: paged buffer of that side
 * @sg_offset: the MR starts this many bytes into the buffer
 * @access: rights
 * @m: filled in
 *
 * alloc_mr, map_mr_sg of the buffer's DMA-mapped sg_table (one entry per
 * page), then a REG_MR work request.  Return: @m or NULL.
 */
struct ulpt_mr *ulpt_freg(struct ulpt *t, struct ulpt_q *q, struct ulpt_buf *b,
			  unsigned int sg_offset, u32 access, struct ulpt_mr *m)
{
	unsigned int off = sg_offset;
	struct xrdma_mr *mr;
	int n;

	if (!ULPT_OK(t, t->nmr < ULPT_MAX_MR, "too many MRs") ||
	    !ULPT_OK(t, b->paged && b->side == q->side, "bad buffer for MR"))
		return NULL;
	if (!ULPT_OK(t, b->npages <= q->side->attr.max_fast_reg_page_list_len,
		     "%u pages > max_fast_reg_page_list_len %u", b->npages,
		     q->side->attr.max_fast_reg_page_list_len))
		return NULL;
	mr = xrdma_alloc_mr(q->side->pd, b->npages);
	if (IS_ERR(mr)) {
		ULPT_OK(t, false, "alloc_mr(%u pages): %ld", b->npages,
			PTR_ERR(mr));
		return NULL;
	}
	t->mr[t->nmr++] = mr;
	n = xrdma_map_mr_sg(mr, b->sgt.sgl, b->sgt.nents, &off, PAGE_SIZE);
	if (!ULPT_OK(t, n == (int)b->sgt.nents,
		     "map_mr_sg: %d of %u entries", n, b->sgt.nents))
		return NULL;
	if (!ULPT_OK(t, mr->iova == ulpt_buf_dma(b, 0) + sg_offset &&
		     mr->length == b->size - sg_offset,
		     "map_mr_sg: iova %#llx length %llu, want %#llx %zu",
		     mr->iova, mr->length, ulpt_buf_dma(b, 0) + sg_offset,
		     b->size - sg_offset))
		return NULL;
	m->mr = mr;
	m->buf = b;
	m->iova = mr->iova;
	m->len = mr->length;
	if (ulpt_freg_again(t, q, m, access))
		return NULL;
	return m;
}

int ulpt_local_inv(struct ulpt *t, struct ulpt_q *q, u32 rkey)
{
	struct xrdma_send_wr wr = {};
	int ret;

	wr.wr_id = 0x1171;
	wr.opcode = XRDMA_WR_LOCAL_INV;
	wr.send_flags = XRDMA_SEND_SIGNALED;
	wr.ex.invalidate_rkey = rkey;
	ret = ulpt_post_send(t, q, &wr);
	if (ret)
		return ret;
	if (!ulpt_expect(t, q, false, wr.wr_id, XRDMA_WC_SUCCESS,
			 XRDMA_WC_LOCAL_INV, NULL, "LOCAL_INV"))
		return -EIO;
	return 0;
}

/* ------------------------------------------------ posting, polling */

int ulpt_post_send(struct ulpt *t, struct ulpt_q *q, struct xrdma_send_wr *wr)
{
	const struct xrdma_send_wr *bad = NULL;
	int ret;

	ret = xrdma_post_send(q->qp, wr, &bad);
	ULPT_OK(t, !ret, "post_send(qp %u, wr_id %#llx, opcode %d): %d",
		q->qp->qp_num, bad ? bad->wr_id : 0, bad ? bad->opcode : -1,
		ret);
	return ret;
}

int ulpt_post_recv(struct ulpt *t, struct ulpt_q *q, struct xrdma_recv_wr *wr)
{
	const struct xrdma_recv_wr *bad = NULL;
	int ret;

	ret = xrdma_post_recv(q->qp, wr, &bad);
	ULPT_OK(t, !ret, "post_recv(qp %u, wr_id %#llx): %d", q->qp->qp_num,
		bad ? bad->wr_id : 0, ret);
	return ret;
}

int ulpt_post_recv_sgl(struct ulpt *t, struct ulpt_q *q, u64 wr_id,
		       struct ulpt_sgl *s)
{
	struct xrdma_recv_wr wr = {};

	wr.wr_id = wr_id;
	wr.sg_list = s ? s->sge : NULL;
	wr.num_sge = s ? s->n : 0;
	return ulpt_post_recv(t, q, &wr);
}

/**
 * ulpt_poll - poll a CQ until @n completions arrived or @ms passed
 * @t: the case
 * @cq: the CQ
 * @wc: room for @n
 * @n: wanted
 * @ms: bound
 *
 * Return: completions polled, or a negative errno from the driver
 * (recorded).
 */
int ulpt_poll(struct ulpt *t, struct ulpt_cq *cq, struct xrdma_wc *wc, int n,
	      unsigned int ms)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(ms);
	int got = 0, r;

	while (got < n) {
		r = xrdma_poll_cq(cq->cq, n - got, wc + got);
		if (r < 0) {
			ULPT_OK(t, false, "poll_cq: %d", r);
			return r;
		}
		if (!ULPT_OK(t, r <= n - got, "poll_cq returned %d > %d", r,
			     n - got))
			return -EIO;
		got += r;
		if (got == n || time_after(jiffies, deadline))
			break;
		if (!r)
			usleep_range(20, 100);
	}
	return got;
}

/**
 * ulpt_expect - wait for one completion of a QP and check it
 * @t: the case
 * @q: the QP
 * @recv: on its receive CQ (else its send CQ)
 * @wr_id: wanted work request id
 * @status: wanted status
 * @opcode: wanted opcode (checked on success only), or -1
 * @out: the completion, may be NULL
 * @what: for the failure message
 */
bool ulpt_expect(struct ulpt *t, struct ulpt_q *q, bool recv, u64 wr_id,
		 enum xrdma_wc_status status, int opcode, struct xrdma_wc *out,
		 const char *what)
{
	struct ulpt_cq *cq = recv ? q->rcq : q->scq;
	struct xrdma_wc wc;
	int r;

	memset(&wc, 0, sizeof(wc));
	r = ulpt_poll(t, cq, &wc, 1, ulpt_timeout_ms);
	if (r < 0)
		return false;
	if (!ULPT_OK(t, r == 1, "%s: no %s completion within %u ms (want wr_id %#llx %s)",
		     what, recv ? "receive" : "send", ulpt_timeout_ms, wr_id,
		     ulpt_wc_status_str(status)))
		return false;
	if (out)
		*out = wc;
	if (!ULPT_OK(t, wc.wr_id == wr_id && wc.status == status,
		     "%s: got wr_id %#llx %s(%d) vendor_err %u, want wr_id %#llx %s",
		     what, wc.wr_id, ulpt_wc_status_str(wc.status), wc.status,
		     wc.vendor_err, wr_id, ulpt_wc_status_str(status)))
		return false;
	if (!ULPT_OK(t, wc.qp == q->qp, "%s: completion names qp %u, want %u",
		     what, wc.qp ? wc.qp->qp_num : 0, q->qp->qp_num))
		return false;
	if (status == XRDMA_WC_SUCCESS && opcode >= 0)
		return ULPT_OK(t, wc.opcode == opcode,
			       "%s: opcode %d, want %d", what, wc.opcode, opcode);
	return true;
}

/* no completion may arrive on @cq for @ms */
bool ulpt_quiet(struct ulpt *t, struct ulpt_cq *cq, unsigned int ms,
		const char *what)
{
	struct xrdma_wc wc;
	int r;

	memset(&wc, 0, sizeof(wc));
	r = ulpt_poll(t, cq, &wc, 1, ms);
	if (r < 0)
		return false;
	return ULPT_OK(t, r == 0,
		       "%s: unexpected completion wr_id %#llx %s opcode %d",
		       what, wc.wr_id, ulpt_wc_status_str(wc.status), wc.opcode);
}

bool ulpt_wait_count(atomic_t *v, int n, unsigned int ms)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(ms);

	while (atomic_read(v) < n) {
		if (time_after(jiffies, deadline))
			return false;
		usleep_range(100, 500);
	}
	return true;
}

/* the core's view of the QP state reaches @state within the timeout */
bool ulpt_wait_state(struct ulpt *t, struct ulpt_q *q,
		     enum xrdma_qp_state state, const char *what)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(ulpt_timeout_ms);
	struct xrdma_qp_attr a;
	int ret;

	for (;;) {
		ret = xrdma_query_qp(q->qp, &a, XRDMA_QP_STATE, NULL);
		if (!ULPT_OK(t, !ret, "%s: query_qp: %d", what, ret))
			return false;
		if (a.qp_state == state)
			return true;
		if (time_after(jiffies, deadline))
			break;
		usleep_range(100, 500);
	}
	return ULPT_OK(t, false, "%s: qp %u state %d, want %d", what,
		       q->qp->qp_num, a.qp_state, state);
}
