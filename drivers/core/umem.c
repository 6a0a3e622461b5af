// SPDX-License-Identifier: GPL-2.0
/*
 * Pinning of user memory for MRs: FOLL_LONGTERM pins, accounted in
 * mm->pinned_vm against RLIMIT_MEMLOCK (unless CAP_IPC_LOCK), and both
 * released on deregistration or when the owner goes away.  dmabuf MRs:
 * a static attachment of the dmabuf to the device's DMA device, mapped
 * for as long as the MR exists.
 */
#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <xrdma/xrdma_umem.h>
#include "core_priv.h"

/**
 * xrdma_umem_num_pages - pages spanned by a byte range
 * @addr: first byte
 * @length: bytes, > 0, and @addr + @length must not overflow
 *
 * Return: the number of pages the range touches.
 */
unsigned long xrdma_umem_num_pages(u64 addr, u64 length)
{
	return (ALIGN(addr + length, PAGE_SIZE) - ALIGN_DOWN(addr, PAGE_SIZE))
		>> PAGE_SHIFT;
}
EXPORT_SYMBOL_GPL(xrdma_umem_num_pages);

static bool xrdma_access_writable(u32 access)
{
	return access & (XRDMA_ACCESS_LOCAL_WRITE | XRDMA_ACCESS_REMOTE_WRITE |
			 XRDMA_ACCESS_REMOTE_ATOMIC);
}

/**
 * xrdma_pinned_charge - count pages in @mm's pinned_vm (VmPin)
 * @mm: the mm the pages are pinned for
 * @npages: how many
 *
 * Pinned MR pages and the queue memory processes map count alike, against
 * RLIMIT_MEMLOCK unless the caller has CAP_IPC_LOCK.  Undo with
 * xrdma_pinned_uncharge().
 *
 * Return: 0, or -ENOMEM (nothing counted) over the limit.
 */
int xrdma_pinned_charge(struct mm_struct *mm, unsigned long npages)
{
	unsigned long lock_limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	s64 new_pinned = atomic64_add_return(npages, &mm->pinned_vm);

	if (new_pinned > lock_limit && !capable(CAP_IPC_LOCK)) {
		atomic64_sub(npages, &mm->pinned_vm);
		return -ENOMEM;
	}
	return 0;
}

/**
 * xrdma_umem_get - pin a range of the current process's memory
 * @dev: device the memory is registered with (for limits)
 * @addr: user virtual address
 * @length: bytes
 * @access: XRDMA_ACCESS_* flags; writable rights need writable pages
 *
 * Return: the umem or an ERR_PTR: -EINVAL (zero, overflowing or too long
 * range, bad flags), -EFAULT (unmapped memory, read-only memory for write
 * access, or no user address space), -ENOMEM (RLIMIT_MEMLOCK exceeded or
 * out of memory), -EINTR if a signal interrupts a long pin.
 */
struct xrdma_umem *xrdma_umem_get(struct xrdma_device *dev, u64 addr,
				  u64 length, u32 access)
{
	unsigned int gup_flags = FOLL_LONGTERM;
	struct mm_struct *mm = current->mm;
	unsigned long npages, pinned = 0;
	struct xrdma_umem *umem;
	int ret;

	ret = xrdma_check_mr_access(access);
	if (ret)
		return ERR_PTR(ret);
	if (!length || addr + length < addr ||
	    PAGE_ALIGN(addr + length) < addr + length ||
	    length > dev->attr.max_mr_size)
		return ERR_PTR(-EINVAL);
	if (!mm)
		return ERR_PTR(-EFAULT);
	npages = xrdma_umem_num_pages(addr, length);
	if (npages > UINT_MAX)
		return ERR_PTR(-EINVAL);

	umem = kzalloc(sizeof(*umem), GFP_KERNEL_ACCOUNT);
	if (!umem)
		return ERR_PTR(-ENOMEM);
	umem->address = addr;
	umem->length = length;
	umem->writable = xrdma_access_writable(access);
	umem->owning_mm = mm;
	mmgrab(mm);

	ret = xrdma_pinned_charge(mm, npages);
	if (ret)
		goto err_mmdrop;

	/* up to 2 GiB with an unlimited RLIMIT_MEMLOCK: the memcg's */
	umem->pages = kvcalloc(npages, sizeof(*umem->pages),
			       GFP_KERNEL_ACCOUNT);
	if (!umem->pages) {
		ret = -ENOMEM;
		goto err_account;
	}
	if (umem->writable)
		gup_flags |= FOLL_WRITE;

	while (pinned < npages) {
		unsigned long start = ALIGN_DOWN(addr, PAGE_SIZE) +
				      pinned * PAGE_SIZE;
		int chunk = min_t(unsigned long, npages - pinned, 512);

		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto err_unpin;
		}
		ret = pin_user_pages_fast(start, chunk, gup_flags,
					  umem->pages + pinned);
		if (ret <= 0) {
			ret = ret ? : -EFAULT;
			goto err_unpin;
		}
		pinned += ret;
		cond_resched();
	}
	umem->npages = npages;

	ret = sg_alloc_table_from_pages(&umem->sgt, umem->pages, npages,
					addr & ~PAGE_MASK, length, GFP_KERNEL);
	if (ret)
		goto err_unpin;
	return umem;

err_unpin:
	unpin_user_pages(umem->pages, pinned);
	kvfree(umem->pages);
err_account:
	xrdma_pinned_uncharge(mm, npages);
err_mmdrop:
	mmdrop(mm);
	kfree(umem);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(xrdma_umem_get);

#if IS_ENABLED(CONFIG_DMA_SHARED_BUFFER)
static void xrdma_umem_dmabuf_put(struct xrdma_umem *umem)
{
	struct dma_buf_attachment *attach = umem->dmabuf_attach;
	struct dma_buf *dmabuf = attach->dmabuf;
	bool dynamic = dma_buf_is_dynamic(dmabuf);

	if (dynamic)
		dma_resv_lock(dmabuf->resv, NULL);
	dma_buf_unmap_attachment(attach, umem->dmabuf_sgt, DMA_BIDIRECTIONAL);
	if (dynamic)
		dma_resv_unlock(dmabuf->resv);
	dma_buf_detach(dmabuf, attach);
	dma_buf_put(dmabuf);
	kfree(umem);
}

/**
 * xrdma_umem_dmabuf_get - attach a dmabuf's range for a device
 * @dev: device the memory is registered with; its dma_device is attached
 * @offset: first byte in the dmabuf
 * @length: bytes
 * @fd: the dmabuf's file descriptor in the current process
 * @access: XRDMA_ACCESS_* flags
 *
 * The dmabuf is attached and mapped for @dev->dma_device until
 * xrdma_umem_release(); a static attachment, so the exporter keeps the
 * memory where it is (pinned) all that time.  Nothing is counted in
 * pinned_vm: the memory is the exporter's, not the process's.
 *
 * Return: the umem or an ERR_PTR: -EOPNOTSUPP (no DMA device, or a
 * kernel without CONFIG_DMA_SHARED_BUFFER), -EINVAL
 * (bad flags; zero, overflowing or too long range; range beyond the
 * dmabuf; @fd not a dmabuf), -EBADF (@fd not open), -ENOMEM, or the
 * exporter's error.
 */
struct xrdma_umem *xrdma_umem_dmabuf_get(struct xrdma_device *dev,
					 u64 offset, u64 length, int fd,
					 u32 access)
{
	struct dma_buf_attachment *attach;
	struct xrdma_umem *umem;
	struct dma_buf *dmabuf;
	struct sg_table *sgt;
	bool dynamic;
	int ret;

	if (!dev->dma_device)
		return ERR_PTR(-EOPNOTSUPP);
	ret = xrdma_check_mr_access(access);
	if (ret)
		return ERR_PTR(ret);
	if (!length || offset + length < offset ||
	    PAGE_ALIGN(offset + length) < offset + length ||
	    length > dev->attr.max_mr_size)
		return ERR_PTR(-EINVAL);
	dmabuf = dma_buf_get(fd);
	if (IS_ERR(dmabuf))
		return ERR_CAST(dmabuf);
	if (offset + length > dmabuf->size) {
		ret = -EINVAL;
		goto err_put;
	}
	umem = kzalloc(sizeof(*umem), GFP_KERNEL_ACCOUNT);
	if (!umem) {
		ret = -ENOMEM;
		goto err_put;
	}
	umem->address = offset;
	umem->length = length;
	umem->npages = xrdma_umem_num_pages(offset, length);
	umem->writable = xrdma_access_writable(access);

	attach = dma_buf_attach(dmabuf, dev->dma_device);
	if (IS_ERR(attach)) {
		ret = PTR_ERR(attach);
		goto err_free;
	}
	dynamic = dma_buf_is_dynamic(dmabuf);
	if (dynamic)
		dma_resv_lock(dmabuf->resv, NULL);
	sgt = dma_buf_map_attachment(attach, DMA_BIDIRECTIONAL);
	if (dynamic)
		dma_resv_unlock(dmabuf->resv);
	if (IS_ERR(sgt)) {
		ret = PTR_ERR(sgt);
		goto err_detach;
	}
	umem->dmabuf_attach = attach;
	umem->dmabuf_sgt = sgt;
	return umem;

err_detach:
	dma_buf_detach(dmabuf, attach);
err_free:
	kfree(umem);
err_put:
	dma_buf_put(dmabuf);
	return ERR_PTR(ret);
}
#else /* a kernel without dmabufs (e.g. a KUnit kernel) */
static void xrdma_umem_dmabuf_put(struct xrdma_umem *umem)
{
}

struct xrdma_umem *xrdma_umem_dmabuf_get(struct xrdma_device *dev,
					 u64 offset, u64 length, int fd,
					 u32 access)
{
	return ERR_PTR(-EOPNOTSUPP);
}
#endif
EXPORT_SYMBOL_GPL(xrdma_umem_dmabuf_get);

/**
 * xrdma_umem_release - unpin and unaccount a umem
 * @umem: from xrdma_umem_get(), may be NULL
 *
 * Safe from any process, including after the owner has exited.
 */
void xrdma_umem_release(struct xrdma_umem *umem)
{
	if (!umem)
		return;
	if (umem->dmabuf_attach) {
		xrdma_umem_dmabuf_put(umem);
		return;
	}
	sg_free_table(&umem->sgt);
	unpin_user_pages_dirty_lock(umem->pages, umem->npages, umem->writable);
	kvfree(umem->pages);
	xrdma_pinned_uncharge(umem->owning_mm, umem->npages);
	mmdrop(umem->owning_mm);
	kfree(umem);
}
EXPORT_SYMBOL_GPL(xrdma_umem_release);

#if IS_ENABLED(CONFIG_DMA_SHARED_BUFFER)
MODULE_IMPORT_NS(DMA_BUF);
#endif
