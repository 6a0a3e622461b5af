# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Host-side helpers shared by the xrdma guest harness (sourced, not run).
#
# Conventions for guest tests (found by xrdma_repo_tests below) are
# described in tools/testing/harness/README.  Header lines a test may carry:
#   # XRDMA_VMS: 1|2                  guests the test needs (default 1)
#   # XRDMA_TIMEOUT: SECONDS           in-guest time limit (default 60)
#   # XRDMA_DEBIAN_MODULES: a b ...    Debian kernel modules to ship and
#                                      modprobe before the test
#   # XRDMA_PROGRAMS: prog ...         host programs (or repo-relative
#                                      paths) to ship with their libraries
#   # XRDMA_SUBTEST: SUB [SECONDS]     one test NAME_SUB per line (below)
#   # XRDMA_PREPARE: CMD GUESTDIR      host step before packing (guest-test.sh)

# this directory (the host side of the harness), the harness, the repo
XRDMA_GUEST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
XRDMA_HARNESS=$(cd "$XRDMA_GUEST_DIR/.." && pwd)
XRDMA_ROOT=$(cd "$XRDMA_HARNESS/../../.." && pwd)
# shellcheck source=scripts/progress.sh
. "$XRDMA_ROOT/scripts/progress.sh"
# the tree of tests (tools/testing/README.rst) and the guest-side shell
# library, /xrdma/tests/lib/ in the guest
XRDMA_TESTS_DIR=$XRDMA_ROOT/tools/testing
# shellcheck disable=SC2034 # used by the sourcing scripts
XRDMA_GUEST_LIB=$XRDMA_HARNESS/guest/lib
# the header lines that make a *.sh under tools/testing/ a guest test
XRDMA_TEST_HEADER_RE='^# XRDMA_(VMS|TIMEOUT|DEBIAN_MODULES|PROGRAMS|FILES|PREPARE|SUBTEST):'
# shellcheck disable=SC2034 # used by the sourcing scripts
XRDMA_DEFAULT_TEST_TIMEOUT=60

xrdma_log() { echo "guest: $*" >&2; }
xrdma_die() { echo "guest: error: $*" >&2; exit 2; }

# Debian kernel version to boot: newest /boot/vmlinuz-*-amd64 of a kernel
# the tree builds for (scripts/kernels.sh) that also has headers installed
# (XRDMA_KVER overrides).
xrdma_kver() {
	local v
	if [ -n "${XRDMA_KVER:-}" ]; then
		echo "$XRDMA_KVER"
		return
	fi
	v=$("$XRDMA_ROOT/scripts/kernels.sh" guest-kver) ||
		xrdma_die "no Debian kernel of Linux $("$XRDMA_ROOT/scripts/kernels.sh" series): need /boot/vmlinuz-*-amd64 and matching linux-headers (make deps)"
	echo "$v"
}

# xrdma_test_field FILE KEY [DEFAULT] -> value of "# XRDMA_KEY: value"
xrdma_test_field() {
	local v
	# repeated lines join (long PROGRAMS lists), one value stays as is
	v=$(sed -n "s/^# XRDMA_$2:[[:space:]]*//p" "$1" | paste -sd ' ')
	echo "${v:-${3:-}}"
}

# The repo's guest tests, a path a line, sorted: every *.sh under
# tools/testing/ (tools/testing/harness/ excepted) with at least one header
# line "# XRDMA_KEY: ..." of XRDMA_TEST_HEADER_RE.  A test lives in the
# folder of the layer it tests, beside the program it runs; scripts that
# are not tests (programs a test ships, files they source) carry no such
# line.
xrdma_repo_tests() {
	find "$XRDMA_TESTS_DIR" -path "$XRDMA_HARNESS" -prune -o \
		-name '*.sh' -type f -print0 |
		xargs -0 -r grep -lE "$XRDMA_TEST_HEADER_RE" | sort
}

# Directories of throwaway tests kept outside the repo: $XRDMA_EXTRA_TESTS
# (colon separated); every *.sh directly in one is a test, its lib/ is
# shipped with /xrdma/tests/lib/.
xrdma_extra_dirs() {
	local d
	if [ -n "${XRDMA_EXTRA_TESTS:-}" ]; then
		tr ':' '\n' <<<"$XRDMA_EXTRA_TESTS" | while read -r d; do
			[ -n "$d" ] && realpath "$d"
		done
	fi
	return 0
}

# Every test file: the repo's, then those of $XRDMA_EXTRA_TESTS
xrdma_test_files() {
	local d f
	xrdma_repo_tests
	xrdma_extra_dirs | while read -r d; do
		for f in "$d"/*.sh; do
			[ -f "$f" ] && echo "$f"
		done
	done
	return 0
}

# xrdma_tests_of FILE -> "NAME LIMIT SUBTEST FILE" per test the file
# holds: the file itself (NAME its base name, SUBTEST "-"), or NAME_SUB for
# each line "# XRDMA_SUBTEST: SUB [LIMIT]" (LIMIT default: the file's
# XRDMA_TIMEOUT).  mkinitramfs.sh lists them for tools/testing/harness/guest/init.sh,
# which runs each with XRDMA_SUBTEST=SUB.
xrdma_tests_of() {
	local f=$1 base lim sub sl
	base=$(basename "$f" .sh)
	lim=$(xrdma_test_field "$f" TIMEOUT "$XRDMA_DEFAULT_TEST_TIMEOUT")
	if ! grep -q '^# XRDMA_SUBTEST:' "$f"; then
		echo "$base $lim - $f"
		return
	fi
	sed -n 's/^# XRDMA_SUBTEST:[[:space:]]*//p' "$f" |
		while read -r sub sl _; do
			echo "${base}_$sub ${sl:-$lim} $sub $f"
		done
}

# All tests, "NAME LIMIT SUBTEST FILE" a line, sorted by name
xrdma_all_tests() {
	local f
	xrdma_test_files | while read -r f; do
		xrdma_tests_of "$f"
	done | sort -k1,1
}

# xrdma_check_tests: the test files' base names (the guest holds them in
# one directory, /xrdma/tests/) and the test names are unique; otherwise
# says which files clash, on stderr, and fails
xrdma_check_tests() {
	local dup rc=0
	for dup in $(xrdma_test_files | xargs -r -n 1 basename | sort | uniq -d); do
		echo "guest: error: two guest test files named $dup:" \
			"$(xrdma_test_files | grep -F "/$dup" | paste -sd ' ')" >&2
		rc=1
	done
	for dup in $(xrdma_all_tests | cut -d' ' -f1 | uniq -d); do
		echo "guest: error: two guest tests named $dup:" \
			"$(xrdma_all_tests | awk -v n="$dup" '$1 == n { print $4 }' | paste -sd ' ')" >&2
		rc=1
	done
	return $rc
}

# xrdma_match NAME GLOBS   GLOBS is comma separated, as on the kernel cmdline
xrdma_match() {
	local name=$1 g globs
	IFS=, read -r -a globs <<<"$2"
	for g in "${globs[@]}"; do
		# shellcheck disable=SC2254
		case $name in $g) return 0 ;; esac
	done
	return 1
}

# xrdma_selects NAME FILE GLOBS: a glob selects a test by its name or by
# its file's (xverbs_pmem selects xverbs_pmem_xnic and xverbs_pmem_rxe)
xrdma_selects() {
	local base=${2##*/}
	xrdma_match "$1" "$3" || xrdma_match "${base%.sh}" "$3"
}

# xrdma_unmatched GLOBS -> each glob of GLOBS that selects no test
xrdma_unmatched() {
	local all g globs name lim sub f
	all=$(xrdma_all_tests)
	IFS=, read -r -a globs <<<"$1"
	for g in "${globs[@]}"; do
		while read -r name lim sub f; do
			xrdma_selects "$name" "$f" "$g" && continue 2
		done <<<"$all"
		echo "$g"
	done
}

# xrdma_select GLOBS VMS -> the selected tests needing VMS guests, as
# xrdma_all_tests prints them
xrdma_select() {
	local name lim sub f
	xrdma_all_tests | while read -r name lim sub f; do
		xrdma_selects "$name" "$f" "$1" || continue
		[ "$(xrdma_test_field "$f" VMS 1)" = "$2" ] &&
			echo "$name $lim $sub $f"
	done
	return 0
}

# Our modules: every *.ko under the search roots (default: the repo) whose
# vermagic matches KVER, one path per line.  XRDMA_KO_DIRS (colon separated)
# overrides the roots.
xrdma_find_modules() {
	local kver=$1 roots r ko vm
	roots=${XRDMA_KO_DIRS:-$XRDMA_ROOT}
	tr ':' '\n' <<<"$roots" | while read -r r; do
		[ -d "$r" ] || continue
		find "$r" \( -name .git -o -path "$XRDMA_ROOT/build" \) -prune -o \
			-name '*.ko' -type f -print
	done | sort | while read -r ko; do
		vm=$(modinfo -F vermagic "$ko" 2>/dev/null | awk '{print $1}')
		if [ "$vm" = "$kver" ]; then
			echo "$ko"
		else
			xrdma_log "ignoring $ko (vermagic '${vm:-?}', want $kver)"
		fi
	done
}

# Console lines that fail a run wherever they appear (extended regex).
# "WARNING: " at a line's start or after printk's "[ time] " catches every
# lockdep report of 6.1 (irq lock inversion, "-safe -> -unsafe", nested
# lock, still has locks held, ...), not only those named here.
XRDMA_SPLAT_RE='(^|\] )WARNING: |WARNING: CPU: |WARNING: .* at [^ ]+:[0-9]+|-+\[ cut here \]-+|BUG: |kernel BUG at|Oops: |Call Trace:|general protection fault|Kernel panic|possible circular locking|inconsistent lock state|possible recursive locking|suspicious RCU usage|bad unlock balance|held lock freed|lock held when returning to user space|DEBUG_LOCKS_WARN_ON|KASAN: |UBSAN: |KFENCE: |refcount_t: |list_add corruption|list_del corruption|INFO: task .* blocked for more than|soft lockup|hard LOCKUP|rcu: INFO:|detected stalls? on CPU|double fault|stack-protector|Unable to handle kernel|invalid opcode: |unreferenced object'

# xrdma_splats LOG -> "TEST<TAB>LINE" for each splat line, TEST being the
# test running when it appeared ("-" outside tests)
xrdma_splats() {
	tr -d '\r' <"$1" | awk -v re="$XRDMA_SPLAT_RE" '
		/XRDMA_TEST_START / { sub(/.*XRDMA_TEST_START /, ""); cur = $1; next }
		/XRDMA_TEST_END / { cur = "-"; next }
		/XRDMA_/ { next }
		# a user process killed by a trap ("traps: ib_send_lat[6375]
		# general protection fault ip:... in librdmacm.so.1"): the
		# kernel reporting a program'"'"'s crash, which its test sees (rc
		# 139); the kernel'"'"'s own fault says "Oops:" and "Call Trace:"
		/traps: [^ ]+\[[0-9]+\] general protection fault ip:/ { next }
		$0 ~ re { print (cur == "" ? "-" : cur) "\t" $0 }'
}

# xrdma_parse_log LOG TAG TEST... -> "NAME STATUS REASON" lines: one per
# expected TEST, then failures of the run itself (NAME:TAG):
#   console_splat:TAG   kernel splat anywhere in the log
#   guest_timeout:TAG   QEMU killed by the host timeout
#   guest_crash:TAG     guest stopped before the runner finished
#   kmemleak:TAG        XRDMA_KMEMLEAK=1 and the runner's leak scan found
#                       objects of our modules, or could not scan
# run-vm.sh appends "XRDMA_HOST qemu_rc=N ..." to the log.
xrdma_parse_log() {
	local log=$1 tag=$2 marks=$1 t st qrc done_ splat stall km why
	shift 2
	# markers from the guest's second serial port if it worked (run-vm.sh)
	[ -s "$log.marks" ] && marks=$log.marks
	for t in "$@"; do
		st=$(tr -d '\r' <"$marks" |
			grep -oE "XRDMA_RESULT $t (PASS|FAIL|SKIP)" | tail -1 | cut -d' ' -f3)
		if [ -n "$st" ]; then
			# the reason a test gave with fail/skip (lib/xrdma_test.sh)
			why=$(xrdma_test_output "$log" "$t" |
				sed -n "s/^$st: $t: //p" | tail -1)
			[ "$st" = FAIL ] && [ -z "$why" ] &&
				why=$(xrdma_fail_context "$log" "$t")
			echo "$t $st $why"
		elif tr -d '\r' <"$marks" | grep -qE "XRDMA_TEST_START $t( |\$)"; then
			echo "$t FAIL started but never finished (guest hung or crashed)"
		else
			echo "$t FAIL never ran (guest stopped early or test missing)"
		fi
	done
	splat=$(xrdma_splats "$log" | head -1)
	if [ -n "$splat" ]; then
		echo "console_splat:$tag FAIL $(xrdma_splats "$log" | wc -l) line(s), first during ${splat%%	*}: ${splat#*	}"
	fi
	# XRDMA_KMEMLEAK=1 (the debug kernel): the runner's leak scan
	if [ "${XRDMA_KMEMLEAK:-0}" = 1 ]; then
		km=$(tr -d '\r' <"$marks" | sed -n 's/.*XRDMA_KMEMLEAK total=\([0-9]*\) ours=\(-*[0-9]*\).*/\1 \2/p' | tail -1)
		case $km in
		"") echo "kmemleak:$tag FAIL no leak scan (guest stopped early?)" ;;
		*" -1") echo "kmemleak:$tag FAIL leak scan impossible (kmemleak off or disabled itself)" ;;
		*" 0") ;;
		*) echo "kmemleak:$tag FAIL ${km#* } unreferenced object(s) allocated by our modules (of ${km% *})" ;;
		esac
	fi
	qrc=$(tr -d '\r' <"$log" | sed -n 's/.*XRDMA_HOST qemu_rc=\([0-9]*\).*/\1/p' | tail -1)
	done_=$(tr -d '\r' <"$marks" | grep -c 'XRDMA_DONE' || true)
	if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
		stall=$(tr -d '\r' <"$log" | sed -n 's/.*XRDMA_HOST stalled: //p' | tail -1)
		echo "guest_timeout:$tag FAIL QEMU killed: ${stall:-host timeout}; last console line: $(xrdma_last_line "$log")"
	elif [ "$done_" = 0 ]; then
		echo "guest_crash:$tag FAIL guest stopped before the runner finished (qemu rc=${qrc:-?}); last console line: $(xrdma_last_line "$log")"
	fi
	return 0
}

# xrdma_fail_context LOG TEST: for a test that failed without saying why
# (killed at its time limit, ended by a signal): the runner's notes on it
# and its last console line, so that a summary shows where it stood
xrdma_fail_context() {
	local notes last
	notes=$(xrdma_test_output "$1" "$2" |
		sed -n "s/.*XRDMA_NOTE $2: \(.*\)/\1; /p" | head -3 | tr -d '\n')
	last=$(xrdma_test_output "$1" "$2" | grep -v 'XRDMA_' |
		grep -v '^ *$' | tail -1 | cut -c1-160)
	echo "${notes:-no reason given; }last line: ${last:-none}"
}

# xrdma_last_line LOG: the guest's last console line (not the host's)
xrdma_last_line() {
	tr -d '\r' <"$1" | grep -v '^XRDMA_HOST' | grep -v '^ *$' | tail -1 |
		cut -c1-160
}

# xrdma_test_output LOG TEST: console lines of one test
xrdma_test_output() {
	tr -d '\r' <"$1" | awk -v t="$2" '
		$0 ~ ("XRDMA_TEST_START " t "( |$)") { on = 1 }
		on { print }
		$0 ~ ("XRDMA_TEST_END " t " ") { on = 0 }'
}

# xrdma_boot_kernel KVER -> kernel image for QEMU's -kernel.  The compressed
# bzImage (xz: Debian's 6.1, zstd: its 6.12) takes seconds to decompress
# under TCG, so the ELF vmlinux inside it is extracted once (cached in
# build/guest/cache) and booted through its PVH entry point.  Falls back to
# /boot/vmlinuz-KVER; XRDMA_KERNEL overrides.
xrdma_boot_kernel() {
	local kver=$1 vmlinuz=/boot/vmlinuz-$1 cache out off tmp magic unz
	if [ -n "${XRDMA_KERNEL:-}" ]; then
		echo "$XRDMA_KERNEL"
		return
	fi
	cache=$XRDMA_ROOT/build/guest/cache
	out=$cache/vmlinux-$kver
	if [ -s "$out" ] && [ "$out" -nt "$vmlinuz" ]; then
		echo "$out"
		return
	fi
	mkdir -p "$cache"
	tmp=$(mktemp "$out.XXXXXX")
	# each candidate start of a compressed stream: xz's and zstd's magic
	for magic in "xz $(printf '\3757zXZ')" "zstd $(printf '\50\265\57\375')"; do
		unz=${magic%% *}
		while read -r off; do
			# (zstd warns of the bzImage's tail after the stream)
			tail -c +$((off + 1)) "$vmlinuz" | "$unz" -dcq >"$tmp" 2>/dev/null
			if file "$tmp" | grep -q 'ELF 64-bit.*executable'; then
				mv "$tmp" "$out"
				echo "$out"
				return
			fi
		done < <(LC_ALL=C grep -aboF "${magic#* }" "$vmlinuz" 2>/dev/null | cut -d: -f1)
	done
	rm -f "$tmp"
	xrdma_log "cannot extract vmlinux from $vmlinuz; booting the bzImage (slower)"
	echo "$vmlinuz"
}

# xrdma_tee_stderr LOG CMD...: run CMD with its stderr (progress and
# messages of a step that may take minutes) both in LOG and on stderr;
# CMD's exit status
xrdma_tee_stderr() {
	local log=$1 fd tp rc
	shift
	exec {fd}> >(tee "$log" >&2)
	tp=$!
	"$@" 2>&"$fd"
	rc=$?
	exec {fd}>&-
	wait "$tp"
	return $rc
}

# xrdma_guest_progress MARKS TOTAL: the state of a guest run from its
# markers (run-vm.sh's heartbeat); XRDMA_LAST and XRDMA_LAST_T (the last
# marker and when it came) are kept by the caller
xrdma_guest_progress() {
	local m=$1 total=$2 done_ failed cur
	done_=$(grep -ac 'XRDMA_RESULT ' "$m")
	failed=$(grep -acE 'XRDMA_RESULT [^ ]+ FAIL' "$m")
	PROGRESS_MSG="$done_${total:+/$total} tests done"
	[ "$failed" = 0 ] || PROGRESS_MSG="$PROGRESS_MSG ($failed failed)"
	case $XRDMA_LAST in
	"") PROGRESS_MSG="booting" ;;
	*XRDMA_TEST_START*)
		cur=${XRDMA_LAST#*XRDMA_TEST_START }
		PROGRESS_MSG="$PROGRESS_MSG, running ${cur% timeout=*} for $(($(date +%s) - XRDMA_LAST_T))s (limit ${cur##*timeout=}s)"
		;;
	*XRDMA_DONE*) PROGRESS_MSG="$PROGRESS_MSG, powering off" ;;
	*XRDMA_BOOT*) PROGRESS_MSG="$PROGRESS_MSG, booted" ;;
	*) [ "$done_" != "${total:-}" ] || PROGRESS_MSG="$PROGRESS_MSG, finishing" ;;
	esac
}

# xrdma_build_debug KDIR: our modules against the debug kernel's build tree
# (scripts/debug-kernel.sh), in a copy of the sources, build/debugk/src, so
# that the .ko files for Debian's kernel stay where they are; then the guest
# test programs as xrdma_build does.  The copy keeps its own objects between
# runs (incremental); objects of the original never enter it.
xrdma_build_debug() {
	local src=$XRDMA_ROOT/build/debugk/src
	mkdir -p "$src"
	rsync -a --delete --exclude=/build/ --exclude=.git \
		--exclude='*.o' --exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' \
		--exclude='.*.cmd' --exclude=Module.symvers --exclude=modules.order \
		--exclude='*.a' --exclude='*.so*' --exclude='.*.d' \
		"$XRDMA_ROOT/" "$src/" || return
	# "-o deps": the checkout's own make has run scripts/install-deps.sh
	make -C "$src" -o deps KDIR="$1" modules || return
	make -C "$XRDMA_ROOT" tools || return
	xrdma_build_programs
}

# The directories of the guest tests' programs: every directory under
# tools/testing/ with a Makefile, a path a line
xrdma_program_dirs() {
	find "$XRDMA_TESTS_DIR" -name Makefile -type f -printf '%h\n' | sort
}

# xrdma_build_programs: make -C in each of them
xrdma_build_programs() {
	local d
	for d in $(xrdma_program_dirs); do
		make -C "$d" || return
	done
}

# xrdma_build KVER: the modules (top-level make, against KVER's headers) and
# the guest test programs (xrdma_build_programs)
xrdma_build() {
	make -C "$XRDMA_ROOT" KDIR="/lib/modules/$1/build" || return
	xrdma_build_programs
}
