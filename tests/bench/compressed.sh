#!/bin/sh
# Benchmark group "compressed": `kvm-exitstat report -f csv` on the report
# group's recordings converted to trace-cmd's v7 with zstd
# (`trace-cmd convert --file-version 7 --compression zstd`, cached), at
# about 1 M, 4 M and 16 M events: CPU, wall and peak RSS, to show whether
# the cost is linear in the events and whether memory stays flat.
#
#   report        kvm-exitstat report -i F -f csv
#   libtracecmd   the same with KES_NO_FASTPATH=1: the libtracecmd path, the
#                 peer of issue 12's ">= 5x" target (today compressed files
#                 always take it, so both rows measure the same code)
#
# Columns as in the report group, plus rss_MB (the highest of the N runs)
# and ns/ev vs 1M (this size's ns/event over the 1 M file's: 1.0 is linear).
# Env: SIZES (default "1 4 16"), N_SMALL (3, up to 4 M events), N_BIG (1).
. tests/bench/lib.sh
SIZES=${SIZES:-1 4 16}
N_SMALL=${N_SMALL:-3}
N_BIG=${N_BIG:-1}
bench_need_root "compressed bench" || exit 0
command -v trace-cmd >/dev/null || { echo "compressed bench: needs trace-cmd (make deps)"; exit 0; }

row() { printf '%-5s %9s %5s  %-12s %2s %8s %8s %8s %7s %9s\n' "$@"; }

echo "compressed trace.dat (v7, zstd, from trace-cmd convert); best of N; times in s"
row size events MB peer N wall_s cpu_s ns/event rss_MB ns/ev_vs_1M
NS1_report= NS1_libtracecmd=
for size in $SIZES; do
	f=$(compressed "$size") || { echo "compressed bench: converting ${size}M failed"; continue; }
	ev=$(events_of "$f")
	mb=$(mb_of "$f")
	n=$N_SMALL
	[ "$size" -gt 4 ] && n=$N_BIG
	cat "$f" >/dev/null
	for peer in report libtracecmd; do
		if [ $peer = report ]; then
			measure "$n" "$KES" report -i "$f" -f csv
		else
			measure "$n" env KES_NO_FASTPATH=1 "$KES" report -i "$f" -f csv
		fi
		ns=$(fmt "%.1f" "c * 1e9 / e" c="$C" e="$ev")
		eval "[ -n \"\$NS1_$peer\" ] || NS1_$peer=\$ns; base=\$NS1_$peer"
		lin=$(fmt "%.2f" "n / b" n="$ns" b="$base")
		rss=$(fmt "%.1f" "m / 1024" m="$M")
		[ "$RC" = 0 ] || lin="rc=$RC"
		row "${size}M" "$ev" "$mb" $peer "$n" "$W" "$C" "$ns" "$rss" "$lin"
		csv_row compressed "${size}M" "$ev" $peer "$n" "$W" "$C" "$U" "$S" "$M" "$ns" "" \
			"ns/ev vs 1M $lin"
		eval "CPU_$peer=\$C RSS_$peer=\$rss LIN_$peer=\$lin"
	done
	printf '  %sM targets: libtracecmd/report CPU %s (>= 5x); report peak RSS %s MB (<= 64); ns/event vs 1M %s (linear: ~1)\n' \
		"$size" "$(fmt "%.1fx" "l / r" l="$CPU_libtracecmd" r="$CPU_report")" "$RSS_report" "$LIN_report"
done
