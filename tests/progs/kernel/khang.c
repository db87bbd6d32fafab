// SPDX-License-Identifier: GPL-2.0
/*
 * khang: a traced task whose deferred unwind hangs in the announcement of
 * a file, as on a hung NFS or FUSE server (tests/bats/vm/kernel-hang.bats).
 *
 *   khang serve DIR MARK   mount a FUSE file system on DIR (root only,
 *                          no libfuse) holding one 64 KiB file, DIR/f,
 *                          and serve it: every request is answered but
 *                          READ, which is never answered; MARK is created
 *                          when the first READ comes. Runs until killed;
 *                          the kernel then fails the held reads.
 *   khang call FILE        map FILE (without reading it) and make one
 *                          getppid system call whose user stack has a
 *                          frame in that mapping: a fake frame whose
 *                          return address is in FILE. The unwind callback
 *                          must then name FILE (inode_cache), and reading
 *                          its build id reads FILE.
 *   khang fault FILE       map FILE executable, make the same call, then
 *                          read FILE: the task is held in that page fault
 *                          (a version 4 kernel reads no file for its
 *                          deferred stacks or mapping records).
 *   khang exec FILE PROG [ARG...]
 *                          the same, with an execve of PROG for the
 *                          system call (kernel-fixes.bats: the unwind of
 *                          the execve's stack sleeps in that read).
 *
 * Built with frame pointers: the kernel's deferred unwinder walks them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fuse.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#define NOINLINE __attribute__((noinline))

#define ROOT_ID		1
#define FILE_ID		2
#define FILE_SIZE	65536

static void die(const char *what)
{
	fprintf(stderr, "khang: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void reply(int fd, uint64_t unique, int error, const void *arg, size_t len)
{
	char buf[sizeof(struct fuse_out_header) + 256];
	struct fuse_out_header *out = (void *)buf;

	out->len = sizeof(*out) + len;
	out->error = error;
	out->unique = unique;
	memcpy(buf + sizeof(*out), arg, len);
	/* The kernel may have given up on the request meanwhile: ENOENT */
	if (write(fd, buf, out->len) < 0 && errno != ENOENT)
		die("reply");
}

static void attr_of(uint64_t id, struct fuse_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->ino = id;
	attr->nlink = 1;
	attr->blksize = 4096;
	if (id == ROOT_ID) {
		attr->mode = S_IFDIR | 0755;
	} else {
		attr->mode = S_IFREG | 0755;
		attr->size = FILE_SIZE;
		attr->blocks = FILE_SIZE / 512;
	}
}

/* One request; false when the file system is gone */
static int serve_one(int fd, const char *mark)
{
	static char buf[FUSE_MIN_READ_BUFFER + 65536];
	struct fuse_in_header *in = (void *)buf;
	void *arg = buf + sizeof(*in);
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n < 0)
		return errno == EINTR || errno == ENOENT;
	switch (in->opcode) {
	case FUSE_INIT: {
		struct fuse_init_out out = {
			.major = FUSE_KERNEL_VERSION,
			.minor = FUSE_KERNEL_MINOR_VERSION,
			.max_readahead = 4096,
			.max_write = 4096,
		};
		reply(fd, in->unique, 0, &out, sizeof(out));
		break;
	}
	case FUSE_LOOKUP: {
		struct fuse_entry_out out = { 0 };

		if (in->nodeid != ROOT_ID || strcmp(arg, "f")) {
			reply(fd, in->unique, -ENOENT, NULL, 0);
			break;
		}
		out.nodeid = FILE_ID;
		out.generation = 1;
		out.entry_valid = out.attr_valid = 3600;
		attr_of(FILE_ID, &out.attr);
		reply(fd, in->unique, 0, &out, sizeof(out));
		break;
	}
	case FUSE_GETATTR: {
		struct fuse_attr_out out = { .attr_valid = 3600 };

		attr_of(in->nodeid, &out.attr);
		reply(fd, in->unique, 0, &out, sizeof(out));
		break;
	}
	case FUSE_OPEN: {
		struct fuse_open_out out = { .fh = 1 };

		reply(fd, in->unique, 0, &out, sizeof(out));
		break;
	}
	case FUSE_READ:
		/* Held for good: whoever reads waits until we are killed */
		close(open(mark, O_CREAT | O_WRONLY, 0644));
		break;
	case FUSE_FLUSH:
	case FUSE_RELEASE:
		reply(fd, in->unique, 0, NULL, 0);
		break;
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
	case FUSE_INTERRUPT:
		break;
	default:
		reply(fd, in->unique, -ENOSYS, NULL, 0);
	}
	return 1;
}

static int serve(const char *dir, const char *mark)
{
	char opts[128];
	int fd = open("/dev/fuse", O_RDWR);

	if (fd < 0)
		die("/dev/fuse");
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40755,user_id=0,group_id=0", fd);
	if (mount("khang", dir, "fuse", MS_NOSUID | MS_NODEV, opts))
		die("mount");
	while (serve_one(fd, mark))
		;
	return 0;
}

/* Keeps @frame on the stack, above the stack pointer */
static NOINLINE void keep(volatile unsigned long *frame)
{
	(void)frame;
}

/*
 * System call @nr with the frame pointer at a frame of our own: its saved
 * frame pointer ends the walk, its return address is @ra
 */
static NOINLINE long syscall_returning_to(long nr, long a1, long a2, long a3,
					  unsigned long ra)
{
	volatile unsigned long frame[2] = { 0, ra };
	long ret;

	keep(frame);
	asm volatile("mov %%rbp, %%r12\n\t"
		     "mov %5, %%rbp\n\t"
		     "syscall\n\t"
		     "mov %%r12, %%rbp"
		     : "=a"(ret)
		     : "0"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(frame)
		     : "rcx", "r11", "r12", "memory");
	return ret;
}

/* FILE mapped without being read, as a place for a return address */
static char *map_file(const char *path, int prot)
{
	int fd = open(path, O_RDONLY);
	char *map;

	if (fd < 0)
		die(path);
	map = mmap(NULL, FILE_SIZE, prot, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		die("mmap");
	return map;
}

static int call(const char *path)
{
	char *map = map_file(path, PROT_READ);

	syscall_returning_to(SYS_getppid, 0, 0, 0, (unsigned long)map + 0x1234);
	return 0;
}

/*
 * FILE mapped executable (a version 4 kernel writes its mapping record
 * then, without reading it), one traced call with a frame in it, then a
 * read of it, which the server holds: the task stays in that page fault
 */
static int fault(const char *path)
{
	volatile char *map = map_file(path, PROT_READ | PROT_EXEC);

	syscall_returning_to(SYS_getppid, 0, 0, 0, (unsigned long)map + 0x1234);
	return map[0x1234] == 0x7f;
}

/* execve of @argv from a stack with a frame in FILE */
static int exec_from(const char *path, char **argv)
{
	extern char **environ;
	char *map = map_file(path, PROT_READ);

	syscall_returning_to(SYS_execve, (long)argv[0], (long)argv, (long)environ,
			     (unsigned long)map + 0x1234);
	die(argv[0]);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "serve"))
		return serve(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "call"))
		return call(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "fault"))
		return fault(argv[2]);
	if (argc >= 4 && !strcmp(argv[1], "exec"))
		return exec_from(argv[2], argv + 3);
	fprintf(stderr, "usage: khang serve DIR MARK | khang call FILE | khang fault FILE |\n"
		"             khang exec FILE PROG [ARG...]\n");
	return 2;
}
