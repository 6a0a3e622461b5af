#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: xrdma (xnic through tools/lib/xverbs) against Soft-RoCE (rxe)
# in one QEMU TCG guest, with the guest's physical limits beside them.
# The guest side is tools/testing/bench/bench-guest.sh, run by the guest
# test tools/testing/bench/bench.sh in full mode; this script collects its
# BENCH lines and writes the report (tools/testing/bench/bench-report.py):
#   build/bench/<run>/raw.txt      every measurement
#   build/bench/<run>/results.txt  the table: medians, ratio, % of limit
#   build/bench/<run>/results.csv
#   build/bench/<run>/chart.png
# (build/bench/latest is the last run).
#
# Environment: BENCH_RUNS (pairs of runs per metric, default 5),
# BENCH_MODE (full, or smoke for a quick look), XRDMA_SMP (vCPUs,
# default 2), XRDMA_BUILD=0 (use what is built).
# Progress: every XRDMA_PROGRESS_INTERVAL seconds (default 30) a line on
# stderr, the measurements taken vs the last run's count of this mode and
# number of runs ($XRDMA_CACHE/progress/bench-MODE-RUNS) with the time
# left at this run's pace, or before they start guest-test.sh's last line.
set -uo pipefail

# shellcheck source=tools/testing/harness/host/lib.sh
. "$(dirname "$0")/../harness/host/lib.sh"

RUNS=${BENCH_RUNS:-5}
MODE=${BENCH_MODE:-full}
RUN=$(date +%Y%m%d-%H%M%S)
OUT=$XRDMA_ROOT/build/bench/$RUN
mkdir -p "$OUT"
ln -sfn "$RUN" "$XRDMA_ROOT/build/bench/latest"

echo "bench: $MODE mode, $RUNS run(s) of each stack, ${XRDMA_SMP:-2} vCPUs"
KEPT=bench-$MODE-$RUNS
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
		n=$(grep -ac '^BENCH ' "$src" 2>/dev/null)
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
XRDMA_TEST_TIMEOUT=${XRDMA_TEST_TIMEOUT:-$((600 + RUNS * 300))} \
XRDMA_APPEND="xrdma.env.BENCH_MODE=$MODE xrdma.env.BENCH_RUNS=$RUNS ${XRDMA_APPEND:-}" \
	"$XRDMA_ROOT"/scripts/guest-test.sh bench >"$OUT/guest.txt" 2>&1
rc=$?
progress_stop
tail -n 3 "$OUT/guest.txt"
log=$XRDMA_ROOT/build/guest/latest/vm.log
# the marker port has the lines whole; the console as a fallback
src=$log.marks
[ -s "$src" ] && grep -q '^BENCH ' "$src" || src=$log
grep -aE '^BENCH(_INFO|_FAIL)? ' "$src" >"$OUT/raw.txt"
[ $rc != 0 ] || progress_keep "$KEPT" "measurements=$(grep -c '^BENCH ' "$OUT/raw.txt")" \
	"secs=$(($(date +%s) - T0))"
cp "$log" "$OUT/console.log" 2>/dev/null
if [ $rc != 0 ]; then
	grep -a '^BENCH_FAIL' "$OUT/raw.txt"
	echo "bench: the guest run failed (see $OUT/console.log)"
fi
python3 "$XRDMA_ROOT"/tools/testing/bench/bench-report.py "$OUT" || exit 1
cat "$OUT/results.txt"
echo "bench: results in ${OUT#"$XRDMA_ROOT"/}/"
exit $rc
