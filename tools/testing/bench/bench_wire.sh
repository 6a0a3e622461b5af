# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_VMS: 2
# XRDMA_TIMEOUT: 420
# XRDMA_ROCE: 1
# XRDMA_DEBIAN_MODULES: virtio_pci virtio_net crc32_generic rdma_rxe ib_uverbs
# XRDMA_DEBIAN_MODULES: rdma_ucm ib_core null_blk nvmet nvmet-rdma nvme-rdma
# XRDMA_PROGRAMS: /usr/bin/ip /usr/bin/rdma nvme dd ib_write_lat ib_read_lat
# XRDMA_PROGRAMS: ib_send_lat ib_write_bw ib_read_bw ib_send_bw
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run
# XRDMA_PROGRAMS: tools/testing/bench/blkbench tools/testing/bench/udplink
# XRDMA_FILES: /etc/libibverbs.d/rxe.driver
# XRDMA_FILES: /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so
#
# make bench across the wire (issue 25): the two guests of the wire tests
# (run-2vm.sh's QEMU socket link), each with rxe and the xnic port
# (xnic_sim netdev=eth0, xrdma_ib) loaded, only one of them on eth0 at a
# time.  Guest a runs the servers and the NVMe-oF target, guest b the
# clients and the NVMe-oF host.  Pairings (stack of a - stack of b):
#   xnic-xnic  rxe-rxe  xnic-rxe  rxe-xnic
# taken in turn in every round (A B C D A B C D ...), so that drift hits
# all alike; a guest changes its stack by taking the other down (rdma
# link delete rxe0 / "none" to /sys/bus/platform/devices/xnic.0/netdev,
# Documentation/xnic/wire.rst) and bringing its own up on the same eth0
# with the same address.  Per pairing: ib_{write,read,send}_lat 64 B,
# ib_{write,read,send}_bw 64 KiB, and NVMe-oF 4 KiB randread QD32
# (blkbench on a null_blk namespace exported by nvmet-rdma); per round
# the link itself with rxe-rxe's addresses on eth0: ping RTT, a TCP
# stream (busybox httpd | wget), and what a UDP socket that spins gets
# from it (udplink: 64 B ping-pong, half a round trip as perftest's
# latency; streams of 4096 B datagrams, the size of the RDMA stacks'
# frames at eth0's MTU 4500, and of 64 B) -- the floor under the RDMA
# rows.  And each guest's CPU busy share during each measurement
# (/proc/stat), the evidence of what limits it.
#
# Output (guest b; lines of guest a's failures on a): as bench-guest.sh,
#   BENCH <pairing> <metric> <run> <value> <unit>
#   BENCH <pairing> <metric>_cpu_a|_cpu_b <run> <busy %> pct
#   BENCH link ping_rtt_us|tcp_MBps|udp_lat_64_us|udp_lat_64_p99_us|
#              udp_stream_{4096,64}_{MBps,sent_MBps,kpps} <run> <value> <unit>
#   BENCH_FAIL <pairing> <metric> <run> <why>
# Environment (xrdma.env.*): BENCH_MODE smoke (default: tiny counts, one
# round; make check runs it so that it does not rot) or full (make bench,
# tools/testing/bench/bench-host.sh), BENCH_WIRE_RUNS (rounds), BENCH_PAIRS
# (pairings, default the four), BENCH_XNIC_IDLE_US (xnic_sim's idle_us,
# for an experiment).  The test passes when every measurement
# produced a positive number; no value is asserted.

# shellcheck source=/dev/null # lib/wire.sh, in the guest
. /xrdma/tests/lib/wire.sh
# shellcheck source=/dev/null # its NQN, host NQN/ID, _wn_teardown; lib/ulp.sh (through wire.sh) the nvmet paths
. /xrdma/tests/lib/wire_nvme.sh
# the target's subsystem and port: lib/ulp.sh's (ulp_nvme_target_down
# takes them down in _wn_teardown)
WN_SUB=$ULP_NVME_CFS/subsystems/$WN_NQN
WN_PORT=$ULP_NVME_PORT
wire_require_xnic
command -v blkbench >/dev/null || fail "blkbench not shipped (not built?)"
command -v nvme >/dev/null || fail "nvme-cli not shipped"

MODE=${BENCH_MODE:-smoke}
RUNS=${BENCH_WIRE_RUNS:-1}
PAIRS=${BENCH_PAIRS:-xnic-xnic rxe-rxe xnic-rxe rxe-xnic}
PAIRS=$(echo "$PAIRS" | tr , ' ')
if [ "$MODE" = full ]; then
	# (a round trip of ib_write_lat between the guests: ~1 ms,
	# Documentation/performance.rst)
	LAT_N=500 BW_N=500 ULP_SECS=10 TCP_MIB=32 PING_N=20 UDP_N=16000
else
	LAT_N=50 BW_N=40 ULP_SECS=2 TCP_MIB=4 PING_N=5 UDP_N=400
	RUNS=1
fi
# (an experiment's knob: bandwidth iterations)
BW_N=${BENCH_BW_N:-$BW_N}
XNIC_ATTR=/sys/bus/platform/devices/xnic.0/netdev
BW_PORT=18900
: >"$XRDMA_TMP/errors"

# out LINE: to the console (fd 9 is closed for tests)
out() { echo "$*"; }

# row COLUMN FILE: column COLUMN of perftest's last numeric result row
row() {
	awk -v c="$1" '/^[[:space:]]*[0-9]+[[:space:]]+[0-9]+[[:space:]]+[0-9.]+[[:space:]]/ \
		{ v = $c } END { print v }' "$2"
}

positive() {
	awk -v v="$1" 'BEGIN { exit !(v ~ /^[0-9]*\.?[0-9]+$/ && v + 0 > 0) }'
}

# cpu_mark: "busy total" jiffies of this guest so far; cpu_pct MARK:
# the busy share since MARK, in %
cpu_mark() { awk '$1 == "cpu" { t = 0; for (i = 2; i <= 9; i++) t += $i
	print t - $5 - $6, t; exit }' /proc/stat; }
cpu_pct() {
	echo "$1 $(cpu_mark)" | awk '{ d = $4 - $2; if (d < 1) d = 1
		printf "%.0f\n", 100 * ($3 - $1) / d }'
}

# bw_snap: "name value" lines, what a bandwidth row's BENCH_INFO ctr
# line compares: the device's counters (wire_counters), the model's wire
# (debugfs: its RX queue), eth0's frames and bytes each way, the CPU
# time of xnic_sim's engine thread and of the softirqs (jiffies), and
# the time (centiseconds)
bw_snap() {
	wire_counters
	[ "$WIRE_STACK" != xnic ] ||
		awk '$2 ~ /^[0-9]+$/ && $1 ~ /^rx/ { print "wire_" $1, $2 }' \
			"$XRDMA_DEBUGFS"/xnic_sim/0/wire 2>/dev/null
	for _bs in rx_packets tx_packets rx_bytes tx_bytes rx_dropped tx_dropped; do
		echo "eth_$_bs $(cat "/sys/class/net/$WIRE_ETH/statistics/$_bs")"
	done
	grep -lx 'xnic_sim/0' /proc/[0-9]*/comm 2>/dev/null | while read -r _bs; do
		awk '{ print "engine_jiffies", $14 + $15 }' "${_bs%comm}stat"
	done
	awk '$1 == "cpu" { print "softirq_jiffies", $8 }' /proc/stat
	awk '{ printf "time_cs %d\n", $1 * 100 }' /proc/uptime
}

# bw_info PAIR METRIC RUN BEFORE: what moved since BEFORE (bw_snap, one
# line), with the frames each way per second of the row
bw_info() {
	out "BENCH_INFO ctr $1 $2 $3 $XRDMA_ROLE $WIRE_IBDEV: $(bw_snap |
		awk -v b="$4" 'BEGIN { n = split(b, w, " ")
		for (i = 1; i + 1 <= n; i += 2) o[w[i]] = w[i + 1] }
		{ d[$1] = $2 - o[$1] }
		$1 ~ /_max$/ { printf "%s %d ", $1, $2; next }
		$2 - o[$1] != 0 && $1 != "time_cs" { printf "%s +%d ", $1, $2 - o[$1] }
		END { t = d["time_cs"]; if (t < 1) t = 1
			printf "secs %.2f eth_rx_pps %.0f eth_tx_pps %.0f",
				t / 100, d["eth_rx_packets"] * 100 / t,
				d["eth_tx_packets"] * 100 / t }')"
}

# ------------------------------------------------------------ stacks
# bw_stack STACK: this guest's stack on eth0 becomes STACK (rxe, xnic)
ST_CUR=none
bw_stack() {
	[ "$ST_CUR" = "$1" ] && return 0
	case $ST_CUR in
	rxe)
		/usr/bin/rdma link delete rxe0 || fail "rdma link delete rxe0"
		/usr/bin/ip addr flush dev "$WIRE_ETH"
		;;
	xnic)
		/usr/bin/ip addr flush dev "$XNIC_ND"
		echo none >"$XNIC_ATTR" || fail "cannot detach xnic.0 from $WIRE_ETH"
		;;
	esac
	ST_CUR=none
	# shellcheck disable=SC2034 # lib/wire.sh's (_wire_ip, wire_run)
	WIRE_STACK=$1
	case $1 in
	rxe)
		_wire_ip "$WIRE_ETH" 4500
		/usr/bin/rdma link add rxe0 type rxe netdev "$WIRE_ETH" ||
			fail "rdma link add rxe0 type rxe netdev $WIRE_ETH"
		WIRE_IBDEV=rxe0
		;;
	xnic)
		echo "$WIRE_ETH" >"$XNIC_ATTR" || fail "cannot attach xnic.0 to $WIRE_ETH"
		_wire_ip "$XNIC_ND" 4500
		WIRE_IBDEV=xnic0
		;;
	esac
	ST_CUR=$1
	wait_for 10 _wire_gidx "$WIRE_IBDEV" >/dev/null ||
		fail "$WIRE_IBDEV: no GID for $XRDMA_IP after 10 s"
	WIRE_GIDX=$(_wire_gidx "$WIRE_IBDEV")
}

stacks_load() {
	mount_debugfs
	for _m in crc32_generic rdma_rxe ib_core; do
		modprobe $_m || fail "modprobe $_m"
	done
	/usr/bin/ip link set "$WIRE_ETH" mtu 4500 || fail "MTU 4500 on $WIRE_ETH"
	/usr/bin/ip link set "$WIRE_ETH" up || fail "$WIRE_ETH up"
	for _m in xrdma_core xrdma_uverbs xnic_sim xnic xrdma_ib; do
		_ko=$(xko $_m) || exit 1
		_arg=
		# (the port's identity from eth0's MAC: distinct in each guest)
		[ $_m = xnic_sim ] && _arg="ndev=1 netdev=$WIRE_ETH"
		# shellcheck disable=SC2086 # no argument when empty
		insmod "$_ko" $_arg || fail "insmod $_m $_arg"
	done
	wait_for 10 _ulp_xnic_netdev xnic0 >/dev/null ||
		fail "xnic0 port 1 has no netdev"
	XNIC_ND=$(_ulp_xnic_netdev xnic0)
	echo none >"$XNIC_ATTR" || fail "cannot detach xnic.0"
	# (an experiment's knob: the engine's polling before it sleeps)
	if [ -n "${BENCH_XNIC_IDLE_US:-}" ]; then
		echo "$BENCH_XNIC_IDLE_US" >/sys/module/xnic_sim/parameters/idle_us ||
			fail "xnic_sim idle_us=$BENCH_XNIC_IDLE_US"
		[ "$XRDMA_ROLE" = a ] ||
			out "BENCH_INFO wire xnic_sim idle_us=$BENCH_XNIC_IDLE_US"
	fi
}

# ------------------------------------------------------------ perftest
# wpt PAIR METRIC RUN UNIT COLUMN TOOL ARGS...: a runs the server, b the
# client; the value is column COLUMN of the client's result row (of the
# server's when the client's is no positive number: perftest's "inf").
# Taken again up to twice when it failed; both sides agree through
# wire_sync on what happened.
wpt() {
	_pp=$1 _pm=$2 _pr=$3 _pu=$4 _pc=$5
	shift 5
	_ptry=1
	while :; do
		BW_PORT=$((BW_PORT + 1))
		# (a name of wire_server: [A-Za-z0-9_])
		_pn=$(echo "${_pp}_${_pm}_${_pr}_$_ptry" | tr - _)
		cp "$XRDMA_TMP/errors" "$XRDMA_TMP/errors.keep"
		_psnap=
		case $_pm in *_bw_*) _psnap=$(bw_snap | tr '\n' ' ') ;; esac
		_pcpu=$(cpu_mark)
		if [ "$XRDMA_ROLE" = a ]; then
			wire_server "$_pn" tcp "$BW_PORT" "$@" -d "$WIRE_IBDEV" \
				-x "$WIRE_GIDX" -F -p "$BW_PORT"
			wire_server_wait "$_pn" 'local address' >/dev/null
			_pok=$?
			_pv=$(row "$_pc" "$XRDMA_TMP/$_pn.srv")
			_pwhy="server: $(grep -v '^ *$' "$XRDMA_TMP/$_pn.srv" | tail -n 1 | cut -c1-80)"
		else
			wire_client "$_pn" "$WIRE_PT" "$@" -d "$WIRE_IBDEV" \
				-x "$WIRE_GIDX" -F -p "$BW_PORT" "$XRDMA_PEER_IP"
			_pok=$?
			_pv=$(row "$_pc" "$XRDMA_TMP/$_pn.cli")
			_pwhy="client: $(grep -v '^ *$' "$XRDMA_TMP/$_pn.cli" | tail -n 1 | cut -c1-80)"
		fi
		_pcpu=$(cpu_pct "$_pcpu")
		[ -z "$_psnap" ] || bw_info "$_pp" "$_pm" "$_pr" "$_psnap"
		positive "$_pv" || _pv=-
		_ppeer=$(wire_sync "${_pn}_done" "$_pok:$_pcpu:$_pv") || exit 1
		_pqok=${_ppeer%%:*}
		_pqv=${_ppeer##*:}
		_pqcpu=${_ppeer#*:}
		_pqcpu=${_pqcpu%%:*}
		if [ "$XRDMA_ROLE" = b ]; then
			_pval=$_pv _pcpua=$_pqcpu _pcpub=$_pcpu
		else
			_pval=$_pqv _pcpua=$_pcpu _pcpub=$_pqcpu
		fi
		# the server's row when the client's is "inf" (latency)
		if [ "$_pval" = - ]; then
			[ "$XRDMA_ROLE" = b ] && _pval=$_pqv || _pval=$_pv
		fi
		if [ "$_pok" = 0 ] && [ "$_pqok" = 0 ] && [ "$_pval" != - ]; then
			mv "$XRDMA_TMP/errors.keep" "$XRDMA_TMP/errors"
			if [ "$XRDMA_ROLE" = b ]; then
				out "BENCH $_pp $_pm $_pr $_pval $_pu"
				out "BENCH $_pp ${_pm}_cpu_a $_pr $_pcpua pct"
				out "BENCH $_pp ${_pm}_cpu_b $_pr $_pcpub pct"
			fi
			return 0
		fi
		if [ $_ptry -lt 3 ]; then
			mv "$XRDMA_TMP/errors.keep" "$XRDMA_TMP/errors"
			note "$_pp $_pm $_pr: no result (try $_ptry, $_pwhy), again"
			_ptry=$((_ptry + 1))
			continue
		fi
		rm -f "$XRDMA_TMP/errors.keep"
		[ "$_pok" = 0 ] || out "BENCH_FAIL $_pp $_pm $_pr $_pwhy"
		[ "$_pok" != 0 ] || [ "$_pqok" != 0 ] || [ "$XRDMA_ROLE" = a ] ||
			out "BENCH_FAIL $_pp $_pm $_pr no positive number in the client's or server's row"
		[ "$_pok" = 0 ] || echo "$_pp $_pm $_pr: $_pwhy" >>"$XRDMA_TMP/errors"
		return 1
	done
}

perftests() {
	wpt "$1" write_lat_64 "$2" us 5 ib_write_lat -s 64 -n $LAT_N
	wpt "$1" read_lat_64 "$2" us 5 ib_read_lat -s 64 -n $LAT_N
	wpt "$1" send_lat_64 "$2" us 5 ib_send_lat -s 64 -n $LAT_N
	wpt "$1" write_bw_64k "$2" MBps 4 ib_write_bw -s 65536 -n "$BW_N"
	wpt "$1" read_bw_64k "$2" MBps 4 ib_read_bw -s 65536 -n "$BW_N"
	wpt "$1" send_bw_64k "$2" MBps 4 ib_send_bw -s 65536 -n "$BW_N"
}

# ------------------------------------------------------------ NVMe-oF
# target (a): null_blk (not memory backed, as the one-guest bench), one
# subsystem; its port is linked (nvmet-rdma listens on XRDMA_IP, on the
# stack of the moment) for one pairing's measurement at a time
nv_target_setup() {
	! module_loaded null_blk || rmmod null_blk || fail "rmmod null_blk"
	modprobe null_blk nr_devices=1 gb=16 || fail "modprobe null_blk"
	modprobe nvmet-rdma || fail "modprobe nvmet-rdma"
	grep -q ' /sys/kernel/config configfs ' /proc/mounts ||
		assert mount -t configfs none /sys/kernel/config
	wait_for 5 test -b /dev/nullb0 || fail "no /dev/nullb0"
	assert mkdir "$WN_SUB"
	echo 1 >"$WN_SUB/attr_allow_any_host" || fail "attr_allow_any_host"
	assert mkdir "$WN_SUB/namespaces/1"
	echo /dev/nullb0 >"$WN_SUB/namespaces/1/device_path" || fail "ns 1 path"
	echo 1 >"$WN_SUB/namespaces/1/enable" || fail "ns 1 enable"
	assert mkdir "$WN_PORT"
	echo rdma >"$WN_PORT/addr_trtype"
	echo ipv4 >"$WN_PORT/addr_adrfam"
	echo "$XRDMA_IP" >"$WN_PORT/addr_traddr"
	echo 4420 >"$WN_PORT/addr_trsvcid"
}

# nv_connect: 0 when connected; why not on stdout
nv_connect() {
	_nt=0
	while :; do
		_nd0=$(dmesg | wc -l)
		nvme connect -t rdma -a "$XRDMA_PEER_IP" -s 4420 -n "$WN_NQN" \
			--hostnqn="$WN_HOSTNQN" --hostid="$WN_HOSTID" \
			>"$XRDMA_TMP/conn" 2>&1 && break
		# (lib/wire_nvme.sh: a fresh listener may reject for a moment)
		if [ $_nt -ge 3 ] || ! dmesg | tail -n +$((_nd0 + 1)) |
			grep -q 'Connect rejected: status 8 ('; then
			echo "nvme connect: $(tail -n 1 "$XRDMA_TMP/conn")"
			return 1
		fi
		_nt=$((_nt + 1))
		sleep 1
	done
	wait_for 20 ulp_nvme_ns_dev "$WN_NQN" 1 >/dev/null || {
		echo "namespace 1 did not appear"
		return 1
	}
}

# ctr_note WHAT BEFORE: note the device's counters that moved since
# BEFORE (wire_counters output, one line): what the NVMe-oF rows cost
ctr_note() {
	note "$1: $(wire_counters | awk -v b="$2" 'BEGIN { n = split(b, w, " ")
		for (i = 1; i + 1 <= n; i += 2) o[w[i]] = w[i + 1] }
		$2 - o[$1] > 0 { printf "%s +%d ", $1, $2 - o[$1] }')"
}

# nvme_rows PAIR RUN: steps listen (a's port up), conn (b connected),
# ran (blkbench done: both CPU shares from conn to here), done
nvme_rows() {
	_np=$1 _nr=$2
	_ns=$(echo "nv_${_np}_$_nr" | tr - _)
	_nv=- _nwhy=
	if [ "$XRDMA_ROLE" = a ]; then
		_nok=0
		ln -s "$WN_SUB" "$WN_PORT/subsystems/$WN_NQN" || {
			_nok=1
			out "BENCH_FAIL $_np nvme_randread_4k $_nr nvmet-rdma cannot listen on $XRDMA_IP ($WIRE_IBDEV)"
		}
		wire_sync "${_ns}_listen" "$_nok" >/dev/null || exit 1
		wire_sync "${_ns}_conn" >/dev/null || exit 1
		_ncpu=$(cpu_mark)
		_nctr=$(wire_counters | tr '\n' ' ')
		wire_sync "${_ns}_ran" >/dev/null || exit 1
		_ncpu=$(cpu_pct "$_ncpu")
		ctr_note "$_np nvme_randread_4k target $WIRE_IBDEV" "$_nctr"
		wire_sync "${_ns}_done" "$_ncpu" >/dev/null || exit 1
		rm -f "$WN_PORT/subsystems/$WN_NQN"
		return 0
	fi
	_nok=$(wire_sync "${_ns}_listen") || exit 1
	_nc=1
	if [ "$_nok" != 0 ]; then
		_nwhy="the target did not listen"
	elif _nwhy=$(nv_connect); then
		_nc=0
	fi
	wire_sync "${_ns}_conn" >/dev/null || exit 1
	_ncpu=$(cpu_mark)
	_nctr=$(wire_counters | tr '\n' ' ')
	if [ $_nc = 0 ]; then
		_nd=$(ulp_nvme_ns_dev "$WN_NQN" 1)
		if timeout $((ULP_SECS + 60)) blkbench -t $ULP_SECS -n nvme_randread_4k \
			-m randread -b 4k -q 32 "$_nd" >"$XRDMA_TMP/bb" 2>&1; then
			_nv=$(awk '$1 == "RESULT" { print $3 }' "$XRDMA_TMP/bb")
		fi
		positive "$_nv" || {
			_nv=-
			_nwhy="blkbench: $(tail -n 1 "$XRDMA_TMP/bb")"
		}
	fi
	_ncpu=$(cpu_pct "$_ncpu")
	ctr_note "$_np nvme_randread_4k host $WIRE_IBDEV" "$_nctr"
	wire_sync "${_ns}_ran" >/dev/null || exit 1
	nvme disconnect -n "$WN_NQN" >/dev/null 2>&1
	wait_for 20 ulp_nvme_no_ctrl || {
		_nwhy="${_nwhy:+$_nwhy; }a controller left 20 s after nvme disconnect"
		_nv=-
	}
	_nq=$(wire_sync "${_ns}_done") || exit 1
	if [ "$_nv" != - ]; then
		out "BENCH $_np nvme_randread_4k $_nr $_nv IOPS"
		out "BENCH $_np nvme_randread_4k_cpu_a $_nr $_nq pct"
		out "BENCH $_np nvme_randread_4k_cpu_b $_nr $_ncpu pct"
	else
		out "BENCH_FAIL $_np nvme_randread_4k $_nr $_nwhy"
		echo "$_np nvme_randread_4k $_nr: $_nwhy" >>"$XRDMA_TMP/errors"
	fi
}

# ------------------------------------------------------------ the link
# udp_row RUN ping|stream SIZE COUNT METRIC: one udplink run against
# guest a's server (port _up), its RESULT lines as rows, b's CPU busy
# share during it as METRIC_cpu_b
udp_row() {
	_lcpu=$(cpu_mark)
	if ! udplink "$2" -p "$_up" -s "$3" -n "$4" "$XRDMA_PEER_IP" \
		>"$XRDMA_TMP/udp1" 2>&1; then
		out "BENCH_FAIL link udp_$2_$3 $1 $(tail -n 1 "$XRDMA_TMP/udp1")"
		echo "link udp_$2_$3: $(tail -n 1 "$XRDMA_TMP/udp1")" >>"$XRDMA_TMP/errors"
		return
	fi
	_lcpu=$(cpu_pct "$_lcpu")
	awk -v r="$1" '/^RESULT udp_(lat|stream_[0-9]+_(MBps|sent_MBps|kpps))/ {
		print "BENCH link", $2, r, $3, $4 }' "$XRDMA_TMP/udp1"
	out "BENCH link ${5}_cpu_b $1 $_lcpu pct"
	grep -h '^#\|lost' "$XRDMA_TMP/udp1" >>"$XRDMA_TMP/udp"
}

# udp_rows RUN: the ping-pong of 64 B (LAT_N round trips, as the latency
# rows), streams of UDP_N datagrams of 4096 B (the bandwidth rows'
# frames) and of 64 B (the frame rate)
udp_rows() {
	_up=$((BW_PORT + 1000))
	: >"$XRDMA_TMP/udp"
	udp_row "$1" ping 64 "$LAT_N" udp_lat_64_us
	udp_row "$1" stream 4096 "$UDP_N" udp_stream_4096_MBps
	udp_row "$1" stream 64 "$UDP_N" udp_stream_64_kpps
	out "BENCH_INFO link udp $1: $(tr '\n' ' ' <"$XRDMA_TMP/udp")"
	udplink quit -p $_up "$XRDMA_PEER_IP"
}

# link_rows RUN: the socket link with plain IPv4 on eth0 (rxe-rxe's
# addresses): ping RTT, udp_rows, and a TCP stream a -> b (busybox httpd
# serving TCP_MIB MiB from tmpfs, wget on b counting the bytes and timing
# them; busybox nc sends 1 KiB of a pipe and stops)
link_rows() {
	BW_PORT=$((BW_PORT + 1))
	_lb=$((TCP_MIB * 1048576))
	if [ "$XRDMA_ROLE" = a ]; then
		mkdir -p "$XRDMA_TMP/www"
		[ -f "$XRDMA_TMP/www/blob" ] ||
			/usr/bin/dd if=/dev/zero of="$XRDMA_TMP/www/blob" bs=1M \
				count="$TCP_MIB" 2>/dev/null
		httpd -f -p "$XRDMA_IP:$BW_PORT" -h "$XRDMA_TMP/www" &
		_lp=$!
		# (more of a stream's burst waits in the socket instead of
		# being dropped: udplink asks for 4 MiB)
		echo 8388608 >/proc/sys/net/core/rmem_max
		udplink pong -p $((BW_PORT + 1000)) -t 300 >"$XRDMA_TMP/udp" 2>&1 &
		_lu=$!
		wait_for 20 _wire_listening tcp $BW_PORT ||
			echo "link: httpd not listening after 20 s" >>"$XRDMA_TMP/errors"
		wait_for 20 _wire_listening udp $((BW_PORT + 1000)) ||
			echo "link: udplink not listening after 20 s" >>"$XRDMA_TMP/errors"
		wire_sync "link_$1" >/dev/null || exit 1
		wire_sync "link_$1_done" >/dev/null || exit 1
		kill $_lp
		wait $_lp 2>/dev/null
		# (b's "udplink quit" ended it; a lost one: kill)
		kill $_lu 2>/dev/null
		wait $_lu 2>/dev/null
		return 0
	fi
	ping -c "$PING_N" -W 2 "$XRDMA_PEER_IP" >"$XRDMA_TMP/ping" 2>&1
	_lr=$(awk -F'=' '/min\/avg\/max/ { split($2, v, "/"); printf "%.0f\n", v[2] * 1000 }' \
		"$XRDMA_TMP/ping")
	if positive "$_lr"; then
		out "BENCH link ping_rtt_us $1 $_lr us"
	else
		out "BENCH_FAIL link ping_rtt_us $1 ping: $(tail -n 1 "$XRDMA_TMP/ping")"
		echo "link ping: $(tail -n 1 "$XRDMA_TMP/ping")" >>"$XRDMA_TMP/errors"
	fi
	wire_sync "link_$1" >/dev/null || exit 1
	udp_rows "$1"
	_lcpu=$(cpu_mark)
	_lt0=$(awk '{ printf "%d\n", $1 * 100 }' /proc/uptime)
	_ln=$(timeout 120 wget -q -O - "http://$XRDMA_PEER_IP:$BW_PORT/blob" | wc -c)
	_lt1=$(awk '{ printf "%d\n", $1 * 100 }' /proc/uptime)
	_lcpu=$(cpu_pct "$_lcpu")
	wire_sync "link_$1_done" >/dev/null || exit 1
	if [ "$_ln" = "$_lb" ]; then
		out "BENCH link tcp_MBps $1 $(awk -v n="$_ln" -v c=$((_lt1 - _lt0)) \
			'BEGIN { if (c < 1) c = 1; printf "%.1f\n", n / (c / 100) / 1e6 }') MBps"
		out "BENCH link tcp_MBps_cpu_b $1 $_lcpu pct"
	else
		out "BENCH_FAIL link tcp_MBps $1 wget got $_ln of $_lb bytes"
		echo "link tcp: wget got $_ln of $_lb bytes" >>"$XRDMA_TMP/errors"
	fi
}

# ------------------------------------------------------------ the run
# the end, also of a failed run: the ULPs, the stacks, rdma_cm
# shellcheck disable=SC2034 # lib/wire_nvme.sh's (_wn_teardown)
WN_IMG=$XRDMA_TMP/none WN_ROLE=host
# shellcheck disable=SC2034
[ "$XRDMA_ROLE" = a ] && WN_ROLE=target
r=0
# (a step that fails the test -- a stack that does not come up, a peer
# that does not come -- leaves the measurements after it undone)
bench_stopped() {
	out "BENCH_FAIL wire stopped $r guest $XRDMA_ROLE: the test stopped at round $r (exit $1, FAIL line above)"
	_wn_teardown >/dev/null 2>&1
}
trap 'bench_stopped $?' EXIT
stacks_load
if [ "$XRDMA_ROLE" = a ]; then
	nv_target_setup
else
	modprobe nvme-rdma || fail "modprobe nvme-rdma"
fi
[ "$XRDMA_ROLE" = b ] &&
	out "BENCH_INFO wire mode=$MODE runs=$RUNS pairs=$(echo "$PAIRS" | tr ' ' ,) cpus=$(nproc) kernel=$(uname -r)"
r=1
while [ $r -le "$RUNS" ]; do
	for p in $PAIRS; do
		if [ "$XRDMA_ROLE" = a ]; then
			s=${p%-*}
		else
			s=${p#*-}
		fi
		case $s in rxe | xnic) ;; *) fail "BENCH_PAIRS: unknown pairing $p" ;; esac
		bw_stack "$s"
		note "round $r: $p ($WIRE_IBDEV on $WIRE_NETDEV, GID $WIRE_GIDX)"
		wire_sync "up_${r}_$(echo "$p" | tr - _)" "$s" >/dev/null || exit 1
		[ "$p" != rxe-rxe ] || link_rows $r
		perftests "$p" $r
		nvme_rows "$p" $r
	done
	r=$((r + 1))
done
note "counters: $(wire_counters | awk '$2 != 0' | tr '\n' ' ')"
wire_sync end >/dev/null || exit 1
trap - EXIT
_wn_teardown
fail_on_errors
