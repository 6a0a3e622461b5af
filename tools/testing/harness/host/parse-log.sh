#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Results of a guest console log (from run-vm.sh / run-2vm.sh).
# Usage: parse-log.sh LOG [TEST...]
#   TESTs default to the tests the log shows as started.  Prints a
#   "NAME STATUS [REASON]" line per test and per failure of the run itself
#   (console_splat, guest_timeout, guest_crash), the splat lines if any, then
#   "N passed, N failed, N skipped"; exits non-zero on any failure.
set -uo pipefail

# shellcheck source=tools/testing/harness/host/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -ge 1 ] || xrdma_die "usage: parse-log.sh LOG [TEST...]"
LOG=$1
shift
[ -r "$LOG" ] || xrdma_die "cannot read $LOG"
if [ $# = 0 ]; then
	mapfile -t T < <(tr -d '\r' <"$LOG" | sed -n 's/.*XRDMA_TEST_START \([^ ]*\).*/\1/p')
	set -- "${T[@]}"
fi
res=$(xrdma_parse_log "$LOG" "$(basename "$LOG" .log)" "$@")
echo "$res"
xrdma_splats "$LOG" | head -n 20 | sed 's/^/splat: /'
p=$(grep -c ' PASS' <<<"$res")
f=$(grep -c ' FAIL' <<<"$res")
s=$(grep -c ' SKIP' <<<"$res")
echo "$p passed, $f failed, $s skipped"
[ "$f" = 0 ]
