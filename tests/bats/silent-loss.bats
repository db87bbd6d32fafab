#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Issue 50's leftovers: what a run reads and does not hand out is said,
# never dropped silently. The stream's perf side-band records
# (lib/ustack-stream-sideband.c) through tests/tools/ustack-stream-unread-test
# (its scenes "sideband" and "sbdrop": a live stream of a new instance with
# the perf side-band of the tool's own process).

bats_require_minimum_version 1.5.0
load helpers

UNREAD="$ROOT/tests/tools/ustack-stream-unread-test"

setup() {
	[ -x "$UNREAD" ] || skip "run make first ($UNREAD missing)"
}

teardown() {
	instance_teardown
}

# unread_scene MODE: the tool's scene on a new instance, run again while
# it says 75 (its scene not reached); its output in $output
unread_scene() {
	local try

	require_capture
	tmp_setup
	NAME=$(instance_name)
	for try in 1 2 3 4 5; do
		run timeout 120 "$UNREAD" "$NAME" "$1"
		echo "$output"
		[ "$status" -eq 75 ] || break
	done
	[ "$status" -ne 77 ] || skip "built with a sanitizer: no calloc() hook"
	[ "$status" -eq 0 ]
}

# A stop by a signal closes the stream with what its merge still holds:
# side-band records later than the last horizon wait in the queue with
# the trace records after them. Their bytes were dropped from the count
# that `stopped by a signal with N MB of trace data read but not yet
# handed out` says, so such a stop lost them without a word.
@test "stream: side-band records the merge still holds when the stream is closed early are said unread, each its perf record's bytes" {
	unread_scene sideband
	read -r _ unread _ held <<<"$(grep '^unread ' <<<"$output")"
	[ "$held" -gt 0 ]
	[ "$unread" -eq "$held" ]
	assert_no_instance "$NAME"
}

@test "stream: side-band records that cannot be queued (out of memory) are said dropped with their bytes, not lost silently" {
	unread_scene sbdrop
	read -r _ _ _ held <<<"$(grep '^unread ' <<<"$output")"
	dropped=$(sed -n 's/.*side-band: out of memory: \([0-9]*\) bytes of its records dropped$/\1/p' <<<"$output")
	[ -n "$dropped" ]
	# the drain's records: the reader thread's fork, the held rename
	[ "$dropped" -gt "$held" ]
	assert_no_instance "$NAME"
}
