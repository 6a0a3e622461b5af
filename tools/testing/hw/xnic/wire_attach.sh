# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 120
# XRDMA_DEBIAN_MODULES: veth ipip bridge
# XRDMA_PROGRAMS: ip
#
# The xnic port on a wire (Documentation/xnic/wire.rst), attached at run
# time through the device's sysfs attribute "netdev".  xnic_sim ndev=2
# cable=none; a veth pair v0/v1, v1 in a network namespace at
# 198.18.7.2/24:
#   - xnic.0 <- v0: the attribute reads v0, the xnic's carrier comes up,
#     v0 turns promiscuous (the port keeps its own MAC), the xnic's
#     netdev at 198.18.7.1 pings 198.18.7.2 through the port, the peer
#     sees the port's MAC, the frames are counted (wire_eth_tx/rx);
#   - every refusal with its errno: no such netdev (ENODEV), loopback
#     (EINVAL), not Ethernet (tunl0: EPFNOSUPPORT), an xnic's own netdev
#     (ELOOP), a netdev with an rx_handler (the other port's, a bridge
#     port's: EBUSY), a port attached already (EISCONN), a name too long
#     (EINVAL);
#   - the port's active MTU (debugfs wire: active_mtu) follows v0's MTU
#     as rxe's (1500: 1024, 9000: 4096, 2200: 2048), 4096 unattached;
#   - "none" detaches (carrier down, promiscuity off, no more ping),
#     attaching again works;
#   - deleting the attached veth detaches (the attribute reads none);
#   - unloading with a port attached frees the netdev (it joins a bridge).
# The console must stay free of splats (the harness checks).

# shellcheck source=/dev/null # lib/wire.sh, in the guest
. /xrdma/tests/lib/wire.sh
IP=/usr/bin/ip
NS=wire_attach_peer
[ -x $IP ] || fail "iproute2's ip not in the guest"
mount_debugfs

attr() { echo "/sys/bus/platform/devices/xnic.$1/netdev"; }
flags() { echo $(($(cat "/sys/class/net/$1/flags"))); }

cleanup() {
	$IP netns del $NS 2>/dev/null
	for _l in v0 v2 v4 wbr0; do
		$IP link del $_l 2>/dev/null
	done
	xnic_stack_down
	# ipip's fallback tunl0 would appear in every later namespace
	rmmod ipip 2>/dev/null
}

bail() {
	cleanup
	fail "$*"
}

# refused I NAME TEXT: writing NAME to xnic.I's attribute fails with TEXT
refused() {
	# dd says why (the shell's own redirection may not)
	_e=$(printf '%s\n' "$2" | dd of="$(attr "$1")" 2>&1) &&
		bail "xnic.$1 <- $2 accepted, want: $3"
	case "$_e" in
	*"$3"*) note "xnic.$1 <- $2: $3" ;;
	*) bail "xnic.$1 <- $2: '$_e', want '$3'" ;;
	esac
}

# pings N: N pings of the peer answered (after the first)
pings() {
	_n=0
	until ping -c 1 -W 1 198.18.7.2 >/dev/null 2>&1; do
		_n=$((_n + 1))
		[ $_n -lt 20 ] || return 1
	done
	ping -c "$1" -i 0.2 -W 2 198.18.7.2 >/dev/null
}

carrier() { cat "/sys/class/net/$1/carrier"; }
# wire I NAME: NAME's value in xnic_sim I's debugfs wire file
wire() {
	awk -v n="$2" '$1 == n { print $2 }' "$XRDMA_DEBUGFS/xnic_sim/$1/wire"
}
# mtu_is I WANT WHAT: the active MTU of xnic.I is WANT
mtu_is() {
	_m=$(wire "$1" active_mtu)
	[ "$_m" = "$2" ] || bail "xnic.$1 active_mtu $_m $3, want $2"
}

# -- setup --
for m in xrdma_core xrdma_uverbs; do
	assert insmod "$(xko $m)"
done
insmod "$(xko xnic_sim)" ndev=2 cable=none || bail "insmod xnic_sim"
insmod "$(xko xnic)" || bail "insmod xnic"
n=0
until xn0=$(xnic_netdev 0) && xnic_netdev 1 >/dev/null; do
	n=$((n + 1))
	[ $n -lt 100 ] || bail "no netdevs of xnic.0 and xnic.1"
	sleep 0.1
done
$IP netns add $NS || { cleanup; skip "no network namespaces"; }
$IP link add v0 type veth peer name v1 || bail "veth pair"
$IP link set v1 netns $NS || bail "v1 into $NS"
$IP -n $NS addr add 198.18.7.2/24 dev v1 || bail "address on v1"
$IP -n $NS link set v1 up || bail "v1 up"
$IP link set v0 up || bail "v0 up"
$IP addr add 198.18.7.1/24 dev "$xn0" || bail "address on $xn0"
$IP link set "$xn0" up || bail "$xn0 up"
xmac=$(cat "/sys/class/net/$xn0/address")

[ "$(cat "$(attr 0)")" = none ] || bail "xnic.0 attached at load"
[ "$(carrier "$xn0")" = 0 ] || bail "$xn0 has carrier without cable or wire"
mtu_is 0 4096 "unattached"

# -- attach, ping through the port --
echo v0 > "$(attr 0)" || bail "attach xnic.0 to v0"
[ "$(cat "$(attr 0)")" = v0 ] || bail "xnic.0/netdev: $(cat "$(attr 0)")"
n=0
until [ "$(carrier "$xn0")" = 1 ]; do
	n=$((n + 1))
	[ $n -lt 50 ] || bail "$xn0: no carrier once attached"
	sleep 0.1
done
[ $(($(flags v0) & 0x100)) -ne 0 ] || bail "v0 not promiscuous (the port's MAC is not v0's)"
pings 3 || bail "no ping through the port"
pmac=$($IP -n $NS neigh show 198.18.7.1 dev v1 | awk '{ for (i = 1; i < NF; i++) if ($i == "lladdr") print $(i + 1) }')
[ "$pmac" = "$xmac" ] || bail "the peer sees 198.18.7.1 at '$pmac', want the port's $xmac"
tx=$(wire_sim_ctr 0 wire_eth_tx)
rx=$(wire_sim_ctr 0 wire_eth_rx)
if [ "$tx" -lt 4 ] || [ "$rx" -lt 4 ]; then
	bail "wire_eth_tx $tx wire_eth_rx $rx, want 4 each"
fi
note "through v0: wire_eth_tx $tx wire_eth_rx $rx"

# -- the active MTU follows v0's --
mtu_is 0 1024 "on v0 at MTU 1500"
$IP link set v0 mtu 9000 || bail "v0 mtu 9000"
mtu_is 0 4096 "on v0 at MTU 9000"
$IP link set v0 mtu 2200 || bail "v0 mtu 2200"
mtu_is 0 2048 "on v0 at MTU 2200"
$IP link set v0 mtu 1500 || bail "v0 mtu 1500"
mtu_is 0 1024 "on v0 at MTU 1500 again"
note "active_mtu follows v0: 1500 1024, 9000 4096, 2200 2048"

# -- refusals --
modprobe ipip 2>/dev/null
refused 1 nosuch0 "No such device"
refused 1 lo "Invalid argument"
if [ -e /sys/class/net/tunl0 ]; then
	refused 1 tunl0 "Protocol family not supported"
else
	note "no tunl0 (ipip): not-Ethernet refusal not checked"
fi
refused 1 "$xn0" "Too many levels of symbolic links"
refused 1 v0 "Device or resource busy"
$IP link add wbr0 type bridge || bail "bridge"
$IP link add v2 type veth peer name v3 || bail "veth v2"
$IP link set v2 master wbr0 || bail "v2 into wbr0"
refused 1 v2 "Device or resource busy"
refused 0 v3 "Transport endpoint is already connected"
refused 1 abcdefghijklmnopq "Invalid argument"
[ "$(cat "$(attr 1)")" = none ] || bail "xnic.1 attached after refusals"

# -- detach, attach again --
echo none > "$(attr 0)" || bail "detach"
[ "$(cat "$(attr 0)")" = none ] || bail "still attached after none"
[ $(($(flags v0) & 0x100)) -eq 0 ] || bail "v0 still promiscuous"
n=0
until [ "$(carrier "$xn0")" = 0 ]; do
	n=$((n + 1))
	[ $n -lt 50 ] || bail "$xn0: carrier after detach"
	sleep 0.1
done
ping -c 1 -W 1 198.18.7.2 >/dev/null 2>&1 && bail "ping answered without the wire"
mtu_is 0 4096 "detached"
echo v0 > "$(attr 0)" || bail "attach again"
pings 2 || bail "no ping after attaching again"

# -- deleting the attached netdev detaches --
$IP link del v0 || bail "delete v0"
[ "$(cat "$(attr 0)")" = none ] || bail "xnic.0 still on $(cat "$(attr 0)") after v0 went"
dmesg | grep -q "xnic_sim 0: off v0" || bail "no detach message"

# -- unload with a port attached --
$IP link add v4 type veth peer name v5 || bail "veth v4"
echo v4 > "$(attr 1)" || bail "attach xnic.1 to v4"
xnic_stack_down
module_loaded xnic_sim && bail "xnic_sim still loaded"
[ $(($(flags v4) & 0x100)) -eq 0 ] || bail "v4 promiscuous after unload"
$IP link set v4 master wbr0 || bail "v4 not free after unload"
cleanup
