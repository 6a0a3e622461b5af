# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 150
# XRDMA_DEBIAN_MODULES: ib_core crc32_generic veth rdma_rxe ib_uverbs rdma_ucm
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run
# XRDMA_PROGRAMS: tools/testing/lib/xverbs/xv_names /usr/bin/rdma /usr/bin/ip
# XRDMA_FILES: /etc/libibverbs.d/rxe.driver
# XRDMA_FILES: /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so
#
# The names of an xnic device as programs see them (Documentation/
# userspace.rst, "Device names"), next to Soft-RoCE's in the same guest:
#   node    /dev/infiniband/xrdma_uverbs0 is a character device (mode
#           0666, the dev_t of /sys/class/xrdma/uverbs0), no /dev/xrdma;
#           with rxe0, ib_uverbs and rdma_ucm loaded, /dev/infiniband also
#           has their uverbsN and rdma_cm, each its own device number
#   names   through xrdma's libibverbs (tools/testing/lib/xverbs/xv_names):
#           name xnic0, dev_name xrdma_uverbs0, dev_path
#           /sys/class/xrdma/uverbs0, the node a char device that opens;
#           without xrdma_ib ibdev_path is /sys/class/xrdma/uverbs0 and
#           ibv_get_device_index -1 (ib_core loaded, knowing only rxe0);
#           with xrdma_ib ibdev_path is /sys/class/infiniband/xnic0 and the
#           index the one "rdma dev" shows for xnic0
#   rxe     the system's libibverbs lists rxe0 under its uverbsN with the
#           index "rdma dev" shows, and none of ours; no dev_name and no
#           index of the two lists collide; an rxe device named xnic0 (an
#           ib_core device of our name with another node GUID) is not taken
#           for ours
#   relist  one process listing again and again: after xrdma_ib is
#           loaded, the device is a new ibv_device (librdmacm compares
#           pointers) with the new index, an unchanged listing gives the
#           same pointer, after rmmod xrdma_ib a new one with index -1
#   no ib   with ib_core unloaded, listing devices gives index -1 and does
#           not load ib_core
# Everything unloads; the device holds no object.

command -v xrdma-run >/dev/null || fail "xrdma-run not in the guest"
command -v xv_names >/dev/null || fail "xv_names not in the guest (not built?)"
[ -f /usr/bin/libibverbs.so.1 ] ||
	fail "xverbs' libibverbs.so.1 not shipped (not built?)"
ib=$(xko xrdma_ib) || exit 1
mount_debugfs
: >"$XRDMA_TMP/errors"
err() { echo "$*" >>"$XRDMA_TMP/errors"; }

cleanup() {
	[ -n "$live_pid" ] && kill "$live_pid" 2>/dev/null
	[ -d /sys/class/infiniband/rxe0 ] && /usr/bin/rdma link delete rxe0
	[ -d /sys/class/net/veth0 ] && /usr/bin/ip link delete veth0
	module_loaded xrdma_ib && rmmod xrdma_ib
	xnic_stack_down
}

bail() {
	cleanup 2>/dev/null
	[ -s "$XRDMA_TMP/errors" ] && cat "$XRDMA_TMP/errors"
	fail "$*"
}

# devt PATH: MAJOR:MINOR of a character device, else empty
devt() {
	[ -c "$1" ] || return 0
	echo "$((0x$(stat -c %t "$1"))):$((0x$(stat -c %T "$1")))"
}

# ibindex DEV: ib_core's index of DEV as "rdma dev" shows it
ibindex() {
	/usr/bin/rdma dev show "$1" 2>/dev/null | sed -n "s/^\([0-9]*\): $1: .*/\1/p"
}

# line FILE NAME: the device line of NAME in xv_names' output FILE
line() { grep "^name=$2 " "$1"; }

# field KEY LINE: the value of KEY=... in an xv_names line
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# expect WHAT FILE NAME KEY=VALUE...: NAME's line in FILE has each value
expect() {
	_what=$1 _f=$2 _n=$3
	shift 3
	_l=$(line "$_f" "$_n")
	[ -n "$_l" ] || { err "$_what: no $_n in $(cat "$_f")"; return; }
	[ "$(line "$_f" "$_n" | wc -l)" = 1 ] || err "$_what: $_n listed twice"
	for _kv in "$@"; do
		[ "$(field "${_kv%%=*}" "$_l")" = "${_kv#*=}" ] ||
			err "$_what: want $_kv in '$_l'"
	done
}

# --- node
xnic_stack_up 1
wait_xrdma_dev xnic0 || bail "xnic0 did not appear"
uv=$(uverbs_of xnic0) || bail "no uverbs device of xnic0"
[ "$uv" = uverbs0 ] || bail "xnic0 is $uv, want uverbs0"
node=/dev/infiniband/xrdma_uverbs0
[ -c $node ] || bail "$node is not a character device"
[ "$(stat -c %a $node)" = 666 ] || err "$node has mode $(stat -c %a $node), want 666"
ours=$(devt $node)
[ "$ours" = "$(cat /sys/class/xrdma/uverbs0/dev)" ] ||
	err "$node is $ours, /sys/class/xrdma/uverbs0/dev says $(cat /sys/class/xrdma/uverbs0/dev)"
[ ! -e /dev/xrdma ] || err "/dev/xrdma exists"
guid=$(cat /sys/class/xrdma/uverbs0/node_guid)
module_loaded ib_core || bail "ib_core not loaded (the header loads it)"

# --- names without xrdma_ib
out=$XRDMA_TMP/out
xrdma-run xv_names -o >"$out" 2>&1 || err "xv_names rc=$?"
cat "$out"
grep -qx 'devices=1' "$out" || err "xrdma's library: not one device"
expect "no xrdma_ib" "$out" xnic0 dev_name=xrdma_uverbs0 \
	dev_path=/sys/class/xrdma/uverbs0 ibdev_path=/sys/class/xrdma/uverbs0 \
	index=-1 "guid=$guid" "node=char:$ours" open=ok

# --- rxe0 next to it: ib_uverbs' and rdma_ucm's nodes
/usr/bin/ip link add veth0 type veth peer name veth1 || bail "veth pair"
/usr/bin/ip link set veth0 up || bail "veth0 up"
/usr/bin/ip link set veth1 up || bail "veth1 up"
/usr/bin/rdma link add rxe0 type rxe netdev veth0 || bail "rdma link add rxe0"
wait_for 10 test -d /sys/class/infiniband/rxe0 || bail "no rxe0"
rxeuv=
for d in /sys/class/infiniband/rxe0/device/infiniband_verbs/uverbs* \
	/sys/class/infiniband_verbs/uverbs*; do
	[ "$(cat "$d/ibdev" 2>/dev/null)" = rxe0 ] && rxeuv=${d##*/} && break
done
[ -n "$rxeuv" ] || bail "ib_uverbs made no uverbs device of rxe0"
wait_for 10 test -c "/dev/infiniband/$rxeuv" || bail "no /dev/infiniband/$rxeuv"
wait_for 10 test -c /dev/infiniband/rdma_cm || bail "no /dev/infiniband/rdma_cm"
ls -l /dev/infiniband
[ -c $node ] || err "$node went when ib_uverbs' nodes came"
[ "$(devt $node)" = "$ours" ] || err "$node changed to $(devt $node)"
for n in "/dev/infiniband/$rxeuv" /dev/infiniband/rdma_cm; do
	[ "$(devt "$n")" != "$ours" ] || err "$n has our device number $ours"
done
rxeidx=$(ibindex rxe0)
[ -n "$rxeidx" ] || bail "rdma dev shows no index of rxe0"

xrdma-run xv_names -o >"$out" 2>&1 || err "xv_names rc=$?"
cat "$out"
grep -qx 'devices=1' "$out" || err "xrdma's library with rxe0: not one device"
expect "rxe0 without xrdma_ib" "$out" xnic0 dev_name=xrdma_uverbs0 \
	ibdev_path=/sys/class/xrdma/uverbs0 index=-1 open=ok

sys=$XRDMA_TMP/sys
xv_names -o >"$sys" 2>&1 || err "xv_names (system library) rc=$?"
cat "$sys"
expect "system library" "$sys" rxe0 "dev_name=$rxeuv" \
	"ibdev_path=/sys/class/infiniband/rxe0" "index=$rxeidx" \
	"node=char:$(devt "/dev/infiniband/$rxeuv")" open=ok
! grep -q 'name=xnic0 \|dev_name=xrdma_' "$sys" ||
	err "the system's libibverbs lists an xrdma device"

# --- an ib_core device of the same name that is not ours: rxe "xnic0"
/usr/bin/rdma link add xnic0 type rxe netdev veth1 || bail "rdma link add xnic0 (rxe)"
wait_for 10 test -d /sys/class/infiniband/xnic0 || bail "no rxe xnic0"
[ "$(cat /sys/class/infiniband/xnic0/node_guid)" != "$guid" ] ||
	bail "rxe xnic0 has our node GUID $guid"
xrdma-run xv_names >"$out" 2>&1 || err "xv_names rc=$?"
cat "$out"
expect "rxe named xnic0" "$out" xnic0 dev_name=xrdma_uverbs0 "guid=$guid" \
	ibdev_path=/sys/class/xrdma/uverbs0 index=-1
/usr/bin/rdma link delete xnic0 || bail "rdma link delete xnic0 (rxe)"
wait_for 10 test ! -e /sys/class/infiniband/xnic0 || bail "rxe xnic0 stays"

# --- one process listing through the changes (a fifo drives it)
mkfifo "$XRDMA_TMP/go" || bail "mkfifo"
live=$XRDMA_TMP/live
xrdma-run xv_names -r <"$XRDMA_TMP/go" >"$live" 2>&1 &
live_pid=$!
exec 3>"$XRDMA_TMP/go"
# listed WANT: until xv_names printed WANT listings
listed() { [ "$(grep -c '^devices=' "$live")" -ge "$1" ]; }
relist() {
	echo >&3
	wait_for 10 listed "$1" || bail "xv_names -r printed no listing $1"
}
wait_for 10 listed 1 || bail "xv_names -r printed nothing"

# --- with xrdma_ib
insmod "$ib" || bail "insmod xrdma_ib"
wait_for 10 test -d /sys/class/infiniband/xnic0 || bail "xrdma_ib registered no xnic0"
xidx=$(ibindex xnic0)
[ -n "$xidx" ] || bail "rdma dev shows no index of xnic0"
/usr/bin/rdma dev
[ "$xidx" != "$rxeidx" ] || err "xnic0 and rxe0 have the same index $xidx"
xrdma-run xv_names -o >"$out" 2>&1 || err "xv_names rc=$?"
cat "$out"
expect "xrdma_ib" "$out" xnic0 dev_name=xrdma_uverbs0 \
	dev_path=/sys/class/xrdma/uverbs0 \
	ibdev_path=/sys/class/infiniband/xnic0 "index=$xidx" "guid=$guid" \
	"node=char:$ours" open=ok
# ib_uverbs makes no node of xnic0 (xrdma_ib has no user verbs) and the
# system's library still lists rxe0 alone
xv_names >"$sys" 2>&1 || err "xv_names (system library) rc=$?"
grep -qx 'devices=1' "$sys" || err "system library with xrdma_ib: $(cat "$sys")"
expect "system library, xrdma_ib" "$sys" rxe0 "dev_name=$rxeuv" "index=$rxeidx"

relist 2
relist 3
rmmod xrdma_ib || bail "rmmod xrdma_ib"
relist 4
exec 3>&-
wait "$live_pid" || err "xv_names -r rc=$?"
live_pid=
cat "$live"
grep -v '^devices=' "$live" | grep -v '^name=xnic0 ' && err "xv_names -r: unexpected lines"
# listing N's line of xnic0
nth() { line "$live" xnic0 | sed -n "$1p" >"$XRDMA_TMP/nth"; }
nth 1
expect "relist 1" "$XRDMA_TMP/nth" xnic0 index=-1 ibdev_path=/sys/class/xrdma/uverbs0
nth 2
expect "relist 2 (xrdma_ib)" "$XRDMA_TMP/nth" xnic0 "index=$xidx" \
	ibdev_path=/sys/class/infiniband/xnic0 ptr=new
nth 3
expect "relist 3 (unchanged)" "$XRDMA_TMP/nth" xnic0 "index=$xidx" ptr=same
nth 4
expect "relist 4 (rmmod xrdma_ib)" "$XRDMA_TMP/nth" xnic0 index=-1 \
	ibdev_path=/sys/class/xrdma/uverbs0 ptr=new

# --- without ib_core
/usr/bin/rdma link delete rxe0 || err "rdma link delete rxe0"
/usr/bin/ip link delete veth0 || err "ip link delete veth0"
# ib_core's users, then ib_core (a few rounds: users of users)
for _ in 1 2 3 4; do
	for h in /sys/module/ib_core/holders/*; do
		[ -e "$h" ] && rmmod "${h##*/}" 2>/dev/null
	done
done
rmmod ib_core || bail "rmmod ib_core (holders: $(ls /sys/module/ib_core/holders))"
xrdma-run xv_names -o >"$out" 2>&1 || err "xv_names rc=$?"
cat "$out"
expect "no ib_core" "$out" xnic0 dev_name=xrdma_uverbs0 \
	ibdev_path=/sys/class/xrdma/uverbs0 index=-1 open=ok
! module_loaded ib_core || err "listing xrdma devices loaded ib_core"

xnic_stack_end xnic0
fail_on_errors
