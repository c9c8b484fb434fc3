#!/usr/bin/env python3
"""promql-check.py URL [--numbers]: runs each "WHAT<TAB>QUERY" line of stdin
(tests/tools/promql-queries.py) against the Prometheus at URL; prints one
line per query, "ok N" or "NO DATA" (or "NOT A NUMBER" with --numbers: every
sample NaN), and exits 1 when any query returned nothing. A query without
data is asked again for up to 10 s: one scrape that timed out on a loaded
machine makes every series stale until the next one."""
import json
import math
import sys
import time
import urllib.parse
import urllib.request

url, numbers = sys.argv[1], "--numbers" in sys.argv[2:]


def get(path, params):
    with urllib.request.urlopen(url + path + "?" + urllib.parse.urlencode(params), timeout=20) as r:
        return json.load(r)["data"]


def check(q):
    if q.startswith("label_values\t"):
        _, sel, label = q.split("\t")
        vals = {s.get(label) for s in get("/api/v1/series", {"match[]": sel}) if s.get(label)}
        status = "ok %d" % len(vals) if vals else "NO DATA"
    else:
        res = get("/api/v1/query", {"query": q})["result"]
        vals = [float(r["value"][1]) for r in res]
        finite = [v for v in vals if not math.isnan(v)]
        status = ("NO DATA" if not vals else "NOT A NUMBER" if numbers and not finite
                  else "ok %d" % len(vals))
    return status


bad = 0
for line in sys.stdin:
    what, _, q = line.rstrip("\n").partition("\t")
    for attempt in range(6):
        status = check(q)
        if status.startswith("ok"):
            break
        time.sleep(2)
    bad += not status.startswith("ok")
    print("%-60s %s  %s" % (what[:60], status, q if not status.startswith("ok") else ""))
sys.exit(1 if bad else 0)
