#!/bin/sh
# Benchmark (numbers, not pass/fail): the CPU that `kvm-exitstat top` itself
# uses while exitgen makes exits at its highest rate (2 vCPUs, `out` in a
# loop), against kvm_stat on the same workload in the same run, both in
# their logging mode and in their curses view (under tmux), both tracing the
# workload's pid at a 1 s interval.
#
#   workload_s  exitgen's own elapsed time (the guest's slowdown under observation)
#   exits       exits the workload made (exitgen's count)
#   cpu_s       the observer's CPU time, user + sys (startup included)
#   ns/exit     cpu_s / exits
#
# kvm_stat: $KVM_STAT, or kvm_stat on PATH, or taken from Debian's
# linux-source-6.x tarball (apt-get install linux-source-6.1). It needs
# debugfs: mounted for the run when it is not, and unmounted after. On hosts
# whose /proc/cpuinfo shows neither vmx nor svm (nested, PVM) kvm_stat gives
# up; a copy that assumes VMX is run then (it only names kvm_exit reasons,
# which do not fire on such hosts anyway).
#
# Env: O (build dir), KES, EXITGEN, SECONDS_RUN (default 5), REPS (default 1).
O=${O:-build}
KES=${KES:-./kvm-exitstat}
EXITGEN=${EXITGEN:-$O/exitgen}
SECONDS_RUN=${SECONDS_RUN:-5}
REPS=${REPS:-1}
TMP=$(mktemp -d /tmp/kes-bench-top.XXXXXX)
S=kes-bench-top-$$
MOUNTED=
cleanup() {
	tmux kill-session -t $S 2>/dev/null
	[ -n "$MOUNTED" ] && umount /sys/kernel/debug
	rm -rf "$TMP"
}
trap cleanup EXIT
case $KES in /*) ;; *) KES=$PWD/$KES ;; esac

if [ "$(id -u)" != 0 ] || [ ! -w /dev/kvm ]; then
	echo "top bench: needs root and /dev/kvm, skipped"
	exit 0
fi
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "top bench: needs /usr/bin/time (apt-get install time)"; exit 0; }
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
HAVE_TMUX=; command -v tmux >/dev/null 2>&1 && HAVE_TMUX=1

find_kvm_stat() {
	KS=${KVM_STAT:-$(command -v kvm_stat 2>/dev/null)}
	if [ -z "$KS" ]; then
		tarball=$(ls /usr/src/linux-source-*.tar.* 2>/dev/null | tail -n 1)
		[ -n "$tarball" ] || return 1
		dir=$(basename "$tarball" | sed 's/\.tar\..*//')
		tar -xf "$tarball" -C "$TMP" "$dir/tools/kvm/kvm_stat/kvm_stat" 2>/dev/null || return 1
		KS=$TMP/$dir/tools/kvm/kvm_stat/kvm_stat
	fi
	if ! grep -qw -e vmx -e svm /proc/cpuinfo; then
		python3 - "$KS" "$TMP/kvm_stat" <<'EOF' || return 1
import sys
s = open(sys.argv[1]).read()
old = "                    return ArchX86(SVM_EXIT_REASONS)\n                return\n"
if s.count(old) != 1:
    sys.exit(1)
open(sys.argv[2], "w").write(s.replace(old, old[:-1] + " ArchX86(VMX_EXIT_REASONS)\n"))
EOF
		KS=$TMP/kvm_stat
		KS_NOTE="(kvm_stat patched: this host's cpuinfo shows no vmx/svm)"
	fi
	if [ ! -d /sys/kernel/debug/kvm ]; then
		mount -t debugfs none /sys/kernel/debug 2>/dev/null && MOUNTED=1
	fi
	[ -d /sys/kernel/debug/tracing/events/kvm ]
}

# The workload waits 2.5 s before its first exit so that an observer (and
# python's start) is ready; the observer is started right after its header.
start_workload() {
	"$EXITGEN" --io 100000 --vcpus 2 --seconds "$SECONDS_RUN" --start-delay 2500 >"$TMP/eg" 2>&1 &
	WL=$!
	i=0
	while ! grep -q '^exitgen: pid' "$TMP/eg" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
}
workload_s() { awk '/^total/ { for (i = 1; i < NF; i++) if ($i == "elapsed_us") printf "%.2f", $(i + 1) / 1e6 }' "$TMP/eg"; }
exits() { awk '/^total/ { print $3 + $5 + $7 }' "$TMP/eg"; }
cpu_s() { tail -n 1 "$1" | awk '{ printf "%.2f", $1 + $2 }'; }
row() { printf '%-24s %10s %10s %8s %11s\n' "$@"; }
result() { # NAME TIMEFILE
	cpu=$(cpu_s "$2")
	ex=$(exits)
	row "$1" "$(workload_s)" "$ex" "$cpu" "$(awk -v c="$cpu" -v e="$ex" 'BEGIN { printf "%.1f", e ? c * 1e9 / e : 0 }')"
}

# Log mode: until the workload is gone (top ends by itself, kvm_stat gets SIGTERM).
run_log() { # NAME COMMAND (WLPID stands for the workload's pid)
	start_workload
	# shellcheck disable=SC2086
	$TIME -o "$TMP/t" -f '%U %S' $(echo "$2" | sed "s/WLPID/$WL/g") >/dev/null 2>&1 &
	OBS=$!
	wait $WL
	sleep 1.5
	# SIGTERM to the observer under time(1): SIGINT is ignored in a background job.
	pkill -TERM -P $OBS 2>/dev/null
	wait $OBS
	result "$1" "$TMP/t"
}

# Curses view in a 160x45 tmux pane; q after the workload has ended.
run_screen() { # NAME COMMAND (WLPID stands for the workload's pid)
	[ -n "$HAVE_TMUX" ] || { row "$1" "(needs tmux)"; return; }
	start_workload
	rm -f "$TMP/t"
	tmux new-session -d -s $S -x 160 -y 45 \
		"$TIME -o $TMP/t -f '%U %S' $(echo "$2" | sed "s/WLPID/$WL/g") 2>/dev/null"
	wait $WL
	sleep 1.5
	tmux send-keys -t $S q
	i=0
	while [ ! -s "$TMP/t" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	tmux kill-session -t $S 2>/dev/null
	result "$1" "$TMP/t"
}

find_kvm_stat || KS=
echo "top bench: exitgen --io 100000 --vcpus 2 --seconds $SECONDS_RUN (nopv), $REPS run(s) each, 1 s interval"
[ -n "$KS" ] || echo "kvm_stat not found (apt-get install linux-source-6.1, or KVM_STAT=path): its rows are skipped"
[ -n "${KS_NOTE:-}" ] && echo "$KS_NOTE"
row observer workload_s exits cpu_s ns/exit
r=0
while [ $r -lt "$REPS" ]; do
	start_workload
	wait $WL
	row none "$(workload_s)" "$(exits)" - -
	run_log "kvm-exitstat top -l" "$KES top -l -d 1 -p WLPID"
	[ -n "$KS" ] && run_log "kvm_stat -l" "$PY $KS -t -l -s 1 -p WLPID"
	run_screen "kvm-exitstat top" "$KES top -d 1 -p WLPID"
	[ -n "$KS" ] && run_screen "kvm_stat" "$PY $KS -t -s 1 -p WLPID"
	r=$((r + 1))
done
