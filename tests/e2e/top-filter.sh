#!/bin/sh
# top -f REGEX matches a reason from its first character, as kvm_stat's
# re.match() does (anchored at the start, not at the end): in --once and in
# --log alike. 'IO' is then no reason's prefix; 'KVM_EXIT_M' is MMIO's only.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
need_kvm

# once ARGS...: top --once over a fresh exitgen (IO, MMIO, HLT), table in $TMP/once
once() {
	"$EXITGEN" --io 300 --mmio 200 --hlt 20 --start-on-usr1 >"$TMP/eg.out" 2>&1 &
	E=$!
	wait_line "$TMP/eg.out" '^exitgen: pid'
	observe "$E" timeout 60 "$KES" top --once -d 30 -p "$E" "$@" >"$TMP/once" 2>"$TMP/err"
	rc=$?
	wait $E
	[ $rc -eq 0 ] || echo "top --once $*: rc $rc: $(cat "$TMP/err")"
	return $rc
}
rows() { awk '/^REASON/ { on = 1; next } /^Total/ { on = 0 } on { print $1 }' "$TMP/once" | sort | tr '\n' ' '; }

once -f 'KVM_EXIT_(IO|HLT)'
eq "-f 'KVM_EXIT_(IO|HLT)': exit status" $? 0
eq "-f 'KVM_EXIT_(IO|HLT)': the rows" "$(rows)" "KVM_EXIT_HLT KVM_EXIT_IO "
once -f 'KVM_EXIT_M'
eq "-f 'KVM_EXIT_M': MMIO only (a prefix)" "$(rows)" "KVM_EXIT_MMIO "
once -f 'IO'
eq "-f 'IO': no reason starts with IO" "$(rows)" ""
once -f 'HLT$'
eq "-f 'HLT\$': anchored at the start only, like re.match" "$(rows)" ""
once -f '.*HLT$'
eq "-f '.*HLT\$'" "$(rows)" "KVM_EXIT_HLT "

# --log -c: the columns are the reasons the regex lets through.
"$EXITGEN" --io 300 --mmio 200 --hlt 20 --start-on-usr1 >"$TMP/eg.out" 2>&1 &
E=$!
wait_line "$TMP/eg.out" '^exitgen: pid'
observe "$E" timeout 60 "$KES" top -l -c -d 0.3 -f 'KVM_EXIT_MM' -p "$E" >"$TMP/log.csv" 2>"$TMP/err"
eq "--log -c -f 'KVM_EXIT_MM': exit status" $? 0
wait $E
eq "--log -c -f 'KVM_EXIT_MM': the columns" "$(head -1 "$TMP/log.csv")" "timestamp,KVM_EXIT_MMIO,total,lost"
summary
