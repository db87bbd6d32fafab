#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/kernel/versus.py OUT.md OLD_LABEL OLD.raw... -- NEW_LABEL NEW.raw...

Compares two kernels' bench/kernel/run measurements (the "@@ " lines of
their .raw files, several runs each, taken in turns by bench/kernel/versus):
what each deferred configuration adds to the same event alone, old against
new, and the new one against what perf fp,defer adds to nothing traced.
A kernel's value of a configuration is its best (lowest) over all its runs
and rounds, as RESULTS.md takes the best of its rounds; the spread of one
configuration between the runs of one kernel tells the noise.
"""

import sys
from collections import defaultdict

# configuration -> (what it is, the "event only" it adds to)
ADDED = [
    ("dl-r", "`userstacktrace_delay`, reader", "ev-r"),
    ("dl-n", "`userstacktrace_delay`, no reader", "ev-n"),
    ("di-r", "`userstacktrace_delay` + `inode_cache`, reader", "ev-r"),
    ("di-n", "`userstacktrace_delay` + `inode_cache`, no reader", "ev-n"),
    ("us-r", "`userstacktrace` (8 frames), reader", "ev-r"),
    ("ev-r", "event only, reader", "none"),
]
ESTIMATES = [(0, "loop total"), (2, "median chunk")]
MODE_SHORT = {"1": "1 ev", "2": "enter+exit"}


def load(paths):
    """-> (runs, meta): runs = list of {(mode, depth, config): [rows]}"""
    runs, meta = [], {}
    for path in paths:
        run = defaultdict(list)
        for line in open(path, errors="replace"):
            f = line.split()
            if len(f) < 2 or f[0] != "@@":
                continue
            if f[1] == "steady" and len(f) >= 9:
                key = (f[2], int(f[3]), f[4])
                run[key].append(tuple(float(v) for v in f[6:9]))
            elif f[1] == "meta":
                k, _, v = " ".join(f[2:]).partition("=")
                meta.setdefault(k, []).append(v)
        if not run:
            sys.exit("versus.py: no measurements in " + path)
        runs.append(run)
    return runs, meta


def best(runs, key, est):
    vals = [row[est] for run in runs for row in run.get(key, [])]
    return min(vals) if vals else None


def per_run_best(runs, key, est):
    out = []
    for run in runs:
        vals = [row[est] for row in run.get(key, [])]
        if vals:
            out.append(min(vals))
    return out


def added(runs, m, d, c, base, est):
    a, b = best(runs, (m, d, c), est), best(runs, (m, d, base), est)
    return None if a is None or b is None else a - b


def fmt(x):
    return "-" if x is None else "{:,.0f}".format(x)


def ratio(a, b):
    if a is None or b is None or b <= 0:
        return None
    return a / b


def rfmt(x):
    return "-" if x is None else "{:.2f}".format(x)


def main():
    args = sys.argv[1:]
    if "--" not in args or len(args) < 5:
        sys.exit(__doc__)
    cut = args.index("--")
    out, old_label, old_paths = args[0], args[1], args[2:cut]
    new_label, new_paths = args[cut + 1], args[cut + 2:]
    old, old_meta = load(old_paths)
    new, new_meta = load(new_paths)
    cells = sorted({(k[0], k[1]) for run in new for k in run})

    o = []
    w = o.append
    w("# Kernel cost: {} against {}".format(new_label, old_label))
    w("")
    w("Made by `bench/kernel/versus` from {} runs of each kernel, taken in "
      "turns ({} first in odd pairs), each a `bench/kernel/run` (one VM boot, "
      "its rounds interleaved). Dates: {}. Host load average (1 min) at "
      "the starts: {}.".format(
          len(new), old_label, ", ".join(new_meta.get("date", ["?"])[:1] +
                                         new_meta.get("date", ["?"])[-1:]),
          " ".join(old_meta.get("load_start", []) +
                   new_meta.get("load_start", []))))
    w("")
    w("* Kernels: {} = {}; {} = {}.".format(
        old_label, "; ".join(sorted(set(old_meta.get("kernel", ["?"])))),
        new_label, "; ".join(sorted(set(new_meta.get("kernel", ["?"]))))))
    w("* *added*: ns per call the configuration adds to the same event(s) "
      "alone with the same reader condition, each kernel's best over all "
      "its runs. Ratio {n}/{o} above 1: {n} costs more. \"Nothing "
      "traced, whole call\" is not added: the whole system call with no "
      "event enabled.".format(
          n=new_label, o=old_label))
    w("* *noise*: for the same configuration on the same kernel, the "
      "largest over the smallest of the runs' bests; a ratio within it "
      "is no difference (\"-\" with one run of each kernel: then the "
      "ratio of \"event only\", which v3 barely changes, shows "
      "it).")
    w("")
    for est, name in ESTIMATES:
        w("## {} against {} ({})".format(new_label, old_label, name))
        w("")
        w("| added, ns per call | " + " | ".join(
            "{}, {} frames".format(MODE_SHORT.get(m, m), d)
            for m, d in cells) + " |")
        w("|---|" + "---:|" * len(cells))
        for c, what, base in ADDED:
            row_o, row_n, row_r = [], [], []
            for m, d in cells:
                a_o = added(old, m, d, c, base, est)
                a_n = added(new, m, d, c, base, est)
                row_o.append(fmt(a_o))
                row_n.append(fmt(a_n))
                row_r.append(rfmt(ratio(a_n, a_o)))
            w("| {}: {} | ".format(what, old_label) + " | ".join(row_o) + " |")
            w("| {}: {} | ".format(what, new_label) + " | ".join(row_n) + " |")
            w("| {}: **{} / {}** | ".format(what, new_label, old_label) +
              " | ".join(row_r) + " |")
        # The bare system call: patch 1 changes every kernel entry's way
        # back to user space, which "added" subtracts out
        row_o = [best(old, (m, d, "none"), est) for m, d in cells]
        row_n = [best(new, (m, d, "none"), est) for m, d in cells]
        w("| nothing traced, whole call: {} | ".format(old_label) +
          " | ".join(fmt(x) for x in row_o) + " |")
        w("| nothing traced, whole call: {} | ".format(new_label) +
          " | ".join(fmt(x) for x in row_n) + " |")
        w("| nothing traced, whole call: **{} / {}** | ".format(
            new_label, old_label) +
          " | ".join(rfmt(ratio(b, a)) for a, b in zip(row_o, row_n)) + " |")
        noise = []
        for m, d in cells:
            worst = None
            for c in ("ev-r", "dl-r", "di-r"):
                for runs in (old, new):
                    v = per_run_best(runs, (m, d, c), est)
                    if len(v) > 1 and min(v) > 0:
                        worst = max(worst or 1.0, max(v) / min(v))
            # one run of each kernel: no spread to tell
            noise.append(rfmt(worst))
        w("| noise (runs of one kernel, event only and deferred) | " +
          " | ".join(noise) + " |")
        w("")
        w("### {} against perf `fp,defer` ({})".format(new_label, name))
        w("")
        w("| | " + " | ".join("{}, {} frames".format(MODE_SHORT.get(m, m), d)
                              for m, d in cells) + " |")
        w("|---|" + "---:|" * len(cells))
        pd = [added(new, m, d, "pd", "none", est) for m, d in cells]
        w("| perf `fp,defer` added to nothing traced | " +
          " | ".join(fmt(x) for x in pd) + " |")
        for c, what, base in ADDED[:4]:
            ours = [added(new, m, d, c, base, est) for m, d in cells]
            w("| {} added / perf's | ".format(what) +
              " | ".join(rfmt(ratio(a, b)) for a, b in zip(ours, pd)) + " |")
        w("")
    open(out, "w").write("\n".join(o))


if __name__ == "__main__":
    main()
