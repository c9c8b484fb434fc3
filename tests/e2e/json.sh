#!/bin/sh
# The JSON outputs (report -f json, diff -f json, top --log --json) go
# through one writer whose numbers read back exactly: every JSON text here
# parses (python3), every number in it is the shortest text of its value
# (parsing it and printing it again gives the same text, as Python's repr()
# prints a double), and the numbers agree with the CSV output of the same run
# (exact *_ns integers against CSV in ns); json-live.sh: top --log --json
# against exitgen's own counts.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
command -v python3 >/dev/null || skip "needs python3"
FIX=tests/fixtures

. "$(dirname "$0")/../tools/json-helpers.sh"

# rows_agree NAME JSON CSV: every row's count, untimed, sum/min/max (ns) as CSV -u ns says
rows_agree() {
	python3 - "$2" "$3" <<'PY' >"$TMP/ra" 2>&1
import csv, json, sys
j = json.load(open(sys.argv[1]))
c = list(csv.DictReader(open(sys.argv[2])))
rows = [r for t in j["tables"] for r in t["rows"]]
if len(rows) != len(c) or not rows:
    print("rows: json %d csv %d" % (len(rows), len(c))); sys.exit(1)
for r, k in zip(rows, c):
    want = (k["name"], int(k["count"]), int(k["untimed"]), round(float(k["sum"])))
    got = (r["name"], r["count"], r["untimed"], r["sum_ns"])
    if got != want:
        print("row", got, "csv", want); sys.exit(1)
    if r["count"] and (r["min_ns"] != round(float(k["min"])) or r["max_ns"] != round(float(k["max"]))):
        print("min/max", r["name"], r["min_ns"], r["max_ns"], k["min"], k["max"]); sys.exit(1)
    if r["sum"] != float(r["sum_ns"]) and j["unit"] == "ns":
        print("sum", r["sum"], "sum_ns", r["sum_ns"]); sys.exit(1)
tot = sum(r["sum_ns"] for r in j["tables"][-1]["rows"])
if tot != j["tables"][-1]["total"]["sum_ns"]:
    print("total sum_ns", j["tables"][-1]["total"]["sum_ns"], "rows", tot); sys.exit(1)
PY
	rc=$?
	eq "$1: rows agree with the CSV" "$rc$(cat "$TMP/ra")" 0
}

# --- report, every input kind ---
for f in "$FIX/text/trace.dat" "$FIX/text/trace.txt" "$FIX/text/perf.txt" "$FIX/ppc/report-2010-nopv.txt"; do
	n=$(basename "$f")
	"$KES" report -i "$f" -f json -u ns --per-vcpu >"$TMP/r.json" 2>/dev/null ||
		"$KES" report -i "$f" -f json -u ns >"$TMP/r.json"
	roundtrip "report $n" "$TMP/r.json"
	"$KES" report -i "$f" -f json -u ns >"$TMP/r.json"
	"$KES" report -i "$f" -f csv -u ns >"$TMP/r.csv"
	rows_agree "report $n" "$TMP/r.json" "$TMP/r.csv"
done
# The capture's exits as exitgen counted them.
eg_total() { awk -v k="$1" '$1 == "total" { for (i = 2; i < NF; i++) if ($i == k) print $(i + 1) }' "$2"; }
"$KES" report -i "$FIX/text/trace.dat" -f json >"$TMP/r.json"
for r in KVM_EXIT_IO KVM_EXIT_MMIO KVM_EXIT_HLT; do
	eq "report trace.dat: $r = exitgen's count" \
		"$(python3 -c 'import json,sys; print(sum(r["count"] for r in json.load(open(sys.argv[1]))["tables"][-1]["rows"] if r["name"] == sys.argv[2]))' "$TMP/r.json" "$r")" \
		"$(eg_total "$r" "$FIX/text/exitgen.out")"
done

# --- diff ---
A=$FIX/ppc/report-2010-nopv.txt
B=$FIX/ppc/report-2010-pv.txt
"$KES" diff -f json "$A" "$B" >"$TMP/d.json"
roundtrip "diff" "$TMP/d.json"
"$KES" diff -f csv "$A" "$B" >"$TMP/d.csv"
python3 - "$TMP/d.json" "$TMP/d.csv" <<'PY' >"$TMP/da" 2>&1
import csv, json, sys
j = json.load(open(sys.argv[1])); c = list(csv.DictReader(open(sys.argv[2])))
assert len(j["rows"]) == len(c), (len(j["rows"]), len(c))
for r, k in zip(j["rows"], c):
    assert (r["name"], r["count_a"], r["count_b"]) == (k["name"], int(k["count_a"]), int(k["count_b"])), (r["name"], k["name"])
    assert r["sum_a_ns"] == round(float(k["sum_a"]) * 1000) and r["sum_b_ns"] == round(float(k["sum_b"]) * 1000), r["name"]
    assert abs(r["sum_a"] - float(k["sum_a"])) < 0.05, r["name"]
assert j["total"]["sum_a_ns"] == sum(r["sum_a_ns"] for r in j["rows"])
PY
eq "diff: rows agree with the CSV" "$?$(cat "$TMP/da")" 0
summary
