# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 900
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run
# XRDMA_PROGRAMS: /usr/bin/python3
# XRDMA_FILES: /usr/lib/python3.11 /usr/lib/python3/dist-packages/pyverbs
# XRDMA_PREPARE: scripts/pyverbs-tests.sh /xrdma/pyverbs
#
# rdma-core 44's own test suite (pyverbs, Debian's python3-pyverbs; its
# tests unpacked by scripts/pyverbs-tests.sh), the whole of it, over xnic0
# through xrdma's libibverbs.so.1 (scripts/xrdma-run), as rdma-core runs
# it: tests/run_tests.py --dev xnic0 -v.  Fails on any failure or error
# of the suite, or without its summary line; the suite's skips (its own
# checks for what the device lacks: other vendors' tests, ODP, CUDA, ...)
# are listed with their reasons.  The device holds no object afterwards.

command -v xrdma-run >/dev/null || fail "xrdma-run not in the guest"
command -v python3 >/dev/null || fail "python3 not in the guest"
[ -f /usr/bin/libibverbs.so.1 ] ||
	fail "xverbs' libibverbs.so.1 not shipped (not built?)"
[ -f /xrdma/pyverbs/tests/run_tests.py ] ||
	fail "the pyverbs tests not shipped (scripts/pyverbs-tests.sh)"
mountpoint -q /dev/shm 2>/dev/null || mount -t tmpfs tmpfs /dev/shm
mount_debugfs
xnic_stack_up 1
: >"$XRDMA_TMP/errors"

out=$XRDMA_TMP/pyverbs.out
cd /xrdma/pyverbs || fail "no /xrdma/pyverbs"
HOME=$XRDMA_TMP PYTHONDONTWRITEBYTECODE=1 \
	xrdma-run python3 tests/run_tests.py --dev xnic0 -v >"$out" 2>&1
rc=$?
cd / || true
cat "$out"
echo "pyverbs: run_tests.py rc=$rc"
grep -E '^Ran [0-9]+ tests? in ' "$out" ||
	echo "pyverbs: no 'Ran N tests' line" >>"$XRDMA_TMP/errors"
res=$(grep -E '^(OK|FAILED)( \(|$)' "$out" | tail -n 1)
echo "pyverbs: result: ${res:-none}"
# unittest's own counts: ran N; FAILED (failures=F, errors=E, skipped=S)
num() { echo "$res" | sed -n "s/.*$1=\([0-9]*\).*/\1/p"; }
ran=$(sed -n 's/^Ran \([0-9]*\) tests\{0,1\} in .*/\1/p' "$out" | tail -n 1)
f=$(num failures); e=$(num errors); s=$(num skipped)
echo "pyverbs: ran ${ran:-?}: passed $(( ${ran:-0} - ${f:-0} - ${e:-0} - ${s:-0} ))," \
	"failed ${f:-0}, errors ${e:-0}, skipped ${s:-0}"
echo "pyverbs: skipped tests (the suite's own capability checks):"
grep -E " \.\.\. skipped " "$out" | sed 's/^/  /'
# the failing tests by name ("FAIL: test_x (tests.mod.Class.test_x)")
grep -E '^(FAIL|ERROR): ' "$out" | sort -u >"$XRDMA_TMP/bad"
sed 's/^/pyverbs: /' "$XRDMA_TMP/bad" >>"$XRDMA_TMP/errors"
case $res in
OK*) [ $rc = 0 ] || echo "pyverbs: OK but rc=$rc" >>"$XRDMA_TMP/errors" ;;
FAILED*) [ -s "$XRDMA_TMP/bad" ] ||
	echo "pyverbs: suite result '$res' with no FAIL/ERROR line" >>"$XRDMA_TMP/errors" ;;
*) echo "pyverbs: suite result '${res:-none}' (rc=$rc)" >>"$XRDMA_TMP/errors" ;;
esac

xnic_stack_end xnic0
fail_on_errors
