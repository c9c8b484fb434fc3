#!/bin/sh
# Mergeable reports: `report -f json` carries each row's exact state, and
# `report -i a.json -i b.json` must equal the report of both recordings
# read together (`-i a.dat -i b.dat`): counts, untimed, min, max, sums and
# every histogram bucket exactly, so every percentile exactly; stddev to
# double rounding (the moments are merged, not re-summed). The counts must
# also be exitgen's own. Per-vCPU tables merge per thread. Broken JSON is
# refused with one line.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
need_kvm
command -v python3 >/dev/null 2>&1 || skip "needs python3"

"$KES" record -o "$TMP/a.dat" -- "$EXITGEN" --io 2000 --mmio 300 --vcpus 2 >"$TMP/a.out" 2>&1
eq "record a" "$?" 0
"$KES" record -o "$TMP/b.dat" -- "$EXITGEN" --io 1000 --hlt 100 >"$TMP/b.out" 2>&1
eq "record b" "$?" 0
for x in a b; do
	"$KES" report -i "$TMP/$x.dat" -f json >"$TMP/$x.json"
	eq "report -f json $x" "$?" 0
	"$KES" report -i "$TMP/$x.dat" -f json --per-vcpu >"$TMP/$x.vcpu.json"
done
"$KES" report -i "$TMP/a.json" -i "$TMP/b.json" -f json >"$TMP/merged.json"
eq "report of two JSON reports" "$?" 0
"$KES" report -i "$TMP/a.dat" -i "$TMP/b.dat" -f json >"$TMP/both.json"
"$KES" report -i "$TMP/a.vcpu.json" -i "$TMP/b.vcpu.json" -f json --per-vcpu >"$TMP/merged.vcpu.json"
eq "report of two per-vCPU JSON reports" "$?" 0
"$KES" report -i "$TMP/a.dat" -i "$TMP/b.dat" -f json --per-vcpu >"$TMP/both.vcpu.json"

# compare MERGED BOTH: rows by (table tid, vcpu, name, sub)
cat >"$TMP/cmp.py" <<'PY'
import json, sys
def rows(path):
    out = {}
    for t in json.load(open(path))["tables"]:
        for r in t["rows"]:
            out[(t["tid"], t["vcpu"], r["name"], r["sub"])] = r
    return out
m, b = rows(sys.argv[1]), rows(sys.argv[2])
bad = []
if set(m) != set(b):
    bad.append("rows differ: %s" % sorted(set(m) ^ set(b), key=str))
exact = ["count", "untimed", "min_ns", "max_ns", "sum_ns", "hist", "min", "max", "sum", "avg",
         "p50", "p90", "p99", "p999"]
for k in set(m) & set(b):
    for f in exact:
        if m[k][f] != b[k][f]:
            bad.append("%s %s: %s vs %s" % (k, f, str(m[k][f])[:60], str(b[k][f])[:60]))
    sm, sb = m[k]["stddev"], b[k]["stddev"]
    if abs(sm - sb) > 1e-9 * abs(sb) + 1e-12:
        bad.append("%s stddev %r vs %r" % (k, sm, sb))
print("%d rows compared" % len(set(m) & set(b)))
for l in bad[:10]:
    print(l)
sys.exit(1 if bad else 0)
PY
python3 "$TMP/cmp.py" "$TMP/merged.json" "$TMP/both.json" >"$TMP/cmp.out" 2>&1
check "merged JSON = both recordings, exactly ($(head -c 400 "$TMP/cmp.out"))" [ $? -eq 0 ]
python3 "$TMP/cmp.py" "$TMP/merged.vcpu.json" "$TMP/both.vcpu.json" >"$TMP/cmp2.out" 2>&1
check "per-vCPU merged JSON = both recordings, per thread ($(head -c 400 "$TMP/cmp2.out"))" [ $? -eq 0 ]

# exitgen's own counts, summed by hand
total() { echo $(( $(eg_total "$1" "$TMP/a.out") + $(eg_total "$1" "$TMP/b.out") )); }
jrow() { python3 -c 'import json, sys
t = json.load(open(sys.argv[1]))["tables"][-1]
print(sum(r["count"] for r in t["rows"] if r["name"] == sys.argv[2]))' "$TMP/merged.json" "$1"; }
# (the merged table is the one report shows: kvm_exit's where it fired, whose
# io and hlt exits are exitgen's KVM_EXIT_IO and KVM_EXIT_HLT one for one)
if [ -n "$EXIT_RULES" ]; then
	eq "merged io = exitgen's KVM_EXIT_IO, a + b" "$(jrow io)" "$(total KVM_EXIT_IO)"
	eq "merged hlt = exitgen's KVM_EXIT_HLT, a + b" "$(jrow hlt)" "$(total KVM_EXIT_HLT)"
	# every reason of the merged table: the lab's rules over both runs' vCPUs
	cat "$TMP/a.out" "$TMP/b.out" >"$TMP/ab.out"
	"$KES" report -i "$TMP/a.json" -i "$TMP/b.json" -f csv >"$TMP/merged.csv"
	exits_exact "merged JSON, kvm_exit" "$TMP/merged.csv" "$TMP/ab.out"
else
	for r in KVM_EXIT_IO KVM_EXIT_MMIO KVM_EXIT_HLT; do
		eq "merged $r = exitgen a + b" "$(jrow $r)" "$(total $r)"
	done
fi
# The same printed report in every format but its "Input:" line (wrapped: its continuation too).
"$KES" report -i "$TMP/a.json" -i "$TMP/b.json" --percentiles -f table >"$TMP/t1w"
"$KES" report -i "$TMP/a.dat" -i "$TMP/b.dat" --percentiles -f table >"$TMP/t2w"
unwrap "$TMP/t1w" | sed 1d >"$TMP/t1"
unwrap "$TMP/t2w" | sed 1d >"$TMP/t2"
check "the table reports are the same" cmp -s "$TMP/t1" "$TMP/t2"
"$KES" report -i "$TMP/a.json" -i "$TMP/b.json" | sed 1d >"$TMP/p1"
"$KES" report -i "$TMP/a.dat" -i "$TMP/b.dat" | sed 1d >"$TMP/p2"
check "the PPC reports are the same" cmp -s "$TMP/p1" "$TMP/p2"
# A JSON report and a recording merge too.
"$KES" report -i "$TMP/a.json" -i "$TMP/b.dat" -f json >"$TMP/mixed.json"
python3 "$TMP/cmp.py" "$TMP/mixed.json" "$TMP/both.json" >"$TMP/cmp3.out" 2>&1
check "a.json + b.dat = a.dat + b.dat ($(head -c 300 "$TMP/cmp3.out"))" [ $? -eq 0 ]

# Broken reports: one line, exit 1, nothing on stdout.
refused() { # NAME FILE [OPTS]
	f=$2; n=$1; shift 2
	"$KES" report -i "$f" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	check "$n: exit 1 (got $rc)" [ $rc -eq 1 ]
	eq "$n: one line on stderr" "$(wc -l <"$TMP/err")" 1
	eq "$n: nothing on stdout" "$(wc -c <"$TMP/out")" 0
}
head -c 600 "$TMP/a.json" >"$TMP/cut.json"
refused "a cut JSON report" "$TMP/cut.json"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); r = d["tables"][-1]["rows"][0]; r["hist"][0][2] += 1
json.dump(d, open(sys.argv[2], "w"), indent=1)' "$TMP/a.json" "$TMP/sum.json"
refused "buckets that do not add up" "$TMP/sum.json"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); r = d["tables"][-1]["rows"][0]; r["hist"][0][0] += 1
json.dump(d, open(sys.argv[2], "w"), indent=1)' "$TMP/a.json" "$TMP/edge.json"
refused "a bucket that is not ours" "$TMP/edge.json"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); del d["tables"][-1]["rows"][0]["sum_ns"]
json.dump(d, open(sys.argv[2], "w"), indent=1)' "$TMP/a.json" "$TMP/old.json"
refused "a row without sum_ns" "$TMP/old.json"
refused "-p with a JSON report" "$TMP/a.json" -p 1
grep -q 'not a kvm-exitstat JSON report with histograms' "$TMP/err" ||
	grep -q 'do not apply to a JSON report' "$TMP/err"
check "the reason says why" [ $? -eq 0 ]
summary
