// SPDX-License-Identifier: GPL-2.0
/*
 * A 20-deep frame-pointer call chain ending in getppid(2):
 * main -> chain_01 -> ... -> chain_20 -> syscall.
 * Expected user stack, leaf first: chain_20, chain_19, ..., chain_01, main.
 * With USTACK_PROGS_HOLD set it stays alive after its calls (progs_hold()).
 */
#include "ustack-progs.h"

#define CHAIN(n, next)					\
	__attribute__((noinline)) void chain_##n(void);	\
	__attribute__((noinline)) void chain_##n(void)	\
	{						\
		next();					\
		asm volatile("" ::: "memory");		\
	}

__attribute__((noinline)) void chain_20(void);
__attribute__((noinline)) void chain_20(void)
{
	USTACK_SYSCALL_GETPPID();
}

CHAIN(19, chain_20)
CHAIN(18, chain_19)
CHAIN(17, chain_18)
CHAIN(16, chain_17)
CHAIN(15, chain_16)
CHAIN(14, chain_15)
CHAIN(13, chain_14)
CHAIN(12, chain_13)
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
	int i, n = progs_iterations(argc, argv, 40);

	for (i = 0; i < n; i++) {
		chain_01();
		progs_pause();
	}
	progs_hold();
	return 0;
}
