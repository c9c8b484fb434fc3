#!/bin/sh
# The pictures' axes and labels (issue 32): a p50/p99 label stays inside its
# plot (left of its line near the axis's end; about 6 px a character at
# font-size 10, DejaVu Sans's average); the log count axis is ticked at each
# power of ten, not at 0 and the maximum only; the timeline's time ticks are
# round (1, 2 or 5 x 10^k s) and in one unit; diff's tick labels fit the
# 50 px between them (2M, not 2000000) and a time axis says one unit (not
# "0 ns" then seconds). Read back from the SVGs with python's XML parser.
. "$(dirname "$0")/lib.sh"
L=tests/fixtures/lab
"$KES" report -i "$L/x86-svm/kvm-exitstat.dat" --svg "$TMP/x.svg" >/dev/null 2>&1
eq "report --svg (x86-svm lab recording)" $? 0
"$KES" report -i "$L/ppc_book3s_hv/small.dat" --svg "$TMP/hv.svg" >/dev/null 2>&1
eq "report --svg (ppc book3s HV lab recording)" $? 0
python3 - "$TMP/x.svg" "$TMP/hv.svg" >"$TMP/rep" 2>&1 <<'PY'
import math, re, sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
PLOT_X, PLOT_W = 56, 404  # the plot inside a 480 px panel (report-svg.c)
bad = 0
for path in sys.argv[1:]:
    root = ET.parse(path).getroot()
    for g in root.iter(NS + "g"):
        if g.get("class") != "hist":
            continue
        labels, yt = [], []
        for t in g.iter(NS + "text"):
            c = t.get("class") or ""
            if c.endswith("-label"):
                w = 6 * len("".join(t.itertext()))
                x = float(t.get("x"))
                x0, x1 = (x - w, x) if t.get("text-anchor") == "end" else (x, x + w)
                if x0 < PLOT_X - 1 or x1 > PLOT_X + PLOT_W + 1:
                    print("BAD label outside the plot:", g.get("data-reason"), c, x0, x1); bad += 1
                labels.append((float(t.get("y")), x0, x1))
        # two labels on one row must not overlap
        for i in range(len(labels)):
            for j in range(i + 1, len(labels)):
                a, b = labels[i], labels[j]
                if abs(a[0] - b[0]) < 10 and a[1] < b[2] and b[1] < a[2]:
                    print("BAD labels overlap:", g.get("data-reason")); bad += 1
        ticks = [l for l in g.iter(NS + "line") if l.get("class") == "ytick"]
        nmax = max([int(r.get("data-n")) for r in g.iter(NS + "rect") if r.get("class") == "bar"] or [0])
        want = int(math.floor(math.log10(nmax))) + 1 if nmax else 0
        if len(ticks) != want:
            print("BAD count ticks:", g.get("data-reason"), len(ticks), "want", want, "for max", nmax); bad += 1
    tl = [l for l in root.iter(NS + "line") if l.get("class") == "xtick"]
    if tl:
        vals = [float(l.get("data-s")) for l in tl]
        step = vals[1] - vals[0] if len(vals) > 1 else 1
        e = 10 ** math.floor(math.log10(step))
        if round(step / e, 6) not in (1, 2, 5) or not 2 <= len(vals) <= 11:
            print("BAD timeline ticks", vals); bad += 1
        texts = [t for t in root.iter(NS + "text") if (t.text or "").strip() and re.fullmatch(r"[\d.]+ (ns|µs|ms|s)", t.text.strip())]
        units = {t.text.split()[1] for t in texts}
        if len(units) != 1:
            print("BAD timeline units", units); bad += 1
print("checked", "bad", bad)
sys.exit(bad != 0)
PY
check "report SVGs: labels inside, decade ticks, round time ticks ($(grep BAD "$TMP/rep" | head -3 | tr '\n' ' '))" [ $? -eq 0 ]
"$KES" diff tests/fixtures/readme/nopv.dat tests/fixtures/readme/pv.dat --svg "$TMP/d.svg" >/dev/null 2>&1
eq "diff --svg" $? 0
python3 - "$TMP/d.svg" >"$TMP/diff" 2>&1 <<'PY'
import re, sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
ticks = [t for t in root.iter(NS + "text") if t.get("font-size") == "11" and t.get("fill") == "#666"]
bad = 0
groups = {}
for t in ticks:
    groups.setdefault(t.get("y"), []).append("".join(t.itertext()))
for y, labels in groups.items():
    for i in range(0, len(labels), 5):
        panel = labels[i:i + 5]
        if any(len(l) > 8 for l in panel):
            print("BAD tick too wide for 50 px:", panel); bad += 1
        units = {l.split(" ", 1)[1] for l in panel if " " in l}
        if len(units) > 1:
            print("BAD units mixed on one axis:", panel); bad += 1
print("panels", sum(len(v) for v in groups.values()) // 5, "bad", bad)
sys.exit(bad != 0)
PY
check "diff SVG: ticks fit, one unit an axis ($(grep BAD "$TMP/diff" | head -3 | tr '\n' ' '))" [ $? -eq 0 ]
summary
