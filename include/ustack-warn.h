/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Every message of libustack goes through ustack_warning(), which prints
 * it on stderr after USTACK_PREFIX. It is a weak symbol, as libtracefs'
 * tracefs_warning(): a program that defines its own ustack_warning()
 * gets the messages instead.
 */
#ifndef _USTACK_WARN_H
#define _USTACK_WARN_H

#include <stdarg.h>

#define USTACK_PREFIX	"trace-cmd ustack: "

void ustack_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ustack_vwarning(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif /* _USTACK_WARN_H */
