# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 90
#
# xrdma_core loads and unloads cleanly: it registers its module, its device
# class "xrdma_device" and its debugfs directory, removes all of them on
# unload, refuses a second insmod without side effects, and survives 20
# load/unload cycles.

ko=$(xko xrdma_core) || exit 1
mount_debugfs

present() {
	assert_dir /sys/module/xrdma_core
	assert_eq "$(cat /sys/module/xrdma_core/initstate)" live "initstate"
	assert_dir /sys/class/xrdma_device
	assert_dir "$XRDMA_DEBUGFS/xrdma"
}

gone() {
	assert_absent /sys/module/xrdma_core
	assert_absent /sys/class/xrdma_device
	assert_absent "$XRDMA_DEBUGFS/xrdma"
}

# the guest starts clean
gone

assert insmod "$ko"
present
module_loaded xrdma_core || fail "xrdma_core not in /proc/modules"
assert_eq "$(cat /sys/module/xrdma_core/refcnt)" 0 "refcnt after insmod"

# a second insmod fails with EEXIST and leaves the loaded module alone
refute insmod "$ko" 2>"$XRDMA_TMP/err"
cat "$XRDMA_TMP/err"
grep -q 'File exists' "$XRDMA_TMP/err" || fail "second insmod: want EEXIST"
present
assert_eq "$(grep -c '^xrdma_core ' /proc/modules)" 1 "xrdma_core instances"

assert rmmod xrdma_core
gone
# rmmod of a module that is not loaded fails
refute rmmod xrdma_core 2>/dev/null

i=1
while [ $i -le 20 ]; do
	insmod "$ko" || fail "insmod, cycle $i"
	[ -d /sys/class/xrdma_device ] || fail "no class after insmod, cycle $i"
	[ -d "$XRDMA_DEBUGFS/xrdma" ] || fail "no debugfs dir after insmod, cycle $i"
	rmmod xrdma_core || fail "rmmod, cycle $i"
	[ ! -e /sys/class/xrdma_device ] || fail "class left after rmmod, cycle $i"
	[ ! -e "$XRDMA_DEBUGFS/xrdma" ] || fail "debugfs dir left after rmmod, cycle $i"
	i=$((i + 1))
done
gone
note "20 load/unload cycles done"
