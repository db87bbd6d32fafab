#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Version 4 of the kernel series (kernel-patches/, kernel-abi.md "Version
# 4"): files named by mapping records written at mmap time and, for what
# exists already, when the option is set and on a write to
# user_unwind_maps; no announcement at trace time. Skipped on a kernel without user_unwind_maps (a version 3
# kernel). Checked on the kernel's own text output with
# tests/vm/ktrace.py, then through the tool.

bats_require_minimum_version 1.5.0
load ../helpers

KCHAIN="$ROOT/tests/progs/kernel/kchain"
KTRACE="$ROOT/tests/vm/ktrace.py"
CHAIN="kf_22,kf_21,kf_20,kf_19,kf_18,kf_17,kf_16,kf_15,kf_14,kf_13,kf_12,kf_11,kf_10,kf_09,kf_08,kf_07,kf_06,kf_05,kf_04,kf_03,kf_02,kf_01,main"

setup() {
	require_deferred
	[ -x "$KCHAIN" ] || skip "tests/progs/kernel/kchain not built (make)"
	KI="$TRACEFS/instances/kv4-$$-$BATS_TEST_NUMBER"
	KT="$BATS_TEST_TMPDIR/trace"
	mkdir "$KI"
	[ -e "$KI/user_unwind_maps" ] || skip "no user_unwind_maps (a version 3 kernel)"
	echo 1 > "$KI/options/userstacktrace_delay"
	echo 1 > "$KI/events/inode_cache/inode_cache/enable"
}

teardown() {
	[ -n "${SLEEPER:-}" ] && kill "$SLEEPER" 2>/dev/null
	[ -n "${SLEEPER:-}" ] && wait "$SLEEPER" 2>/dev/null
	[ -n "${KI:-}" ] && [ -d "$KI" ] && rmdir "$KI"
	true
}

# records PID PATH_SUBSTR: the mapping records of PID naming PATH_SUBSTR
records() {
	grep -E "inode_cache: .* tgid=$1 .*path=[^ ]*$2" "$KT" || true
}

@test "kernel v4: a program that makes no traced event still gets mapping records of its executable files, at mmap time" {
	/bin/true &
	pid=$!
	wait $pid
	echo 0 > "$KI/tracing_on"
	cat "$KI/trace" > "$KT"
	records $pid libc.so
	[ "$(records $pid libc.so | wc -l)" -ge 1 ]
	[ "$(records $pid ld-linux | wc -l)" -ge 1 ]
	# with the mapping: start, length, file offset
	records $pid libc.so | grep -qE " start=[0-9a-f]+ len=[0-9a-f]+ pgoff=[0-9a-f]+ "
	# and no stack: it made no traced event
	! grep -qE -- "-$pid +\[.*<user stack unwind>" "$KT"
}

@test "kernel v4: stacks resolve exactly through mapping records, with no announcement at trace time" {
	echo 1 > "$KI/events/syscalls/sys_enter_getppid/enable"
	"$KCHAIN" asm 3 > /dev/null &
	pid=$!
	wait $pid
	echo 0 > "$KI/tracing_on"
	cat "$KI/trace" > "$KT"
	run "$KTRACE" chain "$KT" $pid "$KCHAIN" "$CHAIN"
	echo "$output"
	[ "$status" -eq 0 ]
	# every record of the binary was written before its first stack
	first_stack=$(grep -nE -- "-$pid +\[.*<user stack unwind>" "$KT" | head -1 | cut -d: -f1)
	last_rec=$(grep -nE "inode_cache: .*tgid=$pid .*path=$(realpath "$KCHAIN")\$" "$KT" | tail -1 | cut -d: -f1)
	[ -n "$first_stack" ] && [ -n "$last_rec" ]
	[ "$last_rec" -lt "$first_stack" ]
}

@test "kernel v4: the vDSO gets its record at exec, SPECIAL, named [vdso], with its build id" {
	/bin/true &
	pid=$!
	wait $pid
	echo 0 > "$KI/tracing_on"
	cat "$KI/trace" > "$KT"
	grep -E "inode_cache: .* tgid=$pid flags=1 build_id=[0-9a-f]{40} path=\[vdso\]\$" "$KT"
}

@test "kernel v4: a process that was running before tracing started is named on a write to user_unwind_maps" {
	echo 0 > "$KI/tracing_on"
	sleep 1000 &
	SLEEPER=$!
	poll_until 10 grep -q libc "/proc/$SLEEPER/maps"
	echo > "$KI/trace"
	echo 1 > "$KI/tracing_on"
	cat "$KI/trace" > "$KT"
	[ "$(records $SLEEPER libc.so | wc -l)" -eq 0 ]
	echo 1 > "$KI/user_unwind_maps"
	echo 0 > "$KI/tracing_on"
	cat "$KI/trace" > "$KT"
	records $SLEEPER libc.so
	[ "$(records $SLEEPER libc.so | wc -l)" -ge 1 ]
	[ "$(records $SLEEPER /sleep | wc -l)" -ge 1 ]
}

@test "kernel v4: a process that was running before the option was set is named when it is set, with no write to user_unwind_maps" {
	echo 0 > "$KI/options/userstacktrace_delay"
	sleep 1000 &
	SLEEPER=$!
	# its loader has mapped libc's code, the last of its executable files
	poll_until 10 grep -q "r-xp .*libc" "/proc/$SLEEPER/maps"
	echo > "$KI/trace"
	echo 1 > "$KI/options/userstacktrace_delay"
	echo 0 > "$KI/tracing_on"
	cat "$KI/trace" > "$KT"
	records $SLEEPER libc.so
	[ "$(records $SLEEPER libc.so | wc -l)" -ge 1 ]
	[ "$(records $SLEEPER /sleep | wc -l)" -ge 1 ]
}

@test "kernel v4: after the buffer wrapped past a running process's records, user_unwind_maps before the snapshot names its files again" {
	[ -e "$KI/snapshot" ] || skip "no snapshot"
	echo 1 > "$KI/events/timer/hrtimer_expire_entry/enable"
	echo 1 > "$KI/events/syscalls/sys_enter_getppid/enable"
	echo 16 > "$KI/buffer_size_kb"
	# P spins in the chain on CPU 1: its stacks come from timer interrupts
	taskset -c 1 "$KCHAIN" spin 8000 &
	SLEEPER=$!
	# a burst on the same CPU overwrites P's records of its exec
	taskset -c 1 "$KCHAIN" asm 3000 > /dev/null
	[ "$(sed -n 's/^overrun: //p' "$KI/per_cpu/cpu1/stats")" -gt 0 ]
	# from CPU 0, where P's interrupts do not overwrite the records
	taskset -c 0 sh -c "echo 1 > '$KI/user_unwind_maps' && echo 1 > '$KI/snapshot'"
	pid=$SLEEPER
	cat "$KI/snapshot" > "$KT"
	# P's only records are the dump's, after its first stack left
	first_stack=$(grep -nE -- "-$pid +\[.*<user stack unwind>" "$KT" | head -1 | cut -d: -f1)
	first_rec=$(grep -nE "inode_cache: .*tgid=$pid .*path=$(realpath "$KCHAIN")\$" "$KT" | head -1 | cut -d: -f1)
	echo "first stack of $pid at line $first_stack, first record at $first_rec"
	[ -n "$first_stack" ] && [ -n "$first_rec" ]
	[ "$first_rec" -gt "$first_stack" ]
	# its stacks in the chain resolve (the loader's, before main, may be left)
	run "$KTRACE" irq "$KT" $pid hrtimer_expire_entry "$KCHAIN" "$CHAIN"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "kernel v4: the tool names the files of a process that was running before it started (-P), from the records it asks for" {
	# its files were mapped before the tool's instance existed
	taskset -c 1 "$KCHAIN" spin 20000 &
	SLEEPER=$!
	poll_until 10 grep -q kchain "/proc/$SLEEPER/maps"
	run --separate-stderr "$USTACK" -B "kv4tool-$$" -q --folded \
		-e timer:hrtimer_expire_entry -P "$SLEEPER" -d 2
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 0 ]
	want="$(echo "$CHAIN" | tr ',' '\n' | tac | paste -sd';')"
	grep -q ";$want " <<< "$output"
	[ ! -d "$TRACEFS/instances/kv4tool-$$" ]
}
