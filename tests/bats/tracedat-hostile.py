#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# tracedat-hostile.py KIND COMPRESSED UNCOMPRESSED OUT: from two copies of
# one recording, COMPRESSED (version 7, zstd) and UNCOMPRESSED (version 7,
# "none": its sub-buffers as they are), write OUT: COMPRESSED whose buffer
# "ustack-gen" gets new CPU data, appended at the end of the file, built
# from UNCOMPRESSED's sub-buffers of the same CPU. The chunks are zstd
# frames written here (raw and RLE blocks, no entropy coding: the format's
# simplest valid frames), so that what a frame holds, and what its chunk
# header claims, can be anything. KIND:
#
#   same        CPU 0: the same sub-buffers, in chunks of 4 (a control)
#   bomb        every CPU: one chunk that claims and holds 1 GiB of zeros
#               (32 KiB of RLE blocks)
#   many        CPU 0: 32-page chunks of zeros, as many as fit in 1.6 MB
#   events      CPU 0: 32-page chunks of 8-byte events, as many as fit in 1.6 MB
#   short       CPU 0: chunks of 4 sub-buffers; the second claims 4 and
#               holds 1 (the chunk before's sub-buffers are still in the
#               reader's buffer)
#   badpage     CPU 0: chunks of 4 sub-buffers, the first one's commit
#               0xC7FF0000 (a stored lost-events count far past its page)
#   count       CPU 0: the chunk table claims 100000 chunks
#   past        CPU 0: the second chunk's compressed size runs past the data
#   pages       CPU 0: the first chunk claims 4097 bytes (not whole pages)
#
# Prints what it did.

import importlib.util
import os
import re
import struct
import sys

GIB = 1 << 30

spec = importlib.util.spec_from_file_location(
    "mutate", os.path.join(os.path.dirname(os.path.abspath(__file__)), "tracedat-mutate.py"))
mutate = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mutate)


def gen_buffer(d):
    """(offset of CPU 0's entry, page size, CPUs) of buffer "ustack-gen" """
    _, _, sections, _ = mutate.layout(d)
    for _, opts in sections:
        for oid, at, _ in opts:
            if oid != 3:
                continue
            name_end = mutate.cstr(d, at + 8)
            if d[at + 8:name_end - 1] != b"ustack-gen":
                continue
            p = mutate.cstr(d, name_end)
            page, cpus = struct.unpack_from("<II", d, p)
            return p + 8, page, cpus
    raise SystemExit("tracedat-hostile.py: no buffer ustack-gen")


def cpu_entry(d, first, cpu):
    return struct.unpack_from("<IQQ", d, first + 20 * cpu)


def block(kind, size, payload):
    return struct.pack("<I", (size << 3) | (kind << 1))[:3] + payload


def frame(data):
    """A zstd frame: no content size, 128 KiB window, raw and RLE blocks"""
    blocks = []
    at = 0
    runs = [(m.start(), m.end()) for m in re.finditer(rb"(.)\1{63,}", data, re.S)]
    pieces = []
    for s, e in runs:
        if s > at:
            pieces.append((0, data[at:s]))
        pieces.append((1, data[s:e]))
        at = e
    if at < len(data):
        pieces.append((0, data[at:]))
    for kind, piece in pieces:
        for i in range(0, len(piece), 1 << 17):
            part = piece[i:i + (1 << 17)]
            blocks.append(block(kind, len(part), part[:1] if kind else part))
    if not blocks:
        blocks.append(block(0, 0, b""))
    last = bytearray(blocks[-1])
    last[0] |= 1
    blocks[-1] = bytes(last)
    return struct.pack("<IBB", 0xFD2FB528, 0, 0x38) + b"".join(blocks)


def zeros_frame(size):
    """size bytes of zeros: one 4-byte RLE block per 128 KiB"""
    blocks = [block(1, min(1 << 17, size - i), b"\0") for i in range(0, size, 1 << 17)]
    last = bytearray(blocks[-1])
    last[0] |= 1
    blocks[-1] = bytes(last)
    return struct.pack("<IBB", 0xFD2FB528, 0, 0x38) + b"".join(blocks)


def table(chunks, count=None):
    """CPU data: the count, then each chunk's sizes and frame"""
    out = struct.pack("<I", len(chunks) if count is None else count)
    for claimed, z in chunks:
        out += struct.pack("<II", len(z), claimed) + z
    return out


def main():
    kind, comp, plain, dst = sys.argv[1:5]
    d = bytearray(open(comp, "rb").read())
    u = open(plain, "rb").read()
    first, page, cpus = gen_buffer(d)
    ufirst, upage, _ = gen_buffer(u)
    assert page == upage
    _, uoff, usize = cpu_entry(u, ufirst, 0)
    pages = [u[o:o + page] for o in range(uoff, uoff + usize, page)]
    new = {}
    if kind == "bomb":
        for cpu in range(cpus):
            new[cpu] = table([(GIB, zeros_frame(GIB))])
        what = "%d CPUs: one chunk of 1 GiB of zeros each" % cpus
    elif kind == "many":
        z = zeros_frame(32 * page)
        n = (1600 * 1024) // (len(z) + 8)
        new[0] = table([(32 * page, z)] * n)
        what = "CPU 0: %d chunks of 32 zero pages in %d bytes each" % (n, len(z))
    elif kind == "events":
        # each page: its header, then 8-byte events (type_len 1) to its end
        hdr = struct.pack("<QQ", 1, page - 16)
        p = hdr + b"\x01" * (page - 16)
        z = frame(p * 32)
        n = (1600 * 1024) // (len(z) + 8)
        new[0] = table([(32 * page, z)] * n)
        what = "CPU 0: %d chunks of 32 pages of 8-byte events in %d bytes each" % (n, len(z))
    elif kind in ("same", "short", "badpage", "count", "past", "pages"):
        if kind == "badpage":
            p0 = bytearray(pages[0])
            struct.pack_into("<Q", p0, 8, 0xC7FF0000)
            pages[0] = bytes(p0)
        groups = [b"".join(pages[i:i + 4]) for i in range(0, len(pages), 4)]
        chunks = [(len(g), frame(g)) for g in groups]
        count = None
        if kind == "short":
            chunks[1] = (chunks[1][0], frame(groups[1][:page]))
        elif kind == "count":
            count = 100000
        elif kind == "pages":
            chunks[0] = (page + 1, chunks[0][1])
        new[0] = bytearray(table(chunks, count))
        if kind == "past":
            # the second chunk's compressed size: past the end of the data
            at = 4 + 8 + len(chunks[0][1])
            struct.pack_into("<I", new[0], at, len(new[0]))
        what = "CPU 0: %d sub-buffers in %d chunks (%s)" % (len(pages), len(chunks), kind)
    else:
        raise SystemExit("tracedat-hostile.py: unknown kind " + kind)
    for cpu, data in sorted(new.items()):
        cid = cpu_entry(d, first, cpu)[0]
        # page-aligned, as libtracecmd writes CPU data
        d += b"\0" * (-len(d) % page)
        struct.pack_into("<IQQ", d, first + 20 * cpu, cid, len(d), len(data) - 4)
        d += data
    open(dst, "wb").write(d)
    print("%s: %s, %d bytes" % (os.path.basename(dst), what, len(d)))


if __name__ == "__main__":
    sys.exit(main())
