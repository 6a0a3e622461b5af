#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side test of roce_pcap_check.py (no guest, a second): it passes
# the rxe capture in data/ and fails copies spoiled one byte at a time.
#   - the capture: exit 0, every opcode of it counted, 0 bad
#   - one byte flipped in a RoCEv2 frame's BTH, payload or ICRC: exit 1,
#     "bad ICRC" for that frame
#   - an IPv4 header byte flipped: exit 1 (header checksum)
#   - the IPv6 hop limit changed (masked in the ICRC): exit 0
#   - a truncated file, a non-Ethernet link type: exit 2
#   - --min-roce above the count: exit 1
# Run by scripts/check.sh (stage roce-pcap-check).
# Last line: "N passed, N failed"; exit 1 on a failure.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
CHECK=$HERE/roce_pcap_check.py
PCAP=$HERE/data/rxe_roce.pcap
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok()  { echo "ok   - $*"; pass=$((pass + 1)); }
nok() { echo "FAIL - $*"; fail=$((fail + 1)); }

# expect RC PATTERN DESC -- ARGS...: the checker's exit status is RC and
# its output matches PATTERN (an extended regex; "-" for any)
expect() {
	local rc=$1 pat=$2 desc=$3 got
	shift 4
	python3 "$CHECK" "$@" >"$T/out" 2>&1
	got=$?
	if [ "$got" != "$rc" ]; then
		nok "$desc: exit $got, expected $rc"
		sed 's/^/	/' "$T/out" | tail -n 5
	elif [ "$pat" != - ] && ! grep -Eq "$pat" "$T/out"; then
		nok "$desc: no /$pat/ in the output"
		sed 's/^/	/' "$T/out" | tail -n 5
	else
		ok "$desc"
	fi
}

# spoil OUT WHICH FIELD: a copy of the capture with one byte changed in
# the first frame WHICH ("v4" or "v6" RoCEv2) at FIELD: "bth" (its
# opcode), "pay" (the last payload byte before the pad), "icrc" (its
# last byte), "ttl"/"hop" (IPv4 TTL, IPv6 hop limit), "ip4src"; prints
# the frame's number
spoil() {
	python3 - "$PCAP" "$1" "$2" "$3" <<'PY'
import struct, sys
src, out, which, field = sys.argv[1:]
d = bytearray(open(src, "rb").read())
off, n = 24, 0
while off < len(d):
    incl = struct.unpack_from("<I", d, off + 8)[0]
    f = off + 16
    off = f + incl
    n += 1
    et = struct.unpack_from(">H", d, f + 12)[0]
    v4 = et == 0x0800
    if (which == "v4") != v4 or et not in (0x0800, 0x86dd):
        continue
    ip = f + 14
    l4 = ip + (20 if v4 else 40)
    if d[ip + (9 if v4 else 6)] != 17 or \
       struct.unpack_from(">H", d, l4 + 2)[0] != 4791:
        continue
    end = ip + (struct.unpack_from(">H", d, ip + 2)[0] if v4 else
                40 + struct.unpack_from(">H", d, ip + 4)[0])
    at = {"bth": l4 + 8, "pay": end - 5, "icrc": end - 1,
          "ttl": ip + 8, "hop": ip + 7, "ip4src": ip + 12}[field]
    d[at] ^= 0x01
    open(out, "wb").write(d)
    print(n)
    break
else:
    sys.exit("no %s RoCEv2 frame" % which)
PY
}

[ -r "$PCAP" ] || { echo "no $PCAP"; exit 1; }
expect 0 "29 RoCEv2, 0 bad" "the rxe capture passes" -- "$PCAP"
for op in "RC Send Only" "RC Send First" "RC Send Middle" "RC Send Last" \
	"RC Acknowledge" "UD Send Only" "RC RDMA Write Only" \
	"RC RDMA Read Request" "RC RDMA Read Response Only" \
	"RC Fetch Add" "RC Compare Swap" "RC Atomic Acknowledge"; do
	grep -q "  $op\$" "$T/out" || nok "capture: no count for $op"
done
expect 0 "^ +3  UD Send Only$" "UD SEND ONLY counted" -- "$PCAP"

for w in v4 v6; do
	for f in bth pay icrc; do
		n=$(spoil "$T/$w.$f.pcap" $w $f) || { nok "spoil $w $f"; continue; }
		expect 1 "^frame $n: .*bad ICRC" "$w $f flipped: frame $n bad ICRC" \
			-- "$T/$w.$f.pcap"
	done
done
n=$(spoil "$T/v4.src.pcap" v4 ip4src) && \
	expect 1 "^frame $n: .*bad IPv4 header checksum" \
		"IPv4 source flipped: frame $n bad" -- "$T/v4.src.pcap"
n=$(spoil "$T/v4.ttl.pcap" v4 ttl) && \
	expect 1 "^frame $n: " "IPv4 TTL flipped, checksum not: bad" \
		-- "$T/v4.ttl.pcap"
spoil "$T/v6.hop.pcap" v6 hop >/dev/null && \
	expect 0 ", 0 bad" "IPv6 hop limit changed (masked): good" \
		-- "$T/v6.hop.pcap"

head -c 100 "$PCAP" >"$T/short.pcap"
expect 2 "truncated" "a truncated capture" -- "$T/short.pcap"
python3 -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[20] = 113; open(sys.argv[2], "wb").write(d)' \
	"$PCAP" "$T/sll.pcap"
expect 2 "not Ethernet" "a capture of link type 113" -- "$T/sll.pcap"
expect 1 "fewer than 30" "--min-roce 30 on 29" -- --min-roce 30 "$PCAP"
expect 0 ", 0 bad" "--min-roce 29 on 29" -- --min-roce 29 "$PCAP"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
