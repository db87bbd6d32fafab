// SPDX-License-Identifier: LGPL-2.1
/*
 * The one reader of whole files: tracefs and /proc files report no size
 * (st_size is 0), so they are read until EOF into a growing buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ustack-array.h"
#include "ustack-proc.h"

/* Free bytes wanted before each read() */
#define READ_ROOM	1024

static int read_all(int fd, char **bufp, size_t *lenp)
{
	size_t len = 0, alloc = 0;
	char *buf = NULL;
	ssize_t r;

	do {
		if (ustack_array_grow((void **)&buf, &alloc, len + READ_ROOM, 1)) {
			free(buf);
			return -1;
		}
		r = read(fd, buf + len, alloc - len - 1);
		if (r > 0)
			len += r;
	} while (r > 0 || (r < 0 && errno == EINTR));
	if (r < 0) {
		free(buf);
		return -1;
	}
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	return 0;
}

/**
 * ustack_proc_read_file - the whole content of a file
 * @path:	the file
 * @len:	set to the length read (may be NULL)
 *
 * Returns a NUL-terminated buffer to free(), "" for an empty file, or NULL
 * with errno set.
 */
char *ustack_proc_read_file(const char *path, size_t *len)
{
	size_t n = 0;
	char *buf;
	int fd, e;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (read_all(fd, &buf, &n) < 0) {
		e = errno;
		close(fd);
		errno = e;
		return NULL;
	}
	close(fd);
	if (len)
		*len = n;
	return buf;
}

/**
 * ustack_proc_read - the whole content of /proc/<pid>/<what>
 * @pid:	process or thread
 * @what:	file under its /proc directory ("maps", "comm", "status")
 * @len:	set to the length read (may be NULL)
 *
 * As ustack_proc_read_file(): NULL when the task is gone.
 */
char *ustack_proc_read(int pid, const char *what, size_t *len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, what);
	return ustack_proc_read_file(path, len);
}

/**
 * ustack_proc_tgid - thread group of a task, from /proc/<pid>/status
 * @pid: the task
 *
 * Returns 0 when the task is gone (or the pid is reused by then: the
 * answer is about whoever has the pid now).
 */
int ustack_proc_tgid(int pid)
{
	char *buf = ustack_proc_read(pid, "status", NULL);
	char *p;
	int tgid = 0;

	if (!buf)
		return 0;
	p = strstr(buf, "\nTgid:");
	if (p)
		tgid = atoi(p + 6);
	free(buf);
	return tgid;
}

/**
 * ustack_proc_comm - name of a task, from /proc/<pid>/comm
 * @pid:	the task
 * @buf:	where to put it, without the newline
 * @size:	room in @buf
 *
 * Returns 0, or -1 when the task is gone.
 */
int ustack_proc_comm(int pid, char *buf, size_t size)
{
	char *comm = ustack_proc_read(pid, "comm", NULL);

	if (!comm || !*comm) {
		free(comm);
		return -1;
	}
	comm[strcspn(comm, "\n")] = '\0';
	snprintf(buf, size, "%s", comm);
	free(comm);
	return 0;
}
