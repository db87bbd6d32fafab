#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write bench/RESULTS.md from the timings bench/symbolize/run collected.

usage: report.py OUTDIR N SUBSET "MIXES" FILE...
"""
import os
import platform
import subprocess
import sys
import time


def first_line(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True)
        return (out.stdout or out.stderr).splitlines()[0].strip()
    except (OSError, IndexError):
        return 'n/a'


def cpu_model():
    for line in open('/proc/cpuinfo'):
        if line.startswith('model name'):
            return line.split(':', 1)[1].strip()
    return platform.machine()


def has_dwarf(path):
    out = subprocess.run(['readelf', '-SW', path], capture_output=True,
                         text=True).stdout
    if '.debug_info' in out:
        return 'in file'
    note = subprocess.run(['readelf', '-n', path], capture_output=True,
                          text=True).stdout
    for line in note.splitlines():
        if 'Build ID:' in line:
            bid = line.split()[-1]
            if os.path.exists(f'/usr/lib/debug/.build-id/{bid[:2]}/{bid[2:]}.debug'):
                return 'build-id debug file'
    if ' .symtab ' in out:
        return 'no (.symtab and .dynsym)'
    return 'no (.dynsym only)'


# (row name, label, frames key, reference row for the ratio)
ROWS = [
    ('ours-names', 'ustack-symbolize (names)', 'n', 'llvm-no-inlines'),
    ('ours-lines', 'ustack-symbolize --lines', 'n', 'llvm-no-inlines'),
    ('ours-inlines', 'ustack-symbolize --lines --inlines', 'n', 'llvm-inlines'),
    ('llvm-no-inlines', 'llvm-symbolizer --no-inlines', 'n', None),
    ('llvm-inlines', 'llvm-symbolizer --inlines', 'n', None),
    ('addr2line-f', 'addr2line -f (binutils)', 'n', 'llvm-no-inlines'),
    ('addr2line-fi', 'addr2line -f -i (binutils)', 'n', 'llvm-inlines'),
    ('ours-names-nodwarf', 'ustack-symbolize (names), NODWARF', 'd',
     'llvm-no-inlines-nodwarf'),
    ('llvm-no-inlines-nodwarf', 'llvm-symbolizer --no-inlines, NODWARF', 'd', None),
    ('ours-inlines-sub', 'ustack-symbolize --lines --inlines (subset)', 's', None),
    ('eu-addr2line-f', 'eu-addr2line -f (subset)', 's', None),
    ('eu-addr2line-fi', 'eu-addr2line -f -i (subset)', 's', None),
]


def read_times(path):
    """name -> (cpu seconds, peak RSS KB, wall seconds)"""
    t = {}
    for line in open(path):
        name, wall, cpu, rss = line.split()
        t[name] = (max(float(cpu), 0.01), int(rss), float(wall))
    return t


def main():
    outdir, n, subset, mixes, files = (sys.argv[1], int(sys.argv[2]),
                                       int(sys.argv[3]), sys.argv[4].split(),
                                       sys.argv[5:])
    p = print
    p('# Symbolizer benchmark (bench/symbolize/run)\n')
    p(f'Generated {time.strftime("%Y-%m-%d %H:%M")} by `bench/symbolize/run`; '
      'do not edit by hand.\n')
    p(f'* Machine: {cpu_model()}, {os.cpu_count()} CPUs, Linux {platform.release()}')
    p(f'* Tools: {first_line(["llvm-symbolizer", "--version"])}; '
      f'{first_line(["addr2line", "--version"])}; '
      f'{first_line(["eu-addr2line", "--version"])}')
    p(f'* Frames per mix: {n:,} (eu-addr2line: the first {subset:,} only, '
      'it is too slow for all; our own run on the same subset is shown beside it)')
    p('* Times include process start and loading every file. The run with the '
      'least CPU time (user + sys) of several is kept; frames/s and ratios use '
      'CPU time, because this machine is shared (other builds run beside the '
      'benchmark) and wall time mostly measures them; wall time is shown too. '
      'Every tool is single-threaded. Peak RSS from GNU time. Frames are (file, file offset) for us and '
      'the matching virtual address for the others (PT_LOAD rule), all '
      'looked up as leaf addresses, all demangling.')
    p('* llvm-symbolizer has no symbol-table-only mode: its `--no-inlines` run '
      '(names + lines from DWARF where present) is the reference for both our '
      'names and our lines modes.\n')
    p('Files (frames spread over executable PT_LOADs, weighted by size):\n')
    p('| file | DWARF |')
    p('|---|---|')
    kinds = {f: has_dwarf(f) for f in files}
    for f in files:
        p(f'| `{f}` | {kinds[f]} |')
    p()
    # The files of the rows without DWARF: .dynsym alone when none of
    # them has a .symtab (the stripped files of a distribution).
    nodwarf_kinds = {k for k in kinds.values() if k.startswith('no ')}
    nodwarf_label = ('dynsym-only files'
                     if nodwarf_kinds == {'no (.dynsym only)'}
                     else 'files without DWARF')
    checks = []
    for mix in mixes:
        tpath = os.path.join(outdir, f'{mix}.times')
        if os.path.exists(os.path.join(outdir, f'{mix}.skipped')) or \
           not os.path.exists(tpath):
            p(f'## Mix `{mix}`: skipped (no perf recording possible here)\n')
            continue
        t = read_times(tpath)
        nodwarf = 0
        npath = os.path.join(outdir, f'{mix}.nodwarf')
        if os.path.exists(npath):
            nodwarf = int(open(npath).read().strip() or 0)
        p(f'## Mix `{mix}`\n')
        gen = os.path.join(outdir, f'{mix}.gen')
        if os.path.exists(gen) and open(gen).read().strip():
            p(f'{open(gen).read().strip()}\n')
        p('| tool / mode | frames | CPU (s) | wall (s) | frames/s (CPU) | peak RSS (MB) | speed vs llvm-symbolizer |')
        p('|---|---:|---:|---:|---:|---:|---:|')
        for key, label, fk, ref in ROWS:
            if key not in t:
                continue
            frames = {'n': n, 's': subset, 'd': nodwarf}[fk]
            if not frames:
                continue
            cpu, rss, wall = t[key]
            rate = frames / cpu
            ratio = ''
            if ref and ref in t:
                ratio = f'{t[ref][0] / cpu:.1f}x'
            label = label.replace('NODWARF', nodwarf_label)
            p(f'| {label} | {frames:,} | {cpu:.2f} | {wall:.2f} | {rate:,.0f} | {rss / 1024:.1f} | {ratio} |')
        p()
        dw = {}
        for m in ('names', 'lines'):
            fp = os.path.join(outdir, f'{mix}.dwarf-{m}')
            if os.path.exists(fp):
                dw[m] = int(open(fp).read().strip() or 0)
        if dw:
            p(f'libdw `dwarf_*` functions bound at run time (LD_DEBUG=bindings): '
              f'names mode {dw.get("names")}, lines mode {dw.get("lines")}.\n')
        def r(k):
            return n / t[k][0] if k in t and t[k][0] > 0 else 0
        if 'ours-names' in t and 'llvm-no-inlines' in t:
            x = t['llvm-no-inlines'][0] / t['ours-names'][0]
            checks.append((f'{mix}: names >= 10x llvm-symbolizer', x >= 10, f'{x:.1f}x'))
        if mix == 'zipf' and 'ours-lines' in t:
            checks.append(('zipf: names+lines >= 1M frames/s', r('ours-lines') >= 1e6,
                           f'{r("ours-lines"):,.0f}/s'))
        if 'ours-inlines' in t and 'llvm-inlines' in t:
            fast = t['ours-inlines'][0] < t['llvm-inlines'][0]
            small = t['ours-inlines'][1] < t['llvm-inlines'][1]
            checks.append((f'{mix}: inlines faster than llvm-symbolizer, less memory',
                           fast and small,
                           f'{t["llvm-inlines"][0] / t["ours-inlines"][0]:.1f}x, '
                           f'{t["ours-inlines"][1] / 1024:.0f} vs {t["llvm-inlines"][1] / 1024:.0f} MB'))
        if 'names' in dw:
            checks.append((f'{mix}: names mode reads no DWARF', dw['names'] == 0,
                           f'{dw["names"]} dwarf_* calls'))
    p('## Notes\n')
    p('* The `real` mix is a `perf record -g` (cpu-clock, 999 Hz, 15 s) of '
      'a workload that bench/symbolize/run starts (python3.11, xz, openssl '
      'and the C++ test program) and of nothing else, so the mix does not '
      'depend on what else runs on the machine. Its user frames are '
      'replayed in order up to the frame count.')
    p('* eu-addr2line is run on a subset because it is slow with `-f` (its '
      'symbol lookup scans the symbol table per address); `ours-inlines-sub` '
      'is our run on the same subset.')
    p(f'* "{nodwarf_label}": the frames of the files above that have '
      'no DWARF (in the file or a build-id debug file), names alone, ours '
      'against llvm-symbolizer on exactly those frames. llvm-symbolizer '
      'reads no DWARF for them either, so the ratio there is smaller than '
      'over all files.')
    p('* Agreement of our names and inline chains with llvm-symbolizer, '
      'addr2line and eu-addr2line is measured by bench/symbolize/agree.py '
      'and checked by tests/bats/resolve.bats and resolve-ref.bats, not '
      'here.\n')
    p('## Targets\n')
    p('| target | met | measured |')
    p('|---|---|---|')
    for name, ok, val in checks:
        p(f'| {name} | {"yes" if ok else "**no**"} | {val} |')


if __name__ == '__main__':
    main()
