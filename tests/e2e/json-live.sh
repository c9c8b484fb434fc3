#!/bin/sh
# top --log --json against exitgen's own counts: every line parses and its
# numbers read back as printed, each userspace exit reason summed over the
# lines is exitgen's count, and total is the sum on every line.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
need_kvm
command -v python3 >/dev/null || skip "needs python3"
. "$(dirname "$0")/../tools/json-helpers.sh"
# --- top --log --json, against exitgen ---
"$EXITGEN" --io 3000 --mmio 500 --hlt 50 --vcpus 2 --start-on-usr1 >"$TMP/eg.out" 2>&1 &
E=$!
i=0
while ! grep -q '^exitgen: pid' "$TMP/eg.out" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
observe "$E" timeout 60 "$KES" top -l --json --times -d 0.3 --source userspace -p "$E" >"$TMP/log.json" 2>"$TMP/log.err"
eq "top --log --json: exit status (ends with the VM)" $? 0
wait $E
check "top --log --json: nothing on stderr" test ! -s "$TMP/log.err"
roundtrip "top --log --json" "$TMP/log.json" lines
for r in KVM_EXIT_IO KVM_EXIT_MMIO KVM_EXIT_HLT; do
	eq "top --log --json: $r summed = exitgen's count" \
		"$(python3 -c 'import json,sys; print(sum(json.loads(l)["exits"][sys.argv[2]] for l in open(sys.argv[1])))' "$TMP/log.json" "$r")" \
		"$(eg_total "$r" "$TMP/eg.out")"
done
check "top --log --json: total is the exits' sum on every line" python3 -c '
import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l); assert d["total"] == sum(d["exits"].values()), d["total"]' "$TMP/log.json"
summary
