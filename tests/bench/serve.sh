#!/bin/sh
# Benchmark group "serve": what the exporter costs on one host (README,
# "serve at scale"). Not pass/fail. For 1 and 2 vCPUs of exitgen at its top
# rate (`out` in a loop, the userspace-exit path: ~7 events per exit), two
# sizes each (IO_SERVE and IO_SERVE/4 exits per vCPU), serve -p PID --interval 1
# runs under rusage while a scraper GETs /metrics every second; it is
# stopped when exitgen ends. Printed per case:
#   exits/s     exitgen's exits / its elapsed time (the rate served)
#   cpu_s       serve's CPU (user + sys), start-up and stop included
#   marg_ns     (cpu_s - cpu_s of the small run) / (exits - exits of the small run)
#   cpu_at_100k, cpu_at_1M  marg_ns x 100,000 and x 1,000,000: the share of one
#               core that collection takes at those rates (linear in exits)
#   scrape_B    bytes of the last /metrics page (text format)
# and serve's idle cost: CPU per second with nothing to trace (-p of a sleep).
# Env: IO_SERVE (default 400000), N_SERVE (best of, default 2).
. tests/bench/lib.sh
IO_SERVE=${IO_SERVE:-400000}
N_SERVE=${N_SERVE:-2}
bench_need_root "serve bench" || exit 0
in_lab serve && exit 0
command -v curl >/dev/null || { echo "serve bench: needs curl"; exit 0; }
T=$(mktemp -d /tmp/kes-bench-serve.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$BENCH_DIR"

wait_for() {
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null && [ $i -lt 500 ]; do sleep 0.02; i=$((i + 1)); done
}
port_of() { sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$1"; }

# one VCPUS IO: "exits elapsed_s cpu_s scrape_bytes"
one() {
	"$EXITGEN" --io "$2" --vcpus "$1" --start-delay 1500 >"$T/eg" 2>&1 &
	E=$!
	wait_for "$T/eg" '^exitgen: pid'
	rm -f "$T/ru"
	"$RUSAGE" -o "$T/ru" -- "$KES" serve --trace -p "$E" --listen 127.0.0.1:0 --interval 1 2>"$T/err" &
	R=$!
	wait_for "$T/err" serving
	P=$(port_of "$T/err")
	while kill -0 $E 2>/dev/null; do
		curl -s "http://127.0.0.1:$P/metrics" -o "$T/page"
		sleep 1
	done
	wait $E
	sleep 1.2
	curl -s "http://127.0.0.1:$P/metrics" -o "$T/page"
	kill -TERM $R
	wait $R
	ex=$(awk '/^total/ { for (i = 2; i < NF; i += 2) if ($i ~ /^KVM_EXIT/) s += $(i + 1) } END { print s }' "$T/eg")
	us=$(awk '/^total/ { for (i = 1; i < NF; i++) if ($i == "elapsed_us") print $(i + 1) }' "$T/eg")
	echo "$ex $(calc 'us / 1e6' us="$us") $(awk '{ print $2 + $3 }' "$T/ru") $(wc -c <"$T/page")"
}
best() { # VCPUS IO: the run with the least CPU of N_SERVE
	b=
	for n in $(seq "$N_SERVE"); do
		r=$(one "$1" "$2")
		if [ -z "$b" ] || less_than "$(echo "$r" | cut -d' ' -f3)" "$(echo "$b" | cut -d' ' -f3)"; then b=$r; fi
	done
	echo "$b"
}

echo "== serve: exporter cost ($(date -u +%FT%TZ), load $(cut -d' ' -f1 /proc/loadavg), $(nproc) cores)"
printf '%-6s %10s %10s %9s %9s %8s %11s %9s %9s\n' vcpus exits exits/s cpu_s marg_ns \
	cpu% cpu_at_100k cpu_at_1M scrape_B
for v in 1 2; do
	set -- $(best $v $((IO_SERVE / 4)))
	sx=$1 sc=$3
	set -- $(best $v $IO_SERVE)
	m=$(calc '(c - sc) / (x - sx) * 1e9' c="$3" sc="$sc" x="$1" sx="$sx")
	printf '%-6s %10s %10.0f %9.3f %9.1f %7.1f%% %10.1f%% %8.1f%% %9s\n' $v "$1" \
		"$(calc 'x / e' x="$1" e="$2")" "$3" "$m" "$(calc 'c / e * 100' c="$3" e="$2")" \
		"$(calc 'm * 1e5 / 1e7' m="$m")" "$(calc 'm * 1e6 / 1e7' m="$m")" "$4"
	echo "serve,vcpus$v,$1,,$N_SERVE,$2,$3,,,,$m,,marginal ns per exit; scrape $4 B" >>"$CSV" 2>/dev/null
done
sleep 30 &
S=$!
"$RUSAGE" -o "$T/ru" -- "$KES" serve --trace -p $S --listen 127.0.0.1:0 --interval 1 2>"$T/err" &
R=$!
wait_for "$T/err" serving
sleep 10
kill -TERM $R
wait $R
kill $S
echo "idle: $(awk '{ printf "%.4f s CPU in %.1f s (%.3f%% of a core)", $2 + $3, $1, ($2 + $3) / $1 * 100 }' "$T/ru")"
