# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 120
# XRDMA_PROGRAMS: tools/testing/uverbs/uverbs_test
#
# uverbs mmap and fork: the CQ ring shows its magic/token/cqn, offset,
# length, MAP_PRIVATE and PROT_EXEC are refused, mremap cannot grow, the
# memory outlives DESTROY until munmap; a child after fork() gets EPERM and
# has no copy of the mapping, the parent keeps working.
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
uverbs_test -d testdev0 -f "$failed" mmap fork
rc=$?

# nothing may keep the modules busy once the process is gone
assert_eq "$(cat /sys/module/xrdma_uverbs/refcnt)" 0 "xrdma_uverbs refcnt"
assert rmmod xrdma_testdev
assert rmmod xrdma_uverbs
assert rmmod xrdma_core

if [ $rc != 0 ]; then
	fail "uverbs_test rc=$rc, $(wc -l <"$failed") check(s) failed, first: $(head -n 1 "$failed")"
fi
