# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 480
# XRDMA_DEBIAN_MODULES: crc32_generic veth rdma_rxe ib_uverbs
# XRDMA_DEBIAN_MODULES: ib_core null_blk nvmet nvmet-rdma nvme-rdma nfsd nfsv4 rpcrdma
# XRDMA_PROGRAMS: tools/testing/bench/bench-guest.sh tools/testing/bench/physlimit
# XRDMA_PROGRAMS: tools/testing/bench/xv_scale tools/lib/xverbs/libibverbs.so.1
# XRDMA_PROGRAMS: scripts/xrdma-run rdma ip ib_write_lat ib_read_lat ib_send_lat
# XRDMA_PROGRAMS: ib_atomic_lat ib_write_bw ib_read_bw ib_send_bw ibv_rc_pingpong
# XRDMA_PROGRAMS: tools/testing/bench/blkbench nvme rpc.nfsd rpc.mountd exportfs
# XRDMA_PROGRAMS: mount.nfs4
# XRDMA_PREPARE: scripts/smbdirect-modules.sh /xrdma/smbdirect
# XRDMA_DEBIAN_MODULES: rdma_cm rdma_ucm
# XRDMA_PROGRAMS: qperf
# XRDMA_DEBIAN_MODULES: nls_utf8 sha512_generic cmac ecb gcm ccm md4
# XRDMA_PROGRAMS: dd cmp ksmbd.mountd ksmbd.adduser ksmbd.control mount.cifs
# XRDMA_PROGRAMS: tools/testing/ulp/smb/ksmbd_compat.so tools/testing/bench/bench-smb.sh
# XRDMA_FILES: /etc/libibverbs.d/rxe.driver
# XRDMA_FILES: /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so
# XRDMA_FILES: /usr/sbin/nfsdcltrack:/sbin/nfsdcltrack
# XRDMA_FILES: /etc/netconfig /etc/services /etc/protocols
#
# The benchmark against Soft-RoCE (tools/testing/bench/bench-guest.sh): in
# make check its smoke mode (tiny iteration counts, one run) so that it
# does not rot; tools/testing/bench/bench-host.sh (make bench) runs it with
# xrdma.env.BENCH_MODE=full and reads the BENCH lines.  Here every metric
# must be measured, with a positive value, on each stack (unless
# xrdma.env.BENCH_SETS or BENCH_ROWS picks some: see bench-guest.sh): the ULP rows
# (NVMe-oF, NFS over RDMA) on xnic need xrdma_ib, loaded here.

command -v bench-guest.sh >/dev/null || fail "bench-guest.sh not shipped"
command -v xv_scale >/dev/null || fail "xv_scale not shipped (not built?)"
mount_debugfs
xnic_stack_up 1
if has_ko xrdma_ib; then
	if ! modprobe ib_core || ! insmod "$(xko xrdma_ib)"; then
		xnic_stack_down
		fail "cannot load xrdma_ib"
	fi
fi
mode=${BENCH_MODE:-smoke}
# to the console as it goes (a run killed by its time limit shows where)
{
	bench-guest.sh "$mode" "${BENCH_RUNS:-1}"
	echo $? >"$XRDMA_TMP/rc"
} 2>&1 | tee "$XRDMA_TMP/bench"
rc=$(cat "$XRDMA_TMP/rc")
bad=$(grep -c '^BENCH_FAIL' "$XRDMA_TMP/bench")
left=0
# ib_core's own objects on xnic0 (the GSI QPs) go with xrdma_ib
! module_loaded xrdma_ib || rmmod xrdma_ib || fail "rmmod xrdma_ib"
xnic_no_objects xnic0 || left=1
xnic_stack_down
[ "$rc" = 0 ] || fail "bench-guest.sh rc=$rc"
[ "$bad" = 0 ] || fail "$bad measurement(s) failed: $(grep -m1 '^BENCH_FAIL' "$XRDMA_TMP/bench")"
[ $left = 0 ] || fail "objects left on xnic0"
[ -z "$BENCH_SETS$BENCH_ROWS" ] || exit 0
want="write_lat_64 read_lat_64 send_lat_64 atomic_lat write_rate_64 write_bw_64k read_bw_64k send_bw_64k
write_lat_64_p99 read_lat_64_p99 send_lat_64_p99 rc_pingpong_ev_64
write_rate_64_1p write_rate_64_2p write_rate_64_4p
nvme_randread_4k nvme_randread_4k_qd1 nvme_read_1m nvme_write_1m nfs_read_1m nfs_write_1m
qperf_rc_lat_64"
for s in rxe xnic; do
	for m in $want; do
		awk -v s=$s -v m="$m" '$1 == "BENCH" && $2 == s && $3 == m && $5 > 0 { ok = 1 }
			END { exit !ok }' "$XRDMA_TMP/bench" || fail "no $s $m measured"
	done
done
for m in memcpy_64k_MBps memcpy_64m_MBps pingpong_oneway_us scale_1_msgrate_Mpps scale_100_msgrate_Mpps; do
	awk -v m=$m '$1 == "BENCH" && $3 == m && $5 > 0 { ok = 1 } END { exit !ok }' \
		"$XRDMA_TMP/bench" || fail "no $m measured"
done
