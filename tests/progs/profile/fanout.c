// SPDX-License-Identifier: GPL-2.0
/*
 * Distinct call paths in known proportions: main calls left() or right()
 * (3 to 1), each calls a() or b() (1 to 1), and those make getppid(2).
 * Iteration i takes path i % 8 of (left,a) (left,b) x3 and (right,a|b).
 */
#include "../ustack-progs.h"

__attribute__((noinline)) void after(void)
{
	asm volatile("" ::: "memory");
}

/* a() and b() call after(): no leaf, so they get a frame pointer */
__attribute__((noinline)) void a(void)
{
	USTACK_SYSCALL_GETPPID();
	after();
}

__attribute__((noinline)) void b(void)
{
	USTACK_SYSCALL_GETPPID();
	after();
}

__attribute__((noinline)) void left(int i)
{
	if (i & 1)
		b();
	else
		a();
	asm volatile("" ::: "memory");
}

__attribute__((noinline)) void right(int i)
{
	if (i & 1)
		b();
	else
		a();
	asm volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	int i, n = progs_iterations(argc, argv, 16);

	for (i = 0; i < n; i++) {
		if (i % 8 < 6)
			left(i);
		else
			right(i);
		progs_pause();
	}
	return 0;
}
