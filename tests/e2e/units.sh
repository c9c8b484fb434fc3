#!/bin/sh
# What `make install` puts on a host besides the binary: the two systemd
# units (checked by systemd-analyze verify, with their man pages found), the
# logrotate snippet (logrotate's own dry run), and the logging unit's
# behaviour: `top -L` appends CSV lines, and after the file is moved away
# (as logrotate does) SIGHUP makes it start a new file with its header.
# The log is opened the root-safe way: a symlink or a FIFO there is refused.
#
# The units are confined (issue 32): systemd-analyze security <= 4.0 for
# both, with the directives tracing allows (CapabilityBoundingSet,
# ProtectKernelModules, ProtectClock, RestrictAddressFamilies,
# SystemCallFilter, RequiresMountsFor=/sys/kernel/tracing, EnvironmentFile=
# the installed /etc/default/kvm-exitstat); and what they allow is enough:
# each unit's command, as the default file sets it, runs in a sandbox made
# here the unit's way (its capability bounding set and no new privileges,
# via setpriv; / and /sys read-only but for its ReadWritePaths, via a mount
# namespace), and every system call it made (strace -f) passes the unit's
# SystemCallFilter (tests/tools/syscall-filter.py, systemd's own groups).
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
check "/etc/default/kvm-exitstat installed" [ -f "$R/etc/default/kvm-exitstat" ]
U=$R/lib/systemd/system
for u in kvm-exitstat-serve kvm-exitstat-log; do
	for d in "RequiresMountsFor=/sys/kernel/tracing" "EnvironmentFile=-$R/etc/default/kvm-exitstat" \
		"CapabilityBoundingSet=" "ProtectKernelModules=yes" "ProtectClock=yes" \
		"RestrictAddressFamilies=" "SystemCallFilter=" "NoNewPrivileges=yes" "ProtectSystem=strict" \
		"ReadWritePaths=/sys/kernel/tracing"; do
		check "$u.service: $d" grep -q "^$d" "$U/$u.service"
	done
	if command -v systemd-analyze >/dev/null 2>&1; then
		systemd-analyze security --offline=true "$U/$u.service" >"$TMP/sec.out" 2>&1
		score=$(sed -n 's/.*Overall exposure level for .*: \([0-9.]*\) .*/\1/p' "$TMP/sec.out")
		echo "systemd-analyze security $u.service: $score"
		check "$u.service: systemd-analyze security ${score:-?} <= 4.0" \
			python3 -c "import sys; sys.exit(not 0 <= float('${score:--1}') <= 4.0)"
	fi
done
check "the log unit has no network (RestrictAddressFamilies=none, PrivateNetwork)" \
	sh -c "grep -qx 'RestrictAddressFamilies=none' '$U/kvm-exitstat-log.service' && grep -qx 'PrivateNetwork=yes' '$U/kvm-exitstat-log.service'"

# unit_cmd UNIT: its ExecStart, $VARS from the installed default file, the binary's path dropped
unit_cmd() {
	(set -a; . "$R/etc/default/kvm-exitstat"; eval "echo $(sed -n "s|^ExecStart=$R/bin/kvm-exitstat ||p" "$1")")
}
# sandbox UNIT RW-PATH... -- COMMAND...: COMMAND the way UNIT would run it: its
# CapabilityBoundingSet, no new privileges, / and /sys read-only but for the
# unit's ReadWritePaths that exist here and RW-PATH... Run in a subshell (it
# execs: COMMAND keeps the subshell's pid, for signals).
sandbox() {
	unit=$1; shift
	rw=
	while [ "$1" != -- ]; do rw="$rw $1"; shift; done
	shift
	caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$unit" | tr ' ' '\n' | grep . |
		sed 's/^CAP_//' | tr 'A-Z' 'a-z' | sed 's/^/+/' | tr '\n' , | sed 's/,$//')
	for p in $(sed -n 's/^ReadWritePaths=-\{0,1\}//p' "$unit"); do
		[ -e "$p" ] && rw="$rw $p"
	done
	exec unshare -m --propagation private sh -c '
		for p in $1; do mount --bind "$p" "$p" || exit 99; done
		mount -o remount,bind,ro / && mount -o remount,bind,ro /sys || exit 99
		c=$2
		shift 2
		exec setpriv --bounding-set -all${c:+,$c} --inh-caps -all --no-new-privs -- "$@"' \
		sh "$rw" "$caps" "$@"
}
# Writes outside the allowed paths fail in the sandbox (it is one).
(sandbox "$U/kvm-exitstat-serve.service" "$TMP" -- sh -c 'touch /etc/kes-sandbox-test') 2>/dev/null
check "sandbox: / is read-only" [ $? -ne 0 ] && [ ! -e /etc/kes-sandbox-test ]
(sandbox "$U/kvm-exitstat-serve.service" "$TMP" -- sh -c 'touch "$1/ok"' sh "$TMP")
check "sandbox: a ReadWritePaths= directory is writable" [ -e "$TMP/ok" ]
eq "sandbox: the capability bounding set is the unit's" \
	"$( (sandbox "$U/kvm-exitstat-serve.service" -- grep CapBnd /proc/self/status) | awk '{ print $2 }')" \
	"$(python3 -c 'print("%016x" % ((1 << 19) | (1 << 2)))')"

# serve, as its unit runs it (SERVE_ARGS, on a free port, with a textfile in $TMP): live,
# confined, traced by strace; every system call in the unit's filter.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
sp=$(free_port)
cmd=$(unit_cmd "$U/kvm-exitstat-serve.service" | sed "s|127.0.0.1:9477|127.0.0.1:$sp|")
eq "serve's command from SERVE_ARGS" "$cmd" "serve --listen 127.0.0.1:$sp --all --trace"
if [ "$(id -u)" = 0 ] && [ -d /sys/kernel/tracing/events/kvm ] && command -v strace >/dev/null; then
	mkdir "$TMP/tf"
	# shellcheck disable=SC2086
	sandbox "$U/kvm-exitstat-serve.service" "$TMP" -- strace -f -qq -o "$TMP/serve.st" \
		"$KES" $cmd --textfile "$TMP/tf" --interval 0.3 2>"$TMP/serve.err" &
	SB=$!
	n=0
	while [ $n -lt 50 ] && ! curl -sf -o "$TMP/m.txt" "http://127.0.0.1:$sp/metrics"; do sleep 0.2; n=$((n + 1)); done
	curl -sf -H 'Accept-Encoding: gzip' -o /dev/null "http://127.0.0.1:$sp/metrics"
	curl -sf -H 'Accept: application/openmetrics-text' -o /dev/null "http://127.0.0.1:$sp/metrics"
	sleep 0.5
	check "confined serve answers ($(head -c 200 "$TMP/serve.err"))" grep -q '^kvm_exitstat_events_total ' "$TMP/m.txt"
	check "confined serve sees KVM" grep -qx 'kvm_exitstat_collector_success 1' "$TMP/m.txt"
	check "confined serve writes its textfile" test -s "$TMP/tf/kvm_exitstat.prom"
	# $SB is strace (the sandbox execs into it): serve is its child
	kill -TERM $(pgrep -P $SB)
	wait $SB
	eq "confined serve: exit status after SIGTERM" $? 0
	sc=$(sed -n 's/^[0-9]* *\([a-z_0-9]*\)(.*/\1/p' "$TMP/serve.st" | sort -u | grep -vx execve)
	check "strace saw serve's system calls" [ -n "$sc" ]
	# shellcheck disable=SC2086
	eq "serve's system calls the unit's SystemCallFilter refuses" \
		"$(python3 tests/tools/syscall-filter.py "$U/kvm-exitstat-serve.service" $sc)" ""
	eq "... and it does refuse some (mount, ptrace)" \
		"$(python3 tests/tools/syscall-filter.py "$U/kvm-exitstat-serve.service" mount ptrace | tr '\n' ' ')" "mount ptrace "
else
	echo "NOTE: not root, no kvm tracepoints or no strace: serve not run confined"
fi
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
	sed "s|/var/log/kvm-exitstat/kvm-exitstat.csv|$TMP/log.csv|" "$R/etc/logrotate.d/kvm-exitstat" >"$TMP/lr.conf"
	: >"$TMP/log.csv"
	logrotate -d -s "$TMP/lr.state" "$TMP/lr.conf" >"$TMP/lr.out" 2>&1
	eq "logrotate -d accepts the snippet ($(grep -i error "$TMP/lr.out" | head -2))" "$?" 0
	rm -f "$TMP/log.csv"
fi

need_kvm
# The logging unit's command line (LOG_ARGS), on a log in $TMP, with a workload,
# confined as its unit would be, its system calls traced.
cmd=$(unit_cmd "$U/kvm-exitstat-log.service" |
	sed "s|/var/log/kvm-exitstat/kvm-exitstat.csv|$TMP/log.csv|; s|--delay 10|--delay 0.5|")
# A paced workload for both runs below, let go once the first one traces (a
# loaded lab host took longer to start top than an 8 s workload lasted).
"$EXITGEN" --io 200 --seconds 600 --pause-us 2000 --start-on-usr1 --quiet >/dev/null 2>&1 &
E=$!
# shellcheck disable=SC2086
sandbox "$U/kvm-exitstat-log.service" "$TMP" -- "$KES" $cmd 2>"$TMP/top.err" &
T=$!
trap 'kill $E $T 2>/dev/null; rm -rf "$TMP"' EXIT
lines() { n=$(grep -c . "$1" 2>/dev/null); [ "${n:-0}" -ge "$2" ]; }
wait_for() { i=0; while ! "$@" && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done; "$@"; }
wait_for test -d "/sys/kernel/tracing/instances/kvm-exitstat-$T"
check "confined top traces (its instance)" [ $? -eq 0 ]
kill -USR1 $E
check "the log gets lines" wait_for lines "$TMP/log.csv" 3
check "the log starts with the CSV header" sh -c "head -n 1 '$TMP/log.csv' | grep -q '^timestamp\\|^time'"
mv "$TMP/log.csv" "$TMP/log.csv.1"
kill -HUP $T
wait_for lines "$TMP/log.csv" 2
check "after SIGHUP a new log ($(head -c 300 "$TMP/top.err"))" [ $? -eq 0 ]
eq "the new log starts with the same header" "$(head -n 1 "$TMP/log.csv")" "$(head -n 1 "$TMP/log.csv.1")"
check "top still runs after SIGHUP" kill -0 $T
kill -TERM $T
wait $T
eq "top -L exit status after SIGTERM" "$?" 0
# The same command traced, for a few intervals of the workload (and a SIGHUP)
# shellcheck disable=SC2086
sandbox "$U/kvm-exitstat-log.service" "$TMP" -- strace -f -qq -o "$TMP/top.st" "$KES" \
	$(echo "$cmd" | sed "s|$TMP/log.csv|$TMP/log2.csv|") 2>"$TMP/top2.err" &
T=$!
wait_for lines "$TMP/log2.csv" 3
check "confined top -L logs ($(head -c 300 "$TMP/top2.err"))" [ $? -eq 0 ]
kill -HUP $(pgrep -P $T)
sleep 1
kill -TERM $(pgrep -P $T)
wait $T
sc=$(sed -n 's/^[0-9]* *\([a-z_0-9]*\)(.*/\1/p' "$TMP/top.st" | sort -u | grep -vx execve)
check "strace saw top's system calls" [ -n "$sc" ]
# shellcheck disable=SC2086
eq "top's system calls the log unit's SystemCallFilter refuses" \
	"$(python3 tests/tools/syscall-filter.py "$U/kvm-exitstat-log.service" $sc)" ""
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
