#!/usr/bin/env python3
"""doc-examples.py KES EXITGEN: the command lines the documentation shows,
checked against the option tables the parser runs on (kvm-exitstat
__commands, __options CMD; exitgen --help). One line per fault, then
"N passed, N failed".

  - every SYNOPSIS (man pages rendered by man(1)): each option it names is
    its command's; a command whose SYNOPSIS has no "[options]" names every
    option; kvm-exitstat(1)'s names every command;
  - every example command line (the README's code blocks, the man pages'
    EXAMPLES): its command exists, each option is the command's, an option
    that takes an argument has one, and a fixed set of words (-f table|csv)
    takes one of them; `make TARGET` lines name targets the Makefile has."""
import re
import shlex
import subprocess
import sys

kes, exitgen = sys.argv[1], sys.argv[2]
passed = failed = 0


def ok(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


def run(*a):
    return subprocess.run(a, capture_output=True, text=True).stdout


cmds = run(kes, "__commands").split()
opts = {}
for c in cmds:
    o = {}
    for line in run(kes, "__options", c).splitlines():
        lng, shrt, arg, words, alias, *_ = line.split("\t")
        for name in (lng, shrt):
            if name != "-":
                o[name] = (arg, None if words == "-" else words.split(","))
    opts[c] = o
eg_opts = set(re.findall(r"^\s+(--[a-z][a-z0-9-]*)", run(exitgen, "--help"), re.M))


def man_text(page):
    return subprocess.run(["man", "-l", page], capture_output=True, text=True,
                          env={"MANWIDTH": "2000", "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8",
                               "MAN_KEEP_FORMATTING": ""}).stdout


def section(text, name):
    m = re.search(r"^%s\n(.*?)(?=^[A-Z][A-Z ]+\n)" % name, text, re.S | re.M)
    return m.group(1) if m else ""


def option_tokens(s):
    return set(re.findall(r"(?<![\w-])(--?[A-Za-z0-9][A-Za-z0-9-]*)", s))


# ---- SYNOPSIS
for page in ["kvm-exitstat.1"] + ["man/kvm-exitstat-%s.1" % c for c in cmds]:
    syn = section(man_text(page), "SYNOPSIS").replace("\u2010", "-")
    ok(syn.strip(), "%s: a SYNOPSIS" % page)
    if page == "kvm-exitstat.1":
        for c in cmds:
            ok(re.search(r"kvm-exitstat %s\b" % c, syn), "kvm-exitstat(1) SYNOPSIS: %s" % c)
        continue
    c = page.split("kvm-exitstat-")[1][:-2]
    names = option_tokens(syn)
    for n in sorted(names):
        ok(n in opts[c], "%s SYNOPSIS: %s is an option of %s" % (page, n, c))
    if "[options]" not in syn:
        # every option, by either of its names (aliases and --help aside)
        seen = set()
        for line in run(kes, "__options", c).splitlines():
            lng, shrt, arg, words, alias, *_ = line.split("\t")
            if alias != "-" or lng == "--help":
                continue
            ok(lng in names or shrt in names,
               "%s SYNOPSIS (no [options]) lacks %s" % (page, lng))
syn = section(man_text("man/kvm-exitgen.1"), "SYNOPSIS").replace("\u2010", "-")
for n in sorted(eg_opts):
    ok(n in syn, "kvm-exitgen(1) SYNOPSIS lacks %s (exitgen --help has it)" % n)
for n in sorted(option_tokens(syn)):
    ok(n in eg_opts, "kvm-exitgen(1) SYNOPSIS: %s is no option of exitgen --help" % n)


# ---- example command lines
def check_line(where, line):
    try:
        w = shlex.split(line, comments=True)
    except ValueError:
        ok(False, "%s: cannot split %r" % (where, line))
        return
    if not w:
        return
    for sep in ("&&", ";", "||"):
        if sep in w:
            k = w.index(sep)
            check_line(where, shlex.join(w[:k]))
            check_line(where, shlex.join(w[k + 1:]))
            return
    if w[0] == "make":
        mk = open("Makefile").read()
        for t in w[1:]:
            if "=" in t or t.startswith("-") or "/" in t:  # variables, flags, files
                continue
            ok(re.search(r"^%s:" % re.escape(t), mk, re.M), "%s: make target %s" % (where, t))
        return
    if w[0] != "kvm-exitstat" or len(w) < 2:
        return
    c = w[1]
    if c in ("--version", "-V", "--help", "-h", "help"):
        ok(True, "")
        return
    ok(c in opts, "%s: %s is a command" % (where, c))
    if c not in opts:
        return
    o, i = opts[c], 2
    while i < len(w):
        t = w[i]
        if t == "--" or (c == "record" and not t.startswith("-")):
            break  # record's COMMAND and its own options
        if t in ("|", ">", ">>", "&&", ";"):
            break
        if t.startswith("-") and t != "-":
            name, _, val = t.partition("=")
            if not name.startswith("--") and len(name) > 2:  # -ab bundles and -fjson
                name, val = name[:2], name[2:]
            ok(name in o, "%s: %s is an option of %s" % (where, name, c))
            if name in o and o[name][0] != "-":
                if not val:
                    i += 1
                    val = w[i] if i < len(w) else None
                ok(val is not None, "%s: %s takes %s" % (where, name, o[name][0]))
                words = o[name][1]
                if words and val is not None:
                    ok(val in words, "%s: %s %s is one of %s" % (where, name, val, ",".join(words)))
        i += 1


def blocks(path):
    inb = False
    for n, line in enumerate(open(path), 1):
        if line.startswith("```"):
            inb = not inb
            continue
        if inb:
            yield n, re.sub(r"^\$ ", "", line.rstrip("\n"))


nlines = 0
for n, line in blocks("README.md"):
    if re.match(r"(kvm-exitstat|make) ", line):
        nlines += 1
        check_line("README.md:%d" % n, line)
ok(nlines >= 20, "README examples found: %d" % nlines)
for page in ["kvm-exitstat.1"] + ["man/kvm-exitstat-%s.1" % c for c in cmds]:
    ex = section(man_text(page), "EXAMPLES").replace("\u2010", "-")
    prev = ""
    for raw in ex.splitlines():
        # "# ..." right under a "$ " command is its output (report --slowest's header)
        out = raw.strip().startswith("# ") and prev.startswith("$ ")
        prev = raw.strip() or prev
        line = re.sub(r"^\s*[#$] ", "", raw.strip())
        if not out and re.match(r"kvm-exitstat [a-z-]+( |$)", line):  # a command, not output
            check_line("%s EXAMPLES" % page, line)
print("%d passed, %d failed" % (passed, failed))
sys.exit(failed != 0)
