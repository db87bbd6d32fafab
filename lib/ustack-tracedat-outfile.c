// SPDX-License-Identifier: LGPL-2.1
/*
 * Where `record -o` writes (see ustack-tracedat-outfile.h).
 *
 * A regular file (or none yet) is replaced as a whole: the recording is
 * written to a temporary in the same directory and renamed over it when
 * complete, so a failure leaves no file that looks valid. Renaming is
 * only ever done over a regular file: anything else at that name (a
 * device node, a FIFO, a directory) would be destroyed by it, and /dev/null
 * replaced by a regular file breaks a system. A character device or FIFO
 * is written into, as a shell's redirection does: the recording is made
 * in $TMPDIR and copied into it. Other kinds are refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "ustack-io.h"
#include "ustack-tracedat-outfile.h"
#include "ustack-stopsig.h"
#include "ustack-tempfile.h"

/* What a file's kind is called in a message */
static const char *kind_name(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

static int fail(struct ustack_tracedat_outfile *of, enum ustack_tracedat_outfile_err err)
{
	of->err = err;
	of->sys_errno = errno;
	return -1;
}

/* $TMPDIR, else /tmp: temporaries of a recording written into a stream */
static const char *temp_dir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/tmp";
}

static int open_stream(struct ustack_tracedat_outfile *of)
{
	/* As a shell would: no O_CREAT, no O_TRUNC; a FIFO waits for its reader */
	of->stream_fd = open(of->name, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (of->stream_fd < 0)
		return fail(of, USTACK_TRACEDAT_OUTFILE_OPEN);
	if (asprintf(&of->prefix, "%s/trace-cmd-ustack", temp_dir()) < 0) {
		of->prefix = NULL;
		return fail(of, USTACK_TRACEDAT_OUTFILE_NOMEM);
	}
	of->dir = strdup(temp_dir());
	return of->dir ? 0 : fail(of, USTACK_TRACEDAT_OUTFILE_NOMEM);
}

/* A regular file or a new one: symbolic links are followed, as by a shell */
static int open_regular(struct ustack_tracedat_outfile *of, bool exists)
{
	char *copy;

	of->dest = exists ? realpath(of->name, NULL) : strdup(of->name);
	if (!of->dest)
		return fail(of, exists ? USTACK_TRACEDAT_OUTFILE_OPEN : USTACK_TRACEDAT_OUTFILE_NOMEM);
	of->prefix = strdup(of->dest);
	copy = strdup(of->dest);
	of->dir = copy ? strdup(dirname(copy)) : NULL;
	free(copy);
	if (!of->prefix || !of->dir)
		return fail(of, USTACK_TRACEDAT_OUTFILE_NOMEM);
	return 0;
}

/**
 * ustack_tracedat_outfile_open - decide how a recording reaches @name
 * @of: zeroed by the caller
 * @name: the output the user gave
 *
 * Checks, before anything is traced, that the recording can be written:
 * the kind of file, the directory its temporaries go to. A character
 * device or FIFO is opened here (a FIFO blocks until it has a reader).
 * Returns 0, or -1 with the reason in @of (ustack_tracedat_outfile_strerror()).
 */
int ustack_tracedat_outfile_open(struct ustack_tracedat_outfile *of, const char *name)
{
	struct stat st, lst;
	int ret;

	of->stream_fd = -1;
	of->name = strdup(name);
	if (!of->name)
		return fail(of, USTACK_TRACEDAT_OUTFILE_NOMEM);
	if (stat(name, &st) < 0) {
		/* A link to nothing: a shell would create its target; not us */
		if (errno != ENOENT || lstat(name, &lst) == 0)
			return fail(of, USTACK_TRACEDAT_OUTFILE_OPEN);
		ret = open_regular(of, false);
	} else if (S_ISREG(st.st_mode)) {
		ret = open_regular(of, true);
	} else if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
		ret = open_stream(of);
	} else {
		of->kind = kind_name(st.st_mode);
		errno = 0;
		return fail(of, USTACK_TRACEDAT_OUTFILE_KIND);
	}
	if (ret < 0)
		return ret;
	if (access(of->dir, W_OK | X_OK) < 0)
		return fail(of, USTACK_TRACEDAT_OUTFILE_DIR);
	return 0;
}

/**
 * ustack_tracedat_outfile_temp_prefix - where the run's temporaries go
 * @of: an opened output
 *
 * "<prefix>.<what>.XXXXXX" names are made beside a regular output, in
 * $TMPDIR for a stream: never in /dev.
 */
const char *ustack_tracedat_outfile_temp_prefix(const struct ustack_tracedat_outfile *of)
{
	return of->prefix;
}

static int copy_into(int out, const char *path)
{
	char buf[65536];
	ssize_t r;
	int in, err;

	in = open(path, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -1;
	while ((r = read(in, buf, sizeof(buf))) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || ustack_io_write_all(out, buf, r, NULL) < 0)
			break;
	}
	err = errno;
	close(in);
	errno = err;
	return r == 0 ? 0 : -1;
}

/* A name for an unnamed temporary, beside @dest, then renamed over it */
static int link_over(const char *tmp, const char *dest)
{
	char *name;
	int i, ret = -1;

	for (i = 0; i < 100; i++) {
		if (asprintf(&name, "%s.%08lx", dest, random()) < 0)
			return -1;
		ret = linkat(AT_FDCWD, tmp, AT_FDCWD, name, AT_SYMLINK_FOLLOW);
		if (ret == 0) {
			ret = rename(name, dest);
			if (ret < 0)
				unlink(name);
		}
		free(name);
		if (ret == 0 || errno != EEXIST)
			break;
	}
	return ret;
}

/* A regular output: the temporary renamed (or linked) over it */
static int publish(struct ustack_tracedat_outfile *of, const char *tmp)
{
	if (ustack_tempfile_unnamed(tmp))
		return link_over(tmp, of->dest);
	return rename(tmp, of->dest);
}

/*
 * The recording goes in place with the stop signals blocked, and they
 * stay blocked once it is there: a handler that removes the temporaries
 * and _exit()s finds it either a temporary still or in place and no
 * temporary any more, never linked under a name of link_over() and not
 * yet renamed, and what the caller does next (a summary that names the
 * file) is not cut short. A stream's copy may take long (a FIFO's
 * reader): it stays interruptible. On failure the mask is as it was.
 */
static int put_in_place(struct ustack_tracedat_outfile *of, const char *tmp)
{
	sigset_t old;
	int ret, err;

	if (of->stream_fd >= 0) {
		ret = copy_into(of->stream_fd, tmp);
		if (!ret)
			ustack_stopsig_block(NULL);
		return ret;
	}
	ustack_stopsig_block(&old);
	ret = publish(of, tmp);
	if (!ret) {
		ustack_tempfile_forget(tmp);
		return 0;
	}
	err = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = err;
	return ret;
}

/* The recording's own temporary, with the mode a new file would have */
static char *make_temp(struct ustack_tracedat_outfile *of)
{
	char *tmp;
	mode_t mask;
	int fd;

	if (asprintf(&tmp, "%s.XXXXXX", of->prefix) < 0)
		return NULL;
	fd = ustack_tempfile_make(&tmp);
	if (fd < 0) {
		free(tmp);
		return NULL;
	}
	mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	close(fd);
	return tmp;
}

/**
 * ustack_tracedat_outfile_reserve - make the temporary now
 * @of: an opened output
 *
 * For an output written whole at the end of a run (a profile): the file
 * it is written into is created before the traced command starts, so
 * that anything that keeps it from being made (a read-only or full file
 * system, a quota) is said before the run rather than after it.
 * ustack_tracedat_outfile_write() then writes into it;
 * ustack_tracedat_outfile_close() removes it if it was never written.
 * Returns 0, or -1 with the reason in @of.
 */
int ustack_tracedat_outfile_reserve(struct ustack_tracedat_outfile *of)
{
	if (of->tmp)
		return 0;
	of->tmp = make_temp(of);
	return of->tmp ? 0 : fail(of, USTACK_TRACEDAT_OUTFILE_WRITE);
}

/**
 * ustack_tracedat_outfile_write - write the recording and put it in place
 * @of: an opened output
 * @write: writes the whole recording into the file it is given
 * @data: for @write
 *
 * Returns 0, or -1 with the reason in @of; on failure no partial file is
 * left at a regular output's name (a stream may have had part of it).
 * The writing may be cut short by a stop signal; putting the recording in
 * place may not: on success the calling thread returns with SIGINT,
 * SIGTERM and SIGHUP blocked since the moment it was in place, so that a
 * second signal, which removes the temporaries and ends the process,
 * never undoes what the caller then says of the file. They stay pending.
 */
int ustack_tracedat_outfile_write(struct ustack_tracedat_outfile *of,
			 int (*write)(const char *file, void *data), void *data)
{
	/* the temporary reserved, if any, is this call's from now on */
	char *tmp = of->tmp ? of->tmp : make_temp(of);
	int ret;

	of->tmp = NULL;
	if (!tmp)
		return fail(of, USTACK_TRACEDAT_OUTFILE_WRITE);
	errno = 0;
	ret = write(tmp, data);
	if (ret == 0)
		ret = put_in_place(of, tmp);
	if (ret < 0) {
		if (!errno)
			errno = EIO;
		fail(of, USTACK_TRACEDAT_OUTFILE_WRITE);
		ustack_tempfile_remove(tmp);
	} else if (of->stream_fd >= 0) {
		ustack_tempfile_remove(tmp);
	}
	free(tmp);
	return ret;
}

/**
 * ustack_tracedat_outfile_strerror - the one-line reason an output failed
 * @of: the output
 * @buf: where to write it
 * @size: of @buf
 */
const char *ustack_tracedat_outfile_strerror(const struct ustack_tracedat_outfile *of, char *buf, size_t size)
{
	const char *name = of->name ? of->name : "output";

	switch (of->err) {
	case USTACK_TRACEDAT_OUTFILE_KIND:
		snprintf(buf, size,
			 "cannot write %s: %s (a recording goes to a regular file, a character device or a FIFO)",
			 name, of->kind);
		break;
	case USTACK_TRACEDAT_OUTFILE_DIR:
		snprintf(buf, size, "cannot write %s: directory %s: %s", name, of->dir,
			 strerror(of->sys_errno));
		break;
	case USTACK_TRACEDAT_OUTFILE_NOMEM:
		snprintf(buf, size, "cannot write %s: %s", name, strerror(ENOMEM));
		break;
	case USTACK_TRACEDAT_OUTFILE_OPEN:
	case USTACK_TRACEDAT_OUTFILE_WRITE:
	default:
		snprintf(buf, size, "cannot write %s: %s", name, strerror(of->sys_errno));
		break;
	}
	return buf;
}

/**
 * ustack_tracedat_outfile_close - release what ustack_tracedat_outfile_open() took
 * @of: the output, opened or only zeroed
 */
void ustack_tracedat_outfile_close(struct ustack_tracedat_outfile *of)
{
	if (!of->name)
		return;
	if (of->tmp)
		ustack_tempfile_remove(of->tmp);
	free(of->tmp);
	of->tmp = NULL;
	if (of->stream_fd >= 0)
		close(of->stream_fd);
	of->stream_fd = -1;
	free(of->name);
	free(of->dest);
	free(of->prefix);
	free(of->dir);
	of->name = of->dest = of->prefix = of->dir = NULL;
}
