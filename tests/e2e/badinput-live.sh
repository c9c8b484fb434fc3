#!/bin/sh
# Broken inputs made from a fresh recording (badinput.sh has the contract and
# the files that need no KVM): a real trace.dat, cut at every structural
# boundary and corrupted field by field, must be refused with one line by
# report and diff, through both readers; random flips give a report or a
# clean refusal, never a crash.
. tests/e2e/lib.sh
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0}"
. tests/tools/badinput-helpers.sh
# --- a real recording, cut and corrupted -------------------------------------------
need_kvm
REC=$TMP/rec.dat
"$KES" record -q -o "$REC" -- "$EXITGEN" --io 100 --quiet >/dev/null 2>&1
eq "record: exit status" $? 0
survived "the intact recording" "$KES" report -i "$REC"
eq "the intact recording reports" "$rc" 0
size=$(wc -c <"$REC")
# v6: "flyrecord\0" then per CPU a u64 offset and a u64 size of its pages.
# The workload ran on some CPU: cpu, data and dsize are the first with pages.
fly=$(grep -boa flyrecord "$REC" | head -n 1 | cut -d: -f1)
cpu=0 data=0 dsize=0
while [ "$cpu" -lt 64 ]; do
	pair=$((fly + 10 + cpu * 16))
	data=$(od -An -t u8 -j "$pair" -N 8 "$REC" | tr -d ' ')
	dsize=$(od -An -t u8 -j $((pair + 8)) -N 8 "$REC" | tr -d ' ')
	[ "${dsize:-0}" -gt 0 ] && break
	cpu=$((cpu + 1))
done
check "recording: CPU data found after the header" test -n "$fly" -a "${data:-0}" -gt "${fly:-0}" \
	-a "${dsize:-0}" -gt 0

for cut in 10 17 100 1000 $((fly / 2)) "$fly" $((fly + 10)) "$data" $(((data + size) / 2)) $((size - 1)); do
	head -c "$cut" "$REC" >"$TMP/cut.dat"
	refused "report: trace.dat cut at $cut of $size" "$KES" report -i "$TMP/cut.dat"
	refused "diff: trace.dat cut at $cut of $size" "$KES" diff "$REC" "$TMP/cut.dat"
done

# Corruptions that every reader must notice.
hp=$(grep -boa header_page "$REC" | head -n 1 | cut -d: -f1)
corrupt() { # DESC OFFSET BYTES
	cp "$REC" "$TMP/bad.dat"
	poke "$TMP/bad.dat" "$2" "$3"
	refused "report: $1" "$KES" report -i "$TMP/bad.dat"
	refused "report, libtracecmd only: $1" env KES_NO_FASTPATH=1 "$KES" report -i "$TMP/bad.dat"
}
corrupt "magic" 1 '\377'
corrupt "version 6 -> 9" 10 '9'
corrupt "header_page section name" "$hp" 'XXXX'
corrupt "CPU $cpu data offset past the end" "$pair" '\377\377\377\177'
corrupt "CPU $cpu data size past the end" $((pair + 8)) '\377\377\377\177'
corrupt "page commit larger than the page" $((data + 8)) '\000\377\377\007'
corrupt "page commit not a whole record" $((data + 8)) '\003\000\000\000'

# Random bytes anywhere: a report or a clean refusal, never a crash.
for seed in 1 2 3 4 5 6 7 8 9 10; do
	cp "$REC" "$TMP/flip.dat"
	flips "$TMP/flip.dat" 0 "$data" "$seed" 8
	survived "8 bytes flipped in the header (seed $seed)" "$KES" report -i "$TMP/flip.dat"
	cp "$REC" "$TMP/flip.dat"
	flips "$TMP/flip.dat" "$data" "$size" "$seed" 8
	survived "8 bytes flipped in the data (seed $seed)" "$KES" report -i "$TMP/flip.dat"
	survived "the same, libtracecmd only" env KES_NO_FASTPATH=1 "$KES" report -i "$TMP/flip.dat"
done
summary
