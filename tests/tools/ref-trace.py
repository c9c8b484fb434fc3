#!/usr/bin/env python3
"""Independent reference reader for KVM trace text as people publish it.

Written from the kernel's print formats and the tools' documented output, not
from kvm-exitstat's code: it is the yardstick the expected rows of
tests/fixtures/published/expected/*.json come from.

Usage:
  ref-trace.py SAMPLE              expected result of SAMPLE as JSON on stdout
  ref-trace.py --explain SAMPLE    every record naming a KVM tracepoint, one a line
  ref-trace.py --write DIR         (re)write DIR/expected/NAME.json for DIR/*.txt
  ref-trace.py --check DIR         re-derive every DIR/expected/NAME.json, compare
  ref-trace.py --compare EXPECTED REPORT
                                   compare kvm-exitstat's `report -f json -u ns`
                                   output with an expected file; prints PASS/FAIL
  ref-trace.py --selftest          the rules on small hand-computed cases
  ref-trace.py --hz HZ ...         integer timestamps count HZ per second (R9)

Rules (each with the source it follows; "search:" = found with the project's
search tool, see tests/fixtures/published/PROVENANCE.md for the traces):

R1  Lines.  The input is split at \\n; a \\r before it is dropped (CRLF files);
    bytes that are not UTF-8 are replaced.  Tabs count as blanks.

R2  Mail quoting.  Leading '>' markers, each with at most one blank after it,
    are removed ("> ", ">> ", "> > ").  Mail readers quote that way; nothing in
    a trace record starts with '>'.

R3  Record forms.  Every tool prints "PREFIX TIMESTAMP: EVENT: PAYLOAD":
    - tracefs trace / trace_pipe: kernel/trace/trace_output.c
      trace_print_context() prints "%16s-%-7d " (comm-pid), then "(%7d) " or
      "(-------) " when options/record-tgid is set, "[%03d] " (cpu), the
      irq-info flags when options/irq-info is set (4 or 5 characters, e.g.
      "d..1", "d...."), then the time and ": " (search: the function's text).
    - trace-cmd report: "comm-pid [cpu] time: event: payload", the event name
      padded to a column (the samples of Paolo Bonzini, Jan Kiszka, Vitaly
      Kuznetsov show it).
    - perf script, default: "comm tid [cpu] time: sys:event: payload" -- no '-'
      between comm and tid (perf commit 745f43e3 "perf script: Support custom
      field selection for output", search); -F drops columns: comm,time gives
      "comm time: sys:event:", cpu,time gives "[cpu] time: sys:event:", with
      pid,tid "comm pid/tid ...".
    - perf-prof / perf-monitor (OpenCloudOS/perf-prof docs/kvm-exit.md): a
      wall-clock date and time, "comm tid FLAGS [cpu] time: sys:event:", the
      irq flags before [cpu].
    - trace-cmd report --ts-diff: a "(+N)" column between the time and the
      event ("(+%lld)" printed " %-8s", blank on the first record), and a
      clock not in ns or --raw-ts: the integer "%12d:", glued to "[cpu]" when
      it has 12 digits or more (tracecmd/trace-read.c: time_format(),
      trace_show_data(); samples made with Debian's trace-cmd 3.1.6, see
      tests/fixtures/tsforms/PROVENANCE.md).
    - trimmed by authors: "time: event: payload" or just "event: payload".
    The reference takes the first "NUMBER:" that is followed by a blank (or
    ends the line) as the timestamp, and needs an event name right after it;
    a line that starts with a KVM event name followed by ':' is a record
    without prefix.  Everything in front of the timestamp is the prefix.

R4  KVM tracepoints.  A record names a KVM tracepoint when its event is given
    with the system kvm, kvmmmu, kvm_hv, kvm_pr or kvm_booke, or, without a
    system, when the name starts with "kvm_" or is one of the kvm/kvmmmu events
    that do not (vcpu_match_mmio, fast_page_fault, mark_mmio_spte,
    handle_mmio_page_fault, check_mmio_spte; arch/x86/kvm/trace.h and
    mmu/mmutrace.h).  Mentions in prose (no "name:" at a field boundary) are
    not records.

R5  Wrapped lines.  Mail clients wrap long lines; the next line is appended to
    a record when that line is not blank, is not itself a record start, and
    the record above it is open: its text ends with ':' (cut right after the
    timestamp, after the event name, after arm64's "IRQ:", "TRAP:" or "PC:")
    or its last word is a field label of the kernel print formats -- reason,
    rip, info, info1, info2, intr_info, error_code, address, vcpu
    (arch/x86/kvm/trace.h kvm_exit "vcpu %u reason %s%s%s rip 0x%lx info1
    0x%016llx info2 0x%016llx intr_info 0x%08x error_code 0x%08x", older
    "reason %s rip 0x%lx info %llx %llx"; kvm_page_fault "address %lx
    error_code %lx"; kvm_userspace_exit "reason %s (%d)").  A record cut right
    after its timestamp takes the next line even when that line looks like a
    record of its own (it is the event).  Only adjacent lines join; a blank
    line ends a record.

R6  Classification of every KVM record:
    exit       kvm_exit with a reason the reference can read (R7);
    entry      kvm_entry (its payload is not needed);
    other      any other KVM event (read, not used for the rows);
    not understood, with the reason: a record cut before its payload (a line
               that ends in "kvm_exit" with no ':'), a kvm_exit without a
               reason.  The JSON gives their count and the first line number.
    Exit events of ISAs the samples do not have (kvm_s390_sie_exit,
    kvm_hv:kvm_guest_exit, kvm_pr/kvm_booke:kvm_exit) stop the reference with
    an error instead of a guess.

R7  Exit reasons, as printed:
    - x86: the word after "reason", trailing ',' removed.  VMX names
      (EXTERNAL_INTERRUPT), SVM names as the kernel prints them ("npf", "msr",
      "vintr") or as trace-cmd's kvm plugin prints them ("EXIT_NPF",
      "EXIT_MSR": Vitaly Kuznetsov's 2021 trace has both for one exit), and
      the lower-case names of old kernels ("apic_access") are kept apart: the
      reference does not map one spelling onto another.
    - arm64: arch/arm64/kvm/trace_arm.h kvm_exit prints "%s: HSR_EC: 0x%04x
      (%s), PC: 0x%016lx" (exception type, exception class, name of the
      class) and sets esr_ec to 0 unless the type is TRAP (search: the
      header).  A TRAP row is "TRAP_" + the class name (TRAP_SYS64,
      TRAP_IABT_LOW); other types are the bare type (IRQ, SERROR, IL,
      HYP_GONE) -- the names of exit_types/arm64.types, which keys exits by
      ret << 8 | esr_ec (kvm-exitstat-exit-types(5)).  "ESR_EC" is read like
      "HSR_EC" (a proposed rename).

R8  Threads.  Exits pair with entries of the same thread, never across threads
    (two VMs both have a vcpu 0): the thread id is the number after the last
    '-' of tracefs' comm-pid, or perf's tid ("comm tid", "comm pid/tid");
    a "(tgid)" column and perf-prof's flags before [cpu] are skipped.  Without
    a thread id, the comm is the thread (perf -F comm,time); without either
    the whole file is one thread ("[cpu] time:" and "time:" forms, and lines
    without prefix).

R9  Timestamps.  "SECONDS.FRACTION" is converted to ns exactly, digit by digit
    (no floating point): 6 decimals are microseconds (the kernel's
    "%5lu.%06lu"), 9 are nanoseconds (trace-cmd report -t, perf script --ns).
    A bare integer is a counter whose unit the text does not tell (tracefs
    prints " %12llu" for clocks that are not in ns, e.g. x86-tsc; trace-cmd
    report -R/--raw-ts likewise): durations are then given in "ticks".
    Given the clock's frequency (--hz HZ, what kvm-exitstat's --ts-unit
    FREQ says), each integer timestamp is converted to ns on its own,
    ts * 10^9 // HZ (rounded down), and durations are differences of those.

R10 Segments.  Unedited tracefs, trace-cmd report and perf script output is in
    time order (the kernel's trace iterator and trace-cmd merge the per-CPU
    buffers by timestamp, perf script orders events), so a timestamp smaller
    than the previous one means a second excerpt pasted after the first: a
    new segment starts there, and nothing pairs across segments (open exits
    become untimed, open entries are dropped).  Only KVM records and records
    with a [cpu] column take part, so a stray "12:" in prose starts nothing.
    Equal timestamps are not a restart.  Excerpts whose clock keeps going up
    are not told apart (shukla-svm-idle-hlt-tsonly.txt shows the cost).

R11 Pairing, per thread and segment, on exits and entries only:
    exit -> next entry   handling time of that exit's reason;
    entry -> next exit   TIMEINGUEST;
    exit -> exit         the first exit is counted, untimed;
    entry -> entry       the first interval is dropped;
    a record without a timestamp ends the pairing on its thread (an exit
    without one is counted, untimed), and so does a kvm_exit or kvm_entry
    record that is not understood (an exit whose reason is unknown must not
    be timed as part of its neighbours).  kvm_userspace_exit and the detail
    events are not pairing points: with kvm_exit in the input the handling
    time of an exit runs to the next kvm_entry, userspace round trip included
    (kvm-exitstat-report(1), "--source auto").

R12 Rows.  Per reason: count (every exit), timed, sum/min/max of the timed
    handling times in ns (ticks, R9).  TIMEINGUEST: count = timed = the number
    of entry -> exit intervals.  No deduplication: a line pasted twice is two
    events (the reference cannot tell a repeat from a second event).
"""

import json
import os
import re
import sys

KVM_SYSTEMS = {"kvm", "kvmmmu", "kvm_hv", "kvm_pr", "kvm_booke"}
KVM_BARE = {"vcpu_match_mmio", "fast_page_fault", "mark_mmio_spte",
            "handle_mmio_page_fault", "check_mmio_spte"}
FOREIGN_EXITS = {"kvm_s390_sie_exit", "kvm_guest_exit"}
LABELS = {"reason", "rip", "info", "info1", "info2", "intr_info",
          "error_code", "address", "vcpu"}

EVENT = r"(?:(?P<sys>[a-z_][a-z0-9_]*):)?(?P<ev>[a-z_][a-z0-9_]*)"
QUOTE_RE = re.compile(r"^\s*(?:>[ \t]?)+")
NOPREFIX_RE = re.compile(r"^\s*" + EVENT + r":(?:\s+(?P<payload>.*))?$")
TS_RE = re.compile(r"(?<![\w.:])(?P<ts>\d+\.\d+|\d+):(?=\s|$)")
AFTER_TS_RE = re.compile(r"^(?:\(\+\d+\)\s+)?" + EVENT + r"(?P<colon>:)?(?:\s+(?P<payload>.*))?$")
CPU_RE = re.compile(r"\[(\d+)\]")
TGID_RE = re.compile(r"\s*\(\s*(?:\d+|-+)\)\s*$")
FLAGS_RE = re.compile(r"\s+(?![0-9]+$)[.dDXNnhHsSbzZ0-9]{4,5}$")
FTRACE_PID_RE = re.compile(r"-(\d+)\s*$")
PERF_TID_RE = re.compile(r"(?:^|\s)(\d+)(?:/(\d+))?\s*$")
ARM64_RE = re.compile(r"^(?P<type>[A-Z_]+):\s+[EH]SR_EC:\s+0x[0-9a-fA-F]+\s+\((?P<ec>[A-Za-z0-9_]+)\)")
REASON_RE = re.compile(r"(?:^|\s)reason\s+(?P<r>\S+)")


def is_kvm(sys_name, ev):
    if sys_name is not None:
        return sys_name in KVM_SYSTEMS
    return ev.startswith("kvm_") or ev in KVM_BARE


TICK_HZ = None                    # R9: --hz, the frequency of integer timestamps


def parse_ts(text):
    """R9: (value, unit) with unit 'ns' or 'ticks'; exact, no floats."""
    if "." in text:
        sec, frac = text.split(".")
        return int(sec) * 10**9 + int((frac + "000000000")[:9]), "ns"
    if TICK_HZ:
        return int(text) * 10**9 // TICK_HZ, "ns"
    return int(text), "ticks"


class Record:
    def __init__(self, lineno, text):
        self.lineno = lineno      # first physical line, 1-based
        self.text = text          # joined text (R5)
        self.ts = None
        self.unit = None
        self.sys = None
        self.ev = None            # None: cut right after the timestamp
        self.payload = None
        self.cut = False          # event name at the end of the line, no ':'
        self.cpu = None
        self.key = ("any",)
        self.kvm = False


def identity(pre):
    """R8: (cpu, key) from the text in front of the timestamp."""
    cpu = None
    m = None
    for m in CPU_RE.finditer(pre):
        pass
    before = pre
    if m is not None:
        cpu = int(m.group(1))
        before = pre[:m.start()]
    before = TGID_RE.sub("", before.rstrip())
    before = FLAGS_RE.sub("", before)
    before = before.strip()
    if not before:
        return cpu, ("any",)
    t = FTRACE_PID_RE.search(before)
    if t:
        return cpu, ("tid", int(t.group(1)))
    t = PERF_TID_RE.search(before)
    if t:
        return cpu, ("tid", int(t.group(2) or t.group(1)))
    return cpu, ("comm", before)


def parse_start(text, lineno):
    """R3/R4: a Record when TEXT starts a record, else None."""
    m = NOPREFIX_RE.match(text)
    if m and is_kvm(m.group("sys"), m.group("ev")):
        r = Record(lineno, text)
        r.sys, r.ev, r.payload = m.group("sys"), m.group("ev"), m.group("payload")
        r.kvm = True
        return r
    for t in TS_RE.finditer(text):
        pre, rest = text[:t.start()], text[t.end():].strip()
        if not rest:
            if not CPU_RE.search(pre):
                continue
            r = Record(lineno, text)
        else:
            a = AFTER_TS_RE.match(rest)
            if not a:
                continue
            sys_name, ev = a.group("sys"), a.group("ev")
            kvm = is_kvm(sys_name, ev)
            if not a.group("colon"):
                # "challenge-24797 [003] .... 83184.290416: kvm_exit": cut.
                if a.group("payload") is not None or not kvm:
                    continue
            r = Record(lineno, text)
            r.sys, r.ev, r.payload = sys_name, ev, a.group("payload")
            r.cut = not a.group("colon")
            r.kvm = kvm
        r.ts, r.unit = parse_ts(t.group("ts"))
        r.cpu, r.key = identity(pre)
        return r
    return None


def is_open(text):
    """R5: does the record's text stop where a value has to follow?"""
    t = text.rstrip()
    if t.endswith(":"):
        return True
    words = t.split()
    return bool(words) and words[-1] in LABELS


def read_records(data):
    """R1, R2, R5: the file's records in order, wrapped lines rejoined."""
    lines = data.decode("utf-8", "replace").split("\n")
    records = []
    cur = None                    # record the previous physical line belongs to
    for i, raw in enumerate(lines, 1):
        line = raw[:-1] if raw.endswith("\r") else raw
        line = QUOTE_RE.sub("", line, count=1) if line.lstrip().startswith(">") else line
        line = line.replace("\t", " ")
        if not line.strip():
            cur = None
            continue
        start = parse_start(line, i)
        if cur is not None and is_open(cur.text) and (start is None or cur.ev is None):
            joined = cur.text.rstrip() + " " + line.strip()
            again = parse_start(joined, cur.lineno)
            records[-1] = again if again is not None else cur
            records[-1].text = joined
            cur = records[-1]
            continue
        if start is not None and (start.kvm or start.ts is not None):
            records.append(start)
            cur = start
        else:
            cur = None
    return records


def classify(r):
    """R6/R7: (kind, detail) of a KVM record."""
    if r.cut:
        return "not understood", r.ev + " cut before its payload"
    if r.ev in FOREIGN_EXITS or (r.ev == "kvm_exit" and r.sys in ("kvm_pr", "kvm_booke")):
        raise SystemExit("ref-trace: line %d: %s exits are not modelled by this "
                         "reference (no sample has them)" % (r.lineno, r.ev))
    if r.ev == "kvm_entry":
        return "entry", None
    if r.ev != "kvm_exit":
        return "other", r.ev
    p = (r.payload or "").strip()
    if not p:
        return "not understood", "kvm_exit without a payload"
    a = ARM64_RE.match(p)
    if a:
        t = a.group("type")
        return "exit", ("TRAP_" + a.group("ec")) if t == "TRAP" else t
    m = REASON_RE.search(p)
    if m:
        return "exit", m.group("r").rstrip(",")
    return "not understood", "kvm_exit without an exit reason"


class Row:
    def __init__(self):
        self.count = self.timed = self.sum = 0
        self.min = self.max = None

    def add(self, d):
        self.timed += 1
        self.sum += d
        self.min = d if self.min is None else min(self.min, d)
        self.max = d if self.max is None else max(self.max, d)


def compute(records):
    """R10-R12 over classified records; the result dict."""
    rows, guest = {}, Row()
    lines, bad = [], []
    state = {}                    # key -> ("exit", ts, reason) | ("entry", ts)
    prev_ts, segments, units = None, 1, set()
    for r in records:
        if r.ts is not None and (r.kvm or r.cpu is not None):
            units.add(r.unit)
            if prev_ts is not None and r.ts < prev_ts:
                segments += 1
                state = {}
            prev_ts = r.ts
        if not r.kvm:
            continue
        kind, detail = classify(r)
        lines.append({"line": r.lineno, "event": (r.sys + ":" if r.sys else "") + r.ev,
                      "kind": kind, "detail": detail})
        if kind == "not understood":
            bad.append((r.lineno, detail))
            if r.ev in ("kvm_exit", "kvm_entry"):
                state[r.key] = None      # R11: an unreadable exit/entry breaks the pair
            continue
        if kind == "other":
            continue
        last = state.get(r.key)
        if kind == "exit":
            rows.setdefault(detail, Row()).count += 1
            if last and last[0] == "entry" and r.ts is not None:
                guest.add(r.ts - last[1])
                guest.count += 1
            state[r.key] = ("exit", r.ts, detail) if r.ts is not None else None
        else:
            if last and last[0] == "exit" and r.ts is not None:
                rows[last[2]].add(r.ts - last[1])
            state[r.key] = ("entry", r.ts) if r.ts is not None else None
    if len(units) > 1:
        raise SystemExit("ref-trace: decimal and integer timestamps in one file")
    out_rows = []
    for name in sorted(rows):
        x = rows[name]
        out_rows.append({"name": name, "count": x.count, "timed": x.timed,
                         "sum": x.sum if x.timed else None, "min": x.min, "max": x.max})
    if guest.timed:
        out_rows.append({"name": "TIMEINGUEST", "count": guest.count, "timed": guest.timed,
                         "sum": guest.sum, "min": guest.min, "max": guest.max})
    kinds = [l["kind"] for l in lines]
    return {
        "unit": units.pop() if units else "ns",
        "segments": segments,
        "kvm_records": len(lines),
        "exits": kinds.count("exit"),
        "entries": kinds.count("entry"),
        "other": kinds.count("other"),
        "not_understood": {"count": len(bad),
                           "first_line": bad[0][0] if bad else None,
                           "first_reason": bad[0][1] if bad else None},
        "rows": out_rows,
        "records": lines,
    }


def derive(path):
    with open(path, "rb") as f:
        res = compute(read_records(f.read()))
    res = dict([("sample", os.path.basename(path)), ("reference", "tests/tools/ref-trace.py")]
               + list(res.items()))
    return res


def dump(obj):
    return json.dumps(obj, indent=1, sort_keys=False) + "\n"


def samples(d):
    return sorted(f for f in os.listdir(d) if f.endswith(".txt"))


def expected_path(d, name):
    return os.path.join(d, "expected", name[:-4] + ".json")


def cmd_write(d):
    os.makedirs(os.path.join(d, "expected"), exist_ok=True)
    for name in samples(d):
        with open(expected_path(d, name), "w") as f:
            f.write(dump(derive(os.path.join(d, name))))
    print("wrote %d expected files" % len(samples(d)))


def cmd_check(d):
    ok = bad = 0
    names = samples(d)
    for name in names:
        p = expected_path(d, name)
        want = dump(derive(os.path.join(d, name)))
        have = open(p).read() if os.path.exists(p) else None
        if have == want:
            ok += 1
        else:
            bad += 1
            print("FAIL %s: %s" % (name, "missing" if have is None else
                                   "differs from what the sample gives now (ref-trace.py --write)"))
    extra = [f for f in os.listdir(os.path.join(d, "expected"))
             if f.endswith(".json") and f[:-5] + ".txt" not in names]
    for f in sorted(extra):
        bad += 1
        print("FAIL expected/%s: no sample" % f)
    print("%d passed, %d failed" % (ok, bad))
    return 0 if bad == 0 else 1


def cmd_explain(path):
    res = derive(path)
    for l in res["records"]:
        print("%5d  %-24s %-15s %s" % (l["line"], l["event"], l["kind"], l["detail"] or ""))
    del res["records"]
    print(dump(res), end="")


def num(x):
    return None if x is None else int(round(x))


def cmd_compare(exp_path, rep_path):
    """PASS/FAIL of one report against its expected file; the reason on FAIL."""
    exp = json.load(open(exp_path))
    try:
        rep = json.load(open(rep_path))
    except (OSError, ValueError) as e:
        print("FAIL: report is not JSON (%s)" % e)
        return 1
    if "error" in rep:
        print("FAIL: %s" % rep["error"])
        return 1
    if rep.get("unit") != "ns" and exp["unit"] == "ns":
        print("FAIL: report unit %r, expected ns" % rep.get("unit"))
        return 1
    if exp["unit"] == "ticks" and (rep.get("unit") != "ticks" or
                                   rep.get("ts_unit_known") is not False):
        print("FAIL: report unit %r, ts_unit_known %r; expected ticks, false"
              % (rep.get("unit"), rep.get("ts_unit_known")))
        return 1
    tables = rep.get("tables") or []
    got = {}
    for r in (tables[0]["rows"] if tables else []):
        name = r["name"] if r.get("sub") in (None, "") else r["name"] + "@" + r["sub"]
        # schema /2: count is every exit, timed the timed ones; /1: count was the timed ones
        timed = r["timed"] if "timed" in r else r["count"]
        count = r["count"] if "timed" in r else r["count"] + (r.get("untimed") or 0)
        got[name] = {"count": count, "timed": timed,
                     "sum": num(r.get("sum")) if timed else None,
                     "min": num(r.get("min")) if timed else None,
                     "max": num(r.get("max")) if timed else None}
    want = {r["name"]: {k: r[k] for k in ("count", "timed", "sum", "min", "max")}
            for r in exp["rows"]}
    why = []
    for name in sorted(set(want) | set(got)):
        if name not in got:
            why.append("row %s missing" % name)
        elif name not in want:
            why.append("row %s not expected (count %d)" % (name, got[name]["count"]))
        else:
            for k in ("count", "timed", "sum", "min", "max"):
                if got[name][k] != want[name][k]:
                    why.append("%s %s %s, want %s" % (name, k, got[name][k], want[name][k]))
    nu = rep.get("not_understood")
    if nu is not None:
        n = nu.get("count") if isinstance(nu, dict) else nu
        if n != exp["not_understood"]["count"]:
            why.append("not understood %s, want %d" % (n, exp["not_understood"]["count"]))
        if isinstance(nu, dict) and "first_line" in nu and \
                nu["first_line"] != exp["not_understood"]["first_line"]:
            why.append("first line not understood %s, want %s"
                       % (nu["first_line"], exp["not_understood"]["first_line"]))
    if why:
        print("FAIL: " + "; ".join(why[:6]) + ("; ..." if len(why) > 6 else ""))
        return 1
    print("PASS")
    return 0


# Hand-computed cases for the rules above (synthetic text, not samples): each
# is (what, text, {reason: (count, timed, sum)}, not understood).
SELFTEST = [
    ("R3 tracefs, R11 pairing",
     " q-7 [001] d..1 1.000001: kvm_entry: vcpu 0\n"
     " q-7 [001] .... 1.000004: kvm_exit: reason HLT rip 0x1 info 0 0\n"
     " q-7 [001] d..1 1.000010: kvm_entry: vcpu 0\n",
     {"HLT": (1, 1, 6000), "TIMEINGUEST": (1, 1, 3000)}, 0),
    ("R8 two threads never pair",
     " a-1 [000] .... 2.0: kvm_exit: reason IO rip 0x1\n"
     " b-2 [000] .... 3.0: kvm_entry: vcpu 0\n",
     {"IO": (1, 0, None)}, 0),
    ("R10 restart starts a segment",
     "x  5.000000: kvm:kvm_exit: reason MSR rip 0x1\n"
     "x  4.000000: kvm:kvm_entry: vcpu 0\n",
     {"MSR": (1, 0, None)}, 0),
    ("R5 wrapped after the timestamp and after rip",
     "q-7  [000] ....   1.000000:\n kvm_exit: reason npf rip\n0x1 info 0 0\n"
     "q-7  [000] d..1   1.000002:\n kvm_entry: vcpu 0\n",
     {"npf": (1, 1, 2000)}, 0),
    ("R2 quoted, R7 arm64",
     "> v-9 [002] ..... 1.000000: kvm_exit: TRAP:\n> HSR_EC: 0x0024 (DABT_LOW), PC: 0x0\n"
     "> v-9 [002] d.... 1.000005: kvm_entry: PC:\n> 0x4\n"
     "> v-9 [002] ..... 1.000007: kvm_exit: IRQ: HSR_EC: 0x0000 (UNKNOWN), PC: 0x4\n",
     {"TRAP_DABT_LOW": (1, 1, 5000), "IRQ": (1, 0, None), "TIMEINGUEST": (1, 1, 2000)}, 0),
    ("R6 a cut line is not understood and breaks the pair",
     "q-7 [000] .... 1.000000: kvm_entry: vcpu 0\nq-7 [000] .... 1.000001: kvm_exit\n"
     "q-7 [000] .... 1.000009: kvm_exit: reason HLT\n",
     {"HLT": (1, 0, None)}, 1),
    ("R3 no prefix: counted, untimed; prose is not a record",
     "  kvm_exit:   reason DR_ACCESS info1 0x7\nThe `kvm_exit` event is at 12: here\n",
     {"DR_ACCESS": (1, 0, None)}, 0),
    ("R8 perf default tid, perf-prof flags before [cpu]",
     "2022-04-22 17:39:26.535148  <...> 126953 .... [078] 9.255015: kvm:kvm_exit: reason APIC_WRITE rip 0x1\n"
     "2022-04-22 17:39:26.535253  <...> 126953 d... [074] 9.266643: kvm:kvm_entry: vcpu 0\n"
     "  CPU 0/KVM  699 [020] 9.300000: kvm:kvm_entry: vcpu 1\n",
     {"APIC_WRITE": (1, 1, 11628000)}, 0),
    ("R3 trace-cmd --ts-diff column, R9 raw integer glued to [cpu]",
     "  q-7   [001]100000000001:          kvm_entry:    vcpu 0\n"
     "  q-7   [001]100000000003: (+2)     kvm_exit:     reason HLT rip 0x1\n"
     "  q-7   [001]100000000010: (+7)     kvm_entry:    vcpu 0\n",
     {"HLT": (1, 1, 7), "TIMEINGUEST": (1, 1, 2)}, 0),
]


def cmd_selftest():
    ok = bad = 0
    for what, text, want, nu in SELFTEST:
        res = compute(read_records(text.encode()))
        got = {r["name"]: (r["count"], r["timed"], r["sum"]) for r in res["rows"]}
        if got == want and res["not_understood"]["count"] == nu:
            ok += 1
        else:
            bad += 1
            print("FAIL %s: got %s, not understood %d" % (what, got, res["not_understood"]["count"]))
    print("%d passed, %d failed" % (ok, bad))
    return 0 if bad == 0 else 1


def main(argv):
    global TICK_HZ
    if len(argv) > 2 and argv[1] == "--hz":
        TICK_HZ = int(argv[2])
        argv = argv[:1] + argv[3:]
    if len(argv) == 2 and not argv[1].startswith("-"):
        print(dump(derive(argv[1])), end="")
        return 0
    if len(argv) == 3 and argv[1] == "--explain":
        cmd_explain(argv[2])
        return 0
    if len(argv) == 3 and argv[1] == "--write":
        cmd_write(argv[2])
        return 0
    if len(argv) == 3 and argv[1] == "--check":
        return cmd_check(argv[2])
    if len(argv) == 2 and argv[1] == "--selftest":
        return cmd_selftest()
    if len(argv) == 4 and argv[1] == "--compare":
        return cmd_compare(argv[2], argv[3])
    sys.stderr.write(__doc__.split("Rules")[0])
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
