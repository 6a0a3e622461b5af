# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 300
# XRDMA_SUBTEST: rxe 300
# XRDMA_SUBTEST: xnic 300
# XRDMA_DEBIAN_MODULES: crc32_generic veth rdma_rxe ib_core rdma_cm
# XRDMA_PROGRAMS: /usr/bin/ip /usr/bin/rdma
#
# The kernel's rdma_cm and ib_core verbs driven directly by our test ULP
# xrdma_cmtest.ko (tools/testing/ib/cm_test), over Soft-RoCE (rxe) or over
# xnic through xrdma_ib (tools/testing/harness/guest/lib/ulp.sh gives the
# transport; the xnic subtest fails, never skips, without xrdma_ib.ko).
# Client and server cm_ids live in the module, on the one device that
# owns $ULP_IP (loopback).  Every case of the module must print
# "XRDMA_CASE <case> PASS": connect, send, rdma (WRITE/READ through a
# fast-registered MR, LOCAL_INV), disconnect, reject, unreachable,
# peer_gone_qp, peer_gone_id.  Then:
#   - hold: a connection stays up; rdma res shows its two QPs (by QPN, RC,
#     RTS) and the module's cm_ids, PDs and CQs; release disconnects it
#     and rdma res shows nothing of the module, and the device's resource
#     summary equals the one before the module was loaded;
#   - device removal: with a held connection the device goes away
#     (rdma link delete rxe0 / rmmod xnic) in bounded time; every
#     cm_id got DEVICE_REMOVAL and the module freed it all
#     ("XRDMA_CASE device_removal PASS"); the module and the stack unload.

# shellcheck source=/dev/null # lib/ulp.sh, in the guest
. /xrdma/tests/lib/ulp.sh

case $XRDMA_SUBTEST in
rxe | xnic) ;;
*) fail "unknown subtest '$XRDMA_SUBTEST'" ;;
esac

ko=$(xko xrdma_cmtest) || exit 1
: >"$XRDMA_TMP/errors"
mount_debugfs
ulp_fabric_up "$XRDMA_SUBTEST"
assert modprobe rdma_cm

D=$XRDMA_DEBUGFS/xrdma_cmtest
RDMA=/usr/bin/rdma

teardown() {
	module_loaded xrdma_cmtest && { rmmod_timed xrdma_cmtest ||
		echo "rmmod xrdma_cmtest failed" >>"$XRDMA_TMP/errors"; }
	ulp_rmmod rdma_cm iw_cm ib_cm
	ulp_fabric_down
}

die() {
	teardown
	fail "$1"
}

# the device's resource summary ("pd 1 cq 1 qp 1 cm_id 0 mr 0 ...")
res_summary() {
	$RDMA res show 2>&1 | grep " $ULP_IBDEV: " | sed 's/^[0-9]*: //'
}

# run_timed SECONDS CMD...: CMD in the background, 124 if still running
# after SECONDS (scaled)
run_timed() {
	_rt_lim=$(($1 * ${XRDMA_TIMEOUT_SCALE:-1} * 10))
	shift
	"$@" &
	_rt_pid=$!
	_rt_n=0
	while kill -0 $_rt_pid 2>/dev/null; do
		_rt_n=$((_rt_n + 1))
		if [ $_rt_n -gt $_rt_lim ]; then
			note "'$*' still running; its stack:"
			cat /proc/$_rt_pid/stack 2>/dev/null
			return 124
		fi
		sleep 0.1
	done
	wait $_rt_pid
}

before=$(res_summary)
note "before: $before"
# timeout_ms bounds each wait in the module (TCG is slow; scaled)
insmod "$ko" ip="$ULP_IP" timeout_ms=$((10000 * ${XRDMA_TIMEOUT_SCALE:-1})) ||
	die "insmod xrdma_cmtest ip=$ULP_IP"

# --- every case, one at a time
all=$XRDMA_TMP/results
: >"$all"
cat "$D/cases" >"$XRDMA_TMP/cases"
ncases=$(wc -l <"$XRDMA_TMP/cases")
[ "$ncases" -ge 8 ] || die "the module lists $ncases cases, want 8"
while read -r c; do
	if ! echo "$c" >"$D/run"; then
		echo "XRDMA_CASE $c FAIL the run file refused it" >>"$all"
		continue
	fi
	grep "^XRDMA_CASE $c " "$D/results" >>"$all" ||
		echo "XRDMA_CASE $c FAIL no result line" >>"$all"
	grep '^XRDMA_CASE ' "$D/results" | sed 's/^/# /'
done <"$XRDMA_TMP/cases"
npass=$(grep -c '^XRDMA_CASE [^ ]* PASS' "$all")
nfail=$(grep -c '^XRDMA_CASE [^ ]* FAIL' "$all")
note "$npass of $ncases cases passed, $nfail failed"
[ "$nfail" = 0 ] || die "$nfail of $ncases cases failed, first: $(grep -m1 '^XRDMA_CASE [^ ]* FAIL' "$all")"
[ "$npass" = "$ncases" ] || die "$npass of $ncases cases reported PASS"
after=$(res_summary)
[ "$after" = "$before" ] ||
	die "resources after the cases: '$after', before: '$before'"

# --- rdma res while connected, nothing after release
echo hold >"$D/run" || die "the run file refused hold"
line=$(grep '^XRDMA_CASE hold ' "$D/results")
note "$line"
case $line in *" PASS "*) ;; *) die "hold: $line" ;; esac
cq=$(echo "$line" | sed -n 's/.* client_qpn=\([0-9]*\).*/\1/p')
sq=$(echo "$line" | sed -n 's/.* server_qpn=\([0-9]*\).*/\1/p')
$RDMA res show qp link "$ULP_IBDEV/1" >"$XRDMA_TMP/qps" 2>&1
$RDMA res show cm_id link "$ULP_IBDEV/1" >"$XRDMA_TMP/cmids" 2>&1
$RDMA res show pd dev "$ULP_IBDEV" >"$XRDMA_TMP/pds" 2>&1
$RDMA res show cq dev "$ULP_IBDEV" >"$XRDMA_TMP/cqs" 2>&1
sed 's/^/# /' "$XRDMA_TMP/qps" "$XRDMA_TMP/cmids" "$XRDMA_TMP/pds" "$XRDMA_TMP/cqs"
for q in "$cq" "$sq"; do
	[ -n "$q" ] || die "hold reported no QPN: $line"
	grep "lqpn $q " "$XRDMA_TMP/qps" | grep -q 'type RC state RTS' ||
		die "rdma res shows no RC QP $q in RTS on $ULP_IBDEV"
done
n=$(grep -c 'comm \[xrdma_cmtest\]' "$XRDMA_TMP/cmids")
[ "$n" = 3 ] || die "rdma res shows $n cm_ids of xrdma_cmtest, want 3 (listener, client, server)"
n=$(grep -c 'comm \[xrdma_cmtest\]' "$XRDMA_TMP/pds")
[ "$n" = 2 ] || die "rdma res shows $n PDs of xrdma_cmtest, want 2"
n=$(grep -c 'comm \[xrdma_cmtest\]' "$XRDMA_TMP/cqs")
[ "$n" = 2 ] || die "rdma res shows $n CQs of xrdma_cmtest, want 2"
echo release >"$D/run" || die "the run file refused release"
line=$(grep '^XRDMA_CASE release ' "$D/results")
note "$line"
case $line in *" PASS "*) ;; *) die "release: $line" ;; esac
$RDMA res show >"$XRDMA_TMP/res" 2>&1
for r in qp cm_id pd cq mr; do
	$RDMA res show $r >>"$XRDMA_TMP/res" 2>&1
done
grep -q 'xrdma_cmtest' "$XRDMA_TMP/res" &&
	die "rdma res still shows objects of xrdma_cmtest: $(grep -m1 xrdma_cmtest "$XRDMA_TMP/res")"
for q in "$cq" "$sq"; do
	grep -q "lqpn $q " "$XRDMA_TMP/res" && die "QP $q still there after release"
done
after=$(res_summary)
[ "$after" = "$before" ] ||
	die "resources after release: '$after', before: '$before'"

# --- the device goes away under a held connection
echo hold >"$D/run" || die "the run file refused the second hold"
grep -q '^XRDMA_CASE hold PASS' "$D/results" ||
	die "second hold: $(grep '^XRDMA_CASE' "$D/results")"
case $XRDMA_SUBTEST in
rxe) run_timed 60 $RDMA link delete rxe0 ;;
xnic) run_timed 60 rmmod xnic ;;
esac
rc=$?
[ $rc = 0 ] || die "removing $ULP_IBDEV under a held connection: rc=$rc"
ulp_wait 30 grep -q '^XRDMA_CASE device_removal ' "$D/results" ||
	die "no device_removal result 30 s after $ULP_IBDEV went away"
line=$(grep '^XRDMA_CASE device_removal ' "$D/results")
note "$line"
case $line in *" PASS "*) ;; *) die "device_removal: $line" ;; esac
[ ! -d "/sys/class/infiniband/$ULP_IBDEV" ] || die "$ULP_IBDEV still registered"
echo release >"$D/run" 2>/dev/null &&
	die "release accepted after the removal freed the connection"

teardown
if [ -s "$XRDMA_TMP/errors" ]; then
	cat "$XRDMA_TMP/errors"
	fail "$(head -n 1 "$XRDMA_TMP/errors")"
fi
