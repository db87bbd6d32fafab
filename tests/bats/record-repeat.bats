#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The perf recorder's worker (--call-graph=dwarf, lib/ustack-tracedat-sbtrim.c)
# does not unwind a stack copy that repeats its thread's last one: the
# same registers (at a system call, those its walk can use) and the same
# values in the words the last walk read. It takes that walk's map of the
# words to keep; the summary counts them ("repeated copies"). A copy with
# the same registers whose walk reads other words is unwound.

bats_require_minimum_version 1.5.0
load helpers

EDGES="$ROOT/tests/progs/cfi/cfi-edges"
ROOTS="_start;__libc_start_main;__libc_start_call_main;main"

setup_file() {
	build_progs
}

setup() {
	perf_host_setup
}

teardown() {
	instance_teardown
}

# summary FILE WHAT: the count the recording's summary gives for WHAT
summary() {
	sed -n "s/^  $2: *\([0-9]*\) .*/\1/p" "$TMP/$1.err"
}

@test "record repeat: a loop's copies repeat their thread's last walk, are not unwound again, and report the stacks of copies kept whole" {
	record_dwarf loop.dat -- "$PROGS/burst/burst" 1 400 400
	n=$(summary loop.dat samples)
	repeated=$(summary loop.dat "repeated copies")
	trimmed=$(summary loop.dat "stack copies")
	echo "samples $n, trimmed $trimmed, repeated $repeated"
	# every copy but the first of the loop's one call site
	[ "$n" -ge 400 ] && [ "$trimmed" = "$n" ] && [ "${repeated:-0}" -ge $((n - 10)) ] ||
		{ cat "$TMP/loop.dat.err"; false; }
	# the same run, every copy whole: report unwinds them itself
	USTACK_TRIM_QUEUE=0 record_dwarf whole.dat -- "$PROGS/burst/burst" 1 400 400
	run --separate-stderr "$USTACK" report -q -i "$TMP/whole.dat" --folded
	[ "$status" -eq 0 ]
	whole="$output"
	run --separate-stderr "$USTACK" report -q -i "$TMP/loop.dat" --folded
	[ "$status" -eq 0 ]
	[ "$(wc -l <<<"$output")" -eq 1 ] && [ "${whole% *}" = "${output% *}" ] ||
		{ echo "$whole"; echo "$output"; false; }
	[ "${output##* }" = "$n" ]
	[[ "$output" == "burst;$ROOTS;bu_level;"*";bu_level;bu_loop "* ]]
}

@test "record repeat: copies with the same registers whose walks read other words are each unwound, both stacks whole" {
	# twin_a's and twin_b's system calls: every register the same, the
	# return addresses on the stack not; twin_b2's is read only by the
	# second walk
	record_dwarf twins.dat -- "$EDGES" twins 20
	[ "$(summary twins.dat "stack copies")" = 40 ] || { cat "$TMP/twins.dat.err"; false; }
	run --separate-stderr "$USTACK" report -q -i "$TMP/twins.dat" --folded
	[ "$status" -eq 0 ]
	[ "$output" = "cfi-edges;$ROOTS;twins;twin_a;twin_leaf 20
cfi-edges;$ROOTS;twins;twin_b;twin_b2;twin_leaf 20" ]
}
