#!/bin/sh
# LoongArch's exits (exit_types/loongarch.types): a trace.dat built from
# format files of Linux 6.12's arch/loongarch/kvm/trace.h
# (tests/fixtures/formats/loongarch) reads as LoongArch, its exit codes named
# as perf kvm stat names them, an exit ended by kvm_reenter (handled in the
# kernel) or by kvm_enter (after the VMM: KVM_RUN again), as perf's
# kvm-stat-loongarch.c ends them; and perf kvm stat's own table of such a
# run diffs against it row by row. Times worked out by hand below.
. "$(dirname "$0")/lib.sh"
MKDAT=${MKDAT:-${O:-build}/tests/tools/mkdat}
check "mkdat at $MKDAT" test -x "$MKDAT"
# vCPU 0 (tid 301) and vCPU 1 (tid 302):
#   301: exit 1 (TLBL: Mem Read)  1000 -> reenter 1400  (400)
#   301: exit 22 (GSPR)           2000 -> reenter 2300  (300)
#   302: exit 23 (HVC)            2100 -> out 2200, enter 2900 (800: through the VMM)
#   301: exit 0 (interrupt)       3000 -> reenter 3050  (50)
#   302: exit 1 (TLBL)            3100 -> reenter 3700  (600)
#   301: exit 15 (FPDIS)          4000 -> reenter 4100  (100)
#   time in guest: 301: 500..1000 500, 1400..2000 600, 2300..3000 700, 3050..4000 950
#                  302: 600..2100 1500, 2900..3100 200
"$MKDAT" -o "$TMP/la.dat" -f tests/fixtures/formats/loongarch - <<'EVENTS'
0 500 301 kvm:kvm_enter vcpu_id=0 pc=0x9000000000200000
0 600 302 kvm:kvm_enter vcpu_id=1 pc=0x9000000000200000
0 1000 301 kvm:kvm_exit vcpu_id=0 pc=0x9000000000200010 reason=1
0 1400 301 kvm:kvm_reenter vcpu_id=0 pc=0x9000000000200010
0 2000 301 kvm:kvm_exit vcpu_id=0 pc=0x9000000000200020 reason=22
0 2100 302 kvm:kvm_exit vcpu_id=1 pc=0x9000000000200030 reason=23
0 2200 302 kvm:kvm_out vcpu_id=1 pc=0x9000000000200034
0 2300 301 kvm:kvm_reenter vcpu_id=0 pc=0x9000000000200024
0 2900 302 kvm:kvm_enter vcpu_id=1 pc=0x9000000000200034
0 3000 301 kvm:kvm_exit vcpu_id=0 pc=0x9000000000200040 reason=0
0 3050 301 kvm:kvm_reenter vcpu_id=0 pc=0x9000000000200040
0 3100 302 kvm:kvm_exit vcpu_id=1 pc=0x9000000000200050 reason=1
0 3700 302 kvm:kvm_reenter vcpu_id=1 pc=0x9000000000200050
0 4000 301 kvm:kvm_exit vcpu_id=0 pc=0x9000000000200060 reason=15
0 4100 301 kvm:kvm_reenter vcpu_id=0 pc=0x9000000000200060
EVENTS
eq "mkdat built the LoongArch trace" $? 0
"$KES" report -i "$TMP/la.dat" -u ns -f csv >"$TMP/la.csv" 2>"$TMP/err"
eq "report: exit status ($(head -c 200 "$TMP/err"))" $? 0
rows() { awk -F, 'NR > 1 && $2 == -1 { printf "%s %d %d %.0f\n", $1, $4, $5, $8 }' "$1" | sort; }
eq "rows: name count untimed sum_ns, as worked out" "$(rows "$TMP/la.csv")" "$(printf '%s\n' \
	'FPU 1 0 100' 'Hypercall 1 0 800' 'Interrupt 1 0 50' 'Mem Read 2 0 1000' \
	'Privilege Error 1 0 300' 'TIMEINGUEST 6 0 4450' | sort)"
"$KES" report -i "$TMP/la.dat" -f json >"$TMP/la.json" 2>/dev/null
eq "the ISA is loongarch" "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["isa"])' "$TMP/la.json")" loongarch
"$KES" report -i "$TMP/la.dat" --vcpu 1 -u ns -f csv >"$TMP/v1.csv" 2>/dev/null
eq "--vcpu 1 (vcpu_id of the events)" "$(rows "$TMP/v1.csv" | grep -v TIMEINGUEST | tr '\n' ';')" \
	"Hypercall 1 0 800;Mem Read 1 0 600;"
# perf kvm stat's table of the same run (print_result()'s format, its names)
{
	printf '\n\nAnalyze events for all VMs, all VCPUs:\n\n'
	printf '%40s %10s %9s %9s %11s %11s %16s \n\n' VM-EXIT Samples Samples% Time% 'Min Time' 'Max Time' 'Avg time'
	printf '%40s %10d %8.2f%% %8.2f%% %9.2fus %9.2fus %9.2fus ( +-%7.2f%% )\n' \
		'Mem Read' 2 33.33 44.44 0.40 0.60 0.50 20.00 \
		'Hypercall' 1 16.67 35.56 0.80 0.80 0.80 0.00 \
		'Privilege Error' 1 16.67 13.33 0.30 0.30 0.30 0.00
} >"$TMP/perf.txt"
"$KES" diff "$TMP/perf.txt" "$TMP/la.dat" -f csv >"$TMP/d.csv" 2>"$TMP/derr"
eq "diff perf kvm stat's LoongArch table against the trace: exit status ($(head -c 200 "$TMP/derr"))" $? 0
eq "... 'Mem Read' (perf's name, a space in it) one row of both: count A, count B" \
	"$(awk -F, '$1 == "Mem Read" { print $3, $4, $10 }' "$TMP/d.csv")" "both 2 2"
eq "... Hypercall: avg A 0.80 us = B's 800 ns" \
	"$(awk -F, '$1 == "Hypercall" { printf "%.2f %.2f", $5, $11 }' "$TMP/d.csv")" "0.80 0.80"
summary
