// SPDX-License-Identifier: GPL-2.0
/*
 * kchain: user stacks the kernel-side tests know in advance.
 *
 *   kchain asm [N]       main -> kf_01 -> ... -> kf_22, which enters the
 *                        kernel with getppid(2) itself (inline syscall), so
 *                        the leaf frame is kf_22; N times (default 3)
 *   kchain libc [N]      the same chain, but kf_22 calls libc's getppid(),
 *                        so the leaf frame is in libc
 *   kchain recurse DEPTH kr_recurse() calls itself DEPTH times, then
 *                        getppid(2) from the deepest call
 *   kchain migrate FROM TO
 *                        pinned to CPU FROM, moves itself to CPU TO with
 *                        sched_setaffinity(2): the syscall enters on FROM
 *                        and returns to user space on TO
 *   kchain spin MS       the same chain, but kf_22 spins for MS ms without
 *                        system calls: events come from interrupts
 *   kchain unlink        unlinks its own executable, then runs the asm
 *                        chain once: the file is mapped but deleted
 *   kchain signal N      kf_22 sends the task SIGUSR1 with kill(2), N
 *                        times; the handler (ks_handler) runs on the way
 *                        back to user space
 *   kchain exit          kf_22 calls exit_group(2): the task leaves with
 *                        its unwind still pending
 *   kchain wild KIND     raw_getppid <- kw_3 <- kw_2 <- kw_1 <- kw_wild <-
 *                        wild <- main, where kw_wild has replaced the frame
 *                        pointer it saved for wild() with a wild one: KIND
 *                        kernel (a kernel address), unmapped (a free page
 *                        above the stack), backwards (below the stack
 *                        pointer) or none (left as it is); the walk must
 *                        stop at wild(). KIND ra: a frame on wild()'s
 *                        stack whose return address is ~0UL (the last
 *                        byte of the address space) and whose saved frame
 *                        pointer is 0: the stack is the chain, then that
 *                        address, outside every mapping
 *   kchain exec PROG ARG...
 *                        kf_22 calls execve(2) on PROG: the unwind asked
 *                        for in the call runs in the new image
 *
 * Built with frame pointers and without inlining: the kernel's deferred
 * unwinder walks frame pointers.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static int use_libc;
static long spin_ms;

/* The system call kf_22 makes itself, and its arguments */
static long leaf_nr = SYS_getppid;
static long leaf_arg[3];
static volatile int signals;

/* getppid(2) without libc, so that no frame-pointer-less code is on top */
static NOINLINE long raw_getppid(void)
{
	long ret;

	asm volatile("syscall" : "=a"(ret) : "0"((long)SYS_getppid)
		     : "rcx", "r11", "memory");
	return ret;
}

/* Busy for spin_ms, checking the time rarely so interrupts land here */
static NOINLINE void spin(void)
{
	struct timespec start, now;
	unsigned long i;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		for (i = 0; i < (1UL << 20); i++)
			asm volatile("pause" ::: "memory");
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((now.tv_sec - start.tv_sec) * 1000 +
		 (now.tv_nsec - start.tv_nsec) / 1000000 < spin_ms);
}

NOINLINE void kf_22(void);
NOINLINE void kf_22(void)
{
	if (spin_ms) {
		unsigned long i;

		/* Inline, so that interrupts mostly find kf_22 as the leaf */
		for (i = 0; i < (1UL << 24); i++)
			asm volatile("pause" ::: "memory");
		spin();
	} else if (use_libc) {
		getppid();
	} else {
		/* Inline, so that kf_22 itself is the leaf frame */
		long ret;

		asm volatile("syscall" : "=a"(ret)
			     : "0"(leaf_nr), "D"(leaf_arg[0]), "S"(leaf_arg[1]),
			       "d"(leaf_arg[2])
			     : "rcx", "r11", "memory");
	}
	asm volatile("" ::: "memory");
}

#define KF(n, next)				\
	NOINLINE void kf_##n(void);		\
	NOINLINE void kf_##n(void)		\
	{					\
		next();				\
		asm volatile("" ::: "memory");	\
	}

KF(21, kf_22)
KF(20, kf_21)
KF(19, kf_20)
KF(18, kf_19)
KF(17, kf_18)
KF(16, kf_17)
KF(15, kf_16)
KF(14, kf_15)
KF(13, kf_14)
KF(12, kf_13)
KF(11, kf_12)
KF(10, kf_11)
KF(09, kf_10)
KF(08, kf_09)
KF(07, kf_08)
KF(06, kf_07)
KF(05, kf_06)
KF(04, kf_05)
KF(03, kf_04)
KF(02, kf_03)
KF(01, kf_02)

NOINLINE int kr_recurse(int depth);
NOINLINE int kr_recurse(int depth)
{
	if (depth <= 1)
		return (int)raw_getppid();
	return kr_recurse(depth - 1) + 1;
}

static int usage(void);

/* What kw_wild puts where it saved main's frame pointer (0: nothing) */
static unsigned long wild_fp;

NOINLINE void kw_3(void);
NOINLINE void kw_3(void)
{
	raw_getppid();
	asm volatile("" ::: "memory");
}

NOINLINE void kw_2(void);
NOINLINE void kw_2(void)
{
	kw_3();
	asm volatile("" ::: "memory");
}

NOINLINE void kw_1(void);
NOINLINE void kw_1(void)
{
	kw_2();
	asm volatile("" ::: "memory");
}

NOINLINE void kw_wild(void);
NOINLINE void kw_wild(void)
{
	/* With frame pointers, [rbp] is the frame pointer saved for wild() */
	volatile unsigned long *saved = __builtin_frame_address(0);
	unsigned long keep = *saved;

	if (wild_fp)
		*saved = wild_fp;
	kw_1();
	*saved = keep;
	asm volatile("" ::: "memory");
}

/* A page above the stack that nothing maps: mapped once to be sure, then unmapped */
static unsigned long free_page_above_stack(void)
{
	unsigned long lo, hi, page = 0;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (strstr(line, "[stack]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			page = hi + 2 * 4096;
	}
	if (f)
		fclose(f);
	if (!page || mmap((void *)page, 4096, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) == MAP_FAILED)
		return 0;
	munmap((void *)page, 4096);
	return page;
}

static int wild(const char *kind)
{
	/* The frame "ra" links in: saved frame pointer 0, return address ~0 */
	volatile unsigned long last_frame[2] = { 0, ~0UL };

	if (!strcmp(kind, "ra"))
		wild_fp = (unsigned long)last_frame;
	else if (!strcmp(kind, "kernel"))
		wild_fp = 0xffff888000000000UL;
	else if (!strcmp(kind, "unmapped"))
		wild_fp = free_page_above_stack();
	else if (!strcmp(kind, "backwards"))
		wild_fp = (unsigned long)__builtin_frame_address(0) - 4096;
	else if (strcmp(kind, "none"))
		return usage();
	if (strcmp(kind, "none") && !wild_fp) {
		fprintf(stderr, "kchain: no free page above the stack\n");
		return 1;
	}
	kw_wild();
	return 0;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static int migrate(int from, int to)
{
	if (pin(from) < 0) {
		perror("kchain: sched_setaffinity");
		return 1;
	}
	/* Give the scheduler a chance to move us before the traced call */
	usleep(10000);
	if (sched_getcpu() != from) {
		fprintf(stderr, "kchain: not running on CPU %d\n", from);
		return 1;
	}
	/* The traced call: it moves the task while it is in the kernel */
	if (pin(to) < 0) {
		perror("kchain: sched_setaffinity");
		return 1;
	}
	printf("%d %d\n", from, sched_getcpu());
	return 0;
}

NOINLINE void ks_handler(int sig);
NOINLINE void ks_handler(int sig __attribute__((unused)))
{
	signals++;
}

static int send_signals(int n)
{
	int i;

	if (signal(SIGUSR1, ks_handler) == SIG_ERR) {
		perror("kchain: signal");
		return 1;
	}
	leaf_nr = SYS_kill;
	leaf_arg[0] = getpid();
	leaf_arg[1] = SIGUSR1;
	for (i = 0; i < n; i++)
		kf_01();
	printf("%d\n", signals);
	return signals == n ? 0 : 1;
}

static int exec_from_chain(char **argv)
{
	extern char **environ;

	leaf_nr = SYS_execve;
	leaf_arg[0] = (long)argv[0];
	leaf_arg[1] = (long)argv;
	leaf_arg[2] = (long)environ;
	kf_01();
	perror("kchain: execve");
	return 1;
}

static int usage(void)
{
	fprintf(stderr, "usage: kchain asm|libc [N] | recurse DEPTH | migrate FROM TO |\n"
		"              spin MS | unlink [MS] | signal N | exit | exec PROG [ARG...] |\n"
		"              wild kernel|unmapped|backwards|none|ra\n");
	return 2;
}

int main(int argc, char **argv)
{
	int i, n;

	if (argc < 2)
		return usage();

	if (!strcmp(argv[1], "asm") || !strcmp(argv[1], "libc")) {
		use_libc = !strcmp(argv[1], "libc");
		n = argc > 2 ? atoi(argv[2]) : 3;
		for (i = 0; i < n; i++)
			kf_01();
		return 0;
	}
	if (!strcmp(argv[1], "recurse") && argc > 2) {
		kr_recurse(atoi(argv[2]));
		return 0;
	}
	if (!strcmp(argv[1], "migrate") && argc > 3)
		return migrate(atoi(argv[2]), atoi(argv[3]));
	if (!strcmp(argv[1], "spin") && argc > 2) {
		spin_ms = atol(argv[2]);
		kf_01();
		return 0;
	}
	if (!strcmp(argv[1], "unlink")) {
		char self[4096];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (n < 0 || (self[n] = '\0', unlink(self)) < 0) {
			perror("kchain: unlink");
			return 1;
		}
		/* unlink MS: running MS more, its executable unlinked */
		if (argc > 2)
			spin_ms = atol(argv[2]);
		kf_01();
		return 0;
	}
	if (!strcmp(argv[1], "signal") && argc > 2)
		return send_signals(atoi(argv[2]));
	if (!strcmp(argv[1], "exit")) {
		leaf_nr = SYS_exit_group;
		kf_01();
		return 1;
	}
	if (!strcmp(argv[1], "exec") && argc > 2)
		return exec_from_chain(argv + 2);
	if (!strcmp(argv[1], "wild") && argc > 2)
		return wild(argv[2]);
	return usage();
}
