#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The demangling section of bench/RESULTS.md (appended after report.py's).

usage: report-demangle.py OUTDIR "DEMANGLE_MIXES"

Reads what bench/symbolize/run left in OUTDIR for each demangling mix:
MIX.times (measure lines), MIX.count (frames, named frames, distinct
names), MIX.file, and baseline/commit when a baseline build ran beside. The
distinct names were demangled ten times over (UNIQUE_REPEAT): their time
is divided by ten.
"""
import os
import sys
import time

BUILDS = (('ours', 'this build'), ('base', 'baseline'))
UNIQUE_REPEAT = 10


def read_times(path):
    """name -> (cpu seconds, peak RSS KB)"""
    t = {}
    for line in open(path):
        name, _wall, cpu, rss = line.split()
        t[name] = (max(float(cpu), 0.01), int(rss))
    return t


def read_first(path, default=''):
    try:
        return open(path).read().strip()
    except OSError:
        return default


def names_table(p, t, frames, base_label):
    p('| build | names (s CPU) | names --demangle (s CPU) | demangling (s) '
      '| frames/s --demangle | peak RSS --demangle (MB) |')
    p('|---|---:|---:|---:|---:|---:|')
    for key, label in BUILDS:
        if f'{key}-names' not in t:
            continue
        raw, names = t[f'{key}-raw'][0], t[f'{key}-names'][0]
        label = base_label if key == 'base' else label
        p(f'| {label} | {raw:.2f} | {names:.2f} | {names - raw:.2f} '
          f'| {frames / names:,.0f} | {t[f"{key}-names"][1] / 1024:.1f} |')
    p()


def demangler_table(p, t, named, unique, base_label):
    p('| build | every named frame: s CPU | names/s | each distinct name '
      'once: s CPU | names/s |')
    p('|---|---:|---:|---:|---:|')
    for key, label in BUILDS:
        if f'{key}-dem-frames' not in t:
            continue
        fr = t[f'{key}-dem-frames'][0]
        un = t[f'{key}-dem-unique'][0] / UNIQUE_REPEAT
        label = base_label if key == 'base' else label
        p(f'| {label} | {fr:.2f} | {named / fr:,.0f} | {un:.3f} '
          f'| {unique / un:,.0f} |')
    p()


def summary(p, t, mix):
    """Before/after and cache sentences, from the numbers above."""
    ours_cost = t['ours-names'][0] - t['ours-raw'][0]
    fr = t['ours-dem-frames'][0]
    un = t['ours-dem-unique'][0] / UNIQUE_REPEAT
    p(f'* Per-symbol cache: names mode demangles each symbol once. Without '
      f'it, the demangler alone would take {fr:.2f} s for every named frame '
      f'instead of {un:.2f} s for each distinct name ({fr / un:.1f}x); the '
      f'symbolizer spends {ours_cost:.2f} s on demangling here.')
    if 'base-names' in t:
        b_names, o_names = t['base-names'][0], t['ours-names'][0]
        b_un = t['base-dem-unique'][0] / UNIQUE_REPEAT
        p(f'* Against the baseline: names mode with `--demangle` takes '
          f'{o_names:.2f} s vs {b_names:.2f} s '
          f'({(o_names / b_names - 1) * 100:+.0f}%); the demangler alone, '
          f'each distinct name once, {un:.3f} s vs {b_un:.3f} s '
          f'({(un / b_un - 1) * 100:+.0f}%).')
    p()


def main():
    outdir, mixes = sys.argv[1], sys.argv[2].split()
    if not mixes:
        return
    p = print
    commit = read_first(os.path.join(outdir, 'baseline', 'commit'))
    base_label = f'baseline `{commit.split()[0]}`' if commit else 'baseline'
    p('## Demangling\n')
    p(f'Generated {time.strftime("%Y-%m-%d %H:%M")} by `bench/symbolize/run` '
      f'(`DEMANGLE_MIXES="{" ".join(mixes)}"`).\n')
    p('Names mode alone (`--leaf --no-debuginfod`, no DWARF) on frames '
      'spread uniformly over the executable segments of one binary (the '
      'most distinct symbols per frame, so the most demangling), with and '
      'without `--demangle`; then `tests/tools/ustack-demangle` alone on '
      'the mangled name of every named frame and on each distinct name '
      'once. CPU time, best of several runs, process start included. '
      'C++ and Rust names go through GNU libiberty (`cplus_demangle`\'s '
      'Rust and C++ demanglers).')
    if commit:
        p(f'The baseline is the build of `{commit}`, run beside this one.')
    p()
    for mix in mixes:
        tpath = os.path.join(outdir, f'{mix}.times')
        if os.path.exists(os.path.join(outdir, f'{mix}.skipped')) or \
           not os.path.exists(tpath):
            p(f'### Mix `{mix}`: skipped (no binary on this machine)\n')
            continue
        t = read_times(tpath)
        frames, named, unique = (int(x) for x in
                                 read_first(os.path.join(outdir, f'{mix}.count')).split())
        p(f'### Mix `{mix}`\n')
        p(f'`{read_first(os.path.join(outdir, f"{mix}.file"))}`: {frames:,} '
          f'frames, {named:,} in a mangled symbol, {unique:,} distinct '
          f'mangled names.\n')
        names_table(p, t, frames, base_label)
        demangler_table(p, t, named, unique, base_label)
        summary(p, t, mix)


if __name__ == '__main__':
    main()
