# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 240
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run tools/testing/lib/xverbs/xv_mcast
#
# UD multicast through xrdma's libibverbs.so.1 on two cabled xnic devices
# (tools/testing/lib/xverbs/xv_mcast.c): ibv_attach_mcast/ibv_detach_mcast, a
# send to a group reaches every attached QP on both devices exactly once
# with its GRH and data verified, detach, EINVAL for other QP types, GIDs
# and groups not attached, the reported limits (ENOMEM beyond), a QP
# destroyed while attached, the raw ioctls with bad arguments.  Afterwards
# the model's group tables are empty (debugfs xnic_sim/N/mcast), copies
# were counted (rx_mcast), the devices hold no object and the modules
# unload.

command -v xrdma-run >/dev/null || fail "xrdma-run not in the guest"
command -v xv_mcast >/dev/null || fail "xv_mcast not in the guest (not built?)"
[ -f /usr/bin/libibverbs.so.1 ] ||
	fail "xverbs' libibverbs.so.1 not shipped (not built?)"
mount_debugfs
xnic_stack_up 2
: >"$XRDMA_TMP/errors"

run_checked xv_mcast "$XRDMA_TMP/out" xrdma-run xv_mcast -d xnic0 -D xnic1
grep -qx '# libibverbs: /usr/bin/libibverbs.so.1' "$XRDMA_TMP/out" ||
	echo "xv_mcast did not run on xverbs' libibverbs.so.1" >>"$XRDMA_TMP/errors"

# the process is gone: no group, no attachment left in either device
for d in 0 1; do
	f=$XRDMA_DEBUGFS/xnic_sim/$d/mcast
	l=$(head -n 1 "$f" 2>/dev/null)
	note "xnic_sim/$d/mcast: $l"
	[ "$l" = "groups 0 attached 0" ] || {
		echo "xnic_sim/$d/mcast after the test: '$l'"
		cat "$f"
	} >>"$XRDMA_TMP/errors"
done
# both devices received copies (loopback and over the cable)
for d in 0 1; do
	n=$(grep '^rx_mcast ' "$XRDMA_DEBUGFS/xnic_sim/$d/counters" | cut -d' ' -f2)
	note "xnic_sim/$d rx_mcast ${n:-none}"
	[ "${n:-0}" -gt 0 ] ||
		echo "xnic_sim/$d counted no multicast copy (rx_mcast '${n:-}')" >>"$XRDMA_TMP/errors"
done

xnic_stack_end xnic0 xnic1
fail_on_errors
