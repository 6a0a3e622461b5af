#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# bench-guest.sh MODE RUNS: the guest side of "make bench" (scripts/bench.sh).
# MODE is "full" or "smoke" (tiny iteration counts, for make check).  Runs,
# in this guest with both stacks up, the same perftest commands on Soft-RoCE
# (rxe0 on veth0, GID index 1, the system's libibverbs with its rxe
# provider) and on xnic0 (xrdma's libibverbs.so.1 through xrdma-run),
# alternating the stacks (A B A B) RUNS times; then the physical limits
# (physlimit) and the QP scale runs on xnic (xv_scale).
#
# Output: one line per measurement, on stdout and on the marker port
#   BENCH <stack> <metric> <run> <value> <unit>
# where stack is rxe, xnic or phys; a failed measurement prints
#   BENCH_FAIL <stack> <metric> <run> <why>
# The caller (a guest test) loads the modules; this script sets up rxe.

MODE=${1:-full}
RUNS=${2:-3}
TMP=${XRDMA_TMP:-/tmp}/bench.d
mkdir -p "$TMP"

if [ "$MODE" = smoke ]; then
	LAT_N=50 BW64_N=200 BWBIG_N=20 SCALE_QPS="1 100" SCALE_FLAGS=-s
	PHYS_FLAGS=-s
else
	LAT_N=3000 BW64_N=20000 BWBIG_N=2000 SCALE_QPS="1 100 1000 10000"
	SCALE_FLAGS="" PHYS_FLAGS=""
fi

out() {
	echo "$*"
	{ echo "$*" >&9; } 2>/dev/null
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

PORT=19000
# pt STACK METRIC RUN UNIT COLUMN TOOL ARGS...: server and client in this
# guest; the value is column COLUMN of the client's result row.  perftest
# now and then prints "inf" for every latency (its sampled CPU frequency
# came out 0): such a measurement is taken again, at most five times (it
# came three times in a row on rxe under CI's load).
pt() {
	for _try in 1 2 3 4 5 6; do
		pt_once "$@" && return 0
	done
	return 1
}

pt_once() {
	_stack=$1 _metric=$2 _run=$3 _unit=$4 _col=$5
	shift 5
	if [ "$_stack" = rxe ]; then
		_pre="" _dev="-d rxe0 -x 1"
	else
		_pre=xrdma-run _dev="-d xnic0"
	fi
	PORT=$((PORT + 1))
	# shellcheck disable=SC2086 # word splitting of the command is wanted
	timeout 120 $_pre "$@" $_dev -p $PORT -F >"$TMP/srv" 2>&1 &
	_pid=$!
	_i=0
	while ! netstat -ltn 2>/dev/null | grep -q ":$PORT "; do
		_i=$((_i + 1))
		if [ $_i -gt 400 ] || ! kill -0 $_pid 2>/dev/null; then
			break
		fi
		sleep 0.05
	done
	# shellcheck disable=SC2086
	timeout 120 $_pre "$@" $_dev -p $PORT -F 127.0.0.1 >"$TMP/cli" 2>&1
	_rc=$?
	wait $_pid
	_src=$?
	_v=$(row "$_col" "$TMP/cli")
	# perftest's client sometimes prints "inf" (its cycle conversion);
	# the latency and write tests report the same measurement on the
	# server side
	[ -n "$_v" ] || _v=$(row "$_col" "$TMP/srv")
	if [ $_rc != 0 ] || [ $_src != 0 ] || [ -z "$_v" ]; then
		if [ "$_try" -lt 6 ]; then
			echo "# $_stack $_metric $_run: no result (try $_try), again"
			return 1
		fi
		out "BENCH_FAIL $_stack $_metric $_run client rc=$_rc server rc=$_src"
		sed 's/^/# /' "$TMP/cli" | tail -n 15
		sed 's/^/# srv /' "$TMP/srv" | tail -n 5
		return 1
	fi
	out "BENCH $_stack $_metric $_run $_v $_unit"
}

# the perftest set of the issue; latency: t_typical (col 5) in us; bw:
# BW average (col 4) in MB/s, or MsgRate (col 5) in Mpps
perftests() {
	_s=$1 _r=$2
	pt "$_s" write_lat_64 "$_r" us 5 ib_write_lat -s 64 -n $LAT_N
	pt "$_s" read_lat_64 "$_r" us 5 ib_read_lat -s 64 -n $LAT_N
	pt "$_s" send_lat_64 "$_r" us 5 ib_send_lat -s 64 -n $LAT_N
	pt "$_s" atomic_lat "$_r" us 5 ib_atomic_lat -n $LAT_N
	pt "$_s" write_rate_64 "$_r" Mpps 5 ib_write_bw -s 64 -n $BW64_N
	pt "$_s" write_bw_64k "$_r" MBps 4 ib_write_bw -s 65536 -n $BWBIG_N
	pt "$_s" read_bw_64k "$_r" MBps 4 ib_read_bw -s 65536 -n $BWBIG_N
	pt "$_s" send_bw_64k "$_r" MBps 4 ib_send_bw -s 65536 -n $BWBIG_N
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

rxe_up || out "BENCH_FAIL rxe setup 0 rxe0 on veth0 did not come up"
out "BENCH_INFO mode=$MODE runs=$RUNS cpus=$(nproc) kernel=$(uname -r)"
r=1
while [ $r -le "$RUNS" ]; do
	perftests rxe $r
	perftests xnic $r
	r=$((r + 1))
done
results phys 1 physlimit -r "$RUNS" $PHYS_FLAGS
for n in $SCALE_QPS; do
	# shellcheck disable=SC2086
	results xnic 1 xrdma-run xv_scale -d xnic0 -n "$n" -r "$RUNS" $SCALE_FLAGS
done
rxe_down
