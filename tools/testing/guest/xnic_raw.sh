# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 180
# XRDMA_PROGRAMS: tools/testing/xnic/raw_write
#
# An RDMA WRITE posted from userspace with the raw xnic queue formats and
# no syscall between post and completion (tools/testing/xnic/raw_write.c):
# the awake engine needs no kick (seccomp-trapped syscalls: 0, device kick
# and wakeup counters unchanged beyond the warm-up's), the sleeping engine
# sets NEED_WAKEUP and is woken by the KICK ioctl.  Data is verified; the
# device holds no object afterwards and the modules unload.

core=$(xko xrdma_core) || exit 1
uv=$(xko xrdma_uverbs) || exit 1
sim=$(xko xnic_sim) || exit 1
drv=$(xko xnic) || exit 1
command -v raw_write >/dev/null || fail "raw_write not in the guest (not built?)"
mount_debugfs

unload() {
	for m in xnic xnic_sim xrdma_uverbs xrdma_core; do
		module_loaded $m || continue
		rmmod $m || echo "rmmod $m failed" >>"$XRDMA_TMP/errors"
	done
}

: >"$XRDMA_TMP/errors"
assert insmod "$core"
assert insmod "$uv"
assert insmod "$sim" ndev=1
if ! insmod "$drv"; then
	unload
	fail "insmod xnic"
fi
n=0
until grep -qx xnic0 /sys/class/xrdma/uverbs*/ibdev 2>/dev/null; do
	n=$((n + 1))
	if [ $n -gt 100 ]; then
		unload
		fail "no uverbs device for xnic0"
	fi
	sleep 0.1
done

ctr=$XRDMA_DEBUGFS/xnic_sim/0/counters
[ -r "$ctr" ] || note "no $ctr: device counters not checked"
raw_write -n xnic0 -c "$ctr" -v >"$XRDMA_TMP/out" 2>&1
rc=$?
cat "$XRDMA_TMP/out"
[ -r "$ctr" ] && cat "$ctr"

r=$XRDMA_DEBUGFS/xrdma/xnic0/resources
if ! awk 'NF == 2 && $2 != 0 { bad = 1 } NF > 2 { bad = 1 } END { exit bad }' "$r"; then
	echo "objects left on xnic0:" >>"$XRDMA_TMP/errors"
	cat "$r" >>"$XRDMA_TMP/errors"
fi
unload
if [ -s "$XRDMA_TMP/errors" ]; then
	cat "$XRDMA_TMP/errors"
	fail "$(head -n 1 "$XRDMA_TMP/errors")"
fi
[ $rc = 0 ] || fail "raw_write rc=$rc: $(grep '^not ok' "$XRDMA_TMP/out" | head -n 1)"
