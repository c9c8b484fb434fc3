#!/bin/sh
# Sub-keys on a real QEMU guest (firmware only) on a live KVM. (subkeys.sh:
# the rules on crafted and fixture recordings.)
. "$(dirname "$0")/lib.sh"
need_kvm
QEMU=$(command -v qemu-system-x86_64) || { bad "qemu-system-x86_64 not installed (make deps)"; summary; exit 1; }
command -v trace-cmd >/dev/null || { bad "trace-cmd not installed (make deps)"; summary; exit 1; }
# A real QEMU guest (firmware only): every IO exit's port is the port of the
# kvm_pio that explains it, by the same rule, computed here with awk over
# trace-cmd report's text; no IO row carries a gpa or an instruction address.
# A busy host can hold QEMU's start past 3 s (a CI machine did, under ASan): once
# trace-cmd sees no kvm_pio of the guest at all, record it again for longer.
for secs in 3 15; do
	"$KES" record -q -o "$TMP/q.dat" -d "$secs" -- "$QEMU" -accel kvm -display none -nodefaults \
		-m 64 -serial none -monitor none 2>"$TMP/q.err"
	trace-cmd report "$TMP/q.dat" 2>/dev/null | grep -q ' kvm_pio: ' && break
	echo "no kvm_pio in ${secs} s of QEMU: $(head -c 300 "$TMP/q.err")"
done
trace-cmd report "$TMP/q.dat" 2>/dev/null | awk '
	{ ev = tid = ""
	  for (i = 2; i < NF; i++) if ($i ~ /^\[[0-9]+\]$/) { tid = $(i - 1); sub(/.*-/, "", tid); break }
	  for (; i < NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { ev = $(i + 1); k = i + 2; break } }
	ev == "kvm_fpu:" && $k == "load" { inside[tid] = 1; last[tid] = ""
		if (pend[tid]) want[tid] = 1; next }
	ev == "kvm_pio:" { port = $(k + 2)
		if (want[tid]) { n[port]++; pend[tid] = want[tid] = 0; next }
		last[tid] = port; next }
	ev == "kvm_userspace_exit:" && $(k + 1) == "KVM_EXIT_IO" {
		if (pend[tid]) none++
		pend[tid] = 0
		if (last[tid] != "") n[last[tid]]++; else pend[tid] = 1
		last[tid] = ""; next }
	ev == "kvm_userspace_exit:" { if (pend[tid]) none++; pend[tid] = 0; last[tid] = "" }
	END { for (p in n) print p, n[p]; if (none) print "-", none }' | sort >"$TMP/q.want"
"$KES" report -i "$TMP/q.dat" --by-sub -f csv --source userspace >"$TMP/q.csv"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$1 == "KVM_EXIT_IO" { print ($(c["sub"]) == "" ? "-" : $(c["sub"])), $(c["count"]) }' "$TMP/q.csv" |
	sort >"$TMP/q.got"
check "QEMU: IO exits recorded ($(wc -l <"$TMP/q.got") ports)" test -s "$TMP/q.got"
eq "QEMU: IO exits per port = the explaining kvm_pio's (awk over trace-cmd report)" \
	"$(cat "$TMP/q.got")" "$(cat "$TMP/q.want")"
check "QEMU: every IO row's sub-key is a port" awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$1 == "KVM_EXIT_IO" && $(c["sub"]) != "" && $(c["sub_kind"]) != "port" { exit 1 }' "$TMP/q.csv"
summary
