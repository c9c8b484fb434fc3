#!/usr/bin/env python3
# pool.py NAME ARCH VERSION DIR: the .deb of NAME:ARCH at VERSION from the
# Debian archive's pool into DIR, found through the Packages index of each
# archive, suite and component this machine's apt knows (apt-get
# indextargets, any architecture's), for when apt itself cannot: a mirror
# caught mid-sync serves a Packages.xz whose size is not the one its signed
# Release says, and apt drops that index ("File has unexpected size ...
# Mirror sync in progress?"; bookworm-security's ppc64el index, 2026-12-06).
# The index read here is not checked against the Release: fetch.sh checks the
# .deb's sha256 against packages.lock, which decides. Exit 0 with the .deb in
# DIR, else 1 with one line on stderr.
import lzma
import os
import re
import subprocess
import sys
import urllib.request

TARGET = re.compile(r"^(?P<base>.+)/dists/(?P<suite>[^/]+)/(?P<comp>[^/]+)/binary-[^/]+/Packages$")


def sources():
    """(archive, suite, component) of every Packages index apt knows, once each."""
    out = subprocess.run(
        ["apt-get", "indextargets", "--format", "$(URI)", "Created-By: Packages"],
        capture_output=True, text=True, check=False,
    ).stdout
    seen = []
    for line in out.split():
        m = TARGET.match(line)
        if m and m.groups() not in seen:
            seen.append(m.groups())
    return seen


def stanzas(text):
    for block in text.split("\n\n"):
        fields = {}
        for line in block.split("\n"):
            if line and not line[0].isspace() and ":" in line:
                k, v = line.split(":", 1)
                fields[k] = v.strip()
        if fields:
            yield fields


def get(url):
    with urllib.request.urlopen(url, timeout=120) as r:
        return r.read()


def main():
    name, arch, version, dest = sys.argv[1:5]
    index_arch = arch
    if arch == "all":
        index_arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True,
                                    text=True, check=False).stdout.strip()
    for base, suite, comp in sources():
        url = "%s/dists/%s/%s/binary-%s/Packages.xz" % (base, suite, comp, index_arch)
        try:
            text = lzma.decompress(get(url)).decode("utf-8", "replace")
        except Exception:  # no such index there, or a broken one: the next source
            continue
        for f in stanzas(text):
            if f.get("Package") == name and f.get("Version") == version and \
                    f.get("Architecture") in (arch, "all") and "Filename" in f:
                deb = os.path.join(dest, os.path.basename(f["Filename"]))
                try:
                    data = get("%s/%s" % (base, f["Filename"]))
                except Exception as e:
                    sys.exit("pool.py: %s:%s %s: %s" % (name, arch, version, e))
                with open(deb, "wb") as out:
                    out.write(data)
                return
    sys.exit("pool.py: %s:%s %s is in no Packages index of apt's sources" % (name, arch, version))


main()
