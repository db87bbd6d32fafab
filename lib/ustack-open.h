/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Private to lib/: opening a file named by input that may come from
 * another machine (a trace.dat, the paths inside one). Only regular files
 * are opened: a FIFO, device or socket may block or act when opened.
 */
#ifndef _USTACK_OPEN_H
#define _USTACK_OPEN_H

#include "ustack-err.h"

int ustack_resolve_open_regular(const char *path);

#endif /* _USTACK_OPEN_H */
