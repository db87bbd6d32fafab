// SPDX-License-Identifier: GPL-2.0
/*
 * Two call paths of known counts, for the analysis outputs (--top,
 * --tree, report's filters):
 *
 *   main -> getppid_path -> getppid_mid -> getppid_leaf -> getppid(2)
 *   main -> getuid_path -> getuid_leaf -> getuid(2)
 *
 * N rounds (argv[1], default 1000), each of 3 getppid(2) then 1
 * getuid(2): 3N and N events, 75% and 25%. Every 100 rounds the
 * program sleeps 1 ms, so that the perf source's ring buffers are read
 * before they fill and no event is lost on a busy machine.
 */
#include "../ustack-progs.h"

/* getuid(2) without a libc frame in between, as getppid */
#if defined(__x86_64__)
#define SYSCALL_GETUID()						\
	do {								\
		long __ret;						\
		asm volatile("syscall" : "=a"(__ret) : "0"((long)SYS_getuid) \
			     : "rcx", "r11", "memory");			\
		(void)__ret;						\
	} while (0)
#else
#define SYSCALL_GETUID()	syscall(SYS_getuid)
#endif

/* Leaves call after(): not leaf functions, they keep a frame pointer */
__attribute__((noinline)) void after(void);
__attribute__((noinline)) void after(void)
{
	asm volatile("" ::: "memory");
}

__attribute__((noinline)) void getppid_leaf(void);
__attribute__((noinline)) void getppid_leaf(void)
{
	USTACK_SYSCALL_GETPPID();
	after();
}

__attribute__((noinline)) void getppid_mid(void);
__attribute__((noinline)) void getppid_mid(void)
{
	getppid_leaf();
	asm volatile("" ::: "memory");
}

__attribute__((noinline)) void getppid_path(void);
__attribute__((noinline)) void getppid_path(void)
{
	getppid_mid();
	asm volatile("" ::: "memory");
}

__attribute__((noinline)) void getuid_leaf(void);
__attribute__((noinline)) void getuid_leaf(void)
{
	SYSCALL_GETUID();
	after();
}

__attribute__((noinline)) void getuid_path(void);
__attribute__((noinline)) void getuid_path(void)
{
	getuid_leaf();
	asm volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	struct timespec ms = { 0, 1000 * 1000 };
	int i, n = progs_iterations(argc, argv, 1000);

	for (i = 0; i < n; i++) {
		getppid_path();
		getppid_path();
		getppid_path();
		getuid_path();
		if (i % 100 == 99)
			nanosleep(&ms, NULL);
	}
	return 0;
}
