#!/usr/bin/env python3
"""khist-check.py TRACE.txt KHIST.json: the kernel's in-kernel hists (record
--in-kernel FILE) against the same recording's events, computed here from
trace-cmd's text of them (trace-cmd report -t -R: full ns timestamps, raw
fields), independently of kvm-exitstat:

  counts   per (thread, the exit event's reason fields): kvm_exit lines
  latency  per (thread, first reason field, log2 bucket): n and the sum of
           exit -> entry times, paired as the kernel pairs them (a thread's
           latest kvm_exit, used once, by its next kvm_entry), bucketed as
           the kernel's .log2 key does (order_base_2: 0 and 1 -> 0, else
           ceil(log2))

Prints one line per kind ("counts: 8 keys equal, 2117 exits") and every
difference; exit status 1 on any difference."""
import json
import re
import sys

LINE = re.compile(r"^\s*(?P<comm>.*)-(?P<tid>\d+)\s+\[\d+\]\s+(?:\S+\s+)?(?P<ts>\d+\.\d+):\s+(?P<ev>\w+):\s+(?P<rest>.*)$")


def order_base_2(v):
    return (v - 1).bit_length() if v > 1 else 0


def ns_of(ts):
    s, frac = ts.split(".")
    return int(s) * 1_000_000_000 + int(frac.ljust(9, "0")[:9])


def fields_of(rest):
    return dict(kv.split("=", 1) for kv in rest.split() if "=" in kv)


def main():
    trace, hist = sys.argv[1], sys.argv[2]
    k = json.load(open(hist))
    names = k["fields"]
    counts, lat, last = {}, {}, {}
    for line in open(trace, errors="replace"):
        m = LINE.match(line)
        if not m or m["ev"] not in ("kvm_exit", "kvm_entry"):
            continue
        tid, ts = int(m["tid"]), ns_of(m["ts"])
        if m["ev"] == "kvm_exit":
            f = fields_of(m["rest"])
            key = (tid,) + tuple(int(f[n], 0) for n in names) + (0,) * (2 - len(names))
            counts[key] = counts.get(key, 0) + 1
            last[tid] = (ts, key[1])
        elif tid in last:
            t0, r0 = last.pop(tid)
            d = ts - t0
            key = (tid, r0, order_base_2(d))
            n, s = lat.get(key, (0, 0))
            lat[key] = (n + 1, s + d)
    kc = {(e["tid"], *e["f"]): e["n"] for e in k["counts"]}
    kl = {(e["tid"], e["f"][0], e["log2"]): (e["n"], e["sum"]) for e in k["latency"]}
    bad = 0
    for what, mine, theirs in (("counts", counts, kc), ("latency", lat, kl)):
        diff = [(key, mine.get(key), theirs.get(key)) for key in sorted(set(mine) | set(theirs))
                if mine.get(key) != theirs.get(key)]
        for key, a, b in diff[:20]:
            print(f"{what} {key}: trace {a} kernel {b}")
        total = sum(v if what == "counts" else v[0] for v in theirs.values())
        print(f"{what}: {len(theirs)} keys, {total} samples in the kernel's; "
              f"{len(mine)} keys from the trace; {len(diff)} differ")
        bad += len(diff)
    print(f"dropped {k['dropped']}")
    return 1 if bad or k["dropped"] else 0


sys.exit(main())
