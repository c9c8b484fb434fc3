# Shared by tests/e2e/badinput.sh and badinput-live.sh (sourced after lib.sh,
# with TMP set): run a command under a time limit and judge how it failed.
# run CMD...: at most 20 s, stdout/stderr in $TMP/out, $TMP/err, status in $rc.
run() {
	timeout -s KILL 20 "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	rc=$?
}

# The part of the contract that holds for every input: why it failed, or "".
crashed() {
	if [ "$rc" -ge 124 ]; then
		echo "; hung or killed by a signal (status $rc)"
	fi
	if grep -Eq 'Sanitizer|runtime error:' "$TMP/err"; then
		echo "; sanitizer report: $(grep -m 1 -E 'Sanitizer|runtime error:' "$TMP/err")"
	fi
}

# refused DESC CMD...: the command must fail cleanly with one line.
refused() {
	d=$1
	shift
	run "$@"
	why=$(crashed)
	[ "$rc" -ne 0 ] || why="$why; exit status 0"
	[ ! -s "$TMP/out" ] || why="$why; stdout: $(head -c 160 "$TMP/out")"
	n=$(wc -l <"$TMP/err")
	[ "$n" -eq 1 ] || why="$why; $n lines on stderr"
	head -n 1 "$TMP/err" | grep -q '^kvm-exitstat: ' ||
		why="$why; stderr: $(head -c 160 "$TMP/err")"
	if [ -z "$why" ]; then ok; else bad "$d$why"; fi
}

# survived DESC CMD...: refused as above, or a report on stdout and status 0.
survived() {
	d=$1
	shift
	run "$@"
	if [ "$rc" -ne 0 ]; then
		refused "$d" "$@"
		return
	fi
	why=$(crashed)
	[ -s "$TMP/out" ] || why="$why; status 0 but no report"
	if [ -z "$why" ]; then ok; else bad "$d$why"; fi
}

# poke FILE OFFSET BYTES: overwrite bytes (printf escapes) in place.
poke() {
	printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

# flips FILE FROM TO SEED N: N pseudo-random bytes in [FROM, TO) get new values.
flips() {
	awk -v from="$2" -v to="$3" -v seed="$4" -v n="$5" 'BEGIN {
		srand(seed)
		for (i = 0; i < n; i++)
			printf "%d %o\n", from + int(rand() * (to - from)), 1 + int(rand() * 255)
	}' | while read -r off oct; do
		poke "$1" "$off" "\\$oct"
	done
}
