#!/bin/sh
# report --nested: a trace made here with known nesting (two vCPU threads,
# interleaved; L2 exits handled by L0 or reflected to L1, each reflected one
# followed by L1's window of a known number of exits ending in a VMRESUME
# whose handling enters L2), its counts and times the generator's own; and
# the published traces that carry kvm_nested_* events, against an awk count
# of the same lines by the same rules. Bad uses: one line, non-zero exit.
. "$(dirname "$0")/lib.sh"

# gen N R: N L2 exits per thread, every R-th reflected. Writes the trace to
# stdout and the truth ("key value" lines) to $TMP/truth.
gen() {
	awk -v N="$1" -v R="$2" -v truth="$TMP/truth" '
	function ev(th, name, payload) {
		now += 1000 # ns: one microsecond per event, one clock for both threads
		ts[th] = now
		printf "       CPU %d/KVM-%d  [00%d] ....  %d.%06d: %s: %s\n", th, 700 + th, th,
			int(now / 1e9), (now % 1e9) / 1e3, name, payload
	}
	function ex(th, reason) { ev(th, "kvm_exit", "vcpu " th " reason " reason " rip 0x1000 info1 0x0000000000000000 info2 0x0000000000000000 intr_info 0x00000000 error_code 0x00000000") }
	function en(th) { ev(th, "kvm_entry", "vcpu " th ", rip 0x1000") }
	BEGIN {
		now = 1e9
		for (i = 1; i <= N; i++) for (th = 0; th < 2; th++) {
			if (i % R) { # L0 handles it: 3 us from exit to entry
				ex(th, "EPT_VIOLATION"); ev(th, "kvm_nested_vmexit", "vcpu " th " reason EPT_VIOLATION rip 0x1000 info1 0x0 info2 0x0 intr_info 0x00000000 error_code 0x00000000")
				t0 = ts[th]; en(th); l2++; l0++; l0ns += ts[th] - t0 + 1000; continue
			}
			why = (i / R) % 2 ? "CPUID" : "MSR_READ"
			ex(th, why); ev(th, "kvm_nested_vmexit", "vcpu " th " reason " why " rip 0x1000 info1 0x0 info2 0x0 intr_info 0x00000000 error_code 0x00000000")
			ev(th, "kvm_nested_vmexit_inject", "reason: " why " ext_inf1: 0x0 ext_inf2: 0x0 ext_int: 0x00000000 ext_int_err: 0x00000000")
			en(th); l2++; refl++; start = ts[th]
			m = i % 3 + 1 # L1 VMREADs before its VMRESUME
			for (k = 0; k < m; k++) { ex(th, "VMREAD"); en(th); l1++; vmread++ }
			ex(th, "VMRESUME"); ev(th, "kvm_nested_vmenter", "rip: 0x1000 vmcs: 0x1000 nested_rip: 0x2000 int_ctl: 0x00000000 event_inj: 0x00000000 nested_ept=y nested_eptp: 0x1000")
			en(th); l1++; vmresume++; win++; wexits += m + 1; wns += ts[th] - start
		}
		printf "l2_exits %d\nl0_handled %d\nreflected %d\nl1_exits %d\nwindows %d\nwindow_exits %d\nwindow_ns %d\nvmread %d\nvmresume %d\nl0_ns %d\n",
			l2, l0, refl, l1, win, wexits, wns, vmread, vmresume, l0ns > truth
	}'
}
gen 60 4 >"$TMP/nested.txt"
json=$("$KES" report --nested -f json "$TMP/nested.txt")
jget() { echo "$json" | python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
for k in l2_exits l0_handled reflected l1_exits windows window_exits window_ns; do
	eq "made: $k" "$(jget "d['$k']")" "$(awk -v k=$k '$1 == k { print $2 }' "$TMP/truth")"
done
eq "made: no window open at the end" "$(jget "d['open_windows']")" 0
eq "made: VMREAD in the windows" "$(jget "[r['count'] for r in d['rows'] if r['kind']=='l1' and r['name']=='VMREAD'][0]")" \
	"$(awk '$1 == "vmread" { print $2 }' "$TMP/truth")"
eq "made: L0's handling time" "$(jget "sum(r['l0_ns'] for r in d['rows'] if r['kind']=='l2')")" \
	"$(awk '$1 == "l0_ns" { print $2 }' "$TMP/truth")"
eq "made: reflected by reason add up" "$(jget "sum(r['reflected'] for r in d['rows'] if r['kind']=='l2')")" \
	"$(awk '$1 == "reflected" { print $2 }' "$TMP/truth")"
# the same trace through csv and the table
eq "made: csv l2 rows' counts" "$("$KES" report --nested -f csv "$TMP/nested.txt" | awk -F, '$1 == "l2" { n += $3 } END { print n }')" \
	"$(awk '$1 == "l2_exits" { print $2 }' "$TMP/truth")"
"$KES" report --nested "$TMP/nested.txt" >"$TMP/table"
check "made: table header" grep -q "^L2 exits: 120, handled by L0 90, reflected to L1 30" "$TMP/table"

# Published traces: awk follows each vCPU thread (task-pid) through the same
# rules: an exit with kvm_nested_vmexit is L2's, reflected with
# kvm_nested_vmexit_inject before the next kvm_entry; after a reflected one,
# L1's exits count until one whose handling had kvm_nested_vmenter/_vmrun.
oracle() {
	awk '
	function close_exit(t) {
		if (!(t in reason)) return
		if (nx[t]) { l2++; if (inj[t]) { refl++; open[t] = 1; win_ex[t] = 0 } else l0++ }
		else if (open[t]) { l1++; win_ex[t]++; if (ent[t]) { wins++; wexits += win_ex[t]; open[t] = 0 } }
		delete reason[t]
	}
	{
		if (!match($0, /: +kvm(:kvm)?_[a-z_]+:/)) next
		e = substr($0, RSTART, RLENGTH); sub(/^: +(kvm:)?/, "", e); sub(/:$/, "", e)
		if (!match($0, /[- ][0-9]+ +(\([ 0-9-]+\) +)?\[[0-9]+\]/)) next
		t = substr($0, RSTART + 1, RLENGTH); sub(/ .*/, "", t)
		if (e == "kvm_exit") { close_exit(t); reason[t] = 1; nx[t] = inj[t] = ent[t] = 0 }
		else if (e == "kvm_nested_vmexit" && (t in reason)) nx[t] = 1
		else if (e == "kvm_nested_vmexit_inject" && (t in reason)) inj[t] = 1
		else if ((e == "kvm_nested_vmenter" || e == "kvm_nested_vmrun") && (t in reason)) ent[t] = 1
		else if (e == "kvm_entry") close_exit(t)
	}
	END { for (t in reason) close_exit(t); openw = 0; for (t in open) if (open[t]) openw++
		print l2 + 0, l0 + 0, refl + 0, l1 + 0, wins + 0, wexits + 0, openw }' "$1"
}
for f in kiszka-nested-vmware-loop sean-l2-hlt-excerpts sean-dr6-annotated-trimmed bz220549-perf-wrapped-name; do
	PUB=tests/fixtures/published/$f.txt
	json=$("$KES" report --nested -f json "$PUB" 2>/dev/null)
	eq "$f: against awk" "$(jget "d['l2_exits'], d['l0_handled'], d['reflected'], d['l1_exits'], d['windows'], d['window_exits'], d['open_windows']" | tr -d '(),')" "$(oracle "$PUB")"
done

# Bad uses
"$KES" report --nested tests/fixtures/lab/x86-svm/trace-cmd.txt >"$TMP/o" 2>"$TMP/e"
check "no nested events: fails" [ $? -ne 0 ]
eq "no nested events: one line" "$(wc -l <"$TMP/e")" 1
check "no nested events: says so" grep -q "no exit with kvm_nested_" "$TMP/e"
"$KES" report --nested --per-vcpu "$TMP/nested.txt" >/dev/null 2>"$TMP/e"
check "--nested --per-vcpu: refused" [ $? -ne 0 ]
eq "--nested --per-vcpu: one line" "$(wc -l <"$TMP/e")" 1
"$KES" report -f json "$TMP/nested.txt" >"$TMP/r.json"
"$KES" report --nested "$TMP/r.json" >/dev/null 2>"$TMP/e"
check "--nested of a saved report: refused" [ $? -ne 0 ]
summary
