#!/bin/sh
# report --buckets ppc on a fresh recording of exitgen: its userspace exits
# show its printed counts as EMULINST (or PIO), MMIO and HALT; where kvm_exit fires,
# the kvm_exit table's buckets are the lab's bucket: rules over the same counts
# (tests/lab/isa/*.expect); --per-vcpu tables add up to the whole.
. "$(dirname "$0")/lib.sh"
need_kvm
eg_total() { awk -v k="$1" '$1 == "total" { for (i = 2; i < NF; i++) if ($i == k) print $(i + 1) }' "$2"; }
bucket_n() { awk -F, -v n="$2" '$1 == n && $2 == -1 { print $4 }' "$1"; }
whole() { awk -F, 'NR > 1 && $2 == -1 { printf "%s %d %d %.0f\n", $1, $4 - $5, $5, $8 }' "$1" | sort; }
per_vcpu_sum() {
	awk -F, 'NR > 1 && $2 != -1 { c[$1] += $4 - $5; u[$1] += $5; s[$1] += $8 }
		END { for (n in c) printf "%s %d %d %.0f\n", n, c[n], u[n], s[n] }' "$1" | sort
}
# Live: record exitgen, report its buckets.
"$KES" record -o "$TMP/live.dat" -- "$EXITGEN" --io 300 --mmio 200 --hlt 50 --vcpus 2 \
	>"$TMP/eg.out" 2>"$TMP/rec.err"
eq "record status" "$?" 0
"$KES" report -i "$TMP/live.dat" --buckets ppc --per-vcpu -u ns -f csv --source userspace >"$TMP/live.csv" 2>"$TMP/err"
eq "live: report status" "$?" 0
# An `out` reaches the VMM through SVM's IOIO intercept where kvm_exit fires
# (the lab's x86-svm: PIO); the paravirtual hosts of the old runs emulated
# every one (EMULINST, kvm_emulate_insn before the exit).
io_bucket=EMULINST
[ -n "$EXIT_RULES" ] && io_bucket=PIO
eq "live: $io_bucket = KVM_EXIT_IO" "$(bucket_n "$TMP/live.csv" $io_bucket)" "$(eg_total KVM_EXIT_IO "$TMP/eg.out")"
eq "live: MMIO = KVM_EXIT_MMIO" "$(bucket_n "$TMP/live.csv" MMIO)" "$(eg_total KVM_EXIT_MMIO "$TMP/eg.out")"
eq "live: HALT = KVM_EXIT_HLT" "$(bucket_n "$TMP/live.csv" HALT)" "$(eg_total KVM_EXIT_HLT "$TMP/eg.out")"
eq "live: untimed = one final exit per vCPU" \
	"$(awk -F, '$2 == -1 { u += $5 } END { print u }' "$TMP/live.csv")" 2
eq "live: no OTHER bucket" "$(grep -c '^OTHER' "$TMP/live.csv")" 0
eq "live: per-vCPU tables add up to the whole" "$(per_vcpu_sum "$TMP/live.csv")" "$(whole "$TMP/live.csv")"
"$KES" report -i "$TMP/live.dat" --buckets ppc -f csv --source exits >"$TMP/exits.csv" 2>"$TMP/err"
eq "live, kvm_exit: report status" "$?" 0
exits_exact "live, kvm_exit" "$TMP/exits.csv" "$TMP/eg.out" bucket:
summary
