#!/bin/sh
# A perf.data recorded on a live KVM is read through `perf script`; ground
# truth is exitgen's own count of its port writes (the VMM counts them):
# KVM_EXIT_IO from kvm_userspace_exit, and where kvm_exit fires, its io exits
# from kvm_exit/kvm_entry (every `out` exits once: io = KVM_EXIT_IO).
# (text-stdin-perfdata.sh has standard input and the refusals.)
. "$(dirname "$0")/lib.sh"
need_kvm
command -v python3 >/dev/null || skip "needs python3"
# rows NAME JSON: "name count timed sum min max" per row of the report's first table
rows() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["tables"][0]["rows"]:
    print(r["name"], r["count"], r["timed"], r["sum"], r["min"], r["max"])
' "$1"
}

# --- perf.data through perf script -------------------------------------------
command -v perf >/dev/null || skip "perf is not installed (the perf.data read)"
[ -x "$EXITGEN" ] || skip "no exitgen at $EXITGEN"
# perf record of exitgen alone (its own task: nothing of the host's other VMs)
if ! perf record -q -o "$TMP/run.data" -e kvm:kvm_userspace_exit -e kvm:kvm_fpu \
	-e kvm:kvm_pio -- "$EXITGEN" --io 100 >"$TMP/eg" 2>&1; then
	skip "perf record cannot record kvm tracepoints here ($(tail -n 1 "$TMP/eg"))"
fi
"$KES" report -i "$TMP/run.data" -f json -u ns >"$TMP/data.json" 2>"$TMP/err"
check "perf.data: read ($(head -n 1 "$TMP/err"))" [ -s "$TMP/data.json" ]
python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["input_kind"])' \
	"$TMP/data.json" >"$TMP/kind"
check "perf.data: the report says it went through perf script" grep -q "perf script" "$TMP/kind"
# exitgen's own count of its KVM_EXIT_IO (its last exit, never re-entered, is untimed)
want=$(awk '$1 == "total" { for (i = 2; i < NF; i++) if ($i == "KVM_EXIT_IO") print $(i + 1) }' "$TMP/eg")
check "perf.data: exitgen said how many KVM_EXIT_IO it made ($want)" [ "${want:-0}" -ge 100 ]
eq "perf.data: KVM_EXIT_IO count = exitgen's" \
	"$(rows "$TMP/data.json" | awk '$1 == "KVM_EXIT_IO" { print $2 }')" "$want"
eq "perf.data: KVM_EXIT_IO timed = exitgen's - 1 (the last exit)" \
	"$(rows "$TMP/data.json" | awk '$1 == "KVM_EXIT_IO" { print $3 }')" "$((want - 1))"
perf script --ns -i "$TMP/run.data" 2>/dev/null | "$KES" report -i - -f json -u ns \
	>"$TMP/script.json" 2>"$TMP/err"
eq "perf.data: the rows of perf script | report -i -" "$(rows "$TMP/data.json")" \
	"$(rows "$TMP/script.json")"

# kvm_exit and kvm_entry through perf, where they fire.
if [ -n "$EXIT_RULES" ]; then
	perf record -q -o "$TMP/exits.data" -e kvm:kvm_exit -e kvm:kvm_entry -- "$EXITGEN" --io 100 \
		>"$TMP/eg2" 2>&1
	eq "perf record of kvm_exit: status" $? 0
	want=$(awk '$1 == "total" { for (i = 2; i < NF; i++) if ($i == "KVM_EXIT_IO") print $(i + 1) }' "$TMP/eg2")
	"$KES" report -i "$TMP/exits.data" -f json -u ns >"$TMP/exits.json" 2>"$TMP/err"
	check "perf.data of kvm_exit: read ($(head -n 1 "$TMP/err"))" [ -s "$TMP/exits.json" ]
	eq "perf.data of kvm_exit: io count = exitgen's KVM_EXIT_IO" \
		"$(rows "$TMP/exits.json" | awk '$1 == "io" { print $2 }')" "$want"
fi
summary
