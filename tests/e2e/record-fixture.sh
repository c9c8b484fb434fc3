#!/bin/sh
# Fixture trace.dat files (tests/tools/mkdat): built from the real format
# files of every ISA in tests/fixtures/formats/, they must read back in
# `trace-cmd report` and libtracecmd with the same events and values.
# Needs neither root nor KVM.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
need_tools
command -v trace-cmd >/dev/null || skip "needs trace-cmd (make deps)"
FMTS=tests/fixtures/formats

cat >"$TMP/x86.txt" <<'EOT'
0 1000 4101 kvm:kvm_exit exit_reason=30 guest_rip=0xfff0 isa=1 info1=0x800000 info2=0 intr_info=0 error_code=0 vcpu_id=0
0 1400 4101 kvm:kvm_pio rw=1 port=0x80 size=1 count=1 val=7
0 1500 4101 kvm:kvm_userspace_exit reason=2 errno=0
1 2000 4102 kvm:kvm_userspace_exit reason=6 errno=0
1 2500 4102 kvm:kvm_mmio type=1 len=1 gpa=0xd0010 val=0
0 60000001000 4101 kvm:kvm_userspace_exit reason=5 errno=0
EOT
"$MKDAT" -o "$TMP/x86.dat" -f "$FMTS/x86" "$TMP/x86.txt"
eq "mkdat x86" "$?" 0
trace-cmd report "$TMP/x86.dat" >"$TMP/x86.rep" 2>/dev/null
eq "trace-cmd report: events" "$(grep -c 'kvm_' "$TMP/x86.rep")" 6
check "field values: PIO port" grep -q 'pio_write at 0x80 size 1 count 1 val 0x7' "$TMP/x86.rep"
check "field values: MMIO reason" grep -q 'reason KVM_EXIT_MMIO (6)' "$TMP/x86.rep"
check "pid and cpu" grep -q -- '-4102 *\[001\]' "$TMP/x86.rep"
check "a 60 s gap (time extend) keeps its time" grep -q ' 60\.000001: kvm_userspace_exit' "$TMP/x86.rep"
eq "trace-cmd report = libtracecmd" "$(tc_counts "$TMP/x86.dat")" "$(dc_counts "$TMP/x86.dat")"
eq "no stats stored: lost unknown" "$(dc lost '' "$("$DATCOUNT" "$TMP/x86.dat" >"$TMP/dc"; echo "$TMP/dc")")" none

"$MKDAT" -o "$TMP/bad.dat" -f "$FMTS/x86" - 2>"$TMP/err" <<'EOT'
0 1000 4101 kvm:kvm_pio nosuchfield=1
EOT
eq "unknown field: exit status" "$?" 1
check "unknown field: message" grep -q "has no field 'nosuchfield'" "$TMP/err"

# Every ISA's formats: one event of each (common fields only), all read back.
for d in "$FMTS"/*/; do
	isa=$(basename "$d")
	: >"$TMP/$isa.txt"
	ts=1000
	for fmt in "$d"*/format; do
		ev=$(sed -n 's/^name: //p' "$fmt")
		echo "0 $ts 7 kvm:$ev" >>"$TMP/$isa.txt"
		ts=$((ts + 1000))
	done
	n=$(wc -l <"$TMP/$isa.txt")
	"$MKDAT" -o "$TMP/$isa.dat" -f "$d" "$TMP/$isa.txt" 2>"$TMP/err"
	eq "mkdat $isa ($(cat "$TMP/err"))" "$?" 0
	eq "$isa: libtracecmd reads $n events" "$("$DATCOUNT" "$TMP/$isa.dat" | awk '$1 == "total" { print $2 }')" "$n"
	eq "$isa: trace-cmd report = libtracecmd" "$(tc_counts "$TMP/$isa.dat")" "$(dc_counts "$TMP/$isa.dat")"
done
summary
