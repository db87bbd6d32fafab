#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The [vdso] of a 32-bit (i386) task on x86-64 is the kernel's 32-bit
# image: no file holds it, and the one this 64-bit tool maps (which names
# a 64-bit task's vdso frames when live) is another. Its frames are
# [unknown] "32-bit vdso: no image", live and in a report, counted in the
# summary under that reason: never a name of the 64-bit image
# (__vdso_clock_gettime, __vdso_getcpu...) nor its "stripped". The ABI is
# the one the task's files say (ELFCLASS32). tests/progs/compat/i386-vdso.s
# (as --32, ld -m elf_i386: no 32-bit libc needed) calls getppid three
# times through AT_SYSINFO's __kernel_vsyscall, so that the leaf of each
# call is in [vdso].

bats_require_minimum_version 1.5.0
load helpers

REASON='32-bit vdso: no image'

setup_file() {
	build_progs
	I386V="$BATS_FILE_TMPDIR/i386-vdso"
	if as --32 -o "$BATS_FILE_TMPDIR/i386-vdso.o" "$PROGS/compat/i386-vdso.s" &&
	   ld -m elf_i386 -o "$I386V" "$BATS_FILE_TMPDIR/i386-vdso.o" &&
	   "$I386V"; then
		export I386V
	fi
}

setup() {
	[ "$(uname -m)" = x86_64 ] || skip "i386 tasks: an x86-64 kernel's"
	[ -n "${I386V:-}" ] || skip "no i386 program with AT_SYSINFO: as --32, ld -m elf_i386 or ia32 emulation missing"
	capture_setup
	# its walk of a 32-bit task ends at the leaf: no file of the stack
	# says the ABI of a [vdso]-only stack (a known gap)
	[ "$(stack_source)" != userstacktrace ] || skip "userstacktrace: a 32-bit task's stack is its [vdso] leaf alone"
}

teardown() {
	instance_teardown
}

# check_i386_vdso OUTPUT: the three getppid leaves of i386-vdso are
# [unknown] in [vdso] with the reason; no frame of it is named in [vdso]
check_i386_vdso() {
	echo "$1"
	[ "$(grep -cE "^  \[unknown\] \(\[vdso\]\+0x[0-9a-f]+\) # $REASON\$" <<< "$1")" -eq 3 ]
	! grep -E '^  [^[ ].* \(\[vdso\]\)' <<< "$1" || false
	! grep -qE '__vdso_|stripped' <<< "$1" || false
}

@test "i386 task live: its [vdso] leaves are [unknown] '$REASON', summary counts them, no 64-bit vdso name" {
	run --separate-stderr "$USTACK" -B "$NAME" --why -- "$I386V"
	[ "$status" -eq 0 ]
	check_i386_vdso "$output"
	echo "$stderr"
	[[ "$stderr" == *"frames unresolved:    3 of "*"($REASON 3)"* ]]
}

@test "i386 task live, --call-graph=dwarf where copies are taken: its [vdso] leaves say '$REASON' too" {
	run --separate-stderr "$USTACK" -B "$NAME" --call-graph=dwarf --folded -- "$I386V"
	[ "$status" -eq 0 ]
	echo "$output"
	echo "$stderr"
	[ "$(grep -cE '^i386-vdso;.*;\[vdso\]\+0x[0-9a-f]+ 3$' <<< "$output")" -eq 1 ]
	! grep -qF '__vdso_' <<< "$output" || false
	[[ "$stderr" == *"($REASON 3)"* ]]
}

@test "a 64-bit and an i386 task in one run: the 64-bit [vdso] still named __vdso_clock_gettime, the i386 one '$REASON'" {
	[ -x /usr/bin/python3 ] || skip "no python3"
	# CPU-time clocks: the 64-bit vdso makes the system call itself
	run --separate-stderr "$USTACK" -B "$NAME" -c --why -- sh -c \
		"/usr/bin/python3 -c 'import time
for i in range(3): time.process_time()' && '$I386V'"
	[ "$status" -eq 0 ]
	[ "$(grep -cE '^  __vdso_clock_gettime\+0x[0-9a-f]+ \(\[vdso\]\)' <<< "$output")" -ge 3 ]
	# the i386 task's events and frames, up to the next event
	check_i386_vdso "$(awk '/^ *[^ ].*-[0-9]+ +\[[0-9]+\]/ { mine = /^ *i386-vdso-/ } mine' <<< "$output")"
	[[ "$stderr" == *"$REASON 3)"* ]]
}

@test "report of a recorded i386 task: its [vdso] leaves are [unknown] '$REASON' too, not [vdso]+offset" {
	"$USTACK" record -B "$NAME" -q -o "$TMP/v.dat" -- "$I386V" > /dev/null 2> "$TMP/err" || {
		cat "$TMP/err"
		false
	}
	run --separate-stderr "$USTACK" report -i "$TMP/v.dat" --why
	[ "$status" -eq 0 ]
	check_i386_vdso "$output"
	! grep -qE '^  \[vdso\]\+0x' <<< "$output" || false
	[[ "$stderr" == *"($REASON 3)"* ]]
}
