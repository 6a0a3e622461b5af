// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_sim: memory (see xnic_sim_mem.h): DMA access and memory regions.
 * No device state: everything here works on its arguments, so KUnit
 * tests it with ordinary kernel pages standing in for DMA memory (the
 * model assumes dma-direct without bounce buffers: a DMA address is a
 * physical address).
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/atomic.h>
#include <linux/ioport.h>
#include <linux/libnvdimm.h>
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

/**
 * xnic_sim_addr_ok - whether a range can be DMA memory the driver gave
 * @addr: its DMA address
 * @len: bytes
 * @align: the alignment @addr must have (a power of 2)
 *
 * Return: whether [@addr, @addr + @len) is aligned, does not wrap, and
 * starts and ends in memory (rings and records the commands name).
 */
bool xnic_sim_addr_ok(u64 addr, u64 len, u64 align)
{
	if (!addr || !len || addr & (align - 1) || addr + len < addr)
		return false;
	return pfn_valid(PHYS_PFN(addr)) && pfn_valid(PHYS_PFN(addr + len - 1));
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
 * xnic_sim_mtt_pmem - is every page of a page list persistent memory?
 * @mtt: DMA (physical) page addresses, checked by xnic_sim_mtt_check()
 * @n: entries
 * @page_shift: log2 of the page size
 *
 * An MR with XNIC_ACCESS_FLUSH_PERSISTENT must be persistent memory
 * (as rxe requires: a FLUSH of type persistence can make nothing else
 * persistent).  Return: whether it is; false for an empty list.
 */
bool xnic_sim_mtt_pmem(const u64 *mtt, u32 n, u8 page_shift)
{
	u32 i;

	if (!n)
		return false;
	for (i = 0; i < n; i++)
		if (region_intersects(mtt[i], 1ULL << page_shift,
				      IORESOURCE_MEM,
				      IORES_DESC_PERSISTENT_MEMORY) !=
		    REGION_INTERSECTS)
			return false;
	return true;
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
 * A memory window's key is no MR's (xnic_sim_mw_check() checks those).
 * Return: 0, or -EACCES.
 */
int xnic_sim_mr_check(const struct xnic_sim_mr *mr, u32 key, u32 pdn,
		      u64 addr, u64 len, u32 need, bool remote)
{
	u64 iova, length;

	if (!mr || mr->mw_type || READ_ONCE(mr->key) != key ||
	    !READ_ONCE(mr->valid) || mr->pdn != pdn)
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

#define XNIC_SIM_MW_RIGHTS	(XNIC_ACCESS_REMOTE_WRITE | \
				 XNIC_ACCESS_REMOTE_READ | \
				 XNIC_ACCESS_REMOTE_ATOMIC)

/**
 * xnic_sim_bind_check - may this BIND_MW bind this window to this MR?
 * @mw: the entry at the new key's index, or NULL
 * @mr: the entry at the MR key's index, or NULL
 * @pdn: the binding QP's protection domain
 * @b: the work request
 *
 * The window must be one, of the QP's PD, and for type 2 unbound; a type 1
 * window may be rebound, and a length of 0 unbinds it (no MR is then
 * looked at); a type 2 window needs a length.  Zero-based windows are
 * type 2 only.  The MR must be a registered MR (not a window, not a DMA
 * or fast-reg MR) of the same PD, with the key given, MW_BIND access,
 * local write if the window grants remote write or atomic, and the range
 * [@b->addr, @b->addr + @b->length) inside it.
 *
 * Return: 0 or XNIC_CQE_MW_BIND_ERR.
 */
u8 xnic_sim_bind_check(const struct xnic_sim_mr *mw,
		       const struct xnic_sim_mr *mr, u32 pdn,
		       const struct xnic_sim_bind *b)
{
	u64 iova, length;

	if (!mw || !mw->mw_type || mw->pdn != pdn)
		return XNIC_CQE_MW_BIND_ERR;
	if ((b->access & ~XNIC_SIM_MW_RIGHTS) ||
	    (b->flags & ~XNIC_BIND_F_ZERO_BASED))
		return XNIC_CQE_MW_BIND_ERR;
	if (mw->mw_type == XNIC_MW_TYPE_1) {
		if (b->flags & XNIC_BIND_F_ZERO_BASED)
			return XNIC_CQE_MW_BIND_ERR;
		if (!b->length)
			return 0;
	} else if (/* pairs with the invalidator's release of FREE */
		   smp_load_acquire(&mw->state) != XNIC_SIM_MW_FREE ||
		   !b->length) {
		return XNIC_CQE_MW_BIND_ERR;
	}
	if (!mr || mr->mw_type || READ_ONCE(mr->key) != b->mr_key ||
	    !READ_ONCE(mr->valid) || mr->flags || mr->pdn != pdn)
		return XNIC_CQE_MW_BIND_ERR;
	if (!(mr->access & XNIC_ACCESS_MW_BIND))
		return XNIC_CQE_MW_BIND_ERR;
	if ((b->access & (XNIC_ACCESS_REMOTE_WRITE |
			  XNIC_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr->access & XNIC_ACCESS_LOCAL_WRITE))
		return XNIC_CQE_MW_BIND_ERR;
	iova = READ_ONCE(mr->iova);
	length = READ_ONCE(mr->length);
	if (b->addr < iova || b->length > length ||
	    b->addr - iova > length - b->length)
		return XNIC_CQE_MW_BIND_ERR;
	return 0;
}

/**
 * xnic_sim_mw_check - may [addr, addr + len) be used through a window?
 * @mw: the window found at the key's index
 * @key: the whole key
 * @pdn: the responder QP's protection domain
 * @qpn: the responder QP (a type 2 window serves only the QP it is bound
 *	 to)
 * @addr: first byte, in the window's addresses
 * @len: bytes
 * @need: XNIC_ACCESS_REMOTE_* rights required
 * @mr: the MR the window is bound to
 * @maddr: @addr translated to an address of @mr
 *
 * Return: 0, or -EACCES.
 */
int xnic_sim_mw_check(const struct xnic_sim_mr *mw, u32 key, u32 pdn,
		      u32 qpn, u64 addr, u64 len, u32 need,
		      const struct xnic_sim_mr **mr, u64 *maddr)
{
	const struct xnic_sim_mr *p;
	u64 iova, length, m;

	/* the fields after VALID: pairs with the binder's release */
	if (!mw->mw_type || smp_load_acquire(&mw->state) != XNIC_SIM_MW_VALID)
		return -EACCES;
	if (READ_ONCE(mw->key) != key || mw->pdn != pdn ||
	    (mw->mw_type == XNIC_MW_TYPE_2 && READ_ONCE(mw->qpn) != qpn))
		return -EACCES;
	if (!need || (READ_ONCE(mw->access) & need) != need)
		return -EACCES;
	iova = READ_ONCE(mw->iova);
	length = READ_ONCE(mw->length);
	if (addr < iova || len > length || addr - iova > length - len)
		return -EACCES;
	p = READ_ONCE(mw->parent);
	m = READ_ONCE(mw->base) + (addr - iova);
	/* the MR cannot change while bound; checked all the same */
	if (!p || xnic_sim_mr_check(p, READ_ONCE(p->key), pdn, m, len, 0,
				    true))
		return -EACCES;
	*mr = p;
	*maddr = m;
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
	if (mr->flags & XNIC_MR_F_DM) {
		/* checked: iova <= addr < iova + length */
		off = addr - READ_ONCE(mr->iova);
		if (off >= READ_ONCE(mr->length))
			return -EFAULT;
		*dma = mr->dm_dma + off;
		*contig = READ_ONCE(mr->length) - off;
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

/*
 * Map the 8 aligned bytes at @addr of @mr (checked) for an atomic access.
 * Return: 0 with *@p mapped (xnic_sim_unmap() it), -EINVAL if
 * misaligned, -EFAULT if not memory.
 */
static int xnic_sim_map_u64(const struct xnic_sim_mr *mr, u64 addr, u64 **p)
{
	u64 dma, contig;

	if (addr & 7)
		return -EINVAL;
	if (xnic_sim_mr_xlate(mr, addr, &dma, &contig))
		return -EFAULT;
	if (dma & 7)
		return -EINVAL;
	*p = xnic_sim_map(dma);
	return *p ? 0 : -EFAULT;
}

/**
 * xnic_sim_atomic_write - ATOMIC WRITE: 8 bytes stored at once
 * @mr: the MR (checked for the 8 bytes at @addr)
 * @addr: 8-byte aligned address
 * @val: the payload, its bytes in memory order
 *
 * One 64-bit store with release ordering: every earlier write of the
 * device is visible before it, and no reader sees part of it.  Return: 0,
 * -EINVAL if misaligned, -EFAULT if not memory.
 */
int xnic_sim_atomic_write(const struct xnic_sim_mr *mr, u64 addr, u64 val)
{
	u64 *p;
	int ret = xnic_sim_map_u64(mr, addr, &p);

	if (ret)
		return ret;
	/* after every earlier write of the device, in one store */
	smp_store_release(p, val);
	xnic_sim_unmap(p);
	return 0;
}

/**
 * xnic_sim_flush - FLUSH: make [addr, addr + len) of an MR globally
 *		    visible, or persistent
 * @mr: the MR (the range checked)
 * @addr: first byte
 * @len: bytes (0: nothing to write back)
 * @type: XNIC_FLUSH_GLOBAL and/or XNIC_FLUSH_PERSISTENT
 *
 * The device's writes are plain CPU stores: a full barrier makes them
 * globally visible; persistence also writes the CPU caches back to the
 * (persistent) memory of the range, page by page.  Return: 0, or -EFAULT
 * if the range is not memory.
 */
int xnic_sim_flush(const struct xnic_sim_mr *mr, u64 addr, u64 len, u8 type)
{
	u64 dma, contig, n;
	void *p;

	/* every earlier write of the device, visible */
	smp_mb();
	if (!(type & XNIC_FLUSH_PERSISTENT))
		return 0;
	while (len) {
		if (xnic_sim_mr_xlate(mr, addr, &dma, &contig))
			return -EFAULT;
		n = min3(len, contig, (u64)(PAGE_SIZE - (dma & ~PAGE_MASK)));
		p = xnic_sim_map(dma);
		if (!p)
			return -EFAULT;
		arch_wb_cache_pmem(p, n);
		xnic_sim_unmap(p);
		addr += n;
		len -= n;
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
	u64 old, prev;
	u64 *p;
	int ret = xnic_sim_map_u64(mr, addr, &p);

	if (ret)
		return ret;
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
