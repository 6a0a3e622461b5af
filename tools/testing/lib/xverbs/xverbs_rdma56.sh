# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 300
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run
# XRDMA_PREPARE: scripts/xverbs-rdma56.sh /xrdma/rdma56
#
# A program built against rdma-core 56's headers (Debian 13's
# libibverbs-dev, fetched and verified on the host by
# scripts/xverbs-rdma56.sh, never committed) through xrdma's
# libibverbs.so.1, which keeps rdma-core 44's ABI, on xnic0
# (tools/testing/lib/xverbs/xv_rdma56.c): every ibv_wr_* builder and setter
# through 56's inlines, the new ibv_wr_flush slot and the operations xnic
# lacks (EOPNOTSUPP at ibv_wr_complete, the QP goes on), 56's
# send_ops_flags, ibv_query_port and ibv_query_device_ex with 56's
# structures (all written, nothing past them), every
# verbs_get_ctx_op()-guarded inline, ibv_query_qp_data_in_order's flags and
# ibv_wr_opcode_str.  No network on the host: the fixture fails, and so
# does this test.  The device holds no object afterwards.

command -v xrdma-run >/dev/null || fail "xrdma-run not in the guest"
[ -x /xrdma/rdma56/xv_rdma56 ] ||
	fail "xv_rdma56 not shipped: scripts/xverbs-rdma56.sh failed on the host (rdma-core 56's headers not fetched? see prepare-xverbs-rdma56.sh.log)"
[ -f /usr/bin/libibverbs.so.1 ] ||
	fail "xverbs' libibverbs.so.1 not shipped (not built?)"
note "built against rdma-core $(cat /xrdma/rdma56/rdma-core-version 2>/dev/null)"
mount_debugfs
xnic_stack_up 1
: >"$XRDMA_TMP/errors"

run_checked xv_rdma56 "$XRDMA_TMP/out" xrdma-run /xrdma/rdma56/xv_rdma56 -d xnic0
grep -q '/usr/bin/libibverbs.so.1' "$XRDMA_TMP/out" ||
	echo "xv_rdma56: did not run on xverbs' libibverbs.so.1" >>"$XRDMA_TMP/errors"

xnic_stack_end xnic0
fail_on_errors
