#!/bin/sh
# The PV demo on real KVM: record exitgen non-PV and PV, diff them, and
# compare with the counts exitgen itself printed: the userspace exits
# (--source userspace) and, where kvm_exit fires, the kvm_exit table's io
# rows (every `out` exits to the kernel once: io = KVM_EXIT_IO).
. tests/e2e/lib.sh
need_kvm
# csv FIELD NAME FILE: a field of the row NAME of a diff CSV (header names the fields)
csv() {
	awk -F, -v f="$1" -v n="$2" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == n { print $col[f]; exit }' "$3"
}
# --- the PV demo on real KVM ----------------------------------------------------------
[ -x "$EXITGEN" ] || skip "no exitgen at $EXITGEN"
run() { # name exitgen-args...
	n=$1
	shift
	$KES record -q -o "$TMP/$n.dat" -- "$EXITGEN" "$@" >"$TMP/$n.out" 2>"$TMP/$n.err"
	eq "record $n: exit status" $? 0
	sed -n 's/^total KVM_EXIT_IO \([0-9]*\) .*/\1/p' "$TMP/$n.out"
}
# 100000 operations, not 20000: with 20000 the PV run has only 314 exits, and
# on a loaded host a few preempted guest periods (tens of ms) can hide even an
# 8x change of TIMEINGUEST from the t-test (seen: p 0.15). With 1564 PV exits
# p stayed below 1e-8 in every run, at load 3.5 on 2 CPUs.
nopv=$(run nopv --io 100000 --mode nopv)
pv=$(run pv --io 100000 --mode pv --batch 64)
check "exitgen printed its counts" test -n "$nopv" -a -n "$pv"
$KES diff -f csv --source userspace "$TMP/nopv.dat" "$TMP/pv.dat" >"$TMP/demo" 2>"$TMP/demo.err"
eq "demo: exit status" $? 0
eq "demo: KVM_EXIT_IO count A = exitgen's" "$(csv count_a KVM_EXIT_IO "$TMP/demo")" "$nopv"
eq "demo: KVM_EXIT_IO count B = exitgen's" "$(csv count_b KVM_EXIT_IO "$TMP/demo")" "$pv"
check "demo: PV makes fewer IO exits" test "$pv" -lt "$nopv"
# What PV changes is how long the guest runs between exits (64 operations per
# doorbell instead of one): TIMEINGUEST's average grows 5-10x. The VMM's cost
# per KVM_EXIT_IO stays the same, so that row's p-value is whatever the noise
# makes it (0.002, 0.97, 0.76, 4e-13 in four runs): asserting on it would flake.
# Where kvm_exit fires here (the lab host: x86-svm under QEMU's TCG) the time
# in guest between two exits is QEMU emulating the world switch (~70-120 us,
# stddev ~2 ms, in both modes) whatever the guest does, and 64 queued stores
# add next to nothing: the t-test there sees noise (p 0.2-0.25 on 100,001 vs
# 1,564 exits, measured), so the significance is asserted where the guest
# runs on the CPU itself.
if [ -z "$EXIT_RULES" ]; then
	check "demo: TIMEINGUEST change marked significant" test -n "$(csv mark TIMEINGUEST "$TMP/demo")"
fi
check "demo: TIMEINGUEST has a p-value" test -n "$(csv p_value TIMEINGUEST "$TMP/demo")"
check "demo: KVM_EXIT_IO has a p-value" test -n "$(csv p_value KVM_EXIT_IO "$TMP/demo")"
check "demo: total time drops" test "$(csv delta_sum KVM_EXIT_IO "$TMP/demo" | cut -c1)" = -
$KES diff --source userspace "$TMP/nopv.dat" "$TMP/pv.dat" --svg "$TMP/demo.svg" >"$TMP/demo.table"
check "demo: table names KVM_EXIT_IO" grep -q '^KVM_EXIT_IO ' "$TMP/demo.table"
check "demo: the SVG is written" test -s "$TMP/demo.svg"
if [ -n "$EXIT_RULES" ]; then
	$KES diff -f csv --source exits "$TMP/nopv.dat" "$TMP/pv.dat" >"$TMP/exits" 2>"$TMP/exits.err"
	eq "demo, kvm_exit: exit status" $? 0
	eq "demo, kvm_exit: io count A = exitgen's KVM_EXIT_IO" "$(csv count_a io "$TMP/exits")" "$nopv"
	eq "demo, kvm_exit: io count B = exitgen's KVM_EXIT_IO" "$(csv count_b io "$TMP/exits")" "$pv"
	check "demo, kvm_exit: io has a p-value" test -n "$(csv p_value io "$TMP/exits")"
	$KES diff -f csv "$TMP/nopv.dat" "$TMP/pv.dat" >"$TMP/auto" 2>/dev/null
	check "demo: the default (auto) is the kvm_exit table where kvm_exit fired" cmp -s "$TMP/auto" "$TMP/exits"
fi
summary
