#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/kernel/report.py LOG OUT.md KEY=VALUE...

Turns the "@@ " lines guest-bench printed (LOG) into bench/kernel/RESULTS.md
(OUT.md).  KEY=VALUE: command, md5, kernel, date, load_start, load_end,
elapsed: what bench/kernel/run knows and the guest does not; "@@ meta
KEY=VALUE" lines in LOG give them too (bench/kernel/RESULTS.raw has them),
the command line wins.
"""

import sys
from collections import defaultdict

CONFIG_NAMES = {
    "none": "nothing traced",
    "ev-r": "event only, reader",
    "ev-n": "event only, no reader (wrapping)",
    "us-r": "event + `userstacktrace` (8 frames), reader",
    "us-n": "event + `userstacktrace` (8 frames), no reader (wrapping)",
    "dl-r": "event + `userstacktrace_delay`, reader",
    "dl-n": "event + `userstacktrace_delay`, no reader (wrapping)",
    "di-r": "event + `userstacktrace_delay` + `inode_cache`, reader",
    "di-n": "event + `userstacktrace_delay` + `inode_cache`, no reader (wrapping)",
    "pf": "perf `record --call-graph fp` (with its recorder)",
    "pd": "perf `record --call-graph fp,defer` (with its recorder)",
}
ORDER = ["none", "ev-r", "ev-n", "us-r", "us-n", "dl-r", "dl-n", "di-r",
         "di-n", "pf", "pd"]
MODE_NAMES = {"1": "one event (sys_enter)", "2": "enter+exit"}
MODE_SHORT = {"1": "1 ev", "2": "enter+exit"}


def num(x):
    return "{:,.0f}".format(x) if x is not None else "-"


def signed(x):
    return "{:+,.0f}".format(x) if x is not None else "-"


def ratio(a, b):
    if a is None or b is None or b <= 0:
        return None
    return a / b


def rtxt(x):
    return "{:.2f}".format(x) if x is not None else "-"



def like_for_like(w, modes, depths, best, added, steady):
    """The targets where both sides walk the same frames.

    At 13 frames userstacktrace stops at 8 frames and the deferred stack
    walks 14, so targets (a) and (b) weigh a walk against a shorter one.
    At the smallest depth both walk the whole stack; there the added cost
    is the mechanism alone.  The per-frame slope between the two largest
    depths is the walk alone.
    """
    if len(depths) < 2:
        return
    d0, d1, d2 = depths[0], depths[-2], depths[-1]
    w("## Like for like: the same frames walked")
    w("")
    w("`userstacktrace` walks at most 8 frames, the deferred stack all of "
      "them (14 at 13 frames), so (a) and (b) at 13 frames set a longer "
      "walk against a shorter one. At {} frames ({} in the stack) both "
      "walk the whole stack, and what is left is the mechanism: the "
      "cookie event, the task work, the second event. (d) like for "
      "like subtracts the synchronous walk on both sides: (delay - "
      "userstacktrace) - (perf fp,defer - perf fp).".format(d0, d0 + 1))
    w("")
    w("| at {} frames | reader | no reader |".format(d0))
    w("|---|---:|---:|")
    for m in modes:
        cols = []
        for rd in ("r", "n"):
            di = added(m, d0, "di-" + rd, "ev-" + rd)
            us = added(m, d0, "us-" + rd, "ev-" + rd)
            r = ratio(di, us)
            # the bound of (b) for one event, of (a) for enter+exit
            bound = 1.5 if m == "1" else 1.0
            cols.append("{} / {} = {} ({})".format(
                num(di), num(us), rtxt(r),
                "-" if r is None else "met" if r <= bound else "not met"))
        w("| {}: delay + inode_cache added / userstacktrace added, at "
          "most {} | {} |".format(MODE_NAMES[m], "1.5" if m == "1" else "1",
                                  " | ".join(cols)))
    for m in modes:
        cols = []
        for rd in ("r", "n"):
            dl, us = best(steady, m, d0, "dl-" + rd), best(steady, m, d0, "us-" + rd)
            pd, pf = best(steady, m, d0, "pd"), best(steady, m, d0, "pf")
            if None in (dl, us, pd, pf):
                cols.append("-")
                continue
            x = (dl - us) - (pd - pf)
            cols.append("({} - {}) - ({} - {}) = {} ns ({})".format(
                num(dl), num(us), num(pd), num(pf), num(x),
                "met" if x < 500 else "not met"))
        w("| {}: (d) like for like, under 500 ns | {} |".format(
            MODE_NAMES[m], " | ".join(cols)))
    w("")
    w("ns per frame walked, from {} to {} frames (reader; perf with its "
      "recorder): the walk alone, which the deferred stack does once per "
      "kernel entry and `userstacktrace` once per event, up to 8 "
      "frames.".format(d1, d2))
    w("")
    w("| | " + " | ".join(MODE_NAMES[m] for m in modes) + " |")
    w("|---|" + "---:|" * len(modes))
    for c, name in (("dl-r", "`userstacktrace_delay`"),
                    ("di-r", "`userstacktrace_delay` + `inode_cache`"),
                    ("pf", "perf `fp`"), ("pd", "perf `fp,defer`")):
        vals = []
        for m in modes:
            a, b = best(steady, m, d1, c), best(steady, m, d2, c)
            vals.append(num((b - a) / (d2 - d1)) if None not in (a, b) else "-")
        w("| {} | {} |".format(name, " | ".join(vals)))
    w("")

def main():
    log, out = sys.argv[1], sys.argv[2]
    meta = dict(a.split("=", 1) for a in sys.argv[3:])

    env = {}
    frames = defaultdict(dict)
    # steady[(mode, depth, config)] = list of (ns, first, median)
    steady = defaultdict(list)
    first = defaultdict(list)
    stats = {}
    readers = {}
    perf = defaultdict(list)
    for line in open(log, errors="replace"):
        if not line.startswith("@@ "):
            continue
        f = line.split()[1:]
        kind = f[0]
        if kind == "meta":
            k, _, v = " ".join(f[1:]).partition("=")
            meta.setdefault(k, v)
        elif kind == "env":
            env[f[1]] = " ".join(f[2:])
        elif kind == "frames":
            frames[f[1]][int(f[2])] = f[3]
        elif kind in ("steady", "first"):
            key = (f[1], int(f[2]), f[3])
            vals = tuple(float(v) for v in f[5:8])
            (steady if kind == "steady" else first)[key].append(vals)
        elif kind == "stats":
            stats[f[1]] = (int(f[2]), int(f[3]))
        elif kind == "reader" and f[3].isdigit() and f[4].isdigit():
            rb, re_ = readers.get(f[1], (0, 0))
            readers[f[1]] = (rb + int(f[3]), re_ + int(f[4]))
        elif kind == "perf":
            f += ["-", "-"]
            perf[(f[1], int(f[2]), f[3])].append((f[5], f[6]))

    if not steady:
        sys.exit("report.py: no results in " + log)
    modes = sorted({k[0] for k in steady})
    depths = sorted({k[1] for k in steady})
    configs = [c for c in ORDER if any(k[2] == c for k in steady)]
    cells = [(m, d) for m in modes for d in depths]
    rounds = max(len(v) for v in steady.values())

    # best of the rounds: est 0 = loop total, 2 = median chunk
    def best(table, m, d, c, est=0):
        v = table.get((m, d, c))
        return min(x[est] for x in v) if v else None

    def added(m, d, c, base, est=0):
        a, b = best(steady, m, d, c, est), best(steady, m, d, base, est)
        return a - b if a is not None and b is not None else None

    def beyond_perf(m, d, dl="dl-r", est=0):
        ours = added(m, d, dl, "ev-r", est)
        pd, pf = best(steady, m, d, "pd", est), best(steady, m, d, "pf", est)
        if ours is None or pd is None or pf is None:
            return None
        return ours - (pd - pf)

    o = []
    w = o.append
    w("# Kernel benchmark: deferred user stacks, the synchronous option and perf")
    w("")
    w("Made by `{}` on {}, in one VM run ({}).".format(
        meta.get("command", "bench/kernel/run"), meta.get("date", "?"),
        meta.get("elapsed", "?")))
    w("")
    w("* Kernel: {} with `kernel-patches/` md5 `{}` (md5 of "
      "`cat kernel-patches/*.patch`), build-kernel key `{}`.".format(
          env.get("kernel", "?"), meta.get("md5", "?"),
          meta.get("kernel", "?")[:16]))
    if "perf" in env:
        w("* {} built from the same linux-source-7.3 tree "
          "(bench/kernel/build-perf).".format(env["perf"]))
    w("* Guest: qemu TCG, {} vCPUs, clocksource {}; the workload pinned to "
      "CPU 1. Host load average (1 min) {} at the start, {} at the end: "
      "timings under TCG on a shared host are noisy, ratios hold better "
      "than absolute values.".format(
          env.get("cpus", "?"), env.get("clocksource", "?"),
          meta.get("load_start", "?"), meta.get("load_end", "?")))
    w("* Workload: `bench/kernel/kbench` (`-O0 -fno-omit-frame-pointer "
      "-fno-inline`), {} getppid calls per run with an inline `syscall` "
      "at the bottom of a 3-, 13- or 50-frame chain, timed with "
      "`clock_gettime(CLOCK_MONOTONIC)` around the loop. ns per call, best "
      "of {} interleaved rounds.".format(
          "{:,}".format(int(env.get("calls", "0"))), rounds))
    w("* *added* = the configuration minus \"event only\" with the same "
      "reader condition; perf's deferring cost = perf `fp,defer` minus "
      "perf `fp`.")
    w("")

    # --- targets ---------------------------------------------------------
    w("## Targets (issue 8)")
    w("")
    w("Each verdict is on the loop totals; the median-chunk estimate "
      "(less sensitive to the host preempting the emulator) follows in "
      "brackets.")
    w("")
    w("| target | measured | verdict |")
    w("|---|---|---|")

    def verdict(ok):
        return "met" if ok else "**not met**"

    def both(fn):
        """fn(est) -> (text, ok or None)"""
        t0, ok0 = fn(0)
        t2, ok2 = fn(2)
        if ok0 is None:
            return t0, "no data"
        v = verdict(ok0)
        if ok2 is not None and ok2 != ok0:
            v += " ({} on median chunks)".format(
                "met" if ok2 else "not met")
        return "{} [{}]".format(t0, t2), v

    for rd, rdname in (("r", "reader"), ("n", "no reader")):
        def fa(est, rd=rd):
            di = added("2", 13, "di-" + rd, "ev-" + rd, est)
            us = added("2", 13, "us-" + rd, "ev-" + rd, est)
            if di is None or us is None:
                return "-", None
            return ("{} ns vs {} ns ({}x)".format(num(di), num(us),
                                                  rtxt(ratio(di, us))),
                    di <= us)
        t, v = both(fa)
        w("| (a) enter+exit, 13 frames, {}: added cost of delay + "
          "inode_cache <= that of userstacktrace | {} | {} |".format(
              rdname, t, v))
    for rd, rdname in (("r", "reader"), ("n", "no reader")):
        def fb(est, rd=rd):
            di = added("1", 13, "di-" + rd, "ev-" + rd, est)
            us = added("1", 13, "us-" + rd, "ev-" + rd, est)
            if di is None or us is None:
                return "-", None
            return ("{} ns vs 1.5 x {} ns ({}x)".format(
                num(di), num(us), rtxt(ratio(di, us))), di <= 1.5 * us)
        t, v = both(fb)
        w("| (b) one event, 13 frames, {}: added cost of delay + "
          "inode_cache <= 1.5 x that of userstacktrace | {} | {} |".format(
              rdname, t, v))
    for m in modes:
        def fc(est, m=m):
            n = best(steady, m, 13, "di-n", est)
            r = best(steady, m, 13, "di-r", est)
            if n is None or r is None:
                return "-", None
            return ("{} ns without vs {} ns with ({}x)".format(
                num(n), num(r), rtxt(ratio(n, r))), n <= r)
        t, v = both(fc)
        w("| (c) {}, 13 frames, delay + inode_cache: wrapped without a "
          "reader <= with a reader | {} | {} |".format(MODE_NAMES[m], t, v))
    for m in modes:
        def fd(est, m=m):
            x = beyond_perf(m, 13, "dl-r", est)
            if x is None:
                return "-", None
            ours = added(m, 13, "dl-r", "ev-r", est)
            theirs = (best(steady, m, 13, "pd", est) -
                      best(steady, m, 13, "pf", est))
            return ("{} - {} = {} ns".format(num(ours), num(theirs),
                                             num(x)), x < 500)
        t, v = both(fd)
        w("| (d) {}, 13 frames: (delay - event only) - (perf fp,defer - "
          "perf fp) < 500 ns (reader) | {} | {} |".format(
              MODE_NAMES[m], t, v))
    w("")

    like_for_like(w, modes, depths, best, added, steady)

    # --- ratios ------------------------------------------------------------
    w("## Ratios, steady state")
    w("")
    head = "| | " + " | ".join("{}, {} frames".format(MODE_SHORT[m], d)
                               for m, d in cells) + " |"
    w(head)
    w("|---|" + "---:|" * len(cells))

    def row(name, fn, fmt=rtxt):
        w("| {} | {} |".format(name, " | ".join(fmt(fn(m, d))
                                                 for m, d in cells)))

    for rd, rdname in (("r", "reader"), ("n", "no reader")):
        row("delay + inode_cache / userstacktrace, added, " + rdname,
            lambda m, d, rd=rd: ratio(added(m, d, "di-" + rd, "ev-" + rd),
                                      added(m, d, "us-" + rd, "ev-" + rd)))
    for rd, rdname in (("r", "reader"), ("n", "no reader")):
        row("delay / userstacktrace, added, " + rdname,
            lambda m, d, rd=rd: ratio(added(m, d, "dl-" + rd, "ev-" + rd),
                                      added(m, d, "us-" + rd, "ev-" + rd)))
    row("delay + inode_cache, no reader / reader",
        lambda m, d: ratio(best(steady, m, d, "di-n"),
                           best(steady, m, d, "di-r")))
    row("delay + inode_cache / delay, added, reader",
        lambda m, d: ratio(added(m, d, "di-r", "ev-r"),
                           added(m, d, "dl-r", "ev-r")))
    if "pf" in configs:
        row("delay, added, reader / perf fp,defer minus nothing traced",
            lambda m, d: ratio(added(m, d, "dl-r", "ev-r"),
                               added(m, d, "pd", "none")))
        row("perf fp,defer / perf fp",
            lambda m, d: ratio(best(steady, m, d, "pd"),
                               best(steady, m, d, "pf")))
        row("ns: what deferring costs us beyond perf, "
            "(delay - event only) - (fp,defer - fp), reader",
            lambda m, d: beyond_perf(m, d), num)
        row("ns: the same with inode_cache",
            lambda m, d: beyond_perf(m, d, "di-r"), num)
    w("")

    # --- tables ------------------------------------------------------------
    def table(title, est, note):
        w("## " + title)
        w("")
        w(note)
        w("")
        w("| configuration | " + " | ".join(
            "{}, {} frames".format(MODE_SHORT[m], d) for m, d in cells) +
            " |")
        w("|---|" + "---:|" * len(cells))
        for c in configs:
            vals = []
            for m, d in cells:
                v = best(steady, m, d, c, est)
                base = {"r": "ev-r", "n": "ev-n"}.get(c[-1:]) \
                    if c.startswith(("us", "dl", "di")) else None
                if c in ("pf", "pd"):
                    base = "none"
                a = added(m, d, c, base, est) if base else None
                vals.append(num(v) + (" ({})".format(signed(a))
                                      if a is not None else ""))
            w("| {} | {} |".format(CONFIG_NAMES[c], " | ".join(vals)))
        w("")

    table("Steady state, ns per call (loop total, best of {})".format(rounds),
          0, "In brackets: added to \"event only\" with the same reader "
          "condition (perf: added to nothing traced).")
    table("Steady state, ns per call (median chunk, best of {})".format(
        rounds), 2, "The loop cut into 20 chunks, each timed; the median "
          "chunk leaves out those in which the host preempted the "
          "emulator (and periodic costs rarer than one chunk in two).")

    if first:
        fconfigs = [c for c in ("ev-n", "dl-n", "di-n")
                    if any(k[2] == c for k in first)]
        tries = max(len(v) for v in first.values())
        w("## First touch (a fresh instance, its first run; no reader; "
          "best of {} tries)".format(tries))
        w("")
        w("ns per call of the first run, and in brackets the steady state "
          "(no reader) for comparison; then the first call of the run "
          "alone (after 100 untraced getpid calls from the same place "
          "warmed the path), where the announcements of a fresh "
          "instance show.")
        w("")
        w("| configuration | " + " | ".join(
            "{}, {} frames".format(MODE_SHORT[m], d) for m, d in cells) +
            " |")
        w("|---|" + "---:|" * len(cells))
        for c in fconfigs:
            w("| {}: first run, ns per call | {} |".format(
                CONFIG_NAMES[c].split(", no reader")[0],
                " | ".join("{} ({})".format(num(best(first, m, d, c)),
                                            num(best(steady, m, d, c)))
                           for m, d in cells)))
        for c in fconfigs:
            w("| {}: first call, ns | {} |".format(
                CONFIG_NAMES[c].split(", no reader")[0],
                " | ".join("{} ({})".format(num(best(first, m, d, c, 1)),
                                            num(best(steady, m, d, c, 1)))
                           for m, d in cells)))
        w("")

    # --- checks ------------------------------------------------------------
    w("## Checks")
    w("")
    if frames:
        names = {"delay": "`user_unwind_stack` (delay)",
                 "sync": "`user_stack` (userstacktrace)",
                 "perf-fp": "perf fp, user frames",
                 "perf-fp,defer": "perf fp,defer, user frames"}
        w("Frames in one stack, per chain depth (the chain plus what libc's "
          "start code leaves below main):")
        w("")
        w("| stack | " + " | ".join("{} frames".format(d)
                                     for d in depths) + " |")
        w("|---|" + "---:|" * len(depths))
        for k in ("delay", "sync", "perf-fp", "perf-fp,defer"):
            if k in frames:
                w("| {} | {} |".format(names[k], " | ".join(
                    frames[k].get(d, "-") for d in depths)))
        w("")
    if stats:
        w("Ring buffers at the end of the steady-state runs (all CPUs): "
          "overruns show the buffer wrapped (expected without a reader; "
          "with one, the reader fell behind). A 0-byte read of "
          "trace_pipe_raw is the reader losing a race with the writer "
          "(cat would stop there; `kbench -r` reads on).")
        w("")
        w("| instance | overrun | entries left | read by the reader | "
          "0-byte reads |")
        w("|---|---:|---:|---:|---:|")
        for c in ORDER:
            if c in stats:
                rb = readers.get(c)
                w("| {} | {:,} | {:,} | {} | {} |".format(
                    CONFIG_NAMES[c], stats[c][0], stats[c][1],
                    "{:,.1f} MB".format(rb[0] / 1e6) if rb else "-",
                    "{:,}".format(rb[1]) if rb else "-"))
        w("")
    if perf:
        calls = int(env.get("calls", "0"))
        w("perf, first round: samples in perf.data against the events "
          "traced (calls x events per call), and lost events (`perf "
          "report --stats`):")
        w("")
        w("| | " + " | ".join("{}, {} frames".format(MODE_SHORT[m], d)
                              for m, d in cells) + " |")
        w("|---|" + "---:|" * len(cells))
        for c in ("pf", "pd"):
            vals = []
            for m, d in cells:
                v = perf.get((m, d, c))
                if not v:
                    vals.append("-")
                    continue
                smp, lost = v[0]
                vals.append("{} / {:,}, lost {}".format(
                    "{:,}".format(int(smp)) if smp.isdigit() else smp,
                    calls * int(m), lost))
            w("| {} | {} |".format(CONFIG_NAMES[c], " | ".join(vals)))
        w("")
    w("Every round, loop totals (ns per call), to judge the noise:")
    w("")
    w("| configuration | " + " | ".join(
        "{}, {} frames".format(MODE_SHORT[m], d) for m, d in cells) + " |")
    w("|---|" + "---:|" * len(cells))
    for c in configs:
        w("| {} | {} |".format(CONFIG_NAMES[c], " | ".join(
            " / ".join(num(x[0]) for x in steady.get((m, d, c), []))
            for m, d in cells)))
    w("")
    w("Not part of `make check`; `make bench-kernel` or `bench/kernel/run` "
      "remakes this file, `bench/kernel/run --profile` profiles the delay + "
      "inode_cache configuration (bench/kernel/README.md).")
    with open(out, "w") as f:
        f.write("\n".join(o) + "\n")


if __name__ == "__main__":
    main()
