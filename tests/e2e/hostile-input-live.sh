#!/bin/sh
# Deterministic output on a fresh recording (hostile-input.sh has the hostile
# files): row order and totals whatever the address-space layout, in every
# format, 8 runs with ASLR on and off byte-identical.
. "$(dirname "$0")/lib.sh"
need_kvm
# --- a fresh recording: row order and totals whatever the address-space layout -------
"$KES" record -q -o "$TMP/rec.dat" -- "$EXITGEN" --io 3000 --mmio 700 --hlt 50 --vcpus 4 --quiet
eq "record for the determinism check" "$?" 0
for f in ppc table csv json; do
	i=0
	while [ $i -lt 8 ]; do
		if [ $((i % 2)) = 0 ]; then
			"$KES" report -i "$TMP/rec.dat" --per-vcpu -f $f >"$TMP/det.$i"
		else
			setarch "$(uname -m)" -R "$KES" report -i "$TMP/rec.dat" --per-vcpu -f $f >"$TMP/det.$i"
		fi
		i=$((i + 1))
	done
	same=1
	for j in 1 2 3 4 5 6 7; do cmp -s "$TMP/det.0" "$TMP/det.$j" || same=0; done
	eq "-f $f: 8 runs, ASLR on and off, byte-identical" "$same" 1
done
summary
