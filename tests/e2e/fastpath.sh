#!/bin/sh
# The trace.dat fast path (per-CPU lanes of pages through the feed) against
# libtracecmd (KES_NO_FASTPATH=1): every trace.dat fixture, trace-cmd
# conversions of it (v6, v7 uncompressed) and mkdat fixtures of every ISA
# (fastpath-live.sh: a fresh recording) must give byte-identical reports (and the same
# split on two threads, split on one (KES_THREADS=1) and from the one feed
# (KES_SPLIT=0)), and the same
# records one by one (test_tracedat_fast FILE: the lanes' pages). Truncated and corrupted copies must give one
# error line or a report, never a crash. tests/run.sh under `make asan-check`
# runs this with the ASan build.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
need_tools
CMP=${CMP:-$O/tests/test_tracedat_fast}
[ -x "$CMP" ] || { bad "$CMP missing: make all"; summary; exit 1; }
FMTS=tests/fixtures/formats

. "$(dirname "$0")/../tools/fastpath-helpers.sh"

# no_crash FILE WHAT: report exits 0, or 1 with one "kvm-exitstat:" line; never a signal.
no_crash() {
	$KES report -i "$1" -f csv >/dev/null 2>"$TMP/nc.err"
	rc=$?
	if [ "$rc" -eq 0 ]; then
		ok
	elif [ "$rc" -eq 1 ] && [ "$(wc -l <"$TMP/nc.err")" -eq 1 ] &&
		grep -q '^kvm-exitstat: ' "$TMP/nc.err"; then
		ok
	else
		bad "$2: rc $rc, stderr: $(head -c 300 "$TMP/nc.err")"
	fi
}

# The bundled fixture (trace-cmd v7, zstd): chunks decompressed for our walker
# (tracedat-zstd.c), both ways the same.
FX=tests/fixtures/text/trace.dat
same_reports "$FX"
same_records "$FX" "fast path"
same_reports tests/fixtures/real/exitgen-v7z.dat
same_records tests/fixtures/real/exitgen-v7z.dat "fast path"
if command -v trace-cmd >/dev/null; then
	trace-cmd convert -i "$FX" -o "$TMP/fx6.dat" --file-version 6 --compression none >/dev/null 2>&1
	eq "convert fixture to v6" "$?" 0
	trace-cmd convert -i "$FX" -o "$TMP/fx7.dat" --file-version 7 --compression none >/dev/null 2>&1
	eq "convert fixture to v7" "$?" 0
	for f in fx6 fx7; do
		same_reports "$TMP/$f.dat"
		same_records "$TMP/$f.dat" "fast path"
	done
else
	echo "SKIP: trace-cmd conversions (make deps)"
fi

# mkdat fixtures: x86 with exits, entries, details and a 60 s gap (time extend), 2 CPUs.
cat >"$TMP/x86.txt" <<'EOT'
0 1000 4101 kvm:kvm_exit exit_reason=30 guest_rip=0xfff0 isa=1 info1=0x800000 info2=0 intr_info=0 error_code=0 vcpu_id=0
0 1400 4101 kvm:kvm_pio rw=1 port=0x80 size=1 count=1 val=7
0 1500 4101 kvm:kvm_entry vcpu_id=0 rip=0xfff2
1 1500 4102 kvm:kvm_exit exit_reason=48 guest_rip=0xfff0 isa=1 info1=0 info2=0 intr_info=0 error_code=0 vcpu_id=1
1 1700 4102 kvm:kvm_mmio type=1 len=1 gpa=0xd0010 val=0
1 2500 4102 kvm:kvm_entry vcpu_id=1 rip=0xfff2
0 2600 4101 kvm:kvm_exit exit_reason=12 guest_rip=0xfff3 isa=1 info1=0 info2=0 intr_info=0 error_code=0 vcpu_id=0
1 2600 4101 kvm:kvm_entry vcpu_id=0 rip=0xfff4
0 60000001000 4101 kvm:kvm_exit exit_reason=30 guest_rip=0xfff0 isa=1 info1=0x800000 info2=0 intr_info=0 error_code=0 vcpu_id=0
0 60000002000 4101 kvm:kvm_entry vcpu_id=0 rip=0xfff2
EOT
"$MKDAT" -o "$TMP/x86.dat" -f "$FMTS/x86" "$TMP/x86.txt"
eq "mkdat x86" "$?" 0
same_reports "$TMP/x86.dat"
same_records "$TMP/x86.dat" "fast path"
# Every ISA's formats: one event of each.
for d in "$FMTS"/*/; do
	isa=$(basename "$d")
	: >"$TMP/$isa.txt"
	ts=1000
	for fmt in "$d"*/format; do
		echo "$((ts / 1000 % 2)) $ts 7 kvm:$(sed -n 's/^name: //p' "$fmt")" >>"$TMP/$isa.txt"
		ts=$((ts + 1000))
	done
	"$MKDAT" -o "$TMP/$isa.dat" -f "$d" "$TMP/$isa.txt" 2>/dev/null
	eq "mkdat $isa" "$?" 0
	same_records "$TMP/$isa.dat" "fast path"
done

REC=$TMP/x86.dat

# Truncated copies: from inside the header to one byte short.
size=$(stat -c %s "$REC")
for cut in 16 100 1000 4096 $((size / 2)) $((size - 4096)) $((size - 1)); do
	[ "$cut" -gt 0 ] && [ "$cut" -lt "$size" ] || continue
	head -c "$cut" "$REC" >"$TMP/cut.dat"
	no_crash "$TMP/cut.dat" "cut at $cut of $size"
done
$KES report -i "$TMP/cut.dat" -f csv >/dev/null 2>"$TMP/cut.err"
check "cut one byte short: says truncated" grep -q 'truncated' "$TMP/cut.err"

# Corrupt page headers: the v6 CPU data ends the file, page by page (4 KiB).
# Bytes 0-7 are the page's time, 8-15 its commit (size and loss flags).
npages=$((size / 4096))
for k in 1 2 3 $((npages / 2)) $((npages - 2)); do
	for b in 0 7 8 9 10 11 15; do
		[ "$k" -ge 1 ] && [ "$k" -lt "$npages" ] || continue
		cp "$REC" "$TMP/flip.dat"
		printf '\377' | dd of="$TMP/flip.dat" bs=1 seek=$((size - k * 4096 + b)) conv=notrunc \
			2>/dev/null
		no_crash "$TMP/flip.dat" "page -$k byte $b = 0xff"
	done
done
# A commit larger than the page: caught, one line naming the page.
cp "$REC" "$TMP/flip.dat"
printf '\377\377\000\000' | dd of="$TMP/flip.dat" bs=1 seek=$((size - 4096 + 8)) conv=notrunc 2>/dev/null
$KES report -i "$TMP/flip.dat" -f csv >/dev/null 2>"$TMP/flip.err"
eq "oversized commit: exit status" "$?" 1
check "oversized commit: names the page" grep -q 'corrupt ring-buffer page at file offset' "$TMP/flip.err"
summary
