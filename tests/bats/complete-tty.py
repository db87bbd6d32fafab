#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
Bash completion as a person gets it: an interactive bash on a terminal
(a pty), bash-completion loaded, a partial command line typed and TAB
pressed, then the completed line printed by `echo`:

    complete-tty.py BASH_COMPLETION_SCRIPT 'LINE' ['LINE'...]

prints, per LINE, the line as TAB completed it. The environment (PATH,
XDG_DATA_DIRS) is the caller's. Waits for the output, never a fixed time;
gives up after 30 s.
"""
import os
import pty
import re
import select
import sys
import time

MARK = "ENDOFLINE"


def read_until(fd, pattern, buf, deadline):
    while True:
        m = re.search(pattern, buf)
        if m:
            return m, buf[m.end():]
        left = deadline - time.monotonic()
        if left <= 0:
            sys.exit("complete-tty: no %r in: %r" % (pattern, buf[-500:]))
        r, _, _ = select.select([fd], [], [], left)
        if r:
            try:
                data = os.read(fd, 65536)
            except OSError:
                data = b""
            if not data:
                sys.exit("complete-tty: bash ended: %r" % buf[-500:])
            buf += data.decode("utf-8", "replace")


def main():
    script, lines = sys.argv[1], sys.argv[2:]
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["PS1"] = "READY$ "
        os.environ["TERM"] = "dumb"
        os.execvp("bash", ["bash", "--norc", "--noprofile", "-i"])
    deadline = time.monotonic() + 30
    buf = ""
    os.write(fd, (". %s; PS1='READY$ '; bind 'set bell-style none'\n" % script).encode())
    # the prompt after the command that loaded bash-completion
    _, buf = read_until(fd, r"READY\$ .*\n(?:.*\n)*?READY\$ ", buf, deadline)
    for i, line in enumerate(lines):
        # TAB completes; Ctrl-A and "echo" turn the line into one that
        # prints itself, and the mark says where it ends
        os.write(fd, (line + "\t").encode())
        os.write(fd, ("\x01echo N%d: \x05 %s\n" % (i, MARK)).encode())
        m, buf = read_until(fd, r"\nN%d: (.*?) *%s\r?\n" % (i, MARK), buf, deadline)
        print(m.group(1))
    os.write(fd, b"exit\n")
    os.waitpid(pid, 0)


main()
