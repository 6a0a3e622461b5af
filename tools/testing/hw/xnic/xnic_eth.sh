# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_PROGRAMS: ip
# XRDMA_SUBTEST: ping 240
# XRDMA_SUBTEST: remove 240
#
# The xnic Ethernet function (Documentation/xnic/ethernet.rst): a netdev
# per port, its frames carried by the model's cable.  xnic_sim ndev=3:
# devices 0 and 1 are cabled, device 2 is not.  Device 1's netdev is
# moved into a network namespace (iproute2's ip, /usr/bin/ip: busybox's
# has no netns) so that traffic between 198.18.5.1 (device 0) and
# 198.18.5.2 (device 1) really crosses the cable.
#   ping    the MAC derived from the node GUID (so the IPv6 link-local
#           address is the port's default GID), carrier on the cabled
#           ports only, ping both ways (ARP resolves to the peer's MAC),
#           fragmented and jumbo (MTU 9198) pings, a jumbo frame dropped
#           (counted) by a peer at MTU 1500, a 2 MiB TCP transfer (busybox
#           nc) verified byte for byte, the frames counted in the model's
#           debugfs "eth" file and in the netdevs' statistics; the
#           uncabled device sends and receives nothing
#   remove  with ping and TCP floods running both ways: unbind device 1
#           from the driver and bind it again, then rmmod xnic; both
#           complete (20 s bound), the netdevs are gone (also the one in
#           the namespace), and after insmod xnic the ports ping again
# A kernel without network namespaces (CONFIG_NET_NS) skips
# "ping" and runs "remove" with one-way echo requests to a static
# neighbour on each side instead (frames still cross the cable).

IP=/usr/bin/ip
NS=xnic_eth_peer
A=198.18.5.1
B=198.18.5.2
C=198.18.6.1
D=198.18.6.2
NETNS=0
BG=""

[ -x $IP ] || fail "iproute2's ip not in the guest"

# simctr I NAME: value NAME of model device I's debugfs "eth" file
simctr() {
	awk -v n="$2" '$1 == n { print $2; f = 1 } END { exit !f }' \
		"$XRDMA_DEBUGFS/xnic_sim/$1/eth" || fail "no $2 in xnic_sim/$1/eth"
}

# nstat DEV NAME: a statistic of DEV (in the init namespace)
nstat() { cat "/sys/class/net/$1/statistics/$2"; }

# pstat DEV NAME: a statistic of DEV in the peer namespace
pstat() { $IP netns exec $NS cat "/sys/class/net/$1/statistics/$2"; }

# has_ll DEV ADDR: DEV has the IPv6 address ADDR (tentative or not)
has_ll() { $IP -6 addr show dev "$1" | grep -q " $2 "; }

# at_least GOT MIN WHAT
at_least() {
	[ "$1" -ge "$2" ] || fail "$3: $1, want at least $2"
}

# the background traffic ends, the namespace goes
traffic_down() {
	for _p in $BG; do
		kill "$_p" 2>/dev/null
	done
	for _p in $BG; do
		wait "$_p" 2>/dev/null
	done
	BG=""
	$IP netns del $NS 2>/dev/null
}

cleanup() {
	traffic_down
	xnic_stack_down
}

bail() {
	cleanup
	fail "$*"
}

# pair_up: device 0's netdev $n0 at $A, device 1's $n1 (side1_up)
pair_up() {
	n0=$(xnic_netdev 0) || bail "no netdev of device 0"
	n1=$(xnic_netdev 1) || bail "no netdev of device 1"
	NETNS=1
	$IP netns add $NS 2>/dev/null || NETNS=0
	$IP addr add $A/24 dev "$n0" || bail "address on $n0"
	$IP link set "$n0" up || bail "$n0 up"
	side1_up
}

# side1_up: $n1 at $B in $NS; in a kernel without network namespaces (the
# debug kernel), at $C here, and each side has a static neighbour behind
# the cable ($B, $D) that is no local address: echo requests to it cross
# the cable and are dropped there (traffic one way only)
side1_up() {
	if [ $NETNS = 1 ]; then
		$IP link set "$n1" netns $NS || bail "moving $n1 into $NS"
		$IP -n $NS addr add $B/24 dev "$n1" || bail "address on $n1"
		$IP -n $NS link set "$n1" up || bail "$n1 up"
		$IP -n $NS link set lo up
		note "$n0 $A <-> $n1 $B (in $NS)"
		return 0
	fi
	$IP addr add $C/24 dev "$n1" || bail "address on $n1"
	$IP link set "$n1" up || bail "$n1 up"
	$IP neigh replace $B lladdr 00:58:52:00:00:02 dev "$n0" nud permanent ||
		bail "neighbour $B"
	$IP neigh replace $D lladdr 00:58:52:00:00:01 dev "$n1" nud permanent ||
		bail "neighbour $D"
	note "no network namespaces: $n0 $A -> $B, $n1 $C -> $D, one way"
}

# hold: a fifo whose writer (in $BG) never writes, as the stdin of a
# listening nc (busybox nc ends its side of the connection at the end of
# its stdin, and the sender stops at the end of the connection)
hold() {
	[ -p "$XRDMA_TMP/hold" ] && return 0
	mkfifo "$XRDMA_TMP/hold" || bail "mkfifo"
	sleep 1000 >"$XRDMA_TMP/hold" &
	BG="$BG $!"
}

# transfer PORT SIZE_KIB: SIZE_KIB of random bytes from $A to $B over TCP,
# compared byte for byte
transfer() {
	dd if=/dev/urandom of="$XRDMA_TMP/blob" bs=1024 count="$2" 2>/dev/null ||
		bail "dd"
	: >"$XRDMA_TMP/got"
	hold
	$IP netns exec $NS timeout 120 nc -l -p "$1" <"$XRDMA_TMP/hold" \
		>"$XRDMA_TMP/got" &
	_lp=$!
	_i=0
	until timeout 120 nc $B "$1" <"$XRDMA_TMP/blob"; do
		_i=$((_i + 1))
		[ $_i -lt 50 ] || bail "cannot connect to $B:$1"
		sleep 0.2
	done
	wait $_lp || bail "the receiving nc failed"
	cmp "$XRDMA_TMP/blob" "$XRDMA_TMP/got" ||
		bail "the $2 KiB received on $B differ from those sent"
}

# ------------------------------------------------------------------ ping
sub_ping() {
	xnic_stack_up 3
	mount_debugfs
	n2=$(xnic_netdev 2) || bail "no netdev of device 2"
	for i in 0 1 2; do
		n=$(xnic_netdev $i) || bail "no netdev of device $i"
		[ "$(cat "/sys/class/net/$n/address")" = "00:58:52:00:00:0$((i + 1))" ] ||
			bail "MAC of $n: $(cat "/sys/class/net/$n/address"), want 00:58:52:00:00:0$((i + 1)) (from GUID 02:58:52:ff:fe:00:00:0$((i + 1)))"
	done
	pair_up
	if [ $NETNS = 0 ]; then
		cleanup
		skip "no network namespaces in this kernel (ip netns add failed)"
	fi
	$IP link set "$n2" up || bail "$n2 up"

	assert_eq "$(cat "/sys/class/net/$n0/carrier")" 1 "carrier of cabled $n0"
	assert_eq "$($IP netns exec $NS cat "/sys/class/net/$n1/carrier")" 1 \
		"carrier of cabled $n1"
	assert_eq "$(cat "/sys/class/net/$n2/carrier")" 0 "carrier of uncabled $n2"
	assert_eq "$(simctr 2 link)" 0 "model 2 link"
	if [ -d /proc/sys/net/ipv6 ]; then
		# addrconf adds it once the carrier is up, in its own time
		wait_for 10 has_ll "$n0" fe80::258:52ff:fe00:1/64 || {
			$IP -6 addr show dev "$n0"
			bail "$n0 has no link-local address fe80::258:52ff:fe00:1 (the GID of xnic.0)"
		}
	fi

	t0=$(simctr 0 tx_frames)
	r0=$(simctr 0 rx_frames)
	t1=$(simctr 1 tx_frames)
	r1=$(simctr 1 rx_frames)
	ntx0=$(nstat "$n0" tx_packets)
	nrx1=$(pstat "$n1" rx_packets)
	nrxb1=$(pstat "$n1" rx_bytes)

	ping -c 5 -i 0.2 -W 5 $B || bail "ping $A -> $B"
	$IP netns exec $NS ping -c 5 -i 0.2 -W 5 $A || bail "ping $B -> $A"
	$IP neigh show $B dev "$n0" | grep -q 'lladdr 00:58:52:00:00:02' || {
		$IP neigh show dev "$n0"
		bail "ARP: $B is not 00:58:52:00:00:02 on $n0"
	}
	$IP -n $NS neigh show $A dev "$n1" | grep -q 'lladdr 00:58:52:00:00:01' ||
		bail "ARP: $A is not 00:58:52:00:00:01 on $n1"

	# 8000 bytes: six fragments a ping; 1472: a full 1500-byte frame
	ping -c 3 -s 8000 -W 5 $B || bail "ping -s 8000"
	ping -c 3 -s 1472 -W 5 $B || bail "ping -s 1472"
	# jumbo: the largest MTU is 9198 (a 9216-byte frame with a VLAN
	# tag's room); one 9212-byte frame a ping
	$IP -d link show "$n0" | grep -q 'maxmtu 9198 ' ||
		bail "$n0: max MTU not 9198: $($IP -d link show "$n0")"
	$IP link set "$n0" mtu 9199 2>/dev/null && bail "MTU 9199 taken on $n0"
	$IP link set "$n0" mtu 9198 || bail "mtu 9198 on $n0"
	$IP -n $NS link set "$n1" mtu 9198 || bail "mtu 9198 on $n1"
	ping -c 3 -s 9170 -W 5 $B || bail "ping -s 9170 at MTU 9198"
	$IP link set "$n0" mtu 1500
	$IP -n $NS link set "$n1" mtu 1500
	# the RX buffers follow the MTU (restarted with it): at 1500, $n1
	# takes no 8028-byte frame, which model 1 drops and counts
	drop=$(simctr 1 rx_drop_len)
	$IP link set "$n0" mtu 9198 || bail "mtu 9198 on $n0 alone"
	ping -c 1 -s 8000 -W 2 $B && bail "an 8028-byte frame taken by $n1 at MTU 1500"
	at_least $(($(simctr 1 rx_drop_len) - drop)) 1 "frames over $n1's MTU dropped by model 1"
	$IP link set "$n0" mtu 1500
	ping -c 1 -s 8000 -W 5 $B || bail "ping -s 8000 (fragmented) after the MTU changes"

	transfer 5001 2048
	note "2 MiB over TCP verified"

	# every frame counted, in the model and in the netdevs
	at_least $(($(simctr 0 tx_frames) - t0)) 30 "frames model 0 sent"
	at_least $(($(simctr 1 rx_frames) - r1)) 30 "frames model 1 received"
	at_least $(($(simctr 1 tx_frames) - t1)) 30 "frames model 1 sent"
	at_least $(($(simctr 0 rx_frames) - r0)) 30 "frames model 0 received"
	at_least $(($(nstat "$n0" tx_packets) - ntx0)) 30 "tx_packets of $n0"
	at_least $(($(pstat "$n1" rx_packets) - nrx1)) 30 "rx_packets of $n1"
	at_least $(($(pstat "$n1" rx_bytes) - nrxb1)) 2097152 "rx_bytes of $n1"
	assert_eq "$(simctr 0 tx_errors)" 0 "model 0 tx_errors"
	assert_eq "$(simctr 1 tx_errors)" 0 "model 1 tx_errors"

	# the uncabled port: nothing in, nothing out
	assert_eq "$(simctr 2 rx_frames)" 0 "frames model 2 received"
	assert_eq "$(simctr 2 tx_frames)" 0 "frames model 2 sent"
	assert_eq "$(nstat "$n2" rx_packets)" 0 "rx_packets of uncabled $n2"
	grep . "$XRDMA_DEBUGFS"/xnic_sim/[01]/eth | grep -E '_(frames|drop_[a-z]+|errors)'
	cleanup
}

# ---------------------------------------------------------------- remove
# flood PORT: ping and TCP (to PORT) both ways, in the background ($BG);
# without namespaces, echo requests both ways
flood() {
	if [ $NETNS = 0 ]; then
		ping -q -i 0.005 -s 1000 -w 100 $B >/dev/null 2>&1 &
		BG="$BG $!"
		ping -q -i 0.005 -w 100 $D >/dev/null 2>&1 &
		BG="$BG $!"
		return 0
	fi
	ping -A -q -s 1000 -w 100 $B >/dev/null 2>&1 &
	BG="$BG $!"
	$IP netns exec $NS ping -A -q -w 100 $A >/dev/null 2>&1 &
	BG="$BG $!"
	hold
	$IP netns exec $NS timeout 100 nc -l -p "$1" <"$XRDMA_TMP/hold" \
		>/dev/null 2>&1 &
	BG="$BG $!"
	sleep 0.5
	timeout 100 nc $B "$1" </dev/zero >/dev/null 2>&1 &
	BG="$BG $!"
}

# flowing I: frames model I sends grow within 2 s
flowing() {
	_a=$(simctr "$1" tx_frames)
	sleep 2
	[ "$(simctr "$1" tx_frames)" -gt "$_a" ] ||
		bail "no frames sent by model $1 during the flood"
}

sub_remove() {
	xnic_stack_up 2
	mount_debugfs
	pair_up
	[ $NETNS = 0 ] || ping -c 2 -W 5 $B || bail "ping before the flood"
	flood 5002
	flowing 0
	flowing 1

	# unbind the device whose netdev is in the namespace, bind it again
	echo xnic.1 >/sys/bus/platform/drivers/xnic/unbind ||
		bail "unbind xnic.1"
	# (a namespace also gets the fallback devices of tunnel modules
	# another test loaded: tunl0@NONE, sit0@NONE, ...)
	[ $NETNS = 0 ] ||
		[ -z "$($IP -n $NS -o link show | grep -v -e ' lo:' -e '@NONE:')" ] ||
		bail "a netdev is left in $NS after unbind: $($IP -n $NS -o link show)"
	echo xnic.1 >/sys/bus/platform/drivers/xnic/bind || bail "bind xnic.1"
	n1=$(xnic_netdev 1) || bail "no netdev after binding xnic.1 again"
	side1_up
	[ $NETNS = 0 ] || ping -c 2 -W 5 $B || bail "ping after unbind and bind"
	# (what sent through the old netdev may have stopped)
	flood 5003
	flowing 0
	flowing 1

	rmmod_timed xnic || bail "rmmod xnic under the flood: rc $?"
	[ -z "$(ls /sys/class/net | grep '^xnic')" ] ||
		bail "netdevs left after rmmod xnic: $(ls /sys/class/net)"
	[ $NETNS = 0 ] || [ -z "$($IP -n $NS -o link show | grep -v ' lo:')" ] ||
		bail "a netdev left in $NS after rmmod xnic"

	# the driver comes back
	insmod "$(xko xnic)" || bail "insmod xnic again"
	wait_xrdma_dev xnic1 || bail "xnic1 did not come back"
	traffic_down
	pair_up
	if [ $NETNS = 1 ]; then
		ping -c 3 -W 5 $B || bail "ping after insmod xnic again"
	else
		flood 5004
		flowing 0
		flowing 1
	fi
	cleanup
}

case ${XRDMA_SUBTEST:-} in
ping) sub_ping ;;
remove) sub_remove ;;
*) fail "no such subtest: '${XRDMA_SUBTEST:-}'" ;;
esac
for m in xnic xnic_sim xrdma_uverbs xrdma_core; do
	! module_loaded $m || fail "module $m still loaded"
done
