/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User memory pinned for a memory region.
 */
#ifndef _XRDMA_UMEM_H
#define _XRDMA_UMEM_H

#include <linux/types.h>
#include <linux/scatterlist.h>

struct dma_buf_attachment;
struct mm_struct;
struct page;
struct xrdma_device;

/**
 * struct xrdma_umem - pinned pages of a process's address range, or of a
 *		       dmabuf
 * @owning_mm: the mm the pages and the pinned_vm accounting belong to
 *	       (NULL for a dmabuf)
 * @address: user virtual address of the first byte (for a dmabuf: its
 *	     offset in the dmabuf)
 * @length: length in bytes
 * @npages: number of pinned pages (covering @address..@address+@length)
 * @writable: pinned for write (FOLL_WRITE), pages are dirtied on release
 * @pages: the pinned pages, first to last (NULL for a dmabuf)
 * @sgt: scatter table over @pages (not DMA-mapped: that is the driver's;
 *	 empty for a dmabuf)
 * @dmabuf_attach: a dmabuf's attachment to the device's DMA device, or
 *		   NULL for user memory
 * @dmabuf_sgt: the whole dmabuf, mapped for the device's DMA device (DMA
 *		addresses only: its pages are the exporter's); the MR's
 *		pages are those covering @address..@address+@length in it
 */
struct xrdma_umem {
	struct mm_struct *owning_mm;
	u64 address;
	u64 length;
	unsigned long npages;
	bool writable;
	struct page **pages;
	struct sg_table sgt;
	struct dma_buf_attachment *dmabuf_attach;
	struct sg_table *dmabuf_sgt;
};

struct xrdma_umem *xrdma_umem_get(struct xrdma_device *dev, u64 addr,
				  u64 length, u32 access);
struct xrdma_umem *xrdma_umem_dmabuf_get(struct xrdma_device *dev,
					 u64 offset, u64 length, int fd,
					 u32 access);
void xrdma_umem_release(struct xrdma_umem *umem);
unsigned long xrdma_umem_num_pages(u64 addr, u64 length);

static inline unsigned int xrdma_umem_offset(const struct xrdma_umem *umem)
{
	return umem->address & ~PAGE_MASK;
}

#endif /* _XRDMA_UMEM_H */
