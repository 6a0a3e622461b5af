# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 300
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run tools/testing/lib/xverbs/xv_mw
#
# Memory windows through xrdma's libibverbs.so.1 on xnic0
# (tools/testing/lib/xverbs/xv_mw.c): type 2B windows bound with
# IBV_WR_BIND_MW and ibv_wr_bind_mw, type 1 with ibv_bind_mw; data through
# RDMA WRITE, READ and atomics via a window's rkey (zero based too);
# LOCAL_INV and SEND_WITH_INV of a window; every bind error completion
# (MW_BIND_ERR) and remote error (REM_ACCESS_ERR); the calls' errno; dereg
# of an MR with a bound window (EBUSY); the ALLOC_MW ioctl with bad
# arguments.  The core's resources file counts the windows while they
# exist; the device holds no object afterwards, the model counted binds,
# and the modules unload.

command -v xrdma-run >/dev/null || fail "xrdma-run not in the guest"
command -v xv_mw >/dev/null || fail "xv_mw not in the guest (not built?)"
[ -f /usr/bin/libibverbs.so.1 ] ||
	fail "xverbs' libibverbs.so.1 not shipped (not built?)"
mount_debugfs
xnic_stack_up 1
: >"$XRDMA_TMP/errors"
res="$XRDMA_DEBUGFS/xrdma/xnic0/resources"
[ -r "$res" ] || fail "no $res"

run_checked xv_mw "$XRDMA_TMP/out" xrdma-run xv_mw -d xnic0 -r "$res"
grep -qx '# libibverbs: /usr/bin/libibverbs.so.1' "$XRDMA_TMP/out" ||
	echo "xv_mw did not run on xverbs' libibverbs.so.1" >>"$XRDMA_TMP/errors"
grep -q '^mw 0$' "$res" ||
	echo "the resources file has no 'mw 0' line after the program" >>"$XRDMA_TMP/errors"
# the device executed the binds and reported their errors
ctr="$XRDMA_DEBUGFS/xnic_sim/0/counters"
for c in tx_bind_mw err_mw_bind; do
	n=$(awk -v c=$c '$1 == c { print $2 }' "$ctr")
	[ "${n:-0}" -gt 0 ] ||
		echo "model counter $c is ${n:-missing}" >>"$XRDMA_TMP/errors"
done

xnic_stack_end xnic0
fail_on_errors
