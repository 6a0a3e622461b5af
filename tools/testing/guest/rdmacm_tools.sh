# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 180
# XRDMA_SUBTEST: rping 120
# XRDMA_SUBTEST: ucmatose 120
# XRDMA_SUBTEST: udaddy 120
# XRDMA_SUBTEST: rdma_server 90
# XRDMA_SUBTEST: rstream 180
# XRDMA_SUBTEST: perftest 180
# XRDMA_SUBTEST: qperf 120
# XRDMA_SUBTEST: no_listener 120
# XRDMA_SUBTEST: server_killed 120
# XRDMA_SUBTEST: exit_open 120
# XRDMA_DEBIAN_MODULES: ib_core rdma_cm iw_cm ib_cm rdma_ucm
# XRDMA_PROGRAMS: /usr/bin/ip /usr/bin/rdma
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run
# XRDMA_PROGRAMS: rping ucmatose udaddy rdma_server rdma_client rstream
# XRDMA_PROGRAMS: ib_send_lat ib_send_bw ib_write_lat ib_write_bw
# XRDMA_PROGRAMS: ib_read_lat ib_read_bw qperf
#
# Debian 12's unmodified rdma_cm programs (rdmacm-utils, perftest -R,
# qperf -cm1) over xnic: the kernel's rdma_cm through rdma_ucm
# (/dev/infiniband/rdma_cm) on xnic0 registered with ib_core by xrdma_ib
# (lib/ulp.sh: ulp_fabric_up xnic, 198.18.0.1/24 on xnic0's netdev), and
# xrdma's libibverbs.so.1 first on the library path (scripts/xrdma-run)
# under Debian's librdmacm.so.1.  Server and client run in this guest
# over the one device (loopback through xnic0).
#
# Every successful transfer must exit 0 on both ends with the program's
# own data check where it has one (rping -V, rstream -T v) and move
# xnic_sim's payload counters by at least the bytes it carried
# (ulp_traffic): the data crossed xnic.  The failure paths must end in
# bounded time with the error the program reports for them.  After every
# subtest ib_core's view (rdma res: cm_id, qp, and the device's resource
# summary) is what it was before, and xnic0 holds no xrdma object.
#
# What these programs need on xnic (besides xrdma-run):
#   - nothing else: no option, no environment variable.  The kernel's
#     rdma_cm resolves 198.18.0.1 to xnic0 (ib_core), librdmacm finds our
#     ibv_context for it by node GUID and ib_core device index.
#   - rdma_ucm must be loaded (it brings ib_uverbs, which xnic0 does not
#     use: xrdma's verbs go through /dev/infiniband/... of xrdma_uverbs).
#
# Subtests:
#   rping          rping -V -v at 100 and 65536 bytes, a count each: every
#                  ping echoed and verified
#   ucmatose       4 connections x 20 messages each way (-c -C -S)
#   udaddy         UD over rdma_cm: 2 "connections" x 20 messages
#   rdma_server    rdma_server / rdma_client (rdma_create_ep, inline send)
#   rstream        rsockets, -T v (data verified) at 1 B, 4 KiB, 64 KiB
#                  and 1 MiB, blocking and async (poll) modes
#   perftest       ib_send_lat, ib_write_lat, ib_read_lat, ib_send_bw,
#                  ib_write_bw, ib_read_bw with -R (rdma_cm)
#   qperf          qperf -cm1 rc_lat, rc_rdma_write_bw (server: qperf)
#   no_listener    rping and ucmatose against a port nobody listens on
#                  (REJECTED) and an address nobody has (ADDR_ERROR or
#                  UNREACHABLE): a non-zero exit within a bound
#   server_killed  an rping server killed (SIGKILL) during an endless
#                  rping: the client sees the disconnect (or flush
#                  errors) and exits
#   exit_open      rping and ucmatose pairs killed with their
#                  connections up: rdma res and xrdma's counts go back
#                  to zero

# shellcheck source=/dev/null # lib/ulp.sh, in the guest
. /xrdma/tests/lib/ulp.sh

RDMA=/usr/bin/rdma
T=$XRDMA_TMP
: >"$T/errors"

err() { echo "$XRDMA_SUBTEST: $*" >>"$T/errors"; }

# scaled SECONDS: a time limit scaled by XRDMA_TIMEOUT_SCALE
scaled() { echo $(($1 * ${XRDMA_TIMEOUT_SCALE:-1})); }

# show FILE...: the files into the log, prefixed by their names
show() {
	for _f in "$@"; do
		[ -f "$_f" ] || continue
		echo "--- ${_f##*/}"
		tail -n 40 "$_f"
	done
}

# wait_exit PID SECONDS: until PID exited, up to SECONDS (scaled): its
# status; 124 (and PID killed) when it was still running
wait_exit() {
	_we_lim=$(($(scaled "$2") * 10))
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

# bounded SECONDS OUT CMD...: CMD with xrdma's libibverbs, its output in
# OUT; its status, 124 when it ran longer than SECONDS (scaled)
bounded() {
	_b_s=$1 _b_o=$2
	shift 2
	xrdma-run "$@" >"$_b_o" 2>&1 &
	wait_exit $! "$_b_s"
}

# listening PORT: an rdma_cm id listens on PORT (ib_core's rdma res)
listening() {
	$RDMA res show cm_id 2>/dev/null | grep 'state LISTEN' |
		grep -Eq ":$1( |\$)"
}

# serve NAME PORT CMD...: the server CMD (xrdma-run) in the background,
# output in $T/NAME.srv, its pid in SRV; returns once it listens on PORT
serve() {
	_s_n=$1 _s_p=$2
	shift 2
	xrdma-run "$@" >"$T/$_s_n.srv" 2>&1 &
	SRV=$!
	wait_for 20 listening "$_s_p" && return 0
	err "$_s_n: the server does not listen on port $_s_p (rdma res)"
	kill -9 $SRV 2>/dev/null
	wait $SRV
	show "$T/$_s_n.srv"
	return 1
}

# pair NAME PORT MINBYTES SERVER_CMD -- CLIENT_CMD: the server, then the
# client; both exit 0 within 60 s (scaled) and xnic carried at least
# MINBYTES of payload meanwhile
pair() {
	_p_n=$1 _p_p=$2 _p_min=$3
	shift 3
	_p_srv=
	while [ "$1" != -- ]; do
		_p_srv="$_p_srv $1"
		shift
	done
	shift
	_p_t0=$(ulp_traffic)
	# shellcheck disable=SC2086 # the server command is split into words
	serve "$_p_n" "$_p_p" $_p_srv || return 1
	bounded 60 "$T/$_p_n.cli" "$@"
	_p_crc=$?
	wait_exit $SRV 30
	_p_src=$?
	_p_t1=$(ulp_traffic)
	if [ $_p_crc != 0 ] || [ $_p_src != 0 ]; then
		err "$_p_n: client rc=$_p_crc server rc=$_p_src"
		show "$T/$_p_n.cli" "$T/$_p_n.srv"
		return 1
	fi
	_p_d=$((_p_t1 - _p_t0))
	if [ $_p_d -lt "$_p_min" ]; then
		err "$_p_n: xnic carried $_p_d bytes, want at least $_p_min"
		show "$T/$_p_n.cli" "$T/$_p_n.srv"
		return 1
	fi
	note "$_p_n: ok, $_p_d bytes over xnic0"
}

# expect_line NAME FILE PATTERN [COUNT]: FILE has (exactly COUNT) lines
# matching the extended regex PATTERN
expect_line() {
	_e_c=$(grep -Ec "$3" "$2")
	if [ -n "${4:-}" ]; then
		[ "$_e_c" = "$4" ] && return 0
		err "$1: $_e_c lines match '$3' in ${2##*/}, want $4"
	else
		[ "$_e_c" -gt 0 ] && return 0
		err "$1: no line matches '$3' in ${2##*/}"
	fi
	show "$2"
	return 1
}

# res_summary: ib_core's resource counts of the device ("pd 0 cq 0 ...")
res_summary() {
	$RDMA res show 2>&1 | grep " $ULP_IBDEV: " | sed 's/^[0-9]*: //'
}

# user_res: what rdma res lists of user processes' cm_ids and QPs
user_res() {
	{
		$RDMA res show cm_id 2>&1
		$RDMA res show qp 2>&1
	} | grep -v '^$' | grep -v 'comm \[' || true
}

# xres: xnic0's xrdma objects (debugfs; xrdma_ib's own PD, CQ and QPs
# stay while it is loaded, so they are compared with the state before)
xres() { cat "$XRDMA_DEBUGFS/xrdma/xnic0/resources" 2>&1; }

# clean NAME: nothing of the programs is left, in ib_core (rdma res: no
# user cm_id or QP, the device's summary as before) and in xrdma (xnic0's
# objects as before, none of a process) -- waits a little for deferred
# teardown
clean_now() {
	[ -z "$(user_res)" ] && [ "$(res_summary)" = "$RES0" ] &&
		[ "$(xres)" = "$XRES0" ] && ! xres | grep -q ' pid '
}
clean() {
	wait_for 10 clean_now && return 0
	err "$1: left behind: rdma res '$(user_res | head -n 5 | tr '\n' ' ')'" \
		"summary '$(res_summary)' (before '$RES0')"
	{
		echo "xnic0's objects before:"
		echo "$XRES0"
		echo "and now:"
		xres | head -n 30
	} >>"$T/errors"
	return 1
}

# --- the fabric: xnic0 in ib_core with 198.18.0.1, rdma_ucm
# the runner loaded rdma_ucm (and with it ib_uverbs) for this test;
# ulp_fabric_up wants ib_uverbs out first
ulp_rmmod rdma_ucm
ulp_fabric_up xnic
modprobe rdma_ucm || fail "modprobe rdma_ucm"
[ -c /dev/infiniband/rdma_cm ] || fail "no /dev/infiniband/rdma_cm"
command -v xrdma-run >/dev/null || fail "xrdma-run not in the guest"
[ -f /usr/bin/libibverbs.so.1 ] || fail "xverbs' libibverbs.so.1 not shipped (not built?)"
IP=$ULP_IP
RES0=$(res_summary)
XRES0=$(xres)
note "before: $RES0; xrdma: $(echo "$XRES0" | tr '\n' ' ')"

teardown() {
	ulp_rmmod rdma_ucm ib_uverbs
	ulp_fabric_down
}

case $XRDMA_SUBTEST in
rping)
	# -V: the client compares what came back (server RDMA READ, then
	# RDMA WRITE back) with what it sent; -v prints each ping, counted
	# per ping 2 x SIZE of RDMA payload
	for s in 100:50 65536:8; do
		size=${s%:*} count=${s#*:}
		if pair "rping_$size" 7100 $((2 * size * count)) \
			rping -s -a "$IP" -p 7100 -V -C "$count" -S "$size" -- \
			rping -c -a "$IP" -p 7100 -V -v -C "$count" -S "$size"; then
			expect_line "rping_$size" "$T/rping_$size.cli" \
				'^ping data: rdma-ping-[0-9]+: ' "$count"
		fi
		clean "rping_$size"
	done
	;;
ucmatose)
	# 4 connections; the server sends 20 messages of 1000 bytes on each,
	# the client answers each
	pair ucmatose 7200 $((2 * 4 * 20 * 1000)) \
		ucmatose -b "$IP" -p 7200 -c 4 -C 20 -S 1000 -- \
		ucmatose -s "$IP" -p 7200 -c 4 -C 20 -S 1000 &&
		expect_line ucmatose "$T/ucmatose.cli" '^return status 0$' 1
	clean ucmatose
	;;
udaddy)
	pair udaddy 7300 $((2 * 2 * 20 * 500)) \
		udaddy -b "$IP" -p 7300 -c 2 -C 20 -S 500 -- \
		udaddy -s "$IP" -p 7300 -c 2 -C 20 -S 500 &&
		expect_line udaddy "$T/udaddy.cli" '^return status 0$' 1
	clean udaddy
	;;
rdma_server)
	# 16 bytes each way (rdma_client sends, rdma_server echoes)
	pair rdma_server 7400 32 \
		rdma_server -s "$IP" -p 7400 -- \
		rdma_client -s "$IP" -p 7400 &&
		expect_line rdma_server "$T/rdma_server.cli" '^rdma_client: end 0$' 1 &&
		expect_line rdma_server "$T/rdma_server.srv" '^rdma_server: end 0$' 1
	clean rdma_server
	;;
rstream)
	# -S SIZE -C COUNT: COUNT transfers of SIZE each way; -T v checks
	# every byte (a mismatch fails the program)
	port=7500
	for s in 1:200:b 4096:100:b 65536:40:b 1048576:4:b 65536:40:a; do
		size=${s%%:*} rest=${s#*:}
		count=${rest%:*} mode=${rest#*:}
		port=$((port + 1))
		pair "rstream_${size}_$mode" $port $((2 * size * count)) \
			rstream -b "$IP" -p $port -S "$size" -C "$count" -T v -T "$mode" -- \
			rstream -s "$IP" -p $port -S "$size" -C "$count" -T v -T "$mode"
		clean "rstream_${size}_$mode"
	done
	;;
perftest)
	# -R: connect through rdma_cm (no TCP side channel); the client's
	# result row is "<bytes> <iterations> <numbers...>"
	ROW='^[[:space:]]*[0-9]+[[:space:]]+[0-9]+([[:space:]]+[0-9.]+){3}'
	port=7600
	for t in ib_send_lat:2:200 ib_write_lat:2:200 ib_read_lat:2:200 \
		ib_send_bw:65536:200 ib_write_bw:65536:200 ib_read_bw:65536:200; do
		prog=${t%%:*} rest=${t#*:}
		size=${rest%:*} n=${rest#*:}
		port=$((port + 1))
		pair "$prog" $port $((size * n)) \
			$prog -R -d xnic0 -F -s "$size" -n "$n" -p $port -- \
			$prog -R -d xnic0 -F -s "$size" -n "$n" -p $port "$IP" &&
			expect_line "$prog" "$T/$prog.cli" "$ROW"
		clean "$prog"
	done
	;;
qperf)
	;;
no_listener)
	;;
server_killed)
	;;
exit_open)
	;;
*)
	teardown
	fail "no such subtest: '$XRDMA_SUBTEST'"
	;;
esac

teardown
fail_on_errors
