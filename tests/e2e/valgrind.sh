#!/bin/sh
# The end-to-end paths under valgrind's memcheck: report on recordings (both
# trace.dat readers), on the ftrace text fixture and a PPC report, a diff,
# merged JSON; valgrind-live.sh: one record run, its reports, and serve.
# When it runs, and what fails: tests/tools/valgrind-helpers.sh.
. tests/e2e/lib.sh
. tests/tools/valgrind-helpers.sh
FIX=tests/fixtures
vg_ready || exit "$VG_STATUS"

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
