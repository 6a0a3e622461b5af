# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_VMS: 2
# XRDMA_TIMEOUT: 60
# XRDMA_DEBIAN_MODULES: virtio_pci virtio_net
#
# Two-guest smoke test: the guests, joined by a QEMU socket netdev on the
# host's 127.0.0.1, ping each other over virtio-net (198.18.0.1 <-> .2).
# Proves the two-guest wiring that later wire tests rely on.

# shellcheck source=/dev/null # lib/wire.sh, in the guest
. /xrdma/tests/lib/wire.sh
dev=$(wire_netdev) || fail "no network interface (virtio-net missing?)"
assert ip addr add "$XRDMA_IP/24" dev "$dev"
assert ip link set "$dev" up
note "$dev $XRDMA_IP, peer $XRDMA_PEER_IP"

# the guests boot at slightly different times: wait for the peer to
# answer; then stay up until the peer has done the same (1 + 3 echo
# requests answered), so neither guest powers off under the other's feet
wire_ping_peer "$dev" || fail "no ping of $XRDMA_PEER_IP"
wire_echos_done 0 || fail "the peer did not finish"
note "answered $(wire_in_echos) echo requests from the peer"
