#!/usr/bin/env python3
"""Checks a table (report -f table, or diff's) against the csv of the same run.

width-check.py report|diff CSV TABLE WIDTH: prints problems, then "ok" or
"bad". Lines at most WIDTH characters; in every panel (a header line and
the rows under it) no two rows show the same name; row i of the table is
csv row i: its name whole or cut in the middle (HEAD~TAIL of the csv name),
counts equal, times equal to the shown digits in the shown unit (a bare
number is the csv's unit, "ms" and "s" are scaled from it)."""
import csv, sys

mode, csvf, tablef, width = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
rows = list(csv.DictReader(open(csvf)))
lines = open(tablef).read().split('\n')
problems = []
for i, l in enumerate(lines):
    if len(l) > width:
        problems.append("line %d is %d wide" % (i + 1, len(l)))

if mode == 'report':
    first, total = 'REASON', 'Total'
    cols = {'COUNT': 'count', 'TIMED': 'timed', 'MIN': 'min', 'MAX': 'max', 'SUM': 'sum',
            'AVG': 'avg', 'STDDEV': 'stddev', '%TIME': 'pct', 'P50': 'p50', 'P90': 'p90',
            'P99': 'p99', 'P99.9': 'p999'}
    counts = {'count', 'timed'}
    plain = {'pct'}
else:
    first, total = 'exit type', None
    cols = {'count A': 'count_a', 'count B': 'count_b', 'avg A': 'avg_a', 'avg B': 'avg_b',
            'sum A': 'sum_a', 'sum B': 'sum_b', 'max A': 'max_a', 'max B': 'max_b',
            '%A': 'pct_a', '%B': 'pct_b', 'vcpu': 'vcpu'}
    counts = {'count_a', 'count_b', 'vcpu'}
    plain = {'pct_a', 'pct_b'}

def full_name(r, dec=False):
    n = r['name']
    if mode == 'report' and r.get('sub'):
        sub = str(int(r['sub'], 16)) if dec and r['sub'].startswith('0x') else r['sub']
        n += '@' + ((r['sub_kind'] + ' ') if r['sub_kind'] else '') + sub
    return n

def heads_of(h):
    # split a header line into column titles (some hold one blank: "count A")
    toks, out = h[len(first):].split(), []
    i = 0
    while i < len(toks):
        if i + 1 < len(toks) and toks[i + 1] in ('A', 'B'):
            out.append(toks[i] + ' ' + toks[i + 1]); i += 2
        else:
            out.append(toks[i]); i += 1
    return out

def value_ok(shown, want, col):
    if col in counts:
        return shown == want
    if shown == '-' or want == '':
        # no value: csv leaves it empty; diff's csv has 0 for a side the row lacks
        return shown == '-' and (want == '' or (mode == 'diff' and float(want) == 0))
    scale = 1.0
    if shown.endswith('ms'):
        shown, scale = shown[:-2], 1e3
    elif shown.endswith('s'):
        shown, scale = shown[:-1], 1e6
    unit = rows[0].get('unit', 'us')
    if unit == 'ns' and scale > 1:
        scale *= 1e3
    if col in plain:
        scale = 1.0
    dec = len(shown.split('.')[1]) if '.' in shown else 0
    return abs(float(shown) * scale - float(want)) <= (0.5 * 10 ** -dec + 1e-9) * scale * 1.01 + 5e-5

panel_heads, seen, ri, base, header_line, label_seen = None, {}, 0, 0, '', False
ended = False
for l in lines:
    if l.startswith(first + ' ') or l == first:
        if label_seen:  # a new block (per-vCPU tables): its rows follow the last block's
            base += ri
            label_seen = False
        panel_heads, seen, ri, header_line = heads_of(l), {}, 0, l
        continue
    if not l.strip():
        panel_heads = None  # a blank line ends a panel; a label or a summary may follow
        continue
    if panel_heads is None:
        label_seen = True
        continue
    if total and l.startswith(total + ' ') or l == total:
        continue
    if mode == 'diff' and 'p' in panel_heads:
        # the p cell is left-aligned under its title and may hold a blank ("0.123 **")
        hl = header_line
        ps = hl.index(' p ') + 1 if ' p ' in hl else hl.rindex(' p') + 1
        k = panel_heads.index('p')
        left = l[:ps].rsplit(None, k)
        right_n = len(panel_heads) - k - 1
        right = l[ps:].rsplit(None, right_n) if right_n else [l[ps:].strip()]
        name, vals = left[0].rstrip(), left[1:] + right
    else:
        parts = l.rsplit(None, len(panel_heads))
        name, vals = parts[0].rstrip(), parts[1:]
    if base + ri >= len(rows):
        problems.append("more table rows than csv rows: %r" % l); break
    r = rows[base + ri]; ri += 1
    full = full_name(r)
    if name != full and name == full_name(r, True):
        full = name  # hypercall numbers are shown in decimal
    if name != full:
        if '~' not in name:
            problems.append("row %d: %r is not %r" % (ri, name, full))
        else:
            h, t = name.split('~', 1)
            if not (full.startswith(h) and full.endswith(t)):
                problems.append("row %d: %r is no cut of %r" % (ri, name, full))
    if name in seen and seen[name] != full:
        problems.append("%r stands for %r and %r" % (name, seen[name], full))
    seen[name] = full
    for h, v in zip(panel_heads, vals):
        c = cols.get(h)
        if c is None:
            continue
        if not value_ok(v, r[c], c):
            problems.append("row %d %s %s: shown %r, csv %r" % (ri, full, h, v, r[c]))
    if ri == len(rows) and mode == 'report':
        pass
for p in problems[:20]:
    print(p)
print("bad" if problems else "ok")
