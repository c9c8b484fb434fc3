#!/bin/sh
# The kvm_exit path on real kernels' recordings, without QEMU: each
# tests/fixtures/lab/<ISA>/ holds one run of exitgen inside a Debian kernel
# under the lab (tests/lab), recorded at once by our record (v6) and by
# Debian's trace-cmd (v7, zstd), plus trace-cmd's text of its file. Every
# input must give exitgen's counts through the ISA's .expect rules (the
# lab's own checks, tests/lab/checklib.sh), the three must agree, and the
# bugs these kernels showed must stay fixed: userspace exits timed where no
# kvm_fpu exists, the header's untimed count of the shown table only, v7
# losses read from the file. Needs neither root nor KVM.
. "$(dirname "$0")/lib.sh"
LAB=tests/lab
. "$LAB/checklib.sh"
FIX=tests/fixtures/lab

# rep IN ARGS...: a report into $TMP/out, its stderr checked empty.
rep() {
	_in=$1
	shift
	"$KES" report -i "$_in" "$@" >"$TMP/out" 2>"$TMP/err"
	eq "report $(basename "$(dirname "$_in")")/$(basename "$_in") $*: exit status" "$?" 0
	eq "report $(basename "$(dirname "$_in")")/$(basename "$_in") $*: stderr" "$(cat "$TMP/err")" ""
}

for fx in "$FIX"/*/; do
	# ppc_book3s_*/ and riscv64/ hold the lab's first layout (small.*), checked by
	# labfixtures.sh and lab-riscv64.sh.
	[ -f "$fx/exitgen.out" ] || continue
	isa=$(basename "$fx")
	EXPECT=$LAB/isa/$isa.expect
	eg=$fx/exitgen.out
	check "$isa: $EXPECT exists" test -f "$EXPECT"
	check "$isa: exitgen's run was as it predicted" grep -q '^total ' "$eg"
	vcpus=$(eg_vars "$eg" | sed -n 's/^vcpus=//p')
	check "$isa: 2+ vCPUs" [ "${vcpus:-0}" -ge 2 ]
	# trace-cmd's own reader on its own file: the userspace exits no return follows.
	open_u=$(text_untimed_uexits "$fx/trace-cmd.txt")

	for inp in kvm-exitstat.dat trace-cmd.dat trace-cmd.txt; do
		f=$fx/$inp
		rep "$f" -f csv --source exits
		cp "$TMP/out" "$TMP/$isa-$inp.exits.csv"
		exits_match "$TMP/out" "$eg" "$isa $inp: kvm_exit"
		rep "$f" -f csv --source userspace
		user_match "$TMP/out" "$eg" "$isa $inp: userspace"
		eq "$isa $inp: untimed userspace exits (trace-cmd's text: $open_u)" \
			"$(awk -F, 'NR > 1 && $2 == -1 { s += $5 } END { print s + 0 }' "$TMP/out")" "$open_u"
		timed=$(awk -F, 'NR > 1 && $2 == -1 && $1 != "TIMEINGUEST" { s += $18 } END { print s + 0 }' "$TMP/out")
		check "$isa $inp: userspace exits have handling times ($timed)" [ "$timed" -gt 0 ]
		rep "$f"
		hdr=$(sed -n 's/^# \([0-9]*\) exits at the trace edges.*/\1/p' "$TMP/out")
		eq "$isa $inp: header's untimed exits (the shown table's: each vCPU's last)" "${hdr:-0}" "$vcpus"
		case $inp in
		*.dat) check "$isa $inp: losses known, none" grep -q '^# lost events: 0$' "$TMP/out" ;;
		esac
	done
	ours=$(rows "$TMP/$isa-kvm-exitstat.dat.exits.csv" | cut -f1,2 | sort)
	eq "$isa: trace-cmd's file and ours, reason by reason" \
		"$(rows "$TMP/$isa-trace-cmd.dat.exits.csv" | cut -f1,2 | sort)" "$ours"
	eq "$isa: trace-cmd's text and our file, reason by reason" \
		"$(rows "$TMP/$isa-trace-cmd.txt.exits.csv" | cut -f1,2 | sort)" "$ours"

	f=$fx/kvm-exitstat.dat
	vars=$(eg_vars "$eg")
	rep "$f" -f csv --buckets ppc
	match_rows "$isa: --buckets ppc" "$(rows "$TMP/out")" "$(expected "$vars" bucket:)" strict >"$V"; apply
	rep "$f" -f csv --by-sub
	match_rows "$isa: --by-sub" "$(rows "$TMP/out" sub)" "$(expected "$vars" sub:)" >"$V"; apply
	S=$TMP
	rep "$f" -f csv --per-vcpu
	cp "$TMP/out" "$TMP/pv.csv"
	per_vcpu "$isa" "$TMP/pv.csv" exits "$eg"
	rep "$f" -f csv --per-vcpu --source userspace
	cp "$TMP/out" "$TMP/upv.csv"
	per_vcpu "$isa" "$TMP/upv.csv" userspace "$eg"

	# trace-cmd reads our file of the real kernel with its own counts and times.
	if command -v trace-cmd >/dev/null; then
		trace-cmd report "$f" >"$TMP/ours.txt" 2>/dev/null
		n=$(rows "$TMP/$isa-kvm-exitstat.dat.exits.csv" | awk -F"$TAB" '$1 != "TIMEINGUEST" { s += $2 } END { print s + 0 }')
		eq "$isa: trace-cmd report counts our file's kvm_exit events" "$(kvm_exit_lines "$TMP/ours.txt")" "$n"
		eq "$isa: trace-cmd report lines of our file without a seconds timestamp" \
			"$(grep -v '^cpus=' "$TMP/ours.txt" | grep -cvE '\[[0-9]+\] +[0-9]+\.[0-9]+: ')" 0
	fi
done
summary
