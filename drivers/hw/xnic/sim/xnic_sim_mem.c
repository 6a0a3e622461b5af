// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_sim: pure logic of the device model (see xnic_sim_mem.h).  No
 * module state: everything here works on its arguments, so KUnit can
 * include this file and test it with ordinary kernel pages standing in
 * for DMA memory (the model assumes dma-direct without bounce buffers:
 * a DMA address is a physical address).
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/atomic.h>
#include <asm/unaligned.h>
#include "xnic_sim_mem.h"

/* ------------------------------------------------------------------ */
/* DMA memory                                                          */

/**
 * xnic_sim_map - map the page holding a DMA address
 * @dma: the address
 *
 * Return: the kernel address of @dma, valid up to the end of its page
 * (xnic_sim_unmap() it, in reverse order of mapping), or NULL if no
 * memory backs it.
 */
void *xnic_sim_map(u64 dma)
{
	unsigned long pfn = PHYS_PFN(dma);

	if (!pfn_valid(pfn))
		return NULL;
	return kmap_local_page(pfn_to_page(pfn)) + (dma & ~PAGE_MASK);
}

/**
 * xnic_sim_dma_read - copy from contiguous DMA memory
 * @dma: source
 * @buf: destination
 * @len: bytes
 *
 * Return: false if a page is not memory.
 */
bool xnic_sim_dma_read(u64 dma, void *buf, size_t len)
{
	while (len) {
		size_t n = min_t(size_t, len, PAGE_SIZE - (dma & ~PAGE_MASK));
		void *p = xnic_sim_map(dma);

		if (!p)
			return false;
		memcpy(buf, p, n);
		xnic_sim_unmap(p);
		buf += n;
		dma += n;
		len -= n;
	}
	return true;
}

/**
 * xnic_sim_dma_write - copy to contiguous DMA memory
 * @dma: destination
 * @buf: source
 * @len: bytes
 *
 * Return: false if a page is not memory.
 */
bool xnic_sim_dma_write(u64 dma, const void *buf, size_t len)
{
	while (len) {
		size_t n = min_t(size_t, len, PAGE_SIZE - (dma & ~PAGE_MASK));
		void *p = xnic_sim_map(dma);

		if (!p)
			return false;
		memcpy(p, buf, n);
		xnic_sim_unmap(p);
		buf += n;
		dma += n;
		len -= n;
	}
	return true;
}

/* A 32-bit little-endian word of DMA memory; 0 if no memory backs it. */
u32 xnic_sim_rd32(u64 dma)
{
	__le32 *p = xnic_sim_map(dma);
	u32 v;

	if (!p)
		return 0;
	v = le32_to_cpu(READ_ONCE(*p));
	xnic_sim_unmap(p);
	return v;
}

/* A byte of DMA memory; 0xff if no memory backs it. */
u8 xnic_sim_rd8(u64 dma)
{
	u8 *p = xnic_sim_map(dma);
	u8 v;

	if (!p)
		return 0xff;
	v = READ_ONCE(*p);
	xnic_sim_unmap(p);
	return v;
}

/* ------------------------------------------------------------------ */
/* Work queue entries                                                  */

/**
 * xnic_sim_swqe_len - bytes of a send WQE that hold information
 * @ctrl: its control segment (a private copy)
 * @wqe_size: the queue's WQE size
 *
 * Return: the length to copy (header and SGEs or inline data), or
 * -EINVAL if the entry cannot be valid: too many SGEs, too much inline
 * data, SGEs with inline data, or more than @wqe_size bytes.
 */
int xnic_sim_swqe_len(const struct xnic_wqe_ctrl *ctrl, u32 wqe_size)
{
	u32 data;

	if (ctrl->flags & XNIC_WQE_INLINE) {
		if (ctrl->num_sge)
			return -EINVAL;
		data = le32_to_cpu(ctrl->inline_len);
		if (data > XNIC_SIM_MAX_INLINE)
			return -EINVAL;
	} else {
		if (ctrl->num_sge > XNIC_SIM_MAX_SGE)
			return -EINVAL;
		data = ctrl->num_sge * sizeof(struct xnic_sge);
	}
	if (XNIC_WQE_DATA_OFF + data > wqe_size)
		return -EINVAL;
	return XNIC_WQE_DATA_OFF + data;
}

/**
 * xnic_sim_swqe_decode - decode a send WQE
 * @buf: private copy of xnic_sim_swqe_len() bytes (or more)
 * @w: result; its pointers point into @buf
 */
void xnic_sim_swqe_decode(const void *buf, struct xnic_sim_swqe *w)
{
	const struct xnic_wqe_ctrl *c = buf + XNIC_WQE_CTRL_OFF;
	const struct xnic_wqe_remote *r = buf + XNIC_WQE_REMOTE_OFF;
	const struct xnic_wqe_atomic *a = buf + XNIC_WQE_ATOMIC_OFF;
	const struct xnic_wqe_ud *ud = buf + XNIC_WQE_UD_OFF;
	const struct xnic_wqe_fr *fr = buf + XNIC_WQE_FR_OFF;

	w->opcode = c->opcode;
	w->flags = c->flags;
	w->num_sge = (c->flags & XNIC_WQE_INLINE) ? 0 : c->num_sge;
	w->inline_len = (c->flags & XNIC_WQE_INLINE) ?
			le32_to_cpu(c->inline_len) : 0;
	w->wr_id = le64_to_cpu(c->wr_id);
	w->imm = c->imm_data;
	if (c->opcode == XNIC_OP_REG_MR) {
		w->fr.mtt_addr = le64_to_cpu(fr->mtt_addr);
		w->fr.iova = le64_to_cpu(fr->iova);
		w->fr.length = le64_to_cpu(fr->length);
		w->fr.key = le32_to_cpu(fr->key);
		w->fr.access = le32_to_cpu(fr->access);
		w->fr.npages = le32_to_cpu(fr->npages);
		w->fr.page_shift = fr->page_shift;
	} else {
		w->remote_addr = le64_to_cpu(r->remote_addr);
		w->rkey = le32_to_cpu(r->rkey);
		w->compare_add = le64_to_cpu(a->compare_add);
		w->swap = le64_to_cpu(a->swap);
		w->dest_qpn = le32_to_cpu(ud->dest_qpn);
		w->qkey = le32_to_cpu(ud->qkey);
		memcpy(w->dgid, ud->dgid, sizeof(w->dgid));
	}
	w->sge = buf + XNIC_WQE_DATA_OFF;
	w->inline_data = buf + XNIC_WQE_DATA_OFF;
}

/**
 * xnic_sim_swqe_bytes - payload bytes a decoded send WQE moves at most
 * @w: the WQE
 *
 * The inline length or the sum of the SGE lengths (the responder side
 * copies as much, plus a GRH for UD); an atomic's 8 bytes are within its
 * SGE.  Return: the bytes, up to 8 x 4 GiB.
 */
u64 xnic_sim_swqe_bytes(const struct xnic_sim_swqe *w)
{
	u64 n = w->inline_len;
	u32 i;

	for (i = 0; i < w->num_sge; i++)
		n += le32_to_cpu(w->sge[i].length);
	return n;
}

/* Opcodes whose execution may sleep (waits for the peer's engine). */
static bool xnic_sim_op_may_sleep(u8 opcode)
{
	return opcode == XNIC_OP_LOCAL_INV || opcode == XNIC_OP_REG_MR;
}

/**
 * xnic_sim_budget_take - charge one WQE to a pass's or a kick serve's budget
 * @b: the budget
 * @w: the decoded WQE about to be executed
 *
 * A pass or serve may start a WQE while WQEs and bytes are left; its bytes are then
 * charged whole (a large WQE ends the pass: the engine thread's unit of
 * preemption by commands is one WQE).  An atomic serve (@b->atomic) takes
 * only WQEs that fit in the bytes left and cannot sleep, so its length is
 * bounded by its budget; it marks the budget @left otherwise.
 *
 * Return: whether the WQE may be executed now.
 */
bool xnic_sim_budget_take(struct xnic_sim_budget *b,
			  const struct xnic_sim_swqe *w)
{
	u64 bytes = xnic_sim_swqe_bytes(w);

	if (!b->wqes || !b->bytes ||
	    (b->atomic && (bytes > b->bytes ||
			   xnic_sim_op_may_sleep(w->opcode)))) {
		b->left = true;
		return false;
	}
	b->wqes--;
	b->bytes -= min(bytes, b->bytes);
	return true;
}

/**
 * xnic_sim_rwqe_len - bytes of a receive WQE that hold information
 * @hdr: its header (a private copy)
 * @wqe_size: the queue's WQE size
 *
 * Return: header and SGEs, or -EINVAL if they cannot fit.
 */
int xnic_sim_rwqe_len(const struct xnic_rwqe *hdr, u32 wqe_size)
{
	u32 len = sizeof(*hdr) + hdr->num_sge * sizeof(struct xnic_sge);

	if (hdr->num_sge > XNIC_SIM_MAX_SGE || len > wqe_size)
		return -EINVAL;
	return len;
}

/**
 * xnic_sim_op_check - may this opcode run on this QP?
 * @qp_type: XNIC_QPT_*
 * @opcode: XNIC_OP_*
 * @kernel: the QP belongs to the kernel (REG_MR allowed)
 *
 * Return: 0 or XNIC_CQE_LOC_QP_OP_ERR.
 */
int xnic_sim_op_check(u8 qp_type, u8 opcode, bool kernel)
{
	switch (opcode) {
	case XNIC_OP_SEND:
	case XNIC_OP_SEND_WITH_IMM:
	case XNIC_OP_LOCAL_INV:
	case XNIC_OP_NOP:
		return 0;
	case XNIC_OP_REG_MR:
		return kernel ? 0 : XNIC_CQE_LOC_QP_OP_ERR;
	case XNIC_OP_RDMA_WRITE:
	case XNIC_OP_RDMA_WRITE_WITH_IMM:
		return qp_type == XNIC_QPT_UD ? XNIC_CQE_LOC_QP_OP_ERR : 0;
	case XNIC_OP_RDMA_READ:
	case XNIC_OP_ATOMIC_CMP_AND_SWP:
	case XNIC_OP_ATOMIC_FETCH_AND_ADD:
	case XNIC_OP_SEND_WITH_INV:
		return qp_type == XNIC_QPT_RC ? 0 : XNIC_CQE_LOC_QP_OP_ERR;
	default:
		return XNIC_CQE_LOC_QP_OP_ERR;
	}
}

/* Whether the opcode consumes a receive WQE (with its data). */
bool xnic_sim_op_is_send(u8 opcode)
{
	return opcode == XNIC_OP_SEND || opcode == XNIC_OP_SEND_WITH_IMM ||
	       opcode == XNIC_OP_SEND_WITH_INV;
}

/**
 * xnic_sim_rnr_delay_ns - wait before resending after an RNR NAK
 * @min_rnr_timer: the responder's QP attribute (0..31)
 * @naks: RNR NAKs this message already had
 *
 * 10 us per unit; 0 (655 ms in InfiniBand, the longest) counts as 32.
 * The timer is a minimum: a message still refused after 32 NAKs waits
 * twice as long every 32 NAKs more, up to 10 ms (an infinite rnr_retry
 * against a consumer that does not post receives costs little CPU).
 */
u64 xnic_sim_rnr_delay_ns(u8 min_rnr_timer, u32 naks)
{
	u32 t = min_rnr_timer & 31;
	u64 ns = (u64)(t ? t : 32) * 10 * NSEC_PER_USEC;

	if (naks >= 32)
		ns <<= min(naks / 32, 10U);
	return min_t(u64, ns, 10 * NSEC_PER_MSEC);
}

/**
 * xnic_sim_retry_delay_ns - wait before a transport retry
 * @timeout: the requester's QP attribute (4.096 us << timeout)
 *
 * Clamped to 10 us .. 2 ms; 0 (no timeout in InfiniBand) counts as 2 ms.
 */
u64 xnic_sim_retry_delay_ns(u8 timeout)
{
	u64 ns;

	if (!timeout || timeout > 20)
		return 2 * NSEC_PER_MSEC;
	ns = 4096ULL << timeout;
	return clamp_t(u64, ns, 10 * NSEC_PER_USEC, 2 * NSEC_PER_MSEC);
}

/* ------------------------------------------------------------------ */
/* Memory regions                                                      */

/**
 * xnic_sim_mr_params_ok - check an MTT-based registration
 * @iova: first address
 * @length: bytes
 * @npages: MTT entries
 * @page_shift: their size
 * @max_mr_size: device limit
 *
 * Return: 0, or -EINVAL if the pages cannot cover [iova, iova + length).
 */
int xnic_sim_mr_params_ok(u64 iova, u64 length, u32 npages, u8 page_shift,
			  u64 max_mr_size)
{
	u64 off;

	if (page_shift < XNIC_SIM_MR_MIN_SHIFT ||
	    page_shift > XNIC_SIM_MR_MAX_SHIFT)
		return -EINVAL;
	if (length > max_mr_size || iova + length < iova)
		return -EINVAL;
	if (!length)
		return 0;
	off = iova & ((1ULL << page_shift) - 1);
	if (!npages || off + length > ((u64)npages << page_shift))
		return -EINVAL;
	return 0;
}

/**
 * xnic_sim_mtt_check - check a page list
 * @mtt: DMA addresses
 * @n: entries
 * @page_shift: page size
 *
 * Return: 0, or -EINVAL if an entry is misaligned or not memory.
 */
int xnic_sim_mtt_check(const u64 *mtt, u32 n, u8 page_shift)
{
	u64 size = 1ULL << page_shift;
	u32 i;

	for (i = 0; i < n; i++) {
		if (mtt[i] & (size - 1) || mtt[i] + size < mtt[i])
			return -EINVAL;
		if (!pfn_valid(PHYS_PFN(mtt[i])) ||
		    !pfn_valid(PHYS_PFN(mtt[i] + size - 1)))
			return -EINVAL;
	}
	return 0;
}

/**
 * xnic_sim_mr_check - may [addr, addr + len) be used through this key?
 * @mr: the MR found at the key's index, or NULL
 * @key: the whole key
 * @pdn: the QP's protection domain
 * @addr: first byte
 * @len: bytes
 * @need: XNIC_ACCESS_* rights required
 * @remote: access by a remote requester (DMA MRs never allow it)
 *
 * Return: 0, or -EACCES.
 */
int xnic_sim_mr_check(const struct xnic_sim_mr *mr, u32 key, u32 pdn,
		      u64 addr, u64 len, u32 need, bool remote)
{
	u64 iova, length;

	if (!mr || READ_ONCE(mr->key) != key || !READ_ONCE(mr->valid) ||
	    mr->pdn != pdn)
		return -EACCES;
	if ((READ_ONCE(mr->access) & need) != need)
		return -EACCES;
	if (mr->flags & XNIC_MR_F_ALL)
		return remote || addr + len < addr ? -EACCES : 0;
	iova = READ_ONCE(mr->iova);
	length = READ_ONCE(mr->length);
	if (addr < iova || len > length || addr - iova > length - len)
		return -EACCES;
	return 0;
}

/**
 * xnic_sim_mr_xlate - DMA address of an address inside an MR
 * @mr: the MR (checked)
 * @addr: the address
 * @dma: result
 * @contig: bytes contiguous from @dma (to the end of the MR page)
 *
 * Return: 0, or -EFAULT if @addr is beyond the page list.
 */
int xnic_sim_mr_xlate(const struct xnic_sim_mr *mr, u64 addr, u64 *dma,
		      u64 *contig)
{
	u8 shift;
	u64 idx, off;

	if (mr->flags & XNIC_MR_F_ALL) {
		*dma = addr;
		*contig = U64_MAX;
		return 0;
	}
	shift = READ_ONCE(mr->page_shift);
	if (shift < XNIC_SIM_MR_MIN_SHIFT || shift > XNIC_SIM_MR_MAX_SHIFT)
		return -EFAULT;
	idx = (addr >> shift) - (READ_ONCE(mr->iova) >> shift);
	if (idx >= min(READ_ONCE(mr->npages), mr->max_pages))
		return -EFAULT;
	off = addr & ((1ULL << shift) - 1);
	*dma = READ_ONCE(mr->mtt[idx]) + off;
	*contig = (1ULL << shift) - off;
	return 0;
}

/* A position in a scatter/gather list. */
struct xnic_sim_cursor {
	const struct xnic_sim_seg *s;
	u32 n;
	u32 i;
	u64 off;
};

/*
 * Map the next contiguous piece at the cursor: at most to the end of the
 * segment, of the MR page and of the CPU page.
 */
static int xnic_sim_cursor_map(struct xnic_sim_cursor *c, void **p,
			       u64 *avail, bool *mapped)
{
	const struct xnic_sim_seg *s;
	u64 dma, contig, left;

	while (c->i < c->n && c->off >= c->s[c->i].len) {
		c->i++;
		c->off = 0;
	}
	if (c->i >= c->n)
		return -EFAULT;
	s = &c->s[c->i];
	left = s->len - c->off;
	if (!s->mr) {
		*p = s->kaddr + c->off;
		*avail = left;
		*mapped = false;
		return 0;
	}
	if (xnic_sim_mr_xlate(s->mr, s->addr + c->off, &dma, &contig))
		return -EFAULT;
	*p = xnic_sim_map(dma);
	if (!*p)
		return -EFAULT;
	*avail = min3(left, contig, (u64)(PAGE_SIZE - (dma & ~PAGE_MASK)));
	*mapped = true;
	return 0;
}

/**
 * xnic_sim_segs_len - total length of a list
 * @s: segments
 * @n: how many
 */
u64 xnic_sim_segs_len(const struct xnic_sim_seg *s, u32 n)
{
	u64 len = 0;
	u32 i;

	for (i = 0; i < n; i++)
		len += s[i].len;
	return len;
}

/**
 * xnic_sim_copy - copy between two checked scatter/gather lists
 * @dst: destination segments
 * @ndst: how many
 * @src: source segments
 * @nsrc: how many
 * @len: bytes to copy (both lists must hold them)
 * @can_sleep: may reschedule during long copies
 *
 * Copies page chunk by page chunk with memmove (the lists may overlap on
 * a loopback).  Return: 0, or -EFAULT if a list is too short or a page is
 * not memory (some bytes may have been copied).
 */
int xnic_sim_copy(const struct xnic_sim_seg *dst, u32 ndst,
		  const struct xnic_sim_seg *src, u32 nsrc, u64 len,
		  bool can_sleep)
{
	struct xnic_sim_cursor d = { .s = dst, .n = ndst };
	struct xnic_sim_cursor s = { .s = src, .n = nsrc };
	u64 since = 0;

	while (len) {
		bool smap, dmap;
		u64 sav, dav, n;
		void *sp, *dp;

		if (xnic_sim_cursor_map(&s, &sp, &sav, &smap))
			return -EFAULT;
		if (xnic_sim_cursor_map(&d, &dp, &dav, &dmap)) {
			if (smap)
				xnic_sim_unmap(sp);
			return -EFAULT;
		}
		n = min3(len, sav, dav);
		memmove(dp, sp, n);
		if (dmap)
			xnic_sim_unmap(dp);
		if (smap)
			xnic_sim_unmap(sp);
		s.off += n;
		d.off += n;
		len -= n;
		since += n;
		if (can_sleep && since >= SZ_1M) {
			since = 0;
			cond_resched();
		}
	}
	return 0;
}

/**
 * xnic_sim_atomic - 8-byte atomic operation in an MR
 * @mr: the MR (checked for the 8 bytes at @addr)
 * @addr: 8-byte aligned address
 * @cmp_swap: compare and swap, else fetch and add
 * @compare_add: compare value or addend
 * @swap: new value of a compare and swap
 * @orig: the value before the operation
 *
 * A real CPU atomic instruction: atomic against every other device
 * operation and against the CPUs.  Return: 0, -EINVAL if misaligned,
 * -EFAULT if not memory.
 */
int xnic_sim_atomic(const struct xnic_sim_mr *mr, u64 addr, bool cmp_swap,
		    u64 compare_add, u64 swap, u64 *orig)
{
	u64 dma, contig, old, prev;
	u64 *p;

	if (addr & 7)
		return -EINVAL;
	if (xnic_sim_mr_xlate(mr, addr, &dma, &contig))
		return -EFAULT;
	if (dma & 7)
		return -EINVAL;
	p = xnic_sim_map(dma);
	if (!p)
		return -EFAULT;
	if (cmp_swap) {
		old = cmpxchg64(p, compare_add, swap);
	} else {
		old = READ_ONCE(*p);
		do {
			prev = old;
			old = cmpxchg64(p, prev, prev + compare_add);
		} while (old != prev);
	}
	xnic_sim_unmap(p);
	*orig = old;
	return 0;
}
