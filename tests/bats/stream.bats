#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# lib/ustack-stream.c's cross-CPU merge through tests/tools/ustack-stream-test:
# hand-built per-CPU sub-buffer files read back as a direct-mode record
# does once stopped (ustack_stream_open_files()), no tracefs needed.
# Output lines: "CPU TS ID" per record, "lost CPU", "horizon TS", "sb TS PID
# NAME" per side-band record.

bats_require_minimum_version 1.5.0
load helpers

STREAM="$ROOT/tests/tools/ustack-stream-test"

setup() {
	[ -x "$STREAM" ] || skip "run make first ($STREAM missing)"
}

teardown() {
	# the unread test's instance, also when it failed
	[ -z "${NAME:-}" ] || remove_test_instances
}

# merge NR_CPUS SCRIPT: run the driver, what it printed in $output. A
# merge that loops (hands one record out forever) is cut by the time and
# output limits instead of filling the disk.
merge() {
	printf '%s\n' "$2" >"$BATS_TEST_TMPDIR/script"
	run bash -c 'ulimit -f 20000; timeout 60 "$0" "$1" "$2" <"$1/script" >"$1/out"' \
		"$STREAM" "$BATS_TEST_TMPDIR" "$1"
	[ "$status" -eq 0 ]
	output=$(cat "$BATS_TEST_TMPDIR/out")
}

@test "stream: records of two CPUs come out in timestamp order" {
	merge 2 "$(printf 'r 0 20 1\nr 0 40 3\nr 1 10 0\nr 1 30 2\nr 1 50 4\n')"
	[ "$output" = "$(printf '1 10 0\n0 20 1\n1 30 2\n0 40 3\n1 50 4')" ]
}

@test "stream: the earliest record wins even on the last CPU of four" {
	merge 4 "$(printf 'r 0 40 3\nr 1 30 2\nr 2 20 1\nr 3 10 0\n')"
	[ "$output" = "$(printf '3 10 0\n2 20 1\n1 30 2\n0 40 3')" ]
}

@test "stream: equal timestamps on one CPU keep that CPU's order" {
	merge 2 "$(printf 'r 1 10 1\nr 1 10 2\nr 1 10 3\nr 0 20 4\n')"
	[ "$output" = "$(printf '1 10 1\n1 10 2\n1 10 3\n0 20 4')" ]
}

@test "stream: a tie across CPUs goes to the lower CPU, each CPU in its order" {
	merge 2 "$(printf 'r 0 10 1\nr 0 10 2\nr 1 10 3\nr 1 10 4\nr 0 20 5\n')"
	[ "$output" = "$(printf '0 10 1\n0 10 2\n1 10 3\n1 10 4\n0 20 5')" ]
}

@test "stream: an empty CPU file leaves the others' records whole and in order" {
	merge 3 "$(printf 'r 0 10 1\nr 2 15 2\nr 0 20 3\n')"
	[ "$output" = "$(printf '0 10 1\n2 15 2\n0 20 3')" ]
}

@test "stream: records across sub-buffers of both CPUs stay in order" {
	merge 2 "$(printf 'r 0 10 1\npage 0\nr 0 30 3\nr 1 20 2\npage 1\nr 1 40 4\n')"
	[ "$output" = "$(printf '0 10 1\n1 20 2\n0 30 3\n1 40 4')" ]
}

@test "stream: a large time gap (time extend) keeps the order" {
	merge 2 "$(printf 'r 0 10 1\nr 0 1000000000 3\nr 1 500000000 2\n')"
	[ "$output" = "$(printf '0 10 1\n1 500000000 2\n0 1000000000 3')" ]
}

# CPU 0 has more sub-buffers than one read-back step takes (256), CPU 1
# one record in the middle of CPU 0's second part: it must wait for it.
@test "stream: a CPU far behind holds back a later record of another CPU" {
	merge 2 "$(printf 'fill 0 140000 1000 10 0\nr 1 1350005 999999\n')"
	# every record once, timestamps never going back
	[ "$(grep -vc '^horizon' <<<"$output")" -eq 140001 ]
	grep -v '^horizon' <<<"$output" | sort -s -n -k2,2 -c
	# released in more than one step, each step told
	grep -q '^horizon ' <<<"$output"
	grep -A1 '^1 1350005 999999$' <<<"$output" | tail -1 | grep -qx '0 1350010 134901'
}

@test "stream: a horizon is told only up to records already handed out" {
	merge 2 "$(printf 'fill 0 140000 1000 10 0\nr 1 5 7\n')"
	h=$(grep '^horizon ' <<<"$output" | head -1 | cut -d' ' -f2)
	[ -n "$h" ]
	# the horizon comes after the record at it, before the next one
	before=$(sed -n '/^horizon /q;p' <<<"$output" | tail -1 | cut -d' ' -f2)
	[ "$before" -eq "$h" ]
}

@test "stream: a loss is told before the first record after it, once" {
	merge 2 "$(printf 'r 1 10 1\nlost 1\nr 1 30 3\nr 0 20 2\nr 0 40 4\n')"
	[ "$output" = "$(printf '1 10 1\nlost 1\n0 20 2\n1 30 3\n0 40 4')" ]
}

# The side-band (perf's mmap, comm, fork records) joins the merge through
# ustack_stream_add_sideband(), one drain a call, as a live stream's does.
@test "stream: a side-band record goes before a trace record of the same time" {
	merge 2 "$(printf 'r 0 10 1\nr 1 20 2\nr 0 30 3\nsb 20 100 exec\n')"
	[ "$output" = "$(printf '0 10 1\nsb 20 100 exec\n1 20 2\n0 30 3')" ]
}

@test "stream: side-band records of one time keep their arrival order, in a drain and across drains" {
	merge 1 "$(printf 'sb 20 1 a\nsb 20 2 b\nsb 10 3 c\ndrain\nsb 20 4 d\nsb 15 5 e\nr 0 20 9\n')"
	[ "$output" = "$(printf 'sb 10 3 c\nsb 15 5 e\nsb 20 1 a\nsb 20 2 b\nsb 20 4 d\n0 20 9')" ]
}

# Each drain's records come as ordered runs (a ring each): the stream
# merges the runs, those still waiting and the new ones, into one order
@test "stream: side-band records of several ordered runs, odd and even in number, across drains, come out in time order" {
	merge 1 "$(printf '%s\n' 'sb 30 1 a' 'sb 50 2 b' 'sb 10 3 c' 'sb 40 4 d' 'sb 20 5 e' \
		'sb 60 6 f' 'sb 25 7 g' drain 'sb 45 8 h' 'sb 55 9 i' 'sb 5 10 j' 'sb 30 11 k' \
		'sb 70 12 l' drain 'sb 20 13 m' 'r 0 80 99')"
	[ "$output" = "$(printf '%s\n' 'sb 5 10 j' 'sb 10 3 c' 'sb 20 5 e' 'sb 20 13 m' 'sb 25 7 g' \
		'sb 30 1 a' 'sb 30 11 k' 'sb 40 4 d' 'sb 45 8 h' 'sb 50 2 b' 'sb 55 9 i' \
		'sb 60 6 f' 'sb 70 12 l' '0 80 99')" ]
}

# A stop by a signal under a flood closes the stream with data read but
# never handed out, which `stopped by a signal with N MB of trace data
# read but not yet handed out` says (ustack_stream_unread()): batches the
# consumer never reached, and a sub-buffer of a consumed batch whose
# later records wait on their CPU for the next horizon. The tool
# (tests/tools/ustack-stream-unread-test, its scene "saved") makes both
# at once on a new instance (a record written between a batch's horizon
# and its drain, then markers nobody consumes) and counts what must be
# said from the raw files the stream saved: each sub-buffer with a record
# not handed out.
@test "stream: closed before its last batch: the unread bytes are exactly the sub-buffers not handed out, kept back and queued" {
	local try

	require_capture
	NAME=$(instance_name)
	# 75: the saved files hold an empty sub-buffer (seen beside another
	# test run), whose place cannot be told: no verdict, the scene again
	for try in 1 2 3 4 5; do
		run "$ROOT/tests/tools/ustack-stream-unread-test" "$NAME" saved "$BATS_TEST_TMPDIR"
		echo "$output"
		[ "$status" -ne 75 ] || continue
		break
	done
	[ "$status" -eq 0 ]
	read -r _ unread _ expected _ partial _ untouched <<<"$output"
	[ "$unread" -eq "$expected" ]
	# one sub-buffer kept back half handed out, some never reached
	[ "$partial" -eq 1 ]
	[ "$untouched" -ge 1 ]
	assert_no_instance "$NAME"
}
