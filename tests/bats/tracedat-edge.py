#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# tracedat-edge.py IN OUT LSIZE EXTRA [missed|shift|cpus]: OUT is IN, an uncompressed
# version 7 trace.dat, with the long size of its header set to LSIZE (4
# or 8) and the commit of the first sub-buffer of its first CPU with data
# set to the room a sub-buffer has (the page less its 8-byte time stamp
# and its LSIZE-byte commit) plus EXTRA, which may be negative; with
# "missed", the commit also says a count of lost events is stored after
# the data (it takes LSIZE bytes of the room); with "shift", the commit
# is left alone and the CPU's data is said to start EXTRA bytes later
# instead; with "cpus", the buffer option claims EXTRA CPUs (its table
# unchanged). Prints "OFFSET ROOM SIZE" of that CPU's data ("cpus": the
# offset is the option's CPU table's).

import importlib.util
import os
import struct
import sys

MISSED_STORED = 1 << 30


def main():
    mode = sys.argv[5] if len(sys.argv) == 6 else ""
    if len(sys.argv) not in (5, 6) or sys.argv[3] not in ("4", "8") or \
       mode not in ("", "missed", "shift", "cpus"):
        raise SystemExit("usage: tracedat-edge.py IN OUT 4|8 EXTRA [missed|shift|cpus]")
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("mutate", os.path.join(here, "tracedat-mutate.py"))
    mutate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mutate)
    d = bytearray(open(sys.argv[1], "rb").read())
    lsize, extra = int(sys.argv[3]), int(sys.argv[4])
    page_at, _, sections, compressed = mutate.layout(d)
    if compressed:
        raise SystemExit("tracedat-edge.py: a compressed file")
    psize = struct.unpack_from("<I", d, page_at)[0]
    _, p = mutate.buffer_with_cpus(d, sections)
    for cpu in range(struct.unpack_from("<I", d, p + 4)[0]):
        entry = p + 8 + 20 * cpu
        _, off, size = struct.unpack_from("<IQQ", d, entry)
        if size:
            break
    # the header's long size: the byte before the page size
    d[page_at - 1] = lsize
    room = psize - 8 - lsize
    if mode == "cpus":
        struct.pack_into("<I", d, p + 4, extra)
        off = p + 8
    elif mode == "shift":
        off += extra
        struct.pack_into("<Q", d, entry + 4, off)
    else:
        commit = room + extra
        if mode == "missed":
            commit -= lsize
            commit |= MISSED_STORED
        struct.pack_into("<Q" if lsize == 8 else "<I", d, off + 8, commit)
    open(sys.argv[2], "wb").write(d)
    print(off, room, size)


main()
