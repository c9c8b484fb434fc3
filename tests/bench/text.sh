#!/bin/sh
# Benchmark group "text": `kvm-exitstat report -f csv` on `trace-cmd report`
# text of the report group's recordings (made once, cached beside them),
# against peers on the same file in the same rounds:
#
#   report   kvm-exitstat report -f csv TEXT
#   awk      tests/bench/pair.awk (mawk when installed): each kvm_exit paired
#            with its thread's next kvm_entry, count/min/max/sum per reason
#   cat      cat TEXT: the floor of reading it
#
# Columns: N (best of N), wall and CPU (user + sys) in s, ns/line = CPU /
# lines, cpu/report = the peer's CPU over report's. Then issue 31's targets
# for text: <= 100 ns per line, >= 5x the awk script.
# Env: SIZES (default "1"), N_TEXT (5).
. tests/bench/lib.sh
SIZES=${SIZES:-1}
N_TEXT=${N_TEXT:-5}
bench_need_root "text bench" || exit 0
command -v trace-cmd >/dev/null || { echo "text bench: needs trace-cmd (make deps)"; exit 0; }
AWK=$(command -v mawk || command -v awk)

row() { printf '%-5s %9s  %-7s %2s %8s %8s %8s %10s\n' "$@"; }

echo "trace-cmd report text of the recordings; best of N; times in s"
row size lines peer N wall_s cpu_s ns/line cpu/report
for size in $SIZES; do
	src=$(recording "$size") || { echo "text bench: no ${size}M recording"; continue; }
	f=$REC_DIR/txt-${size}M-pin.txt
	if [ ! -s "$f" ]; then
		trace-cmd report -i "$src" >"$f.tmp" 2>/dev/null || { rm -f "$f.tmp"; continue; }
		mv "$f.tmp" "$f"
	fi
	lines=$(wc -l <"$f")
	cat "$f" >/dev/null
	r=0
	while [ $r -lt "$N_TEXT" ]; do # rounds: each peer meets the same spells of load
		for peer in report awk cat; do
			case $peer in
			report) measure 1 "$KES" report -f csv "$f" ;;
			awk) measure 1 "$AWK" -f tests/bench/pair.awk "$f" ;;
			cat) measure 1 cat "$f" ;;
			esac
			eval "pc=\${C_$peer:-} pw=\${W_$peer:-}"
			{ [ -z "$pc" ] || less_than "$C" "$pc"; } && eval "C_$peer=\$C U_$peer=\$U S_$peer=\$S"
			{ [ -z "$pw" ] || less_than "$W" "$pw"; } && eval "W_$peer=\$W"
			eval "RC_$peer=\$RC"
		done
		r=$((r + 1))
	done
	# shellcheck disable=SC2154 # set by the eval's
	for peer in report awk cat; do
		eval "c=\$C_$peer w=\$W_$peer u=\$U_$peer s=\$S_$peer rc=\$RC_$peer"
		ns=$(fmt "%.1f" "c * 1e9 / l" c="$c" l="$lines")
		x=$(fmt "%.2f" "c / r" c="$c" r="$C_report")
		[ "$rc" = 0 ] || x="rc=$rc"
		row "${size}M" "$lines" $peer "$N_TEXT" "$w" "$c" "$ns" "$x"
		csv_row text "${size}M" "$lines" $peer "$N_TEXT" "$w" "$c" "$u" "$s" 0 "$ns" "" "ns/line"
	done
	# shellcheck disable=SC2154
	printf '  %sM targets: report %s ns/line (<= 100); awk/report CPU %s (>= 5x)\n' "$size" \
		"$(fmt "%.1f" "c * 1e9 / l" c="$C_report" l="$lines")" \
		"$(fmt "%.2fx" "a / r" a="$C_awk" r="$C_report")"
	unset C_report C_awk C_cat W_report W_awk W_cat
done
