#!/bin/sh
# report --svg: read the picture back (python's XML parser) and check it
# against exitgen's counts and the report's own numbers: one histogram panel
# per reason whose bars add up to its timed count, p50/p99 markers at the
# report's values and at the right place on the log axis, bars inside the
# plot, and a timeline whose counts per reason add up to exitgen's. It must
# render (rsvg-convert), and it is written root-safe (a FIFO is refused).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
need_kvm
command -v python3 >/dev/null 2>&1 || skip "needs python3"

"$KES" record -o "$TMP/run.dat" -- "$EXITGEN" --io 3000 --mmio 1000 --hlt 200 --vcpus 2 >"$TMP/eg.out" 2>&1
eq "record" "$?" 0
"$KES" report -i "$TMP/run.dat" --svg "$TMP/r.svg" -f json --source userspace >"$TMP/r.json"
eq "report --svg" "$?" 0
cat >"$TMP/check.py" <<'PY'
import json, math, sys
import xml.etree.ElementTree as ET
svg, rep, counts = sys.argv[1], json.load(open(sys.argv[2])), {}
for a in sys.argv[3:]:
    k, v = a.split("=")
    counts[k] = int(v)
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(svg).getroot()
rows = {r["name"]: r for r in rep["tables"][-1]["rows"]}
bad = []
def fail(m): bad.append(m)
panels = root.findall("s:g[@class='hist']", ns)
if sorted(p.get("data-reason") for p in panels) != sorted(rows):
    fail("panels %s, rows %s" % (sorted(p.get("data-reason") for p in panels), sorted(rows)))
for p in panels:
    r = rows.get(p.get("data-reason"))
    if not r: continue
    x0, x1 = float(p.get("data-x0")), float(p.get("data-x1"))
    lo10, hi10 = float(p.get("data-lo10")), float(p.get("data-hi10"))
    # the histogram holds the timed exits (count is every exit: schema /2)
    if int(p.get("data-count")) != r["timed"]: fail("%s data-count" % r["name"])
    bars = p.findall("s:rect[@class='bar']", ns)
    if sum(int(b.get("data-n")) for b in bars) != r["timed"]: fail("%s bars do not add up" % r["name"])
    for b in bars:
        x, w = float(b.get("x")), float(b.get("width"))
        if x < x0 - 0.5 or x + w > x1 + 0.5: fail("%s bar outside the plot" % r["name"])
    for q in ("p50", "p99"):
        m = p.find("s:line[@class='%s']" % q, ns)
        if m is None: fail("%s no %s marker" % (r["name"], q)); continue
        v = float(m.get("data-ns"))
        if abs(v - r[q] * 1000) > 0.06: fail("%s %s %s vs report %s us" % (r["name"], q, v, r[q]))
        want = x0 + (math.log10(v) - lo10) / (hi10 - lo10) * (x1 - x0)
        if abs(float(m.get("x1")) - want) > 0.05: fail("%s %s marker at x %s, want %.2f" % (r["name"], q, m.get("x1"), want))
tl = root.find("s:g[@class='timeline']", ns)
if tl is None:
    fail("no timeline")
else:
    got = {l.get("data-reason"): sum(map(int, l.get("data-counts").split()))
           for l in tl.findall("s:polyline[@class='rate']", ns)}
    if got != counts: fail("timeline counts %s, exitgen's %s" % (got, counts))
print("%d panels, timeline %s" % (len(panels), "ok" if tl is not None else "-"))
for b in bad[:8]: print(b)
sys.exit(1 if bad else 0)
PY
python3 "$TMP/check.py" "$TMP/r.svg" "$TMP/r.json" \
	KVM_EXIT_IO="$(eg_total KVM_EXIT_IO "$TMP/eg.out")" \
	KVM_EXIT_MMIO="$(eg_total KVM_EXIT_MMIO "$TMP/eg.out")" \
	KVM_EXIT_HLT="$(eg_total KVM_EXIT_HLT "$TMP/eg.out")" >"$TMP/check.out" 2>&1
check "the SVG agrees with the report and exitgen ($(head -c 500 "$TMP/check.out"))" [ $? -eq 0 ]
if command -v rsvg-convert >/dev/null 2>&1; then
	rsvg-convert "$TMP/r.svg" -o "$TMP/r.png" 2>"$TMP/rsvg.err"
	eq "rsvg-convert renders it ($(head -c 200 "$TMP/rsvg.err"))" "$?" 0
	check "... to a PNG" sh -c "[ \"\$(head -c 4 '$TMP/r.png' | od -An -c | tr -d ' ')\" = '211PNG' ]"
fi
# From a JSON report: histograms, no timeline (no timestamps), and it says so.
"$KES" report -i "$TMP/r.json" --svg "$TMP/j.svg" >/dev/null
eq "report --svg of a JSON report" "$?" 0
check "... says it has no timeline" grep -q 'No timeline' "$TMP/j.svg"
check "... has the same histograms" sh -c "[ \$(grep -c 'class=\"hist\"' '$TMP/j.svg') -eq \$(grep -c 'class=\"hist\"' '$TMP/r.svg') ]"
mkfifo "$TMP/fifo.svg"
"$KES" report -i "$TMP/run.dat" --svg "$TMP/fifo.svg" >/dev/null 2>"$TMP/err"
eq "--svg onto a FIFO: exit 1" "$?" 1
check "... refused, not replaced" sh -c "grep -q 'FIFO nobody reads' '$TMP/err' && [ -p '$TMP/fifo.svg' ]"
summary
