#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench-report.py DIR: the report of a make bench run.

Reads DIR/raw.txt ("BENCH <stack> <metric> <run> <value> <unit>" lines of
tools/testing/bench/bench-guest.sh, and of the two-guest
tools/testing/bench/bench_wire.sh whose stack is a pairing "A-B": guest
a's stack (the servers, the NVMe-oF target) and guest b's) and writes
DIR/results.txt (a table of medians: metric, rxe, xnic, ratio xnic/rxe, %
of the physical limit, the target and whether it is met; then the
two-guest table: the pairings side by side with the one-guest values,
the speed-ups against rxe-rxe and the targets of issue 25, the guests'
CPU busy shares and the link's own ping RTT and TCP rate),
DIR/results.csv and DIR/chart.png (gnuplot).  Exits 1 when a metric of a
table that ran (any of its lines in raw.txt) has no measurement.
"""
import csv
import os
import statistics
import subprocess
import sys

# metric, what, better (higher/lower), physical limit, target
PERF = [
    ("write_lat_64", "ib_write_lat 64 B", "lower", "pingpong_oneway_us",
     ("ratio_max", 0.1)),
    ("read_lat_64", "ib_read_lat 64 B", "lower", "pingpong_oneway_us",
     ("ratio_max", 0.1)),
    ("send_lat_64", "ib_send_lat 64 B", "lower", "pingpong_oneway_us",
     ("ratio_max", 0.1)),
    ("atomic_lat", "ib_atomic_lat 8 B", "lower", "pingpong_oneway_us", None),
    ("write_rate_64", "ib_write_bw 64 B msg rate", "higher", None,
     ("ratio_min", 10.0)),
    ("write_bw_64k", "ib_write_bw 64 KiB", "higher", "memcpy_64k_MBps",
     ("limit_min", 50.0)),
    ("read_bw_64k", "ib_read_bw 64 KiB", "higher", "memcpy_64k_MBps",
     ("limit_min", 50.0)),
    ("send_bw_64k", "ib_send_bw 64 KiB", "higher", "memcpy_64k_MBps", None),
    # issue 27: tails (the same runs' 99th percentile, at most twice
    # xnic's own typical), latency through completion events (the
    # program sleeps in ibv_get_cq_event), concurrent process pairs
    ("write_lat_64_p99", "  its 99th percentile", "lower", None,
     ("tail_max", "write_lat_64", 2.0)),
    ("read_lat_64_p99", "  its 99th percentile", "lower", None,
     ("tail_max", "read_lat_64", 2.0)),
    ("send_lat_64_p99", "  its 99th percentile", "lower", None,
     ("tail_max", "send_lat_64", 2.0)),
    ("rc_pingpong_ev_64", "ibv_rc_pingpong -e RTT", "lower",
     "pingpong_rtt_us", ("ratio_max", 0.2)),
    ("write_rate_64_1p", "1 pair ib_write_bw -D", "higher", None, None),
    ("write_rate_64_2p", "2 pairs, aggregate", "higher", None,
     [("ratio_min", 20.0), ("scale_min", "write_rate_64_1p", 1.8)]),
    ("write_rate_64_4p", "4 pairs, aggregate", "higher", None,
     [("ratio_min", 20.0), ("scale_min", "write_rate_64_1p", 1.8)]),
    # the kernel's ULPs through ib_core (issue 13): fio-style direct I/O
    # (tools/testing/bench/blkbench) on NVMe-oF over null_blk, and on a
    # file of an NFS over RDMA mount
    ("nvme_randread_4k", "NVMe-oF randread 4K QD32", "higher",
     "nullb_randread_4k",
     ("ratio_min", 10.0)),
    # issue 27: one read at a time, its latency
    ("nvme_randread_4k_qd1", "NVMe-oF randread 4K QD1", "lower", None,
     ("ratio_max", 0.2)),
    ("nvme_read_1m", "NVMe-oF seq read 1 MiB", "higher", "memcpy_64m_MBps",
     [("ratio_min", 10.0), ("limit_min", 50.0)]),
    ("nvme_write_1m", "NVMe-oF seq write 1 MiB", "higher", "memcpy_64m_MBps",
     [("ratio_min", 10.0), ("limit_min", 50.0)]),
    ("nfs_read_1m", "NFS/RDMA seq read 1 MiB", "higher", "memcpy_64m_MBps",
     None),
    ("nfs_write_1m", "NFS/RDMA seq write 1 MiB", "higher", "memcpy_64m_MBps",
     None),
    # issue 27: qperf -cm1 rc_lat (rdma_cm, waits on completion events)
    ("qperf_rc_lat_64", "qperf -cm1 rc_lat 64 B", "lower", None,
     ("ratio_max", 0.2)),
    # SMB Direct (cifs -o rdma to ksmbd; tools/testing/bench/bench-smb.sh)
    ("smb_write_1m", "SMB Direct seq write 1 MiB", "higher",
     "memcpy_64m_MBps", None),
    ("smb_read_1m", "SMB Direct seq read 1 MiB", "higher",
     "memcpy_64m_MBps", None),
]
# the two-guest rows (bench_wire.sh): metric, what, better
WIRE = [
    ("write_lat_64", "ib_write_lat 64 B", "lower"),
    ("read_lat_64", "ib_read_lat 64 B", "lower"),
    ("send_lat_64", "ib_send_lat 64 B", "lower"),
    ("write_bw_64k", "ib_write_bw 64 KiB", "higher"),
    ("read_bw_64k", "ib_read_bw 64 KiB", "higher"),
    ("send_bw_64k", "ib_send_bw 64 KiB", "higher"),
    ("nvme_randread_4k", "NVMe-oF randread 4K QD32", "higher"),
]
# guest a's stack - guest b's; the speed-ups are against rxe-rxe, and
# issue 25 wants xnic-xnic >= 2x, the mixed ones never slower (>= 1x)
PAIRS = [("rxe-rxe", None), ("xnic-xnic", 2.0), ("xnic-rxe", 1.0),
         ("rxe-xnic", 1.0)]
LINK = [("ping_rtt_us", "ping RTT 56 B (ICMP, guest network stack)"),
        ("tcp_MBps", "TCP stream a -> b (busybox httpd/wget)"),
        ("udp_lat_64_us", "UDP ping-pong 64 B, spinning, RTT/2"),
        ("udp_lat_64_p99_us", "  its 99th percentile"),
        ("udp_stream_4096_sent_MBps", "UDP stream 4096 B b -> a: sent"),
        ("udp_stream_4096_MBps", "  read by a spinning socket"),
        ("udp_stream_64_kpps", "UDP stream 64 B b -> a: frames/s")]
# the floor under a row: what a spinning UDP socket gets from the link
# (udplink); 2x rxe-rxe beyond it cannot be reached by any stack
# (the stream as sent: the link, with backpressure down to the receiving
# guest's virtio ring; what a socket then reads is less, lost in the
# receiving guest)
FLOOR = {"write_lat_64": "udp_lat_64_us", "read_lat_64": "udp_lat_64_us",
         "send_lat_64": "udp_lat_64_us",
         "write_bw_64k": "udp_stream_4096_sent_MBps",
         "read_bw_64k": "udp_stream_4096_sent_MBps",
         "send_bw_64k": "udp_stream_4096_sent_MBps"}
PHYS = [
    ("memcpy_64k_MBps", "memcpy 64 KiB, one thread"),
    ("memcpy_64m_MBps", "memcpy 64 MiB, one thread"),
    ("pingpong_oneway_us", "cache-line ping-pong, one way"),
    ("pingpong_rtt_us", "cache-line ping-pong, round trip"),
    ("nullb_randread_4k", "null_blk 4 KiB randread QD32, local"),
    ("nullb_read_1m", "null_blk 1 MiB read QD4, local"),
]


def load(path):
    vals, units, info, fails = {}, {}, [], []
    with open(path, errors="replace") as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == "BENCH_INFO":
                info.append(" ".join(w[1:]))
            elif w[0] == "BENCH_FAIL":
                fails.append(" ".join(w[1:]))
            elif w[0] == "BENCH" and len(w) >= 6:
                try:
                    v = float(w[4])
                except ValueError:
                    continue
                vals.setdefault((w[1], w[2]), []).append(v)
                units[w[2]] = w[5]
    return vals, units, info, fails


def med(vals, stack, metric):
    v = vals.get((stack, metric))
    return statistics.median(v) if v else None


def fmt(v, nd=3):
    if v is None:
        return "-"
    if abs(v) >= 100:
        return "%.0f" % v
    if abs(v) >= 10:
        return "%.1f" % v
    return "%.*g" % (nd, v)


def speedup(better, base, v):
    """how many times faster v is than base (latency: base/v)"""
    if not base or not v:
        return None
    return v / base if better == "higher" else base / v


def wire_table(out, vals, units, missing):
    """the two-guest rows of bench_wire.sh, appended to out"""
    out.append("")
    out.append("two guests on the QEMU socket link (bench_wire.sh): pairing "
               "= guest a (servers, NVMe-oF target) - guest b (clients, host)")
    out.append("speed-up: times faster than rxe-rxe (latency: rxe-rxe/x); "
               "targets: xnic-xnic >= 2x, xnic-rxe and rxe-xnic >= 1x")
    out.append("")
    out.append("floor: the link's for one UDP socket (udplink, below); "
               "2x rxe-rxe beyond it (\"2x?\" no) is out of any stack's "
               "reach")
    out.append("")
    hdr = "%-16s %-5s %8s %8s | %8s %9s %8s %8s | %6s %6s %6s | %7s %4s  %s" % (
        "metric", "unit", "1g rxe", "1g xnic", "rxe-rxe", "xnic-xnic",
        "xnic-rxe", "rxe-xnic", "xx/rr", "xr/rr", "rx/rr", "floor", "2x?",
        "met")
    out.append(hdr)
    out.append("-" * len(hdr))
    wrows = []
    for m, what, better in WIRE:
        vs = [med(vals, p, m) for p, _ in PAIRS]
        for (p, _), v in zip(PAIRS, vs):
            if v is None:
                missing.append(p + " " + m)
        sps = [speedup(better, vs[0], v) for v in vs[1:]]
        oks = [sp is not None and sp >= t
               for sp, (_, t) in zip(sps, PAIRS[1:])]
        met = "yes" if all(oks) else "NO (" + ", ".join(
            p for ok, (p, _) in zip(oks, PAIRS[1:]) if not ok) + ")"
        fl = med(vals, "link", FLOOR[m]) if m in FLOOR else None
        reach = "-"
        if fl is not None and vs[0]:
            # (a floor in the row's direction: lower latency, higher rate)
            reach = "yes" if speedup(better, vs[0], fl) >= 2.0 else "no"
        out.append("%-16s %-5s %8s %8s | %8s %9s %8s %8s | %6s %6s %6s | %7s %4s  %s" % (
            m, units.get(m, ""), fmt(med(vals, "rxe", m)),
            fmt(med(vals, "xnic", m)), fmt(vs[0]), fmt(vs[1]), fmt(vs[2]),
            fmt(vs[3]), fmt(sps[0]), fmt(sps[1]), fmt(sps[2]), fmt(fl),
            reach, met))
        wrows.append((m, units.get(m, ""), vs, sps))
    out.append("")
    out.append("CPU busy % of guest a / guest b (all its vCPUs) during each")
    hdr = "  %-16s" % "metric" + "".join("%12s" % p for p, _ in PAIRS)
    out.append(hdr)
    for m, what, better in WIRE:
        cells = []
        for p, _ in PAIRS:
            a = med(vals, p, m + "_cpu_a")
            b = med(vals, p, m + "_cpu_b")
            cells.append("%12s" % ("%s/%s" % (fmt(a), fmt(b))
                                   if a is not None else "-"))
        out.append("  %-16s" % m + "".join(cells))
    out.append("")
    out.append("the link itself (rxe-rxe's round, plain IPv4 on eth0)")
    for m, what in LINK:
        v = med(vals, "link", m)
        if v is None:
            missing.append("link " + m)
        c = med(vals, "link", m + "_cpu_b")
        out.append("  %-26s %-36s %8s %s%s" % (
            m, what, fmt(v), units.get(m, ""),
            "   (guest b busy %s%%)" % fmt(c) if c is not None else ""))
    return wrows


def main():
    d = sys.argv[1]
    vals, units, info, fails = load(os.path.join(d, "raw.txt"))
    rows, missing = [], []
    one = any(k[0] in ("rxe", "xnic", "phys") for k in vals) or \
        any(f.split()[0] in ("rxe", "xnic", "phys") for f in fails if f)
    wire = any("-" in k[0] or k[0] == "link" for k in vals) or \
        any(i.startswith("wire ") for i in info)
    for m, what, better, limit, target in PERF:
        if not one:
            break
        r, x = med(vals, "rxe", m), med(vals, "xnic", m)
        n = len(vals.get(("xnic", m), []))
        if x is None:
            missing.append("xnic " + m)
        if r is None:
            missing.append("rxe " + m)
        ratio = x / r if (x is not None and r) else None
        lim = med(vals, "phys", limit) if limit else None
        pct = None
        if lim and x:
            pct = 100.0 * (x / lim if better == "higher" else lim / x)
        tgt, met = "-", "-"
        if target:
            tgts, oks = [], []
            for kind, t, *tgt_arg in (target if isinstance(target, list)
                                      else [target]):
                tgt_arg = tgt_arg[0] if tgt_arg else None
                if kind == "ratio_min":
                    tgts.append(">= %gx rxe" % t)
                    oks.append(ratio is not None and ratio >= t)
                elif kind == "ratio_max":
                    tgts.append("<= %g x rxe" % t)
                    oks.append(ratio is not None and ratio <= t)
                elif kind in ("tail_max", "scale_min"):
                    # against another row of xnic's: tail_max, at most
                    # t times it; scale_min, at least t times it
                    ref, t = t, tgt_arg
                    b = med(vals, "xnic", ref)
                    q = x / b if (x is not None and b) else None
                    if kind == "tail_max":
                        tgts.append("<= %gx %s" % (t, ref))
                        oks.append(q is not None and q <= t)
                    else:
                        tgts.append(">= %gx %s" % (t, ref))
                        oks.append(q is not None and q >= t)
                else:
                    tgts.append(">= %g%% of limit" % t)
                    oks.append(pct is not None and pct >= t)
            tgt = ", ".join(tgts)
            met = "yes" if all(oks) else "NO"
        rows.append([m, what, units.get(m, ""), r, x, ratio, pct, tgt, met, n])

    scale = sorted({int(k[1].split("_")[1]) for k in vals
                    if k[1].startswith("scale_")})
    smetrics = sorted({"_".join(k[1].split("_")[2:]) for k in vals
                       if k[1].startswith("scale_")})

    out = []
    out.append("xrdma benchmark: xnic (xrdma libibverbs) vs rxe, one guest")
    for i in info:
        out.append("  " + i)
    out.append("")
    if not one:
        out.append("(the one-guest bench did not run)")
    hdr = "%-16s %-26s %-5s %10s %10s %9s %9s  %-27s %s" % (
        "metric", "what", "unit", "rxe", "xnic", "xnic/rxe", "% limit",
        "target", "met")
    if one:
        out.append(hdr)
        out.append("-" * len(hdr))
    for m, what, u, r, x, ratio, pct, tgt, met, n in rows:
        out.append("%-16s %-26s %-5s %10s %10s %9s %9s  %-27s %s" % (
            m, what, u, fmt(r), fmt(x), fmt(ratio), fmt(pct), tgt, met))
    if one:
        out.append("")
        out.append("physical limits (guest)")
    for m, what in PHYS if one else []:
        out.append("  %-20s %-34s %10s %s" % (m, what, fmt(med(vals, "phys", m)),
                                              units.get(m, "")))
    if scale:
        out.append("")
        out.append("xnic with N QPs created (one pair active)")
        out.append("  %-16s" % "metric" +
                   "".join("%12s" % ("N=%d" % n) for n in scale) + "   max/min")
        for sm in smetrics:
            v = [med(vals, "xnic", "scale_%d_%s" % (n, sm)) for n in scale]
            good = [x for x in v if x]
            spread = max(good) / min(good) if len(good) > 1 else None
            out.append("  %-16s" % sm + "".join("%12s" % fmt(x) for x in v) +
                       "   %s" % fmt(spread))
    wrows = []
    if wire:
        wrows = wire_table(out, vals, units, missing)
    if fails:
        out.append("")
        out.append("failed measurements:")
        out.extend("  " + f for f in fails)
    if missing:
        out.append("")
        out.append("not measured: " + ", ".join(missing))
    out.append("")
    out.append("medians of %s run(s) each (two guests: %s round(s)); "
               "targets from the benchmark issues" %
               (max((r[9] for r in rows), default=0),
                max((len(vals.get((p, m), [])) for p, _ in PAIRS
                     for m, _, _ in WIRE), default=0)))
    with open(os.path.join(d, "results.txt"), "w") as f:
        f.write("\n".join(out) + "\n")

    with open(os.path.join(d, "results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["metric", "unit", "rxe", "xnic", "ratio_xnic_rxe",
                    "pct_of_limit", "target", "met", "runs"])
        for m, what, u, r, x, ratio, pct, tgt, met, n in rows:
            w.writerow([m, u, r, x, ratio, pct, tgt, met, n])
        for m, what in PHYS:
            w.writerow([m, units.get(m, ""), "", med(vals, "phys", m), "", "",
                        "", "", ""])
        for m, u, vs, sps in wrows:
            for (p, _), v in zip(PAIRS, vs):
                w.writerow(["wire_%s_%s" % (p, m), u, "", v, "", "", "", "",
                            len(vals.get((p, m), []))])
        for n in scale:
            for sm in smetrics:
                k = "scale_%d_%s" % (n, sm)
                w.writerow([k, units.get(k, ""), "", med(vals, "xnic", k), "",
                            "", "", "", ""])

    # chart: xnic/rxe per metric, log scale (latency inverted: >1 is better)
    dat = os.path.join(d, "chart.dat")
    with open(dat, "w") as f:
        for m, what, u, r, x, ratio, pct, tgt, met, n in rows:
            if ratio:
                speedup = ratio if units.get(m) != "us" else 1.0 / ratio
                f.write('"%s" %g\n' % (m, speedup))
    gp = """set terminal pngcairo size 900,500 noenhanced
set output '%s'
set title 'xnic vs rxe: speed-up (latency: rxe/xnic, rate and bandwidth: xnic/rxe)'
set style fill solid 0.7
set boxwidth 0.6
set logscale y
set yrange [0.1:*]
set grid ytics
set xtics rotate by -30
set ylabel 'times faster than rxe'
plot '%s' using 0:2:xtic(1) with boxes notitle, 10 title '10x target' lw 2
""" % (os.path.join(d, "chart.png"), dat)
    if not any(r[5] for r in rows):
        return 1 if missing else 0
    try:
        subprocess.run(["gnuplot"], input=gp.encode(), check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print("bench-report: no chart (%s)" % e, file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
