#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: build the modules, boot a QEMU TCG guest on Debian's kernel
# and show xrdma doing its work there (tools/testing/harness/demo/demo.sh): the
# devices, unmodified verbs programs and perftest over xnic0 against
# Soft-RoCE, NVMe-oF and rping over xnic0 through the kernel's RDMA stack,
# the device's counters, a clean unload.  The guest's lines are shown as
# they come; the last line says "demo: ok ..." or "FAIL: demo: <why>"
# (exit status 1).  Nothing measured is compared with a threshold.
#
# Environment as for scripts/guest-test.sh: XRDMA_BUILD=0 (use the modules
# and programs already built: make check's stage), XRDMA_SMP, XRDMA_KVER,
# XRDMA_TIMEOUT (the guest's time limit in seconds, default 600).
set -uo pipefail

# shellcheck source=tools/testing/harness/host/lib.sh
. "$(dirname "$0")/../tools/testing/harness/host/lib.sh"

T0=$(date +%s)
KVER=$(xrdma_kver)
OUT=$XRDMA_ROOT/build/guest/demo
REL=${OUT#"$XRDMA_ROOT"/}
mkdir -p "$OUT"

# failed WHY: the end of a failed demo, in the guest tests' words (make
# check's summary picks "FAIL: ..." lines from a stage's log)
failed() {
	echo "FAIL: demo: $*"
	exit 1
}

if [ "${XRDMA_BUILD:-1}" != 0 ]; then
	echo "demo: building the modules and tools for $KVER (log: $REL/build.log)"
	if ! xrdma_build "$KVER" >"$OUT/build.log" 2>&1; then
		tail -n 30 "$OUT/build.log"
		failed "build failed ($REL/build.log)"
	fi
fi

# our modules the demo loads (no test fixture: their Debian dependencies
# would be loaded at boot)
KOS=$(xrdma_find_modules "$KVER" 2>/dev/null)
KA=()
for m in xrdma_core xrdma_uverbs xnic_sim xnic xrdma_ib; do
	ko=$(grep "/$m\.ko\$" <<<"$KOS")
	[ -n "$ko" ] || failed "$m.ko not built for $KVER (make, or without XRDMA_BUILD=0)"
	KA+=(-K "$ko")
done
[ -f "$XRDMA_ROOT/tools/lib/xverbs/libibverbs.so.1" ] ||
	failed "tools/lib/xverbs/libibverbs.so.1 not built (make tools)"
# the guest script (its header: programs, files), the test library, the
# kernel's modules it loads itself
"$XRDMA_GUEST_DIR"/mkinitramfs.sh -k "$KVER" -o "$OUT/initramfs.cpio" \
	-T "$XRDMA_HARNESS/demo" -x "$XRDMA_GUEST_LIB:/xrdma/tests/lib" \
	-m "ib_core crc32_generic veth rdma_rxe rdma_ucm null_blk nvmet nvmet-rdma nvme-rdma" \
	"${KA[@]}" >"$OUT/mkinitramfs.log" 2>&1 || {
	tail -n 20 "$OUT/mkinitramfs.log"
	failed "cannot build the guest's initramfs ($REL/mkinitramfs.log)"
}
echo "demo: booting Debian $KVER under QEMU TCG (${XRDMA_SMP:-2} vCPUs; console: $REL/console.log)"

LOG=$OUT/console.log
rm -f "$LOG" "$LOG.marks"
"$XRDMA_GUEST_DIR"/run-vm.sh "$OUT/initramfs.cpio" "$LOG" \
	"${XRDMA_TIMEOUT:-600}" "xrdma.tests=demo xrdma.vms=1 ${XRDMA_APPEND:-}" \
	2>"$OUT/run-vm.log" &
vm=$!
# the demo's lines as they come: from the marker port (no kernel messages
# in them), the runner's markers left out
until [ -e "$LOG.marks" ] || ! kill -0 $vm 2>/dev/null; do sleep 0.2; done
tail -n +1 -F --pid=$vm "$LOG.marks" 2>/dev/null | tr -d '\r' |
	grep --line-buffered -av '^XRDMA_' | sed -u 's/^/  /' | tee "$OUT/demo.txt"
wait $vm
qrc=$?
# a guest without the marker port: its lines from the console, at the end
if [ ! -s "$OUT/demo.txt" ]; then
	xrdma_test_output "$LOG" demo | grep -av -e '^XRDMA_' -e '^\[ *[0-9]*\.[0-9]*\] ' |
		sed 's/^/  /' | tee "$OUT/demo.txt"
fi

res=$(xrdma_parse_log "$LOG" demo demo)
if grep -q ' FAIL' <<<"$res"; then
	# what the demo printed beyond its lines (a failed program's output)
	echo
	echo "demo: the guest's output (without kernel messages), last lines:"
	xrdma_test_output "$LOG" demo | grep -av -e '^XRDMA_' -e '^\[ *[0-9]*\.[0-9]*\] ' |
		tail -n 25 | sed 's/^/  | /'
	# QEMU did not start, or said why it stopped
	if [ ! -s "$LOG" ] || [ "$qrc" != 0 ]; then
		sed 's/^/  | /' "$OUT/run-vm.log"
	fi
	echo "demo: console log $REL/console.log, qemu rc=$qrc"
	# "demo FAIL why" (the demo's own reason), or "console_splat:demo FAIL ..."
	first=$(grep ' FAIL' <<<"$res" | head -n 1)
	case $first in
	"demo FAIL "*) failed "${first#demo FAIL }" ;;
	*) failed "${first%% FAIL *}: ${first#* FAIL }" ;;
	esac
fi
echo "demo: ok in $(($(date +%s) - T0)) s (console log: $REL/console.log)"
