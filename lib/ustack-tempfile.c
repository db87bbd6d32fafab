// SPDX-License-Identifier: LGPL-2.1
/*
 * The temporary files of a run, in a list a signal handler may walk (see
 * ustack-tempfile.h). A file is made and put on the list with the stop
 * signals blocked: a signal between its creation and the list would leave
 * a file nobody knows of.
 *
 * Where the file system allows it, a temporary has no name at all
 * (O_TMPFILE): the list keeps one descriptor of it open and hands out
 * "/proc/self/fd/N" as its path, which libtracecmd and our readers open
 * like any file. Such a file cannot outlive the process, whatever kills
 * it; only the named fallback (mkostemp) needs the handler's unlink.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ustack-stopsig.h"
#include "ustack-tempfile.h"

struct tempfile {
	struct tempfile	*next;
	int		keep;		/* O_TMPFILE: the descriptor that keeps it */
	char		path[];
};

static struct tempfile *volatile tempfiles;

static void restore_signals(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/*
 * An unnamed file in the directory of @template, or -1. USTACK_TEMPFILES=named
 * takes the fallback everywhere: the tests of the signal handler's unlink
 * need files with names, and no file system here lacks O_TMPFILE.
 */
static int open_unnamed(const char *template)
{
	const char *how = getenv("USTACK_TEMPFILES");
	char *copy;
	int fd;

	if (how && !strcmp(how, "named"))
		return -1;
	copy = strdup(template);
	if (!copy)
		return -1;
	fd = open(dirname(copy), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	free(copy);
	if (fd < 0)
		return -1;
	/* Its name is only usable while /proc is there to give it */
	if (access("/proc/self/fd", X_OK) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Put a file on the list; the caller has blocked the stop signals */
static struct tempfile *add(const char *path, int keep)
{
	size_t len = strlen(path) + 1;
	struct tempfile *t = malloc(sizeof(*t) + len);

	if (!t)
		return NULL;
	memcpy(t->path, path, len);
	t->keep = keep;
	t->next = tempfiles;
	tempfiles = t;
	return t;
}

/* O_TMPFILE: the path is the kept descriptor's, the caller gets a dup */
static int make_unnamed(char **path, int keep)
{
	char *name;
	int fd;

	if (asprintf(&name, "/proc/self/fd/%d", keep) < 0)
		return -1;
	fd = fcntl(keep, F_DUPFD_CLOEXEC, 0);
	if (fd < 0 || !add(name, keep)) {
		if (fd >= 0)
			close(fd);
		free(name);
		return -1;
	}
	free(*path);
	*path = name;
	return fd;
}

static int make_named(char **path)
{
	int fd = mkostemp(*path, O_CLOEXEC);

	if (fd >= 0 && !add(*path, -1)) {
		unlink(*path);
		close(fd);
		errno = ENOMEM;
		return -1;
	}
	return fd;
}

/**
 * ustack_tempfile_make - a temporary file, remembered until forgotten
 * @path: a malloc()ed "DIR/NAME.XXXXXX"; the file is made in DIR. It
 *	  becomes the file's path: the template completed by mkostemp(),
 *	  or a new malloc()ed "/proc/self/fd/N" for an unnamed file (the
 *	  old string is freed then).
 *
 * Returns an open descriptor of the file (O_CLOEXEC, read-write), or -1
 * with errno (no file is left, @path unchanged).
 */
int ustack_tempfile_make(char **path)
{
	sigset_t old;
	int fd, keep, err;

	ustack_stopsig_block(&old);
	keep = open_unnamed(*path);
	if (keep >= 0) {
		fd = make_unnamed(path, keep);
		if (fd < 0) {
			close(keep);
			fd = make_named(path);
		}
	} else {
		fd = make_named(path);
	}
	err = errno;
	restore_signals(&old);
	errno = err;
	return fd;
}

/**
 * ustack_tempfile_track - remember a path made elsewhere, until forgotten
 * @path: a file, a symbolic link or a directory (removed with rmdir(),
 *	  so after everything made in it: entries are removed newest first)
 *
 * For a temporary tree (the writer's tracing directory): the caller
 * blocks the stop signals from before it makes @path until this returns.
 * Returns 0, or -1 with errno (ENOMEM).
 */
int ustack_tempfile_track(const char *path)
{
	sigset_t old;
	int ret = 0;

	ustack_stopsig_block(&old);
	if (!add(path, -1)) {
		errno = ENOMEM;
		ret = -1;
	}
	restore_signals(&old);
	return ret;
}

/* A tracked path removed (async-signal-safe), a directory too */
static void unlink_path(const char *path)
{
	if (unlinkat(AT_FDCWD, path, 0) && errno == EISDIR)
		unlinkat(AT_FDCWD, path, AT_REMOVEDIR);
}

/**
 * ustack_tempfile_remove_tree - remove and forget @dir and every path tracked under it
 * @dir: a directory given to ustack_tempfile_track()
 *
 * Newest first, as the signal handler removes them: a directory goes
 * after what was made in it.
 */
void ustack_tempfile_remove_tree(const char *dir)
{
	struct tempfile *volatile *pp, *t, *gone = NULL;
	size_t len = strlen(dir);
	sigset_t old;

	ustack_stopsig_block(&old);
	for (pp = &tempfiles; *pp;) {
		t = *pp;
		if (t->keep < 0 && !strncmp(t->path, dir, len) &&
		    (!t->path[len] || t->path[len] == '/')) {
			unlink_path(t->path);
			*pp = t->next;
			t->next = gone;
			gone = t;
		} else {
			pp = &t->next;
		}
	}
	restore_signals(&old);
	while (gone) {
		t = gone;
		gone = t->next;
		free(t);
	}
}

/**
 * ustack_tempfile_unnamed - whether a temporary has no name to rename
 * @path: a path ustack_tempfile_make() gave
 */
bool ustack_tempfile_unnamed(const char *path)
{
	struct tempfile *t;

	for (t = tempfiles; t; t = t->next)
		if (!strcmp(t->path, path))
			return t->keep >= 0;
	return false;
}

/**
 * ustack_tempfile_forget - the file is no temporary any more
 * @path: a path ustack_tempfile_make() gave (renamed, linked or removed
 *	  since). An unnamed file's last descriptor on the list is closed:
 *	  it goes unless it was linked.
 */
void ustack_tempfile_forget(const char *path)
{
	struct tempfile *volatile *pp, *t = NULL;
	sigset_t old;

	ustack_stopsig_block(&old);
	for (pp = &tempfiles; *pp; pp = &(*pp)->next) {
		if (!strcmp((*pp)->path, path)) {
			t = *pp;
			*pp = t->next;
			break;
		}
	}
	if (t && t->keep >= 0)
		close(t->keep);
	restore_signals(&old);
	free(t);
}

/**
 * ustack_tempfile_remove - remove and forget
 * @path: a path ustack_tempfile_make() gave
 */
void ustack_tempfile_remove(const char *path)
{
	if (!ustack_tempfile_unnamed(path))
		unlink(path);
	ustack_tempfile_forget(path);
}

/**
 * ustack_tempfile_unlink_all - remove every temporary file, from anywhere
 *
 * Async-signal-safe (unlinkat() only): for a handler about to
 * _exit(). The list is kept; a later remove finds the files gone, which
 * is harmless. Unnamed files need nothing: they go with the process. A
 * tracked directory comes after what was made in it (newest first).
 */
void ustack_tempfile_unlink_all(void)
{
	struct tempfile *t;
	int saved = errno;

	for (t = tempfiles; t; t = t->next)
		if (t->keep < 0)
			unlink_path(t->path);
	errno = saved;
}
