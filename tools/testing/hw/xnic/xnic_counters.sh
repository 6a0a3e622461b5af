# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 240
# XRDMA_DEBIAN_MODULES: ib_core
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run
# XRDMA_PROGRAMS: ibv_rc_pingpong /usr/bin/rdma
#
# xnic's hardware counters without debugfs (QUERY_COUNTERS,
# Documentation/xnic/commands.rst; Documentation/core.rst "Hardware
# counters"):
#   - /sys/class/xrdma_device/xnic0/hw_counters/ has one read-only file
#     per counter of the PRM, each a number; the drop counters that
#     answer a guess (ud_drop_*, uc_drops, psn_mismatch, rx_drop_*) are
#     root-only (0400): uid 65534 reads cqes but not them
#     (Documentation/security.rst, "Hardware counters");
#   - an ibv_rc_pingpong (200 iterations of 4096 bytes) moves doorbells,
#     cqes, tx_send, tx_send_bytes (by at least the bytes sent) and
#     rx_send;
#   - with no traffic, every counter the command path itself does not
#     move equals xnic_sim's debugfs counters file;
#   - with xrdma_ib loaded, /sys/class/infiniband/xnic0/ports/1/hw_counters/
#     and "rdma statistic show link xnic0/1" show the same names and
#     values (the device-wide counters on the device's only port), but
#     not the root-only ones (ib_core's are world-readable).

command -v xrdma-run >/dev/null || fail "xrdma-run not in the guest"
mount_debugfs
xnic_stack_up 1
: >"$XRDMA_TMP/errors"
err() { echo "$*" >>"$XRDMA_TMP/errors"; }

HC=/sys/class/xrdma_device/xnic0/hw_counters
DBG=$XRDMA_DEBUGFS/xnic_sim/0/counters
# moved by reading the counters (the command, its event and interrupt)
# or by the model's engine on its own: not compared with debugfs
VOL='^(sleeps|wakeups|writer_runs|serve_waits|yields|commands|cmd_errors|eqes|irqs|kicks) '
# root-only: each drop answers a guess (a Q_Key, a live QPN, a PSN)
PRIV='^(ud_drop_qkey|ud_drop_noqp|ud_drop_norecv|ud_drop_nomcg|uc_drops|psn_mismatch|rx_drop_bad_src|rx_drop_psn) '
# as uid 65534 (busybox su needs the name)
grep -q '^nobody:' /etc/passwd ||
	echo 'nobody:x:65534:65534:nobody:/nonexistent:/bin/false' >>/etc/passwd
as_nobody() { su -s /bin/sh nobody -c "$*"; }

[ -d "$HC" ] || { xnic_stack_down; fail "no $HC"; }
[ -r "$DBG" ] || { xnic_stack_down; fail "no $DBG"; }

# snap FILE: "name value" of every sysfs counter, sorted by name
snap() {
	for _f in "$HC"/*; do
		echo "${_f##*/} $(cat "$_f")"
	done | sort >"$1"
}

snap "$XRDMA_TMP/before"
n=$(wc -l <"$XRDMA_TMP/before")
dn=$(wc -l <"$DBG")
[ "$n" = "$dn" ] || err "sysfs has $n counters, the model $dn"
grep -Evq '^[a-z_]+ [0-9]+$' "$XRDMA_TMP/before" &&
	err "a counter not a number: $(grep -Ev '^[a-z_]+ [0-9]+$' "$XRDMA_TMP/before" | head -n 1)"
for _f in "$HC"/*; do
	_n=${_f##*/}
	want=444
	echo "$_n " | grep -Eq "$PRIV" && want=400
	perm=$(stat -c %a "$_f")
	[ "$perm" = $want ] || err "hw_counters/$_n mode $perm, want $want"
done
[ "$(grep -Ec "$PRIV" "$XRDMA_TMP/before")" = 8 ] ||
	err "not the 8 root-only counters: $(grep -E "$PRIV" "$XRDMA_TMP/before" | tr '\n' ' ')"
(echo 1 >"$HC/cqes") 2>/dev/null && err "hw_counters/cqes writable"
if ! as_nobody "cat $HC/cqes" >"$XRDMA_TMP/nobody" 2>&1 ||
	! grep -Eq '^[0-9]+$' "$XRDMA_TMP/nobody"; then
	err "uid 65534 cannot read hw_counters/cqes: $(cat "$XRDMA_TMP/nobody")"
fi
for _n in ud_drop_qkey ud_drop_noqp rx_drop_bad_src rx_drop_psn; do
	as_nobody "cat $HC/$_n" >/dev/null 2>&1 &&
		err "uid 65534 reads hw_counters/$_n"
	cat "$HC/$_n" >/dev/null || err "root cannot read hw_counters/$_n"
done

# traffic: an RC pingpong over the loopback
port=18600
timeout 60 xrdma-run ibv_rc_pingpong -d xnic0 -g 0 -n 200 -s 4096 -p $port \
	>"$XRDMA_TMP/srv" 2>&1 &
spid=$!
i=0
while ! netstat -ltn 2>/dev/null | grep -q ":$port "; do
	i=$((i + 1))
	[ $i -gt 200 ] && break
	kill -0 $spid 2>/dev/null || break
	sleep 0.05
done
timeout 60 xrdma-run ibv_rc_pingpong -d xnic0 -g 0 -n 200 -s 4096 -p $port \
	127.0.0.1 >"$XRDMA_TMP/cli" 2>&1 || err "pingpong client rc=$?: $(cat "$XRDMA_TMP/cli")"
wait $spid || err "pingpong server rc=$?: $(cat "$XRDMA_TMP/srv")"

snap "$XRDMA_TMP/after"
val() { awk -v n="$2" '$1 == n { print $2 }' "$1"; }
for c in doorbells cqes tx_send rx_send tx_send_bytes rx_send_bytes; do
	b=$(val "$XRDMA_TMP/before" $c) a=$(val "$XRDMA_TMP/after" $c)
	if [ -z "$a" ] || [ "$a" -le "$b" ]; then
		err "$c did not move: $b -> $a"
	fi
done
b=$(val "$XRDMA_TMP/before" tx_send_bytes) a=$(val "$XRDMA_TMP/after" tx_send_bytes)
# both sides send 200 messages of 4096 bytes
[ $((a - b)) -ge $((2 * 200 * 4096)) ] ||
	err "tx_send_bytes moved by $((a - b)), want >= $((2 * 200 * 4096))"

note "pingpong: cqes $(val "$XRDMA_TMP/before" cqes) -> $(val "$XRDMA_TMP/after" cqes), tx_send_bytes +$((a - b))"

# at rest: sysfs equals the model's own view
sort "$DBG" | grep -Ev "$VOL" >"$XRDMA_TMP/dbg"
snap "$XRDMA_TMP/now"
grep -Ev "$VOL" "$XRDMA_TMP/now" >"$XRDMA_TMP/sys"
[ -s "$XRDMA_TMP/sys" ] || err "nothing to compare"
cmp -s "$XRDMA_TMP/sys" "$XRDMA_TMP/dbg" ||
	err "sysfs and debugfs differ: $(diff "$XRDMA_TMP/sys" "$XRDMA_TMP/dbg" | head -n 6)"

# through ib_core
if has_ko xrdma_ib; then
	insmod "$(xko xrdma_ib)" || err "insmod xrdma_ib"
	IBHC=/sys/class/infiniband/xnic0/ports/1/hw_counters
	wait_for 10 test -d "$IBHC" || err "no $IBHC"
	if [ -d "$IBHC" ]; then
		for f in "$IBHC"/*; do
			# ib_core's own file, not a counter
			[ "${f##*/}" = lifespan ] && continue
			echo "${f##*/} $(cat "$f")"
		done | sort | grep -Ev "$VOL" >"$XRDMA_TMP/ib"
		# ib_core's are world-readable: no root-only counter there
		grep -Ev "$PRIV" "$XRDMA_TMP/sys" >"$XRDMA_TMP/pub"
		for _n in ud_drop_qkey ud_drop_noqp rx_drop_bad_src rx_drop_psn; do
			[ -e "$IBHC/$_n" ] && err "ib hw_counters has $_n"
		done
		cmp -s "$XRDMA_TMP/ib" "$XRDMA_TMP/pub" ||
			err "ib hw_counters and xrdma sysfs differ: $(diff "$XRDMA_TMP/ib" "$XRDMA_TMP/pub" | head -n 6)"
		rdma statistic show link xnic0/1 >"$XRDMA_TMP/rdma" 2>&1 ||
			err "rdma statistic rc=$?: $(cat "$XRDMA_TMP/rdma")"
		tr ' ' '\n' <"$XRDMA_TMP/rdma" | sed '1,/^xnic0\/1$/d' |
			paste -d ' ' - - | grep -v '^ *$' | sort |
			grep -Ev "$VOL" >"$XRDMA_TMP/rdmas"
		cmp -s "$XRDMA_TMP/rdmas" "$XRDMA_TMP/pub" ||
			err "rdma statistic and xrdma sysfs differ: $(diff "$XRDMA_TMP/rdmas" "$XRDMA_TMP/pub" | head -n 6)"
		note "$(wc -l <"$XRDMA_TMP/pub") counters equal in xrdma sysfs, debugfs, ib sysfs and rdma statistic"
	fi
	module_loaded xrdma_ib && rmmod xrdma_ib
else
	note "xrdma_ib not built (no ib_core): its part skipped"
fi

xnic_stack_end xnic0
fail_on_errors
