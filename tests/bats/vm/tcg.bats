#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The VM itself. Every test here enables and disables syscall events
# while other tasks make syscalls, and each time the kernel rewrites the
# call in trace_syscall_enter() (the tracepoint's static call) with an
# int3 and a sync IPI. qemu 7.2's multi-threaded TCG can keep running
# the int3 after it was written back, and the guest dies of an unhandled
# int3: stock 7.3.4 as well as ours (tests/vm/README.md, "One TCG
# thread"). tests/vm/run therefore runs TCG in one host thread. This file
# is last so that, if that regresses, the other files have reported
# first: the guest's panic ends the run with status 125, which
# tests/run-tests counts as a failure.

bats_require_minimum_version 1.5.0
load ../helpers

setup() {
	[ "${USTACK_VM:-}" = 1 ] || skip "runs in the VM (tests/vm/run)"
	A="$TRACEFS/instances/tcg-a-$$"
	B="$TRACEFS/instances/tcg-b-$$"
	mkdir "$A" "$B"
}

teardown() {
	[ -z "${SPIN:-}" ] || kill $SPIN 2>/dev/null || true
	wait 2>/dev/null || true
	rmdir "${A:-/nonexistent}" "${B:-/nonexistent}" 2>/dev/null || true
}

# Under multi-threaded TCG this oopsed within 10-23 s in each of 9 boots.
@test "vm: 30 s of syscall tracepoints patched in and out under two busy CPUs: the guest lives" {
	SPIN=
	for i in 1 2; do
		(while :; do cat /proc/self/stat > /dev/null; done) &
		SPIN="$SPIN $!"
	done
	# 30 s and at least 20 rounds: a slow guest (the debug kernel, a busy
	# host) patches as often as the tiny one, only for longer
	flips=0
	end=$((SECONDS + 30))
	while [ $SECONDS -lt $end ] || [ $flips -lt 20 ]; do
		# 0 -> 1 -> 2 -> 1 -> 0 probes on sys_enter: four patches
		echo 1 > "$A/events/syscalls/sys_enter_getppid/enable"
		echo 1 > "$B/events/raw_syscalls/sys_enter/enable"
		echo 0 > "$A/events/syscalls/sys_enter_getppid/enable"
		echo 0 > "$B/events/raw_syscalls/sys_enter/enable"
		flips=$((flips + 1))
	done
	echo "# $flips rounds" >&3
	# the guest still runs: every probe went out again
	[ "$(cat "$A/events/syscalls/sys_enter_getppid/enable")" = 0 ]
	[ "$(cat "$B/events/raw_syscalls/sys_enter/enable")" = 0 ]
}
