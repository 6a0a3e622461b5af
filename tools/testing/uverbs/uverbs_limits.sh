# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 420
# XRDMA_PROGRAMS: tools/testing/uverbs/uverbs_test
#
# What one process or user may take of xnic0 (Documentation/core.rst,
# "Limits"): queue memory counts in VmPin against RLIMIT_MEMLOCK for as
# long as it exists (create/mmap/destroy loop -> ENOMEM, munmap gives it
# back), the per-context cap and the queue order cap, per-uid shares of
# contexts and SRQs (-EAGAIN for the one, a second uid still gets both),
# of device memory and of multicast attachments (likewise),
# the rdma cgroup's hca_handle/hca_object limits (-EAGAIN), queue
# memory charged to (and uncharged from) the memory cgroup.  dmabuf MRs'
# charges are dmabuf_limits.sh's (it needs vgem, which the debug kernel
# lacks).
# Per-check results are the "ok N - ..." / "not ok N - ..." lines of
# uverbs_test (tools/testing/uverbs/t_limits.c).

mount_debugfs
: >"$XRDMA_TMP/errors"
xnic_stack_up 1

failed=$XRDMA_TMP/failed
: >"$failed"
uverbs_test -d xnic0 -f "$failed" limmem limcap limshare limdm limmcast limcgroup limmemcg
rc=$?

xnic_stack_end xnic0
if [ $rc != 0 ]; then
	fail "uverbs_test rc=$rc, $(wc -l <"$failed") check(s) failed, first: $(head -n 1 "$failed")"
fi
fail_on_errors
