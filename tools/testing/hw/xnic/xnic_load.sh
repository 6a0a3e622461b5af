# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 300
# XRDMA_PROGRAMS: tools/testing/hw/xnic/xnic_utest
#
# The xnic driver with its device model: xrdma_core, xrdma_uverbs, xnic_sim
# and xnic load; xnic0 registers (/sys/class/xrdma_device/xnic0, its
# platform device bound to the driver "xnic", /dev/infiniband/xrdma_uverbs0
# -- no /dev/xrdma -- with driver=xnic and the model's node GUID); the
# model's debugfs files are mode 0400; xnic.ko does not depend on
# xnic_sim.ko (its .modinfo "depends=", and xnic_sim's use count and
# holders while the driver is bound).  xnic_utest then exercises the user
# paths (tools/testing/hw/xnic/xnic_utest.c, "paths" mode: context, doorbell,
# CQ, QP and SRQ mappings, MR, loopback RC QPs, an RDMA WRITE and an
# inline SEND_WITH_IMM posted from userspace with their data verified,
# ring laps, destroy, close).  Afterwards the core tracks no object, the
# model holds what it held before and counted no bad doorbell and no
# failed command; xnic, then xnic_sim unload and leave nothing behind.
# Three more load/run/unload cycles, and one with the model removed first
# (the driver unbinds, stays loaded, and binds again to a new model).

xnic_utest_init

simdbg=$XRDMA_DEBUGFS/xnic_sim/0
res=$XRDMA_DEBUGFS/xrdma/xnic0/resources

# bail MSG: unload what is loaded and fail (not from a subshell)
bail() {
	xnic_stack_down 2>/dev/null
	fail "$*"
}

# the objects the model holds (its debugfs regs file), on one line
model_objects() {
	grep -E '^(qps|cqs|srqs|mrs|db_pages) ' "$simdbg/regs" | tr '\n' ' '
}

# snap FILE: save the model's counters
snap() {
	cp "$simdbg/counters" "$XRDMA_TMP/$1"
}

# delta A B NAME: counter NAME in snapshot B minus snapshot A ("none" if
# either lacks it)
delta() {
	awk -v n="$3" 'FNR == 1 { f++ } $1 == n { v[f] = $2; h[f] = 1 }
		END { if (h[1] && h[2]) print v[2] - v[1]; else print "none" }' \
		"$XRDMA_TMP/$1" "$XRDMA_TMP/$2"
}

# load_all: model and driver on top of core and uverbs, xnic0 ready
load_all() {
	insmod "$XNIC_SIM" || bail "insmod xnic_sim"
	insmod "$XNIC_DRV" || bail "insmod xnic"
	wait_xrdma_dev xnic0 || bail "xnic0 did not appear within 10 s"
}

# utest LABEL: xnic_utest must pass on xnic0 and leave no object behind
utest() {
	if ! xnic_utest -n xnic0 >"$XRDMA_TMP/out" 2>&1; then
		cat "$XRDMA_TMP/out"
		bail "$1: xnic_utest failed: $(grep -m 1 '^not ok' "$XRDMA_TMP/out")"
	fi
	tail -n 1 "$XRDMA_TMP/out"
	if ! xnic_no_objects xnic0; then
		cat "$res"
		bail "$1: objects left on xnic0 after xnic_utest"
	fi
}

# unload_both LABEL: rmmod xnic, then xnic_sim; nothing may remain
unload_both() {
	rmmod xnic || bail "$1: rmmod xnic"
	[ ! -e /sys/class/xrdma_device/xnic0 ] || bail "$1: xnic0 left after rmmod xnic"
	[ ! -e /dev/infiniband/xrdma_uverbs0 ] || bail "$1: /dev/infiniband/xrdma_uverbs0 left after rmmod xnic"
	[ -d "$simdbg" ] || bail "$1: the model's debugfs went with the driver"
	rmmod xnic_sim || bail "$1: rmmod xnic_sim"
	[ ! -e /sys/bus/platform/devices/xnic.0 ] || bail "$1: platform device xnic.0 left"
	[ ! -e "$XRDMA_DEBUGFS/xnic_sim" ] || bail "$1: debugfs xnic_sim left"
	[ ! -e "$XRDMA_DEBUGFS/xrdma/xnic0" ] || bail "$1: debugfs xrdma/xnic0 left"
}

# --- xnic.ko names no xnic_sim in its .modinfo (as modinfo -F depends)
deps=$(tr '\0' '\n' <"$XNIC_DRV" | sed -n 's/^depends=//p')
note "xnic.ko depends=$deps"
case ",$deps," in
*,xrdma_core,*) ;;
*) fail "xnic.ko depends='$deps': want xrdma_core among them (is .modinfo readable?)" ;;
esac
case ",$deps," in
*,xnic_sim,*) fail "xnic.ko depends on xnic_sim (depends=$deps)" ;;
esac

assert insmod "$XNIC_CORE"
assert insmod "$XNIC_UV"
load_all

# --- registration
uvdev=$(uverbs_of xnic0) || bail "no /sys/class/xrdma/uverbs*/ibdev says xnic0"
[ "$uvdev" = uverbs0 ] || bail "xnic0 is $uvdev, want uverbs0"
[ -c /dev/infiniband/xrdma_uverbs0 ] || bail "/dev/infiniband/xrdma_uverbs0 is not a character device"
[ ! -e /dev/xrdma ] || bail "/dev/xrdma exists: the node's old place"
for f in ibdev driver node_guid vendor_id vendor_part_id fw_ver num_ports; do
	note "uverbs0/$f: $(cat "/sys/class/xrdma/uverbs0/$f")"
done
[ "$(cat /sys/class/xrdma/uverbs0/driver)" = xnic ] ||
	bail "uverbs0/driver is '$(cat /sys/class/xrdma/uverbs0/driver)', want xnic"
bound=$(readlink /sys/class/xrdma_device/xnic0/device/driver)
[ "${bound##*/}" = xnic ] || bail "xnic0's platform device is bound to '${bound##*/}', want xnic"
[ "$(readlink -f /sys/class/xrdma_device/xnic0/device)" = \
	"$(readlink -f /sys/bus/platform/devices/xnic.0)" ] ||
	bail "xnic0's parent is not the platform device xnic.0"
[ "$(cat /sys/class/xrdma/uverbs0/node_guid)" = 0258:52ff:fe00:0001 ] ||
	bail "node_guid $(cat /sys/class/xrdma/uverbs0/node_guid), want the model's 0258:52ff:fe00:0001"
[ "$(cat /sys/class/xrdma/uverbs0/num_ports)" = 1 ] || bail "num_ports is not 1"

# --- the model's debugfs files are root's alone: they show every
# process's QP numbers and PSNs (issue 11)
for f in counters qps regs; do
	m=$(stat -c %a "$simdbg/$f") || bail "no $simdbg/$f"
	[ "$m" = 400 ] || bail "$simdbg/$f has mode $m, want 400 (root only)"
done

# --- the bound driver holds no reference to the model module
grep -E '^(xnic|xnic_sim) ' /proc/modules
simline=$(grep '^xnic_sim ' /proc/modules)
# shellcheck disable=SC2086 # split the /proc/modules line into fields
set -- $simline
[ "$3" = 0 ] || bail "xnic_sim's use count is $3 while xnic is bound, want 0"
[ "$4" = - ] || bail "xnic_sim is used by '$4'"
[ "$(cat /sys/module/xnic_sim/refcnt)" = 0 ] || bail "xnic_sim refcnt $(cat /sys/module/xnic_sim/refcnt)"
[ -z "$(ls /sys/module/xnic_sim/holders)" ] ||
	bail "xnic_sim holders: $(ls /sys/module/xnic_sim/holders)"
# while xnic itself is held by nobody but its own module code
[ "$(cat /sys/module/xnic/refcnt)" = 0 ] || bail "xnic refcnt $(cat /sys/module/xnic/refcnt)"

# --- the user paths
xnic_no_objects xnic0 || bail "objects on xnic0 before any user"
base=$(model_objects)
note "model objects after bring-up: $base"
# shellcheck disable=SC2086 # count the words
set -- $base
[ $# = 10 ] || bail "the model's regs file lacks object counts: '$base'"
snap c0
if ! xnic_utest -n xnic0 -v >"$XRDMA_TMP/out" 2>&1; then
	cat "$XRDMA_TMP/out"
	bail "xnic_utest failed: $(grep -m 1 '^not ok' "$XRDMA_TMP/out")"
fi
cat "$XRDMA_TMP/out"
if ! xnic_no_objects xnic0; then
	cat "$res"
	bail "objects left on xnic0 after xnic_utest"
fi
after=$(model_objects)
[ "$after" = "$base" ] || bail "model objects after xnic_utest: '$after', before: '$base'"
snap c1
tr '\n' ' ' <"$XRDMA_TMP/c1"
echo
for c in bad_doorbells cmd_errors cq_overruns eq_overruns; do
	d=$(delta c0 c1 $c)
	[ "$d" = 0 ] || bail "model counter $c grew by $d during xnic_utest"
done
for c in tx_rdma_write tx_send_imm; do
	d=$(delta c0 c1 $c)
	if [ "$d" = none ] || [ "$d" -lt 1 ]; then
		bail "model counter $c grew by $d: the device did not execute the posts"
	fi
done

unload_both "first load"
note "xnic and xnic_sim unloaded"

# --- reload cycles, each with a user
i=1
while [ $i -le 3 ]; do
	load_all
	utest "cycle $i"
	unload_both "cycle $i"
	i=$((i + 1))
done
note "3 load/run/unload cycles done"

# --- the model goes first: the driver unbinds and stays loaded
load_all
rmmod xnic_sim || bail "rmmod xnic_sim under a bound xnic"
[ ! -e /sys/class/xrdma_device/xnic0 ] || bail "xnic0 left after the model went"
module_loaded xnic || bail "xnic went with the model"
[ "$(cat /sys/module/xnic/refcnt)" = 0 ] || bail "xnic refcnt $(cat /sys/module/xnic/refcnt) with no device"
insmod "$XNIC_SIM" || bail "insmod xnic_sim again"
wait_xrdma_dev xnic0 || bail "xnic did not bind to the new model"
utest "rebound"
unload_both "rebound"
note "model removed under the driver, driver rebound"

assert rmmod xrdma_uverbs
assert rmmod xrdma_core
for m in xnic xnic_sim xrdma_uverbs xrdma_core; do
	if module_loaded $m; then
		fail "$m still loaded"
	fi
done
