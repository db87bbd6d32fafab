// SPDX-License-Identifier: LGPL-2.1
/*
 * libtracecmd copies the formats it writes into a trace.dat from a
 * tracing directory, and has no call to add one of its own. The file
 * gets ours (ustack:sample, ustack:sample_copy) from a directory made for
 * the write: every entry of the real one and of its events/ as a symbolic
 * link, and events/ustack/sample/format and sample_copy/format
 * written here with the kernel's common fields (ftrace:print's). It is
 * removed once the file is written.
 *
 * libtracecmd also reads a file twice, its size then its bytes, and
 * writes a section no reader opens when the two differ: saved_cmdlines
 * changes whenever a traced task is new (other tracers, other test runs
 * beside ours), printk_formats when a module loads. Those two are
 * copies here, read once, so they cannot change between the reads.
 */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <tracefs.h>

#include "ustack-io.h"
#include "ustack-stopsig.h"
#include "ustack-tempfile.h"
#include "ustack-sample-event.h"
#include "ustack-tracedat-overlay.h"

#define FORMAT_MAX	8192

/* The common fields' lines of ftrace:print's format, NUL-terminated */
static int common_lines(const char *top, char *buf, size_t size)
{
	char path[PATH_MAX], *start, *end;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/events/ftrace/print/format", top);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	start = strstr(buf, "format:\n");
	end = start ? strstr(start, "\n\n") : NULL;
	/* the layout wants them to end at 8, with common_pid at 4 */
	if (!end || !strstr(start, "common_pid;\toffset:4;\tsize:4;"))
		return -1;
	start += strlen("format:\n");
	memmove(buf, start, end + 1 - start);
	buf[end + 1 - start] = '\0';
	return 0;
}

/* events/ustack/@name/format */
static int write_event(const char *dir, const char *name, const char *text, int len)
{
	char path[PATH_MAX];
	int fd, ret = -1;

	snprintf(path, sizeof(path), "%s/events/" USTACK_SAMPLE_SYSTEM "/%s", dir, name);
	if (mkdir(path, 0700) || ustack_tempfile_track(path))
		return -1;
	strncat(path, "/format", sizeof(path) - strlen(path) - 1);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (ustack_tempfile_track(path)) {
		close(fd);
		return -1;
	}
	if (write(fd, text, len) == len)
		ret = 0;
	if (close(fd))
		ret = -1;
	return ret;
}

/* ustack:sample and ustack:sample_copy */
static int write_format(const char *dir, const char *top)
{
	char common[FORMAT_MAX], text[FORMAT_MAX], path[PATH_MAX];
	int copy, len;

	if (common_lines(top, common, sizeof(common)))
		return -1;
	snprintf(path, sizeof(path), "%s/events/" USTACK_SAMPLE_SYSTEM, dir);
	if (mkdir(path, 0700) || ustack_tempfile_track(path))
		return -1;
	for (copy = 0; copy < 2; copy++) {
		len = ustack_sample_event_format(text, sizeof(text), common, copy);
		if (len < 0 || len >= (int)sizeof(text) ||
		    write_event(dir, copy ? USTACK_SAMPLE_COPY_NAME : USTACK_SAMPLE_NAME, text, len))
			return -1;
	}
	return 0;
}

static int link_into(const char *from, const char *to, const char *name)
{
	char src[PATH_MAX], dst[PATH_MAX];

	if (snprintf(src, sizeof(src), "%s/%s", from, name) >= (int)sizeof(src) ||
	    snprintf(dst, sizeof(dst), "%s/%s", to, name) >= (int)sizeof(dst)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (symlink(src, dst))
		return -1;
	return ustack_tempfile_track(dst);
}

/* The top directory's files copied, not linked (above) */
static const char *const snapshots[] = { "saved_cmdlines", "printk_formats" };
#define NR_SNAPSHOTS	(sizeof(snapshots) / sizeof(snapshots[0]))

/* @from/@name read to its end once, written as @to/@name */
static int copy_once(const char *from, const char *to, const char *name)
{
	char path[PATH_MAX], buf[65536];
	int in, out, ret = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", from, name);
	in = open(path, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return errno == ENOENT ? 0 : -1;
	snprintf(path, sizeof(path), "%s/%s", to, name);
	out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (out >= 0 && ustack_tempfile_track(path)) {
		close(out);
		out = -1;
	}
	if (out < 0) {
		close(in);
		return -1;
	}
	while (!ret && (n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || ustack_io_write_all(out, buf, n, NULL))
			ret = -1;
	}
	close(in);
	if (close(out))
		ret = -1;
	return ret;
}

static int copy_snapshots(const char *top, const char *dir)
{
	size_t i;

	for (i = 0; i < NR_SNAPSHOTS; i++)
		if (copy_once(top, dir, snapshots[i]))
			return -1;
	return 0;
}

/* In @to, a link to each entry of @from but @skip and those it has */
static int link_all(const char *from, const char *to, const char *skip)
{
	struct dirent *d;
	DIR *dp;
	int ret = 0;

	dp = opendir(from);
	if (!dp)
		return -1;
	while (!ret && (d = readdir(dp))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, "..") ||
		    !strcmp(d->d_name, skip))
			continue;
		ret = link_into(from, to, d->d_name);
		/* made here already: a copy (below) */
		if (ret && errno == EEXIST)
			ret = 0;
	}
	closedir(dp);
	return ret;
}

/* events/: a link to each of the real entries but ours */
static int link_events(const char *dir, const char *top)
{
	char from[PATH_MAX], to[PATH_MAX];

	snprintf(from, sizeof(from), "%s/events", top);
	snprintf(to, sizeof(to), "%s/events", dir);
	if (mkdir(to, 0700) || ustack_tempfile_track(to))
		return -1;
	return link_all(from, to, USTACK_SAMPLE_SYSTEM);
}

/**
 * ustack_tracedat_overlay_make - the tracing directory libtracecmd writes from
 * @sample: with the format of our ustack:sample records
 *
 * Returns its path (to ustack_tracedat_overlay_remove()), or NULL with
 * errno when it could not be made.
 */
char *ustack_tracedat_overlay_make(bool sample)
{
	const char *top = tracefs_tracing_dir();
	const char *tmp = getenv("TMPDIR");
	char *dir;
	sigset_t old;
	int err = 0;

	if (!top)
		return NULL;
	if (asprintf(&dir, "%s/ustack-formats-XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0)
		return NULL;
	/*
	 * every path made is on the temporaries' list before a stop signal
	 * can end the process: a second one removes them (newest first)
	 */
	ustack_stopsig_block(&old);
	if (!mkdtemp(dir)) {
		err = errno;
	} else if (ustack_tempfile_track(dir)) {
		err = errno;
		rmdir(dir);
	} else if (copy_snapshots(top, dir) || link_all(top, dir, "events") ||
		   link_events(dir, top) || (sample && write_format(dir, top))) {
		err = errno ? errno : EINVAL;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		ustack_tracedat_overlay_remove(dir);
		errno = err;
		return NULL;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		free(dir);
		errno = err;
		return NULL;
	}
	return dir;
}

/**
 * ustack_tracedat_overlay_remove - remove the directory and free its path
 * @dir: from ustack_tracedat_overlay_make() (may be NULL)
 *
 * Every path of it is a tracked temporary: removed newest first, as a
 * second stop signal would.
 */
void ustack_tracedat_overlay_remove(char *dir)
{
	if (!dir)
		return;
	ustack_tempfile_remove_tree(dir);
	free(dir);
}
