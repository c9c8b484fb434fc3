#!/bin/sh
# trace-cmd report's timestamp forms (issue 13): --ts-diff's "(+N)" column,
# -t's 9 decimals kept to the ns, and integer timestamps (a clock not in ns
# such as x86-tsc, counter, or --raw-ts: "%12d:", glued to "[cpu]" at 12
# digits) read as ticks of unknown unit unless --ts-unit says what one is.
# The samples (tests/fixtures/tsforms, PROVENANCE.md there) are Debian
# trace-cmd 3.1.6's reports of the lab's own recordings; every expected row
# comes from the independent reader tests/tools/ref-trace.py over the text.
. tests/e2e/lib.sh
T=tests/fixtures/tsforms
REF=tests/tools/ref-trace.py

# 1. every sample exactly, its rows in its own unit (ticks for the integer ones)
DIR=$T KES=$KES sh tests/e2e/published.sh >"$TMP/pub" 2>&1
check "published.sh over $T: $(grep FAIL "$TMP/pub" | head -n 2 | tr '\n' ' ')" \
	grep -q '^6 passed, 0 failed$' "$TMP/pub"

# 2. --raw-ts of a ns clock is ns: with --ts-unit ns it is -t's report, to the ns
"$KES" report -i $T/svm-rawts.txt --ts-unit ns -f json -u ns >"$TMP/ns.json" 2>"$TMP/err"
eq "--ts-unit ns: the rows of -t (ns exact)" \
	"$(python3 $REF --compare $T/expected/svm-ns-tsdiff.json "$TMP/ns.json")" PASS
check "--ts-unit ns: no ticks warning" sh -c "! grep -q 'unknown unit' '$TMP/err'"
eq "--ts-unit ns: ts_unit_known" \
	"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ts_unit_known"])' "$TMP/ns.json")" True

# 3. a frequency: every timestamp to ns on its own (ts * 1e9 // hz), as the reference does
python3 $REF --hz 2100000000 $T/arm64-rawts-tsdiff.txt >"$TMP/exp21.json"
for u in 2100MHz 2.1GHz 2100000kHz; do
	"$KES" report -i $T/arm64-rawts-tsdiff.txt --ts-unit $u -f json -u ns >"$TMP/f.json" 2>/dev/null
	eq "--ts-unit $u: rows of ts * 1e9 // 2.1e9" \
		"$(python3 $REF --compare "$TMP/exp21.json" "$TMP/f.json")" PASS
done

# 4. without a unit: ticks, said in every format, never seconds
"$KES" report -i $T/svm-rawts.txt >"$TMP/ppc" 2>"$TMP/err"
check "ppc: times in ticks" grep -q '^# kvm-exitstat report: .*times in ticks' "$TMP/ppc"
check "ppc: the header says why" grep -q '^# warning: .*integers of unknown unit.*--ts-unit' "$TMP/ppc"
check "stderr says it" grep -q 'integers of unknown unit' "$TMP/err"
check "ppc: vCPU time in ticks, no seconds" grep -q '^sumsum [0-9]* => [0-9]* ticks of vCPU time (unit unknown)$' "$TMP/ppc"
"$KES" report -i $T/svm-rawts.txt -f csv >"$TMP/csv" 2>/dev/null
eq "csv: unit column" "$(awk -F, 'NR > 1 && $0 !~ /^#/ { print $16 }' "$TMP/csv" | sort -u)" ticks
"$KES" report -i $T/svm-rawts.txt -f json >"$TMP/t.json" 2>/dev/null
eq "json: unit, ts_unit_known, wall_s, vcpu_time_s" \
	"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["unit"], d["ts_unit_known"], d["wall_s"], d["tables"][0]["total"]["vcpu_time_s"])' "$TMP/t.json")" \
	"ticks False None None"
"$KES" report -i $T/svm-rawts.txt -f table >"$TMP/table" 2>/dev/null
unwrap "$TMP/table" >"$TMP/table1"
check "table: times in ticks" grep -q 'times in ticks' "$TMP/table1"
# --slowest: the timestamp as the trace prints it (an integer), the time in ticks
"$KES" report -i $T/svm-rawts.txt --slowest 1 -f csv >"$TMP/s.csv" 2>/dev/null
want=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(max(r["max"] for r in d["rows"] if r["name"] != "TIMEINGUEST"))' $T/expected/svm-rawts.json)
eq "--slowest in ticks: ts is an integer, time the largest (ref-trace.py)" \
	"$(awk -F, 'NR == 2 { print ($3 ~ /^[0-9]+$/), $11, $12 }' "$TMP/s.csv")" "1 $want ticks"

# 5. a unit where none is needed is said, not applied; a bad one is refused
"$KES" report -i $T/svm-ns-tsdiff.txt --ts-unit 2100MHz -f json -u ns >"$TMP/n.json" 2>"$TMP/err"
eq "--ts-unit on seconds: not applied" \
	"$(python3 $REF --compare $T/expected/svm-ns-tsdiff.json "$TMP/n.json")" PASS
check "--ts-unit on seconds: warned (JSON warnings)" grep -q 'ts-unit not applied' "$TMP/n.json"
for u in 2.1 GHz 0Hz 11GHz 1.5Hz cycles; do
	"$KES" report -i $T/svm-rawts.txt --ts-unit "$u" >/dev/null 2>"$TMP/err"
	rc=$?
	check "--ts-unit '$u' refused (rc $rc)" [ "$rc" -ne 0 ]
	eq "--ts-unit '$u': one line" "$(wc -l <"$TMP/err" | tr -d ' ')" 1
done

# 6. diff: ticks against seconds refused, both in ticks compared as counted, --ts-unit for both
"$KES" diff $T/svm-rawts.txt $T/svm-tsdiff.txt >"$TMP/d" 2>"$TMP/err"
rc=$?
check "diff ticks vs seconds refused (rc $rc)" [ "$rc" -ne 0 ]
check "diff ticks vs seconds: says --ts-unit" grep -q 'unknown unit.*--ts-unit' "$TMP/err"
COLUMNS=60 "$KES" diff $T/svm-rawts.txt $T/svm-rawts.txt >"$TMP/d" 2>/dev/null
check "diff ticks: times in ticks, never ms" grep -q '^times in ticks; ' "$TMP/d"
check "diff ticks: no ms/s cells" sh -c "! grep -Eq '[0-9](ms|s)( |\$)' '$TMP/d'"
want=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=[x for x in d["rows"] if x["name"]=="npf"][0]; print(r["sum"])' $T/expected/svm-ns-tsdiff.json)
"$KES" diff $T/svm-rawts.txt $T/svm-ns-tsdiff.txt --ts-unit ns -f json >"$TMP/d.json" 2>/dev/null
eq "diff --ts-unit ns: npf sum_a_ns (ref-trace.py over -t)" \
	"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=[x for x in d["rows"] if x["name"]=="npf"][0]; print(r["sum_a_ns"], r["sum_b_ns"] == r["sum_a_ns"])' "$TMP/d.json" 2>&1)" "$want True"

# 7. a trace.dat's clock (its TRACECLOCK option): a counter holds ticks too. The
# lab's arm64 recording with "[local] global counter" rewritten in place to
# "local global [counter]" (same length): trace-cmd itself then prints integers.
DAT=tests/fixtures/lab/arm64/kvm-exitstat.dat
python3 - "$DAT" "$TMP/counter.dat" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
old, new = b"[local] global counter", b"local global [counter]"
assert b.count(old) == 1
open(sys.argv[2], "wb").write(b.replace(old, new))
PY
"$KES" report -i "$DAT" -f json >"$TMP/l.json" 2>/dev/null
eq "a local-clock trace.dat: ts_unit_known" \
	"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["unit"], d["ts_unit_known"])' "$TMP/l.json")" "us True"
"$KES" report -i "$TMP/counter.dat" -f json >"$TMP/c.json" 2>/dev/null
check "counter trace.dat: the warning names the clock" grep -q 'trace clock counter' "$TMP/c.json"
if command -v trace-cmd >/dev/null 2>&1; then
	trace-cmd report -N -i "$TMP/counter.dat" >"$TMP/counter.txt" 2>/dev/null
	check "trace-cmd prints the counter's integers" grep -q '^ .*\] *[0-9]*: kvm_exit:' "$TMP/counter.txt"
	python3 $REF "$TMP/counter.txt" >"$TMP/cexp.json"
	eq "counter trace.dat: rows in ticks (ref-trace.py over trace-cmd's text)" \
		"$(python3 $REF --compare "$TMP/cexp.json" "$TMP/c.json")" PASS
	trace-cmd report -N -t -i "$DAT" >"$TMP/local-ns.txt" 2>/dev/null
	python3 $REF "$TMP/local-ns.txt" >"$TMP/nexp.json"
	"$KES" report -i "$TMP/counter.dat" --ts-unit ns -f json -u ns >"$TMP/cn.json" 2>/dev/null
	eq "counter trace.dat --ts-unit ns: the local clock's rows (-t, ns)" \
		"$(python3 $REF --compare "$TMP/nexp.json" "$TMP/cn.json")" PASS
	# a unit that changes the numbers (2 ns a tick), through the feed (fast path) and
	# through libtracecmd (KES_NO_FASTPATH=1), against ts * 1e9 // 5e8 over trace-cmd's integers
	python3 $REF --hz 500000000 "$TMP/counter.txt" >"$TMP/c500.json"
	for nf in 0 1; do
		KES_NO_FASTPATH=$nf "$KES" report -i "$TMP/counter.dat" --ts-unit 500MHz -f json -u ns \
			>"$TMP/cn$nf.json" 2>/dev/null
		eq "counter trace.dat --ts-unit 500MHz, KES_NO_FASTPATH=$nf: rows of ts * 1e9 // 5e8" \
			"$(python3 $REF --compare "$TMP/c500.json" "$TMP/cn$nf.json")" PASS
	done
else
	echo "SKIP: trace-cmd not installed: the counter trace.dat's rows not compared"
fi

summary
