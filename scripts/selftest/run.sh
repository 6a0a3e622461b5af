#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Self-tests of the test tooling itself (no kernel build, a few seconds):
#  - scripts/kunit-log-check.sh accepts the clean KUnit logs and rejects every
#    bad one in fixtures/ (logs captured from real x86_64 runs of kunit.py in
#    linux-source-6.1: kunit.py output followed by the kernel's test.log);
#  - scripts/kunit-hook.sh hooks/unhooks a fake kernel tree idempotently and
#    restores it byte for byte;
#  - the guest log parser (tools/testing/harness/host/lib.sh) gives each
#    failed test a reason (fixtures/guest-results.log).
# With --with-sparse also runs scripts/selftest/sparse-catches.sh (needs the
# kernel headers, ~30 s).
# Prints "N passed, N failed"; exits non-zero on any failure.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SCRIPTS=$(cd "$HERE/.." && pwd)
FIX=$HERE/fixtures
pass=0 fail=0
ok()  { echo "ok   - $*"; pass=$((pass + 1)); }
nok() { echo "FAIL - $*"; fail=$((fail + 1)); }

# fixture  expected-exit  text the gate must print (for rejections)
gate_cases=(
	"clean.log                0  -"
	"clean-core.log           0  -"
	"kasan-uaf.log            1  BUG: KASAN: slab-use-after-free|BUG: KASAN: use-after-free"
	"lockdep-abba.log         1  possible circular locking dependency"
	"warn.log                 1  WARNING: CPU"
	"no-tests.log             1  Ran 0 tests|no 'Testing complete"
	"parser-error.log         1  kunit.py parser/executor errors"
	"crash.log                1  crashed tests"
)
for c in "${gate_cases[@]}"; do
	read -r name want text <<<"$c"
	f=$FIX/$name
	if [ ! -f "$f" ]; then
		nok "fixture $name missing"
		continue
	fi
	out=$("$SCRIPTS/kunit-log-check.sh" "$f" 2>&1)
	rc=$?
	if [ "$want" = 0 ]; then
		if [ $rc -eq 0 ]; then
			ok "gate accepts $name"
		else
			nok "gate rejects $name (exit $rc):"
			echo "$out" | sed 's/^/    | /'
		fi
		continue
	fi
	if [ $rc -eq 0 ]; then
		nok "gate accepts $name"
	elif ! echo "$out" | grep -qE -- "$text"; then
		nok "gate rejects $name, but without /$text/:"
		echo "$out" | sed 's/^/    | /'
	else
		ok "gate rejects $name ($(echo "$out" | grep -m1 -oE -- "$text"))"
	fi
done

# The gate scans all files it is given: a clean kunit.py output plus a bad
# console log is still bad.
if "$SCRIPTS/kunit-log-check.sh" "$FIX/clean.log" "$FIX/lockdep-abba.log" >/dev/null; then
	nok "gate accepts clean.log + lockdep-abba.log"
else
	ok "gate rejects clean.log + lockdep-abba.log"
fi
if "$SCRIPTS/kunit-log-check.sh" "$FIX/does-not-exist.log" >/dev/null 2>&1; then
	nok "gate accepts a missing log"
else
	ok "gate rejects a missing log"
fi

# The guest log parser (tools/testing/harness/host/lib.sh): a test's own
# reason, and for one killed at its limit the runner's note and its last
# console line, and for a guest killed the guest's last console line
# (what a CI summary shows of a hang)
want_parse='foo FAIL timed out after 240s, killing it; last line: PING 198.18.5.2 (198.18.5.2): 56 data bytes
bar FAIL it broke
baz FAIL no reason given; last line: none
gone FAIL never ran (guest stopped early or test missing)
guest_timeout:vm FAIL QEMU killed: no guest progress for 300s; last console line: [  300.1] unregister_netdevice: waiting for xnic1 to become free. Usage count = 2'
got_parse=$(bash -c '. "$1/../tools/testing/harness/host/lib.sh" &&
	xrdma_parse_log "$2" vm foo bar baz gone' - "$SCRIPTS" "$FIX/guest-results.log" 2>&1)
if [ "$got_parse" = "$want_parse" ]; then
	ok "guest log parser: reasons, and a killed test's note and last line"
else
	nok "guest log parser:"
	diff <(echo "$want_parse") <(echo "$got_parse") | sed 's/^/    | /'
fi

# kunit-hook.sh on a fake kernel tree.
TMP=$(mktemp -d /tmp/xrdma-hook-selftest.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
K=$TMP/linux
mkdir -p "$K/drivers" "$TMP/proj"
printf 'menu "Device Drivers"\nsource "drivers/base/Kconfig"\nendmenu\n' >"$K/drivers/Kconfig"
printf 'obj-y += base/\n' >"$K/drivers/Makefile"
touch -d '2020-01-01 00:00' "$K/drivers/Kconfig" "$K/drivers/Makefile"
touch "$TMP/proj/Kconfig" "$TMP/proj/Kbuild"
cp -p "$K/drivers/Kconfig" "$TMP/Kconfig.ref"
cp -p "$K/drivers/Makefile" "$TMP/Makefile.ref"
HOOK=$SCRIPTS/kunit-hook.sh
if "$HOOK" add "$K" "$TMP/proj" && "$HOOK" add "$K" "$TMP/proj"; then
	if [ "$(readlink "$K/drivers/xrdma")" = "$(readlink -f "$TMP/proj")" ] &&
	   [ "$(grep -c 'source "drivers/xrdma/Kconfig"' "$K/drivers/Kconfig")" = 1 ] &&
	   [ "$(sed -n 3p "$K/drivers/Kconfig")" = 'source "drivers/xrdma/Kconfig"' ] &&
	   [ "$(grep -cx 'obj-y += xrdma/' "$K/drivers/Makefile")" = 1 ]; then
		ok "hook add (twice) links drivers/xrdma and adds each line once"
	else
		nok "hook add produced a wrong tree"
	fi
else
	nok "hook add failed"
fi
if "$HOOK" remove "$K" && "$HOOK" remove "$K" &&
   [ ! -e "$K/drivers/xrdma" ] && [ ! -L "$K/drivers/xrdma" ] &&
   cmp -s "$K/drivers/Kconfig" "$TMP/Kconfig.ref" &&
   cmp -s "$K/drivers/Makefile" "$TMP/Makefile.ref" &&
   [ "$K/drivers/Kconfig" -ot "$TMP/proj/Kconfig" ] &&
   [ ! "$K/drivers/Kconfig" -nt "$TMP/Kconfig.ref" ]; then
	ok "hook remove (twice) restores the tree byte for byte, mtimes included"
else
	nok "hook remove did not restore the tree"
fi

if [ "${1:-}" = --with-sparse ]; then
	if "$HERE/sparse-catches.sh" 2>&1 | sed 's/^/    /'; [ "${PIPESTATUS[0]}" -eq 0 ]; then
		ok "sparse-catches.sh"
	else
		nok "sparse-catches.sh"
	fi
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
