#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's stack copies (kernel-patches/0014, user_stack_copy_size,
# Documentation/kernel-abi.md "Stack copies") on the patched kernel, in
# the VM: from the kernel's own text output of a fresh instance, with
# tests/progs/cfi/cfi-deep (-O2 -fomit-frame-pointer, a 12-deep chain
# ending in getppid) as the traced program. Only its own pid's records
# are checked.

load ../helpers

CFI="$ROOT/tests/progs/cfi"
# x86-64: perf's user registers less ds, es, fs, gs; abi 2 = 64-bit
NR_REGS=20

setup() {
	require_deferred
	[ -x "$CFI/cfi-deep" ] || skip "tests/progs/cfi/cfi-deep not built (make)"
	KI="$TRACEFS/instances/copy-bats-$$-$BATS_TEST_NUMBER"
	KT="$BATS_TEST_TMPDIR/trace"
	mkdir "$KI"
	[ -f "$KI/user_stack_copy_size" ] || skip "no user_stack_copy_size (kernel without patch 14)"
	echo 1 > "$KI/options/userstacktrace_delay"
	echo 1 > "$KI/events/syscalls/sys_enter_getppid/enable"
}

teardown() {
	[ -n "${KI:-}" ] && [ -d "$KI" ] && rmdir "$KI"
	true
}

# trace_cfi N: N getppid calls of cfi-deep traced into $KT; its pid in $PID
trace_cfi() {
	echo > "$KI/trace"
	echo 1 > "$KI/tracing_on"
	"$CFI/cfi-deep" "$1" &
	PID=$!
	wait "$PID"
	echo 0 > "$KI/tracing_on"
	cat "$KI/trace" > "$KT"
}

# records PID KIND: the cookie=... lines of PID's records of KIND
records() {
	grep -E "^ *[^ ].*-$1 +\[" "$KT" | grep -o "<$2> cookie=.*" || true
}

@test "stack copy: user_stack_copy_size is 0 in a new instance, and then no copy is written, each cookie answered by a stack" {
	[ "$(cat "$KI/user_stack_copy_size")" = 0 ]
	trace_cfi 5
	[ "$(records "$PID" 'user stack unwind' | wc -l)" -eq 5 ]
	[ "$(records "$PID" 'user stack copy' | wc -l)" -eq 0 ]
}

@test "stack copy: sizes are taken down to a multiple of 8 and to 65528" {
	echo 1001 > "$KI/user_stack_copy_size"
	[ "$(cat "$KI/user_stack_copy_size")" = 1000 ]
	echo 1000000 > "$KI/user_stack_copy_size"
	[ "$(cat "$KI/user_stack_copy_size")" = 65528 ]
	run sh -c "echo -1 > '$KI/user_stack_copy_size'"
	[ "$status" -ne 0 ]
	[ "$(cat "$KI/user_stack_copy_size")" = 65528 ]
}

@test "stack copy: a copy answers each cookie of the no-frame-pointer chain in place of the stack, with registers and the size asked" {
	echo 1 > "$KI/events/inode_cache/inode_cache/enable"
	echo 256 > "$KI/user_stack_copy_size"
	trace_cfi 6
	records "$PID" 'user unwind cookie' | sed 's/.*cookie=\([0-9a-f]*\).*/\1/' | sort -u > "$KT.cookies"
	records "$PID" 'user stack copy' | sed 's/.*cookie=\([0-9a-f]*\).*/\1/' | sort > "$KT.copies"
	cat "$KT.cookies" "$KT.copies"
	[ "$(wc -l < "$KT.copies")" -eq 6 ]
	diff "$KT.cookies" "$KT.copies"
	# 64-bit, not capped, every register, the 256 bytes asked
	[ "$(records "$PID" 'user stack copy' | grep -c " abi=2 flags=0 regs=$NR_REGS stack=256\$")" -eq 6 ]
	# no frame-pointer stack, and so no announcement, beside the copies
	[ "$(records "$PID" 'user stack unwind' | wc -l)" -eq 0 ]
	! grep -q "cfi-deep-$PID .*inode_cache" "$KT"
	# without copies the same run has both (the greps above can fail)
	echo 0 > "$KI/user_stack_copy_size"
	trace_cfi 1
	[ "$(records "$PID" 'user stack unwind' | wc -l)" -eq 1 ]
	grep -q "cfi-deep-$PID .*inode_cache" "$KT"
}

@test "stack copy: a request over what an event holds is cut to fit and flagged CAPPED" {
	echo 4 > "$KI/buffer_subbuf_size_kb"
	echo 65528 > "$KI/user_stack_copy_size"
	trace_cfi 3
	records "$PID" 'user stack copy'
	[ "$(records "$PID" 'user stack copy' | wc -l)" -eq 3 ]
	run awk '{ sub(/.* flags=/, ""); split($0, f, /[ =]/);
		   if (f[1] != "1" || f[5] + 0 < 256 || f[5] + 0 >= 4096) bad++ }
		 END { exit bad }' <<< "$(records "$PID" 'user stack copy')"
	[ "$status" -eq 0 ]
}

@test "stack copy: a copy that reaches the top of the stack ends there, not flagged" {
	echo 64 > "$KI/buffer_subbuf_size_kb" 2>/dev/null || skip "no 64 KiB sub-buffers"
	[ "$(cat "$KI/buffer_subbuf_size_kb")" -ge 64 ] || skip "no 64 KiB sub-buffers"
	echo 16384 > "$KI/user_stack_copy_size"
	trace_cfi 2
	records "$PID" 'user stack copy'
	[ "$(records "$PID" 'user stack copy' | wc -l)" -eq 2 ]
	# cfi-deep's stack is a few KiB deep (environment included)
	run awk '{ sub(/.* flags=/, ""); split($0, f, /[ =]/);
		   if (f[1] != "0" || f[5] + 0 < 256 || f[5] + 0 >= 16384) bad++ }
		 END { exit bad }' <<< "$(records "$PID" 'user stack copy')"
	[ "$status" -eq 0 ]
}
