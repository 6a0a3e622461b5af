/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * Driver data of xrdma_testdev, the software test device used by the
 * uverbs integration tests (no data path; queues are plain pages).
 */
#ifndef _UAPI_XRDMA_TESTDEV_ABI_H
#define _UAPI_XRDMA_TESTDEV_ABI_H

#include <linux/types.h>

#define XRDMA_TESTDEV_RING_MAGIC	0x58524d4154455354ULL	/* "XRMATEST" */

/* GET_CONTEXT udata.out */
struct xrdma_testdev_ucontext_resp {
	__aligned_u64 db_offset;	/* mmap offset of the doorbell page */
	__u32 db_size;			/* bytes */
	__u32 reserved;
};

/*
 * CREATE_CQ udata.out.  The ring (ring_size bytes, mmap at ring_offset)
 * starts with XRDMA_TESTDEV_RING_MAGIC then token, a random value unique to
 * this CQ, then cqn.
 */
struct xrdma_testdev_create_cq_resp {
	__aligned_u64 ring_offset;
	__aligned_u64 token;
	__u32 ring_size;
	__u32 cqn;
};

#endif /* _UAPI_XRDMA_TESTDEV_ABI_H */
