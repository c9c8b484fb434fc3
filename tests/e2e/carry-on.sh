#!/bin/sh
# report and diff let the libtracecmd probe child carry on as the command
# (src/input/tracedat-probe.c, tracedat_probe_carry_on()): the fast path's
# trace.dat is opened by libtracecmd once, not twice, and the process the
# caller started only waits, passes signals on and ends as the child ended.
# Also: a caller's SIGCHLD ignored does not keep the probe from its verdict
# (src/cli/cli.c, own_children()).
. tests/e2e/lib.sh
FIX=tests/fixtures
DAT=$FIX/real/exitgen-v6.dat
SW=tests/tools/stuck-writer.py

# libtracecmd reads the file's magic once per open ("tracing", 7 bytes after
# the first 3): once on the fast path; twice where the probe child reads the
# records before the parent does (KES_NO_FASTPATH=1), which shows the count
# is of what it means to count.
if command -v strace >/dev/null 2>&1; then
	opens() {
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -e trace=read \
			-s 8 -o "$TMP/strace" "$@" >"$TMP/out" 2>&1
		grep -c 'read([0-9]*, "tracing", 7)' "$TMP/strace"
	}
	eq "report: libtracecmd opens the trace.dat once" "$(opens "$KES" report -i "$DAT")" 1
	eq "report, KES_NO_FASTPATH=1: the probe child's open, then the report's" \
		"$(opens env KES_NO_FASTPATH=1 "$KES" report -i "$DAT")" 2
	eq "diff of two trace.dat: the first once, the second probed as before" \
		"$(opens "$KES" diff "$DAT" "$FIX/real/exitgen-v7.dat")" 3
else
	bad "strace is not installed (make deps)"
fi

# The same tables as the probe's way: the reports are the libtracecmd path's.
"$KES" report -i "$DAT" -f csv >"$TMP/fast.csv" 2>"$TMP/err"
eq "report: exit status" "$?" 0
KES_NO_FASTPATH=1 "$KES" report -i "$DAT" -f csv >"$TMP/lib.csv"
check "report: the table libtracecmd's records give" cmp -s "$TMP/fast.csv" "$TMP/lib.csv"
check "report: nothing on stderr" test ! -s "$TMP/err"

# A refusal is the parent's one line, as before: the child's open failed.
"$KES" report -i "$FIX/bad/input/truncated-cpu-data.dat" >"$TMP/out" 2>"$TMP/err"
eq "a file libtracecmd cannot open: exit status" "$?" 1
eq "a file libtracecmd cannot open: one line" "$(wc -l <"$TMP/err")" 1

# Started with SIGCHLD ignored (a caller's SIG_IGN is inherited through exec),
# the kernel would reap the probe child before its status is read: a good
# file was refused ("waitpid: No child processes"). Both ways of probing.
ignored() { # CMD...: CMD run with SIGCHLD ignored
	python3 -c 'import signal, subprocess, sys
sys.exit(subprocess.run(sys.argv[1:], preexec_fn=lambda: signal.signal(signal.SIGCHLD, signal.SIG_IGN)).returncode)' "$@"
}
for fp in 0 1; do
	KES_NO_FASTPATH=$fp ignored "$KES" report -i "$DAT" -f csv >"$TMP/ign.csv" 2>"$TMP/err"
	eq "SIGCHLD ignored (KES_NO_FASTPATH=$fp): exit status" "$?" 0
	check "SIGCHLD ignored (KES_NO_FASTPATH=$fp): the same table ($(head -c 120 "$TMP/err"))" \
		cmp -s "$TMP/ign.csv" "$TMP/fast.csv"
done

# Short of descriptors (issue 29): the child that carries on could not keep its
# stderr (EMFILE), pointed it at /dev/null anyway and carried on as the command,
# whose error then went nowhere: with `ulimit -n 8` report and diff exited 1 and
# printed nothing. Now every limit gives the report, or one line and a status.
# The shell's own redirections count: files, not pipes.
# fd_limit N FASTPATH ARGS...: the command under ulimit -n N; "ok" for a report (status
# 0, stdout, no line on stderr but diff's note), else what was wrong.
fd_limit() {
	n=$1 fp=$2
	shift 2
	(ulimit -n "$n" && KES_NO_FASTPATH=$fp exec "$KES" "$@") >"$TMP/fd.out" 2>"$TMP/fd.err"
	rc=$?
	if [ "$rc" -eq 0 ]; then
		[ -s "$TMP/fd.out" ] && ! grep -qv 'kvm_exit never fired' "$TMP/fd.err" && echo ok && return
	elif [ "$rc" -lt 128 ] && [ ! -s "$TMP/fd.out" ] && [ "$(wc -l <"$TMP/fd.err")" -eq 1 ] &&
		grep -q '^kvm-exitstat: .*[Tt]oo many open files' "$TMP/fd.err"; then
		echo ok
		return
	fi
	echo "status $rc, $(wc -c <"$TMP/fd.out") bytes out, stderr '$(head -c 160 "$TMP/fd.err")'"
}
for n in 6 7 8 9 10 12; do
	for fp in 0 1; do
		eq "ulimit -n $n, KES_NO_FASTPATH=$fp: report, or one line saying why" \
			"$(fd_limit $n $fp report -i "$DAT")" ok
		eq "ulimit -n $n, KES_NO_FASTPATH=$fp: diff, or one line saying why" \
			"$(fd_limit $n $fp diff "$DAT" "$FIX/real/exitgen-v7.dat")" ok
	done
done
eq "ulimit -n 8: report refused in one line" "$(fd_limit 8 0 report -i "$DAT"; cat "$TMP/fd.err")" \
	"ok
kvm-exitstat: '$DAT': cannot check the file: the checking process: Too many open files"

# Signals: report stuck writing its SVG into a FIFO nobody reads.
stuck() { # ACTION: what stuck-writer.py says
	rm -f "$TMP/fifo"
	python3 "$SW" "$TMP/fifo" "$1" "$KES" report -i "$DAT" --svg "$TMP/fifo"
}
eq "SIGTERM to report: report dies of it, its child with it" \
	"$(stuck term)" "status -15 children 1 left 0"
eq "SIGKILL to report: the child dies with it (PR_SET_PDEATHSIG)" \
	"$(stuck kill)" "status -9 children 1 left 0"
eq "the child killed by a signal: report dies of the same one" \
	"$(stuck usr1-child)" "status -10 children 1 left 0"

summary
