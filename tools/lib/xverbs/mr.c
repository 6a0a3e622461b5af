// SPDX-License-Identifier: GPL-2.0
/*
 * xverbs: memory regions -- ibv_reg_mr and its variants, ibv_dereg_mr,
 * ibv_rereg_mr (with rdma-core 44's checks and return codes,
 * libibverbs/verbs.c and the mlx5 provider's rereg_mr) and
 * ibv_reg_dmabuf_mr; the MR of device memory (ibv_reg_dm_mr) is dm.c's,
 * through the same helpers.  PDs are share.c's (PDs of every kind).
 * See Documentation/userspace.rst, "Re-registering MRs and dmabuf MRs".
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include "xverbs.h"

/* the public names are macros in <infiniband/verbs.h> */
#undef ibv_reg_mr
#undef ibv_reg_mr_iova

/* optional access bits may be ignored, as the verbs allow */
unsigned int xv_mr_access(unsigned int access)
{
	return access & ~(unsigned int)IBV_ACCESS_OPTIONAL_RANGE;
}

/* remote write and atomic need local write, as in the verbs */
bool xv_mr_access_ok(unsigned int access)
{
	return !((access & (IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_ATOMIC)) &&
		 !(access & IBV_ACCESS_LOCAL_WRITE));
}

/* An ibv_mr as the kernel answered it (every way of making one). */
void xv_mr_set(struct ibv_mr *mr, struct ibv_pd *pd, void *addr,
	       size_t length, uint32_t handle, uint32_t lkey, uint32_t rkey)
{
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	mr->handle = handle;
	mr->lkey = lkey;
	mr->rkey = rkey;
}

/*
 * The ioctl @req that makes an MR (REG_MR, REG_DMABUF_MR, REG_DM_MR) with
 * its argument @cmd, whose @out are the three __u32 mr_handle, lkey and
 * rkey the kernel answers (in that order in each of them); the ibv_mr
 * gets @addr and @length.  Return: the MR, or NULL with errno set.
 */
#define XV_MR_OUT(type) \
	static_assert(offsetof(type, lkey) == offsetof(type, mr_handle) + 4 && \
		      offsetof(type, rkey) == offsetof(type, mr_handle) + 8, \
		      #type ": mr_handle, lkey, rkey in a row")
XV_MR_OUT(struct xrdma_cmd_reg_mr);
XV_MR_OUT(struct xrdma_cmd_reg_dmabuf_mr);
XV_MR_OUT(struct xrdma_cmd_reg_dm_mr);

struct ibv_mr *xv_mr_create(struct ibv_pd *pd, unsigned long req, void *cmd,
			    const uint32_t *out, void *addr, size_t length)
{
	struct ibv_mr *mr = calloc(1, sizeof(*mr));

	if (!mr) {
		errno = ENOMEM;
		return NULL;
	}
	errno = xv_ioctl(pd->context, req, cmd);
	if (errno) {
		free(mr);
		return NULL;
	}
	xv_mr_set(mr, pd, addr, length, out[0], out[1], out[2]);
	return mr;
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr,
				size_t length, uint64_t iova,
				unsigned int access)
{
	struct xrdma_cmd_reg_mr c = { 0 };

	access = xv_mr_access(access);
	if (access & ~(unsigned int)(IBV_ACCESS_LOCAL_WRITE |
				     IBV_ACCESS_REMOTE_WRITE |
				     IBV_ACCESS_REMOTE_READ |
				     IBV_ACCESS_REMOTE_ATOMIC |
				     IBV_ACCESS_MW_BIND |
				     XV_ACCESS_FLUSH_GLOBAL |
				     XV_ACCESS_FLUSH_PERSISTENT)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!xv_mr_access_ok(access)) {
		errno = EINVAL;
		return NULL;
	}
	c.pd_handle = pd->handle;
	c.access = access;
	c.addr = (uintptr_t)addr;
	c.length = length;
	c.iova = iova;
	return xv_mr_create(pd, XRDMA_IOC_REG_MR, &c, &c.mr_handle, addr,
			    length);
}

struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr,
			  size_t length, int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, (uintptr_t)addr,
				(unsigned int)access);
}

struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr,
			       size_t length, uint64_t iova,
			       int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, iova, (unsigned int)access);
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
	int ret = xv_destroy_obj(mr->context, XRDMA_OBJ_MR, mr->handle, NULL);

	if (!ret)
		free(mr);
	return ret;
}

/* the kernel checks the rights (EINVAL), as ib_core's for mlx5 */
struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				 size_t length, uint64_t iova, int fd,
				 int access)
{
	struct xrdma_cmd_reg_dmabuf_mr c = { 0 };

	c.pd_handle = pd->handle;
	c.access = xv_mr_access((unsigned int)access);
	c.offset = offset;
	c.length = length;
	c.iova = iova;
	c.fd = fd;
	/* addr is the offset, as rdma-core has it */
	return xv_mr_create(pd, XRDMA_IOC_REG_DMABUF_MR, &c, &c.mr_handle,
			    (void *)(uintptr_t)offset, length);
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
	if (flags & IBV_REREG_MR_CHANGE_ACCESS)
		c.access = xv_mr_access((unsigned int)access);
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
