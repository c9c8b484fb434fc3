#!/bin/sh
# report --slowest N against an independent pairing: python reads the text
# of real lab traces (trace-cmd report of a Debian guest kernel's KVM under
# QEMU, tests/fixtures/lab/), pairs each kvm_exit with the next kvm_entry
# of its thread (an exit followed by another exit, or by the end, has no
# time) and sorts by time, slowest first; equal times: the earlier exit
# first, then the lower tid. The tool's N rows must be exactly those, in
# that order, with the same timestamp, thread, vCPU, reason and time (csv
# and table); json must say the same; inputs without single exits are refused.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "needs python3"

expect() { # FILE N -> "ts_us,tid,vcpu,reason,time_us" lines
	python3 - "$1" "$2" <<'PY'
import re, sys
path, n = sys.argv[1], int(sys.argv[2])
line_re = re.compile(r'^\s*(.+)-(\d+)\s+\[\d+\]\s+(?:\S+\s+)?(\d+)\.(\d+):\s+(kvm_exit|kvm_entry):\s+(.*)$')
open_exit, rows = {}, []
for l in open(path):
    m = line_re.match(l)
    if not m:
        continue
    tid = int(m.group(2)); ts = int(m.group(3)) * 1000000 + int(m.group(4).ljust(6, '0')[:6])
    ev, rest = m.group(5), m.group(6)
    if ev == 'kvm_exit':
        vcpu = re.search(r'vcpu (\d+)', rest)
        # x86: "reason npf"; arm64: "TRAP: HSR_EC: 0x0024 (DABT_LOW)" is TRAP_DABT_LOW, "IRQ: ..." IRQ
        reason = re.search(r'reason (\S+)', rest)
        arm = re.match(r'(TRAP|IRQ): HSR_EC: \S+ \((\w+)\)', rest)
        name = reason.group(1) if reason else arm.group(1) + '_' + arm.group(2) if arm and arm.group(1) == 'TRAP' else arm.group(1) if arm else None
        open_exit[tid] = (ts, int(vcpu.group(1)) if vcpu else -1, name)
    elif tid in open_exit:
        ets, vcpu, reason = open_exit.pop(tid)
        v = re.search(r'vcpu (\d+)', rest)
        rows.append((ts - ets, ets, tid, int(v.group(1)) if v else vcpu, reason))
rows.sort(key=lambda r: (-r[0], r[1], r[2], r[3], r[4]))
for d, ets, tid, vcpu, reason in rows[:n]:
    print("%d.%06d,%d,%d,%s,%d.000" % (ets // 1000000, ets % 1000000, tid, vcpu, reason, d))
PY
}

alltie=0
for f in tests/fixtures/lab/x86-svm/trace-cmd.txt tests/fixtures/lab/arm64/trace-cmd.txt; do
	[ -f "$f" ] || { bad "fixture $f missing"; continue; }
	n=25
	expect "$f" $n >"$TMP/want"
	eq "$f: python found $n exits" "$(wc -l <"$TMP/want" | tr -d ' ')" $n
	# ties exist (times in whole us), so the order of equal times is tested too
	alltie=$((alltie + $(cut -d, -f5 "$TMP/want" | uniq -d | wc -l)))
	$KES report --slowest $n -f csv "$f" >"$TMP/csv" 2>"$TMP/err"
	eq "$f: report --slowest -f csv exits 0 ($(head -c 200 "$TMP/err"))" "$?" 0
	# ts is seconds with 9 decimals: the text's are whole microseconds
	awk -F, 'NR > 1 { sub(/000$/, "", $3); print $3 "," $4 "," $5 "," $7 "," $11 }' "$TMP/csv" >"$TMP/got"
	check "$f: the $n rows, their order and times ($(diff "$TMP/want" "$TMP/got" | head -4 | tr '\n' ' '))" \
		cmp -s "$TMP/want" "$TMP/got"
	eq "$f: ranks 1..$n" "$(awk -F, 'NR > 1 { s = s $1 " " } END { print s }' "$TMP/csv")" \
		"$(seq 1 $n | tr '\n' ' ')"
	# the table: the same rows (reason, time, timestamp, vcpu, tid), at most 80 columns
	COLUMNS= $KES report --slowest $n -f table "$f" >"$TMP/table"
	awk 'f { if ($4 == "-") $4 = -1; print $3 "," $5 "," $4 "," $1 "," $2 } /^REASON/ { f = 1 }' "$TMP/table" |
		sed 's/000,/,/' >"$TMP/tgot"
	check "$f: table rows as csv ($(diff "$TMP/want" "$TMP/tgot" | head -4 | tr '\n' ' '))" \
		cmp -s "$TMP/want" "$TMP/tgot"
	eq "$f: table within 80 columns" "$(awk 'length($0) > 80' "$TMP/table" | wc -l | tr -d ' ')" 0
	# json: ns and ts_ns exact integers, the same first row
	$KES report --slowest $n -f json "$f" >"$TMP/json"
	python3 - "$TMP/json" "$TMP/want" <<'PY' >"$TMP/jcheck" 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
want = [l.strip().split(',') for l in open(sys.argv[2])]
assert d["schema"] == "kvm-exitstat-slowest/1"
assert len(d["slowest"]) == len(want), len(d["slowest"])
for r, w in zip(d["slowest"], want):
    s, us = w[0].split('.')
    assert r["ts_ns"] == int(s) * 10**9 + int(us) * 1000, (r, w)
    assert r["tid"] == int(w[1]) and (r["vcpu"] if r["vcpu"] is not None else -1) == int(w[2]) and r["name"] == w[3], (r, w)
    assert r["ns"] == int(w[4].split('.')[0]) * 1000, (r, w)
print("ok")
PY
	eq "$f: json agrees ($(tail -1 "$TMP/jcheck"))" "$(tail -1 "$TMP/jcheck")" ok
done

# times in whole us: equal times exist, so their order is tested too
check "the slowest hold equal times ($alltie)" [ "$alltie" -gt 0 ]
# more than there are: every timed exit once
f=tests/fixtures/lab/x86-svm/trace-cmd.txt
all=$(expect "$f" 100000 | wc -l | tr -d ' ')
got=$($KES report --slowest 100000 -f csv "$f" | tail -n +2 | wc -l | tr -d ' ')
eq "--slowest past the count lists every timed exit" "$got" "$all"
# the same trace as trace.dat (ns timestamps): the same exits first
$KES report --slowest 3 -f csv tests/fixtures/lab/x86-svm/trace-cmd.dat | tail -n +2 | cut -d, -f4,7 >"$TMP/dat"
expect "$f" 3 | cut -d, -f2,4 >"$TMP/txt"
check "trace.dat and its text agree on the 3 slowest" cmp -s "$TMP/dat" "$TMP/txt"
# refusals: one line on stderr, status 1
$KES report --slowest 0 "$f" >/dev/null 2>"$TMP/e0"
eq "--slowest 0 refused (a usage error)" "$?" 2
$KES report --slowest 5 tests/fixtures/ppc/$(ls tests/fixtures/ppc | grep -m1 -v PROVENANCE) >/dev/null 2>"$TMP/e1"
eq "--slowest of a saved report refused ($(cat "$TMP/e1"))" "$?" 1
eq "one line" "$(wc -l <"$TMP/e1" | tr -d ' ')" 1
$KES report --slowest 5 --per-vcpu "$f" >/dev/null 2>"$TMP/e2"
eq "--slowest with --per-vcpu refused ($(cat "$TMP/e2"))" "$?" 2
summary
