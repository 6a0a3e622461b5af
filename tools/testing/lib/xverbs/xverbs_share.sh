# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 240
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run tools/testing/lib/xverbs/xv_share
#
# Sharing a context between processes and parent/thread domains through
# xrdma's libibverbs.so.1 on xnic0 (tools/testing/lib/xverbs/xv_share.c): a
# process passes its command fd over a unix socket to another it runs
# with fork+exec, which imports the device, a PD and an MR and moves data
# to and from the exporter's MR (verified on both sides), with the errno
# of bad handles, wrong types, another context's handle and malformed
# commands; the exporter exiting first leaves the importer working;
# ibv_alloc_td/ibv_alloc_parent_domain with the allocator for the queues'
# wr_id arrays.  xv_share checks that the device holds no object after
# each part; here again after the program, and the modules unload.

command -v xrdma-run >/dev/null || fail "xrdma-run not in the guest"
command -v xv_share >/dev/null || fail "xv_share not in the guest (not built?)"
[ -f /usr/bin/libibverbs.so.1 ] ||
	fail "xverbs' libibverbs.so.1 not shipped (not built?)"
mount_debugfs
xnic_stack_up 1
: >"$XRDMA_TMP/errors"

run_checked -f 'not ok|FAIL|Bail out' xv_share "$XRDMA_TMP/out" xrdma-run xv_share -d xnic0
grep -qx '# libibverbs: /usr/bin/libibverbs.so.1' "$XRDMA_TMP/out" ||
	echo "xv_share did not run on xverbs' libibverbs.so.1" >>"$XRDMA_TMP/errors"
# the importers ran and reported (their checks are in the count)
grep -q '^PASS importer: RDMA WRITE into the exited exporter' "$XRDMA_TMP/out" ||
	echo "xv_share: the orphan importer did not report" >>"$XRDMA_TMP/errors"
grep -q '^PASS importer: SEND from the exporter' "$XRDMA_TMP/out" ||
	echo "xv_share: the importer did not report" >>"$XRDMA_TMP/errors"

xnic_stack_end xnic0
fail_on_errors
