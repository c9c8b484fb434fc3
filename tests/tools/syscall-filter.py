#!/usr/bin/env python3
"""syscall-filter.py UNIT SYSCALL...: the syscalls of the list that UNIT's
SystemCallFilter= lines refuse, one a line (nothing: all allowed).

The filter is evaluated as systemd does: the first line decides whether it
is an allow list (no "~") or a deny list; later lines add to the list, or
(with "~" on an allow list) take out of it; @groups are expanded through
`systemd-analyze syscall-filter`, recursively. @default is always allowed."""
import re
import subprocess
import sys


def groups():
    out = subprocess.run(["systemd-analyze", "syscall-filter"], capture_output=True,
                         text=True, check=True).stdout
    g, cur = {}, None
    for line in out.splitlines():
        if line.startswith("@"):
            cur = g.setdefault(line.strip(), [])
        elif cur is not None and line.startswith("    ") and not line.strip().startswith("#"):
            cur.append(line.strip())
    return g


def expand(names, g, seen=None):
    seen = set() if seen is None else seen
    out = set()
    for n in names:
        if n.startswith("@"):
            if n in seen:
                continue
            seen.add(n)
            out |= expand(g.get(n, []), g, seen)
        elif n:
            out.add(n)
    return out


def main():
    unit, calls = sys.argv[1], sys.argv[2:]
    g = groups()
    lines = [m.group(1).strip() for m in
             (re.match(r"^SystemCallFilter=(.*)$", l) for l in open(unit)) if m]
    allow, deny, mode = set(), set(), None
    for v in lines:
        neg = v.startswith("~")
        names = expand(v.lstrip("~").split(), g)
        if mode is None:
            mode = "deny" if neg else "allow"
        if mode == "allow":
            allow = allow - names if neg else allow | names
        else:
            deny = deny | names if neg else deny - names
    default = expand(["@default"], g)
    for c in calls:
        ok = c in default or (c in allow if mode == "allow" else c not in deny)
        if not ok:
            print(c)


main()
