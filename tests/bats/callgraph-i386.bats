#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Stacks of a 32-bit (i386) task on x86-64: never worse than perf record
# -g's. With the default --call-graph=auto a 32-bit program gets the
# kernel's frame-pointer walk (which walks compat frames, as perf's), and
# its stack copies (--call-graph=dwarf) are unwound with i386 CFI, not as
# x86-64 frames. tests/progs/compat/i386-chain.s (as --32, ld -m
# elf_i386: no 32-bit libc needed) keeps frame pointers and CFI, or with
# NOFP the CFI only: getppid twice under _start, chain_a, chain_b,
# chain_c, chain_leaf. Its system calls are raw_syscalls' (the
# syscalls:* events skip compat calls).

bats_require_minimum_version 1.5.0
load helpers

CHAIN_STACK='i386-chain;_start;chain_a;chain_b;chain_c;chain_leaf'

setup_file() {
	build_progs
	I386="$BATS_FILE_TMPDIR/i386-chain"
	if as --32 -o "$BATS_FILE_TMPDIR/i386-chain.o" "$PROGS/compat/i386-chain.s" &&
	   ld -m elf_i386 --eh-frame-hdr -o "$I386" "$BATS_FILE_TMPDIR/i386-chain.o" &&
	   "$I386"; then
		export I386
	fi
	NOFP="$BATS_FILE_TMPDIR/i386-nofp"
	if as --32 --defsym NOFP=1 -o "$BATS_FILE_TMPDIR/i386-nofp.o" \
		"$PROGS/compat/i386-chain.s" &&
	   ld -m elf_i386 --eh-frame-hdr -o "$NOFP" "$BATS_FILE_TMPDIR/i386-nofp.o" &&
	   "$NOFP"; then
		export NOFP
	fi
}

setup() {
	[ "$(uname -m)" = x86_64 ] || skip "i386 tasks: an x86-64 kernel's"
	[ -n "${I386:-}" ] && [ -n "${NOFP:-}" ] || skip "no i386 program: as --32, ld -m elf_i386 or ia32 emulation missing"
	capture_setup
}

teardown() {
	instance_teardown
}

# copies_here: the run's source takes stack copies (perf, or a deferred
# kernel with user_stack_copy_size); the userstacktrace option takes none
copies_here() {
	[ "$(stack_source)" != userstacktrace ]
}

@test "i386 program by default: the kernel's frame-pointer walk, whole chain to _start, notice says why" {
	# the kernel's userstacktrace reads 64-bit frames: a compat task's end
	# after the leaf (Documentation/kernel-abi.md)
	copies_here || skip "userstacktrace: the kernel walks no 32-bit frames"
	run --separate-stderr "$USTACK" -B "$NAME" --folded -- "$I386"
	[ "$status" -eq 0 ]
	echo "$output"
	echo "$stderr"
	grep -qxF "$CHAIN_STACK 2" <<< "$output"
	! grep -qF '[unwind:' <<< "$output" || false
	[[ "$stderr" == *"--call-graph=auto: $I386 is a 32-bit (i386) program: the kernel's frame-pointer walk"* ]]
}

@test "i386 program by default: the same stacks as perf record -g (skipped where perf fails)" {
	copies_here || skip "userstacktrace: the kernel walks no 32-bit frames"
	command -v perf > /dev/null || skip "no perf"
	has_deferred && skip "the patched kernel: its tests are in tests/bats/vm/"
	(cd "$TMP" && perf record -q -B -N -e raw_syscalls:sys_enter --filter 'id == 64' -g \
		-o "$TMP/perf.data" -- "$I386") > /dev/null 2> "$TMP/perf.err" ||
		skip "perf record failed: $(head -1 "$TMP/perf.err")"
	# perf's samples folded as ours: comm;root;...;leaf, user frames only
	perf script -i "$TMP/perf.data" -F comm,ip,sym 2> /dev/null | awk '
		function done() { if (s != "") n[s]++; s = "" }
		/^[^ \t]/ { done(); s = $1; next }
		/^[ \t]+[0-9a-f]+ / { if ($1 !~ /^ffffffff/) f[++k] = $2; next }
		{ for (i = k; i >= 1; i--) s = s ";" f[i]; k = 0; done() }
		END { for (i = k; i >= 1; i--) s = s ";" f[i]; done()
		      for (x in n) print x, n[x] }' > "$TMP/perf.folded"
	cat "$TMP/perf.folded"
	[ -s "$TMP/perf.folded" ] || skip "perf script gave no samples"
	run --separate-stderr "$USTACK" -B "$NAME" --folded -- "$I386"
	[ "$status" -eq 0 ]
	echo "$output"
	while read -r line; do
		grep -qxF "$line" <<< "$output"
	done < "$TMP/perf.folded"
}

@test "i386 program without frame pointers, --call-graph=dwarf: unwound with i386 CFI to _start" {
	copies_here || skip "userstacktrace: no stack copies"
	run --separate-stderr "$USTACK" -B "$NAME" --call-graph=dwarf --folded -- "$NOFP"
	[ "$status" -eq 0 ]
	echo "$output"
	echo "$stderr"
	grep -qxF "${CHAIN_STACK/i386-chain/i386-nofp} 2" <<< "$output"
	grep -qxF 'i386-nofp;_start 1' <<< "$output"
	! grep -qF '[unwind:' <<< "$output" || false
	[[ "$stderr" != *"unwind stopped:"* ]]
	# the chain is the CFI's: its frame pointers lead nowhere
	run --separate-stderr "$USTACK" -B "$NAME" --call-graph=fp --folded -- "$NOFP"
	[ "$status" -eq 0 ]
	! grep -qF 'chain_a' <<< "$output" || false
}

@test "i386 program recorded with --call-graph=dwarf: report unwinds its copies with i386 CFI too" {
	copies_here || skip "userstacktrace: no stack copies"
	"$USTACK" record -B "$NAME" -q --call-graph=dwarf -o "$TMP/d.dat" -- "$NOFP" \
		> /dev/null 2> "$TMP/err"
	# report has the registers only: their code segment says 32-bit
	run --separate-stderr "$USTACK" report -i "$TMP/d.dat" --folded
	[ "$status" -eq 0 ]
	echo "$output"
	grep -qxF "${CHAIN_STACK/i386-chain/i386-nofp} 2" <<< "$output"
	! grep -qF '[unwind:' <<< "$output" || false
}

@test "a 64-bit process, then its exec of an i386 program, --call-graph=dwarf: each by its own machine" {
	copies_here || skip "userstacktrace: no stack copies"
	run --separate-stderr "$USTACK" -B "$NAME" -c --call-graph=dwarf --folded --event-root -- \
		sh -c "'$PROGS/deep' 2 && '$NOFP' && exec '$NOFP'"
	[ "$status" -eq 0 ]
	echo "$output"
	grep -q '^sys_enter_getppid;deep;.*chain_20 2$' <<< "$output"
	grep -qxF "sys_enter_getppid;${CHAIN_STACK/i386-chain/i386-nofp} 4" <<< "$output"
	! grep -F 'i386-nofp;' <<< "$output" | grep -qF '[unwind:' || false
}
