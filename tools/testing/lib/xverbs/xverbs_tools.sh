# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 420
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run
# XRDMA_PROGRAMS: ibv_devices ibv_devinfo ibv_rc_pingpong ibv_ud_pingpong
# XRDMA_PROGRAMS: ibv_srq_pingpong ib_write_bw ib_write_lat ib_read_bw
# XRDMA_PROGRAMS: ib_read_lat ib_send_bw ib_send_lat ib_atomic_bw
# XRDMA_PROGRAMS: ib_atomic_lat
#
# Debian's stock verbs programs (rdma-core 44's ibverbs-utils, perftest),
# unmodified, over xnic through xrdma's libibverbs.so.1 (scripts/xrdma-run):
# discovery, ibv_devinfo -v, the pingpongs in their modes (events, the
# ibv_wr_* API, the extended CQ with timestamps, data validation, several
# sizes), and every perftest latency/bandwidth program, server and client
# in this guest over one device.  Each must exit 0 with its result line;
# the device holds no object afterwards.  Without -g a pingpong's address
# vector has no GRH, which a RoCE port refuses (EINVAL): both sides must
# fail at once, as on rxe.

command -v xrdma-run >/dev/null || fail "xrdma-run not in the guest"
[ -f /usr/bin/libibverbs.so.1 ] || fail "xverbs' libibverbs.so.1 not shipped (not built?)"
mount_debugfs
xnic_stack_up 1
: >"$XRDMA_TMP/errors"

err() { echo "$*" >>"$XRDMA_TMP/errors"; }

out=$XRDMA_TMP/out
# the system's libibverbs knows no xnic: what finds it below is ours
ibv_devices >"$out" 2>&1
grep -q xnic0 "$out" && err "the system's libibverbs lists xnic0: $(cat "$out")"
xrdma-run ibv_devices >"$out" 2>&1 || err "ibv_devices rc=$?"
grep -Eq '^[[:space:]]+xnic0[[:space:]]+[0-9a-f]{16}$' "$out" ||
	err "ibv_devices: no 'xnic0 <guid>' line: $(cat "$out")"

xrdma-run ibv_devinfo -v -d xnic0 >"$out" 2>&1 || err "ibv_devinfo -v rc=$?"
guid=$(sed 's/://g' /sys/class/xrdma/uverbs0/node_guid)
for want in "hca_id:	xnic0" "node_guid:	*$(cat /sys/class/xrdma/uverbs0/node_guid)" \
	"PORT_ACTIVE" "link_layer:		Ethernet" "GID\[  0\]:" \
	"completion timestamp_mask" "max_qp_wr:"; do
	grep -q "$want" "$out" || err "ibv_devinfo -v: no '$want'"
done
[ -n "$guid" ] || err "no node_guid in sysfs"

port=18515
# pair NAME PATTERN SERVER_CMD... -- CLIENT_ARGS...: the server in the
# background, the client against 127.0.0.1; both exit 0, the client's
# output matches PATTERN.  perftest turns cycles into microseconds with
# a clock rate it measures at start; under TCG on a loaded host that
# measurement fails now and then and the numbers read "inf" or "-nan"
# although every iteration ran.  Such a run is the tool's, not ours: it
# is run again (at most twice), and noted.
pair() {
	_name=$1 _pat=$2
	shift 2
	_srv=
	while [ "$1" != -- ]; do
		_srv="$_srv $1"
		shift
	done
	shift
	_try=1
	while :; do
		pair_once "$@"
		_rc=$?
		if [ "$_rc" != 2 ] || [ "$_try" -ge 3 ]; then
			break
		fi
		note "$_name: perftest's clock calibration failed (inf/nan), again"
		_try=$((_try + 1))
	done
	if [ "$_rc" != 0 ]; then
		err "$_name: client rc=$_crc server rc=$_src"
		echo "--- $_name client"
		cat "$XRDMA_TMP/cli"
		echo "--- $_name server"
		cat "$XRDMA_TMP/srv"
		return 1
	fi
	note "$_name: $(grep -E "$_pat" "$XRDMA_TMP/cli" | tail -n 1)"
}

# pair_refused NAME MESSAGE SERVER_CMD... -- CLIENT_ARGS...: like pair, but
# the server must fail with MESSAGE on stderr and the client fail too,
# both by themselves (not killed by the timeout, 124)
pair_refused() {
	_name=$1 _msg=$2
	shift 2
	_srv=
	while [ "$1" != -- ]; do
		_srv="$_srv $1"
		shift
	done
	shift
	pair_once "$@"
	if [ "$_src" = 0 ] || [ "$_src" = 124 ] || [ "$_crc" = 0 ] ||
	   [ "$_crc" = 124 ] || ! grep -q "$_msg" "$XRDMA_TMP/srv"; then
		err "$_name: client rc=$_crc server rc=$_src, want both failed and the server saying '$_msg'"
		echo "--- $_name client"
		cat "$XRDMA_TMP/cli"
		echo "--- $_name server"
		cat "$XRDMA_TMP/srv"
		return 1
	fi
	note "$_name: refused (server: $_msg; rc $_src, client rc $_crc)"
}

# pair_once CLIENT_ARGS...: one run of pair; 0 passed, 2 both sides
# succeeded but the client printed inf/nan numbers, 1 failed
pair_once() {
	port=$((port + 1))
	# shellcheck disable=SC2086 # word splitting of the command is wanted
	timeout 60 xrdma-run $_srv -p $port >"$XRDMA_TMP/srv" 2>&1 &
	_pid=$!
	_i=0
	# the server listens before the client connects
	while ! netstat -ltn 2>/dev/null | grep -q ":$port "; do
		_i=$((_i + 1))
		if [ $_i -gt 200 ] || ! kill -0 $_pid 2>/dev/null; then
			break
		fi
		sleep 0.05
	done
	# shellcheck disable=SC2086
	timeout 60 xrdma-run $_srv -p $port "$@" 127.0.0.1 >"$XRDMA_TMP/cli" 2>&1
	_crc=$?
	wait $_pid
	_src=$?
	[ $_crc = 0 ] && [ $_src = 0 ] || return 1
	grep -Eq "$_pat" "$XRDMA_TMP/cli" && return 0
	grep -Eq '^[[:space:]]*[0-9]+[[:space:]]+[0-9]+[[:space:]]+-?(inf|nan)' \
		"$XRDMA_TMP/cli" && return 2
	return 1
}

PP='^[0-9]+ iters in [0-9.]+ seconds = [0-9.]+ usec/iter$'
pair rc_pingpong "$PP" ibv_rc_pingpong -d xnic0 -g 0 -n 200 --
pair rc_pingpong_events "$PP" ibv_rc_pingpong -d xnic0 -g 0 -n 200 -e --
pair rc_pingpong_new_send "$PP" ibv_rc_pingpong -d xnic0 -g 0 -n 200 -N --
pair rc_pingpong_ts "$PP" ibv_rc_pingpong -d xnic0 -g 0 -n 200 -t --
for size in 1 4096 65536 1048576; do
	pair "rc_pingpong_chk_$size" "$PP" \
		ibv_rc_pingpong -d xnic0 -g 0 -n 50 -c -s $size --
done
pair ud_pingpong "$PP" ibv_ud_pingpong -d xnic0 -g 0 -n 200 -s 1024 --
pair srq_pingpong "$PP" ibv_srq_pingpong -d xnic0 -g 0 -n 100 -q 4 --
# without -g: the peer by LID only, no GRH (RTR of RC, the AH of UD)
pair_refused rc_pingpong_no_gid "Failed to modify QP to RTR" \
	ibv_rc_pingpong -d xnic0 -n 10 --
pair_refused ud_pingpong_no_gid "Failed to create AH" \
	ibv_ud_pingpong -d xnic0 -n 10 -s 1024 --

# perftest: the result row is "<bytes> <iterations> <numbers...>"
BW='^[[:space:]]*[0-9]+([[:space:]]+[0-9.]+){4}'
LAT='^[[:space:]]*[0-9]+([[:space:]]+[0-9.]+){4}'
for t in ib_write_bw ib_read_bw ib_send_bw ib_atomic_bw; do
	pair "$t" "$BW" $t -d xnic0 -n 500 -F --
done
pair ib_write_bw_64 "$BW" ib_write_bw -d xnic0 -n 2000 -s 64 -F --
for t in ib_write_lat ib_read_lat ib_send_lat ib_atomic_lat; do
	pair "$t" "$LAT" $t -d xnic0 -n 500 -F --
done

xnic_no_objects xnic0 || {
	err "objects left on xnic0"
	cat "$XRDMA_DEBUGFS/xrdma/xnic0/resources"
}
xnic_stack_down
if [ -s "$XRDMA_TMP/errors" ]; then
	cat "$XRDMA_TMP/errors"
	fail "$(wc -l <"$XRDMA_TMP/errors") failure(s), first: $(head -n 1 "$XRDMA_TMP/errors")"
fi
