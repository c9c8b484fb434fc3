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
# show as pids that are not the traced workload's. Paced (21 exits, then 5 ms
# asleep, some 4000 exits/s): at full rate it took a whole CPU, and in the
# lab host (QEMU's TCG, where an exit takes some 50 us) half the guest's
# time, which every other step of the test then waited for. It runs until
# stop_decoy (at most 10 minutes: the lab host's tests outlast a minute).
start_decoy() {
	"$EXITGEN" --io 20 --pause-us 5000 --seconds 600 --quiet >/dev/null 2>&1 &
	DECOY=$!
}
# The decoy's vCPU thread ids, from /proc (it prints them only at its end).
decoy_tids() {
	for t in /proc/"$DECOY"/task/*; do
		grep -q vcpu "$t/comm" 2>/dev/null && echo "${t##*/}"
	done
}
stop_decoy() { [ -n "${DECOY:-}" ] && kill "$DECOY" 2>/dev/null; wait "$DECOY" 2>/dev/null; DECOY=; }

# once_rows FILE: "REASON<TAB>TOTAL" of each row of a top --once table (the
# name is the words before the first number: SVM's "DE excp" is one).
once_rows() {
	awk -v OFS="$(printf '\t')" '/^REASON / { on = 1; next } /^Total / { on = 0 }
		on { n = $1; for (i = 2; i <= NF && $i !~ /^[0-9]+$/; i++) n = n " " $i; if (i <= NF) print n, $i }' "$1"
}
# exits_counts_exact WHAT FILE EXITGEN-OUT: where kvm_exit's reasons are
# predicted (lib.sh's EXIT_RULES), FILE's "REASON<TAB>COUNT" lines, the kvm_exit
# counts a live view gave (top --once's rows, a --log's columns summed), are
# the lab's rules over exitgen's printed counts, and no other reason appears:
# exits_exact's check, on top's view instead of a report's CSV. Elsewhere:
# nothing. Sources tests/lab/checklib.sh (its functions replace any of the
# same name: rows, between, ...).
exits_counts_exact() {
	[ -n "${EXIT_RULES:-}" ] || return 0
	# shellcheck disable=SC2034 # read by checklib.sh's expect_lines
	EXPECT=$EXIT_RULES
	. tests/lab/checklib.sh
	match_rows "$1" "$(awk -F"$TAB" -v OFS="$TAB" 'NF >= 2 { print $1, $2, 0, 0 }' "$2")" \
		"$(expected "$(eg_vars "$3")" "")" strict >"$V"
	apply
}
