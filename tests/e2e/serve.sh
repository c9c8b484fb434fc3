#!/bin/sh
# serve against the real thing: Debian's Prometheus scrapes it on loopback
# while exitgen makes a known number of exits, and Prometheus's own HTTP API
# must give exitgen's counts exactly; promtool accepts the exposition; the
# histogram Prometheus stored equals, bucket by bucket, a recording of the
# same run folded independently (python, from report -f json's buckets), so
# histogram_quantile(0.99) lands in the bucket of report's p99 (0.9 and p90
# in the lab host). Where kvm_exit fires, its series (source="kvm_exit") are
# the lab's rules over exitgen's counts and the recording's, reason by
# reason. Then: stuck clients do not stall collection, counters never reset,
# a gone VM's series stay for --keep-gone and then go, GET only, the textfile
# is atomic and refuses to replace a FIFO, SIGTERM ends it with its instance
# removed, a libmicrohttpd without its functions is refused in one line.
# Every process started here is killed at the end (trap); ports are free
# ones, directories private; only exitgen's pid is asserted on.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
need_kvm
for t in prometheus promtool curl python3; do
	command -v $t >/dev/null 2>&1 || skip "needs $t (make deps)"
done
PIDS=
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT
bg() { PIDS="$PIDS $!"; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# until SECS COMMAND...: retries every 0.2 s
until_ok() {
	n=$(($1 * 5)); shift
	while [ $n -gt 0 ]; do "$@" && return 0; sleep 0.2; n=$((n - 1)); done
	return 1
}
# q PROMQL: the instant value, or "none"; at time $T_Q once that is set (below)
q() {
	curl -s --data-urlencode "query=$1" ${T_Q:+--data-urlencode "time=$T_Q"} "http://127.0.0.1:$PP/api/v1/query" |
		python3 -c 'import sys, json
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if r else "none")' 2>/dev/null || echo none
}
q_is() { [ "$(q "$1")" = "$2" ]; }
scrape() { curl -s "$@" "http://127.0.0.1:$SP/metrics"; }

# --- exitgen, paused until serve, record and Prometheus are up (SIGUSR1: a
# fixed delay ran out on a loaded CI machine before Prometheus was ready)
"$EXITGEN" --io 4000 --mmio 1500 --hlt 300 --vcpus 2 --start-on-usr1 >"$TMP/eg.out" 2>&1 &
E=$!
PIDS="$PIDS $E"
wait_line "$TMP/eg.out" '^exitgen: pid'

"$KES" serve --trace -p "$E" --listen 127.0.0.1:0 --interval 0.5 --keep-gone 20 2>"$TMP/serve.err" &
S=$!
bg
wait_line "$TMP/serve.err" 'serving'
SP=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$TMP/serve.err")
check "serve listens (port '$SP')" [ -n "$SP" ]
"$KES" record -o "$TMP/run.dat" -p "$E" >"$TMP/rec.out" 2>&1 &
R=$!
bg

# --- Prometheus, scraping serve every second (in the lab host every 2 s,
# within 1.9 s: there, two TCG vCPUs running exitgen, record, serve and
# Prometheus at once, a scrape once took 1.03 s, and one over its time
# counts as failed, up == 0)
PP=$(free_port)
SI=1s ST=900ms
[ "${LAB_HOST:-}" != 1 ] || { SI=2s ST=1900ms; }
# and there under ASan + UBSan (make asan-check: UBSAN_OPTIONS set) every 4 s
# within 3.9 s: a scrape took 2.55 s once (a CI rehearsal, 2026-12-06)
[ "${LAB_HOST:-}" != 1 ] || [ -z "${UBSAN_OPTIONS:-}" ] || { SI=4s ST=3900ms; }
cat >"$TMP/prom.yml" <<EOF
global:
  scrape_interval: $SI
  scrape_timeout: $ST
scrape_configs:
  - job_name: kvm-exitstat
    static_configs:
      - targets: ['127.0.0.1:$SP']
EOF
promtool check config "$TMP/prom.yml" >"$TMP/promtool.cfg" 2>&1
check "promtool accepts the scrape config" [ $? -eq 0 ]
prometheus --config.file="$TMP/prom.yml" --storage.tsdb.path="$TMP/tsdb" \
	--web.listen-address="127.0.0.1:$PP" >"$TMP/prom.log" 2>&1 &
bg
check "prometheus is ready" until_ok 30 curl -sf "http://127.0.0.1:$PP/-/ready" -o /dev/null
check "prometheus scrapes serve (up == 1)" until_ok 20 q_is 'up{job="kvm-exitstat"}' 1

# Stuck clients, held for the whole run: one sends half a request, one asks
# and never reads (a tiny receive buffer); collection must not notice.
python3 - "$SP" >"$TMP/stuck.out" 2>&1 <<'EOF' &
import socket, sys, time
port = int(sys.argv[1])
a = socket.create_connection(("127.0.0.1", port)); a.sendall(b"GET /metr")
b = socket.socket(); b.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
b.connect(("127.0.0.1", port)); b.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
print("stuck", flush=True)
time.sleep(600)  # killed at the end (cleanup); the lab host (TCG) takes over 60 s to get there
EOF
bg
wait_line "$TMP/stuck.out" stuck
check "exitgen still waits for its start signal" sh -c "! grep -q '^total' '$TMP/eg.out'"
kill -USR1 $E

wait $E
eq "exitgen exit status" "$?" 0
T_END=$(date +%s.%N)
IO=$(eg_total KVM_EXIT_IO "$TMP/eg.out")
MMIO=$(eg_total KVM_EXIT_MMIO "$TMP/eg.out")
HLT=$(eg_total KVM_EXIT_HLT "$TMP/eg.out")
wait $R
eq "record exit status" "$?" 0

# --- the counts, through PromQL
sel="pid=\"$E\",source=\"userspace\""
check "PromQL IO count reaches exitgen's $IO" until_ok 20 q_is "sum(kvm_exitstat_exits_total{reason=\"KVM_EXIT_IO\",pid=\"$E\"})" "$IO"
# The queries below are evaluated at this moment, when Prometheus had the
# final counts: the VM's series go --keep-gone 20 s after it ended, and in
# the lab host (TCG) the checks between take longer than that.
T_Q=$(date +%s.%N)
# and the gzip'd page now, while it still has the VM's series
scrape -H 'Accept-Encoding: gzip' -D "$TMP/gz.hdr" -o "$TMP/gz.bin"
eq "PromQL KVM_EXIT_IO" "$(q "sum(kvm_exitstat_exits_total{reason=\"KVM_EXIT_IO\",pid=\"$E\"})")" "$IO"
eq "PromQL KVM_EXIT_MMIO" "$(q "sum(kvm_exitstat_exits_total{reason=\"KVM_EXIT_MMIO\",$sel})")" "$MMIO"
eq "PromQL KVM_EXIT_HLT" "$(q "sum(kvm_exitstat_exits_total{reason=\"KVM_EXIT_HLT\",$sel})")" "$HLT"
eq "no other reason for exitgen" \
	"$(q "count(kvm_exitstat_exits_total{$sel,reason!~\"KVM_EXIT_(IO|MMIO|HLT)\"})")" none
eq "vm label" "$(q "count(kvm_exitstat_exits_total{$sel,vm=\"exitgen\"})")" 3
eq "no counter reset" "$(q "sum(resets(kvm_exitstat_exits_total{pid=\"$E\"}[5m]))")" 0
eq "scrapes were never stale or failed (the longest took $(q 'max_over_time(scrape_duration_seconds{job="kvm-exitstat"}[5m])') s)" \
	"$(q 'min_over_time(up{job="kvm-exitstat"}[5m])')" 1
eq "no lost events" "$(q 'kvm_exitstat_lost_events_total')" 0
eq "the collector sees KVM (kvm_exitstat_collector_success)" "$(q 'kvm_exitstat_collector_success')" 1
eq "process_start_time_seconds is serve's (/proc/$S/stat)" \
	"$(q 'floor(process_start_time_seconds{job="kvm-exitstat"})')" \
	"$(awk -v b="$(awk '/^btime/ { print $2 }' /proc/stat)" -v t="$(getconf CLK_TCK)" \
		'{ printf "%d", b + $22 / t }' "/proc/$S/stat")"
# source="kvm_exit", where it fires: each reason its rule's count over
# exitgen's, and the same counts as the recording made beside serve
if [ -n "$EXIT_RULES" ]; then
	curl -s --data-urlencode "query=sum by (reason) (kvm_exitstat_exits_total{pid=\"$E\",source=\"kvm_exit\"})" \
		--data-urlencode "time=$T_Q" "http://127.0.0.1:$PP/api/v1/query" | python3 -c 'import sys, json
for r in json.load(sys.stdin)["data"]["result"]: print("%s\t%s" % (r["metric"]["reason"], r["value"][1]))' 2>/dev/null |
		sort >"$TMP/x.rows"
	exits_counts_exact "PromQL source=kvm_exit" "$TMP/x.rows" "$TMP/eg.out"
	"$KES" report -i "$TMP/run.dat" -f csv --source exits >"$TMP/x.csv"
	exits_exact "the recording beside serve, kvm_exit" "$TMP/x.csv" "$TMP/eg.out"
	eq "PromQL source=kvm_exit = the recording's kvm_exit table, reason by reason" "$(cat "$TMP/x.rows")" \
		"$(awk -F, -v OFS="$TAB" 'NR > 1 && $2 == -1 && $17 == "" && $1 != "TIMEINGUEST" { print $1, $4 }' "$TMP/x.csv" | sort)"
fi

# --- the exposition itself
scrape >"$TMP/metrics.txt"
promtool check metrics <"$TMP/metrics.txt" >"$TMP/promtool.out" 2>&1
check "promtool check metrics accepts the text format ($(head -c 300 "$TMP/promtool.out"))" [ $? -eq 0 ]
for f in kvm_exitstat_exits_total kvm_exitstat_exit_duration_seconds \
	kvm_exitstat_time_in_guest_seconds kvm_exitstat_lost_events_total \
	kvm_exitstat_events_total kvm_exitstat_build_info; do
	check "HELP and TYPE of $f" sh -c "grep -q '^# HELP $f ' '$TMP/metrics.txt' && grep -q '^# TYPE $f ' '$TMP/metrics.txt'"
done
scrape -H 'Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5' \
	-D "$TMP/om.hdr" >"$TMP/om.txt"
check "OpenMetrics when asked" grep -qi '^content-type: application/openmetrics-text' "$TMP/om.hdr"
eq "OpenMetrics ends with # EOF" "$(tail -n 1 "$TMP/om.txt")" "# EOF"
check "OpenMetrics counter family named without _total" \
	grep -q '^# TYPE kvm_exitstat_exits counter$' "$TMP/om.txt"
check "Prometheus itself negotiated OpenMetrics" [ "$(q 'kvm_exitstat_scrapes_total{format="openmetrics"} > 0')" != none ]
check "gzip when asked" grep -qi '^content-encoding: gzip' "$TMP/gz.hdr"
gunzip -c <"$TMP/gz.bin" >"$TMP/gz.txt" 2>/dev/null
promtool check metrics <"$TMP/gz.txt" >"$TMP/gzcheck.out" 2>&1
check "the gzip'd page is the exposition ($(head -c 300 "$TMP/gzcheck.out"); $(grep -c "pid=\"$E\"" "$TMP/gz.txt") rows of exitgen)" sh -c "promtool check metrics <'$TMP/gz.txt' >/dev/null 2>&1 && grep -q '^kvm_exitstat_exits_total{pid=\"$E\"' '$TMP/gz.txt'"
check "smaller gzip'd ($(wc -c <"$TMP/gz.bin") of $(wc -c <"$TMP/gz.txt") bytes)" [ "$(wc -c <"$TMP/gz.bin")" -lt "$(wc -c <"$TMP/gz.txt")" ]
eq "POST is refused" "$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$SP/metrics")" 405
eq "other paths are 404" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$SP/x")" 404

# --- histograms: Prometheus's buckets = the recording's, folded by python
"$KES" report -i "$TMP/run.dat" -f json --source userspace >"$TMP/run.json"
# The quantile compared below: p99; in the lab host p90. There (QEMU's TCG
# runs its vCPUs one at a time) one of the two copies of an event can wait
# for the other vCPU's turn, some ms (top-slower.sh measured it), for a few
# of the slow exits: the 80 slowest of 8,000 are where that shows (once:
# histogram_quantile 0.95 ms, report's p99 1.61 ms), the 800 slowest not.
Q=99
[ "${LAB_HOST:-}" != 1 ] || Q=90
python3 - "$TMP/run.json" KVM_EXIT_IO "$Q" >"$TMP/fold.txt" <<'EOF'
import json, sys
le = [125 << k for k in range(24)]
rep = json.load(open(sys.argv[1]))
row = [r for r in rep["tables"][-1]["rows"] if r["name"] == sys.argv[2]][0]
cum = [0] * 25
for lo, hi, n in row["hist"]:
    i = next((i for i, b in enumerate(le) if hi < b), 24)
    assert i == 24 or lo < le[i] and (i == 0 or lo >= le[i - 1]), "a bucket straddles a bound"
    cum[i] += n
for i in range(1, 25):
    cum[i] += cum[i - 1]
print("count", row["timed"], "p%s_us" % sys.argv[3], row["p" + sys.argv[3]])  # the histogram holds the timed exits
for i, b in enumerate(le):
    print("%.9g %d" % (b / 1e9, cum[i]))
EOF
check "python folded the recording" [ -s "$TMP/fold.txt" ]
H="kvm_exitstat_exit_duration_seconds"
curl -s --data-urlencode "query=sum by (le) (${H}_bucket{reason=\"KVM_EXIT_IO\",$sel})" \
	--data-urlencode "time=$T_Q" "http://127.0.0.1:$PP/api/v1/query" >"$TMP/buckets.json"
# serve and record each have their own ring buffer, which stamps an event
# when it writes its copy: one exit's handling time differs between the two
# by the time a write takes (tens of ns). So a sample may land on the other
# side of a bound: allowed for samples whose log-linear bucket lies within
# NEAR = 512 ns of that bound, and for 0.1 % of the count (an exit preempted
# between the two writes moves further; the fold itself is exact:
# tests/unit/test_serve.c). In the lab host QEMU's TCG runs the kernel that
# writes them, and a write takes far longer: there NEAR is 2048 ns (with
# 512 ns, 37 of 8,000 IO exits were on the other side of 32 us where 32
# were allowed).
NEAR=512
[ "${LAB_HOST:-}" != 1 ] || NEAR=2048
python3 - "$TMP/fold.txt" "$TMP/buckets.json" "$TMP/run.json" "$NEAR" >"$TMP/cmp.txt" <<'EOF'
import json, sys
want = [l.split() for l in open(sys.argv[1]).read().split("\n")[1:] if l]
got = {"%.9g" % float(r["metric"]["le"]): int(r["value"][1])
       for r in json.load(open(sys.argv[2]))["data"]["result"] if r["metric"]["le"] != "+Inf"}
row = [r for r in json.load(open(sys.argv[3]))["tables"][-1]["rows"] if r["name"] == "KVM_EXIT_IO"][0]
NEAR = int(sys.argv[4])
bad = 0
for le, n in want:
    b = round(float(le) * 1e9)
    near = sum(c for lo, hi, c in row["hist"] if hi >= b - NEAR and lo < b + NEAR)
    g = got.get(le)
    ok = g is not None and abs(g - int(n)) <= near + (row["count"] + 999) // 1000
    print("le %s prometheus %s recording %s near %d %s" % (le, g, n, near, "ok" if ok else "BAD"))
    bad += not ok
sys.exit(bad != 0)
EOF
check "every IO bucket in Prometheus = the recording's, to the clock of each buffer ($(grep BAD "$TMP/cmp.txt" | head -3))" [ $? -eq 0 ]
COUNT=$(awk 'NR == 1 { print $2 }' "$TMP/fold.txt")
eq "histogram _count = the recording's timed IO exits" "$(q "sum(${H}_count{reason=\"KVM_EXIT_IO\",$sel})")" "$COUNT"
eq "untimed = IO exits - timed (exitgen's done exits)" "$((IO - COUNT))" 2
P99=$(awk 'NR == 1 { print $4 }' "$TMP/fold.txt")
PQ=$(q "histogram_quantile(0.$Q, sum by (le) (${H}_bucket{reason=\"KVM_EXIT_IO\",$sel}))")
python3 - "$PQ" "$P99" "$Q" <<'EOF'
import sys
pq, p99 = float(sys.argv[1]), float(sys.argv[2]) / 1e6
le = [125e-9 * 2 ** k for k in range(24)]
i = next(i for i, b in enumerate(le) if pq <= b * (1 + 1e-9))
lo = le[i - 1] if i else 0
# report's p99 is itself an estimate, from bins of 2^(1/8) (stats' log-linear
# histogram): within one such bin of a bound it may sit on the other side of
# it (CI: 7.9995 us and 8.0795 us, either side of 8 us), so that much is slack.
bin = 2 ** (1 / 8)
ok = lo / bin * (1 - 1e-9) <= p99 <= le[i] * bin * (1 + 1e-9)
print("histogram_quantile %.9g s, report p%s %.9g s, bucket (%.9g, %.9g]: %s" % (pq, sys.argv[3], p99, lo, le[i], ok))
sys.exit(0 if ok else 1)
EOF
check "histogram_quantile(0.$Q) and report's p$Q share a bucket (to one report bin)" [ $? -eq 0 ]
check "time in guest is timed" [ "$(q "sum(kvm_exitstat_time_in_guest_seconds_count{$sel}) > 0")" != none ]

# --- retention: the gone VM's series stay, then go
check "stuck clients still connected" kill -0 $(echo $PIDS | awk '{ print $NF }')
# gone: a scrape that worked, without the VM
gone() {
	scrape -f >"$TMP/last.txt" && grep -q '^kvm_exitstat_events_total ' "$TMP/last.txt" &&
		! grep -q "pid=\"$E\"" "$TMP/last.txt"
}
check "the gone VM's series are dropped after --keep-gone 20" until_ok 40 gone
T_GONE=$(date +%s.%N)
check "... and were kept 20 s after exitgen ended (kept $T_END .. $T_GONE)" \
	python3 -c "import sys; sys.exit(not $T_GONE - $T_END >= 19.5)"

# --- SIGTERM
I="/sys/kernel/tracing/instances/kvm-exitstat-$S"
check "serve's instance exists while it runs" [ -d "$I" ]
kill -TERM $S
wait $S
eq "serve exit status after SIGTERM" "$?" 0
check "serve's instance removed" [ ! -d "$I" ]

# --- textfile mode with -a (every VM: exitgen is found by its pid label), a VM
# name that needs escaping, and a FIFO it must not replace
mkdir "$TMP/tf" "$TMP/fifo"
cp "$EXITGEN" "$TMP/e\"g\\x"
"$TMP/e\"g\\x" --io 700 --seconds 2 --start-on-usr1 >"$TMP/eg2.out" 2>&1 &
E2=$!
PIDS="$PIDS $E2"
wait_line "$TMP/eg2.out" '^exitgen: pid'
"$KES" serve --trace -a --textfile "$TMP/tf" --interval 0.3 2>"$TMP/serve2.err" &
S2=$!
bg
# "writing" comes once serve traces: then exitgen may start (a fixed 3 s delay
# ran out before that on a loaded CI machine, and the first exits went uncounted)
wait_line "$TMP/serve2.err" 'writing'
# (the FIFO's serve starts while exitgen waits: started after, on a slow
# host it may find exitgen's 2 s over, "no process", and never reach the
# FIFO; the lab host once had serve exit 1 without the FIFO's message)
mkfifo "$TMP/fifo/kvm_exitstat.prom"
"$KES" serve --trace -p "$E2" --textfile "$TMP/fifo" --interval 0.3 2>"$TMP/serve3.err" &
S3=$!
bg
kill -USR1 $E2
wait $E2
IO2=$(eg_total KVM_EXIT_IO "$TMP/eg2.out")
tf_io() { awk -v p="pid=\"$E2\"" 'index($0, "kvm_exitstat_exits_total{") == 1 && index($0, p) &&
	/reason="KVM_EXIT_IO"/ { print $NF }' "$TMP/tf/kvm_exitstat.prom" 2>/dev/null; }
tf_is() { [ "$(tf_io)" = "$IO2" ]; }
check "textfile IO count reaches exitgen's $IO2" until_ok 10 tf_is
promtool check metrics <"$TMP/tf/kvm_exitstat.prom" >"$TMP/promtool2.out" 2>&1
check "promtool accepts the textfile ($(head -c 300 "$TMP/promtool2.out"))" [ $? -eq 0 ]
check "the VM name is escaped" grep -q 'vm="e\\"g\\\\x"' "$TMP/tf/kvm_exitstat.prom"
eq "no temporary file left beside it" "$(ls -A "$TMP/tf")" kvm_exitstat.prom
wait $S3
eq "serve over a FIFO textfile: exit status" "$?" 1
check "the FIFO is refused ($(head -c 300 "$TMP/serve3.err"))" grep -q 'FIFO nobody reads' "$TMP/serve3.err"
check "... and still a FIFO" [ -p "$TMP/fifo/kvm_exitstat.prom" ]
kill -INT $S2
wait $S2
eq "textfile serve exit status after SIGINT" "$?" 0
check "no kvm-exitstat instance of ours left" sh -c "[ ! -d /sys/kernel/tracing/instances/kvm-exitstat-$S2 ] && [ ! -d /sys/kernel/tracing/instances/kvm-exitstat-$S3 ]"
# libmicrohttpd is opened when serve starts (src/serve/mhd.c), not linked: a
# library of that name without its functions is one line, status 1, and the
# tracefs instance serve had made is gone.
mkdir "$TMP/fakemhd"
printf 'int kes_not_libmicrohttpd;\n' >"$TMP/fakemhd/f.c"
if cc -shared -fPIC -o "$TMP/fakemhd/libmicrohttpd.so.12" "$TMP/fakemhd/f.c" 2>"$TMP/fakemhd/cc.err"; then
	LD_LIBRARY_PATH=$TMP/fakemhd "$KES" serve --listen 127.0.0.1:0 --interval 0.5 >"$TMP/mhd.out" 2>"$TMP/mhd.err" &
	M=$!
	PIDS="$PIDS $M"
	wait $M
	eq "serve with a library lacking MHD_start_daemon: exit status" "$?" 1
	eq "... says so in one line" "$(cat "$TMP/mhd.err")" \
		"kvm-exitstat: serve needs libmicrohttpd.so.12: it lacks MHD_start_daemon"
	check "... and leaves no instance" sh -c "[ ! -d /sys/kernel/tracing/instances/kvm-exitstat-$M ]"
else
	bad "cc -shared for the fake libmicrohttpd: $(head -c 200 "$TMP/fakemhd/cc.err")"
fi
summary
