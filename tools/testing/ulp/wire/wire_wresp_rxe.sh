# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_VMS: 2
# XRDMA_TIMEOUT: 400
# XRDMA_ROCE: 1
# XRDMA_DEBIAN_MODULES: virtio_pci virtio_net crc32_generic rdma_rxe ib_uverbs
# XRDMA_DEBIAN_MODULES: rdma_ucm ib_core sch_netem
# XRDMA_PROGRAMS: /usr/bin/ip /usr/bin/rdma /usr/sbin/tc
# XRDMA_PROGRAMS: ib_write_bw ib_read_bw ib_send_bw ib_atomic_bw
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run
# XRDMA_FILES: /etc/libibverbs.d/rxe.driver
# XRDMA_FILES: /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so
#
# The xnic responder (xnic_sim_wresp.c) against Linux's rxe as the
# requester: perftest's bandwidth tests with the server on xnic (guest a)
# and the client on rxe (guest b), where xnic only answers -- WRITE,
# READ (64 KiB and 1 MiB), SEND, FETCH_ADD and CMP_SWAP --, then the
# same through netem's losses, duplicates and reordering (both guests'
# egress), which drive the responder's sequence NAKs, duplicate
# handling (a SEND or atomic executed once) and READ re-execution.
# shellcheck source=/dev/null # lib/wire.sh, in the guest
. /xrdma/tests/lib/wire.sh
wire_begin xnic rxe
_wsd="-d $WIRE_IBDEV"
_wpeer=$XRDMA_PEER_IP
[ "$XRDMA_ROLE" = a ] && _wpeer=$XRDMA_IP
# (the _lat tests of WRITE and SEND send both ways: not here)
_wts="write_bw read_bw send_bw atomic_bw"
for _wt in $_wts; do
	# shellcheck disable=SC2086
	wire_pair a "ib_$_wt" 'local address' "$WIRE_PT" \
		tcp "$_wpeer" -- ib_$_wt $_wsd -x "$WIRE_GIDX" -n 50 -F
done
# shellcheck disable=SC2086
wire_pair a ib_atomic_cas 'local address' "$WIRE_PT" tcp "$_wpeer" -- \
	ib_atomic_bw $_wsd -x "$WIRE_GIDX" -n 50 -F -A CMP_AND_SWAP
# the same through losses, duplicates and reordering both ways
wire_netem loss 3% duplicate 2% delay 2ms reorder 20% 50%
for _wt in $_wts; do
	# shellcheck disable=SC2086
	wire_pair a "netem_$_wt" 'local address' "$WIRE_PT" \
		tcp "$_wpeer" -- ib_$_wt $_wsd -x "$WIRE_GIDX" -n 100 -F
done
/usr/bin/tc qdisc del dev "$WIRE_ETH" root
# shellcheck disable=SC2086
wire_pair a ib_read_bw_big 'local address' "$WIRE_PT" tcp "$_wpeer" -- \
	ib_read_bw $_wsd -x "$WIRE_GIDX" -n 20 -F -s 1048576
wire_end
