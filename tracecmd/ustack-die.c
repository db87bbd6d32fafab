// SPDX-License-Identifier: GPL-2.0
/*
 * The command's fatal error: one line, as the library prints its
 * messages, then exit 1. On its own, below every command file that calls
 * it: the entry file (trace-ustack.c) calls the command files, not the
 * other way round.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "ustack-cmd.h"
#include "ustack-warn.h"

/**
 * die - print a message the way the library does, and exit 1
 * @fmt: printf format, without the trailing newline
 */
void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ustack_vwarning(fmt, ap);
	va_end(ap);
	exit(1);
}
