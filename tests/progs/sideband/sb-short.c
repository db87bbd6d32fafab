// SPDX-License-Identifier: GPL-2.0
/*
 * A process too short for /proc: main -> short_call -> getppid(2), N
 * times (5) without a pause, then exit.
 */
#include "sb-progs.h"

__attribute__((noinline)) static void short_call(void)
{
	USTACK_SYSCALL_GETPPID();
}

int main(int argc, char **argv)
{
	int i, n = progs_iterations(argc, argv, 5);

	for (i = 0; i < n; i++)
		short_call();
	return 0;
}
