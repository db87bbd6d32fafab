#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
ktrace.py: checks of the kernel side, on the kernel's own text output.

It reads an instance's `trace` file (the kernel's formatting of the
user_unwind_cookie, user_unwind_stack and inode_cache events) and checks
one property per subcommand; it prints what is wrong and exits 1, so a
bats test fails with the reason. It uses nothing of trace-cmd ustack: a
bug in the tool cannot hide a bug in the kernel, or the other way round.

  ktrace.py cookies TRACE PID EVENT      every EVENT of PID is followed, on
                                         its CPU, by a cookie of PID, and a
                                         stack answers each cookie
  ktrace.py chain TRACE PID BINARY F1,F2,...
                                         the stacks of PID start with the
                                         functions F1 (leaf), F2, ... of
                                         BINARY (offsets checked against its
                                         symbol table), and BINARY was
                                         announced with its path and build id
  ktrace.py exact TRACE PID BINARY F1,F2,...
                                         every stack of PID is exactly F1
                                         (leaf), F2, ... of BINARY
  ktrace.py leaf-in TRACE PID SUBSTR     the leaf frame of PID's stacks is in
                                         a file whose announced path contains
                                         SUBSTR
  ktrace.py remap TRACE PID PATH_A PATH_B N
                                         PID's 2N stacks have their leaf at one
                                         offset, in PATH_A for the first N and
                                         in PATH_B for the next N; with "-" for
                                         both paths, one file id for the first
                                         N and another for the next N
  ktrace.py execve TRACE PID BINARY F1,F2,... LEAF
                                         PID's last sys_enter_execve is answered
                                         by a stack starting with F1, F2, ...
                                         of BINARY (the caller of execve);
                                         its sys_exit_execve has another
                                         cookie, answered by a stack whose
                                         leaf is in a file whose path
                                         contains LEAF (the new image)
  ktrace.py shared TRACE PID EVENT1 EVENT2
                                         in one kernel entry both events get
                                         the same cookie and one stack
  ktrace.py crosscpu TRACE PID FROM TO   a cookie of PID on CPU FROM is
                                         answered by a stack on CPU TO
  ktrace.py nokthread TRACE              no event of a kernel thread (or of
                                         the idle task) is followed by a
                                         cookie, and some user task got one
  ktrace.py truncated TRACE PID BINARY LEAF FUNC
                                         a stack of PID is TRUNCATED, holds
                                         as many frames as fit, and its
                                         frames are the leaf-most ones: LEAF
                                         then only FUNC of BINARY
  ktrace.py announced TRACE PID          number of inode_cache events of PID
  ktrace.py ids TRACE [PID]              the ids announced (for PID), one a line
  ktrace.py exits TRACE PID BINARY SYSCALL=F1,F2,... ...
                                         every syscalls event of PID (enter
                                         and exit) for each SYSCALL, and the
                                         irq_enable right after its exit on
                                         the way to user space, is answered
                                         by a stack starting with F1, F2, ...
                                         of BINARY: the chain that made that
                                         call, not the next one
  ktrace.py irq TRACE PID EVENT BINARY F1,F2,...
                                         EVENTs raised in interrupt context
                                         while PID ran in user space get its
                                         cookie, and some stack answering them
                                         starts with F1, F2, ... of BINARY
  ktrace.py deleted TRACE PID PATH       PATH was announced for PID's stack
                                         with the DELETED flag, without the
                                         " (deleted)" suffix
  ktrace.py patherr TRACE PID             PID's executable was announced with
                                         PATH_ERR and a placeholder name
  ktrace.py compat TRACE PID BINARY F1,F2,...
                                         PID's stacks carry the COMPAT flag
                                         and start with F1, F2, ... of BINARY
  ktrace.py resolvable TRACE PID         every file id in PID's stacks was
                                         announced by an inode_cache event
                                         still in the trace
  ktrace.py answered TRACE PID EVENT [BINARY F1,F2,...]
                                         every EVENT of PID gets a non-zero
                                         cookie behind it, answered by the
                                         stack of PID with that cookie, written
                                         before or after it; each such stack
                                         starts with F1, F2, ... of BINARY
  ktrace.py order TRACE PID...           for every event of the PIDs: on its
                                         CPU, the next records are its kernel
                                         stack (if any) and then its cookie;
                                         every cookie is answered, and every
                                         stack in the trace answers a cookie
  ktrace.py maxannounce TRACE PID        the most inode_cache events any one
                                         id got for PID
  ktrace.py vdso32 TRACE PID IMAGE       PID's leaf frames are in
                                         __kernel_vsyscall of IMAGE (the
                                         task's vDSO), whose id is announced
                                         as SPECIAL [vdso] with IMAGE's
                                         build id
"""
import functools
import os
import re
import subprocess
import sys

LINE = re.compile(r'^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+\S+\s+'
                  r'(?P<ts>\d+\.\d+): (?P<body>.*)$')
FRAME = re.compile(r'^ => (?P<off>[0-9a-f]+) \[(?P<id>[0-9a-f]+)\]$')
KSTACK = '<stack trace>'
COOKIE = re.compile(r'^<user unwind cookie> cookie=(?P<cookie>[0-9a-f]+)$')
STACK = re.compile(r'^<user stack unwind> cookie=(?P<cookie>[0-9a-f]+) flags=(?P<flags>[0-9a-f]+)$')
# version 4 adds the mapping: start, len, pgoff
INODE = re.compile(r'^inode_cache: id=(?P<id>[0-9a-f]+) ino=\d+'
                   r'(?: start=[0-9a-f]+ len=[0-9a-f]+ pgoff=[0-9a-f]+)? dev=\d+:\d+ tgid=(?P<tgid>\d+) '
                   r'flags=(?P<flags>[0-9a-f]+) build_id=(?P<bid>[0-9a-f]*) path=(?P<path>.*)$')


class Rec:
    """One line of the trace, with the frames of a stack event."""

    def __init__(self, m, idx):
        self.idx = idx
        self.comm = m.group('comm').strip()
        self.pid = int(m.group('pid'))
        self.cpu = int(m.group('cpu'))
        self.ts = float(m.group('ts'))
        self.body = m.group('body')
        self.kind = 'event'
        self.frames = []
        c = COOKIE.match(self.body)
        s = STACK.match(self.body)
        i = INODE.match(self.body)
        if self.body == KSTACK:
            self.kind = 'kstack'
        elif c:
            self.kind, self.cookie = 'cookie', c.group('cookie')
        elif s:
            self.kind, self.cookie = 'stack', s.group('cookie')
            self.flags = int(s.group('flags'), 16)
        elif i:
            self.kind = 'inode'
            self.id = i.group('id')
            self.tgid = int(i.group('tgid'))
            self.mflags = int(i.group('flags'), 16)
            self.build_id = i.group('bid')
            self.path = i.group('path')


def parse(path):
    recs = []
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('#'):
                continue
            fm = FRAME.match(line)
            if fm and recs and recs[-1].kind == 'stack':
                recs[-1].frames.append((int(fm.group('off'), 16), fm.group('id')))
                continue
            m = LINE.match(line)
            if m:
                recs.append(Rec(m, len(recs)))
    return recs


def fail(msg):
    print('ktrace: ' + msg)
    sys.exit(1)


def cookie_after(recs, rec):
    """The cookie written right behind rec on its CPU, if any. An event of
    the task nested in between (irq_enable fires inside the request of
    rec's cookie) comes with its own cookie first, as the tool pairs them:
    the innermost event takes the first cookie."""
    nested = 0
    for r in recs[rec.idx + 1:]:
        if r.cpu != rec.cpu:
            continue
        if r.pid != rec.pid:
            return None
        if r.kind == 'event':
            nested += 1
        elif r.kind == 'cookie' and nested:
            nested -= 1
        else:
            return r if r.kind == 'cookie' else None
    return None


def stack_for(recs, pid, cookie, after):
    for r in recs[after + 1:]:
        if r.kind == 'stack' and r.pid == pid and r.cookie == cookie:
            return r
    return None


def mappings(recs):
    """id -> list of inode_cache records, in trace order."""
    m = {}
    for r in recs:
        if r.kind == 'inode':
            m.setdefault(r.id, []).append(r)
    return m


def binding(recs, maps, stack, fid):
    """kernel-abi.md rule 3: latest announcement not after the stack."""
    cands = maps.get(fid, [])
    before = [r for r in cands if r.idx < stack.idx]
    if before:
        return before[-1]
    return cands[0] if cands else None


@functools.lru_cache(maxsize=None)
def elf_functions(binary):
    """[(start, end, name)] of the binary's functions, in vaddr space."""
    out = subprocess.run(['nm', '-S', '--defined-only', binary],
                         capture_output=True, text=True, check=True).stdout
    funcs = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in 'tTwW':
            start, size = int(parts[0], 16), int(parts[1], 16)
            funcs.append((start, start + size, parts[3]))
    return funcs


@functools.lru_cache(maxsize=None)
def elf_loads(binary):
    """[(offset, filesz, vaddr)] of the PT_LOAD headers."""
    out = subprocess.run(['readelf', '-lW', binary],
                         capture_output=True, text=True, check=True).stdout
    loads = []
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0] == 'LOAD':
            loads.append((int(parts[1], 16), int(parts[4], 16), int(parts[2], 16)))
    return loads


def elf_build_id(binary):
    out = subprocess.run(['readelf', '-n', binary],
                         capture_output=True, text=True, check=True).stdout
    m = re.search(r'Build ID: ([0-9a-f]+)', out)
    return m.group(1) if m else ''


def function_at(binary, off):
    for poff, filesz, vaddr in elf_loads(binary):
        if poff <= off < poff + filesz:
            addr = off - poff + vaddr
            for start, end, name in elf_functions(binary):
                if start <= addr < end:
                    return name
            return None
    return None


def pid_stacks(recs, pid):
    stacks = [r for r in recs if r.kind == 'stack' and r.pid == pid]
    if not stacks:
        fail('no user_unwind_stack event of pid %d' % pid)
    return stacks


def cmd_cookies(recs, pid, event):
    events = [r for r in recs if r.kind == 'event' and r.pid == pid and event in r.body]
    if not events:
        fail('no %s event of pid %d' % (event, pid))
    for e in events:
        c = cookie_after(recs, e)
        if not c:
            fail('%s of pid %d at %.6f has no cookie behind it on CPU %d' %
                 (event, pid, e.ts, e.cpu))
        if c.cookie == '0':
            fail('cookie 0 (request failed) for pid %d at %.6f' % (pid, e.ts))
        if not stack_for(recs, pid, c.cookie, c.idx):
            fail('cookie %s of pid %d is answered by no stack' % (c.cookie, pid))
    print('%d events, each with a cookie answered by a stack' % len(events))


def frame_function(recs, maps, stack, i, binary, bpath):
    off, fid = stack.frames[i]
    m = binding(recs, maps, stack, fid)
    if not m:
        fail('frame %d id %s was never announced by inode_cache' % (i, fid))
    if m.path != bpath:
        return None, m.path
    # Return addresses point after the call: look up the call itself
    return function_at(binary, off if i == 0 else off - 1), m.path


def cmd_chain(recs, pid, binary, funcs):
    maps = mappings(recs)
    bpath = os.path.realpath(binary)
    want_bid = elf_build_id(binary)
    announced = [m for l in maps.values() for m in l if m.path == bpath]
    if not announced:
        fail('%s was never announced by inode_cache' % bpath)
    for m in announced:
        if m.build_id != want_bid:
            fail('build id of %s announced as %s, readelf -n says %s' %
                 (bpath, m.build_id, want_bid))
    for stack in pid_stacks(recs, pid):
        if len(stack.frames) < len(funcs):
            fail('stack of pid %d has %d frames, expected at least %d' %
                 (pid, len(stack.frames), len(funcs)))
        for i, want in enumerate(funcs):
            got, path = frame_function(recs, maps, stack, i, binary, bpath)
            if got != want:
                fail('frame %d of pid %d: expected %s in %s, got %s in %s' %
                     (i, pid, want, bpath, got, path))
    print('stacks of pid %d: %s' % (pid, ' <- '.join(funcs)))


def cmd_exact(recs, pid, binary, funcs):
    """Every stack of @pid is @funcs, frame for frame, and nothing more."""
    maps = mappings(recs)
    bpath = os.path.realpath(binary)
    stacks = pid_stacks(recs, pid)
    if not stacks:
        fail('no stack for pid %d' % pid)
    for stack in stacks:
        got = [frame_function(recs, maps, stack, i, binary, bpath)[0]
               for i in range(len(stack.frames))]
        if got != funcs:
            fail('stack of pid %d is %s, expected exactly %s' %
                 (pid, ' <- '.join(map(str, got)), ' <- '.join(funcs)))
    print('%d stack(s) of pid %d: exactly %s' % (len(stacks), pid, ' <- '.join(funcs)))


def cmd_leaf_in(recs, pid, substr):
    maps = mappings(recs)
    for stack in pid_stacks(recs, pid):
        if not stack.frames:
            fail('empty stack for pid %d' % pid)
        m = binding(recs, maps, stack, stack.frames[0][1])
        if not m or substr not in m.path:
            fail('leaf frame of pid %d is in %s, not in %s' %
                 (pid, m.path if m else 'an unannounced file', substr))
    print('leaf frames of pid %d are in %s' % (pid, substr))


def cmd_remap(recs, pid, path_a, path_b, n):
    maps = mappings(recs)
    leaves = []
    for stack in pid_stacks(recs, pid):
        if not stack.frames:
            fail('empty stack for pid %d' % pid)
        off, fid = stack.frames[0]
        if path_a == '-':
            leaves.append((fid, off))
            continue
        m = binding(recs, maps, stack, fid)
        path = m.path if m else 'an unannounced file'
        if path in (path_a, path_b):
            leaves.append((path, off))
    if path_a == '-' and len(leaves) == 2 * n:
        # the two files by the ids the kernel gave them
        path_a, path_b = leaves[0][0], leaves[-1][0]
        if path_a == path_b:
            fail('both phases of pid %d have leaf id %s' % (pid, path_a))
    want = [path_a] * n + [path_b] * n
    got = [p for p, _ in leaves]
    if got != want:
        fail('leaf files of pid %d, in order: %s; expected %d in %s then %d in %s' %
             (pid, ', '.join('%s x%d' % (p, got.count(p)) for p in dict.fromkeys(got)),
              n, path_a, n, path_b))
    offs = {o for _, o in leaves}
    if len(offs) != 1:
        fail('leaf offsets of pid %d differ: %s' % (pid, sorted(hex(o) for o in offs)))
    print('%d stacks of pid %d in %s then %d in %s, at offset %#x' %
          (n, pid, path_a, n, path_b, offs.pop()))


def cmd_shared(recs, pid, ev1, ev2):
    firsts = [r for r in recs if r.kind == 'event' and r.pid == pid and ev1 in r.body]
    if not firsts:
        fail('no %s event of pid %d' % (ev1, pid))
    for e1 in firsts:
        c1 = cookie_after(recs, e1)
        e2 = next((r for r in recs[e1.idx + 1:]
                   if r.kind == 'event' and r.pid == pid), None)
        if not c1 or not e2 or ev2 not in e2.body:
            fail('%s of pid %d is not followed by its cookie and %s' % (ev1, pid, ev2))
        c2 = cookie_after(recs, e2)
        if not c2 or c2.cookie != c1.cookie:
            fail('%s and %s of one entry have cookies %s and %s' %
                 (ev1, ev2, c1.cookie, c2.cookie if c2 else 'none'))
        n = len([r for r in recs if r.kind == 'stack' and r.pid == pid and
                 r.cookie == c1.cookie])
        if n != 1:
            fail('cookie %s has %d stacks, expected 1' % (c1.cookie, n))
    print('%d kernel entries: two events, one cookie, one stack' % len(firsts))


def cmd_crosscpu(recs, pid, cfrom, cto):
    for c in recs:
        if c.kind == 'cookie' and c.pid == pid and c.cpu == cfrom:
            s = stack_for(recs, pid, c.cookie, c.idx)
            if s and s.cpu == cto:
                print('cookie %s on CPU %d, its stack on CPU %d' % (c.cookie, cfrom, cto))
                return
    fail('no cookie of pid %d on CPU %d answered by a stack on CPU %d' % (pid, cfrom, cto))


def kthread_pids():
    pids = {0}
    for d in os.listdir('/proc'):
        if not d.isdigit():
            continue
        try:
            with open('/proc/%s/status' % d) as f:
                st = f.read()
        except OSError:
            continue
        if re.search(r'^Kthread:\s+1', st, re.M) or re.search(r'^PPid:\s+2$', st, re.M) \
           or d == '2':
            pids.add(int(d))
    return pids


def cmd_nokthread(recs):
    kpids = kthread_pids()
    seen_k = seen_u = 0
    for r in recs:
        if r.kind != 'event':
            continue
        c = cookie_after(recs, r)
        if r.pid in kpids or r.comm.startswith('kworker'):
            seen_k += 1
            if c:
                fail('kernel thread %s-%d got cookie %s' % (r.comm, r.pid, c.cookie))
        elif c:
            seen_u += 1
    if not seen_k:
        fail('no event of a kernel thread was traced')
    if not seen_u:
        fail('no user task got a cookie (the test would prove nothing)')
    print('%d kernel thread events without cookie, %d user events with' % (seen_k, seen_u))


def cmd_truncated(recs, pid, binary, leaf, func):
    maps = mappings(recs)
    bpath = os.path.realpath(binary)
    stacks = [s for s in pid_stacks(recs, pid) if s.flags & 1]
    if not stacks:
        fail('no TRUNCATED stack for pid %d' % pid)
    for s in stacks:
        # 4 KiB sub-buffers hold about 250 frames of 16 bytes
        if len(s.frames) < 200:
            fail('TRUNCATED stack has only %d frames' % len(s.frames))
        for i in range(len(s.frames)):
            want = leaf if i == 0 else func
            got, path = frame_function(recs, maps, s, i, binary, bpath)
            if got != want:
                fail('frame %d of the TRUNCATED stack is %s in %s, not %s: '
                     'the outer frames were kept' % (i, got, path, want))
    print('TRUNCATED stack with %d leaf-most frames, all in %s' % (len(stacks[0].frames), func))


def cmd_resolvable(recs, pid):
    maps = mappings(recs)
    for stack in pid_stacks(recs, pid):
        for i, (off, fid) in enumerate(stack.frames):
            if int(fid, 16) >= 2 and not binding(recs, maps, stack, fid):
                fail('frame %d of pid %d: id %s is not announced in the trace' % (i, pid, fid))
    print('every file id of pid %d is announced' % pid)


def stack_starts_with(recs, maps, stack, binary, funcs):
    bpath = os.path.realpath(binary)
    if len(stack.frames) < len(funcs):
        return False
    for i, want in enumerate(funcs):
        got, _ = frame_function(recs, maps, stack, i, binary, bpath)
        if got != want:
            return False
    return True


def cmd_irq(recs, pid, event, binary, funcs):
    maps = mappings(recs)
    events = [r for r in recs if r.kind == 'event' and r.pid == pid and event in r.body]
    if not events:
        fail('no %s event of pid %d' % (event, pid))
    good = 0
    # After its last return to user space the task is exiting: no cookie
    last = max(r.idx for r in pid_stacks(recs, pid))
    for e in events:
        if e.idx > last:
            continue
        c = cookie_after(recs, e)
        if not c:
            after = [r for r in recs[e.idx + 1:] if r.cpu == e.cpu][:3]
            fail('%s of pid %d at %.6f (interrupt context) got no cookie; next on CPU %d: %s' %
                 (event, pid, e.ts, e.cpu, ' | '.join('%s-%d %s' % (r.comm, r.pid, r.body[:50])
                                                   for r in after)))
        s = stack_for(recs, pid, c.cookie, c.idx)
        if s and stack_starts_with(recs, maps, s, binary, funcs):
            good += 1
    if not good:
        fail('no stack answering an interrupt-context %s starts with %s' % (event, funcs[0]))
    print('%d of %d interrupt-context events: stack of the interrupted task' % (good, len(events)))


def irq_caller(r):
    """(function, offset) of an irq_enable record's caller, or None."""
    m = re.search(r'caller=([\w.]+)\+0x([0-9a-f]+)', r.body)
    return (m.group(1), int(m.group(2), 16)) if m else None


def way_out(irqs):
    """Of [(caller, record)], the irq_enable of exit_to_user_mode(): the
    next entry's own is the last irq_enable that an irq_enable of the same
    function at a larger offset came before; of those, the first at the
    largest offset."""
    for m in range(len(irqs) - 1, 0, -1):
        entry = irqs[m][0]
        if not entry:
            continue
        out = [(c[1], -n, r) for n, (c, r) in enumerate(irqs[:m])
               if c and c[0] == entry[0] and c[1] > entry[1]]
        if out:
            return max(out)[2]
    return None


def exit_irq_enable(recs, rec):
    """The irq_enable of exit_to_user_mode() after rec, on the way out of
    rec's entry. Up to the task's next system call on its CPU there may be
    others: of the task work run on the way out, of page faults and
    interrupts taken in user space or in the next entry (each an entry of
    its own, with its own cookie), and the next call's own, early in its
    entry function. The way out is in that same entry function, further
    in (exit_to_user_mode() is inlined at its end): way_out()."""
    irqs = []
    for r in recs[rec.idx + 1:]:
        if r.cpu != rec.cpu or r.kind != 'event':
            continue
        if r.pid != rec.pid:
            return None
        if 'irq_enable' in r.body:
            irqs.append((irq_caller(r), r))
        elif 'sys_' in r.body:
            return way_out(irqs)
    # the task's last traced call: nothing bounds its way out
    return False


def cmd_exits(recs, pid, binary, chains):
    """Events of one kernel entry get that entry's stack, also irq_enable
    in exit_to_user_mode(), after the last task work: rule 2."""
    maps = mappings(recs)
    counts = {}
    # The program's calls start with the first chain's; those before it
    # are its own setup (kalt's getpid() through libc)
    first = 'sys_%s(' % next(iter(chains))
    started = False
    for e in recs:
        if e.kind != 'event' or e.pid != pid:
            continue
        started = started or e.body.startswith(first)
        call = next((c for c in chains
                     if e.body.startswith('sys_%s(' % c) or e.body.startswith('sys_%s ->' % c)),
                    None)
        if not call or not started:
            continue
        checked = [e]
        if ' -> ' in e.body:
            irq = exit_irq_enable(recs, e)
            if irq is None:
                fail('no irq_enable of pid %d after %s at %.6f on CPU %d' %
                     (pid, e.body, e.ts, e.cpu))
            if irq:
                checked.append(irq)
        for r in checked:
            c = cookie_after(recs, r)
            if not c or c.cookie == '0':
                fail('%s of pid %d at %.6f has no (non-zero) cookie behind it' %
                     (r.body, pid, r.ts))
            st = answering_stack(recs, pid, c.cookie)
            if not st:
                fail('cookie %s of %s of pid %d at %.6f is answered by no stack' %
                     (c.cookie, r.body, pid, r.ts))
            if not stack_starts_with(recs, maps, st, binary, chains[call]):
                got = [frame_function(recs, maps, st, i, binary, os.path.realpath(binary))[0]
                       for i in range(min(3, len(st.frames)))]
                fail('%s of pid %d at %.6f (after %s) got the stack %s, not %s' %
                     (r.body, pid, r.ts, e.body, ','.join(str(g) for g in got),
                      ','.join(chains[call])))
            counts[r.body.split()[0]] = counts.get(r.body.split()[0], 0) + 1
    if not any('irq_enable' in k for k in counts):
        fail('no irq_enable after a syscall exit of pid %d was checked' % pid)
    print('stacks of pid %d, each its own entry\'s: %s' %
          (pid, ', '.join('%s %d' % kv for kv in sorted(counts.items()))))


def cmd_deleted(recs, pid, path):
    named = [r for r in recs if r.kind == 'inode' and r.tgid == pid and r.path == path]
    # version 4: recorded when mapped, then as DELETED by a later dump
    if named and not any(r.mflags & 2 for r in named):
        fail('%s recorded without the DELETED flag' % path)
    if named:
        print('%s recorded as DELETED' % path)
        return
    fail('%s was not announced for pid %d (paths: %s)' %
         (path, pid, sorted(set(r.path for r in recs if r.kind == 'inode'))))


def cmd_patherr(recs, pid):
    for r in recs:
        if r.kind == 'inode' and r.tgid == pid and r.mflags & 4:
            if r.path.startswith('/'):
                fail('PATH_ERR announcement carries a path: %s' % r.path[:60])
            print('announced with PATH_ERR as %s' % r.path)
            return
    fail('no PATH_ERR announcement for pid %d' % pid)


def cmd_compat(recs, pid, binary, funcs):
    maps = mappings(recs)
    bpath = os.path.realpath(binary)
    # The stacks taken after exec, in the 32-bit binary (not the shell's)
    mine = []
    for s in pid_stacks(recs, pid):
        m = binding(recs, maps, s, s.frames[0][1]) if s.frames else None
        if m and m.path == bpath:
            mine.append(s)
    if not mine:
        fail('no stack of pid %d in %s' % (pid, bpath))
    for s in mine:
        if not s.flags & 2:
            fail('stack of 32-bit pid %d lacks the COMPAT flag (flags %x)' % (pid, s.flags))
    full = [s for s in mine if stack_starts_with(recs, maps, s, binary, funcs)]
    if not full:
        fail('no stack of 32-bit pid %d starts with %s' % (pid, ','.join(funcs)))
    print('%d 32-bit stacks of pid %d, all COMPAT; %d are %s' %
          (len(mine), pid, len(full), ' <- '.join(funcs)))


def cmd_ids(recs, pid):
    for i in sorted(set(r.id for r in recs
                        if r.kind == 'inode' and (pid is None or r.tgid == pid))):
        print(i)


def cmd_announced(recs, pid):
    print(len([r for r in recs if r.kind == 'inode' and r.pid == pid]))


def answering_stack(recs, pid, cookie):
    """kernel-abi.md rule 2: the stack of (pid, cookie), before or after."""
    for r in recs:
        if r.kind == 'stack' and r.pid == pid and r.cookie == cookie:
            return r
    return None


def cmd_answered(recs, pid, event, binary=None, funcs=None):
    maps = mappings(recs)
    events = [r for r in recs if r.kind == 'event' and r.pid == pid and event in r.body]
    if not events:
        fail('no %s event of pid %d' % (event, pid))
    before = 0
    for e in events:
        c = cookie_after(recs, e)
        if not c or c.cookie == '0':
            fail('%s of pid %d at %.6f has no (non-zero) cookie behind it' %
                 (event, pid, e.ts))
        st = answering_stack(recs, pid, c.cookie)
        if not st:
            fail('cookie %s of %s of pid %d at %.6f is answered by no stack' %
                 (c.cookie, event, pid, e.ts))
        if st.idx < c.idx:
            before += 1
        if binary and not stack_starts_with(recs, maps, st, binary, funcs):
            fail('the stack answering %s of pid %d at %.6f does not start with %s' %
                 (event, pid, e.ts, ','.join(funcs)))
    print('%d %s events answered, %d by a stack written before their cookie' %
          (len(events), event, before))


def cmd_execve(recs, pid, binary, funcs, leaf):
    maps = mappings(recs)
    evs = [r for r in recs if r.kind == 'event' and r.pid == pid]
    # the last execve: the shell's, which started BINARY, comes first
    enter = next((r for r in reversed(evs) if 'sys_execve(' in r.body), None)
    leave = next((r for r in evs if enter and r.idx > enter.idx and
                  'sys_execve ->' in r.body), None)
    if not enter or not leave:
        fail('pid %d has no sys_enter_execve and sys_exit_execve' % pid)
    c1, c2 = cookie_after(recs, enter), cookie_after(recs, leave)
    if not c1 or not c2 or c1.cookie == '0' or c2.cookie == '0':
        fail('an execve event of pid %d has no (non-zero) cookie' % pid)
    if c1.cookie == c2.cookie:
        fail('sys_enter_execve and sys_exit_execve of pid %d share cookie %s' %
             (pid, c1.cookie))
    st1, st2 = answering_stack(recs, pid, c1.cookie), answering_stack(recs, pid, c2.cookie)
    if not st1 or not st2:
        fail('an execve cookie of pid %d is answered by no stack' % pid)
    if not stack_starts_with(recs, maps, st1, binary, funcs):
        fail('the stack of sys_enter_execve of pid %d does not start with %s' %
             (pid, ','.join(funcs)))
    m = binding(recs, maps, st2, st2.frames[0][1]) if st2.frames else None
    if not m or leaf not in m.path:
        fail('the leaf of sys_exit_execve\'s stack of pid %d is in %s, not in %s' %
             (pid, m.path if m else 'an unannounced file', leaf))
    print('sys_enter_execve: %s; sys_exit_execve: new cookie, leaf in %s' %
          (','.join(funcs), m.path))


def next_on_cpu(recs, rec):
    for r in recs[rec.idx + 1:]:
        if r.cpu == rec.cpu:
            return r
    return None


def cmd_order(recs, pids):
    checked = 0
    exiting = set()
    for e in recs:
        if e.kind != 'event' or e.pid not in pids:
            continue
        n = next_on_cpu(recs, e)
        if n and n.kind == 'kstack':
            n = next_on_cpu(recs, n)
        # Once a task has called exit_group it is PF_EXITING: it has no
        # user stack to ask for, and is switched out (preempted or asleep
        # in do_exit) without a cookie
        if (not n or n.kind != 'cookie') and (e.pid in exiting or
                                              re.search(r'prev_state=[XZ]', e.body)):
            continue
        if 'sys_exit_group(' in e.body:
            exiting.add(e.pid)
        if not n or n.kind != 'cookie' or n.pid != e.pid:
            fail('event of pid %d at %.6f (%s) is not followed by its cookie on CPU %d' %
                 (e.pid, e.ts, e.body[:40], e.cpu))
        if n.cookie != '0' and not answering_stack(recs, e.pid, n.cookie):
            around = [r for r in recs if r.pid == e.pid and abs(r.ts - n.ts) < 0.01]
            fail('cookie %s of pid %d at %.6f is answered by no stack; around it:\n%s' %
                 (n.cookie, e.pid, n.ts, '\n'.join('  [%d] %.6f %s %s' % (r.cpu, r.ts, r.kind, r.body[:90])
                                                    for r in around)))
        checked += 1
    if not checked:
        fail('no event of pids %s' % pids)
    cookies = {(r.pid, r.cookie) for r in recs if r.kind == 'cookie'}
    stacks = [r for r in recs if r.kind == 'stack']
    for st in stacks:
        if (st.pid, st.cookie) not in cookies:
            fail('stack %s of pid %d at %.6f answers no cookie' % (st.cookie, st.pid, st.ts))
    print('%d events in order, %d stacks each answering a cookie' % (checked, len(stacks)))


def cmd_maxannounce(recs, pid):
    counts = {}
    for r in recs:
        if r.kind == 'inode' and r.tgid == pid:
            counts[r.id] = counts.get(r.id, 0) + 1
    print(max(counts.values()) if counts else 0)


def cmd_vdso32(recs, pid, image):
    maps = mappings(recs)
    want_bid = elf_build_id(image)
    out = subprocess.run(['nm', '-D', '-S', '--defined-only', image],
                         capture_output=True, text=True, check=True).stdout
    # nm prints versioned names: __kernel_vsyscall@@LINUX_2.5
    entry = [line.split() for line in out.splitlines()
             if line.split('@')[0].endswith(' __kernel_vsyscall')]
    if not entry or len(entry[0]) != 4:
        fail('%s has no sized __kernel_vsyscall' % image)
    start, size = int(entry[0][0], 16), int(entry[0][1], 16)
    # the task's 32-bit stacks whose leaf is in its vDSO (before its exec
    # the task was the 64-bit shell)
    vstacks = []
    for stack in pid_stacks(recs, pid):
        if not stack.flags & 2 or not stack.frames:
            continue
        off, fid = stack.frames[0]
        m = binding(recs, maps, stack, fid)
        if not m:
            fail('leaf id %s of pid %d is not announced' % (fid, pid))
        if m.path != '[vdso]':
            continue
        if not m.mflags & 1:
            fail('[vdso] id %s announced with flags %x, not SPECIAL' % (fid, m.mflags))
        if m.build_id != want_bid:
            fail('[vdso] announced with build id %s, the image has %s' % (m.build_id, want_bid))
        if not start <= off < start + size:
            fail('leaf offset %#x is outside __kernel_vsyscall [%#x, %#x)' % (off, start, start + size))
        vstacks.append(stack)
    if len(vstacks) < 3:
        fail('%d 32-bit stacks of pid %d start in [vdso], expected the 3 getppid calls' %
             (len(vstacks), pid))
    print('%d leaf frames of pid %d in __kernel_vsyscall of [vdso] %s' % (len(vstacks), pid, want_bid))


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        sys.exit(2)
    cmd, recs = sys.argv[1], parse(sys.argv[2])
    a = sys.argv[3:]
    if cmd == 'cookies':
        cmd_cookies(recs, int(a[0]), a[1])
    elif cmd == 'chain':
        cmd_chain(recs, int(a[0]), a[1], a[2].split(','))
    elif cmd == 'exact':
        cmd_exact(recs, int(a[0]), a[1], a[2].split(','))
    elif cmd == 'leaf-in':
        cmd_leaf_in(recs, int(a[0]), a[1])
    elif cmd == 'remap':
        cmd_remap(recs, int(a[0]), a[1], a[2], int(a[3]))
    elif cmd == 'execve':
        cmd_execve(recs, int(a[0]), a[1], a[2].split(','), a[3])
    elif cmd == 'shared':
        cmd_shared(recs, int(a[0]), a[1], a[2])
    elif cmd == 'crosscpu':
        cmd_crosscpu(recs, int(a[0]), int(a[1]), int(a[2]))
    elif cmd == 'nokthread':
        cmd_nokthread(recs)
    elif cmd == 'truncated':
        cmd_truncated(recs, int(a[0]), a[1], a[2], a[3])
    elif cmd == 'irq':
        cmd_irq(recs, int(a[0]), a[1], a[2], a[3].split(','))
    elif cmd == 'exits':
        cmd_exits(recs, int(a[0]), a[1],
                  {c.split('=')[0]: c.split('=')[1].split(',') for c in a[2:]})
    elif cmd == 'deleted':
        cmd_deleted(recs, int(a[0]), a[1])
    elif cmd == 'patherr':
        cmd_patherr(recs, int(a[0]))
    elif cmd == 'compat':
        cmd_compat(recs, int(a[0]), a[1], a[2].split(','))
    elif cmd == 'resolvable':
        cmd_resolvable(recs, int(a[0]))
    elif cmd == 'ids':
        cmd_ids(recs, int(a[0]) if a else None)
    elif cmd == 'announced':
        cmd_announced(recs, int(a[0]))
    elif cmd == 'answered':
        cmd_answered(recs, int(a[0]), a[1], *([a[2], a[3].split(',')] if len(a) > 3 else []))
    elif cmd == 'order':
        cmd_order(recs, [int(x) for x in a])
    elif cmd == 'maxannounce':
        cmd_maxannounce(recs, int(a[0]))
    elif cmd == 'vdso32':
        cmd_vdso32(recs, int(a[0]), a[1])
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == '__main__':
    main()
