#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# /init of the xrdma guest initramfs (busybox ash): runs the selected guest
# tests and prints machine-readable markers on the serial console, then
# powers off.  Kernel command line:
#   xrdma.tests=GLOB[,GLOB...]  tests to run (default: all)
#   xrdma.vms=1|2               run the tests whose "# XRDMA_VMS:" matches
#   xrdma.role=a|b              this guest's side of a two-guest run
#   xrdma.timeout=SECONDS       override every test's in-guest time limit
#   xrdma.timeout_scale=N       multiply every test's own time limit by N
#   xrdma.shell=1               drop to a shell instead of powering off
#   xrdma.kmemleak=1            after the tests, scan for leaks (the debug
#                               kernel, CONFIG_DEBUG_KMEMLEAK) and print
#                               every leak whose backtrace is in a module
#   xrdma.env.NAME=VALUE        export NAME=VALUE to the tests (NAME in
#                               [A-Z0-9_], e.g. the benchmark's settings)
# Markers (one line each, on the console and on ttyS1 if present):
#   XRDMA_BOOT kver=K cpus=N uptime=S tests=GLOBS vms=N role=R
#   XRDMA_TEST_START <name> timeout=S
#   XRDMA_NOTE <name>: rc N, MemAvailable N kB, /tmp N kB
#   XRDMA_RESULT <name> PASS|FAIL|SKIP
#   XRDMA_TEST_END <name> rc=N secs=S
#   XRDMA_KMEMLEAK total=N ours=N     (xrdma.kmemleak=1; ours=-1: no scan)
#   XRDMA_SUMMARY passed=N failed=N skipped=N
#   XRDMA_DONE
# A test passes with exit status 0, is skipped with 77, fails otherwise or
# when it exceeds its time limit (it is then killed with SIGKILL).  Its
# files ($XRDMA_TMP, in RAM) are removed unless it failed.  The
# tests are those of /xrdma/tests.list (tools/testing/harness/host/mkinitramfs.sh): a
# file's own, or one per "# XRDMA_SUBTEST: SUB [LIMIT]" line of its header,
# named <file>_SUB and run with XRDMA_SUBTEST=SUB.

export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
# every kernel message goes to the console, where the host looks for splats
echo 8 >/proc/sys/kernel/printk
# report tasks stuck in D state well within the host's timeout
[ -w /proc/sys/kernel/hung_task_timeout_secs ] &&
	echo 20 >/proc/sys/kernel/hung_task_timeout_secs
ip link set lo up

TESTS='*'
VMS=1
ROLE=a
TIMEOUT=""
SCALE=1
SHELL_AT_END=0
KMEMLEAK=0
read -r cmdline </proc/cmdline
set -f
for kv in $cmdline; do
	case $kv in
	xrdma.tests=*) TESTS=${kv#*=} ;;
	xrdma.vms=*) VMS=${kv#*=} ;;
	xrdma.role=*) ROLE=${kv#*=} ;;
	xrdma.timeout=*) TIMEOUT=${kv#*=} ;;
	xrdma.timeout_scale=*) SCALE=${kv#*=} ;;
	xrdma.shell=*) SHELL_AT_END=${kv#*=} ;;
	xrdma.kmemleak=*) KMEMLEAK=${kv#*=} ;;
	xrdma.env.*=*)
		kv=${kv#xrdma.env.}
		case ${kv%%=*} in
		*[!A-Z0-9_]* | [0-9]*) ;;
		*) export "${kv%%=*}=${kv#*=}" ;;
		esac
		;;
	esac
done
set +f

KVER=$(cat /etc/xrdma/kver)
export XRDMA_KO=/lib/modules/$KVER/extra
export XRDMA_ROLE=$ROLE
export XRDMA_VMS=$VMS
# programs scale their own time limits alike (tools/testing/harness/xt/xt.c)
export XRDMA_TIMEOUT_SCALE=$SCALE
# two-guest tests: guest a is 198.18.0.1, guest b 198.18.0.2
if [ "$ROLE" = b ]; then
	export XRDMA_IP=198.18.0.2 XRDMA_PEER_IP=198.18.0.1
else
	export XRDMA_IP=198.18.0.1 XRDMA_PEER_IP=198.18.0.2
fi

uptime_s() { cut -d' ' -f1 /proc/uptime; }

# Markers go to the console and, when the host attached a second serial
# port, also to ttyS1, where kernel messages cannot interleave with them.
if [ -c /dev/ttyS1 ] && stty -F /dev/ttyS1 raw -echo clocal 2>/dev/null &&
	exec 9>/dev/ttyS1; then
	:
else
	exec 9>/dev/null
fi
mark() {
	echo "$*"
	echo "$*" >&9
}
mark "XRDMA_BOOT kver=$KVER cpus=$(nproc) uptime=$(uptime_s) tests=$TESTS vms=$VMS role=$ROLE"

while read -r m; do
	modprobe "$m" || mark "XRDMA_NOTE failed to load Debian module $m"
done </etc/xrdma/preload

KML=/sys/kernel/debug/kmemleak
if [ "$KMEMLEAK" = 1 ]; then
	grep -q ' /sys/kernel/debug debugfs ' /proc/mounts ||
		mount -t debugfs none /sys/kernel/debug
	# what boot left unreferenced is not the tests' doing
	[ -w $KML ] && echo clear >$KML
fi

# kmemleak_scan: after the tests (our modules unloaded), report every
# unreferenced object whose allocation backtrace has a frame in a module:
# by name ("[xrdma_core]") while loaded, by address once unloaded (a bare
# 0xffffffffc... in the module area).  The debug kernel's other modules
# are the RDMA stack and its ULPs, which our tests load under us: a frame
# of one of them unloaded counts as ours too (what leaks there through
# xrdma_ib is ours to look at).  Once unloaded, frames
# of ours are bare addresses: to name them, rerun the test with
# xrdma.shell=1 and scan by hand before rmmod.  Other objects are shown
# renamed, so they do not trip the host's console gate.
kmemleak_scan() {
	if [ ! -w $KML ]; then
		mark "XRDMA_NOTE kmemleak: $KML missing (kernel without DEBUG_KMEMLEAK?)"
		mark "XRDMA_KMEMLEAK total=0 ours=-1"
		return
	fi
	# two scans 6 s apart: objects younger than 5 s are never reported
	if ! echo scan >$KML || ! sleep 6 || ! echo scan >$KML; then
		# kmemleak turned itself off (e.g. its object pool ran out)
		dmesg | grep -i kmemleak | tail -n 5
		mark "XRDMA_KMEMLEAK total=0 ours=-1"
		return
	fi
	cat $KML >/tmp/kmemleak.txt
	names=$(cut -d' ' -f1 /xrdma/modules.list | tr '\n' ' ')
	awk -v names="$names" '
		function flush() {
			if (rec == "") return
			total++
			if (mine) { ours++; printf "%s", rec }
			else { gsub(/unreferenced object/, "kmemleak-other object", rec); printf "%s", rec }
			rec = ""; mine = 0
		}
		BEGIN { n = split(names, nm, " "); for (i = 1; i <= n; i++) our["[" nm[i] "]"] = 1 }
		/^unreferenced object/ { flush() }
		{
			rec = rec $0 "\n"
			# "[<hashed>] 0xffffffffc0123456": %pS of an unloaded
			# module (x86_64 modules: 0xffffffffa0000000 up to
			# 0xffffffffff000000 without KASLR)
			if ($NF ~ /^0xffffffff[a-f][0-9a-f]+$/ && $NF !~ /^0xffffffffff/) mine = 1
			if ($NF in our) mine = 1
		}
		END { flush(); print "XRDMA_KMEMLEAK_COUNT " total + 0 " " ours + 0 }' \
		/tmp/kmemleak.txt >/tmp/kmemleak.out
	grep -v '^XRDMA_KMEMLEAK_COUNT' /tmp/kmemleak.out
	n=$(sed -n 's/^XRDMA_KMEMLEAK_COUNT //p' /tmp/kmemleak.out)
	[ -n "$n" ] || n="0 -1"
	mark "XRDMA_KMEMLEAK total=${n% *} ours=${n#* }"
}

field() { # FILE KEY DEFAULT
	v=$(sed -n "s/^# XRDMA_$2:[[:space:]]*//p" "$1" | head -1)
	echo "${v:-$3}"
}

fields() { # FILE KEY: every line of a repeated header, joined
	sed -n "s/^# XRDMA_$2:[[:space:]]*//p" "$1" | tr '\n' ' '
}

selected() { # NAME
	_IFS=$IFS
	IFS=,
	set -f
	_hit=1
	for g in $TESTS; do
		# shellcheck disable=SC2254
		case $1 in $g)
			_hit=0
			break
			;;
		esac
	done
	set +f
	IFS=$_IFS
	return $_hit
}

# our modules currently loaded, most recently loaded first
our_modules_loaded() {
	while read -r name _; do
		grep -q "^$name " /xrdma/modules.list && echo "$name"
	done </proc/modules
}

timed_out=0
trap 'timed_out=1' USR1

limit_of() { echo "${TIMEOUT:-$(($1 * SCALE))}"; }

# run_test FILE NAME LIMIT SUBTEST -> sets $status
run_test() {
	t=$1
	name=$2
	limit=$(limit_of "$3")
	if [ "$4" = - ]; then
		unset XRDMA_SUBTEST
	else
		export XRDMA_SUBTEST="$4"
	fi
	for m in $(fields "$t" DEBIAN_MODULES); do
		modprobe "$m" || mark "XRDMA_NOTE failed to load Debian module $m"
	done
	export XRDMA_TEST="$name" XRDMA_TMP="/tmp/xrdma/$name"
	mkdir -p "$XRDMA_TMP"
	t0=$(uptime_s)
	timed_out=0
	# own session and process group, so a timeout kills the whole test
	# shellcheck disable=SC2016
	setsid sh -c '. /etc/xrdma/funcs; . /xrdma/tests/lib/xrdma_test.sh; . "$0"' \
		"$t" </dev/null 2>&1 9>&- &
	pid=$!
	(
		sleep "$limit"
		kill -USR1 $$
	) &
	wd=$!
	wait $pid
	rc=$?
	if [ $timed_out = 1 ] && kill -0 $pid 2>/dev/null; then
		mark "XRDMA_NOTE $name: timed out after ${limit}s, killing it"
		kill -9 -- -$pid $pid 2>/dev/null
		n=0
		while :; do
			st=$(sed 's/.*) \(.\).*/\1/' /proc/$pid/stat 2>/dev/null)
			[ -z "$st" ] || [ "$st" = Z ] && break
			n=$((n + 1))
			if [ $n -gt 20 ]; then
				mark "XRDMA_NOTE $name: pid $pid unkillable (state $st), kernel stack:"
				cat /proc/$pid/stack 2>/dev/null
				echo w >/proc/sysrq-trigger
				break
			fi
			sleep 0.25
		done
		[ "$st" = Z ] && wait $pid 2>/dev/null
		rc=124
	else
		kill $wd 2>/dev/null
	fi
	wait $wd 2>/dev/null
	t1=$(uptime_s)
	case $rc in
	0) status=PASS ;;
	77) status=SKIP ;;
	*) status=FAIL ;;
	esac
	# what the guest has left (a test's files live in RAM, in /tmp):
	# the files of a test that passed go
	[ $status = FAIL ] || rm -rf "$XRDMA_TMP"
	mark "XRDMA_NOTE $name: rc $rc, MemAvailable $(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo) kB, /tmp $(du -sk /tmp | cut -f1) kB"
	mark "XRDMA_RESULT $name $status"
	mark "XRDMA_TEST_END $name rc=$rc secs=$(awk "BEGIN{printf \"%.2f\", $t1 - $t0}")"
	left=$(our_modules_loaded | tr '\n' ' ')
	if [ -n "$left" ]; then
		mark "XRDMA_NOTE $name left modules loaded: $left(unloading)"
		for m in $left; do rmmod "$m"; done
	fi
}

passed=0
failed=0
skipped=0
# /xrdma/tests.list: "NAME LIMIT SUBTEST FILE" a test (mkinitramfs.sh)
while read -r tname tlimit tsub t; do
	[ -f "$t" ] || continue
	# by its name or its file's, as the host selects (harness/host/lib.sh)
	selected "$tname" || selected "$(basename "$t" .sh)" || continue
	[ "$(field "$t" VMS 1)" = "$VMS" ] || continue
	mark "XRDMA_TEST_START $tname timeout=$(limit_of "$tlimit")"
	run_test "$t" "$tname" "$tlimit" "$tsub" </dev/null
	case $status in
	PASS) passed=$((passed + 1)) ;;
	SKIP) skipped=$((skipped + 1)) ;;
	*) failed=$((failed + 1)) ;;
	esac
done </xrdma/tests.list
[ "$KMEMLEAK" = 1 ] && kmemleak_scan
mark "XRDMA_SUMMARY passed=$passed failed=$failed skipped=$skipped"
mark "XRDMA_DONE uptime=$(uptime_s)"

if [ "$SHELL_AT_END" = 1 ]; then
	setsid cttyhack sh -l
fi
sync
# without ACPI (the debug kernel) poweroff only halts; QEMU runs with
# -no-reboot, so a reboot ends it as well
[ -d /sys/firmware/acpi ] && poweroff -f
reboot -f
sleep 10
