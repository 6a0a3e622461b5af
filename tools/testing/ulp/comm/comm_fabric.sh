# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 120
# XRDMA_SUBTEST: info 60
# XRDMA_SUBTEST: msg 120
# XRDMA_SUBTEST: rdm 150
# XRDMA_SUBTEST: dgram 90
# XRDMA_SUBTEST: cross 150
# XRDMA_DEBIAN_MODULES: ib_core rdma_cm rdma_ucm
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run
# XRDMA_PROGRAMS: /usr/bin/ip /usr/bin/rdma fi_info fi_pingpong rping
#
# libfabric 1.17 (Debian's libfabric1, whose verbs provider is built in,
# and libfabric-bin), unmodified, over xnic through xrdma's libibverbs.so.1
# (xrdma-run puts it first on the library path).  xnic0 is registered
# with ib_core by xrdma_ib, 198.18.0.1/24 on its netdev (lib/ulp.sh): the
# verbs provider finds its domains with librdmacm (rdma_getaddrinfo and
# rdma_bind_addr on each interface address: the kernel's rdma_ucm) and
# connects FI_EP_MSG endpoints with rdma_cm.
#   info   fi_info -p verbs lists the domain xnic0 (FI_EP_MSG, at
#          198.18.0.1, over Ethernet), xnic0-dgram (FI_EP_DGRAM) and,
#          with ofi_rxm, xnic0 for FI_EP_RDM; the system's libibverbs
#          knows no xnic (what finds it is ours)
#   msg    fi_pingpong -e msg, -e rdm (ofi_rxm, its tagged interface too)
#   rdm    and -e dgram: server and client in this guest over xnic0, every
#   dgram  size the tool runs ("-S all": up to 6 MiB, up to the 4 KiB MTU
#          for dgram), data checked on both sides (-c); and -e rdm over
#          ofi_rxd (RDM on the provider's datagrams) at 64 KiB; the payload
#          crossed xnic (its counters), no object is left on the device
#   cross  two xnic devices cabled to each other (xnic_sim ndev=2), both
#          registered with ib_core, each netdev in its own network
#          namespace (198.18.1.1 and 198.18.1.2); rping -V, fi_pingpong
#          -e msg -c and -e dgram -c with the server in one namespace and
#          the client in the other: each device's counters show the
#          payload it sent and received
#
# What libfabric needs on xnic, and why:
#   FI_EP_MSG, FI_EP_DGRAM, FI_EP_RDM over ofi_rxd: nothing.  But a DGRAM
#     (and ofi_rxd) domain is a device, not an address: with several
#     xnic devices, name it (fi_pingpong -d xnic1-dgram, or
#     FI_VERBS_DEVICE_NAME=xnic1), else every process takes the first.
#   FI_EP_RDM (verbs;ofi_rxm): FI_UNIVERSE_SIZE=256 (at most).  ofi_rxm
#     opens one verbs CQ per endpoint of (msg rx size + msg tx size) x
#     universe entries = (128 + 128) x 1024 by default = 262144, more
#     than xnic's max_cqe (65536, ibv_devinfo -v): ibv_create_cq fails
#     with EINVAL and fi_enable() with -22.  256 x 256 = 65536 fits.
#     (rxe's limit, 32767, needs 127.)  FI_OFI_RXM_MSG_TX_SIZE and
#     FI_OFI_RXM_MSG_RX_SIZE are the other knobs of the same product.
# Network namespaces: nothing either, in ib_core's default mode ("rdma
# system": netns shared), where every RDMA device is reachable from every
# namespace.  rdma_ucm makes the cm_id in the caller's namespace, resolves
# the address there, and picks the device whose GID table holds the
# address's GID for that netdev (ib_core follows the netdev into its
# namespace); librdmacm then matches the device by node GUID and ib_core
# index.  In exclusive mode a device must be moved with "rdma dev set DEV
# netns NS", which ib_core refuses (EOPNOTSUPP) for xrdma_ib's devices
# (no disassociate_ucontext): rdma_cm outside the initial namespace then
# finds no device (rdma_bind_addr: ENODEV).

# shellcheck source=/dev/null # lib/ulp.sh, in the guest
. /xrdma/tests/lib/ulp.sh

RDMA=/usr/bin/rdma
# the two-device case (lib/ulp.sh: ulp_cross_up): the server's namespace
# and address (xnic0), the client's namespace (xnic1)
NSA=$ULP_NSA
NSB=$ULP_NSB
XA=$ULP_XA
# the largest FI_UNIVERSE_SIZE whose ofi_rxm CQ fits xnic's max_cqe
RXM_UNIVERSE=256
port=47600

command -v xrdma-run >/dev/null || fail "xrdma-run not in the guest"
[ -f /usr/bin/libibverbs.so.1 ] || fail "xverbs' libibverbs.so.1 not shipped (not built?)"
: >"$XRDMA_TMP/errors"

err() { echo "$*" >>"$XRDMA_TMP/errors"; }

# the stack's modules that the programs need beside the fabric: rdma_ucm
# is librdmacm's kernel side (/dev/infiniband/rdma_cm).  The header loads
# it, and with it ib_uverbs, which ulp_fabric_up unloads (xrdma_ib's
# devices have no ib_uverbs node; only rdma_ucm needs its symbols)
# (and rdma_rxe, if an earlier test left it: it holds ib_uverbs too)
cm_modules_down() { ulp_rmmod rdma_ucm rdma_rxe ib_uverbs rdma_cm iw_cm ib_cm; }
cm_modules_up() {
	modprobe rdma_ucm || fail "modprobe rdma_ucm"
	[ -c /dev/infiniband/rdma_cm ] || fail "no /dev/infiniband/rdma_cm"
}

# ---------------------------------------------------------------- pairs

# listening NS PORT: a TCP socket listens on PORT in NS
listening() { ulp_inns "$1" netstat -ltn 2>/dev/null | grep -q ":$2 "; }

# fi_pair NAME SRV_NS CLI_NS ADDR ARGS...: fi_pingpong ARGS as server in
# SRV_NS, then as client of ADDR in CLI_NS (its own control port each
# time); both exit 0.  Output in $XRDMA_TMP/NAME.srv and NAME.cli.
# $SRV_ARGS and $CLI_ARGS: more arguments for one side only.
fi_pair() {
	_n=$1 _sns=$2 _cns=$3 _addr=$4
	shift 4
	port=$((port + 1))
	# shellcheck disable=SC2086 # SRV_ARGS are words
	ulp_inns "$_sns" timeout 60 xrdma-run fi_pingpong -B $port ${SRV_ARGS:-} "$@" \
		>"$XRDMA_TMP/$_n.srv" 2>&1 &
	_sp=$!
	wait_for 10 listening "$_sns" $port ||
		err "$_n: the server does not listen on $port"
	# shellcheck disable=SC2086 # CLI_ARGS are words
	ulp_inns "$_cns" timeout 60 xrdma-run fi_pingpong -P $port ${CLI_ARGS:-} "$@" \
		"$_addr" >"$XRDMA_TMP/$_n.cli" 2>&1
	_crc=$?
	wait $_sp
	_src=$?
	[ $_crc = 0 ] && [ $_src = 0 ] && return 0
	err "$_n: fi_pingpong $*: client rc=$_crc server rc=$_src"
	echo "--- $_n client"
	tail -n 20 "$XRDMA_TMP/$_n.cli"
	echo "--- $_n server"
	tail -n 20 "$XRDMA_TMP/$_n.srv"
	return 1
}

# fi_rows NAME ITERS SIZE...: client and server both printed a result
# row for each SIZE (as fi_pingpong writes it: 1, 4k, 1m), every row
# with ITERS sent and ITERS acknowledged
fi_rows() {
	_n=$1 _it=$2
	shift 2
	for _side in cli srv; do
		_f=$XRDMA_TMP/$_n.$_side
		for _s in "$@"; do
			grep -Eq "^${_s}[[:space:]]+${_it}[[:space:]]+=${_it}[[:space:]]" "$_f" ||
				err "$_n ($_side): no row for $_s bytes x $_it"
		done
		# a row whose acknowledgements do not match what was sent
		grep -E '^[0-9.]+[kmg]?[[:space:]]+[0-9]+[[:space:]]+=?[0-9]+' "$_f" |
			awk -v it="$_it" '$2 != it || $3 != "=" it { bad = 1 } END { exit bad }' ||
			err "$_n ($_side): a row without $_it acknowledged transfers"
		grep -q 'Error at iteration' "$_f" &&
			err "$_n ($_side): data check failed: $(grep 'Error at' "$_f" | head -n 1)"
	done
	note "$_n: $(grep -cE '^[0-9.]+[kmg]?[[:space:]]+[0-9]+[[:space:]]+=' \
		"$XRDMA_TMP/$_n.cli") sizes, largest: $(grep -E \
		'^[0-9.]+[kmg]?[[:space:]]+[0-9]+[[:space:]]+=' "$XRDMA_TMP/$_n.cli" |
		tail -n 1)"
}

# grew WHAT BEFORE AFTER MIN: AFTER - BEFORE >= MIN
grew() {
	[ $(($3 - $2)) -ge "$4" ] ||
		err "$1 grew by $(($3 - $2)), want at least $4"
}

# ------------------------------------------------------- one device
fabric_up() {
	cm_modules_down
	ulp_fabric_up xnic
	cm_modules_up
}

# no_user_objects DEV: no object of a process is left on xrdma device DEV
# (ib_core's own, "kern ib_core" -- the MAD QPs -- stay while xrdma_ib
# has the device registered)
no_user_objects() {
	[ -r "$XRDMA_DEBUGFS/xrdma/$1/resources" ] || {
		err "no resources file of $1"
		return
	}
	awk '$3 == "pid" { print "left on '"$1"': " $0; bad = 1 } END { exit bad }' \
		"$XRDMA_DEBUGFS/xrdma/$1/resources" >>"$XRDMA_TMP/errors"
}

fabric_down() {
	no_user_objects xnic0
	cm_modules_down
	ulp_fabric_down
	fail_on_errors
}

sub_info() {
	fabric_up
	out=$XRDMA_TMP/out
	# the system's libibverbs has no driver for xnic
	fi_info -p verbs >"$out" 2>&1
	grep -q 'domain: xnic0' "$out" &&
		err "fi_info without xrdma-run lists xnic0: $(cat "$out")"

	xrdma-run fi_info -p verbs -t FI_EP_MSG -v >"$out" 2>&1 ||
		err "fi_info -p verbs -t FI_EP_MSG: rc=$?"
	for want in "name: xnic0" "type: FI_EP_MSG" \
		"src_addr: fi_sockaddr_in://$ULP_IP:0" "network_type: Ethernet" \
		"state: FI_LINK_UP"; do
		grep -q "$want" "$out" || err "fi_info -t FI_EP_MSG: no '$want'"
	done
	[ -s "$XRDMA_TMP/errors" ] && cat "$out"
	xrdma-run fi_info -p verbs -t FI_EP_DGRAM >"$out" 2>&1 ||
		err "fi_info -p verbs -t FI_EP_DGRAM: rc=$?"
	for want in "domain: xnic0-dgram" "type: FI_EP_DGRAM"; do
		grep -q "$want" "$out" || err "fi_info -t FI_EP_DGRAM: no '$want'"
	done
	FI_UNIVERSE_SIZE=$RXM_UNIVERSE xrdma-run fi_info -p 'verbs;ofi_rxm' \
		-t FI_EP_RDM >"$out" 2>&1 || err "fi_info -p 'verbs;ofi_rxm': rc=$?"
	for want in "provider: verbs;ofi_rxm" "domain: xnic0" "type: FI_EP_RDM"; do
		grep -q "$want" "$out" || err "fi_info -t FI_EP_RDM: no '$want'"
	done
	fabric_down
}

# pingpong NAME ITERS MIN_BYTES SIZES -- ARGS...: fi_pair over xnic0
# (ITERS round trips a size, data checked), the rows of SIZES, and
# xnic0's payload counters grew by MIN_BYTES
pingpong() {
	_pn=$1 _pit=$2 _pmin=$3 _psz=
	shift 3
	while [ "$1" != -- ]; do
		_psz="$_psz $1"
		shift
	done
	shift
	_t0=$(ulp_traffic)
	# shellcheck disable=SC2086 # the sizes are words
	fi_pair "$_pn" "" "" "$ULP_IP" -I "$_pit" -c "$@" &&
		fi_rows "$_pn" "$_pit" $_psz
	grew "xnic0's payload ($_pn)" "$_t0" "$(ulp_traffic)" "$_pmin"
}

sub_msg() {
	fabric_up
	# 3 round trips of 1 MiB alone are 6 MiB
	pingpong msg 3 6291456 1 64 4k 64k 1m -- -S all -p verbs -e msg
	fabric_down
}

sub_rdm() {
	fabric_up
	export FI_UNIVERSE_SIZE=$RXM_UNIVERSE
	pingpong rdm 3 6291456 1 64 4k 64k 1m -- -S all -p "verbs;ofi_rxm" \
		-e rdm
	pingpong rdm_tagged 2 4194304 1 4k 1m -- -S all -p "verbs;ofi_rxm" \
		-e rdm -m tagged
	# RDM over the verbs provider's datagrams (ofi_rxd): no universe
	# needed (rxd's CQ is not sized by it); one size, segmented by rxd
	unset FI_UNIVERSE_SIZE
	pingpong rdm_rxd 5 655360 64k -- -S 65536 -p "verbs;ofi_rxd" -e rdm
	fabric_down
}

sub_dgram() {
	fabric_up
	# UD: a datagram is at most the path MTU (4096)
	pingpong dgram 5 40960 1 64 1k 4k -- -S all -p verbs -e dgram
	fabric_down
}

# ---------------------------------------------------- two devices
# (lib/ulp.sh: ulp_cross_up, xnic0 at $XA in $NSA, xnic1 in $NSB)

# rping_pair NAME SIZE COUNT: rping -V server in A, client in B
rping_pair() {
	ulp_inns "$NSA" timeout 60 xrdma-run rping -s -a "$XA" -V -C "$3" -S "$2" \
		>"$XRDMA_TMP/$1.srv" 2>&1 &
	_sp=$!
	# the server's cm_id listens (rdma res, ib_core's restrack)
	wait_for 10 sh -c "$RDMA res show cm_id | grep -q 'state LISTEN.*$XA'" ||
		err "$1: rping server does not listen on $XA"
	ulp_inns "$NSB" timeout 60 xrdma-run rping -c -a "$XA" -V -C "$3" -S "$2" \
		>"$XRDMA_TMP/$1.cli" 2>&1
	_crc=$?
	wait $_sp
	_src=$?
	[ $_crc = 0 ] && [ $_src = 0 ] && return 0
	err "$1: rping -S $2 -C $3: client rc=$_crc server rc=$_src"
	echo "--- $1 client"
	tail -n 20 "$XRDMA_TMP/$1.cli"
	echo "--- $1 server"
	tail -n 20 "$XRDMA_TMP/$1.srv"
}

sub_cross() {
	ulp_cross_up

	b0=$(ulp_dev_bytes 0)
	b1=$(ulp_dev_bytes 1)
	rping_pair rping_64 64 20
	rping_pair rping_64k 65000 10
	grew "xnic0's payload (rping)" "$b0" "$(ulp_dev_bytes 0)" $((2 * 10 * 65000))
	grew "xnic1's payload (rping)" "$b1" "$(ulp_dev_bytes 1)" $((2 * 10 * 65000))

	b0=$(ulp_dev_bytes 0)
	b1=$(ulp_dev_bytes 1)
	fi_pair cross_msg "$NSA" "$NSB" "$XA" -I 3 -c -S all -p verbs -e msg &&
		fi_rows cross_msg 3 1 4k 1m
	grew "xnic0's payload (fi_pingpong)" "$b0" "$(ulp_dev_bytes 0)" 6291456
	grew "xnic1's payload (fi_pingpong)" "$b1" "$(ulp_dev_bytes 1)" 6291456

	# UD: address handles with a GRH to the other device's GID 0.  The
	# verbs provider's DGRAM domains come from the device list, not from
	# an address: every process sees both devices (ib_core's shared
	# mode, and xrdma's devices are in no namespace), and without -d
	# both ends take the first, xnic0 (loopback: xnic1 would count
	# nothing).  Each end names its device's domain.
	b0=$(ulp_dev_bytes 0)
	b1=$(ulp_dev_bytes 1)
	SRV_ARGS="-d xnic0-dgram" CLI_ARGS="-d xnic1-dgram" \
		fi_pair cross_dgram "$NSA" "$NSB" "$XA" -I 3 -c -S all -p verbs -e dgram &&
		fi_rows cross_dgram 3 1 1k 4k
	grew "xnic0's payload (dgram)" "$b0" "$(ulp_dev_bytes 0)" $((2 * 3 * 4096))
	grew "xnic1's payload (dgram)" "$b1" "$(ulp_dev_bytes 1)" $((2 * 3 * 4096))
	grep -E '^(tx|rx)_[a-z_]*bytes' "$XRDMA_DEBUGFS"/xnic_sim/[01]/counters |
		grep -v ' 0$'
	ulp_cross_down
	fail_on_errors
}

case ${XRDMA_SUBTEST:-} in
info) sub_info ;;
msg) sub_msg ;;
rdm) sub_rdm ;;
dgram) sub_dgram ;;
cross) sub_cross ;;
*) fail "no such subtest: '${XRDMA_SUBTEST:-}'" ;;
esac
