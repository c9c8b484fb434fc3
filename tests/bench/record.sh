#!/bin/sh
# Benchmark (numbers, not pass/fail): the cost of recording exitgen's highest
# exit rate (2 vCPUs, `out` in a loop) with kvm-exitstat record, with
# `perf record -e 'kvm:*'`, and with no tracing, on the same workload.
#
#   workload_s  exitgen's own elapsed time (the guest's slowdown under tracing)
#   events      events the tracer wrote
#   uexit_lost  userspace exits missing from the file (exitgen knows the truth)
#   cpu_s       the tracer's own CPU time (user + sys; it is not the workload's parent)
#   ns/event    cpu_s / events
#
# Env: O (build dir), KES, EXITGEN, IO (exits per vCPU, default 100000), REPS (default 1).
O=${O:-build}
KES=${KES:-./kvm-exitstat}
EXITGEN=${EXITGEN:-$O/exitgen}
DATCOUNT=${DATCOUNT:-$O/tests/tools/datcount}
IO=${IO:-100000}
REPS=${REPS:-1}
TMP=$(mktemp -d /tmp/kes-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

if [ "$(id -u)" != 0 ] || [ ! -w /dev/kvm ]; then
	echo "record bench: needs root and /dev/kvm, skipped"
	exit 0
fi
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "record bench: needs /usr/bin/time (apt-get install time)"; exit 0; }

# start_workload: exitgen waits 300 ms before its first exit so a tracer can attach.
start_workload() {
	"$EXITGEN" --io "$IO" --vcpus 2 --start-delay 300 >"$TMP/eg" 2>&1 &
	WL=$!
	i=0
	while ! grep -q '^exitgen: pid' "$TMP/eg" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
}
workload_s() { awk '/^total/ { for (i = 1; i < NF; i++) if ($i == "elapsed_us") printf "%.3f", $(i + 1) / 1e6 }' "$TMP/eg"; }
expected_uexits() { awk '/^total/ { print $3 + $5 + $7 }' "$TMP/eg"; }
cpu_s() { awk '{ printf "%.3f", $1 + $2 }' "$1"; }
row() { printf '%-14s %10s %10s %10s %8s %9s\n' "$@"; }

run_none() {
	start_workload
	wait $WL
	row none "$(workload_s)" - - - -
}

run_kes() {
	start_workload
	$TIME -o "$TMP/t" -f '%U %S' "$KES" record -q -o "$TMP/k.dat" -p "$WL" 2>/dev/null
	wait $WL
	"$DATCOUNT" "$TMP/k.dat" >"$TMP/dc"
	ev=$(awk '$1 == "total" { print $2 }' "$TMP/dc")
	seen=$(awk '$1 == "event" && $2 == "kvm:kvm_userspace_exit" { print $3 }' "$TMP/dc")
	cpu=$(cpu_s "$TMP/t")
	row kvm-exitstat "$(workload_s)" "$ev" $(($(expected_uexits) - ${seen:-0})) "$cpu" \
		"$(awk -v c="$cpu" -v e="$ev" 'BEGIN { printf "%.0f", e ? c * 1e9 / e : 0 }')"
	rm -f "$TMP/k.dat"
}

run_perf() {
	command -v perf >/dev/null || { row perf "(not installed: apt-get install linux-perf)"; return; }
	start_workload
	$TIME -o "$TMP/t" -f '%U %S' perf record -q -e 'kvm:*' -p "$WL" -o "$TMP/perf.data" \
		>/dev/null 2>&1
	wait $WL
	perf script -i "$TMP/perf.data" -F event 2>/dev/null | sort | uniq -c >"$TMP/pc"
	ev=$(awk '{ s += $1 } END { print s + 0 }' "$TMP/pc")
	seen=$(awk '$2 ~ /kvm_userspace_exit/ { print $1 }' "$TMP/pc")
	cpu=$(cpu_s "$TMP/t")
	row "perf kvm:*" "$(workload_s)" "$ev" $(($(expected_uexits) - ${seen:-0})) "$cpu" \
		"$(awk -v c="$cpu" -v e="$ev" 'BEGIN { printf "%.0f", e ? c * 1e9 / e : 0 }')"
	rm -f "$TMP/perf.data"
}

echo "record bench: exitgen --io $IO --vcpus 2 (nopv), $REPS run(s) each"
row mode workload_s events uexit_lost cpu_s ns/event
r=0
while [ $r -lt "$REPS" ]; do
	run_none
	run_kes
	run_perf
	r=$((r + 1))
done
