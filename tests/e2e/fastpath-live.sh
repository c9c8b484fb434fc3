#!/bin/sh
# The trace.dat fast path against libtracecmd on a fresh recording (2 vCPUs:
# threads migrate between CPUs), as record writes it (v6) and converted by
# trace-cmd to v7, and one on a single CPU (v7 lists only that CPU): the same
# reports in every view, split or not, and the same records one by one.
# (fastpath.sh: every fixture, and truncated and corrupted copies.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
need_kvm
need_tools
CMP=${CMP:-$O/tests/test_tracedat_fast}
[ -x "$CMP" ] || { bad "$CMP missing: make all"; summary; exit 1; }
. "$(dirname "$0")/../tools/fastpath-helpers.sh"
command -v trace-cmd >/dev/null || { bad "trace-cmd not installed (make deps)"; summary; exit 1; }
# A fresh recording (2 vCPUs: threads migrate between CPUs), v6 and v7.
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
summary
