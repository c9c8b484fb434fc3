#!/bin/sh
# top: the live view under tmux (keys change what is shown, the terminal is
# given back after q and after SIGTERM, no instance is left behind), and the
# --once and --log outputs, all checked against exitgen's own counts. A
# second VM (the decoy) runs all along: the pid filters must keep it out.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
. "$(dirname "$0")/../tools/tmux-helpers.sh"
need_kvm
command -v tmux >/dev/null 2>&1 || skip "needs tmux (apt-get install tmux)"
case $KES in /*) ;; *) KES=$PWD/$KES ;; esac
S=kes-top-$$
trap 'tm kill-server 2>/dev/null; stop_decoy; rm -rf "$TMP"' EXIT
# KVM_EXIT_* rows: the userspace exits, whether or not kvm_exit fired here.
US="--source userspace"

# start_top ARGS...: top in a tmux pane; the pane records stty -a before and
# after it, and its exit status, in $TMP.
start_top() {
	rm -f "$TMP/rc" "$TMP/top.pid" "$TMP/stty.before" "$TMP/stty.after"
	cat >"$TMP/run.sh" <<EOF
stty -a | sed 1d >"$TMP/stty.before" # line 1: speed and size
sh -c 'echo \$\$ >"$TMP/top.pid"; exec "\$@"' sh "$KES" top "\$@" 2>"$TMP/top.err"
rc=\$?
stty -a | sed 1d >"$TMP/stty.after" # before rc: top_done waits for rc
echo \$rc >"$TMP/rc"
sleep 600
EOF
	tm_fresh
	tm new-session -d -s $S -x 160 -y 45 "sh $TMP/run.sh $*"
	wait_file "$TMP/top.pid"
	TOP=$(cat "$TMP/top.pid")
}
# col NAME N [FILE]: field N of the row whose first word is NAME
col() { awk -v n="$1" -v c="$2" '$1 == n { print $c; exit }' "${3:-$TMP/pane}"; }
row_is() { [ "$(col "$1" 2)" = "$2" ]; }
# The reason rows' field N, in screen order, as microseconds.
column_us() {
	awk -v c="$1" '/^REASON/ { on = 1; next } /^Total/ { on = 0 } on && NF > 5 {
		v = $c; m = 1
		if (v ~ /ms$/) { m = 1000; sub(/ms$/, "", v) } else if (v ~ /s$/) { m = 1e6; sub(/s$/, "", v) }
		print v * m }' "$TMP/pane"
}
descending() { column_us "$1" | awk 'NR > 1 && $1 > prev { bad = 1 } { prev = $1 } END { exit bad }'; }
# Every kvm-exitstat instance left has a live owner (ours end with their run).
no_stale() {
	for d in /sys/kernel/tracing/instances/kvm-exitstat-*; do
		[ -d "$d" ] || continue
		kill -0 "${d##*-}" 2>/dev/null || return 1
	done
	return 0
}
instance_gone() { [ ! -d "/sys/kernel/tracing/instances/kvm-exitstat-$1" ]; }
# rc is written before stty.after: wait for both (under load the cmp raced the stty)
top_done() { wait_file "$TMP/rc"; wait_file "$TMP/stty.after"; [ -s "$TMP/rc" ]; }

start_decoy
D=$DECOY
"$EXITGEN" --io 3000 --mmio 1000 --hlt 200 --vcpus 2 --start-on-usr1 >"$TMP/eg.out" 2>&1 &
E=$!
wait_line "$TMP/eg.out" '^exitgen: pid'
start_top -p "$E,$D" -d 0.5 $US
wait_traced "$E"
kill -USR1 "$E"
check "top shows its header" until_pane has "kvm-exitstat top"
wait $E
eq "exitgen exit status" "$?" 0
IO=$(eg_total KVM_EXIT_IO "$TMP/eg.out")
MMIO=$(eg_total KVM_EXIT_MMIO "$TMP/eg.out")
HLT=$(eg_total KVM_EXIT_HLT "$TMP/eg.out")

# The pid filter key: only the workload's VM; totals exact once it has ended.
keys p "$E" Enter
check "p $E: KVM_EXIT_IO total" until_pane row_is KVM_EXIT_IO "$IO"
eq "p $E: KVM_EXIT_MMIO total" "$(col KVM_EXIT_MMIO 2)" "$MMIO"
eq "p $E: KVM_EXIT_HLT total" "$(col KVM_EXIT_HLT 2)" "$HLT"
eq "p $E: Total" "$(col Total 2)" $((IO + MMIO + HLT))
check "header: two VMs traced" has "VMs 2"
check "header says which exits are shown" has "exits: "
eq "sorted by total: first row" "$(awk '/^REASON/ { getline; print $1 }' "$TMP/pane")" KVM_EXIT_IO

# Sort keys.
keys M
check "M: sort by Max" until_pane has "sort Max"
check "M: MAX column descending" descending 7
keys A
check "A: sort by Avg" until_pane has "sort Avg"
check "A: AVG column descending" descending 5
keys T
check "T: sort by Total" until_pane has "sort Total"
check "T: TOTAL column descending" descending 2

# Regex filter on reasons, matched from the start of the name (kvm_stat's re.match).
keys f KVM_EXIT_H Enter
check "f KVM_EXIT_H: only KVM_EXIT_HLT" until_pane has "regex /KVM_EXIT_H/"
eq "f HLT: KVM_EXIT_IO hidden" "$(col KVM_EXIT_IO 2)" ""
eq "f HLT: Total is the HLT exits" "$(col Total 2)" "$HLT"

# Drill-down of the selected (first) reason: per vCPU thread and per port.
keys c p "$E" Enter
check "back to all reasons of $E" until_pane row_is KVM_EXIT_MMIO "$MMIO"
keys x
check "x: drill-down by vCPU thread" until_pane has "KVM_EXIT_IO by vCPU thread"
for t in $(awk '/^vcpu/ { print $4 }' "$TMP/eg.out"); do
	want=$(field KVM_EXIT_IO "$(awk -v t="$t" '/^vcpu/ && $4 == t' "$TMP/eg.out")")
	# a drill-down row: "tTID [vN] VM comm" (thread and VM first), then the numbers
	got=$(awk -v t="t$t" '$1 == t { for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+$/) { print $i; exit } }' "$TMP/pane")
	eq "x: KVM_EXIT_IO of vCPU thread $t" "$got" "$want"
done
eq "x: sub-key port 0x80 (the workload's out)" "$(awk '$1 == "port" && $2 == "0x80" { print $3 }' "$TMP/pane")" \
	$((IO - 2))
eq "x: sub-key port 0xf4 (the done exits)" "$(awk '$1 == "port" && $2 == "0xf4" { print $3 }' "$TMP/pane")" 2
keys x
check "x again: back to the reasons" until_pane has "^REASON"

# Per-VM breakdown, both VMs (no filter).
keys c b
check "b: per-VM rows" until_pane has "^VM "
# the rows, not just the heading: a capture can fall between the two
check "b: the workload's VM, all its $((IO + MMIO + HLT)) exits" until_pane row_is "exitgen[$E]" $((IO + MMIO + HLT))
check "b: the other VM is a row too" test -n "$(col "exitgen[$D]" 2)"
keys b

# Reset: the finished workload's exits are gone.
keys p "$E" Enter r
check "r: counters reset" until_pane has "No exits seen yet"

keys q
check "q: top ended" top_done
eq "q: exit status" "$(cat "$TMP/rc")" 0
check "q: terminal settings restored" cmp -s "$TMP/stty.before" "$TMP/stty.after"
check "q: instance removed" instance_gone "$TOP"
check "q: nothing on stderr" test ! -s "$TMP/top.err"

# SIGTERM while drawing.
start_top -p "$D" -d 0.3 $US
check "SIGTERM run shows the other VM" until_pane has KVM_EXIT_IO
# A smaller terminal (SIGWINCH): the screen is laid out and painted again.
tm resize-window -t $S -x 100 -y 14
check "resize: the rows are drawn again, labels included" until_pane has "^KVM_EXIT_IO  .*[0-9]"
check "resize: the header is drawn again" has "^kvm-exitstat top - host"
key_line_at() { [ "$(sed -n "$1p" "$TMP/pane" | cut -c1-6)" = "h help" ]; }
check "resize: the key line is at the new bottom" until_pane key_line_at 14
kill -TERM "$TOP"
check "SIGTERM: top ended" top_done
eq "SIGTERM: exit status" "$(cat "$TMP/rc")" 0
check "SIGTERM: terminal settings restored" cmp -s "$TMP/stty.before" "$TMP/stty.after"
check "SIGTERM: instance removed" instance_gone "$TOP"
tm_fresh

# --once: one table, checked against exitgen; it ends when the traced VM does.
"$EXITGEN" --io 2000 --mmio 700 --hlt 100 --vcpus 2 --start-on-usr1 >"$TMP/eg2.out" 2>&1 &
E2=$!
wait_line "$TMP/eg2.out" '^exitgen: pid'
# beside it, the same --once at 200 columns (COLUMNS must not decide: --width does)
COLUMNS=100 timeout 60 "$KES" top --once --width 200 -d 30 -p "$E2" >"$TMP/once200.out" 2>&1 &
W200=$!
timeout 60 "$KES" top --once -d 30 -p "$E2" $US >"$TMP/once.out" 2>"$TMP/once.err" &
T=$!
wait_traced "$E2" 2
kill -USR1 "$E2"
wait $T
eq "--once exit status" "$?" 0
wait $E2
wait $W200
# 80 columns when the output is not a terminal; the header folds between its parts
check "--once into a file: no line over 80 columns ($(awk 'length > 80' "$TMP/once.out" | head -n 1))" \
	test -z "$(awk 'length > 80' "$TMP/once.out")"
check "--once: the VMs line folded between parts, continued indented" \
	sh -c "grep -q '^VMs 1 (all exited): exitgen\[$E2\](exited); ' '$TMP/once.out' && grep -q '^  .*tracing pid $E2\$' '$TMP/once.out'"
check "--once --width 200: the VMs line whole ($(grep '^VMs' "$TMP/once200.out"))" \
	grep -q "^VMs 1 (all exited): exitgen\[$E2\](exited); events/s [0-9]*; lost 0; interval [0-9.]* s; tracing pid $E2\$" "$TMP/once200.out"
for r in KVM_EXIT_IO KVM_EXIT_MMIO KVM_EXIT_HLT; do
	eq "--once: $r" "$(col $r 2 "$TMP/once.out")" "$(eg_total $r "$TMP/eg2.out")"
done
check "--once: the VM is named" grep -q "exitgen\[$E2\]" "$TMP/once.out"
# the default view (--width 200 beside it): where kvm_exit fires, its table,
# every reason the lab's rule over exitgen's counts
once_rows "$TMP/once200.out" >"$TMP/once200.rows"
exits_counts_exact "--once, the default view (kvm_exit)" "$TMP/once200.rows" "$TMP/eg2.out"

# A VM whose parent never reaps it (a zombie once it ends) has exited: --once
# ends with it and says so. kill(pid, 0) still succeeds on a zombie.
( "$EXITGEN" --io 500 --vcpus 1 --start-on-usr1 >"$TMP/eg5.out" 2>&1 & exec sleep 120 ) &
ZP=$!
wait_line "$TMP/eg5.out" '^exitgen: pid'
E5=$(sed -n 's/^exitgen: pid \([0-9]*\).*/\1/p' "$TMP/eg5.out")
timeout 60 "$KES" top --once --width 200 -d 30 -p "$E5" >"$TMP/oncez.out" 2>&1 &
T=$!
wait_traced "$E5"
kill -USR1 "$E5"
wait $T
eq "--once, a zombie VM: exit status" "$?" 0
check "--once, a zombie VM: still a zombie (precondition: $(cut -d' ' -f3 /proc/"$E5"/stat 2>/dev/null))" \
	test "$(cut -d' ' -f3 /proc/"$E5"/stat 2>/dev/null)" = Z
check "--once, a zombie VM: exited ($(grep '^VMs' "$TMP/oncez.out"))" \
	grep -q "^VMs 1 (all exited): exitgen\[$E5\](exited);" "$TMP/oncez.out"
kill "$ZP"
wait "$ZP" 2>/dev/null
check "--once: no instance left" no_stale

# --log -c: one CSV line per interval; the columns add up to exitgen's counts.
"$EXITGEN" --io 3000 --mmio 500 --hlt 50 --vcpus 2 --start-on-usr1 >"$TMP/eg3.out" 2>&1 &
E3=$!
wait_line "$TMP/eg3.out" '^exitgen: pid'
# beside it, the same log of the default view (the kvm_exit table where it fires)
timeout 60 "$KES" top -l -c -d 0.2 -p "$E3" >"$TMP/logx.csv" 2>"$TMP/logx.err" &
TX=$!
observe_start "$E3" timeout 60 "$KES" top -l -c -d 0.2 -p "$E3" $US >"$TMP/log.csv" 2>"$TMP/log.err"
wait_traced "$E3" 2
observe_end
eq "--log -c exit status (ends with the VM)" "$?" 0
wait $TX
eq "--log -c, the default view: exit status" "$?" 0
wait $E3
check "--log -c: CSV header first" grep -q '^timestamp,.*KVM_EXIT_IO' "$TMP/log.csv"
csv_sum() { # COLUMN FILE...: sum of a column over the data lines
	n=$1
	shift
	awk -F, -v n="$n" 'FNR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; next } { s += $c } END { print s + 0 }' "$@"
}
for r in KVM_EXIT_IO KVM_EXIT_MMIO KVM_EXIT_HLT; do
	eq "--log -c: $r summed" "$(csv_sum $r "$TMP/log.csv")" "$(eg_total $r "$TMP/eg3.out")"
done
check "--log -c: every data line has every column" awk -F, 'NR == 1 { n = NF } NF != n { exit 1 }' "$TMP/log.csv"
# where kvm_exit fires: the default view's columns (one per reason of the
# table) summed, each reason that had exits its rule's count
awk -F, -v OFS="$(printf '\t')" 'NR == 1 { for (i = 1; i <= NF; i++) n[i] = $i; next }
	{ for (i = 1; i <= NF; i++) s[i] += $i }
	END { for (i in n) if (n[i] !~ /^(timestamp|total|lost)$/ && s[i]) print n[i], s[i] }' "$TMP/logx.csv" >"$TMP/logx.rows"
exits_counts_exact "--log -c, the default view (kvm_exit)" "$TMP/logx.rows" "$TMP/eg3.out"
[ -z "$EXIT_RULES" ] || eq "--log -c, the default view: lost" "$(csv_sum lost "$TMP/logx.csv")" 0
check "--log: no instance left" no_stale

# --log -c when a reason first appears intervals after the start: the CSV
# keeps its one header (it printed it again mid-file for each new reason).
# Both held (--start-on-usr1) until top traces them, then the MMIO one let go
# a few intervals after the IO one (fixed start delays raced a loaded lab
# guest in a CI rehearsal: the IO run had ended before top began).
"$EXITGEN" --io 500 --start-on-usr1 >"$TMP/eg6.out" 2>&1 &
E6=$!
"$EXITGEN" --mmio 300 --hlt 20 --start-on-usr1 >"$TMP/eg7.out" 2>&1 &
E7=$!
wait_line "$TMP/eg6.out" '^exitgen: pid'
wait_line "$TMP/eg7.out" '^exitgen: pid'
timeout 60 "$KES" top -l -c -d 0.2 -p "$E6,$E7" $US >"$TMP/log2.csv" 2>"$TMP/log2.err" &
T6=$!
wait_traced "$E6"
kill -USR1 "$E6"
sleep 1.5
kill -USR1 "$E7"
wait $T6
eq "--log -c, late reasons: exit status" "$?" 0
wait $E6 $E7
eq "--log -c, late reasons: header lines" "$(grep -c '^timestamp,' "$TMP/log2.csv")" 1
check "--log -c, late reasons: the MMIO exits came in a later line than the first IO" \
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "KVM_EXIT_IO") io = i; if ($i == "KVM_EXIT_MMIO") m = i }; next }
		$io > 0 && !fio { fio = NR } $m > 0 && !fm { fm = NR } END { exit !(fio && fm > fio) }' "$TMP/log2.csv"
for r in KVM_EXIT_IO KVM_EXIT_MMIO KVM_EXIT_HLT; do
	eq "--log -c, late reasons: $r summed" "$(csv_sum $r "$TMP/log2.csv")" \
		$(($(eg_total $r "$TMP/eg6.out") + $(eg_total $r "$TMP/eg7.out")))
done

# -L FILE: appended, reopened on SIGHUP (log rotation); nothing lost across.
# A paced workload (~9000 exits/s): a flood lost 20 % of its exits in the
# ring buffer on a loaded machine, which top says, but the sum is then short.
# The workload runs once top traces it: a fixed 3 s start delay lost the
# first 11 of 9,045 exits in a CI rehearsal (top not up yet in a loaded lab host).
"$EXITGEN" --io 200 --pause-us 20000 --vcpus 1 --seconds 3 --start-on-usr1 >"$TMP/eg4.out" 2>&1 &
E4=$!
wait_line "$TMP/eg4.out" '^exitgen: pid'
"$KES" top -L "$TMP/f.csv" -c -d 0.2 -p "$E4" $US 2>"$TMP/L.err" &
T=$!
wait_traced "$E4"
kill -USR1 "$E4"
i=0
while [ "$(cat "$TMP/f.csv" 2>/dev/null | wc -l)" -lt 3 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
mv "$TMP/f.csv" "$TMP/f1.csv"
kill -HUP $T
wait $T
eq "-L: exit status after SIGHUP" "$?" 0
wait $E4
check "-L: the reopened file starts with the header" grep -q '^timestamp,' "$TMP/f.csv"
check "-L: instance removed" instance_gone "$T"
eq "-L: no events lost (the lost column)" "$(csv_sum lost "$TMP/f1.csv" "$TMP/f.csv")" 0
eq "-L: KVM_EXIT_IO over both files" "$(csv_sum KVM_EXIT_IO "$TMP/f1.csv" "$TMP/f.csv")" \
	"$(eg_total KVM_EXIT_IO "$TMP/eg4.out")"

# -g: a VM named by QEMU's -name, either form ("guest=a,,b" is "a,b").
# named_vmm ARGS...: a VMM (it holds a VM) whose command line ends in ARGS
named_vmm() { "$EXITGEN" --io 1 --start-delay 30000 --quiet "$@" & }
named_vmm --name "guest=web$$,,x,debug-threads=on"
Q=$!
named_vmm --name "db$$,debug-threads=on"
Q2=$!
# a wrapper-like process with the same -name but no VM: never a match (timeout(1))
sh -c 'sleep 30' -name "db$$" &
NOVM=$!
sleep 0.5
"$KES" top -g "web$$,x" --once -d 0.2 >"$TMP/g.out" 2>"$TMP/g.err"
eq "-g (QEMU -name guest=): exit status" "$?" 0
check "-g: traced that VM's pid" grep -q "tracing guest web$$,x, pid $Q\$" "$TMP/g.out"
"$KES" top -g "db$$" --once -d 0.2 >"$TMP/g2.out" 2>&1
check "-g: -name NAME,..., and not the process without a VM" grep -q "pid $Q2\$" "$TMP/g2.out"
kill $Q $Q2 $NOVM
wait $Q $Q2 $NOVM 2>/dev/null

# Without -p: a VM that starts after top is picked up and named. The VM
# starts once top traces (its instance's tracing_on): a fixed 3 s head start
# for top was once not enough on a loaded CI machine, and the VM was missed.
timeout 60 "$KES" top -a --once -d 5 >"$TMP/all.out" 2>&1 &
T5=$!
n=0
until p=$(pgrep -P $T5) && [ "$(cat "/sys/kernel/tracing/instances/kvm-exitstat-$p/tracing_on" 2>/dev/null)" = 1 ]; do
	n=$((n + 1))
	[ $n -lt 300 ] || break
	sleep 0.1
done
check "-a: top traces within 30 s" [ $n -lt 300 ]
"$EXITGEN" --io 50000 --vcpus 1 --start-delay 500 >"$TMP/eg5.out" 2>&1 &
E5=$!
wait $T5
eq "-a --once exit status" "$?" 0
wait $E5
check "-a: the new VM is in the header" grep -q "exitgen\[$E5\]" "$TMP/all.out"

# Options.
"$KES" top -g no-such-vm-$$ --once >/dev/null 2>"$TMP/g.err"
eq "-g of no VM: exit status" "$?" 1
check "-g of no VM: message" grep -q "no VM named 'no-such-vm-$$'" "$TMP/g.err"
"$KES" top -f help >"$TMP/fh"
check "-f help lists the userspace reasons" grep -q KVM_EXIT_MMIO "$TMP/fh"
"$KES" top -c >/dev/null 2>&1
eq "-c without -l: usage error" "$?" 2
"$KES" top --once >/dev/null 2>&1 </dev/null
check "--once needs no terminal" test $? -eq 0
check "no kvm-exitstat instance is left behind" no_stale
summary
