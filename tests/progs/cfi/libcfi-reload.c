// SPDX-License-Identifier: GPL-2.0
/*
 * The two libraries cfi-reload loads one after the other at one address,
 * built -O2 without frame pointers from this file: RELOAD_LIB 1 gives
 * reload1_entry -> reload1_inner -> getppid(2), RELOAD_LIB 2 the same as
 * reload2_*. Both are the same size, but the second has 8 KiB of padding
 * before its chain where the first has it after, and a larger frame: no
 * FDE of the first library describes an address of the second's chain,
 * and an unwind that took the first one's CFI there would not find the
 * callers.
 */
#include "../ustack-progs.h"

#if RELOAD_LIB == 1
#define ENTRY	reload1_entry
#define INNER	reload1_inner
#define FRAME	8
#else
#define ENTRY	reload2_entry
#define INNER	reload2_inner
#define FRAME	512
#endif

#define PAD_FN(name)						\
	__attribute__((noinline, used)) void name(volatile int *p)	\
	{							\
		asm volatile(".fill 8192, 1, 0x90" ::: "memory");	\
		*p = 0;						\
	}

#if RELOAD_LIB == 2
PAD_FN(reload2_pad)
#endif

__attribute__((noinline)) void INNER(volatile char *buf)
{
	buf[0] = 1;
	USTACK_SYSCALL_GETPPID();
	asm volatile("" ::: "memory");
}

__attribute__((noinline)) void ENTRY(void)
{
	volatile char buf[FRAME];

	INNER(buf);
	asm volatile("" ::: "memory");
}

#if RELOAD_LIB == 1
PAD_FN(reload1_pad)
#endif
