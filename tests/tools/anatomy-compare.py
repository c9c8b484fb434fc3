#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""anatomy-compare.py TOOL.csv ORACLE [PART...]: report --anatomy --slowest N -f
csv's intervals against anatomy-oracle.py's, joined on (exit timestamp, tid).
Prints one line per part: "PART exact N of M, within1pct N, tool SUM oracle SUM,
total rel DIFF"; and "missing N" (intervals one side has, the other not),
"unsplit N", "sums N bad" (intervals whose parts do not add up)."""
import csv
import sys

PARTS = ['handling', 'runnable', 'blocked', 'polled', 'vmm', 'irq', 'softirq']
tool = {}
bad_sums = unsplit = 0
for r in csv.DictReader(open(sys.argv[1])):
    key = (int(r['ts_ns']), int(r['tid']))
    if r['split'] != '1':
        unsplit += 1
        continue
    parts = [int(r[p + '_ns']) for p in PARTS]
    if sum(parts) != int(r['ns']):
        bad_sums += 1
    tool[key] = (int(r['ns']), parts, int(r['halts']), int(r['slept']))
oracle = {}
for line in open(sys.argv[2]):
    f = line.strip().split(',')
    oracle[(int(f[0]), int(f[1]))] = (int(f[3]), [int(x) for x in f[4:11]], int(f[11]), int(f[12]))
both = sorted(set(tool) & set(oracle))
print('intervals tool %d oracle %d both %d unsplit %d' % (len(tool), len(oracle), len(both), unsplit))
print('missing %d' % (len(set(tool) ^ set(oracle))))
print('sums %d bad' % bad_sums)
print('length %d differ' % sum(tool[k][0] != oracle[k][0] for k in both))
print('halts %d differ' % sum(tool[k][2:] != oracle[k][2:] for k in both))
for i, p in enumerate(PARTS if len(sys.argv) < 4 else []) or []:
    pass
for i, p in enumerate(PARTS):
    if len(sys.argv) > 3 and p not in sys.argv[3:]:
        continue
    exact = sum(tool[k][1][i] == oracle[k][1][i] for k in both)
    near = sum(abs(tool[k][1][i] - oracle[k][1][i]) <= 0.01 * max(oracle[k][1][i], 1) for k in both)
    st = sum(tool[k][1][i] for k in both)
    so = sum(oracle[k][1][i] for k in both)
    rel = abs(st - so) / so if so else (0.0 if st == 0 else 1.0)
    print('%s exact %d of %d within1pct %d tool %d oracle %d rel %.6f' % (p, exact, len(both), near, st, so, rel))
