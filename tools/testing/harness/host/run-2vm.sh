#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two QEMU TCG guests joined by a QEMU socket netdev on 127.0.0.1.
#
# Usage: run-2vm.sh INITRD LOG_A LOG_B [TIMEOUT_S] [APPEND] [NIC_MODEL]
#   Guests a and b (the two ends of the link) get "xrdma.role=a|b" appended to
#   APPEND and one NIC (default virtio-net-pci, MACs 52:54:00:00:00:0a/0b).
#   Exit status: 124 if either guest hit the timeout, else the first nonzero
#   QEMU status, else 0.
# Environment: XRDMA_2VM_LINK the link: nodelay (default; one TCP connection
# on 127.0.0.1 with TCP_NODELAY at both ends, made by tcp-link.py and
# passed to QEMU as "-netdev socket,fd=N"), socket (QEMU's own
# "-netdev socket,listen=/connect=": Nagle at the connecting end, ~44 ms
# for two small frames in a row) or dgram (UDP: frames that do not fit the
# receiving socket's buffer are lost); XRDMA_PORT for socket and dgram
# (default: a free port; dgram also takes the next), XRDMA_2VM_SMP vCPUs per
# guest (default 1: two guests already fill two host cores), XRDMA_MEM,
# XRDMA_NTESTS (as for run-vm.sh: each guest's progress lines, "guest a:",
# "guest b:", count the tests done of that many).
# XRDMA_PCAP=FILE: the link's frames, both directions, as guest a's end of
# it sees them, go to FILE (pcap; QEMU's filter-dump on guest a's netdev),
# each frame cut to XRDMA_PCAP_SNAPLEN bytes (default 4600: whole frames
# at the MTU the wire tests use, 4500, so that ICRCs can be checked).
set -uo pipefail

D=$(dirname "$0")
# shellcheck source=tools/testing/harness/host/lib.sh
. "$D/lib.sh"

[ $# -ge 3 ] || xrdma_die "usage: run-2vm.sh INITRD LOG_A LOG_B [TIMEOUT_S] [APPEND] [NIC]"
INITRD=$1
LOG_A=$2
LOG_B=$3
TO=${4:-300}
APPEND=${5:-}
NIC=${6:-virtio-net-pci}
export XRDMA_SMP=${XRDMA_2VM_SMP:-1}

LINK=${XRDMA_2VM_LINK:-nodelay}
case $LINK in
nodelay)
	# one TCP connection, TCP_NODELAY at both ends, made before QEMU
	# starts: fds 3 (a) and 4 (b) of this script, re-run under
	# tcp-link.py (see there: QEMU's own leaves Nagle on)
	if [ -z "${XRDMA_LINK_FDS:-}" ]; then
		XRDMA_LINK_FDS=1 exec "$D/tcp-link.py" "$0" "$@"
	fi
	NET_A="socket,id=n0,fd=3"
	NET_B="socket,id=n0,fd=4"
	;;
socket | dgram)
	port_busy() { ss -Hauntp 2>/dev/null | awk '{print $5}' | grep -q ":$1\$"; }
	PORT=${XRDMA_PORT:-}
	if [ -z "$PORT" ]; then
		for _ in $(seq 50); do
			PORT=$((20000 + RANDOM % 20000))
			port_busy "$PORT" || port_busy $((PORT + 1)) || break
		done
	fi
	if [ "$LINK" = socket ]; then
		NET_A="socket,id=n0,listen=127.0.0.1:$PORT"
		NET_B="socket,id=n0,connect=127.0.0.1:$PORT"
	else
		NET_A="dgram,id=n0,local.type=inet,local.host=127.0.0.1,local.port=$PORT,remote.type=inet,remote.host=127.0.0.1,remote.port=$((PORT + 1))"
		NET_B="dgram,id=n0,local.type=inet,local.host=127.0.0.1,local.port=$((PORT + 1)),remote.type=inet,remote.host=127.0.0.1,remote.port=$PORT"
	fi
	;;
*)
	xrdma_die "XRDMA_2VM_LINK=$LINK: nodelay, socket or dgram"
	;;
esac

CAP=()
if [ -n "${XRDMA_PCAP:-}" ]; then
	rm -f "$XRDMA_PCAP"
	CAP=(-object "filter-dump,id=cap0,netdev=n0,file=$XRDMA_PCAP,maxlen=${XRDMA_PCAP_SNAPLEN:-4600}")
fi
# (each QEMU gets its own end of a nodelay link only)
"$D"/run-vm.sh "$INITRD" "$LOG_A" "$TO" "$APPEND xrdma.role=a" -- \
	-netdev "$NET_A" \
	-device "$NIC,netdev=n0,mac=52:54:00:00:00:0a" "${CAP[@]}" 4>&- &
pid_a=$!
# with QEMU's own socket link guest b's connect fails unless a listens
if [ "$LINK" = socket ]; then
	for _ in $(seq 100); do
		ss -Htln 2>/dev/null | awk '{print $4}' | grep -q "^127.0.0.1:$PORT\$" && break
		kill -0 $pid_a 2>/dev/null || break
		sleep 0.1
	done
fi
"$D"/run-vm.sh "$INITRD" "$LOG_B" "$TO" "$APPEND xrdma.role=b" -- \
	-netdev "$NET_B" \
	-device "$NIC,netdev=n0,mac=52:54:00:00:00:0b" 3>&-
rc_b=$?
wait $pid_a
rc_a=$?
if [ $rc_a = 124 ] || [ $rc_b = 124 ]; then
	exit 124
fi
[ $rc_a != 0 ] && exit $rc_a
exit $rc_b
