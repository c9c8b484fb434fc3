#!/bin/sh
# top --slower-than USEC, perf kvm stat live --duration's semantics: with
# --once, one line per exit that took longer than USEC (strictly), halts
# left out, on stderr in perf's words "TS VM PID, vcpu N: REASON event took
# Nusec" with the thread. Checked against a recording of the same workload
# made at the same time by `record` (its own tracefs instance, same trace
# clock): every line is an exit of the recording with that timestamp,
# thread and time, and every exit of the recording over USEC inside top's
# window is a line. The VM is exitgen's pid, the threads its own (/proc).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
need_kvm
case $KES in /*) ;; *) KES=$PWD/$KES ;; esac
# The threshold: 40 us where an exit takes a few (KVM on the CPU itself). In
# the lab host (tests/lab/host.sh: KVM under QEMU's TCG) an exit takes some
# 50 us and one in a hundred 20 ms or more (the other vCPU's turn): there
# nearly every exit is over 40 us, more than top keeps a poll (it says how
# many it left out, in a line of its own), so the lines are the rarer ones.
US=40
[ "${LAB_HOST:-}" != 1 ] || US=1000
# A pass of some 4,400 exits a vCPU, so that every reason comes in each
# window, under TCG too; it runs until the recording is stopped (the VM is
# killed at the end), however long top takes to start.
"$EXITGEN" --io 4000 --mmio 400 --hlt 40 --vcpus 2 --seconds 300 --quiet >/dev/null 2>&1 &
E=$!
trap 'kill $E 2>/dev/null; rm -rf "$TMP"' EXIT
sleep 0.3
tasks=$(ls /proc/$E/task | tr '\n' ' ')
# The recording spans top's whole run: it starts first and is stopped after.
$KES record -q -o "$TMP/run.dat" -p $E >/dev/null 2>"$TMP/rec.err" &
R=$!
wait_traced $E
# Both views at once: the userspace exits (KVM_EXIT_*) and the default, which
# is kvm_exit's table where kvm_exit fires (the same where it does not).
$KES top --once -p $E -d 1.5 --slower-than $US --source userspace >"$TMP/out.u" 2>"$TMP/slow.u" &
TU=$!
$KES top --once -p $E -d 1.5 --slower-than $US >"$TMP/out.x" 2>"$TMP/slow.x"
eq "top --once --slower-than exits 0" "$?" 0
wait $TU
eq "top --once --slower-than --source userspace exits 0" "$?" 0
kill -INT $R
wait $R
eq "record exits 0 ($(head -c 200 "$TMP/rec.err"))" "$?" 0
kill $E 2>/dev/null
wait $E 2>/dev/null
rec_lost=$($KES report "$TMP/run.dat" | sed -n 's/^# lost events: \([0-9]*\).*/\1/p' | head -1)

# Two instances stamp the same event apart: each ring buffer takes its own
# timestamp, one after the other, and on this host (itself a guest) the
# host's vCPU can be preempted between the two writes: some 100 ns apart
# mostly, tens of us now and then, and most often for exactly the slow
# exits (preemption is what made them slow). So an exit matches one of the
# same thread whose start or end is within SKEW, and whose time is within
# SKEW; thresholds and the window's edges get SKEW of slack too. Under load
# (make check beside other builds) a skew past SKEW happens, and again most
# often for the slow exits: a preemption between the two writes of an
# exit's first event makes it slow in the recording (stamped first) and
# short in top. So up to 4 % of either side may go unmatched (at least 3),
# no more. Measured (2026-12-04, two niced busy loops beside the test, 15
# runs): 0-2 of 39-74 recorded exits unmatched (mean 0.4), 0-2 of 241-848
# lines; one CI run: 3 of 120. The bound was 2 % (at least 1): 2 of 15
# runs failed.
# In the lab host (QEMU's TCG runs its vCPUs one at a time) one of the two
# writes may wait for the other vCPU's turn: every line there had an
# endpoint within 11 us of its recorded exit, but the other one up to 15 ms
# apart (4 ms most often) in 2-10 % of the lines (6 runs). There the time
# may differ by TURN = 20 ms, and the thresholds get TURN of slack; the
# endpoint still SKEW (elsewhere TURN is SKEW).
# What either side says it lost it cannot show (top's header "lost N",
# report's "# lost events: N"): each lost event may hide one exit, and the
# gap ends the threads' open exits (2 vCPUs), untimed.
TURN=100000
[ "${LAB_HOST:-}" != 1 ] || TURN=20000000
# slow_checks WHAT X SOURCE: top's lines in $TMP/slow.X against the recording's exits of SOURCE.
slow_checks() {
	w=$1 slow=$TMP/slow.$2 src=$3
	n=$(wc -l <"$slow" | tr -d ' ')
	check "$w: some exits slower than $US us ($n)" [ "$n" -gt 0 ]
	check "$w: perf's line format ($(grep -v ' event took ' "$slow" | head -n 1))" \
		awk '!/^[0-9]+ VM [0-9]+, vcpu -?[0-9]+: .+ event took [0-9]+usec \(tid [0-9]+\)$/ { bad = 1 } END { exit bad }' "$slow"
	check "$w: every VM is exitgen ($E)" awk -v e=$E '$3 != e "," { bad = 1 } END { exit bad }' "$slow"
	check "$w: every thread is exitgen's ($tasks)" sh -c "for t in \$(sed 's/.*(tid \\([0-9]*\\))/\\1/' '$slow' | sort -u); do echo ' $tasks' | grep -q \" \$t \" || exit 1; done"
	check "$w: each over $US us" awk -v u=$US '{ t = $(NF - 2); sub(/usec/, "", t); if (t + 0 < u) bad = 1 } END { exit bad }' "$slow"
	check "$w: no halt" sh -c "! grep -qi 'hlt' '$slow'"
	# the recording's exits over US us (report --slowest: its own path, the file's)
	$KES report --slowest 1000000 -f csv --source "$src" "$TMP/run.dat" >"$TMP/all.$2.csv"
	check "$w: the recording has halts to leave out (precondition)" \
		awk -F, 'NR > 1 && tolower($7) ~ /hlt/ { f = 1 } END { exit !f }' "$TMP/all.$2.csv"
	top_lost=$(sed -n 's/.*; lost \([0-9]*\);.*/\1/p' "$TMP/out.$2" | head -1)
	r=$(python3 - "$slow" "$TMP/all.$2.csv" $US "${top_lost:-0}" "${rec_lost:-0}" $TURN <<'PY'
import csv, re, sys
got = []
for l in open(sys.argv[1]):
    m = re.match(r'^(\d+) VM \d+, vcpu -?\d+: (\S+).* event took (\d+)usec \(tid (\d+)\)$', l)
    got.append((int(m.group(1)), int(m.group(4)), int(m.group(3)), m.group(2)))
# a halt among the lines is the "no halt" check's failure, not a timing one
got = [g for g in got if 'HLT' not in g[3].upper()]
us = int(sys.argv[3])
SKEW = 100000
TURN = int(sys.argv[6])
rec = [(int(r['ts_ns']), int(r['tid']), int(r['ns']), r['name']) for r in csv.DictReader(open(sys.argv[2]))
       if 'HLT' not in r['name'].upper()]
lo, hi = got[0][0], got[-1][0]
def near(g, r):  # g: top's (us), r: the recording's (ns)
    gs, ge, rs, re_ = g[0], g[0] + g[2] * 1000, r[0], r[0] + r[2]
    return g[1] == r[1] and (abs(gs - rs) <= SKEW or abs(ge - re_) <= SKEW) and \
        abs(g[2] * 1000 - r[2]) <= TURN + 1000
miss_rec = [g for g in got if not any(near(g, r) for r in rec if r[2] > us * 1000 - TURN)]
want = [r for r in rec if r[2] > us * 1000 + TURN and lo + SKEW < r[0] < hi - SKEW]
miss_top = [r for r in want if not any(near(g, r) for g in got)]
top_lost, rec_lost = int(sys.argv[4]), int(sys.argv[5])
print("%d lines, %d recorded exits over %d us inside; %d lines not recorded, %d recorded not shown %s %s; lost: top %d, record %d"
      % (len(got), len(want), us + TURN // 1000, len(miss_rec), len(miss_top), miss_rec[:2], miss_top[:2],
         top_lost, rec_lost))
ok = lambda miss, n, lost: len(miss) <= max(3, n // 25) + (lost + 2 if lost else 0)
# Where TURN is 20 ms (the lab host) an exit over US + TURN inside top's 1.5 s
# is luck (0 of them in one of 45 lab runs): there only top's lines are matched.
print("ok" if ok(miss_rec, len(got), rec_lost) and ok(miss_top, len(want), top_lost) and
      (want or TURN > SKEW) else "bad")
PY
)
	eq "$w: top's lines = the recording's exits over $US us ($(echo "$r" | head -1))" "$(echo "$r" | tail -1)" ok
}

slow_checks "userspace" u userspace
slow_checks "default view" x auto
# a threshold nothing reaches: no line; a bad one: a usage error. A VM of its
# own (the first has been killed: top -p of a gone pid says so on stderr),
# for as long as top takes to start, up to its kill
"$EXITGEN" --io 1000 --seconds 60 --quiet >/dev/null 2>&1 &
E2=$!
trap 'kill $E $E2 2>/dev/null; rm -rf "$TMP"' EXIT
sleep 0.3
$KES top --once -p $E2 -d 0.5 --slower-than 3600000000 >/dev/null 2>"$TMP/none"
eq "nothing slower than an hour: exit status" "$?" 0
eq "nothing slower than an hour ($(head -c 200 "$TMP/none"))" "$(wc -l <"$TMP/none" | tr -d ' ')" 0
kill $E2 2>/dev/null
wait $E2 2>/dev/null
$KES top --once -p $E --slower-than 0 >/dev/null 2>"$TMP/e"
eq "--slower-than 0 refused" "$?" 2
summary
