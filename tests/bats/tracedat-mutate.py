#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# tracedat-mutate.py IN DIR: from a version 7 trace.dat (compressed or
# not), write DIR/NAME.dat for each structural damage below, the kinds
# that crashed libtracecmd 1.3 (issue 31), and on a compressed file a
# chunk that does not decompress (issue 34): each changes a few bytes or
# cuts the file, and prints what it did.

import os
import struct
import sys

SEC_HDR = 16


def cstr(d, at):
    end = d.index(b"\0", at)
    return end + 1


def layout(d):
    """Offsets of the first options pointer, the option sections (each with
    its options as (id, data offset, size)) and the first buffer option."""
    at = cstr(d, 10)              # version
    page_at = at + 2
    at = page_at + 4
    comp_at = at
    at = cstr(d, at)              # compression
    at = cstr(d, at)              # compression version
    first_ptr = at
    compressed = d[comp_at:at - 1].split(b"\0")[0] != b"none"
    sections = []
    off = struct.unpack_from("<Q", d, first_ptr)[0]
    while off:
        size = struct.unpack_from("<Q", d, off + 8)[0]
        pos, end, opts, nxt = off + SEC_HDR, off + SEC_HDR + size, [], 0
        while pos + 6 <= end:
            oid, olen = struct.unpack_from("<HI", d, pos)
            opts.append((oid, pos + 6, olen))
            if oid == 0:
                nxt = struct.unpack_from("<Q", d, pos + 6)[0]
                break
            pos += 6 + olen
        sections.append((off, opts))
        off = nxt
    return page_at, first_ptr, sections, compressed


def buffer_with_cpus(d, sections):
    for _, opts in sections:
        for oid, at, olen in opts:
            if oid != 3:
                continue
            p = cstr(d, cstr(d, at + 8))
            cpus = struct.unpack_from("<I", d, p + 4)[0]
            if cpus:
                return at, p
    raise SystemExit("tracedat-mutate.py: no buffer with CPUs")


def main():
    src, out = sys.argv[1], sys.argv[2]
    orig = open(src, "rb").read()
    page_at, first_ptr, sections, compressed = layout(orig)
    buf_at, buf_page = buffer_with_cpus(orig, sections)
    size = len(orig)
    muts = {}

    def put(name, fmt, at, value, what):
        d = bytearray(orig)
        struct.pack_into(fmt, d, at, value)
        muts[name] = (bytes(d), "%s at %d -> %d" % (what, at, value))

    put("page-size-zero", "<I", page_at, 0, "file page size")
    put("page-size-odd", "<I", page_at, 4097, "file page size")
    put("options-past-end", "<Q", first_ptr, size + 4096, "first option section")
    last_off, last_opts = sections[-1]
    done = [o for o in last_opts if o[0] == 0][0]
    put("options-loop", "<Q", done[1], sections[0][0], "last DONE's next section")
    put("options-self-loop", "<Q", done[1], last_off, "last DONE's next section")
    hdr = [o for _, opts in sections for o in opts if o[0] == 16][0]
    put("section-past-end", "<Q", hdr[1], size - 8, "header info section")
    put("section-wrong-type", "<Q", hdr[1], last_off, "header info section")
    put("option-size-huge", "<I", hdr[1] - 4, 0xFFFFFFF0, "header info option size")
    put("buffer-section-past-end", "<Q", buf_at, 1 << 62, "buffer section")
    put("buffer-page-zero", "<I", buf_page, 0, "buffer page size")
    put("buffer-cpus-huge", "<I", buf_page + 4, 0x7FFFFFFF, "buffer CPU count")
    put("cpu-data-past-end", "<Q", buf_page + 12, size, "CPU data offset")
    put("cpu-size-huge", "<Q", buf_page + 20, 1 << 40, "CPU data size")
    if compressed:
        # the first chunk's compressed bytes garbled: it does not decompress
        # (libtracecmd then printed "mmap: Unknown error -22" and crashed)
        d = bytearray(orig)
        chunk = struct.unpack_from("<Q", d, buf_page + 12)[0] + 4
        for i in range(chunk + 8, chunk + 48):
            d[i] ^= 0x5A
        muts["chunk-garbled"] = (bytes(d), "CPU 0's first chunk: 40 bytes at %d garbled" % (chunk + 8))
    else:
        # the commit of CPU 0's first sub-buffer: lost events stored far
        # past the page (kbuffer_load_subbuffer() read there)
        page = struct.unpack_from("<Q", orig, buf_page + 12)[0]
        put("subbuffer-commit", "<Q", page + 8, 0xC7FF0000, "CPU 0's first commit")
    for cut in (24, 30, first_ptr + 4):
        muts["cut-%d" % cut] = (orig[:cut], "cut at byte %d" % cut)
    os.makedirs(out, exist_ok=True)
    for name, (data, what) in sorted(muts.items()):
        open(os.path.join(out, name + ".dat"), "wb").write(data)
        print("%s.dat: %s" % (name, what))


if __name__ == "__main__":
    sys.exit(main())
