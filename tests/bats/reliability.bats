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
	# a run a failed test left in the background: stopped the way ^C does
	if [ -n "${BG_PID:-}" ] && kill -INT "$BG_PID" 2>/dev/null; then
		wait "$BG_PID" || true
	fi
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

# Exactly one line on stderr, non-zero exit, the line being $1
assert_only_error() {
	[ "$status" -ne 0 ]
	printf '%s\n' "${stderr_lines[@]}"
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ "${stderr_lines[0]}" = "trace-cmd ustack: $1" ]
}

@test "record -o in a missing directory: the directory is named, nothing traced" {
	require_capture
	name=$(instance_name)
	run --separate-stderr "$USTACK" record -B "$name" -o "$TMP/none/out.dat" -- true
	assert_only_error "cannot write $TMP/none/out.dat: directory $TMP/none: No such file or directory"
	assert_no_instance "$name"
}

@test "record -o on a read-only file system: the directory is named" {
	require_capture
	name=$(instance_name)
	mkdir "$TMP/small"
	mount -t tmpfs -o ro,size=64k tmpfs "$TMP/small"
	run --separate-stderr "$USTACK" record -B "$name" -o "$TMP/small/out.dat" -- true
	assert_only_error "cannot write $TMP/small/out.dat: directory $TMP/small: Read-only file system"
	assert_no_instance "$name"
}

@test "record on a full file system: one clear error, no file left that looks valid" {
	require_capture
	name=$(instance_name)
	mkdir "$TMP/small"
	mount -t tmpfs -o size=64k tmpfs "$TMP/small"
	run --separate-stderr "$USTACK" record -q -B "$name" -o "$TMP/small/out.dat" \
		-e syscalls:sys_enter_getppid -- "$PROGS/deep" 3
	assert_only_error "cannot write $TMP/small/out.dat: No space left on device"
	[ -z "$(ls -A "$TMP/small")" ]
	assert_no_instance "$name"
}

@test "record: a command that cannot start leaves no per-CPU temporaries" {
	require_capture
	name=$(instance_name)
	run --separate-stderr "$USTACK" record -q -B "$name" -o "$TMP/out.dat" -- "$TMP/no-such-program"
	[ "$status" -ne 0 ]
	[ -z "$(ls -A "$TMP")" ]
	assert_no_instance "$name"
}

@test "two records to one -o at once: both complete, the file is one whole run, no temporaries left" {
	require_capture
	a=$(instance_name)-a
	b=$(instance_name)-b
	# A holds its command until B has run from start to end
	"$USTACK" record -q -B "$a" -o "$TMP/out.dat" -e syscalls:sys_enter_getppid -- \
		sh -c "while [ ! -e '$TMP/go' ]; do sleep 0.05; done; exec '$PROGS/deep' 3" \
		2> "$TMP/a.err" &
	pid=$!
	BG_PID=$pid
	wait_tracing "$a" syscalls/sys_enter_getppid
	run --separate-stderr "$USTACK" record -q -B "$b" -o "$TMP/out.dat" \
		-e syscalls:sys_enter_getppid -- "$PROGS/deep" 2
	[ "$status" -eq 0 ]
	run "$USTACK" report -q --folded -i "$TMP/out.dat"
	[[ "$output" == "deep;"*"chain_20 2" ]]
	touch "$TMP/go"
	wait "$pid"
	[ ! -s "$TMP/a.err" ]
	run "$USTACK" report -q --folded -i "$TMP/out.dat"
	echo "$output"
	[ "$(grep -c "^deep;.*chain_20 3$" <<< "$output")" -eq 1 ]
	rm "$TMP/go" "$TMP/a.err" "$TMP/out.dat"
	[ -z "$(ls -A "$TMP")" ]
	assert_no_instance "$a"
	assert_no_instance "$b"
}

@test "the fallback notice is one line, and -q prints none" {
	require_capture
	has_deferred && skip "deferred stacks: no fallback notice"
	name=$(instance_name)
	run --separate-stderr "$USTACK" -B "$name" -e syscalls:sys_enter_getppid -- "$PROGS/deep" 1
	[ "$status" -eq 0 ]
	[ "$(grep -c 'no deferred user stacks' <<< "$stderr")" -eq 1 ]
	[[ "${stderr_lines[0]}" == "trace-cmd ustack: no deferred user stacks on this kernel"*"at most 8 frames, addresses mapped through"* ]]
	[[ "${stderr_lines[1]}" != "  "* ]]
	run --separate-stderr "$USTACK" -q -B "$name" -e syscalls:sys_enter_getppid -- "$PROGS/deep" 1
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	assert_no_instance "$name"
}

@test "report -i on a FIFO or a device: refused by name at once, never opened" {
	mkfifo "$TMP/fifo"
	run --separate-stderr timeout 10 "$USTACK" report -i "$TMP/fifo"
	[ "$status" -eq 1 ]
	[ "$stderr" = "trace-cmd ustack: $TMP/fifo is not a regular file" ]
	run --separate-stderr timeout 10 "$USTACK" report -i /dev/null
	[ "$status" -eq 1 ]
	[ "$stderr" = "trace-cmd ustack: /dev/null is not a regular file" ]
}

@test "resolver: a FIFO named as a mapping's file is not opened (no hang), the frame says why" {
	make -s -C "$ROOT" tests/tools/ustack-symbolize >&2
	mkfifo "$TMP/lib.so"
	run --separate-stderr timeout 10 "$ROOT/tests/tools/ustack-symbolize" --why <<< "$TMP/lib.so 0x1000"
	[ "$status" -eq 0 ]
	[ "$output" = "[unknown] (lib.so) # no file" ]
	[ "$stderr" = "ustack-symbolize: $TMP/lib.so: not a regular file" ]
}

@test "report: formats that make every record unknown fail with one line, not a silent exit 0" {
	v6_copy deep-deferred.dat "$TMP/v6.dat"
	# every "ID: N" of the event formats becomes 9...9: no record has its format
	python3 -c '
import re, sys
b = open(sys.argv[1], "rb").read()
b = re.sub(rb"\nID: (\d+)\n", lambda m: b"\nID: " + b"9" * len(m.group(1)) + b"\n", b)
open(sys.argv[2], "wb").write(b)' "$TMP/v6.dat" "$TMP/noid.dat"
	run --separate-stderr "$USTACK" report -q --folded -i "$TMP/noid.dat"
	[ "$status" -eq 1 ]
	[ "$stderr" = "trace-cmd ustack: $TMP/noid.dat: none of its 12 records has a known event format (corrupt formats)" ]
}

@test "SIGKILL: the next run removes the instance of the killed run, and not a live owner's" {
	require_capture
	name=$(instance_name)
	"$USTACK" -q -e syscalls:sys_enter_getppid -- sleep 60 > /dev/null 2>&1 &
	pid=$!
	BG_PID=$pid
	wait_tracing "ustack-$pid" syscalls/sys_enter_getppid
	# an instance named as this shell's would be: its owner lives
	mkdir "$TRACEFS/instances/ustack-$$"
	child=$(pgrep -P "$pid" || true)
	kill -9 "$pid"
	wait "$pid" || true
	[ -z "$child" ] || kill "$child" 2>/dev/null || true
	[ -d "$TRACEFS/instances/ustack-$pid" ]
	run --separate-stderr "$USTACK" -q -B "$name" -e syscalls:sys_enter_getppid -- true
	live_left=no
	[ -d "$TRACEFS/instances/ustack-$$" ] && live_left=yes
	rmdir "$TRACEFS/instances/ustack-$$"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"trace-cmd ustack: removed instance ustack-$pid: its run was killed"* ]]
	[ ! -e "$TRACEFS/instances/ustack-$pid" ]
	[ "$live_left" = yes ]
	assert_no_instance "$name"
}
