// SPDX-License-Identifier: GPL-2.0
/*
 * getppid(2) from two functions inlined into outer_fn(), itself called by
 * main(): with --inline the stack is main, outer_fn, inl_mid (inlined),
 * inl_leaf (inlined), the last three at one address of outer_fn.
 */
#include "../ustack-progs.h"

static inline __attribute__((always_inline)) void inl_leaf(void)
{
	USTACK_SYSCALL_GETPPID();
	/* the return address of the system call: still inside inl_leaf */
	asm volatile("nop");
}

static inline __attribute__((always_inline)) void inl_mid(void)
{
	inl_leaf();
	asm volatile("" ::: "memory");
}

__attribute__((noinline)) void after(void)
{
	asm volatile("" ::: "memory");
}

/* Not a leaf (it calls after()): it gets its frame pointer */
__attribute__((noinline)) void outer_fn(void)
{
	inl_mid();
	after();
}

int main(int argc, char **argv)
{
	int i, n = progs_iterations(argc, argv, 10);

	for (i = 0; i < n; i++) {
		outer_fn();
		progs_pause();
	}
	return 0;
}
