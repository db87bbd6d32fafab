#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# tracedat-tsopt.py IN OUT KIND: OUT is IN, an uncompressed version 7
# trace.dat, with its UNAME option made an option that changes the
# timestamps libtracecmd gives, of KIND:
#   offset    OFFSET, "1000000000" (what --ts-offset records): + 1 s
#   date      DATE, "0x3b9aca00" (what --date records): + 1 s
#   tsc2nsec  TSC2NSEC, multiplier 3, shift 1 (a guest's TSC conversion)
# The option keeps its size (the rest NULs): nothing else moves.

import importlib.util
import os
import struct
import sys

KINDS = {
    "offset": (7, b"1000000000\0"),
    "date": (1, b"0x3b9aca00\0"),
    "tsc2nsec": (14, struct.pack("<IIQ", 3, 1, 0)),
}
UNAME = 5


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in KINDS:
        raise SystemExit("usage: tracedat-tsopt.py IN OUT offset|date|tsc2nsec")
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("mutate", os.path.join(here, "tracedat-mutate.py"))
    mutate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mutate)
    d = bytearray(open(sys.argv[1], "rb").read())
    _, _, sections, compressed = mutate.layout(d)
    if compressed:
        raise SystemExit("tracedat-tsopt.py: a compressed file (its options may be too)")
    oid, payload = KINDS[sys.argv[3]]
    for _, opts in sections:
        for i, at, olen in opts:
            if i != UNAME or olen < len(payload):
                continue
            struct.pack_into("<H", d, at - 6, oid)
            d[at:at + olen] = payload + bytes(olen - len(payload))
            open(sys.argv[2], "wb").write(d)
            return
    raise SystemExit("tracedat-tsopt.py: no UNAME option to change")


main()
