// SPDX-License-Identifier: GPL-2.0
/*
 * kalt PIDFILE N: N times, getppid from one known call chain, then getpid
 * from another (tests/bats/vm/kernel-irq-enable.bats). Successive kernel
 * entries thus come from different chains:
 *
 *   getppid:  ka_leaf <- ka_mid <- ka_top <- main
 *   getpid:   kb_leaf <- kb_mid <- kb_top <- main
 *
 * Before the first call it writes its pid into PIDFILE (an instance's
 * set_event_pid), so that only its own events are traced. Built with
 * frame pointers: the kernel's deferred unwinder walks them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

#define NOINLINE __attribute__((noinline))

/* The system call itself, without libc in between */
static NOINLINE long raw_syscall0(long nr)
{
	long ret;

	asm volatile("syscall" : "=a"(ret) : "0"(nr) : "rcx", "r11", "memory");
	return ret;
}

NOINLINE long ka_leaf(void);
NOINLINE long ka_leaf(void)
{
	return raw_syscall0(SYS_getppid);
}

NOINLINE long ka_mid(void);
NOINLINE long ka_mid(void)
{
	return ka_leaf() + 1;
}

NOINLINE long ka_top(void);
NOINLINE long ka_top(void)
{
	return ka_mid() + 1;
}

NOINLINE long kb_leaf(void);
NOINLINE long kb_leaf(void)
{
	return raw_syscall0(SYS_getpid);
}

NOINLINE long kb_mid(void);
NOINLINE long kb_mid(void)
{
	return kb_leaf() + 1;
}

NOINLINE long kb_top(void);
NOINLINE long kb_top(void)
{
	return kb_mid() + 1;
}

int main(int argc, char **argv)
{
	FILE *f;
	long i, n;
	pid_t pid;

	if (argc != 3) {
		fprintf(stderr, "usage: kalt PIDFILE N\n");
		return 2;
	}
	n = atol(argv[2]);
	/*
	 * Asked before the file is opened: opening it for writing empties
	 * the pid list, which then lets every task through, this call too
	 */
	pid = getpid();
	f = fopen(argv[1], "w");
	if (!f || fprintf(f, "%d\n", pid) < 0 || fclose(f)) {
		perror(argv[1]);
		return 1;
	}
	for (i = 0; i < n; i++) {
		ka_top();
		kb_top();
	}
	return 0;
}
