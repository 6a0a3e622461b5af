# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_VMS: 2
# XRDMA_TIMEOUT: 300
# XRDMA_ROCE: 1
# XRDMA_DEBIAN_MODULES: virtio_pci virtio_net crc32_generic rdma_rxe ib_uverbs
# XRDMA_DEBIAN_MODULES: rdma_ucm ib_core
# XRDMA_PROGRAMS: /usr/bin/ip /usr/bin/rdma ibv_rc_pingpong ibv_ud_pingpong
# XRDMA_PROGRAMS: ib_write_lat ib_write_bw ib_read_lat ib_read_bw ib_send_lat
# XRDMA_PROGRAMS: ib_send_bw ib_atomic_lat ib_atomic_bw rping
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run
# XRDMA_FILES: /etc/libibverbs.d/rxe.driver
# XRDMA_FILES: /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so
#
# xnic against Linux's rxe over the wire (issue 25): the xnic port of
# guest a attached to its eth0 (xnic_sim netdev=eth0, the address on the
# xnic's netdev, programs on xverbs' libibverbs through xrdma-run), an
# unmodified rxe0 on guest b's eth0 (Debian's libibverbs).  The suite of
# wire_rxe_rxe (lib/wire.sh wire_suite) twice: xnic as the servers (a),
# then xnic as the clients (b the servers).  Each run exits 0 on both
# sides with its result line (rc_pingpong and rping check the data).

# shellcheck source=/dev/null # lib/wire.sh, in the guest
. /xrdma/tests/lib/wire.sh
wire_begin xnic rxe
note "xnic as server"
wire_suite a
note "xnic as client"
wire_suite b
wire_end
