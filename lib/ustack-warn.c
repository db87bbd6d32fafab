// SPDX-License-Identifier: LGPL-2.1
/*
 * The library's messages (see ustack-warn.h). Both functions are weak:
 * overriding ustack_vwarning() is enough to catch every message.
 */
#include <stdio.h>

#include "ustack-warn.h"

/**
 * ustack_vwarning - print one message of the library
 * @fmt:	printf format, without the trailing newline
 * @ap:		its arguments
 *
 * Weak: a program linking libustack may define its own.
 */
void __attribute__((weak)) ustack_vwarning(const char *fmt, va_list ap)
{
	fflush(stdout);
	fputs(USTACK_PREFIX, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/**
 * ustack_warning - print one message of the library
 * @fmt:	printf format, without the trailing newline
 *
 * Weak: a program linking libustack may define its own.
 */
void __attribute__((weak)) ustack_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ustack_vwarning(fmt, ap);
	va_end(ap);
}
