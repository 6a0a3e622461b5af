# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 240
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run tools/testing/lib/xverbs/xv_qpcaps
#
# QP creation against the device's own limits (issue 15, defect 4), through
# xrdma's libibverbs.so.1 on xnic0 (tools/testing/lib/xverbs/xv_qpcaps.c): RC,
# UC and UD QPs sized up to max_qp_wr/8 and max_sge/2 through
# ibv_create_qp and ibv_create_qp_ex are created with at least the caps
# asked for; every cap at its limit is created, one beyond is EINVAL;
# ibv_create_qp_ex's comp_mask, create flags and send_ops_flags as
# rdma-core's providers answer them.  Two seeds; the device holds no
# object afterwards and the modules unload.

command -v xrdma-run >/dev/null || fail "xrdma-run not in the guest"
command -v xv_qpcaps >/dev/null || fail "xv_qpcaps not in the guest (not built?)"
[ -f /usr/bin/libibverbs.so.1 ] ||
	fail "xverbs' libibverbs.so.1 not shipped (not built?)"
mount_debugfs
xnic_stack_up 1
: >"$XRDMA_TMP/errors"

for seed in 1 15; do
	run_checked -l "xv_qpcaps -s $seed" xv_qpcaps "$XRDMA_TMP/out" \
		xrdma-run xv_qpcaps -d xnic0 -s $seed -n 32
done

xnic_stack_end xnic0
fail_on_errors
