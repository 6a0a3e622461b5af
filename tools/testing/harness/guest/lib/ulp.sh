# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# Helpers for the guest tests of the kernel's RDMA ULPs (NVMe-oF, NFS over
# RDMA, SMB Direct, rdma_cm): one RDMA transport, either Soft-RoCE or xnic
# through xrdma_ib, with an IPv4 address on its netdev.  A test sources it
# after lib/xrdma_test.sh:
#
#     . /xrdma/tests/lib/ulp.sh
#     ulp_fabric_up "$XRDMA_SUBTEST"     # rxe or xnic
#     ... $ULP_IBDEV, $ULP_NETDEV, $ULP_IP ...
#     ulp_fabric_down
#
# The test header must ship, besides its own modules and programs:
#     # XRDMA_DEBIAN_MODULES: crc32_generic veth rdma_rxe ib_core
#     # XRDMA_PROGRAMS: /usr/bin/ip /usr/bin/rdma
# (busybox has applets named ip; the helpers call /usr/bin/ip and
# /usr/bin/rdma by path).
#
# ulp_fabric_up rxe|xnic
#     rxe:  crc32_generic and rdma_rxe, a veth pair veth0/veth1 (up),
#           rxe0 on veth0 (rdma link add), 198.18.0.1/24 on veth0.
#     xnic: xrdma_core, xrdma_uverbs, xnic_sim (1 device), xnic and
#           xrdma_ib (rdma_rxe and ib_uverbs unloaded first); the netdev
#           of xnic0's port 1 with 198.18.0.1/24.
#           Fails the test (never skips) when xrdma_ib.ko was not built.
#     Both wait until the port's GID table holds the address's
#     IPv4-mapped GID (::ffff:198.18.0.1), then set ULP_TRANSPORT,
#     ULP_IBDEV, ULP_NETDEV, ULP_IP, ULP_GID.
# ulp_fabric_down
#     Undoes ulp_fabric_up (what of it is there; rxe: also ib_uverbs,
#     which rdma_rxe loads); 1 if something of it could not be removed
#     (noted in $XRDMA_TMP/errors).  ib_core and the ULPs' modules stay.
# ulp_wait SECONDS CMD...
#     Runs CMD every 0.1 s until it succeeds (0) or SECONDS (scaled by
#     XRDMA_TIMEOUT_SCALE) have passed (1).
# ulp_traffic
#     One number: the transport's data counter -- rxe: packets sent plus
#     received by rxe0 (hw_counters); xnic: payload bytes of the RDMA
#     operations xnic0 executed as requester (xnic_sim debugfs counters).
#     ULP_TRAFFIC_UNIT says which (pkts or bytes).
# ulp_traffic_min BYTES
#     The least ulp_traffic must grow by when BYTES of payload crossed
#     the transport (rxe: one packet per 4 KiB at most, xnic: BYTES).
# ulp_counters
#     The transport's counters, "name value" a line (for the log).
# ulp_rmmod MOD...
#     Unloads each loaded MOD (rmmod_timed) in the order given, but each
#     before the modules it depends on on this kernel (mod_order); a
#     failure goes to $XRDMA_TMP/errors.
# ulp_loaded MOD...
#     Prints those of MOD... that are loaded.
#
# Two cabled xnic devices, the ends in two network namespaces (the cross
# subtests of comm_fabric and comm_ucx; the header also ships rdma_ucm):
# ulp_cross_up
#     ib_core, xnic_sim ndev=2 (xnic0 and xnic1 cabled to each other),
#     xrdma_ib, rdma_ucm (the rdma_cm modules and rdma_rxe unloaded
#     first); xnic0's
#     netdev moved to namespace $ULP_NSA with $ULP_XA/24, xnic1's to
#     $ULP_NSB with $ULP_XB/24; waits for both addresses' GIDs.  Fails
#     the test (after ulp_cross_down) when a step fails.
# ulp_cross_down
#     Undoes it; objects left on xnic0 or xnic1, or a module that stays,
#     go to $XRDMA_TMP/errors.
# ulp_inns NS CMD...
#     CMD in network namespace NS ("" for this one).
# ulp_dev_bytes I
#     Payload bytes xnic_sim device I sent and received.
#
# A ULP over a flapping port (the flap_xnic subtests of ulp_nfs.sh and
# ulp_smb.sh; the header also ships scripts/xrdma-fault and configfs).
# These return 1 with the reason in ULP_WHY; the caller fails:
# ulp_klog_mark NAME
#     A line "ulp: mark NAME" in the kernel log, for ulp_klog_since.
# ulp_klog_since NAME
#     The kernel log after the last mark NAME (all of it when the mark
#     has left the ring buffer).
# ulp_port_state
#     ib_core's state of $ULP_IBDEV's port 1 (DOWN, ACTIVE, ...).
# ulp_link up|down
#     "xrdma-fault link $ULP_IBDEV up|down", then up to 10 s for
#     ib_core's port state to follow (ACTIVE, DOWN).
# ulp_io_start PAT FILE DIR [WFLAG [RFLAG]]
#     Two loops in the background until ulp_io_stop, each pausing 0.1 s
#     after a round and ending by itself after $ULP_IO_MAX rounds: a
#     writer, whose round K writes DIR/w.K, the ((K-1) mod N)-th
#     $ULP_IO_BS-byte slice of PAT (N slices, PAT a multiple of
#     $ULP_IO_BS), with GNU dd and WFLAG (oflag=direct); a reader, whose
#     round reads FILE (written before with PAT) with dd and RFLAG and
#     compares it with PAT.  A loop ends at the first failure: dd's
#     error, or data that differ.
# ulp_io_count w|r
#     Rounds the writer (w) or the reader (r) completed.
# ulp_io_past W R
#     0 when the writer completed W rounds and the reader R, or either
#     loop has ended (for ulp_wait; ulp_io_stop says how it ended).
# ulp_io_stop SECONDS
#     Asks both loops to end after their round and waits for them
#     SECONDS; 1 when one did not end (the kernel stack of its dd is
#     shown) or failed.
# ulp_io_check DIR [RFLAG]
#     Each DIR/w.K the writer completed holds its slice of PAT, read
#     with dd and RFLAG (the client's view: the mount; the server's:
#     its export).
# ulp_io_kill
#     A failure path: asks the loops to end and waits up to 30 s, then
#     SIGKILL to those left and their dd; reaps them.
# ulp_io_again W|R
#     With ULP_IO_EAGAIN=1 a dd that failed with EAGAIN is run again
#     (0.5 s later, 30 times at most): how often the writer's (W) or the
#     reader's (R) did.
# ulp_flap SECONDS
#     Under ulp_io_start's I/O: once the writer completed 3 rounds and
#     the reader 1 (30 s at most), a kernel log mark "flap"
#     (ulp_klog_since flap), the link down (ulp_link) for SECONDS, up
#     again; then up to 60 s for the writer to complete 3 more rounds
#     and the reader 1 more (the ULP recovered by itself), and
#     ulp_io_stop 30.  Notes how long the link was down, the I/O done
#     meanwhile and how long after the link came up the I/O went on.
#
# NVMe over Fabrics, the target and the host of ulp_nvme.sh and of the
# two-guest lib/wire_nvme.sh (the test ships null_blk nvmet nvmet-rdma
# nvme-rdma and nvme-cli):
# ulp_nvme_target_up NQN IP IMG
#     null_blk (1 GiB, memory-backed) as nsid 1 and a 64 MiB file IMG
#     (buffered I/O) as nsid 2 of subsystem NQN, any host allowed,
#     exported by nvmet-rdma on IP:4420 (port 1).  Fails the test when a
#     step fails.
# ulp_nvme_target_down NQN [IMG]
#     Undoes it, what of it is there (and removes IMG); a subsystem left
#     in configfs goes to $XRDMA_TMP/errors.
# ulp_nvme_connect NQN IP HOSTNQN HOSTID [OPTION...]
#     nvme-rdma, nvme connect -t rdma to IP:4420 with OPTION... of nvme
#     connect, if any (--reconnect-delay=1) (a reject for "invalid
#     service ID", a listener just made on 6.1, is tried again up to 3
#     times; lib/wire.sh, WIRE_CM_RETRY), then waits for namespaces 1
#     and 2 and sets ULP_NVME_DEV1 and ULP_NVME_DEV2 to their block
#     devices.  Fails the test when a step fails.
# ulp_nvme_ns_dev NQN NSID
#     The host's block device of namespace NSID of subsystem NQN, or 1.
# ulp_nvme_no_ctrl
#     0 when no nvme controller exists.
# ulp_nvme_disconnect NQN
#     nvme disconnect when a controller exists, then 20 s for it to go;
#     a failure goes to $XRDMA_TMP/errors (1).
#
# A recovered xnic device (the xnic driver's unbind and probe after a
# fatal error, Documentation/faults.rst) is a new device with a new
# netdev, without the address:
# ulp_xnic_readdress
#     Waits for xnic0 and its port's netdev again, sets ULP_NETDEV to
#     that netdev, puts ULP_IP on it (up) and waits for its GID.  Fails
#     the test when a step fails.

ULP_IP=198.18.0.1
ULP_PREFIX=24
# ::ffff:198.18.0.1 as /sys/class/infiniband/*/ports/*/gids/* shows it
ULP_GID=0000:0000:0000:0000:0000:ffff:c612:0001
ULP_TRANSPORT=
ULP_IBDEV=
ULP_NETDEV=
ULP_TRAFFIC_UNIT=
# xnic_sim's counters of RDMA payload executed as requester
ULP_XNIC_DATA_CTRS="tx_rdma_write_bytes tx_rdma_write_imm_bytes tx_send_bytes"
ULP_XNIC_DATA_CTRS="$ULP_XNIC_DATA_CTRS tx_send_imm_bytes tx_send_inv_bytes tx_rdma_read_bytes"

ulp_wait() { wait_for "$@"; }

# ulp_wait_exit PID SECONDS: until PID exited, up to SECONDS (times
# XRDMA_TIMEOUT_SCALE): its status; 124 (its stack shown, PID killed)
# when it was still running
ulp_wait_exit() {
	_we_lim=$(($2 * ${XRDMA_TIMEOUT_SCALE:-1} * 10))
	_we_n=0
	while kill -0 "$1" 2>/dev/null; do
		_we_n=$((_we_n + 1))
		if [ $_we_n -gt $_we_lim ]; then
			note "pid $1 still running after $2 s; its stack:"
			cat /proc/"$1"/stack 2>/dev/null
			kill -9 "$1" 2>/dev/null
			wait "$1"
			return 124
		fi
		sleep 0.1
	done
	wait "$1"
}

# ulp_kill_tree PID: PID's children (a dd it runs) killed, then PID
# (SIGKILL), and PID reaped: nothing of it keeps a device or a mount open
ulp_kill_tree() {
	for _kt in /proc/[0-9]*/stat; do
		awk -v p="$1" '$4 == p { print $1 }' "$_kt" 2>/dev/null
	done | while read -r _kc; do
		kill -9 "$_kc" 2>/dev/null
	done
	kill -9 "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

# the kernel log lines that mean a splat (ERE), for tests that check the
# log since their own start (the harness checks the whole console too)
# shellcheck disable=SC2034 # for the tests that source this
ULP_SPLAT='WARNING:|BUG:|kernel BUG at|Oops|general protection fault|KASAN:|UBSAN:|refcount_t:|list_(add|del) corruption|possible (circular|recursive) locking|inconsistent lock state|suspicious RCU usage|INFO: task .* blocked'

# ulp_rping_exit_race RC FILE: rping (librdmacm/examples/rping.c) ended
# with RC and its output FILE as its own exit race makes it: main()
# destroys the event channel without joining cm_thread, which, back
# from the DISCONNECTED event, reads the closed fd and exit()s -1 (rc
# 255, its last line rdma_get_cm_event's perror).  Only after the last
# ping: the caller checks that every ping was verified.
ulp_rping_exit_race() {
	[ "$1" = 255 ] &&
		[ "$(grep -v '^ *$' "$2" | tail -n 1)" = "rdma_get_cm_event: Bad file descriptor" ]
}

ulp_loaded() {
	for _ul in "$@"; do
		module_loaded "$_ul" && echo "$_ul"
	done
	return 0
}

ulp_rmmod() {
	for _ur in $(mod_order "$@"); do
		module_loaded "$_ur" || continue
		rmmod_timed "$_ur" ||
			echo "rmmod $_ur failed (rc=$?)" >>"$XRDMA_TMP/errors"
	done
}

# _ulp_has_gid DEV: the port's GID table holds ULP_GID
_ulp_has_gid() {
	cat /sys/class/infiniband/"$1"/ports/1/gids/* 2>/dev/null |
		grep -qx "$ULP_GID"
}

# _ulp_xnic_netdev DEV: the netdev of DEV's port 1 (ib_core's GID
# attributes, else rdma link)
_ulp_xnic_netdev() {
	_un=$(cat /sys/class/infiniband/"$1"/ports/1/gid_attrs/ndevs/0 2>/dev/null)
	[ -n "$_un" ] ||
		_un=$(/usr/bin/rdma link show "$1/1" 2>/dev/null |
			sed -n 's/.* netdev \([^ ]*\).*/\1/p')
	[ -n "$_un" ] && [ -d "/sys/class/net/$_un" ] || return 1
	echo "$_un"
}

_ulp_up_rxe() {
	modprobe crc32_generic || fail "modprobe crc32_generic"
	modprobe rdma_rxe || fail "modprobe rdma_rxe"
	/usr/bin/ip link add veth0 type veth peer name veth1 ||
		fail "cannot create the veth pair"
	ULP_NETDEV=veth0
	/usr/bin/ip addr add "$ULP_IP/$ULP_PREFIX" dev veth0 ||
		fail "ip addr add on veth0"
	/usr/bin/ip link set veth0 up || fail "veth0 up"
	/usr/bin/ip link set veth1 up || fail "veth1 up"
	/usr/bin/rdma link add rxe0 type rxe netdev veth0 ||
		fail "rdma link add rxe0 type rxe netdev veth0"
	ULP_IBDEV=rxe0
	ULP_TRAFFIC_UNIT=pkts
}

_ulp_up_xnic() {
	has_ko xrdma_ib ||
		fail "xrdma_ib.ko not built: ib_core cannot reach xnic (drivers/ib, issue 13)"
	_uk=$(xko xrdma_ib) || exit 1
	# only xnic carries RDMA here: no Soft-RoCE (the header loads it)
	[ ! -d /sys/class/infiniband/rxe0 ] || fail "rxe0 exists"
	ulp_rmmod rdma_rxe ib_uverbs
	mount_debugfs
	modprobe ib_core || fail "modprobe ib_core"
	xnic_stack_up 1
	insmod "$_uk" || {
		xnic_stack_down
		fail "insmod xrdma_ib"
	}
	ULP_IBDEV=xnic0
	ULP_TRAFFIC_UNIT=bytes
	ulp_wait 10 test -d /sys/class/infiniband/xnic0 ||
		fail "xrdma_ib registered no ib_device xnic0"
	ulp_wait 10 _ulp_xnic_netdev xnic0 >/dev/null ||
		fail "xnic0 port 1 has no netdev (sysfs gid_attrs, rdma link)"
	ULP_NETDEV=$(_ulp_xnic_netdev xnic0)
	/usr/bin/ip addr add "$ULP_IP/$ULP_PREFIX" dev "$ULP_NETDEV" ||
		fail "ip addr add on $ULP_NETDEV"
	/usr/bin/ip link set "$ULP_NETDEV" up || fail "$ULP_NETDEV up"
}

ulp_fabric_up() {
	ULP_TRANSPORT=$1
	case $1 in
	rxe) _ulp_up_rxe ;;
	xnic) _ulp_up_xnic ;;
	*) fail "ulp_fabric_up: unknown transport '$1' (rxe or xnic)" ;;
	esac
	ulp_wait 10 _ulp_has_gid "$ULP_IBDEV" || {
		cat /sys/class/infiniband/"$ULP_IBDEV"/ports/1/gids/* 2>/dev/null |
			grep -v '^0000:0000:0000:0000:0000:0000:0000:0000$'
		fail "$ULP_IBDEV: no GID for $ULP_IP on port 1 after 10 s"
	}
	note "fabric $1: ibdev $ULP_IBDEV netdev $ULP_NETDEV ip $ULP_IP"
	export ULP_TRANSPORT ULP_IBDEV ULP_NETDEV ULP_IP ULP_GID ULP_TRAFFIC_UNIT
}

ulp_fabric_down() {
	case $ULP_TRANSPORT in
	rxe)
		[ -d /sys/class/infiniband/rxe0 ] &&
			{ /usr/bin/rdma link delete rxe0 ||
			  echo "rdma link delete rxe0 failed" >>"$XRDMA_TMP/errors"; }
		[ -d /sys/class/net/veth0 ] && /usr/bin/ip link delete veth0
		# rdma_rxe brought ib_uverbs in
		ulp_rmmod rdma_rxe ib_uverbs
		;;
	xnic)
		[ -n "$ULP_NETDEV" ] && [ -d "/sys/class/net/$ULP_NETDEV" ] &&
			/usr/bin/ip addr flush dev "$ULP_NETDEV"
		ulp_rmmod xrdma_ib
		xnic_stack_down 2>>"$XRDMA_TMP/errors"
		;;
	esac
	[ -z "$(ulp_loaded rdma_rxe xrdma_ib xnic xnic_sim xrdma_uverbs xrdma_core)" ] || {
		echo "still loaded: $(ulp_loaded rdma_rxe xrdma_ib xnic xnic_sim \
			xrdma_uverbs xrdma_core | tr '\n' ' ')" >>"$XRDMA_TMP/errors"
		return 1
	}
	[ ! -s "$XRDMA_TMP/errors" ]
}

ulp_counters() {
	case $ULP_TRANSPORT in
	rxe)
		for _uc in /sys/class/infiniband/rxe0/ports/1/hw_counters/*; do
			[ -f "$_uc" ] && echo "${_uc##*/} $(cat "$_uc")"
		done
		;;
	xnic)
		cat "$XRDMA_DEBUGFS"/xnic_sim/0/counters
		;;
	esac
}

ulp_traffic() {
	case $ULP_TRANSPORT in
	rxe)
		ulp_counters | awk '$1 == "sent_pkts" || $1 == "rcvd_pkts" { s += $2 }
			END { print s + 0 }'
		;;
	xnic)
		ulp_counters | awk -v want="$ULP_XNIC_DATA_CTRS" '
			BEGIN { n = split(want, w); for (i = 1; i <= n; i++) ok[w[i]] = 1 }
			$1 in ok { s += $2 } END { print s + 0 }'
		;;
	*) echo 0 ;;
	esac
}

ulp_traffic_min() {
	case $ULP_TRANSPORT in
	rxe) echo $(($1 / 4096)) ;;
	*) echo "$1" ;;
	esac
}

# --------------------------------------------------------- two devices
ULP_NSA=xrdma_a
ULP_NSB=xrdma_b
ULP_XA=198.18.1.1
ULP_XB=198.18.1.2

ulp_inns() {
	_uns=$1
	shift
	if [ -n "$_uns" ]; then
		/usr/bin/ip netns exec "$_uns" "$@"
	else
		"$@"
	fi
}

ulp_dev_bytes() {
	awk '$1 ~ /^(tx|rx)_.*bytes$/ { s += $2 } END { print s + 0 }' \
		"$XRDMA_DEBUGFS/xnic_sim/$1/counters"
}

# _ulp_gid_of DEV HEX: DEV's port 1 GID table holds ::ffff:<HEX>
_ulp_gid_of() {
	cat /sys/class/infiniband/"$1"/ports/1/gids/* 2>/dev/null |
		grep -qx "0000:0000:0000:0000:0000:ffff:$2"
}

ulp_cross_down() {
	/usr/bin/ip netns del $ULP_NSA 2>/dev/null
	/usr/bin/ip netns del $ULP_NSB 2>/dev/null
	ulp_rmmod rdma_ucm ib_uverbs rdma_cm iw_cm ib_cm xrdma_ib
	xnic_stack_end xnic0 xnic1
}

_ulp_cross_bail() {
	ulp_cross_down
	fail "$*"
}

ulp_cross_up() {
	has_ko xrdma_ib ||
		fail "xrdma_ib.ko not built: ib_core cannot reach xnic (drivers/ib)"
	# the header's rdma_ucm holds ib_uverbs, and so does an rdma_rxe an
	# earlier test left: rdma_ucm is loaded again after xrdma_ib
	[ ! -d /sys/class/infiniband/rxe0 ] || fail "rxe0 exists"
	ulp_rmmod rdma_ucm rdma_rxe ib_uverbs rdma_cm iw_cm ib_cm
	mount_debugfs
	modprobe ib_core || fail "modprobe ib_core"
	xnic_stack_up 2
	insmod "$(xko xrdma_ib)" || _ulp_cross_bail "insmod xrdma_ib"
	modprobe rdma_ucm || _ulp_cross_bail "modprobe rdma_ucm"
	[ -c /dev/infiniband/rdma_cm ] || _ulp_cross_bail "no /dev/infiniband/rdma_cm"
	ulp_wait 10 _ulp_xnic_netdev xnic0 >/dev/null ||
		_ulp_cross_bail "xnic0 has no netdev"
	ulp_wait 10 _ulp_xnic_netdev xnic1 >/dev/null ||
		_ulp_cross_bail "xnic1 has no netdev"
	_uc0=$(_ulp_xnic_netdev xnic0)
	_uc1=$(_ulp_xnic_netdev xnic1)
	/usr/bin/ip netns add $ULP_NSA ||
		_ulp_cross_bail "ip netns add (no network namespaces?)"
	/usr/bin/ip netns add $ULP_NSB || _ulp_cross_bail "ip netns add $ULP_NSB"
	/usr/bin/ip link set "$_uc0" netns $ULP_NSA ||
		_ulp_cross_bail "moving $_uc0 to $ULP_NSA"
	/usr/bin/ip link set "$_uc1" netns $ULP_NSB ||
		_ulp_cross_bail "moving $_uc1 to $ULP_NSB"
	/usr/bin/ip -n $ULP_NSA addr add $ULP_XA/24 dev "$_uc0" ||
		_ulp_cross_bail "address on $_uc0"
	/usr/bin/ip -n $ULP_NSB addr add $ULP_XB/24 dev "$_uc1" ||
		_ulp_cross_bail "address on $_uc1"
	for _uns in $ULP_NSA $ULP_NSB; do
		/usr/bin/ip -n "$_uns" link set lo up
	done
	/usr/bin/ip -n $ULP_NSA link set "$_uc0" up || _ulp_cross_bail "$_uc0 up"
	/usr/bin/ip -n $ULP_NSB link set "$_uc1" up || _ulp_cross_bail "$_uc1 up"
	# ib_core follows the netdevs into their namespaces: the GIDs of
	# the addresses (::ffff:198.18.1.1, .2)
	ulp_wait 10 _ulp_gid_of xnic0 c612:0101 ||
		_ulp_cross_bail "xnic0: no GID for $ULP_XA"
	ulp_wait 10 _ulp_gid_of xnic1 c612:0102 ||
		_ulp_cross_bail "xnic1: no GID for $ULP_XB"
	note "xnic0/$_uc0 $ULP_XA in $ULP_NSA <-> xnic1/$_uc1 $ULP_XB in $ULP_NSB ($(/usr/bin/rdma system show))"
}

# ---------------------------------------------------- a flapping port
ULP_WHY=
ULP_IO_BS=262144
ULP_IO_MAX=150

ulp_klog_mark() { echo "ulp: mark $1" >/dev/kmsg; }

ulp_klog_since() {
	dmesg | awk -v m="ulp: mark $1" '
		length($0) >= length(m) &&
		substr($0, length($0) - length(m) + 1) == m { n = 0; next }
		{ l[n++] = $0 }
		END { for (i = 0; i < n; i++) print l[i] }'
}

ulp_port_state() {
	sed -n 's/^[0-9]*: *//p' "/sys/class/infiniband/$ULP_IBDEV/ports/1/state" \
		2>/dev/null
}

_ulp_port_is() { [ "$(ulp_port_state)" = "$1" ]; }

ulp_link() {
	case $1 in
	up) _ulw=ACTIVE ;;
	down) _ulw=DOWN ;;
	*) fail "ulp_link: up or down, not '$1'" ;;
	esac
	xrdma-fault link "$ULP_IBDEV" "$1" >"$XRDMA_TMP/fault.err" 2>&1 || {
		ULP_WHY="xrdma-fault link $ULP_IBDEV $1 rc=$?: $(cat "$XRDMA_TMP/fault.err")"
		return 1
	}
	ulp_wait 10 _ulp_port_is "$_ulw" || {
		ULP_WHY="$ULP_IBDEV port 1 is '$(ulp_port_state)' 10 s after 'link $1', want $_ulw"
		return 1
	}
}

# _ulp_io_dd W|R DD-OPERAND...: GNU dd in the background, its pid where
# ulp_io_kill finds it; its exit status.  With ULP_IO_EAGAIN=1 a dd that
# failed with EAGAIN runs again, 0.5 s later, 30 times at most (counted
# in io.W|R.again)
_ulp_io_dd() {
	_uln=$1
	shift
	_ult=0
	while :; do
		/usr/bin/dd "$@" 2>"$XRDMA_TMP/io.$_uln.dd" &
		echo $! >"$XRDMA_TMP/io.$_uln.ddpid"
		wait $! && return 0
		[ "${ULP_IO_EAGAIN:-0}" = 1 ] && [ $_ult -lt 30 ] &&
			grep -q 'Resource temporarily unavailable' "$XRDMA_TMP/io.$_uln.dd" ||
			return 1
		_ult=$((_ult + 1))
		echo $(($(ulp_io_again "$_uln") + 1)) >"$XRDMA_TMP/io.$_uln.again"
		sleep 0.5
	done
}

# ulp_io_again W|R: the dd runs of the loop that failed with EAGAIN
ulp_io_again() { cat "$XRDMA_TMP/io.$1.again" 2>/dev/null || echo 0; }

# _ulp_io_done W|R K: the loop completed round K
_ulp_io_done() {
	echo "$2" >"$XRDMA_TMP/io.$1.n.new"
	mv "$XRDMA_TMP/io.$1.n.new" "$XRDMA_TMP/io.$1.n"
}

_ulp_io_more() {
	[ ! -e "$XRDMA_TMP/io.stop" ] && [ "$1" -lt $ULP_IO_MAX ]
}

# _ulp_writer DIR [WFLAG]
_ulp_writer() {
	_ulk=0
	while _ulp_io_more $_ulk; do
		_ulk=$((_ulk + 1))
		_uls=$(((_ulk - 1) % ULP_IO_NS))
		_ulp_io_dd w if="$XRDMA_TMP/io.s$_uls" of="$1/w.$_ulk" \
			bs=$ULP_IO_BS ${2:+"$2"} || {
			echo "write of $1/w.$_ulk failed: $(cat "$XRDMA_TMP/io.w.dd")" \
				>"$XRDMA_TMP/io.w.err"
			return 1
		}
		_ulp_io_done w $_ulk
		sleep 0.1
	done
}

# _ulp_reader PAT FILE [RFLAG]
_ulp_reader() {
	_ulk=0
	while _ulp_io_more $_ulk; do
		_ulk=$((_ulk + 1))
		_ulp_io_dd r if="$2" of="$XRDMA_TMP/io.back" bs=1M ${3:+"$3"} || {
			echo "read $_ulk of $2 failed: $(cat "$XRDMA_TMP/io.r.dd")" \
				>"$XRDMA_TMP/io.r.err"
			return 1
		}
		/usr/bin/cmp -s "$1" "$XRDMA_TMP/io.back" || {
			echo "read $_ulk of $2 differs from what was written" \
				>"$XRDMA_TMP/io.r.err"
			return 1
		}
		_ulp_io_done r $_ulk
		sleep 0.1
	done
}

ulp_io_start() {
	rm -f "$XRDMA_TMP"/io.*
	_ulz=$(wc -c <"$1" | tr -d " ")
	ULP_IO_NS=$((_ulz / ULP_IO_BS))
	if [ $ULP_IO_NS = 0 ] || [ $((ULP_IO_NS * ULP_IO_BS)) != "$_ulz" ]; then
		ULP_WHY="ulp_io_start: $1 ($_ulz bytes) is no multiple of $ULP_IO_BS"
		return 1
	fi
	_uli=0
	while [ $_uli -lt $ULP_IO_NS ]; do
		/usr/bin/dd if="$1" of="$XRDMA_TMP/io.s$_uli" bs=$ULP_IO_BS \
			skip=$_uli count=1 2>/dev/null || {
			ULP_WHY="ulp_io_start: cannot cut slice $_uli of $1"
			return 1
		}
		_uli=$((_uli + 1))
	done
	(
		_ulp_writer "$3" "${4:-}"
		echo $? >"$XRDMA_TMP/io.w.rc"
	) &
	echo $! >"$XRDMA_TMP/io.w.pid"
	(
		_ulp_reader "$1" "$2" "${5:-}"
		echo $? >"$XRDMA_TMP/io.r.rc"
	) &
	echo $! >"$XRDMA_TMP/io.r.pid"
}

ulp_io_count() { cat "$XRDMA_TMP/io.$1.n" 2>/dev/null || echo 0; }

_ulp_io_ended() { [ -s "$XRDMA_TMP/io.$1.rc" ]; }

ulp_io_past() {
	_ulp_io_ended w || _ulp_io_ended r && return 0
	[ "$(ulp_io_count w)" -ge "$1" ] && [ "$(ulp_io_count r)" -ge "$2" ]
}

_ulp_io_both_ended() { _ulp_io_ended w && _ulp_io_ended r; }

ulp_io_stop() {
	: >"$XRDMA_TMP/io.stop"
	if ! ulp_wait "$1" _ulp_io_both_ended; then
		ULP_WHY="the background I/O did not end $1 s after it was asked to: $(_ulp_io_stuck)"
		return 1
	fi
	for _ulx in w r; do
		wait "$(cat "$XRDMA_TMP/io.$_ulx.pid")" 2>/dev/null
	done
	ULP_WHY=
	for _ulx in w r; do
		[ "$(cat "$XRDMA_TMP/io.$_ulx.rc")" = 0 ] && continue
		ULP_WHY="$ULP_WHY$(cat "$XRDMA_TMP/io.$_ulx.err" 2>/dev/null ||
			echo "the $_ulx loop ended with $(cat "$XRDMA_TMP/io.$_ulx.rc")"); "
	done
	[ -z "$ULP_WHY" ]
}

ulp_io_check() {
	_uln=$(ulp_io_count w)
	_ulk=1
	while [ "$_ulk" -le "$_uln" ]; do
		_uls=$(((_ulk - 1) % ULP_IO_NS))
		/usr/bin/dd if="$1/w.$_ulk" of="$XRDMA_TMP/io.check" bs=1M \
			${2:+"$2"} 2>"$XRDMA_TMP/io.check.dd" || {
			ULP_WHY="reading $1/w.$_ulk failed: $(cat "$XRDMA_TMP/io.check.dd")"
			return 1
		}
		/usr/bin/cmp -s "$XRDMA_TMP/io.s$_uls" "$XRDMA_TMP/io.check" || {
			ULP_WHY="$1/w.$_ulk differs from what round $_ulk wrote"
			return 1
		}
		_ulk=$((_ulk + 1))
	done
	rm -f "$XRDMA_TMP/io.check"
}

# _ulp_io_stuck: which loop's dd has not ended, after which round; the
# kernel stack of each such dd on stderr
_ulp_io_stuck() {
	for _ulx in w r; do
		_ulp_io_ended $_ulx && continue
		_ulq=$(cat "$XRDMA_TMP/io.$_ulx.ddpid" 2>/dev/null)
		if [ -z "$_ulq" ] || [ ! -d "/proc/$_ulq" ]; then
			continue
		fi
		printf '%s; ' "the $_ulx loop's dd (pid $_ulq) has not returned after round $(ulp_io_count $_ulx)"
		{
			echo "# kernel stack of dd $_ulq ($_ulx):"
			sed 's/^/#   /' "/proc/$_ulq/stack"
		} >&2 2>/dev/null
	done
}

# _ulp_io_errs: why the loops that ended failed, if they did
_ulp_io_errs() {
	for _ulx in w r; do
		[ ! -s "$XRDMA_TMP/io.$_ulx.err" ] || printf '%s; ' "$(cat "$XRDMA_TMP/io.$_ulx.err")"
	done
}

_ulp_ds() { awk '{ printf "%d", $1 * 10 }' /proc/uptime; }

# _ulp_secs DS0 DS1: the time from DS0 to DS1 (tenths), in seconds
_ulp_secs() { echo "$((($2 - $1) / 10)).$((($2 - $1) % 10)) s"; }

ulp_flap() {
	ulp_wait 30 ulp_io_past 3 1
	_ulw0=$(ulp_io_count w) _ulr0=$(ulp_io_count r)
	if [ "$_ulw0" -lt 3 ] || [ "$_ulr0" -lt 1 ]; then
		ULP_WHY="the background I/O did not get going: $_ulw0 writes, $_ulr0 reads; $(_ulp_io_errs)"
		return 1
	fi
	ulp_klog_mark flap
	ulp_link down || return 1
	_ult0=$(_ulp_ds)
	sleep "$1"
	_ulw1=$(ulp_io_count w) _ulr1=$(ulp_io_count r)
	ulp_link up || return 1
	_ult1=$(_ulp_ds)
	note "$ULP_IBDEV port 1 down for $(_ulp_secs "$_ult0" "$_ult1"): writes $_ulw0 -> $_ulw1, reads $_ulr0 -> $_ulr1 meanwhile"
	ulp_wait 60 ulp_io_past $((_ulw1 + 3)) $((_ulr1 + 1))
	_ult2=$(_ulp_ds)
	_ulw2=$(ulp_io_count w) _ulr2=$(ulp_io_count r)
	if [ "$_ulw2" -lt $((_ulw1 + 3)) ] || [ "$_ulr2" -lt $((_ulr1 + 1)) ]; then
		if _ulp_io_ended w || _ulp_io_ended r; then
			ULP_WHY="the background I/O failed $(_ulp_secs "$_ult1" "$_ult2") after the link came up: $(_ulp_io_errs)$(_ulp_io_stuck)"
		else
			ULP_WHY="the I/O did not go on by itself within $(_ulp_secs "$_ult1" "$_ult2") of the link coming up: writes $_ulw1 -> $_ulw2, reads $_ulr1 -> $_ulr2; $(_ulp_io_stuck)"
		fi
		return 1
	fi
	note "the I/O went on $(_ulp_secs "$_ult1" "$_ult2") after the link came up: writes $_ulw2, reads $_ulr2"
	ulp_io_stop 30
}

ulp_io_kill() {
	# asked to end, they may yet: a killed dd can leave a request of the
	# filesystem behind it (cifs 6.1's umount then BUGs on busy inodes)
	if [ -e "$XRDMA_TMP/io.w.pid" ] && ! _ulp_io_both_ended; then
		: >"$XRDMA_TMP/io.stop"
		ulp_wait 30 _ulp_io_both_ended
	fi
	for _ulx in w r; do
		# a loop that ended has no dd either
		_ulp_io_ended $_ulx && continue
		for _ulf in pid ddpid; do
			_ulq=$(cat "$XRDMA_TMP/io.$_ulx.$_ulf" 2>/dev/null) &&
				kill -9 "$_ulq" 2>/dev/null
		done
	done
	for _ulx in w r; do
		_ulq=$(cat "$XRDMA_TMP/io.$_ulx.pid" 2>/dev/null) &&
			wait "$_ulq" 2>/dev/null
	done
	return 0
}

# ------------------------------------------------------- NVMe-oF
ULP_NVME_CFS=/sys/kernel/config/nvmet
ULP_NVME_PORT=$ULP_NVME_CFS/ports/1
ULP_NVME_DEV1=
ULP_NVME_DEV2=

ulp_nvme_target_up() {
	_uns=$ULP_NVME_CFS/subsystems/$1
	# loaded before with other parameters (the test's header)?
	! module_loaded null_blk || assert rmmod null_blk
	assert modprobe null_blk nr_devices=1 gb=1 memory_backed=1
	assert modprobe nvmet
	assert modprobe nvmet-rdma
	grep -q ' /sys/kernel/config configfs ' /proc/mounts ||
		assert mount -t configfs none /sys/kernel/config
	ulp_wait 5 test -b /dev/nullb0 || fail "no /dev/nullb0"
	assert mkdir "$_uns"
	echo 1 >"$_uns/attr_allow_any_host" || fail "attr_allow_any_host"
	assert mkdir "$_uns/namespaces/1"
	echo /dev/nullb0 >"$_uns/namespaces/1/device_path" || fail "ns 1 path"
	echo 1 >"$_uns/namespaces/1/enable" || fail "ns 1 (null_blk) enable"
	# tmpfs has no O_DIRECT in 6.1: the file namespace uses the page cache
	assert truncate -s 64M "$3"
	assert mkdir "$_uns/namespaces/2"
	echo "$3" >"$_uns/namespaces/2/device_path" || fail "ns 2 path"
	echo 1 >"$_uns/namespaces/2/buffered_io" || fail "ns 2 buffered_io"
	echo 1 >"$_uns/namespaces/2/enable" || fail "ns 2 (file) enable"
	assert mkdir "$ULP_NVME_PORT"
	echo rdma >"$ULP_NVME_PORT/addr_trtype"
	echo ipv4 >"$ULP_NVME_PORT/addr_adrfam"
	echo "$2" >"$ULP_NVME_PORT/addr_traddr"
	echo 4420 >"$ULP_NVME_PORT/addr_trsvcid"
	# linking the subsystem enables the port: nvmet-rdma listens
	ln -s "$_uns" "$ULP_NVME_PORT/subsystems/$1" ||
		fail "nvmet-rdma cannot listen on $2:4420"
}

ulp_nvme_target_down() {
	_uns=$ULP_NVME_CFS/subsystems/$1
	rm -f "$ULP_NVME_PORT/subsystems/$1" 2>/dev/null
	[ -d "$ULP_NVME_PORT" ] && rmdir "$ULP_NVME_PORT"
	for _unn in 1 2; do
		[ -d "$_uns/namespaces/$_unn" ] || continue
		echo 0 >"$_uns/namespaces/$_unn/enable"
		rmdir "$_uns/namespaces/$_unn"
	done
	[ -d "$_uns" ] && rmdir "$_uns"
	[ ! -d "$_uns" ] ||
		echo "nvmet subsystem left in configfs" >>"$XRDMA_TMP/errors"
	[ -z "${2:-}" ] || rm -f "$2"
}

ulp_nvme_ns_dev() {
	for _unb in /sys/block/nvme*n*; do
		case ${_unb##*/} in *c*) continue ;; esac
		[ "$(cat "$_unb/nsid" 2>/dev/null)" = "$2" ] || continue
		grep -qx "$1" "$_unb/device/subsysnqn" 2>/dev/null ||
			grep -qx "$1" "$_unb/device/device/subsysnqn" 2>/dev/null ||
			continue
		[ -b "/dev/${_unb##*/}" ] || continue
		echo "/dev/${_unb##*/}"
		return 0
	done
	return 1
}

ulp_nvme_no_ctrl() { ! ls -d /sys/class/nvme/nvme* >/dev/null 2>&1; }

ulp_nvme_connect() {
	assert modprobe nvme-rdma
	_unq=$1 _una=$2 _unh=$3 _uni=$4
	shift 4
	_unt=0
	while :; do
		_und=$(dmesg | wc -l)
		nvme connect -t rdma -a "$_una" -s 4420 -n "$_unq" \
			--hostnqn="$_unh" --hostid="$_uni" "$@" && break
		# a listener just made can reject with "invalid service ID"
		# for a moment on 6.1: only that is tried again
		if [ $_unt -ge 3 ] || ! dmesg | tail -n +$((_und + 1)) |
			grep -q 'Connect rejected: status 8 ('; then
			fail "nvme connect -t rdma -a $_una -s 4420 -n $_unq $* failed"
		fi
		_unt=$((_unt + 1))
		note "nvme connect rejected (invalid service ID), connecting again"
		sleep 1
	done
	ulp_wait 20 ulp_nvme_ns_dev "$_unq" 1 >/dev/null ||
		fail "namespace 1 did not appear"
	ulp_wait 20 ulp_nvme_ns_dev "$_unq" 2 >/dev/null ||
		fail "namespace 2 did not appear"
	# shellcheck disable=SC2034 # the test's
	ULP_NVME_DEV1=$(ulp_nvme_ns_dev "$_unq" 1)
	# shellcheck disable=SC2034
	ULP_NVME_DEV2=$(ulp_nvme_ns_dev "$_unq" 2)
}

ulp_nvme_disconnect() {
	ulp_nvme_no_ctrl && return 0
	nvme disconnect -n "$1" >"$XRDMA_TMP/disc" 2>&1 || {
		echo "nvme disconnect -n $1 failed: $(cat "$XRDMA_TMP/disc")" \
			>>"$XRDMA_TMP/errors"
		return 1
	}
	ulp_wait 20 ulp_nvme_no_ctrl || {
		echo "an nvme controller is left 20 s after nvme disconnect" \
			>>"$XRDMA_TMP/errors"
		return 1
	}
}

ulp_xnic_readdress() {
	ulp_wait 30 test -d /sys/class/infiniband/xnic0 ||
		fail "no ib_device xnic0 30 s after its recovery"
	ulp_wait 10 _ulp_xnic_netdev xnic0 >/dev/null ||
		fail "the new xnic0's port 1 has no netdev"
	ULP_NETDEV=$(_ulp_xnic_netdev xnic0)
	/usr/bin/ip addr add "$ULP_IP/$ULP_PREFIX" dev "$ULP_NETDEV" ||
		fail "ip addr add on $ULP_NETDEV"
	/usr/bin/ip link set "$ULP_NETDEV" up || fail "$ULP_NETDEV up"
	ulp_wait 10 _ulp_has_gid xnic0 ||
		fail "the new xnic0: no GID for $ULP_IP on port 1 after 10 s"
	export ULP_NETDEV
}
