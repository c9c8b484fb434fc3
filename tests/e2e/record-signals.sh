#!/bin/sh
# Stopping a recording: SIGINT/SIGTERM mid-run leave a complete file that
# trace-cmd reads, no tracefs instance, and no traced command behind;
# SIGKILL leaves an instance (and no half-written file) that the next run removes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
need_kvm
need_tools

# record passes the signal on and exits with the command's status: 128 + N.
for sig in INT TERM; do
	"$KES" record -o "$TMP/$sig.dat" -- "$EXITGEN" --io 1000 --seconds 5 >"$TMP/eg.out" 2>"$TMP/rec.err" &
	R=$!
	wait_line "$TMP/eg.out" '^exitgen: pid'
	sleep 1
	kill -$sig $R
	wait $R
	rc=$?
	case $sig in INT) n=2 ;; TERM) n=15 ;; esac
	eq "SIG$sig: record exit status (the command's, killed by SIG$sig)" "$rc" "$((128 + n))"
	check "SIG$sig: no tracefs instance left" test ! -e "$INSTANCES/kvm-exitstat-$R"
	eg=$(awk '/^exitgen: pid/ { print $3 }' "$TMP/eg.out")
	check "SIG$sig: the command was stopped too" sh -c "! kill -0 $eg 2>/dev/null"
	check "SIG$sig: summary names the signal" grep -q "command killed by signal" "$TMP/rec.err"
	"$DATCOUNT" "$TMP/$sig.dat" >"$TMP/dc"
	check "SIG$sig: events were recorded" test "$(dc total '' "$TMP/dc")" -gt 0
	eq "SIG$sig: trace-cmd report = libtracecmd" "$(tc_counts "$TMP/$sig.dat")" "$(dc_counts "$TMP/$sig.dat")"
done

# SIGKILL: nothing can clean up, so the next run must.
"$KES" record -o "$TMP/kill.dat" -- "$EXITGEN" --io 1000 --seconds 3 >"$TMP/eg.out" 2>/dev/null &
R=$!
wait_line "$TMP/eg.out" '^exitgen: pid'
sleep 0.5
kill -KILL $R
wait $R 2>/dev/null
eg=$(awk '/^exitgen: pid/ { print $3 }' "$TMP/eg.out")
[ -n "$eg" ] && kill "$eg" 2>/dev/null
check "SIGKILL leaves the instance (precondition)" test -d "$INSTANCES/kvm-exitstat-$R"
check "SIGKILL leaves no half-written file" test ! -e "$TMP/kill.dat"
"$KES" record -q -o "$TMP/next.dat" -- true
eq "next record exit status" "$?" 0
check "the next run removed the stale instance" test ! -e "$INSTANCES/kvm-exitstat-$R"
summary
