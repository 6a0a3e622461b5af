# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_VMS: 2
# XRDMA_TIMEOUT: 60
# XRDMA_ROCE: 1
# XRDMA_DEBIAN_MODULES: virtio_pci virtio_net ib_core configfs
# XRDMA_PROGRAMS: /usr/bin/ip /usr/bin/rdma ibv_rc_pingpong
# XRDMA_PROGRAMS: tools/testing/ulp/wire/wire_verify
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run
# XRDMA_PROGRAMS: scripts/xrdma-fault
#
# xnic against xnic on a wire whose faults are xnic's own (issue 26): in
# each guest the xnic port attached to eth0 (wire_begin xnic xnic), and
# the faults made by xrdma-fault rules on the frames that arrive at the
# port (Documentation/faults.rst) instead of by netem.  In turn a rule in
# both guests at once -- drop 2%, dup 1%, reorder 1%, corrupt 1%, seeded
# per guest and fault -- under wire_verify (wire_pair_verify: RC SEND,
# WRITE and READ of 1 B .. 1 MiB, each side the requester in turn, every
# byte and every completion checked on both sides, the peer met over TCP
# after the last completion).  Each guest then checks its own rule and
# its own model's counters of what arrived at it: the rule injected
# faults, and the side that received them recovered --
#   drop     sequence NAKs sent or out-of-sequence drops (wire_seq_naks_sent,
#            wire_oos_drops: a lost request packet makes the next one out
#            of sequence, a lost READ response the next one)
#   dup      duplicates taken (wire_duplicates; a copy follows its frame)
#   reorder  as drop: the frame a held one lets by is out of sequence
#   corrupt  ICRC errors (wire_icrc_errors), more than none and no more
#            than the rule injected
# and no frame was damaged otherwise (no malformed frame, no ICRC error
# but those of corrupt: not the link, not a frame a rule held back or
# copied),
# the requester's counters (retransmits, timeouts, NAKs received) are
# noted.  Then the RC responder's answers, a rule in guest b on the
# SENDs it receives from a, ibv_rc_pingpong (b the server, a the client;
# rnr_retry 7):
#   rnr         --count 3: the pingpong passes both ways with its data
#               checked (-c), the rule injected 3, b sent and a received
#               at least 3 RNR NAKs: a's SENDs completed after their
#               RNR retries
#   nak_access  --count 1: a's client ends by itself with "Failed status
#               remote access error" (IBV_WC_REM_ACCESS_ERR on its SEND),
#               b sent and a received one NAK of that kind, and b's
#               server, whom no message reaches after that (RC has no
#               keepalive), is still waiting and is stopped -- or ended
#               with "transport retry counter exceeded": had the NAK
#               come after a's retransmission timer (67 ms: a guest
#               descheduled), the SEND sent again found the rule used
#               up and was taken, and b's answer found a's QP gone
# Not here: an RNR that runs out of retries (RNR_RETRY_EXC_ERR needs a
# small rnr_retry, and ibv_rc_pingpong, perftest and wire_verify all use
# 7, "for ever"; KUnit's wreq_rnr_exceeded, xnic_sim_wreq_test.c, has
# the wire requester's side).  Every rule is removed before the stack
# goes (a rule holds xnic_sim).

# shellcheck source=/dev/null # lib/wire.sh, in the guest
. /xrdma/tests/lib/wire.sh
command -v xrdma-fault >/dev/null || fail "xrdma-fault not in the guest"
wire_begin xnic xnic
trap 'wire_fault_clear; wire_down' EXIT

# each program's limit (lib/wire.sh; wire_verify's own watchdog 5 s
# less).  A wire_verify run took 1-2 s, the whole test 10-14 s in the
# guests, on 6.12 and on 6.1 alike (December 2026): its limit is twice
# that
# shellcheck disable=SC2034 # lib/wire.sh's
WIRE_PROG_TIMEOUT=15
PEER=$XRDMA_PEER_IP
[ "$XRDMA_ROLE" = b ] && PEER=$XRDMA_IP
# what the requester's recovery shows: noted, not asserted (the peer's
# faults move them too)
REQ_CTRS="wire_retransmits wire_timeouts wire_seq_naks_rcvd"
# a seed per guest and fault: a run is as repeatable as its traffic
SEED=100
[ "$XRDMA_ROLE" = b ] && SEED=200

# fault_round I TYPE RATE: rule TYPE at RATE in both guests, wire_verify
# under it, the rule and this guest's counters checked
fault_round() {
	_i=$1 _t=$2 _r=$3
	case $_t in
	drop | reorder) _want="wire_seq_naks_sent wire_oos_drops" ;;
	dup) _want=wire_duplicates ;;
	corrupt) _want=wire_icrc_errors ;;
	esac
	wire_sim_counters >"$XRDMA_TMP/c$_i.0"
	wire_fault_add "$_t" "f$_i" --rate "$_r" --seed $((SEED + _i))
	wire_sync "f$_i.on" >/dev/null
	# shellcheck disable=SC2086 # the words of the arguments
	wire_pair_verify a "f${_i}_verify" $WIRE_VERIFY_FAULT_ARGS
	_m=$(wire_fault_attr "f$_i" matched)
	_n=$(wire_fault_attr "f$_i" injected)
	wire_fault_del "f$_i"
	wire_sim_counters >"$XRDMA_TMP/c$_i.1"
	# shellcheck disable=SC2086 # a list of names
	_d=$(wire_sim_delta "$XRDMA_TMP/c$_i.0" "$XRDMA_TMP/c$_i.1" $_want)
	_q=$(for _c in $REQ_CTRS; do
		echo "+$(wire_sim_delta "$XRDMA_TMP/c$_i.0" "$XRDMA_TMP/c$_i.1" "$_c") ${_c#wire_}"
	done | tr '\n' ' ')
	_s="$_t $_r: matched $_m, injected $_n; +$_d ${_want}; requester $_q"
	_p=$(wire_sync "f$_i.counted" "$_s")
	note "here: $_s"
	note "peer: $_p"
	case $_n in
	'' | *[!0-9]*)
		echo "$_t: rule f$_i's injected unreadable ('$_n')" >>"$XRDMA_TMP/errors"
		return
		;;
	esac
	[ "$_n" -gt 0 ] ||
		echo "$_t $_r: rule f$_i injected nothing (matched $_m)" >>"$XRDMA_TMP/errors"
	[ "$_d" -gt 0 ] ||
		echo "$_t $_r: $_want did not move under $_n faults" >>"$XRDMA_TMP/errors"
	[ "$_t" != corrupt ] || [ "$_d" -le "$_n" ] ||
		echo "$_t $_r: $_d ICRC errors, more than the $_n frames corrupted" \
			>>"$XRDMA_TMP/errors"
	# nothing else damages a frame: not the link, not a frame held
	# back or copied by a rule
	_x=wire_malformed
	[ "$_t" = corrupt ] || _x="$_x wire_icrc_errors"
	# shellcheck disable=SC2086 # a list of names
	_b=$(wire_sim_delta "$XRDMA_TMP/c$_i.0" "$XRDMA_TMP/c$_i.1" $_x)
	[ "$_b" = 0 ] ||
		echo "$_t $_r: +$_b $_x: damaged frames the rule did not damage" \
			>>"$XRDMA_TMP/errors"
}

note "frame faults on the frames each xnic receives, both guests at once"
fault_round 1 drop 2%
fault_round 2 dup 1%
fault_round 3 reorder 1%
fault_round 4 corrupt 1%

note "the RC responder's answers: rules in b on the SENDs from a"
PP="ibv_rc_pingpong -d $WIRE_IBDEV -g $WIRE_GIDX -n 20 -s 4096"

# rnr: RNR NAKs, then the SENDs go through (rnr_retry 7)
wire_sim_counters >"$XRDMA_TMP/rnr.0"
[ "$XRDMA_ROLE" = a ] || wire_fault_add rnr rnr3 --count 3 --opcode send
# shellcheck disable=SC2086 # the words of the command
wire_pair b rnr "$WIRE_PP" "$WIRE_PP" tcp "$PEER" -- $PP -c
wire_sim_counters >"$XRDMA_TMP/rnr.1"
if [ "$XRDMA_ROLE" = a ]; then
	_k=$(wire_sim_delta "$XRDMA_TMP/rnr.0" "$XRDMA_TMP/rnr.1" wire_rnr_naks_rcvd)
	_p=$(wire_sync rnr.counted "$_k")
	note "rnr: +$_k RNR NAKs received here; the peer: $_p"
	[ "$_k" -ge 3 ] ||
		echo "rnr: $_k RNR NAKs received, want >= 3 (b's rule)" >>"$XRDMA_TMP/errors"
else
	_n=$(wire_fault_attr rnr3 injected)
	wire_fault_del rnr3
	_k=$(wire_sim_delta "$XRDMA_TMP/rnr.0" "$XRDMA_TMP/rnr.1" wire_rnr_naks_sent)
	wire_sync rnr.counted "injected $_n, +$_k RNR NAKs sent" >/dev/null
	[ "$_n" = 3 ] || echo "rnr --count 3: injected '$_n'" >>"$XRDMA_TMP/errors"
	[ "$_k" -ge 3 ] ||
		echo "rnr: $_k RNR NAKs sent, want >= 3" >>"$XRDMA_TMP/errors"
fi

# nak_access: a's SEND completes in IBV_WC_REM_ACCESS_ERR
wire_sim_counters >"$XRDMA_TMP/nak.0"
[ "$XRDMA_ROLE" = a ] || wire_fault_add nak_access nak1 --count 1 --opcode send
# shellcheck disable=SC2034 # lib/wire.sh's
WIRE_FAIL_SRV='^Failed status transport retry counter exceeded '
# shellcheck disable=SC2086 # the words of the command
wire_pair_fails b nak_access \
	'^Failed status remote access error \([0-9]+\) for wr_id [0-9]+$' \
	"$PEER" -- $PP
wire_sim_counters >"$XRDMA_TMP/nak.1"
if [ "$XRDMA_ROLE" = a ]; then
	_k=$(wire_sim_delta "$XRDMA_TMP/nak.0" "$XRDMA_TMP/nak.1" wire_err_naks_rcvd)
	_p=$(wire_sync nak.counted "$_k")
	note "nak_access: +$_k error NAKs received here; the peer: $_p"
	[ "$_k" = 1 ] ||
		echo "nak_access: $_k error NAKs received, want 1 (b's rule)" >>"$XRDMA_TMP/errors"
else
	_n=$(wire_fault_attr nak1 injected)
	wire_fault_del nak1
	_k=$(wire_sim_delta "$XRDMA_TMP/nak.0" "$XRDMA_TMP/nak.1" wire_err_naks_sent)
	wire_sync nak.counted "injected $_n, +$_k error NAKs sent" >/dev/null
	[ "$_n" = 1 ] || echo "nak_access --count 1: injected '$_n'" >>"$XRDMA_TMP/errors"
	[ "$_k" = 1 ] ||
		echo "nak_access: $_k error NAKs sent, want 1" >>"$XRDMA_TMP/errors"
fi

wire_end
