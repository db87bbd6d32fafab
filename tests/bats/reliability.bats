#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Reliability (issue 12): hostile command lines, corrupt and untrusted
# trace.dat files, output faults (full or missing file systems), two runs
# at once and instances left by killed runs.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	build_progs
}

setup() {
	TMP="$(mktemp -d)"
}

teardown() {
	if mountpoint -q "$TMP/small" 2>/dev/null; then
		umount "$TMP/small"
	fi
	rm -rf "$TMP"
}

@test "-P: a pid beyond int range is refused, not wrapped to another pid" {
	run --separate-stderr "$USTACK" -P 4294967297 -- true
	[ "$status" -ne 0 ]
	[[ "${stderr_lines[0]}" == "trace-cmd ustack: bad pid '4294967297'" ]]
	run --separate-stderr "$USTACK" -P 1,99999999999999999999
	[ "$status" -ne 0 ]
	[[ "${stderr_lines[0]}" == "trace-cmd ustack: bad pid '99999999999999999999'" ]]
}

@test "-B: '..', '', '.', '../x' and 'a/b' are refused by name; the top-level buffer is untouched" {
	local before name

	before=$(cat "$TRACEFS/buffer_size_kb" 2>/dev/null || echo none)
	for name in .. '' . ../x a/b; do
		run --separate-stderr "$USTACK" -B "$name" -b 8192 -- true
		[ "$status" -ne 0 ]
		[[ "${stderr_lines[0]}" == "trace-cmd ustack: bad instance name '$name'"* ]]
	done
	[ "$(cat "$TRACEFS/buffer_size_kb" 2>/dev/null || echo none)" = "$before" ]
}

# An uncompressed copy of a test file whose records can be patched
v6_copy() {
	trace-cmd convert -i "$DATA/$1" -o "$2" --file-version 6 >/dev/null 2>&1 ||
		skip "trace-cmd convert cannot write file version 6"
}

@test "report: a record whose length runs past its sub-buffer is skipped, named, and fails the run" {
	v6_copy deep-deferred.dat "$TMP/v6.dat"
	"$ROOT/tests/bats/tracedat-corrupt.py" "$TMP/v6.dat" "$TMP/huge.dat"
	run --separate-stderr "$USTACK" report -q -i "$TMP/huge.dat"
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ "${stderr_lines[0]}" = "trace-cmd ustack: $TMP/huge.dat: 1 corrupt record (length past the sub-buffer) skipped" ]
	# the intact copy reads without complaint
	run --separate-stderr "$USTACK" report -q -i "$TMP/v6.dat"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}

@test "fuzz: every saved finding (tests/fuzz/regress) runs clean under ASan+UBSan" {
	command -v clang >/dev/null || skip "no clang (scripts/install-deps)"
	make -s -j2 -C "$ROOT" fuzz-build >&2
	local h f n=0

	for h in session resolve demangle; do
		for f in "$ROOT"/tests/fuzz/regress/$h/*; do
			[ -e "$f" ] || continue
			run "$ROOT/.fuzz/fuzz-$h" "$f"
			[ "$status" -eq 0 ] || { echo "$h: $f: $output" | tail -5; false; }
			n=$((n + 1))
		done
	done
	[ "$n" -ge 2 ]
}
