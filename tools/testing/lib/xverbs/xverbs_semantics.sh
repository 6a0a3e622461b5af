# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 180
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run tools/testing/lib/xverbs/xv_semantics
#
# Verbs semantics the stock programs do not check, through xrdma's
# libibverbs.so.1 on xnic0 (tools/testing/lib/xverbs/xv_semantics.c): every RC
# opcode's data and completions, UD with the GRH and AHs from a wc, error
# completions with the QP states and flushes, API errors, ordering,
# threads, the completion channel, async events, the ibv_wr_* and
# extended CQ API.  xv_semantics must exit 0 ("not ok" lines name what broke),
# the device must hold no object afterwards and the modules must unload.

command -v xrdma-run >/dev/null || fail "xrdma-run not in the guest"
command -v xv_semantics >/dev/null || fail "xv_semantics not in the guest (not built?)"
[ -f /usr/bin/libibverbs.so.1 ] ||
	fail "xverbs' libibverbs.so.1 not shipped (not built?)"
mount_debugfs
xnic_stack_up 1
: >"$XRDMA_TMP/errors"

# 1000 WRITE+SEND per thread (4 threads): a few seconds under QEMU TCG
run_checked xv_semantics "$XRDMA_TMP/out" xrdma-run xv_semantics -d xnic0 -i 1000 -w 150 -v
# the library under test really is ours (xv_semantics reports its mapping)
grep -qx '# libibverbs: /usr/bin/libibverbs.so.1' "$XRDMA_TMP/out" ||
	echo "xv_semantics did not run on xverbs' libibverbs.so.1" >>"$XRDMA_TMP/errors"

xnic_stack_end xnic0
fail_on_errors
