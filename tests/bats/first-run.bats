#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# What a new user sees first (issue 46, "Done when": the README's first
# ten minutes show no garbage frame and no stale statement), on this
# machine's stock kernel: an exec event's stack, which is the dynamic
# linker's entry point and nothing else, ends there with no unwind
# marker whatever the unwinding.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	[ -x "$USTACK" ] || make -s -C "$ROOT" tracecmd/trace-cmd-ustack >&2
	make -s -C "$ROOT" tests/progs/shlib >&2
}

setup() {
	perf_host_setup
}

teardown() {
	instance_teardown
}

# exec_stack CALLGRAPH: the stack and summary of /bin/true's exec event
exec_stack() {
	run --separate-stderr "$USTACK" -B "$NAME" --call-graph="$1" \
		-e sched:sched_process_exec -- /bin/true
	[ "$status" -eq 0 ]
}

@test "first-run: an exec event's stack is ld.so's _start alone, no unwind marker, with dwarf" {
	exec_stack dwarf
	[ "$(printf '%s\n' "$output" | first_stack)" = "_start" ]
	[[ "$output" != *"[unwind:"* ]]
	[[ "$stderr" != *"unwind stopped"* ]]
	[[ "$stderr" == *"stacks unwound:       1 "* ]]
}

@test "first-run: an exec event's stack is ld.so's _start alone with auto and fp too" {
	exec_stack auto
	[ "$(printf '%s\n' "$output" | first_stack)" = "_start" ]
	[[ "$output" != *"[unwind:"* ]]
	exec_stack fp
	[ "$(printf '%s\n' "$output" | first_stack)" = "_start" ]
	[[ "$output" != *"[unwind:"* ]]
}
