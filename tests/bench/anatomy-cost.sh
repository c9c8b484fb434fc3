#!/bin/sh
# anatomy-cost.sh [ROUNDS]: what record --anatomy costs, against record without it,
# on real KVM (run it where kvm_exit fires: the lab host, tests/lab/host.sh). Each
# workload is recorded by `record -p` attached to an exitgen that waits for SIGUSR1,
# under tests/bench/rusage (record's own CPU, not exitgen's), both ways, ROUNDS
# (default 3) times; each row is one run: its events, exits, the KVM and the
# anatomy events (sched_*, irq_*, kvm_halt_poll_ns), record's CPU per event and
# per exit, and the anatomy events the kernel's pid filter let through per exit.
set -u
KES=${KES:-./kvm-exitstat}
EXITGEN=${EXITGEN:-build/exitgen}
RUSAGE=${RUSAGE:-build/tests/bench/rusage}
ROUNDS=${1:-3}
T=$(mktemp -d /tmp/kes-anacost.XXXXXX)
trap 'rm -rf "$T"' EXIT

one() { # NAME ANATOMY(0|1) EXITGEN-ARGS...
	name=$1 an=$2
	shift 2
	"$EXITGEN" --start-on-usr1 --quiet "$@" >/dev/null 2>&1 &
	eg=$!
	sleep 0.3
	flag=
	[ "$an" = 1 ] && flag=--anatomy
	"$RUSAGE" -o "$T/ru" -- "$KES" record $flag -q -p "$eg" -o "$T/r.dat" &
	rec=$!
	i=0
	while [ $i -lt 100 ] && ! grep -qx "$eg" /sys/kernel/tracing/instances/kvm-exitstat-*/set_event_pid 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 0.2
	kill -USR1 "$eg"
	wait "$eg"
	wait "$rec"
	trace-cmd report "$T/r.dat" 2>/dev/null | awk -v name="$name" -v an="$an" -v ru="$(cat "$T/ru")" '
		{ for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { e = $(i + 1); break }
		  n++; if (e == "kvm_exit:") x++
		  if (e ~ /^(sched_|irq_handler|softirq_|kvm_halt_poll_ns)/) s++ }
		END { split(ru, r, " "); cpu = (r[2] + r[3]) * 1e9
		      printf "%-5s anatomy %d events %7d exits %6d sched_irq %6d cpu_ms %7.1f ns_per_event %6.0f ns_per_exit %6.0f sched_irq_per_exit %.3f\n",
		      name, an, n, x, s, cpu / 1e6, n ? cpu / n : 0, x ? cpu / x : 0, x ? s / x : 0 }'
}

r=0
while [ $r -lt "$ROUNDS" ]; do
	for an in 0 1; do
		one io "$an" --io 20000
		one hog "$an" --hog --io 20000
		one hlt "$an" --hlt 300 --hlt-us 100
	done
	r=$((r + 1))
done
