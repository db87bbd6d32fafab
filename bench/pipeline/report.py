#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/pipeline/report.py WORK PERF: RESULTS.md from the "@@" lines
bench/pipeline/run collected in WORK/results-{report,record}.txt (see run
for what they mean) and the command lines in WORK/cmd-{report,record}."""
import collections
import os
import statistics
import sys


def load(work):
    """rep: (tool, size) -> [(wall, cpu, rss_kb, anon_kb)], the anonymous
    peak coming from the memory runs (-1: none for that cell)."""
    rep, rec = collections.defaultdict(list), collections.defaultdict(list)
    mem = {}
    lines = []
    for part in ('report', 'record'):
        path = os.path.join(work, 'results-%s.txt' % part)
        if os.path.exists(path):
            lines += open(path).readlines()
    for line in lines:
        f = line.split()
        if len(f) < 2 or f[0] != '@@':
            continue
        if f[1] == 'rep':
            rep[(f[2], int(f[3]))].append([float(f[4]), float(f[5]), int(f[6]), -1])
        elif f[1] == 'mem':
            key = (f[2], int(f[3]))
            mem[key] = max(mem.get(key, 0), int(f[4]))
        elif f[1] == 'rec':
            kv = dict(zip(f[7::2], f[8::2]))
            rec[(int(f[3]), int(f[4]), int(f[5]), f[2])].append(kv)
    for key, runs in rep.items():
        for r in runs:
            r[3] = mem.get(key, -1)
    return rep, rec


def best(runs):
    wall, cpu = min(runs)[:2]
    return (wall, cpu, max(r[2] for r in runs) / 1024.0,
            max(r[3] for r in runs) / 1024.0)


def anon_mb(a, fmt):
    """A run of a few tens of ms may end before a sample sees its memory
    (0), or the cell had no memory run (-1)."""
    return fmt % a if a > 0 else '-'


def report_tables(rep):
    sizes = sorted({s for _, s in rep})
    tools = ['ustack-folded', 'ustack-stacks', 'trace-cmd-report', 'perf-script',
             'ustack-folded-compressed', 'trace-cmd-report-compressed']
    print('## Report (this host)\n')
    print('Best wall time of the rounds, the CPU time (user+sys) of that run, '
          'the largest peak RSS (bench/pipeline/timed.c, from wait4(2): it '
          'counts the pages of the '
          'input file libtracecmd maps) and the largest anonymous RSS '
          '(the tool\'s own memory, sampled every millisecond by timed -a in a '
          'run of its own, not timed; -: no sample caught it); *ratio*: wall time '
          'over `trace-cmd report`\'s on the same file (goal for `--folded`: '
          '0.5 or less). perf reads a perf.data of the same workload with as '
          'many samples.\n')
    print('| events | tool | wall s | cpu s | peak RSS MB | anon MB | ratio | runs |')
    print('|---:|---|---:|---:|---:|---:|---:|---:|')
    for s in sizes:
        ref = rep.get(('trace-cmd-report', s))
        for t in tools:
            if (t, s) not in rep:
                continue
            w, c, m, a = best(rep[(t, s)])
            if t.endswith('-compressed'):
                ref = rep.get(('trace-cmd-report-compressed', s))
            ratio = '%.2f' % (w / best(ref)[0]) if ref and not t.startswith('trace-cmd') else ''
            print('| %s | %s | %.3f | %.3f | %.1f | %s | %s | %d |'
                  % (f'{s:,}', t, w, c, m, anon_mb(a, '%.1f'), ratio, len(rep[(t, s)])))
    print('\n### Growth\n')
    print('Per million events: wall seconds; and the anonymous RSS peak in MB.\n')
    print('| tool | ' + ' | '.join(f'{s:,}' for s in sizes) + ' |')
    print('|---|' + '---:|' * len(sizes))
    for t in tools:
        cells = []
        for s in sizes:
            if (t, s) in rep:
                w, _, m, a = best(rep[(t, s)])
                cells.append('%.2f s/M, %s MB' % (w * 1e6 / s, anon_mb(a, '%.0f')))
            else:
                cells.append('')
        if any(cells):
            print('| %s | %s |' % (t, ' | '.join(cells)))
    print()


def record_tables(rec):
    print('## Record and live (the VM: qemu TCG, 2 vCPUs, 1408 KiB per CPU)\n')
    print('`ours`: `trace-cmd ustack record` (summary read from the files after '
          'the run); `ours-q`: the same with -q (no summary); `trace-cmd`: '
          '`trace-cmd record -F -c -O userstacktrace_delay -e inode_cache -e '
          'syscalls:sys_enter_getppid`; `live`: `trace-cmd ustack -q -c --folded` '
          '(no file: the reader thread, the session and the folded output). '
          'cpu: user+sys of the recorder (or live reader) alone; us/event: that '
          'CPU per traced event, mean of the rounds; lost: ring-buffer entries '
          'lost (per_cpu stats); stacks: user stacks in the file (live: in its '
          'output). One cell per round, in run order. A rate of `max` is as '
          'fast as the threads go.\n')
    print('| threads | calls each | rate/s each | tool | cpu s | us/event | lost | stacks |')
    print('|---:|---|---:|---|---|---:|---|---|')
    for (t, n, r, tool), runs in sorted(rec.items(), key=lambda x: (x[0][0], x[0][2] or 10**9, x[0][1], x[0][3])):
        cpus = [float(k['cpu_s']) for k in runs]
        per = statistics.mean(cpus) * 1e6 / (t * n)
        print('| %d | %s | %s | %s | %s | %.1f | %s | %s |'
              % (t, f'{n:,}', f'{r:,}' if r else 'max', tool,
                 ' '.join(k['cpu_s'] for k in runs), per,
                 ' '.join(k['lost'] for k in runs),
                 ' '.join(k['stacks'] for k in runs)))
    print()


def main():
    work = sys.argv[1]
    rep, rec = load(work)
    here = os.path.dirname(os.path.abspath(__file__))
    print('# bench/pipeline: results\n')
    for part in ('report', 'record'):
        path = os.path.join(work, 'cmd-' + part)
        if os.path.exists(path):
            print('The %s rows: `%s`.' % (part, open(path).read().strip()))
    print('\n`bench/pipeline/run --help` says what is measured. perf: %s.\n'
          % (sys.argv[2] or 'not found (no perf rows)'))
    if rep:
        report_tables(rep)
    if rec:
        record_tables(rec)
    for extra in ('NOTES.md', 'PROFILE.md'):
        path = os.path.join(here, extra)
        if os.path.exists(path):
            print(open(path).read())


if __name__ == '__main__':
    main()
