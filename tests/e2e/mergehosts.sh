#!/bin/sh
# Merging reports (issue 32): inputs of two ISAs are refused (x86's "io" and
# arm64's "DABT_LOW" are not rows of one table; trace.dat and JSON alike),
# userspace exits (no ISA) merge with either; the same file given twice is
# refused whatever it is called (a hard link, a symlink, ./x), two copies are
# two inputs; report -f json says the hosts its inputs were recorded on
# (a trace.dat's UNAME option, as trace-cmd report --uname prints it; a
# nodename never set, "(none)", is no host), and a merge of JSON reports keeps
# them all, each once.
. "$(dirname "$0")/lib.sh"
X=tests/fixtures/lab/x86-svm/kvm-exitstat.dat
A=tests/fixtures/lab/arm64/kvm-exitstat.dat
U=tests/fixtures/real/exitgen-v6.dat
hosts() { python3 -c 'import json, sys; print(",".join(json.load(open(sys.argv[1]))["hosts"]))' "$1"; }
"$KES" report -i "$X" -f json >"$TMP/x.json" 2>/dev/null
"$KES" report -i "$A" -f json >"$TMP/a.json" 2>/dev/null
"$KES" report -i "$U" -f json >"$TMP/u.json" 2>/dev/null

# ---- two ISAs
for pair in "$TMP/x.json $TMP/a.json" "$X $A" "$TMP/x.json $A"; do
	set -- $pair
	"$KES" report -i "$1" -i "$2" >"$TMP/out" 2>"$TMP/err"
	eq "x86_svm + arm64 ($(basename "$1") $(basename "$2")): refused" $? 1
	check "... naming both ISAs ($(cat "$TMP/err"))" sh -c "grep -q \"arm64's\" '$TMP/err' && grep -q \"x86_svm's\" '$TMP/err'"
	eq "... and nothing on stdout" "$(wc -c <"$TMP/out")" 0
done
"$KES" diff "$TMP/x.json" "$TMP/a.json" >/dev/null 2>&1
check "diff of two ISAs is still allowed (side by side, not merged)" [ $? -ne 2 ]
"$KES" report -i "$TMP/x.json" -i "$TMP/u.json" -f json >"$TMP/xu.json" 2>"$TMP/err"
eq "kvm_exit of x86_svm + userspace exits (no ISA): merged" $? 0
eq "... under x86_svm" "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["isa"])' "$TMP/xu.json")" x86_svm
cp "$X" "$TMP/x2.dat"
"$KES" report -i "$X" -i "$TMP/x2.dat" -f csv >"$TMP/two.csv" 2>/dev/null
one=$("$KES" report -i "$X" -f csv 2>/dev/null | awk -F, '$1 == "io" { print $4 }')
eq "two copies of a recording: two inputs, summed" \
	"$(awk -F, '$1 == "io" { print $4 }' "$TMP/two.csv")" "$((one * 2))"

# ---- the same file twice
ln "$TMP/x.json" "$TMP/hard.json"
ln -s "$TMP/x.json" "$TMP/sym.json"
for second in "$TMP/x.json" "$TMP/hard.json" "$TMP/sym.json" "$TMP/./x.json"; do
	"$KES" report -i "$TMP/x.json" -i "$second" >"$TMP/out" 2>"$TMP/err"
	eq "the same JSON twice (as $(basename "$second")): refused" $? 1
	check "... saying so ($(cat "$TMP/err"))" grep -q "the same file" "$TMP/err"
done
"$KES" report -i "$X" "$X" >/dev/null 2>"$TMP/err"
eq "the same trace.dat twice: refused" $? 1
"$KES" report -i "$TMP/x.json" -i "$TMP/a.json" -i "$TMP/x.json" >/dev/null 2>"$TMP/err"
eq "refused before anything else is said: one line" "$(wc -l <"$TMP/err")" 1

# ---- hosts
want=$(trace-cmd report --uname "$U" 2>/dev/null | awk 'NR == 2 { print $2 }')
check "trace-cmd reads a host in $U ('$want')" [ -n "$want" ]
eq "report -f json of $U: hosts = its UNAME's node name" "$(hosts "$TMP/u.json")" "$want"
eq "a recording whose node name was never set ((none)): no host" "$(hosts "$TMP/x.json")" ""
python3 - "$TMP/u.json" "$TMP/u2.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["hosts"] = ["host-b"]
json.dump(r, open(sys.argv[2], "w"))
PY
"$KES" report -i "$TMP/u.json" -i "$TMP/u2.json" -f json >"$TMP/m.json" 2>"$TMP/err"
eq "a merge of two hosts' reports ($(head -c 200 "$TMP/err"))" $? 0
eq "... says both hosts, in input order" "$(hosts "$TMP/m.json")" "$want,host-b"
"$KES" report -i "$TMP/m.json" -i "$TMP/u2.json" -f json >"$TMP/m2.json" 2>/dev/null
eq "... each host once when merged again" "$(hosts "$TMP/m2.json")" "$want,host-b"
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); r["hosts"] = "x"; json.dump(r, open(sys.argv[2], "w"))' \
	"$TMP/u.json" "$TMP/bad.json"
"$KES" report -i "$TMP/bad.json" >/dev/null 2>"$TMP/err"
eq "hosts not an array: refused" $? 1
summary
