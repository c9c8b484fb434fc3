#!/bin/sh
# ftrace/perf text input end to end on a run recorded now, seen by two
# tracefs instances and perf at once (tests/fixtures/text/capture.sh): each
# text form's report against the trace.dat's, for the userspace exits (their
# counts exitgen's own) and, where kvm_exit fires, for the kvm_exit table (its
# reasons the lab's rules over exitgen's counts). (text.sh: the fixtures.)
. "$(dirname "$0")/lib.sh"
need_kvm
command -v trace-cmd >/dev/null || { bad "trace-cmd not installed (make deps)"; summary; exit 1; }
FIX=tests/fixtures/text
echo "leak:libtraceevent.so" >"$TMP/lsan.supp"
export LSAN_OPTIONS="suppressions=$TMP/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
. "$(dirname "$0")/../tools/text-helpers.sh"
mkdir "$TMP/live"
if OUT=$TMP/live EXITGEN=$EXITGEN ARGS="--io 300 --mmio 200 --hlt 50 --vcpus 2" START_DELAY=8000 \
	sh "$FIX/capture.sh" >"$TMP/capture.log" 2>&1; then
	ok
	SRC="--source userspace" compare_all "$TMP/live"
	if [ -n "$EXIT_RULES" ]; then
		# truth() is the userspace exits': the kvm_exit counts are checked once, on the trace.dat
		truth() { :; }
		SRC="--source exits" compare_all "$TMP/live"
		"$KES" report -i "$TMP/live/trace.dat" -f csv --source exits >"$TMP/exits.csv"
		exits_exact "capture, kvm_exit" "$TMP/exits.csv" "$TMP/live/exitgen.out"
	fi
else
	bad "capture: $(tail -n 3 "$TMP/capture.log")"
fi
summary
