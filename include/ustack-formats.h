/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The event formats a capture needs, read from the local tracefs.
 */
#ifndef _USTACK_FORMATS_H
#define _USTACK_FORMATS_H

#include <stdbool.h>
#include <string.h>

struct tep_handle;

/*
 * Is @s (a system or event name given as a fnmatch(3) pattern) a pattern
 * indeed? A plain name is looked up directly, without listing tracefs.
 */
static inline bool ustack_is_glob(const char *s)
{
	return strpbrk(s, "*?[\\") != NULL;
}

struct tep_handle *ustack_formats_header(void);
struct tep_handle *ustack_formats_local(const char * const *globs, bool kallsyms);
bool ustack_formats_name_symbols(const char * const *globs);

#endif /* _USTACK_FORMATS_H */
