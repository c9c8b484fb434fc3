#!/bin/sh
# 80 columns: report -f table and diff (table) of real fixtures, piped (no
# terminal: 80 columns) and with COLUMNS=80, have no line over 80
# characters; two rows never show the same name (names are cut in the
# middle, apart); every value is the csv's (checked on its own by the other
# tests): counts exactly, times to the shown digits once their unit (us, ms,
# s) is applied. A wide terminal (COLUMNS=200) keeps the one-line layout.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "needs python3"
CHECK=$(dirname "$0")/../tools/width-check.py

# same DESC A B AERR BERR: A and B the same, else what differed (and both
# runs' stderr) in the log: a difference seen once in CI must say itself
same() {
	if cmp -s "$2" "$3"; then
		ok
		return
	fi
	bad "$1"
	diff "$2" "$3" | head -20
	cat "$4" "$5" | head -10
}

# table_check DESC CSV TABLE [WIDTH]
table_check() {
	r=$(python3 "$CHECK" report "$2" "$3" "${4:-80}" 2>&1)
	eq "$1 ($(echo "$r" | head -3 | tr '\n' ' '))" "$(echo "$r" | tail -1)" ok
}

set -- tests/fixtures/lab/x86-svm/trace-cmd.dat tests/fixtures/lab/x86-svm-nonpt/trace-cmd.dat \
	tests/fixtures/lab/arm64/trace-cmd.dat tests/fixtures/lab/riscv64/small.dat \
	tests/fixtures/lab/ppc_book3s_hv/small.dat tests/fixtures/lab/ppc_book3s_pr/small.dat \
	tests/fixtures/real/exitgen-v6.dat tests/fixtures/text/trace.txt \
	tests/fixtures/ppc/report-2010-nopv.txt
for f in "$@"; do
	for o in "" "--percentiles" "--by-sub" "--per-vcpu" "--by-sub --percentiles -u ns"; do
		case "$f:$o" in *ppc/*:*--by-sub* | *ppc/*:*--per-vcpu*) continue ;; esac
		# shellcheck disable=SC2086
		$KES report -f csv $o "$f" >"$TMP/csv" 2>/dev/null
		# shellcheck disable=SC2086
		env -u COLUMNS $KES report -f table $o "$f" >"$TMP/t80" 2>"$TMP/t80e"
		r1=$?
		table_check "$f $o: piped, 80 columns" "$TMP/csv" "$TMP/t80"
		# shellcheck disable=SC2086
		COLUMNS=80 $KES report -f table $o "$f" >"$TMP/c80" 2>"$TMP/c80e"
		r2=$?
		same "$f $o: COLUMNS=80 is the same (exit $r1, $r2)" "$TMP/t80" "$TMP/c80" \
			"$TMP/t80e" "$TMP/c80e"
	done
done
# --width and a wide COLUMNS: the one-line layout, as wide as it needs
f=tests/fixtures/lab/x86-svm/trace-cmd.dat
$KES report -f table --by-sub "$f" >"$TMP/n"
COLUMNS=200 $KES report -f table --by-sub "$f" >"$TMP/w"
w=$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$TMP/w")
check "COLUMNS=200: wider than 80 ($w)" [ "$w" -gt 80 ] && [ "$w" -le 200 ]
check "COLUMNS=200: one panel (one REASON header)" [ "$(grep -c '^REASON' "$TMP/w")" -eq 1 ]
$KES report -f table --by-sub --width 200 "$f" >"$TMP/w2"
check "--width 200 = COLUMNS=200" cmp -s "$TMP/w" "$TMP/w2"
$KES report -f csv --by-sub "$f" >"$TMP/csv"
table_check "COLUMNS=200: values" "$TMP/csv" "$TMP/w" 200
$KES report -f table --width 20 "$f" >/dev/null 2>"$TMP/e"
eq "--width 20 refused" "$?" 2
eq "--width 20: one line, the range" "$(cat "$TMP/e")" "kvm-exitstat: bad width (columns) '20': want 40 to 4000"
# digits only, as every number option: strtoul would take ' 80' and '+80'
for v in ' 80' '+80' 80x ''; do
	$KES report -f table --width "$v" "$f" >/dev/null 2>"$TMP/e"
	eq "--width '$v' refused" "$?" 2
done

# diff: A vs B of real runs and of the 2010 reports
dcheck() { # A B [opts]
	a=$1 b=$2
	shift 2
	$KES diff -f csv "$@" "$a" "$b" >"$TMP/dcsv" 2>"$TMP/dcsv.err"
	rc=$?
	env -u COLUMNS $KES diff "$@" "$a" "$b" >"$TMP/dt" 2>"$TMP/dt.err"
	rt=$?
	r=$(python3 "$CHECK" diff "$TMP/dcsv" "$TMP/dt" 80 2>&1)
	eq "diff $* $a $b ($(echo "$r" | head -3 | tr '\n' ' '))" "$(echo "$r" | tail -1)" ok
	[ "$(echo "$r" | tail -1)" = ok ] ||
		{ # what each run printed: a failure here once had no other trace (UNKNOWN_ISA rows, decoder.c's bind_lock)
			echo "  csv: exit $rc, stderr: $(head -c 300 "$TMP/dcsv.err")"
			head -n 12 "$TMP/dcsv" | sed 's/^/  csv| /'
			echo "  table: exit $rt, stderr: $(head -c 300 "$TMP/dt.err")"
			head -n 20 "$TMP/dt" | sed 's/^/  table| /'
		}
}
dcheck tests/fixtures/ppc/report-2010-nopv.txt tests/fixtures/ppc/report-2010-pv.txt
dcheck tests/fixtures/lab/x86-svm/trace-cmd.dat tests/fixtures/lab/x86-svm-nonpt/trace-cmd.dat
dcheck tests/fixtures/lab/x86-svm/trace-cmd.dat tests/fixtures/lab/x86-svm-nonpt/trace-cmd.dat --per-vcpu
dcheck tests/fixtures/real/exitgen-v6.dat tests/fixtures/real/exitgen-v7.dat
dcheck tests/fixtures/lab/ppc_book3s_hv/small.dat tests/fixtures/lab/ppc_book3s_pr/small.dat -u ns
summary
