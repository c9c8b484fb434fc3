#!/bin/sh
# The flight recorder on a real KVM (the lab host on a machine without
# /dev/kvm). exitgen --slow-exit N:US handles one exit US microseconds late;
# checked with trace-cmd's text of the saved files (exit -> entry times of
# each thread), never with kvm-exitstat's own reading of them:
# - record --flight --slower-than: the kernel's snapshot at the slow exit;
#   the saved trace.dat holds that exit and its entry, US or more apart, on
#   vCPU 0's thread, and exits before and after it;
# - SIGUSR1 saves a window; --flight-keep 2 keeps the 2 newest of 3;
# - --rate-over: a VM over N exits/s saves one;
# - serve --flight: POST /flight saves one (202), --slower-than too, and
#   kvm_exitstat_flight_saves_total counts them;
# - nothing is left: no instance, no synthetic event.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
need_kvm
for t in trace-cmd curl python3; do
	command -v $t >/dev/null 2>&1 || skip "needs $t (make deps)"
done
PIDS=
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT

# slow FILE TID US: the exits of thread TID in FILE that took US or more (trace-cmd's text)
slow() {
	trace-cmd report -t -R "$1" 2>/dev/null | python3 -c '
import re, sys
tid, us = sys.argv[1], int(sys.argv[2])
last, n, exits = None, 0, 0
for l in sys.stdin:
    m = re.match(r"^\s*\S+-(\d+)\s+\[\d+\]\s+(\d+)\.(\d+):\s+(kvm_exit|kvm_entry):", l)
    if not m or m[1] != tid:
        continue
    t = int(m[2]) * 10**9 + int(m[3].ljust(9, "0")[:9])
    if m[4] == "kvm_exit":
        last = t
        exits += 1
    elif last is not None:
        n += t - last >= us * 1000
        last = None
print(n, exits)' "$2" "$3"
}

# --- the kernel takes the snapshot at the slow exit
mkdir "$TMP/f1"
"$KES" record --flight 30 --slower-than 150000 --flight-after 0.5 -o "$TMP/f1" -- \
	"$EXITGEN" --io 4000 --hlt 20 --slow-exit 3000:300000 >"$TMP/eg" 2>"$TMP/fl.err"
eq "record --flight: exit status ($(head -c 300 "$TMP/fl.err"))" "$?" 0
check "exitgen slowed its 3000th exit" grep -q 'slow_exit 3000 KVM_EXIT_IO 300000' "$TMP/eg"
# a loaded machine (TCG in the lab host) makes slow exits of its own now and
# then: each one a file; exactly one holds exitgen's, the 300 ms one
n=$(ls "$TMP/f1" | grep -c 'kvm-exitstat-flight-.*-slow\.dat$')
check "a file saved per slow exit, named after its trigger ($n)" [ "$n" -ge 1 ]
tid=$(sed -n 's/^vcpu 0 tid \([0-9]*\).*/\1/p' "$TMP/eg")
with= nslow=0 nexits=0
for f in "$TMP"/f1/kvm-exitstat-flight-*-slow.dat; do
	read -r s x <<EOT
$(slow "$f" "$tid" 300000)
EOT
	[ "$s" -gt 0 ] && { with="$with $f"; nslow=$((nslow + s)); nexits=$x; }
done
eq "one saved file holds the slow exit and its entry, 300 ms apart (trace-cmd)" "$nslow" 1
check "and the exits around it ($nexits exits of vCPU 0)" [ "${nexits:-0}" -gt 100 ]
f=${with# }
check "the message names the file" grep -q "saved $f" "$TMP/fl.err"

# --- SIGUSR1, and --flight-keep
mkdir "$TMP/f2"
"$EXITGEN" --io 200 --vcpus 2 --seconds 600 --pause-us 5000 >"$TMP/eg2" 2>&1 &
E=$!
PIDS="$PIDS $E"
wait_line "$TMP/eg2" '^exitgen: pid'
"$KES" record --flight 4MB --flight-after 0.2 --flight-keep 2 -o "$TMP/f2" -p "$E" 2>"$TMP/f2.err" &
R=$!
PIDS="$PIDS $R"
wait_line "$TMP/f2.err" 'flight recorder running'
for i in 1 2 3; do
	sleep 1
	kill -USR1 "$R"
	wait_line "$TMP/f2.err" "($i saved"
done
kill "$R"
wait "$R"
eq "record --flight -p: exit status after SIGTERM" "$?" 0
eq "three saved, the newest two kept" "$(ls "$TMP/f2" | grep -c 'kvm-exitstat-flight-.*-signal\.dat$')" 2
for f in "$TMP"/f2/*.dat; do
	c=$(trace-cmd report "$f" 2>/dev/null | grep -c 'kvm_exit:')
	check "$(basename "$f"): trace-cmd reads it ($c kvm_exit)" [ "$c" -gt 0 ]
done

# --- a VM over N exits per second
mkdir "$TMP/f3"
"$KES" record --flight 10 --rate-over 1000 --flight-after 0.2 -o "$TMP/f3" -p "$E" 2>"$TMP/f3.err" &
R=$!
PIDS="$PIDS $R"
wait_line "$TMP/f3.err" 'saved'
kill "$R"
wait "$R"
check "--rate-over 1000: a file saved ($(ls "$TMP/f3"))" sh -c "ls '$TMP/f3' | grep -q -- '-rate\\.dat$'"
kill "$E"

# --- serve --flight: POST /flight, and a slow exit
mkdir "$TMP/f4"
"$KES" serve --listen 127.0.0.1:0 --interval 0.3 --flight 20 --flight-dir "$TMP/f4" --flight-after 0.3 \
	--slower-than 150000 2>"$TMP/serve.err" &
S=$!
PIDS="$PIDS $S"
wait_line "$TMP/serve.err" 'serving'
SP=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$TMP/serve.err")
"$EXITGEN" --io 3000 --slow-exit 2000:300000 >"$TMP/eg4" 2>&1
wait_line "$TMP/serve.err" 'saved .*-slow.dat'
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$SP/flight")
eq "POST /flight: 202" "$code" 202
wait_line "$TMP/serve.err" 'saved .*-http.dat'
sleep 0.5
curl -s "http://127.0.0.1:$SP/metrics" >"$TMP/m"
n=$(ls "$TMP/f4" | grep -c '^kvm-exitstat-flight-')
check "kvm_exitstat_flight_saves_total = the files saved ($n; $(grep flight_saves_total "$TMP/m" | tail -n 1))" grep -q "^kvm_exitstat_flight_saves_total $n\$" "$TMP/m"
tid=$(sed -n 's/^vcpu 0 tid \([0-9]*\).*/\1/p' "$TMP/eg4")
nslow=0
for f in "$TMP"/f4/kvm-exitstat-flight-*-slow.dat; do
	nslow=$((nslow + $(slow "$f" "$tid" 300000 | cut -d' ' -f1)))
done
eq "serve's slow-exit files hold the slow exit, once (trace-cmd)" "$nslow" 1
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$SP/flight")
eq "GET /flight: 405" "$code" 405
kill "$S"
wait "$S"
eq "serve --flight: exit status after SIGTERM" "$?" 0
check "no instance of ours left" sh -c "! ls -d /sys/kernel/tracing/instances/kvm-exitstat-* 2>/dev/null"
check "no synthetic event of ours left" sh -c "! grep -q 'kes_[0-9]' /sys/kernel/tracing/dynamic_events"
summary
