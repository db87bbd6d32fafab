// SPDX-License-Identifier: GPL-2.0
/*
 * Stacks at the edges of the CFI unwinder's rules (tests/bats/unwind.bats),
 * -O2 without frame pointers. Each mode makes getppid(2) N times from a
 * stack built to test one rule; the functions that must be exact to the
 * byte are in assembly.
 *
 *   noreturn N   main -> noret_caller -> noret_leaf. noret_caller's last
 *                instruction is its call: the return address is the first
 *                byte after its FDE, whose CFI is found only at pc - 1.
 *   altstack N   main -> outer_raise -> (SIGUSR1 on an alternate stack
 *                inside main's frame, above the interrupted code) ->
 *                handler -> handler_leaf. The frame after the signal frame
 *                lies below the handler's. outer_raise's CFI says it is
 *                the outermost frame (as _start's does), so the walk ends
 *                there without the stack below the copy.
 *   fp-nofile N  main -> leaf_nocfi: no CFI, and %rbp points at a frame
 *                record whose return address 0x1000 is in no file.
 *   lostreg N    main -> lostreg_caller -> leaf_lostreg, which saves %rbx
 *                in its 7th argument's stack slot, above its return
 *                address (the callee owns it): with a copy of 8 bytes the
 *                return address is read, %rbx not.
 *   copyend N    main -> copy_outer -> copy_leaf, and the distance from
 *                the leaf's stack pointer at the system call to the end of
 *                copy_outer's return address on stderr: a copy of that
 *                size ends exactly with that word.
 *   twins N      main -> twins -> twin_a -> twin_leaf, then twins ->
 *                twin_b -> twin_b2 -> twin_leaf: the same registers at
 *                both system calls (the stack pointer too), the walks'
 *                words in other places (twin_b2's return address is read
 *                only on the second).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

#include "../ustack-progs.h"

void noret_caller(void);
void outer_raise(void);
void leaf_nocfi(void);
void leaf_lostreg(long a, long b, long c, long d, long e, long f, long g);
void twins(void);
__attribute__((noreturn)) void noret_leaf(void);

#define STR_(x)	#x
#define STR(x)	STR_(x)

asm(
	/* The call ends the FDE; int3 after it, covered by no FDE. */
	"	.text\n"
	"	.globl noret_caller\n"
	"	.type noret_caller, @function\n"
	"noret_caller:\n"
	"	.cfi_startproc\n"
	"	sub $8, %rsp\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	call noret_leaf\n"
	"	.cfi_endproc\n"
	"	.size noret_caller, .-noret_caller\n"
	"	.fill 16, 1, 0xcc\n"

	/* kill(getpid(), SIGUSR1) from here: the outermost frame by its CFI */
	"	.globl outer_raise\n"
	"	.type outer_raise, @function\n"
	"outer_raise:\n"
	"	.cfi_startproc\n"
	"	.cfi_undefined rip\n"
	"	mov $" STR(SYS_getpid) ", %eax\n"
	"	syscall\n"
	"	mov %eax, %edi\n"
	"	mov $" STR(SIGUSR1) ", %esi\n"
	"	mov $" STR(SYS_kill) ", %eax\n"
	"	syscall\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size outer_raise, .-outer_raise\n"

	/* No CFI; %rbp -> { 0, 0x1000 } on the stack */
	"	.globl leaf_nocfi\n"
	"	.type leaf_nocfi, @function\n"
	"leaf_nocfi:\n"
	"	push %rbp\n"
	"	sub $16, %rsp\n"
	"	movq $0, (%rsp)\n"
	"	movq $0x1000, 8(%rsp)\n"
	"	mov %rsp, %rbp\n"
	"	mov $" STR(SYS_getppid) ", %eax\n"
	"	syscall\n"
	"	add $16, %rsp\n"
	"	pop %rbp\n"
	"	ret\n"
	"	.size leaf_nocfi, .-leaf_nocfi\n"

	/* %rbx saved at the CFA: the stack argument's slot */
	"	.globl leaf_lostreg\n"
	"	.type leaf_lostreg, @function\n"
	"leaf_lostreg:\n"
	"	.cfi_startproc\n"
	"	mov %rbx, 8(%rsp)\n"
	"	.cfi_offset %rbx, 0\n"
	"	mov $" STR(SYS_getppid) ", %eax\n"
	"	syscall\n"
	"	mov 8(%rsp), %rbx\n"
	"	.cfi_restore %rbx\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size leaf_lostreg, .-leaf_lostreg\n"

	/*
	 * Two paths of 40 bytes from twins' stack pointer to twin_leaf's:
	 * twin_a's 24 bytes of frame, or twin_b's 8 and twin_b2's 8. Both
	 * subtractions leave the same value, so the flags are the same too.
	 */
	"	.globl twins\n"
	"	.type twins, @function\n"
	"twins:\n"
	"	.cfi_startproc\n"
	"	sub $8, %rsp\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	call twin_a\n"
	"	call twin_b\n"
	"	add $8, %rsp\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size twins, .-twins\n"
	"	.type twin_a, @function\n"
	"twin_a:\n"
	"	.cfi_startproc\n"
	"	sub $24, %rsp\n"
	"	.cfi_adjust_cfa_offset 24\n"
	"	call twin_leaf\n"
	"	add $24, %rsp\n"
	"	.cfi_adjust_cfa_offset -24\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size twin_a, .-twin_a\n"
	"	.type twin_b, @function\n"
	"twin_b:\n"
	"	.cfi_startproc\n"
	"	sub $8, %rsp\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	call twin_b2\n"
	"	add $8, %rsp\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size twin_b, .-twin_b\n"
	"	.type twin_b2, @function\n"
	"twin_b2:\n"
	"	.cfi_startproc\n"
	"	sub $8, %rsp\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	call twin_leaf\n"
	"	add $8, %rsp\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size twin_b2, .-twin_b2\n"
	"	.type twin_leaf, @function\n"
	"twin_leaf:\n"
	"	.cfi_startproc\n"
	"	mov $" STR(SYS_getppid) ", %eax\n"
	"	syscall\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size twin_leaf, .-twin_leaf\n"
);

static jmp_buf noret_jmp;

__attribute__((noinline, noreturn)) void noret_leaf(void)
{
	USTACK_SYSCALL_GETPPID();
	longjmp(noret_jmp, 1);
}

__attribute__((noinline)) void lostreg_caller(void);
__attribute__((noinline)) void lostreg_caller(void)
{
	leaf_lostreg(1, 2, 3, 4, 5, 6, 7);
	asm volatile("" ::: "memory");
}

__attribute__((noinline)) void handler_leaf(void);
__attribute__((noinline)) void handler_leaf(void)
{
	USTACK_SYSCALL_GETPPID();
	asm volatile("" ::: "memory");
}

__attribute__((noinline)) static void handler(int sig)
{
	(void)sig;
	handler_leaf();
	asm volatile("" ::: "memory");
}

/* The stack pointer at the system call, and where copy_outer's CFA is. */
static uintptr_t leaf_sp, outer_cfa;

__attribute__((noinline)) void copy_leaf(void);
__attribute__((noinline)) void copy_leaf(void)
{
	long ret;
	uintptr_t sp;

	asm volatile("mov %%rsp, %1\n\tsyscall"
		     : "=a"(ret), "=r"(sp) : "0"((long)SYS_getppid)
		     : "rcx", "r11", "memory");
	leaf_sp = sp;
	(void)ret;
}

__attribute__((noinline)) void copy_outer(void);
__attribute__((noinline)) void copy_outer(void)
{
	outer_cfa = (uintptr_t)__builtin_dwarf_cfa();
	copy_leaf();
	asm volatile("" ::: "memory");
}

static int altstack(int n)
{
	/* The alternate stack, in this frame: above outer_raise's */
	char stack[65536] __attribute__((aligned(16)));
	stack_t ss = { .ss_sp = stack, .ss_size = sizeof(stack) };
	struct sigaction sa = { .sa_handler = handler, .sa_flags = SA_ONSTACK };
	int i;

	if (sigaltstack(&ss, NULL) || sigaction(SIGUSR1, &sa, NULL))
		return 1;
	for (i = 0; i < n; i++) {
		outer_raise();
		progs_pause();
	}
	/* stack[] goes away with this frame */
	ss.ss_flags = SS_DISABLE;
	sigaltstack(&ss, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	volatile int i;
	int n = argc > 2 ? atoi(argv[2]) : 3;

	if (!strcmp(mode, "altstack"))
		return altstack(n);
	for (i = 0; i < n; i++) {
		if (!strcmp(mode, "noreturn")) {
			if (!setjmp(noret_jmp))
				noret_caller();
		} else if (!strcmp(mode, "fp-nofile")) {
			leaf_nocfi();
		} else if (!strcmp(mode, "lostreg")) {
			lostreg_caller();
		} else if (!strcmp(mode, "twins")) {
			twins();
		} else if (!strcmp(mode, "copyend")) {
			copy_outer();
			fprintf(stderr, "copyend %lu\n",
				(unsigned long)(outer_cfa - leaf_sp));
		} else {
			fprintf(stderr, "usage: cfi-edges noreturn|altstack|fp-nofile|lostreg|copyend|twins [N]\n");
			return 2;
		}
		progs_pause();
	}
	return 0;
}
