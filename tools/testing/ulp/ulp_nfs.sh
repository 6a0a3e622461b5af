# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 240
# XRDMA_SUBTEST: rxe 240
# XRDMA_SUBTEST: xnic 240
# XRDMA_SUBTEST: flap_xnic 120
# XRDMA_DEBIAN_MODULES: crc32_generic veth rdma_rxe ib_core configfs
# XRDMA_DEBIAN_MODULES: nfsd nfsv4 rpcrdma
# XRDMA_PROGRAMS: ip rdma dd cmp rpc.nfsd rpc.mountd exportfs mount.nfs4
# XRDMA_PROGRAMS: scripts/xrdma-fault
# XRDMA_FILES: /usr/sbin/nfsdcltrack:/sbin/nfsdcltrack
# XRDMA_FILES: /etc/netconfig /etc/services /etc/protocols
#
# NFS over RDMA through the kernel's RDMA stack (lib/ulp.sh gives the
# transport), with Debian's nfsd, nfsv4 and rpcrdma and the programs of
# nfs-kernel-server / nfs-common: NFSv4 only (rpc.mountd -N 2 -N 3, no
# rpcbind), rpc.nfsd listening for RDMA on port 20049, a tmpfs exported
# as the NFSv4 root, mounted with mount.nfs4 -o proto=rdma,port=20049.
# /sbin/nfsdcltrack is shipped: without it nfsd's client tracking makes
# the first create wait out the grace period (~100 s).
#
# A random pattern written with O_DIRECT through the mount is on the
# server's disk; one written on the server reads back with O_DIRECT
# through the mount; the mount says proto=rdma; the transport's counters
# moved by the data at least; rdma res shows rpcrdma's connection; then
# unmount, stop, unload.
#
#   rxe, xnic   over Soft-RoCE / xnic (xrdma_ib)
#   flap_xnic   xnic, the mount hard with timeo=100 (an RPC unanswered
#               for 10 s makes xprtrdma reconnect), and between the write
#               and the other checks xnic0's port flaps under I/O
#               (lib/ulp.sh's ulp_io_*, ulp_flap): a writer writing a new
#               256 KiB file with O_DIRECT every round and a reader
#               reading the first file back with O_DIRECT and comparing
#               it, both running; "xrdma-fault link xnic0 down" (ib_core's
#               port state DOWN), 3 s, "link xnic0 up" (ACTIVE); within
#               60 s both loops go on by themselves (xprtrdma reconnected:
#               the mount's connect count in /proc/self/mountstats grew),
#               then stop within 30 s with no I/O error and no read that
#               differed; every file the writer wrote reads back as
#               written through the mount and on the server's disk, the
#               first file too, and a file written after the flap too

# shellcheck source=/dev/null # lib/ulp.sh, in the guest
. /xrdma/tests/lib/ulp.sh

TR=$XRDMA_SUBTEST
FLAP=0
case $TR in
rxe | xnic) ;;
flap_xnic) TR=xnic FLAP=1 ;;
*) fail "unknown subtest '$TR'" ;;
esac
# the link's time down
FLAP_S=3
EXP=/srv/nfs
MNT=/mnt/nfs
MIB=8
ULP_MODS="nfsv4 nfs rpcrdma nfsd lockd grace nfs_acl auth_rpcgss fscache
netfs dns_resolver sunrpc rdma_cm iw_cm ib_cm"
MOUNTD=

for p in rpc.nfsd rpc.mountd exportfs mount.nfs4; do
	command -v $p >/dev/null || fail "$p not shipped (nfs-kernel-server, nfs-common)"
done
[ -x /sbin/nfsdcltrack ] || fail "/sbin/nfsdcltrack not shipped"
[ $FLAP = 0 ] || command -v xrdma-fault >/dev/null ||
	fail "xrdma-fault not in the guest"

server_up() {
	mkdir -p "$EXP" "$MNT" /var/lib/nfs/nfsdcltrack /var/lib/nfs/v4recovery
	assert mount -t tmpfs -o size=64m tmpfs "$EXP"
	grep -q ' /proc/fs/nfsd nfsd ' /proc/mounts ||
		assert mount -t nfsd nfsd /proc/fs/nfsd
	: >/var/lib/nfs/etab
	: >/var/lib/nfs/rmtab
	echo "$EXP *(rw,sync,no_root_squash,no_subtree_check,insecure,fsid=0)" \
		>/etc/exports
	exportfs -ra || fail "exportfs -ra"
	rpc.mountd -F -N 2 -N 3 >"$XRDMA_TMP/mountd" 2>&1 &
	MOUNTD=$!
	rpc.nfsd -N 3 --rdma=20049 4 >"$XRDMA_TMP/nfsd" 2>&1 || {
		cat "$XRDMA_TMP/nfsd"
		fail "rpc.nfsd -N 3 --rdma=20049 failed"
	}
	note "nfsd versions: $(cat /proc/fs/nfsd/versions); ports: $(tr '\n' ' ' </proc/fs/nfsd/portlist)"
	grep -q '^rdma 20049$' /proc/fs/nfsd/portlist ||
		fail "nfsd does not listen for RDMA on 20049 ($ULP_IBDEV)"
}

server_down() {
	if [ "$(cat /proc/fs/nfsd/threads 2>/dev/null || echo 0)" != 0 ]; then
		rpc.nfsd 0 >/dev/null 2>&1 ||
			echo "rpc.nfsd 0 failed" >>"$XRDMA_TMP/errors"
	fi
	exportfs -ua
	if [ -n "$MOUNTD" ]; then
		kill "$MOUNTD"
		wait "$MOUNTD"
		MOUNTD=
	fi
	grep -q ' /proc/fs/nfsd nfsd ' /proc/mounts && umount /proc/fs/nfsd
	grep -q " $EXP tmpfs " /proc/mounts && umount "$EXP"
}

# put FILE DEST EXTRA: GNU dd FILE to DEST in 1 MiB blocks with EXTRA
put() {
	/usr/bin/dd if="$1" of="$2" bs=1M "$3" 2>"$XRDMA_TMP/dd" || {
		cat "$XRDMA_TMP/dd"
		return 1
	}
}

# every step copes with what is not there: the end of the test and, on
# a failure, the exit trap
cleanup() {
	if [ $FLAP = 1 ]; then
		# whatever a failure left: up is always safe to ask
		xrdma-fault link "$ULP_IBDEV" up
		ulp_io_kill
		# a mount that never came back: its RPCs aborted, not waited for
		grep -q " $MNT nfs4 " /proc/mounts && umount -f "$MNT"
	fi
	grep -q " $MNT nfs4 " /proc/mounts && umount "$MNT"
	server_down
	# shellcheck disable=SC2086 # a list
	ulp_rmmod $ULP_MODS
	ulp_fabric_down
	# shellcheck disable=SC2086
	left=$(ulp_loaded $ULP_MODS | tr '\n' ' ')
	[ -z "$left" ] || echo "modules still loaded: $left" >>"$XRDMA_TMP/errors"
}
trap 'cleanup >/dev/null 2>&1' EXIT

# nfs_connects: xprtrdma's connect count of the mount (mountstats)
nfs_connects() {
	awk -v m="$MNT" '$1 == "device" { on = ($5 == m) }
		on && $1 == "xprt:" && $2 == "rdma" { print $5; exit }' \
		/proc/self/mountstats
}

# flap: xnic0's port down and up under I/O (the header says what is
# checked); $XRDMA_TMP/pat is in $MNT/c2s
flap() {
	c0=$(nfs_connects)
	[ -n "$c0" ] || fail "/proc/self/mountstats has no xprtrdma line for $MNT"
	ulp_io_start "$XRDMA_TMP/pat" "$MNT/c2s" "$MNT" oflag=direct iflag=direct ||
		fail "$ULP_WHY"
	ulp_flap $FLAP_S || fail "$ULP_WHY"
	c1=$(nfs_connects)
	note "xprtrdma connect count $c0 -> $c1; kernel log since the flap:"
	ulp_klog_since flap | grep -Ei 'rpcrdma|xprt|nfs|rdma|xnic' | tail -n 20 | sed 's/^/# /'
	[ "$c1" -gt "$c0" ] ||
		fail "xprtrdma did not reconnect: the mount's connect count stayed $c0"
	note "$(ulp_io_count w) writes, $(ulp_io_count r) reads; checking them"
	ulp_io_check "$MNT" iflag=direct || fail "through the mount: $ULP_WHY"
	ulp_io_check "$EXP" || fail "on the server: $ULP_WHY"
	/usr/bin/cmp "$XRDMA_TMP/pat" "$EXP/c2s" ||
		fail "after the flap the server's c2s differs from what was written before it"
	put "$MNT/c2s" "$XRDMA_TMP/back" iflag=direct ||
		fail "direct read of $MNT/c2s after the flap failed"
	/usr/bin/cmp "$XRDMA_TMP/pat" "$XRDMA_TMP/back" ||
		fail "after the flap $MNT/c2s reads back different data"
	# written after the flap
	/usr/bin/dd if=/dev/urandom of="$XRDMA_TMP/pat2" bs=1M count=$MIB 2>/dev/null ||
		fail "no pattern"
	put "$XRDMA_TMP/pat2" "$MNT/post" oflag=direct ||
		fail "direct write to $MNT/post after the flap failed"
	/usr/bin/cmp "$XRDMA_TMP/pat2" "$EXP/post" ||
		fail "the server's file differs from what the client wrote after the flap"
	put "$MNT/post" "$XRDMA_TMP/back" iflag=direct ||
		fail "direct read of $MNT/post failed"
	/usr/bin/cmp "$XRDMA_TMP/pat2" "$XRDMA_TMP/back" ||
		fail "$MNT/post, written after the flap, reads back different data"
	rm -f "$XRDMA_TMP/pat2"
}

ulp_fabric_up "$TR"
server_up

MOPT=proto=rdma,port=20049,vers=4.2
[ $FLAP = 0 ] || MOPT=$MOPT,hard,timeo=100
# the first mount also waits for the server's grace period to end (with
# nfsdcltrack, as soon as it knows no clients)
mount.nfs4 "$ULP_IP:/" "$MNT" -o "$MOPT" >"$XRDMA_TMP/mount" 2>&1 || {
	cat "$XRDMA_TMP/mount"
	fail "mount.nfs4 $ULP_IP:/ -o $MOPT failed"
}
opts=$(awk -v m="$MNT" '$2 == m { print $3, $4 }' /proc/mounts)
note "mounted: $opts"
case $opts in
nfs4\ *proto=rdma*) ;;
*) fail "$MNT is not an NFS mount over RDMA: '$opts'" ;;
esac
case $opts in
*vers=4.2*) ;;
*) fail "$MNT is not NFSv4.2: '$opts'" ;;
esac

t0=$(ulp_traffic)
/usr/bin/dd if=/dev/urandom of="$XRDMA_TMP/pat" bs=1M count=$MIB 2>/dev/null ||
	fail "no pattern"
# client -> server
put "$XRDMA_TMP/pat" "$MNT/c2s" oflag=direct || fail "direct write to $MNT/c2s failed"
/usr/bin/cmp "$XRDMA_TMP/pat" "$EXP/c2s" ||
	fail "the server's file differs from what the client wrote"
put "$MNT/c2s" "$XRDMA_TMP/back" iflag=direct || fail "direct read of $MNT/c2s failed"
/usr/bin/cmp "$XRDMA_TMP/pat" "$XRDMA_TMP/back" ||
	fail "$MNT/c2s reads back different data"
[ $FLAP = 0 ] || flap
# server -> client
/usr/bin/dd if=/dev/urandom of="$EXP/s2c" bs=1M count=$MIB 2>/dev/null ||
	fail "cannot write on the server"
put "$MNT/s2c" "$XRDMA_TMP/back" iflag=direct || fail "direct read of $MNT/s2c failed"
/usr/bin/cmp "$EXP/s2c" "$XRDMA_TMP/back" ||
	fail "the client reads other data than the server's file holds"
t1=$(ulp_traffic)
want=$(ulp_traffic_min $((3 * MIB * 1048576)))
note "$ULP_IBDEV traffic: $((t1 - t0)) $ULP_TRAFFIC_UNIT (at least $want)"
[ $((t1 - t0)) -ge "$want" ] ||
	fail "$ULP_IBDEV counters moved $((t1 - t0)) $ULP_TRAFFIC_UNIT, want >= $want: the data did not cross it"

# nfsd listens on the wildcard address (no device); the connection, a
# cm_id on each side, is on the device under test
/usr/bin/rdma res show cm_id >"$XRDMA_TMP/cmids" 2>&1
sed 's/^/# /' "$XRDMA_TMP/cmids"
grep -q 'state LISTEN .*comm \[rpcrdma\].*:20049' "$XRDMA_TMP/cmids" ||
	fail "rdma res shows no rpcrdma listener on port 20049"
n=$(grep "^link $ULP_IBDEV/1 " "$XRDMA_TMP/cmids" | grep -c 'state CONNECT .*comm \[rpcrdma\]')
[ "$n" -ge 2 ] || fail "rdma res shows $n connected rpcrdma cm_ids on $ULP_IBDEV, want >= 2"
rm -f "$XRDMA_TMP/pat" "$XRDMA_TMP/back"

umount "$MNT" || fail "umount $MNT"
trap - EXIT
cleanup
fail_on_errors
