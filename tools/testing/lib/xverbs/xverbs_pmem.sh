# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 400
# XRDMA_SUBTEST: xnic 300
# XRDMA_SUBTEST: rxe 300
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run tools/testing/lib/xverbs/xv_pmem
# XRDMA_PROGRAMS: /usr/bin/ip /usr/bin/rdma
# XRDMA_FILES: /etc/libibverbs.d/rxe.driver
# XRDMA_FILES: /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so
# XRDMA_DEBIAN_MODULES: crc32_generic veth rdma_rxe ib_core ib_uverbs
#
# The IBTA 1.5 persistent-memory operations, ATOMIC WRITE and FLUSH
# (tools/testing/lib/xverbs/xv_pmem.c), on xnic and on Soft-RoCE, the same
# checks on both:
#
# xverbs_pmem_xnic: xv_pmem on xnic0 through xrdma's libibverbs.so.1:
#   the capability bits, MRs with FLUSH access, ibv_wr_atomic_write and
#   ibv_post_send(IBV_WR_ATOMIC_WRITE) data and completions, wr_flush
#   (rdma-core 56's member of struct ibv_qp_ex) of a range and of a whole
#   MR, and every error (misaligned, no right on the MR or the QP, bad
#   rkey, out of range, short payload, FLUSH without FLUSH access,
#   persistence on a global-only MR).  The device holds no object
#   afterwards; the results go to /tmp/xv_pmem.xnic.
# xverbs_pmem_rxe: the same program on rxe0 (a veth pair, lib/ulp.sh)
#   through the system's rdma-core 44 and rxe provider, on a kernel whose
#   rxe has them (Linux 6.12: IB_DEVICE_ATOMIC_WRITE in rxe0's caps);
#   on 6.1 it is skipped with the reason.  rdma-core 44 cannot drive
#   FLUSH on rxe (no wr_flush in its rxe provider: ibv_create_qp_ex
#   refuses IBV_QP_EX_WITH_FLUSH) nor ibv_post_send(ATOMIC_WRITE) (its
#   provider does not pass wr.rdma for it), and the kernel path cannot
#   either (6.12's rxe_post_send copies no rkey, address or payload for
#   IB_WR_FLUSH / IB_WR_ATOMIC_WRITE, and ib_verbs.h has no FLUSH work
#   request): xv_pmem skips those and says why.  Every case both devices
#   ran must have the same outcome ("# case" lines): the subtest that
#   runs second in a boot compares.

# shellcheck source=/dev/null # lib/ulp.sh, in the guest
. /xrdma/tests/lib/ulp.sh

command -v xv_pmem >/dev/null || fail "xv_pmem not in the guest (not built?)"
: >"$XRDMA_TMP/errors"

# pmem_run LABEL CMD...: xv_pmem's output in $XRDMA_TMP/out, its cases
# in /tmp/xv_pmem.LABEL; a failure to $XRDMA_TMP/errors
pmem_run() {
	_pl=$1
	shift
	run_checked -l "xv_pmem on $_pl" xv_pmem "$XRDMA_TMP/out" "$@"
	grep '^# case ' "$XRDMA_TMP/out" | sort >"/tmp/xv_pmem.$_pl"
	[ -s "/tmp/xv_pmem.$_pl" ] ||
		echo "xv_pmem on $_pl: no case ran" >>"$XRDMA_TMP/errors"
}

# pmem_compare: every case rxe ran, xnic ran with the same outcome (once
# both ran in this boot)
pmem_compare() {
	[ -s /tmp/xv_pmem.xnic ] && [ -s /tmp/xv_pmem.rxe ] || return 0
	comm -23 /tmp/xv_pmem.rxe /tmp/xv_pmem.xnic >"$XRDMA_TMP/diff"
	sed 's/^/pmem: rxe only: /' "$XRDMA_TMP/diff"
	if [ -s "$XRDMA_TMP/diff" ]; then
		echo "xnic and rxe differ in $(wc -l <"$XRDMA_TMP/diff") case(s)" >>"$XRDMA_TMP/errors"
	else
		echo "pmem: rxe ran $(wc -l </tmp/xv_pmem.rxe) cases, xnic $(wc -l </tmp/xv_pmem.xnic): the same outcome in each of rxe's"
	fi
}

case ${XRDMA_SUBTEST:-} in
xnic)
	command -v xrdma-run >/dev/null || fail "xrdma-run not in the guest"
	[ -f /usr/bin/libibverbs.so.1 ] ||
		fail "xverbs' libibverbs.so.1 not shipped (not built?)"
	mount_debugfs
	xnic_stack_up 1
	pmem_run xnic xrdma-run xv_pmem -d xnic0
	grep -qx '# libibverbs: /usr/bin/libibverbs.so.1' "$XRDMA_TMP/out" ||
		echo "xv_pmem did not run on xverbs' libibverbs.so.1" >>"$XRDMA_TMP/errors"
	# FLUSH ran here: nothing may be skipped on xnic
	! grep -q ' # SKIP' "$XRDMA_TMP/out" ||
		echo "xv_pmem skipped something on xnic: $(grep ' # SKIP' "$XRDMA_TMP/out" | head -n 1)" >>"$XRDMA_TMP/errors"
	xnic_stack_end xnic0
	pmem_compare
	;;
rxe)
	[ -f /usr/lib/x86_64-linux-gnu/libibverbs.so.1 ] ||
		fail "the system's libibverbs.so.1 not shipped"
	ulp_fabric_up rxe
	# rxe has the operations from Linux 6.2 on (IB_DEVICE_ATOMIC_WRITE)
	if ! grep -q 'rxe_mr_do_atomic_write\|rxe_flush_pmem_iova' /proc/kallsyms; then
		ulp_fabric_down || true
		skip "rxe of Linux $(uname -r) has no ATOMIC WRITE or FLUSH (6.2+; boot XRDMA_KVER=6.12.118+deb12-amd64)"
	fi
	gi=
	for g in /sys/class/infiniband/rxe0/ports/1/gids/*; do
		[ "$(cat "$g" 2>/dev/null)" = "$ULP_GID" ] && gi=${g##*/} && break
	done
	[ -n "$gi" ] || fail "rxe0 has no GID $ULP_GID"
	pmem_run rxe env -u LD_LIBRARY_PATH xv_pmem -d rxe0 -g "$gi"
	grep -q '^# libibverbs: /.*x86_64-linux-gnu/libibverbs\.so' "$XRDMA_TMP/out" ||
		echo "xv_pmem did not run on the system's libibverbs.so.1" >>"$XRDMA_TMP/errors"
	ulp_fabric_down || true
	pmem_compare
	;;
*)
	fail "unknown subtest '${XRDMA_SUBTEST:-}'"
	;;
esac
fail_on_errors
