#!/bin/sh
# arm64's exception classes by their bare names (issue 13): the rows are
# TRAP_<class> and the other exception types (IRQ, SERROR, IL) as the
# kernel's kvm_exit prints them ("TRAP: HSR_EC: 0x0024 (DABT_LOW)", "IRQ:
# HSR_EC: 0x0000 (UNKNOWN)": arch/arm64/kvm/trace_arm.h), and a bucket rule
# may name a reason as the kernel prints its class ("DABT_LOW"), through
# the `alias` lines of exit_types/arm64.types or of a user's table: data,
# no arm64 code. Expected counts: awk over the same recording's trace-cmd
# report text (tests/fixtures/lab/arm64, the lab's Debian 6.1 arm64 guest).
. tests/e2e/lib.sh
L=tests/fixtures/lab/arm64
DAT=$L/trace-cmd.dat

# per "TYPE CLASS" from the text: TRAP's rows carry the class, the others none
awk '/ kvm_exit: / { t = $0; sub(/.* kvm_exit: +/, "", t); ty = t; sub(/:.*/, "", ty)
	c = t; sub(/^[^(]*\(/, "", c); sub(/\).*/, "", c)
	n[ty == "TRAP" ? "TRAP_" c : ty]++ }
	END { for (k in n) print k, n[k] }' $L/trace-cmd.txt | sort >"$TMP/want"
check "the text has TRAP and IRQ exits" sh -c "grep -q '^TRAP_DABT_LOW ' '$TMP/want' && grep -q '^IRQ ' '$TMP/want'"
"$KES" report -i $DAT -f csv 2>/dev/null | awk -F, 'NR > 1 && $1 != "TIMEINGUEST" && $0 !~ /^#/ { print $1, $4 }' |
	sort >"$TMP/got"
eq "rows TRAP_<class> and IRQ, counts as the text's" "$(cat "$TMP/got")" "$(cat "$TMP/want")"

cnt() { awk -v k="$1" '$1 == k { print $2 }' "$TMP/want"; }
cat >"$TMP/bare.map" <<'M'
map bare
rule arm64 DABT_LOW -> MMIO
rule * HVC64 -> HCALL
rule arm64 IRQ -> HOSTIRQ
rule * * -> =
M
"$KES" report -i $DAT --buckets "$TMP/bare.map" -f csv >"$TMP/b.csv" 2>"$TMP/err"
check "bare-name map accepted: $(head -n 1 "$TMP/err")" [ -s "$TMP/b.csv" ]
row() { awk -F, -v k="$1" '$1 == k { print $4 }' "$TMP/b.csv"; }
eq "DABT_LOW -> MMIO" "$(row MMIO)" "$(cnt TRAP_DABT_LOW)"
eq "HVC64 (isa *) -> HCALL" "$(row HCALL)" "$(cnt TRAP_HVC64)"
eq "IRQ -> HOSTIRQ" "$(row HOSTIRQ)" "$(cnt IRQ)"
eq "TRAP_WFx keeps its name (=)" "$(row TRAP_WFx)" "$(cnt TRAP_WFx)"

# a typo is still one, an alias of one table is not another's
printf 'map t\nrule arm64 DABT_LOWW -> M\n' >"$TMP/typo.map"
"$KES" report -i $DAT --buckets "$TMP/typo.map" >/dev/null 2>"$TMP/err"
check "a typo refused" grep -q "arm64 has no exit named 'DABT_LOWW'" "$TMP/err"
printf 'map t\nrule x86_vmx DABT_LOW -> M\n' >"$TMP/other.map"
"$KES" report -i $DAT --buckets "$TMP/other.map" >/dev/null 2>"$TMP/err"
check "x86_vmx has no DABT_LOW" grep -q "x86_vmx has no exit named 'DABT_LOW'" "$TMP/err"

# a user's table: its own alias lines are names for its rules (the mechanism is data)
{ cat exit_types/arm64.types; echo "alias DATA_ABORT 0x224"; } >"$TMP/my.types"
printf 'map mine\nrule arm64 DATA_ABORT -> MINE\nrule * * -> =\n' >"$TMP/mine.map"
"$KES" report -i $DAT --exit-types "$TMP/my.types" --buckets "$TMP/mine.map" -f csv \
	>"$TMP/b.csv" 2>"$TMP/err"
eq "a user's alias DATA_ABORT -> MINE" "$(row MINE)" "$(cnt TRAP_DABT_LOW)"
"$KES" report -i $DAT --buckets "$TMP/mine.map" >/dev/null 2>"$TMP/err"
check "without the user's table DATA_ABORT is unknown" grep -q "no exit named 'DATA_ABORT'" "$TMP/err"

summary
