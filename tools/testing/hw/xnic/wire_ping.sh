# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_VMS: 2
# XRDMA_TIMEOUT: 60
# XRDMA_DEBIAN_MODULES: virtio_pci virtio_net
#
# Two-guest smoke test: the guests, joined by a QEMU socket netdev on the
# host's 127.0.0.1, ping each other over virtio-net (198.18.0.1 <-> .2).
# Proves the two-guest wiring that later wire tests rely on.

dev=$(wire_netdev) || fail "no network interface (virtio-net missing?)"
assert ip addr add "$XRDMA_IP/24" dev "$dev"
assert ip link set "$dev" up
note "$dev $XRDMA_IP, peer $XRDMA_PEER_IP"

# ICMP echo requests this guest has answered
in_echos() {
	awk '/^Icmp:/ { if (!n) { for (i = 1; i <= NF; i++) if ($i == "InEchos") c = i; n = 1 }
			else print $c }' /proc/net/snmp
}

# the guests boot at slightly different times: wait for the peer to answer
n=0
until ping -c 1 -W 1 "$XRDMA_PEER_IP" >/dev/null 2>&1; do
	n=$((n + 1))
	[ $n -lt 40 ] || fail "peer $XRDMA_PEER_IP never answered"
done
assert ping -c 3 -i 0.2 -W 2 "$XRDMA_PEER_IP"

# stay up until the peer has done the same (1 + 3 echo requests answered),
# so neither guest powers off under the other's feet
n=0
while [ "$(in_echos)" -lt 4 ]; do
	n=$((n + 1))
	[ $n -lt 200 ] || fail "peer did not finish pinging us (answered $(in_echos))"
	sleep 0.2
done
sleep 1
note "answered $(in_echos) echo requests from the peer"
