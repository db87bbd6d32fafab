#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# workers-check.py PIDS [STACKS]: check every stack that trace-cmd ustack
# printed (stacks mode, STACKS or stdin) for tests/progs/workers against
# its event. PIDS holds the "TID CHAIN" lines the workers wrote. An event
# of task TID whose stack is there must have been made by chain CHAIN:
# its leaf is wCHAIN_ppid for sys_enter_getppid and wCHAIN_uid for
# sys_enter_getuid, its next frame wCHAIN_loop, and no frame belongs to
# another chain. A stack paired with the wrong task's event shows another
# chain; one paired with another system call of the same task shows the
# other leaf. "[stack lost]" stands for a stack the tool knows it lost.
#
# Prints "checked N", "lost N", "nostack N", "bad N", then per chain
# "wC ppid N uid N" (events with a stack or lost); the first bad events
# go to stderr. Exits 1 when an event is bad or of a task not in PIDS.

import re
import sys

HEADER = re.compile(r'-(\d+) +\[\d+\] +[\d.]+: (sys_enter_\w+):')
FRAME = re.compile(r'^  (\S+?)(\+0x[0-9a-f]+)? \(')
LEAF = {'sys_enter_getppid': 'ppid', 'sys_enter_getuid': 'uid'}


def main():
    chain_of = {}
    with open(sys.argv[1]) as f:
        for line in f:
            tid, chain = line.split()
            chain_of[int(tid)] = int(chain)
    src = open(sys.argv[2]) if len(sys.argv) > 2 else sys.stdin
    blocks = []
    for line in src:
        line = line.rstrip('\n')
        if line.startswith('  ') and not HEADER.search(line):
            if not blocks:
                print('a frame before any event: ' + line, file=sys.stderr)
                return 1
            blocks[-1][1].append(line)
        else:
            blocks.append((line, []))

    counts = {}
    checked = lost = nostack = bad = 0
    for header, frames in blocks:
        why = None
        m = HEADER.search(header)
        if not m or m.group(2) not in LEAF:
            why = 'not an event of getppid or getuid'
        elif int(m.group(1)) not in chain_of:
            why = 'a task that is not a worker'
        else:
            chain = chain_of[int(m.group(1))]
            kind = LEAF[m.group(2)]
            names = []
            for fr in frames:
                fm = FRAME.match(fr)
                names.append(fm.group(1) if fm else fr.strip())
            if names == ['[stack lost]']:
                lost += 1
            elif names == ['[no user stack]']:
                nostack += 1
                why = 'no user stack'
            elif len(names) < 2:
                why = 'fewer than 2 frames'
            elif names[0] != 'w%d_%s' % (chain, kind):
                why = 'leaf is not w%d_%s' % (chain, kind)
            elif names[1] != 'w%d_loop' % chain:
                why = 'caller is not w%d_loop' % chain
            elif any(re.match(r'w\d+_', n) and not n.startswith('w%d_' % chain)
                     for n in names):
                why = 'a frame of another chain'
            else:
                checked += 1
            if why is None:
                c = counts.setdefault(chain, {'ppid': 0, 'uid': 0})
                c[kind] += 1
        if why:
            bad += 1
            if bad <= 5:
                print('bad (%s):' % why, header, *frames, sep='\n  ',
                      file=sys.stderr)
    print('checked %d' % checked)
    print('lost %d' % lost)
    print('nostack %d' % nostack)
    print('bad %d' % bad)
    for chain in sorted(counts):
        print('w%d ppid %d uid %d' % (chain, counts[chain]['ppid'],
                                      counts[chain]['uid']))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
