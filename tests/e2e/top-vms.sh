#!/bin/sh
# Which processes top calls VMs: -g NAME picks processes that hold a KVM VM,
# not a wrapper whose command line carries the same -name (timeout(1));
# -p PID follows the children PID had before top started (a VMM under a
# wrapper); a VM's label follows its process through exec; the header says
# when all traced VMs have exited.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
need_kvm
# KVM_EXIT_* rows: the userspace exits, whether or not kvm_exit fired here.
US="--source userspace"

QEMU=$(command -v qemu-system-x86_64)
if [ -n "$QEMU" ]; then
	# QEMU under timeout: both command lines end in "-name guest=web$$,..."
	timeout 30 "$QEMU" -accel kvm -name "guest=web$$,debug-threads=on" -display none \
		-nodefaults -m 64 -serial none -monitor none >/dev/null 2>&1 &
	W=$!
	i=0
	while [ -z "$(pgrep -P $W)" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	Q=$(pgrep -P $W)
	# until QEMU holds its VM (an anon_inode:kvm-vm fd), what -g looks for: a
	# fixed second was too short once for a QEMU started beside CI's kernel build
	i=0
	while ! ls -l /proc/"$Q"/fd 2>/dev/null | grep -q 'kvm-vm' && [ $i -lt 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	timeout 30 "$KES" top -g "web$$" --once -d 0.5 >"$TMP/g.out" 2>"$TMP/g.err"
	eq "-g web$$: exit status ($(cat "$TMP/g.err"))" $? 0
	check "-g: the VM is QEMU's process ($Q), not timeout's ($W): $(grep -o 'tracing .*' "$TMP/g.out")" \
		grep -q "tracing guest web$$, pid $Q\$" "$TMP/g.out"
	check "-g: named by -name" grep -q "web$$\[$Q\]" "$TMP/g.out"
	kill $W 2>/dev/null
	wait $W 2>/dev/null
else
	echo "SKIP: -g against QEMU under timeout (no qemu-system-x86_64)"
fi

# -p of a wrapper whose VMM child was already running when top started.
sh -c '"$0" --io 3000 --hlt 30 --start-on-usr1 >"$1" 2>&1; echo done >>"$1"' \
	"$EXITGEN" "$TMP/eg.out" &
W=$!
wait_line "$TMP/eg.out" '^exitgen: pid'
E=$(awk '/^exitgen: pid/ { print $3 }' "$TMP/eg.out")
# beside it, the default view (the kvm_exit table where it fires)
timeout 60 "$KES" top -p "$W" --once -d 30 >"$TMP/px.out" 2>"$TMP/px.err" &
TX=$!
observe_start "$E" timeout 60 "$KES" top -p "$W" --once -d 30 $US >"$TMP/p.out" 2>"$TMP/p.err"
wait_traced "$E" 2
observe_end
eq "-p WRAPPER: exit status ($(cat "$TMP/p.err"))" $? 0
wait $TX
eq "-p WRAPPER, the default view: exit status ($(cat "$TMP/px.err"))" $? 0
wait $W
col() { awk -v n="$1" '$1 == n { print $2; exit }' "$2"; }
eq "-p WRAPPER: the child VMM's KVM_EXIT_IO" "$(col KVM_EXIT_IO "$TMP/p.out")" "$(eg_total KVM_EXIT_IO "$TMP/eg.out")"
eq "-p WRAPPER: the child VMM's KVM_EXIT_HLT" "$(col KVM_EXIT_HLT "$TMP/p.out")" "$(eg_total KVM_EXIT_HLT "$TMP/eg.out")"
check "-p WRAPPER: the VM is the child ($E)" grep -q "exitgen\[$E\]" "$TMP/p.out"
check "-p WRAPPER: all exited, the header says so" grep -q '^VMs 1 (all exited):' "$TMP/p.out"
once_rows "$TMP/px.out" >"$TMP/px.rows"
exits_counts_exact "-p WRAPPER, the default view (kvm_exit)" "$TMP/px.rows" "$TMP/eg.out"

# record -p WRAPPER: the same filter, the child's exits in the file.
DATCOUNT=${DATCOUNT:-${O:-build}/tests/tools/datcount}
sh -c '"$0" --io 3000 --start-on-usr1 >"$1" 2>&1' "$EXITGEN" "$TMP/eg3.out" &
W=$!
wait_line "$TMP/eg3.out" '^exitgen: pid'
observe "$(awk '/^exitgen: pid/ { print $3 }' "$TMP/eg3.out")" \
	timeout 60 "$KES" record -q -o "$TMP/w.dat" -p "$W" 2>"$TMP/w.err"
eq "record -p WRAPPER: exit status ($(cat "$TMP/w.err"))" $? 0
wait $W
"$DATCOUNT" -k kvm:kvm_userspace_exit:reason "$TMP/w.dat" >"$TMP/dc"
eq "record -p WRAPPER: the child's KVM_EXIT_IO in the file" "$(dc key 2 "$TMP/dc")" \
	"$(eg_total KVM_EXIT_IO "$TMP/eg3.out")"

# A process that becomes the VMM by exec: its label follows.
sh -c 'sleep 1.5; exec "$0" --io 2000 --start-delay 500 >"$1" 2>&1' "$EXITGEN" "$TMP/eg2.out" &
S=$!
sleep 0.3
timeout 60 "$KES" top -p "$S" --once -d 30 $US >"$TMP/x.out" 2>"$TMP/x.err"
eq "exec: exit status ($(cat "$TMP/x.err"))" $? 0
wait $S
check "exec: labelled as the VMM it became, exitgen[$S]: $(grep '^VMs' "$TMP/x.out")" \
	grep -q "exitgen\[$S\]" "$TMP/x.out"
check "exec: no sh[$S] left" sh -c "! grep -q 'sh\[$S\]' '$TMP/x.out'"
eq "exec: its KVM_EXIT_IO" "$(col KVM_EXIT_IO "$TMP/x.out")" "$(eg_total KVM_EXIT_IO "$TMP/eg2.out")"
summary
