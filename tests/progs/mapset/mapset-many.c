// SPDX-License-Identifier: GPL-2.0
/*
 * mapset-many MAPS [FORKS]: map one page of this program's file MAPS
 * times, executable, each at an address of its own (a perf MMAP2 record
 * each: the side-band's history of this process grows to MAPS
 * mappings), then call getppid(2) from many_after_maps(); then fork
 * FORKS children one after the other, each calling getppid(2) from
 * many_child() and exiting: each fork record starts a space from this
 * process's MAPS mappings.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ustack-progs.h"

__attribute__((noinline)) static void many_after_maps(void)
{
	USTACK_SYSCALL_GETPPID();
}

__attribute__((noinline)) static void many_child(void)
{
	USTACK_SYSCALL_GETPPID();
}

static void map_pages(int fd, long maps)
{
	long i;

	for (i = 0; i < maps; i++) {
		if (mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED) {
			perror("mapset-many: mmap");
			exit(1);
		}
	}
}

static void fork_children(long forks)
{
	pid_t pid;
	long i;

	for (i = 0; i < forks; i++) {
		pid = fork();
		if (pid < 0) {
			perror("mapset-many: fork");
			exit(1);
		}
		if (!pid) {
			many_child();
			_exit(0);
		}
		if (waitpid(pid, NULL, 0) != pid) {
			perror("mapset-many: waitpid");
			exit(1);
		}
	}
}

int main(int argc, char **argv)
{
	long maps = argc > 1 ? atol(argv[1]) : 1000;
	long forks = argc > 2 ? atol(argv[2]) : 0;
	int fd = open("/proc/self/exe", O_RDONLY);

	if (fd < 0) {
		perror("mapset-many: /proc/self/exe");
		return 1;
	}
	map_pages(fd, maps);
	many_after_maps();
	fork_children(forks);
	return 0;
}
