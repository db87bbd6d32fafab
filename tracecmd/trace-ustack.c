// SPDX-License-Identifier: GPL-2.0
/*
 * trace-cmd ustack: print the user-space call paths that lead to kernel
 * events.
 *
 *   trace-cmd ustack [OPTIONS] [-- COMMAND ...]          live
 *   trace-cmd ustack record -o FILE [OPTIONS] [-- CMD]   into a trace.dat
 *   trace-cmd ustack report -i FILE [OPTIONS]            from a trace.dat
 *
 * Shaped like a trace-cmd builtin: trace_ustack(argc, argv) with argv[1]
 * being "ustack"; tracecmd/ustack-main.c is the standalone main(). The
 * parts are listed in ustack-cmd.h.
 */
#include <string.h>

#include "trace-ustack.h"
#include "ustack-cmd.h"

/**
 * trace_ustack - the `trace-cmd ustack` command
 * @argc: argument count
 * @argv: argv[0] "trace-cmd", argv[1] "ustack", then the options
 *
 * Does not return.
 */
void trace_ustack(int argc, char **argv)
{
	struct ustack_opts o;

	if (argc < 2 || strcmp(argv[1], "ustack"))
		die("expected 'ustack' as the command");
	argv[1] = "trace-cmd ustack";
	ustack_parse_args(&o, argc - 1, argv + 1);
	if (o.mode == MODE_REPORT)
		ustack_report(&o);
	ustack_capture(&o);
}
