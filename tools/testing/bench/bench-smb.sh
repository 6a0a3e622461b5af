# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# The SMB Direct rows of make bench, sourced by the guest side
# (tools/testing/bench/bench-guest.sh, run by tools/testing/bench/bench.sh):
#
#     . /usr/bin/bench-smb.sh          (shipped by XRDMA_PROGRAMS)
#     bench_smb STACK RUN MIB
#
# With an RDMA device up whose netdev holds 198.18.0.1 (the caller's, as
# for the NVMe-oF and NFS rows: lib/ulp.sh's ulp_fabric_up rxe|xnic),
# loads cifs.ko and ksmbd.ko with SMB Direct (lib/smb.sh), mounts the share
# with "-o rdma" and cache=none, and measures 1 MiB sequential writes and
# reads of an MIB MiB file (GNU dd, its own clock), then takes it all down
# again (the transport stays).  Output, as bench-guest.sh's other rows:
#     BENCH <stack> smb_write_1m <run> <MB/s> MBps
#     BENCH <stack> smb_read_1m <run> <MB/s> MBps
# or BENCH_FAIL <stack> smb <run> <why>.  Returns 1 on a failure.
#
# The guest test needs, besides lib/ulp.sh's and bench-guest.sh's lines,
# the header lines of tools/testing/ulp/smb/ulp_smb.sh: its XRDMA_PREPARE,
# its second and third XRDMA_DEBIAN_MODULES and its XRDMA_PROGRAMS lines,
# and "# XRDMA_PROGRAMS: tools/testing/bench/bench-smb.sh".

# module_loaded, rmmod_timed (a guest test has them already)
if ! command -v module_loaded >/dev/null 2>&1; then
	# shellcheck source=/dev/null # in the guest
	. /xrdma/tests/lib/xrdma_test.sh
fi
# shellcheck source=/dev/null # in the guest
. /xrdma/tests/lib/smb.sh

_bsmb_out() {
	echo "$*"
	{ echo "$*" >&9; } 2>/dev/null
	return 0
}

# _bsmb_rate LOG: MB/s (10^6 bytes per second) of GNU dd's summary line
_bsmb_rate() {
	awk '/bytes .* copied, / { b = $1; s = $(NF - 3) }
		END { if (s > 0) printf "%.1f\n", b / s / 1e6 }' "$1"
}

bench_smb() {
	_bs=$1 _br=$2 _bm=${3:-64}
	_bt=${XRDMA_TMP:-/tmp}/bench-smb
	mkdir -p "$_bt"
	if ! smb_modules_up 2>"$_bt/err" || ! smb_server_up 2>>"$_bt/err" ||
		! smb_mount 198.18.0.1 2>>"$_bt/err" || ! smb_is_rdma >/dev/null; then
		_bsmb_out "BENCH_FAIL $_bs smb $_br setup: $(tail -n 1 "$_bt/err")"
		SMB_KEEP_DEPS=1 smb_down >/dev/null 2>&1
		return 1
	fi
	_bok=0
	if /usr/bin/dd if=/dev/zero of="$SMB_MNT/bench" bs=1M count="$_bm" \
		conv=fsync 2>"$_bt/w"; then
		_bv=$(_bsmb_rate "$_bt/w")
		[ -n "$_bv" ] && _bsmb_out "BENCH $_bs smb_write_1m $_br $_bv MBps" &&
			_bok=$((_bok + 1))
	fi
	if /usr/bin/dd if="$SMB_MNT/bench" of=/dev/null bs=1M 2>"$_bt/r"; then
		_bv=$(_bsmb_rate "$_bt/r")
		[ -n "$_bv" ] && _bsmb_out "BENCH $_bs smb_read_1m $_br $_bv MBps" &&
			_bok=$((_bok + 1))
	fi
	rm -f "$SMB_MNT/bench"
	# the other rows still need rdma_cm, and NFS dns_resolver
	SMB_KEEP_DEPS=1 smb_down 2>"$_bt/err" || _bok=0
	if [ $_bok != 2 ]; then
		_bsmb_out "BENCH_FAIL $_bs smb $_br $(tail -n 1 "$_bt/w" "$_bt/r" "$_bt/err" | tr '\n' ' ')"
		return 1
	fi
}
