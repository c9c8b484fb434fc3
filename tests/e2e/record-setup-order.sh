#!/bin/sh
# The collector's setup order, seen through strace (record and top share it):
# every event is enabled in the instance before its buffer is sized. On
# kernels before 6.6 sizing an instance first left the host's top-level
# buffer at its 7 KB boot minimum for good (tracefs.c, configure()); the lab
# proves the effect on Debian's 6.1 (tests/lab: toplevel.*). This host's
# kernel does not have the bug, so the order is what can be checked here.
. "$(dirname "$0")/lib.sh"
need_kvm
command -v strace >/dev/null || skip "needs strace (make deps)"
# LeakSanitizer cannot run under ptrace (asan-check): leaks are the other tests' job here.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# order LOG: "enable" / "size" for each instance file written, in order.
order() {
	sed -n 's/.*openat([^"]*"[^"]*instances\/kvm-exitstat-[0-9]*\/\([^"]*\)", O_WRONLY.*/\1/p' "$1" |
		sed -n 's/^events\/.*\/enable$/enable/p; s/^buffer_size_kb$/size/p' | uniq | tr '\n' ' '
}

strace -f -qq -e trace=openat -o "$TMP/rec.log" \
	"$KES" record -q -o "$TMP/r.dat" -- "$EXITGEN" --io 10 >/dev/null 2>"$TMP/err"
eq "record under strace: exit status" "$?" 0
eq "record: events enabled, then the buffer sized" "$(order "$TMP/rec.log")" "enable size "

strace -f -qq -e trace=openat -o "$TMP/top.log" "$KES" top --once -d 0.2 >/dev/null 2>"$TMP/err"
eq "top --once under strace: exit status" "$?" 0
eq "top: events enabled, then the buffer sized" "$(order "$TMP/top.log")" "enable size "
summary
