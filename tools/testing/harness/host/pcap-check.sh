#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The conformance check of a two-guest run's capture (run-2vm.sh
# XRDMA_PCAP), Documentation/testing.rst "The capture and its check".
#
# Usage: pcap-check.sh PCAP ROCE_EXPECTED
#   Prints what it found (frame counts, the BTH opcode histogram, the
#   frames that failed), then one last line "STATUS REASON" with STATUS
#   PASS, FAIL or SKIP:
#   FAIL  tshark missing or cannot read PCAP; a UDP 4791 frame that
#         Debian's tshark does not decode as InfiniBand; a malformed frame
#         or an expert error (severity error) in any frame; no RoCE frame
#         at all while ROCE_EXPECTED is 1 (a RoCE test passed); the ICRC
#         checker tools/testing/hw/xnic/roce_pcap_check.py, when there,
#         exits non-zero
#   SKIP  no RoCE frame and none expected (e.g. only wire_ping ran)
#   Frames corrupted on purpose (netem corrupt, between the fences of
#   wire_pcap_fence in lib/wire.sh: ICMP echo requests of 1311 and 1312
#   data bytes) are left out of every check (PCAP.checked.pcap).
#   PASS  otherwise
# Debian 12's tshark (4.0) decodes RoCEv2 (UDP 4791) with its InfiniBand
# dissector and shows the ICRC (infiniband.invariant.crc) without
# verifying it: the ICRC is left to roce_pcap_check.py.
set -uo pipefail

D=$(dirname "$0")
ROOT=$(cd "$D/../../../.." && pwd)
PCAP=$1
EXPECT=${2:-0}

out() { echo "$*"; }
verdict() {
	echo "$1 $2"
	exit 0
}

command -v tshark >/dev/null || verdict FAIL "tshark missing (make deps)"
[ -s "$PCAP" ] || verdict FAIL "no capture $PCAP"

# The heuristic dissectors of InfiniBand payloads (RPC-over-RDMA, SMB
# Direct, iSER, NVMe-oF...) guess at the tests' data, and a 1-byte SEND
# "is" a malformed RPC-over-RDMA message: off.  Conformance here is that
# of the RoCEv2 packets, headers and lengths, not of their payload.
# (tshark 4.0's --disable-heuristic wants names -G does not show: the
# protocols themselves go; "ethertype" and EoIB stay)
NOHEUR=()
for h in $(tshark -G heuristic-decodes 2>/dev/null |
	awk '$1 ~ /^infiniband/ && $2 != "ethertype" && $2 !~ /eoib/ { print $2 }' | sort -u); do
	NOHEUR+=(--disable-protocol "$h")
done

# and the infiniband.payload heuristic that takes a payload starting
# with an ethertype and two zero bytes for an Ethernet frame without its
# addresses ("eth_over_ib", also not in -G): an NVMe-oF CQE whose first
# bytes are 08 00 00 00 (Controller Status "shutdown complete") "is" a
# bogus IPv4 packet
tshark -n --disable-heuristic eth_over_ib -r "$PCAP" -c 1 >/dev/null 2>&1 &&
	NOHEUR+=(--disable-heuristic eth_over_ib)

# ts FILTER [tshark args]: tshark over the capture, its root warning gone
ts() {
	local f=$1
	shift
	tshark -n "${NOHEUR[@]}" -r "$PCAP" -Y "$f" "$@" 2>"$PCAP.err"
}

# frames corrupted on purpose (wire_faults, lib/wire.sh): between an ICMP
# echo request of 1311 data bytes and the next of 1312, left out of a
# copy that the checks below read
# (by the IPv4 length, 20 + 8 + data: tshark takes the first 8 data
# bytes for a timestamp, or not, and data.len varies)
fences=$(tshark -n -r "$PCAP" -Y 'icmp.type == 8 && (ip.len == 1339 || ip.len == 1340)' \
	-T fields -e frame.number -e ip.len 2>/dev/null |
	awk '$2 == 1339 && !on { s = $1; on = 1 }
	     $2 == 1340 && on { printf "%s(frame.number >= %d && frame.number <= %d)", sep, s, $1; sep = " || "; on = 0 }
	     END { if (on) printf "%s(frame.number >= %d)", sep, s }')
if [ -n "$fences" ]; then
	out "left out, corrupted on purpose: $(tshark -n -r "$PCAP" -Y "$fences" 2>/dev/null | wc -l) frames ($fences)"
	tshark -n -r "$PCAP" -Y "!($fences)" -F pcap -w "${PCAP%.pcap}.checked.pcap" 2>/dev/null ||
		verdict FAIL "tshark cannot write the capture without the fenced frames"
	PCAP=${PCAP%.pcap}.checked.pcap
fi

# one pass: frame, UDP ports, BTH opcode, expert severities, malformed
F=$PCAP.fields
tshark -n "${NOHEUR[@]}" -r "$PCAP" -T fields -E separator=/t -E aggregator=, \
	-e frame.number -e udp.port -e infiniband.bth.opcode \
	-e _ws.expert.severity -e _ws.malformed >"$F" 2>"$PCAP.err"
trc=$?
if [ $trc != 0 ] || grep -v 'Running as user' "$PCAP.err" | grep -q .; then
	sed 's/^/  /' "$PCAP.err"
	verdict FAIL "tshark cannot read the capture (rc=$trc)"
fi
# (severity error is 0x800000, PI_ERROR)
read -r total roce ib notib errs < <(awk -F'\t' '
	{ n++ }
	$2 ~ /(^|,)4791(,|$)/ { r++; if ($3 != "") i++; else ni++ }
	{ e = ($5 != ""); k = split($4, s, ",")
	  for (j = 1; j <= k; j++) if (s[j] + 0 >= 8388608) e = 1
	  if (e) ne++ }
	END { print n + 0, r + 0, i + 0, ni + 0, ne + 0 }' "$F")
out "frames: $total, UDP 4791: $roce, decoded as InfiniBand: $ib ($(du -h "$PCAP" | cut -f1))"

bad=""
if [ "$notib" != 0 ]; then
	out "UDP 4791 frames not decoded as InfiniBand ($notib), the first:"
	ts 'udp.port == 4791 && !infiniband' | head -n 10 | sed 's/^/  /'
	bad="$bad, $notib RoCE frame(s) not InfiniBand"
fi
if [ "$errs" != 0 ]; then
	out "malformed frames or expert errors ($errs), the first:"
	ts '_ws.malformed || _ws.expert.severity >= error' | head -n 10 | sed 's/^/  /'
	ts '_ws.malformed || _ws.expert.severity >= error' -T fields \
		-e frame.number -e _ws.expert.message | head -n 10 | sed 's/^/  /'
	bad="$bad, $errs malformed/expert-error frame(s)"
fi

if [ "$ib" -gt 0 ]; then
	out "BTH opcodes (count opcode name):"
	awk -F'\t' '$3 != "" { print $3 }' "$F" | sort -n | uniq -c |
		awk 'BEGIN {
			split("SEND_FIRST SEND_MIDDLE SEND_LAST SEND_LAST_IMM SEND_ONLY " \
			      "SEND_ONLY_IMM WRITE_FIRST WRITE_MIDDLE WRITE_LAST " \
			      "WRITE_LAST_IMM WRITE_ONLY WRITE_ONLY_IMM READ_REQUEST " \
			      "READ_RESPONSE_FIRST READ_RESPONSE_MIDDLE READ_RESPONSE_LAST " \
			      "READ_RESPONSE_ONLY ACKNOWLEDGE ATOMIC_ACKNOWLEDGE " \
			      "COMPARE_SWAP FETCH_ADD RESYNC SEND_LAST_INVAL SEND_ONLY_INVAL", n, " ")
			for (i = 1; i in n; i++) rc[i - 1] = n[i]
		}
		{ op = $2 + 0; nm = "?"
		  if (op < 32 && (op in rc)) nm = "RC_" rc[op]
		  else if (op >= 32 && op < 64 && ((op - 32) in rc)) nm = "UC_" rc[op - 32]
		  else if (op == 100) nm = "UD_SEND_ONLY"
		  else if (op == 101) nm = "UD_SEND_ONLY_IMM"
		  else if (op == 129) nm = "CNP"
		  printf "  %8d %3d %s\n", $1, op, nm }'
fi

checker=$ROOT/tools/testing/hw/xnic/roce_pcap_check.py
if [ -f "$checker" ]; then
	out "ICRC and headers: ${checker#"$ROOT"/}"
	if ! python3 "$checker" "$PCAP" 2>&1 | sed 's/^/  /'; then
		bad="$bad, roce_pcap_check.py failed"
	fi
	# (pipefail: python's status)
else
	out "ICRC not checked (no ${checker#"$ROOT"/}; tshark 4.0 does not verify it)"
fi

if [ "$roce" = 0 ] && [ "$EXPECT" = 1 ]; then
	bad="$bad, no RoCE frame captured while RoCE tests passed"
fi
[ -z "$bad" ] || verdict FAIL "${bad#, }"
[ "$roce" -gt 0 ] || verdict SKIP "no RoCE frame in the capture ($total frames)"
verdict PASS "$roce RoCE frames, all InfiniBand, none malformed"
