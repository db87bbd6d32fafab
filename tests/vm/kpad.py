#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
kpad.py: the bytes of deferred-stack entries that no field covers are 0.

  kpad.py INSTANCE_DIR

Reads INSTANCE_DIR/per_cpu/cpu*/trace_pipe_raw (consuming it) and, for
every user_unwind_stack, inode_cache and user_unwind_copy entry, checks
that the struct's tail padding and the bytes after its last array up to
the end of the event are 0. Prints the counts per event and each bad
entry; exits 1 if one is bad or no stack entry was read. It reads the
ring buffer's page layout from events/header_page and header_event.
"""
import glob
import os
import re
import struct
import sys

# event name: (format file, end of the fixed fields, struct size)
EVENTS = {
    "user_unwind_stack": "events/ftrace/user_unwind_stack/format",
    "inode_cache": "events/inode_cache/inode_cache/format",
    "user_unwind_copy": "events/ftrace/user_unwind_copy/format",
}


def read_format(path):
    """ID, [(name, offset, size, is_data_loc)] of an event format file"""
    eid, fields = None, []
    with open(path) as f:
        for line in f:
            m = re.match(r"ID: (\d+)", line)
            if m:
                eid = int(m.group(1))
            m = re.match(r"\s*field:(.*?);\s*offset:(\d+);\s*size:(\d+);", line)
            if m:
                name = m.group(1).split()[-1].split("[")[0]
                fields.append((name, int(m.group(2)), int(m.group(3)),
                               "__data_loc" in m.group(1)))
    return eid, fields


def page_layout(inst):
    """offset and size of the commit field, offset of the data"""
    with open(os.path.join(inst, "events/header_page")) as f:
        text = f.read()
    commit = re.search(r"field: local_t commit;\s*offset:(\d+);\s*size:(\d+);", text)
    data = re.search(r"field: char data;\s*offset:(\d+);", text)
    return int(commit.group(1)), int(commit.group(2)), int(data.group(1))


def events(page, commit_off, commit_size, data_off):
    """(data bytes) of each data event of one sub-buffer"""
    fmt = "<Q" if commit_size == 8 else "<I"
    commit = struct.unpack_from(fmt, page, commit_off)[0] & 0xfffffff
    pos, end = data_off, data_off + commit
    while pos + 4 <= end:
        hdr = struct.unpack_from("<I", page, pos)[0]
        tlen, delta = hdr & 0x1f, hdr >> 5
        if tlen == 29:			# padding
            if delta == 0:
                return
            pos += 4 + struct.unpack_from("<I", page, pos + 4)[0]
        elif tlen in (30, 31):		# time extend, time stamp
            pos += 8
        elif tlen == 0:
            length = struct.unpack_from("<I", page, pos + 4)[0] - 4
            yield page[pos + 8:pos + 8 + length]
            pos += 8 + length
        else:
            yield page[pos + 4:pos + 4 + tlen * 4]
            pos += 4 + tlen * 4


def uncovered(data, fields):
    """the byte ranges of @data that no field or array covers"""
    covered = bytearray(len(data))
    for name, off, size, loc in fields:
        covered[off:off + size] = b"\1" * size
        if loc:
            desc = struct.unpack_from("<I", data, off)[0]
            aoff, alen = desc & 0xffff, desc >> 16
            covered[aoff:aoff + alen] = b"\1" * alen
    return [i for i in range(len(data)) if not covered[i]]


def main():
    inst = sys.argv[1]
    formats = {}
    for name, rel in EVENTS.items():
        path = os.path.join(inst, rel)
        if os.path.exists(path):
            eid, fields = read_format(path)
            formats[eid] = (name, fields)
    commit_off, commit_size, data_off = page_layout(inst)
    subbuf = int(open(os.path.join(inst, "buffer_subbuf_size_kb")).read()) * 1024
    counts, bad = {}, 0
    for raw in sorted(glob.glob(os.path.join(inst, "per_cpu/cpu*/trace_pipe_raw"))):
        fd = os.open(raw, os.O_RDONLY | os.O_NONBLOCK)
        while True:
            try:
                page = os.read(fd, subbuf)
            except BlockingIOError:
                break
            if not page:
                break
            for data in events(page, commit_off, commit_size, data_off):
                eid = struct.unpack_from("<H", data, 0)[0]
                if eid not in formats:
                    continue
                name, fields = formats[eid]
                counts[name] = counts.get(name, 0) + 1
                nonzero = [i for i in uncovered(data, fields) if data[i]]
                if nonzero:
                    bad += 1
                    print("%s: %d uncovered bytes not 0 at %s: %s" %
                          (name, len(nonzero), nonzero[:8],
                           bytes(data[i] for i in nonzero[:8]).hex()))
        os.close(fd)
    print("entries read: %s" % counts)
    if not counts.get("user_unwind_stack"):
        print("no user_unwind_stack entry read")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
