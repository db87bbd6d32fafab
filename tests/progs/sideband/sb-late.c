// SPDX-License-Identifier: GPL-2.0
/* libsb-late.so, loaded late by sb-dlopen: late_entry -> late_inner -> getppid(2) */
#include "ustack-progs.h"

void late_entry(void);

__attribute__((noinline)) static void late_inner(void)
{
	USTACK_SYSCALL_GETPPID();
}

__attribute__((noinline)) void late_entry(void)
{
	late_inner();
	asm volatile("" ::: "memory");
}
