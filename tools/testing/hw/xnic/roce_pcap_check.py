#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the RoCEv2 frames of a pcap: headers and ICRC.

Usage: roce_pcap_check.py [-q] [--min-roce N] FILE.pcap

Reads a classic pcap (link type Ethernet, either byte order, micro- or
nanosecond timestamps).  Every frame carrying IPv4 or IPv6 UDP to port
4791 (one 802.1Q tag skipped) is a RoCEv2 packet and is checked on its
own, independently of the C code in drivers/hw/xnic/sim/xnic_sim_roce.c:

  IPv4: version, header length >= 20, total length inside the frame
        (Ethernet may pad after it), header checksum, no fragment;
  IPv6: payload length inside the frame;
  UDP:  length equal to what IP declares, room for BTH and ICRC;
  BTH:  TVer 0, a known opcode, its extension headers and the pad inside
        the packet, the payload a multiple of 4 with the pad;
  ICRC: IBTA Annex A17.3.3 -- CRC-32 over 8 bytes of ones (the masked
        LRH), the IP header with TOS/TTL/checksum (IPv4) or traffic
        class/flow label/hop limit (IPv6) as ones, the UDP header with
        its checksum as ones, the BTH with byte 4 (FECN, BECN, resv6)
        as ones, the rest up to the ICRC; stored least significant byte
        first (what Linux's rxe computes, rxe_icrc.c).

Prints one line per bad frame ("frame N: reason"), then the count of
each opcode (Wireshark's names) and a summary line.  Exit status: 0 if
every RoCE frame is good (and at least --min-roce were seen), 1 if not,
2 if the file cannot be read as an Ethernet pcap.
"""
import struct
import sys
import zlib

ROCE_PORT = 4791

# extension header lengths
DETH, RETH, ATMETH, AETH, ATMACK, IMM, IETH, FETH, XRCETH = \
    8, 16, 28, 4, 8, 4, 4, 4, 4

# operation (bits 4..0) -> (name, extension bytes, carries a payload)
_OPS = {
    0x00: ("Send First", 0, True),
    0x01: ("Send Middle", 0, True),
    0x02: ("Send Last", 0, True),
    0x03: ("Send Last Immediate", IMM, True),
    0x04: ("Send Only", 0, True),
    0x05: ("Send Only Immediate", IMM, True),
    0x06: ("RDMA Write First", RETH, True),
    0x07: ("RDMA Write Middle", 0, True),
    0x08: ("RDMA Write Last", 0, True),
    0x09: ("RDMA Write Last Immediate", IMM, True),
    0x0a: ("RDMA Write Only", RETH, True),
    0x0b: ("RDMA Write Only Immediate", RETH + IMM, True),
    0x0c: ("RDMA Read Request", RETH, False),
    0x0d: ("RDMA Read Response First", AETH, True),
    0x0e: ("RDMA Read Response Middle", 0, True),
    0x0f: ("RDMA Read Response Last", AETH, True),
    0x10: ("RDMA Read Response Only", AETH, True),
    0x11: ("Acknowledge", AETH, False),
    0x12: ("Atomic Acknowledge", AETH + ATMACK, False),
    0x13: ("Compare Swap", ATMETH, False),
    0x14: ("Fetch Add", ATMETH, False),
    0x16: ("Send Last Invalidate", IETH, True),
    0x17: ("Send Only Invalidate", IETH, True),
    0x1c: ("Flush", FETH + RETH, False),
    0x1d: ("Atomic Write", RETH, True),
}


def _opcodes():
    table = {}
    for op, (name, ext, pay) in _OPS.items():
        table[0x00 | op] = ("RC " + name, ext, pay)
        if op <= 0x0b:
            table[0x20 | op] = ("UC " + name, ext, pay)
        if op <= 0x17:
            table[0xa0 | op] = ("XRC " + name, XRCETH + ext, pay)
    table[0x64] = ("UD Send Only", DETH, True)
    table[0x65] = ("UD Send Only Immediate", DETH + IMM, True)
    return table


OPCODES = _opcodes()


def icrc(ip, end, ipv4):
    """The ICRC bytes of the packet whose IP header starts at ip[0] and
    whose covered bytes end (before the ICRC) at ip[end]."""
    b = bytearray(ip[:end])
    if ipv4:
        ihl = (b[0] & 0xf) * 4
        b[1] = 0xff                     # TOS
        b[8] = 0xff                     # TTL
        b[10:12] = b"\xff\xff"          # header checksum
    else:
        ihl = 40
        b[0] |= 0x0f                    # traffic class,
        b[1:4] = b"\xff\xff\xff"        # flow label
        b[7] = 0xff                     # hop limit
    b[ihl + 6:ihl + 8] = b"\xff\xff"    # UDP checksum
    b[ihl + 8 + 4] = 0xff               # BTH resv8a
    crc = zlib.crc32(b"\xff" * 8 + bytes(b)) & 0xffffffff
    return struct.pack("<I", crc)


def ip4_csum_ok(h):
    s = 0
    for i in range(0, len(h), 2):
        s += (h[i] << 8) | h[i + 1]
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s == 0xffff


def check_frame(f):
    """None if not a RoCEv2 frame, else (opcode name or None, error or
    None)."""
    if len(f) < 14:
        return None
    off = 14
    etype = struct.unpack_from(">H", f, 12)[0]
    if etype == 0x8100:
        if len(f) < 18:
            return None
        etype = struct.unpack_from(">H", f, 16)[0]
        off = 18
    ip = f[off:]
    if etype == 0x0800:
        ipv4 = True
        if len(ip) < 20 or ip[9] != 17:
            return None
        ihl = (ip[0] & 0xf) * 4
        tot = struct.unpack_from(">H", ip, 2)[0]
        if ip[0] >> 4 != 4 or ihl < 20 or len(ip) < ihl + 8:
            return None
        l4 = ihl
    elif etype == 0x86dd:
        ipv4 = False
        if len(ip) < 48 or ip[6] != 17:
            return None
        tot = 40 + struct.unpack_from(">H", ip, 4)[0]
        l4 = 40
    else:
        return None
    if struct.unpack_from(">H", ip, l4 + 2)[0] != ROCE_PORT:
        return None
    # a RoCEv2 frame from here on: anything wrong is an error
    if ipv4:
        if tot < l4 or tot > len(ip):
            return (None, "IPv4 total length %d, %d bytes there" %
                    (tot, len(ip)))
        if not ip4_csum_ok(ip[:ihl]):
            return (None, "bad IPv4 header checksum")
        if struct.unpack_from(">H", ip, 6)[0] & 0x3fff:
            return (None, "IPv4 fragment")
    elif ip[0] >> 4 != 6 or tot > len(ip):
        return (None, "IPv6 payload length %d, %d bytes there" %
                (tot - 40, len(ip) - 40))
    ulen = struct.unpack_from(">H", ip, l4 + 4)[0]
    if ulen != tot - l4:
        return (None, "UDP length %d, IP says %d" % (ulen, tot - l4))
    if ulen < 8 + 12 + 4:
        return (None, "UDP length %d: no room for BTH and ICRC" % ulen)
    bth = l4 + 8
    op = ip[bth]
    known = OPCODES.get(op)
    name = known[0] if known else "opcode 0x%02x" % op
    if icrc(ip, tot - 4, ipv4) != bytes(ip[tot - 4:tot]):
        return (name, "bad ICRC %s, computed %s" %
                (bytes(ip[tot - 4:tot]).hex(), icrc(ip, tot - 4, ipv4).hex()))
    if ip[bth + 1] & 0xf:
        return (name, "BTH TVer %d" % (ip[bth + 1] & 0xf))
    if not known:
        return (name, "unknown opcode")
    pad = (ip[bth + 1] >> 4) & 3
    rest = ulen - 8 - 12 - 4
    ext, payload = known[1], known[2]
    if rest < ext + pad:
        return (name, "%d bytes after the BTH, %d of headers and pad" %
                (rest, ext + pad))
    paylen = rest - ext - pad
    if (paylen + pad) % 4:
        return (name, "payload %d + pad %d not a multiple of 4" %
                (paylen, pad))
    if paylen and not payload:
        return (name, "%d bytes of payload" % paylen)
    return (name, None)


def read_pcap(path):
    with open(path, "rb") as fh:
        data = fh.read()
    if len(data) < 24:
        raise ValueError("too short for a pcap header")
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        end = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        end = ">"
    else:
        raise ValueError("not a pcap file (magic %s)" % magic.hex())
    linktype = struct.unpack_from(end + "I", data, 20)[0]
    if linktype != 1:
        raise ValueError("link type %d, not Ethernet" % linktype)
    off = 24
    while off < len(data):
        if off + 16 > len(data):
            raise ValueError("truncated record header at %d" % off)
        incl, orig = struct.unpack_from(end + "II", data, off + 8)
        off += 16
        if off + incl > len(data):
            raise ValueError("truncated record at %d" % off)
        yield data[off:off + incl], orig
        off += incl


def main(argv):
    quiet = False
    min_roce = 0
    args = list(argv[1:])
    while args and args[0].startswith("-"):
        a = args.pop(0)
        if a == "-q":
            quiet = True
        elif a == "--min-roce" and args:
            min_roce = int(args.pop(0))
        else:
            print(__doc__.strip().splitlines()[2], file=sys.stderr)
            return 2
    if len(args) != 1:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    counts = {}
    frames = roce = bad = 0
    try:
        for n, (f, orig) in enumerate(read_pcap(args[0]), 1):
            frames += 1
            if len(f) < orig:
                r = check_frame(f)
                if r is not None:
                    roce += 1
                    bad += 1
                    print("frame %d: captured %d of %d bytes" %
                          (n, len(f), orig))
                continue
            r = check_frame(f)
            if r is None:
                continue
            roce += 1
            name, err = r
            key = name or "(IP/UDP)"
            counts[key] = counts.get(key, 0) + 1
            if err:
                bad += 1
                print("frame %d: %s: %s" % (n, key, err))
    except (OSError, ValueError) as e:
        print("%s: %s" % (args[0], e), file=sys.stderr)
        return 2
    if not quiet:
        for k in sorted(counts):
            print("%6d  %s" % (counts[k], k))
    ok = not bad and roce >= min_roce
    print("%s: %d frames, %d RoCEv2, %d bad%s" %
          (args[0], frames, roce, bad,
           "" if roce >= min_roce else " (fewer than %d RoCEv2)" % min_roce))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
