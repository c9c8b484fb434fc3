#!/bin/sh
# crafttext MUTATION < real-trace.txt > hostile.txt: one hostile change to a
# real tracefs `trace` text (tests/fixtures/text/trace.txt), the rest kept.
# The changed line is the third kvm_userspace_exit line (a KVM exit, so a
# reader that drops it reports other numbers):
#   pid2g      its pid becomes 2147483648 (does not fit the kernel's pid_t)
#   longline   5000 blanks before its timestamp: the line is 5 KB long
#   backwards  its timestamp goes back before its thread's previous event
#   comm-esc   every exitgen-vcpu0 comm gets terminal escapes (ESC [2J, OSC title, BEL)
#   exit-esc   it becomes a kvm_exit whose reason name is an OSC escape (ESC ]0;HLT),
#              followed 1 us later by its kvm_entry
#   exit-bytes as exit-esc, the name "HLT" between bytes that are no UTF-8 (0xff, a cut
#              0xc3) and the C1 control CSI (0xc2 0x9b): no JSON, XML or Prometheus
#              text may hold the first two, a terminal obeys the third
# Used by tests/e2e/hostile-input.sh, listed in tests/fixtures/bad/PROVENANCE.md.
m=$1
esc=$(printf '\033')
bel=$(printf '\007')
odd=$(printf '\377\302\2332JHLT\303')
awk -v m="$m" -v esc="$esc" -v bel="$bel" -v odd="$odd" '
function pad(n,   s) { s = ""; while (n-- > 0) s = s " "; return s }
/kvm_userspace_exit:/ { n++ }
m == "comm-esc" { gsub(/exitgen-vcpu0-/, "exitgen" esc "[2J" esc "]0;pwned" bel "-") }
n == 3 && /kvm_userspace_exit:/ && !done {
	done = 1
	if (m == "pid2g") sub(/-18267 /, "-2147483648 ")
	else if (m == "longline") sub(/\] \.\.\.\.\. /, "] ..... " pad(5000))
	else if (m == "backwards") sub(/1064\.471147:/, "1064.471000:")
	else if (m == "exit-esc" || m == "exit-bytes") {
		entry = $0
		name = m == "exit-esc" ? esc "]0;HLT" : odd
		sub(/kvm_userspace_exit: .*/, "kvm_exit: vcpu 0 reason " name " rip 0x1000 info 0 0 intr 0 error 0")
		sub(/1064\.471147: kvm_userspace_exit: .*/, "1064.471148: kvm_entry: vcpu 0, rip 0x1000", entry)
		print
		$0 = entry
	}
}
{ print }
END { if (m != "comm-esc" && !done) exit 1 }' || { echo "crafttext: cannot apply '$m'" >&2; exit 1; }
