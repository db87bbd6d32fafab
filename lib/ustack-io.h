/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Private to lib/: writing a whole buffer to a descriptor that takes
 * less at a time (pipes, devices, a full disk).
 */
#ifndef _USTACK_IO_H
#define _USTACK_IO_H

#include <stddef.h>

int ustack_io_write_all(int fd, const void *buf, size_t len, size_t *done);

#endif /* _USTACK_IO_H */
