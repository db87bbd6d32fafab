// SPDX-License-Identifier: GPL-2.0
/* What sb-exec becomes: main -> after_exec -> getppid(2), N times (300). */
#include "sb-progs.h"

__attribute__((noinline)) static void after_exec(void)
{
	USTACK_SYSCALL_GETPPID();
}

int main(int argc, char **argv)
{
	int i, n = progs_iterations(argc, argv, 300);

	for (i = 0; i < n; i++)
		after_exec();
	return 0;
}
