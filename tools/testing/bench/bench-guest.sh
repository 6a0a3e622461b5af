#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# bench-guest.sh MODE RUNS: the guest side of "make bench" (tools/testing/bench/bench-host.sh).
# MODE is "full" or "smoke" (tiny iteration counts, for make check).  Runs,
# in this guest with both stacks up, the same perftest commands on Soft-RoCE
# (rxe0 on veth0, GID index 1, the system's libibverbs with its rxe
# provider) and on xnic0 (xrdma's libibverbs.so.1 through xrdma-run),
# alternating the stacks (A B A B) RUNS times; then the kernel's ULPs
# through ib_core on each stack, alternating too (ulps below: NVMe-oF on
# null_blk and NFS over RDMA, measured by blkbench, and qperf's RC
# latency through rdma_cm and completion events); then the physical
# limits (physlimit) and the QP scale runs on xnic (xv_scale).
#
# Output: one line per measurement, on stdout and on the marker port
#   BENCH <stack> <metric> <run> <value> <unit>
# where stack is rxe, xnic or phys; a failed measurement prints
#   BENCH_FAIL <stack> <metric> <run> <why>
# The caller (a guest test) loads the modules (for the ULP rows on xnic
# also ib_core and xrdma_ib); this script sets up rxe, the xnic netdev's
# address and the ULPs.

MODE=${1:-full}
RUNS=${2:-3}
# what to run: BENCH_SETS, some of perftest ulp phys scale, separated by
# spaces or commas (xrdma.env.BENCH_SETS=ulp,phys), default all; and of
# the perftest set, BENCH_ROWS: only these metrics (comma separated
# names, e.g. write_lat_64,rc_pingpong_ev_64), default all
SETS=$(echo "${BENCH_SETS:-perftest ulp phys scale}" | tr , ' ')
TMP=${XRDMA_TMP:-/tmp}/bench.d
mkdir -p "$TMP"
# mod_order (run by a guest test, not sourced by it)
if ! command -v mod_order >/dev/null 2>&1; then
	# shellcheck source=/dev/null # in the guest
	. /xrdma/tests/lib/xrdma_test.sh
fi

if [ "$MODE" = smoke ]; then
	LAT_N=50 BW64_N=200 BWBIG_N=20 SCALE_QPS="1 100" SCALE_FLAGS=-s
	PHYS_FLAGS=-s ULP_SECS=2 DUR=1
else
	LAT_N=3000 BW64_N=20000 BWBIG_N=2000 SCALE_QPS="1 100 1000 10000"
	SCALE_FLAGS="" PHYS_FLAGS="" ULP_SECS=10 DUR=3
fi

# out LINE: on stdout and, when the runner left it open, the marker port;
# always status 0 (pt_once ends with it: a closed fd 9 made every
# measurement count as failed and taken six times)
out() {
	echo "$*"
	{ echo "$*" >&9; } 2>/dev/null || :
}

# rxe0 on one end of a veth pair; its GID 1 is the IPv4 address's
rxe_up() {
	/usr/bin/ip link add veth0 type veth peer name veth1 || return 1
	/usr/bin/ip addr add 198.18.0.1/24 dev veth0 || return 1
	/usr/bin/ip link set veth0 up || return 1
	/usr/bin/ip link set veth1 up || return 1
	/usr/bin/rdma link add rxe0 type rxe netdev veth0 || return 1
	_i=0
	while [ ! -e /sys/class/infiniband/rxe0/ports/1/gids/1 ] ||
	      grep -q '^0000:0000:0000:0000:0000:0000:0000:0000$' \
		/sys/class/infiniband/rxe0/ports/1/gids/1; do
		_i=$((_i + 1))
		[ $_i -gt 100 ] && return 1
		sleep 0.1
	done
}

rxe_down() {
	/usr/bin/rdma link delete rxe0 2>/dev/null
	/usr/bin/ip link delete veth0 2>/dev/null
}

# row COLUMN FILE: column COLUMN of perftest's last numeric result row
row() {
	awk -v c="$1" '/^[[:space:]]*[0-9]+[[:space:]]+[0-9]+[[:space:]]+[0-9.]+[[:space:]]/ \
		{ v = $c } END { print v }' "$2"
}

# positive VALUE: VALUE is a finite number above zero
positive() {
	awk -v v="$1" 'BEGIN { exit !(v ~ /^[0-9]*\.?[0-9]+$/ && v + 0 > 0) }'
}

PORT=19000
# rowwant METRIC[,METRIC...]: one of them is in BENCH_ROWS (or there
# are none)
rowwant() {
	[ -z "$BENCH_ROWS" ] && return 0
	for _w in $(echo "$1" | tr , ' '); do
		case ",$BENCH_ROWS," in *",$_w,"*) return 0 ;; esac
	done
	return 1
}

# pt STACK METRIC RUN UNIT COLUMN TOOL ARGS...: server and client in this
# guest; the value is column COLUMN of the client's result row.  perftest
# now and then prints "inf" for every latency (its sampled CPU frequency
# came out 0): such a measurement is taken again, at most five times (it
# came three times in a row on rxe under CI's load).
pt() {
	rowwant "$2" || return 0
	for _try in 1 2 3 4 5 6; do
		pt_once "$@" && return 0
	done
	return 1
}

# duo CMD...: CMD on the next PORT as the server ($TMP/srv), once it
# listens the same CMD as its client ($TMP/cli) with 127.0.0.1; _rc and
# _src are their exit statuses.  (A CMD of the form perftest and the
# rdma-core examples share: "-p PORT" on both sides, the server's
# address last on the client's.)
duo() {
	PORT=$((PORT + 1))
	timeout 120 "$@" -p $PORT >"$TMP/srv" 2>&1 &
	_pid=$!
	listening $PORT $_pid
	timeout 120 "$@" -p $PORT 127.0.0.1 >"$TMP/cli" 2>&1
	_rc=$?
	wait $_pid
	_src=$?
}

pt_once() {
	_stack=$1 _metric=$2 _run=$3 _unit=$4 _col=$5
	shift 5
	stack_args "$_stack"
	# shellcheck disable=SC2086 # word splitting of the options is wanted
	duo $_pre "$@" $_dev -F
	# METRIC and COLUMN may be lists (a,b and 5,8): several values of
	# one run, e.g. a latency's t_typical and its 99th percentile
	_vs="" _ok=1
	for _c in $(echo "$_col" | tr , ' '); do
		_v=$(row "$_c" "$TMP/cli")
		# perftest's client sometimes prints "inf" (its cycle
		# conversion); the latency and write tests report the same
		# measurement on the server side
		positive "$_v" || _v=$(row "$_c" "$TMP/srv")
		# a value that is not above zero (0.00, inf) is the same
		# conversion gone wrong: taken again like a missing one (CI's
		# make check once failed on an xnic send_bw_64k that was not
		# above zero)
		positive "$_v" || _ok=0
		_vs="$_vs $_v"
	done
	if [ $_rc != 0 ] || [ $_src != 0 ] || [ $_ok = 0 ]; then
		if [ "$_try" -lt 6 ]; then
			echo "# $_stack $_metric $_run: no result (try $_try), again"
			return 1
		fi
		for _m in $(echo "$_metric" | tr , ' '); do
			out "BENCH_FAIL $_stack $_m $_run client rc=$_rc server rc=$_src"
		done
		sed 's/^/# /' "$TMP/cli" | tail -n 15
		sed 's/^/# srv /' "$TMP/srv" | tail -n 5
		return 1
	fi
	# shellcheck disable=SC2086 # one word per value
	set -- $_vs
	for _m in $(echo "$_metric" | tr , ' '); do
		out "BENCH $_stack $_m $_run $1 $_unit"
		shift
	done
}

# listening PORT PID: wait (up to 20 s) until a TCP socket listens on
# PORT, or PID (the server) is gone
listening() {
	_i=0
	while ! netstat -ltn 2>/dev/null | grep -q ":$1 "; do
		_i=$((_i + 1))
		if [ $_i -gt 400 ] || ! kill -0 "$2" 2>/dev/null; then
			break
		fi
		sleep 0.05
	done
}

# stack_args STACK: the command prefix and device options of STACK
# (_pre, _dev; _gid for the rdma-core examples' -g)
stack_args() {
	if [ "$1" = rxe ]; then
		_pre="" _dev="-d rxe0 -x 1" _gid="-d rxe0 -g 1"
	else
		_pre=xrdma-run _dev="-d xnic0" _gid="-d xnic0 -g 0"
	fi
}

# pairs STACK METRIC RUN N: N concurrent pairs of ib_write_bw 64 B,
# each for DUR seconds (a count of messages would end one pair before
# the next one has connected); the value is their aggregate message
# rate, each pair's messages (#iterations, column 2) over DUR: so the
# pairs must run at the same time -- the clients start together, and
# each pair's window begins after its own connection, within a small
# part of DUR (the log line shows the pairs' wall time).  Not
# perftest's MsgRate: it converts cycles with a CPU frequency it samples
# at start, and with eight spinning processes on two vCPUs that sample
# fails its own fit test and comes out 0 (0.00 for every rate).
pairs() {
	_stack=$1 _metric=$2 _run=$3 _np=$4
	rowwant "$_metric" || return 0
	stack_args "$_stack"
	_sum=0 _bad="" _p=1
	while [ $_p -le "$_np" ]; do
		PORT=$((PORT + 1))
		# shellcheck disable=SC2086
		timeout 120 $_pre ib_write_bw -s 64 -D "$DUR" $_dev -p $PORT -F \
			>"$TMP/psrv$_p" 2>&1 &
		eval "_sp$_p=\$!"
		eval "listening $PORT \$_sp$_p"
		_p=$((_p + 1))
	done
	_p=1
	_t0=$(date +%s.%N)
	while [ $_p -le "$_np" ]; do
		# shellcheck disable=SC2086
		timeout 120 $_pre ib_write_bw -s 64 -D "$DUR" $_dev \
			-p $((PORT - _np + _p)) -F 127.0.0.1 >"$TMP/pcli$_p" 2>&1 &
		eval "_cp$_p=\$!"
		_p=$((_p + 1))
	done
	_p=1
	while [ $_p -le "$_np" ]; do
		eval "wait \$_cp$_p" || _bad="$_bad client$_p rc=$?"
		eval "wait \$_sp$_p" || _bad="$_bad server$_p rc=$?"
		_v=$(row 2 "$TMP/pcli$_p")
		echo "# $_stack $_metric $_run pair $_p: $_v messages in $DUR s (perftest's MsgRate $(row 5 "$TMP/pcli$_p"))"
		if positive "$_v"; then
			_sum=$(awk -v a="$_sum" -v b="$_v" -v d="$DUR" \
				'BEGIN { print a + b / d / 1e6 }')
		else
			_bad="$_bad pair$_p: no count"
			sed 's/^/# /' "$TMP/pcli$_p" | tail -n 8
		fi
		_p=$((_p + 1))
	done
	echo "# $_stack $_metric $_run: $_np pair(s) of $DUR s took $(awk -v a="$_t0" \
		-v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') s from the first start"
	if [ -n "$_bad" ]; then
		out "BENCH_FAIL $_stack $_metric $_run$_bad"
		return 1
	fi
	out "BENCH $_stack $_metric $_run $_sum Mpps"
}

# rcpp STACK RUN: ibv_rc_pingpong -e (sleeps on its completion channel
# between messages, as event-driven programs do; -c checks every
# message's bytes): its round trip, us
rcpp() {
	rowwant rc_pingpong_ev_64 || return 0
	stack_args "$1"
	for _try in 1 2 3; do
		# shellcheck disable=SC2086 # word splitting of the options is wanted
		duo $_pre ibv_rc_pingpong $_gid -e -c -s 64 -n "$LAT_N"
		_v=$(awk '/usec\/iter/ { v = $(NF - 1) } END { print v }' "$TMP/cli")
		if [ $_rc = 0 ] && [ $_src = 0 ] && positive "$_v"; then
			out "BENCH $1 rc_pingpong_ev_64 $2 $_v us"
			return 0
		fi
		echo "# $1 rc_pingpong_ev_64 $2: no result (try $_try), again"
	done
	out "BENCH_FAIL $1 rc_pingpong_ev_64 $2 client rc=$_rc server rc=$_src"
	sed 's/^/# /' "$TMP/cli" | tail -n 8
	sed 's/^/# srv /' "$TMP/srv" | tail -n 4
	return 1
}

# the perftest set of the issue; latency: t_typical (col 5) in us; bw:
# BW average (col 4) in MB/s, or MsgRate (col 5) in Mpps
# (and 99% percentile, col 8, beside each latency); then the rows of
# issue 27: latency through completion events (the process sleeps in
# ibv_get_cq_event), and 1, 2 and 4 concurrent process pairs
perftests() {
	_s=$1 _r=$2
	pt "$_s" write_lat_64,write_lat_64_p99 "$_r" us 5,8 ib_write_lat -s 64 -n $LAT_N
	pt "$_s" read_lat_64,read_lat_64_p99 "$_r" us 5,8 ib_read_lat -s 64 -n $LAT_N
	pt "$_s" send_lat_64,send_lat_64_p99 "$_r" us 5,8 ib_send_lat -s 64 -n $LAT_N
	pt "$_s" atomic_lat "$_r" us 5 ib_atomic_lat -n $LAT_N
	pt "$_s" write_rate_64 "$_r" Mpps 5 ib_write_bw -s 64 -n $BW64_N
	pt "$_s" write_bw_64k "$_r" MBps 4 ib_write_bw -s 65536 -n $BWBIG_N
	pt "$_s" read_bw_64k "$_r" MBps 4 ib_read_bw -s 65536 -n $BWBIG_N
	pt "$_s" send_bw_64k "$_r" MBps 4 ib_send_bw -s 65536 -n $BWBIG_N
	# (not ib_send_lat -e: on rxe it stops in most runs of 3000
	# messages -- "rxe_cq_post: queue full", a completion never comes)
	rcpp "$_s" "$_r"
	pairs "$_s" write_rate_64_1p "$_r" 1
	pairs "$_s" write_rate_64_2p "$_r" 2
	pairs "$_s" write_rate_64_4p "$_r" 4
}

# RESULT lines of our programs: "RESULT metric value unit"
results() {
	_stack=$1 _run=$2
	shift 2
	if ! "$@" >"$TMP/res" 2>&1; then
		out "BENCH_FAIL $_stack $* $_run rc=$?"
		sed 's/^/# /' "$TMP/res" | tail -n 15
		return 1
	fi
	while read -r _tag _m _v _u; do
		[ "$_tag" = RESULT ] && out "BENCH $_stack $_m $_run $_v $_u"
	done <"$TMP/res"
}

# --- the kernel's ULPs (issue 13): rxe0 has 198.18.0.1 (veth0), xnic0
# 198.18.1.1 on its port's netdev (xrdma_ib).  One nvmet subsystem (a
# null_blk namespace, not memory backed) with a port on each address,
# connected from this guest over one stack at a time; nfsd listening for
# RDMA on 20049 (every address), a tmpfs exported, mounted over one stack
# at a time.
NQN=nqn.2026-12.org.xrdma:bench
CFS=/sys/kernel/config/nvmet
# the host ID with its NQN: a host NQN given without one gets the ID of
# nvme_fabrics' default host, which has an NQN of its own, and Linux 6.12
# refuses one ID with two NQNs ("found same hostid ... but different
# hostnqn"; 6.1 took it)
HOSTID=0b5e7c1a-9d14-4a8e-b0a4-5c3f2e6d7a81
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:$HOSTID
ULP_OK=

ulp_ip() { [ "$1" = rxe ] && echo 198.18.0.1 || echo 198.18.1.1; }

# wait_for SECONDS CMD...
wait_for() {
	_w=$(($1 * 10))
	shift
	until "$@"; do
		_w=$((_w - 1))
		[ $_w -gt 0 ] || return 1
		sleep 0.1
	done
}

has_gid() {
	cat /sys/class/infiniband/"$1"/ports/1/gids/* 2>/dev/null | grep -qx "$2"
}

xnic_ulp_net() {
	[ -d /sys/class/infiniband/xnic0 ] || {
		echo "no ib_device xnic0 (xrdma_ib.ko not built or not loaded)"
		return 1
	}
	_nd=$(cat /sys/class/infiniband/xnic0/ports/1/gid_attrs/ndevs/0 2>/dev/null)
	[ -n "$_nd" ] || _nd=$(/usr/bin/rdma link show xnic0/1 2>/dev/null |
		sed -n 's/.* netdev \([^ ]*\).*/\1/p')
	[ -n "$_nd" ] || {
		echo "xnic0 port 1 has no netdev"
		return 1
	}
	if ! /usr/bin/ip addr add 198.18.1.1/24 dev "$_nd" ||
		! /usr/bin/ip link set "$_nd" up; then
		echo "cannot bring 198.18.1.1/24 up on $_nd"
		return 1
	fi
	wait_for 10 has_gid xnic0 0000:0000:0000:0000:0000:ffff:c612:0101 || {
		echo "xnic0: no GID for 198.18.1.1"
		return 1
	}
}

ulp_setup() {
	# loaded before with other parameters (the test's header)?
	! grep -q '^null_blk ' /proc/modules || rmmod null_blk || return 1
	modprobe null_blk nr_devices=1 gb=16 || return 1
	modprobe nvmet && modprobe nvmet-rdma && modprobe nvme-rdma || return 1
	# qperf's rdma_cm (/dev/infiniband/rdma_cm)
	modprobe rdma_ucm || return 1
	grep -q ' /sys/kernel/config configfs ' /proc/mounts ||
		mount -t configfs none /sys/kernel/config || return 1
	wait_for 5 test -b /dev/nullb0 || return 1
	mkdir "$CFS/subsystems/$NQN" &&
		echo 1 >"$CFS/subsystems/$NQN/attr_allow_any_host" &&
		mkdir "$CFS/subsystems/$NQN/namespaces/1" &&
		echo /dev/nullb0 >"$CFS/subsystems/$NQN/namespaces/1/device_path" &&
		echo 1 >"$CFS/subsystems/$NQN/namespaces/1/enable" || return 1
	for _s in rxe xnic; do
		_p=$CFS/ports/$([ $_s = rxe ] && echo 1 || echo 2)
		mkdir "$_p" && echo rdma >"$_p/addr_trtype" &&
			echo ipv4 >"$_p/addr_adrfam" &&
			ulp_ip $_s >"$_p/addr_traddr" &&
			echo 4420 >"$_p/addr_trsvcid" || return 1
		# a port whose address has no RDMA device does not come up
		ln -s "$CFS/subsystems/$NQN" "$_p/subsystems/$NQN" ||
			echo "# nvmet: no port on $(ulp_ip $_s) ($_s)"
	done
	mkdir -p /srv/nfs /mnt/nfs /var/lib/nfs/nfsdcltrack /var/lib/nfs/v4recovery
	mount -t tmpfs -o size=96m tmpfs /srv/nfs || return 1
	mount -t nfsd nfsd /proc/fs/nfsd || return 1
	: >/var/lib/nfs/etab
	: >/var/lib/nfs/rmtab
	echo "/srv/nfs *(rw,sync,no_root_squash,no_subtree_check,insecure,fsid=0)" \
		>/etc/exports
	exportfs -ra || return 1
	rpc.mountd -F -N 2 -N 3 >"$TMP/mountd" 2>&1 &
	MOUNTD=$!
	rpc.nfsd -N 3 --rdma=20049 4 || return 1
}

ulp_teardown() {
	umount /mnt/nfs 2>/dev/null
	rpc.nfsd 0
	exportfs -ua
	[ -n "$MOUNTD" ] && kill "$MOUNTD" && wait "$MOUNTD"
	umount /proc/fs/nfsd
	umount /srv/nfs
	nvme disconnect -n $NQN >/dev/null 2>&1
	for _p in 1 2; do
		rm -f "$CFS/ports/$_p/subsystems/$NQN"
		rmdir "$CFS/ports/$_p"
	done
	echo 0 >"$CFS/subsystems/$NQN/namespaces/1/enable"
	rmdir "$CFS/subsystems/$NQN/namespaces/1" "$CFS/subsystems/$NQN"
	# (in an order that holds on every kernel: lib/xrdma_test.sh)
	for _m in $(mod_order nfsv4 nfs rpcrdma nfsd lockd grace nfs_acl \
		auth_rpcgss fscache netfs nvme_rdma nvme_fabrics nvme_core \
		nvmet_rdma nvmet null_blk rdma_ucm rdma_cm iw_cm ib_cm); do
		grep -q "^$_m " /proc/modules && rmmod "$_m"
	done
}

nvme_dev() {
	for _b in /sys/block/nvme*n1; do
		case ${_b##*/} in *c*) continue ;; esac
		[ -b "/dev/${_b##*/}" ] && echo "/dev/${_b##*/}" && return 0
	done
	return 1
}

# ulp_bb STACK METRIC RUN BLKBENCH-ARGS...: one blkbench measurement
ulp_bb() {
	_s=$1 _m=$2 _r=$3
	shift 3
	if timeout $((ULP_SECS + 60)) blkbench -t $ULP_SECS -n "$_m" "$@" \
		>"$TMP/bb" 2>&1; then
		_v=$(awk '$1 == "RESULT" { print $3 }' "$TMP/bb")
		_u=$(awk '$1 == "RESULT" { print $4 }' "$TMP/bb")
		if [ -n "$_v" ]; then
			out "BENCH $_s $_m $_r $_v $_u"
			return 0
		fi
	fi
	out "BENCH_FAIL $_s $_m $_r blkbench: $(tail -n 1 "$TMP/bb")"
	return 1
}

# qperf_lat STACK RUN IP: qperf -cm1 rc_lat, 64 B messages for DUR
# seconds, connected through the kernel's rdma_cm to IP (STACK's
# address): qperf waits for each completion on a completion channel (no
# -P: it does not poll), as event-driven programs do; its latency is half
# the round trip, in us
qperf_lat() {
	stack_args "$1"
	for _try in 1 2 3; do
		PORT=$((PORT + 1))
		timeout 120 $_pre qperf -lp $PORT >"$TMP/qsrv" 2>&1 &
		_pid=$!
		listening $PORT $_pid
		timeout 60 $_pre qperf -lp $PORT -cm1 -m 64 -t "$DUR" "$3" rc_lat \
			>"$TMP/qcli" 2>&1
		_rc=$?
		kill $_pid 2>/dev/null
		wait $_pid
		# "latency  =  24.3 us" (or ns, ms, sec)
		_v=$(awk '$1 == "latency" && $2 == "=" {
			f = $4 == "ns" ? 0.001 : $4 == "ms" ? 1000 : $4 == "sec" ? 1e6 : 1
			v = $3 * f } END { print v }' "$TMP/qcli")
		if [ $_rc = 0 ] && positive "$_v"; then
			out "BENCH $1 qperf_rc_lat_64 $2 $_v us"
			return 0
		fi
		echo "# $1 qperf_rc_lat_64 $2: no result (try $_try), again"
	done
	out "BENCH_FAIL $1 qperf_rc_lat_64 $2 client rc=$_rc"
	sed 's/^/# /' "$TMP/qcli" | tail -n 8
	sed 's/^/# srv /' "$TMP/qsrv" | tail -n 4
	return 1
}

# ulps STACK RUN: the NVMe-oF, NFS, qperf and SMB Direct rows of STACK
ulps() {
	_s=$1 _r=$2
	_ip=$(ulp_ip "$_s")
	if [ -z "$ULP_OK" ] || { [ "$_s" = xnic ] && [ -n "$XNIC_ULP_WHY" ]; }; then
		for _m in nvme_randread_4k nvme_randread_4k_qd1 nvme_read_1m \
			nvme_write_1m nfs_read_1m nfs_write_1m qperf_rc_lat_64 \
			smb_write_1m smb_read_1m; do
			out "BENCH_FAIL $_s $_m $_r ${XNIC_ULP_WHY:-ULP setup failed}"
		done
		return 1
	fi
	if nvme connect -t rdma -a "$_ip" -s 4420 -n $NQN --hostnqn=$HOSTNQN \
		--hostid=$HOSTID >"$TMP/conn" 2>&1 && wait_for 20 nvme_dev; then
		_d=$(nvme_dev)
		ulp_bb "$_s" nvme_randread_4k "$_r" -m randread -b 4k -q 32 "$_d"
		# one read at a time: its latency (submission to completion)
		ulp_bb "$_s" nvme_randread_4k_qd1 "$_r" -m randread -b 4k -q 1 -L "$_d"
		ulp_bb "$_s" nvme_read_1m "$_r" -m read -b 1M -q 4 "$_d"
		ulp_bb "$_s" nvme_write_1m "$_r" -m write -b 1M -q 4 "$_d"
	else
		for _m in nvme_randread_4k nvme_randread_4k_qd1 nvme_read_1m nvme_write_1m; do
			out "BENCH_FAIL $_s $_m $_r nvme connect to $_ip: $(tail -n 1 "$TMP/conn")"
		done
	fi
	nvme disconnect -n $NQN >/dev/null 2>&1
	wait_for 20 eval '! ls -d /sys/class/nvme/nvme* >/dev/null 2>&1'
	if mount.nfs4 "$_ip:/" /mnt/nfs -o proto=rdma,port=20049,vers=4.2 \
		>"$TMP/mnt" 2>&1; then
		ulp_bb "$_s" nfs_write_1m "$_r" -m write -b 1M -q 4 -S 64M /mnt/nfs/bench
		ulp_bb "$_s" nfs_read_1m "$_r" -m read -b 1M -q 4 /mnt/nfs/bench
		rm -f /mnt/nfs/bench
		umount /mnt/nfs
	else
		for _m in nfs_read_1m nfs_write_1m; do
			out "BENCH_FAIL $_s $_m $_r mount.nfs4 $_ip: $(tail -n 1 "$TMP/mnt")"
		done
	fi
	qperf_lat "$_s" "$_r" "$_ip"
	# SMB Direct (tools/testing/bench/bench-smb.sh): 64 MiB, 8 in smoke mode
	bench_smb "$_s" "$_r" "$([ "$MODE" = full ] && echo 64 || echo 8)"
}

# bench_smb: the SMB Direct rows (shipped by tools/testing/bench/bench.sh)
if [ -f /usr/bin/bench-smb.sh ]; then
	# shellcheck source=tools/testing/bench/bench-smb.sh
	. /usr/bin/bench-smb.sh
else
	bench_smb() {
		out "BENCH_FAIL $1 smb_write_1m $2 bench-smb.sh not shipped"
		out "BENCH_FAIL $1 smb_read_1m $2 bench-smb.sh not shipped"
	}
fi

rxe_up || out "BENCH_FAIL rxe setup 0 rxe0 on veth0 did not come up"
out "BENCH_INFO mode=$MODE runs=$RUNS cpus=$(nproc) kernel=$(uname -r)"
want() { case " $SETS " in *" $1 "*) return 0 ;; esac; return 1; }
r=1
while want perftest && [ $r -le "$RUNS" ]; do
	perftests rxe $r
	perftests xnic $r
	r=$((r + 1))
done
if want ulp; then
	XNIC_ULP_WHY=$(xnic_ulp_net) || XNIC_ULP_WHY=${XNIC_ULP_WHY:-xnic0 setup failed}
	[ -z "$XNIC_ULP_WHY" ] || echo "# xnic ULP rows: $XNIC_ULP_WHY"
	if ulp_setup >"$TMP/ulp" 2>&1; then
		ULP_OK=1
	else
		sed 's/^/# ulp setup: /' "$TMP/ulp"
	fi
	r=1
	while [ $r -le "$RUNS" ]; do
		# the guest's block layer alone: the ceiling of the NVMe-oF rows
		if [ -n "$ULP_OK" ]; then
			ulp_bb phys nullb_randread_4k $r -m randread -b 4k -q 32 /dev/nullb0
			ulp_bb phys nullb_read_1m $r -m read -b 1M -q 4 /dev/nullb0
		fi
		ulps rxe $r
		ulps xnic $r
		r=$((r + 1))
	done
	ulp_teardown >/dev/null 2>&1
fi
want phys && results phys 1 physlimit -r "$RUNS" $PHYS_FLAGS
want scale || SCALE_QPS=
for n in $SCALE_QPS; do
	# shellcheck disable=SC2086
	results xnic 1 xrdma-run xv_scale -d xnic0 -n "$n" -r "$RUNS" $SCALE_FLAGS
done
rxe_down
