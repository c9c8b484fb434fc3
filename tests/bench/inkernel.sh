#!/bin/sh
# Benchmark group "inkernel": what it costs per exit to count the exits per
# reason and keep their exit -> entry latency histogram, three ways, and
# what the flight recorder costs while it only records, every observer on
# the same workload in the same run (exitgen, 1 vCPU, `out` in a loop: on
# the lab host's SVM each is a kvm_exit, a kvm_entry and a userspace exit):
#
#   none          the workload unobserved
#   top -l        kvm-exitstat top -l -d 1 -p PID: every exit streamed to us
#   --in-kernel   kvm-exitstat top --in-kernel -l -d 1 -p PID: hist triggers
#                 and a synthetic exit -> entry event, read each interval
#   bpftrace      the same job in eBPF: a map of counts by exit_reason and a
#                 hist() of exit -> entry per reason (tracepoints kvm_exit and
#                 kvm_entry of PID)
#   flight        kvm-exitstat record --flight 30 -p PID: the ring buffer
#                 written in overwrite mode, never read (no trigger)
#
# The cost of an observer is in two places: in the traced threads (the
# kernel writing events, running triggers or BPF programs: seen as the
# workload's own slowdown) and in the observer's process (its CPU). Columns:
#   wl_s          exitgen's elapsed time (from its first KVM_RUN), best of N
#   wl_ns/exit    (wl_s - the unobserved wl_s) / exits: the in-thread cost
#   cpu_s         the observer's CPU (user + sys) once set up: its CPU
#                 before the workload's first KVM_RUN (exitgen --start-delay)
#                 taken out (bpftrace's compile, our instance's set-up: a
#                 second or two under TCG), in brackets
#   cpu_ns/exit   cpu_s / exits
#   ns/exit       the two added: the whole cost of observing one exit
# exits: exitgen's own count (KVM_EXIT_IO + KVM_EXIT_HLT + ...).
#
# Env: IO_INK (exits per run, default 100000), N_INK (best of, default 3).
. tests/bench/lib.sh
IO_INK=${IO_INK:-100000}
N_INK=${N_INK:-3}
bench_need_root "inkernel bench" || exit 0
in_lab inkernel && exit 0
T=$(mktemp -d /tmp/kes-bench-ink.XXXXXX)
trap 'rm -rf "$T"' EXIT

wait_for() {
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null && [ $i -lt 500 ]; do
		sleep 0.02
		i=$((i + 1))
	done
}
start_workload() { # START_DELAY_MS
	"$EXITGEN" --io "$IO_INK" --start-delay "$1" >"$T/eg" 2>&1 &
	WL=$!
	wait_for "$T/eg" '^exitgen: pid'
}
wl_s() { awk '/^total/ { for (i = 1; i < NF; i++) if ($i == "elapsed_us") print $(i + 1) / 1e6 }' "$T/eg"; }
exits() { awk '/^total/ { s = 0; for (i = 2; i < NF; i += 2) if ($i ~ /^KVM_EXIT_/) s += $(i + 1); print s }' "$T/eg"; }
cpu_of() { awk '{ print $2 + $3 }' "$1"; }
cpu_now() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { print s / 1e9 }'; }

keep() { # KEY WL CPU
	eval "bw=\${wl_$1:-}; bc=\${cpu_$1:-}; n_$1=\$((\${n_$1:-0} + 1))"
	{ [ -z "$bw" ] || less_than "$2" "$bw"; } && eval "wl_$1=\$2"
	{ [ -z "$bc" ] || less_than "$3" "$bc"; } && eval "cpu_$1=\$3"
	eval "x_$1=\$(exits)"
}

run_none() {
	start_workload 600
	wait $WL
	keep none "$(wl_s)" 0
}

# observe KEY CMD...: CMD runs beside the workload (started first, 3 s
# before its first KVM_RUN); what CMD used by then is its set-up, not counted.
observe() {
	k=$1
	shift
	start_workload 3000
	"$RUSAGE" -o "$T/t" -p "$T/obspid" -- "$@" >"$T/obs.out" 2>&1 &
	OBS=$!
	sleep 2.5
	startup=$(cpu_now "$(cat "$T/obspid")")
	wait $WL
	kill -INT $OBS 2>/dev/null
	wait $OBS
	eval "up_$k=\$startup"
	keep "$k" "$(wl_s)" "$(calc "t - s" t="$(cpu_of "$T/t")" s="$startup")"
}

run_top() { # KEY OPTS...
	k=$1
	shift
	observe "$k" "$KES" top -l -d 1 "$@" -p "$WL"
}

run_bpftrace() {
	command -v bpftrace >/dev/null || return
	start_workload 3000
	"$RUSAGE" -o "$T/t" -p "$T/btpid" -- bpftrace -e "BEGIN { printf(\"ready\\n\"); }
		tracepoint:kvm:kvm_exit /pid == $WL/ { @n[args->exit_reason] = count();
			@s[tid] = nsecs; @r[tid] = args->exit_reason; }
		tracepoint:kvm:kvm_entry /pid == $WL && @s[tid]/ {
			@lat[@r[tid]] = hist(nsecs - @s[tid]); delete(@s[tid]); }" >"$T/bt.out" 2>&1 &
	OBS=$!
	wait_for "$T/bt.out" '^ready'
	startup=$(cpu_now "$(cat "$T/btpid")")
	wait $WL
	kill -INT $OBS
	wait $OBS
	up_bpftrace=$startup
	keep bpftrace "$(wl_s)" "$(calc "t - s" t="$(cpu_of "$T/t")" s="$startup")"
}

run_flight() {
	mkdir -p "$T/fl"
	observe flight "$KES" record --flight 30 -q -o "$T/fl" -p "$WL"
}

row() { printf '%-12s %2s %8s %11s %16s %11s %9s\n' "$@"; }
print_row() { # KEY NAME
	eval "n=\${n_$1:-0} wl=\${wl_$1:-} cpu=\${cpu_$1:-} x=\${x_$1:-0} up=\${up_$1:-}"
	[ "$n" -gt 0 ] || { row "$2" 0 "(not installed)"; return; }
	if [ "$1" = none ]; then
		row "$2" "$n" "$wl" - - - -
		csv_row inkernel "$IO_INK" "$x" "$2" "$n" "$wl" "" "" "" "" "" "" "workload unobserved"
		return
	fi
	wlx=$(fmt "%.0f" "(w - b) * 1e9 / x" w="$wl" b="$wl_none" x="$x")
	cpx=$(fmt "%.0f" "c * 1e9 / x" c="$cpu" x="$x")
	tot=$(fmt "%.0f" "((w - b) + c) * 1e9 / x" w="$wl" b="$wl_none" c="$cpu" x="$x")
	eval "TOT_$1=\$tot"
	row "$2" "$n" "$wl" "$wlx" "$cpu ($up)" "$cpx" "$tot"
	csv_row inkernel "$IO_INK" "$x" "$2" "$n" "$wl" "$cpu" "" "" "" "$tot" "" \
		"in-thread ns/exit $wlx; observer ns/exit $cpx; total ns/exit $tot; set-up CPU $up s"
}

echo "inkernel: exitgen --io $IO_INK (1 vCPU), best of $N_INK per observer; times in s"
r=0
while [ $r -lt "$N_INK" ]; do
	run_none
	run_top top
	run_top ink --in-kernel
	run_bpftrace
	run_flight
	r=$((r + 1))
done
row observer N wl_s wl_ns/exit cpu_s cpu_ns/exit ns/exit
print_row none none
print_row top "top -l"
print_row ink "--in-kernel"
print_row bpftrace bpftrace
print_row flight "flight"
printf '  per exit, all costs: streaming %s ns, in-kernel %s ns, bpftrace %s ns; flight recorder (steady) %s ns\n' \
	"${TOT_top:--}" "${TOT_ink:--}" "${TOT_bpftrace:--}" "${TOT_flight:--}"
