/* SPDX-License-Identifier: GPL-2.0 */
/*
 * i386-calls: a 32-bit (i386) program that makes its system calls with
 * int $0x80, so that it needs no 32-bit libc (Debian's gcc-multilib is
 * often missing): getppid three times, write once, exit_group. Their
 * i386 numbers (64, 4, 252) are other calls on x86-64 (semget, newstat,
 * ioprio_get). Each call is made from its own function, frame pointer
 * kept, for a known chain: _start, run_calls, call_getppid or call_write.
 * Built by tests/bats/syscalls-compat.bats: as --32, ld -m elf_i386.
 */
	.text
	.globl	_start
_start:
	xor	%ebp, %ebp
	call	run_calls
	mov	$252, %eax		/* exit_group(0) */
	xor	%ebx, %ebx
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
	call	call_write
	pop	%esi
	pop	%ebp
	ret

call_getppid:
	push	%ebp
	mov	%esp, %ebp
	mov	$64, %eax		/* getppid() */
	int	$0x80
	pop	%ebp
	ret

call_write:
	push	%ebp
	mov	%esp, %ebp
	push	%ebx
	mov	$4, %eax		/* write(1, msg, 3) */
	mov	$1, %ebx
	mov	$msg, %ecx
	mov	$3, %edx
	int	$0x80
	pop	%ebx
	pop	%ebp
	ret

	.section .rodata
msg:	.ascii	"hi\n"
	.section .note.GNU-stack, "", @progbits
