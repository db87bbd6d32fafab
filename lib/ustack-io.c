// SPDX-License-Identifier: LGPL-2.1
/*
 * Whole writes (see ustack-io.h).
 */
#include <errno.h>
#include <unistd.h>

#include "ustack-io.h"

/**
 * ustack_io_write_all - write all of @len bytes of @buf to @fd
 * @fd:		the descriptor
 * @buf:	the bytes
 * @len:	how many
 * @done:	set to the bytes written, also when it fails; may be NULL
 *
 * A short write is continued, an interrupted one retried. Returns 0, or
 * -1 with errno set (EIO when the descriptor took nothing).
 */
int ustack_io_write_all(int fd, const void *buf, size_t len, size_t *done)
{
	const char *p = buf;
	ssize_t w;

	if (done)
		*done = 0;
	while (len) {
		w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			return -1;
		}
		p += w;
		len -= w;
		if (done)
			*done += w;
	}
	return 0;
}
