// SPDX-License-Identifier: GPL-2.0
/*
 * xnic: memory given to the device.  Physically contiguous DMA buffers,
 * the memory of queues, and what is kept after a command failed in a way
 * that leaves the device holding memory.
 *
 * Every queue is one physically contiguous DMA allocation (ring(s), then
 * the doorbell record).  A user object's allocation is handed to the
 * process through an mmap entry and freed by mmap_free once the object is
 * destroyed and the last mapping is gone.  Memory whose destroy command
 * failed in a way that leaves the device holding it -- queue memory
 * (struct xnic_dmabuf) and the pinned, DMA-mapped pages of user MRs -- is
 * kept until the device is reset (xnic_dma_free(), xnic_umem_keep()); then
 * xnic_free_zombies() frees it (called by the command queue and at
 * teardown).  A user queue's memory is charged to its context from
 * allocation to that free (xnic_ubuf_alloc()).  Device memory (the DM
 * window) is handed out by page here too, and mapped the same way.
 */
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <xrdma/xrdma_umem.h>
#include "xnic.h"

/* ------------------------------------------------------------------ */
/* DMA buffers                                                         */

/**
 * xnic_dma_alloc_gfp - zeroed, physically contiguous DMA memory
 * @xdev: device
 * @buf: filled in
 * @size: bytes
 * @gfp: GFP_KERNEL, or GFP_KERNEL_ACCOUNT for memory allocated on behalf
 *	 of a process (dma-direct allocates it with alloc_pages(), which
 *	 charges it to the caller's memory cgroup; freeing uncharges it)
 *
 * Return: 0 or -ENOMEM.
 */
int xnic_dma_alloc_gfp(struct xnic_dev *xdev, struct xnic_dmabuf *buf,
		       size_t size, gfp_t gfp)
{
	buf->cpu = dma_alloc_coherent(xdev->dma_dev, size, &buf->dma,
				      gfp | __GFP_NOWARN);
	if (!buf->cpu)
		return -ENOMEM;
	buf->size = size;
	INIT_LIST_HEAD(&buf->zombie);
	return 0;
}

/* xnic_dma_alloc_gfp() for the kernel's own use */
int xnic_dma_alloc(struct xnic_dev *xdev, struct xnic_dmabuf *buf,
		   size_t size)
{
	return xnic_dma_alloc_gfp(xdev, buf, size, GFP_KERNEL);
}

/**
 * xnic_dma_free - release memory given to the device
 * @xdev: device
 * @buf: from xnic_dma_alloc(), may be empty
 * @device_done: the device let go of it (its destroy command succeeded);
 *		 if not, the memory is kept until the device is reset
 */
void xnic_dma_free(struct xnic_dev *xdev, struct xnic_dmabuf *buf,
		   bool device_done)
{
	struct xnic_dmabuf *z;

	if (!buf->cpu)
		return;
	if (!device_done) {
		z = kmalloc(sizeof(*z), GFP_KERNEL | __GFP_NOFAIL);
		*z = *buf;
		spin_lock(&xdev->zombie_lock);
		/* a reset that completed meanwhile let go of it too */
		device_done = xdev->stopped;
		if (!device_done)
			list_add(&z->zombie, &xdev->zombies);
		spin_unlock(&xdev->zombie_lock);
		if (device_done)
			kfree(z);
	}
	if (device_done)
		dma_free_coherent(xdev->dma_dev, buf->size, buf->cpu,
				  buf->dma);
	buf->cpu = NULL;
}

/* ------------------------------------------------------------------ */
/* Kept for the device until it is reset                               */

/* A user MR's pages the device may still reach (see xnic_umem_keep()). */
struct xnic_umem_zombie {
	struct list_head node;		/* in xnic_dev.umem_zombies */
	struct xrdma_umem *umem;
	bool mapped;			/* umem->sgt is DMA-mapped */
};

static void xnic_umem_release(struct xnic_dev *xdev, struct xrdma_umem *umem,
			      bool mapped)
{
	if (mapped)
		dma_unmap_sgtable(xdev->dma_dev, &umem->sgt, DMA_BIDIRECTIONAL,
				  XNIC_UMEM_DMA_ATTRS);
	xrdma_umem_release(umem);
}

/**
 * xnic_umem_keep - take over a user MR's pages the device may still reach
 * @xdev: device
 * @umem: the MR's pinned pages (the caller gives up its reference)
 * @mapped: @umem->sgt is DMA-mapped for the device
 *
 * After a REG_MR or DEREG_MR that failed in a way that leaves the MR in
 * the device (xnic_cmd_let_go() false), the pages stay pinned, accounted
 * and mapped until the device is reset; then they are unmapped and
 * released.  Sleeps.
 */
void xnic_umem_keep(struct xnic_dev *xdev, struct xrdma_umem *umem,
		    bool mapped)
{
	struct xnic_umem_zombie *z;
	bool done;

	z = kmalloc(sizeof(*z), GFP_KERNEL | __GFP_NOFAIL);
	z->umem = umem;
	z->mapped = mapped;
	spin_lock(&xdev->zombie_lock);
	done = xdev->stopped;
	if (!done)
		list_add(&z->node, &xdev->umem_zombies);
	spin_unlock(&xdev->zombie_lock);
	if (done) {
		xnic_umem_release(xdev, umem, mapped);
		kfree(z);
	}
}

/**
 * xnic_free_zombies - free the memory kept for the device
 * @xdev: device, reset: nothing may touch the kept memory any more
 * @release: false if the reset did not complete: leak it all instead (the
 *	     pages stay pinned for good)
 */
void xnic_free_zombies(struct xnic_dev *xdev, bool release)
{
	struct xnic_umem_zombie *u, *utmp;
	struct xnic_dmabuf *z, *tmp;
	LIST_HEAD(zombies);
	LIST_HEAD(umems);

	spin_lock(&xdev->zombie_lock);
	list_splice_init(&xdev->zombies, &zombies);
	list_splice_init(&xdev->umem_zombies, &umems);
	spin_unlock(&xdev->zombie_lock);
	list_for_each_entry_safe(z, tmp, &zombies, zombie) {
		list_del(&z->zombie);
		if (release)
			dma_free_coherent(xdev->dma_dev, z->size, z->cpu,
					  z->dma);
		kfree(z);
	}
	list_for_each_entry_safe(u, utmp, &umems, node) {
		list_del(&u->node);
		if (release)
			xnic_umem_release(xdev, u->umem, u->mapped);
		kfree(u);
	}
}

/* ------------------------------------------------------------------ */
/* Queue memory, and memory a process maps                             */

/*
 * A user queue is one physically contiguous allocation of 2^order pages
 * (the device takes one address per ring).  order 10 (4 MiB) is what the
 * largest queue the device offers needs: a 65536-entry CQ.
 */
static unsigned int max_queue_order = 10;
module_param(max_queue_order, uint, 0644);
MODULE_PARM_DESC(max_queue_order,
		 "largest allocation of one user queue, log2 of pages (default 10: 4 MiB); larger queues get -ENOMEM");

/*
 * Memory for @uctx's process: charged to the context (RLIMIT_MEMLOCK in
 * the creator's pinned_vm, the context's cap) before it is allocated, and
 * to the caller's memory cgroup (__GFP_ACCOUNT: dma-direct allocates it
 * with alloc_pages(), which charges it; freeing uncharges it).
 */
struct xnic_ubuf *xnic_ubuf_alloc(struct xnic_dev *xdev,
				  struct xrdma_ucontext *uctx, size_t size)
{
	unsigned int order = get_order(size);
	struct xnic_ubuf *ubuf;
	int ret;

	if (order > READ_ONCE(max_queue_order))
		return ERR_PTR(-ENOMEM);
	ubuf = kzalloc(sizeof(*ubuf), GFP_KERNEL_ACCOUNT);
	if (!ubuf)
		return ERR_PTR(-ENOMEM);
	ubuf->xdev = xdev;
	ret = xrdma_ucontext_charge(uctx, 1UL << order);
	if (ret) {
		kfree(ubuf);
		return ERR_PTR(ret);
	}
	ubuf->uctx = uctx;
	ubuf->charged = 1UL << order;
	/* xnic_dma_alloc(), but charged to the memory cgroup */
	size = PAGE_ALIGN(size);
	ubuf->buf.cpu = dma_alloc_coherent(xdev->dma_dev, size, &ubuf->buf.dma,
					   GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!ubuf->buf.cpu) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	ubuf->buf.size = size;
	INIT_LIST_HEAD(&ubuf->buf.zombie);
	/* mmap maps it by page frame: it must be in the linear map */
	if (!virt_addr_valid(ubuf->buf.cpu)) {
		xnic_dma_free(xdev, &ubuf->buf, true);
		ret = -ENOMEM;
		goto err_uncharge;
	}
	return ubuf;

err_uncharge:
	xrdma_ucontext_uncharge(uctx, ubuf->charged);
	kfree(ubuf);
	return ERR_PTR(ret);
}

/* Free (or keep for the device, zombie) and uncharge. */
void xnic_ubuf_free(struct xnic_ubuf *ubuf)
{
	xnic_dma_free(ubuf->xdev, &ubuf->buf, !ubuf->zombie);
	/* a zombie stays with the device until reset, charged to nobody */
	xrdma_ucontext_uncharge(ubuf->uctx, ubuf->charged);
	kfree(ubuf);
}

/*
 * Allocate the memory of a queue: from the kernel (kbuf) or to be mapped
 * by the process (*ubufp).  Returns the CPU address and DMA address.
 */
int xnic_queue_alloc(struct xnic_dev *xdev, struct xrdma_udata *udata,
		     size_t size, struct xnic_dmabuf *kbuf,
		     struct xnic_ubuf **ubufp, void **cpu, dma_addr_t *dma)
{
	struct xnic_ubuf *ubuf;
	int ret;

	if (!udata) {
		ret = xnic_dma_alloc(xdev, kbuf, size);
		if (ret)
			return ret;
		*cpu = kbuf->cpu;
		*dma = kbuf->dma;
		return 0;
	}
	ubuf = xnic_ubuf_alloc(xdev, udata->uctx, size);
	if (IS_ERR(ubuf))
		return PTR_ERR(ubuf);
	*ubufp = ubuf;
	*cpu = ubuf->buf.cpu;
	*dma = ubuf->buf.dma;
	return 0;
}

/* Publish a user queue's memory; on failure the memory is freed. */
int xnic_queue_publish(struct xrdma_udata *udata, struct xnic_ubuf **ubufp,
		       struct xrdma_mmap_entry **entryp)
{
	struct xrdma_mmap_entry *entry;

	entry = xrdma_mmap_entry_insert(udata->uctx, (*ubufp)->buf.size,
					*ubufp);
	if (IS_ERR(entry)) {
		xnic_ubuf_free(*ubufp);
		*ubufp = NULL;
		return PTR_ERR(entry);
	}
	*entryp = entry;
	return 0;
}

/* Release a queue's memory; @let_go: the device no longer uses it. */
void xnic_queue_free(struct xnic_dev *xdev, struct xnic_dmabuf *kbuf,
		     struct xnic_ubuf **ubufp, struct xrdma_mmap_entry **entryp,
		     bool let_go)
{
	if (*entryp) {
		/* mmap_free frees it once no mapping is left */
		(*ubufp)->zombie = !let_go;
		xrdma_mmap_entry_remove(*entryp);
		*entryp = NULL;
		*ubufp = NULL;
	} else if (*ubufp) {
		(*ubufp)->zombie = !let_go;
		xnic_ubuf_free(*ubufp);
		*ubufp = NULL;
	} else {
		xnic_dma_free(xdev, kbuf, let_go);
	}
}

/* ------------------------------------------------------------------ */
/* Device memory                                                       */

/*
 * The DM window (DM_BASE, DM_SIZE): memory of the device's own that the
 * CPU reaches at its bus address, like a memory BAR.  The driver hands it
 * out in whole pages, zeroed, and maps them into the owner's process; the
 * device reaches them through MRs registered with XNIC_MR_F_DM.
 */
int xnic_dm_init(struct xnic_dev *xdev)
{
	u32 size = xnic_rd(xdev, XNIC_REG_DM_SIZE);
	u64 base = xnic_rd(xdev, XNIC_REG_DM_BASE_LO) |
		   (u64)xnic_rd(xdev, XNIC_REG_DM_BASE_HI) << 32;

	spin_lock_init(&xdev->dm_lock);
	if (!size)
		return 0;
	if (!PAGE_ALIGNED(size) || !PAGE_ALIGNED(base) || !base) {
		dev_warn(&xdev->pdev->dev, "DM window 0x%llx+0x%x unusable: no device memory\n",
			 base, size);
		return 0;
	}
	xdev->dm_map = bitmap_zalloc(size >> PAGE_SHIFT, GFP_KERNEL);
	if (!xdev->dm_map)
		return -ENOMEM;
	xdev->dm_cpu = memremap(base, size, MEMREMAP_WB);
	if (!xdev->dm_cpu) {
		bitmap_free(xdev->dm_map);
		xdev->dm_map = NULL;
		return -ENOMEM;
	}
	xdev->dm_base = base;
	xdev->dm_pages = size >> PAGE_SHIFT;
	xdev->ibdev.attr.max_dm_size = size;
	return 0;
}

/* After the device was unregistered: no DM is left. */
void xnic_dm_fini(struct xnic_dev *xdev)
{
	if (!xdev->dm_pages)
		return;
	WARN_ON(!bitmap_empty(xdev->dm_map, xdev->dm_pages));
	memunmap(xdev->dm_cpu);
	bitmap_free(xdev->dm_map);
	xdev->dm_pages = 0;
}

static void xnic_dm_put_pages(struct xnic_dev *xdev, u32 first, u32 n)
{
	spin_lock(&xdev->dm_lock);
	bitmap_clear(xdev->dm_map, first, n);
	spin_unlock(&xdev->dm_lock);
}

/* mmap_free of a DM mapping: the pages go back once no mapping is left. */
void xnic_dm_release(struct xnic_ubuf *ubuf)
{
	struct xnic_dev *xdev = ubuf->xdev;

	xnic_dm_put_pages(xdev, (ubuf->buf.cpu - xdev->dm_cpu) >> PAGE_SHIFT,
			  ubuf->buf.size >> PAGE_SHIFT);
	xrdma_dm_uncharge(&xdev->ibdev, &ubuf->dm_charge);
	kfree(ubuf);
}

/**
 * xnic_dm_alloc - the driver's alloc_dm
 * @dm: dm->length set
 * @log_align: alignment in the window, log2 bytes (pages are aligned)
 * @udata: a process's: its mapping is published in dm->mmap_*
 *
 * Return: 0, -ENOMEM if no free range fits, or another negative errno.
 */
int xnic_dm_alloc(struct xrdma_dm *dm, u32 log_align,
		  struct xrdma_udata *udata)
{
	struct xnic_dev *xdev = to_xdev(dm->device);
	struct xnic_dm *xdm = container_of(dm, struct xnic_dm, ibdm);
	unsigned long align = 0, first;
	struct xnic_ubuf *ubuf;
	u32 n;
	int ret;

	if (dm->length > (u64)xdev->dm_pages << PAGE_SHIFT)
		return -ENOMEM;
	n = PAGE_ALIGN(dm->length) >> PAGE_SHIFT;
	if (log_align > PAGE_SHIFT)
		align = (1UL << (log_align - PAGE_SHIFT)) - 1;
	spin_lock(&xdev->dm_lock);
	first = bitmap_find_next_zero_area(xdev->dm_map, xdev->dm_pages, 0,
					   n, align);
	if (first < xdev->dm_pages)
		bitmap_set(xdev->dm_map, first, n);
	spin_unlock(&xdev->dm_lock);
	if (first >= xdev->dm_pages)
		return -ENOMEM;
	xdm->first = first;
	xdm->npages = n;
	/* no data of an earlier owner */
	memset(xdev->dm_cpu + ((size_t)first << PAGE_SHIFT), 0,
	       (size_t)n << PAGE_SHIFT);
	if (!udata)
		return 0;

	ubuf = kzalloc(sizeof(*ubuf), GFP_KERNEL_ACCOUNT);
	if (!ubuf) {
		ret = -ENOMEM;
		goto err_pages;
	}
	ubuf->xdev = xdev;
	ubuf->dm = true;
	ubuf->buf.cpu = xdev->dm_cpu + ((size_t)first << PAGE_SHIFT);
	ubuf->buf.dma = xdev->dm_base + ((u64)first << PAGE_SHIFT);
	ubuf->buf.size = (size_t)n << PAGE_SHIFT;
	xdm->entry = xrdma_mmap_entry_insert(udata->uctx, ubuf->buf.size, ubuf);
	if (IS_ERR(xdm->entry)) {
		ret = PTR_ERR(xdm->entry);
		xdm->entry = NULL;
		kfree(ubuf);
		goto err_pages;
	}
	xdm->ubuf = ubuf;
	dm->mmap_offset = xrdma_mmap_entry_offset(xdm->entry);
	dm->mmap_length = ubuf->buf.size;
	return 0;

err_pages:
	xnic_dm_put_pages(xdev, first, n);
	return ret;
}

/* The driver's free_dm: no MR is left on @dm. */
void xnic_dm_free(struct xrdma_dm *dm)
{
	struct xnic_dm *xdm = container_of(dm, struct xnic_dm, ibdm);

	if (xdm->entry) {
		/*
		 * mmap_free gives the pages back once no mapping is left: the
		 * uid's share stays charged until then
		 */
		xdm->ubuf->dm_charge = dm->charge;
		dm->charge = (struct xrdma_dm_charge){};
		xrdma_mmap_entry_remove(xdm->entry);
	} else {
		xnic_dm_put_pages(to_xdev(dm->device), xdm->first,
				  xdm->npages);
	}
}
