#!/bin/sh
# The end-to-end paths under valgrind's memcheck: report on recordings (both
# trace.dat readers), on the ftrace text fixture and a PPC report, a diff,
# merged JSON; valgrind-live.sh: one record run, its reports, and serve. Any memcheck error or definite leak fails (status
# 99). Slow (valgrind is ~30x), so it runs only with VALGRIND=1 (CI sets it
# once); otherwise it runs nothing and says "0 passed, 0 failed" (a SKIP line
# would count as a failure under CI=true). An ASan build cannot run under
# valgrind: nothing runs then either.
. tests/e2e/lib.sh
FIX=tests/fixtures

if [ "${VALGRIND:-0}" != 1 ]; then
	echo "$(basename "$0"): set VALGRIND=1 to run"
	summary
	exit
fi
if grep -q __asan_init "$KES" 2>/dev/null; then
	echo "$(basename "$0"): $KES is an ASan build, which valgrind cannot run"
	summary
	exit
fi
command -v valgrind >/dev/null || { bad "VALGRIND=1 but valgrind is not installed (make deps)"; summary; exit; }
# libtracecmd in report's probe child runs ~30x slower under memcheck than its 5 s allow
export KES_PROBE_SECONDS=300
# The probe child (src/input/tracedat-probe.c) is checked too: valgrind follows forks.
VG="valgrind -q --num-callers=40 --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
	--show-leak-kinds=definite --suppressions=tests/e2e/valgrind.supp"

# vg DESC WANT CMD...: the command under memcheck must exit WANT (0, or 1 for a
# refused input) with no memcheck report.
vg() {
	d=$1 want=$2
	shift 2
	$VG "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" -eq "$want" ] && ! grep -q '^==[0-9]*==' "$TMP/err"; then
		ok
	else
		bad "$d: status $rc, want $want"
		head -n 40 "$TMP/err"
	fi
}

vg "report: ftrace text" 0 "$KES" report -i "$FIX/text/trace.txt"
check "report: ftrace text: a report" grep -q '^KVM_EXIT_IO ' "$TMP/out"
vg "report: perf script text, by sub-key, JSON" 0 "$KES" report --by-sub -f json -i "$FIX/text/perf.txt"
vg "report: trace-cmd v7 zstd file" 0 "$KES" report -f table --per-vcpu -i "$FIX/text/trace.dat"
vg "diff: two PPC reports" 0 "$KES" diff "$FIX/ppc/report-2010-nopv.txt" "$FIX/ppc/report-2010-pv.txt"
vg "report: a truncated trace.dat is refused" 1 "$KES" report -i "$FIX/bad/input/truncated-cpu-data.dat"
cp "$FIX/json/trace-per-vcpu.json" "$TMP/copy.json" # the same file twice is refused
vg "report: JSON reports merged, SVG" 0 "$KES" report -i "$FIX/json/trace-per-vcpu.json" \
	-i "$TMP/copy.json" --per-vcpu --svg "$TMP/j.svg" -f json
vg "report: a cut JSON report is refused" 1 "$KES" report -i "$FIX/json/ppc-summary.json" -p 1
vg "report: garbage is refused" 1 "$KES" report -i "$FIX/bad/datread/ringpage-tail-short-1.bin"
summary
