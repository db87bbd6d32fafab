#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The CFI unwinder (lib/ustack-unwind.c) on real stacks of this machine:
# tests/tools/ustack-unwind-test samples a program at a tracepoint with
# perf's user registers and stack copy, unwinds each sample and prints it
# with perf's own frame-pointer callchain count beside it. Programs built
# -O2 without frame pointers have a known chain, which every stack must
# show in full; the frame-pointer walk of the same samples must not
# (else these programs would prove nothing). Debian's own binaries must
# give at least the frames of perf --call-graph dwarf, same event, same
# stack copy size.

bats_require_minimum_version 1.5.0
load helpers

TOOL="$ROOT/tests/tools/ustack-unwind-test"
CFI="$ROOT/tests/progs/cfi"

# main;chain_01;...;chain_12: the end of every folded stack of cfi-chain.c
CHAIN="main;chain_01;chain_02;chain_03;chain_04;chain_05;chain_06;chain_07;chain_08;chain_09;chain_10;chain_11;chain_12"
LIBCHAIN="main;shlib_main_1;shlib_main_2;cfi_lib_1;cfi_lib_2;cfi_lib_3;cfi_lib_4;cfi_lib_5;cfi_lib_6"

setup_file() {
	build_progs
	make -s -C "$ROOT" tests/tools/ustack-unwind-test >&2
}

setup() {
	require_capture
}

# Lines of $output whose third field (how the unwind ended) is not $1.
ends_other_than() {
	awk -F'\t' -v want="$1" 'index($3, want) != 1' <<< "$output"
}

@test "unwind: -O2 without frame pointers: each of 10 stacks is complete, main..chain_12" {
	run --separate-stderr "$TOOL" --fold -- "$CFI/cfi-deep" 10
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 10 ]
	[ -z "$(ends_other_than complete)" ]
	# whole chain, nothing guessed between the start-up code and the leaf
	[ "$(grep -c "^16	[0-9]*	complete	_start;__libc_start_main;__libc_start_call_main;$CHAIN\$" <<< "$output")" -eq 10 ]
}

@test "unwind: -O2 without frame pointers: perf's frame-pointer walk of the same samples is short" {
	run --separate-stderr "$TOOL" --fold -- "$CFI/cfi-deep" 10
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 10 ]
	# 13 frames from main to chain_12: the FP walk never gets there
	[ -z "$(awk -F'\t' '$2 >= 13' <<< "$output")" ]
	[ -z "$(awk -F'\t' '$1 < 16' <<< "$output")" ]
}

@test "unwind: -O2 without frame pointers: the program's frames come from CFI" {
	run --separate-stderr "$TOOL" -- "$CFI/cfi-deep" 2
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^  #0 .* chain_12+0x[0-9a-f]* (cfi-deep) regs$' <<< "$output")" -eq 2 ]
	[ "$(grep -c '^  #[0-9]* .* (cfi-deep) cfi$' <<< "$output")" -eq 26 ]
	[ "$(grep -c ' fp$' <<< "$output")" -eq 0 ]
}

@test "unwind: through a shared library without frame pointers: each of 10 stacks is complete" {
	run --separate-stderr "$TOOL" --fold -- "$CFI/cfi-shlib" 10
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 10 ]
	[ "$(grep -c "	complete	_start;__libc_start_main;__libc_start_call_main;$LIBCHAIN\$" <<< "$output")" -eq 10 ]
	[ -z "$(awk -F'\t' '$2 >= 9' <<< "$output")" ]
}

@test "unwind: across a signal frame (-O2, no frame pointers): each of 5 stacks is complete" {
	run --separate-stderr "$TOOL" --fold -- "$CFI/cfi-signal" 5
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 5 ]
	[ "$(grep -c '	complete	_start;__libc_start_main;__libc_start_call_main;main;sig_chain_1;sig_chain_2;raise;.*;__restore_rt;handler;handler_leaf$' <<< "$output")" -eq 5 ]
	[ -z "$(awk -F'\t' '$2 >= 3' <<< "$output")" ]
}

@test "unwind: the vdso's frames: its CFI, read from this kernel's image, finds the caller" {
	run --separate-stderr "$TOOL" --event syscalls:sys_enter_clock_gettime -- \
		/usr/bin/python3 -c 'import time
for i in range(3): time.process_time()'
	echo "$output"
	[ "$status" -eq 0 ]
	# CPU-time clocks: the vdso makes the system call itself
	[ "$(grep -c '^  #0 .* __vdso_clock_gettime+0x[0-9a-f]* (\[vdso\]) regs$' <<< "$output")" -ge 3 ]
	[ "$(grep -c '^  #1 .* clock_gettime+0x[0-9a-f]* (libc.so.6) cfi$' <<< "$output")" -ge 3 ]
	[ "$(grep -c 'end: complete' <<< "$output")" -ge 3 ]
}

@test "unwind: a stack copy of 64 bytes ends every stack with 'stack copy too small'" {
	run --separate-stderr "$TOOL" --fold --stack-size 64 -- "$CFI/cfi-deep" 5
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 5 ]
	[ -z "$(ends_other_than 'stack copy too small at 0x')" ]
	# what it found is the leaf end of the chain, nothing made up
	[ -z "$(awk -F'\t' '$1 < 1 || $1 >= 16' <<< "$output")" ]
	[ "$(grep -c ';chain_11;chain_12$' <<< "$output")" -eq 5 ]
}

@test "unwind: a file without CFI but with frame pointers: complete stacks, its frames from the frame pointer" {
	run --separate-stderr "$TOOL" --fold -- "$CFI/cfi-nocfi-fp" 5
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c "	complete	_start;__libc_start_main;__libc_start_call_main;$CHAIN\$" <<< "$output")" -eq 5 ]
	run --separate-stderr "$TOOL" -- "$CFI/cfi-nocfi-fp" 1
	echo "$output"
	# chain_11 .. main and the libc frame main returns to: 13 steps from
	# frames without CFI; then libc's CFI finds _start
	[ "$(grep -c ' fp$' <<< "$output")" -eq 13 ]
	[ "$(grep -c '^  #1 .* chain_11+0x[0-9a-f]* (cfi-nocfi-fp) fp$' <<< "$output")" -eq 1 ]
}

@test "unwind: a file with neither CFI nor frame pointers: the stack ends saying so, naming the file" {
	run --separate-stderr "$TOOL" --fold -- "$CFI/cfi-nocfi-nofp" 5
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 5 ]
	[ -z "$(ends_other_than 'no CFI and no frame pointer at 0x')" ]
	[ "$(grep -c "no frame pointer at 0x[0-9a-f]* ($CFI/cfi-nocfi-nofp)	chain_12\$" <<< "$output")" -eq 5 ]
}

@test "unwind: CFI only in .debug_frame: each of 5 stacks is complete" {
	# (its .eh_frame covers the start-up code only: the next test strips
	# .debug_frame and the stack ends at chain_12)
	readelf -S "$CFI/cfi-debugframe" | grep -q ' .debug_frame '
	run --separate-stderr "$TOOL" --fold -- "$CFI/cfi-debugframe" 5
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c "	complete	_start;__libc_start_main;__libc_start_call_main;$CHAIN\$" <<< "$output")" -eq 5 ]
}

@test "unwind: .debug_frame in a separate debug file: found by build id in --debug-dir, as the symbolizer finds it" {
	local dir="$BATS_TEST_TMPDIR" id

	cp "$CFI/cfi-debugframe" "$dir/prog"
	objcopy --only-keep-debug "$dir/prog" "$dir/prog.debug"
	strip -g "$dir/prog"
	! readelf -S "$dir/prog" | grep -q debug_frame
	id=$(readelf -n "$dir/prog" | awk '/Build ID/ { print $3 }')
	mkdir -p "$dir/dbg/.build-id/${id:0:2}"
	mv "$dir/prog.debug" "$dir/dbg/.build-id/${id:0:2}/${id:2}.debug"
	# without the debug file: no CFI, and it says so
	run --separate-stderr "$TOOL" --fold -- "$dir/prog" 3
	echo "$output"
	[ "$(grep -c "	no CFI and no frame pointer at 0x[0-9a-f]* ($dir/prog)	chain_12\$" <<< "$output")" -eq 3 ]
	run --separate-stderr "$TOOL" --fold --debug-dir "$dir/dbg" -- "$dir/prog" 3
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c "	complete	_start;__libc_start_main;__libc_start_call_main;$CHAIN\$" <<< "$output")" -eq 3 ]
}

@test "unwind: --symfs: the CFI of the file under the symfs tree is used, not the one that ran" {
	local dir="$BATS_TEST_TMPDIR"

	# the one that runs has no CFI left; the symfs copy has its .debug_frame
	cp "$CFI/cfi-debugframe" "$dir/prog"
	strip -g "$dir/prog"
	mkdir -p "$dir/symfs$dir"
	cp "$CFI/cfi-debugframe" "$dir/symfs$dir/prog"
	run --separate-stderr "$TOOL" --fold --symfs "$dir/symfs" -- "$dir/prog" 3
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	# libc is not under the symfs: the walk may end there, not before main
	[ "$(grep -c ";$CHAIN\$" <<< "$output")" -eq 3 ]
}

# The edges of the walk's rules, one program mode each (tests/progs/cfi/cfi-edges.c)
EDGES="$CFI/cfi-edges"

@test "unwind: a return address just past its function's end (a noreturn call last): its CFI is found at pc - 1" {
	# noret_caller ends with its call: the return address is the first
	# byte after its FDE. Looked up there, main's frame would be guessed
	# from the frame pointer ("fp") instead of noret_caller's CFI.
	run --separate-stderr "$TOOL" -- "$EDGES" noreturn 3
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c 'end: complete' <<< "$output")" -eq 3 ]
	[ "$(grep -c '^  #1 .* noret_caller+0x[0-9a-f]* (cfi-edges) cfi$' <<< "$output")" -eq 3 ]
	[ "$(grep -c '^  #2 .* main+0x[0-9a-f]* (cfi-edges) cfi$' <<< "$output")" -eq 3 ]
	[ "$(grep -c ' fp$' <<< "$output")" -eq 0 ]
}

@test "unwind: a library constructor run by the dynamic linker: the stack is complete at ld.so's _start, which has no CFI" {
	run --separate-stderr "$TOOL" -- "$CFI/cfi-ctor"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^sample [0-9]*: 6 frames, perf fp [0-9]*, end: complete$' <<< "$output")" -eq 3 ]
	[ "$(grep -c '^  #2 .* ctor+0x[0-9a-f]* (libustack-cfi-ctor.so) cfi$' <<< "$output")" -eq 3 ]
	# then ld.so's call_init and _dl_init, and the outermost frame: the
	# return address into its entry code (named only with libc6-dbg)
	[ "$(grep -c '^  #5 .* (ld-linux-x86-64.so.2) cfi$' <<< "$output")" -eq 3 ]
}

@test "unwind: a handler on an alternate stack above the interrupted code: the frame after the signal frame is not taken for a loop" {
	# the caller's frame below the callee's ends a walk as a loop, except
	# right after a signal frame: the handler ran on another stack
	run --separate-stderr "$TOOL" --fold -- "$EDGES" altstack 3
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	[ -z "$(ends_other_than complete)" ]
	[ "$(grep -c '^4	[0-9]*	complete	outer_raise;__restore_rt;handler;handler_leaf$' <<< "$output")" -eq 3 ]
}

@test "unwind: a frame pointer that leads outside every file ends the stack at the frame without CFI, nothing made up" {
	# leaf_nocfi has no CFI; its %rbp points at a record whose return
	# address (0x1000) is in no file: that is no frame, but the end
	run --separate-stderr "$TOOL" --fold -- "$EDGES" fp-nofile 3
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	[ "$(grep -c "^1	[0-9]*	no CFI and no frame pointer at 0x[0-9a-f]* ($EDGES)	leaf_nocfi\$" <<< "$output")" -eq 3 ]
}

@test "unwind: a CFI step that could not read a register it restores (past the copy) ends the stack, though it read the return address" {
	# leaf_lostreg saves %rbx above its return address: a copy of 8
	# bytes holds the return address, not %rbx. What the next steps
	# would rest on is lost: the stack ends at the leaf, saying why.
	run --separate-stderr "$TOOL" --fold --stack-size 8 -- "$EDGES" lostreg 3
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	[ "$(grep -c '^1	[0-9]*	stack copy too small at 0x[0-9a-f]*	leaf_lostreg$' <<< "$output")" -eq 3 ]
	# with %rbx in the copy too, the step is made
	run --separate-stderr "$TOOL" --fold --stack-size 16 -- "$EDGES" lostreg 3
	echo "$output"
	[ "$(grep -c '^2	[0-9]*	stack copy too small at 0x[0-9a-f]*	lostreg_caller;leaf_lostreg$' <<< "$output")" -eq 3 ]
}

@test "unwind: a stack copy that ends exactly with a return address: that last word is read" {
	local size

	# the program says how far its return address into main lies
	size=$("$EDGES" copyend 1 2>&1 | awk '/^copyend/ { print $2 }')
	echo "size $size"
	[ -n "$size" ]
	run --separate-stderr "$TOOL" --fold --stack-size "$size" -- "$EDGES" copyend 3
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	[ "$(grep -c '^3	[0-9]*	stack copy too small at 0x[0-9a-f]*	main;copy_outer;copy_leaf$' <<< "$output")" -eq 3 ]
	# 8 bytes less and main is out of reach: the word is the copy's last
	run --separate-stderr "$TOOL" --fold --stack-size $((size - 8)) -- "$EDGES" copyend 3
	echo "$output"
	[ "$(grep -c '^2	[0-9]*	stack copy too small at 0x[0-9a-f]*	copy_outer;copy_leaf$' <<< "$output")" -eq 3 ]
}

# perf_vs_ours EVENT CMD...: "PERF OURS", average frames per stack of
# perf --call-graph dwarf,8192 + perf script, and of the unwinder, on the
# same event. perf's frames: its lines less inlined ones (same address as
# the line before) and its "ffffffffffffffff" end marker. -B -N: perf's
# build-id cache in ~/.debug is shared with every other run on the host.
perf_vs_ours() {
	local ev="$1" perf ours try

	shift
	# perf 6.1's script now and then dies on its own recording (a
	# build-id assertion, stack smashing), more often beside other runs:
	# three tries before its side counts as none
	for try in 1 2 3; do
		perf=$(perf_frames "$ev" "$@")
		[ "$perf" = none ] || break
	done
	ours=$("$TOOL" --stats --stack-size 8192 --event "$ev" -- "$@" 2>&1 > /dev/null |
	       awk '/^samples/ { print $6 }')
	echo "$perf $ours"
}

# perf_frames EVENT CMD...: perf's average frames per stack, or "none";
# when none, what perf record and perf script said goes to stderr (the
# test's output), so that a failure names its cause
perf_frames() {
	local ev="$1" dir="$BATS_TEST_TMPDIR" rc res

	shift
	perf record -B -N -e "$ev" --call-graph dwarf,8192 -o "$dir/perf.data" -- "$@" \
		> /dev/null 2> "$dir/perf.err"
	rc=$?
	res=$(perf script -i "$dir/perf.data" -F comm,ip 2> "$dir/script.err" |
		awk '/^[^ \t]/ { s++; prev = ""; next }
		     /^[ \t]+[0-9a-f]+/ { if ($1 != prev && $1 != "ffffffffffffffff") f++; prev = $1 }
		     END { if (s) printf "%.2f", f / s; else print "none" }')
	if [ "$res" = none ]; then
		echo "# perf record exit $rc, $(stat -c %s "$dir/perf.data" 2>/dev/null) bytes:" \
		     "$(tr '\n' ' ' < "$dir/perf.err")" >&2
		echo "# perf script: $(tail -n 3 "$dir/script.err" | tr '\n' ' ')" >&2
	fi
	echo "$res"
}

# at_least A B: A >= B as numbers
at_least() {
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'
}

debian_vs_perf() {
	local res

	command -v perf > /dev/null || skip "no perf"
	res=$(perf_vs_ours "$@")
	echo "perf ours: $res"
	[ "${res%% *}" != none ]
	at_least "${res#* }" "${res%% *}"
	# and far beyond the frame-pointer walk
	at_least "${res#* }" 3
}

@test "unwind: python3 (Debian, no frame pointers): at least perf --call-graph dwarf's frames per stack" {
	debian_vs_perf syscalls:sys_enter_openat /usr/bin/python3 -c 'import json'
}

@test "unwind: bash (Debian): at least perf --call-graph dwarf's frames per stack" {
	debian_vs_perf syscalls:sys_enter_openat /bin/bash -c 'for i in {1..20}; do : < /dev/null; done'
}

@test "unwind: ls -R (Debian): at least perf --call-graph dwarf's frames per stack" {
	debian_vs_perf syscalls:sys_enter_openat /bin/ls -R /usr/share/doc/bash
}

@test "unwind: gzip (Debian): at least perf --call-graph dwarf's frames per stack" {
	debian_vs_perf syscalls:sys_enter_write /bin/gzip -1 -c /usr/bin/bash
}
