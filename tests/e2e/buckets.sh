#!/bin/sh
# report --buckets: the KVM-PPC timing buckets through the CLI. Per ISA, a
# trace.dat built from real format files must give the hand-computed buckets
# of tests/fixtures/buckets/ISA.expect; --per-vcpu tables must add up to the
# whole exactly; a user's map is read at run time; a bad map is rejected
# with its line number. buckets-live.sh does the same on a fresh recording.
. "$(dirname "$0")/lib.sh"
FIX=tests/fixtures/buckets
MKDAT=${MKDAT:-${O:-build}/tests/tools/mkdat}

check "mkdat at $MKDAT" test -x "$MKDAT"

# csv FILE: "name timed untimed sum" of the whole run's rows (sum in ns; count is every exit).
whole() { awk -F, 'NR > 1 && $2 == -1 { printf "%s %d %d %.0f\n", $1, $4 - $5, $5, $8 }' "$1" | sort; }
# expect ISA: the same from the .expect file's "tid *" lines.
expect() { awk '!/^#/ && NF >= 5 && $2 == "*" { print $1, $3, $4, $5 }' "$FIX/$1.expect" | sort; }
# per_vcpu_sum CSV: the per-thread rows added up by name, in the same form.
per_vcpu_sum() {
	awk -F, 'NR > 1 && $2 != -1 { c[$1] += $4 - $5; u[$1] += $5; s[$1] += $8 }
		END { for (n in c) printf "%s %d %d %.0f\n", n, c[n], u[n], s[n] }' "$1" | sort
}

for ev in "$FIX"/*.events; do
	isa=$(basename "$ev" .events)
	fargs=
	for s in $(sed -n 's/^# formats: //p' "$ev"); do fargs="$fargs -f $s"; done
	# shellcheck disable=SC2086
	"$MKDAT" -o "$TMP/$isa.dat" $fargs "$ev"
	eq "$isa: fixture built" "$?" 0
	"$KES" report -i "$TMP/$isa.dat" --buckets ppc -u ns -f csv >"$TMP/$isa.csv" 2>"$TMP/err"
	eq "$isa: report status" "$?" 0
	eq "$isa: buckets = hand-computed" "$(whole "$TMP/$isa.csv")" "$(expect "$isa")"
	"$KES" report -i "$TMP/$isa.dat" --buckets ppc --per-vcpu -u ns -f csv >"$TMP/$isa.pv" 2>"$TMP/err"
	eq "$isa: --per-vcpu status" "$?" 0
	check "$isa: several vCPU threads" test "$(awk -F, 'NR > 1 && $2 != -1 { print $2 }' "$TMP/$isa.pv" | sort -u | wc -l)" -ge 2
	eq "$isa: per-vCPU tables add up to the whole" "$(per_vcpu_sum "$TMP/$isa.pv")" "$(whole "$TMP/$isa.pv")"
done

# The ppc table format carries the bucket names.
"$KES" report -i "$TMP/x86_vmx.dat" --buckets ppc >"$TMP/ppc.txt"
check "ppc format: DTLBVIRT row" grep -q '^DTLBVIRT count 3 ' "$TMP/ppc.txt"
check "ppc format: ITLBVIRT row" grep -q '^ITLBVIRT count 3 ' "$TMP/ppc.txt"
check "ppc format: OTHER(...) row" grep -q '^OTHER(PAUSE_INSTRUCTION) count 1 ' "$TMP/ppc.txt"
# native: the same table as without --buckets.
"$KES" report -i "$TMP/x86_vmx.dat" -u ns -f csv >"$TMP/plain.csv"
"$KES" report -i "$TMP/x86_vmx.dat" --buckets native -u ns -f csv >"$TMP/native.csv"
eq "native map = no map" "$(whole "$TMP/native.csv")" "$(whole "$TMP/plain.csv")"

# A user's own map, read at run time.
cat >"$TMP/my.map" <<'EOF'
map mine
# every VM exit that ran the instruction emulator, whatever else it did
rule userspace *  emulate -> EMULATED
rule *         *          -> NOT_EMULATED
EOF
"$KES" report -i "$TMP/userspace.dat" --buckets "$TMP/my.map" -u ns -f csv >"$TMP/my.csv" 2>"$TMP/err"
eq "user map: status" "$?" 0
eq "user map: rows" "$(whole "$TMP/my.csv")" "$(printf '%s\n' 'EMULATED 3 1 1800' 'NOT_EMULATED 3 1 700' \
	'TIMEINGUEST 8 0 3600' | sort)"

# Raw bits of a detail's value: kvm_page_fault error codes with bit 3 set.
# x86_vmx.events has six faults (0x14 0x2 0x19a 0x184 0x15 0x4): only 0x19a
# (103's EPT_VIOLATION 8100-8600) has it.
cat >"$TMP/bits.map" <<'EOF'
map bits
rule x86_vmx * page_fault&0x8  -> BIT3
rule x86_vmx * page_fault&!0x8 -> NO_BIT3
rule *       *                 -> =
EOF
"$KES" report -i "$TMP/x86_vmx.dat" --buckets "$TMP/bits.map" -u ns -f csv >"$TMP/bits.csv" 2>"$TMP/err"
eq "value test map: status" "$?" 0
eq "value test map: rows" "$(whole "$TMP/bits.csv" | grep BIT3)" \
	"$(printf '%s\n' 'BIT3 1 0 500' 'NO_BIT3 5 0 4400')"
# page_fault/fetch is gone (no one bit is a fetch on every exit): say what to write.
printf 'map old\nrule x86_vmx * page_fault/fetch -> ITLB\n' >"$TMP/old.map"
"$KES" report -i "$TMP/x86_vmx.dat" --buckets "$TMP/old.map" >"$TMP/out" 2>"$TMP/err"
eq "page_fault/fetch: status" "$?" 1
eq "page_fault/fetch: message" "$(cat "$TMP/err")" \
	"kvm-exitstat: $TMP/old.map:2: detail page_fault has no flag (test the bits of its error_code: page_fault&MASK)"

# A malformed map: one line on stderr with the file's line number, status 1.
printf 'map bad\nrule * * -> X\n\nrule x86_vmx * mmoi -> Y\n' >"$TMP/bad.map"
"$KES" report -i "$TMP/x86_vmx.dat" --buckets "$TMP/bad.map" >"$TMP/out" 2>"$TMP/err"
eq "bad map: status" "$?" 1
eq "bad map: message" "$(cat "$TMP/err")" \
	"kvm-exitstat: $TMP/bad.map:4: unknown detail 'mmoi' (want mmio, pio, emulate, hypercall, msr, page_fault, halt, nested_exit, nested_inject, nested_enter)"
eq "bad map: no report" "$(wc -c <"$TMP/out")" 0
printf 'map typo\nrule x86_vmx EPT_MISCONFIGG -> MMIO\n' >"$TMP/typo.map"
"$KES" report -i "$TMP/x86_vmx.dat" --buckets "$TMP/typo.map" 2>"$TMP/err" >/dev/null
eq "typo in a reason: status" "$?" 1
eq "typo in a reason: message" "$(cat "$TMP/err")" \
	"kvm-exitstat: $TMP/typo.map:2: x86_vmx has no exit named 'EPT_MISCONFIGG'"
"$KES" report -i "$TMP/x86_vmx.dat" --buckets ppcc 2>"$TMP/err" >/dev/null
eq "unknown map: status" "$?" 1
check "unknown map: lists the built-in maps" grep -q "'ppcc': not a built-in map (native, ppc)" "$TMP/err"

# A real capture (exitgen --io 20 --mmio 10 --hlt 5 --vcpus 2 on this kind of
# host): every `out` is emulated, so KVM_EXIT_IO is EMULINST; timed + untimed
# = exitgen's counts (each vCPU's final "done" IO exit is untimed).
eg_total() { awk -v k="$1" '$1 == "total" { for (i = 2; i < NF; i++) if ($i == k) print $(i + 1) }' "$2"; }
# bucket_n CSV NAME: count (every exit) of one bucket of the whole run.
bucket_n() { awk -F, -v n="$2" '$1 == n && $2 == -1 { print $4 }' "$1"; }
T=tests/fixtures/text
"$KES" report -i "$T/trace.dat" --buckets ppc -f csv >"$TMP/cap.csv"
eq "capture: EMULINST = KVM_EXIT_IO" "$(bucket_n "$TMP/cap.csv" EMULINST)" "$(eg_total KVM_EXIT_IO "$T/exitgen.out")"
eq "capture: MMIO = KVM_EXIT_MMIO" "$(bucket_n "$TMP/cap.csv" MMIO)" "$(eg_total KVM_EXIT_MMIO "$T/exitgen.out")"
eq "capture: HALT = KVM_EXIT_HLT" "$(bucket_n "$TMP/cap.csv" HALT)" "$(eg_total KVM_EXIT_HLT "$T/exitgen.out")"
eq "capture: nothing else" "$(awk -F, 'NR > 1 { print $1 }' "$TMP/cap.csv" | sort | tr '\n' ' ')" \
	"EMULINST HALT MMIO TIMEINGUEST "
summary
