// SPDX-License-Identifier: GPL-2.0
/*
 * libtracecmd's messages, made ours. Its tracecmd_warning() is weak, like
 * this program's ustack_warning(): defining it here sends every message
 * of the library through ustack_warning(), so that it is one line with
 * our prefix, in order with our own, and cannot print the bytes of a
 * corrupt file as they are (libtracecmd prints the errno of the moment
 * on a line of its own, then the message, which may quote the file).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "ustack-warn.h"

/* libtracecmd's own declaration is in a header it does not install */
void tracecmd_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Control bytes and bytes past ASCII become '?': one printable line */
static void make_printable(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < ' ' || (unsigned char)*s > '~')
			*s = '?';
}

/**
 * tracecmd_warning - a message of libtracecmd, printed as one of ours
 * @fmt: its printf format
 *
 * Overrides libtracecmd's weak definition. errno is left as it was: the
 * library may look at it after warning.
 */
void tracecmd_warning(const char *fmt, ...)
{
	char msg[512];
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	make_printable(msg);
	ustack_warning("libtracecmd: %s", msg);
	errno = saved;
}
