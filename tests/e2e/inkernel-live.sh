#!/bin/sh
# In-kernel aggregation on a real KVM (the lab host on a machine without
# /dev/kvm): the kernel's counts and exit -> entry latency histogram (hist
# triggers, a synthetic event) equal the streaming mode's on the same
# workload, exactly:
# - record --in-kernel FILE: the recording's own instance carries the
#   triggers, so the kernel counts the very events the trace.dat gets;
#   tests/tools/khist-check.py computes counts per (thread, reason) and the
#   log2 latency buckets (n and sum) from trace-cmd's text of the file and
#   compares them key by key;
# - top --in-kernel -l --json: the exits of each reason, summed over the
#   intervals, are exitgen's own counts (io = KVM_EXIT_IO, hlt = KVM_EXIT_HLT);
# - serve --in-kernel: /metrics' exits_total are exitgen's counts, the
#   kernel's histogram's _count the timed ones (every exit but each vCPU's
#   last "done" exit, which never gets its entry), promtool accepts it;
# - nothing is left: no instance, no synthetic event of ours.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
need_kvm
for t in trace-cmd curl python3 promtool; do
	command -v $t >/dev/null 2>&1 || skip "needs $t (make deps)"
done
[ -e /sys/kernel/tracing/events/kvm/kvm_exit/hist ] || skip "no hist triggers in this kernel"
PIDS=
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT
HERE=$(dirname "$0")

# --- the kernel's hists of the recorded events
"$KES" record -q -o "$TMP/run.dat" --in-kernel "$TMP/k.json" -- \
	"$EXITGEN" --io 2000 --hlt 100 --vcpus 2 >"$TMP/eg" 2>"$TMP/rec.err"
eq "record --in-kernel: exit status ($(head -c 300 "$TMP/rec.err"))" "$?" 0
trace-cmd report -t -R "$TMP/run.dat" >"$TMP/run.txt" 2>/dev/null
python3 "$HERE/../tools/khist-check.py" "$TMP/run.txt" "$TMP/k.json" >"$TMP/cmp" 2>&1
rc=$?
sed 's/^/  /' "$TMP/cmp" | head -n 30 >"$TMP/cmp.head"
check "in-kernel counts and latency buckets = the trace's, key by key: $(grep -E '^(counts|latency)' "$TMP/cmp" | tr '\n' ';')" [ $rc = 0 ]
[ $rc = 0 ] || cat "$TMP/cmp.head"
check "the trace lost nothing" sh -c "! trace-cmd report --stat '$TMP/run.dat' 2>/dev/null | grep -Eq '(overrun|dropped).*[1-9]'"

# --- top --in-kernel: the interval lines add up to exitgen's counts
"$EXITGEN" --io 3000 --hlt 150 --vcpus 2 --start-on-usr1 >"$TMP/eg2" 2>&1 &
E=$!
PIDS="$PIDS $E"
wait_line "$TMP/eg2" '^exitgen: pid'
"$KES" top --in-kernel -l --json -d 0.5 -p "$E" >"$TMP/log" 2>"$TMP/top.err" &
T=$!
PIDS="$PIDS $T"
sleep 2
kill -USR1 "$E"
wait "$E"
wait "$T"
eq "top --in-kernel -l: exit status ($(head -c 200 "$TMP/top.err"))" "$?" 0
sums=$(python3 -c 'import json, sys
n = {}
for l in open(sys.argv[1]):
    for k, v in json.loads(l).get("exits", {}).items():
        n[k] = n.get(k, 0) + v
print(n.get("io", 0), n.get("hlt", 0))' "$TMP/log" 2>&1)
eq "top --in-kernel: io and hlt exits over the intervals = exitgen's KVM_EXIT_IO and KVM_EXIT_HLT" \
	"$sums" "$(eg_total KVM_EXIT_IO "$TMP/eg2") $(eg_total KVM_EXIT_HLT "$TMP/eg2")"

# --- top --in-kernel --once: the kvm_exit table, timed
"$EXITGEN" --io 300 --vcpus 2 --seconds 30 --pause-us 2000 >"$TMP/eg5" 2>&1 &
E=$!
PIDS="$PIDS $E"
wait_line "$TMP/eg5" '^exitgen: pid'
"$KES" top --in-kernel --once -d 1 -p "$E" >"$TMP/once" 2>&1
eq "top --in-kernel --once: exit status" "$?" 0
check "top --in-kernel --once: the kvm_exit table" grep -q 'exits: kvm_exit' "$TMP/once"
check "top --in-kernel --once: io, timed" grep -Eq '^io +[1-9][0-9]* +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+' "$TMP/once"
kill "$E"

# --- serve --in-kernel
"$EXITGEN" --io 2500 --hlt 50 --vcpus 2 --start-on-usr1 >"$TMP/eg3" 2>&1 &
E=$!
PIDS="$PIDS $E"
wait_line "$TMP/eg3" '^exitgen: pid'
"$KES" serve --in-kernel -p "$E" --listen 127.0.0.1:0 --interval 0.3 2>"$TMP/serve.err" &
S=$!
PIDS="$PIDS $S"
wait_line "$TMP/serve.err" 'serving'
SP=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$TMP/serve.err")
kill -USR1 "$E"
wait "$E"
sleep 1.5
curl -s "http://127.0.0.1:$SP/metrics" >"$TMP/m"
io=$(sed -n "s/^kvm_exitstat_exits_total{pid=\"$E\",vm=\"exitgen\",source=\"kvm_exit\",reason=\"io\"} //p" "$TMP/m")
hlt=$(sed -n "s/^kvm_exitstat_exits_total{pid=\"$E\",vm=\"exitgen\",source=\"kvm_exit\",reason=\"hlt\"} //p" "$TMP/m")
timed=$(sed -n "s/^kvm_exitstat_inkernel_exit_duration_seconds_count{pid=\"$E\",vm=\"exitgen\",source=\"kvm_exit\",reason=\"io\"} //p" "$TMP/m")
eq "serve --in-kernel: exits_total io, hlt = exitgen's" "$io $hlt" "$(eg_total KVM_EXIT_IO "$TMP/eg3") $(eg_total KVM_EXIT_HLT "$TMP/eg3")"
eq "serve --in-kernel: the histogram's count of io = every io exit but each vCPU's last" "$timed" "$(($(eg_total KVM_EXIT_IO "$TMP/eg3") - 2))"
promtool check metrics <"$TMP/m" >"$TMP/promtool" 2>&1
eq "promtool accepts the page ($(head -n 2 "$TMP/promtool"))" "$?" 0
kill "$S"
wait "$S"
eq "serve --in-kernel: exit status after SIGTERM" "$?" 0
check "no instance of ours left" sh -c "! ls -d /sys/kernel/tracing/instances/kvm-exitstat-* 2>/dev/null"
check "no synthetic event of ours left" sh -c "! grep -q 'kes_[0-9]' /sys/kernel/tracing/dynamic_events"
summary
