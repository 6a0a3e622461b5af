# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 240
# XRDMA_SUBTEST: rxe 240
# XRDMA_SUBTEST: xnic 240
# XRDMA_SUBTEST: flap_xnic 120
# XRDMA_PREPARE: scripts/smbdirect-modules.sh /xrdma/smbdirect
# XRDMA_DEBIAN_MODULES: crc32_generic veth rdma_rxe ib_core configfs
# XRDMA_DEBIAN_MODULES: rdma_cm
# XRDMA_DEBIAN_MODULES: nls_utf8 sha512_generic cmac ecb gcm ccm md4
# XRDMA_PROGRAMS: ip rdma dd cmp scripts/xrdma-fault
# XRDMA_PROGRAMS: ksmbd.mountd ksmbd.adduser ksmbd.control mount.cifs
# XRDMA_PROGRAMS: tools/testing/ulp/smb/ksmbd_compat.so
#
# SMB Direct through the kernel's RDMA stack: ksmbd serves a tmpfs share
# over RDMA, the SMB client mounts it with "-o rdma" (mount.cifs), a random
# pattern written through the mount is on the share byte for byte and
# reads back the same (cache=none: every read and write crosses the
# transport); /proc/fs/cifs/DebugData shows the SMB Direct connection and
# its counters moving, the transport's own counters moved by at least the
# data (lib/ulp.sh's ulp_traffic), rdma res shows cifs's and ksmbd's
# cm_ids; then umount, ksmbd stopped, everything unloaded.
#
# Debian compiles SMB Direct out of cifs.ko and ksmbd.ko (6.1 and 6.12):
# the host's scripts/smbdirect-modules.sh builds them with it from the
# guest kernel's linux-source-X.Y (the XRDMA_PREPARE line above), and
# they are loaded by path in place of Debian's (lib/smb.sh), with the
# Debian modules their modinfo names (they differ by kernel).
#
#   rxe    over Soft-RoCE (rxe0 on a veth)
#   xnic   over xnic through xrdma_ib (fails while xrdma_ib.ko is not built)
#   flap_xnic  xnic, ksmbd's debug log off, the mount hard (I/O waits for
#          the reconnect) with echo_interval=2 (an idle connection is
#          probed every 2 s), and between the write and its checks
#          xnic0's port flaps under I/O (lib/ulp.sh's ulp_io_*, ulp_flap):
#          a writer writing a new 256 KiB file every round and a reader
#          reading the first file back and comparing it, both running;
#          "xrdma-fault link xnic0 down" (ib_core's port state DOWN),
#          3 s, "link xnic0 up" (ACTIVE); within 60 s both loops go on
#          by themselves, then stop within 30 s with no I/O error and no
#          read that differed (a dd that failed with EAGAIN runs again,
#          counted: 6.1's cifs fails so a request it was sending as the
#          connection broke, hard mount or not); cifs reconnected
#          (/proc/fs/cifs/Stats: session reconnects grew; the kernel log
#          since the flap is shown), over SMB Direct again (DebugData);
#          every file the writer wrote reads back as written through the
#          mount and on the share, the first file too, and a file
#          written after the flap too.  Debian 6.12.118's cifs deadlocked
#          here (send_done() dropped a failed send without its
#          send_pending count, so smbd_send() waited for ever holding the
#          server mutex that cifsd's reconnect needs):
#          scripts/smbdirect-modules.sh mends that in the cifs.ko it
#          builds

# shellcheck source=/dev/null # lib/ulp.sh, in the guest
. /xrdma/tests/lib/ulp.sh
# shellcheck source=/dev/null # lib/smb.sh, in the guest
. /xrdma/tests/lib/smb.sh

MIB=8

TR=$XRDMA_SUBTEST
FLAP=0
case $TR in
rxe | xnic) ;;
flap_xnic) TR=xnic FLAP=1 ;;
*) fail "unknown subtest '$XRDMA_SUBTEST'" ;;
esac
# the link's time down
FLAP_S=3
for p in ksmbd.mountd ksmbd.adduser ksmbd.control mount.cifs; do
	command -v $p >/dev/null || fail "$p not shipped (ksmbd-tools, cifs-utils: make deps)"
done
[ $FLAP = 0 ] || command -v xrdma-fault >/dev/null ||
	fail "xrdma-fault not in the guest"

teardown() {
	if [ $FLAP = 1 ]; then
		# whatever a failure left: up is always safe to ask
		xrdma-fault link "$ULP_IBDEV" up
		ulp_io_kill
	fi
	smb_down 2>>"$XRDMA_TMP/errors" || echo "smb_down failed" >>"$XRDMA_TMP/errors"
	ulp_fabric_down
	# rdma_rxe pulls in ib_uverbs
	ulp_rmmod ib_uverbs
	_rc=$(cat /sys/module/ib_core/refcnt 2>/dev/null || echo 0)
	[ "$_rc" = 0 ] ||
		echo "ib_core still in use (refcnt $_rc, holders: $(ls /sys/module/ib_core/holders | tr '\n' ' '))" \
			>>"$XRDMA_TMP/errors"
}

# on failure: take everything down, keep the first reason
die_down() {
	# the reason first: a teardown behind a hung mount may never end
	note "failing: $*"
	teardown
	[ -s "$XRDMA_TMP/errors" ] && sed 's/^/# teardown: /' "$XRDMA_TMP/errors"
	fail "$*"
}

# smb_reconnects: cifs's session reconnects
smb_reconnects() {
	awk '/ session .* share reconnects$/ { print $1 }' /proc/fs/cifs/Stats
}

# flap: xnic0's port down and up under I/O (the header says what is
# checked); $pat is in $SMB_MNT/f
flap() {
	n0=$(smb_reconnects)
	[ -n "$n0" ] || die_down "/proc/fs/cifs/Stats has no reconnect count"
	# cifs (6.1) fails a request it was sending as the connection broke
	# with EAGAIN, hard mount or not: the loops try again
	# shellcheck disable=SC2034 # lib/ulp.sh reads it
	ULP_IO_EAGAIN=1
	ulp_io_start "$pat" "$SMB_MNT/f" "$SMB_MNT" || die_down "$ULP_WHY"
	ulp_flap $FLAP_S || die_down "$ULP_WHY"
	n1=$(smb_reconnects)
	note "cifs session reconnects $n0 -> $n1; EAGAIN retries: writer $(ulp_io_again w), reader $(ulp_io_again r); kernel log since the flap:"
	ulp_klog_since flap | grep -Ei 'cifs|smb|rdma|xnic' | tail -n 20 | sed 's/^/# /'
	[ "$n1" -gt "$n0" ] ||
		die_down "cifs did not reconnect: its session reconnects stayed $n0"
	smb_is_rdma >"$XRDMA_TMP/smbd" || {
		sed 's/^/# /' "$XRDMA_TMP/smbd"
		die_down "after the reconnect DebugData shows no SMB Direct connection"
	}
	note "$(ulp_io_count w) writes, $(ulp_io_count r) reads; checking them"
	ulp_io_check "$SMB_MNT" || die_down "through the mount: $ULP_WHY"
	ulp_io_check "$SMB_SHARE" || die_down "on the share: $ULP_WHY"
	/usr/bin/cmp "$pat" "$SMB_SHARE/f" ||
		die_down "after the flap the share's f differs from what was written before it"
	/usr/bin/cmp "$pat" "$SMB_MNT/f" ||
		die_down "after the flap $SMB_MNT/f reads back different data"
	# written after the flap
	/usr/bin/dd if=/dev/urandom of="$pat.2" bs=1M count=$MIB 2>/dev/null ||
		die_down "no pattern"
	/usr/bin/dd if="$pat.2" of="$SMB_MNT/post" bs=1M 2>"$XRDMA_TMP/dd" || {
		cat "$XRDMA_TMP/dd"
		die_down "write to $SMB_MNT/post after the flap failed"
	}
	/usr/bin/cmp "$pat.2" "$SMB_SHARE/post" ||
		die_down "the share's file differs from what was written after the flap"
	/usr/bin/cmp "$pat.2" "$SMB_MNT/post" ||
		die_down "$SMB_MNT/post, written after the flap, reads back different data"
	rm -f "$pat.2"
}

ulp_fabric_up "$TR"
smb_modules_up || die_down "cannot load cifs.ko/ksmbd.ko with SMB Direct"
smb_server_up || die_down "ksmbd did not start"
MOPT=
if [ $FLAP = 1 ]; then
	# every message of the I/O below would be a line on the console
	! grep -q '\[' /sys/class/ksmbd-control/debug ||
		echo all >/sys/class/ksmbd-control/debug
	MOPT=hard,echo_interval=2
fi
smb_mount "$ULP_IP" "$MOPT" || die_down "SMB Direct mount of //$ULP_IP/share failed"
note "mounted //$ULP_IP/share over $ULP_IBDEV"

smb_is_rdma >"$XRDMA_TMP/smbd" ||
	{ sed 's/^/# /' "$XRDMA_TMP/smbd"; die_down "DebugData shows no SMB Direct connection"; }
c0=$(smb_counter count_enqueue_reassembly_queue) ||
	die_down "DebugData has no count_enqueue_reassembly_queue"
t0=$(ulp_traffic)

# write through the mount, check on the share, read back through the mount
pat=$XRDMA_TMP/pat
/usr/bin/dd if=/dev/urandom of="$pat" bs=1M count=$MIB 2>/dev/null ||
	die_down "no pattern"
/usr/bin/dd if="$pat" of="$SMB_MNT/f" bs=1M 2>"$XRDMA_TMP/dd" || {
	cat "$XRDMA_TMP/dd"
	die_down "write of $MIB MiB to the SMB Direct mount failed"
}
sync
/usr/bin/cmp "$pat" "$SMB_SHARE/f" ||
	die_down "the share's file differs from what was written through the mount"
/usr/bin/dd if="$SMB_MNT/f" of="$XRDMA_TMP/back" bs=1M 2>"$XRDMA_TMP/dd" || {
	cat "$XRDMA_TMP/dd"
	die_down "read of $MIB MiB from the SMB Direct mount failed"
}
/usr/bin/cmp "$pat" "$XRDMA_TMP/back" ||
	die_down "data read back through the mount differs from the pattern"
[ $FLAP = 0 ] || flap
rm -f "$pat" "$XRDMA_TMP/back"

# the proof that it went over RDMA: SMB Direct's counters and the device's
smb_is_rdma >"$XRDMA_TMP/smbd" ||
	die_down "the SMB Direct connection is gone after the I/O"
sed 's/^/# /' "$XRDMA_TMP/smbd"
c1=$(smb_counter count_enqueue_reassembly_queue) ||
	die_down "DebugData has no count_enqueue_reassembly_queue"
t1=$(ulp_traffic)
note "SMB Direct receives reassembled: $((c1 - c0)); $ULP_IBDEV traffic: $((t1 - t0)) $ULP_TRAFFIC_UNIT"
[ $((c1 - c0)) -ge 2 ] ||
	die_down "SMB Direct received $((c1 - c0)) messages for a $MIB MiB write and read, want >= 2"
want=$(ulp_traffic_min $((2 * MIB * 1048576)))
[ $((t1 - t0)) -ge "$want" ] ||
	die_down "$ULP_IBDEV counters moved $((t1 - t0)) $ULP_TRAFFIC_UNIT, want >= $want: the data did not cross it"
/usr/bin/rdma res show cm_id link "$ULP_IBDEV/1" >"$XRDMA_TMP/cmids" 2>&1
sed 's/^/# /' "$XRDMA_TMP/cmids"
grep -q 'comm \[cifs\]' "$XRDMA_TMP/cmids" ||
	die_down "rdma res shows no cifs cm_id on $ULP_IBDEV"
grep -q 'comm \[ksmbd\]' "$XRDMA_TMP/cmids" ||
	die_down "rdma res shows no ksmbd cm_id on $ULP_IBDEV"

umount "$SMB_MNT" || die_down "umount $SMB_MNT"
teardown
if [ -s "$XRDMA_TMP/errors" ]; then
	sed 's/^/# /' "$XRDMA_TMP/errors"
	fail "teardown: $(head -n 1 "$XRDMA_TMP/errors")"
fi
