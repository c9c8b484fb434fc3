#!/bin/sh
# Benchmark group "report": `kvm-exitstat report -f csv` on uncompressed
# trace.dat files (real recordings of exitgen by our own `record`, about 1 M,
# 4 M and 16 M events, cached in $BENCH_DIR), against peers measured in the
# same run on the same files from the page cache:
#
#   report          kvm-exitstat report -i F -f csv (the default path: on two
#                   threads where that gives the same report, pipeline/split.c)
#   one-thread      the same with KES_THREADS=1 (one feed over every CPU)
#   by-sub          report --by-sub: a view the split does not run (sub-key
#                   cap), so the one feed with pair/ on a second thread
#                   (feed/feed-pipe.c)
#   by-sub-one      the same with KES_THREADS=1
#   libtracecmd     the same with KES_NO_FASTPATH=1 (records through libtracecmd)
#   trace-cmd       trace-cmd report F (up to TC_MAX_M million events: it is slow)
#   cat             cat F: the floor of reading the file through read(2)
#   mmap-wordsum    tests/bench/wordsum.c: map F as report does, add up every word
#
# Columns: N (best of N), wall and CPU (user + sys) in s, each the best of
# its N runs, ns/event = CPU / events, cpu/report = this row's CPU over
# report's (trace-cmd: how many times report is cheaper; floors: below 1).
# Then one line per size with issue 12's targets: its CPU ones (150x trace-cmd,
# 2x the floor) are one core's, the one-thread row; the split's is wall time.
#
# Then the same two rows (report, one-thread) and the two --by-sub rows on a
# 4 M recording whose vCPU threads migrate (migrating in lib.sh): the split
# stays off there, the one feed runs with pair/ on a second thread.
#
# Env: SIZES (default "1 4 16"), N_REPORT (5), N_PEER (3), N_TC (1), TC_MAX_M (4).
. tests/bench/lib.sh
SIZES=${SIZES:-1 4 16}
N_REPORT=${N_REPORT:-5}
N_PEER=${N_PEER:-3}
N_TC=${N_TC:-1}
TC_MAX_M=${TC_MAX_M:-4}
bench_need_root "report bench" || exit 0

row() { printf '%-5s %9s %5s  %-13s %2s %8s %8s %8s %10s\n' "$@"; }

# one SIZE PEER N CMD...: measures, prints and records one row; sets RC_CPU
# to report's CPU for the ratios when PEER is report.
one() {
	size=$1 peer=$2 n=$3
	shift 3
	measure "$n" "$@"
	ns=$(fmt "%.1f" "c * 1e9 / e" c="$C" e="$ev")
	[ "$peer" = report ] && REPORT_CPU=$C REPORT_WALL=$W
	x=$(fmt "%.2f" "c / r" c="$C" r="$REPORT_CPU")
	[ "$RC" = 0 ] || x="rc=$RC"
	row "${size}M" "$ev" "$mb" "$peer" "$n" "$W" "$C" "$ns" "$x"
	csv_row report "${size}M" "$ev" "$peer" "$n" "$W" "$C" "$U" "$S" "$M" "$ns" "$x" "$mb MB"
	eval "CPU_$(echo "$peer" | tr -c 'a-z\n' _)=\$C"
}

echo "report, uncompressed trace.dat (v6 from kvm-exitstat record); best of N; times in s"
row size events MB peer N wall_s cpu_s ns/event cpu/report
for size in $SIZES; do
	f=$(recording "$size") || { echo "report bench: recording ${size}M failed"; continue; }
	ev=$(cat "$f.events")
	mb=$(mb_of "$f")
	cat "$f" >/dev/null # into the page cache: every peer reads it from there
	one "$size" report "$N_REPORT" "$KES" report -i "$f" -f csv
	one "$size" one-thread "$N_REPORT" env KES_THREADS=1 "$KES" report -i "$f" -f csv
	ONE_WALL=$W
	one "$size" by-sub "$N_REPORT" "$KES" report -i "$f" -f csv --by-sub
	SUB_WALL=$W SUB_CPU=$C
	one "$size" by-sub-one "$N_REPORT" env KES_THREADS=1 "$KES" report -i "$f" -f csv --by-sub
	SUB_ONE_WALL=$W SUB_ONE_CPU=$C
	one "$size" libtracecmd "$N_PEER" env KES_NO_FASTPATH=1 "$KES" report -i "$f" -f csv
	CPU_trace_cmd=
	if [ "$size" -le "$TC_MAX_M" ]; then
		one "$size" trace-cmd "$N_TC" trace-cmd report "$f"
	fi
	one "$size" cat "$N_REPORT" cat "$f"
	one "$size" mmap-wordsum "$N_REPORT" "$WORDSUM" "$f"
	# issue 12's CPU targets are one core's (the one-thread row); the split's is wall time
	tc=$([ -n "$CPU_trace_cmd" ] && fmt "%.0fx" "t / r" t="$CPU_trace_cmd" r="$CPU_one_thread" || echo "not run")
	printf '  %sM targets: trace-cmd/one-thread CPU %s (>= 150x); one-thread/mmap-floor %s (<= 2x);' \
		"$size" "$tc" "$(fmt "%.1fx" "r / f" r="$CPU_one_thread" f="$CPU_mmap_wordsum")"
	printf ' report wall / one thread'"'"'s %s (< 1: faster with both cores);' \
		"$(fmt "%.2f" "w / o" w="$REPORT_WALL" o="$ONE_WALL")"
	printf ' report CPU / one thread'"'"'s %s;' "$(fmt "%.2f" "c / o" c="$REPORT_CPU" o="$CPU_one_thread")"
	printf ' --by-sub wall / one thread'"'"'s %s, CPU %s;' \
		"$(fmt "%.2f" "w / o" w="$SUB_WALL" o="$SUB_ONE_WALL")" \
		"$(fmt "%.2f" "c / o" c="$SUB_CPU" o="$SUB_ONE_CPU")"
	printf ' libtracecmd/report %s\n' \
		"$(fmt "%.1fx" "l / r" l="$CPU_libtracecmd" r="$REPORT_CPU")"
done

f=$(migrating 4) || { echo "report bench: migrating recording failed"; exit 0; }
ev=$(cat "$f.events")
mb=$(mb_of "$f")
cat "$f" >/dev/null
one mig4 report "$N_REPORT" "$KES" report -i "$f" -f csv
W_MIG=$W C_MIG=$C
one mig4 one-thread "$N_REPORT" env KES_THREADS=1 "$KES" report -i "$f" -f csv
W_MIG1=$W C_MIG1=$C
one mig4 by-sub "$N_REPORT" "$KES" report -i "$f" -f csv --by-sub
W_SUB=$W C_SUB=$C
one mig4 by-sub-one "$N_REPORT" env KES_THREADS=1 "$KES" report -i "$f" -f csv --by-sub
printf '  migrating 4M: report wall / one thread'"'"'s %s, CPU %s; --by-sub wall / one thread'"'"'s %s, CPU %s\n' \
	"$(fmt "%.2f" "w / o" w="$W_MIG" o="$W_MIG1")" "$(fmt "%.2f" "c / o" c="$C_MIG" o="$C_MIG1")" \
	"$(fmt "%.2f" "w / o" w="$W_SUB" o="$W")" "$(fmt "%.2f" "c / o" c="$C_SUB" o="$C")"
