# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_VMS: 2
# XRDMA_TIMEOUT: 300
# XRDMA_ROCE: 1
# XRDMA_DEBIAN_MODULES: virtio_pci virtio_net crc32_generic rdma_rxe ib_uverbs
# XRDMA_DEBIAN_MODULES: rdma_ucm
# XRDMA_PROGRAMS: /usr/bin/ip /usr/bin/rdma ibv_rc_pingpong ibv_ud_pingpong
# XRDMA_PROGRAMS: ib_write_lat ib_write_bw ib_read_lat ib_read_bw ib_send_lat
# XRDMA_PROGRAMS: ib_send_bw ib_atomic_lat ib_atomic_bw rping
# XRDMA_FILES: /etc/libibverbs.d/rxe.driver
# XRDMA_FILES: /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so
#
# The reference pairing of the wire tests: Debian's rxe in both guests,
# over eth0 and the QEMU socket link (Documentation/testing.rst, "Two
# guests on a wire"), guest a the servers, b the clients:
#   ibv_rc_pingpong -c (data checked), 1 B .. 1 MiB, path MTU 1024, 4096
#   ibv_ud_pingpong 1 B, 1 KiB
#   perftest ib_{write,read,send,atomic}_{lat,bw}, 20 iterations
#   rdma_cm: rping -V (data validated), ib_send_lat -R, ib_write_bw -R
# Each run must exit 0 on both sides and print its result line; the
# client's row is noted for the record, no number is asserted.  What
# this proves is the harness (two guests, the link, the capture that
# guest-test.sh checks as wire_pcap): the xnic pairings run the same
# suite against this.

# shellcheck source=/dev/null # lib/wire.sh, in the guest
. /xrdma/tests/lib/wire.sh
wire_begin rxe rxe
wire_suite a
wire_end
