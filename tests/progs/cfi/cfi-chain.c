// SPDX-License-Identifier: GPL-2.0
/*
 * A 12-deep call chain ending in getppid(2), built without frame pointers
 * (and, in some builds, without CFI) to test the CFI unwinder:
 * main -> chain_01 -> ... -> chain_12 -> syscall.
 * Expected user stack, leaf first: chain_12, ..., chain_01, main
 * (then glibc's start-up frames, which have CFI).
 *
 * No inlining and no tail calls, or the chain would not be what the
 * source says; nothing else is held back: the point is -O2 code.
 */
#include "../ustack-progs.h"

/*
 * CHAIN_PAD (cfi-wide): bytes of locals in each link, so that the chain
 * spans more stack than one event of a 4 KiB sub-buffer can copy
 */
#ifdef CHAIN_PAD
#define CHAIN_LOCALS()					\
	volatile char wide[CHAIN_PAD];			\
							\
	wide[0] = 0;					\
	asm volatile("" : : "r"(wide) : "memory")
#else
#define CHAIN_LOCALS()	do { } while (0)
#endif

#define CHAIN(n, next)					\
	__attribute__((noinline)) void chain_##n(void);	\
	__attribute__((noinline)) void chain_##n(void)	\
	{						\
		CHAIN_LOCALS();				\
		next();					\
		asm volatile("" ::: "memory");		\
	}

__attribute__((noinline)) void chain_12(void);
__attribute__((noinline)) void chain_12(void)
{
	/* A stack frame of its own: a frame-pointer build then links it too */
	volatile char pad[16];

	pad[0] = 0;
	asm volatile("" : : "r"(pad) : "memory");
	USTACK_SYSCALL_GETPPID();
	asm volatile("" ::: "memory");
}

CHAIN(11, chain_12)
CHAIN(10, chain_11)
CHAIN(09, chain_10)
CHAIN(08, chain_09)
CHAIN(07, chain_08)
CHAIN(06, chain_07)
CHAIN(05, chain_06)
CHAIN(04, chain_05)
CHAIN(03, chain_04)
CHAIN(02, chain_03)
CHAIN(01, chain_02)

int main(int argc, char **argv)
{
	int i, n = progs_iterations(argc, argv, 20);

	for (i = 0; i < n; i++) {
		chain_01();
		progs_pause();
	}
	return 0;
}
