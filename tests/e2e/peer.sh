#!/bin/sh
# Other tools' reports read as saved reports (tests/fixtures/peer, made with
# the tools' own printf formats): perf kvm stat report and live tables (counts,
# min, max, average and spread; live's intervals summed), kvm_stat -1 and -l
# (plain and CSV: counts, summed over the log's lines), bcc kvmexit (counts;
# an average alone is no time: said); names as the exit tables spell them
# (EXIT_REASON_HLT, EC_WFx: HLT, TRAP_WFx). The expected numbers are python's
# own reading of the fixtures' text. Such a report diffs against a recording;
# perf kvm stat's MMIO table is refused; ftrace text is not mistaken for one.
. "$(dirname "$0")/lib.sh"
PD=tests/fixtures/peer
csv() { "$KES" report -i "$1" -f csv 2>"$TMP/err" | awk -F, 'NR > 1 { print $1 "," $4 "," $5 }' | sort; }
# perf: python's reading of the rows: name, count, min/max in ns, sum in ns, stddev (of the mean x sqrt n)
python3 - "$PD/perf-kvm-stat-report.txt" "$PD/perf-kvm-stat-live.txt" >"$TMP/want" <<'PY'
import re, sys, math
for path in sys.argv[1:]:
    rows = {}
    for m in re.finditer(r"^\s*(\S+)\s+(\d+)\s+[\d.]+%\s+[\d.]+%\s+([\d.]+)us\s+([\d.]+)us\s+([\d.]+)us \( \+-\s*([\d.]+)% \)", open(path).read(), re.M):
        name, n, mn, mx, avg, rel = m.group(1), int(m.group(2)), *map(float, m.groups()[2:])
        r = rows.setdefault(name, [0, math.inf, 0, 0.0])
        r[0] += n; r[1] = min(r[1], mn); r[2] = max(r[2], mx); r[3] += avg * n
    for k, (n, mn, mx, s) in sorted(rows.items()):
        print(path.split("/")[-1], k, n, round(mn * 1000), round(mx * 1000), round(s * 1000))
PY
for f in perf-kvm-stat-report.txt perf-kvm-stat-live.txt; do
	"$KES" report -i "$PD/$f" -f csv -u ns 2>"$TMP/err" | awk -F, -v f="$f" 'NR > 1 { printf "%s %s %s %.0f %.0f %.0f\n", f, $1, $4, $6, $7, $8 }' | sort >"$TMP/got"
	eq "$f: rows (count, min, max, sum in ns) as python reads them" "$(cat "$TMP/got")" "$(grep "^$f " "$TMP/want")"
	check "$f: stderr quiet ($(head -c 200 "$TMP/err"))" [ ! -s "$TMP/err" ]
done
head -n 1 "$("$KES" report -i "$PD/perf-kvm-stat-report.txt" >"$TMP/r.txt" 2>&1; echo "$TMP/r.txt")" >"$TMP/h"
check "the header names it ($(cat "$TMP/h"))" grep -q '(perf kvm stat report)' "$TMP/h"
# spread: perf prints the relative stddev of the mean (util/stat.c: sqrt(M2 / (n - 1) / n)):
# the population stddev sqrt(M2 / n) is rel x avg x sqrt(n - 1)
python3 - "$PD/perf-kvm-stat-report.txt" "$("$KES" report -i "$PD/perf-kvm-stat-report.txt" -f csv -u ns 2>/dev/null | tr '\n' ';')" <<'PY'
import re, sys, math
rx = r"^\s*(\S+)\s+(\d+)\s+[\d.]+%\s+[\d.]+%\s+[\d.]+us\s+[\d.]+us\s+([\d.]+)us \( \+-\s*([\d.]+)% \)"
want = {m.group(1): float(m.group(4)) / 100 * float(m.group(3)) * 1000 * math.sqrt(int(m.group(2)) - 1)
        for m in re.finditer(rx, open(sys.argv[1]).read(), re.M)}
got = {l.split(",")[0]: float(l.split(",")[9]) for l in sys.argv[2].split(";")[1:] if l}
bad = [k for k in want if abs(got[k] - want[k]) > 0.01 * want[k] + 1]
print("stddev", "ok" if not bad else bad)
sys.exit(1 if bad else 0)
PY
check "perf kvm stat: each stddev is rel x avg x sqrt(n - 1)" [ $? -eq 0 ]

# kvm_stat: counts summed, as python sums them
python3 - "$PD" >"$TMP/ks" <<'PY'
import re, sys, collections
d = sys.argv[1]
once = collections.Counter()
for l in open(d + "/kvm-stat-once.txt"):
    m = re.match(r"kvm_exit\((\w+)\)\s+(\d+)\s+\d+$", l)
    if m: once[m.group(1)] += int(m.group(2))
print("once", ";".join("%s,%d" % kv for kv in sorted(once.items())))
for f, sep in (("kvm-stat-log.txt", None), ("kvm-stat-log.csv", ",")):
    c, keys = collections.Counter(), []
    for l in open(d + "/" + f):
        w = l.strip().split(sep)
        if "kvm_exit" in l:
            keys = w[1:] if sep else w
            continue
        vals = w[1:] if sep else w[2:]
        for k, v in zip(keys, vals):
            m = re.match(r"kvm_exit\((\w+)\)$", k)
            if m: c[m.group(1)] += int(v)
    print(f, ";".join("%s,%d" % kv for kv in sorted(c.items())))
PY
for f in kvm-stat-once.txt:once kvm-stat-log.txt:kvm-stat-log.txt kvm-stat-log.csv:kvm-stat-log.csv; do
	eq "${f%%:*}: counts as python sums them" \
		"$(csv "$PD/${f%%:*}" | cut -d, -f1,2 | tr '\n' ';' | sed 's/;$//')" \
		"$(sed -n "s/^${f#*:} //p" "$TMP/ks")"
	eq "${f%%:*}: all of them untimed (kvm_stat times nothing)" \
		"$(csv "$PD/${f%%:*}" | awk -F, '$2 != $3' | head -n 1)" ""
done
"$KES" report -i "$PD/kvm-stat-once.txt" >"$TMP/ppc.txt" 2>/dev/null
check "the PPC format says the counts are a tool's that times none" grep -q 'of a tool that times none' "$TMP/ppc.txt"

# bcc kvmexit
eq "bcc kvmexit: counts by reason, EXIT_REASON_ dropped" "$(csv "$PD/bcc-kvmexit.txt" | cut -d, -f1,2 | tr '\n' ' ')" \
	"$(awk 'NR > 2 { sub(/^EXIT_REASON_/, "", $3); c[$3] += $4 } END { for (k in c) print k "," c[k] }' "$PD/bcc-kvmexit.txt" | sort | tr '\n' ' ')"
eq "bcc kvmexit, aarch64: arm64's names (EC_WFx is TRAP_WFx), a thread name with a space" \
	"$(csv "$PD/bcc-kvmexit-aarch64.txt" | cut -d, -f1,2 | tr '\n' ' ')" "TRAP_DABT_LOW,2 TRAP_WFx,32 UNKNOWN_EC,4 "
check "... its averages alone are said not to be times" grep -q 'without min and max' "$TMP/err"

# diff, refusals, no mistaking
"$KES" diff "$PD/perf-kvm-stat-report.txt" tests/fixtures/lab/x86-svm/kvm-exitstat.dat >"$TMP/d" 2>"$TMP/derr"
eq "diff of perf kvm stat report and a recording: exit status ($(head -c 200 "$TMP/derr"))" $? 0
check "... HLT's perf count in it" grep -q '^HLT  *52110 ' "$TMP/d"
sed 's/VM-EXIT/MMIO Access/' "$PD/perf-kvm-stat-report.txt" >"$TMP/mmio.txt"
"$KES" report -i "$TMP/mmio.txt" >/dev/null 2>"$TMP/err"
eq "perf kvm stat's MMIO table: refused" $? 1
check "... saying its rows are addresses ($(cat "$TMP/err"))" grep -q 'not exit reasons' "$TMP/err"
"$KES" report -i "$PD/kvm-stat-once.txt" -p 1 >/dev/null 2>&1
eq "-p on a kvm_stat output: refused" $? 1
for t in trace.txt report.txt perf.txt; do
	"$KES" report -i "tests/fixtures/text/$t" -f json 2>/dev/null >"$TMP/t.json"
	check "$t is still read as a trace, not another tool's report" \
		sh -c "python3 -c 'import json,sys; k=json.load(open(sys.argv[1]))[\"input_kind\"]; sys.exit(not k.endswith(\"text\"))' '$TMP/t.json'"
done
summary
