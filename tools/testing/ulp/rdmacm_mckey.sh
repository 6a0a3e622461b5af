# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 180
# XRDMA_DEBIAN_MODULES: ib_core rdma_cm iw_cm ib_cm rdma_ucm
# XRDMA_PROGRAMS: /usr/bin/ip /usr/bin/rdma
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run mckey
#
# rdma_cm UD multicast over xnic: Debian 12's unmodified mckey
# (rdmacm-utils) on xnic0 registered with ib_core by xrdma_ib (lib/ulp.sh:
# ulp_fabric_up xnic, 198.18.0.1/24), xrdma's libibverbs.so.1 under
# Debian's librdmacm (scripts/xrdma-run).  The kernel's rdma_cm joins
# the group 239.1.2.3 on the RoCE port (no SA: the GID ::ffff:239.1.2.3,
# IGMP on xnic0's netdev); librdmacm attaches each process's UD QP with
# ibv_attach_mcast and mckey sends to QPN 0xffffff through the AH of the
# join event.
#
# Two receivers wait for 10 messages of 100 bytes each; a sender (also a
# member, posting no receive) sends 10.  mckey's sender destroys its QP
# right after posting without waiting for its sends, so a message may be
# cut off by the destroy: the sender runs again (at most 5 times) until
# both receivers have their 10 -- each run's outcome is accounted for.
# The receivers must exit 0 with "data transfers complete", the model
# must have delivered at least 20 copies (rx_mcast), and afterwards the
# group table is empty, no rdma_cm id or QP of a process is left and
# xnic0 holds what it held before.

# shellcheck source=/dev/null # lib/ulp.sh, in the guest
. /xrdma/tests/lib/ulp.sh

RDMA=/usr/bin/rdma
T=$XRDMA_TMP
: >"$T/errors"
G=239.1.2.3
MC=$XRDMA_DEBUGFS/xnic_sim/0/mcast

err() { echo "$*" >>"$T/errors"; }

rx_mcast() {
	sed -n 's/^rx_mcast //p' "$XRDMA_DEBUGFS/xnic_sim/0/counters"
}

# members N: the model's group table holds N attachments
members() { head -n 1 "$MC" | grep -q "attached $1\$"; }

running() { kill -0 "$1" 2>/dev/null; }
ended() { ! running "$1"; }
receivers_done() { ended "$R1" && ended "$R2"; }
no_user_res() { [ -z "$(user_res)" ]; }
xres_as_before() { [ "$(xres)" = "$XRES0" ]; }

xres() { cat "$XRDMA_DEBUGFS/xrdma/xnic0/resources" 2>&1; }

user_res() {
	{
		$RDMA res show cm_id 2>&1
		$RDMA res show qp 2>&1
	} | grep -v '^$' | grep -v 'comm \[' || true
}

ulp_rmmod rdma_ucm
ulp_fabric_up xnic
modprobe rdma_ucm || fail "modprobe rdma_ucm"
[ -c /dev/infiniband/rdma_cm ] || fail "no /dev/infiniband/rdma_cm"
command -v xrdma-run >/dev/null || fail "xrdma-run not in the guest"
command -v mckey >/dev/null || fail "mckey not in the guest"
XRES0=$(xres)
c0=$(rx_mcast)

xrdma-run mckey -m $G -b "$ULP_IP" -C 10 -S 100 >"$T/r1" 2>&1 &
R1=$!
xrdma-run mckey -m $G -b "$ULP_IP" -C 10 -S 100 >"$T/r2" 2>&1 &
R2=$!
# both joined and attached (librdmacm attaches on the JOIN event)
wait_for 30 members 2 || err "receivers: the group has not 2 members: $(cat "$MC")"
cat "$MC"

runs=0
while [ $runs -lt 5 ] && ! receivers_done; do
	runs=$((runs + 1))
	xrdma-run mckey -m $G -b "$ULP_IP" -s -C 10 -S 100 >"$T/s$runs" 2>&1 &
	s=$!
	wait_for 30 ended $s || {
		err "sender run $runs did not end in 30 s"
		kill -9 $s 2>/dev/null
	}
	wait $s
	rc=$?
	note "sender run $runs: rc=$rc"
	[ $rc = 0 ] || { err "sender run $runs: rc=$rc"; cat "$T/s$runs"; }
	grep -q '^data transfers complete' "$T/s$runs" ||
		err "sender run $runs did not send"
	wait_for 5 receivers_done || true
done

for r in 1 2; do
	pid=$R1
	[ $r = 1 ] || pid=$R2
	if running "$pid"; then
		err "receiver $r still waiting after $runs sender runs"
		kill -9 "$pid" 2>/dev/null
	fi
	wait "$pid"
	rc=$?
	echo "--- receiver $r (rc=$rc)"
	cat "$T/r$r"
	[ $rc = 0 ] || err "receiver $r: rc=$rc"
	grep -q '^mckey: joined dgid: ::ffff:239.1.2.3' "$T/r$r" ||
		err "receiver $r: no join of ::ffff:239.1.2.3"
	grep -q '^data transfers complete' "$T/r$r" ||
		err "receiver $r: did not receive its 10 messages"
done
c1=$(rx_mcast)
note "copies delivered: $((c1 - c0)) in $runs sender run(s)"
[ $((c1 - c0)) -ge 20 ] || err "the model delivered $((c1 - c0)) copies, want 20 or more"

# nothing left: the group table, rdma_cm ids and QPs, xnic0's objects
wait_for 10 members 0 || err "group table after the test: $(cat "$MC")"
wait_for 10 no_user_res ||
	err "left in ib_core: $(user_res | head -n 3 | tr '\n' ' ')"
wait_for 10 xres_as_before || {
	err "xnic0's objects differ from before"
	xres | head -n 20
}

ulp_fabric_down
fail_on_errors
