#!/bin/sh
# `make bench`: issue 12's performance figures, each as a ratio against a
# peer measured in the same run on the same machine (shared and noisy:
# numbers, never pass/fail). Groups, in this order:
#   report      uncompressed trace.dat: report vs trace-cmd report, the
#               libtracecmd path, cat and a word sum of the file read as report reads it (report.sh)
#   stages      report's instructions per stage, callgrind (stages.sh)
#   compressed  v7 + zstd: CPU, wall, peak RSS at 1/4/16 M events (compressed.sh)
#   text        trace-cmd report text: report vs an awk pairing script and cat (text.sh)
#   live        record and top -l vs perf record and bpftrace (live.sh)
#   serve       the exporter: collector CPU per exit, bytes per scrape (serve.sh)
#   inkernel    counts and latency per exit: streamed, in-kernel hists, bpftrace;
#               the flight recorder's steady cost (inkernel.sh)
# The output starts with "date, load avg, kernel, cores" and the last commit
# of src/ and include/ (the code measured; "+changes" when the work tree
# differs), and ends with the load average after; build/bench/results.csv
# has every row (header.csv the run's header). Recordings are cached in build/bench: a rerun takes
# about 3 minutes, the first about 5.
#
# Env: O, KES, EXITGEN; BENCH_GROUPS (default "report stages compressed text live serve inkernel");
# each script's own knobs (SIZES, N_REPORT, IO_LIVE, ...).
O=${O:-build}
KES=${KES:-./kvm-exitstat}
EXITGEN=${EXITGEN:-$O/exitgen}
BENCH_DIR=${BENCH_DIR:-$O/bench}
CSV=$BENCH_DIR/results.csv
export O KES EXITGEN BENCH_DIR CSV
. tests/bench/lib.sh
BENCH_GROUPS=${BENCH_GROUPS:-report stages compressed text live serve inkernel}
mkdir -p "$BENCH_DIR"
for t in "$RUSAGE" "$WORDSUM" "$DATCOUNT"; do
	[ -x "$t" ] || { echo "bench: $t missing (run it through make bench)"; exit 1; }
done

START=$(date -u +%Y-%m-%dT%H:%M:%SZ)
LOAD0=$(loadavg)
KERNEL=$(uname -r)
CORES=$(nproc)
COMMIT=$(git log -1 --format=%h -- src include 2>/dev/null || echo unknown)
git diff --quiet HEAD -- src include 2>/dev/null || COMMIT="$COMMIT+changes"
echo "date $START, load avg $LOAD0, kernel $KERNEL, cores $CORES, commit $COMMIT"
echo "$CSV_COLUMNS" >"$CSV"
for g in $BENCH_GROUPS; do
	echo
	case $g in
	stages) REPORT_NS=$(awk -F, '$1 == "report" && $2 == "1M" && $4 == "one-thread" { print $11 }' "$CSV") \
		sh tests/bench/stages.sh ;;
	*) sh "tests/bench/$g.sh" ;;
	esac || echo "(benchmark $g failed: rc $?)"
done
LOAD1=$(loadavg)
echo
echo "load avg after $LOAD1 ($(date -u +%Y-%m-%dT%H:%M:%SZ)); CSV: $CSV"
{
	echo "date,load_avg_before,load_avg_after,kernel,cores,commit"
	echo "$START,$LOAD0,$LOAD1,$KERNEL,$CORES,$COMMIT"
} >"$BENCH_DIR/header.csv"
