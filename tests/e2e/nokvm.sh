#!/bin/sh
# A host without KVM is said, never silent (issue 28, item 4): record and
# top refuse with one line that says so and what to run instead (they used to
# record 0 events with status 0, or wait for exits forever); serve says it
# once and goes on serving. The host without KVM is made here whatever this
# machine has: a private mount namespace with a /dev that has no kvm node and
# an empty /sys/class/misc (where the kernel lists its kvm device).
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root"
command -v unshare >/dev/null || skip "needs unshare (util-linux)"
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || skip "needs tracefs"
KES=$(cd "$(dirname "$KES")" && pwd)/$(basename "$KES")

# nokvm CMD...: CMD where this host has no KVM (unshare and sh exec it:
# the same pid, so that $! of `nokvm ... &` is CMD's).
NOKVM='mount --make-rprivate / &&
	mount -t tmpfs -o size=64k tmpfs /dev && mknod -m 666 /dev/null c 1 3 &&
	mount -t tmpfs -o size=64k tmpfs /sys/class/misc || exit 99
	exec "$@"'
nokvm() { unshare -m sh -c "$NOKVM" sh "$@"; }
line="this host has no KVM"
for cmd in "record -a -d 1 -o $TMP/r.dat" "record -o $TMP/r.dat -- true" "top --once -d 1" "top -l -c -d 1"; do
	# shellcheck disable=SC2086
	nokvm "$KES" $cmd >"$TMP/out" 2>"$TMP/err"
	rc=$?
	eq "$cmd: status" "$rc" 1
	eq "$cmd: one stderr line" "$(wc -l <"$TMP/err")" 1
	check "$cmd: it says the host has no KVM and what to run ($(cat "$TMP/err"))" \
		grep -q "$line.*make demo" "$TMP/err"
	check "$cmd: nothing on stdout" test ! -s "$TMP/out"
	check "$cmd: no recording" test ! -e "$TMP/r.dat"
done
# The same commands where KVM is not the question: their own errors first.
nokvm "$KES" record --bogus >/dev/null 2>"$TMP/err"
check "record --bogus: the option's error, not KVM's" grep -q "bogus" "$TMP/err"

# serve: a warning line, and it serves.
port=$((20000 + $$ % 20000))
unshare -m sh -c "$NOKVM" sh "$KES" serve --listen 127.0.0.1:$port >"$TMP/sout" 2>"$TMP/serr" &
sp=$!
i=0
while ! grep -q serving "$TMP/serr" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
check "serve: says the host has no KVM ($(head -n 1 "$TMP/serr"))" grep -q "serve: $line" "$TMP/serr"
if command -v curl >/dev/null; then
	check "serve: /metrics answers" sh -c "curl -sf http://127.0.0.1:$port/metrics | grep -q '^kvm_exitstat_'"
fi
kill "$sp" 2>/dev/null
wait "$sp" 2>/dev/null
check "serve: ended by SIGTERM" sh -c "! kill -0 $sp 2>/dev/null"
check "no tracefs instance left" sh -c '! ls /sys/kernel/tracing/instances | grep -q "^kvm-exitstat-$sp$"'
summary
