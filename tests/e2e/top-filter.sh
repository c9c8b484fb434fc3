#!/bin/sh
# top -f REGEX matches a reason from its first character, as kvm_stat's
# re.match() does (anchored at the start, not at the end): in --once and in
# --log alike. 'IO' is then no reason's prefix; 'KVM_EXIT_M' is MMIO's only.
# The userspace exits (--source userspace) everywhere; where kvm_exit fires,
# its reasons (io, npf, hlt, interrupt) too: 'pf' is no prefix of npf.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
need_kvm
US="--source userspace"

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
shown() { awk '/^REASON/ { on = 1; next } /^Total/ { on = 0 } on { print $1 }' "$TMP/once" | sort | tr '\n' ' '; }

once $US -f 'KVM_EXIT_(IO|HLT)'
eq "-f 'KVM_EXIT_(IO|HLT)': exit status" $? 0
eq "-f 'KVM_EXIT_(IO|HLT)': the rows" "$(shown)" "KVM_EXIT_HLT KVM_EXIT_IO "
once $US -f 'KVM_EXIT_M'
eq "-f 'KVM_EXIT_M': MMIO only (a prefix)" "$(shown)" "KVM_EXIT_MMIO "
once $US -f 'IO'
eq "-f 'IO': no reason starts with IO" "$(shown)" ""
once $US -f 'HLT$'
eq "-f 'HLT\$': anchored at the start only, like re.match" "$(shown)" ""
once $US -f '.*HLT$'
eq "-f '.*HLT\$'" "$(shown)" "KVM_EXIT_HLT "

# kvm_exit's reasons, where it fires: the filter applies to them the same way.
if [ -n "$EXIT_RULES" ]; then
	once --source exits -f '(io|hlt)'
	eq "kvm_exit -f '(io|hlt)': exit status" $? 0
	eq "kvm_exit -f '(io|hlt)': the rows" "$(shown)" "hlt io "
	eq "kvm_exit -f '(io|hlt)': io = exitgen's KVM_EXIT_IO" "$(once_rows "$TMP/once" | awk '$1 == "io" { print $2 }')" \
		"$(eg_total KVM_EXIT_IO "$TMP/eg.out")"
	once --source exits -f 'pf'
	eq "kvm_exit -f 'pf': not npf (anchored at the start)" "$(shown)" ""
	once --source exits -f '.*pf$'
	eq "kvm_exit -f '.*pf\$': npf only" "$(shown)" "npf "
fi

# --log -c: the columns are the reasons the regex lets through.
"$EXITGEN" --io 300 --mmio 200 --hlt 20 --start-on-usr1 >"$TMP/eg.out" 2>&1 &
E=$!
wait_line "$TMP/eg.out" '^exitgen: pid'
observe "$E" timeout 60 "$KES" top -l -c -d 0.3 -f 'KVM_EXIT_MM' -p "$E" $US >"$TMP/log.csv" 2>"$TMP/err"
eq "--log -c -f 'KVM_EXIT_MM': exit status" $? 0
wait $E
eq "--log -c -f 'KVM_EXIT_MM': the columns" "$(head -1 "$TMP/log.csv")" "timestamp,KVM_EXIT_MMIO,total,lost"
summary
