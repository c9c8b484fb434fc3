#!/bin/sh
# top --by-guest under tmux: the drill-down of a reason lists the guest's pcs
# at its exits, named from exitgen's own map of its guest code
# (--guest-kallsyms), each pc's count the workload's own (exitgen's output:
# every `out` of the io loop, then one done `out` per pass). Option misuse
# gets one line and a non-zero exit.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
. "$(dirname "$0")/../tools/tmux-helpers.sh"
need_kvm
command -v tmux >/dev/null 2>&1 || { bad "needs tmux (make deps)"; summary; exit 1; }
case $KES in /*) ;; *) KES=$PWD/$KES ;; esac
S=kes-topg-$$
trap 'tm kill-server 2>/dev/null; rm -rf "$TMP"' EXIT

"$EXITGEN" --io 300 --vcpus 1 --guest-map "$TMP/eg.map" --start-on-usr1 >"$TMP/eg.out" 2>&1 &
E=$!
wait_line "$TMP/eg.out" '^exitgen: pid'
cat >"$TMP/run.sh" <<RUN
sh -c 'echo \$\$ >"$TMP/top.pid"; exec "\$@"' sh "$KES" top -p $E -d 0.5 --by-guest \
	--guest-kallsyms "$TMP/eg.map" 2>"$TMP/top.err"
echo \$? >"$TMP/rc"
sleep 600
RUN
tm_fresh
tm new-session -d -s $S -x 160 -y 45 "sh $TMP/run.sh"
wait_file "$TMP/top.pid"
wait_traced "$E"
kill -USR1 "$E"
wait $E
eq "exitgen exit status" "$?" 0
ops=$(field ops_io "$(grep '^vcpu 0' "$TMP/eg.out")")
passes=$(field passes "$(grep '^vcpu 0' "$TMP/eg.out")")
io_at() { awk '$1 == "pc" && $3 ~ /^eg_io(\+|$)/ { print $4; exit }' "$TMP/pane"; }
done_at() { awk '$1 == "pc" && $3 ~ /^eg_done(\+|$)/ { print $4; exit }' "$TMP/pane"; }
# only the io reason (the filter key), then its drill-down
keys f io Enter
check "f io: the io row" until_pane has "^io "
keys x
check "x: the drill-down of io" until_pane has "io by vCPU thread"
check "x: a pc in eg_io" until_pane has "eg_io"
pane
eq "x: io exits at eg_io (exitgen's ops_io)" "$(io_at)" "$ops"
eq "x: io exits at eg_done (one a pass)" "$(done_at)" "$passes"
keys q
check "q: top ends" wait_file "$TMP/rc"
eq "top exit status" "$(cat "$TMP/rc")" 0
eq "top stderr" "$(cat "$TMP/top.err")" ""

for bad in "--by-guest --once" "--by-guest -l" "--guest-kallsyms $TMP/eg.map" "--by-guest --stats"; do
	"$KES" top $bad >/dev/null 2>"$TMP/e"
	check "top $bad: refused" [ $? -ne 0 ]
	eq "top $bad: one line" "$(wc -l <"$TMP/e")" 1
done
"$KES" top --by-guest --guest-kallsyms "$TMP/nope" >/dev/null 2>"$TMP/e"
check "top: a missing symbol file refused" [ $? -ne 0 ]
eq "top: a missing symbol file: one line" "$(wc -l <"$TMP/e")" 1
summary
