/* SPDX-License-Identifier: GPL-2.0 */
/*
 * i386-chain: a 32-bit (i386) program with a known call chain, five
 * deep, each function keeping its frame pointer (push %ebp; mov
 * %esp,%ebp) and described by CFI (.cfi_* directives: an .eh_frame),
 * as gcc -m32 would build it; with --defsym NOFP=1, without frame
 * pointers (%ebp garbage in the leaf), as gcc -m32 -O2 would. No 32-bit libc: its system calls are
 * int $0x80. The leaf makes getppid (i386: 64) twice, then the program
 * exits with exit_group (252). Known stack of each getppid:
 * chain_leaf, chain_c, chain_b, chain_a, _start.
 * Built by tests/bats/callgraph-i386.bats: as --32, ld -m elf_i386.
 */
	.text
	.globl	_start
_start:
	.cfi_startproc
	.cfi_undefined eip
	xor	%ebp, %ebp
	call	chain_a
	mov	$252, %eax		/* exit_group(0) */
	xor	%ebx, %ebx
	int	$0x80
	hlt
	.cfi_endproc

/*
 * Each caller's frame: push %ebp; mov %esp,%ebp; a local; call. Built
 * with --defsym NOFP=1: no frame pointer, the CFI alone describes it.
 */
	.macro	caller name, callee
\name:
	.cfi_startproc
.ifdef NOFP
	push	$0x5a5a5a5a		/* a local */
	.cfi_def_cfa_offset 8
	call	\callee
	add	$4, %esp
	.cfi_def_cfa_offset 4
.else
	push	%ebp
	.cfi_def_cfa_offset 8
	.cfi_offset ebp, -8
	mov	%esp, %ebp
	.cfi_def_cfa_register ebp
	push	$0x5a5a5a5a		/* a local: the frame is not just ebp, eip */
	call	\callee
	leave
	.cfi_def_cfa esp, 4
.endif
	ret
	.cfi_endproc
	.endm

	caller	chain_a, chain_b
	caller	chain_b, chain_c
	caller	chain_c, chain_leaf

chain_leaf:
	.cfi_startproc
	push	%ebp
	.cfi_def_cfa_offset 8
	.cfi_offset ebp, -8
.ifdef NOFP
	mov	$0x5a5a5a5a, %ebp	/* no frame pointer: a walk by it goes astray */
.else
	mov	%esp, %ebp
	.cfi_def_cfa_register ebp
.endif
	mov	$64, %eax		/* getppid() */
	int	$0x80
	mov	$64, %eax		/* getppid() */
	int	$0x80
	pop	%ebp
	.cfi_def_cfa esp, 4
	ret
	.cfi_endproc

	.section .note.GNU-stack, "", @progbits
