# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_VMS: 2
# XRDMA_TIMEOUT: 240
# XRDMA_ROCE: 1
# XRDMA_DEBIAN_MODULES: virtio_pci virtio_net crc32_generic rdma_rxe ib_uverbs
# XRDMA_DEBIAN_MODULES: rdma_ucm sch_netem
# XRDMA_PROGRAMS: /usr/bin/ip /usr/bin/rdma /usr/sbin/tc ibv_rc_pingpong
# XRDMA_PROGRAMS: ib_write_bw ib_read_bw
# XRDMA_FILES: /etc/libibverbs.d/rxe.driver
# XRDMA_FILES: /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so
#
# The reference of the fault tests: rxe in both guests, netem on guest
# b's egress (the clients': requests and their data) with, in turn, 2%
# loss, 1% duplicates, reordering (5 ms delay, 25% sent at once) and 1%
# corruption (fenced out of the capture's check).  Under each, data
# checked by ibv_rc_pingpong -c (1 MiB, path MTU 1024), ib_write_bw and
# ib_read_bw complete on both sides, and rxe's recovery
# counters (duplicate_request, out_of_seq_request, rcvd_seq_err,
# completer_retry_err) of the two guests together moved: the faults
# were there and recovered from (lib/wire.sh wire_faults).

# shellcheck source=/dev/null # lib/wire.sh, in the guest
. /xrdma/tests/lib/wire.sh
: >"$XRDMA_TMP/errors"
wire_up rxe
wire_sync up >/dev/null
wire_faults a b
note "counters: $(wire_counters | awk '$2 != 0' | tr '\n' ' ')"
wire_sync end >/dev/null
wire_down
fail_on_errors
