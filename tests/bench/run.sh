#!/bin/sh
# `make bench`: runs every benchmark script. Benchmarks print numbers (ratios
# against a peer measured in the same run); they are not pass/fail tests.
O=${O:-build}
KES=${KES:-./kvm-exitstat}
EXITGEN=${EXITGEN:-$O/exitgen}
export O KES EXITGEN
for b in tests/bench/*.sh; do
	[ "$(basename "$b")" = run.sh ] && continue
	echo "== $b"
	sh "$b" || echo "(benchmark $b failed: rc $?)"
done
