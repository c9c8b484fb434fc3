#!/bin/sh
# The shipped dashboard and rules on a live host (issue 32's "done"): during
# an exitgen workload whose guest makes kvm_exit exits the kernel handles
# (cpuid, msr, npf, hlt) and userspace ones (io, mmio), serve traces it and a
# real Prometheus, with contrib/prometheus's rules evaluated every second,
# scrapes it; then every query of contrib/grafana's dashboard (each panel's,
# for both sources), its template variables, every recorded series and every
# alert's expression (without its threshold) returns data, and numbers, not
# NaN (tests/tools/promql-queries.py, promql-check.py). tests/e2e/rules.sh does the same without KVM, on serve -i.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
need_kvm
for t in prometheus curl python3; do
	command -v $t >/dev/null 2>&1 || skip "needs $t (make deps)"
done
RULES=contrib/prometheus/kvm-exitstat.rules.yml
DASH=contrib/grafana/kvm-exitstat.json
PIDS=
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
until_ok() {
	n=$(($1 * 5)); shift
	while [ $n -gt 0 ]; do "$@" && return 0; sleep 0.2; n=$((n - 1)); done
	return 1
}
q() {
	curl -s --data-urlencode "query=$1" "http://127.0.0.1:$PP/api/v1/query" |
		python3 -c 'import sys, json
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if r else "none")' 2>/dev/null || echo none
}
q_is() { [ "$(q "$1")" = "$2" ]; }
q_not() { [ "$(q "$1")" != "$2" ]; }

# A paced workload that outlasts Prometheus's start and the queries: a pass of
# every kind of exit each 20 ms per vCPU, for up to 10 minutes (killed at the end).
"$EXITGEN" --io 50 --mmio 20 --hlt 5 --cpuid 10 --msr 10 --pf 4 --vcpus 2 --seconds 600 \
	--pause-us 20000 --start-on-usr1 >"$TMP/eg.out" 2>&1 &
E=$!
PIDS="$PIDS $E"
wait_line "$TMP/eg.out" '^exitgen: pid'
SP=$(free_port)
"$KES" serve --trace -p "$E" --listen "127.0.0.1:$SP" --interval 0.5 2>"$TMP/serve.err" &
PIDS="$PIDS $!"
wait_line "$TMP/serve.err" 'serving'
kill -USR1 $E
PP=$(free_port)
cat >"$TMP/prom.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
  evaluation_interval: 1s
rule_files:
  - $PWD/$RULES
scrape_configs:
  - job_name: kvm-exitstat
    static_configs:
      - targets: ['127.0.0.1:$SP']
EOF
prometheus --config.file="$TMP/prom.yml" --storage.tsdb.path="$TMP/tsdb" \
	--web.listen-address="127.0.0.1:$PP" >"$TMP/prom.log" 2>&1 &
PIDS="$PIDS $!"
until_ok 120 curl -sf "http://127.0.0.1:$PP/-/ready" -o /dev/null
check "prometheus is ready ($(grep -m1 'level=error' "$TMP/prom.log" | head -c 300))" [ $? -eq 0 ]
check "prometheus scrapes serve (up == 1)" until_ok 60 q_is 'up{job="kvm-exitstat"}' 1
# rate() needs two scrapes with exits between them in its window; the recording
# rules an evaluation after that; the kvm_exit and userspace sources both
for s in kvm_exit userspace; do
	check "exits of source $s are counted" \
		until_ok 120 q_not "sum(rate(kvm_exitstat_exits_total{source=\"$s\"}[1m])) > 0" none
	check "the recording rules have $s data" \
		until_ok 60 q_not "sum(instance_source:kvm_exitstat_exits:rate5m{source=\"$s\"}) > 0" none
done
check "p99 recorded for the kvm_exit source" \
	until_ok 60 q_not 'count(kvm_exitstat:exit_duration_seconds:p99_5m{source="kvm_exit"} >= 0)' none
check "exitgen is still running (the queries see a live workload)" kill -0 $E
python3 tests/tools/promql-queries.py "$DASH" "$RULES" >"$TMP/queries"
check "$(wc -l <"$TMP/queries") queries from the dashboard and the rules" [ "$(wc -l <"$TMP/queries")" -ge 40 ]
# The lost-events and capped-exits rates are 0 on a healthy run: numbers, not NaN,
# as every other query must be.
python3 tests/tools/promql-check.py "http://127.0.0.1:$PP" --numbers <"$TMP/queries" >"$TMP/results" 2>&1
rc=$?
grep -v '  ok ' "$TMP/results" | head -20
check "every dashboard and rule query returns numbers during the workload ($(grep -c '  ok ' "$TMP/results") of $(wc -l <"$TMP/queries"))" [ $rc -eq 0 ]
check "the dashboard's exits/s by VM names exitgen's VM" \
	q_not "sum by (vm) (rate(kvm_exitstat_exits_total{vm=\"exitgen\",source=\"kvm_exit\"}[1m])) > 0" none
check "exitgen is still running after the queries" kill -0 $E
summary
