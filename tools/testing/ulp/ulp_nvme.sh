# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 240
# XRDMA_SUBTEST: rxe 240
# XRDMA_SUBTEST: xnic 240
# XRDMA_SUBTEST: remove_rxe 180
# XRDMA_SUBTEST: remove_xnic 180
# XRDMA_DEBIAN_MODULES: crc32_generic veth rdma_rxe ib_core
# XRDMA_DEBIAN_MODULES: null_blk nvmet nvmet-rdma nvme-rdma
# XRDMA_PROGRAMS: ip rdma nvme dd cmp
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
*) fail "unknown subtest '$XRDMA_SUBTEST'" ;;
esac

command -v nvme >/dev/null || fail "nvme-cli not shipped"

connect() {
	ulp_nvme_connect "$NQN" "$ULP_IP" "$HOSTNQN" "$HOSTID"
	DEV1=$ULP_NVME_DEV1
	DEV2=$ULP_NVME_DEV2
	note "connected: nsid 1 $DEV1 (null_blk), nsid 2 $DEV2 (file)"
	nvme list-subsys 2>/dev/null | sed 's/^/# /'
}

# verify DEV BACKING OFFSET_MIB: a random pattern written at OFFSET_MIB
# with O_DIRECT reads back the same through DEV and on BACKING (target)
verify() {
	_p=$XRDMA_TMP/pat
	_d=
	[ -b "$2" ] && _d=iflag=direct
	/usr/bin/dd if=/dev/urandom of="$_p" bs=1M count=$MIB 2>/dev/null ||
		fail "no pattern"
	/usr/bin/dd if="$_p" of="$1" bs=1M seek="$3" conv=nocreat,notrunc \
		oflag=direct 2>"$XRDMA_TMP/dd" || {
		cat "$XRDMA_TMP/dd"
		fail "direct write to $1 failed"
	}
	/usr/bin/dd if="$1" of="$XRDMA_TMP/back" bs=1M skip="$3" count=$MIB \
		iflag=direct 2>"$XRDMA_TMP/dd" || {
		cat "$XRDMA_TMP/dd"
		fail "direct read from $1 failed"
	}
	/usr/bin/cmp "$_p" "$XRDMA_TMP/back" ||
		fail "$1: data read back differs from the pattern written"
	# shellcheck disable=SC2086 # no argument when empty
	/usr/bin/dd if="$2" of="$XRDMA_TMP/back" bs=1M skip="$3" count=$MIB \
		$_d 2>/dev/null || fail "cannot read $2"
	/usr/bin/cmp "$_p" "$XRDMA_TMP/back" ||
		fail "$2 (target side) does not hold what was written to $1"
	rm -f "$_p" "$XRDMA_TMP/back"
}

# teardown: disconnect (if connected), target, modules, transport; each
# step copes with what is not there (the end of the test and, on a
# failure, the exit trap)
teardown() {
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

trap 'teardown >/dev/null 2>&1' EXIT
ulp_fabric_up "$TR"
ulp_nvme_target_up "$NQN" "$ULP_IP" "$IMG"
connect

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
else
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
fi

trap - EXIT
teardown
fail_on_errors
