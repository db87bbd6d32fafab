// SPDX-License-Identifier: GPL-2.0
/*
 * Standalone build of `trace-cmd ustack`: trace-cmd has no external
 * command lookup, so the command ships as trace-cmd-ustack (and an opt-in
 * `trace-cmd` wrapper). Present argv the way trace-cmd's dispatcher does.
 */
#include <stdlib.h>

#include "trace-ustack.h"

int main(int argc, char **argv)
{
	char **av = calloc(argc + 2, sizeof(*av));
	int i;

	if (!av)
		return 1;
	av[0] = "trace-cmd";
	av[1] = "ustack";
	for (i = 1; i < argc; i++)
		av[i + 1] = argv[i];
	trace_ustack(argc + 1, av);
	return 0;
}
