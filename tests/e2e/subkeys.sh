#!/bin/sh
# Sub-keys are right (issue 14 item 3): a detail event gives its sub-key to
# the exit it explains, and the label says what kind of key it is (port,
# gpa, msr, hcall). On the userspace path the kernel traces a PIO write or an
# MMIO access just before the exit to the VMM, after in-kernel accesses of
# the same run (a PIO the kernel handled, a coalesced VGA write), and some
# kernels trace an IN only when the VMM has answered, after it re-entered:
# the explaining event is the last one of the exit's kind before the exit,
# else the first one of its kind after the re-entry. An exit no detail kind
# explains (HLT) gets no sub-key.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
need_tools
command -v python3 >/dev/null || skip "needs python3"

# The orderings seen in a QEMU 7.2 firmware boot on this host (kernel 6.18),
# and an IN traced at completion (older kernels), one userspace exit each.
"$MKDAT" -o "$TMP/s.dat" -f tests/fixtures/formats/x86 - <<'EV'
0 1000 4101 kvm:kvm_fpu load=1
0 1100 4101 kvm:kvm_pio rw=1 port=0x70 size=1 count=1 val=0x8f
0 1200 4101 kvm:kvm_fpu load=0
0 1300 4101 kvm:kvm_userspace_exit reason=2 errno=0
0 2000 4101 kvm:kvm_fpu load=1
0 2100 4101 kvm:kvm_pio rw=0 port=0x92 size=1 count=1 val=0
0 2150 4101 kvm:kvm_pio rw=1 port=0x92 size=1 count=1 val=2
0 2200 4101 kvm:kvm_fpu load=0
0 2300 4101 kvm:kvm_userspace_exit reason=2 errno=0
0 3000 4101 kvm:kvm_fpu load=1
0 3050 4101 kvm:kvm_emulate_insn rip=0xf1234 csbase=0 len=2 flags=0 failed=0
0 3100 4101 kvm:kvm_mmio type=2 len=1 gpa=0xa0000 val=0x41
0 3150 4101 kvm:kvm_pio rw=1 port=0x402 size=1 count=1 val=0x53
0 3200 4101 kvm:kvm_fpu load=0
0 3300 4101 kvm:kvm_userspace_exit reason=2 errno=0
0 4000 4101 kvm:kvm_fpu load=1
0 4050 4101 kvm:kvm_emulate_insn rip=0xf5678 csbase=0 len=2 flags=0 failed=0
0 4200 4101 kvm:kvm_fpu load=0
0 4300 4101 kvm:kvm_userspace_exit reason=2 errno=0
0 5000 4101 kvm:kvm_fpu load=1
0 5010 4101 kvm:kvm_pio rw=0 port=0x71 size=1 count=1 val=0x12
0 5100 4101 kvm:kvm_pio rw=1 port=0x80 size=1 count=1 val=0
0 5200 4101 kvm:kvm_fpu load=0
0 5300 4101 kvm:kvm_userspace_exit reason=2 errno=0
0 6000 4101 kvm:kvm_fpu load=1
0 6100 4101 kvm:kvm_pio rw=1 port=0x61 size=1 count=1 val=0
0 6200 4101 kvm:kvm_fpu load=0
0 6300 4101 kvm:kvm_userspace_exit reason=5 errno=0
0 7000 4101 kvm:kvm_fpu load=1
0 7100 4101 kvm:kvm_msr write=0 ecx=0xc0000080 data=0 exception=0
0 7200 4101 kvm:kvm_fpu load=0
0 7300 4101 kvm:kvm_userspace_exit reason=29 errno=0
0 8000 4101 kvm:kvm_fpu load=1
0 8100 4101 kvm:kvm_hypercall nr=12 a0=0 a1=0 a2=0 a3=0
0 8200 4101 kvm:kvm_fpu load=0
0 8300 4101 kvm:kvm_userspace_exit reason=3 errno=0
0 9000 4101 kvm:kvm_fpu load=1
0 9100 4101 kvm:kvm_mmio type=0 len=4 gpa=0xfee00030 val=0
0 9200 4101 kvm:kvm_fpu load=0
0 9300 4101 kvm:kvm_userspace_exit reason=6 errno=0
0 10000 4101 kvm:kvm_fpu load=1
0 10010 4101 kvm:kvm_mmio type=1 len=4 gpa=0xfee00030 val=0x14
EV
eq "mkdat: exit status" $? 0
"$KES" report -i "$TMP/s.dat" --by-sub -f csv -u ns >"$TMP/s.csv"
eq "report --by-sub: exit status" $? 0
# name, sub, sub kind, count of every row but TIMEINGUEST
python3 - "$TMP/s.csv" >"$TMP/rows" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["name"] != "TIMEINGUEST":
        print(r["name"], r["sub"] or "-", r.get("sub_kind") or "-", r["count"])
PY
sort "$TMP/rows" >"$TMP/got"
sort >"$TMP/want" <<'W'
KVM_EXIT_IO 0x70 port 1
KVM_EXIT_IO 0x92 port 1
KVM_EXIT_IO 0x402 port 1
KVM_EXIT_IO 0x71 port 1
KVM_EXIT_IO 0x80 port 1
KVM_EXIT_HLT - - 1
KVM_EXIT_X86_RDMSR 0xc0000080 msr 1
KVM_EXIT_HYPERCALL 0xc hcall 1
KVM_EXIT_MMIO 0xfee00030 gpa 1
W
eq "each exit has the sub-key of the event that explains it, and its kind" "$(cat "$TMP/got")" "$(cat "$TMP/want")"
"$KES" report -i "$TMP/s.dat" --by-sub -f table >"$TMP/s.txt"
for l in "KVM_EXIT_IO@port 0x402" "KVM_EXIT_X86_RDMSR@msr 0xc0000080" "KVM_EXIT_HYPERCALL@hcall 12" \
	"KVM_EXIT_MMIO@gpa 0xfee00030"; do
	check "table: a row labelled '$l'" grep -q "^$l " "$TMP/s.txt"
done
"$KES" report -i "$TMP/s.dat" --by-sub -f json >"$TMP/s.json"
check "json: sub and sub_kind" python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))["tables"][-1]["rows"]
assert {(r["sub"], r["sub_kind"]) for r in rows if r["name"] == "KVM_EXIT_HYPERCALL"} == {("0xc", "hcall")}' "$TMP/s.json"
"$KES" report -i "$TMP/s.json" --by-sub -f csv -u ns >"$TMP/back.csv"
python3 - "$TMP/back.csv" <<'PY' | sort >"$TMP/back"
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["name"] != "TIMEINGUEST":
        print(r["name"], r["sub"] or "-", r.get("sub_kind") or "-", r["count"])
PY
eq "json read back: the same sub-keys and kinds" "$(cat "$TMP/back")" "$(cat "$TMP/want")"
summary
