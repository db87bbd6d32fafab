// SPDX-License-Identifier: LGPL-2.1
/*
 * The library's messages (see ustack-warn.h). Both functions are weak:
 * overriding ustack_vwarning() is enough to catch every message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-text.h"
#include "ustack-warn.h"

/**
 * ustack_vwarning - print one message of the library
 * @fmt:	printf format, without the trailing newline
 * @ap:		its arguments
 *
 * Messages name task names, paths and symbols of the trace: the message is
 * written escaped for a terminal (ustack-text.h), so that none of them
 * can reach it as it is. Out of memory, a long one is cut, at a
 * character.
 *
 * Weak: a program linking libustack may define its own.
 */
void __attribute__((weak)) ustack_vwarning(const char *fmt, va_list ap)
{
	char buf[1024], *msg = NULL;
	size_t n;
	int len;
	va_list copy;

	va_copy(copy, ap);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	if (len >= (int)sizeof(buf) && vasprintf(&msg, fmt, copy) < 0)
		msg = NULL;
	va_end(copy);
	if (len < 0)
		buf[0] = '\0';
	n = strlen(buf);
	if (len >= (int)sizeof(buf))
		n = ustack_text_cut(buf, n);
	fflush(stdout);
	fputs(USTACK_PREFIX, stderr);
	if (msg)
		ustack_text_fput(stderr, msg, USTACK_TEXT_TERM);
	else
		ustack_text_fput_len(stderr, buf, n, USTACK_TEXT_TERM);
	fputc('\n', stderr);
	free(msg);
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
