#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: everything CI runs.  Each stage's output is kept in
# build/check/<stage>.log; stages that run many tests report them with a
# last line "N passed, N failed[, N skipped]", the others count as one test.
# The last line of this script is the total in the same format.
# While a stage runs, every 2 x XRDMA_PROGRESS_INTERVAL seconds (default 60)
# a line on stderr says for how long, with the stage's own last progress
# line if it has one (scripts/progress.sh): "check kunit: [6:00] kunit.sh:
# [5:58] building the KUnit kernel: 610/~1356 objects (45%), ~5m left".
set -uo pipefail

PROJ=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/progress.sh
. "$PROJ/scripts/progress.sh"
LOG=$PROJ/build/check
mkdir -p "$LOG"
cd "$PROJ" || exit 1

TP=0 TF=0 TS=0
FAILED=()

# the heartbeat of a running stage: its log's last progress line
# shellcheck disable=SC2317 # called by the heartbeat
stage_progress() {
	PROGRESS_MSG=$(progress_last "$1")
	PROGRESS_MSG=${PROGRESS_MSG:-"running (log: ${1#"$PROJ"/})"}
}

# stage NAME COMMAND...: run, tally, print one line
stage() {
	local name=$1 rc line p f s t0
	shift
	t0=$(date +%s)
	PROGRESS_INTERVAL=$((2 * PROGRESS_INTERVAL)) \
		progress_start "check $name" stage_progress "$LOG/$name.log"
	"$@" >"$LOG/$name.log" 2>&1
	rc=$?
	progress_stop
	line=$(grep -aE '^[0-9]+ passed, [0-9]+ failed' "$LOG/$name.log" | tail -n 1)
	if [ -n "$line" ]; then
		p=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')
		f=$(echo "$line" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
		s=$(echo "$line" | grep -oE '[0-9]+ skipped' | grep -oE '[0-9]+' || echo 0)
		[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	elif [ "$rc" -eq 0 ]; then
		p=1 f=0 s=0
	else
		p=0 f=1 s=0
	fi
	TP=$((TP + p)) TF=$((TF + f)) TS=$((TS + s))
	[ "$f" -ne 0 ] && FAILED+=("$name")
	printf '%-16s %s (%ds): %d passed, %d failed, %d skipped\n' "$name" \
		"$([ "$f" -eq 0 ] && echo ok || echo FAIL)" \
		$(($(date +%s) - t0)) "$p" "$f" "$s"
	if [ "$f" -ne 0 ]; then
		tail -n 25 "$LOG/$name.log" | sed 's/^/    | /'
	fi
}

# the kernels the tree builds for (scripts/kernels.sh), one build tree
# and one Debian image of each; a series with nothing installed is a
# failure (make deps installs them), not a skip
mapfile -t KDIRS < <(scripts/kernels.sh kdirs)
mapfile -t KVERS < <(scripts/kernels.sh guest-kvers)
kernels_present() {
	scripts/kernels.sh kdirs >/dev/null && scripts/kernels.sh guest-kvers >/dev/null
}
# the series of a build tree or release, for stage names: "6.12"
series() { scripts/kernels.sh series-of "$1"; }

# build_werror KDIR
build_werror() {
	make clean KDIR="$1" >/dev/null 2>&1
	make KDIR="$1" W=1 KCFLAGS=-Werror 2>&1 | tee /dev/stderr |
		grep -E 'warning:|error:' && return 1
	make KDIR="$1" W=1 KCFLAGS=-Werror >/dev/null
}

stage kernels-present kernels_present
for k in "${KDIRS[@]}"; do
	stage "build-w1-$(series "$k")" build_werror "$k"
done
for k in "${KDIRS[@]}"; do
	stage "sparse-$(series "$k")" env KDIR="$k" scripts/sparse.sh
done
stage sparse-selftest scripts/selftest/sparse-catches.sh
stage checkpatch scripts/checkpatch.sh
stage kunit-gate scripts/selftest/run.sh
stage kernels scripts/selftest/kernels.sh
stage deps-audit-selftest scripts/selftest/deps-audit.py --selftest
stage deps-audit scripts/selftest/deps-audit.py
stage uapi-headers tools/testing/uverbs/header-test.sh
stage roce-pcap-check tools/testing/hw/xnic/roce_pcap_check_test.sh
stage xverbs-abi make -C tools/lib/xverbs check
stage install scripts/selftest/install.sh
stage kunit scripts/kunit.sh
# the guest suite on each kernel, then make demo on the modules and
# programs that run built (1-2 min)
for v in "${KVERS[@]}"; do
	stage "guest-$(series "$v")" env XRDMA_KVER="$v" scripts/guest-test.sh
	stage "demo-$(series "$v")" env XRDMA_KVER="$v" XRDMA_BUILD=0 scripts/demo.sh
done
stage guest-debug env XRDMA_GUEST_KERNEL=debug scripts/guest-test.sh

# the failures again, last: CI shows only the end of this output
if [ ${#FAILED[@]} -ne 0 ]; then
	for name in "${FAILED[@]}"; do
		grep -aE '^(FAIL|not ok|.*\[FAILED\])' "$LOG/$name.log" |
			head -n 8 | cut -c1-300 | sed "s/^/$name: /"
	done
	echo "failed stages: ${FAILED[*]} (logs in $LOG)"
fi
echo "$TP passed, $TF failed, $TS skipped"
[ "$TF" -eq 0 ]
