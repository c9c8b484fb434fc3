#!/bin/sh
# Runs every unit test binary and every end-to-end script, adds up their
# "N passed, N failed" lines and ends with the total. Exit status: 0 only when
# nothing failed (and, under CI=true, nothing was skipped).
O=${O:-build}
KES=${KES:-./kvm-exitstat}
EXITGEN=${EXITGEN:-$O/exitgen}
export O KES EXITGEN
pass=0 fail=0 skip=0 nokvm=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

tally() { # name, command...
	name=$1; shift
	"$@" >"$log" 2>&1
	rc=$?
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	p=$(echo "$line" | sed -n 's/.*\b\([0-9][0-9]*\) passed.*/\1/p')
	f=$(echo "$line" | sed -n 's/.* \([0-9][0-9]*\) failed.*/\1/p')
	s=$(grep -c '^SKIP' "$log")
	# a machine without /dev/kvm (a guest whose KVM module did not bind) cannot run these
	[ -e /dev/kvm ] || nokvm=$((nokvm + $(grep -c '^SKIP.*/dev/kvm' "$log")))
	[ -n "$p" ] || p=0
	[ -n "$f" ] || f=0
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi  # crashed before its summary
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	if [ "$f" -ne 0 ] || [ "${VERBOSE:-0}" = 1 ]; then cat "$log"; fi
	grep '^SKIP' "$log"
	printf '%-28s %s passed, %s failed (rc %s)\n' "$name" "$p" "$f" "$rc"
}

for t in "$O"/tests/test_*; do
	[ -x "$t" ] || continue
	tally "$(basename "$t")" "$t"
done
for t in tests/lint/*.sh tests/e2e/*.sh; do
	[ "$(basename "$t")" = lib.sh ] && continue
	tally "$(basename "$t")" sh "$t"
done

# Under CI nothing may be skipped (a missing dependency is a failure), but
# for the tests that need a host KVM on a machine that has none: said, not
# failed, as the lab still runs the tool in real kernels' KVM under QEMU.
if [ "$nokvm" -ne 0 ]; then
	echo "$nokvm test group(s) skipped: this machine has no /dev/kvm; what needs a host KVM did not run"
fi
if [ "$((skip - nokvm))" -ne 0 ] && [ "${CI:-}" = true ]; then
	echo "$((skip - nokvm)) test group(s) skipped: CI must run them all"
	fail=$((fail + skip - nokvm))
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
