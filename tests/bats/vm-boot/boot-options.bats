#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The kernel side set up from the kernel command line: tests/run-tests
# boots the patched kernel for this file with
#   trace_options=userstacktrace_delay trace_event=inode_cache:inode_cache
# (USTACK_BOOT_APPEND), so the option is set from early_trace_init(),
# before workqueues exist, and the event is enabled before any instance.

load ../helpers

KCHAIN="$ROOT/tests/progs/kernel/kchain"
KTRACE="$ROOT/tests/vm/ktrace.py"
CHAIN="kf_22,kf_21,kf_20,kf_19,kf_18,kf_17,kf_16,kf_15,kf_14,kf_13,kf_12,kf_11,kf_10,kf_09,kf_08,kf_07,kf_06,kf_05,kf_04,kf_03,kf_02,kf_01,main"

setup() {
	require_deferred
	grep -q 'trace_options=userstacktrace_delay' /proc/cmdline ||
		skip "not booted with USTACK_BOOT_APPEND (run through tests/run-tests --vm)"
}

teardown() {
	echo 0 > "$TRACEFS/events/syscalls/sys_enter_getppid/enable"
}

@test "boot: trace_options=userstacktrace_delay and trace_event=inode_cache are set at the top level" {
	[ "$(cat "$TRACEFS/options/userstacktrace_delay")" = 1 ]
	[ "$(cat "$TRACEFS/events/inode_cache/inode_cache/enable")" = 1 ]
}

@test "boot: the top level, set up at boot, writes cookies and stacks and names the files" {
	echo > "$TRACEFS/trace"
	echo 1 > "$TRACEFS/events/syscalls/sys_enter_getppid/enable"
	"$KCHAIN" asm 2 &
	pid=$!
	wait $pid
	echo 0 > "$TRACEFS/events/syscalls/sys_enter_getppid/enable"
	cat "$TRACEFS/trace" > "$BATS_TEST_TMPDIR/trace"
	run "$KTRACE" cookies "$BATS_TEST_TMPDIR/trace" $pid sys_getppid
	echo "$output"
	[ "$status" -eq 0 ]
	run "$KTRACE" chain "$BATS_TEST_TMPDIR/trace" $pid "$KCHAIN" "$CHAIN"
	echo "$output"
	[ "$status" -eq 0 ]
}
