#!/bin/sh
# trace-cmd reads what record writes as it reads its own files: under
# valgrind memcheck trace-cmd report of a fresh recording is clean, and every
# event line carries a seconds timestamp. Before the TRACECLOCK option held
# the clock text, libtracecmd 3.1.6 parsed the heap past an empty option
# buffer (valgrind: invalid read in strtok_r) and printed raw timestamps now
# and then. valgrind makes the cause visible on every run, not only when the
# heap happens to look like a clock name.
. "$(dirname "$0")/lib.sh"
need_kvm
command -v trace-cmd >/dev/null || skip "needs trace-cmd (make deps)"
command -v valgrind >/dev/null || skip "needs valgrind (make deps)"

"$KES" record -q -o "$TMP/r.dat" -- "$EXITGEN" --io 20 --mmio 5 --hlt 2 >/dev/null 2>"$TMP/err"
eq "record exit status" "$?" 0
valgrind -q --error-exitcode=99 trace-cmd report "$TMP/r.dat" >"$TMP/r.txt" 2>"$TMP/vg"
eq "trace-cmd report under valgrind: exit status" "$?" 0
eq "valgrind's complaints" "$(grep -c '^==' "$TMP/vg")" 0
check "events in the report" grep -q 'kvm_userspace_exit' "$TMP/r.txt"
eq "event lines without a seconds timestamp" \
	"$(grep -v '^cpus=' "$TMP/r.txt" | grep -cvE '\[[0-9]+\] +[0-9]+\.[0-9]{6}: ')" 0
summary
