#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Gate on KUnit logs: scripts/kunit-log-check.sh LOG [LOG...]
#
# LOGs are kunit.py's output and/or the raw kernel console log (test.log);
# all of them are scanned together.  Exit 0 only if
#  - no kernel debug report appears anywhere (KASAN, UBSAN, lockdep, RCU,
#    WARN, BUG, oops, refcount_t, might_sleep, list corruption, ...); in 6.1
#    such reports do NOT fail a KUnit case, so this is the only place they
#    turn into a failure, and
#  - kunit.py's summary line "Testing complete. Ran N tests: ..." is present
#    with N > 0, and no crashed tests, parser errors or "[ERROR]" lines
#    (6.1's kunit.py can exit 0 with parser errors).
# Test-case failures ("failed: N") are kunit.py's verdict, not this gate's.
# Findings go to stdout, one per line, prefixed "kunit-log-check:".
set -uo pipefail

if [ $# -lt 1 ]; then
	echo "usage: $0 LOG [LOG...]" >&2
	exit 2
fi
for f in "$@"; do
	if [ ! -r "$f" ]; then
		echo "kunit-log-check: cannot read $f"
		exit 1
	fi
done

# Kernel reports that must never appear (extended regexps).
SPLATS=(
	'KASAN:'
	'UBSAN:'
	'BUG:'
	'kernel BUG'
	'WARNING:'
	'Call Trace'
	'general protection fault'
	'Kernel panic'
	'Oops'
	'Unable to handle kernel'
	'possible circular locking'
	'possible recursive locking'
	'possible irq lock inversion'
	'inconsistent lock state'
	'inconsistent .* usage'
	'bad unlock balance'
	'held lock freed'
	'suspicious RCU usage'
	'Disabling lock debugging'
	'DEBUG_LOCKS_WARN_ON'
	'refcount_t:'
	'sleeping function called'
	'scheduling while atomic'
	'list_(add|del) corruption'
	'ODEBUG:'
	'suspected memory leak'
	'blocked for more than'
	'detected stalls'
	'soft lockup'
	'hard LOCKUP'
)
# Known-harmless lines that happen to match a pattern above.
ALLOW='Use UBSAN/KASAN/KMSAN|This kernel was built with|KASAN init|KernelAddressSanitizer initialized'

bad=0
note() {
	echo "kunit-log-check: $*"
	bad=1
}

strip() {
	# Drop ANSI colour codes kunit.py adds on a tty.
	sed -e 's/\x1b\[[0-9;]*m//g' "$@"
}

re=$(IFS='|'; echo "${SPLATS[*]}")
hits=$(for f in "$@"; do
	strip "$f" | grep -nE -- "$re" | grep -vE -- "$ALLOW" | sed "s|^|$f:|"
done)
if [ -n "$hits" ]; then
	note "kernel debug report(s) found:"
	echo "$hits" | head -n 40 | sed 's/^/    /'
	n=$(echo "$hits" | wc -l)
	[ "$n" -le 40 ] || echo "    ... ($n lines in all)"
fi

summary=$(strip "$@" | grep -E 'Testing complete\. Ran [0-9]+ tests' | tail -n 1)
if [ -z "$summary" ]; then
	note "no 'Testing complete. Ran N tests' summary line (kunit.py did not parse any results)"
else
	total=$(echo "$summary" | sed -E 's/.*Ran ([0-9]+) tests.*/\1/')
	[ "$total" -gt 0 ] || note "zero tests ran: $summary"
	echo "$summary" | grep -qE 'crashed: [1-9]' && note "crashed tests: $summary"
	echo "$summary" | grep -qE 'errors: [1-9]' && note "parser errors: $summary"
fi

errs=$(strip "$@" | grep -E '\[ERROR\]|could not find any KTAP output|kunit executor: |missing (expected subtest|subtest result line)|0 tests run!')
if [ -n "$errs" ]; then
	note "kunit.py parser/executor errors:"
	echo "$errs" | head -n 20 | sed 's/^/    /'
fi

exit $bad
