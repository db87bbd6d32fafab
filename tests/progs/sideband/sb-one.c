// SPDX-License-Identifier: GPL-2.0
/*
 * libsb-one.so of sb-reload: one_entry -> one_inner -> getppid(2). Both
 * libraries have the same code, so that the second one is loaded where
 * the first one was.
 */
#include "ustack-progs.h"

void one_entry(void);

__attribute__((noinline)) static void one_inner(void)
{
	USTACK_SYSCALL_GETPPID();
}

__attribute__((noinline)) void one_entry(void)
{
	one_inner();
	asm volatile("" ::: "memory");
}
