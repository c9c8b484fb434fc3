#!/bin/sh
# `report -i -` reads standard input (a pipe from perf script or trace-cmd
# report), and a perf.data file (magic PERFILE2) is read through `perf
# script` when perf is installed, or refused with one line saying how to
# convert it (issue 13). Ground truth: the rows of the same text read from a
# file. text-perfdata-live.sh reads a perf.data recorded on a live KVM.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "needs python3"
S=tests/fixtures/published/perfprof-kvm-exit-doc.txt

# rows NAME JSON: "name count timed sum min max" per row of the report's first table
rows() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["tables"][0]["rows"]:
    print(r["name"], r["count"], r["timed"], r["sum"], r["min"], r["max"])
' "$1"
}

# --- -i - -------------------------------------------------------------------
"$KES" report -i "$S" -f json -u ns >"$TMP/file.json" 2>"$TMP/err"
check "a sample read from its file" [ -s "$TMP/file.json" ]
cat "$S" | "$KES" report -i - -f json -u ns >"$TMP/pipe.json" 2>"$TMP/err"
check "-i - from a pipe: exit 0 ($(head -n 1 "$TMP/err"))" [ -s "$TMP/pipe.json" ]
eq "-i - from a pipe: the rows of the file" "$(rows "$TMP/pipe.json")" "$(rows "$TMP/file.json")"
"$KES" report -i - -f json -u ns <"$S" >"$TMP/redir.json" 2>"$TMP/err"
eq "-i - from a redirected file: the rows of the file" "$(rows "$TMP/redir.json")" \
	"$(rows "$TMP/file.json")"
: | "$KES" report -i - >"$TMP/out" 2>"$TMP/err"
rc=$?
check "-i - of nothing: refused (rc $rc)" [ "$rc" -ne 0 ]
check "-i - of nothing: one line says it is empty" grep -q "'-': empty" "$TMP/err"

# --- perf.data without perf -------------------------------------------------
printf 'PERFILE2\000\000\000\000\000\000\000\000' >"$TMP/perf.data"
KES_PERF=/nonexistent/perf "$KES" report -i "$TMP/perf.data" >"$TMP/out" 2>"$TMP/err"
rc=$?
check "perf.data, no perf: refused (rc $rc)" [ "$rc" -ne 0 ]
eq "perf.data, no perf: one line" "$(wc -l <"$TMP/err" | tr -d ' ')" 1
check "perf.data, no perf: it says how to convert ($(cat "$TMP/err"))" \
	grep -q "perf script --ns -i $TMP/perf.data >" "$TMP/err"

# --- a perf that a crafted file sends into a loop: its CPU time is bounded ----
printf '#!/bin/sh\nwhile :; do :; done\n' >"$TMP/loop-perf"
chmod +x "$TMP/loop-perf"
KES_PERF=$TMP/loop-perf KES_PERF_CPU_S=1 timeout 60 "$KES" report -i "$TMP/perf.data" \
	>"$TMP/out" 2>"$TMP/err"
rc=$?
check "perf.data, perf loops: refused, not hung (rc $rc)" [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ]
eq "perf.data, perf loops: one line" "$(wc -l <"$TMP/err" | tr -d ' ')" 1
check "perf.data, perf loops: says it was stopped ($(cat "$TMP/err"))" \
	grep -q "loop-perf script. was stopped after 1 s of CPU time" "$TMP/err"
printf '#!/bin/sh\nkill -SEGV $$\n' >"$TMP/crash-perf"
chmod +x "$TMP/crash-perf"
KES_PERF=$TMP/crash-perf "$KES" report -i "$TMP/perf.data" >"$TMP/out" 2>"$TMP/err"
check "perf.data, perf crashes: refused ($?)" [ -s "$TMP/err" ]
check "perf.data, perf crashes: says which signal ($(cat "$TMP/err"))" \
	grep -q "killed by signal 11" "$TMP/err"
summary
