#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: xrdma (xnic through tools/lib/xverbs) against Soft-RoCE (rxe)
# in one QEMU TCG guest, with the guest's physical limits beside them.
# The guest side is tools/testing/bench/bench-guest.sh, run by the guest
# test tools/testing/guest/bench.sh in full mode; this script collects its
# BENCH lines and writes the report (scripts/bench-report.py):
#   build/bench/<run>/raw.txt      every measurement
#   build/bench/<run>/results.txt  the table: medians, ratio, % of limit
#   build/bench/<run>/results.csv
#   build/bench/<run>/chart.png
# (build/bench/latest is the last run).
#
# Environment: BENCH_RUNS (pairs of runs per metric, default 5),
# BENCH_MODE (full, or smoke for a quick look), XRDMA_SMP (vCPUs,
# default 2), XRDMA_BUILD=0 (use what is built).
set -uo pipefail

# shellcheck source=scripts/guest/lib.sh
. "$(dirname "$0")/guest/lib.sh"

RUNS=${BENCH_RUNS:-5}
MODE=${BENCH_MODE:-full}
RUN=$(date +%Y%m%d-%H%M%S)
OUT=$XRDMA_ROOT/build/bench/$RUN
mkdir -p "$OUT"
ln -sfn "$RUN" "$XRDMA_ROOT/build/bench/latest"

echo "bench: $MODE mode, $RUNS run(s) of each stack, ${XRDMA_SMP:-2} vCPUs"
XRDMA_TEST_TIMEOUT=${XRDMA_TEST_TIMEOUT:-$((600 + RUNS * 300))} \
XRDMA_APPEND="xrdma.env.BENCH_MODE=$MODE xrdma.env.BENCH_RUNS=$RUNS ${XRDMA_APPEND:-}" \
	"$XRDMA_ROOT"/scripts/guest-test.sh bench >"$OUT/guest.txt" 2>&1
rc=$?
tail -n 3 "$OUT/guest.txt"
log=$XRDMA_ROOT/build/guest/latest/vm.log
# the marker port has the lines whole; the console as a fallback
src=$log.marks
[ -s "$src" ] && grep -q '^BENCH ' "$src" || src=$log
grep -aE '^BENCH(_INFO|_FAIL)? ' "$src" >"$OUT/raw.txt"
cp "$log" "$OUT/console.log" 2>/dev/null
if [ $rc != 0 ]; then
	grep -a '^BENCH_FAIL' "$OUT/raw.txt"
	echo "bench: the guest run failed (see $OUT/console.log)"
fi
python3 "$XRDMA_ROOT"/scripts/bench-report.py "$OUT" || exit 1
cat "$OUT/results.txt"
echo "bench: results in ${OUT#"$XRDMA_ROOT"/}/"
exit $rc
