#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# A [vdso] frame in the middle of a 32-bit (i386) task's frame-pointer
# stack: tests/progs/compat/i386-sigreturn.s calls getppid from a signal
# handler that returns to the kernel's sigreturn trampoline in the 32-bit
# [vdso]. Live, the check that ends a frame-pointer walk at a return
# address after no call instruction reads a 64-bit task's [vdso] in the
# tool's own image; it must take this one as the task's 32-bit image,
# which has no bytes here (the task's ABI, asked of its files, says so),
# not the tool's, whose bytes there are others: the walk goes on through
# it to _start. (A report reads no [vdso] image at all.)

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	build_progs
	I386S="$BATS_FILE_TMPDIR/i386-sigreturn"
	if as --32 -o "$BATS_FILE_TMPDIR/i386-sigreturn.o" "$PROGS/compat/i386-sigreturn.s" &&
	   ld -m elf_i386 -o "$I386S" "$BATS_FILE_TMPDIR/i386-sigreturn.o" &&
	   "$I386S"; then
		export I386S
	fi
}

setup() {
	[ "$(uname -m)" = x86_64 ] || skip "i386 tasks: an x86-64 kernel's"
	[ -n "${I386S:-}" ] || skip "no i386 program: as --32, ld -m elf_i386 or ia32 emulation missing"
	capture_setup
	# its walk of a 32-bit task ends at the leaf
	[ "$(stack_source)" != userstacktrace ] || skip "userstacktrace: a 32-bit task's stack is its leaf alone"
	# the kernel's frame-pointer walk, whatever auto would choose
	CG=
	[ "$(stack_source)" != perf ] || CG=--call-graph=fp
}

teardown() {
	instance_teardown
}

@test "i386 signal handler, frame-pointer walk live: its [vdso] sigreturn return address is a frame, the walk goes on to _start" {
	run --separate-stderr "$USTACK" -B "$NAME" $CG --folded -- "$I386S"
	[ "$status" -eq 0 ]
	echo "$output"
	grep -qE '^i386-sigreturn;_start;\[vdso\]\+0x[0-9a-f]+;handler 1$' <<< "$output"
	! grep -qF '[unwind:' <<< "$output" || false
}
