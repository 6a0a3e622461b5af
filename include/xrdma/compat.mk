# SPDX-License-Identifier: GPL-2.0
#
# Kernel API differences, from the headers built against (srctree): each
# XRDMA_HAVE_* is one entry of include/xrdma/compat.h, which says what
# upstream change it follows.  The top-level Kbuild (and the DKMS tree's,
# scripts/dkms-source.sh) include this, so every module directory below
# sees the same flags (subdir-ccflags-y), in and out of tree.
#
# A kernel not listed in scripts/kernels.sh gets whichever side its
# headers show; a new difference is one line here and one entry there.
xrdma_have = $(if $(shell grep -sE '$(1)' $(srctree)/$(2)),-DXRDMA_HAVE_$(3))
xrdma_have_fd_file := define fd_file\(
xrdma_have_assign := define __assign_str\(dst\)
subdir-ccflags-y += $(call xrdma_have,vm_flags_mod,include/linux/mm.h,VM_FLAGS_MOD)
subdir-ccflags-y += $(call xrdma_have,devnode..const struct device,include/linux/device/class.h,CONST_DEVNODE)
subdir-ccflags-y += $(if $(wildcard $(srctree)/include/linux/unaligned.h),-DXRDMA_HAVE_LINUX_UNALIGNED_H)
subdir-ccflags-y += $(call xrdma_have,$(xrdma_have_fd_file),include/linux/file.h,FD_FILE)
subdir-ccflags-y += $(call xrdma_have,$(xrdma_have_assign),include/trace/stages/stage6_event_callback.h,ASSIGN_STR_1)
subdir-ccflags-y += $(if $(shell grep -sA2 '(\*create_cq)' $(srctree)/include/rdma/ib_verbs.h | grep uverbs_attr_bundle),-DXRDMA_HAVE_IB_CREATE_CQ_ATTRS)
subdir-ccflags-y += $(call xrdma_have,IB_DEVICE_ATOMIC_WRITE,include/rdma/ib_verbs.h,IB_PMEM_OPS)
