#!/bin/sh
# What `make install` puts on a host besides the binary: the two systemd
# units (checked by systemd-analyze verify, with their man pages found), the
# logrotate snippet (logrotate's own dry run), and the logging unit's
# behaviour: `top -L` appends CSV lines, and after the file is moved away
# (as logrotate does) SIGHUP makes it start a new file with its header.
# The log is opened the root-safe way: a symlink or a FIFO there is refused.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
case $KES in /*) ;; *) KES=$PWD/$KES ;; esac
R=$TMP/p
make -s install DESTDIR= PREFIX="$R" SYSCONFDIR="$R/etc" BIN="${KES#$PWD/}" >"$TMP/install.out" 2>&1
eq "make install" "$?" 0
for u in kvm-exitstat-serve kvm-exitstat-log; do
	check "$u.service installed" [ -f "$R/lib/systemd/system/$u.service" ]
	check "$u.service runs the installed binary" grep -q "^ExecStart=$R/bin/kvm-exitstat " "$R/lib/systemd/system/$u.service"
done
check "logrotate snippet installed" [ -f "$R/etc/logrotate.d/kvm-exitstat" ]
check "man page kvm-exitstat-serve(1) installed" [ -f "$R/share/man/man1/kvm-exitstat-serve.1" ]
if command -v systemd-analyze >/dev/null 2>&1; then
	for u in kvm-exitstat-serve kvm-exitstat-log; do
		MANPATH="$R/share/man" systemd-analyze verify "$R/lib/systemd/system/$u.service" >"$TMP/verify.out" 2>&1
		rc=$?
		# A host without systemd as init (a container) has no sysinit.target to pull in.
		grep -v 'Unit sysinit.target not found' "$TMP/verify.out" >"$TMP/verify.rest"
		check "systemd-analyze verify $u.service ($(head -c 300 "$TMP/verify.rest"))" \
			sh -c "[ ! -s '$TMP/verify.rest' ] && { [ $rc -eq 0 ] || grep -q sysinit.target '$TMP/verify.out'; }"
	done
	# and it does find faults: a unit whose binary is missing
	sed "s|$R/bin/kvm-exitstat|$R/bin/missing|" "$R/lib/systemd/system/kvm-exitstat-serve.service" \
		>"$TMP/broken.service"
	MANPATH="$R/share/man" systemd-analyze verify "$TMP/broken.service" >"$TMP/verify2.out" 2>&1
	check "systemd-analyze verify catches a missing binary" grep -q 'is not executable' "$TMP/verify2.out"
else
	echo "SKIP: systemd-analyze not installed: units not verified"
fi
if command -v logrotate >/dev/null 2>&1; then
	sed "s|/var/log/kvm-exitstat.csv|$TMP/log.csv|" "$R/etc/logrotate.d/kvm-exitstat" >"$TMP/lr.conf"
	: >"$TMP/log.csv"
	logrotate -d -s "$TMP/lr.state" "$TMP/lr.conf" >"$TMP/lr.out" 2>&1
	eq "logrotate -d accepts the snippet ($(grep -i error "$TMP/lr.out" | head -2))" "$?" 0
	rm -f "$TMP/log.csv"
fi

need_kvm
# The logging unit's command line, on a log in $TMP, with a workload.
cmd=$(sed -n "s|^ExecStart=$R/bin/kvm-exitstat ||p" "$R/lib/systemd/system/kvm-exitstat-log.service" |
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
