#!/bin/sh
# An exporter no client can stall (issue 29): serve on loopback against the
# slowloris pattern (tests/tools/slowloris.py: 40 connections, 4 from each of
# 127.0.0.10..19, each trickling a header line every 4 s and reconnecting
# when dropped) while two scrapers GET /metrics every 0.25 s; then a burst of
# 10,000 connections. Every scrape must be answered, those after the burst
# within 100 ms; a request that trickles within the bounds is dropped at its
# deadline. Before the fix no scrape was answered while the attack lasted.
# Needs root (serve's default traces nothing: KVM's own statistics, none on a
# host without KVM; nothing is asserted about exits). Ports are free ones; every process started here is killed.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (serve traces)"
command -v python3 >/dev/null 2>&1 || skip "needs python3"
command -v curl >/dev/null 2>&1 || skip "needs curl"
SP=
trap '[ -z "$SP" ] || kill "$SP" 2>/dev/null; rm -rf "$TMP"' EXIT
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# Both ends ahead of the machine's other work (root): the latencies are the server's,
# not those of a loaded machine's scheduler.
nice -n -10 "$KES" serve -l "127.0.0.1:$PORT" >"$TMP/serve.out" 2>"$TMP/serve.err" &
SP=$!
n=0
until curl -sf -o /dev/null "http://127.0.0.1:$PORT/metrics" || [ $n -ge 50 ]; do
	sleep 0.2
	n=$((n + 1))
done
check "serve answers ($(head -c 200 "$TMP/serve.err"))" curl -sf -o /dev/null "http://127.0.0.1:$PORT/metrics"

# field PHASE N [FILE]: the Nth number from "scrapes" on on PHASE's line (1 scrapes,
# 2 answered, 3 failed, 4-6 latency min/median/max).
field() {
	grep "^$1" "${3:-$TMP/loris.out}" | sed 's/.*scrapes//; s/[^0-9.]\{1,\}/ /g' |
		awk -v n="$2" '{ print $n }'
}
timeout 120 nice -n -10 python3 tests/tools/slowloris.py "$PORT" --seconds 20 --burst 10000 \
	--burst-at 12 >"$TMP/loris.out" 2>&1
eq "slowloris.py ran" "$?" 0
sed 's/^/  /' "$TMP/loris.out"
for phase in "during the attack, before" "during the burst" "after the burst" "later"; do
	eq "$phase: scrapes failed" "$(field "$phase" 3)" 0
	check "$phase: scrapes answered ($(field "$phase" 2))" test "$(field "$phase" 2)" -gt 0
done
check "during the attack: scrapes answered every 0.25 s ($(field "during the attack, before" 2) of ~70)" \
	test "$(field "during the attack, before" 2)" -ge 30
# After the burst: within 100 ms (it was up to ~2 s: the listener stopped accepting at its
# limit and new connections waited for SYN retransmits). A loaded machine delays a scrape
# now and then whatever the server does: a slower one passes only when the scrapes
# without a burst (before it and later) were as slow.
after_med=$(field "after the burst" 5) after_max=$(field "after the burst" 6)
noise=$(printf '%s\n%s\n' "$(field "during the attack, before" 6)" "$(field "later" 6)" | sort -g | tail -n 1)
check "after the burst of 10,000 connections: median scrape within 100 ms ($after_med ms)" \
	awk -v m="$after_med" 'BEGIN { exit !(m != "" && m < 100) }'
# The slowest: within 500 ms, a quarter of the defect's ~2 s (under ASan on a
# machine running two lab guests one took 109 ms, the median 1.5 ms).
check "after the burst: every scrape within 500 ms, or no slower than without a burst (max $after_max ms; without: $noise ms)" \
	awk -v m="$after_max" -v n="$noise" 'BEGIN { exit !(m != "" && (m < 500 || m <= n)) }'
check "serve still runs" kill -0 "$SP"

# Within every bound (8 connections, 4 from each of two addresses), trickling a header
# line every second: dropped at the deadline all the same.
dropped() {
	curl -s "http://127.0.0.1:$PORT/metrics" |
		sed -n "s/^kvm_exitstat_http_dropped_connections_total{reason=\"$1\"} //p"
}
before=$(dropped deadline)
timeout 60 python3 tests/tools/slowloris.py "$PORT" --attackers 8 --trickle 1 --seconds 8 \
	>"$TMP/loris2.out" 2>&1
sed 's/^/  /' "$TMP/loris2.out"
eq "8 trickling connections: scrapes failed" "$(field "during the attack" 3 "$TMP/loris2.out")" 0
check "8 trickling connections: dropped at the 5 s deadline ($before -> $(dropped deadline))" \
	test "$(dropped deadline)" -ge $((before + 8))
kill "$SP"
wait "$SP"
eq "serve ends on SIGTERM" "$?" 0
SP=
summary
