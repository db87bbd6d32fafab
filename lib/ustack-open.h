/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Private to lib/: opening a file named by input that may come from
 * another machine (a trace.dat, the paths inside one). Only regular files
 * are opened: a FIFO, device or socket may block or act when opened.
 */
#ifndef _USTACK_OPEN_H
#define _USTACK_OPEN_H

/* The message ustack_open_regular() gives for anything but a regular file */
extern const char ustack_msg_not_regular[];

int ustack_open_regular(const char *path, const char **err);

#endif /* _USTACK_OPEN_H */
