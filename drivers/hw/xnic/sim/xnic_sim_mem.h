/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xnic_sim: memory (xnic_sim_mem.c).  DMA access -- a DMA address is a
 * physical address (dma-direct without bounce buffers), touched page by
 * page with kmap_local_page -- and memory regions: registration checks,
 * key and bounds checks, MTT translation, copies between scatter/gather
 * lists, atomics.  No device state: KUnit tests it with ordinary kernel
 * pages standing in for DMA memory.
 */
#ifndef _XNIC_SIM_MEM_H
#define _XNIC_SIM_MEM_H

#include <linux/types.h>
#include <linux/bits.h>
#include <linux/highmem.h>
#include <xrdma/xnic_hw.h>

#define XNIC_SIM_MR_MIN_SHIFT	12
#define XNIC_SIM_MR_MAX_SHIFT	30

/* ------------------------------------------------------------------ */
/* DMA memory: pfn_to_page(PHYS_PFN(addr)), one page at a time         */

void *xnic_sim_map(u64 dma);
bool xnic_sim_dma_read(u64 dma, void *buf, size_t len);
bool xnic_sim_dma_write(u64 dma, const void *buf, size_t len);
u32 xnic_sim_rd32(u64 dma);
u8 xnic_sim_rd8(u64 dma);

/* Undo xnic_sim_map(). */
static inline void xnic_sim_unmap(void *p)
{
	kunmap_local(p);
}

/* ------------------------------------------------------------------ */
/* Memory regions                                                      */

/**
 * struct xnic_sim_mr - a memory region as the device holds it
 * @key: full key (index << 8 | tag)
 * @pdn: protection domain
 * @access: XNIC_ACCESS_* (local read implied)
 * @flags: XNIC_MR_F_*
 * @valid: usable (fast-reg MRs: between REG_MR and invalidation)
 * @page_shift: MTT page size
 * @npages: MTT entries in use
 * @max_pages: MTT entries allocated
 * @iova: first byte's address
 * @length: bytes
 * @mtt: DMA address of each page (the device's copy)
 *
 * Fast registration changes a valid MR in place; readers take each field
 * once and bound every MTT index by @max_pages, so a racing reader at
 * worst sees a mix of the two registrations' pages.
 */
struct xnic_sim_mr {
	u32 key;
	u32 pdn;
	u32 access;
	u32 flags;
	bool valid;
	u8 page_shift;
	u32 npages;
	u32 max_pages;
	u64 iova;
	u64 length;
	u64 *mtt;
	u64 dm_dma;			/* XNIC_MR_F_DM: bus address of iova */
};

int xnic_sim_mr_params_ok(u64 iova, u64 length, u32 npages, u8 page_shift,
			  u64 max_mr_size);
int xnic_sim_mtt_check(const u64 *mtt, u32 n, u8 page_shift);
int xnic_sim_mr_check(const struct xnic_sim_mr *mr, u32 key, u32 pdn,
		      u64 addr, u64 len, u32 need, bool remote);
int xnic_sim_mr_xlate(const struct xnic_sim_mr *mr, u64 addr, u64 *dma,
		      u64 *contig);

/**
 * struct xnic_sim_seg - a piece of a scatter/gather list, checked
 * @mr: memory region of @addr; NULL for kernel memory at @kaddr
 * @addr: I/O virtual address (DMA address for XNIC_MR_F_ALL)
 * @kaddr: kernel memory (inline data, GRH)
 * @len: bytes
 */
struct xnic_sim_seg {
	const struct xnic_sim_mr *mr;
	u64 addr;
	void *kaddr;
	u32 len;
};

u64 xnic_sim_segs_len(const struct xnic_sim_seg *s, u32 n);
int xnic_sim_copy(const struct xnic_sim_seg *dst, u32 ndst,
		  const struct xnic_sim_seg *src, u32 nsrc, u64 len,
		  bool can_sleep);
int xnic_sim_atomic(const struct xnic_sim_mr *mr, u64 addr, bool cmp_swap,
		    u64 compare_add, u64 swap, u64 *orig);

#endif /* _XNIC_SIM_MEM_H */
