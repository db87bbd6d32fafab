#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The perf source's recorder with stack copies (--call-graph=dwarf, issue
# 47 item 2): the copies are trimmed to the words their unwind reads by a
# worker thread off the reader's path (lib/ustack-tracedat-sbtrim.c), and
# go into the file whole, as ustack:sample_copy arrays, when the worker is
# behind; report unwinds a whole copy as it unwinds a trimmed one.
#
# Test hook: USTACK_TRIM_QUEUE=N bounds the copies the worker may have
# waiting (default 4096); 0 puts the worker behind for good: every copy
# is written whole, as on a burst the worker cannot follow.

bats_require_minimum_version 1.5.0
load helpers

CFI="$ROOT/tests/progs/cfi"
# the whole known chain of cfi-chain.c, root first
CHAIN="cfi-deep;_start;__libc_start_main;__libc_start_call_main;main;chain_01;chain_02;chain_03;chain_04;chain_05;chain_06;chain_07;chain_08;chain_09;chain_10;chain_11;chain_12"

setup_file() {
	build_progs
	make -s -C "$ROOT" tests/tools/ustack-copy-test >&2
}

# the decoder's test needs no perf, nor tracefs
setup() {
	if [[ "$BATS_TEST_DESCRIPTION" == *decoder* ]]; then
		tmp_setup
		return
	fi
	perf_host_setup
}

teardown() {
	instance_teardown
}

# copies FILE: "TRIMMED WHOLE" from the recording's summary
copies() {
	sed -n 's/^  stack copies: *\([0-9]*\) trimmed.*, \([0-9]*\) whole .*/\1 \2/p' "$TMP/$1.err"
}

# samples FILE: the samples the recording's summary counts
samples() {
	sed -n 's/^  samples: *\([0-9]*\) .*/\1/p' "$TMP/$1.err"
}

@test "record worker: a burst whose worker is behind (every copy whole) reports the stacks of a trimmed recording" {
	USTACK_TRIM_QUEUE=0 record_dwarf whole.dat -- "$PROGS/burst/burst" 1 3000 0
	read -r trimmed whole <<<"$(copies whole.dat)"
	n=$(samples whole.dat)
	[ "$trimmed" = 0 ] && [ "$n" -gt 0 ] && [ "$whole" = "$n" ] || { cat "$TMP/whole.dat.err"; false; }
	# paced: the worker keeps up
	record_dwarf trim.dat -- "$PROGS/burst/burst" 1 200 400
	read -r trimmed whole <<<"$(copies trim.dat)"
	[ "$whole" = 0 ] && [ "$trimmed" = "$(samples trim.dat)" ] || { cat "$TMP/trim.dat.err"; false; }
	run --separate-stderr "$USTACK" report -q -i "$TMP/whole.dat" --folded
	[ "$status" -eq 0 ]
	whole_out="$output"
	run --separate-stderr "$USTACK" report -q -i "$TMP/trim.dat" --folded
	[ "$status" -eq 0 ]
	# one stack, every sample of each recording on it: the 13 frames of
	# burst's chain under main, from _start
	[ "$(wc -l <<<"$whole_out")" -eq 1 ] && [ "$(wc -l <<<"$output")" -eq 1 ]
	[ "${whole_out% *}" = "${output% *}" ] || { echo "$whole_out"; echo "$output"; false; }
	[ "${whole_out##* }" = "$n" ]
	[[ "$output" == "burst;_start;"*";main;bu_level;"*";bu_level;bu_loop "* ]]
}

@test "record worker: copies trimmed and whole in one recording, in the merge's order, all unwound alike" {
	# a queue of one: on a burst some copies wait for the worker, most go whole
	USTACK_TRIM_QUEUE=1 record_dwarf mixed.dat -- "$CFI/cfi-deep" 2000
	read -r trimmed whole <<<"$(copies mixed.dat)"
	n=$(samples mixed.dat)
	[ $((trimmed + whole)) -eq "$n" ] || { cat "$TMP/mixed.dat.err"; false; }
	run --separate-stderr "$USTACK" report -q -i "$TMP/mixed.dat" --folded
	[ "$status" -eq 0 ]
	[ "$output" = "$CHAIN $n" ]
}

@test "record worker: a whole copy is a ustack:sample_copy record whose fields stock trace-cmd report shows" {
	command -v trace-cmd >/dev/null || skip "no trace-cmd"
	USTACK_TRIM_QUEUE=0 record_dwarf t.dat -- "$CFI/cfi-deep" 3
	run trace-cmd report -i "$TMP/t.dat"
	[ "$status" -eq 0 ]
	lines=$(grep ' sample_copy: ' <<<"$output")
	[ "$(wc -l <<<"$lines")" -eq 3 ]
	# untrimmed (no flag 0x4), the registers of perf's mask, every word of
	# the copy in stack=, no map of kept words
	while read -r line; do
		[[ "$line" =~ flags=0x0\ .*regs_mask=0xff0fff\ stack_size=([0-9]+)\ umax=0\ regs=([0-9 ]+)\ stack=([0-9 ]+)\ kept=$ ]] ||
			{ echo "$line" | cut -c1-400; false; }
		size="${BASH_REMATCH[1]}"
		[ "$size" -gt 256 ]
		[ "$(wc -w <<<"${BASH_REMATCH[2]}")" -eq 20 ]
		[ "$(wc -w <<<"${BASH_REMATCH[3]}")" -eq $((size / 8)) ]
	done <<<"$lines"
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --folded
	[ "$status" -eq 0 ]
	[ "$output" = "$CHAIN 3" ]
}

@test "record worker: when the worker keeps up, every copy is trimmed and an event costs the file a small fraction of perf's 8.5 KB" {
	record_dwarf one.dat -- "$PROGS/burst/burst" 1 1 0
	record_dwarf paced.dat -- "$PROGS/burst/burst" 1 400 400
	read -r trimmed whole <<<"$(copies paced.dat)"
	n=$(samples paced.dat)
	[ "$n" -ge 400 ] && [ "$trimmed" = "$n" ] && [ "$whole" = 0 ] ||
		{ cat "$TMP/paced.dat.err"; false; }
	grow=$(( ($(stat -c %s "$TMP/paced.dat") - $(stat -c %s "$TMP/one.dat")) / (n - 1) ))
	echo "bytes per event: $grow"
	[ "$grow" -lt 200 ]
	# the same run with every copy whole is far bigger: what trimming saves
	USTACK_TRIM_QUEUE=0 record_dwarf pw.dat -- "$PROGS/burst/burst" 1 400 400
	wgrow=$(( ($(stat -c %s "$TMP/pw.dat") - $(stat -c %s "$TMP/one.dat")) / (n - 1) ))
	echo "whole: $wgrow"
	[ "$wgrow" -gt $((grow * 3)) ]
}

@test "record worker: the decoder reads a copy trimmed and whole, and refuses each damage as malformed" {
	run "$ROOT/tests/tools/ustack-copy-test"
	[ "$status" -eq 0 ]
	echo "$output"
	# the kept words back at their places (map 0x25: words 0, 2, 5)
	[ "${lines[0]}" = "trimmed 0" ]
	[ "${lines[1]}" = "trimmed regs 3:10,11,12 stack 64 umax 7 words 0=a0 2=a1 5=a2" ]
	[ "${lines[2]}" = "whole 0" ]
	[ "${lines[3]}" = "whole regs 3:10,11,12 stack 32 umax 0 words 0=a0 1=a1 2=a2 3=a3" ]
	[ "$(printf '%s\n' "${lines[@]:4}")" = "$(printf '%s -2\n' noregs regs odd big past maplong \
		mapcount wholemap wholeshort nomask same umax)" ]
}
