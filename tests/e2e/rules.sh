#!/bin/sh
# contrib/prometheus's rules and contrib/grafana's dashboard, without KVM:
# promtool check rules and promtool test rules (series whose answers are
# worked out by hand in the test file); the dashboard is Grafana JSON with
# its data source a variable and every panel a query; then a real Prometheus
# loads the rules and scrapes serve -i of a lab recording, and every
# dashboard query, template variable, recorded series and alert expression
# returns data (tests/tools/promql-queries.py, promql-check.py). With a live
# workload, in the lab: tests/e2e/dashboard.sh.
. "$(dirname "$0")/lib.sh"
for t in promtool prometheus curl python3; do
	command -v $t >/dev/null 2>&1 || { bad "needs $t (make deps)"; summary; exit 1; }
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
promtool check rules "$RULES" >"$TMP/check.out" 2>&1
check "promtool check rules ($(tail -n 1 "$TMP/check.out"))" [ $? -eq 0 ]
check "... 12 rules" grep -q 'SUCCESS: 12 rules found' "$TMP/check.out"
(cd contrib/prometheus && promtool test rules kvm-exitstat.rules.test.yml) >"$TMP/test.out" 2>&1
check "promtool test rules ($(grep -v '^ *$' "$TMP/test.out" | tail -n 5 | tr '\n' ' '))" [ $? -eq 0 ]
# ... and the tests can fail: a threshold moved makes one
sed 's/> 0.001$/> 0.01/' "$RULES" >"$TMP/moved.rules.yml"
sed "s|kvm-exitstat.rules.yml|$TMP/moved.rules.yml|" contrib/prometheus/kvm-exitstat.rules.test.yml >"$TMP/moved.test.yml"
promtool test rules "$TMP/moved.test.yml" >/dev/null 2>&1
check "promtool test rules fails on a moved threshold" [ $? -ne 0 ]

python3 - "$DASH" >"$TMP/dash.out" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ok = True
def need(c, msg):
    global ok
    if not c:
        print("BAD", msg)
        ok = False
need(d.get("uid") == "kvm-exitstat", "uid")
vars_ = {v["name"]: v for v in d["templating"]["list"]}
need(vars_.get("datasource", {}).get("type") == "datasource", "a datasource variable")
for n in ("job", "instance", "vm", "source"):
    need(n in vars_, "variable " + n)
ids, cells = set(), set()
for p in d["panels"]:
    need(p["id"] not in ids, "unique panel id %d" % p["id"])
    ids.add(p["id"])
    g = p["gridPos"]
    need(g["x"] + g["w"] <= 24, "panel %r inside 24 columns" % p["title"])
    for x in range(g["x"], g["x"] + g["w"]):
        for y in range(g["y"], g["y"] + g["h"]):
            need((x, y) not in cells, "panel %r overlaps another" % p["title"])
            cells.add((x, y))
    if p["type"] == "row":
        continue
    need(p["datasource"]["uid"] == "${datasource}", "panel %r uses the datasource variable" % p["title"])
    need(p.get("targets"), "panel %r has queries" % p["title"])
    for t in p["targets"]:
        need("kvm_exitstat" in t["expr"] or "process_" in t["expr"] or "up{" in t["expr"],
             "panel %r queries the exporter" % p["title"])
print("panels", len(ids), "ok" if ok else "BAD")
PY
check "the dashboard: $(tail -n 1 "$TMP/dash.out") ($(grep BAD "$TMP/dash.out" | head -3 | tr '\n' ' '))" \
	sh -c "tail -n 1 '$TMP/dash.out' | grep -q ' ok$'"

# A Prometheus with the rules (evaluated every second), scraping serve -i
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
until_ok() {
	n=$(($1 * 5)); shift
	while [ $n -gt 0 ]; do "$@" && return 0; sleep 0.2; n=$((n - 1)); done
	return 1
}
SP=$(free_port)
"$KES" serve -i tests/fixtures/lab/x86-svm/kvm-exitstat.dat --listen "127.0.0.1:$SP" 2>"$TMP/serve.err" &
PIDS="$PIDS $!"
PP=$(free_port)
cat >"$TMP/prom.yml" <<EOF
global:
  scrape_interval: 2s
  scrape_timeout: 1900ms
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
until_ok 60 curl -sf "http://127.0.0.1:$PP/-/ready" -o /dev/null
check "prometheus is ready ($(grep -m1 'level=error' "$TMP/prom.log" | head -c 300))" [ $? -eq 0 ]
rules_ok() {
	curl -s "http://127.0.0.1:$PP/api/v1/rules" | python3 -c 'import json, sys
rs = [r for g in json.load(sys.stdin)["data"]["groups"] for r in g["rules"]]
sys.exit(not (len(rs) == 12 and all(r["health"] == "ok" and r.get("lastEvaluation", "0001").startswith("20") for r in rs)))' 2>/dev/null
}
check "Prometheus loaded the 12 rules, all evaluated, healthy" until_ok 30 rules_ok
# rate() needs two scrapes in its window; the recording rules an evaluation after them
has_rate() { [ "$(curl -s --data-urlencode 'query=count(instance_source:kvm_exitstat_exits:rate5m)' \
	"http://127.0.0.1:$PP/api/v1/query" | python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)' 2>/dev/null)" != 0 ]; }
check "the recording rules have data" until_ok 30 has_rate
python3 tests/tools/promql-queries.py "$DASH" "$RULES" >"$TMP/queries"
check "$(wc -l <"$TMP/queries") queries from the dashboard and the rules" [ "$(wc -l <"$TMP/queries")" -ge 40 ]
python3 tests/tools/promql-check.py "http://127.0.0.1:$PP" <"$TMP/queries" >"$TMP/results" 2>&1
rc=$?
grep -v '  ok ' "$TMP/results" | head -20
check "every dashboard and rule query returns data from serve -i ($(grep -c ' ok ' "$TMP/results") of $(wc -l <"$TMP/queries"))" [ $rc -eq 0 ]
summary
