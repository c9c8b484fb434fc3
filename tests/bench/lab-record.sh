#!/bin/sh
# lab-record.sh OUT SPEC...: inside the lab host (tests/lab/host.sh: real
# KVM, kvm_exit fires), the bench's recordings, written to OUT (the host's
# results directory) as the bench caches them: for SPEC "rec:N" OUT/rec-NM-pin.dat
# (about N million events, exitgen's vCPU i pinned on CPU i), for "mig:N"
# OUT/mig-NM.dat (the same work while two busy loops push the vCPU threads
# between the CPUs); each with PATH.events, libtracecmd's count of its events.
#
# The workload is in the kvm_exit shape users' recordings have: exits KVM
# handles itself (cpuid, rdmsr: kvm_exit, kvm_msr for rdmsr, kvm_entry, and
# kvm_emulate_insn, as TCG's SVM has no NRIPS and KVM emulates each to skip
# it) and port writes that reach the VMM (kvm_exit, kvm_pio,
# kvm_userspace_exit, kvm_fpu, kvm_entry): LAB_MIX per vCPU per million
# events (printed by the bench), about 1 M events with 2 vCPUs (measured:
# 3, 4 and 6 events per exit).
# Recorded into /tmp (a tmpfs) and copied out after: the 9p share is slow.
# Env: KES, EXITGEN, DATCOUNT; LAB_MIX (exitgen arguments per million events
# and vCPU, each number scaled by N).
set -u
out=$1
shift
mix=${LAB_MIX:---cpuid 50000 --msr 50000 --io 25000}
scaled() { # N: LAB_MIX with each number times N
	echo "$mix" | awk -v n="$1" '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) $i *= n; print }'
}
one() { # FILE N PIN
	rm -f /tmp/bench.dat
	# shellcheck disable=SC2046
	"$KES" record -q -o /tmp/bench.dat -- "$EXITGEN" $(scaled "$2") --vcpus 2 $3 --quiet ||
		{ echo "lab-record: record of $(basename "$1") failed" >&2; return 1; }
	"$DATCOUNT" /tmp/bench.dat | awk '$1 == "total" { print $2 }' >"$1.events.tmp"
	[ -s "$1.events.tmp" ] || { echo "lab-record: datcount read nothing of $(basename "$1")" >&2; return 1; }
	"$DATCOUNT" /tmp/bench.dat | awk '$1 == "lost" && $NF != 0 { print "lab-record: " $0 > "/dev/stderr" }'
	cp /tmp/bench.dat "$1.tmp" && mv "$1.tmp" "$1" && mv "$1.events.tmp" "$1.events"
	rm -f /tmp/bench.dat
	echo "lab-record: $(basename "$1"): $(cat "$1.events") events, exitgen $(scaled "$2") --vcpus 2 $3"
}
for spec in "$@"; do
	n=${spec#*:}
	case $spec in
	rec:*) one "$out/rec-${n}M-pin.dat" "$n" --pin || exit 1 ;;
	mig:*)
		timeout 600 sh -c 'while :; do :; done' &
		l1=$!
		timeout 600 sh -c 'while :; do :; done' &
		l2=$!
		one "$out/mig-${n}M.dat" "$n" ""
		rc=$?
		kill "$l1" "$l2" 2>/dev/null
		wait "$l1" "$l2" 2>/dev/null
		[ "$rc" = 0 ] || exit 1
		;;
	*) echo "lab-record: unknown spec '$spec'" >&2; exit 2 ;;
	esac
done
