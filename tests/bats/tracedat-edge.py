#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# tracedat-edge.py IN OUT LSIZE EXTRA [missed]: OUT is IN, an uncompressed
# version 7 trace.dat, with the long size of its header set to LSIZE (4
# or 8) and the commit of the first sub-buffer of its first CPU with data
# set to the room a sub-buffer has (the page less its 8-byte time stamp
# and its LSIZE-byte commit) plus EXTRA, which may be negative; with
# "missed", the commit also says a count of lost events is stored after
# the data (it takes LSIZE bytes of the room). Prints "OFFSET ROOM" of
# that sub-buffer.

import importlib.util
import os
import struct
import sys

MISSED_STORED = 1 << 30


def main():
    if len(sys.argv) not in (5, 6) or sys.argv[3] not in ("4", "8"):
        raise SystemExit("usage: tracedat-edge.py IN OUT 4|8 EXTRA [missed]")
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
        _, off, size = struct.unpack_from("<IQQ", d, p + 8 + 20 * cpu)
        if size:
            break
    # the header's long size: the byte before the page size
    d[page_at - 1] = lsize
    room = psize - 8 - lsize
    commit = room + extra
    if len(sys.argv) == 6:
        commit -= lsize
        commit |= MISSED_STORED
    struct.pack_into("<Q" if lsize == 8 else "<I", d, off + 8, commit)
    open(sys.argv[2], "wb").write(d)
    print(off, room)


main()
