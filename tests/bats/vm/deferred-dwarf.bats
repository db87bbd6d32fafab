#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# --call-graph=dwarf on the tracefs-deferred source (kernel patch 14,
# Documentation/kernel-abi.md "Stack copies"), in the VM
# (tests/vm/run -- bats tests/bats/vm/deferred-dwarf.bats): the kernel
# copies the user registers and the top of the stack with each deferred
# stack, the tool unwinds the copy with the files' CFI and maps the
# frames through the perf side-band. tests/progs/cfi/cfi-deep is built
# -O2 -fomit-frame-pointer: the kernel's frame-pointer walk loses its
# callers, only CFI finds them; cfi-wide is the same chain with links of
# 448 bytes, some 5 KiB of stack: more than one event of a 4 KiB
# sub-buffer holds, so only a run that raised the sub-buffers for its
# 8192-byte copies (perf's default) unwinds it whole. Every run uses its
# own -B instance.

bats_require_minimum_version 1.5.0
load ../helpers

CFI="$ROOT/tests/progs/cfi"
# the whole known chain of cfi-chain.c, root first
CHAIN="cfi-deep;_start;__libc_start_main;__libc_start_call_main;main;chain_01;chain_02;chain_03;chain_04;chain_05;chain_06;chain_07;chain_08;chain_09;chain_10;chain_11;chain_12"

# the same chain in cfi-wide
WIDE="cfi-wide;${CHAIN#cfi-deep;}"

setup() {
	deferred_setup "$CFI" cfi-deep cfi-wide
	[ -f "$TRACEFS/user_stack_copy_size" ] || skip "no user_stack_copy_size (kernel without patch 14)"
}

teardown() {
	instance_teardown
}

ustack() {
	"$USTACK" -B "$NAME" --stack-source=tracefs-deferred -e syscalls:sys_enter_getppid "$@"
}

@test "deferred dwarf: live, every stack of the no-frame-pointer chain is whole and the notice says how" {
	run --separate-stderr ustack --call-graph=dwarf --folded -- "$CFI/cfi-deep" 5
	[ "$status" -eq 0 ]
	[ "$output" = "$CHAIN 5" ] || { echo "$output"; echo "$stderr"; false; }
	[[ "$stderr" == *"deferred stacks unwound with the files' CFI"*"user_stack_copy_size"* ]]
	[[ "$stderr" == *"stacks lost:          0"* ]]
}

@test "deferred dwarf: with --call-graph=fp the frame-pointer walk stays short" {
	run --separate-stderr ustack -q --call-graph=fp --folded -- "$CFI/cfi-deep" 5
	[ "$status" -eq 0 ]
	[[ "$output" == *" 5" ]]
	[[ "$output" != *"main;chain_01;chain_02"* ]]
}

@test "deferred dwarf: record keeps the copies and the side-band, report gives the whole chain" {
	"$USTACK" record -B "$NAME" -q --stack-source=tracefs-deferred --call-graph=dwarf \
			-o "$TMP/t.dat" -e syscalls:sys_enter_getppid -- "$CFI/cfi-deep" 4
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --folded
	[ "$status" -eq 0 ]
	[ "$output" = "$CHAIN 4" ] || { echo "$output"; echo "$stderr"; false; }
}

@test "deferred dwarf: --why says each caller was found by CFI" {
	run --separate-stderr ustack -q --call-graph=dwarf --why -- "$CFI/cfi-deep" 1
	[ "$status" -eq 0 ]
	[ "$(grep -c '^  chain_[01][0-9]+0x[0-9a-f]* (cfi-deep) # cfi$' <<< "$output")" -eq 11 ]
	grep -q '^  main+0x[0-9a-f]* (cfi-deep) # cfi$' <<< "$output"
}

@test "deferred dwarf: a copy too small for the chain ends in a frame saying so" {
	run --separate-stderr ustack -q --call-graph=dwarf,64 --folded -- "$CFI/cfi-deep" 3
	[ "$status" -eq 0 ]
	[[ "$output" == "cfi-deep;[unwind: stack copy too small];"*";chain_12 3" ]]
}

@test "deferred dwarf: without --stack-source the deferred source takes the copy where the kernel has it" {
	run --separate-stderr "$USTACK" -B "$NAME" --call-graph=dwarf --folded \
		-e syscalls:sys_enter_getppid -- "$CFI/cfi-deep" 2
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"deferred stacks unwound with the files' CFI"* ]]
	[ "$output" = "$CHAIN 2" ]
}

@test "deferred dwarf: --max-stack cuts the walk, marked [truncated] and counted once a stack" {
	run --separate-stderr ustack --call-graph=dwarf --max-stack 5 --folded -- "$CFI/cfi-deep" 2
	[ "$status" -eq 0 ]
	[ "$output" = "cfi-deep;[truncated];chain_08;chain_09;chain_10;chain_11;chain_12 2" ]
	[[ "$stderr" == *"truncated stacks:     2"$'\n'* ]] || { echo "$stderr"; false; }
}

@test "deferred dwarf: report --max-stack cuts the recorded copies' walk, marked [truncated] and counted" {
	"$USTACK" record -B "$NAME" -q --stack-source=tracefs-deferred --call-graph=dwarf \
			-o "$TMP/t.dat" -e syscalls:sys_enter_getppid -- "$CFI/cfi-deep" 2
	run --separate-stderr "$USTACK" report -i "$TMP/t.dat" --max-stack 5 --folded
	[ "$status" -eq 0 ]
	[ "$output" = "cfi-deep;[truncated];chain_08;chain_09;chain_10;chain_11;chain_12 2" ] ||
		{ echo "$output"; echo "$stderr"; false; }
	[[ "$stderr" == *"truncated stacks:     2"$'\n'* ]] || { echo "$stderr"; false; }
	# without it, the whole chain
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --folded
	[ "$output" = "$CHAIN 2" ]
}

@test "deferred dwarf: record --max-stack: report cuts the copies where live did, report's lower limit wins" {
	"$USTACK" record -B "$NAME" -q --stack-source=tracefs-deferred --call-graph=dwarf \
			--max-stack 5 -o "$TMP/t.dat" -e syscalls:sys_enter_getppid -- "$CFI/cfi-deep" 2
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --folded
	[ "$status" -eq 0 ]
	[ "$output" = "cfi-deep;[truncated];chain_08;chain_09;chain_10;chain_11;chain_12 2" ] ||
		{ echo "$output"; echo "$stderr"; false; }
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --max-stack 3 --folded
	[ "$output" = "cfi-deep;[truncated];chain_10;chain_11;chain_12 2" ]
	# a higher one does not walk past the recording's
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --max-stack 9 --folded
	[ "$output" = "cfi-deep;[truncated];chain_08;chain_09;chain_10;chain_11;chain_12 2" ]
}

@test "deferred dwarf: 8192-byte copies get sub-buffers that hold them: a chain over 5 KiB of stack is whole, live" {
	run --separate-stderr ustack --call-graph=dwarf --folded -- "$CFI/cfi-wide" 5
	[ "$status" -eq 0 ]
	[ "$output" = "$WIDE 5" ] || { echo "$output"; echo "$stderr"; false; }
	[[ "$stderr" == *"8192 bytes of stack"*"in 16 KiB sub-buffers"* ]]
}

@test "deferred dwarf: record keeps whole 8192-byte copies in 16 KiB pages, report unwinds them, stock trace-cmd reads them" {
	"$USTACK" record -B "$NAME" -q --stack-source=tracefs-deferred --call-graph=dwarf \
			-o "$TMP/t.dat" -e syscalls:sys_enter_getppid -- "$CFI/cfi-wide" 40
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --folded
	[ "$status" -eq 0 ]
	[ "$output" = "$WIDE 40" ] || { echo "$output"; echo "$stderr"; false; }
	command -v trace-cmd > /dev/null || skip "no stock trace-cmd to read the file with"
	run trace-cmd report "$TMP/t.dat"
	[ "$status" -eq 0 ]
	# the copies of the 40 calls, over many pages:
	# none CAPPED, each more than a 4 KiB sub-buffer holds
	grep " cfi-wide-[0-9]* .* user_unwind_copy: " <<< "$output" |
		sed -n 's/.* flags=\([0-9a-f]*\) .* stack_len=\([0-9]*\)$/\1 \2/p' > "$TMP/copies"
	[ "$(awk '$1 == 0 && $2 > 4096' "$TMP/copies" | wc -l)" -ge 40 ] ||
		{ sort "$TMP/copies" | uniq -c; false; }
	! grep -q " user_unwind_copy: .* flags=1 " <<< "$output"
}

@test "deferred dwarf: an instance of -B gets back the buffer_subbuf_size_kb the run raised" {
	mkdir "$TRACEFS/instances/$NAME"
	echo 8 > "$TRACEFS/instances/$NAME/buffer_subbuf_size_kb"
	run --separate-stderr ustack --call-graph=dwarf --folded -- "$CFI/cfi-wide" 2
	local after
	after=$(cat "$TRACEFS/instances/$NAME/buffer_subbuf_size_kb")
	rmdir "$TRACEFS/instances/$NAME"
	[ "$status" -eq 0 ]
	[ "$output" = "$WIDE 2" ]
	[[ "$stderr" == *"in 16 KiB sub-buffers"* ]]
	[ "$after" = 8 ]
}

@test "deferred dwarf: sub-buffers the kernel will not raise: the warning names the instance, the cut copies are counted, the 5 KiB chain ends saying the copy was too small" {
	mkdir "$TRACEFS/instances/$NAME"
	# a reader of the instance's trace file keeps the kernel from
	# resizing its sub-buffers (EBUSY); it must not pause the tracing
	echo 0 > "$TRACEFS/instances/$NAME/options/pause-on-trace"
	local held
	exec {held}< "$TRACEFS/instances/$NAME/trace"
	run --separate-stderr ustack --call-graph=dwarf --folded -- "$CFI/cfi-wide" 3
	exec {held}<&-
	rmdir "$TRACEFS/instances/$NAME"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"cannot raise buffer_subbuf_size_kb of $NAME to 9: "*"(CAPPED)"* ]]
	# the 3 calls' copies are cut
	[[ "$stderr" =~ "stack copies capped:  "([0-9]+)" (cut to fit a sub-buffer" ]]
	[ "${BASH_REMATCH[1]}" -ge 3 ]
	[[ "$output" == "cfi-wide;[unwind: stack copy too small];"*";chain_12 3" ]] || {
		echo "$output"; false; }
}

# copies FILE: the user_unwind_copy records of a recording, by stock
# trace-cmd (the only reader that shows them)
copies() {
	trace-cmd report "$1" 2>/dev/null | grep -c " user_unwind_copy: " || true
}

@test "deferred dwarf: record takes a stack copy for each traced kernel entry alone, none for its info marker or the command's exec" {
	command -v trace-cmd > /dev/null || skip "no stock trace-cmd to count the copies with"
	"$USTACK" record -B "$NAME" -q --stack-source=tracefs-deferred --call-graph=dwarf \
			-o "$TMP/t.dat" -e syscalls:sys_enter_getppid -- "$CFI/cfi-deep" 7
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --folded
	[ "$output" = "$CHAIN 7" ] || { echo "$output"; echo "$stderr"; false; }
	# 7 getppid calls, 7 kernel entries: 7 copies, each the answer to
	# its cookie in place of the frame-pointer stack (kernel-abi.md)
	[ "$(copies "$TMP/t.dat")" -eq 7 ] || { trace-cmd report "$TMP/t.dat" | grep -v " ustack-sb mmap "; false; }
	[ "$(trace-cmd report "$TMP/t.dat" 2>/dev/null | grep -c " cfi-deep-[0-9]* .* user_unwind_stack: ")" -eq 0 ]
	run --separate-stderr "$USTACK" report -i "$TMP/t.dat" --folded
	echo "$stderr"
	[[ "$stderr" == *"user stacks matched:  7"$'\n'* ]]
	[[ "$stderr" == *"stacks lost:          0"$'\n'* ]]
	[[ "$stderr" != *"unmatched stacks"* ]]
}

@test "deferred dwarf: the launched command's own events before its exec are skipped by the side-band's exec" {
	"$USTACK" record -B "$NAME" -q --stack-source=tracefs-deferred --call-graph=dwarf \
			-o "$TMP/t.dat" -e syscalls:sys_enter_getppid -e syscalls:sys_enter_execve \
			-- "$CFI/cfi-deep" 3
	run --separate-stderr "$USTACK" report -i "$TMP/t.dat" --folded
	[ "$status" -eq 0 ]
	# the tracer's execve of the command is not the command's
	[ "$(grep -v '^ ' <<< "$output")" = "$CHAIN 3" ] || { echo "$output"; echo "$stderr"; false; }
	[[ "$stderr" == *"events:               3"$'\n'* ]] || { echo "$stderr"; false; }
}
