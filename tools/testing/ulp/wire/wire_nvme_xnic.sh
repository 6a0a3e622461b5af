# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_VMS: 2
# XRDMA_TIMEOUT: 240
# XRDMA_ROCE: 1
# XRDMA_SUBTEST: both
# XRDMA_SUBTEST: target
# XRDMA_SUBTEST: host
# XRDMA_DEBIAN_MODULES: virtio_pci virtio_net crc32_generic rdma_rxe ib_core
# XRDMA_DEBIAN_MODULES: null_blk nvmet nvmet-rdma nvme-rdma
# XRDMA_PROGRAMS: /usr/bin/ip /usr/bin/rdma nvme dd cmp
#
# NVMe over Fabrics across the wire with xnic (xrdma_ib: xnic as an
# ib_core RoCE device under nvmet-rdma / nvme-rdma), the checks of
# wire_nvme_rxe_rxe (lib/wire_nvme.sh), guest a the target, b the host:
#   both     xnic target, xnic host
#   target   xnic target, rxe host
#   host     rxe target, xnic host

# shellcheck source=/dev/null # lib/wire.sh, in the guest
. /xrdma/tests/lib/wire.sh
# shellcheck source=/dev/null
. /xrdma/tests/lib/wire_nvme.sh
wire_require_xnic
case $XRDMA_SUBTEST in
both) wire_nvme xnic xnic ;;
target) wire_nvme xnic rxe ;;
host) wire_nvme rxe xnic ;;
*) fail "unknown subtest '$XRDMA_SUBTEST'" ;;
esac
