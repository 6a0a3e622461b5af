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

IP=/usr/bin/ip
[ -x $IP ] || fail "iproute2's ip not in the guest"
low=$(wire_netdev) || fail "no network interface (virtio-net missing?)"
mount_debugfs

eth_of() {
	for _n in /sys/class/net/*; do
		_l=$(readlink "$_n/device" 2>/dev/null) || continue
		if [ "${_l##*/}" = "xnic.$1" ]; then
			echo "${_n##*/}"
			return 0
		fi
	done
	return 1
}

ctr() {
	awk -v n="$1" '$1 == n { print $2 }' "$XRDMA_DEBUGFS/xnic_sim/0/counters"
}

in_echos() {
	awk '/^Icmp:/ { if (!n) { for (i = 1; i <= NF; i++) if ($i == "InEchos") c = i; n = 1 }
			else print $c }' /proc/net/snmp
}

bail() {
	xnic_stack_down
	fail "$*"
}

# what an earlier test left on it (its address would route around the port)
assert $IP addr flush dev "$low"
assert $IP link set "$low" up
echos0=$(in_echos)
if [ "$XRDMA_ROLE" = a ]; then
	lowmac=$(cat "/sys/class/net/$low/address")
	for m in xrdma_core xrdma_uverbs; do
		assert insmod "$(xko $m)"
	done
	insmod "$(xko xnic_sim)" netdev="$low" || bail "insmod xnic_sim netdev=$low"
	insmod "$(xko xnic)" || bail "insmod xnic"
	n=0
	until dev=$(eth_of 0); do
		n=$((n + 1))
		[ $n -lt 100 ] || bail "no netdev of xnic.0"
		sleep 0.1
	done
	[ "$(cat "/sys/class/net/$dev/address")" = "$lowmac" ] ||
		bail "$dev's MAC is not $low's $lowmac"
	lowrx0=$(cat "/sys/class/net/$low/statistics/rx_packets")
else
	dev=$low
fi
assert $IP addr add "$XRDMA_IP/24" dev "$dev"
assert $IP link set "$dev" up
note "$XRDMA_ROLE: $dev $XRDMA_IP"

n=0
until ping -c 1 -W 1 "$XRDMA_PEER_IP" >/dev/null 2>&1; do
	n=$((n + 1))
	[ $n -lt 60 ] || bail "peer $XRDMA_PEER_IP never answered"
done
ping -c 3 -i 0.2 -W 2 "$XRDMA_PEER_IP" || bail "ping $XRDMA_PEER_IP"

if [ "$XRDMA_ROLE" = b ]; then
	# a answers from its virtio-net's MAC (52:54:00:00:00:0a, run-2vm.sh)
	pmac=$($IP neigh show "$XRDMA_PEER_IP" dev "$dev" | awk '{ for (i = 1; i < NF; i++) if ($i == "lladdr") print $(i + 1) }')
	[ "$pmac" = 52:54:00:00:00:0a ] ||
		fail "a ($XRDMA_PEER_IP) is at '$pmac', want its virtio-net's 52:54:00:00:00:0a"
else
	tx=$(ctr wire_eth_tx)
	rx=$(ctr wire_eth_rx)
	[ "$tx" -ge 4 ] || bail "wire_eth_tx $tx, want at least 4"
	[ "$rx" -ge 4 ] || bail "wire_eth_rx $rx, want at least 4"
	note "wire_eth_tx $tx wire_eth_rx $rx ($low rx_packets $lowrx0 -> $(cat "/sys/class/net/$low/statistics/rx_packets"))"
fi

n=0
while [ "$(in_echos)" -lt $((echos0 + 4)) ]; do
	n=$((n + 1))
	[ $n -lt 300 ] || bail "peer did not finish pinging us (answered $(($(in_echos) - echos0)))"
	sleep 0.2
done
sleep 1
[ "$XRDMA_ROLE" = a ] && xnic_stack_down
assert $IP addr flush dev "$low"
