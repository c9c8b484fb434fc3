#!/bin/sh
# report --anatomy on recordings (no KVM needed):
#  - the lab's anatomy fixture (tests/fixtures/anatomy/: real KVM, sched and irq
#    events), in each of its inputs (our trace.dat, trace-cmd's trace.dat, its
#    text): every interval's split as tests/tools/anatomy-oracle.py worked it out
#    from trace-cmd report -t of the same file, part by part;
#  - every fixture of the tree: each interval's parts add up to it exactly, or
#    the input has no sched events, which is said once, with a non-zero status;
#  - the views: each format's rows, the whole run's, --slowest's causes, the
#    refusals; and a report without the flag is the report it was.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "needs python3"
D=tests/fixtures/anatomy
COMPARE=tests/tools/anatomy-compare.py

# ---- the fixture against the oracle ----------------------------------------------
for input in kvm-exitstat.dat trace-cmd.dat trace-cmd.txt; do
	base=${input%.*}
	for src in exits userspace; do
		$KES report --anatomy --source $src --slowest 1000000 -f csv "$D/$input" >"$TMP/t.csv" 2>"$TMP/err"
		eq "$input $src: report --anatomy exits 0 ($(head -c 200 "$TMP/err"))" "$?" 0
		python3 "$COMPARE" "$TMP/t.csv" "$D/$base.expect-$src.csv" >"$TMP/cmp"
		n=$(awk '$1 == "intervals" { print $7 }' "$TMP/cmp")
		check "$input $src: intervals compared ($n)" [ "${n:-0}" -gt 20 ]
		eq "$input $src: every interval on both sides" "$(awk '$1 == "missing" { print $2 }' "$TMP/cmp")" 0
		eq "$input $src: none unsplit" "$(awk '$1 == "intervals" { print $9 }' "$TMP/cmp")" 0
		eq "$input $src: each interval's parts add up" "$(awk '$1 == "sums" { print $2 }' "$TMP/cmp")" 0
		eq "$input $src: lengths" "$(awk '$1 == "length" { print $2 }' "$TMP/cmp")" 0
		eq "$input $src: halts and waited" "$(awk '$1 == "halts" { print $2 }' "$TMP/cmp")" 0
		for p in handling runnable blocked polled vmm irq softirq; do
			eq "$input $src: $p exact in every interval" \
				"$(awk -v p=$p '$1 == p { print ($3 == $5) }' "$TMP/cmp")" 1
		done
	done
done
# arm64 (the lab's Debian 6.1 arm64 kernel, VHE): halts (wfi woken by exitgen's timer
# signal: KVM_RUN ended with EINTR, KVM_EXIT_INTR) and a VMM with a known delay
for n in hlt mmio; do
	for src in exits userspace; do
		$KES report --anatomy --source $src --slowest 1000000 -f csv "$D/arm64/$n.dat" >"$TMP/t.csv" 2>"$TMP/err"
		eq "arm64 $n $src: report --anatomy exits 0 ($(head -c 200 "$TMP/err"))" "$?" 0
		python3 "$COMPARE" "$TMP/t.csv" "$D/arm64/$n.expect-$src.csv" >"$TMP/cmp"
		eq "arm64 $n $src: every interval on both sides, none unsplit" \
			"$(awk '$1 == "missing" { m = $2 } $1 == "intervals" { u = $9 } END { print m " " u }' "$TMP/cmp")" "0 0"
		eq "arm64 $n $src: every part of every interval as the oracle's" \
			"$(awk '$1 ~ /^(handling|runnable|blocked|polled|vmm|irq|softirq)$/ && $3 != $5 { print $1 }' "$TMP/cmp")" ""
		eq "arm64 $n $src: halts and waited" "$(awk '$1 == "halts" { print $2 }' "$TMP/cmp")" 0
	done
done
check "arm64 hlt: its halts were split" grep -q ',[1-9][0-9]*,[0-9]*,[0-9]*$' "$D/arm64/hlt.expect-exits.csv"

# the two readers of a trace.dat (our page walker, libtracecmd's records) split alike
for f in kvm-exitstat.dat trace-cmd.dat; do
	$KES report --anatomy --slowest 1000000 -f csv "$D/$f" >"$TMP/fast.csv"
	KES_NO_FASTPATH=1 $KES report --anatomy --slowest 1000000 -f csv "$D/$f" >"$TMP/slow.csv"
	check "$f: the same split through libtracecmd (KES_NO_FASTPATH=1)" cmp -s "$TMP/fast.csv" "$TMP/slow.csv"
	$KES report --anatomy -f json "$D/$f" >"$TMP/fast.json"
	KES_THREADS=1 $KES report --anatomy -f json "$D/$f" >"$TMP/one.json"
	check "$f: the same anatomy on one thread (KES_THREADS=1)" cmp -s "$TMP/fast.json" "$TMP/one.json"
done
# the filters keep whole threads: one thread's exits split as without them (its sched
# events go through whatever the filter says, as the thread its switch names)
tid=$(awk '$1 == "vcpu" { print $4; exit }' "$D/exitgen.out")
$KES report --anatomy --slowest 1000000 -f csv "$D/kvm-exitstat.dat" |
	awk -F, -v t="$tid" '$4 == t' | cut -d, -f2- | sort >"$TMP/all.t"
$KES report --anatomy --slowest 1000000 -f csv -p "$tid" "$D/kvm-exitstat.dat" |
	awk -F, 'NR > 1' | cut -d, -f2- | sort >"$TMP/one.t"
check "-p $tid: its exits ($(wc -l <"$TMP/one.t")) split as without the filter" cmp -s "$TMP/all.t" "$TMP/one.t"
check "-p $tid: some of its exits runnable" awk -F, '$14 > 0 { ok = 1 } END { exit !ok }' "$TMP/one.t"
# what the workloads were made to show
$KES report --anatomy -f json "$D/kvm-exitstat.dat" >"$TMP/a.json"
python3 - "$TMP/a.json" >"$TMP/shows" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
rows = {r['name']: r for r in j['rows']}
print('schema', j['schema'])
print('top_preemptor', j['preemptors'][0]['comm'])
print('hlt_blocked_share_gt_30', rows['hlt']['parts']['blocked']['share'] > 30)
print('hlt_polled', rows['hlt']['parts']['polled']['sum_ns'] > 0)
print('hlt_halts', rows['hlt']['halts'], 'slept', rows['hlt']['slept'])
print('npf_vmm', rows['npf']['parts']['vmm']['sum_ns'] > 0)
print('io_runnable', rows['io']['parts']['runnable']['sum_ns'] > 0)
shares = [sum(r['parts'][p]['share'] for p in r['parts']) for r in j['rows'] + [j['all']]]
print('shares_100', all(abs(s - 100) < 1e-9 for s in shares))
sums = [sum(r['parts'][p]['sum_ns'] for p in r['parts']) == r['sum_ns'] for r in j['rows'] + [j['all']]]
print('sums_exact', all(sums))
PY
eq "json: its schema" "$(awk '$1 == "schema" { print $2 }' "$TMP/shows")" kvm-exitstat-anatomy/1
eq "the hog is the top preemptor" "$(awk '$1 == "top_preemptor" { print $2 }' "$TMP/shows")" exitgen-hog
eq "halts: mostly blocked" "$(awk '$1 == "hlt_blocked_share_gt_30" { print $2 }' "$TMP/shows")" True
eq "halts: some polling" "$(awk '$1 == "hlt_polled" { print $2 }' "$TMP/shows")" True
eq "halts: 13 of them, as many kvm_vcpu_wakeup as exitgen made" \
	"$(awk '$1 == "hlt_halts" { print $2 }' "$TMP/shows")" 13
eq "MMIO exits spent time in the VMM" "$(awk '$1 == "npf_vmm" { print $2 }' "$TMP/shows")" True
eq "io exits were runnable" "$(awk '$1 == "io_runnable" { print $2 }' "$TMP/shows")" True
eq "json: each row's shares add up to 100" "$(awk '$1 == "shares_100" { print $2 }' "$TMP/shows")" True
eq "json: each row's parts add up to its time" "$(awk '$1 == "sums_exact" { print $2 }' "$TMP/shows")" True

# ---- every fixture: it adds up, or it says why not ---------------------------------
nsplit=0 nnone=0
for f in $(find tests/fixtures -type f \( -name '*.dat' -o -name '*.txt' \) | sort); do
	$KES report --anatomy --slowest 1000000 -f csv "$f" >"$TMP/f.csv" 2>"$TMP/f.err"
	rc=$?
	if [ $rc -eq 0 ]; then
		nsplit=$((nsplit + 1))
		eq "$f: every split interval's parts add up to it" "$(awk -F, '
			NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$c["split"] == 1 { s = 0; for (p = c["handling_ns"]; p <= c["softirq_ns"]; p++) s += $p
				if (s != $c["ns"]) bad++ }
			END { print bad + 0 }' "$TMP/f.csv")" 0
	elif grep -q 'no sched events: anatomy unavailable' "$TMP/f.err"; then
		nnone=$((nnone + 1))
		eq "$f: 'no sched events' said once" "$(grep -c 'no sched events' "$TMP/f.err")" 1
	fi
done
check "fixtures with sched events split ($nsplit)" [ "$nsplit" -ge 3 ]
check "fixtures without said so ($nnone)" [ "$nnone" -ge 5 ]
# the status and the one line, for a recording without sched events
$KES report --anatomy tests/fixtures/lab/x86-svm/kvm-exitstat.dat >"$TMP/o" 2>"$TMP/e"
eq "no sched events: status 1" "$?" 1
eq "no sched events: nothing on stdout" "$(wc -c <"$TMP/o" | tr -d ' ')" 0
eq "no sched events: one line" "$(wc -l <"$TMP/e" | tr -d ' ')" 1
check "no sched events: names the input ($(cat "$TMP/e"))" \
	grep -q "kvm-exitstat.dat': no sched events: anatomy unavailable" "$TMP/e"

# ---- the views --------------------------------------------------------------------
FIX=$D/kvm-exitstat.dat
$KES report --anatomy "$FIX" >"$TMP/ppc"
eq "ppc: a line per reason and all" "$(grep -c ' split [0-9]* unsplit ' "$TMP/ppc")" 5
check "ppc: each part's mean, share and p99" grep -q '^hlt split 13 unsplit 0 mean [0-9.]* handling [0-9.]* [0-9.]*% p99 [0-9]* runnable' "$TMP/ppc"
check "ppc: the preemptors" grep -q '^# preemptor exitgen-hog (pid [0-9]*): ' "$TMP/ppc"
$KES report --anatomy -f csv "$FIX" >"$TMP/csv"
eq "csv: its head" "$(head -1 "$TMP/csv")" "name,split,unsplit,part,mean,share,p99,sum_ns,unit"
eq "csv: 7 parts for each of 4 reasons and all" "$(($(wc -l <"$TMP/csv") - 1))" 35
COLUMNS= $KES report --anatomy -f table "$FIX" >"$TMP/table"
check "table: at most 80 columns" awk 'length > 80 { exit 1 }' "$TMP/table"
check "table: the part rows" grep -q '^hlt *13 handling' "$TMP/table"
$KES report --anatomy --slowest 3 "$FIX" >"$TMP/slow"
check "slowest --anatomy: the dominant cause, as people say it ($(sed -n 2p "$TMP/slow"))" \
	grep -q '^npf 14.2 ms: 9.3 ms runnable behind exitgen-hog (pid 141) \[ts 9.220358509 tid 140 vcpu 0 gpa 0x10000\]$' "$TMP/slow"
$KES report --anatomy --slowest 3 -f table "$FIX" >"$TMP/slowt"
check "slowest --anatomy -f table: a CAUSE column" grep -q 'CAUSE' "$TMP/slowt"
$KES report --anatomy --slowest 3 -f json "$FIX" >"$TMP/slowj"
eq "slowest --anatomy -f json: each exit's parts" \
	"$(python3 -c 'import json,sys; x=json.load(open(sys.argv[1]))["slowest"][0]["anatomy"]; print(x["runnable"], x["who"][0]["comm"], x["dominant"])' "$TMP/slowj")" \
	"9294453 exitgen-hog runnable"
# without the flag the report is what it was: no anatomy, the same numbers as from
# the same recording read by trace-cmd's text of it (no sched event changes a row)
$KES report "$FIX" >"$TMP/plain"
check "no --anatomy: no anatomy lines" sh -c "! grep -q ' unsplit \|preemptor' '$TMP/plain'"
check "no --anatomy: the PPC rows" grep -q '^io count 162 ' "$TMP/plain"
# refusals
$KES report --anatomy --per-vcpu "$FIX" >/dev/null 2>"$TMP/e"
eq "--anatomy --per-vcpu: refused" "$?" 2
$KES report -f json "$FIX" >"$TMP/r.json"
$KES report --anatomy "$TMP/r.json" >/dev/null 2>"$TMP/e"
eq "--anatomy of a JSON report: refused" "$?" 1
check "--anatomy of a JSON report: says why ($(cat "$TMP/e"))" grep -q 'holds statistics, not single exits' "$TMP/e"
summary
