#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# make-repro.py V6.DAT OUTDIR: the reproducers of tests/data/README.md,
# each a copy of V6.DAT (tests/data/deep-deferred.dat converted with
# `trace-cmd convert --file-version 6`: uncompressed, so that the bytes
# below are the ones libtracecmd reads) with a few bytes changed:
#
#   close-null-list.dat   8 bytes: the size of CPU 0 of the buffer
#                         instance (its flyrecord entry) runs past the end
#                         of the file -> tracecmd_close() walks list heads
#                         never initialised (SIGSEGV)
#   page-size-zero.dat    4 bytes: the header's page size is 0 -> division
#                         by zero in libtracecmd's init_cpu() (SIGFPE)
#   kbuffer-lost.dat      4 bytes: the commit word of CPU 0's second
#                         sub-buffer gets MISSING_EVENTS | MISSING_STORED
#                         and a size of 0x7ff0000 -> kbuffer_load_subbuffer()
#                         reads the lost-events count 128 MiB past the
#                         sub-buffer (SIGSEGV)
#
# Offsets come from `trace-cmd dump --flyrecord`; each change is printed.

import os
import re
import struct
import subprocess
import sys

MISSING_EVENTS = 1 << 31
MISSING_STORED = 1 << 30


def cpu_areas(path):
    out = subprocess.run(["trace-cmd", "dump", "--flyrecord", "-i", path],
                         capture_output=True, text=True, check=True).stdout
    return [(int(o), int(n)) for o, n in
            re.findall(r"(\d+)\s+(\d+)\s+\[offset, size of cpu", out)]


def write(outdir, name, data, what):
    open(os.path.join(outdir, name), "wb").write(data)
    print(name + ": " + what)


def main():
    src, outdir = sys.argv[1], sys.argv[2]
    base = bytes(open(src, "rb").read())
    assert base[3:10] == b"tracing" and base[10:12] == b"6\0", "not a version 6 trace.dat"
    off, size = cpu_areas(src)[0]
    assert size >= 8192, "CPU 0 needs two sub-buffers"

    # the flyrecord entry of the instance's CPU 0: u64 offset, u64 size
    entry = base.find(struct.pack("<QQ", off, size))
    assert entry > 0 and base.find(struct.pack("<QQ", off, size), entry + 1) < 0
    d = bytearray(base)
    struct.pack_into("<Q", d, entry + 8, len(base))
    write(outdir, "close-null-list.dat", d,
          "u64 at %d (CPU 0 size) %d -> %d" % (entry + 8, size, len(base)))

    # after magic, "tracing", "6\0", endianness and long size
    d = bytearray(base)
    struct.pack_into("<I", d, 14, 0)
    write(outdir, "page-size-zero.dat", d, "u32 at 14 (page size) 4096 -> 0")

    # sub-buffer header: u64 time stamp, u64 commit (flags in bits 30, 31)
    at = off + 4096 + 8
    commit = struct.unpack_from("<I", base, at)[0]
    d = bytearray(base)
    new = MISSING_EVENTS | MISSING_STORED | 0x7ff0000
    struct.pack_into("<I", d, at, new)
    write(outdir, "kbuffer-lost.dat", d,
          "u32 at %d (commit of CPU 0's second sub-buffer) %#x -> %#x" % (at, commit, new))
    return 0


if __name__ == "__main__":
    sys.exit(main())
