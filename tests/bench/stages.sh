#!/bin/sh
# Benchmark group "stages": where report's time goes, per stage, as
# instruction counts from callgrind (exact and repeatable on a noisy
# machine, unlike timers) on the 1 M-event recording of the report group:
# Ir per event for each stage, its share, and that share of the report
# group's measured CPU per event on one thread (REPORT_NS, when run.sh
# passes it: the one-thread row). That
# estimate assumes every instruction costs the same, which cache misses
# (the page walk's first touch of each line) make untrue: Ir is the exact
# figure, est_ns/event the rough one. Both of report's processes are traced
# (the probe child carries on as the report).
#
# Stages are told by the source file
# callgrind attributes each instruction to, so inlined code counts where it
# was written:
#   walk+merge  src/ring/ringpage.c, include/ring.h (ring_next), the
#               lanes (tracedat-fast.c, tracedat-zstd.c) and src/feed/feed.c:
#               the walk of each lane's pages and the merge by timestamp are
#               one stage since the feed's advance() is inlined into its
#               merge loop (feed_run), where callgrind cannot tell them apart
#   glue        src/pipeline/ (load.c's filters, libtracecmd's on_record),
#               the rest of src/feed/
#   decode      src/decode/, src/types/ (the tables it binds)
#   pair        src/pair/
#   stats       src/stats/, include/stats.h (stats_acc_add(), inline)
#   open, rest  everything else (libtracecmd's open, libtraceevent's format
#               parsing, exit_types parsing, rendering, libc, ld.so)
# Edit the patterns below when files move (the redesign moves them).
# Env: STAGE_SIZE (million events, default 1), REPORT_NS.
. tests/bench/lib.sh
STAGE_SIZE=${STAGE_SIZE:-1}
bench_need_root "stages bench" || exit 0
command -v valgrind >/dev/null || { echo "stages bench: needs valgrind (make deps)"; exit 0; }
f=$(recording "$STAGE_SIZE") || { echo "stages bench: no recording"; exit 0; }
ev=$(cat "$f.events")
out=$BENCH_DIR/callgrind.out
# one thread (KES_THREADS=1): on a recording whose threads stay on their
# CPUs, the split's halves one after the other (each, with one lane on this
# machine's two CPUs, merges nothing; split.c counts as glue). The report is
# two processes: the libtracecmd probe child opens the file and carries on as
# the report while the process started waits (tracedat-probe.c), so each
# writes its own file (%p) and the stages add both up.
rm -f "$out".*
KES_THREADS=1 valgrind --tool=callgrind --callgrind-out-file="$out.%p" "$KES" report -i "$f" -f csv \
	>/dev/null 2>"$BENCH_DIR/callgrind.log" || { echo "stages bench: valgrind failed"; exit 0; }
annotate() { for o in "$out".*; do callgrind_annotate --auto=no --threshold=100 "$o" || return 1; done; }
annotate >/dev/null 2>&1 || { echo "stages bench: callgrind_annotate failed"; exit 0; }

echo "stages of report (callgrind Ir: instructions, exact, 1 run; ${STAGE_SIZE}M-event recording, $ev events)"
annotate 2>/dev/null | awk -v ev="$ev" -v ns="${REPORT_NS:-}" \
	-v csv="$CSV" -v size="${STAGE_SIZE}M" '
	/PROGRAM TOTALS/ { gsub(",", "", $1); total += $1; next }
	/^ *[0-9,]+ +\(/ && total {
		ir = $1; gsub(",", "", ir)
		loc = $0; sub(/^ *[0-9,]+ +\([^)]*\) +/, "", loc)
		st = "open, rest"
		if (loc ~ /src\/(ring\/ringpage\.c|input\/tracedat-(fast|zstd)\.c|feed\/feed\.c)|include\/ring\.h/) st = "walk+merge"
		else if (loc ~ /src\/(pipeline|feed)\//) st = "glue"
		else if (loc ~ /src\/(decode|types)\//) st = "decode"
		else if (loc ~ /src\/pair\//) st = "pair"
		else if (loc ~ /src\/stats\/|include\/stats\.h/) st = "stats"
		sum[st] += ir
	}
	END {
		printf "%-11s %12s %9s %7s %12s\n", "stage", "Ir", "Ir/event", "share", "est_ns/event"
		n = split("walk+merge,glue,decode,pair,stats,open, rest", order, ",")
		for (i = 1; i <= n; i++) {
			s = order[i]
			if (s == "open") { s = "open, rest"; i++ }
			est = ns != "" ? sprintf("%.1f", ns * sum[s] / total) : "-"
			printf "%-11s %12d %9.1f %6.1f%% %12s\n", s, sum[s], sum[s] / ev, 100 * sum[s] / total, est
			printf "stages,%s,%d,%s,1,,,,,,%s,,Ir %d (%.1f/event %.1f%%)\n", size, ev, \
				s == "open, rest" ? "open+rest" : s, est == "-" ? "" : est, sum[s], \
				sum[s] / ev, 100 * sum[s] / total >> csv
		}
		printf "%-11s %12d %9.1f %6.1f%% %12s\n", "total", total, total / ev, 100, ns != "" ? ns : "-"
	}'
