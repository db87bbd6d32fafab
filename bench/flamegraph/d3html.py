#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# d3html.py TEMPLATE FOLDED OUT.html: the page `perf script report
# flamegraph` writes, for stacks given as folded lines. perf's script
# builds a tree of {"name", "value", "children", "libtype"} nodes from its
# samples and puts its JSON and the options into d3-flame-graph's base
# template in place of two markers; this does the same from the folded
# lines, so that both tools draw exactly the same stacks.
import json
import sys


def node(name, libtype=""):
    return {"n": name, "l": libtype, "v": 0, "c": []}


def tree(folded):
    root = node("all", "root")
    index = {}
    with open(folded) as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            n, path = root, ()
            for name in stack.split(";"):
                path += (name,)
                child = index.get(path)
                if child is None:
                    child = index[path] = node(name)
                    n["c"].append(child)
                n = child
            n["v"] += int(count)
    return root


def main(template, folded, out):
    options = {"colorscheme": "blue-green", "context": "bench/flamegraph"}
    with open(template, encoding="utf-8") as f:
        page = f.read()
    for marker in ("/** @options_json **/", "/** @flamegraph_json **/"):
        if marker not in page:
            sys.exit("d3html.py: %s: no %s marker" % (template, marker))
    page = page.replace("/** @options_json **/", json.dumps(options))
    page = page.replace("/** @flamegraph_json **/", json.dumps(tree(folded)))
    with open(out, "w", encoding="utf-8") as f:
        f.write(page)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: d3html.py TEMPLATE FOLDED OUT.html")
    main(*sys.argv[1:])
