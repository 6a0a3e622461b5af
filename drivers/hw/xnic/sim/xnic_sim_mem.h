/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xnic_sim: the device model's pure logic, without module state: DMA
 * memory access, WQE decoding, ring arithmetic, memory regions (bounds,
 * rights, MTT translation, copies between them), object tables and
 * status tables.  KUnit-tested by kunit/xnic_sim_test.c, which includes
 * xnic_sim_mem.c.
 */
#ifndef _XNIC_SIM_MEM_H
#define _XNIC_SIM_MEM_H

#include <linux/types.h>
#include <linux/bits.h>
#include <linux/highmem.h>
#include <linux/rcupdate.h>
#include <xrdma/xnic_hw.h>

#define XNIC_SIM_MAX_SGE	8	/* SGEs per WQE, both queues */
#define XNIC_SIM_MAX_INLINE	256
#define XNIC_SIM_MAX_WQE_SHIFT	12	/* 4 KiB WQEs at most */
#define XNIC_SIM_MAX_LOG_WQE	12	/* 4096 WQEs per queue */
#define XNIC_SIM_MAX_LOG_CQE	16	/* 65536 CQEs */
#define XNIC_SIM_MAX_RD_ATOM	16
#define XNIC_SIM_MAX_FR_PAGES	512
#define XNIC_SIM_MAX_MSG	BIT(31)
#define XNIC_SIM_UD_MTU		4096
#define XNIC_SIM_GRH_LEN	40
#define XNIC_SIM_IDX_BITS	24	/* object numbers and MR indexes */
#define XNIC_SIM_MR_MIN_SHIFT	12
#define XNIC_SIM_MR_MAX_SHIFT	30
#define XNIC_SIM_MAX_DB		1024

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
/* Rings                                                               */

/**
 * xnic_sim_ring_avail - entries a producer announced
 * @ci: consumer index, free running
 * @pi: producer index from a doorbell record, free running
 * @log: log2 of the ring size
 *
 * Return: pi - ci, or -1 if that is more than the ring holds.
 */
static inline int xnic_sim_ring_avail(u32 ci, u32 pi, u32 log)
{
	u32 n = pi - ci;

	return n > (1U << log) ? -1 : (int)n;
}

/* Work queue entries: the first lap is written with owner 0. */
static inline bool xnic_sim_wqe_owner_ok(u8 owner, u32 idx, u32 log)
{
	return (owner & 1) == ((idx >> log) & 1);
}

/* Owner the device writes into CQ and EQ entries: the first lap has 1. */
static inline u8 xnic_sim_hw_owner(u32 idx, u32 log)
{
	return ((idx >> log) & 1) ^ 1;
}

/* Whether a CQ or EQ is full: any producer index too far ahead is. */
static inline bool xnic_sim_ring_full(u32 pi, u32 ci, u32 log)
{
	return pi - ci >= (1U << log);
}

/* ------------------------------------------------------------------ */
/* Doorbell pages                                                      */

/* DMA address of summary word @s of the doorbell page at @page. */
static inline u64 xnic_sim_db_summary_addr(u64 page, u32 s)
{
	return page + offsetof(struct xnic_db_page, summary) +
	       (u64)s * sizeof(__le64);
}

/* DMA address of group word @g of the doorbell page at @page. */
static inline u64 xnic_sim_db_group_addr(u64 page, u32 g)
{
	return page + offsetof(struct xnic_db_page, group) +
	       (u64)g * sizeof(__le64);
}

/* ------------------------------------------------------------------ */
/* Work queue entries                                                  */

/**
 * struct xnic_sim_swqe - a send WQE, decoded from a private copy
 * @opcode: XNIC_OP_*
 * @flags: XNIC_WQE_*
 * @num_sge: SGEs at @sge
 * @inline_len: bytes at @inline_data
 * @wr_id: echoed in the CQE
 * @imm: immediate data or rkey to invalidate, as stored
 * @remote_addr: RDMA and atomic target
 * @rkey: its key
 * @compare_add: atomic operand
 * @swap: atomic operand
 * @dest_qpn: UD destination
 * @qkey: UD key
 * @dgid: UD destination port
 * @fr: REG_MR fields (CPU order)
 * @sge: the SGEs, in the copy
 * @inline_data: the inline data, in the copy
 */
struct xnic_sim_swqe {
	u8 opcode;
	u8 flags;
	u8 num_sge;
	u32 inline_len;
	u64 wr_id;
	__le32 imm;
	u64 remote_addr;
	u32 rkey;
	u64 compare_add;
	u64 swap;
	u32 dest_qpn;
	u32 qkey;
	u8 dgid[16];
	struct {
		u64 mtt_addr;
		u64 iova;
		u64 length;
		u32 key;
		u32 access;
		u32 npages;
		u8 page_shift;
	} fr;
	const struct xnic_sge *sge;
	const u8 *inline_data;
};

int xnic_sim_swqe_len(const struct xnic_wqe_ctrl *ctrl, u32 wqe_size);
void xnic_sim_swqe_decode(const void *buf, struct xnic_sim_swqe *w);
u64 xnic_sim_swqe_bytes(const struct xnic_sim_swqe *w);
int xnic_sim_rwqe_len(const struct xnic_rwqe *hdr, u32 wqe_size);
int xnic_sim_op_check(u8 qp_type, u8 opcode, bool kernel);
bool xnic_sim_op_is_send(u8 opcode);
u64 xnic_sim_rnr_delay_ns(u8 min_rnr_timer, u32 naks);

/**
 * struct xnic_sim_budget - what a pass or a kick serve may still execute
 * @wqes: send WQEs
 * @bytes: bytes of their payloads (xnic_sim_swqe_bytes())
 * @atomic: a serve with preemption disabled (a kick served in the
 *	    writer's context): no WQE larger than @bytes and none that may
 *	    sleep is taken, they are left to the engine thread
 * @left: set when it left work for the engine thread
 */
struct xnic_sim_budget {
	u32 wqes;
	u64 bytes;
	bool atomic;
	bool left;
};

bool xnic_sim_budget_take(struct xnic_sim_budget *b,
			  const struct xnic_sim_swqe *w);
u64 xnic_sim_retry_delay_ns(u8 timeout);

/**
 * xnic_sim_retry_left - whether one more retry is allowed
 * @count: retries already made
 * @limit: rnr_retry or retry_cnt (7 means infinite for RNR)
 * @infinite7: whether 7 means infinite
 */
static inline bool xnic_sim_retry_left(u32 count, u8 limit, bool infinite7)
{
	return (infinite7 && limit == 7) || count < limit;
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
