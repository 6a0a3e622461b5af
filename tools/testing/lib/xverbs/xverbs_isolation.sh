# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 180
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run
# XRDMA_PROGRAMS: tools/testing/lib/xverbs/xv_isolation
#
# Two-process isolation through the stock verbs API on xnic0, over
# xrdma's libibverbs.so.1 (tools/testing/lib/xverbs/xv_isolation.c):
# process B (forked, then uid/gid 65534) knows process A's QPNs, M's
# address and rkey, rkeys near it, A's handles and mmap offsets.  B's RC
# QP, connected to A1 or A2 though they are connected to each other,
# cannot SEND, WRITE, READ or do atomics on M with the real or guessed
# keys, nor move A1/A2 to ERR with a bad rkey; every such WQE of B's
# completes with an error, M stays intact, A sees no completion and no
# async event, A's own traffic still works.  B's fd reaches none of A's
# handles or mmap offsets; MR keys are not a counter; UD delivers by
# Q_Key only (wrong: dropped, right: delivered).  xv_isolation must exit
# 0 with every check passed, the device must hold no object afterwards
# and the modules must unload.

command -v xrdma-run >/dev/null || fail "xrdma-run not in the guest"
command -v xv_isolation >/dev/null ||
	fail "xv_isolation not in the guest (not built?)"
[ -f /usr/bin/libibverbs.so.1 ] ||
	fail "xverbs' libibverbs.so.1 not shipped (not built?)"
mount_debugfs
xnic_stack_up 1
: >"$XRDMA_TMP/errors"
out=$XRDMA_TMP/out

# B must be able to open the device as an unprivileged user (the guest's
# / is 0755: tools/testing/harness/host/mkinitramfs.sh)
perm=$(stat -c %a /dev/infiniband/xrdma_uverbs0 2>/dev/null)
[ "$perm" = 666 ] || echo "/dev/infiniband/xrdma_uverbs0 mode '$perm', not 666" >>"$XRDMA_TMP/errors"

run_checked -f 'FAIL|Bail out' -u checks xv_isolation "$out" \
	xrdma-run xv_isolation -d xnic0 -w 150
rc=$RUN_RC
# the model's view: drops, retries, errors (non-zero counters)
echo "--- xnic_sim/0/counters (non-zero)"
awk 'NF == 2 && $2 != 0' "$XRDMA_DEBUGFS/xnic_sim/0/counters" 2>/dev/null
nfail=$(grep -c '^FAIL ' "$out")
[ "$rc" = 0 ] || note "xv_isolation: $nfail check(s) failed"
# both processes ran, B as another user, and the summary agrees
grep -q '^# B: attacker runs as uid 65534 ' "$out" ||
	echo "B did not run as uid 65534" >>"$XRDMA_TMP/errors"
grep -q '^PASS B: control: ' "$out" ||
	echo "B's control (its own pair) did not pass" >>"$XRDMA_TMP/errors"
[ "$rc" != 0 ] || [ "$nfail" = 0 ] ||
	echo "xv_isolation: exit 0 with $nfail FAIL line(s)" >>"$XRDMA_TMP/errors"

xnic_stack_end xnic0
fail_on_errors
