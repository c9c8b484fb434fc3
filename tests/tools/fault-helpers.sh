# Shared by tests/e2e/faults-*.sh (sourced after lib.sh and record-helpers.sh).
# Not a test itself. After every fault the tests check that the host is as it
# was: no kvm-exitstat instance of a dead owner that was not there before, the
# top-level tracing state unchanged, and the file left behind (if any) readable.
TRACING=/sys/kernel/tracing

# The host's top-level tracing state, one "file: value" line each (a file's
# lines joined). Shell builtins only: a cat per file, some 80 files before
# and after each fault, was 180 of faults-top.sh's 340 s in the lab host
# (QEMU's TCG, where a fork and exec take some 0.1 s).
tracing_state() {
	for f in tracing_on current_tracer set_event buffer_size_kb trace_options \
		events/kvm/enable "$TRACING"/options/*; do
		f=${f#"$TRACING"/}
		printf '%s:' "$f"
		if [ "$f" = buffer_size_kb ] && [ -r "$TRACING/$f" ]; then
			# The kernel allocates the top-level buffer at the first enable of
			# any event, in any instance (tracing_update_buffers(), 6.1):
			# "7 (expanded: 1408)" becomes 1410, its pages. The size asked
			# for is the state: KB rounded down to 16 KB.
			read -r _l <"$TRACING/$f"
			case $_l in *expanded:*) _l=${_l##*expanded: } _l=${_l%)} ;; esac
			printf ' %s' "$((_l / 16 * 16))"
		elif [ -r "$TRACING/$f" ]; then
			while IFS= read -r _l || [ -n "$_l" ]; do printf ' %s' "$_l"; done <"$TRACING/$f"
		else
			printf ' (unreadable)'
		fi
		echo
	done
}

# before_fault: remember the state and the kvm-exitstat instances now there.
before_fault() {
	tracing_state >"$TMP/state.before"
	for _i in "$INSTANCES"/kvm-exitstat-*; do
		[ -d "$_i" ] && echo "${_i##*/}"
	done >"$TMP/inst.before"
}

# No kvm-exitstat instance of a dead owner that was not there before (ours
# are gone when our run ends; those of other live processes are theirs).
# The owner is the number the name ends with (kvm-exitstat-PID, or other
# tools' kvm-exitstat-text-a-PID). lib.sh's check() keeps its text in $d:
# these helpers use other names.
no_new_stale() {
	for _i in "$INSTANCES"/kvm-exitstat-*; do
		[ -d "$_i" ] || continue
		_n=${_i##*/}
		kill -0 "${_n##*-}" 2>/dev/null && continue
		grep -qx "$_n" "$TMP/inst.before" || { echo "stale instance $_n"; return 1; }
	done
	return 0
}

# after_fault NAME PID...: the host checks, each a test. PID: a recorder or
# top whose instance must be gone.
after_fault() {
	_name=$1
	shift
	for _p in "$@"; do
		check "$_name: instance kvm-exitstat-$_p removed" test ! -e "$INSTANCES/kvm-exitstat-$_p"
	done
	# Other test scripts running at the same time (record-signals.sh kills a
	# recorder with SIGKILL on purpose) leave such instances too: counted
	# only under CI, where tests/run.sh runs one script at a time.
	if [ "${CI:-}" = true ]; then
		check "$_name: no new stale instance" no_new_stale
	elif ! no_new_stale >"$TMP/stale"; then
		echo "note: $_name: $(cat "$TMP/stale") (another test running at the same time?)"
	fi
	tracing_state >"$TMP/state.after"
	if cmp -s "$TMP/state.before" "$TMP/state.after"; then
		ok
	else
		bad "$_name: top-level tracing state changed: $(diff "$TMP/state.before" "$TMP/state.after" | grep '^[<>]' | tr '\n' ' ')"
	fi
}

# readable NAME FILE: report and trace-cmd report read it, and agree on the
# number of events with libtracecmd.
readable() {
	"$KES" report -i "$2" -f csv --source userspace >"$TMP/readable.csv" 2>"$TMP/readable.err"
	eq "$1: kvm-exitstat report -i exit status" "$?" 0
	check "$1: report has exit rows" grep -q '^KVM_EXIT_' "$TMP/readable.csv"
	timeout 120 trace-cmd report "$2" >"$TMP/readable.tc" 2>"$TMP/readable.tcerr"
	_rc=$?
	eq "$1: trace-cmd report exit status ($(head -c 200 "$TMP/readable.tcerr"))" "$_rc" 0
	# as tc_counts (record-helpers.sh), from the saved output
	tc=$(awk '{
		for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { e = $(i + 1); sub(/:$/, "", e); c[e]++; break }
	} END { for (e in c) print e, c[e] }' "$TMP/readable.tc" | sort)
	check "$1: trace-cmd report reads events (its output began: $(head -3 "$TMP/readable.tc" | tr '\n' '|' | head -c 300))" \
		test -n "$tc"
	eq "$1: trace-cmd report = libtracecmd" "$tc" "$(dc_counts "$2")"
	# where kvm_exit fires: the report's kvm_exit table holds every kvm_exit trace-cmd reads
	if [ -n "${EXIT_RULES:-}" ]; then
		"$KES" report -i "$2" -f csv --source exits >"$TMP/readable.x.csv" 2>/dev/null
		eq "$1: report's kvm_exit exits = trace-cmd's kvm_exit events" \
			"$(awk -F, 'NR > 1 && $2 == -1 && $17 == "" && $1 != "TIMEINGUEST" { n += $4 } END { print n + 0 }' "$TMP/readable.x.csv")" \
			"$(echo "$tc" | awk '$1 == "kvm_exit" { print $2; f = 1 } END { if (!f) print 0 }')"
	fi
}

# one_line NAME FILE PATTERN: FILE is exactly one line, "kvm-exitstat: ..." matching PATTERN.
one_line() {
	eq "$1: one line on stderr" "$(wc -l <"$2")" 1
	check "$1: message '$3' (got: $(head -c 200 "$2"))" grep -q "^kvm-exitstat: .*$3" "$2"
}

# sh -c "$PIDRUN" PIDFILE COMMAND...: COMMAND with its pid (the name of its
# instance) in PIDFILE; it can run under timeout, unlike a shell function.
# shellcheck disable=SC2016 # expanded by that sh
PIDRUN='echo $$ >"$0"; exec "$@"'

# bg PIDFILE COMMAND...: COMMAND in the background under a 60 s timeout; its
# own pid (the instance's name) in PIDFILE, the timeout's in $BG.
bg() {
	_pf=$1
	shift
	rm -f "$_pf"
	timeout 60 sh -c "$PIDRUN" "$_pf" "$@" &
	# shellcheck disable=SC2034 # for the caller
	BG=$!
	_w=0
	while [ ! -s "$_pf" ] && [ $_w -lt 100 ]; do sleep 0.1; _w=$((_w + 1)); done
}

# exitgen_pid FILE: the pid from an exitgen output's "exitgen: pid N" line.
exitgen_pid() { awk '/^exitgen: pid/ { print $3; exit }' "$1"; }
# vcpu_tids FILE: its vCPU thread ids, one a line.
vcpu_tids() { awk '/^vcpu/ { print $4 }' "$1"; }
