// SPDX-License-Identifier: GPL-2.0
/*
 * A call chain crossing into a shared library (libustack-chain.so):
 * main -> app_call -> lib_outer -> lib_middle -> lib_inner -> getppid(2).
 * Expected user stack, leaf first: lib_inner, lib_middle, lib_outer
 * (libustack-chain.so), app_call, main (shlib).
 * With USTACK_PROGS_HOLD set it stays alive after its calls (progs_hold()).
 */
#include "ustack-progs.h"

void lib_outer(void);

__attribute__((noinline)) static void app_call(void)
{
	lib_outer();
	asm volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	int i, n = progs_iterations(argc, argv, 40);

	for (i = 0; i < n; i++) {
		app_call();
		progs_pause();
	}
	progs_hold();
	return 0;
}
