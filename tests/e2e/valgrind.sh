#!/bin/sh
# The end-to-end paths under valgrind's memcheck: report on a real recording
# (both trace.dat readers), on the ftrace text fixture and a PPC report, a
# diff, and one record run. Any memcheck error or definite leak fails (status
# 99). Slow (valgrind is ~30x), so it runs only with VALGRIND=1 (CI sets it
# once); otherwise it runs nothing and says "0 passed, 0 failed" (a SKIP line
# would count as a failure under CI=true). An ASan build cannot run under
# valgrind: nothing runs then either.
. tests/e2e/lib.sh
FIX=tests/fixtures

if [ "${VALGRIND:-0}" != 1 ]; then
	echo "valgrind.sh: set VALGRIND=1 to run"
	summary
	exit
fi
if grep -q __asan_init "$KES" 2>/dev/null; then
	echo "valgrind.sh: $KES is an ASan build, which valgrind cannot run"
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
vg "report: JSON reports merged, SVG" 0 "$KES" report -i "$FIX/json/trace-per-vcpu.json" \
	-i "$FIX/json/trace-per-vcpu.json" --per-vcpu --svg "$TMP/j.svg" -f json
vg "report: a cut JSON report is refused" 1 "$KES" report -i "$FIX/json/ppc-summary.json" -p 1
vg "report: garbage is refused" 1 "$KES" report -i "$FIX/bad/datread/ringpage-tail-short-1.bin"

need_kvm
vg "record" 0 "$KES" record -q -o "$TMP/rec.dat" -- "$EXITGEN" --io 100 --mmio 50 --quiet
check "record: a trace.dat" test -s "$TMP/rec.dat"
vg "report: the recording (fast path)" 0 "$KES" report -i "$TMP/rec.dat"
check "report: the recording: 100 KVM_EXIT_IO" grep -q '^KVM_EXIT_IO count 100 ' "$TMP/out"
vg "report: the recording by sub-key" 0 "$KES" report --by-sub -f csv -i "$TMP/rec.dat"
export KES_NO_FASTPATH=1
vg "report: the recording (libtracecmd)" 0 "$KES" report -i "$TMP/rec.dat"
unset KES_NO_FASTPATH
check "report: libtracecmd: 100 KVM_EXIT_IO" grep -q '^KVM_EXIT_IO count 100 ' "$TMP/out"
vg "report --svg of the recording" 0 "$KES" report -i "$TMP/rec.dat" --svg "$TMP/r.svg"
# serve: its HTTP threads, a scrape (text, OpenMetrics, gzip), SIGTERM
"$EXITGEN" --io 100 --start-delay 10000 --quiet >/dev/null 2>&1 &
E=$!
$VG "$KES" serve -p $E --listen 127.0.0.1:0 --interval 0.2 >"$TMP/out" 2>"$TMP/err" &
S=$!
i=0
while ! grep -q 'port [0-9]' "$TMP/err" && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
PORT=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$TMP/err")
wait $E
sleep 1
curl -s "http://127.0.0.1:$PORT/metrics" -o "$TMP/m1"
curl -s -H 'Accept: application/openmetrics-text' -H 'Accept-Encoding: gzip' \
	"http://127.0.0.1:$PORT/metrics" -o "$TMP/m2"
kill -TERM $S
wait $S
rc=$?
if [ $rc -eq 0 ] && ! grep -q '^==[0-9]*==' "$TMP/err"; then ok; else bad "serve: status $rc"; head -n 40 "$TMP/err"; fi
check "serve: a page" grep -q '^kvm_exitstat_exits_total{' "$TMP/m1"
summary
