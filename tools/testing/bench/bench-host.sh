#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: xrdma (xnic through tools/lib/xverbs) against Soft-RoCE (rxe)
# in one QEMU TCG guest, with the guest's physical limits beside them;
# then across the wire: two guests on the QEMU socket link of the wire
# tests, pairings xnic-xnic, rxe-rxe, xnic-rxe and rxe-xnic.
# The guest sides are tools/testing/bench/bench-guest.sh, run by the guest
# test tools/testing/bench/bench.sh, and the two-guest test
# tools/testing/bench/bench_wire.sh, both in full mode; this script
# collects their BENCH lines and writes the report
# (tools/testing/bench/bench-report.py):
#   build/bench/<run>/raw.txt      every measurement
#   build/bench/<run>/results.txt  the table: medians, ratio, % of limit
#   build/bench/<run>/results.csv
#   build/bench/<run>/chart.png
# (build/bench/latest is the last run).
#
# Environment: BENCH_RUNS (pairs of runs per metric, default 5; rounds
# of the two-guest pairings, default 3), BENCH_MODE (full, or smoke for
# a quick look), BENCH_TESTS (default "bench bench_wire": one of them
# runs that part only), BENCH_PAIRS (the two-guest pairings, comma
# separated), XRDMA_SMP (vCPUs of the one guest, default 2; the two
# guests have XRDMA_2VM_SMP, default 1), XRDMA_BUILD=0 (use what is
# built).  The two-guest run has no capture of the link (XRDMA_NO_PCAP:
# QEMU's filter-dump would write every frame, and its check read them).
# Progress: every XRDMA_PROGRESS_INTERVAL seconds (default 30) a line on
# stderr, the measurements taken vs the last run's count of this mode and
# number of runs ($XRDMA_CACHE/progress/bench-MODE-RUNS) with the time
# left at this run's pace, or before they start guest-test.sh's last line.
set -uo pipefail

# shellcheck source=tools/testing/harness/host/lib.sh
. "$(dirname "$0")/../harness/host/lib.sh"

RUNS=${BENCH_RUNS:-5}
WRUNS=${BENCH_RUNS:-3}
MODE=${BENCH_MODE:-full}
TESTS=${BENCH_TESTS:-bench bench_wire}
RUN=$(date +%Y%m%d-%H%M%S)
OUT=$XRDMA_ROOT/build/bench/$RUN
mkdir -p "$OUT"
ln -sfn "$RUN" "$XRDMA_ROOT/build/bench/latest"

echo "bench: $MODE mode, $TESTS: $RUNS run(s) of each stack, ${XRDMA_SMP:-2} vCPUs; $WRUNS round(s) of the two-guest pairings"
KEPT=bench-$MODE-$RUNS-$(echo "$TESTS" | tr ' ' _)
EXPECT=$(progress_recall "$KEPT" measurements)
last=$(progress_recall "$KEPT" secs)
[ -z "$last" ] || echo "bench: the last such run took $(progress_about "$last") (XRDMA_BUILD=0 skips the build)"
T0=$(date +%s)
M_T1="" M_N1=0
# shellcheck disable=SC2317 # called by the heartbeat
bench_progress() {
	local d=$XRDMA_ROOT/build/guest/latest src n=0 now rate
	now=$(date +%s)
	# the guest run of this bench (guest-test.sh made it latest)
	if [ -d "$d" ] && [ "$(stat -L -c %Y "$d")" -ge "$T0" ]; then
		src=$d/vm.log.marks
		[ -s "$src" ] || src=$d/vm.log
		n=$(cat "$src" "$d/b.log" 2>/dev/null | grep -ac '^BENCH ')
	fi
	if [ "${n:-0}" = 0 ]; then
		PROGRESS_MSG="$(tail -n 1 "$OUT/guest.txt" 2>/dev/null | cut -c1-160)"
		return
	fi
	[ -n "$M_T1" ] || { M_T1=$now; M_N1=$n; }
	if [ -z "$EXPECT" ]; then
		PROGRESS_MSG="$n measurements (the first such run here: no count to compare with)"
		return
	fi
	[ "$n" -le "$EXPECT" ] || EXPECT=$n
	PROGRESS_MSG="$n/~$EXPECT measurements ($((n * 100 / EXPECT))%)"
	if [ $((n - M_N1)) -ge 2 ] && [ $((now - M_T1)) -ge 30 ]; then
		rate=$(((n - M_N1) * 1000 / (now - M_T1)))
		PROGRESS_MSG="$PROGRESS_MSG, ~$(progress_about $(((EXPECT - n) * 1000 / rate))) left"
	fi
}
progress_start bench bench_progress
WAPPEND=""
case " $TESTS " in
*" bench_wire "*)
	# (the two-guest test's own rounds)
	WAPPEND="xrdma.env.BENCH_WIRE_RUNS=$WRUNS"
	[ -z "${BENCH_PAIRS:-}" ] || WAPPEND="$WAPPEND xrdma.env.BENCH_PAIRS=$BENCH_PAIRS"
	;;
esac
# (one time limit for both tests: a round of the pairings takes about
# 4 minutes in full mode)
# shellcheck disable=SC2086 # the tests are words
XRDMA_NO_PCAP=1 \
XRDMA_TEST_TIMEOUT=${XRDMA_TEST_TIMEOUT:-$((600 + RUNS * 300))} \
XRDMA_APPEND="xrdma.env.BENCH_MODE=$MODE xrdma.env.BENCH_RUNS=$RUNS $WAPPEND ${XRDMA_APPEND:-}" \
	"$XRDMA_ROOT"/scripts/guest-test.sh $TESTS >"$OUT/guest.txt" 2>&1
rc=$?
progress_stop
tail -n 3 "$OUT/guest.txt"
G=$XRDMA_ROOT/build/guest/latest
log=$G/vm.log
# the marker port has the lines whole; the console as a fallback
src=$log.marks
[ -s "$src" ] && grep -q '^BENCH ' "$src" || src=$log
: >"$OUT/raw.txt"
[ ! -f "$src" ] || grep -aE '^BENCH(_INFO|_FAIL)? ' "$src" >>"$OUT/raw.txt"
# the two guests' consoles: b prints the measurements, both their failures
for g in a b; do
	[ ! -f "$G/$g.log" ] || grep -aE '^BENCH(_INFO|_FAIL)? ' "$G/$g.log" | tr -d '\r' >>"$OUT/raw.txt"
done
[ $rc != 0 ] || progress_keep "$KEPT" "measurements=$(grep -c '^BENCH ' "$OUT/raw.txt")" \
	"secs=$(($(date +%s) - T0))"
cp "$log" "$OUT/console.log" 2>/dev/null
cp "$G/a.log" "$OUT/console-a.log" 2>/dev/null
cp "$G/b.log" "$OUT/console-b.log" 2>/dev/null
if [ $rc != 0 ]; then
	grep -a '^BENCH_FAIL' "$OUT/raw.txt"
	echo "bench: the guest run failed (see $OUT/console*.log)"
fi
python3 "$XRDMA_ROOT"/tools/testing/bench/bench-report.py "$OUT" || exit 1
cat "$OUT/results.txt"
echo "bench: results in ${OUT#"$XRDMA_ROOT"/}/"
exit $rc
