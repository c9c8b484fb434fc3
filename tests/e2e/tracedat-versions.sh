#!/bin/sh
# trace.dat v6 (ours), v7 uncompressed and v7 zstd (trace-cmd convert) of one
# real recording give byte-identical reports, and the counts are exitgen's.
. tests/e2e/lib.sh
need_kvm

$KES record -q -o "$TMP/v6.dat" -- $EXITGEN --io 500 --mmio 300 --hlt 50 --vcpus 2 >"$TMP/eg.out"
eq "record exit status" "$?" 0
trace-cmd convert -i "$TMP/v6.dat" -o "$TMP/v7.dat" --file-version 7 --compression none >/dev/null 2>&1
eq "convert to v7" "$?" 0
trace-cmd convert -i "$TMP/v6.dat" -o "$TMP/v7z.dat" --file-version 7 --compression zstd >/dev/null 2>&1
eq "convert to v7 zstd" "$?" 0
eq "v7 zstd is compressed" "$([ "$(stat -c %s "$TMP/v7z.dat")" -lt "$(stat -c %s "$TMP/v6.dat")" ] && echo yes)" yes

# Every version read both ways: our page walker (the fast path; zstd chunks
# decompressed by tracedat-zstd.c) and libtracecmd (KES_NO_FASTPATH=1).
for v in v6 v7 v7z; do
	$KES report -i "$TMP/$v.dat" -f csv -u ns >"$TMP/$v.csv"
	eq "$v report exit status" "$?" 0
	KES_NO_FASTPATH=1 $KES report -i "$TMP/$v.dat" -f csv -u ns >"$TMP/$v-lib.csv"
	eq "$v report exit status (libtracecmd)" "$?" 0
	check "$v: libtracecmd's table identical to v6's" cmp -s "$TMP/v6.csv" "$TMP/$v-lib.csv"
	$KES report -i "$TMP/$v.dat" >"$TMP/$v.txt" && KES_NO_FASTPATH=1 $KES report -i "$TMP/$v.dat" >"$TMP/$v-lib.txt"
	check "$v: the default report identical both ways" cmp -s "$TMP/$v.txt" "$TMP/$v-lib.txt"
done
check "v7 table identical to v6" cmp -s "$TMP/v6.csv" "$TMP/v7.csv"
check "v7 zstd table identical to v6" cmp -s "$TMP/v6.csv" "$TMP/v7z.csv"
# ... and the zstd file really went through our walker, record by record as libtracecmd.
CMP=${CMP:-${O:-build}/tests/test_tracedat_fast}
"$CMP" "$TMP/v7z.dat" >"$TMP/cmp.out" 2>&1
eq "v7 zstd: records identical to libtracecmd's" "$?" 0
check "v7 zstd: read by the fast path" grep -q "records, fast path\$" "$TMP/cmp.out"
# Several chunks a CPU (trace-cmd writes 10 pages a chunk): a corrupt frame after the
# first (tests/tools/craftzstd.py) is found while reading: one line, status 1, no table.
nchunks=$(python3 -c 'import sys; print(open(sys.argv[1], "rb").read().count(b"\x28\xb5\x2f\xfd"))' "$TMP/v7z.dat")
check "v7 zstd: several chunks ($nchunks zstd frames)" test "$nchunks" -ge 3
python3 tests/tools/craftzstd.py "$TMP/v7z.dat" "$TMP/bad.dat" second-frame
eq "craftzstd second-frame" "$?" 0
$KES report -i "$TMP/bad.dat" -f csv >"$TMP/bad.out" 2>"$TMP/bad.err"
eq "a corrupt second frame: status 1" "$?" 1
check "a corrupt second frame: one line naming it" \
	sh -c '[ "$(wc -l <"$1")" -eq 1 ] && grep -q "^kvm-exitstat: .*corrupt zstd chunk of cpu" "$1"' sh "$TMP/bad.err"
check "a corrupt second frame: no table" test ! -s "$TMP/bad.out"

# count (every exit) per reason equals what exitgen counted in its run loop:
# the userspace exits, and where kvm_exit fires its reasons by the lab's rules
$KES report -i "$TMP/v7z.dat" -f csv -u ns --source userspace >"$TMP/v7z.us.csv"
$KES report -i "$TMP/v7z.dat" -f csv -u ns --source exits >"$TMP/v7z.x.csv"
exits_exact "v7 zstd, kvm_exit" "$TMP/v7z.x.csv" "$TMP/eg.out"
for r in IO MMIO HLT; do
	want=$(awk -v k="KVM_EXIT_$r" '$1 == "total" { for (i = 2; i < NF; i++) if ($i == k) print $(i + 1) }' "$TMP/eg.out")
	got=$(awk -F, -v k="KVM_EXIT_$r" '$1 == k && $2 == -1 { print $4 }' "$TMP/v7z.us.csv")
	eq "v7 zstd KVM_EXIT_$r" "$got" "$want"
done
# ours records per-CPU drop counts (CPUSTAT); trace-cmd's v7 conversion keeps them in an
# uncompressed options section even with zstd: known in all three, and they agree with the pages
for v in v6 v7 v7z; do
	$KES report -i "$TMP/$v.dat" >"$TMP/$v.ppc" 2>"$TMP/$v.err"
	check "$v: losses known (0)" grep -q "^# lost events: 0$" "$TMP/$v.ppc"
	check "$v: no warning" test ! -s "$TMP/$v.err"
done
# a v7 file without CPUSTAT (trace-cmd restore of raw pages): unknown, never 0
$KES report -i tests/fixtures/text/trace.dat | grep -q '^# lost events: unknown'
eq "v7 without CPUSTAT: losses said to be unknown, not 0" "$?" 0
summary
