#!/usr/bin/env python3
"""promql-queries.py DASHBOARD.json RULES.yml: every query the dashboard and
the rules run, one a line, "WHAT<TAB>QUERY", ready for Prometheus's API:

  - each panel target's expr, the dashboard's variables replaced (the
    multi-value ones by ".*", $source by each of its values in turn, given
    as SOURCES in the environment, default "kvm_exit userspace",
    $__rate_interval by RATE, default "1m");
  - each template variable's label_values(SELECTOR, LABEL) as "label_values"
    queries: SELECTOR<TAB>LABEL (the caller asks /api/v1/series);
  - each recording rule's name (the series it records) and expression;
  - each alert's expression without its final comparison (`A > 0.001` -> A),
    so it has data whenever its input has, firing or not.

Reads YAML with the subset the rules file uses (python has no yaml module
here): "- record:", "- alert:" and "expr:" lines, ">" folded blocks."""
import json
import os
import re
import sys

RATE = os.environ.get("RATE", "1m")
SOURCES = os.environ.get("SOURCES", "kvm_exit userspace").split()
MULTI = {"instance": ".*", "vm": ".*", "job": ".*"}


def subst(q, source):
    q = q.replace("$__rate_interval", RATE)
    for k, v in MULTI.items():
        q = q.replace("$" + k, v)
    return q.replace("$source", source)


def dashboard(path):
    d = json.load(open(path))
    for p in d["panels"]:
        for t in p.get("targets", []):
            srcs = SOURCES if "$source" in t["expr"] else SOURCES[:1]
            for s in srcs:
                yield "panel %r %s%s" % (p["title"], t["refId"],
                                         " source=" + s if "$source" in t["expr"] else ""), subst(t["expr"], s)
    for v in d["templating"]["list"]:
        if v["type"] != "query":
            continue
        m = re.match(r"label_values\((.*),\s*(\w+)\)$", v["query"]["query"])
        yield "variable $%s" % v["name"], "label_values\t%s\t%s" % (subst(m.group(1), SOURCES[0]), m.group(2))


def rules(path):
    lines = open(path).read().split("\n")
    i, name = 0, None
    while i < len(lines):
        m = re.match(r"\s*- (record|alert): (\S+)", lines[i])
        if m:
            name = m.groups()
            if name[0] == "record":
                yield "recorded series %s" % name[1], name[1]
        m = re.match(r"(\s*)expr: (.*)$", lines[i])
        if m:
            ind, e = len(m.group(1)), m.group(2)
            if e.strip() == ">":
                e, i = [], i + 1
                while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > ind):
                    e.append(lines[i].strip())
                    i += 1
                e = " ".join(e)
                i -= 1
            if name[0] == "alert":
                e = re.sub(r"\s*(==|!=|>=|<=|>|<)\s*[-+0-9.eE]+\s*$", "", e)
            yield "%s %s's expr" % name, e
        i += 1


for what, q in list(dashboard(sys.argv[1])) + list(rules(sys.argv[2])):
    print("%s\t%s" % (what, q))
