#!/bin/sh
# kvm-exitstat diff, end to end: two saved PPC reports (fixtures), a report
# against its own debugfs dump, per-vCPU dumps, the output formats, the SVG,
# refused inputs. diff-live.sh has the PV demo on real KVM.
. tests/e2e/lib.sh
FIX=tests/fixtures/ppc
A=$FIX/report-2010-nopv.txt
B=$FIX/report-2010-pv.txt

# csv FIELD NAME FILE: a field of the row NAME of a diff CSV (header names the fields)
csv() {
	awk -F, -v f="$1" -v n="$2" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == n { print $col[f]; exit }' "$3"
}

# --- two saved reports -------------------------------------------------------
$KES diff "$A" "$B" >"$TMP/table" 2>"$TMP/err"
eq "table: exit status" $? 0
check "table: csum line" grep -qx 'csum   13722728 -> 7149800 (-47.90%)' "$TMP/table"
check "table: sumsum and runtimes" \
	grep -qx 'sumsum 117420000.0 -> 90480000.0 (-22.94%) => ~1:57 -> ~1:30 of vCPU time' "$TMP/table"
check "table: top contributor" grep -q '^most of the change: EMULINST -39702759.0 us (147.4%), HALT' "$TMP/table"
check "table: EMULINST significant" grep -Eq '^EMULINST .* <0\.001 \*\*( |$)' "$TMP/table"
check "table: MMIO not significant" grep -Eq '^MMIO .* 0\.566( |$)' "$TMP/table"
eq "table: nothing on stderr" "$(cat "$TMP/err")" ""

$KES diff -f csv "$A" "$B" >"$TMP/csv"
eq "csv: 16 rows + header" "$(wc -l <"$TMP/csv")" 17
eq "csv: EMULINST count A" "$(csv count_a EMULINST "$TMP/csv")" 4953567
eq "csv: EMULINST count B" "$(csv count_b EMULINST "$TMP/csv")" 1850000
eq "csv: EMULINST mark" "$(csv mark EMULINST "$TMP/csv")" '**'
eq "csv: EMULINST p" "$(csv p_value EMULINST "$TMP/csv")" 1.500922468e-09
eq "csv: MMIO p" "$(csv p_value MMIO "$TMP/csv")" 0.5661989363
eq "csv: HALT share of change" "$(csv share_pct HALT "$TMP/csv")" -63.71917595
eq "csv: unit" "$(csv unit MMIO "$TMP/csv")" us

$KES diff -u ns -f csv "$A" "$B" >"$TMP/csv-ns"
eq "csv ns: EMULINST avg A" "$(csv avg_a EMULINST "$TMP/csv-ns")" 12907.41783

$KES diff -f json "$A" "$B" >"$TMP/json"
eq "json: exit status" $? 0
check "json: total" grep -q '"total": {"count_a": 13722728, "count_b": 7149800, "sum_a": 117420000, "sum_b": 90480000,' "$TMP/json"
check "json: top" grep -q '"top": \[{"name": "EMULINST", "vcpu": -1, "delta_sum": -39702759,' "$TMP/json"
if command -v python3 >/dev/null 2>&1; then
	check "json: parses" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["rows"]) == 16 and d["unit"] == "us"' "$TMP/json"
fi

$KES diff -f ppc "$A" "$B" >"$TMP/ppc"
check "ppc: EMULINST line" grep -q '^EMULINST count 4953567 -> 1850000 (-62.65%) max 3708.0 -> 3650.0 sum 63937759.0 -> 24235000.0 avg 12.9074 -> 13.1000 (+1.49%) stddev 37.267 -> 36.870 % 54.45 -> 26.78 p <0.001 \*\*$' "$TMP/ppc"
check "ppc: sumsum" grep -qx 'sumsum 117420000 -> 90480000 (-22.94%) => ~1:57 -> ~1:30 of vCPU time' "$TMP/ppc"

# --- a report against the debugfs dump of the same run: nothing changed -------
$KES diff -f csv "$A" "$FIX/vm2187_vcpu0_timing" >"$TMP/same"
eq "same run: exit status" $? 0
eq "same run: rows that changed" "$(awk -F, 'NR > 1 && ($3 != "both" || $16 != 0 || $22 != 0)' "$TMP/same" | wc -l)" 0
eq "same run: nothing significant" "$(awk -F, 'NR > 1 && $21 != ""' "$TMP/same" | wc -l)" 0

# --- SVG ----------------------------------------------------------------------
$KES diff "$A" "$B" --svg "$TMP/d.svg" >/dev/null
eq "svg: exit status" $? 0
check "svg: an SVG document" grep -q '^<svg xmlns="http://www.w3.org/2000/svg"' "$TMP/d.svg"
check "svg: ends" grep -qx '</svg>' "$TMP/d.svg"
eq "svg: two bars per row in each of three panels" "$(grep -c '<rect class="bar"' "$TMP/d.svg")" 96
check "svg: no script" sh -c "! grep -qi '<script' '$TMP/d.svg'"
if command -v rsvg-convert >/dev/null 2>&1; then
	check "svg: renders" rsvg-convert -o "$TMP/d.png" "$TMP/d.svg"
fi

# --- per-vCPU: dumps of two vCPUs on each side ----------------------------------
dump() { # vcpu0-count vcpu1-count
	printf '==> vm9_vcpu0_timing <==\ntype\tcount\tmin\tmax\tsum\tsum_squared\n'
	printf '        MMIO\t%d\t10\t30\t%d\t%d\n' "$1" $(($1 * 20)) $(($1 * 450))
	printf '\n==> vm9_vcpu1_timing <==\ntype\tcount\tmin\tmax\tsum\tsum_squared\n'
	printf '        MMIO\t%d\t10\t30\t%d\t%d\n' "$2" $(($2 * 20)) $(($2 * 450))
}
dump 100 50 >"$TMP/va"
dump 80 70 >"$TMP/vb"
$KES diff --per-vcpu -f csv "$TMP/va" "$TMP/vb" >"$TMP/pv"
eq "per-vcpu: exit status" $? 0
eq "per-vcpu: vcpu 0 row" "$(awk -F, '$1 == "MMIO" && $2 == 0 { print $4 "/" $10 }' "$TMP/pv")" 100/80
eq "per-vcpu: vcpu 1 row" "$(awk -F, '$1 == "MMIO" && $2 == 1 { print $4 "/" $10 }' "$TMP/pv")" 50/70

# --- refused ----------------------------------------------------------------------
$KES diff --per-vcpu "$A" "$B" >/dev/null 2>"$TMP/err"
eq "per-vcpu on single reports: status" $? 1
check "per-vcpu on single reports: says why" grep -q -- "--per-vcpu: '$A' has no per-thread" "$TMP/err"
$KES diff "$A" "$TMP/missing" >/dev/null 2>"$TMP/err"
eq "missing B: status" $? 1
eq "missing B: one line" "$(wc -l <"$TMP/err")" 1
check "missing B: names it" grep -q "$TMP/missing" "$TMP/err"
: >"$TMP/empty"
$KES diff "$TMP/empty" "$B" >/dev/null 2>"$TMP/err"
eq "empty A: status" $? 1
eq "empty A: one line" "$(wc -l <"$TMP/err")" 1
printf 'MMIO count 10 min 1 max 5\n' >"$TMP/cut"
$KES diff "$A" "$TMP/cut" >/dev/null 2>"$TMP/err"
eq "cut row: status" $? 1
check "cut row: says where" grep -q "line 1: MMIO row cut short" "$TMP/err"
head -c 3000 /dev/urandom >"$TMP/noise"
$KES diff "$TMP/noise" "$B" >/dev/null 2>"$TMP/err"
eq "binary noise: status" $? 1
$KES diff "$A" >/dev/null 2>&1
eq "one input: usage status" $? 2
$KES diff -f xml "$A" "$B" >/dev/null 2>&1
eq "unknown format: usage status" $? 2
$KES diff -f json "$A" "$TMP/missing" >"$TMP/jerr" 2>/dev/null
check "json error object" grep -q '^{"error": ' "$TMP/jerr"
summary
