// SPDX-License-Identifier: GPL-2.0
/*
 * workers: tasks whose every system call tells whose it is, for the
 * pairing checks of tests/bats/vm/faults.bats.
 *
 *   workers DIR FIRST PROCS CALLS [ROUNDS]
 *
 * Forks PROCS processes, numbered FIRST to FIRST + PROCS - 1; process p
 * runs chain 2p in its main thread and chain 2p + 1 in a second thread
 * (8 chains, so FIRST + PROCS <= 4). Chain n is
 *
 *   wn_main -> wn_loop -> wn_ppid -> getppid(2)
 *                      -> wn_uid  -> getuid(2)
 *
 * and each loop iteration makes one getppid and one getuid call, each
 * issued right in its leaf function: a user stack that belongs to the
 * event is the event's chain, with the event's system call as its leaf.
 *
 * Each thread appends "TID CHAIN" to DIR/pids, waits until DIR/go exists,
 * then makes CALLS iterations. Then, for each round r of ROUNDS (default
 * 0), it appends "CHAIN r" to DIR/rounds, waits until DIR/go.r exists and
 * makes CALLS iterations more. The first process waits for the others
 * and creates DIR/done last.
 * Waiting is polling with access(2) and nanosleep(2), which are neither
 * getppid nor getuid. Built with frame pointers (tests/progs/Makefile).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define NR_CHAINS 8

#if defined(__x86_64__)
#define raw_syscall0(nr) ({						\
	long __ret;							\
	asm volatile("syscall" : "=a"(__ret) : "0"((long)(nr))		\
		     : "rcx", "r11", "memory");				\
	__ret;								\
})
#else
#define raw_syscall0(nr) syscall(nr)
#endif

static const char *dir;
static long calls;
static int rounds;

static void append(const char *file, const char *line)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	/* one write(2) per line: lines of several tasks do not mix */
	if (fd < 0 || write(fd, line, strlen(line)) != (ssize_t)strlen(line)) {
		perror(path);
		exit(1);
	}
	close(fd);
}

static void wait_for(const char *file)
{
	struct timespec ts = { 0, 5 * 1000 * 1000 };
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	while (access(path, F_OK))
		nanosleep(&ts, NULL);
}

/* before round @r */
NOINLINE static void next_round(int chain, int r)
{
	char line[32], go[32];

	snprintf(line, sizeof(line), "%d %d\n", chain, r);
	append("rounds", line);
	snprintf(go, sizeof(go), "go.%d", r);
	wait_for(go);
}

#define CHAIN(n)							\
	NOINLINE static void w##n##_ppid(void)				\
	{								\
		raw_syscall0(SYS_getppid);				\
		asm volatile("" ::: "memory");				\
	}								\
	NOINLINE static void w##n##_uid(void)				\
	{								\
		raw_syscall0(SYS_getuid);				\
		asm volatile("" ::: "memory");				\
	}								\
	NOINLINE static void w##n##_loop(void)				\
	{								\
		long i;							\
									\
		for (i = 0; i < calls; i++) {				\
			w##n##_ppid();					\
			w##n##_uid();					\
		}							\
	}								\
	NOINLINE static void w##n##_main(void)				\
	{								\
		int r;							\
									\
		w##n##_loop();						\
		for (r = 1; r <= rounds; r++) {				\
			next_round(n, r);				\
			w##n##_loop();					\
		}							\
	}

CHAIN(0)
CHAIN(1)
CHAIN(2)
CHAIN(3)
CHAIN(4)
CHAIN(5)
CHAIN(6)
CHAIN(7)

static void (*const chains[NR_CHAINS])(void) = {
	w0_main, w1_main, w2_main, w3_main, w4_main, w5_main, w6_main, w7_main,
};

static void run_chain(int chain)
{
	char line[64];

	snprintf(line, sizeof(line), "%ld %d\n", (long)syscall(SYS_gettid), chain);
	append("pids", line);
	wait_for("go");
	chains[chain]();
}

static void *second_thread(void *arg)
{
	run_chain((int)(long)arg);
	return NULL;
}

static void run_process(int p)
{
	pthread_t t;

	if (pthread_create(&t, NULL, second_thread, (void *)(long)(2 * p + 1))) {
		fprintf(stderr, "workers: cannot start a thread\n");
		exit(1);
	}
	run_chain(2 * p);
	pthread_join(t, NULL);
}

int main(int argc, char **argv)
{
	int first, procs, p, status, ret = 0;
	char path[4096];
	pid_t pid;

	if (argc < 5 || argc > 6) {
		fprintf(stderr, "usage: workers DIR FIRST PROCS CALLS [ROUNDS]\n");
		return 2;
	}
	dir = argv[1];
	first = atoi(argv[2]);
	procs = atoi(argv[3]);
	calls = atol(argv[4]);
	rounds = argc == 6 ? atoi(argv[5]) : 0;
	if (first < 0 || procs < 1 || 2 * (first + procs) > NR_CHAINS || calls < 1 ||
	    rounds < 0) {
		fprintf(stderr, "workers: 0 <= FIRST, 1 <= PROCS, FIRST + PROCS <= %d, CALLS >= 1, ROUNDS >= 0\n",
			NR_CHAINS / 2);
		return 2;
	}
	for (p = first + 1; p < first + procs; p++) {
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (!pid) {
			run_process(p);
			return 0;
		}
	}
	run_process(first);
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			ret = 1;
	snprintf(path, sizeof(path), "%s/done", dir);
	if (close(open(path, O_WRONLY | O_CREAT, 0644))) {
		perror(path);
		return 1;
	}
	return ret;
}
