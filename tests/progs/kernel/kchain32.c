// SPDX-License-Identifier: GPL-2.0
/*
 * kchain32: a 32-bit task (COMPAT) with a known call chain, built without
 * libc so that no 32-bit C library is needed:
 * _start -> c32_outer -> c32_middle -> c32_leaf, which calls getppid(2)
 * through int $0x80 three times, then exits.
 */
#define NOINLINE __attribute__((noinline))

#define NR32_EXIT	1
#define NR32_GETPPID	64

NOINLINE void c32_leaf(void);
NOINLINE void c32_leaf(void)
{
	long ret;

	asm volatile("int $0x80" : "=a"(ret) : "0"(NR32_GETPPID) : "memory");
}

NOINLINE void c32_middle(void);
NOINLINE void c32_middle(void)
{
	c32_leaf();
	asm volatile("" ::: "memory");
}

NOINLINE void c32_outer(void);
NOINLINE void c32_outer(void)
{
	int i;

	for (i = 0; i < 3; i++)
		c32_middle();
}

void _start(void);
void _start(void)
{
	c32_outer();
	asm volatile("int $0x80" : : "a"(NR32_EXIT), "b"(0));
	for (;;)
		;
}
