// SPDX-License-Identifier: GPL-2.0
/*
 * User contexts and the mmap of driver memory into processes.
 *
 * A driver hands out an mmap offset per piece of memory
 * (xrdma_mmap_entry_insert()).  Each VMA holds a reference on its entry, so
 * the memory is freed (ops->mmap_free) only after the driver removed the
 * entry and the last VMA is gone.  When the device goes away first,
 * xrdma_ucontext_disassociate() zaps every VMA and frees all memory at
 * once; a later access to a zapped mapping gets SIGBUS.
 *
 * Accounting: a context counts against its creator's rdma cgroup
 * (hca_handle) and uid share (device.c).  Driver memory a process maps is
 * charged by the driver with xrdma_ucontext_charge() before it allocates
 * it, and uncharged when it frees it -- which for mapped memory is only
 * once the last mapping is gone: the charge lasts as long as the memory.
 *
 * Lock order: the uverbs file's hw_rwsem and the core's registration
 * lock (a disassociation holds both), then mmap_lock of the mm, then
 * ucontext->mmap_lock.
 */
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <xrdma/compat.h>
#include "core_priv.h"

unsigned int xrdma_max_ucontext_mem = 1024;
module_param_named(max_ucontext_mem, xrdma_max_ucontext_mem, uint, 0644);
MODULE_PARM_DESC(max_ucontext_mem,
		 "MiB of queue and doorbell memory and of dmabuf MR tables one user context may hold, mapped or not (default 1024)");

/* One per VMA: vm_private_data. */
struct xrdma_umap {
	struct list_head list;		/* in ucontext->vmas */
	struct vm_area_struct *vma;
	struct xrdma_mmap_entry *entry;
};

static void xrdma_ucontext_detach(struct xrdma_ucontext *uctx,
				  bool driver_state);

/**
 * xrdma_alloc_ucontext - create a process's context on a device
 * @dev: device; the context holds a user reference on it
 * @udata: driver data of the command
 *
 * Return: the context or ERR_PTR (-EOPNOTSUPP for kernel-only devices).
 */
struct xrdma_ucontext *xrdma_alloc_ucontext(struct xrdma_device *dev,
					    struct xrdma_udata *udata)
{
	struct xrdma_ucontext *uctx;
	int ret;

	if (!dev->ops->alloc_ucontext || !dev->ops->mmap)
		return ERR_PTR(-EOPNOTSUPP);
	if (!xrdma_device_try_get(dev))
		return ERR_PTR(-ENODEV);
	uctx = kzalloc(max(dev->ops->size_ucontext, sizeof(*uctx)),
		       GFP_KERNEL_ACCOUNT);
	if (!uctx) {
		ret = -ENOMEM;
		goto err_put;
	}
	ret = xrdma_user_charge(dev, XRDMA_ULIM_UCONTEXT, &uctx->charge);
	if (ret) {
		kfree(uctx);
		goto err_put;
	}
	uctx->owner_mm = current->mm;
	if (uctx->owner_mm)
		mmgrab(uctx->owner_mm);
	uctx->device = dev;
	mutex_init(&uctx->mmap_lock);
	init_rwsem(&uctx->mmap_rwsem);
	xa_init_flags(&uctx->mmap_xa, XA_FLAGS_ALLOC1);
	INIT_LIST_HEAD(&uctx->mmap_entries);
	INIT_LIST_HEAD(&uctx->vmas);
	udata->uctx = uctx;
	ret = dev->ops->alloc_ucontext(uctx, udata);
	if (ret) {
		xrdma_ucontext_detach(uctx, false);
		xrdma_free_ucontext(uctx);
		return ERR_PTR(ret);
	}
	return uctx;

err_put:
	xrdma_device_put(dev);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(xrdma_alloc_ucontext);

/**
 * xrdma_ucontext_charge - account driver memory a process will map
 * @uctx: the context the memory belongs to
 * @npages: pages the driver is about to allocate (all of them: a
 *	    power-of-two allocation is charged at its full size)
 *
 * Call before allocating, from the context's process (an ioctl), and
 * undo with xrdma_ucontext_uncharge() when the memory is freed -- for
 * mapped memory that is the driver's mmap_free.  The pages count in the
 * creator's mm->pinned_vm (VmPin) against RLIMIT_MEMLOCK, like pinned MR
 * memory, unless the caller has CAP_IPC_LOCK, and against the
 * max_ucontext_mem cap of the context, which applies to everyone.
 *
 * Return: 0 or -ENOMEM (a limit is exceeded).
 */
int xrdma_ucontext_charge(struct xrdma_ucontext *uctx, unsigned long npages)
{
	struct mm_struct *mm = uctx->owner_mm;
	int ret;

	ret = xrdma_ucontext_charge_kmem(uctx, npages);
	if (ret)
		return ret;
	if (mm && xrdma_pinned_charge(mm, npages)) {
		xrdma_ucontext_uncharge_kmem(uctx, npages);
		return -ENOMEM;
	}
	return 0;
}
EXPORT_SYMBOL_GPL(xrdma_ucontext_charge);

/**
 * xrdma_ucontext_charge_kmem - account kernel memory a context holds
 * @uctx: the context the memory is allocated for
 * @npages: pages the driver or core is about to allocate (rounded up)
 *
 * Like xrdma_ucontext_charge() but against the max_ucontext_mem cap
 * only, not the creator's pinned_vm: for kernel memory the process does
 * not map, such as the translation tables of a dmabuf MR (whose pages
 * are the exporter's, not the process's).  The memory itself should be
 * allocated with __GFP_ACCOUNT where it can be; the cap bounds what
 * cannot (memory a device or an exporter allocates).  Undo with
 * xrdma_ucontext_uncharge_kmem().
 *
 * Return: 0 or -ENOMEM (the cap is exceeded).
 */
int xrdma_ucontext_charge_kmem(struct xrdma_ucontext *uctx,
			       unsigned long npages)
{
	unsigned long cap = (unsigned long)READ_ONCE(xrdma_max_ucontext_mem) <<
			    (20 - PAGE_SHIFT);

	if (npages > cap ||
	    atomic_long_add_return(npages, &uctx->mem_pages) > cap) {
		if (npages <= cap)
			atomic_long_sub(npages, &uctx->mem_pages);
		return -ENOMEM;
	}
	return 0;
}
EXPORT_SYMBOL_GPL(xrdma_ucontext_charge_kmem);

/**
 * xrdma_ucontext_uncharge_kmem - undo xrdma_ucontext_charge_kmem()
 * @uctx: the context
 * @npages: as charged
 *
 * Safe from any process, as long as @uctx exists.
 */
void xrdma_ucontext_uncharge_kmem(struct xrdma_ucontext *uctx,
				  unsigned long npages)
{
	WARN_ON(atomic_long_sub_return(npages, &uctx->mem_pages) < 0);
}
EXPORT_SYMBOL_GPL(xrdma_ucontext_uncharge_kmem);

/**
 * xrdma_ucontext_uncharge - undo xrdma_ucontext_charge()
 * @uctx: the context
 * @npages: as charged
 *
 * Safe from any process, also after the creator has exited.
 */
void xrdma_ucontext_uncharge(struct xrdma_ucontext *uctx,
			     unsigned long npages)
{
	if (uctx->owner_mm)
		xrdma_pinned_uncharge(uctx->owner_mm, npages);
	xrdma_ucontext_uncharge_kmem(uctx, npages);
}
EXPORT_SYMBOL_GPL(xrdma_ucontext_uncharge);

/* Called with uctx->mmap_lock held. */
static void xrdma_mmap_entry_free_locked(struct xrdma_mmap_entry *entry)
{
	struct xrdma_ucontext *uctx = entry->ucontext;

	if (!entry->freed) {
		entry->freed = true;
		if (uctx->device && uctx->device->ops->mmap_free)
			uctx->device->ops->mmap_free(entry);
	}
}

static void xrdma_mmap_entry_release(struct kref *ref)
{
	struct xrdma_mmap_entry *entry =
		container_of(ref, struct xrdma_mmap_entry, ref);
	struct xrdma_ucontext *uctx = entry->ucontext;

	mutex_lock(&uctx->mmap_lock);
	xrdma_mmap_entry_free_locked(entry);
	list_del(&entry->list);
	mutex_unlock(&uctx->mmap_lock);
	kfree(entry);
}

/**
 * xrdma_mmap_entry_put - drop a reference to an mmap entry
 * @entry: the entry
 *
 * The last reference frees @entry, calling the driver's mmap_free first if
 * it has not been called yet.  May sleep.
 */
void xrdma_mmap_entry_put(struct xrdma_mmap_entry *entry)
{
	kref_put(&entry->ref, xrdma_mmap_entry_release);
}
EXPORT_SYMBOL_GPL(xrdma_mmap_entry_put);

/**
 * xrdma_mmap_entry_insert - hand out an mmap offset for driver memory
 * @uctx: the context that may map it
 * @length: bytes (rounded up to pages) a mapping may cover at most
 * @priv: the driver's, e.g. the memory to map
 *
 * Return: the entry (offset: xrdma_mmap_entry_offset()) or ERR_PTR.
 */
struct xrdma_mmap_entry *xrdma_mmap_entry_insert(struct xrdma_ucontext *uctx,
						 size_t length, void *priv)
{
	struct xrdma_mmap_entry *entry;
	u32 index;
	int ret;

	if (!length)
		return ERR_PTR(-EINVAL);
	entry = kzalloc(sizeof(*entry), GFP_KERNEL_ACCOUNT);
	if (!entry)
		return ERR_PTR(-ENOMEM);
	kref_init(&entry->ref);
	entry->ucontext = uctx;
	entry->npages = DIV_ROUND_UP(length, PAGE_SIZE);
	entry->priv = priv;
	/* page index 1..2^31: the offset fits a 32-bit off_t on 64-bit */
	ret = xa_alloc_cyclic(&uctx->mmap_xa, &index, entry,
			      XA_LIMIT(1, U32_MAX >> 1), &uctx->mmap_next,
			      GFP_KERNEL);
	if (ret < 0) {
		kfree(entry);
		return ERR_PTR(ret);
	}
	entry->pgoff = index;
	mutex_lock(&uctx->mmap_lock);
	list_add_tail(&entry->list, &uctx->mmap_entries);
	mutex_unlock(&uctx->mmap_lock);
	return entry;
}
EXPORT_SYMBOL_GPL(xrdma_mmap_entry_insert);

/**
 * xrdma_mmap_entry_remove - withdraw an mmap offset
 * @entry: from xrdma_mmap_entry_insert(), may be NULL
 *
 * New mmaps of the offset fail; the memory is freed once no VMA maps it.
 */
void xrdma_mmap_entry_remove(struct xrdma_mmap_entry *entry)
{
	if (!entry)
		return;
	xa_erase(&entry->ucontext->mmap_xa, entry->pgoff);
	xrdma_mmap_entry_put(entry);
}
EXPORT_SYMBOL_GPL(xrdma_mmap_entry_remove);

/**
 * xrdma_mmap_entry_get - find the entry a mmap call asks for
 * @uctx: context
 * @vma: the VMA being set up
 *
 * Return: the entry with a reference, or NULL if the offset was not handed
 * out by @uctx or the mapping is longer than the entry.
 */
struct xrdma_mmap_entry *xrdma_mmap_entry_get(struct xrdma_ucontext *uctx,
					      struct vm_area_struct *vma)
{
	unsigned long npages = vma_pages(vma);
	struct xrdma_mmap_entry *entry;

	if (vma->vm_pgoff > U32_MAX)
		return NULL;
	xa_lock(&uctx->mmap_xa);
	entry = xa_load(&uctx->mmap_xa, vma->vm_pgoff);
	if (entry && (npages > entry->npages ||
		      !kref_get_unless_zero(&entry->ref)))
		entry = NULL;
	xa_unlock(&uctx->mmap_xa);
	return entry;
}
EXPORT_SYMBOL_GPL(xrdma_mmap_entry_get);

static void xrdma_vm_open(struct vm_area_struct *vma)
{
	struct xrdma_umap *old = vma->vm_private_data, *umap;
	struct xrdma_ucontext *uctx;

	/*
	 * A split VMA, or one mremap() moves: track the new one too.  It
	 * cannot be left out: mremap() calls this before it moves the page
	 * table entries into @vma, so an untracked VMA would keep mapping
	 * the memory after the entry freed it (and a zap here would not
	 * help).  A few bytes, allocated whatever the memory cgroup's limit.
	 */
	vma->vm_private_data = NULL;
	if (!old)
		return;
	uctx = old->entry->ucontext;
	umap = kzalloc(sizeof(*umap), GFP_KERNEL_ACCOUNT | __GFP_NOFAIL);
	kref_get(&old->entry->ref);
	umap->entry = old->entry;
	umap->vma = vma;
	mutex_lock(&uctx->mmap_lock);
	list_add(&umap->list, &uctx->vmas);
	mutex_unlock(&uctx->mmap_lock);
	vma->vm_private_data = umap;
}

static void xrdma_vm_close(struct vm_area_struct *vma)
{
	struct xrdma_umap *umap = vma->vm_private_data;
	struct xrdma_ucontext *uctx;

	if (!umap)
		return;
	uctx = umap->entry->ucontext;
	mutex_lock(&uctx->mmap_lock);
	list_del(&umap->list);
	mutex_unlock(&uctx->mmap_lock);
	xrdma_mmap_entry_put(umap->entry);
	kfree(umap);
}

static const struct vm_operations_struct xrdma_vm_ops = {
	.open = xrdma_vm_open,
	.close = xrdma_vm_close,
};

/**
 * xrdma_user_mmap_pfn - map physically contiguous memory of an entry
 * @uctx: context
 * @vma: the VMA, at most entry->npages long
 * @pfn: first page frame
 * @prot: e.g. vma->vm_page_prot, or pgprot_noncached() for device memory
 * @entry: the entry from xrdma_mmap_entry_get(); on success the VMA takes
 *	   over that reference
 *
 * Return: 0, -EINVAL if @vma is longer than @entry, -ENOMEM, or the error
 * of remap_pfn_range().
 */
int xrdma_user_mmap_pfn(struct xrdma_ucontext *uctx,
			struct vm_area_struct *vma, unsigned long pfn,
			pgprot_t prot, struct xrdma_mmap_entry *entry)
{
	struct xrdma_umap *umap;
	int ret;

	if (vma_pages(vma) > entry->npages)
		return -EINVAL;
	umap = kzalloc(sizeof(*umap), GFP_KERNEL_ACCOUNT);
	if (!umap)
		return -ENOMEM;
	ret = remap_pfn_range(vma, vma->vm_start, pfn,
			      vma->vm_end - vma->vm_start, prot);
	if (ret) {
		kfree(umap);
		return ret;
	}
	umap->vma = vma;
	umap->entry = entry;
	vma->vm_private_data = umap;
	vma->vm_ops = &xrdma_vm_ops;
	mutex_lock(&uctx->mmap_lock);
	list_add(&umap->list, &uctx->vmas);
	mutex_unlock(&uctx->mmap_lock);
	return 0;
}
EXPORT_SYMBOL_GPL(xrdma_user_mmap_pfn);

/**
 * xrdma_ucontext_mmap - the mmap file operation, for uverbs
 * @uctx: context
 * @vma: new mapping
 *
 * Shared, never executable, not inherited, not growable.  Called with the
 * mm's mmap lock held.
 *
 * Return: 0, -EPERM for an executable mapping, -EINVAL for a private one,
 * -EIO once the context is being disassociated, or the driver's error.
 */
int xrdma_ucontext_mmap(struct xrdma_ucontext *uctx,
			struct vm_area_struct *vma)
{
	int ret;

	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	xrdma_vm_flags_mod(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP,
			   VM_MAYEXEC);
	down_read(&uctx->mmap_rwsem);
	if (uctx->dying)
		ret = -EIO;
	else
		ret = uctx->device->ops->mmap(uctx, vma);
	up_read(&uctx->mmap_rwsem);
	return ret;
}
EXPORT_SYMBOL_GPL(xrdma_ucontext_mmap);

/*
 * Zap the mappings of one mm; returns false when none are left.
 *
 * Under the mm's mmap lock for writing: munmap() clears a VMA's page
 * table entries, and frees the page tables of the range, with the lock
 * downgraded to read, and only then closes it (xrdma_vm_close() takes it
 * off uctx->vmas).  A zap under the read lock could run in between, on a
 * VMA already being unmapped: it walks page tables being freed, and it
 * untracks the PFN range (x86 PAT) and clears the entries, so munmap,
 * which saw the range still tracked, looks up an entry that is gone and
 * warns (untrack_pfn(): "WARNING ... memtype.c").  With the write lock a
 * munmap is either not started or finished, its VMA closed.
 */
static bool xrdma_zap_one_mm(struct xrdma_ucontext *uctx)
{
	struct xrdma_umap *umap, *tmp;
	struct mm_struct *mm = NULL;

	mutex_lock(&uctx->mmap_lock);
	while (!list_empty(&uctx->vmas)) {
		umap = list_first_entry(&uctx->vmas, struct xrdma_umap, list);
		mm = umap->vma->vm_mm;
		if (mmget_not_zero(mm))
			break;
		/* the mm is exiting: its VMAs go away by themselves */
		list_del_init(&umap->list);
		mm = NULL;
	}
	mutex_unlock(&uctx->mmap_lock);
	if (!mm)
		return false;

	mmap_write_lock(mm);
	mutex_lock(&uctx->mmap_lock);
	list_for_each_entry_safe(umap, tmp, &uctx->vmas, list) {
		if (umap->vma->vm_mm != mm)
			continue;
		zap_vma_ptes(umap->vma, umap->vma->vm_start,
			     umap->vma->vm_end - umap->vma->vm_start);
		list_del_init(&umap->list);
	}
	mutex_unlock(&uctx->mmap_lock);
	mmap_write_unlock(mm);
	mmput(mm);
	return true;
}

static void xrdma_ucontext_detach(struct xrdma_ucontext *uctx,
				  bool driver_state)
{
	struct xrdma_device *dev = uctx->device;
	struct xrdma_mmap_entry *entry;
	unsigned long index;

	if (uctx->disassociated)
		return;
	/* stop new mappings and wait for those being set up */
	down_write(&uctx->mmap_rwsem);
	uctx->dying = true;
	up_write(&uctx->mmap_rwsem);
	while (xrdma_zap_one_mm(uctx))
		;
	if (driver_state && dev->ops->dealloc_ucontext)
		dev->ops->dealloc_ucontext(uctx);

	/* offsets still handed out: withdraw them */
	xa_for_each(&uctx->mmap_xa, index, entry)
		xrdma_mmap_entry_remove(entry);
	/* entries only VMAs still hold: free the memory behind them now */
	mutex_lock(&uctx->mmap_lock);
	list_for_each_entry(entry, &uctx->mmap_entries, list)
		xrdma_mmap_entry_free_locked(entry);
	uctx->disassociated = true;
	mutex_unlock(&uctx->mmap_lock);
	/* from here on nothing touches the device: let it go */
	xrdma_user_uncharge(dev, XRDMA_ULIM_UCONTEXT, &uctx->charge);
	uctx->device = NULL;
	xrdma_device_put(dev);
}

/**
 * xrdma_ucontext_disassociate - detach a context from its driver
 * @uctx: context whose objects are all destroyed already
 *
 * Zaps every mapping, frees the memory of every mmap entry, releases the
 * driver's context state and the device reference, so the device may go
 * away while the process still holds the file.  Idempotent.
 */
void xrdma_ucontext_disassociate(struct xrdma_ucontext *uctx)
{
	xrdma_ucontext_detach(uctx, true);
}
EXPORT_SYMBOL_GPL(xrdma_ucontext_disassociate);

/**
 * xrdma_free_ucontext - free a context when its file is released
 * @uctx: a context with no mapping left (the file is being released);
 *	  disassociated here if it was not already
 */
void xrdma_free_ucontext(struct xrdma_ucontext *uctx)
{
	xrdma_ucontext_detach(uctx, true);
	WARN_ON(!list_empty(&uctx->mmap_entries));
	/* every charged page was freed and uncharged with its entry */
	WARN_ON(atomic_long_read(&uctx->mem_pages));
	if (uctx->owner_mm)
		mmdrop(uctx->owner_mm);
	xa_destroy(&uctx->mmap_xa);
	mutex_destroy(&uctx->mmap_lock);
	kfree(uctx);
}
EXPORT_SYMBOL_GPL(xrdma_free_ucontext);
