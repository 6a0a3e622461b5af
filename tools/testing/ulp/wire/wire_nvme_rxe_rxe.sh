# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_VMS: 2
# XRDMA_TIMEOUT: 240
# XRDMA_ROCE: 1
# XRDMA_DEBIAN_MODULES: virtio_pci virtio_net crc32_generic rdma_rxe ib_core
# XRDMA_DEBIAN_MODULES: null_blk nvmet nvmet-rdma nvme-rdma
# XRDMA_PROGRAMS: /usr/bin/ip /usr/bin/rdma nvme dd cmp
#
# NVMe over Fabrics across the wire, the reference pairing: Debian's rxe
# in both guests, nvmet-rdma in guest a (null_blk and a file namespace),
# nvme-rdma in guest b (nvme connect -t rdma).  Data written by the host
# reads back on both sides, data the target put in its null_blk reads on
# the host, the ULPs' QPs and cm_ids are there, the disconnect takes the
# controller and the target's QPs, everything unloads
# (lib/wire_nvme.sh).

# shellcheck source=/dev/null # lib/wire.sh, in the guest
. /xrdma/tests/lib/wire.sh
# shellcheck source=/dev/null
. /xrdma/tests/lib/wire_nvme.sh
wire_nvme rxe rxe
