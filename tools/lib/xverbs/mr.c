// SPDX-License-Identifier: GPL-2.0
/*
 * xverbs: re-registration of MRs (ibv_rereg_mr) and dmabuf MRs
 * (ibv_reg_dmabuf_mr), with rdma-core 44's checks and return codes
 * (libibverbs/verbs.c, the mlx5 provider's rereg_mr and reg_dmabuf_mr).
 * See Documentation/userspace.rst, "Re-registering MRs and dmabuf MRs".
 */
#include <errno.h>
#include <stdlib.h>
#include "xverbs.h"

/* the kernel checks the rights (EINVAL), as ib_core's for mlx5 */
struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				 size_t length, uint64_t iova, int fd,
				 int access)
{
	struct xrdma_cmd_reg_dmabuf_mr c = { 0 };
	struct ibv_mr *mr = calloc(1, sizeof(*mr));

	if (!mr) {
		errno = ENOMEM;
		return NULL;
	}
	c.pd_handle = pd->handle;
	/* optional access bits may be ignored, as the verbs allow */
	c.access = (uint32_t)access & ~(uint32_t)IBV_ACCESS_OPTIONAL_RANGE;
	c.offset = offset;
	c.length = length;
	c.iova = iova;
	c.fd = fd;
	errno = xv_ioctl(pd->context, XRDMA_IOC_REG_DMABUF_MR, &c);
	if (errno) {
		free(mr);
		return NULL;
	}
	/* addr is the offset, as rdma-core has it */
	xv_mr_set(mr, pd, (void *)(uintptr_t)offset, length, c.mr_handle,
		  c.lkey, c.rkey);
	return mr;
}

/*
 * Return: 0, or one of enum ibv_rereg_mr_err_code with errno set:
 * IBV_REREG_MR_ERR_INPUT (EINVAL) for what rdma-core refuses before the
 * kernel is asked, IBV_REREG_MR_ERR_CMD with the kernel's errno.  The fork
 * helpers have nothing to do here (see unsupported.c), so
 * IBV_REREG_MR_ERR_DONT_FORK_NEW, _DO_FORK_OLD and _CMD_AND_DO_FORK_NEW
 * never occur.  After IBV_REREG_MR_ERR_CMD the MR may reach no memory
 * (the verbs say it "shouldn't be used"); ibv_dereg_mr, or another
 * ibv_rereg_mr, still works.
 */
int ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd,
		 void *addr, size_t length, int access)
{
	struct xrdma_cmd_rereg_mr c = { 0 };

	if (flags & ~IBV_REREG_MR_FLAGS_SUPPORTED ||
	    ((flags & IBV_REREG_MR_CHANGE_TRANSLATION) && (!length || !addr)) ||
	    (access && !(flags & IBV_REREG_MR_CHANGE_ACCESS)) ||
	    /* rdma-core would dereference it */
	    ((flags & IBV_REREG_MR_CHANGE_PD) && !pd)) {
		errno = EINVAL;
		return IBV_REREG_MR_ERR_INPUT;
	}
	c.mr_handle = mr->handle;
	c.flags = (uint32_t)flags;
	if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
		c.addr = (uintptr_t)addr;
		c.length = length;
		c.iova = (uintptr_t)addr;	/* as mlx5 */
	}
	if (flags & IBV_REREG_MR_CHANGE_PD)
		c.pd_handle = pd->handle;
	/* optional access bits may be ignored, as the verbs allow */
	if (flags & IBV_REREG_MR_CHANGE_ACCESS)
		c.access = (uint32_t)access &
			   ~(uint32_t)IBV_ACCESS_OPTIONAL_RANGE;
	errno = xv_ioctl(mr->context, XRDMA_IOC_REREG_MR, &c);
	if (errno)
		return IBV_REREG_MR_ERR_CMD;
	mr->lkey = c.lkey;
	mr->rkey = c.rkey;
	if (flags & IBV_REREG_MR_CHANGE_PD) {
		mr->pd = pd;
		mr->context = pd->context;
	}
	if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
		mr->addr = addr;
		mr->length = length;
	}
	return 0;
}
