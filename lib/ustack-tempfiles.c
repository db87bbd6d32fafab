// SPDX-License-Identifier: LGPL-2.1
/*
 * The temporary files of a run, in a list a signal handler may walk (see
 * ustack-tempfiles.h). A file is made and put on the list with the stop
 * signals blocked: a signal between mkstemp() and the list would leave a
 * file nobody knows of.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ustack-stopsig.h"
#include "ustack-tempfiles.h"

struct tempfile {
	struct tempfile	*next;
	char		path[];
};

static struct tempfile *volatile tempfiles;

static void restore_signals(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/**
 * ustack_tempfile_make - mkostemp(), the file remembered until forgotten
 * @template: "...XXXXXX", completed in place
 *
 * Returns the open file (O_CLOEXEC), or -1 with errno (no file is left).
 */
int ustack_tempfile_make(char *template)
{
	size_t len = strlen(template) + 1;
	struct tempfile *t = malloc(sizeof(*t) + len);
	sigset_t old;
	int fd, err;

	if (!t)
		return -1;
	ustack_block_stop_signals(&old);
	fd = mkostemp(template, O_CLOEXEC);
	if (fd >= 0) {
		memcpy(t->path, template, len);
		t->next = tempfiles;
		tempfiles = t;
		t = NULL;
	}
	err = errno;
	restore_signals(&old);
	free(t);
	errno = err;
	return fd;
}

/**
 * ustack_tempfile_forget - the file is no temporary any more
 * @path: a name ustack_tempfile_make() gave (renamed or removed since)
 */
void ustack_tempfile_forget(const char *path)
{
	struct tempfile *volatile *pp, *t = NULL;
	sigset_t old;

	ustack_block_stop_signals(&old);
	for (pp = &tempfiles; *pp; pp = &(*pp)->next) {
		if (!strcmp((*pp)->path, path)) {
			t = *pp;
			*pp = t->next;
			break;
		}
	}
	restore_signals(&old);
	free(t);
}

/**
 * ustack_tempfile_remove - unlink and forget
 * @path: a name ustack_tempfile_make() gave
 */
void ustack_tempfile_remove(const char *path)
{
	unlink(path);
	ustack_tempfile_forget(path);
}

/**
 * ustack_tempfiles_unlink_all - remove every temporary file, from anywhere
 *
 * Async-signal-safe (unlink() only): for a handler about to _exit(). The
 * list is kept; a later remove finds the files gone, which is harmless.
 */
void ustack_tempfiles_unlink_all(void)
{
	struct tempfile *t;
	int saved = errno;

	for (t = tempfiles; t; t = t->next)
		unlink(t->path);
	errno = saved;
}
