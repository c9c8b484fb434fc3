#!/bin/sh
# top at 80x24 (a private tmux server): every column on screen, %TIME
# included; reason names whole up to 18 characters; the drill-down's rows
# keep the thread id and the VM (exitgen[PID]).
. "$(dirname "$0")/lib.sh"
need_kvm
command -v tmux >/dev/null 2>&1 || skip "needs tmux"
case $KES in /*) ;; *) KES=$PWD/$KES ;; esac
S=kes-top80-$$
# KVM_EXIT_* rows: the userspace exits, whether or not kvm_exit fired here.
US="--source userspace"
. "$(dirname "$0")/../tools/tmux-helpers.sh"
# A paced VM (5 ms asleep after each pass; the pass's last exit then takes
# that long, one over 20 us for --slower-than): at full rate it took both
# CPUs of the lab host (TCG) from tmux and top. It runs until the test ends.
"$EXITGEN" --io 100 --mmio 20 --hlt 2 --vcpus 2 --pause-us 5000 --seconds 300 --quiet >/dev/null 2>&1 &
E=$!
trap 'tm kill-server 2>/dev/null; kill $E 2>/dev/null; rm -rf "$TMP"' EXIT
tm new-session -d -s $S -x 80 -y 24 "env TERM=screen-256color $KES top -p $E -d 0.3 --no-color $US"
wait_for() { # PATTERN: the pane, until it shows PATTERN (10 s)
	i=0
	while [ $i -lt 100 ]; do
		tm capture-pane -p -t $S >"$TMP/pane" 2>/dev/null
		grep -q "$1" "$TMP/pane" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
check "the view is up" wait_for KVM_EXIT_MMIO
# exitgen's exits come in turns: every reason on screen before the capture (under load, later)
wait_for "^KVM_EXIT_HLT " && wait_for "^KVM_EXIT_IO "
sleep 1
tm capture-pane -p -t $S >"$TMP/pane"
check "%TIME on screen at 80 columns" grep -q '%TIME' "$TMP/pane"
# every reason row: label then 7 numbers, the last %TIME (d.dd)
for r in KVM_EXIT_IO KVM_EXIT_MMIO KVM_EXIT_HLT; do
	line=$(grep "^$r " "$TMP/pane" | head -1)
	check "$r whole, with its %TIME ($line)" sh -c "echo '$line' | awk '{ exit !(NF == 8 && \$8 ~ /^[0-9]+\\.[0-9][0-9]\$/) }'"
done
eq "no line past 80" "$(awk 'length($0) > 80' "$TMP/pane" | wc -l | tr -d ' ')" 0
# drill into the first row: its vCPU threads, each with tid and VM
tm send-keys -t $S x
check "drill-down up" wait_for "by vCPU thread"
sleep 0.8
tm capture-pane -p -t $S >"$TMP/drill"
tids=$(ls /proc/$E/task | sort -n | tr '\n' ' ')
n=0
for t in $tids; do
	grep -q "^t$t .*\[$E\]" "$TMP/drill" && n=$((n + 1))
done
check "drill rows keep thread and VM ($n threads of $tids; $(grep -m1 '^t' "$TMP/drill"))" [ "$n" -ge 2 ]
tm send-keys -t $S q
# --once (no terminal): the table's lines within 80 columns too
"$KES" top --once -p $E -d 0.5 $US >"$TMP/once" 2>/dev/null
check "--once: a table" grep -q '^KVM_EXIT_IO ' "$TMP/once"
eq "--once: table lines within 80 columns" \
	"$(awk '/^REASON/ { on = 1 } on && length($0) > 80' "$TMP/once" | wc -l | tr -d ' ')" 0
# --slower-than: the latest such exits under the table, within 80 columns
sleep 0.3
tm_fresh
tm new-session -d -s $S -x 80 -y 24 "env TERM=screen-256color $KES top -p $E -d 0.3 --no-color --slower-than 20 $US"
check "--slower-than: the list's title" wait_for "Exits slower than 20 us"
# (the thread, its vCPU where known: kvm_exit's vcpu_id names it where kvm_exit fires, then the VM)
check "--slower-than: an exit listed (time, reason, thread, VM)" wait_for "KVM_EXIT_.* t[0-9]*\( v[0-9]*\)\{0,1\} exitgen\[$E\]"
tm capture-pane -p -t $S >"$TMP/slow"
eq "--slower-than: no line past 80" "$(awk 'length($0) > 80' "$TMP/slow" | wc -l | tr -d ' ')" 0
check "--slower-than: the table is still there" grep -q '^KVM_EXIT_IO ' "$TMP/slow"
tm send-keys -t $S q
summary
