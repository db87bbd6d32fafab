// SPDX-License-Identifier: GPL-2.0
/*
 * Shared-library half of the "shlib" program:
 * lib_outer -> lib_middle -> lib_inner -> getppid(2).
 */
#include "ustack-progs.h"

void lib_outer(void);

__attribute__((noinline)) static void lib_inner(void)
{
	USTACK_SYSCALL_GETPPID();
}

__attribute__((noinline)) static void lib_middle(void)
{
	lib_inner();
	asm volatile("" ::: "memory");
}

__attribute__((noinline)) void lib_outer(void)
{
	lib_middle();
	asm volatile("" ::: "memory");
}
