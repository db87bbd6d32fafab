#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Edges of the CFI unwinding of perf's stack copies no other test reached
# (issue 50): a library closed and another loaded at the same address
# between two samples of one process, whose first unwind finds the old
# library's module there and must start again with the new one.

bats_require_minimum_version 1.5.0
load helpers

CFI="$ROOT/tests/progs/cfi"

setup_file() {
	build_progs
}

setup() {
	perf_host_setup
}

teardown() {
	instance_teardown
}

@test "perf dwarf: a library replaced at the same address between samples: the stacks through each library are whole, from its own CFI" {
	local at folded

	# both libraries -O2 without frame pointers, of different layouts
	run --separate-stderr "$USTACK" -B "$NAME" -q --call-graph=dwarf --folded \
		-e syscalls:sys_enter_getppid -- "$CFI/cfi-reload" 20
	echo "$stderr"
	[ "$status" -eq 0 ]
	# cfi-reload says where the loader put each library: the same place
	at=$(sed -n 's/^one at \(0x[0-9a-f]*\), two at \(0x[0-9a-f]*\)$/\1 \2/p' <<< "$stderr")
	[ -n "$at" ]
	[ "${at% *}" = "${at#* }" ] || skip "the loader put the two libraries at different addresses"
	folded=$output
	echo "$folded"
	[ "$folded" = "cfi-reload;_start;__libc_start_main;__libc_start_call_main;main;run_lib;call_lib;reload1_entry;reload1_inner 20
cfi-reload;_start;__libc_start_main;__libc_start_call_main;main;run_lib;call_lib;reload2_entry;reload2_inner 20" ]
}
