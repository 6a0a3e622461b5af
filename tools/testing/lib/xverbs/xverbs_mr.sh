# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 400
# XRDMA_DEBIAN_MODULES: vgem
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run tools/testing/lib/xverbs/xv_mr
#
# ibv_rereg_mr and ibv_reg_dmabuf_mr through xrdma's libibverbs.so.1 on xnic0
# (tools/testing/lib/xverbs/xv_mr.c): every combination of
# CHANGE_TRANSLATION, CHANGE_PD and CHANGE_ACCESS with the data read and
# written through the new keys and refused through the old ones, bad input
# with rdma-core's return codes and errno, the REREG_MR ioctl's negative
# cases, RDMA WRITEs in flight during a rereg, concurrent rereg, VmPin;
# an MR over a vgem dmabuf (vgem and drm ship with the test) with READ,
# WRITE, SEND and RECV checked through the dmabuf's mapping, and its bad
# input.
# The device holds no object afterwards and the modules unload.

command -v xrdma-run >/dev/null || fail "xrdma-run not in the guest"
command -v xv_mr >/dev/null || fail "xv_mr not in the guest (not built?)"
[ -f /usr/bin/libibverbs.so.1 ] ||
	fail "xverbs' libibverbs.so.1 not shipped (not built?)"
mount_debugfs
xnic_stack_up 1
: >"$XRDMA_TMP/errors"

run_checked xv_mr "$XRDMA_TMP/out" xrdma-run xv_mr -d xnic0

xnic_stack_end xnic0
fail_on_errors
