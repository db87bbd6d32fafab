/* SPDX-License-Identifier: GPL-2.0 */
/*
 * i386-sigreturn: a 32-bit (i386) program whose SIGUSR1 handler calls
 * getppid, its handler installed without SA_RESTORER, so that it returns
 * to the kernel's sigreturn trampoline in the 32-bit [vdso]: a
 * frame-pointer walk from the call finds that [vdso] address as the
 * handler's return address, in the middle of the stack (handler, [vdso],
 * then _start, where the signal came). No 32-bit libc: int $0x80
 * throughout. Built by tests/bats/vdso32-sigreturn.bats: as --32,
 * ld -m elf_i386.
 */
	.set	SIGUSR1, 10

	.text
	.globl	_start
_start:
	xor	%ebp, %ebp
	call	run
	mov	$252, %eax		/* exit_group(0) */
	xor	%ebx, %ebx
	int	$0x80
	hlt

run:
	push	%ebp
	mov	%esp, %ebp
	mov	$174, %eax		/* rt_sigaction(SIGUSR1, &act, NULL, 8) */
	mov	$SIGUSR1, %ebx
	mov	$act, %ecx
	xor	%edx, %edx
	mov	$8, %esi
	int	$0x80
	mov	$20, %eax		/* getpid() */
	int	$0x80
	mov	%eax, %ebx
	mov	$37, %eax		/* kill(getpid(), SIGUSR1) */
	mov	$SIGUSR1, %ecx
	int	$0x80
	pop	%ebp
	ret

handler:
	push	%ebp
	mov	%esp, %ebp
	mov	$64, %eax		/* getppid() */
	int	$0x80
	pop	%ebp
	ret

	.data
	.align	4
/* the ia32 struct sigaction: handler, flags (no SA_RESTORER), restorer, mask */
act:
	.long	handler, 0, 0, 0, 0
	.section .note.GNU-stack, "", @progbits
