#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# What a new user sees first (issue 46, "Done when": the README's first
# ten minutes show no garbage frame and no stale statement), on this
# machine's stock kernel: an exec event's stack, which is the dynamic
# linker's entry point and nothing else, ends there with no unwind
# marker whatever the unwinding; the profiles' subtitles name the
# unwinding the run used, not a stack source of the past.

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

# subtitle CALLGRAPH PROG...: the flame graph's subtitle and pprof's
# second comment of a getppid run of PROG
subtitle() {
	local cg="$1"

	shift
	run "$USTACK" -q -B "$NAME" --call-graph="$cg" -e syscalls:sys_enter_getppid \
		--flamegraph "$TMP/f.svg" --pprof "$TMP/p.pb.gz" -- "$@"
	[ "$status" -eq 0 ]
	SVG_SUB=$(sed -n 's/.*<text id="subtitle"[^>]*>\([^<]*\)<.*/\1/p' "$TMP/f.svg")
	PB_TEXT=$(gzip -dc "$TMP/p.pb.gz" | tr -c '[:print:]' '\n')
}

@test "first-run: the profiles' subtitles name frame pointers for an fp run" {
	subtitle fp "$PROGS/shlib" 1
	[[ "$SVG_SUB" == *"stacks lost: 0 · perf events: frame pointers"* ]]
	[[ "$PB_TEXT" == *"stacks lost: 0; perf events: frame pointers"* ]]
	[[ "$SVG_SUB" != *synchronous* ]]
}

@test "first-run: the profiles' subtitles name CFI for a dwarf run, live and from a recording" {
	subtitle dwarf "$PROGS/shlib" 1
	[[ "$SVG_SUB" == *"perf events: stack copies unwound with CFI"* ]]
	[[ "$PB_TEXT" == *"perf events: stack copies unwound with CFI"* ]]
	run "$USTACK" record -q -B "$NAME" --call-graph=dwarf -o "$TMP/t.dat" \
		-e syscalls:sys_enter_getppid -- "$PROGS/shlib" 1
	[ "$status" -eq 0 ]
	run "$USTACK" report -q -i "$TMP/t.dat" --flamegraph "$TMP/r.svg"
	[ "$status" -eq 0 ]
	grep -q 'perf events: stack copies unwound with CFI' "$TMP/r.svg"
}
