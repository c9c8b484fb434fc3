#!/usr/bin/env python3
# craftzstd.py IN OUT KIND: a hostile copy of a real zstd trace.dat v7 (as
# `trace-cmd convert --file-version 7 --compression zstd` writes it, e.g.
# tests/fixtures/real/exitgen-v7z.dat), with one thing wrong in the first
# chunk of the first CPU that has data (second-frame: of the first CPU with
# two chunks or more). The chunk stream is found by walking
# the file as trace-cmd.dat.v7(5) lays it out (initial header, the chain of
# OPTIONS sections, the BUFFER option's per-CPU offsets), independently of
# kvm-exitstat's reader. Little-endian files only (what the fixtures are).
#
# KIND:
#   chunk-past-end   the compressed size runs one byte past the end of the file
#   unaligned        the uncompressed size is not a multiple of the page size
#   corrupt-frame    the zstd frame's magic number overwritten
#   size-mismatch    the uncompressed size one page more than the frame holds
#   huge-size        an uncompressed size of 4 GiB - 1 page
#   huge-count       a chunk count of 2^32 - 1
#   second-frame     (needs a CPU with two chunks or more) the second frame's
#                    magic overwritten: found while reading, not at open
#   cpu-size-short   the BUFFER option's size of that CPU's data := 7: its
#                    chunks run past the data it declares (issue 29)
#   count-zero       its chunk count := 0: its chunks leave its data unread
import struct
import sys


def cstring(d, i):
    e = d.index(b"\0", i)
    return d[i:e], e + 1


def cpu_data(d):
    """(page_size, [offset of the chunk count of each CPU with data, in file order],
    [file offset of each one's size in the BUFFER option])."""
    i = 10  # magic
    _, i = cstring(d, i)  # version
    if d[i] != 0:
        sys.exit("craftzstd: not a little-endian file")
    i += 2  # endianness, long size
    page_size = struct.unpack_from("<I", d, i)[0]
    i += 4
    comp, i = cstring(d, i)
    if comp != b"zstd":
        sys.exit("craftzstd: not zstd-compressed (%r)" % comp)
    _, i = cstring(d, i)  # compression version
    at = struct.unpack_from("<Q", d, i)[0]
    while at:
        sid, flags, _, _ = struct.unpack_from("<HHIQ", d, at)
        if sid != 0 or flags & 1:
            sys.exit("craftzstd: unexpected options section at %d" % at)
        o = at + 16
        at = 0
        while True:
            oid, size = struct.unpack_from("<HI", d, o)
            o += 6
            if oid == 0:
                at = struct.unpack_from("<Q", d, o)[0]
                break
            if oid == 3:  # BUFFER: u64 flyrecord, name, clock, u32 page size, u32 cpus, cpus
                b = d[o : o + size]
                p = 8
                name, p = cstring(b, p)
                _, p = cstring(b, p)
                _, ncpus = struct.unpack_from("<II", b, p)
                p += 8
                found, sizes = [], []
                for _ in range(ncpus):
                    _, off, sz = struct.unpack_from("<IQQ", b, p)
                    if sz and name == b"":
                        found.append(off)
                        sizes.append(o + p + 12)
                    p += 20
                if found:
                    return page_size, found, sizes
            o += size
    sys.exit("craftzstd: no CPU data found")


def main():
    src, dst, kind = sys.argv[1:4]
    d = bytearray(open(src, "rb").read())
    page_size, counts, sizes = cpu_data(d)
    count_at = counts[0]
    if kind == "second-frame":
        # which CPU got two chunks (trace-cmd's 10 pages each) is the scheduler's doing
        several = [c for c in counts if struct.unpack_from("<I", d, c)[0] >= 2]
        if not several:
            sys.exit("craftzstd: no CPU has two chunks or more")
        count_at = several[0]
    chunk = count_at + 4  # u32 compressed size, u32 uncompressed size, frame
    zsize, size = struct.unpack_from("<II", d, chunk)
    if kind == "chunk-past-end":
        struct.pack_into("<I", d, chunk, len(d) - (chunk + 8) + 1)
    elif kind == "unaligned":
        struct.pack_into("<I", d, chunk + 4, size - 100)
    elif kind == "corrupt-frame":
        d[chunk + 8 : chunk + 12] = b"\xde\xad\xbe\xef"
    elif kind == "size-mismatch":
        struct.pack_into("<I", d, chunk + 4, size + page_size)
    elif kind == "huge-size":
        struct.pack_into("<I", d, chunk + 4, 0x100000000 - page_size)
    elif kind == "huge-count":
        struct.pack_into("<I", d, count_at, 0xFFFFFFFF)
    elif kind == "second-frame":
        second = chunk + 8 + zsize
        d[second + 8 : second + 12] = b"\xde\xad\xbe\xef"
    elif kind == "count-zero":
        struct.pack_into("<I", d, count_at, 0)
    elif kind == "cpu-size-short":
        struct.pack_into("<Q", d, sizes[counts.index(count_at)], 7)
    else:
        sys.exit("craftzstd: unknown kind " + kind)
    open(dst, "wb").write(d)


main()
