# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_PROGRAMS: tools/testing/uverbs/uverbs_test
#
# uverbs_test (tools/testing/uverbs) against xrdma_testdev, one guest test
# per subtest (uverbs_<subtest>, see the README), each with its own time
# limit and a fresh load of the stack:
#   abi       the ABI, command by command (Documentation/uverbs.rst): sysfs
#             discovery, GET_CONTEXT ordering, ioctl encoding, every
#             command's success path and its errors (sizes, flags, reserved
#             fields, handles of the wrong type / another fd / destroyed,
#             EBUSY dependencies, read-only and unmapped memory for REG_MR)
#   events    events injected through xrdma_testdev's debugfs inject file:
#             completion channels (poll/epoll/select, blocking and
#             O_NONBLOCK reads, several CQs per channel,
#             comp_events_reported; again with the reader's poll before
#             sleeping at its longest and off: xrdma_uverbs' ev_poll_us),
#             the async event fd (QP, CQ, port and device fatal events,
#             overflow record, async_events_reported); last, as the device
#             stays failed: DEVICE_FATAL, and DESTROY answering EIO
#   lifetime  close and exit with live objects, SIGKILL in the middle of
#             creating/destroying/registering, RLIMIT_MEMLOCK without
#             CAP_IPC_LOCK (VmPin accounting), create/destroy cycles without
#             Slab growth; the debugfs resource counts return to zero
#   mmap      the CQ ring shows its magic/token/cqn, offset, length,
#             MAP_PRIVATE and PROT_EXEC are refused, mremap cannot grow, the
#             memory outlives DESTROY until munmap; a child after fork()
#             gets EPERM and has no copy of the mapping, the parent keeps
#             working
# XRDMA_SUBTEST: abi 240
# XRDMA_SUBTEST: events 180
# XRDMA_SUBTEST: lifetime 600
# XRDMA_SUBTEST: mmap 120
# Per-check results are the "ok N - ..." / "not ok N - ..." lines of
# uverbs_test; a subtest fails if any of its checks fails.

case ${XRDMA_SUBTEST:-} in
abi) groups="sysfs context ioctl query pd mr cq qp srq ah xrc destroy sizes fds kick query_clock abi" ;;
events) groups="compchan async" ;;
lifetime) groups="close kill memlock cycles" ;;
mmap) groups="mmap fork" ;;
*) fail "no such subtest: '${XRDMA_SUBTEST:-}'" ;;
esac

testdev_stack_up

failed=$XRDMA_TMP/failed
: >"$failed"
# shellcheck disable=SC2086 # one argument per group
uverbs_test -d testdev0 -f "$failed" $groups
rc=$?
if [ "$XRDMA_SUBTEST" = events ]; then
	# the completion channels again with a reader that polls 10 ms (the
	# most ev_poll_us gives) before it sleeps, then with no polling:
	# events come while a blocking reader polls, after, or before
	p=/sys/module/xrdma_uverbs/parameters/ev_poll_us
	assert_eq "$(cat $p)" 50 "ev_poll_us default"
	refute sh -c "echo 10001 >$p"
	assert_eq "$(cat $p)" 50 "ev_poll_us after 10001 was refused"
	echo 10000 >$p || fail "cannot set $p"
	uverbs_test -d testdev0 -f "$failed" compchan || rc=$?
	echo 0 >$p || fail "cannot set $p"
	uverbs_test -d testdev0 -f "$failed" compchan || rc=$?
	# last: the device stays failed after it
	uverbs_test -d testdev0 -f "$failed" fatal || rc=$?
fi

# nothing may keep the modules busy once the process is gone
assert_eq "$(cat /sys/module/xrdma_uverbs/refcnt)" 0 "xrdma_uverbs refcnt"
assert rmmod xrdma_testdev
assert rmmod xrdma_uverbs
assert rmmod xrdma_core

if [ $rc != 0 ]; then
	fail "uverbs_test rc=$rc, $(wc -l <"$failed") check(s) failed, first: $(head -n 1 "$failed")"
fi
