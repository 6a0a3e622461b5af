# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# NVMe over Fabrics between the two guests of a wire test
# (tools/testing/ulp/wire/wire_nvme*.sh; Documentation/testing.rst, "Two
# guests on a wire"): guest a the target, guest b the host, each on the
# RDMA stack lib/wire.sh puts on its eth0.  A test sources it after
# lib/wire.sh and calls
#
#     wire_nvme TARGET_STACK HOST_STACK     # rxe or xnic each
#
# Guest a: null_blk (memory-backed, nsid 1) and a file (buffered, nsid 2)
# exported by nvmet + nvmet-rdma on XRDMA_IP:4420.  Guest b: nvme-rdma,
# nvme connect -t rdma to the peer.  Then, the data checked end to end:
#   w1  b writes a random pattern to nsid 1 (O_DIRECT), reads it back,
#       compares; a compares its null_blk with the pattern's md5
#   w2  the same on nsid 2, a compares the file
#   r3  a writes a pattern straight into null_blk (O_DIRECT), b reads it
#       through nsid 1 (O_DIRECT) and compares: data the host never sent
#   both sides: rdma res shows the ULP's RC QPs in RTS (the admin and the
#   I/O queue: >= 2) and its cm_ids (nvme_rdma on b, nvmet_rdma on a);
#   eth0 of each guest received at least the data it was sent (it
#   crossed the link, whatever the stack); b notes the rate of each pass
#   (for the record, not asserted).
# Then b disconnects (the controller goes within 20 s), a sees the
# target's RC QPs go within 20 s, both unload the ULPs, the stack
# (wire_down) and rdma_cm; ib_core is left unused.  Errors are gathered
# in $XRDMA_TMP/errors and both guests run to the end, so that one side's
# failure shows up on both; the harness fails a guest whose console has
# a kernel splat.

WN_NQN=nqn.2026-12.org.xrdma:wire-nvme
WN_HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:2b1e5a0c-7d4f-4e8a-9c61-5a3f0e7d2c19
WN_HOSTID=2b1e5a0c-7d4f-4e8a-9c61-5a3f0e7d2c19
# MiB per pattern
WN_MIB=${WN_MIB:-4}
WN_ULP_MODS="nvme_rdma nvme_fabrics nvme_core nvme_auth nvme_keyring nvmet_rdma
nvmet null_blk"
WN_CM_MODS="rdma_cm iw_cm ib_cm"
WN_ROLE=

_wn_err() { echo "$*" >>"$XRDMA_TMP/errors"; }

# (received bytes: virtio_net counts those as they come, but sent ones
# only when it reclaims the buffers, later)
_wn_eth_rx() { cat /sys/class/net/"$WIRE_ETH"/statistics/rx_bytes; }

_wn_md5() { md5sum "$1" | cut -d' ' -f1; }

# _wn_now: uptime in centiseconds
_wn_now() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }

# --------------------------------------------------------------- target
# (the target itself: ulp_nvme_target_up and _down of lib/ulp.sh)
# _wn_target_check STEP FILE OFFSET_MIB [iflag=direct]: FILE holds at
# OFFSET_MIB what the host wrote in STEP (its md5, through wire_sync)
_wn_target_check() {
	_wnw=$(wire_sync "$1") || exit 1
	# shellcheck disable=SC2086 # no flag when empty
	/usr/bin/dd if="$2" of="$XRDMA_TMP/back" bs=1M skip="$3" count="$WN_MIB" \
		${4:-} 2>/dev/null || _wn_err "$1: cannot read $2"
	_wnh=$(_wn_md5 "$XRDMA_TMP/back")
	rm -f "$XRDMA_TMP/back"
	if [ "$_wnh" = "$_wnw" ]; then
		note "$1: $2 holds what the host wrote ($WN_MIB MiB at ${3} MiB)"
	else
		_wn_err "$1: $2 at $3 MiB has md5 $_wnh, the host wrote $_wnw"
	fi
}

# --------------------------------------------------------------- host
_wn_connect() {
	_wnt0=$(_wn_now)
	ulp_nvme_connect "$WN_NQN" "$XRDMA_PEER_IP" "$WN_HOSTNQN" "$WN_HOSTID"
	WN_DEV1=$ULP_NVME_DEV1
	WN_DEV2=$ULP_NVME_DEV2
	note "connected in $((($(_wn_now) - _wnt0) * 10)) ms: nsid 1 $WN_DEV1 (null_blk)," \
		"nsid 2 $WN_DEV2 (file)"
	nvme list-subsys 2>/dev/null | sed 's/^/# /'
}

# _wn_rate WHAT CS: note WHAT's rate, WN_MIB MiB in CS centiseconds
_wn_rate() {
	note "$1: $WN_MIB MiB in $2 cs ($(awk -v m="$WN_MIB" -v c="$2" \
		'BEGIN { if (c < 1) c = 1; printf "%.0f", m * 1024 * 100 / c }') KiB/s)"
}

# _wn_host_write STEP DEV OFFSET_MIB: a random pattern to DEV, read back,
# compared; its md5 to the target (wire_sync STEP)
_wn_host_write() {
	_wnp=$XRDMA_TMP/pat
	/usr/bin/dd if=/dev/urandom of="$_wnp" bs=1M count="$WN_MIB" 2>/dev/null ||
		fail "no pattern"
	_wnt0=$(_wn_now)
	if /usr/bin/dd if="$_wnp" of="$2" bs=1M seek="$3" conv=nocreat,notrunc \
		oflag=direct 2>"$XRDMA_TMP/dd"; then
		_wn_rate "$1 write $2" $(($(_wn_now) - _wnt0))
	else
		_wn_err "$1: direct write to $2 failed: $(tail -n 1 "$XRDMA_TMP/dd")"
	fi
	_wnt0=$(_wn_now)
	if /usr/bin/dd if="$2" of="$XRDMA_TMP/back" bs=1M skip="$3" \
		count="$WN_MIB" iflag=direct 2>"$XRDMA_TMP/dd"; then
		_wn_rate "$1 read $2" $(($(_wn_now) - _wnt0))
		/usr/bin/cmp "$_wnp" "$XRDMA_TMP/back" ||
			_wn_err "$1: $2 reads back other data than written"
	else
		_wn_err "$1: direct read from $2 failed: $(tail -n 1 "$XRDMA_TMP/dd")"
	fi
	wire_sync "$1" "$(_wn_md5 "$_wnp")" >/dev/null || exit 1
	rm -f "$_wnp" "$XRDMA_TMP/back"
}

# _wn_host_read STEP DEV OFFSET_MIB: DEV holds at OFFSET_MIB what the
# target put in its backing (the md5 it sends in STEP)
_wn_host_read() {
	_wnw=$(wire_sync "$1") || exit 1
	_wnt0=$(_wn_now)
	if /usr/bin/dd if="$2" of="$XRDMA_TMP/back" bs=1M skip="$3" \
		count="$WN_MIB" iflag=direct 2>"$XRDMA_TMP/dd"; then
		_wn_rate "$1 read $2" $(($(_wn_now) - _wnt0))
		_wnh=$(_wn_md5 "$XRDMA_TMP/back")
		if [ "$_wnh" = "$_wnw" ]; then
			note "$1: $2 reads what the target wrote to its null_blk"
		else
			_wn_err "$1: $2 at $3 MiB has md5 $_wnh, the target wrote $_wnw"
		fi
	else
		_wn_err "$1: direct read from $2 failed: $(tail -n 1 "$XRDMA_TMP/dd")"
	fi
	rm -f "$XRDMA_TMP/back"
}

# --------------------------------------------------------------- both
# _wn_res COMM: this guest's ULP connections on WIRE_IBDEV: RC QPs in
# RTS (the admin and >= 1 I/O queue) and COMM's cm_ids
_wn_res() {
	/usr/bin/rdma res show qp link "$WIRE_IBDEV/1" >"$XRDMA_TMP/qps" 2>&1
	/usr/bin/rdma res show cm_id link "$WIRE_IBDEV/1" >"$XRDMA_TMP/cmids" 2>&1
	sed 's/^/# /' "$XRDMA_TMP/qps" "$XRDMA_TMP/cmids"
	_wnn=$(grep -c 'type RC state RTS' "$XRDMA_TMP/qps")
	[ "$_wnn" -ge 2 ] ||
		_wn_err "rdma res shows $_wnn RC QPs in RTS on $WIRE_IBDEV, want >= 2"
	grep -q "comm \[$1\]" "$XRDMA_TMP/cmids" ||
		_wn_err "rdma res shows no $1 cm_id on $WIRE_IBDEV"
}

_wn_no_rc_qp() {
	! /usr/bin/rdma res show qp link "$WIRE_IBDEV/1" 2>/dev/null |
		grep -q 'type RC'
}

# _wn_teardown: what of the connection, the target, the ULPs, the stack
# and rdma_cm is there (the end of the test and, on a failure, its EXIT
# trap)
_wn_teardown() {
	if [ "$WN_ROLE" = host ]; then
		ulp_nvme_disconnect "$WN_NQN"
	elif [ "$WN_ROLE" = target ]; then
		ulp_nvme_target_down "$WN_NQN" "$WN_IMG"
	fi
	# shellcheck disable=SC2086 # lists
	ulp_rmmod $WN_ULP_MODS
	wire_down
	# shellcheck disable=SC2086
	ulp_rmmod $WN_CM_MODS
	# shellcheck disable=SC2086
	_wnl=$(ulp_loaded $WN_ULP_MODS $WN_CM_MODS | tr '\n' ' ')
	[ -z "$_wnl" ] || _wn_err "modules still loaded: $_wnl"
	_wnr=$(cat /sys/module/ib_core/refcnt 2>/dev/null || echo 0)
	[ "$_wnr" = 0 ] ||
		_wn_err "ib_core still in use (refcnt $_wnr, holders: $(cd /sys/module/ib_core/holders && echo *))"
}

# wire_nvme TARGET_STACK HOST_STACK
wire_nvme() {
	: >"$XRDMA_TMP/errors"
	WN_IMG=$XRDMA_TMP/ns2.img
	command -v nvme >/dev/null || fail "nvme-cli not shipped"
	if [ "$XRDMA_ROLE" = a ]; then
		wire_up "$1"
	else
		wire_up "$2"
	fi
	# wire_up's trap, and the ULPs before it
	trap '_wn_teardown >/dev/null 2>&1' EXIT
	_wne0=$(_wn_eth_rx)
	if [ "$XRDMA_ROLE" = a ]; then
		WN_ROLE=target
		_wnpeer=$(wire_sync up "$WIRE_STACK") || exit 1
		note "host on $_wnpeer"
		ulp_nvme_target_up "$WN_NQN" "$XRDMA_IP" "$WN_IMG"
		wire_sync target "$XRDMA_IP:4420" >/dev/null || exit 1
		_wn_target_check w1 /dev/nullb0 0 iflag=direct
		_wn_target_check w2 "$WN_IMG" 3
		_wnp=$XRDMA_TMP/pat
		/usr/bin/dd if=/dev/urandom of="$_wnp" bs=1M count="$WN_MIB" 2>/dev/null ||
			fail "no pattern"
		/usr/bin/dd if="$_wnp" of=/dev/nullb0 bs=1M seek=40 oflag=direct \
			2>/dev/null || _wn_err "r3: direct write to /dev/nullb0 failed"
		wire_sync r3 "$(_wn_md5 "$_wnp")" >/dev/null || exit 1
		rm -f "$_wnp"
		_wn_res nvmet_rdma
	else
		WN_ROLE=host
		_wnpeer=$(wire_sync up "$WIRE_STACK") || exit 1
		_wnt=$(wire_sync target) || exit 1
		note "target on $_wnpeer, listening on $_wnt"
		_wn_connect
		_wn_host_write w1 "$WN_DEV1" 0
		_wn_host_write w2 "$WN_DEV2" 3
		_wn_host_read r3 "$WN_DEV1" 40
		_wn_res nvme_rdma
	fi
	# the target received two patterns, the host three
	_wnwant=$((3 * WN_MIB * 1048576))
	[ "$WN_ROLE" = target ] && _wnwant=$((2 * WN_MIB * 1048576))
	_wne=$(($(_wn_eth_rx) - _wne0))
	note "$WIRE_ETH received $_wne bytes (the data: $_wnwant)"
	[ "$_wne" -ge "$_wnwant" ] ||
		_wn_err "$WIRE_ETH received $_wne bytes, less than the $_wnwant bytes of data"
	note "counters: $(wire_counters | awk '$2 != 0' | tr '\n' ' ')"
	if [ "$WN_ROLE" = host ]; then
		_wnt0=$(_wn_now)
		ulp_nvme_disconnect "$WN_NQN"
		note "disconnected in $((($(_wn_now) - _wnt0) * 10)) ms"
		wire_sync disconnected >/dev/null || exit 1
	else
		wire_sync disconnected >/dev/null || exit 1
		wait_for 20 _wn_no_rc_qp ||
			_wn_err "the target's RC QPs are still there 20 s after the host disconnected"
	fi
	# (the last exchange: wire_down takes the address away)
	wire_sync end >/dev/null || exit 1
	trap - EXIT
	_wn_teardown
	fail_on_errors
}
