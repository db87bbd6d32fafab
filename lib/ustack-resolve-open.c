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
 *
 * Files found by convention rather than named by the traced program's
 * mappings (a perf map /tmp/perf-<pid>.map, debug files by build id or
 * .gnu_debuglink, the debuginfod cache) are opened by
 * ustack_resolve_open_trusted(), with perf's rule on top: another user may have
 * put them there, in /tmp or any directory the traced path leads to.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
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
#include "ustack-warn.h"

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
		fd = ustack_resolve_open_regular(real);
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
 * ustack_resolve_open_regular - open a file read-only, if it is a regular file
 * @path: the file
 *
 * A FIFO, device or socket is not opened at all (opening may block or
 * act), nor a file of proc, sysfs, tracefs and the like, and O_NONBLOCK
 * covers one swapped in between stat() and open().
 * Returns the descriptor, or -errno or USTACK_ERR_NOT_REGULAR.
 */
int ustack_resolve_open_regular(const char *path)
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
 * ustack_resolve_open_file - open a file a trace names, read-only
 * @r: resolver whose --symfs confines @path, or NULL
 * @path: the file; confined when it lies under the resolver's symfs
 *
 * Only a regular file is opened. Returns the descriptor or a negative
 * error code (lib/ustack-err.h).
 */
int ustack_resolve_open_file(const struct ustack_resolver *r, const char *path)
{
	const char *rel = symfs_rel(r, path);

	if (rel)
		return open_symfs(r, path, rel);
	return ustack_resolve_open_regular(path);
}

/* ------------------------------------------------------------------ */
/* Files found by convention                                          */
/* ------------------------------------------------------------------ */

/* Symbolic links followed from one path at most (the kernel's limit) */
#define TRUST_MAX_LINKS	40

/* A file refused, remembered so that its warning is said once */
struct urefused {
	struct ustack_hnode	node;
	char			path[];
};

/* The directory part of @path ("." when none) */
static char *dir_part(const char *path)
{
	const char *s = strrchr(path, '/');

	if (!s)
		return strdup(".");
	return strndup(path, s == path ? 1 : s - path);
}

/* Kernels without openat2(): the directory by realpath(), then inside DIR. */
static int open_nofollow_fallback(const struct ustack_resolver *r,
				  const char *path, int flags)
{
	char *dir = dir_part(path), *real = dir ? realpath(dir, NULL) : NULL;
	size_t n = r->symfs_real ? strlen(r->symfs_real) : 0;
	const char *base = strrchr(path, '/');
	int fd = USTACK_ERR_SYMFS;
	char *p;

	if (!real) {
		fd = dir ? -errno : USTACK_ERR_NOMEM;
		free(dir);
		return fd;
	}
	if (n && !strncmp(real, r->symfs_real, n) &&
	    (!real[n] || real[n] == '/' || !strcmp(r->symfs_real, "/"))) {
		p = ustack_resolve_util_xasprintf("%s/%s", real, base ? base + 1 : path);
		fd = p ? open(p, flags | O_NOFOLLOW) : USTACK_ERR_NOMEM;
		if (p && fd < 0)
			fd = -errno;
		free(p);
	}
	free(real);
	free(dir);
	return fd;
}

/*
 * open(@path, @flags | O_NOFOLLOW), inside --symfs when it lies under it:
 * the last component is never followed (O_PATH gives a symlink itself).
 */
static int open_nofollow(const struct ustack_resolver *r, const char *path,
			 int flags)
{
	const char *rel = symfs_rel(r, path);
	bool outside;
	int fd;

	if (!rel) {
		fd = open(path, flags | O_NOFOLLOW);
		return fd < 0 ? -errno : fd;
	}
	if (r->symfs_fd < 0)
		return r->symfs_err;
	if (r->no_openat2)
		return open_nofollow_fallback(r, path, flags);
	fd = open_in_symfs(r, rel, flags | O_NOFOLLOW, &outside);
	if (fd < 0 && errno == ENOSYS)
		return open_nofollow_fallback(r, path, flags);
	if (fd < 0)
		return outside || errno == EXDEV ? USTACK_ERR_SYMFS : -errno;
	return fd;
}

/*
 * The path a symlink at @path (open as @lfd, O_PATH) leads to: relative
 * to its directory, or absolute (inside --symfs, as the kernel would
 * resolve it there).
 */
static char *link_target(const struct ustack_resolver *r, const char *path,
			 int lfd)
{
	char buf[PATH_MAX], *dir, *p;
	ssize_t n;

	n = readlinkat(lfd, "", buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	if (buf[0] == '/')
		return symfs_rel(r, path) ? ustack_resolve_util_symfs_path(r, buf) : strdup(buf);
	dir = dir_part(path);
	p = dir ? ustack_resolve_util_xasprintf("%s/%s", dir, buf) : NULL;
	free(dir);
	return p;
}

static bool owner_trusted(uid_t uid, uid_t also)
{
	return uid == 0 || uid == geteuid() || (also != USTACK_UID_NONE && uid == also);
}

/* Whether @path was refused before; remembers it when not. */
static bool refused_before(struct ustack_resolver *r, const char *path)
{
	uint64_t h = ustack_hash_str(path);
	struct ustack_hnode *pos;
	struct urefused *f;
	size_t len;

	ustack_hash_table_for_each_hash(&r->refused, pos, h) {
		f = ustack_hash_table_entry(pos, struct urefused, node);
		if (!strcmp(f->path, path))
			return true;
	}
	len = strlen(path) + 1;
	f = malloc(sizeof(*f) + len);
	if (f) {
		memcpy(f->path, path, len);
		if (ustack_hash_table_add(&r->refused, &f->node, h))
			free(f);
	}
	return false;
}

/*
 * Refuse @path (found as @asked) with @err: one warning per file, naming
 * it and why. A directory is not refused aloud: perf's build-id cache
 * keeps directories where gdb's layout has files.
 */
static int refuse(struct ustack_resolver *r, const char *asked, const char *path,
		  int err, const struct stat *st, uid_t also)
{
	char via[PATH_MAX + 8] = "", who[64] = "";

	if (S_ISDIR(st->st_mode) || refused_before(r, path))
		return err;
	if (strcmp(asked, path))
		snprintf(via, sizeof(via), " (from %s)", asked);
	if (also != USTACK_UID_NONE && also != 0 && also != geteuid())
		snprintf(who, sizeof(who), ", nor the traced process's owner (uid %u)",
			 (unsigned int)also);
	if (err == USTACK_ERR_NOT_REGULAR)
		ustack_warning("%s%s: not used: not a regular file", path, via);
	else if (S_ISLNK(st->st_mode))
		ustack_warning("%s%s: not used: a symbolic link owned by uid %u, not root or the user running",
			       path, via, (unsigned int)st->st_uid);
	else
		ustack_warning("%s%s: not used: owned by uid %u, not root or the user running%s",
			       path, via, (unsigned int)st->st_uid, who);
	return err;
}

/*
 * The last component of @path, with its links followed one by one: each
 * must be owned by root or the user running (as perf checks a perf map
 * with lstat()). Returns an O_PATH descriptor of what it leads to, with
 * *@st its stat and *@at its path (the caller frees it), or a negative
 * code.
 */
static int walk_links(struct ustack_resolver *r, const char *path,
		      struct stat *st, char **at)
{
	char *cur = strdup(path), *next;
	int fd = USTACK_ERR_NOMEM, i;

	for (i = 0; cur; i++) {
		fd = open_nofollow(r, cur, O_PATH | O_CLOEXEC);
		if (fd < 0)
			break;
		if (fstat(fd, st) < 0) {
			close(fd);
			fd = -errno;
			break;
		}
		if (!S_ISLNK(st->st_mode)) {
			*at = cur;
			return fd;
		}
		if (!owner_trusted(st->st_uid, USTACK_UID_NONE)) {
			close(fd);
			fd = refuse(r, path, cur, USTACK_ERR_UNTRUSTED, st, USTACK_UID_NONE);
			break;
		}
		next = i < TRUST_MAX_LINKS ? link_target(r, cur, fd) : NULL;
		close(fd);
		fd = i < TRUST_MAX_LINKS ? USTACK_ERR_NOMEM : -ELOOP;
		free(cur);
		cur = next;
	}
	free(cur);
	return fd;
}

/**
 * ustack_resolve_open_trusted - open a file found by convention, read-only
 * @r:		resolver (--symfs confines the path, as ustack_resolve_open_file())
 * @path:	the file: a perf map, a debug file, a debuginfod cache entry
 * @also:	one more owner to trust (a live process, for its own perf
 *		map), or USTACK_UID_NONE
 *
 * perf's rule for a file that anyone might have put where we look: only
 * a regular file (not even opened otherwise), owned by root or by the
 * user running the tool (geteuid()), or @also. A symbolic link is never
 * followed by open() (O_NOFOLLOW): one owned by root or the user running
 * is followed here, link by link, and what it leads to must pass the same
 * rule; one owned by anybody else is refused, so that no other user can
 * make us read a file of ours. Each refused file is said once, with why
 * ("F: not used: owned by uid N, not root or the user running").
 *
 * The ELF files a trace names (the traced program and its libraries) do
 * not go through this: a user's own program is owned by that user.
 *
 * Returns the descriptor, or a negative code: -errno (-ENOENT when there
 * is no such file), USTACK_ERR_UNTRUSTED, USTACK_ERR_NOT_REGULAR,
 * USTACK_ERR_SYMFS.
 */
int ustack_resolve_open_trusted(struct ustack_resolver *r, const char *path, uid_t also)
{
	struct stat st, st2;
	struct statfs sfs;
	char *at = NULL;
	int pfd, fd;

	pfd = walk_links(r, path, &st, &at);
	if (pfd < 0)
		return pfd;
	if (!S_ISREG(st.st_mode) || fstatfs(pfd, &sfs) < 0 || is_pseudo_fs(&sfs))
		fd = refuse(r, path, at, USTACK_ERR_NOT_REGULAR, &st, also);
	else if (!owner_trusted(st.st_uid, also))
		fd = refuse(r, path, at, USTACK_ERR_UNTRUSTED, &st, also);
	else
		fd = open_nofollow(r, at, OPEN_FLAGS);
	close(pfd);
	/* Swapped in between: O_NOFOLLOW and O_NONBLOCK kept it harmless. */
	if (fd >= 0 && (fstat(fd, &st2) < 0 || !same_file(&st, &st2) ||
			!owner_trusted(st2.st_uid, also))) {
		close(fd);
		fd = USTACK_ERR_NOT_REGULAR;
	}
	free(at);
	return fd;
}

/* Free what ustack_resolve_open_trusted() remembers (the files it refused). */
void ustack_resolve_open_forget(struct ustack_resolver *r)
{
	struct ustack_hnode *pos, *tmp;
	size_t i;

	ustack_hash_table_for_each_safe(&r->refused, i, pos, tmp)
		free(ustack_hash_table_entry(pos, struct urefused, node));
	ustack_hash_table_release(&r->refused);
}

/**
 * ustack_resolve_open_symfs - open the --symfs directory once
 * @r: resolver with r->symfs set
 *
 * A directory that cannot be opened leaves every frame under it
 * unresolved, with the reason. USTACK_TEST_NO_OPENAT2 in the environment
 * makes the tests take the path of kernels without openat2().
 */
void ustack_resolve_open_symfs(struct ustack_resolver *r)
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
