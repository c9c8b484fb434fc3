#!/bin/sh
# report --by-sub on the real capture in tests/fixtures/text (exitgen --io 20
# --mmio 10 --hlt 5 --vcpus 2): the port of every `out`, the gpa of every MMIO
# write, each from the trace's own kvm_pio / kvm_mmio lines, counted by grep.
. tests/e2e/lib.sh
FX=tests/fixtures/text
$KES report -i $FX/trace.dat --by-sub -f csv >"$TMP/csv"
eq "exit status" "$?" 0
# row NAME SUB: "timed+untimed" (count, column 4, is every exit)
row() { awk -F, -v n="$1" -v s="$2" '$1 == n && $17 == s { print $4 - $5 "+" $5 }' "$TMP/csv"; }
eq "out 0x80: timed" "$(row KVM_EXIT_IO 0x80)" "$(grep -c 'pio_write at 0x80 ' $FX/trace.txt)+0"
eq "out 0xf4 (done): untimed" "$(row KVM_EXIT_IO 0xf4)" "0+$(grep -c 'pio_write at 0xf4 ' $FX/trace.txt)"
eq "mmio 0xd0010" "$(row KVM_EXIT_MMIO 0xd0010)" "$(grep -c 'mmio write len 1 gpa 0xd0010' $FX/trace.txt)+0"
eq "no sub-key on guest time" "$(row TIMEINGUEST '')" "72+0"
# the same from the text form of the same events
$KES report -i $FX/trace.txt --by-sub -f csv | cut -d, -f1,4,5,17 | sort >"$TMP/txt"
cut -d, -f1,4,5,17 "$TMP/csv" | sort >"$TMP/dat"
check "text and trace.dat agree on sub-keys" cmp -s "$TMP/txt" "$TMP/dat"
$KES report -i $FX/trace.dat --by-sub | grep -q '^KVM_EXIT_IO@port_0x80 count 40 '
eq "ppc row named REASON@sub" "$?" 0
$KES report -i $FX/trace.dat --by-sub -f json | grep -q '"sub": "0xd0010"'
eq "json sub field" "$?" 0
summary
