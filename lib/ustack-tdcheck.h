/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Private to lib/: the structure of a trace.dat checked before
 * libtracecmd reads it (ustack-tdcheck.c).
 */
#ifndef _USTACK_TDCHECK_H
#define _USTACK_TDCHECK_H

#include <stddef.h>

int ustack_tracedat_check(int fd, char *msg, size_t size);

#endif /* _USTACK_TDCHECK_H */
