// SPDX-License-Identifier: GPL-2.0
/*
 * libsb-two.so of sb-reload: two_entry -> two_inner -> getppid(2). Both
 * libraries have the same code, so that the second one is loaded where
 * the first one was.
 */
#include "ustack-progs.h"

void two_entry(void);

__attribute__((noinline)) static void two_inner(void)
{
	USTACK_SYSCALL_GETPPID();
}

__attribute__((noinline)) void two_entry(void)
{
	two_inner();
	asm volatile("" ::: "memory");
}
