# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_DEBIAN_MODULES: configfs ib_core
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run
# XRDMA_PROGRAMS: scripts/xrdma-fault
# XRDMA_PROGRAMS: ibv_rc_pingpong ibv_devinfo ibv_asyncwatch ibv_srq_pingpong
# XRDMA_PROGRAMS: tools/testing/lib/xverbs/xv_gone
# XRDMA_PROGRAMS: tools/testing/hw/xnic/xnic_utest
# XRDMA_SUBTEST: link 300
# XRDMA_SUBTEST: drop 240
# XRDMA_SUBTEST: naks 300
# XRDMA_SUBTEST: priv 150
# XRDMA_SUBTEST: unload 360
# XRDMA_SUBTEST: events 240
# XRDMA_SUBTEST: fatal 420
# XRDMA_SUBTEST: cmds 300
#
# xnic_sim's fault injection (issue 26): the configfs tree
# /sys/kernel/config/xnic_sim/<N>/ and its CLI scripts/xrdma-fault, seen
# through Debian's unmodified verbs programs (rdma-core 44's
# ibverbs-utils, on xrdma's libibverbs through scripts/xrdma-run):
#   link    xnic_sim ndev=2 cable=0-1.  "xrdma-fault link xnic0 down":
#           configfs link reads "down"; both ends of the cable are down:
#           ibv_asyncwatch on each device prints IBV_EVENT_PORT_ERR,
#           ibv_devinfo says PORT_DOWN, the netdevs (up) lose carrier,
#           and with xrdma_ib loaded (when built) ib_core's port state is
#           DOWN.  "link xnic0 up": all of it back (PORT_ACTIVE events),
#           and an ibv_rc_pingpong -c from xnic1 to xnic0 over the cable
#           passes.  "flap xnic0 200": at least two more PORT_ERR and
#           PORT_ACTIVE events each; "flap xnic0/1 off": flap_ms 0, the
#           port active and staying so
#   drop    one device, loopback ibv_rc_pingpong -c (200 x 4096 bytes)
#           under "add xnic0 drop --rate 5% --seed 7": it passes, the rule
#           matched every message and injected some (the device's
#           injected and hw_counters/retries grew alike); under a 100%
#           drop rule the client (the only side that sends: the server
#           answers what it receives) fails by itself with "transport
#           retry counter exceeded" after its retry_cnt (7) retries
#   naks    "add xnic0 rnr --count 3": the pingpong passes, injected 3,
#           hw_counters/rnr_naks up by at least 3; with --count 1 rules
#           nak_access, nak_op, nak_inv and "cqe_err --status rem_op_err
#           --opcode send" a side of a loopback pingpong fails by itself
#           with "remote access error", "remote operation error",
#           "remote invalid request error", "remote operation error";
#           once the rules are gone a pingpong passes again
#   priv    uid 65534 cannot mkdir a rule, read a root-made rule's qp,
#           write link or flap_ms, nor "xrdma-fault add"/"link"; it can
#           read link (0644); nothing changed (the link is up, no rule
#           x); root then can add rule x
#   unload  xnic_sim ndev=4 (cable 0-1,2-3): loopback traffic on xnic0
#           under a 5% drop rule that fires, xnic2 flapping every 50 ms
#           (ibv_asyncwatch sees it), then twice: the driver goes first
#           (rmmod xnic, then xnic_sim with the rule and the flap still
#           on), and the model goes first under the bound driver and the
#           traffic.  rmmod xnic_sim is refused while the rule exists
#           (configfs holds the module) and succeeds once the rules are
#           removed, the configfs tree going with it; every rmmod
#           completes within 20 s; no kernel splat
#   events  the events on demand, on objects of waiting pingpong servers
#           (ibv_rc_pingpong, ibv_srq_pingpong: a QP in INIT, its CQ, an
#           SRQ), their numbers taken from debugfs xrdma/xnic0/resources
#           (a server's "local address" line sits in its stdio buffer).
#           "qp-error xnic0 0xQPN req", "... QPN access" and "... QPN"
#           (fatal): the model's QP is in ERR, xrdma_core's tracepoint
#           xrdma_async_event shows QP_REQ_ERR / QP_ACCESS_ERR / QP_FATAL
#           for it; ibv_asyncwatch on xnic0, another process, prints
#           nothing (a QP's events go to its owner only; rdma-core 44's
#           asyncwatch would not name them anyway: "unexpected"); the
#           owner meets its QP in error: once a client connects, its RTR
#           fails ("Failed to modify QP to RTR") and both sides end by
#           themselves.  Again on the same QP: EINVAL.  "cq-error" on a
#           server's CQ: CQ_ERR traced; again: EINVAL.  "srq-limit" on
#           ibv_srq_pingpong's SRQ, whose limit is not armed: EAGAIN, and
#           no event.  qp-error, cq-error, srq-limit on numbers no object
#           has: ENOENT.  (An armed SRQ's SRQ_LIMIT_REACHED, and the events
#           reaching their owner's async fd, need a program of our own:
#           KUnit's xnic_sim_fault_test covers the model's side.)
#   fatal   xnic_sim ndev=2 cable 0-1, xrdma_ib loaded when built.
#           "xrdma-fault fatal xnic0": ibv_asyncwatch on xnic0 prints
#           IBV_EVENT_DEVICE_FATAL and ends by itself (its next read
#           fails), the kernel log has the model's "device fatal
#           (injected)" and the driver's "xnic xnic.N: recovered"; xnic0
#           is back (xrdma and ib device, uverbs node) with its port
#           active, and a pingpong xnic1 -> xnic0 passes.  Then under
#           traffic: a loopback pingpong on xnic0 and one from xnic0 to a
#           server on xnic1; on fatal both loopback sides and the xnic0
#           client end by themselves with an error (disassociated: SIGBUS
#           on their rings, or EIO); the xnic1 server, if its SEND was in
#           flight, ends with a retry error, else it waits for a message
#           that never comes (RC has no keepalive) and is stopped; xnic0
#           comes back and works again.  Then xv_gone, which acknowledged
#           completion, SRQ and QP events on xnic0, destroys everything once
#           the fatal error disassociated it: each call returns 0 within
#           20 s (it once waited for ever in ibv_destroy_cq).
#           ibv_asyncwatch on xnic1 sees no DEVICE_FATAL through all of
#           it.  Last, with the xnic parameter
#           recover 0: fatal is reported (DEVICE_FATAL) but no recovery
#           follows within 5 s; a process that held objects then destroys
#           them, each DESTROY answering EIO (xnic_utest "fatal": the
#           handle is gone, and the library knows to touch no mapping);
#           a second "fatal" is refused (EINVAL), and the stack unloads
#           (xrdma_ib and xnic within 20 s each)
#   cmds    one device, device commands failed and never answered.
#           "add xnic0 cmd_fail --command create_qp --count 1" (list shows
#           command=create_qp cmd_status=no_resources): an
#           ibv_rc_pingpong server fails by itself, before it listens,
#           with "Couldn't create QP" (rc 1), the rule injected 1; a
#           pingpong then passes.  "cmd_fail --command create_cq
#           --cmd-status busy --count 1": "Couldn't create CQ".  "cmd_fail
#           --command destroy_qp" is accepted but never matches (a command
#           that releases an object is never refused): a pingpong passes,
#           the rule matched 0, no "destroy command" warning in the kernel
#           log.  With xnic.cmd_timeout_ms 1000, "cmd_timeout --command
#           create_cq --count 1": a server fails by itself with "Couldn't
#           create CQ", the kernel log has the driver's "command 0x02 timed
#           out" and then "recovered"; xnic0 is back and a pingpong
#           passes; the rule, the model's, survived the reset, used up
#           (injected 1)
# Every subtest checks the kernel log of its run for splats and leaves
# no module of ours loaded; an EXIT trap removes the rules and unloads the
# stack on every failure path.

CFS=/sys/kernel/config/xnic_sim
HC=/sys/class/xrdma_device/xnic0/hw_counters
SCALE=${XRDMA_TIMEOUT_SCALE:-1}
# a pingpong's own limit: longer than any wait_for on it below
PPT=$((180 * SCALE))
PORT=18700
BG=""
IB=0
SPLAT='WARNING:|BUG:|kernel BUG at|Oops|general protection fault|KASAN:|UBSAN:|refcount_t:|list_(add|del) corruption|possible (circular|recursive) locking|inconsistent lock state|suspicious RCU usage|INFO: task .* blocked'

command -v xrdma-run >/dev/null || fail "xrdma-run not in the guest"
command -v xrdma-fault >/dev/null || fail "xrdma-fault not in the guest"
: >"$XRDMA_TMP/errors"

# ---------------------------------------------------------------- helpers

# bg_run NAME CMD...: CMD in the background, its output in
# $XRDMA_TMP/NAME.out, its pid in NAME.pid, its exit status in NAME.rc
# once it ended (by itself: 1 for a failed ibv_rc_pingpong; stopped by
# bg_stop: 143 or 137)
bg_run() {
	_bn=$1
	shift
	rm -f "$XRDMA_TMP/$_bn.rc" "$XRDMA_TMP/$_bn.pid"
	(
		"$@" >"$XRDMA_TMP/$_bn.out" 2>&1 &
		echo $! >"$XRDMA_TMP/$_bn.pid.new"
		mv "$XRDMA_TMP/$_bn.pid.new" "$XRDMA_TMP/$_bn.pid"
		wait $! 2>/dev/null
		echo $? >"$XRDMA_TMP/$_bn.rc.new"
		mv "$XRDMA_TMP/$_bn.rc.new" "$XRDMA_TMP/$_bn.rc"
	) &
	echo $! >"$XRDMA_TMP/$_bn.sub"
	BG="$BG $_bn"
	wait_for 5 test -s "$XRDMA_TMP/$_bn.pid" || fail "$_bn did not start"
}

bg_done() { [ -s "$XRDMA_TMP/$1.rc" ]; }

bg_rc() { cat "$XRDMA_TMP/$1.rc" 2>/dev/null; }

# shellcheck disable=SC2317 # called through wait_for
bg_all_done() {
	for _bd in "$@"; do
		bg_done "$_bd" || return 1
	done
}

# bg_ok NAME SECONDS WHAT: the background program NAME (WHAT it is)
# ends within SECONDS with status 0, else its output and a failure
bg_ok() {
	wait_for "$2" bg_done "$1" || {
		cat "$XRDMA_TMP/$1.out"
		fail "$3 still running after $2 s"
	}
	[ "$(bg_rc "$1")" = 0 ] || {
		cat "$XRDMA_TMP/$1.out"
		fail "$3 rc=$(bg_rc "$1"): $(grep -m 1 -E '^not ok|Bail out' "$XRDMA_TMP/$1.out")"
	}
}

# bg_stop NAME...: end these background programs (SIGTERM, SIGKILL 10 s
# later) and reap them
bg_stop() {
	for _bs in "$@"; do
		[ -s "$XRDMA_TMP/$_bs.pid" ] || continue
		bg_done "$_bs" || kill "$(cat "$XRDMA_TMP/$_bs.pid")" 2>/dev/null
	done
	if ! wait_for 10 bg_all_done "$@"; then
		for _bs in "$@"; do
			[ -s "$XRDMA_TMP/$_bs.pid" ] || continue
			bg_done "$_bs" ||
				kill -9 "$(cat "$XRDMA_TMP/$_bs.pid")" 2>/dev/null
		done
	fi
	for _bs in "$@"; do
		[ -s "$XRDMA_TMP/$_bs.sub" ] && wait "$(cat "$XRDMA_TMP/$_bs.sub")" 2>/dev/null
		rm -f "$XRDMA_TMP/$_bs.sub"
	done
}

# tries N CMD...: CMD until it succeeds, at most N times 0.2 s apart (for
# a slow CMD such as ibv_devinfo, whose own time wait_for does not count)
tries() {
	_tn=$1
	shift
	until "$@"; do
		_tn=$((_tn - 1))
		[ $_tn -gt 0 ] || return 1
		sleep 0.2
	done
}

# sim_idx DEV: the model index N of the xrdma device DEV (platform device
# xnic.N)
sim_idx() {
	_sl=$(readlink "/sys/class/xrdma_device/$1/device") || return 1
	_sl=${_sl##*/}
	case $_sl in
	xnic.[0-9]*) echo "${_sl#xnic.}" ;;
	*) return 1 ;;
	esac
}

# sim_up NDEV [CABLE]: xrdma_core, xrdma_uverbs, xnic_sim ndev=NDEV
# (cable=CABLE if given) and xnic (those not loaded yet); xnic0.. with
# their uverbs nodes; configfs mounted and each device's directory there
sim_up() {
	mount_debugfs
	for _m in xrdma_core xrdma_uverbs xnic_sim xnic; do
		module_loaded $_m && continue
		_ko=$(xko $_m) || exit 1
		if [ $_m != xnic_sim ]; then
			insmod "$_ko" || fail "insmod $_m"
		elif [ -n "${2:-}" ]; then
			insmod "$_ko" ndev="$1" cable="$2" ||
				fail "insmod xnic_sim ndev=$1 cable=$2"
		else
			insmod "$_ko" ndev="$1" || fail "insmod xnic_sim ndev=$1"
		fi
	done
	grep -q " /sys/kernel/config configfs " /proc/mounts ||
		mount -t configfs none /sys/kernel/config ||
		fail "cannot mount configfs"
	_si=0
	while [ $_si -lt "$1" ]; do
		wait_xrdma_dev "xnic$_si" || fail "xnic$_si did not appear"
		wait_for 10 uverbs_of "xnic$_si" >/dev/null ||
			fail "no uverbs node of xnic$_si"
		_sx=$(sim_idx "xnic$_si") || fail "xnic$_si is no xnic_sim device"
		wait_for 10 test -d "$CFS/$_sx" || fail "no $CFS/$_sx (xnic$_si)"
		_si=$((_si + 1))
	done
}

# rules_rm: remove every rule of every model device
rules_rm() {
	for _r in "$CFS"/*/rules/*; do
		[ ! -d "$_r" ] || rmdir "$_r" || echo "rmdir $_r failed" >&2
	done
}

# rules_clear: no rule, no flap, the links up
rules_clear() {
	rules_rm
	for _d in "$CFS"/*; do
		[ -d "$_d" ] || continue
		[ ! -e "$_d/flap_ms" ] || echo 0 >"$_d/flap_ms"
		[ ! -e "$_d/link" ] || echo up >"$_d/link"
	done
}

# cleanup: the EXIT trap, on every path: the background programs end,
# the rules go (they may hold xnic_sim), everything unloads
# shellcheck disable=SC2317 # the EXIT trap
cleanup() {
	trap - EXIT
	# shellcheck disable=SC2086 # a list of names
	bg_stop $BG
	BG=""
	rules_clear 2>/dev/null
	trace_off
	! module_loaded xrdma_ib || rmmod xrdma_ib
	xnic_stack_down
}
trap cleanup EXIT

# klog_mark NAME: a line in the kernel log for klog_since NAME to read
# after.  Not a line count: in a long boot the ring buffer is full, old
# lines leave as new ones come, and a count points nowhere.
klog_mark() {
	echo "xnic_fault: mark $1" >/dev/kmsg
}

# klog_since NAME: the kernel log after the last mark NAME (all of it if
# the mark left the ring buffer)
klog_since() {
	dmesg | awk -v m="xnic_fault: mark $1" '
		length($0) >= length(m) &&
		substr($0, length($0) - length(m) + 1) == m { n = 0; next }
		{ l[n++] = $0 }
		END { for (i = 0; i < n; i++) print l[i] }'
}

klog_mark start

# dmesg_check: no splat in the kernel log since the subtest began
dmesg_check() {
	_dm=$(klog_since start | grep -E "$SPLAT" | head -n 3)
	[ -z "$_dm" ] || fail "kernel log: $_dm"
}

# stack_end DEV...: tear down what sim_up loaded (no object may be left
# on DEV...) and check that nothing is loaded and the kernel said nothing
stack_end() {
	# shellcheck disable=SC2086
	bg_stop $BG
	BG=""
	for _r in "$CFS"/*/rules/*; do
		[ ! -d "$_r" ] || echo "rule ${_r#"$CFS"/} left" >>"$XRDMA_TMP/errors"
	done
	rules_clear
	trace_off
	if module_loaded xrdma_ib; then
		rmmod xrdma_ib || echo "rmmod xrdma_ib failed" >>"$XRDMA_TMP/errors"
	fi
	xnic_stack_end "$@"
	fail_on_errors
	for _m in xrdma_ib xnic xnic_sim xrdma_uverbs xrdma_core; do
		! module_loaded $_m || fail "module $_m still loaded"
	done
	[ ! -e "$CFS" ] || fail "$CFS left after rmmod xnic_sim"
	dmesg_check
}

# port_is DEV STATE: ibv_devinfo shows port 1 of DEV in STATE (PORT_DOWN,
# PORT_ACTIVE)
port_is() {
	xrdma-run ibv_devinfo -d "$1" -i 1 >"$XRDMA_TMP/devinfo.$1" 2>&1 &&
		grep -Eq "^[[:space:]]+state:[[:space:]]+$2 \\(" "$XRDMA_TMP/devinfo.$1"
}

# port_state DEV: the state ibv_devinfo showed last (its output if none)
port_state() {
	_ps=$(sed -n 's/^[[:space:]]*state:[[:space:]]*//p' "$XRDMA_TMP/devinfo.$1")
	[ -n "$_ps" ] || _ps="no state: $(head -n 3 "$XRDMA_TMP/devinfo.$1")"
	echo "$_ps"
}

# shellcheck disable=SC2317 # called through wait_for
carrier_is() { [ "$(cat "/sys/class/net/$1/carrier" 2>/dev/null)" = "$2" ]; }

# shellcheck disable=SC2317 # called through wait_for
ib_state_is() {
	[ "$(cat "/sys/class/infiniband/$1/ports/1/state" 2>/dev/null)" = "$2" ]
}

# ib_load WHAT: xrdma_ib loaded when built and ib_core's xnic0 and xnic1
# there (IB=1); else a note that ib_core's view of WHAT is left out
ib_load() {
	if ! has_ko xrdma_ib; then
		note "xrdma_ib not built: ib_core's view of $1 left out"
		return 0
	fi
	insmod "$(xko xrdma_ib)" || fail "insmod xrdma_ib"
	for _id in xnic0 xnic1; do
		wait_for 10 test -d "/sys/class/infiniband/$_id" ||
			fail "no /sys/class/infiniband/$_id"
	done
	IB=1
}

# aw_start NAME DEV: ibv_asyncwatch on DEV in the background, its context
# open (it printed its first line)
aw_start() {
	bg_run "$1" xrdma-run ibv_asyncwatch -d "$2"
	wait_for 20 grep -q "^$2: async event FD [0-9]" "$XRDMA_TMP/$1.out" || {
		cat "$XRDMA_TMP/$1.out"
		fail "ibv_asyncwatch -d $2 did not start"
	}
}

# nev NAME EVENT: how many IBV_EVENT_EVENT of port 1 asyncwatch NAME
# printed ("  event_type IBV_EVENT_PORT_ERR (10), port 1")
nev() {
	grep -c "^  event_type IBV_EVENT_$2 ([0-9]*), port 1\$" "$XRDMA_TMP/$1.out"
}

# shellcheck disable=SC2317 # called through wait_for
ev_ge() { [ "$(nev "$1" "$2")" -ge "$3" ]; }

# last_ev NAME EVENT: the last event asyncwatch NAME printed was EVENT
# shellcheck disable=SC2317 # called through wait_for
last_ev() {
	grep "^  event_type " "$XRDMA_TMP/$1.out" | tail -n 1 |
		grep -q "IBV_EVENT_$2 "
}

# gt0 FILE: FILE holds a number > 0
# shellcheck disable=SC2317 # called through wait_for
gt0() {
	_g=$(cat "$1" 2>/dev/null)
	[ -n "$_g" ] && [ "$_g" -gt 0 ] 2>/dev/null
}

hwc() { cat "$HC/$1"; }

# pp_listen PORT NAME: the pingpong server NAME listens on PORT
pp_listen() {
	_pi=0
	while ! netstat -ltn 2>/dev/null | grep -q ":$1 "; do
		_pi=$((_pi + 1))
		if [ $_pi -gt $((200 * SCALE)) ] || bg_done "$2"; then
			cat "$XRDMA_TMP/$2.out"
			fail "the pingpong server $2 does not listen on port $1"
		fi
		sleep 0.05
	done
}

# pp_ok LABEL SDEV CDEV ARGS...: an ibv_rc_pingpong server on SDEV and its
# client on CDEV (over 127.0.0.1) must both exit 0, the client with its
# "N iters in" line, and neither finding invalid data (-c)
pp_ok() {
	_ol=$1 _os=$2 _oc=$3
	shift 3
	PORT=$((PORT + 1))
	timeout "$PPT" xrdma-run ibv_rc_pingpong -d "$_os" -g 0 -p $PORT "$@" \
		>"$XRDMA_TMP/$_ol.srv" 2>&1 &
	_op=$!
	_oi=0
	while ! netstat -ltn 2>/dev/null | grep -q ":$PORT "; do
		_oi=$((_oi + 1))
		[ $_oi -le $((200 * SCALE)) ] || break
		kill -0 $_op 2>/dev/null || break
		sleep 0.05
	done
	timeout "$PPT" xrdma-run ibv_rc_pingpong -d "$_oc" -g 0 -p $PORT "$@" \
		127.0.0.1 >"$XRDMA_TMP/$_ol.cli" 2>&1
	_ocr=$?
	wait $_op
	_osr=$?
	if [ $_ocr != 0 ] || [ $_osr != 0 ] ||
		! grep -q "^[0-9]* iters in " "$XRDMA_TMP/$_ol.cli" ||
		grep -q "invalid data" "$XRDMA_TMP/$_ol.srv" "$XRDMA_TMP/$_ol.cli"; then
		echo "--- $_ol server ($_os)"
		cat "$XRDMA_TMP/$_ol.srv"
		echo "--- $_ol client ($_oc)"
		cat "$XRDMA_TMP/$_ol.cli"
		fail "$_ol: ibv_rc_pingpong $* ($_os <- $_oc): server rc=$_osr, client rc=$_ocr"
	fi
	note "$_ol: $(grep "^[0-9]* iters in " "$XRDMA_TMP/$_ol.cli")"
}

# pp_said NAME STATUS: pingpong side NAME ended by itself with a failure
# (rc 1) and said "Failed status STATUS (N) for wr_id N"
pp_said() {
	[ "$(bg_rc "$1")" = 1 ] &&
		grep -q "^Failed status $2 ([0-9]*) for wr_id" "$XRDMA_TMP/$1.out"
}

# shellcheck disable=SC2317 # called through wait_for
pp_one_done() { bg_done "$1.srv" || bg_done "$1.cli"; }

# pp_fail LABEL STATUS ARGS...: a loopback ibv_rc_pingpong on xnic0 that a
# rule breaks.  The side whose send failed must end by itself saying
# STATUS; the other waits for a message that never comes and is stopped
# (given 10 s to end too when the first to end did not say it).
# FAILED_SIDE: "cli", "srv" or "cli+srv", who said it.
pp_fail() {
	_fl=$1 _fs=$2
	shift 2
	PORT=$((PORT + 1))
	bg_run "$_fl.srv" timeout "$PPT" xrdma-run ibv_rc_pingpong -d xnic0 \
		-g 0 -p $PORT "$@"
	pp_listen $PORT "$_fl.srv"
	bg_run "$_fl.cli" timeout "$PPT" xrdma-run ibv_rc_pingpong -d xnic0 \
		-g 0 -p $PORT "$@" 127.0.0.1
	if ! wait_for 120 pp_one_done "$_fl"; then
		bg_stop "$_fl.srv" "$_fl.cli"
		cat "$XRDMA_TMP/$_fl.srv.out" "$XRDMA_TMP/$_fl.cli.out"
		fail "$_fl: neither side of the pingpong ended within 120 s"
	fi
	if ! pp_said "$_fl.srv" "$_fs" && ! pp_said "$_fl.cli" "$_fs"; then
		wait_for 10 bg_all_done "$_fl.srv" "$_fl.cli"
	fi
	bg_stop "$_fl.srv" "$_fl.cli"
	FAILED_SIDE=
	pp_said "$_fl.cli" "$_fs" && FAILED_SIDE=cli
	pp_said "$_fl.srv" "$_fs" && FAILED_SIDE=${FAILED_SIDE:+$FAILED_SIDE+}srv
	if [ -z "$FAILED_SIDE" ]; then
		echo "--- $_fl server (rc $(bg_rc "$_fl.srv"))"
		cat "$XRDMA_TMP/$_fl.srv.out"
		echo "--- $_fl client (rc $(bg_rc "$_fl.cli"))"
		cat "$XRDMA_TMP/$_fl.cli.out"
		fail "$_fl: no side of the pingpong failed by itself with '$_fs'"
	fi
	note "$_fl: $FAILED_SIDE: $(grep -h '^Failed status' "$XRDMA_TMP/$_fl.cli.out" "$XRDMA_TMP/$_fl.srv.out" | head -n 1)"
}

TR=/sys/kernel/tracing
# the tracepoints trace_on enabled
TRACING=""

# trace_on EVENT...: xrdma_core's tracepoints EVENT... (events/xrdma/)
# on, the trace buffer emptied
trace_on() {
	grep -q " $TR tracefs " /proc/mounts ||
		mount -t tracefs nodev "$TR" || fail "cannot mount tracefs"
	for _te in "$@"; do
		[ -e "$TR/events/xrdma/$_te/enable" ] ||
			fail "no tracepoint xrdma:$_te"
		echo 1 >"$TR/events/xrdma/$_te/enable" || fail "cannot enable xrdma:$_te"
		TRACING="$TRACING $_te"
	done
	: >"$TR/trace"
}

# trace_off: the tracepoints trace_on enabled off
trace_off() {
	for _te in $TRACING; do
		[ ! -e "$TR/events/xrdma/$_te/enable" ] ||
			echo 0 >"$TR/events/xrdma/$_te/enable"
	done
	TRACING=""
}

# traced ERE: a line of the trace buffer matches ERE
# shellcheck disable=SC2317 # called through wait_for
traced() { grep -Eq "$1" "$TR/trace"; }

# rule_add DEV TYPE NAME [OPTION...]: "xrdma-fault add DEV TYPE --name
# NAME OPTION..." must print DEV/NAME and leave the rule, of that type,
# enabled in configfs; RULE is its directory
rule_add() {
	_rd=$1 _rt=$2 _rn=$3
	shift 3
	_ro=$(xrdma-fault add "$_rd" "$_rt" --name "$_rn" "$@" 2>"$XRDMA_TMP/fault.err") ||
		fail "xrdma-fault add $_rd $_rt --name $_rn $* rc=$?: $(cat "$XRDMA_TMP/fault.err")"
	assert_eq "$_ro" "$_rd/$_rn" "what xrdma-fault add printed"
	RULE=$CFS/$(sim_idx "$_rd")/rules/$_rn
	[ -d "$RULE" ] || fail "no $RULE after xrdma-fault add"
	assert_eq "$(cat "$RULE/type")" "$_rt" "type of rule $_rn"
	assert_eq "$(cat "$RULE/enable")" 1 "enable of rule $_rn"
}

# rule_del DEV NAME: "xrdma-fault del" removes the rule
rule_del() {
	xrdma-fault del "$1" "$2" >"$XRDMA_TMP/fault.err" 2>&1 ||
		fail "xrdma-fault del $1 $2 rc=$?: $(cat "$XRDMA_TMP/fault.err")"
	[ ! -e "$CFS/$(sim_idx "$1")/rules/$2" ] ||
		fail "rule $2 still there after xrdma-fault del"
}

# ------------------------------------------------------------------ link

# both_state DOWN|ACTIVE N0 N1: xnic0 and xnic1 (the two ends of the
# cable) seen DOWN / ACTIVE from everywhere, once xnic0's ibv_asyncwatch
# (aw0) printed N0 events of that kind (PORT_ERR / PORT_ACTIVE) and
# xnic1's (aw1) N1: ibv_devinfo, the netdevs' carrier, and ib_core's
# port state when xrdma_ib is loaded
both_state() {
	_bw=$1
	case $_bw in
	DOWN) _bev=PORT_ERR _bcar=0 _bib="1: DOWN" ;;
	*) _bev=PORT_ACTIVE _bcar=1 _bib="4: ACTIVE" ;;
	esac
	# the driver records the port's state, then reports the event
	wait_for 20 ev_ge aw0 $_bev "$2" || {
		cat "$XRDMA_TMP/aw0.out"
		fail "no IBV_EVENT_$_bev on xnic0 (want $2 by now)"
	}
	wait_for 20 ev_ge aw1 $_bev "$3" || {
		cat "$XRDMA_TMP/aw1.out"
		fail "no IBV_EVENT_$_bev on xnic1, the cabled peer (want $3 by now)"
	}
	for _bd in xnic0 xnic1; do
		tries 10 port_is $_bd "PORT_$_bw" ||
			fail "ibv_devinfo -d $_bd: port state '$(port_state $_bd)', want PORT_$_bw"
	done
	for _bn in "$n0" "$n1"; do
		wait_for 10 carrier_is "$_bn" $_bcar ||
			fail "carrier of $_bn: '$(cat "/sys/class/net/$_bn/carrier")', want $_bcar"
	done
	[ $IB = 1 ] || return 0
	for _bd in xnic0 xnic1; do
		wait_for 10 ib_state_is $_bd "$_bib" ||
			fail "/sys/class/infiniband/$_bd/ports/1/state: '$(cat "/sys/class/infiniband/$_bd/ports/1/state")', want '$_bib'"
	done
}

sub_link() {
	sim_up 2 0-1
	i0=$(sim_idx xnic0) || fail "xnic0 is no xnic_sim device"
	i1=$(sim_idx xnic1) || fail "xnic1 is no xnic_sim device"
	n0=$(xnic_netdev "$i0") || fail "no netdev of xnic.$i0"
	n1=$(xnic_netdev "$i1") || fail "no netdev of xnic.$i1"
	ib_load "the port"
	if [ $IB = 1 ]; then
		nd=$(cat /sys/class/infiniband/xnic0/ports/1/gid_attrs/ndevs/0 2>/dev/null)
		[ -z "$nd" ] || assert_eq "$nd" "$n0" "xnic0's netdev in ib_core"
	fi
	ip link set dev "$n0" up || fail "ip link set $n0 up"
	ip link set dev "$n1" up || fail "ip link set $n1 up"

	# before: up everywhere
	L0=$CFS/$i0/link
	assert_eq "$(cat "$L0")" up "$L0 after load"
	assert_eq "$(cat "$CFS/$i0/flap_ms")" 0 "flap_ms after load"
	aw_start aw0 xnic0
	aw_start aw1 xnic1
	both_state ACTIVE 0 0

	# down: both ends of the cable
	xrdma-fault link xnic0 down || fail "xrdma-fault link xnic0 down rc=$?"
	assert_eq "$(cat "$L0")" down "$L0 after 'link xnic0 down'"
	both_state DOWN 1 1
	note "link down: PORT_DOWN on xnic0 and xnic1, PORT_ERR events, no carrier on $n0 $n1"

	# up again, and RC traffic crosses the cable
	xrdma-fault link xnic0 up || fail "xrdma-fault link xnic0 up rc=$?"
	assert_eq "$(cat "$L0")" up "$L0 after 'link xnic0 up'"
	both_state ACTIVE 1 1
	pp_ok link xnic0 xnic1 -n 100 -s 4096 -c

	# flap
	e0=$(nev aw0 PORT_ERR)
	a0=$(nev aw0 PORT_ACTIVE)
	xrdma-fault flap xnic0 200 || fail "xrdma-fault flap xnic0 200 rc=$?"
	assert_eq "$(cat "$CFS/$i0/flap_ms")" 200 "flap_ms after 'flap xnic0 200'"
	if ! wait_for 30 ev_ge aw0 PORT_ERR $((e0 + 2)) ||
		! wait_for 30 ev_ge aw0 PORT_ACTIVE $((a0 + 2)); then
		cat "$XRDMA_TMP/aw0.out"
		fail "flapping every 200 ms: PORT_ERR $e0 -> $(nev aw0 PORT_ERR), PORT_ACTIVE $a0 -> $(nev aw0 PORT_ACTIVE), want 2 more each"
	fi
	xrdma-fault flap xnic0/1 off || fail "xrdma-fault flap xnic0/1 off rc=$?"
	note "flap: PORT_ERR $e0 -> $(nev aw0 PORT_ERR), PORT_ACTIVE $a0 -> $(nev aw0 PORT_ACTIVE)"
	assert_eq "$(cat "$CFS/$i0/flap_ms")" 0 "flap_ms after 'flap xnic0/1 off'"
	assert_eq "$(cat "$L0")" up "$L0 after 'flap xnic0/1 off'"
	# the flap's last events reached the driver: both ports end active
	for w in aw0 aw1; do
		wait_for 20 last_ev $w PORT_ACTIVE || {
			cat "$XRDMA_TMP/$w.out"
			fail "the last event of $w after 'flap off' is no PORT_ACTIVE"
		}
	done
	both_state ACTIVE "$(nev aw0 PORT_ACTIVE)" "$(nev aw1 PORT_ACTIVE)"
	# and stays so (flapping at 200 ms, 8 looks over 2 s would see it down)
	s=0
	while [ $s -lt 8 ]; do
		port_is xnic0 PORT_ACTIVE ||
			fail "xnic0's port $(port_state xnic0) after 'flap off' (look $s)"
		sleep 0.25
		s=$((s + 1))
	done
	stack_end xnic0 xnic1
}

# ------------------------------------------------------------------ drop
sub_drop() {
	sim_up 1
	i0=$(sim_idx xnic0) || fail "xnic0 is no xnic_sim device"
	r0=$(hwc retries)
	d0=$(cat "$CFS/$i0/injected")

	rule_add xnic0 drop d5 --rate 5% --seed 7
	assert_eq "$(cat "$RULE/rate")" 50000 "rate (ppm) of --rate 5%"
	assert_eq "$(cat "$RULE/seed")" 7 "seed of rule d5"
	xrdma-fault list xnic0 >"$XRDMA_TMP/list" 2>&1 ||
		fail "xrdma-fault list xnic0 rc=$?: $(cat "$XRDMA_TMP/list")"
	grep -q d5 "$XRDMA_TMP/list" ||
		fail "xrdma-fault list xnic0 does not show d5: $(cat "$XRDMA_TMP/list")"
	pp_ok drop5 xnic0 xnic0 -n 200 -s 4096 -c
	inj=$(cat "$RULE/injected")
	mat=$(cat "$RULE/matched")
	r1=$(hwc retries)
	d1=$(cat "$CFS/$i0/injected")
	note "drop 5%: matched $mat, injected $inj, retries $r0 -> $r1, device injected $d0 -> $d1"
	# 200 SENDs each way, retransmissions on top
	[ "$mat" -ge 400 ] || fail "rule d5 matched $mat messages, want >= 400"
	[ "$inj" -gt 0 ] || fail "rule d5 (5%) injected nothing in $mat messages"
	[ "$inj" -le "$mat" ] || fail "rule d5 injected $inj > matched $mat"
	[ "$r1" -gt "$r0" ] || fail "hw_counters/retries did not grow ($r0 -> $r1) under drops"
	[ $((d1 - d0)) -ge "$inj" ] ||
		fail "device injected grew by $((d1 - d0)), less than rule d5's $inj"
	rule_del xnic0 d5

	# everything dropped: the requester's retries run out (retry_cnt 7)
	r0=$(hwc retries)
	rule_add xnic0 drop d100 --rate 100%
	assert_eq "$(cat "$RULE/rate")" 1000000 "rate (ppm) of --rate 100%"
	pp_fail drop100 "transport retry counter exceeded" -n 10 -s 4096
	assert_eq "$FAILED_SIDE" cli "the side that failed under a 100% drop"
	r1=$(hwc retries)
	[ $((r1 - r0)) -ge 7 ] ||
		fail "hw_counters/retries grew by $((r1 - r0)) before RETRY_EXC_ERR, want >= 7 (retry_cnt)"
	inj=$(cat "$RULE/injected")
	[ "$inj" -ge 8 ] || fail "rule d100 injected $inj, want >= 8 (a SEND and its 7 retries)"
	rule_del xnic0 d100

	pp_ok clean xnic0 xnic0 -n 20 -s 4096 -c
	stack_end xnic0
}

# ------------------------------------------------------------------ naks

# nak_case TYPE STATUS [OPTION...]: a --count 1 rule of TYPE fails one
# send of a pingpong with STATUS
nak_case() {
	_nt=$1 _ns=$2
	shift 2
	rule_add xnic0 "$_nt" "n_$_nt" --count 1 "$@"
	pp_fail "$_nt" "$_ns" -n 10 -s 4096
	assert_eq "$(cat "$RULE/injected")" 1 "injected of $_nt --count 1"
	rule_del xnic0 "n_$_nt"
}

sub_naks() {
	sim_up 1
	k0=$(hwc rnr_naks)
	rule_add xnic0 rnr rnr3 --count 3
	assert_eq "$(cat "$RULE/count")" 3 "count of rule rnr3"
	# rnr_retry 7: RNR NAKs are retried for ever
	pp_ok rnr xnic0 xnic0 -n 50 -s 4096 -c
	assert_eq "$(cat "$RULE/injected")" 3 "injected of rnr --count 3"
	k1=$(hwc rnr_naks)
	[ $((k1 - k0)) -ge 3 ] ||
		fail "hw_counters/rnr_naks grew by $((k1 - k0)), want >= 3"
	rule_del xnic0 rnr3

	nak_case nak_access "remote access error"
	nak_case nak_op "remote operation error"
	nak_case nak_inv "remote invalid request error"
	rule_add xnic0 cqe_err n_cqe --count 1 --status rem_op_err --opcode send
	assert_eq "$(cat "$RULE/status")" rem_op_err "status of the cqe_err rule"
	assert_eq "$(cat "$RULE/opcode")" send "opcode of the cqe_err rule"
	pp_fail cqe_err "remote operation error" -n 10 -s 4096
	assert_eq "$(cat "$RULE/injected")" 1 "injected of cqe_err --count 1"
	rule_del xnic0 n_cqe

	# no rule left: the device is whole again
	pp_ok clean xnic0 xnic0 -n 50 -s 4096 -c
	stack_end xnic0
}

# ------------------------------------------------------------------ priv

# as uid 65534 (busybox su needs the name)
as_nobody() { su -s /bin/sh nobody -c "$*"; }

sub_priv() {
	grep -q '^nobody:' /etc/passwd ||
		echo 'nobody:x:65534:65534:nobody:/nonexistent:/bin/false' >>/etc/passwd
	sim_up 2 0-1
	i0=$(sim_idx xnic0) || fail "xnic0 is no xnic_sim device"
	D=$CFS/$i0
	assert_eq "$(cat "$D/link")" up "link after load"
	port_is xnic0 PORT_ACTIVE || fail "xnic0's port $(port_state xnic0) after load"
	mkdir "$D/rules/r" || fail "root cannot mkdir $D/rules/r"
	assert_eq "$(cat "$D/rules/r/qp")" any "qp of a new rule"
	assert_eq "$(cat "$D/rules/r/enable")" 0 "enable of a new rule"

	out=$XRDMA_TMP/nobody
	as_nobody "mkdir $D/rules/x" >"$out" 2>&1 &&
		fail "uid 65534 made rule x"
	as_nobody "cat $D/rules/r/qp" >"$out" 2>&1 &&
		fail "uid 65534 read rule r's qp: $(cat "$out")"
	as_nobody "echo down >$D/link" >"$out" 2>&1 &&
		fail "uid 65534 wrote link"
	as_nobody "echo 100 >$D/flap_ms" >"$out" 2>&1 &&
		fail "uid 65534 wrote flap_ms"
	as_nobody "xrdma-fault add xnic0 drop --name x" >"$out" 2>&1 &&
		fail "xrdma-fault add as uid 65534 exited 0: $(cat "$out")"
	note "xrdma-fault add as uid 65534: $(head -n 1 "$out")"
	as_nobody "xrdma-fault link xnic0 down" >"$out" 2>&1 &&
		fail "xrdma-fault link xnic0 down as uid 65534 exited 0: $(cat "$out")"
	# link is world-readable
	as_nobody "cat $D/link" >"$out" 2>&1 ||
		fail "uid 65534 cannot read link: $(cat "$out")"
	assert_eq "$(cat "$out")" up "link as uid 65534 reads it"

	# nothing changed
	assert_eq "$(cat "$D/link")" up "link after uid 65534's tries"
	assert_eq "$(cat "$D/flap_ms")" 0 "flap_ms after uid 65534's tries"
	[ ! -e "$D/rules/x" ] || fail "a rule x exists after uid 65534's tries"
	assert_eq "$(cat "$D/rules/r/enable")" 0 "rule r's enable after uid 65534's tries"
	for d in xnic0 xnic1; do
		port_is $d PORT_ACTIVE ||
			fail "$d's port $(port_state $d) after uid 65534's tries"
	done

	# what uid 65534 could not, root can
	rule_add xnic0 drop x
	rule_del xnic0 x
	rmdir "$D/rules/r" || fail "rmdir $D/rules/r"
	stack_end xnic0 xnic1
}

# ---------------------------------------------------------------- unload

# sim_unload ROUND: rmmod xnic_sim with rule u$ROUND present and the flap
# running is refused (configfs holds the module while a rule exists,
# Documentation/faults.rst) and leaves everything as it was; once the
# rules are removed it succeeds; within 20 s each time
sim_unload() {
	[ -d "$CFS/$ui0/rules/u$1" ] || fail "$1: rule u$1 gone before rmmod"
	rmmod_timed xnic_sim
	_ur=$?
	[ $_ur != 124 ] || fail "$1: rmmod xnic_sim hangs with a rule and a flap on"
	[ $_ur != 0 ] || fail "$1: rmmod xnic_sim succeeded with rule u$1 in place"
	module_loaded xnic_sim ||
		fail "$1: rmmod xnic_sim rc=$_ur, yet xnic_sim is gone"
	[ -d "$CFS/$ui0/rules/u$1" ] ||
		fail "$1: rmmod xnic_sim refused (rc=$_ur) but rule u$1 is gone"
	note "$1: rmmod xnic_sim refused while a rule exists (rc=$_ur): removing the rules"
	rules_rm
	rmmod_timed xnic_sim ||
		fail "$1: rmmod xnic_sim with the rules removed: rc=$?"
	! module_loaded xnic_sim || fail "$1: xnic_sim still loaded"
	[ ! -e "$CFS" ] || fail "$1: $CFS left after rmmod xnic_sim"
}

# unload_round ROUND: driver|model, which goes first, with loopback
# traffic on xnic0 under a firing drop rule and xnic2 flapping
unload_round() {
	_u=$1
	sim_up 4 0-1,2-3
	ui0=$(sim_idx xnic0) || fail "xnic0 is no xnic_sim device"
	rule_add xnic0 drop "u$_u" --rate 5%
	aw_start "aw2$_u" xnic2
	xrdma-fault flap xnic2 50 || fail "xrdma-fault flap xnic2 50 rc=$?"
	PORT=$((PORT + 1))
	bg_run "tsrv$_u" timeout $((900 * SCALE)) xrdma-run ibv_rc_pingpong \
		-d xnic0 -g 0 -p $PORT -n 100000000 -s 4096
	pp_listen $PORT "tsrv$_u"
	bg_run "tcli$_u" timeout $((900 * SCALE)) xrdma-run ibv_rc_pingpong \
		-d xnic0 -g 0 -p $PORT -n 100000000 -s 4096 127.0.0.1
	wait_for 60 gt0 "$RULE/injected" || {
		cat "$XRDMA_TMP/tsrv$_u.out" "$XRDMA_TMP/tcli$_u.out"
		fail "$_u: the drop rule never fired (matched $(cat "$RULE/matched"))"
	}
	if ! wait_for 60 ev_ge "aw2$_u" PORT_ERR 2 ||
		! wait_for 60 ev_ge "aw2$_u" PORT_ACTIVE 2; then
		cat "$XRDMA_TMP/aw2$_u.out"
		fail "$_u: xnic2 does not flap"
	fi
	for _p in "tsrv$_u" "tcli$_u"; do
		! bg_done "$_p" || {
			cat "$XRDMA_TMP/$_p.out"
			fail "$_u: the pingpong $_p ended (rc $(bg_rc "$_p")) before the unload"
		}
	done
	note "$_u: traffic on xnic0 (rule injected $(cat "$RULE/injected") of $(cat "$RULE/matched")), xnic2 flapping ($(nev "aw2$_u" PORT_ERR) PORT_ERR)"

	if [ "$_u" = driver ]; then
		rmmod_timed xnic
		_ur=$?
		[ $_ur != 124 ] || fail "driver: rmmod xnic hangs under traffic and fault rules"
		[ $_ur = 0 ] || fail "driver: rmmod xnic rc=$_ur"
		[ ! -e /sys/class/xrdma_device/xnic0 ] ||
			fail "driver: xnic0 left after rmmod xnic"
		bg_stop "tsrv$_u" "tcli$_u" "aw2$_u"
		sim_unload "$_u"
	else
		sim_unload "$_u"
		[ ! -e /sys/class/xrdma_device/xnic0 ] ||
			fail "model: xnic0 left after rmmod xnic_sim"
		module_loaded xnic || fail "model: xnic went with the model"
		bg_stop "tsrv$_u" "tcli$_u" "aw2$_u"
		rmmod_timed xnic || fail "model: rmmod xnic after the model: rc=$?"
	fi
	BG=""
}

sub_unload() {
	unload_round driver
	unload_round model
	# the programs closed their files: nothing holds xrdma_uverbs
	_rc=$(cat /sys/module/xrdma_uverbs/refcnt)
	[ "$_rc" = 0 ] || fail "xrdma_uverbs refcnt $_rc after the programs ended"
	stack_end
}

# ---------------------------------------------------------------- events

# res_of DEV TYPE PID: the number of the one TYPE (qp, cq, srq) that PID
# has on DEV (debugfs xrdma/DEV/resources: "qp 17 pid 1234")
res_of() {
	_ro=$(awk -v t="$2" -v p="$3" '$1 == t && $3 == "pid" && $4 == p { print $2 }' \
		"$XRDMA_DEBUGFS/xrdma/$1/resources")
	case $_ro in
	'' | *[!0-9]*)
		cat "$XRDMA_DEBUGFS/xrdma/$1/resources"
		fail "not one $2 of pid $3 on $1: '$_ro'"
		;;
	esac
	echo "$_ro"
}

# sim_qp_state QPN: the state of the model's QP QPN on model device $ei0
# (debugfs xnic_sim/N/qps: 1 INIT, 6 ERR)
sim_qp_state() {
	awk -v q="$1" '$1 == q { print $3 }' "$XRDMA_DEBUGFS/xnic_sim/$ei0/qps"
}

# ev_fails WANT CMD...: xrdma-fault CMD... must fail (exit 1) with an
# error naming the errno's message WANT
ev_fails() {
	_ew=$1
	shift
	xrdma-fault "$@" >"$XRDMA_TMP/fault.err" 2>&1
	_er=$?
	{ [ $_er = 1 ] && grep -q "^xrdma-fault: .*: $_ew" "$XRDMA_TMP/fault.err"; } ||
		fail "xrdma-fault $*: rc=$_er '$(cat "$XRDMA_TMP/fault.err")', want rc=1 and '$_ew'"
	note "xrdma-fault $*: $(cat "$XRDMA_TMP/fault.err")"
}

# ev_ok CMD...: xrdma-fault CMD... succeeds
ev_ok() {
	xrdma-fault "$@" >"$XRDMA_TMP/fault.err" 2>&1 ||
		fail "xrdma-fault $* rc=$?: $(cat "$XRDMA_TMP/fault.err")"
}

# srv_wait NAME PROGRAM: PROGRAM (a pingpong) as a server on xnic0 in the
# background, listening (its objects made)
srv_wait() {
	PORT=$((PORT + 1))
	bg_run "$1" xrdma-run "$2" -d xnic0 -g 0 -p $PORT
	pp_listen $PORT "$1"
	eval "${1}_port=$PORT"
}

# qp_err_case QPN ARG EVENT: "qp-error xnic0 ARG" (QPN, then the event
# kind, if any) puts QP QPN in ERR, with EVENT traced; a second time fails
qp_err_case() {
	# shellcheck disable=SC2086 # ARG is "QPN [KIND]"
	ev_ok qp-error xnic0 $2
	wait_for 10 traced "xrdma_async_event: +dev=xnic0 event=$3 element=$1\$" || {
		cat "$TR/trace"
		fail "qp-error xnic0 $2: no $3 for QP $1 in the trace"
	}
	assert_eq "$(sim_qp_state "$1")" 6 "the model's state of QP $1 after qp-error $2 (ERR)"
	ev_fails "Invalid argument" qp-error xnic0 "$1"
}

sub_events() {
	sim_up 1
	ei0=$(sim_idx xnic0) || fail "xnic0 is no xnic_sim device"
	trace_on xrdma_async_event
	aw_start aw0 xnic0

	# three servers waiting for their client: a QP in INIT each, a CQ
	srv_wait sa ibv_rc_pingpong
	srv_wait sb ibv_rc_pingpong
	srv_wait sc ibv_rc_pingpong
	for s in sa sb sc; do
		pid=$(cat "$XRDMA_TMP/$s.pid")
		eval "${s}_qp=\$(res_of xnic0 qp $pid)" || exit 1
		eval "${s}_cq=\$(res_of xnic0 cq $pid)" || exit 1
	done
	# shellcheck disable=SC2154 # set by eval above
	note "servers' QPs $sa_qp $sb_qp $sc_qp, CQs $sa_cq $sb_cq $sc_cq"
	assert_eq "$(sim_qp_state "$sa_qp")" 1 "the model's state of QP $sa_qp (INIT)"

	# each kind of QP error, the QPN in hex as ibv_rc_pingpong prints it
	qp_err_case "$sa_qp" "$(printf '0x%06x' "$sa_qp") req" QP_REQ_ERR
	qp_err_case "$sb_qp" "$sb_qp access" QP_ACCESS_ERR
	qp_err_case "$sc_qp" "$sc_qp" QP_FATAL

	# a CQ overruns
	ev_ok cq-error xnic0 "$sc_cq"
	wait_for 10 traced "xrdma_async_event: +dev=xnic0 event=CQ_ERR element=$sc_cq\$" || {
		cat "$TR/trace"
		fail "cq-error xnic0 $sc_cq: no CQ_ERR in the trace"
	}
	ev_fails "Invalid argument" cq-error xnic0 "$sc_cq"

	# nothing of it reached another process's async fd
	sleep 1
	if grep -q "event_type" "$XRDMA_TMP/aw0.out"; then
		cat "$XRDMA_TMP/aw0.out"
		fail "ibv_asyncwatch on xnic0 got another process's QP or CQ event"
	fi

	# the owner finds its QP in ERR: its RTR fails once a client came
	# shellcheck disable=SC2154 # set by srv_wait
	timeout "$PPT" xrdma-run ibv_rc_pingpong -d xnic0 -g 0 -p "$sa_port" \
		127.0.0.1 >"$XRDMA_TMP/ca.out" 2>&1
	car=$?
	wait_for 20 bg_done sa || fail "server sa did not end after its client came"
	if [ "$car" = 0 ] || [ "$(bg_rc sa)" = 0 ] ||
		! grep -q "^Failed to modify QP to RTR" "$XRDMA_TMP/sa.out"; then
		echo "--- server (rc $(bg_rc sa))"
		cat "$XRDMA_TMP/sa.out"
		echo "--- client (rc $car)"
		cat "$XRDMA_TMP/ca.out"
		fail "a pingpong whose server's QP is in ERR: server rc $(bg_rc sa), client rc $car"
	fi
	note "server with its QP in ERR: $(head -n 1 "$XRDMA_TMP/sa.out") (rc $(bg_rc sa)); client rc $car"

	# an SRQ whose limit is not armed
	srv_wait ss ibv_srq_pingpong
	srq=$(res_of xnic0 srq "$(cat "$XRDMA_TMP/ss.pid")") || exit 1
	ev_fails "Resource temporarily unavailable" srq-limit xnic0 "$srq"
	! traced "event=SRQ_LIMIT_REACHED" ||
		fail "SRQ_LIMIT_REACHED traced for an SRQ not armed: $(grep SRQ_LIMIT "$TR/trace")"

	# numbers no object has
	ev_fails "No such file or directory" qp-error xnic0 16777215 req
	ev_fails "No such file or directory" cq-error xnic0 16777215
	ev_fails "No such file or directory" srq-limit xnic0 16777215

	bg_stop sb sc ss aw0
	stack_end xnic0
}

# ----------------------------------------------------------------- fatal

# ndf MARK: how many "recovered" lines the xnic driver logged since the
# kernel log's mark MARK
# shellcheck disable=SC2317 # called through wait_for
ndf() {
	klog_since "$1" | grep -c "xnic xnic\.$fi0: recovered\$"
}

# shellcheck disable=SC2317 # called through wait_for
ndf_ge() { [ "$(ndf "$1")" -ge "$2" ]; }

# nfatal NAME: the IBV_EVENT_DEVICE_FATAL lines asyncwatch NAME printed
nfatal() {
	grep -c "^  event_type IBV_EVENT_DEVICE_FATAL ([0-9]*), port 0\$" "$XRDMA_TMP/$1.out"
}

# shellcheck disable=SC2317 # called through wait_for
nfatal_ge() { [ "$(nfatal "$1")" -ge "$2" ]; }

# back LABEL N: xnic0 recovered (the driver's Nth "recovered" since mark
# dm0)
# and works: the xrdma device, its uverbs node, its ib device with
# xrdma_ib, its port active
back() {
	wait_for 30 ndf_ge dm0 "$2" || {
		dmesg | tail -n 30
		fail "$1: no 'xnic xnic.$fi0: recovered' within 30 s (want $2)"
	}
	wait_xrdma_dev xnic0 || fail "$1: xnic0 not registered again"
	wait_for 10 uverbs_of xnic0 >/dev/null || fail "$1: no uverbs node of xnic0"
	assert_eq "$(sim_idx xnic0)" "$fi0" "$1: the model device of the new xnic0"
	tries 50 port_is xnic0 PORT_ACTIVE ||
		fail "$1: ibv_devinfo -d xnic0: port state '$(port_state xnic0)', want PORT_ACTIVE"
	if [ $IB = 1 ]; then
		wait_for 10 ib_state_is xnic0 "4: ACTIVE" ||
			fail "$1: /sys/class/infiniband/xnic0 not back ACTIVE: '$(cat /sys/class/infiniband/xnic0/ports/1/state 2>&1)'"
	fi
}

# sim_tx_ge N COUNT: the live QPs of model device N sent COUNT messages
# or more (debugfs xnic_sim/N/qps, tx_ops)
# shellcheck disable=SC2317 # called through wait_for
sim_tx_ge() {
	awk -v c="$2" 'NR > 1 { s += $8 } END { exit !(s >= c) }' \
		"$XRDMA_DEBUGFS/xnic_sim/$1/qps"
}

# ended_err NAME LABEL: the program NAME ended by itself with an error
ended_err() {
	_ee=$(bg_rc "$1")
	{ [ -n "$_ee" ] && [ "$_ee" != 0 ]; } || {
		cat "$XRDMA_TMP/$1.out"
		fail "$2 (rc '$_ee'), want an error"
	}
}

sub_fatal() {
	sim_up 2 0-1
	fi0=$(sim_idx xnic0) || fail "xnic0 is no xnic_sim device"
	ib_load "the recovery"
	assert_eq "$(cat /sys/module/xnic/parameters/recover)" Y "xnic's recover parameter"
	klog_mark dm0
	aw_start aw1 xnic1

	# idle: asyncwatch sees it, the device comes back
	aw_start awf xnic0
	ev_ok fatal xnic0
	wait_for 30 bg_done awf || {
		cat "$XRDMA_TMP/awf.out"
		fail "ibv_asyncwatch on xnic0 still running 30 s after the fatal error"
	}
	[ "$(nfatal awf)" -ge 1 ] || {
		cat "$XRDMA_TMP/awf.out"
		fail "ibv_asyncwatch on xnic0 ended (rc $(bg_rc awf)) without IBV_EVENT_DEVICE_FATAL"
	}
	note "ibv_asyncwatch on xnic0: $(nfatal awf) DEVICE_FATAL, then ended (rc $(bg_rc awf))"
	back idle 1
	klog_since dm0 | grep -q "xnic_sim $fi0: device fatal (injected)" ||
		fail "no 'xnic_sim $fi0: device fatal (injected)' in the kernel log"
	pp_ok after xnic0 xnic1 -n 100 -s 4096 -c

	# under traffic: a loopback pair on xnic0, a client on xnic0 of a
	# server on xnic1
	PORT=$((PORT + 1))
	bg_run tl.srv timeout "$PPT" xrdma-run ibv_rc_pingpong -d xnic0 -g 0 \
		-p $PORT -n 100000000 -s 4096
	pp_listen $PORT tl.srv
	bg_run tl.cli timeout "$PPT" xrdma-run ibv_rc_pingpong -d xnic0 -g 0 \
		-p $PORT -n 100000000 -s 4096 127.0.0.1
	PORT=$((PORT + 1))
	bg_run tx.srv timeout "$PPT" xrdma-run ibv_rc_pingpong -d xnic1 -g 0 \
		-p $PORT -n 100000000 -s 4096
	pp_listen $PORT tx.srv
	bg_run tx.cli timeout "$PPT" xrdma-run ibv_rc_pingpong -d xnic0 -g 0 \
		-p $PORT -n 100000000 -s 4096 127.0.0.1
	# traffic flows (the model's QPs count what they send)
	wait_for 20 sim_tx_ge "$fi0" 1000 || {
		cat "$XRDMA_DEBUGFS/xnic_sim/$fi0/qps"
		fail "no traffic on xnic0 before the fatal error"
	}
	for p in tl.srv tl.cli tx.srv tx.cli; do
		! bg_done $p || {
			cat "$XRDMA_TMP/$p.out"
			fail "pingpong $p ended (rc $(bg_rc $p)) before the fatal error"
		}
	done
	ev_ok fatal xnic0
	wait_for 30 bg_all_done tl.srv tl.cli tx.cli || {
		for p in tl.srv tl.cli tx.cli; do
			bg_done $p || echo "$p still running"
		done
		fail "the pingpongs on xnic0 did not end within 30 s of the fatal error"
	}
	ended_err tl.srv "the loopback server on xnic0 ended"
	ended_err tl.cli "the loopback client on xnic0 ended"
	ended_err tx.cli "the client on xnic0 of the server on xnic1 ended"
	# the xnic1 server ends by itself only if its SEND was in flight
	if wait_for 10 bg_done tx.srv; then
		txs="ended by itself (rc $(bg_rc tx.srv)): $(grep -m 1 . "$XRDMA_TMP/tx.srv.out")"
	else
		txs="waiting for a message, stopped"
	fi
	bg_stop tx.srv
	note "on fatal: loopback rc $(bg_rc tl.srv)/$(bg_rc tl.cli), xnic0 client rc $(bg_rc tx.cli); the xnic1 server $txs"
	back traffic 2
	pp_ok again xnic1 xnic0 -n 100 -s 4096 -c

	# a process that acknowledged events destroys its objects once it
	# is disassociated: every destroy returns 0, none waits
	rm -f "$XRDMA_TMP/gone.ready"
	bg_run gone xrdma-run xv_gone -d xnic0 -r "$XRDMA_TMP/gone.ready" \
		-w $((120 * SCALE)) -t $((30000 * SCALE))
	wait_for $((30 * SCALE)) test -e "$XRDMA_TMP/gone.ready" || {
		cat "$XRDMA_TMP/gone.out"
		fail "xv_gone not ready within $((30 * SCALE)) s"
	}
	ev_ok fatal xnic0
	# its own bounds (events 30 s, destroys 20 s) end it first
	bg_ok gone $((90 * SCALE)) "xv_gone, after the fatal error,"
	note "xv_gone: $(tail -n 1 "$XRDMA_TMP/gone.out")"
	back gone 3

	# xnic1 was not touched
	assert_eq "$(nfatal aw1)" 0 "DEVICE_FATAL events seen on xnic1"
	! bg_done aw1 || fail "ibv_asyncwatch on xnic1 ended (rc $(bg_rc aw1))"
	bg_stop aw1

	# no recovery
	echo 0 >/sys/module/xnic/parameters/recover || fail "cannot set xnic's recover to 0"
	aw_start awn xnic0
	rm -f "$XRDMA_TMP/ut.ready"
	bg_run ut xnic_utest -n xnic0 -r "$XRDMA_TMP/ut.ready" fatal
	wait_for $((30 * SCALE)) test -s "$XRDMA_TMP/ut.ready" || {
		cat "$XRDMA_TMP/ut.out"
		fail "recover 0: xnic_utest fatal not ready within $((30 * SCALE)) s"
	}
	klog_mark dmn
	ev_ok fatal xnic0
	wait_for 10 nfatal_ge awn 1 || {
		cat "$XRDMA_TMP/awn.out"
		fail "recover 0: no IBV_EVENT_DEVICE_FATAL on xnic0"
	}
	kill -USR1 "$(cat "$XRDMA_TMP/ut.ready")"
	bg_ok ut $((30 * SCALE)) "recover 0: xnic_utest fatal, after SIGUSR1,"
	sleep 5
	if klog_since dmn | grep -Eq "xnic xnic\.$fi0: (recovered|resetting)"; then
		klog_since dmn
		fail "recover 0: the driver recovered the device"
	fi
	ev_fails "Invalid argument" fatal xnic0
	if bg_done awn; then aws="ended (rc $(bg_rc awn))"; else aws="still running"; fi
	if xrdma-run ibv_devinfo -d xnic0 -i 1 >"$XRDMA_TMP/devinfo.fatal" 2>&1; then
		dvs="exit 0, $(sed -n 's/^[[:space:]]*state:[[:space:]]*//p' "$XRDMA_TMP/devinfo.fatal")"
	else
		dvs="failed: $(head -n 1 "$XRDMA_TMP/devinfo.fatal")"
	fi
	note "recover 0: xnic0 $([ -d /sys/class/xrdma_device/xnic0 ] && echo registered || echo gone); asyncwatch $aws; ibv_devinfo $dvs"
	bg_stop awn
	BG=""
	if [ $IB = 1 ]; then
		rmmod_timed xrdma_ib || fail "recover 0: rmmod xrdma_ib rc=$?"
	fi
	rmmod_timed xnic || fail "recover 0: rmmod xnic with a failed device rc=$?"
	stack_end
}

# ------------------------------------------------------------------ cmds

# srv_fail LABEL MESSAGE: an ibv_rc_pingpong server on xnic0, alone,
# must end by itself (within 60 s) with rc 1 having said MESSAGE
srv_fail() {
	PORT=$((PORT + 1))
	timeout $((60 * SCALE)) xrdma-run ibv_rc_pingpong -d xnic0 -g 0 \
		-p $PORT -n 10 -s 4096 >"$XRDMA_TMP/$1.out" 2>&1
	_sf=$?
	if [ $_sf != 1 ] || ! grep -q "^$2\$" "$XRDMA_TMP/$1.out"; then
		cat "$XRDMA_TMP/$1.out"
		fail "$1: the pingpong server ended with rc $_sf, want 1 and '$2'"
	fi
	note "$1: server rc $_sf: $(grep -m 1 "^$2\$" "$XRDMA_TMP/$1.out")"
}

sub_cmds() {
	sim_up 1
	fi0=$(sim_idx xnic0) || fail "xnic0 is no xnic_sim device"
	klog_mark dm0

	# a create_qp refused once (no_resources: ENOMEM)
	rule_add xnic0 cmd_fail cf_qp --command create_qp --count 1
	assert_eq "$(cat "$RULE/command")" create_qp "command of rule cf_qp"
	assert_eq "$(cat "$RULE/cmd_status")" no_resources "cmd_status of rule cf_qp"
	xrdma-fault list xnic0 >"$XRDMA_TMP/list" 2>&1 ||
		fail "xrdma-fault list xnic0 rc=$?: $(cat "$XRDMA_TMP/list")"
	grep -q "^  cf_qp type=cmd_fail .* command=create_qp cmd_status=no_resources " \
		"$XRDMA_TMP/list" ||
		fail "xrdma-fault list xnic0 does not show cf_qp's command: $(cat "$XRDMA_TMP/list")"
	srv_fail cf_qp "Couldn't create QP"
	assert_eq "$(cat "$RULE/injected")" 1 "injected of cmd_fail create_qp --count 1"
	pp_ok after_qp xnic0 xnic0 -n 20 -s 4096 -c
	assert_eq "$(cat "$RULE/injected")" 1 "injected of cf_qp after a pingpong"
	rule_del xnic0 cf_qp

	# a create_cq refused once with busy (EBUSY)
	rule_add xnic0 cmd_fail cf_cq --command create_cq --cmd-status busy --count 1
	assert_eq "$(cat "$RULE/cmd_status")" busy "cmd_status of rule cf_cq"
	srv_fail cf_cq "Couldn't create CQ"
	assert_eq "$(cat "$RULE/injected")" 1 "injected of cmd_fail create_cq --count 1"
	rule_del xnic0 cf_cq

	# a destroy is never refused: the rule never matches
	rule_add xnic0 cmd_fail cf_dqp --command destroy_qp
	pp_ok destroy xnic0 xnic0 -n 20 -s 4096 -c
	assert_eq "$(cat "$RULE/matched")" 0 "matched of cmd_fail destroy_qp"
	assert_eq "$(cat "$RULE/injected")" 0 "injected of cmd_fail destroy_qp"
	rule_del xnic0 cf_dqp
	if klog_since dm0 | grep -q "destroy command"; then
		klog_since dm0 | grep "destroy command"
		fail "a destroy command failed under a cmd_fail rule"
	fi

	# a create_cq never answered: the driver resets and recovers xnic0
	cto=$(cat /sys/module/xnic/parameters/cmd_timeout_ms) ||
		fail "no xnic parameter cmd_timeout_ms"
	echo 1000 >/sys/module/xnic/parameters/cmd_timeout_ms ||
		fail "cannot set xnic's cmd_timeout_ms"
	rule_add xnic0 cmd_timeout ct_cq --command create_cq --count 1
	srv_fail ct_cq "Couldn't create CQ"
	klog_since dm0 |
		grep -q "xnic xnic\.$fi0: command 0x02 timed out" || {
		dmesg | tail -n 30
		fail "no 'xnic xnic.$fi0: command 0x02 timed out' in the kernel log"
	}
	back timeout 1
	klog_since dm0 |
		sed -n "/xnic xnic\.$fi0: command 0x02 timed out/,\$p" |
		grep -q "xnic xnic\.$fi0: recovered\$" ||
		fail "no 'recovered' after the command timed out"
	echo "$cto" >/sys/module/xnic/parameters/cmd_timeout_ms ||
		fail "cannot restore xnic's cmd_timeout_ms"
	pp_ok recovered xnic0 xnic0 -n 20 -s 4096 -c
	# the model's rule outlived the reset, its count used up
	[ -d "$RULE" ] || fail "rule ct_cq gone after the device's reset"
	assert_eq "$(cat "$RULE/injected")" 1 "injected of cmd_timeout create_cq --count 1"
	note "ct_cq after the recovery: enable $(cat "$RULE/enable"), matched $(cat "$RULE/matched"), injected $(cat "$RULE/injected")"
	rule_del xnic0 ct_cq
	stack_end xnic0
}

case ${XRDMA_SUBTEST:-} in
link) sub_link ;;
drop) sub_drop ;;
naks) sub_naks ;;
priv) sub_priv ;;
unload) sub_unload ;;
events) sub_events ;;
fatal) sub_fatal ;;
cmds) sub_cmds ;;
*) fail "no such subtest: '${XRDMA_SUBTEST:-}'" ;;
esac
exit 0
