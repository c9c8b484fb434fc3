# shellcheck shell=sh
# valgrind.sh's and valgrind-live.sh's memcheck, sourced after tests/e2e/lib.sh.
# Slow (valgrind is ~30x), so the groups run only with VALGRIND=1 (CI sets it
# once); otherwise they run nothing and say "0 passed, 0 failed" (a SKIP line
# would count as a failure under CI=true). An ASan build cannot run under
# valgrind: nothing runs then either. Any memcheck error or definite leak
# fails (status 99).

# vg_ready: 0 when the group is to run; else its line said, summary printed
# and the status to exit with in VG_STATUS (summary's: 0 unless it failed).
vg_ready() {
	if [ "${VALGRIND:-0}" != 1 ]; then
		echo "$(basename "$0"): set VALGRIND=1 to run"
	elif grep -q __asan_init "$KES" 2>/dev/null; then
		echo "$(basename "$0"): $KES is an ASan build, which valgrind cannot run"
	elif ! command -v valgrind >/dev/null; then
		bad "VALGRIND=1 but valgrind is not installed (make deps)"
	else
		return 0
	fi
	summary
	VG_STATUS=$?
	return 1
}

# libtracecmd in report's probe child runs ~30x slower under memcheck than its 5 s allow
export KES_PROBE_SECONDS=300
# The probe child (src/input/tracedat-probe.c) is checked too: valgrind follows forks.
VG="valgrind -q --num-callers=40 --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
	--show-leak-kinds=definite --suppressions=tests/e2e/valgrind.supp"

# vg_said FILE: valgrind reported something, its notes on an ioctl it has no
# wrapper for (KVM_GET_STATS_FD, 0xaece: serve reads KVM's statistics) apart
vg_said() {
	grep '^==[0-9]*==' "$1" | grep -v -e 'unhandled ioctl' -e 'could cause spurious' \
		-e 'README_MISSING_SYSCALL_OR_IOCTL' | grep -q .
}

# vg DESC WANT CMD...: the command under memcheck must exit WANT (0, or 1 for a
# refused input) with no memcheck report.
vg() {
	d=$1 want=$2
	shift 2
	$VG "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" -eq "$want" ] && ! vg_said "$TMP/err"; then
		ok
	else
		bad "$d: status $rc, want $want"
		head -n 40 "$TMP/err"
	fi
}
