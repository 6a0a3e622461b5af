# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 300
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run
# XRDMA_PROGRAMS: tools/testing/lib/xverbs/xv_handles
#
# QUERY_OBJECT on a context with as many handles as it can get
# (tools/testing/lib/xverbs/xv_handles.c): a context filled with PDs (up
# to 131072, or until ibv_alloc_pd fails), MRs on the first, a middle and
# the last PD; ibv_import_mr through each MR's own imported PD answers
# the MR's keys, address and length 20 times, through another PD EINVAL;
# everything is released.  QUERY_OBJECT's walk of the handles drops their
# lock every 256 (no soft lockup; in the debug guest, no lockdep report).

command -v xrdma-run >/dev/null || fail "xrdma-run not in the guest"
command -v xv_handles >/dev/null ||
	fail "xv_handles not in the guest (not built?)"
xnic_stack_up 1
: >"$XRDMA_TMP/errors"
out=$XRDMA_TMP/out

run_checked -f 'not ok|FAIL|Bail out' -u '\(checks\|tests\)' xv_handles "$out" xrdma-run xv_handles -d xnic0 -w 250
dmesg | grep -E 'soft lockup|rcu_sched self-detected|BUG:' >>"$XRDMA_TMP/errors"

xnic_stack_end xnic0
fail_on_errors
