// SPDX-License-Identifier: GPL-2.0
/*
 * xverbs: device memory (ibv_alloc_dm, ibv_free_dm, ibv_memcpy_to_dm,
 * ibv_memcpy_from_dm, ibv_reg_dm_mr), as rdma-core v44's mlx5 has it.
 * ALLOC_DM hands out zeroed memory of the device, which the library maps
 * through the command fd; the copies are plain loads and stores to that
 * mapping.  The MR of a DM is zero-based (IBV_ACCESS_ZERO_BASED is
 * required, as ibv_cmd_reg_dm_mr() wants): its addresses are 0..length-1.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "xverbs.h"

struct xv_dm {
	struct ibv_dm ibdm;
	uint8_t *map;
	size_t map_len;
	uint64_t length;
};

static inline struct xv_dm *to_xdm(struct ibv_dm *dm)
{
	return xv_container_of(dm, struct xv_dm, ibdm);
}

/*
 * mlx5's rules (mlx5_access_dm()): EFAULT beyond the DM (checked without
 * wrapping), then EINVAL for an offset or a length that is not a multiple
 * of 4 -- device memory is accessed in 4-byte words.  Ours is RAM, but a
 * program written against xnic must run on the hardware the verbs
 * describe, and rdma-core's tests (test_dm_bad_access,
 * test_dm_write_bad_flow) expect the refusal.
 */
static int xv_dm_range(struct xv_dm *dm, uint64_t off, size_t length)
{
	if (off > dm->length || length > dm->length - off)
		return EFAULT;
	if ((off | length) & 3)
		return EINVAL;
	return 0;
}

static int xv_memcpy_to_dm(struct ibv_dm *ibdm, uint64_t dm_offset,
			   const void *host_addr, size_t length)
{
	struct xv_dm *dm = to_xdm(ibdm);
	int ret = xv_dm_range(dm, dm_offset, length);

	if (ret)
		return ret;
	memcpy(dm->map + dm_offset, host_addr, length);
	/* the device reads it after a later doorbell: stores ordered before */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	return 0;
}

static int xv_memcpy_from_dm(void *host_addr, struct ibv_dm *ibdm,
			     uint64_t dm_offset, size_t length)
{
	struct xv_dm *dm = to_xdm(ibdm);
	int ret = xv_dm_range(dm, dm_offset, length);

	if (ret)
		return ret;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	memcpy(host_addr, dm->map + dm_offset, length);
	return 0;
}

static struct ibv_dm *xv_alloc_dm(struct ibv_context *ctx,
				  struct ibv_alloc_dm_attr *attr)
{
	struct xrdma_cmd_alloc_dm c = { 0 };
	struct xv_dm *dm;
	void *map;

	if (attr->comp_mask) {
		errno = EINVAL;
		return NULL;
	}
	dm = calloc(1, sizeof(*dm));
	if (!dm) {
		errno = ENOMEM;
		return NULL;
	}
	c.length = attr->length;
	c.log_align_req = attr->log_align_req;
	errno = xv_ioctl(ctx, XRDMA_IOC_ALLOC_DM, &c);
	if (errno) {
		free(dm);
		return NULL;
	}
	map = mmap(NULL, c.mmap_length, PROT_READ | PROT_WRITE, MAP_SHARED,
		   ctx->cmd_fd, (off_t)c.mmap_offset);
	if (map == MAP_FAILED) {
		xv_destroy_obj(ctx, XRDMA_OBJ_DM, c.dm_handle, NULL);
		free(dm);
		errno = ENOMEM;
		return NULL;
	}
	dm->map = map;
	dm->map_len = c.mmap_length;
	dm->length = attr->length;
	dm->ibdm.context = ctx;
	dm->ibdm.memcpy_to_dm = xv_memcpy_to_dm;
	dm->ibdm.memcpy_from_dm = xv_memcpy_from_dm;
	dm->ibdm.comp_mask = 0;
	dm->ibdm.handle = c.dm_handle;
	return &dm->ibdm;
}

/* EBUSY (nothing changes) while an MR is registered on it */
static int xv_free_dm(struct ibv_dm *ibdm)
{
	struct xv_dm *dm = to_xdm(ibdm);
	int ret = xv_destroy_obj(ibdm->context, XRDMA_OBJ_DM, ibdm->handle,
				 NULL);

	if (ret)
		return ret;
	munmap(dm->map, dm->map_len);
	free(dm);
	return 0;
}

#define XV_DM_ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC | \
			 IBV_ACCESS_ZERO_BASED | IBV_ACCESS_OPTIONAL_RANGE)

static struct ibv_mr *xv_reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *ibdm,
				   uint64_t dm_offset, size_t length,
				   unsigned int access)
{
	struct xrdma_cmd_reg_dm_mr c = { 0 };

	/* mlx5's allowed bits; ibv_cmd_reg_dm_mr's zero-based rule */
	if (access & ~(unsigned int)XV_DM_ACCESS ||
	    !(access & IBV_ACCESS_ZERO_BASED)) {
		errno = EINVAL;
		return NULL;
	}
	access = xv_mr_access(access & ~(unsigned int)IBV_ACCESS_ZERO_BASED);
	if (!xv_mr_access_ok(access)) {
		errno = EINVAL;
		return NULL;
	}
	c.pd_handle = pd->handle;
	c.dm_handle = ibdm->handle;
	c.offset = dm_offset;
	c.length = length;
	c.access = access;
	return xv_mr_create(pd, XRDMA_IOC_REG_DM_MR, &c, &c.mr_handle, NULL,
			    length);
}

void xv_dm_set_ops(struct verbs_context *v)
{
	v->alloc_dm = xv_alloc_dm;
	v->free_dm = xv_free_dm;
	v->reg_dm_mr = xv_reg_dm_mr;
}
