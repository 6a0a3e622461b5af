// SPDX-License-Identifier: GPL-2.0
/*
 * xnic: memory given to the device.  Physically contiguous DMA buffers,
 * and what is kept after a command failed in a way that leaves the device
 * holding memory: queue memory (struct xnic_dmabuf) and the pinned,
 * DMA-mapped pages of user MRs, freed once the device is reset
 * (xnic_free_zombies(), called by the command queue and at teardown).
 */
#include <linux/slab.h>
#include <xrdma/xrdma_umem.h>
#include "xnic.h"

/**
 * xnic_dma_alloc - zeroed, physically contiguous DMA memory
 * @xdev: device
 * @buf: filled in
 * @size: bytes
 *
 * Return: 0 or -ENOMEM.
 */
int xnic_dma_alloc(struct xnic_dev *xdev, struct xnic_dmabuf *buf,
		   size_t size)
{
	buf->cpu = dma_alloc_coherent(xdev->dma_dev, size, &buf->dma,
				      GFP_KERNEL | __GFP_NOWARN);
	if (!buf->cpu)
		return -ENOMEM;
	buf->size = size;
	INIT_LIST_HEAD(&buf->zombie);
	return 0;
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
