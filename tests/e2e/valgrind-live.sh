#!/bin/sh
# valgrind's memcheck on a live KVM: one record run, reports of it through
# both trace.dat readers, and serve (its HTTP threads, a scrape, SIGTERM);
# valgrind.sh has the inputs that need no KVM. When it runs, and what fails:
# tests/tools/valgrind-helpers.sh.
. tests/e2e/lib.sh
need_kvm
. tests/tools/record-helpers.sh
. tests/tools/valgrind-helpers.sh
FIX=tests/fixtures
vg_ready || exit "$VG_STATUS"

vg "record" 0 "$KES" record -q -o "$TMP/rec.dat" -- "$EXITGEN" --io 100 --mmio 50 --quiet
check "record: a trace.dat" test -s "$TMP/rec.dat"
vg "report: the recording (fast path)" 0 "$KES" report -i "$TMP/rec.dat" --source userspace
check "report: the recording: 100 KVM_EXIT_IO" grep -q '^KVM_EXIT_IO count 100 ' "$TMP/out"
vg "report: the recording by sub-key" 0 "$KES" report --by-sub -f csv -i "$TMP/rec.dat"
export KES_NO_FASTPATH=1
vg "report: the recording (libtracecmd)" 0 "$KES" report -i "$TMP/rec.dat" --source userspace
unset KES_NO_FASTPATH
check "report: libtracecmd: 100 KVM_EXIT_IO" grep -q '^KVM_EXIT_IO count 100 ' "$TMP/out"
vg "report --svg of the recording" 0 "$KES" report -i "$TMP/rec.dat" --svg "$TMP/r.svg"
# serve: its HTTP threads, a scrape (text, OpenMetrics, gzip), SIGTERM
# exitgen held until serve serves (under valgrind in the lab host's TCG serve
# took longer to start than a 10 s start delay: it found no process)
"$EXITGEN" --io 100 --start-on-usr1 --quiet >/dev/null 2>&1 &
E=$!
$VG "$KES" serve --trace -p $E --listen 127.0.0.1:0 --interval 0.2 >"$TMP/out" 2>"$TMP/err" &
S=$!
i=0
while ! grep -q 'port [0-9]' "$TMP/err" && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
PORT=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$TMP/err")
wait_traced "$E"
kill -USR1 $E
wait $E
# The page has the VM's series once serve under memcheck has read them (a
# fixed 1 s was once too short in a CI rehearsal's loaded lab host)
i=0
until curl -s "http://127.0.0.1:$PORT/metrics" -o "$TMP/m1" &&
	grep -q '^kvm_exitstat_exits_total{' "$TMP/m1" || [ $i -ge 120 ]; do
	sleep 0.5
	i=$((i + 1))
done
curl -s -H 'Accept: application/openmetrics-text' -H 'Accept-Encoding: gzip' \
	"http://127.0.0.1:$PORT/metrics" -o "$TMP/m2"
kill -TERM $S
wait $S
rc=$?
if [ $rc -eq 0 ] && ! vg_said "$TMP/err"; then ok; else bad "serve: status $rc"; head -n 40 "$TMP/err"; fi
check "serve: a page" grep -q '^kvm_exitstat_exits_total{' "$TMP/m1"
summary
