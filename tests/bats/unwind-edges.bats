#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Edges of the CFI unwinding of perf's stack copies no other test reached
# (issue 50): a library closed and another loaded at the same address
# between two samples of one process, whose first unwind finds the old
# library's module there and must start again with the new one.

bats_require_minimum_version 1.5.0
load helpers

SB="$ROOT/tests/progs/sideband"

setup_file() {
	build_progs
}

setup() {
	perf_host_setup
}

teardown() {
	instance_teardown
}

@test "perf dwarf: a library replaced at the same address between samples: the stacks through each library are whole, none cut by the stale module" {
	local folded

	run --separate-stderr "$USTACK" -B "$NAME" --call-graph=dwarf --folded \
		-e syscalls:sys_enter_getppid -- "$SB/sb-reload" 20
	echo "$stderr"
	[ "$status" -eq 0 ]
	# sb-reload says where the loader put each library: the same place
	local at
	at=$(sed -n 's/^one at \(0x[0-9a-f]*\), two at \(0x[0-9a-f]*\)$/\1 \2/p' <<< "$stderr")
	[ -n "$at" ]
	[ "${at% *}" = "${at#* }" ] || skip "the loader put the two libraries at different addresses"
	folded=$output
	echo "$folded"
	grep -qx 'sb-reload;.*;main;run_lib;use_lib;one_entry;one_inner 20' <<< "$folded"
	grep -qx 'sb-reload;.*;main;run_lib;use_lib;two_entry;two_inner 20' <<< "$folded"
	grep -qx 'sb-reload;.*;main;early_call 1' <<< "$folded"
	[ "$(grep -c . <<< "$folded")" -eq 3 ]
}
