#!/bin/sh
# Real recordings from the lab's kernels (tests/fixtures/lab/*/, see their
# PROVENANCE.md): what each kernel traced for a known exitgen workload must
# come out of `report` as exitgen counted it, from the trace.dat and from
# trace-cmd's text of the same file alike. Expected values come from the
# workload's own output (ISA/small.exitgen) and from awk over the text, never
# from the tool. Needs neither QEMU, root nor KVM: this is how `make check`
# keeps proving the kvm_exit path of book3s HV and PR.
. "$(dirname "$0")/lib.sh"
FIX=tests/fixtures/lab

# eg FILE FIELD: FIELD summed over exitgen's per-vCPU lines.
eg() { awk -v f="$2" '$1 == "vcpu" { for (i = 1; i < NF; i++) if ($i == f) s += $(i + 1) } END { print s + 0 }' "$1"; }
# row CSV NAME [SUB]: the count of a whole-run row (count is every exit seen, timed or not).
row() { awk -F, -v n="$2" -v s="${3:-}" 'NR > 1 && $2 == -1 && $1 == n && $17 == s { c += $4 } END { print c + 0 }' "$1"; }
# rows CSV: "name count" of every whole-run row, sorted.
rows() { awk -F, 'NR > 1 && $2 == -1 && $1 != "TIMEINGUEST" { print $1, $4 }' "$1" | sort; }
# pervcpu_sum CSV: the per-thread rows added up by name.
pervcpu_sum() {
	awk -F, 'NR > 1 && $2 != -1 && $1 != "TIMEINGUEST" { c[$1] += $4 } END { for (n in c) print n, c[n] }' "$1" | sort
}
# text_exits TXT EVENT KEY: exits of the trace-cmd text by reason (KEY= is trap= or exit=).
text_exits() {
	awk -v ev="$2:" -v k="$3" '$4 == ev || $5 == ev {
		for (i = 1; i <= NF; i++) if (index($i, k) == 1) { r = substr($i, length(k) + 1); sub(/,$/, "", r); n[r]++ } }
		END { for (r in n) print r, n[r] }' "$1" | sort
}
# text_mmio TXT EXIT_EVENT: exits followed, on their thread, by KVM_EXIT_MMIO
# before the thread's next exit (the lab's finding: powerpc has no kvm_mmio).
text_mmio() {
	awk -v ev="$2:" '{ t = $1 } $4 == ev || $5 == ev { open[t] = 1 }
		/kvm_userspace_exit:/ && /KVM_EXIT_MMIO/ { if (open[t]) n++; open[t] = 0 }
		END { print n + 0 }' "$1"
}

for fx in "$FIX"/ppc_book3s_hv "$FIX"/ppc_book3s_pr; do
	isa=$(basename "$fx")
	e=$fx/small.exitgen
	mmio=$(awk '$1 == "total" { for (i = 1; i < NF; i++) if ($i == "KVM_EXIT_MMIO") print $(i + 1) }' "$e")
	hc=$(eg "$e" hcall) hu=$(eg "$e" hcall_user) priv=$(eg "$e" priv) pv=$(eg "$e" pvcall) hlt=$(eg "$e" hlt)
	check "$isa: the workload's counts" test "$mmio" -gt 0 -a "$hc" -gt 0 -a "$hu" -gt 0 -a "$hlt" -gt 0
	case $isa in
	ppc_book3s_hv) ev=kvm_guest_exit key=trap= ;;
	*) ev=kvm_exit key=exit= ;;
	esac
	eq "$isa: every MMIO store is an exit then KVM_EXIT_MMIO (text)" "$(text_mmio "$fx/small.txt" $ev)" "$mmio"

	for src in dat txt; do
		in=$fx/small.$src
		"$KES" report -i "$in" --buckets ppc -f csv >"$TMP/b.csv" 2>"$TMP/err"
		eq "$isa $src: --buckets status" "$?" 0
		eq "$isa $src: MMIO = exitgen's KVM_EXIT_MMIO" "$(row "$TMP/b.csv" MMIO)" "$mmio"
		eq "$isa $src: HALT = exitgen's H_CEDEs" "$(row "$TMP/b.csv" HALT)" "$hlt"
		eq "$isa $src: no MMIO left in DTLBVIRT or DSI as storage faults" \
			"$(row "$TMP/b.csv" DTLBVIRT)" 0
		"$KES" report -i "$in" -f csv >"$TMP/r.csv" 2>"$TMP/err"
		eq "$isa $src: report status" "$?" 0
		# trace-cmd prints trap 0 as 0x0 (not in kvm_trace_symbol_exit); our table: RETURN_TO_HOST
	eq "$isa $src: every reason = trace-cmd's text" "$(rows "$TMP/r.csv")" \
			"$(text_exits "$fx/small.txt" $ev $key | sed 's/^0x0 /RETURN_TO_HOST /' | sort)"
		"$KES" report -i "$in" --source userspace -f csv >"$TMP/u.csv" 2>"$TMP/err"
		eq "$isa $src: KVM_EXIT_MMIO" "$(row "$TMP/u.csv" KVM_EXIT_MMIO)" "$mmio"
		eq "$isa $src: KVM_EXIT_PAPR_HCALL" "$(row "$TMP/u.csv" KVM_EXIT_PAPR_HCALL)" "$hu"
		"$KES" report -i "$in" --buckets ppc --per-vcpu -f csv >"$TMP/pv.csv" 2>"$TMP/err"
		check "$isa $src: two vCPU threads" test \
			"$(awk -F, 'NR > 1 && $2 != -1 { print $2 }' "$TMP/pv.csv" | sort -u | wc -l)" -eq 2
		eq "$isa $src: --per-vcpu adds up" "$(pervcpu_sum "$TMP/pv.csv")" "$(rows "$TMP/pv.csv")"
		case $isa in
		ppc_book3s_hv)
			eq "$isa $src: HCALL = sc 1 in the kernel + to the VMM" \
				"$(row "$TMP/b.csv" HCALL)" $((hc + hu))
			"$KES" report -i "$in" --buckets ppc --by-sub -f csv >"$TMP/s.csv" 2>"$TMP/err"
			eq "$isa $src: --by-sub H_CONFER" "$(row "$TMP/s.csv" HCALL 0xe4)" "$hc"
			eq "$isa $src: --by-sub H_GET_TERM_CHAR" "$(row "$TMP/s.csv" HCALL 0x54)" "$hu"
			;;
		ppc_book3s_pr)
			eq "$isa $src: SYSCALL = sc 1 + sc 0 PV calls" "$(row "$TMP/b.csv" SYSCALL)" \
				$((hc + hu + pv))
			eq "$isa $src: EMULINST = mfmsr" "$(row "$TMP/b.csv" EMULINST)" "$priv"
			# kvm_exit's dar: the MMIO register and the done register (guest-ppc64.c)
			"$KES" report -i "$in" --buckets ppc --by-sub -f csv >"$TMP/s.csv" 2>"$TMP/err"
			eq "$isa $src: --by-sub MMIO@0x40000010" "$(row "$TMP/s.csv" MMIO 0x40000010)" \
				$((mmio - 2))
			eq "$isa $src: --by-sub MMIO@0x40000100" "$(row "$TMP/s.csv" MMIO 0x40000100)" 2
			;;
		esac
	done
done
summary
