# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 180
# XRDMA_PROGRAMS: tools/testing/hw/xnic/xnic_raw
#
# An RDMA WRITE posted from userspace with the raw xnic queue formats and
# no syscall between post and completion (tools/testing/hw/xnic/xnic_raw.c):
# the awake engine needs no kick (seccomp-trapped syscalls: 0, device kick
# and wakeup counters unchanged beyond the warm-up's), the sleeping engine
# sets NEED_WAKEUP and is woken by the KICK ioctl.  Data is verified; the
# device holds no object afterwards and the modules unload.

command -v xnic_raw >/dev/null || fail "xnic_raw not in the guest (not built?)"
mount_debugfs
: >"$XRDMA_TMP/errors"
xnic_stack_up 1

ctr=$XRDMA_DEBUGFS/xnic_sim/0/counters
[ -r "$ctr" ] || note "no $ctr: device counters not checked"
# to the console as it goes: a test killed by its timeout shows how far
# it came
{
	xnic_raw -n xnic0 -c "$ctr" -v 2>&1
	echo $? >"$XRDMA_TMP/rc"
} | tee "$XRDMA_TMP/out"
rc=$(cat "$XRDMA_TMP/rc")
[ -r "$ctr" ] && cat "$ctr"

xnic_stack_end xnic0
fail_on_errors
[ "$rc" = 0 ] || fail "xnic_raw rc=$rc: $(grep '^not ok' "$XRDMA_TMP/out" | head -n 1)"
