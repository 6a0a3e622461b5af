# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 300
# XRDMA_SUBTEST: info 60
# XRDMA_SUBTEST: uct 300
# XRDMA_SUBTEST: ucp 300
# XRDMA_SUBTEST: mpi 240
# XRDMA_SUBTEST: cross 240
# XRDMA_SUBTEST: loss 150
# XRDMA_SUBTEST: loss_fatal 90
# XRDMA_DEBIAN_MODULES: configfs ib_core rdma_cm iw_cm ib_cm rdma_ucm
# XRDMA_PROGRAMS: tools/lib/xverbs/libibverbs.so.1 scripts/xrdma-run
# XRDMA_PROGRAMS: scripts/xrdma-fault
# XRDMA_PROGRAMS: /usr/bin/ip /usr/bin/rdma ucx_info ucx_perftest
# XRDMA_PROGRAMS: mpirun tools/testing/ulp/comm/mpi_pingpong
# XRDMA_FILES: /usr/lib/x86_64-linux-gnu/ucx
# XRDMA_FILES: /usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3
# XRDMA_FILES: /usr/share/openmpi /etc/openmpi
# XRDMA_FILES: /usr/lib/x86_64-linux-gnu/pmix2/lib/pmix
# XRDMA_FILES: /usr/lib/x86_64-linux-gnu/pmix2/share/pmix
#
# Debian 12's unmodified UCX 1.13 (ucx-utils, libucx0 and its transport
# plugins) and Open MPI 4.1 over xnic, with xverbs' libibverbs.so.1
# first on the library path (scripts/xrdma-run).  xnic0 is registered
# with ib_core by xrdma_ib and has 198.18.0.1/24 on its netdev
# (lib/ulp.sh's ulp_fabric_up xnic): UCX reads ib_core's sysfs
# (/sys/class/infiniband/xnic0/: gid_attrs, device/numa_node, ...) and
# opens /dev/infiniband/<ibv_device.dev_name>.  Server and client run in
# this guest over the one device; every case must finish all its
# iterations, exit 0 on both sides, and move xnic's counters of the
# operation it tests (xnic_sim's debugfs counters) by at least its
# iterations or bytes: the traffic crossed xnic with the verb the case
# is about.
#   info  ucx_info -d lists xnic0:1 with rc_verbs and ud_verbs (rc's RDMA
#         and atomics among their capabilities) and librdmacm's
#         connection manager, and prints no error or warning
#   uct   ucx_perftest's UCT tests on rc_verbs (active messages short,
#         bcopy, zcopy; put short, bcopy, zcopy; get bcopy, zcopy;
#         atomic add, fetch-add, compare-swap) and ud_verbs (active
#         messages short, bcopy, zcopy)
#   ucp   ucx_perftest's UCP tests with UCX_TLS=rc_v (rc_verbs, ud_verbs
#         for wireup only) and UCX_TLS=ud_v: tag matching latency and
#         bandwidth with eager and rendezvous sizes (UCX_RNDV_THRESH),
#         put, get, atomics
#   mpi   Open MPI's mpirun, two ranks of tools/testing/ulp/comm/mpi_pingpong
#         (every byte checked) with pml ucx and UCX restricted to xnic's
#         verbs transports and self (no shared memory, no TCP)
#   cross two xnic devices cabled to each other (xnic_sim ndev=2), each
#         netdev in its own network namespace (lib/ulp.sh: ulp_cross_up):
#         ucx_perftest's UCP tag matching (eager and rendezvous) and put
#         over rc_v, and tag matching over ud_v, the server on xnic0 in
#         one namespace, the client on xnic1 in the other
#         (UCX_NET_DEVICES on each side); both devices' payload counters
#         grow by the bytes moved.  UCT tests cannot cross devices with
#         ucx_perftest: its server takes the device from the client's
#         parameters
#   loss  a drop rule on xnic0 (xrdma-fault add xnic0 drop --rate 2%
#         --seed 14, Documentation/faults.rst: on the device's loopback
#         cable a dropped RC request is retried by the requester after
#         its timeout, a UD datagram is lost), enabled afresh for each
#         run: the mpi case's mpirun over rc_v and over ud_v (UCX's UD
#         reliability layer resends), ucx_perftest's UCP tag matching
#         over rc_v (eager, and rendezvous: RDMA READs) and over ud_v.
#         UCX's RC timeout short (UCX_RC_TIMEOUT=2ms, what the model
#         waits at most anyway) and its retry count the most verbs allow
#         (7): every run completes and passes as in the cases above (the
#         pingpong checks every byte; ucx_perftest checks no payload, only
#         that all its iterations completed), the rule matched at least
#         100 messages in each run and dropped some of them (seed 14
#         fires on its 3rd match already), and xnic_sim's "retries" grew
#         in the rc_v runs: RC requests were lost and sent again
#   loss_fatal
#         everything dropped in the middle of an mpirun (a pingpong far
#         longer than its limit, the rule added once 2000 SENDs went):
#         over rc_v the requester's retries run out and UCX, which
#         Open MPI asks for no error handling, stops its rank with
#         "send completion with error: transport retry counter
#         exceeded"; over ud_v (UCX_UD_TIMEOUT=5s) UD's "unhandled
#         timeout error".  mpirun exits non-zero, within its timeout(1)
#         bound (30 s) by far, and leaves no rank behind; once the rule
#         is gone an mpirun passes again
#
# What xnic needs, and why (for Documentation/userspace.rst):
#   - xrdma-run (xverbs' libibverbs.so.1 first on LD_LIBRARY_PATH), and
#     rdma_ucm loaded for UCX's rdmacm connection manager (else
#     ucx_info -d says "< failed to open connection manager rdmacm >";
#     rc_verbs and ud_verbs do not need it).
#   - Nothing else for UCX.  No UCX_UD_ETH_DGID_CHECK=n, which Soft-RoCE
#     needs for UD over RoCE v2/IPv4: UCX 1.13's ud_verbs takes the
#     received packet's network header type from wc.sl (mlx5's
#     convention: 2 = IPv4) to find the destination GID it checks; rxe
#     reports 0, so UCX reads an IPv6 GRH where an IPv4 header is and
#     drops every message.  Our library reports 2 (IPv4) or 1 (IPv6).
#     UCX_TLS, UCX_NET_DEVICES, UCX_RNDV_THRESH and ucx_perftest's -x/-d
#     only choose what is tested here.
#   - Open MPI: --mca pml ucx, since Debian's
#     /etc/openmpi/openmpi-mca-params.conf says "pml = ^ucx" (the command
#     line wins over that file).  pml_ucx_devices (default "mlx*",
#     matched against the driver of /sys/class/infiniband/<dev>/device,
#     "xnic" here) only decides whether pml ucx outbids ob1 when both may
#     run (priority 51 instead of 19); with pml ucx named it needs no
#     change.  Only for this guest: --allow-run-as-root (it runs as
#     root), --mca plm isolated (no ssh/rsh installed: the default
#     launcher refuses to start even for local ranks) and a valid host
#     name (ORTE rejects "(none)").

# shellcheck source=/dev/null # lib/ulp.sh, in the guest
. /xrdma/tests/lib/ulp.sh

case $XRDMA_SUBTEST in
info | uct | ucp | mpi | cross | loss | loss_fatal) ;;
*) fail "unknown subtest '$XRDMA_SUBTEST'" ;;
esac
command -v xrdma-run >/dev/null || fail "xrdma-run not in the guest"
[ -f /usr/bin/libibverbs.so.1 ] || fail "xverbs' libibverbs.so.1 not shipped (not built?)"

: >"$XRDMA_TMP/errors"
err() { echo "$*" >>"$XRDMA_TMP/errors"; }
out=$XRDMA_TMP/out

DEV=xnic0:1
# the runner loaded rdma_ucm (and with it ib_uverbs) for this test;
# ulp_fabric_up wants ib_uverbs out first.  UCX opens librdmacm (its
# "rdmacm" connection manager) in every process: with rdma_ucm, as on a
# machine with rdma-core's udev rules, that goes through our library too.
if [ "$XRDMA_SUBTEST" = cross ]; then
	ulp_cross_up
else
	ulp_rmmod rdma_ucm
	ulp_fabric_up xnic
	modprobe rdma_ucm || {
		ulp_fabric_down
		fail "modprobe rdma_ucm"
	}
fi

# the node UCX opens: /dev/infiniband/<dev_name> of our library
node=/dev/infiniband/xrdma_uverbs0
[ -c "$node" ] || {
	if [ "$XRDMA_SUBTEST" = cross ]; then
		ulp_cross_down
	else
		ulp_rmmod rdma_ucm ib_uverbs
		ulp_fabric_down
	fi
	fail "$node is not a character device: $(ls -l /dev/infiniband 2>&1)"
}

finish() {
	# a rule holds xnic_sim (configfs)
	if [ -d /sys/kernel/config/xnic_sim ]; then
		xrdma-fault clear >/dev/null 2>&1 || err "xrdma-fault clear failed"
	fi
	if [ "$XRDMA_SUBTEST" = cross ]; then
		ulp_cross_down
	else
		ulp_rmmod rdma_ucm ib_uverbs rdma_cm iw_cm ib_cm
		ulp_fabric_down || true
	fi
	if [ -s "$XRDMA_TMP/errors" ]; then
		cat "$XRDMA_TMP/errors"
		fail "$(wc -l <"$XRDMA_TMP/errors") error(s)"
	fi
	exit 0
}

# the xnic_sim devices whose counters ctr adds up
CTR_DEVS=0
# ctr NAME: the sum of one of xnic_sim's counters over $CTR_DEVS
ctr() {
	_cs=0
	for _cd in $CTR_DEVS; do
		_cs=$((_cs + $(awk -v n="$1" '$1 == n { v = $2 } END { print v + 0 }' \
			"$XRDMA_DEBUGFS/xnic_sim/$_cd/counters")))
	done
	echo $_cs
}

# ctrs NAME...: the sum of those counters
ctrs() {
	_s=0
	for _c in "$@"; do
		_s=$((_s + $(ctr "$_c")))
	done
	echo $_s
}

port=13400
# perf NAME "COUNTERS" MIN ITERS [VAR=VALUE...] -- PERFTEST_ARGS...:
# ucx_perftest as server and as client (to 127.0.0.1), with the
# environment VAR=VALUE...; both exit 0, the client's "Final:" line
# shows ITERS iterations, and the sum of the xnic counters COUNTERS
# grew by at least MIN.  A failure is recorded in $XRDMA_TMP/errors
# with both outputs.  Set for the two-device case: SNS and CNS, the
# server's and client's network namespaces; SENV and CENV, more of the
# environment of one side; SADDR, the server's address.
perf() {
	_name=$1 _ctrs=$2 _min=$3 _iters=$4
	shift 4
	_env=
	while [ "$1" != -- ]; do
		_env="$_env $1"
		shift
	done
	shift
	port=$((port + 1))
	# shellcheck disable=SC2086 # $_ctrs: counter names
	_before=$(ctrs $_ctrs)
	# shellcheck disable=SC2086 # word splitting of the environment is wanted
	ulp_inns "${SNS:-}" timeout 60 env $_env ${SENV:-} xrdma-run \
		ucx_perftest -p $port "$@" >"$XRDMA_TMP/srv" 2>&1 &
	_pid=$!
	_i=0
	while ! ulp_inns "${SNS:-}" netstat -ltn 2>/dev/null | grep -q ":$port "; do
		_i=$((_i + 1))
		if [ $_i -gt 300 ] || ! kill -0 $_pid 2>/dev/null; then
			break
		fi
		sleep 0.05
	done
	# shellcheck disable=SC2086
	ulp_inns "${CNS:-}" timeout 60 env $_env ${CENV:-} xrdma-run \
		ucx_perftest -p $port "$@" "${SADDR:-127.0.0.1}" >"$XRDMA_TMP/cli" 2>&1
	_crc=$?
	wait $_pid
	_src=$?
	# shellcheck disable=SC2086
	_got=$(($(ctrs $_ctrs) - _before))
	_fin=$(awk '$1 == "Final:" { print $2 }' "$XRDMA_TMP/cli")
	_why=
	if [ $_crc != 0 ] || [ $_src != 0 ]; then
		_why="client rc=$_crc server rc=$_src"
	elif [ "$_fin" != "$_iters" ]; then
		_why="client's Final line shows '$_fin' iterations, want $_iters"
	elif [ "$_got" -lt "$_min" ]; then
		_why="xnic counters $_ctrs grew by $_got, want >= $_min"
	elif grep -Eq 'UCX +(ERROR|WARN)' "$XRDMA_TMP/cli" "$XRDMA_TMP/srv"; then
		_why="UCX error or warning"
	fi
	if [ -n "$_why" ]; then
		err "$_name: $_why"
		echo "--- $_name ($_env ucx_perftest $*): $_why"
		echo "--- client"
		cat "$XRDMA_TMP/cli"
		echo "--- server"
		cat "$XRDMA_TMP/srv"
		return 1
	fi
	note "$_name: $_ctrs +$_got; $(grep '^Final:' "$XRDMA_TMP/cli" | tr -s ' ')"
}

# mpi_on: a host name ORTE accepts.  It refuses the guest's "(none)"
# (not a valid host name): localhost, which /etc/hosts resolves, until
# mpi_off
mpi_on() {
	command -v mpi_pingpong >/dev/null ||
		err "mpi_pingpong not shipped (tools/testing/ulp/comm not built?)"
	mpi_host=$(hostname)
	hostname localhost || err "cannot set the host name"
}

mpi_off() { hostname "$mpi_host"; }

# mpi_run SECS TLS ARGS...: Open MPI's mpirun of two ranks over
# UCX_TLS=TLS,self on xnic0, with the environment of $MPIENV (VAR=VALUE
# words) exported to the ranks, stopped by timeout(1) after SECS
MPIENV=
mpi_run() {
	_ms=$1 _mt=$2
	shift 2
	_mx=
	for _me in $MPIENV; do
		_mx="$_mx -x $_me"
	done
	# shellcheck disable=SC2086 # $_mx: options
	timeout -k 10 "$_ms" xrdma-run mpirun --allow-run-as-root -np 2 \
		--mca plm isolated --mca pml ucx -x LD_LIBRARY_PATH \
		-x UCX_TLS="$_mt,self" -x UCX_NET_DEVICES=$DEV $_mx "$@"
}

# mpi_pp NAME TLS ITERS: mpi_pingpong ITERS over TLS (mpi_run) passes, and
# xnic's data counters grew by at least the bytes the ranks exchanged
mpi_pp() {
	_mb=$(ulp_traffic)
	mpi_run 120 "$2" mpi_pingpong "$3" >"$out" 2>&1
	_mr=$?
	_mg=$(($(ulp_traffic) - _mb))
	_mB=$(sed -n 's/^mpi_pingpong: PASS bytes=\([0-9]*\)$/\1/p' "$out")
	if [ $_mr != 0 ] || [ -z "$_mB" ]; then
		err "$1: mpirun rc=$_mr, no PASS line"
		cat "$out"
		return 1
	elif [ "$_mg" -lt "$_mB" ]; then
		err "$1: xnic moved $_mg bytes, the ranks exchanged $_mB"
		cat "$out"
		return 1
	fi
	note "$1: $_mB bytes checked, xnic data counters +$_mg"
}

# uptime_ds: the time since boot in tenths of seconds
uptime_ds() { awk '{ printf "%d\n", $1 * 10 }' /proc/uptime; }

# the rule's directory in configfs, once rule_add made it
RULE=
# rule_add NAME ARGS...: "xrdma-fault add xnic0 drop --name NAME ARGS...";
# RULE is its directory
rule_add() {
	_rn=$1
	shift
	_rl=$(readlink /sys/class/xrdma_device/xnic0/device) ||
		{ err "xnic0 has no device"; return 1; }
	RULE=/sys/kernel/config/xnic_sim/${_rl##*/xnic.}/rules/$_rn
	if ! xrdma-fault add xnic0 drop --name "$_rn" "$@" \
		>"$XRDMA_TMP/add" 2>&1 || [ ! -d "$RULE" ]; then
		err "xrdma-fault add xnic0 drop --name $_rn $*: $(cat "$XRDMA_TMP/add")"
		return 1
	fi
}

# rule_on: enable the rule afresh: its counters from 0, its draws from
# its seed again
rule_on() { echo 0 >"$RULE/enable" && echo 1 >"$RULE/enable"; }

# rule_ok NAME: since rule_on, the rule matched 100 messages or more and
# dropped at least one (xnic_sim's "retries" grew by RETRIES meanwhile)
rule_ok() {
	_rm=$(cat "$RULE/matched") _ri=$(cat "$RULE/injected")
	note "$1: the drop rule matched $_rm, dropped $_ri, retries +$RETRIES"
	if [ "$_rm" -lt 100 ]; then
		err "$1: the drop rule matched $_rm messages, want >= 100"
	elif [ "$_ri" -lt 1 ]; then
		err "$1: the drop rule dropped none of its $_rm messages"
	fi
}

N=100
W=10
# the counters of RDMA operations xnic executed as requester
SEND="tx_send"
SENDB="tx_send_bytes"
WRITE="tx_rdma_write"
WRITEB="tx_rdma_write_bytes"
READB="tx_rdma_read_bytes"

case $XRDMA_SUBTEST in
info)
	UCX_LOG_LEVEL=warn xrdma-run ucx_info -d >"$out" 2>&1 ||
		err "ucx_info -d rc=$?"
	# "Transport: T" then "Device: D" lines: one "T D" line per pair
	awk '/^#[ \t]+Transport:/ { t = $3 }
	     /^#[ \t]+Device:/ { print t, $3 }' "$out" >"$XRDMA_TMP/tls"
	note "transports: $(tr '\n' ' ' <"$XRDMA_TMP/tls")"
	for tl in rc_verbs ud_verbs; do
		grep -qx "$tl $DEV" "$XRDMA_TMP/tls" ||
			err "ucx_info -d lists no $tl on $DEV"
	done
	grep -q '^# *Memory domain: xnic0$' "$out" ||
		err "ucx_info -d has no memory domain xnic0"
	# rc_verbs' capabilities: RDMA read/write and the verbs atomics
	awk -v dev="$DEV" '/^#[ \t]+Transport:/ { t = $3 }
	     /^#[ \t]+Device:/ { d = $3 }
	     t == "rc_verbs" && d == dev && /^#[ \t]+[a-z_]+:/' "$out" \
		>"$XRDMA_TMP/rc"
	for cap in put_short put_bcopy put_zcopy get_bcopy get_zcopy \
		am_short am_bcopy am_zcopy atomic_add atomic_fadd atomic_cswap; do
		grep -q "^#[[:space:]]*$cap:" "$XRDMA_TMP/rc" ||
			err "rc_verbs on $DEV: no $cap"
	done
	# librdmacm through our library: the crash of issue 14
	grep -q '^# *Connection manager: rdmacm$' "$out" ||
		err "ucx_info -d has no connection manager rdmacm"
	# every line but the transports' "error handling:" capability
	if grep -v '^#[[:space:]]*error handling:' "$out" |
		grep -Eiq 'error|warn|fail'; then
		err "ucx_info -d printed errors: $(grep -v '^#[[:space:]]*error handling:' \
			"$out" | grep -Ei 'error|warn|fail')"
	fi
	[ -s "$XRDMA_TMP/errors" ] && cat "$out"
	;;
uct)
	R="-d $DEV -x rc_verbs -n $N -w $W"
	# shellcheck disable=SC2086 # $R: options
	{
		perf rc_am_short "$SEND" $N $N -- -t am_lat -D short $R
		perf rc_am_bcopy "$SENDB" $((N * 2048)) $N -- \
			-t am_bw -D bcopy -s 2048 $R
		perf rc_am_zcopy "$SENDB" $((N * 4096)) $N -- \
			-t am_bw -D zcopy -s 4096 $R
		perf rc_put_short "$WRITE" $N $N -- -t put_lat -D short $R
		perf rc_put_bcopy "$WRITEB" $((N * 2048)) $N -- \
			-t put_bw -D bcopy -s 2048 $R
		perf rc_put_zcopy "$WRITEB" $((N * 65536)) $N -- \
			-t put_bw -D zcopy -s 65536 $R
		perf rc_get_bcopy "$READB" $((N * 2048)) $N -- \
			-t get -D bcopy -s 2048 $R
		perf rc_get_zcopy "$READB" $((N * 65536)) $N -- \
			-t get -D zcopy -s 65536 $R
		perf rc_atomic_add "tx_fetch_add" $N $N -- -t add_lat $R
		perf rc_atomic_fadd "tx_fetch_add" $N $N -- -t fadd $R
		perf rc_atomic_cswap "tx_cmp_swap" $N $N -- -t cswap $R
		R="-d $DEV -x ud_verbs -n $N -w $W"
		perf ud_am_short "$SEND" $N $N -- -t am_lat -D short $R
		perf ud_am_bcopy "$SENDB" $((N * 1024)) $N -- \
			-t am_bw -D bcopy -s 1024 $R
		perf ud_am_zcopy "$SENDB" $((N * 1024)) $N -- \
			-t am_bw -D zcopy -s 1024 $R
	}
	;;
ucp)
	for tls in rc_v ud_v; do
		E="UCX_TLS=$tls UCX_NET_DEVICES=$DEV"
		R="-n $N -w $W"
		# shellcheck disable=SC2086 # $E: the environment, $R: options
		{
			perf ${tls}_tag_lat "$SEND" $N $N $E -- -t tag_lat -s 8 $R
			perf ${tls}_tag_eager "$SENDB" $((N * 4096)) $N \
				$E UCX_RNDV_THRESH=inf -- -t tag_bw -s 4096 $R
			if [ $tls = rc_v ]; then
				# rendezvous on rc: the receiver reads the data
				perf ${tls}_tag_rndv "$READB" $((N * 131072)) $N \
					$E UCX_RNDV_THRESH=8192 -- -t tag_bw -s 131072 $R
				perf ${tls}_put "$WRITEB" $((N * 65536)) $N $E -- \
					-t ucp_put_bw -s 65536 $R
				perf ${tls}_get "$READB" $((N * 65536)) $N $E -- \
					-t ucp_get -s 65536 $R
			else
				# ud has no RDMA: rendezvous, put and get go
				# in active messages
				perf ${tls}_tag_rndv "$SENDB" $((N * 131072)) $N \
					$E UCX_RNDV_THRESH=8192 -- -t tag_bw -s 131072 $R
				perf ${tls}_put "$SENDB" $((N * 4096)) $N $E -- \
					-t ucp_put_bw -s 4096 $R
				perf ${tls}_get "$SENDB" $((N * 4096)) $N $E -- \
					-t ucp_get -s 4096 $R
			fi
			# UCP's atomics on rc_verbs (which lacks 32-bit and
			# bitwise atomics) and on ud are active messages
			for op in ucp_add ucp_fadd ucp_cswap; do
				perf ${tls}_$op "$SEND tx_fetch_add tx_cmp_swap" $N $N \
					$E -- -t $op -s 8 $R
			done
		}
	done
	;;
mpi)
	mpi_on
	for tls in rc_v ud_v; do
		mpi_pp "mpi $tls" $tls 10
	done
	mpi_off
	;;
cross)
	# the server on xnic0 (in ULP_NSA, at ULP_XA), the client on xnic1
	# (in ULP_NSB); requester counters of both devices, and each
	# device's payload must grow: loopback on one device moves the
	# other's nothing
	SNS=$ULP_NSA CNS=$ULP_NSB SADDR=$ULP_XA CTR_DEVS="0 1"
	SENV="UCX_NET_DEVICES=xnic0:1" CENV="UCX_NET_DEVICES=xnic1:1"
	R="-n $N -w $W"
	# cross NAME "COUNTERS" BYTES ENV... -- ARGS...: perf, and both
	# devices moved at least BYTES of payload
	cross() {
		_xn=$1 _xc=$2 _xb=$3
		shift 3
		_x0=$(ulp_dev_bytes 0)
		_x1=$(ulp_dev_bytes 1)
		perf "$_xn" "$_xc" "$_xb" $N "$@" || return
		moved "$_xn" 0 "$_x0" "$_xb"
		moved "$_xn" 1 "$_x1" "$_xb"
	}
	# moved NAME I BEFORE BYTES: xnic_sim device I's payload grew by BYTES
	moved() {
		_xg=$(($(ulp_dev_bytes "$2") - $3))
		[ $_xg -ge "$4" ] ||
			err "$1: xnic$2 moved $_xg payload bytes, want >= $4"
	}
	# shellcheck disable=SC2086 # $R: options
	{
		cross rc_tag_eager "$SENDB" $((N * 4096)) UCX_TLS=rc_v \
			UCX_RNDV_THRESH=inf -- -t tag_bw -s 4096 $R
		cross rc_tag_rndv "$READB" $((N * 131072)) UCX_TLS=rc_v \
			UCX_RNDV_THRESH=8192 -- -t tag_bw -s 131072 $R
		cross rc_put "$WRITEB" $((N * 65536)) UCX_TLS=rc_v -- \
			-t ucp_put_bw -s 65536 $R
		cross ud_tag_eager "$SENDB" $((N * 4096)) UCX_TLS=ud_v \
			UCX_RNDV_THRESH=inf -- -t tag_bw -s 4096 $R
	}
	;;
loss)
	# 2 % of what xnic0 carries is lost.  Seed 14 fires on the rule's
	# 3rd, 16th, 17th and 33rd matches (and about 2 % of those after):
	# "dropped at least one of 100 matches" cannot fail by chance
	rule_add loss --rate 2% --seed 14 || finish
	# RC: a short timeout (the model waits at most 2 ms a try whatever
	# the QP asks, Documentation/xnic/model.rst; a real RNIC would wait
	# UCX's default 1 s), and the most retries verbs allow.  UD needs
	# nothing: UCX's reliability layer resends on its own timer.  Each
	# transport is given only its own variables: UCX warns of those no
	# transport it opened read
	RCENV="UCX_RC_TIMEOUT=2ms UCX_RC_RETRY_COUNT=7"
	# xnic_sim's "retries" in the rc_v runs: some of their drops were
	# RC requests (only UCX's wireup goes over UD there)
	rc_retries=0
	mpi_on
	for tls in rc_v ud_v; do
		MPIENV=
		[ $tls = ud_v ] || MPIENV=$RCENV
		rule_on
		r0=$(ctr retries)
		mpi_pp "loss mpi $tls" $tls 10
		RETRIES=$(($(ctr retries) - r0))
		rule_ok "loss mpi $tls"
		[ $tls = ud_v ] || rc_retries=$((rc_retries + RETRIES))
	done
	MPIENV=
	mpi_off
	# loss_perf NAME "COUNTERS" MIN ENV... -- ARGS...: perf, the rule
	# enabled afresh
	loss_perf() {
		_ln=$1
		shift
		rule_on
		_l0=$(ctr retries)
		perf "$_ln" "$@"
		RETRIES=$(($(ctr retries) - _l0))
		rule_ok "$_ln"
	}
	R="-n $N -w $W"
	E="UCX_NET_DEVICES=$DEV"
	# shellcheck disable=SC2086 # $E, $RCENV: the environment, $R: options
	{
		loss_perf loss_rc_tag_eager "$SENDB" $((N * 4096)) $N $E \
			UCX_TLS=rc_v $RCENV UCX_RNDV_THRESH=inf -- \
			-t tag_bw -s 4096 $R
		rc_retries=$((rc_retries + RETRIES))
		loss_perf loss_rc_tag_rndv "$READB" $((N * 131072)) $N $E \
			UCX_TLS=rc_v $RCENV UCX_RNDV_THRESH=8192 -- \
			-t tag_bw -s 131072 $R
		rc_retries=$((rc_retries + RETRIES))
		loss_perf loss_ud_tag_eager "$SENDB" $((N * 4096)) $N $E \
			UCX_TLS=ud_v UCX_RNDV_THRESH=inf -- -t tag_bw -s 4096 $R
	}
	[ $rc_retries -gt 0 ] ||
		err "loss: no RC request was retried in the rc_v runs (xnic_sim retries +0)"
	;;
loss_fatal)
	# mpi_pingpong 1000000: hours of pingpong, ended only by the fault
	# (or by timeout(1) after LIM seconds: a hang)
	LIM=$((30 * ${XRDMA_TIMEOUT_SCALE:-1}))
	# going PID MIN: the job PID is gone, or xnic0 sent MIN SENDs
	# shellcheck disable=SC2317 # called through wait_for
	going() { ! kill -0 "$1" 2>/dev/null || [ "$(ctr tx_send)" -ge "$2" ]; }
	# ranks: the pids of mpi_pingpong processes
	# shellcheck disable=SC2317 # called through wait_for
	ranks() {
		grep -lx mpi_pingpong /proc/[0-9]*/comm 2>/dev/null |
			sed 's|^/proc/||; s|/comm$||'
	}
	# shellcheck disable=SC2317
	no_ranks() { [ -z "$(ranks)" ]; }
	mpi_on
	for tls in rc_v ud_v; do
		if [ $tls = rc_v ]; then
			MPIENV="UCX_RC_TIMEOUT=2ms UCX_RC_RETRY_COUNT=7"
			want="send completion with error: transport retry counter exceeded"
		else
			MPIENV="UCX_UD_TIMEOUT=5s"
			want="unhandled timeout error"
		fi
		s0=$(ctr tx_send)
		t0=$(uptime_ds)
		mpi_run $LIM $tls mpi_pingpong 1000000 >"$out" 2>&1 &
		pid=$!
		# the ranks are in their pingpong
		wait_for 30 going $pid $((s0 + 2000))
		if ! kill -0 $pid 2>/dev/null; then
			wait $pid
			err "loss_fatal $tls: mpirun ended (rc=$?) before the fault"
			cat "$out"
			continue
		fi
		rule_add "fatal_$tls" || {
			kill $pid
			wait $pid
			break
		}
		t1=$(uptime_ds)
		wait $pid
		rc=$?
		t2=$(uptime_ds)
		line=$(grep -F "$want" "$out" | head -n 1)
		inj=$(cat "$RULE/injected")
		why=
		if [ $((t2 - t0)) -ge $((LIM * 10 - 10)) ]; then
			why="mpirun hung: timeout(1) ended it after ${LIM} s (rc=$rc)"
		elif [ $rc = 0 ]; then
			why="mpirun rc=0 with every message dropped"
		elif [ -z "$line" ]; then
			why="mpirun rc=$rc without UCX's '$want'"
		elif [ "$inj" -lt 1 ]; then
			why="the rule dropped nothing"
		fi
		if [ -n "$why" ]; then
			err "loss_fatal $tls: $why"
			cat "$out"
		else
			note "loss_fatal $tls: mpirun rc=$rc $(((t2 - t1) / 10)).$(((t2 - t1) % 10)) s after the rule (it dropped $inj): $line; $(grep 'mpirun noticed' "$out" | head -n 1)"
		fi
		if ! wait_for 10 no_ranks; then
			err "loss_fatal $tls: ranks left after mpirun: $(ranks | tr '\n' ' ')"
			# shellcheck disable=SC2046 # pids
			kill -9 $(ranks) 2>/dev/null
		fi
		xrdma-fault del xnic0 "fatal_$tls" >/dev/null ||
			err "xrdma-fault del xnic0 fatal_$tls failed"
	done
	MPIENV=
	# the device is whole again
	mpi_pp "loss_fatal clean rc_v" rc_v 2
	mpi_off
	;;
esac
finish
