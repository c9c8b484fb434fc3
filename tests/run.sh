#!/bin/sh
# run.sh [--groups "PATH..."]: runs every unit test binary and every
# end-to-end script (or the groups named), one progress line each
# ("[n/N] name  P passed, F failed  T s"), and ends with the total
# "N passed, N failed". Exit status: 0 only when nothing failed (and, under
# CI=true, nothing was skipped).
#
# A group needs KVM when its script calls need_kvm or have_kvm (e2e/lib.sh).
# On a machine without /dev/kvm those groups run inside the lab host
# (tests/lab/host.sh: an x86-svm guest of the lab whose root is this
# machine's own, where /dev/kvm works and kvm_exit fires), in the background
# while the others run here; KES_LAB_HOST=0 skips them instead (said; a
# failure under CI=true). A guest that freezes is booted once more for the
# groups it did not finish.
O=${O:-build}
KES=${KES:-./kvm-exitstat}
EXITGEN=${EXITGEN:-$O/exitgen}
export O KES EXITGEN
only= claim=
while [ $# -gt 0 ]; do
	case $1 in
	--groups) only=$2; shift 2 ;;
	--claim) claim=$2; shift 2 ;; # DIR: run a group only after mkdir DIR/NAME (guests share a queue)
	*) echo "run.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
pass=0 fail=0 skip=0
log=$(mktemp)
lab_dir=$(pwd)/$O/lab-host
trap 'rm -f "$log"; [ -z "${labpid:-}" ] || kill "$labpid" 2>/dev/null' EXIT
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# needs_kvm PATH: the group runs the tool on a live KVM.
needs_kvm() {
	case $1 in
	*.sh) grep -Eq '^[^#]*\<(need_kvm|have_kvm)\>' "$1" && [ "$(basename "$1")" != lib.sh ] ;;
	*) return 1 ;;
	esac
}

all_groups() {
	for t in "$O"/tests/test_*; do
		[ -x "$t" ] && echo "$t"
	done
	for t in tests/lint/*.sh tests/e2e/*.sh; do
		[ "$(basename "$t")" = lib.sh ] || echo "$t"
	done
}

# tally N/M PATH: one group, its counts added, its progress line printed.
tally() {
	pos=$1 t=$2 name=$(basename "$2")
	t0=$(now)
	# In the lab host each group has a time limit below host.sh's --stall: a
	# group that hangs is named, with its last lines, and the others still run
	# (the whole guest judged frozen named none of them).
	lim=
	[ -z "${KES_GROUP_TIMEOUT:-}" ] || lim="timeout -k 10 $KES_GROUP_TIMEOUT"
	case $t in
	*.sh) $lim sh "$t" >"$log" 2>&1 ;;
	*) $lim "$t" >"$log" 2>&1 ;;
	esac
	rc=$?
	if [ -n "$lim" ] && { [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; }; then
		echo "FAIL $name: did not finish in $KES_GROUP_TIMEOUT s (KES_GROUP_TIMEOUT); its last lines:"
		tail -n 5 "$log" | sed 's/^/  /'
	fi
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	p=$(echo "$line" | sed -n 's/.*\b\([0-9][0-9]*\) passed.*/\1/p')
	f=$(echo "$line" | sed -n 's/.* \([0-9][0-9]*\) failed.*/\1/p')
	s=$(grep -c '^SKIP' "$log")
	[ -n "$p" ] || p=0
	[ -n "$f" ] || f=0
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi # crashed before its summary
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	if [ "$f" -ne 0 ] || [ "${VERBOSE:-0}" = 1 ]; then cat "$log"; fi
	grep '^SKIP' "$log" | sed "s/^SKIP/SKIP $name/"
	[ "$s" -eq 0 ] || skipped="$skipped $name"
	printf '[%s] %-28s %5s passed, %s failed  %s s\n' "$pos" "$name" "$p" "$f" "$(since "$t0")"
	# a group that checked nothing says why (valgrind.sh without VALGRIND=1)
	if [ "$p" -eq 0 ] && [ "$f" -eq 0 ] && [ "$s" -eq 0 ]; then
		echo "  $name ran nothing: $(grep -v 'passed, .* failed' "$log" | head -n 1)"
	fi
}

# run_list LABEL LIST: the groups of LIST one after the other (with --claim,
# those no other guest took first).
run_list() {
	n=0 total=$(echo "$2" | wc -w)
	for t in $2; do
		n=$((n + 1))
		[ -z "$claim" ] || mkdir "$claim/$(basename "$t")" 2>/dev/null || continue
		tally "$1$n/$total" "$t"
	done
}

groups=${only:-$(all_groups)}
here= lab= skipped=
for t in $groups; do
	if needs_kvm "$t" && [ -z "$only" ] && [ ! -e /dev/kvm ]; then
		lab="$lab $t"
	else
		here="$here $t"
	fi
done

# lab_run LIST: the groups of LIST in the lab host, in the background; each
# of its progress lines is printed here as it comes, marked "lab". With
# KES_LAB_SHARDS=N (default: 2 on a machine with 2 CPUs or more) N guests
# take the groups from one queue (run.sh --claim), the heaviest first.
lab_run() {
	shards=${KES_LAB_SHARDS:-$([ "$(nproc)" -ge 2 ] && echo 2 || echo 1)}
	rm -rf "$lab_dir.queue"
	mkdir -p "$lab_dir.queue"
	i=1
	while [ $i -le "$shards" ]; do
		mkdir -p "$lab_dir.$i"
		KES_GROUP_TIMEOUT=${KES_GROUP_TIMEOUT:-600} \
		sh tests/lab/host.sh --quiet --out "$lab_dir.$i" --share "$lab_dir.queue" --env O --env KES \
			--env EXITGEN --env KES_GROUP_TIMEOUT --env VALGRIND --env VERBOSE --env ASAN_OPTIONS \
			--env LSAN_OPTIONS --env UBSAN_OPTIONS -- sh tests/run.sh --claim "$lab_dir.queue" \
			--groups "$1" 2>&1 | sed -u "s/^\[\([0-9]*\/[0-9]*\)\]/[lab \1]/; s/^lab: lab host: /lab host $i: /" &
		i=$((i + 1))
	done
	wait
}

# KES_LAB_ONLY="NAME...": of the groups that need KVM, only those run in the
# lab host in this pass; the others are said to be another pass's (CI's
# ASan pass: its make check under gcc and valgrind ran them all, in the
# same CI run), not counted as skips.
if [ -n "$lab" ] && [ -n "${KES_LAB_ONLY:-}" ]; then
	kept= other=
	for t in $lab; do
		case " $KES_LAB_ONLY " in
		*" $(basename "$t") "*) kept="$kept $t" ;;
		*) other="$other $(basename "$t")" ;;
		esac
	done
	[ -z "$other" ] || echo "left to another pass (KES_LAB_ONLY):$other"
	lab=$kept
fi
if [ -n "$lab" ] && [ "${KES_LAB_HOST:-1}" = 0 ]; then
	for t in $lab; do
		echo "SKIP $(basename "$t"): needs /dev/kvm (KES_LAB_HOST=0: the lab host was not used)"
		skip=$((skip + 1)) skipped="$skipped $(basename "$t")"
	done
	lab=
fi
# heaviest first (tests/lab/host-weights: seconds each took there), so that
# the guests' queue ends evenly
weights=tests/lab/host-weights
if [ -n "$lab" ] && [ -f "$weights" ]; then
	lab=$(for t in $lab; do
		echo "$(awk -v n="$(basename "$t")" '$1 == n { print $2; f = 1 } END { if (!f) print 9999 }' "$weights") $t"
	done | sort -rn | cut -d' ' -f2 | tr '\n' ' ')
fi
labpid=
if [ -n "$lab" ]; then
	echo "this machine has no /dev/kvm: $(echo "$lab" | wc -w) groups that need KVM run in the lab host (tests/lab/host.sh), beside the $(echo "$here" | wc -w) others"
	lab_run "$lab" >"$lab_dir.log" 2>&1 &
	labpid=$!
	tail -f --pid=$labpid "$lab_dir.log" 2>/dev/null | grep --line-buffered -E '^\[lab |^FAIL|^lab|^SKIP' &
fi

run_list "" "$here"

if [ -n "$lab" ]; then
	wait "$labpid"
	labpid=
	sleep 1.1 # tail -f polls each second
	# Groups the guest did not finish (it froze, or could not boot): once more.
	left=
	for t in $lab; do
		grep -Eq "^\[lab [0-9]+/[0-9]+\] $(basename "$t") " "$lab_dir.log" || left="$left $t"
	done
	if [ -n "$left" ]; then
		echo "lab host: $(echo "$left" | wc -w) groups did not finish ($(tail -n 3 "$lab_dir.log" | tr '\n' ' ')): booting once more for them"
		lab_run "$left" >"$lab_dir.retry.log" 2>&1
		cat "$lab_dir.retry.log"
		cat "$lab_dir.retry.log" >>"$lab_dir.log"
	fi
	for t in $lab; do
		name=$(basename "$t")
		line=$(grep -E "^\[lab [0-9]+/[0-9]+\] $name " "$lab_dir.log" | tail -n 1)
		if [ -z "$line" ]; then
			echo "FAIL $name: did not run in the lab host ($lab_dir.*/console.log)"
			fail=$((fail + 1))
			continue
		fi
		p=$(echo "$line" | sed -n 's/.* \([0-9][0-9]*\) passed,.*/\1/p')
		f=$(echo "$line" | sed -n 's/.* \([0-9][0-9]*\) failed.*/\1/p')
		pass=$((pass + p)) fail=$((fail + f))
		grep -q "^SKIP $name" "$lab_dir.log" && skipped="$skipped $name" &&
			skip=$((skip + $(grep -c "^SKIP $name" "$lab_dir.log")))
	done
	grep -E '^\[lab [0-9]+/[0-9]+\] ' "$lab_dir.log" | awk '{ print $3, $(NF - 1) }' | sort >"$lab_dir.times"
	echo "in the lab host: $(echo "$lab" | wc -w) groups ($(grep -c '^\[lab ' "$lab_dir.log") progress lines; log $lab_dir.log)"
fi

# Under CI nothing may be skipped: a missing dependency is a failure.
if [ "$skip" -ne 0 ]; then
	echo "$skip skip(s) in:$skipped"
	if [ "${CI:-}" = true ]; then
		echo "CI must run every group: $skip skip(s) counted as failures"
		fail=$((fail + skip))
	fi
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
