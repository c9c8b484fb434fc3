#!/bin/sh
# Runs each libFuzzer target (tests/fuzz/fuzz_*.c, built by `make fuzz`) for
# FUZZ_SECONDS, FUZZ_JOBS at a time. Before fuzzing, every target replays its
# regression inputs (tests/fixtures/bad/<target>/). A target passes when it
# ran clean: no crash, leak, sanitizer report or timeout. Ends with the total
# number of executions and an "N passed, N failed" line; exit 0 only if all passed.
#
#   FUZZ_O=build/fuzzer FUZZ_SECONDS=60 MKDAT=build/tests/tools/mkdat sh tests/fuzz/run.sh BIN...
#
# Seeds are made at run time in $FUZZ_O/seeds (from tests/fixtures, exit_types/
# and small trace.dat files built with mkdat); what a run finds grows
# $FUZZ_O/corpus/<target>, kept between runs. Crashing inputs land in
# $FUZZ_O/artifacts/: copy one to tests/fixtures/bad/<target>/ once fixed.
FUZZ_O=${FUZZ_O:-build/fuzzer}
SECS=${FUZZ_SECONDS:-60}
JOBS=${FUZZ_JOBS:-2}
MKDAT=${MKDAT:-build/tests/tools/mkdat}
FIX=tests/fixtures
BAD=$FIX/bad
SEEDS=$FUZZ_O/seeds
# Sanitizer reports must end the run; leaks count (libFuzzer checks per input).
# A small quarantine: fuzz_input forks per trace.dat (see fuzz.h), and a fork
# copies the page tables of ASan's default 256 MB of freed memory.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:symbolize=1:quarantine_size_mb=16}
# Leaks inside the system libraries on malformed input: see lsan.supp.
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$(pwd)/tests/fuzz/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

[ $# -gt 0 ] || { echo "usage: run.sh FUZZ_BINARY..." >&2; exit 2; }
rm -rf "$SEEDS"
rm -f "$FUZZ_O"/logs/*.log
mkdir -p "$SEEDS" "$FUZZ_O/corpus" "$FUZZ_O/artifacts" "$FUZZ_O/logs"

# Small trace.dat files: one per ISA in tests/fixtures/formats (every event
# once, plus real field values for x86), then the same as trace-cmd v7, plain
# and compressed, when trace-cmd is installed.
make_dats() {
	d=$SEEDS/dat
	mkdir -p "$d"
	for f in "$FIX"/formats/*/; do
		isa=$(basename "$f")
		ts=1000
		for fmt in "$f"*/format; do
			ev=$(sed -n 's/^name: //p' "$fmt")
			echo "0 $ts 7 kvm:$ev"
			echo "1 $((ts + 400)) 8 kvm:$ev"
			ts=$((ts + 1000))
		done >"$d/$isa.txt"
		"$MKDAT" -o "$d/$isa.dat" -f "$f" "$d/$isa.txt" 2>/dev/null || rm -f "$d/$isa.dat"
		rm -f "$d/$isa.txt"
	done
	"$MKDAT" -o "$d/x86-values.dat" -f "$FIX/formats/x86" - 2>/dev/null <<'EOT'
0 1000 4101 kvm:kvm_exit exit_reason=30 guest_rip=0xfff0 isa=1 info1=0x800000 info2=0 intr_info=0 error_code=0 vcpu_id=0
0 1400 4101 kvm:kvm_pio rw=1 port=0x80 size=1 count=1 val=7
0 1450 4101 kvm:kvm_entry vcpu_id=0 rip=0xfff2
0 1500 4101 kvm:kvm_userspace_exit reason=2 errno=0
0 1600 4101 kvm:kvm_fpu load=1
1 2000 4102 kvm:kvm_userspace_exit reason=6 errno=-4
1 2500 4102 kvm:kvm_mmio type=1 len=1 gpa=0xd0010 val=0
0 60000001000 4101 kvm:kvm_userspace_exit reason=5 errno=0
EOT
	if command -v trace-cmd >/dev/null && [ -f "$d/x86-values.dat" ]; then
		trace-cmd convert -i "$d/x86-values.dat" -o "$d/x86-v7.dat" --file-version 7 \
			--compression none >/dev/null 2>&1 || rm -f "$d/x86-v7.dat"
		trace-cmd convert -i "$d/x86-values.dat" -o "$d/x86-v7z.dat" --file-version 7 \
			--compression any >/dev/null 2>&1 || rm -f "$d/x86-v7z.dat"
	fi
	ls "$d"/*.dat >/dev/null 2>&1 || echo "fuzz: note: no trace.dat seeds (mkdat missing?)"
}

# seed NAME FILE...: copy files into the seed dir of target NAME.
seed() {
	n=$1; shift
	mkdir -p "$SEEDS/$n"
	for f in "$@"; do
		[ -f "$f" ] && cp "$f" "$SEEDS/$n/$(echo "$f" | tr / _)"
	done
}

# Text fixtures cut to their first 150 lines: the rest repeats itself.
text_seeds() {
	mkdir -p "$SEEDS/$1"
	for f in "$FIX"/text/*.txt; do
		head -n 150 "$f" >"$SEEDS/$1/$(basename "$f")"
	done
}

make_dats
text_seeds input
seed input "$SEEDS"/dat/*.dat "$FIX"/text/trace.dat "$FIX"/ppc/*.txt "$FIX"/ppc/vm*_timing
text_seeds text
seed ppctext "$FIX"/ppc/*.txt "$FIX"/ppc/vm*_timing
seed exittypes exit_types/*.types
seed buckets exit_types/*.map
seed datread "$SEEDS"/dat/*.dat "$FIX"/text/trace.dat

max_len() {
	case $1 in
	input | datread) echo 65536 ;;
	*) echo 16384 ;;
	esac
}

# libFuzzer treats a malloc over this as a crash. libtracecmd mallocs what a
# hostile header says (GBs) in the probe child, where it only refuses the
# file: for fuzz_input the limit is ASan's own (and the RSS limit holds).
malloc_limit() {
	case $1 in
	input) echo 1048576 ;;
	*) echo 2048 ;;
	esac
}

# fuzz_one BIN: regression inputs, then SECS of fuzzing. Log in $FUZZ_O/logs.
fuzz_one() {
	bin=$1 t=$(basename "$1") n=${t#fuzz_}
	log=$FUZZ_O/logs/$t.log
	: >"$log"
	if [ -d "$BAD/$n" ] && [ -n "$(ls "$BAD/$n")" ]; then
		# Given files (not dirs), libFuzzer runs each once and stops.
		"$bin" -close_fd_mask=3 "$BAD/$n"/* >>"$log" 2>&1 || { echo "rc=$?" >>"$log"; return; }
	fi
	mkdir -p "$FUZZ_O/corpus/$n" "$SEEDS/$n"
	"$bin" -max_total_time="$SECS" -timeout=20 -rss_limit_mb=2048 -max_len="$(max_len "$n")" \
		-malloc_limit_mb="$(malloc_limit "$n")" \
		-close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$FUZZ_O/artifacts/$t-" \
		"$FUZZ_O/corpus/$n" "$SEEDS/$n" >>"$log" 2>&1
	echo "rc=$?" >>"$log"
}

# Up to JOBS targets at a time (they all take SECS, so batches lose little).
set -- "$@"
while [ $# -gt 0 ]; do
	i=0
	while [ $# -gt 0 ] && [ $i -lt "$JOBS" ]; do
		fuzz_one "$1" &
		shift
		i=$((i + 1))
	done
	wait
done

pass=0 fail=0 total=0
for log in "$FUZZ_O"/logs/fuzz_*.log; do
	t=$(basename "$log" .log)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	rc=$(sed -n 's/^rc=//p' "$log" | tail -n 1)
	# libFuzzer exits non-zero on any crash, leak, sanitizer report, timeout or OOM.
	if [ "$rc" = 0 ]; then
		pass=$((pass + 1))
		total=$((total + ${execs:-0}))
		echo "PASS $t: ${execs:-?} executions in $SECS s"
	else
		fail=$((fail + 1))
		echo "FAIL $t (rc ${rc:-?}), log $log:"
		grep -E 'ERROR|SUMMARY|runtime error|Test unit written|#[0-9]+ 0x' "$log" | head -n 30
	fi
done
echo "fuzz: $total executions in total"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
