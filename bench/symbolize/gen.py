#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Generate symbolizer benchmark inputs (fixed seed, reproducible).

usage: gen.py OUTDIR MIX N FILE... [--perf PERF_SCRIPT_TXT]

MIX is one of:
  uniform  offsets uniform over each file's executable PT_LOAD, files
           weighted by the size of that segment
  zipf     a pool of 50,000 offsets drawn as for uniform, sampled by Zipf
           (s = 1.1): most lookups repeat, like real traces
  real     user frames of a perf recording (`perf script -F ip,dso`
           output given with --perf), repeated in order up to N

Writes into OUTDIR:
  ours.txt         "PATH 0xOFFSET" per frame (ustack-symbolize input)
  llvm.txt         "CODE PATH 0xVADDR" per frame (llvm-symbolizer input)
  addrs/<i>.addrs  "0xVADDR" per frame of file i, path in addrs/<i>.path
                   (addr2line / eu-addr2line input, one process per file)
  sub/...          the same for the first 20,000 frames (eu-addr2line)
The offset -> vaddr conversion uses the PT_LOAD rule, so every tool is
asked the same question.
"""
import bisect
import os
import random
import subprocess
import sys

SEED = 20261129
POOL = 50000
SUBSET = 20000


def exec_loads(path):
    """[(p_offset, p_vaddr, p_filesz)] of the executable PT_LOADs."""
    out = subprocess.run(['readelf', '-lW', path], capture_output=True,
                         text=True).stdout
    loads = []
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == 'LOAD' and 'E' in f[6:-1]:
            loads.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))
    return loads


def vaddr_of(loads, off):
    for o, v, s in loads:
        if o <= off < o + s:
            return off - o + v
    return None


def uniform_gen(rng, files, loads):
    weights = [sum(s for _, _, s in loads[f]) for f in files]
    cum = []
    t = 0
    for w in weights:
        t += w
        cum.append(t)

    def one():
        i = bisect.bisect_right(cum, rng.randrange(t))
        o, v, s = rng.choice(loads[files[i]])
        return files[i], o + rng.randrange(s)
    return one


def frames_uniform(rng, files, loads, n):
    one = uniform_gen(rng, files, loads)
    return [one() for _ in range(n)]


def frames_zipf(rng, files, loads, n):
    one = uniform_gen(rng, files, loads)
    pool = [one() for _ in range(POOL)]
    cum, t = [], 0.0
    for k in range(1, POOL + 1):
        t += 1.0 / k ** 1.1
        cum.append(t)
    return rng.choices(pool, cum_weights=cum, k=n)


def frames_real(perf_txt, loads, n):
    """User frames from `perf script -F ip,dso`: "ADDR (PATH)" lines.

    perf prints user callchain addresses as map-relative addresses,
    ip - map start + pgoff: file offsets (checked on the ET_EXEC
    python3.11, whose offsets and vaddrs differ by 0x400000).
    """
    got = []
    for line in open(perf_txt):
        f = line.split()
        if len(f) != 2 or not f[1].startswith('(/'):
            continue
        path = f[1][1:-1]
        if path not in loads:
            loads[path] = exec_loads(path) if os.path.exists(path) else []
        if not loads[path]:
            continue
        off = int(f[0], 16)
        if vaddr_of(loads[path], off) is not None:
            got.append((path, off))
    if not got:
        sys.exit('no usable user frames in ' + perf_txt)
    uniq = len(set(got))
    print(f'real: {len(got)} user frames, {uniq} unique, repeated to {n}',
          file=sys.stderr)
    return [got[i % len(got)] for i in range(n)]


def write(outdir, frames, loads):
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, 'ours.txt'), 'w') as o, \
         open(os.path.join(outdir, 'llvm.txt'), 'w') as l:
        for path, off in frames:
            o.write(f'{path} 0x{off:x}\n')
            l.write(f'CODE {path} 0x{vaddr_of(loads[path], off):x}\n')
    for sub, fr in (('addrs', frames), ('sub', frames[:SUBSET])):
        d = os.path.join(outdir, sub)
        os.makedirs(d, exist_ok=True)
        per = {}
        for path, off in fr:
            per.setdefault(path, []).append(vaddr_of(loads[path], off))
        for i, (path, vas) in enumerate(sorted(per.items())):
            with open(os.path.join(d, f'{i}.path'), 'w') as f:
                f.write(path + '\n')
            with open(os.path.join(d, f'{i}.addrs'), 'w') as f:
                f.writelines(f'0x{v:x}\n' for v in vas)
        if sub == 'sub':
            with open(os.path.join(outdir, 'sub.ours.txt'), 'w') as o:
                o.writelines(f'{p} 0x{x:x}\n' for p, x in fr)


def main():
    args = sys.argv[1:]
    perf = None
    if '--perf' in args:
        i = args.index('--perf')
        perf = args[i + 1]
        del args[i:i + 2]
    outdir, mix, n, files = args[0], args[1], int(args[2]), args[3:]
    rng = random.Random(SEED)
    loads = {f: exec_loads(f) for f in files}
    files = [f for f in files if loads[f]]
    if mix == 'uniform':
        frames = frames_uniform(rng, files, loads, n)
    elif mix == 'zipf':
        frames = frames_zipf(rng, files, loads, n)
    elif mix == 'real':
        frames = frames_real(perf, loads, n)
    else:
        sys.exit('unknown mix ' + mix)
    write(outdir, frames, loads)


if __name__ == '__main__':
    main()
