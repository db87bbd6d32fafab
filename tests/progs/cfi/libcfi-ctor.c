// SPDX-License-Identifier: GPL-2.0
/*
 * A library whose constructor makes getppid(2) three times: the dynamic
 * linker runs it from _dl_init, called by its own _start, before the
 * program's start-up code. Expected stack, leaf first: ctor_leaf,
 * ctor_chain, then ld.so's call_init, _dl_init and _start, where the
 * stack ends (ld.so's _start has no CFI to say so).
 */
#include "../ustack-progs.h"

__attribute__((noinline)) void ctor_leaf(void);
__attribute__((noinline)) void ctor_leaf(void)
{
	USTACK_SYSCALL_GETPPID();
	asm volatile("" ::: "memory");
}

__attribute__((noinline)) void ctor_chain(void);
__attribute__((noinline)) void ctor_chain(void)
{
	int i;

	for (i = 0; i < 3; i++)
		ctor_leaf();
	asm volatile("" ::: "memory");
}

__attribute__((constructor)) static void ctor(void)
{
	ctor_chain();
}
