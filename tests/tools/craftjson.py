#!/usr/bin/env python3
"""craftjson.py IN.json OUT.json [MUTATION ARGS...]...: derive a hostile report
JSON (`report -f json`, read back by `report -i`) from a real one, one field
at a time, everything else kept (issue 29). Applied in order; ROW is a row
name, changed in every table that has it.

  unit-ticks            "unit": "ticks", "ts_unit_known": false (the times
                        are then read as ticks of an unknown clock)
  unit-disagree         "unit": "ticks" while "ts_unit_known" stays true
  events N              the header's "events" := N
  row-name ROW NAME     the row's name := NAME (Python escapes: \\x1b, \\x07)
  row-count ROW N       the row's count := N, all timed, one histogram bucket
                        (its first) holding them, sum_ns := min_ns * N (at
                        most 2^64 - 1): a row that is right in itself

Used by tests/e2e/hostile-merge.sh; tests/fixtures/bad/PROVENANCE.md lists
the fixtures made with it. The output is json.dumps(indent=2): stable.
"""
import json
import sys


def rows(d, name):
    found = [r for t in d["tables"] for r in t["rows"] if r["name"] == name]
    if not found:
        sys.exit("craftjson: no row %r" % name)
    return found


def mutate(d, a):
    m = a[0]
    if m == "unit-ticks":
        d["unit"], d["ts_unit_known"] = "ticks", False
        return 1
    if m == "unit-disagree":
        d["unit"] = "ticks"
        return 1
    if m == "events":
        d["events"] = int(a[1], 0)
        return 2
    if m == "row-name":
        new = a[2].encode("latin-1").decode("unicode_escape")
        for r in rows(d, a[1]):
            r["name"] = new
        return 3
    if m == "row-count":
        n = int(a[2], 0)
        for r in rows(d, a[1]):
            lo, hi = r["hist"][0][0], r["hist"][0][1]
            r.update(count=n, timed=n, untimed=0, min_ns=lo, max_ns=hi,
                     sum_ns=min(lo * n, 2**64 - 1), hist=[[lo, hi, n]])
        return 3
    sys.exit("craftjson: unknown mutation %r" % m)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    d = json.load(open(sys.argv[1], encoding="utf-8"))
    a = sys.argv[3:]
    while a:
        a = a[mutate(d, a):]
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        json.dump(d, f, indent=2, ensure_ascii=False)
        f.write("\n")


main()
