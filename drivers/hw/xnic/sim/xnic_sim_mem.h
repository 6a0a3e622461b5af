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
bool xnic_sim_addr_ok(u64 addr, u64 len, u64 align);

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
 * @binds: an MR's bound windows (DEREG_MR refuses while there are any)
 * @mw_type: 0 for an MR; a window's enum xnic_mw_type
 * @state: a window's XNIC_SIM_MW_* (acquire/release)
 * @qpn: a bound type 2 window's QP
 * @parent: a bound window's MR
 * @base: the MR address of a bound window's first byte
 *
 * Fast registration changes a valid MR in place; readers take each field
 * once and bound every MTT index by @max_pages, so a racing reader at
 * worst sees a mix of the two registrations' pages.
 *
 * A memory window is an entry of the same table (one key space): @key,
 * @pdn, @access (remote rights), @iova (its first address: @base, or 0
 * when zero based) and @length describe the bound range.  Its fields
 * change only while @state is not VALID: a binder takes the window from
 * FREE (or, type 1, from VALID after waiting for readers) to BINDING,
 * writes them and releases VALID; an invalidator takes it from VALID to
 * INVALIDATING, drops the MR's @binds and releases FREE.  A reader
 * checks VALID (acquire) and then reads the fields; @parent stays set
 * after invalidation, and the MR it names is freed only after the
 * engines' sections that could have read it are over.
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
	atomic_t binds;
	u8 mw_type;
	u32 state;
	u32 qpn;
	struct xnic_sim_mr *parent;
	u64 base;
	u64 dm_dma;			/* XNIC_MR_F_DM: bus address of iova */
};

/* memory window states */
#define XNIC_SIM_MW_FREE		0	/* unbound */
#define XNIC_SIM_MW_BINDING		1	/* being bound */
#define XNIC_SIM_MW_VALID		2	/* bound */
#define XNIC_SIM_MW_INVALIDATING	3	/* being unbound */

/**
 * struct xnic_sim_bind - a decoded BIND_MW work request
 * @addr: first byte, an address of the MR
 * @length: bytes
 * @mr_key: the MR's key
 * @mw_key: the window's new key
 * @access: XNIC_ACCESS_REMOTE_* rights
 * @flags: XNIC_BIND_F_*
 */
struct xnic_sim_bind {
	u64 addr;
	u64 length;
	u32 mr_key;
	u32 mw_key;
	u32 access;
	u8 flags;
};

int xnic_sim_mr_params_ok(u64 iova, u64 length, u32 npages, u8 page_shift,
			  u64 max_mr_size);
int xnic_sim_mtt_check(const u64 *mtt, u32 n, u8 page_shift);
bool xnic_sim_mtt_pmem(const u64 *mtt, u32 n, u8 page_shift);
int xnic_sim_mr_check(const struct xnic_sim_mr *mr, u32 key, u32 pdn,
		      u64 addr, u64 len, u32 need, bool remote);
int xnic_sim_mr_xlate(const struct xnic_sim_mr *mr, u64 addr, u64 *dma,
		      u64 *contig);
u8 xnic_sim_bind_check(const struct xnic_sim_mr *mw,
		       const struct xnic_sim_mr *mr, u32 pdn,
		       const struct xnic_sim_bind *b);
int xnic_sim_mw_check(const struct xnic_sim_mr *mw, u32 key, u32 pdn,
		      u32 qpn, u64 addr, u64 len, u32 need,
		      const struct xnic_sim_mr **mr, u64 *maddr);

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
int xnic_sim_atomic_write(const struct xnic_sim_mr *mr, u64 addr, u64 val);
int xnic_sim_flush(const struct xnic_sim_mr *mr, u64 addr, u64 len,
		   u8 type);
int xnic_sim_atomic(const struct xnic_sim_mr *mr, u64 addr, bool cmp_swap,
		    u64 compare_add, u64 swap, u64 *orig);

#endif /* _XNIC_SIM_MEM_H */
