#!/bin/sh
# Real riscv64 KVM recordings from the lab (tests/fixtures/lab/riscv64, see its
# PROVENANCE.md): exitgen --vcpus 2 --mmio 20 --hcall 10 --hcall-user 10 --hlt 5
# under a 6.12.117 kernel, as our trace.dat, trace-cmd's text of it (in the guest,
# and on a host whose trace-cmd has the kvm plugin), and tracefs text of a second
# run. Expected counts come from exitgen's own output (awk) and from grep over
# the text, never from the tool.
. tests/e2e/lib.sh
FX=tests/fixtures/lab/riscv64

# eg FILE FIELD: FIELD summed over exitgen's vcpu lines ("vcpus": their number).
eg() {
	awk -v f="$2" '$1 == "vcpu" { n++; for (i = 5; i < NF; i += 2) if ($i == f) s += $(i + 1) }
		END { print f == "vcpus" ? n : s + 0 }' "$1"
}
# row CSV NAME [SUB]: count+untimed of the whole-run row NAME (with sub-key SUB).
row() {
	awk -F, -v n="$2" -v s="${3:-}" '$1 == n && $2 == -1 && $17 == s { c += $4 } END { print c + 0 }' "$1"
}
# untimed CSV: the untimed exits of the whole-run rows.
untimed() { awk -F, 'NR > 1 && $2 == -1 && $17 == "" { s += $5 } END { print s + 0 }' "$1"; }

# one INPUT EXITGEN TEXT: every view of INPUT against exitgen and TEXT's lines.
one() {
	in=$1 e=$2 txt=$3 w=$(basename "$1")
	mmio=$(eg "$e" ops_mmio) passes=$(eg "$e" passes) vcpus=$(eg "$e" vcpus)
	calls=$(($(eg "$e" hcall) + $(eg "$e" hcall_user))) hlt=$(eg "$e" hlt)
	$KES report -i "$in" -f csv >"$TMP/x.csv" 2>"$TMP/err"
	eq "$w: report" "$?:$(cat "$TMP/err")" "0:"
	eq "$w: store faults = mmio + done" "$(row "$TMP/x.csv" EXC_STORE_GUEST_PAGE_FAULT)" "$((mmio + passes))"
	eq "$w: store faults = text's scause 0x17" "$(row "$TMP/x.csv" EXC_STORE_GUEST_PAGE_FAULT)" \
		"$(grep -c 'kvm_exit: .*SCAUSE:0x17,' "$txt")"
	eq "$w: ecalls" "$(row "$TMP/x.csv" EXC_SUPERVISOR_SYSCALL)" "$calls"
	eq "$w: wfi" "$(row "$TMP/x.csv" EXC_VIRTUAL_INST_FAULT)" "$hlt"
	eq "$w: first fetches" "$(row "$TMP/x.csv" EXC_INST_GUEST_PAGE_FAULT)" "$vcpus"
	t=$(awk -F, '$1 == "EXC_STORE_GUEST_PAGE_FAULT" && $2 == -1 { print ($4 > 0 && $8 > 0) }' "$TMP/x.csv")
	eq "$w: store faults have handling times" "$t" 1
	check "$w: TIMEINGUEST" grep -q '^TIMEINGUEST,-1,' "$TMP/x.csv"
	eq "$w: untimed: each vCPU's last exit" "$(untimed "$TMP/x.csv")" "$vcpus"

	$KES report -i "$in" -f csv --buckets ppc >"$TMP/b.csv" 2>/dev/null
	eq "$w: bucket MMIO" "$(row "$TMP/b.csv" MMIO)" "$((mmio + passes))"
	eq "$w: bucket HALT" "$(row "$TMP/b.csv" HALT)" "$hlt"
	eq "$w: bucket HCALL" "$(row "$TMP/b.csv" HCALL)" "$calls"
	eq "$w: bucket ITLBVIRT" "$(row "$TMP/b.csv" ITLBVIRT)" "$vcpus"
	eq "$w: no DTLBVIRT, no EMULINST" "$(row "$TMP/b.csv" DTLBVIRT)$(row "$TMP/b.csv" EMULINST)" 00

	$KES report -i "$in" -f csv --by-sub >"$TMP/s.csv" 2>/dev/null
	eq "$w: by-sub MMIO register" "$(row "$TMP/s.csv" EXC_STORE_GUEST_PAGE_FAULT 0x40000010)" "$mmio"
	eq "$w: by-sub done register" "$(row "$TMP/s.csv" EXC_STORE_GUEST_PAGE_FAULT 0x40000018)" "$passes"
	eq "$w: by-sub: no ecall address" "$(grep -c '^EXC_SUPERVISOR_SYSCALL,.*,0x' "$TMP/s.csv")" 0

	$KES report -i "$in" -f csv --source userspace >"$TMP/u.csv" 2>/dev/null
	for r in KVM_EXIT_MMIO KVM_EXIT_RISCV_SBI; do
		eq "$w: $r" "$(row "$TMP/u.csv" $r)" "$(eg "$e" $r)"
	done
	# KVM_RUN's -EINTR: the kernel prints "restart (4)", trace-cmd 3.1.6's text
	# "KVM_EXIT_INTR (10)" (the run's exit_reason): either name, not both
	intr=$(($(row "$TMP/u.csv" restart) + $(row "$TMP/u.csv" KVM_EXIT_INTR)))
	eq "$w: restart or KVM_EXIT_INTR" "$intr" "$(eg "$e" KVM_EXIT_INTR)"
	eq "$w: userspace untimed: each vCPU's last" "$(untimed "$TMP/u.csv")" "$vcpus"
}

one $FX/small.dat $FX/small.exitgen $FX/small.txt
one $FX/small.txt $FX/small.exitgen $FX/small.txt
one $FX/small.plugin.txt $FX/small.exitgen $FX/small.plugin.txt
one $FX/small.tracefs.txt $FX/small.tracefs.exitgen $FX/small.tracefs.txt
# trace-cmd's text of our file and the file itself: the same exits, reason by reason
$KES report -i $FX/small.dat -f csv | cut -d, -f1-5 | sort >"$TMP/dat"
$KES report -i $FX/small.plugin.txt -f csv | cut -d, -f1-5 | sort >"$TMP/txt"
check "trace.dat and trace-cmd's text (kvm plugin errors) agree" cmp -s "$TMP/dat" "$TMP/txt"
summary
