# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 240
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run tools/testing/lib/xverbs/xv_dm
#
# Device memory through xrdma's libibverbs.so.1 on xnic0
# (tools/testing/lib/xverbs/xv_dm.c): ibv_alloc_dm up to max_dm_size (zeroed,
# EINVAL/ENOMEM at the limits), ibv_memcpy_to_dm/from_dm (EFAULT beyond),
# ibv_reg_dm_mr (ZERO_BASED required, EBUSY for ibv_free_dm while an MR
# is on it), DM MRs as local and remote buffers of SEND, RDMA WRITE/READ
# and atomics with data verified, REM_ACCESS_ERR beyond a DM MR, and a
# process's DM freed and zeroed when it exits.  The device holds no object
# afterwards, the modules unload (xnic warns if device memory is left
# handed out: a kernel warning, which fails the run).

command -v xrdma-run >/dev/null || fail "xrdma-run not in the guest"
command -v xv_dm >/dev/null || fail "xv_dm not in the guest (not built?)"
[ -f /usr/bin/libibverbs.so.1 ] ||
	fail "xverbs' libibverbs.so.1 not shipped (not built?)"
mount_debugfs
xnic_stack_up 1
: >"$XRDMA_TMP/errors"

run_checked xv_dm "$XRDMA_TMP/out" xrdma-run xv_dm -d xnic0
grep -q 'libibverbs.so.1' "$XRDMA_TMP/out" ||
	echo "xv_dm: did not name the library it ran on" >>"$XRDMA_TMP/errors"

# the model let go of every MR: a DM MR's DEREG_MR was once never sent,
# which left its key (and the DM pages behind it) live in the device
mrs=$(awk '$1 == "mrs" { print $2 }' "$XRDMA_DEBUGFS/xnic_sim/0/regs")
[ "$mrs" = 0 ] ||
	echo "the model holds ${mrs:-?} MRs after xv_dm (DM MRs not deregistered?)" >>"$XRDMA_TMP/errors"

xnic_stack_end xnic0
fail_on_errors
