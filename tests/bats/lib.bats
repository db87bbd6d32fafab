#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# What libustack promises the programs that link it, beyond the parts
# tested through the command and the other tools.

bats_require_minimum_version 1.5.0

ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
TOOL="$ROOT/tests/tools/ustack-warn-test"

setup_file() {
	make -s -C "$ROOT" tests/tools/ustack-warn-test >&2
	make -s -C "$ROOT/tests/progs/resolve" >&2
}

@test "lib: a program that defines ustack_vwarning() gets the library's messages" {
	f="$ROOT/tests/progs/resolve/resolve-pie"
	run --separate-stderr "$TOOL" "$f" 0x1000
	[ "$status" -eq 0 ]
	# the message came to the program, not to stderr
	[ -z "$stderr" ]
	[[ "${lines[0]}" == "caught: $f: build id "*" does not match the traced 0123456700"* ]]
	[ "${lines[1]}" = "lookup: no file" ]
}

@test "lib: without an override the library prints on stderr after 'trace-cmd ustack: '" {
	f="$ROOT/tests/progs/resolve/resolve-pie"
	sym="$ROOT/tests/tools/ustack-symbolize"
	make -s -C "$ROOT" tests/tools/ustack-symbolize >&2
	run --separate-stderr "$sym" --leaf --no-debuginfod <<<"$f 0x1000 0123456789abcdef0123456789abcdef01234567"
	[[ "$stderr" == "trace-cmd ustack: $f: build id "*" does not match the traced 0123456789abcdef"* ]]
}
