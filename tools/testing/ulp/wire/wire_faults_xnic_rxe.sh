# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_VMS: 2
# XRDMA_TIMEOUT: 480
# XRDMA_ROCE: 1
# XRDMA_DEBIAN_MODULES: virtio_pci virtio_net crc32_generic rdma_rxe ib_uverbs
# XRDMA_DEBIAN_MODULES: rdma_ucm ib_core sch_netem
# XRDMA_PROGRAMS: /usr/bin/ip /usr/bin/rdma /usr/sbin/tc ibv_rc_pingpong
# XRDMA_PROGRAMS: ib_write_bw ib_read_bw tools/testing/ulp/wire/wire_verify
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run
# XRDMA_FILES: /etc/libibverbs.d/rxe.driver
# XRDMA_FILES: /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so
#
# xnic against rxe on a faulty wire (issue 25): xnic in guest a, rxe in
# b.  netem with, in turn, 2% loss, 1% duplicates, reordering and 1%
# corruption (fenced out of the capture's check), first on b's egress
# (what reaches xnic is faulty; xnic the servers), then on a's own
# (xnic the clients: its requests and retransmissions).  Under each:
# wire_verify (wire_pair_verify in lib/wire.sh) moves patterned data with
# RC SEND, WRITE and READ of 1 B .. 1 MiB with each side the requester in
# turn (xnic sending and receiving), and checks every byte and every
# completion on both sides; ib_write_bw and ib_read_bw complete on both
# sides; and the receiving side's recovery counters moved: xnic's wire_*
# ones (retransmits, timeouts, sequence NAKs, duplicates, out-of-sequence
# drops, ICRC errors, malformed) while the faults are on b's egress,
# rxe's on a's.  Every program meets its peer over TCP after its last
# completion before it destroys its QP: a lost final ACK is the
# transport's to recover, not a race the test loses.

# shellcheck source=/dev/null # lib/wire.sh, in the guest
. /xrdma/tests/lib/wire.sh
wire_begin xnic rxe
note "faults on rxe's egress, xnic serving"
wire_faults a b
note "faults on xnic's egress, xnic the client"
wire_faults b a
wire_end
