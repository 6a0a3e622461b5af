# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 300
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run tools/testing/lib/xverbs/xv_xrc
# XRDMA_PROGRAMS: tools/testing/lib/xverbs/xv_xrc_isolation
#
# XRC through xrdma's libibverbs.so.1 on xnic0
# (tools/testing/lib/xverbs/xv_xrc.c): XRC domains shared through a file
# (O_CREAT, O_EXCL: EEXIST, missing: ENOENT) by several processes; XRC
# SRQs in two receiving processes, one XRC_RECV QP created by the first
# and opened by the second (ibv_open_qp), outliving its creator's handle;
# an XRC_SEND QP in a third process sending SEND, SEND_WITH_IMM, WRITE,
# WRITE_WITH_IMM, READ and both atomics to four SRQs, data verified and
# every wr_id completed once; SRQ entries posted again as soon as the
# device took them; remote_srqn of another domain's SRQ, a basic SRQ or
# none: IBV_WC_REM_INV_REQ_ERR; RNR; remote access checked against the
# named SRQ's PD; ibv_wr_set_xrc_srqn; the calls' errno and EBUSY;
# processes exiting with XRC objects.  The core's resources file has no
# domain, SRQ or QP after each multi-process part and after the program,
# and the modules unload.
#
# Then XRC against another uid (tools/testing/lib/xverbs/xv_xrc_isolation.c,
# uid 65534): in a user and mount namespace of its own, a domain on a file
# of a tmpfs keeps the tmpfs from being unmounted (EBUSY) until the domain
# is closed; a lazy unmount and an exit with the domain open leave no
# domain, no "Busy inodes after unmount" in the kernel log; a key walk on
# another's SRQ (brute); OPEN_QP of another's XRC_RECV QP cannot modify it
# (EPERM, modify); a member holding another's domain and QP does not keep
# them on the creator's share (charge, with user_share 1).

command -v xrdma-run >/dev/null || fail "xrdma-run not in the guest"
command -v xv_xrc >/dev/null || fail "xv_xrc not in the guest (not built?)"
[ -f /usr/bin/libibverbs.so.1 ] ||
	fail "xverbs' libibverbs.so.1 not shipped (not built?)"
mount_debugfs
xnic_stack_up 1
: >"$XRDMA_TMP/errors"
res="$XRDMA_DEBUGFS/xrdma/xnic0/resources"
[ -r "$res" ] || fail "no $res"
grep -q '^xrcd [0-9]*$' "$res" || fail "the resources file counts no xrcd"

run_checked xv_xrc "$XRDMA_TMP/out" xrdma-run xv_xrc -d xnic0 -r "$res"
grep -qx '# libibverbs: /usr/bin/libibverbs.so.1' "$XRDMA_TMP/out" ||
	echo "xv_xrc did not run on xverbs' libibverbs.so.1" >>"$XRDMA_TMP/errors"
# the three processes of the traffic part reported
for w in R1 R2 S; do
	grep -q "^ok [0-9]* - traffic $w: " "$XRDMA_TMP/out" ||
		echo "xv_xrc: traffic worker $w did not report" >>"$XRDMA_TMP/errors"
done

dmesg -c >/dev/null 2>&1
run_checked xv_xrc_isolation "$XRDMA_TMP/iso" xrdma-run xv_xrc_isolation -d xnic0 -r "$res"
grep -q '^# umount: attacker runs as uid 65534 ' "$XRDMA_TMP/iso" ||
	echo "xv_xrc_isolation: the attacker did not run as uid 65534" >>"$XRDMA_TMP/errors"
if dmesg | grep -q 'Busy inodes after unmount'; then
	echo "the kernel says: $(dmesg | grep 'Busy inodes after unmount' | head -n 1)" >>"$XRDMA_TMP/errors"
fi

for t in xrcd qp srq cq pd mr; do
	grep -q "^$t 0\$" "$res" ||
		echo "the resources file has no '$t 0' line after the program" >>"$XRDMA_TMP/errors"
done

xnic_stack_end xnic0
fail_on_errors
