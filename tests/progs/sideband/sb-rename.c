// SPDX-License-Identifier: GPL-2.0
/*
 * A thread that renames itself half-way, in one burst:
 *   worker -> before_rename -> getppid(2)   N times (300), named sb-rename
 *   prctl(PR_SET_NAME, "sb-renamed")
 *   worker -> after_rename -> getppid(2)    M times (200), named sb-renamed
 * The main thread only waits (it keeps the name sb-rename).
 */
#include <pthread.h>
#include <sys/prctl.h>

#include "sb-progs.h"

static int before = 300, after = 200;

__attribute__((noinline)) static void before_rename(void)
{
	USTACK_SYSCALL_GETPPID();
}

__attribute__((noinline)) static void after_rename(void)
{
	USTACK_SYSCALL_GETPPID();
}

__attribute__((noinline)) static void *worker(void *arg)
{
	int i;

	for (i = 0; i < before; i++)
		before_rename();
	prctl(PR_SET_NAME, "sb-renamed");
	for (i = 0; i < after; i++)
		after_rename();
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 2) {
		before = atoi(argv[1]);
		after = atoi(argv[2]);
	}
	sb_sleep_ms(300);
	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
	pthread_join(t, NULL);
	return 0;
}
