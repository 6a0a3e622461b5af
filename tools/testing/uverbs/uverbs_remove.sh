# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 180
# XRDMA_PROGRAMS: tools/testing/uverbs/uverbs_test
#
# Device removal with an open fd (Documentation/uverbs.rst, "Lifetime"): a
# process opens testdev0, creates one object of every kind, registers an MR
# and maps a CQ ring and the doorbell, then waits for SIGUSR1.  Meanwhile
# rmmod xrdma_testdev must complete within 20 s with the process alive.
# Then the process checks its disassociated file: every ioctl -EIO, a
# DEVICE_FATAL record on the async fd, SIGBUS on the mappings, its MR
# unpinned; and it exits 0.  Finally the device comes back with insmod and
# works for a new process.
# Per-check results are the "ok N - ..." / "not ok N - ..." lines of
# uverbs_test (tools/testing/uverbs).

testdev_stack_up
td=$(xko xrdma_testdev) || exit 1

uvdev=$(uverbs_of testdev0) || fail "no /sys/class/xrdma/*/ibdev says testdev0"
note "testdev0 is $uvdev"

failed=$XRDMA_TMP/failed
ready=$XRDMA_TMP/ready
: >"$failed"
rm -f "$ready"
uverbs_test -d testdev0 -f "$failed" -r "$ready" remove &
upid=$!

n=0
while [ ! -s "$ready" ]; do
	kill -0 $upid 2>/dev/null || {
		wait $upid
		fail "uverbs_test exited (rc=$?) before it was ready; first failed check: $(head -n 1 "$failed")"
	}
	n=$((n + 1))
	[ $n -lt 600 ] || {
		kill -9 $upid
		fail "uverbs_test not ready after 60 s"
	}
	sleep 0.1
done
pid=$(cat "$ready")
res=$XRDMA_DEBUGFS/xrdma/testdev0/resources
nobj=$(grep -c " pid $pid\$" "$res")
note "process $pid holds $nobj objects:"
head -n 6 "$res" | tr '\n' ' '
echo
[ "$nobj" -ge 8 ] || fail "debugfs lists $nobj objects for pid $pid, want >= 8"

# the removal must not wait for the process
rmmod_timed xrdma_testdev
rrc=$?
if [ $rrc != 0 ]; then
	kill -USR1 "$pid"
	[ $rrc != 124 ] || fail "rmmod xrdma_testdev did not complete within 20 s while pid $pid holds the fd"
	fail "rmmod xrdma_testdev failed (rc=$rrc)"
fi
kill -0 "$pid" 2>/dev/null || fail "process $pid died during the removal"
module_loaded xrdma_testdev && fail "xrdma_testdev still loaded"
assert_absent "$XRDMA_DEBUGFS/xrdma/testdev0"
assert_absent "/sys/class/xrdma/$uvdev"
assert_absent "/dev/infiniband/xrdma_$uvdev"

kill -USR1 "$pid"
wait $upid
rc=$?
[ $rc = 0 ] ||
	fail "uverbs_test after removal: rc=$rc, $(wc -l <"$failed") check(s) failed, first: $(head -n 1 "$failed")"
# the closed file released xrdma_uverbs
assert_eq "$(cat /sys/module/xrdma_uverbs/refcnt)" 0 "xrdma_uverbs refcnt"

# the device comes back and serves a new process
assert insmod "$td" ndev=1
: >"$failed"
uverbs_test -d testdev0 -f "$failed" sysfs context pd
rc=$?
[ $rc = 0 ] ||
	fail "after re-insmod: rc=$rc, first failed check: $(head -n 1 "$failed")"

assert rmmod xrdma_testdev
assert rmmod xrdma_uverbs
assert rmmod xrdma_core
