/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace-cmd ustack: entry point, shaped like a trace-cmd subcommand
 * (argv[0] = "trace-cmd", argv[1] = "ustack").
 */
#ifndef _TRACE_USTACK_H
#define _TRACE_USTACK_H

void trace_ustack(int argc, char **argv);

#endif /* _TRACE_USTACK_H */
