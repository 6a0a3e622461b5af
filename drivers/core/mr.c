// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions: DMA MRs, fast-registration MRs and user MRs, and their
 * keys.  A key is the MR's 24-bit index (allocated cyclically, so not
 * reused until the space wraps) shifted left by 8, plus an 8-bit tag
 * drawn from the kernel's CRNG for every registration; fast-reg MRs draw
 * a new tag, different from the current one, on every re-registration.
 * A stale key therefore does not reach a new MR, and the keys seen so far
 * do not tell the next tag.  The index itself is predictable.
 */
#include <linux/random.h>
#include <linux/slab.h>
#include <xrdma/xrdma_umem.h>
#include "core_priv.h"

/*
 * The key of a new MR: @index and a random tag (8 bits of entropy; a
 * guess of the key of a known index is right with probability 1/256).
 * Nothing remembers the tag the index had before: an index is reused
 * only after 2^24 allocations, and its new key then equals its old one
 * with probability 1/256.
 */
u32 xrdma_mr_make_key(struct xrdma_device *dev, u32 index)
{
	return index << 8 | get_random_u8();
}

/**
 * xrdma_mr_next_key - the key a fast-reg MR gets on its next registration
 * @key: current key
 *
 * Return: @key with a random tag byte, uniformly one of the 255 values
 * other than the current one (log2(255), about 7.99 bits of entropy);
 * the index is kept.
 */
u32 xrdma_mr_next_key(u32 key)
{
	return (key & 0xffffff00) |
	       ((key + 1 + get_random_u32_below(255)) & 0xff);
}
EXPORT_SYMBOL_GPL(xrdma_mr_next_key);

static struct xrdma_mr *xrdma_mr_alloc(struct xrdma_pd *pd,
				       enum xrdma_mr_type type, u32 access,
				       const char *caller)
{
	struct xrdma_device *dev = pd->device;
	struct xrdma_mr *mr;

	if (!xrdma_use_get(&pd->usecnt))
		return ERR_PTR(-EINVAL);
	mr = xrdma_obj_alloc(dev, dev->ops->size_mr, XRDMA_RES_MR, caller);
	if (IS_ERR(mr)) {
		xrdma_use_put(&pd->usecnt);
		return mr;
	}
	mr->device = dev;
	mr->pd = pd;
	mr->type = type;
	mr->access = access;
	mr->lkey = xrdma_mr_make_key(dev, mr->res.id);
	mr->rkey = mr->lkey;
	return mr;
}

static struct xrdma_mr *xrdma_mr_create_done(struct xrdma_mr *mr, int ret)
{
	struct xrdma_pd *pd = mr->pd;

	if (ret) {
		/* NULL if the driver kept the pages for its device */
		xrdma_umem_release(mr->umem);
		xrdma_obj_abort(&mr->res);
		xrdma_use_put(&pd->usecnt);
		return ERR_PTR(ret);
	}
	xrdma_res_commit(&mr->res);
	return mr;
}

/**
 * __xrdma_get_dma_mr - an MR for local access to all kernel memory
 * @pd: protection domain
 * @access: local rights only (XRDMA_ACCESS_LOCAL_WRITE or 0)
 * @caller: owner's module name
 *
 * The lkey covers every DMA address of the device.  Remote rights are
 * refused: a remotely usable key to all memory is not offered.
 *
 * Return: the MR, or an ERR_PTR: -EINVAL for rights other than local
 * write, or another negative errno.
 */
struct xrdma_mr *__xrdma_get_dma_mr(struct xrdma_pd *pd, u32 access,
				    const char *caller)
{
	struct xrdma_mr *mr;

	if (access & ~XRDMA_ACCESS_LOCAL_WRITE)
		return ERR_PTR(-EINVAL);
	mr = xrdma_mr_alloc(pd, XRDMA_MR_TYPE_DMA, access, caller);
	if (IS_ERR(mr))
		return mr;
	mr->length = U64_MAX;
	mr->rkey = 0;
	return xrdma_mr_create_done(mr, pd->device->ops->get_dma_mr(mr));
}
EXPORT_SYMBOL_GPL(__xrdma_get_dma_mr);

/**
 * __xrdma_alloc_mr - a fast-registration MR
 * @pd: protection domain
 * @max_num_sg: largest page list it will be mapped with
 * @caller: owner's module name
 *
 * The MR is invalid until a REG_MR work request registers the page list
 * built by xrdma_map_mr_sg().
 *
 * Return: the MR or ERR_PTR: -EOPNOTSUPP if the device has no memory
 * management extensions, -EINVAL.
 */
struct xrdma_mr *__xrdma_alloc_mr(struct xrdma_pd *pd, u32 max_num_sg,
				  const char *caller)
{
	struct xrdma_device *dev = pd->device;
	struct xrdma_mr *mr;

	if (!(dev->attr.device_cap_flags & XRDMA_DEVICE_MEM_MGT_EXTENSIONS) ||
	    !dev->ops->alloc_mr || !dev->ops->map_mr_sg)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > dev->attr.max_fast_reg_page_list_len)
		return ERR_PTR(-EINVAL);
	mr = xrdma_mr_alloc(pd, XRDMA_MR_TYPE_MEM_REG, 0, caller);
	if (IS_ERR(mr))
		return mr;
	mr->max_num_sg = max_num_sg;
	return xrdma_mr_create_done(mr, dev->ops->alloc_mr(mr, max_num_sg));
}
EXPORT_SYMBOL_GPL(__xrdma_alloc_mr);

/**
 * xrdma_map_mr_sg - build a fast-reg MR's page list from a DMA-mapped SG
 * @mr: a XRDMA_MR_TYPE_MEM_REG MR
 * @sg: DMA-mapped scatterlist
 * @sg_nents: entries in @sg
 * @sg_offset: byte offset into the first entry, may be NULL; on a partial
 *	       map, updated to where mapping stopped
 * @page_size: page size of the page list, a power of two the device
 *	       supports
 *
 * Sets mr->iova to the first mapped DMA address and mr->length.
 * Return: number of SG entries mapped, or a negative errno.
 */
int xrdma_map_mr_sg(struct xrdma_mr *mr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset, unsigned int page_size)
{
	if (mr->type != XRDMA_MR_TYPE_MEM_REG || sg_nents <= 0 ||
	    !is_power_of_2(page_size) ||
	    !(mr->device->attr.page_size_cap & page_size))
		return -EINVAL;
	mr->page_size = page_size;
	return mr->device->ops->map_mr_sg(mr, sg, sg_nents, sg_offset);
}
EXPORT_SYMBOL_GPL(xrdma_map_mr_sg);

/**
 * xrdma_sg_to_pages - split a DMA-mapped SG list into mr->page_size pages
 * @mr: MR with page_size set
 * @sgl: scatterlist
 * @sg_nents: entries
 * @sg_offset_p: offset into the first entry (may be NULL); updated to the
 *		 resume offset when the page list fills up mid-entry
 * @set_page: the driver's callback storing one page address; returns < 0
 *	      when the list is full
 *
 * For drivers' map_mr_sg.  Only the first entry may start and only the
 * last may end inside a page, unless consecutive entries are contiguous;
 * mapping stops before the first gap.
 *
 * Return: entries fully mapped, or the first error if none was.
 */
int xrdma_sg_to_pages(struct xrdma_mr *mr, struct scatterlist *sgl,
		      int sg_nents, unsigned int *sg_offset_p,
		      int (*set_page)(struct xrdma_mr *mr, u64 addr))
{
	u64 page_mask = ~((u64)mr->page_size - 1);
	unsigned int sg_offset = sg_offset_p ? *sg_offset_p : 0;
	u64 last_end = 0, last_page_off = 0;
	struct scatterlist *sg;
	int i, ret;

	if (!mr->page_size || sg_nents <= 0)
		return -EINVAL;
	if (sg_offset >= sg_dma_len(sgl))
		return -EINVAL;
	mr->iova = sg_dma_address(sgl) + sg_offset;
	mr->length = 0;

	for_each_sg(sgl, sg, sg_nents, i) {
		u64 dma_addr = sg_dma_address(sg) + sg_offset;
		u64 dma_len = sg_dma_len(sg) - sg_offset;
		u64 end = dma_addr + dma_len;
		u64 page_addr = dma_addr & page_mask;

		if (i && (last_page_off || page_addr != dma_addr)) {
			/* a gap ends the mapping */
			if (last_end != dma_addr)
				break;
			/* contiguous: the page holding dma_addr is set */
			page_addr += mr->page_size;
		}
		while (page_addr < end) {
			ret = set_page(mr, page_addr);
			if (ret < 0) {
				u64 stop = max(page_addr, dma_addr);

				mr->length += stop - dma_addr;
				if (sg_offset_p)
					*sg_offset_p = sg_offset +
						       (stop - dma_addr);
				return (i || stop > dma_addr) ? i : ret;
			}
			page_addr += mr->page_size;
		}
		mr->length += dma_len;
		last_end = end;
		last_page_off = end & ~page_mask;
		sg_offset = 0;
	}
	if (sg_offset_p)
		*sg_offset_p = 0;
	return i;
}
EXPORT_SYMBOL_GPL(xrdma_sg_to_pages);

/*
 * A user MR's wire range: @iova has @start's offset in the page (the
 * device maps whole pages) and [iova, iova + length) does not wrap.
 */
static bool xrdma_mr_range_ok(u64 start, u64 length, u64 iova)
{
	return (start & ~PAGE_MASK) == (iova & ~PAGE_MASK) &&
	       iova + length >= iova;
}

/*
 * The MR of a user or dmabuf registration over @umem (taken over: released
 * here on failure), registered in the device by @reg.
 */
static struct xrdma_mr *xrdma_mr_over_umem(struct xrdma_pd *pd,
					   struct xrdma_umem *umem,
					   u64 length, u64 iova, u32 access,
					   int (*reg)(struct xrdma_mr *mr,
						      struct xrdma_udata *udata),
					   struct xrdma_udata *udata)
{
	struct xrdma_mr *mr;

	mr = xrdma_mr_alloc(pd, XRDMA_MR_TYPE_USER, access, NULL);
	if (IS_ERR(mr)) {
		xrdma_umem_release(umem);
		return mr;
	}
	mr->umem = umem;
	mr->iova = iova;
	mr->length = length;
	return xrdma_mr_create_done(mr, reg(mr, udata));
}

/**
 * xrdma_reg_user_mr - register memory of the current process
 * @pd: protection domain
 * @start: user virtual address
 * @length: bytes
 * @iova: address the MR is known by on the wire; same offset in the page
 *	  as @start
 * @access: XRDMA_ACCESS_* flags
 * @udata: driver data from uverbs
 *
 * Pins the pages (see xrdma_umem_get()).  Owned by the current process.
 *
 * Return: the MR, or an ERR_PTR: -EOPNOTSUPP, -EINVAL for bad rights or a
 * mismatched @iova, or another negative errno (pinning, driver).
 */
struct xrdma_mr *xrdma_reg_user_mr(struct xrdma_pd *pd, u64 start, u64 length,
				   u64 iova, u32 access,
				   struct xrdma_udata *udata)
{
	struct xrdma_device *dev = pd->device;
	struct xrdma_umem *umem;
	int ret;

	if (!dev->ops->reg_user_mr)
		return ERR_PTR(-EOPNOTSUPP);
	ret = xrdma_check_mr_access(access) ?:
	      xrdma_check_flush_access(dev, access);
	if (ret)
		return ERR_PTR(ret);
	if (!xrdma_mr_range_ok(start, length, iova))
		return ERR_PTR(-EINVAL);
	umem = xrdma_umem_get(dev, start, length, access);
	if (IS_ERR(umem))
		return ERR_CAST(umem);
	return xrdma_mr_over_umem(pd, umem, length, iova, access,
				  dev->ops->reg_user_mr, udata);
}
EXPORT_SYMBOL_GPL(xrdma_reg_user_mr);

/**
 * xrdma_reg_user_mr_dmabuf - register a range of a dmabuf
 * @pd: protection domain
 * @offset: first byte in the dmabuf
 * @length: bytes
 * @iova: address the MR is known by on the wire; same offset in the page
 *	  as @offset
 * @fd: the dmabuf's file descriptor in the current process
 * @access: XRDMA_ACCESS_* flags
 * @udata: driver data from uverbs
 *
 * The dmabuf stays attached to the device (see xrdma_umem_dmabuf_get())
 * until the MR is deregistered; closing @fd does not end the MR.
 *
 * Return: the MR, or an ERR_PTR: -EOPNOTSUPP (the device has no dmabuf
 * MRs), -EINVAL (bad rights, @iova's page offset, range outside the
 * dmabuf, @fd not a dmabuf), -EBADF, or another negative errno.
 */
struct xrdma_mr *xrdma_reg_user_mr_dmabuf(struct xrdma_pd *pd, u64 offset,
					  u64 length, u64 iova, int fd,
					  u32 access,
					  struct xrdma_udata *udata)
{
	struct xrdma_device *dev = pd->device;
	struct xrdma_umem *umem;
	int ret;

	if (!dev->ops->reg_user_mr_dmabuf || !dev->dma_device)
		return ERR_PTR(-EOPNOTSUPP);
	ret = xrdma_check_mr_access(access) ?:
	      xrdma_check_flush_access(dev, access);
	if (ret)
		return ERR_PTR(ret);
	if (!xrdma_mr_range_ok(offset, length, iova))
		return ERR_PTR(-EINVAL);
	umem = xrdma_umem_dmabuf_get(dev, offset, length, fd, access);
	if (IS_ERR(umem))
		return ERR_CAST(umem);
	return xrdma_mr_over_umem(pd, umem, length, iova, access,
				  dev->ops->reg_user_mr_dmabuf, udata);
}
EXPORT_SYMBOL_GPL(xrdma_reg_user_mr_dmabuf);

/**
 * xrdma_dereg_mr - deregister an MR
 * @mr: the MR
 *
 * Has the driver deregister it, then waits until no lookup by key still
 * uses @mr.  User pages are unpinned only once the device let go of
 * them: if the driver reports that the device may still reach them (its
 * command failed or timed out), the driver keeps them until the device is
 * reset.  The MR is gone either way, unless memory windows are bound to
 * it: then the device refuses and nothing changes (as rxe refuses).
 *
 * Return: 0, or -EBUSY while memory windows are bound to @mr.
 */
int xrdma_dereg_mr(struct xrdma_mr *mr)
{
	struct xrdma_pd *pd = mr->pd;
	int ret;

	/* lookups by key only read the core's MR: they may overlap this */
	ret = mr->device->ops->dereg_mr(mr);
	if (ret == -EAGAIN)
		return -EBUSY;
	xrdma_res_remove(&mr->res);
	if (ret && mr->umem) {
		/* never unpin what the device may still use: leak it */
		dev_err(&mr->device->dev,
			"dereg_mr: %d but the pages of MR 0x%x were not taken: leaking them\n",
			ret, mr->lkey);
		mr->umem = NULL;
	}
	xrdma_umem_release(mr->umem);
	if (mr->dm)
		xrdma_use_put(&mr->dm->usecnt);
	xrdma_obj_free(&mr->res);
	xrdma_use_put(&pd->usecnt);
	return 0;
}
EXPORT_SYMBOL_GPL(xrdma_dereg_mr);

static bool xrdma_mr_access_writable(u32 access)
{
	return access & (XRDMA_ACCESS_LOCAL_WRITE | XRDMA_ACCESS_REMOTE_WRITE |
			 XRDMA_ACCESS_REMOTE_ATOMIC);
}

/**
 * xrdma_rereg_user_mr - re-register a user MR in place
 * @mr: a user MR of the current process, not in use by another call
 * @flags: XRDMA_MR_REREG_* that change (at least one)
 * @start: with XRDMA_MR_REREG_TRANS, the new user virtual address
 * @length: with XRDMA_MR_REREG_TRANS, the new length
 * @iova: with XRDMA_MR_REREG_TRANS, the new wire address (same offset in
 *	  the page as @start)
 * @access: with XRDMA_MR_REREG_ACCESS, the new XRDMA_ACCESS_* rights
 * @pd: with XRDMA_MR_REREG_PD, the new PD (of the same device)
 *
 * Everything that can fail for lack of memory or bad input fails before
 * the device is asked: new pages are pinned first (the old range again
 * when new rights need writable pages the old pin did not make).  On
 * success after a new translation the MR has new keys (its index and a
 * new tag, as fast-reg MRs on re-registration): the old keys no longer
 * reach it.  A change of rights or PD alone keeps the keys, as mlx5 (UMR
 * in place) and rxe do, and applications rely on (they need not exchange
 * keys again): the same key then carries the new rights or PD only.
 * Either way operations that found the MR before the change are over
 * before the call returns (the driver orders the change with the device's
 * engine as a deregistration), so none uses the old rights afterwards.
 *
 * Return: 0, or a negative errno: -EINVAL (no flag, not a user MR, bad
 * rights or addresses), -EOPNOTSUPP (unknown flag, no driver support),
 * -EFAULT/-ENOMEM (pinning), or the driver's error (-EBUSY e.g. while
 * memory windows are bound); @mr is unchanged then, though it may reach
 * no memory (see rereg_user_mr in struct xrdma_device_ops).
 */
int xrdma_rereg_user_mr(struct xrdma_mr *mr, u32 flags, u64 start,
			u64 length, u64 iova, u32 access,
			struct xrdma_pd *pd)
{
	struct xrdma_device *dev = mr->device;
	struct xrdma_umem *old;
	/* the caller's: a re-pin for write rights keeps the keys too */
	bool new_key = flags & XRDMA_MR_REREG_TRANS;
	struct xrdma_mr_rereg rr = {
		.flags = flags,
		.pd = mr->pd,
		.access = mr->access,
		.iova = mr->iova,
		.length = mr->length,
	};
	int ret;

	if (!flags)
		return -EINVAL;
	if (flags & ~XRDMA_MR_REREG_ALL)
		return -EOPNOTSUPP;
	/* a dmabuf MR cannot be re-registered, as rdma-core refuses it */
	if (mr->type != XRDMA_MR_TYPE_USER || !mr->umem ||
	    mr->umem->dmabuf_attach)
		return -EINVAL;
	if (!dev->ops->rereg_user_mr)
		return -EOPNOTSUPP;
	if (flags & XRDMA_MR_REREG_ACCESS) {
		ret = xrdma_check_mr_access(access) ?:
		      xrdma_check_flush_access(dev, access);
		if (ret)
			return ret;
		rr.access = access;
	}
	if (flags & XRDMA_MR_REREG_TRANS) {
		if (!xrdma_mr_range_ok(start, length, iova))
			return -EINVAL;
		rr.iova = iova;
		rr.length = length;
	} else if (xrdma_mr_access_writable(rr.access) &&
		   !mr->umem->writable) {
		/* the pages were pinned read-only: pin them for write */
		flags |= XRDMA_MR_REREG_TRANS;
		start = mr->umem->address;
	}
	if ((flags & XRDMA_MR_REREG_PD) && pd == mr->pd)
		flags &= ~XRDMA_MR_REREG_PD;
	if (flags & XRDMA_MR_REREG_PD) {
		if (pd->device != dev)
			return -EINVAL;
		if (!xrdma_use_get(&pd->usecnt))
			return -EINVAL;
		rr.pd = pd;
	}
	if (flags & XRDMA_MR_REREG_TRANS) {
		rr.umem = xrdma_umem_get(dev, start, rr.length, rr.access);
		if (IS_ERR(rr.umem)) {
			ret = PTR_ERR(rr.umem);
			rr.umem = NULL;
			goto err;
		}
	}
	rr.flags = flags;
	rr.key = new_key ? xrdma_mr_next_key(mr->lkey) : mr->lkey;
	ret = dev->ops->rereg_user_mr(mr, &rr);
	if (ret)
		goto err;

	if (flags & XRDMA_MR_REREG_PD) {
		xrdma_use_put(&mr->pd->usecnt);
		mr->pd = rr.pd;
	}
	old = NULL;
	if (rr.umem) {
		old = mr->umem;
		mr->umem = rr.umem;
	}
	mr->access = rr.access;
	mr->iova = rr.iova;
	mr->length = rr.length;
	WRITE_ONCE(mr->lkey, rr.key);
	WRITE_ONCE(mr->rkey, rr.key);
	xrdma_umem_release(old);
	return 0;

err:
	/* NULL if the driver kept the pages for its device */
	xrdma_umem_release(rr.umem);
	if (flags & XRDMA_MR_REREG_PD)
		xrdma_use_put(&pd->usecnt);
	return ret;
}
EXPORT_SYMBOL_GPL(xrdma_rereg_user_mr);

/**
 * __xrdma_alloc_mw - a memory window
 * @pd: protection domain
 * @type: XRDMA_MW_TYPE_1, or XRDMA_MW_TYPE_2 (type 2B)
 * @udata: driver data from uverbs, NULL for a kernel caller
 * @caller: owner's module name (NULL: the current process)
 *
 * The window is unbound; its rkey's index (in the upper half of the key
 * index space, the MRs' being the lower one) stays for its life.
 *
 * Return: the window, or an ERR_PTR: -EOPNOTSUPP (the device has no
 * windows, or not of @type), -EINVAL, or another negative errno.
 */
struct xrdma_mw *__xrdma_alloc_mw(struct xrdma_pd *pd, enum xrdma_mw_type type,
				  struct xrdma_udata *udata,
				  const char *caller)
{
	struct xrdma_device *dev = pd->device;
	u32 caps = dev->attr.device_cap_flags;
	struct xrdma_mw *mw;
	int ret;

	if (type != XRDMA_MW_TYPE_1 && type != XRDMA_MW_TYPE_2)
		return ERR_PTR(-EINVAL);
	if (!dev->ops->alloc_mw || !(caps & XRDMA_DEVICE_MEM_WINDOW) ||
	    (type == XRDMA_MW_TYPE_2 &&
	     !(caps & XRDMA_DEVICE_MEM_WINDOW_TYPE_2B)))
		return ERR_PTR(-EOPNOTSUPP);
	if (!xrdma_use_get(&pd->usecnt))
		return ERR_PTR(-EINVAL);
	mw = xrdma_obj_alloc(dev, dev->ops->size_mw, XRDMA_RES_MW, caller);
	if (IS_ERR(mw)) {
		xrdma_use_put(&pd->usecnt);
		return mw;
	}
	mw->device = dev;
	mw->pd = pd;
	mw->type = type;
	mw->rkey = xrdma_mr_make_key(dev, XRDMA_MW_INDEX_BASE | mw->res.id);
	ret = dev->ops->alloc_mw(mw, udata);
	if (ret) {
		xrdma_obj_abort(&mw->res);
		xrdma_use_put(&pd->usecnt);
		return ERR_PTR(ret);
	}
	xrdma_res_commit(&mw->res);
	return mw;
}
EXPORT_SYMBOL_GPL(__xrdma_alloc_mw);

/**
 * xrdma_dealloc_mw - free a memory window
 * @mw: the window; a bound one is unbound first (its MR may then be
 *	deregistered)
 *
 * Return: 0.
 */
int xrdma_dealloc_mw(struct xrdma_mw *mw)
{
	struct xrdma_pd *pd = mw->pd;

	xrdma_res_remove(&mw->res);
	mw->device->ops->dealloc_mw(mw);
	xrdma_obj_free(&mw->res);
	xrdma_use_put(&pd->usecnt);
	return 0;
}
EXPORT_SYMBOL_GPL(xrdma_dealloc_mw);

/**
 * xrdma_reg_dm_mr - register device memory
 * @pd: protection domain
 * @dm: device memory of @pd's device
 * @offset: first byte of @dm
 * @length: bytes
 * @access: XRDMA_ACCESS_* flags
 *
 * The MR is zero-based: its addresses are 0..@length - 1 (byte @offset of
 * @dm is address 0), locally and remotely.  It holds a use of @dm until it
 * is deregistered.
 *
 * Return: the MR, or an ERR_PTR: -EOPNOTSUPP, -EINVAL for bad rights, a
 * range outside @dm or a DM of another device, or another negative errno.
 */
struct xrdma_mr *xrdma_reg_dm_mr(struct xrdma_pd *pd, struct xrdma_dm *dm,
				 u64 offset, u64 length, u32 access)
{
	struct xrdma_device *dev = pd->device;
	struct xrdma_mr *mr;
	int ret;

	if (!dev->ops->reg_dm_mr)
		return ERR_PTR(-EOPNOTSUPP);
	ret = xrdma_check_mr_access(access) ?:
	      xrdma_check_flush_access(dev, access);
	if (ret)
		return ERR_PTR(ret);
	if (dm->device != dev || offset > dm->length ||
	    length > dm->length - offset)
		return ERR_PTR(-EINVAL);
	if (!xrdma_use_get(&dm->usecnt))
		return ERR_PTR(-EINVAL);
	mr = xrdma_mr_alloc(pd, XRDMA_MR_TYPE_USER, access, NULL);
	if (IS_ERR(mr)) {
		xrdma_use_put(&dm->usecnt);
		return mr;
	}
	mr->iova = 0;
	mr->length = length;
	mr->dm = dm;
	mr = xrdma_mr_create_done(mr, dev->ops->reg_dm_mr(mr, dm, offset));
	if (IS_ERR(mr))
		xrdma_use_put(&dm->usecnt);
	return mr;
}
EXPORT_SYMBOL_GPL(xrdma_reg_dm_mr);
