#!/bin/sh
# Benchmark group "live": what observing exitgen's highest exit rate costs
# (2 vCPUs, `out` in a loop; each exit is ~7 KVM events here), every
# observer on the same workload in the same run:
#
#   none          the workload untraced
#   record        kvm-exitstat record -p PID (the collector; writes a trace.dat)
#   top -l        kvm-exitstat top -l -d 1 -p PID (decode, pair, stats live)
#   perf record   perf record -e 'kvm:*' -p PID
#   bpftrace      a script counting every kvm tracepoint of PID in a map
#   kvm_stat -l   the kernel's tools/kvm/kvm_stat in its logging mode, when
#                 there is one: $KVM_STAT, kvm_stat on PATH, or taken from
#                 Debian's linux-source tarball (patched to assume VMX on a
#                 host whose cpuinfo shows neither vmx nor svm; it needs
#                 debugfs, mounted for the run when it is not)
#
# Each observer runs on two workload sizes, IO_LIVE and IO_LIVE/4 exits per
# vCPU, N_LIVE times each; every figure is the best of its N runs (wall and
# CPU separately). Columns, for the IO_LIVE runs:
#   wl_s          exitgen's own elapsed time (from its first KVM_RUN)
#   slowdown      wl_s / the untraced wl_s
#   cpu_s         the observer's CPU time, user + sys, start-up included
#                 (bpftrace: from its probes being attached on, i.e. without
#                 its LLVM compile, which the note gives)
#   events        events the observer got (top says none: record's count)
#   ns/event      cpu_s / events, start-up included
#   marg_ns/ev    the marginal cost: (cpu_s - cpu_s at IO_LIVE/4) / (events -
#                 events at IO_LIVE/4), which start-up costs cancel out of
#   marg_ns/exit  the same per exit (exitgen's count)
#   wl_ns/event   (wl_s - untraced wl_s) / events: the cost in the traced
#                 threads themselves (where bpftrace's programs run)
#   uexit_lost    userspace exits the observer missed, per run
#
# Env: IO_LIVE (exits per vCPU, default 100000), N_LIVE (3).
. tests/bench/lib.sh
IO_LIVE=${IO_LIVE:-100000}
N_LIVE=${N_LIVE:-3}
IO_SMALL=$((IO_LIVE / 4))
bench_need_root "live bench" || exit 0
in_lab live && exit 0
T=$(mktemp -d /tmp/kes-bench-live.XXXXXX)
MOUNTED=
cleanup() {
	[ -n "$MOUNTED" ] && umount /sys/kernel/debug
	rm -rf "$T"
}
trap cleanup EXIT

# wait_for FILE PATTERN: until a line of FILE matches (at most 10 s).
wait_for() {
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null && [ $i -lt 500 ]; do
		sleep 0.02
		i=$((i + 1))
	done
}
start_workload() { # IO START_DELAY_MS
	"$EXITGEN" --io "$1" --vcpus 2 --start-delay "$2" >"$T/eg" 2>&1 &
	WL=$!
	wait_for "$T/eg" '^exitgen: pid'
}
wl_s() { awk '/^total/ { for (i = 1; i < NF; i++) if ($i == "elapsed_us") print $(i + 1) / 1e6 }' "$T/eg"; }
exits() { awk '/^total/ { print $3 + $5 + $7 }' "$T/eg"; }
cpu_of() { awk '{ print $2 + $3 }' "$1"; }
# CPU seconds pid's threads have used so far (schedstat: ns on the CPU).
cpu_now() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { print s / 1e9 }'; }

# keep KEY WL CPU EVENTS LOST [NOTE]: the best of the runs per observer and size.
keep() {
	# An observer that saw nothing failed (attached after the workload ended):
	# said, and not kept, or its small CPU time would win "best of".
	case $1 in
	none*) ;;
	*) if [ "$4" = 0 ]; then
		echo "$1: a run saw no events: not kept" >&2
		return
	fi ;;
	esac
	eval "n_$1=\$((\${n_$1:-0} + 1)); bw=\${wl_$1:-}; bc=\${cpu_$1:-}"
	{ [ -z "$bw" ] || less_than "$2" "$bw"; } && eval "wl_$1=\$2"
	{ [ -z "$bc" ] || less_than "$3" "$bc"; } && eval "cpu_$1=\$3 ev_$1=\$4 note_$1=\"\$6\""
	eval "lost_$1=\"\${lost_$1:+\$lost_$1/}\$5\" exits_$1=\$(exits)"
}

run_none() { # SIZE IO
	start_workload "$2" 600
	wait $WL
	keep "none$1" "$(wl_s)" 0 0 0
}

run_record() {
	start_workload "$2" 600
	"$RUSAGE" -o "$T/t" -- "$KES" record -q -o "$T/k.dat" -p "$WL" >/dev/null 2>"$T/rec.err"
	rc=$?
	wait $WL
	# A failed run is said and not kept: its small CPU time would win "best of".
	if [ $rc -ne 0 ] || [ ! -s "$T/k.dat" ]; then
		echo "record run failed (exit $rc): $(head -c 300 "$T/rec.err")" >&2
		rm -f "$T/k.dat"
		return
	fi
	"$DATCOUNT" "$T/k.dat" >"$T/dc"
	ev=$(awk '$1 == "total" { print $2 }' "$T/dc")
	seen=$(awk '$1 == "event" && $2 == "kvm:kvm_userspace_exit" { print $3 }' "$T/dc")
	keep "record$1" "$(wl_s)" "$(cpu_of "$T/t")" "$ev" $(($(exits) - ${seen:-0}))
	rm -f "$T/k.dat"
}

run_top() {
	start_workload "$2" 600
	"$RUSAGE" -o "$T/t" -- "$KES" top -l -d 1 -p "$WL" >"$T/top.out" 2>&1
	wait $WL
	keep "top$1" "$(wl_s)" "$(cpu_of "$T/t")" - -
}

run_perf() {
	command -v perf >/dev/null || return
	start_workload "$2" 600
	"$RUSAGE" -o "$T/t" -- perf record -e 'kvm:*' -p "$WL" -o "$T/perf.data" >/dev/null 2>"$T/perf.err"
	wait $WL
	ev=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$T/perf.err" | tail -n 1)
	seen=$(perf script -i "$T/perf.data" -F event 2>/dev/null | grep -c kvm_userspace_exit)
	keep "perf$1" "$(wl_s)" "$(cpu_of "$T/t")" "${ev:-0}" $(($(exits) - seen))
	rm -f "$T/perf.data"
}

run_bpftrace() {
	command -v bpftrace >/dev/null || return
	start_workload "$2" 3000
	"$RUSAGE" -o "$T/t" -p "$T/btpid" -- bpftrace -e "BEGIN { printf(\"ready\\n\"); }
		tracepoint:kvm:* /pid == $WL/ { @[probe] = count(); }" >"$T/bt.out" 2>&1 &
	OBS=$!
	wait_for "$T/bt.out" '^ready'
	startup=$(cpu_now "$(cat "$T/btpid")")
	wait $WL
	kill -INT $OBS
	wait $OBS
	ev=$(awk -F': ' '/^@\[tracepoint:kvm:/ { s += $2 } END { print s + 0 }' "$T/bt.out")
	seen=$(awk -F': ' '/kvm_userspace_exit\]/ { print $2 }' "$T/bt.out")
	keep "bpftrace$1" "$(wl_s)" "$(calc "t - s" t="$(cpu_of "$T/t")" s="$startup")" "$ev" \
		$(($(exits) - ${seen:-0})) "start-up (compile + attach) CPU $startup s"
}

find_kvm_stat() {
	KS=${KVM_STAT:-$(command -v kvm_stat 2>/dev/null)}
	if [ -z "$KS" ]; then
		tarball=$(ls /usr/src/linux-source-*.tar.* 2>/dev/null | tail -n 1)
		[ -n "$tarball" ] || return 1
		dir=$(basename "$tarball" | sed 's/\.tar\..*//')
		tar -xf "$tarball" -C "$T" "$dir/tools/kvm/kvm_stat/kvm_stat" 2>/dev/null || return 1
		KS=$T/$dir/tools/kvm/kvm_stat/kvm_stat
	fi
	if ! grep -qw -e vmx -e svm /proc/cpuinfo; then
		python3 - "$KS" "$T/kvm_stat" <<'PY' || return 1
import sys
s = open(sys.argv[1]).read()
old = "                    return ArchX86(SVM_EXIT_REASONS)\n                return\n"
if s.count(old) != 1:
    sys.exit(1)
open(sys.argv[2], "w").write(s.replace(old, old[:-1] + " ArchX86(VMX_EXIT_REASONS)\n"))
PY
		KS=$T/kvm_stat
	fi
	if [ ! -d /sys/kernel/debug/kvm ]; then
		mount -t debugfs none /sys/kernel/debug 2>/dev/null && MOUNTED=1
	fi
	[ -d /sys/kernel/debug/tracing/events/kvm ]
}

# kvm_stat never ends by itself: SIGTERM once the workload is gone and a last interval logged.
run_kvmstat() {
	[ -n "$KS" ] || return
	start_workload "$2" 2500
	"$RUSAGE" -o "$T/t" -- python3 "$KS" -t -l -s 1 -p "$WL" >"$T/ks.out" 2>&1 &
	OBS=$!
	wait $WL
	sleep 1.2
	kill -TERM $OBS
	wait $OBS
	keep "kvmstat$1" "$(wl_s)" "$(cpu_of "$T/t")" - -
}

row() { printf '%-12s %2s %7s %8s %8s %8s %8s %10s %12s %11s %s\n' "$@"; }
print_row() { # KEY NAME
	eval "n=\${n_$1:-0} wl=\${wl_$1:-} cpu=\${cpu_$1:-} ev=\${ev_$1:-} lost=\${lost_$1:-}" \
		"note=\${note_$1:-} x=\${exits_$1:-0} cpu4=\${cpu_${1}4:-} ev4=\${ev_${1}4:-}" \
		"x4=\${exits_${1}4:-0}"
	[ "$n" -gt 0 ] || { row "$2" 0 "(not installed)"; return; }
	if [ "$1" = top ] || [ "$1" = kvmstat ]; then # no event counts: record's of the same workload
		ev=${ev_record:-0} ev4=${ev_record4:-0} note="events: record's count of the same workload"
	fi
	slow=$(fmt "%.2f" "w / b" w="$wl" b="$wl_none")
	if [ "$1" = none ]; then
		row "$2" "$n" "$wl" 1.00 - - - - - - -
		csv_row live "$IO_LIVE" "$x" "$2" "$n" "$wl" "" "" "" "" "" "" "workload untraced"
		return
	fi
	wlns=$(fmt "%.0f" "(w - b) * 1e9 / e" w="$wl" b="$wl_none" e="$ev")
	nse=$(fmt "%.0f" "c * 1e9 / e" c="$cpu" e="$ev")
	mev=$(fmt "%.0f" "(c - c4) * 1e9 / (e - e4)" c="$cpu" c4="$cpu4" e="$ev" e4="$ev4")
	mex=$(fmt "%.0f" "(c - c4) * 1e9 / (x - x4)" c="$cpu" c4="$cpu4" x="$x" x4="$x4")
	eval "MEV_$1=\$mev MEX_$1=\$mex NSE_$1=\$nse NSX_$1=\$(fmt '%.0f' 'c * 1e9 / x' c=\$cpu x=\$x)"
	row "$2" "$n" "$wl" "$slow" "$cpu" "$ev" "$nse" "$mev" "$mex" "$wlns" "$lost"
	csv_row live "$IO_LIVE" "$ev" "$2" "$n" "$wl" "$cpu" "" "" "" "$nse" "" \
		"marginal ns/event $mev; marginal ns/exit $mex; slowdown $slow; wl_ns/event $wlns; uexit_lost $lost${note:+; $note}"
	[ -n "$note" ] && echo "               ($note)"
	true
}

echo "live: exitgen --vcpus 2 (nopv) --io $IO_LIVE and --io $IO_SMALL, best of $N_LIVE per observer and size; times in s"
find_kvm_stat || KS=
r=0
while [ $r -lt "$N_LIVE" ]; do
	for o in none record top perf bpftrace kvmstat; do
		"run_$o" "" "$IO_LIVE"
		"run_$o" 4 "$IO_SMALL"
	done
	r=$((r + 1))
done
row observer N wl_s slowdown cpu_s events ns/event marg_ns/ev marg_ns/exit wl_ns/event uexit_lost
print_row none none
print_row record record
print_row top "top -l"
print_row perf "perf record"
print_row bpftrace bpftrace
print_row kvmstat "kvm_stat -l"
printf '  targets: record %s ns/event, %s marginal (<= 40); top -l %s ns/exit, %s marginal (<= 150);' \
	"$NSE_record" "$MEV_record" "$NSX_top" "$MEX_top"
printf ' perf/record CPU %s; exits %s\n' \
	"$(fmt "%.1fx" "p / r" p="${cpu_perf:-0}" r="$cpu_record")" "$exits_none"
