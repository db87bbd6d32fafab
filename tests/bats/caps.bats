#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The unwinding mode is the stack source's (lib/ustack-stack-source.c):
# --call-graph asks, the source decides when it opens or refuses with an
# error code, and the command says the refusal in one line through the
# source's strerror. Every run uses its own -B instance and checks it is
# gone afterwards. That live, record and report unwind what the source
# says it copies is perf-dwarf.bats.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	capture_setup
}

teardown() {
	instance_teardown
}

@test "caps: --stack-source=userstacktrace refuses --call-graph=dwarf when it opens: one line naming the source, exit 64 (a bad command line), no instance or recording left" {
	local want="trace-cmd ustack: --stack-source=userstacktrace: --call-graph=dwarf needs the deferred or perf stack source (--stack-source=tracefs-deferred or perf)"

	run --separate-stderr "$USTACK" -B "$NAME" --stack-source=userstacktrace \
		--call-graph=dwarf -e syscalls:sys_enter_getppid -- true
	[ "$status" -eq 64 ]
	[ "$stderr" = "$want" ] || { echo "$stderr"; false; }
	[ -z "$output" ]
	run --separate-stderr "$USTACK" record -B "$NAME" -o "$TMP/t.dat" \
		--stack-source=userstacktrace --call-graph=dwarf,64 -- true
	[ "$status" -eq 64 ]
	[ "$stderr" = "$want" ] || { echo "$stderr"; false; }
	[ -z "$(ls -A "$TMP")" ]
}
