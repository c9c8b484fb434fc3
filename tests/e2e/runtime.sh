#!/bin/sh
# sumsum is vCPU time (issue 14 item 4): the sum of the rows' times over
# every vCPU, which a 2-vCPU run makes about twice its length. The report
# says so ("of vCPU time", not "runtime") and puts the trace's wall span
# beside it: the first to the last KVM event, as trace-cmd report prints
# their timestamps.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
command -v python3 >/dev/null || skip "needs python3"
command -v trace-cmd >/dev/null || skip "needs trace-cmd"
need_kvm
need_tools

# (10000 exits a vCPU: some 60000 events a vCPU where kvm_exit fires, each read
# by trace-cmd and by report several times; under TCG, the lab host, 40000 took 90 s)
"$KES" record -q -o "$TMP/r.dat" -- "$EXITGEN" --io 10000 --vcpus 2 --quiet
eq "record: exit status" $? 0
span=$(trace-cmd report "$TMP/r.dat" 2>/dev/null | awk '/kvm_/ {
	for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i + 0; break }
	if (!n++) first = t; last = t } END { printf "%.6f\n", last - first }')
check "trace-cmd: the span ($span s) is positive" awk -v s="$span" 'BEGIN { exit !(s > 0) }'

"$KES" report -i "$TMP/r.dat" >"$TMP/p.txt"
line=$(grep '^sumsum' "$TMP/p.txt")
check "ppc: sumsum says vCPU time ($line)" sh -c "echo '$line' | grep -q 'of vCPU time'"
check "ppc: no 'runtime'" sh -c "! grep -q runtime '$TMP/p.txt'"
sum=$(echo "$line" | awk '{ print $2 }')
eq "ppc: the vCPU time is sumsum in seconds" "$(echo "$line" | sed -n 's/.*=> \([0-9.]*\) s of vCPU time.*/\1/p')" \
	"$(awk -v s="$sum" 'BEGIN { printf "%.2f", s / 1e6 }')"
eq "ppc: the wall span beside it is trace-cmd's" "$(echo "$line" | sed -n 's/.*trace spans \([0-9.]*\) s.*/\1/p')" \
	"$(awk -v s="$span" 'BEGIN { printf "%.2f", s }')"
check "two vCPUs: vCPU time > wall span" awk -v s="$sum" -v w="$span" 'BEGIN { exit !(s / 1e6 > w) }'

"$KES" report -i "$TMP/r.dat" -f json >"$TMP/r.json"
python3 - "$TMP/r.json" "$span" <<'PY' >"$TMP/out" 2>&1
import json, sys
j = json.load(open(sys.argv[1]))
span = float(sys.argv[2])
assert abs(j["wall_s"] - span) < 2e-6, (j["wall_s"], span)
t = j["tables"][-1]["total"]
assert t["vcpu_time_s"] == t["sum_ns"] / 1e9, (t["vcpu_time_s"], t["sum_ns"])
print("ok")
PY
check "json: wall_s = trace-cmd's span, vcpu_time_s = sum_ns ($(cat "$TMP/out"))" grep -qx ok "$TMP/out"

"$KES" report -i "$TMP/r.dat" -f table >"$TMP/t.txt"
check "table: vCPU time and wall span ($(grep -i 'vcpu time' "$TMP/t.txt"))" \
	grep -q "of vCPU time.*trace spans $(awk -v s="$span" 'BEGIN { printf "%.2f", s }') s" "$TMP/t.txt"

# diff: vCPU time of both runs, and both spans
"$KES" diff "$TMP/r.dat" "$TMP/r.dat" >"$TMP/dw.txt" 2>/dev/null
unwrap "$TMP/dw.txt" >"$TMP/d.txt" # lines wrapped at 80 columns, as one
w=$(awk -v s="$span" 'BEGIN { printf "%.2f", s }')
check "diff: vCPU time and both spans ($(grep '^sumsum' "$TMP/d.txt"))" \
	grep -q "of vCPU time; trace spans $w s -> $w s\$" "$TMP/d.txt"

# A saved report has no events: no span, and it says nothing about one.
"$KES" report -i tests/fixtures/ppc/report-2010-nopv.txt >"$TMP/s.txt"
check "summary input: vCPU time, no span ($(grep '^sumsum' "$TMP/s.txt"))" \
	sh -c "grep -q '^sumsum .* of vCPU time$' '$TMP/s.txt'"
summary
