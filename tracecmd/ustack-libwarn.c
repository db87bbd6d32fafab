// SPDX-License-Identifier: GPL-2.0
/*
 * libtracecmd's messages, made ours. Its tracecmd_warning() is weak, like
 * this program's ustack_warning(): defining it here sends every message
 * of the library through ustack_warning(), so that it is one line with
 * our prefix, in order with our own, and cannot print the bytes of a
 * corrupt file as they are (libtracecmd prints the errno of the moment
 * on a line of its own, then the message, which may quote the file):
 * ustack_warning() escapes them as every message (ustack-text.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-cmd.h"
#include "ustack-text.h"
#include "ustack-tracedat.h"
#include "ustack-warn.h"

/* libtracecmd's own declaration is in a header it does not install */
void tracecmd_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

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
	int saved = errno, len;
	va_list ap;

	va_start(ap, fmt);
	len = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (len < 0)
		msg[0] = '\0';
	/* cut short: at a character, not inside one */
	else if (len >= (int)sizeof(msg))
		msg[ustack_text_cut(msg, strlen(msg))] = '\0';
	/* what the trace.dat writer handles itself is not shown */
	if (!ustack_tracedat_lib_warning(msg))
		ustack_warning("libtracecmd: %s", msg);
	errno = saved;
}

/* The trace.dat report reads, for perror() below */
static const char *input_file;

/**
 * ustack_libwarn_input - name the trace.dat the libraries are reading
 * @file: the file, or NULL
 */
void ustack_libwarn_input(const char *file)
{
	input_file = file;
}

/*
 * libtracecmd 1.3 and libtracefs print some errors with perror(), past
 * tracecmd_warning(). Defined here, it is found before glibc's (the
 * libraries call it through their PLT), and the message is one of ours.
 *
 * libtracecmd's perror("mmap") is followed by a line it writes to stderr
 * itself ("Can not mmap file, will read instead") and by reading the CPU
 * data as plain pages. With a negative errno it is not mmap() that failed
 * but a compressed chunk that did not decompress: the pages it would read
 * are compressed bytes, and the library crashes on them. The file cannot
 * be read, and is said so in one line before the library says more.
 */
void perror(const char *s)
{
	int err = errno;

	if (err < 0 && s && !strcmp(s, "mmap") && input_file) {
		ustack_warning("%s: corrupt trace.dat: a CPU's compressed data does not "
			       "decompress (%s)", input_file, strerror(-err));
		exit(1);
	}
	if (s && *s)
		ustack_warning("%s: %s", s, strerror(err < 0 ? -err : err));
	else
		ustack_warning("%s", strerror(err < 0 ? -err : err));
	errno = err;
}
