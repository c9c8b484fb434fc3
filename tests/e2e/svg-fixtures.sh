#!/bin/sh
# report --svg of every fixture the report reads (real kernels, the lab,
# published traces, crafted hostile files): the SVG is well-formed XML
# (python's parser; a name with ESC or invalid UTF-8 in it once was not), and
# no bar leaves its plot (a bar's display bin may reach past the smallest or
# largest sample; the axis once covered only those, and 7 of these fixtures
# drew bars outside it). Which fixtures: all with a histogram to draw.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "needs python3"

cat >"$TMP/check.py" <<'PY'
import sys
import xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
try:
    root = ET.parse(sys.argv[1]).getroot()
except ET.ParseError as e:
    print("not XML: %s" % e); sys.exit(1)
bad, bars = [], 0
for p in root.findall("s:g[@class='hist']", ns):
    x0, x1 = float(p.get("data-x0")), float(p.get("data-x1"))
    for b in p.findall("s:rect[@class='bar']", ns):
        x, w = float(b.get("x")), float(b.get("width"))
        bars += 1
        if x < x0 - 0.5 or x + w > x1 + 0.5:
            bad.append("%s bar %.1f..%.1f outside %.0f..%.0f" % (p.get("data-reason"), x, x + w, x0, x1))
print("; ".join(bad[:3]) if bad else "%d bars" % bars)
sys.exit(1 if bad or not bars else 0)
PY
n=0
for f in $(find tests/fixtures -type f \( -name '*.dat' -o -name '*.txt' -o -name '*.json' \) | sort); do
	"$KES" report -i "$f" --svg "$TMP/r.svg" >/dev/null 2>&1 || continue
	grep -q 'class="bar"' "$TMP/r.svg" || continue
	n=$((n + 1))
	python3 "$TMP/check.py" "$TMP/r.svg" >"$TMP/out" 2>&1
	check "$f: $(cat "$TMP/out")" [ $? -eq 0 ]
done
# Not a loop over nothing: the fixtures that once failed are among them.
check "at least 60 fixtures drew bars (got $n)" [ "$n" -ge 60 ]
check "the crafted ESC exit name is among them" sh -c \
	"'$KES' report -i tests/fixtures/bad/text/exit-esc.txt --svg '$TMP/e.svg' >/dev/null 2>&1 && grep -q 'x1b\]0;HLT' '$TMP/e.svg'"
summary
