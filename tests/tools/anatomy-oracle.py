#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""anatomy-oracle.py TEXT [exits|userspace]: an independent split of every
exit interval of a `trace-cmd report -t` text (ns timestamps), for the tests
of report --anatomy. Written apart from the C (src/pair/anatomy.c): no event
loop with a clock, but explicit time segments per thread, then a sweep over
each interval's elementary pieces, each classified by the definitions of
kvm-exitstat-report(1):

  off CPU, runnable (switched out R/R+, or woken until switched in)  runnable
  off CPU, asleep: inside a VMM window vmm, else                     blocked
  on CPU in a hard handler                                           irq
  on CPU in a softirq                                                softirq
  on CPU inside a VMM window (userspace exit -> kvm_fpu load/entry)  vmm
  on CPU inside a halt's window (kvm_vcpu_wakeup: its ns before it)  polled
  otherwise                                                          handling

Prints one line per interval: EXIT_TS,TID,REASON,NS,handling,runnable,
blocked,polled,vmm,irq,softirq,HALTS,SLEPT,HALT_NS (kvm_vcpu_wakeup's in it:
how many, how many said waited, their ns summed).
Intervals: kvm_exit -> the thread's next kvm_entry (exits), or
kvm_userspace_exit -> its next kvm_fpu load or kvm_entry (userspace).
"""
import bisect
import re
import sys

LINE = re.compile(r'^\s*(.*?)-(\d+)\s+\[(\d+)\]\s+(?:\S+\s+)?(\d+)\.(\d{9}):\s+(\w+):\s*(.*)$')
PARTS = ['handling', 'runnable', 'blocked', 'polled', 'vmm', 'irq', 'softirq']


def task(s):
    """'comm:pid [prio] REST' (trace-cmd's plugin) or 'comm=.. pid=..': pid, rest."""
    m = re.match(r'^(.*):(\d+) \[-?\d+\]\s*(.*)$', s)
    if m:
        return int(m.group(2)), m.group(3)
    m = re.search(r'pid=(\d+)', s)
    return (int(m.group(1)), s) if m else (None, s)


def parse(path):
    evs = []
    for line in open(path, errors='replace'):
        m = LINE.match(line)
        if m:
            ts = int(m.group(4)) * 1000000000 + int(m.group(5))
            evs.append((ts, int(m.group(2)), m.group(6), m.group(7)))
    return evs


def segments(evs):
    """Per thread: lists of (start, end) by kind, the intervals, the halts."""
    seg = {}
    def add(tid, kind, a, b):
        seg.setdefault(tid, {}).setdefault(kind, []).append((a, b))
    off = {}      # tid -> (ts, runnable?, woken_at)
    irq, soft = {}, {}  # tid -> [entry ts stack]
    vmm_from = {}
    xopen, uopen = {}, {}
    xiv, uiv, halts = [], [], {}
    for ts, pid, ev, rest in evs:
        if ev == 'sched_switch':
            left, right = rest.split(' ==> ')
            prev, st = task(left)
            nxt, _ = task(right)
            if 'prev_state=' in st:
                st = re.search(r'prev_state=(\S+)', st).group(1)
            off[prev] = (ts, st.startswith('R'), None)
            if nxt in off:
                a, runnable, woke = off.pop(nxt)
                if runnable:
                    add(nxt, 'runnable', a, ts)
                elif woke is not None:
                    add(nxt, 'asleep', a, woke)
                    add(nxt, 'runnable', woke, ts)
                else:
                    add(nxt, 'asleep', a, ts)
        elif ev in ('sched_wakeup', 'sched_wakeup_new'):
            t, _ = task(rest)
            if t in off and not off[t][1] and off[t][2] is None:
                off[t] = (off[t][0], False, ts)
        elif ev in ('irq_handler_entry', 'softirq_entry'):
            (irq if ev[0] == 'i' else soft).setdefault(pid, []).append(ts)
        elif ev in ('irq_handler_exit', 'softirq_exit'):
            st = (irq if ev[0] == 'i' else soft).get(pid)
            if st:
                add(pid, 'irq' if ev[0] == 'i' else 'softirq', st.pop(), ts)
        elif ev == 'kvm_exit':
            m = re.search(r'reason (\S+)', rest)
            xopen[pid] = (ts, m.group(1) if m else '?')
        elif ev == 'kvm_userspace_exit':
            m = re.search(r'reason (\S+)', rest)
            # one still open: KVM_RUN returned before the guest ran (a signal; arm64
            # and riscv trace no kvm_fpu to mark the call): the VMM's time so far,
            # and that exit, end here
            if pid in vmm_from:
                add(pid, 'vmmwin', vmm_from.pop(pid), ts)
            if pid in uopen:
                a, r = uopen.pop(pid)
                uiv.append((a, ts, pid, r))
            uopen[pid] = (ts, m.group(1) if m else '?')
            vmm_from[pid] = ts
        elif ev == 'kvm_fpu' and rest.strip().startswith('load') or ev == 'kvm_entry':
            if pid in vmm_from:
                add(pid, 'vmmwin', vmm_from.pop(pid), ts)
            if pid in uopen:
                a, r = uopen.pop(pid)
                uiv.append((a, ts, pid, r))
            if ev == 'kvm_entry' and pid in xopen:
                a, r = xopen.pop(pid)
                xiv.append((a, ts, pid, r))
        elif ev == 'kvm_vcpu_wakeup':
            m = re.search(r'(wait|poll) time (\d+) ns', rest)
            if m:
                add(pid, 'halt', ts - int(m.group(2)), ts)
                halts.setdefault(pid, []).append((ts, m.group(1) == 'wait', int(m.group(2))))
    return seg, xiv, uiv, halts


class Kind:
    """One kind's segments of a thread, sorted; those of a kind never overlap."""
    def __init__(self, lst):
        self.lst = sorted(lst)
        self.starts = [s for s, _ in self.lst]

    def near(self, a, b):
        """The segments that overlap [a, b]: a run of them, found by bisection."""
        i = bisect.bisect_right(self.starts, b)
        out = []
        while i > 0 and self.lst[i - 1][1] >= a:
            out.append(self.lst[i - 1])
            i -= 1
        return out


def inside(kind, a, b):
    return kind is not None and any(s <= a and b <= e for s, e in kind.near(a, b))


def split(seg, a, b):
    cuts = {a, b}
    for kind in seg.values():
        for s, e in kind.near(a, b):
            if a < s < b:
                cuts.add(s)
            if a < e < b:
                cuts.add(e)
    cuts = sorted(cuts)
    parts = dict.fromkeys(PARTS, 0)
    get = lambda k: seg.get(k)
    for x, y in zip(cuts, cuts[1:]):
        if inside(get('runnable'), x, y):
            k = 'runnable'
        elif inside(get('asleep'), x, y):
            k = 'vmm' if inside(get('vmmwin'), x, y) else 'blocked'
        elif inside(get('irq'), x, y):
            k = 'irq'
        elif inside(get('softirq'), x, y):
            k = 'softirq'
        elif inside(get('vmmwin'), x, y):
            k = 'vmm'
        elif inside(get('halt'), x, y):
            k = 'polled'
        else:
            k = 'handling'
        parts[k] += y - x
    return parts


def main():
    path = sys.argv[1]
    which = sys.argv[2] if len(sys.argv) > 2 else 'exits'
    seg, xiv, uiv, halts = segments(parse(path))
    seg = {tid: {k: Kind(v) for k, v in kinds.items()} for tid, kinds in seg.items()}
    for a, b, tid, reason in (xiv if which == 'exits' else uiv):
        p = split(seg.get(tid, {}), a, b)
        hs = [(w, ns) for t, w, ns in halts.get(tid, []) if a < t <= b]
        print('%d,%d,%s,%d,%s,%d,%d,%d' % (a, tid, reason, b - a,
                                          ','.join(str(p[k]) for k in PARTS), len(hs),
                                          sum(w for w, _ in hs), sum(ns for _, ns in hs)))


main()
