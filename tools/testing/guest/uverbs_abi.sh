# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 240
# XRDMA_PROGRAMS: tools/testing/uverbs/uverbs_test
#
# uverbs ABI, command by command (Documentation/uverbs.rst): sysfs
# discovery, GET_CONTEXT ordering, ioctl encoding, every command's success
# path and its errors (sizes, flags, reserved fields, handles of the wrong
# type / another fd / destroyed, EBUSY dependencies, read-only and unmapped
# memory for REG_MR), against xrdma_testdev.
# Per-check results are the "ok N - ..." / "not ok N - ..." lines of
# uverbs_test (tools/testing/uverbs); the test fails if any check fails.

core=$(xko xrdma_core) || exit 1
uv=$(xko xrdma_uverbs) || exit 1
td=$(xko xrdma_testdev) || exit 1
mount_debugfs

assert insmod "$core"
assert insmod "$uv"
assert insmod "$td" ndev=1

failed=$XRDMA_TMP/failed
: >"$failed"
uverbs_test -d testdev0 -f "$failed" sysfs context ioctl query pd mr cq qp srq ah destroy sizes fds kick abi
rc=$?

# nothing may keep the modules busy once the process is gone
assert_eq "$(cat /sys/module/xrdma_uverbs/refcnt)" 0 "xrdma_uverbs refcnt"
assert rmmod xrdma_testdev
assert rmmod xrdma_uverbs
assert rmmod xrdma_core

if [ $rc != 0 ]; then
	fail "uverbs_test rc=$rc, $(wc -l <"$failed") check(s) failed, first: $(head -n 1 "$failed")"
fi
