#!/bin/sh
# JSON reports merged (report -i a.json -i b.json) and names in every format
# (issue 29, class 5). Each hostile report is one change to a real one
# (tests/fixtures/json/exitgen-v6.json: `report -f json` of the real
# recording tests/fixtures/real/exitgen-v6.dat) by tests/tools/craftjson.py;
# the committed files in tests/fixtures/bad/json/ must be what it makes
# (KES_REGEN=1 rewrites them). Before the fix:
#   - a report in ticks (ts_unit_known false) merged with one in us into a
#     table labelled us, exit 0, no word;
#   - a merged "events" total wrapped (766 + 2^64 - 1 -> 765), and so did a
#     row's count;
#   - a name holding ESC[2J ESC]0;pwn BEL reached the terminal raw with -f csv.
# Now: refused in one line; and every renderer writes control bytes escaped
# (CSV, table, ppc: \xNN; JSON: \u00NN, the same string to a JSON reader;
# SVG: \xNN text; diff's formats the same). Needs neither root nor KVM.
. tests/e2e/lib.sh
FIX=tests/fixtures
BAD=$FIX/bad/json
BASE=$FIX/json/exitgen-v6.json
TICKS_TXT=$FIX/tsforms/svm-rawts.txt
CRAFT="python3 tests/tools/craftjson.py"
command -v python3 >/dev/null 2>&1 || skip "needs python3"
ESC=$(printf '\033')
BEL=$(printf '\007')

# json NAME MUTATION...: $BAD/NAME.json from the base; its path in $J.
json() {
	n=$1.json
	shift
	$CRAFT "$BASE" "$TMP/$n" "$@" >"$TMP/craft.log" 2>&1 || { bad "making $n: $(cat "$TMP/craft.log")"; return 1; }
	[ "${KES_REGEN:-0}" != 1 ] || cp "$TMP/$n" "$BAD/$n"
	check "$BAD/$n is what craftjson.py makes" cmp -s "$TMP/$n" "$BAD/$n"
	J=$BAD/$n
}
run() {
	"$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	rc=$?
}
# refused DESC REGEX CMD...: one line on stderr matching REGEX, nothing on stdout, status 1..127.
refused() {
	d=$1 re=$2
	shift 2
	run "$@"
	why=
	[ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] || why="$why; status $rc"
	[ ! -s "$TMP/out" ] || why="$why; stdout: $(head -c 160 "$TMP/out")"
	[ "$(wc -l <"$TMP/err")" -eq 1 ] || why="$why; $(wc -l <"$TMP/err") lines on stderr"
	grep -Eq "^kvm-exitstat: .*($re)" "$TMP/err" || why="$why; stderr '$(head -c 200 "$TMP/err")'"
	if [ -z "$why" ]; then ok; else bad "$d$why"; fi
}
csv_col() { awk -F, -v r="$2" -v c="$3" '$1 == r { print $c }' "$1"; }

# The base merged with a copy of itself (the same file twice is refused: issue
# 32): counts doubled, the same unit (the merge works).
cp "$BASE" "$TMP/base2.json"
run "$KES" report -i "$BASE" -i "$TMP/base2.json" -f csv
eq "base + base: status ($(head -c 120 "$TMP/err"))" "$rc" 0
eq "base + base: KVM_EXIT_HLT doubled" "$(csv_col "$TMP/out" KVM_EXIT_HLT 4)" 16
eq "base + base: in us" "$(csv_col "$TMP/out" KVM_EXIT_HLT 16)" us

# --- units --------------------------------------------------------------------------
json unit-ticks unit-ticks
refused "a ticks report merged with a us one" "ticks of a clock of unknown unit.*in ns|in ns.*ticks of a clock" \
	"$KES" report -i "$BASE" -i "$J"
refused "the same, the other order" "ticks of a clock of unknown unit|in ns" "$KES" report -i "$J" -i "$BASE"
refused "diff of a ticks report and a us one" "unknown unit" "$KES" diff "$J" "$BASE"
cp "$J" "$TMP/j2.json"
run "$KES" report -i "$J" -i "$TMP/j2.json" -f csv
eq "ticks + ticks: status" "$rc" 0
eq "ticks + ticks: the table is in ticks" "$(csv_col "$TMP/out" KVM_EXIT_HLT 16)" ticks
# a real ticks report (integer timestamps, no --ts-unit) against a real us one; traces too
"$KES" report -i "$TICKS_TXT" -f json >"$TMP/ticks.json" 2>/dev/null
refused "a real ticks report merged with a us one" "unknown unit" "$KES" report -i "$TMP/ticks.json" -i "$BASE"
refused "a trace in ticks merged with a trace in ns" "unknown unit" \
	"$KES" report -i "$TICKS_TXT" -i "$FIX/real/exitgen-v6.dat"
json unit-disagree unit-disagree
refused "unit ticks with ts_unit_known true" "unit and ts_unit_known disagree" "$KES" report -i "$J"

# --- sums ---------------------------------------------------------------------------
json events-max events 18446744073709551615
refused "events 766 + 2^64 - 1" "events.*2\\^64" "$KES" report -i "$BASE" -i "$J"
json hlt-count-max row-count KVM_EXIT_HLT 18446744073709551614
refused "a row of 2^64 - 2 among others: the table's total" "add up past 2\\^64" "$KES" report -i "$J"
refused "a row's count 8 + 2^64 - 2" "row 'KVM_EXIT_HLT'.*2\\^64" "$KES" report -i "$BASE" -i "$J"
json rows-2e63 row-count KVM_EXIT_HLT 9223372036854775808 row-count KVM_EXIT_MMIO 9223372036854775808
refused "two rows of 2^63: the table's total" "add up past 2\\^64" "$KES" report -i "$J"

# --- names: every renderer escapes control bytes -----------------------------------------
json name-esc row-name KVM_EXIT_HLT '\x1b[2J\x1b]0;pwn\x07HLT'
raw() { grep -q "[$ESC$BEL]" "$1"; }
for f in csv table ppc json; do
	run "$KES" report -i "$J" -f $f
	eq "name with ESC and BEL, -f $f: status" "$rc" 0
	check "name with ESC and BEL, -f $f: no raw ESC or BEL" sh -c "! grep -q '[$ESC$BEL]' '$TMP/out'"
done
run "$KES" report -i "$J" -f csv
check "-f csv: the name as \\xNN" grep -Fq '\x1b[2J\x1b]0;pwn\x07HLT,' "$TMP/out"
run "$KES" report -i "$J" -f table
check "-f table: the name as \\xNN" grep -Fq '\x1b[2J\x1b]0;pwn\x07HLT' "$TMP/out"
run "$KES" report -i "$J" -f json
check "-f json: the same string to a JSON reader" python3 -c '
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
sys.exit(0 if any(r["name"] == "\x1b[2J\x1b]0;pwn\x07HLT" for t in d["tables"] for r in t["rows"]) else 1)' "$TMP/out"
"$KES" report -i "$J" --svg "$TMP/r.svg" >/dev/null 2>&1
check "--svg: XML, no raw ESC or BEL" sh -c "! grep -q '[$ESC$BEL]' '$TMP/r.svg' && python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' '$TMP/r.svg'"
for f in csv table ppc json; do
	run "$KES" diff "$BASE" "$J" -f $f
	check "diff -f $f: no raw ESC or BEL ($rc)" sh -c "[ $rc -eq 0 ] && ! grep -q '[$ESC$BEL]' '$TMP/out'"
done
"$KES" diff "$BASE" "$J" --svg "$TMP/d.svg" >/dev/null 2>&1
check "diff --svg: no raw ESC or BEL" sh -c "! grep -q '[$ESC$BEL]' '$TMP/d.svg'"
# --slowest -f csv names threads and exits (a text whose exit name holds ESC).
run "$KES" report -i "$FIX/bad/text/exit-esc.txt" --source exits --slowest 5 -f csv
check "--slowest -f csv: no raw ESC ($rc)" sh -c "[ $rc -eq 0 ] && ! grep -q '$ESC' '$TMP/out'"
summary
