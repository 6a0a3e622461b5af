# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_VMS: 2
# XRDMA_TIMEOUT: 120
# XRDMA_DEBIAN_MODULES: virtio_pci virtio_net
# XRDMA_PROGRAMS: ip
#
# The xnic port on a wire (Documentation/xnic/wire.rst), xnic <-> xnic:
# both guests load xnic_sim netdev=<their virtio-net> and put their
# 198.18.0.x address on the xnic's own netdev.  Each checks that its
# port took the virtio-net's identity (the xnic netdev's MAC is the
# virtio-net's, the node GUID its EUI-64, the sysfs attribute names it),
# pings the other across the wire, sees the peer's MAC differ from its
# own (two guests, two identities) and the frames counted (wire_eth_tx,
# wire_eth_rx), then unloads (the netdev is free again).

# shellcheck source=/dev/null # lib/wire.sh, in the guest
. /xrdma/tests/lib/wire.sh
IP=/usr/bin/ip
[ -x $IP ] || fail "iproute2's ip not in the guest"
mount_debugfs
wire_sim_low
low=$WIRE_LOW

# guid_of MAC: the node GUID (as sysfs shows it) whose EUI-64 MAC is MAC
guid_of() {
	_ifs=$IFS
	IFS=:
	# shellcheck disable=SC2086 # split at the colons
	set -- $1
	IFS=$_ifs
	printf '%02x%s:%sff:fe%s:%s%s\n' $((0x$1 ^ 2)) "$2" "$3" "$4" "$5" "$6"
}

# flags DEV: the netdev's flags (sysfs), as a number
flags() { echo $(($(cat "/sys/class/net/$1/flags"))); }

bail() {
	xnic_stack_down
	fail "$*"
}

echos0=$(wire_in_echos)
lowmac=$(cat "/sys/class/net/$low/address")
wire_sim_attach "$low"
xn=$WIRE_XN
wait_for 10 test -e /sys/class/xrdma/uverbs0/node_guid || bail "no uverbs0"
# identity: the virtio-net's
[ "$(cat /sys/bus/platform/devices/xnic.0/netdev)" = "$low" ] ||
	bail "xnic.0/netdev: $(cat /sys/bus/platform/devices/xnic.0/netdev), want $low"
xmac=$(cat "/sys/class/net/$xn/address")
[ "$xmac" = "$lowmac" ] || bail "MAC of $xn: $xmac, want $low's $lowmac"
guid=$(cat /sys/class/xrdma/uverbs0/node_guid)
want=$(guid_of "$lowmac")
[ "$guid" = "$want" ] || bail "node_guid $guid, want $want (EUI-64 of $lowmac)"
note "$low $lowmac: $xn $xmac, node_guid $guid"

assert $IP addr add "$XRDMA_IP/24" dev "$xn"
assert $IP link set "$xn" up
tx0=$(wire_sim_ctr 0 wire_eth_tx)
rx0=$(wire_sim_ctr 0 wire_eth_rx)

wire_ping_peer "$xn" || bail "no ping of $XRDMA_PEER_IP over the wire"

# the peer is another machine: another MAC (and so another GUID and GID)
pmac=$($IP neigh show "$XRDMA_PEER_IP" dev "$xn" | awk '{ for (i = 1; i < NF; i++) if ($i == "lladdr") print $(i + 1) }')
[ -n "$pmac" ] || bail "no neighbour entry for $XRDMA_PEER_IP on $xn"
[ "$pmac" != "$xmac" ] || bail "the peer has our MAC $xmac"
note "peer $XRDMA_PEER_IP is $pmac (node GUID $(guid_of "$pmac"))"

tx=$(wire_sim_ctr 0 wire_eth_tx)
rx=$(wire_sim_ctr 0 wire_eth_rx)
[ "$tx" -ge $((tx0 + 4)) ] || bail "wire_eth_tx $tx0 -> $tx, want 4 more"
[ "$rx" -ge $((rx0 + 4)) ] || bail "wire_eth_rx $rx0 -> $rx, want 4 more"
note "wire_eth_tx $tx wire_eth_rx $rx"

# stay up until the peer has pinged us too
wire_echos_done "$echos0" || bail "the peer did not finish"

# attached with the netdev's own MAC: all multicast (IFF_ALLMULTI) for
# the port's groups, no promiscuity
[ $(($(flags "$low") & 0x200)) -ne 0 ] || bail "$low not in allmulti while attached"
[ $(($(flags "$low") & 0x100)) -eq 0 ] || bail "$low promiscuous (the port has its MAC)"
xnic_stack_down
module_loaded xnic_sim && fail "xnic_sim still loaded"
[ $(($(flags "$low") & 0x200)) -eq 0 ] || fail "$low still in allmulti after unload"
