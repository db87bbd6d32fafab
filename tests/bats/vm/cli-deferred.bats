#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Deferred user stacks on the patched kernel (kernel-patches/), run inside
# the VM by `tests/run-tests --vm` (tests/vm/run -- bats tests/bats/vm).
# On any other kernel every test is skipped with the reason.
#
# tests/vm/record-fixtures writes the fixture files of tests/data.

bats_require_minimum_version 1.5.0
load ../helpers

setup() {
	deferred_setup "$PROGS" deep shlib threads
}

teardown() {
	instance_teardown
}

ustack() {
	"$USTACK" -B "$NAME" -q -e syscalls:sys_enter_getppid "$@"
}

@test "deferred: no fallback notice, cookies answered" {
	run --separate-stderr "$USTACK" -B "$NAME" -e syscalls:sys_enter_getppid -- "$PROGS/deep" 3
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"no deferred user stacks"* ]]
	[[ "$stderr" == *"stacks lost:          0"* ]]
}

@test "deferred: deep chain has all 20 frames then main" {
	run --separate-stderr ustack -- "$PROGS/deep" 3
	[ "$status" -eq 0 ]
	[ "$(first_stack <<< "$output" | head -21)" = "$( (deep_chain 20; echo main))" ]
	run --separate-stderr ustack --folded -- "$PROGS/deep" 3
	want="$(deep_chain 20 | tac | paste -sd';')"
	[[ "$output" == "deep;"*"main;$want 3" ]]
}

@test "deferred: shared library chain" {
	run --separate-stderr ustack --folded -- "$PROGS/shlib" 3
	[ "$status" -eq 0 ]
	[[ "$output" == "shlib;"*"main;app_call;lib_outer;lib_middle;lib_inner 3" ]]
}

@test "deferred: threads keep their own chains" {
	run --separate-stderr ustack --folded -- "$PROGS/threads" 3
	[ "$status" -eq 0 ]
	for x in alpha beta gamma; do
		grep -q "${x}_thread;${x}_1;${x}_2;leaf_syscall 3\$" <<< "$output" ||
			{ echo "no $x chain"; return 1; }
	done
}

@test "deferred: --kernel puts kernel frames before the user frames" {
	run --separate-stderr ustack --kernel -- "$PROGS/deep" 1
	[ "$status" -eq 0 ]
	grep -qiE 'do_syscall_64|entry_SYSCALL|x64_sys_call' <<< "$output"
	[[ "$output" == *"chain_01+0x"* ]]
}

@test "deferred: folded keeps the same frames of two commands apart (shlib and a link to it)" {
	# Deferred frames of one file share its announcement, whatever the
	# process: only the root (comm) tells these lines apart.
	ln -s "$PROGS/shlib" "$TMP/other"
	run --separate-stderr ustack -c --folded -- sh -c "'$PROGS/shlib' 2; '$TMP/other' 3"
	[ "$status" -eq 0 ]
	echo "$output"
	[ "$(grep -c '^shlib;.*;lib_inner 2$' <<<"$output")" -eq 1 ]
	[ "$(grep -c '^other;.*;lib_inner 3$' <<<"$output")" -eq 1 ]
}

@test "deferred: record then report equals live; stock report shows our events" {
	"$USTACK" record -B "$NAME" -q -o "$TMP/t.dat" -e syscalls:sys_enter_getppid \
		-- "$PROGS/shlib" 4 2>/dev/null
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --folded
	report="$output"
	run --separate-stderr ustack --folded -- "$PROGS/shlib" 4
	[ "$output" = "$report" ]
	run trace-cmd report -i "$TMP/t.dat"
	[ "$status" -eq 0 ]
	[[ "$output" == *"user_unwind_cookie"* ]]
	[[ "$output" == *"user_unwind_stack"* ]]
	[[ "$output" == *"inode_cache"* ]]
}

@test "deferred: SIGINT leaves no instance and a readable file" {
	# deep's 3 stacks are in the ring buffer once the shell execs sleep
	# (each was written before its syscall returned), however slow the
	# kernel (KASAN)
	"$USTACK" record -B "$NAME" -q -c -o "$TMP/int.dat" -e syscalls:sys_enter_getppid \
		-- sh -c '"$1" 3; exec sleep 600' sh "$PROGS/deep" 2>/dev/null &
	pid=$!
	child=$(child_of "$pid")
	wait_exec "$child" sleep
	kill -INT "$pid"
	# the run ended the command with SIGTERM: its status, 143
	wait "$pid" && status=0 || status=$?
	[ "$status" -eq 143 ]
	kill "$child" 2>/dev/null || true
	assert_no_instance "$NAME"
	run --separate-stderr "$USTACK" report -q -i "$TMP/int.dat" --folded
	[ "$status" -eq 0 ]
	grep -q '^deep;.*;chain_20 3$' <<< "$output"
}

@test "deferred: signal_generate and signal_deliver of one kill(2) both get its stack, none lost" {
	kchain="$ROOT/tests/progs/kernel/kchain"
	[ -x "$kchain" ]
	# signal_deliver's cookie is written after the entry's stack (the
	# unwind ran in get_signal()): the tool answers it with that stack
	run --separate-stderr "$USTACK" -B "$NAME" -e signal:signal_generate -e signal:signal_deliver \
		--folded -- "$kchain" signal 40
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"stacks lost:          0"* ]]
	# 80 SIGUSR1 events, every one with the chain down to kf_22 (where
	# kill(2) is); the SIGCHLD the exiting task generates has no stack
	chain=$(grep ';send_signals;kf_01;kf_02;.*;kf_21;kf_22 ' <<< "$output" |
		awk '{ n += $NF } END { print n + 0 }')
	[ "$chain" -eq 80 ]
	# the handler is never the leaf
	! grep -q 'ks_handler' <<< "$output"
}

# kchain wild ra: a frame whose return address is ~0UL, the last byte of
# the address space (what a bad frame pointer gives), outside every
# mapping; the kernel records it with the no-mapping id (kernel.bats).
@test "deferred: a return address of ~0 ends the walk after the whole chain, with its reason, never a garbage frame" {
	local kchain="$ROOT/tests/progs/kernel/kchain"
	[ -x "$kchain" ] || skip "tests/progs/kernel/kchain not built (make)"
	run --separate-stderr "$USTACK" -B "$NAME" -e syscalls:sys_enter_getppid --why -- "$kchain" wild ra
	echo "$output"
	[ "$status" -eq 0 ]
	# the frame-pointer walk left the code there (issue 46): the stack
	# ends in a frame that says so, counted under "unwind stopped"
	want="raw_getppid kw_3 kw_2 kw_1 kw_wild wild [unwind:"
	[ "$(first_stack <<<"$output" | awk '{print $1}' | paste -sd' ')" = "$want" ]
	[[ "$output" == *"[unwind: frame-pointer walk left the code]"* ]]
	[[ "$output" != *"0xffffffffffffffff"* ]]
	[[ "$stderr" == *"frames unresolved:    0 of 6"* ]]
	[[ "$stderr" == *"unwind stopped:       1 (frame-pointer walk left the code 1)"* ]]
}
