# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_VMS: 2
# XRDMA_TIMEOUT: 200
# XRDMA_ROCE: 1
# XRDMA_DEBIAN_MODULES: virtio_pci virtio_net ib_core rdma_ucm
# XRDMA_PROGRAMS: /usr/bin/ip /usr/bin/rdma ibv_rc_pingpong ibv_ud_pingpong
# XRDMA_PROGRAMS: ib_write_lat ib_write_bw ib_read_lat ib_read_bw ib_send_lat
# XRDMA_PROGRAMS: ib_send_bw ib_atomic_lat ib_atomic_bw rping
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run
#
# xnic against xnic over the wire (issue 25): in each guest the xnic port
# attached to eth0 (xnic_sim netdev=eth0), the address on the xnic's
# netdev, programs on xverbs' libibverbs (xrdma-run); guest a the
# servers.  The suite of wire_rxe_rxe (lib/wire.sh wire_suite): every run
# exits 0 on both sides with its result line, the data checked where the
# program checks it.

# shellcheck source=/dev/null # lib/wire.sh, in the guest
. /xrdma/tests/lib/wire.sh
wire_begin xnic xnic
wire_suite a
wire_end
