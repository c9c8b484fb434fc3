#!/bin/sh
# record -d with a command: the command is ended when -d elapses (SIGTERM,
# like timeout(1)), and record exits with its status; with --detach it keeps
# running, untraced, and record exits 0. record -e EVENT adds a tracepoint,
# -e '!EVENT' drops one of the default ones.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
need_kvm
need_tools

# -d ends the command at once with SIGTERM (it would sleep 30 s).
t0=$(date +%s)
"$KES" record -o "$TMP/d.dat" -d 1 -- sleep 30 2>"$TMP/d.err"
rc=$?
t1=$(date +%s)
eq "-d: record exits with the command's status (128 + SIGTERM)" "$rc" 143
# (sleep 30 left alone would take 30 s; the bound is loose for a loaded machine)
check "-d: the command was ended when -d elapsed ($((t1 - t0)) s, want < 10)" test $((t1 - t0)) -lt 10
check "-d: the summary says the command was ended" grep -q 'command killed by signal 15' "$TMP/d.err"
check "-d: the file was written" test -s "$TMP/d.dat"

# --detach: the command outlives the recording and finishes its work.
rm -f "$TMP/done"
t0=$(date +%s)
"$KES" record -o "$TMP/x.dat" -d 1 --detach -- sh -c "sleep 6; echo done >'$TMP/done'" 2>"$TMP/x.err"
rc=$?
t1=$(date +%s)
eq "--detach: record's exit status" "$rc" 0
# what --detach promises is an order, not a time: record ended, the command runs on
check "--detach: record ended at -d, before its command ($((t1 - t0)) s)" test ! -e "$TMP/done"
check "--detach: the summary says the command runs on" grep -q 'command left running (pid [0-9]*)' "$TMP/x.err"
check "--detach: the file was written" test -s "$TMP/x.dat"
wait_line "$TMP/done" done
check "--detach: the command ran to its end" grep -q done "$TMP/done"
"$KES" record -o "$TMP/y.dat" --detach -- true 2>"$TMP/y.err"
eq "--detach without -d: usage error" "$?" 2
check "--detach without -d: says why" grep -q -- '--detach goes with -d' "$TMP/y.err"

# -e: sched_switch too (KernelShark's view of the vCPU threads), in the file.
"$KES" record -q -o "$TMP/e.dat" -e sched:sched_switch -- "$EXITGEN" --io 2000 >"$TMP/eg.out" 2>"$TMP/e.err"
eq "-e sched:sched_switch: exit status" "$?" 0
"$DATCOUNT" "$TMP/e.dat" >"$TMP/dc"
check "-e sched:sched_switch: recorded ($(dc event sched:sched_switch "$TMP/dc"))" \
	test "$(dc event sched:sched_switch "$TMP/dc")" -gt 0
"$DATCOUNT" -k kvm:kvm_userspace_exit:reason "$TMP/e.dat" >"$TMP/dck"
eq "-e: the KVM exits are all still there" "$(dc key 2 "$TMP/dck")" "$(eg_total KVM_EXIT_IO "$TMP/eg.out")"
check "-e: trace-cmd reads sched_switch" sh -c "trace-cmd report '$TMP/e.dat' 2>/dev/null | grep -q sched_switch"
"$KES" report -i "$TMP/e.dat" -f csv --source userspace >"$TMP/csv" 2>"$TMP/rep.err"
eq "-e: report exit status" "$?" 0
eq "-e: report counts KVM_EXIT_IO" "$(awk -F, '$1 == "KVM_EXIT_IO" { print $4 }' "$TMP/csv")" \
	"$(eg_total KVM_EXIT_IO "$TMP/eg.out")"

# -e '!EVENT': one of the defaults left out. With MMIO stores: the kernel
# emulates each (kvm_emulate_insn) where an `out` is not emulated (SVM's IOIO
# intercept, the lab host's).
"$KES" record -q -o "$TMP/n.dat" -e '!kvm:kvm_emulate_insn' -- "$EXITGEN" --io 2000 --mmio 100 >"$TMP/eg.out" 2>"$TMP/n.err"
eq "-e '!kvm:kvm_emulate_insn': exit status" "$?" 0
"$DATCOUNT" "$TMP/n.dat" >"$TMP/dc"
eq "-e '!kvm:kvm_emulate_insn': none recorded" "$(dc event kvm:kvm_emulate_insn "$TMP/dc")" 0
eq "-e '!...': kvm_pio still recorded, one per IO exit" "$(dc event kvm:kvm_pio "$TMP/dc")" \
	"$(eg_total KVM_EXIT_IO "$TMP/eg.out")"
"$KES" record -q -o "$TMP/m.dat" -- "$EXITGEN" --io 2000 --mmio 100 >"$TMP/eg.out" 2>/dev/null
"$DATCOUNT" "$TMP/m.dat" >"$TMP/dc"
check "without -e: kvm_emulate_insn recorded (precondition)" test "$(dc event kvm:kvm_emulate_insn "$TMP/dc")" -gt 0

# An event that does not exist: one line, exit 1, no file.
"$KES" record -o "$TMP/bad.dat" -e nosuch:event -- true 2>"$TMP/bad.err"
eq "-e nosuch:event: exit status" "$?" 1
check "-e nosuch:event: says which" grep -q "no event 'nosuch:event'" "$TMP/bad.err"
check "-e nosuch:event: no file" test ! -e "$TMP/bad.dat"
"$KES" record -o "$TMP/bad.dat" -e sched -- true 2>"$TMP/bad.err"
eq "-e without SYSTEM:EVENT: usage error" "$?" 2
summary
