# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 240
# XRDMA_DEBIAN_MODULES: vgem
# XRDMA_PROGRAMS: tools/testing/uverbs/uverbs_test
#
# dmabuf MRs' kernel memory (Documentation/core.rst, "Kernel memory of
# dmabuf MRs"): one vgem dmabuf registered over and over is charged to the
# memory cgroup and bounded by the per-context cap (-ENOMEM), and all of
# it comes back (uverbs_test limdmabuf, tools/testing/uverbs/t_limits.c).
# Apart from uverbs_limits because it needs vgem, which the debug kernel
# lacks; under its DMA-API debugging, mapping one dmabuf more than 7 times
# also warns "exceeded 7 overlapping mappings", as ib_umem_dmabuf would.

mount_debugfs
: >"$XRDMA_TMP/errors"
xnic_stack_up 1

failed=$XRDMA_TMP/failed
: >"$failed"
uverbs_test -d xnic0 -f "$failed" limdmabuf
rc=$?

xnic_stack_end xnic0
if [ $rc != 0 ]; then
	fail "uverbs_test rc=$rc, $(wc -l <"$failed") check(s) failed, first: $(head -n 1 "$failed")"
fi
fail_on_errors
