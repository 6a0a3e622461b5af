#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# xrdma guest integration tests: build the modules, pack them with the guest
# tests (the *.sh under tools/testing/ with an "# XRDMA_KEY:" header line,
# tools/testing/harness/README) into an initramfs, boot the Debian kernel
# under QEMU TCG and collect per-test results from the serial console.
#
# Usage: scripts/guest-test.sh [GLOB...]     (default: every test)
#   GLOBs select tests by name (e.g. 'core_*' wire_ping uverbs_abi; a file
#   with XRDMA_SUBTEST lines holds one test per subtest, <file>_<subtest>);
#   they are passed to the guest as xrdma.tests=GLOB,GLOB.  Single-guest tests share one boot;
#   two-guest tests ("# XRDMA_VMS: 2") share one boot of a pair of guests.
#
# Output: a line per test, then exactly one line
#   N passed, N failed, N skipped
# Exit status 0 only if nothing failed.  Failures include, besides failing
# tests: console_splat:<guest> (oops/WARN/BUG/lockdep/KASAN/... anywhere in
# a console log), guest_timeout:<guest> (QEMU killed by the timeout),
# guest_crash:<guest>, build.  Logs are kept in build/guest/<run>/.
#
# Environment:
#   XRDMA_SMP=N            vCPUs of the single guest (default 2)
#   XRDMA_2VM_SMP=N        vCPUs of each of the two guests (default 1)
#   XRDMA_MEM=SIZE         guest memory (default 1G: the initramfs holds every
#                          selected test's files, Python's for pyverbs)
#   XRDMA_TIMEOUT=S        bound of each QEMU run (default 60 + the sum of
#                          the selected tests' time limits)
#   XRDMA_TEST_TIMEOUT=S   override every test's in-guest time limit
#   XRDMA_BUILD=0          do not build (use the .ko files and test programs
#                          already built); otherwise "make" at the top and
#                          "make -C" in each directory under tools/testing/
#                          with a Makefile
#   XRDMA_KO_DIRS=D[:D]    where to look for *.ko (default: the repo)
#   XRDMA_EXTRA_TESTS=D[:D] more test directories (throwaway tests)
#   XRDMA_APPEND=ARGS      extra kernel command line
#   XRDMA_VERBOSE=1        copy the guest consoles to stdout while running
#   XRDMA_KVER, XRDMA_KERNEL   kernel version / image to boot
#   XRDMA_GUEST_KERNEL=debug   boot the debug kernel instead of Debian's
#                          (scripts/debug-kernel.sh: KASAN, lockdep, kmemleak,
#                          UBSAN...; built once, cached in /var/cache/xrdma),
#                          with our modules built against it in
#                          build/debugk/src; default tests
#                          $XRDMA_DEBUG_TESTS ('uverbs_*,xnic_*,xverbs_semantics,
#                          xverbs_isolation', the xverbs tests of issue 15's
#                          verbs but xverbs_mr, and the kernel's RDMA stack on
#                          our device: ib_core_*, ulp_nvme_* but the fault
#                          subtests (6.1's nvmet: a lockdep report on a
#                          reconnect then a port unlink), ulp_rdma_cm_*,
#                          rdmacm_mckey, rdmacm_tools_* but perftest and qperf,
#                          rdmacm_fault_*;
#                          Documentation/testing.rst says why not the others),
#                          time limits times XRDMA_TIMEOUT_SCALE (3), memory
#                          1G, and a kmemleak scan after the tests that fails
#                          the run ("kmemleak:vm") on any object of ours
#                          (XRDMA_KMEMLEAK=0 skips it).  Logs in
#                          build/guest-debug/<run>/.
#   XRDMA_TIMEOUT_SCALE=N  multiply every test's own time limit by N
#   XRDMA_KEEP_RUNS=N      run directories kept in build/guest (default 10)
#   XRDMA_NO_PCAP=1        no capture of the two guests' link (make bench:
#                          every frame written, then checked, costs more
#                          than the traffic); wire_pcap is then a SKIP
#   XRDMA_PROGRESS_INTERVAL=S  seconds between progress lines (default 30):
#                          a step that takes longer (the debug kernel's
#                          build, the modules' build, a host fixture, the
#                          guest run) says on stderr what it is doing and
#                          how far along it is (scripts/progress.sh)
set -uo pipefail

# shellcheck source=tools/testing/harness/host/lib.sh
. "$(dirname "$0")/../tools/testing/harness/host/lib.sh"

T_START=$(date +%s.%N)
elapsed() { awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $1}"; }

GUEST_KERNEL=${XRDMA_GUEST_KERNEL:-debian}
GUEST_BUILD=$XRDMA_ROOT/build/guest
DEFAULT_TESTS='*'
# the initramfs holds the files of every selected test (pyverbs ships
# Python: 157 MB in all), unpacked into the guest's RAM next to its copy
export XRDMA_MEM=${XRDMA_MEM:-1G}
case $GUEST_KERNEL in
debian) KVER=$(xrdma_kver) ;;
debug)
	GUEST_BUILD=$XRDMA_ROOT/build/guest-debug
	# ib_core and the ULPs need the debug kernel's dma-debug patch
	# (nvme-rdma); perftest's latency tests print inf on it, qperf's
	# server binds only IPv6, which it lacks
	DEFAULT_TESTS=${XRDMA_DEBUG_TESTS:-uverbs_*,xnic_*,xverbs_semantics,xverbs_isolation,xverbs_mw,xverbs_resize,xverbs_mcast,xverbs_share,xverbs_dm,xverbs_xrc,xverbs_eqflood,xverbs_handles,ib_core_*,ulp_nvme_rxe,ulp_nvme_xnic,ulp_nvme_remove_rxe,ulp_nvme_remove_xnic,ulp_rdma_cm_*,rdmacm_mckey,rdmacm_tools_rping,rdmacm_tools_ucmatose,rdmacm_tools_udaddy,rdmacm_tools_rdma_server,rdmacm_tools_rstream,rdmacm_tools_no_listener,rdmacm_tools_server_killed,rdmacm_tools_exit_open,rdmacm_fault_*}
	export XRDMA_TIMEOUT_SCALE=${XRDMA_TIMEOUT_SCALE:-3}
	export XRDMA_KMEMLEAK=${XRDMA_KMEMLEAK:-1}
	# boot and the leak scan run outside tests, and slowly
	export XRDMA_STALL_IDLE=${XRDMA_STALL_IDLE:-300}
	KVER="" # from scripts/debug-kernel.sh, below
	;;
*) xrdma_die "XRDMA_GUEST_KERNEL=$GUEST_KERNEL: want debian or debug" ;;
esac
GLOBS=$(
	IFS=,
	echo "${*:-$DEFAULT_TESTS}"
)
RUN=$(date +%Y%m%d-%H%M%S)-$$
OUT=$GUEST_BUILD/$RUN
mkdir -p "$OUT"
ln -sfn "$RUN" "$GUEST_BUILD/latest"
# prune old runs
find "$GUEST_BUILD" -mindepth 1 -maxdepth 1 -type d -name '20*' -printf '%f\n' |
	sort -r | tail -n +$((${XRDMA_KEEP_RUNS:-10} + 1)) |
	while read -r d; do rm -rf "${GUEST_BUILD:?}/$d"; done

RESULTS=$OUT/results.txt
: >"$RESULTS"

finish() {
	local p f s
	p=$(awk '$2 == "PASS"' "$RESULTS" | wc -l)
	f=$(awk '$2 == "FAIL"' "$RESULTS" | wc -l)
	s=$(awk '$2 == "SKIP"' "$RESULTS" | wc -l)
	echo "guest: logs in ${OUT#"$XRDMA_ROOT"/}/, total $(elapsed "$T_START")s"
	echo "$p passed, $f failed, $s skipped"
	[ "$f" = 0 ]
	exit
}

# record LINES...: print and keep "NAME STATUS [REASON]" lines
record() {
	local name st rest
	while read -r name st rest; do
		[ -n "$name" ] || continue
		echo "$name $st${rest:+ $rest}" >>"$RESULTS"
		printf '%-4s %s%s\n' "$st" "$name" "${rest:+  ($rest)}"
	done
}

# --- the debug kernel (built, or found in its cache), our modules against it
if [ "$GUEST_KERNEL" = debug ]; then
	t0=$(date +%s.%N)
	# (its messages and progress shown as they come: a cold build takes long)
	if ! dk=$(xrdma_tee_stderr "$OUT/debug-kernel.log" "$XRDMA_ROOT"/scripts/debug-kernel.sh); then
		echo "debug_kernel FAIL see ${OUT#"$XRDMA_ROOT"/}/debug-kernel.log" | record
		finish
	fi
	eval "$dk"
	KVER=$XRDMA_DEBUGK_KVER
	export XRDMA_KVER=$KVER XRDMA_KERNEL=${XRDMA_KERNEL:-$XRDMA_DEBUGK_BZIMAGE}
	export XRDMA_MODROOT=$XRDMA_DEBUGK_MODROOT
	export XRDMA_KO_DIRS=${XRDMA_KO_DIRS:-$XRDMA_ROOT/build/debugk/src}
	xrdma_log "debug kernel $KVER ($XRDMA_DEBUGK_COST; here $(elapsed "$t0")s)"
fi

# --- build
if [ "${XRDMA_BUILD:-1}" != 0 ]; then
	t0=$(date +%s.%N)
	if [ "$GUEST_KERNEL" = debug ]; then
		build() { xrdma_build_debug "$XRDMA_DEBUGK_KDIR"; }
		objdirs=("$XRDMA_ROOT/build/debugk/src" "$XRDMA_ROOT/tools")
		what=guest-build-debug
	else
		build() { xrdma_build "$KVER"; }
		mapfile -t objdirs < <(find "$XRDMA_ROOT" -mindepth 1 -maxdepth 1 -type d \
			! -name build ! -name .git)
		what=guest-build
	fi
	# shellcheck disable=SC2317 # called by the heartbeat
	build_progress() {
		local d
		progress_objects "${objdirs[@]}"
		# the directory make is in (programs build without objects)
		d=$(sed -n "s|^make\[[0-9]*\]: Entering directory '\(.*\)'|\1|p" "$OUT/build.log" | tail -n 1)
		case $d in
		"$XRDMA_ROOT"/?*) d=", in ${d#"$XRDMA_ROOT"/}" ;;
		*) d="" ;;
		esac
		PROGRESS_MSG="building the modules and test programs: $PROGRESS_MSG$d (log: ${OUT#"$XRDMA_ROOT"/}/build.log; XRDMA_BUILD=0 uses what is built)"
	}
	# (80: the objects of a whole build in December 2026, when no build here
	# has left its count)
	PROGRESS_EXPECT=$(progress_recall "$what" objects)
	PROGRESS_EXPECT=${PROGRESS_EXPECT:-80}
	progress_start guest build_progress
	build >"$OUT/build.log" 2>&1
	brc=$?
	progress_stop
	if [ $brc = 0 ]; then
		progress_record "$what" "$(elapsed "$t0")" "${objdirs[@]}"
		xrdma_log "build ok ($(elapsed "$t0")s)"
	else
		tail -n 30 "$OUT/build.log"
		echo "build FAIL see ${OUT#"$XRDMA_ROOT"/}/build.log" | record
		finish
	fi
fi

# two tests of one name: the runner would run one of them only
if ! xrdma_check_tests 2>"$OUT/tests.err"; then
	cat "$OUT/tests.err" >&2
	echo "selection FAIL two guest tests of one name (see above)" | record
	finish
fi
mapfile -t KOS < <(xrdma_find_modules "$KVER")
mapfile -t VM1 < <(xrdma_select "$GLOBS" 1)
mapfile -t VM2 < <(xrdma_select "$GLOBS" 2)
# every name or glob asked for selects something: a typo is no green run
mapfile -t nomatch < <(xrdma_unmatched "$GLOBS")
if [ ${#nomatch[@]} != 0 ]; then
	xrdma_log "no guest test matches '${nomatch[*]}'; tests are:"
	xrdma_all_tests | cut -d' ' -f1 | sed 's/^/  /' >&2
	echo "selection FAIL no test matches '${nomatch[*]}'" | record
	finish
fi

# --- fixtures the selected tests prepare on the host ("# XRDMA_PREPARE:
# CMD GUESTDIR": CMD KVER prints a directory, shipped as GUESTDIR; a
# failure fails "prepare:CMD", and the tests needing it fail in the guest)
XA=()
while read -r cmd gdir; do
	if [ -z "$cmd" ] || [ -z "$gdir" ]; then continue; fi
	t0=$(date +%s.%N)
	plog=$OUT/prepare-$(basename "$cmd").log
	# (its messages and progress shown as they come: a cold build takes long)
	if [ "$GUEST_KERNEL" = debug ]; then
		hdir=$(KDIR=$XRDMA_DEBUGK_KDIR xrdma_tee_stderr "$plog" "$XRDMA_ROOT/$cmd" "$KVER" | tail -n 1)
	else
		hdir=$(xrdma_tee_stderr "$plog" "$XRDMA_ROOT/$cmd" "$KVER" | tail -n 1)
	fi
	if [ -n "$hdir" ] && [ -d "$hdir" ]; then
		XA+=(-x "$hdir:$gdir")
		xrdma_log "prepared $gdir: $cmd ($(elapsed "$t0")s)"
	else
		echo "prepare:$(basename "$cmd") FAIL see ${plog#"$XRDMA_ROOT"/}" | record
	fi
done < <(for t in "${VM1[@]}" "${VM2[@]}"; do
	xrdma_test_field "${t##* }" PREPARE | xargs -r -n 2 echo
done | sort -u)

# --- initramfs with every test; the selection goes on the command line
t0=$(date +%s.%N)
KA=()
for ko in "${KOS[@]}"; do KA+=(-K "$ko"); done
last=$(progress_recall guest-initramfs secs)
progress_start guest progress_say "packing the initramfs${last:+ (${last}s last time)}"
"$XRDMA_GUEST_DIR"/mkinitramfs.sh -k "$KVER" -o "$OUT/initramfs.cpio" \
	"${KA[@]}" "${XA[@]}" 2>"$OUT/mkinitramfs.log"
mrc=$?
progress_stop
[ $mrc != 0 ] || progress_keep guest-initramfs "secs=$(elapsed "$t0" | cut -d. -f1)"
if [ $mrc != 0 ]; then
	cat "$OUT/mkinitramfs.log"
	echo "initramfs FAIL mkinitramfs.sh failed" | record
	finish
fi
grep -i warning "$OUT/mkinitramfs.log" >&2
xrdma_log "initramfs ready ($(elapsed "$t0")s, ${#KOS[@]} module(s))"

APPEND="xrdma.tests=$GLOBS ${XRDMA_APPEND:-}"
[ "${XRDMA_KMEMLEAK:-0}" = 1 ] && APPEND="$APPEND xrdma.kmemleak=1"
[ -n "${XRDMA_TIMEOUT_SCALE:-}" ] && APPEND="$APPEND xrdma.timeout_scale=$XRDMA_TIMEOUT_SCALE"
[ -n "${XRDMA_TEST_TIMEOUT:-}" ] && APPEND="$APPEND xrdma.timeout=$XRDMA_TEST_TIMEOUT"

# QEMU bound: boot/shutdown allowance plus the tests' own limits (the
# arguments: "NAME LIMIT FILE" lines of xrdma_select)
run_timeout() {
	local t lim sum=60 scale=${XRDMA_TIMEOUT_SCALE:-1}
	if [ -n "${XRDMA_TIMEOUT:-}" ]; then
		echo "$XRDMA_TIMEOUT"
		return
	fi
	# the debug kernel boots slower and scans for leaks at the end
	[ "$GUEST_KERNEL" = debug ] && sum=180
	for t in "$@"; do
		read -r _ lim _ <<<"$t"
		sum=$((sum + ${XRDMA_TEST_TIMEOUT:-$((scale * lim))}))
	done
	echo "$sum"
}

names() { for t in "$@"; do echo "${t%% *}"; done; }

# show_failures LOG: console output of the failed tests of the last parse
show_failures() {
	local log=$1 name st rest
	while read -r name st rest; do
		[ "$st" = FAIL ] || continue
		case $name in
		console_splat:*)
			echo "---- ${name}: splat lines (test<TAB>line)"
			xrdma_splats "$log" | head -n 20
			;;
		*:*)
			echo "---- ${name}: last console lines"
			tr -d '\r' <"$log" | tail -n 15
			;;
		*)
			tr -d '\r' <"$log" | grep -qE "XRDMA_TEST_START $name( |\$)" || continue
			echo "---- $name console output (${log##*/}, last 40 lines)"
			xrdma_test_output "$log" "$name" | tail -n 40
			;;
		esac
	done
}


# follow LOG... / unfollow: copy consoles to stdout while QEMU runs
tp=""
follow() {
	[ "${XRDMA_VERBOSE:-0}" = 1 ] || return 0
	tail -n +1 -F "$@" 2>/dev/null &
	tp=$!
}
unfollow() {
	[ -n "$tp" ] || return 0
	sleep 0.3
	kill "$tp"
	wait "$tp" 2>/dev/null
	tp=""
}

# wire_pcap_check TEST...: the conformance check of the link's capture
# (tools/testing/harness/host/pcap-check.sh, its output in
# wire_pcap.log), a result line "wire_pcap STATUS REASON" of its own;
# the capture is kept as wire.pcap.gz.
# RoCE frames are expected when a test with "# XRDMA_ROCE: 1" passed.
wire_pcap_check() {
	local t name file expect=0 v
	for t in "$@"; do
		name=${t%% *}
		file=${t##* }
		[ "$(xrdma_test_field "$file" ROCE 0)" = 1 ] || continue
		awk -v n="$name" '$1 == n && $2 == "PASS" { f = 1 } END { exit !f }' \
			"$RESULTS" && expect=1
	done
	"$XRDMA_GUEST_DIR"/pcap-check.sh "$OUT/wire.pcap" "$expect" >"$OUT/wire_pcap.log" 2>&1
	v=$(tail -n 1 "$OUT/wire_pcap.log")
	case $v in
	PASS* | SKIP* | FAIL*) echo "wire_pcap $v" | record ;;
	*) echo "wire_pcap FAIL pcap-check.sh said nothing (see wire_pcap.log)" | record ;;
	esac
	sed -n '/^BTH opcodes/,/^[^ ]/p' "$OUT/wire_pcap.log" | grep '^ ' | head -n 30
	[ "${v%% *}" != FAIL ] || head -n 30 "$OUT/wire_pcap.log"
	# tshark and Wireshark read it compressed (tens of MB of test data
	# that compress well, kept for XRDMA_KEEP_RUNS runs)
	rm -f "$OUT/wire.checked.pcap" "$OUT/wire.pcap.err"
	[ -f "$OUT/wire.pcap" ] && gzip -1 "$OUT/wire.pcap"
}

# --- one guest for all single-guest tests
if [ ${#VM1[@]} -gt 0 ]; then
	to=$(run_timeout "${VM1[@]}")
	xrdma_log "booting 1 guest (${XRDMA_SMP:-2} vCPUs, timeout ${to}s): $(names "${VM1[@]}" | tr '\n' ' ')"
	: >"$OUT/vm.log"
	follow "$OUT/vm.log"
	XRDMA_NTESTS=${#VM1[@]} "$XRDMA_GUEST_DIR"/run-vm.sh "$OUT/initramfs.cpio" "$OUT/vm.log" "$to" \
		"$APPEND xrdma.vms=1"
	unfollow
	mapfile -t N < <(names "${VM1[@]}")
	parsed=$(xrdma_parse_log "$OUT/vm.log" vm "${N[@]}")
	record <<<"$parsed"
	show_failures "$OUT/vm.log" <<<"$parsed"
fi

# --- two guests for the two-guest tests; a test passes if it passes in both
if [ ${#VM2[@]} -gt 0 ]; then
	to=$(run_timeout "${VM2[@]}")
	xrdma_log "booting 2 guests (${XRDMA_2VM_SMP:-1} vCPU each, timeout ${to}s): $(names "${VM2[@]}" | tr '\n' ' ')"
	: >"$OUT/a.log"
	: >"$OUT/b.log"
	follow "$OUT/a.log" "$OUT/b.log"
	pcap=$OUT/wire.pcap
	[ "${XRDMA_NO_PCAP:-0}" != 1 ] || pcap=
	XRDMA_PCAP=$pcap XRDMA_NTESTS=${#VM2[@]} \
		"$XRDMA_GUEST_DIR"/run-2vm.sh "$OUT/initramfs.cpio" "$OUT/a.log" "$OUT/b.log" \
		"$to" "$APPEND xrdma.vms=2"
	unfollow
	mapfile -t N < <(names "${VM2[@]}")
	pa=$(xrdma_parse_log "$OUT/a.log" a "${N[@]}")
	pb=$(xrdma_parse_log "$OUT/b.log" b "${N[@]}")
	# per test: FAIL if either guest failed, PASS if either passed, else SKIP
	printf '%s\n%s\n' "$pa" "$pb" | sed '/^$/d' | awk '
		{ st = $2; rest = ""; for (i = 3; i <= NF; i++) rest = rest " " $i
		  if (!($1 in s)) { order[++n] = $1; s[$1] = st; r[$1] = rest; next }
		  if (st == "FAIL" && s[$1] != "FAIL") { s[$1] = "FAIL"; r[$1] = rest }
		  else if (st == "PASS" && s[$1] == "SKIP") s[$1] = "PASS" }
		END { for (i = 1; i <= n; i++) print order[i], s[order[i]] r[order[i]] }' | record
	show_failures "$OUT/a.log" <<<"$pa"
	show_failures "$OUT/b.log" <<<"$pb"
	if [ -n "$pcap" ]; then
		wire_pcap_check "${VM2[@]}"
	else
		echo "wire_pcap SKIP no capture (XRDMA_NO_PCAP=1)" | record
	fi
fi

finish
