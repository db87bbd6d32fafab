/* SPDX-License-Identifier: GPL-2.0 */
/*
 * i386-vdso: a 32-bit (i386) program whose system calls go through the
 * vDSO's __kernel_vsyscall, as a 32-bit libc's do, so that the leaf
 * frame of each is in [vdso] (the kernel's 32-bit image, not the one a
 * 64-bit process maps). The entry comes from AT_SYSINFO (32) in the
 * auxiliary vector above envp on the initial stack; without one it exits
 * 1. getppid three times from call_getppid, then exit_group(0) by
 * int $0x80. Built by tests/bats/vdso32.bats: as --32, ld -m elf_i386.
 */
	.set	AT_NULL, 0
	.set	AT_SYSINFO, 32

	.text
	.globl	_start
_start:
	xor	%ebp, %ebp
	mov	%esp, %ecx
	mov	(%ecx), %eax		/* argc */
	lea	8(%ecx,%eax,4), %ecx	/* envp: past argv and its NULL */
1:	mov	(%ecx), %eax
	add	$4, %ecx
	test	%eax, %eax
	jnz	1b
2:	mov	(%ecx), %eax		/* auxv: (type, value) pairs */
	cmp	$AT_NULL, %eax
	je	no_sysinfo
	cmp	$AT_SYSINFO, %eax
	je	3f
	add	$8, %ecx
	jmp	2b
3:	mov	4(%ecx), %eax
	mov	%eax, vsyscall
	call	run_calls
	mov	$252, %eax		/* exit_group(0) */
	xor	%ebx, %ebx
	int	$0x80
	hlt

no_sysinfo:
	mov	$252, %eax		/* exit_group(1) */
	mov	$1, %ebx
	int	$0x80
	hlt

run_calls:
	push	%ebp
	mov	%esp, %ebp
	push	%esi
	mov	$3, %esi
1:	call	call_getppid
	dec	%esi
	jnz	1b
	pop	%esi
	pop	%ebp
	ret

call_getppid:
	push	%ebp
	mov	%esp, %ebp
	mov	$64, %eax		/* getppid() */
	call	*vsyscall
	pop	%ebp
	ret

	.bss
	.align	4
vsyscall:
	.long	0
	.section .note.GNU-stack, "", @progbits
