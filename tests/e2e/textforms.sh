#!/bin/sh
# Text forms of published traces (tests/fixtures/textforms, issue 32):
# records after a "CPU N:" prefix and no timestamp are counted, never timed
# (the N is no tick count); 32-bit ARM's "kvm_exit: PC: 0x..." (no reason)
# is counted and timed to its entry under a reason of its own, not refused;
# a quoted-printable mail body reads as the trace it encodes (soft breaks
# joined, =3D decoded), with exactly the rows of the same trace unencoded.
. "$(dirname "$0")/lib.sh"
T=tests/fixtures/textforms
rows() { "$KES" report -i "$1" -u ns -f csv 2>"$TMP/err" | awk -F, 'NR > 1 { printf "%s %s %s %.0f\n", $1, $4, $5, $8 }' | sort; }
eq "CPU N: prefixes: counted, untimed (name count untimed sum)" "$(rows "$T/cpu-prefix.txt" | tr '\n' ';')" \
	"HLT 1 1 0;IO_INSTRUCTION 2 2 0;"
check "... no tick times invented (no 'integers of unknown unit' warning)" sh -c "! grep -q 'unknown unit' '$TMP/err'"
"$KES" report -i "$T/cpu-prefix.txt" -f json 2>/dev/null >"$TMP/c.json"
eq "... and the CPUs read (the per-CPU tallies: 2 CPUs)" \
	"$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["events"])' "$TMP/c.json")" 6
# arm32: exits at 912.337650 and .337950, entries 10 us and 20 us after; guest 290 us between
eq "ARM32 kvm_exit with no reason: counted and timed" "$(rows "$T/arm32.txt" | tr '\n' ';')" \
	"TIMEINGUEST 1 0 290000;UNKNOWN(no reason printed) 2 0 30000;"
check "... stderr quiet ($(head -c 200 "$TMP/err"))" [ ! -s "$TMP/err" ]
# quoted-printable: decoded by python, read plain, the same rows
python3 -c 'import quopri, sys; sys.stdout.write(quopri.decodestring(open(sys.argv[1], "rb").read()).decode())' \
	"$T/quoted-printable.txt" >"$TMP/plain.txt"
check "the fixture has soft breaks (lines ending in =)" grep -q '=$' "$T/quoted-printable.txt"
eq "quoted-printable: the rows of the same trace decoded by python" "$(rows "$T/quoted-printable.txt")" \
	"$(rows "$TMP/plain.txt")"
eq "... three exits timed" "$(rows "$T/quoted-printable.txt" | grep -v TIMEINGUEST | awk '{ n += $2 - $3 } END { print n }')" 3
check "... nothing not understood ($(head -c 200 "$TMP/err"))" sh -c "! grep -q 'not understood' '$TMP/err'"
# and a trace that merely has an '=' at a line's end is no mail
printf 'qemu-kvm-4101  [001] d..1.  1234.567890: kvm_exit: reason HLT rip 0x10 info 0 0\nx=\nqemu-kvm-4101  [001] d..1.  1234.567990: kvm_entry: vcpu 0, rip 0x12\n' >"$TMP/eq.txt"
eq "a short line ending in '=' is not a soft break" "$(rows "$TMP/eq.txt" | tr '\n' ';')" "HLT 1 0 100000;"
summary
