#!/bin/sh
# count means every exit (issue 14 item 1): table, csv, json, top and diff
# all say count = exitgen's count (the last exit of each vCPU, which the VMM
# never re-enters after, included), with `timed` for those with a handling
# time; the PPC format keeps count = timed (avg = sum / count) and says per
# row what it left out; the header's "N exits ... not timed" is the table's
# own; no row has count 0.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
command -v python3 >/dev/null || skip "needs python3"
need_kvm
need_tools

"$KES" record -q -o "$TMP/r.dat" -- "$EXITGEN" --io 2000 --mmio 500 --hlt 50 --vcpus 2 >"$TMP/eg.out"
eq "record: exit status" $? 0
R=$TMP/r.dat
# KVM_EXIT_* rows: the userspace exits, whether or not kvm_exit fired here.
US="--source userspace"

# table: COUNT and TIMED columns
"$KES" report -i "$R" -f table $US >"$TMP/t.txt"
hdr=$(awk '$1 == "REASON" { for (i = 1; i <= NF; i++) c[$i] = i; print c["COUNT"], c["TIMED"]; exit }' "$TMP/t.txt")
check "table: COUNT and TIMED columns ($(grep '^REASON' "$TMP/t.txt"))" test "${hdr#* }" -gt 0
cc=${hdr% *} tc=${hdr#* }
for r in IO MMIO HLT; do
	eq "table: KVM_EXIT_$r COUNT = exitgen's" "$(awk -v n=KVM_EXIT_$r -v c="$cc" '$1 == n { print $c }' "$TMP/t.txt")" \
		"$(eg_total KVM_EXIT_$r "$TMP/eg.out")"
done
eq "table: KVM_EXIT_IO TIMED = COUNT - 2 (the two vCPUs' last exits)" \
	"$(awk -v t="$tc" '$1 == "KVM_EXIT_IO" { print $t }' "$TMP/t.txt")" \
	"$(($(eg_total KVM_EXIT_IO "$TMP/eg.out") - 2))"
check "table: no row with COUNT 0" awk -v c="$cc" '$1 ~ /^(KVM_EXIT_|TIMEINGUEST)/ && $c == 0 { exit 1 }' "$TMP/t.txt"

# csv: count, and timed appended
"$KES" report -i "$R" -f csv $US >"$TMP/r.csv"
python3 - "$TMP/r.csv" "$TMP/eg.out" <<'PY' >"$TMP/out" 2>&1
import csv, sys
eg = open(sys.argv[2]).read().split("\n")
tot = [l.split() for l in eg if l.startswith("total")][0]
want = {tot[i]: int(tot[i + 1]) for i in range(1, len(tot) - 1, 2) if tot[i].startswith("KVM_EXIT")}
rows = list(csv.DictReader(open(sys.argv[1])))
head = open(sys.argv[1]).readline().strip().split(",")
assert head[:17] == "name,tid,vcpu,count,untimed,min,max,sum,avg,stddev,pct,p50,p90,p99,p999,unit,sub".split(","), head
assert "timed" in head[17:], head
for r in rows:
    n, t, u = int(r["count"]), int(r["timed"]), int(r["untimed"])
    assert n > 0, ("count 0", r["name"])
    assert n == t + u, (r["name"], n, t, u)
    if r["name"] in want and want[r["name"]]:
        assert n == want[r["name"]], (r["name"], n, want[r["name"]])
print("ok")
PY
check "csv: count = exitgen's = timed + untimed ($(cat "$TMP/out"))" grep -qx ok "$TMP/out"

# json
"$KES" report -i "$R" -f json $US >"$TMP/r.json"
python3 - "$TMP/r.json" "$TMP/eg.out" <<'PY' >"$TMP/out" 2>&1
import json, sys
tot = [l.split() for l in open(sys.argv[2]) if l.startswith("total")][0]
want = {tot[i]: int(tot[i + 1]) for i in range(1, len(tot) - 1, 2) if tot[i].startswith("KVM_EXIT")}
j = json.load(open(sys.argv[1]))
t = j["tables"][-1]
for r in t["rows"]:
    assert r["count"] > 0 and r["count"] == r["timed"] + r["untimed"], r["name"]
    if want.get(r["name"]):
        assert r["count"] == want[r["name"]], (r["name"], r["count"])
assert t["total"]["count"] == sum(r["count"] for r in t["rows"])
assert t["total"]["timed"] == sum(r["timed"] for r in t["rows"])
assert j["untimed"] == sum(r["untimed"] for r in t["rows"]), (j["untimed"],)
print("ok")
PY
check "json: count = exitgen's = timed + untimed, totals add up ($(cat "$TMP/out"))" grep -qx ok "$TMP/out"

# kvm_exit, where it fires: every reason its rule's count, timed + untimed = count
"$KES" report -i "$R" -f csv --source exits >"$TMP/x.csv"
exits_exact "kvm_exit" "$TMP/x.csv" "$TMP/eg.out"
if [ -n "$EXIT_RULES" ]; then
	check "kvm_exit: count = timed + untimed on every row" awk -F, 'NR > 1 && $4 != $5 + $18 { exit 1 }' "$TMP/x.csv"
	eq "kvm_exit: untimed = one per vCPU (its last exit)" \
		"$(awk -F, 'NR > 1 && $2 == -1 && $17 == "" { u += $5 } END { print u }' "$TMP/x.csv")" 2
fi

# diff of the run with itself: the same counts, csum = the table's total
"$KES" diff "$R" "$R" -f csv $US >"$TMP/d.csv" 2>/dev/null
for r in IO MMIO HLT; do
	eq "diff: KVM_EXIT_$r count_a = exitgen's" "$(awk -F, -v n=KVM_EXIT_$r '$1 == n { print $4 }' "$TMP/d.csv")" \
		"$(eg_total KVM_EXIT_$r "$TMP/eg.out")"
done
"$KES" diff "$R" "$R" $US >"$TMP/d.txt" 2>/dev/null
eq "diff csum = report's total count" "$(awk '$1 == "csum" { print $2 }' "$TMP/d.txt")" \
	"$(awk -v c="$cc" '$1 == "Total" { print $c }' "$TMP/t.txt")"

# ppc: count = timed, so avg = sum / count; a '#' line per row says what is left out
"$KES" report -i "$R" $US >"$TMP/p.txt"
for r in IO MMIO HLT; do
	n=$(awk -v n=KVM_EXIT_$r '$1 == n && $2 == "count" { print $3 }' "$TMP/p.txt")
	u=$(awk -v n="KVM_EXIT_$r:" '$1 == "#" && $2 == n { print $3 }' "$TMP/p.txt")
	eq "ppc: KVM_EXIT_$r count + its '#' untimed = exitgen's" "$((n + ${u:-0}))" "$(eg_total KVM_EXIT_$r "$TMP/eg.out")"
done
check "ppc: a '#' line for KVM_EXIT_IO's 2 untimed exits ($(grep '^# KVM_EXIT_IO' "$TMP/p.txt"))" \
	grep -q '^# KVM_EXIT_IO: 2 exits not timed' "$TMP/p.txt"
eq "ppc: csum = the rows' counts" "$(awk '$1 == "csum" { print $2 }' "$TMP/p.txt")" \
	"$(awk '$2 == "count" { s += $3 } END { print s }' "$TMP/p.txt")"
eq "ppc: the header's not-timed = the rows' '#' lines" \
	"$(sed -n 's/^# \([0-9]*\) exits at the trace edges.*/\1/p' "$TMP/p.txt")" \
	"$(awk '$1 == "#" && $2 ~ /:$/ && $4 == "exits" { s += $3 } $1 == "#" && $2 ~ /:$/ && $4 == "exit" { s += $3 } END { print s }' "$TMP/p.txt")"

# the PPC report read back (diff of a saved report): its '#' lines count again
"$KES" report -i "$TMP/p.txt" -f csv >"$TMP/back.csv"
for r in IO MMIO HLT; do
	eq "ppc read back: KVM_EXIT_$r count = exitgen's" "$(awk -F, -v n=KVM_EXIT_$r '$1 == n { print $4 }' "$TMP/back.csv")" \
		"$(eg_total KVM_EXIT_$r "$TMP/eg.out")"
done
"$KES" diff "$TMP/p.txt" "$R" -f csv $US >"$TMP/pd.csv" 2>/dev/null
eq "diff of the saved report and the recording: the same KVM_EXIT_IO count" \
	"$(awk -F, '$1 == "KVM_EXIT_IO" { print $4 "=" $10 }' "$TMP/pd.csv")" \
	"$(eg_total KVM_EXIT_IO "$TMP/eg.out")=$(eg_total KVM_EXIT_IO "$TMP/eg.out")"

# top --once: TOTAL of a fresh run
"$EXITGEN" --io 2000 --hlt 50 --vcpus 2 --start-on-usr1 >"$TMP/eg2.out" 2>&1 &
E=$!
wait_line "$TMP/eg2.out" '^exitgen: pid'
observe "$E" timeout 60 "$KES" top --once -d 30 $US -p "$E" >"$TMP/once" 2>&1
wait $E
eq "top --once: KVM_EXIT_IO TOTAL = exitgen's" "$(awk '$1 == "KVM_EXIT_IO" { print $2 }' "$TMP/once")" \
	"$(eg_total KVM_EXIT_IO "$TMP/eg2.out")"

# A table's header counts its own untimed exits, not the other table's: one
# thread with kvm_exit pairs, then an IO exit whose userspace exit is never
# re-entered (both open at the end: 1 untimed in each table).
"$MKDAT" -o "$TMP/mix.dat" -f tests/fixtures/formats/x86 - <<'EV'
0 1000 4101 kvm:kvm_entry vcpu_id=0
0 2000 4101 kvm:kvm_exit exit_reason=12 isa=1 vcpu_id=0
0 3000 4101 kvm:kvm_entry vcpu_id=0
0 4000 4101 kvm:kvm_exit exit_reason=12 isa=1 vcpu_id=0
0 5000 4101 kvm:kvm_entry vcpu_id=0
0 6000 4101 kvm:kvm_exit exit_reason=30 isa=1 vcpu_id=0
0 6500 4101 kvm:kvm_fpu load=0
0 7000 4101 kvm:kvm_userspace_exit reason=2 errno=0
EV
eq "mkdat: exit status" $? 0
"$KES" report -i "$TMP/mix.dat" >"$TMP/mix.txt"
check "mixed: the kvm_exit table is shown" grep -q 'exits from kvm_exit' "$TMP/mix.txt"
check "mixed: header counts the shown table's 1 untimed exit ($(grep 'not timed' "$TMP/mix.txt" | head -1))" \
	grep -q '^# 1 exits at the trace edges' "$TMP/mix.txt"
"$KES" report -i "$TMP/mix.dat" -f json >"$TMP/mix.json"
eq "mixed: json untimed is the table's" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["untimed"])' "$TMP/mix.json")" 1
summary
