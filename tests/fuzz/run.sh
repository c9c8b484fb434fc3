#!/bin/sh
# Runs each libFuzzer target (tests/fuzz/fuzz_*.c, built by `make fuzz`) for
# FUZZ_SECONDS, FUZZ_JOBS at a time. Before fuzzing, every target replays its
# regression inputs (tests/fixtures/bad/<target>/). A target passes when it
# ran clean: no crash, leak, sanitizer report or timeout. Ends with the total
# number of executions and an "N passed, N failed" line; exit 0 only if all passed.
#
#   FUZZ_O=build/fuzzer FUZZ_SECONDS=60 MKDAT=build/tests/tools/mkdat sh tests/fuzz/run.sh BIN...
#
# Seeds are made at run time in $FUZZ_O/seeds: real recordings (ours, and
# trace-cmd's v7 and zstd conversions of it, tests/fixtures/real; trace-cmd's
# restore of raw pages, tests/fixtures/text/trace.dat), the hostile fixtures,
# text and PPC fixtures, exit_types/, small trace.dat files built with mkdat,
# and the committed corpus tests/fuzz/corpus/<target>/ (minimized: what a long
# run found that the seeds do not reach). Each target has a dictionary
# (tests/fuzz/dict/); half its mutations are structure-aware (mutate.h). What
# a run finds grows $FUZZ_O/corpus/<target>, kept between runs. Crashing
# inputs land in $FUZZ_O/artifacts/: copy one to tests/fixtures/bad/<target>/
# once fixed.
#
# FUZZ_RUNS=N: each target stops after N executions too (whichever comes
# first; FUZZ_SECONDS then bounds the time: the issue-11 figures were made with
# FUZZ_RUNS=1000000 and a large FUZZ_SECONDS).
#
# Then the difference oracle (tests/fuzz/oracle.c) for FUZZ_SECONDS: visible
# mutations of the real recordings and texts must be refused, warned about,
# or change nothing; a silent difference fails the run.
#
# Nothing is written outside $FUZZ_O: sanitizer reports of a process whose
# report file was lost would go to ASan's log_path (it used to be "" in the
# probe children, hence 43 ".PID" files at the repo root); it is set under
# $FUZZ_O/logs, and the run fails if any crash, leak or report file appears
# in the current directory.
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
# max_allocation_size_mb: an allocation of more than 2 GB is a crash in our code (a
# hostile size trusted), and in the probe child only refuses the file: libFuzzer's
# own malloc limit is off (-malloc_limit_mb below) because its handler runs in
# the forked probe child too and writes artifacts from there.
case $FUZZ_O in /*) FUZZ_ABS=$FUZZ_O ;; *) FUZZ_ABS=$(pwd)/$FUZZ_O ;; esac
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:symbolize=1:quarantine_size_mb=16:max_allocation_size_mb=2048:log_path=$FUZZ_ABS/logs/stray}
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
seed input "$SEEDS"/dat/*.dat "$FIX"/text/trace.dat "$FIX"/ppc/*.txt "$FIX"/ppc/vm*_timing \
	"$FIX"/real/*.dat "$BAD"/tracedat/*.dat "$BAD"/text/*.txt
text_seeds text
seed text "$BAD"/text/*.txt "$FIX"/published/*.txt
seed ppctext "$FIX"/ppc/*.txt "$FIX"/ppc/vm*_timing
seed exittypes exit_types/*.types
seed buckets exit_types/*.map
seed datread "$SEEDS"/dat/*.dat "$FIX"/text/trace.dat "$FIX"/real/*.dat "$BAD"/tracedat/*.dat
seed reportjson "$FIX"/json/*.json
# gsym: files others wrote: this host's /proc/kallsyms (a slice of vmlinux's
# lines and one of its modules'), the C library's crt objects (ELF with a
# .symtab), and exitgen's map from the lab
mkdir -p "$SEEDS/gsym"
head -n 120 /proc/kallsyms >"$SEEDS/gsym/kallsyms"
grep '\[' /proc/kallsyms | head -n 120 >"$SEEDS/gsym/kallsyms-modules"
seed gsym /usr/lib/*-linux-gnu/*crt*.o "$FIX"/lab/*/exitgen.map
# jsonmerge: report A, a NUL, report B (issue 29): real reports and the hostile ones paired
mkdir -p "$SEEDS/jsonmerge"
for a in "$FIX"/json/*.json; do
	for b in "$FIX"/json/*.json "$BAD"/json/*.json; do
		{ cat "$a"; printf '\000'; cat "$b"; } >"$SEEDS/jsonmerge/$(basename "$a" .json)+$(basename "$b")"
	done
done
for d in tests/fuzz/corpus/*/; do
	[ -d "$d" ] && seed "$(basename "$d")" "$d"*
done

# One dictionary per target; fuzz_input reads every kind.
DICTS=tests/fuzz/dict
cat "$DICTS"/tracedat.dict "$DICTS"/text.dict "$DICTS"/ppctext.dict >"$FUZZ_O/input.dict"
dict() {
	case $1 in
	input) echo "$FUZZ_O/input.dict" ;;
	datread) echo "$DICTS/tracedat.dict" ;;
	jsonmerge) echo "$DICTS/reportjson.dict" ;;
	*) echo "$DICTS/$1.dict" ;;
	esac
}

# Stray files in the current directory: there must be none after the run.
strays() { ls -A | grep -E '^\.[0-9]+$|^(crash|oom|leak|timeout|slow-unit)-' | sort; }
STRAYS_BEFORE=$(strays)

max_len() {
	case $1 in
	input | datread) echo 65536 ;;
	*) echo 16384 ;;
	esac
}

# libFuzzer's malloc limit is off everywhere: ASan's max_allocation_size_mb
# (above) does its job without running in the probe child.
malloc_limit() { echo 1048576; }

# The regression inputs a target replays first (tests/fixtures/bad/<dir>/).
replays() {
	case $1 in
	input) echo input tracedat text ;;
	datread) echo datread tracedat ;;
	jsonmerge) echo json ;;
	*) echo "$1" ;;
	esac
}

# fuzz_one BIN: regression inputs, then SECS of fuzzing. Log in $FUZZ_O/logs.
fuzz_one() {
	bin=$1 t=$(basename "$1") n=${t#fuzz_}
	log=$FUZZ_O/logs/$t.log
	: >"$log"
	for d in $(replays "$n"); do
		[ -d "$BAD/$d" ] && [ -n "$(ls "$BAD/$d")" ] || continue
		# Given files (not dirs), libFuzzer runs each once and stops.
		"$bin" -close_fd_mask=3 -malloc_limit_mb="$(malloc_limit "$n")" \
			-artifact_prefix="$FUZZ_O/artifacts/$t-" "$BAD/$d"/* >>"$log" 2>&1 ||
			{ echo "rc=$?" >>"$log"; return; }
	done
	mkdir -p "$FUZZ_O/corpus/$n" "$SEEDS/$n"
	"$bin" -max_total_time="$SECS" ${FUZZ_RUNS:+-runs="$FUZZ_RUNS"} -timeout=20 -rss_limit_mb=2048 -max_len="$(max_len "$n")" \
		-malloc_limit_mb="$(malloc_limit "$n")" -dict="$(dict "$n")" \
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

# The difference oracle, on the real recordings and texts, and one text with
# hostile bytes in an exit name (crafted from a real one: its JSON once was no UTF-8).
ORACLE=$FUZZ_O/oracle
if [ -x "$ORACLE" ]; then
	mkdir -p "$FUZZ_O/oracle-out"
	head -n 200 "$FIX/text/trace.txt" >"$SEEDS/oracle-trace.txt"
	"$ORACLE" -s "$SECS" -o "$FUZZ_O/oracle-out" "$FIX"/real/*.dat "$SEEDS/oracle-trace.txt" \
		"$FIX"/text/report.txt "$FIX"/text/perf.txt "$FIX"/bad/text/exit-bytes.txt \
		>"$FUZZ_O/logs/oracle.log" 2>&1
	echo "rc=$?" >>"$FUZZ_O/logs/oracle.log"
fi

pass=0 fail=0 total=0
for log in "$FUZZ_O"/logs/fuzz_*.log "$FUZZ_O"/logs/oracle.log; do
	[ -f "$log" ] || continue
	if [ "$(basename "$log")" = oracle.log ]; then
		line=$(grep '^oracle: [0-9]* executions' "$log")
		if [ "$(sed -n 's/^rc=//p' "$log")" = 0 ] && [ -n "$line" ]; then
			pass=$((pass + 1))
			echo "PASS $line"
		else
			fail=$((fail + 1))
			echo "FAIL oracle, log $log:"
			grep -E 'oracle:|ERROR|SUMMARY' "$log" | head -n 20
		fi
		continue
	fi
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
if [ "$(strays)" != "$STRAYS_BEFORE" ]; then
	fail=$((fail + 1))
	echo "FAIL files written into $(pwd): $(strays | tr '\n' ' ')"
fi
if ls "$FUZZ_O"/logs/stray* >/dev/null 2>&1; then
	echo "note: sanitizer reports of processes that lost their report file: $FUZZ_O/logs/stray*"
fi
echo "fuzz: $total executions in total"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
