#!/bin/sh
# Benchmark (numbers, not pass/fail): `kvm-exitstat report` on real
# recordings of about 1 M, 4 M and 16 M events (exitgen, 2 vCPUs, about 7
# events per exit), against `trace-cmd report` on the same files.
#
#   events     records in the file (libtracecmd's count)
#   MB         file size
#   wall_s     report -f csv >/dev/null, best of REPS (the fast path)
#   cpu_s      user + sys, best of REPS (perf task-clock when perf works)
#   Mev/s      events / cpu_s, and events / wall_s
#   rss_MB     peak RSS, the highest of the runs (flat as the file grows)
#   nofast_s   the same report through libtracecmd (KES_NO_FASTPATH=1), once,
#   nofast_MB  and its peak RSS
#   tc_s       trace-cmd report F >/dev/null, once (1x and 4x files only)
#   x_tc       tc_s / wall_s
#
# Env: O (build dir), KES, EXITGEN, IO (exits per vCPU for the 1x file,
# default 72000), SIZES (multipliers, default "1 4 16"), REPS (default 3).
O=${O:-build}
KES=${KES:-./kvm-exitstat}
EXITGEN=${EXITGEN:-$O/exitgen}
DATCOUNT=${DATCOUNT:-$O/tests/tools/datcount}
IO=${IO:-72000}
SIZES=${SIZES:-1 4 16}
REPS=${REPS:-3}
TIME=/usr/bin/time

if [ "$(id -u)" != 0 ] || [ ! -w /dev/kvm ]; then
	echo "report bench: needs root and /dev/kvm to record, skipped"
	exit 0
fi
[ -x "$TIME" ] || { echo "report bench: needs /usr/bin/time (make deps)"; exit 0; }
TMP=$(mktemp -d /tmp/kes-bench-report.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# measure CMD...: sets w (wall s), c (user + sys s), m (peak RSS KiB).
# Two runs: wall from date(1) in ns around the bare command; CPU from perf's
# task-clock when perf works (ms resolution; /usr/bin/time's is 10 ms) and
# RSS from /usr/bin/time, whose own fork costs a millisecond of that CPU.
measure() {
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s%N)
	w=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
	if [ -n "$PERF" ]; then
		perf stat -x, -e task-clock -o "$TMP/p" -- $TIME -q -o "$TMP/t" -f '%M %U %S' "$@" \
			>/dev/null 2>&1
		c=$(awk -F, '/task-clock/ { printf "%.3f", $1 / 1000 }' "$TMP/p")
	else
		$TIME -q -o "$TMP/t" -f '%M %U %S' "$@" >/dev/null 2>&1
	fi
	read -r m u s <"$TMP/t"
	[ -n "$PERF" ] || c=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.3f", u + s }')
}
PERF=
perf stat -x, -e task-clock -o /dev/null true >/dev/null 2>&1 && PERF=perf

row() { printf '%-4s %9s %6s %7s %7s %6s %7s %6s %8s %9s %7s %5s\n' "$@"; }

bench_one() { # MULTIPLIER
	f=$TMP/r$1.dat
	"$KES" record -q -o "$f" -- "$EXITGEN" --io $((IO * $1)) --vcpus 2 --quiet ||
		{ echo "report bench: record failed"; return; }
	ev=$("$DATCOUNT" "$f" | awk '$1 == "total" { print $2 }')
	mb=$(awk -v s="$(stat -c %s "$f")" 'BEGIN { printf "%.0f", s / 1e6 }')
	# warm the page cache, then the best of REPS
	"$KES" report -i "$f" -f csv >/dev/null 2>&1
	best= cpu= rss=0 r=0
	while [ $r -lt "$REPS" ]; do
		measure "$KES" report -i "$f" -f csv
		[ "$m" -gt "$rss" ] && rss=$m
		awk -v a="$w" -v b="${best:-1e9}" 'BEGIN { exit !(a < b) }' && best=$w
		awk -v a="$c" -v b="${cpu:-1e9}" 'BEGIN { exit !(a < b) }' && cpu=$c
		r=$((r + 1))
	done
	KES_NO_FASTPATH=1 measure "$KES" report -i "$f" -f csv
	nofast=$w nofast_rss=$m
	tc=- x=-
	if [ "$1" -le 4 ] && command -v trace-cmd >/dev/null; then
		measure trace-cmd report "$f"
		tc=$w
		x=$(awk -v t="$tc" -v w="$best" 'BEGIN { printf "%.0f", (w > 0 ? t / w : 0) }')
	fi
	row "${1}x" "$ev" "$mb" "$best" "$cpu" \
		"$(awk -v e="$ev" -v c="$cpu" 'BEGIN { printf "%.1f", (c > 0 ? e / c / 1e6 : 0) }')" \
		"$(awk -v e="$ev" -v c="$best" 'BEGIN { printf "%.1f", (c > 0 ? e / c / 1e6 : 0) }')" \
		"$(awk -v m="$rss" 'BEGIN { printf "%.1f", m / 1024 }')" "$nofast" \
		"$(awk -v m="$nofast_rss" 'BEGIN { printf "%.1f", m / 1024 }')" "$tc" "$x"
	rm -f "$f"
}

echo "report bench: exitgen --io IO*N --vcpus 2, report -f csv, best of $REPS (times in s)"
row size events MB wall_s cpu_s Mev/s Mev/s_w rss_MB nofast_s nofast_MB tc_s x_tc
for n in $SIZES; do
	bench_one "$n"
done
