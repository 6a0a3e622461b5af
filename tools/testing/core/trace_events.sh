# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 180
# XRDMA_PROGRAMS: trace-cmd ibv_rc_pingpong
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run
#
# The tracepoints of xrdma_core (events/xrdma) and xnic (events/xnic),
# recorded with Debian's trace-cmd around ibv_rc_pingpong over xnic (with
# completion events, -e), and once without a GID (its RTR fails: a RoCE
# address vector needs a GRH).  The report must show what happened: the
# pingpong's PD, CQ, QP and MR published with its pid and removed again,
# its QP through RESET->INIT->RTR->RTS with ret=0, the refused RTR with
# ret=-22, every device command submitted and completed with status 0
# under the same token, and completion EQEs (type 1).

mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
[ -d /sys/kernel/tracing/events ] || fail "no tracefs"
mount_debugfs
xnic_stack_up 1
: >"$XRDMA_TMP/errors"
err() { echo "$*" >>"$XRDMA_TMP/errors"; }
for sys in xrdma xnic; do
	assert_dir "/sys/kernel/tracing/events/$sys"
done

T=$XRDMA_TMP/trace
trace-cmd start -e xrdma -e xnic >"$T.start" 2>&1 || fail "trace-cmd start: $(cat "$T.start")"

port=18700
# pp ARGS...: a pingpong pair over xnic0; prints the server's pid
pp() {
	port=$((port + 1))
	timeout 60 xrdma-run ibv_rc_pingpong -d xnic0 -p $port "$@" >"$XRDMA_TMP/srv" 2>&1 &
	_pid=$!
	wait_for 10 sh -c "netstat -ltn 2>/dev/null | grep -q ':$port '" ||
		err "server never listened: $(cat "$XRDMA_TMP/srv")"
	timeout 60 xrdma-run ibv_rc_pingpong -d xnic0 -p $port "$@" 127.0.0.1 \
		>"$XRDMA_TMP/cli" 2>&1
	_crc=$?
	wait $_pid
	_src=$?
}
pp -g 0 -n 50 -e
[ "$_crc" = 0 ] && [ "$_src" = 0 ] ||
	err "pingpong: client rc=$_crc server rc=$_src: $(cat "$XRDMA_TMP/cli")"
pp -n 5
[ "$_crc" != 0 ] && [ "$_src" != 0 ] ||
	err "pingpong without a GID: client rc=$_crc server rc=$_src, want both failed"

trace-cmd stop >/dev/null 2>&1
trace-cmd extract -o "$T.dat" >"$T.extract" 2>&1 || fail "trace-cmd extract: $(cat "$T.extract")"
trace-cmd report -i "$T.dat" >"$T.txt" 2>"$T.report.err" || fail "trace-cmd report: $(cat "$T.report.err")"
trace-cmd reset >/dev/null 2>&1
note "$(grep -c . "$T.txt") trace lines"

has() { grep -Eq "$1" "$T.txt" || err "no trace line matching '$1'"; }
for t in pd cq qp mr; do
	has "xrdma_res_add: +dev=xnic0 $t=[0-9]+ pid=[1-9][0-9]* kern="
	has "xrdma_res_del: +dev=xnic0 $t=[0-9]+ pid=[1-9][0-9]* kern="
done
has "xrdma_modify_qp: +dev=xnic0 qpn=[0-9]+ type=2 RESET->INIT mask=0x[0-9a-f]+ ret=0"
has "xrdma_modify_qp: +dev=xnic0 qpn=[0-9]+ type=2 INIT->RTR mask=0x[0-9a-f]+ ret=0"
has "xrdma_modify_qp: +dev=xnic0 qpn=[0-9]+ type=2 RTR->RTS mask=0x[0-9a-f]+ ret=0"
has "xrdma_modify_qp: +dev=xnic0 qpn=[0-9]+ type=2 INIT->RTR mask=0x[0-9a-f]+ ret=-22"
has "xnic_eqe: +dev=xnic0 type=1 data=[0-9]+"
# every QP created is destroyed: as many res_add as res_del lines for QPs
qa=$(grep -Ec "xrdma_res_add: +dev=xnic0 qp=" "$T.txt")
qd=$(grep -Ec "xrdma_res_del: +dev=xnic0 qp=" "$T.txt")
[ "$qa" -ge 4 ] && [ "$qa" = "$qd" ] || err "QPs published $qa, removed $qd (want equal, >= 4)"
# each command submitted is completed, under its token, status 0 here
sed -nE 's/.*xnic_cmd_submit: +dev=xnic0 opcode=(0x[0-9a-f]+) token=([0-9]+).*/\1 \2/p' \
	"$T.txt" | sort >"$T.sub"
sed -nE 's/.*xnic_cmd_done: +dev=xnic0 opcode=(0x[0-9a-f]+) token=([0-9]+) status=0 ret=0.*/\1 \2/p' \
	"$T.txt" | sort >"$T.done"
[ -s "$T.sub" ] || err "no xnic_cmd_submit line"
cmp -s "$T.sub" "$T.done" ||
	err "commands submitted and completed with status 0 differ: $(diff "$T.sub" "$T.done" | head -n 5)"
note "$(wc -l <"$T.sub") device commands traced"

if [ -s "$XRDMA_TMP/errors" ]; then
	head -n 40 "$T.txt"
	fail "$(cat "$XRDMA_TMP/errors")"
fi
xnic_stack_end xnic0
