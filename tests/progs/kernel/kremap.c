// SPDX-License-Identifier: GPL-2.0
/*
 * kremap FILE_A FILE_B N: makes N getppid calls from a stub mapped from
 * FILE_A, unmaps it, maps FILE_B at the same address and makes N more.
 * The two files hold the same code, so only the file behind the leaf
 * frame tells the phases apart: a kernel that kept using what it knew of
 * the first mapping would name FILE_A for the second phase.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>

/* getppid through the syscall instruction, x86-64: mov $110,%eax; syscall; ret */
static const unsigned char stub[] = { 0xb8, 110, 0, 0, 0, 0x0f, 0x05, 0xc3 };

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void write_stub(const char *path)
{
	static unsigned char page[4096];
	int fd;

	memcpy(page, stub, sizeof(stub));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (fd < 0 || write(fd, page, sizeof(page)) != sizeof(page) || close(fd))
		die(path);
}

static void *map_stub(const char *path, void *at)
{
	int fd = open(path, O_RDONLY);
	void *p;

	if (fd < 0)
		die(path);
	p = mmap(at, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | (at ? MAP_FIXED : 0), fd, 0);
	if (p == MAP_FAILED)
		die("mmap");
	close(fd);
	return p;
}

static void calls(void *code, int n)
{
	long (*fn)(void) = (long (*)(void))code;

	while (n-- > 0)
		fn();
}

int main(int argc, char **argv)
{
	void *at;
	int n;

	if (argc != 4)
		return 2;
	n = atoi(argv[3]);
	write_stub(argv[1]);
	write_stub(argv[2]);
	at = map_stub(argv[1], NULL);
	calls(at, n);
	if (munmap(at, 4096))
		die("munmap");
	map_stub(argv[2], at);
	calls(at, n);
	printf("%p\n", at);
	return 0;
}
