# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 120
# XRDMA_SUBTEST: rping 90
# XRDMA_SUBTEST: ucmatose 90
# XRDMA_SUBTEST: udaddy 90
# XRDMA_SUBTEST: rdma_server 90
# XRDMA_SUBTEST: rstream 120
# XRDMA_SUBTEST: perftest 120
# XRDMA_SUBTEST: qperf 90
# XRDMA_SUBTEST: no_listener 120
# XRDMA_SUBTEST: server_killed 120
# XRDMA_SUBTEST: exit_open 150
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
# summary) is what it was before, and xnic0 holds no object of a process
# (xrdma's debugfs resources equal those before: xrdma_ib's own).
#
# What these programs need on xnic (besides xrdma-run):
#   - no environment variable and no xnic-specific option.  The kernel's
#     rdma_cm resolves 198.18.0.1 to xnic0 (ib_core), librdmacm finds our
#     ibv_context for it by node GUID and ib_core device index.
#   - rdma_ucm loaded (it brings ib_uverbs, which xnic0 does not use:
#     xrdma's verbs go through /dev/infiniband/xrdma_uverbsN).
#   - the programs' own quirks, as on any RoCE device: udaddy's port is
#     fixed (7174, its -p is a port space); rping's -S is at most 65535;
#     rstream returns its status only with -S and -C (the size sweep
#     ignores errors); qperf needs -cm1 for RC (its own connect sets no
#     GRH) and -t, not -n (ignored by rc_lat/rc_rdma_write_bw, which then
#     never end); perftest -R takes -d xnic0 and -F as usual.
#
# Subtests:
#   rping          rping -V -v at 100 and 65535 bytes (its largest), a
#                  count each: every ping echoed and verified
#   ucmatose       4 connections x 20 messages each way (-c -C -S)
#   udaddy         UD over rdma_cm: 2 "connections" x 20 messages
#   rdma_server    rdma_server / rdma_client (rdma_create_ep, inline send)
#   rstream        rsockets, -T v (data verified) at 1 B, 4 KiB, 64 KiB
#                  and 1 MiB, blocking and async (poll) modes (async: a
#                  client ended by the server's close after the server
#                  completed is one accounted outcome, see pair)
#   perftest       ib_send_lat, ib_write_lat, ib_read_lat, ib_send_bw,
#                  ib_write_bw, ib_read_bw with -R (rdma_cm)
#   qperf          qperf -cm1 rc_lat, rc_rdma_write_bw (server: qperf)
#   no_listener    rping and ucmatose against a port nobody listens on
#                  (REJECTED) and an address nobody has (ADDR_ERROR or
#                  UNREACHABLE): a non-zero exit within a bound
#   server_killed  an rping server killed (SIGKILL) during an endless
#                  rping: the client sees the disconnect (or flush
#                  errors) and exits
#   exit_open      processes killed with connections up: a persistent
#                  rping server with three clients (the clients exit),
#                  an rping client (the server exits), both ends at once;
#                  each time rdma res and xrdma's counts go back to
#                  what they were

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

# bounded SECONDS OUT CMD...: CMD with xrdma's libibverbs, its output in
# OUT; its status, 124 when it ran longer than SECONDS (scaled)
bounded() {
	_b_s=$1 _b_o=$2
	shift 2
	xrdma-run "$@" >"$_b_o" 2>&1 &
	ulp_wait_exit $! "$_b_s"
}

# listening PORT: an rdma_cm id listens on PORT (ib_core's rdma res)
listening() {
	$RDMA res show cm_id 2>/dev/null | grep 'state LISTEN' |
		grep -Eq ":$1( |\$)"
}

# tcp_listening PORT: a TCP socket listens on PORT
tcp_listening() { netstat -ltn 2>/dev/null | grep -q ":$1 "; }

# moved T0 BYTES: xnic's payload counters grew by BYTES since T0
moved() { [ $(($(ulp_traffic) - $1)) -ge "$2" ]; }

# rping_conns N: rdma res shows N connected cm_ids of rping's clients
# (and as many of its server)
rping_conns() {
	[ "$($RDMA res show cm_id 2>/dev/null | grep 'comm rping' |
		grep -c 'state CONNECT')" -ge $((2 * $1)) ]
}

# rping_p_qps N: the rping -P server on port 7950 has a QP on at least N
# connections (its cm_ids from $IP:7950 with a local QP number)
rping_p_qps() {
	[ "$($RDMA res show cm_id 2>/dev/null | grep 'comm rping' |
		grep "src-addr $IP:7950 " | grep -c ' lqpn ')" -ge "$1" ]
}

# serve NAME PORT CMD...: the server CMD (xrdma-run) in the background,
# output in $T/NAME.srv, its pid in SRV; returns once it listens on PORT
serve() {
	_s_n=$1 _s_p=$2
	shift 2
	xrdma-run "$@" >"$T/$_s_n.srv" 2>&1 &
	SRV=$!
	if wait_for 20 listening "$_s_p"; then
		# rdma_listen() shows the id in state LISTEN before ib_cm has
		# the listen of the service ID (6.1 cma.c: the state first, then
		# cma_ib_listen()); a REQ in between is rejected (invalid service
		# ID, reason 8), which perftest's client does not survive: pair
		# takes that outcome again (LISTEN_RACE)
		return 0
	fi
	err "$_s_n: the server does not listen on port $_s_p (rdma res)"
	kill -9 $SRV 2>/dev/null
	wait $SRV
	show "$T/$_s_n.srv"
	return 1
}

# how a client reports the REJECT of a REQ that reached the port before
# ib_cm listened on it (serve): invalid service ID, reason 8
LISTEN_RACE='REJECTED[;,]? error:? 8'

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
	for _p_try in 1 2 3; do
		# shellcheck disable=SC2086 # the server command is split into words
		serve "$_p_n" "$_p_p" $_p_srv || return 1
		bounded 60 "$T/$_p_n.cli" "$@"
		_p_crc=$?
		# the client's connect came between the server's LISTEN and
		# ib_cm's listen (serve): rejected with reason 8, the server
		# never saw it and waits on; both ends again, at most 3 times
		if [ $_p_crc != 0 ] && [ $_p_try -lt 3 ] &&
			grep -Eq "$LISTEN_RACE" "$T/$_p_n.cli"; then
			note "$_p_n: connected before ib_cm listened (REJECTED, reason 8): again"
			kill -9 $SRV 2>/dev/null
			wait $SRV 2>/dev/null
			clean "$_p_n"
			continue
		fi
		break
	done
	ulp_wait_exit $SRV 30
	_p_src=$?
	_p_t1=$(ulp_traffic)
	# $PAIR_HUP_OK (rstream -T a): the client's exit 16 is rstream's
	# do_poll returning POLLHUP -- rsockets reports the peer's close on
	# rpoll even while received data waits to be read, so a server that
	# finished first (its result line, which it prints only after every
	# transfer both ways, verified) can end the client's last receive.
	# One outcome of the race between the two ends, accounted for
	if [ $_p_crc = 16 ] && [ $_p_src = 0 ] && [ -n "${PAIR_HUP_OK:-}" ] &&
		grep -Eq "$PAIR_HUP_OK" "$T/$_p_n.srv"; then
		note "$_p_n: the client's rpoll saw the server's close (POLLHUP) before its last receive; the server completed"
		_p_crc=0
	fi
	# $PAIR_RPING_PINGS (rping -V -v -C N): rping's own exit race
	# (lib/ulp.sh) on either end, once the client printed all N pings,
	# each verified (-V checks a ping before -v prints it)
	if [ -n "${PAIR_RPING_PINGS:-}" ] &&
		[ "$(grep -Ec '^ping data: rdma-ping-[0-9]+: ' "$T/$_p_n.cli")" = "$PAIR_RPING_PINGS" ]; then
		if ulp_rping_exit_race "$_p_crc" "$T/$_p_n.cli"; then
			note "$_p_n: the client's cm_thread read its closed channel at exit (rc 255 after the last ping)"
			_p_crc=0
		fi
		if ulp_rping_exit_race "$_p_src" "$T/$_p_n.srv"; then
			note "$_p_n: the server's cm_thread read its closed channel at exit (rc 255 after the last ping)"
			_p_src=0
		fi
	fi
	if [ $_p_crc != 0 ] || [ $_p_src != 0 ]; then
		err "$_p_n: client rc=$_p_crc server rc=$_p_src"
		show "$T/$_p_n.cli" "$T/$_p_n.srv"
		echo "--- rdma res show cm_id"
		$RDMA res show cm_id 2>&1 | head -n 20
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
	for s in 100:50 65535:8; do
		size=${s%:*} count=${s#*:}
		PAIR_RPING_PINGS=$count
		if pair "rping_$size" 7100 $((2 * size * count)) \
			rping -s -a "$IP" -p 7100 -V -C "$count" -S "$size" -- \
			rping -c -a "$IP" -p 7100 -V -v -C "$count" -S "$size"; then
			expect_line "rping_$size" "$T/rping_$size.cli" \
				'^ping data: rdma-ping-[0-9]+: ' "$count"
		fi
		PAIR_RPING_PINGS=
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
	# udaddy's port is fixed (7174; its -p is the port space); the
	# messages fit the path MTU (udaddy refuses larger ones).  udaddy
	# counts completions without looking at their status: xnic's
	# counters show the bytes were sent
	pair udaddy 7174 $((2 * 2 * 20 * 500)) \
		udaddy -b "$IP" -c 2 -C 20 -S 500 -- \
		udaddy -s "$IP" -c 2 -C 20 -S 500 &&
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
		PAIR_HUP_OK=
		[ "$mode" = a ] && PAIR_HUP_OK='^custom[[:space:]]'
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
		# perftest turns cycles into microseconds with a clock rate
		# it measures at start; under TCG that now and then fails and
		# every number reads inf or -nan although each iteration ran
		# (as in xverbs_tools): such a run is taken again, at most
		# three times in all, and noted
		for try in 1 2 3; do
			port=$((port + 10))
			pair "$prog" $port $((size * n)) \
				"$prog" -R -d xnic0 -F -s "$size" -n "$n" -p $port -- \
				"$prog" -R -d xnic0 -F -s "$size" -n "$n" -p $port "$IP" ||
				break
			if [ $try -lt 3 ] && ! grep -Eq "$ROW" "$T/$prog.cli" &&
				grep -Eq '^[[:space:]]*[0-9]+[[:space:]]+[0-9]+[[:space:]]+(inf|-?nan)' \
					"$T/$prog.cli"; then
				note "$prog: perftest's clock calibration failed (inf/nan), again"
				clean "$prog"
				continue
			fi
			expect_line "$prog" "$T/$prog.cli" "$ROW"
			break
		done
		clean "$prog"
	done
	;;
qperf)
	# the server is qperf without a test (it listens on TCP port -lp for
	# the client's requests); -cm1 connects the RDMA tests through
	# rdma_cm (without it qperf's RC QPs get an address vector without a
	# GRH, which reaches nobody on RoCE).  Each test runs -t 2 seconds:
	# qperf ignores -n in these two ("-n set but not used") and would
	# run forever.  -vv prints the message counts the bytes over xnic
	# are checked against, counted where they arrived (qperf's send
	# counts include what was still queued at the end): 1 byte per
	# rc_lat message received on either side, 64 KiB per
	# rc_rdma_write_bw message received
	xrdma-run qperf -lp 19800 >"$T/qperf.srv" 2>&1 &
	SRV=$!
	if wait_for 20 tcp_listening 19800; then
		t0=$(ulp_traffic)
		bounded 60 "$T/qperf.cli" qperf -lp 19800 -cm1 -t 2 -vv "$IP" \
			rc_lat rc_rdma_write_bw
		rc=$?
		d=$(($(ulp_traffic) - t0))
		lat=$(sed -n 's/^ *\(loc\|rem\)_recv_msgs *= *\([0-9,]*\) *$/\2/p' \
			"$T/qperf.cli" | tr -d , | awk '{ s += $1 } END { print s + 0 }')
		bw=$(sed -n 's/^ *recv_msgs *= *\([0-9,]*\) *$/\1/p' "$T/qperf.cli" | tr -d ,)
		if [ $rc != 0 ]; then
			err "qperf: client rc=$rc"
			show "$T/qperf.cli" "$T/qperf.srv"
		elif expect_line qperf "$T/qperf.cli" '^rc_lat:$' 1 &&
			expect_line qperf "$T/qperf.cli" '^ +latency += +[0-9.]+ [mun]?s(ec)?$' 1 &&
			expect_line qperf "$T/qperf.cli" '^rc_rdma_write_bw:$' 1 &&
			expect_line qperf "$T/qperf.cli" '^ +bw += +[0-9.]+ [KMG]?B/sec$' 1; then
			if [ -z "$lat" ] || [ -z "$bw" ] || [ "$lat" = 0 ] || [ "$bw" = 0 ]; then
				err "qperf: no message counts (rc_lat '$lat', rc_rdma_write_bw '$bw')"
				show "$T/qperf.cli"
			elif [ $d -lt $((bw * 65536 + lat)) ]; then
				err "qperf: xnic carried $d bytes, want at least $((bw * 65536 + lat))" \
					"($lat + $bw x 64 KiB)"
				show "$T/qperf.cli"
			else
				note "qperf: ok, $d bytes over xnic0 ($lat rc_lat messages, $bw x 64 KiB rc_rdma_write_bw)"
				grep -E '^ +(latency|bw) +=' "$T/qperf.cli" | sed 's/^/# /'
			fi
		fi
		kill -0 $SRV 2>/dev/null || err "qperf: the server is gone"
	else
		err "qperf: the server does not listen on TCP port 19800"
	fi
	kill $SRV 2>/dev/null
	ulp_wait_exit $SRV 10 >/dev/null
	clean qperf
	;;
no_listener)
	# nobody listens on port 7700 of $IP: ib_cm answers the connect
	# request with a REJ (invalid service ID); nobody has 198.18.0.2:
	# address resolution (ARP) fails.  Each client exits non-zero with
	# that event, in bounded time (a hang is 124)
	for c in "rping_port REJECTED rping -c -a $IP -p 7700 -C 1" \
		"ucmatose_port REJECTED ucmatose -s $IP -p 7700" \
		"rstream_port rpoll|rconnect|refused rstream -s $IP -p 7700 -S 64 -C 1" \
		"rping_addr ERROR|UNREACHABLE rping -c -a 198.18.0.2 -p 7700 -C 1" \
		"ucmatose_addr ERROR|UNREACHABLE ucmatose -s 198.18.0.2 -p 7700"; do
		# shellcheck disable=SC2086 # the case's words
		set -- $c
		name=$1 pat=$2
		shift 2
		bounded 30 "$T/$name.cli" "$@"
		rc=$?
		if [ $rc = 0 ] || [ $rc = 124 ]; then
			err "$name: '$*' rc=$rc, want a failure without a hang"
			show "$T/$name.cli"
		elif expect_line "$name" "$T/$name.cli" "$pat"; then
			note "$name: rc=$rc, $(grep -E "$pat" "$T/$name.cli" | head -n 1)"
		fi
		clean "$name"
	done
	;;
server_killed)
	# an endless transfer; once xnic carried some of it the server is
	# killed (SIGKILL: its file descriptors close, the kernel destroys
	# its cm_ids -- a DREQ to the peer -- and its QPs).  The client must
	# see it (disconnect event, or completions in error) and exit
	killed() {
		_k_n=$1 _k_p=$2 _k_min=$3 _k_pat=$4 _k_cli=$5
		shift 5
		t0=$(ulp_traffic)
		# shellcheck disable=SC2086 # the server command's words
		serve "$_k_n" "$_k_p" "$@" || return 1
		# shellcheck disable=SC2086 # the client command's words
		xrdma-run $_k_cli >"$T/$_k_n.cli" 2>&1 &
		cli=$!
		if ! wait_for 30 moved "$t0" "$_k_min"; then
			err "$_k_n: xnic carried no $_k_min bytes in 30 s"
			kill -9 $cli $SRV 2>/dev/null
			wait $cli
			wait $SRV
			show "$T/$_k_n.cli" "$T/$_k_n.srv"
			return 1
		fi
		kill -0 $cli 2>/dev/null || err "$_k_n: the client ended early"
		kill -9 $SRV
		wait $SRV
		ulp_wait_exit $cli 30
		rc=$?
		if [ $rc = 124 ]; then
			err "$_k_n: the client did not exit within 30 s of the server's death"
			show "$T/$_k_n.cli"
		elif expect_line "$_k_n" "$T/$_k_n.cli" "$_k_pat"; then
			note "$_k_n: client rc=$rc: $(grep -E "$_k_pat" "$T/$_k_n.cli" | head -n 1)"
		fi
		! grep -q 'data mismatch\|verification failed' "$T/$_k_n.cli" ||
			err "$_k_n: the client saw wrong data"
	}
	killed rping 7800 $((20 * 2 * 4096)) \
		'DISCONNECT EVENT|cq completion failed|wait for RDMA_' \
		"rping -c -a $IP -p 7800 -S 4096 -V" \
		rping -s -a "$IP" -p 7800 -S 4096 -V
	clean rping
	killed rstream 7801 $((2 * 1048576)) \
		'rsend|rrecv|[Cc]onnection' \
		"rstream -s $IP -p 7801 -S 65536 -C 1000000 -T v" \
		rstream -b "$IP" -p 7801 -S 65536 -C 1000000 -T v
	clean rstream
	;;
exit_open)
	# processes exiting (SIGKILL) with their connections up: afterwards
	# rdma res lists nothing of them and xnic0 holds none of their
	# objects (clean), the survivors notice and exit.
	# (1) a persistent rping server (-P) with three endless clients: the
	# server is killed, every client exits
	# One client at a time: rping -P's event thread keeps only the last
	# connect request for its main loop to pick up (rping.c: the cm
	# thread sets child_cm_id, the main loop clones it after sem_wait),
	# so two requests in a row give one cm_id to two threads, whose
	# second rdma_accept() fails (EINVAL) while the other request is
	# never answered.  The next client starts once the server has a QP
	# on the previous one's cm_id (the clone was made).
	t0=$(ulp_traffic)
	if serve rping_p 7950 rping -s -P -a "$IP" -p 7950 -S 1024 -V; then
		clis=
		for i in 1 2 3; do
			xrdma-run rping -c -a "$IP" -p 7950 -S 1024 -V \
				>"$T/rping_p$i.cli" 2>&1 &
			clis="$clis $!"
			wait_for 30 rping_p_qps $i || break
		done
		if wait_for 30 rping_conns 3 && wait_for 30 moved "$t0" $((3 * 2 * 1024)); then
			note "rping -P: $(user_res | grep -c 'comm rping') cm_ids of rping, $(xres | grep -c ' pid ') xrdma objects of processes"
			xres | grep -q ' pid ' ||
				err "rping_p: xrdma lists no object of the processes while connected"
			kill -9 $SRV
			wait $SRV
			i=0
			for c in $clis; do
				i=$((i + 1))
				ulp_wait_exit "$c" 30
				rc=$?
				if [ $rc = 124 ]; then
					err "rping_p: client $i did not exit within 30 s of the server's death"
					show "$T/rping_p$i.cli"
				fi
				! grep -q 'data mismatch' "$T/rping_p$i.cli" ||
					err "rping_p: client $i saw wrong data"
			done
		else
			err "rping_p: not 3 connections with data moving within 30 s"
			user_res | head -n 10 >>"$T/errors"
			# shellcheck disable=SC2086 # the clients' pids
			kill -9 $SRV $clis 2>/dev/null
			wait
			show "$T/rping_p.srv" "$T/rping_p1.cli"
		fi
	fi
	clean rping_p
	# (2) an rping client killed mid-transfer: the server gets the
	# disconnect and exits.  (rstream cannot be used here: a server
	# blocked in rrecv never hears of a dead peer -- rsockets handles
	# the DISCONNECTED event only for sockets still connecting, and its
	# keepalive (-k) sent nothing in that state)
	t0=$(ulp_traffic)
	if serve rping_k 7951 rping -s -a "$IP" -p 7951 -S 4096 -V; then
		xrdma-run rping -c -a "$IP" -p 7951 -S 4096 -V >"$T/rping_k.cli" 2>&1 &
		cli=$!
		if wait_for 30 moved "$t0" $((10 * 2 * 4096)); then
			kill -9 $cli
			wait $cli
			ulp_wait_exit $SRV 30
			rc=$?
			if [ $rc = 124 ]; then
				err "rping_k: the server did not exit within 30 s of the client's death"
				show "$T/rping_k.srv"
			elif expect_line rping_k "$T/rping_k.srv" \
				'DISCONNECT EVENT|cq completion failed|wait for RDMA_'; then
				note "rping_k: server rc=$rc: $(grep -E 'DISCONNECT|failed|wait for' "$T/rping_k.srv" | head -n 1)"
			fi
		else
			err "rping_k: xnic carried no $((10 * 2 * 4096)) bytes in 30 s"
			kill -9 $cli $SRV 2>/dev/null
			wait
			show "$T/rping_k.cli" "$T/rping_k.srv"
		fi
	fi
	clean rping_k
	# (3) both ends of an rping killed at once
	t0=$(ulp_traffic)
	if serve rping_b 7952 rping -s -a "$IP" -p 7952 -S 4096; then
		xrdma-run rping -c -a "$IP" -p 7952 -S 4096 >"$T/rping_b.cli" 2>&1 &
		cli=$!
		if wait_for 30 moved "$t0" $((10 * 2 * 4096)); then
			kill -9 $cli $SRV
		else
			err "rping_b: xnic carried no $((10 * 2 * 4096)) bytes in 30 s"
			kill -9 $cli $SRV 2>/dev/null
			show "$T/rping_b.cli" "$T/rping_b.srv"
		fi
		wait $cli
		wait $SRV
	fi
	clean rping_b
	;;
*)
	teardown
	fail "no such subtest: '$XRDMA_SUBTEST'"
	;;
esac

teardown
fail_on_errors
