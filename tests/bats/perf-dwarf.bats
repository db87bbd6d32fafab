#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The perf source's --call-graph=dwarf on this machine's kernel: user
# registers and a stack copy with each sample, unwound with the files'
# CFI (lib/ustack-unwind-sample.c, lib/ustack-unwind.c), live and from a
# recording; tests/progs/cfi/cfi-deep is built -O2 -fomit-frame-pointer,
# so the kernel's frame-pointer chain has chain_12 alone, and only CFI
# finds its callers. Every run uses its own -B instance.

bats_require_minimum_version 1.5.0
load helpers

CFI="$ROOT/tests/progs/cfi"
# the whole known chain of cfi-chain.c, root first
CHAIN="cfi-deep;_start;__libc_start_main;__libc_start_call_main;main;chain_01;chain_02;chain_03;chain_04;chain_05;chain_06;chain_07;chain_08;chain_09;chain_10;chain_11;chain_12"

setup_file() {
	build_progs
}

setup() {
	perf_host_setup
}

teardown() {
	instance_teardown
}

@test "perf dwarf: live, every stack of the no-frame-pointer chain is whole" {
	run --separate-stderr "$USTACK" -B "$NAME" -q --call-graph=dwarf --folded \
		-e syscalls:sys_enter_getppid -- "$CFI/cfi-deep" 5
	[ "$status" -eq 0 ]
	[ "$output" = "$CHAIN 5" ]
}

@test "perf dwarf: record then report unwinds the kept words to the whole chain" {
	"$USTACK" record -B "$NAME" -q -o "$TMP/t.dat" --call-graph=dwarf \
		-e syscalls:sys_enter_getppid -- "$CFI/cfi-deep" 4
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --folded
	[ "$status" -eq 0 ]
	[ "$output" = "$CHAIN 4" ]
	# the file keeps a few words a frame (TRIMMED, 0x4), not the 8 KiB copy
	run trace-cmd report -i "$TMP/t.dat"
	[ "$status" -eq 0 ]
	[ "$(grep -c ' sample_copy: .* flags=0x4 .* regs=[0-9]* .* stack=.* kept=' <<< "$output")" -eq 4 ]
	[ "$(grep ' sample_copy: ' <<< "$output" | sed 's/.* stack=//; s/ kept=.*//' | awk '{ print NF }' |
	     sort -n | tail -1)" -lt 100 ]
}

@test "perf dwarf: a copy too small for the chain ends in a frame saying so" {
	run --separate-stderr "$USTACK" -B "$NAME" -q --call-graph=dwarf,64 --folded \
		-e syscalls:sys_enter_getppid -- "$CFI/cfi-deep" 3
	[ "$status" -eq 0 ]
	[[ "$output" == "cfi-deep;[unwind: stack copy too small];"*";chain_12 3" ]]
}

@test "perf dwarf: --why says each caller was found by CFI" {
	run --separate-stderr "$USTACK" -B "$NAME" -q --call-graph=dwarf --why \
		-e syscalls:sys_enter_getppid -- "$CFI/cfi-deep" 1
	[ "$status" -eq 0 ]
	grep -q '^  chain_12+0x[0-9a-f]* (cfi-deep)$' <<< "$output"
	[ "$(grep -c '^  chain_[01][0-9]+0x[0-9a-f]* (cfi-deep) # cfi$' <<< "$output")" -eq 11 ]
	grep -q '^  main+0x[0-9a-f]* (cfi-deep) # cfi$' <<< "$output"
}

@test "perf dwarf: --call-graph takes auto, fp or dwarf[,SIZE] and dwarf needs the deferred or perf source" {
	run "$USTACK" --call-graph=bogus -- true
	[ "$status" -ne 0 ]
	[[ "$output" == *"bad --call-graph 'bogus' (want auto, fp or dwarf[,SIZE])"* ]]
	run "$USTACK" --call-graph=dwarf --stack-source=userstacktrace -- true
	[ "$status" -ne 0 ]
	[[ "$output" == *"--call-graph=dwarf needs the deferred or perf stack source"* ]]
}

@test "perf dwarf: frames without CFI come from the frame pointer, and --why says so" {
	run --separate-stderr "$USTACK" -B "$NAME" -q --call-graph=dwarf --why \
		-e syscalls:sys_enter_getppid -- "$CFI/cfi-nocfi-fp" 1
	[ "$status" -eq 0 ]
	# chain_11 .. main and the libc frame main returns to have no CFI
	[ "$(grep -c ' # fp$' <<< "$output")" -eq 13 ]
	grep -q '^  chain_11+0x[0-9a-f]* (cfi-nocfi-fp) # fp$' <<< "$output"
	grep -q '^  _start+0x[0-9a-f]* (cfi-nocfi-fp) # cfi$' <<< "$output"
}

@test "perf dwarf: neither CFI nor frame pointer: the stack ends in a frame saying so" {
	run --separate-stderr "$USTACK" -B "$NAME" -q --call-graph=dwarf --folded \
		-e syscalls:sys_enter_getppid -- "$CFI/cfi-nocfi-nofp" 2
	[ "$status" -eq 0 ]
	[ "$output" = "cfi-nocfi-nofp;[unwind: no CFI and no frame pointer];chain_12 2" ]
}

@test "perf dwarf: --max-stack cuts live and in report alike, marked [truncated]" {
	run --separate-stderr "$USTACK" -B "$NAME" -q --call-graph=dwarf --max-stack 5 \
		--folded -e syscalls:sys_enter_getppid -- "$CFI/cfi-deep" 2
	[ "$status" -eq 0 ]
	[ "$output" = "cfi-deep;[truncated];chain_08;chain_09;chain_10;chain_11;chain_12 2" ]
	"$USTACK" record -B "$NAME" -q -o "$TMP/t.dat" --call-graph=dwarf --max-stack 5 \
		-e syscalls:sys_enter_getppid -- "$CFI/cfi-deep" 2
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --folded
	[ "$status" -eq 0 ]
	[ "$output" = "cfi-deep;[truncated];chain_08;chain_09;chain_10;chain_11;chain_12 2" ]
}

@test "perf dwarf: report --max-stack cuts a recording made without it, marked [truncated] and counted" {
	"$USTACK" record -B "$NAME" -q -o "$TMP/t.dat" --call-graph=dwarf \
		-e syscalls:sys_enter_getppid -- "$CFI/cfi-deep" 2
	run --separate-stderr "$USTACK" report -i "$TMP/t.dat" --max-stack 5 --folded
	[ "$status" -eq 0 ]
	[ "$output" = "cfi-deep;[truncated];chain_08;chain_09;chain_10;chain_11;chain_12 2" ]
	[[ "$stderr" == *"truncated stacks:     2"$'\n'* ]] || { echo "$stderr"; false; }
	# a limit above the chain cuts nothing
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --max-stack 100 --folded
	[ "$status" -eq 0 ]
	[[ "$output" == "cfi-deep;_start;"*";main;chain_01;"*";chain_12 2" ]]
}

@test "perf dwarf: the summary counts the stacks the unwind could not finish, by why" {
	run --separate-stderr "$USTACK" -B "$NAME" --call-graph=dwarf,64 --folded \
		-e syscalls:sys_enter_getppid -- "$CFI/cfi-deep" 3
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"truncated stacks:     0"* ]]
	[[ "$stderr" == *"unwind stopped:       3 (stack copy too small 3)"* ]]
	"$USTACK" record -B "$NAME" -q -o "$TMP/t.dat" --call-graph=dwarf \
		-e syscalls:sys_enter_getppid -- "$CFI/cfi-nocfi-nofp" 2
	run --separate-stderr "$USTACK" report -i "$TMP/t.dat" --folded
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"unwind stopped:       2 (no CFI and no frame pointer 2)"* ]]
	# a whole stack is no stopped one: no line
	run --separate-stderr "$USTACK" -B "$NAME" --call-graph=dwarf --folded \
		-e syscalls:sys_enter_getppid -- "$CFI/cfi-deep" 1
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"unwind stopped:"* ]]
}
