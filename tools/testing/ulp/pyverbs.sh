# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 900
# XRDMA_SUBTEST: rxe 900
# XRDMA_SUBTEST: xnic 900
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run
# XRDMA_PROGRAMS: /usr/bin/python3 /usr/bin/ip /usr/bin/rdma
# XRDMA_FILES: /usr/lib/python3.11 /usr/lib/python3/dist-packages/pyverbs
# XRDMA_FILES: /etc/libibverbs.d/rxe.driver
# XRDMA_FILES: /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so
# XRDMA_DEBIAN_MODULES: crc32_generic veth rdma_rxe ib_core
# XRDMA_PREPARE: scripts/pyverbs-tests.sh /xrdma/pyverbs
#
# rdma-core 44's own test suite (pyverbs, Debian's python3-pyverbs; its
# tests unpacked by scripts/pyverbs-tests.sh), the whole of it, as
# rdma-core runs it: tests/run_tests.py --dev DEV -v.  Two subtests:
#
# pyverbs_xnic: over xnic0 through xrdma's libibverbs.so.1
#   (scripts/xrdma-run).  Fails on any failure or error of the suite, or
#   without its summary line; the suite's skips (its own checks for what
#   the device lacks: other vendors' tests, ODP, CUDA, ...) are listed
#   with their reasons.  The device holds no object afterwards.  When
#   pyverbs_rxe ran in the same boot, also prints
#   "pyverbs: xnic passed N, rxe passed M".
# pyverbs_rxe: the same suite over Soft-RoCE for comparison: rxe0 on a
#   veth pair (lib/ulp.sh's ulp_fabric_up rxe), plain python3 on the
#   system's libibverbs.so.1 (shipped with pyverbs' own libraries) and
#   Debian's rxe provider.  It reports its counts and lists its failures
#   and errors, which are rxe's and fail nothing; it fails only when the
#   suite cannot run (no summary line) or rxe cannot be set up or removed.

# shellcheck source=/dev/null # lib/ulp.sh, in the guest
. /xrdma/tests/lib/ulp.sh

command -v python3 >/dev/null || fail "python3 not in the guest"
[ -f /xrdma/pyverbs/tests/run_tests.py ] ||
	fail "the pyverbs tests not shipped (scripts/pyverbs-tests.sh)"
mountpoint -q /dev/shm 2>/dev/null || mount -t tmpfs tmpfs /dev/shm
: >"$XRDMA_TMP/errors"

# pyverbs_run DEV [WRAPPER]: the suite on DEV; its output in $PV_OUT, the
# FAIL/ERROR lines in $XRDMA_TMP/bad; sets PV_RC, PV_RES (unittest's last
# "OK"/"FAILED (...)" line), PV_RAN, PV_PASSED, PV_F, PV_E, PV_S
pyverbs_run() {
	PV_OUT=$XRDMA_TMP/pyverbs.out
	cd /xrdma/pyverbs || fail "no /xrdma/pyverbs"
	# shellcheck disable=SC2086 # WRAPPER: none or one word
	env -u LD_LIBRARY_PATH HOME="$XRDMA_TMP" PYTHONDONTWRITEBYTECODE=1 \
		$2 python3 tests/run_tests.py --dev "$1" -v >"$PV_OUT" 2>&1
	PV_RC=$?
	cd / || true
	cat "$PV_OUT"
	echo "pyverbs: $1: run_tests.py rc=$PV_RC"
	grep -E '^Ran [0-9]+ tests? in ' "$PV_OUT"
	PV_RES=$(grep -E '^(OK|FAILED)( \(|$)' "$PV_OUT" | tail -n 1)
	echo "pyverbs: $1: result: ${PV_RES:-none}"
	# unittest's own counts: ran N; FAILED (failures=F, errors=E, skipped=S)
	PV_RAN=$(sed -n 's/^Ran \([0-9]*\) tests\{0,1\} in .*/\1/p' "$PV_OUT" | tail -n 1)
	PV_F=$(echo "$PV_RES" | sed -n 's/.*failures=\([0-9]*\).*/\1/p')
	PV_E=$(echo "$PV_RES" | sed -n 's/.*errors=\([0-9]*\).*/\1/p')
	PV_S=$(echo "$PV_RES" | sed -n 's/.*skipped=\([0-9]*\).*/\1/p')
	PV_F=${PV_F:-0} PV_E=${PV_E:-0} PV_S=${PV_S:-0}
	PV_PASSED=$((${PV_RAN:-0} - PV_F - PV_E - PV_S))
	echo "pyverbs: $1: ran ${PV_RAN:-?}: passed $PV_PASSED," \
		"failed $PV_F, errors $PV_E, skipped $PV_S"
	echo "pyverbs: $1: skipped tests (the suite's own capability checks):"
	grep -E " \.\.\. skipped " "$PV_OUT" | sed 's/^/  /'
	# the failing tests by name ("FAIL: test_x (tests.mod.Class.test_x)")
	grep -E '^(FAIL|ERROR): ' "$PV_OUT" | sort -u >"$XRDMA_TMP/bad"
}

case ${XRDMA_SUBTEST:-} in
rxe)
	[ -f /usr/lib/x86_64-linux-gnu/libibverbs.so.1 ] ||
		fail "the system's libibverbs.so.1 not shipped"
	[ -f /etc/libibverbs.d/rxe.driver ] || fail "rxe.driver not shipped"
	ulp_fabric_up rxe
	pyverbs_run rxe0
	sed 's/^/pyverbs: rxe0 (not ours): /' "$XRDMA_TMP/bad"
	ulp_fabric_down || true
	if [ -z "$PV_RAN" ] || [ -z "$PV_RES" ]; then
		fail "the suite did not run on rxe0 (rc=$PV_RC, result '${PV_RES:-none}')"
	fi
	# for pyverbs_xnic's comparison line, later in this boot
	echo "$PV_PASSED" >"$XRDMA_TMP/passed"
	fail_on_errors
	;;
xnic)
	command -v xrdma-run >/dev/null || fail "xrdma-run not in the guest"
	[ -f /usr/bin/libibverbs.so.1 ] ||
		fail "xverbs' libibverbs.so.1 not shipped (not built?)"
	# the header loads rdma_rxe (for pyverbs_rxe): not here
	ulp_rmmod rdma_rxe ib_uverbs
	mount_debugfs
	xnic_stack_up 1
	pyverbs_run xnic0 xrdma-run
	[ -n "$PV_RAN" ] ||
		echo "pyverbs: no 'Ran N tests' line" >>"$XRDMA_TMP/errors"
	sed 's/^/pyverbs: /' "$XRDMA_TMP/bad" >>"$XRDMA_TMP/errors"
	case $PV_RES in
	OK*) [ "$PV_RC" = 0 ] ||
		echo "pyverbs: OK but rc=$PV_RC" >>"$XRDMA_TMP/errors" ;;
	FAILED*) [ -s "$XRDMA_TMP/bad" ] ||
		echo "pyverbs: suite result '$PV_RES' with no FAIL/ERROR line" >>"$XRDMA_TMP/errors" ;;
	*) echo "pyverbs: suite result '${PV_RES:-none}' (rc=$PV_RC)" >>"$XRDMA_TMP/errors" ;;
	esac
	rxe_passed=$(cat "${XRDMA_TMP%/*}/pyverbs_rxe/passed" 2>/dev/null)
	[ -z "$rxe_passed" ] ||
		echo "pyverbs: xnic passed $PV_PASSED, rxe passed $rxe_passed"
	xnic_stack_end xnic0
	fail_on_errors
	;;
*) fail "unknown subtest '${XRDMA_SUBTEST:-}' (rxe or xnic)" ;;
esac
