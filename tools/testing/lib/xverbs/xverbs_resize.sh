# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 300
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run tools/testing/lib/xverbs/xv_resize
#
# ibv_resize_cq and SRQ resize (ibv_modify_srq with IBV_SRQ_MAX_WR)
# through xrdma's libibverbs.so.1 on xnic0 (tools/testing/lib/xverbs/xv_resize.c),
# with RC traffic in flight: CQs grown and shrunk between batches and by a
# thread while another polls, completions waiting while the CQ shrinks
# (below them: EINVAL), an arm carried across a resize, an SRQ grown with
# its receives posted; every wr_id completes once, in order, its data
# intact.  Bad sizes and bad RESIZE_CQ ioctls are errors that change
# nothing.  A process that resized and exits without cleaning up leaves
# nothing; the device holds no object afterwards and the modules unload.

command -v xrdma-run >/dev/null || fail "xrdma-run not in the guest"
command -v xv_resize >/dev/null || fail "xv_resize not in the guest (not built?)"
[ -f /usr/bin/libibverbs.so.1 ] ||
	fail "xverbs' libibverbs.so.1 not shipped (not built?)"
mount_debugfs
xnic_stack_up 1
: >"$XRDMA_TMP/errors"

run_checked xv_resize "$XRDMA_TMP/out" xrdma-run xv_resize -d xnic0 -n 2000

# a process that resized a CQ and an SRQ and exits without cleaning up
# leaves nothing behind (xnic_stack_end checks the device's objects)
run_checked -l "xv_resize exit_dirty" xv_resize "$XRDMA_TMP/out" \
	xrdma-run xv_resize -d xnic0 exit_dirty

xnic_stack_end xnic0
fail_on_errors
