// SPDX-License-Identifier: LGPL-2.1
/*
 * Opening the files a trace names. A trace.dat may come from anywhere, so
 * the paths in it are untrusted:
 *
 *  - only regular files are opened: a FIFO, device or socket is looked
 *    at (O_PATH, fstat) but never opened, since opening one may block or
 *    act;
 *  - with --symfs DIR, a path under DIR is resolved with DIR as its root
 *    (openat2() RESOLVE_IN_ROOT): ".." at DIR stays at DIR and an
 *    absolute symlink (a copied /usr/lib/libfoo.so -> /usr/lib/libfoo.so.1)
 *    is followed inside DIR, as on the machine the files come from.
 *    Nothing outside DIR is ever opened. RESOLVE_BENEATH alone would refuse
 *    those absolute symlinks, which every copied sysroot has; it is tried
 *    first only to tell a path that stays inside from one that climbs out
 *    (by ".." or a symlink): one that climbs out and names nothing under
 *    the root semantics is reported "outside --symfs".
 *
 * On kernels without openat2() (before 5.6) the path is resolved with
 * realpath() and must then lie under DIR: absolute symlinks are followed
 * on this machine there, so they are refused when they lead out.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/magic.h>
#include <linux/openat2.h>

#include "ustack-open.h"
#include "ustack-resolve-int.h"

const char ustack_msg_symfs[] = "outside --symfs";
const char ustack_msg_capped[] = "over a size cap";
const char ustack_msg_not_regular[] = "not a regular file";

#define OPEN_FLAGS	(O_RDONLY | O_CLOEXEC | O_NONBLOCK)

/* The part of @path under r->symfs, or NULL when it is not under it. */
static const char *symfs_rel(const struct ustack_resolver *r, const char *path)
{
	size_t n;

	if (!r || !r->symfs)
		return NULL;
	n = strlen(r->symfs);
	if (strncmp(path, r->symfs, n) || path[n] != '/')
		return NULL;
	while (path[n] == '/')
		n++;
	return path + n;
}

/* glibc 2.36 has no wrapper */
static int sys_openat2(int dirfd, const char *path, int flags, uint64_t resolve)
{
	struct open_how how = {
		.flags = flags,
		.resolve = resolve | RESOLVE_NO_MAGICLINKS,
	};

	return syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}

/*
 * @rel inside the symfs directory, with @flags: beneath it when that
 * works, else with it as the root. Sets *@outside when the path climbs
 * out of it under plain resolution. -1 and errno on failure.
 */
static int open_in_symfs(const struct ustack_resolver *r, const char *rel,
			 int flags, bool *outside)
{
	int fd;

	*outside = false;
	fd = sys_openat2(r->symfs_fd, *rel ? rel : ".", flags, RESOLVE_BENEATH);
	if (fd >= 0 || errno != EXDEV)
		return fd;
	*outside = true;
	return sys_openat2(r->symfs_fd, rel, flags, RESOLVE_IN_ROOT);
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Kernels without openat2(): realpath() and a prefix check. */
static int open_symfs_fallback(const struct ustack_resolver *r, const char *path,
			       const char **err)
{
	char *real = realpath(path, NULL);
	size_t n = r->symfs_real ? strlen(r->symfs_real) : 0;
	int fd = -1;

	if (!real) {
		*err = strerror(errno);
		return -1;
	}
	if (!n || strncmp(real, r->symfs_real, n) ||
	    (real[n] != '/' && strcmp(r->symfs_real, "/"))) {
		*err = ustack_msg_symfs;
		goto out;
	}
	fd = ustack_open_regular(real, err);
out:
	free(real);
	return fd;
}

static int open_symfs(const struct ustack_resolver *r, const char *path,
		      const char *rel, const char **err)
{
	struct stat st, st2;
	bool outside;
	int pfd, fd;

	if (r->symfs_fd < 0) {
		*err = r->symfs_err;
		return -1;
	}
	if (r->no_openat2)
		return open_symfs_fallback(r, path, err);
	/* O_PATH first: a FIFO or device is not opened, only looked at. */
	pfd = open_in_symfs(r, rel, O_PATH | O_CLOEXEC, &outside);
	if (pfd < 0 && errno == ENOSYS)
		return open_symfs_fallback(r, path, err);
	if (pfd < 0) {
		*err = outside || errno == EXDEV ? ustack_msg_symfs : strerror(errno);
		return -1;
	}
	if (fstat(pfd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(pfd);
		*err = ustack_msg_not_regular;
		return -1;
	}
	close(pfd);
	fd = open_in_symfs(r, rel, OPEN_FLAGS, &outside);
	if (fd < 0) {
		*err = strerror(errno);
		return -1;
	}
	/* Swapped in between: O_NONBLOCK kept it from blocking. */
	if (fstat(fd, &st2) < 0 || !same_file(&st, &st2)) {
		close(fd);
		*err = ustack_msg_not_regular;
		return -1;
	}
	return fd;
}

/*
 * proc, sysfs, tracefs and the like call their files regular, but opening
 * or reading one acts (trace_pipe consumes the trace) or tells about this
 * machine, never about a traced program's binaries.
 */
static bool is_pseudo_fs(const struct statfs *sfs)
{
	switch ((unsigned long)sfs->f_type) {
	case PROC_SUPER_MAGIC:
	case SYSFS_MAGIC:
	case TRACEFS_MAGIC:
	case DEBUGFS_MAGIC:
	case SECURITYFS_MAGIC:
	case CGROUP_SUPER_MAGIC:
	case CGROUP2_SUPER_MAGIC:
	case BPF_FS_MAGIC:
	case EFIVARFS_MAGIC:
	case PSTOREFS_MAGIC:
		return true;
	}
	return false;
}

/**
 * ustack_open_regular - open a file read-only, if it is a regular file
 * @path: the file
 * @err: set to a static message on failure (ustack_msg_not_regular, or
 *	 the errno string)
 *
 * A FIFO, device or socket is not opened at all (opening may block or
 * act), nor a file of proc, sysfs, tracefs and the like, and O_NONBLOCK
 * covers one swapped in between stat() and open().
 * Returns the descriptor or -1.
 */
int ustack_open_regular(const char *path, const char **err)
{
	struct statfs sfs;
	struct stat st;
	int fd;

	if ((stat(path, &st) == 0 && !S_ISREG(st.st_mode)) ||
	    (statfs(path, &sfs) == 0 && is_pseudo_fs(&sfs))) {
		*err = ustack_msg_not_regular;
		return -1;
	}
	fd = open(path, OPEN_FLAGS);
	if (fd < 0) {
		*err = strerror(errno);
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    fstatfs(fd, &sfs) < 0 || is_pseudo_fs(&sfs)) {
		*err = ustack_msg_not_regular;
		close(fd);
		return -1;
	}
	return fd;
}

/**
 * ustack_open_file - open a file a trace names, read-only
 * @r: resolver whose --symfs confines @path, or NULL
 * @path: the file; confined when it lies under the resolver's symfs
 * @err: set to a static message on failure
 *
 * Only a regular file is opened. Returns the descriptor or -1.
 */
int ustack_open_file(const struct ustack_resolver *r, const char *path,
		     const char **err)
{
	const char *rel = symfs_rel(r, path);

	if (rel)
		return open_symfs(r, path, rel, err);
	return ustack_open_regular(path, err);
}

/**
 * ustack_symfs_init - open the --symfs directory once
 * @r: resolver with r->symfs set
 *
 * A directory that cannot be opened leaves every frame under it
 * unresolved, with the reason. USTACK_TEST_NO_OPENAT2 in the environment
 * makes the tests take the path of kernels without openat2().
 */
void ustack_symfs_init(struct ustack_resolver *r)
{
	r->symfs_fd = -1;
	r->symfs_err = "no --symfs";
	if (!r->symfs)
		return;
	r->no_openat2 = getenv("USTACK_TEST_NO_OPENAT2") != NULL;
	r->symfs_fd = open(r->symfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (r->symfs_fd < 0) {
		r->symfs_err = strerror(errno);
		return;
	}
	r->symfs_real = realpath(r->symfs, NULL);
}
