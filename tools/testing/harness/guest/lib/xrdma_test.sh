# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# Helpers for xrdma guest tests.  The guest runner (tools/testing/harness/guest/init.sh)
# sources this file before each test, in the test's own shell.
#
# Environment provided by the runner:
#   XRDMA_TEST     test name            XRDMA_TMP   empty scratch directory
#   XRDMA_KO       directory of our modules (NAME.ko, flat)
#   XRDMA_VMS      1 or 2               XRDMA_ROLE  a or b (two-guest tests)
#   XRDMA_IP, XRDMA_PEER_IP             198.18.0.1 / 198.18.0.2 by role
#   XRDMA_SUBTEST  the subtest of a file with "# XRDMA_SUBTEST:" lines
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

# mod_order [-a] MOD...: an unload order of the MODs (names as in
# /proc/modules): each before the modules it depends on, directly or
# through others (the running kernel's modules.dep), otherwise in the order
# given, a line each.  What depends on what differs by kernel (6.12's nvmet
# needs nvme_core, 6.1's does not), so lists of modules to unload go
# through this rather than trusting their own order.  -a: the modules they
# depend on too, "NAME named|dep" a line.
mod_order() {
	_moa=0
	[ "$1" = -a ] && { _moa=1; shift; }
	awk -v want="$*" -v all=$_moa '
		function nm(p) {
			sub(/^.*\//, "", p); sub(/\.ko.*$/, "", p); gsub(/-/, "_", p)
			return p
		}
		function visit(m,    i, n, d) {
			if (m in seen) return
			seen[m] = 1
			n = split(dep[m], d, " ")
			for (i = 1; i <= n; i++) visit(d[i])
			order[++cnt] = m
		}
		{ s = ""; for (i = 2; i <= NF; i++) s = s " " nm($i); dep[nm($1)] = s }
		END {
			n = split(want, w, " ")
			for (i = 1; i <= n; i++) {
				gsub(/-/, "_", w[i])
				named[w[i]] = 1
			}
			# depth first from the last named: reversed, dependents
			# come first and the named keep their order otherwise
			for (i = n; i >= 1; i--) visit(w[i])
			for (i = cnt; i >= 1; i--) {
				m = order[i]
				if (!all) { if (m in named) print m }
				else print m, (m in named) ? "named" : "dep"
			}
		}' "/lib/modules/$(uname -r)/modules.dep"
}

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

# testdev_stack_up: mount debugfs, load xrdma_core, xrdma_uverbs and
# xrdma_testdev with one device (testdev0)
testdev_stack_up() {
	_core=$(xko xrdma_core) || exit 1
	_uv=$(xko xrdma_uverbs) || exit 1
	_td=$(xko xrdma_testdev) || exit 1
	mount_debugfs
	assert insmod "$_core"
	assert insmod "$_uv"
	assert insmod "$_td" ndev=1
}

# xnic_netdev I: the netdev of xnic_sim device I (the Ethernet function
# of platform device xnic.I) in the current network namespace, or 1
xnic_netdev() {
	for _xn in /sys/class/net/*; do
		_xl=$(readlink "$_xn/device" 2>/dev/null) || continue
		if [ "${_xl##*/}" = "xnic.$1" ]; then
			echo "${_xn##*/}"
			return 0
		fi
	done
	return 1
}

# xnic_stack_up [NDEV]: load xrdma_core, xrdma_uverbs, xnic_sim (NDEV
# devices, default 1) and xnic, and wait for the uverbs nodes of xnic0..
xnic_stack_up() {
	_n=${1:-1}
	for _m in xrdma_core xrdma_uverbs xnic_sim xnic; do
		_ko=$(xko $_m) || exit 1
		_arg=
		[ $_m = xnic_sim ] && _arg="ndev=$_n"
		# shellcheck disable=SC2086 # no argument when empty
		insmod "$_ko" $_arg || {
			xnic_stack_down
			fail "insmod $_m"
		}
	done
	_i=0
	while [ "$(cat /sys/class/xrdma/uverbs*/ibdev 2>/dev/null |
		   grep -c '^xnic')" -lt "$_n" ]; do
		_i=$((_i + 1))
		if [ $_i -gt 100 ]; then
			xnic_stack_down
			fail "no uverbs device for $_n xnic device(s)"
		fi
		sleep 0.1
	done
}

# xnic_utest_init: for a test that loads the xnic stack itself and runs
# xnic_utest: the paths of the modules in XNIC_CORE, XNIC_UV, XNIC_SIM
# and XNIC_DRV (the test fails if one was not built), xnic_utest in the
# guest, debugfs mounted
xnic_utest_init() {
	XNIC_CORE=$(xko xrdma_core) || exit 1
	XNIC_UV=$(xko xrdma_uverbs) || exit 1
	XNIC_SIM=$(xko xnic_sim) || exit 1
	XNIC_DRV=$(xko xnic) || exit 1
	export XNIC_CORE XNIC_UV XNIC_SIM XNIC_DRV
	command -v xnic_utest >/dev/null ||
		fail "xnic_utest not in the guest (not built?)"
	mount_debugfs
}

# xnic_stack_down: unload what xnic_stack_up loaded (what is loaded of it)
xnic_stack_down() {
	for _m in xnic xnic_sim xrdma_uverbs xrdma_core; do
		module_loaded $_m || continue
		rmmod $_m || echo "rmmod $_m failed" >&2
	done
}

# rmmod_timed MOD: rmmod MOD in the background (a removal must not wait
# for the processes using the module) and wait for it up to 20 s: past
# that, show its kernel stack and the blocked tasks (sysrq w) and return
# 124; else note how long it took and return rmmod's status
rmmod_timed() {
	rmmod "$1" &
	_rp=$!
	_n=0
	while kill -0 $_rp 2>/dev/null; do
		_n=$((_n + 1))
		if [ $_n -gt 200 ]; then
			note "rmmod $1 still running after 20 s; its stack:"
			cat /proc/$_rp/stack 2>/dev/null
			echo w >/proc/sysrq-trigger
			return 124
		fi
		sleep 0.1
	done
	wait $_rp
	_rc=$?
	note "rmmod $1 took about $((_n / 10)).$((_n % 10)) s"
	return $_rc
}

# xnic_no_objects DEV: the device's resource tracking (debugfs) is there
# and shows nothing alive: its "type count" lines all 0, no object listed
xnic_no_objects() {
	[ -r "$XRDMA_DEBUGFS/xrdma/$1/resources" ] || return 1
	awk 'NF == 2 && $2 != 0 { bad = 1 } NF > 2 { bad = 1 } END { exit bad }' \
		"$XRDMA_DEBUGFS/xrdma/$1/resources"
}

# xnic_stack_end DEV...: the end of a test on xnic_stack_up's stack: note
# in $XRDMA_TMP/errors the objects left on each DEV, unload the stack, note
# the modules still loaded
xnic_stack_end() {
	for _d in "$@"; do
		xnic_no_objects "$_d" || {
			echo "objects left on $_d:"
			head -n 20 "$XRDMA_DEBUGFS/xrdma/$_d/resources"
		} >>"$XRDMA_TMP/errors"
	done
	xnic_stack_down 2>>"$XRDMA_TMP/errors"
	for _m in xnic xnic_sim xrdma_uverbs xrdma_core; do
		! module_loaded $_m ||
			echo "module $_m still loaded" >>"$XRDMA_TMP/errors"
	done
}

# fail_on_errors: show $XRDMA_TMP/errors and fail with its first line, if
# it has any
fail_on_errors() {
	[ -s "$XRDMA_TMP/errors" ] || return 0
	cat "$XRDMA_TMP/errors"
	fail "$(head -n 1 "$XRDMA_TMP/errors")"
}

# run_checked [-l LABEL] [-f RE] [-u UNIT] NAME OUT CMD...: run a test
# program of the xt library (tools/testing/harness/xt/xt.c), its output in
# the file OUT (then shown), and check how it ended: a non-zero exit
# status is an error "LABEL rc=N: FIRST" (FIRST: its first line matching
# ^(RE), extended; default RE "not ok|Bail out"), and an exit status 0
# needs its summary line "# NAME: N UNIT, 0 failed" (UNIT a basic regex,
# default "tests"), else an error "LABEL: exit 0 without its summary
# line".  LABEL defaults to NAME.  Errors go to $XRDMA_TMP/errors
# (fail_on_errors); RUN_RC is CMD's exit status; returns 0 when neither
# error was found, else 1.
run_checked() {
	_rc_l="" _rc_f="not ok|Bail out" _rc_u=tests
	while :; do
		case $1 in
		-l) _rc_l=$2 ;;
		-f) _rc_f=$2 ;;
		-u) _rc_u=$2 ;;
		*) break ;;
		esac
		shift 2
	done
	_rc_n=$1 _rc_o=$2
	shift 2
	[ -n "$_rc_l" ] || _rc_l=$_rc_n
	"$@" >"$_rc_o" 2>&1
	RUN_RC=$?
	cat "$_rc_o"
	if [ $RUN_RC != 0 ]; then
		echo "$_rc_l rc=$RUN_RC: $(grep -E "^($_rc_f)" "$_rc_o" | head -n 1)" >>"$XRDMA_TMP/errors"
		return 1
	fi
	grep -q "^# $_rc_n: [0-9]* \($_rc_u\), 0 failed\$" "$_rc_o" && return 0
	echo "$_rc_l: exit 0 without its summary line" >>"$XRDMA_TMP/errors"
	return 1
}

# wait_for SECS CMD...: until CMD succeeds, up to SECS seconds (times
# XRDMA_TIMEOUT_SCALE); 1 when it never did
wait_for() {
	_wf_lim=$(($1 * ${XRDMA_TIMEOUT_SCALE:-1} * 10))
	shift
	_wf_n=0
	until "$@"; do
		_wf_n=$((_wf_n + 1))
		[ $_wf_n -le $_wf_lim ] || return 1
		sleep 0.1
	done
}

# wait_xrdma_dev NAME: up to 10 s for the xrdma device NAME to be
# registered: its sysfs directory, and its debugfs one (made last; after
# mount_debugfs)
wait_xrdma_dev() {
	_n=0
	until [ -d "/sys/class/xrdma_device/$1" ] &&
		[ -r "$XRDMA_DEBUGFS/xrdma/$1/resources" ]; do
		_n=$((_n + 1))
		[ $_n -le 100 ] || return 1
		sleep 0.1
	done
}

# uverbs_of NAME: the uverbsN node of the xrdma device NAME
uverbs_of() {
	for _d in /sys/class/xrdma/uverbs*; do
		if [ "$(cat "$_d/ibdev" 2>/dev/null)" = "$1" ]; then
			echo "${_d##*/}"
			return 0
		fi
	done
	return 1
}
