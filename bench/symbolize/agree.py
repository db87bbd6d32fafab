#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Agreement of ustack-symbolize with llvm-symbolizer, addr2line, eu-addr2line.

usage: agree.py [--n=20000] [--sym=PATH] [--refs=A,B] [--show=K] FILE...

For every FILE: N random addresses (fixed seed) in its executable PT_LOADs,
each looked up as a leaf with inline frames and demangling by all four
tools. A frame agrees with a reference when the whole chain of names
(inlined frames, then the function) is the same after normalizing:
demangled, GCC clone suffixes dropped, blanks ignored, and the outermost
names equal when both are symbols at one address (aliases). An unresolved
frame agrees only with an unresolved one.

Addresses in PLT stubs (.plt, .plt.sec, .plt.got) are left out of those
percentages (the references name the symbol before the stubs) and
compared with objdump's synthetic "f@plt" names instead.

Prints per file and reference the agreement in percent, and with --show
the first K disagreements.
"""
import collections
import concurrent.futures
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import compare  # noqa: E402  (norm, demangle_all)
import gen      # noqa: E402  (exec_loads)

SEED = 20261130
JOBS = int(os.environ.get('JOBS', '2'))


def run(cmd, inp):
    return subprocess.run(cmd, input=inp, capture_output=True, text=True,
                          errors='replace').stdout


def groups_addr2line(text):
    """addr2line/eu-addr2line -a -f -i: address, then name/location pairs."""
    groups, cur = [], None
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if re.match(r'^0x[0-9a-f]+$', lines[i]):
            if cur is not None:
                groups.append(cur)
            cur = []
            i += 1
            continue
        # eu-addr2line appends " inlined at FILE:LINE in CALLER" to names.
        name = re.sub(r' inlined at \S+ in .*$', '', lines[i])
        cur.append(None if name == '??' else name)
        i += 2
    if cur is not None:
        groups.append(cur)
    return groups


def debug_file(path):
    """The build-id debug file of PATH, or None."""
    out = run(['readelf', '-n', path], '')
    m = re.search(r'Build ID: ([0-9a-f]+)', out)
    if not m:
        return None
    d = f'/usr/lib/debug/.build-id/{m.group(1)[:2]}/{m.group(1)[2:]}.debug'
    return d if os.path.exists(d) else None


def aliases(path):
    """Names (normalized) to the addresses of their symbols."""
    by = {}
    dbg = debug_file(path)
    for args in [[path], ['-D', path]] + ([[dbg]] if dbg else []):
        out = run(['nm', '-C', '--defined-only'] + args, '')
        for line in out.splitlines():
            p = line.split(' ', 2)
            if len(p) == 3:
                by.setdefault(compare.norm(p[2].split('@')[0]), set()).add(p[0])
    return by


def same(a, b, alias):
    if len(a) != len(b) or not all(compare.eq(x, y) for x, y in zip(a[:-1], b[:-1])):
        return False
    if compare.eq(a[-1], b[-1]):
        return True
    if a[-1] is None or b[-1] is None:
        return False
    return bool(alias.get(a[-1], set()) & alias.get(b[-1], set()))


REFS = ['llvm-symbolizer', 'addr2line', 'eu-addr2line']
TOOLS = {
    'llvm-symbolizer': lambda p: (['llvm-symbolizer', '--obj=' + p, '--inlines',
                                   '--demangle'], compare.llvm_groups_text),
    'addr2line': lambda p: (['addr2line', '-a', '-f', '-i', '-C', '-e', p],
                            groups_addr2line),
    'eu-addr2line': lambda p: (['eu-addr2line', '-a', '-f', '-i', '-C', '-e', p],
                               groups_addr2line),
}


PLT_SECS = ('.plt', '.plt.sec', '.plt.got')


def plt_sections(path):
    """[(start, end, entry size)] of the PLT sections."""
    out = run(['readelf', '-SW', path], '')
    secs = []
    for line in out.splitlines():
        m = re.match(r'\s*\[\s*\d+\]\s+(\S+)\s+PROGBITS\s+([0-9a-f]+)\s+'
                     r'[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)', line)
        if m and m.group(1) in PLT_SECS:
            start, size, ent = (int(m.group(i), 16) for i in (2, 3, 4))
            ent = ent if 8 <= ent <= 32 else (8 if m.group(1) == '.plt.got' else 16)
            secs.append((start, start + size, ent))
    return secs


def plt_labels(path):
    """Start address -> name of the stubs objdump names "f@plt"."""
    cmd = ['objdump', '-d', '-C', '--no-show-raw-insn', path]
    for sec in PLT_SECS:
        cmd += ['-j', sec]
    labels = {}
    for line in run(cmd, '').splitlines():
        m = re.match(r'^([0-9a-f]+) <(.*@plt)>:$', line)
        if m and not m.group(2).startswith('*ABS*'):
            labels[int(m.group(1), 16)] = m.group(2)
    return labels


def plt_ref(secs, labels, va):
    """objdump's name of the stub holding VA, None if unnamed; False if VA
    is not in a PLT section."""
    for start, end, ent in secs:
        if start <= va < end:
            return labels.get(va - (va - start) % ent)
    return False


def kind(ours, ref):
    """What sort of disagreement: who names the frame, chain or name."""
    if ours == [None]:
        return 'only the reference names it'
    if ref == [None]:
        return 'only we name it'
    if len(ours) != len(ref):
        return 'inline chains of other lengths'
    return 'names spelled or chosen differently'


def one_file(path, n, sym, show, refs):
    loads = gen.exec_loads(path)
    rng = random.Random(SEED)
    total = sum(s for _, _, s in loads)
    addrs = []
    for _ in range(n):
        k = rng.randrange(total)
        for o, v, s in loads:
            if k < s:
                addrs.append((o + k, v + k))
                break
            k -= s
    ours_in = ''.join(f'{path}\t0x{o:x}\n' for o, _ in addrs)
    va_in = ''.join(f'0x{v:x}\n' for _, v in addrs)
    res = {'ours': compare.ours_groups_text(
        run([sym, '--leaf', '--inlines', '--demangle', '--no-debuginfod'],
            ours_in))}
    for ref in refs:
        cmd, parse = TOOLS[ref](path)
        res[ref] = parse(run(cmd, va_in))
    compare.demangle_all([x for g in res.values() for c in g for x in c])
    for k in res:
        res[k] = [[compare.norm(x) for x in c] for c in res[k]]
    alias = aliases(path)
    # PLT stubs have no symbol: the references name the one before them.
    # They are compared with objdump's synthetic "f@plt" names instead.
    secs, labels = plt_sections(path), plt_labels(path)
    plt = {i: plt_ref(secs, labels, addrs[i][1]) for i in range(n)}
    plt = {i: r for i, r in plt.items() if r is not False}
    rest = [i for i in range(n) if i not in plt]
    out, kinds = [], collections.Counter()
    for ref in refs:
        if len(res[ref]) != n:
            out.append((ref, None, []))
            continue
        bad = [i for i in rest if not same(res['ours'][i], res[ref][i], alias)]
        for i in bad:
            kinds[(ref, kind(res['ours'][i], res[ref][i]))] += 1
        out.append((ref, 100.0 * (len(rest) - len(bad)) / max(len(rest), 1),
                    [(hex(addrs[i][1]), res['ours'][i], res[ref][i])
                     for i in bad[:show]]))
    bad = [i for i in plt if res['ours'][i] != [compare.norm(plt[i]) if plt[i] else None]]
    out.append(('plt', f'{len(plt) - len(bad)}/{len(plt)}',
                [(hex(addrs[i][1]), res['ours'][i], [plt[i]]) for i in bad[:show]]))
    return out, kinds


def main():
    n, sym, show, files = 20000, os.path.join(ROOT, 'tests/tools/ustack-symbolize'), 0, []
    refs = REFS
    for a in sys.argv[1:]:
        if a.startswith('--refs='):
            refs = a[7:].split(',')
        elif a.startswith('--n='):
            n = int(a[4:])
        elif a.startswith('--sym='):
            sym = a[6:]
        elif a.startswith('--show='):
            show = int(a[7:])
        else:
            files.append(a)
    print('| file | ' + ' | '.join(refs) + ' | PLT stubs as objdump |')
    print('|---|' + '---:|' * (len(refs) + 1))
    details = []
    with concurrent.futures.ThreadPoolExecutor(JOBS) as ex:
        results = list(ex.map(lambda f: one_file(f, n, sym, show, refs), files))
    kinds = collections.Counter()
    for f, (r, k) in zip(files, results):
        kinds.update(k)
        cells = ['n/a' if p is None else p if isinstance(p, str) else f'{p:.2f}%'
                 for _, p, _ in r]
        print(f'| `{os.path.basename(f)}` | ' + ' | '.join(cells) + ' |',
              flush=True)
        for ref, _, bad in r:
            for a, o, b in bad:
                details.append(f'{os.path.basename(f)} {a} vs {ref}:\n'
                               f'  ours {o}\n  ref  {b}')
    print('\n| reference | disagreement | frames |')
    print('|---|---|---:|')
    for (ref, k), v in sorted(kinds.items()):
        print(f'| {ref} | {k} | {v} |')
    print()
    for d in details:
        print(d)


if __name__ == '__main__':
    main()
