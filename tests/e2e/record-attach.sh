#!/bin/sh
# Attaching: -p follows a running VMM's existing and new vCPU threads with
# exact counts and stops when it exits; -d ends a recording; -a takes all.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
need_kvm
need_tools
trap 'stop_decoy; rm -rf "$TMP"' EXIT
start_decoy

"$EXITGEN" --io 1000 --mmio 500 --hlt 100 --vcpus 2 --start-on-usr1 >"$TMP/eg.out" 2>&1 &
E=$!
wait_line "$TMP/eg.out" '^exitgen: pid'
eq "exitgen's pid line" "$(awk '/^exitgen: pid/ { print $3 }' "$TMP/eg.out")" "$E"
observe "$E" timeout 60 "$KES" record -o "$TMP/p.dat" -p "$E" 2>"$TMP/rec.err"
eq "record -p exit status (ends with the process)" "$?" 0
wait $E
"$DATCOUNT" -k kvm:kvm_userspace_exit:reason "$TMP/p.dat" >"$TMP/dc"
eq "-p: KVM_EXIT_IO" "$(dc key 2 "$TMP/dc")" "$(eg_total KVM_EXIT_IO "$TMP/eg.out")"
eq "-p: KVM_EXIT_MMIO" "$(dc key 6 "$TMP/dc")" "$(eg_total KVM_EXIT_MMIO "$TMP/eg.out")"
eq "-p: KVM_EXIT_HLT" "$(dc key 5 "$TMP/dc")" "$(eg_total KVM_EXIT_HLT "$TMP/eg.out")"
pargs="-p $E"
for t in $(awk '/^vcpu/ { print $4 }' "$TMP/eg.out"); do pargs="$pargs -p $t"; done
# shellcheck disable=SC2086
eq "-p: nothing of the other VM" "$("$DATCOUNT" $pargs "$TMP/p.dat" | awk '$1 == "total" { print $2 }')" \
	"$(dc total '' "$TMP/dc")"

"$KES" report -i "$TMP/p.dat" -f csv --source exits >"$TMP/x.csv" 2>/dev/null
exits_exact "-p, kvm_exit" "$TMP/x.csv" "$TMP/eg.out"

"$KES" record -o "$TMP/none.dat" -p 999999999 2>"$TMP/e"
eq "-p of no process: exit status" "$?" 1
check "-p of no process: message" grep -q 'no process 999999999' "$TMP/e"

# -d and -a: the decoy is a VM on the host, so -a sees its events.
timeout 60 "$KES" record -a -d 1 -o "$TMP/a.dat" 2>"$TMP/a.err"
eq "record -a -d 1 exit status" "$?" 0
dargs=
for t in $(decoy_tids); do dargs="$dargs -p $t"; done
check "the other VM has vCPU threads (precondition)" test -n "$dargs"
# shellcheck disable=SC2086
check "-a recorded the other VM" test "$("$DATCOUNT" $dargs "$TMP/a.dat" | awk '$1 == "total" { print $2 }')" -gt 0
check "-a: events recorded" test "$("$DATCOUNT" "$TMP/a.dat" | awk '$1 == "total" { print $2 }')" -gt 0
summary
