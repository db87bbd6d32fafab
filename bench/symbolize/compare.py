#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare ustack-symbolize --inlines output with llvm-symbolizer's.

usage: compare.py OURS LLVM [NM_FILE...]

OURS: output of `ustack-symbolize --inlines --demangle` (one group of
frames per input frame, inlined frames marked " [inlined]", the group
ends with the unmarked frame). LLVM: output of llvm-symbolizer --inlines
--demangle on the same addresses (function line, location line, blank
line between addresses). NM_FILE: files whose symbols (nm -C) name
aliases: two outermost names at the same address count as equal.

Names are normalized: GCC clone suffixes (.cold, .isra.N, .constprop.N,
.part.N, " [clone ...]") are dropped. Prints the agreement and exits 1
when it is below --min (default 99).
"""
import re
import subprocess
import sys

CLONE = re.compile(r'( \[clone [^\]]*\])+$')
SUFFIX = re.compile(r'(\.(cold|isra|constprop|part|lto_priv|llvm|localalias)(\.\d+)*)+$')
LLVM_CLONE = re.compile(r'( \((\.(cold|isra|constprop|part|lto_priv|llvm|localalias)(\.\d+)*)+\))+$')
GNU_LAMBDA = re.compile(r'\{lambda\(([^{}]*)\)#\d+\}')
LLVM_LAMBDA = re.compile(r"'lambda\d*'\(")
UNNAMED = re.compile(r"\{unnamed type#\d+\}|'unnamed\d*'")
DTOR = re.compile(r'::~[A-Za-z_]\w*\(')
MANGLED = {}


def demangle_all(names):
    todo = sorted({n for n in names if n and n.startswith('_Z') and n not in MANGLED})
    if not todo:
        return
    out = subprocess.run(['c++filt'], input='\n'.join(todo) + '\n',
                         capture_output=True, text=True).stdout.splitlines()
    MANGLED.update(zip(todo, out))


def eq(a, b):
    """Normalized names A and B are the same function. One may carry a
    return type in front that the other lacks: LLVM writes it for the
    template function around a local name (a lambda), GNU does not."""
    if a == b:
        return True
    if a is None or b is None:
        return False
    long, short = (a, b) if len(a) > len(b) else (b, a)
    return long.endswith(short) and long[-len(short) - 1] not in ':'


def norm(name):
    if name in ('??', '[unknown]', None):
        return None
    name = MANGLED.get(name, name)
    name = CLONE.sub('', name)
    name = LLVM_CLONE.sub('', name)
    name = SUFFIX.sub('', name)
    # Equivalent spellings of the GNU and LLVM demanglers: closures,
    # unnamed types, nullptr_t, and LLVM 14 dropping the name of a
    # destructor of a class with an ABI tag.
    name = GNU_LAMBDA.sub(r'lambda(\1)', name)
    name = LLVM_LAMBDA.sub(r'lambda(', name)
    name = UNNAMED.sub('unnamed', name)
    name = name.replace('decltype(nullptr)', 'std::nullptr_t')
    name = DTOR.sub('::~(', name)
    # Demanglers differ in spacing ("operator< <" vs "operator<<").
    return re.sub(r'\s+', '', name)


def ours_groups(path):
    with open(path) as f:
        return ours_groups_text(f.read())


def ours_groups_text(text):
    groups, cur = [], []
    for line in text.splitlines():
        inl = line.endswith(' [inlined]')
        if inl:
            line = line[:-len(' [inlined]')]
        m = re.match(r'^(.*?)(\+0x[0-9a-f]+)? \([^ ]*\)( \S+:\d+)?$', line)
        name = m.group(1) if m else line
        cur.append(None if name == '[unknown]' else name)
        if not inl:
            groups.append(cur)
            cur = []
    return groups


def llvm_groups(path):
    with open(path) as f:
        return llvm_groups_text(f.read())


def llvm_groups_text(text):
    groups, cur = [], []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i] == '':
            if cur:
                groups.append(cur)
            cur = []
            i += 1
            continue
        cur.append(None if lines[i] == '??' else lines[i])
        i += 2
    if cur:
        groups.append(cur)
    return groups


def aliases(files):
    by_name = {}
    for f in files:
        try:
            out = subprocess.run(['nm', '-C', '--defined-only', f],
                                 capture_output=True, text=True).stdout
        except OSError:
            continue
        for line in out.splitlines():
            parts = line.split(' ', 2)
            if len(parts) == 3:
                name = parts[2].split('@')[0]
                by_name.setdefault(norm(name), set()).add(parts[0])
    return by_name


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--min=')]
    minimum = 99.0
    for a in sys.argv[1:]:
        if a.startswith('--min='):
            minimum = float(a[6:])
    ours, llvm = ours_groups(args[0]), llvm_groups(args[1])
    demangle_all([n for g in ours + llvm for n in g])
    ours = [[norm(n) for n in g] for g in ours]
    llvm = [[norm(n) for n in g] for g in llvm]
    alias = aliases(args[2:])
    if len(ours) != len(llvm):
        print(f'group count differs: ours {len(ours)} llvm {len(llvm)}')
        return 1
    agree, bad = 0, []
    depth = {}
    for a, b in zip(ours, llvm):
        depth[len(b)] = depth.get(len(b), 0) + 1
        same = len(a) == len(b) and all(eq(x, y) for x, y in zip(a[:-1], b[:-1]))
        if same and not eq(a[-1], b[-1]):
            sa, sb = alias.get(a[-1], set()), alias.get(b[-1], set())
            same = bool(sa & sb)
        if same:
            agree += 1
        elif len(bad) < 10:
            bad.append((a, b))
    pct = 100.0 * agree / max(len(ours), 1)
    print(f'agree {agree}/{len(ours)} = {pct:.2f}%  chain lengths {dict(sorted(depth.items()))}')
    for a, b in bad:
        print(f'  ours {a}\n  llvm {b}')
    return 0 if pct >= minimum else 1


if __name__ == '__main__':
    sys.exit(main())
