# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 120
# XRDMA_PROGRAMS: tools/lib/xverbs/asan/libibverbs-asan.so.1 scripts/xrdma-run
# XRDMA_PROGRAMS: tools/testing/lib/xverbs/xv_badargs
#
# Every call of xrdma's libibverbs that fills a caller's array or
# structure, with bad and edge arguments (tools/testing/lib/xverbs/
# xv_badargs.c: GID table sizes, GID and P_Key indexes, the compat
# ibv_query_port, ibv_query_device_ex's fields and sizes, the device
# clock of ibv_query_rt_values_ex, ibv_poll_cq with num_entries <= 0,
# ibv_query_qp with a partial mask, ibv_query_srq, the device list).
# Both the library (make -C tools/lib/xverbs asan) and xv_badargs are
# built with -fsanitize=address: a write past a caller's buffer is an
# ASan report and a non-zero exit, so it fails the test even where no
# sentinel in the buffer sees it.  The device must hold no object
# afterwards and the modules must unload.

command -v xrdma-run >/dev/null || fail "xrdma-run not in the guest"
command -v xv_badargs >/dev/null || fail "xv_badargs not in the guest (not built?)"
[ -f /usr/bin/libibverbs-asan.so.1 ] ||
	fail "xverbs' ASan build not shipped (not built?)"
# the ASan library under the name the loader looks for
mkdir -p "$XRDMA_TMP/asan"
ln -s /usr/bin/libibverbs-asan.so.1 "$XRDMA_TMP/asan/libibverbs.so.1"
mount_debugfs
xnic_stack_up 1
: >"$XRDMA_TMP/errors"

run_checked -f 'not ok|Bail out|==[0-9]+==ERROR' xv_badargs "$XRDMA_TMP/out" \
	env ASAN_OPTIONS=detect_leaks=1:halt_on_error=0:exitcode=99 \
	XVERBS_DIR="$XRDMA_TMP/asan" xrdma-run xv_badargs -d xnic0
grep -q 'AddressSanitizer' "$XRDMA_TMP/out" &&
	echo "xv_badargs: an AddressSanitizer report" >>"$XRDMA_TMP/errors"
# the library under test really is the ASan build
grep -qx '# libibverbs: /usr/bin/libibverbs-asan.so.1' "$XRDMA_TMP/out" ||
	echo "xv_badargs did not run on xverbs' ASan build" >>"$XRDMA_TMP/errors"

xnic_stack_end xnic0
fail_on_errors
