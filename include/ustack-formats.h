/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The event formats a capture needs, read from the local tracefs.
 */
#ifndef _USTACK_FORMATS_H
#define _USTACK_FORMATS_H

#include <stdbool.h>

struct tep_handle;

struct tep_handle *ustack_formats_local(const char * const *globs, bool kallsyms);

#endif /* _USTACK_FORMATS_H */
