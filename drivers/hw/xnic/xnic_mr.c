// SPDX-License-Identifier: GPL-2.0
/*
 * xnic: the memory registration verbs: MRs (DMA, fast-registration, user
 * memory and dma-buf, rereg, on device memory), their translation tables
 * and page accounting, and memory windows.  Device memory itself (alloc_dm)
 * is xnic_mem.c's.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <xrdma/xrdma_umem.h>
#include "xnic.h"

/* ------------------------------------------------------------------ */
/* MR                                                                  */

/* An MR's rights in the device: the remote ones and MW_BIND. */
static u32 xnic_mr_access_to_hw(u32 access)
{
	return xnic_access_to_hw(access) |
	       (access & XRDMA_ACCESS_MW_BIND ? XNIC_ACCESS_MW_BIND : 0);
}

static void xnic_reg_mr_fill(struct xrdma_mr *mr, struct xnic_cmd_reg_mr *c,
			     u32 flags)
{
	struct xnic_mr *xmr = to_xmr(mr);

	c->key = cpu_to_le32(mr->lkey);
	c->pdn = cpu_to_le32(mr->pd->res.id);
	c->access = cpu_to_le32(xnic_mr_access_to_hw(mr->access));
	c->flags = cpu_to_le32(flags);
	c->iova = cpu_to_le64(mr->iova);
	c->length = cpu_to_le64(mr->length);
	c->mtt_addr = cpu_to_le64(xmr->mtt.cpu ? xmr->mtt.dma : 0);
	c->npages = cpu_to_le32(xmr->npages);
	c->page_shift = xmr->page_shift;
}

static int xnic_reg_mr_cmd(struct xnic_dev *xdev, struct xrdma_mr *mr,
			   u32 flags)
{
	struct xnic_cmd_reg_mr c = {};
	int ret;

	xnic_reg_mr_fill(mr, &c, flags);
	ret = xnic_cmd_exec(xdev, XNIC_CMD_REG_MR, &c, sizeof(c), NULL, 0);
	to_xmr(mr)->in_device = !ret;
	return ret;
}

int xnic_get_dma_mr(struct xrdma_mr *mr)
{
	struct xnic_dev *xdev = to_xdev(mr->device);

	to_xmr(mr)->page_shift = PAGE_SHIFT;
	return xnic_reg_mr_cmd(xdev, mr, XNIC_MR_F_ALL);
}

int xnic_alloc_mr(struct xrdma_mr *mr, u32 max_num_sg)
{
	struct xnic_dev *xdev = to_xdev(mr->device);
	struct xnic_mr *xmr = to_xmr(mr);
	int ret;

	ret = xnic_dma_alloc(xdev, &xmr->mtt, max_num_sg * sizeof(__le64));
	if (ret)
		return ret;
	xmr->mtt_max = max_num_sg;
	xmr->npages = max_num_sg;	/* the MTT the device reserves */
	xmr->page_shift = PAGE_SHIFT;
	ret = xnic_reg_mr_cmd(xdev, mr, XNIC_MR_F_FREG);
	xmr->npages = 0;
	if (ret)
		xnic_dma_free(xdev, &xmr->mtt, xnic_cmd_let_go(xdev, ret));
	return ret;
}

static int xnic_set_page(struct xrdma_mr *mr, u64 addr)
{
	struct xnic_mr *xmr = to_xmr(mr);
	__le64 *mtt = xmr->mtt.cpu;

	if (xmr->npages >= xmr->mtt_max)
		return -ENOMEM;
	mtt[xmr->npages++] = cpu_to_le64(addr);
	return 0;
}

int xnic_map_mr_sg(struct xrdma_mr *mr, struct scatterlist *sg,
		   int sg_nents, unsigned int *sg_offset)
{
	struct xnic_mr *xmr = to_xmr(mr);

	xmr->npages = 0;
	xmr->page_shift = ilog2(mr->page_size);
	return xrdma_sg_to_pages(mr, sg, sg_nents, sg_offset, xnic_set_page);
}

/*
 * The MTT of a dmabuf's range: the pages covering umem->address..+length
 * of the dmabuf's DMA mapping (made by the core for our DMA device), whose
 * segments must be whole pages.
 */
static int xnic_dmabuf_mtt(struct xrdma_umem *umem, __le64 *ent)
{
	u64 first = umem->address >> PAGE_SHIFT, pg = 0;
	struct scatterlist *sg;
	u32 n = 0;
	int i;

	for_each_sgtable_dma_sg(umem->dmabuf_sgt, sg, i) {
		u64 addr = sg_dma_address(sg), len = sg_dma_len(sg), o;

		if ((addr | len) & ~PAGE_MASK)
			return -EINVAL;
		for (o = 0; o < len && n < umem->npages; o += PAGE_SIZE, pg++)
			if (pg >= first)
				ent[n++] = cpu_to_le64(addr + o);
	}
	return n == umem->npages ? 0 : -EINVAL;
}

/*
 * DMA-map @umem (a dmabuf's is mapped already) and build its MTT in @mtt
 * (one entry per page).  Undo with xnic_umem_unmap().
 */
static int xnic_umem_map(struct xnic_dev *xdev, struct xrdma_umem *umem,
			 struct xnic_dmabuf *mtt)
{
	bool dmabuf = umem->dmabuf_attach;
	struct scatterlist *sg;
	__le64 *ent;
	u32 n = 0;
	int ret, i;

	if (!umem->npages || umem->npages > U32_MAX / sizeof(__le64))
		return -EINVAL;
	if (!dmabuf) {
		ret = dma_map_sgtable(xdev->dma_dev, &umem->sgt,
				      DMA_BIDIRECTIONAL, XNIC_UMEM_DMA_ATTRS);
		if (ret)
			return ret;
	}
	/* on behalf of the process: charged to its memory cgroup */
	ret = xnic_dma_alloc_gfp(xdev, mtt, umem->npages * sizeof(__le64),
				 GFP_KERNEL_ACCOUNT);
	if (ret)
		goto err_unmap;
	ent = mtt->cpu;
	if (dmabuf) {
		ret = xnic_dmabuf_mtt(umem, ent);
		if (!ret)
			return 0;
		goto err_mtt;
	}
	/* DMA address of every page; only the first segment starts inside */
	for_each_sgtable_dma_sg(&umem->sgt, sg, i) {
		u64 addr = ALIGN_DOWN(sg_dma_address(sg), PAGE_SIZE);
		u64 end = sg_dma_address(sg) + sg_dma_len(sg);

		for (; addr < end && n < umem->npages; addr += PAGE_SIZE)
			ent[n++] = cpu_to_le64(addr);
	}
	if (n == umem->npages)
		return 0;
	ret = -EINVAL;
err_mtt:
	xnic_dma_free(xdev, mtt, true);
err_unmap:
	if (!dmabuf)
		dma_unmap_sgtable(xdev->dma_dev, &umem->sgt,
				  DMA_BIDIRECTIONAL, XNIC_UMEM_DMA_ATTRS);
	return ret;
}

/*
 * Undo xnic_umem_map() after a command that failed with @ret: if the
 * device may still execute it, keep the pages and the MTT for it.
 *
 * Return: true if @umem was released to the caller, false if it was
 * taken over (xnic_umem_keep()).
 */
static bool xnic_umem_unmap(struct xnic_dev *xdev, struct xrdma_umem *umem,
			    struct xnic_dmabuf *mtt, int ret)
{
	bool let_go = xnic_cmd_let_go(xdev, ret);
	bool mapped = !umem->dmabuf_attach;

	xnic_dma_free(xdev, mtt, let_go);
	if (!let_go) {
		/* the device may execute the REG_MR yet: keep the pages */
		xnic_umem_keep(xdev, umem, mapped);
		return false;
	}
	if (mapped)
		dma_unmap_sgtable(xdev->dma_dev, &umem->sgt, DMA_BIDIRECTIONAL,
				  XNIC_UMEM_DMA_ATTRS);
	return true;
}

/*
 * Kernel memory a dmabuf MR holds, in pages: its MTT (one power-of-two
 * DMA allocation), the device's copy of it (the model keeps one of the
 * same size, allocated by its engine thread: not in the process's memory
 * cgroup), and the exporter's scatterlist of the whole dmabuf mapped for
 * the device (allocated by the exporter with GFP_KERNEL).  A user MR over
 * process memory needs no such charge: its MTT is 1/512 of the pages it
 * pins, which RLIMIT_MEMLOCK bounds; a dmabuf's pages are not counted
 * there, so this charge to the context's max_ucontext_mem cap is what
 * bounds how many a process registers.
 */
static unsigned long xnic_dmabuf_mr_pages(const struct xrdma_umem *umem)
{
	size_t sg = umem->dmabuf_sgt->orig_nents * sizeof(struct scatterlist) +
		    sizeof(struct sg_table);

	return (2UL << get_order(umem->npages * sizeof(__le64))) +
	       DIV_ROUND_UP(sg, PAGE_SIZE);
}

/* Undo the charge of a dmabuf MR (all of it: the MR is gone) */
static void xnic_mr_uncharge(struct xnic_mr *xmr)
{
	if (!xmr->kmem_uctx)
		return;
	xrdma_ucontext_uncharge_kmem(xmr->kmem_uctx, xmr->kmem_pages);
	xmr->kmem_uctx = NULL;
	xmr->kmem_pages = 0;
}

int xnic_reg_user_mr(struct xrdma_mr *mr, struct xrdma_udata *udata)
{
	struct xnic_dev *xdev = to_xdev(mr->device);
	struct xnic_mr *xmr = to_xmr(mr);
	struct xrdma_umem *umem = mr->umem;
	int ret;

	if (umem->dmabuf_attach) {
		if (!udata || !udata->uctx)
			return -EINVAL;
		xmr->kmem_pages = xnic_dmabuf_mr_pages(umem);
		ret = xrdma_ucontext_charge_kmem(udata->uctx,
						 xmr->kmem_pages);
		if (ret)
			return ret;
		xmr->kmem_uctx = udata->uctx;
	}
	ret = xnic_umem_map(xdev, umem, &xmr->mtt);
	if (ret) {
		xnic_mr_uncharge(xmr);
		return ret;
	}
	xmr->mtt_max = umem->npages;
	xmr->npages = umem->npages;
	xmr->page_shift = PAGE_SHIFT;
	ret = xnic_reg_mr_cmd(xdev, mr, 0);
	if (!ret) {
		/* a dmabuf's mapping is the core's */
		xmr->sgt_mapped = !umem->dmabuf_attach;
		return 0;
	}
	if (!xnic_umem_unmap(xdev, umem, &xmr->mtt, ret))
		mr->umem = NULL;
	/* a kept MTT stays in the memory cgroup until the reset frees it */
	xnic_mr_uncharge(xmr);
	return ret;
}

/*
 * Re-registration: DEREG_MR of the old key, then REG_MR of the new one
 * (same index).  Between the two no key reaches the MR: an operation
 * that looks it up then fails with an access error, as after a dereg;
 * one that found it under the old key completed before DEREG_MR did.
 * If DEREG_MR fails nothing changed; if REG_MR fails the MR stays out of
 * the device (in_device false) until a later rereg registers it again,
 * and dereg has no command to send.
 */
int xnic_rereg_user_mr(struct xrdma_mr *mr, struct xrdma_mr_rereg *rr)
{
	struct xnic_dev *xdev = to_xdev(mr->device);
	struct xnic_mr *xmr = to_xmr(mr);
	struct xnic_dmabuf mtt = {};
	struct xnic_cmd_reg_mr c = {};
	int ret;

	if (rr->umem) {
		ret = xnic_umem_map(xdev, rr->umem, &mtt);
		if (ret)
			return ret;
	}
	if (xmr->in_device) {
		struct xnic_cmd_dereg_mr d = { .key = cpu_to_le32(mr->lkey) };

		ret = xnic_cmd_exec(xdev, XNIC_CMD_DEREG_MR, &d, sizeof(d),
				    NULL, 0);
		if (ret) {
			/* the device never saw the new MTT */
			if (rr->umem)
				xnic_umem_unmap(xdev, rr->umem, &mtt, 0);
			return ret;
		}
		xmr->in_device = false;
	}
	xnic_reg_mr_fill(mr, &c, 0);
	c.key = cpu_to_le32(rr->key);
	c.pdn = cpu_to_le32(rr->pd->res.id);
	c.access = cpu_to_le32(xnic_mr_access_to_hw(rr->access));
	c.iova = cpu_to_le64(rr->iova);
	c.length = cpu_to_le64(rr->length);
	if (rr->umem) {
		c.mtt_addr = cpu_to_le64(mtt.dma);
		c.npages = cpu_to_le32(rr->umem->npages);
		c.page_shift = PAGE_SHIFT;
	}
	ret = xnic_cmd_exec(xdev, XNIC_CMD_REG_MR, &c, sizeof(c), NULL, 0);
	if (ret) {
		dev_warn(&xdev->pdev->dev, "rereg: REG_MR 0x%x: %d\n",
			 rr->key, ret);
		if (rr->umem && !xnic_umem_unmap(xdev, rr->umem, &mtt, ret))
			rr->umem = NULL;
		return ret;
	}
	xmr->in_device = true;
	if (rr->umem) {
		/* DEREG_MR succeeded: the device let go of the old pages */
		xnic_dma_free(xdev, &xmr->mtt, true);
		if (xmr->sgt_mapped)
			dma_unmap_sgtable(xdev->dma_dev, &mr->umem->sgt,
					  DMA_BIDIRECTIONAL,
					  XNIC_UMEM_DMA_ATTRS);
		xmr->mtt = mtt;
		xmr->mtt_max = rr->umem->npages;
		xmr->npages = rr->umem->npages;
		xmr->sgt_mapped = true;
	}
	return 0;
}

/*
 * Return: 0 when the device let go of the MR (the core unpins its pages),
 * -EAGAIN when the device refused because memory windows are bound to it
 * (nothing changed), or -EBUSY when it may still use it: then a user
 * MR's pages are kept until the device is reset (xnic_umem_keep()).
 */
int xnic_dereg_mr(struct xrdma_mr *mr)
{
	struct xnic_dev *xdev = to_xdev(mr->device);
	struct xnic_mr *xmr = to_xmr(mr);
	struct xnic_cmd_dereg_mr c = { .key = cpu_to_le32(mr->lkey) };
	bool let_go;
	int ret;

	/* not in the device after a failed rereg */
	ret = xmr->in_device ? xnic_cmd_exec(xdev, XNIC_CMD_DEREG_MR, &c,
					     sizeof(c), NULL, 0) : 0;
	if (ret == -EBUSY)	/* XNIC_CMD_BUSY: windows are bound */
		return -EAGAIN;
	if (ret)
		dev_warn(&xdev->pdev->dev, "DEREG_MR 0x%x: %d\n", mr->lkey, ret);
	let_go = xnic_cmd_let_go(xdev, ret);
	xnic_dma_free(xdev, &xmr->mtt, let_go);
	/*
	 * The MR is gone for the context either way; a kept MTT is charged
	 * to nobody but the memory cgroup until the reset frees it, as a
	 * kept queue (xnic_ubuf_free()).
	 */
	xnic_mr_uncharge(xmr);
	if (!let_go) {
		if (mr->umem) {
			xnic_umem_keep(xdev, mr->umem, xmr->sgt_mapped);
			mr->umem = NULL;
		}
		xmr->sgt_mapped = false;
		return -EBUSY;
	}
	if (xmr->sgt_mapped) {
		dma_unmap_sgtable(xdev->dma_dev, &mr->umem->sgt,
				  DMA_BIDIRECTIONAL, XNIC_UMEM_DMA_ATTRS);
		xmr->sgt_mapped = false;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Memory windows and device memory MRs                                */

/* Memory windows: entries of the device's key table (ALLOC_MW). */
int xnic_alloc_mw(struct xrdma_mw *mw, struct xrdma_udata *udata)
{
	struct xnic_dev *xdev = to_xdev(mw->device);
	struct xnic_cmd_alloc_mw c = {
		.key = cpu_to_le32(mw->rkey),
		.pdn = cpu_to_le32(mw->pd->res.id),
		.type = mw->type == XRDMA_MW_TYPE_1 ? XNIC_MW_TYPE_1 :
						      XNIC_MW_TYPE_2,
	};

	return xnic_cmd_exec(xdev, XNIC_CMD_ALLOC_MW, &c, sizeof(c), NULL, 0);
}

/*
 * A window holds no memory of its own: whatever DEALLOC_MW answers, there
 * is nothing to keep for the device (the MR it may be bound to is the
 * MR's business).
 */
int xnic_dealloc_mw(struct xrdma_mw *mw)
{
	struct xnic_dev *xdev = to_xdev(mw->device);
	struct xnic_cmd_dereg_mr c = { .key = cpu_to_le32(mw->rkey) };
	int ret;

	ret = xnic_cmd_exec(xdev, XNIC_CMD_DEALLOC_MW, &c, sizeof(c), NULL, 0);
	if (ret)
		dev_warn(&xdev->pdev->dev, "DEALLOC_MW 0x%x: %d\n", mw->rkey,
			 ret);
	return 0;
}

/* [offset, offset + mr->length) of @dm as [0, mr->length): XNIC_MR_F_DM */
int xnic_reg_dm_mr(struct xrdma_mr *mr, struct xrdma_dm *dm,
		   u64 offset)
{
	struct xnic_dm *xdm = container_of(dm, struct xnic_dm, ibdm);
	struct xnic_cmd_reg_mr c = {};
	int ret;

	c.key = cpu_to_le32(mr->lkey);
	c.pdn = cpu_to_le32(mr->pd->res.id);
	c.access = cpu_to_le32(xnic_mr_access_to_hw(mr->access));
	c.flags = cpu_to_le32(XNIC_MR_F_DM);
	c.iova = cpu_to_le64(mr->iova);
	c.length = cpu_to_le64(mr->length);
	c.mtt_addr = cpu_to_le64(((u64)xdm->first << PAGE_SHIFT) + offset);
	ret = xnic_cmd_exec(to_xdev(mr->device), XNIC_CMD_REG_MR, &c,
			    sizeof(c), NULL, 0);
	/* else xnic_dereg_mr() never tells the device to let go of it */
	to_xmr(mr)->in_device = !ret;
	return ret;
}

