# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# Helpers for xrdma guest tests.  The guest runner (scripts/guest/init.sh)
# sources this file before each test, in the test's own shell.
#
# Environment provided by the runner:
#   XRDMA_TEST     test name            XRDMA_TMP   empty scratch directory
#   XRDMA_KO       directory of our modules (NAME.ko, flat)
#   XRDMA_VMS      1 or 2               XRDMA_ROLE  a or b (two-guest tests)
#   XRDMA_IP, XRDMA_PEER_IP             198.18.0.1 / 198.18.0.2 by role
# Exit status: 0 pass, 77 skip, anything else fail.

XRDMA_DEBUGFS=/sys/kernel/debug

note() { echo "# $XRDMA_TEST: $*"; }

# fail/skip print to stderr so they also work inside $(...)
fail() {
	echo "FAIL: $XRDMA_TEST: $*" >&2
	exit 1
}

skip() {
	echo "SKIP: $XRDMA_TEST: $*" >&2
	exit 77
}

# assert CMD [ARGS...]: CMD must succeed
assert() {
	"$@" || fail "command failed (rc=$?): $*"
}

# refute CMD [ARGS...]: CMD must fail
refute() {
	if "$@"; then
		fail "command unexpectedly succeeded: $*"
	fi
}

assert_exists() { [ -e "$1" ] || fail "missing: $1"; }
assert_absent() { [ ! -e "$1" ] || fail "still present: $1"; }
assert_dir() { [ -d "$1" ] || fail "not a directory: $1"; }

# assert_eq GOT WANT [WHAT]
assert_eq() {
	[ "$1" = "$2" ] || fail "${3:-value}: got '$1', want '$2'"
}

# xko NAME: path of our module NAME.ko; fails the test if it was not built
# (use as: ko=$(xko NAME) || exit 1)
xko() {
	[ -f "$XRDMA_KO/$1.ko" ] || fail "module $1.ko not in the initramfs (not built?)"
	echo "$XRDMA_KO/$1.ko"
}

# has_ko NAME: whether our module NAME.ko was built
has_ko() { [ -f "$XRDMA_KO/$1.ko" ]; }

# require_ko NAME...: skip the test unless all these modules were built
require_ko() {
	for _m in "$@"; do
		has_ko "$_m" || skip "module $_m.ko not built"
	done
}

# module_loaded NAME
module_loaded() { grep -q "^$1 " /proc/modules; }

mount_debugfs() {
	grep -q " $XRDMA_DEBUGFS debugfs " /proc/mounts ||
		mount -t debugfs none "$XRDMA_DEBUGFS" ||
		fail "cannot mount debugfs"
}

# first network interface other than lo (two-guest tests)
wire_netdev() {
	for _d in /sys/class/net/*; do
		[ "${_d##*/}" = lo ] || {
			echo "${_d##*/}"
			return 0
		}
	done
	return 1
}
