// SPDX-License-Identifier: GPL-2.0
/*
 * The shared-library half of cfi-shlib, built -O2 without frame pointers:
 * cfi_lib_1 -> ... -> cfi_lib_6 -> getppid(2).
 */
#include "../ustack-progs.h"
#include "libcfi.h"

#define LIBCHAIN(n, next)				\
	__attribute__((noinline)) void cfi_lib_##n(void)	\
	{						\
		next();					\
		asm volatile("" ::: "memory");		\
	}

__attribute__((noinline)) void cfi_lib_6(void)
{
	USTACK_SYSCALL_GETPPID();
	asm volatile("" ::: "memory");
}

LIBCHAIN(5, cfi_lib_6)
LIBCHAIN(4, cfi_lib_5)
LIBCHAIN(3, cfi_lib_4)
LIBCHAIN(2, cfi_lib_3)
LIBCHAIN(1, cfi_lib_2)
