#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# --call-graph=auto, the default (issue 46, item 1), on this machine's
# stock kernel: with no unwinding flag, Debian's own binaries (built
# without frame pointers) get stack copies unwound with CFI, and their
# stacks reach _start as often as perf record --call-graph dwarf's of the
# same event; a program built with frame pointers keeps the kernel's
# frame-pointer walk. One small workload and one event a test.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	[ -x "$USTACK" ] || make -s -C "$ROOT" tracecmd/trace-cmd-ustack >&2
	# main -> mid_a -> leaf_b -> getppid(), every function of ours with %rbp set up
	cat > "$BATS_FILE_TMPDIR/fpprog.c" <<-'EOF'
	#include <stdlib.h>
	#include <unistd.h>
	__attribute__((noinline)) int leaf_b(int n)
	{
		int r = 0;

		for (int i = 0; i < n; i++)
			r += getppid();
		return r;
	}
	__attribute__((noinline)) int mid_a(int n) { return leaf_b(n) + 1; }
	/*
	 * getppid with %rbp at a frame whose return address is the
	 * instruction after the syscall: in the code, after no call
	 */
	static unsigned long fake[2];
	__attribute__((noinline)) long fake_frame(void)
	{
		long ret;

		asm volatile("lea 1f(%%rip), %%rax\n\t"
			     "mov %%rax, 8(%1)\n\t"
			     "movq $0, (%1)\n\t"
			     "push %%rbp\n\t"
			     "mov %1, %%rbp\n\t"
			     "mov $110, %%eax\n\t"
			     "syscall\n"
			     "1:\tpop %%rbp\n\t"
			     : "=&a"(ret) : "r"(fake) : "rcx", "r11", "memory");
		return ret;
	}
	int main(int argc, char **argv)
	{
		if (argc > 2)
			return fake_frame() == 0;
		return mid_a(argc > 1 ? atoi(argv[1]) : 1) == 0;
	}
	EOF
	gcc -O1 -fno-omit-frame-pointer -o "$BATS_FILE_TMPDIR/fpprog" "$BATS_FILE_TMPDIR/fpprog.c"
	gcc -O1 -fomit-frame-pointer -o "$BATS_FILE_TMPDIR/nofpprog" "$BATS_FILE_TMPDIR/fpprog.c"
}

setup() {
	perf_host_setup
}

teardown() {
	instance_teardown
}

# A stack reaches _start when its root is _start (the program's, or
# ld.so's, whose _dl_start_user is its second half), or when the root
# calls __libc_start_main: the _start of a stripped program, which has no
# name ([ls] in our frames, [unknown] in perf's)

# perf_reach COMM EVENT CMD...: "REACHED STACKS" of perf record
# --call-graph dwarf's samples of COMM. perf 6.1's script now and then
# dies on its own recording: three tries. -B -N: no build-id cache shared
# with other runs.
perf_reach() {
	local comm="$1" ev="$2" dir="$BATS_TEST_TMPDIR" try res

	shift 2
	for try in 1 2 3; do
		(cd "$TMP" && perf record -B -N -e "$ev" --call-graph dwarf,8192 \
			-o "$dir/perf.data" -- "$@") > /dev/null 2> "$dir/perf.err"
		res=$(perf script -i "$dir/perf.data" -F comm,ip,sym 2> /dev/null |
			awk -v comm="$comm" '
				function done() {
					if (inside && (last == "_start" || last == "_dl_start_user" ||
						       before ~ /^__libc_start_main/))
						r++
					inside = 0
				}
				/^[^ \t]/ { done(); inside = $1 == comm; n += inside
					     last = before = ""; next }
				/^[ \t]+[0-9a-f]+ / { before = last; last = $2; next }
				{ done() }
				END { done(); if (n) print r + 0, n; else print "none" }')
		[ "$res" = none ] || break
	done
	echo "$res"
}

# ours_reach COMM EVENT CMD...: the same of the tool with no unwinding
# flag (its folded stacks: comm;root;...;leaf count); its notice to
# $BATS_TEST_TMPDIR/notice
ours_reach() {
	local comm="$1" ev="$2"

	shift 2
	(cd "$TMP" && "$USTACK" -B "$NAME" --folded -e "$ev" -- "$@") \
		2> "$BATS_TEST_TMPDIR/notice" |
		awk -v comm="$comm" 'index($0, comm ";") == 1 {
				n += $NF
				split($0, f, ";")
				if (f[2] == "_start" || f[2] == "_dl_start_user" ||
				    f[3] ~ /^__libc_start_main/)
					r += $NF
			}
			END { print r + 0, n + 0 }'
}

# debian_reach COMM EVENT CMD...: ours reach _start as often as perf's
# (a share at least perf's), and the notice says why copies were taken
debian_reach() {
	local comm="$1" perf ours

	perf=$(perf_reach "$@")
	ours=$(ours_reach "$@")
	echo "perf: $perf ours: $ours"
	cat "$BATS_TEST_TMPDIR/notice"
	[ "$perf" != none ]
	[ "${ours#* }" -gt 0 ]
	# ours_reached / ours_stacks >= perf_reached / perf_stacks
	[ $(( ${ours% *} * ${perf#* } )) -ge $(( ${perf% *} * ${ours#* } )) ]
	grep -q -- "--call-graph=auto: .* has no frame pointers (.*): stack copies unwound with the files' CFI" \
		"$BATS_TEST_TMPDIR/notice"
}

@test "auto: Debian's python3 reaches _start as often as perf --call-graph dwarf" {
	debian_reach python3 syscalls:sys_enter_openat /usr/bin/python3 -c pass
}

@test "auto: Debian's bash reaches _start as often as perf --call-graph dwarf" {
	debian_reach bash syscalls:sys_enter_openat /bin/bash -c ': < /dev/null; : < /dev/null'
}

@test "auto: Debian's git reaches _start as often as perf --call-graph dwarf" {
	debian_reach git syscalls:sys_enter_openat /usr/bin/git --version
}

@test "auto: Debian's gzip reaches _start as often as perf --call-graph dwarf" {
	cp /etc/services "$TMP/in"
	debian_reach gzip syscalls:sys_enter_write /bin/gzip -1 -f -k "$TMP/in"
}

@test "auto: Debian's ls reaches _start as often as perf --call-graph dwarf" {
	debian_reach ls syscalls:sys_enter_openat /bin/ls -R /usr/share/doc/bash
}

@test "auto: a program built with frame pointers keeps the frame-pointer walk, and the notice says why" {
	run --separate-stderr "$USTACK" -B "$NAME" --folded -e syscalls:sys_enter_getppid \
		-- "$BATS_FILE_TMPDIR/fpprog" 3
	[ "$status" -eq 0 ]
	echo "$stderr"
	[[ "$stderr" == *"stacks from perf events, synchronous"*"--call-graph=auto: $BATS_FILE_TMPDIR/fpprog keeps frame pointers ("*" functions set %rbp up): the kernel's frame-pointer walk"* ]]
	[[ "$stderr" != *"stack copies"* ]]
	grep -q '^fpprog;.*main;mid_a;getppid 3$' <<< "$output"
	# the same code built without frame pointers takes copies: leaf_b found by CFI
	run --separate-stderr "$USTACK" -B "$NAME" -q --folded -e syscalls:sys_enter_getppid \
		-- "$BATS_FILE_TMPDIR/nofpprog" 3
	[ "$status" -eq 0 ]
	grep -q '^nofpprog;_start;.*main;mid_a;leaf_b;getppid 3$' <<< "$output"
}

@test "auto: fp and dwarf can still be forced, and the notice says no auto decision" {
	run --separate-stderr "$USTACK" -B "$NAME" --call-graph=dwarf -q --folded \
		-e syscalls:sys_enter_getppid -- "$BATS_FILE_TMPDIR/fpprog" 1
	[ "$status" -eq 0 ]
	grep -q '^fpprog;_start;.*main;mid_a;leaf_b;getppid 1$' <<< "$output"
	run --separate-stderr "$USTACK" -B "$NAME" --call-graph=fp --folded \
		-e syscalls:sys_enter_getppid -- "$BATS_FILE_TMPDIR/nofpprog" 1
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"--call-graph=auto"* ]]
	[[ "$stderr" == *"stacks from perf events, synchronous"* ]]
	run "$USTACK" --call-graph=bogus -- true
	[ "$status" -ne 0 ]
	[[ "$output" == *"bad --call-graph 'bogus' (want auto, fp or dwarf[,SIZE])"* ]]
}

@test "auto: a frame-pointer walk through code without frame pointers ends in [unwind: ...], no garbage frame" {
	run --separate-stderr "$USTACK" -B "$NAME" --call-graph=fp --folded \
		-e syscalls:sys_enter_openat -- /usr/bin/python3 -c pass
	[ "$status" -eq 0 ]
	echo "$stderr"
	grep -q '^python3;\[unwind: frame-pointer walk left the code\];' <<< "$output"
	# no frame read off the stack as a return address: none unresolved
	[[ "$stderr" == *"frames unresolved:    0 of "* ]]
	[[ "$stderr" == *"unwind stopped:       "*"(frame-pointer walk left the code "* ]]
}

@test "auto: a frame-pointer walk to a return address after no call instruction ends in [unwind: ...]" {
	run --separate-stderr "$USTACK" -B "$NAME" -q --folded -e syscalls:sys_enter_getppid \
		-- "$BATS_FILE_TMPDIR/fpprog" 1 fake
	[ "$status" -eq 0 ]
	echo "$output"
	[ "$output" = "fpprog;[unwind: frame-pointer walk: return address after no call];fake_frame 1" ]
}
