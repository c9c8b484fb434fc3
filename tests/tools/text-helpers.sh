# Shared by tests/e2e/text.sh and text-live.sh (sourced after lib.sh): the
# report of each text form of one run against its trace.dat's.
# csv FILE: per-thread rows sorted by name, times in ns (SRC: a --source option)
csv() { "$KES" report -i "$1" --format csv -u ns --per-vcpu -s name ${SRC:-} 2>&1; }
# name, tid, vcpu, count, untimed
counts() { csv "$1" | cut -d, -f1-5; }

# within_us DAT TXT: for each row, |sum, min, max difference| <= 1 us per sample
within_us() {
	csv "$1" >"$TMP/a.csv"
	csv "$2" >"$TMP/b.csv"
	paste -d, "$TMP/a.csv" "$TMP/b.csv" | awk -F, '
		NR == 1 { next }
		function abs(x) { return x < 0 ? -x : x }
		{
			n = $4 + 0; off = NF / 2
			if (abs($8 - $(8 + off)) > 1000 * n || abs($6 - $(6 + off)) > 1000 ||
			    abs($7 - $(7 + off)) > 1000) { print "row " NR ": " $0; bad = 1 }
		}
		END { exit bad }'
}

# truth DIR FILE: KVM_EXIT_* counts (every exit, timed or not) equal exitgen's own
truth() {
	line=$(grep '^total' "$1/exitgen.out")
	for r in IO MMIO HLT; do
		want=$(echo "$line" |
			awk -v k="KVM_EXIT_$r" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }')
		csv "$2" >"$TMP/truth.csv"
		got=$(awk -F, -v k="KVM_EXIT_$r" '$1 == k && $2 == -1 { print $4 }' "$TMP/truth.csv")
		# no such row: what report printed instead (a CI run once got none, once)
		why=$([ -n "$got" ] || echo " (report: $(head -c 300 "$TMP/truth.csv" | tr '\n' '|'))")
		eq "$(basename "$2"): KVM_EXIT_$r$why" "$got" "$want"
	done
}

compare_all() { # DIR
	dat=$1/trace.dat
	check "report of $dat" test "$(counts "$dat" | wc -l)" -gt 4
	truth "$1" "$dat"
	eq "trace-cmd report -t: the same table" "$(csv "$1/report-ns.txt")" "$(csv "$dat")"
	for f in trace.txt report.txt report-lat.txt report-noplugin.txt; do
		eq "$f: same rows and counts" "$(counts "$1/$f")" "$(counts "$dat")"
		check "$f: times within 1 us per sample" within_us "$dat" "$1/$f"
		truth "$1" "$1/$f"
	done
	# perf records of its own: when it lost some (PERF_RECORD_LOST under a CI's
	# load: one vCPU thread's 301 IO exits read as 142), its texts hold fewer,
	# never more, of each row (capture.info's perf_lost). Likewise when perf
	# printed an event before one it had read earlier (a CI run: line 6,451 of
	# perf.txt behind the line before it): report splits the text there
	# (a warning, an exit untimed), as it must.
	plost=$(sed -n 's/^perf_lost: //p' "$1/capture.info" 2>/dev/null)
	for f in trace_pipe.txt perf.txt perf-ns-pidtid.txt; do
		[ -f "$1/$f" ] || { [ "$f" = trace_pipe.txt ] && bad "$1/$f missing"; continue; }
		case "$f" in perf*) pback=$(goes_back "$1/$f") ;; *) pback=0 ;; esac
		case "$f:${plost:-0}:$pback" in
		perf*:0:0 | trace_pipe.txt:*) ;;
		*)
			check "$f: perf lost $plost records, printed $pback out of time order: no row counts more than the trace.dat's" \
				subset "$1/$f" "$dat"
			continue
			;;
		esac
		eq "$f: same rows and counts" "$(counts "$1/$f")" "$(counts "$dat")"
		truth "$1" "$1/$f"
	done
}

# goes_back TXT: how many of a perf script text's lines have a timestamp
# ("SECONDS.FRACTION:", the first such field) below the line before's.
# Compared as integers, part by part: a double loses nanoseconds.
goes_back() {
	awk '{
		for (i = 1; i <= NF; i++)
			if ($i ~ /^[0-9]+\.[0-9]+:$/) {
				split(substr($i, 1, length($i) - 1), t, ".")
				if (seen && (t[1] + 0 < s + 0 || (t[1] + 0 == s + 0 && t[2] < f))) n++
				s = t[1]; f = t[2]; seen = 1
				break
			}
	} END { print n + 0 }' "$1"
}

# subset TXT DAT: every row of TXT is one of DAT's, its count at most DAT's
subset() {
	counts "$2" >"$TMP/sub-dat"
	# report's warnings (the split of a text that goes back) are not rows
	counts "$1" | grep -v '^kvm-exitstat: warning: ' | awk -F, 'NR == FNR { c[$1 "," $2 "," $3] = $4; next }
		FNR > 1 { k = $1 "," $2 "," $3; if (!(k in c) || $4 + 0 > c[k] + 0) { print "row " $0; bad = 1 } }
		END { exit bad }' "$TMP/sub-dat" -
}

