# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 180
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run
# XRDMA_PROGRAMS: tools/testing/lib/xverbs/xv_eqflood
#
# One unprivileged user must not make the device fatal for all by
# flooding its event queue (tools/testing/lib/xverbs/xv_eqflood.c): user
# 65534 keeps 128 QPs busy with RDMA WRITEs, each on a CQ of its own, and
# re-arms every CQ after every completion it polls (a store to the CQ's
# doorbell record: a new arm_sn each time), never reading its completion
# channel.  Every WRITE must complete with success, and afterwards the
# victim (root) gets no async event, allocates a PD and gets the
# completion event of a new WRITE.  The model must count no event queue
# overrun and its status must not be FATAL.  The run may be slow or fast:
# nothing here depends on how many events were written.

command -v xrdma-run >/dev/null || fail "xrdma-run not in the guest"
command -v xv_eqflood >/dev/null ||
	fail "xv_eqflood not in the guest (not built?)"
[ -f /usr/bin/libibverbs.so.1 ] ||
	fail "xverbs' libibverbs.so.1 not shipped (not built?)"
mount_debugfs
xnic_stack_up 1
: >"$XRDMA_TMP/errors"
err() { echo "$*" >>"$XRDMA_TMP/errors"; }
out=$XRDMA_TMP/out
D=$XRDMA_DEBUGFS/xnic_sim/0

run_checked -f 'FAIL|Bail out' -u checks xv_eqflood "$out" \
	xrdma-run xv_eqflood -d xnic0 -s 8 -p 64 -q 32 -w 150
echo "--- $D/regs"
cat "$D/regs"
echo "--- $D/counters (event queue, completions)"
grep -E '^(eqes|eq_overruns|cqes|cq_overruns|irqs) ' "$D/counters"

ov=$(awk '$1 == "eq_overruns" { print $2 }' "$D/counters")
[ "$ov" = 0 ] || err "the model counted ${ov:-?} event queue overrun(s)"
st=$(awk '$1 == "status" { print $2 }' "$D/regs")
# XNIC_STATUS_FATAL is bit 2 (Documentation/xnic/registers.rst)
if [ -z "$st" ] || [ $((st & 4)) != 0 ]; then
	err "device status '$st' is FATAL (or unreadable)"
fi
grep -q '^# B: attacker runs as uid 65534 ' "$out" ||
	err "B did not run as uid 65534"
grep -q '^PASS B: every WRITE of the flood completed' "$out" ||
	err "B's WRITEs were not all accounted for"

xnic_stack_end xnic0
fail_on_errors
