# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 240
# XRDMA_PROGRAMS: tools/testing/hw/xnic/xnic_utest
#
# Removal of the xnic driver under its users (Documentation/uverbs.rst,
# "Lifetime"): with xnic_sim ndev=2, a process (xnic_utest "remove" mode)
# holds a context on xnic0 with a PD, an MR, CQs, an SRQ and QPs, all
# rings and the doorbell page mapped, work done and receives outstanding;
# the ULP test module xnic_ulp_test is loaded and has run a loopback and
# a device-to-device case.  rmmod xnic must then complete within 20 s with
# the process alive; the process sees -EIO from every ioctl, one
# DEVICE_FATAL on its async fd, its mappings zapped (SIGBUS, or a zero
# page), its MR unpinned, and exits 0.  The driver comes back (insmod) and
# serves the ULP and a new process; then everything unloads cleanly.

xnic_utest_init
ulp=$(xko xnic_ulp_test) || exit 1

upid=""

unload() {
	for m in xnic_ulp_test xnic xnic_sim xrdma_uverbs xrdma_core; do
		module_loaded $m && rmmod $m
	done
}

# bail MSG: stop the helper process, unload what is loaded and fail
bail() {
	[ -n "$upid" ] && kill -9 "$upid" 2>/dev/null
	unload 2>/dev/null
	fail "$*"
}

# ulp_case NAME: one xnic_ulp_test case must report PASS
ulp_case() {
	echo "$1" >"$XRDMA_DEBUGFS/xnic_ulp/run" || bail "xnic_ulp_test refused case $1"
	grep '^XRDMA_CASE ' "$XRDMA_DEBUGFS/xnic_ulp/results"
	grep -q "^XRDMA_CASE $1 PASS" "$XRDMA_DEBUGFS/xnic_ulp/results" ||
		bail "xnic_ulp_test case $1 did not pass"
}

assert insmod "$XNIC_CORE"
assert insmod "$XNIC_UV"
insmod "$XNIC_SIM" ndev=2 || bail "insmod xnic_sim ndev=2"
insmod "$XNIC_DRV" || bail "insmod xnic"
wait_xrdma_dev xnic0 || bail "xnic0 did not appear"
wait_xrdma_dev xnic1 || bail "xnic1 did not appear"

# --- a process holding a context with objects and mappings
ready=$XRDMA_TMP/ready
out=$XRDMA_TMP/out
xnic_utest -n xnic0 -r "$ready" remove >"$out" 2>&1 &
upid=$!
n=0
while [ ! -s "$ready" ]; do
	if ! kill -0 $upid 2>/dev/null; then
		wait $upid
		rc=$?
		upid=""
		cat "$out"
		bail "xnic_utest exited (rc=$rc) before it was ready"
	fi
	n=$((n + 1))
	[ $n -le 600 ] || {
		cat "$out"
		bail "xnic_utest not ready after 60 s"
	}
	sleep 0.1
done
pid=$(cat "$ready")
[ "$pid" = "$upid" ] || bail "ready file says pid '$pid', the process is $upid"
res=$XRDMA_DEBUGFS/xrdma/xnic0/resources
nobj=$(grep -c " pid $pid\$" "$res")
note "process $pid holds $nobj objects on xnic0"
[ "$nobj" -ge 7 ] || {
	cat "$res"
	bail "debugfs lists $nobj objects of pid $pid, want >= 7 (PD, MR, 2 CQs, SRQ, 2 QPs)"
}
note "model 0 holds: $(grep -E '^(qps|cqs|srqs|mrs|db_pages) ' \
	"$XRDMA_DEBUGFS/xnic_sim/0/regs" | tr '\n' ' ')"

# --- the ULP module runs a case (loopback on xnic0, then xnic0 <-> xnic1)
insmod "$ulp" || bail "insmod xnic_ulp_test"
ulp_case loop_send
ulp_case d2d_send
xnic_no_objects xnic1 || bail "the ULP left objects on xnic1"

# --- the driver goes: it must not wait for the process
rmmod_timed xnic
rrc=$?
[ $rrc != 124 ] || bail "rmmod xnic did not complete within 20 s while pid $pid holds a context"
[ $rrc = 0 ] || bail "rmmod xnic failed (rc=$rrc)"
kill -0 "$pid" 2>/dev/null || bail "process $pid died during the removal"
if module_loaded xnic; then
	bail "xnic still loaded"
fi
for p in /sys/class/xrdma_device/xnic0 /sys/class/xrdma_device/xnic1 \
	/dev/infiniband/xrdma_uverbs0 /dev/infiniband/xrdma_uverbs1 \
	"$XRDMA_DEBUGFS/xrdma/xnic0"; do
	[ ! -e "$p" ] || bail "$p left after rmmod xnic"
done

# --- the process checks its disassociated file
kill -USR1 "$pid"
wait $upid
rc=$?
upid=""
cat "$out"
[ $rc = 0 ] || bail "xnic_utest after the removal: rc=$rc, first failure: $(grep -m 1 '^not ok' "$out")"
grep -q '^ok .* SIGUSR1 arrived' "$out" || bail "xnic_utest did not get to the post-removal checks"
# the closed file released xrdma_uverbs
[ "$(cat /sys/module/xrdma_uverbs/refcnt)" = 0 ] ||
	bail "xrdma_uverbs refcnt $(cat /sys/module/xrdma_uverbs/refcnt) after the process exited"

# --- the driver comes back and serves the ULP and a new process
insmod "$XNIC_DRV" || bail "insmod xnic again"
wait_xrdma_dev xnic0 || bail "xnic0 did not come back"
wait_xrdma_dev xnic1 || bail "xnic1 did not come back"
ulp_case loop_send
if ! xnic_utest -n xnic0 >"$out" 2>&1; then
	cat "$out"
	bail "xnic_utest on the new xnic0 failed: $(grep -m 1 '^not ok' "$out")"
fi
tail -n 1 "$out"
for d in xnic0 xnic1; do
	xnic_no_objects $d || bail "objects left on $d"
done

rmmod xnic_ulp_test || bail "rmmod xnic_ulp_test"
rmmod xnic || bail "rmmod xnic"
rmmod xnic_sim || bail "rmmod xnic_sim"
rmmod xrdma_uverbs || bail "rmmod xrdma_uverbs"
rmmod xrdma_core || bail "rmmod xrdma_core"
