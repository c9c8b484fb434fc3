#!/bin/sh
# The trace.dat fast path (per-CPU lanes of pages through the feed) against
# libtracecmd (KES_NO_FASTPATH=1): every trace.dat fixture, trace-cmd
# conversions of it (v6, v7 uncompressed), mkdat fixtures of every ISA and,
# with KVM, a fresh recording must give byte-identical reports (and the same
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

# same_reports FILE: each view, fast path on and off, byte for byte.
same_reports() {
	# --vcpu: load.c's filter, the feed's keep() hook; --slowest: the outliers
	for view in "-f csv" "-f csv --per-vcpu -u ns" "-f json --by-sub" "-f ppc" \
		"-f csv --vcpu 1" "-f csv --slowest 5"; do
		# shellcheck disable=SC2086
		$KES report -i "$1" $view >"$TMP/fast.out" 2>"$TMP/fast.err"
		rf=$?
		# shellcheck disable=SC2086
		KES_NO_FASTPATH=1 $KES report -i "$1" $view >"$TMP/slow.out" 2>"$TMP/slow.err"
		rs=$?
		eq "$(basename "$1") $view: exit status" "$rf" "$rs"
		check "$(basename "$1") $view: same report" cmp -s "$TMP/fast.out" "$TMP/slow.out"
		check "$(basename "$1") $view: same messages" cmp -s "$TMP/fast.err" "$TMP/slow.err"
	done
	# report's split (two feeds, on two threads or one after the other, where
	# that gives the one feed's report), else the one feed with pair/ on a
	# second thread (--by-sub always); KES_SPLIT=0: the one feed, never split
	for view in "-f csv" "-f json" "-f ppc" "-f csv --slowest 5" "-f json --by-sub"; do
		# shellcheck disable=SC2086
		$KES report -i "$1" $view >"$TMP/two.out" 2>"$TMP/two.err"
		# shellcheck disable=SC2086
		KES_THREADS=1 $KES report -i "$1" $view >"$TMP/one.out" 2>"$TMP/one.err"
		check "$(basename "$1") $view: same report on one thread" cmp -s "$TMP/two.out" "$TMP/one.out"
		check "$(basename "$1") $view: same messages on one thread" cmp -s "$TMP/two.err" "$TMP/one.err"
		# shellcheck disable=SC2086
		KES_SPLIT=0 KES_THREADS=1 $KES report -i "$1" $view >"$TMP/feed.out" 2>"$TMP/feed.err"
		check "$(basename "$1") $view: same report from the one feed" cmp -s "$TMP/two.out" "$TMP/feed.out"
		check "$(basename "$1") $view: same messages from the one feed" cmp -s "$TMP/two.err" "$TMP/feed.err"
	done
	# --svg: the timelines the feed fills
	$KES report -i "$1" -f csv --svg "$TMP/fast.svg" >/dev/null 2>&1
	eq "$(basename "$1") --svg: exit status" "$?" 0
	KES_NO_FASTPATH=1 $KES report -i "$1" -f csv --svg "$TMP/slow.svg" >/dev/null 2>&1
	eq "$(basename "$1") --svg: exit status, libtracecmd" "$?" 0
	check "$(basename "$1") --svg: same picture" cmp -s "$TMP/fast.svg" "$TMP/slow.svg"
}

# same_records FILE WANT: record-by-record comparison; WANT "fast path" or "libtracecmd only".
same_records() {
	"$CMP" "$1" >"$TMP/cmp.out" 2>&1
	rc=$?
	# what differed, for a failure seen once in CI (exitgen-v7z.dat, status 1)
	[ "$rc" = 0 ] || grep -v '^ok' "$TMP/cmp.out" | head -n 20
	eq "$(basename "$1"): records identical" "$rc" 0
	check "$(basename "$1"): read by $2" grep -q "records, $2\$" "$TMP/cmp.out"
}

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

# A fresh recording (2 vCPUs: threads migrate between CPUs), v6 and v7.
REC=$TMP/x86.dat
if have_kvm; then
	REC=$TMP/rec.dat
	$KES record -q -o "$REC" -- $EXITGEN --io 3000 --mmio 1000 --hlt 200 --vcpus 2 --quiet
	eq "record exit status" "$?" 0
	same_reports "$REC"
	same_records "$REC" "fast path"
	if command -v trace-cmd >/dev/null; then
		trace-cmd convert -i "$REC" -o "$TMP/rec7.dat" --file-version 7 --compression none \
			>/dev/null 2>&1
		eq "convert recording to v7" "$?" 0
		same_reports "$TMP/rec7.dat"
		same_records "$TMP/rec7.dat" "fast path"
		$KES report -i "$REC" -f csv >"$TMP/v6.csv" && $KES report -i "$TMP/rec7.dat" -f csv >"$TMP/v7.csv"
		check "v6 and v7 fast paths agree" cmp -s "$TMP/v6.csv" "$TMP/v7.csv"
		# On one CPU only: v7 leaves the other CPUs out, and says which CPU each list entry is.
		last=$(($(nproc) - 1))
		if [ "$last" -ge 1 ] && command -v taskset >/dev/null; then
			$KES record -q -o "$TMP/pin.dat" -- taskset -c "$last" $EXITGEN --io 1000 --vcpus 2 --quiet
			eq "pinned record exit status" "$?" 0
			trace-cmd convert -i "$TMP/pin.dat" -o "$TMP/pin7.dat" --file-version 7 \
				--compression none >/dev/null 2>&1
			same_reports "$TMP/pin7.dat"
			same_records "$TMP/pin7.dat" "fast path"
		fi
	fi
else
	echo "SKIP: fresh recording (needs root and /dev/kvm); corrupting the x86 fixture instead"
fi

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
