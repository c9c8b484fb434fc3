#!/bin/sh
# craftrows KIND N > file: an N-row input made from one real row, each row a
# name of its own (a reader that keeps rows in a list and searches it per row
# takes quadratic time; the tests bound the time):
#   ppc-report   the first row of tests/fixtures/ppc/report-2010-pv.txt (a 2010 report)
#   ppc-debugfs  the MMIO row of tests/fixtures/ppc/vm2187_vcpu0_timing (a debugfs dump)
#   exit-types   N lines: N/4 one-name tables, each with x86_vmx.types's exit and reason
#   exit-names   one table (x86_vmx's directives) with N names
# Used by tests/e2e/hostile-input.sh, listed in tests/fixtures/bad/PROVENANCE.md.
kind=$1 n=$2
FIX=${FIX:-tests/fixtures}
case $kind in
ppc-report)
	awk -v n="$n" '/ count .* min .* max / && !row { row = $0; sub(/^[^ ]+/, "", row) }
	END { for (i = 0; i < n; i++) printf "EXIT%d%s\n", i, row }' "$FIX/ppc/report-2010-pv.txt" ;;
ppc-debugfs)
	awk -v n="$n" 'NR == 1 { print; next } $1 == "MMIO" && !row { row = $0; sub(/^ *MMIO/, "", row) }
	END { for (i = 0; i < n; i++) printf "EXIT%d%s\n", i, row }' "$FIX/ppc/vm2187_vcpu0_timing" ;;
exit-types | exit-names)
	awk -v n="$n" -v k="$kind" '/^(exit|reason|match|vcpu|entry|entry-match|describe|kind) / { d = d $0 "\n" }
	END {
		if (k == "exit-names") { printf "isa big\n%s", d; for (i = 0; i < n; i++) printf "name %d N%d\n", i + 100000, i }
		else for (i = 0; i < n / 4; i++) printf "isa big%d\n%s\n%s\nname %d N%d\n", i, ex, re, i, i }
	/^exit / { ex = $0 } /^reason / { re = $0 }' exit_types/x86_vmx.types ;;
*) echo "craftrows: unknown kind '$kind'" >&2; exit 2 ;;
esac
