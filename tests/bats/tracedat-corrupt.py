#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# tracedat-corrupt.py IN OUT: copy an uncompressed trace.dat (file version
# 6, `trace-cmd convert --file-version 6`), giving the first event that
# carries its length in the ring buffer's array[0] (type_len 0) the length
# 0x7ffffff0: four bytes changed, the reader's record then claims ~2 GB.
# The per-CPU data is found with `trace-cmd dump --flyrecord`.

import re
import struct
import subprocess
import sys

HUGE = 0x7FFFFFF0
PAGE = 4096


def cpu_areas(path):
    out = subprocess.run(["trace-cmd", "dump", "--flyrecord", "-i", path],
                         capture_output=True, text=True, check=True).stdout
    return [(int(o), int(n)) for o, n in
            re.findall(r"(\d+)\s+(\d+)\s+\[offset, size of cpu", out)]


# Offset of the first type_len 0 event's length word in one page, or None
def long_event(data, page):
    commit = struct.unpack_from("<Q", data, page + 8)[0] & 0xFFFFF
    at, end = page + 16, page + 16 + commit
    while at < end:
        tl = struct.unpack_from("<I", data, at)[0] & 31
        if tl == 0:
            return at + 4
        at += 4 + tl * 4 if tl <= 28 else (8 if tl < 31 else 16)
    return None


def main():
    src, dst = sys.argv[1], sys.argv[2]
    data = bytearray(open(src, "rb").read())
    for off, size in cpu_areas(src):
        for page in range(off, off + size, PAGE):
            at = long_event(data, page)
            if at is not None:
                struct.pack_into("<I", data, at, HUGE)
                open(dst, "wb").write(data)
                return 0
    sys.exit("tracedat-corrupt.py: no long event in " + src)


if __name__ == "__main__":
    sys.exit(main())
