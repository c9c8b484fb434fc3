#!/bin/sh
# report --by-guest on the lab's real recordings (every ISA the lab has) and a
# published trace: each pc's exit count must equal an awk count of the same
# trace's text (trace-cmd report of the same run), whatever the input's kind;
# symbols from a System.map, a kallsyms copy and an ELF must name the symbol
# awk finds for each pc (the largest code-symbol start at or below it); the
# kernel/user split must equal awk's count of pcs at or above the ISA's
# kernel address; bad symbol files get one line and a non-zero exit.
. "$(dirname "$0")/lib.sh"
L=tests/fixtures/lab

# pcs_of TEXT EVENT PATTERN: "pc count" of each exit line's pc (PATTERN: the
# text before the hex digits), sorted; hex without 0x and leading zeros.
pcs_of() {
	awk -v ev="$2" -v pat="$3" 'index($0, " " ev ":") {
		i = index($0, pat); if (!i) next
		s = substr($0, i + length(pat)); sub(/^0x/, "", s); match(s, /^[0-9a-fA-F]+/)
		h = tolower(substr(s, 1, RLENGTH)); sub(/^0+/, "", h); if (h == "") h = "0"
		n[h]++ } END { for (h in n) print h, n[h] }' "$1" | sort
}
# tool_pcs INPUT: the same from report --by-guest -f csv (counts summed over reasons).
tool_pcs() {
	"$KES" report --by-guest -f csv "$1" | awk -F, 'NR > 1 && $2 ~ /^0x/ {
		h = substr($2, 3); n[h] += $3 } END { for (h in n) print h, n[h] }' | sort
}

check_isa() { # NAME TEXT EVENT PATTERN INPUT...
	name=$1 text=$2 ev=$3 pat=$4; shift 4
	want=$(pcs_of "$text" "$ev" "$pat")
	check "$name: the text has exits with a pc" [ -n "$want" ]
	for in in "$@"; do
		eq "$name: pcs and counts of $(basename "$in")" "$(tool_pcs "$in")" "$want"
	done
}

check_isa x86-svm $L/x86-svm/trace-cmd.txt kvm_exit "rip " \
	$L/x86-svm/trace-cmd.txt $L/x86-svm/trace-cmd.dat
check_isa arm64 $L/arm64/trace-cmd.txt kvm_exit "PC: " $L/arm64/trace-cmd.txt $L/arm64/trace-cmd.dat
check_isa riscv64 $L/riscv64/trace-cmd.txt kvm_exit "SEPC:" \
	$L/riscv64/trace-cmd.txt $L/riscv64/trace-cmd.dat
check_isa ppc_book3s_hv $L/ppc_book3s_hv/small.txt kvm_guest_exit "pc=" \
	$L/ppc_book3s_hv/small.txt $L/ppc_book3s_hv/small.dat
check_isa ppc_book3s_pr $L/ppc_book3s_pr/small.txt kvm_exit "pc=" \
	$L/ppc_book3s_pr/small.txt $L/ppc_book3s_pr/small.dat
# our own recording of the x86 run: the same pcs as trace-cmd's text of it
eq "x86-svm: kvm-exitstat.dat's pcs" "$(tool_pcs $L/x86-svm/kvm-exitstat.dat)" \
	"$(pcs_of $L/x86-svm/trace-cmd.txt kvm_exit "rip ")"

# The split: a published x86 trace of a Windows guest's kernel (rip 0xfffff802...).
PUB=tests/fixtures/published/vitaly-hyperv-ept.txt
k=$(pcs_of $PUB kvm_exit "rip " | awk 'length($1) == 16 && $1 >= "ff00000000000000" { n += $2 } END { print n + 0 }')
u=$(pcs_of $PUB kvm_exit "rip " | awk '!(length($1) == 16 && $1 >= "ff00000000000000") { n += $2 } END { print n + 0 }')
out=$("$KES" report --by-guest -f json $PUB)
eq "split: guest_kernel" "$(echo "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["guest_kernel"])')" "$k"
eq "split: guest_user" "$(echo "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["guest_user"])')" "$u"
check "split: the kernel side has exits" [ "$k" -gt 0 ]
eq "x86-svm: lab exits are all below the kernel half" \
	"$("$KES" report --by-guest -f json $L/x86-svm/trace-cmd.dat | python3 -c 'import json,sys; print(json.load(sys.stdin)["guest_kernel"])')" 0

# Symbols. A layout over the x86 run's pcs (0x0 .. 0x70), as three files.
cat >"$TMP/System.map" <<'MAP'
0000000000000000 T eg_start
0000000000000008 t eg_io
0000000000000012 T eg_mmio
0000000000000020 D eg_data_not_code
0000000000000028 t eg_cpuid
000000000000003c W eg_msr
0000000000000050 T eg_pf
0000000000000060 t eg_hlt
000000000000006e T eg_done
MAP
awk '{ print $0 "\t[exitgen]" }' "$TMP/System.map" >"$TMP/kallsyms"
# the same functions as an ELF object (.text offsets are the addresses)
awk '$2 ~ /^[tTwW]$/ { printf "\t.org 0x%s\n\t.globl %s\n\t.type %s,@function\n%s:\n\tnop\n", $1, $3, $3, $3 }
	END { print "\t.org 0x80" }' "$TMP/System.map" >"$TMP/eg.s"
${CC:-cc} -c -o "$TMP/eg.o" "$TMP/eg.s" 2>"$TMP/as.err" || bad "assembling eg.s: $(cat "$TMP/as.err")"
# sym_want: each pc's symbol from the map, by awk (code symbols only)
sym_want() {
	pcs_of $L/x86-svm/trace-cmd.txt kvm_exit "rip " | while read -r h n; do
		awk -v pc="$h" 'BEGIN { while (length(pc) < 16) pc = "0" pc }
			$2 ~ /^[tTwW]$/ && $1 <= pc { s = $3 } END { print pc, s }' "$TMP/System.map"
	done | sort
}
want=$(sym_want)
check "symbols: awk found symbols" [ -n "$want" ]
for f in System.map kallsyms eg.o; do
	got=$("$KES" report --by-guest --guest-kallsyms "$TMP/$f" -f csv $L/x86-svm/trace-cmd.dat |
		awk -F, 'NR > 1 && $2 ~ /^0x/ { h = substr($2, 3); while (length(h) < 16) h = "0" h; print h, $11 }' | sort -u)
	eq "symbols from $f" "$got" "$want"
done
"$KES" report --by-guest --guest-kallsyms "$TMP/System.map" $L/x86-svm/trace-cmd.dat >"$TMP/t.out"
check "table: io at eg_io" grep -q "eg_io" "$TMP/t.out"
check "table: header names the symbol file" grep -q "^Symbols: $TMP/System.map (System.map, 8)" "$TMP/t.out"

# exitgen's own map of the fixture run (tests/fixtures/lab/PROVENANCE.md):
# each op's exits on the function that makes them, exitgen.out's counts.
EO=$L/x86-svm/exitgen.out
sum_of() { awk -v k="$1" '/^vcpu / { for (i = 1; i < NF; i++) if ($i == k) s += $(i + 1) } END { print s + 0 }' "$EO"; }
"$KES" report --by-guest --guest-kallsyms $L/x86-svm/exitgen.map -f csv $L/x86-svm/kvm-exitstat.dat >"$TMP/eg.csv"
at() { awk -F, -v r="$1" -v s="$2" '$1 == r && $11 == s { n += $3 } END { print n + 0 }' "$TMP/eg.csv"; }
eq "exitgen map: io in eg_io" "$(at io eg_io)" "$(sum_of ops_io)"
eq "exitgen map: io in eg_done" "$(at io eg_done)" "$(sum_of passes)"
eq "exitgen map: npf in eg_mmio" "$(at npf eg_mmio)" "$(sum_of ops_mmio)"
eq "exitgen map: npf in eg_pf" "$(at npf eg_pf)" "$(sum_of pf)"
eq "exitgen map: cpuid in eg_cpuid" "$(at cpuid eg_cpuid)" "$(sum_of cpuid)"
eq "exitgen map: msr in eg_msr" "$(at msr eg_msr)" "$(sum_of msr)"
eq "exitgen map: hlt in eg_hlt" "$(at hlt eg_hlt)" "$(sum_of hlt)"
# The README's sample is what the tool prints for it today.
sed -n '/^\$ kvm-exitstat report --by-guest/,/^\.\.\.$/p' README.md | sed '1d;$d' >"$TMP/readme"
check "README: a --by-guest sample" [ -s "$TMP/readme" ]
"$KES" report --by-guest --guest-kallsyms $L/x86-svm/exitgen.map $L/x86-svm/kvm-exitstat.dat |
	head -n "$(wc -l <"$TMP/readme")" >"$TMP/now"
check "README: the --by-guest sample is today's output" cmp -s "$TMP/readme" "$TMP/now"

# diff --by-guest: B is the x86 text without every other cpuid exit line (5 of
# 10): the functions' counts in A and B are awk's over the two texts.
awk '/ kvm_exit: .* reason cpuid / && n++ % 2 { next } { print }' $L/x86-svm/trace-cmd.txt >"$TMP/b.txt"
fn_counts() { # TEXT: "reason@function count" by awk over the map
	awk 'NR == FNR { if ($2 ~ /^[tTwW]$/) { a[++n] = $1; s[n] = $3 } next }
		/ kvm_exit: / && match($0, /reason [^ ]+ rip [0-9a-fx]+/) {
			split(substr($0, RSTART, RLENGTH), w, " "); h = w[4]; sub(/^0x/, "", h)
			while (length(h) < 16) h = "0" h
			f = ""; for (i = 1; i <= n; i++) if (a[i] <= h) f = s[i]
			c[w[2] "@" f]++ }
		END { for (k in c) print k, c[k] }' $L/x86-svm/exitgen.map "$1" | sort
}
"$KES" diff --by-guest --guest-kallsyms $L/x86-svm/exitgen.map -f csv $L/x86-svm/trace-cmd.txt "$TMP/b.txt" >"$TMP/diff.csv"
eq "diff --by-guest: A's functions" "$(awk -F, 'NR > 1 && $1 ~ /@/ && $4 > 0 { print $1, $4 }' "$TMP/diff.csv" | sort)" \
	"$(fn_counts $L/x86-svm/trace-cmd.txt)"
eq "diff --by-guest: B's functions" "$(awk -F, 'NR > 1 && $1 ~ /@/ && $10 > 0 { print $1, $10 }' "$TMP/diff.csv" | sort)" \
	"$(fn_counts "$TMP/b.txt")"
eq "diff --by-guest: cpuid@eg_cpuid lost half" "$(awk -F, '$1 == "cpuid@eg_cpuid" { print $4, $10, $16 }' "$TMP/diff.csv")" "10 5 -50"
"$KES" diff --guest-kallsyms $L/x86-svm/exitgen.map $L/x86-svm/trace-cmd.txt "$TMP/b.txt" >/dev/null 2>"$TMP/e"
check "diff --guest-kallsyms without --by-guest: refused" [ $? -ne 0 ]

# --svg with --by-guest: a bar per reason@function whose exits are awk's,
# longest handling time first; it renders.
"$KES" report --by-guest --guest-kallsyms $L/x86-svm/exitgen.map --svg "$TMP/g.svg" \
	$L/x86-svm/trace-cmd.txt >/dev/null
eq "svg: a bar per function, awk's counts" "$(python3 -c '
import sys, xml.etree.ElementTree as E
for r in E.parse(sys.argv[1]).iter("{http://www.w3.org/2000/svg}rect"):
    if r.get("class") == "guest-bar": print(r.get("data-name"), r.get("data-count"))' "$TMP/g.svg" | sort)" \
	"$(fn_counts $L/x86-svm/trace-cmd.txt)"
check "svg: longest handling time first" python3 -c '
import sys, xml.etree.ElementTree as E
s = [float(r.get("data-sum")) for r in E.parse(sys.argv[1]).iter("{http://www.w3.org/2000/svg}rect") if r.get("class") == "guest-bar"]
sys.exit(not (s and s == sorted(s, reverse=True)))' "$TMP/g.svg"
if command -v rsvg-convert >/dev/null; then
	check "svg: renders" rsvg-convert "$TMP/g.svg" -o "$TMP/g.png"
fi

# --guest-top 1: each reason's one pc, its most by the sort key (awk over the
# full csv); the reason's count still all of its exits.
for key in sum count; do
	"$KES" report --by-guest -s $key -f csv $L/x86-svm/trace-cmd.txt >"$TMP/all.csv"
	"$KES" report --by-guest -s $key --guest-top 1 -f csv $L/x86-svm/trace-cmd.txt >"$TMP/top1.csv"
	col=$([ $key = sum ] && echo 5 || echo 3)
	eq "--guest-top 1 -s $key: each reason's most" \
		"$(awk -F, 'NR > 1 && $2 ~ /^0x/ { print $1, $2 }' "$TMP/top1.csv" | sort)" \
		"$(awk -F, -v c=$col 'NR > 1 && $2 ~ /^0x/ && (!($1 in m) || $c + 0 > m[$1]) { m[$1] = $c + 0; p[$1] = $2 }
			END { for (r in p) print r, p[r] }' "$TMP/all.csv" | sort)"
done
"$KES" report --guest-top 1 $L/x86-svm/trace-cmd.txt >/dev/null 2>"$TMP/e"
check "--guest-top without --by-guest: refused" [ $? -ne 0 ]

# Bad input: one line on stderr, exit non-zero, nothing on stdout.
bad_syms() { # NAME FILE
	"$KES" report --by-guest --guest-kallsyms "$2" $L/x86-svm/trace-cmd.dat >"$TMP/o" 2>"$TMP/e"
	st=$?
	check "$1: fails" [ "$st" -ne 0 ]
	eq "$1: one line on stderr" "$(wc -l <"$TMP/e")" 1
	eq "$1: nothing on stdout" "$(wc -c <"$TMP/o")" 0
}
bad_syms "missing file" "$TMP/nope"
printf 'garbage\x01\x02 not a map\n' >"$TMP/garbage"
bad_syms "garbage" "$TMP/garbage"
head -c 100 "$TMP/eg.o" >"$TMP/trunc.o"
bad_syms "truncated ELF" "$TMP/trunc.o"
bad_syms "a directory" "$TMP"
awk '{ $1 = "0000000000000000"; print }' "$TMP/System.map" >"$TMP/zero"
bad_syms "kallsyms read as non-root (all zero)" "$TMP/zero"
"$KES" report --guest-kallsyms "$TMP/System.map" $L/x86-svm/trace-cmd.dat >/dev/null 2>"$TMP/e"
check "--guest-kallsyms without --by-guest: refused" [ $? -ne 0 ]
eq "--guest-kallsyms without --by-guest: one line" "$(wc -l <"$TMP/e")" 1
# a statistics input has no pcs: said, not an empty table
"$KES" report -f json $L/x86-svm/trace-cmd.dat >"$TMP/r.json"
"$KES" report --by-guest "$TMP/r.json" >"$TMP/o" 2>"$TMP/e"
check "saved report: refused" [ $? -ne 0 ]
check "saved report: says no pc" grep -q "carries the guest's pc" "$TMP/e"
summary
