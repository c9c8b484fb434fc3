#!/bin/sh
# The logging unit's behaviour on a live KVM: its own command line (from
# contrib/systemd/kvm-exitstat-log.service.in) appends CSV lines, and after
# the file is moved away (as logrotate does) SIGHUP makes it start a new
# file with its header. The log is opened the root-safe way: a symlink or a
# FIFO there is refused. (units.sh checks what make install puts on a host.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
need_kvm
case $KES in /*) ;; *) KES=$PWD/$KES ;; esac
# The logging unit's command line, on a log in $TMP, with a workload.
check "the log unit's command line found" test -n "$(sed -n 's|^ExecStart=@BINDIR@/kvm-exitstat ||p' contrib/systemd/kvm-exitstat-log.service.in)"
cmd=$(sed -n "s|^ExecStart=@BINDIR@/kvm-exitstat ||p" contrib/systemd/kvm-exitstat-log.service.in |
	sed "s|/var/log/kvm-exitstat.csv|$TMP/log.csv|; s|--delay 10|--delay 0.5|")
"$EXITGEN" --io 2000 --seconds 8 --quiet >/dev/null 2>&1 &
E=$!
# shellcheck disable=SC2086
"$KES" $cmd 2>"$TMP/top.err" &
T=$!
trap 'kill $E $T 2>/dev/null; rm -rf "$TMP"' EXIT
lines() { n=$(grep -c . "$1" 2>/dev/null); [ "${n:-0}" -ge "$2" ]; }
wait_for() { i=0; while ! "$@" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done; "$@"; }
check "the log gets lines" wait_for lines "$TMP/log.csv" 3
check "the log starts with the CSV header" sh -c "head -n 1 '$TMP/log.csv' | grep -q '^timestamp\\|^time'"
mv "$TMP/log.csv" "$TMP/log.csv.1"
kill -HUP $T
check "after SIGHUP a new log" wait_for lines "$TMP/log.csv" 2
eq "the new log starts with the same header" "$(head -n 1 "$TMP/log.csv")" "$(head -n 1 "$TMP/log.csv.1")"
check "top still runs after SIGHUP" kill -0 $T
kill -TERM $T
wait $T
eq "top -L exit status after SIGTERM" "$?" 0
kill $E 2>/dev/null
wait $E 2>/dev/null
mkfifo "$TMP/fifo.csv"
ln -s "$TMP/log.csv" "$TMP/link.csv"
timeout 20 "$KES" top -a -l -L "$TMP/fifo.csv" -d 0.2 >/dev/null 2>"$TMP/fifo.err"
eq "top -L onto a FIFO: exit 1" "$?" 1
check "... says so" grep -q 'FIFO' "$TMP/fifo.err"
# A symlink in a directory others can write (as /tmp, or /var/log/kvm-exitstat made
# group-writable) is refused; elsewhere it was put there by root and is followed once.
chmod 1777 "$TMP"
timeout 20 "$KES" top -a -l -L "$TMP/link.csv" -d 0.2 >/dev/null 2>"$TMP/link.err"
eq "top -L through a symlink in a world-writable directory: exit 1" "$?" 1
check "... says so" grep -q 'symbolic link' "$TMP/link.err"
chmod 700 "$TMP"
summary
