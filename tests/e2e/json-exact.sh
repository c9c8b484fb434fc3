#!/bin/sh
# JSON keeps every digit (issue 14 item 2): the numbers of a 2010 PPC report
# (EMULINST sum 63937759, which %.6g printed as 6.39378e+07) come out of
# report -f json and diff -f json exactly as the input has them: counts,
# min, max and sums compared as integers with an awk reading of the input,
# never an exponent on an integer.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "needs python3"
A=tests/fixtures/ppc/report-2010-nopv.txt
B=tests/fixtures/ppc/report-2010-pv.txt

# name count min max sum, one line per row of a (mail-quoted, wrapped) PPC report
rows_of() {
	sed 's/^> *//' "$1" | awk '
		$2 == "count" { name = $1; line = $0; if ($0 !~ / sum /) { getline; line = line " " $0 }
				n = split(line, w, " "); for (i = 1; i < n; i++) v[w[i]] = w[i + 1]
				print name, v["count"], v["min"], v["max"], v["sum"] }'
}
# no_exp NAME FILE: no number token that is a whole number is printed with an exponent
no_exp() {
	python3 - "$2" <<'PY' >"$TMP/ne" 2>&1
import re, sys
# (a double of 1e16 or more is shortest with one: m2_ns2 1.92241459515848e+17)
bad = [t for t in re.findall(r'(?<![\w."])-?[0-9][0-9.]*[eE][+-]?[0-9]+', open(sys.argv[1]).read())
       if float(t).is_integer() and abs(float(t)) < 1e16]
print(bad[:3] if bad else "ok")
PY
	check "$1: no whole number printed with an exponent ($(cat "$TMP/ne"))" grep -qx ok "$TMP/ne"
}
rows_of "$A" >"$TMP/a.rows"
rows_of "$B" >"$TMP/b.rows"
check "the awk reading found EMULINST sum 63937759" grep -qx 'EMULINST 4953567 10 3708 63937759' "$TMP/a.rows"

"$KES" report -i "$A" -f json >"$TMP/r.json"
eq "report -f json: exit status" $? 0
python3 - "$TMP/r.json" "$TMP/a.rows" <<'PY' >"$TMP/out" 2>&1
import json, sys
j = json.load(open(sys.argv[1]))
rows = {r["name"]: r for r in j["tables"][-1]["rows"]}
bad = []
for line in open(sys.argv[2]):
    name, *nums = line.split()
    want = [int(x) for x in nums]
    r = rows.get(name)
    got = r and [r["count"] + r.get("untimed", 0) if "timed" not in r else r["count"], r["min"], r["max"], r["sum"]]
    if got != want or not all(type(x) is int for x in got):
        bad.append((name, got, want))
print(bad[:3] if bad else "ok", len(rows))
PY
check "report -f json: every row's count, min, max, sum exactly as the input ($(head -c 300 "$TMP/out"))" \
	grep -q '^ok ' "$TMP/out"
no_exp "report -f json" "$TMP/r.json"

"$KES" diff -f json "$A" "$B" >"$TMP/d.json"
eq "diff -f json: exit status" $? 0
python3 - "$TMP/d.json" "$TMP/a.rows" "$TMP/b.rows" <<'PY' >"$TMP/out" 2>&1
import json, sys
j = json.load(open(sys.argv[1]))
rows = {r["name"]: r for r in j["rows"]}
def side(path):
    return {l.split()[0]: [int(x) for x in l.split()[1:]] for l in open(path)}
a, b = side(sys.argv[2]), side(sys.argv[3])
bad = []
for name, r in rows.items():
    for s, want in (("a", a.get(name)), ("b", b.get(name))):
        if not want:
            continue
        got = [r["count_" + s], r["sum_" + s]]
        if got != [want[0], want[3]] or not all(type(x) is int or float(x).is_integer() for x in got):
            bad.append((name, s, got, want))
print(bad[:3] if bad else "ok")
PY
check "diff -f json: counts and sums of both runs exactly as the inputs ($(head -c 300 "$TMP/out"))" \
	grep -qx ok "$TMP/out"
no_exp "diff -f json" "$TMP/d.json"
summary
