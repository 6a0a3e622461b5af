#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the Debian kernel with an xrdma initramfs in one QEMU TCG guest.
#
# Usage: run-vm.sh INITRD LOG [TIMEOUT_S] [APPEND] [-- extra qemu args]
#   The serial console goes to LOG; QEMU is killed after TIMEOUT_S (default
#   300).  No network unless extra qemu args add one (a 127.0.0.1 socket
#   netdev only).  A final line "XRDMA_HOST qemu_rc=N wall=S" is appended to
#   LOG; the exit status is QEMU's (124 when the timeout killed it).
#   A second serial port (guest ttyS1) goes to LOG.marks: the runner's
#   markers without kernel messages interleaved.  QEMU is killed early (as
#   if timed out) when the markers stall, see below.
#   LOG "-" runs interactively on this terminal instead (serial and QEMU
#   monitor multiplexed: Ctrl-A X quits); add xrdma.shell=1 to APPEND to get
#   a shell after the tests.
# Environment: XRDMA_SMP vCPUs (2), XRDMA_MEM memory (512M), XRDMA_KVER,
# XRDMA_KERNEL (image to boot instead of the vmlinux extracted from
# /boot/vmlinuz-KVER), XRDMA_STALL_GRACE (30), XRDMA_STALL_IDLE (90),
# XRDMA_NTESTS (tests the guest runs, for the progress lines: every
# XRDMA_PROGRESS_INTERVAL seconds, default 30, a line on stderr with the
# tests done and the one running, scripts/progress.sh).
set -uo pipefail

# shellcheck source=tools/testing/harness/host/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || xrdma_die "usage: run-vm.sh INITRD LOG [TIMEOUT_S] [APPEND] [-- qemu args]"
INITRD=$1
LOG=$2
TO=${3:-300}
APPEND=${4:-}
shift $(($# < 4 ? $# : 4))
[ "${1:-}" = "--" ] && shift

KVER=$(xrdma_kver)
KERNEL=$(xrdma_boot_kernel "$KVER")
[ -r "$KERNEL" ] || xrdma_die "cannot read $KERNEL"
[ -r "$INITRD" ] || xrdma_die "cannot read $INITRD"
command -v qemu-system-x86_64 >/dev/null ||
	xrdma_die "qemu-system-x86_64 missing (apt-get install qemu-system-x86)"

NET=(-nic none)
[ $# -gt 0 ] && NET=()

QEMU=(qemu-system-x86_64
	-machine 'pc,accel=tcg' -cpu max
	-m "${XRDMA_MEM:-512M}" -smp "${XRDMA_SMP:-2}"
	-nodefaults -no-reboot -display none
	"${NET[@]}"
	-kernel "$KERNEL" -initrd "$INITRD"
	-append "console=ttyS0 quiet panic=-1 $APPEND"
	"$@")

if [ "$LOG" = - ]; then
	exec timeout --foreground -k 5 "$TO" "${QEMU[@]}" -serial mon:stdio
fi

t0=$(date +%s.%N)
: >"$LOG.marks"
timeout --foreground -k 5 "$TO" "${QEMU[@]}" -monitor none -serial stdio \
	-serial "file:$LOG.marks" </dev/null >"$LOG" 2>&1 &
qpid=$!

# Stall watchdog: a guest whose kernel died cannot enforce its tests' time
# limits, so QEMU is also killed when no marker arrived for a test's limit
# ("XRDMA_TEST_START NAME timeout=S") plus XRDMA_STALL_GRACE seconds, or for
# XRDMA_STALL_IDLE seconds outside tests (boot, shutdown).
grace=${XRDMA_STALL_GRACE:-30}
idle=${XRDMA_STALL_IDLE:-90}
stalled=""
XRDMA_LAST=""
XRDMA_LAST_T=$(date +%s)
progress_begin "guest $(basename "$LOG" .log)"
while kill -0 $qpid 2>/dev/null; do
	sleep 1
	# the marker port, or the console if the guest had no ttyS1
	src=$LOG.marks
	[ -s "$src" ] || src=$LOG
	last=$(grep -a 'XRDMA_' "$src" | tail -n 1 | tr -d '\r')
	if [ "$last" != "$XRDMA_LAST" ]; then
		XRDMA_LAST=$last
		XRDMA_LAST_T=$(date +%s)
	fi
	progress_tick xrdma_guest_progress "$src" "${XRDMA_NTESTS:-}"
	case $last in
	*XRDMA_TEST_START*timeout=[0-9]*)
		t=${last##*timeout=}
		allow=$((${t%%[!0-9]*} + grace))
		what="test ${last#*XRDMA_TEST_START }"
		what=${what% timeout=*}
		;;
	*)
		allow=$idle
		what="outside tests"
		;;
	esac
	quiet=$(($(date +%s) - $(stat -c %Y "$src")))
	if [ "$quiet" -gt "$allow" ]; then
		stalled="no guest progress for ${quiet}s ($what, allowed ${allow}s)"
		kill $qpid 2>/dev/null
		break
	fi
done
wait $qpid
rc=$?
if [ -n "$stalled" ]; then
	echo "XRDMA_HOST stalled: $stalled" >>"$LOG"
	rc=124
fi
wall=$(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}")
echo "XRDMA_HOST qemu_rc=$rc wall=${wall}s timeout=${TO}s" >>"$LOG"
xrdma_log "qemu rc=$rc wall=${wall}s log=$LOG${stalled:+ ($stalled)}"
exit $rc
