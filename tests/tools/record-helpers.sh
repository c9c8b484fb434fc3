# Shared by tests/e2e/record*.sh (sourced after lib.sh). Not a test itself:
# it lives here so that tests/run.sh does not run it.
DATCOUNT=${DATCOUNT:-${O:-build}/tests/tools/datcount}
MKDAT=${MKDAT:-${O:-build}/tests/tools/mkdat}
INSTANCES=/sys/kernel/tracing/instances

# wait_tracing PID: until the instance of kvm-exitstat PID traces (at most
# 10 s). Its kvm_userspace_exit first, then tracing_on: a new instance traces
# at once, so a tracing_on of 1 read first may be from before the tool turned
# it off to set it up, and a workload started then runs untraced.
wait_tracing() {
	_d=$INSTANCES/kvm-exitstat-$1
	_w=0
	while ! { [ "$(cat "$_d/events/kvm/kvm_userspace_exit/enable" 2>/dev/null)" = 1 ] &&
		[ "$(cat "$_d/tracing_on" 2>/dev/null)" = 1 ]; } && [ $_w -lt 100 ]; do
		sleep 0.1
		_w=$((_w + 1))
	done
}

need_tools() {
	[ -x "$DATCOUNT" ] && [ -x "$MKDAT" ] ||
		{ bad "test tools missing ($DATCOUNT, $MKDAT): make all"; summary; exit 1; }
}

# field KEY LINE: the word after KEY in a "key value key value" line.
field() { echo "$2" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'; }

# eg_total REASON FILE: exitgen's own count from its "total ..." line.
eg_total() { field "$1" "$(grep '^total' "$2")"; }

# dc VALUE-KIND NAME FILE: a number from datcount output ("event kvm:kvm_pio", "key 2", "lost").
dc() { awk -v k="$1" -v n="$2" '$1 == k && (n == "" || $2 == n) { print $NF; f = 1 } END { if (!f) print 0 }' "$3"; }

# Per-event counts as "event N" lines, sorted: from trace-cmd report and from libtracecmd.
tc_counts() {
	trace-cmd report "$1" 2>/dev/null | awk '{
		for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { e = $(i + 1); sub(/:$/, "", e); c[e]++; break }
	} END { for (e in c) print e, c[e] }' | sort
}
dc_counts() { "$DATCOUNT" "$1" | awk '$1 == "event" { sub(/^[^:]*:/, "", $2); print $2, $3 }' | sort; }

# wait_line FILE PATTERN: until a line matching PATTERN is in FILE (at most 10 s).
wait_line() {
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}

# wait_traced PID [N]: until N (default 1) of our instances trace PID: their
# set_event_pid holds it, their kvm events are on and so is tracing (at most 20 s).
wait_traced() {
	_t=0
	while [ $_t -lt 200 ]; do
		_n=0
		for _i in "$INSTANCES"/kvm-exitstat-*; do
			grep -qx "$1" "$_i/set_event_pid" 2>/dev/null &&
				[ "$(cat "$_i/events/kvm/enable" 2>/dev/null)" != 0 ] &&
				[ "$(cat "$_i/tracing_on" 2>/dev/null)" = 1 ] && _n=$((_n + 1))
		done
		[ $_n -ge "${2:-1}" ] && return 0
		sleep 0.1
		_t=$((_t + 1))
	done
	return 1
}
# observe EXITGEN-PID CMD...: CMD (top, record) in the background; the exitgen,
# started with --start-on-usr1, makes its exits once CMD traces it (a fixed
# --start-delay ran out on loaded CI machines); CMD's exit status.
# observe_start and observe_end are its halves, for a test that looks at
# CMD's instance in between.
observe_start() {
	_e=$1
	shift
	"$@" &
	_o=$!
	wait_traced "$_e"
}
observe_end() {
	kill -USR1 "$_e"
	wait "$_o"
}
observe() {
	observe_start "$@"
	observe_end
}

# A second KVM user that the filter must keep out: its events, leaked, would
# show as pids that are not the traced workload's.
start_decoy() {
	"$EXITGEN" --io 100000 --seconds 60 --quiet >/dev/null 2>&1 &
	DECOY=$!
}
# The decoy's vCPU thread ids, from /proc (it prints them only at its end).
decoy_tids() {
	for t in /proc/"$DECOY"/task/*; do
		grep -q vcpu "$t/comm" 2>/dev/null && echo "${t##*/}"
	done
}
stop_decoy() { [ -n "${DECOY:-}" ] && kill "$DECOY" 2>/dev/null; wait "$DECOY" 2>/dev/null; DECOY=; }
