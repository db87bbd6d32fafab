// SPDX-License-Identifier: GPL-2.0
/*
 * N calls, then exec of sb-exec-after at once:
 *   main -> before_exec -> getppid(2)    N times, named sb-exec
 * and sb-exec-after makes its own calls (see there). The stacks before
 * the exec belong to this name and this image, whatever the task is by
 * the time they are read.
 */
#include "sb-progs.h"

__attribute__((noinline)) static void before_exec(void)
{
	USTACK_SYSCALL_GETPPID();
}

int main(int argc, char **argv)
{
	int i, n = progs_iterations(argc, argv, 500);
	char path[PATH_MAX];
	char *args[] = { path, argc > 2 ? argv[2] : "300", NULL };

	for (i = 0; i < n; i++)
		before_exec();
	sb_beside(path, sizeof(path), "sb-exec-after");
	execv(path, args);
	perror("sb-exec: execv");
	return 1;
}
