#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: build the modules, boot a QEMU TCG guest, load the xrdma stack
# there and show what it registered (modules, devices of class
# xrdma_device, debugfs files), then unload it.
# Environment as for scripts/guest-test.sh (XRDMA_BUILD=0, XRDMA_SMP, ...),
# plus XRDMA_DEMO_MODULES="a b c": the modules to load, in this order
# (default: every module built under drivers/ except test fixtures).
set -uo pipefail

# shellcheck source=scripts/guest/lib.sh
. "$(dirname "$0")/guest/lib.sh"

KVER=$(xrdma_kver)
OUT=$XRDMA_ROOT/build/guest/demo
mkdir -p "$OUT"
if [ "${XRDMA_BUILD:-1}" != 0 ]; then
	echo "demo: building modules for $KVER"
	if ! xrdma_build "$KVER" >"$OUT/build.log" 2>&1; then
		tail -n 30 "$OUT/build.log"
		echo "demo: build failed (build/guest/demo/build.log)"
		exit 1
	fi
fi

KA=()
while read -r ko; do KA+=(-K "$ko"); done < <(xrdma_find_modules "$KVER")
"$XRDMA_GUEST_DIR"/mkinitramfs.sh -k "$KVER" -o "$OUT/initramfs.cpio" \
	-T "$XRDMA_TESTS_DIR" -T "$XRDMA_GUEST_DIR/demo" "${KA[@]}" 2>"$OUT/mkinitramfs.log" || {
	cat "$OUT/mkinitramfs.log"
	exit 1
}
DEMO_MODS=""
if [ -n "${XRDMA_DEMO_MODULES:-}" ]; then
	DEMO_MODS="xrdma.demo_modules=$(echo "$XRDMA_DEMO_MODULES" | tr ' ' ',')"
fi
echo "demo: booting Debian $KVER under QEMU TCG (${XRDMA_SMP:-2} vCPUs)"
"$XRDMA_GUEST_DIR"/run-vm.sh "$OUT/initramfs.cpio" "$OUT/console.log" \
	"${XRDMA_TIMEOUT:-120}" "xrdma.tests=demo xrdma.vms=1 $DEMO_MODS ${XRDMA_APPEND:-}" 2>/dev/null

# the demo's own output, then the kernel's messages
xrdma_test_output "$OUT/console.log" demo |
	grep -v -e '^XRDMA_' -e '^\[ *[0-9]*\.[0-9]*\] ' | sed '/^$/N;/^\n$/D'
echo
echo "== kernel messages"
xrdma_test_output "$OUT/console.log" demo | grep -e '^\[ *[0-9]*\.[0-9]*\] ' | sed 's/^/  /'

res=$(xrdma_parse_log "$OUT/console.log" demo demo)
echo
if grep -q ' FAIL' <<<"$res"; then
	grep FAIL <<<"$res" | sed 's/^/demo: /'
	echo "demo: FAILED, console log: ${OUT#"$XRDMA_ROOT"/}/console.log"
	exit 1
fi
echo "demo: ok (console log: ${OUT#"$XRDMA_ROOT"/}/console.log)"
