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
static int open_symfs_fallback(const struct ustack_resolver *r, const char *path)
{
	char *real = realpath(path, NULL);
	size_t n = r->symfs_real ? strlen(r->symfs_real) : 0;
	int fd = USTACK_ERR_SYMFS;

	if (!real)
		return -errno;
	if (n && !strncmp(real, r->symfs_real, n) &&
	    (real[n] == '/' || !strcmp(r->symfs_real, "/")))
		fd = ustack_open_regular(real);
	free(real);
	return fd;
}

static int open_symfs(const struct ustack_resolver *r, const char *path,
		      const char *rel)
{
	struct stat st, st2;
	bool outside;
	int pfd, fd;

	if (r->symfs_fd < 0)
		return r->symfs_err;
	if (r->no_openat2)
		return open_symfs_fallback(r, path);
	/* O_PATH first: a FIFO or device is not opened, only looked at. */
	pfd = open_in_symfs(r, rel, O_PATH | O_CLOEXEC, &outside);
	if (pfd < 0 && errno == ENOSYS)
		return open_symfs_fallback(r, path);
	if (pfd < 0)
		return outside || errno == EXDEV ? USTACK_ERR_SYMFS : -errno;
	if (fstat(pfd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(pfd);
		return USTACK_ERR_NOT_REGULAR;
	}
	close(pfd);
	fd = open_in_symfs(r, rel, OPEN_FLAGS, &outside);
	if (fd < 0)
		return -errno;
	/* Swapped in between: O_NONBLOCK kept it from blocking. */
	if (fstat(fd, &st2) < 0 || !same_file(&st, &st2)) {
		close(fd);
		return USTACK_ERR_NOT_REGULAR;
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
 *
 * A FIFO, device or socket is not opened at all (opening may block or
 * act), nor a file of proc, sysfs, tracefs and the like, and O_NONBLOCK
 * covers one swapped in between stat() and open().
 * Returns the descriptor, or -errno or USTACK_ERR_NOT_REGULAR.
 */
int ustack_open_regular(const char *path)
{
	struct statfs sfs;
	struct stat st;
	int fd;

	if ((stat(path, &st) == 0 && !S_ISREG(st.st_mode)) ||
	    (statfs(path, &sfs) == 0 && is_pseudo_fs(&sfs)))
		return USTACK_ERR_NOT_REGULAR;
	fd = open(path, OPEN_FLAGS);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    fstatfs(fd, &sfs) < 0 || is_pseudo_fs(&sfs)) {
		close(fd);
		return USTACK_ERR_NOT_REGULAR;
	}
	return fd;
}

/**
 * ustack_open_file - open a file a trace names, read-only
 * @r: resolver whose --symfs confines @path, or NULL
 * @path: the file; confined when it lies under the resolver's symfs
 *
 * Only a regular file is opened. Returns the descriptor or a negative
 * error code (lib/ustack-err.h).
 */
int ustack_open_file(const struct ustack_resolver *r, const char *path)
{
	const char *rel = symfs_rel(r, path);

	if (rel)
		return open_symfs(r, path, rel);
	return ustack_open_regular(path);
}

/**
 * ustack_open_symfs - open the --symfs directory once
 * @r: resolver with r->symfs set
 *
 * A directory that cannot be opened leaves every frame under it
 * unresolved, with the reason. USTACK_TEST_NO_OPENAT2 in the environment
 * makes the tests take the path of kernels without openat2().
 */
void ustack_open_symfs(struct ustack_resolver *r)
{
	r->symfs_fd = -1;
	r->symfs_err = USTACK_ERR_NO_SYMFS;
	if (!r->symfs)
		return;
	r->no_openat2 = getenv("USTACK_TEST_NO_OPENAT2") != NULL;
	r->symfs_fd = open(r->symfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (r->symfs_fd < 0) {
		r->symfs_err = -errno;
		return;
	}
	r->symfs_real = realpath(r->symfs, NULL);
}
