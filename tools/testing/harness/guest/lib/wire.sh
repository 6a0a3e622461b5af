# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# Helpers for the two-guest RoCEv2 tests (tools/testing/ulp/wire/): each
# guest has one virtio-net eth0 on a QEMU socket link (run-2vm.sh) and
# puts one RDMA stack on it, Linux's rxe or the xnic port attached to
# eth0.  Documentation/testing.rst, "Two guests on a wire".  A test
# sources it after lib/xrdma_test.sh:
#
#     . /xrdma/tests/lib/wire.sh
#     wire_up rxe                      # or xnic: WIRE_IBDEV, WIRE_GIDX...
#     wire_sync ready                  # both guests reached "ready"
#     wire_suite a                     # the interop suite, a the servers
#     wire_sync end
#     wire_down                        # unload: the next test picks its own
#
# The header must ship (besides the programs the test runs):
#     # XRDMA_DEBIAN_MODULES: virtio_pci virtio_net crc32_generic rdma_rxe
#     # XRDMA_DEBIAN_MODULES: ib_uverbs rdma_ucm
#     # XRDMA_PROGRAMS: /usr/bin/ip /usr/bin/rdma
#     # XRDMA_FILES: /etc/libibverbs.d/rxe.driver
#     # XRDMA_FILES: /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so
# and for xnic: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run; for
# netem: sch_netem and /usr/sbin/tc (busybox's tc has no netem).
#
# Both guests run the same tests in the same order (init.sh), but not in
# step: every exchange between them goes through wire_sync, a TCP
# rendezvous over whatever netdev carries XRDMA_IP at the time.
#
# wire_xnic_ready
#     0 when the xnic model can be attached to an Ethernet (xnic_sim has
#     a "netdev" parameter), else 1.  wire_require_xnic fails the test
#     then, or without xrdma_ib.ko.
# wire_up rxe|xnic [MTU]
#     rxe:  crc32_generic, rdma_rxe, eth0 at MTU (default 4500, so that
#           rxe's port MTU is 4096) with XRDMA_IP/24, rxe0 on eth0.
#     xnic: xrdma_core, xrdma_uverbs, xnic_sim netdev=eth0, xnic and
#           xrdma_ib; XRDMA_IP/24 on the netdev of xnic0's port 1.
#     Waits for the port's GID of XRDMA_IP (::ffff:a.b.c.d) and sets
#     WIRE_STACK, WIRE_IBDEV, WIRE_NETDEV, WIRE_GIDX (the GID's index).
# wire_begin STACK_A STACK_B
#     The start of a pairing test: $XRDMA_TMP/errors emptied, wire_up
#     STACK_A in guest a and STACK_B in guest b (both guests fail at once,
#     with wire_require_xnic, when either stack is xnic and it cannot be
#     had), both meet (wire_sync up) and note the peer's device.
# wire_end
#     The end of one: the device's non-zero counters noted, both meet
#     (wire_sync end: the last exchange, wire_down takes the address
#     away), wire_down, fail_on_errors.
# wire_down
#     Undoes wire_up (servers left running, qdiscs, addresses, devices,
#     modules) -- what of it is there; problems go to $XRDMA_TMP/errors.
#     wire_up makes it the test's EXIT trap too, so that a test that
#     fails does not leave its stack to the next one.
# wire_run PROGRAM ARGS...
#     PROGRAM with the libibverbs of WIRE_STACK: xverbs' (xrdma-run) for
#     xnic, Debian's for rxe.
# wire_sync STEP [VALUE] [SECONDS]
#     Waits (default 120 s) until the peer reached the same STEP of the
#     same test, and prints the VALUE the peer passed (default "-").
#     Guest a listens on TCP port WIRE_SYNC_PORT, guest b connects until
#     it is answered.  Fails the test on a timeout, or when the peer is at
#     another step of this test or at a later test (the test failed
#     there); a peer at an earlier test (one that failed here) is waited
#     for, so that one failure does not fail the tests after it.
# wire_server NAME tcp|cm PORT PROGRAM ARGS...
#     Starts the server side of a client/server program in the background
#     (as wire_run, output in $XRDMA_TMP/NAME.srv), waits until it listens
#     on PORT (a TCP socket, or an rdma_cm ID in LISTEN), then tells the
#     peer (wire_sync NAME).  Server and client are killed after
#     WIRE_PROG_TIMEOUT seconds (default 100).  wire_down kills what is
#     left of them.  wire_server_wait NAME PATTERN: its exit
#     status and output (an extended regex PATTERN must match a line),
#     errors to $XRDMA_TMP/errors.
# wire_client NAME PATTERN PROGRAM ARGS...
#     Waits for the peer's server (wire_sync NAME), runs the client,
#     checks it as wire_server_wait does.  Both return 0 when it passed.
#     With WIRE_CM_RETRY set, a client rejected with "invalid service ID"
#     (rdma_cm: the listener not reachable yet, seen on 6.1 although
#     "rdma resource" showed it in LISTEN) runs again, up to 3 times, and
#     so does the server: after every client run the client tells the
#     server whether it was rejected (wire_sync NAME.verdictN), and a
#     rejected run restarts both ends.  Not the client alone: perftest -R
#     makes two rdma_cm connections, the second to a listener the server
#     creates after the first, and a server past the first would take a
#     new client's first connection for its second.
# wire_netem ARGS...
#     tc qdisc replace dev eth0 root netem ARGS (egress of this guest).
# wire_counters
#     The device's counters, "name value" a line: hw_counters of the ib
#     device, and (xnic) the model's counters in debugfs.
# wire_counter_sum NAME...
#     The sum of those counters.
# wire_sim_counters, wire_sim_delta BEFORE AFTER NAME...
#     The xnic model's counters alone (debugfs), and how much the NAMEs
#     grew between two files of them.
#
# xnic's own faults (issue 26, Documentation/faults.rst; the test ships
# scripts/xrdma-fault and has configfs in XRDMA_DEBIAN_MODULES):
# wire_fault_add TYPE NAME [OPTION...]
#     "xrdma-fault add WIRE_IBDEV TYPE --name NAME OPTION...", checked.
# wire_fault_attr NAME ATTR, wire_fault_del NAME, wire_fault_clear
#     A rule's attribute (injected, matched, ...); remove one; remove all
#     (a rule holds xnic_sim: the test's EXIT trap runs wire_fault_clear
#     before wire_down).
# wire_pair_fails SERVER_ROLE NAME PATTERN CLIENT_TAIL -- PROGRAM ARGS...
#     A client/server run a fault breaks: the client ends by itself
#     (not 0, not a timeout) with a line matching PATTERN, the server is
#     still waiting then and is stopped (or ended as WIRE_FAIL_SRV says).
#
# For the attachment tests (tools/testing/hw/xnic/wire_*.sh), which load
# the model on a netdev themselves, with no RDMA stack over it:
# wire_sim_ctr I NAME
#     Counter NAME of model device I (debugfs).
# wire_sim_low
#     The guest's network interface (wire_netdev) up with no address
#     (one an earlier test left would route around the port): its name
#     in WIRE_LOW.  Fails the test when there is none.
# wire_sim_attach LOW
#     xrdma_core, xrdma_uverbs, xnic_sim netdev=LOW (one device), xnic;
#     waits for xnic.0's netdev and sets WIRE_XN to its name.  Fails the
#     test (the stack unloaded) when a step fails.
# wire_in_echos
#     The ICMP echo requests this guest answered (/proc/net/snmp).
# wire_ping_peer DEV
#     Waits (60 tries) until XRDMA_PEER_IP answers a ping, then pings it
#     3 times: 0, or 1 (noted) when it does not answer.
# wire_echos_done BASE
#     Waits (60 s) until this guest answered 4 echo requests more than
#     BASE (wire_in_echos before): the peer's wire_ping_peer is done, so
#     that neither guest unloads under the other's pings.  0, or 1.

# lib/ulp.sh: its NVMe-oF helpers (lib/wire_nvme.sh) and the netdev of
# an ib_device's port (_ulp_xnic_netdev)
# shellcheck source=/dev/null # in the guest
. /xrdma/tests/lib/ulp.sh

WIRE_SYNC_PORT=7999
WIRE_ETH=eth0
WIRE_STACK=
WIRE_IBDEV=
WIRE_NETDEV=
WIRE_GIDX=
WIRE_PREFIX=24
WIRE_PIDS=
# seconds a server or client of wire_server / wire_client may run
WIRE_PROG_TIMEOUT=100

# the IPv4-mapped GID of XRDMA_IP as sysfs shows it
_wire_gid() {
	echo "$XRDMA_IP" | awk -F. '{ printf "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n", $1, $2, $3, $4 }'
}

# _wire_gidx DEV: the index of that GID in DEV's port 1
_wire_gidx() {
	_wg=$(_wire_gid)
	for _f in /sys/class/infiniband/"$1"/ports/1/gids/*; do
		[ "$(cat "$_f" 2>/dev/null)" = "$_wg" ] && {
			echo "${_f##*/}"
			return 0
		}
	done
	return 1
}

wire_xnic_ready() {
	has_ko xnic_sim || return 1
	grep -qa 'parmtype=netdev:' "$XRDMA_KO/xnic_sim.ko"
}

wire_require_xnic() {
	wire_xnic_ready ||
		fail "xnic_sim.ko has no netdev parameter (the port on a wire)"
	has_ko xrdma_ib || fail "xrdma_ib.ko not built"
}

# _wire_ip DEV [MTU]: XRDMA_IP on DEV, up, neighbours flushed and
# announced (the peer's neighbour entry of XRDMA_IP may name the MAC of
# the netdev a previous test had)
_wire_ip() {
	/usr/bin/ip addr flush dev "$1"
	# the xnic netdev takes jumbo frames too (max MTU 9198): below
	# 4192, rdma_cm would pick path MTU 1024 (iboe_get_mtu)
	if [ -n "${2:-}" ] && ! /usr/bin/ip link set "$1" mtu "$2"; then
		fail "cannot set MTU $2 on $1, left at $(cat "/sys/class/net/$1/mtu")"
	fi
	/usr/bin/ip addr add "$XRDMA_IP/$WIRE_PREFIX" dev "$1" ||
		fail "ip addr add $XRDMA_IP on $1"
	/usr/bin/ip link set "$1" up || fail "$1 up"
	/usr/bin/ip neigh flush all >/dev/null 2>&1
	arping -q -U -c 1 -I "$1" "$XRDMA_IP" >/dev/null 2>&1
	WIRE_NETDEV=$1
}

_wire_up_rxe() {
	modprobe crc32_generic || fail "modprobe crc32_generic"
	modprobe rdma_rxe || fail "modprobe rdma_rxe"
	_wire_ip "$WIRE_ETH" "${1:-4500}"
	/usr/bin/rdma link add rxe0 type rxe netdev "$WIRE_ETH" ||
		fail "rdma link add rxe0 type rxe netdev $WIRE_ETH"
	WIRE_IBDEV=rxe0
}

# _wire_load_xnic CLEANUP LOW [MOD]: xrdma_core, xrdma_uverbs, xnic_sim
# with one device on LOW (netdev=LOW), xnic and MOD; when one does not
# load, CLEANUP, then the test fails
_wire_load_xnic() {
	for _wlm in xrdma_core xrdma_uverbs xnic_sim xnic ${3:-}; do
		_wlk=$(xko "$_wlm") || exit 1
		_wla=
		[ "$_wlm" = xnic_sim ] && _wla="ndev=1 netdev=$2"
		# shellcheck disable=SC2086 # no argument when empty
		insmod "$_wlk" $_wla || {
			$1
			fail "insmod $_wlm $_wla"
		}
	done
}

_wire_up_xnic() {
	wire_require_xnic
	mount_debugfs
	modprobe ib_core || fail "modprobe ib_core"
	# eth0 becomes the port's wire: no address of its own, up, big
	# enough for 4096-byte RoCE packets
	/usr/bin/ip addr flush dev "$WIRE_ETH"
	/usr/bin/ip link set "$WIRE_ETH" mtu "${1:-4500}" ||
		fail "cannot set MTU on $WIRE_ETH"
	/usr/bin/ip link set "$WIRE_ETH" up || fail "$WIRE_ETH up"
	_wire_load_xnic wire_down "$WIRE_ETH" xrdma_ib
	WIRE_IBDEV=xnic0
	wait_for 10 test -d /sys/class/infiniband/xnic0 ||
		fail "xrdma_ib registered no ib_device xnic0"
	wait_for 10 _ulp_xnic_netdev xnic0 >/dev/null ||
		fail "xnic0 port 1 has no netdev (sysfs gid_attrs, rdma link)"
	_wire_ip "$(_ulp_xnic_netdev xnic0)" "${1:-4500}"
}

wire_up() {
	WIRE_STACK=$1
	# a test that fails leaves nothing behind for the next one either
	trap 'wire_down' EXIT
	: >>"$XRDMA_TMP/errors"
	case $1 in
	rxe) _wire_up_rxe "${2:-}" ;;
	xnic) _wire_up_xnic "${2:-}" ;;
	*) fail "wire_up: unknown stack '$1' (rxe or xnic)" ;;
	esac
	wait_for 10 _wire_gidx "$WIRE_IBDEV" >/dev/null || {
		cat /sys/class/infiniband/"$WIRE_IBDEV"/ports/1/gids/* 2>/dev/null |
			grep -v '^0000:0000:0000:0000:0000:0000:0000:0000$'
		fail "$WIRE_IBDEV: no GID for $XRDMA_IP on port 1 after 10 s"
	}
	WIRE_GIDX=$(_wire_gidx "$WIRE_IBDEV")
	note "$1: $WIRE_IBDEV on $WIRE_NETDEV ($XRDMA_IP, GID index $WIRE_GIDX," \
		"MTU $(cat "/sys/class/net/$WIRE_NETDEV/mtu"))"
}

wire_begin() {
	case " $1 $2 " in *" xnic "*) wire_require_xnic ;; esac
	: >"$XRDMA_TMP/errors"
	if [ "$XRDMA_ROLE" = a ]; then
		wire_up "$1"
	else
		wire_up "$2"
	fi
	# (a failed meeting fails the subshell: its exit status ends the test)
	_wbp=$(wire_sync up "$WIRE_IBDEV") || exit 1
	note "peer: $_wbp"
}

wire_end() {
	note "counters: $(wire_counters | awk '$2 != 0' | tr '\n' ' ')"
	wire_sync end >/dev/null
	wire_down
	fail_on_errors
}

wire_down() {
	# servers still running hold the device: its removal would wait
	for _wk in $WIRE_PIDS; do
		kill -9 "$_wk" 2>/dev/null && note "killed a server left running (pid $_wk)"
	done
	WIRE_PIDS=
	/usr/bin/tc qdisc del dev "$WIRE_ETH" root >/dev/null 2>&1
	case $WIRE_STACK in
	rxe)
		[ -d /sys/class/infiniband/rxe0 ] &&
			{ /usr/bin/rdma link delete rxe0 ||
			  echo "rdma link delete rxe0 failed" >>"$XRDMA_TMP/errors"; }
		;;
	xnic)
		[ -n "$WIRE_NETDEV" ] && [ -d "/sys/class/net/$WIRE_NETDEV" ] &&
			/usr/bin/ip addr flush dev "$WIRE_NETDEV"
		;;
	esac
	/usr/bin/ip addr flush dev "$WIRE_ETH" 2>/dev/null
	WIRE_STACK=
	for _wm in $(mod_order rdma_ucm rdma_rxe ib_uverbs xrdma_ib xnic xnic_sim \
		xrdma_uverbs xrdma_core); do
		module_loaded "$_wm" || continue
		rmmod_timed "$_wm" >/dev/null ||
			echo "rmmod $_wm failed" >>"$XRDMA_TMP/errors"
	done
}

wire_run() {
	if [ "$WIRE_STACK" = xnic ]; then
		xrdma-run "$@"
	else
		"$@"
	fi
}

# _wire_order TEST: the test's place in the order both guests run them
_wire_order() {
	awk -v t="$1" '$1 == t { print NR; f = 1; exit } END { if (!f) print 0 }' \
		/xrdma/tests.list
}

# wire_sync STEP [VALUE] [SECONDS]
wire_sync() {
	_ws_tok="$XRDMA_TEST:$1"
	_ws_val=${2:--}
	_ws_lim=$((${3:-120} * ${XRDMA_TIMEOUT_SCALE:-1}))
	_ws_in=$XRDMA_TMP/sync.in
	_ws_t0=$(cut -d. -f1 /proc/uptime)
	while :; do
		: >"$_ws_in"
		_ws_left=$((_ws_lim - $(cut -d. -f1 /proc/uptime) + _ws_t0))
		[ "$_ws_left" -gt 0 ] ||
			fail "wire_sync $1: the peer did not come within ${_ws_lim}s"
		if [ "$XRDMA_ROLE" = a ]; then
			echo "$_ws_tok $_ws_val" |
				timeout "$_ws_left" nc -l -p "$WIRE_SYNC_PORT" >"$_ws_in" 2>/dev/null
		else
			echo "$_ws_tok $_ws_val" |
				timeout 5 nc -w 2 "$XRDMA_PEER_IP" "$WIRE_SYNC_PORT" \
					>"$_ws_in" 2>/dev/null
		fi
		_ws_ptok='' _ws_pval=''
		read -r _ws_ptok _ws_pval <"$_ws_in"
		if [ -z "$_ws_ptok" ]; then
			# (b: a does not listen yet)
			[ "$XRDMA_ROLE" = a ] || sleep 0.2
			continue
		fi
		[ "$_ws_ptok" = "$_ws_tok" ] && break
		# the peer is at another test: when at an earlier one (it is
		# still in a test that failed here), it fails that one on our
		# answer and comes; when at a later one, this test failed there
		_ws_pt=${_ws_ptok%%:*}
		if [ "$_ws_pt" != "$XRDMA_TEST" ] &&
		   [ "$(_wire_order "$_ws_pt")" -lt "$(_wire_order "$XRDMA_TEST")" ]; then
			sleep 0.2
			continue
		fi
		fail "wire_sync $1: the peer is at '$_ws_ptok', not '$_ws_tok'"
	done
	echo "$_ws_pval"
}

# _wire_listening tcp|udp|cm PORT: a TCP socket listens on PORT, a UDP
# socket is bound to it, or (cm) an rdma_cm ID listens
_wire_listening() {
	if [ "$1" = cm ]; then
		/usr/bin/rdma resource show cm_id 2>/dev/null |
			grep LISTEN | grep -q ":$2 "
		return
	fi
	# (state 0A: TCP_LISTEN; 07: TCP_CLOSE, an unconnected UDP socket)
	_wl_st=0A
	[ "$1" = udp ] && _wl_st=07
	awk -v p="$(printf '%04X' "$2")" -v st=$_wl_st \
		'$4 == st && substr($2, length($2) - 3) == p { f = 1 }
		END { exit !f }' "/proc/net/$1" "/proc/net/${1}6" 2>/dev/null
}

# _wire_check NAME ROLE RC FILE PATTERN: one side's verdict
_wire_check() {
	if [ -n "${WIRE_RPING_EXIT:-}" ] && ulp_rping_exit_race "$3" "$4" &&
	   grep -Eq "$5" "$4"; then
		# rping's own exit race (lib/ulp.sh); every ping was verified
		# (the result line is the last ping's): an accounted outcome,
		# not the transport's
		note "$1 $2: rping's cm_thread read its closed channel at exit (rc 255 after the last ping)"
		return 0
	fi
	if [ "$3" != 0 ]; then
		echo "$1 $2 rc=$3: $(grep -v '^ *$' "$4" | tail -n 1)" >>"$XRDMA_TMP/errors"
	elif ! grep -Eq "$5" "$4"; then
		echo "$1 $2: exit 0 without its result line /$5/" >>"$XRDMA_TMP/errors"
	else
		return 0
	fi
	echo "--- $1 $2 output"
	tail -n 30 "$4"
	return 1
}

# _wire_step NAME N: the wire_sync step of run N of wire_server /
# wire_client NAME: NAME, NAME.r1, NAME.r2, ...
_wire_step() {
	if [ "$2" = 0 ]; then echo "$1"; else echo "$1.r$2"; fi
}

wire_server() {
	_wsn=$1 _wsk=$2 _wsp=$3
	shift 3
	# (timeout runs the program itself: killing it kills the program)
	[ "$WIRE_STACK" = xnic ] && set -- xrdma-run "$@"
	_wst=0
	while :; do
		timeout "$WIRE_PROG_TIMEOUT" "$@" >"$XRDMA_TMP/$_wsn.srv" 2>&1 &
		_wspid=$!
		eval "WIRE_SRV_$_wsn=$_wspid"
		WIRE_PIDS="$WIRE_PIDS $_wspid"
		wait_for 20 _wire_listening "$_wsk" "$_wsp" ||
			echo "$_wsn server: not listening after 20 s" >>"$XRDMA_TMP/errors"
		wire_sync "$(_wire_step "$_wsn" $_wst)" >/dev/null
		[ -n "${WIRE_CM_RETRY:-}" ] || return 0
		# the client's verdict on its run (wire_client)
		_wsv=$(wire_sync "$_wsn.verdict$_wst" - $((WIRE_PROG_TIMEOUT + 60))) ||
			exit 1
		[ "$_wsv" = rejected ] || return 0
		kill "$_wspid" 2>/dev/null
		wait "$_wspid"
		note "$_wsn: the client was rejected, server run $_wst ended: starting again"
		_wst=$((_wst + 1))
	done
}

wire_server_wait() {
	_wsw=
	eval "_wsw=\$WIRE_SRV_$1"
	wait "$_wsw"
	_wire_check "$1" server $? "$XRDMA_TMP/$1.srv" "$2"
}

wire_client() {
	_wcn=$1 _wcp=$2
	shift 2
	[ "$WIRE_STACK" = xnic ] && set -- xrdma-run "$@"
	_wct=0
	while :; do
		wire_sync "$(_wire_step "$_wcn" $_wct)" >/dev/null
		timeout "$WIRE_PROG_TIMEOUT" "$@" >"$XRDMA_TMP/$_wcn.cli" 2>&1
		_wcrc=$?
		[ -n "${WIRE_CM_RETRY:-}" ] || break
		# an rdma_cm listener seen in LISTEN can still reject with
		# "invalid service ID" for a moment (6.1): both ends again
		_wcv=ran
		if [ $_wcrc != 0 ] && [ $_wct -lt 3 ] &&
		   grep -q 'RDMA_CM_EVENT_REJECTED; error: 8\.' "$XRDMA_TMP/$_wcn.cli"; then
			_wcv=rejected
		fi
		wire_sync "$_wcn.verdict$_wct" "$_wcv" >/dev/null
		[ "$_wcv" = rejected ] || break
		note "$_wcn: rejected (no listener yet), client run $_wct: both ends again"
		_wct=$((_wct + 1))
	done
	_wire_check "$_wcn" client "$_wcrc" "$XRDMA_TMP/$_wcn.cli" "$_wcp" || return 1
	note "[$(cut -d' ' -f1 /proc/uptime)] $_wcn: $(grep -E "$_wcp" "$XRDMA_TMP/$_wcn.cli" | tail -n 1 |
		tr -s ' \t' ' ' | cut -c 1-100)"
}

wire_netem() {
	modprobe sch_netem || fail "modprobe sch_netem"
	/usr/bin/tc qdisc replace dev "$WIRE_ETH" root netem "$@" ||
		fail "tc qdisc replace dev $WIRE_ETH root netem $*"
	note "netem on $WIRE_ETH: $*"
}

wire_counters() {
	for _wc in /sys/class/infiniband/"$WIRE_IBDEV"/ports/1/hw_counters/*; do
		[ -f "$_wc" ] && echo "${_wc##*/} $(cat "$_wc")"
	done
	if [ "$WIRE_STACK" = xnic ]; then
		cat "$XRDMA_DEBUGFS"/xnic_sim/0/counters 2>/dev/null
	fi
	return 0
}

wire_counter_sum() {
	wire_counters | awk -v want="$*" '
		BEGIN { n = split(want, w); for (i = 1; i <= n; i++) ok[w[i]] = 1 }
		$1 in ok { s += $2 } END { print s + 0 }'
}

# ------------------------------------------------------- the attachment
wire_sim_ctr() {
	awk -v n="$2" '$1 == n { print $2 }' "$XRDMA_DEBUGFS/xnic_sim/$1/counters"
}

wire_sim_low() {
	WIRE_LOW=$(wire_netdev) || fail "no network interface (virtio-net missing?)"
	/usr/bin/ip addr flush dev "$WIRE_LOW" || fail "ip addr flush dev $WIRE_LOW"
	/usr/bin/ip link set "$WIRE_LOW" up || fail "$WIRE_LOW up"
}

wire_sim_attach() {
	mount_debugfs
	_wire_load_xnic xnic_stack_down "$1"
	wait_for 10 xnic_netdev 0 >/dev/null || {
		xnic_stack_down
		fail "no netdev of xnic.0"
	}
	# shellcheck disable=SC2034 # the test's
	WIRE_XN=$(xnic_netdev 0)
}

wire_in_echos() {
	awk '/^Icmp:/ { if (!n) { for (i = 1; i <= NF; i++) if ($i == "InEchos") c = i; n = 1 }
			else print $c }' /proc/net/snmp
}

wire_ping_peer() {
	_wpp=0
	until ping -c 1 -W 1 "$XRDMA_PEER_IP" >/dev/null 2>&1; do
		_wpp=$((_wpp + 1))
		[ $_wpp -lt 60 ] || {
			note "peer $XRDMA_PEER_IP never answered over $1"
			return 1
		}
	done
	ping -c 3 -i 0.2 -W 2 "$XRDMA_PEER_IP" || {
		note "ping $XRDMA_PEER_IP over $1 failed"
		return 1
	}
}

wire_echos_done() {
	_wed=0
	while [ "$(wire_in_echos)" -lt $(($1 + 4)) ]; do
		_wed=$((_wed + 1))
		[ $_wed -lt 300 ] || {
			note "peer did not finish pinging us (answered $(($(wire_in_echos) - $1)))"
			return 1
		}
		sleep 0.2
	done
	sleep 1
}

# ------------------------------------------------------- the suite
# wire_suite SERVER_ROLE [PARTS]: the interop suite of the pairing tests,
# guest SERVER_ROLE (a or b) the servers, the other the clients; PARTS
# (default "rc ud perf cm") picks:
#   rc    ibv_rc_pingpong, received data checked (-c), 1 B .. 1 MiB at
#         path MTU 1024 and 4096
#   ud    ibv_ud_pingpong, 1 B and 1024 B
#   perf  perftest ib_{write,read,send,atomic}_{lat,bw}, short runs, and
#         ib_atomic_lat -A CMP_AND_SWAP
#   cm    rdma_cm: rping -V, perftest -R (ib_send_lat, ib_write_bw)
# Each pair's result goes to $XRDMA_TMP/errors (fail_on_errors).  The
# client's result row is noted (the numbers, for the record; none is
# asserted).  WIRE_PP_SIZES / WIRE_PP_ITERS override the rc sizes.
WIRE_PORT=18600
WIRE_PP='^[0-9]+ iters in [0-9.]+ seconds = [0-9.]+ usec/iter$'
# a perftest result row: "#bytes #iterations" and numbers
WIRE_PT='^[[:space:]]*[0-9]+[[:space:]]+[0-9]+[[:space:]]+[0-9.]+[[:space:]]+[0-9.]+'

# wire_pair SERVER_ROLE NAME SERVER_PATTERN CLIENT_PATTERN LISTEN
#           CLIENT_TAIL -- PROGRAM ARGS...: one client/server run; the
# server runs PROGRAM ARGS, the client PROGRAM ARGS CLIENT_TAIL (words);
# LISTEN is "tcp" (the server's -p port) or "cm"
wire_pair() {
	_wpr=$1 _wpn=$2 _wps=$3 _wpc=$4 _wpl=$5 _wpt=$6
	shift 7
	WIRE_PORT=$((WIRE_PORT + 1))
	if [ "$XRDMA_ROLE" = "$_wpr" ]; then
		wire_server "$_wpn" "$_wpl" "$WIRE_PORT" "$@" -p "$WIRE_PORT"
		wire_server_wait "$_wpn" "$_wps"
	else
		# shellcheck disable=SC2086 # the tail is words
		wire_client "$_wpn" "$_wpc" "$@" -p "$WIRE_PORT" $_wpt
	fi
	# both sides done before the next pair (its port, its server)
	wire_sync "$_wpn.done" >/dev/null
}

wire_suite() {
	_wsr=$1
	_wsparts=${2:-rc ud perf cm}
	_wsd="-d $WIRE_IBDEV"
	_wpeer=$XRDMA_PEER_IP
	[ "$XRDMA_ROLE" = "$_wsr" ] && _wpeer=$XRDMA_IP
	_wsrv=$XRDMA_IP
	[ "$XRDMA_ROLE" = "$_wsr" ] || _wsrv=$XRDMA_PEER_IP
	for _wp in $_wsparts; do
		case $_wp in
		rc)
			for _wm in 1024 4096; do
				for _wsz in ${WIRE_PP_SIZES:-1 4096 65536 1048576}; do
					_wn=${WIRE_PP_ITERS:-10}
					[ "$_wsz" -ge 1048576 ] && _wn=3
					# shellcheck disable=SC2086
					wire_pair "$_wsr" "rc_m${_wm}_s$_wsz" "$WIRE_PP" "$WIRE_PP" \
						tcp "$_wpeer" -- ibv_rc_pingpong $_wsd -g "$WIRE_GIDX" \
						-m "$_wm" -s "$_wsz" -n "$_wn" -c
				done
			done
			;;
		ud)
			for _wsz in 1 1024; do
				# shellcheck disable=SC2086
				wire_pair "$_wsr" "ud_s$_wsz" "$WIRE_PP" "$WIRE_PP" tcp "$_wpeer" -- \
					ibv_ud_pingpong $_wsd -g "$WIRE_GIDX" -s "$_wsz" -n 10
			done
			;;
		perf)
			for _wo in write read send atomic; do
				for _wk in lat bw; do
					# shellcheck disable=SC2086
					wire_pair "$_wsr" "ib_${_wo}_$_wk" 'local address' "$WIRE_PT" \
						tcp "$_wpeer" -- ib_${_wo}_$_wk $_wsd -x "$WIRE_GIDX" \
						-n 20 -F
				done
			done
			# (the default atomic is FETCH_ADD)
			# shellcheck disable=SC2086
			wire_pair "$_wsr" ib_atomic_cas 'local address' "$WIRE_PT" tcp "$_wpeer" -- \
				ib_atomic_lat $_wsd -x "$WIRE_GIDX" -n 20 -F -A CMP_AND_SWAP
			;;
		cm)
			# rping binds the server to its address, the client
			# connects to it
			WIRE_CM_RETRY=1
			wire_pair_rping "$_wsr" "$_wsrv"
			# shellcheck disable=SC2086
			wire_pair "$_wsr" cm_send_lat 'local address' "$WIRE_PT" cm "$_wpeer" -- \
				ib_send_lat $_wsd -R -n 20 -F
			# shellcheck disable=SC2086
			wire_pair "$_wsr" cm_write_bw 'local address' "$WIRE_PT" cm "$_wpeer" -- \
				ib_write_bw $_wsd -R -n 20 -F
			WIRE_CM_RETRY=
			;;
		*) fail "wire_suite: unknown part $_wp" ;;
		esac
	done
}

# rping: -V validates the data, -v prints each ping (counted: 10 each side)
wire_pair_rping() {
	WIRE_PORT=$((WIRE_PORT + 1))
	WIRE_RPING_EXIT=1
	if [ "$XRDMA_ROLE" = "$1" ]; then
		wire_server rping cm "$WIRE_PORT" rping -s -v -V -C 10 -S 1000 -a "$2" -p "$WIRE_PORT"
		wire_server_wait rping '^server ping data: rdma-ping-9: '
	else
		wire_client rping '^ping data: rdma-ping-9: ' rping -c -v -V -C 10 -S 1000 \
			-a "$2" -p "$WIRE_PORT"
	fi
	WIRE_RPING_EXIT=
	wire_sync rping.done >/dev/null
}

# wire_pair_verify SERVER_ROLE NAME [ARGS...]: wire_verify
# (tools/testing/ulp/wire/wire_verify.c) between the guests, SERVER_ROLE
# listening: each side in turn the requester of RC SEND, WRITE and READ
# of every size (default 1 B .. 1 MiB, path MTU 1024), every byte and
# completion checked on the side that can see it, the peer met over TCP
# after the last completion before the QP goes.  ARGS go to both sides
# (-S sizes, -n iterations, -m MTU).  Both sides must print the summary
# with no failure and exit 0.  The test ships
# tools/testing/ulp/wire/wire_verify.
WIRE_VERIFY='^# wire_verify: [0-9]+ tests, 0 failed$'
wire_pair_verify() {
	_wvr=$1 _wvn=$2
	shift 2
	command -v wire_verify >/dev/null ||
		fail "wire_verify not in the guest (not built? XRDMA_PROGRAMS)"
	_wvpeer=$XRDMA_PEER_IP
	[ "$XRDMA_ROLE" = "$_wvr" ] && _wvpeer=$XRDMA_IP
	# (its own watchdog first: it says where it was)
	wire_pair "$_wvr" "$_wvn" "$WIRE_VERIFY" "$WIRE_VERIFY" tcp "-c $_wvpeer" -- \
		wire_verify -d "$WIRE_IBDEV" -g "$WIRE_GIDX" \
		-w $((WIRE_PROG_TIMEOUT - 5)) "$@"
}

# ------------------------------------------------------- faults
# what wire_faults runs wire_verify with (words): one pass, and a local
# ACK timeout of 268 ms (-T 16).  With the default 67 ms, xnic reading
# 1 MiB from rxe under 1% corruption once ended in RETRY_EXC_ERR (6.12,
# December 2026): a READ response lost, xnic drops the ones after it
# (PSN order) until its timer asks again, and rxe's responder answers
# each repeated READ request with the whole rest of the message, in turn
# behind the ones before.  A 1 MiB READ takes 50-100 ms under TCG
# (perftest: 10-20 MB/s), longer than 67 ms: the replays queued up faster
# than they drained and 8 timer periods went by without a response in
# order.  That is IBTA's retry_cnt 7 at work (rxe's requester takes 7 as
# "for ever" and never ends so), not the data path under test: with
# 268 ms per retry the queue drains before the next retry.
WIRE_VERIFY_FAULT_ARGS="-n 1 -T 16"
# Counters that move when the transport recovers from a lost, duplicated,
# reordered or corrupted packet: rxe's (hw_counters) and the xnic model's
# wire_* ones (Documentation/xnic/wire.rst, "Counters")
WIRE_RXE_RECOVERY="duplicate_request out_of_seq_request rcvd_seq_err completer_retry_err"
WIRE_XNIC_RECOVERY="wire_retransmits wire_timeouts wire_seq_naks_sent wire_seq_naks_rcvd"
WIRE_XNIC_RECOVERY="$WIRE_XNIC_RECOVERY wire_duplicates wire_oos_drops wire_icrc_errors wire_malformed"
WIRE_FAULTS="loss 2%|duplicate 1%|delay 5ms reorder 25% 50%|corrupt 1%"

wire_recovery() {
	if [ "$WIRE_STACK" = xnic ]; then
		# shellcheck disable=SC2086 # a list of names
		wire_counter_sum $WIRE_XNIC_RECOVERY
	else
		# shellcheck disable=SC2086
		wire_counter_sum $WIRE_RXE_RECOVERY
	fi
}

# wire_pcap_fence off|on: a marker in the capture (an ICMP echo request of
# 1311 / 1312 data bytes) around traffic that is corrupted on purpose:
# the host's check (pcap-check.sh) leaves the frames between them out
wire_pcap_fence() {
	_wpf=1311
	[ "$1" = on ] && _wpf=1312
	ping -c 1 -W 1 -s $_wpf "$XRDMA_PEER_IP" >/dev/null 2>&1
	return 0
}

# wire_faults SERVER_ROLE NETEM_ROLE: each fault of WIRE_FAULTS in turn
# as a netem qdisc on the egress of guest NETEM_ROLE, under wire_verify
# (wire_pair_verify: RC SEND, WRITE and READ of 1 B .. 1 MiB each way,
# every byte and completion checked), ib_write_bw and ib_read_bw.  All
# three meet the peer over TCP after their last completion, so no side
# tears down while the other still waits for an ACK (not
# ibv_rc_pingpong, whose client may exit before its last ACK reaches the
# server, which then retries into a destroyed QP: a lost final ACK fails
# the server whatever the transport does).  Every run must pass on both
# sides, and the recovery counters of the guest that receives the faulty
# stream (the one without the qdisc) must have moved -- both guests' are
# noted per fault.  No rdma_cm here: a lost DREQ (a CM MAD on QP1, not
# the RC transport) leaves rping's server waiting for a disconnect that
# never comes.
wire_faults() {
	_wfs=$1 _wfn=$2
	_wfpeer=$XRDMA_PEER_IP
	[ "$XRDMA_ROLE" = "$_wfs" ] && _wfpeer=$XRDMA_IP
	_wfi=0
	_wfifs=$IFS
	IFS='|'
	# shellcheck disable=SC2086 # split at |
	set -- $WIRE_FAULTS
	IFS=$_wfifs
	for _wff in "$@"; do
		_wfi=$((_wfi + 1))
		_wf0=$(wire_recovery)
		if [ "$XRDMA_ROLE" = "$_wfn" ]; then
			case $_wff in corrupt*) wire_pcap_fence off ;; esac
			# shellcheck disable=SC2086 # netem's words
			wire_netem $_wff
		fi
		wire_sync "fault$_wfi" >/dev/null
		# (6.1, reordering: 40 s where 6.12 took 18 s -- each READ
		# response out of order costs xnic a timer period)
		WIRE_PROG_TIMEOUT=200
		# shellcheck disable=SC2086 # the tail is words
		wire_pair_verify "$_wfs" "f${_wfi}_verify" $WIRE_VERIFY_FAULT_ARGS
		WIRE_PROG_TIMEOUT=100
		for _wfo in write read; do
			wire_pair "$_wfs" "f${_wfi}_$_wfo" 'local address' "$WIRE_PT" tcp \
				"$_wfpeer" -- ib_${_wfo}_bw -d "$WIRE_IBDEV" -x "$WIRE_GIDX" \
				-n 20 -F
		done
		if [ "$XRDMA_ROLE" = "$_wfn" ]; then
			/usr/bin/tc qdisc del dev "$WIRE_ETH" root ||
				echo "cannot remove netem ($_wff)" >>"$XRDMA_TMP/errors"
			case $_wff in corrupt*) wire_pcap_fence on ;; esac
		fi
		_wfd=$(($(wire_recovery) - _wf0))
		_wfp=$(wire_sync "fault$_wfi.counted" "$WIRE_STACK:$_wfd")
		_wfpd=${_wfp#*:}
		# the guest across the netem qdisc receives the faulty stream:
		# its transport must have noticed (the sender may not: a
		# duplicated request is answered once more or not at all)
		if [ "$XRDMA_ROLE" = "$_wfn" ]; then
			_wfx=$_wfpd
			_wfwhat="recovery counters of the receiving ${_wfp%%:*} (the peer)"
		else
			_wfx=$_wfd
			_wfwhat="recovery counters of the receiving $WIRE_STACK (here)"
		fi
		note "$_wff: recovery counters +$_wfd here, +$_wfpd on the peer (${_wfp%%:*})"
		[ "$_wfx" -gt 0 ] ||
			echo "$_wff: the $_wfwhat did not move" >>"$XRDMA_TMP/errors"
	done
}

# ------------------------------------------------------- xnic fault rules
# The xnic port's own frame faults and answers (Documentation/faults.rst,
# issue 26), for tests whose WIRE_STACK is xnic: rules made with
# scripts/xrdma-fault on WIRE_IBDEV, acting on the frames that arrive
# there (drop, delay, dup, reorder, corrupt) and on what its RC responder
# answers (rnr, nak_access, nak_op, nak_inv).  The test ships
# scripts/xrdma-fault and has configfs in XRDMA_DEBIAN_MODULES.  A rule
# holds xnic_sim (configfs refuses its rmmod), so the test's EXIT trap
# runs wire_fault_clear before wire_down, and the test removes its rules
# before wire_end.

# _wire_fault_dir: the configfs directory of WIRE_IBDEV's model device
_wire_fault_dir() {
	_wfdl=$(readlink "/sys/class/xrdma_device/$WIRE_IBDEV/device") || return 1
	_wfdl=${_wfdl##*/}
	case $_wfdl in
	xnic.[0-9]*) echo "/sys/kernel/config/xnic_sim/${_wfdl#xnic.}" ;;
	*) return 1 ;;
	esac
}

# wire_fault_add TYPE NAME [OPTION...]: "xrdma-fault add WIRE_IBDEV TYPE
# --name NAME OPTION..." (the rule enabled); fails the test when it does
# not print WIRE_IBDEV/NAME or the rule is not there, enabled, of TYPE
wire_fault_add() {
	_wfat=$1 _wfan=$2
	shift 2
	command -v xrdma-fault >/dev/null ||
		fail "xrdma-fault not in the guest (XRDMA_PROGRAMS: scripts/xrdma-fault)"
	_wfao=$(xrdma-fault add "$WIRE_IBDEV" "$_wfat" --name "$_wfan" "$@" \
		2>"$XRDMA_TMP/fault.err") ||
		fail "xrdma-fault add $WIRE_IBDEV $_wfat --name $_wfan $*: $(cat "$XRDMA_TMP/fault.err")"
	[ "$_wfao" = "$WIRE_IBDEV/$_wfan" ] ||
		fail "xrdma-fault add printed '$_wfao', want '$WIRE_IBDEV/$_wfan'"
	if [ "$(wire_fault_attr "$_wfan" type)" != "$_wfat" ] ||
	   [ "$(wire_fault_attr "$_wfan" enable)" != 1 ]; then
		fail "rule $_wfan: type '$(wire_fault_attr "$_wfan" type)'," \
			"enable '$(wire_fault_attr "$_wfan" enable)', want $_wfat, 1"
	fi
	note "rule $_wfan on $WIRE_IBDEV: $_wfat $*"
}

# wire_fault_attr NAME ATTR: attribute ATTR of rule NAME (matched,
# injected, ...), nothing when it cannot be read
wire_fault_attr() {
	_wfad=$(_wire_fault_dir) || return 0
	cat "$_wfad/rules/$1/$2" 2>/dev/null
}

# wire_fault_del NAME: "xrdma-fault del WIRE_IBDEV NAME"; problems go to
# $XRDMA_TMP/errors
wire_fault_del() {
	xrdma-fault del "$WIRE_IBDEV" "$1" >"$XRDMA_TMP/fault.err" 2>&1 ||
		echo "xrdma-fault del $WIRE_IBDEV $1: $(cat "$XRDMA_TMP/fault.err")" \
			>>"$XRDMA_TMP/errors"
}

# wire_fault_clear: no rule left on any model device ("xrdma-fault
# clear"), when xnic_sim is loaded; problems go to $XRDMA_TMP/errors
wire_fault_clear() {
	[ -d /sys/kernel/config/xnic_sim ] || return 0
	xrdma-fault clear >"$XRDMA_TMP/fault.err" 2>&1 ||
		echo "xrdma-fault clear: $(cat "$XRDMA_TMP/fault.err")" >>"$XRDMA_TMP/errors"
}

# wire_sim_counters: the xnic model's counters, "name value" a line
# (debugfs xnic_sim/0/counters; not the ib device's hw_counters, which
# repeat its wire_* ones)
wire_sim_counters() {
	cat "$XRDMA_DEBUGFS"/xnic_sim/0/counters
}

# wire_sim_delta BEFORE AFTER NAME...: the sum over the counters NAME...
# of their growth from file BEFORE to file AFTER (wire_sim_counters)
wire_sim_delta() {
	_wsdb=$1 _wsda=$2
	shift 2
	awk -v want="$*" '
		BEGIN { n = split(want, w); for (i = 1; i <= n; i++) ok[w[i]] = 1 }
		FNR == NR { if ($1 in ok) b[$1] = $2; next }
		$1 in ok { s += $2 - b[$1] } END { print s + 0 }' "$_wsdb" "$_wsda"
}

# wire_pair_fails SERVER_ROLE NAME PATTERN CLIENT_TAIL -- PROGRAM ARGS...:
# a client/server run as wire_pair's (TCP on the server's -p port) that a
# fault breaks at the client.  The client must end by itself, with a
# status other than 0 and timeout's 124, and print a line matching the
# extended regex PATTERN; the server, whom nothing reaches any more (RC
# has no keepalive), must still be running then, and is stopped -- or,
# with WIRE_FAIL_SRV set (an extended regex), may have ended by itself
# with a failure and a line matching it (an outcome the test accounts
# for, e.g. a retransmission that reached it before the client's QP
# went).  Problems go to $XRDMA_TMP/errors; WIRE_FAIL_LINE is the
# client's line.
wire_pair_fails() {
	_wpfr=$1 _wpfn=$2 _wpfp=$3 _wpft=$4
	shift 5
	WIRE_PORT=$((WIRE_PORT + 1))
	WIRE_FAIL_LINE=
	if [ "$XRDMA_ROLE" = "$_wpfr" ]; then
		wire_server "$_wpfn" tcp "$WIRE_PORT" "$@" -p "$WIRE_PORT"
		_wpfc=$(wire_sync "$_wpfn.client" - $((WIRE_PROG_TIMEOUT + 60))) ||
			exit 1
		_wpfs=
		eval "_wpfs=\$WIRE_SRV_$_wpfn"
		if kill -0 "$_wpfs" 2>/dev/null; then
			kill "$_wpfs"
			wait "$_wpfs"
			note "$_wpfn server: still waiting when the client ended (rc $_wpfc), stopped"
		else
			wait "$_wpfs"
			_wpfx=$?
			if [ -n "${WIRE_FAIL_SRV:-}" ] && [ $_wpfx != 0 ] &&
			   grep -Eq "$WIRE_FAIL_SRV" "$XRDMA_TMP/$_wpfn.srv"; then
				note "$_wpfn server: ended by itself (rc $_wpfx):" \
					"$(grep -E "$WIRE_FAIL_SRV" "$XRDMA_TMP/$_wpfn.srv" | head -n 1)"
			else
				echo "$_wpfn server: ended by itself (rc $_wpfx) before it was stopped:" \
					"$(grep -v '^ *$' "$XRDMA_TMP/$_wpfn.srv" | tail -n 1)" \
					>>"$XRDMA_TMP/errors"
			fi
		fi
	else
		[ "$WIRE_STACK" = xnic ] && set -- xrdma-run "$@"
		wire_sync "$_wpfn" >/dev/null
		# shellcheck disable=SC2086 # the tail is words
		timeout "$WIRE_PROG_TIMEOUT" "$@" -p "$WIRE_PORT" $_wpft \
			>"$XRDMA_TMP/$_wpfn.cli" 2>&1
		_wpfc=$?
		WIRE_FAIL_LINE=$(grep -E "$_wpfp" "$XRDMA_TMP/$_wpfn.cli" | head -n 1)
		if [ $_wpfc = 0 ] || [ $_wpfc = 124 ] || [ -z "$WIRE_FAIL_LINE" ]; then
			echo "$_wpfn client rc=$_wpfc, want it to end by itself with /$_wpfp/:" \
				"$(grep -v '^ *$' "$XRDMA_TMP/$_wpfn.cli" | tail -n 1)" \
				>>"$XRDMA_TMP/errors"
			echo "--- $_wpfn client output"
			tail -n 30 "$XRDMA_TMP/$_wpfn.cli"
		else
			note "$_wpfn client: rc $_wpfc, $WIRE_FAIL_LINE"
		fi
		wire_sync "$_wpfn.client" "$_wpfc" >/dev/null
	fi
	wire_sync "$_wpfn.done" >/dev/null
}
