#!/bin/sh
# record a known workload while another KVM user runs: the file must hold
# exactly the workload's exits (exitgen's own counts), nothing of the other
# VM, and `trace-cmd report` must see exactly what libtracecmd sees.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
need_kvm
need_tools
trap 'stop_decoy; rm -rf "$TMP"' EXIT
start_decoy

"$KES" record -o "$TMP/r.dat" -- "$EXITGEN" --io 1000 --mmio 500 --hlt 100 --vcpus 2 \
	>"$TMP/eg.out" 2>"$TMP/rec.err" &
R=$!
wait $R
eq "record exit status" "$?" 0
stop_decoy
check "no tracefs instance left" test ! -e "$INSTANCES/kvm-exitstat-$R"
check "exitgen ran" grep -q '^total' "$TMP/eg.out"

"$DATCOUNT" -k kvm:kvm_userspace_exit:reason "$TMP/r.dat" >"$TMP/dc"
eq "KVM_EXIT_IO (2)" "$(dc key 2 "$TMP/dc")" "$(eg_total KVM_EXIT_IO "$TMP/eg.out")"
eq "KVM_EXIT_MMIO (6)" "$(dc key 6 "$TMP/dc")" "$(eg_total KVM_EXIT_MMIO "$TMP/eg.out")"
eq "KVM_EXIT_HLT (5)" "$(dc key 5 "$TMP/dc")" "$(eg_total KVM_EXIT_HLT "$TMP/eg.out")"
eq "no other userspace exit reason" "$(grep -c '^key' "$TMP/dc")" 3
eq "no loss" "$(dc lost '' "$TMP/dc")" 0

# Every event belongs to exitgen's process or its vCPU threads.
pargs="-p $(awk '/^exitgen: pid/ { print $3 }' "$TMP/eg.out")"
for t in $(awk '/^vcpu/ { print $4 }' "$TMP/eg.out"); do pargs="$pargs -p $t"; done
# shellcheck disable=SC2086
eq "events of the workload = all events" "$("$DATCOUNT" $pargs "$TMP/r.dat" | awk '$1 == "total" { print $2 }')" \
	"$(dc total '' "$TMP/dc")"

# trace-cmd's own reader agrees, event by event, and reason by reason.
tc_counts "$TMP/r.dat" >"$TMP/tc"
dc_counts "$TMP/r.dat" >"$TMP/dcc"
check "trace-cmd report read events" test -s "$TMP/tc"
eq "trace-cmd report = libtracecmd, per event" "$(cat "$TMP/tc")" "$(cat "$TMP/dcc")"
eq "trace-cmd report: KVM_EXIT_IO" "$(trace-cmd report "$TMP/r.dat" 2>/dev/null | grep -c 'kvm_userspace_exit: *reason KVM_EXIT_IO (2)')" \
	"$(eg_total KVM_EXIT_IO "$TMP/eg.out")"
check "comm names resolve (saved_cmdlines)" sh -c "trace-cmd report '$TMP/r.dat' 2>/dev/null | grep -q 'exitgen-vcpu'"

# The summary line tells the same numbers.
eq "summary: events" "$(sed -n 's/.*recorded \([0-9]*\) events.*/\1/p' "$TMP/rec.err")" "$(dc total '' "$TMP/dc")"
check "summary: command status" grep -q 'command exited with status 0' "$TMP/rec.err"

# kvm-exitstat report: per reason, timed + untimed = the workload's count.
"$KES" report -i "$TMP/r.dat" -f csv --source userspace >"$TMP/csv" 2>"$TMP/rep.err"
eq "report exit status" "$?" 0
for r in IO MMIO HLT; do
	eq "report KVM_EXIT_$r" "$(awk -F, -v n="KVM_EXIT_$r" '$1 == n { print $4 }' "$TMP/csv")" \
		"$(eg_total KVM_EXIT_$r "$TMP/eg.out")"
done

# Where kvm_exit fires: each reason the lab's rule over exitgen's counts, and
# as many kvm_exit events as trace-cmd's text shows.
"$KES" report -i "$TMP/r.dat" -f csv --source exits >"$TMP/x.csv" 2>"$TMP/x.err"
eq "report --source exits: exit status" "$?" 0
exits_exact "kvm_exit" "$TMP/x.csv" "$TMP/eg.out"
if [ -n "$EXIT_RULES" ]; then
	eq "kvm_exit: the report's exits = trace-cmd report's kvm_exit lines" \
		"$(awk -F, 'NR > 1 && $2 == -1 && $17 == "" && $1 != "TIMEINGUEST" { n += $4 } END { print n }' "$TMP/x.csv")" \
		"$(trace-cmd report "$TMP/r.dat" 2>/dev/null | grep -c ' kvm_exit: ')"
fi

# record exits with the traced command's status, like time(1) and perf stat,
# after writing the file: N, 128+N when a signal N killed it, 127 when it
# could not be run.
status() { # WANT DESCRIPTION COMMAND...
	want=$1 d=$2
	shift 2
	rm -f "$TMP/f.dat"
	"$KES" record -o "$TMP/f.dat" -- "$@" 2>"$TMP/f.err"
	eq "$d: record's exit status" "$?" "$want"
	check "$d: the file was written" test -s "$TMP/f.dat"
}
status 0 "command exits 0" true
status 3 "command exits 3" sh -c 'exit 3'
check "command status reported" grep -q 'command exited with status 3' "$TMP/f.err"
status 137 "command killed by SIGKILL" sh -c 'kill -KILL $$'
check "command signal reported" grep -q 'command killed by signal 9' "$TMP/f.err"
status 127 "command cannot run" /nonexistent/cmd
check "a command that cannot run is reported" grep -q "cannot run '/nonexistent/cmd'" "$TMP/f.err"
"$KES" record -q -o "$TMP/q.dat" -- sh -c 'exit 5' 2>"$TMP/q.err"
eq "-q: still the command's status" "$?" 5
check "-q: nothing on stderr" test ! -s "$TMP/q.err"
summary
