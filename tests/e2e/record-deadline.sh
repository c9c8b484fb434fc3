#!/bin/sh
# record -d with a command still running at the deadline: the command gets
# SIGTERM (SIGKILL 5 s later if it ignores that) and the summary says how it
# ended. Before, record waited 5 s for a command that had been told nothing,
# then exited without its status. The file is complete either way.
. "$(dirname "$0")/lib.sh"
need_kvm
ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }

t0=$(ms)
timeout 60 "$KES" record -d 1 -o "$TMP/d.dat" -- "$EXITGEN" --io 10 --seconds 20 --pause-us 1000 \
	>"$TMP/out" 2>"$TMP/err"
rc=$? t=$(($(ms) - t0))
# record exits with the command's status (issue 14 item 14): 128 + SIGTERM
eq "record -d 1 -- exitgen: exit status (128 + SIGTERM)" "$rc" 143
check "record -d 1 -- exitgen took $t ms: under 4 s, not the command's 20" [ "$t" -lt 4000 ]
check "the summary reports the SIGTERM" grep -q 'command killed by signal 15' "$TMP/err"
"$KES" report -i "$TMP/d.dat" -f csv --source userspace >"$TMP/csv" 2>&1
eq "report of the file: exit status" "$?" 0
check "the file has the exits of that second" grep -q '^KVM_EXIT_IO,' "$TMP/csv"

t0=$(ms)
timeout 60 "$KES" record -d 1 -o "$TMP/d.dat" -- sh -c 'trap "" TERM; exec sleep 30' 2>"$TMP/err"
rc=$? t=$(($(ms) - t0))
eq "record -d 1 -- (ignores SIGTERM): exit status (128 + SIGKILL)" "$rc" 137
between() { [ "$1" -ge "$2" ] && [ "$1" -lt "$3" ]; }
check "record -d 1 -- (ignores SIGTERM) took $t ms: 6 s, not 30" between "$t" 5500 10000
check "the summary reports the SIGKILL" grep -q 'command killed by signal 9' "$TMP/err"

# The command is told to end as soon as tracing is off, before the instance goes:
# removing it waits for an RCU grace period, which a vCPU looping in the kernel
# can hold up until the command ends (ppc64 PR in the lab ran its 8 s out).
if command -v strace >/dev/null 2>&1; then
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" timeout 60 strace -qq -o "$TMP/st" \
		-e trace=kill,rmdir,unlinkat "$KES" record -d 1 -o "$TMP/d.dat" -- "$EXITGEN" --io 10 --seconds 20 \
		--pause-us 1000 >/dev/null 2>&1
	order=$(grep -Eo '^(kill\([0-9]+, SIGTERM|(rmdir|unlinkat)\(([0-9]+, )?"[^"]*instances/kvm-exitstat)' \
		"$TMP/st" | sed 's/(.*//; s/unlinkat/rmdir/' | tr '\n' ' ')
	eq "at -d: SIGTERM to the command, then the instance's rmdir" "$order" "kill rmdir "
else
	echo "record-deadline.sh: no strace, the order of kill and rmdir is not checked"
fi

# A command that ends before the deadline is not touched.
timeout 60 "$KES" record -d 30 -o "$TMP/d.dat" -- "$EXITGEN" --io 10 >/dev/null 2>"$TMP/err"
eq "record -d 30 -- (quick command): exit status" "$?" 0
check "the summary reports its own exit" grep -q 'command exited with status 0' "$TMP/err"
summary
