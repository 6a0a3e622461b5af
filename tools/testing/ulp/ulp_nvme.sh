# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 240
# XRDMA_SUBTEST: rxe 240
# XRDMA_SUBTEST: xnic 240
# XRDMA_SUBTEST: remove_rxe 180
# XRDMA_SUBTEST: remove_xnic 180
# XRDMA_SUBTEST: flap_xnic 90
# XRDMA_SUBTEST: lost_xnic 240
# XRDMA_SUBTEST: fatal_xnic 150
# XRDMA_DEBIAN_MODULES: configfs crc32_generic veth rdma_rxe ib_core
# XRDMA_DEBIAN_MODULES: null_blk nvmet nvmet-rdma nvme-rdma
# XRDMA_PROGRAMS: ip rdma nvme dd cmp
# XRDMA_PROGRAMS: scripts/xrdma-fault
#
# NVMe over Fabrics through the kernel's RDMA stack, with Debian's modules
# and nvme-cli only (tools/testing/harness/guest/lib/ulp.sh gives the transport):
# nvmet + nvmet-rdma export a memory-backed null_blk namespace (nsid 1)
# and a file-backed one (nsid 2) on $ULP_IP:4420; nvme-rdma connects
# (nvme connect -t rdma); a random pattern written with O_DIRECT to each
# namespace reads back byte for byte, through the host and on the target
# side; the transport's counters show the data crossed the device under
# test; rdma res shows the ULPs' QPs; nvme disconnect; everything
# unloads.
#
#   rxe, xnic                 the above over Soft-RoCE / xnic (xrdma_ib)
#   remove_rxe, remove_xnic   the device disappears under a live
#                             connection with I/O running (rdma link
#                             delete rxe0 / rmmod xnic): the host's error
#                             handling removes the controller in bounded
#                             time, the reading process ends, and the
#                             stack unloads
#
# The model's faults (Documentation/faults.rst, scripts/xrdma-fault) under
# the connection, host and target on xnic0's loopback:
#   flap_xnic    nvme connect --reconnect-delay=1 --ctrl-loss-tmo=60; a
#                pattern written; direct writes and reads (verified) of
#                another pattern in the background; "link xnic0 down":
#                the host's I/O gets no answer and the controller leaves
#                "live"; 3 s later "link up": by itself it is live again
#                (it went through "connecting"; the kernel log has
#                "Reconnecting in 1 seconds" and "Successfully
#                reconnected"), the background I/O goes on and ends with
#                no error, the first pattern reads back, new ones verify
#                (host and target side)
#   lost_xnic    --reconnect-delay=1 --ctrl-loss-tmo=1, a reader running;
#                the link goes down and stays down: the one reconnect
#                attempt fails when rdma_cm gives up on its connection
#                request (about 80 s on 6.12, 105 s on 6.1: ctrl_loss_tmo
#                counts attempts, and an attempt on a silent port lasts
#                the CM's retries), the controller is deleted, the reader
#                ends with an error; link up, a new connection works
#   fatal_xnic   patterns written to both namespaces, a reader running;
#                "fatal xnic0": the xnic driver recovers the device
#                (unbind and probe: a new ib_device xnic0 and netdev, the
#                address put back), nvme-rdma deletes its controller on the
#                device's removal (no reconnection across it), the reader
#                ends; nvmet-rdma's listener went with the old device: the
#                port is enabled again (configfs), a new nvme connect
#                works, the patterns read back (null_blk is memory
#                backed) and a new one verifies
# These check the kernel log since their start for splats; teardown puts
# the link up and unloads everything.

# shellcheck source=/dev/null # lib/ulp.sh, in the guest
. /xrdma/tests/lib/ulp.sh

NQN=nqn.2026-12.org.xrdma:ulp-nvme
MIB=8
IMG=$XRDMA_TMP/ns2.img
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:6c7a7e8a-1d2b-4c3d-9e0f-0123456789ab
HOSTID=6c7a7e8a-1d2b-4c3d-9e0f-0123456789ab
ULP_MODS="nvme_rdma nvme_fabrics nvme_core nvmet_rdma nvmet null_blk
rdma_cm iw_cm ib_cm"

case $XRDMA_SUBTEST in
rxe | xnic) TR=$XRDMA_SUBTEST MODE=data ;;
remove_rxe | remove_xnic) TR=${XRDMA_SUBTEST#remove_} MODE=remove ;;
flap_xnic | lost_xnic | fatal_xnic) TR=xnic MODE=${XRDMA_SUBTEST%_xnic} ;;
*) fail "unknown subtest '$XRDMA_SUBTEST'" ;;
esac

command -v nvme >/dev/null || fail "nvme-cli not shipped"

# connect [OPTION...]: nvme connect (with OPTION...)
connect() {
	ulp_nvme_connect "$NQN" "$ULP_IP" "$HOSTNQN" "$HOSTID" "$@"
	DEV1=$ULP_NVME_DEV1
	DEV2=$ULP_NVME_DEV2
	note "connected: nsid 1 $DEV1 (null_blk), nsid 2 $DEV2 (file)"
	nvme list-subsys 2>/dev/null | sed 's/^/# /'
}

# pat_make FILE MIB: a random pattern of MIB MiB
pat_make() {
	/usr/bin/dd if=/dev/urandom of="$1" bs=1M count="$2" 2>/dev/null ||
		fail "no pattern"
}

# pat_put DEV OFFSET_MIB FILE: FILE written to DEV at OFFSET_MIB with
# O_DIRECT
pat_put() {
	/usr/bin/dd if="$3" of="$1" bs=1M seek="$2" conv=nocreat,notrunc \
		oflag=direct 2>"$XRDMA_TMP/dd" || {
		cat "$XRDMA_TMP/dd"
		fail "direct write to $1 failed"
	}
}

# pat_check DEV BACKING OFFSET_MIB FILE: DEV at OFFSET_MIB (O_DIRECT)
# and BACKING (the target's side) hold FILE
pat_check() {
	_n=$(($(wc -c <"$4") / 1048576))
	_d=
	[ -b "$2" ] && _d=iflag=direct
	/usr/bin/dd if="$1" of="$XRDMA_TMP/back" bs=1M skip="$3" count="$_n" \
		iflag=direct 2>"$XRDMA_TMP/dd" || {
		cat "$XRDMA_TMP/dd"
		fail "direct read from $1 failed"
	}
	/usr/bin/cmp "$4" "$XRDMA_TMP/back" ||
		fail "$1: data read back differs from the pattern written"
	# shellcheck disable=SC2086 # no argument when empty
	/usr/bin/dd if="$2" of="$XRDMA_TMP/back" bs=1M skip="$3" count="$_n" \
		$_d 2>/dev/null || fail "cannot read $2"
	/usr/bin/cmp "$4" "$XRDMA_TMP/back" ||
		fail "$2 (target side) does not hold what was written to $1"
	rm -f "$XRDMA_TMP/back"
}

# verify DEV BACKING OFFSET_MIB: a random pattern written at OFFSET_MIB
# with O_DIRECT reads back the same through DEV and on BACKING (target)
verify() {
	pat_make "$XRDMA_TMP/pat" $MIB
	pat_put "$1" "$3" "$XRDMA_TMP/pat"
	pat_check "$1" "$2" "$3" "$XRDMA_TMP/pat"
	rm -f "$XRDMA_TMP/pat"
}

# teardown: disconnect (if connected), target, modules, transport; each
# step copes with what is not there (the end of the test and, on a
# failure, the exit trap)
teardown() {
	bg_end
	link_up
	ulp_nvme_disconnect "$NQN"
	ulp_nvme_target_down "$NQN"
	# shellcheck disable=SC2086 # a list
	ulp_rmmod $ULP_MODS
	ulp_fabric_down
	# shellcheck disable=SC2086
	left=$(ulp_loaded $ULP_MODS nvme_rdma nvmet_rdma | sort -u | tr '\n' ' ')
	[ -z "$left" ] || echo "modules still loaded: $left" >>"$XRDMA_TMP/errors"
	_rc=$(cat /sys/module/ib_core/refcnt 2>/dev/null || echo 0)
	[ "$_rc" = 0 ] || {
		echo "ib_core still in use (refcnt $_rc, holders: $(cd /sys/module/ib_core/holders && echo *))"
		lsmod
	} >>"$XRDMA_TMP/errors"
}

# ------------------------------------------------------------- faults
# (flap, lost, fatal: the model's faults, Documentation/faults.rst)

CFS=/sys/kernel/config/xnic_sim
# the background programs' pids
BGP=
CTRL=

# now: seconds since boot
now() {
	read -r _t _ </proc/uptime
	echo "${_t%.*}"
}

# bg_end: the background programs end (SIGKILL) and are reaped
bg_end() {
	for _p in $BGP; do
		ulp_kill_tree "$_p"
	done
	BGP=
}

# link_up: xnic_sim's ports up, flapping off (if it is loaded)
link_up() {
	for _l in "$CFS"/*/link; do
		[ -e "$_l" ] && echo up >"$_l"
	done
	return 0
}

# ctrl_of: the nvme controller (nvmeN) of subsystem NQN
ctrl_of() {
	for _c in /sys/class/nvme/nvme*; do
		[ "$(cat "$_c/subsysnqn" 2>/dev/null)" = "$NQN" ] || continue
		echo "${_c##*/}"
		return 0
	done
	return 1
}

# state: the state of controller CTRL ("gone" once deleted)
state() { cat "/sys/class/nvme/$CTRL/state" 2>/dev/null || echo gone; }

# shellcheck disable=SC2317 # called through wait_for
state_is() { [ "$(state)" = "$1" ]; }

# shellcheck disable=SC2317
state_not() { [ "$(state)" != "$1" ]; }

# watch_states: every state CTRL goes through, a line each in
# $XRDMA_TMP/states (polled every 50 ms), until $XRDMA_TMP/watch.stop
watch_states() {
	_wl=
	while [ ! -e "$XRDMA_TMP/watch.stop" ]; do
		_ws=gone
		read -r _ws 2>/dev/null <"/sys/class/nvme/$CTRL/state"
		[ "$_ws" = "$_wl" ] || echo "$_ws" >>"$XRDMA_TMP/states"
		_wl=$_ws
		sleep 0.05
	done
}

# states: the states watch_states saw, on one line
states() { tr '\n' ' ' <"$XRDMA_TMP/states"; }

# bg_io DEV OFFSET_MIB FILE: FILE written to DEV at OFFSET_MIB and read
# back, O_DIRECT, again and again until $XRDMA_TMP/io.stop exists; the
# rounds done in $XRDMA_TMP/io.n; 0, or 1 at the first error (the error
# in $XRDMA_TMP/io.err)
bg_io() {
	_in=0
	_ic=$(($(wc -c <"$3") / 1048576))
	while [ ! -e "$XRDMA_TMP/io.stop" ]; do
		/usr/bin/dd if="$3" of="$1" bs=1M seek="$2" conv=nocreat,notrunc \
			oflag=direct 2>"$XRDMA_TMP/io.err" || return 1
		/usr/bin/dd if="$1" of="$XRDMA_TMP/io.back" bs=1M skip="$2" \
			count="$_ic" iflag=direct 2>"$XRDMA_TMP/io.err" || return 1
		/usr/bin/cmp "$3" "$XRDMA_TMP/io.back" >"$XRDMA_TMP/io.err" 2>&1 ||
			return 1
		_in=$((_in + 1))
		echo $_in >"$XRDMA_TMP/io.n"
	done
}

io_n() { cat "$XRDMA_TMP/io.n" 2>/dev/null || echo 0; }

# shellcheck disable=SC2317 # called through wait_for
io_ge() { [ "$(io_n)" -ge "$1" ]; }

# reader DEV: direct reads of DEV in a loop until one fails (its error
# in $XRDMA_TMP/rd.err)
reader() {
	while /usr/bin/dd if="$1" of=/dev/null bs=64k count=256 iflag=direct \
		2>"$XRDMA_TMP/rd.err"; do
		:
	done
}

# shellcheck disable=SC2317 # called through wait_for
gone() { ! kill -0 "$1" 2>/dev/null; }

# hung WHAT PID: PID (WHAT) still runs: its stack and the blocked tasks,
# then fail
hung() {
	cat "/proc/$2/stack" 2>/dev/null
	echo w >/proc/sysrq-trigger
	fail "$1"
}

# reader_start DEV BEFORE: the reader of DEV (its pid in $rd) and
# watch_states in the background; the reader still runs a second later
# (BEFORE: "the link went down", what the test does next)
reader_start() {
	reader "$1" &
	rd=$!
	BGP="$BGP $rd"
	watch_states &
	BGP="$BGP $!"
	sleep 1
	! gone "$rd" || fail "the reader ended before $2: $(cat "$XRDMA_TMP/rd.err")"
}

# reader_end WHAT: the reader ends (with an error: WHAT went) within 30 s
reader_end() {
	ulp_wait 30 gone "$rd" || hung "the reader still runs 30 s after $1 went" "$rd"
	wait "$rd"
}

# klog_has MARK ERE: the kernel log since MARK has a line matching ERE
# shellcheck disable=SC2317 # called through wait_for
klog_has() { ulp_klog_since "$1" | grep -Eq "$2"; }

# splat_check: no splat in the kernel log since the subtest began
splat_check() {
	ulp_klog_since start | grep -E "$ULP_SPLAT" >"$XRDMA_TMP/splats"
	[ ! -s "$XRDMA_TMP/splats" ] || {
		head -n 5 "$XRDMA_TMP/splats"
		fail "kernel log: $(head -n 1 "$XRDMA_TMP/splats")"
	}
}

# params RECONNECT_DELAY CTRL_LOSS_TMO: CTRL is live with these
params() {
	CTRL=$(ctrl_of) || fail "no nvme controller of $NQN"
	assert_eq "$(state)" live "$CTRL state"
	assert_eq "$(cat "/sys/class/nvme/$CTRL/reconnect_delay")" "$1" \
		"$CTRL reconnect_delay"
	assert_eq "$(cat "/sys/class/nvme/$CTRL/ctrl_loss_tmo")" "$2" \
		"$CTRL ctrl_loss_tmo"
}

# host_qps: the host's (nvme_rdma's) QP numbers on one line
host_qps() {
	/usr/bin/rdma res show cm_id link "$ULP_IBDEV/1" 2>/dev/null |
		sed -n 's/.* lqpn \([0-9]*\) .*comm \[nvme_rdma\].*/\1/p' |
		tr '\n' ' '
}

# shellcheck disable=SC2317 # called through wait_for
listening() {
	/usr/bin/rdma res show cm_id 2>/dev/null |
		grep -q "state LISTEN .*comm \[nvmet_rdma\] src-addr $ULP_IP:4420 "
}

sub_flap() {
	connect --reconnect-delay=1 --ctrl-loss-tmo=60
	params 1 60
	pat_make "$XRDMA_TMP/before" $MIB
	pat_put "$DEV1" 0 "$XRDMA_TMP/before"
	pat_check "$DEV1" /dev/nullb0 0 "$XRDMA_TMP/before"
	qps0=$(host_qps)
	pat_make "$XRDMA_TMP/io" 4
	bg_io "$DEV1" 16 "$XRDMA_TMP/io" &
	io=$!
	BGP="$BGP $io"
	watch_states &
	BGP="$BGP $!"
	ulp_wait 30 io_ge 2 || fail "background I/O: not 2 rounds in 30 s"

	ulp_klog_mark flap
	xrdma-fault link xnic0 down || fail "xrdma-fault link xnic0 down"
	t0=$(now)
	# I/O in flight gets no answer: the host's QPs fail, error recovery
	ulp_wait 20 state_not live ||
		fail "$CTRL still live 20 s after the link went down, I/O running"
	note "link down: $CTRL $(state) after $(($(now) - t0)) s, I/O rounds $(io_n)"
	sleep 3
	xrdma-fault link xnic0 up || fail "xrdma-fault link xnic0 up"
	t1=$(now)
	note "link up after $((t1 - t0)) s down: $CTRL $(state)"
	ulp_wait 60 state_is live || {
		ulp_klog_since flap | tail -n 20
		fail "$CTRL not live 60 s after the link came up (state $(state))"
	}
	note "$CTRL live $(($(now) - t1)) s after the link came up"
	ulp_klog_since flap >"$XRDMA_TMP/klog"
	grep -E "nvme $CTRL: |nvme_rdma|nvmet" "$XRDMA_TMP/klog" | sed 's/^/# /'
	grep -q "nvme $CTRL: Reconnecting in 1 seconds" "$XRDMA_TMP/klog" ||
		fail "no 'nvme $CTRL: Reconnecting in 1 seconds' in the kernel log"
	# printed after the state is live again (nvme_start_ctrl() between)
	ulp_wait 10 klog_has flap "nvme $CTRL: Successfully reconnected" ||
		fail "no 'nvme $CTRL: Successfully reconnected' in the kernel log"
	n=$(io_n)
	ulp_wait 30 io_ge $((n + 2)) || {
		gone "$io" && fail "the background I/O ended: $(cat "$XRDMA_TMP/io.err")"
		hung "background I/O: no 2 more rounds 30 s after $CTRL was live" "$io"
	}
	touch "$XRDMA_TMP/io.stop" "$XRDMA_TMP/watch.stop"
	ulp_wait 30 gone "$io" || hung "the background I/O did not end" "$io"
	wait "$io" || fail "the background I/O failed: $(cat "$XRDMA_TMP/io.err")"
	bg_end
	note "background I/O: $(io_n) rounds, no error; $CTRL went $(states)"
	grep -qx connecting "$XRDMA_TMP/states" ||
		fail "$CTRL never seen connecting: $(states)"
	note "the host's QPs: $qps0-> $(host_qps)"
	# the data written before, and new data
	pat_check "$DEV1" /dev/nullb0 0 "$XRDMA_TMP/before"
	verify "$DEV1" /dev/nullb0 40
	verify "$DEV2" "$IMG" 3
}

sub_lost() {
	# one reconnect attempt (ctrl_loss_tmo / reconnect_delay); it lasts
	# until rdma_cm gives up on its connection request, which the port
	# loses: 16 tries of about 4.8 s (6.12; 6.4 s on 6.1)
	connect --reconnect-delay=1 --ctrl-loss-tmo=1
	params 1 1
	reader_start "$DEV1" "the link went down"
	ulp_klog_mark lost
	xrdma-fault link xnic0 down || fail "xrdma-fault link xnic0 down"
	t0=$(now)
	ulp_wait 210 ulp_nvme_no_ctrl || {
		ulp_klog_since lost | tail -n 30
		hung "$CTRL still there 210 s after the link went down (state $(state))" "$rd"
	}
	t1=$(now)
	ulp_klog_since lost >"$XRDMA_TMP/klog"
	sed 's/^/# /' "$XRDMA_TMP/klog"
	note "$CTRL deleted $((t1 - t0)) s after the link went down; went $(states)"
	# 6.1 says "attempt 1", 6.12 "attempt 1/1"
	grep -Eq "nvme $CTRL: Failed reconnect attempt 1(/1)?\$" "$XRDMA_TMP/klog" ||
		fail "no 'nvme $CTRL: Failed reconnect attempt 1' in the kernel log"
	grep -q "nvme $CTRL: Removing ctrl: NQN \"$NQN\"" "$XRDMA_TMP/klog" ||
		fail "no 'nvme $CTRL: Removing ctrl' in the kernel log"
	reader_end "$CTRL"
	note "the reader ended: $(tail -n 1 "$XRDMA_TMP/rd.err")"
	refute test -b "$DEV1"
	touch "$XRDMA_TMP/watch.stop"
	bg_end
	xrdma-fault link xnic0 up || fail "xrdma-fault link xnic0 up"
	# the target still serves a new controller
	connect
	verify "$DEV1" /dev/nullb0 40
}

sub_fatal() {
	connect
	CTRL=$(ctrl_of) || fail "no nvme controller of $NQN"
	pat_make "$XRDMA_TMP/before" $MIB
	pat_put "$DEV1" 0 "$XRDMA_TMP/before"
	pat_check "$DEV1" /dev/nullb0 0 "$XRDMA_TMP/before"
	pat_make "$XRDMA_TMP/before2" 4
	pat_put "$DEV2" 8 "$XRDMA_TMP/before2"
	pat_check "$DEV2" "$IMG" 8 "$XRDMA_TMP/before2"
	_sl=$(readlink /sys/class/infiniband/xnic0/device) || fail "xnic0 has no device"
	pdev=${_sl##*/}
	idx0=$(/usr/bin/rdma dev show xnic0 | sed -n 's/^\([0-9]*\): xnic0:.*/\1/p')
	nd0="$ULP_NETDEV/$(cat "/sys/class/net/$ULP_NETDEV/ifindex")"
	reader_start "$DEV1" "the fatal error"
	ulp_klog_mark fatal
	xrdma-fault fatal xnic0 || fail "xrdma-fault fatal xnic0"
	t0=$(now)
	# the recovery's unbind waits for nvme-rdma to delete its controller
	ulp_wait 60 klog_has fatal "xnic $pdev: recovered\$" || {
		ulp_klog_since fatal | tail -n 40
		hung "no 'xnic $pdev: recovered' 60 s after the fatal error" "$rd"
	}
	note "xnic0 recovered $(($(now) - t0)) s after the fatal error"
	ulp_wait 30 ulp_nvme_no_ctrl || hung "$CTRL still there after the recovery" "$rd"
	ulp_klog_since fatal >"$XRDMA_TMP/klog"
	sed 's/^/# /' "$XRDMA_TMP/klog"
	grep -q "nvme $CTRL: Removing ctrl: NQN \"$NQN\"" "$XRDMA_TMP/klog" ||
		fail "no 'nvme $CTRL: Removing ctrl' in the kernel log"
	reader_end "$CTRL"
	note "the reader ended: $(tail -n 1 "$XRDMA_TMP/rd.err"); $CTRL went $(states)"
	touch "$XRDMA_TMP/watch.stop"
	bg_end
	refute test -b "$DEV1"
	ulp_xnic_readdress
	idx1=$(/usr/bin/rdma dev show xnic0 | sed -n 's/^\([0-9]*\): xnic0:.*/\1/p')
	nd1="$ULP_NETDEV/$(cat "/sys/class/net/$ULP_NETDEV/ifindex")"
	note "ib_device xnic0 index $idx0 -> $idx1, netdev $nd0 -> $nd1"
	[ "$idx0" != "$idx1" ] || fail "xnic0 kept its index $idx0: not a new device"
	# nvmet-rdma's listener went with the old device (DEVICE_REMOVAL
	# destroys it; its port repairs itself on ADDR_CHANGE only): the
	# port is enabled again, as an administrator would
	if listening; then
		note "nvmet-rdma listens on the new xnic0 by itself"
	else
		note "nvmet-rdma does not listen on the new xnic0: enabling its port again"
	fi
	rm "$ULP_NVME_PORT/subsystems/$NQN" || fail "cannot unlink the port"
	ln -s "$ULP_NVME_CFS/subsystems/$NQN" "$ULP_NVME_PORT/subsystems/$NQN" ||
		fail "nvmet-rdma cannot listen on $ULP_IP:4420 again"
	ulp_wait 10 listening || fail "no nvmet_rdma listener"
	connect
	pat_check "$DEV1" /dev/nullb0 0 "$XRDMA_TMP/before"
	pat_check "$DEV2" "$IMG" 8 "$XRDMA_TMP/before2"
	verify "$DEV1" /dev/nullb0 40
}

trap 'teardown >/dev/null 2>&1' EXIT
ulp_fabric_up "$TR"
ulp_nvme_target_up "$NQN" "$ULP_IP" "$IMG"
case $MODE in
data | remove) connect ;;
*)
	command -v xrdma-fault >/dev/null || fail "xrdma-fault not in the guest"
	ulp_klog_mark start
	;;
esac

if [ "$MODE" = data ]; then
	t0=$(ulp_traffic)
	verify "$DEV1" /dev/nullb0 0
	verify "$DEV1" /dev/nullb0 40
	verify "$DEV2" "$IMG" 3
	t1=$(ulp_traffic)
	want=$(ulp_traffic_min $((3 * 2 * MIB * 1048576)))
	note "$ULP_IBDEV traffic: $((t1 - t0)) $ULP_TRAFFIC_UNIT (at least $want)"
	[ $((t1 - t0)) -ge "$want" ] ||
		fail "$ULP_IBDEV counters moved $((t1 - t0)) $ULP_TRAFFIC_UNIT, want >= $want: the data did not cross it"
	# the ULPs' connections: the admin queue and at least one I/O queue,
	# an RC QP on each side of each; the host's and the target's cm_ids
	# named after them
	/usr/bin/rdma res show qp link "$ULP_IBDEV/1" >"$XRDMA_TMP/qps" 2>&1
	/usr/bin/rdma res show cm_id link "$ULP_IBDEV/1" >"$XRDMA_TMP/cmids" 2>&1
	sed 's/^/# /' "$XRDMA_TMP/qps" "$XRDMA_TMP/cmids"
	n=$(grep -c 'type RC state RTS' "$XRDMA_TMP/qps")
	[ "$n" -ge 4 ] || fail "rdma res shows $n RC QPs in RTS on $ULP_IBDEV, want >= 4"
	grep -q 'comm \[nvme_rdma\]' "$XRDMA_TMP/cmids" ||
		fail "rdma res shows no nvme_rdma cm_id on $ULP_IBDEV"
	grep -q 'comm \[nvmet_rdma\]' "$XRDMA_TMP/cmids" ||
		fail "rdma res shows no nvmet_rdma cm_id on $ULP_IBDEV"
	nvme disconnect -n "$NQN" || fail "nvme disconnect -n $NQN"
	ulp_wait 20 ulp_nvme_no_ctrl || fail "controller still there 20 s after nvme disconnect"
elif [ "$MODE" = remove ]; then
	# direct reads in a loop until the device goes
	(
		while /usr/bin/dd if="$DEV1" of=/dev/null bs=64k count=256 \
			iflag=direct 2>/dev/null; do
			:
		done
	) &
	reader=$!
	trap 'kill $reader; teardown >/dev/null 2>&1' EXIT
	sleep 1
	kill -0 $reader 2>/dev/null || fail "the reader ended before the removal"
	if [ "$TR" = rxe ]; then
		/usr/bin/rdma link delete rxe0 &
		rm_pid=$!
		what="rdma link delete rxe0"
	else
		rmmod xnic &
		rm_pid=$!
		what="rmmod xnic"
	fi
	# shellcheck disable=SC2016 # eval'ed by ulp_wait
	if ! ulp_wait 60 eval '! kill -0 $rm_pid 2>/dev/null'; then
		cat /proc/$rm_pid/stack 2>/dev/null
		echo w >/proc/sysrq-trigger
		fail "$what still running after 60 s"
	fi
	wait $rm_pid || fail "$what failed"
	note "$what done"
	ulp_wait 60 ulp_nvme_no_ctrl || {
		ls /sys/class/nvme/
		fail "the nvme controller is still there 60 s after $what"
	}
	# shellcheck disable=SC2016
	ulp_wait 30 eval '! kill -0 $reader 2>/dev/null' || {
		fail "the reader still runs 30 s after the device went"
	}
	trap 'teardown >/dev/null 2>&1' EXIT
	refute test -b "$DEV1"
	# the target's listener lost its device: reconnecting must fail
	refute nvme connect -t rdma -a "$ULP_IP" -s 4420 -n "$NQN" \
		--hostnqn="$HOSTNQN" --hostid="$HOSTID"
	ulp_wait 20 ulp_nvme_no_ctrl || fail "a controller appeared without a device"
else
	sub_"$MODE"
	splat_check
fi

trap - EXIT
teardown
fail_on_errors
