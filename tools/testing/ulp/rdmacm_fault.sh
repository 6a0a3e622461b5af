# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 90
# XRDMA_SUBTEST: flap 60
# XRDMA_SUBTEST: fatal 90
# XRDMA_SUBTEST: rping 90
# XRDMA_DEBIAN_MODULES: configfs ib_core rdma_cm iw_cm ib_cm rdma_ucm
# XRDMA_PROGRAMS: /usr/bin/ip /usr/bin/rdma
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run
# XRDMA_PROGRAMS: scripts/xrdma-fault tools/testing/ulp/cm_fault/cm_fault
# XRDMA_PROGRAMS: rping
#
# rdma_cm applications over xnic meet a link that goes down and a device
# that dies, and recover (issue 26).  Two xnic devices cabled to each
# other, both registered with ib_core by xrdma_ib, each netdev in its own
# network namespace (lib/ulp.sh: ulp_cross_up; xnic0 198.18.1.1 in
# xrdma_a, xnic1 198.18.1.2 in xrdma_b), faults injected with
# scripts/xrdma-fault; the programs run on xrdma's libibverbs.so.1
# (xrdma-run) under Debian's librdmacm.so.1 and the kernel's rdma_ucm.
# The client in xrdma_b, the server in xrdma_a: over the cable.
#
# cm_fault (tools/testing/ulp/cm_fault/) is our program: a client
# exchanging verified RDMA WRITEs and SENDs with a server, reconnecting
# with a fresh cm_id after a failure, and printing every rdma_cm event,
# async event and completion in error it meets.
#
# What rdma_cm promises (drivers/infiniband/core/cma.c, 6.1 and 6.12
# alike): it has no handler of port events -- a port going down changes
# nothing for a connected cm_id by itself.  What a connection sees is
# the verbs' outcome (requests in flight complete with
# IBV_WC_RETRY_EXC_ERR, then flushes; IBV_EVENT_PORT_ERR on the context)
# and ib_cm's: after rdma_disconnect() the DREQ is retried every
# (2 x packet life + CM response timeout: 6.1 s on 6.1, 4.6 s on 6.12)
# up to 15 times, and RDMA_CM_EVENT_DISCONNECTED comes with the peer's
# DREP or DREQ (status 0) or when the retries run out (-ETIMEDOUT).
# Besides, an active side's cm_id can get RDMA_CM_EVENT_UNREACHABLE when
# a neighbour update gives its peer another link address
# (cma_netevent_callback): an outcome accepted, never required.  When
# the ib_device goes away, every cm_id on it gets
# RDMA_CM_EVENT_DEVICE_REMOVAL (cma_process_remove), listening ones too.
#
# Subtests:
#   flap   a cm_fault connection in full traffic; "xrdma-fault link xnic0
#          down" (both ends of the cable): both programs get
#          IBV_EVENT_PORT_ERR, and a request in flight on one side
#          completes with RETRY_EXC_ERR (no other status but flushes);
#          after 2 s, link up: both get IBV_EVENT_PORT_ACTIVE, the first
#          connection ends on each side with
#          RDMA_CM_EVENT_DISCONNECTED (never the program's own timeout),
#          the client connects again (fresh cm_id) and completes 50
#          verified exchanges, the server verified them; both exit 0
#   fatal  a cm_fault client in xrdma_b over the cable and one in xrdma_a
#          over xnic0's loopback, both with the server on xnic0, idle
#          (nothing in flight: a process's mapped queues go with its
#          device, Documentation/faults.rst); "xrdma-fault fatal
#          xnic0": the server's listening id and both its connections,
#          and the loopback client's connection, get
#          RDMA_CM_EVENT_DEVICE_REMOVAL; the programs destroy everything;
#          the xnic driver recovers xnic0 (a new ib_device and netdev:
#          the test moves the netdev to xrdma_a and gives it its address
#          again); the server listens again by itself, the loopback
#          client reconnects by itself; the cable client, told to go on
#          (SIGUSR1), finds its peer gone (a completion in error), ends
#          its connection (DISCONNECTED) and reconnects; both clients
#          complete 50 verified exchanges.  IBV_EVENT_DEVICE_FATAL on the
#          contexts of xnic0 is noted when delivered, never required
#   rping  Debian's unmodified rping (librdmacm-utils), the persistent
#          server in xrdma_a: a run passes (-V -C 20); an endless run is
#          in progress when the link goes down and ends by itself (by
#          the link coming up again at the latest) with an error, no
#          data mismatch; a run while the link is down fails within 30 s
#          with rdma_cm's error (ADDR_ERROR: no neighbour answers); after
#          link up a run passes again
# Every subtest ends with no cm_id or QP of a process in rdma res and
# no object of a process on xnic0 or xnic1 (xrdma's debugfs), and checks
# the kernel log of its run for splats.

# shellcheck source=/dev/null # lib/ulp.sh, in the guest
. /xrdma/tests/lib/ulp.sh

RDMA=/usr/bin/rdma
T=$XRDMA_TMP
SCALE=${XRDMA_TIMEOUT_SCALE:-1}
NSA=$ULP_NSA
NSB=$ULP_NSB
XA=$ULP_XA
CFS=/sys/kernel/config/xnic_sim
# cm_fault's own limits: its whole run, its wait for DISCONNECTED (longer
# than ib_cm's DREQ retries take to give up: 16 x 6.1 s on 6.1)
CMF_T=$((140 * SCALE))
CMF_D=$((110 * SCALE))
PIDS=""
: >"$T/errors"

command -v xrdma-run >/dev/null || fail "xrdma-run not in the guest"
command -v xrdma-fault >/dev/null || fail "xrdma-fault not in the guest"
command -v cm_fault >/dev/null || fail "cm_fault not in the guest (not built?)"
[ -f /usr/bin/libibverbs.so.1 ] || fail "xverbs' libibverbs.so.1 not shipped (not built?)"

err() { echo "$XRDMA_SUBTEST: $*" >>"$T/errors"; }

# show FILE...: the files into the log
show() {
	for _f in "$@"; do
		[ -f "$_f" ] || continue
		echo "--- ${_f##*/}"
		tail -n 60 "$_f"
	done
}

# start NAME NS CMD...: CMD (xrdma-run) in namespace NS in the
# background, output in $T/NAME.out, its pid in $T/NAME.pid (ip netns
# exec and xrdma-run exec the program: the pid is the program's)
start() {
	_sn=$1 _sns=$2
	shift 2
	/usr/bin/ip netns exec "$_sns" xrdma-run "$@" >"$T/$_sn.out" 2>&1 &
	echo $! >"$T/$_sn.pid"
	PIDS="$PIDS $!"
}

pid_of() { cat "$T/$1.pid"; }

# said NAME ERE: cm_fault NAME printed a line "cm_fault ROLE [T]: ERE..."
# shellcheck disable=SC2317 # called through wait_for
said() { grep -Eq "^cm_fault (client|server) \[[0-9.]+\]: $2" "$T/$1.out"; }

# lines NAME ERE: those lines, without their prefix
lines() {
	sed -n 's/^cm_fault [a-z]* \[[0-9.]*\]: //p' "$T/$1.out" | grep -E "^$2"
}

# must_say NAME ERE WHAT: cm_fault NAME printed ERE, else an error
must_say() {
	said "$1" "$2" && return 0
	err "$1: $3 (no line '$2')"
	return 1
}

# wait_say NAME SECONDS ERE WHAT: until NAME printed ERE (fails the test)
wait_say() {
	wait_for "$2" said "$1" "$3" && return 0
	show "$T/$1.out"
	fail "$1: $4 within $2 s (no line '$3')"
}

# conn_session NAME N: the session number of NAME's connection N
conn_session() {
	lines "$1" "session [0-9]+: established, connection $2\$" |
		sed -n 's/^session \([0-9]*\):.*/\1/p' | head -n 1
}

# wc_errors NAME: the statuses of NAME's completions in error but flushes
wc_errors() {
	lines "$1" "session [0-9]+: wc error " | sed 's/.* wc error \([A-Z_]*\) .*/\1/'
}

# no_bad NAME: no wrong data, no SIGBUS, no setup failure in NAME's output
no_bad() {
	if grep -Eq 'MISMATCH|SIGBUS|ibv_create|ibv_reg_mr|rdma_create_qp|ibv_post|no free' \
		"$T/$1.out"; then
		err "$1: $(grep -E 'MISMATCH|SIGBUS|ibv_create|ibv_reg_mr|rdma_create_qp|ibv_post|no free' \
			"$T/$1.out" | head -n 3 | tr '\n' ' ')"
	fi
}

# stop NAME: SIGTERM to a cm_fault server; its status (0: no wrong data)
stop() {
	kill -TERM "$(pid_of "$1")" 2>/dev/null
	ulp_wait_exit "$(pid_of "$1")" 20
}

# --- the state of ib_core and xrdma without the programs
user_res() {
	{
		$RDMA res show cm_id 2>&1
		$RDMA res show qp 2>&1
	} | grep -v '^$' | grep -v 'comm \[' || true
}
xres() { cat "$XRDMA_DEBUGFS/xrdma/$1/resources" 2>&1; }

# shellcheck disable=SC2317 # called through wait_for
clean_now() {
	[ -z "$(user_res)" ] && ! xres xnic0 | grep -q ' pid ' &&
		! xres xnic1 | grep -q ' pid '
}

clean() {
	wait_for 10 clean_now && return 0
	err "left behind: rdma res '$(user_res | head -n 5 | tr '\n' ' ')'," \
		"xnic0 '$(xres xnic0 | grep ' pid ' | head -n 3 | tr '\n' ' ')'," \
		"xnic1 '$(xres xnic1 | grep ' pid ' | head -n 3 | tr '\n' ' ')'"
}

# netdev_of NS DEV: the netdev of DEV's port 1, in namespace NS ("" for
# this one: rdma link names only a netdev of the caller's namespace)
netdev_of() {
	ulp_inns "$1" $RDMA link show "$2/1" 2>/dev/null |
		sed -n 's/.* netdev \([^ ]*\).*/\1/p'
}

# shellcheck disable=SC2317 # called through wait_for
carrier_in() {
	[ "$(ulp_inns "$1" cat "/sys/class/net/$2/carrier" 2>/dev/null)" = "$3" ]
}

# shellcheck disable=SC2317 # called through wait_for
port_state() { grep -q "$2" "/sys/class/infiniband/$1/ports/1/state" 2>/dev/null; }

# shellcheck disable=SC2317 # called through wait_for
gid_of() {
	cat /sys/class/infiniband/"$1"/ports/1/gids/* 2>/dev/null |
		grep -qx "0000:0000:0000:0000:0000:ffff:$2"
}

# the EXIT trap: the programs end, the link is up, the stack unloads
# shellcheck disable=SC2317
cleanup() {
	trap - EXIT
	for _p in $PIDS; do
		kill -9 "$_p" 2>/dev/null
	done
	wait 2>/dev/null
	if [ -d "$CFS" ]; then
		for _d in "$CFS"/*; do
			[ -e "$_d/link" ] && echo up >"$_d/link" 2>/dev/null
		done
	fi
	ulp_cross_down
}

setup() {
	ulp_klog_mark start
	ulp_cross_up
	trap cleanup EXIT
	ND0=$(netdev_of "$NSA" xnic0)
	ND1=$(netdev_of "$NSB" xnic1)
	if [ -z "$ND0" ] || [ -z "$ND1" ]; then
		fail "no netdev of xnic0 ('$ND0') or xnic1 ('$ND1')"
	fi
	grep -q " /sys/kernel/config configfs " /proc/mounts ||
		mount -t configfs none /sys/kernel/config ||
		fail "cannot mount configfs"
}

# sim_dump: the model's view of both devices (on a failure)
sim_dump() {
	for _i in 0 1; do
		echo "--- xnic_sim $_i qps"
		head -n 20 "$XRDMA_DEBUGFS/xnic_sim/$_i/qps" 2>&1
		echo "--- xnic_sim $_i counters (not 0)"
		awk '$2 != 0' "$XRDMA_DEBUGFS/xnic_sim/$_i/counters" 2>&1 | tr '\n' ' '
		echo
	done
}

finish() {
	clean
	_dm=$(ulp_klog_since start | grep -E "$ULP_SPLAT" | head -n 3)
	[ -z "$_dm" ] || err "kernel log: $_dm"
	trap - EXIT
	ulp_cross_down
	fail_on_errors
}

# link_down / link_up: port 1 of xnic0 (and so of xnic1, one cable)
link_down() {
	xrdma-fault link xnic0 down || fail "xrdma-fault link xnic0 down"
	wait_for 10 port_state xnic1 DOWN || fail "xnic1's port not DOWN after link down"
	wait_for 10 carrier_in "$NSB" "$ND1" 0 || fail "$ND1 kept its carrier"
	# and the ARP entry for the server gone with it (linkwatch flushes
	# it up to a second after the carrier): else rdma_cm resolves the
	# address at once and its request waits out the CM's retries
	# shellcheck disable=SC2016 # for sh -c
	wait_for 10 sh -c '! /usr/bin/ip -n "$1" neigh show "$2" dev "$3" |
		grep -Eq "REACHABLE|STALE|DELAY|PROBE"' - "$NSB" "$XA" "$ND1" ||
		fail "$NSB's ARP entry for $XA still valid 10 s after link down"
}

link_up() {
	xrdma-fault link xnic0 up || fail "xrdma-fault link xnic0 up"
	for _d in xnic0 xnic1; do
		wait_for 10 port_state $_d ACTIVE || fail "$_d's port not ACTIVE after link up"
	done
	wait_for 10 carrier_in "$NSA" "$ND0" 1 || fail "$ND0 has no carrier after link up"
	wait_for 10 carrier_in "$NSB" "$ND1" 1 || fail "$ND1 has no carrier after link up"
	# the path back: ARP (whose state the down time left failed) answered
	# across the cable before rdma_cm resolves an address over it
	wait_for 10 /usr/bin/ip netns exec "$NSB" ping -c 1 -W 1 "$XA" >/dev/null ||
		fail "$XA does not answer ping from $NSB 10 s after link up"
}

# --------------------------------------------------------------- flap
sub_flap() {
	setup
	start srv "$NSA" cm_fault -s -a "$XA" -p 7900 -t $CMF_T -d $CMF_D
	wait_say srv 20 "listening on $XA:7900" "the server does not listen"
	start cli "$NSB" cm_fault -c -a "$XA" -p 7900 -k 50 -t $CMF_T -d $CMF_D
	# (a connect before ib_cm listens is rejected, reason 8: the client
	# connects again by itself)
	wait_say cli 60 "session [0-9]+: 100 exchanges verified" "no traffic"
	c1=$(conn_session cli 1)
	note "client: connection 1 is session $c1: $(lines cli "session $c1: [0-9]+ exchanges" | tail -n 1)"

	link_down
	t0=$(date +%s)
	# both contexts hear of it; a request in flight fails on one side
	wait_say cli 10 "async event IBV_EVENT_PORT_ERR port 1 " "no PORT_ERR on the client's context"
	wait_say srv 10 "async event IBV_EVENT_PORT_ERR port 1 " "no PORT_ERR on the server's context"
	# shellcheck disable=SC2317 # called through wait_for
	retry_exc() { said cli "session [0-9]+: wc error RETRY_EXC_ERR" ||
		said srv "session [0-9]+: wc error RETRY_EXC_ERR"; }
	if ! wait_for 20 retry_exc; then
		show "$T/cli.out" "$T/srv.out"
		fail "link down: no request completed with RETRY_EXC_ERR on either side within 20 s"
	fi
	sleep 2
	link_up
	note "link down for $(($(date +%s) - t0)) s"

	ulp_wait_exit "$(pid_of cli)" 60
	crc=$?
	[ $crc = 0 ] || sim_dump
	src=0
	stop srv || src=$?
	[ $crc = 0 ] || err "client rc=$crc, want 0"
	[ $src = 0 ] || err "server rc=$src, want 0"
	for p in cli srv; do
		must_say $p "async event IBV_EVENT_PORT_ERR port 1 " "no PORT_ERR"
		must_say $p "async event IBV_EVENT_PORT_ACTIVE port 1 " "no PORT_ACTIVE"
		no_bad $p
		# a flush or RETRY_EXC_ERR, nothing else
		bad=$(wc_errors $p | grep -vx RETRY_EXC_ERR | sort -u | tr '\n' ' ')
		[ -z "$bad" ] || err "$p: completions in error with $bad(want RETRY_EXC_ERR or flushes only)"
		! said $p "session [0-9]+: no RDMA_CM_EVENT_DISCONNECTED" ||
			err "$p: $(lines $p 'session [0-9]+: no RDMA_CM_EVENT_DISCONNECTED')"
	done
	# the client: connection 1 ended with DISCONNECTED, connection 2 made
	# its 50 exchanges
	must_say cli "session $c1: cm event RDMA_CM_EVENT_DISCONNECTED status (0|-110)\$" \
		"connection 1 did not end with DISCONNECTED"
	c2=$(conn_session cli 2)
	if [ -z "$c2" ]; then
		err "the client did not connect again"
	else
		must_say cli "session $c2: 50 exchanges verified" "connection 2 did not complete"
	fi
	must_say cli "done: " "the client did not finish"
	# the server: its connection 1 ended with DISCONNECTED; a later one
	# verified 50 exchanges
	s1=$(conn_session srv 1)
	must_say srv "session $s1: cm event RDMA_CM_EVENT_DISCONNECTED status (0|-110)\$" \
		"connection 1 did not end with DISCONNECTED"
	must_say srv "session [0-9]+: ended: disconnected \\(50 exchanges verified\\)" \
		"no later session of 50 verified exchanges"
	note "client: $(lines cli 'session [0-9]+: (cm event RDMA_CM_EVENT_(DISCONNECTED|UNREACHABLE|ESTABLISHED)|wc |disconnecting|ended)' | tr '\n' ';')"
	note "server: $(lines srv 'session [0-9]+: (cm event RDMA_CM_EVENT_(DISCONNECTED|UNREACHABLE|ESTABLISHED)|wc |disconnecting|ended)' | tr '\n' ';')"
	[ -s "$T/errors" ] && show "$T/cli.out" "$T/srv.out"
	finish
}

# -------------------------------------------------------------- fatal

# sim_idx DEV: the model index of the xrdma device DEV (xnic.N)
sim_idx() {
	_sl=$(readlink "/sys/class/xrdma_device/$1/device") || return 1
	_sl=${_sl##*/}
	echo "${_sl#xnic.}"
}

# shellcheck disable=SC2317 # called through wait_for
recovered() { ulp_klog_since fatal | grep -q "xnic xnic\.$fi0: recovered\$"; }

# shellcheck disable=SC2317 # called through wait_for
new_netdev() {
	_nd=$(netdev_of "" xnic0)
	[ -n "$_nd" ] && [ -d "/sys/class/net/$_nd" ]
}

sub_fatal() {
	setup
	fi0=$(sim_idx xnic0) || fail "xnic0 is no xnic_sim device"
	start srv "$NSA" cm_fault -s -a "$XA" -p 7900 -t $CMF_T -d $CMF_D
	wait_say srv 20 "listening on $XA:7900" "the server does not listen"
	start cx "$NSB" cm_fault -c -a "$XA" -p 7900 -k 50 -i 20 -t $CMF_T -d $CMF_D
	start cl "$NSA" cm_fault -c -a "$XA" -p 7900 -k 50 -i 20 -t $CMF_T -d $CMF_D
	wait_say cx 60 "session [0-9]+: idle after 20 exchanges" "no traffic over the cable"
	wait_say cl 60 "session [0-9]+: idle after 20 exchanges" "no traffic over the loopback"
	# the server's last completions (the answer's WRITE and SEND) come
	# right after the client's: a CQ polled while its device goes away
	# is a SIGBUS with xrdma (Documentation/faults.rst)
	sleep 1
	cx1=$(conn_session cx 1)
	cl1=$(conn_session cl 1)

	ulp_klog_mark fatal
	xrdma-fault fatal xnic0 || fail "xrdma-fault fatal xnic0"
	wait_say srv 30 "listen id: cm event RDMA_CM_EVENT_DEVICE_REMOVAL" \
		"no DEVICE_REMOVAL on the listening id"
	wait_say cl 30 "session $cl1: cm event RDMA_CM_EVENT_DEVICE_REMOVAL" \
		"no DEVICE_REMOVAL on the loopback client's connection"
	wait_for 30 recovered || {
		ulp_klog_since fatal | tail -n 20
		fail "no 'xnic xnic.$fi0: recovered' within 30 s"
	}
	# the new xnic0: its netdev is new, in the initial namespace
	wait_for 20 test -d /sys/class/infiniband/xnic0 || fail "no ib_device xnic0 after the recovery"
	wait_for 20 new_netdev || fail "the new xnic0 has no netdev"
	nd=$(netdev_of "" xnic0)
	note "after the recovery: xnic0's netdev $nd (was $ND0)"
	/usr/bin/ip link set "$nd" netns "$NSA" || fail "moving $nd to $NSA"
	/usr/bin/ip -n "$NSA" addr add "$XA/24" dev "$nd" || fail "address on $nd"
	/usr/bin/ip -n "$NSA" link set "$nd" up || fail "$nd up"
	ND0=$nd
	wait_for 20 gid_of xnic0 c612:0101 || fail "the new xnic0 has no GID for $XA"
	# shellcheck disable=SC2317 # called through wait_for
	relistened() { [ "$(lines srv "listening on " | wc -l)" -ge 2 ]; }
	wait_for 30 relistened ||
		fail "the server did not listen again within 30 s: $(lines srv 'listen' | tr '\n' ';')"
	# the cable's client goes on, to a peer that is gone
	kill -USR1 "$(pid_of cx)"

	ulp_wait_exit "$(pid_of cx)" $((CMF_T / SCALE))
	cxrc=$?
	ulp_wait_exit "$(pid_of cl)" 60
	clrc=$?
	src=0
	stop srv || src=$?
	[ $cxrc = 0 ] || err "the cable client: rc=$cxrc, want 0"
	[ $clrc = 0 ] || err "the loopback client: rc=$clrc, want 0"
	[ $src = 0 ] || err "server rc=$src, want 0"
	for p in srv cx cl; do
		no_bad $p
		! said $p "session [0-9]+: no RDMA_CM_EVENT_DISCONNECTED" ||
			err "$p: $(lines $p 'session [0-9]+: no RDMA_CM_EVENT_DISCONNECTED')"
	done
	# the server: both connections removed with the device
	for n in 1 2; do
		s=$(conn_session srv $n)
		must_say srv "session $s: cm event RDMA_CM_EVENT_DEVICE_REMOVAL" \
			"no DEVICE_REMOVAL on connection $n"
	done
	[ "$(lines srv "session [0-9]+: ended: disconnected \\(50 exchanges verified\\)" | wc -l)" -ge 2 ] ||
		err "the server did not verify 50 exchanges on two new connections"
	# the loopback client: connection 1 removed, 2 complete
	c2=$(conn_session cl 2)
	if [ -n "$c2" ]; then
		must_say cl "session $c2: 50 exchanges verified" \
			"the loopback client's connection 2 did not complete"
	else
		err "the loopback client did not connect again"
	fi
	# the cable client: its connection 1 failed and ended (DISCONNECTED,
	# a DREP from the new xnic0's ib_cm or the DREQ's retries run out)
	must_say cx "session $cx1: (wc error|cm event RDMA_CM_EVENT_(UNREACHABLE|DISCONNECTED))" \
		"its connection to the dead peer saw no error"
	must_say cx "session $cx1: cm event RDMA_CM_EVENT_DISCONNECTED" \
		"its connection to the dead peer did not end with DISCONNECTED"
	c2=$(conn_session cx 2)
	if [ -n "$c2" ]; then
		must_say cx "session $c2: 50 exchanges verified" \
			"the cable client's connection 2 did not complete"
	else
		err "the cable client did not connect again"
	fi
	for p in srv cl; do
		if said $p "async event IBV_EVENT_DEVICE_FATAL"; then
			note "$p: IBV_EVENT_DEVICE_FATAL delivered"
		else
			note "$p: no IBV_EVENT_DEVICE_FATAL read ($(lines $p 'async fd|completion channel' | head -n 1))"
		fi
	done
	! said cx "async event IBV_EVENT_DEVICE_FATAL" ||
		err "cx: DEVICE_FATAL on xnic1's context"
	for p in srv cl cx; do
		note "$p: $(lines $p '(listen id|session [0-9]+): (cm event|wc |disconnecting|ended)|async|listening' | tr '\n' ';')"
	done
	[ -s "$T/errors" ] && show "$T/cx.out" "$T/cl.out" "$T/srv.out"
	finish
}

# -------------------------------------------------------------- rping

# rping_ok NAME: rping -V -v -C 20 from xrdma_b passes: every ping
# verified (rping's exit race accepted, lib/ulp.sh), a connect that came
# before ib_cm listened (REJECTED, reason 8) taken again
rping_ok() {
	for _try in 1 2 3; do
		/usr/bin/ip netns exec "$NSB" xrdma-run rping -c -a "$XA" -p 7960 \
			-V -v -C 20 >"$T/$1.out" 2>&1 &
		ulp_wait_exit $! 30
		_rc=$?
		if [ $_rc != 0 ] && [ $_try -lt 3 ] &&
			grep -Eq 'REJECTED[;,]? error:? 8' "$T/$1.out"; then
			note "$1: connected before ib_cm listened (REJECTED, reason 8): again"
			continue
		fi
		break
	done
	_n=$(grep -Ec '^ping data: rdma-ping-[0-9]+: ' "$T/$1.out")
	if [ "$_n" = 20 ] && ulp_rping_exit_race "$_rc" "$T/$1.out"; then
		note "$1: rping's exit race (rc 255 after the last ping)"
		_rc=0
	fi
	if [ "$_rc" != 0 ] || [ "$_n" != 20 ]; then
		err "$1: rping rc=$_rc, $_n of 20 pings"
		show "$T/$1.out"
		return 1
	fi
	note "$1: 20 pings verified"
}

sub_rping() {
	setup
	start rsrv "$NSA" rping -s -P -a "$XA" -p 7960
	wait_for 10 sh -c "$RDMA res show cm_id | grep -q 'state LISTEN.*$XA:7960'" ||
		fail "the rping server does not listen on $XA:7960"
	rping_ok before

	# an endless run in progress when the link goes down
	start endless "$NSB" rping -c -a "$XA" -p 7960 -V -v
	# shellcheck disable=SC2317 # called through wait_for
	pinged() { [ "$(grep -c '^ping data: ' "$T/endless.out")" -ge 20 ]; }
	wait_for 30 pinged || {
		show "$T/endless.out"
		fail "the endless rping did not ping 20 times in 30 s"
	}
	link_down
	# a new run while the link is down: rdma_cm's error, in bounded time
	/usr/bin/ip netns exec "$NSB" xrdma-run rping -c -a "$XA" -p 7960 -V -C 5 \
		>"$T/down.out" 2>&1 &
	ulp_wait_exit $! 30
	drc=$?
	if [ $drc = 0 ] || [ $drc = 124 ]; then
		err "a run while the link is down: rc=$drc, want a failure within 30 s"
		show "$T/down.out"
	elif grep -Eq 'cma event RDMA_CM_EVENT_[A-Z_]+, error' "$T/down.out"; then
		note "a run while the link is down: rc=$drc: $(grep -E 'cma event' "$T/down.out" | head -n 1)"
	else
		err "a run while the link is down: rc=$drc without an rdma_cm error"
		show "$T/down.out"
	fi
	link_up
	# the endless run ended by itself, with an error: at once (its own
	# request failed) or once the peer's DREQ arrives after link up
	ulp_wait_exit "$(pid_of endless)" 40
	erc=$?
	if [ $erc = 0 ] || [ $erc = 124 ]; then
		err "the endless run: rc=$erc, want an error within 40 s of link up"
		show "$T/endless.out"
	elif ! grep -Eq 'cq completion failed|DISCONNECT EVENT|cma event|wait for RDMA_|status' \
		"$T/endless.out"; then
		err "the endless run: rc=$erc without a clear error"
		show "$T/endless.out"
	else
		note "the endless run: rc=$erc after $(grep -c '^ping data: ' "$T/endless.out") pings: $(grep -Ev '^ping data: ' "$T/endless.out" | head -n 3 | tr '\n' ';')"
	fi
	! grep -qi 'mismatch\|invalid data' "$T/endless.out" ||
		err "the endless run saw wrong data"
	rping_ok after

	kill -9 "$(pid_of rsrv)"
	wait "$(pid_of rsrv)" 2>/dev/null
	finish
}

case ${XRDMA_SUBTEST:-} in
flap) sub_flap ;;
fatal) sub_fatal ;;
rping) sub_rping ;;
*) fail "no such subtest: '${XRDMA_SUBTEST:-}'" ;;
esac
exit 0
