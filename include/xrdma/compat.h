/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences between the kernels xrdma builds for, in one
 * place.  Each XRDMA_HAVE_* comes from a feature test in the top-level
 * Kbuild (a grep of the headers built against), never from the version
 * number: distributions backport APIs, so the API decides.  Each entry
 * names the upstream change it follows; a kernel that is not in
 * scripts/kernels.sh gets whichever side its headers show.
 */
#ifndef _XRDMA_COMPAT_H
#define _XRDMA_COMPAT_H

#include <linux/file.h>
#include <linux/mm.h>

/*
 * v6.12 ("move asm/unaligned.h to linux/unaligned.h").
 * The header is included here, for the files that use get_unaligned_*().
 */
#ifdef XRDMA_HAVE_LINUX_UNALIGNED_H
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * v6.12 ("struct fd: representation change"): struct fd
 * lost .file; fd_file() reads it.
 */
#ifndef XRDMA_HAVE_FD_FILE
#define fd_file(f) ((f).file)
#endif

/*
 * v6.3 ("mm: introduce vma->vm_flags wrapper functions"):
 * vm_flags is written through vm_flags_mod() and friends.
 */
static inline void xrdma_vm_flags_mod(struct vm_area_struct *vma,
				      vm_flags_t set, vm_flags_t clear)
{
#ifdef XRDMA_HAVE_VM_FLAGS_MOD
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
#endif
}

/*
 * v6.2 ("driver core: make struct class.devnode() take a
 * const *").
 */
#ifdef XRDMA_HAVE_CONST_DEVNODE
#define XRDMA_DEVNODE_CONST const
#else
#define XRDMA_DEVNODE_CONST
#endif

/*
 * v6.10 ("tracing/treewide: Remove second parameter of
 * __assign_str()"): the source is the one __string() named.  Callers pass
 * the same expression to both.
 */
#ifdef XRDMA_HAVE_ASSIGN_STR_1
#define xrdma_assign_str(dst, src) __assign_str(dst)
#else
#define xrdma_assign_str(dst, src) __assign_str(dst, src)
#endif

/*
 * v6.11 ("RDMA: Pass entire uverbs attr bundle to create cq function"):
 * ib_device_ops.create_cq's last argument is the uverbs attribute bundle,
 * not the udata.  xrdma_ib has no user contexts: either is NULL.
 */
#ifdef XRDMA_HAVE_IB_CREATE_CQ_ATTRS
#define XRDMA_IB_CREATE_CQ_UARG struct uverbs_attr_bundle
#else
#define XRDMA_IB_CREATE_CQ_UARG struct ib_udata
#endif

/*
 * v6.2 ("RDMA: Extend RDMA kernel verbs ABI to support flush", "RDMA:
 * Extend RDMA verbs ABI to support atomic write"): ib_verbs.h has the
 * IBTA 1.5 operations -- IB_WR_ATOMIC_WRITE, IB_WR_FLUSH, their
 * IB_WC_* opcodes, IB_ACCESS_FLUSH_GLOBAL/PERSISTENT and the 64-bit
 * IB_DEVICE_ATOMIC_WRITE, IB_DEVICE_FLUSH_GLOBAL/PERSISTENT.  Without
 * them xrdma_ib maps nothing to them: opcodes -1, flags 0.
 */
#ifdef XRDMA_HAVE_IB_PMEM_OPS
#define XRDMA_IB_WR_ATOMIC_WRITE	IB_WR_ATOMIC_WRITE
#define XRDMA_IB_WR_FLUSH		IB_WR_FLUSH
#define XRDMA_IB_WC_ATOMIC_WRITE	IB_WC_ATOMIC_WRITE
#define XRDMA_IB_WC_FLUSH		IB_WC_FLUSH
#define XRDMA_IB_ACCESS_FLUSH_GLOBAL	IB_ACCESS_FLUSH_GLOBAL
#define XRDMA_IB_ACCESS_FLUSH_PERSISTENT IB_ACCESS_FLUSH_PERSISTENT
#define XRDMA_IB_DEVICE_ATOMIC_WRITE	((u64)IB_DEVICE_ATOMIC_WRITE)
#define XRDMA_IB_DEVICE_FLUSH_GLOBAL	((u64)IB_DEVICE_FLUSH_GLOBAL)
#define XRDMA_IB_DEVICE_FLUSH_PERSISTENT ((u64)IB_DEVICE_FLUSH_PERSISTENT)
#else
#define XRDMA_IB_WR_ATOMIC_WRITE	(-1)
#define XRDMA_IB_WR_FLUSH		(-1)
#define XRDMA_IB_WC_ATOMIC_WRITE	(-1)
#define XRDMA_IB_WC_FLUSH		(-1)
#define XRDMA_IB_ACCESS_FLUSH_GLOBAL	0
#define XRDMA_IB_ACCESS_FLUSH_PERSISTENT 0
#define XRDMA_IB_DEVICE_ATOMIC_WRITE	0ULL
#define XRDMA_IB_DEVICE_FLUSH_GLOBAL	0ULL
#define XRDMA_IB_DEVICE_FLUSH_PERSISTENT 0ULL
#endif

#endif /* _XRDMA_COMPAT_H */
