#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The default event set's names for a 32-bit (i386 compat) task on
# x86-64: raw_syscalls:sys_enter's id is then an i386 number, named from
# the i386 table once the task's files say it is 32-bit (ELFCLASS32,
# EM_386), never from the 64-bit table (i386's getppid, 64, is x86-64's
# semget). tests/progs/compat/i386-calls.s makes its calls with int $0x80
# and needs no 32-bit libc: as --32 and ld -m elf_i386 build it here.
# Runs on any stack source (USTACK_SOURCE); the perf source walks frame
# pointers (--call-graph=fp): its CFI unwinder reads x86-64 registers.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	build_progs
	I386="$BATS_FILE_TMPDIR/i386-calls"
	if as --32 -o "$BATS_FILE_TMPDIR/i386-calls.o" "$PROGS/compat/i386-calls.s" &&
	   ld -m elf_i386 -o "$I386" "$BATS_FILE_TMPDIR/i386-calls.o" &&
	   [ "$("$I386")" = hi ]; then
		export I386
	fi
}

setup() {
	[ "$(uname -m)" = x86_64 ] || skip "i386 tasks: an x86-64 kernel's"
	[ -n "${I386:-}" ] || skip "no i386 program: as --32, ld -m elf_i386 or ia32 emulation missing"
	capture_setup
	CG=
	[ "$(stack_source)" != perf ] || CG=--call-graph=fp
}

teardown() {
	instance_teardown
}

# folded_i386 OUTPUT: its lines of i386-calls' calls, as expected
check_i386_folded() {
	echo "$1"
	grep -qE '^sys_enter_getppid;i386-calls;(_start;run_calls;)?call_getppid 3$' <<< "$1"
	grep -qE '^sys_enter_write;i386-calls;(_start;run_calls;)?call_write 1$' <<< "$1"
	grep -qE '^sys_enter_exit_group;i386-calls;_start 1$' <<< "$1"
	# the 64-bit table's names of 64, 4 and 252
	! grep -qE 'sys_enter_(semget|newstat|ioprio_get)' <<< "$1" || false
}

@test "i386 task live: its calls named from the i386 table in stacks and folded (getppid, not semget)" {
	run --separate-stderr "$USTACK" -B "$NAME" -q $CG -- "$I386"
	[ "$status" -eq 0 ]
	echo "$output"
	[ "$(grep -cE '^ *i386-calls-[0-9]+ +\[[0-9]+\] +[0-9.]+: sys_enter_getppid: NR 64 ' \
		<<< "$output")" -eq 3 ]
	[ "$(grep -cE ': sys_enter_write: NR 4 ' <<< "$output")" -eq 1 ]
	[ "$(grep -cE ': sys_enter_exit_group: NR 252 ' <<< "$output")" -eq 1 ]
	! grep -qE 'sys_enter_(semget|newstat|ioprio_get)' <<< "$output" || false
	run --separate-stderr "$USTACK" -B "$NAME" -q $CG --folded --event-root -- "$I386"
	[ "$status" -eq 0 ]
	check_i386_folded "$output"
}

@test "i386 task recorded: report names its calls from the i386 table, -e takes an i386-only name" {
	"$USTACK" record -B "$NAME" -q $CG -o "$TMP/c.dat" -- "$I386" > /dev/null 2> "$TMP/err"
	run --separate-stderr "$USTACK" report -q -i "$TMP/c.dat" --folded --event-root
	[ "$status" -eq 0 ]
	check_i386_folded "$output"
	run --separate-stderr "$USTACK" report -i "$TMP/c.dat" --folded -e syscalls:sys_enter_getppid
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"(shown: 3)"* ]]
	# only the i386 table has it (22): taken, though no call of the file is one
	run --separate-stderr "$USTACK" report -i "$TMP/c.dat" --folded -e syscalls:sys_enter_oldumount
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"(shown: 0)"* ]]
}

@test "a 64-bit and an i386 task in one run: each call from its own table, one event per name" {
	"$USTACK" record -B "$NAME" -q $CG -o "$TMP/c.dat" -- \
		sh -c "'$I386' && '$PROGS/deep' 2" > /dev/null 2> "$TMP/err"
	run --separate-stderr "$USTACK" report -q -i "$TMP/c.dat" --folded --event-root
	[ "$status" -eq 0 ]
	check_i386_folded "$output"
	grep -q '^sys_enter_getppid;deep;.*chain_20 2$' <<< "$output"
	# i386's 64 and x86-64's 110 are one syscalls:sys_enter_getppid
	run --separate-stderr "$USTACK" report -i "$TMP/c.dat" --top=1 -e syscalls:sys_enter_getppid
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" =~ ^"# "[0-9]+" events: syscalls:sys_enter_getppid "[0-9]+$ ]]
	run --separate-stderr "$USTACK" report -i "$TMP/c.dat" --perf-script -e syscalls:sys_enter_getppid
	[ "$(grep -c ': 1 syscalls:sys_enter_getppid:$' <<< "$output")" -ge 5 ]
}
