#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
Random scenario generator for ustack-session-test.

Simulates tasks entering the kernel on random CPUs: each kernel entry has
1-3 events (possibly on different CPUs: migration), each followed at once
by its cookie on the same CPU; the stack comes later on any CPU, before the
task's next entry, or is dropped (then the next answered entry of the task,
or the end of the data, makes it lost). Some entries fail the request
(cookie 0); a kernel thread adds events that never get a cookie.

usage: session-random.py SEED PREAMBLE SCRIPT_OUT EXPECT_OUT

EXPECT_OUT gets one line per event: "ts cpu pid status frames", in the
driver's --dump vocabulary.
"""
import random
import sys


def main():
    seed, preamble, script_out, expect_out = sys.argv[1:]
    rnd = random.Random(int(seed))
    ncpu = rnd.randint(1, 4)
    tasks = [100 + i for i in range(rnd.randint(1, 6))]
    kthread = 2
    ts = 1000
    lines = [open(preamble).read().rstrip("\n")]
    expect = []
    # per task: None (in user space) or the open entry
    entry = {p: None for p in tasks}
    cookie_seq = 1
    for _ in range(rnd.randint(10, 300)):
        ts += rnd.randint(1, 50)
        r = rnd.random()
        if r < 0.1:
            cpu = rnd.randrange(ncpu)
            lines.append(f"{cpu} {ts} {kthread} sys_enter_test __syscall_nr=0")
            expect.append([ts, cpu, kthread, "NO_COOKIE", "-"])
            continue
        pid = rnd.choice(tasks)
        e = entry[pid]
        if e is None or (r < 0.6 and len(e["events"]) < 3 and not e["zero"]):
            if e is None:
                zero = rnd.random() < 0.1
                e = {"cookie": 0 if zero else cookie_seq, "events": [],
                     "zero": zero, "drop": rnd.random() < 0.15}
                cookie_seq += 1
                entry[pid] = e
            cpu = rnd.randrange(ncpu)
            lines.append(f"{cpu} {ts} {pid} sys_enter_test __syscall_nr=1")
            ts += 1
            lines.append(f"{cpu} {ts} {pid} user_unwind_cookie cookie={e['cookie']}")
            row = [ts - 1, cpu, pid, None, None]
            e["events"].append(row)
            expect.append(row)
            continue
        # return to user space: the deferred stack, or nothing
        for row in e["events"]:
            if e["zero"]:
                row[3], row[4] = "NO_STACK", "-"
            elif e["drop"]:
                row[3], row[4] = "LOST", "-"
            else:
                row[3], row[4] = "OK", f"0x{pid:x}:anon,0x{e['cookie']:x}:anon"
        if not e["zero"] and not e["drop"]:
            cpu = rnd.randrange(ncpu)
            lines.append(f"{cpu} {ts} {pid} user_unwind_stack cookie={e['cookie']} "
                         f"flags=0 offsets=0x{pid:x},0x{e['cookie']:x} ids=0,0")
        entry[pid] = None
    # entries still open at the end: their stacks never came
    for e in entry.values():
        if e is None:
            continue
        for row in e["events"]:
            row[3], row[4] = ("NO_STACK", "-") if e["zero"] else ("LOST", "-")
    with open(script_out, "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(expect_out, "w") as f:
        for row in sorted(expect, key=lambda r: (r[0], r[1], r[2])):
            f.write(" ".join(str(x) for x in row) + "\n")


if __name__ == "__main__":
    main()
