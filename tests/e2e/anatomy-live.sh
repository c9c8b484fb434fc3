#!/bin/sh
# report --anatomy on real KVM, where kvm_exit fires (the lab host on a
# machine without /dev/kvm: tests/run.sh runs a group that calls need_kvm
# there), on four exitgen workloads made for it. Each is recorded with
# record --anatomy, and its split checked, interval by interval, against an
# independent Python computation over `trace-cmd report -t` of the same file
# (tests/tools/anatomy-oracle.py) and against what exitgen and the kernel
# say themselves:
#   hog   a vCPU sharing its CPU with a spinning thread (exitgen --hog):
#         runnable per interval as the oracle's, the hog named the top
#         preemptor;
#   hlt   halts woken by a one-shot timer of the in-kernel PIT (exitgen
#         --hlt-us): blocked as the oracle's and the programmed sleep, the
#         halts polled or slept as kvm_vcpu_wakeup says;
#   mmio  the VMM spends a known time on each MMIO exit (exitgen
#         --mmio-delay-us): vmm as exitgen's own clock says, exit by exit;
#   irq   the lab's 9p interrupts routed to the vCPU's CPU while another CPU
#         writes through 9p: irq as the oracle's.
# Every interval's parts add up to it (checked by the compare too).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
need_kvm
PY=/usr/bin/python3 # the real binary: a pyenv shim costs seconds a start in the lab
[ -x "$PY" ] || skip "needs $PY"
command -v trace-cmd >/dev/null 2>&1 || skip "needs trace-cmd"
[ -d /sys/kernel/tracing/events/sched ] || skip "needs the sched tracepoints"
ORACLE=tests/tools/anatomy-oracle.py
COMPARE=tests/tools/anatomy-compare.py

# val KEY FILE: the first number after KEY on the compare's line that starts with KEY
val() { awk -v k="$1" -v f="${3:-2}" '$1 == k { print $f; exit }' "$2"; }
# part FIELD PART FILE: a field of the compare's line of PART ("exact", "within1pct", "rel")
part() { awk -v p="$2" -v w="$1" '$1 == p { for (i = 2; i < NF; i++) if ($i == w) { print $(i + 1); exit } }' "$3"; }

# run NAME [--source userspace] -- EXITGEN-ARGS: record, the tool's intervals, the oracle's, compared
run() {
	name=$1 src=exits
	shift
	[ "$1" = --userspace ] && { src=userspace; shift; }
	$KES record --anatomy -q -o "$TMP/$name.dat" -- "$EXITGEN" "$@" >"$TMP/$name.eg" 2>"$TMP/$name.err"
	eq "$name: record --anatomy -- exitgen $* exits 0 ($(head -c 300 "$TMP/$name.err"))" "$?" 0
	trace-cmd report -t "$TMP/$name.dat" >"$TMP/$name.txt" 2>/dev/null
	$KES report --anatomy --source "$src" --slowest 1000000 -f csv "$TMP/$name.dat" >"$TMP/$name.csv"
	eq "$name: report --anatomy --slowest -f csv exits 0" "$?" 0
	"$PY" "$ORACLE" "$TMP/$name.txt" "$src" >"$TMP/$name.oracle"
	"$PY" "$COMPARE" "$TMP/$name.csv" "$TMP/$name.oracle" >"$TMP/$name.cmp"
	sed "s/^/$name: /" "$TMP/$name.cmp"
	n=$(awk '$1 == "intervals" { print $7 }' "$TMP/$name.cmp")
	check "$name: intervals to compare" [ "${n:-0}" -gt 0 ]
	eq "$name: every interval on both sides" "$(val missing "$TMP/$name.cmp")" 0
	eq "$name: none left unsplit" "$(awk '$1 == "intervals" { print $9 }' "$TMP/$name.cmp")" 0
	eq "$name: every interval's parts add up to it" "$(val sums "$TMP/$name.cmp")" 0
	eq "$name: the same lengths" "$(val length "$TMP/$name.cmp")" 0
	eq "$name: the halts and their waited flags as the kernel's" "$(val halts "$TMP/$name.cmp")" 0
}

# within1 NAME PART: every interval's PART within 1% of the oracle's, and the total
within1() {
	eq "$1: $2 within 1% of the oracle's in every interval" "$(part within1pct "$2" "$TMP/$1.cmp")" "$n"
	check "$1: $2's total within 1% of the oracle's ($(part rel "$2" "$TMP/$1.cmp"))" \
		awk -v r="$(part rel "$2" "$TMP/$1.cmp")" 'BEGIN { exit !(r < 0.01) }'
}

# ---- hog: a CPU hog on the vCPU's CPU -------------------------------------------
run hog --hog --io 2000
within1 hog runnable
check "hog: the vCPU was runnable a good part of its exits' time" \
	awk -v r="$(part tool runnable "$TMP/hog.cmp")" -v h="$(part tool handling "$TMP/hog.cmp")" \
	'BEGIN { exit !(r > h) }'
$KES report --anatomy -f json "$TMP/hog.dat" >"$TMP/hog.json"
eq "hog: the top preemptor is exitgen's hog" \
	"$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["preemptors"][0]["comm"])' "$TMP/hog.json")" \
	exitgen-hog
$KES report --anatomy --slowest 3 "$TMP/hog.dat" >"$TMP/hog.slow"
check "hog: --slowest --anatomy says who ($(grep -m1 runnable "$TMP/hog.slow"))" \
	grep -q 'runnable behind exitgen-hog (pid [0-9]*)' "$TMP/hog.slow"

# ---- hlt: halts woken by a timer ------------------------------------------------
SLEEP_US=50000
run hlt --hlt 10 --hlt-us $SLEEP_US
within1 hlt blocked
within1 hlt polled
# the halts: as many as exitgen made, each slept (a 50 ms sleep is far past any polling)
"$PY" - "$TMP/hlt.csv" "$SLEEP_US" "$TMP/hlt.oracle" >"$TMP/hlt.sleep" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if int(r['halts'])]
want = int(sys.argv[2]) * 1000
kernel = {int(l.split(',')[0]): int(l.split(',')[13]) for l in open(sys.argv[3])}
blocked = [int(r['blocked_ns']) for r in rows]
mean = sum(blocked) / len(blocked)
print('halts', sum(int(r['halts']) for r in rows), 'slept', sum(int(r['slept']) for r in rows))
print('blocked_mean_ns %d sleep_ns %d rel %.5f' % (mean, want, abs(mean - want) / want))
# a halt (its polling and its sleep) never ends before its timer: from arming the PIT to
# the halt the guest runs a few instructions (one in-kernel PIO exit)
print('halt_min_ns', min(int(r['polled_ns']) + int(r['blocked_ns']) for r in rows))
print('halt_mean_ns', sum(int(r['polled_ns']) + int(r['blocked_ns']) for r in rows) // len(rows))
# the halt as the kernel timed it (ktime, kvm_vcpu_wakeup's ns: polling, sleep, the wait to
# run again) holds its polled and blocked time, and no more than that and what else the
# interval had off its CPU or in handlers (the wait to run, an interrupt)
bad = 0
for r in rows:
    ns = kernel[int(r['ts_ns'])]
    pb = int(r['polled_ns']) + int(r['blocked_ns'])
    other = sum(int(r[p + '_ns']) for p in ('runnable', 'irq', 'softirq'))
    if pb > ns * 1.001 or ns > (pb + other) * 1.01:
        bad += 1
        print('halt_off ts %s kernel_ns %d polled_blocked_ns %d other_ns %d' % (r['ts_ns'], ns, pb, other))
print('kernel_bad', bad)
print('slept_without_blocked', sum(1 for r in rows if int(r['slept']) and not int(r['blocked_ns'])))
PY
sed 's/^/hlt: /' "$TMP/hlt.sleep"
eq "hlt: 10 halts, all slept (kvm_vcpu_wakeup waited)" "$(grep '^halts' "$TMP/hlt.sleep")" "halts 10 slept 10"
eq "hlt: every halt that slept has blocked time" "$(val slept_without_blocked "$TMP/hlt.sleep")" 0
# kvm_vcpu_wakeup's ns is the kernel's ktime, the events' times its trace
# clock: in the lab's emulated kernel on a loaded host the two drifted apart
# by 10% over one halt in ten (a CI rehearsal, 2026-12-06: 62.2 ms of our
# polled + blocked against 56.5 ms of ktime, the split equal to the oracle's
# to the ns): one such halt is said, two are a failure.
check "hlt: each halt's polled + blocked within the kernel's own halt time, the rest of it the wait to run (1%; at most one off)" \
	[ "$(val kernel_bad "$TMP/hlt.sleep")" -le 1 ]
# The programmed sleep runs from arming the PIT (an exit of its own before the halt) to
# the wake-up; in the lab's emulated kernel its timer fires 1 to 12 ms late and the
# emulation stalls now and then, in the arming or the halt: the mean is said, not held.
# short sleeps: the kernel polls, and when the wake-up comes in the window no sleep at all
run hltp --hlt 200 --hlt-us 30
within1 hltp polled
within1 hltp blocked
# A halt kvm_vcpu_wakeup says waited may still never have been off its CPU
# asleep: 6.1's kvm_vcpu_block() sets waited before schedule(), and a
# wake-up between its set_current_state() and schedule() leaves the thread
# running (CI, 2026-12-07: one such halt, the tool's blocked time equal to
# the oracle's in every interval). So a halt that slept must have blocked
# time where the trace shows its thread asleep in it (the oracle's blocked,
# field 7 of its lines); the others are counted and said.
"$PY" - "$TMP/hltp.csv" "$TMP/hltp.oracle" >"$TMP/hltp.kind" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if int(r['halts'])]
asleep = {int(l.split(',')[0]): int(l.split(',')[6]) for l in open(sys.argv[2])}
slept = [r for r in rows if int(r['slept'])]
print('polled_only', sum(1 for r in rows if not int(r['slept'])))
print('polled_with_blocked', sum(1 for r in rows if not int(r['slept']) and int(r['blocked_ns'])))
print('slept_asleep_without_blocked',
      sum(1 for r in slept if asleep.get(int(r['ts_ns']), 0) and not int(r['blocked_ns'])))
print('slept_never_asleep', sum(1 for r in slept if not asleep.get(int(r['ts_ns']), 0)))
print('slept', len(slept))
PY
sed 's/^/hltp: /' "$TMP/hltp.kind"
check "hltp: some halts only polled ($(grep polled_only "$TMP/hltp.kind"))" [ "$(val polled_only "$TMP/hltp.kind")" -gt 0 ]
eq "hltp: a halt that only polled has no blocked time" "$(val polled_with_blocked "$TMP/hltp.kind")" 0
eq "hltp: a halt that slept, its thread asleep in the trace, has blocked time" \
	"$(val slept_asleep_without_blocked "$TMP/hltp.kind")" 0
[ "$(val slept_never_asleep "$TMP/hltp.kind")" = 0 ] ||
	echo "NOTE: hltp: $(val slept_never_asleep "$TMP/hltp.kind") of $(val slept "$TMP/hltp.kind") halts that slept were never asleep in the trace"

# ---- mmio: the VMM's own time ---------------------------------------------------
run mmio --userspace --mmio 10 --mmio-delay-us 30000 --vmm-log "$TMP/mmio.vmm"
within1 mmio vmm
# exit by exit, exitgen's clock (KVM_RUN's return to its next call) against the userspace
# exit's vmm part plus what interrupted the VMM (the oracle's runnable, irq, softirq in it)
"$PY" - "$TMP/mmio.csv" "$TMP/mmio.oracle" "$TMP/mmio.vmm" >"$TMP/mmio.clock" <<'PY'
import csv, sys
tool = sorted((int(r['ts_ns']), int(r['vmm_ns'])) for r in csv.DictReader(open(sys.argv[1]))
              if r['name'] == 'KVM_EXIT_MMIO')
other = {}
for line in open(sys.argv[2]):
    f = line.split(',')
    if f[2] == 'KVM_EXIT_MMIO':
        other[int(f[0])] = int(f[5]) + int(f[9]) + int(f[10])
eg = [int(l.split()[2]) for l in open(sys.argv[3]) if l.split()[1] == 'KVM_EXIT_MMIO']
rel = sorted((v + other[ts] - e) / e for (ts, v), e in zip(tool, eg))
print('exits', len(tool), 'clock', len(eg))
print('median_rel %.5f' % rel[len(rel) // 2])
print('least_rel %.5f' % rel[0])
for (ts, v), e in zip(tool, eg):
    print('exit %d clock_ns %d vmm_ns %d interrupted_ns %d rel %.5f' % (ts, e, v, other[ts], (v + other[ts] - e) / e))
print('vmm_tool_ns', sum(v for _, v in tool), 'clock_ns', sum(eg), 'interrupted_ns', sum(other.values()))
PY
sed 's/^/mmio: /' "$TMP/mmio.clock"
eq "mmio: exitgen timed each MMIO exit" "$(grep '^exits' "$TMP/mmio.clock")" "exits 10 clock 10"
# exitgen's clock runs inside the kernel's VMM time (KVM_RUN's return and next call are
# kernel paths after and before the tracepoints: 100-200 us in the lab's emulated kernel, and
# now and then a stall of the emulation): never shorter, the median exit within 1%
check "mmio: vmm + interruptions within 1% of exitgen's clock, the median exit ($(grep median "$TMP/mmio.clock"))" \
	awk -v r="$(val median_rel "$TMP/mmio.clock")" 'BEGIN { exit !(r >= 0 && r < 0.01) }'
check "mmio: never less than exitgen's clock ($(grep least "$TMP/mmio.clock"))" \
	awk -v r="$(val least_rel "$TMP/mmio.clock")" 'BEGIN { exit !(r > -0.001) }'

# ---- top and serve, live: the cause column, the cause counters ------------------
mkdir "$TMP/tf"
"$EXITGEN" --hog --io 2000 --start-on-usr1 >"$TMP/live.eg" 2>&1 &
EL=$!
wait_line "$TMP/live.eg" '^exitgen: pid'
"$KES" serve --anatomy -p "$EL" --textfile "$TMP/tf" --interval 0.3 2>"$TMP/serve.err" &
S=$!
timeout 300 "$KES" top --anatomy --once -d 250 -p "$EL" >"$TMP/once.out" 2>"$TMP/once.err" &
T=$!
check "top and serve trace exitgen" wait_traced "$EL" 2
kill -USR1 "$EL"
wait $T
eq "top --anatomy --once: exit status ($(head -c 200 "$TMP/once.err"))" "$?" 0
wait $EL
sleep 2 # serve's last interval written
kill -INT $S
wait $S
eq "serve --anatomy: exit status ($(head -c 200 "$TMP/serve.err"))" "$?" 0
sed 's/^/top: /' "$TMP/once.out"
check "top --anatomy --once: a CAUSE column" grep -q ' %TIME CAUSE$' "$TMP/once.out"
check "top --anatomy --once: io's time mostly runnable behind the hog" grep -q '^io .* runnable [0-9]*%$' "$TMP/once.out"
grep 'cause_seconds_total{' "$TMP/tf/kvm_exitstat.prom" | sed 's/^/serve: /' | grep 'reason="io"'
check "serve --anatomy: io's runnable seconds counted" awk '
	index($0, "kvm_exitstat_exit_cause_seconds_total{") == 1 && /reason="io"/ && /cause="runnable"/ && $NF > 0 { ok = 1 }
	END { exit !ok }' "$TMP/tf/kvm_exitstat.prom"
if command -v promtool >/dev/null 2>&1; then
	promtool check metrics <"$TMP/tf/kvm_exitstat.prom" >"$TMP/promtool.out" 2>&1
	check "promtool accepts the cause counters ($(head -c 300 "$TMP/promtool.out"))" [ $? -eq 0 ]
fi

# ---- irq: device interrupts on the vCPU's CPU -------------------------------------
# The lab's 9p devices' request interrupts, routed to the CPU --pin puts vCPU 0 on
# (the first this process may use), while a writer on another CPU makes 9p requests.
cpu0=$(awk '/^Cpus_allowed_list/ { split($2, a, "[-,]"); print a[1] }' /proc/self/status)
irqs=$(awk -F: '/virtio.*requests/ { gsub(/ /, "", $1); print $1 }' /proc/interrupts)
if [ -z "$irqs" ] || [ "$(nproc)" -lt 2 ]; then
	echo "NOTE: no virtio request interrupts or one CPU: no interrupt source here"
else
	for i in $irqs; do
		cat "/proc/irq/$i/smp_affinity_list" >"$TMP/aff.$i" 2>/dev/null
		echo "$cpu0" >"/proc/irq/$i/smp_affinity_list" 2>/dev/null
	done
	other=$(awk -v c="$cpu0" '/^processor/ && $3 != c { print $3; exit }' /proc/cpuinfo)
	taskset -c "$other" sh -c 'while :; do echo x >>"$1"; sync "$1"; done' sh "$TMP/irq.junk" &
	writer=$!
	run irq --pin --io 5000
	kill "$writer" 2>/dev/null
	wait "$writer" 2>/dev/null
	for i in $irqs; do
		[ -s "$TMP/aff.$i" ] && cat "$TMP/aff.$i" >"/proc/irq/$i/smp_affinity_list" 2>/dev/null
	done
	check "irq: interrupt handlers ran inside exits ($(grep '^irq' "$TMP/irq.cmp"))" \
		[ "$(part tool irq "$TMP/irq.cmp")" -gt 0 ]
	within1 irq irq
	within1 irq softirq
fi
summary
