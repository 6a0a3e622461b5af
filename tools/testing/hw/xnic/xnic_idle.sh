# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 180
# XRDMA_PROGRAMS: tools/testing/hw/xnic/xnic_utest
#
# The model's engine sleeps when idle and wakes up on demand
# (Documentation/xnic/doorbells.rst, "The engine and NEED_WAKEUP"): with
# xnic_sim (one device) and xnic loaded, the engine thread "xnic_sim/0"
# (kthread_create(..., "xnic_sim/%d", index) in drivers/hw/xnic/sim) goes
# to sleep after the bring-up and again ~1 s after a burst of work
# (xnic_utest "paths"): its "sleeps" counter (debugfs xnic_sim/0/counters)
# grew.  Over a 2 s idle window the thread is in state S at every sample,
# accumulates fewer than 10 clock ticks of utime+stime (/proc/PID/stat; a
# polling engine gets ~200 at 100 Hz) and wakes up fewer than 20 times: a
# sleep/no-sleep check, not a performance one.  A post must still
# complete: xnic_utest "wake" waits for NEED_WAKEUP, posts a WRITE, kicks,
# and checks the completion, the data and the kicks/wakeups counters; the
# "wakeups" (or, for a kick served in the kicker's context, "writer_runs")
# counter grew.  Finally a control proves that the measurement
# can fail: with idle_us raised to ~71 min the woken engine keeps polling
# and the same window must show >= 50 ticks, state R and no sleep;
# restoring idle_us puts it back to sleep.

xnic_utest_init

ctrs=$XRDMA_DEBUGFS/xnic_sim/0/counters
idle_param=/sys/module/xnic_sim/parameters/idle_us
engine=xnic_sim/0
# /proc/PID/stat counts in USER_HZ ticks: 100 per second on x86
idle_max_ticks=10
poll_min_ticks=50
idle_max_wakeups=20

# bail MSG: restore idle_us, unload what is loaded and fail (not from a
# subshell)
bail() {
	[ -w "$idle_param" ] && [ -n "${idle_us0:-}" ] && echo "$idle_us0" >"$idle_param"
	xnic_stack_down 2>/dev/null
	fail "$*"
}

# ctr NAME: a model counter (empty if there is none)
ctr() {
	awk -v n="$1" '$1 == n { print $2 }' "$ctrs"
}

# ticks: utime + stime of the engine thread, in clock ticks
ticks() {
	read -r _s <"/proc/$epid/stat" || return 1
	_s=${_s##*) }
	# shellcheck disable=SC2086 # split the fields after "(comm) "
	set -- $_s
	# fields 14 and 15 of the line: utime, stime
	echo $((${12} + ${13}))
}

# pstate: the engine thread's state letter
pstate() {
	read -r _s <"/proc/$epid/stat" || return 1
	_s=${_s##*) }
	echo "${_s%% *}"
}

# window SECS: sample the engine's state 4 times a second for SECS
# seconds; sets w_ticks (CPU ticks used), w_states (the letters seen),
# w_sleeps and w_wakeups (counter growth)
window() {
	_t0=$(ticks) || bail "cannot read /proc/$epid/stat"
	_sl0=$(ctr sleeps)
	_wk0=$(ctr wakeups)
	w_states=""
	_i=0
	while [ $_i -lt $(($1 * 4)) ]; do
		sleep 0.25
		w_states="$w_states$(pstate)"
		_i=$((_i + 1))
	done
	_t1=$(ticks) || bail "cannot read /proc/$epid/stat"
	w_ticks=$((_t1 - _t0))
	w_sleeps=$(($(ctr sleeps) - _sl0))
	w_wakeups=$(($(ctr wakeups) - _wk0))
	note "$1 s window: $w_ticks ticks, states $w_states, sleeps +$w_sleeps, wakeups +$w_wakeups"
}

# asleep COUNT LABEL: the engine sleeps now (state S) and has gone to
# sleep since the sleeps counter was COUNT
asleep() {
	_st=$(pstate)
	[ "$_st" = S ] || bail "$2: the engine is in state $_st, want S (sleeping)"
	[ "$(ctr sleeps)" -gt "$1" ] ||
		bail "$2: the engine's sleeps counter stayed at $1"
}

# utest MODE LABEL: xnic_utest must pass
utest() {
	if ! xnic_utest -n xnic0 -c "$ctrs" "$1" >"$XRDMA_TMP/out" 2>&1; then
		cat "$XRDMA_TMP/out"
		bail "$2: xnic_utest $1 failed: $(grep -m 1 '^not ok' "$XRDMA_TMP/out")"
	fi
}

assert insmod "$XNIC_CORE"
assert insmod "$XNIC_UV"
insmod "$XNIC_SIM" ndev=1 || bail "insmod xnic_sim"
idle_us0=$(cat "$idle_param") || bail "no $idle_param"
insmod "$XNIC_DRV" || bail "insmod xnic"
n=0
until [ -d /sys/class/xrdma_device/xnic0 ]; do
	n=$((n + 1))
	[ $n -le 100 ] || bail "xnic0 did not appear"
	sleep 0.1
done
[ -r "$ctrs" ] || bail "no $ctrs"
for c in sleeps wakeups kicks writer_runs; do
	[ -n "$(ctr $c)" ] || bail "no '$c' counter in $ctrs"
done

# --- the engine thread
epid=""
for f in /proc/[0-9]*/comm; do
	read -r name <"$f" 2>/dev/null || continue
	if [ "$name" = "$engine" ]; then
		p=${f#/proc/}
		[ -z "$epid" ] || bail "two threads named $engine: $epid and ${p%/comm}"
		epid=${p%/comm}
	fi
done
[ -n "$epid" ] || bail "no thread named $engine in /proc/*/comm"
grep -q '^PPid:[[:space:]]*2$' "/proc/$epid/status" ||
	bail "$engine (pid $epid) is not a kernel thread: $(grep PPid "/proc/$epid/status")"
note "engine $engine is pid $epid, idle_us $idle_us0"

# --- asleep after the bring-up
sleep 1
asleep 0 "after the bring-up"
note "after the bring-up: sleeps $(ctr sleeps), wakeups $(ctr wakeups)"

# --- a burst of work, then asleep again within ~1 s
s0=$(ctr sleeps)
w0=$(ctr wakeups)
utest paths "burst"
tail -n 1 "$XRDMA_TMP/out"
sleep 1
asleep "$s0" "1 s after the burst"
[ "$(ctr wakeups)" -gt "$w0" ] || bail "the burst did not wake the engine (wakeups $w0)"

# --- idle: state S throughout, (almost) no CPU time
window 2
case $w_states in
*[!S]*) bail "idle engine not always sleeping: states '$w_states' (S = sleeping)" ;;
esac
[ "$w_ticks" -lt "$idle_max_ticks" ] ||
	bail "idle engine used $w_ticks ticks in 2 s (want < $idle_max_ticks; polling: ~200)"
# nothing to do, nothing to wake up for: a timer-driven poll would show
[ "$w_wakeups" -lt "$idle_max_wakeups" ] ||
	bail "idle engine woke up $w_wakeups times in 2 s (want < $idle_max_wakeups)"

# --- a post must still complete: its kick wakes the engine or is run in
# the kicker's context (writer_runs)
w0=$(ctr wakeups)
r0=$(ctr writer_runs)
k0=$(ctr kicks)
s0=$(ctr sleeps)
utest wake "post after idleness"
grep -E '^ok .*(NEED_WAKEUP|KICK|woke|kick)' "$XRDMA_TMP/out"
tail -n 1 "$XRDMA_TMP/out"
[ "$(ctr wakeups)" -gt "$w0" ] || [ "$(ctr writer_runs)" -gt "$r0" ] ||
	bail "neither wakeups ($w0) nor writer_runs ($r0) grew across the post"
[ "$(ctr kicks)" -gt "$k0" ] || bail "kicks stayed at $k0 across the post"
sleep 1
asleep "$s0" "1 s after the post"

# --- control: a polling engine is seen by the same measurement
echo 4000000000 >"$idle_param" || bail "cannot write $idle_param"
utest paths "control"
s0=$(ctr sleeps)
window 2
echo "$idle_us0" >"$idle_param"
[ "$w_ticks" -ge "$poll_min_ticks" ] ||
	bail "control: a polling engine used only $w_ticks ticks in 2 s: the CPU measurement does not work"
[ "$w_sleeps" = 0 ] || bail "control: the engine slept $w_sleeps times with idle_us ~71 min"
case $w_states in
*R*) ;;
*) bail "control: the polling engine was never seen running: states '$w_states'" ;;
esac
sleep 1
asleep "$s0" "after restoring idle_us"
note "control ok: polling engine seen ($w_ticks ticks), asleep again with idle_us $idle_us0"

rmmod xnic || bail "rmmod xnic"
rmmod xnic_sim || bail "rmmod xnic_sim"
[ ! -e "/proc/$epid" ] || bail "the engine thread (pid $epid) survived rmmod xnic_sim"
assert rmmod xrdma_uverbs
assert rmmod xrdma_core
