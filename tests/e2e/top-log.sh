#!/bin/sh
# top --log's timestamps tell intervals apart (sub-second ISO 8601, local
# time with its offset), and --times leaves a reason's average empty when
# it had no timed exit in the interval (a 0.00 would be a time), in CSV,
# text and JSON alike; a log traces no detail event.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
need_kvm
command -v python3 >/dev/null || skip "needs python3"

"$EXITGEN" --io 30000 --hlt 20 --seconds 3 --start-on-usr1 >"$TMP/eg.out" 2>&1 &
E=$!
wait_line "$TMP/eg.out" '^exitgen: pid'
observe "$E" timeout 60 "$KES" top -L "$TMP/log.csv" -c --times -d 0.5 -p "$E" 2>"$TMP/log.err"
eq "-L -c --times: exit status (ends with the VM)" $? 0
wait $E
python3 - "$TMP/log.csv" <<'PY' >"$TMP/out" 2>&1
import csv, re, sys
from datetime import datetime
rows = list(csv.DictReader(open(sys.argv[1])))
iso = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$")
bad = [r["timestamp"] for r in rows if not iso.match(r["timestamp"])]
assert rows, "no data lines"
assert not bad, "not ISO 8601 with milliseconds and offset: %s" % bad[:2]
ts = [datetime.fromisoformat(r["timestamp"]) for r in rows]
assert len(set(ts)) == len(ts), "two intervals share a timestamp"
gaps = [(b - a).total_seconds() for a, b in zip(ts, ts[1:])]
# a late tick is followed by a short one (the log keeps its pace): the mean is -d
assert all(g > 0.05 for g in gaps) and 0.35 < sum(gaps) / len(gaps) < 0.7, "intervals of -d 0.5 %s" % gaps
empty = zero = 0
for r in rows:
    for k, v in r.items():
        if not k.endswith(":avg_us"):
            continue
        n = int(r[k[:-len(":avg_us")]])
        if n == 0:
            assert v == "", "%s = %r with no exit" % (k, v)
            empty += 1
        if v == "0.00":
            zero += 1
assert empty > 0, "no reason without exits (precondition)"
assert zero == 0, "a 0.00 average"
print("ok", len(rows), "lines", empty, "empty averages")
PY
check "CSV: timestamps and --times cells ($(cat "$TMP/out"))" grep -q '^ok ' "$TMP/out"

# The text log: the same timestamps, '-' for no average.
"$EXITGEN" --io 30000 --seconds 2 --start-on-usr1 >"$TMP/eg2.out" 2>&1 &
E=$!
wait_line "$TMP/eg2.out" '^exitgen: pid'
observe_start "$E" timeout 60 "$KES" top -l --times -d 0.5 -p "$E" >"$TMP/log.txt" 2>"$TMP/log2.err"
# A log shows reasons only: no detail event is traced (on an x86 VMM's trace
# most records are details), the exit and entry events are.
I=$(grep -lx "$E" "$INSTANCES"/kvm-exitstat-*/set_event_pid | head -1)
I=${I%/set_event_pid}
eq "-l: kvm_pio is not traced" "$(cat "$I/events/kvm/kvm_pio/enable" 2>&1)" 0
eq "-l: kvm_exit is" "$(cat "$I/events/kvm/kvm_exit/enable" 2>&1)" 1
observe_end
eq "-l --times: exit status" $? 0
wait $E
check "text: every line's time has milliseconds" \
	awk 'NR > 1 && $1 != "time" && $1 !~ /^[0-9-]+T[0-9:]+\.[0-9][0-9][0-9][+-][0-9][0-9]:[0-9][0-9]$/ { exit 1 }' "$TMP/log.txt"
check "text: no 0.00 average" sh -c "! grep -qE ' 0\.00( |$)' '$TMP/log.txt'"
summary
