/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the test programs: a system call issued right from the
 * calling function (glibc's wrappers use %rbp as a scratch register, which
 * ends a frame-pointer walk before it reaches our functions), and a
 * duration long enough for the fallback's /proc/<pid>/maps snapshots.
 */
#ifndef _USTACK_PROGS_H
#define _USTACK_PROGS_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

/* getppid(2) without a libc frame in between. */
#if defined(__x86_64__)
#define USTACK_SYSCALL_GETPPID()					\
	do {								\
		long __ret;						\
		asm volatile("syscall" : "=a"(__ret) : "0"((long)SYS_getppid) \
			     : "rcx", "r11", "memory");			\
		(void)__ret;						\
	} while (0)
#else
#define USTACK_SYSCALL_GETPPID()	syscall(SYS_getppid)
#endif

/* Iterations from argv[1] (default @def), 20 ms apart. */
static inline int progs_iterations(int argc, char **argv, int def)
{
	return argc > 1 ? atoi(argv[1]) : def;
}

static inline void progs_pause(void)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

/*
 * With USTACK_PROGS_HOLD=FILE: create FILE once every call is made, then
 * wait for a signal. A system-wide fallback run reads a process's maps
 * while it lives; a test holds the process until the run has ended
 * rather than hoping the reader got to it in time.
 */
static inline void progs_hold(void)
{
	const char *file = getenv("USTACK_PROGS_HOLD");
	FILE *fp;

	if (!file)
		return;
	fp = fopen(file, "w");
	if (fp)
		fclose(fp);
	for (;;)
		pause();
}

#endif /* _USTACK_PROGS_H */
