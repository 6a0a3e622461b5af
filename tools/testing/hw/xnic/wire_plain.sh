# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_VMS: 2
# XRDMA_TIMEOUT: 120
# XRDMA_DEBIAN_MODULES: virtio_pci virtio_net
# XRDMA_PROGRAMS: ip
#
# The xnic port on a wire (Documentation/xnic/wire.rst), xnic <-> a plain
# host: guest a loads xnic_sim netdev=<its virtio-net> and puts its
# address on the xnic's netdev; guest b keeps its virtio-net as it is.
# Both ping each other; b sees a at the MAC of a's virtio-net (the port
# took it), a counts the frames on the wire (wire_eth_tx, wire_eth_rx).

# shellcheck source=/dev/null # lib/wire.sh, in the guest
. /xrdma/tests/lib/wire.sh
IP=/usr/bin/ip
[ -x $IP ] || fail "iproute2's ip not in the guest"
mount_debugfs
wire_sim_low
low=$WIRE_LOW

bail() {
	xnic_stack_down
	fail "$*"
}

echos0=$(wire_in_echos)
if [ "$XRDMA_ROLE" = a ]; then
	lowmac=$(cat "/sys/class/net/$low/address")
	wire_sim_attach "$low"
	dev=$WIRE_XN
	[ "$(cat "/sys/class/net/$dev/address")" = "$lowmac" ] ||
		bail "$dev's MAC is not $low's $lowmac"
	lowrx0=$(cat "/sys/class/net/$low/statistics/rx_packets")
else
	dev=$low
fi
assert $IP addr add "$XRDMA_IP/24" dev "$dev"
assert $IP link set "$dev" up
note "$XRDMA_ROLE: $dev $XRDMA_IP"

wire_ping_peer "$dev" || bail "no ping of $XRDMA_PEER_IP over $dev"

if [ "$XRDMA_ROLE" = b ]; then
	# a answers from its virtio-net's MAC (52:54:00:00:00:0a, run-2vm.sh)
	pmac=$($IP neigh show "$XRDMA_PEER_IP" dev "$dev" | awk '{ for (i = 1; i < NF; i++) if ($i == "lladdr") print $(i + 1) }')
	[ "$pmac" = 52:54:00:00:00:0a ] ||
		fail "a ($XRDMA_PEER_IP) is at '$pmac', want its virtio-net's 52:54:00:00:00:0a"
else
	tx=$(wire_sim_ctr 0 wire_eth_tx)
	rx=$(wire_sim_ctr 0 wire_eth_rx)
	[ "$tx" -ge 4 ] || bail "wire_eth_tx $tx, want at least 4"
	[ "$rx" -ge 4 ] || bail "wire_eth_rx $rx, want at least 4"
	note "wire_eth_tx $tx wire_eth_rx $rx ($low rx_packets $lowrx0 -> $(cat "/sys/class/net/$low/statistics/rx_packets"))"
fi

wire_echos_done "$echos0" || bail "the peer did not finish"
[ "$XRDMA_ROLE" = a ] && xnic_stack_down
assert $IP addr flush dev "$low"
