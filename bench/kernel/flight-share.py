#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""flight-share.py TRACE PID: share of file frames an inode_cache record
names (kernel-abi.md rule 3), for PID's stacks and for every stack."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..', 'tests', 'vm'))
import ktrace  # noqa: E402


def share(recs, maps, stacks):
    named = total = 0
    for s in stacks:
        for _, fid in s.frames:
            if int(fid, 16) < 2:
                continue
            total += 1
            if ktrace.binding(recs, maps, s, fid):
                named += 1
    return named, total


def main():
    recs = ktrace.parse(sys.argv[1])
    pid = int(sys.argv[2])
    maps = ktrace.mappings(recs)
    stacks = [r for r in recs if r.kind == 'stack']
    for what, sel in (('pid %d' % pid, [s for s in stacks if s.pid == pid]),
                      ('all', stacks)):
        n, t = share(recs, maps, sel)
        print('%s: %d stacks, %d of %d file frames named (%.1f%%)' %
              (what, len(sel), n, t, 100.0 * n / t if t else 0))


if __name__ == '__main__':
    main()
