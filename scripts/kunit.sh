#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make kunit: run xrdma's KUnit suites built into an x86_64 kernel from
# Debian's linux-source-6.1, under QEMU (TCG), with KASAN, UBSAN and lockdep.
#
#   scripts/kunit.sh [FILTER_GLOB]     default: $XRDMA_KUNIT_FILTER or x[rn]* (xrdma_*, xnic_*)
#                                      ("suite_glob" or "suite_glob.test_glob")
#
# Environment:
#   XRDMA_CACHE          cache dir (default /var/cache/xrdma), outside the clone:
#                        linux-<pkgversion>/  extracted kernel tree (shared)
#                        kunit-<key>/         kunit.py build dir, key = hash of
#                                             kunitconfig (minus comments and
#                                             CONFIG_XRDMA_*) + linux-source
#                                             version + gcc version; never our
#                                             sources
#   XRDMA_KUNITCONFIG    kunitconfig (default kunit/xrdma.kunitconfig)
#   XRDMA_KUNIT_TIMEOUT  seconds for the test run (default 1200)
#   XRDMA_KUNIT_LOGDIR   where logs go (default <project>/build/kunit)
#   XRDMA_KUNIT_ARGS     extra kunit.py run arguments (e.g. --kernel_args=...)
#   XRDMA_KUNIT_QEMU_ARGS  QEMU arguments (default "-accel tcg -smp 2")
#   JOBS                 make -j (default nproc)
#   XRDMA_PROGRESS_INTERVAL  seconds between progress lines (default 30)
#
# Progress: a cold build (no kernel in the build dir yet) is announced with
# its size and duration; while kunit.py runs, a line on stderr every 30 s
# (scripts/progress.sh) says which phase it is in, the objects compiled vs
# the count the last build left (kept in $XRDMA_CACHE/progress/kunit) with
# an estimate of the time left, or the test cases reported so far.
# Logs: kunit.out (kunit.py's output), test.log (kernel console), config
# (.config used), gate.txt (scripts/kunit-log-check.sh findings).
# The log gate fails the run on any KASAN/UBSAN/lockdep/WARN/BUG report even
# if every KUnit case passed: tests must not provoke such reports on purpose.
#
# Last line of output, always: "P passed, F failed, S skipped" (KUnit test
# cases; F includes crashed cases, plus 1 if the log gate or anything else in
# the harness failed).  Exit status 0 only if everything passed.
set -euo pipefail

PROJ=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/progress.sh
. "$PROJ/scripts/progress.sh"
GLOB=${1:-${XRDMA_KUNIT_FILTER:-x[rn]*}}
CACHE=${XRDMA_CACHE:-/var/cache/xrdma}
CFG=$(readlink -f "${XRDMA_KUNITCONFIG:-$PROJ/kunit/xrdma.kunitconfig}")
TIMEOUT=${XRDMA_KUNIT_TIMEOUT:-1200}
LOGDIR=${XRDMA_KUNIT_LOGDIR:-$PROJ/build/kunit}
JOBS=${JOBS:-$(nproc)}
# TCG explicitly: never let QEMU pick KVM (a present-but-broken /dev/kvm hangs).
QEMU_ARGS=${XRDMA_KUNIT_QEMU_ARGS:--accel tcg -smp 2}

P=0 F=0 S=0
harness_fail=0
finish() {
	local rc=$?
	trap - EXIT
	progress_stop
	if [ -n "${HOOKED:-}" ]; then
		"$PROJ/scripts/kunit-hook.sh" remove "$KSRC" || harness_fail=1
	fi
	if [ $rc -ne 0 ] && [ $harness_fail -eq 0 ] && [ $F -eq 0 ]; then
		harness_fail=1
	fi
	F=$((F + harness_fail))
	echo "$P passed, $F failed, $S skipped"
	if [ $F -ne 0 ] || [ $rc -ne 0 ]; then
		exit 1
	fi
	exit 0
}
trap finish EXIT
trap 'exit 130' INT TERM HUP

die() {
	echo "kunit.sh: $*" >&2
	exit 1
}

# Debian's linux-source-X.Y package of a kernel the tree builds for
TAR=$("$PROJ/scripts/kernels.sh" source-tar || true)
[ -n "$TAR" ] || die "no /usr/src/linux-source-X.Y.tar.xz of Linux $("$PROJ/scripts/kernels.sh" series) (run: make deps)"
PKG=$(basename "$TAR" .tar.xz)
st=$(dpkg-query -W -f='${Status}' "$PKG" 2>/dev/null || true)
[ "$st" = "install ok installed" ] ||
	die "package $PKG is not fully installed ('$st'); run: make deps"
KVER=$(dpkg-query -W -f='${Version}' "$PKG")
[ -f "$CFG" ] || die "no kunitconfig $CFG"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing (run: make deps)"

mkdir -p "$CACHE" "$LOGDIR"
KSRC=$CACHE/linux-$KVER
# Cache key: the kernel-relevant kunitconfig lines (comments dropped, sorted,
# our own CONFIG_XRDMA_* symbols dropped: they only select code under
# drivers/xrdma, which Kconfig/fixdep track per symbol, so enabling another
# xrdma suite stays a warm build), the linux-source version and the compiler.
cfgkey() {
	grep -E '^(CONFIG_[A-Za-z0-9_]+=|# CONFIG_[A-Za-z0-9_]+ is not set)' "$1" |
		grep -vE '^(# )?CONFIG_XRDMA_' | LC_ALL=C sort
}
KEY=$( { cfgkey "$CFG"; echo "$PKG $KVER"; gcc --version | head -n 1; } |
	sha256sum | cut -c1-16)
BUILD=$CACHE/kunit-$KEY

# One kernel tree, shared by every clone on this machine: serialise.
exec 9>"$CACHE/lock"
if ! flock -n 9; then
	echo "kunit.sh: waiting for $CACHE/lock (another xrdma KUnit run)..."
	progress_start kunit.sh progress_say "waiting for $CACHE/lock (another xrdma KUnit run)"
	flock 9
	progress_stop
fi

if [ ! -f "$KSRC/.xrdma-extracted" ]; then
	echo "kunit.sh: extracting $TAR into $KSRC (once)..."
	rm -rf "$KSRC" "$KSRC.tmp"
	mkdir -p "$KSRC.tmp"
	progress_start kunit.sh progress_size "$KSRC.tmp" 1400 "extracting the kernel source"
	tar -xf "$TAR" -C "$KSRC.tmp" --strip-components=1
	progress_stop
	touch "$KSRC.tmp/.xrdma-extracted"
	mv "$KSRC.tmp" "$KSRC"
fi

# A killed run may have left the hook in place; we hold the lock, so reset.
"$PROJ/scripts/kunit-hook.sh" remove "$KSRC"
"$PROJ/scripts/kunit-hook.sh" add "$KSRC" "$PROJ"
HOOKED=1

# make judges by mtime only: if the build dir last built another checkout (or
# a scratch copy), its objects may look newer than our sources, so drop them.
# Same checkout as last time: plain incremental build.
if [ "$(cat "$BUILD/.xrdma-project" 2>/dev/null)" != "$PROJ" ]; then
	rm -rf "$BUILD/drivers/xrdma"
fi
# Never gate on a previous run's console log.
rm -f "$BUILD/test.log"

OUT=$LOGDIR/kunit.out
read -r -a EXTRA <<<"${XRDMA_KUNIT_ARGS:-}"
echo "kunit.sh: project $PROJ"
echo "kunit.sh: kernel  $KSRC, build dir $BUILD"
echo "kunit.sh: config  $CFG, filter '$GLOB', logs in $LOGDIR"
# objects of a whole build with kunit/xrdma.kunitconfig on 6.1.192, when no
# build on this machine has left its count yet
KUNIT_OBJECTS=1356
cold=0
if [ -s "$BUILD/vmlinux" ]; then
	echo "kunit.sh: reusing the KUnit kernel built in $BUILD (only what changed is rebuilt)"
else
	cold=1
	last=$(progress_recall kunit secs)
	echo "kunit.sh: no KUnit kernel in $BUILD yet: building it, ~$(progress_recall kunit objects | grep . || echo $KUNIT_OBJECTS) objects," \
		"${last:+$(progress_about "$last") last time on this machine, }10-20 min on 2 cores;" \
		"once: later runs reuse it and rebuild only our objects"
fi
# phase of kunit.py from its output: configuring, building, running
kunit_progress() {
	local n
	if grep -q 'Starting KUnit Kernel' "$OUT"; then
		n=$(grep -cE '^\[[0-9:]+\] +\[(PASSED|FAILED|SKIPPED|CRASHED)\] ' "$OUT")
		PROGRESS_MSG="running the tests under QEMU: $n case(s) reported"
	elif grep -q 'Building KUnit Kernel' "$OUT"; then
		progress_objects "$BUILD"
		PROGRESS_MSG="building the KUnit kernel: $PROGRESS_MSG"
	else
		PROGRESS_MSG="configuring the KUnit kernel"
	fi
}
start=$(date +%s)
mkdir -p "$BUILD"
echo "$PROJ" >"$BUILD/.xrdma-project"
: >"$OUT"
PROGRESS_EXPECT=$(progress_recall kunit objects)
PROGRESS_EXPECT=${PROGRESS_EXPECT:-$KUNIT_OBJECTS}
progress_start kunit.sh kunit_progress
set +e
# unbuffered: kunit.py's lines appear as it prints them, not at its end
PYTHONUNBUFFERED=1 python3 "$KSRC/tools/testing/kunit/kunit.py" run \
	--build_dir="$BUILD" \
	--kunitconfig="$CFG" \
	--arch=x86_64 \
	--qemu_args="$QEMU_ARGS" \
	--jobs="$JOBS" \
	--timeout="$TIMEOUT" \
	"${EXTRA[@]}" \
	"$GLOB" 2>&1 | tee "$OUT"
krc=${PIPESTATUS[0]}
set -e
progress_stop
# what the next cold build will be measured against
if [ -s "$BUILD/vmlinux" ] && [ "$BUILD/vmlinux" -nt "$BUILD/.xrdma-project" ]; then
	if [ $cold = 1 ]; then
		secs=$(sed -n 's/.*, \([0-9]*\)\.[0-9]*s building.*/\1/p' "$OUT" | tail -n 1)
	else
		secs=$(progress_recall kunit secs)
	fi
	progress_record kunit "${secs:-}" "$BUILD"
fi
echo "kunit.sh: kunit.py exited $krc after $(( $(date +%s) - start ))s"

rm -f "$LOGDIR/test.log" "$LOGDIR/config"
if [ -f "$BUILD/test.log" ]; then
	cp "$BUILD/test.log" "$LOGDIR/test.log"
fi
[ -f "$BUILD/.config" ] && cp "$BUILD/.config" "$LOGDIR/config"

summary=$(sed -e 's/\x1b\[[0-9;]*m//g' "$OUT" |
	grep -E 'Testing complete\. Ran [0-9]+ tests' | tail -n 1 || true)
count() {
	echo "$summary" | grep -oE "$1: [0-9]+" | grep -oE '[0-9]+' || echo 0
}
if [ -n "$summary" ]; then
	P=$(count passed)
	S=$(count skipped)
	F=$(( $(count failed) + $(count crashed) ))
fi

logs=("$OUT")
[ -f "$LOGDIR/test.log" ] && logs+=("$LOGDIR/test.log")
if ! "$PROJ/scripts/kunit-log-check.sh" "${logs[@]}" | tee "$LOGDIR/gate.txt"; then
	echo "kunit.sh: log gate FAILED (see above; logs in $LOGDIR)"
	harness_fail=1
elif [ "$krc" -ne 0 ]; then
	echo "kunit.sh: kunit.py failed (exit $krc)"
	[ "$F" -gt 0 ] || harness_fail=1
else
	echo "kunit.sh: log gate clean"
fi
[ "$F" -eq 0 ] && [ "$harness_fail" -eq 0 ] && [ "$krc" -eq 0 ]
